//! Keeping `.git`, `.agent` and `keyless.json` as they were, where no mount can make them
//! read-only: before a command, what they hold is fingerprinted (small files copied); after it,
//! whatever changed is put back and what appeared is taken out, and the command is reported as
//! having tampered with them.
//!
//! With read-only mounts the guard still has one job: a protected name that did not exist
//! cannot be mounted over (`.git` in a folder that is no repository), so what a command created
//! there is moved to `.agent/quarantine/` (nothing is deleted).
//!
//! Architecture note: the one place besides `workspace` that writes inside the workspace; it
//! writes only under the protected names, never following a symlink.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::PROTECTED_NAMES;

/// Files larger than this are fingerprinted but not copied, so they cannot be put back.
const MAX_COPIED_FILE: u64 = 1024 * 1024;
/// The most the copies of one fingerprint hold.
const MAX_COPIED_TOTAL: u64 = 64 * 1024 * 1024;
/// Folders whose files are copied last, with what is left of a smaller budget: git's objects
/// and keyless's backups are many and large (a small repository's are all kept).
const COPIED_LAST: &[&str] = &[".git/objects", ".agent/backups", ".agent/logs"];
const MAX_COPIED_LAST: u64 = 16 * 1024 * 1024;
/// Where a moved protected folder is looked for: this deep, this many entries at most.
const NESTED_DEPTH: usize = 6;
const NESTED_ENTRIES: usize = 20_000;

/// What the guard watches for one command.
#[derive(Debug)]
pub struct Guard {
    root: PathBuf,
    watch: Watch,
    /// Where created protected names go (`Sandbox::quarantine_into`); `None`: beside them.
    quarantine: Option<PathBuf>,
}

#[derive(Debug)]
enum Watch {
    Nothing,
    /// The protected names that did not exist.
    Creation(Vec<&'static str>),
    /// Everything under the protected paths (relative to the root), and the inode of each.
    Fingerprint {
        roots: Vec<(PathBuf, u64)>,
        entries: BTreeMap<PathBuf, Entry>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir {
        mode: u32,
    },
    File {
        len: u64,
        modified: Option<SystemTime>,
        inode: u64,
        mode: u32,
        copy: Option<Vec<u8>>,
    },
    Link {
        target: PathBuf,
    },
}

impl Entry {
    /// Whether `now` is the same entry (copies aside).
    fn same(&self, now: &Entry) -> bool {
        match (self, now) {
            (
                Entry::File {
                    len,
                    modified,
                    inode,
                    mode,
                    ..
                },
                Entry::File {
                    len: l,
                    modified: m,
                    inode: i,
                    mode: md,
                    ..
                },
            ) => len == l && modified == m && inode == i && mode == md,
            (a, b) => a == b,
        }
    }
}

impl Guard {
    /// Watches nothing (the sandbox is off).
    pub fn none() -> Guard {
        Guard {
            root: PathBuf::new(),
            watch: Watch::Nothing,
            quarantine: None,
        }
    }

    /// Watches the protected names that do not exist yet (read-only mounts cover the rest);
    /// one a command makes is moved into `quarantine` (beside it without one).
    pub fn creation(root: &Path, quarantine: Option<PathBuf>) -> Guard {
        let absent = PROTECTED_NAMES
            .iter()
            .copied()
            .filter(|n| root.join(n).symlink_metadata().is_err())
            .collect();
        Guard {
            root: root.to_path_buf(),
            watch: Watch::Creation(absent),
            quarantine,
        }
    }

    /// Fingerprints everything under `protected` (paths inside `root`: `.git`, nested ones,
    /// `.agent`, `keyless.json`).
    pub fn fingerprint(root: &Path, protected: &[PathBuf]) -> Guard {
        let mut entries = BTreeMap::new();
        let mut roots = Vec::new();
        let mut budget = MAX_COPIED_TOTAL;
        for path in protected {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            roots.push((rel.to_path_buf(), inode(path)));
            scan(root, rel, &mut entries, Some(&mut budget));
        }
        // Then what fits of the bulky folders.
        let mut last = MAX_COPIED_LAST.min(budget);
        for (rel, entry) in entries.iter_mut() {
            if let Entry::File { len, copy, .. } = entry
                && copy.is_none()
                && *len <= last
                && COPIED_LAST.iter().any(|n| rel.starts_with(n))
                && let Ok(bytes) = fs::read(root.join(rel))
            {
                last = last.saturating_sub(bytes.len() as u64);
                *copy = Some(bytes);
            }
        }
        Guard {
            root: root.to_path_buf(),
            watch: Watch::Fingerprint { roots, entries },
            quarantine: None,
        }
    }

    /// After the command: undoes what it did to the protected paths and says what that was.
    pub fn check(self) -> Vec<String> {
        match self.watch {
            Watch::Nothing => Vec::new(),
            Watch::Creation(absent) => absent
                .into_iter()
                .filter(|n| self.root.join(n).symlink_metadata().is_ok())
                .map(|n| quarantine(&self.root, Path::new(n), self.quarantine.as_deref()))
                .collect(),
            Watch::Fingerprint { roots, entries } => {
                let mut done = move_back(&self.root, &roots);
                done.extend(restore(&self.root, &roots, entries));
                done
            }
        }
    }
}

/// Records `rel` (relative to `root`) and everything beneath it, never following a symlink.
fn scan(root: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, Entry>, mut budget: Option<&mut u64>) {
    let path = root.join(rel);
    let Ok(meta) = path.symlink_metadata() else {
        return;
    };
    let entry = entry(&path, &meta, rel, budget.as_deref_mut());
    let is_dir = matches!(entry, Entry::Dir { .. });
    out.insert(rel.to_path_buf(), entry);
    if is_dir && let Ok(children) = fs::read_dir(&path) {
        for child in children.flatten() {
            scan(
                root,
                &rel.join(child.file_name()),
                out,
                budget.as_deref_mut(),
            );
        }
    }
}

fn entry(path: &Path, meta: &fs::Metadata, rel: &Path, budget: Option<&mut u64>) -> Entry {
    use std::os::unix::fs::MetadataExt;
    if meta.file_type().is_symlink() {
        return Entry::Link {
            target: fs::read_link(path).unwrap_or_default(),
        };
    }
    if meta.is_dir() {
        return Entry::Dir { mode: meta.mode() };
    }
    let copy = match budget {
        Some(budget)
            if meta.len() <= MAX_COPIED_FILE
                && meta.len() <= *budget
                && !COPIED_LAST.iter().any(|n| rel.starts_with(n)) =>
        {
            let bytes = fs::read(path).ok();
            if let Some(b) = &bytes {
                *budget -= b.len() as u64;
            }
            bytes
        }
        _ => None,
    };
    Entry::File {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode: meta.ino(),
        mode: meta.mode(),
        copy,
    }
}

/// The inode of `path` (0 when it cannot be read).
fn inode(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    path.symlink_metadata().map(|m| m.ino()).unwrap_or(0)
}

/// A protected path renamed elsewhere in the workspace (`mv .git old`) is renamed back: found
/// by its inode, which a rename keeps.
fn move_back(root: &Path, roots: &[(PathBuf, u64)]) -> Vec<String> {
    let mut done = Vec::new();
    for (rel, ino) in roots {
        let path = root.join(rel);
        if *ino == 0 || path.symlink_metadata().is_ok() {
            continue;
        }
        if let Some(moved) = find_inode(root, *ino)
            && fs::rename(&moved, &path).is_ok()
        {
            done.push(format!(
                "moved {} to {} (moved back)",
                rel.display(),
                moved.strip_prefix(root).unwrap_or(&moved).display()
            ));
        }
    }
    done
}

/// The entry under `root` with inode `ino`, looked for as nested repositories are.
fn find_inode(root: &Path, ino: u64) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let mut seen = 0;
    let mut stack = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        for child in fs::read_dir(&dir).ok()?.flatten() {
            seen += 1;
            if seen > NESTED_ENTRIES {
                return None;
            }
            let Ok(meta) = child.path().symlink_metadata() else {
                continue;
            };
            if meta.ino() == ino {
                return Some(child.path());
            }
            if meta.is_dir() && depth + 1 < NESTED_DEPTH {
                stack.push((child.path(), depth + 1));
            }
        }
    }
    None
}

/// Puts the protected paths back as `before` recorded them; returns what was done.
fn restore(root: &Path, roots: &[(PathBuf, u64)], before: BTreeMap<PathBuf, Entry>) -> Vec<String> {
    let mut after = BTreeMap::new();
    for (rel, _) in roots {
        scan(root, rel, &mut after, None);
    }
    let mut done = Vec::new();
    // What appeared, deepest first, so a new folder's files go before it.
    for (rel, _) in after.iter().rev().filter(|(r, _)| !before.contains_key(*r)) {
        let path = root.join(rel);
        let removed = match path.symlink_metadata() {
            Ok(m) if m.is_dir() => fs::remove_dir_all(&path),
            Ok(_) => fs::remove_file(&path),
            Err(_) => Ok(()),
        };
        done.push(match removed {
            Ok(()) => format!("created {} (removed)", rel.display()),
            Err(e) => format!("created {} (could not be removed: {e})", rel.display()),
        });
    }
    // What changed or went, shallowest first, so folders exist before their files.
    for (rel, was) in &before {
        if rel.as_os_str().is_empty() {
            continue;
        }
        let now = after.get(rel);
        if now.is_some_and(|now| was.same(now)) {
            continue;
        }
        let path = root.join(rel);
        let put_back = put_back(&path, was);
        let what = if now.is_some() { "changed" } else { "removed" };
        done.push(match put_back {
            Ok(()) => format!("{what} {} (put back)", rel.display()),
            Err(e) => format!("{what} {} (could not be put back: {e})", rel.display()),
        });
    }
    done
}

fn put_back(path: &Path, was: &Entry) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = path.symlink_metadata()
        && (m.file_type().is_symlink() || m.is_dir() != matches!(was, Entry::Dir { .. }))
    {
        if m.is_dir() {
            fs::remove_dir_all(path)?;
        } else {
            fs::remove_file(path)?;
        }
    }
    match was {
        Entry::Dir { mode } => {
            if path.symlink_metadata().is_err() {
                fs::create_dir(path)?;
            }
            fs::set_permissions(path, fs::Permissions::from_mode(*mode))
        }
        Entry::Link { target } => {
            if path.symlink_metadata().is_ok() {
                fs::remove_file(path)?;
            }
            std::os::unix::fs::symlink(target, path)
        }
        Entry::File { copy: None, .. } => Err(std::io::Error::other(
            "too large to have been copied beforehand",
        )),
        Entry::File {
            copy: Some(bytes),
            mode,
            ..
        } => {
            let tmp = path.with_file_name(format!(
                ".keyless-restore-{}",
                path.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            ));
            fs::write(&tmp, bytes)?;
            fs::set_permissions(&tmp, fs::Permissions::from_mode(*mode))?;
            fs::rename(&tmp, path)
        }
    }
}

/// Moves what a command created at a protected name into `folder` (the workspace's quarantine),
/// or, without one or for the keyless folder itself, beside it under a dated name.
pub(super) fn quarantine(root: &Path, rel: &Path, folder: Option<&Path>) -> String {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let to = match folder {
        Some(folder) if !folder.starts_with(root.join(rel)) => {
            folder.join(format!("{stamp}-{}", rel.display()))
        }
        _ => root.join(format!("{}-quarantine-{stamp}", rel.display())),
    };
    let moved = to
        .parent()
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| fs::rename(root.join(rel), &to));
    match moved {
        Ok(()) => format!(
            "created {} (moved to {})",
            rel.display(),
            to.strip_prefix(root).unwrap_or(&to).display()
        ),
        Err(e) => format!("created {} (could not be moved away: {e})", rel.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(root: &Path) -> Vec<PathBuf> {
        PROTECTED_NAMES
            .iter()
            .map(|n| root.join(n))
            .filter(|p| p.exists())
            .collect()
    }

    #[test]
    fn a_renamed_repository_is_moved_back_and_a_removed_one_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".git/objects/ab")).unwrap();
        fs::write(root.join(".git/objects/ab/cd"), "object").unwrap();
        fs::write(root.join(".git/config"), "[core]\n").unwrap();
        let guard = Guard::fingerprint(root, &protected(root));
        fs::create_dir(root.join("sub")).unwrap();
        fs::rename(root.join(".git"), root.join("sub/old")).unwrap();
        let done = guard.check();
        assert!(root.join(".git/objects/ab/cd").is_file(), "{done:?}");
        assert!(!root.join("sub/old").exists(), "{done:?}");
        let guard = Guard::fingerprint(root, &protected(root));
        fs::remove_dir_all(root.join(".git")).unwrap();
        guard.check();
        assert_eq!(
            fs::read_to_string(root.join(".git/objects/ab/cd")).unwrap(),
            "object"
        );
    }

    #[test]
    fn a_fingerprint_puts_back_what_changed_and_removes_what_appeared() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        fs::write(root.join(".git/config"), "[core]\n").unwrap();
        fs::write(root.join("keyless.json"), "{}").unwrap();
        let guard = Guard::fingerprint(root, &protected(root));
        fs::write(root.join(".git/config"), "[core]\nfsmonitor = evil\n").unwrap();
        fs::write(root.join(".git/hooks/pre-commit"), "evil").unwrap();
        fs::remove_file(root.join("keyless.json")).unwrap();
        let done = guard.check();
        assert_eq!(
            fs::read_to_string(root.join(".git/config")).unwrap(),
            "[core]\n"
        );
        assert!(!root.join(".git/hooks/pre-commit").exists());
        assert_eq!(fs::read_to_string(root.join("keyless.json")).unwrap(), "{}");
        assert_eq!(done.len(), 3, "{done:?}");
    }

    #[test]
    fn an_untouched_tree_reports_nothing() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".git/objects/ab")).unwrap();
        fs::write(dir.path().join(".git/objects/ab/cd"), "x").unwrap();
        assert!(
            Guard::fingerprint(dir.path(), &protected(dir.path()))
                .check()
                .is_empty()
        );
    }

    #[test]
    fn a_created_protected_name_is_quarantined() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join(".agent")).unwrap();
        let guard = Guard::creation(root, Some(root.join(".agent/quarantine")));
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        let done = guard.check();
        assert!(!root.join(".git").exists());
        assert_eq!(done.len(), 1);
        assert!(done[0].contains("moved to .agent/quarantine/"), "{done:?}");
    }

    #[test]
    fn without_a_quarantine_folder_a_created_name_goes_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let guard = Guard::creation(root, None);
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        fs::write(root.join(".git/hooks/pre-commit"), "evil").unwrap();
        let done = guard.check();
        assert!(!root.join(".git").exists(), "{done:?}");
        let aside: Vec<_> = fs::read_dir(root)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            aside.len() == 1 && aside[0].starts_with(".git-quarantine-"),
            "{aside:?} {done:?}"
        );
        assert!(!root.join(".agent").exists(), "no keyless folder is made");
    }
}
