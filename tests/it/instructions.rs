//! The project's instructions for coding agents (`AGENTS.md` and kin) in the first message:
//! through `keyless run` on the local chat page (what the server receives) and `keyless
//! prompt`; bounded, redacted, never read through a link that leaves the workspace, and off
//! when `Snapshot.Instructions` says so.

use std::path::Path;
use std::process::{Command, Output};

use keyless::chat::local::{LocalChat, Script};

use crate::common::local_keyless::keyless_on;

const DONE: &str = "@@done\n<<<MSG\nFollowed the rules.\nMSG>>>\n@@end\n@@eof\n";

/// `keyless prompt TASK` in `ws`.
fn prompt(ws: &Path, task: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["prompt", task, "--workspace"])
        .arg(ws)
        .env("XDG_CONFIG_HOME", ws.join(".config-home"))
        .output()
        .unwrap()
}

fn write(ws: &Path, rel: &str, text: &str) {
    let path = ws.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_rules_of_agents_md_reach_the_model_with_the_first_message() {
    let chat = LocalChat::start(Script::replies([DONE])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    // A rule written only in AGENTS.md, a secret in it, and the nearer file of a folder the
    // task names; a folder the task does not name adds nothing.
    write(
        ws.path(),
        "AGENTS.md",
        "# House rules\r\nRun `make check` before @@done.\r\nDeploy key: ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\r\n",
    );
    write(
        ws.path(),
        "src/net/AGENTS.md",
        "In src/net, never block the event loop.\n",
    );
    write(ws.path(), "src/net/socket.rs", "// socket\n");
    write(
        ws.path(),
        "docs/AGENTS.md",
        "Docs are in British English.\n",
    );
    let out = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "Fix the timeout in `src/net/socket.rs`."],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "the project's instructions go with the first message: AGENTS.md, src/net/AGENTS.md"
        ),
        "{stderr}"
    );
    let first = &chat.received()[0];
    let section = &first[first.find("Project instructions").expect(first)..];
    assert!(
        section.contains(
            "--- AGENTS.md ---\n# House rules\nRun `make check` before @@done.\nDeploy key: [redacted: github-token]\n--- src/net/AGENTS.md ---\nIn src/net, never block the event loop.\n\nTask:\nFix the timeout"
        ),
        "{section}"
    );
    assert!(!first.contains("ghp_"), "redacted like everything sent");
    assert!(
        !first.contains("British"),
        "a folder the task does not name"
    );
}

#[test]
fn another_agents_file_stands_in_and_a_link_out_of_the_workspace_is_never_read() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "THE OUTSIDE TEXT\n");
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        ws.path().join("AGENTS.md"),
    )
    .unwrap();
    write(ws.path(), "CLAUDE.md", "Claude's rules: small commits.\n");
    write(
        ws.path(),
        ".github/copilot-instructions.md",
        "Copilot's rules.\n",
    );
    let out = prompt(ws.path(), "anything");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout.contains("THE OUTSIDE TEXT"), "{stdout}");
    assert!(
        stdout.contains("--- CLAUDE.md ---\nClaude's rules: small commits.\n"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("Copilot's rules"),
        "one stand-in, not all: {stdout}"
    );
}

#[test]
fn instructions_are_bounded_with_a_note_and_a_setting_turns_them_off() {
    let ws = tempfile::tempdir().unwrap();
    let line = "A rule that is one line of an overlong AGENTS.md file.\n";
    let long = line.repeat(400);
    write(ws.path(), "AGENTS.md", &long);
    write(ws.path(), "lib/AGENTS.md", "lib rules, which do not fit\n");
    write(ws.path(), "lib/x.py", "");
    let out = prompt(ws.path(), "edit lib/x.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "[cut here: the instructions keyless sends are limited; AGENTS.md has {} bytes: read the rest with @@readfile AGENTS.md]",
            long.len()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("--- lib/AGENTS.md ---\n[not shown: the instructions keyless sends are limited; read this file (28 bytes) with @@readfile lib/AGENTS.md]"),
        "{stdout}"
    );
    let shown = stdout.matches(line.trim_end()).count();
    assert!(shown > 100 && shown < 400, "{shown} lines shown");

    write(
        ws.path(),
        "keyless.json",
        "{\"Snapshot\": {\"Instructions\": false}}",
    );
    let out = prompt(ws.path(), "edit lib/x.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stdout.contains("Project instructions"), "{stdout}");
    assert!(!stderr.contains("instructions"), "{stderr}");
}
