//! The person at a terminal: `@@say` shown on stderr, `@@ask` and confirmations asked on stderr
//! and answered on stdin. Without a terminal nobody can answer, so questions go unanswered and
//! confirmations are declined, never assumed.
//!
//! What this module does not do: decide when to ask, or run anything. The command orchestrator
//! (`batch::command`) decides, and asks through [`Person`].

use std::collections::HashSet;
use std::io::{BufRead, IsTerminal, Write};

use super::progress::printable;
use crate::batch::{Confirmation, ConfirmationKind, Person};

/// The person at the terminal keyless runs in.
pub struct Terminal {
    interactive: bool,
    /// Actions the user approved with "always" for this session. The memory is the person's:
    /// it is how they answer, so the batch asks every time and the answer may come from here.
    /// Leaving the sandbox is never remembered.
    always: HashSet<String>,
}

impl Terminal {
    /// The person at this process's terminal, asked only when standard input and standard
    /// error are a terminal.
    pub fn here() -> Terminal {
        Terminal {
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
            always: HashSet::new(),
        }
    }

    /// Shows `text` and reads the answer, lowercased and trimmed; `None` without a terminal.
    fn answer(&self, text: &str) -> Option<String> {
        self.prompt(text).map(|a| a.trim().to_ascii_lowercase())
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

impl Person for Terminal {
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
        let action = printable(&confirmation.action);
        let reason = printable(&confirmation.reason);
        let tier = match confirmation.kind {
            // A yes or a no, with no "always": declined on anything but yes.
            ConfirmationKind::LeaveSandbox => {
                let answer = self.answer(&format!(
                    "{action}\n  the sandbox refused it: {reason}\nrun again without the sandbox? [y/N]: "
                ));
                return matches!(answer.as_deref(), Some("y" | "yes"));
            }
            ConfirmationKind::Approval { tier } => tier,
        };
        if self.always.contains(&confirmation.action) {
            return true;
        }
        let tier = tier.map(|t| format!(" [{}]", t.name())).unwrap_or_default();
        let answer = self.answer(&format!(
            "{action}{tier}\n  why keyless asks: {reason}\nallow? [y]es / [n]o / [a]lways this session: "
        ));
        match answer.as_deref() {
            Some("y" | "yes") => true,
            Some("a" | "always") => {
                self.always.insert(confirmation.action.clone());
                true
            }
            _ => false,
        }
    }

    fn running(&mut self, cmd: &str) {
        if !super::progress::quiet() {
            eprintln!(
                "keyless: running {}",
                printable(cmd.lines().next().unwrap_or_default())
            );
        }
    }
}
