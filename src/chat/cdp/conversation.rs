//! The conversation: sending a message (as a file when it is too long for the site) and
//! reopening a saved chat. The `ChatDriver` side of the CDP driver; waiting for the reply is
//! `waiting.rs`'s, the browser and page plumbing stays in `mod.rs`.

use std::time::{Duration, Instant};

use super::navigate::Opened;
use super::page_api::{BeforeSend, Drawn, PageApi, ShownTurn};
use super::page_state::PageState;
use super::site_said::{clock_now, trouble_failure};
use super::{
    CdpDriver, Delivery, LATE_TURN, PAGE_READY, SEND_CONFIRM, Shown, attachment_note, fence,
    shown_as, shown_with_files,
};
use crate::catalog::{Code, Failure};
use crate::chat::trouble::{Clock, Extra, Kind, Notice, Place};
use crate::chat::{ChatDriver, Reopened, Reply};

/// How long a reopened conversation may take to show its messages, unless the site says.
const DEFAULT_HISTORY_WAIT_MS: u64 = 8_000;
/// A reopened chat counts as drawn once its messages stayed the same this long.
const REOPEN_SETTLE: Duration = Duration::from_millis(500);
/// The safety-net poll while waiting for a reply (the page's MutationObserver is the fast path).
pub(super) const POLL: Duration = Duration::from_millis(250);
/// How long a stopped reply may take to end (the site saves what it has first).
const STOP_WAIT: Duration = Duration::from_secs(10);
/// How long a send waits for a composer the page keeps disabled, and how often it looks.
const BUSY_WAIT: Duration = Duration::from_secs(60);
const BUSY_POLL: Duration = Duration::from_millis(100);
/// How long the site's error may take to go once its Retry control was clicked.
const RETRY_TAKEN: Duration = Duration::from_secs(3);

/// How a message goes into the chat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SendAs {
    /// Its text in the composer.
    Text,
    /// A file attached, with a note in the composer naming it (over the site's composer limit,
    /// or refused as too long).
    File,
}

/// How many chats of the history list a resumed turn looks into for its message.
const HISTORY_LOOKS: usize = 5;

/// An address without the query parameters a bot check adds to it (Cloudflare's
/// `__cf_chl_…`): the address the check stands in front of.
pub(super) fn without_check_parameters(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_string();
    };
    let kept: Vec<(String, String)> = parsed
        .query_pairs()
        .filter(|(name, _)| !name.starts_with("__cf_chl"))
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    if kept.is_empty() {
        parsed.set_query(None);
    } else {
        parsed.query_pairs_mut().clear().extend_pairs(kept);
    }
    parsed.to_string()
}

/// Whether `url` is one of the browser's own pages (its error page, a blank page), never a
/// chat's address.
fn browser_own(url: &str) -> bool {
    ["chrome-error:", "chrome:", "about:", "data:", "devtools:"]
        .iter()
        .any(|scheme| url.starts_with(scheme))
}

/// Whether an address is a wall's own rather than a chat's: a sign-in page's or a bot check's
/// path (`/login/`, `/auth/`, `/cdn-cgi/challenge-platform/…`, `/captcha`) or a sign-in host.
/// Such an address is never saved as the chat's.
pub(super) fn wall_address(url: &str) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return false;
    };
    let walls = [
        "login",
        "log-in",
        "signin",
        "sign-in",
        "sign_in",
        "auth",
        "oauth",
        "oauth2",
        "sso",
        "authorize",
        "cdn-cgi",
        "captcha",
        "challenge",
        "challenges",
        "verify",
    ];
    let in_path = parsed.path_segments().is_some_and(|mut segments| {
        segments.any(|s| {
            let s = s.to_ascii_lowercase();
            walls.contains(&s.as_str()) || s.starts_with("challenge-")
        })
    });
    let host = parsed.host_str().unwrap_or("").to_ascii_lowercase();
    let login_host = [
        "login.",
        "accounts.",
        "account.",
        "auth.",
        "sso.",
        "signin.",
    ]
    .iter()
    .any(|h| host.starts_with(h));
    // A page that sends the person back afterwards: a parameter whose value is an address on
    // this site (`/account/enter?back=/s/9f73…`, `?next=%2Fc%2F…`, `?return_to=https://…`): a
    // sign-in page or a check, whatever its path says, in front of the page it names.
    let sends_back = parsed.query_pairs().any(|(_, value)| {
        value.starts_with('/') && !value.starts_with("//")
            || url::Url::parse(&value).is_ok_and(|back| back.host_str() == parsed.host_str())
    });
    in_path || login_host || sends_back
}

/// The failure that names a login wall or a bot check the page shows now in the chat's place
/// (no composer), in the site's words; `None` when the chat shows.
pub(super) fn wall_shown(page: &PageApi<'_>) -> Option<Failure> {
    let texts = &page.site().texts;
    let extra = Extra {
        rate_limit: texts.get("RateLimit").cloned().unwrap_or_default(),
        login: texts.get("LoginRequired").cloned().unwrap_or_default(),
    };
    let clock = clock_now();
    let state = match page.tab().check_shown() {
        Some(words) => PageState::bot_check(words),
        None => page.state().ok()?,
    };
    let seen = state.trouble(usize::MAX, false, &extra, clock)?;
    matches!(seen.notice.kind, Kind::LoginWall | Kind::BotCheck)
        .then(|| trouble_failure(&seen.notice, clock))
}

impl CdpDriver {
    /// The site's own texts that add to the classifier's words.
    pub(super) fn extra(&self) -> Extra {
        let texts = &self.discovery.site.texts;
        Extra {
            rate_limit: texts.get("RateLimit").cloned().unwrap_or_default(),
            login: texts.get("LoginRequired").cloned().unwrap_or_default(),
        }
    }

    /// What follows a confirmed send, done as its reply's wait begins: the message is
    /// delivered once its turn shows it, and this is bookkeeping for what comes next.
    fn after_send(&mut self) {
        let Some(judge) = self.composer.after_send.take() else {
            return;
        };
        // Where the message went: a wall mid-turn comes back here. A page that cannot say at
        // this moment (it is reloading into a check) leaves the address it had.
        if let Some(url) = self.chat_url() {
            self.composer.sent_at = Some(url);
        }
        if judge {
            self.judge_delivery();
        }
    }

    /// The site's refusal of the message by the status of the request that carried it (429:
    /// a rate limit, its `Retry-After` the wait; 5xx: a site error), in the page's newest words
    /// when it shows any, else in the words of the server's answer (a JSON body's message and
    /// its reset field): a limit those words name is that limit (a 429 that says the plan's
    /// messages are used up, until 17:00, is a usage limit with its reset). `None` when no
    /// request carrying the message was refused.
    pub(super) fn refused_by_status(&self, state: &PageState) -> Option<Notice> {
        let (message, _) = self.composer.last_sent.as_ref()?;
        let refused = self.tab.wire.refused().into_iter().rev().find(|r| {
            crate::chat::wire::outbound(message, std::slice::from_ref(&r.body))
                != crate::chat::wire::Outbound::Unknown
        })?;
        let clock = clock_now();
        // 402 Payment Required: a plan unpaid or lapsed, which waiting will not mend.
        let by_status = match refused.status {
            429 => Kind::RateLimit,
            402 => Kind::SpendLimit,
            _ => Kind::ServerError,
        };
        let server = self
            .tab
            .answer_to(&refused.id)
            .and_then(|body| crate::chat::trouble::server_said(&body, clock));
        let status = format!(
            "the site answered the message with HTTP {}{}",
            refused.status,
            refused
                .retry_after
                .as_deref()
                .map(|r| format!(" (Retry-After: {r})"))
                .unwrap_or_default()
        );
        let words = state
            .notices
            .iter()
            .rev()
            .find(|n| !n.aside)
            .map(|n| n.text.clone())
            .or_else(|| {
                server
                    .as_ref()
                    .filter(|said| !said.words.is_empty())
                    .map(|said| format!("{status}: {}", said.words))
            })
            .unwrap_or(status);
        let classified = crate::chat::trouble::classify(&words, Place::Area, &self.extra(), clock);
        // The words name the kind where they name a limit; otherwise the status does.
        let kind = match classified.as_ref().map(|n| n.kind) {
            Some(kind @ (Kind::RateLimit | Kind::UsageLimit | Kind::SpendLimit)) => kind,
            _ => by_status,
        };
        // The server's Retry-After, else a time its answer's fields give, else a wait the
        // words give ("Probeer het over 30 seconden opnieuw" in a dialog beside a bare 429).
        let resets_in = refused
            .retry_after
            .as_deref()
            .and_then(|r| crate::chat::trouble::retry_after(r, clock))
            .or_else(|| server.and_then(|said| said.resets_in))
            .or_else(|| classified.and_then(|notice| notice.resets_in))
            .filter(|_| kind.passes_with_time());
        Some(Notice {
            kind,
            words: words.split_whitespace().collect::<Vec<_>>().join(" "),
            resets_in,
        })
    }

    /// The failure for trouble met after a send, in the page's words, with the wait the
    /// site's answer to the message asked for (`Retry-After`) where the words give none: a
    /// toast that says "overloaded" comes with the 503's own time to try again.
    pub(super) fn sent_into(&self, notice: &Notice, clock: Clock) -> Failure {
        let mut notice = notice.clone();
        if notice.resets_in.is_none()
            && matches!(notice.kind, Kind::RateLimit | Kind::ServerError)
            && let Some(asked) = self.refused_by_status(&PageState::default())
        {
            notice.resets_in = asked.resets_in;
        }
        trouble_failure(&notice, clock)
    }

    /// After a send: whether the user turn shows the message exactly. The first time it does
    /// not, keyless says so and sends its messages inside a fence from then on; when even a
    /// fenced one is altered, it says that too, once: what the model reads may then differ
    /// from what keyless sent.
    fn judge_delivery(&mut self) {
        let Ok(Some(shown)) = self.api().sent_exact() else {
            return;
        };
        let shown = self.carried(shown);
        // Not the message altered, but something else in its place (a chip for a pasted
        // file): it counts as sent, and a resumed turn cannot recognise it.
        if shown == Drawn::Unlike {
            // Not sent at all: the site refused it (its request answered with a refusal's
            // status), which the wait names.
            if self.refused_by_status(&PageState::default()).is_some() {
                return;
            }
            if !self.composer.drawn_unlike {
                self.composer.drawn_unlike = true;
                self.warnings.push(Failure::new(
                    Code::SendNotConfirmed,
                    "the chat shows the sent message as something other than its text (UserMessage); it counts as sent and was not sent again. A resumed turn cannot find such a message and sends it again; check the site with `keyless doctor --canary`",
                ));
            }
            return;
        }
        let composer = &mut self.composer;
        let (delivery, told) = match &shown {
            Drawn::Altered(what) => composer.delivery.after(Some(what)),
            _ => composer.delivery.after(None),
        };
        composer.delivery = delivery;
        self.warnings.extend(told);
    }

    /// A refusal the page shows as a send begins: a notice, not the page's furniture, whose
    /// words name trouble other than a server error (which is no refusal of messages).
    fn refusal_shown(&self, before: &BeforeSend, clock: Clock) -> Option<Notice> {
        let extra = self.extra();
        before
            .notices
            .iter()
            .filter(|n| !n.aside)
            .filter_map(|n| crate::chat::trouble::classify(&n.text, Place::Area, &extra, clock))
            .find(|notice| notice.kind != Kind::ServerError)
    }

    /// Sends a message as text or as a file attachment (a failed upload falls back to pasting
    /// the text, reported as a warning).
    /// How the new user turn showed the message is returned, for [`CdpDriver::judge_delivery`].
    pub(super) fn send_as(&mut self, message: &str, how: SendAs) -> Result<Shown, Failure> {
        self.stop_leftover_reply()?;
        self.tab.forget_failures();
        self.composer.last_sent = Some((message.to_string(), how));
        // The composer's dirt and the page as the send begins, in one call: that look at the
        // page stands where nothing changed it since (a clean composer, no files, text).
        // Where nothing comes before the text (no files, no file for it), its insertion begins
        // in that call too.
        let plain = self.composer.files.is_empty() && how == SendAs::Text;
        // A page still busy keeps its composer disabled (the reply read from the wire before
        // the page let go of it): waited for, bounded, unless the page says why (a limit).
        let busy_since = Instant::now();
        let (dirt, first_look, begun) = loop {
            let look = self.api().dirt_and_before_send(plain.then_some(message))?;
            let says_why = self.refusal_shown(&look.1, clock_now()).is_some();
            if !look.1.busy || says_why || crate::cancel::requested() {
                break look;
            }
            if busy_since.elapsed() > BUSY_WAIT {
                return Err(Failure::new(
                    Code::SendNotConfirmed,
                    format!(
                        "the message was not sent: the chat's message box stayed disabled for {} s (the page still busy with the last reply, or it takes no messages now); look at the page, then run `keyless run --resume`",
                        BUSY_WAIT.as_secs()
                    ),
                ));
            }
            tracing::info!("the composer is disabled: waiting for the page");
            std::thread::sleep(BUSY_POLL);
        };
        let untouched = self.composer.clean_found(&self.api(), dirt)? && plain;
        self.composer.begun = begun
            .filter(|_| untouched)
            .map(|begun| (message.to_string(), begun));
        // The person's files first, each confirmed by its chip; a refusal sends nothing.
        self.upload_pending()?;
        let note;
        let message = if how == SendAs::File {
            match self.composer.attach(&self.api(), message) {
                Ok(()) => {
                    note = attachment_note(message);
                    note.as_str()
                }
                Err(failure) => {
                    self.warnings.push(Failure::new(
                        failure.code,
                        format!("{}; the message was pasted instead", failure.reason),
                    ));
                    self.composer.clean(&self.api())?;
                    message
                }
            }
        } else {
            message
        };
        // How many turns the page has before the send (counted alone: the whole state costs
        // more, and a long message is about to be drawn).
        let before = if untouched {
            first_look
        } else {
            self.api().before_send()?
        };
        // A refusal the page shows before anything went (a limit's banner still up when the
        // chat is opened again, or shown after the last reply ended): nothing is sent into it.
        let clock = clock_now();
        if let Some(notice) = self.refusal_shown(&before, clock) {
            // Said first, since "→ sending" was shown before the page was looked at.
            let mut failure = trouble_failure(&notice, clock);
            failure.reason = format!(
                "the message was not sent: the page already shows the site refusing messages; {}",
                failure.reason
            );
            return Err(failure);
        }
        let (users, button) = (before.users, before.button);
        self.reader.assistants_before_send = before.assistants;
        // No selector finds a send button (a page without one, or one that changed): Enter
        // sends, and the retry clicks the button found by its shape.
        let by_enter = !button;
        if by_enter {
            self.api().mark_buttons()?;
        }
        for attempt in 0..2 {
            // The composer was cleaned for the first attempt; the retry finds out, judged as
            // an insertion is (an editor draws a run of spaces with no-break spaces: the
            // message it holds need not go in again).
            let inserted = if attempt == 0 || message.is_empty() {
                !message.is_empty()
            } else {
                self.api().expect(message)?;
                !self.api().holds(None)?.exact
            };
            if inserted {
                // Only the text: an attachment chip made for this message stays.
                if attempt > 0 {
                    self.composer.clear_text(&self.api())?;
                }
                // The first attempt's scripted click goes in the insertion's own call where
                // the page inserts (one frame fewer to wait for before the message leaves).
                self.composer.send_after = (attempt == 0 && !by_enter).then_some(users);
                self.composer.sent_in_put.take();
                let done = self.insert(message);
                self.composer.send_after = None;
                done?;
                if std::mem::take(&mut self.composer.whitespace_lost)
                    && !std::mem::replace(&mut self.composer.told_whitespace, true)
                {
                    self.warnings.push(Failure::new(
                        Code::MessageAltered,
                        "the chat's message box keeps no whitespace of its own (a run of spaces or tabs becomes one space, a line ends with none), and no way of putting text in kept it: messages go with every word in place and their whitespace changed, so the model reads tabs and indentation in results altered. Check the site with `keyless doctor`",
                    ));
                }
            }
            // The insertion left the message in the page: it need not cross again.
            let begin = if inserted { None } else { Some(message) };
            // The exchange begins in the same call as the send where it can (one rendering
            // frame fewer to wait for).
            let clicked = if by_enter && attempt == 0 {
                let page = self.api();
                page.begin_and_focus(begin)?;
                page.key("Enter", 13)?;
                true
            } else if by_enter {
                self.api().begin_exchange(begin)?;
                self.discovery.discover_send(&self.tab)?
                    && self.api().click_trusted("SendButton")?
            } else if attempt == 0 {
                // A scripted click first: it needs no free view of the button. The new turn is
                // looked for in the same call once the click's own work is done (a framework
                // finishes it in microtasks): a page that draws the turn at once is confirmed
                // without waiting for the frame that draws it.
                let (clicked, shown) = match self.composer.sent_in_put.take() {
                    Some(sent) => {
                        tracing::info!("send clicked in the insertion's call");
                        sent
                    }
                    None => self.api().click_send(begin, users)?,
                };
                if matches!(shown, Some(ShownTurn::Same(_))) {
                    return Ok(Shown::Same);
                }
                clicked
            } else {
                // The retry is a real mouse click, for handlers that ignore scripted ones.
                self.api().begin_exchange(begin)?;
                let page = self.api();
                page.click_trusted("SendButton")? || page.click("SendButton")?
            };
            if !clicked {
                return Err(self.discovery.selector_not_found("SendButton", ""));
            }
            let page = self.api();
            let mut shown = self
                .composer
                .confirmed(&page, message, users, SEND_CONFIRM)?;
            if shown.is_none() && page.composer()?.is_some_and(|text| text.is_empty()) {
                // The site emptied the composer: it took the message, and its turn is late,
                // not lost.
                shown = self.composer.confirmed(&page, message, users, LATE_TURN)?;
                // Unless the site refused it: the request that carried it was answered with a
                // refusal's status, or the page names trouble (a 503 whose toast gives the text
                // back to the composer): then nothing went, and that is named below.
                let refused = shown.is_none()
                    && (self.refused_by_status(&PageState::default()).is_some()
                        || self.state().is_ok_and(|state| {
                            state
                                .trouble(
                                    self.reader.assistants_before_send,
                                    false,
                                    &self.extra(),
                                    clock_now(),
                                )
                                .is_some()
                        }));
                if shown.is_none() && !refused {
                    // Still no turn the selectors find (they name another turn, or none):
                    // the message went all the same, and sending it again would make the
                    // model answer twice. It counts as sent; judged after the send as a turn
                    // drawn otherwise.
                    return Ok(Shown::Different);
                }
            }
            match shown {
                Some(shown @ (Shown::Same | Shown::Shortened)) => return Ok(shown),
                // A new turn is there: the message went, and sending it again would make the
                // model answer twice. How it is drawn is judged after the send.
                Some(Shown::Different) => return Ok(Shown::Different),
                None => {}
            }
            if let Some(offline) = self.tab.offline_failure() {
                return Err(offline);
            }
            // The site refused the message, in words on the page or by the status of the
            // request that carried it: it is not sent again into a refusing chat here; the turn
            // names it (a site error is tried again there, once the chat is asked whether it
            // holds the message).
            {
                let state = self.state()?;
                let clock = clock_now();
                let refusal = state
                    .trouble(
                        self.reader.assistants_before_send,
                        false,
                        &self.extra(),
                        clock,
                    )
                    .map(|seen| seen.notice)
                    .or_else(|| self.refused_by_status(&state));
                if let Some(notice) = refusal {
                    return Err(self.sent_into(&notice, clock));
                }
            }
        }
        Err(Failure::new(
            Code::SendNotConfirmed,
            "the message did not appear in the chat as a new user turn, after one retry; check the page, then send again",
        ))
    }

    /// A reply still streaming when a message is about to go (its wait was stopped with Ctrl+C,
    /// and the user gave the next task) is stopped, as a person clicks the stop control: a chat
    /// takes no message while it streams, and that reply was given up.
    fn stop_leftover_reply(&mut self) -> Result<(), Failure> {
        if std::mem::take(&mut self.composer.reply_read) || !self.state()?.streams() {
            return Ok(());
        }
        tracing::info!("stopping a reply that still streams before sending");
        self.api().click("StopButton")?;
        let started = Instant::now();
        while started.elapsed() < STOP_WAIT && self.state()?.streams() {
            self.tab.next_change(POLL);
        }
        // Still streaming: the send that follows says what the page did.
        Ok(())
    }

    /// The page as it stands shows `message` as its last user turn and the site's error in
    /// the reply's place with a Retry control: the control is clicked and the reply waited
    /// for in that place (`Retried`). `None` when there is no such error, or the click
    /// changed nothing on the page (the message then goes again).
    fn retried(&mut self, message: &str) -> Result<Option<Reopened>, Failure> {
        let Ok(state) = self.state() else {
            return Ok(None);
        };
        if !state.reply_retry {
            return Ok(None);
        }
        let last_user = self.api().last_user_text()?.unwrap_or_default();
        if !carries(&last_user, message) || !self.api().retry()? {
            return Ok(None);
        }
        tracing::info!("the site's error in the reply's place: asked to answer again (Retry)");
        // The error goes (the turn answers again, or a new turn follows it).
        let started = Instant::now();
        while started.elapsed() < RETRY_TAKEN {
            let now = self.state()?;
            if !now.reply_retry || now.assistants != state.assistants {
                // The reply comes in the error's place or after it.
                self.reader.assistants_before_send = state.assistants.saturating_sub(1);
                self.composer.reply_read = false;
                return Ok(Some(Reopened::Retried));
            }
            self.tab.next_change(POLL);
        }
        Ok(None)
    }

    /// Opens a saved chat and finds where it stands with the pending message.
    pub(super) fn reopen_chat(
        &mut self,
        url: &str,
        pending: Option<&str>,
    ) -> Result<Reopened, Failure> {
        self.composer.reply_read = false;
        self.composer.after_send = None;
        self.tab.navigate(url, "reopen the chat", Opened::Before)?;
        self.wait_ready()?;
        // Real sites draw an old conversation after the composer: wait until it shows messages
        // and stops growing, or until the site's wait says the chat is gone.
        let history_wait = Duration::from_millis(
            self.discovery
                .site
                .history_wait_ms
                .unwrap_or(DEFAULT_HISTORY_WAIT_MS),
        );
        let started = Instant::now();
        let mut last = (usize::MAX, usize::MAX);
        let mut stable_since = Instant::now();
        let state = loop {
            let state = self.state()?;
            let now = (state.users, state.assistants);
            let drawn = now != (0, 0) || started.elapsed() >= history_wait;
            if now != last {
                last = now;
                stable_since = Instant::now();
            } else if (drawn && stable_since.elapsed() >= REOPEN_SETTLE)
                || started.elapsed() >= PAGE_READY
            {
                break state;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let Some(pending) = pending else {
            return Ok(if state.users == 0 && state.assistants == 0 {
                Reopened::Empty
            } else {
                Reopened::Unsent
            });
        };
        if state.users == 0 && state.assistants == 0 {
            // No turn shows by the selectors (a first exchange that never finished is all
            // keyless saw of a page it learns as it goes): the message is looked for by its
            // words, and the reply after it.
            if !self.api().reopen_exchange(pending)? {
                // The message is not there, but the chat is when a reply's copy control shows
                // (a message stopped before it went, a limit's banner on the page): it goes
                // into this chat, never a new one.
                return Ok(if self.api().exists("CopyButton")? {
                    Reopened::Unsent
                } else {
                    Reopened::Empty
                });
            }
            let state = self.state()?;
            return self.stands(&state, pending);
        }
        self.stands(&state, pending)
    }

    /// Where the chat stands with `pending`, the page looked at as `state`: its last user turn
    /// carries it and a reply (no notice) follows, or not.
    fn stands(&mut self, state: &PageState, pending: &str) -> Result<Reopened, Failure> {
        let last_user = self.api().last_user_text()?.unwrap_or_default();
        let mut carried = carries(&last_user, pending);
        // The newest user turn by the selectors does not carry it: the message is looked for
        // by its words before it is called unsent (a selector that also matches a reply's
        // toolbar, say, takes the toolbar for the newest user turn), so what the chat holds is
        // never sent twice.
        if !carried && self.api().reopen_exchange(pending)? {
            let found = self.api().last_user_text()?.unwrap_or_default();
            carried = carries(&found, pending);
        }
        // A refusal after it (too long, a message limit) is no reply: the message goes again.
        let refused = state.too_long
            || state
                .trouble(
                    state.assistants.saturating_sub(1),
                    true,
                    &self.extra(),
                    clock_now(),
                )
                .is_some();
        if carried && !refused && self.api().reply_follows()? {
            // The reply on the page is the one to wait for and read.
            self.reader.assistants_before_send = state.assistants.saturating_sub(1);
            return Ok(Reopened::Answered);
        }
        self.reader.assistants_before_send = state.assistants;
        Ok(Reopened::Unsent)
    }
}

impl ChatDriver for CdpDriver {
    fn take_warnings(&mut self) -> Vec<Failure> {
        let mut taken = self.discovery.take_findings();
        taken.append(&mut self.warnings);
        taken
    }

    fn new_chat(&mut self) -> Result<(), Failure> {
        self.composer.reply_read = false;
        self.composer.after_send = None;
        // A site keyless knows opens a new chat at its address. On a page found by discovery
        // the address given may be a conversation's own: its "new chat" control, found by its
        // shape, is surer; the address when there is none.
        let by_control = !self.discovery.knows("NewChat") && self.api().new_chat().unwrap_or(false);
        if by_control {
            // The conversation goes from the page (a new page, or the same one emptied).
            let started = Instant::now();
            while started.elapsed() < PAGE_READY {
                // A control that navigates takes the page's context away for a moment.
                match self.state() {
                    Ok(state) if state.users == 0 && state.assistants == 0 => break,
                    Err(failure) if !self.tab.alive() => return Err(failure),
                    _ => {}
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        } else {
            let url = self.tab.reach.url.clone();
            self.tab.navigate(&url, "open a new chat", Opened::Before)?;
        }
        self.reader.assistants_before_send = 0;
        self.controls.settled = false;
        self.wait_ready()
    }

    fn site(&self) -> String {
        self.discovery.site_name.clone()
    }

    fn lost(&mut self) -> Option<Failure> {
        self.tab.lost()
    }

    fn chat_url(&mut self) -> Option<String> {
        // The history entry that showed the last reply is still the one shown, at the same
        // address: the chat is there, and a wall the page swapped in on that entry (no
        // navigation) stands in the chat's place. Asked of the browser, not the page: no look
        // at the page, nothing waits for its drawing.
        if let (Ok((entry, here)), Some((chat_entry, chat_url))) =
            (self.tab.shown_entry(), &self.composer.chat_entry)
            && entry == *chat_entry
            && &here == chat_url
        {
            return Some(here);
        }
        // A wall's address (a login page, a bot check) is never the chat's: after the person
        // passed it, the chat is found where the message went.
        let state = self.state().ok()?;
        let wall = state
            .trouble(usize::MAX, false, &self.extra(), clock_now())
            .map(|seen| seen.notice.kind)
            .filter(|kind| matches!(kind, Kind::LoginWall | Kind::BotCheck));
        let shown = match wall {
            None => self.api().location().ok(),
            // A bot check stands in front of the address asked for (the chat's, on a reload):
            // that address, as the browser shows it, without the check's own parameters.
            // So does a sign-in page the site shows at the chat's own address (a reload into an
            // expired session): an address that is no wall's own is the chat's.
            Some(_) => self
                .tab
                .shown()
                .ok()
                .map(|(url, _)| without_check_parameters(&url)),
        };
        // The browser's own error page (a reload that found the site unreachable) shows its
        // own address; the tab's history entry keeps the chat's.
        let shown = shown.and_then(|url| {
            if browser_own(&url) {
                self.tab.shown().ok().map(|(url, _)| url)
            } else {
                Some(url)
            }
        });
        if let Some(url) = shown.filter(|url| !wall_address(url) && !browser_own(url)) {
            return Some(url);
        }
        // A wall the page went to (a login address, a check at an address of its own) stands
        // after the chat in the tab's history: the newest address on the site before it that
        // is not a wall's. A wall shown at the chat's own address leaves none.
        let (current, urls) = self.tab.history().ok()?;
        let here = urls.get(current)?;
        let site = crate::chat::selectors::host(here);
        urls.get(..current)?
            .iter()
            .rev()
            .find(|url| {
                url != &here
                    && crate::chat::selectors::host(url) == site
                    && !wall_address(url)
                    && !browser_own(url)
            })
            .cloned()
    }

    fn holds(&mut self, message: &str) -> Result<Reopened, Failure> {
        // A limit or a wall the page shows now (a toast that came seconds after the cut, while
        // keyless waited): named before the chat is opened again, which would wipe it and send
        // the message into the refusal once more.
        // Only where the wait did not end in the site's words already (those, met again after
        // a limit's wait, are stale: the chat opened again shows whether they still hold).
        if !self.reader.site_said.get() {
            let state = self.state()?;
            let clock = clock_now();
            if let Some(seen) = state
                .trouble(
                    self.reader.assistants_before_send,
                    false,
                    &self.extra(),
                    clock,
                )
                .filter(|seen| seen.notice.kind != Kind::ServerError)
            {
                self.reader.site_said.set(true);
                return Err(self.sent_into(&seen.notice, clock));
            }
        }
        // The site's error in the reply's place, with a Retry control, after this message: the
        // site is asked to answer it again, as a person does, never sent it twice.
        if let Some(retried) = self.retried(message)? {
            return Ok(retried);
        }
        // The chat opened again at its own address, as `--resume` does: after trouble the page
        // may show what the site does not keep (a stream cut off, an error in the reply's
        // place) and miss what it does (a reply it kept while the page was offline). The start
        // page is no chat's address (it opens a new one): there the page as it is is looked at.
        let start = self.tab.reach.url.clone();
        let address = self
            .chat_url()
            .filter(|url| url != &start)
            .or_else(|| self.composer.sent_at.clone().filter(|url| url != &start));
        if let Some(address) = address {
            let reopened = self.reopen_chat(&address, Some(message));
            return self.sketched(reopened);
        }
        let state = self.state()?;
        if state.users == 0 {
            // No message of this tab ever went (the first one was stopped before it did): the
            // start page is opened again, so that a notice it showed (a limit's banner) is the
            // site's word now, not before a wait. Never once one went: a single-page chat keeps
            // its conversation only until it is reloaded.
            if self.composer.sent_at.is_none() {
                self.tab
                    .navigate(&start, "open the chat page again", Opened::Before)?;
                self.wait_ready()?;
            }
            return Ok(Reopened::Unsent);
        }
        let stands = self.stands(&state, message);
        self.sketched(stands)
    }

    fn reopen(&mut self, url: &str, pending: Option<&str>) -> Result<Reopened, Failure> {
        // Another chat's page: set and read back again before the next message.
        self.controls.settled = false;
        let reopened = self.reopen_chat(url, pending);
        self.sketched(reopened)
    }

    fn find_chat(&mut self, pending: &str) -> Result<Option<String>, Failure> {
        // The browser's other tabs on this site: the one keyless was in when it stopped.
        let origin = crate::chat::selectors::host(&self.tab.reach.url).to_string();
        for (page, url) in self.tab.other_tabs()? {
            if crate::chat::selectors::host(&url) != origin {
                continue;
            }
            // The helper is not in a tab keyless did not open: the check goes as it is. A tab
            // that closed meanwhile holds nothing.
            match self.api().tab_holds(&page, pending) {
                Ok(true) => return Ok(Some(url)),
                Err(failure) if !self.tab.alive() => return Err(failure),
                _ => {}
            }
        }
        // The site's history list, newest first: the first chat that holds the message.
        let start = self.tab.reach.url.clone();
        let _ = self.reopen_chat(&start, None)?;
        let links = self.api().history_links()?;
        for link in links.into_iter().take(HISTORY_LOOKS) {
            let _ = self.reopen_chat(&link, None)?;
            if self.api().shows_message(pending)? {
                return Ok(Some(link));
            }
        }
        Ok(None)
    }

    fn takes_files(&mut self) -> Result<crate::chat::attach::PageTakes, Failure> {
        CdpDriver::takes_files(self)
    }

    fn attach_next(&mut self, files: Vec<crate::chat::attach::Upload>) -> Result<(), Failure> {
        self.composer.files = files;
        Ok(())
    }

    fn send(&mut self, message: &str) -> Result<(), Failure> {
        // The page as the person asked (again after a navigation), its model unchanged.
        let checked = self.check_controls();
        self.sketched(checked)?;
        // Over the site's composer limit the message goes as a file.
        let how = if self
            .discovery
            .site
            .composer_limit
            .is_some_and(|limit| message.chars().count() > limit)
        {
            SendAs::File
        } else {
            SendAs::Text
        };
        let fenced;
        let text = if how == SendAs::Text && self.composer.delivery != Delivery::Plain {
            fenced = fence(message);
            fenced.as_str()
        } else {
            message
        };
        let sent = self.send_as(text, how);
        if sent.is_err() {
            self.keep_learned_now();
        }
        if sent.is_ok() {
            // The person's files went with this message: a later one goes without them.
            self.composer.files.clear();
            // A shortened turn shows too little to judge; a file's turn shows its note.
            self.composer.after_send =
                Some(matches!(sent, Ok(Shown::Same | Shown::Different)) && how == SendAs::Text);
        }
        self.sketched(sent.map(|_| ()))
    }

    fn wait_reply(&mut self, progress: &mut dyn FnMut(usize)) -> Result<Reply, Failure> {
        self.after_send();
        // What an earlier read saw of its model is no word on this reply's.
        let _ = self.reader.looked_model();
        let mut reply = self.wait_for_reply(progress);
        self.reader
            .site_said
            .set(matches!(&reply, Err(failure) if failure.said.is_some()));
        self.keep_learned_now();
        if let Ok(read) = &mut reply {
            // The conversation's address once its reply is there (a site gives a new chat its
            // own address only after the first send): a wall swapped in there later stands in
            // the chat's place.
            if let Ok((entry, here)) = self.tab.shown_entry()
                && !here.is_empty()
            {
                self.composer.chat_entry = Some((entry, here));
            }
            self.composer.reply_read = true;
            self.reader.unknown_beside_cut.set(false);
            match self.answered_by() {
                Ok(model) => {
                    read.model = model;
                    read.effort = self.controls.confirmed.effort.clone();
                }
                Err(failure) => reply = Err(failure),
            }
        }
        self.sketched(reply)
    }
}

/// Whether a user turn that reads `shown` carries `message`: as text, inside a fence (a page
/// that alters messages), or as a file with its note (over the composer limit, or refused as
/// too long; the note names a file unique to the message). Asked before a Retry is clicked and
/// when a chat is reopened, alike.
fn carries(shown: &str, message: &str) -> bool {
    shown_as(shown, message) != Shown::Different
        || shown_as(shown, &fence(message)) == Shown::Same
        || shown_as(shown, &attachment_note(message)) == Shown::Same
        || shown_with_files(shown, message)
}

#[cfg(test)]
mod tests {
    use super::{attachment_note, carries, fence, wall_address};
    use crate::protocol::is_closed;

    /// A Retry is clicked for a message the chat holds in any form it can take, and only then:
    /// a message that went as a file is carried by its note as much as a text is by itself.
    #[test]
    fn a_user_turn_carries_its_message_as_text_fenced_or_as_a_file_s_note() {
        let message = "Fix the failing test in src/lib.rs\n\n  and keep the\ttabs\n";
        assert!(carries(message, message));
        assert!(carries(&fence(message), message));
        assert!(carries(&attachment_note(message), message));
        assert!(!carries(&attachment_note("another message"), message));
        assert!(!carries("Fix the failing test", message));
    }

    /// A wall's address by its path, its host, or a parameter that sends the person back to a
    /// page of the site (an outside attack's Dutch sign-in page at `/account/enter?back=…`,
    /// saved as the chat's before); a chat's own address with a query is none.
    #[test]
    fn a_wall_s_address_is_known_by_its_path_host_or_the_page_it_sends_back_to() {
        for wall in [
            "https://chat.example/login?next=/c/1",
            "https://accounts.example.com/x",
            "http://127.0.0.1:8757/account/enter?back=%2Fs%2F9f73b66fef",
            "https://chat.example/welcome?return_to=https%3A%2F%2Fchat.example%2Fc%2F42",
        ] {
            assert!(wall_address(wall), "{wall}");
        }
        for chat in [
            "https://chat.example/c/42",
            "https://chat.example/c/42?model=gpt-5&temporary=true",
            "https://chat.example/app?ref=https%3A%2F%2Felsewhere.example%2F",
        ] {
            assert!(!wall_address(chat), "{chat}");
        }
    }

    #[test]
    fn a_reply_is_closed_by_an_eof_line_outside_every_section() {
        assert!(is_closed("@@done\n@@end\n@@eof\n```"));
        assert!(is_closed("```\n@@next\n@@end\n@@eof\n```\nHope this helps"));
        assert!(!is_closed("text mentioning @@eof inline"));
        // A file about AgentScript, still streaming: its @@eof line is content.
        assert!(!is_closed(
            "@@newfile doc.md\n<<<CONTENT\nA reply ends with\n@@eof\n"
        ));
        assert!(is_closed(
            "@@newfile doc.md\n<<<CONTENT\nA reply ends with\n@@eof\nCONTENT>>>\n@@end\n@@eof\n"
        ));
    }
}
