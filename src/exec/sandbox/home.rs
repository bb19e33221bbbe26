//! Which parts of the user's home folder a model command sees. The home folder is empty in the
//! sandbox (a small private tmpfs) but for an allow-list: the toolchains' own folders, read-only,
//! and the build caches, writable through a copy-on-write layer of keyless's own (`world.rs`),
//! so that what a command writes there never reaches the caches a build outside keyless trusts.
//! Anything else (shell history, other agents' credentials, browser profiles, keyless's own
//! configuration) does not exist for the command. `Sandbox.ReadablePaths` adds to the list.
//!
//! What this module does not do: mount anything, or decide what outside the home folder is
//! visible (`world.rs`).

use std::path::{Path, PathBuf};

/// Toolchain folders under the home folder: visible read-only.
pub const TOOLCHAINS: &[&str] = &[
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".bun",
    ".deno/bin",
    ".sdkman",
    ".asdf",
    ".local/share/mise",
    ".local/bin",
    ".local/lib",
    ".rbenv",
    ".nodenv",
    ".goenv",
    ".jenv",
    ".ghcup",
    ".elan",
    ".dotnet",
    ".local/share/uv/python",
];

/// Build caches under the home folder: writable to a command through a copy-on-write layer.
pub const CACHES: &[&str] = &[
    ".cargo",
    ".npm",
    ".cache/pip",
    ".cache/uv",
    "go",
    ".cache/go-build",
    ".m2",
    ".gradle",
    ".cache/yarn",
    ".yarn/berry/cache",
    ".local/share/pnpm",
    ".cache/pnpm",
    ".cache/node-gyp",
    ".nuget/packages",
    ".cache/deno",
    ".bun/install/cache",
    ".gem",
];

/// Environment variables naming a toolchain folder wherever it lives: visible read-only.
pub const TOOLCHAIN_ENV: &[&str] = &[
    "RUSTUP_HOME",
    "PYENV_ROOT",
    "NVM_DIR",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "SDKMAN_DIR",
    "ASDF_DIR",
    "ASDF_DATA_DIR",
    "GOROOT",
    "JAVA_HOME",
    "DOTNET_ROOT",
];

/// Environment variables naming a build cache (or a tool home holding one) wherever it lives;
/// each may be a list of folders (`GOPATH`, `CONDA_PKGS_DIRS`).
pub const CACHE_ENV: &[&str] = &[
    "CARGO_HOME",
    "GOPATH",
    "GOMODCACHE",
    "GOCACHE",
    "npm_config_cache",
    "NPM_CONFIG_CACHE",
    "PIP_CACHE_DIR",
    "UV_CACHE_DIR",
    "GRADLE_USER_HOME",
    "YARN_CACHE_FOLDER",
    "YARN_GLOBAL_FOLDER",
    "DENO_DIR",
    "NUGET_PACKAGES",
    "GEM_HOME",
    "GEM_SPEC_CACHE",
    "BUNDLE_PATH",
    "BUNDLE_USER_HOME",
    "COMPOSER_HOME",
    "COMPOSER_CACHE_DIR",
    "PNPM_HOME",
    "npm_config_store_dir",
    "BUN_INSTALL_CACHE_DIR",
    "CONDA_PKGS_DIRS",
    "PUB_CACHE",
    "COURSIER_CACHE",
    "IVY_HOME",
    "SBT_GLOBAL_BASE",
    "STACK_ROOT",
    "CABAL_DIR",
    "ELM_HOME",
    "MIX_HOME",
    "HEX_HOME",
];

/// Where a tool's own settings name its cache: (the settings file under the home folder, the
/// setting). `.npmrc`'s `cache=`, pip's `cache-dir`, Maven's `<localRepository>`, yarn's
/// `cacheFolder`, …
pub const CACHE_SETTINGS: &[(&str, &str)] = &[
    (".npmrc", "cache"),
    (".npmrc", "store-dir"),
    (".config/pip/pip.conf", "cache-dir"),
    (".pip/pip.conf", "cache-dir"),
    (".m2/settings.xml", "localRepository"),
    (".yarnrc.yml", "cacheFolder"),
    (".yarnrc.yml", "globalFolder"),
    (".yarnrc", "cache-folder"),
    (".condarc", "pkgs_dirs"),
    (".gradle/gradle.properties", "gradle.user.home"),
];

/// What a command sees of the home folder and the toolchains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowed {
    /// Visible read-only.
    pub readable: Vec<PathBuf>,
    /// Writable through a copy-on-write layer.
    pub caches: Vec<PathBuf>,
}

/// The toolchains and caches that exist, for the home folder `home`, from `env` (a variable's
/// value by name) and the `PATH` folders: a `PATH` folder is visible read-only unless it is the
/// home folder itself or one of its parents (which would show everything). Folders nested in
/// another listed one are left to it; a cache always wins over a toolchain folder at the same
/// place.
pub fn allowed(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    exists: &dyn Fn(&Path) -> bool,
) -> Allowed {
    let found = allowed_with(home, env, exists, &|path: &Path| {
        std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_SETTINGS)
            .and_then(|_| std::fs::read_to_string(path).ok())
    });
    // What each path really is (through links and `..`): a link or a parent spelling must not
    // make a toolchain or cache of the home folder itself.
    let home = home.map(|h| h.canonicalize().unwrap_or_else(|_| h.to_path_buf()));
    let real = |paths: Vec<PathBuf>| -> Vec<PathBuf> {
        outermost(
            paths
                .into_iter()
                .filter_map(|p| p.canonicalize().ok())
                .filter(|p| !holds_home(p, home.as_deref()))
                .collect(),
        )
    };
    let caches = real(found.caches);
    let readable = real(found.readable)
        .into_iter()
        .filter(|p| !caches.iter().any(|c| p.starts_with(c)))
        .collect();
    Allowed { readable, caches }
}

/// Whether showing `path` would show the home folder (or the whole machine): it is the home
/// folder, a folder above it, or the root.
fn holds_home(path: &Path, home: Option<&Path>) -> bool {
    path == Path::new("/") || home.is_some_and(|h| h.starts_with(path))
}

/// The largest settings file read for where a cache is.
const MAX_SETTINGS: u64 = 256 * 1024;

/// [`allowed`], with the settings files read by `read`.
pub fn allowed_with(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    exists: &dyn Fn(&Path) -> bool,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Allowed {
    let mut caches: Vec<PathBuf> = Vec::new();
    let mut readable: Vec<PathBuf> = Vec::new();
    let from_env = |names: &[&str]| -> Vec<PathBuf> {
        names
            .iter()
            .filter_map(|n| env(n))
            .flat_map(|value| std::env::split_paths(&value).collect::<Vec<_>>())
            .filter(|p| p.is_absolute())
            .collect()
    };
    caches.extend(from_env(CACHE_ENV));
    readable.extend(from_env(TOOLCHAIN_ENV));
    // The caches that follow `XDG_CACHE_HOME` when it moves them out of `~/.cache`.
    if let Some(xdg) = env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        caches.extend(
            CACHES
                .iter()
                .filter_map(|c| c.strip_prefix(".cache/"))
                .map(|c| xdg.join(c)),
        );
    }
    if let Some(home) = home {
        caches.extend(CACHES.iter().map(|c| home.join(c)));
        readable.extend(TOOLCHAINS.iter().map(|t| home.join(t)));
        for (file, setting) in CACHE_SETTINGS {
            if let Some(text) = read(&home.join(file)) {
                caches.extend(setting_paths(&text, setting, home));
            }
        }
    }
    if let Some(path) = env("PATH") {
        for dir in std::env::split_paths(&path) {
            let too_wide =
                dir == Path::new("/") || home.is_some_and(|h| h.starts_with(&dir) || dir == h);
            if dir.is_absolute() && !too_wide {
                readable.push(dir);
            }
        }
    }
    // `..` taken out as the kernel would (lexically here; the real check resolves links too).
    let caches: Vec<PathBuf> = caches.iter().map(|p| lexical(p)).collect();
    let readable: Vec<PathBuf> = readable.iter().map(|p| lexical(p)).collect();
    let caches = outermost(
        caches
            .into_iter()
            .filter(|p| exists(p) && !holds_home(p, home))
            .collect(),
    );
    let readable = outermost(
        readable
            .into_iter()
            .filter(|p| {
                exists(p) && !holds_home(p, home) && !caches.iter().any(|c| p.starts_with(c))
            })
            .collect(),
    );
    Allowed { readable, caches }
}

/// The folders `text` (a settings file) names for `setting`: `key = value`, `key: value`,
/// `<key>value</key>`, and a YAML list under `key:`; `~/` is the home folder.
fn setting_paths(text: &str, setting: &str, home: &Path) -> Vec<PathBuf> {
    let mut values = Vec::new();
    let mut in_list = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if in_list {
            match trimmed.strip_prefix("- ") {
                Some(item) => {
                    values.push(item.trim().to_string());
                    continue;
                }
                None => in_list = false,
            }
        }
        let open = format!("<{setting}>");
        if let Some(rest) = trimmed.split_once(&open).map(|(_, r)| r) {
            if let Some((value, _)) = rest.split_once('<') {
                values.push(value.trim().to_string());
            }
            continue;
        }
        let Some(rest) = trimmed.strip_prefix(setting) else {
            continue;
        };
        let rest = rest.trim_start();
        if let Some(value) = rest.strip_prefix('=').or_else(|| rest.strip_prefix(':')) {
            let value = value.trim();
            if value.is_empty() {
                in_list = true;
            } else {
                values.push(value.to_string());
            }
        }
    }
    values
        .into_iter()
        .map(|v| v.trim_matches(['"', '\'']).to_string())
        .filter_map(|v| match v.strip_prefix("~/") {
            Some(rest) => Some(home.join(rest)),
            None => Some(PathBuf::from(v)).filter(|p| p.is_absolute()),
        })
        .collect()
}

/// `path` with `.` and `..` taken out.
pub(super) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The paths of `paths` not inside another of them, each once, in a stable order.
fn outermost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    paths.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in paths {
        if !kept.iter().any(|k| path.starts_with(k)) {
            kept.push(path);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_are_found_where_the_tools_look_for_them() {
        let home = Path::new("/home/u");
        let env = |name: &str| match name {
            "CARGO_HOME" => Some("/usr/local/cargo".into()),
            "GOPATH" => Some("/srv/go:/opt/gopath".into()),
            "XDG_CACHE_HOME" => Some("/var/cache/u".into()),
            "GEM_HOME" => Some("/opt/gems".into()),
            _ => None,
        };
        let read = |path: &Path| match path.to_str()? {
            "/home/u/.npmrc" => Some("registry=https://r.example/\ncache=/data/npm-cache\n".into()),
            "/home/u/.config/pip/pip.conf" => Some("[global]\ncache-dir = ~/pipc\n".into()),
            "/home/u/.m2/settings.xml" => Some(
                "<settings>\n  <localRepository>/data/m2</localRepository>\n</settings>\n".into(),
            ),
            "/home/u/.condarc" => {
                Some("pkgs_dirs:\n  - /data/conda\n  - ~/conda2\nchannels: []\n".into())
            }
            _ => None,
        };
        // Nothing that would show the home folder itself, however it is spelled.
        let env = |name: &str| match name {
            "GOROOT" => Some("/home/u/..".into()),
            "GOMODCACHE" => Some("/home/u".into()),
            "PATH" => Some("/home:/home/u/../u/.local/bin".into()),
            other => env(other),
        };
        let allowed = allowed_with(Some(home), &env, &|_: &Path| true, &read);
        for shown in allowed.caches.iter().chain(&allowed.readable) {
            assert!(!home.starts_with(shown), "{shown:?} shows the home folder");
        }
        assert!(
            allowed
                .readable
                .contains(&PathBuf::from("/home/u/.local/bin"))
        );
        for cache in [
            "/usr/local/cargo",
            "/srv/go",
            "/opt/gopath",
            "/var/cache/u/pip",
            "/var/cache/u/go-build",
            "/opt/gems",
            "/data/npm-cache",
            "/home/u/pipc",
            "/data/m2",
            "/data/conda",
            "/home/u/conda2",
        ] {
            assert!(
                allowed.caches.contains(&PathBuf::from(cache)),
                "{cache}: {:?}",
                allowed.caches
            );
        }
    }

    #[test]
    fn the_home_folder_shows_only_toolchains_and_caches_that_exist() {
        let home = Path::new("/home/u");
        let present = [
            "/home/u/.cargo",
            "/home/u/.rustup",
            "/home/u/.npm",
            "/home/u/.cargo/bin",
            "/home/u/.pyenv",
            "/home/u/.pyenv/shims",
            "/opt/go",
            "/usr/bin",
        ];
        let env = |name: &str| match name {
            "PATH" => Some(
                "/home/u/.cargo/bin:/home/u/.pyenv/shims:/usr/bin:/home/u:/home:/:relative".into(),
            ),
            "GOROOT" => Some("/opt/go".into()),
            _ => None,
        };
        let allowed = allowed_with(
            Some(home),
            &env,
            &|p: &Path| present.iter().any(|q| Path::new(q) == p),
            &|_: &Path| None,
        );
        assert_eq!(
            allowed.caches,
            [
                PathBuf::from("/home/u/.cargo"),
                PathBuf::from("/home/u/.npm")
            ]
        );
        assert_eq!(
            allowed.readable,
            [
                PathBuf::from("/home/u/.pyenv"),
                PathBuf::from("/home/u/.rustup"),
                PathBuf::from("/opt/go"),
                PathBuf::from("/usr/bin"),
            ]
        );
    }
}

/// The settings of a `.gitconfig` a command may see: who commits, and how line endings and the
/// default branch are set. Everything else goes: credentials and their helpers, URL rewrites
/// that carry tokens, `include` and `includeIf` (which could name any file), and every setting
/// that runs a program (`core.pager`, `core.fsmonitor`, aliases, …).
pub fn safe_gitconfig(text: &str) -> String {
    const KEPT: &[(&str, &str)] = &[
        ("user", "name"),
        ("user", "email"),
        ("init", "defaultbranch"),
        ("core", "autocrlf"),
        ("core", "eol"),
        ("core", "safecrlf"),
        ("safe", "directory"),
    ];
    let mut out = String::new();
    let mut section = String::new();
    let mut written = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(header) = trimmed.strip_prefix('[') {
            let name = header
                .split([']', ' ', '"', '.'])
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            // A subsection (`[user "x"]`, `[includeIf "…"]`) is never one of the kept ones.
            let plain = header
                .trim_end()
                .strip_suffix(']')
                .is_some_and(|h| !h.contains([' ', '"', '.']));
            section = if plain { name } else { String::new() };
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if KEPT.contains(&(section.as_str(), key.as_str())) {
            if written != section {
                out.push_str(&format!("[{section}]\n"));
                written = section.clone();
            }
            out.push_str(&format!("\t{key} = {}\n", value.trim()));
        }
    }
    out
}

#[cfg(test)]
mod gitconfig_tests {
    use super::safe_gitconfig;

    #[test]
    fn a_gitconfig_keeps_who_commits_and_nothing_that_runs_or_authenticates() {
        let text = "[user]\n\tname = Ada\n\temail = ada@example.com\n\tsigningkey = ABC\n[credential]\n\thelper = store\n[url \"https://x:ghp_abc@github.com/\"]\n\tinsteadOf = https://github.com/\n[core]\n\tpager = sh -c evil\n\tautocrlf = input\n\tfsmonitor = evil\n[include]\n\tpath = ~/.secret\n[alias]\n\tst = !evil\n[user \"x\"]\n\tname = no\n";
        assert_eq!(
            safe_gitconfig(text),
            "[user]\n\tname = Ada\n\temail = ada@example.com\n[core]\n\tautocrlf = input\n"
        );
    }
}
