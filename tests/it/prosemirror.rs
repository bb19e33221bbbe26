//! Sending into a real ProseMirror composer (the editor of Claude and Grok): the local chat page
//! mounts ProseMirror from its npm packages (`tests/prosemirror/`, installed here with `npm ci`
//! when missing), and the driver's `pasteHtml` strategy must put a 60,000-character prompt into
//! it exactly, blank lines, indentation, trailing spaces and markup-like text included.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use keyless::chat::ChatDriver;
use keyless::chat::cdp::CdpDriver;
use keyless::chat::local::{self, LocalChat, PageFaults, Script};

/// The ProseMirror packages, installed once per test run from the committed lock file.
fn modules() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/prosemirror");
            local::prosemirror_modules(&folder).unwrap()
        })
        .clone()
}

struct Setup {
    chat: LocalChat,
    driver: CdpDriver,
    _profile: tempfile::TempDir,
}

fn start(insert: &[&str]) -> Setup {
    let chat = LocalChat::start(Script {
        page: PageFaults {
            editor: Some("prosemirror".into()),
            ..PageFaults::default()
        },
        modules: Some(modules()),
        ..Script::replies(["@@done\n@@end\n@@eof\n"])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options =
        crate::common::shared_browser::local_page(chat.url(), profile.path().to_path_buf());
    options.site.insert = insert.iter().map(|s| s.to_string()).collect();
    options.reply_timeout = Duration::from_secs(20);
    let driver = CdpDriver::start(options).unwrap();
    Setup {
        chat,
        driver,
        _profile: profile,
    }
}

/// Everything ProseMirror's plain-text or HTML paste would change.
fn hostile_prompt(size: usize) -> String {
    let mut out = String::from("  leading spaces on the first line\n");
    let mut i = 0;
    while out.len() < size {
        out.push_str(&format!("line {i}: \tindented  text with trailing   \n"));
        if i % 7 == 0 {
            out.push('\n');
        }
        if i % 11 == 0 {
            out.push_str("\n\n    <b>not html</b> &amp; &lt; ünïcödé ✓ 🚀 *stars* _under_\n   \n");
        }
        i += 1;
    }
    out.push_str("\n\nthe end  ");
    out
}

#[test]
fn the_composer_is_a_real_prosemirror() {
    let s = start(&["pasteHtml"]);
    let mounted = s
        .driver
        .evaluate_json(
            "(() => { const el = document.querySelector('#prompt-textarea'); return { pm: !!el.pmViewDesc, editable: el.contentEditable }; })()",
        )
        .unwrap();
    assert_eq!(
        mounted,
        serde_json::json!({ "pm": true, "editable": "true" })
    );
    s.driver.close();
}

#[test]
fn paste_html_puts_a_60000_character_prompt_into_prosemirror_exactly() {
    let mut s = start(&["pasteHtml"]);
    let prompt = hostile_prompt(60_000);
    s.driver.send(&prompt).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec![prompt]);
    s.driver.close();
}

#[test]
fn checked_chunks_work_in_prosemirror_too() {
    let mut s = start(&["insertText"]);
    let prompt = hostile_prompt(3_000);
    s.driver.send(&prompt).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec![prompt]);
    s.driver.close();
}

#[test]
fn a_full_prosemirror_composer_is_cleared_before_the_next_message() {
    let mut s = start(&["pasteHtml"]);
    s.driver.insert(&hostile_prompt(60_000)).unwrap();
    s.driver.send("the next message").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec!["the next message"]);
    s.driver.close();
}
