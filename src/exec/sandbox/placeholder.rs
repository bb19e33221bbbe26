//! Protected names that do not exist yet (`.git` in a folder that is no repository, a missing
//! `keyless.json`) cannot be mounted over, so a command could create them, and the next git or
//! keyless run would trust what it planted (hooks, fsmonitor, a configuration that turns the
//! sandbox off). Before such a command keyless makes an empty placeholder there (a folder, or
//! an empty file for `keyless.json`), which the world binds read-only over itself; after the
//! command it takes the placeholder away if it is still its own, empty one.
//!
//! Placeholders are counted per path in this process (commands in parallel share one), and
//! recorded in keyless's own state folder, outside the workspace, so that those a killed keyless
//! left behind are taken away the next time. An empty `.git` folder is no repository to git, and
//! an empty `keyless.json` reads as none, so a placeholder seen meanwhile changes nothing.
//!
//! Architecture note: besides `workspace` and `guard.rs`, the one place that writes in the
//! workspace, and only these empty entries under the protected names.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// How many live commands hold each placeholder, and its inode.
static HELD: Mutex<Option<HashMap<PathBuf, (usize, u64)>>> = Mutex::new(None);

/// The placeholders one command holds.
#[derive(Debug, Default)]
pub struct Placeholders {
    paths: Vec<PathBuf>,
    record: Option<PathBuf>,
}

impl Placeholders {
    pub fn none() -> Placeholders {
        Placeholders::default()
    }

    /// Makes a placeholder for each of `names` that `root` lacks, or holds the one a command
    /// running now made; `record` is the file that remembers them.
    pub fn make(root: &Path, names: &[&str], record: &Path) -> io::Result<Placeholders> {
        let mut held = HELD.lock().map_err(|_| {
            super::error::SandboxError::Poisoned {
                what: "the placeholders",
            }
            .into_io()
        })?;
        let held = held.get_or_insert_with(HashMap::new);
        if held.is_empty() {
            clean(record, held);
        }
        let mut made = Placeholders {
            paths: Vec::new(),
            record: Some(record.to_path_buf()),
        };
        for name in names {
            let path = root.join(name);
            if let Some((count, inode)) = held.get_mut(&path) {
                // Held by a world still standing, but taken away meanwhile (a `git clean`):
                // made again, for this command's world to bind.
                if path.symlink_metadata().is_err() {
                    make_one(&path, name)?;
                    *inode = fs::symlink_metadata(&path)?.ino();
                }
                *count += 1;
                made.paths.push(path);
                continue;
            }
            if path.symlink_metadata().is_ok() {
                continue;
            }
            make_one(&path, name)?;
            let inode = fs::symlink_metadata(&path)?.ino();
            held.insert(path.clone(), (1, inode));
            made.paths.push(path);
        }
        write_record(record, root, held);
        Ok(made)
    }

    /// The placeholders, to be bound read-only.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Takes away each placeholder no other command holds, if it is still the empty one made.
    pub fn remove(mut self) {
        self.release();
    }

    fn release(&mut self) {
        let paths = std::mem::take(&mut self.paths);
        let Some(root) = paths
            .first()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf)
        else {
            return;
        };
        let Ok(mut held) = HELD.lock() else { return };
        let Some(held) = held.as_mut() else { return };
        for path in paths {
            let Some((count, inode)) = held.get_mut(&path) else {
                continue;
            };
            *count -= 1;
            if *count == 0 {
                let inode = *inode;
                held.remove(&path);
                take_away(&path, inode);
            }
        }
        if let Some(record) = &self.record {
            write_record(record, &root, held);
        }
    }
}

impl Drop for Placeholders {
    /// A command that never started gives its placeholders back too.
    fn drop(&mut self) {
        self.release();
    }
}

/// Removes `path` if it is the empty placeholder with `inode`.
fn take_away(path: &Path, inode: u64) {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    if meta.ino() != inode {
        return;
    }
    if meta.is_dir() {
        let _ = fs::remove_dir(path); // fails, as it should, when something is inside
    } else if meta.is_file() && meta.len() == 0 {
        let _ = fs::remove_file(path);
    }
}

/// Makes the empty placeholder for `name` at `path`: an empty file for `keyless.json`, an empty
/// folder for the others.
fn make_one(path: &Path, name: &str) -> io::Result<()> {
    if name == "keyless.json" {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map(drop)
    } else {
        fs::create_dir(path)
    }
}

/// Writes the placeholders this process holds in the workspace at `root` (a process may hold
/// others', in other workspaces: theirs are in their own records).
fn write_record(record: &Path, root: &Path, held: &HashMap<PathBuf, (usize, u64)>) {
    let pid = std::process::id();
    let text: String = held
        .iter()
        .filter(|(path, _)| path.parent() == Some(root))
        .map(|(path, (_, inode))| format!("{pid}\t{inode}\t{}\n", path.display()))
        .collect();
    if text.is_empty() {
        let _ = fs::remove_file(record);
        return;
    }
    if let Some(parent) = record.parent() {
        let _ = fs::create_dir_all(parent);
    }
    let _ = fs::write(record, text);
}

/// Takes away what a keyless that was killed left recorded; what a live keyless holds stays.
pub fn clean_recorded(record: &Path) {
    let held = HELD.lock();
    let none = HashMap::new();
    let held = match &held {
        Ok(held) => held.as_ref().unwrap_or(&none),
        Err(_) => return,
    };
    clean(record, held);
}

/// [`clean_recorded`], with what this process holds now.
fn clean(record: &Path, held: &HashMap<PathBuf, (usize, u64)>) {
    let Ok(text) = fs::read_to_string(record) else {
        return;
    };
    let mut kept = String::new();
    for line in text.lines() {
        let mut fields = line.splitn(3, '\t');
        let (Some(pid), Some(inode), Some(path)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let (Ok(pid), Ok(inode)) = (pid.parse::<i32>(), inode.parse::<u64>()) else {
            continue;
        };
        let ours = u32::try_from(pid).is_ok_and(|p| p == std::process::id());
        // This process's own entry is stale unless it holds the placeholder now (another
        // sandbox of the same workspace in this process, a world built ahead).
        let held_now = ours && held.contains_key(Path::new(path));
        if held_now || (!ours && crate::exec::process_alive(pid)) {
            kept.push_str(line);
            kept.push('\n');
            continue;
        }
        take_away(Path::new(path), inode);
    }
    let _ = if kept.is_empty() {
        fs::remove_file(record)
    } else {
        fs::write(record, kept)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_shared_taken_away_when_empty_and_cleaned_after_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir_all(root.join(".agent")).unwrap();
        let record = dir.path().join("state/placeholders");
        let names = [".git", ".agent", "keyless.json"];
        let first = Placeholders::make(&root, &names, &record).unwrap();
        assert_eq!(
            first.paths(),
            [root.join(".git"), root.join("keyless.json")]
        );
        assert!(root.join(".git").is_dir() && root.join("keyless.json").is_file());
        let second = Placeholders::make(&root, &names, &record).unwrap();
        first.remove();
        assert!(root.join(".git").is_dir(), "still held by the second");
        second.remove();
        assert!(!root.join(".git").exists() && !root.join("keyless.json").exists());
        assert!(root.join(".agent").is_dir(), "a real one stays");
        assert!(!record.exists());

        // A killed keyless's placeholder is taken away next time; a real file is not.
        let left = Placeholders::make(&root, &names, &record).unwrap();
        std::mem::forget(left);
        HELD.lock().unwrap().as_mut().unwrap().clear();
        fs::write(root.join("keyless.json"), "{}").unwrap();
        let next = Placeholders::make(&root, &[], &record).unwrap();
        drop(next);
        assert!(!root.join(".git").exists());
        assert_eq!(fs::read_to_string(root.join("keyless.json")).unwrap(), "{}");
    }
}
