//! The workspace: the one folder the model may read and write, through paths it cannot escape.
//!
//! Every path keyless opens in it, for the model or for itself, goes through the one resolver
//! (`resolve.rs`): walked one name at a time from the workspace's `cap_std::fs::Dir`, no link
//! followed anywhere on the way, `.git`, `.agent`, keyless's configuration files and the hidden
//! paths refused; what it found is then used through the handle of the folder that holds it
//! (`place.rs`, on the system calls of `nofollow.rs`), so a link a command swapped in after a
//! check cannot be followed either: the check and the use are one walk.
//!
//! Architecture Invariant: only this module (and the backups it keeps) touches workspace files,
//! and in it only the resolver touches the directory handle.

pub(crate) mod agent;
pub mod backup;
mod dotenv;
pub(crate) mod eol;
pub(crate) mod find;
pub(crate) mod instructions;
mod nofollow;
pub(crate) mod ops;
mod place;
mod reach;
mod resolve;
pub(crate) mod settle;
pub(crate) mod text;

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, Metadata};

use crate::catalog::{Code, Failure};
pub use place::{NotOpened, Place, Replace};
pub use reach::{Reach, Refused};
pub use resolve::OffLimits;

/// keyless's own folder at the workspace root: sessions, backups, transcripts.
pub const AGENT_DIR: &str = ".agent";

/// An open workspace folder.
pub struct Workspace {
    root: PathBuf,
    /// The workspace's handle: only the resolver opens anything through it.
    dir: Dir,
    /// What keyless keeps out of the model's reach here besides the names every workspace has.
    off_limits: OffLimits,
}

impl Workspace {
    /// Opens `path` as the workspace.
    pub fn open(path: &Path) -> Result<Workspace, Failure> {
        let root = path.canonicalize().map_err(|e| {
            Failure::new(
                Code::FileIo,
                format!("cannot open the workspace {}: {e}", path.display()),
            )
        })?;
        if !root.is_dir() {
            return Err(Failure::new(
                Code::FileIo,
                format!("the workspace {} is not a folder", root.display()),
            ));
        }
        let dir = Dir::open_ambient_dir(&root, ambient_authority()).map_err(|e| {
            Failure::new(
                Code::FileIo,
                format!("cannot open the workspace {}: {e}", root.display()),
            )
        })?;
        Ok(Workspace {
            root,
            dir,
            off_limits: OffLimits::default(),
        })
    }

    /// The workspace's canonical absolute path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Keeps keyless's configuration files and the paths hidden from commands out of the
    /// model's reach too, wherever they lie in the workspace ([`OffLimits::new`]).
    pub fn keep_out(&mut self, config: &[PathBuf], hidden: &[PathBuf]) {
        self.off_limits = OffLimits::new(&self.root, config, hidden);
    }

    /// A place of keyless's own state (`.agent/…`), walked like any other: no link in it.
    fn own(&self, rel: &Path) -> io::Result<Place> {
        self.place(&shown(rel), Reach::Own)
            .map_err(|f| io::Error::new(io::ErrorKind::PermissionDenied, f.reason))
    }

    /// The bytes of a file of keyless's own state.
    pub(crate) fn read_own(&self, rel: &Path) -> io::Result<Vec<u8>> {
        self.own(rel)?
            .read(None)
            .map(|(bytes, _)| bytes)
            .map_err(|e| match e {
                NotOpened::Io(e) => e,
                NotOpened::Missing => io::Error::from(io::ErrorKind::NotFound),
                other => io::Error::other(format!("{other:?}")),
            })
    }

    /// Writes a file of keyless's own state atomically, its missing folders made.
    pub(crate) fn write_own(&self, rel: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut place = self.own(rel)?;
        place
            .make_missing(|_| Ok(()))
            .map_err(|f| io::Error::other(f.reason))?;
        place.write_atomic(bytes, None)
    }

    /// Replaces a file of keyless's own state atomically without waiting for the disk
    /// ([`Place::write_atomic_unsynced`]).
    pub(crate) fn write_own_unsynced(&self, rel: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut place = self.own(rel)?;
        place
            .make_missing(|_| Ok(()))
            .map_err(|f| io::Error::other(f.reason))?;
        place.write_atomic_unsynced(bytes)
    }

    /// Appends to a file of keyless's own state (made if missing; its folder must exist).
    pub(crate) fn append_own(&self, rel: &Path, bytes: &[u8]) -> io::Result<()> {
        self.own(rel)?.append(bytes)
    }

    /// Makes a folder of keyless's own state and the folders on its way.
    pub(crate) fn make_own_dir(&self, rel: &Path) -> io::Result<()> {
        let mut place = self.own(rel)?;
        place
            .make_missing(|_| Ok(()))
            .map_err(|f| io::Error::other(f.reason))?;
        match place.entry() {
            Some(meta) if meta.is_dir() => Ok(()),
            Some(_) => Err(io::Error::from(io::ErrorKind::AlreadyExists)),
            None => match place.create_dir() {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
                _ => Ok(()),
            },
        }
    }

    /// Renames a file of keyless's own state (replacing what is at `to`).
    pub(crate) fn rename_own(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.own(from)?.move_to(&self.own(to)?, Replace::Allowed)
    }

    /// Whether something is at a place of keyless's own state.
    pub(crate) fn own_exists(&self, rel: &Path) -> bool {
        self.own(rel).is_ok_and(|p| p.entry().is_some())
    }

    /// The names in a folder of keyless's own state, with what each is (links never followed).
    pub(crate) fn own_entries(&self, rel: &Path) -> io::Result<Vec<(OsString, Metadata)>> {
        self.own(rel)?.entries()
    }

    /// Removes keyless's own stale temporary files in a folder of its state.
    pub(crate) fn clear_own_temps(&self, rel: &Path) {
        if let Ok(place) = self.own(rel) {
            place.clear_stale_temps_inside();
        }
    }
}

/// A workspace path as results and backups show it: forward slashes on every platform.
pub(crate) fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn outside(reason: String) -> Failure {
    Failure::new(Code::PathOutside, reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    /// A folder swapped for a link after the path was walked (a race) cannot lead a write
    /// anywhere: the write goes through the handle of the folder that was walked, never by name
    /// again, and a new walk refuses the link.
    #[test]
    fn a_link_swapped_in_after_the_walk_cannot_lead_a_write_anywhere() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let place = ws.place("sub/file.txt", Reach::Model).unwrap();

        fs::rename(dir.path().join("sub"), dir.path().join("sub.old")).unwrap();
        symlink(outside.path(), dir.path().join("sub")).unwrap();

        place.write_atomic(b"written", None).unwrap();
        assert_eq!(
            fs::read_dir(outside.path()).unwrap().count(),
            0,
            "nothing written outside"
        );
        assert_eq!(
            fs::read(dir.path().join("sub.old/file.txt")).unwrap(),
            b"written",
            "the walked folder got it"
        );
        let again = ws.place("sub/file.txt", Reach::Model).unwrap_err();
        assert_eq!(again.code, Code::PathOutside, "{again:?}");
        assert!(again.reason.contains("sub is a symbolic link"), "{again:?}");
    }

    /// The same for a file swapped for a link between the walk and the open: the open does not
    /// follow it, and says it is a link.
    #[test]
    fn a_file_swapped_for_a_link_after_the_walk_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "mine\n").unwrap();
        fs::write(dir.path().join("secret"), "secret\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let place = ws.place("a.txt", Reach::Model).unwrap();
        fs::remove_file(dir.path().join("a.txt")).unwrap();
        symlink("secret", dir.path().join("a.txt")).unwrap();
        match place.read(None) {
            Err(NotOpened::Refused(Refused::Link { at })) => assert_eq!(at, "a.txt"),
            other => panic!("{other:?}"),
        }
    }
}
