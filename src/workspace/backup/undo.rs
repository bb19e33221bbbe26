//! `keyless undo`: the newest batch not undone yet put back, after a safety copy of everything
//! it is about to change. Every path is put back through the workspace's one resolver, for the
//! model's reach: a folder a command replaced by a link since, `.git`, `.agent`, a configuration
//! file or a hidden path is never written, removed or read; each such change is left as it is and
//! said ([`NotRestored`]), and the rest is put back.

use cap_std::fs::Permissions;
#[cfg(unix)]
use cap_std::fs::PermissionsExt;

use super::manifest::{BatchKind, Entry, MANIFEST, Manifest, folder_of, io, list, mode_of};
use super::record::Backup;
use crate::catalog::{Code, Failure};
use crate::workspace::agent::Agent;
use crate::workspace::resolve::Stop;
use crate::workspace::{NotOpened, Place, Reach, Refused, Replace, Workspace, shown};

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
        /// The changes left as they are: the resolver refused their path.
        refused: Vec<NotRestored>,
        safety_copy: Option<u64>,
    },
}

/// A change undo left as it is, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRestored {
    /// The workspace path the backup recorded.
    pub path: String,
    /// Why the resolver refused it.
    pub refused: Refused,
    /// Where its old bytes are kept, when the backup has them (workspace-relative).
    pub kept: Option<String>,
}

impl NotRestored {
    /// The refusal in words, and where the old bytes are.
    pub fn reason(&self) -> String {
        let why = self.refused.reason(&self.path);
        match &self.kept {
            Some(kept) => format!("{why}; its old bytes are kept in {kept}"),
            None => why,
        }
    }
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

/// What is at a place now, for the safety copy: a regular file's bytes and mode, or nothing.
enum Now {
    File(Vec<u8>, Option<u32>),
    Other,
}

fn now_at(place: &Place) -> Result<Now, Refused> {
    match place.read(None) {
        Ok((bytes, meta)) => Ok(Now::File(bytes, mode_of(&meta.permissions()))),
        Err(NotOpened::Refused(refused)) => Err(refused),
        Err(_) => Ok(Now::Other),
    }
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
    let mut safety = Backup::new(
        ws,
        BatchKind::Undo,
        format!("safety copy before undoing batch {}", target.id),
    );
    let mut actions = Vec::new();
    let mut refused = Vec::new();
    let fail = |what: &str, path: &str, e: &dyn std::fmt::Display| {
        Failure::new(
            Code::FileIo,
            format!(
                "undo could not {what} {path}: {e}; the files restored before it stay restored, and a safety copy of everything changed is in {}",
                Agent::Backups.shown()
            ),
        )
    };
    // A path the resolver refuses is left as it is and said; the walk failing to read the
    // workspace stops the undo.
    let walk = |path: &str| -> Result<Result<Place, Refused>, Failure> {
        match ws.walk(path, Reach::Model) {
            Ok(place) => Ok(Ok(place)),
            Err(Stop::Refused(why)) => Ok(Err(why)),
            Err(Stop::Io(e)) => Err(fail("reach", path, &e)),
        }
    };
    for entry in target.entries.iter().rev() {
        let kept = |backup: &str| Some(shown(&folder.join(backup)));
        match entry {
            Entry::Modified {
                path, backup, mode, ..
            }
            | Entry::Deleted { path, backup, mode } => {
                let old = ws
                    .read_own(&folder.join(backup))
                    .map_err(|e| fail("read the backup of", path, &e))?;
                let mut place = match walk(path)?.and_then(|p| now_at(&p).map(|now| (p, now))) {
                    Ok((place, now)) => {
                        match now {
                            Now::File(bytes, cur_mode) => {
                                safety.modified(place.rel(), &bytes, cur_mode, &old)?
                            }
                            Now::Other => safety.created(place.rel(), &old)?,
                        }
                        place
                    }
                    Err(why) => {
                        refused.push(NotRestored {
                            path: path.clone(),
                            refused: why,
                            kept: kept(backup),
                        });
                        continue;
                    }
                };
                place
                    .make_missing(|_| Ok(()))
                    .map_err(|f| fail("recreate the folder of", path, &f.reason))?;
                place
                    .write_atomic(&old, permissions_of(*mode))
                    .map_err(|e| fail("restore", path, &place.failure("write", e).reason))?;
                actions.push(format!("restored {path}"));
            }
            Entry::Created { path, .. } => {
                match walk(path)?.and_then(|p| now_at(&p).map(|now| (p, now))) {
                    Ok((place, Now::File(bytes, mode))) => {
                        safety.deleted(place.rel(), &bytes, mode)?;
                        place.remove_file().map_err(|e| fail("remove", path, &e))?;
                        actions.push(format!("removed {path} (it was new; a copy is kept)"));
                    }
                    Ok((_, Now::Other)) => {}
                    Err(why) => refused.push(NotRestored {
                        path: path.clone(),
                        refused: why,
                        kept: None,
                    }),
                }
            }
            Entry::Moved { path, to } => {
                let from = walk(path)?.and_then(|p| now_at(&p).map(|now| (p, now)));
                let back = walk(to)?.and_then(|p| now_at(&p).map(|now| (p, now)));
                let ((mut from, from_now), (back, back_now)) = match (from, back) {
                    (Ok(from), Ok(back)) => (from, back),
                    (Err(why), _) => {
                        refused.push(NotRestored {
                            path: path.clone(),
                            refused: why,
                            kept: None,
                        });
                        continue;
                    }
                    (_, Err(why)) => {
                        refused.push(NotRestored {
                            path: to.clone(),
                            refused: why,
                            kept: None,
                        });
                        continue;
                    }
                };
                let Now::File(moving, _) = back_now else {
                    continue;
                };
                if let Now::File(bytes, mode) = from_now {
                    safety.modified(from.rel(), &bytes, mode, &moving)?;
                }
                safety.moved(back.rel(), from.rel())?;
                from.make_missing(|_| Ok(()))
                    .map_err(|f| fail("recreate the folder of", path, &f.reason))?;
                back.move_to(&from, Replace::Allowed)
                    .map_err(|e| fail("move back", to, &back.failure("move", e).reason))?;
                actions.push(format!("moved {to} back to {path}"));
            }
            Entry::DirCreated { path } => match walk(path)? {
                Ok(place) => {
                    if place.remove_dir().is_ok() {
                        actions.push(format!("removed the empty folder {path}"));
                    }
                }
                Err(why) => refused.push(NotRestored {
                    path: path.clone(),
                    refused: why,
                    kept: None,
                }),
            },
        }
    }
    target.undone = true;
    let json = serde_json::to_vec_pretty(&target)
        .map_err(|e| Failure::new(Code::Internal, format!("backup record: {e}")))?;
    ws.write_own(&folder.join(MANIFEST), &json)
        .map_err(|e| io("mark the batch undone", e))?;
    Ok(UndoReport::Restored {
        id: target.id,
        label: target.label,
        actions,
        refused,
        safety_copy: safety.id(),
    })
}
