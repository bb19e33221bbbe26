//! What the page's functions answer, as Rust types (`page.js` sends them as JSON).

use serde::Deserialize;

/// What the page says of an insertion it carried out and judged (`PageApi::put`).
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub(in crate::chat::cdp) struct Judged {
    /// The strategy applies to this composer (`setValue` needs a text field).
    pub applied: bool,
    pub exact: bool,
    /// The site made an attachment card or chip of it.
    pub carded: bool,
    pub length: i64,
    /// Sent in the same call (`PageApi::put` with the user turns): clicked, and what the page
    /// showed of the new turn ([`PageApi::click_send`]'s answer).
    pub sent: Option<(bool, Option<ShownTurn>)>,
}

/// What the page says as an insertion begins.
#[derive(Debug, Deserialize)]
pub(in crate::chat::cdp) struct Begun {
    /// Attachment chips there already (they belong to this message).
    pub chips: usize,
    /// The composer's editor, when its library is known (`textarea`, `lexical`, …).
    pub editor: String,
}

/// The reply's only code block, as the page found it (`page.js`'s `codeBlock`).
#[derive(Debug, Deserialize)]
pub(in crate::chat::cdp) struct CodeBlock {
    /// Its text as drawn.
    pub text: String,
    /// The site's selectors name its code blocks: the drawn text is the reply.
    pub vouched: bool,
    /// Found by its shape: its own copy control was clicked, the clipboard captured; what it
    /// copied proves the code.
    pub clicked: bool,
}

/// What the page says of the composer against the message it holds.
#[derive(Debug, Deserialize)]
pub(in crate::chat::cdp) struct Held {
    pub exact: bool,
}

/// Turn counts and the send button, as a send begins.
#[derive(Debug, Deserialize)]
pub(in crate::chat::cdp) struct BeforeSend {
    pub users: usize,
    pub assistants: usize,
    /// A SendButton selector finds a button.
    pub button: bool,
    /// The notices the page shows as the message is about to go (new since the last send, or
    /// all of them on a page just opened).
    #[serde(default)]
    pub notices: Vec<super::super::page_state::NoticeArea>,
    /// The composer (or what holds it) is disabled or read-only: the page is still busy.
    #[serde(default)]
    pub busy: bool,
}

/// How the page shows a sent message.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(in crate::chat::cdp) enum ShownTurn {
    /// A new user turn reads as the message (white space aside): the page says `same`, and the
    /// long message need not cross back.
    Same(SameWord),
    /// The new turn's text, for keyless to judge.
    Turn { text: String },
}

/// The page's word for a turn that reads as the message.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(in crate::chat::cdp) enum SameWord {
    Same,
}

/// How the user turn draws the message sent (`sentExact`).
#[derive(Debug, PartialEq, Eq)]
pub(in crate::chat::cdp) enum Drawn {
    /// Exactly, as its text or as its only code block.
    Exact,
    /// As something other than its text (a chip for a pasted file).
    Unlike,
    /// Altered: what differs.
    Altered(String),
}

/// Selectors for the turns discovery found, when the page proves them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(in crate::chat::cdp) struct LearnedTurns {
    pub user_message: Option<String>,
    pub assistant_message: Option<String>,
}

/// Whether the composer is clean.
#[derive(Debug, Deserialize)]
pub(in crate::chat::cdp) struct Dirt {
    /// It holds text.
    pub text: bool,
    /// Attachment chips in it.
    pub chips: usize,
    /// Cards (a paste the site made a file of).
    pub cards: usize,
}

/// What `keyless doctor` sees of a page at a glance.
#[derive(Debug, Default, Deserialize)]
pub struct Glance {
    pub title: String,
    pub text: String,
    /// A bot check's script or frame is on the page.
    pub challenge: bool,
}

/// What one selector finds on the page.
#[derive(Debug, Default, Deserialize)]
pub struct Matches {
    pub count: usize,
    pub visible: bool,
}

/// What a copy control did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Clicked {
    /// The selectors' copy control was clicked.
    #[serde(rename = "clicked")]
    Known,
    /// One found by its shape was clicked (what it copies must prove it).
    #[serde(rename = "discovered")]
    Discovered,
    /// There is no copy control (none left at this index).
    #[serde(rename = "no-button")]
    NoButton,
    /// The page's clipboard could not be stood in for.
    #[serde(rename = "no-clipboard")]
    NoClipboard,
}

impl Clicked {
    /// Whether a control was clicked (its text may come).
    pub fn pressed(self) -> bool {
        matches!(self, Clicked::Known | Clicked::Discovered)
    }
}

/// A copy control clicked, with what it copied in the click itself and whether that agrees with
/// the drawn reply (`PageApi::copy_read`).
#[derive(Debug, Deserialize)]
pub(in crate::chat::cdp) struct CopyRead {
    pub clicked: Clicked,
    /// None when the page's clipboard call had not run by the click's end.
    pub text: Option<String>,
    pub agrees: bool,
    /// Whether the model that answered was looked at in the same call (`answered_by`), and
    /// what it said.
    #[serde(default)]
    pub looked: bool,
    #[serde(default)]
    pub model: Option<String>,
}

/// A selector the page script made of a part it found by its shape.
#[derive(Debug, Deserialize)]
pub(in crate::chat::cdp) struct Found {
    pub css: String,
    /// False for a mark keyless put on the element itself: good for this page only.
    pub kept: bool,
}

/// What the page says of a switch keyless set (plain chat, the temporary chat).
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub(in crate::chat::cdp) struct Switched {
    /// The selectors found the control.
    pub found: bool,
    /// It was on before keyless looked (plain chat).
    pub was: bool,
    /// It is on now (`now` for plain chat, `on` for the temporary chat).
    #[serde(alias = "on")]
    pub now: bool,
    /// The control's words.
    pub label: String,
}

/// What the composer shows of the person's files (`attachLook`).
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub(in crate::chat::cdp) struct AttachLook {
    /// The names a chip shows.
    pub showing: Vec<String>,
    /// The words on chips the site marked failed.
    pub refused: Vec<String>,
    /// Alerts and toasts new since the files went, in the site's words.
    pub notices: Vec<String>,
}
