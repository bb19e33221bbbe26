//! What the turn does after a failed send or wait: a new chat for a full one, the network's
//! waits, a site's trouble waited out (a site error's retries, a limit's reset with `--wait`)
//! or told as the turn's stop, and on a resume the limit that still holds. Before anything is
//! sent again the chat is asked whether it holds the message already (never sent twice).

use std::time::Duration;

use super::record::{self, InFlight, MessageKind};
use super::{Event, MAX_NEW_CHATS, Next, Stop, Turn, now_unix};
use crate::catalog::{Code, Failure};
use crate::chat::{ChatDriver, Reopened};
use crate::protocol::{Diagnostic, render::format_error};

/// Offline: the first wait before resending, doubled each time up to the cap.
const OFFLINE_FIRST_WAIT: Duration = Duration::from_secs(2);
pub(super) const OFFLINE_MAX_WAIT: Duration = Duration::from_secs(30);
/// Offline: how many times the same message is resent before the turn stops.
pub(super) const OFFLINE_TRIES: u32 = 8;
/// A site error in the reply's place: the waits before each new try (a site's hiccup lasts
/// seconds; one that lasts longer stops the turn resumable).
const SITE_ERROR_WAITS: [Duration; 2] = [Duration::from_secs(5), Duration::from_secs(20)];
/// The longest a server's Retry-After holds a retry of a site error back (a countdown shown).
const RETRY_AFTER_MOST: Duration = Duration::from_secs(120);
/// A throttle that gives no time: how long `--wait` waits before trying again.
const THROTTLE_WAIT: Duration = Duration::from_secs(60);

/// What is waited beyond a limit's reset (`resets_at`, seconds since the epoch) as the site
/// gave it: a reset said as a clock time is said to the minute, rounded down (a reset at
/// 5:08:24 shows "5:08"), so the limit holds until that minute is over; one said as a wait
/// ("in 20 seconds") falls on no minute's start and is waited out with a moment to spare.
fn reset_margin(resets_at: u64) -> Duration {
    if resets_at.is_multiple_of(60) {
        Duration::from_secs(60)
    } else {
        MOMENT_TO_SPARE
    }
}
/// What is waited beyond a reset said to no minute.
const MOMENT_TO_SPARE: Duration = Duration::from_secs(2);
/// How many limits one run of a turn waits out before it stops (a site that keeps refusing).
const LIMIT_WAITS: u32 = 6;
/// How often a wait tells its countdown.
const COUNTDOWN_EVERY: Duration = Duration::from_secs(10);
/// The wait's step: Ctrl+C is heard within it.
const WAIT_STEP: Duration = Duration::from_secs(1);

/// How often a wait for the site asks whether the chat's page still stands.
const LOST_EVERY: Duration = Duration::from_secs(5);

/// How a wait for the site ended.
enum Waited {
    /// Its time passed.
    Out,
    /// Ctrl+C stopped it.
    Cancelled,
    /// The chat's page was lost meanwhile (its tab closed, its browser gone).
    Lost(Failure),
}

/// The codes of a chat site's trouble: its words quoted, the turn left resumable, and never a
/// format correction sent for them.
fn is_trouble(code: Code) -> bool {
    matches!(
        code,
        Code::RateLimited
            | Code::UsageLimit
            | Code::SpendLimit
            | Code::SiteError
            | Code::SiteNotice
            | Code::LoginRequired
            | Code::BotCheck
            | Code::ReplyStalled
    )
}

impl Turn<'_> {
    /// What to do after a failed send or wait: the next step, or the stop.
    pub(super) fn recover(
        &mut self,
        failure: Failure,
        driver: &mut dyn ChatDriver,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<Next, Stop> {
        let (due, kind) = match &self.session.in_flight {
            InFlight::Sending { message, kind } => (message.clone(), *kind),
            _ => (String::new(), MessageKind::Message),
        };
        // The chat's address asked again now: a new chat may get it only once its reply
        // begins (after the send returned), and a wall the page went to within moments of the
        // send hid it then. A stop keeps it for `--resume`; a wall's address is never taken.
        if let Some(url) = driver.chat_url()
            && self.session.chat_url.as_deref() != Some(url.as_str())
        {
            self.session.chat_url = Some(url);
            self.recorder.session(&self.session);
        }
        match failure.code {
            // The chat is full: a new chat gets the rules, what was done, and the message due.
            Code::ChatExhausted if self.new_chats < MAX_NEW_CHATS => {
                self.new_chats += 1;
                self.recorder
                    .entry("new_chat", serde_json::json!({ "reason": failure.reason }));
                on_event(Event::NewChat);
                driver.new_chat().map_err(Stop::Chat)?;
                self.fresh_chat = true;
                Ok(Next::Send {
                    message: due,
                    kind: MessageKind::Continuation,
                })
            }
            // Offline: nothing reached the model; wait, then resend the same message (unless
            // the chat shows it had it, and its reply).
            Code::NetworkOffline if self.offline_tries < OFFLINE_TRIES => {
                self.offline_wait(on_event);
                self.again_when_reachable(due, kind, driver, on_event)
            }
            code if is_trouble(code) => {
                self.session.trouble = Some(record::Trouble {
                    code: code.code().to_string(),
                    words: failure
                        .said
                        .as_ref()
                        .map_or_else(|| failure.reason.clone(), |s| s.words.clone()),
                    at: now_unix(),
                    resets_at: failure.said.as_ref().and_then(|s| s.resets_at),
                });
                // Kept at once: a wait that follows may end in a second Ctrl+C or a kill, and
                // the resume must still know the limit.
                self.recorder.session(&self.session);
                self.recorder.entry(
                    "trouble",
                    serde_json::json!({ "code": code, "reason": failure.reason }),
                );
                let resets_at = failure.said.as_ref().and_then(|s| s.resets_at);
                let wait = match code {
                    // A site's hiccup: tried again a few times, seconds apart.
                    // A server's Retry-After is waited out before the first try, never less.
                    Code::SiteError if self.site_errors < SITE_ERROR_WAITS.len() => {
                        self.site_errors += 1;
                        let asked = resets_at.map_or(Duration::ZERO, |at| {
                            Duration::from_secs(at.saturating_sub(now_unix()))
                        });
                        Some(
                            SITE_ERROR_WAITS[self.site_errors - 1].max(asked.min(RETRY_AFTER_MOST)),
                        )
                    }
                    // A limit, waited out only when the person asked.
                    Code::RateLimited | Code::UsageLimit
                        if self.settings.wait_on_limits && self.limit_waits < LIMIT_WAITS =>
                    {
                        match (resets_at, code) {
                            (Some(at), _) => Some(
                                Duration::from_secs(at.saturating_sub(now_unix()))
                                    + reset_margin(at),
                            ),
                            (None, Code::RateLimited) => Some(THROTTLE_WAIT),
                            // A plan's limit with no reset time: nothing to wait for.
                            (None, _) => None,
                        }
                    }
                    _ => None,
                };
                let Some(wait) = wait else {
                    return Err(Stop::Chat(failure));
                };
                // Told here only when waited out: a stop tells it as the turn's end.
                on_event(Event::Trouble(&failure));
                if code != Code::SiteError {
                    self.limit_waits += 1;
                }
                match self.wait_out(code, wait, driver, on_event) {
                    Waited::Out => {}
                    Waited::Cancelled => {
                        return Err(Stop::Chat(Failure::new(
                            Code::Cancelled,
                            format!(
                                "stopped while waiting for the site ({}); nothing was lost: run `keyless run --resume` to go on",
                                failure.reason
                            ),
                        )));
                    }
                    Waited::Lost(lost) => return Err(Stop::Chat(lost)),
                }
                self.again_when_reachable(due, kind, driver, on_event)
            }
            // A reply cut off before @@eof is asked for again in smaller pieces, as a retry.
            Code::ReplyTruncated => {
                self.recorder
                    .entry("truncated", serde_json::json!({ "reason": failure.reason }));
                self.retries += 1;
                let retry_limit = self.settings.limits.max_format_retries;
                if self.retries > retry_limit {
                    return Err(Stop::FormatRetries {
                        last_reply: failure.reason,
                    });
                }
                on_event(Event::Rejected {
                    problems: 1,
                    retries_left: retry_limit + 1 - self.retries,
                });
                let cut = Diagnostic {
                    code: Code::ReplyTruncated,
                    line: None,
                    message: "Your response stopped before @@eof (it looks cut off).".to_string(),
                };
                Ok(Next::Send {
                    message: format_error(&[cut], true),
                    kind: MessageKind::FormatCorrection,
                })
            }
            _ => Err(Stop::Chat(failure)),
        }
    }

    /// One of the waits for the network (longer each time), told and logged.
    fn offline_wait(&mut self, on_event: &mut dyn FnMut(Event)) {
        self.offline_tries += 1;
        let wait = (OFFLINE_FIRST_WAIT * 2u32.pow(self.offline_tries - 1)).min(OFFLINE_MAX_WAIT);
        self.recorder.entry(
            "offline",
            serde_json::json!({ "attempt": self.offline_tries, "wait_s": wait.as_secs() }),
        );
        on_event(Event::Offline {
            attempt: self.offline_tries,
            wait,
        });
        (self.sleep)(wait);
    }

    /// [`Turn::again`], asked again after each wait for the network while the chat cannot be
    /// reached to ask (nothing is sent before it answers), until the waits run out.
    fn again_when_reachable(
        &mut self,
        due: String,
        kind: MessageKind,
        driver: &mut dyn ChatDriver,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<Next, Stop> {
        loop {
            match self.again(due.clone(), kind, driver) {
                Err(Stop::Chat(failure))
                    if failure.code == Code::NetworkOffline
                        && self.offline_tries < OFFLINE_TRIES =>
                {
                    self.offline_wait(on_event);
                }
                // The page named a limit or a wall as the chat was to be asked (a toast that
                // came during the wait): that trouble, waited out or told as the stop.
                Err(Stop::Chat(failure)) if is_trouble(failure.code) && failure.said.is_some() => {
                    return self.recover(failure, driver, on_event);
                }
                next => return next,
            }
        }
    }

    /// What to do with the message due after a failure: wait for its reply when the chat shows
    /// it had it and answered (never sent twice), else send it again.
    fn again(
        &mut self,
        due: String,
        kind: MessageKind,
        driver: &mut dyn ChatDriver,
    ) -> Result<Next, Stop> {
        match driver.holds(&due) {
            Ok(Reopened::Answered) => {
                self.recorder
                    .entry("held", serde_json::json!({ "what": kind.name() }));
                Ok(Next::Wait)
            }
            Ok(Reopened::Retried) => {
                self.recorder
                    .entry("retried", serde_json::json!({ "what": kind.name() }));
                Ok(Next::Wait)
            }
            Ok(_) => Ok(Next::Send { message: due, kind }),
            // The chat could not be opened to ask (its page does not load, or cannot be
            // reached): nothing is sent blind into a page that is not the chat; the turn
            // stops resumable (after the waits for the network, when it was that).
            // The site's trouble the page shows now: told as it is.
            Err(failure) if is_trouble(failure.code) && failure.said.is_some() => {
                Err(Stop::Chat(failure))
            }
            Err(failure) => {
                let mut stop = Failure::new(
                    failure.code,
                    format!(
                        "the chat could not be opened again to ask whether it holds the message ({}). Nothing was sent again and nothing was lost: once the chat loads, run `keyless run --resume` (it asks the chat first)",
                        failure.reason
                    ),
                );
                stop.said = failure.said;
                Err(Stop::Chat(stop))
            }
        }
    }

    /// A limit the site named when the turn stopped, not yet reset, on a resume: nothing is
    /// sent into the chat before it resets. With `--wait` it is waited out here (the countdown
    /// shown); without, the resume stops at once, saying when and how to go on; with `--now`
    /// (the person knows the limit is lifted: a plan changed) the resume goes on. `None` when
    /// nothing holds the turn back.
    pub(super) fn limit_in_force(
        &mut self,
        driver: &mut dyn ChatDriver,
        on_event: &mut dyn FnMut(Event),
    ) -> Option<Stop> {
        if self.settings.limit_lifted {
            return None;
        }
        let trouble = self.session.trouble.clone()?;
        let code = Code::from_code(&trouble.code)
            .filter(|c| matches!(c, Code::RateLimited | Code::UsageLimit))?;
        // With `--wait`, a throttle that gave no time is waited out as the live turn waits it,
        // from when it was met (a resume at once sent into the refusing chat); without, the
        // person who resumes says the time has come.
        let said_by_site = trouble.resets_at.is_some();
        let (resets_at, margin) = match trouble.resets_at {
            Some(at) => (at, reset_margin(at)),
            // Keyless's own reckoning, said to no minute: only the moment to spare.
            None if code == Code::RateLimited && self.settings.wait_on_limits => {
                (trouble.at + THROTTLE_WAIT.as_secs(), MOMENT_TO_SPARE)
            }
            None => return None,
        };
        let left = Duration::from_secs(resets_at.checked_sub(now_unix())?);
        if left.is_zero() {
            return None;
        }
        let left = left + margin;
        if !self.settings.wait_on_limits {
            return Some(Stop::Chat(
                Failure::new(
                    code,
                    format!(
                        "the site's limit (\"{}\") resets in {}; nothing is sent into the chat before then. Run `keyless run --resume --wait` to wait for it and go on by itself, or `keyless run --resume --now` if the limit is lifted already (a plan changed).",
                        trouble.words,
                        crate::chat::trouble::span(left)
                    ),
                )
                .saying(crate::catalog::SiteSaid {
                    words: trouble.words.clone(),
                    resets_at: Some(resets_at),
                }),
            ));
        }
        // Told as the live turn tells it before its countdown: the site's words and reset.
        let told = Failure::new(
            code,
            if said_by_site {
                format!(
                    "the site's limit (\"{}\") resets in {}; waiting for it before anything is sent",
                    trouble.words,
                    crate::chat::trouble::span(left)
                )
            } else {
                format!(
                    "the site throttled (\"{}\") and gave no time; waiting {} before anything is sent",
                    trouble.words,
                    crate::chat::trouble::span(left)
                )
            },
        )
        .saying(crate::catalog::SiteSaid {
            words: trouble.words.clone(),
            // Only what the site said: keyless's own reckoning is no reset of its.
            resets_at: trouble.resets_at,
        });
        on_event(Event::Trouble(&told));
        match self.wait_out(code, left, driver, on_event) {
            Waited::Out => None,
            Waited::Cancelled => Some(Stop::Chat(Failure::new(
                Code::Cancelled,
                "stopped while waiting for the site's limit to reset; nothing was lost: run `keyless run --resume` to go on",
            ))),
            Waited::Lost(lost) => Some(Stop::Chat(lost)),
        }
    }

    /// A tab closed, a browser gone or the network lost for good mid-turn is the turn's last
    /// trouble for `keyless status` (in keyless's words: the site said nothing), unless a limit
    /// named before it still holds: that one is what a resume must wait for.
    pub(super) fn keep_lost_connection(&mut self, failure: &Failure) {
        if !matches!(
            failure.code,
            Code::BrowserConnectionFailed | Code::NetworkOffline
        ) {
            return;
        }
        let now = now_unix();
        if !self
            .session
            .trouble
            .as_ref()
            .is_some_and(|t| t.limit_ahead(now))
        {
            // The reason's first clause: what happened, without the advice a stop gives.
            let what = failure.reason.split(';').next().unwrap_or_default();
            self.session.trouble = Some(record::Trouble {
                code: failure.code.code().to_string(),
                words: what.to_string(),
                at: now,
                resets_at: None,
            });
        }
    }

    /// Waits `wait`, telling the countdown and asking every [`LOST_EVERY`] whether the chat's
    /// page still stands (a tab the person closed is told at once, not when the wait ends).
    fn wait_out(
        &mut self,
        code: Code,
        wait: Duration,
        driver: &mut dyn ChatDriver,
        on_event: &mut dyn FnMut(Event),
    ) -> Waited {
        let mut left = wait;
        let mut told = None::<Duration>;
        let mut asked = Duration::ZERO;
        loop {
            if crate::cancel::requested() {
                return Waited::Cancelled;
            }
            if told.is_none_or(|t| t.saturating_sub(left) >= COUNTDOWN_EVERY) {
                told = Some(left);
                on_event(Event::Waiting { code, left });
            }
            if left.is_zero() {
                return Waited::Out;
            }
            if wait.saturating_sub(left) >= asked + LOST_EVERY {
                asked = wait.saturating_sub(left);
                if let Some(lost) = driver.lost() {
                    return Waited::Lost(lost);
                }
            }
            let step = left.min(WAIT_STEP);
            (self.sleep)(step);
            left -= step;
        }
    }
}
