//! `keyless interactive` on a pseudo-terminal (`script`, from bsdutils) against the local chat
//! page in headless Chromium: a task runs as a turn, /undo puts it back, /quit leaves.

use std::path::Path;

use keyless::chat::local::{LocalChat, Script};

use crate::common::pty::Pty;

/// The line editor's prompt: keyless is ready for the next line.
const PROMPT: &str = "keyless> ";

/// Runs `keyless interactive` on a pseudo-terminal in `ws` and returns what the terminal
/// showed. Each line is typed once the terminal shows the text given with it and then the
/// prompt (`""`: the prompt alone).
fn at_terminal(chat: &LocalChat, ws: &Path, lines: &[(&str, &str)]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let command = format!(
        "{} interactive --site local --url {} --headless --mode auto --workspace {} --profile {} --cdp {}",
        env!("CARGO_BIN_EXE_keyless"),
        chat.url(),
        ws.display(),
        profile.path().display(),
        crate::common::shared_browser::cdp_url()
    );
    let mut terminal = Pty::start(&command, &[("XDG_CONFIG_HOME", profile.path())]);
    for (shown, line) in lines {
        // The line editor reads keys in raw mode: Enter is a carriage return.
        terminal
            .wait_for(shown)
            .wait_for(PROMPT)
            .type_line(line, "\r");
    }
    terminal.finish()
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
            ("", "write a todo list"),
            ("Done. Wrote todo.txt.", "/undo"),
            ("removed todo.txt", "/help"),
            ("/pace [step|balanced|batch]", "/frobnicate"),
            ("Unknown command /frobnicate", "/pace"),
            ("Pace: Balanced.", "/pace fast"),
            ("Usage: /pace step|balanced|batch", "/mode autosafe"),
            ("Mode: AutoSafe.", "/pace step"),
            ("Pace: Step.", "check it"),
            ("Done. Nothing to do.", "/quit"),
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
        in_flight: keyless::turn::record::InFlight::CarryingOut {
            reply: "@@newfile a.txt\n<<<CONTENT\na\nCONTENT>>>\n@@end\n@@eof\n".into(),
        },
        ..Default::default()
    };
    std::fs::write(
        ws.path().join(".agent/session.json"),
        serde_json::to_vec(&session).unwrap(),
    )
    .unwrap();
    let text = at_terminal(
        &chat,
        ws.path(),
        &[("Done. resumed", "second thing"), ("Done. second", "/quit")],
    );
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
