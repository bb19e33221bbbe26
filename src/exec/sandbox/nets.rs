//! The network namespaces the model's commands run in, made once per keyless process and kept:
//! one with nothing but its own loopback ("off"), and one whose loopback holds keyless's proxy
//! listener ("on", see `proxy.rs`). A command joins one of them before bubblewrap builds its
//! world, so it never shares the machine's network: no loopback service of the machine (the
//! browser's debugging port among them), no abstract Unix socket, no UDP or raw socket reaches
//! outside. Making a network namespace costs about 3.5 ms; kept, it costs a command nothing.
//!
//! How: a forked child (one thread, system calls only, everything prepared before the fork)
//! unshares a network namespace (and a user namespace owning it when keyless is not root, so
//! that no privilege is needed), brings its loopback up, opens the listener when asked, and
//! hands the namespaces and the listener back over a socket pair as file descriptors. The
//! namespaces live as long as keyless holds those descriptors; the child exits at once.
//!
//! What this module does not do: decide what a command may reach through the proxy
//! (`reach.rs`, `proxy.rs`), or build the rest of the command's world (`world.rs`).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::error::SandboxError;

/// Where the proxy listens inside the "on" namespace (`HTTPS_PROXY=http://127.0.0.1:3128`).
pub const PROXY_PORT: u16 = 3128;

/// A network namespace kept for commands to join.
#[derive(Debug)]
pub struct NetNs {
    /// The user namespace that owns the network namespace, when keyless is not root: a command
    /// joins it first, which gives it the right to join the network namespace.
    pub user: Option<OwnedFd>,
    pub net: OwnedFd,
}

/// Makes a network namespace with its loopback up; with `listen`, also a TCP listener on
/// `127.0.0.1:PROXY_PORT` inside it.
pub fn make(listen: bool) -> io::Result<(NetNs, Option<OwnedFd>)> {
    // SAFETY: geteuid and getegid cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let own_user = uid != 0;
    let maps = if own_user {
        Some((
            CString::new(format!("{uid} {uid} 1\n")).map_err(io::Error::other)?,
            CString::new(format!("{gid} {gid} 1\n")).map_err(io::Error::other)?,
        ))
    } else {
        None
    };
    let mut pair = [0 as RawFd; 2];
    // SAFETY: socketpair writes two descriptors into the array we own.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            pair.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just made and are owned here only.
    let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
    let plan = ChildPlan {
        own_user,
        maps,
        listen,
        channel: theirs.as_raw_fd(),
    };
    // SAFETY: the child runs `plan.run`, which makes only async-signal-safe system calls on
    // memory prepared before the fork, and then `_exit`s; it never returns into Rust code.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: in the child, see above.
        unsafe { plan.run() }
    }
    drop(theirs);
    let received = receive(ours.as_raw_fd());
    let mut status = 0;
    // SAFETY: waits for the child we forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let (step, errno, fds) = received?;
    if step != 0 {
        return Err(io::Error::new(
            io::Error::from_raw_os_error(errno).kind(),
            format!(
                "{}: {}",
                STEPS.get(usize::from(step)).copied().unwrap_or("a step"),
                io::Error::from_raw_os_error(errno)
            ),
        ));
    }
    let mut fds = fds.into_iter();
    let net = fds
        .next()
        .ok_or_else(|| io::Error::other("no network namespace came back"))?;
    let user = if own_user {
        Some(
            fds.next()
                .ok_or_else(|| io::Error::other("no user namespace came back"))?,
        )
    } else {
        None
    };
    let listener = if listen {
        Some(
            fds.next()
                .ok_or_else(|| io::Error::other("no listener came back"))?,
        )
    } else {
        None
    };
    Ok((NetNs { user, net }, listener))
}

/// What each failing step of the child is called, by the number it reports.
const STEPS: &[&str] = &[
    "",
    "a user and network namespace could not be made",
    "the user namespace's id maps could not be written",
    "the loopback could not be brought up",
    "the proxy's listener could not be opened",
    "the namespaces could not be opened",
    "the namespaces could not be handed back",
];

struct ChildPlan {
    own_user: bool,
    maps: Option<(CString, CString)>,
    listen: bool,
    channel: RawFd,
}

impl ChildPlan {
    /// # Safety
    /// Only in the forked child; never returns.
    unsafe fn run(&self) -> ! {
        // SAFETY (whole function): plain system calls on memory owned by `self` or the stack.
        unsafe {
            let code = match self.steps() {
                Ok(()) => 0,
                Err((step, errno)) => {
                    let message = [step, (errno & 0xff) as u8, ((errno >> 8) & 0xff) as u8];
                    libc::send(self.channel, message.as_ptr().cast(), message.len(), 0);
                    1
                }
            };
            libc::_exit(code)
        }
    }

    unsafe fn steps(&self) -> Result<(), (u8, i32)> {
        let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
        // SAFETY (whole function): as in `run`.
        unsafe {
            let flags = if self.own_user {
                libc::CLONE_NEWUSER | libc::CLONE_NEWNET
            } else {
                libc::CLONE_NEWNET
            };
            if libc::unshare(flags) != 0 {
                return Err((1, errno()));
            }
            if let Some((uid_map, gid_map)) = &self.maps {
                for (path, bytes) in [
                    (c"/proc/self/setgroups", b"deny".as_slice()),
                    (c"/proc/self/uid_map", uid_map.as_bytes()),
                    (c"/proc/self/gid_map", gid_map.as_bytes()),
                ] {
                    write_file(path, bytes).map_err(|e| (2, e))?;
                }
            }
            loopback_up().map_err(|e| (3, e))?;
            let listener = if self.listen {
                Some(listen().map_err(|e| (4, e))?)
            } else {
                None
            };
            let net = libc::open(
                c"/proc/self/ns/net".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            if net < 0 {
                return Err((5, errno()));
            }
            let mut fds = [net, -1, -1];
            let mut count = 1;
            if self.own_user {
                let user = libc::open(
                    c"/proc/self/ns/user".as_ptr(),
                    libc::O_RDONLY | libc::O_CLOEXEC,
                );
                if user < 0 {
                    return Err((5, errno()));
                }
                fds[count] = user;
                count += 1;
            }
            if let Some(listener) = listener {
                fds[count] = listener;
                count += 1;
            }
            send_fds(self.channel, &fds[..count]).map_err(|e| (6, e))
        }
    }
}

/// # Safety
/// Async-signal-safe: open, write, close.
unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> Result<(), i32> {
    // SAFETY: a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let errno = io::Error::last_os_error().raw_os_error().unwrap_or(0);
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(errno);
        }
    }
    Ok(())
}

/// # Safety
/// Async-signal-safe: socket, ioctl, close.
unsafe fn loopback_up() -> Result<(), i32> {
    // SAFETY: an ifreq on the stack, zeroed, with the interface's name copied in.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *slot = *byte as libc::c_char;
        }
        let mut result = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request);
        if result == 0 {
            request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            result = libc::ioctl(fd, libc::SIOCSIFFLAGS, &request);
        }
        let errno = io::Error::last_os_error().raw_os_error().unwrap_or(0);
        libc::close(fd);
        if result != 0 {
            return Err(errno);
        }
    }
    Ok(())
}

/// # Safety
/// Async-signal-safe: socket, setsockopt, bind, listen.
unsafe fn listen() -> Result<RawFd, i32> {
    // SAFETY: a sockaddr_in on the stack.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
        let one: libc::c_int = 1;
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_REUSEADDR,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
        let mut address: libc::sockaddr_in = std::mem::zeroed();
        address.sin_family = libc::AF_INET as libc::sa_family_t;
        address.sin_port = PROXY_PORT.to_be();
        address.sin_addr.s_addr = u32::from_be_bytes([127, 0, 0, 1]).to_be();
        if libc::bind(
            fd,
            (&address as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        ) != 0
            || libc::listen(fd, 128) != 0
        {
            return Err(io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
        Ok(fd)
    }
}

/// The room a control message for three descriptors takes (CMSG_SPACE of 12 bytes on every
/// Linux ABI), with some to spare.
const CONTROL: usize = 64;

/// # Safety
/// Async-signal-safe: sendmsg with buffers on the stack.
unsafe fn send_fds(channel: RawFd, fds: &[RawFd]) -> Result<(), i32> {
    // SAFETY: the message and its control buffer live on the stack for the call.
    unsafe {
        let mut payload = [0u8; 3];
        let mut iov = libc::iovec {
            iov_base: payload.as_mut_ptr().cast(),
            iov_len: payload.len(),
        };
        let mut control = [0u64; CONTROL / 8];
        let data_len = std::mem::size_of_val(fds);
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = libc::CMSG_SPACE(data_len as u32) as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        if header.is_null() {
            return Err(libc::EINVAL);
        }
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(data_len as u32) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr().cast::<u8>(), libc::CMSG_DATA(header), data_len);
        if libc::sendmsg(channel, &message, 0) < 0 {
            return Err(io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
    }
    Ok(())
}

/// Reads the child's answer: (failed step or 0, errno, descriptors).
fn receive(channel: RawFd) -> io::Result<(u8, i32, Vec<OwnedFd>)> {
    let mut payload = [0u8; 3];
    let mut iov = libc::iovec {
        iov_base: payload.as_mut_ptr().cast(),
        iov_len: payload.len(),
    };
    let mut control = [0u64; CONTROL / 8];
    // SAFETY: a zeroed msghdr pointing at buffers that live for the call.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = CONTROL as _;
    // SAFETY: recvmsg fills the buffers above.
    let got = unsafe { libc::recvmsg(channel, &mut message, libc::MSG_CMSG_CLOEXEC) };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    if got == 0 {
        return Err(io::Error::other(
            "the child that makes the network namespaces ended without an answer",
        ));
    }
    let mut fds = Vec::new();
    // SAFETY: walks the control messages the kernel wrote into `control`.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(header);
                let len = (*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                for i in 0..len / std::mem::size_of::<RawFd>() {
                    let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
    }
    let errno = i32::from(payload[1]) | (i32::from(payload[2]) << 8);
    Ok((payload[0], errno, fds))
}

/// The namespaces keyless keeps for its process: "off" made at the first use, and an "on" one
/// per allow-list (with a proxy serving its listener, reaching what that list allows) at the
/// first command that has network. A keyless process has one configuration, so one list; a
/// process that builds sandboxes of several (the tests) gets one proxy for each, so no command
/// ever goes through a proxy serving another list.
pub struct Kept {
    pub off: NetNs,
    on: std::sync::Mutex<Vec<std::sync::Arc<On>>>,
}

/// A kept "on" namespace: its proxy's list, and what the proxy refused.
pub struct On {
    pub ns: NetNs,
    pub refusals: super::proxy::Refusals,
    list: std::sync::Arc<super::reach::AllowList>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept").field("off", &self.off).finish()
    }
}

/// The kept namespaces, or why there are none.
pub fn kept() -> Result<&'static Kept, SandboxError> {
    static KEPT: std::sync::OnceLock<Result<Kept, SandboxError>> = std::sync::OnceLock::new();
    KEPT.get_or_init(|| {
        let (off, _) =
            make(false).map_err(|e| SandboxError::os("keeping a network namespace", e))?;
        Ok(Kept {
            off,
            on: std::sync::Mutex::new(Vec::new()),
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

impl Kept {
    /// The "on" namespace whose proxy reaches what `list` allows, made (and its proxy started)
    /// the first time.
    pub fn on(
        &self,
        list: &std::sync::Arc<super::reach::AllowList>,
    ) -> Result<std::sync::Arc<On>, SandboxError> {
        let mut all = self.on.lock().map_err(|_| SandboxError::Poisoned {
            what: "the kept namespaces",
        })?;
        if let Some(on) = all.iter().find(|on| on.list == *list) {
            return Ok(std::sync::Arc::clone(on));
        }
        let (ns, listener) = make(true)
            .map_err(|e| SandboxError::os("keeping a network namespace with a way out", e))?;
        let listener = listener.ok_or(SandboxError::NoListener)?;
        let refusals = super::proxy::Refusals::default();
        super::proxy::serve(
            std::net::TcpListener::from(listener),
            refusals.clone(),
            std::sync::Arc::clone(list),
        );
        let on = std::sync::Arc::new(On {
            ns,
            refusals,
            list: std::sync::Arc::clone(list),
        });
        all.push(std::sync::Arc::clone(&on));
        Ok(on)
    }
}

impl NetNs {
    /// The descriptors a command joins: (user namespace, network namespace).
    pub fn join(&self) -> (Option<RawFd>, RawFd) {
        (
            self.user.as_ref().map(AsRawFd::as_raw_fd),
            self.net.as_raw_fd(),
        )
    }
}
