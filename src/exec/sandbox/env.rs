//! The environment filter, on every platform, sandbox or not: variables whose names mark them as
//! secret (and those `Sandbox.HiddenEnv` names, and the agent sockets), and variables whose
//! **values** look like a credential whatever their names (a URL or connection string with a
//! password, a token of a known format, a long random string such as a password manager's
//! session key), never reach the model's processes, since a command could print them
//! re-encoded, which no redactor can catch. `docs/sandbox.md` lists the rules.

use std::ffi::OsString;
use std::process::Command;

use crate::config::SandboxConfig;

/// Environment variables that are never given to the model's processes although their names do
/// not look secret: they hand over a credential (the ssh agent) or a way out of the sandbox.
const HIDDEN_ENV: &[&str] = &[
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
];

/// Prefixes of variables that hold a password manager's or a cloud CLI's session.
const HIDDEN_PREFIXES: &[&str] = &[
    "BW_SESSION",
    "OP_SESSION_",
    "LPASS_",
    "KEEPER_",
    "AWS_SESSION",
];

/// Names whose values are settings of the shell and the system, never checked by value (a
/// colour list or a search path is not a token).
const PLAIN_NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "PWD",
    "OLDPWD",
    "SHLVL",
    "HOSTNAME",
    "TMPDIR",
    "LS_COLORS",
    "MANPATH",
    "INFOPATH",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MAIL",
    "_",
];

/// The shortest value that can be a random secret by its look alone, and the longest run
/// between dashes, dots or underscores it must hold.
const MIN_RANDOM: usize = 20;
const MIN_RANDOM_RUN: usize = 16;

/// Removes from the command's environment every variable withheld from the model's processes
/// ([`hidden_env_names`]), except those `Sandbox.PassEnv` hands through.
pub fn filter_env(command: &mut Command, config: &SandboxConfig) {
    for name in hidden_env_names(std::env::vars_os(), config) {
        command.env_remove(name);
    }
}

/// The names among `vars` (name, value) withheld from the model's processes: secret by name,
/// listed, or secret by value ([`secret_value`]); never one `Sandbox.PassEnv` hands through.
pub fn hidden_env_names(
    vars: impl Iterator<Item = (OsString, OsString)>,
    config: &SandboxConfig,
) -> Vec<OsString> {
    vars.filter(|(name, value)| {
        let Some(text) = name.to_str() else {
            return false;
        };
        let passed = config.pass_env.iter().any(|p| p.eq_ignore_ascii_case(text));
        let upper = text.to_ascii_uppercase();
        let hidden = crate::redact::is_secret_env_name(text)
            || credential_name(&upper)
            || (upper
                .rsplit('_')
                .next()
                .is_some_and(|last| USER_WORDS.contains(&last))
                && value.to_str().is_some_and(|v| v.contains(':')))
            || HIDDEN_ENV.iter().any(|h| h.eq_ignore_ascii_case(text))
            || HIDDEN_PREFIXES.iter().any(|p| upper.starts_with(p))
            || config
                .hidden_env
                .iter()
                .any(|h| h.eq_ignore_ascii_case(text))
            || (!PLAIN_NAMES.contains(&upper.as_str())
                && !upper.starts_with("LC_")
                && value.to_str().is_some_and(secret_value));
        hidden && !passed
    })
    .map(|(name, _)| name)
    .collect()
}

/// Words of a variable's name that mark a credential the redactor's name rules leave to the
/// value (`LDAP_BIND_PW`, `YARN_NPM_AUTH_IDENT`, `SLACK_WEBHOOK`, `SENTRY_DSN`).
const CREDENTIAL_WORDS: &[&str] = &[
    "AUTH",
    "AUTHIDENT",
    "IDENT",
    "PW",
    "PASS",
    "SSHPASS",
    "CRED",
    "CREDS",
    "APIKEY",
    "WEBHOOK",
    "HOOK",
    "DSN",
    "SESSION",
];

/// The last words of a name whose value may carry a password after a colon (`ETCDCTL_USER`
/// holds `user:password`).
const USER_WORDS: &[&str] = &["USER", "USERNAME", "LOGIN", "ACCOUNT"];

/// Whether a variable's (upper-cased) name marks a credential: one of [`CREDENTIAL_WORDS`], a
/// hook's URL (`…_HOOK_URL`), or Bundler's credentials for a host (`BUNDLE_<HOST>` with `__`).
fn credential_name(upper: &str) -> bool {
    let words: Vec<&str> = upper.split('_').filter(|w| !w.is_empty()).collect();
    // The desktop's own session names (`XDG_SESSION_TYPE`, `DESKTOP_SESSION`) are no secret,
    // nor is a name ending in a place (`PYENV_HOOK_PATH`), which holds a path.
    let desktop = upper.starts_with("XDG_") || upper == "DESKTOP_SESSION";
    let place = words
        .last()
        .is_some_and(|w| ["PATH", "DIR", "DIRS", "FILE", "HOME", "ROOT"].contains(w));
    (!desktop && !place && words.iter().any(|w| CREDENTIAL_WORDS.contains(w)))
        || upper.ends_with("HOOK_URL")
        || (upper.starts_with("BUNDLE_") && upper.contains("__"))
}

/// Whether a variable's value looks like a credential whatever its name: the redactor finds a
/// secret in it (a token of a known format, a URL or connection string with a password, a
/// `password=` setting), or it is one long random word (a session key, an API key of no known
/// format: at least 20 characters of letters and digits, both, with base64 or URL punctuation at
/// most, not a path, and as varied as random text is).
pub fn secret_value(value: &str) -> bool {
    static PLAIN: std::sync::OnceLock<crate::redact::Redactor> = std::sync::OnceLock::new();
    let redactor = PLAIN.get_or_init(|| crate::redact::Redactor::new(Vec::new(), Vec::new()));
    if value.len() > 64 * 1024 {
        return false;
    }
    if redactor.redact(value).count > 0 || connection_password(value) || url_user(value) {
        return true;
    }
    random_word(value)
}

/// A URL with a user part (`https://TOKEN@host`, `https://TOKEN:@host`): registries and proxies
/// take their tokens there.
fn url_user(value: &str) -> bool {
    value.match_indices("://").any(|(at, _)| {
        let rest = &value[at + 3..];
        let authority = rest
            .split(['/', '?', '#', ',', ' '])
            .next()
            .unwrap_or_default();
        // A hook's URL is its secret (a chat's incoming webhook, a deploy hook).
        authority.contains('@') || rest.to_ascii_lowercase().contains("hook")
    })
}

/// `Password=…;` in a connection string (ADO.NET, JDBC properties, ODBC).
fn connection_password(value: &str) -> bool {
    value.split(';').any(|part| {
        part.split_once('=').is_some_and(|(key, v)| {
            let key = key.trim().to_ascii_lowercase();
            matches!(key.as_str(), "password" | "pwd" | "pass" | "passwd") && !v.trim().is_empty()
        })
    })
}

/// One long word that reads as random.
fn random_word(value: &str) -> bool {
    let value = value.trim_end_matches('=');
    if value.len() < MIN_RANDOM
        || value.starts_with(['/', '~', '.'])
        || !value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_' | b'.'))
        || value.contains("//")
    {
        return false;
    }
    let letters = value.bytes().filter(u8::is_ascii_alphabetic).count();
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    // Names joined by dashes or dots (`stable-x86_64-unknown-linux-gnu`) are not one word.
    let longest = value
        .split(['-', '_', '.'])
        .map(str::len)
        .max()
        .unwrap_or_default();
    if letters == 0 || digits == 0 || longest < MIN_RANDOM_RUN {
        return false;
    }
    // Random text switches between letters and digits often, and uses many characters.
    let switches = value
        .as_bytes()
        .windows(2)
        .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
        .count();
    let mut counts = [0usize; 256];
    for b in value.bytes() {
        counts[b as usize] += 1;
    }
    let n = value.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum();
    entropy >= 3.5 && switches * 6 >= value.len()
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
        .map(|n| (OsString::from(n), OsString::from("x")));
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
    fn values_that_look_like_credentials_are_withheld_whatever_their_names() {
        let secret = [
            ("BW_SESSION", "short"),
            ("OP_SESSION_myteam", "x"),
            (
                "MAIN_DB",
                "postgres://app:hunter2-pw@db.example.com:5432/app",
            ),
            (
                "CONN",
                "Server=db;Database=app;User Id=sa;Password=Tr0ub4dor&3;",
            ),
            ("REDIS", "redis://:s3cretpass@cache:6379/0"),
            ("SOME_VAR", "ghp_Q7xv2MbK9LrT4pWn8ZcY3hJdF6sA1eGu0iOk"),
            ("VAULT_ADDR_X", "hvs.CAESIJ8w2k9Xq3Lr7Tz1VbN4mPp0"),
            (
                "PM",
                "mO2kV8xQ4zR9tY1uI7oP3aS6dF0gH5jK2lZ8xC4vB1nM7qW3eR9tY6u==",
            ),
            (
                "HEXKEY",
                "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            ),
        ];
        let plain = [
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("LS_COLORS", "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33"),
            ("EDITOR", "vim"),
            ("PROJECT", "my-long-project-name-2"),
            ("GOFLAGS", "-mod=mod -trimpath"),
            ("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"),
            ("RUST_LOG", "keyless=debug,chromiumoxide=warn"),
            ("GIT_AUTHOR_NAME", "Ada Lovelace"),
            ("BUILD_NUMBER", "20261201123456789"),
            ("HOSTTYPE", "x86_64"),
            ("NODE_OPTIONS", "--max-old-space-size=4096"),
            ("RUSTUP_TOOLCHAIN", "stable-x86_64-unknown-linux-gnu"),
            ("JDK", "openjdk-17.0.15+6-Debian-1deb12u1"),
            ("NODE", "node-v20.20.2-linux-x64"),
            ("URL", "https://example.com/path/to/thing"),
            ("GIT_AUTHOR_EMAIL", "ada@example.com"),
            ("PIP_INDEX_URL_PLAIN", "https://pypi.org/simple"),
            ("BUNDLE_PATH", "vendor/bundle"),
            ("XDG_SESSION_TYPE", "wayland"),
            ("PYENV_HOOK_PATH", "/root/.pyenv/pyenv.d:/etc/pyenv.d"),
            ("GIT_AUTHOR_NAME_USER", "ada"),
        ];
        let config = SandboxConfig::default();
        let vars = secret
            .iter()
            .chain(plain.iter())
            .map(|(n, v)| (OsString::from(n), OsString::from(v)));
        let hidden = hidden_env_names(vars, &config);
        let want: Vec<OsString> = secret.iter().map(|(n, _)| OsString::from(n)).collect();
        assert_eq!(hidden, want);
    }
}
