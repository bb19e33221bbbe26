//! The host a person at a terminal provides: `@@say` shown on stderr, `@@ask` and confirmations
//! asked on stderr and answered on stdin. Without a terminal nobody can answer, so questions go
//! unanswered and confirmations are declined, never assumed.

use std::io::{BufRead, IsTerminal, Write};

use crate::batch::{Confirmation, Host, Outcome};
use crate::catalog::{Code, Failure};
use crate::protocol::RunOptions;

pub struct TerminalHost {
    interactive: bool,
}

impl TerminalHost {
    /// A host that prompts only when standard input and standard error are a terminal.
    pub fn detect() -> TerminalHost {
        TerminalHost {
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
        }
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
        eprintln!("model: {}", message.replace('\n', "\n       "));
    }

    fn ask(&mut self, question: &str) -> Option<String> {
        self.prompt(&format!("model asks: {question}\nyour answer> "))
    }

    fn confirm(&mut self, confirmation: &Confirmation) -> bool {
        let answer = self.prompt(&format!(
            "{}\n  ({})\nallow? [y/N] ",
            confirmation.action, confirmation.reason
        ));
        matches!(answer.as_deref().map(str::trim), Some("y" | "Y" | "yes"))
    }

    fn run_command(&mut self, _cmd: &str, _options: &RunOptions) -> Outcome {
        Outcome::failed(Failure::new(
            Code::Internal,
            "@@runcommand is not available in this build of keyless yet; nothing was run",
        ))
    }

    fn commit(&mut self, _message: &str) -> Outcome {
        Outcome::failed(Failure::new(
            Code::Internal,
            "@@commit is not available in this build of keyless yet; nothing was committed",
        ))
    }
}
