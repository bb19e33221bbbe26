//! The editors and Markdown renderers real chat sites use, from their npm packages
//! (`tests/editors/`, installed with `npm ci` when missing): ProseMirror, TipTap, Lexical,
//! Quill and a textarea as the composer, and replies drawn by the page's own renderer,
//! markdown-it with highlight.js, marked with highlight.js, or read-only CodeMirror 6 views.
//! Each pair carries one exchange of hostile content through `keyless run`, byte for byte.

use std::path::PathBuf;
use std::sync::OnceLock;

use keyless::chat::local::{self, LocalChat, PageFaults, RENDERER_NAMES, Script};

/// The packages, installed once per test run from the committed lock file.
pub(crate) fn modules() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/editors");
            local::editor_modules(&folder).unwrap()
        })
        .clone()
}

/// A task full of what editors change: blank lines, indentation, tabs, trailing spaces, lines
/// that look like Markdown or HTML, characters outside ASCII.
fn hostile_task(size: usize) -> String {
    let mut out = String::from("Write the note.\n\n  two leading spaces\n");
    let mut i = 0;
    while out.len() < size {
        out.push_str(&format!(
            "line {i}:\tindented  *stars* _under_ `code` <b>html</b> &amp; ünïcödé 🚀   \n"
        ));
        if i % 5 == 0 {
            out.push_str("\n\n- a list item\n# a heading\n    four spaces\n");
        }
        i += 1;
    }
    out.push_str("the end");
    out
}

/// Writes a file whose bytes Markdown would mangle, then says done.
const WRITE: &str = "````\n@@newfile notes/a.md\n<<<CONTENT\n# Title\n  *two* spaces, _under_ and a\ttab   \n\n\nafter two blank lines\n```js\nconst x = 1;\n```\nCONTENT>>>\n@@end\n@@eof\n````";
const WRITTEN: &str = "# Title\n  *two* spaces, _under_ and a\ttab   \n\n\nafter two blank lines\n```js\nconst x = 1;\n```\n";
const DONE: &str = "```\n@@done\n@@end\n@@eof\n```";

/// One `keyless run` on the local page with `page`'s editor, renderer and modes.
fn run_with(page: PageFaults, task: &str) -> LocalChat {
    let what = format!("{:?} {:?} {:?}", page.editor, page.renderer, page.modes);
    let chat = LocalChat::start(Script {
        page,
        modules: Some(modules()),
        ..Script::replies([WRITE, DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = crate::common::local_keyless::keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["run", task, "--mode", "auto"],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{what}\n{stdout}\n{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes/a.md"))
            .unwrap_or_else(|e| panic!("{e}: {what}\n{stdout}\n{stderr}")),
        WRITTEN,
        "{what}"
    );
    let received = chat.received();
    assert_eq!(received.len(), 2, "{what}: {received:#?}");
    assert!(
        received[0].ends_with(&format!("Task:\n{task}\n")),
        "{what}: the task did not arrive exactly"
    );
    chat
}

/// Every renderer (the page's own first) with `editor` as the composer.
fn every_renderer(editor: &str) {
    let task = hostile_task(3000);
    for renderer in std::iter::once(None).chain(RENDERER_NAMES.iter().map(|r| Some(*r))) {
        run_with(
            PageFaults {
                editor: Some(editor.into()),
                renderer: renderer.map(str::to_string),
                ..PageFaults::default()
            },
            &task,
        );
    }
}

#[test]
fn prosemirror_with_every_renderer() {
    every_renderer("prosemirror");
}

#[test]
fn tiptap_with_every_renderer() {
    every_renderer("tiptap");
}

#[test]
fn lexical_with_every_renderer() {
    every_renderer("lexical");
}

#[test]
fn quill_with_every_renderer() {
    every_renderer("quill");
}

#[test]
fn textarea_with_every_renderer() {
    every_renderer("textarea");
}

/// claude.ai's case: a real TipTap composer that turns a paste over 4,000 characters into a
/// "Pasted Text" card. A 32,000-character task arrives once, as text, byte for byte.
#[test]
fn a_long_task_into_tiptap_that_cards_long_pastes_arrives_as_text() {
    let task = hostile_task(32_000);
    let chat = run_with(
        PageFaults {
            editor: Some("tiptap".into()),
            modes: vec!["paste-to-file".into()],
            ..PageFaults::default()
        },
        &task,
    );
    assert!(!chat.received()[0].contains("[attachment "));
}

/// A 60,000-character prompt (blank lines, tabs, trailing spaces, non-ASCII, emoji, lines that
/// look like Markdown) goes into every editor and reaches the model byte for byte, with the
/// strategy keyless picks for the editor it recognises: on a site that names none, and on one
/// whose list is out of date (it names only the slow checked chunks).
#[test]
fn a_60000_character_prompt_arrives_exactly_through_every_editor() {
    use keyless::chat::ChatDriver;
    let prompt = hostile_task(60_000);
    for (i, editor) in local::EDITOR_NAMES.iter().enumerate() {
        let fastest = match *editor {
            "prosemirror" | "tiptap" => "pasteHtml",
            "lexical" => "insertTextWhole",
            "quill" => "pastePlain",
            "textarea" => "setValue",
            other => panic!("no expectation for {other}"),
        };
        let chat = LocalChat::start(Script {
            page: PageFaults {
                editor: Some(editor.to_string()),
                ..PageFaults::default()
            },
            modules: Some(modules()),
            ..Script::replies(["@@done\n@@end\n@@eof\n"])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut options =
            crate::common::shared_browser::local_page(chat.url(), profile.path().to_path_buf());
        options.site.insert = if i % 2 == 0 {
            Vec::new()
        } else {
            vec!["insertText".to_string()]
        };
        let listed = options.site.insert.clone();
        let mut driver = keyless::chat::cdp::CdpDriver::start(options).unwrap();
        driver.send(&prompt).unwrap();
        driver.wait_reply(&mut |_| {}).unwrap();
        assert!(
            chat.received() == vec![prompt.clone()],
            "{editor}: not byte for byte"
        );
        assert_eq!(
            driver.inserted_with(),
            Some(fastest),
            "{editor} with the site's list {listed:?}"
        );
        driver.close();
    }
}
