//! The file commands: newfile, updatefile, editfile, deletefile, readfile, mkdir, movefile.
//!
//! Each resolves its path through the workspace's one resolver first (no link, nothing
//! protected or hidden: `resolve.rs`), backs up what it is about to change, then writes
//! atomically through the handle of the folder the resolver walked to. A failure touches nothing
//! and says what was found and how to fix it.
//!
//! This file holds what the commands share: what one reports, an existing file read and
//! rewritten, missing parent folders made, and why a file could not be opened. The commands that
//! change the workspace are in `change.rs`, `@@readfile` in `read.rs`.

mod change;
mod read;

use std::io::Read;

use cap_std::fs::Permissions;

use super::backup::{Backup, mode_of};
use super::text::{Eol, TextFile, decode};
use super::{NotOpened, Place, Reach, Workspace};
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
    place: Place,
    bytes: Vec<u8>,
    text: TextFile,
    permissions: Permissions,
}

impl Workspace {
    /// Reads an existing text file at a model path.
    fn existing(&self, rel: &str) -> Result<Existing, Failure> {
        let place = self.place(rel, Reach::Model)?;
        existing_at(place, rel)
    }

    /// Rewrites an existing file with new text, backing up the old bytes first.
    fn rewrite(
        &self,
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
            backup.modified(old.place.rel(), &old.bytes, mode_of(&old.permissions), &new)?;
            old.place
                .write_atomic(&new, Some(old.permissions.clone()))
                .map_err(|e| old.place.failure("write", e))?;
        }
        Ok(new)
    }
}

/// The existing text file at `place` (the model's path `rel`), opened without following a link
/// and read whole.
fn existing_at(place: Place, rel: &str) -> Result<Existing, Failure> {
    let (file, meta) = place.open_regular().map_err(|e| not_opened(rel, e))?;
    if meta.len() > MAX_WHOLE_FILE {
        return Err(Failure::new(
            Code::FileIo,
            format!(
                "{rel} holds {} bytes; keyless edits files of at most {MAX_WHOLE_FILE} bytes. Change it with a command instead.",
                meta.len()
            ),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_WHOLE_FILE)
        .read_to_end(&mut bytes)
        .map_err(|e| place.failure("read", e))?;
    let text =
        decode(bytes.clone()).map_err(|why| Failure::new(Code::FileIo, format!("{rel} {why}")))?;
    Ok(Existing {
        place,
        bytes,
        text,
        permissions: meta.permissions(),
    })
}

/// Files larger than this are never read whole (edited, replaced, deleted with a backup).
const MAX_WHOLE_FILE: u64 = 512 * 1024 * 1024;

/// Why the file at a model path could not be opened, for the model.
fn not_opened(rel: &str, why: NotOpened) -> Failure {
    match why {
        NotOpened::Missing => Failure::new(
            Code::FileNotFound,
            format!("{rel} does not exist; create it with @@newfile"),
        ),
        NotOpened::Folder => {
            Failure::new(Code::FileNotFound, format!("{rel} is a folder, not a file"))
        }
        NotOpened::NotRegular => Failure::new(
            Code::FileIo,
            format!(
                "{rel} is not a regular file (a FIFO, a device or a socket); keyless reads and changes only regular files"
            ),
        ),
        NotOpened::Refused(refused) => refused.failure(rel),
        NotOpened::Io(e) => Failure::new(Code::FileIo, format!("could not read {rel}: {e}")),
    }
}

fn eol_name(eol: Eol) -> &'static str {
    match eol {
        Eol::Lf => "lf",
        Eol::CrLf => "crlf",
    }
}
