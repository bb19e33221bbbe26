//! The environment snapshot's tool list: which configured tools exist on this machine and their
//! versions. A tool listed as Missing makes `@@runcommand` fail fast with KA_TOOL_MISSING.

use std::path::Path;
use std::time::Duration;

pub use super::which::find_on_path;

/// How long one version probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// A tool and what the snapshot found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    pub name: String,
    /// `None` when the tool is Missing.
    pub version: Option<String>,
}

/// The configured tools that are not on PATH.
pub fn missing(tools: &[String]) -> Vec<String> {
    tools
        .iter()
        .filter(|t| find_on_path(t).is_none())
        .cloned()
        .collect()
}

/// Each tool with the first line its `--version` prints, or Missing. The tools are asked at
/// once, each in its own thread: a run starts in the time of the slowest (npm takes about
/// 0.25 s), not of all of them in turn.
///
/// The probes run in `cwd`, the workspace, which a model may have written (a toolchain file that
/// names a program of its own, say): with `sandbox` they are contained as a model's command
/// would be ([`super::sandbox::Sandbox::own_command`]).
pub fn probe(tools: &[String], cwd: &Path, sandbox: Option<&super::sandbox::Sandbox>) -> Vec<Tool> {
    std::thread::scope(|scope| {
        let asked: Vec<_> = tools
            .iter()
            .map(|name| scope.spawn(move || version_of(name, cwd, sandbox)))
            .collect();
        tools
            .iter()
            .zip(asked)
            .map(|(name, asked)| Tool {
                name: name.clone(),
                version: asked.join().unwrap_or(None),
            })
            .collect()
    })
}

/// How a tool says its version when `--version` is not how: Go's is a subcommand, Java's a
/// single-dash option (printed on standard error, which the runner keeps).
const VERSION_ARGS: &[(&str, &str)] = &[
    ("go", "version"),
    ("java", "-version"),
    ("javac", "-version"),
];

/// What a tool prints for its version, `None` when it is Missing: `name --version` (or the
/// tool's own way, [`VERSION_ARGS`]); when that fails, `version` and `-version` are tried. The
/// line kept is the first that holds a digit (Gradle's banner opens with a rule of dashes).
fn version_of(name: &str, cwd: &Path, sandbox: Option<&super::sandbox::Sandbox>) -> Option<String> {
    find_on_path(name)?;
    let own = VERSION_ARGS
        .iter()
        .find(|(tool, _)| *tool == name)
        .map(|(_, args)| *args);
    let tries: Vec<&str> = match own {
        Some(args) => vec![args],
        None => vec!["--version", "version", "-version"],
    };
    for args in tries {
        let line = format!("{name} {args}");
        let ran = match sandbox {
            Some(sandbox) => {
                sandbox
                    .own_command("sh", &["-c", &line])
                    .and_then(|(command, contained)| {
                        let run = super::run_command(command, cwd, PROBE_TIMEOUT, 400);
                        if let Ok(run) = &run {
                            contained.finish(run.code != Some(0), &run.output);
                        }
                        run
                    })
            }
            None => super::run(&line, cwd, PROBE_TIMEOUT, 400),
        };
        let Ok(run) = ran else { continue };
        if run.code != Some(0) {
            continue;
        }
        if let Some(version) = run
            .output
            .lines()
            .map(str::trim)
            .find(|l| l.bytes().any(|b| b.is_ascii_digit()))
        {
            return Some(version.to_string());
        }
    }
    Some("present (version unknown)".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_asked_at_once_and_reported_in_their_order() {
        let tools = ["git", "keyless-no-such-tool", "git"].map(String::from);
        let found = probe(&tools, Path::new("."), None);
        let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["git", "keyless-no-such-tool", "git"]);
        assert!(
            found[0]
                .version
                .as_deref()
                .unwrap()
                .starts_with("git version")
        );
        assert_eq!(found[1].version, None);
        assert_eq!(found[0], found[2]);
    }

    #[test]
    fn each_tool_is_asked_its_own_way() {
        // Go answers `--version` with an error ("flag provided but not defined: -version");
        // the tests' machines have Go (README, `.ci/run`).
        let found = probe(&["go".to_string(), "git".to_string()], Path::new("."), None);
        let go = found[0].version.as_deref().unwrap();
        assert!(go.starts_with("go version go"), "{go}");
        assert!(
            found[1]
                .version
                .as_deref()
                .unwrap()
                .starts_with("git version")
        );
    }
}
