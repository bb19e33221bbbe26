//! `keyless.json`: finding it, reading it (JSON with `//` and `/* */` comments), and checking
//! every key against the schema so a mistake names the key, the value and what is allowed.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Config, FailureMode, Mode, Pace, SandboxMode};
use crate::catalog::{Code, Failure};

/// The file's name in a workspace and in the user's config folder.
pub const FILE_NAME: &str = "keyless.json";

/// Where the configuration comes from: `--config FILE`, else `<workspace>/keyless.json`, else
/// the user's config folder (`$XDG_CONFIG_HOME/keyless/` or `~/.config/keyless/`). Only an
/// explicit `--config` that does not exist is an error.
pub fn locate(explicit: Option<&Path>, workspace: &Path) -> Result<Option<PathBuf>, Failure> {
    if let Some(path) = explicit {
        return match regular(path)? {
            true => Ok(Some(path.to_path_buf())),
            false => Err(Failure::new(
                Code::ConfigInvalid,
                format!("the configuration file {} does not exist", path.display()),
            )),
        };
    }
    let local = workspace.join(FILE_NAME);
    // An empty keyless.json is as none: it is what the sandbox puts where there was none, so
    // that a command cannot create one (docs/sandbox.md), and what a killed keyless may leave.
    if regular(&local)? && local.metadata().is_ok_and(|m| m.len() > 0) {
        return Ok(Some(local));
    }
    let user_dir = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    Ok(user_dir
        .map(|d| d.join("keyless").join(FILE_NAME))
        .filter(|p| p.is_file()))
}

/// Whether `path` is a regular file (following symlinks); `false` when nothing is there. Anything
/// else by that name (a folder, a FIFO that would block the read, a device) is an error that
/// says so, never silently passed over for the next place.
fn regular(path: &Path) -> Result<bool, Failure> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Ok(true),
        Ok(meta) => Err(Failure::new(
            Code::ConfigInvalid,
            format!(
                "{} is not a regular file (it is {}); keyless reads its configuration only from a file. Remove or rename it.",
                path.display(),
                if meta.is_dir() {
                    "a folder"
                } else {
                    "a FIFO, a device or a socket"
                }
            ),
        )),
        Err(_) if path.symlink_metadata().is_ok() => Err(Failure::new(
            Code::ConfigInvalid,
            format!("{} is a symbolic link to nothing", path.display()),
        )),
        Err(_) => Ok(false),
    }
}

/// Loads the configuration for a workspace (defaults when there is no file).
pub fn load(explicit: Option<&Path>, workspace: &Path) -> Result<Config, Failure> {
    match locate(explicit, workspace)? {
        Some(path) => {
            let text = std::fs::read_to_string(&path).map_err(|e| {
                Failure::new(
                    Code::ConfigInvalid,
                    format!("cannot read {}: {e}", path.display()),
                )
            })?;
            let mut config = parse(&text).map_err(|f| Failure {
                reason: format!("{}: {}", path.display(), f.reason),
                ..f
            })?;
            config.source = Some(path);
            Ok(config)
        }
        None => Ok(Config::default()),
    }
}

/// Blanks out `//` and `/* */` comments (outside strings) so line and column numbers stay true.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                out.push(' ');
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut last = ' ';
                for c in chars.by_ref() {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Parses configuration text.
pub fn parse(text: &str) -> Result<Config, Failure> {
    // Editors on Windows save a byte-order mark; it is no content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = strip_comments(text);
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Failure::new(
            Code::ConfigInvalid,
            format!(
                "not valid JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
        )
    })?;
    if let Some((key, line)) = duplicate_key(&text) {
        return Err(Failure::new(
            Code::ConfigInvalid,
            format!(
                "the key \"{key}\" appears twice in one object (again at line {line}); JSON keeps only one of them, so keyless refuses to guess which you meant"
            ),
        ));
    }
    let root = value.as_object().ok_or_else(|| {
        Failure::new(
            Code::ConfigValidation,
            "the configuration must be a JSON object of sections",
        )
    })?;
    let mut config = Config::default();
    for (section, body) in root {
        let keys = SECTIONS
            .iter()
            .find(|(name, _)| name == section)
            .map(|(_, keys)| *keys)
            .ok_or_else(|| unknown(section, &SECTIONS.map(|(n, _)| n)))?;
        let body = body.as_object().ok_or_else(|| {
            validation(format!(
                "{section} must be an object of keys, like \"{section}\": {{ … }}"
            ))
        })?;
        for (key, value) in body {
            if !keys.contains(&key.as_str()) {
                return Err(unknown(&format!("{section}.{key}"), keys));
            }
            set(&mut config, section, key, value, body)?;
        }
    }
    if config.commands.max_timeout_seconds < config.commands.timeout_seconds {
        return Err(validation(format!(
            "Commands.MaxTimeoutSeconds ({}) is below Commands.TimeoutSeconds ({}); it must be at least as long",
            config.commands.max_timeout_seconds, config.commands.timeout_seconds
        )));
    }
    Ok(config)
}

/// The first key that appears twice in the same object of valid JSON text, with the line of its
/// second appearance.
fn duplicate_key(text: &str) -> Option<(String, usize)> {
    use std::collections::HashSet;
    // One set of keys per open container; arrays get `None`.
    let mut open: Vec<Option<HashSet<String>>> = Vec::new();
    let mut line = 1;
    let mut chars = text.chars().peekable();
    let mut last_string: Option<String> = None;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '{' => open.push(Some(HashSet::new())),
            '[' => open.push(None),
            '}' | ']' => {
                open.pop();
            }
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some(n) = chars.next() {
                                s.push('\\');
                                s.push(n);
                            }
                        }
                        '"' => break,
                        c => s.push(c),
                    }
                }
                last_string = Some(s);
                continue;
            }
            ':' => {
                if let (Some(key), Some(Some(keys))) = (last_string.take(), open.last_mut())
                    && !keys.insert(key.clone())
                {
                    return Some((key, line));
                }
            }
            _ => {}
        }
        if !c.is_whitespace() {
            last_string = None;
        }
    }
    None
}

/// Every section and its keys.
pub const SECTIONS: [(&str, &[&str]); 8] = [
    ("Agent", &["Pace", "Mode", "Site"]),
    (
        "Limits",
        &[
            "MaxCommandsPerResponse",
            "MaxResponseChars",
            "MaxFileContentChars",
            "MaxCommandOutputChars",
            "MaxFormatRetries",
            "MaxIterationsPerTurn",
        ],
    ),
    (
        "Commands",
        &[
            "BatchFailureMode",
            "TimeoutSeconds",
            "MaxTimeoutSeconds",
            "AllowList",
            "DenyList",
            "Shell",
        ],
    ),
    ("Git", &["AutoInit", "Push", "ProtectedBranches"]),
    (
        "Browser",
        &[
            "ExecutablePath",
            "UserDataDir",
            "Headless",
            "CdpUrl",
            "Url",
            "ReplyTimeoutSeconds",
            "TruncationBudgetSeconds",
        ],
    ),
    ("Snapshot", &["Tools", "Scripts", "Instructions"]),
    (
        "Sandbox",
        &[
            "Mode",
            "Network",
            "WritablePaths",
            "HiddenPaths",
            "HiddenEnv",
            "PassEnv",
            "ReadablePaths",
            "AllowMissing",
            "MaxProcesses",
            "MaxMemoryMiB",
            "TmpSizeMiB",
        ],
    ),
    ("Secrets", &["Redact", "Allow"]),
];

fn validation(reason: String) -> Failure {
    Failure::new(Code::ConfigValidation, reason)
}

fn unknown(name: &str, known: &[&str]) -> Failure {
    let last = name.rsplit('.').next().unwrap_or(name);
    let hint = known
        .iter()
        .find(|k| {
            k.eq_ignore_ascii_case(last)
                || k.to_ascii_lowercase().replace('_', "")
                    == last.to_ascii_lowercase().replace('_', "")
        })
        .map(|k| format!(" Did you mean {k}?"))
        .unwrap_or_default();
    validation(format!(
        "{name} is not a known key.{hint} The keys here are: {}.",
        known.join(", ")
    ))
}

fn int(name: &str, value: &Value, min: u64, max: u64) -> Result<u64, Failure> {
    match value.as_u64() {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(validation(format!(
            "{name} is {value}; it must be a whole number from {min} to {max}"
        ))),
    }
}

fn boolean(name: &str, value: &Value) -> Result<bool, Failure> {
    value
        .as_bool()
        .ok_or_else(|| validation(format!("{name} is {value}; it must be true or false")))
}

fn string(name: &str, value: &Value) -> Result<String, Failure> {
    match value.as_str() {
        Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
        _ => Err(validation(format!(
            "{name} is {value}; it must be a non-empty string"
        ))),
    }
}

fn strings(name: &str, value: &Value) -> Result<Vec<String>, Failure> {
    let bad = || {
        validation(format!(
            "{name} is {value}; it must be a list of non-empty strings, like [\"a\", \"b\"]"
        ))
    };
    value
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|v| {
            v.as_str()
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string)
                .ok_or_else(bad)
        })
        .collect()
}

/// A list of absolute paths (`~/` names the home folder).
fn paths(name: &str, value: &Value) -> Result<Vec<PathBuf>, Failure> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    strings(name, value)?
        .into_iter()
        .map(|s| {
            let path = match (s.strip_prefix("~/"), &home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => PathBuf::from(&s),
            };
            if path.is_absolute() {
                Ok(path)
            } else {
                Err(validation(format!(
                    "{name} holds {s:?}; each entry must be an absolute path or start with ~/"
                )))
            }
        })
        .collect()
}

fn choice<T: Copy>(name: &str, value: &Value, options: &[(&str, T)]) -> Result<T, Failure> {
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    value
        .as_str()
        .and_then(|s| {
            options
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(s))
                .map(|(_, t)| *t)
        })
        .ok_or_else(|| {
            validation(format!(
                "{name} is {value}; it must be one of {}",
                names.join(", ")
            ))
        })
}

fn set(
    config: &mut Config,
    section: &str,
    key: &str,
    value: &Value,
    _body: &Map<String, Value>,
) -> Result<(), Failure> {
    let name = format!("{section}.{key}");
    let n = name.as_str();
    let l = &mut config.limits;
    match (section, key) {
        ("Agent", "Pace") => {
            config.agent.pace = choice(
                n,
                value,
                &[
                    ("Step", Pace::Step),
                    ("Balanced", Pace::Balanced),
                    ("Batch", Pace::Batch),
                ],
            )?
        }
        ("Agent", "Mode") => {
            config.agent.mode = choice(
                n,
                value,
                &[
                    ("Ask", Mode::Ask),
                    ("AutoSafe", Mode::AutoSafe),
                    ("Auto", Mode::Auto),
                ],
            )?
        }
        ("Agent", "Site") => config.agent.site = Some(string(n, value)?),
        ("Limits", "MaxCommandsPerResponse") => {
            l.max_commands_per_response = int(n, value, 1, 100)? as usize
        }
        ("Limits", "MaxResponseChars") => {
            l.max_response_chars = int(n, value, 1_000, 2_000_000)? as usize
        }
        ("Limits", "MaxFileContentChars") => {
            l.max_file_content_chars = int(n, value, 100, 2_000_000)? as usize
        }
        ("Limits", "MaxCommandOutputChars") => {
            l.max_command_output_chars = int(n, value, 200, 1_000_000)? as usize
        }
        ("Limits", "MaxFormatRetries") => l.max_format_retries = int(n, value, 0, 20)? as usize,
        ("Limits", "MaxIterationsPerTurn") => {
            l.max_iterations_per_turn = int(n, value, 1, 1_000)? as usize
        }
        ("Commands", "BatchFailureMode") => {
            config.commands.failure_mode = choice(
                n,
                value,
                &[
                    ("StopOnMutationFailure", FailureMode::StopOnMutationFailure),
                    ("StopOnAnyFailure", FailureMode::StopOnAnyFailure),
                    ("Continue", FailureMode::Continue),
                ],
            )?
        }
        ("Commands", "TimeoutSeconds") => {
            config.commands.timeout_seconds = int(n, value, 1, 86_400)?
        }
        ("Commands", "MaxTimeoutSeconds") => {
            config.commands.max_timeout_seconds = int(n, value, 1, 86_400)?
        }
        ("Commands", "AllowList") => config.commands.allow_list = strings(n, value)?,
        ("Commands", "DenyList") => config.commands.deny_list = strings(n, value)?,
        ("Commands", "Shell") => config.commands.shell = Some(string(n, value)?),
        ("Git", "AutoInit") => config.git.auto_init = boolean(n, value)?,
        ("Git", "Push") => config.git.push = boolean(n, value)?,
        ("Git", "ProtectedBranches") => {
            config.git.protected_branches = match value {
                Value::Array(a) if a.is_empty() => Vec::new(),
                _ => strings(n, value)?,
            }
        }
        ("Browser", "ExecutablePath") => {
            config.browser.executable_path = Some(string(n, value)?.into())
        }
        ("Browser", "UserDataDir") => config.browser.user_data_dir = Some(string(n, value)?.into()),
        ("Browser", "Headless") => config.browser.headless = boolean(n, value)?,
        ("Browser", "CdpUrl") => config.browser.cdp_url = Some(string(n, value)?),
        ("Browser", "Url") => config.browser.url = Some(string(n, value)?),
        ("Browser", "ReplyTimeoutSeconds") => {
            config.browser.reply_timeout_seconds = int(n, value, 10, 7_200)?
        }
        ("Browser", "TruncationBudgetSeconds") => {
            config.browser.truncation_budget_seconds = int(n, value, 1, 3_600)?
        }
        ("Snapshot", "Tools") => {
            config.snapshot.tools = match value {
                Value::Array(a) if a.is_empty() => Vec::new(),
                _ => strings(n, value)?,
            }
        }
        ("Snapshot", "Scripts") => {
            config.snapshot.scripts = match value {
                Value::Array(a) if a.is_empty() => Vec::new(),
                _ => strings(n, value)?,
            }
        }
        ("Snapshot", "Instructions") => config.snapshot.instructions = boolean(n, value)?,
        ("Sandbox", "Mode") => {
            config.sandbox.mode = choice(
                n,
                value,
                &[("on", SandboxMode::On), ("off", SandboxMode::Off)],
            )?
        }
        ("Sandbox", "Network") => config.sandbox.network = Some(boolean(n, value)?),
        ("Sandbox", "WritablePaths") => config.sandbox.writable_paths = paths(n, value)?,
        ("Sandbox", "HiddenPaths") => config.sandbox.hidden_paths = paths(n, value)?,
        ("Sandbox", "HiddenEnv") => config.sandbox.hidden_env = strings(n, value)?,
        ("Sandbox", "PassEnv") => config.sandbox.pass_env = strings(n, value)?,
        ("Sandbox", "ReadablePaths") => config.sandbox.readable_paths = paths(n, value)?,
        ("Sandbox", "AllowMissing") => {
            let names = strings(n, value)?;
            let known = crate::config::GUARANTEE_NAMES;
            if let Some(bad) = names
                .iter()
                .find(|g| *g != "*" && !known.contains(&g.as_str()))
            {
                return Err(validation(format!(
                    "{n} names {bad:?}, which is no guarantee; the guarantees are {} (or \"*\" for all)",
                    known.join(", ")
                )));
            }
            config.sandbox.allow_missing = names;
        }
        ("Sandbox", "MaxProcesses") => config.sandbox.max_processes = int(n, value, 16, 1_000_000)?,
        ("Sandbox", "MaxMemoryMiB") => {
            config.sandbox.max_memory_mib = Some(int(n, value, 64, 16 * 1024 * 1024)?)
        }
        ("Sandbox", "TmpSizeMiB") => config.sandbox.tmp_mib = int(n, value, 1, 1024 * 1024)?,
        ("Secrets", "Redact") => config.secrets.redact = boolean(n, value)?,
        ("Secrets", "Allow") => config.secrets.allow = strings(n, value)?,
        _ => {
            return Err(Failure::new(
                Code::Internal,
                format!("{n} is in the schema but not handled"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanked_without_moving_positions() {
        let text = "{ // a comment\n  \"Agent\": { /* inline */ \"Pace\": \"Step\" }, \"x\": \"// not a comment\" }";
        let stripped = strip_comments(text);
        assert_eq!(
            stripped,
            "{             \n  \"Agent\": {              \"Pace\": \"Step\" }, \"x\": \"// not a comment\" }"
        );
    }
}
