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

use cap_std::fs::Metadata;

use super::place::Place;
use super::reach::is_git_dir;
use super::reach::{Reach, Refused};
use super::{AGENT_DIR, Workspace, nofollow};
use crate::catalog::Failure;
use crate::protocol::path::{TrailingSlash, check_path};

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
