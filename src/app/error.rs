//! Why a command could not start: one typed error for every part of the start-up, kept in a
//! file of its own so that each part (`start.rs`, `chat.rs`) names it without naming the other.
//!
//! What it does not do: print. The front door says it as `keyless COMMAND: <this>`.

use std::path::PathBuf;

use crate::catalog::Failure;

/// Why a command could not start. Each is the person's to fix (a file, a flag, another
/// keyless); the front door says it as `keyless COMMAND: <this>`.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// `keyless.json` (or the chosen file) could not be read or is not valid.
    #[error("{}: {}", .0.code, .0.reason)]
    Config(Failure),
    /// The chat's options: the selectors file, the site, what was learned on the page.
    #[error("{}: {}", .0.code, .0.reason)]
    Chat(Failure),
    /// The workspace folder cannot be opened.
    #[error("{}", .0.reason)]
    Workspace(Failure),
    /// The workspace's `.agent/` cannot be made.
    #[error("{}: {}", .0.code, .0.reason)]
    AgentFolder(Failure),
    /// Another keyless works in the workspace.
    #[error("{}", claimed(*.pid, .root))]
    Claimed { pid: i32, root: PathBuf },
    /// The mode asks for containment this machine cannot give.
    #[error("{}: {}", .0.code, .0.reason)]
    Mode(Failure),
}

/// Who works in `root`: another keyless process, or another call of this one (an MCP server's
/// calls each claim their workspace).
fn claimed(pid: i32, root: &std::path::Path) -> String {
    if u32::try_from(pid).is_ok_and(|p| p == std::process::id()) {
        format!(
            "another call of this keyless server is working in {}; wait for it to finish (one task at a time in a workspace)",
            root.display()
        )
    } else {
        format!(
            "another keyless (process {pid}) is working in {}; wait for it to finish",
            root.display()
        )
    }
}
