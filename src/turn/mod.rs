//! The turn loop: send → wait → parse → (format error | execute → results) → … until `@@done`,
//! the format-retry limit, the iteration limit, or a chat failure.
//!
//! Architecture Invariant: the loop talks to a [`ChatDriver`], never to CDP directly, and to the
//! outside world through the batch [`Host`].

mod carry;
pub mod prompt;
pub mod record;
mod resume;

pub use resume::resume;

use record::{InFlight, MessageKind, Recorder, Session};

use std::time::Duration;

use crate::batch::{self, Host, Settings};
use crate::catalog::{Code, Failure};
use crate::chat::{Channel, ChatDriver, Reopened, Reply};
use crate::config::Pace;
use crate::protocol::{Diagnostic, parse, render::format_error};
use crate::workspace::Workspace;

/// Step pace raises the iteration limit to at least this.
const STEP_MIN_ITERATIONS: usize = 60;
/// How many times one turn may move to a new chat.
const MAX_NEW_CHATS: u32 = 3;
/// Commands listed in a new chat's summary (the latest ones).
const SUMMARY_COMMANDS: usize = 60;
/// Offline: the first wait before resending, doubled each time up to the cap.
const OFFLINE_FIRST_WAIT: Duration = Duration::from_secs(2);
const OFFLINE_MAX_WAIT: Duration = Duration::from_secs(30);
/// Offline: how many times the same message is resent before the turn stops.
const OFFLINE_TRIES: u32 = 8;
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

/// What the loop tells whoever watches it.
#[derive(Debug)]
pub enum Event<'a> {
    /// A saved turn is picked up again; `reopened` says where its chat stood.
    Resumed {
        reopened: Reopened,
    },
    /// The chat reached its length limit: a new chat continues the turn.
    NewChat,
    /// A problem that did not stop the turn.
    Warning(Failure),
    /// The machine is offline: the same message is resent after `wait`.
    Offline {
        attempt: u32,
        wait: Duration,
    },
    /// The chat site's trouble (a limit, an error, a wall, a stall), named with its words.
    Trouble(&'a Failure),
    /// Waiting out a limit or a site error: `left` until keyless goes on by itself (told at
    /// the start and every few seconds).
    Waiting {
        code: Code,
        left: Duration,
    },
    Sending {
        chars: usize,
        kind: MessageKind,
        text: &'a str,
    },
    Receiving {
        chars: usize,
    },
    Received {
        chars: usize,
        channel: Channel,
        text: &'a str,
        /// The model the page says answered, and the effort keyless chose for it.
        model: Option<&'a str>,
        effort: Option<&'a str>,
    },
    Rejected {
        problems: usize,
        retries_left: usize,
    },
    /// The person's files are handed to the page (each is waited for by its chip) or written
    /// into the message, before it is sent.
    Attaching {
        files: &'a [crate::chat::attach::Sent],
    },
    /// A file of the person's went with the task's first message.
    AttachmentSent {
        file: &'a crate::chat::attach::Sent,
    },
    Executed {
        report: &'a batch::Report,
    },
    /// The turn ended (its stop reason is returned to the caller).
    Finished {
        summary: &'a Summary,
    },
}

/// Why a turn ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// The model finished with an honoured `@@done`.
    Done { message: Option<String> },
    /// Too many invalid replies in a row; the last raw reply is kept for the user.
    FormatRetries { last_reply: String },
    /// MaxIterationsPerTurn replies without `@@done`.
    Iterations { limit: usize },
    /// The chat failed (browser, page, network…).
    Chat(Failure),
}

/// A new turn's messages.
#[derive(Clone, Debug)]
pub struct Task {
    /// The task as the user gave it.
    pub task: String,
    /// The whole first message of a new chat: the rules, limits, snapshot and task.
    pub rules: String,
    /// What is sent now: `rules`, or a shorter follow-up in a chat that has them already.
    pub first: String,
    /// The turn's number in its chat (results say `turn=N`), from 1.
    pub turn: u64,
    /// The person's files for the first message (`--attach`, `/attach`): never anything the
    /// model named.
    pub attachments: Vec<crate::chat::attach::Attachment>,
}

impl From<&str> for Task {
    /// A task whose first message is the task itself (tests, benchmarks).
    fn from(task: &str) -> Task {
        Task {
            task: task.to_string(),
            rules: task.to_string(),
            first: task.to_string(),
            turn: 1,
            attachments: Vec::new(),
        }
    }
}

/// Runs one turn from its first message.
pub fn run(
    task: Task,
    driver: &mut dyn ChatDriver,
    ws: &Workspace,
    host: &mut dyn Host,
    settings: &Settings,
    on_event: &mut dyn FnMut(Event),
) -> Stop {
    let (turn, next) = Turn::first(task, driver, ws, settings);
    turn.drive(next, driver, host, on_event)
}

/// What the loop does next.
enum Next {
    /// Send this message, then wait for the reply.
    Send { message: String, kind: MessageKind },
    /// The message is in the chat already: wait for its reply.
    Wait,
    /// Carry out a reply that was received but never carried out, or the rest of one keyless
    /// was stopped in.
    Carry {
        reply: String,
        resumed: Option<carry::Resumed>,
    },
}

/// One turn's state; the session mirrors it on disk.
struct Turn<'w> {
    ws: &'w Workspace,
    settings: &'w Settings,
    recorder: Recorder<'w>,
    session: Session,
    /// The chat is new: the next message goes with the rules and a summary.
    fresh_chat: bool,
    new_chats: u32,
    retries: usize,
    /// The last reply could be read only as text rebuilt from the page (a correction asking for
    /// it fenced went): a second such read means the page offers no exact way to read one.
    not_exact_before: bool,
    offline_tries: u32,
    /// Site errors retried, and limits waited out, in this run of the turn.
    site_errors: usize,
    limit_waits: u32,
    /// What this run of the turn did, for the summary at the end.
    summary: Summary,
    /// How the offline backoff waits (`std::thread::sleep`; the unit tests only note the wait).
    sleep: fn(Duration),
    /// The person's files, until the task's first message takes them.
    attachments: Vec<crate::chat::attach::Attachment>,
}

/// What a turn did (in this run of keyless), shown when it ends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Batches carried out.
    pub batches: u64,
    /// Commands that ran and succeeded, and that ran and failed.
    pub ok: usize,
    pub failed: usize,
    /// Files and folders the file commands changed, in the order first changed.
    pub changed: Vec<String>,
    /// The person's done-check (`--until`), when it ran: its command line, how many times it
    /// ran, and whether it passed the last time.
    pub check: Option<CheckSummary>,
}

/// The done-check's part of a turn's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckSummary {
    pub command: String,
    pub runs: u32,
    pub passed: bool,
}

impl<'w> Turn<'w> {
    fn new(mut session: Session, ws: &'w Workspace, settings: &'w Settings) -> Turn<'w> {
        session.until = settings.until.clone();
        if settings.resume_command.is_some() {
            session.resume.clone_from(&settings.resume_command);
        }
        Turn {
            ws,
            settings,
            recorder: Recorder::new(ws).redacting(settings.redactor.clone()),
            session,
            fresh_chat: false,
            new_chats: 0,
            retries: 0,
            not_exact_before: false,
            offline_tries: 0,
            site_errors: 0,
            limit_waits: 0,
            summary: Summary::default(),
            sleep: std::thread::sleep,
            attachments: Vec::new(),
        }
    }

    /// A new turn from its first message, and what it does first: send it.
    fn first(
        task: Task,
        driver: &dyn ChatDriver,
        ws: &'w Workspace,
        settings: &'w Settings,
    ) -> (Turn<'w>, Next) {
        let session = Session {
            site: driver.site(),
            turn: task.turn.max(1),
            task: Some(task.task),
            rules: Some(task.rules),
            ..Session::default()
        };
        let next = Next::Send {
            message: task.first,
            kind: MessageKind::Task,
        };
        let mut turn = Turn::new(session, ws, settings);
        turn.attachments = task.attachments;
        (turn, next)
    }

    /// Ends the turn: the session says what is left to resume, the transcript why, and the
    /// watcher what was done.
    fn stop(mut self, stop: Stop, on_event: &mut dyn FnMut(Event)) -> Stop {
        match &stop {
            // Finished, or handed to the user: nothing to resume.
            Stop::Done { .. } | Stop::FormatRetries { .. } => {
                self.session.in_flight = InFlight::Idle;
            }
            // The unsent results (Iterations), or the message in flight (a chat failure,
            // Ctrl+C) stay pending: the next run resumes from them.
            Stop::Iterations { .. } | Stop::Chat(_) => {}
        }
        if let Stop::Chat(failure) = &stop {
            self.keep_lost_connection(failure);
        }
        self.recorder.session(&self.session);
        tracing::info!(?stop, "turn ended");
        self.recorder
            .entry("stop", serde_json::json!({ "reason": format!("{stop:?}") }));
        on_event(Event::Finished {
            summary: &self.summary,
        });
        stop
    }

    fn drive(
        self,
        next: Next,
        driver: &mut dyn ChatDriver,
        host: &mut dyn Host,
        on_event: &mut dyn FnMut(Event),
    ) -> Stop {
        let stop = self.carry_on(next, driver, host, on_event);
        // A world built ahead holds its placeholders in the workspace (an empty `keyless.json`
        // where there is none): nothing of it stays once the turn is over.
        host.runner().rest();
        stop
    }

    fn carry_on(
        mut self,
        mut next: Next,
        driver: &mut dyn ChatDriver,
        host: &mut dyn Host,
        on_event: &mut dyn FnMut(Event),
    ) -> Stop {
        let settings = self.settings;
        let limit = if settings.pace == Pace::Step {
            settings
                .limits
                .max_iterations_per_turn
                .max(STEP_MIN_ITERATIONS)
        } else {
            settings.limits.max_iterations_per_turn
        };
        let mut replies = 0;
        while replies < limit {
            let outcome = match next {
                Next::Carry { reply, resumed } => {
                    // A saved reply, numbered already. Only a reply that parsed is ever saved;
                    // a limit changed since could reject it now.
                    let parsed = parse(&reply, &settings.limits);
                    let carried = match parsed.script {
                        Some(script) => self.carry_out(&script, resumed, host, on_event),
                        None => Ok(format_error(&parsed.diagnostics, parsed.truncated)),
                    };
                    match carried {
                        Ok(message) => {
                            next = Next::Send {
                                message,
                                kind: MessageKind::Results,
                            };
                            continue;
                        }
                        Err(stop) => return self.stop(stop, on_event),
                    }
                }
                Next::Send { message, kind } => {
                    let message = if self.fresh_chat {
                        self.fresh_chat = false;
                        self.continuation(&message)
                    } else {
                        message
                    };
                    self.send(&message, kind, driver, on_event).and_then(|()| {
                        // The model answers now: the next command's world is built meanwhile
                        // (where it needs no placeholder: the person may commit meanwhile).
                        host.runner().prepare(settings.mode, false);
                        self.wait(driver, on_event)
                    })
                }
                Next::Wait => {
                    host.runner().prepare(settings.mode, false);
                    self.wait(driver, on_event)
                }
            };
            let reply = match outcome {
                Ok(reply) => reply,
                Err(failure) => match self.recover(failure, driver, on_event) {
                    Ok(again) => {
                        next = again;
                        continue;
                    }
                    Err(stop) => return self.stop(stop, on_event),
                },
            };
            replies += 1;
            self.offline_tries = 0;
            self.site_errors = 0;
            on_event(Event::Received {
                chars: reply.text.chars().count(),
                channel: reply.channel,
                text: &reply.text,
                model: reply.model.as_deref(),
                effort: reply.effort.as_deref(),
            });
            self.recorder.entry(
                "reply",
                serde_json::json!({ "channel": reply.channel, "text": reply.text, "model": reply.model, "effort": reply.effort }),
            );
            if reply.model.is_some() {
                self.session.model.clone_from(&reply.model);
                self.session.effort.clone_from(&reply.effort);
            }
            tracing::info!(chars = reply.text.chars().count(), channel = ?reply.channel, "reply received");
            let mut parsed = parse(&reply.text, &settings.limits);
            if reply.channel == Channel::Dom {
                // Text rebuilt from the page's prose cannot prove its bytes (emphasis markers
                // and indentation are gone): never executed, the model resends it fenced. A
                // resent reply read no better shows the page has no exact channel at all: the
                // turn stops there rather than spend the model's replies on corrections.
                if std::mem::replace(&mut self.not_exact_before, true) {
                    return self.stop(Stop::Chat(crate::chat::not_exact_page()), on_event);
                }
                parsed.script = None;
                parsed.diagnostics = vec![crate::protocol::render::not_exact(&reply.text)];
            } else {
                self.not_exact_before = false;
            }
            self.recorder.entry(
                "parse",
                serde_json::json!({ "ok": parsed.script.is_some(), "errors": parsed.diagnostics }),
            );
            let Some(script) = parsed.script else {
                self.retries += 1;
                if self.retries > settings.limits.max_format_retries {
                    let stop = Stop::FormatRetries {
                        last_reply: reply.text,
                    };
                    return self.stop(stop, on_event);
                }
                on_event(Event::Rejected {
                    problems: parsed.diagnostics.len(),
                    retries_left: settings.limits.max_format_retries + 1 - self.retries,
                });
                next = Next::Send {
                    message: format_error(&parsed.diagnostics, parsed.truncated),
                    kind: MessageKind::FormatCorrection,
                };
                continue;
            };
            self.retries = 0;
            self.session.batch += 1;
            // Saved before anything runs: a crash from here on resumes this batch.
            self.recorder.journal_start();
            self.session.in_flight = InFlight::CarryingOut {
                reply: reply.text.clone(),
            };
            self.recorder.session(&self.session);
            match self.carry_out(&script, None, host, on_event) {
                Ok(results) => {
                    next = Next::Send {
                        message: results,
                        kind: MessageKind::Results,
                    }
                }
                Err(stop) => return self.stop(stop, on_event),
            }
        }
        // The last results were not sent: they wait in the session for the next run.
        if let Next::Send { message, kind } = next {
            self.session.in_flight = InFlight::Sending { message, kind };
        }
        self.stop(Stop::Iterations { limit }, on_event)
    }

    /// Sends a message; the session (with the message) is saved first, so a crash or Ctrl+C
    /// from here on loses nothing.
    fn send(
        &mut self,
        message: &str,
        kind: MessageKind,
        driver: &mut dyn ChatDriver,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<(), Failure> {
        let what = kind.name();
        // A task message sent again (a retry, a resume that did not find it in the chat) whose
        // files were handed to the page for the first try: the page holds them no more, and a
        // task is never sent without the files the person gave it.
        let again = matches!(&self.session.in_flight,
            InFlight::Sending { message: m, kind: MessageKind::Task } if m == message);
        if kind == MessageKind::Task
            && again
            && self.attachments.is_empty()
            && let Some(file) = self
                .session
                .attachments
                .iter()
                .find(|f| f.how != crate::chat::attach::How::Inline)
        {
            return Err(Failure::new(
                Code::AttachmentNotConfirmed,
                format!(
                    "the task's message must be sent again, but its files ({} among them) went to the page with the first try only, and keyless never sends the task without them; start it again with the files: keyless run --new-chat \"TASK\" --attach FILE…",
                    crate::visible::shown(&file.name)
                ),
            ));
        }
        // The person's files go with the task's first message only, once.
        let with_files;
        let mut files_sent = Vec::new();
        let message = if kind == MessageKind::Task && !self.attachments.is_empty() {
            let files = std::mem::take(&mut self.attachments);
            let plan = self.plan_files(&files, driver)?;
            on_event(Event::Attaching { files: &plan.sent });
            driver.attach_next(plan.uploads)?;
            files_sent = plan.sent;
            with_files = format!("{message}{}", plan.inline);
            with_files.as_str()
        } else {
            message
        };
        // The last door out: whatever the message holds (results, a snapshot, an echo of the
        // reply in a format error), no secret passes it, nor reaches the transcript.
        let redacted;
        let message = match &self.settings.redactor {
            Some(redactor) => {
                redacted = redactor.redact(message).text;
                redacted.as_str()
            }
            None => message,
        };
        on_event(Event::Sending {
            chars: message.chars().count(),
            kind,
            text: message,
        });
        self.session.in_flight = InFlight::Sending {
            message: message.to_string(),
            kind,
        };
        self.session.chat_url = driver.chat_url().or(self.session.chat_url.take());
        if !files_sent.is_empty() {
            self.session.attachments.clone_from(&files_sent);
        }
        self.recorder.session(&self.session);
        self.recorder
            .entry("sent", serde_json::json!({ "what": what, "text": message }));
        tracing::info!(what, chars = message.chars().count(), "sending");
        let sent = driver.send(message);
        match &sent {
            Ok(()) => {
                for file in &files_sent {
                    self.recorder.entry("attachment", serde_json::json!(file));
                    on_event(Event::AttachmentSent { file });
                }
            }
            // The files stopped the message before it went: there is nothing to resume, the
            // person runs the task again with other files.
            Err(failure) if !files_sent.is_empty() && is_attachment(failure.code) => {
                self.session.in_flight = InFlight::Idle;
                self.session.attachments.clear();
                self.recorder.session(&self.session);
            }
            Err(_) => {}
        }
        self.tell_warnings(driver, on_event);
        // A new chat gets its own address with its first message.
        if let (true, Some(url)) = (sent.is_ok(), driver.chat_url())
            && self.session.chat_url.as_deref() != Some(url.as_str())
        {
            self.session.chat_url = Some(url);
            self.recorder.session(&self.session);
        }
        sent
    }

    /// How the person's `files` go on the page the driver shows now, text redacted.
    fn plan_files(
        &self,
        files: &[crate::chat::attach::Attachment],
        driver: &mut dyn ChatDriver,
    ) -> Result<crate::chat::attach::Plan, Failure> {
        let takes = driver.takes_files()?;
        let redact = |text: &str| match &self.settings.redactor {
            Some(redactor) => redactor.redact(text).text,
            None => text.to_string(),
        };
        crate::chat::attach::plan(files, takes, &redact)
    }

    /// Waits for the reply. What the driver warned of while it waited (a reply from another
    /// model under `--allow-fallback`) is told now, before anything of that reply runs: the
    /// last reply of a task has no send after it to carry the warning.
    fn wait(
        &mut self,
        driver: &mut dyn ChatDriver,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<Reply, Failure> {
        let reply = driver.wait_reply(&mut |chars| on_event(Event::Receiving { chars }));
        self.tell_warnings(driver, on_event);
        reply
    }

    /// The driver's warnings not yet taken, into the transcript (with their code) and out as
    /// events.
    fn tell_warnings(&mut self, driver: &mut dyn ChatDriver, on_event: &mut dyn FnMut(Event)) {
        for warning in driver.take_warnings() {
            self.recorder.entry(
                "warning",
                serde_json::json!({ "code": warning.code, "reason": warning.reason }),
            );
            on_event(Event::Warning(warning));
        }
    }

    /// What to do after a failed send or wait: the next step, or the stop.
    fn recover(
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
    fn limit_in_force(
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
    fn keep_lost_connection(&mut self, failure: &Failure) {
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

    /// Adds a line to the turn's summary, keeping the latest ones.
    fn remember(&mut self, line: String) {
        self.session.done.push(line);
        let extra = self.session.done.len().saturating_sub(SUMMARY_COMMANDS);
        self.session.done.drain(..extra);
    }

    /// The first message of a new chat that continues the turn: the rules and task, what was
    /// done so far, and the message that was due.
    fn continuation(&self, due: &str) -> String {
        let rules = self.session.rules.as_deref().unwrap_or_default();
        prompt::continuation(rules, &self.session.done, due, SUMMARY_COMMANDS)
    }
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

/// Seconds since the Unix epoch now.
fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests;

/// The codes of files that stopped a message before it went.
fn is_attachment(code: Code) -> bool {
    matches!(
        code,
        Code::AttachmentNotSupported | Code::AttachmentRefused | Code::AttachmentNotConfirmed
    )
}
