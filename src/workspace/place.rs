//! A path the resolver walked ([`Place`]): the folder that holds it, open, and its last name.
//! Everything done there is done through that folder's handle by the one name: a file opened
//! without following a link, written atomically (a new file renamed over the name), removed,
//! moved without replacing, a missing folder made and entered without following a link.
//!
//! What this file does not do: decide whether a path may be reached (`resolve.rs`), or what a
//! file command makes of what it found (`ops/`).

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, File, Metadata, OpenOptions, Permissions};

use super::nofollow;
use super::reach::{Reach, Refused, enterable};
use crate::catalog::{Code, Failure};

/// Distinguishes temporary files written by one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A path inside the workspace, walked without following a link: where it is and what was
/// there when it was walked.
#[derive(Debug)]
pub struct Place {
    /// The deepest folder on the way that exists, open.
    dir: Dir,
    /// The folders on the way that do not exist yet, outermost first.
    missing: Vec<String>,
    /// A file found on the way where a folder should be (its path).
    blocked: Option<String>,
    /// The last name.
    name: OsString,
    /// The workspace-relative path, as given.
    rel: PathBuf,
    /// What was at the place when it was walked (never a link: the walk refuses one).
    entry: Option<Metadata>,
    reach: Reach,
}

/// Why the file at a place was not opened for reading.
#[derive(Debug)]
pub enum NotOpened {
    /// Nothing is there (or a folder on the way is missing, or is a file).
    Missing,
    /// A folder is there.
    Folder,
    /// A FIFO, a device or a socket: opening one may wait for ever, reading one may never end.
    NotRegular,
    /// A link was swapped in since the walk.
    Refused(Refused),
    Io(io::Error),
}

/// Whether a move may replace what is at its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replace {
    Never,
    Allowed,
}

/// Whether a write waits until the disk holds it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Durable {
    Synced,
    Unsynced,
}

impl Place {
    pub(super) fn new(
        dir: Dir,
        missing: Vec<String>,
        blocked: Option<String>,
        name: OsString,
        rel: PathBuf,
        entry: Option<Metadata>,
        reach: Reach,
    ) -> Place {
        Place {
            dir,
            missing,
            blocked,
            name,
            rel,
            entry,
            reach,
        }
    }

    /// The workspace-relative path.
    pub fn rel(&self) -> &Path {
        &self.rel
    }

    /// What was there when it was walked; `None`: nothing.
    pub fn entry(&self) -> Option<&Metadata> {
        self.entry.as_ref()
    }

    /// A file on the way where a folder should be, if one was found.
    pub fn blocked(&self) -> Option<&str> {
        self.blocked.as_deref()
    }

    /// A failure of `action` here: a link swapped in is said to be one, anything else is I/O.
    pub fn failure(&self, action: &str, error: io::Error) -> Failure {
        let rel = super::shown(&self.rel);
        match self.dir.symlink_metadata(&self.name) {
            Ok(meta) if meta.file_type().is_symlink() && self.missing.is_empty() => {
                Refused::Link { at: rel.clone() }.failure(&rel)
            }
            _ => Failure::new(Code::FileIo, format!("could not {action} {rel}: {error}")),
        }
    }

    /// Opens the regular file here for reading, never through a link and never waiting on a
    /// FIFO; its metadata is the open file's own.
    pub fn open_regular(&self) -> Result<(File, Metadata), NotOpened> {
        match &self.entry {
            None => return Err(NotOpened::Missing),
            Some(meta) if meta.is_dir() => return Err(NotOpened::Folder),
            Some(meta) if !meta.is_file() => return Err(NotOpened::NotRegular),
            Some(_) => {}
        }
        let file = nofollow::open_file(&self.dir, &self.name).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                NotOpened::Missing
            } else if nofollow::maybe_link(&e) {
                NotOpened::Refused(Refused::Link {
                    at: super::shown(&self.rel),
                })
            } else {
                NotOpened::Io(e)
            }
        })?;
        let meta = file.metadata().map_err(NotOpened::Io)?;
        if meta.is_dir() {
            return Err(NotOpened::Folder);
        }
        if !meta.is_file() {
            return Err(NotOpened::NotRegular);
        }
        Ok((file, meta))
    }

    /// The bytes of the regular file here, at most `limit` of them.
    pub fn read(&self, limit: Option<u64>) -> Result<(Vec<u8>, Metadata), NotOpened> {
        let (file, meta) = self.open_regular()?;
        let mut bytes = Vec::new();
        let read = match limit {
            Some(limit) => file.take(limit).read_to_end(&mut bytes),
            None => {
                let mut file = file;
                file.read_to_end(&mut bytes)
            }
        };
        read.map_err(NotOpened::Io)?;
        Ok((bytes, meta))
    }

    /// Makes the folders missing on the way, outermost first, each announced to `before` (its
    /// workspace-relative path) before it is made, and each entered without following a link.
    pub fn make_missing(
        &mut self,
        mut before: impl FnMut(&Path) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let rel = super::shown(&self.rel);
        if let Some(blocked) = &self.blocked {
            return Err(Failure::new(
                Code::FileAlreadyExists,
                format!("{rel} cannot be created: {blocked} is a file, not a folder"),
            ));
        }
        let depth = self.rel.components().count() - 1 - self.missing.len();
        let mut at: PathBuf = self.rel.components().take(depth).collect();
        for name in std::mem::take(&mut self.missing) {
            at.push(&name);
            before(&at)?;
            match self.dir.create_dir(&name) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(Failure::new(
                        Code::FileIo,
                        format!("could not create the folder {}: {e}", super::shown(&at)),
                    ));
                }
            }
            let refused = |why: Refused| why.failure(&rel);
            let next = nofollow::open_dir(&self.dir, name.as_ref()).map_err(|e| {
                if nofollow::maybe_link(&e) {
                    refused(Refused::Link {
                        at: super::shown(&at),
                    })
                } else {
                    Failure::new(
                        Code::FileIo,
                        format!("could not open the folder {}: {e}", super::shown(&at)),
                    )
                }
            })?;
            enterable(&next, self.reach, &at).map_err(refused)?;
            self.dir = next;
        }
        Ok(())
    }

    /// Writes `bytes` here atomically: a temporary file beside it, flushed, given
    /// `permissions`, then renamed over the name (a link there is replaced, never followed).
    /// Readers see the old or the new file, never a mix, even if keyless is killed half-way.
    pub fn write_atomic(&self, bytes: &[u8], permissions: Option<Permissions>) -> io::Result<()> {
        self.write(bytes, permissions, Replace::Allowed, Durable::Synced)
    }

    /// Writes `bytes` here atomically as [`Place::write_atomic`] does, but without waiting for
    /// the disk: for keyless's own state whose loss in a machine crash costs nothing (a journal
    /// emptied for a new batch, whose lines name their batch). A killed keyless still leaves
    /// the old file or the new one.
    pub fn write_atomic_unsynced(&self, bytes: &[u8]) -> io::Result<()> {
        self.write(bytes, None, Replace::Allowed, Durable::Unsynced)
    }

    /// Writes a new file here the same way, unless something is here by the time it is put in
    /// place (`AlreadyExists`): the rename itself never replaces.
    pub fn write_new(&self, bytes: &[u8]) -> io::Result<()> {
        self.write(bytes, None, Replace::Never, Durable::Synced)
    }

    fn write(
        &self,
        bytes: &[u8],
        permissions: Option<Permissions>,
        replace: Replace,
        durable: Durable,
    ) -> io::Result<()> {
        self.present_folder()?;
        let temp = OsString::from(format!(
            ".{}.keyless-{}-{}.tmp",
            self.name.to_string_lossy(),
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        self.clear_stale_temps();
        let result = (|| {
            // create_new: a name that exists (a link among them) is never opened.
            let mut file = self
                .dir
                .open_with(&temp, OpenOptions::new().write(true).create_new(true))?;
            file.write_all(bytes)?;
            if let Some(permissions) = permissions {
                file.set_permissions(permissions)?;
            }
            if durable == Durable::Synced {
                file.sync_all()?;
            }
            drop(file);
            match replace {
                Replace::Allowed => self.dir.rename(&temp, &self.dir, &self.name),
                Replace::Never => {
                    nofollow::rename_no_replace(&self.dir, &temp, &self.dir, &self.name)
                }
            }
        })();
        if result.is_err() {
            let _ = self.dir.remove_file(&temp);
        }
        result
    }

    /// Appends `bytes` to the file here, made if missing, never through a link.
    pub fn append(&self, bytes: &[u8]) -> io::Result<()> {
        self.present_folder()?;
        nofollow::open_append(&self.dir, &self.name)?.write_all(bytes)
    }

    /// Removes the file here (a link is never what is removed: the walk refuses one).
    pub fn remove_file(&self) -> io::Result<()> {
        self.present_folder()?;
        self.dir.remove_file(&self.name)
    }

    /// Removes the empty folder here.
    pub fn remove_dir(&self) -> io::Result<()> {
        self.present_folder()?;
        self.dir.remove_dir(&self.name)
    }

    /// Makes the folder here (its parents must exist: [`Place::make_missing`]).
    pub fn create_dir(&self) -> io::Result<()> {
        self.present_folder()?;
        self.dir.create_dir(&self.name)
    }

    /// Moves what is here to `to`; with [`Replace::Never`], in one call that fails if anything
    /// is at `to` by then.
    pub fn move_to(&self, to: &Place, replace: Replace) -> io::Result<()> {
        self.present_folder()?;
        to.present_folder()?;
        match replace {
            Replace::Never => nofollow::rename_no_replace(&self.dir, &self.name, &to.dir, &to.name),
            Replace::Allowed => self.dir.rename(&self.name, &to.dir, &to.name),
        }
    }

    /// The names in the folder here with what each is (links included, never followed).
    pub fn entries(&self) -> io::Result<Vec<(OsString, Metadata)>> {
        let dir = self.open_dir()?;
        let mut found = Vec::new();
        for entry in dir.entries()? {
            let name = entry?.file_name();
            if let Ok(meta) = dir.symlink_metadata(&name) {
                found.push((name, meta));
            }
        }
        Ok(found)
    }

    /// The first `bytes` of up to `count` regular files beside this one, in name order (for the
    /// line ending a new file takes from its siblings); links are not followed.
    pub fn sample_siblings(&self, count: usize, bytes: u64) -> Vec<Vec<u8>> {
        if !self.missing.is_empty() {
            return Vec::new();
        }
        let Ok(entries) = self.dir.entries() else {
            return Vec::new();
        };
        let mut names: Vec<OsString> = entries
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| *n != self.name)
            .collect();
        names.sort();
        names
            .iter()
            .take(count)
            .filter_map(|name| {
                let file = nofollow::open_file(&self.dir, name).ok()?;
                file.metadata().ok()?.is_file().then_some(())?;
                let mut sample = Vec::new();
                file.take(bytes).read_to_end(&mut sample).ok()?;
                Some(sample)
            })
            .collect()
    }

    /// Removes the temporary files that an earlier, killed keyless left beside this one (their
    /// process is gone). Only keyless's own `.NAME.keyless-PID-N.tmp` files are touched.
    pub fn clear_stale_temps(&self) {
        if self.missing.is_empty() {
            clear_temps(&self.dir, Some(&self.name.to_string_lossy()));
        }
    }

    /// The same for every file in the folder here.
    pub fn clear_stale_temps_inside(&self) {
        if let Ok(dir) = self.open_dir() {
            clear_temps(&dir, None);
        }
    }

    fn open_dir(&self) -> io::Result<Dir> {
        self.present_folder()?;
        let dir = nofollow::open_dir(&self.dir, &self.name)?;
        enterable(&dir, self.reach, &self.rel).map_err(|_| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                "a git repository's own folder",
            )
        })?;
        Ok(dir)
    }

    /// The folder that holds the name must exist (folders missing on the way are made first).
    fn present_folder(&self) -> io::Result<()> {
        if self.missing.is_empty() {
            Ok(())
        } else {
            Err(io::Error::from(io::ErrorKind::NotFound))
        }
    }
}

fn clear_temps(dir: &Dir, name: Option<&str>) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file.to_str().and_then(|f| match name {
            Some(name) => f.strip_prefix(&format!(".{name}.keyless-")),
            None => f
                .strip_prefix('.')
                .and_then(|r| r.split_once(".keyless-"))
                .map(|(_, r)| r),
        }) else {
            continue;
        };
        let Some(pid) = rest.strip_suffix(".tmp").and_then(|r| r.split('-').next()) else {
            continue;
        };
        if pid
            .parse::<i32>()
            .is_ok_and(|pid| !crate::exec::process_alive(pid))
        {
            let _ = dir.remove_file(&file);
        }
    }
}
