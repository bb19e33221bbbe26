//! Waiting for the reply to the message sent, on positive proof that it ended, and the site's
//! trouble met meanwhile: a throttle acknowledged, a wall waited out where a person can pass
//! it, a refusal, a cut stream, a stall or the network gone named, the wire asked where the page
//! gives no end. Reading the reply once it ended is `read.rs`'s; sending is `conversation.rs`'s.

use std::time::{Duration, Instant};

use super::CdpDriver;
use super::conversation::{POLL, SendAs, wall_address, without_check_parameters};
use super::page_state::{NoticeArea, PageState, ReplyEnd, Seen};
use super::site_said::{clock_now, trouble_failure};
use crate::catalog::{Code, Failure, SiteSaid};
use crate::chat::trouble::{Kind, Place};
use crate::chat::{Reopened, Reply};

/// What became of trouble met mid-turn once it passed.
enum Passed {
    /// The message was sent again (the chat did not hold it).
    Resent,
    /// The chat was opened again and holds the message: its reply is waited for.
    Reopened,
}

/// The page said its connection dropped, in `words`.
fn offline_failure(words: &str) -> Failure {
    Failure::new(
        Code::NetworkOffline,
        format!(
            "the page says: \"{}\": the network dropped mid-exchange. Nothing was lost; the chat is asked whether it holds the message before it is sent again.",
            words.split_whitespace().collect::<Vec<_>>().join(" ")
        ),
    )
}

/// How long the page's reply must stay unchanged, with no stream shown, after the browser told
/// of a cut stream (or of a connection reset), before the cut is named: the page may still draw
/// what came, and a site may say why a moment later (an outside attack's limit toast came
/// 2.5 s after the cut; with 1 s the results went three times into the limited chat).
const CUT_SETTLE: Duration = Duration::from_secs(3);

/// How long an ended reply may stay empty before the site is taken to have answered with no
/// reply (text that comes late is still read).
const EMPTY_REPLY_WAIT: Duration = Duration::from_secs(2);

/// How long a reply that ended only by settling, whole but readable only as text rebuilt from
/// the page (never executed), is looked at again for a proof: a page may draw its copy control
/// (Panel's icon) a moment after its text, later still on a loaded machine.
const PROOF_WAIT: Duration = Duration::from_secs(5);

/// How long after the send, with no reply begun, a refusal's status on the message's own request
/// is named (the page may first say it in words, which are quoted then).
const REFUSAL_SETTLE: Duration = Duration::from_secs(2);

/// How long the reply must make no progress, with no stream shown, while the page says its
/// connection dropped (or its server failed) before keyless acts on it: a site that reconnects
/// on its own ("Network error, reconnecting…") and goes on streaming is waited for, never
/// reloaded under a reply that is still coming; a stream that never goes on is stalled.
const OFFLINE_SETTLE: Duration = Duration::from_secs(3);

/// How long a notice new since the send may stand, in words no kind of trouble matches, while
/// no reply has begun and nothing streams, before the site is taken to have refused in its own
/// words (its reply's turn taken away, or never drawn). Real sites show a reply, a stream or a
/// stop control within seconds of a send they took.
const UNANSWERED_NOTICE_WAIT: Duration = Duration::from_secs(10);

/// How long a reply's drawing must stay unchanged, with no stream shown and no done mark,
/// before the network is asked whether it carried the reply whole: earlier than settling
/// ([`super::page_state::SETTLE`]), never while the page shows a stream on.
const WIRE_QUIET: Duration = Duration::from_millis(250);

/// The longest text in the reply's place that may be a site's notice rather than a reply.
const NOTICE_LONGEST: usize = 300;

/// Whether the text in the reply's place is a few words with nothing of AgentScript: the
/// site's notice, where the page shows no reply ended as one.
fn few_words(text: &str) -> bool {
    let text = text.trim();
    !text.is_empty() && !text.contains("@@") && text.chars().count() <= NOTICE_LONGEST
}

/// The failure for an ended reply that holds nothing, or for no reply at all beside a notice
/// that stood: the words of the page's notices (areas
/// outside the turns, then the reply's own), which no kind of trouble keyless knows matched,
/// quoted; the turn stays resumable and nothing more is sent.
fn nothing_replied(state: &PageState, gone: &[NoticeArea]) -> Failure {
    // What the page says, then what it said since the send and no longer shows (a toast that
    // vanished), then what discovery saw in the reply's place (a toast below the message,
    // where no turn was drawn), then the page's furniture (a history list that gained the
    // chat's name).
    let (said, furniture): (Vec<_>, Vec<_>) = state
        .notices
        .iter()
        .chain(gone.iter().rev())
        .chain(&state.reply_notices)
        .partition(|area| !area.aside);
    let in_place = state.reply_text.iter().filter(|t| !t.contains("@@"));
    let words = said
        .into_iter()
        .map(|area| &area.text)
        .chain(in_place)
        .chain(furniture.into_iter().map(|area| &area.text))
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|text| !text.is_empty());
    let said = match &words {
        Some(words) => format!("the site showed no reply and says: \"{words}\""),
        None => "the site showed an empty reply and no notice".to_string(),
    };
    Failure::new(
        Code::SiteNotice,
        format!(
            "{said}. keyless does not know these words, so nothing more was sent (a refusing chat would take a resend as spent). Nothing was lost: once the site works, run `keyless run --resume` (it asks the chat whether it holds the message first)."
        ),
    )
    .saying(SiteSaid {
        words: words.unwrap_or_default(),
        resets_at: None,
    })
}

impl CdpDriver {
    /// Trouble seen while waiting for a reply. A throttle dialog is acknowledged first (as a
    /// person clicks its "Got it"). A wall in a window the person can see is waited out (they
    /// log in or pass the check there), and the chat opened again where the message went: its
    /// reply is waited for, or the message sent once more when the chat does not hold it.
    /// Anything else, or a wall nobody can pass, stops the wait with the trouble named.
    fn trouble_mid_turn(&mut self, seen: Seen) -> Result<Passed, Failure> {
        let clock = clock_now();
        if let Some(text) = &seen.dialog {
            let _ = self.api().acknowledge(text);
        }
        let walled = matches!(seen.notice.kind, Kind::LoginWall | Kind::BotCheck);
        if !walled || self.tab.reach.login_wait.is_zero() {
            return Err(self.sent_into(&seen.notice, clock));
        }
        // A bot check stands in front of the address asked for, the chat's (a reload): that
        // address, as the browser shows it now, is where the chat is once it is passed.
        let check_at = (seen.notice.kind == Kind::BotCheck)
            .then(|| self.tab.shown().ok())
            .flatten()
            .map(|(url, _)| without_check_parameters(&url))
            .filter(|url| url != &self.tab.reach.url && !wall_address(url));
        // The person passes the wall in the window; the page's own wait says so.
        self.wait_ready_behind(Some(seen.notice.kind))?;
        let Some(address) = check_at.or_else(|| self.composer.sent_at.clone()) else {
            return Err(trouble_failure(&seen.notice, clock));
        };
        let pending = self.composer.last_sent.clone();
        let reopened = self.reopen_chat(&address, pending.as_ref().map(|(m, _)| m.as_str()))?;
        match (reopened, pending) {
            (Reopened::Answered, _) => Ok(Passed::Reopened),
            (Reopened::Unsent, Some((message, how))) => {
                self.send_as(&message, how)?;
                Ok(Passed::Resent)
            }
            _ => Err(trouble_failure(&seen.notice, clock)),
        }
    }

    /// Waits for the reply to the last message, on positive proof that it is finished.
    pub(super) fn wait_for_reply(
        &mut self,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Reply, Failure> {
        let started = Instant::now();
        let mut last_chars = 0;
        let mut last_change = Instant::now();
        let mut finished_without_eof: Option<Instant> = None;
        let mut unproved_since: Option<Instant> = None;
        let mut unanswered_notice: Option<Instant> = None;
        // What the page's notice areas said since the send, in words no look may see again (a
        // toast that shows for half a second beside a refusal).
        let mut said: Vec<NoticeArea> = Vec::new();
        // When a request was first heard failing as the network does.
        let mut offline_heard: Option<Instant> = None;
        // The reply's length when the network was last asked whether it carried it whole.
        let mut wire_asked: Option<usize> = None;
        // When the reply last grew: a reply still coming is the site getting through whatever
        // its notices say (a "reconnecting…" that heals by itself).
        let mut last_growth: Option<Instant> = None;
        loop {
            if crate::cancel::requested() {
                return Err(Failure::new(
                    Code::Cancelled,
                    "stopped while waiting for the reply (Ctrl+C); run keyless again to resume the turn",
                ));
            }
            let state = self.state()?;
            for notice in state.notices.iter().filter(|n| !n.aside) {
                if !said.iter().any(|s| s.text == notice.text) {
                    said.push(notice.clone());
                }
            }
            // A request that failed as the network does (a connection reset, refused): the
            // network's trouble, unless the page said something else meanwhile (a site that
            // resets the stream of a message it refuses, its words in a ribbon or in the
            // reply's place), which is its answer; a moment is given for such words to show.
            if let Some(offline) = self.tab.offline_failure() {
                if state.offline.is_none() {
                    let before = self.reader.assistants_before_send;
                    if !said.is_empty() {
                        return Err(self.said_beside_cut(&state, &said, offline));
                    }
                    if state.replying(before) && state.reply_text.as_deref().is_some_and(few_words)
                    {
                        return Err(nothing_replied(&state, &said));
                    }
                    if offline_heard.get_or_insert_with(Instant::now).elapsed() < CUT_SETTLE {
                        self.tab.next_change(POLL);
                        continue;
                    }
                }
                return Err(offline);
            }
            if state.chars > last_chars {
                last_growth = Some(Instant::now());
            }
            // Still coming: it grew a moment ago, or the page still shows it streaming (a
            // stream paused while the site reconnects is held to the stall bound instead).
            let still_coming =
                state.streams() || last_growth.is_some_and(|t| t.elapsed() < OFFLINE_SETTLE);
            // A stream the site cut, told by the browser, once the page shows no more coming:
            // a site error (the chat is asked for what it kept), unless the reply ended whole
            // or the page says why in words keyless knows (named as that trouble below).
            if !state.streams()
                && last_change.elapsed() >= CUT_SETTLE
                && let Some(cut) = self.tab.cut_failure()
                && (state.offline.is_some()
                    || state
                        .trouble(
                            self.reader.assistants_before_send,
                            false,
                            &self.extra(),
                            clock_now(),
                        )
                        .is_none())
            {
                let before = self.reader.assistants_before_send;
                if state.replying(before)
                    && state.reply_end(before, last_change.elapsed()) == ReplyEnd::Ended
                {
                    let reply = self.read_finished()?;
                    if self.reader.whole(&reply.text) {
                        return Ok(reply);
                    }
                    // A few words with nothing of AgentScript, then the site cut the stream:
                    // its notice in words no list holds, quoted; never answered with a
                    // correction or sent again into a chat that may be refusing.
                    if state.offline.is_none() && few_words(&reply.text) {
                        return Err(nothing_replied(&state, &said));
                    }
                }
                // Words new since the send in a notice area beside the cut (a ribbon, a toast,
                // a dialog), standing or shown a moment since: trouble keyless knows in them,
                // or, met twice running, the site's answer in words no list holds.
                if state.offline.is_none() && !said.is_empty() {
                    return Err(self.said_beside_cut(&state, &said, cut));
                }
                // The page says why: its connection dropped.
                return Err(state.offline.as_deref().map_or(cut, offline_failure));
            }
            // The page lost the network mid-exchange: what the site kept is found out once it
            // is back (the turn asks whether the chat holds the message and its reply).
            if let Some(words) = &state.offline
                && !still_coming
                && last_change.elapsed() >= OFFLINE_SETTLE
            {
                return Err(offline_failure(words));
            }
            if state.exhausted {
                return Err(Failure::new(
                    Code::ChatExhausted,
                    "the chat reached its length limit; a new chat is needed to go on",
                ));
            }
            // The site's trouble in its notice areas, or a wall in the chat's place: named at
            // once, never waited out as a reply.
            // A site error said beside a reply that is still coming is the site's own retry
            // at work: the reply is waited for (its stall bound still holds).
            if let Some(seen) = state
                .trouble(
                    self.reader.assistants_before_send,
                    false,
                    &self.extra(),
                    clock_now(),
                )
                .filter(|seen| {
                    // A notice that says the connection dropped is the offline branch's, once
                    // the reply stopped coming.
                    !(seen.notice.kind == Kind::ServerError
                        && (still_coming || state.offline.is_some()))
                })
            {
                // A reply that ended whole before the site's notice came is read and run: the
                // notice is met again before the next message goes (nothing is sent into a chat
                // that refuses, and nothing the model answered is lost).
                let before = self.reader.assistants_before_send;
                if !matches!(seen.notice.kind, Kind::LoginWall | Kind::BotCheck)
                    && state.replying(before)
                    && state.reply_end(before, last_change.elapsed()) == ReplyEnd::Ended
                {
                    let reply = self.read_finished()?;
                    if self.reader.whole(&reply.text) {
                        return Ok(reply);
                    }
                }
                match self.trouble_mid_turn(seen)? {
                    Passed::Resent => {
                        last_chars = 0;
                        last_change = Instant::now();
                        finished_without_eof = None;
                        said.clear();
                        unanswered_notice = None;
                    }
                    Passed::Reopened => {}
                }
                continue;
            }
            if state.too_long {
                match self.composer.last_sent.take() {
                    Some((message, SendAs::Text)) if self.has_file_input()? => {
                        self.warnings.push(Failure::new(
                            Code::SendNotConfirmed,
                            "the site refused the message as too long; it was sent again as a file",
                        ));
                        self.send_as(&message, SendAs::File)?;
                        last_chars = 0;
                        finished_without_eof = None;
                        continue;
                    }
                    _ => {
                        return Err(Failure::new(
                            Code::SendNotConfirmed,
                            "the site refused the message as too long, and it could not go as a file; set a lower composerLimit for the site in selectors.json",
                        ));
                    }
                }
            }
            let replying = state.replying(self.reader.assistants_before_send);
            // The site answered the message's own request with a refusal's status (429, 5xx)
            // and no reply began: the refusal is named by that status, in the page's words
            // where it shows any (a bare 429 with a `Retry-After` shows none).
            if !replying
                && !state.streams()
                && last_change.elapsed() >= REFUSAL_SETTLE
                && let Some(notice) = self.refused_by_status(&state)
            {
                return Err(self.sent_into(&notice, clock_now()));
            }
            // A notice with no reply begun and nothing streaming: the site's refusal in words
            // no list knows, once it was said a while ago (standing, or a toast that showed a
            // moment) and still nothing came (a reply that begins starts the count again).
            if replying || state.streams() || said.is_empty() {
                unanswered_notice = None;
            } else if unanswered_notice.get_or_insert_with(Instant::now).elapsed()
                >= UNANSWERED_NOTICE_WAIT
            {
                return Err(self.said_since_send(&state, &said));
            }
            // Heard on every look, so that a watcher's clock ticks while the model thinks.
            progress(if replying { state.chars } else { 0 });
            if replying {
                if state.chars != last_chars {
                    last_chars = state.chars;
                    last_change = Instant::now();
                }
                let mut end =
                    state.reply_end(self.reader.assistants_before_send, last_change.elapsed());
                if end == ReplyEnd::Coming
                    && self.wire_carried_it(&state, last_change.elapsed(), &mut wire_asked)?
                {
                    end = ReplyEnd::Ended;
                }
                // (A page that says its connection dropped is the offline branch's.)
                if end == ReplyEnd::Ended
                    && state.offline.is_none()
                    && let Some(seen) = state.trouble(
                        self.reader.assistants_before_send,
                        true,
                        &self.extra(),
                        clock_now(),
                    )
                {
                    // A notice in the reply's place: the site's words, not the model's.
                    return Err(self.sent_into(&seen.notice, clock_now()));
                }
                if end == ReplyEnd::Coming
                    && state.streams()
                    && last_change.elapsed() >= self.reader.stall
                {
                    return Err(Failure::new(
                        Code::ReplyStalled,
                        format!(
                            "the reply stopped growing for {}s while the site still showed it streaming ({} characters arrived): the site stalled. Nothing was lost: run `keyless run --resume` to read the reply or send the message again",
                            self.reader.stall.as_secs(),
                            last_chars
                        ),
                    ));
                }
                if end == ReplyEnd::Ended {
                    let reply = self.read_finished()?;
                    if self.reader.whole(&reply.text)
                        && self.waits_for_proof(&reply, &state, &mut unproved_since)
                    {
                        self.tab.next_change(POLL);
                        continue;
                    }
                    if self.reader.whole(&reply.text) {
                        if state.reply_found {
                            // The selectors missed this reply: what discovery found is proved.
                            self.discovery.learn_turns(&self.tab, state.user_found)?;
                        }
                        return Ok(reply);
                    }
                    // Settled without its end on a page whose stop control is not known yet
                    // (a first exchange found by discovery) and with no done mark: a stream
                    // that made no progress for the stall bound is stalled, not truncated.
                    // (A page that says its connection dropped is the offline branch's.) On a
                    // page that marks its replies done, as soon as a truncated reply would be
                    // named: the correction would go into a chat that may be refusing.
                    let notice_after = if self.discovery.knows("Completed") {
                        self.reader.stall.min(self.reader.truncation_budget)
                    } else {
                        self.reader.stall
                    };
                    if !state.done_mark
                        && state.offline.is_none()
                        && last_change.elapsed() >= notice_after
                    {
                        // A few words with nothing of AgentScript in the reply's place, never
                        // marked done, are the site's notice in words no list holds (a plan
                        // lapsed, in Portuguese; a stream it cut without a word said), quoted
                        // as such: a resume would meet them again, never a stall, and never a
                        // correction into a chat that may be refusing.
                        if few_words(&reply.text) {
                            return Err(nothing_replied(&state, &said));
                        }
                    }
                    if !state.done_mark
                        && !self.discovery.knows("StopButton")
                        && last_change.elapsed() >= self.reader.stall
                    {
                        return Err(Failure::new(
                            Code::ReplyStalled,
                            format!(
                                "the reply stopped growing for {}s before the page showed its end ({} characters arrived): the site stalled. Nothing was lost: run `keyless run --resume` to read the reply or send the message again",
                                self.reader.stall.as_secs(),
                                last_chars
                            ),
                        ));
                    }
                    let since = *finished_without_eof.get_or_insert_with(Instant::now);
                    // An ended reply with nothing in it is no reply: the site refused or failed
                    // in words outside the turn (or none). Never a format correction, which
                    // would go into a chat that refuses it.
                    if reply.text.trim().is_empty() {
                        if since.elapsed() >= EMPTY_REPLY_WAIT.min(self.reader.truncation_budget) {
                            return Err(nothing_replied(&state, &said));
                        }
                    } else if since.elapsed() >= self.reader.truncation_budget
                        && self.tab.cut_failure().is_none()
                    {
                        // (A stream the browser reports cut is named by the cut's branch once
                        // the page settles: the site's words, or the chat asked what it kept.)
                        return Err(Failure::new(
                            Code::ReplyTruncated,
                            format!(
                                "the reply ended without @@eof and stayed so for {}s ({} characters arrived); ask for it again in smaller pieces",
                                self.reader.truncation_budget.as_secs(),
                                reply.text.chars().count()
                            ),
                        ));
                    }
                } else {
                    finished_without_eof = None;
                    unproved_since = None;
                }
            }
            if !replying && state.streams() && last_change.elapsed() >= self.reader.stall {
                return Err(Failure::new(
                    Code::ReplyStalled,
                    format!(
                        "no reply began within {}s although the site showed it streaming: the site stalled. Nothing was lost: run `keyless run --resume` to read the reply or send the message again",
                        self.reader.stall.as_secs()
                    ),
                ));
            }
            if started.elapsed() >= self.reader.reply_timeout {
                return Err(Failure::new(
                    Code::ReplyTimeout,
                    format!(
                        "no complete reply within {}s ({} characters arrived); nothing was lost: run `keyless run --resume` to read it or send the message again",
                        self.reader.reply_timeout.as_secs(),
                        last_chars
                    ),
                ));
            }
            self.tab.next_change(POLL);
        }
    }

    /// Whether the network already carried the reply whole where the page has not said so yet
    /// (no done mark, no stream shown, the drawing quiet for [`WIRE_QUIET`]): a text heard
    /// since the send, closed by its one `@@eof`, that agrees with the drawn reply. The page's
    /// settling would end it later; a page that still shows a stream on is waited for. Asked
    /// once for each length the drawing stands at.
    fn wire_carried_it(
        &self,
        state: &PageState,
        quiet: Duration,
        asked: &mut Option<usize>,
    ) -> Result<bool, Failure> {
        if self.reader.replies != super::Replies::AgentScript
            || state.streams()
            || quiet < WIRE_QUIET
            || *asked == Some(state.chars)
        {
            return Ok(false);
        }
        *asked = Some(state.chars);
        let heard = self.tab.heard()?;
        Ok(super::read::Reader::from_wire(&self.api(), &heard)?.is_some())
    }

    /// Whether a whole reply read only as rebuilt text is looked at again for a proof: an
    /// AgentScript reply (prose needs none) that ended by settling, not by the page's done mark,
    /// within `PROOF_WAIT` of first being read so.
    fn waits_for_proof(
        &self,
        reply: &Reply,
        state: &PageState,
        since: &mut Option<Instant>,
    ) -> bool {
        // A done mark the site's known Completed selector gives is its word; one discovery
        // guessed on a first exchange may come before the copy control it will draw (Panel's
        // icon, later still on a loaded machine: a group run read a reply as rebuilt text).
        if reply.channel != crate::chat::Channel::Dom
            || (state.done_mark && self.discovery.knows("Completed"))
            || self.reader.replies != super::Replies::AgentScript
        {
            return false;
        }
        since.get_or_insert_with(Instant::now).elapsed() < PROOF_WAIT
    }

    /// Whether the page has a file input to attach a message with.
    fn has_file_input(&self) -> Result<bool, Failure> {
        self.api().exists("AttachmentInput")
    }

    /// Trouble keyless knows in what the notice areas said since the send (`said`, standing or
    /// gone; the newest first), as the failure that names it.
    fn known_in(&self, said: &[NoticeArea]) -> Option<Failure> {
        let clock = clock_now();
        let extra = self.extra();
        said.iter()
            .rev()
            .find_map(|n| crate::chat::trouble::classify(&n.text, Place::Area, &extra, clock))
            .map(|notice| self.sent_into(&notice, clock))
    }

    /// The site's answer in what its notice areas said since the send: trouble keyless knows
    /// in them, else their words quoted as the site's notice.
    fn said_since_send(&self, state: &PageState, said: &[NoticeArea]) -> Failure {
        self.known_in(said)
            .unwrap_or_else(|| nothing_replied(state, said))
    }

    /// A stream cut (or a connection reset) beside words the notice areas said since the send:
    /// trouble keyless knows in them is that trouble. Words it does not know may be harmless
    /// ("Copied!", "Chat renamed") beside a hiccup, so the first time `cut` stands (tried again
    /// as the site's error, the chat asked first what it kept), the words quoted; met beside a
    /// cut again before any reply is read, they are the site's answer: nothing more is sent.
    fn said_beside_cut(&self, state: &PageState, said: &[NoticeArea], cut: Failure) -> Failure {
        if let Some(known) = self.known_in(said) {
            return known;
        }
        if self.reader.unknown_beside_cut.replace(true) {
            return nothing_replied(state, said);
        }
        let words = said
            .last()
            .map(|n| n.text.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        let mut cut = cut;
        cut.reason = format!(
            "{} The page said \"{words}\" meanwhile, in words keyless does not know: said again beside the next try, they are taken for the site's refusal and nothing more is sent.",
            cut.reason.trim_end()
        );
        cut
    }

    /// Reads the reply the page shows ended, its end taken as now (before the read's time).
    fn read_finished(&mut self) -> Result<Reply, Failure> {
        let finished_at = Instant::now();
        let mut reply = self.read()?;
        reply.finished_at = finished_at;
        Ok(reply)
    }

    /// Reads the finished reply; a copy control found by its shape that gave it is healed.
    fn read(&mut self) -> Result<Reply, Failure> {
        let read = self.reader.read(&self.api(), &self.tab.heard()?)?;
        if let Some(css) = read.proved_copy {
            self.discovery.heal_copy(&self.tab, css)?;
        }
        Ok(read.reply)
    }
}
