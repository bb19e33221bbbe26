//! The system calls the resolver is made of, each on one name inside a folder already open, and
//! none following a symbolic link: a folder opened with `O_NOFOLLOW | O_DIRECTORY`, a file with
//! `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in cannot make the open wait), a move that never
//! replaces (`renameat2(RENAME_NOREPLACE)`).
//!
//! What this file does not do: decide what may be opened (`resolve.rs` does), or take a path of
//! more than one name (every call here gets one name, so no link on the way can be followed:
//! there is no way).
//!
//! Elsewhere than Unix the same calls are made through cap-std after a look at the entry: a link
//! swapped in between the look and the call is followed there, inside the workspace only (cap-std
//! refuses a way out). Nothing contains the model's commands on Windows yet (`docs/sandbox.md`).

use std::ffi::OsStr;
use std::io;

use cap_std::fs::{Dir, File};

/// Opens the folder `name` of `dir`; a link there is an error (`ELOOP`, or `ENOTDIR`).
#[cfg(unix)]
pub(super) fn open_dir(dir: &Dir, name: &OsStr) -> io::Result<Dir> {
    use rustix::fs::{Mode, OFlags, openat};
    let fd = openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(Dir::from_std_file(std::fs::File::from(fd)))
}

/// Opens the file `name` of `dir` for reading; a link there is an error (`ELOOP`). The open never
/// waits (`O_NONBLOCK`): the caller checks on the open file that it is a regular one.
#[cfg(unix)]
pub(super) fn open_file(dir: &Dir, name: &OsStr) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags, openat};
    let fd = openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(File::from_std(std::fs::File::from(fd)))
}

/// Opens the file `name` of `dir` for appending, made if missing (`0o666` less the umask); a
/// link there is an error (`ELOOP`).
#[cfg(unix)]
pub(super) fn open_append(dir: &Dir, name: &OsStr) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags, openat};
    let fd = openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )?;
    Ok(File::from_std(std::fs::File::from(fd)))
}

/// Moves `from` in `from_dir` to `to` in `to_dir`, unless something is at `to` already
/// (`AlreadyExists`), in one call: nothing made at `to` in between is replaced.
#[cfg(target_os = "linux")]
pub(super) fn rename_no_replace(
    from_dir: &Dir,
    from: &OsStr,
    to_dir: &Dir,
    to: &OsStr,
) -> io::Result<()> {
    use rustix::fs::{RenameFlags, renameat_with};
    match renameat_with(from_dir, from, to_dir, to, RenameFlags::NOREPLACE) {
        // A file system without RENAME_NOREPLACE (some network ones): look, then move.
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            look_then_rename(from_dir, from, to_dir, to)
        }
        other => Ok(other?),
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn rename_no_replace(
    from_dir: &Dir,
    from: &OsStr,
    to_dir: &Dir,
    to: &OsStr,
) -> io::Result<()> {
    look_then_rename(from_dir, from, to_dir, to)
}

fn look_then_rename(from_dir: &Dir, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
    if to_dir.symlink_metadata(to).is_ok() {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    from_dir.rename(from, to_dir, to)
}

#[cfg(not(unix))]
pub(super) fn open_dir(dir: &Dir, name: &OsStr) -> io::Result<Dir> {
    refuse_link(dir, name)?;
    dir.open_dir(name)
}

#[cfg(not(unix))]
pub(super) fn open_file(dir: &Dir, name: &OsStr) -> io::Result<File> {
    refuse_link(dir, name)?;
    dir.open(name)
}

#[cfg(not(unix))]
pub(super) fn open_append(dir: &Dir, name: &OsStr) -> io::Result<File> {
    refuse_link(dir, name)?;
    dir.open_with(
        name,
        cap_std::fs::OpenOptions::new().append(true).create(true),
    )
}

#[cfg(not(unix))]
fn refuse_link(dir: &Dir, name: &OsStr) -> io::Result<()> {
    match dir.symlink_metadata(name) {
        Ok(meta) if meta.file_type().is_symlink() => {
            Err(io::Error::other("a symbolic link is not followed"))
        }
        _ => Ok(()),
    }
}

/// Whether an error of [`open_dir`] or [`open_file`] may mean a link was met (the caller looks
/// at the entry to say which).
pub(super) fn maybe_link(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(
            error.raw_os_error(),
            Some(code) if code == libc::ELOOP || code == libc::ENOTDIR || code == libc::EMLINK
        )
    }
    #[cfg(not(unix))]
    {
        error.kind() == io::ErrorKind::Other
    }
}
