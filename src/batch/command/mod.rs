//! One `@@runcommand`, decided and carried out in one place, top to bottom:
//!
//! 0. its time limit: the `timeout=` asked for, at most the configured maximum, else the
//!    configured default;
//! 1. the policy's verdict on the line (Risky where the repository's git configuration would
//!    make a read-only git command run a program);
//! 2. the approval the mode gives it: never, after the person's yes, or at once;
//! 3. a configured tool the snapshot found Missing: refused before anything starts;
//! 4. the first attempt, inside the sandbox;
//! 5. what the sandbox refused it: a note, a change it undid, or a refusal. Only after a
//!    refusal, and only in Ask mode, the person is offered, once, to run it again outside the
//!    sandbox (declined without a terminal);
//! 6. the outcome, with keyless's own details after the process's (`tier: …`, `sandbox: off
//!    (you allowed it)`).
//!
//! Like Codex CLI's tool orchestrator, approval and the escalation out of the sandbox stand side
//! by side, so that no other floor decides either: the person is only asked (a [`Person`]), and
//! the command only attempted (a [`Runner`]: this [`Machine`], or a test's stand-in that starts
//! nothing).
//!
//! What this module does not do: classify (the policy does), contain (the sandbox does), or
//! talk to the person (the CLI does, through its [`Person`]).
//!
//! [`Person`]: super::Person

mod machine;

pub use machine::Machine;

use std::time::Duration;

use super::report::CommandPolicy;
use super::{Confirmation, ConfirmationKind, Host, Outcome, Settings};
use crate::catalog::{Code, Failure};
use crate::config::Mode;
use crate::exec::sandbox::Refusal;
use crate::policy::{self, Approval, Tier};

/// Where a command line runs: the one part of a `@@runcommand` the orchestrator cannot do
/// itself. Every choice (inside the sandbox or out of it) is the orchestrator's.
pub trait Runner {
    /// Runs `cmd` with the shell within `timeout`, contained as `mode` has it, and says what
    /// the sandbox refused it.
    fn contained(&mut self, cmd: &str, timeout: Duration, mode: Mode) -> Attempt;
    /// Runs `cmd` with the shell within `timeout` outside the sandbox (a person allowed it),
    /// still without the secret environment.
    fn unconfined(&mut self, cmd: &str, timeout: Duration) -> Outcome;
    /// Carries out a `@@commit`.
    fn commit(&mut self, message: &str) -> Outcome;
    /// The batch is over (its temporary folder can go); what it found to say about the batch as
    /// a whole (a repository a command made that would run a program, moved away).
    fn batch_finished(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// A command may come soon (the model has the results and is answering, or a batch has
    /// more command lines): what every command needs may be made ready now, off the path from
    /// its reply to its end. `placeholders`: whether what is made ready may hold placeholders
    /// in the workspace meanwhile (an empty `keyless.json` where there is none), as it may
    /// between two commands of a batch but not while the person may be working beside it.
    fn prepare(&mut self, _mode: Mode, _placeholders: bool) {}
    /// No command comes for now (the turn is over): what [`Runner::prepare`] made ready goes.
    fn rest(&mut self) {}
}

/// One contained run: what it produced, and what the sandbox refused it.
#[derive(Debug)]
pub struct Attempt {
    pub outcome: Outcome,
    pub refusal: Option<Refusal>,
}

impl From<Outcome> for Attempt {
    /// An attempt the sandbox had nothing to say about.
    fn from(outcome: Outcome) -> Attempt {
        Attempt {
            outcome,
            refusal: None,
        }
    }
}

/// Decides about the command line `cmd`, asks when the mode says so, and runs it.
pub(super) fn run(
    cmd: &str,
    asked_seconds: Option<u32>,
    host: &mut dyn Host,
    settings: &Settings,
) -> Outcome {
    // 0. The time limit.
    let timeout = asked_seconds.map_or(settings.default_timeout, |s| {
        Duration::from_secs(u64::from(s)).min(settings.max_timeout)
    });
    // 1. The verdict.
    let mut verdict = policy::judge(cmd, &settings.lists);
    let programs = policy::classify::programs(&verdict.classification);
    if verdict.classification.tier == Tier::ReadOnly
        && !settings.git_hazards.is_empty()
        && programs.iter().any(|p| p == "git")
    {
        verdict.classification.tier = Tier::Risky;
        verdict.classification.segments.push(policy::Segment {
            text: cmd.trim().to_string(),
            tier: Tier::Risky,
            reason: format!(
                "the repository's own git configuration sets {}, which would make git run a program",
                settings.git_hazards.join(", ")
            ),
            kind: policy::ReasonKind::GitHazard,
        });
    }
    let tier = verdict.classification.tier;
    let top = verdict
        .classification
        .segments
        .iter()
        .filter(|s| s.tier == tier)
        .map(|s| format!("{} ({})", s.reason, s.text))
        .collect::<Vec<_>>()
        .join("; ");
    let tier_detail = format!("tier: {}", tier.name());
    let decision = verdict.approval(settings.mode);
    let policy = Some(CommandPolicy { tier, decision });
    let refused = |code: Code, reason: String| Outcome {
        details: vec![tier_detail.clone()],
        policy,
        ..Outcome::failed(Failure::new(code, reason))
    };

    // 2. The approval.
    match decision {
        Approval::Never => {
            return refused(
                Code::CommandDenied,
                format!(
                    "the command policy never runs this: {top}. Nothing was started; do not retry it in another spelling."
                ),
            );
        }
        Approval::Confirm => {
            let confirmation = Confirmation {
                action: format!("run: {}", cmd.trim()),
                reason: top.clone(),
                kind: ConfirmationKind::Approval { tier: Some(tier) },
            };
            if !host.person().confirm(&confirmation) {
                return refused(
                    Code::CommandDeclined,
                    format!(
                        "the user did not approve this {} command ({top}); without a terminal nobody can approve. Nothing was started.",
                        tier.name()
                    ),
                );
            }
        }
        Approval::Auto => {}
    }

    // 3. A tool the snapshot found Missing.
    if let Some(tool) = programs.iter().find(|p| settings.missing_tools.contains(p)) {
        return refused(
            Code::ToolMissing,
            format!(
                "{tool} is listed as Missing in the environment snapshot; the command was not started. Do not retry it: use another tool, or tell the user it is needed."
            ),
        );
    }

    // 4. The first attempt, inside the sandbox.
    host.person().running(cmd);
    let Attempt {
        mut outcome,
        refusal,
    } = host.runner().contained(cmd, timeout, settings.mode);

    // 5. What the sandbox refused it, and the one offer to leave it.
    match refusal {
        None => {}
        Some(Refusal::Noted(note)) => outcome.lines.push(note),
        Some(Refusal::Tampered(failure)) => outcome.error = Some(failure),
        Some(Refusal::Refused(failure)) => {
            let leave = Confirmation {
                action: format!("run again without the sandbox: {}", cmd.trim()),
                reason: failure.reason.clone(),
                kind: ConfirmationKind::LeaveSandbox,
            };
            if settings.mode == Mode::Ask && host.person().confirm(&leave) {
                outcome = host.runner().unconfined(cmd, timeout);
                outcome
                    .details
                    .push("sandbox: off (you allowed it)".to_string());
            } else {
                outcome.error = Some(failure);
            }
        }
    }

    // 6. The outcome: the specification's fields first (`exit code`, `duration`), keyless's own
    // after them.
    outcome.details.push(tier_detail);
    outcome.read_only = tier == Tier::ReadOnly;
    outcome.policy = policy;
    outcome
}

/// Runs the person's done-check in the sandbox, as the model's commands run (the person gave
/// it, so no policy asks about it; it may take as long as a command may at most). A check that
/// fails, in any way, is a [`Code::DoneCheckFailed`] with the reason it failed.
pub(super) fn done_check(until: &str, host: &mut dyn Host, settings: &Settings) -> Outcome {
    host.person().running(until);
    let Attempt {
        mut outcome,
        refusal,
    } = host
        .runner()
        .contained(until, settings.max_timeout, settings.mode);
    match refusal {
        None => {}
        Some(Refusal::Noted(note)) => outcome.lines.push(note),
        Some(Refusal::Tampered(failure) | Refusal::Refused(failure)) => {
            outcome.error = Some(failure)
        }
    }
    if let Some(failure) = &mut outcome.error {
        // The check is the person's: the model can change the work, not the check's time.
        let why = match failure.code {
            Code::Timeout => format!(
                "it ran longer than {}s (Commands.MaxTimeoutSeconds, the person's bound for the check) and was stopped with its whole process group; its output so far is below. The check itself is the person's: make the work pass it sooner (a test that hangs, a loop that never ends)",
                settings.max_timeout.as_secs()
            ),
            _ => failure.reason.clone(),
        };
        *failure = Failure::new(
            Code::DoneCheckFailed,
            format!("the done-check failed ({}): {why}", failure.code),
        );
    }
    outcome
}

#[cfg(test)]
mod tests;
