//! Claims on shared places (a browser profile, a workspace's `.agent/`): a file naming the
//! process that holds it (its id and, on Linux, when it started), removed when the claim ends. A
//! claim left by a process that died (a crash, SIGKILL) is taken over; one held by a live process
//! is refused. A process id is reused once its process is gone, so a live process counts only if
//! it started when the claim says (or, for a file that gives no start, if it is a keyless).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The claims this process holds now: a second claim on one of them (two calls of one MCP
/// server in one workspace) is refused as another process's would be, for the file alone
/// cannot tell two holders in one process apart.
static HELD_HERE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

/// The profile shares this process has joined, each with how many of its drivers use it and
/// the one claim file that stands for them all.
static SHARES_HERE: Mutex<BTreeMap<PathBuf, (usize, Claim)>> = Mutex::new(BTreeMap::new());

/// A held claim; dropping it gives the place up.
#[derive(Debug)]
pub struct Claim {
    path: PathBuf,
}

impl Claim {
    /// Claims `path` for this process. `Err(pid)` names the live process that holds it.
    pub fn take(path: &Path) -> Result<Claim, i32> {
        let me = std::process::id() as i32;
        let held_here = HELD_HERE
            .lock()
            .map(|mut held| !held.insert(path.to_path_buf()))
            .unwrap_or(false);
        if held_here {
            return Err(me);
        }
        // From here on, dropping it gives the place up, in this process too.
        let claim = Claim {
            path: path.to_path_buf(),
        };
        // The file appears whole or not at all (a link to a written temporary file), so two
        // keyless starting at once never both see the place free.
        let temporary = path.with_extension(format!("{me}.tmp"));
        let stamp = match start_time(me) {
            Some(start) => format!("{me} {start}\n"),
            None => format!("{me}\n"),
        };
        if std::fs::write(&temporary, stamp).is_err() {
            // A folder we cannot write to is reported by whatever writes there next.
            return Ok(claim);
        }
        let mut result = Ok(());
        for _ in 0..2 {
            result = match std::fs::hard_link(&temporary, path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match holder(path) {
                    Some(pid) if pid != me => Err(pid),
                    // Ours already, or left by a process that died: take it over.
                    Some(_) => Ok(()),
                    None => {
                        let _ = std::fs::remove_file(path);
                        continue;
                    }
                },
                Err(_) => Ok(()),
            };
            break;
        }
        let _ = std::fs::remove_file(&temporary);
        result.map(|()| claim)
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if holder(&self.path) == Some(std::process::id() as i32) {
            let _ = std::fs::remove_file(&self.path);
        }
        if let Ok(mut held) = HELD_HERE.lock() {
            held.remove(&self.path);
        }
    }
}

/// A share of a place several keyless use at once (a browser profile, each in its own tab): one
/// claim file per process in a folder, which stands for every user of the place in that process
/// (the MCP server's calls at once). Those of processes that died do not count.
#[derive(Debug)]
pub struct Share {
    folder: PathBuf,
}

impl Share {
    /// Joins the share kept in `folder` (created if missing).
    pub fn join(folder: &Path) -> Share {
        let _ = std::fs::create_dir_all(folder);
        if let Ok(mut shares) = SHARES_HERE.lock() {
            match shares.get_mut(folder) {
                Some((users, _)) => *users += 1,
                None => {
                    let me = std::process::id();
                    let path = folder.join(format!("{me}.pid"));
                    // A file of this process's own id: no other live process can hold it. (A
                    // spare claim made eagerly would remove the file when dropped: made only if
                    // needed.)
                    let mine = Claim::take(&path).unwrap_or_else(|_| Claim { path: path.clone() });
                    shares.insert(folder.to_path_buf(), (1, mine));
                }
            }
        }
        Share {
            folder: folder.to_path_buf(),
        }
    }

    /// The other live processes in the share.
    pub fn others(&self) -> Vec<i32> {
        others_in(&self.folder)
    }

    /// Whether anyone else uses the place now: another process, or another user in this one.
    pub fn shared(&self) -> bool {
        let here = SHARES_HERE
            .lock()
            .ok()
            .and_then(|shares| shares.get(&self.folder).map(|(users, _)| *users))
            .unwrap_or(1);
        here > 1 || !self.others().is_empty()
    }

    /// The folder the share is kept in.
    pub fn folder(&self) -> PathBuf {
        self.folder.clone()
    }
}

impl Drop for Share {
    /// The last user in this process gives the process's claim file up.
    fn drop(&mut self) {
        let Ok(mut shares) = SHARES_HERE.lock() else {
            return;
        };
        let last = match shares.get_mut(&self.folder) {
            Some((users, _)) => {
                *users -= 1;
                *users == 0
            }
            None => false,
        };
        if last {
            // Dropped outside the lock's map: the claim's own drop takes HELD_HERE's lock.
            let left = shares.remove(&self.folder);
            drop(shares);
            drop(left);
        }
    }
}

/// The live processes other than this one in the share kept in `folder`; the files of dead
/// ones are removed.
pub fn others_in(folder: &Path) -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut others = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "pid") {
            continue;
        }
        match holder(&path) {
            Some(pid) if pid != me => others.push(pid),
            Some(_) => {}
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    others.sort_unstable();
    others
}

/// An exclusive lock on a file, held while this lives (`flock`; the system releases it when the
/// process dies). Keyless processes take turns with it: one launches a browser on a profile
/// while the others wait, then attach to it.
#[derive(Debug)]
pub struct Lock {
    _file: Option<std::fs::File>,
}

impl Lock {
    /// Waits for the lock on `path` (created if missing). Where locking is not possible the
    /// lock is empty: the profile's own lock still refuses a second browser.
    pub fn wait(path: &Path) -> Lock {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .ok();
        #[cfg(unix)]
        if let Some(file) = &file {
            use std::os::fd::AsRawFd;
            // SAFETY: flock on an open descriptor has no memory preconditions.
            unsafe {
                libc::flock(file.as_raw_fd(), libc::LOCK_EX);
            }
        }
        Lock { _file: file }
    }
}

/// The live process named in the claim file, if any: alive, and the same process that wrote
/// the claim (not another that was given its id since).
pub fn holder(path: &Path) -> Option<i32> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut words = text.split_whitespace();
    let pid: i32 = words.next()?.parse().ok()?;
    if !crate::exec::process_alive(pid) {
        return None;
    }
    let same = match (
        words.next().and_then(|w| w.parse::<u64>().ok()),
        start_time(pid),
    ) {
        (Some(claimed), Some(now)) => claimed == now,
        // A claim without a start (written by an older keyless): only a keyless holds it.
        (None, Some(_)) => is_keyless(pid),
        // Nowhere to look (not Linux): a live process is taken at its word.
        (_, None) => true,
    };
    same.then_some(pid)
}

/// When process `pid` started, in clock ticks since boot (Linux: field 22 of /proc/PID/stat).
fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields count from its last ')'.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether process `pid` runs a keyless binary (or a keyless test binary).
fn is_keyless(pid: i32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|exe| exe.file_name().map(|n| n.to_string_lossy().into_owned()))
        .is_some_and(|name| name.starts_with("keyless"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_holder_is_refused_a_dead_one_taken_over_and_the_claim_ends_with_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claim.pid");
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        std::fs::write(&path, format!("{pid} {}\n", start_time(pid).unwrap())).unwrap();
        assert_eq!(Claim::take(&path).unwrap_err(), pid);
        // The same id with another start is another process: the claim is stale.
        std::fs::write(&path, format!("{pid} {}\n", start_time(pid).unwrap() + 1)).unwrap();
        assert_eq!(holder(&path), None);
        // An old claim without a start names a live process that is no keyless: stale too.
        std::fs::write(&path, format!("{pid}\n")).unwrap();
        assert_eq!(holder(&path), None);
        std::fs::write(&path, format!("{pid} {}\n", start_time(pid).unwrap())).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        let claim = Claim::take(&path).unwrap();
        assert_eq!(holder(&path), Some(std::process::id() as i32));
        drop(claim);
        assert!(!path.exists());
    }
}
#[cfg(test)]
mod share_tests {
    use super::*;

    #[test]
    fn a_share_holds_a_file_while_it_lives() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("users");
        let share = Share::join(&folder);
        let files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        assert!(share.others().is_empty());
        drop(share);
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    }

    /// Two users in one process (the MCP server's calls at once, each with its driver): the
    /// browser is shared while both live, and the process's file stays until the last leaves.
    #[test]
    fn two_users_in_one_process_share_and_the_last_gives_the_file_up() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("users");
        let first = Share::join(&folder);
        assert!(!first.shared());
        let second = Share::join(&folder);
        assert!(first.shared() && second.shared());
        drop(first);
        assert!(!second.shared());
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1);
        drop(second);
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    }

    /// A place this process holds is refused to a second claim in it (two calls of one server
    /// in one workspace), as another process's claim is, and free again once given up.
    #[test]
    fn a_claim_held_in_this_process_is_refused_until_given_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claim.pid");
        let held = Claim::take(&path).unwrap();
        assert_eq!(Claim::take(&path).unwrap_err(), std::process::id() as i32);
        assert!(path.exists(), "the refused claim removed the holder's file");
        drop(held);
        assert!(!path.exists());
        assert!(Claim::take(&path).is_ok());
    }
}
