//! The workspace: the one folder the model may read and write, through paths it cannot escape.
//!
//! Every path the model gives is resolved here before use: lexically (no `.git` segment, no
//! root `.agent`), then against the file system (symlinks followed, the result must stay inside
//! and out of `.git`/`.agent`). All file operations then go through a `cap_std::fs::Dir` for the
//! workspace root, which refuses any path that would leave it at the moment of the call, so a
//! symlink swapped in after the check (a race) cannot lead outside either.
//!
//! Architecture Invariant: only this module (and the backups it keeps) touches workspace files.

pub(crate) mod agent;
pub mod backup;
mod dotenv;
pub(crate) mod eol;
pub(crate) mod find;
pub(crate) mod instructions;
pub(crate) mod ops;
pub(crate) mod settle;
pub(crate) mod text;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions, Permissions};

use crate::catalog::{Code, Failure};
use crate::protocol::path::{TrailingSlash, check_path};

/// keyless's own folder at the workspace root: sessions, backups, transcripts.
pub const AGENT_DIR: &str = ".agent";

/// Distinguishes temporary files written by one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// An open workspace folder.
pub struct Workspace {
    root: PathBuf,
    dir: Dir,
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
        Ok(Workspace { root, dir })
    }

    /// The workspace's canonical absolute path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Resolves a model-given path to a workspace-relative path with every symlink followed.
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, Failure> {
        let parts = lexical_parts(rel)?;
        // The deepest part of the path that exists decides where the rest would land.
        for k in (0..=parts.len()).rev() {
            let probe = self.root.join(parts[..k].join("/"));
            match fs::symlink_metadata(&probe) {
                Ok(_) => {
                    let canonical = fs::canonicalize(&probe).map_err(|_| {
                        outside(format!(
                            "{rel} goes through a symbolic link whose target does not exist; keyless does not write through such links"
                        ))
                    })?;
                    let inside = canonical.strip_prefix(&self.root).map_err(|_| {
                        outside(format!(
                            "{rel} resolves to {} through a symbolic link, outside the workspace",
                            canonical.display()
                        ))
                    })?;
                    let mut resolved = inside.to_path_buf();
                    resolved.extend(&parts[k..]);
                    let segments: Vec<String> = resolved
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
                    if let Some(why) = forbidden(&segments) {
                        return Err(outside(format!(
                            "{rel} resolves to {} through a symbolic link, which {why}",
                            resolved.display()
                        )));
                    }
                    return Ok(resolved);
                }
                Err(_) if k > 0 => continue,
                Err(e) => {
                    return Err(Failure::new(
                        Code::FileIo,
                        format!("cannot read the workspace folder: {e}"),
                    ));
                }
            }
        }
        unreachable_root()
    }

    /// Resolves the folder holding `rel`, leaving its last segment as written: for commands that
    /// act on a directory entry itself (delete, move) rather than on what a link points to.
    pub fn resolve_entry(&self, rel: &str) -> Result<PathBuf, Failure> {
        let parts = lexical_parts(rel)?;
        let (last, parents) = parts
            .split_last()
            .ok_or_else(|| outside(format!("{rel} names no file")))?;
        let mut resolved = if parents.is_empty() {
            PathBuf::new()
        } else {
            self.resolve(&parents.join("/"))?
        };
        resolved.push(last);
        Ok(resolved)
    }

    /// Rechecks a path after an operation failed: an escape (for example a symlink swapped in
    /// after the first check) is reported as such, anything else as an I/O failure.
    pub(crate) fn io_failure(&self, rel: &str, action: &str, error: io::Error) -> Failure {
        match self.resolve(rel) {
            Err(f) if f.code == Code::PathOutside => f,
            _ => Failure::new(Code::FileIo, format!("could not {action} {rel}: {error}")),
        }
    }

    /// Writes `bytes` to `path` atomically: a temporary file in the same folder, flushed, given
    /// `permissions`, then renamed over the target. Readers see the old or the new file, never a
    /// mix, even if keyless is killed half-way.
    pub fn write_atomic(
        &self,
        path: &Path,
        bytes: &[u8],
        permissions: Option<Permissions>,
    ) -> io::Result<()> {
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
        let temp = path.with_file_name(format!(
            ".{}.keyless-{}-{}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        self.clear_stale_temps(path);
        let result = (|| {
            let mut file = self
                .dir
                .open_with(&temp, OpenOptions::new().write(true).create_new(true))?;
            file.write_all(bytes)?;
            if let Some(permissions) = permissions {
                file.set_permissions(permissions)?;
            }
            file.sync_all()?;
            drop(file);
            self.dir.rename(&temp, &self.dir, path)
        })();
        if result.is_err() {
            let _ = self.dir.remove_file(&temp);
        }
        result
    }
}

impl Workspace {
    /// Removes temporary files that an earlier, killed keyless left beside `path` (their
    /// process is gone). Only keyless's own `.NAME.keyless-PID-N.tmp` files are touched.
    pub(crate) fn clear_stale_temps(&self, path: &Path) {
        let Some(name) = path.file_name() else {
            return;
        };
        let folder = path.parent().unwrap_or(Path::new(""));
        self.clear_temps(folder, Some(&name.to_string_lossy()));
    }

    /// The same for every file in `folder`.
    pub(crate) fn clear_stale_temps_in(&self, folder: &Path) {
        self.clear_temps(folder, None);
    }

    fn clear_temps(&self, folder: &Path, name: Option<&str>) {
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        let Ok(entries) = self.dir.read_dir(folder) else {
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
                let _ = self.dir.remove_file(folder.join(&file));
            }
        }
    }
}

/// Checks a path's shape and its `.git` / `.agent` segments; returns its segments.
/// A workspace path as results and backups show it: forward slashes on every platform.
pub(crate) fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn lexical_parts(rel: &str) -> Result<Vec<&str>, Failure> {
    let checked = check_path(rel, TrailingSlash::Allowed).map_err(outside)?;
    let parts: Vec<&str> = checked.split('/').collect();
    if let Some(why) = forbidden(&parts) {
        return Err(outside(format!("{rel} {why}")));
    }
    Ok(parts)
}

/// Why a workspace-relative path is off limits, if it is.
fn forbidden(segments: &[&str]) -> Option<&'static str> {
    if segments.iter().any(|s| s.eq_ignore_ascii_case(".git")) {
        return Some(
            "is inside .git, which keyless never lets the model read or write (use @@commit for git)",
        );
    }
    if segments
        .first()
        .is_some_and(|s| s.eq_ignore_ascii_case(AGENT_DIR))
    {
        return Some(
            "is inside .agent, keyless's own state, which the model may not read or write",
        );
    }
    None
}

fn outside(reason: String) -> Failure {
    Failure::new(Code::PathOutside, reason)
}

fn unreachable_root() -> Result<PathBuf, Failure> {
    Err(Failure::new(
        Code::Internal,
        "the workspace root could not be examined",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A folder swapped for a symlink after the path was checked (a race) still cannot lead a
    /// write outside: the directory handle refuses it, and the recheck names the escape.
    #[test]
    fn a_symlink_swapped_in_after_the_check_cannot_lead_outside() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let resolved = ws.resolve("sub/file.txt").unwrap();
        assert_eq!(resolved, Path::new("sub/file.txt"));

        fs::remove_dir(dir.path().join("sub")).unwrap();
        symlink(outside.path(), dir.path().join("sub")).unwrap();

        let error = ws.write_atomic(&resolved, b"escaped", None).unwrap_err();
        assert_eq!(
            fs::read_dir(outside.path()).unwrap().count(),
            0,
            "nothing written outside"
        );
        let failure = ws.io_failure("sub/file.txt", "write", error);
        assert_eq!(failure.code, Code::PathOutside, "{failure:?}");
    }
}
