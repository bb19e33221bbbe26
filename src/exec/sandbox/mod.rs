//! The sandbox around every process keyless starts for the model: what a `@@runcommand` (and
//! everything it spawns) can reach, enforced by the operating system, whatever the command line
//! says. The command policy decides when a person is asked; the sandbox decides what a command
//! can touch at all.
//!
//! On Linux with bubblewrap, a command runs in **a world built from an allow-list**
//! (`world.rs`): its own processes, its own file system (the system's folders read-only, the
//! workspace writable, an empty home folder but for the toolchains, private size-limited
//! temporary folders), its own network (off, or only through keyless's proxy, which reaches
//! the hosts of its allow-list and never this machine or an internal address: `nets.rs`,
//! `reach.rs`, `registries.rs`, `proxy.rs`), caches behind copy-on-write layers
//! (`enter.rs`), `.git`, `.agent` and `keyless.json` read-only even where they do not exist yet
//! (`placeholder.rs`), and limits on its processes and memory (`limits.rs`). `assemble.rs` puts
//! one command together; `probe.rs` finds once what the machine allows, `platform.rs` says it.
//!
//! Without bubblewrap (or where the kernel refuses its namespaces) the older, weaker mechanism
//! stands in (`linux.rs`): Landlock bounds every write, a mount namespace makes the protected
//! paths read-only and masks the secret stores, and the [`guard`] puts back what a command
//! changed where no mount can protect. The guarantees it cannot give are reported as missing,
//! and `--mode auto` refuses to start on them unless `Sandbox.AllowMissing` accepts them
//! (`containment.rs` says what a command gets). macOS (`seatbelt.rs`) and Windows: see
//! `docs/sandbox.md`; neither has run here.
//!
//! After each command, `refusal.rs` says what the sandbox refused it. The environment is
//! filtered on every platform, sandbox or not (`env.rs`).
//!
//! This room holds the [`Sandbox`] itself: the places it keeps (writable, hidden, protected)
//! and the commands it builds, contained, unconfined, or keyless's own.
//!
//! What this module does not do: decide whether a command may run, or may leave the sandbox
//! (the policy and the command orchestrator, `batch::command`, do), or keep secrets out of what
//! is sent (the redactor does).

#[cfg(target_os = "linux")]
mod assemble;
mod containment;
#[cfg(target_os = "linux")]
mod credentials;
#[cfg(target_os = "linux")]
mod enter;
mod env;
pub mod error;
#[cfg(unix)]
pub(crate) mod guard;
#[cfg(not(unix))]
#[path = "guard_none.rs"]
pub(crate) mod guard;
#[cfg(target_os = "linux")]
pub(crate) mod home;
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
pub(crate) mod proxy;
pub(crate) mod reach;
mod refusal;
mod registries;
#[cfg(target_os = "linux")]
mod remap;
mod repos;
#[cfg(target_os = "linux")]
pub(crate) mod seccomp;
#[cfg(target_os = "linux")]
mod sni;
// Rendered and unit-tested on every platform; run only on macOS.
#[cfg(any(target_os = "macos", test))]
mod seatbelt;
mod support;
#[cfg(target_os = "linux")]
pub(crate) mod world;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::catalog::Failure;
use crate::config::{Mode, SandboxConfig};

pub use containment::{Containment, Mechanism, Protection};
pub use env::{filter_env, hidden_env_names};
use guard::Guard;
#[cfg(target_os = "linux")]
pub use owner::listener_profile;
pub use platform::{Guarantee, Platform, WorldSupport};
pub use reach::{AllowList, Allowed, Source};
pub use refusal::{Contained, Refusal};

/// What a world built now depends on (`assemble::Identity`); only where commands run in a
/// world of their own.
#[cfg(target_os = "linux")]
pub type WorldIdentity = assemble::Identity;
#[cfg(not(target_os = "linux"))]
pub type WorldIdentity = ();
/// The compiled seccomp programs (for the benchmark's figures).
#[cfg(target_os = "linux")]
pub use seccomp::programs as seccomp_programs;

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

/// The home folder whose secret stores are hidden: `$HOME`, when it is an absolute path.
pub fn home_folder() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
}

/// The places hidden from every command wherever they are (also inside the workspace): the
/// secret stores of `home` and `Sandbox.HiddenPaths`. keyless's own (its browser profile) are
/// added to a sandbox with [`Sandbox::hide`].
pub fn secret_places(home: Option<&Path>, config: &SandboxConfig) -> Vec<PathBuf> {
    let mut places: Vec<PathBuf> = match home {
        Some(home) => SECRET_STORES.iter().map(|s| home.join(s)).collect(),
        None => Vec::new(),
    };
    places.extend(config.hidden_paths.iter().cloned());
    // A place is hidden as it really is: through a link, `..` or a trailing `/` it names the
    // same folder.
    places.into_iter().map(|p| real_place(&p)).collect()
}

/// `path` through its links when it exists, else with `.` and `..` taken out.
fn real_place(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| home::lexical(path))
}

/// Names inside the workspace the model's commands may read but never change.
pub const PROTECTED_NAMES: &[&str] = &[".git", ".agent", "keyless.json"];

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
    /// Where a protected name a command made where there was none is moved (the workspace's
    /// `.agent/quarantine`, given by its owner); `None`: beside it, under a dated name.
    quarantine: Option<PathBuf>,
    /// Every repository in the workspace, found once per batch (`repos.rs`), and again within
    /// one when a folder changed while the batch paused ([`Sandbox::batch_goes_on`]).
    repositories: std::sync::Mutex<Option<repos::Repositories>>,
    /// The repositories this batch began with, where the batch found them again since: a
    /// repository a command made is told by them when the batch ends.
    began_with: std::sync::Mutex<Option<Vec<PathBuf>>>,
    /// What the proxy reaches when a command has network (`reach.rs`), found when the sandbox
    /// is made: keyless.json, the built-in list, the tools' configured registries.
    allow: std::sync::Arc<AllowList>,
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
        let home = home_folder();
        // Placeholders a killed keyless left in this workspace go before anything reads it.
        #[cfg(target_os = "linux")]
        if let Some(state) = assemble::state_dir(None, home.as_deref(), &root) {
            placeholder::clean_recorded(&state.join("placeholders"));
        }
        // `vars_os`: `vars` would panic on a variable that is not UTF-8.
        let env: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        // A settings file a command could write never widens what the proxy reaches.
        let mut writable = vec![root.clone()];
        writable.extend(config.writable_paths.iter().cloned());
        let allow = std::sync::Arc::new(AllowList::of(config, &env, home.as_deref(), &writable));
        Sandbox {
            root,
            config: config.clone(),
            platform,
            home,
            tmp: None,
            also_protected: Vec::new(),
            also_hidden: Vec::new(),
            quarantine: None,
            repositories: std::sync::Mutex::new(None),
            began_with: std::sync::Mutex::new(None),
            allow,
            #[cfg(target_os = "linux")]
            assembly: std::sync::OnceLock::new(),
        }
    }

    /// What the proxy reaches when a command has network, and where each entry came from.
    pub fn allow_list(&self) -> &AllowList {
        &self.allow
    }

    /// Moves a protected name a command made where there was none into `folder` (nothing is
    /// deleted). The workspace names the folder: the sandbox, a floor below it, builds no path
    /// into `.agent/`.
    pub fn quarantine_into(&mut self, folder: PathBuf) {
        self.quarantine = Some(folder);
    }

    /// Keeps `path` (a file of keyless's) read-only to commands wherever a command could write
    /// it: in the workspace or in one of `Sandbox.WritablePaths`.
    pub fn protect(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if !self.also_protected.contains(&path) {
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
        containment::network(&self.config, mode)
    }

    /// Whether the user turned the sandbox off.
    pub fn is_off(&self) -> bool {
        containment::is_off(&self.config)
    }

    /// What a command gets in `mode`, in this workspace: what the machine offers, less what
    /// this workspace's own folders cannot take (a file system without idmapped mounts).
    pub fn containment(&self, mode: Mode) -> Containment {
        #[cfg(target_os = "linux")]
        if let Ok(world) = &self.platform.world
            && world.remap.is_ok()
            && !self.is_off()
            && let Some(why) = self.assembly(world).remap_missing()
        {
            let mut platform = self.platform.clone();
            if let Ok(world) = &mut platform.world {
                world.remap = Err(why.clone());
            }
            return containment::of(&self.config, &platform, mode, &self.allow);
        }
        containment::of(&self.config, &self.platform, mode, &self.allow)
    }

    /// Refuses Auto mode while a guarantee is missing, unless the user accepted it
    /// (`Sandbox.AllowMissing`) or turned the sandbox off on purpose.
    pub fn check_mode(&self, mode: Mode) -> Result<(), Failure> {
        containment::check_mode(&self.config, &self.platform, mode, &self.allow)
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
        let mut paths = secret_places(self.home.as_deref(), &self.config);
        paths.extend(self.also_hidden.iter().cloned());
        paths.retain(|p| {
            p.symlink_metadata().is_ok()
                && !self.root.starts_with(p)
                && !writable.iter().any(|w| w.starts_with(p))
        });
        paths
    }

    /// The protected paths inside the workspace that exist now: every repository at any depth
    /// (a `.git` folder or file, and what a `.git` file points to where a command could write
    /// it), `.agent`, `keyless.json`, and keyless's own files there. The repositories are found
    /// once per batch.
    pub fn protected_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = PROTECTED_NAMES
            .iter()
            .map(|n| self.root.join(n))
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        let writable = |p: &Path| {
            p.starts_with(&self.root) || self.config.writable_paths.iter().any(|w| p.starts_with(w))
        };
        if let Ok(mut found) = self.repositories.lock() {
            let found = found.get_or_insert_with(|| {
                let found = repos::find(&self.root);
                if found.cut_short {
                    tracing::warn!(
                        "the workspace has more than {} entries: repositories past them are not protected",
                        repos::MAX_ENTRIES
                    );
                }
                found
            });
            paths.extend(
                found
                    .paths
                    .iter()
                    .filter(|p| writable(p) && !paths.contains(p))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
        }
        paths.extend(
            self.also_protected
                .iter()
                .filter(|p| writable(p) && p.symlink_metadata().is_ok())
                .cloned(),
        );
        paths
    }

    /// The places a command could write, sandbox or not: the workspace, `Sandbox.WritablePaths`
    /// and every build cache (a layer may be missing). What keyless itself runs outside the
    /// sandbox trusts nothing from them.
    pub fn writable_by_commands(&self) -> Vec<PathBuf> {
        let mut places = vec![self.root.clone()];
        places.extend(self.config.writable_paths.iter().cloned());
        #[cfg(target_os = "linux")]
        {
            let env = |name: &str| std::env::var(name).ok();
            places.extend(home::allowed(self.home.as_deref(), &env, &|p: &Path| p.exists()).caches);
        }
        places
            .into_iter()
            .map(|p| p.canonicalize().unwrap_or(p))
            .collect()
    }

    /// The program `name` from the first `PATH` folder no command could write (a
    /// `node_modules/.bin` or a cache's `bin` first on `PATH` is passed over): what keyless runs
    /// outside the sandbox on its own behalf (`git push`) is never one a command planted.
    pub fn trusted_program(&self, name: &str) -> Option<PathBuf> {
        let writable = self.writable_by_commands();
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.canonicalize().unwrap_or(dir))
            .filter(|dir| !writable.iter().any(|w| dir.starts_with(w)))
            .map(|dir| dir.join(name))
            .find(|candidate| {
                use std::os::unix::fs::PermissionsExt;
                candidate
                    .metadata()
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            })
    }

    /// What `@@commit` must not stage: the hidden paths and keyless's own files in the
    /// workspace.
    pub fn kept_from_commits(&self) -> Vec<PathBuf> {
        let mut paths = secret_places(self.home.as_deref(), &self.config);
        paths.extend(self.also_hidden.iter().cloned());
        paths.extend(self.also_protected.iter().cloned());
        paths
            .into_iter()
            .map(|p| p.canonicalize().unwrap_or(p))
            .filter(|p| p.starts_with(&self.root) && p != &self.root)
            .collect()
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

    /// A batch's first command is about to run: the repositories found when the last batch
    /// ended (or while the model answered) are found again if a folder of the workspace changed
    /// since (the person may have made a repository meanwhile: it is protected like the rest,
    /// and a world built ahead without it no longer fits). Told by the folders' times, without
    /// reading them again.
    pub fn batch_begins(&self) {
        if let Ok(mut began) = self.began_with.lock() {
            *began = None;
        }
        self.batch_goes_on();
    }

    /// A later command of the batch is about to run after a while (a person's confirmation, a
    /// long command): a repository the person made meanwhile is found as at a batch's start.
    /// A command of the batch may have made one too: the batch's first repositories are kept,
    /// so [`Sandbox::batch_finished`] still tells it as a command's.
    pub fn batch_goes_on(&self) {
        let Ok(mut found) = self.repositories.lock() else {
            return;
        };
        let Some(walked) = found.as_ref() else {
            return;
        };
        if walked.unchanged() {
            return;
        }
        if let Ok(mut began) = self.began_with.lock()
            && began.is_none()
        {
            *began = Some(walked.paths.clone());
        }
        *found = None;
    }

    /// Ends the batch: its temporary folder goes with everything in it, and the repositories
    /// are looked for again, so the next batch protects one a command made. A repository a
    /// command made whose settings or hooks would run a program when the person next uses git
    /// there (`core.fsmonitor`, a hook, a pager, …) is moved into the quarantine, so nothing of
    /// it runs; what was moved is said.
    pub fn batch_finished(&mut self) -> Vec<String> {
        self.tmp = None;
        let Ok(mut found) = self.repositories.lock() else {
            return Vec::new();
        };
        let began = self.began_with.lock().ok().and_then(|mut b| b.take());
        let Some(before) = began.or_else(|| found.take().map(|f| f.paths)) else {
            return Vec::new();
        };
        let after = repos::find(&self.root);
        let mut notes = Vec::new();
        for made in after.paths.iter().filter(|p| !before.contains(p)) {
            let git_dir = if made.is_dir() {
                made.clone()
            } else {
                continue;
            };
            let hazards = repos::hazards(&git_dir);
            if hazards.is_empty() || !made.starts_with(&self.root) {
                continue;
            }
            let rel = made.strip_prefix(&self.root).unwrap_or(made);
            #[cfg(unix)]
            let moved = guard::quarantine(&self.root, rel, self.quarantine.as_deref());
            #[cfg(not(unix))]
            let moved = format!("created {}", rel.display());
            notes.push(format!(
                "a command made a repository whose settings would run a program when git is used there ({}): {moved}, so nothing of it runs",
                hazards.join(", ")
            ));
        }
        // What the walk found stands for the next batch, unless a repository was moved away
        // (rare: then the workspace is walked again). A walk looks at every entry of the
        // workspace (a build's output included), so it is done once a batch, not twice.
        *found = Some(if notes.is_empty() {
            after
        } else {
            repos::find(&self.root)
        });
        notes
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

    /// A world for the model's next command, built before that command is known: its shell
    /// ([`crate::exec::WAITING_SCRIPT`]) waits for the command line, then becomes `program
    /// flag LINE` as a command started directly does. With it, the world's identity now: the
    /// world serves while [`Sandbox::identity`] still gives the same. `None` where commands
    /// run in no world of their own (the sandbox off, the fallback).
    pub fn waiting_command(
        &mut self,
        mode: Mode,
        program: &str,
        flag: &str,
    ) -> std::io::Result<Option<(Command, Contained, WorldIdentity)>> {
        #[cfg(target_os = "linux")]
        if !self.is_off() && self.platform.world.is_ok() {
            let in_batch = self.repositories.lock().is_ok_and(|found| found.is_some());
            let (mut command, contained) = self.command(
                mode,
                "sh",
                &["-c", crate::exec::WAITING_SCRIPT, program, flag],
            )?;
            for name in crate::exec::WAITING_NAMES {
                command.env_remove(name);
            }
            let identity = self.identity(mode);
            // Between batches, the repositories are found again for the command that uses the
            // world: one the person made meanwhile is theirs, not the next batch's (and
            // changes the identity).
            if !in_batch && let Ok(mut found) = self.repositories.lock() {
                *found = None;
            }
            return Ok(identity.map(|identity| (command, contained, identity)));
        }
        let _ = (mode, program, flag);
        Ok(None)
    }

    /// Whether a world built now would make a placeholder in the workspace (a protected name
    /// missing: no `.git`, no `keyless.json`).
    pub fn needs_placeholders(&self) -> bool {
        PROTECTED_NAMES
            .iter()
            .any(|name| self.root.join(name).symlink_metadata().is_err())
    }

    /// The identity of the world the model's command would get now (see
    /// [`Sandbox::waiting_command`]).
    pub fn identity(&self, mode: Mode) -> Option<WorldIdentity> {
        #[cfg(target_os = "linux")]
        if let Ok(world) = &self.platform.world
            && !self.is_off()
        {
            let network = if self.network(mode) {
                assemble::Network::On
            } else {
                assemble::Network::Off
            };
            let protected = self.protected_paths();
            return Some(self.assembly(world).identity(
                assemble::Purpose::Model,
                network,
                &protected,
            ));
        }
        let _ = mode;
        None
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
        let plain = Contained::plain();
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
            return Ok((command, Contained::plain()));
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
        let assembly = self.assembly(world);
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

    /// What this sandbox found once for building commands in the world.
    #[cfg(target_os = "linux")]
    fn assembly(&self, world: &WorldSupport) -> &assemble::Assembly {
        self.assembly.get_or_init(|| {
            let env = |name: &str| std::env::var(name).ok();
            assemble::Assembly::new(assemble::Input {
                root: &self.root,
                home: self.home.as_deref(),
                config: &self.config,
                hidden: &self.also_hidden,
                env: &env,
                state_base: None,
                remap: world.remap.clone(),
                allow: &self.allow,
            })
        })
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
            Guard::creation(&self.root, self.quarantine.clone())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_is_on_in_ask_mode_off_in_the_others_unless_configured() {
        let root = std::env::temp_dir();
        let platform = Platform {
            landlock_abi: 7,
            landlock_missing: None,
            mounts: true,
            mounts_missing: None,
            world: Err(error::SandboxError::Simulated),
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
}
