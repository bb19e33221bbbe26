//! Picking up a turn that stopped half-way, from what `.agent/` kept: the session (the message
//! in flight, or the reply being carried out) and the batch journal (which commands started and
//! finished). Nothing is resent that the chat already answered, and no command runs twice.

use super::record::{self, InFlight, JournalLine, Session};
use super::{Event, Next, Stop, Turn};
use crate::batch::results::{self, CommandResultHead};
use crate::batch::{self, Host, Settings, Skipped};
use crate::chat::{ChatDriver, Reopened};
use crate::protocol::{CommandKind, parse};
use crate::workspace::Workspace;

/// Picks up a turn that stopped half-way (see [`Session::interrupted`]): reopens its chat, then
/// waits for the reply already on the page, resends the unanswered message, carries out a reply
/// that never ran, or reports a batch cut short without running any of it twice.
pub fn resume(
    session: Session,
    driver: &mut dyn ChatDriver,
    ws: &Workspace,
    host: &mut dyn Host,
    settings: &Settings,
    on_event: &mut dyn FnMut(Event),
) -> Stop {
    let mut turn = Turn::new(session, ws, settings);
    turn.recorder.entry(
        "resume",
        serde_json::json!({
            "batch": turn.session.batch,
            "pending": matches!(turn.session.in_flight, InFlight::Sending { .. }),
            "reply": matches!(turn.session.in_flight, InFlight::CarryingOut { .. }),
        }),
    );
    let reopened = match turn.session.chat_url.clone() {
        Some(url) => match driver.reopen(&url, turn.session.in_flight.message()) {
            Ok(reopened) => reopened,
            Err(failure) => return turn.stop(Stop::Chat(failure), on_event),
        },
        None => Reopened::Empty,
    };
    on_event(Event::Resumed { reopened });
    if reopened == Reopened::Empty {
        // The chat is gone: a new one gets the rules and what was done before what is due.
        if let Err(failure) = driver.new_chat() {
            return turn.stop(Stop::Chat(failure), on_event);
        }
        turn.fresh_chat = true;
    }
    let next = match turn.session.in_flight.clone() {
        InFlight::CarryingOut { reply } => {
            let journal = record::read_journal(ws, turn.session.batch);
            if journal.is_empty() {
                // Nothing of it ran: carry it out now.
                Next::Carry(reply)
            } else {
                let message = turn.interrupted_results(&reply, &journal);
                Next::Send {
                    message,
                    kind: record::MessageKind::Results,
                }
            }
        }
        InFlight::Sending { .. } if reopened == Reopened::Answered => Next::Wait,
        InFlight::Sending { message, kind } => Next::Send { message, kind },
        InFlight::Idle => {
            let done = Stop::Done {
                message: Some("Nothing to resume: the saved turn had finished.".to_string()),
            };
            return turn.stop(done, on_event);
        }
    };
    turn.drive(next, driver, host, on_event)
}

impl Turn<'_> {
    /// The results message for a batch keyless was stopped in, from its journal.
    fn interrupted_results(&mut self, reply: &str, journal: &[JournalLine]) -> String {
        let script = parse(reply, &self.settings.limits).script;
        let blocks: Vec<&crate::protocol::Block> = script
            .as_ref()
            .map(|s| {
                s.blocks
                    .iter()
                    .filter(|b| {
                        !matches!(
                            b.command.kind(),
                            CommandKind::Say | CommandKind::Next | CommandKind::Done
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let head = |index: usize| {
            let block = blocks.iter().find(|b| b.index == index);
            CommandResultHead {
                index,
                kind: block.map_or(CommandKind::RunCommand, |b| b.command.kind()),
                label: block.map_or_else(String::new, |b| batch::label(&b.command)),
            }
        };
        let mut finished = Vec::new();
        let mut running = None;
        let mut last_index = 0;
        for line in journal {
            last_index = last_index.max(line.index);
            match &line.result {
                Some(text) => {
                    finished.push((head(line.index), text.clone()));
                    running = None;
                }
                None => running = Some(head(line.index)),
            }
        }
        for (head, text) in &finished {
            let status = text.lines().next().unwrap_or_default().to_string();
            self.remember(format!("{} {}: {status}", head.kind.name(), head.label));
        }
        let not_run = Skipped {
            reason: crate::batch::SkipReason::NotRun,
            commands: blocks
                .iter()
                .filter(|b| b.index > last_index)
                .map(|b| (b.index, b.command.kind(), batch::label(&b.command)))
                .collect(),
        };
        let message = results::render_interrupted(
            (self.session.turn, self.session.batch),
            blocks.len(),
            &finished,
            running,
            not_run,
        );
        self.recorder.entry(
            "results",
            serde_json::json!({ "batch": self.session.batch, "text": message, "interrupted": true }),
        );
        message
    }
}
