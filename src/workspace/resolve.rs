//! The one resolver: every path keyless opens in the workspace, for the model's file commands
//! and for keyless itself (undo, the backups, the first message's instructions, the `.env` files
//! read for the redactor, keyless's state in `.agent/`), is walked here one name at a time from
//! the workspace's directory handle, each folder opened without following a link
//! (`nofollow.rs`). What is found is then used through the handle of the folder that holds it,
//! by its last name only ([`Place`]), so a link a command swapped in between a check and the use
//! cannot be followed: there is no check apart from the use.
//!
//! It refuses, for the model ([`Reach::Model`]):
//! - a symbolic link anywhere on the way, the last name included (a command may have made it);
//! - `.git` at any depth, folder or file, in every spelling a file system may take for it, and
//!   a repository's own folder wherever it lies (the place a nested repository's `.git` file
//!   points to: a folder holding `HEAD`, `objects` and `refs`, as git recognises one);
//! - `.agent` and `keyless.json` at any depth (this workspace's or a nested one's), and every
//!   other configuration file keyless reads that lies in the workspace (`--config`,
//!   `--selectors`: [`OffLimits`]);
//! - the paths hidden from the model's commands (`Sandbox.HiddenPaths`, keyless's browser
//!   profile and configuration folder, the secret stores), where they lie in the workspace.
//!
//! The same for reading and for writing: what the model's commands may not see, or may see but
//! not change, its file commands may neither read nor change. For the `.env` files read only to
//! know what to redact ([`Reach::Redactor`]) hidden paths count for nothing (their values may
//! still be in git's history); for keyless's own state ([`Reach::Own`]) only `.agent/` may be
//! reached, and no link in it.
//!
//! What it does not do: decide what a file command does with what it found (`ops/`), or follow
//! hard links (keyless never writes into a file in place: a new file is renamed over the name, so
//! a hard link to a configuration file under another name changes only that name).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, Metadata};

use super::place::Place;
use super::{AGENT_DIR, Workspace, nofollow, outside};
use crate::catalog::Failure;
use crate::protocol::path::{TrailingSlash, check_path};

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

/// What keyless keeps out of the model's reach in this workspace besides the names every
/// workspace has: its configuration files and the hidden paths that lie inside it, each as the
/// names of its workspace-relative path.
#[derive(Clone, Debug, Default)]
pub struct OffLimits {
    config: Vec<Vec<String>>,
    hidden: Vec<Vec<String>>,
}

impl OffLimits {
    /// keyless's configuration files (`--config`, `--selectors`, the `keyless.json` read) and the
    /// paths hidden from commands, wherever they are: those inside `root` are kept.
    pub fn new(root: &Path, config: &[PathBuf], hidden: &[PathBuf]) -> OffLimits {
        let inside = |paths: &[PathBuf]| -> Vec<Vec<String>> {
            paths
                .iter()
                .filter_map(|p| real(p).strip_prefix(root).ok().map(Path::to_path_buf))
                .filter(|rel| !rel.as_os_str().is_empty())
                .map(|rel| {
                    rel.components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect()
                })
                .collect()
        };
        OffLimits {
            config: inside(config),
            hidden: inside(hidden),
        }
    }
}

/// `path` with every link and `..` in its existing part resolved (the part that does not exist
/// yet kept as written), so it compares with the workspace's canonical root.
fn real(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut probe = path.to_path_buf();
    loop {
        if let Ok(found) = probe.canonicalize() {
            return rest.iter().rev().fold(found, |p, name| p.join(name));
        }
        match (probe.file_name().map(OsString::from), probe.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                probe = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Characters HFS+ ignores in a name (macOS): git refuses `.git` spelled with them too.
const IGNORED_IN_NAMES: &[char] = &[
    '\u{200C}', '\u{200D}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}',
    '\u{202E}', '\u{206A}', '\u{206B}', '\u{206C}', '\u{206D}', '\u{206E}', '\u{206F}', '\u{FEFF}',
];

/// Whether `segment` names `wanted` on some file system keyless may run on: in any letter case
/// (macOS, Windows), with the dots and spaces Windows drops from a name's end, without the
/// characters HFS+ ignores.
fn names(segment: &str, wanted: &str) -> bool {
    let kept: String = segment
        .chars()
        .filter(|c| !IGNORED_IN_NAMES.contains(c))
        .collect();
    kept.trim_end_matches(['.', ' '])
        .eq_ignore_ascii_case(wanted)
}

/// The 8.3 short name Windows may give `.git` (git refuses it too).
const GIT_SHORT_NAME: &str = "git~1";

/// What a lexically checked path's names decide for `reach`, before anything is opened.
fn by_name(parts: &[&str], reach: Reach, off: &OffLimits) -> Result<(), Refused> {
    let at = |i: usize| parts[..=i].join("/");
    if reach == Reach::Own {
        return match parts.first() {
            Some(first) if *first == AGENT_DIR => Ok(()),
            _ => Err(Refused::NotOwn),
        };
    }
    for (i, part) in parts.iter().enumerate() {
        if names(part, ".git") || part.eq_ignore_ascii_case(GIT_SHORT_NAME) {
            return Err(Refused::Git {
                at: at(i),
                nested: i > 0,
            });
        }
        if names(part, AGENT_DIR) {
            return Err(Refused::Agent { at: at(i) });
        }
        if names(part, crate::config::file::FILE_NAME) {
            return Err(Refused::Config { at: at(i) });
        }
    }
    let starts_with = |prefix: &[String]| {
        prefix.len() <= parts.len()
            && prefix
                .iter()
                .zip(parts)
                .all(|(p, q)| p.eq_ignore_ascii_case(q))
    };
    if let Some(config) = off
        .config
        .iter()
        .find(|c| c.len() == parts.len() && starts_with(c))
    {
        return Err(Refused::Config {
            at: config.join("/"),
        });
    }
    if reach == Reach::Model
        && let Some(hidden) = off.hidden.iter().find(|h| starts_with(h))
    {
        return Err(Refused::Hidden {
            at: hidden.join("/"),
        });
    }
    Ok(())
}

/// Whether the open folder `dir` is a repository's own folder, as git tells one: `HEAD`, and
/// the folders `objects` and `refs`. Only `HEAD` is looked for in most folders.
fn is_git_dir(dir: &Dir) -> bool {
    let kind = |name: &str| dir.symlink_metadata(name).ok().map(|m| m.file_type());
    kind("HEAD").is_some_and(|t| t.is_file() || t.is_symlink())
        && kind("objects").is_some_and(|t| t.is_dir())
        && kind("refs").is_some_and(|t| t.is_dir())
}

/// Why a walk stopped short of a place.
pub(super) enum Stop {
    Refused(Refused),
    /// The workspace could not be read (the message says where).
    Io(std::io::Error),
}

impl Workspace {
    /// Resolves `rel` for `reach`: refused by its names, or walked from the workspace's handle
    /// to the folder that holds its last name, no link followed on the way. Folders missing on
    /// the way are left for [`Place::make_missing`].
    pub fn place(&self, rel: &str, reach: Reach) -> Result<Place, Failure> {
        self.walk(rel, reach).map_err(|stop| match stop {
            Stop::Refused(refused) => refused.failure(rel),
            Stop::Io(e) => Failure::new(
                crate::catalog::Code::FileIo,
                format!("cannot read the workspace on the way to {rel}: {e}"),
            ),
        })
    }

    /// [`Workspace::place`], with a refusal as its type (undo lists them).
    pub(super) fn walk(&self, rel: &str, reach: Reach) -> Result<Place, Stop> {
        let checked = check_path(rel, TrailingSlash::Allowed)
            .map_err(|why| Stop::Refused(Refused::Shape(why)))?;
        let parts: Vec<&str> = checked.split('/').collect();
        by_name(&parts, reach, &self.off_limits).map_err(Stop::Refused)?;
        let (last, folders) = parts
            .split_last()
            .ok_or_else(|| Stop::Refused(Refused::Shape(format!("{rel} names no file"))))?;
        let mut dir = self.dir.try_clone().map_err(Stop::Io)?;
        if reach != Reach::Own && is_git_dir(&dir) {
            return Err(Stop::Refused(Refused::GitDir {
                at: "the workspace folder".into(),
            }));
        }
        let mut missing = Vec::new();
        let mut blocked = None;
        for (i, name) in folders.iter().enumerate() {
            let at = || parts[..=i].join("/");
            if !missing.is_empty() || blocked.is_some() {
                missing.push((*name).to_string());
                continue;
            }
            match nofollow::open_dir(&dir, name.as_ref()) {
                Ok(next) => {
                    if reach != Reach::Own && is_git_dir(&next) {
                        return Err(Stop::Refused(Refused::GitDir { at: at() }));
                    }
                    dir = next;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    missing.push((*name).to_string())
                }
                Err(e) if nofollow::maybe_link(&e) => match dir.symlink_metadata(name) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        return Err(Stop::Refused(Refused::Link { at: at() }));
                    }
                    Ok(_) => {
                        blocked = Some(at());
                        missing.push((*name).to_string());
                    }
                    Err(_) => return Err(Stop::Io(e)),
                },
                Err(e) => return Err(Stop::Io(e)),
            }
        }
        let entry: Option<Metadata> = if missing.is_empty() {
            match dir.symlink_metadata(last) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(Stop::Refused(Refused::Link {
                        at: checked.to_string(),
                    }));
                }
                Ok(meta) => Some(meta),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(Stop::Io(e)),
            }
        } else {
            None
        };
        Ok(Place::new(
            dir,
            missing,
            blocked,
            (*last).into(),
            PathBuf::from(checked),
            entry,
            reach,
        ))
    }
}

impl Workspace {
    /// The names at the workspace's root with what each is (a link is a link, never followed).
    pub fn root_entries(&self) -> std::io::Result<Vec<(OsString, Metadata)>> {
        let mut found = Vec::new();
        for entry in self.dir.entries()? {
            let name = entry?.file_name();
            if let Ok(meta) = self.dir.symlink_metadata(&name) {
                found.push((name, meta));
            }
        }
        Ok(found)
    }

    /// Whether `rel` is hidden from the model (and so from what it is shown of the workspace).
    pub fn hides(&self, rel: &str) -> bool {
        let parts: Vec<&str> = rel.split('/').collect();
        matches!(
            by_name(&parts, Reach::Model, &self.off_limits),
            Err(Refused::Hidden { .. })
        )
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_is_named_in_every_spelling_a_file_system_may_take() {
        for spelling in [
            ".git",
            ".GIT",
            ".Git",
            ".git.",
            ".git ",
            ".git. .",
            ".g\u{200C}it",
            "\u{FEFF}.git",
        ] {
            assert!(names(spelling, ".git"), "{spelling:?}");
        }
        for other in [".gitignore", "git", ".git2", "a.git", ".gi"] {
            assert!(!names(other, ".git"), "{other:?}");
        }
    }

    #[test]
    fn names_decide_before_anything_is_opened() {
        let off = OffLimits {
            config: vec![vec!["cfg".into(), "settings.json".into()]],
            hidden: vec![vec!["profile".into()]],
        };
        let refused = |path: &str, reach| {
            let parts: Vec<&str> = path.split('/').collect();
            by_name(&parts, reach, &off).err()
        };
        assert_eq!(
            refused("a/.git/config", Reach::Model),
            Some(Refused::Git {
                at: "a/.git".into(),
                nested: true
            })
        );
        assert_eq!(
            refused("GIT~1/config", Reach::Model),
            Some(Refused::Git {
                at: "GIT~1".into(),
                nested: false
            })
        );
        assert_eq!(
            refused("sub/.agent/x", Reach::Model),
            Some(Refused::Agent {
                at: "sub/.agent".into()
            })
        );
        assert_eq!(
            refused("sub/Keyless.json", Reach::Model),
            Some(Refused::Config {
                at: "sub/Keyless.json".into()
            })
        );
        assert_eq!(
            refused("CFG/settings.json", Reach::Model),
            Some(Refused::Config {
                at: "cfg/settings.json".into()
            })
        );
        assert_eq!(refused("cfg/other.json", Reach::Model), None);
        assert_eq!(
            refused("profile/Default/Cookies", Reach::Model),
            Some(Refused::Hidden {
                at: "profile".into()
            })
        );
        assert_eq!(refused("profile/x.env", Reach::Redactor), None);
        assert_eq!(refused(".agent/backups/b000001", Reach::Own), None);
        assert_eq!(refused("src/a.rs", Reach::Own), Some(Refused::NotOwn));
        assert_eq!(refused("src/a.rs", Reach::Model), None);
    }

    #[test]
    fn a_refusal_names_the_part_that_decided() {
        let link = Refused::Link { at: "sub".into() };
        assert!(
            link.reason("sub/a.txt")
                .starts_with("sub/a.txt is refused: sub is a symbolic link"),
            "{}",
            link.reason("sub/a.txt")
        );
        let whole = Refused::Hidden {
            at: "profile".into(),
        };
        assert!(whole.reason("profile").starts_with("profile is hidden"));
    }
}
