//! keyless's own hands are as untrusting as the sandbox (issue 29): every path keyless opens in
//! the workspace for the model, before or after a command ran (the file commands, `undo`, the
//! first message's instructions), goes through one resolver that refuses links, `.git` of any
//! repository, `.agent`, keyless's configuration files and the hidden paths. Tried as an
//! attacker would, through the built `keyless apply` in Auto mode (the model's real commands,
//! in the sandbox, make the links) and `keyless undo`; each attack would do real harm if it
//! worked (a git hook the person's next `git status` runs, Auto mode with the sandbox off, a
//! hidden secret in the chat), and each test checks that it did not.

use std::ffi::OsString;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{Applied, Test};

/// Room for one reply to carry every attack, each command carried out whatever the one before
/// did, and Auto mode wherever this machine's sandbox lacks a guarantee (the sandbox is not
/// under test here).
const CONFIG: &str = r#"{ "Limits": { "MaxCommandsPerResponse": 50 }, "Commands": { "BatchFailureMode": "Continue" }, "Sandbox": { "AllowMissing": ["*"] } }"#;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A workspace that is a git repository, its configuration in `keyless.json`, applied in Auto
/// mode.
fn repo() -> Test {
    let test = Test::new()
        .config(CONFIG)
        .args(["--mode", "auto", "--pace", "batch"]);
    git(test.ws(), &["init", "-q"]);
    test
}

fn newfile(path: &str, content: &str) -> String {
    format!("@@newfile {path}\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n")
}

fn updatefile(path: &str, content: &str) -> String {
    format!("@@updatefile {path}\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n")
}

fn run(command: &str) -> String {
    format!("@@runcommand\n<<<CMD\n{command}\nCMD>>>\n@@end\n")
}

const NEXT: &str = "@@next\n@@end\n@@eof\n";

/// How many results the resolver refused.
fn refused(applied: &Applied) -> usize {
    applied.stdout.matches("code: KA_PATH_OUTSIDE").count()
}

/// The bytes of every file under `dir` (for "nothing here changed").
fn fingerprint(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                folders.push(path);
            } else if meta.is_file() {
                out.push((path.display().to_string(), fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn json(applied: &Applied) -> Value {
    serde_json::from_str(&applied.stdout).unwrap_or_else(|e| panic!("{e}: {applied:#?}"))
}

/// The issue's attack: the model writes a git configuration that runs a program, records it in
/// a backup by changing the file, and a command replaces the folder by a link to `.git`. Undo
/// used to put the recorded bytes back through the link (into `.git/config`, which the person's
/// next `git status` reads) and to remove `.git/HEAD` as "a file the batch created". Now it
/// puts back nothing through the link, says so, and keeps the old bytes for the person.
#[test]
fn undo_never_writes_through_a_folder_a_command_replaced_by_a_link() {
    let test = repo();
    let ws = test.ws().to_path_buf();
    let git_before = fingerprint(&ws.join(".git"));
    let evil = "[core]\n\tfsmonitor = \"touch pwned\"";
    test.apply(&(newfile("x/config", evil) + NEXT)).code(0);
    // The policy refuses `ln -s .git x` as written; a script the model wrote hides it.
    let applied = test.apply(
        &(updatefile("x/config", "[core]")
            + &newfile("x/HEAD", "ref: refs/heads/evil")
            + &newfile("swap.sh", "mv x x.old && ln -s .git x")
            + &run("sh swap.sh")
            + NEXT),
    );
    let applied = applied.code(0);
    assert!(
        fs::symlink_metadata(ws.join("x"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the command made the link: {applied:#?}"
    );

    let undone = test.undo(&["--json"]).code(3);
    let report = json(&undone);
    assert_eq!(report["batch"], 2, "{undone:#?}");
    let refused = report["refused"].as_array().unwrap();
    let paths: Vec<&str> = refused
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["x/HEAD", "x/config"], "{undone:#?}");
    for r in refused {
        let reason = r["reason"].as_str().unwrap();
        assert!(reason.contains("x is a symbolic link"), "{reason}");
    }
    let kept = refused[1]["kept"].as_str().unwrap();
    assert_eq!(
        fs::read_to_string(ws.join(kept)).unwrap(),
        format!("{evil}\n"),
        "the old bytes are kept for the person"
    );
    assert_eq!(
        fingerprint(&ws.join(".git")),
        git_before,
        ".git is as it was"
    );

    // Undoing the batch before it (which made the folder x and x/config) meets the same link,
    // and says so in the words a person reads.
    test.undo(&[])
        .code(3)
        .stdout_has("Undid batch 1")
        .stdout_has("not put back: x/config is refused: x is a symbolic link")
        .stdout_has("not put back: x is a symbolic link")
        .stderr_has("2 change(s) were left as they are");
    assert_eq!(fingerprint(&ws.join(".git")), git_before);
    git(&ws, &["status", "--short"]);
    assert!(!ws.join("pwned").exists() && !ws.join("x.old/pwned").exists());
}

/// A backup records paths; whatever one says (written by an older keyless, or by hand), undo
/// puts nothing back into `.git`, a nested `.git`, `keyless.json` or `.agent`, and restores the
/// rest.
#[test]
fn undo_puts_back_nothing_protected_whatever_its_backup_records() {
    let test = repo().file("a.txt", "changed\n");
    let ws = test.ws().to_path_buf();
    let folder = ws.join(".agent/backups/b000001");
    fs::create_dir_all(folder.join("files")).unwrap();
    let entries = [
        (".git/config", "[core]\n\thooksPath = /tmp\n"),
        ("keyless.json", "{ \"Sandbox\": { \"Mode\": \"off\" } }\n"),
        ("vendor/.git/hooks/pre-commit", "#!/bin/sh\ntouch pwned\n"),
        (".agent/session.json", "{}\n"),
        ("a.txt", "as it was\n"),
    ];
    let mut records = Vec::new();
    for (i, (path, bytes)) in entries.iter().enumerate() {
        let backup = format!("files/{:04}", i + 1);
        fs::write(folder.join(&backup), bytes).unwrap();
        records.push(serde_json::json!({
            "action": "modified", "path": path, "backup": backup, "mode": null
        }));
    }
    let manifest = serde_json::json!({
        "id": 1, "kind": "batch", "label": "by hand", "entries": records, "undone": false
    });
    fs::write(folder.join("manifest.json"), manifest.to_string()).unwrap();
    let before = (
        fingerprint(&ws.join(".git")),
        fs::read(ws.join("keyless.json")).unwrap(),
    );

    let undone = test.undo(&["--json"]).code(3);
    let report = json(&undone);
    assert_eq!(report["actions"], serde_json::json!(["restored a.txt"]));
    let reasons: Vec<&str> = report["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 4, "{undone:#?}");
    for (reason, part) in reasons.iter().zip([
        ".agent, keyless's own state",
        ".git of a nested repository",
        "keyless's own configuration",
        ".git of this repository",
    ]) {
        assert!(reason.contains(part), "{reason}");
    }
    assert_eq!(fs::read_to_string(ws.join("a.txt")).unwrap(), "as it was\n");
    assert_eq!(
        (
            fingerprint(&ws.join(".git")),
            fs::read(ws.join("keyless.json")).unwrap()
        ),
        before
    );
    assert!(!ws.join("vendor").exists());
}

/// `--config` names keyless's configuration wherever it is; inside the workspace under another
/// name than `keyless.json` it is out of the file commands' reach like `keyless.json` is (it
/// holds the mode, and a model must not turn the sandbox off), also under a link a command made.
#[test]
fn a_config_file_given_with_config_inside_the_workspace_is_out_of_reach() {
    let test = Test::new();
    let config = test.ws().join("cfg/settings.json");
    let test = test.file("cfg/settings.json", CONFIG).args([
        OsString::from("--config"),
        config.clone().into(),
        "--mode".into(),
        "auto".into(),
        "--pace".into(),
        "batch".into(),
    ]);
    let off = r#"{ "Agent": { "Mode": "Auto" }, "Sandbox": { "Mode": "off" } }"#;
    let reply = "@@readfile cfg/settings.json\n@@end\n".to_string()
        + &updatefile("cfg/settings.json", off)
        + "@@editfile cfg/settings.json\n<<<FIND\nContinue\nFIND>>>\n<<<REPLACE\nStopOnAnyFailure\nREPLACE>>>\n@@end\n"
        + "@@deletefile cfg/settings.json\n@@end\n"
        + "@@movefile cfg/settings.json\n<<<TO\nold.json\nTO>>>\n@@end\n"
        + &newfile("draft.json", off)
        + "@@movefile draft.json\n<<<TO\ncfg/settings.json\nTO>>>\n@@end\n"
        + &run("ln -s cfg/settings.json s.json")
        + &updatefile("s.json", off)
        + NEXT;
    let applied = test.apply(&reply);
    assert_eq!(refused(&applied), 7, "{applied:#?}");
    assert!(
        applied
            .stdout
            .contains("cfg/settings.json is protected: keyless's own configuration"),
        "{applied:#?}"
    );
    assert!(
        applied.stdout.contains("s.json is a symbolic link"),
        "{applied:#?}"
    );
    assert_eq!(fs::read_to_string(&config).unwrap(), CONFIG);
}

/// What the sandbox hides from commands (`Sandbox.HiddenPaths`, keyless's browser profile kept
/// in the workspace) is hidden from file commands too, also through a link a command made to
/// it (the command cannot see it, but can name it); the snapshot's listing leaves it out.
#[test]
fn hidden_paths_and_a_browser_profile_inside_the_workspace_are_out_of_reach() {
    let test = Test::new();
    let ws = test.ws().to_path_buf();
    let config = format!(
        r#"{{ "Limits": {{ "MaxCommandsPerResponse": 50 }}, "Commands": {{ "BatchFailureMode": "Continue" }}, "Sandbox": {{ "AllowMissing": ["*"], "HiddenPaths": ["{}"] }}, "Browser": {{ "UserDataDir": "{}" }} }}"#,
        ws.join("secrets").display(),
        ws.join("profile").display()
    );
    let test = test
        .config(&config)
        .file("secrets/token.txt", "TOKEN-hidden-7f3a\n")
        .file("profile/Default/Cookies", "COOKIE-hidden-91bc\n")
        .args(["--mode", "auto", "--pace", "batch"]);
    let before = (
        fingerprint(&ws.join("secrets")),
        fingerprint(&ws.join("profile")),
    );
    let reply = "@@readfile secrets/token.txt\n@@end\n".to_string()
        + "@@movefile secrets/token.txt\n<<<TO\nleak.txt\nTO>>>\n@@end\n"
        + &newfile("secrets/planted.txt", "x")
        + "@@readfile profile/Default/Cookies\n@@end\n"
        + &updatefile("profile/Default/Preferences", "{}")
        + &run("ln -s secrets s && ln -s profile/Default/Cookies c")
        + "@@readfile s/token.txt\n@@end\n"
        + "@@readfile c\n@@end\n"
        + "@@editfile c\n<<<FIND\nCOOKIE\nFIND>>>\n<<<REPLACE\nx\nREPLACE>>>\n@@end\n"
        + NEXT;
    let applied = test.apply(&reply);
    assert_eq!(refused(&applied), 8, "{applied:#?}");
    assert!(
        applied
            .stdout
            .contains("secrets/token.txt is refused: secrets is hidden")
            && applied
                .stdout
                .contains("profile/Default/Cookies is refused: profile is hidden"),
        "{applied:#?}"
    );
    for secret in ["TOKEN-hidden", "COOKIE-hidden"] {
        assert!(!applied.stdout.contains(secret), "{applied:#?}");
    }
    assert_eq!(
        (
            fingerprint(&ws.join("secrets")),
            fingerprint(&ws.join("profile"))
        ),
        before
    );
    assert!(!ws.join("leak.txt").exists());

    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["prompt", "anything", "--workspace"])
        .arg(&ws)
        .env("XDG_CONFIG_HOME", test.root().join("no-user-config"))
        .output()
        .unwrap();
    let prompt = String::from_utf8_lossy(&out.stdout);
    let listing = prompt
        .lines()
        .find(|l| l.starts_with("- Workspace:"))
        .unwrap_or_else(|| panic!("{prompt}"));
    assert!(listing.contains("keyless.json"), "{listing}");
    assert!(
        !listing.contains("secrets") && !listing.contains("profile"),
        "{listing}"
    );
}

/// A nested repository's `.git` may be a file naming its real folder elsewhere in the workspace
/// (`git init --separate-git-dir`, submodules, worktrees): the file and the folder it names are
/// both protected, and so is a bare repository wherever it lies (its hooks run on a push).
#[test]
fn a_nested_repository_s_git_file_and_the_folder_it_points_to_are_protected() {
    let test = repo().file("a.txt", "a\n");
    let ws = test.ws().to_path_buf();
    fs::create_dir_all(ws.join("vendor")).unwrap();
    fs::create_dir_all(ws.join(".repos")).unwrap();
    git(
        &ws,
        &[
            "init",
            "-q",
            "--separate-git-dir",
            ".repos/lib.git",
            "vendor/lib",
        ],
    );
    git(&ws, &["init", "-q", "--bare", "store/x.git"]);
    assert!(fs::metadata(ws.join("vendor/lib/.git")).unwrap().is_file());
    let before = (
        fingerprint(&ws.join(".repos")),
        fingerprint(&ws.join("store")),
        fs::read(ws.join("vendor/lib/.git")).unwrap(),
    );
    let reply = newfile(
        ".repos/lib.git/hooks/post-checkout",
        "#!/bin/sh\ntouch pwned",
    ) + "@@readfile .repos/lib.git/config\n@@end\n"
        + "@@editfile .repos/lib.git/HEAD\n<<<FIND\nref\nFIND>>>\n<<<REPLACE\nfer\nREPLACE>>>\n@@end\n"
        + "@@movefile a.txt\n<<<TO\n.repos/lib.git/hooks/pre-commit\nTO>>>\n@@end\n"
        + &updatefile("vendor/lib/.git", "gitdir: ../../evil")
        + "@@readfile vendor/lib/.git\n@@end\n"
        + &newfile("store/x.git/hooks/pre-receive", "#!/bin/sh\ntouch pwned")
        + &newfile("vendor/lib/.GIT/config", "[core]")
        + NEXT;
    let applied = test.apply(&reply);
    assert_eq!(refused(&applied), 8, "{applied:#?}");
    assert!(
        applied.stdout.contains(
            ".repos/lib.git/config is refused: .repos/lib.git is protected: a git repository's own folder"
        ),
        "{applied:#?}"
    );
    assert!(
        applied
            .stdout
            .contains("vendor/lib/.git is protected: .git of a nested repository"),
        "{applied:#?}"
    );
    let after = (
        fingerprint(&ws.join(".repos")),
        fingerprint(&ws.join("store")),
        fs::read(ws.join("vendor/lib/.git")).unwrap(),
    );
    assert_eq!(after, before);
    assert!(ws.join("a.txt").exists());
}

/// A repository inside a folder git ignores, or deeper than the sandbox looks for nested
/// repositories (a dependency's checkout under `node_modules`, a build's under `build/`): its
/// `.git` is refused by its name, wherever it is.
#[test]
fn a_git_folder_inside_an_ignored_folder_is_protected() {
    let test = repo().file(".gitignore", "node_modules/\nbuild/\n");
    let ws = test.ws().to_path_buf();
    let deep = "build/a/b/c/d/e/f/dep";
    for folder in ["node_modules/pkg", deep] {
        fs::create_dir_all(ws.join(folder)).unwrap();
        git(&ws.join(folder), &["init", "-q"]);
    }
    let before = fingerprint(&ws.join("node_modules"));
    let before_deep = fingerprint(&ws.join("build"));
    let reply = newfile(
        "node_modules/pkg/.git/hooks/pre-commit",
        "#!/bin/sh\ntouch pwned",
    ) + &updatefile("node_modules/pkg/.git/config", "[core]\n\tfsmonitor = evil")
        + &newfile(&format!("{deep}/.git/hooks/post-merge"), "#!/bin/sh")
        + &format!("@@readfile {deep}/.git/config\n@@end\n")
        + NEXT;
    let applied = test.apply(&reply);
    assert_eq!(refused(&applied), 4, "{applied:#?}");
    assert_eq!(fingerprint(&ws.join("node_modules")), before);
    assert_eq!(fingerprint(&ws.join("build")), before_deep);
}

/// Between two file commands of one batch a command replaces a folder by a link (here to a
/// folder inside the workspace, which the old resolver followed): the file commands after it
/// refuse the link, whatever it leads to.
#[test]
fn file_commands_refuse_a_link_a_command_made_in_the_same_batch() {
    let test = repo();
    let ws = test.ws().to_path_buf();
    let reply = newfile("d/a.txt", "mine")
        + &run("mv d d.old && ln -s d.old d")
        + &updatefile("d/a.txt", "through the link")
        + &newfile("d/b.txt", "through the link")
        + "@@deletefile d/a.txt\n@@end\n"
        + "@@readfile d/a.txt\n@@end\n"
        + NEXT;
    let applied = test.apply(&reply);
    assert_eq!(refused(&applied), 4, "{applied:#?}");
    assert_eq!(
        fs::read_to_string(ws.join("d.old/a.txt")).unwrap(),
        "mine\n"
    );
    assert!(!ws.join("d.old/b.txt").exists());
}

/// The first message's instructions are read like a file the model reads: an `AGENTS.md` that
/// is a link (here to a private file inside the workspace, which the old reading followed), or
/// in a hidden folder the task names, is not read into the chat.
#[test]
fn the_first_message_reads_no_instructions_through_a_link_or_from_a_hidden_path() {
    let test = Test::new();
    let ws = test.ws().to_path_buf();
    let config = format!(
        r#"{{ "Sandbox": {{ "HiddenPaths": ["{}"] }} }}"#,
        ws.join("secrets").display()
    );
    let test = test
        .config(&config)
        .file("notes/private.md", "PRIVATE NOTE 42\n")
        .file("CLAUDE.md", "Claude's rules: small commits.\n")
        .file("src/y.py", "")
        .file("secrets/x.py", "")
        .file("secrets/AGENTS.md", "HIDDEN RULE 17\n");
    std::os::unix::fs::symlink("notes/private.md", ws.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("../notes/private.md", ws.join("src/AGENTS.md")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["prompt", "fix secrets/x.py and src/y.py", "--workspace"])
        .arg(&ws)
        .env("XDG_CONFIG_HOME", test.root().join("no-user-config"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout.contains("--- CLAUDE.md ---\nClaude's rules: small commits.\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("PRIVATE NOTE"), "{stdout}");
    assert!(!stdout.contains("HIDDEN RULE"), "{stdout}");
}
