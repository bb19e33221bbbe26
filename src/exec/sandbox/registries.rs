//! The registries the user's tools are configured with, read from keyless's environment and the
//! tools' own user-wide and system-wide settings when a sandbox is made, so that the proxy's
//! allow-list holds the mirrors this machine's builds really use (a company's npm registry, a
//! PyPI mirror, cargo's source replacement, a `GOPROXY`).
//!
//! Read: npm's `registry` and `@scope:registry` (`~/.npmrc`, the global `npmrc` of the `node`
//! on `PATH`, `/etc/npmrc`, `npm_config_registry`), yarn's (`~/.yarnrc`, `~/.yarnrc.yml`,
//! `YARN_NPM_REGISTRY_SERVER`), bun's (`~/.bunfig.toml`), pip's `index-url`, `extra-index-url`
//! and `find-links` (`/etc/pip.conf`, `/etc/xdg/pip/pip.conf`, `~/.pip/pip.conf`,
//! `~/.config/pip/pip.conf`, `PIP_CONFIG_FILE`, `PIP_INDEX_URL`, …), uv's (`uv.toml`,
//! `UV_INDEX_URL`, `UV_DEFAULT_INDEX`, `UV_INDEX`, …), cargo's `registry` and `index`
//! (`$CARGO_HOME/config.toml`, `CARGO_REGISTRIES_<NAME>_INDEX`), Go's `GOPROXY`, `GOSUMDB`,
//! `GOPRIVATE` and `GONOPROXY` (the environment and Go's own `env` file), Maven's mirrors
//! (`~/.m2/settings.xml`), NuGet's sources (`~/.nuget/NuGet/NuGet.Config`) and RubyGems'
//! (`~/.gemrc`). Each value is read line by line for the keys above, never run.
//!
//! What this module does not read: a project's own settings (`.npmrc`, `.cargo/config.toml`,
//! `pip.conf` in a virtual environment, …) in the workspace, because a command may write them:
//! what the model writes must never widen what its commands reach. Such a registry goes into
//! `Sandbox.NetworkAllow` in keyless.json, which commands cannot change.

use std::path::{Path, PathBuf};

use crate::hosts::{Pattern, address};

/// A registry's host found in a tool's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub pattern: Pattern,
    /// The tool (`npm`, `pip`, …).
    pub tool: &'static str,
    /// Where: a file's path, or `$VARIABLE`.
    pub place: String,
}

/// How a settings file writes its registries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `key=value` lines: `registry`, `@scope:registry`.
    Npmrc,
    /// INI: `index-url`, `extra-index-url`, `find-links`, values continued on indented lines.
    PipConf,
    /// TOML lines whose key (or the last part of a dotted key) is one of these, with a string
    /// or a list of strings.
    Toml(&'static [&'static str]),
    /// yarn 1: `registry "url"`, `"@scope:registry" "url"`.
    YarnRc,
    /// yarn 2+: `npmRegistryServer: "url"`, also under `npmScopes`.
    YarnRcYml,
    /// XML: every `<url>` (Maven's mirrors and repositories).
    MavenXml,
    /// XML: every `value="…"` that is a URL (NuGet's package sources).
    NugetXml,
    /// YAML list items `- url` (RubyGems' `:sources:`).
    GemRc,
    /// `KEY=value` lines of Go's `env` file.
    GoEnv,
}

const CARGO_KEYS: &[&str] = &["registry", "index"];
const UV_KEYS: &[&str] = &[
    "index-url",
    "extra-index-url",
    "url",
    "find-links",
    "default-index",
];
const BUN_KEYS: &[&str] = &["registry", "url"];

/// Environment variables that hold registry URLs, with their tool.
const URL_VARIABLES: &[(&str, &str)] = &[
    ("npm", "npm_config_registry"),
    ("npm", "NPM_CONFIG_REGISTRY"),
    ("yarn", "YARN_NPM_REGISTRY_SERVER"),
    ("yarn", "YARN_REGISTRY"),
    ("bun", "BUN_CONFIG_REGISTRY"),
    ("pip", "PIP_INDEX_URL"),
    ("pip", "PIP_EXTRA_INDEX_URL"),
    ("pip", "PIP_FIND_LINKS"),
    ("uv", "UV_INDEX_URL"),
    ("uv", "UV_EXTRA_INDEX_URL"),
    ("uv", "UV_DEFAULT_INDEX"),
    ("uv", "UV_INDEX"),
    ("uv", "UV_FIND_LINKS"),
];

/// The registries configured for the user's tools. `env` is keyless's environment, `home` the
/// user's home folder; files are read from the disk, but none under `writable` (the workspace,
/// `Sandbox.WritablePaths`: a command could have written it, through however a variable names it).
pub fn configured(
    env: &[(String, String)],
    home: Option<&Path>,
    writable: &[PathBuf],
) -> Vec<Found> {
    let var = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    let mut found = Vec::new();
    for (tool, name) in URL_VARIABLES {
        if let Some(value) = var(name) {
            for url in value.split_whitespace() {
                // `UV_INDEX` may name its index: `name=https://…`.
                let url = url.split_once('=').map_or(url, |(_, u)| u);
                push_url(&mut found, tool, &format!("${name}"), url);
            }
        }
    }
    for (name, value) in env {
        if name.starts_with("CARGO_REGISTRIES_") && name.ends_with("_INDEX") {
            push_url(&mut found, "cargo", &format!("${name}"), value);
        }
    }
    for name in ["GOPROXY", "GOSUMDB", "GOPRIVATE", "GONOPROXY"] {
        if let Some(value) = var(name) {
            go_setting(&mut found, name, &value, &format!("${name}"));
        }
    }
    let writable: Vec<PathBuf> = writable
        .iter()
        .map(|w| w.canonicalize().unwrap_or_else(|_| w.clone()))
        .collect();
    for (tool, path, format) in places(&var, home) {
        let real = path.canonicalize().unwrap_or_else(|_| path.clone());
        if writable.iter().any(|w| real.starts_with(w)) {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            read(&mut found, tool, &path.display().to_string(), format, &text);
        }
    }
    found
}

/// The settings files, by tool, where they are on this machine.
fn places(
    var: &dyn Fn(&str) -> Option<String>,
    home: Option<&Path>,
) -> Vec<(&'static str, PathBuf, Format)> {
    let mut out: Vec<(&'static str, PathBuf, Format)> = Vec::new();
    let config_home = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".config")));
    // npm: the user's file, the global one beside the node on PATH, the system's.
    let npm_user = var("npm_config_userconfig")
        .or_else(|| var("NPM_CONFIG_USERCONFIG"))
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".npmrc")));
    out.extend(npm_user.map(|p| ("npm", p, Format::Npmrc)));
    let npm_global = var("npm_config_globalconfig")
        .or_else(|| var("NPM_CONFIG_GLOBALCONFIG"))
        .map(PathBuf::from)
        .or_else(|| {
            var("npm_config_prefix")
                .or_else(|| var("NPM_CONFIG_PREFIX"))
                .map(PathBuf::from)
                .or_else(|| node_prefix(var("PATH").as_deref()))
                .map(|prefix| prefix.join("etc/npmrc"))
        });
    out.extend(npm_global.map(|p| ("npm", p, Format::Npmrc)));
    out.push(("npm", PathBuf::from("/etc/npmrc"), Format::Npmrc));
    // pip: system, XDG system, user (old and new), and an explicit file.
    out.push(("pip", PathBuf::from("/etc/pip.conf"), Format::PipConf));
    let xdg_dirs = var("XDG_CONFIG_DIRS").unwrap_or_else(|| "/etc/xdg".into());
    for dir in xdg_dirs.split(':').filter(|d| d.starts_with('/')) {
        out.push(("pip", Path::new(dir).join("pip/pip.conf"), Format::PipConf));
    }
    if let Some(home) = home {
        out.push(("pip", home.join(".pip/pip.conf"), Format::PipConf));
    }
    if let Some(config) = &config_home {
        out.push(("pip", config.join("pip/pip.conf"), Format::PipConf));
        out.push(("uv", config.join("uv/uv.toml"), Format::Toml(UV_KEYS)));
        out.push(("go", config.join("go/env"), Format::GoEnv));
    }
    if let Some(file) = var("PIP_CONFIG_FILE") {
        out.push(("pip", PathBuf::from(file), Format::PipConf));
    }
    out.push((
        "uv",
        PathBuf::from("/etc/uv/uv.toml"),
        Format::Toml(UV_KEYS),
    ));
    if let Some(file) = var("UV_CONFIG_FILE") {
        out.push(("uv", PathBuf::from(file), Format::Toml(UV_KEYS)));
    }
    if let Some(file) = var("GOENV").filter(|f| f != "off") {
        out.push(("go", PathBuf::from(file), Format::GoEnv));
    }
    // cargo: its home's configuration (source replacement, alternative registries).
    let cargo_home = var("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".cargo")));
    if let Some(cargo) = cargo_home {
        out.push(("cargo", cargo.join("config.toml"), Format::Toml(CARGO_KEYS)));
        out.push(("cargo", cargo.join("config"), Format::Toml(CARGO_KEYS)));
    }
    if let Some(home) = home {
        out.push(("yarn", home.join(".yarnrc"), Format::YarnRc));
        out.push(("yarn", home.join(".yarnrc.yml"), Format::YarnRcYml));
        out.push(("bun", home.join(".bunfig.toml"), Format::Toml(BUN_KEYS)));
        out.push(("maven", home.join(".m2/settings.xml"), Format::MavenXml));
        out.push((
            "nuget",
            home.join(".nuget/NuGet/NuGet.Config"),
            Format::NugetXml,
        ));
        out.push(("gem", home.join(".gemrc"), Format::GemRc));
    }
    out
}

/// The prefix npm takes its global settings from: the folder above the `bin` that holds the
/// first `node` on `path`.
fn node_prefix(path: Option<&str>) -> Option<PathBuf> {
    path?
        .split(':')
        .map(|dir| Path::new(dir).join("node"))
        .find(|node| node.is_file())
        .and_then(|node| node.canonicalize().ok())
        .and_then(|node| Some(node.parent()?.parent()?.to_path_buf()))
}

/// The registries `text` (a settings file in `format`) names.
fn read(found: &mut Vec<Found>, tool: &'static str, place: &str, format: Format, text: &str) {
    let mut add = |url: &str| push_url(found, tool, place, url);
    match format {
        Format::Npmrc => {
            for (key, value) in ini_lines(text) {
                if key == "registry" || key.ends_with(":registry") {
                    add(unquote(&value));
                }
            }
        }
        Format::PipConf => {
            let mut current = String::new();
            for line in text.lines() {
                let trimmed = line.trim();
                if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
                    continue;
                }
                let continued = line.starts_with([' ', '\t']) && !trimmed.contains('=');
                let values = if continued {
                    trimmed.to_string()
                } else if let Some((key, value)) = trimmed.split_once('=') {
                    current = key.trim().replace('_', "-");
                    value.trim().to_string()
                } else {
                    current.clear();
                    continue;
                };
                if ["index-url", "extra-index-url", "find-links"].contains(&current.as_str()) {
                    for url in values.split_whitespace() {
                        add(url);
                    }
                }
            }
        }
        Format::Toml(keys) => {
            for line in text.lines() {
                let line = line.trim();
                if line.starts_with('#') {
                    continue;
                }
                for value in toml_values(line, keys) {
                    add(&value);
                }
            }
        }
        Format::YarnRc => {
            for line in text.lines() {
                let line = line.trim();
                let Some((key, value)) = line.split_once(char::is_whitespace) else {
                    continue;
                };
                if unquote(key).ends_with("registry") {
                    add(unquote(value.trim()));
                }
            }
        }
        Format::YarnRcYml => {
            for line in text.lines() {
                if let Some((_, value)) = line.trim().split_once("npmRegistryServer:") {
                    add(unquote(value.trim()));
                }
            }
        }
        Format::MavenXml => {
            let text = without_xml_comments(text);
            for piece in text.split("<url>").skip(1) {
                if let Some((url, _)) = piece.split_once("</url>") {
                    add(url.trim());
                }
            }
        }
        Format::NugetXml => {
            let text = without_xml_comments(text);
            for piece in text.split("value=\"").skip(1) {
                if let Some((url, _)) = piece.split_once('"') {
                    add(url.trim());
                }
            }
        }
        Format::GemRc => {
            for line in text.lines() {
                if let Some(url) = line.trim().strip_prefix("- ") {
                    add(unquote(url.trim()));
                }
            }
        }
        Format::GoEnv => {
            for (key, value) in ini_lines(text) {
                go_setting(found, &key, unquote(&value), place);
            }
        }
    }
}

/// Go's settings that name hosts: `GOPROXY` (URLs separated by `,` or `|`; `direct` and `off`
/// name none), `GOSUMDB` (`name[+key] [url]`), `GOPRIVATE` and `GONOPROXY` (module path
/// patterns, whose first element is a host fetched directly).
fn go_setting(found: &mut Vec<Found>, key: &str, value: &str, place: &str) {
    match key {
        "GOPROXY" => {
            for url in value.split([',', '|']) {
                push_url(found, "go", place, url.trim());
            }
        }
        "GOSUMDB" => {
            let mut words = value.split_whitespace();
            let name = words.next().unwrap_or_default();
            match words.next() {
                Some(url) => push_url(found, "go", place, url),
                None if name != "off" => {
                    let host = name.split('+').next().unwrap_or_default();
                    push_host(found, "go", place, host);
                }
                None => {}
            }
        }
        "GOPRIVATE" | "GONOPROXY" => {
            for pattern in value.split(',') {
                let host = pattern.trim().split('/').next().unwrap_or_default();
                // Only a plain name or a leading `*.`: Go's other glob forms name no one host.
                let plain = host.strip_prefix("*.").unwrap_or(host);
                if host.contains('.') && !plain.contains(['*', '?', '[']) {
                    push_host(found, "go", place, host);
                }
            }
        }
        _ => {}
    }
}

/// Adds the host of `url` (`sparse+`, `registry+` and `git+` before the scheme are cargo's);
/// anything that is not an `http(s)` URL names no host to reach (a `file://` index, a path).
fn push_url(found: &mut Vec<Found>, tool: &'static str, place: &str, url: &str) {
    let bare = ["sparse+", "registry+", "git+"]
        .iter()
        .find_map(|p| url.strip_prefix(p))
        .unwrap_or(url);
    let Ok(parsed) = url::Url::parse(bare) else {
        return;
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return;
    }
    if let Some(host) = parsed.host_str() {
        push_host(found, tool, place, host);
    }
}

/// Adds `host`, unless it is this machine or another place commands never reach (a registry on
/// `localhost`): listing it would only claim a reach the proxy refuses.
fn push_host(found: &mut Vec<Found>, tool: &'static str, place: &str, host: &str) {
    if host.contains("${") {
        return;
    }
    let never = |pattern: &Pattern| match pattern {
        Pattern::Address(ip) => address::classify(*ip, &[]).is_some_and(|f| f.never()),
        Pattern::Name(name) => name == "localhost" || name.ends_with(".localhost"),
        _ => false,
    };
    if let Ok(pattern @ (Pattern::Name(_) | Pattern::Suffix(_) | Pattern::Address(_))) =
        Pattern::parse(host)
        && !never(&pattern)
        && !found.iter().any(|f| f.pattern == pattern)
    {
        found.push(Found {
            pattern,
            tool,
            place: place.to_string(),
        });
    }
}

/// `key = value` lines, comments (`#`, `;`) and sections skipped.
fn ini_lines(text: &str) -> impl Iterator<Item = (String, String)> + '_ {
    text.lines().filter_map(|line| {
        let line = line.trim();
        if line.starts_with(['#', ';', '[']) {
            return None;
        }
        let (key, value) = line.split_once('=')?;
        Some((key.trim().to_string(), value.trim().to_string()))
    })
}

/// The strings given to one of `keys` on a TOML line: `key = "v"`, `a.b.key = "v"`,
/// `key = ["v", "w"]`, `x = { key = "v" }`.
fn toml_values(line: &str, keys: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find('=') {
        let before = rest[..at].trim_end();
        let key = before
            .rsplit(|c: char| c.is_whitespace() || c == '{' || c == ',' || c == '.')
            .next()
            .unwrap_or_default()
            .trim_matches('"');
        let after = rest[at + 1..].trim_start();
        // An inline table: its own keys are read next.
        if let Some(inside) = after.strip_prefix('{') {
            rest = inside;
            continue;
        }
        let value_end = if after.starts_with('[') {
            after.find(']').map_or(after.len(), |e| e + 1)
        } else if let Some(quoted) = after.strip_prefix('"') {
            quoted.find('"').map_or(after.len(), |e| e + 2)
        } else if let Some(quoted) = after.strip_prefix('\'') {
            quoted.find('\'').map_or(after.len(), |e| e + 2)
        } else {
            after.find([',', '}']).unwrap_or(after.len())
        };
        if keys.contains(&key) {
            let value = &after[..value_end];
            let mut pieces = value.split(['"', '\'']);
            pieces.next();
            out.extend(pieces.step_by(2).map(str::to_string));
        }
        rest = &after[value_end..];
    }
    out
}

fn unquote(value: &str) -> &str {
    value.trim().trim_matches(|c| c == '"' || c == '\'')
}

fn without_xml_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        rest = match rest[start..].find("-->") {
            Some(end) => &rest[start + end + 3..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(found: &[Found]) -> Vec<(String, &'static str, String)> {
        found
            .iter()
            .map(|f| (f.pattern.to_string(), f.tool, f.place.clone()))
            .collect()
    }

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn every_tools_user_settings_give_their_registries_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let write = |rel: &str, text: &str| {
            let path = home.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            ".npmrc",
            "; a comment\nregistry=https://npm.corp.example/\n@acme:registry = \"https://acme.pkgs.example/npm/\"\n//npm.corp.example/:_authToken=secret\n# registry=https://commented.example/\n",
        );
        write(
            ".config/pip/pip.conf",
            "[global]\nindex-url = https://pypi.corp.example/simple\nextra-index-url =\n    https://extra-one.example/simple\n    https://extra-two.example/simple\ntimeout = 60\ncert = /etc/ssl/x.pem\nfind-links = /opt/wheels\n",
        );
        write(
            ".cargo/config.toml",
            "[source.crates-io]\nreplace-with = \"mirror\"\n\n[source.mirror]\nregistry = \"sparse+https://cargo.corp.example/index/\"\n\n[registries]\nacme = { index = \"https://dl.acme.example/git/index\" }\n[http]\nproxy = \"http://not-a-registry.example:3128\"\n",
        );
        write(
            ".config/uv/uv.toml",
            "index-url = \"https://uv-index.example/simple\"\n[[index]]\nname = \"x\"\nurl = \"https://uv-extra.example/simple\"\n",
        );
        write(".yarnrc", "registry \"https://yarn1.example/\"\n");
        write(
            ".yarnrc.yml",
            "npmRegistryServer: \"https://yarn-berry.example\"\nnpmScopes:\n  acme:\n    npmRegistryServer: https://scoped-berry.example\n",
        );
        write(
            ".m2/settings.xml",
            "<settings><mirrors><mirror><id>m</id><url>https://maven.corp.example/repo</url></mirror><!-- <mirror><url>https://old.example/</url></mirror> --></mirrors></settings>",
        );
        write(
            ".nuget/NuGet/NuGet.Config",
            "<configuration><packageSources><add key=\"corp\" value=\"https://nuget.corp.example/v3/index.json\" /><add key=\"local\" value=\"/srv/packages\" /></packageSources></configuration>",
        );
        write(".gemrc", ":sources:\n- https://gems.corp.example/\n");
        write(
            ".config/go/env",
            "GOPROXY=https://goproxy.corp.example,direct\nGOPRIVATE=*.git.corp.example,github.com/acme/*\n",
        );
        let found = configured(
            &env(&[
                (
                    "PIP_EXTRA_INDEX_URL",
                    "https://env-one.example/simple https://10.1.2.3:8443/simple",
                ),
                ("GOSUMDB", "sum.corp.example+abc123"),
                ("GOPROXY", "https://proxy.golang.org|off"),
                (
                    "CARGO_REGISTRIES_ACME2_INDEX",
                    "sparse+https://acme2.example/index/",
                ),
                ("UV_INDEX", "named=https://uv-named.example/simple"),
                ("PIP_FIND_LINKS", "/opt/wheels"),
                // This machine: never reached, so never listed.
                ("npm_config_registry", "http://localhost:4873/"),
                ("YARN_NPM_REGISTRY_SERVER", "http://127.0.0.1:4873/"),
                ("BUN_CONFIG_REGISTRY", "http://[::1]:4873/"),
                ("PATH", ""),
            ]),
            Some(home),
            &[],
        );
        let names = names(&found);
        let hosts: Vec<&str> = names.iter().map(|(h, _, _)| h.as_str()).collect();
        let expected = [
            "env-one.example",
            "10.1.2.3",
            "uv-named.example",
            "acme2.example",
            "proxy.golang.org",
            "sum.corp.example",
            "npm.corp.example",
            "acme.pkgs.example",
            "pypi.corp.example",
            "extra-one.example",
            "extra-two.example",
            "uv-index.example",
            "uv-extra.example",
            "goproxy.corp.example",
            "*.git.corp.example",
            "github.com",
            "cargo.corp.example",
            "dl.acme.example",
            "yarn1.example",
            "yarn-berry.example",
            "scoped-berry.example",
            "maven.corp.example",
            "nuget.corp.example",
            "gems.corp.example",
        ];
        assert_eq!(hosts, expected, "{names:#?}");
        let npmrc = home.join(".npmrc").display().to_string();
        assert!(names.contains(&("npm.corp.example".into(), "npm", npmrc)));
        assert!(names.contains(&(
            "env-one.example".into(),
            "pip",
            "$PIP_EXTRA_INDEX_URL".into()
        )));
    }

    #[test]
    fn nothing_configured_reads_as_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let found = configured(&env(&[("PATH", "")]), Some(dir.path()), &[]);
        // The system's own files may name registries; the empty home adds none.
        assert!(
            found
                .iter()
                .all(|f| !f.place.starts_with(&dir.path().display().to_string())),
            "{found:?}"
        );
    }
}
