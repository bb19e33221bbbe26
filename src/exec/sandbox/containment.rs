//! What a command gets, said before it runs: the [`Containment`] of a mode (which mechanism, how
//! the protected paths are kept, every [`Guarantee`] held or missing and why), the one line a
//! person and the model read, and the refusal of `--mode auto` where a guarantee it needs is
//! missing. `keyless status`, the first message and `--mode auto` all go by this list. All of it
//! is a function of the configuration and of what the platform offers (probed once); the
//! [`Sandbox`](super::Sandbox) asks it.
//!
//! What this module does not do: find out what the machine offers (`probe.rs`, `platform.rs`)
//! or build a command (`mod.rs`).

use std::sync::Arc;

use super::platform::{Guarantee, Platform, WorldSupport};
use super::reach::AllowList;
use crate::catalog::{Code, Failure};
use crate::config::{Mode, SandboxConfig, SandboxMode};

/// How the protected paths inside the workspace are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protection {
    /// Read-only binds, also over placeholders for names that did not exist: a write fails.
    World,
    /// Read-only bind mounts of what exists; what is created at a missing name is moved to
    /// quarantine after the command.
    ReadOnlyMounts,
    /// Fingerprinted before, checked and put back after each command.
    Restored,
}

/// What contains a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// The world bubblewrap builds.
    World,
    /// Landlock (with a mount namespace where there is one).
    Landlock(u8),
    /// macOS's Seatbelt profile (never run here).
    Seatbelt,
    /// Nothing: the user turned it off, or the platform has none.
    None,
}

/// The containment a command gets, as a person and the model are told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Containment {
    pub mechanism: Mechanism,
    pub network: bool,
    pub protection: Protection,
    /// Every guarantee, held or not.
    pub guarantees: Vec<Guarantee>,
    /// What the proxy reaches, where a command's network goes through it (see
    /// [`Containment::proxied`]).
    pub allow: Arc<AllowList>,
}

impl Containment {
    /// Whether anything contains the model's commands at all.
    pub fn contained(&self) -> bool {
        self.mechanism != Mechanism::None
    }

    /// Whether a command's network goes only through keyless's proxy (and so reaches only
    /// what [`Containment::allow`] holds): the world's network is on and kept.
    pub fn proxied(&self) -> bool {
        self.mechanism == Mechanism::World
            && self.network
            && self
                .guarantees
                .iter()
                .any(|g| g.name == "network" && g.holds)
    }

    /// The guarantees that do not hold.
    pub fn missing(&self) -> Vec<&Guarantee> {
        self.guarantees.iter().filter(|g| !g.holds).collect()
    }

    /// One line: the mechanism, what holds, and what is missing and why.
    pub fn line(&self) -> String {
        let mechanism = match self.mechanism {
            Mechanism::World => "a world of its own per command (bubblewrap)".to_string(),
            Mechanism::Landlock(abi) => format!(
                "landlock ABI {abi} (writes only in the workspace, $TMPDIR and build caches)"
            ),
            Mechanism::Seatbelt => "Seatbelt profile".to_string(),
            Mechanism::None => {
                "no OS sandbox: commands can write anywhere the user can".to_string()
            }
        };
        let held: Vec<&str> = self
            .guarantees
            .iter()
            .filter(|g| g.holds)
            .map(|g| g.what.as_str())
            .collect();
        let mut line = format!("sandbox: {mechanism}");
        if !held.is_empty() {
            line.push_str(": ");
            line.push_str(&held.join(", "));
        }
        // Guarantees missing for the same reason are named together, the reason once.
        let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
        for g in self.missing() {
            let why = g.missing.as_deref().unwrap_or_default();
            match reasons.iter_mut().find(|(r, _)| *r == why) {
                Some((_, names)) => names.push(g.name),
                None => reasons.push((why, vec![g.name])),
            }
        }
        let missing: Vec<String> = reasons
            .iter()
            .map(|(why, names)| format!("{}: {why}", names.join(", ")))
            .collect();
        if !missing.is_empty() {
            line.push_str(&format!(" (missing: {})", missing.join("; ")));
        }
        line
    }
}

/// Whether the model's commands get network in `mode`: in Ask mode, unless configured.
pub(super) fn network(config: &SandboxConfig, mode: Mode) -> bool {
    config.network.unwrap_or(mode == Mode::Ask)
}

/// Whether the user turned the sandbox off.
pub(super) fn is_off(config: &SandboxConfig) -> bool {
    config.mode == SandboxMode::Off
}

/// What a command gets in `mode` from a sandbox configured as `config` on `platform`.
pub(super) fn of(
    config: &SandboxConfig,
    platform: &Platform,
    mode: Mode,
    allow: &Arc<AllowList>,
) -> Containment {
    let network = network(config, mode);
    let allow = Arc::clone(allow);
    if is_off(config) {
        let off = "turned off by Sandbox.Mode \"off\"";
        return Containment {
            mechanism: Mechanism::None,
            network: true,
            protection: Protection::Restored,
            guarantees: crate::config::GUARANTEE_NAMES
                .iter()
                .map(|name| match *name {
                    "environment" => environment(),
                    _ => Guarantee::missing(name, *name, off),
                })
                .collect(),
            allow,
        };
    }
    if let Ok(world) = &platform.world {
        return Containment {
            mechanism: Mechanism::World,
            network,
            protection: Protection::World,
            guarantees: world_guarantees(config, world, network, &allow),
            allow,
        };
    }
    fallback(platform, network, allow)
}

/// The guarantees of the world bubblewrap builds.
fn world_guarantees(
    c: &SandboxConfig,
    world: &WorldSupport,
    network: bool,
    allow: &AllowList,
) -> Vec<Guarantee> {
    let kept = world.kept_net.as_ref().err();
    let mut out = vec![
        Guarantee::held(
            "processes",
            "own processes (nothing outlives a command, no privilege)",
        ),
        match (&world.remap, world.root) {
            (_, false) => Guarantee::held("privilege", PRIVILEGE),
            (Ok(()), true) => Guarantee::held("privilege", PRIVILEGE),
            (Err(why), true) => Guarantee::missing(
                "privilege",
                PRIVILEGE,
                format!(
                    "keyless runs as root, and a command's uid is the machine's uid 0 (with no capability, the kernel's settings read-only): {why}"
                ),
            ),
        },
        match &world.seccomp {
            Ok(()) => Guarantee::held("kernel", KERNEL),
            Err(why) => Guarantee::missing(
                "kernel",
                KERNEL,
                format!(
                    "the kernel's settings are read-only, but no system call is filtered ({why})"
                ),
            ),
        },
        Guarantee::held(
            "files",
            "system folders read-only, writes only in the workspace, its /tmp and the caches",
        ),
        Guarantee::held("home", "home folder empty but toolchains"),
    ];
    out.push(match (kept, network) {
        (Some(why), true) => Guarantee::missing(
            "sockets",
            "no socket or service of this machine reachable",
            format!("the network is the machine's, so its loopback services are reachable (no kept network namespace: {why})"),
        ),
        _ => Guarantee::held("sockets", "no socket or service of this machine reachable"),
    });
    out.push(match (kept, network) {
        (_, false) => Guarantee::held("network", "network off"),
        (None, true) => Guarantee::held("network", proxied_network(allow)),
        (Some(why), true) => Guarantee::missing(
            "network",
            "network through keyless's proxy",
            format!("unfiltered ({why})"),
        ),
    });
    out.push(match &world.layers {
        Ok(()) => Guarantee::held("caches", "build caches copy-on-write"),
        Err(why) => Guarantee::missing(
            "caches",
            "build caches copy-on-write",
            format!("the real caches are writable and can be poisoned ({why})"),
        ),
    });
    out.push(Guarantee::held(
        "protected",
        ".git .agent keyless.json read-only",
    ));
    // Where keyless is root but its commands run as their own id, the kernel limits that id.
    let limited_by_kernel = !world.root || world.remap.is_ok();
    out.push(match (&world.cgroups, limited_by_kernel) {
        (Ok(()), _) | (Err(_), true) => Guarantee::held(
            "process-limit",
            format!("at most {} processes", c.max_processes),
        ),
        (Err(why), false) => Guarantee::missing(
            "process-limit",
            "a process limit",
            format!("no cgroup, and the kernel does not limit root's processes ({why})"),
        ),
    });
    out.push(match &world.cgroups {
        Ok(()) => Guarantee::held(
            "memory-limit",
            match c.max_memory_mib {
                Some(mib) => format!("at most {mib} MiB of memory"),
                None => "at most half the memory".to_string(),
            },
        ),
        Err(why) => Guarantee::missing(
            "memory-limit",
            "a memory limit",
            format!(
                "no cgroup, so nothing bounds a command's memory: it starts as the out-of-memory killer's first choice, which it can undo ({why})"
            ),
        ),
    });
    out.push(Guarantee::held(
        "tmp-limit",
        format!("$TMPDIR private, at most {} MiB", c.tmp_mib),
    ));
    out.push(environment());
    out
}

/// The `network` guarantee's words when the proxy is the way out.
fn proxied_network(allow: &AllowList) -> String {
    const NEVER: &str =
        "never this machine, cloud metadata or an internal address it does not name";
    let entries = allow.entries().len();
    if allow.any() {
        format!("network only through keyless's proxy, to any public host ({NEVER})")
    } else if entries == 0 {
        "network only through keyless's proxy, whose allow-list is empty (no host)".to_string()
    } else {
        format!(
            "network only through keyless's proxy, to its allow-list of {entries} registries and git hosts ({NEVER})"
        )
    }
}

/// What the fallback gives without the world: Landlock and a mount namespace (Linux),
/// Seatbelt (macOS), or nothing.
fn fallback(p: &Platform, network: bool, allow: Arc<AllowList>) -> Containment {
    let no_world = p
        .world
        .as_ref()
        .err()
        .map(|w| format!("no world: {w}"))
        .unwrap_or_default();
    let landlock = p.landlock_abi > 0;
    let mechanism = if cfg!(target_os = "macos") {
        Mechanism::Seatbelt
    } else if landlock {
        Mechanism::Landlock(p.landlock_abi)
    } else {
        Mechanism::None
    };
    let gone = |name: &'static str, what: &str| Guarantee::missing(name, what, no_world.clone());
    let mut out = vec![
        gone("processes", "own processes"),
        gone("privilege", PRIVILEGE),
        gone("kernel", KERNEL),
        match landlock {
            true => Guarantee::missing(
                "files",
                "writes only in the workspace",
                format!(
                    "writes are bounded by Landlock, but every file the user can read is readable ({no_world})"
                ),
            ),
            false => Guarantee::missing(
                "files",
                "writes only in the workspace",
                p.landlock_missing
                    .as_ref()
                    .map_or_else(|| no_world.clone(), ToString::to_string),
            ),
        },
        gone("home", "home folder empty but toolchains"),
        gone("sockets", "no socket or service of this machine reachable"),
    ];
    out.push(if network {
        Guarantee::missing(
            "network",
            "network through keyless's proxy",
            format!("the machine's network, unfiltered ({no_world})"),
        )
    } else if landlock && p.landlock_abi >= 4 {
        Guarantee::missing(
            "network",
            "network off",
            format!("TCP is refused, but UDP still leaves ({no_world})"),
        )
    } else {
        Guarantee::missing(
            "network",
            "network off",
            format!(
                "the network stays on: Landlock ABI {} has no TCP rules (ABI 4, Linux 6.7)",
                p.landlock_abi
            ),
        )
    });
    out.push(gone("caches", "build caches copy-on-write"));
    out.push(if p.mounts && landlock {
        Guarantee::missing(
            "protected",
            ".git .agent keyless.json read-only",
            format!(
                "a missing one is moved to quarantine after the command, not refused ({no_world})"
            ),
        )
    } else {
        Guarantee::missing(
            "protected",
            ".git .agent keyless.json read-only",
            format!(
                "checked after each command and put back ({})",
                p.mounts_missing
                    .as_ref()
                    .map_or_else(|| no_world.clone(), ToString::to_string)
            ),
        )
    });
    out.push(gone("process-limit", "a process limit"));
    out.push(gone("memory-limit", "a memory limit"));
    out.push(gone("tmp-limit", "a private, limited $TMPDIR"));
    out.push(environment());
    Containment {
        mechanism,
        network: network || !landlock || p.landlock_abi < 4,
        protection: if p.mounts {
            Protection::ReadOnlyMounts
        } else {
            Protection::Restored
        },
        guarantees: out,
        allow,
    }
}

/// Refuses Auto mode while a guarantee is missing, unless the user accepted it
/// (`Sandbox.AllowMissing`) or turned the sandbox off on purpose.
pub(super) fn check_mode(
    config: &SandboxConfig,
    platform: &Platform,
    mode: Mode,
    allow: &Arc<AllowList>,
) -> Result<(), Failure> {
    if mode != Mode::Auto || is_off(config) {
        return Ok(());
    }
    let containment = of(config, platform, mode, allow);
    let accepted = |name: &str| config.allow_missing.iter().any(|a| a == "*" || a == name);
    let refused: Vec<String> = containment
        .missing()
        .iter()
        .filter(|g| !accepted(g.name))
        .map(|g| format!("{} ({})", g.name, g.missing.as_deref().unwrap_or_default()))
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = containment
        .missing()
        .iter()
        .filter(|g| !accepted(g.name))
        .map(|g| format!("\"{}\"", g.name))
        .collect();
    Err(Failure::new(
        Code::SandboxUnavailable,
        format!(
            "--mode auto runs every command without asking, and this machine cannot give these guarantees: {}. Use --mode ask or autosafe; or accept them in keyless.json with \"Sandbox\": {{\"AllowMissing\": [{}]}}; or set \"Sandbox\": {{\"Mode\": \"off\"}} to run unconfined on purpose.",
            refused.join("; "),
            names.join(", ")
        ),
    ))
}

/// What the `privilege` guarantee says.
const PRIVILEGE: &str = "never the machine's root (an unprivileged id, also when keyless is root)";

/// What the `kernel` guarantee says.
const KERNEL: &str = "the kernel's settings out of reach (/proc/sys read-only; keyrings, mounts, bpf, modules refused)";

/// The guarantee that holds everywhere: the environment filter and the redactor.
fn environment() -> Guarantee {
    Guarantee::held("environment", "secret environment variables withheld")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::sandbox::Sandbox;
    use crate::exec::sandbox::error::SandboxError;

    #[test]
    fn auto_mode_needs_a_sandbox_or_an_explicit_off() {
        let none = Platform {
            landlock_abi: 0,
            landlock_missing: Some(SandboxError::LandlockNotBuilt),
            mounts: false,
            mounts_missing: Some(SandboxError::Simulated),
            world: Err(SandboxError::NoBubblewrap),
        };
        let root = std::env::temp_dir();
        let sandbox = Sandbox::with_platform(&root, &SandboxConfig::default(), none.clone());
        let refused = sandbox.check_mode(Mode::Auto).unwrap_err();
        assert_eq!(refused.code, Code::SandboxUnavailable);
        assert!(
            refused.reason.contains("built without Landlock"),
            "{}",
            refused.reason
        );
        assert!(sandbox.check_mode(Mode::Ask).is_ok());
        let off = SandboxConfig {
            mode: SandboxMode::Off,
            ..SandboxConfig::default()
        };
        assert!(
            Sandbox::with_platform(&root, &off, none)
                .check_mode(Mode::Auto)
                .is_ok()
        );
    }

    #[test]
    fn the_containment_line_says_what_is_missing() {
        let old = Platform {
            landlock_abi: 3,
            landlock_missing: None,
            mounts: false,
            mounts_missing: Some(SandboxError::UsernsRefused {
                source: Arc::new(std::io::Error::from_raw_os_error(1)),
            }),
            world: Err(SandboxError::NoBubblewrap),
        };
        let root = std::env::temp_dir();
        let line = Sandbox::with_platform(&root, &SandboxConfig::default(), old)
            .containment(Mode::Auto)
            .line();
        assert!(line.contains("landlock ABI 3"), "{line}");
        assert!(line.contains("the network stays on"), "{line}");
        assert!(line.contains("no TCP rules"), "{line}");
        assert!(line.contains("bubblewrap is not installed"), "{line}");
        assert!(line.contains("checked after each command"), "{line}");
        assert!(line.contains("user namespace was refused"), "{line}");
    }

    fn world(kept_net: Result<(), SandboxError>, layers: Result<(), SandboxError>) -> Platform {
        Platform {
            world: Ok(WorldSupport {
                bwrap: "/usr/bin/bwrap".into(),
                kept_net,
                layers,
                cgroups: Ok(()),
                seccomp: Ok(()),
                remap: Ok(()),
                root: true,
            }),
            ..Platform::none(SandboxError::Simulated)
        }
    }

    #[test]
    fn the_network_guarantee_says_what_the_proxy_reaches() {
        let root = std::env::temp_dir();
        let network = |config: &SandboxConfig, kept: Result<(), SandboxError>| {
            let c =
                Sandbox::with_platform(&root, config, world(kept, Ok(()))).containment(Mode::Ask);
            let g = c.guarantees.iter().find(|g| g.name == "network").unwrap();
            (g.what.clone(), c.proxied())
        };
        let only = |entries: &[&str]| SandboxConfig {
            network_allow_only: Some(
                entries
                    .iter()
                    .map(|e| crate::hosts::Pattern::parse(e).unwrap())
                    .collect(),
            ),
            ..SandboxConfig::default()
        };
        let (what, proxied) = network(&only(&["crates.io", "*.corp.example"]), Ok(()));
        assert!(proxied);
        assert!(
            what.contains("to its allow-list of 2 registries and git hosts (never this machine, cloud metadata"),
            "{what}"
        );
        let (what, _) = network(&only(&["*"]), Ok(()));
        assert!(what.contains("to any public host"), "{what}");
        let (what, _) = network(&only(&[]), Ok(()));
        assert!(what.contains("allow-list is empty"), "{what}");
        // Without a kept network namespace the network is the machine's: no proxy, no list.
        let (what, proxied) = network(&only(&["crates.io"]), Err(SandboxError::Simulated));
        assert!(!proxied);
        assert_eq!(what, "network through keyless's proxy");
    }

    #[test]
    fn the_world_says_each_guarantee_and_auto_mode_takes_only_what_is_accepted() {
        let root = std::env::temp_dir();
        let full = Sandbox::with_platform(&root, &SandboxConfig::default(), world(Ok(()), Ok(())));
        let containment = full.containment(Mode::Ask);
        assert_eq!(containment.mechanism, Mechanism::World);
        let names: Vec<&str> = containment.guarantees.iter().map(|g| g.name).collect();
        assert_eq!(names, crate::config::GUARANTEE_NAMES);
        assert!(containment.missing().is_empty(), "{}", containment.line());
        assert!(
            containment
                .line()
                .contains("network only through keyless's proxy")
        );
        assert!(full.check_mode(Mode::Auto).is_ok());

        let weak = world(Err(SandboxError::Simulated), Err(SandboxError::Simulated));
        let sandbox = Sandbox::with_platform(&root, &SandboxConfig::default(), weak.clone());
        let missing: Vec<&str> = sandbox
            .containment(Mode::Ask)
            .missing()
            .iter()
            .map(|g| g.name)
            .collect();
        assert_eq!(missing, ["sockets", "network", "caches"]);
        // Auto mode's network is off, so only the caches are missing there.
        let refused = sandbox.check_mode(Mode::Auto).unwrap_err();
        assert!(
            refused
                .reason
                .contains("caches (the real caches are writable"),
            "{}",
            refused.reason
        );
        assert!(
            refused.reason.contains("\"AllowMissing\": [\"caches\"]"),
            "{}",
            refused.reason
        );
        let accepted = SandboxConfig {
            allow_missing: vec!["caches".into()],
            ..SandboxConfig::default()
        };
        assert!(
            Sandbox::with_platform(&root, &accepted, weak.clone())
                .check_mode(Mode::Auto)
                .is_ok()
        );
        let on = SandboxConfig {
            allow_missing: vec!["caches".into()],
            network: Some(true),
            ..SandboxConfig::default()
        };
        let refused = Sandbox::with_platform(&root, &on, weak)
            .check_mode(Mode::Auto)
            .unwrap_err();
        assert!(
            refused.reason.contains("sockets") && refused.reason.contains("network"),
            "{}",
            refused.reason
        );
    }
}
