//! Carrying out a reply's batch: its commands run through the batch engine with every start
//! and finish journalled (so that a crash mid-batch never runs a command twice), what the turn
//! did is summed up, and the results message is rendered.

use super::record::{InFlight, JournalLine, MessageKind};
use super::{Event, Stop, Turn};
use crate::batch::results::{self, CommandResultHead};
use crate::batch::{self, Done, Host, Start};
use crate::catalog::{Code, Failure};
use crate::protocol::Script;
use crate::workspace::backup::{Backup, BatchKind, Mark};

/// Whether a command kind changes files or folders.
fn changes_files(kind: crate::protocol::CommandKind) -> bool {
    use crate::protocol::CommandKind::*;
    matches!(
        kind,
        NewFile | UpdateFile | EditFile | DeleteFile | MoveFile | Mkdir
    )
}

/// A batch keyless was stopped in, to be gone on with.
pub(super) struct Resumed {
    /// What ran before the stop, as reported then, and the command it stopped in when looking
    /// showed it had been done.
    pub prior: Vec<(CommandResultHead, String)>,
    /// Where the batch goes on.
    pub start: Start,
    /// Where the batch's backup stood last, so it goes on in the same backup.
    pub mark: Option<Mark>,
}

/// The label of a batch's backup (what `keyless undo` names).
pub(super) fn backup_label(batch: u64) -> String {
    format!("batch {batch}")
}

impl Turn<'_> {
    /// Carries out the script of batch `session.batch` (its reply saved in the session, the
    /// journal emptied), or the rest of it when keyless was stopped in it (`resumed`), and
    /// returns the results message, or the stop it ends the turn with.
    pub(super) fn carry_out(
        &mut self,
        script: &Script,
        resumed: Option<Resumed>,
        host: &mut dyn Host,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<String, Stop> {
        let settings = self.settings;
        let batch_number = self.session.batch;
        let label = backup_label(batch_number);
        let (mut backup, start, prior) = match resumed {
            None => (
                Backup::new(self.ws, BatchKind::Batch, label),
                batch::Start::default(),
                None,
            ),
            Some(resumed) => (
                match resumed.mark {
                    // The batch's backup goes on, so `keyless undo` puts the whole batch back.
                    Some(mark) => Backup::reopen(self.ws, mark, label),
                    None => Backup::new(self.ws, BatchKind::Batch, label),
                },
                resumed.start,
                Some(resumed.prior),
            ),
        };
        let recorder = &mut self.recorder;
        let report = batch::execute_observed(
            script,
            self.ws,
            &mut backup,
            host,
            settings,
            (self.session.turn, batch_number),
            start,
            &mut |step| recorder.journal(&JournalLine::of(batch_number, &step)),
        );
        on_event(Event::Executed { report: &report });
        self.summary.batches += 1;
        for result in &report.results {
            if result.outcome.error.is_some() {
                self.summary.failed += 1;
            } else {
                self.summary.ok += 1;
                if changes_files(result.kind) && !self.summary.changed.contains(&result.label) {
                    self.summary.changed.push(result.label.clone());
                }
            }
            let status = result
                .outcome
                .error
                .as_ref()
                .map_or("ok".to_string(), |f| f.code.to_string());
            self.remember(format!("{} {}: {status}", result.kind.name(), result.label));
            let code = result.outcome.error.as_ref().map(|f| f.code.code());
            tracing::info!(index = result.index, command = result.kind.name(), label = %result.label, ?code, "executed");
        }
        if let Some(check) = &report.check {
            let runs = self.summary.check.as_ref().map_or(0, |c| c.runs) + 1;
            self.summary.check = Some(super::CheckSummary {
                command: check.command.clone(),
                runs,
                passed: check.passed(),
            });
            self.remember(format!(
                "done-check {}: {}",
                check.command.trim(),
                if check.passed() { "ok" } else { "failed" }
            ));
        }
        let rendered = match &prior {
            None => results::render(&report),
            Some(prior) => results::render_resumed(prior, &report),
        };
        self.recorder.entry(
            "results",
            serde_json::json!({ "batch": batch_number, "text": rendered }),
        );
        if let Done::Honoured { message } = report.done {
            return Err(Stop::Done { message });
        }
        if report.cancelled() {
            // Ctrl+C: the results wait in the session, to be sent by the next run.
            self.session.in_flight = InFlight::Sending {
                message: rendered,
                kind: MessageKind::Results,
            };
            return Err(Stop::Chat(Failure::new(
                Code::Cancelled,
                "stopped by Ctrl+C; the results so far are saved and the next run sends them (keyless run --resume)",
            )));
        }
        Ok(rendered)
    }
}
