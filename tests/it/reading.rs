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
    run_on(
        Some(site),
        PageFaults {
            modes: modes.iter().map(|m| m.to_string()).collect(),
            ..PageFaults::default()
        },
        Vec::from(replies(content)),
    )
}

/// `keyless run` on the local page drawn as `page` says, with `site`'s selectors (`None`: the
/// page's address only, its parts found by their shape), the model answering `replies`.
fn run_on(
    site: Option<&str>,
    page: PageFaults,
    replies: Vec<String>,
) -> (String, tempfile::TempDir, LocalChat) {
    let modules = page.editor.is_some() || page.renderer.is_some();
    let chat = LocalChat::start(Script {
        page,
        modules: modules.then(crate::editors::modules),
        ..Script::replies(replies)
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = attached(keyless_at(
        &chat.url(),
        site,
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

/// Issue 30's first shape: the file's lines in a fenced block of their own, and only a few
/// short protocol lines around it (`@@next`, `@@eof`). The block alone once agreed with the
/// rendered reply (a few missing words were tolerated, and those were exactly the lines around
/// it), so the block was read as the whole reply: no `@@eof`, a wait for the rest, format
/// corrections. A text that lacks any word the reply shows as its content never agrees.
fn block_with_lines_around(content: &str) -> String {
    format!(
        "@@newfile data.txt\n<<<CONTENT\n```\n{content}```\nCONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n"
    )
}

const DONE: &str = "```\n@@done\n<<<MSG\nWritten.\nMSG>>>\n@@end\n@@eof\n```";

#[test]
fn a_code_block_with_protocol_lines_around_it_is_never_read_as_the_whole_reply() {
    let content = repeating();
    let shape = block_with_lines_around(&content);
    // No copy control and a stream keyless cannot read: the page cannot give this reply
    // exactly, so keyless asks for it fenced (and never takes the block for the reply).
    let fenced = format!("````\n{shape}````");
    let (text, ws, chat) = run_on(
        Some("local"),
        PageFaults {
            modes: vec!["no-copy".into(), "encoded-stream".into()],
            ..PageFaults::default()
        },
        vec![shape.clone(), fenced, DONE.to_string()],
    );
    let written = fs::read_to_string(ws.path().join("data.txt")).unwrap_or_default();
    assert_eq!(written, format!("```\n{content}```\n"), "{text}");
    assert!(!text.contains("stopped before @@eof"), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), 3, "{text}\n{received:#?}");
    assert!(
        received[1].contains("could not read your reply exactly"),
        "{}",
        received[1]
    );
}

/// A page that draws a reply's copy control and done mark seconds after its text (Panel's
/// icon on a loaded machine), its stream unreadable: the reply settled and showed only as
/// text rebuilt from the page; keyless looks again for a proof before settling for that, and
/// reads the reply through the control once it comes, the first time. With the page's selectors
/// and with its address only. Before, the rebuilt text was taken at once, never executed, and
/// the model asked to send the reply again (a CI run on Panel).
#[test]
fn a_copy_control_drawn_after_the_text_settles_is_waited_for() {
    let content = repeating();
    for site in [Some("local"), None] {
        let (text, ws, chat) = run_on(
            site,
            PageFaults {
                modes: vec!["late-actions".into(), "encoded-stream".into()],
                ..PageFaults::default()
            },
            vec![block_with_lines_around(&content), DONE.to_string()],
        );
        let written = fs::read_to_string(ws.path().join("data.txt")).unwrap_or_default();
        assert_eq!(written, format!("```\n{content}```\n"), "{site:?}: {text}");
        assert_eq!(chat.received().len(), 2, "{site:?}: {text}");
        assert!(text.contains("read via CopyButton"), "{site:?}: {text}");
        assert!(!text.contains("read via Dom"), "{site:?}: {text}");
    }
}

/// A page whose only exact channel is the "Copy" row of a menu behind each reply's "⋯" button
/// (opened on the pointer going down, drawn at the end of the page), its stream unreadable and
/// its drawing lossy: the menu is opened with a real click and the reply read through the row,
/// with the page's selectors and with its address only. Before, the menu was never opened and
/// every reply was asked for again (issue 30's first outside attack, its page "d").
#[test]
fn a_copy_row_behind_a_more_menu_is_found_and_read() {
    let content = repeating();
    for site in [Some("local"), None] {
        let (text, ws, chat) = run_on(
            site,
            PageFaults {
                modes: vec!["menu-copy".into(), "lossy".into(), "encoded-stream".into()],
                ..PageFaults::default()
            },
            vec![block_with_lines_around(&content), DONE.to_string()],
        );
        let written = fs::read_to_string(ws.path().join("data.txt")).unwrap_or_default();
        assert_eq!(written, format!("```\n{content}```\n"), "{site:?}: {text}");
        assert_eq!(chat.received().len(), 2, "{site:?}: {text}");
        assert!(text.contains("read via CopyButton"), "{site:?}: {text}");
        assert!(!text.contains("read via Dom"), "{site:?}: {text}");
    }
}

/// The same shape read exactly the first time wherever the page gives it whole: its copy
/// control, or the stream the server sent (plain, or server-sent events of JSON deltas).
#[test]
fn a_code_block_with_protocol_lines_around_it_is_read_exactly_from_the_copy_or_the_wire() {
    let content = repeating();
    for (modes, channel) in [
        (vec![], "CopyButton"),
        (vec!["no-copy"], "Wire"),
        (vec!["no-copy", "sse"], "Wire"),
    ] {
        let (text, ws, chat) = run_on(
            Some("local"),
            PageFaults {
                modes: modes.iter().map(|m| m.to_string()).collect(),
                ..PageFaults::default()
            },
            vec![block_with_lines_around(&content), DONE.to_string()],
        );
        let written = fs::read_to_string(ws.path().join("data.txt")).unwrap_or_default();
        assert_eq!(written, format!("```\n{content}```\n"), "{modes:?}: {text}");
        assert_eq!(chat.received().len(), 2, "{modes:?}: {text}");
        assert!(
            text.contains(&format!("read via {channel}")),
            "{modes:?}: {text}"
        );
    }
}

/// A page that draws replies lossily (a task list's `[ ]` as checkboxes, lines of HTML
/// dropped, no copy control) cannot be read exactly from its rendering; the stream the server
/// sent can, in each way a site streams: plain text, JSON deltas, the whole text so far, a
/// WebSocket's frames of JSON deltas. With the page's selectors and with its address only.
#[test]
fn a_lossy_page_is_read_exactly_from_the_wire() {
    let content = "- [ ] first task\n- [x] done task\n<details>\n<summary>More</summary>\nhidden words\n</details>\n  indented  line  \n";
    let reply = format!(
        "@@newfile notes.md\n<<<CONTENT\n{content}CONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n"
    );
    for site in [Some("local"), None] {
        for stream in [None, Some("sse"), Some("sse-cumulative"), Some("websocket")] {
            let mut modes = vec!["lossy".to_string()];
            modes.extend(stream.map(str::to_string));
            let (text, ws, chat) = run_on(
                site,
                PageFaults {
                    modes: modes.clone(),
                    ..PageFaults::default()
                },
                vec![reply.clone(), DONE.to_string()],
            );
            let what = format!("{site:?} {modes:?}");
            let written = fs::read_to_string(ws.path().join("notes.md")).unwrap_or_default();
            assert_eq!(written, content, "{what}: {text}");
            assert_eq!(chat.received().len(), 2, "{what}: {text}");
            assert!(text.contains("read via Wire"), "{what}: {text}");
            // The message went exactly, in whatever framing carried it.
            assert!(!text.contains("KA_MESSAGE_ALTERED"), "{what}: {text}");
        }
    }
}

/// Issue 30's second shape: a page shaped like gemini.google.com (Quill composer, markdown-it
/// with highlight.js, each code block with its own icon-only copy control), driven with its
/// address only: every reply is read exactly, whatever its code blocks.
#[test]
fn a_gemini_shaped_page_with_code_copy_buttons_is_read_exactly_from_its_address_alone() {
    let content = repeating();
    for renderer in [None, Some("markdown-it")] {
        let page = PageFaults {
            modes: vec!["gemini".into(), "code-copy".into()],
            editor: Some("quill".into()),
            renderer: renderer.map(str::to_string),
            ..PageFaults::default()
        };
        let (text, ws, chat) = run_on(
            None,
            page,
            vec![block_with_lines_around(&content), DONE.to_string()],
        );
        let written = fs::read_to_string(ws.path().join("data.txt")).unwrap_or_default();
        assert_eq!(
            written,
            format!("```\n{content}```\n"),
            "{renderer:?}: {text}"
        );
        assert_eq!(chat.received().len(), 2, "{renderer:?}: {text}");
        assert!(!text.contains("stopped before @@eof"), "{text}");
    }
}

/// A page no selectors know with no exact channel: no copy control, a stream keyless cannot
/// read, and code blocks found only by their shape, which prove no bytes (a page may draw them
/// lossily: an outside attack's page turned a resent reply's tabs into spaces, cut its trailing
/// spaces and merged its blank lines, and keyless ran that). The reply is never executed, the
/// model is asked once to resend it fenced, and when the fenced one reads no better the turn
/// stops with KA_REPLY_NOT_EXACT: nothing written, nothing more sent.
#[test]
fn a_page_with_no_exact_channel_stops_and_executes_nothing() {
    let content = "\tTabbed line\ntrailing spaces   \n\n\n\nafter three blank lines\n";
    let reply = format!(
        "@@newfile notes.md\n<<<CONTENT\n{content}CONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n"
    );
    let fenced = format!("````\n{reply}````");
    let chat = LocalChat::start(Script {
        page: PageFaults {
            modes: vec!["no-copy".into(), "encoded-stream".into()],
            ..PageFaults::default()
        },
        ..Script::replies([reply, fenced.clone(), fenced])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = attached(keyless_at(
        &chat.url(),
        None,
        &config.path().join("browser"),
        config.path(),
        &["run", "Write the notes", "--mode", "auto"],
    ))
    .arg("--workspace")
    .arg(ws.path())
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("KA_REPLY_NOT_EXACT"), "{text}");
    assert!(text.contains("no way to read a reply exactly"), "{text}");
    assert!(!ws.path().join("notes.md").exists(), "{text}");
    assert_eq!(chat.received().len(), 2, "{text}");
}

/// A page that draws replies lossily and hides most of one (forty lines of HTML dropped from
/// the drawing), no copy control: the stream the server sent is the reply, though the page
/// shows only a small part of its words (an outside attack's page: before, the wire's text was
/// taken for another, longer one, and the turn waited out the truncation budget and sent a
/// correction). With the page's selectors and with its address only.
#[test]
fn a_reply_the_page_draws_mostly_hidden_is_read_exactly_from_the_wire() {
    let content: String = (1..=40)
        .map(|i| format!("<img src=\"row{i}.png\" alt=\"alpha beta gamma delta epsilon zeta\">\n"))
        .collect();
    let reply = format!(
        "@@newfile page.html\n<<<CONTENT\n{content}CONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n"
    );
    for site in [Some("local"), None] {
        let (text, ws, chat) = run_on(
            site,
            PageFaults {
                modes: vec!["lossy".into()],
                ..PageFaults::default()
            },
            vec![reply.clone(), DONE.to_string()],
        );
        let written = fs::read_to_string(ws.path().join("page.html")).unwrap_or_default();
        assert_eq!(written, content, "{site:?}: {text}");
        assert_eq!(chat.received().len(), 2, "{site:?}: {text}");
        assert!(text.contains("read via Wire"), "{site:?}: {text}");
    }
}

/// A table whose cell holds a code span with an escaped pipe (`` `a \| b` ``): GFM draws it as
/// `a | b`, and the reply's source keeps the backslash. Read exactly (the copy and the wire
/// agree with the drawing), with both GFM renderers, never sent back as a correction.
#[test]
fn a_table_cell_s_code_with_an_escaped_pipe_is_read_exactly() {
    let content = "Operators:\n\n| op | means |\n|---|---|\n| `a \\| b` | either |\n| `a && b` | both |\n\nend\n";
    let unfenced = format!(
        "@@newfile data.txt\n<<<CONTENT\n{content}CONTENT>>>\n@@end\n@@runcommand\n<<<CMD\nwc -l data.txt\nCMD>>>\n@@end\n@@eof\n"
    );
    for renderer in ["marked", "markdown-it"] {
        let page = PageFaults {
            renderer: Some(renderer.to_string()),
            ..PageFaults::default()
        };
        let (text, ws, chat) = run_on(None, page, vec![unfenced.clone(), replies("")[1].clone()]);
        exact(&text, &ws, &chat, content);
        assert!(!text.contains("rebuilt"), "{renderer}: {text}");
    }
}
