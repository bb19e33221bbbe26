//! The local chat page's scripted model: the replies it hands out one per message, the faults
//! a reply injects, and the ways the page is unlike itself (its modes), as a test or
//! `keyless demo` sets them, or as a folder of reply files gives them.

use std::path::Path;
use std::time::Duration;

/// A fault a scripted reply injects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The stream stops before `@@eof` and the page says the reply is complete.
    Truncate,
    /// The request is accepted and never answered.
    NoReply,
    /// The chat's length-limit notice instead of a reply.
    Exhausted,
    /// A server error instead of a reply.
    ServerError,
    /// The site refuses the message as too long (ChatGPT's wording, HTTP 413).
    TooLong,
    /// The site's message limit is reached (HTTP 429).
    RateLimited,
    /// The reply's text is the site's notice, shown in a toast (`role=alert`) outside the
    /// conversation, the reply's turn left empty (HTTP 429).
    Toast,
    /// The reply's text is the site's notice, in a modal dialog with a "Got it" button that
    /// closes it (ChatGPT's throttle modal; HTTP 429).
    Dialog,
    /// The reply's text is the site's notice, in a toast, and the reply's turn is taken away
    /// (no reply at all; HTTP 200: only the words say it).
    ToastAlone,
    /// The reply's text is the site's notice, in the browser's own `window.alert()`, which
    /// stalls the page's scripts until it is answered; the reply's turn left empty (HTTP 429).
    Alert,
    /// The reply's text is the site's error in the reply's own place, with a Retry button, in
    /// no element the selectors know (HTTP 500).
    ErrorTurn,
    /// The stream sends the first half of the reply and then nothing, never ending.
    Stall,
    /// The reply's text is the site's notice, in a banner at the top of the page outside the
    /// conversation, the reply's turn left empty (a spend limit's "402 Payment Required").
    Banner,
    /// The session expired mid-turn: the site answers 401 and the page goes to its login
    /// address (`/login?next=…`), a wall with no composer, until the person logs in
    /// ([`super::LocalChat::log_in`]); then back to the chat.
    LoginRedirect,
    /// The network drops mid-stream: half the reply arrives, then the connection breaks and
    /// the page says "Network error"; the site kept the whole reply (a reopened chat shows it).
    Offline,
    /// The network drops mid-stream as with [`Fault::Offline`], and the site stays unreachable
    /// for [`super::OUTAGE`] after it: every connection to it, new or kept open, is dropped
    /// unanswered (the browser's "connection closed"), so a reload of the chat fails; the site
    /// kept the whole reply.
    Outage,
    /// A bot check mid-turn: the site answers 403 and the page reloads as a challenge ("Just a
    /// moment...", no composer) at the chat's own address, until it is passed
    /// ([`super::LocalChat::log_in`]).
    BotCheck,
}

/// One reply of the script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptedReply {
    pub text: String,
    pub fault: Option<Fault>,
}

/// Faults of the page itself.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageFaults {
    /// Sends the page ignores before it accepts one (a lost click).
    pub drop_sends: u32,
    /// Text the composer already holds when the page opens, with an attachment chip.
    pub stale_composer: Option<String>,
    /// Attached files fail to upload.
    pub upload_fails: bool,
    /// The composer's editor: `None` for the page's own (it handles `beforeinput` like
    /// Lexical and re-renders itself on every input), or one of [`EDITOR_NAMES`] from the npm
    /// packages of [`Script::modules`]: `prosemirror` (its packages alone will do, as in
    /// `tests/prosemirror/`), `tiptap` (Claude, Grok), `lexical`, `quill` (Gemini), `textarea`.
    pub editor: Option<String>,
    /// How replies are drawn: `None` for the page's own Markdown renderer, or one of
    /// [`RENDERER_NAMES`] (markdown-it or marked with highlight.js, or code blocks in read-only
    /// CodeMirror 6 views that draw only the lines on screen).
    pub renderer: Option<String>,
    /// The page asks the user to log in and shows no composer until [`LocalChat::log_in`].
    pub login_wall: bool,
    /// The page shows a bot check (Cloudflare's "Just a moment...") until
    /// [`LocalChat::log_in`].
    pub challenge: bool,
    /// How the page draws the user's messages, as real sites differ: `None` as sent (one text
    /// node), `"paragraphs"` a paragraph per line (Claude; no line breaks in the text),
    /// `"shortened"` the first 300 characters and a "Show more" button, `"replaced"` a chip
    /// standing for a pasted file (ChatGPT does this to long pastes).
    pub user_display: Option<String>,
    /// The send button ignores scripted clicks and answers only real mouse events.
    pub real_clicks_only: bool,
    /// Milliseconds between the send (the composer emptied) and the user's turn appearing.
    pub slow_user_turn_ms: u64,
    /// The composer takes no pasted text (the `pasteHtml` strategy fails on it).
    pub ignore_paste: bool,
    /// The model picker's rows close the menu when clicked but change nothing (a click the
    /// site's framework did not take): only reading the choice back tells.
    pub picker_ignores_clicks: bool,
    /// Ways the page is unlike itself, as real sites are unlike each other (see [`MODES`]),
    /// and for tests: `no-composer` (nothing on the page can be typed in), `no-copy` (no copy
    /// control on replies), `far-frame` (the whole chat inside a frame of another origin,
    /// `localhost` for `127.0.0.1`, which no script of the page may look into),
    /// `tight-markdown` (with `user_display` "markdown", no white space between the drawn
    /// blocks: a heading's last word and the next paragraph's first run together in the text),
    /// `blank-lines-altered` (each blank line of a message goes to the
    /// server as two spaces, though the turn drawn shows it blank), `paste-to-file` (a paste over 4,000 characters becomes a "Pasted
    /// Text" card with claude.ai's markup, and goes with the message as a file).
    pub modes: Vec<String>,
}

/// The page's modes, for [`PageFaults::modes`]: `generated-classes` (new random class names on
/// every load), `no-ids` (no ids or test ids), `translated` (German labels), `send-with-text`
/// (the send button exists only while the composer holds text), `shared-slot` (one button sends
/// and stops), `enter-only` (no send button: Enter sends), `other-containers` (a section per
/// exchange holding two articles, no role attributes), `hover-copy` (copy controls hidden until
/// hovered), `reasoning` (a reasoning block before the answer), `busy-signal` (no stop button
/// and no done mark: the reply is `aria-busy` while it streams), `enter-newline` (Enter breaks
/// the line and only the send button sends, as on Gemini), `link-badges` (the composer draws a
/// URL as a widget with an icon, as ChatGPT's does), `doubled-thoughts` (Claude's "Thought
/// process" label twice at the top of a reply and a lagging screen-reader copy of its body),
/// `code-editor-above` (an editable code view, contenteditable with role=textbox, above the
/// composer with no editor library's class names), `code-copy` (each code block has its own
/// copy control, an icon only, that copies the code alone; in a toolbar, or in Gemini's
/// decoration with `gemini`), `sse` (the reply streams as server-sent events, a JSON delta
/// each), `sse-cumulative` (server-sent events, each with the whole text so far), `lossy` (the
/// page draws replies as some sites do, losing what cannot be read back: a task list's `[ ]`
/// as checkboxes, lines of HTML dropped, and no copy control), `encoded-stream` (the reply
/// streams as base64 lines only the page decodes: the wire cannot read it), `icon-copy` (the
/// copy control is an icon only, no label, text or test id, and says `data-copied="true"` for
/// three seconds after a click), `shift-enter-only` (Enter sends, and the composer takes a
/// line break only from Shift+Enter or a pasted `<br>`: line breaks in typed or pasted text
/// are dropped), `shadow-root` (every part of the chat inside an open shadow root of a
/// `<chat-app>` element), `nested-shadow` (shadow roots inside a shadow root: the conversation
/// in a `<chat-thread>`'s, the composer in a `<chat-composer>`'s, both inside `<chat-app>`'s),
/// `iframe` (the whole chat inside a frame of the same origin), `shadow-turns` (each turn's
/// text inside shadow roots of its own, three deep below the turn's element, as Panel draws
/// its messages, and a reply's copy control only an icon drawn as clickable in a component
/// beside them: a `span` with the pointer cursor, no button, role, label, title or test id),
/// `counter-ids` (each turn has an
/// id from a counter, `c1`, `c2`, …, as NiceGUI's elements do), `far-images` (each reply shows
/// an avatar from an address that refuses, port 2 of this machine, as a CDN this machine
/// cannot reach), `server-drawn` (the server draws each reply into HTML, a fenced one as a
/// code block with its tabs expanded to four spaces, as NiceGUI's markdown2 does, and the page
/// shows that HTML, with no copy control: no agent can read such a reply's tabs), `late-actions`
/// (a reply's copy control and done mark drawn 3 s after its text ends, as Panel's icon comes
/// on a loaded machine), `own-words` (the send button says "Dispatch" and the stop button
/// "Halt", no label or test id saying send or stop), `menu-copy` (a reply's only copy is the
/// "Copy" row of a menu behind a "⋯" button that opens on the pointer going down, drawn at the
/// end of the page), `collapsing-composer` (the composer keeps no whitespace of its own: a
/// run of spaces or tabs becomes one space, a line ends with none), `websocket` (each message
/// goes over the page's one WebSocket as an event in socket.io's framing, `42["message",{…}]`,
/// and the reply comes back as `delta` events, as sites that stream over a socket send theirs),
/// `any-enter-sends` (Enter and Shift+Enter both send, and the composer takes no line break
/// from typed or pasted text, a pasted `<br>` neither: no message of two lines can go),
/// `busy-composer` (the composer and the send button disabled while a reply streams and for
/// 3 s after it ends, as an AI SDK page keeps its input disabled until the response's body
/// closes), `rebuilding-thread` (the conversation inside the composer's form, every code
/// block's header with its copy button drawn anew on each keystroke in the composer, as
/// react-markdown with inline `components` does); and the
/// chat's own controls:
/// `picker-menu` (a model picker shaped like
/// ChatGPT's: a button opening a menu of `menuitemradio` rows, the effort levels a group of
/// their own in it), `picker-listbox` (shaped like Claude's and Gemini's: a combobox opening a
/// listbox of options, no effort), `model-locked` (the best model's row holds an "Upgrade"
/// button, and choosing it opens an upgrade prompt instead), `model-downgrade` (each reply is
/// answered by the weakest model while the picker shows the chosen one: its
/// `data-message-model-slug` says so), `model-cap` (after a reply the page says a usage cap is
/// reached and swaps the picker to the weakest model), `work-mode` (Chat and Work radios, Work
/// checked: a metered surface beside plain chat), `temporary-chat` (a toggle for a chat the
/// site keeps no history of), `effort-submenu` (the menu's effort levels behind a row that
/// opens a submenu on the pointer only, and an older model, GPT-4o, behind a row that opens one
/// on ArrowRight only, each submenu drawn apart from the menu), `rich-rows` (the listbox's
/// options each hold a description line first, in the title's letters and named by
/// `aria-describedby`, then the title beside a boxed "New" badge) and `picker-select` (a native
/// `<select>` with optgroups, GPT-4o among the older ones, its values slugs rather than labels;
/// with `model-locked`, the best model's option disabled); and the person's attachments: `attach` (the file input hidden behind
/// a paperclip button; what is chosen uploads at once, its bytes kept by the server
/// ([`super::LocalChat::uploads`]), and shows a chip with its name and a remove ×),
/// `attach-refuse` (so, but `.exe` files and files over 2 MB are refused with a toast in the
/// site's words), `attach-cap` (so, but at most 3 files a message: a fourth gets a toast),
/// `attach-silent` (the input takes files and the page never shows a chip) and `no-upload` (no
/// file input at all). Which model, effort, surface and temporary state each message
/// went with is told by [`super::LocalChat::sent_with`].
pub const MODES: &[&str] = &[
    "generated-classes",
    "no-ids",
    "translated",
    "send-with-text",
    "shared-slot",
    "enter-only",
    "other-containers",
    "hover-copy",
    "reasoning",
    "busy-signal",
    "enter-newline",
    "link-badges",
    "doubled-thoughts",
    "code-editor-above",
    "code-copy",
    "sse",
    "sse-cumulative",
    "lossy",
    "encoded-stream",
    "icon-copy",
    "shift-enter-only",
    "shadow-root",
    "nested-shadow",
    "iframe",
    "shadow-turns",
    "counter-ids",
    "far-images",
    "server-drawn",
    "late-actions",
    "own-words",
    "picker-menu",
    "picker-listbox",
    "model-locked",
    "model-downgrade",
    "model-cap",
    "work-mode",
    "temporary-chat",
    "effort-submenu",
    "rich-rows",
    "picker-select",
    "attach",
    "attach-refuse",
    "attach-cap",
    "attach-silent",
    "no-upload",
    "menu-copy",
    "collapsing-composer",
    "websocket",
    "any-enter-sends",
    "busy-composer",
    "rebuilding-thread",
];

/// The scripted model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    pub replies: Vec<ScriptedReply>,
    pub page: PageFaults,
    /// Characters per streamed chunk, and the pause between chunks.
    pub chunk_chars: usize,
    pub chunk_delay: Duration,
    /// A `node_modules` folder served at `/modules/` (the page's import map points there), for
    /// an editor the page mounts from it.
    pub modules: Option<std::path::PathBuf>,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            replies: Vec::new(),
            page: PageFaults::default(),
            chunk_chars: 400,
            chunk_delay: Duration::from_millis(10),
            modules: None,
        }
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default)]
    faults: std::collections::BTreeMap<String, Fault>,
    #[serde(default)]
    drop_sends: u32,
    #[serde(default)]
    stale_composer: Option<String>,
    #[serde(default)]
    upload_fails: bool,
}

impl Script {
    /// Replies in the given order, no faults.
    pub fn replies<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> Script {
        Script {
            replies: texts
                .into_iter()
                .map(|t| ScriptedReply {
                    text: t.into(),
                    fault: None,
                })
                .collect(),
            ..Script::default()
        }
    }

    /// A script from a folder: every `*.reply` file, in name order, is one reply; an optional
    /// `script.json` names faults per file (`{"faults": {"02.reply": "truncate"}}`) and page
    /// faults (`drop_sends`, `stale_composer`, `upload_fails`).
    pub fn from_dir(dir: &Path) -> std::io::Result<Script> {
        let meta: ScriptFile = match std::fs::read_to_string(dir.join("script.json")) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?,
            Err(_) => ScriptFile::default(),
        };
        let mut names: Vec<String> = std::fs::read_dir(dir)?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".reply"))
            .collect();
        names.sort();
        let mut replies = Vec::new();
        for name in names {
            replies.push(ScriptedReply {
                text: std::fs::read_to_string(dir.join(&name))?,
                fault: meta.faults.get(&name).copied(),
            });
        }
        Ok(Script {
            replies,
            page: PageFaults {
                drop_sends: meta.drop_sends,
                stale_composer: meta.stale_composer,
                upload_fails: meta.upload_fails,
                editor: None,
                login_wall: false,
                challenge: false,
                user_display: None,
                real_clicks_only: false,
                slow_user_turn_ms: 0,
                ignore_paste: false,
                picker_ignores_clicks: false,
                modes: Vec::new(),
                renderer: None,
            },
            ..Script::default()
        })
    }
}
