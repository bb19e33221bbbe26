//! The batch engine: carries out one valid reply's commands in order and collects a result for
//! each, following the specification's rules for numbering, the per-response limit, `@@done`,
//! and what a failure does to the rest of the batch.
//!
//! File commands go to the [`Workspace`]; a `@@runcommand` goes to its orchestrator
//! ([`command`]: policy, approval, sandbox, running); everything that needs the outside world
//! goes through the [`Host`]: its [`Person`] (the user, whom the engine never prompts itself) and
//! its [`Runner`] (processes and git, which the engine never starts itself).

pub(crate) mod command;
pub(crate) mod report;
pub mod results;

pub use command::{Attempt, Machine, Runner};
pub use report::{Check, CommandResult, Done, Outcome, Report, SkipReason, Skipped};

use std::path::Path;
use std::time::Duration;

use crate::catalog::{Code, Failure};
use crate::config::{FailureMode, Limits, Mode, Pace, SandboxConfig};
use crate::policy::{Lists, Tier};
use crate::protocol::{Command, CommandKind, OnError, Script};
use crate::redact::{KnownValue, Redactor};
use crate::workspace::Workspace;
use crate::workspace::backup::{Backup, Mark};

/// How the batch runs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub limits: Limits,
    pub pace: Pace,
    pub mode: Mode,
    pub failure_mode: FailureMode,
    /// Commands.AllowList and Commands.DenyList.
    pub lists: Lists,
    /// Commands.TimeoutSeconds: a command's timeout unless it sets `timeout=`.
    pub default_timeout: Duration,
    /// Commands.MaxTimeoutSeconds: the most `timeout=` may ask for.
    pub max_timeout: Duration,
    /// Configured tools the environment snapshot found Missing (KA_TOOL_MISSING).
    pub missing_tools: Vec<String>,
    /// Settings of the repository's own git configuration that would make read-only git
    /// commands run programs; such commands are then Risky.
    pub git_hazards: Vec<String>,
    /// Takes secrets out of every result before it is reported (Secrets.Redact); `None` when
    /// the user turned redaction off.
    pub redactor: Option<Redactor>,
    /// On a rate or usage limit, wait for the reset and go on (`--wait`,
    /// `Browser.WaitOnLimits`); otherwise the turn stops resumable at once.
    pub wait_on_limits: bool,
    /// The person said the limit a stopped turn met is lifted (`--now`): a resume goes on
    /// before its reset instead of stopping there.
    pub limit_lifted: bool,
    /// The done-check (`keyless run --until CMD`): a command line of the person's that must
    /// succeed, in the sandbox, before a reply's `@@done` is honoured; when it fails, its output
    /// goes back to the model with the batch's results and the turn goes on.
    pub until: Option<String>,
    /// The command that resumes this run as the person must type it (its workspace, page and
    /// browser flags), kept in the session for `keyless status`.
    pub resume_command: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            limits: Limits::default(),
            pace: Pace::default(),
            mode: Mode::default(),
            failure_mode: FailureMode::default(),
            lists: Lists::default(),
            default_timeout: DEFAULT_TIMEOUT,
            max_timeout: MAX_TIMEOUT,
            missing_tools: Vec::new(),
            git_hazards: Vec::new(),
            redactor: Some(Redactor::default()),
            wait_on_limits: false,
            limit_lifted: false,
            until: None,
            resume_command: None,
        }
    }
}

impl Settings {
    /// The batch settings a configuration gives for the workspace at `root` (flags are applied
    /// on top by the caller).
    pub fn from_config(config: &crate::config::Config, root: &Path) -> Settings {
        Settings {
            limits: config.limits.clone(),
            pace: config.agent.pace,
            mode: config.agent.mode,
            failure_mode: config.commands.failure_mode,
            lists: Lists {
                allow: config.commands.allow_list.clone(),
                deny: config.commands.deny_list.clone(),
            },
            default_timeout: Duration::from_secs(config.commands.timeout_seconds),
            max_timeout: Duration::from_secs(config.commands.max_timeout_seconds),
            missing_tools: Vec::new(),
            git_hazards: Vec::new(),
            redactor: config.secrets.redact.then(|| {
                let mut known = secret_env_values(&config.sandbox);
                // A folder that cannot be opened has no files to read; opening the workspace
                // reports it.
                if let Ok(ws) = Workspace::open(root) {
                    known.extend(ws.dotenv_secrets());
                }
                Redactor::from_known(known, config.secrets.allow.clone())
            }),
            wait_on_limits: config.browser.wait_on_limits,
            limit_lifted: false,
            until: None,
            resume_command: None,
        }
    }
}

/// The values of this process's environment that are secrets to the model, masked wherever
/// they appear in what keyless reports: every variable whose name marks it secret (also one
/// `Sandbox.PassEnv` hands through: the command may use it, the chat never sees it), and every
/// one withheld from the model's processes (`Sandbox.HiddenEnv`, the agent sockets), unless
/// passed. Variables whose name or value is not UTF-8 are left out (no text keyless sends can
/// hold them whole).
pub fn secret_env_values(sandbox: &SandboxConfig) -> Vec<KnownValue> {
    let withheld = crate::exec::sandbox::hidden_env_names(std::env::vars_os(), sandbox);
    std::env::vars_os()
        .filter_map(|(name, value)| {
            let secret = name.to_str().is_some_and(crate::redact::is_secret_env_name)
                || withheld.contains(&name);
            if !secret {
                return None;
            }
            Some(KnownValue::env(
                name.into_string().ok()?,
                value.into_string().ok()?,
            ))
        })
        .collect()
}

/// A command's timeout when neither it nor the configuration says otherwise: long enough for a
/// real build or test run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// The longest `timeout=` a reply may ask for unless the configuration allows more.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(1800);

/// A question put to the user before an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// What will happen, e.g. `delete src/old.rs` or `run: cargo test`.
    pub action: String,
    /// Why keyless asks.
    pub reason: String,
    /// What the question is about, which says the answers it takes.
    pub kind: ConfirmationKind,
}

/// What a [`Confirmation`] asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmationKind {
    /// Whether an action may happen: yes, no, or "always" (the same action for the rest of the
    /// session). `tier` is the command line's, for `@@runcommand`.
    Approval { tier: Option<Tier> },
    /// Whether a command the sandbox refused may run again outside it: yes or no, each time;
    /// never answered by an earlier "always".
    LeaveSandbox,
}

/// The person keyless works for, as the batch sees them: the one door to the user. They are
/// shown messages and asked; what runs, and when to ask, is decided below them.
pub trait Person {
    /// Shows a `@@say` message to the user.
    fn say(&mut self, message: &str);
    /// Asks the user a question; `None` when nobody can answer.
    fn ask(&mut self, question: &str) -> Option<String>;
    /// Asks the user to confirm; `false` when declined or nobody can answer.
    fn confirm(&mut self, confirmation: &Confirmation) -> bool;
    /// An approved command line is about to start (a person at a terminal sees its first line).
    fn running(&mut self, _cmd: &str) {}
}

/// The outside world as the batch sees it: the person it works for, and where its command lines
/// and commits run. A type that is both (a test's stand-in) is a host by itself; [`Joined`]
/// makes one of two parts.
pub trait Host {
    /// The person the batch works for.
    fn person(&mut self) -> &mut dyn Person;
    /// Where its command lines and commits run.
    fn runner(&mut self) -> &mut dyn Runner;
}

impl<T: Person + Runner> Host for T {
    fn person(&mut self) -> &mut dyn Person {
        self
    }
    fn runner(&mut self) -> &mut dyn Runner {
        self
    }
}

/// A host of two parts: the CLI's is a person at a terminal and this [`Machine`].
pub struct Joined<P, R> {
    pub person: P,
    pub runner: R,
}

impl<P: Person, R: Runner> Host for Joined<P, R> {
    fn person(&mut self) -> &mut dyn Person {
        &mut self.person
    }
    fn runner(&mut self) -> &mut dyn Runner {
        &mut self.runner
    }
}

/// What [`execute_observed`] reports as it goes.
#[derive(Debug)]
pub enum Step<'a> {
    /// A command is about to run; `mark` is where the batch's backup stood.
    Starting {
        index: usize,
        kind: CommandKind,
        label: &'a str,
        mark: Option<Mark>,
    },
    /// A command ran.
    Finished(&'a CommandResult),
}

/// Runs a script's commands in order.
pub fn execute(
    script: &Script,
    ws: &Workspace,
    backup: &mut Backup,
    host: &mut dyn Host,
    settings: &Settings,
    ids: (u64, u64),
) -> Report {
    let start = Start::default();
    execute_observed(script, ws, backup, host, settings, ids, start, &mut |_| {})
}

/// Where a batch starts: at its beginning, or where keyless was stopped in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Start {
    /// Blocks numbered below this ran before (their results are reported by the caller).
    pub at: usize,
    /// How many commands ran before: they count towards the per-response limit.
    pub counted: usize,
    /// The first of them that failed: `@@done` is not honoured after a failure.
    pub failed: Option<usize>,
}

/// [`execute`] from `start`, telling `on_step` before and after each command runs (the turn
/// journals them, so that a crash mid-batch never runs a command twice).
#[allow(clippy::too_many_arguments)]
pub fn execute_observed(
    script: &Script,
    ws: &Workspace,
    backup: &mut Backup,
    host: &mut dyn Host,
    settings: &Settings,
    (turn, batch): (u64, u64),
    start: Start,
    on_step: &mut dyn FnMut(Step),
) -> Report {
    let limit = settings.pace.limit(&settings.limits);
    let limit_reason = SkipReason::Limit {
        pace: settings.pace,
        limit,
    };
    let mut report = Report {
        turn,
        batch,
        total: 0,
        results: Vec::new(),
        skipped: Vec::new(),
        done: Done::NotRequested,
        check: None,
        redacted: 0,
    };
    let mut counted = start.counted;
    let mut stopped_at: Option<usize> = None;
    let mut after_done = false;
    let mut first_failure: Option<usize> = start.failed;
    let mut cancelled = false;
    // The workspace's `.env` files are read again before each result is redacted: a command may
    // have written secrets into one (`vercel env pull`), and its own output must not show them.
    // Values learned stay known when a file changes or goes.
    let mut redactor = settings.redactor.clone();

    for block in script.blocks().iter().filter(|b| b.index >= start.at) {
        let command = &block.command;
        let kind = command.kind();
        match command {
            Command::Say { msg } => {
                host.person().say(msg);
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
        let skip_reason = if cancelled {
            Some(SkipReason::Cancelled)
        } else if after_done {
            Some(SkipReason::AfterDone)
        } else if counted >= limit {
            Some(limit_reason)
        } else {
            stopped_at.map(SkipReason::StoppedAt)
        };
        if let Some(reason) = skip_reason {
            skip(&mut report.skipped, reason, (block.index, kind, label));
            continue;
        }
        counted += 1;
        on_step(Step::Starting {
            index: block.index,
            kind,
            label: &label,
            mark: backup.mark(),
        });
        let (mut outcome, on_error) = run_one(command, ws, backup, host, settings);
        // Another command line comes in this batch: its world is built while this one's
        // result is made.
        if kind == CommandKind::RunCommand
            && script
                .blocks()
                .iter()
                .any(|b| b.index > block.index && b.command.kind() == CommandKind::RunCommand)
        {
            host.runner().prepare(settings.mode, true);
        }
        if let Some(redactor) = &mut redactor {
            redactor.learn(ws.dotenv_secrets());
            report.redacted += redact_outcome(&mut outcome, redactor);
        }
        if let Some(failure) = &outcome.error {
            cancelled |= failure.code == Code::Cancelled;
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
        on_step(Step::Finished(&result));
        report.results.push(result);
    }
    if let (Done::Honoured { .. }, Some(until), false) = (&report.done, &settings.until, cancelled)
    {
        let mut outcome = command::done_check(until, host, settings);
        if let Some(redactor) = &mut redactor {
            redactor.learn(ws.dotenv_secrets());
            report.redacted += redact_outcome(&mut outcome, redactor);
        }
        if outcome.error.is_some() {
            report.done = Done::NotHonoured {
                why: format!(
                    "the done-check the user set (`{}`) failed (its output is above); fix what it reports, then finish with @@done",
                    until.trim()
                ),
            };
        }
        report.check = Some(Check {
            command: until.clone(),
            outcome,
        });
    }
    let notes = host.runner().batch_finished();
    // What the batch as a whole left behind is said with its last result.
    if let Some(last) = report.results.last_mut() {
        for note in notes {
            last.outcome.lines.push(format!("note: {note}"));
        }
    }
    report
}

/// Takes secrets out of everything a result shows (the reason, the lines, the output); returns
/// how many were replaced.
fn redact_outcome(outcome: &mut Outcome, redactor: &Redactor) -> usize {
    let mut count = 0;
    let mut clean = |text: &mut String| {
        let redacted = redactor.redact(text);
        if redacted.count > 0 {
            count += redacted.count;
            *text = redacted.text;
        }
    };
    if let Some(failure) = &mut outcome.error {
        clean(&mut failure.reason);
    }
    outcome.lines.iter_mut().for_each(&mut clean);
    outcome.details.iter_mut().for_each(&mut clean);
    if let Some((_, text)) = &mut outcome.block {
        clean(text);
    }
    count
}

fn skip(skipped: &mut Vec<Skipped>, reason: SkipReason, command: (usize, CommandKind, String)) {
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
                kind: ConfirmationKind::Approval { tier: None },
            };
            if settings.mode == Mode::Ask && !host.person().confirm(&confirmation) {
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
        Command::Ask { msg } => match host.person().ask(msg) {
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
            return (
                command::run(cmd, options.timeout_seconds, host, settings),
                options.on_error,
            );
        }
        Command::Commit { msg } => host.runner().commit(msg),
        Command::Say { .. } | Command::Done { .. } | Command::Next { .. } => Outcome::default(),
    };
    (outcome, None)
}

/// How a command is named in the results: its path, or the first line of its text.
pub fn label(command: &Command) -> String {
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
