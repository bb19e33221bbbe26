//! With no `git` program on PATH, AutoInit reports KA_GIT_NOT_INSTALLED. Its own test binary:
//! it changes PATH for the whole process.

use keyless::catalog::Code;
use keyless::git::{GitSettings, commit};

#[test]
fn auto_init_without_git_installed() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    // SAFETY: this test binary runs this single test; no other thread reads the environment.
    unsafe { std::env::set_var("PATH", empty.path()) };
    let settings = GitSettings {
        auto_init: true,
        ..GitSettings::default()
    };
    let failure = commit(dir.path(), "x", &settings).unwrap_err();
    assert_eq!(failure.code, Code::GitNotInstalled, "{failure:?}");
    assert!(!dir.path().join(".git").exists());
}
