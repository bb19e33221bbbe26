//! What a person sees while a turn runs: each message sent, the reply arriving, each command's
//! result, on standard error (standard output stays for results and summaries).

use std::io::{IsTerminal, Write};

use crate::turn::Event;

/// Prints turn events as short lines; the reply's progress rewrites one line.
pub fn print(event: Event) {
    let mut err = std::io::stderr();
    match event {
        Event::Sending { chars, what } => {
            let _ = writeln!(err, "→ sending the {what} ({chars} characters)");
        }
        // Only a terminal can rewrite the line in place; elsewhere the count would pile up.
        Event::Receiving { chars } if err.is_terminal() => {
            let _ = write!(err, "\r← the model is writing… {chars} characters");
            let _ = err.flush();
        }
        Event::Receiving { .. } => {}
        Event::Received { chars, channel } => {
            let lead = if err.is_terminal() { "\r" } else { "" };
            let _ = writeln!(
                err,
                "{lead}← reply received: {chars} characters, read via {channel:?}      "
            );
        }
        Event::Rejected {
            problems,
            retries_left,
        } => {
            let _ = writeln!(
                err,
                "✗ the reply was not valid AgentScript ({problems} problem(s)); asking the model to resend ({retries_left} retries left)"
            );
        }
        Event::Warning(failure) => {
            let _ = writeln!(err, "⚠ {}: {}", failure.code, failure.reason);
        }
        Event::NewChat => {
            let _ = writeln!(
                err,
                "⚠ the chat reached its length limit (KA_CHAT_EXHAUSTED); continuing in a new chat with a summary"
            );
        }
        Event::Offline { attempt, wait } => {
            let _ = writeln!(
                err,
                "⚠ the machine looks offline (KA_NETWORK_OFFLINE); nothing was lost. Resending the same message in {}s (try {attempt})",
                wait.as_secs()
            );
        }
        Event::Executed { report } => {
            for result in &report.results {
                let status = match &result.outcome.error {
                    None => "ok".to_string(),
                    Some(f) => format!("{}", f.code),
                };
                let _ = writeln!(
                    err,
                    "  #{} {} {} — {status}",
                    result.index,
                    result.kind.name(),
                    result.label
                );
            }
            for skipped in &report.skipped {
                let _ = writeln!(
                    err,
                    "  skipped {} command(s): {}",
                    skipped.commands.len(),
                    skipped.reason
                );
            }
        }
    }
}
