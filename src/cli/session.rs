//! Where `run` and `interactive` begin in a workspace: an interrupted turn to resume, a saved
//! chat to go on in, or a new chat.

use crate::chat::{ChatDriver, Reopened};
use crate::turn::record::{self, InFlight, Session};
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

/// Reads the saved session for `site`; `--new-chat` sets it aside (it is replaced at the first
/// send).
pub fn saved(ws: &Workspace, site: &str, new_chat: bool, command: &str) -> Saved {
    let Some(session) = record::load_session(ws) else {
        super::progress::note(&format!(
            "keyless {command}: KA_SESSION_NOT_FOUND: no saved session in this workspace (expected on a first run); starting a new chat"
        ));
        return Saved::Fresh;
    };
    if new_chat {
        if session.interrupted() {
            eprintln!(
                "keyless {command}: --new-chat: the interrupted turn saved in .agent/session.json is dropped (its transcript and backups stay)"
            );
        }
        return Saved::Fresh;
    }
    if session.site != site {
        eprintln!(
            "keyless {command}: the saved session is for the site {}, not {site}; starting a new chat",
            session.site
        );
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
pub fn open_chat(driver: &mut dyn ChatDriver, session: &Session, command: &str) -> bool {
    let Some(url) = &session.chat_url else {
        return false;
    };
    match driver.reopen(url, None) {
        Ok(Reopened::Unsent | Reopened::Answered) => {
            super::progress::note(&format!(
                "keyless {command}: going on in the saved chat {url} (--new-chat starts a new one)"
            ));
            true
        }
        Ok(Reopened::Empty) => {
            eprintln!("keyless {command}: the saved chat {url} is gone; starting a new chat");
            let _ = driver.new_chat();
            false
        }
        Err(failure) => {
            eprintln!(
                "keyless {command}: the saved chat {url} did not open ({}: {}); starting a new chat",
                failure.code, failure.reason
            );
            let _ = driver.new_chat();
            false
        }
    }
}

/// Tells the user which turn is being resumed.
pub fn announce_resume(session: &Session, command: &str) {
    let task = session.task.as_deref().unwrap_or("(unknown task)");
    let what = match &session.in_flight {
        InFlight::CarryingOut { .. } => format!("batch {} was being carried out", session.batch),
        InFlight::Sending { kind, .. } => {
            format!("the {} was waiting for a reply", kind.name())
        }
        InFlight::Idle => "the message was waiting for a reply".to_string(),
    };
    eprintln!("keyless {command}: resuming the interrupted turn \"{task}\" ({what})");
}
