//! What a person sees while a turn runs: each message sent, the reply arriving (characters and
//! elapsed time), each command with its tier and result, warnings. All on standard error, so
//! standard output stays for results and summaries. `-q` keeps only warnings, problems, what the
//! model says to the user (`@@say`, `@@ask`) and confirmations; `-v` adds every message sent and
//! every raw reply.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;

use crate::chat::Reopened;
use crate::turn::Event;
use crate::visible::{holds_hidden, shown};

/// How much to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Quiet,
    Normal,
    Verbose,
}

/// The chosen level, when the wait for the current reply began, and when a line about it was
/// last printed where lines cannot be rewritten.
static STATE: Mutex<(Level, Option<Instant>, Option<Instant>)> =
    Mutex::new((Level::Normal, None, None));

/// Without a terminal, how often a long wait is reported.
const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(30);

pub fn set_level(level: Level) {
    if let Ok(mut state) = STATE.lock() {
        state.0 = level;
    }
}

/// Whether only warnings and problems are shown.
pub fn quiet() -> bool {
    level() == Level::Quiet
}

/// Prints a line about what keyless is doing (opening the browser, going on in a saved chat)
/// on standard error, unless `-q` asked for only warnings, problems and the outcome.
pub fn note(text: &str) {
    if !quiet() {
        eprintln!("{text}");
    }
}

fn level() -> Level {
    STATE.lock().map(|s| s.0).unwrap_or(Level::Normal)
}

fn waiting_since(reset: bool) -> f64 {
    let Ok(mut state) = STATE.lock() else {
        return 0.0;
    };
    if reset {
        state.1 = None;
        state.2 = None;
        return 0.0;
    }
    state
        .1
        .get_or_insert_with(Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// Whether a heartbeat line is due (and, if so, notes it as printed).
fn heartbeat_due() -> bool {
    let Ok(mut state) = STATE.lock() else {
        return false;
    };
    let last = *state.2.get_or_insert_with(Instant::now);
    if last.elapsed() >= HEARTBEAT {
        state.2 = Some(Instant::now());
        true
    } else {
        false
    }
}

/// Prints one turn event.
pub fn print(event: Event) {
    let level = level();
    let mut err = std::io::stderr();
    let terminal = err.is_terminal();
    let paint = Paint::new(terminal);
    let warn = paint.yellow("⚠");
    match event {
        Event::Warning(failure) => {
            let _ = writeln!(err, "{warn} {}: {}", failure.code, shown(&failure.reason));
        }
        Event::NewChat => {
            let _ = writeln!(
                err,
                "{warn} the chat reached its length limit (KA_CHAT_EXHAUSTED); continuing in a new chat with a summary"
            );
        }
        Event::Offline { attempt, wait } => {
            let _ = writeln!(
                err,
                "{warn} the connection to the chat site dropped (KA_NETWORK_OFFLINE); nothing was lost. Going on in {}s (try {attempt}): the message is sent again unless the chat already holds it",
                wait.as_secs()
            );
        }
        Event::Trouble(failure) => {
            let _ = writeln!(
                err,
                "{warn} {}: {}",
                failure.code,
                shown(&super::stop::with_resume(&failure.reason))
            );
        }
        Event::Waiting { code, left } => {
            let line = format!(
                "⏳ waiting {} for the site ({code}), then going on by itself; Ctrl+C stops and keeps the session (`keyless run --resume` goes on later)",
                crate::chat::trouble::span(left)
            );
            let _ = writeln!(err, "{}", super::stop::with_resume(&line));
        }
        Event::Resumed { reopened } => {
            let how = match reopened {
                Reopened::Answered => "the reply is on the page: reading it (nothing is resent)",
                Reopened::Retried => {
                    "the site's error stood in the reply's place: it was asked to answer again (Retry)"
                }
                Reopened::Unsent => "the message had no reply: sending it again",
                Reopened::Empty => "the chat is gone: going on in a new chat with a summary",
            };
            let _ = writeln!(err, "↻ reopened the saved chat; {how}");
        }
        _ if level == Level::Quiet => {}
        Event::Attaching { files } => {
            let names: Vec<String> = files
                .iter()
                .map(|f| format!("{} ({}, {} bytes)", shown(&f.name), how(f.how), f.size))
                .collect();
            let _ = writeln!(
                err,
                "📎 attaching {}: each waits for its chip by name before the message goes",
                names.join(", ")
            );
        }
        Event::AttachmentSent { .. } => {}
        Event::Finished { summary } => {
            if summary.batches > 0 {
                let failed = if summary.failed > 0 {
                    paint.red(&format!(", {} failed", summary.failed))
                } else {
                    String::new()
                };
                let _ = writeln!(
                    err,
                    "Summary: {} batch(es), {} command(s) ok{failed}.",
                    summary.batches, summary.ok
                );
                if let Some(check) = &summary.check {
                    let _ = writeln!(
                        err,
                        "Done-check `{}`: {} (run {} time(s)).",
                        shown(&check.command),
                        if check.passed { "passed" } else { "failed" },
                        check.runs
                    );
                }
                if !summary.changed.is_empty() {
                    let _ = writeln!(
                        err,
                        "Changed: {}. `keyless undo` puts back the last batch.",
                        summary
                            .changed
                            .iter()
                            .map(|path| shown(path))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    if summary.changed.iter().any(|path| holds_hidden(path)) {
                        let _ = writeln!(
                            err,
                            "{warn} a path above holds characters a terminal does not show for what they are; they are written \\u{{…}}"
                        );
                    }
                }
            }
        }
        Event::Sending { chars, kind, text } => {
            waiting_since(true);
            let _ = writeln!(err, "→ sending the {} ({chars} characters)", kind.name());
            if level == Level::Verbose {
                let _ = writeln!(err, "{}", shown(text));
            }
        }
        // Only a terminal can rewrite the line in place; elsewhere the count would pile up.
        Event::Receiving { chars } if terminal => {
            let elapsed = waiting_since(false);
            let _ = if chars == 0 {
                write!(err, "\r← waiting for the model… {elapsed:.0}s")
            } else {
                write!(
                    err,
                    "\r← the model is writing… {chars} characters, {elapsed:.0}s"
                )
            };
            let _ = err.flush();
        }
        // Elsewhere a line every HEARTBEAT, so that a long wait is never silent.
        Event::Receiving { chars } => {
            let elapsed = waiting_since(false);
            if heartbeat_due() {
                let _ = writeln!(
                    err,
                    "← still waiting for the reply: {chars} characters after {elapsed:.0}s"
                );
            }
        }
        Event::Received {
            chars,
            channel,
            text,
            model,
            effort,
        } => {
            let lead = if terminal { "\r" } else { "" };
            let from = match (model, effort) {
                (Some(model), Some(effort)) => format!(", answered by {model} ({effort} effort)"),
                (Some(model), None) => format!(", answered by {model}"),
                _ => String::new(),
            };
            let _ = writeln!(
                err,
                "{lead}← reply received: {chars} characters, read via {channel:?}{from}            "
            );
            if level == Level::Verbose {
                let _ = writeln!(err, "{}", shown(text));
            }
        }
        Event::Rejected {
            problems,
            retries_left,
        } => {
            let _ = writeln!(
                err,
                "{} the reply was not valid AgentScript ({problems} problem(s)); asking the model to resend ({retries_left} retries left)",
                paint.red("✗")
            );
        }
        Event::Executed { report } => {
            for result in &report.results {
                let outcome = &result.outcome;
                let status = match &outcome.error {
                    None => paint.green("ok"),
                    Some(f) => paint.red(f.code.code()),
                };
                let tier = outcome
                    .policy
                    .map(|p| format!(" [{}]", p.tier.name()))
                    .unwrap_or_default();
                let _ = writeln!(
                    err,
                    "  #{} {} {}{tier} — {status}",
                    result.index,
                    result.kind.name(),
                    shown(&result.label)
                );
            }
            for skipped in &report.skipped {
                let _ = writeln!(
                    err,
                    "  skipped {} command(s): {}",
                    skipped.commands.len(),
                    skipped.reason.text()
                );
            }
            if let Some(check) = &report.check {
                let status = match &check.outcome.error {
                    None => paint.green("ok: the turn is finished"),
                    Some(_) => paint.red("failed: its output goes back to the model"),
                };
                let _ = writeln!(err, "  done-check {} — {status}", shown(&check.command));
            }
        }
    }
}

/// Colours, only on a terminal and only without `NO_COLOR` (no-color.org).
struct Paint {
    on: bool,
}

impl Paint {
    fn new(terminal: bool) -> Paint {
        Paint {
            on: terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn red(&self, text: &str) -> String {
        self.wrap("31", text)
    }

    fn green(&self, text: &str) -> String {
        self.wrap("32", text)
    }

    fn yellow(&self, text: &str) -> String {
        self.wrap("33", text)
    }
}

/// How an attached file goes, in words.
fn how(how: crate::chat::attach::How) -> &'static str {
    match how {
        crate::chat::attach::How::Upload => "upload",
        crate::chat::attach::How::Inline => "inline in the message",
        crate::chat::attach::How::Bundle => "in the bundle",
    }
}
