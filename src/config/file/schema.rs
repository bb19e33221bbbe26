//! The schema of `keyless.json`: every section and its keys, and each key's value checked and
//! set on the [`Config`], so that a mistake names the key, the value and what is allowed.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::catalog::{Code, Failure};
use crate::config::{Config, FailureMode, Mode, Pace, SandboxMode};

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
            "StallSeconds",
            "WaitOnLimits",
            "Models",
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
            "NetworkAllow",
            "NetworkAllowOnly",
        ],
    ),
    ("Secrets", &["Redact", "Allow"]),
];

pub(super) fn validation(reason: String) -> Failure {
    Failure::new(Code::ConfigValidation, reason)
}

pub(super) fn unknown(name: &str, known: &[&str]) -> Failure {
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

/// A list of the proxy's allow-list entries (`docs/sandbox.md`); an empty list is allowed (for
/// `NetworkAllowOnly`, it means no host).
/// An address no entry can open (this machine, link-local, a metadata service) is refused here
/// rather than listed and never reached.
fn hosts(name: &str, value: &Value) -> Result<Vec<crate::hosts::Pattern>, Failure> {
    use crate::hosts::{Pattern, address};
    strings(name, value)?
        .iter()
        .map(|entry| {
            let pattern = Pattern::parse(entry).map_err(|why| {
                validation(format!(
                    "{name}: {why}. An entry is a host name (\"registry.example.com\"), every name below a suffix (\"*.example.com\"), an address or range (\"10.0.0.5\", \"10.0.0.0/8\"), or \"*\" for any host"
                ))
            })?;
            if let Pattern::Address(ip) = pattern
                && let Some(found) = address::classify(ip, &[]).filter(|f| f.never())
            {
                return Err(validation(format!(
                    "{name} holds {entry:?}, {found}: commands never reach it, whatever the configuration says"
                )));
            }
            Ok(pattern)
        })
        .collect()
}

/// `Browser.Models`: per site name, `{"Model": "…", "Effort": "…"}` (either may be left out).
fn site_models(
    name: &str,
    value: &Value,
) -> Result<std::collections::BTreeMap<String, crate::config::SiteModel>, Failure> {
    let Some(sites) = value.as_object() else {
        return Err(validation(format!(
            "{name} is {value}; it must be an object: {{\"chatgpt\": {{\"Model\": \"thinking\", \"Effort\": \"heavy\"}}}}"
        )));
    };
    let mut out = std::collections::BTreeMap::new();
    for (site, choice) in sites {
        let here = format!("{name}.{site}");
        let Some(keys) = choice.as_object() else {
            return Err(validation(format!(
                "{here} is {choice}; it must be an object with Model and/or Effort"
            )));
        };
        let mut chosen = crate::config::SiteModel::default();
        for (key, v) in keys {
            let field = format!("{here}.{key}");
            match key.as_str() {
                "Model" => chosen.model = Some(string(&field, v)?),
                "Effort" => chosen.effort = Some(string(&field, v)?),
                _ => return Err(unknown(&field, &["Model", "Effort"])),
            }
        }
        out.insert(site.clone(), chosen);
    }
    Ok(out)
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

pub(super) fn set(
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
        ("Browser", "Models") => config.browser.models = site_models(n, value)?,
        ("Browser", "ReplyTimeoutSeconds") => {
            config.browser.reply_timeout_seconds = int(n, value, 10, 7_200)?
        }
        ("Browser", "TruncationBudgetSeconds") => {
            config.browser.truncation_budget_seconds = int(n, value, 1, 3_600)?
        }
        ("Browser", "StallSeconds") => config.browser.stall_seconds = int(n, value, 2, 7_200)?,
        ("Browser", "WaitOnLimits") => config.browser.wait_on_limits = boolean(n, value)?,
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
        ("Sandbox", "NetworkAllow") => config.sandbox.network_allow = hosts(n, value)?,
        ("Sandbox", "NetworkAllowOnly") => {
            config.sandbox.network_allow_only = Some(hosts(n, value)?)
        }
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
