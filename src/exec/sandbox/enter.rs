//! What the child does before it runs bubblewrap (Linux), prepared in keyless and carried out
//! with system calls only, as a child of a multi-threaded process must:
//!
//! 1. join the command's cgroups (their process and memory limits, `limits.rs`) and make the
//!    command the out-of-memory killer's first choice, so a memory hog ends before keyless or
//!    the browser does;
//! 2. join the network namespace keyless keeps (`nets.rs`), first the user namespace that owns
//!    it when keyless is not root;
//! 3. when there are build caches, a private mount namespace in which each cache is covered by a
//!    copy-on-write layer (overlayfs: the real cache below, read-only; keyless's own folder for
//!    this workspace above), so that bubblewrap binds the layer, and what a command writes to a
//!    cache never reaches the files a build outside keyless trusts;
//! 4. a process limit for the command's user namespace (not for root, whom the kernel does not
//!    limit; root's commands are limited by their cgroup);
//! 5. where keyless is root and the command runs unprivileged (`remap.rs`): each cache's lower
//!    layer idmapped before its copy-on-write layer goes over it, every folder and file
//!    bubblewrap binds staged under a folder anyone may enter (idmapped, so what root owns is
//!    the command's), and then the command's id taken, so bubblewrap and everything after it run
//!    as [`super::remap::COMMAND_ID`];
//! 6. a fresh, empty session keyring, so the login session's keys are not the command's (the
//!    seccomp filter refuses the keyring calls anyway, `seccomp.rs`);
//! 7. the seccomp programs at the file descriptors bubblewrap was told to load them from.
//!
//! Nothing here mounts what the command sees otherwise; bubblewrap builds that (`world.rs`).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

/// One copy-on-write layer over a cache, prepared.
#[derive(Debug)]
pub struct Layer {
    /// The cache it covers.
    pub cache: std::path::PathBuf,
    target: CString,
    options: CString,
}

/// Running the command unprivileged where keyless is root, prepared (`remap.rs`).
#[derive(Debug)]
pub struct Remap {
    /// The idmapping's user namespace.
    pub attr: super::remap::MountAttr,
    /// The folder bubblewrap binds from, covered by a small tmpfs in the child.
    pub stage: CString,
    /// What is staged: (the real path, its place in the stage, whether it is a file, whether
    /// it is idmapped).
    pub staged: Vec<Staged>,
    /// The id the command runs as.
    pub id: libc::uid_t,
}

/// One folder or file staged for bubblewrap.
#[derive(Debug)]
pub struct Staged {
    pub source: CString,
    pub place: CString,
    pub file: bool,
    pub idmap: bool,
}

impl Layer {
    /// A layer over `cache` whose writes go to `upper` (with overlayfs's `work` folder beside
    /// it, on the same file system). Paths holding `,`, `:` or `\` cannot be named to
    /// overlayfs and are refused.
    pub fn new(cache: &Path, upper: &Path, work: &Path, user_xattr: bool) -> io::Result<Layer> {
        for path in [cache, upper, work] {
            let bytes = path.as_os_str().as_bytes();
            if bytes.iter().any(|b| matches!(b, b',' | b':' | b'\\' | 0)) {
                return Err(super::error::SandboxError::NotForOverlay {
                    path: path.to_path_buf(),
                }
                .into_io());
            }
        }
        let mut options = format!(
            "lowerdir={},upperdir={},workdir={}",
            cache.display(),
            upper.display(),
            work.display()
        );
        if user_xattr {
            options.push_str(",userxattr");
        }
        Ok(Layer {
            cache: cache.to_path_buf(),
            target: CString::new(cache.as_os_str().as_bytes()).map_err(io::Error::other)?,
            options: CString::new(options).map_err(io::Error::other)?,
        })
    }
}

/// The id maps of a user namespace the child makes itself (when no kept one can be joined):
/// keyless's user mapped to itself.
#[derive(Debug)]
struct IdMaps {
    uid_map: CString,
    gid_map: CString,
}

/// Everything the child does before bubblewrap, prepared.
#[derive(Debug, Default)]
pub struct Enter {
    /// `cgroup.procs` of each cgroup the command joins, open for writing.
    pub cgroups: Vec<OwnedFd>,
    /// The kept namespaces to join: (user namespace when keyless is not root, network).
    pub join: Option<(Option<RawFd>, RawFd)>,
    /// Copy-on-write layers over the caches.
    pub layers: Vec<Layer>,
    /// `RLIMIT_NPROC` in the command's own user namespace (not root).
    pub nproc: Option<u64>,
    /// The seccomp programs, each readable from a pipe, and the descriptor bubblewrap reads it
    /// from (`--add-seccomp-fd`).
    pub seccomp: Vec<(OwnedFd, RawFd)>,
    /// Running unprivileged where keyless is root.
    pub remap: Option<Remap>,
    /// A mount namespace kept ready where the layers and the stage are already in place
    /// ([`Enter::make_ready`]): joined instead of mounting them again for every command.
    pub ready: Option<RawFd>,
    own_user: Option<IdMaps>,
}

impl Enter {
    /// Decides, from what is set, whether the child needs a user namespace of its own: when
    /// keyless is not root, joins none, and has layers to mount or a process limit to set.
    pub fn finish(mut self) -> io::Result<Arc<Enter>> {
        // SAFETY: geteuid and getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let joins_user = matches!(self.join, Some((Some(_), _)));
        if uid != 0 && !joins_user && (!self.layers.is_empty() || self.nproc.is_some()) {
            self.own_user = Some(IdMaps {
                uid_map: CString::new(format!("{uid} {uid} 1\n")).map_err(io::Error::other)?,
                gid_map: CString::new(format!("{gid} {gid} 1\n")).map_err(io::Error::other)?,
            });
        }
        // The kernel does not limit root's processes; the command's own id it does.
        if uid == 0 && self.remap.is_none() {
            self.nproc = None;
        }
        Ok(Arc::new(self))
    }

    /// Runs the plan in the child of `command`.
    pub fn install(self: Arc<Self>, command: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        // SAFETY: `enter` makes only async-signal-safe system calls on memory prepared before
        // the fork; it allocates nothing and takes no lock.
        unsafe {
            command.pre_exec(move || self.enter());
        }
    }

    /// In the forked child.
    fn enter(&self) -> io::Result<()> {
        // Only the error number crosses back to the parent (`Command::spawn` returns it), and
        // nothing may be allocated here: the step is not named. The probe at start names it.
        let failed = |_step: &'static str| io::Error::last_os_error();
        // SAFETY (whole function): plain system calls on NUL-terminated strings and buffers
        // owned by `self`, which outlives the call.
        unsafe {
            for procs in &self.cgroups {
                if libc::write(procs.as_raw_fd(), b"0".as_ptr().cast(), 1) != 1 {
                    return Err(failed("joining the command's cgroup"));
                }
            }
            let oom = libc::open(
                c"/proc/self/oom_score_adj".as_ptr(),
                libc::O_WRONLY | libc::O_CLOEXEC,
            );
            if oom >= 0 {
                libc::write(oom, b"1000".as_ptr().cast(), 4);
                libc::close(oom);
            }
            if let Some((user, net)) = self.join {
                if let Some(user) = user
                    && libc::setns(user, libc::CLONE_NEWUSER) != 0
                {
                    return Err(failed("joining the kept user namespace"));
                }
                if libc::setns(net, libc::CLONE_NEWNET) != 0 {
                    return Err(failed("joining the kept network namespace"));
                }
            }
            if let Some(maps) = &self.own_user {
                if libc::unshare(libc::CLONE_NEWUSER) != 0 {
                    return Err(failed("making a user namespace"));
                }
                for (path, bytes) in [
                    (c"/proc/self/setgroups", b"deny".as_slice()),
                    (c"/proc/self/uid_map", maps.uid_map.as_bytes()),
                    (c"/proc/self/gid_map", maps.gid_map.as_bytes()),
                ] {
                    if !write_file(path, bytes) {
                        return Err(failed("writing the user namespace's id maps"));
                    }
                }
            }
            match self.ready {
                Some(ready) => {
                    if libc::setns(ready, libc::CLONE_NEWNS) != 0 {
                        return Err(failed("joining the mount namespace kept ready"));
                    }
                }
                None => self.mounts()?,
            }
            if let Some(remap) = &self.remap {
                let id = remap.id;
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setresgid(id, id, id) != 0
                    || libc::setresuid(id, id, id) != 0
                {
                    return Err(failed("taking the command's unprivileged id"));
                }
            }
            // A new, empty session keyring (a kernel without keyrings has none to leave).
            libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_JOIN_SESSION_KEYRING,
                std::ptr::null::<libc::c_char>(),
            );
            // Nothing keyless holds or inherited goes on to the command: every descriptor but
            // the standard three closes on exec (the seccomp programs are handed on below).
            libc::syscall(
                libc::SYS_close_range,
                3 as libc::c_uint,
                libc::c_uint::MAX,
                CLOSE_RANGE_CLOEXEC,
            );
            for (program, at) in &self.seccomp {
                let handed = if program.as_raw_fd() == *at {
                    libc::fcntl(*at, libc::F_SETFD, 0) == 0
                } else {
                    libc::dup2(program.as_raw_fd(), *at) == *at
                };
                if !handed {
                    return Err(failed("handing the seccomp filter to bubblewrap"));
                }
            }
            if let Some(limit) = self.nproc {
                let limit = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_NPROC, &limit) != 0 {
                    return Err(failed("setting the process limit"));
                }
            }
        }
        Ok(())
    }
}

impl Enter {
    /// The mounts every command of this kind shares: a private mount namespace, each cache's
    /// copy-on-write layer (over its idmapped copy where the command runs unprivileged), and
    /// the stage. Nothing when there are no layers and no stage.
    ///
    /// # Safety
    /// In a forked child: system calls only, on memory prepared before the fork.
    unsafe fn mounts(&self) -> io::Result<()> {
        let failed = |_step: &'static str| io::Error::last_os_error();
        if self.layers.is_empty() && self.remap.is_none() {
            return Ok(());
        }
        // SAFETY (whole function): plain system calls on NUL-terminated strings owned by
        // `self`.
        unsafe {
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                return Err(failed("making a mount namespace for the cache layers"));
            }
            if libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                return Err(failed("making the mounts private"));
            }
            for layer in &self.layers {
                // The cache as the command's id owns it, below its layer.
                if let Some(remap) = &self.remap {
                    let Ok(copy) = super::remap::idmapped_copy(&layer.target, &remap.attr) else {
                        return Err(failed("idmapping a cache"));
                    };
                    let moved = move_onto(copy, &layer.target);
                    libc::close(copy);
                    if !moved {
                        return Err(failed("idmapping a cache"));
                    }
                }
                if libc::mount(
                    c"overlay".as_ptr(),
                    layer.target.as_ptr(),
                    c"overlay".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    layer.options.as_ptr().cast(),
                ) != 0
                {
                    return Err(failed("mounting a cache's copy-on-write layer"));
                }
            }
            if let Some(remap) = &self.remap {
                remap.stage()?;
            }
        }
        Ok(())
    }

    /// A mount namespace with [`Enter::mounts`] in place, kept by its descriptor alone (the
    /// process that made it is killed once the descriptor is open), for every later command of this kind to join: the layers'
    /// overlays, the idmapped copies and the stage are made once instead of once a command,
    /// and one overlay stands over each cache's layer (overlayfs wants one mount per upper
    /// folder, not one per command at the same time). Only where keyless is root (a
    /// namespace the machine's root owns, which the child of a command may join before it
    /// takes the command's id); `None` where it cannot be made, and each command mounts its
    /// own as before.
    pub fn make_ready(&self) -> Option<OwnedFd> {
        use std::os::fd::FromRawFd;
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 || (self.layers.is_empty() && self.remap.is_none()) {
            return None;
        }
        let (ready_read, ready_write) = pipe()?;
        // SAFETY: the child makes only system calls on memory prepared before the fork
        // (`mounts`), then waits to be killed (or exits) without running any destructor.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: in the child: system calls only, then `_exit`. It ends with keyless if
            // keyless ends first.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                drop_in_child(&ready_read);
                if self.mounts().is_ok() {
                    libc::write(ready_write.as_raw_fd(), b"1".as_ptr().cast(), 1);
                    loop {
                        libc::pause();
                    }
                }
                libc::_exit(1);
            }
        }
        drop(ready_write);
        if pid < 0 {
            return None;
        }
        let mut byte = 0u8;
        // SAFETY: a live one-byte buffer.
        let said = unsafe { libc::read(ready_read.as_raw_fd(), (&raw mut byte).cast(), 1) } == 1;
        let ns = said
            .then(|| {
                let path = CString::new(format!("/proc/{pid}/ns/mnt")).ok()?;
                // SAFETY: a NUL-terminated path.
                let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
                // SAFETY: a descriptor just opened, owned here alone.
                (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
            })
            .flatten();
        let mut status = 0;
        // SAFETY: our own child, ended and waited for once. The namespace lives on in `ns`.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, &mut status, 0);
        }
        ns
    }
}

/// Closes, in a forked child, the child's copy of a descriptor the parent reads (so the
/// parent sees the end of the pipe when the child exits).
///
/// # Safety
/// In a forked child: the descriptor's owner in the parent is untouched.
unsafe fn drop_in_child(fd: &OwnedFd) {
    // SAFETY: closes this process's copy only.
    unsafe { libc::close(fd.as_raw_fd()) };
}

/// A pipe whose ends close on exec: (read, write).
fn pipe() -> Option<(OwnedFd, OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut ends = [0; 2];
    // SAFETY: a two-int buffer for pipe2.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: two new descriptors nothing else owns.
    Some(unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) })
}

impl Remap {
    /// Stages every source under the stage folder (a tmpfs of the child's own): a copy of its
    /// mount tree, idmapped where asked, attached at its place.
    ///
    /// # Safety
    /// In the forked child, in a private mount namespace: system calls only.
    unsafe fn stage(&self) -> io::Result<()> {
        let failed = || io::Error::last_os_error();
        // SAFETY (whole function): NUL-terminated strings owned by `self`.
        unsafe {
            if libc::mount(
                c"tmpfs".as_ptr(),
                self.stage.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                c"mode=0755,size=1m".as_ptr().cast(),
            ) != 0
            {
                return Err(failed());
            }
            for staged in &self.staged {
                let made = if staged.file {
                    let fd = libc::open(
                        staged.place.as_ptr(),
                        libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                        0o644,
                    );
                    fd >= 0 && libc::close(fd) == 0
                } else {
                    libc::mkdir(staged.place.as_ptr(), 0o755) == 0
                };
                if !made {
                    return Err(failed());
                }
                let copy = if staged.idmap {
                    match super::remap::idmapped_copy(&staged.source, &self.attr) {
                        Ok(fd) => fd,
                        Err(()) => return Err(failed()),
                    }
                } else {
                    let fd = libc::syscall(
                        libc::SYS_open_tree,
                        libc::AT_FDCWD,
                        staged.source.as_ptr(),
                        super::remap::OPEN_TREE_CLONE
                            | libc::AT_RECURSIVE as libc::c_uint
                            | libc::O_CLOEXEC as libc::c_uint,
                    ) as RawFd;
                    if fd < 0 {
                        return Err(failed());
                    }
                    fd
                };
                let moved = move_onto(copy, &staged.place);
                libc::close(copy);
                if !moved {
                    return Err(failed());
                }
            }
        }
        Ok(())
    }
}

/// Attaches the detached mount `fd` at `target`.
///
/// # Safety
/// System calls only.
unsafe fn move_onto(fd: RawFd, target: &CString) -> bool {
    // SAFETY: a descriptor and a NUL-terminated path.
    unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            fd,
            c"".as_ptr(),
            libc::AT_FDCWD,
            target.as_ptr(),
            super::remap::MOVE_MOUNT_F_EMPTY_PATH,
        ) == 0
    }
}

/// `close_range`'s flag: mark close-on-exec instead of closing.
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 4;

/// `keyctl`'s request to join a new anonymous session keyring.
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

/// A pipe holding `bytes` (a seccomp program, far below a pipe's buffer), its write end closed:
/// bubblewrap reads it to its end once. Both ends close on exec; the child hands the read end
/// on at a descriptor of its choice (`dup2` clears close-on-exec there).
pub fn readable(bytes: &[u8]) -> io::Result<OwnedFd> {
    let (read, write) = pipe().ok_or_else(io::Error::last_os_error)?;
    let mut write = std::fs::File::from(write);
    std::io::Write::write_all(&mut write, bytes)?;
    Ok(read)
}

/// The descriptors the seccomp programs are handed on at: the highest the process may open
/// (under its soft limit), where nothing of keyless's that the child still needs can be.
pub fn seccomp_slots(count: usize) -> Vec<RawFd> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: a live rlimit buffer.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        limit.rlim_cur.min(1024) as RawFd
    } else {
        256
    };
    (1..=count as RawFd).map(|i| soft - i).collect()
}

/// # Safety
/// Async-signal-safe: open, write, close.
unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> bool {
    // SAFETY: a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        written == bytes.len() as isize
    }
}
