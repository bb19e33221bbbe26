//! What the test modules share: [`Test`], a fresh workspace that `keyless apply` carries a reply
//! out in; the host with no one at it ([`quiet_host`]); the built binary on the local chat page
//! ([`local_keyless`]); a program on a pseudo-terminal, typed at when it asks ([`pty`]); and the
//! property tests' configuration ([`proptest_config`]); a Python environment with pinned packages
//! ([`venv`]); the outside attacks' chat sites written in Python ([`python_site`]).

pub mod local_keyless;
pub mod pty;
pub mod python_site;
pub mod quiet_host;
pub mod shared_browser;
pub mod venv;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};

/// A fresh workspace and the built `keyless apply` to run in it, in the style of just's `Test`:
///
/// ```ignore
/// let test = Test::new().config(r#"{ "Agent": { "Mode": "Auto" } }"#).file("a.txt", "old\n");
/// test.apply(reply).code(0).stdout_has("status: ok");
/// ```
///
/// The workspace is `ws` inside a temporary folder; the reply file and an empty configuration
/// home (`XDG_CONFIG_HOME`, so no user's own keyless.json counts) sit beside it, outside the
/// workspace. One `Test` may apply several replies in turn.
pub struct Test {
    dir: tempfile::TempDir,
    ws: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

impl Test {
    pub fn new() -> Test {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        fs::create_dir(&ws).unwrap();
        let env = vec![(
            "XDG_CONFIG_HOME".into(),
            dir.path().join("no-user-config").into(),
        )];
        Test {
            dir,
            ws,
            args: Vec::new(),
            env,
        }
    }

    /// The workspace folder.
    pub fn ws(&self) -> &Path {
        &self.ws
    }

    /// The temporary folder that holds the workspace (and whatever a test puts beside it).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file of the workspace (folders made as needed).
    pub fn file(self, path: &str, contents: impl AsRef<[u8]>) -> Test {
        let path = self.ws.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
        self
    }

    /// Writes the workspace's `keyless.json`.
    pub fn config(self, json: &str) -> Test {
        self.file("keyless.json", json)
    }

    /// Arguments every `apply` of this test gets (after `--workspace`).
    pub fn args<S: Into<OsString>>(mut self, args: impl IntoIterator<Item = S>) -> Test {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// An environment variable for keyless.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Test {
        self.env.push((key.into(), value.into()));
        self
    }

    /// `keyless apply <reply> --workspace <ws> <args> <extra>` with no standard input, not
    /// started yet (for tests that signal it or read its output as it comes).
    pub fn command(&self, reply: &str, extra: &[&str]) -> Command {
        let file = self.dir.path().join("reply.txt");
        fs::write(&file, reply).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_keyless"));
        command
            .arg("apply")
            .arg(&file)
            .arg("--workspace")
            .arg(&self.ws)
            .args(&self.args)
            .args(extra)
            .stdin(Stdio::null());
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }

    /// Carries `reply` out in the workspace with `keyless apply`.
    pub fn apply(&self, reply: &str) -> Applied {
        self.apply_with(reply, &[])
    }

    /// [`Test::apply`] with more arguments for this run only.
    pub fn apply_with(&self, reply: &str, extra: &[&str]) -> Applied {
        let out = self.command(reply, extra).output().unwrap();
        Applied {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
        }
    }
}

impl Test {
    /// `keyless undo --workspace <ws> <args> <extra>`, as a person runs it after a batch.
    pub fn undo(&self, extra: &[&str]) -> Applied {
        let mut command = Command::new(env!("CARGO_BIN_EXE_keyless"));
        command
            .arg("undo")
            .arg("--workspace")
            .arg(&self.ws)
            .args(&self.args)
            .args(extra)
            .stdin(Stdio::null());
        for (key, value) in &self.env {
            command.env(key, value);
        }
        let out = command.output().unwrap();
        Applied {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
        }
    }
}

/// What one `keyless apply` printed and how it exited. The checks panic with all of it.
#[derive(Debug)]
pub struct Applied {
    /// The results message.
    pub stdout: String,
    /// What the user saw (`@@say`, warnings, errors).
    pub stderr: String,
    pub code: Option<i32>,
}

impl Applied {
    pub fn code(self, code: i32) -> Applied {
        assert_eq!(self.code, Some(code), "{self:#?}");
        self
    }

    pub fn stdout_has(self, text: &str) -> Applied {
        assert!(self.stdout.contains(text), "no {text:?} in {self:#?}");
        self
    }

    pub fn stderr_has(self, text: &str) -> Applied {
        assert!(self.stderr.contains(text), "no {text:?} in {self:#?}");
        self
    }
}

/// A property test's configuration: `cases` cases, and the regression seeds read from (and
/// saved to) `<test file>.proptest-regressions` beside the test's source. proptest's default
/// would look in `tests/proptest-regressions/` instead, because this binary has a `main.rs`.
pub fn proptest_config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::with_cases(cases)
    }
}

/// The saved regression seeds are found where the property tests look for them.
#[test]
fn proptest_finds_the_saved_regression_seeds() {
    for source in [
        "tests/it/parser_props.rs",
        "tests/it/policy.rs",
        "tests/it/policy_spellings.rs",
    ] {
        let persistence = proptest_config(1).failure_persistence.unwrap();
        let seeds = persistence.load_persisted_failures2(Some(source));
        assert!(!seeds.is_empty(), "no seeds found for {source}");
    }
}
