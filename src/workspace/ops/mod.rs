//! The file commands: newfile, updatefile, editfile, deletefile, readfile, mkdir, movefile.
//!
//! Each resolves its path inside the workspace first, backs up what it is about to change, then
//! writes atomically. A failure touches nothing and says what was found and how to fix it.
//!
//! This file holds what the commands share: what one reports, an existing file read and
//! rewritten, missing parent folders made, and the refusals (not a regular file, keyless's own
//! configuration). The commands that change the workspace are in `change.rs`, `@@readfile` in
//! `read.rs`.

mod change;
mod read;

use std::path::{Path, PathBuf};

use cap_std::fs::Permissions;

use super::backup::{Backup, mode_of};
use super::text::{Eol, TextFile, decode};
use super::{Workspace, shown};
use crate::catalog::{Code, Failure};

/// What a successful file command reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileOutcome {
    /// Extra `name: value` fields for the status line.
    pub details: Vec<String>,
    /// Lines after the status line (the verified line first).
    pub lines: Vec<String>,
    /// A payload to show: (section name, LF text).
    pub block: Option<(&'static str, String)>,
}

impl FileOutcome {
    fn verified(line: String) -> FileOutcome {
        FileOutcome {
            lines: vec![line],
            ..FileOutcome::default()
        }
    }
}

/// An existing regular file, read and decoded.
struct Existing {
    path: PathBuf,
    bytes: Vec<u8>,
    text: TextFile,
    permissions: Permissions,
}

impl Workspace {
    /// Reads an existing text file at a model path.
    fn existing(&self, rel: &str) -> Result<Existing, Failure> {
        let path = self.resolve(rel)?;
        let meta = match self.dir().metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Failure::new(
                    Code::FileNotFound,
                    format!("{rel} does not exist; create it with @@newfile"),
                ));
            }
            Err(e) => return Err(self.io_failure(rel, "read", e)),
        };
        if meta.is_dir() {
            return Err(Failure::new(
                Code::FileNotFound,
                format!("{rel} is a folder, not a file"),
            ));
        }
        regular(rel, &meta)?;
        if meta.len() > MAX_WHOLE_FILE {
            return Err(Failure::new(
                Code::FileIo,
                format!(
                    "{rel} holds {} bytes; keyless edits files of at most {MAX_WHOLE_FILE} bytes. Change it with a command instead.",
                    meta.len()
                ),
            ));
        }
        let bytes = self
            .dir()
            .read(&path)
            .map_err(|e| self.io_failure(rel, "read", e))?;
        let text = decode(bytes.clone())
            .map_err(|why| Failure::new(Code::FileIo, format!("{rel} {why}")))?;
        Ok(Existing {
            path,
            bytes,
            text,
            permissions: meta.permissions(),
        })
    }

    /// Rewrites an existing file with new text, backing up the old bytes first.
    fn rewrite(
        &self,
        rel: &str,
        old: &Existing,
        text: String,
        backup: &mut Backup,
    ) -> Result<Vec<u8>, Failure> {
        let new = TextFile {
            bom: old.text.bom,
            text,
        }
        .to_bytes();
        if new != old.bytes {
            backup.modified(&old.path, &old.bytes, mode_of(&old.permissions), &new)?;
            self.write_atomic(&old.path, &new, Some(old.permissions.clone()))
                .map_err(|e| self.io_failure(rel, "write", e))?;
        }
        Ok(new)
    }

    /// Creates missing parent folders of `path`, recording each for undo.
    fn make_parents(&self, rel: &str, path: &Path, backup: &mut Backup) -> Result<(), Failure> {
        let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
            return Ok(());
        };
        let mut missing = Vec::new();
        for ancestor in parent.ancestors().filter(|p| !p.as_os_str().is_empty()) {
            match self.dir().symlink_metadata(ancestor) {
                Ok(meta) if meta.is_dir() => break,
                Ok(_) => {
                    return Err(Failure::new(
                        Code::FileAlreadyExists,
                        format!(
                            "{rel} cannot be created: {} is a file, not a folder",
                            shown(ancestor)
                        ),
                    ));
                }
                Err(_) => missing.push(ancestor.to_path_buf()),
            }
        }
        for dir in missing.iter().rev() {
            backup.dir_created(dir)?;
            self.dir()
                .create_dir(dir)
                .map_err(|e| self.io_failure(rel, "create the folder for", e))?;
        }
        Ok(())
    }
}

/// Files larger than this are never read whole (edited, replaced, deleted with a backup).
const MAX_WHOLE_FILE: u64 = 512 * 1024 * 1024;

/// Refuses anything but a regular file, before it is opened: opening a FIFO waits for a writer
/// for ever, and a device can be read for ever.
fn regular(rel: &str, meta: &cap_std::fs::Metadata) -> Result<(), Failure> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Failure::new(
        Code::FileIo,
        format!(
            "{rel} is not a regular file (a FIFO, a device or a socket); keyless reads and changes only regular files"
        ),
    ))
}

fn eol_name(eol: Eol) -> &'static str {
    match eol {
        Eol::Lf => "lf",
        Eol::CrLf => "crlf",
    }
}

/// keyless's own configuration at the workspace root: the model may read it, never change it
/// (it holds the mode and the allow and deny lists: a model must not set its own safety
/// switches).
pub const CONFIG_FILE: &str = crate::config::file::FILE_NAME;

/// Refuses a change to [`CONFIG_FILE`] (`path` is resolved, so a symlink to it counts too).
fn writable(rel: &str, path: &Path) -> Result<(), Failure> {
    let is_config = path
        .to_str()
        .is_some_and(|p| p.eq_ignore_ascii_case(CONFIG_FILE));
    if is_config {
        return Err(Failure::new(
            Code::PathOutside,
            format!(
                "{rel} is keyless's own configuration (its mode, allow and deny lists): the model may read it but never change it; ask the user to edit it"
            ),
        ));
    }
    Ok(())
}
