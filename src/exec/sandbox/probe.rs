//! Finding out once what the world can be on this machine: is bubblewrap there and new enough,
//! does a world start at all, can keyless keep network namespaces, mount copy-on-write layers,
//! make cgroups. Each part is tried for real with a harmless command in a folder of its own, so
//! what `keyless status` says is what commands will get.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::assemble::{Assembly, Input, Network, Purpose};
use super::error::SandboxError;
use super::support::WorldSupport;

/// The oldest bubblewrap with everything the world uses (`--disable-userns`, `--size`).
const OLDEST: (u32, u32) = (0, 8);

/// Where bubblewrap is looked for first: the distribution's copy, which Ubuntu's AppArmor
/// rules let make user namespaces (a copy elsewhere is refused there).
const SYSTEM_BWRAP: &str = "/usr/bin/bwrap";

/// What the world can be here, or why there is none.
pub fn world() -> Result<WorldSupport, SandboxError> {
    let bwrap = find().ok_or(SandboxError::NoBubblewrap)?;
    let version = Command::new(&bwrap)
        .arg("--version")
        .output()
        .map_err(|e| SandboxError::os(format!("running {}", bwrap.display()), e))?;
    let text = String::from_utf8_lossy(&version.stdout);
    let number = text.split_whitespace().nth(1).unwrap_or_default();
    let mut parts = number.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if found < OLDEST {
        return Err(SandboxError::OldBubblewrap {
            version: number.to_string(),
            oldest: OLDEST,
            path: bwrap,
        });
    }
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let support = WorldSupport {
        bwrap,
        kept_net: super::nets::kept().map(|_| ()),
        layers: Ok(()),
        cgroups: super::limits::Hierarchy::find().map(|_| ()),
        seccomp: super::seccomp::programs().map(|_| ()),
        remap: if root {
            super::remap::idmap().map(|_| ())
        } else {
            Err(SandboxError::NotRoot)
        },
        root,
    };
    let dir = tempfile::Builder::new()
        .prefix("keyless-probe-")
        .tempdir()
        .map_err(|e| SandboxError::os("making a folder for the probe", e))?;
    let folder = dir;
    let dir = folder.path();
    // Everything at once first, the layers where the real ones live: on a machine that has
    // it all (the usual case) one command says so. Only when it fails is each part tried alone,
    // to name the one that is missing.
    let layers_base = layers_base();
    let whole = try_world(&support, dir, true, layers_base.as_deref());
    if let Some(base) = &layers_base {
        let _ = std::fs::remove_dir_all(base);
    }
    if whole.is_ok() {
        return Ok(support);
    }
    each_part(support, dir)
}

/// Tries each part of the world alone, after a world with nothing optional: what fails is
/// reported missing, with why.
fn each_part(mut support: WorldSupport, dir: &Path) -> Result<WorldSupport, SandboxError> {
    // A world with nothing optional first: if it fails, there is no world.
    let bare = WorldSupport {
        kept_net: Err(SandboxError::LeftOut),
        layers: Err(SandboxError::LeftOut),
        cgroups: Err(SandboxError::LeftOut),
        seccomp: Err(SandboxError::LeftOut),
        remap: Err(SandboxError::LeftOut),
        ..support.clone()
    };
    try_world(&bare, dir, false, None)
        .map_err(|e| e.in_part("bubblewrap could not build a world"))?;
    if support.kept_net.is_ok() {
        let only_net = WorldSupport {
            layers: Err(SandboxError::LeftOut),
            cgroups: Err(SandboxError::LeftOut),
            seccomp: Err(SandboxError::LeftOut),
            ..support.clone()
        };
        if let Err(e) = try_world(&only_net, dir, false, None) {
            support.kept_net =
                Err(e.in_part("a command could not join the kept network namespace"));
        }
    }
    if support.cgroups.is_ok() {
        let only_cgroups = WorldSupport {
            layers: Err(SandboxError::LeftOut),
            kept_net: Err(SandboxError::LeftOut),
            seccomp: Err(SandboxError::LeftOut),
            ..support.clone()
        };
        if let Err(e) = try_world(&only_cgroups, dir, false, None) {
            support.cgroups = Err(e.in_part("a command could not join its cgroup"));
        }
    }
    if support.seccomp.is_ok() {
        let only_seccomp = WorldSupport {
            layers: Err(SandboxError::LeftOut),
            kept_net: Err(SandboxError::LeftOut),
            cgroups: Err(SandboxError::LeftOut),
            remap: Err(SandboxError::LeftOut),
            ..support.clone()
        };
        if let Err(e) = try_world(&only_seccomp, dir, false, None) {
            support.seccomp = Err(e.in_part("bubblewrap could not load the seccomp filter"));
        }
    }
    let only_layers = WorldSupport {
        kept_net: Err(SandboxError::LeftOut),
        cgroups: Err(SandboxError::LeftOut),
        seccomp: Err(SandboxError::LeftOut),
        remap: Err(SandboxError::LeftOut),
        ..support.clone()
    };
    // The layers are tried where the real ones will live (keyless's cache folder), whose file
    // system may take no overlay's upper layer (an overlay root in a container) although the
    // temporary folder's does: what is said must hold for the caches themselves.
    let layers_base = layers_base();
    let result = try_world(&only_layers, dir, true, layers_base.as_deref());
    if let Some(base) = &layers_base {
        let _ = std::fs::remove_dir_all(base);
    }
    if let Err(e) = result {
        support.layers = Err(e.in_part("a copy-on-write layer over a cache could not be mounted"));
    }
    if support.remap.is_ok() {
        // With the layers, as commands use them: a cache's lower layer is idmapped too.
        let remapped = WorldSupport {
            kept_net: Err(SandboxError::LeftOut),
            cgroups: Err(SandboxError::LeftOut),
            seccomp: Err(SandboxError::LeftOut),
            ..support.clone()
        };
        if let Err(e) = try_world(&remapped, dir, false, None).and_then(|()| match support.layers {
            Ok(()) => try_world(&remapped, dir, true, None),
            Err(_) => Ok(()),
        }) {
            support.remap = Err(e.in_part("a command could not run unprivileged"));
        }
    }
    Ok(support)
}

/// A folder of this probe's own beside the real layers' (`$XDG_CACHE_HOME/keyless`, else
/// `~/.cache/keyless`), when there is such a place.
fn layers_base() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let real = super::assemble::state_dir(None, home.as_deref(), Path::new("/"))?;
    // …/keyless/sandbox/<hash>: the probe's folder goes beside `sandbox`.
    let keyless = real.parent()?.parent()?;
    let base = keyless.join(format!("probe-{}", std::process::id()));
    std::fs::create_dir_all(&base).ok()?;
    Some(base)
}

/// bubblewrap: the system's copy, else the first on `PATH`.
fn find() -> Option<PathBuf> {
    let system = Path::new(SYSTEM_BWRAP);
    if system.is_file() {
        return Some(system.to_path_buf());
    }
    crate::exec::which::find_on_path("bwrap")
}

/// Runs a command that writes into a workspace (and a cache, with `layers`) in a world with
/// `support`, and checks what it did: the workspace written, the cache's own files unchanged.
/// keyless's state (the layers) goes in `state_base`, else in `dir`.
fn try_world(
    support: &WorldSupport,
    dir: &Path,
    layers: bool,
    state_base: Option<&Path>,
) -> Result<(), SandboxError> {
    let root = dir.join(if layers { "ws-layers" } else { "ws" });
    let home = dir.join(if layers { "home-layers" } else { "home" });
    let cache = home.join(".npm");
    for folder in [&root, &cache] {
        std::fs::create_dir_all(folder)
            .map_err(|e| SandboxError::os(format!("making {}", folder.display()), e))?;
    }
    std::fs::write(cache.join("kept"), "as it was")
        .map_err(|e| SandboxError::os("writing the probe's cache file", e))?;
    let config = crate::config::SandboxConfig::default();
    let assembly = Assembly::new(Input {
        root: &root,
        home: Some(&home),
        config: &config,
        hidden: &[],
        env: &|name: &str| (name == "PATH").then(|| "/usr/bin:/bin".to_string()),
        remap: support.remap.clone(),
        state_base: Some(
            &state_base
                .map(Path::to_path_buf)
                .unwrap_or_else(|| dir.join(if layers { "state-layers" } else { "state" })),
        ),
        // The probe's command has no network: it reaches nothing.
        allow: &std::sync::Arc::new(super::reach::AllowList::default()),
    });
    let line = format!(
        "echo ok > probe.txt{}",
        if layers {
            format!(
                " && echo changed > {0}/kept && echo new > {0}/new",
                cache.display()
            )
        } else {
            String::new()
        }
    );
    let (mut command, after) = assembly
        .command(
            support,
            Purpose::Model,
            Network::Off,
            &[],
            "/bin/sh",
            &["-c", &line],
        )
        .map_err(|e| SandboxError::os("assembling the probe's world", e))?;
    let output = command
        .current_dir(&root)
        .stdin(Stdio::null())
        .env("HOME", &home)
        .output()
        .map_err(|e| SandboxError::os("running the probe's world", e))?;
    after.finish();
    if !output.status.success() {
        return Err(SandboxError::World {
            said: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            status: output.status,
        });
    }
    if std::fs::read_to_string(root.join("probe.txt")).unwrap_or_default() != "ok\n" {
        return Err(SandboxError::Unfaithful {
            found: "the command's write did not reach the workspace",
        });
    }
    if layers && std::fs::read_to_string(cache.join("kept")).unwrap_or_default() != "as it was" {
        return Err(SandboxError::Unfaithful {
            found: "a write went through the layer into the cache",
        });
    }
    Ok(())
}
