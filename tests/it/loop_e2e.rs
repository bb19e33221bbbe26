//! End to end through the turn loop: `keyless run` (the built binary) against the local chat
//! page in headless Chromium, with a scripted model. Pace skips resent, an Ask-mode confirmation
//! declined without a terminal, a Denied command, and `@@commit` pushing to a bare remote.

use std::path::Path;
use std::process::{Command, Stdio};

use keyless::chat::local::{LocalChat, Script};

use crate::common::local_keyless::keyless_on;

/// Runs `keyless run` in `ws` against a local page scripted with `replies`; returns stdout,
/// the exit code, and every message the model received.
fn run(ws: &Path, replies: &[&str], args: &[&str]) -> (String, Option<i32>, Vec<String>) {
    let chat = LocalChat::start(Script::replies(replies.iter().copied())).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = keyless_on(&chat, ws, profile.path(), &["run", "the task"])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
        chat.received(),
    )
}

fn newfile(name: &str) -> String {
    format!("@@newfile {name}\n<<<CONTENT\n{name}\nCONTENT>>>\n@@end\n")
}

const DONE: &str = "@@done\n@@end\n@@eof\n";

#[test]
fn commands_skipped_for_the_pace_are_resent_and_the_turn_finishes() {
    let ws = tempfile::tempdir().unwrap();
    let first = ["a", "b", "c", "d"].map(newfile).concat() + "@@eof\n";
    let second = newfile("d") + DONE;
    let (stdout, code, received) = run(ws.path(), &[&first, &second], &["--pace", "balanced"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(received[1].contains("--- skipped 1 commands: pace=Balanced: only 3 command(s) per response; send the next one after reading this result ---"), "{}", received[1]);
    for name in ["a", "b", "c", "d"] {
        assert!(ws.path().join(name).is_file(), "{name}");
    }
}

#[test]
fn ask_mode_without_a_terminal_declines_and_the_model_hears_it() {
    let ws = tempfile::tempdir().unwrap();
    let risky = "@@runcommand\n<<<CMD\ntouch made-by-risky\nCMD>>>\n@@end\n@@eof\n";
    let (stdout, code, received) = run(ws.path(), &[risky, DONE], &["--mode", "ask"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        received[1].contains("status: error | code: KA_COMMAND_DECLINED | tier: Risky"),
        "{}",
        received[1]
    );
    assert!(!ws.path().join("made-by-risky").exists());
}

#[test]
fn a_denied_command_never_runs_and_the_model_hears_why() {
    let ws = tempfile::tempdir().unwrap();
    let denied = "@@runcommand\n<<<CMD\ntouch canary && git push --force\nCMD>>>\n@@end\n@@eof\n";
    let (stdout, code, received) = run(ws.path(), &[denied, DONE], &["--mode", "auto"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        received[1].contains("status: error | code: KA_COMMAND_DENIED | tier: Denied"),
        "{}",
        received[1]
    );
    assert!(
        received[1].contains("do not retry it in another spelling"),
        "{}",
        received[1]
    );
    assert!(!ws.path().join("canary").exists());
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn commit_through_the_loop_reaches_the_bare_remote() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let remote = dir.path().join("remote.git");
    std::fs::create_dir(&ws).unwrap();
    git(
        dir.path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    git(&ws, &["init", "-q", "-b", "feature"]);
    git(&ws, &["config", "user.name", "Loop Test"]);
    git(&ws, &["config", "user.email", "loop@example.com"]);
    git(&ws, &["remote", "add", "origin", remote.to_str().unwrap()]);
    let reply = newfile("notes.md") + "@@commit\n<<<MSG\nAdd notes\nMSG>>>\n@@end\n" + DONE;
    let (stdout, code, received) = run(&ws, &[&reply], &["--mode", "auto"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(
        received.len(),
        1,
        "@@done after a successful commit ends the turn"
    );
    assert_eq!(
        git(&remote, &["log", "-1", "--format=%s%n%an", "feature"]),
        "Add notes\nLoop Test"
    );
}
