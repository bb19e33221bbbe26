//! `keyless interactive` on a pseudo-terminal (`script`, from bsdutils) against the local chat
//! page in headless Chromium: a task runs as a turn, /undo puts it back, /quit leaves.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use keyless::chat::local::{LocalChat, Script};

/// Runs `keyless interactive` on a pseudo-terminal in `ws`, typing each line after its wait
/// (milliseconds), and returns what the terminal showed.
fn at_terminal(chat: &LocalChat, ws: &Path, lines: &[(u64, &str)]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let command = format!(
        "{} interactive --site local --url {} --headless --mode auto --workspace {} --profile {}",
        env!("CARGO_BIN_EXE_keyless"),
        chat.url(),
        ws.display(),
        profile.path().display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("XDG_CONFIG_HOME", profile.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("`script` (bsdutils) provides the terminal");
    let mut stdin = child.stdin.take().unwrap();
    for (wait, line) in lines {
        std::thread::sleep(Duration::from_millis(*wait));
        write!(stdin, "{line}\r").unwrap();
        stdin.flush().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
}

#[test]
fn a_line_is_a_turn_and_slash_commands_work() {
    let chat = LocalChat::start(Script::replies([
        "@@newfile todo.txt\n<<<CONTENT\nbuy milk\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nWrote todo.txt.\nMSG>>>\n@@end\n@@eof\n",
        "@@done\n<<<MSG\nNothing to do.\nMSG>>>\n@@end\n@@eof\n",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let text = at_terminal(
        &chat,
        ws.path(),
        &[
            (4000, "write a todo list"),
            (4000, "/undo"),
            (800, "/help"),
            (500, "/frobnicate"),
            (500, "/pace"),
            (500, "/pace fast"),
            (500, "/mode autosafe"),
            (500, "/pace step"),
            (500, "check it"),
            (4000, "/quit"),
        ],
    );
    assert!(text.contains("Done. Wrote todo.txt."), "{text}");
    assert!(
        text.contains("removed todo.txt (it was new; a copy is kept)"),
        "{text}"
    );
    assert!(text.contains("/pace [step|balanced|batch]"), "{text}");
    assert!(text.contains("Unknown command /frobnicate"), "{text}");
    assert!(!ws.path().join("todo.txt").exists(), "undone");
    assert!(
        ws.path().join(".agent/history.txt").is_file(),
        "history is kept"
    );
    // The pace is shown, changed, and the chat is told before the next task.
    assert!(text.contains("Pace: Balanced."), "{text}");
    assert!(text.contains("Pace: Step."), "{text}");
    assert!(text.contains("Usage: /pace step|balanced|batch"), "{text}");
    assert!(text.contains("Mode: AutoSafe."), "{text}");
    assert!(text.contains("Done. Nothing to do."), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(received[0].contains("Task:\nwrite a todo list"));
    assert!(
        received[1].starts_with("The user changed the pace to Step: "),
        "{}",
        received[1]
    );
    assert!(received[1].ends_with("Next task (turn 2; reply in AgentScript v1 only):\ncheck it\n"));
}

#[test]
fn an_interrupted_turn_is_finished_first_and_later_lines_go_on_in_its_chat() {
    let done = |msg: &str| format!("@@done\n<<<MSG\n{msg}\nMSG>>>\n@@end\n@@eof\n");
    let chat = LocalChat::start(Script::replies([done("resumed"), done("second")])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    // As keyless leaves it when killed after saving a reply, before running it.
    std::fs::create_dir(ws.path().join(".agent")).unwrap();
    let session = keyless::turn::record::Session {
        site: "local".into(),
        turn: 1,
        batch: 1,
        task: Some("make a".into()),
        rules: Some("THE RULES".into()),
        reply: Some("@@newfile a.txt\n<<<CONTENT\na\nCONTENT>>>\n@@end\n@@eof\n".into()),
        ..Default::default()
    };
    std::fs::write(
        ws.path().join(".agent/session.json"),
        serde_json::to_vec(&session).unwrap(),
    )
    .unwrap();
    let text = at_terminal(&chat, ws.path(), &[(6000, "second thing"), (4000, "/quit")]);
    assert!(
        text.contains("resuming the interrupted turn \"make a\""),
        "{text}"
    );
    assert!(text.contains("Done. resumed"), "{text}");
    assert!(text.contains("Done. second"), "{text}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "a\n"
    );
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(received[0].starts_with("THE RULES\n"), "{}", received[0]);
    assert!(
        received[0].contains("--- result 1/1 | #1 newfile | a.txt ---"),
        "{}",
        received[0]
    );
    assert_eq!(
        received[1],
        "Next task (turn 2; reply in AgentScript v1 only):\nsecond thing\n"
    );
}
