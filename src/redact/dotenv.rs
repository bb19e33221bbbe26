//! The secrets in a workspace's `.env`-style files: which files those are, and which of their
//! values are secrets (pure; the `workspace` module reads the files).
//!
//! Files, at the workspace root only: `.env`, `.env.*` (`.env.local`, `.env.production`), `*.env`
//! (`prod.env`), `.envrc` (direnv), `.dev.vars` and `.dev.vars.*` (Cloudflare). Not the templates
//! meant to be committed and read (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`):
//! their values are placeholders, and masking them would hide the template from the model.
//!
//! Lines, as dotenv reads them: `KEY=VALUE`, with `export ` before it (`.envrc`) or not, and
//! `KEY: VALUE` (Ruby's dotenv); blank lines and `#` comments are skipped, and so is a ` #`
//! comment after a value. A value is bare (trimmed), single-quoted or back-quoted (literal), or
//! double-quoted (`\n`, `\"`, `\\` unescaped); a quoted value may run over several lines.
//!
//! A value is taken when it is at least [`MIN_VALUE_CHARS`] long, is not a reference (`$TOKEN`,
//! `${TOKEN}`, `$(cmd)`, outside single quotes), and either its key names a secret
//! ([`is_secret_env_name`]) or it looks generated ([`looks_generated`]). A URL contributes its
//! password (`postgres://u:PASSWORD@h`) and every generated-looking part of its path or query (a
//! webhook's token). What it does not do: shell code in `.envrc` beyond plain assignments,
//! variables expanded from others, and files in subfolders.

use super::assignment::wordy;
use super::is_secret_env_name;

/// A value shorter than this is not taken: the redactor would not mask it anyway (`true`,
/// `3000` and `dev` occur everywhere).
const MIN_VALUE_CHARS: usize = super::known::MIN_KNOWN_CHARS;

/// A value under a key that names no secret must be at least this long to look generated: real
/// keys and tokens are, and shorter mixes of letters and digits are ids and versions
/// (`v2beta3x`, `node18-alpine`).
const MIN_GENERATED_CHARS: usize = 16;

/// A quoted value may run over at most this many more lines: a PEM private key of 4096 bits
/// takes about 50; a quote that is never closed must not swallow the rest of the file.
const MAX_QUOTED_LINES: usize = 200;

/// The templates of `.env` files, committed on purpose.
const TEMPLATES: &[&str] = &["example", "sample", "template", "dist", "defaults"];

/// One secret found in a file: the key it was assigned to and the value.
#[derive(Clone, PartialEq, Eq)]
pub struct DotenvSecret {
    pub key: String,
    pub value: String,
}

/// Shows the key, never the value.
impl std::fmt::Debug for DotenvSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DotenvSecret")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Whether a file at the workspace root named `name` is a `.env`-style file whose values count.
pub fn is_dotenv_file(name: &str) -> bool {
    let template = |suffix: &str| {
        suffix
            .split('.')
            .any(|part| TEMPLATES.iter().any(|t| part.eq_ignore_ascii_case(t)))
    };
    match name {
        ".env" | ".envrc" | ".dev.vars" => true,
        _ => {
            if let Some(suffix) = name
                .strip_prefix(".env.")
                .or_else(|| name.strip_prefix(".dev.vars."))
            {
                !suffix.is_empty() && !template(suffix)
            } else if let Some(stem) = name.strip_suffix(".env") {
                !stem.is_empty() && !template(stem)
            } else {
                false
            }
        }
    }
}

/// The secret values assigned in a `.env`-style file's text, in order, each value once.
pub fn secret_values(text: &str) -> Vec<DotenvSecret> {
    let mut out: Vec<DotenvSecret> = Vec::new();
    let lines: Vec<&str> = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .lines()
        .collect();
    let mut at = 0;
    while let Some(line) = lines.get(at) {
        at += 1;
        let Some((key, rest)) = split_assignment(line) else {
            continue;
        };
        let Some((value, more_lines)) = read_value(rest, &lines[at..]) else {
            continue;
        };
        at += more_lines;
        for secret in judge(key, &value) {
            if !out.iter().any(|s| s.value == secret) {
                out.push(DotenvSecret {
                    key: key.to_string(),
                    value: secret,
                });
            }
        }
    }
    out
}

/// `KEY=rest` or `KEY: rest`, after an optional `export`; `None` for anything else (comments,
/// blank lines, shell code).
fn split_assignment(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_start();
    let line = line
        .strip_prefix("export")
        .filter(|rest| rest.starts_with([' ', '\t']))
        .map_or(line, str::trim_start);
    let key_len = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        .unwrap_or(line.len());
    let key = &line[..key_len];
    if key.is_empty() || key.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let after = line[key_len..].trim_start_matches([' ', '\t']);
    let rest = match after.strip_prefix('=') {
        Some(rest) => rest,
        // `KEY: VALUE` wants the blank after the colon, as YAML does.
        None => after
            .strip_prefix(':')
            .filter(|r| r.starts_with([' ', '\t']))?,
    };
    Some((key, rest.trim_start_matches([' ', '\t'])))
}

/// A value as dotenv reads it from the rest of its line (and from the `next` lines, for a quoted
/// value that does not close on its own), with how many of those it took; `None` for a
/// reference, and for a quote that does not close within [`MAX_QUOTED_LINES`] (the lines after
/// it are read as lines of their own).
fn read_value(rest: &str, next: &[&str]) -> Option<(String, usize)> {
    let Some(quote) = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))
    else {
        // Bare: up to a comment, trimmed.
        let end = rest
            .char_indices()
            .find(|&(i, c)| c == '#' && (i == 0 || rest[..i].ends_with([' ', '\t'])))
            .map_or(rest.len(), |(i, _)| i);
        let value = rest[..end].trim();
        return (!is_reference(value)).then(|| (value.to_string(), 0));
    };
    let mut raw = String::new();
    let mut part = &rest[1..];
    let mut taken = 0;
    loop {
        if let Some(end) = closing(part, quote) {
            raw.push_str(&part[..end]);
            break;
        }
        raw.push_str(part);
        raw.push('\n');
        part = next.get(taken).filter(|_| taken < MAX_QUOTED_LINES)?;
        taken += 1;
    }
    let value = match quote {
        '\'' => raw,
        _ if is_reference(&raw) => return None,
        '"' => unescape(&raw),
        _ => raw,
    };
    Some((value, taken))
}

/// Where the closing `quote` is in `text`; in double quotes, `\"` does not close.
fn closing(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            '\\' if quote == '"' && !escaped => escaped = true,
            c if c == quote && !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some(other @ ('"' | '\\' | '$')) => out.push(other),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Whether a value is taken from elsewhere: a variable, an expansion or a command.
fn is_reference(value: &str) -> bool {
    value.starts_with('$') || value.contains("${") || value.contains("$(")
}

/// The secrets a value holds: itself, under a key that names a secret or when it looks
/// generated, and a URL's password and generated-looking parts.
fn judge(key: &str, value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let long_enough = |v: &str| v.chars().count() >= MIN_VALUE_CHARS;
    if !long_enough(value) {
        return out;
    }
    let placeholder = value.starts_with('<') && value.ends_with('>');
    if !placeholder && (is_secret_env_name(key) || looks_generated(value)) {
        out.push(value.to_string());
    }
    if let Some((_, after_scheme)) = value.split_once("://") {
        let (authority, tail) = after_scheme
            .split_once(['/', '?', '#'])
            .map_or((after_scheme, ""), |(a, _)| (a, &after_scheme[a.len()..]));
        if let Some((userinfo, _)) = authority.rsplit_once('@')
            && let Some((_, password)) = userinfo.split_once(':')
            && long_enough(password)
        {
            out.push(password.to_string());
        }
        out.extend(
            tail.split(['/', '?', '&', '=', '#', ';'])
                .filter(|part| looks_generated(part))
                .map(str::to_string),
        );
    }
    out
}

/// Whether a value under a key that names no secret looks like a generated key or token: at
/// least [`MIN_GENERATED_CHARS`] of a token's alphabet (letters, digits, `+/=_-.~`), with a letter
/// and a digit, its letters not mostly words (`eu-west-1.amazonaws.com`,
/// `my-app-production-2024`), and not a path (`/`, `.` or `~` first) nor a version (`1.22.3-rc1`).
pub fn looks_generated(value: &str) -> bool {
    let bytes = value.as_bytes();
    let alphabet = |b: &u8| b.is_ascii_alphanumeric() || b"+/=_-.~".contains(b);
    let version = {
        let v = value.strip_prefix(['v', 'V']).unwrap_or(value);
        let numbers = v.split(['-', '+']).next().unwrap_or(v);
        numbers.contains('.')
            && numbers
                .split('.')
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    bytes.len() >= MIN_GENERATED_CHARS
        && bytes.iter().all(alphabet)
        && bytes.iter().any(u8::is_ascii_digit)
        && bytes.iter().any(u8::is_ascii_alphabetic)
        && !value.starts_with(['/', '.', '~'])
        && !version
        && !wordy(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(text: &str) -> Vec<(String, String)> {
        secret_values(text)
            .into_iter()
            .map(|s| (s.key, s.value))
            .collect()
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn dotenv_files_are_known_by_name() {
        for name in [
            ".env",
            ".env.local",
            ".env.production",
            ".env.development.local",
            "prod.env",
            "docker.env",
            ".envrc",
            ".dev.vars",
            ".dev.vars.staging",
        ] {
            assert!(is_dotenv_file(name), "{name}");
        }
        for name in [
            ".env.example",
            ".env.sample",
            ".env.local.example",
            ".env.template",
            "example.env",
            ".env.",
            "env",
            ".environment",
            "README.md",
            "src.env.rs",
            ".envrc.bak",
        ] {
            assert!(!is_dotenv_file(name), "{name}");
        }
    }

    #[test]
    fn secret_keys_give_their_values_in_every_quoting() {
        let text = "\
# the app's settings
OPENAI_API_KEY=sk-proj-not-a-real-key-00
export GITHUB_TOKEN=\"gh-token with spaces\"
DB_PASSWORD='pa$$w0rd-literal'
STRIPE_SECRET=`back-quoted-secret`
SESSION_SECRET = spaced-out-value # a comment
API_TOKEN: yaml-style-token
PRIVATE_KEY=\"-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----\"
MULTILINE_SECRET=\"first line
second line\"
";
        assert_eq!(
            taken(text),
            pairs(&[
                ("OPENAI_API_KEY", "sk-proj-not-a-real-key-00"),
                ("GITHUB_TOKEN", "gh-token with spaces"),
                ("DB_PASSWORD", "pa$$w0rd-literal"),
                ("STRIPE_SECRET", "back-quoted-secret"),
                ("SESSION_SECRET", "spaced-out-value"),
                ("API_TOKEN", "yaml-style-token"),
                (
                    "PRIVATE_KEY",
                    "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----"
                ),
                ("MULTILINE_SECRET", "first line\nsecond line"),
            ])
        );
    }

    #[test]
    fn generated_looking_values_are_taken_under_any_key() {
        let text = "\
JWT_SIGNING=Zq8xV2mK9pL4tR7wN3cY6hB1
AWS_ACCESS_KEY_ID=AKIAQX3MPLE7TESTK3Y9
BUILD_ID=9fceb02d0ae598e95dc970b74767f19372d61af8
WEBHOOK=https://chat.example.com/hooks/T0001/B7xQ9mZ2kL4pR8vW3nC6yH1d
DATABASE=postgres://app:Tr1cky-pass@db.internal:5432/app
";
        assert_eq!(
            taken(text),
            pairs(&[
                ("JWT_SIGNING", "Zq8xV2mK9pL4tR7wN3cY6hB1"),
                ("AWS_ACCESS_KEY_ID", "AKIAQX3MPLE7TESTK3Y9"),
                ("BUILD_ID", "9fceb02d0ae598e95dc970b74767f19372d61af8"),
                ("WEBHOOK", "B7xQ9mZ2kL4pR8vW3nC6yH1d"),
                ("DATABASE", "Tr1cky-pass"),
            ])
        );
        // A secret key's URL gives the whole value and the password.
        assert_eq!(
            taken("DATABASE_URL=postgres://app:s3cret-pw-9@db/app\n"),
            pairs(&[
                ("DATABASE_URL", "postgres://app:s3cret-pw-9@db/app"),
                ("DATABASE_URL", "s3cret-pw-9"),
            ])
        );
    }

    #[test]
    fn ordinary_settings_references_and_shell_code_are_not_taken() {
        let text = "\
NODE_ENV=development
DEBUG=true
PORT=3000
DB_HOST=localhost:5432
API_URL=https://api.example.com/v1/users
REDIS_URL=redis://cache:6379/0
LOG_DIR=/var/log/my-app-2024/current
CONFIG=./config/settings.production.json
NODE_VERSION=18.17.1-alpine3.18
REGION=eu-west-1.amazonaws.com
APP_NAME=my-app-production-2024
GREETING=\"hello world, this is long\"
SHORT_TOKEN=abc123
GITHUB_TOKEN=$GH_TOKEN
NPM_TOKEN=${NPM_TOKEN}
AWS_SECRET_ACCESS_KEY=\"$(op read op://vault/aws/secret)\"
API_KEY=<your-api-key-here>
EMPTY_SECRET=
UNCLOSED_TOKEN=\"never closed
use nix
layout python3
PATH_add bin
dotenv_if_exists .env.local
   # API_KEY=commented-out-value
9KEY=digits-first-value
";
        assert_eq!(taken(text), pairs(&[]));
    }

    #[test]
    fn a_value_is_taken_once() {
        assert_eq!(
            taken("API_KEY=same-value-twice\nOTHER_KEY=same-value-twice\n"),
            pairs(&[("API_KEY", "same-value-twice")])
        );
    }

    #[test]
    fn debug_never_shows_the_value() {
        let shown = format!(
            "{:?}",
            DotenvSecret {
                key: "API_KEY".into(),
                value: "do-not-print".into()
            }
        );
        assert!(shown.contains("API_KEY") && !shown.contains("do-not-print"));
    }
}
