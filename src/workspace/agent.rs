//! `.agent/`, keyless's own folder in a workspace: the one place that names what lives in it.
//! Everything else asks for a place by what it is ([`Agent`]), relative to the workspace
//! (for the workspace's own `Dir` calls) or absolute (for what opens files by path: logs,
//! line history, the claim). The architecture test fails on a path into `.agent/` built
//! anywhere else.

use std::path::{Path, PathBuf};

use super::{AGENT_DIR, Workspace};

/// What keyless keeps in `.agent/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    /// The folder itself.
    Folder,
    /// `session.json`: the chat, the turn and the message or reply in flight.
    Session,
    /// `batch.jsonl`: the journal of the batch being carried out.
    Journal,
    /// `transcript.jsonl`: everything sent and received.
    Transcript,
    /// `backups/`: one folder per batch, for undo.
    Backups,
    /// `logs/`: keyless's log and the page sketches.
    Logs,
    /// `history.txt`: the lines typed in `keyless interactive`.
    History,
    /// `keyless.pid`: the claim of the keyless working in the workspace.
    Claim,
    /// `quarantine/`: protected names a command made where there were none.
    Quarantine,
    /// `.gitignore`: keeps the folder out of commits.
    GitIgnore,
}

impl Agent {
    /// The place's name inside `.agent/`.
    fn name(self) -> &'static str {
        match self {
            Agent::Folder => "",
            Agent::Session => "session.json",
            Agent::Journal => "batch.jsonl",
            Agent::Transcript => "transcript.jsonl",
            Agent::Backups => "backups",
            Agent::Logs => "logs",
            Agent::History => "history.txt",
            Agent::Claim => "keyless.pid",
            Agent::Quarantine => "quarantine",
            Agent::GitIgnore => ".gitignore",
        }
    }

    /// The place relative to the workspace root (`.agent/session.json`).
    pub fn rel(self) -> PathBuf {
        let folder = Path::new(AGENT_DIR);
        match self {
            Agent::Folder => folder.to_path_buf(),
            _ => folder.join(self.name()),
        }
    }

    /// A file in `.agent/` by a name made at run time (`session.unreadable-….json`).
    pub fn named(name: &str) -> PathBuf {
        Path::new(AGENT_DIR).join(name)
    }

    /// The place under the workspace at `root`.
    pub fn under(self, root: &Path) -> PathBuf {
        root.join(self.rel())
    }

    /// How people read the place's name (`.agent/session.json`).
    pub fn shown(self) -> String {
        self.rel().display().to_string()
    }
}

impl Workspace {
    /// The absolute path of a place in the workspace's `.agent/`.
    pub fn agent(&self, what: Agent) -> PathBuf {
        what.under(self.root())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_named_inside_the_folder() {
        assert_eq!(Agent::Session.rel(), Path::new(".agent/session.json"));
        assert_eq!(Agent::Folder.rel(), Path::new(".agent"));
        assert_eq!(
            Agent::Logs.under(Path::new("/w")),
            Path::new("/w/.agent/logs")
        );
        assert_eq!(Agent::Claim.shown(), ".agent/keyless.pid");
    }
}
