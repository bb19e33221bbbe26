//! The environment snapshot's tool list: which configured tools exist on this machine and their
//! versions. A tool listed as Missing makes `@@runcommand` fail fast with KA_TOOL_MISSING.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Tools checked when the configuration names none.
pub use crate::config::DEFAULT_TOOLS;

/// How long one version probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// A tool and what the snapshot found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    pub name: String,
    /// `None` when the tool is Missing.
    pub version: Option<String>,
}

/// Finds an executable on PATH, as the shell would.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The configured tools that are not on PATH.
pub fn missing(tools: &[String]) -> Vec<String> {
    tools
        .iter()
        .filter(|t| find_on_path(t).is_none())
        .cloned()
        .collect()
}

/// Each tool with the first line its `--version` prints, or Missing.
pub fn probe(tools: &[String], cwd: &Path) -> Vec<Tool> {
    tools
        .iter()
        .map(|name| {
            let version = find_on_path(name).map(|_| {
                super::run(&format!("{name} --version"), cwd, PROBE_TIMEOUT, 400)
                    .ok()
                    .and_then(|run| {
                        run.output
                            .lines()
                            .find(|l| !l.trim().is_empty())
                            .map(|l| l.trim().to_string())
                    })
                    .unwrap_or_else(|| "present (version unknown)".to_string())
            });
            Tool {
                name: name.clone(),
                version,
            }
        })
        .collect()
}
