//! Every git repository in a workspace, wherever it is: a `.git` folder or a `.git` file at any
//! depth (ignored folders, `node_modules`, build output and vendored checkouts included), the
//! folders a `.git` file or a worktree points to (`gitdir:`, `commondir`), and bare repositories
//! (a folder holding `HEAD`, `objects` and `refs`). A command must not change any of them: a new
//! `core.fsmonitor`, hook or `core.pager` would run the next time the person uses git there,
//! outside every sandbox. keyless's own names at any depth go with them (`.agent`, and
//! `keyless.json`, which a keyless run in that folder would read).
//!
//! The walk never follows a link and never enters a repository's own folder (all of it is
//! protected at once). It is bounded by [`MAX_ENTRIES`], far above real workspaces; a workspace
//! that passes it is said to have been cut short, so the caller can say the guarantee does not
//! fully hold.
//!
//! A folder the walk cannot read (mode 000, another user's) is kept whole too: it may hold a
//! repository.
//!
//! What this module does not do: protect anything (the world binds what it finds read-only,
//! the fallback guards it), or decide what is visible to a command.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The most entries one walk looks at: a monorepo with its dependencies unpacked stays under it,
/// and the walk ends in well under a second at that size (about 2.5 µs an entry here).
pub const MAX_ENTRIES: usize = 400_000;

/// A folder changed this close to the walk that read it may change again with the same time
/// (file systems keep times in ticks of the kernel's coarse clock): it counts as changed.
const SAME_TICK: Duration = Duration::from_millis(20);

/// What a walk found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repositories {
    /// Every `.git` (folder or file) and every folder one points to, outermost first.
    pub paths: Vec<PathBuf>,
    /// Whether the walk stopped at [`MAX_ENTRIES`] before it saw everything.
    pub cut_short: bool,
    /// Every folder the walk read, with its change time just before: a repository made or
    /// moved in since (or a `.agent`, a `keyless.json`) changed the time of the folder it went
    /// into. The change time (ctime), not the modification time: a program can set a folder's
    /// modification time back (`touch -d`, `tar x`, `rsync -a`), never its change time.
    pub folders: Vec<(PathBuf, Option<SystemTime>)>,
    /// When the walk began.
    pub walked_at: Option<SystemTime>,
}

impl Repositories {
    /// Whether every folder the walk read is as it was then (no entry made, moved or removed
    /// in it since), told by the folders' times alone, without reading them again: what the
    /// walk found still holds. A folder changed within a tick of the walk counts as changed.
    pub fn unchanged(&self) -> bool {
        let Some(walked_at) = self.walked_at else {
            return false;
        };
        !self.cut_short
            && self.folders.iter().all(|(dir, then)| {
                let now = changed_at(dir);
                let settled = then.is_some_and(|t| t + SAME_TICK <= walked_at);
                now == *then && settled
            })
    }
}

/// When `dir`'s entries or its own metadata last changed: its change time where the system
/// keeps one (no program can set it), else its modification time.
fn changed_at(dir: &Path) -> Option<SystemTime> {
    let meta = fs::symlink_metadata(dir).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let secs = u64::try_from(meta.ctime()).ok()?;
        let nanos = u32::try_from(meta.ctime_nsec()).ok()?;
        Some(SystemTime::UNIX_EPOCH + Duration::new(secs, nanos))
    }
    #[cfg(not(unix))]
    meta.modified().ok()
}

/// Every repository under `root` (`root/.git` included).
pub fn find(root: &Path) -> Repositories {
    find_bounded(root, MAX_ENTRIES)
}

fn find_bounded(root: &Path, max_entries: usize) -> Repositories {
    let mut found = Repositories {
        walked_at: Some(SystemTime::now()),
        ..Repositories::default()
    };
    let mut seen = 0usize;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        // The folder's time before it is read: a change while it is read shows as a later one.
        let then = changed_at(&dir);
        found.folders.push((dir.clone(), then));
        let children = match fs::read_dir(&dir) {
            Ok(children) => children,
            // A folder the walk cannot read may hold a repository: it is protected whole (a
            // command cannot `chmod` it open and write its hooks).
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied && dir != root => {
                found.paths.push(dir);
                continue;
            }
            Err(_) => continue,
        };
        for child in children.flatten() {
            seen += 1;
            if seen > max_entries {
                found.cut_short = true;
                return finish(found);
            }
            let Ok(kind) = child.file_type() else {
                continue;
            };
            let path = child.path();
            let name = child.file_name();
            if (name == ".agent" && kind.is_dir()) || (name == "keyless.json" && !kind.is_dir()) {
                found.paths.push(path);
                continue;
            }
            if name == ".git" {
                if kind.is_file() {
                    pointed_to(&path, &dir, &mut found.paths);
                } else if kind.is_dir() {
                    common_dir(&path, &mut found.paths);
                }
                found.paths.push(path);
            } else if kind.is_dir() {
                if bare(&path) {
                    found.paths.push(path);
                } else {
                    stack.push(path);
                }
            }
        }
    }
    finish(found)
}

/// The settings and hooks of the repository folder `git_dir` that make git run a program
/// when a person uses it there (read as text: a section and a key, git's own spelling): its
/// `core.fsmonitor`, `core.hooksPath`, a pager, an editor, an ssh command, a credential helper,
/// a filter, a diff driver, an alias that runs a shell, an include; and any hook that is not
/// one of git's `.sample` files.
pub fn hazards(git_dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    if let Ok(text) = fs::read_to_string(git_dir.join("config")) {
        let mut section = String::new();
        for line in text.lines() {
            let line = line.trim();
            if let Some(header) = line.strip_prefix('[') {
                let header = header.trim_end_matches(']');
                let mut parts = header.splitn(2, [' ', '.']);
                section = parts.next().unwrap_or_default().to_ascii_lowercase();
                continue;
            }
            let (key, value) = line.split_once('=').unwrap_or((line, ""));
            let key = key.trim().to_ascii_lowercase();
            let runs = match section.as_str() {
                "core" => matches!(
                    key.as_str(),
                    "fsmonitor"
                        | "hookspath"
                        | "pager"
                        | "editor"
                        | "sshcommand"
                        | "askpass"
                        | "gitproxy"
                ),
                "credential" => key == "helper",
                "filter" => matches!(key.as_str(), "clean" | "smudge" | "process"),
                "diff" => matches!(key.as_str(), "external" | "textconv" | "command"),
                "alias" => value.trim_start().trim_start_matches('"').starts_with('!'),
                "include" | "includeif" => key == "path",
                "pager" | "sequence" | "gpg" | "remote" | "uploadpack" | "receivepack" => {
                    matches!(
                        key.as_str(),
                        "editor" | "program" | "receivepack" | "uploadpack"
                    ) || section == "pager"
                }
                _ => false,
            };
            if runs && !found.contains(&format!("{section}.{key}")) {
                found.push(format!("{section}.{key}"));
            }
        }
    }
    if let Ok(hooks) = fs::read_dir(git_dir.join("hooks")) {
        for hook in hooks.flatten() {
            let name = hook.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".sample") {
                found.push(format!("hooks/{name}"));
            }
        }
    }
    found
}

/// Whether `dir` is a repository's own folder (a bare repository, or a repository's folder
/// kept under another name): git's own test, `HEAD` beside `objects` and `refs`.
fn bare(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// The folder a `.git` file names (`gitdir: …`, relative to the file's folder), and its common
/// folder.
fn pointed_to(file: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Some(target) = read_pointer(file, "gitdir:") else {
        return;
    };
    let target = dir.join(target);
    common_dir(&target, out);
    out.push(target);
}

/// A repository folder's `commondir` (a linked worktree's main repository), relative to it.
fn common_dir(git_dir: &Path, out: &mut Vec<PathBuf>) {
    if let Some(common) = read_pointer(&git_dir.join("commondir"), "") {
        out.push(git_dir.join(common));
    }
}

/// The value after `prefix` on the first line of a small file, as git reads it.
fn read_pointer(file: &Path, prefix: &str) -> Option<PathBuf> {
    let meta = file.symlink_metadata().ok()?;
    if !meta.is_file() || meta.len() > 4096 {
        return None;
    }
    let text = fs::read_to_string(file).ok()?;
    let value = text.lines().next()?.strip_prefix(prefix)?.trim();
    (!value.is_empty()).then(|| PathBuf::from(value))
}

/// Normalises (`..` taken out lexically; nothing is resolved through links), drops what does
/// not exist, and keeps each path once, outermost first.
fn finish(mut found: Repositories) -> Repositories {
    let mut paths: Vec<PathBuf> = found
        .paths
        .iter()
        .map(|p| normalise(p))
        .filter(|p| p.symlink_metadata().is_ok())
        .collect();
    paths.sort();
    paths.dedup();
    let mut outermost: Vec<PathBuf> = Vec::new();
    for path in paths {
        if !outermost.iter().any(|kept| path.starts_with(kept)) {
            outermost.push(path);
        }
    }
    found.paths = outermost;
    found
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk found holds while no folder changed; a repository made in any folder since
    /// (however deep), or a folder changed within a tick of the walk, says it no longer holds.
    #[test]
    fn a_walk_knows_when_a_folder_changed_since() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b/c")).unwrap();
        fs::write(root.join("a/b/c/file.txt"), "x").unwrap();
        assert!(
            !find(root).unchanged(),
            "a folder changed just before the walk"
        );
        std::thread::sleep(SAME_TICK * 2);
        let found = find(root);
        assert!(found.unchanged());
        fs::write(
            root.join("a/b/c/file.txt"),
            "a file's content is no folder's change",
        )
        .unwrap();
        assert!(found.unchanged());
        fs::create_dir_all(root.join("a/b/c/sub/.git")).unwrap();
        assert!(!found.unchanged(), "a repository made three folders down");
        std::thread::sleep(SAME_TICK * 2);
        let found = find(root);
        assert!(found.unchanged());
        fs::rename(root.join("a/b/c/sub"), root.join("a/moved")).unwrap();
        assert!(!found.unchanged(), "a repository moved");
    }

    #[test]
    fn repositories_are_found_at_any_depth_in_any_folder_and_where_a_git_file_points() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let deep = root.join("a/b/c/d/e/f/g/h/i/j");
        for repo in [
            root.join(".git"),
            deep.join(".git/hooks"),
            root.join("node_modules/pkg/.git"),
            root.join("target/debug/checkout/.git"),
            root.join(".venv/src/dep/.git"),
            root.join("data/elsewhere.git"),
            root.join("main-repo/.git/worktrees/wt"),
            root.join("origin.git/objects"),
            root.join("origin.git/refs"),
            root.join("tools/.agent"),
        ] {
            fs::create_dir_all(repo).unwrap();
        }
        // A bare repository, and keyless's own names deeper down.
        fs::write(root.join("origin.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        fs::write(root.join("tools/keyless.json"), "{}").unwrap();
        // A `.git` file that points to a folder not named `.git`.
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("sub/.git"), "gitdir: ../data/elsewhere.git\n").unwrap();
        // A linked worktree: its `.git` file names the main repository's worktree folder,
        // whose `commondir` is the main repository.
        fs::create_dir_all(root.join("wt")).unwrap();
        fs::write(
            root.join("wt/.git"),
            format!(
                "gitdir: {}\n",
                root.join("main-repo/.git/worktrees/wt").display()
            ),
        )
        .unwrap();
        fs::write(
            root.join("main-repo/.git/worktrees/wt/commondir"),
            "../..\n",
        )
        .unwrap();
        // A link is never followed, and inside a repository nothing is looked at.
        std::os::unix::fs::symlink(root.join("node_modules"), root.join("linked")).unwrap();
        fs::create_dir_all(root.join(".git/modules/x/.git")).unwrap();
        let found = find(root);
        assert!(!found.cut_short);
        let want: Vec<PathBuf> = [
            ".git",
            ".venv/src/dep/.git",
            "a/b/c/d/e/f/g/h/i/j/.git",
            "data/elsewhere.git",
            "main-repo/.git",
            "node_modules/pkg/.git",
            "origin.git",
            "sub/.git",
            "target/debug/checkout/.git",
            "tools/.agent",
            "tools/keyless.json",
            "wt/.git",
        ]
        .iter()
        .map(|p| root.join(p))
        .collect();
        assert_eq!(found.paths, want);
    }

    #[test]
    fn a_repository_that_would_run_a_program_is_told_from_a_plain_one() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        fs::create_dir_all(git.join("hooks")).unwrap();
        fs::write(git.join("hooks/pre-commit.sample"), "#!/bin/sh\n").unwrap();
        fs::write(git.join("config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = x\n").unwrap();
        assert!(hazards(&git).is_empty());
        fs::write(
            git.join("config"),
            "[core]\n\tFSMonitor = touch /tmp/x\n[alias]\n\tst = !sh -c evil\n\tco = checkout\n",
        )
        .unwrap();
        fs::write(git.join("hooks/post-checkout"), "#!/bin/sh\n").unwrap();
        assert_eq!(
            hazards(&git),
            ["core.fsmonitor", "alias.st", "hooks/post-checkout"]
        );
    }

    #[test]
    fn a_walk_past_its_bound_says_it_was_cut_short() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..20 {
            fs::write(dir.path().join(format!("f{i}")), "").unwrap();
        }
        assert!(find_bounded(dir.path(), 10).cut_short);
        assert!(!find_bounded(dir.path(), 100).cut_short);
    }
}
