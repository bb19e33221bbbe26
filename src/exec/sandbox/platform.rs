//! What this machine can enforce for the model's commands, found once per keyless process, and
//! the guarantees that follow from it in a mode, said the same way to the person (`keyless
//! status`, `--json` too), to the model (its first message) and to `--mode auto`, which refuses
//! to start while one is missing unless `Sandbox.AllowMissing` accepts it.
//!
//! What this module does not do: build or run a contained command (`mod.rs`, `world.rs`).

use serde::Serialize;

pub use super::support::WorldSupport;

use super::error::SandboxError;

#[cfg(target_os = "linux")]
use super::limits::Hierarchy;

/// What the platform offers.
#[derive(Clone, Debug)]
pub struct Platform {
    /// The Landlock ABI version; 0 when there is none.
    pub landlock_abi: u8,
    /// Why there is no Landlock, when there is none.
    pub landlock_missing: Option<SandboxError>,
    /// Whether a private mount namespace works in keyless's own child (the fallback's
    /// read-only `.git` and masked secret stores).
    pub mounts: bool,
    pub mounts_missing: Option<SandboxError>,
    /// The world bubblewrap builds (Linux), or why there is none.
    pub world: Result<WorldSupport, SandboxError>,
}

impl Platform {
    /// Looks at what this machine offers, once per process. `KEYLESS_SANDBOX_SIMULATE`
    /// (comma-separated: `no-landlock`, `no-mounts`, `no-bwrap`, `no-kept-net`, `no-layers`,
    /// `no-cgroups`, `no-remap`, `no-seccomp`) pretends a part is missing: for tests of the fallbacks on a machine that
    /// has everything. It can only take protection away, so a command cannot use it to get out.
    pub fn detect() -> Platform {
        static FOUND: std::sync::OnceLock<Platform> = std::sync::OnceLock::new();
        FOUND.get_or_init(Platform::look).clone()
    }

    fn look() -> Platform {
        let simulate = std::env::var("KEYLESS_SANDBOX_SIMULATE").unwrap_or_default();
        let pretend = |what: &str| simulate.split(',').any(|s| s.trim() == what);
        let simulated = || SandboxError::Simulated;
        #[cfg(target_os = "linux")]
        let (abi, mounts, world) = (
            super::linux::landlock_abi(),
            super::linux::probe_mounts(),
            if pretend("no-bwrap") {
                Err(simulated())
            } else {
                super::probe::world()
            },
        );
        #[cfg(not(target_os = "linux"))]
        let (abi, mounts, world): (
            Result<u8, SandboxError>,
            Result<(), SandboxError>,
            Result<WorldSupport, SandboxError>,
        ) = (
            Err(SandboxError::LinuxOnly { part: "Landlock" }),
            Err(SandboxError::LinuxOnly {
                part: "mount namespaces",
            }),
            Err(SandboxError::LinuxOnly { part: "bubblewrap" }),
        );
        let world = world.map(|mut w| {
            if pretend("no-kept-net") {
                w.kept_net = Err(simulated());
            }
            if pretend("no-layers") {
                w.layers = Err(simulated());
            }
            if pretend("no-cgroups") {
                w.cgroups = Err(simulated());
            }
            if pretend("no-remap") {
                w.remap = Err(simulated());
            }
            if pretend("no-seccomp") {
                w.seccomp = Err(simulated());
            }
            w
        });
        let (landlock_abi, landlock_missing) = match abi {
            _ if pretend("no-landlock") => (0, Some(simulated())),
            Ok(abi) => (abi, None),
            Err(why) => (0, Some(why)),
        };
        let (mounts, mounts_missing) = match mounts {
            _ if pretend("no-mounts") => (false, Some(simulated())),
            Ok(()) => (true, None),
            Err(why) => (false, Some(why)),
        };
        Platform {
            landlock_abi,
            landlock_missing,
            mounts,
            mounts_missing,
            world,
        }
    }

    /// A platform with nothing: for tests of what is said where nothing contains commands.
    pub fn none(why: SandboxError) -> Platform {
        Platform {
            landlock_abi: 0,
            landlock_missing: Some(why.clone()),
            mounts: false,
            mounts_missing: Some(why.clone()),
            world: Err(why),
        }
    }
}

#[cfg(target_os = "linux")]
impl WorldSupport {
    /// The cgroup hierarchy commands get their limits in, when there is one.
    pub fn hierarchy(&self) -> Option<&'static Hierarchy> {
        static FOUND: std::sync::OnceLock<Result<Hierarchy, SandboxError>> =
            std::sync::OnceLock::new();
        if self.cgroups.is_err() {
            return None;
        }
        FOUND
            .get_or_init(|| {
                let found = Hierarchy::find();
                if let Ok(hierarchy) = &found {
                    hierarchy.clean_stale();
                }
                found
            })
            .as_ref()
            .ok()
    }
}

/// One guarantee the containment of a command makes, and whether it holds here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Guarantee {
    /// A stable name (`Sandbox.AllowMissing` names these).
    pub name: &'static str,
    pub holds: bool,
    /// What it means, when it holds.
    pub what: String,
    /// Why it does not, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

impl Guarantee {
    pub fn held(name: &'static str, what: impl Into<String>) -> Guarantee {
        Guarantee {
            name,
            holds: true,
            what: what.into(),
            missing: None,
        }
    }

    pub fn missing(
        name: &'static str,
        what: impl Into<String>,
        why: impl Into<String>,
    ) -> Guarantee {
        Guarantee {
            name,
            holds: false,
            what: what.into(),
            missing: Some(why.into()),
        }
    }
}
