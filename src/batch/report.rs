//! What a batch produces: each command's [`Outcome`], the skipped commands and why, what became
//! of `@@done`, and the [`Report`] that gathers them; and how a finished process or a commit
//! becomes an outcome.

use std::time::Duration;

use crate::catalog::{Code, Failure};
use crate::config::Pace;
use crate::protocol::CommandKind;
use crate::workspace::ops::FileOutcome;

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
    /// For `@@runcommand`: what the command policy made of the line.
    pub policy: Option<CommandPolicy>,
}

/// A command line's tier, and what the mode decided for it (ask, run, never).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CommandPolicy {
    pub tier: crate::policy::Tier,
    pub decision: crate::policy::Approval,
}

impl Outcome {
    /// A failure with nothing else to show.
    pub fn failed(failure: Failure) -> Outcome {
        Outcome {
            error: Some(failure),
            ..Outcome::default()
        }
    }

    pub(super) fn from_file(result: Result<FileOutcome, Failure>) -> Outcome {
        match result {
            Ok(o) => Outcome {
                error: None,
                details: o.details,
                lines: o.lines,
                block: o.block,
                ..Outcome::default()
            },
            Err(failure) => Outcome::failed(failure),
        }
    }
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
    pub reason: SkipReason,
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

/// The done-check as it ran: the person's command line and what it produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub command: String,
    pub outcome: Outcome,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.outcome.error.is_none()
    }
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
    /// The person's done-check (`--until`), run when the reply's `@@done` would be honoured:
    /// when it fails, `done` is not honoured.
    pub check: Option<Check>,
    /// Secrets taken out of the results.
    pub redacted: usize,
}

impl Report {
    /// Whether the user cancelled a command.
    pub fn cancelled(&self) -> bool {
        self.results.iter().any(|r| {
            r.outcome
                .error
                .as_ref()
                .is_some_and(|f| f.code == Code::Cancelled)
        })
    }

    /// Whether every counted command ran and succeeded (commands after an honoured `@@done`
    /// aside: the turn is over and they are merely reported).
    pub fn all_ok(&self) -> bool {
        let finished = matches!(self.done, Done::Honoured { .. });
        self.skipped
            .iter()
            .all(|s| finished && s.reason == SkipReason::AfterDone)
            && self.results.iter().all(|r| r.outcome.error.is_none())
    }
}

/// Why commands were not executed. Decisions match on the kind; [`SkipReason::text`] is only
/// what the results message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Past the per-response limit of this pace.
    Limit { pace: Pace, limit: usize },
    /// A failed command (this one) stopped the batch.
    StoppedAt(usize),
    /// Placed after `@@done`.
    AfterDone,
    /// The user pressed Ctrl+C.
    Cancelled,
    /// keyless was stopped (killed, crashed) before it reached them.
    NotRun,
}

impl SkipReason {
    /// The reason as the results message gives it to the model.
    pub fn text(self) -> String {
        match self {
            SkipReason::Limit {
                pace: Pace::Batch,
                limit,
            } => format!("batch limit is {limit} per response, resend them next"),
            SkipReason::Limit { pace, limit } => format!(
                "pace={}: only {limit} command(s) per response; send the next one after reading this result",
                pace.name()
            ),
            SkipReason::StoppedAt(n) => format!("batch stopped at command #{n}"),
            SkipReason::AfterDone => "after @@done".to_string(),
            SkipReason::Cancelled => "cancelled by the user (Ctrl+C)".to_string(),
            SkipReason::NotRun => {
                "keyless was stopped before running them; send them again if they are still needed"
                    .to_string()
            }
        }
    }
}

/// Turns a finished process into a result.
pub fn command_outcome(run: &crate::exec::Run, timeout: Duration) -> Outcome {
    let mut details = Vec::new();
    if let Some(code) = run.code {
        details.push(format!("exit code: {code}"));
    }
    details.push(format!("duration: {:.1}s", run.duration.as_secs_f64()));
    let error = if run.cancelled {
        Some(Failure::new(
            Code::Cancelled,
            "the user cancelled the command (Ctrl+C); it was stopped with its whole process group. The partial output is below.",
        ))
    } else if run.timed_out {
        Some(Failure::new(
            Code::Timeout,
            format!(
                "the command ran longer than its timeout of {}s and was stopped with its whole process group. The partial output is below. Give it more time with @@runcommand timeout=SECONDS, or run something shorter.",
                timeout.as_secs()
            ),
        ))
    } else {
        match run.code {
            Some(0) => None,
            Some(127) => Some(Failure::new(
                Code::CommandNotFound,
                "the shell could not find the program (exit code 127): check its name, or use a tool the environment lists",
            )),
            Some(code) => Some(Failure::new(
                Code::CommandFailed,
                format!("the command exited with code {code}"),
            )),
            None => Some(Failure::new(
                Code::CommandFailed,
                "the command was ended by a signal",
            )),
        }
    };
    let (lines, block) = if run.output.is_empty() {
        (vec!["(no output)".to_string()], None)
    } else {
        (
            Vec::new(),
            Some(("OUTPUT", run.output.trim_end_matches('\n').to_string())),
        )
    };
    Outcome {
        error,
        details,
        lines,
        block,
        ..Outcome::default()
    }
}

/// Turns a `@@commit` into a result: a failed push keeps the commit and reports both.
pub fn commit_outcome(result: Result<crate::git::Committed, Failure>) -> Outcome {
    match result {
        Ok(committed) => Outcome {
            error: committed.push_failure,
            details: committed.details,
            lines: committed.lines,
            ..Outcome::default()
        },
        Err(failure) => Outcome::failed(failure),
    }
}
