//! What the world (bubblewrap and its parts) offers on this machine, as the probe found it: a
//! leaf that the probe, the assembly and the platform's guarantees share.

use std::path::PathBuf;

use super::error::SandboxError;

/// What the world offers on this machine.
#[derive(Clone, Debug)]
pub struct WorldSupport {
    /// The bubblewrap program.
    pub bwrap: PathBuf,
    /// Network namespaces kept for commands to join (the proxy's way out lives in one); else
    /// why not: then each command gets a namespace of its own when the network is off, and the
    /// machine's network, unfiltered, when it is on.
    pub kept_net: Result<(), SandboxError>,
    /// Copy-on-write layers over the build caches; else why not (the caches are then bound
    /// writable as they are).
    pub layers: Result<(), SandboxError>,
    /// Cgroups with process and memory limits per command; else why not.
    pub cgroups: Result<(), SandboxError>,
    /// The seccomp filter (`seccomp.rs`) loaded by bubblewrap; else why not.
    pub seccomp: Result<(), SandboxError>,
    /// Where keyless is root: commands run as an unprivileged id through idmapped mounts
    /// (`remap.rs`); else why not (then a command's uid is the machine's uid 0, in a user
    /// namespace with no capability).
    pub remap: Result<(), SandboxError>,
    /// Whether keyless runs as root (the kernel exempts root from `RLIMIT_NPROC`).
    pub root: bool,
}
