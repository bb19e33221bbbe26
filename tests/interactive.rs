//! `keyless interactive` on a pseudo-terminal (`script`, from bsdutils) against the local chat
//! page in headless Chromium: a task runs as a turn, /undo puts it back, /quit leaves.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use keyless::chat::local::{LocalChat, Script};

#[test]
fn a_line_is_a_turn_and_slash_commands_work() {
    let chat = LocalChat::start(Script::replies([
        "@@newfile todo.txt\n<<<CONTENT\nbuy milk\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nWrote todo.txt.\nMSG>>>\n@@end\n@@eof\n",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let command = format!(
        "{} interactive --site local --url {} --headless --mode auto --workspace {} --profile {}",
        env!("CARGO_BIN_EXE_keyless"),
        chat.url(),
        ws.path().display(),
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
    for (wait, line) in [
        (4000, "write a todo list"),
        (4000, "/undo"),
        (800, "/help"),
        (500, "/frobnicate"),
        (500, "/quit"),
    ] {
        std::thread::sleep(Duration::from_millis(wait));
        write!(stdin, "{line}\r").unwrap();
        stdin.flush().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(text.contains("Done. Wrote todo.txt."), "{text}");
    assert!(
        text.contains("removed todo.txt (it was new; a copy is kept)"),
        "{text}"
    );
    assert!(text.contains("/pace step|balanced|batch"), "{text}");
    assert!(text.contains("Unknown command /frobnicate"), "{text}");
    assert!(!ws.path().join("todo.txt").exists(), "undone");
    assert!(
        ws.path().join(".agent/history.txt").is_file(),
        "history is kept"
    );
    assert_eq!(chat.received().len(), 1);
    assert!(chat.received()[0].contains("Task:\nwrite a todo list"));
}
