//! The local chat page: served on 127.0.0.1 by keyless itself, for `keyless demo` and the tests.
//! It behaves like a real chat site (see `assets/chat/`), and its model is a script: replies and
//! faults from files, handed out one per message.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

mod modules;
pub use modules::{editor_modules, prosemirror_modules};

/// The page's files, kept readable in `assets/chat/` and built into the binary.
const INDEX_HTML: &str = include_str!("../../../assets/chat/index.html");
const CHAT_JS: &str = include_str!("../../../assets/chat/chat.js");
const MARKDOWN_JS: &str = include_str!("../../../assets/chat/markdown.js");
const CHAT_CSS: &str = include_str!("../../../assets/chat/chat.css");
const PM_EDITOR_JS: &str = include_str!("../../../assets/chat/pm-editor.js");
/// Where the editors' and renderers' packages are, for the page's import map.
const IMPORT_MAP: &str = include_str!("../../../assets/chat/editors/importmap.json");
/// The real editors and Markdown renderers a test may mount (`PageFaults::editor`,
/// `PageFaults::renderer`), from the npm packages a test serves (`Script::modules`).
const EDITORS: &[(&str, &str)] = &[
    (
        "prosemirror.js",
        include_str!("../../../assets/chat/editors/prosemirror.js"),
    ),
    (
        "tiptap.js",
        include_str!("../../../assets/chat/editors/tiptap.js"),
    ),
    (
        "lexical.js",
        include_str!("../../../assets/chat/editors/lexical.js"),
    ),
    (
        "quill.js",
        include_str!("../../../assets/chat/editors/quill.js"),
    ),
    (
        "textarea.js",
        include_str!("../../../assets/chat/editors/textarea.js"),
    ),
    (
        "markdown-it.js",
        include_str!("../../../assets/chat/editors/markdown-it.js"),
    ),
    (
        "marked.js",
        include_str!("../../../assets/chat/editors/marked.js"),
    ),
    (
        "codemirror.js",
        include_str!("../../../assets/chat/editors/codemirror.js"),
    ),
];

/// The editors a test may mount as the composer.
pub const EDITOR_NAMES: &[&str] = &["prosemirror", "tiptap", "lexical", "quill", "textarea"];
/// The Markdown renderers a test may draw replies with (besides the page's own).
pub const RENDERER_NAMES: &[&str] = &["markdown-it", "marked", "codemirror"];

/// What the chat says when a conversation is too long (ChatGPT's wording).
pub const EXHAUSTED_TEXT: &str = "You've reached the maximum length for this conversation, but you can keep talking by starting a new chat.";

/// What the chat says when a message is too long (ChatGPT's wording).
pub const TOO_LONG_TEXT: &str = "The message you submitted was too long, please reload the conversation and submit something shorter.";

/// What the chat says when the user's message limit is reached.
pub const RATE_LIMIT_TEXT: &str = "Too many requests in 1 hour. Try again later.";

/// How `keyless doctor` starts its canary message; the local model echoes the block after the
/// first blank line.
pub const CANARY_PREFIX: &str = "keyless doctor canary.";

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
    /// Ways the page is unlike itself, as real sites are unlike each other (see [`MODES`]),
    /// and for tests: `no-composer` (nothing on the page can be typed in), `no-copy` (no copy
    /// control on replies), `paste-to-file` (a paste over 4,000 characters becomes a "Pasted
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
/// composer with no editor library's class names).
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
                modes: Vec::new(),
                renderer: None,
            },
            ..Script::default()
        })
    }
}

struct Shared {
    script: Script,
    next: usize,
    received: Vec<String>,
    /// Conversations by id, as a real site keeps them: a reopened `/c/{id}` shows them again.
    conversations: std::collections::HashMap<String, Vec<Turn>>,
    /// The conversations' ids in the order they began, for the page's history list.
    started: Vec<String>,
}

/// One message of a stored conversation.
#[derive(Clone, Debug, serde::Serialize)]
struct Turn {
    role: &'static str,
    text: String,
}

/// The header that names the conversation a message belongs to.
const CONVERSATION_HEADER: &str = "x-conversation";

type AppState = Arc<Mutex<Shared>>;

/// A running local chat page.
pub struct LocalChat {
    addr: SocketAddr,
    state: AppState,
    runtime: tokio::runtime::Runtime,
}

impl LocalChat {
    /// Serves the page on a free port of 127.0.0.1.
    pub fn start(script: Script) -> std::io::Result<LocalChat> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let state: AppState = Arc::new(Mutex::new(Shared {
            script,
            next: 0,
            received: Vec::new(),
            conversations: std::collections::HashMap::new(),
            started: Vec::new(),
        }));
        let app = Router::new()
            .route("/", get(|| async { index() }))
            .route("/c/{id}", get(|| async { index() }))
            .route("/editors/{name}", get(editor_module))
            .route(
                "/chat.js",
                get(|| async { page(CHAT_JS, "text/javascript; charset=utf-8") }),
            )
            .route(
                "/markdown.js",
                get(|| async { page(MARKDOWN_JS, "text/javascript; charset=utf-8") }),
            )
            .route(
                "/chat.css",
                get(|| async { page(CHAT_CSS, "text/css; charset=utf-8") }),
            )
            .route(
                "/pm-editor.js",
                get(|| async { page(PM_EDITOR_JS, "text/javascript; charset=utf-8") }),
            )
            .route("/modules/{*path}", get(module))
            .route("/api/config", get(config))
            .route("/api/conversation/{id}", get(conversation))
            .route("/api/conversations", get(conversations))
            .route("/api/chat", post(chat))
            .with_state(Arc::clone(&state));
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        runtime.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(LocalChat {
            addr,
            state,
            runtime,
        })
    }

    /// The page's address.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Every message the page sent to the model, exactly as received.
    pub fn received(&self) -> Vec<String> {
        self.state
            .lock()
            .map(|s| s.received.clone())
            .unwrap_or_default()
    }

    /// The user's messages of each conversation the page began, in the order they began.
    pub fn conversations(&self) -> Vec<Vec<String>> {
        self.state
            .lock()
            .map(|s| {
                s.started
                    .iter()
                    .map(|id| {
                        s.conversations
                            .get(id)
                            .map(|turns| {
                                turns
                                    .iter()
                                    .filter(|t| t.role == "user")
                                    .map(|t| t.text.clone())
                                    .collect()
                            })
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Adds replies to the script (the demo's model answers as the turn goes).
    pub fn push_reply(&self, reply: ScriptedReply) {
        if let Ok(mut s) = self.state.lock() {
            s.script.replies.push(reply);
        }
    }

    /// The user logs in (or passes the bot check): the wall goes, and the composer appears.
    pub fn log_in(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.script.page.login_wall = false;
            s.script.page.challenge = false;
        }
    }

    /// The runtime serving the page, for callers that share it.
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        &self.runtime
    }
}

/// The page, with the import map of the editors and renderers a test may mount.
fn index() -> Response {
    let html = INDEX_HTML.replace("{{IMPORTMAP}}", IMPORT_MAP.trim());
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

async fn editor_module(axum::extract::Path(name): axum::extract::Path<String>) -> Response {
    match EDITORS.iter().find(|(file, _)| *file == name) {
        Some((_, body)) => page(body, "text/javascript; charset=utf-8"),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn page(body: &'static str, kind: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// A file of the `node_modules` folder the script names: JavaScript and CSS only, never outside
/// the folder.
async fn module(
    State(state): State<AppState>,
    axum::extract::Path(path): axum::extract::Path<String>,
) -> Response {
    let Some(root) = state.lock().ok().and_then(|s| s.script.modules.clone()) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let inside = Path::new(&path)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    let kind = match Path::new(&path).extension().and_then(|e| e.to_str()) {
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    match std::fs::read(root.join(&path)) {
        Ok(bytes) if inside => ([(header::CONTENT_TYPE, kind)], bytes).into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn config(State(state): State<AppState>) -> Response {
    let faults = state
        .lock()
        .map(|s| s.script.page.clone())
        .unwrap_or_default();
    let json = serde_json::to_string(&faults).unwrap_or_else(|_| "{}".to_string());
    ([(header::CONTENT_TYPE, "application/json")], json).into_response()
}

/// The history list: every conversation, newest first, named by its number, as real sites list
/// them beside the chat (their titles are a model's summary, never the message itself).
async fn conversations(State(state): State<AppState>) -> Response {
    let list: Vec<serde_json::Value> = state
        .lock()
        .map(|s| {
            s.started
                .iter()
                .enumerate()
                .rev()
                .map(|(i, id)| serde_json::json!({ "id": id, "title": format!("Conversation {}", i + 1) }))
                .collect()
        })
        .unwrap_or_default();
    let json = serde_json::to_string(&list).unwrap_or_else(|_| "[]".to_string());
    ([(header::CONTENT_TYPE, "application/json")], json).into_response()
}

/// A stored conversation's messages, oldest first (404 when the id is unknown).
async fn conversation(
    State(state): State<AppState>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let turns = state
        .lock()
        .ok()
        .and_then(|s| s.conversations.get(&id).cloned());
    match turns {
        Some(turns) => {
            let json = serde_json::to_string(&turns).unwrap_or_else(|_| "[]".to_string());
            ([(header::CONTENT_TYPE, "application/json")], json).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn chat(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    body: String,
) -> Response {
    let conversation = headers
        .get(CONVERSATION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let (reply, chunk_chars, delay) = {
        let Ok(mut s) = state.lock() else {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        };
        // The doctor's canary is echoed, as a model asked to repeat a block would.
        let canary = body
            .strip_prefix(CANARY_PREFIX)
            .and_then(|rest| rest.split_once("\n\n"))
            .map(|(_, block)| ScriptedReply {
                text: block.to_string(),
                fault: None,
            });
        let body_for_record = body.clone();
        s.received.push(body);
        let reply = match canary {
            Some(echo) => Some(echo),
            None => {
                s.next += 1;
                s.script.replies.get(s.next - 1).cloned()
            }
        };
        // The site keeps the whole exchange, whether or not the page stays to read it.
        if let Some(id) = conversation {
            if !s.started.contains(&id) {
                s.started.push(id.clone());
            }
            let turns = s.conversations.entry(id).or_default();
            turns.push(Turn {
                role: "user",
                text: body_for_record,
            });
            if let Some(text) = reply.as_ref().and_then(stored_reply) {
                turns.push(Turn {
                    role: "assistant",
                    text,
                });
            }
        }
        (reply, s.script.chunk_chars.max(1), s.script.chunk_delay)
    };
    let Some(reply) = reply else {
        return (
            StatusCode::OK,
            "@@say\n<<<MSG\nThe script has no more replies.\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n",
        )
            .into_response();
    };
    let text = match reply.fault {
        Some(Fault::TooLong) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, TOO_LONG_TEXT).into_response();
        }
        Some(Fault::RateLimited) => {
            return (StatusCode::TOO_MANY_REQUESTS, RATE_LIMIT_TEXT).into_response();
        }
        Some(Fault::Exhausted) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, EXHAUSTED_TEXT).into_response();
        }
        Some(Fault::ServerError) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        Some(Fault::NoReply) => {
            let pending = futures::stream::pending::<Result<Bytes, Infallible>>();
            return Response::new(Body::from_stream(pending));
        }
        Some(Fault::Truncate) => truncated(&reply.text),
        None => reply.text,
    };
    let chunks: Vec<String> = text
        .chars()
        .collect::<Vec<_>>()
        .chunks(chunk_chars)
        .map(|c| c.iter().collect())
        .collect();
    let stream = futures::stream::unfold(chunks.into_iter(), move |mut rest| async move {
        let chunk = rest.next()?;
        tokio::time::sleep(delay).await;
        Some((Ok::<Bytes, Infallible>(Bytes::from(chunk)), rest))
    });
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// What the site keeps of a reply: nothing for a fault that produced none, the cut text for a
/// truncated one.
fn stored_reply(reply: &ScriptedReply) -> Option<String> {
    match reply.fault {
        None => Some(reply.text.clone()),
        Some(Fault::Truncate) => Some(truncated(&reply.text)),
        Some(
            Fault::NoReply
            | Fault::Exhausted
            | Fault::ServerError
            | Fault::TooLong
            | Fault::RateLimited,
        ) => None,
    }
}

/// A reply cut before its `@@eof` (or in half when it has none).
fn truncated(text: &str) -> String {
    match text.rfind("@@eof") {
        Some(at) => text[..at].to_string(),
        None => {
            let mut half = text.len() / 2;
            while !text.is_char_boundary(half) {
                half -= 1;
            }
            text[..half].to_string()
        }
    }
}
