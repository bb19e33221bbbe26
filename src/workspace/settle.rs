//! Whether a command keyless was stopped in had made its change: each change is recorded in the
//! batch's backup before it is made, and made atomically, so the workspace shows which.

use super::backup::{Entry, MANIFEST, Manifest, Mark, folder_of, sha256};
use super::{Reach, Workspace};

/// Whether the changes a command recorded after a [`Mark`] were made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Nothing was changed: the workspace is as it was before the command.
    NotDone,
    /// Every change was made (said in words, for the results).
    Done(String),
    /// Some of it, or something else: nobody can say (the reason, in words).
    Unknown(String),
}

/// Whether the changes recorded after `mark` were made, by looking at the workspace: each change
/// is recorded before it is made and made atomically, so a file holds either its old bytes (kept
/// in the backup) or its new ones. Folders a command created on its way count for nothing (they
/// are harmless, and making them again is a no-op).
pub fn settled(ws: &Workspace, mark: Mark) -> Settled {
    let folder = folder_of(mark.id);
    let manifest = match ws.read_own(&folder.join(MANIFEST)) {
        Ok(bytes) => match serde_json::from_slice::<Manifest>(&bytes) {
            Ok(manifest) => manifest,
            Err(e) => return Settled::Unknown(format!("its backup record is damaged ({e})")),
        },
        // No record: the command recorded nothing, so it changed nothing.
        Err(_) => return Settled::NotDone,
    };
    let changes: Vec<&Entry> = manifest
        .entries
        .iter()
        .skip(mark.entries)
        .filter(|e| !matches!(e, Entry::DirCreated { .. }))
        .collect();
    let [change] = changes.as_slice() else {
        return match changes.len() {
            0 => Settled::NotDone,
            n => Settled::Unknown(format!("it recorded {n} changes, where one was expected")),
        };
    };
    // Looked at through the resolver: a path it refuses now (a link a command made) is present,
    // and holds neither the old bytes nor the new ones.
    let place = |path: &str| ws.place(path, Reach::Model);
    let bytes = |path: &str| place(path).ok()?.read(None).ok().map(|(bytes, _)| bytes);
    let saved = |backup: &str| ws.read_own(&folder.join(backup)).ok();
    let present = |path: &str| place(path).map_or(true, |p| p.entry().is_some());
    match change {
        Entry::Modified {
            path,
            backup,
            written,
            ..
        } => match (bytes(path), saved(backup)) {
            (Some(now), Some(old)) if now == old => Settled::NotDone,
            (Some(now), _) if written.as_deref() == Some(sha256(&now).as_str()) => {
                Settled::Done(format!("{path} holds its new bytes"))
            }
            _ => Settled::Unknown(format!(
                "{path} holds neither its old bytes nor its new ones"
            )),
        },
        Entry::Created { path, written } => match bytes(path) {
            None if !present(path) => Settled::NotDone,
            Some(now) if written.as_deref() == Some(sha256(&now).as_str()) => {
                Settled::Done(format!("{path} exists with its new bytes"))
            }
            _ => Settled::Unknown(format!("{path} exists, but not as it was to be written")),
        },
        Entry::Deleted { path, backup, .. } => match (bytes(path), saved(backup)) {
            (None, _) if !present(path) => Settled::Done(format!("{path} is gone")),
            (Some(now), Some(old)) if now == old => Settled::NotDone,
            _ => Settled::Unknown(format!("{path} is neither gone nor as it was")),
        },
        Entry::Moved { path, to } => match (present(path), present(to)) {
            (false, true) => Settled::Done(format!("{path} is now {to}")),
            (true, false) => Settled::NotDone,
            _ => Settled::Unknown(format!("both or neither of {path} and {to} exist")),
        },
        Entry::DirCreated { .. } => Settled::NotDone,
    }
}

/// Whether the batch's backup is as keyless left it at `mark`: no batch was recorded after it
/// (an `apply` or an `undo` since would have changed what the workspace says), and the record at
/// the mark's id, if there is one, is this batch's (`label`).
pub fn untouched_since(ws: &Workspace, mark: Mark, label: &str) -> bool {
    let Ok(manifests) = super::backup::list(ws) else {
        return false;
    };
    let newest = manifests.last().map_or(0, |m| m.id);
    newest <= mark.id
        && manifests
            .iter()
            .find(|m| m.id == mark.id)
            .is_none_or(|m: &Manifest| m.label == label && !m.undone)
}
