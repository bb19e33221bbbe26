//! The sandbox around every process keyless starts for the model: what a `@@runcommand` (and
//! everything it spawns) can reach, enforced by the operating system, whatever the command line
//! says. The command policy decides when a person is asked; the sandbox decides what a command
//! can touch at all.
//!
//! On Linux (`linux.rs`), in the forked child before it runs the shell:
//! 1. a private mount namespace (a user namespace too when keyless is not root) in which `.git`
//!    (every one found), `.agent` and `keyless.json` are bind-mounted read-only, and the user's
//!    secret stores are masked: an empty read-only folder, or `/dev/null` for a file;
//! 2. Landlock: writing, creating, removing and renaming only beneath the workspace, the batch's
//!    private temporary folder (`TMPDIR`), the build caches and `Sandbox.WritablePaths`; TCP
//!    connect and bind refused when the network is off; no signals to processes outside the
//!    sandbox.
//!
//! Where no mount namespace can be had, Landlock still bounds every write, and the [`guard`]
//! fingerprints the protected paths before each command and puts them back after it. Paths that
//! did not exist (`.git` in a folder that is no repository) cannot be mounted over: the guard
//! moves what a command created there into `.agent/quarantine/`. macOS (`seatbelt.rs`) and
//! Windows: see `docs/sandbox.md`; neither has run here.
//!
//! The environment is filtered on every platform, sandbox or not: variables whose names mark them
//! as secret never reach the model's processes (a command could print them re-encoded, which no
//! redactor can catch).
//!
//! What this module does not do: decide whether a command may run (the policy and the batch
//! engine do), or keep secrets out of what is sent (the redactor does).

#[cfg(unix)]
pub mod guard;
#[cfg(not(unix))]
#[path = "guard_none.rs"]
pub mod guard;
#[cfg(target_os = "linux")]
mod linux;
pub mod seatbelt;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::catalog::{Code, Failure};
use crate::config::{Mode, SandboxConfig, SandboxMode};

use guard::Guard;

/// The secret stores masked inside the sandbox, relative to the home folder.
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

/// What the platform can enforce, found once per keyless process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    /// The Landlock ABI version; 0 when there is none.
    pub landlock_abi: u8,
    /// Why there is no Landlock, when there is none.
    pub landlock_missing: Option<String>,
    /// Whether a private mount namespace works (read-only `.git`, masked secret stores).
    pub mounts: bool,
    /// Why there is none, when there is none.
    pub mounts_missing: Option<String>,
}

impl Platform {
    /// Looks at what this machine offers. `KEYLESS_SANDBOX_SIMULATE` (`no-landlock`,
    /// `no-mounts`, or both, comma-separated) pretends a part is missing: for tests of the
    /// fallbacks on a machine that has everything. It can only take protection away, so a
    /// command cannot use it to get out.
    pub fn detect() -> Platform {
        static FOUND: std::sync::OnceLock<Platform> = std::sync::OnceLock::new();
        FOUND.get_or_init(Platform::look).clone()
    }

    fn look() -> Platform {
        let simulate = std::env::var("KEYLESS_SANDBOX_SIMULATE").unwrap_or_default();
        let pretend = |what: &str| simulate.split(',').any(|s| s.trim() == what);
        #[cfg(target_os = "linux")]
        let (abi, mounts) = (linux::landlock_abi(), linux::probe_mounts());
        #[cfg(not(target_os = "linux"))]
        let (abi, mounts): (Result<u8, String>, Result<(), String>) = (
            Err("Landlock is Linux only".to_string()),
            Err("mount namespaces are Linux only".to_string()),
        );
        let (landlock_abi, landlock_missing) = match abi {
            _ if pretend("no-landlock") => (0, Some("simulated (KEYLESS_SANDBOX_SIMULATE)".into())),
            Ok(abi) => (abi, None),
            Err(why) => (0, Some(why)),
        };
        let (mounts, mounts_missing) = match mounts {
            _ if pretend("no-mounts") => {
                (false, Some("simulated (KEYLESS_SANDBOX_SIMULATE)".into()))
            }
            Ok(()) => (true, None),
            Err(why) => (false, Some(why)),
        };
        Platform {
            landlock_abi,
            landlock_missing,
            mounts,
            mounts_missing,
        }
    }
}

/// How the protected paths inside the workspace are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protection {
    /// Read-only bind mounts: a write fails.
    ReadOnlyMounts,
    /// Fingerprinted before, checked and put back after each command.
    Restored,
}

/// The containment a command gets, as a person and the model are told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Containment {
    /// `None` when the sandbox is off or nothing can enforce it.
    pub landlock_abi: Option<u8>,
    pub network: bool,
    pub protection: Protection,
    pub secrets_masked: bool,
    /// What is missing and why, or that the user turned the sandbox off.
    pub missing: Vec<String>,
}

impl Containment {
    /// One line: `sandbox: landlock ABI 7, network off, .git .agent keyless.json read-only,
    /// secrets masked`, or what is missing and why.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        match self.landlock_abi {
            Some(abi) => parts.push(format!(
                "landlock ABI {abi} (writes only in the workspace, $TMPDIR and build caches)"
            )),
            None => parts.push("no OS sandbox: commands can write anywhere the user can".into()),
        }
        parts.push(format!(
            "network {}",
            if self.network { "on" } else { "off" }
        ));
        parts.push(match self.protection {
            Protection::ReadOnlyMounts => ".git .agent keyless.json read-only".into(),
            Protection::Restored => {
                ".git .agent keyless.json checked after each command and put back".into()
            }
        });
        parts.push(if self.secrets_masked {
            "secret stores masked".into()
        } else {
            "secret stores not masked".into()
        });
        parts.push("secret environment variables withheld".into());
        let mut line = format!("sandbox: {}", parts.join(", "));
        if !self.missing.is_empty() {
            line.push_str(&format!(" ({})", self.missing.join("; ")));
        }
        line
    }
}

/// The sandbox of one workspace: its configuration, what the platform offers, and the current
/// batch's temporary folder.
#[derive(Debug)]
pub struct Sandbox {
    root: PathBuf,
    config: SandboxConfig,
    platform: Platform,
    home: Option<PathBuf>,
    tmp: Option<tempfile::TempDir>,
}

impl Sandbox {
    /// The sandbox for the workspace at `root`.
    pub fn new(root: &Path, config: &SandboxConfig) -> Sandbox {
        Sandbox::with_platform(root, config, Platform::detect())
    }

    /// The sandbox with a platform already detected.
    pub fn with_platform(root: &Path, config: &SandboxConfig, platform: Platform) -> Sandbox {
        Sandbox {
            root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
            config: config.clone(),
            platform,
            home: std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute()),
            tmp: None,
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

    /// What a command gets in `mode`.
    pub fn containment(&self, mode: Mode) -> Containment {
        let mut missing = Vec::new();
        if self.is_off() {
            missing.push("turned off by Sandbox.Mode \"off\"".to_string());
            return Containment {
                landlock_abi: None,
                network: true,
                protection: Protection::Restored,
                secrets_masked: false,
                missing,
            };
        }
        if let Some(why) = &self.platform.landlock_missing {
            missing.push(format!("no Landlock: {why}"));
        }
        if let Some(why) = &self.platform.mounts_missing {
            missing.push(format!("no mount namespace: {why}"));
        }
        let landlock = self.platform.landlock_abi > 0;
        // Without Landlock's TCP rules (ABI 4) the network cannot be switched off.
        let network = self.network(mode) || !landlock || self.platform.landlock_abi < 4;
        if !self.network(mode) && network && landlock {
            missing.push(format!(
                "network stays on: Landlock ABI {} has no TCP rules (ABI 4, Linux 6.7)",
                self.platform.landlock_abi
            ));
        }
        Containment {
            landlock_abi: landlock.then_some(self.platform.landlock_abi),
            network,
            protection: if self.platform.mounts {
                Protection::ReadOnlyMounts
            } else {
                Protection::Restored
            },
            secrets_masked: self.platform.mounts,
            missing,
        }
    }

    /// Refuses Auto mode where nothing can contain the model's commands, unless the user turned
    /// the sandbox off on purpose.
    pub fn check_mode(&self, mode: Mode) -> Result<(), Failure> {
        if mode != Mode::Auto || self.is_off() || self.platform.landlock_abi > 0 {
            return Ok(());
        }
        Err(Failure::new(
            Code::SandboxUnavailable,
            format!(
                "--mode auto runs every command without asking, and this machine cannot contain them ({}). Use --mode ask or autosafe, or set \"Sandbox\": {{\"Mode\": \"off\"}} in keyless.json to run unconfined on purpose.",
                self.platform
                    .landlock_missing
                    .as_deref()
                    .unwrap_or("no sandbox on this platform")
            ),
        ))
    }

    /// The folders a command may write besides the workspace and its temporary folder: the
    /// build caches that exist (only their cache parts: never `~/.cargo/bin` or a config file),
    /// and `Sandbox.WritablePaths`.
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

    /// The secret stores masked inside the sandbox: those that exist, and that hold neither the
    /// workspace nor one of `writable` (what [`Sandbox::writable_paths`] gave).
    pub fn hidden_paths(&self, writable: &[PathBuf]) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = match &self.home {
            Some(home) => SECRET_STORES.iter().map(|s| home.join(s)).collect(),
            None => Vec::new(),
        };
        paths.extend(self.config.hidden_paths.iter().cloned());
        paths.retain(|p| {
            p.symlink_metadata().is_ok()
                && !self.root.starts_with(p)
                && !writable.iter().any(|w| w.starts_with(p))
        });
        paths
    }

    /// The protected paths inside the workspace that exist now: `.git` (nested ones too),
    /// `.agent` and `keyless.json`.
    pub fn protected_paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = PROTECTED_NAMES
            .iter()
            .map(|n| self.root.join(n))
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        guard::nested_git(&self.root, &mut paths);
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
    /// `mode`, and what to check once it has run. The protected paths are fingerprinted here.
    pub fn command(
        &mut self,
        mode: Mode,
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
            };
            return Ok((command, contained));
        }
        let tmp = self.tmp()?;
        let extra = self.writable_paths();
        let hidden = self.hidden_paths(&extra);
        let mut writable = vec![self.root.clone(), tmp.clone()];
        writable.extend(extra);
        let network = self.network(mode);
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
        };
        Ok((command, contained))
    }
}

/// A command prepared by [`Sandbox::command`]: what to check once it has run.
#[derive(Debug)]
pub struct Contained {
    guard: Guard,
    active: bool,
    writable: Vec<PathBuf>,
}

impl Contained {
    /// After the command: puts back whatever it changed among the protected paths, and says
    /// whether the sandbox refused it something. `failed` is whether the command failed;
    /// `output` is what it printed.
    pub fn finish(self, failed: bool, output: &str) -> Option<Refusal> {
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
        let line = denial_line(output)?;
        if !failed {
            return Some(Refusal::Noted(format!(
                "note: the command succeeded, but the sandbox may have refused it something: {}",
                line.trim()
            )));
        }
        Some(Refusal::Refused(Failure::new(
            Code::SandboxDenied,
            format!(
                "the sandbox refused an access ({}). Commands may write only in the workspace (not .git, .agent or keyless.json), in $TMPDIR ({}) and in the build caches; secret stores read as empty; the network may be off. Do it inside the workspace, or tell the user what you need.",
                line.trim(),
                self.writable
                    .get(1)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ),
        )))
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
        };
        let root = std::env::temp_dir();
        let line = Sandbox::with_platform(&root, &SandboxConfig::default(), old)
            .containment(Mode::Auto)
            .line();
        assert!(line.contains("landlock ABI 3"), "{line}");
        assert!(line.contains("network on"), "{line}");
        assert!(line.contains("no TCP rules"), "{line}");
        assert!(line.contains("checked after each command"), "{line}");
        assert!(line.contains("user namespaces are off"), "{line}");
    }
}
