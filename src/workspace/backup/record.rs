//! Recording a batch's changes before they are made: the old bytes saved, and the manifest
//! written again after every entry; where the backup stands when a command starts.

use std::path::{Path, PathBuf};

use super::manifest::{
    BatchKind, Entry, MANIFEST, Manifest, Mark, ensure_agent_dir, folder_of, io, list, sha256,
};
use crate::catalog::{Code, Failure};
use crate::workspace::{Workspace, shown};

/// The backup of one batch being executed. Its folder is created with the first entry.
pub struct Backup<'w> {
    ws: &'w Workspace,
    folder: Option<PathBuf>,
    /// The id the folder will have, once asked for by [`Backup::mark`].
    reserved: Option<u64>,
    manifest: Manifest,
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
            .read_own(&folder.join(MANIFEST))
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
            .make_own_dir(&folder.join("files"))
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
            .write_own(&folder.join(MANIFEST), &json)
            .map_err(|e| io("save the backup record", e))
    }

    /// Saves `bytes` as the next backup file and returns its name inside the batch folder.
    fn store(&mut self, bytes: &[u8]) -> Result<String, Failure> {
        let folder = self.folder()?;
        let name = format!("files/{:04}", self.manifest.entries.len() + 1);
        self.ws
            .write_own(&folder.join(&name), bytes)
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
            path: shown(path),
            backup,
            mode,
            written: Some(sha256(new)),
        })
    }

    /// Records a file about to be created with `new`.
    pub fn created(&mut self, path: &Path, new: &[u8]) -> Result<(), Failure> {
        self.save(Entry::Created {
            path: shown(path),
            written: Some(sha256(new)),
        })
    }

    /// Records the bytes of a file about to be removed.
    pub fn deleted(&mut self, path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), Failure> {
        let backup = self.store(bytes)?;
        self.save(Entry::Deleted {
            path: shown(path),
            backup,
            mode,
        })
    }

    /// Records a move about to happen.
    pub fn moved(&mut self, from: &Path, to: &Path) -> Result<(), Failure> {
        self.save(Entry::Moved {
            path: shown(from),
            to: shown(to),
        })
    }

    /// Records a folder about to be created.
    pub fn dir_created(&mut self, path: &Path) -> Result<(), Failure> {
        self.save(Entry::DirCreated { path: shown(path) })
    }
}
