//! This machine as a [`Runner`]: the model's command lines run with the configured shell in the
//! workspace, each contained by the workspace's [`Sandbox`] (or, when the orchestrator says so,
//! outside it), their output bounded; `@@commit` through git.
//!
//! What this module does not do: decide anything. Whether a line runs, and whether it may leave
//! the sandbox, is the orchestrator's (`command/mod.rs`).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use super::{Attempt, Runner};
use crate::batch::Outcome;
use crate::batch::report::{command_outcome, commit_outcome};
use crate::catalog::{Code, Failure};
use crate::config::Mode;
use crate::exec::sandbox::Sandbox;
use crate::git::{self, GitSettings};

/// The workspace's shell, sandbox and git, as the model's commands reach them.
pub struct Machine {
    root: PathBuf,
    max_output_chars: usize,
    git: GitSettings,
    shell: Option<String>,
    sandbox: Sandbox,
}

impl Machine {
    /// Commands in `root` keep at most `max_output_chars` of their output, run with `shell`
    /// (Commands.Shell, else the platform's) contained by `sandbox`; commits follow `git`.
    pub fn new(
        root: PathBuf,
        max_output_chars: usize,
        git: GitSettings,
        shell: Option<String>,
        sandbox: Sandbox,
    ) -> Machine {
        Machine {
            root,
            max_output_chars,
            git,
            shell,
            sandbox,
        }
    }

    /// The machine for `root` as the configuration sets it up (git, shell, output limit),
    /// running the model's commands in `sandbox`.
    pub fn from_config(
        root: PathBuf,
        settings: &crate::batch::Settings,
        config: &crate::config::Config,
        sandbox: Sandbox,
    ) -> Machine {
        Machine::new(
            root,
            settings.limits.max_command_output_chars,
            config.git.clone(),
            config.commands.shell.clone(),
            sandbox,
        )
    }

    /// The sandbox the model's commands run in (keyless's own runs in the workspace use it
    /// too: the first message's probes and scripts).
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The shell program and its arguments that run `cmd`.
    fn shell_line<'a>(&self, cmd: &'a str) -> (String, [&'a str; 2]) {
        let (program, flag) = crate::exec::shell_program(self.shell.as_deref());
        (program, [flag, cmd])
    }

    /// Runs a prepared command and turns it into a result.
    fn spawn(&self, command: Command, timeout: Duration) -> Outcome {
        match crate::exec::run_command(command, &self.root, timeout, self.max_output_chars) {
            Ok(run) => command_outcome(&run, timeout),
            Err(e) => Outcome::failed(Failure::new(
                Code::CommandFailed,
                format!("the shell could not be started: {e}"),
            )),
        }
    }
}

impl Runner for Machine {
    fn contained(&mut self, cmd: &str, timeout: Duration, mode: Mode) -> Attempt {
        let (program, args) = self.shell_line(cmd);
        let (command, contained) = match self.sandbox.command(mode, &program, &args) {
            Ok(prepared) => prepared,
            Err(e) => {
                return Outcome::failed(Failure::new(
                    Code::SandboxUnavailable,
                    format!("the sandbox could not be set up, so the command was not started: {e}"),
                ))
                .into();
            }
        };
        let outcome = self.spawn(command, timeout);
        let output = outcome
            .block
            .as_ref()
            .map(|(_, t)| t.as_str())
            .unwrap_or_default();
        let refusal = contained.finish(outcome.error.is_some(), output);
        Attempt { outcome, refusal }
    }

    fn unconfined(&mut self, cmd: &str, timeout: Duration) -> Outcome {
        let (program, args) = self.shell_line(cmd);
        self.spawn(self.sandbox.unconfined(&program, &args), timeout)
    }

    fn commit(&mut self, message: &str) -> Outcome {
        // keyless's own git runs outside the sandbox: with a git and a configuration no command
        // could have planted, and nothing hidden staged.
        let trust = git::Trust {
            git: self.sandbox.trusted_program("git"),
            writable: self.sandbox.writable_by_commands(),
            leave_out: self.sandbox.kept_from_commits(),
        };
        commit_outcome(git::commit(&self.root, message, &self.git, &trust))
    }

    fn batch_finished(&mut self) -> Vec<String> {
        self.sandbox.batch_finished()
    }
}
