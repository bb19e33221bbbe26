//! The turn loop: send → wait → parse → (format error | execute → results) → … until `@@done`,
//! the format-retry limit, the iteration limit, or a chat failure.
//!
//! Architecture Invariant: the loop talks to a [`ChatDriver`], never to CDP directly, and to the
//! outside world through the batch [`Host`].

mod carry;
pub mod prompt;
pub mod record;
mod recover;
mod resume;

pub use resume::resume;

use record::{InFlight, MessageKind, Recorder, Session};

use std::time::Duration;

use crate::batch::{self, Host, Settings};
use crate::catalog::{Code, Failure};
use crate::chat::{Channel, ChatDriver, Reopened, Reply};
use crate::config::Pace;
use crate::protocol::{parse, render::format_error};
use crate::workspace::Workspace;

/// Step pace raises the iteration limit to at least this.
const STEP_MIN_ITERATIONS: usize = 60;
/// How many times one turn may move to a new chat.
const MAX_NEW_CHATS: u32 = 3;
/// Commands listed in a new chat's summary (the latest ones).
const SUMMARY_COMMANDS: usize = 60;

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
