//! Reading a finished reply through its channels, each proving itself: a copy control (the
//! selectors' or one found by its shape) whose text agrees with the rendered answer, else the
//! reply as the server streamed it (the wire: closed by `@@eof`, agreeing with the rendered
//! answer, and the only such text heard), else the reply's only code block, else Markdown
//! rebuilt from the page (which is never executed).

use std::time::{Duration, Instant};

use super::COPY_WAIT;
use super::page_api::{Clicked, PageApi};
use crate::catalog::Failure;
use crate::chat::wire::{Heard, candidates};
use crate::chat::{Channel, Reply};

/// The marker that closes a reply: a text from the wire that holds it more than once is two
/// texts run together (deltas and the whole text sent again), never proved.
const EOF_MARK: &str = "@@eof";

/// How many copy controls found by their shape are tried on one reply.
const MAX_COPY_CANDIDATES: usize = 3;
/// How many of a reply's menu triggers are opened to look for a copy row, and how long each
/// menu has to show one.
const MAX_MENU_TRIGGERS: usize = 2;
const MENU_OPENS: Duration = Duration::from_millis(600);

/// The reader part: where the reply to wait for starts, and how long a reply may take.
#[derive(Debug)]
pub(super) struct Reader {
    /// How many assistant turns the page had before the message went: the reply is the next.
    pub(super) assistants_before_send: usize,
    /// How long a reply may take to be complete (`Options::reply_timeout`).
    pub(super) reply_timeout: Duration,
    /// How long a reply may stay finished without `@@eof` before it counts as cut short.
    pub(super) truncation_budget: Duration,
    /// How long a streaming reply may make no progress before it counts as stalled.
    pub(super) stall: Duration,
    /// What the replies are, which says when one is whole.
    pub(super) replies: super::Replies,
    /// The network once carried a reply of this page already drawn as HTML: its code blocks
    /// are the server's rendering for the rest of the session, even for a reply whose response
    /// the wire missed (a loaded machine): one lossy read executed is one too many.
    drawn_on_server: std::cell::Cell<bool>,
    /// The model the last reply read says answered it, when the read looked in the same call
    /// (the copy control's): taken by the model check, which then needs no call of its own.
    looked_model: std::cell::RefCell<Option<Option<String>>>,
    /// The reply read through its first copy control by the last look at the page, the one
    /// that first saw it done (`PageState::copied`): the read that follows that look takes it
    /// instead of clicking again; every look replaces it.
    pub(super) copied_by_look: std::cell::RefCell<Option<super::page_api::CopyRead>>,
    /// Words keyless does not know stood beside the last reply's cut stream (a toast, a live
    /// region): met beside a cut again before any reply is read, they are the site's answer.
    pub(super) unknown_beside_cut: std::cell::Cell<bool>,
    /// The wait for this message's reply ended in the site's own words (a limit, a wall): a
    /// check of the page before it is asked again would meet those words again, stale.
    pub(super) site_said: std::cell::Cell<bool>,
}

/// A reply read, and the selector of the copy control found by its shape that gave it (proved:
/// discovery heals it).
pub(super) struct Read {
    pub reply: Reply,
    pub proved_copy: Option<String>,
}

impl Read {
    /// A reply read now through `channel`, with the copy control's selector it proved, if any.
    fn through(channel: Channel, text: String, proved_copy: Option<String>) -> Read {
        Read {
            reply: Reply {
                text,
                channel,
                finished_at: Instant::now(),
                model: None,
                effort: None,
            },
            proved_copy,
        }
    }
}

impl Reader {
    pub(super) fn new(
        reply_timeout: Duration,
        truncation_budget: Duration,
        stall: Duration,
        replies: super::Replies,
    ) -> Reader {
        Reader {
            assistants_before_send: 0,
            reply_timeout,
            truncation_budget,
            stall,
            replies,
            drawn_on_server: std::cell::Cell::new(false),
            looked_model: std::cell::RefCell::new(None),
            copied_by_look: std::cell::RefCell::new(None),
            unknown_beside_cut: std::cell::Cell::new(false),
            site_said: std::cell::Cell::new(false),
        }
    }

    /// Whether `text`, on a page that says its reply ended, is the whole reply.
    pub(super) fn whole(&self, text: &str) -> bool {
        match self.replies {
            super::Replies::AgentScript => crate::protocol::is_closed(text),
            super::Replies::Prose => true,
        }
    }

    /// What the copy control put on the page's clipboard, waited for a moment.
    fn copied(page: &PageApi<'_>) -> Result<Option<String>, Failure> {
        let started = Instant::now();
        while started.elapsed() < COPY_WAIT {
            let copied = page.copied()?;
            if copied.is_some() {
                return Ok(copied);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(None)
    }

    /// The reply as the network carried it, when exactly one text reassembled from what was
    /// heard since the send is a closed reply (its `@@eof`, once) that agrees with the rendered
    /// answer. Two different such texts prove neither.
    pub(super) fn from_wire(
        page: &PageApi<'_>,
        heard: &[Heard],
    ) -> Result<Option<String>, Failure> {
        let mut proved: Vec<String> = Vec::new();
        for text in heard.iter().flat_map(candidates) {
            if text.matches(EOF_MARK).count() != 1 || !crate::protocol::is_closed(&text) {
                continue;
            }
            if proved.contains(&text) || !page.agrees(&text)? {
                continue;
            }
            proved.push(text);
        }
        Ok(crate::chat::wire::one_reply(proved))
    }

    /// The reply's only code block, proved: by the site's selectors naming its code blocks, or,
    /// for a block found by its shape, by its own copy control, whose copy holds the same words
    /// as the drawn block (the copy, not the drawing, is returned: a page may draw code lossily).
    pub(super) fn code_block(page: &PageApi<'_>) -> Result<Option<String>, Failure> {
        let Some(found) = page.code_block()? else {
            return Ok(None);
        };
        if found.vouched {
            return Ok(Some(found.text));
        }
        if !found.clicked {
            return Ok(None);
        }
        let words = |text: &str| {
            text.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        Ok(Reader::copied(page)?.filter(|copied| words(copied) == words(&found.text)))
    }

    /// The last resort before the page's drawing: a copy row in a menu behind the reply's
    /// "more" control, opened by a real click (menus open on the pointer), its copy proved by
    /// agreeing with the drawn reply. A menu with no copy row is closed again (Escape).
    fn from_menu(page: &PageApi<'_>) -> Result<Option<String>, Failure> {
        for index in 0..MAX_MENU_TRIGGERS {
            let Some((x, y)) = page.menu_trigger(index)? else {
                return Ok(None);
            };
            page.click_at(x, y)?;
            let opened = Instant::now();
            let clicked = loop {
                let clicked = page.menu_copy()?;
                if clicked.pressed() || opened.elapsed() >= MENU_OPENS {
                    break clicked;
                }
                std::thread::sleep(Duration::from_millis(50));
            };
            if !clicked.pressed() {
                page.key("Escape", 27)?;
                continue;
            }
            if let Some(text) = Reader::copied(page)?
                && page.agrees(&text)?
            {
                return Ok(Some(text));
            }
        }
        Ok(None)
    }

    /// Reads the last reply: the copy button, else the wire, else the only code block, else
    /// the DOM. The copy control comes first: proving one teaches discovery the site's control.
    /// The model the last reply read says answered it, when its read looked (taken once).
    pub(super) fn looked_model(&self) -> Option<Option<String>> {
        self.looked_model.borrow_mut().take()
    }

    pub(super) fn read(&self, page: &PageApi<'_>, heard: &[Heard]) -> Result<Read, Failure> {
        *self.looked_model.borrow_mut() = None;
        // The copy control of the selectors, else each one found by its shape, each proved by
        // agreeing with the rendered reply.
        for index in 0..MAX_COPY_CANDIDATES {
            // The click, what it copied and the agreement in one call where the page copies in
            // the click itself; a copy that comes later is waited for as it comes.
            let by_look = self.copied_by_look.borrow_mut().take();
            let read = match by_look {
                Some(read) if index == 0 => read,
                _ => page.copy_read(index)?,
            };
            let clicked = read.clicked;
            if !clicked.pressed() {
                break;
            }
            let looked = read.looked.then(|| read.model.clone());
            let (text, agrees) = match read.text {
                Some(text) => (text, read.agrees),
                None => {
                    let Some(text) = Reader::copied(page)? else {
                        continue;
                    };
                    let agrees = page.agrees(&text)?;
                    (text, agrees)
                }
            };
            // What a copy control gave must agree with the rendered answer (a stale selector
            // may name a code block's copy button, or one of another turn).
            if !agrees {
                continue;
            }
            let proved_copy = if clicked == Clicked::Discovered {
                page.learn_copy(index)?
            } else {
                None
            };
            *self.looked_model.borrow_mut() = looked;
            return Ok(Read::through(Channel::CopyButton, text, proved_copy));
        }
        if let Some(text) = Reader::from_wire(page, heard)? {
            return Ok(Read::through(Channel::Wire, text, None));
        }
        // A code block the site's server drew (its HTML came over the network) shows the
        // server's rendering of the reply, not the reply: never proof of its bytes.
        if drawn_on_the_server(heard) {
            self.drawn_on_server.set(true);
        }
        let code_block = if self.drawn_on_server.get() {
            None
        } else {
            Reader::code_block(page)?
        };
        if let Some(text) = code_block {
            return Ok(Read::through(Channel::CodeBlock, text, None));
        }
        if let Some(text) = Reader::from_menu(page)? {
            return Ok(Read::through(Channel::CopyButton, text, None));
        }
        let text = page.rebuilt()?;
        Ok(Read::through(Channel::Dom, text.unwrap_or_default(), None))
    }
}

/// AgentScript's section opener as HTML writes it (`<<<` escaped).
const ESCAPED_OPENER: &str = "&lt;&lt;&lt;";

/// Whether the network carried this turn's reply already drawn as HTML: one exchange heard
/// holds the reply's `@@eof` and its section openers escaped as HTML does (`&lt;&lt;&lt;`).
/// The page then shows what the site's server rendered (NiceGUI's markdown2, Panel's
/// markdown-it), and the server may have changed the reply's whitespace before the page got
/// anything (markdown2 expands tabs): a code block read from the page proves no bytes. A site
/// that streams the reply's own text sends `<<<` as it is (JSON escapes decode to it).
fn drawn_on_the_server(heard: &[Heard]) -> bool {
    heard.iter().any(|h| {
        let (mut eof, mut escaped) = (false, false);
        let mut look = |text: &str| {
            eof |= text.contains(EOF_MARK);
            escaped |= text.contains(ESCAPED_OPENER);
        };
        match h {
            Heard::Body(bytes) => look(&String::from_utf8_lossy(bytes)),
            Heard::Frames(frames) => frames.iter().for_each(|f| look(f)),
        }
        eof && escaped
    })
}

/// `keyless doctor` times the wire on its own.
impl super::CdpDriver {
    /// The reply as the site's server streamed it, when exactly one reassembled text is proved.
    pub fn channel_wire(&self) -> Result<Option<String>, Failure> {
        let heard = self.tab.heard()?;
        Reader::from_wire(&self.api(), &heard)
    }

    /// The reply's only code block, when it is the whole reply and proved.
    pub fn channel_code_block(&self) -> Result<Option<String>, Failure> {
        Reader::code_block(&self.api())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_heard_as_html_was_drawn_on_the_server() {
        let html = Heard::Frames(vec![
            r#"42["update",{"c11":{"innerHTML":"<pre><code>@@newfile a\n&lt;&lt;&lt;CONTENT\n    tab\n"}}]"#.into(),
            r#"42["update",{"c11":{"innerHTML":"...CONTENT&gt;&gt;&gt;\n@@end\n@@eof\n</code></pre>"}}]"#.into(),
        ]);
        assert!(drawn_on_the_server(&[html]));
    }

    #[test]
    fn a_reply_heard_as_its_own_text_was_not() {
        let text = Heard::Body(b"data: {\"text\": \"@@newfile a\\n<<<CONTENT\\n\\tx\\nCONTENT>>>\\n@@end\\n@@eof\"}\n\n".to_vec());
        assert!(!drawn_on_the_server(&[text]));
        // HTML-escaped text with no end of a reply in it (a page's own markup) is not a reply.
        let page = Heard::Body(b"<p>&lt;&lt;&lt;CONTENT is how a section opens</p>".to_vec());
        assert!(!drawn_on_the_server(&[page]));
    }
}
