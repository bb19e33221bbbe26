//! The host a person at a terminal provides: `@@say` shown on stderr, `@@ask` and confirmations
//! asked on stderr and answered on stdin, commands run for real in the workspace. Without a
//! terminal nobody can answer, so questions go unanswered and confirmations are declined, never
//! assumed.

use std::collections::HashSet;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use super::progress::printable;
use crate::batch::{self, Confirmation, Host, Outcome};
use crate::catalog::{Code, Failure};
use crate::config::Mode;
use crate::exec::sandbox::{Refusal, Sandbox};
use crate::git::{self, GitSettings};

pub struct TerminalHost {
    interactive: bool,
    root: PathBuf,
    max_output_chars: usize,
    git: GitSettings,
    shell: Option<String>,
    sandbox: Sandbox,
    /// Actions the user approved with "always" for this session.
    always: HashSet<String>,
}

impl TerminalHost {
    /// A host for `root` that prompts only when standard input and standard error are a
    /// terminal.
    pub fn new(
        root: PathBuf,
        max_output_chars: usize,
        git: GitSettings,
        shell: Option<String>,
        sandbox: Sandbox,
    ) -> TerminalHost {
        TerminalHost {
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
            root,
            max_output_chars,
            git,
            shell,
            sandbox,
            always: HashSet::new(),
        }
    }

    /// A host for `root` as the configuration sets it up (git, shell, output limit), running
    /// the model's commands in `sandbox`.
    pub fn from_config(
        root: PathBuf,
        settings: &crate::batch::Settings,
        config: &crate::config::Config,
        sandbox: Sandbox,
    ) -> TerminalHost {
        TerminalHost::new(
            root,
            settings.limits.max_command_output_chars,
            config.git.clone(),
            config.commands.shell.clone(),
            sandbox,
        )
    }

    /// Runs a prepared command and turns it into a result.
    fn spawn(&self, command: std::process::Command, timeout: Duration) -> Outcome {
        match crate::exec::run_command(command, &self.root, timeout, self.max_output_chars) {
            Ok(run) => batch::command_outcome(&run, timeout),
            Err(e) => Outcome::failed(Failure::new(
                Code::CommandFailed,
                format!("the shell could not be started: {e}"),
            )),
        }
    }

    /// A yes/no question with no "always": declined without a terminal, and on anything but yes.
    fn confirm_once(&self, confirmation: &Confirmation) -> bool {
        let answer = self.prompt(&format!(
            "{}\n  the sandbox refused it: {}\nrun again without the sandbox? [y/N]: ",
            printable(&confirmation.action),
            printable(&confirmation.reason)
        ));
        matches!(
            answer
                .as_deref()
                .map(|a| a.trim().to_ascii_lowercase())
                .as_deref(),
            Some("y" | "yes")
        )
    }

    fn prompt(&self, text: &str) -> Option<String> {
        if !self.interactive {
            return None;
        }
        let mut err = std::io::stderr();
        let _ = write!(err, "{text}");
        let _ = err.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
        }
    }
}

impl Host for TerminalHost {
    fn say(&mut self, message: &str) {
        eprintln!("model: {}", printable(message).replace('\n', "\n       "));
    }

    fn ask(&mut self, question: &str) -> Option<String> {
        self.prompt(&format!(
            "model asks: {}\nyour answer> ",
            printable(question)
        ))
    }

    fn confirm(&mut self, confirmation: &Confirmation) -> bool {
        if self.always.contains(&confirmation.action) {
            return true;
        }
        let tier = confirmation
            .tier
            .map(|t| format!(" [{}]", t.name()))
            .unwrap_or_default();
        let answer = self.prompt(&format!(
            "{}{tier}\n  why keyless asks: {}\nallow? [y]es / [n]o / [a]lways this session: ",
            printable(&confirmation.action),
            printable(&confirmation.reason)
        ));
        match answer
            .as_deref()
            .map(|a| a.trim().to_ascii_lowercase())
            .as_deref()
        {
            Some("y" | "yes") => true,
            Some("a" | "always") => {
                self.always.insert(confirmation.action.clone());
                true
            }
            _ => false,
        }
    }

    fn run_command(&mut self, cmd: &str, timeout: Duration, mode: Mode) -> Outcome {
        if !super::progress::quiet() {
            eprintln!(
                "keyless: running {}",
                printable(cmd.lines().next().unwrap_or_default())
            );
        }
        let (program, flag) = crate::exec::shell_program(self.shell.as_deref());
        let args = [flag, cmd];
        let (command, contained) = match self.sandbox.command(mode, &program, &args) {
            Ok(prepared) => prepared,
            Err(e) => {
                return Outcome::failed(Failure::new(
                    Code::SandboxUnavailable,
                    format!("the sandbox could not be set up, so the command was not started: {e}"),
                ));
            }
        };
        let mut outcome = self.spawn(command, timeout);
        let failed = outcome.error.is_some();
        let output = outcome
            .block
            .as_ref()
            .map(|(_, t)| t.as_str())
            .unwrap_or_default();
        let failure = match contained.finish(failed, output) {
            None => return outcome,
            Some(Refusal::Noted(note)) => {
                outcome.lines.push(note);
                return outcome;
            }
            Some(Refusal::Tampered(failure)) => failure,
            Some(Refusal::Refused(failure)) => {
                let question = Confirmation {
                    action: format!("run again without the sandbox: {}", cmd.trim()),
                    reason: failure.reason.clone(),
                    tier: None,
                };
                if mode == Mode::Ask && self.confirm_once(&question) {
                    let command = self.sandbox.unconfined(&program, &args);
                    let mut again = self.spawn(command, timeout);
                    again
                        .details
                        .push("sandbox: off (you allowed it)".to_string());
                    return again;
                }
                failure
            }
        };
        outcome.error = Some(failure);
        outcome
    }

    fn commit(&mut self, message: &str) -> Outcome {
        batch::commit_outcome(git::commit(&self.root, message, &self.git))
    }

    fn batch_finished(&mut self) {
        self.sandbox.batch_finished();
    }
}
