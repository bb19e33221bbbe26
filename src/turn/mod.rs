//! The turn loop: send → wait → parse → (format error | execute → results) → … until `@@done`,
//! the format-retry limit, the iteration limit, or a chat failure.
//!
//! Architecture Invariant: the loop talks to a [`ChatDriver`], never to CDP directly, and to the
//! outside world through the batch [`Host`].

pub mod prompt;
pub mod record;

use record::{Recorder, Session};

use std::time::Duration;

use crate::batch::{self, Done, Host, Settings, results};
use crate::catalog::{Code, Failure};
use crate::chat::{Channel, ChatDriver};
use crate::config::Pace;
use crate::protocol::{Diagnostic, parse, render::format_error};
use crate::workspace::Workspace;
use crate::workspace::backup::{Backup, BatchKind};

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

/// What the loop tells whoever watches it.
#[derive(Debug)]
pub enum Event<'a> {
    /// The chat reached its length limit: a new chat continues the turn.
    NewChat,
    /// A problem that did not stop the turn.
    Warning(Failure),
    /// The machine is offline: the same message is resent after `wait`.
    Offline {
        attempt: u32,
        wait: Duration,
    },
    Sending {
        chars: usize,
        what: &'static str,
        text: &'a str,
    },
    Receiving {
        chars: usize,
    },
    Received {
        chars: usize,
        channel: Channel,
        text: &'a str,
    },
    Rejected {
        problems: usize,
        retries_left: usize,
    },
    Executed {
        report: &'a batch::Report,
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

/// Runs one turn: `first` is the first message (rules and task, or a follow-up line).
pub fn run(
    first: String,
    driver: &mut dyn ChatDriver,
    ws: &Workspace,
    host: &mut dyn Host,
    settings: &Settings,
    on_event: &mut dyn FnMut(Event),
) -> Stop {
    let mut recorder = Recorder::new(ws);
    let stop = drive(first, driver, ws, host, settings, on_event, &mut recorder);
    tracing::info!(?stop, "turn ended");
    recorder.entry("stop", serde_json::json!({ "reason": format!("{stop:?}") }));
    stop
}

fn drive(
    first: String,
    driver: &mut dyn ChatDriver,
    ws: &Workspace,
    host: &mut dyn Host,
    settings: &Settings,
    on_event: &mut dyn FnMut(Event),
    recorder: &mut Recorder,
) -> Stop {
    let limit = if settings.pace == Pace::Step {
        settings
            .limits
            .max_iterations_per_turn
            .max(STEP_MIN_ITERATIONS)
    } else {
        settings.limits.max_iterations_per_turn
    };
    let retry_limit = settings.limits.max_format_retries;
    let rules = first.clone();
    let mut done_so_far: Vec<String> = Vec::new();
    let mut new_chats = 0;
    let mut message = first;
    let mut what = "task";
    let mut retries = 0;
    let mut batch_number = 0;
    let mut session = Session {
        site: driver.site(),
        turn: 1,
        ..Session::default()
    };
    let mut replies = 0;
    let mut offline_tries = 0;
    while replies < limit {
        on_event(Event::Sending {
            chars: message.chars().count(),
            what,
            text: &message,
        });
        // Saved before the send: a crash or Ctrl+C from here on loses nothing.
        session.pending = Some(message.clone());
        session.batch = batch_number;
        session.chat_url = driver.chat_url();
        recorder.session(&session);
        recorder.entry("sent", serde_json::json!({ "what": what, "text": message }));
        tracing::info!(what, chars = message.chars().count(), "sending");
        let sent = driver.send(&message);
        for warning in driver.take_warnings() {
            recorder.entry(
                "warning",
                serde_json::json!({ "code": warning.code, "reason": warning.reason }),
            );
            on_event(Event::Warning(warning));
        }
        let outcome = sent
            .and_then(|()| driver.wait_reply(&mut |chars| on_event(Event::Receiving { chars })));
        let reply = match outcome {
            Ok(reply) => reply,
            // The chat is full: a new chat gets the rules, what was done, and the message due.
            Err(failure) if failure.code == Code::ChatExhausted && new_chats < MAX_NEW_CHATS => {
                new_chats += 1;
                recorder.entry("new_chat", serde_json::json!({ "reason": failure.reason }));
                on_event(Event::NewChat);
                if let Err(failure) = driver.new_chat() {
                    return Stop::Chat(failure);
                }
                message = continuation(&rules, &done_so_far, &message);
                what = "task, continued in a new chat";
                continue;
            }
            // Offline: nothing reached the model; wait, then resend the same message.
            Err(failure)
                if failure.code == Code::NetworkOffline && offline_tries < OFFLINE_TRIES =>
            {
                offline_tries += 1;
                let wait = (OFFLINE_FIRST_WAIT * 2u32.pow(offline_tries - 1)).min(OFFLINE_MAX_WAIT);
                recorder.entry(
                    "offline",
                    serde_json::json!({ "attempt": offline_tries, "wait_s": wait.as_secs() }),
                );
                on_event(Event::Offline {
                    attempt: offline_tries,
                    wait,
                });
                std::thread::sleep(wait);
                continue;
            }
            // A reply cut off before @@eof is resent in smaller pieces, counted as a retry.
            Err(failure) if failure.code == Code::ReplyTruncated => {
                recorder.entry("truncated", serde_json::json!({ "reason": failure.reason }));
                retries += 1;
                if retries > retry_limit {
                    return Stop::FormatRetries {
                        last_reply: failure.reason,
                    };
                }
                on_event(Event::Rejected {
                    problems: 1,
                    retries_left: retry_limit + 1 - retries,
                });
                let cut = Diagnostic {
                    code: Code::ReplyTruncated,
                    line: None,
                    message: "Your response stopped before @@eof (it looks cut off).".to_string(),
                };
                message = format_error(&[cut], true);
                what = "format correction";
                continue;
            }
            Err(failure) => return Stop::Chat(failure),
        };
        replies += 1;
        offline_tries = 0;
        session.pending = None;
        session.chat_url = driver.chat_url();
        recorder.session(&session);
        on_event(Event::Received {
            chars: reply.text.chars().count(),
            channel: reply.channel,
            text: &reply.text,
        });
        recorder.entry(
            "reply",
            serde_json::json!({ "channel": reply.channel, "text": reply.text }),
        );
        tracing::info!(chars = reply.text.chars().count(), channel = ?reply.channel, "reply received");
        let parsed = parse(&reply.text, &settings.limits);
        recorder.entry(
            "parse",
            serde_json::json!({ "ok": parsed.is_ok(), "errors": parsed.diagnostics }),
        );
        let Some(script) = parsed.script else {
            retries += 1;
            if retries > retry_limit {
                return Stop::FormatRetries {
                    last_reply: reply.text,
                };
            }
            on_event(Event::Rejected {
                problems: parsed.diagnostics.len(),
                retries_left: retry_limit + 1 - retries,
            });
            message = format_error(&parsed.diagnostics, parsed.truncated);
            what = "format correction";
            continue;
        };
        retries = 0;
        batch_number += 1;
        let mut backup = Backup::new(ws, BatchKind::Batch, format!("batch {batch_number}"));
        let report = batch::execute(&script, ws, &mut backup, host, settings, (1, batch_number));
        on_event(Event::Executed { report: &report });
        for result in &report.results {
            let status = result
                .outcome
                .error
                .as_ref()
                .map_or("ok".to_string(), |f| f.code.to_string());
            done_so_far.push(format!("{} {}: {status}", result.kind.name(), result.label));
        }
        for result in &report.results {
            let code = result.outcome.error.as_ref().map(|f| f.code.code());
            tracing::info!(index = result.index, command = result.kind.name(), label = %result.label, ?code, "executed");
        }
        let rendered = results::render(&report);
        recorder.entry(
            "results",
            serde_json::json!({ "batch": batch_number, "text": rendered }),
        );
        if let Done::Honoured { message } = report.done {
            return Stop::Done { message };
        }
        message = rendered;
        what = "results";
    }
    Stop::Iterations { limit }
}

/// The first message of a new chat that continues a turn: the rules and task, what was done so
/// far, and the message that was due when the old chat filled up.
fn continuation(rules: &str, done: &[String], due: &str) -> String {
    let mut out = rules.to_string();
    out.push_str("\nThis task continues from a chat that reached its length limit. Already done, oldest first:\n");
    let skip = done.len().saturating_sub(SUMMARY_COMMANDS);
    if skip > 0 {
        out.push_str(&format!("- ({skip} earlier commands)\n"));
    }
    for line in &done[skip..] {
        out.push_str(&format!("- {line}\n"));
    }
    if done.is_empty() {
        out.push_str("- nothing yet\n");
    }
    if due != rules {
        out.push_str("\nThe last message keyless sent, which you have not answered yet:\n");
        out.push_str(due);
        out.push('\n');
    }
    out
}
