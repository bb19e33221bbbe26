//! The person at a terminal: `@@say` shown on stderr, `@@ask` and confirmations asked on stderr
//! and answered on stdin. Without a terminal nobody can answer, so questions go unanswered and
//! confirmations are declined, never assumed.
//!
//! What this module does not do: decide when to ask, or run anything. The command orchestrator
//! (`batch::command`) decides, and asks through [`Person`].

use std::collections::HashSet;
use std::io::{BufRead, IsTerminal, Write};

use crate::batch::{Confirmation, ConfirmationKind, Person};
use crate::visible::{hidden, shown};

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
        eprintln!("model: {}", shown(message).replace('\n', "\n       "));
    }

    fn ask(&mut self, question: &str) -> Option<String> {
        self.prompt(&format!("model asks: {}\nyour answer> ", shown(question)))
    }

    fn confirm(&mut self, confirmation: &Confirmation) -> bool {
        let question = question(confirmation);
        if confirmation.kind == ConfirmationKind::LeaveSandbox {
            // A yes or a no, with no "always": declined on anything but yes.
            let answer = self.answer(&question);
            return matches!(answer.as_deref(), Some("y" | "yes"));
        }
        if self.always.contains(&confirmation.action) {
            return true;
        }
        match self.answer(&question).as_deref() {
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
                shown(cmd.lines().next().unwrap_or_default())
            );
        }
    }
}

/// What a confirmation shows: the action and the reason with every hidden character visible
/// (`deploy\u{200b}.sh`), a line that says so in words when the action holds any, and the
/// question with the answers it takes.
fn question(confirmation: &Confirmation) -> String {
    let action = shown(&confirmation.action);
    let reason = shown(&confirmation.reason);
    let warning = match hidden(&confirmation.action) {
        Some(hidden) => {
            let what = match confirmation.kind {
                ConfirmationKind::Approval { tier: None } => "this action",
                _ => "this command",
            };
            format!(
                "\n  look closely: {what} holds {}, shown as \\u{{…}}; what runs is what is written, not what it looks like",
                hidden.words()
            )
        }
        None => String::new(),
    };
    match confirmation.kind {
        ConfirmationKind::LeaveSandbox => format!(
            "{action}{warning}\n  the sandbox refused it: {reason}\nrun again without the sandbox? [y/N]: "
        ),
        ConfirmationKind::Approval { tier } => {
            let tier = tier.map(|t| format!(" [{}]", t.name())).unwrap_or_default();
            format!(
                "{action}{tier}{warning}\n  why keyless asks: {reason}\nallow? [y]es / [n]o / [a]lways this session: "
            )
        }
    }
}

/// Prints a notice from the chat driver (a login wall in a window) for the person at the
/// terminal.
pub(super) fn notice(text: &str) {
    eprintln!("keyless: {text}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Tier;

    #[test]
    fn a_confirmation_shows_hidden_characters_and_says_so() {
        let confirmation = Confirmation {
            action: "run: ./deploy\u{200b}.sh".into(),
            reason: "./deploy\u{200b}.sh: an unknown program".into(),
            kind: ConfirmationKind::Approval {
                tier: Some(Tier::Risky),
            },
        };
        assert_eq!(
            question(&confirmation),
            "run: ./deploy\\u{200b}.sh [Risky]\n  look closely: this command holds 1 invisible character (U+200B ZERO WIDTH SPACE), shown as \\u{…}; what runs is what is written, not what it looks like\n  why keyless asks: ./deploy\\u{200b}.sh: an unknown program\nallow? [y]es / [n]o / [a]lways this session: "
        );
        let delete = Confirmation {
            action: "delete a\u{202e}b".into(),
            reason: "deleting".into(),
            kind: ConfirmationKind::Approval { tier: None },
        };
        assert!(
            question(&delete).contains(
                "this action holds 1 invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"
            )
        );
        let plain = Confirmation {
            action: "run: ./deploy.sh".into(),
            reason: "r".into(),
            kind: ConfirmationKind::LeaveSandbox,
        };
        assert_eq!(
            question(&plain),
            "run: ./deploy.sh\n  the sandbox refused it: r\nrun again without the sandbox? [y/N]: "
        );
    }
}
