//! No machine privilege, whoever runs keyless: where keyless runs as root (containers, CI
//! runners, cloud machines), a command still never has the machine's uid 0. Its processes run as
//! [`COMMAND_ID`], an id of no one's, and look like root only inside their own user namespace
//! (bubblewrap maps `0` there to it). A file's owner may write it whatever the capabilities, so
//! the machine's root owning `/proc/sys` or a root-owned file would otherwise be enough.
//!
//! The command must still write the workspace and the caches, which root owns: they are shown
//! to it through **idmapped mounts** (Linux 5.12), in which what the machine's root owns appears
//! owned by [`COMMAND_ID`], and what the command writes is stored as root's, as before. The
//! mapping is held by a user namespace keyless makes once ([`idmap`]); every other id maps to
//! itself, so a file of another user's stays theirs.
//!
//! bubblewrap then runs as [`COMMAND_ID`] and cannot pass through folders only root may enter
//! (`/root`): every folder it binds is first **staged** by the child (`enter.rs`) under a folder
//! of keyless's own that anyone may enter, as a bind (idmapped, but for a cache's copy-on-write
//! layer, whose lower layer is idmapped instead), and bubblewrap binds it from there.
//!
//! Where a part cannot be had (a kernel or file system without idmapped mounts), the probe and
//! [`check`] say so, and commands run as before: uid 0 inside a user namespace with no
//! capability, with the kernel's knobs read-only and the seccomp filter (the `privilege`
//! guarantee is reported missing).
//!
//! What this module does not do: carry the steps out (`enter.rs` does, in the child), or choose
//! what is bound (`assemble.rs`, `world.rs`).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::error::SandboxError;

/// The id a command's processes run as when keyless is root: far above the ids distributions
/// give users and the subordinate ranges container tools give out by default, and below the
/// ids the kernel reserves (`-1`, `-2`).
pub const COMMAND_ID: u32 = 2_147_000_000;

/// `mount_setattr`'s attribute that idmaps a mount.
pub const MOUNT_ATTR_IDMAP: u64 = 0x0010_0000;
/// `open_tree`'s flag: a detached copy of the mount tree.
pub const OPEN_TREE_CLONE: libc::c_uint = 1;
/// `move_mount`'s flag: the source is the descriptor itself.
pub const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

/// `struct mount_attr` as `mount_setattr` reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MountAttr {
    pub attr_set: u64,
    pub attr_clr: u64,
    pub propagation: u64,
    pub userns_fd: u64,
}

/// The user namespace whose id maps idmap a mount: the machine's root shown as [`COMMAND_ID`],
/// every other id as itself. Made once per keyless process (root only).
pub fn idmap() -> Result<RawFd, SandboxError> {
    static MADE: std::sync::OnceLock<Result<OwnedFd, SandboxError>> = std::sync::OnceLock::new();
    MADE.get_or_init(make_idmap)
        .as_ref()
        .map(AsRawFd::as_raw_fd)
        .map_err(Clone::clone)
}

/// The id maps: `0` ↔ [`COMMAND_ID`], the ids between and above to themselves.
fn maps() -> String {
    let id = u64::from(COMMAND_ID);
    // Ids up to 4294967294: 4294967295 is the kernel's "no id".
    let above = 4_294_967_294 - id;
    format!("0 {id} 1\n1 1 {}\n{} {} {above}\n", id - 1, id + 1, id + 1)
}

fn make_idmap() -> Result<OwnedFd, SandboxError> {
    let maps = maps();
    let mut ready = [0 as RawFd; 2];
    let mut release = [0 as RawFd; 2];
    // SAFETY: two-int buffers for pipe2.
    unsafe {
        if libc::pipe2(ready.as_mut_ptr(), libc::O_CLOEXEC) != 0
            || libc::pipe2(release.as_mut_ptr(), libc::O_CLOEXEC) != 0
        {
            return Err(SandboxError::os(
                "making a pipe",
                io::Error::last_os_error(),
            ));
        }
    }
    // SAFETY: the descriptors were just made and are owned here only.
    let (ready_r, ready_w, release_r, release_w) = unsafe {
        (
            OwnedFd::from_raw_fd(ready[0]),
            OwnedFd::from_raw_fd(ready[1]),
            OwnedFd::from_raw_fd(release[0]),
            OwnedFd::from_raw_fd(release[1]),
        )
    };
    // SAFETY: the child makes only async-signal-safe calls (unshare, write, read, _exit) on
    // descriptors made before the fork, and never returns into Rust code.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(SandboxError::os(
            "starting a child",
            io::Error::last_os_error(),
        ));
    }
    if pid == 0 {
        // SAFETY: in the child, see above.
        unsafe {
            // The parent's ends: the release is the parent closing its copy, so this one goes.
            libc::close(release_w.as_raw_fd());
            libc::close(ready_r.as_raw_fd());
            let made = libc::unshare(libc::CLONE_NEWUSER) == 0;
            libc::write(ready_w.as_raw_fd(), [u8::from(made)].as_ptr().cast(), 1);
            let mut byte = 0u8;
            libc::read(release_r.as_raw_fd(), (&mut byte as *mut u8).cast(), 1);
            libc::_exit(0);
        }
    }
    drop(ready_w);
    drop(release_r);
    let result = (|| {
        let mut byte = 0u8;
        // SAFETY: a one-byte read into a live byte.
        let read = unsafe { libc::read(ready_r.as_raw_fd(), (&mut byte as *mut u8).cast(), 1) };
        if read != 1 || byte != 1 {
            return Err(SandboxError::NoNamespace { kind: "user" });
        }
        for (file, text) in [("uid_map", &maps), ("gid_map", &maps)] {
            std::fs::write(format!("/proc/{pid}/{file}"), text)
                .map_err(|e| SandboxError::os(format!("writing its {file}"), e))?;
        }
        std::fs::File::open(format!("/proc/{pid}/ns/user"))
            .map(OwnedFd::from)
            .map_err(|e| SandboxError::os("opening it", e))
    })();
    drop(release_w);
    let mut status = 0;
    // SAFETY: waits for the child we forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    result
}

/// Whether each of `paths` (the folders and files a command will be shown) can be idmapped
/// here, tried in a child of its own (its mount namespace and copies go with it): a file system
/// without idmapped mounts (NFS, FUSE, an overlay) is found before a command needs it.
pub fn check(paths: &[&Path]) -> Result<(), SandboxError> {
    let userns = idmap()?;
    let targets: Vec<CString> = paths
        .iter()
        .map(|p| {
            CString::new(p.as_os_str().as_bytes()).map_err(|_| SandboxError::NulInPath {
                path: p.to_path_buf(),
            })
        })
        .collect::<Result<_, _>>()?;
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_IDMAP,
        attr_clr: 0,
        propagation: 0,
        userns_fd: userns as u64,
    };
    // SAFETY: the child makes only system calls on memory prepared before the fork, and
    // `_exit`s with the index of the first path that failed (plus one), or 0.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(SandboxError::os(
            "starting a child",
            io::Error::last_os_error(),
        ));
    }
    if pid == 0 {
        // SAFETY: in the child, see above.
        unsafe {
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                libc::_exit(255);
            }
            for (i, target) in targets.iter().enumerate() {
                if !idmapped_copy(target, &attr).is_ok_and(|fd| {
                    libc::close(fd);
                    true
                }) {
                    libc::_exit((i + 1).min(254) as i32);
                }
            }
            libc::_exit(0);
        }
    }
    let mut status = 0;
    // SAFETY: waits for the child we forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
        Some(0) => Ok(()),
        Some(255) => Err(SandboxError::NoNamespace { kind: "mount" }),
        Some(i) => Err(SandboxError::NoIdmappedMounts {
            path: paths
                .get(usize::try_from(i - 1).unwrap_or(0))
                .map(|p| p.to_path_buf())
                .unwrap_or_default(),
        }),
        None => Err(SandboxError::Unfinished {
            what: "the idmapped mounts' check",
        }),
    }
}

/// A detached copy of the mount tree at `target`, idmapped by `attr`: its descriptor.
///
/// # Safety
/// Async-signal-safe: system calls only.
pub unsafe fn idmapped_copy(target: &CString, attr: &MountAttr) -> Result<RawFd, ()> {
    // SAFETY: NUL-terminated path, a live attribute struct of the size given.
    unsafe {
        let fd = libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            target.as_ptr(),
            OPEN_TREE_CLONE | libc::AT_RECURSIVE as libc::c_uint | libc::O_CLOEXEC as libc::c_uint,
        ) as RawFd;
        if fd < 0 {
            return Err(());
        }
        let set = libc::syscall(
            libc::SYS_mount_setattr,
            fd,
            c"".as_ptr(),
            (libc::AT_EMPTY_PATH | libc::AT_RECURSIVE) as libc::c_uint,
            attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        );
        if set != 0 {
            libc::close(fd);
            return Err(());
        }
        Ok(fd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maps_cover_every_id_once_and_give_root_to_no_one() {
        let text = maps();
        let mut inside_total = 0u64;
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for line in text.lines() {
            let n: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
            inside_total += n[2];
            ranges.push((n[1], n[1] + n[2]));
            if n[0] == 0 {
                assert_eq!(n[1], u64::from(COMMAND_ID));
            }
        }
        // Every id but the kernel's "no id" (4294967295) and the command's own is mapped,
        // once; the machine's 0 is not among the ids shown.
        assert_eq!(inside_total, 4_294_967_294);
        assert!(!ranges.iter().any(|(start, _)| *start == 0));
        ranges.sort();
        for pair in ranges.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "{text}");
        }
    }
}
