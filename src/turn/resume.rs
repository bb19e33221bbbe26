//! Picking up a turn that stopped half-way, from what `.agent/` kept: the session (the message
//! in flight, or the reply being carried out) and the batch journal (which commands started and
//! finished). Nothing is resent that the chat already answered, and no command runs twice.

use super::carry::{self, Resumed};
use super::record::{self, InFlight, JournalLine, Recorded, Session};
use super::{Event, Next, Stop, Turn};
use crate::batch::results::{self, CommandResultHead};
use crate::batch::{self, Host, Settings, Skipped, Start};
use crate::chat::{ChatDriver, Reopened};
use crate::protocol::{Block, CommandKind, parse};
use crate::workspace::Workspace;
use crate::workspace::backup::Mark;
use crate::workspace::settle::{Settled, settled, untouched_since};

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
    if let Some(stop) = turn.limit_in_force(driver, on_event) {
        return turn.stop(stop, on_event);
    }
    let pending = turn.session.in_flight.message().map(str::to_string);
    let mut reopened = match turn.session.chat_url.clone() {
        Some(url) => match driver.reopen(&url, pending.as_deref()) {
            Ok(reopened) => reopened,
            Err(failure) => return turn.stop(Stop::Chat(failure), on_event),
        },
        None => Reopened::Empty,
    };
    // keyless stopped before a new chat had its address (the first message was sent, and the
    // page had not yet moved to the chat's own): the chat is found by what it holds, in the
    // browser's other tabs or the site's history list, so that the task is never sent twice.
    if reopened == Reopened::Empty
        && let Some(message) = pending.as_deref()
    {
        match driver.find_chat(message) {
            Ok(Some(url)) => {
                turn.recorder
                    .entry("found", serde_json::json!({ "chat_url": url }));
                reopened = match driver.reopen(&url, Some(message)) {
                    Ok(found) => found,
                    Err(failure) => return turn.stop(Stop::Chat(failure), on_event),
                };
                if reopened != Reopened::Empty {
                    turn.session.chat_url = Some(url);
                }
            }
            Ok(None) => {}
            Err(failure) => return turn.stop(Stop::Chat(failure), on_event),
        }
    }
    // The task's first message, rules and all, that no chat ever took (the site refused it: a
    // limit up before anything went) needs no summary around it in a new chat: it is one.
    let whole_first = match &turn.session.in_flight {
        InFlight::Sending {
            message,
            kind: record::MessageKind::Task,
        } => turn
            .session
            .rules
            .as_deref()
            .map(str::trim)
            .is_some_and(|rules| !rules.is_empty() && message.starts_with(rules)),
        _ => false,
    };
    on_event(Event::Resumed {
        reopened: if whole_first && reopened == Reopened::Empty {
            Reopened::Unsent
        } else {
            reopened
        },
    });
    if reopened == Reopened::Empty {
        // The chat is gone: a new one gets the rules and what was done before what is due.
        if let Err(failure) = driver.new_chat() {
            return turn.stop(Stop::Chat(failure), on_event);
        }
        turn.fresh_chat = !whole_first;
    }
    let next = match turn.session.in_flight.clone() {
        InFlight::CarryingOut { reply } => {
            let journal = record::read_journal(ws, turn.session.batch);
            if journal.is_empty() {
                // Nothing of it ran: carry it out now.
                Next::Carry {
                    reply,
                    resumed: None,
                }
            } else {
                match turn.pick_up(&reply, &journal) {
                    Ok(resumed) => Next::Carry {
                        reply,
                        resumed: Some(resumed),
                    },
                    Err(message) => Next::Send {
                        message,
                        kind: record::MessageKind::Results,
                    },
                }
            }
        }
        InFlight::Sending { .. } if matches!(reopened, Reopened::Answered | Reopened::Retried) => {
            Next::Wait
        }
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

/// What a batch's journal says: the commands that finished (their result texts), the one that
/// was running when keyless stopped, and where the batch's backup stood last.
#[derive(Default)]
struct Replayed {
    /// Each finished command: its number, its result text, whether it succeeded.
    finished: Vec<(usize, String, bool)>,
    running: Option<(usize, Option<Mark>)>,
    mark: Option<Mark>,
}

fn replay(journal: &[JournalLine]) -> Replayed {
    let mut replayed = Replayed::default();
    for line in journal {
        match &line.result {
            Some(text) => {
                replayed
                    .finished
                    .push((line.index, text.clone(), line.succeeded()));
                replayed.running = None;
            }
            None => {
                replayed.running = Some((line.index, line.backup));
                replayed.mark = line.backup.or(replayed.mark);
            }
        }
    }
    replayed
}

/// The commands of a reply (what is numbered in a results message).
fn commands(script: Option<&crate::protocol::Script>) -> Vec<&Block> {
    script
        .map(|s| {
            s.blocks()
                .iter()
                .filter(|b| {
                    !matches!(
                        b.command.kind(),
                        CommandKind::Say | CommandKind::Next | CommandKind::Done
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn head_of(blocks: &[&Block], index: usize) -> CommandResultHead {
    let block = blocks.iter().find(|b| b.index == index);
    CommandResultHead {
        index,
        kind: block.map_or(CommandKind::RunCommand, |b| b.command.kind()),
        label: block.map_or_else(String::new, |b| batch::label(&b.command)),
    }
}

impl Turn<'_> {
    /// Goes on with a batch keyless was stopped in, when what was running can be known: a file
    /// command is resolved by looking at the workspace (done: reported so; not done: run now), a
    /// command that is harmless to repeat is run again, and the commands that never started
    /// follow.
    /// When it cannot be known (a process, a commit), or a failure may have stopped the batch,
    /// the results message that reports the batch as it stands (`Err`), nothing run again.
    fn pick_up(&mut self, reply: &str, journal: &[JournalLine]) -> Result<Resumed, String> {
        let parsed = parse(reply, &self.settings.limits);
        let blocks = commands(parsed.script.as_ref());
        let replayed = replay(journal);
        // Each finished command's head, result text, and whether it succeeded.
        let mut prior: Vec<(CommandResultHead, String, bool)> = replayed
            .finished
            .iter()
            .map(|(index, text, ok)| (head_of(&blocks, *index), text.clone(), *ok))
            .collect();
        // Another batch or an undo since the stop (or a journal from before marks were kept):
        // what the workspace says is not known to be this batch's.
        let untouched = replayed.mark.is_some_and(|mark| {
            untouched_since(self.ws, mark, &carry::backup_label(self.session.batch))
        });
        let resolved = match replayed.running {
            _ if !untouched => None,
            // Between two commands: unless the last one failed (its failure may have stopped
            // the batch), the next one goes on.
            None => match replayed.finished.last() {
                Some((_, _, ok)) if !ok => None,
                last => Some(last.map_or(1, |(index, _, _)| index + 1)),
            },
            Some((index, mark)) => match head_of(&blocks, index).kind {
                // Harmless to run again: a read, a folder made again is a no-op, a question.
                CommandKind::ReadFile | CommandKind::Mkdir | CommandKind::Ask => Some(index),
                CommandKind::NewFile
                | CommandKind::UpdateFile
                | CommandKind::EditFile
                | CommandKind::DeleteFile
                | CommandKind::MoveFile => match mark.map(|m| settled(self.ws, m)) {
                    Some(Settled::NotDone) => Some(index),
                    Some(Settled::Done(what)) => {
                        let text = format!(
                            "status: ok | resumed: it was done before keyless stopped ({what}; checked on disk)\n"
                        );
                        self.recorder.journal(&JournalLine {
                            batch: self.session.batch,
                            index,
                            result: Some(text.clone()),
                            outcome: Some(Recorded::ok()),
                            backup: None,
                        });
                        prior.push((head_of(&blocks, index), text, true));
                        Some(index + 1)
                    }
                    Some(Settled::Unknown(_)) | None => None,
                },
                _ => None,
            },
        };
        for (head, text, _) in &prior {
            let status = text.lines().next().unwrap_or_default().to_string();
            self.remember(format!("{} {}: {status}", head.kind.name(), head.label));
        }
        match (resolved, parsed.script.is_some()) {
            (Some(at), true) => {
                self.recorder.entry(
                    "resumed",
                    serde_json::json!({ "batch": self.session.batch, "at": at }),
                );
                Ok(Resumed {
                    start: Start {
                        at,
                        counted: prior.len(),
                        failed: prior
                            .iter()
                            .find(|(_, _, ok)| !ok)
                            .map(|(head, _, _)| head.index),
                    },
                    prior: prior
                        .into_iter()
                        .map(|(head, text, _)| (head, text))
                        .collect(),
                    mark: replayed.mark,
                })
            }
            _ => Err(self.interrupted_results(
                &blocks,
                prior
                    .into_iter()
                    .map(|(head, text, _)| (head, text))
                    .collect(),
                replayed.running,
            )),
        }
    }

    /// The results message for a batch keyless was stopped in and cannot go on with: what
    /// finished, the command whose outcome nobody knows, and what never ran.
    fn interrupted_results(
        &mut self,
        blocks: &[&Block],
        finished: Vec<(CommandResultHead, String)>,
        running: Option<(usize, Option<Mark>)>,
    ) -> String {
        let last_index = finished
            .iter()
            .map(|(head, _)| head.index)
            .chain(running.map(|(index, _)| index))
            .max()
            .unwrap_or(0);
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
            running.map(|(index, _)| head_of(blocks, index)),
            not_run,
        );
        self.recorder.entry(
            "results",
            serde_json::json!({ "batch": self.session.batch, "text": message, "interrupted": true }),
        );
        message
    }
}
