//! The results message: one message mapping every result to its command, as the specification
//! shows it. Failures carry their code (`status: error | code: KA_…`) and a reason.

use super::{Done, Report};
use crate::protocol::render::push_named_section;

/// The line that closes every results message.
const TRAILER: &str =
    "Continue with the next commands, or finish with @@done. Reply in AgentScript v1 only.";

/// Renders a batch report as the message sent back to the model.
pub fn render(report: &Report) -> String {
    let mut out = format!(
        "[KEYLESSAGENT RESULTS] turn={} batch={}\n",
        report.turn, report.batch
    );
    for (i, result) in report.results.iter().enumerate() {
        out.push_str(&format!(
            "--- result {}/{} | #{} {} | {} ---\n",
            i + 1,
            report.total,
            result.index,
            result.kind.name(),
            result.label
        ));
        let outcome = &result.outcome;
        let mut status = match &outcome.error {
            None => "status: ok".to_string(),
            Some(failure) => format!("status: error | code: {}", failure.code),
        };
        for detail in &outcome.details {
            status.push_str(" | ");
            status.push_str(detail);
        }
        out.push_str(&status);
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
    }
    for skipped in &report.skipped {
        out.push_str(&format!(
            "--- skipped {} commands: {} ---\n",
            skipped.commands.len(),
            skipped.reason
        ));
        for (index, kind, label) in &skipped.commands {
            out.push_str(&format!("skipped: #{index} {} | {label}\n", kind.name()));
        }
    }
    match &report.done {
        Done::NotHonoured { why } => out.push_str(&format!("--- @@done not honoured: {why} ---\n")),
        Done::Honoured { .. } => out.push_str("--- @@done honoured: the turn is finished ---\n"),
        Done::NotRequested => {}
    }
    out.push_str("[END RESULTS]\n");
    out.push_str(TRAILER);
    out.push('\n');
    out
}
