//! `keyless run` through the built binary against the local chat page in headless Chromium:
//! the task and rules go out, commands run, results come back, and @@done ends the turn.

use std::process::Command;

use keyless::chat::local::{LocalChat, Script};

use crate::common::local_keyless::keyless_on;

#[test]
fn run_carries_a_task_to_done() {
    let chat = LocalChat::start(Script::replies([
        "```\n@@newfile notes.txt\n<<<CONTENT\nfirst note\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\ncat notes.txt\nCMD>>>\n@@end\n@@eof\n```",
        "```\n@@done\n<<<MSG\nWrote notes.txt.\nMSG>>>\n@@end\n@@eof\n```",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = keyless_on(&chat, ws.path(), profile.path(), &["run", "Write a note"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("Done. Wrote notes.txt."), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes.txt")).unwrap(),
        "first note\n"
    );
    let received = chat.received();
    assert_eq!(received.len(), 2);
    assert!(
        received[0].contains("You are a coding agent")
            && received[0].ends_with("Task:\nWrite a note\n"),
        "{}",
        received[0]
    );
    assert!(
        received[1].starts_with(
            "[KEYLESSAGENT RESULTS] turn=1 batch=1\n--- result 1/2 | #1 newfile | notes.txt ---"
        ),
        "{}",
        received[1]
    );
    assert!(
        received[1].contains("<<<OUTPUT\nfirst note\nOUTPUT>>>"),
        "{}",
        received[1]
    );
}

#[test]
fn run_without_a_site_says_how_to_choose_one() {
    let ws = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["run", "task", "--workspace"])
        .arg(ws.path())
        .env("XDG_CONFIG_HOME", ws.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --site NAME"));
}

#[test]
fn no_secret_reaches_the_chat_or_the_transcript() {
    const TOKEN: &str = "ghp_Rk4vT9mQ2xLw7NpZ3cY8hJ5dF1sA6eGu0iOb";
    const DOTENV: &str = "sk-proj-Hq3Kv8Lm2Xr9Tn4Wc7Yz1Hd6Fg5Js0Pa3Qe8Ru";
    let chat = LocalChat::start(Script::replies([
        "```\n@@readfile .env\n@@end\n@@runcommand\n<<<CMD\nprintenv GITHUB_TOKEN; cat .env; echo done-reading\nCMD>>>\n@@end\n@@eof\n```",
        "```\n@@done\n<<<MSG\nRead the settings.\nMSG>>>\n@@end\n@@eof\n```",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join(".env"), format!("OPENAI_API_KEY={DOTENV}\n")).unwrap();
    std::fs::write(
        ws.path().join("show-token.sh"),
        format!("echo token {TOKEN}\n"),
    )
    .unwrap();
    std::fs::write(
        ws.path().join("keyless.json"),
        "{ \"Snapshot\": { \"Scripts\": [\"show-token.sh\"] } }\n",
    )
    .unwrap();
    let out = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "--mode", "auto", "Read .env"],
    )
    .env("GITHUB_TOKEN", TOKEN)
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let received = chat.received();
    assert_eq!(received.len(), 2);
    assert!(
        received[0].contains("token [redacted: "),
        "the snapshot script's output: {}",
        received[0]
    );
    assert!(received[1].contains("done-reading"), "{}", received[1]);
    assert!(received[1].contains("[redacted: "), "{}", received[1]);
    assert!(received[1].contains("keyless redacted"), "{}", received[1]);
    let transcript = std::fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap();
    for text in received
        .iter()
        .map(String::as_str)
        .chain([transcript.as_str()])
    {
        assert!(!text.contains(TOKEN), "{text}");
        assert!(!text.contains(DOTENV), "{text}");
    }
}

/// A reply the page could only give back as text rebuilt from its prose (no copy control, no
/// single code block, a stream keyless cannot read) is never executed: the model is asked to
/// resend it fenced, and the fenced reply writes the file byte for byte.
#[test]
fn a_reply_read_only_from_the_pages_prose_is_never_executed() {
    let chat = LocalChat::start(Script {
        page: keyless::chat::local::PageFaults {
            modes: vec!["no-copy".into(), "encoded-stream".into()],
            ..Default::default()
        },
        ..Script::replies([
            "@@newfile a.md\n<<<CONTENT\n_under_ and  two spaces\n    indented\nCONTENT>>>\n@@end\n@@eof\n",
            "```\n@@newfile a.md\n<<<CONTENT\n_under_ and  two spaces\n    indented\nCONTENT>>>\n@@end\n@@eof\n```",
            "```\n@@done\n@@end\n@@eof\n```",
        ])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "Write a.md", "--mode", "auto"],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.md")).unwrap(),
        "_under_ and  two spaces\n    indented\n"
    );
    let received = chat.received();
    assert!(
        received[1].starts_with("[KEYLESSAGENT FORMAT ERROR]")
            && received[1].contains("ONE fenced code block"),
        "{}",
        received[1]
    );
    let transcript = std::fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap();
    assert!(transcript.contains("KA_REPLY_NOT_EXACT"), "{transcript}");
}
