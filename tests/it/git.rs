//! `@@commit` with real repositories and a local bare remote: commit and push, a rejected push
//! that keeps the commit, protected branches, not a repository with and without AutoInit, and
//! nothing to commit.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use keyless::catalog::Code;
use keyless::git::{GitSettings, Trust, commit};

use crate::common::Test;

/// What keyless trusts for a push in these tests: the system's git, nothing writable.
fn trust() -> Trust {
    Trust {
        git: Some(std::path::PathBuf::from("/usr/bin/git")),
        ..Trust::default()
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `keyless apply` in Auto mode, with no user's git configuration.
fn test() -> Test {
    Test::new()
        .args(["--mode", "auto"])
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
}

/// A test whose workspace is a repository on branch `work` with one commit, and a bare
/// `origin` beside it that has it.
fn repo_with_remote() -> (Test, std::path::PathBuf) {
    let test = test();
    let (root, ws) = (test.root(), test.ws());
    let remote = root.join("remote.git");
    git(root, &["init", "-q", "--bare", remote.to_str().unwrap()]);
    git(ws, &["init", "-q", "-b", "work"]);
    git(ws, &["config", "user.name", "Test User"]);
    git(ws, &["config", "user.email", "test@example.com"]);
    git(ws, &["remote", "add", "origin", remote.to_str().unwrap()]);
    fs::write(ws.join("README.md"), "hello\n").unwrap();
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "-qm", "first"]);
    git(ws, &["push", "-q", "-u", "origin", "work"]);
    (test, remote)
}

const COMMIT: &str = "@@newfile src/new.rs\n<<<CONTENT\nfn new() {}\nCONTENT>>>\n@@end\n@@deletefile README.md\n@@end\n@@commit\n<<<MSG\nAdd new.rs, drop the README\nMSG>>>\n@@end\n@@next\n@@end\n@@eof\n";

#[test]
fn commit_stages_everything_like_add_all_and_pushes() {
    let (test, remote) = repo_with_remote();
    let ws = test.ws();
    fs::write(ws.join("untracked.txt"), "u\n").unwrap();
    let out = test
        .apply(&COMMIT.replace("@@deletefile", "@@readfile"))
        .stdout;
    assert!(
        out.contains(
            "--- result 3/3 | #3 commit | Add new.rs, drop the README ---\nstatus: ok | commit: "
        ),
        "{out}"
    );
    assert!(out.contains("| branch: work | pushed: origin"), "{out}");
    assert!(out.contains("on work: 2 file(s) changed"), "{out}");
    assert_eq!(
        git(ws, &["status", "--porcelain"]),
        "",
        "everything was committed"
    );
    assert_eq!(
        git(ws, &["log", "-1", "--format=%s%n%an"]),
        "Add new.rs, drop the README\nTest User"
    );
    assert_eq!(
        git(&remote, &["log", "-1", "--format=%s", "work"]),
        "Add new.rs, drop the README"
    );
    // keyless's own state is never committed.
    assert!(!git(ws, &["ls-files"]).contains(".agent"));
}

#[test]
fn removed_files_are_committed_as_removed() {
    let (test, _) = repo_with_remote();
    let ws = test.ws();
    let out = test
        .apply(
            &COMMIT
                .replace("@@deletefile README.md", "@@readfile README.md")
                .replace(
                    "@@newfile src/new.rs\n<<<CONTENT\nfn new() {}\nCONTENT>>>\n@@end\n",
                    "",
                ),
        )
        .stdout;
    assert!(out.contains("nothing to commit"), "{out}");
    fs::remove_file(ws.join("README.md")).unwrap();
    let report = commit(
        ws,
        "drop readme",
        &GitSettings {
            push: false,
            ..GitSettings::default()
        },
        &trust(),
    )
    .unwrap();
    assert!(report.lines[0].contains("1 file(s) changed"), "{report:?}");
    assert!(!git(ws, &["ls-files"]).contains("README.md"));
}

#[test]
fn a_rejected_push_keeps_the_commit_and_reports_both() {
    let (test, remote) = repo_with_remote();
    let ws = test.ws();
    // Someone else pushes first: the remote moves ahead.
    let other = test.root().join("other");
    git(
        test.root(),
        &[
            "clone",
            "-q",
            "-b",
            "work",
            remote.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    fs::write(other.join("theirs.txt"), "theirs\n").unwrap();
    git(&other, &["add", "-A"]);
    git(
        &other,
        &[
            "-c",
            "user.name=o",
            "-c",
            "user.email=o@o",
            "commit",
            "-qm",
            "theirs",
        ],
    );
    git(&other, &["push", "-q", "origin", "work"]);

    let out = test.apply(COMMIT).stdout;
    assert!(
        out.contains("status: error | code: KA_GIT_FAILURE | commit: "),
        "{out}"
    );
    assert!(
        out.contains("reason: git push -u origin work failed"),
        "{out}"
    );
    assert!(out.contains("committed "), "the commit is reported: {out}");
    assert_eq!(
        git(ws, &["log", "-1", "--format=%s"]),
        "Add new.rs, drop the README",
        "the commit is kept"
    );
}

#[test]
fn protected_branches_refuse_the_commit() {
    let test = test();
    let ws = test.ws();
    git(ws, &["init", "-q", "-b", "main"]);
    let out = test
        .apply(&COMMIT.replace("@@deletefile README.md\n@@end\n", ""))
        .stdout;
    assert!(out.contains("code: KA_BRANCH_PROTECTED"), "{out}");
    assert!(
        out.contains("git switch -c keyless/"),
        "tells the model how to branch: {out}"
    );
    let head = Command::new("git")
        .args(["rev-parse", "--verify", "HEAD"])
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(!head.status.success(), "no commit was made");
}

#[test]
fn not_a_repository_without_auto_init() {
    let test = test();
    let out = test
        .apply(&COMMIT.replace("@@deletefile README.md\n@@end\n", ""))
        .stdout;
    assert!(out.contains("code: KA_NOT_A_GIT_REPOSITORY"), "{out}");
    assert!(!test.ws().join(".git").exists());
}

/// With no `git` program on PATH, AutoInit reports KA_GIT_NOT_INSTALLED. keyless runs with an
/// empty PATH of its own; the tests' process keeps its environment.
#[test]
fn auto_init_without_git_installed() {
    let empty = tempfile::tempdir().unwrap();
    let test = test()
        .config(r#"{ "Git": { "AutoInit": true } }"#)
        .env("PATH", empty.path());
    test.apply(&COMMIT.replace("@@deletefile README.md\n@@end\n", ""))
        .stdout_has("status: error | code: KA_GIT_NOT_INSTALLED");
    assert!(!test.ws().join(".git").exists());
}

#[test]
fn auto_init_creates_the_repository_and_commits() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let settings = GitSettings {
        auto_init: true,
        push: true,
        protected_branches: Vec::new(),
    };
    let report = commit(dir.path(), "first", &settings, &trust()).unwrap();
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("initialised a new git repository")),
        "{report:?}"
    );
    assert!(
        report
            .lines
            .iter()
            .any(|l| l.contains("no remote named origin")),
        "{report:?}"
    );
    assert_eq!(git(dir.path(), &["log", "-1", "--format=%s"]), "first");
    // The second commit with nothing new is not a failure.
    let again = commit(dir.path(), "again", &settings, &trust()).unwrap();
    assert_eq!(again.details, vec!["nothing to commit"]);
}

#[test]
fn auto_init_that_fails_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    // A `.git` file that is not a valid gitfile: git init refuses it.
    fs::write(dir.path().join(".git"), "not a gitfile\n").unwrap();
    let settings = GitSettings {
        auto_init: true,
        ..GitSettings::default()
    };
    let failure = commit(dir.path(), "x", &settings, &trust()).unwrap_err();
    assert_eq!(failure.code, Code::GitInitFailed, "{failure:?}");
}

#[test]
fn a_detached_head_is_a_git_failure() {
    let (test, _) = repo_with_remote();
    let ws = test.ws();
    git(ws, &["checkout", "-q", "--detach"]);
    let failure = commit(ws, "x", &GitSettings::default(), &trust()).unwrap_err();
    assert_eq!(failure.code, Code::GitFailure);
    assert!(failure.reason.contains("detached"));
}

#[test]
fn commit_and_push_run_no_hook_of_the_repository() {
    let (test, remote) = repo_with_remote();
    let ws = test.ws();
    let marker = test.root().join("hook-ran");
    for hook in ["pre-commit", "commit-msg", "post-commit", "pre-push"] {
        let path = ws.join(".git/hooks").join(hook);
        fs::write(
            &path,
            format!("#!/bin/sh\necho {hook} >> '{}'\n", marker.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = test.apply(COMMIT).stdout;
    assert!(out.contains("| pushed: origin"), "{out}");
    assert!(
        !marker.exists(),
        "a hook ran: {:?}",
        fs::read_to_string(&marker)
    );
    assert_eq!(
        git(&remote, &["log", "-1", "--format=%s", "work"]),
        "Add new.rs, drop the README"
    );
}
