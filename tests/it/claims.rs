//! One keyless per workspace: a second one started while the first works is refused with the
//! first one's process id, never let in to mix up sessions. Several keyless on one browser
//! profile share its browser, each in its own tab, and the last one closes it. The real binary,
//! headless Chromium, the local chat page.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use keyless::chat::local::{Fault, LocalChat, Script, ScriptedReply};

use crate::common::local_keyless::keyless_launching;

/// `keyless run wait` on the local page.
fn keyless(ws: &Path, profile: &Path, chat: &LocalChat) -> Command {
    keyless_launching(chat, ws, profile, &["run", "wait"])
}

/// Whether a process runs with `profile` on its command line (a browser on it).
pub(crate) fn browser_on(profile: &Path) -> bool {
    let needle = format!("--user-data-dir={}", profile.display());
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains(&needle))
            .unwrap_or(false)
    })
}

/// Waits until `done`, for at most a minute.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(60), "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_second_keyless_on_the_same_workspace_is_refused_and_on_the_same_profile_shares_the_browser() {
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

    assert_eq!(chat.received().len(), 1, "it sent nothing");

    // Another workspace on the same profile shares the first one's browser, in a tab of its
    // own, and leaves the browser to the first when it ends.
    let other_ws = tempfile::tempdir().unwrap();
    let same_profile = keyless(other_ws.path(), profile.path(), &chat)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&same_profile.stderr);
    assert_eq!(same_profile.status.code(), Some(0), "{stderr}");
    assert_eq!(chat.received().len(), 2, "it sent its task: {stderr}");
    assert!(
        browser_on(profile.path()),
        "the browser stays for the first"
    );
    assert!(first.try_wait().unwrap().is_none(), "the first still waits");

    // Ctrl+C ends the first one's wait; it closes its browser and exits 130.
    let interrupted = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(interrupted.success());
    assert_eq!(first.wait().unwrap().code(), Some(130));
    assert!(
        !ws.path().join(".agent/keyless.pid").exists(),
        "the claim ended with the run"
    );
    wait_until("the browser closes with the last keyless", || {
        !browser_on(profile.path())
    });

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

#[test]
fn three_runs_on_one_profile_share_its_browser_and_each_completes_byte_exact() {
    // The first launches the browser and ends first; the other two attach to it and go on in
    // their tabs after it has gone.
    let content = |n: usize| format!("line one of {n}\r\n\ttabbed\u{00e9} {n}\n  trailing  ");
    let run = |n: usize, delay_ms: u64| {
        let reply = format!(
            "@@newfile out.txt\n<<<CONTENT\n{}\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nrun {n} done\nMSG>>>\n@@end\n@@eof\n",
            content(n)
        );
        let chat = LocalChat::start(Script {
            chunk_chars: 20,
            chunk_delay: Duration::from_millis(delay_ms),
            ..Script::replies([reply])
        })
        .unwrap();
        let ws = tempfile::tempdir().unwrap();
        (chat, ws)
    };
    let profile = tempfile::tempdir().unwrap();
    // The first streams slowly enough (about eighteen seconds) that the other two, started once
    // it has sent its task, attach and send theirs before it ends, also on a machine loaded by
    // the rest of the suite (seven seconds were once not enough); they stream slower still, so
    // they outlive it.
    let runs = [run(1, 2500), run(2, 3500), run(3, 3700)];
    let start = |(chat, ws): &(LocalChat, tempfile::TempDir), n: usize| {
        keyless_launching(
            chat,
            ws.path(),
            profile.path(),
            &["run", &format!("task {n}")],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
    };
    let first = start(&runs[0], 1);
    wait_until("the first run's browser is up", || {
        !runs[0].0.received().is_empty()
    });
    let mut others = [start(&runs[1], 2), start(&runs[2], 3)];
    wait_until("the other two send their tasks", || {
        !runs[1].0.received().is_empty() && !runs[2].0.received().is_empty()
    });
    let mut first = first;
    if first.try_wait().unwrap().is_some() {
        let out = first.wait_with_output().unwrap();
        panic!(
            "the first ended before the others sent: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let first = first.wait_with_output().unwrap();
    assert!(
        browser_on(profile.path()),
        "the browser stays for the others"
    );
    assert!(
        others.iter_mut().all(|c| c.try_wait().unwrap().is_none()),
        "the others outlive the first"
    );
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    for (n, child) in others.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "run {}: {stderr}", n + 2);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&format!("Done. run {} done", n + 2)),
            "{stderr}"
        );
    }
    for (n, (chat, ws)) in runs.iter().enumerate() {
        let n = n + 1;
        assert_eq!(chat.received().len(), 1, "run {n} sent its task once");
        assert_eq!(
            std::fs::read(ws.path().join("out.txt")).unwrap(),
            format!("{}\n", content(n).replace("\r\n", "\n")).as_bytes(),
            "run {n}"
        );
    }
    wait_until("the browser closes with the last keyless", || {
        !browser_on(profile.path())
    });
}
