//! `keyless.json`: finding it, reading it (JSON with `//` and `/* */` comments), and checking
//! every key against the schema so a mistake names the key, the value and what is allowed.
//!
//! This file finds, reads and parses the file; its text before serde (comments, duplicate keys)
//! is in `text.rs`, the sections, keys and their values in `schema.rs`.

mod schema;
mod text;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use schema::SECTIONS;
use schema::{set, unknown, validation};
use text::{duplicate_key, strip_comments};

use super::Config;
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
