//! Backups and undo. Before any file command changes or removes bytes, the old bytes are saved
//! under `.agent/backups/<batch>/files/` and the batch's `manifest.json` records what was done,
//! so `keyless undo` can put the workspace back as it was before the last batch.
//!
//! Undo is itself backed up (as an `undo` batch) before it touches anything, so undoing loses
//! nothing either; a batch already undone is not undone again.
//!
//! This file holds what the backups take and the clean-up after a crash; what a backup records
//! is in `manifest.rs`, recording it in `record.rs`, putting a batch back in `undo.rs`.

mod changes;
mod manifest;
mod record;
mod undo;

use std::path::Path;

use crate::workspace::agent::Agent;
use crate::workspace::{Reach, Workspace};
pub use changes::{Change, changes_since, newest};
use manifest::backups_root;
pub use manifest::{BatchKind, Entry, Manifest, Mark, ensure_agent_dir, list, mode_of};
pub(in crate::workspace) use manifest::{MANIFEST, folder_of, sha256};
pub use record::Backup;
pub use undo::{NotRestored, UndoReport, next_undo, undo};

/// How many batch folders `.agent/backups/` holds and their size in bytes. keyless deletes
/// none of them; `keyless status` shows this so the user knows what they take.
pub fn usage(ws: &Workspace) -> (usize, u64) {
    let size = |path: &Path| -> u64 {
        let mut total = 0;
        let mut folders = vec![path.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for (name, meta) in ws.own_entries(&folder).into_iter().flatten() {
                if meta.is_dir() {
                    folders.push(folder.join(name));
                } else {
                    total += meta.len();
                }
            }
        }
        total
    };
    let root = backups_root();
    let Ok(entries) = ws.own_entries(&root) else {
        return (0, 0);
    };
    entries
        .into_iter()
        .filter(|(_, meta)| meta.is_dir())
        .fold((0, 0), |(n, bytes), (name, _)| {
            (n + 1, bytes + size(&root.join(name)))
        })
}

/// Removes the temporary files a killed keyless left half-written: beside each file the newest
/// batch changed (its backup records every change before it is made) and in `.agent/`. Called
/// when a keyless takes the workspace, so nothing lingers until the next write of the same file.
/// Each place is walked like any other: a name a command made a link is passed over.
pub fn clean_after_crash(ws: &Workspace) {
    let newest = list(ws).ok().and_then(|m| m.into_iter().last());
    let paths = newest
        .into_iter()
        .flat_map(|m| m.entries)
        .flat_map(|e| match e {
            Entry::Modified { path, .. }
            | Entry::Created { path, .. }
            | Entry::Deleted { path, .. }
            | Entry::DirCreated { path } => vec![path],
            Entry::Moved { path, to } => vec![path, to],
        });
    for path in paths {
        if let Ok(place) = ws.place(&path, Reach::Model) {
            place.clear_stale_temps();
        }
    }
    ws.clear_own_temps(&Agent::Folder.rel());
}
