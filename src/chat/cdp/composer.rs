//! The composer: clearing, inserting with the site's strategies (or the editor's), attaching,
//! and confirming a send.

use std::time::{Duration, Instant};

use super::conversation::SendAs;
use super::page_api::{Begun, Dirt, Held, PageApi, Press, ShownTurn};
use super::{
    ATTACH_WAIT, Delivery, DriverError, INSERT_CHUNK, INSERT_SETTLE, Shown, attachment_name,
    chunks, shown_as,
};
use crate::catalog::{Code, Failure};

/// How often the wait for a sent message's turn looks for a wall in the chat's place: a look
/// is a whole state read, and a wall is named within a second.
const WALL_LOOK: Duration = Duration::from_millis(700);

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
    "pasteBr",
    "shiftEnter",
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
const IN_PAGE: &[&str] = &["setValue", "pasteHtml", "pastePlain", "pasteBr"];

/// The strategies that type the message (`Input.insertText`): slow on a long message, and
/// slower still to fail (an editor that drops typed line breaks, or whose Enter sends).
const TYPED: &[&str] = &["insertTextWhole", "insertText"];

/// A message longer than this is typed whole only when its opening lines went in exactly
/// first (a 33,000-character task on a composer whose Enter sends spent 20 s failing both
/// typed strategies; the opening fails them in well under a second).
const OPENING_OVER: usize = 4_000;

/// How far into the message its opening may reach.
const OPENING_MAX: usize = 2_000;

/// How long the opening lines may take to show in the composer: they are short, and an
/// editor applies an insertion within the task that receives it.
const OPENING_SETTLE: Duration = Duration::from_millis(600);

/// The opening of a long message that tries a typed strategy before the whole: its lines up to
/// the one after its first blank line, or its first three, within [`OPENING_MAX`] bytes;
/// `None` for a short message or one with fewer than two line breaks there (nothing to try
/// that the whole would not show at once).
fn opening(message: &str) -> Option<&str> {
    if message.len() <= OPENING_OVER {
        return None;
    }
    let breaks: Vec<usize> = message
        .match_indices('\n')
        .map(|(at, _)| at)
        .take_while(|&at| at < OPENING_MAX)
        .collect();
    if breaks.len() < 2 {
        return None;
    }
    let blank = breaks.windows(2).position(|pair| pair[1] == pair[0] + 1);
    let end = match blank {
        Some(first) => breaks.get(first + 2),
        None => breaks.get(2),
    }
    .or(breaks.last())?;
    Some(&message[..*end])
}

/// How many lines `shiftEnter` types between two checks of the composer.
const SHIFT_ENTER_CHECK: usize = 64;
/// How long a composer may take to show the line break a Shift+Enter made.
const PROBE_SETTLE: Duration = Duration::from_millis(300);

/// Why a paste failed when the site made a file of it.
const CARDED: &str = "the site turned the pasted message into an attachment";

/// The largest piece pasted to a site that turns long pastes into files.
const PASTE_PIECE: usize = 3000;

/// How long a paste's result may take to settle before it is judged (the editor may apply it
/// in a later task).
const PASTE_SETTLE: Duration = Duration::from_millis(300);

/// The composer part: how messages are put in and how they reached this page, remembered for
/// the session.
#[derive(Debug, Default)]
pub(super) struct Composer {
    /// The insertion strategy that last worked (tried first next time).
    inserted_with: Option<String>,
    /// How messages reach this page (`sent::Delivery`).
    pub(super) delivery: Delivery,
    /// Whether a sent message was shown as something else (a chip) and said so.
    pub(super) drawn_unlike: bool,
    /// The last message sent and how (a site that refuses it as too long gets it again as a
    /// file, once).
    pub(super) last_sent: Option<(String, SendAs)>,
    /// The chat's address when the last message was confirmed sent (never a wall's).
    pub(super) sent_at: Option<String>,
    /// The tab's history entry the chat showed when the last reply was read, and its address:
    /// a wall swapped in on that same entry (no navigation) stands in the chat's place.
    pub(super) chat_entry: Option<(i64, String)>,
    /// The last reply was read whole, and since then keyless sent nothing and opened no page:
    /// no reply of this chat can still stream.
    pub(super) reply_read: bool,
    /// A message went and its reply was not awaited yet: where it went, and whether its turn
    /// is judged for exactness, are done as the wait begins (off the delivery's path).
    pub(super) after_send: Option<bool>,
    /// The person's files for the next message (`attach.rs`), kept until a send is confirmed.
    pub(super) files: Vec<crate::chat::attach::Upload>,
    /// How long each of them has to show its chip.
    pub(super) attach_wait: Duration,
    /// The last message went in with its words whole and its whitespace changed: the
    /// composer keeps none of its own (a run of spaces or tabs as one, no space at a line's
    /// end), and no strategy could do better. Taken by the driver, which warns.
    pub(super) whitespace_lost: bool,
    /// Whether that was said (once a session).
    pub(super) told_whitespace: bool,
    /// Whether Shift+Enter breaks the line here, once found out.
    shift_enter_breaks: std::cell::Cell<Option<bool>>,
    /// An insertion of this message begun in the call that began the send (the composer was
    /// clean): taken by the insertion of the same message, which needs no call to begin.
    pub(super) begun: Option<(String, Begun)>,
    /// Set by the send before the insertion (the user turns before it): the insertion in the
    /// page that leaves the whole message exact clicks send in the same call. Taken by it.
    pub(super) send_after: Option<usize>,
    /// What that click answered (`PageApi::click_send`'s answer): taken by the send, which
    /// then clicks no more.
    pub(super) sent_in_put: std::cell::RefCell<Option<(bool, Option<ShownTurn>)>>,
    /// A call that was to click send failed: whether it clicked is unknown, so the insertion
    /// stops there (the turn asks the chat whether it holds the message).
    send_unsure: std::cell::Cell<bool>,
}

impl Composer {
    /// A composer whose attached files have `attach_wait` each to show their chips.
    pub(super) fn new(attach_wait: Duration) -> Composer {
        Composer {
            attach_wait,
            ..Composer::default()
        }
    }

    /// Clears the composer's text, leaving attachment chips.
    pub(super) fn clear_text(&self, page: &PageApi<'_>) -> Result<(), Failure> {
        if page.composer()?.unwrap_or_default().is_empty() {
            return Ok(());
        }
        self.erase(page)
    }

    /// Clears stale text and attachment chips from the composer.
    pub(super) fn clean(&self, page: &PageApi<'_>) -> Result<(), Failure> {
        self.clean_keeping(page, 0, None)
    }

    /// Clears stale text and attachment chips from the composer, found as `dirt` (looked at in
    /// the call that began the send): whether the composer was clean as it began.
    pub(super) fn clean_found(&self, page: &PageApi<'_>, dirt: Dirt) -> Result<bool, Failure> {
        let clean = !dirt.text && dirt.chips == 0 && dirt.cards == 0;
        self.clean_keeping(page, 0, Some(dirt))?;
        Ok(clean)
    }

    /// Clears the composer's text and every attachment chip but the first `keep` (a chip made
    /// for the message being sent stays when an insertion strategy is undone); `found`, the
    /// dirt already looked at.
    fn clean_keeping(
        &self,
        page: &PageApi<'_>,
        keep: usize,
        found: Option<Dirt>,
    ) -> Result<(), Failure> {
        // Chips by the selectors, and cards discovery sees (new since the insertion began).
        let dirty = || -> Result<(bool, usize, usize), Failure> {
            let dirt = page.dirt()?;
            Ok((dirt.text, dirt.chips, dirt.cards))
        };
        let (text, chips, cards) = match found {
            Some(dirt) => (dirt.text, dirt.chips, dirt.cards),
            None => dirty()?,
        };
        if !text && chips <= keep && cards == 0 {
            return Ok(());
        }
        if text {
            self.erase(page)?;
        }
        if chips > keep {
            page.remove_chips(keep)?;
        }
        if cards > 0 {
            page.remove_cards()?;
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
    fn erase(&self, page: &PageApi<'_>) -> Result<(), Failure> {
        page.select_composer()?;
        page.press(Press {
            key: "a",
            code: "KeyA",
            virtual_code: 65,
            ctrl: true,
            command: Some("selectAll"),
        })?;
        page.key("Backspace", 8)
    }

    /// Puts the message into the composer with the site's insertion strategies, in order
    /// (`selectors.json` `insert`), until the composer holds exactly the message:
    /// `insertTextWhole` is one `Input.insertText` (editors that handle `beforeinput` themselves,
    /// like Lexical: fastest), `pasteHtml` one synthetic paste of a paragraph per line
    /// (ProseMirror: fast where `Input.insertText` costs more with each line break), and
    /// `insertText` checked chunks cut before line breaks (any editor, slowly in ProseMirror).
    /// A strategy that leaves anything but the exact message, or an attachment chip the site
    /// made of a big paste, is undone and the next one is tried.
    pub(super) fn insert(&mut self, page: &PageApi<'_>, message: &str) -> Result<(), Failure> {
        // Chips already there belong to this message (it went as a file): they stay. What
        // appears beside the composer from now on is a card a strategy made.
        let begun: Begun = match self.begun.take() {
            Some((text, begun)) if text == message => begun,
            _ => page.begin(message)?,
        };
        let keep = begun.chips;
        let mut last = None;
        // The first strategy that left the message's words whole, its whitespace changed.
        let mut near = None;
        // Whether the message's opening lines went in by typing (`Input.insertText`): asked once.
        let mut typed_opening: Option<bool> = None;
        for strategy in self.insertion_order(page, &begun.editor) {
            let tried = Instant::now();
            // A strategy that worked here before, or is the fastest for the editor, goes
            // straight to the whole message.
            let trusted = self.inserted_with.as_deref() == Some(strategy)
                || fastest_for(&begun.editor).is_some_and(|fast| fast.contains(&strategy));
            if TYPED.contains(&strategy)
                && !trusted
                && let Some(opening) = opening(message)
            {
                let typed = match typed_opening {
                    Some(typed) => typed,
                    None => {
                        let typed = self.insert_chunks(page, opening, usize::MAX, OPENING_SETTLE);
                        self.clean_keeping(page, keep, None)?;
                        if let Err(failure) = &typed {
                            last = Some(failure.clone());
                        }
                        *typed_opening.insert(typed.is_ok())
                    }
                };
                if !typed {
                    tracing::info!(
                        strategy,
                        ms = tried.elapsed().as_millis() as u64,
                        "insertion skipped: the opening lines did not go in"
                    );
                    continue;
                }
            }
            let mut inserted = self.insert_with(page, strategy, message);
            tracing::info!(
                strategy,
                ms = tried.elapsed().as_millis() as u64,
                ok = inserted.is_ok(),
                "insertion tried"
            );
            if strategy.starts_with("paste")
                && matches!(&inserted, Err(failure) if failure.reason == CARDED)
            {
                // A site that turns long pastes into files takes short ones as text: the
                // message again in pieces under every limit seen (claude.ai about 4,000
                // characters).
                self.clean_keeping(page, keep, None)?;
                inserted = self.paste_in(page, strategy, message, PASTE_PIECE);
            }
            // An insertion in the page looked for cards as it ended (and unmarked the region
            // when there were none).
            let cards: usize = match (&inserted, IN_PAGE.contains(&strategy)) {
                (Ok(()), true) => 0,
                _ => page.cards()?,
            };
            match inserted {
                Ok(()) if cards == 0 => {
                    if !IN_PAGE.contains(&strategy) {
                        page.unmark_region()?;
                    }
                    self.inserted_with = Some(strategy.to_string());
                    return Ok(());
                }
                Ok(()) => {
                    last = Some(Failure::new(
                        Code::SendNotConfirmed,
                        "the site turned part of the message into an attachment card",
                    ));
                    self.clean_keeping(page, keep, None)?;
                }
                Err(failure) if self.send_unsure.take() => return Err(failure),
                Err(failure) => {
                    // A wall that took the composer's place meanwhile (a sign-in form, a
                    // check) is the reason, named at once: no other strategy can insert into
                    // it, and none should try.
                    if let Some(wall) = super::conversation::wall_shown(page) {
                        return Err(wall);
                    }
                    if near.is_none()
                        && page
                            .composer()?
                            .is_some_and(|held| same_words(&held, message))
                    {
                        near = Some(strategy);
                    }
                    last = Some(failure);
                    self.clean_keeping(page, keep, None)?;
                }
            }
        }
        // No strategy was exact, and one left every word in place with the whitespace changed:
        // a composer that keeps no whitespace of its own, which no strategy can change. The
        // message goes so (the driver warns) rather than not at all.
        if let Some(strategy) = near
            && message.chars().any(|c| c.is_whitespace() && c != '\n')
        {
            let _ = self.insert_with(page, strategy, message);
            if page
                .composer()?
                .is_some_and(|held| same_words(&held, message))
                && page.cards()? == 0
            {
                page.unmark_region()?;
                self.whitespace_lost = true;
                return Ok(());
            }
            self.clean_keeping(page, keep, None)?;
        }
        page.unmark_region()?;
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
    fn insertion_order(&self, page: &PageApi<'_>, editor: &str) -> Vec<&'static str> {
        let known = |name: &str| STRATEGIES.iter().copied().find(|s| *s == name);
        let mut order: Vec<&'static str> = Vec::new();
        let listed: Vec<&'static str> =
            page.site().insert.iter().filter_map(|s| known(s)).collect();
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

    /// The insertion strategy that last put a message in exactly, to keep for the site.
    pub(super) fn inserted_with(&self) -> Option<&str> {
        self.inserted_with.as_deref()
    }

    /// Puts the message into the composer with one strategy (`keyless doctor` checks each),
    /// checked exact; a failure leaves the composer as the strategy left it.
    pub(super) fn insert_using(
        &self,
        page: &PageApi<'_>,
        strategy: &str,
        message: &str,
    ) -> Result<(), Failure> {
        page.expect(message)?;
        self.insert_with(page, strategy, message)
    }

    /// Like [`CdpDriver::insert_using`], with the message already in the page
    /// (`PageApi::expect`).
    fn insert_with(
        &self,
        page: &PageApi<'_>,
        strategy: &str,
        message: &str,
    ) -> Result<(), Failure> {
        match strategy {
            "insertTextWhole" => self.insert_chunks(page, message, usize::MAX, INSERT_SETTLE),
            "insertText" => self.insert_chunks(page, message, INSERT_CHUNK, INSERT_SETTLE),
            "pasteHtml" => self.paste(page, "pasteHtml", message),
            "pastePlain" => self.paste(page, "pastePlain", message),
            "pasteBr" => self.paste(page, "pasteBr", message),
            "shiftEnter" => self.shift_enter(page, message),
            "setValue" => self.set_value(page, message),
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
    fn paste(&self, page: &PageApi<'_>, how: &str, message: &str) -> Result<(), Failure> {
        self.paste_in(page, how, message, usize::MAX)
    }

    /// Pastes the message in pieces of at most `max` bytes (cut before line breaks), each put
    /// at the end and checked. The pieces are cut in the page from the message it holds, so
    /// the text crosses the connection once.
    fn paste_in(
        &self,
        page: &PageApi<'_>,
        how: &str,
        message: &str,
        max: usize,
    ) -> Result<(), Failure> {
        let pieces = chunks(message, max);
        let mut from = 0;
        for (i, piece) in pieces.iter().enumerate() {
            let to = from + piece.encode_utf16().count();
            self.put(page, how, from, to, i + 1 == pieces.len())?;
            from = to;
        }
        Ok(())
    }

    /// One insertion in the page (`how`: `setValue`, `pasteHtml`, `pastePlain`) of the message's
    /// UTF-16 units `from..to`, after which the composer must hold exactly its first `to`;
    /// judged in the page in the same task (and again while the editor settles), so that no
    /// rendering frame is waited for. `last`: the message is whole after it.
    fn put(
        &self,
        page: &PageApi<'_>,
        how: &str,
        from: usize,
        to: usize,
        last: bool,
    ) -> Result<(), Failure> {
        let send_after = if last { self.send_after } else { None };
        let judged = page
            .put(
                how,
                (from, to),
                (PASTE_SETTLE.as_millis(), INSERT_SETTLE.as_millis()),
                last,
                send_after,
            )
            .inspect_err(|_| {
                // The call may have clicked send before it failed: no other strategy may
                // insert the message again (and click again).
                if send_after.is_some() {
                    self.send_unsure.set(true);
                }
            })?;
        if judged.sent.is_some() {
            *self.sent_in_put.borrow_mut() = judged.sent;
        }
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
    fn holds(&self, page: &PageApi<'_>, units: Option<usize>) -> Result<Held, Failure> {
        page.holds(units)
    }

    /// A text field's value, set whole and checked.
    fn set_value(&self, page: &PageApi<'_>, message: &str) -> Result<(), Failure> {
        self.put(page, "setValue", 0, message.encode_utf16().count(), true)
    }

    /// Each line typed as text and a Shift+Enter between lines, as a person types into a
    /// composer whose Enter sends: [`SHIFT_ENTER_CHECK`] lines at a time, sent without waiting
    /// for each, then the composer checked (a check reads its whole text: one after every line
    /// would cost the square of a long message's length). Last of all strategies: it costs a
    /// key press per line.
    fn shift_enter(&self, page: &PageApi<'_>, message: &str) -> Result<(), Failure> {
        let lines: Vec<&str> = message.split('\n').collect();
        page.focus_composer()?;
        if lines.len() > 1 && !self.shift_enter_breaks(page)? {
            return Err(Failure::new(
                Code::SendNotConfirmed,
                "Shift+Enter does not break the line in this composer (a space and Shift+Enter left no line break: the page may send on it); nothing was sent",
            ));
        }
        // The first line alone first: a page that sends on Shift+Enter after all (only with
        // text in the composer) sends no more than that line.
        let groups: Vec<&[&str]> = std::iter::once(&lines[..1])
            .chain(lines[1..].chunks(SHIFT_ENTER_CHECK))
            .filter(|group| !group.is_empty())
            .collect();
        let mut sent = 0;
        for (g, group) in groups.iter().copied().enumerate() {
            let more = g + 1 < groups.len();
            page.type_lines(group, more)?;
            sent += group
                .iter()
                .map(|l| l.encode_utf16().count() + 1)
                .sum::<usize>();
            if !more {
                sent -= 1;
            }
            let started = Instant::now();
            while !self.holds(page, Some(sent))?.exact {
                if started.elapsed() > INSERT_SETTLE {
                    let first = groups[..g].iter().map(|group| group.len()).sum::<usize>() + 1;
                    let lines = format!("lines {first}–{}", first + group.len() - 1);
                    // The composer emptied: the page took a Shift+Enter as a send.
                    let reason = if page.composer()?.unwrap_or_default().trim().is_empty() {
                        format!(
                            "the composer emptied as {lines} of the message went in with Shift+Enter: this page sends on Shift+Enter, and what was typed may have gone as a message (the chat shows it); the rest was not sent"
                        )
                    } else {
                        format!(
                            "the composer does not hold {lines} of the message after shiftEnter; nothing was sent"
                        )
                    };
                    return Err(Failure::new(Code::SendNotConfirmed, reason));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Ok(())
    }

    /// Whether Shift+Enter breaks the line in this composer, found out with nothing a page
    /// would send: a space, Shift+Enter, the composer read back, then emptied. Asked once.
    fn shift_enter_breaks(&self, page: &PageApi<'_>) -> Result<bool, Failure> {
        if let Some(known) = self.shift_enter_breaks.get() {
            return Ok(known);
        }
        page.type_lines(&[" ", ""], false)?;
        let started = Instant::now();
        let breaks = loop {
            let held = page.composer()?.unwrap_or_default();
            if held.contains('\n') {
                break true;
            }
            if started.elapsed() > PROBE_SETTLE {
                break false;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        self.erase(page)?;
        self.shift_enter_breaks.set(Some(breaks));
        Ok(breaks)
    }

    /// Types the message (or its opening: the page's message's first units) in chunks of at
    /// most `max` bytes cut before line breaks, each waited on until the composer holds exactly
    /// the text so far, for at most `settle`.
    fn insert_chunks(
        &self,
        page: &PageApi<'_>,
        message: &str,
        max: usize,
        settle: Duration,
    ) -> Result<(), Failure> {
        let mut sent = 0;
        for chunk in chunks(message, max) {
            // The caret at the end before every chunk: after an insertion with line breaks,
            // Chrome leaves it one character short per line break in an editor that lets the
            // browser edit its DOM, and the next chunk would land inside the text.
            page.focus_composer()?;
            page.insert_text(chunk)?;
            sent += chunk.encode_utf16().count();
            let started = Instant::now();
            loop {
                if self.holds(page, Some(sent))?.exact {
                    break;
                }
                if started.elapsed() > settle {
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
    pub(super) fn attach(&self, page: &PageApi<'_>, message: &str) -> Result<(), Failure> {
        let failed = |why: String| Failure::new(Code::AttachmentUploadFailed, why);
        let folder = page.tab().reach.profile.join("keyless-attachments");
        std::fs::create_dir_all(&folder).map_err(|source| DriverError::Attachment { source })?;
        // Earlier messages' files were uploaded when they were sent: only this one is kept.
        for old in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let _ = std::fs::remove_file(old.path());
        }
        let path = folder.join(attachment_name(message));
        std::fs::write(&path, message).map_err(|source| DriverError::Attachment { source })?;
        let css = page.which("AttachmentInput")?;
        let css =
            css.ok_or_else(|| failed("the page has no file input (AttachmentInput)".into()))?;
        page.choose_file(css, path.to_string_lossy().into_owned())?;
        let started = Instant::now();
        while started.elapsed() < ATTACH_WAIT {
            if page.count("AttachmentFailed")? > 0 {
                return Err(failed("the site marked the attachment as failed".into()));
            }
            if page.count("AttachmentChip")? > 0 {
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
        page: &PageApi<'_>,
        message: &str,
        users_before: usize,
        wait: Duration,
    ) -> Result<Option<Shown>, Failure> {
        let started = Instant::now();
        let mut wall_looked = Instant::now();
        while started.elapsed() < wait {
            // A wall that took the chat's place after the send (a sign-in form swapped in) is
            // named at once, not waited on as a late turn.
            if wall_looked.elapsed() >= WALL_LOOK {
                wall_looked = Instant::now();
                if let Some(wall) = super::conversation::wall_shown(page) {
                    return Err(wall);
                }
            }
            // The selectors' new turn, or the element discovery found carrying the text; the
            // page says "same" itself when it reads as the message (whitespace aside).
            match page.sent_shown(users_before)? {
                Some(None) => {}
                Some(Some(ShownTurn::Same(_))) => {
                    return Ok(Some(Shown::Same));
                }
                Some(Some(ShownTurn::Turn { text })) => {
                    return Ok(Some(shown_as(&text, message)));
                }
                // The page was replaced: the state puts the helper back.
                None => {
                    page.state()?;
                    continue;
                }
            }
            page.tab().next_change(Duration::from_millis(50));
        }
        Ok(None)
    }
}

/// Whether two texts hold the same words in the same order and lines, whatever the spaces and
/// tabs between them or at a line's end (what a composer that keeps no whitespace changes).
fn same_words(held: &str, message: &str) -> bool {
    let lines = |text: &str| {
        text.trim_end()
            .lines()
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
    };
    !held.trim().is_empty() && lines(held) == lines(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_words_allow_only_spaces_and_tabs_to_change() {
        assert!(same_words("a b\nc", "a\t  b  \nc"));
        assert!(same_words("  x\n\ny", "\tx \n\ny\n"));
        assert!(
            !same_words("a b c", "a b\nc"),
            "a line break is not a space"
        );
        assert!(!same_words("a b", "a b c"));
        assert!(!same_words("", "   "), "an empty box holds no words");
    }

    #[test]
    fn a_long_message_s_opening_reaches_the_line_after_its_first_blank_line() {
        let message = format!("Task:\none\n\n  two\tand\nthree\n{}", "x".repeat(5_000));
        assert_eq!(opening(&message), Some("Task:\none\n\n  two\tand"));
    }

    #[test]
    fn without_a_blank_line_the_opening_is_three_lines() {
        let message = format!("a\nb\nc\nd\n{}", "x".repeat(5_000));
        assert_eq!(opening(&message), Some("a\nb\nc"));
    }

    #[test]
    fn a_short_message_or_one_with_few_early_breaks_has_no_opening() {
        assert_eq!(opening("a\n\nb\nc\n"), None);
        assert_eq!(opening(&format!("a\n{}", "x".repeat(5_000))), None);
        assert_eq!(opening(&format!("{}\na\nb\nc", "x".repeat(3_000))), None);
        // Two breaks early: the opening ends at the last of them.
        let two = format!("a\nb\n{}\nc", "x".repeat(5_000));
        assert_eq!(opening(&two), Some("a\nb"));
    }
}
