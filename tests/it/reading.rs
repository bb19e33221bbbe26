//! Replies read exactly on pages shaped like real ones, through `keyless run` (issue 24's two
//! regressions): a page with Gemini's 2026 markup read with Gemini's own selectors (a "Show
//! thinking" block before the answer, code blocks keeping their final newline, the copy
//! control in `message-actions`), and a reply whose file content repeats its words line after
//! line, which a copy's check against the rendered answer once lost its way in.

use std::fs;

use keyless::chat::local::{LocalChat, PageFaults, Script};

use crate::common::local_keyless::{attached, keyless_at};

/// Twelve lines that differ only in a number, as tables, lists and generated data do.
fn repeating() -> String {
    (1..=12)
        .map(|i| format!("alpha {i} beta gamma delta epsilon zeta eta\n"))
        .collect()
}

fn replies(content: &str) -> [String; 2] {
    [
        format!(
            "```\n@@newfile data.txt\n<<<CONTENT\n{content}CONTENT>>>\n@@end\n@@runcommand\n<<<CMD\nwc -l data.txt\nCMD>>>\n@@end\n@@eof\n```"
        ),
        "```\n@@done\n<<<MSG\nWritten.\nMSG>>>\n@@end\n@@eof\n```".to_string(),
    ]
}

/// `keyless run` on the local page drawn with `modes`, with `site`'s selectors (or the local
/// page's own); returns what it printed, the workspace and the chat.
fn run(site: &str, modes: &[&str], content: &str) -> (String, tempfile::TempDir, LocalChat) {
    let chat = LocalChat::start(Script {
        page: PageFaults {
            modes: modes.iter().map(|m| m.to_string()).collect(),
            ..PageFaults::default()
        },
        ..Script::replies(replies(content))
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = attached(keyless_at(
        &chat.url(),
        Some(site),
        &config.path().join("browser"),
        config.path(),
        &["run", "Write the data", "--mode", "auto", "--pace", "batch"],
    ))
    .arg("--workspace")
    .arg(ws.path())
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    (text, ws, chat)
}

fn exact(text: &str, ws: &tempfile::TempDir, chat: &LocalChat, content: &str) {
    let written = fs::read_to_string(ws.path().join("data.txt"))
        .unwrap_or_else(|e| panic!("data.txt: {e}\n{text}"));
    assert_eq!(written, content, "{text}");
    assert_eq!(
        chat.received().len(),
        2,
        "no format correction, nothing sent twice: {text}"
    );
    assert!(!text.contains("stopped before @@eof"), "{text}");
}

#[test]
fn a_gemini_shaped_page_is_read_exactly_with_gemini_s_selectors() {
    let content = "def main():\n    print(\"hi\")\n\n\nmain()\n";
    let (text, ws, chat) = run("gemini", &["gemini"], content);
    exact(&text, &ws, &chat, content);
    assert!(text.contains("read via CopyButton"), "{text}");
}

#[test]
fn a_reply_whose_lines_repeat_their_words_is_read_exactly_on_every_page_shape() {
    let content = repeating();
    for (site, modes) in [
        ("local", vec![]),
        ("gemini", vec!["gemini"]),
        ("local", vec!["no-copy"]),
    ] {
        let (text, ws, chat) = run(site, &modes, &content);
        exact(&text, &ws, &chat, &content);
    }
}

/// A virtual list (DeepSeek's) mounts only the last turns: a new turn does not raise the count
/// of turns on the page. Three batches still go their way, each message once.
#[test]
fn a_virtual_list_that_unmounts_old_turns_still_carries_a_turn_of_several_batches() {
    let step = |n: u32| {
        format!("```\n@@runcommand\n<<<CMD\necho batch {n} >> log.txt\nCMD>>>\n@@end\n@@eof\n```")
    };
    let chat = LocalChat::start(Script {
        page: PageFaults {
            modes: vec!["virtual-list".into()],
            ..PageFaults::default()
        },
        ..Script::replies([
            step(1),
            step(2),
            step(3),
            "```\n@@done\n<<<MSG\nThree.\nMSG>>>\n@@end\n@@eof\n```".to_string(),
        ])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = crate::common::local_keyless::keyless_on(
        &chat,
        ws.path(),
        config.path(),
        &["run", "Log three times", "--mode", "auto"],
    )
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(
        fs::read_to_string(ws.path().join("log.txt")).unwrap(),
        "batch 1\nbatch 2\nbatch 3\n",
        "{text}"
    );
    assert_eq!(chat.received().len(), 4, "{text}");
}

/// Claude's 2026 reply: "Thought process" twice at the top, and a screen-reader copy of the
/// body that lags behind, drawn a pixel wide. With the copy control and without it (read from
/// the page then), the reply is read once and exactly.
#[test]
fn doubled_thought_labels_and_a_lagging_live_copy_are_not_read_as_the_reply() {
    let content = "def f():\n\treturn 1  \n\n\nprint(f())\n";
    for modes in [
        vec!["doubled-thoughts"],
        vec!["doubled-thoughts", "no-copy"],
    ] {
        let (text, ws, chat) = run("local", &modes, content);
        exact(&text, &ws, &chat, content);
    }
    let content = repeating();
    let (text, ws, chat) = run("local", &["doubled-thoughts", "no-copy"], &content);
    exact(&text, &ws, &chat, &content);
}
