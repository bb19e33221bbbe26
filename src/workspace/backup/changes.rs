//! What a run of batches changed, read back from their backups: each path once, its bytes
//! before the first batch that touched it and its bytes now (the MCP server's diff).
//!
//! What it does not do: render a diff, or put anything back (`undo.rs` does).

use std::collections::BTreeMap;

use super::manifest::{BatchKind, Entry, folder_of, list};
use crate::workspace::{Reach, Workspace};

/// The most a file's bytes are read for a diff: past it, the change is named without its bytes.
const MAX_DIFF_BYTES: u64 = 1 << 20;

/// One path the batches changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The path in the workspace, as the manifest records it.
    pub path: String,
    /// Its bytes before the first batch that changed it (`None`: it did not exist).
    pub before: Option<Vec<u8>>,
    /// Its bytes now (`None`: it does not exist, or is not a file keyless reads).
    pub after: Option<Vec<u8>>,
}

/// The id of the newest saved batch, if any: what [`changes_since`] counts from.
pub fn newest(ws: &Workspace) -> Option<u64> {
    list(ws).ok()?.iter().map(|m| m.id).max()
}

/// What the model's batches after batch `after` (`None`: all of them) changed and did not
/// undo, in the order first changed. A backup that cannot be read leaves its path's `before`
/// unknown (`None`).
pub fn changes_since(ws: &Workspace, after: Option<u64>) -> Vec<Change> {
    let Ok(manifests) = list(ws) else {
        return Vec::new();
    };
    // Each path's bytes before its first change, in the order first changed.
    let mut order: Vec<String> = Vec::new();
    let mut before: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
    let newer = manifests.iter().filter(|m| {
        m.kind == BatchKind::Batch && !m.undone && after.is_none_or(|after| m.id > after)
    });
    for manifest in newer {
        let folder = folder_of(manifest.id);
        for entry in &manifest.entries {
            let (path, old) = match entry {
                Entry::Modified { path, backup, .. } | Entry::Deleted { path, backup, .. } => {
                    (path.clone(), ws.read_own(&folder.join(backup)).ok())
                }
                Entry::Created { path, .. } => (path.clone(), None),
                Entry::Moved { path, to } => {
                    // The file's bytes went with it: the old name is gone, the new one new.
                    for name in [path, to] {
                        if !before.contains_key(name) {
                            order.push(name.clone());
                            before.insert(name.clone(), None);
                        }
                    }
                    continue;
                }
                Entry::DirCreated { .. } => continue,
            };
            if let std::collections::btree_map::Entry::Vacant(slot) = before.entry(path) {
                order.push(slot.key().clone());
                slot.insert(old);
            }
        }
    }
    order
        .into_iter()
        .map(|path| {
            let after = ws
                .place(&path, Reach::Model)
                .ok()
                // Gone, a folder, or not a file keyless reads: no bytes now.
                .and_then(|place| place.read(Some(MAX_DIFF_BYTES)).ok())
                .map(|(bytes, _)| bytes);
            Change {
                before: before.remove(&path).flatten(),
                after,
                path,
            }
        })
        .collect()
}
