//! Whose hands a path in the workspace is resolved for ([`Reach`]), why the resolver refuses
//! one ([`Refused`], in words for the model and the person), and the one question asked of a
//! folder once it is open (is it a repository's own folder?): the vocabulary that the resolver
//! (`resolve.rs`) and the places it hands out (`place.rs`) share.
//!
//! What it does not do: walk a path (`resolve.rs`) or open and write files (`place.rs`).

use std::path::Path;

use cap_std::fs::Dir;

use super::outside;
use crate::catalog::Failure;

/// Whose hands a path is resolved for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The model's file commands, and what keyless does on their behalf (undo, the first
    /// message's instructions, a command settled after a crash): nothing protected, nothing
    /// hidden, no link.
    Model,
    /// The `.env`-style files read only to know which values to redact, never shown: nothing
    /// protected, no link; hidden ones are read.
    Redactor,
    /// keyless's own state: only `.agent/`, no link in it.
    Own,
}

/// Why the resolver refused a path: `at` is the part of it that decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The path's shape (absolute, `..`, an empty segment), in the parse-time check's words.
    Shape(String),
    /// `at` is a symbolic link.
    Link { at: String },
    /// `at` is `.git`, of the workspace's repository (`nested: false`) or of one inside it.
    Git { at: String, nested: bool },
    /// `at` is a repository's own folder (it holds `HEAD`, `objects` and `refs`).
    GitDir { at: String },
    /// `at` is `.agent`, keyless's own state.
    Agent { at: String },
    /// `at` is a configuration file keyless reads.
    Config { at: String },
    /// `at` is hidden from the model's commands.
    Hidden { at: String },
    /// keyless's own state was looked for outside `.agent/`.
    NotOwn,
}

impl Refused {
    /// Why, in words for the model and the person, for the path as it was given.
    pub fn reason(&self, rel: &str) -> String {
        let whole = |at: &str| at == rel.trim_end_matches('/');
        let subject = |at: &str| {
            if whole(at) {
                rel.to_string()
            } else {
                format!("{rel} is refused: {at}")
            }
        };
        match self {
            Refused::Shape(why) => why.clone(),
            Refused::Link { at } => format!(
                "{} is a symbolic link; keyless never reads or writes through a link (a command may have made it). Name the real path, or replace the link with the file or folder",
                subject(at)
            ),
            Refused::Git { at, nested: false } => format!(
                "{} is protected: .git of this repository, which keyless never lets the model read or write (use @@commit for git)",
                subject(at)
            ),
            Refused::Git { at, nested: true } => format!(
                "{} is protected: .git of a nested repository, which keyless never lets the model read or write",
                subject(at)
            ),
            Refused::GitDir { at } => format!(
                "{} is protected: a git repository's own folder (it holds HEAD, objects and refs), which keyless never lets the model read or write",
                subject(at)
            ),
            Refused::Agent { at } => format!(
                "{} is protected: .agent, keyless's own state, which the model may not read or write",
                subject(at)
            ),
            Refused::Config { at } => format!(
                "{} is protected: keyless's own configuration (its mode, allow and deny lists, selectors); the model may not read or change it through file commands; ask the user to edit it",
                subject(at)
            ),
            Refused::Hidden { at } => format!(
                "{} is hidden: the model's commands do not see it (Sandbox.HiddenPaths, keyless's browser profile, a secret store), and its file commands may not read or write it",
                subject(at)
            ),
            Refused::NotOwn => format!("{rel} is not a place of keyless's own state"),
        }
    }

    /// The refusal as the failure a command reports (`KA_PATH_OUTSIDE`).
    pub fn failure(&self, rel: &str) -> Failure {
        outside(self.reason(rel))
    }
}

/// Whether the open folder `dir` is a repository's own folder, as git tells one: `HEAD`, and
/// the folders `objects` and `refs`. Only `HEAD` is looked for in most folders.
pub(super) fn is_git_dir(dir: &Dir) -> bool {
    let kind = |name: &str| dir.symlink_metadata(name).ok().map(|m| m.file_type());
    kind("HEAD").is_some_and(|t| t.is_file() || t.is_symlink())
        && kind("objects").is_some_and(|t| t.is_dir())
        && kind("refs").is_some_and(|t| t.is_dir())
}

/// Whether the folder just opened or made at `at` may be entered for `reach` (a repository's
/// own folder may not, for the model).
pub(super) fn enterable(dir: &Dir, reach: Reach, at: &Path) -> Result<(), Refused> {
    if reach != Reach::Own && is_git_dir(dir) {
        return Err(Refused::GitDir {
            at: super::shown(at),
        });
    }
    Ok(())
}
