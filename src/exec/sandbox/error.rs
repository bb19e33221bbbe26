//! Why a part of the sandbox is missing or failed: one enum for the room, each variant with what
//! was tried and the cause beneath it (the OS's error, the Landlock or seccomp library's, what
//! bubblewrap printed), so a caller decides by variant and a person reads the whole chain.
//!
//! What this module does not do: decide what a missing part means for a command's guarantees
//! (`containment.rs`) or turn it into a catalog code (`mod.rs`).

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// A library's error, shared: the probe's findings are kept once per process and handed out
/// as clones.
pub type LibraryError = Arc<dyn std::error::Error + Send + Sync>;

/// Why a part of the sandbox is not there, or could not be made.
#[derive(Clone, Debug)]
pub enum SandboxError {
    /// The part exists only on Linux (Landlock, mount namespaces, bubblewrap).
    LinuxOnly { part: &'static str },
    /// A test asked keyless to pretend the part is missing (`KEYLESS_SANDBOX_SIMULATE`).
    Simulated,
    /// Left out on purpose while the probe tries another part alone.
    LeftOut,
    /// No bubblewrap program on this machine.
    NoBubblewrap,
    /// A bubblewrap older than the world needs.
    OldBubblewrap {
        version: String,
        oldest: (u32, u32),
        path: PathBuf,
    },
    /// The part is for root only (commands remapped to an unprivileged id).
    NotRoot,
    /// The kernel has no Landlock.
    LandlockNotBuilt,
    /// The kernel has Landlock but it is not among the enabled security modules.
    LandlockNotEnabled,
    /// A child with a user namespace of its own was refused.
    UsernsRefused { source: Arc<io::Error> },
    /// A probe's process ran and failed.
    ProbeExited { status: std::process::ExitStatus },
    /// No cgroup hierarchy with the pids or memory controller is mounted.
    NoCgroupHierarchy,
    /// A cgroup hierarchy keyless may not make limited groups in.
    CgroupNotWritable { dir: PathBuf },
    /// The OS refused a call or a file: what keyless was doing, and its error.
    Os {
        doing: String,
        source: Arc<io::Error>,
    },
    /// A path keyless would hand to the kernel holds a NUL byte.
    NulInPath { path: PathBuf },
    /// A library could not build what keyless asked of it (a Landlock ruleset, a seccomp
    /// filter): what, and the library's error.
    Library {
        doing: &'static str,
        source: LibraryError,
    },
    /// A library built nothing and said nothing.
    Nothing { doing: &'static str },
    /// No folder outside what a command is shown to stage its world in.
    NoStage,
    /// A world bubblewrap was asked for failed: what it printed, and how it ended.
    World {
        said: String,
        status: std::process::ExitStatus,
    },
    /// A world started but its command's effect was wrong (what was found).
    Unfaithful { found: &'static str },
    /// A part, tried alone in a world, failed there.
    Part {
        part: &'static str,
        source: Box<SandboxError>,
    },
    /// A lock held by a thread that panicked.
    Poisoned { what: &'static str },
    /// The kept network namespace's helper gave no listener back.
    NoListener,
    /// A namespace of this kind could not be made in a child.
    NoNamespace { kind: &'static str },
    /// A path's file system takes no idmapped mount (NFS, FUSE, an overlay).
    NoIdmappedMounts { path: PathBuf },
    /// A path overlayfs cannot be given (its options are split at `,` `:` `\\`).
    NotForOverlay { path: PathBuf },
    /// A child keyless waited for ended without saying how.
    Unfinished { what: &'static str },
}

impl SandboxError {
    /// What the OS refused while keyless was `doing` something.
    pub fn os(doing: impl Into<String>, source: io::Error) -> SandboxError {
        SandboxError::Os {
            doing: doing.into(),
            source: Arc::new(source),
        }
    }

    /// A library's refusal while `doing` something.
    pub fn library(
        doing: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> SandboxError {
        SandboxError::Library {
            doing,
            source: Arc::new(source),
        }
    }

    /// The same failure, said to be `part`'s when tried alone.
    pub fn in_part(self, part: &'static str) -> SandboxError {
        SandboxError::Part {
            part,
            source: Box::new(self),
        }
    }

    /// As an `io::Error`, for the paths that build a command (their callers speak `io`); the
    /// error stays the source.
    pub fn into_io(self) -> io::Error {
        io::Error::other(self)
    }
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxError::LinuxOnly { part } => write!(f, "{part} is Linux only"),
            SandboxError::Simulated => f.write_str("simulated (KEYLESS_SANDBOX_SIMULATE)"),
            SandboxError::LeftOut => f.write_str("left out while another part is probed"),
            SandboxError::NoBubblewrap => f.write_str(
                "bubblewrap is not installed (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)",
            ),
            SandboxError::OldBubblewrap {
                version,
                oldest,
                path,
            } => write!(
                f,
                "bubblewrap {version} is older than {}.{} ({})",
                oldest.0,
                oldest.1,
                path.display()
            ),
            SandboxError::NotRoot => {
                f.write_str("keyless is not root: commands run as its own user")
            }
            SandboxError::LandlockNotBuilt => f.write_str(
                "the kernel is built without Landlock (Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK)",
            ),
            SandboxError::LandlockNotEnabled => f.write_str(
                "Landlock is built in but not enabled (add landlock to the lsm= boot parameter)",
            ),
            SandboxError::UsernsRefused { source } => write!(
                f,
                "an unprivileged user namespace was refused ({source}); on Ubuntu 24.04 and later AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns)"
            ),
            SandboxError::ProbeExited { status } => write!(f, "the probe exited with {status}"),
            SandboxError::NoCgroupHierarchy => {
                f.write_str("no cgroup hierarchy with the pids or memory controller is mounted")
            }
            SandboxError::CgroupNotWritable { dir } => write!(
                f,
                "keyless cannot make cgroups with process and memory limits in {} (it needs write access and the pids and memory controllers enabled there)",
                dir.display()
            ),
            SandboxError::Os { doing, source } => write!(f, "{doing}: {source}"),
            SandboxError::NulInPath { path } => write!(f, "{} holds a NUL byte", path.display()),
            SandboxError::Library { doing, source } => write!(f, "{doing}: {source}"),
            SandboxError::Nothing { doing } => write!(f, "{doing}: nothing came back"),
            SandboxError::NoStage => {
                f.write_str("no folder outside what a command is shown to stage its world in")
            }
            SandboxError::World { said, status } => write!(f, "{said} ({status})"),
            SandboxError::Unfaithful { found } => f.write_str(found),
            SandboxError::Part { part, source } => write!(f, "{part}: {source}"),
            SandboxError::Poisoned { what } => write!(f, "{what}'s lock is poisoned"),
            SandboxError::NoListener => {
                f.write_str("the kept network namespace gave no listener back")
            }
            SandboxError::NoNamespace { kind } => {
                write!(f, "a {kind} namespace could not be made")
            }
            SandboxError::NoIdmappedMounts { path } => write!(
                f,
                "{} cannot be shown through an idmapped mount (its file system does not support them)",
                path.display()
            ),
            SandboxError::NotForOverlay { path } => write!(
                f,
                "{} cannot be named to overlayfs (it holds , : or \\)",
                path.display()
            ),
            SandboxError::Unfinished { what } => write!(f, "{what} did not finish"),
        }
    }
}

impl std::error::Error for SandboxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SandboxError::UsernsRefused { source } | SandboxError::Os { source, .. } => {
                Some(source.as_ref())
            }
            SandboxError::Library { source, .. } => Some(source.as_ref()),
            SandboxError::Part { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_stays_reachable_through_every_wrapper() {
        let refused = SandboxError::os(
            "reading /proc/self/cgroup",
            io::Error::from_raw_os_error(libc::EACCES),
        )
        .in_part("a command could not join its cgroup");
        let as_io = refused.clone().into_io();
        let inner = as_io
            .get_ref()
            .and_then(|e| e.downcast_ref::<SandboxError>())
            .and_then(std::error::Error::source)
            .and_then(|e| e.downcast_ref::<SandboxError>())
            .and_then(std::error::Error::source)
            .and_then(|e| e.downcast_ref::<io::Error>())
            .and_then(io::Error::raw_os_error);
        assert_eq!(inner, Some(libc::EACCES));
        assert_eq!(
            refused.to_string(),
            format!(
                "a command could not join its cgroup: reading /proc/self/cgroup: {}",
                io::Error::from_raw_os_error(libc::EACCES)
            )
        );
    }
}
