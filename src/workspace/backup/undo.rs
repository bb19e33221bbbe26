//! `keyless undo`: the newest batch not undone yet put back, after a safety copy of everything
//! it is about to change.

use std::path::Path;

use cap_std::fs::Permissions;
#[cfg(unix)]
use cap_std::fs::PermissionsExt;

use super::manifest::{BatchKind, Entry, MANIFEST, Manifest, folder_of, io, list, mode_of};
use super::record::Backup;
use crate::catalog::{Code, Failure};
use crate::workspace::Workspace;
use crate::workspace::agent::Agent;

#[cfg(unix)]
fn permissions_of(mode: Option<u32>) -> Option<Permissions> {
    mode.map(Permissions::from_mode)
}

#[cfg(not(unix))]
fn permissions_of(_: Option<u32>) -> Option<Permissions> {
    None
}

/// What `keyless undo` did.
#[derive(Debug, PartialEq, Eq)]
pub enum UndoReport {
    Nothing,
    /// Every batch saved here is undone already; `count` of them.
    AllUndone {
        count: usize,
    },
    Restored {
        id: u64,
        label: String,
        actions: Vec<String>,
        safety_copy: Option<u64>,
    },
}

/// The batch `keyless undo` puts back: the newest batch not undone yet. Batches already undone
/// are out of the history, so undoing again walks back one batch at a time, each step to the
/// state before a batch. Safety copies taken by undo are not batches.
pub fn next_undo(manifests: &[Manifest]) -> Option<&Manifest> {
    manifests
        .iter()
        .rev()
        .find(|m| m.kind == BatchKind::Batch && !m.undone)
}

/// Restores the workspace to its state before the newest batch not undone yet.
pub fn undo(ws: &Workspace) -> Result<UndoReport, Failure> {
    let manifests = list(ws)?;
    let Some(target) = next_undo(&manifests) else {
        let count = manifests
            .iter()
            .filter(|m| m.kind == BatchKind::Batch)
            .count();
        return Ok(if count == 0 {
            UndoReport::Nothing
        } else {
            UndoReport::AllUndone { count }
        });
    };
    let mut target = target.clone();
    let folder = folder_of(target.id);
    let dir = ws.dir();
    let mut safety = Backup::new(
        ws,
        BatchKind::Undo,
        format!("safety copy before undoing batch {}", target.id),
    );
    let mut actions = Vec::new();
    let current = |path: &Path| -> Option<(Vec<u8>, Option<u32>)> {
        let meta = dir.symlink_metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        Some((dir.read(path).ok()?, mode_of(&meta.permissions())))
    };
    let fail = |what: &str, path: &str, e: std::io::Error| {
        Failure::new(
            Code::FileIo,
            format!(
                "undo could not {what} {path}: {e}; the files restored before it stay restored, and a safety copy of everything changed is in {}",
                Agent::Backups.shown()
            ),
        )
    };
    for entry in target.entries.iter().rev() {
        match entry {
            Entry::Modified {
                path, backup, mode, ..
            }
            | Entry::Deleted { path, backup, mode } => {
                let p = Path::new(path);
                let old = dir
                    .read(folder.join(backup))
                    .map_err(|e| fail("read the backup of", path, e))?;
                match current(p) {
                    Some((bytes, cur_mode)) => safety.modified(p, &bytes, cur_mode, &old)?,
                    None => safety.created(p, &old)?,
                }
                if let Some(parent) = p.parent().filter(|p| !p.as_os_str().is_empty()) {
                    dir.create_dir_all(parent)
                        .map_err(|e| fail("recreate the folder of", path, e))?;
                }
                ws.write_atomic(p, &old, permissions_of(*mode))
                    .map_err(|e| fail("restore", path, e))?;
                actions.push(format!("restored {path}"));
            }
            Entry::Created { path, .. } => {
                let p = Path::new(path);
                if let Some((bytes, mode)) = current(p) {
                    safety.deleted(p, &bytes, mode)?;
                    dir.remove_file(p).map_err(|e| fail("remove", path, e))?;
                    actions.push(format!("removed {path} (it was new; a copy is kept)"));
                }
            }
            Entry::Moved { path, to } => {
                let (from, to_path) = (Path::new(path), Path::new(to));
                if let Some((moving, _)) = current(to_path) {
                    if let Some((bytes, mode)) = current(from) {
                        safety.modified(from, &bytes, mode, &moving)?;
                    }
                    safety.moved(to_path, from)?;
                    if let Some(parent) = from.parent().filter(|p| !p.as_os_str().is_empty()) {
                        dir.create_dir_all(parent)
                            .map_err(|e| fail("recreate the folder of", path, e))?;
                    }
                    dir.rename(to_path, dir, from)
                        .map_err(|e| fail("move back", to, e))?;
                    actions.push(format!("moved {to} back to {path}"));
                }
            }
            Entry::DirCreated { path } => {
                if dir.remove_dir(path).is_ok() {
                    actions.push(format!("removed the empty folder {path}"));
                }
            }
        }
    }
    target.undone = true;
    let json = serde_json::to_vec_pretty(&target)
        .map_err(|e| Failure::new(Code::Internal, format!("backup record: {e}")))?;
    ws.write_atomic(&folder.join(MANIFEST), &json, None)
        .map_err(|e| io("mark the batch undone", e))?;
    Ok(UndoReport::Restored {
        id: target.id,
        label: target.label,
        actions,
        safety_copy: safety.id(),
    })
}
