//! One conversation in a chat, for every front door: where it begins in a workspace (an
//! interrupted turn to resume, a saved chat to go on in, or a new chat), and what each task
//! sends first: the whole first message (the rules, the limits, the environment snapshot, the
//! project's instructions) in a chat that has not had it, a short follow-up in one that has.
//!
//! What it does not do: run the turn (`turn` does) or read a person's lines.

use super::report::Report;
use crate::batch::Settings;
use crate::chat::{ChatDriver, Reopened};
use crate::config::Config;
use crate::exec::sandbox::Sandbox;
use crate::turn::record::{self, InFlight, Session};
use crate::turn::{self, prompt};
use crate::workspace::Workspace;

/// What the workspace's `.agent/session.json` offers.
pub enum Saved {
    /// Nothing to go on from: a new chat.
    Fresh,
    /// A finished turn's chat: the next task goes there, as a follow-up.
    Chat(Session),
    /// A turn that stopped half-way: resume it.
    Interrupted(Session),
}

/// Reads the saved session for `site`; a new chat (`new_chat`) sets it aside (it is replaced at
/// the first send).
pub fn saved(
    ws: &Workspace,
    site: &str,
    new_chat: bool,
    command: &str,
    report: &mut dyn Report,
) -> Saved {
    let Some(session) = record::load_session(ws) else {
        report.note(&format!(
            "keyless {command}: KA_SESSION_NOT_FOUND: no saved session in this workspace (expected on a first run); starting a new chat"
        ));
        return Saved::Fresh;
    };
    if new_chat {
        if session.interrupted() {
            report.warn(&format!(
                "keyless {command}: --new-chat: the interrupted turn saved in .agent/session.json is dropped (its transcript and backups stay)"
            ));
        }
        return Saved::Fresh;
    }
    if session.site != site {
        report.warn(&format!(
            "keyless {command}: the saved session is for the site {}, not {site}; starting a new chat",
            session.site
        ));
        return Saved::Fresh;
    }
    if session.interrupted() {
        Saved::Interrupted(session)
    } else if session.chat_url.is_some() {
        Saved::Chat(session)
    } else {
        Saved::Fresh
    }
}

/// Opens a finished turn's chat for the next task. Returns whether it holds the rules (the
/// task then goes as a short follow-up); a chat that is gone or fails to open gives way to a new
/// one.
pub fn open_chat(
    driver: &mut dyn ChatDriver,
    session: &Session,
    command: &str,
    report: &mut dyn Report,
) -> bool {
    let Some(url) = &session.chat_url else {
        return false;
    };
    match driver.reopen(url, None) {
        Ok(Reopened::Unsent | Reopened::Answered | Reopened::Retried) => {
            report.note(&format!(
                "keyless {command}: going on in the saved chat {url} (--new-chat starts a new one)"
            ));
            true
        }
        Ok(Reopened::Empty) => {
            report.warn(&format!(
                "keyless {command}: the saved chat {url} is gone; starting a new chat"
            ));
            let _ = driver.new_chat();
            false
        }
        Err(failure) => {
            report.warn(&format!(
                "keyless {command}: the saved chat {url} did not open ({}: {}); starting a new chat",
                failure.code, failure.reason
            ));
            let _ = driver.new_chat();
            false
        }
    }
}

/// Tells which turn is being resumed.
pub fn announce_resume(session: &Session, command: &str, report: &mut dyn Report) {
    let task = session.task.as_deref().unwrap_or("(unknown task)");
    let what = match &session.in_flight {
        InFlight::CarryingOut { .. } => format!("batch {} was being carried out", session.batch),
        InFlight::Sending { kind, .. } => {
            format!("the {} was waiting for a reply", kind.name())
        }
        InFlight::Idle => "the message was waiting for a reply".to_string(),
    };
    report.warn(&format!(
        "keyless {command}: resuming the interrupted turn \"{task}\" ({what})"
    ));
}

/// Where a chat stands for the next task: whether it has had its first message (the rules),
/// and how many turns it holds.
#[derive(Clone, Debug, Default)]
pub struct Conversation {
    /// The first message the chat had; `None`: it has had none (a new chat).
    rules: Option<String>,
    /// The turns in the chat (0: none yet).
    turns: u64,
}

impl Conversation {
    /// A new chat: its next task goes with the whole first message.
    pub fn new_chat() -> Conversation {
        Conversation::default()
    }

    /// A chat that holds `turns` turns and had `rules` as its first message (`None`: not
    /// known, and the next task goes with the whole first message).
    pub fn going_on(rules: Option<String>, turns: u64) -> Conversation {
        Conversation { rules, turns }
    }

    /// The next task's messages, counted as the chat's next turn: in a chat that had its
    /// rules, a short follow-up (telling a change of pace); else the whole first message,
    /// `first`, made only then.
    pub fn next_task(
        &mut self,
        task: &str,
        settings: &Settings,
        first: impl FnOnce() -> String,
    ) -> turn::Task {
        self.turns += 1;
        match &self.rules {
            Some(rules) if self.turns > 1 => turn::Task {
                task: task.to_string(),
                rules: rules.clone(),
                first: prompt::next_task(task, self.turns, rules, settings.pace, &settings.limits),
                turn: self.turns,
                attachments: Vec::new(),
            },
            _ => {
                let rules = first();
                self.rules = Some(rules.clone());
                self.turns = 1;
                turn::Task {
                    task: task.to_string(),
                    first: rules.clone(),
                    rules,
                    turn: 1,
                    attachments: Vec::new(),
                }
            }
        }
    }
}

/// The first message for `task` in the workspace at `root` (`ws`, when it opened): the
/// environment snapshot (probed, with the user's scripts, in `sandbox`; a script's problem is a
/// warning, and the snapshot goes on without it), the project's instructions, the rules, the
/// limits and the pace, through the redactor.
#[allow(clippy::too_many_arguments)]
pub fn first_message(
    task: &str,
    root: &std::path::Path,
    ws: Option<&Workspace>,
    config: &Config,
    settings: &Settings,
    sandbox: &Sandbox,
    command: &str,
    report: &mut dyn Report,
) -> String {
    let shell = config.commands.shell.as_deref();
    let mut snapshot = prompt::Snapshot::take(root, &config.snapshot.tools, shell, Some(sandbox));
    snapshot.sandbox = Some(sandbox.containment(settings.mode));
    if let Some(ws) = ws {
        snapshot.listing = prompt::listing(ws);
    }
    if config.snapshot.instructions
        && let Some(ws) = ws
    {
        snapshot.instructions = ws.instructions(task);
        if !snapshot.instructions.is_empty() {
            let names: Vec<&str> = snapshot
                .instructions
                .iter()
                .map(|i| i.path.as_str())
                .collect();
            report.note(&format!(
                "keyless {command}: the project's instructions go with the first message: {} (Snapshot.Instructions turns this off)",
                names.join(", ")
            ));
        }
    }
    for warning in snapshot.run_scripts(root, &config.snapshot.scripts, Some(sandbox)) {
        report.warn(&format!(
            "keyless {command}: {}: {} (the snapshot goes on without it)",
            warning.code, warning.reason
        ));
    }
    let message = prompt::first_message(task, &settings.limits, settings.pace, &snapshot);
    match &settings.redactor {
        Some(redactor) => redactor.redact(&message).text,
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Pace;

    /// A new chat's first task goes with the whole first message (made then, once); the next
    /// ones as follow-ups counted from it; a change of pace is told with the next task.
    #[test]
    fn a_new_chat_gets_the_rules_once_then_follow_ups() {
        let mut settings = Settings::default();
        let mut chat = Conversation::new_chat();
        let rules = format!(
            "RULES (pace {})\nTask:\nWrite a note\n",
            settings.pace.name()
        );
        let first = chat.next_task("Write a note", &settings, || rules);
        assert_eq!(
            (first.turn, first.first.as_str()),
            (1, first.rules.as_str())
        );
        let second = chat.next_task("Read it back", &settings, || unreachable!());
        assert_eq!(second.turn, 2);
        assert_eq!(second.rules, first.rules);
        assert_eq!(second.first, prompt::follow_up("Read it back", 2));
        settings.pace = Pace::Step;
        let third = chat.next_task("Once more", &settings, || unreachable!());
        assert_eq!(third.turn, 3);
        assert!(
            third.first.ends_with(&prompt::follow_up("Once more", 3))
                && third.first.len() > prompt::follow_up("Once more", 3).len(),
            "{}",
            third.first
        );
    }

    /// A saved chat goes on after its last turn; one whose rules were not kept starts over with
    /// the whole first message, as a new chat would.
    #[test]
    fn a_saved_chat_goes_on_and_one_without_its_rules_starts_over() {
        let settings = Settings::default();
        let mut saved = Conversation::going_on(Some("RULES".to_string()), 4);
        let next = saved.next_task("Go on", &settings, || unreachable!());
        assert_eq!((next.turn, next.first), (5, prompt::follow_up("Go on", 5)));
        let mut unknown = Conversation::going_on(None, 4);
        let next = unknown.next_task("Go on", &settings, || "RULES".to_string());
        assert_eq!((next.turn, next.first.as_str()), (1, "RULES"));
    }
}
