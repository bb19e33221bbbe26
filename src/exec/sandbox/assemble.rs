//! Putting one contained command together on Linux: what the machine and the configuration give
//! (found once per sandbox), turned into bubblewrap's world (`world.rs`), the child's steps
//! before it (`enter.rs`), the command's cgroups (`limits.rs`), its network (`nets.rs`) and its
//! environment. What happens after the command (placeholders taken away, limits reported) is
//! [`After`].
//!
//! What this module does not do: decide whether a command runs (the policy), or in which mode.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use super::enter::{Enter, Layer};
use super::error::SandboxError;
use super::limits::{Group, Limits, Seen};
use super::placeholder::Placeholders;
use super::proxy::{Refusals, Refused};
use super::reach::AllowList;
use super::support::WorldSupport;
use super::world::{self, Entry, Sizes, Spec};
use super::{PROTECTED_NAMES, home};

/// Why a command is contained: the model's, or one of keyless's own runs in the workspace (the
/// snapshot's tool versions, the user's snapshot scripts), which gets no network and sees the
/// caches read-only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Model,
    Probe,
}

/// How a command's network is had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    Off,
    On,
}

/// What a sandbox found once: the machine's folders, the toolchains and caches, where keyless
/// keeps its own state for this workspace.
#[derive(Debug)]
pub struct Assembly {
    root: PathBuf,
    home: Option<PathBuf>,
    system: Vec<(PathBuf, Entry)>,
    readable: Vec<PathBuf>,
    /// Caches with a copy-on-write layer: (cache, layer folder).
    layered: Vec<(PathBuf, PathBuf)>,
    /// Caches that cannot have a layer (they hold the workspace or a writable path): bound
    /// read-only.
    unlayered: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    /// Secret places to mask where they are visible.
    secrets: Vec<PathBuf>,
    /// keyless's own folder for this workspace (layers, the placeholders' record).
    state: Option<PathBuf>,
    /// The home folder's `.gitconfig` as a command may see it.
    gitconfig: Option<tempfile::NamedTempFile>,
    /// Settings files of the tools' homes as a command may see them, without their secret
    /// values (`credentials.rs`): (the filtered copy, where it is shown).
    filtered: Vec<(tempfile::NamedTempFile, PathBuf)>,
    sizes: Sizes,
    limits: Limits,
    /// The parts of `/proc` covered.
    kernel: Vec<(PathBuf, world::Knob)>,
    /// Where keyless is root: the folder bubblewrap binds from when commands run unprivileged
    /// (`remap.rs`), or why they cannot in this workspace.
    remap: Result<tempfile::TempDir, SandboxError>,
    /// What the proxy reaches for a command with network.
    allow: std::sync::Arc<AllowList>,
    /// Where keyless is root and a command's uid is the machine's 0 (no `privilege` here): the
    /// files and folders of `/etc` only root may read, which such a command could read as
    /// their owner; masked.
    root_only: Vec<(PathBuf, bool)>,
    /// For the model's commands and keyless's own: the mount namespace kept ready with the
    /// layers and the stage in place (`Enter::make_ready`), made at the first command.
    ready: [std::sync::OnceLock<Option<std::os::fd::OwnedFd>>; 2],
}

/// What a world built now depends on that can change while keyless runs: whether each place it
/// binds, protects or masks is there, and which file or folder it is (a folder the person
/// replaced is another one, and a mount over the old one no longer covers it). A world built
/// ahead of its command serves only while its identity holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    purpose: Purpose,
    network: Network,
    places: Vec<(PathBuf, Option<Which>)>,
}

/// Which file or folder a place is: its device, its inode, when that inode was made, whether
/// it is a folder.
type Which = (u64, u64, (i64, i64), bool);

/// What assembling needs from the sandbox.
pub struct Input<'a> {
    pub root: &'a Path,
    pub home: Option<&'a Path>,
    pub config: &'a crate::config::SandboxConfig,
    pub hidden: &'a [PathBuf],
    /// A variable's value by name (the process's environment; a probe's own).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Where keyless's state for workspaces lives, when not in the user's cache folder.
    pub state_base: Option<&'a Path>,
    /// Whether commands may run unprivileged through idmapped mounts (keyless is root and the
    /// probe found it works); else why not.
    pub remap: Result<(), SandboxError>,
    /// What the proxy reaches.
    pub allow: &'a std::sync::Arc<AllowList>,
}

impl Assembly {
    pub fn new(input: Input<'_>) -> Assembly {
        let allowed = home::allowed(input.home, input.env, &|p: &Path| p.exists());
        let mut readable = allowed.readable;
        readable.extend(
            input
                .config
                .readable_paths
                .iter()
                .filter(|p| p.exists())
                .cloned(),
        );
        let writable: Vec<PathBuf> = input
            .config
            .writable_paths
            .iter()
            .filter(|p| p.exists())
            .cloned()
            .collect();
        let system = world::system();
        // What a system folder shows already (a `PATH` folder like `/bin`) is not bound again.
        readable.retain(|p| !system.iter().any(|(s, _)| p.starts_with(s)));
        let state = state_dir(input.state_base, input.home, input.root);
        let mut layered = Vec::new();
        let mut unlayered = Vec::new();
        // What lies in the workspace is shown with it, as it is (a cache there is the
        // workspace's own files: no layer, no bind of its own).
        readable.retain(|p| !p.starts_with(input.root));
        for cache in allowed.caches {
            if cache.starts_with(input.root) {
                continue;
            }
            // A cache overlayfs cannot be told about (a `,` or `:` in its path) has no layer: it
            // is shown read-only, never writable as it is.
            let unnameable = cache
                .as_os_str()
                .as_encoded_bytes()
                .iter()
                .any(|b| matches!(b, b',' | b':' | b'\\'));
            let holds_ours = unnameable
                || input.root.starts_with(&cache)
                || writable
                    .iter()
                    .any(|w| w.starts_with(&cache) || cache.starts_with(w));
            match &state {
                Some(state) if !holds_ours => {
                    let name = layer_name(&cache);
                    layered.push((cache, state.join("layers").join(name)));
                }
                _ => unlayered.push(cache),
            }
        }
        let mut secrets = super::secret_places(input.home, input.config);
        secrets.extend(input.hidden.iter().cloned());
        // The credential files of every tool home a command sees, wherever it lives.
        let mut filtered = Vec::new();
        let homes = writable
            .iter()
            .chain(layered.iter().map(|(cache, _)| cache))
            .chain(&unlayered)
            .map(|home| super::credentials::under(home));
        let machine = super::credentials::SYSTEM_HOMES
            .iter()
            .map(|home| super::credentials::under(Path::new(home)));
        // A toolchain keeps its settings deeper (an npm prefix's `etc/npmrc`).
        let toolchains = readable.iter().map(|root| {
            if root.is_file() {
                super::credentials::under(root)
            } else {
                super::credentials::search(root)
            }
        });
        let mut seen = std::collections::HashSet::new();
        for found in homes.chain(machine).chain(toolchains) {
            for (path, treatment) in found {
                if !seen.insert(path.clone()) {
                    continue;
                }
                match treatment {
                    super::credentials::Treatment::Filter => match filtered_copy(&path) {
                        Some(copy) => filtered.push((copy, path)),
                        None => secrets.push(path),
                    },
                    super::credentials::Treatment::Mask => secrets.push(path),
                }
            }
        }
        let gitconfig = input.home.and_then(|home| {
            let text = std::fs::read_to_string(home.join(".gitconfig")).ok()?;
            let mut file = tempfile::Builder::new()
                .prefix("keyless-gitconfig-")
                .tempfile()
                .ok()?;
            std::io::Write::write_all(&mut file, home::safe_gitconfig(&text).as_bytes()).ok()?;
            Some(file)
        });
        // Everything a command is shown from outside the system's folders must take an idmap.
        let remap = input.remap.clone().and_then(|()| {
            let mut sources: Vec<&Path> = vec![input.root];
            sources.extend(readable.iter().map(PathBuf::as_path));
            sources.extend(writable.iter().map(PathBuf::as_path));
            sources.extend(unlayered.iter().map(PathBuf::as_path));
            sources.extend(layered.iter().map(|(cache, _)| cache.as_path()));
            sources.extend(gitconfig.iter().map(|f| f.path()));
            sources.extend(filtered.iter().map(|(copy, _)| copy.path()));
            super::remap::check(&sources)?;
            // The stage must lie inside none of what is staged (a `GOPATH` of `/tmp` holding the
            // workspace): a copy of a tree cannot be attached inside itself.
            let base = STAGE_BASES
                .iter()
                .map(Path::new)
                .find(|base| base.is_dir() && !sources.iter().any(|s| base.starts_with(s)))
                .ok_or(SandboxError::NoStage)?;
            tempfile::Builder::new()
                .prefix("keyless-stage-")
                .tempdir_in(base)
                .map_err(|e| SandboxError::os("making a folder to stage the world in", e))
        });
        // SAFETY: geteuid cannot fail.
        let root_only = if unsafe { libc::geteuid() } == 0 && remap.is_err() {
            world::root_only("/etc")
        } else {
            Vec::new()
        };
        let config = input.config;
        Assembly {
            root: input.root.to_path_buf(),
            home: input.home.map(Path::to_path_buf),
            system,
            readable,
            layered,
            unlayered,
            writable,
            secrets,
            state,
            gitconfig,
            filtered,
            sizes: Sizes {
                tmp: config.tmp_mib * MIB,
                home: HOME_BYTES,
                shm: config.tmp_mib * MIB / 4,
            },
            limits: Limits {
                processes: config.max_processes,
                memory_bytes: config.max_memory_mib.unwrap_or_else(default_memory_mib) * MIB,
            },
            kernel: world::kernel_knobs(),
            remap,
            root_only,
            allow: std::sync::Arc::clone(input.allow),
            ready: Default::default(),
        }
    }

    /// Why commands in this workspace cannot run unprivileged although keyless is root and the
    /// machine allows it (a file system without idmapped mounts), or `None`.
    pub fn remap_missing(&self) -> Option<&SandboxError> {
        self.remap.as_ref().err()
    }

    /// The command that runs `program args…` contained, and what to do once it has run.
    /// The identity of the world [`Assembly::command`] builds now for `purpose`, with
    /// `protected` read-only.
    pub fn identity(&self, purpose: Purpose, network: Network, protected: &[PathBuf]) -> Identity {
        use std::os::unix::fs::MetadataExt;
        let mut places: Vec<&Path> = vec![&self.root];
        places.extend(self.home.as_deref());
        places.extend(self.system.iter().map(|(p, _)| p.as_path()));
        places.extend(self.readable.iter().map(PathBuf::as_path));
        places.extend(self.unlayered.iter().map(PathBuf::as_path));
        places.extend(self.writable.iter().map(PathBuf::as_path));
        places.extend(self.layered.iter().map(|(cache, _)| cache.as_path()));
        places.extend(protected.iter().map(PathBuf::as_path));
        places.extend(self.secrets.iter().map(PathBuf::as_path));
        places.extend(self.root_only.iter().map(|(p, _)| p.as_path()));
        let names: Vec<PathBuf> = PROTECTED_NAMES.iter().map(|n| self.root.join(n)).collect();
        let system = world::system_secrets();
        places.extend(names.iter().map(PathBuf::as_path));
        places.extend(system.iter().map(|(p, _)| p.as_path()));
        let places = places
            .into_iter()
            .map(|place| {
                // The inode's number alone is not which file it is: a number freed is given
                // again at once (ext4), to a file made where the old one was. Its birth time
                // tells them apart (where the file system keeps none, its change time).
                let seen = place.symlink_metadata().ok().map(|m| {
                    let born = m
                        .created()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or((m.ctime(), m.ctime_nsec()), |d| {
                            (
                                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                                i64::from(d.subsec_nanos()),
                            )
                        });
                    (m.dev(), m.ino(), born, m.is_dir())
                });
                (place.to_path_buf(), seen)
            })
            .collect();
        Identity {
            purpose,
            network,
            places,
        }
    }

    pub fn command(
        &self,
        support: &WorldSupport,
        purpose: Purpose,
        network: Network,
        protected: &[PathBuf],
        program: &str,
        args: &[&str],
    ) -> io::Result<(Command, After)> {
        let placeholders = match &self.state {
            Some(state) => {
                Placeholders::make(&self.root, PROTECTED_NAMES, &state.join("placeholders"))?
            }
            None => Placeholders::none(),
        };
        let mut protected: Vec<PathBuf> = protected.to_vec();
        // A placeholder another world holds (one built ahead) exists, so it is among the
        // protected paths already: bound once.
        for path in placeholders.paths() {
            if !protected.contains(path) {
                protected.push(path.clone());
            }
        }
        let layers = purpose == Purpose::Model && support.layers.is_ok();
        let remapped = support.remap.is_ok() && self.remap.is_ok();
        let mut readable = self.readable.clone();
        readable.extend(self.unlayered.iter().cloned());
        let mut writable = self.writable.clone();
        let mut enter = Enter::default();
        for (cache, folder) in &self.layered {
            if !layers {
                if purpose == Purpose::Model {
                    // No copy-on-write layer here: the cache is bound writable as it is (said
                    // in the guarantees).
                    writable.push(cache.clone());
                } else {
                    readable.push(cache.clone());
                }
                continue;
            }
            // An unprivileged command's layer is its own: what root's commands wrote there
            // would not be the command's to change.
            let folder = if remapped {
                folder.join("unprivileged")
            } else {
                folder.clone()
            };
            let (upper, work) = (folder.join("upper"), folder.join("work"));
            std::fs::create_dir_all(&upper)?;
            std::fs::create_dir_all(&work)?;
            if remapped {
                std::os::unix::fs::chown(
                    &upper,
                    Some(super::remap::COMMAND_ID),
                    Some(super::remap::COMMAND_ID),
                )?;
            }
            enter
                .layers
                .push(Layer::new(cache, &upper, &work, !support.root)?);
            writable.push(cache.clone());
        }
        let mut files = Vec::new();
        if let (Some(home), Some(file)) = (&self.home, &self.gitconfig) {
            files.push((file.path().to_path_buf(), home.join(".gitconfig")));
        }
        for (copy, shown_at) in &self.filtered {
            files.push((copy.path().to_path_buf(), shown_at.clone()));
        }
        let mut roots: Vec<&Path> = self.system.iter().map(|(p, _)| p.as_path()).collect();
        roots.extend(readable.iter().map(PathBuf::as_path));
        roots.extend(writable.iter().map(PathBuf::as_path));
        roots.push(&self.root);
        // Where the command runs as an id of no one's, the machine's secrets that only their
        // owner and group may read are already out of its reach.
        let mut masked: Vec<(PathBuf, bool)> = world::system_secrets()
            .into_iter()
            .filter(|(path, _)| {
                !remapped || world::stranger_may_read(path, super::remap::COMMAND_ID)
            })
            .collect();
        if !remapped {
            masked.extend(self.root_only.iter().cloned());
        }
        masked.extend(self.secrets.iter().filter_map(|p| {
            let meta = p.symlink_metadata().ok()?;
            (world::visible(p, &roots) && !self.root.starts_with(p))
                .then(|| (p.clone(), meta.is_dir()))
        }));
        // A mask inside another is already hidden by it (and could not be mounted in it).
        masked.sort();
        masked.dedup();
        let mut outermost: Vec<(PathBuf, bool)> = Vec::new();
        for (path, dir) in masked {
            if !outermost.iter().any(|(kept, _)| path.starts_with(kept)) {
                outermost.push((path, dir));
            }
        }
        let masked = outermost;
        let group = match support.hierarchy() {
            Some(hierarchy) => Some(hierarchy.make(self.limits)?),
            None => None,
        };
        let mut group = group;
        if let Some(group) = group.as_mut() {
            enter.cgroups = std::mem::take(&mut group.procs);
        }
        let mut unshare_net = false;
        let mut refusals = None;
        let mut proxied = false;
        match (&support.kept_net, network, purpose) {
            (Ok(()), Network::On, Purpose::Model) => {
                let kept = super::nets::kept().map_err(SandboxError::into_io)?;
                let on = kept.on(&self.allow).map_err(SandboxError::into_io)?;
                enter.join = Some(on.ns.join());
                refusals = Some(on.refusals.clone());
                proxied = true;
            }
            (Ok(()), _, _) => {
                let kept = super::nets::kept().map_err(SandboxError::into_io)?;
                enter.join = Some(kept.off.join());
            }
            // No kept namespace: a network of its own when off; the machine's when on.
            (Err(_), Network::On, Purpose::Model) => {}
            (Err(_), _, _) => unshare_net = true,
        }
        // Root's commands are limited by their cgroup (which says when the limit was met): an
        // unprivileged id's process limit would count every command at once, and meet it
        // unseen. Without a cgroup, the limit is all there is.
        enter.nproc = (!support.root || group.is_none()).then_some(self.limits.processes);
        let mut staged = Vec::new();
        if let (true, Ok(stage)) = (remapped, &self.remap) {
            let layered: Vec<&PathBuf> = enter.layers.iter().map(|l| &l.cache).collect();
            let mut prepared = Vec::new();
            let sources = std::iter::once(&self.root)
                .chain(&readable)
                .chain(&writable)
                .chain(files.iter().map(|(source, _)| source));
            for (i, source) in sources.enumerate() {
                let place = stage.path().join(i.to_string());
                let file = source.symlink_metadata().is_ok_and(|m| !m.is_dir());
                prepared.push(super::enter::Staged {
                    source: cstring(source)?,
                    place: cstring(&place)?,
                    file,
                    idmap: !layered.contains(&source),
                });
                staged.push((source.clone(), place));
            }
            enter.remap = Some(super::enter::Remap {
                attr: super::remap::MountAttr {
                    attr_set: super::remap::MOUNT_ATTR_IDMAP,
                    attr_clr: 0,
                    propagation: 0,
                    userns_fd: super::remap::idmap().map_err(SandboxError::into_io)? as u64,
                },
                stage: cstring(stage.path())?,
                staged: prepared,
                id: super::remap::COMMAND_ID,
            });
        }
        // The layers and the stage are the same for every command of this purpose: made once,
        // in a namespace each command joins.
        let slot = match purpose {
            Purpose::Model => &self.ready[0],
            Purpose::Probe => &self.ready[1],
        };
        enter.ready = slot
            .get_or_init(|| enter.make_ready())
            .as_ref()
            .map(std::os::fd::AsRawFd::as_raw_fd);
        let mut seccomp_fds = Vec::new();
        if support.seccomp.is_ok() {
            let programs = super::seccomp::programs().map_err(SandboxError::into_io)?;
            let slots = super::enter::seccomp_slots(programs.len());
            for (program, slot) in programs.iter().zip(slots) {
                enter.seccomp.push((super::enter::readable(program)?, slot));
                seccomp_fds.push(slot);
            }
        }
        let spec = Spec {
            workspace: self.root.clone(),
            home: self.home.clone(),
            system: self.system.clone(),
            readable,
            writable,
            protected,
            masked,
            files,
            sizes: self.sizes,
            unshare_net,
            // Run as an id of no one's, a command can write no knob and read no root-only file
            // anyway: `/proc/sys` and the SysRq trigger stay covered as a second wall, the rest
            // (two dozen binds a command) only where the command's uid is the machine's 0.
            kernel: if remapped {
                self.kernel
                    .iter()
                    .filter(|(path, _)| world::KERNEL_ALWAYS.iter().any(|k| path == Path::new(k)))
                    .cloned()
                    .collect()
            } else {
                self.kernel.clone()
            },
            seccomp_fds,
            staged,
        };
        let mut command = Command::new(&support.bwrap);
        command.args(world::args(&spec, program, args));
        enter.finish()?.install(&mut command);
        command
            .env("TMPDIR", "/tmp")
            .env("KEYLESS_SANDBOX", "1")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("XAUTHORITY");
        if proxied {
            let url = format!("http://127.0.0.1:{}", super::nets::PROXY_PORT);
            for name in [
                "HTTP_PROXY",
                "HTTPS_PROXY",
                "ALL_PROXY",
                "http_proxy",
                "https_proxy",
                "all_proxy",
                "npm_config_proxy",
                "npm_config_https_proxy",
            ] {
                command.env(name, &url);
            }
            command
                .env("NO_PROXY", "localhost,127.0.0.1,::1")
                .env("no_proxy", "localhost,127.0.0.1,::1")
                .env("NODE_USE_ENV_PROXY", "1");
        }
        Ok((
            command,
            After {
                placeholders,
                group,
                refusals,
                limits: self.limits,
                tmp_bytes: self.sizes.tmp,
            },
        ))
    }
}

/// A copy of the settings file at `path` without its secret values, or `None` when it cannot
/// be made (then the file is masked instead).
fn filtered_copy(path: &Path) -> Option<tempfile::NamedTempFile> {
    let meta = path.metadata().ok()?;
    if !meta.is_file() || meta.len() > super::credentials::MAX_FILTERED {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let mut file = tempfile::Builder::new()
        .prefix("keyless-settings-")
        .tempfile()
        .ok()?;
    std::io::Write::write_all(&mut file, super::credentials::filtered(&text).as_bytes()).ok()?;
    Some(file)
}

fn cstring(path: &Path) -> io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        SandboxError::NulInPath {
            path: path.to_path_buf(),
        }
        .into_io()
    })
}

/// Where the folder bubblewrap binds from may go: a place anyone may enter.
const STAGE_BASES: &[&str] = &["/tmp", "/var/tmp", "/dev/shm", "/run"];

/// One MiB.
const MIB: u64 = 1024 * 1024;
/// The home folder's own tmpfs: dot-files a tool writes, not builds (they go to the caches and
/// the workspace).
const HOME_BYTES: u64 = 256 * MIB;

/// Half of the machine's memory, the memory limit when `Sandbox.MaxMemoryMiB` sets none.
fn default_memory_mib() -> u64 {
    let total_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .unwrap_or(8 * 1024 * 1024);
    (total_kib / 1024 / 2).max(512)
}

/// keyless's own folder for the workspace at `root`: `$XDG_CACHE_HOME/keyless/sandbox/<hash>`
/// (or `~/.cache/…`). Never visible to a command (the home folder is not).
pub fn state_dir(base: Option<&Path>, home: Option<&Path>, root: &Path) -> Option<PathBuf> {
    let cache = base.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| home.map(|h| h.join(".cache")))
    })?;
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Some(cache.join("keyless").join("sandbox").join(hash))
}

/// A layer folder's name for `cache`: its last part and a hash of the whole path.
fn layer_name(cache: &Path) -> OsString {
    let digest = Sha256::digest(cache.as_os_str().as_encoded_bytes());
    let hash: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let last: String = cache
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    OsString::from(format!("{last}-{hash}"))
}

/// What to do once a contained command has run.
#[derive(Debug)]
pub struct After {
    placeholders: Placeholders,
    group: Option<Group>,
    refusals: Option<Refusals>,
    limits: Limits,
    tmp_bytes: u64,
}

/// What the command met at the sandbox's edges.
#[derive(Debug, Default)]
pub struct Met {
    pub seen: Seen,
    /// Destinations the proxy refused.
    pub refused: Vec<Refused>,
    pub limits: Option<Limits>,
    pub tmp_bytes: u64,
}

impl After {
    /// Takes the placeholders away and reads the cgroups.
    pub fn finish(self) -> Met {
        self.placeholders.remove();
        Met {
            seen: self.group.map(Group::finish).unwrap_or_default(),
            refused: self.refusals.map(|r| r.take()).unwrap_or_default(),
            limits: Some(self.limits),
            tmp_bytes: self.tmp_bytes,
        }
    }
}
