//! The file commands: newfile, updatefile, editfile, deletefile, readfile, mkdir, movefile.
//!
//! Each resolves its path inside the workspace first, backs up what it is about to change, then
//! writes atomically. A failure touches nothing and says what was found and how to fix it.

use std::path::{Path, PathBuf};

use cap_std::fs::Permissions;

use super::Workspace;
use super::backup::{Backup, mode_of};
use super::eol::{EolSource, new_file_eol};
use super::find::{explain_miss, find_all};
use super::text::{
    Eol, TextFile, count_lines, decode, dominant, file_body, line_of, normalize, original_offsets,
    short_sha, verified_line, with_eol,
};
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

fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
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

    /// `@@newfile`: creates the file; fails if it exists.
    pub fn new_file(
        &self,
        rel: &str,
        content: &str,
        backup: &mut Backup,
    ) -> Result<FileOutcome, Failure> {
        let path = self.resolve(rel)?;
        writable(rel, &path)?;
        if let Ok(meta) = self.dir().symlink_metadata(&path) {
            let what = if meta.is_dir() { "a folder" } else { "a file" };
            return Err(Failure::new(
                Code::FileAlreadyExists,
                format!(
                    "{rel} already exists ({what}); use @@updatefile to replace a file's content or @@editfile to change part of it"
                ),
            ));
        }
        let (eol, source) = new_file_eol(self.root(), &path);
        self.make_parents(rel, &path, backup)?;
        let bytes = file_body(content, eol).into_bytes();
        backup.created(&path, &bytes)?;
        self.write_atomic(&path, &bytes, None)
            .map_err(|e| self.io_failure(rel, "write", e))?;
        let mut outcome = FileOutcome::verified(verified_line(&shown(&path), &bytes));
        if eol == Eol::CrLf || source != EolSource::Platform {
            outcome.details.push(format!(
                "eol: {} (from {})",
                eol_name(eol),
                source.describe()
            ));
        }
        Ok(outcome)
    }

    /// `@@updatefile`: replaces the whole content, keeping the BOM and the file's line ending.
    pub fn update_file(
        &self,
        rel: &str,
        content: &str,
        backup: &mut Backup,
    ) -> Result<FileOutcome, Failure> {
        let old = self.existing(rel)?;
        writable(rel, &old.path)?;
        let eol =
            dominant(&old.text.text).unwrap_or_else(|| new_file_eol(self.root(), &old.path).0);
        let bytes = self.rewrite(rel, &old, file_body(content, eol), backup)?;
        let mut outcome = FileOutcome::verified(verified_line(&shown(&old.path), &bytes));
        if bytes == old.bytes {
            outcome
                .details
                .push("unchanged: the content was already this".to_string());
        }
        Ok(outcome)
    }

    /// `@@editfile`: replaces the single occurrence of FIND. Only the bytes that differ between
    /// FIND and REPLACE are rewritten; new line breaks take the file's dominant ending.
    pub fn edit_file(
        &self,
        rel: &str,
        find: &str,
        replace: &str,
        backup: &mut Backup,
    ) -> Result<FileOutcome, Failure> {
        let old = self.existing(rel)?;
        writable(rel, &old.path)?;
        let original = &old.text.text;
        let norm = normalize(original);
        let matches = find_all(&norm, find);
        if matches.len() != 1 {
            return Err(Failure::new(
                Code::FindNotUnique,
                explain_miss(&norm, find, replace, &matches),
            ));
        }
        let start = matches[0];
        // Leave the parts FIND and REPLACE share untouched, byte for byte.
        let prefix = common_prefix(find, replace);
        let suffix = common_suffix(&find[prefix..], &replace[prefix..]);
        let (from, to) = (start + prefix, start + find.len() - suffix);
        let middle = &replace[prefix..replace.len() - suffix];
        let offsets = original_offsets(original, &[from, to]);
        let eol = dominant(original).unwrap_or_else(|| new_file_eol(self.root(), &old.path).0);
        let mut text = String::with_capacity(original.len() + middle.len() * 2);
        text.push_str(&original[..offsets[0]]);
        text.push_str(&with_eol(middle, eol));
        text.push_str(&original[offsets[1]..]);
        let bytes = self.rewrite(rel, &old, text, backup)?;
        let first = line_of(&norm, start);
        let last = first + find.matches('\n').count();
        let mut outcome = FileOutcome::verified(verified_line(&shown(&old.path), &bytes));
        outcome.details.push(if find == replace {
            "unchanged: FIND and REPLACE are the same".to_string()
        } else {
            let became = replace.matches('\n').count() + 1;
            let lines = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}-{last}")
            };
            format!("edit: {lines} became {became} line(s)")
        });
        Ok(outcome)
    }

    /// `@@deletefile`: backs the file up, then removes it.
    pub fn delete_file(&self, rel: &str, backup: &mut Backup) -> Result<FileOutcome, Failure> {
        let path = self.resolve_entry(rel)?;
        writable(rel, &path)?;
        let meta = self.dir().symlink_metadata(&path).map_err(|_| {
            Failure::new(
                Code::FileNotFound,
                format!("{rel} does not exist; nothing was deleted"),
            )
        })?;
        if meta.is_dir() {
            return Err(Failure::new(
                Code::FileIo,
                format!("{rel} is a folder; @@deletefile removes one file at a time"),
            ));
        }
        if meta.file_type().is_symlink() {
            return Err(Failure::new(
                Code::FileIo,
                format!("{rel} is a symbolic link; keyless does not delete links"),
            ));
        }
        regular(rel, &meta)?;
        let bytes = self
            .dir()
            .read(&path)
            .map_err(|e| self.io_failure(rel, "read", e))?;
        backup.deleted(&path, &bytes, mode_of(&meta.permissions()))?;
        self.dir()
            .remove_file(&path)
            .map_err(|e| self.io_failure(rel, "delete", e))?;
        Ok(FileOutcome {
            details: vec![format!("deleted: {} bytes, backed up", bytes.len())],
            ..FileOutcome::default()
        })
    }

    /// `@@readfile`: the file's text, LF-normalised and without its final line break, so it
    /// reads back exactly as a CONTENT section would write it. Past `max_chars`, whole lines up
    /// to the limit are shown and the result says how to read the rest.
    pub fn read_file(&self, rel: &str, max_chars: usize) -> Result<FileOutcome, Failure> {
        if let Some(outcome) = self.read_large(rel, max_chars)? {
            return Ok(outcome);
        }
        let old = self.existing(rel)?;
        let norm = normalize(&old.text.text);
        let total_lines = count_lines(&norm);
        let body = norm.strip_suffix('\n').unwrap_or(&norm);
        let mut outcome = FileOutcome::default();
        outcome.details.push(format!("lines: {total_lines}"));
        outcome.details.push(format!("bytes: {}", old.bytes.len()));
        outcome
            .details
            .push(format!("sha: {}", short_sha(&old.bytes)));
        if let Some(eol) = dominant(&old.text.text) {
            outcome.details.push(format!("eol: {}", eol_name(eol)));
        }
        if old.text.bom {
            outcome.details.push("bom: yes".to_string());
        }
        if !norm.is_empty() && !norm.ends_with('\n') {
            outcome.details.push("final newline: no".to_string());
        }
        let shown_text = if body.chars().count() > max_chars {
            let mut cut = 0;
            let mut chars = 0;
            for line in body.split_inclusive('\n') {
                let n = line.chars().count();
                if chars + n > max_chars {
                    break;
                }
                chars += n;
                cut += line.len();
            }
            let part = body[..cut].strip_suffix('\n').unwrap_or(&body[..cut]);
            let shown_lines = count_lines(part);
            outcome.lines.push(format!(
                "partial: lines 1-{shown_lines} of {total_lines} shown (the file has {} characters; a result holds at most {max_chars}). Read on with @@runcommand: sed -n '{},{}p' {rel}",
                body.chars().count(),
                shown_lines + 1,
                (shown_lines + 400).min(total_lines)
            ));
            part.to_string()
        } else {
            body.to_string()
        };
        outcome.block = Some(("CONTENT", shown_text));
        Ok(outcome)
    }

    /// `@@readfile` of a file too large to read whole (a log, a sparse file): only as many
    /// bytes as `max_chars` characters can take are read, and whole lines of them shown.
    /// `None` when the file is small enough for the ordinary path.
    fn read_large(&self, rel: &str, max_chars: usize) -> Result<Option<FileOutcome>, Failure> {
        use std::io::Read;
        let path = self.resolve(rel)?;
        let Ok(meta) = self.dir().metadata(&path) else {
            return Ok(None); // the ordinary path reports it
        };
        if meta.is_dir() {
            return Ok(None);
        }
        regular(rel, &meta)?;
        if meta.len() <= READ_WHOLE_LIMIT {
            return Ok(None);
        }
        // A character is at most 4 bytes in UTF-8.
        let budget = (max_chars as u64).saturating_mul(4).saturating_add(4);
        let mut bytes = Vec::new();
        self.dir()
            .open(&path)
            .and_then(|f| f.take(budget).read_to_end(&mut bytes))
            .map_err(|e| self.io_failure(rel, "read", e))?;
        let valid = match std::str::from_utf8(&bytes) {
            Ok(text) => text,
            // Cut inside a character at the end of the budget: keep the whole ones.
            Err(e) if e.error_len().is_none() => {
                std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
            }
            Err(_) => {
                return Err(Failure::new(
                    Code::FileIo,
                    format!("{rel} is not UTF-8 text (binary, or another encoding)"),
                ));
            }
        };
        let text = valid.strip_prefix('\u{feff}').unwrap_or(valid);
        let norm = normalize(text);
        let mut shown = String::new();
        let mut chars = 0;
        for line in norm.split_inclusive('\n') {
            let n = line.chars().count();
            if chars + n > max_chars || !line.ends_with('\n') {
                break;
            }
            chars += n;
            shown.push_str(line);
        }
        let shown_lines = count_lines(&shown);
        let shown = shown.strip_suffix('\n').unwrap_or(&shown).to_string();
        Ok(Some(FileOutcome {
            details: vec![format!("bytes: {}", meta.len())],
            lines: vec![format!(
                "partial: the first {shown_lines} lines shown; the file holds {} bytes, too many to read whole (a result holds at most {max_chars} characters). Read on with @@runcommand: sed -n '{},{}p' {rel}",
                meta.len(),
                shown_lines + 1,
                shown_lines + 400
            )],
            block: Some(("CONTENT", shown)),
        }))
    }

    /// `@@mkdir`: creates the folder and its parents; succeeds if it exists.
    pub fn make_dir(&self, rel: &str, backup: &mut Backup) -> Result<FileOutcome, Failure> {
        let path = self.resolve(rel)?;
        writable(rel, &path)?;
        match self.dir().metadata(&path) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(Failure::new(
                    Code::FileAlreadyExists,
                    format!("{rel} already exists as a file"),
                ));
            }
            Err(_) => {
                self.make_parents(rel, &path.join("x"), backup)?;
            }
        }
        Ok(FileOutcome::verified("verified: dir exists".to_string()))
    }

    /// `@@movefile`: moves a file; never overwrites, creates parent folders.
    pub fn move_file(
        &self,
        rel: &str,
        to: &str,
        backup: &mut Backup,
    ) -> Result<FileOutcome, Failure> {
        let from = self.resolve_entry(rel)?;
        let dest = self.resolve(to)?;
        writable(rel, &from)?;
        writable(to, &dest)?;
        let meta = self.dir().symlink_metadata(&from).map_err(|_| {
            Failure::new(
                Code::FileNotFound,
                format!("{rel} does not exist; nothing was moved"),
            )
        })?;
        if !meta.is_file() {
            return Err(Failure::new(
                Code::FileIo,
                format!("{rel} is not a regular file; @@movefile moves files"),
            ));
        }
        if self.dir().symlink_metadata(&dest).is_ok() {
            return Err(Failure::new(
                Code::FileAlreadyExists,
                format!(
                    "{to} already exists; @@movefile never overwrites (delete it first, or choose another name)"
                ),
            ));
        }
        self.make_parents(to, &dest, backup)?;
        backup.moved(&from, &dest)?;
        self.dir()
            .rename(&from, self.dir(), &dest)
            .map_err(|e| self.io_failure(rel, "move", e))?;
        let bytes = self
            .dir()
            .read(&dest)
            .map_err(|e| self.io_failure(to, "read", e))?;
        Ok(FileOutcome::verified(verified_line(&shown(&dest), &bytes)))
    }
}

/// Files larger than this are never read whole (edited, replaced, deleted with a backup).
const MAX_WHOLE_FILE: u64 = 512 * 1024 * 1024;
/// `@@readfile` of a larger file reads only what its result can show.
const READ_WHOLE_LIMIT: u64 = 16 * 1024 * 1024;

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

/// Bytes at the start `a` and `b` share, ending on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Bytes at the end `a` and `b` share, starting on a character boundary.
fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - n) {
        n -= 1;
    }
    n
}

/// keyless's own configuration at the workspace root: the model may read it, never change it
/// (it holds the mode and the allow and deny lists: a model must not set its own safety
/// switches).
pub const CONFIG_FILE: &str = "keyless.json";

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
