//! Backups and undo. Before any file command changes or removes bytes, the old bytes are saved
//! under `.agent/backups/<batch>/files/` and the batch's `manifest.json` records what was done,
//! so `keyless undo` can put the workspace back as it was before the last batch.
//!
//! Undo is itself backed up (as an `undo` batch) before it touches anything, so undoing loses
//! nothing either; a batch already undone is not undone again.

use std::path::{Path, PathBuf};

use cap_std::fs::Permissions;
#[cfg(unix)]
use cap_std::fs::PermissionsExt;
use serde::{Deserialize, Serialize};

use super::Workspace;
use super::agent::Agent;
use crate::catalog::{Code, Failure};

pub(super) const MANIFEST: &str = "manifest.json";

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

/// The backup of one batch being executed. Its folder is created with the first entry.
pub struct Backup<'w> {
    ws: &'w Workspace,
    folder: Option<PathBuf>,
    /// The id the folder will have, once asked for by [`Backup::mark`].
    reserved: Option<u64>,
    manifest: Manifest,
}

/// Where a batch's backup stood when a command started: its id and how many entries it had.
/// The entries after the mark are that command's changes, so a command cut short by a crash
/// can be resolved by looking ([`super::settle::settled`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub id: u64,
    pub entries: usize,
}

fn backups_root() -> PathBuf {
    Agent::Backups.rel()
}

pub(super) fn folder_of(id: u64) -> PathBuf {
    backups_root().join(format!("b{id:06}"))
}

fn io(action: &str, e: std::io::Error) -> Failure {
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
    let dir = ws.dir();
    dir.create_dir_all(Agent::Folder.rel())
        .map_err(|e| io("create the folder", e))?;
    let ignore = Agent::GitIgnore.rel();
    if !dir.exists(&ignore) {
        ws.write_atomic(&ignore, b"*\n", None)
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

#[cfg(unix)]
fn permissions_of(mode: Option<u32>) -> Option<Permissions> {
    mode.map(Permissions::from_mode)
}

#[cfg(not(unix))]
fn permissions_of(_: Option<u32>) -> Option<Permissions> {
    None
}

/// Every saved batch, oldest first.
pub fn list(ws: &Workspace) -> Result<Vec<Manifest>, Failure> {
    let root = backups_root();
    let dir = ws.dir();
    if !dir.exists(&root) {
        return Ok(Vec::new());
    }
    let mut manifests = Vec::new();
    for entry in dir.read_dir(&root).map_err(|e| io("list backups", e))? {
        let entry = entry.map_err(|e| io("list backups", e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name
            .strip_prefix('b')
            .and_then(|n| n.parse::<u64>().ok())
            .is_none()
        {
            continue;
        }
        let path = root.join(&name).join(MANIFEST);
        let Ok(bytes) = dir.read(&path) else { continue };
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

impl<'w> Backup<'w> {
    /// A backup for a new batch; nothing is written until the first change is recorded.
    pub fn new(ws: &'w Workspace, kind: BatchKind, label: impl Into<String>) -> Backup<'w> {
        Backup {
            ws,
            folder: None,
            reserved: None,
            manifest: Manifest {
                id: 0,
                kind,
                label: label.into(),
                entries: Vec::new(),
                undone: false,
            },
        }
    }

    /// The backup of a batch keyless was stopped in, to go on with: the batch `mark` was taken
    /// in, with the entries it has on disk (none when nothing was recorded yet).
    pub fn reopen(ws: &'w Workspace, mark: Mark, label: impl Into<String>) -> Backup<'w> {
        let folder = folder_of(mark.id);
        let saved = ws
            .dir()
            .read(folder.join(MANIFEST))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Manifest>(&bytes).ok());
        match saved {
            Some(manifest) => Backup {
                ws,
                folder: Some(folder),
                reserved: None,
                manifest,
            },
            None => Backup {
                reserved: Some(mark.id),
                ..Backup::new(ws, BatchKind::Batch, label)
            },
        }
    }

    /// Where the backup stands now (its id is fixed here if nothing was recorded yet);
    /// `None` when the backups cannot be listed.
    pub fn mark(&mut self) -> Option<Mark> {
        let id = match (&self.folder, self.reserved) {
            (Some(_), _) => self.manifest.id,
            (None, Some(id)) => id,
            (None, None) => {
                let id = list(self.ws).ok()?.last().map_or(1, |m| m.id + 1);
                self.reserved = Some(id);
                id
            }
        };
        Some(Mark {
            id,
            entries: self.manifest.entries.len(),
        })
    }

    /// The batch id, once something was recorded.
    pub fn id(&self) -> Option<u64> {
        self.folder.as_ref().map(|_| self.manifest.id)
    }

    fn folder(&mut self) -> Result<PathBuf, Failure> {
        if let Some(folder) = &self.folder {
            return Ok(folder.clone());
        }
        ensure_agent_dir(self.ws)?;
        let next = match self.reserved {
            Some(id) => id,
            None => list(self.ws)?.last().map_or(1, |m| m.id + 1),
        };
        let folder = folder_of(next);
        self.ws
            .dir()
            .create_dir_all(folder.join("files"))
            .map_err(|e| io("create a backup folder", e))?;
        self.manifest.id = next;
        self.folder = Some(folder.clone());
        Ok(folder)
    }

    fn save(&mut self, entry: Entry) -> Result<(), Failure> {
        let folder = self.folder()?;
        self.manifest.entries.push(entry);
        let json = serde_json::to_vec_pretty(&self.manifest)
            .map_err(|e| Failure::new(Code::Internal, format!("backup record: {e}")))?;
        self.ws
            .write_atomic(&folder.join(MANIFEST), &json, None)
            .map_err(|e| io("save the backup record", e))
    }

    /// Saves `bytes` as the next backup file and returns its name inside the batch folder.
    fn store(&mut self, bytes: &[u8]) -> Result<String, Failure> {
        let folder = self.folder()?;
        let name = format!("files/{:04}", self.manifest.entries.len() + 1);
        self.ws
            .write_atomic(&folder.join(&name), bytes, None)
            .map_err(|e| io("save a backup copy", e))?;
        Ok(name)
    }

    /// Records the old bytes of a file about to be rewritten with `new`.
    pub fn modified(
        &mut self,
        path: &Path,
        bytes: &[u8],
        mode: Option<u32>,
        new: &[u8],
    ) -> Result<(), Failure> {
        let backup = self.store(bytes)?;
        self.save(Entry::Modified {
            path: display(path),
            backup,
            mode,
            written: Some(sha256(new)),
        })
    }

    /// Records a file about to be created with `new`.
    pub fn created(&mut self, path: &Path, new: &[u8]) -> Result<(), Failure> {
        self.save(Entry::Created {
            path: display(path),
            written: Some(sha256(new)),
        })
    }

    /// Records the bytes of a file about to be removed.
    pub fn deleted(&mut self, path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), Failure> {
        let backup = self.store(bytes)?;
        self.save(Entry::Deleted {
            path: display(path),
            backup,
            mode,
        })
    }

    /// Records a move about to happen.
    pub fn moved(&mut self, from: &Path, to: &Path) -> Result<(), Failure> {
        self.save(Entry::Moved {
            path: display(from),
            to: display(to),
        })
    }

    /// Records a folder about to be created.
    pub fn dir_created(&mut self, path: &Path) -> Result<(), Failure> {
        self.save(Entry::DirCreated {
            path: display(path),
        })
    }
}

pub(super) fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn display(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
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

/// How many batch folders `.agent/backups/` holds and their size in bytes. keyless deletes
/// none of them; `keyless status` shows this so the user knows what they take.
pub fn usage(ws: &Workspace) -> (usize, u64) {
    let dir = ws.dir();
    let size = |path: &Path| -> u64 {
        let mut total = 0;
        let mut folders = vec![path.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in dir.read_dir(&folder).into_iter().flatten().flatten() {
                let path = folder.join(entry.file_name());
                match dir.symlink_metadata(&path) {
                    Ok(meta) if meta.is_dir() => folders.push(path),
                    Ok(meta) => total += meta.len(),
                    Err(_) => {}
                }
            }
        }
        total
    };
    let root = backups_root();
    let Ok(entries) = dir.read_dir(&root) else {
        return (0, 0);
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .fold((0, 0), |(n, bytes), e| {
            (n + 1, bytes + size(&root.join(e.file_name())))
        })
}

/// Removes the temporary files a killed keyless left half-written: beside each file the newest
/// batch changed (its backup records every change before it is made) and in `.agent/`. Called
/// when a keyless takes the workspace, so nothing lingers until the next write of the same file.
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
        ws.clear_stale_temps(Path::new(&path));
    }
    ws.clear_stale_temps_in(&Agent::Folder.rel());
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
