//! The credential files of the package ecosystems and tools, found wherever their homes are: a
//! command sees the build caches and toolchains (`home.rs`), and those homes hold publishing
//! credentials beside the caches (`credentials.toml` in a cargo home that may be
//! `/usr/local/cargo`, Maven's `settings.xml` servers, Gradle's `gradle.properties`, RubyGems'
//! `credentials`, …). Each is either **masked** (a file that holds nothing a build needs reads
//! as empty) or **filtered** (a settings file a build needs, shown without its secret values:
//! registry mirrors stay, tokens and passwords go).
//!
//! The list is by file name relative to a tool's home, looked for in every home the world shows,
//! so a home moved by an environment variable (`CARGO_HOME`, `GRADLE_USER_HOME`, `GEM_HOME`,
//! `COMPOSER_HOME`, …) is covered as the default one is. `docs/sandbox.md` lists it.
//!
//! What this module does not do: mount anything (`world.rs` binds what it says), or redact what
//! a command prints (the redactor does, as the second line).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

/// What is done to a credential file a command could see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Treatment {
    /// Read as empty.
    Mask,
    /// Shown without the values of its secret settings.
    Filter,
}

/// Credential files by their place in a tool's home.
pub const FILES: &[(&str, Treatment)] = &[
    // cargo: registry tokens, and a config.toml that may carry `[registry] token`.
    ("credentials", Treatment::Mask),
    ("credentials.toml", Treatment::Mask),
    ("config.toml", Treatment::Filter),
    ("config", Treatment::Filter),
    // Maven: servers' passwords; the master password.
    ("settings.xml", Treatment::Filter),
    ("settings-security.xml", Treatment::Mask),
    // Gradle: publishing and signing passwords beside the build's own properties.
    ("gradle.properties", Treatment::Filter),
    ("init.d", Treatment::Mask),
    // RubyGems and Bundler.
    ("credentials.yaml", Treatment::Mask),
    ("config.yml", Treatment::Filter),
    // npm, yarn, pnpm, bun.
    (".npmrc", Treatment::Filter),
    ("npmrc", Treatment::Filter),
    (".yarnrc.yml", Treatment::Filter),
    (".yarnrc", Treatment::Filter),
    ("rc", Treatment::Filter),
    ("bunfig.toml", Treatment::Filter),
    // Python.
    (".pypirc", Treatment::Mask),
    ("pip.conf", Treatment::Filter),
    ("pip.ini", Treatment::Filter),
    // Composer, NuGet, Docker, Helm, Terraform, Conda.
    ("auth.json", Treatment::Mask),
    ("NuGet/NuGet.Config", Treatment::Filter),
    ("NuGet.Config", Treatment::Filter),
    ("config.json", Treatment::Filter),
    ("credentials.tfrc.json", Treatment::Mask),
    ("repositories.yaml", Treatment::Filter),
    (".condarc", Treatment::Filter),
    // git's system-wide settings (`http.extraheader`, a token in a `url.…insteadOf`).
    ("gitconfig", Treatment::Filter),
    // Any tool: the generic stores.
    (".netrc", Treatment::Mask),
    ("_netrc", Treatment::Mask),
    (".git-credentials", Treatment::Mask),
    (".pgpass", Treatment::Mask),
];

/// The machine's own settings folders the world shows (in `/etc` and the system's tool homes):
/// their credential files are treated as a user's are.
pub const SYSTEM_HOMES: &[&str] = &[
    "/etc",
    "/etc/xdg/pip",
    "/etc/maven",
    "/etc/containers",
    "/etc/docker",
    "/usr/share/maven/conf",
    "/usr/local/etc",
];

/// The machine's own files named like a tool's credential file that hold none: the system's
/// init scripts in `/etc/init.d` are no Gradle init scripts (a mask there would only cost every
/// command's world two mounts).
const NOT_CREDENTIALS: &[&str] = &["/etc/init.d"];

/// How deep, and through how many entries, a toolchain's folder is searched for credential
/// files (an npm prefix's `etc/npmrc` lies five folders down in nvm's and six in Volta's;
/// pyenv's `versions/X/pip.conf` two; SDKMAN's Maven `conf/settings.xml` four).
const SEARCH_DEPTH: usize = 7;
const SEARCH_ENTRIES: usize = 40_000;
/// Folders a toolchain's credential settings never lie in, and that are large: not searched.
const SEARCH_SKIP: &[&str] = &[
    "lib",
    "lib64",
    "include",
    "share",
    "node_modules",
    "site-packages",
    "man",
    "doc",
    "docs",
    "src",
    "pkg",
    "html",
    "locale",
    "test",
    "tests",
    "examples",
    ".git",
];

/// The credential files anywhere in a toolchain's folder (`root`), by name, within
/// [`SEARCH_DEPTH`] and [`SEARCH_ENTRIES`]: a toolchain keeps its own settings (an npm prefix's
/// `etc/npmrc`, a Python's `pip.conf`, a Maven's `conf/settings.xml`, a Gradle's `init.d`).
pub fn search(root: &Path) -> Vec<(PathBuf, Treatment)> {
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(children) = std::fs::read_dir(&dir) else {
            continue;
        };
        for child in children.flatten() {
            seen += 1;
            if seen > SEARCH_ENTRIES {
                return found;
            }
            let path = child.path();
            if let Some((_, treatment)) = FILES.iter().find(|(name, _)| path.ends_with(name)) {
                if let Some(path) = real(&path) {
                    found.push((path, *treatment));
                }
                continue;
            }
            let is_dir = child.file_type().is_ok_and(|t| t.is_dir());
            let name = child.file_name();
            if is_dir && depth + 1 < SEARCH_DEPTH && !SEARCH_SKIP.iter().any(|s| name == *s) {
                stack.push((path, depth + 1));
            }
        }
    }
    found
}

/// The credential files under `home` (a tool's home or cache the world shows) that exist; when
/// `home` is itself such a file (a `Sandbox.ReadablePaths` entry such as `~/.yarnrc.yml`), it.
pub fn under(home: &Path) -> Vec<(PathBuf, Treatment)> {
    if home.is_file() {
        return FILES
            .iter()
            .find(|(name, _)| home.ends_with(name))
            .and_then(|(_, treatment)| Some((real(home)?, *treatment)))
            .into_iter()
            .collect();
    }
    FILES
        .iter()
        .filter_map(|(name, treatment)| Some((real(&home.join(name))?, *treatment)))
        .filter(|(path, _)| !NOT_CREDENTIALS.iter().any(|n| path == Path::new(n)))
        .collect()
}

/// Where a credential file really is (a link is covered at its target: a bind cannot be placed
/// on a link), or `None` when there is none.
fn real(path: &Path) -> Option<PathBuf> {
    path.symlink_metadata().ok()?;
    path.canonicalize().ok()
}

/// The most a filtered file may hold; a bigger one is masked (no settings file is this big).
pub const MAX_FILTERED: u64 = 1024 * 1024;

/// `text` without the values of its secret settings, in the file's own format: XML elements
/// and attributes (`<password>…</password>`, `<add key="…Password" value="…"/>`), JSON
/// members (`"auth": "…"`), and key–value lines (`token = "…"`, `_authToken=…`, `password:`).
pub fn filtered(text: &str) -> String {
    let text = url_passwords().replace_all(text, "$head");
    // JSON is read as JSON: everything under a secret key goes, however deep.
    if let Some(json) = filtered_json(&text) {
        return json;
    }
    let text = xml_elements().replace_all(&text, "$open$close");
    let text = xml_name_value().replace_all(&text, |c: &regex::Captures| {
        if secret_key(&c["key"]) {
            format!("{}{}", &c["head"], &c["close"])
        } else {
            c[0].to_string()
        }
    });
    let text = xml_attributes().replace_all(&text, |c: &regex::Captures| {
        if secret_key(&c["key"]) {
            format!("{}\"\"", &c["head"])
        } else {
            c[0].to_string()
        }
    });
    let text = json_members().replace_all(&text, |c: &regex::Captures| {
        if secret_key(&c["key"]) {
            format!("{}\"\"", &c["head"])
        } else {
            c[0].to_string()
        }
    });
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        // `key = value` (the first `=`), else YAML's `key: value` (the first `:`).
        let at = line.find('=').or_else(|| {
            let body = line.trim_end();
            body.find(": ")
                .or_else(|| body.ends_with(':').then(|| body.len() - 1))
        });
        let key = at
            .map(|i| line[..i].trim().trim_matches('"'))
            .unwrap_or_default();
        match at {
            Some(i) if !key.is_empty() && !key.contains('<') && secret_key(key) => {
                // The setting's name stays, so a tool reading it finds it empty, not malformed.
                out.push_str(&line[..=i]);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// `text` as JSON with every string under a secret key emptied (Composer's `github-oauth`
/// keyed by host, Docker's `auths`), or `None` when it is no JSON object.
fn filtered_json(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        return None;
    }
    let mut value: serde_json::Value = serde_json::from_str(text).ok()?;
    empty_secrets(&mut value, false);
    serde_json::to_string_pretty(&value).ok().map(|mut t| {
        t.push('\n');
        t
    })
}

/// Empties the strings of `value` that lie under a secret key (`under`, or a key of its own).
fn empty_secrets(value: &mut serde_json::Value, under: bool) {
    match value {
        serde_json::Value::String(s) if under => s.clear(),
        serde_json::Value::Array(items) => {
            for item in items {
                empty_secrets(item, under);
            }
        }
        serde_json::Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                empty_secrets(
                    member,
                    under || secret_key(key) || JSON_SECRET_KEYS.contains(&key.as_str()),
                );
            }
        }
        _ => {}
    }
}

/// JSON keys that hold credentials keyed by host (Composer's, Docker's).
const JSON_SECRET_KEYS: &[&str] = &[
    "github-oauth",
    "gitlab-oauth",
    "gitlab-token",
    "bitbucket-oauth",
    "forgejo-token",
    "bearer",
    "http-basic",
    "auths",
    "credHelpers",
];

/// Whether a setting's name marks its value as a credential.
fn secret_key(key: &str) -> bool {
    // `//registry.npmjs.org/:_authToken` is keyed by the part after the last colon or slash.
    let last = key.rsplit([':', '/', '.']).next().unwrap_or(key);
    let plain = |k: &str| {
        let k = k.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        crate::redact::is_secret_env_name(k)
            || [
                "auth", "_auth", "token", "password", "pass", "passwd", "secret", "apikey", "key",
            ]
            .iter()
            .any(|w| k.eq_ignore_ascii_case(w.trim_start_matches('_')))
            || k.to_ascii_lowercase().contains("authident")
            || k.eq_ignore_ascii_case("extraheader")
    };
    plain(key) || plain(last)
}

/// The user part of a URL (`scheme://user:password@host`, `scheme://TOKEN@host`): registries
/// take tokens there.
fn url_passwords() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?P<head>://)[^/\s@]+@").unwrap_or_else(|_| unreachable!("a fixed pattern"))
    })
}

/// `<password>…</password>` and its kin: the text between goes.
fn xml_elements() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)(?P<open><(?P<tag>password|passphrase|privateKey|secret|token|apiKey|clientSecret)>)[^<]*(?P<close></(?:password|passphrase|privateKey|secret|token|apiKey|clientSecret)>)",
        )
        .unwrap_or_else(|_| unreachable!("a fixed pattern"))
    })
}

/// `<name>Private-Token</name><value>…</value>` (Maven's HTTP headers, Spring's properties):
/// the value goes when the name is secret.
fn xml_name_value() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?P<head><name>\s*(?P<key>[^<]{1,128}?)\s*</name>\s*<value>)[^<]*(?P<close></value>)")
            .unwrap_or_else(|_| unreachable!("a fixed pattern"))
    })
}

/// `key="ClearTextPassword" value="…"` (NuGet, .NET): the value goes when the key is secret.
fn xml_attributes() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?i)(?P<head>key\s*=\s*"(?P<key>[^"]*)"\s+value\s*=\s*)"[^"]*""#)
            .unwrap_or_else(|_| unreachable!("a fixed pattern"))
    })
}

/// `"auth": "…"` in JSON (Docker's `config.json`, Composer's): the value goes when the key is
/// secret.
fn json_members() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?P<head>"(?P<key>[^"\n]{1,64})"\s*:\s*)"(?:[^"\\\n]|\\.)*""#)
            .unwrap_or_else(|_| unreachable!("a fixed pattern"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_keep_what_builds_need_and_lose_every_secret_value() {
        let cases = [
            (
                "[registry]\ntoken = \"cio-SECRET1\"\n[source.crates-io]\nreplace-with = \"mirror\"\n",
                "[registry]\ntoken =\n[source.crates-io]\nreplace-with = \"mirror\"\n",
            ),
            (
                "registry=https://npm.example.com/\n//npm.example.com/:_authToken=npm-SECRET2\n_auth=dXNlcjpTRUNSRVQz\nalways-auth=true\n",
                "registry=https://npm.example.com/\n//npm.example.com/:_authToken=\n_auth=\nalways-auth=true\n",
            ),
            (
                "<settings><mirrors><mirror><url>https://m.example.com</url></mirror></mirrors><servers><server><id>c</id><username>me</username><password>mvn-SECRET4</password></server></servers></settings>\n",
                "<settings><mirrors><mirror><url>https://m.example.com</url></mirror></mirrors><servers><server><id>c</id><username>me</username><password></password></server></servers></settings>\n",
            ),
            (
                "org.gradle.jvmargs=-Xmx2g\nsigning.password=gr-SECRET5\nossrhPassword=gr-SECRET6\nmavenCentralToken: gr-SECRET7\n",
                "org.gradle.jvmargs=-Xmx2g\nsigning.password=\nossrhPassword=\nmavenCentralToken:\n",
            ),
            (
                "<add key=\"Source\" value=\"https://nuget.example.com\" />\n<add key=\"ClearTextPassword\" value=\"nu-SECRET8\" />\n",
                "<add key=\"Source\" value=\"https://nuget.example.com\" />\n<add key=\"ClearTextPassword\" value=\"\" />\n",
            ),
            (
                "{\"auths\": {\"r.example.com\": {\"auth\": \"ZG9jazpTRUNSRVQ5\"}}, \"credsStore\": \"desktop\"}\n",
                "{\n  \"auths\": {\n    \"r.example.com\": {\n      \"auth\": \"\"\n    }\n  },\n  \"credsStore\": \"desktop\"\n}\n",
            ),
            (
                "{\"config\": {\"github-oauth\": {\"github.com\": \"ghp_x\"}, \"process-timeout\": 300}}",
                "{\n  \"config\": {\n    \"github-oauth\": {\n      \"github.com\": \"\"\n    },\n    \"process-timeout\": 300\n  }\n}\n",
            ),
            (
                "<property><name>Private-Token</name><value>glpat-x</value></property><property><name>Accept</name><value>json</value></property>\n",
                "<property><name>Private-Token</name><value></value></property><property><name>Accept</name><value>json</value></property>\n",
            ),
            (
                "index = \"sparse+https://TOKEN@cargo.example/index/\"\nnpmAuthIdent: \"alice:pw\"\n",
                "index = \"sparse+https://cargo.example/index/\"\nnpmAuthIdent:\n",
            ),
            (
                "[global]\nindex-url = https://me:py-SECRET11@pypi.example.com/simple\npassword = py-SECRET10\n",
                "[global]\nindex-url = https://pypi.example.com/simple\npassword =\n",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(filtered(text), want, "{text}");
        }
    }

    #[test]
    fn a_moved_home_has_its_credentials_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("credentials.toml"),
            "[registry]\ntoken='x'\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("config.toml"), "[build]\n").unwrap();
        let found = under(dir.path());
        assert_eq!(
            found,
            [
                (dir.path().join("credentials.toml"), Treatment::Mask),
                (dir.path().join("config.toml"), Treatment::Filter),
            ]
        );
    }
}
