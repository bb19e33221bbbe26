//! One keyless per workspace and per browser profile: a second one started while the first
//! works is refused with the first one's process id, never let in to mix up sessions or take
//! over the first one's browser. The real binary, headless Chromium, the local chat page.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use keyless::chat::local::{Fault, LocalChat, Script, ScriptedReply};

use crate::common::local_keyless::keyless_launching;

/// `keyless run wait` on the local page.
fn keyless(ws: &Path, profile: &Path, chat: &LocalChat) -> Command {
    keyless_launching(chat, ws, profile, &["run", "wait"])
}

#[test]
fn a_second_keyless_on_the_same_workspace_or_profile_is_refused() {
    let chat = LocalChat::start(Script {
        replies: vec![ScriptedReply {
            text: String::new(),
            fault: Some(Fault::NoReply),
        }],
        ..Script::default()
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut first = keyless(ws.path(), profile.path(), &chat)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while chat.received().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the first run sends"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = first.id().to_string();

    // `keyless status` reads alongside: who works here, and where the turn stands.
    let status = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["status", "--workspace"])
        .arg(ws.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert_eq!(status.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!("now: a keyless (process {pid}) is working here")),
        "{text}"
    );
    assert!(
        text.contains("turn: in progress: the task awaits its reply"),
        "{text}"
    );

    let same_workspace = keyless(ws.path(), tempfile::tempdir().unwrap().path(), &chat)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&same_workspace.stderr);
    assert_eq!(same_workspace.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("another keyless (process {pid}) is working in")),
        "{stderr}"
    );

    let other_ws = tempfile::tempdir().unwrap();
    let same_profile = keyless(other_ws.path(), profile.path(), &chat)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&same_profile.stderr);
    assert_eq!(same_profile.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("KA_BROWSER_CONNECTION_FAILED")
            && stderr.contains(&format!("in use by another keyless (process {pid})")),
        "{stderr}"
    );
    assert_eq!(chat.received().len(), 1, "neither sent anything");

    // Ctrl+C ends the first one's wait; it closes its browser and exits 130.
    let interrupted = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(interrupted.success());
    assert_eq!(first.wait().unwrap().code(), Some(130));
    assert!(
        !ws.path().join(".agent/keyless.pid").exists(),
        "the claim ended with the run"
    );

    // A workspace keyless never ran in has no session.
    let fresh = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["status", "--workspace"])
        .arg(fresh.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.contains("session: none; the next `keyless run \"task\"` starts a new chat"),
        "{text}"
    );
}
