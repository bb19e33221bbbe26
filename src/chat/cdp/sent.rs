//! Recognising keyless's own messages on the page: the note that stands for a message sent as
//! a file (its name unique to the message), and how a user turn the site drew reads against
//! the message sent. Sending and reopening a chat both decide with these.

use crate::catalog::{Code, Failure};

/// What keyless types when the message itself goes as an attachment.
///
/// The file's name, and so the note, carry a short hash of the message: a reopened chat must
/// tell this message's note from an earlier one's, or it would take the earlier reply for
/// this message's and carry it out again.
pub fn attachment_note(message: &str) -> String {
    format!(
        "{NOTE_START}{}. Read it and reply exactly as it asks.",
        attachment_name(message)
    )
}

/// How every attachment note begins.
const NOTE_START: &str = "My message is in the attached file ";

/// The attached file's name for a message.
pub fn attachment_name(message: &str) -> String {
    // FNV-1a: stable across runs and versions, unlike the standard library's hasher.
    let hash = message.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("keyless-message-{:08x}.txt", hash as u32)
}

/// How a user turn on the page reads against the message keyless sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shown {
    /// The same text, apart from whitespace (sites draw a paragraph per line, trim blank lines).
    Same,
    /// The start of the message, cut short for display ("… Show more").
    Shortened,
    /// Something else: a chip for a pasted file, another rendering.
    Different,
}

/// Shortened displays keep at least this much of the message (whitespace aside) before they
/// count as showing it; less could be the shared start of two different messages.
const SHORTENED_MIN: usize = 100;

/// Compares a user turn's text with the message sent. Whitespace is ignored altogether: a page
/// that draws each line as its own paragraph reads with no line breaks at all.
pub(super) fn shown_as(shown: &str, sent: &str) -> Shown {
    let bare = |text: &str| {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
    };
    let note = sent.starts_with(NOTE_START);
    let (shown, sent) = (bare(shown), bare(sent));
    // A message that went as a file shows its note beside the file's chip, whose name some
    // sites draw as text: the note names a file unique to its message, so holding it is enough.
    if shown == sent || note && shown.contains(&sent) {
        return Shown::Same;
    }
    let mut start = shown.as_str();
    loop {
        let cut = ["Showmore", "Showless", "Readmore", "Seemore", "…", "..."]
            .iter()
            .find_map(|mark| {
                start
                    .get(start.len().saturating_sub(mark.len())..)
                    .filter(|tail| tail.eq_ignore_ascii_case(mark))
                    .map(|_| &start[..start.len() - mark.len()])
            });
        match cut {
            Some(rest) => start = rest,
            None => break,
        }
    }
    if start.chars().count() >= SHORTENED_MIN && start.len() < sent.len() && sent.starts_with(start)
    {
        Shown::Shortened
    } else {
        Shown::Different
    }
}

/// The most a user turn may show beside a message (whitespace aside) and still be that
/// message drawn with its files: room for the names, sizes and icons of the files one message
/// carries (a site shows each as a chip in the turn).
const BESIDE_FILES_MAX: usize = 1_000;

/// Whether a user turn shows `sent` whole with a little more before or after it: the chips of
/// the files the message carried, drawn in the turn. Only a message long enough to be told
/// from another's tail (at least [`SHORTENED_MIN`] characters, whitespace aside) counts so.
pub(super) fn shown_with_files(shown: &str, sent: &str) -> bool {
    let bare = |text: &str| {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
    };
    let (shown, sent) = (bare(shown), bare(sent));
    let extra = shown.len().saturating_sub(sent.len());
    sent.chars().count() >= SHORTENED_MIN
        && extra > 0
        && extra <= BESIDE_FILES_MAX
        && (shown.starts_with(&sent) || shown.ends_with(&sent))
}

/// How messages reach this page, learned from the user turns it draws (`sentExact` in the
/// page): a page may change what it is given (a rich composer that serialises to Markdown
/// turns tabs into spaces) or draw it changed (Markdown), and results carry file content the
/// model copies into FIND.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Delivery {
    /// As they are: no send has shown one altered.
    #[default]
    Plain,
    /// The page altered one: they go inside a fence, which pages keep verbatim; not yet seen so.
    Fenced,
    /// Fenced, and a fenced one showed exactly.
    FencedProved,
    /// Altered even inside a fence (said once): they still go fenced.
    Altered,
}

impl Delivery {
    /// How messages reach the page once a user turn showed the last one exactly (`altered`:
    /// `None`) or altered (what differs), and what the user is told: the first alteration turns
    /// fencing on, an alteration even inside a fence is said once.
    pub(super) fn after(self, altered: Option<&str>) -> (Delivery, Option<Failure>) {
        let Some(shown) = altered else {
            return match self {
                Delivery::Fenced => (Delivery::FencedProved, None),
                state => (state, None),
            };
        };
        match self {
            Delivery::Plain => (
                Delivery::Fenced,
                Some(Failure::new(
                    Code::MessageAltered,
                    format!(
                        "the chat shows the message keyless sent altered ({shown}); the model may have received it so. From now on keyless sends its messages inside a fence, which pages keep verbatim"
                    ),
                )),
            ),
            Delivery::Altered => (Delivery::Altered, None),
            Delivery::Fenced | Delivery::FencedProved => (
                Delivery::Altered,
                Some(Failure::new(
                    Code::MessageAltered,
                    format!(
                        "the chat shows the message altered ({shown}) even inside a fence: what the model reads (results, file contents it may copy into FIND) may differ from what keyless sent"
                    ),
                )),
            ),
        }
    }
}

/// `message` inside a fence of tildes longer than any run of tildes that starts one of its
/// lines (so none of them closes it), as Markdown keeps a code block verbatim.
pub(super) fn fence(message: &str) -> String {
    let longest = message
        .lines()
        .map(|l| l.chars().take_while(|c| *c == '~').count())
        .max()
        .unwrap_or(0);
    let marks = "~".repeat((longest + 1).max(4));
    format!("{marks}\n{}\n{marks}", message.trim_end_matches('\n'))
}

/// How long after its user turn shows the request carrying a message may take to be heard
/// (the page sends it as it draws the turn).
const CARRIED_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

impl super::CdpDriver {
    /// How the page drew the message (`shown`), corrected by the request that carried it to
    /// the site's server: a page may draw blank lines either way and still send them as
    /// spaces. A message sent as text whose request holds it altered is altered, whatever the
    /// turn draws exactly, and one its request holds exactly is exact, whatever the turn draws
    /// altered; a request keyless cannot read changes nothing. Once a message was not
    /// found on the wire, later ones are not waited for.
    pub(super) fn carried(&self, shown: super::page_api::Drawn) -> super::page_api::Drawn {
        use crate::chat::wire::{Outbound, outbound};
        let Some((meant, super::conversation::SendAs::Text)) = self.composer.last_sent.as_ref()
        else {
            return shown;
        };
        // What the turn shows as something else (a chip) it says best itself. What it shows
        // altered the request may have carried exactly (a page that draws tabs as spaces): the
        // request is what the model gets, so it has the last word where it is heard.
        if shown == super::page_api::Drawn::Unlike {
            return shown;
        }
        let wire = &self.tab.wire;
        let started = std::time::Instant::now();
        loop {
            match outbound(meant, &wire.posts()) {
                Outbound::Exact => return super::page_api::Drawn::Exact,
                Outbound::Altered(what) => return super::page_api::Drawn::Altered(what),
                Outbound::Unknown if wire.blind() || started.elapsed() >= CARRIED_WAIT => {
                    wire.set_blind();
                    return shown;
                }
                Outbound::Unknown => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_alteration_fences_and_one_inside_a_fence_is_said_once() {
        let code = |told: &Option<Failure>| told.as_ref().map(|f| f.code);
        let (state, told) = Delivery::Plain.after(None);
        assert_eq!((state, code(&told)), (Delivery::Plain, None));
        let (state, told) = Delivery::Plain.after(Some("tabs became spaces"));
        assert_eq!(
            (state, code(&told)),
            (Delivery::Fenced, Some(Code::MessageAltered))
        );
        assert!(told.unwrap().reason.contains("tabs became spaces"));
        let (state, told) = Delivery::Fenced.after(None);
        assert_eq!((state, code(&told)), (Delivery::FencedProved, None));
        let (state, told) = Delivery::FencedProved.after(Some("a line lost"));
        assert_eq!(
            (state, code(&told)),
            (Delivery::Altered, Some(Code::MessageAltered))
        );
        let (state, told) = Delivery::Altered.after(Some("a line lost"));
        assert_eq!((state, code(&told)), (Delivery::Altered, None));
        let (state, told) = Delivery::Altered.after(None);
        assert_eq!((state, code(&told)), (Delivery::Altered, None));
    }

    #[test]
    fn a_fence_is_longer_than_any_tilde_run_in_the_message() {
        assert_eq!(fence("a\n\tb\n"), "~~~~\na\n\tb\n~~~~");
        assert_eq!(fence("x\n~~~~~~ y\n"), "~~~~~~~\nx\n~~~~~~ y\n~~~~~~~");
    }

    /// Resuming compares notes written by an earlier run: the name must not change between
    /// runs or versions, and differ between messages.
    #[test]
    fn an_attachment_name_is_stable_and_unique_to_its_message() {
        // FNV-1a 64 of "hello" is a430d84680aabd0b; the name keeps its low 32 bits.
        assert_eq!(attachment_name("hello"), "keyless-message-80aabd0b.txt");
        assert_ne!(attachment_name("hello"), attachment_name("hellp"));
        assert!(attachment_note("hello").contains(&attachment_name("hello")));
        // A turn showing the note beside its chip's name (or the file's text) holds it.
        let note = attachment_note("hello");
        let turn = format!("keyless-message-80aabd0b.txt\n{note}\n[attachment]\nhello");
        assert_eq!(shown_as(&turn, &note), Shown::Same);
        assert_eq!(shown_as(&turn, &attachment_note("other")), Shown::Different);
    }

    #[test]
    fn a_user_turn_reads_as_the_message_whitespace_and_shortening_aside() {
        let sent = format!("first line\n\n  indented\n{}", "x".repeat(400));
        assert_eq!(shown_as(&sent, &sent), Shown::Same);
        // A paragraph per line: textContent has no line breaks at all.
        let paragraphs = sent.replace('\n', "");
        assert_eq!(shown_as(&paragraphs, &sent), Shown::Same);
        let cut: String = sent.chars().take(300).collect();
        assert_eq!(
            shown_as(&format!("{cut}… Show more"), &sent),
            Shown::Shortened
        );
        assert_eq!(shown_as(&format!("{cut}..."), &sent), Shown::Shortened);
        // Too short a start proves nothing; another text, or one longer than sent, is different.
        assert_eq!(shown_as("first line…", &sent), Shown::Different);
        assert_eq!(shown_as("pasted.txt", &sent), Shown::Different);
        assert_eq!(shown_as(&format!("{sent}y"), &sent), Shown::Different);
        let other = sent.replace("first", "second");
        assert_eq!(
            shown_as(&format!("{}…", &other[..300]), &sent),
            Shown::Different
        );
    }

    #[test]
    fn a_user_turn_showing_its_files_beside_the_message_carries_it() {
        let sent = "Do the task described here, in full, and reply in AgentScript. ".repeat(3);
        assert!(shown_with_files(&format!("📄 once.txt\n{sent}"), &sent));
        assert!(shown_with_files(&format!("{sent} report.pdf 12 KB"), &sent));
        // Not the message itself alone (shown_as decides that), nor a short one, nor one
        // with more beside it than files' chips, nor one in the middle of another.
        assert!(!shown_with_files(&sent, &sent));
        assert!(!shown_with_files("📄 a.txt\nok", "ok"));
        let long = "x".repeat(BESIDE_FILES_MAX + 1);
        assert!(!shown_with_files(&format!("{long}{sent}"), &sent));
        assert!(!shown_with_files(&format!("a {sent} b"), &sent));
        assert!(!shown_with_files(
            &format!("📄 once.txt\n{}", &sent[1..]),
            &sent
        ));
    }
}
