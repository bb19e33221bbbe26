//! The composer: clearing, inserting with the site's strategies (or the editor's), attaching,
//! and confirming a send.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton,
};

use super::page_api::{Begun, Held, ShownTurn};
use super::{
    ATTACH_WAIT, CdpDriver, INSERT_CHUNK, INSERT_SETTLE, Shown, attachment_name, bounded, chunks,
    shown_as,
};
use crate::catalog::{Code, Failure};

/// The insertion strategies keyless knows (`selectors.json` `insert`): `setValue` (a text
/// field's value, set as typing would), `pasteHtml` (one paste of a paragraph per line:
/// ProseMirror, TipTap, Lexical), `pastePlain` (one paste of the plain text: Quill),
/// `insertTextWhole` (one `Input.insertText`: fast where the editor handles `beforeinput`
/// itself, slow per line break elsewhere), `insertText` (checked 16 KB chunks: any editor).
pub const STRATEGIES: &[&str] = &[
    "setValue",
    "pasteHtml",
    "pastePlain",
    "insertTextWhole",
    "insertText",
];

/// The fastest exact strategies for a composer's editor, known by the marks its library puts on
/// it (`PageApi::begin`); `None` for an editor keyless does not know.
fn fastest_for(editor: &str) -> Option<&'static [&'static str]> {
    Some(match editor {
        "textarea" => &["setValue"],
        // Lexical inserts from its own model on `beforeinput`: one insertion is fastest.
        "lexical" => &["insertTextWhole", "pasteHtml"],
        // Quill keeps whitespace from a plain paste only.
        "quill" => &["pastePlain"],
        "prosemirror" => &["pasteHtml"],
        _ => return None,
    })
}

/// On a site that names no strategy and an editor of its own: a plain paste is the least work
/// for it, the paste of paragraphs next (an editor that reads only HTML), then a text field's
/// value, then one insertion.
const UNKNOWN_EDITOR: &[&str] = &["pastePlain", "pasteHtml", "setValue", "insertTextWhole"];

/// The strategies run in the page, checked there in the same task ([`CdpDriver::put`]).
const IN_PAGE: &[&str] = &["setValue", "pasteHtml", "pastePlain"];

/// A key to press: its name and code, Windows' virtual key code, Ctrl held, and the editing
/// command it stands for (Chrome runs it for keys it would not map itself).
struct Press<'a> {
    key: &'a str,
    code: &'a str,
    virtual_code: i64,
    ctrl: bool,
    command: Option<&'a str>,
}

/// The Ctrl modifier bit of `Input.dispatchKeyEvent`.
const CTRL: i64 = 2;

/// Why a paste failed when the site made a file of it.
const CARDED: &str = "the site turned the pasted message into an attachment";

/// The largest piece pasted to a site that turns long pastes into files.
const PASTE_PIECE: usize = 3000;

/// How long a paste's result may take to settle before it is judged (the editor may apply it
/// in a later task).
const PASTE_SETTLE: Duration = Duration::from_millis(300);

impl CdpDriver {
    /// Clears the composer's text, leaving attachment chips.
    pub(super) fn clear_text(&self) -> Result<(), Failure> {
        if self.composer()?.unwrap_or_default().is_empty() {
            return Ok(());
        }
        self.erase()
    }

    /// Clears stale text and attachment chips from the composer.
    pub(super) fn clean_composer(&self) -> Result<(), Failure> {
        self.clean_keeping(0)
    }

    /// Clears the composer's text and every attachment chip but the first `keep` (a chip made
    /// for the message being sent stays when an insertion strategy is undone).
    fn clean_keeping(&self, keep: usize) -> Result<(), Failure> {
        // Chips by the selectors, and cards discovery sees (new since the insertion began).
        let dirty = || -> Result<(bool, usize, usize), Failure> {
            let dirt = self.api().dirt()?;
            Ok((dirt.text, dirt.chips, dirt.cards))
        };
        let (text, chips, cards) = dirty()?;
        if !text && chips <= keep && cards == 0 {
            return Ok(());
        }
        if text {
            self.erase()?;
        }
        if chips > keep {
            self.api().remove_chips(keep)?;
        }
        if cards > 0 {
            self.api().remove_cards()?;
        }
        // A big composer takes its editor a while to empty.
        let started = Instant::now();
        let (text, chips) = loop {
            std::thread::sleep(Duration::from_millis(50));
            let (text, chips, cards) = dirty()?;
            if (!text && chips <= keep && cards == 0) || started.elapsed() > INSERT_SETTLE {
                break (text, chips + cards);
            }
        };
        if text || chips > keep {
            return Err(Failure::new(
                Code::ComposerNotClean,
                format!(
                    "the composer still holds {} after keyless tried to clear it; nothing was sent. Run keyless doctor to fix the AttachmentRemove/AttachmentFailed selectors.",
                    if text {
                        "stale text"
                    } else {
                        "attachment chips"
                    }
                ),
            ));
        }
        Ok(())
    }

    /// Selects the composer's whole text and deletes it as a person would: a selection made in
    /// the page, then Ctrl+A (editors that keep their own selection, like Lexical, take the
    /// key's select-all and not a range set by script), then Backspace.
    fn erase(&self) -> Result<(), Failure> {
        self.api().select_composer()?;
        self.press(Press {
            key: "a",
            code: "KeyA",
            virtual_code: 65,
            ctrl: true,
            command: Some("selectAll"),
        })?;
        self.key("Backspace", 8)
    }

    /// Presses and releases a key named like its code (Enter, Backspace).
    pub(super) fn key(&self, key: &str, code: i64) -> Result<(), Failure> {
        self.press(Press {
            key,
            code: key,
            virtual_code: code,
            ctrl: false,
            command: None,
        })
    }

    /// One key press and release, as trusted input.
    fn press(&self, press: Press<'_>) -> Result<(), Failure> {
        let page = self.page.clone();
        let (key, code) = (press.key.to_string(), press.code.to_string());
        let command = press.command.map(str::to_string);
        let (virtual_code, ctrl) = (press.virtual_code, press.ctrl);
        self.block(async move {
            for kind in [
                DispatchKeyEventType::RawKeyDown,
                DispatchKeyEventType::KeyUp,
            ] {
                let mut params = DispatchKeyEventParams::builder()
                    .r#type(kind)
                    .key(key.clone())
                    .code(code.clone())
                    .windows_virtual_key_code(virtual_code);
                if ctrl {
                    params = params.modifiers(CTRL);
                }
                if let Some(command) = &command {
                    params = params.commands(vec![command.clone()]);
                }
                let params = params
                    .build()
                    .map_err(|e| Failure::new(Code::Internal, e))?;
                bounded(page.execute(params), "press a key").await?;
            }
            Ok(())
        })
    }

    /// Clicks `key` as a person would: real mouse events at its centre, which handlers that
    /// ignore scripted clicks accept. `false` when it is hidden or covered.
    pub(super) fn click_trusted(&self, key: &str) -> Result<bool, Failure> {
        let Some((x, y)) = self.api().centre(key)? else {
            return Ok(false);
        };
        let page = self.page.clone();
        self.block(async move {
            for kind in [
                DispatchMouseEventType::MouseMoved,
                DispatchMouseEventType::MousePressed,
                DispatchMouseEventType::MouseReleased,
            ] {
                let params = DispatchMouseEventParams::builder()
                    .r#type(kind)
                    .x(x)
                    .y(y)
                    .button(MouseButton::Left)
                    .click_count(1)
                    .build()
                    .map_err(|e| Failure::new(Code::Internal, e))?;
                bounded(page.execute(params), "click").await?;
            }
            Ok(())
        })?;
        Ok(true)
    }

    /// Puts the message into the composer with the site's insertion strategies, in order
    /// (`selectors.json` `insert`), until the composer holds exactly the message:
    /// `insertTextWhole` is one `Input.insertText` (editors that handle `beforeinput` themselves,
    /// like Lexical: fastest), `pasteHtml` one synthetic paste of a paragraph per line
    /// (ProseMirror: fast where `Input.insertText` costs more with each line break), and
    /// `insertText` checked chunks cut before line breaks (any editor, slowly in ProseMirror).
    /// A strategy that leaves anything but the exact message, or an attachment chip the site
    /// made of a big paste, is undone and the next one is tried.
    pub fn insert(&mut self, message: &str) -> Result<(), Failure> {
        // Chips already there belong to this message (it went as a file): they stay. What
        // appears beside the composer from now on is a card a strategy made.
        let begun: Begun = self.api().begin(message)?;
        let keep = begun.chips;
        let mut last = None;
        for strategy in self.insertion_order(&begun.editor) {
            let mut inserted = self.insert_with(strategy, message);
            if strategy.starts_with("paste")
                && matches!(&inserted, Err(failure) if failure.reason == CARDED)
            {
                // A site that turns long pastes into files takes short ones as text: the
                // message again in pieces under every limit seen (claude.ai about 4,000
                // characters).
                self.clean_keeping(keep)?;
                inserted = self.paste_in(strategy, message, PASTE_PIECE);
            }
            // An insertion in the page looked for cards as it ended (and unmarked the region
            // when there were none).
            let cards: usize = match (&inserted, IN_PAGE.contains(&strategy)) {
                (Ok(()), true) => 0,
                _ => self.api().cards()?,
            };
            match inserted {
                Ok(()) if cards == 0 => {
                    if !IN_PAGE.contains(&strategy) {
                        self.api().unmark_region()?;
                    }
                    self.inserted_with = Some(strategy.to_string());
                    return Ok(());
                }
                Ok(()) => {
                    last = Some(Failure::new(
                        Code::SendNotConfirmed,
                        "the site turned part of the message into an attachment card",
                    ));
                    self.clean_keeping(keep)?;
                }
                Err(failure) => {
                    last = Some(failure);
                    self.clean_keeping(keep)?;
                }
            }
        }
        self.api().unmark_region()?;
        Err(last.unwrap_or_else(|| {
            Failure::new(
                Code::SendNotConfirmed,
                "no insertion strategy put the message into the composer exactly; nothing was sent",
            )
        }))
    }

    /// The strategies to try, in order: the one that worked last in this session; the fastest
    /// exact one for the composer's editor when its library is known (sites change editors, and
    /// the marks say which one runs now); the site's (`selectors.json` `insert`), or on a site
    /// that names none one insertion after another; then every other strategy keyless knows,
    /// since a site's list may be out of date.
    fn insertion_order(&self, editor: &str) -> Vec<&'static str> {
        let known = |name: &str| STRATEGIES.iter().copied().find(|s| *s == name);
        let mut order: Vec<&'static str> = Vec::new();
        let listed: Vec<&'static str> = self
            .options
            .site
            .insert
            .iter()
            .filter_map(|s| known(s))
            .collect();
        let first = if listed.is_empty() {
            UNKNOWN_EDITOR.to_vec()
        } else {
            listed
        };
        for strategy in self
            .inserted_with
            .as_deref()
            .and_then(known)
            .into_iter()
            .chain(fastest_for(editor).unwrap_or_default().iter().copied())
            .chain(first)
            .chain(STRATEGIES.iter().copied())
        {
            if !order.contains(&strategy) {
                order.push(strategy);
            }
        }
        order
    }

    /// One `Input.insertText` of `text`, unchecked: how other tools fill a composer, for the
    /// benchmarks that compare keyless's way with theirs.
    pub fn insert_unchecked(&self, text: &str) -> Result<(), Failure> {
        self.api().focus_composer()?;
        let page = self.page.clone();
        let text = text.to_string();
        self.block(async move {
            bounded(page.execute(InsertTextParams::new(text)), "insert text").await?;
            Ok(())
        })
    }

    /// The insertion strategy that last put a message in exactly, to keep for the site.
    pub fn inserted_with(&self) -> Option<&str> {
        self.inserted_with.as_deref()
    }

    /// Puts the message into the composer with one strategy (`keyless doctor` checks each),
    /// checked exact; a failure leaves the composer as the strategy left it.
    pub fn insert_using(&self, strategy: &str, message: &str) -> Result<(), Failure> {
        self.api().expect(message)?;
        self.insert_with(strategy, message)
    }

    /// Like [`CdpDriver::insert_using`], with the message already in the page
    /// (`PageApi::expect`).
    fn insert_with(&self, strategy: &str, message: &str) -> Result<(), Failure> {
        match strategy {
            "insertTextWhole" => self.insert_chunks(message, usize::MAX),
            "insertText" => self.insert_chunks(message, INSERT_CHUNK),
            "pasteHtml" => self.paste("pasteHtml", message),
            "pastePlain" => self.paste("pastePlain", message),
            "setValue" => self.set_value(message),
            _ => Err(Failure::new(
                Code::ConfigValidation,
                format!(
                    "unknown insertion strategy {strategy}; keyless knows {}",
                    STRATEGIES.join(", ")
                ),
            )),
        }
    }

    /// One synthetic paste (`how`: the page helper's `pasteHtml` or `pastePlain`), checked
    /// exact. A site that turns it into an attachment card fails it; so does a composer that
    /// holds anything else once it settled (an editor that ignores synthetic pastes stays
    /// empty).
    fn paste(&self, how: &str, message: &str) -> Result<(), Failure> {
        self.paste_in(how, message, usize::MAX)
    }

    /// Pastes the message in pieces of at most `max` bytes (cut before line breaks), each put
    /// at the end and checked. The pieces are cut in the page from the message it holds, so
    /// the text crosses the connection once.
    fn paste_in(&self, how: &str, message: &str, max: usize) -> Result<(), Failure> {
        let pieces = chunks(message, max);
        let mut from = 0;
        for (i, piece) in pieces.iter().enumerate() {
            let to = from + piece.encode_utf16().count();
            self.put(how, from, to, i + 1 == pieces.len())?;
            from = to;
        }
        Ok(())
    }

    /// One insertion in the page (`how`: `setValue`, `pasteHtml`, `pastePlain`) of the message's
    /// UTF-16 units `from..to`, after which the composer must hold exactly its first `to`;
    /// judged in the page in the same task (and again while the editor settles), so that no
    /// rendering frame is waited for. `last`: the message is whole after it.
    fn put(&self, how: &str, from: usize, to: usize, last: bool) -> Result<(), Failure> {
        let judged = self.api().put(
            how,
            (from, to),
            (PASTE_SETTLE.as_millis(), INSERT_SETTLE.as_millis()),
            last,
        )?;
        if !judged.applied {
            return Err(Failure::new(
                Code::SendNotConfirmed,
                format!("{how} does not apply to this composer (setValue needs a text field)"),
            ));
        }
        if judged.carded {
            return Err(Failure::new(Code::SendNotConfirmed, CARDED));
        }
        if judged.exact {
            return Ok(());
        }
        Err(Failure::new(
            Code::SendNotConfirmed,
            format!(
                "the composer does not hold the message exactly after {how} (its text is {} UTF-16 units long); nothing was sent",
                judged.length.max(0)
            ),
        ))
    }

    /// Whether the composer holds exactly the message in the page (its first `units` UTF-16
    /// units), and how long its text is.
    fn holds(&self, units: Option<usize>) -> Result<Held, Failure> {
        self.api().holds(units)
    }

    /// A text field's value, set whole and checked.
    fn set_value(&self, message: &str) -> Result<(), Failure> {
        self.put("setValue", 0, message.encode_utf16().count(), true)
    }

    fn insert_chunks(&self, message: &str, max: usize) -> Result<(), Failure> {
        let mut sent = 0;
        for chunk in chunks(message, max) {
            // The caret at the end before every chunk: after an insertion with line breaks,
            // Chrome leaves it one character short per line break in an editor that lets the
            // browser edit its DOM, and the next chunk would land inside the text.
            self.api().focus_composer()?;
            let page = self.page.clone();
            let text = chunk.to_string();
            self.block(async move {
                bounded(page.execute(InsertTextParams::new(text)), "insert text").await?;
                Ok(())
            })?;
            sent += chunk.encode_utf16().count();
            let started = Instant::now();
            loop {
                if self.holds(Some(sent))?.exact {
                    break;
                }
                if started.elapsed() > INSERT_SETTLE {
                    return Err(Failure::new(
                        Code::SendNotConfirmed,
                        "the composer does not hold the message exactly after inserting it; nothing was sent",
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Ok(())
    }

    /// Attaches the message as a file through the site's file input and waits for its chip.
    pub(super) fn attach(&self, message: &str) -> Result<(), Failure> {
        let failed = |why: String| Failure::new(Code::AttachmentUploadFailed, why);
        let folder = self.options.profile.join("keyless-attachments");
        std::fs::create_dir_all(&folder)
            .map_err(|e| failed(format!("cannot write the attachment: {e}")))?;
        // Earlier messages' files were uploaded when they were sent: only this one is kept.
        for old in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let _ = std::fs::remove_file(old.path());
        }
        let path = folder.join(attachment_name(message));
        std::fs::write(&path, message)
            .map_err(|e| failed(format!("cannot write the attachment: {e}")))?;
        let css = self.api().which("AttachmentInput")?;
        let css =
            css.ok_or_else(|| failed("the page has no file input (AttachmentInput)".into()))?;
        let page = self.page.clone();
        let file = path.to_string_lossy().into_owned();
        self.block(async move {
            let input = bounded(page.find_element(css), "find the file input").await?;
            let params = SetFileInputFilesParams::builder()
                .file(file)
                .backend_node_id(input.backend_node_id)
                .build()
                .map_err(|e| Failure::new(Code::Internal, e))?;
            bounded(page.execute(params), "attach the file").await?;
            Ok(())
        })?;
        let started = Instant::now();
        while started.elapsed() < ATTACH_WAIT {
            if self.api().count("AttachmentFailed")? > 0 {
                return Err(failed("the site marked the attachment as failed".into()));
            }
            if self.api().count("AttachmentChip")? > 0 {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(failed(format!(
            "no attachment chip appeared within {}s",
            ATTACH_WAIT.as_secs()
        )))
    }

    /// How the new user turn reads against the message, or `None` when no new turn appeared
    /// (the send did not happen).
    pub(super) fn confirmed(
        &self,
        message: &str,
        users_before: usize,
        wait: Duration,
    ) -> Result<Option<Shown>, Failure> {
        let started = Instant::now();
        while started.elapsed() < wait {
            // The selectors' new turn, or the element discovery found carrying the text; the
            // page says "same" itself when it reads as the message (whitespace aside).
            match self.api().sent_shown(users_before)? {
                Some(None) => {}
                Some(Some(ShownTurn::Word(word))) if word == "same" => {
                    return Ok(Some(Shown::Same));
                }
                Some(Some(ShownTurn::Word(_))) => {}
                Some(Some(ShownTurn::Turn { text })) => {
                    return Ok(Some(shown_as(&text, message)));
                }
                // The page was replaced: the state puts the helper back.
                None => {
                    self.state()?;
                    continue;
                }
            }
            self.next_change(Duration::from_millis(50));
        }
        Ok(None)
    }
}
