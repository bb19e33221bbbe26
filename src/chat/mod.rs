//! The chat: the `ChatDriver` trait the turn loop uses, the CDP driver that drives a real
//! browser, the selectors for real sites, and the local chat page.
//!
//! Architecture Invariant: only this module imports chromiumoxide.

pub mod attach;
pub mod cdp;
pub mod learned;
pub mod local;
pub mod models;
pub mod selectors;
pub(crate) mod trouble;
pub(crate) mod wire;

use crate::catalog::Failure;

/// Which reading channel produced a reply's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The site's copy button, with the clipboard captured inside the page.
    CopyButton,
    /// The reply's only code block.
    CodeBlock,
    /// Markdown rebuilt from the page's elements.
    Dom,
    /// The reply as the site's server streamed it to the page (a response body or socket
    /// frames), reassembled and proved by its `@@eof` and by agreeing with the rendered reply.
    Wire,
}

/// The stop when a reply resent fenced could still be read only as text rebuilt from the
/// page: no copy control keyless can use, a stream it cannot read, no code block it can prove.
/// Nothing of it was executed.
pub fn not_exact_page() -> Failure {
    Failure::new(
        crate::catalog::Code::ReplyNotExact,
        "this page offers no way to read a reply exactly: no copy control keyless can use, a stream it cannot read, and code blocks its selectors do not vouch for (a page may draw them lossily: tabs as spaces, trailing spaces cut). Nothing of the reply was executed. `keyless doctor --canary` shows what each channel reads on this page; a selectors.json entry naming the site's copy control or code blocks lets keyless read it; then run `keyless run --resume`",
    )
}

/// A model's reply, read from the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub channel: Channel,
    /// When the driver saw the reply finished (before reading it).
    pub finished_at: std::time::Instant,
    /// The model the page says answered (the reply's own label, or the picker's words after
    /// it), when it says one.
    pub model: Option<String>,
    /// The effort keyless chose and read back for it, when one was asked for.
    pub effort: Option<String>,
}

/// What the turn loop needs from a chat. The CDP driver implements it for real browsers.
pub trait ChatDriver {
    /// Sends a message, confirmed by a new user turn carrying it (one retry).
    fn send(&mut self, message: &str) -> Result<(), Failure>;
    /// Waits for the reply to the last message and reads it exactly; `progress` hears the
    /// number of characters received so far.
    fn wait_reply(&mut self, progress: &mut dyn FnMut(usize)) -> Result<Reply, Failure>;
    /// Problems that did not stop the send (e.g. an attachment that fell back to pasting),
    /// taken once.
    fn take_warnings(&mut self) -> Vec<Failure>;
    /// Opens a new, empty chat (after the old one reached its length limit).
    fn new_chat(&mut self) -> Result<(), Failure>;
    /// The site's name in selectors.json.
    fn site(&self) -> String;
    /// The chat page's address now (it changes when a new chat gets its own URL).
    fn chat_url(&mut self) -> Option<String>;
    /// Opens a saved chat again (resuming a turn) and says where it stands with `pending`, the
    /// message that was being sent when keyless stopped.
    fn reopen(&mut self, url: &str, pending: Option<&str>) -> Result<Reopened, Failure>;
    /// Where the chat on the page stands with `message` now, before it is sent again after a
    /// failure (offline, a site error, a limit waited out): `Answered` when it holds the
    /// message and a reply to it (not a site's notice), to be waited for and read instead;
    /// `Retried` when the site's error stood in the reply's place and the site was asked to
    /// answer again (its Retry control), the reply then waited for. An error when the page
    /// shows the site's trouble by then (a limit's toast that came during the wait).
    fn holds(&mut self, message: &str) -> Result<Reopened, Failure> {
        let _ = message;
        Ok(Reopened::Unsent)
    }
    /// The chat's page lost now (its tab closed, its browser gone), asked on a long wait so
    /// that the loss is told at once, not when the wait ends. `None` while it stands, or when
    /// it cannot be told.
    fn lost(&mut self) -> Option<Failure> {
        None
    }
    /// Looks for the chat that holds `pending` (the message being sent when keyless stopped),
    /// when no address of it was saved (keyless stopped before the new chat had one): the
    /// browser's other tabs, then the site's history list. Its address, or `None`.
    fn find_chat(&mut self, pending: &str) -> Result<Option<String>, Failure> {
        let _ = pending;
        Ok(None)
    }
    /// What the page takes of the person's files now: whether it has a file input, and how
    /// many files one message may carry. A driver without a page takes none.
    fn takes_files(&mut self) -> Result<attach::PageTakes, Failure> {
        Ok(attach::PageTakes {
            file_input: false,
            max_files: attach::DEFAULT_MAX_FILES,
        })
    }
    /// Files to go with the next message sent: each handed to the page's file input and
    /// confirmed by its chip before the message's text goes in; kept until a send is
    /// confirmed. A driver without a page takes none.
    fn attach_next(&mut self, files: Vec<attach::Upload>) -> Result<(), Failure> {
        if files.is_empty() {
            return Ok(());
        }
        Err(Failure::new(
            crate::catalog::Code::AttachmentNotSupported,
            "this chat takes no files; nothing was sent",
        ))
    }
}

/// Where a reopened chat stands with the message that was being sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reopened {
    /// The page shows no conversation: the chat is gone (or the address was a new chat).
    Empty,
    /// The conversation is there, but the message did not get a reply: send it (again).
    Unsent,
    /// The message is the last user turn and a reply follows it: wait for it and read it.
    Answered,
    /// The message is the last user turn, the site's error in its reply's place, and the
    /// site was asked to answer it again (its Retry control): wait for the reply.
    Retried,
}
