//! The file commands that change the workspace: newfile, updatefile, editfile (only the bytes
//! that differ rewritten), deletefile, mkdir and movefile.

use super::{FileOutcome, eol_name, not_opened};
use crate::catalog::{Code, Failure};
use crate::workspace::backup::{Backup, mode_of};
use crate::workspace::eol::{EolSource, new_file_eol};
use crate::workspace::find::{explain_miss, find_all};
use crate::workspace::text::{
    Eol, dominant, file_body, line_of, normalize, original_offsets, verified_line, with_eol,
};
use crate::workspace::{Reach, Replace, Workspace, shown};

impl Workspace {
    /// `@@newfile`: creates the file; fails if it exists.
    pub fn new_file(
        &self,
        rel: &str,
        content: &str,
        backup: &mut Backup,
    ) -> Result<FileOutcome, Failure> {
        let mut place = self.place(rel, Reach::Model)?;
        if let Some(meta) = place.entry() {
            let what = if meta.is_dir() { "a folder" } else { "a file" };
            return Err(Failure::new(
                Code::FileAlreadyExists,
                format!(
                    "{rel} already exists ({what}); use @@updatefile to replace a file's content or @@editfile to change part of it"
                ),
            ));
        }
        let (eol, source) = new_file_eol(self.root(), &place);
        place.make_missing(|dir| backup.dir_created(dir))?;
        let bytes = file_body(content, eol).into_bytes();
        backup.created(place.rel(), &bytes)?;
        place.write_new(&bytes).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Failure::new(
                Code::FileAlreadyExists,
                format!(
                    "{rel} was made by something else while it was written; nothing was replaced"
                ),
            ),
            _ => place.failure("write", e),
        })?;
        let mut outcome = FileOutcome::verified(verified_line(&shown(place.rel()), &bytes));
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
        let eol =
            dominant(&old.text.text).unwrap_or_else(|| new_file_eol(self.root(), &old.place).0);
        let bytes = self.rewrite(&old, file_body(content, eol), backup)?;
        let mut outcome = FileOutcome::verified(verified_line(&shown(old.place.rel()), &bytes));
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
        let eol = dominant(original).unwrap_or_else(|| new_file_eol(self.root(), &old.place).0);
        let mut text = String::with_capacity(original.len() + middle.len() * 2);
        text.push_str(&original[..offsets[0]]);
        text.push_str(&with_eol(middle, eol));
        text.push_str(&original[offsets[1]..]);
        let bytes = self.rewrite(&old, text, backup)?;
        let first = line_of(&norm, start);
        let last = first + find.matches('\n').count();
        let mut outcome = FileOutcome::verified(verified_line(&shown(old.place.rel()), &bytes));
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
        let place = self.place(rel, Reach::Model)?;
        if place.entry().is_some_and(|meta| meta.is_dir()) {
            return Err(Failure::new(
                Code::FileIo,
                format!("{rel} is a folder; @@deletefile removes one file at a time"),
            ));
        }
        let (bytes, meta) = place.read(None).map_err(|e| match e {
            crate::workspace::NotOpened::Missing => Failure::new(
                Code::FileNotFound,
                format!("{rel} does not exist; nothing was deleted"),
            ),
            other => not_opened(rel, other),
        })?;
        backup.deleted(place.rel(), &bytes, mode_of(&meta.permissions()))?;
        place
            .remove_file()
            .map_err(|e| place.failure("delete", e))?;
        Ok(FileOutcome {
            details: vec![format!("deleted: {} bytes, backed up", bytes.len())],
            ..FileOutcome::default()
        })
    }

    /// `@@mkdir`: creates the folder and its parents; succeeds if it exists.
    pub fn make_dir(&self, rel: &str, backup: &mut Backup) -> Result<FileOutcome, Failure> {
        let mut place = self.place(rel, Reach::Model)?;
        match place.entry() {
            Some(meta) if meta.is_dir() => {}
            Some(_) => {
                return Err(Failure::new(
                    Code::FileAlreadyExists,
                    format!("{rel} already exists as a file"),
                ));
            }
            None => {
                place.make_missing(|dir| backup.dir_created(dir))?;
                backup.dir_created(place.rel())?;
                place
                    .create_dir()
                    .map_err(|e| place.failure("create the folder", e))?;
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
        let from = self.place(rel, Reach::Model)?;
        let mut dest = self.place(to, Reach::Model)?;
        match from.entry() {
            None => {
                return Err(Failure::new(
                    Code::FileNotFound,
                    format!("{rel} does not exist; nothing was moved"),
                ));
            }
            Some(meta) if !meta.is_file() => {
                return Err(Failure::new(
                    Code::FileIo,
                    format!("{rel} is not a regular file; @@movefile moves files"),
                ));
            }
            Some(_) => {}
        }
        let exists = || {
            Failure::new(
                Code::FileAlreadyExists,
                format!(
                    "{to} already exists; @@movefile never overwrites (delete it first, or choose another name)"
                ),
            )
        };
        if dest.entry().is_some() {
            return Err(exists());
        }
        dest.make_missing(|dir| backup.dir_created(dir))?;
        backup.moved(from.rel(), dest.rel())?;
        from.move_to(&dest, Replace::Never)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => exists(),
                _ => from.failure("move", e),
            })?;
        let (bytes, _) = self
            .place(to, Reach::Model)?
            .read(None)
            .map_err(|e| not_opened(to, e))?;
        Ok(FileOutcome::verified(verified_line(
            &shown(dest.rel()),
            &bytes,
        )))
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
