//! What a batch's backup records (its manifest: the kind, the label, one entry per change), where
//! it lives under `.agent/backups/`, and every saved batch read back.

use std::path::PathBuf;

use cap_std::fs::Permissions;
#[cfg(unix)]
use cap_std::fs::PermissionsExt;
use serde::{Deserialize, Serialize};

use crate::catalog::{Code, Failure};
use crate::workspace::Workspace;
use crate::workspace::agent::Agent;

pub(in crate::workspace) const MANIFEST: &str = "manifest.json";

/// What a batch's backup is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BatchKind {
    /// A model reply's commands.
    Batch,
    /// The safety copy `keyless undo` takes before restoring.
    Undo,
}

/// One change recorded before it was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Entry {
    /// The file's old bytes are in `backup`; `written` is the SHA-256 of the new ones.
    Modified {
        path: String,
        backup: String,
        mode: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        written: Option<String>,
    },
    /// The file did not exist before; `written` is the SHA-256 of its bytes.
    Created {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        written: Option<String>,
    },
    /// The file was removed; its bytes are in `backup`.
    Deleted {
        path: String,
        backup: String,
        mode: Option<u32>,
    },
    /// The file moved from `path` to `to`.
    Moved { path: String, to: String },
    /// The folder did not exist before.
    DirCreated { path: String },
}

/// A batch's record, saved after every entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub id: u64,
    pub kind: BatchKind,
    pub label: String,
    pub entries: Vec<Entry>,
    pub undone: bool,
}

/// Where a batch's backup stood when a command started: its id and how many entries it had.
/// The entries after the mark are that command's changes, so a command cut short by a crash
/// can be resolved by looking ([`crate::workspace::settle::settled`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub id: u64,
    pub entries: usize,
}

pub(super) fn backups_root() -> PathBuf {
    Agent::Backups.rel()
}

pub(in crate::workspace) fn folder_of(id: u64) -> PathBuf {
    backups_root().join(format!("b{id:06}"))
}

pub(super) fn io(action: &str, e: std::io::Error) -> Failure {
    Failure::new(
        Code::FileIo,
        format!(
            "could not {action} in {}: {e}; nothing was changed",
            Agent::Backups.shown()
        ),
    )
}

/// Creates `.agent/` with its own `.gitignore`, so `git add -A` never stages keyless's state.
pub fn ensure_agent_dir(ws: &Workspace) -> Result<(), Failure> {
    ws.make_own_dir(&Agent::Folder.rel())
        .map_err(|e| io("create the folder", e))?;
    let ignore = Agent::GitIgnore.rel();
    if !ws.own_exists(&ignore) {
        ws.write_own(&ignore, b"*\n")
            .map_err(|e| io("write .gitignore", e))?;
    }
    Ok(())
}

/// The mode bits to restore a file with (unix; elsewhere a restored file gets the default
/// permissions).
#[cfg(unix)]
pub fn mode_of(permissions: &Permissions) -> Option<u32> {
    Some(permissions.mode() & 0o7777)
}

#[cfg(not(unix))]
pub fn mode_of(_: &Permissions) -> Option<u32> {
    None
}

/// Every saved batch, oldest first.
pub fn list(ws: &Workspace) -> Result<Vec<Manifest>, Failure> {
    let root = backups_root();
    if !ws.own_exists(&root) {
        return Ok(Vec::new());
    }
    let mut manifests = Vec::new();
    for (name, _) in ws.own_entries(&root).map_err(|e| io("list backups", e))? {
        let name = name.to_string_lossy().into_owned();
        if name
            .strip_prefix('b')
            .and_then(|n| n.parse::<u64>().ok())
            .is_none()
        {
            continue;
        }
        let path = root.join(&name).join(MANIFEST);
        let Ok(bytes) = ws.read_own(&path) else {
            continue;
        };
        match serde_json::from_slice::<Manifest>(&bytes) {
            Ok(manifest) => manifests.push(manifest),
            Err(e) => {
                return Err(Failure::new(
                    Code::FileIo,
                    format!(
                        "the backup record {} is damaged ({e}); it was left as it is",
                        path.display()
                    ),
                ));
            }
        }
    }
    manifests.sort_by_key(|m| m.id);
    Ok(manifests)
}

pub(in crate::workspace) fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
