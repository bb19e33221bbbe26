//! The Linux mechanism: a private mount namespace for what Landlock cannot express (read-only
//! folders inside the writable workspace, masked secret stores), then Landlock for every write,
//! the network and signals.
//!
//! Everything is prepared in keyless (allocations, path lookups, the Landlock ruleset with its
//! rules); the forked child only makes system calls, as a child of a multi-threaded process
//! must (`Plan::enter`). Mounts come first: once Landlock restricts a process it can never
//! mount again.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use super::error::SandboxError;
use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope,
};

/// Device files every program expects to write (and to use ioctl on, as terminals need).
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// The kernel's Landlock ABI version, or why there is none.
pub fn landlock_abi() -> Result<u8, SandboxError> {
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the VERSION flag only
    // returns the ABI version; it creates nothing.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if version >= 1 {
        return Ok(u8::try_from(version).unwrap_or(u8::MAX));
    }
    let error = io::Error::last_os_error();
    Err(match error.raw_os_error() {
        Some(libc::ENOSYS) => SandboxError::LandlockNotBuilt,
        Some(libc::EOPNOTSUPP) => SandboxError::LandlockNotEnabled,
        _ => SandboxError::os("Landlock is unavailable", error),
    })
}

/// Whether a child can have a private mount namespace: tried once with a harmless process.
pub fn probe_mounts() -> Result<(), SandboxError> {
    let plan = Plan {
        unshare: unshare_flags(),
        id_maps: IdMaps::for_self(),
        mounts: vec![Mount::private_root()],
        ruleset: None,
    };
    let mut command = Command::new("/bin/sh");
    command
        .args(["-c", ":"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    Arc::new(plan).install(&mut command);
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(SandboxError::ProbeExited { status }),
        Err(e) => Err(SandboxError::UsernsRefused {
            source: Arc::new(e),
        }),
    }
}

fn unshare_flags() -> libc::c_int {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        libc::CLONE_NEWNS
    } else {
        libc::CLONE_NEWNS | libc::CLONE_NEWUSER
    }
}

/// What a plan is made from.
pub struct PlanInput<'a> {
    pub abi: u8,
    pub mounts: bool,
    pub writable: &'a [PathBuf],
    pub protected: &'a [PathBuf],
    pub hidden: &'a [PathBuf],
    pub network: bool,
}

/// Everything the child does before it runs the shell, prepared.
#[derive(Debug)]
pub struct Plan {
    unshare: libc::c_int,
    id_maps: Option<IdMaps>,
    mounts: Vec<Mount>,
    ruleset: Option<OwnedFd>,
}

impl Plan {
    pub fn new(input: PlanInput<'_>) -> io::Result<Arc<Plan>> {
        let mut mounts = Vec::new();
        if input.mounts {
            mounts.push(Mount::private_root());
            for path in input.protected {
                mounts.extend(Mount::read_only(path)?);
            }
            for path in input.hidden {
                mounts.push(Mount::mask(path)?);
            }
        }
        let ruleset = if input.abi > 0 {
            Some(ruleset(&input).map_err(SandboxError::into_io)?)
        } else {
            None
        };
        Ok(Arc::new(Plan {
            unshare: if input.mounts { unshare_flags() } else { 0 },
            id_maps: if input.mounts {
                IdMaps::for_self()
            } else {
                None
            },
            mounts,
            ruleset,
        }))
    }
}

impl Plan {
    /// Runs the plan in the child of `command`.
    pub fn install(self: Arc<Self>, command: &mut Command) {
        // SAFETY: `enter` makes only async-signal-safe system calls on memory prepared before
        // the fork; it allocates nothing and takes no lock.
        unsafe {
            command.pre_exec(move || self.enter());
        }
    }
}

impl Plan {
    /// In the forked child: namespaces, mounts, then Landlock.
    fn enter(&self) -> io::Result<()> {
        // SAFETY (whole function): plain system calls on pointers to NUL-terminated strings and
        // buffers owned by `self`, which outlives the call.
        unsafe {
            if self.unshare != 0 && libc::unshare(self.unshare) != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(maps) = &self.id_maps {
                maps.write()?;
            }
            for mount in &self.mounts {
                mount.apply()?;
            }
            if let Some(fd) = &self.ruleset {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}

/// The Landlock ruleset: every write right handled and granted beneath the writable paths; TCP
/// handled (and so refused) when the network is off; signals and abstract sockets scoped.
fn ruleset(input: &PlanInput<'_>) -> Result<OwnedFd, SandboxError> {
    let abi = ABI::from(i32::from(input.abi));
    let write = AccessFs::from_write(abi);
    let file_write = write & AccessFs::from_file(abi);
    let fail = |e| SandboxError::library("the Landlock ruleset could not be made", e);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(write)
        .map_err(fail)?;
    if !input.network && input.abi >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(fail)?;
    }
    if input.abi >= 6 {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(fail)?;
    }
    let mut created = ruleset.create().map_err(fail)?;
    let devices = DEVICES.iter().map(Path::new);
    for (path, rights) in input
        .writable
        .iter()
        .map(|p| (p.as_path(), if p.is_dir() { write } else { file_write }))
        .chain(devices.map(|d| (d, file_write)))
    {
        // A path gone since it was listed has nothing to grant.
        if let Ok(fd) = PathFd::new(path) {
            created = created
                .add_rule(PathBeneath::new(fd, rights))
                .map_err(fail)?;
        }
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or(SandboxError::Nothing {
        doing: "the kernel's Landlock ruleset",
    })
}

/// One mount(2) call, prepared.
#[derive(Debug)]
struct Mount {
    source: Option<CString>,
    target: CString,
    fstype: Option<CString>,
    flags: libc::c_ulong,
    data: Option<CString>,
}

impl Mount {
    /// Nothing mounted in the child's namespace propagates back.
    fn private_root() -> Mount {
        Mount {
            source: None,
            target: c"/".to_owned(),
            fstype: None,
            flags: libc::MS_REC | libc::MS_PRIVATE,
            data: None,
        }
    }

    /// `path` bound onto itself, then made read-only (keeping the flags the kernel locks in a
    /// user namespace: nosuid, nodev, noexec, atime).
    fn read_only(path: &Path) -> io::Result<[Mount; 2]> {
        let target = cstring(path)?;
        let locked = locked_flags(&target);
        Ok([
            Mount {
                source: Some(target.clone()),
                target: target.clone(),
                fstype: None,
                flags: libc::MS_BIND | libc::MS_REC,
                data: None,
            },
            Mount {
                source: None,
                target,
                fstype: None,
                flags: libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | locked,
                data: None,
            },
        ])
    }

    /// A folder covered by an empty read-only tmpfs; a file by `/dev/null`.
    fn mask(path: &Path) -> io::Result<Mount> {
        let target = cstring(path)?;
        Ok(if path.is_dir() {
            Mount {
                source: Some(c"tmpfs".to_owned()),
                target,
                fstype: Some(c"tmpfs".to_owned()),
                flags: libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                data: Some(c"size=4k,mode=0555".to_owned()),
            }
        } else {
            Mount {
                source: Some(c"/dev/null".to_owned()),
                target,
                fstype: None,
                flags: libc::MS_BIND,
                data: None,
            }
        })
    }

    /// # Safety
    /// Call only in the child, with the strings alive.
    unsafe fn apply(&self) -> io::Result<()> {
        let ptr = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        // SAFETY: every pointer is null or a NUL-terminated string owned by `self`.
        let rc = unsafe {
            libc::mount(
                ptr(&self.source),
                self.target.as_ptr(),
                ptr(&self.fstype),
                self.flags,
                ptr(&self.data).cast(),
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// The mount flags of the file system holding `path` that a remount must keep.
fn locked_flags(path: &CString) -> libc::c_ulong {
    // SAFETY: statvfs writes into the zeroed struct we own; the path is NUL-terminated.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return 0;
    }
    let f = stat.f_flag;
    let mut flags = 0;
    for (st, ms) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if f & st != 0 {
            flags |= ms;
        }
    }
    flags
}

fn cstring(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        SandboxError::NulInPath {
            path: path.to_path_buf(),
        }
        .into_io()
    })
}

/// The user namespace's id maps: the user keyless runs as, mapped to itself, so files keep
/// their owner. Only needed when keyless is not root.
#[derive(Debug)]
struct IdMaps {
    uid_map: CString,
    gid_map: CString,
}

impl IdMaps {
    fn for_self() -> Option<IdMaps> {
        // SAFETY: these calls cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        if uid == 0 {
            return None;
        }
        Some(IdMaps {
            uid_map: CString::new(format!("{uid} {uid} 1\n")).ok()?,
            gid_map: CString::new(format!("{gid} {gid} 1\n")).ok()?,
        })
    }

    /// # Safety
    /// Call only in the child, right after `unshare(CLONE_NEWUSER)`.
    unsafe fn write(&self) -> io::Result<()> {
        // SAFETY: as the function's contract says.
        unsafe {
            write_file(c"/proc/self/setgroups", b"deny")?;
            write_file(c"/proc/self/uid_map", self.uid_map.as_bytes())?;
            write_file(c"/proc/self/gid_map", self.gid_map.as_bytes())
        }
    }
}

/// # Safety
/// Async-signal-safe: open, write, close.
unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(err);
        }
    }
    Ok(())
}
