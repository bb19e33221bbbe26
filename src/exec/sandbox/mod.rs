//! The sandbox around every process keyless starts for the model: what a `@@runcommand` (and
//! everything it spawns) can reach, enforced by the operating system, whatever the command line
//! says. The command policy decides when a person is asked; the sandbox decides what a command
//! can touch at all.
//!
//! On Linux with bubblewrap, a command runs in **a world built from an allow-list**
//! (`world.rs`): its own processes, its own file system (the system's folders read-only, the
//! workspace writable, an empty home folder but for the toolchains, private size-limited
//! temporary folders), its own network (off, or only through keyless's proxy, which never
//! reaches this machine: `nets.rs`, `proxy.rs`), caches behind copy-on-write layers
//! (`enter.rs`), `.git`, `.agent` and `keyless.json` read-only even where they do not exist yet
//! (`placeholder.rs`), and limits on its processes and memory (`limits.rs`). `assemble.rs` puts
//! one command together; `probe.rs` finds once what the machine allows, `platform.rs` says it.
//!
//! Without bubblewrap (or where the kernel refuses its namespaces) the older, weaker mechanism
//! stands in (`linux.rs`): Landlock bounds every write, a mount namespace makes the protected
//! paths read-only and masks the secret stores, and the [`guard`] puts back what a command
//! changed where no mount can protect. The guarantees it cannot give are reported as missing,
//! and `--mode auto` refuses to start on them unless `Sandbox.AllowMissing` accepts them.
//! macOS (`seatbelt.rs`) and Windows: see `docs/sandbox.md`; neither has run here.
//!
//! The environment is filtered on every platform, sandbox or not: variables whose names mark them
//! as secret never reach the model's processes (a command could print them re-encoded, which no
//! redactor can catch).
//!
//! What this module does not do: decide whether a command may run (the policy and the batch
//! engine do), or keep secrets out of what is sent (the redactor does).

#[cfg(target_os = "linux")]
mod assemble;
#[cfg(target_os = "linux")]
mod enter;
#[cfg(unix)]
pub mod guard;
#[cfg(not(unix))]
#[path = "guard_none.rs"]
pub mod guard;
#[cfg(target_os = "linux")]
pub mod home;
#[cfg(target_os = "linux")]
mod limits;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod nets;
#[cfg(target_os = "linux")]
mod owner;
#[cfg(target_os = "linux")]
mod placeholder;
mod platform;
#[cfg(target_os = "linux")]
mod probe;
#[cfg(target_os = "linux")]
pub mod proxy;
pub mod seatbelt;
mod support;
#[cfg(target_os = "linux")]
pub mod world;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::catalog::{Code, Failure};
use crate::config::{Mode, SandboxConfig, SandboxMode};

use guard::Guard;
#[cfg(target_os = "linux")]
pub use owner::listener_profile;
pub use platform::{Guarantee, Platform, WorldSupport};

/// The secret stores masked wherever the sandbox shows them, relative to the home folder (in the
/// world the home folder is empty anyway; these matter where a cache or the workspace holds one,
/// and for the fallback).
pub const SECRET_STORES: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".docker",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".azure",
    ".config/gcloud",
    ".password-store",
    ".local/share/keyrings",
    ".pgpass",
    ".vault-token",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    // Browser profiles hold the chat sites' session cookies (keyless's own among them).
    ".config/keyless",
    ".config/google-chrome",
    ".config/chromium",
];

/// Names inside the workspace the model's commands may read but never change.
pub const PROTECTED_NAMES: &[&str] = &[".git", ".agent", "keyless.json"];

/// Environment variables that are never given to the model's processes although their names do
/// not look secret: they hand over a credential (the ssh agent) or a way out of the sandbox.
const HIDDEN_ENV: &[&str] = &[
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
];

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
}

impl Containment {
    /// Whether anything contains the model's commands at all.
    pub fn contained(&self) -> bool {
        self.mechanism != Mechanism::None
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

/// The sandbox of one workspace: its configuration, what the platform offers, and what it found
/// once for building commands.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    config: SandboxConfig,
    platform: Platform,
    home: Option<PathBuf>,
    /// The batch's temporary folder (the fallback's `$TMPDIR`; the world has its own).
    tmp: Option<tempfile::TempDir>,
    /// keyless's own files inside the workspace besides the protected names (a `--config` or
    /// `--selectors` file there): read-only to commands.
    also_protected: Vec<PathBuf>,
    /// keyless's own places that must never be visible (the browser profile).
    also_hidden: Vec<PathBuf>,
    #[cfg(target_os = "linux")]
    assembly: std::sync::OnceLock<assemble::Assembly>,
}

impl Sandbox {
    /// The sandbox for the workspace at `root`.
    pub fn new(root: &Path, config: &SandboxConfig) -> Sandbox {
        Sandbox::with_platform(root, config, Platform::detect())
    }

    /// The sandbox with a platform already detected.
    pub fn with_platform(root: &Path, config: &SandboxConfig, platform: Platform) -> Sandbox {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute());
        // Placeholders a killed keyless left in this workspace go before anything reads it.
        #[cfg(target_os = "linux")]
        if let Some(state) = assemble::state_dir(None, home.as_deref(), &root) {
            placeholder::clean_recorded(&state.join("placeholders"));
        }
        Sandbox {
            root,
            config: config.clone(),
            platform,
            home,
            tmp: None,
            also_protected: Vec::new(),
            also_hidden: Vec::new(),
            #[cfg(target_os = "linux")]
            assembly: std::sync::OnceLock::new(),
        }
    }

    /// Keeps `path` (a file of keyless's) read-only to commands when it lies in the workspace.
    pub fn protect(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if path.starts_with(&self.root) && !self.also_protected.contains(&path) {
            self.also_protected.push(path);
        }
    }

    /// Keeps `path` (keyless's browser profile, say) out of every command's sight.
    pub fn hide(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if !self.also_hidden.contains(&path) {
            self.also_hidden.push(path);
        }
        #[cfg(target_os = "linux")]
        {
            self.assembly = std::sync::OnceLock::new();
        }
    }

    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    /// Whether the model's commands get network in `mode`.
    pub fn network(&self, mode: Mode) -> bool {
        self.config.network.unwrap_or(mode == Mode::Ask)
    }

    /// Whether the user turned the sandbox off.
    pub fn is_off(&self) -> bool {
        self.config.mode == SandboxMode::Off
    }

    /// Whether commands get the world (else the fallback or nothing).
    fn world(&self) -> Option<&WorldSupport> {
        if self.is_off() {
            return None;
        }
        self.platform.world.as_ref().ok()
    }

    /// What a command gets in `mode`.
    pub fn containment(&self, mode: Mode) -> Containment {
        let network = self.network(mode);
        if self.is_off() {
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
            };
        }
        if let Some(world) = self.world() {
            return Containment {
                mechanism: Mechanism::World,
                network,
                protection: Protection::World,
                guarantees: self.world_guarantees(world, network),
            };
        }
        self.fallback_containment(network)
    }

    fn world_guarantees(&self, world: &WorldSupport, network: bool) -> Vec<Guarantee> {
        let c = &self.config;
        let kept = world.kept_net.as_ref().err();
        let mut out = vec![
            Guarantee::held(
                "processes",
                "own processes (nothing outlives a command, no privilege)",
            ),
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
            (None, true) => Guarantee::held(
                "network",
                "network only through keyless's proxy (never this machine)",
            ),
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
        out.push(match (&world.cgroups, world.root) {
            (Ok(()), _) | (Err(_), false) => Guarantee::held(
                "process-limit",
                format!("at most {} processes", c.max_processes),
            ),
            (Err(why), true) => Guarantee::missing(
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
            Err(why) => Guarantee::missing("memory-limit", "a memory limit", format!("no cgroup; a command is the out-of-memory killer's first choice instead ({why})")),
        });
        out.push(Guarantee::held(
            "tmp-limit",
            format!("$TMPDIR private, at most {} MiB", c.tmp_mib),
        ));
        out.push(environment());
        out
    }

    fn fallback_containment(&self, network: bool) -> Containment {
        let p = &self.platform;
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
        let gone =
            |name: &'static str, what: &str| Guarantee::missing(name, what, no_world.clone());
        let mut out = vec![
            gone("processes", "own processes"),
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
                        .clone()
                        .unwrap_or_else(|| no_world.clone()),
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
            Guarantee::missing("protected", ".git .agent keyless.json read-only", format!("a missing one is moved to quarantine after the command, not refused ({no_world})"))
        } else {
            Guarantee::missing("protected", ".git .agent keyless.json read-only", format!("checked after each command and put back ({})", p.mounts_missing.as_deref().unwrap_or(&no_world)))
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
        }
    }

    /// Refuses Auto mode while a guarantee is missing, unless the user accepted it
    /// (`Sandbox.AllowMissing`) or turned the sandbox off on purpose.
    pub fn check_mode(&self, mode: Mode) -> Result<(), Failure> {
        if mode != Mode::Auto || self.is_off() {
            return Ok(());
        }
        let containment = self.containment(mode);
        let accepted = |name: &str| {
            self.config
                .allow_missing
                .iter()
                .any(|a| a == "*" || a == name)
        };
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

    /// The folders a command may write besides the workspace and its temporary folder in the
    /// fallback: the build caches that exist (only their cache parts: never `~/.cargo/bin` or a
    /// config file), and `Sandbox.WritablePaths`.
    pub fn writable_paths(&self) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        let env_path = |name: &str| std::env::var_os(name).map(PathBuf::from);
        if let Some(home) = &self.home {
            let cargo = env_path("CARGO_HOME").unwrap_or_else(|| home.join(".cargo"));
            for part in [
                "registry",
                "git",
                ".package-cache",
                ".package-cache-mutate",
                ".global-cache",
            ] {
                paths.push(cargo.join(part));
            }
            paths.push(home.join(".npm"));
            paths.push(home.join(".cache/pip"));
            paths.push(env_path("GOMODCACHE").unwrap_or_else(|| home.join("go/pkg/mod")));
            paths.push(env_path("GOCACHE").unwrap_or_else(|| home.join(".cache/go-build")));
        }
        paths.extend(self.config.writable_paths.iter().cloned());
        paths.retain(|p| p.exists());
        paths
    }

    /// The secret stores masked inside the fallback's sandbox: those that exist, and that hold
    /// neither the workspace nor one of `writable` (what [`Sandbox::writable_paths`] gave).
    pub fn hidden_paths(&self, writable: &[PathBuf]) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = match &self.home {
            Some(home) => SECRET_STORES.iter().map(|s| home.join(s)).collect(),
            None => Vec::new(),
        };
        paths.extend(self.config.hidden_paths.iter().cloned());
        paths.extend(self.also_hidden.iter().cloned());
        paths.retain(|p| {
            p.symlink_metadata().is_ok()
                && !self.root.starts_with(p)
                && !writable.iter().any(|w| w.starts_with(p))
        });
        paths
    }

    /// The protected paths inside the workspace that exist now: `.git` (nested ones too),
    /// `.agent`, `keyless.json`, and keyless's own files there.
    pub fn protected_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = PROTECTED_NAMES
            .iter()
            .map(|n| self.root.join(n))
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        guard::nested_git(&self.root, &mut paths);
        paths.extend(
            self.also_protected
                .iter()
                .filter(|p| p.symlink_metadata().is_ok())
                .cloned(),
        );
        paths
    }

    /// The batch's private temporary folder, made on first use.
    fn tmp(&mut self) -> std::io::Result<PathBuf> {
        if self.tmp.is_none() {
            self.tmp = Some(
                tempfile::Builder::new()
                    .prefix("keyless-batch-")
                    .tempdir()?,
            );
        }
        Ok(self
            .tmp
            .as_ref()
            .map(|t| t.path().to_path_buf())
            .unwrap_or_default())
    }

    /// Ends the batch: its temporary folder goes with everything in it.
    pub fn batch_finished(&mut self) {
        self.tmp = None;
    }

    /// The command that runs `program args…` outside the sandbox (a person allowed it), still
    /// without the secret environment.
    pub fn unconfined(&self, program: &str, args: &[&str]) -> Command {
        let mut command = Command::new(program);
        command.args(args);
        filter_env(&mut command, &self.config);
        command
    }

    /// The command that runs `program args…` (a shell running the model's line) contained in
    /// `mode`, and what to check once it has run.
    pub fn command(
        &mut self,
        mode: Mode,
        program: &str,
        args: &[&str],
    ) -> std::io::Result<(Command, Contained)> {
        let network = self.network(mode);
        self.contained(Use::Model { network }, program, args)
    }

    /// The command that runs one of keyless's own programs in the workspace (a tool's version
    /// probe, the user's snapshot script), as untrusted as a model command: the workspace may
    /// hold what a model planted (a toolchain file, a hook). No network; caches read-only.
    pub fn own_command(
        &self,
        program: &str,
        args: &[&str],
    ) -> std::io::Result<(Command, Contained)> {
        let mut command = Command::new(program);
        command.args(args);
        filter_env(&mut command, &self.config);
        let plain = Contained {
            guard: Guard::none(),
            active: false,
            writable: Vec::new(),
            #[cfg(target_os = "linux")]
            after: None,
        };
        if self.is_off() {
            return Ok((command, plain));
        }
        #[cfg(target_os = "linux")]
        {
            if let Ok(world) = &self.platform.world {
                return self.world_command(world, Use::Own, program, args);
            }
            // The fallback: Landlock with nothing writable and no network.
            if self.platform.landlock_abi > 0 {
                linux::Plan::new(linux::PlanInput {
                    abi: self.platform.landlock_abi,
                    mounts: false,
                    writable: &[],
                    protected: &[],
                    hidden: &[],
                    network: false,
                })?
                .install(&mut command);
            }
        }
        Ok((command, plain))
    }

    fn contained(
        &mut self,
        what: Use,
        program: &str,
        args: &[&str],
    ) -> std::io::Result<(Command, Contained)> {
        if self.is_off() {
            let mut command = Command::new(program);
            command.args(args);
            filter_env(&mut command, &self.config);
            let contained = Contained {
                guard: Guard::none(),
                active: false,
                writable: Vec::new(),
                #[cfg(target_os = "linux")]
                after: None,
            };
            return Ok((command, contained));
        }
        #[cfg(target_os = "linux")]
        if let Ok(world) = &self.platform.world {
            return self.world_command(world, what, program, args);
        }
        let network = matches!(what, Use::Model { network: true });
        self.fallback_command(network, program, args)
    }

    #[cfg(target_os = "linux")]
    fn world_command(
        &self,
        world: &WorldSupport,
        what: Use,
        program: &str,
        args: &[&str],
    ) -> std::io::Result<(Command, Contained)> {
        let assembly = self.assembly.get_or_init(|| {
            let env = |name: &str| std::env::var(name).ok();
            assemble::Assembly::new(assemble::Input {
                root: &self.root,
                home: self.home.as_deref(),
                config: &self.config,
                hidden: &self.also_hidden,
                env: &env,
                state_base: None,
            })
        });
        let protected = self.protected_paths();
        let (purpose, network) = match what {
            Use::Model { network: true } => (assemble::Purpose::Model, assemble::Network::On),
            Use::Model { network: false } => (assemble::Purpose::Model, assemble::Network::Off),
            Use::Own => (assemble::Purpose::Probe, assemble::Network::Off),
        };
        let (mut command, after) =
            assembly.command(world, purpose, network, &protected, program, args)?;
        filter_env(&mut command, &self.config);
        Ok((
            command,
            Contained {
                guard: Guard::none(),
                active: true,
                writable: vec![self.root.clone(), PathBuf::from("/tmp")],
                after: Some(after),
            },
        ))
    }

    /// The fallback: Landlock and a mount namespace (Linux), Seatbelt (macOS), or nothing.
    fn fallback_command(
        &mut self,
        network: bool,
        program: &str,
        args: &[&str],
    ) -> std::io::Result<(Command, Contained)> {
        let tmp = self.tmp()?;
        let extra = self.writable_paths();
        let hidden = self.hidden_paths(&extra);
        let mut writable = vec![self.root.clone(), tmp.clone()];
        writable.extend(extra);
        let protected = self.protected_paths();
        let guard = if self.platform.mounts {
            Guard::creation(&self.root)
        } else {
            Guard::fingerprint(&self.root, &protected)
        };
        #[cfg(target_os = "macos")]
        let mut command = seatbelt::command(
            &seatbelt::Profile {
                root: &self.root,
                writable: &writable,
                hidden: &hidden,
                network,
            },
            program,
            args,
        );
        #[cfg(not(target_os = "macos"))]
        let mut command = {
            let mut command = Command::new(program);
            command.args(args);
            command
        };
        #[cfg(target_os = "linux")]
        linux::Plan::new(linux::PlanInput {
            abi: self.platform.landlock_abi,
            mounts: self.platform.mounts,
            writable: &writable,
            protected: &protected,
            hidden: &hidden,
            network,
        })?
        .install(&mut command);
        #[cfg(not(any(target_os = "linux", target_os = "macos")))]
        let _ = (&hidden, network);
        filter_env(&mut command, &self.config);
        command.env("TMPDIR", &tmp).env("KEYLESS_SANDBOX", "1");
        let contained = Contained {
            guard,
            active: self.platform.landlock_abi > 0 || cfg!(target_os = "macos"),
            writable,
            #[cfg(target_os = "linux")]
            after: None,
        };
        Ok((command, contained))
    }
}

/// Whose command is contained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    Model { network: bool },
    Own,
}

/// The guarantee that holds everywhere: the environment filter and the redactor.
fn environment() -> Guarantee {
    Guarantee::held("environment", "secret environment variables withheld")
}

/// A command prepared by [`Sandbox::command`]: what to check once it has run.
#[derive(Debug)]
pub struct Contained {
    guard: Guard,
    active: bool,
    writable: Vec<PathBuf>,
    #[cfg(target_os = "linux")]
    after: Option<assemble::After>,
}

impl Contained {
    /// After the command: puts back whatever it changed among the protected paths (the
    /// fallback), takes away the placeholders and the cgroups (the world), and says whether the
    /// sandbox refused it something or a limit ended it. `failed` is whether the command
    /// failed; `output` is what it printed.
    pub fn finish(mut self, failed: bool, output: &str) -> Option<Refusal> {
        let (notes, refused) = self.notes(output);
        let tampered = self.guard.check();
        if !tampered.is_empty() {
            return Some(Refusal::Tampered(Failure::new(
                Code::SandboxDenied,
                format!(
                    "the command changed paths the model may not change, and keyless undid it: {}. .git, .agent and keyless.json are read-only to commands: use @@commit for git, and leave keyless's configuration to the user.",
                    tampered.join("; ")
                ),
            )));
        }
        if !self.active {
            return None;
        }
        let Some(line) = denial_line(output).or(refused) else {
            return (!notes.is_empty()).then(|| Refusal::Noted(notes.join("\n")));
        };
        if !failed {
            let mut all = vec![format!(
                "note: the command succeeded, but the sandbox may have refused it something: {}",
                line.trim()
            )];
            all.extend(notes);
            return Some(Refusal::Noted(all.join("\n")));
        }
        let mut reason = format!(
            "the sandbox refused an access ({}). Commands may write only in the workspace (not .git, .agent or keyless.json), in $TMPDIR ({}) and in the build caches; the home folder holds only the toolchains, and secret stores read as empty; the network may be off. Do it inside the workspace, or tell the user what you need.",
            line.trim(),
            self.writable
                .get(1)
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
        for note in notes {
            reason.push(' ');
            reason.push_str(&note);
        }
        Some(Refusal::Refused(Failure::new(Code::SandboxDenied, reason)))
    }

    /// What the world's edges did to the command (a limit reached, a destination the proxy
    /// refused), as notes for the model, and the refusal line when the proxy refused something.
    #[cfg(target_os = "linux")]
    fn notes(&mut self, output: &str) -> (Vec<String>, Option<String>) {
        let Some(met) = self.after.take().map(assemble::After::finish) else {
            return (Vec::new(), None);
        };
        let mut notes = Vec::new();
        if let Some(limits) = met.limits {
            if met.seen.out_of_memory {
                notes.push(format!(
                    "note: the kernel ended a process of the command for going over its memory limit ({} MiB, Sandbox.MaxMemoryMiB).",
                    limits.memory_bytes / (1024 * 1024)
                ));
            }
            if met.seen.process_limit {
                notes.push(format!(
                    "note: the command reached its limit of {} processes (Sandbox.MaxProcesses), so a process it started could not start.",
                    limits.processes
                ));
            }
        }
        if output.contains("No space left on device") && met.tmp_bytes > 0 {
            notes.push(format!(
                "note: $TMPDIR (/tmp) is the command's own and holds at most {} MiB (Sandbox.TmpSizeMiB); put large files in the workspace.",
                met.tmp_bytes / (1024 * 1024)
            ));
        }
        let refused = (!met.refused.is_empty()).then(|| {
            format!(
                "keyless's proxy refused {}: commands cannot reach services on this machine",
                met.refused.join(", ")
            )
        });
        (notes, refused)
    }

    #[cfg(not(target_os = "linux"))]
    fn notes(&mut self, _output: &str) -> (Vec<String>, Option<String>) {
        (Vec::new(), None)
    }
}

/// What the sandbox refused a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The command changed a protected path, which keyless undid. Never offered to run again
    /// outside the sandbox.
    Tampered(Failure),
    /// The command failed on a refusal; a person may let it run again outside the sandbox.
    Refused(Failure),
    /// The command succeeded, but its output shows a refusal: a line for the model.
    Noted(String),
}

/// The first output line that reads like a refusal by the operating system (EACCES, EPERM,
/// EROFS), cut to a readable length. Heuristic, so it is only consulted for a command that
/// failed inside an active sandbox.
fn denial_line(output: &str) -> Option<String> {
    const SIGNS: &[&str] = &[
        "permission denied",
        "operation not permitted",
        "read-only file system",
        "errno 13",
        "errno 1]",
        "errno 30",
        "eacces",
        "eperm",
        "erofs",
        // A protected path is a mount point: it cannot be removed or renamed either.
        "device or resource busy",
    ];
    const MAX: usize = 200;
    output
        .lines()
        .find(|l| {
            let lower = l.to_ascii_lowercase();
            SIGNS.iter().any(|s| lower.contains(s))
        })
        .map(|l| {
            let mut line: String = l.chars().take(MAX).collect();
            if line.len() < l.len() {
                line.push('…');
            }
            line
        })
}

/// Removes from the command's environment every variable whose name marks it as secret (and
/// those `Sandbox.HiddenEnv` names), except those `Sandbox.PassEnv` hands through.
pub fn filter_env(command: &mut Command, config: &SandboxConfig) {
    for name in hidden_env_names(std::env::vars_os().map(|(k, _)| k), config) {
        command.env_remove(name);
    }
}

/// The names among `names` that are withheld from the model's processes.
pub fn hidden_env_names(
    names: impl Iterator<Item = OsString>,
    config: &SandboxConfig,
) -> Vec<OsString> {
    names
        .filter(|name| {
            let Some(text) = name.to_str() else {
                return false;
            };
            let passed = config.pass_env.iter().any(|p| p.eq_ignore_ascii_case(text));
            let hidden = crate::redact::is_secret_env_name(text)
                || HIDDEN_ENV.iter().any(|h| h.eq_ignore_ascii_case(text))
                || config
                    .hidden_env
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(text));
            hidden && !passed
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_withheld_unless_passed() {
        let config = SandboxConfig {
            hidden_env: vec!["MY_VAR".into()],
            pass_env: vec!["NPM_TOKEN".into()],
            ..SandboxConfig::default()
        };
        let names = [
            "GITHUB_TOKEN",
            "NPM_TOKEN",
            "PATH",
            "MY_VAR",
            "SSH_AUTH_SOCK",
            "HOME",
            "AWS_SECRET_ACCESS_KEY",
        ]
        .map(OsString::from);
        let hidden = hidden_env_names(names.into_iter(), &config);
        assert_eq!(
            hidden,
            [
                "GITHUB_TOKEN",
                "MY_VAR",
                "SSH_AUTH_SOCK",
                "AWS_SECRET_ACCESS_KEY"
            ]
            .map(OsString::from)
        );
    }

    #[test]
    fn the_network_is_on_in_ask_mode_off_in_the_others_unless_configured() {
        let root = std::env::temp_dir();
        let platform = Platform {
            landlock_abi: 7,
            landlock_missing: None,
            mounts: true,
            mounts_missing: None,
            world: Err("none".into()),
        };
        let default = Sandbox::with_platform(&root, &SandboxConfig::default(), platform.clone());
        assert!(default.network(Mode::Ask));
        assert!(!default.network(Mode::AutoSafe));
        assert!(!default.network(Mode::Auto));
        let on = SandboxConfig {
            network: Some(true),
            ..SandboxConfig::default()
        };
        assert!(Sandbox::with_platform(&root, &on, platform.clone()).network(Mode::Auto));
        let off = SandboxConfig {
            network: Some(false),
            ..SandboxConfig::default()
        };
        assert!(!Sandbox::with_platform(&root, &off, platform).network(Mode::Ask));
    }

    #[test]
    fn a_refusal_is_found_in_the_output() {
        assert_eq!(
            denial_line("building\nsh: 1: cannot create /home/x/y: Permission denied\n"),
            Some("sh: 1: cannot create /home/x/y: Permission denied".into())
        );
        assert_eq!(
            denial_line("touch: cannot touch 'a': Read-only file system"),
            Some("touch: cannot touch 'a': Read-only file system".into())
        );
        assert_eq!(denial_line("error: test failed\n"), None);
    }

    #[test]
    fn auto_mode_needs_a_sandbox_or_an_explicit_off() {
        let none = Platform {
            landlock_abi: 0,
            landlock_missing: Some("kernel too old".into()),
            mounts: false,
            mounts_missing: Some("no".into()),
            world: Err("bubblewrap is not installed".into()),
        };
        let root = std::env::temp_dir();
        let sandbox = Sandbox::with_platform(&root, &SandboxConfig::default(), none.clone());
        let refused = sandbox.check_mode(Mode::Auto).unwrap_err();
        assert_eq!(refused.code, Code::SandboxUnavailable);
        assert!(refused.reason.contains("kernel too old"));
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
            mounts_missing: Some("user namespaces are off".into()),
            world: Err("bubblewrap is not installed".into()),
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
        assert!(line.contains("user namespaces are off"), "{line}");
    }

    fn world(kept_net: Result<(), String>, layers: Result<(), String>) -> Platform {
        Platform {
            world: Ok(WorldSupport {
                bwrap: "/usr/bin/bwrap".into(),
                kept_net,
                layers,
                cgroups: Ok(()),
                root: true,
            }),
            ..Platform::none("unused")
        }
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

        let weak = world(Err("userns refused".into()), Err("no overlayfs".into()));
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
