//! The results message: one message mapping every result to its command, as the specification
//! shows it. Failures carry their code (`status: error | code: KA_…`) and a reason.

use super::{Done, Outcome, Report, Skipped};
use crate::catalog::Code;
use crate::protocol::CommandKind;
use crate::protocol::render::push_named_section;

/// The line that closes every results message.
const TRAILER: &str =
    "Continue with the next commands, or finish with @@done. Reply in AgentScript v1 only.";

/// Renders a batch report as the message sent back to the model.
pub fn render(report: &Report) -> String {
    let mut out = opening(report.turn, report.batch);
    push_report(&mut out, &[], report);
    out
}

/// Every result in order (`prior` first: results reported before, already rendered), the
/// redaction note, what was skipped and what `@@done` came to.
fn push_report(out: &mut String, prior: &[(CommandResultHead, String)], report: &Report) {
    let total = prior.len() + report.total;
    for (i, (head, text)) in prior.iter().enumerate() {
        push_head(out, i + 1, total, head);
        out.push_str(text);
    }
    for (i, result) in report.results.iter().enumerate() {
        let head = CommandResultHead {
            index: result.index,
            kind: result.kind,
            label: result.label.clone(),
        };
        push_head(out, prior.len() + i + 1, total, &head);
        out.push_str(&outcome_text(&result.outcome));
    }
    if let Some(check) = &report.check {
        out.push_str(&format!("--- done-check | {} ---\n", check.command.trim()));
        out.push_str(&outcome_text(&check.outcome));
    }
    push_redacted(out, report.redacted);
    closing(out, &report.skipped, &report.done);
}

fn push_redacted(out: &mut String, count: usize) {
    if count > 0 {
        out.push_str(&format!(
            "--- keyless redacted {count} secret(s) from these results: each shows as [redacted: kind] ---\n"
        ));
    }
}

/// One result's text after its header: the status line, the reason, the lines and the output.
/// The turn keeps it in its journal, so that a batch cut short by a crash can still be reported.
pub fn outcome_text(outcome: &Outcome) -> String {
    let mut out = match &outcome.error {
        None => "status: ok".to_string(),
        Some(failure) => format!("status: error | code: {}", failure.code),
    };
    for detail in &outcome.details {
        out.push_str(" | ");
        out.push_str(detail);
    }
    out.push('\n');
    if let Some(failure) = &outcome.error {
        out.push_str("reason: ");
        out.push_str(&failure.reason);
        out.push('\n');
    }
    for line in &outcome.lines {
        out.push_str(line);
        out.push('\n');
    }
    if let Some((name, text)) = &outcome.block {
        push_named_section(&mut out, name, text);
    }
    out
}

/// The results message for a batch keyless was stopped in and went on with: what ran before
/// the stop (`prior`, as journalled, and the command it stopped in, resolved by looking), then
/// what ran after it (`report`, which starts where the batch was stopped).
pub fn render_resumed(prior: &[(CommandResultHead, String)], report: &Report) -> String {
    let mut out = opening(report.turn, report.batch);
    out.push_str(RESUMED_NOTE);
    push_report(&mut out, prior, report);
    out
}

/// A results message for a batch keyless was stopped in (killed, crashed): what finished, as
/// journalled; the command that was running, whose outcome nobody knows; and what never ran.
/// Nothing is run again: the model decides what is still needed.
pub fn render_interrupted(
    (turn, batch): (u64, u64),
    total: usize,
    finished: &[(CommandResultHead, String)],
    running: Option<CommandResultHead>,
    not_run: Skipped,
) -> String {
    let mut out = opening(turn, batch);
    out.push_str(INTERRUPTED_NOTE);
    for (i, (head, text)) in finished.iter().enumerate() {
        push_head(&mut out, i + 1, total, head);
        out.push_str(text);
    }
    if let Some(head) = running {
        push_head(&mut out, finished.len() + 1, total, &head);
        out.push_str(&format!(
            "status: error | code: {}\nreason: keyless was stopped while this command ran; its outcome is unknown, so check it before relying on it\n",
            Code::Cancelled
        ));
    }
    let skipped: Vec<Skipped> = if not_run.commands.is_empty() {
        Vec::new()
    } else {
        vec![not_run]
    };
    closing(&mut out, &skipped, &Done::NotRequested);
    out
}

/// The first line of a results message after an interruption that keyless could go on from.
const RESUMED_NOTE: &str = "--- keyless was stopped while carrying out this batch and has restarted: what had run is reported as it was, and the rest ran now; nothing ran twice ---\n";

/// The first line of a results message after an interruption.
const INTERRUPTED_NOTE: &str = "--- keyless was stopped while carrying out this batch and has restarted; nothing was run twice ---\n";

/// A result's index, command and label: enough for its header line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandResultHead {
    pub index: usize,
    pub kind: CommandKind,
    pub label: String,
}

fn opening(turn: u64, batch: u64) -> String {
    format!("[KEYLESSAGENT RESULTS] turn={turn} batch={batch}\n")
}

fn push_head(out: &mut String, position: usize, total: usize, head: &CommandResultHead) {
    out.push_str(&format!(
        "--- result {position}/{total} | #{} {} | {} ---\n",
        head.index,
        head.kind.name(),
        head.label
    ));
}

fn closing(out: &mut String, skipped: &[Skipped], done: &Done) {
    for skipped in skipped {
        out.push_str(&format!(
            "--- skipped {} commands: {} ---\n",
            skipped.commands.len(),
            skipped.reason.text()
        ));
        for (index, kind, label) in &skipped.commands {
            out.push_str(&format!("skipped: #{index} {} | {label}\n", kind.name()));
        }
    }
    match done {
        Done::NotHonoured { why } => out.push_str(&format!("--- @@done not honoured: {why} ---\n")),
        Done::Honoured { .. } => out.push_str("--- @@done honoured: the turn is finished ---\n"),
        Done::NotRequested => {}
    }
    out.push_str("[END RESULTS]\n");
    out.push_str(TRAILER);
    out.push('\n');
}
