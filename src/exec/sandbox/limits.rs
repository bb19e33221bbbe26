//! A cgroup of its own for each model command, where the machine lets keyless make one (as
//! root, or in a delegated subtree): a process limit (a fork bomb stops at it) and a memory
//! limit (a memory hog is ended by the kernel before it starves keyless, the browser or the
//! machine). Both cgroup versions are handled: v1's separate `pids` and `memory` hierarchies,
//! and v2's one tree when its controllers are enabled where keyless runs.
//!
//! Where no cgroup can be made, the process limit falls back to `RLIMIT_NPROC` in the command's
//! own user namespace (`enter.rs`; the kernel does not apply it to root), and the memory limit
//! to making the command the out-of-memory killer's first choice; `Platform` says which holds.
//!
//! What this module does not do: put the command in its cgroups (the child does that before it
//! runs bubblewrap, `enter.rs`).

use std::fs;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::SandboxError;

/// How long a command's cgroup may take to empty after the command ended.
const EMPTY_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The limits a command's cgroups get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub processes: u64,
    pub memory_bytes: u64,
}

/// Where keyless can make cgroups, found once per process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hierarchy {
    /// cgroup v1: the folders keyless runs in, in the `pids` and the `memory` hierarchy.
    V1 {
        pids: Option<PathBuf>,
        memory: Option<PathBuf>,
    },
    /// cgroup v2: the folder keyless runs in, whose children get both controllers.
    V2(PathBuf),
}

impl Hierarchy {
    /// Where this process can make limited cgroups, or why it cannot.
    pub fn find() -> Result<Hierarchy, SandboxError> {
        let mounts = fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| SandboxError::os("/proc/self/mountinfo", e))?;
        let own = fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| SandboxError::os("/proc/self/cgroup", e))?;
        let mut v1_pids = None;
        let mut v1_memory = None;
        let mut v2 = None;
        for line in mounts.lines() {
            // id parent major:minor root mount-point options … - fstype source super-options
            let Some((left, right)) = line.split_once(" - ") else {
                continue;
            };
            let point = left.split(' ').nth(4).unwrap_or_default();
            let mut right = right.split(' ');
            let fstype = right.next().unwrap_or_default();
            let options = right.nth(1).unwrap_or_default();
            match fstype {
                "cgroup" => {
                    if options.split(',').any(|o| o == "pids") {
                        v1_pids = Some(PathBuf::from(point));
                    }
                    if options.split(',').any(|o| o == "memory") {
                        v1_memory = Some(PathBuf::from(point));
                    }
                }
                "cgroup2" => v2 = Some(PathBuf::from(point)),
                _ => {}
            }
        }
        let own_path = |controller: &str| {
            own.lines().find_map(|l| {
                let mut parts = l.splitn(3, ':');
                let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
                let matches = if controller.is_empty() {
                    controllers.is_empty()
                } else {
                    controllers.split(',').any(|c| c == controller)
                };
                matches.then(|| path.trim_start_matches('/').to_string())
            })
        };
        if v1_pids.is_some() || v1_memory.is_some() {
            let join = |mount: Option<PathBuf>, controller: &str| {
                let dir = mount?.join(own_path(controller)?);
                writable(&dir).then_some(dir)
            };
            let pids = join(v1_pids, "pids");
            let memory = join(v1_memory, "memory");
            if pids.is_some() || memory.is_some() {
                return Ok(Hierarchy::V1 { pids, memory });
            }
        }
        if let Some(mount) = v2 {
            let dir = mount.join(own_path("").unwrap_or_default());
            let enabled =
                fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
            let has = |c: &str| enabled.split_whitespace().any(|e| e == c);
            if writable(&dir) && has("pids") && has("memory") {
                return Ok(Hierarchy::V2(dir));
            }
            return Err(SandboxError::CgroupNotWritable { dir });
        }
        Err(SandboxError::NoCgroupHierarchy)
    }

    /// Makes the cgroups of one command, with `limits`.
    pub fn make(&self, limits: Limits) -> io::Result<Group> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "keyless-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut group = Group {
            dirs: Vec::new(),
            procs: Vec::new(),
            v2: matches!(self, Hierarchy::V2(_)),
        };
        let mut add = |parent: &Path, settings: &[(&str, u64)]| -> io::Result<()> {
            let dir = parent.join(&name);
            fs::create_dir(&dir)?;
            group.dirs.push(dir.clone());
            for (file, value) in settings {
                fs::write(dir.join(file), value.to_string())?;
            }
            let procs = fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))?;
            group.procs.push(OwnedFd::from(procs));
            Ok(())
        };
        match self {
            Hierarchy::V1 { pids, memory } => {
                if let Some(pids) = pids {
                    add(pids, &[("pids.max", limits.processes)])?;
                }
                if let Some(memory) = memory {
                    add(memory, &[("memory.limit_in_bytes", limits.memory_bytes)])?;
                }
            }
            Hierarchy::V2(dir) => add(
                dir,
                &[
                    ("pids.max", limits.processes),
                    ("memory.max", limits.memory_bytes),
                ],
            )?,
        }
        Ok(group)
    }

    /// Removes the cgroups a keyless that is gone left behind (it was killed before it could).
    pub fn clean_stale(&self) {
        let parents: Vec<&PathBuf> = match self {
            Hierarchy::V1 { pids, memory } => pids.iter().chain(memory.iter()).collect(),
            Hierarchy::V2(dir) => vec![dir],
        };
        for parent in parents {
            let Ok(entries) = fs::read_dir(parent) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(pid) = name
                    .to_str()
                    .and_then(|n| n.strip_prefix("keyless-"))
                    .and_then(|n| n.split('-').next())
                    .and_then(|p| p.parse::<i32>().ok())
                else {
                    continue;
                };
                if !crate::exec::process_alive(pid) {
                    let _ = fs::remove_dir(entry.path());
                }
            }
        }
    }
}

/// Whether keyless may make folders in `dir`.
fn writable(dir: &Path) -> bool {
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: access only reads the NUL-terminated path.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

/// One command's cgroups.
#[derive(Debug)]
pub struct Group {
    dirs: Vec<PathBuf>,
    /// Each cgroup's `cgroup.procs`, open for the child to join.
    pub procs: Vec<OwnedFd>,
    v2: bool,
}

/// What a command's cgroups saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// The kernel ended a process of the command for its memory limit.
    pub out_of_memory: bool,
    /// The command tried to start more processes than its limit.
    pub process_limit: bool,
}

impl Group {
    /// After the command: what its cgroups saw, and the cgroups removed.
    pub fn finish(self) -> Seen {
        let mut seen = Seen::default();
        for dir in &self.dirs {
            let count = |file: &str, key: &str| {
                fs::read_to_string(dir.join(file))
                    .unwrap_or_default()
                    .lines()
                    .find_map(|l| l.strip_prefix(key)?.trim().parse::<u64>().ok())
                    .unwrap_or(0)
            };
            let memory_events = if self.v2 {
                "memory.events"
            } else {
                "memory.oom_control"
            };
            seen.out_of_memory |= count(memory_events, "oom_kill ") > 0;
            seen.process_limit |= count("pids.events", "max ") > 0;
        }
        seen
    }
}

impl Drop for Group {
    /// The cgroups go with the command, also when it never started.
    fn drop(&mut self) {
        self.procs.clear();
        for dir in &self.dirs {
            // Once bubblewrap returned, the kernel is killing what is left of the command; what
            // a cgroup still holds is killed here too, and the cgroup goes once it is empty.
            let until = std::time::Instant::now() + EMPTY_WAIT;
            while dir.exists() && std::time::Instant::now() < until {
                let members = fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
                let pids: Vec<i32> = members
                    .lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect();
                if pids.is_empty() && fs::remove_dir(dir).is_ok() {
                    break;
                }
                for pid in pids {
                    // SAFETY: kill only sends a signal to a process of the command's cgroup.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }
}
