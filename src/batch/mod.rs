//! The batch engine: carries out one valid reply's commands in order and collects a result for
//! each, following the specification's rules for numbering, the per-response limit, `@@done`,
//! and what a failure does to the rest of the batch.
//!
//! File commands go to the [`Workspace`]; everything that needs the outside world (the user at a
//! terminal, processes, git) goes through the [`Host`] trait, so the engine itself never prompts,
//! spawns or touches git.

pub mod results;

use crate::catalog::{Code, Failure};
use crate::config::{FailureMode, Limits, Mode, Pace};
use crate::protocol::{Command, CommandKind, OnError, RunOptions, Script};
use crate::workspace::Workspace;
use crate::workspace::backup::Backup;
use crate::workspace::ops::FileOutcome;

/// How the batch runs.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub limits: Limits,
    pub pace: Pace,
    pub mode: Mode,
    pub failure_mode: FailureMode,
}

/// A question put to the user before an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// What will happen, e.g. `delete src/old.rs`.
    pub action: String,
    /// Why keyless asks.
    pub reason: String,
}

/// What one command produced: success or a failure, and whatever it has to show either way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// `None` for success.
    pub error: Option<Failure>,
    /// Extra status fields (exit code, duration, …).
    pub details: Vec<String>,
    /// Lines after the status line.
    pub lines: Vec<String>,
    /// Output to show, as (section name, text).
    pub block: Option<(&'static str, String)>,
    /// A read-only probe: its failure does not stop the batch under StopOnMutationFailure.
    pub read_only: bool,
}

impl Outcome {
    /// A failure with nothing else to show.
    pub fn failed(failure: Failure) -> Outcome {
        Outcome {
            error: Some(failure),
            ..Outcome::default()
        }
    }

    fn from_file(result: Result<FileOutcome, Failure>) -> Outcome {
        match result {
            Ok(o) => Outcome {
                error: None,
                details: o.details,
                lines: o.lines,
                block: o.block,
                read_only: false,
            },
            Err(failure) => Outcome::failed(failure),
        }
    }
}

/// The outside world as the batch sees it.
pub trait Host {
    /// Shows a `@@say` message to the user.
    fn say(&mut self, message: &str);
    /// Asks the user a question; `None` when nobody can answer.
    fn ask(&mut self, question: &str) -> Option<String>;
    /// Asks the user to approve an action; `false` when declined or nobody can answer.
    fn confirm(&mut self, confirmation: &Confirmation) -> bool;
    /// Runs a `@@runcommand` line.
    fn run_command(&mut self, cmd: &str, options: &RunOptions) -> Outcome;
    /// Carries out a `@@commit`.
    fn commit(&mut self, message: &str) -> Outcome;
}

/// The result of one executed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandResult {
    pub index: usize,
    pub kind: CommandKind,
    pub label: String,
    pub outcome: Outcome,
}

/// Commands that were not executed, for one reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub reason: String,
    /// (index, kind, label) of each skipped command.
    pub commands: Vec<(usize, CommandKind, String)>,
}

/// What happened to the reply's `@@done`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Done {
    /// The reply did not say `@@done`.
    NotRequested,
    /// The turn is finished.
    Honoured { message: Option<String> },
    /// The model still owes work; the reason is sent back.
    NotHonoured { why: String },
}

/// Everything one batch produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub turn: u64,
    pub batch: u64,
    /// Commands that count toward results (every command but say, next and done).
    pub total: usize,
    pub results: Vec<CommandResult>,
    pub skipped: Vec<Skipped>,
    pub done: Done,
}

impl Report {
    /// Whether every counted command ran and succeeded (commands after an honoured `@@done`
    /// aside: the turn is over and they are merely reported).
    pub fn all_ok(&self) -> bool {
        let finished = matches!(self.done, Done::Honoured { .. });
        self.skipped
            .iter()
            .all(|s| finished && s.reason == AFTER_DONE)
            && self.results.iter().all(|r| r.outcome.error.is_none())
    }
}

/// The skip reason for commands placed after `@@done`.
pub const AFTER_DONE: &str = "after @@done";

/// Runs a script's commands in order.
pub fn execute(
    script: &Script,
    ws: &Workspace,
    backup: &mut Backup,
    host: &mut dyn Host,
    settings: &Settings,
    (turn, batch): (u64, u64),
) -> Report {
    let limit = settings.pace.limit(&settings.limits);
    let limit_reason = match settings.pace {
        Pace::Batch => format!("batch limit is {limit} per response, resend them next"),
        pace => format!(
            "pace={}: only {limit} command(s) per response; send the next one after reading this result",
            pace.name()
        ),
    };
    let mut report = Report {
        turn,
        batch,
        total: 0,
        results: Vec::new(),
        skipped: Vec::new(),
        done: Done::NotRequested,
    };
    let mut counted = 0;
    let mut stopped_at: Option<usize> = None;
    let mut after_done = false;
    let mut first_failure: Option<usize> = None;

    for block in &script.blocks {
        let command = &block.command;
        let kind = command.kind();
        match command {
            Command::Say { msg } => {
                host.say(msg);
                continue;
            }
            Command::Next { .. } => continue,
            Command::Done { msg } if !after_done => {
                after_done = true;
                report.done = if report.skipped.iter().any(|s| s.reason == limit_reason) {
                    Done::NotHonoured {
                        why: "commands were skipped for the per-response limit; send them, then @@done".to_string(),
                    }
                } else if let Some(n) = stopped_at.or(first_failure) {
                    Done::NotHonoured {
                        why: format!("command #{n} failed; fix it, then finish with @@done"),
                    }
                } else {
                    Done::Honoured {
                        message: msg.clone(),
                    }
                };
                continue;
            }
            Command::Done { .. } => continue,
            _ => {}
        }
        report.total += 1;
        let label = label(command);
        let skip_reason = if after_done {
            Some(AFTER_DONE.to_string())
        } else if counted >= limit {
            Some(limit_reason.clone())
        } else {
            stopped_at.map(|n| format!("batch stopped at command #{n}"))
        };
        if let Some(reason) = skip_reason {
            skip(&mut report.skipped, reason, (block.index, kind, label));
            continue;
        }
        counted += 1;
        let (outcome, on_error) = run_one(command, ws, backup, host, settings);
        if outcome.error.is_some() {
            first_failure.get_or_insert(block.index);
            let stops = match on_error {
                Some(OnError::Continue) => false,
                Some(OnError::Stop) => true,
                None => match settings.failure_mode {
                    FailureMode::Continue => false,
                    FailureMode::StopOnAnyFailure => true,
                    FailureMode::StopOnMutationFailure => !outcome.read_only,
                },
            };
            if stops {
                stopped_at = Some(block.index);
            }
        }
        let result = CommandResult {
            index: block.index,
            kind,
            label,
            outcome,
        };
        report.results.push(result);
    }
    report
}

fn skip(skipped: &mut Vec<Skipped>, reason: String, command: (usize, CommandKind, String)) {
    match skipped.last_mut() {
        Some(last) if last.reason == reason => last.commands.push(command),
        _ => skipped.push(Skipped {
            reason,
            commands: vec![command],
        }),
    }
}

/// Executes one counted command; returns its outcome and its `on_error` override.
fn run_one(
    command: &Command,
    ws: &Workspace,
    backup: &mut Backup,
    host: &mut dyn Host,
    settings: &Settings,
) -> (Outcome, Option<OnError>) {
    let file = Outcome::from_file;
    let outcome = match command {
        Command::NewFile { path, content } => file(ws.new_file(path, content, backup)),
        Command::UpdateFile { path, content } => file(ws.update_file(path, content, backup)),
        Command::EditFile {
            path,
            find,
            replace,
        } => file(ws.edit_file(path, find, replace, backup)),
        Command::DeleteFile { path } => {
            let confirmation = Confirmation {
                action: format!("delete {path}"),
                reason: "deleting a file needs your yes in Ask mode (a backup is kept)".to_string(),
            };
            if settings.mode == Mode::Ask && !host.confirm(&confirmation) {
                Outcome::failed(Failure::new(
                    Code::CommandDeclined,
                    format!(
                        "the user did not approve deleting {path} (Ask mode; without a terminal nobody can approve); the file is untouched"
                    ),
                ))
            } else {
                file(ws.delete_file(path, backup))
            }
        }
        Command::ReadFile { path } => Outcome {
            read_only: true,
            ..file(ws.read_file(path, settings.limits.max_file_content_chars))
        },
        Command::Mkdir { path } => file(ws.make_dir(path, backup)),
        Command::MoveFile { from, to } => file(ws.move_file(from, to, backup)),
        Command::Ask { msg } => match host.ask(msg) {
            Some(answer) => Outcome {
                block: Some(("ANSWER", answer)),
                ..Outcome::default()
            },
            None => Outcome::failed(Failure::new(
                Code::CommandDeclined,
                "nobody can answer: keyless runs without a terminal. Decide yourself and say what you assumed in @@say, or finish with @@done and put the question in its MSG.",
            )),
        },
        Command::RunCommand { cmd, options } => {
            return (host.run_command(cmd, options), options.on_error);
        }
        Command::Commit { msg } => host.commit(msg),
        Command::Say { .. } | Command::Done { .. } | Command::Next { .. } => Outcome::default(),
    };
    (outcome, None)
}

/// How a command is named in the results: its path, or the first line of its text.
fn label(command: &Command) -> String {
    const MAX: usize = 80;
    let text = match command {
        Command::MoveFile { from, to } => return format!("{from} -> {to}"),
        Command::RunCommand { cmd, .. } => cmd.trim(),
        Command::Commit { msg } | Command::Ask { msg } => msg.trim(),
        other => other.path().unwrap_or_default(),
    };
    let first = text.lines().next().unwrap_or_default();
    let mut label: String = first.chars().take(MAX).collect();
    if label.len() < text.len() {
        label.push_str(" …");
    }
    label
}
