//! Discovery: the chat driver on local pages made unlike themselves (generated class names, no
//! ids, translated labels, other containers, …), with no selectors at all, with another site's
//! (stale) selectors, and with correct ones: every exchange arrives once and is read exactly.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use keyless::catalog::Code;
use keyless::chat::cdp::CdpDriver;
use keyless::chat::local::{Fault, LocalChat, MODES, PageFaults, Script, ScriptedReply};
use keyless::chat::{Channel, ChatDriver};

use crate::common::local_keyless::{attached, keyless_at};

/// A reply full of what Markdown rendering destroys.
const HOSTILE: &str = "````agentscript\n@@say\n<<<MSG\n*emphasis* and _under_ and **bold** <b>html</b> & stuff\n  two leading spaces\n\ttab\ttab  \ntrailing spaces   \n\n\ntwo blank lines above\nMSG>>>\n@@end\n@@newfile src/a.md\n<<<CONTENT:x7\n# Heading\n- item\n```rust\nfn main() {}\n```\n@@end\nCONTENT>>>\nCONTENT:x7>>>\n@@end\n@@done\n@@end\n@@eof\n````\n";

/// Which selectors the driver gets.
#[derive(Clone, Copy, Debug)]
enum Knowledge {
    None,
    Stale(&'static str),
}

fn page(modes: &[&str]) -> PageFaults {
    PageFaults {
        modes: modes.iter().map(|m| m.to_string()).collect(),
        ..PageFaults::default()
    }
}

fn driver(chat: &LocalChat, knowledge: Knowledge, profile: PathBuf) -> CdpDriver {
    let mut options = crate::common::shared_browser::local_page(chat.url(), profile);
    options.truncation_budget = Duration::from_secs(2);
    match knowledge {
        Knowledge::None => {
            // As keyless sees a page no selectors file knows.
            let file = keyless::chat::selectors::load(None).unwrap();
            options.site = file.unknown_site(&chat.url());
        }
        Knowledge::Stale(site) => {
            let file = keyless::chat::selectors::load(None).unwrap();
            let (_, other) = file.site(Some(site), None).unwrap();
            options.site.selectors = other.selectors;
            options.site.texts = other.texts;
            options.site.insert = other.insert;
        }
    }
    CdpDriver::start(options).unwrap()
}

/// The channel a reply on a page in `modes` is read through: its copy control, or the wire on
/// a page that has none and draws replies lossily, or draws its copy control seconds after the
/// reply ended, or keeps it in a menu (the wire proves the reply first).
fn expected_channel(modes: &[&str]) -> Channel {
    if modes.contains(&"lossy") || modes.contains(&"late-actions") || modes.contains(&"menu-copy") {
        Channel::Wire
    } else {
        Channel::CopyButton
    }
}

fn exchange_twice(modes: &[&str], knowledge: Knowledge) {
    let second = "@@done\n@@end\n@@eof\n";
    let chat = LocalChat::start(Script {
        page: page(modes),
        ..Script::replies([HOSTILE, second])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut d = driver(&chat, knowledge, profile.path().to_path_buf());
    d.send("Please do the task (see https://example.com/spec?v=2).\n\n  With an indented line.")
        .unwrap();
    let reply = d.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(reply.text, HOSTILE, "{modes:?} {knowledge:?}");
    assert_eq!(
        reply.channel,
        expected_channel(modes),
        "{modes:?} {knowledge:?}"
    );
    let warnings = d.take_warnings();
    d.send("And the second message.").unwrap();
    let reply = d.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(reply.text, second, "{modes:?} {knowledge:?}");
    assert_eq!(
        chat.received(),
        vec![
            "Please do the task (see https://example.com/spec?v=2).\n\n  With an indented line.",
            "And the second message."
        ],
        "{modes:?} {knowledge:?}"
    );
    let learned = d.learned().selectors.clone();
    eprintln!("{modes:?} {knowledge:?}: learned {learned:#?}\nwarnings {warnings:#?}");
    for key in ["Composer", "UserMessage", "AssistantMessage"] {
        if matches!(knowledge, Knowledge::None) {
            assert!(
                learned.contains_key(key),
                "{modes:?}: {key} not learned: {learned:?}"
            );
        }
    }
    d.close();
}

#[test]
fn every_mode_with_no_selectors() {
    for mode in MODES {
        // No reply (or message) is exact there, by design: its own test says what keyless does.
        if INEXACT.contains(mode) {
            continue;
        }
        exchange_twice(&[mode], Knowledge::None);
    }
}

/// A send button in the site's own word ("Dispatch"), no label or test id saying send, on a
/// page where Enter only breaks the line: the one button beside the composer is the send
/// button, and each message goes once. Before, the send button was never found.
#[test]
fn a_send_button_in_the_site_s_own_word_is_found_beside_the_composer() {
    exchange_twice(&["own-words", "enter-newline"], Knowledge::None);
}

/// Every disguise at once that can go together.
const ALL_AT_ONCE: &[&str] = &[
    "generated-classes",
    "no-ids",
    "translated",
    "send-with-text",
    "other-containers",
    "hover-copy",
    "reasoning",
    "busy-signal",
];

#[test]
fn every_disguise_at_once_with_no_selectors() {
    exchange_twice(ALL_AT_ONCE, Knowledge::None);
}

#[test]
fn every_mode_with_another_sites_selectors() {
    for (mode, site) in MODES.iter().zip(
        ["chatgpt", "claude", "gemini", "deepseek", "grok"]
            .iter()
            .cycle(),
    ) {
        if INEXACT.contains(mode) {
            continue;
        }
        exchange_twice(&[mode], Knowledge::Stale(site));
    }
}

// --- The whole loop through `keyless run`, three ways per mode. ---

/// How `keyless run` learns the page.
#[derive(Clone, Copy, Debug)]
enum Way {
    /// A selectors file whose `local` entry is written for the mode.
    Correct,
    /// The `local` entry carries another site's selectors.
    Stale(&'static str),
    /// No selectors file knows the page: `--url` alone.
    Unknown,
}

/// The local entry's selectors, changed for what `mode` takes away.
fn correct_for(mode: &str, selectors: &mut BTreeMap<String, Vec<String>>) {
    let mut set = |key: &str, css: &[&str]| {
        selectors.insert(key.into(), css.iter().map(|c| c.to_string()).collect());
    };
    match mode {
        "no-ids" => {
            set(
                "Composer",
                &["[contenteditable=\"true\"][role=\"textbox\"]"],
            );
            set(
                "StopButton",
                &["button[aria-label=\"Stop streaming\"]:not([hidden])"],
            );
            set("CopyButton", &["button[aria-label=\"Copy\"]"]);
            set("NewChat", &["header a[href=\"/\"]"]);
        }
        "translated" => {
            set("CopyButton", &["[data-testid=\"copy-turn-action-button\"]"]);
        }
        "shared-slot" => {
            set("StopButton", &["button[aria-label=\"Stop streaming\"]"]);
        }
        "other-containers" => {
            set("UserMessage", &["main section > article:first-child"]);
            set("AssistantMessage", &["main section > article:nth-child(2)"]);
        }
        // Every part inside the shadow root of `<chat-app>`: each selector crosses it.
        "shadow-root" => {
            for alternatives in selectors.values_mut() {
                for css in alternatives.iter_mut() {
                    *css = format!("chat-app >>> {css}");
                }
            }
        }
        // Components inside `<chat-app>`'s shadow root: the conversation's parts cross into
        // `<chat-thread>`'s, the composer's into `<chat-composer>`'s.
        "nested-shadow" => {
            for (key, alternatives) in selectors.iter_mut() {
                let into = match key.as_str() {
                    "NewChat" => "chat-app >>> ",
                    "Composer" | "SendButton" | "StopButton" => "chat-app >>> chat-composer >>> ",
                    k if k.starts_with("Attachment") => "chat-app >>> chat-composer >>> ",
                    _ => "chat-app >>> chat-thread >>> ",
                };
                for css in alternatives.iter_mut() {
                    *css = format!("{into}{css}");
                }
            }
        }
        // The whole chat in a frame of the same origin: each selector crosses into it.
        "iframe" => {
            for alternatives in selectors.values_mut() {
                for css in alternatives.iter_mut() {
                    *css = format!("iframe >>> {css}");
                }
            }
        }
        "icon-copy" => {
            set("CopyButton", &["button:has(> svg.icon-copy)"]);
        }
        // Each turn's text and a reply's actions in shadow roots of their own, below the
        // turn's element (which the turns' selectors still find).
        "shadow-turns" => {
            set(
                "CopyButton",
                &["div.msg >>> div.bar >>> span.actions > span.act"],
            );
            set(
                "CodeBlock",
                &["div.msg >>> div.turn >>> div.content >>> pre code"],
            );
        }
        "busy-signal" => {
            set("StopButton", &["[aria-busy=\"true\"]"]);
            set("Completed", &["[data-raw-length]"]);
        }
        _ => {}
    }
}

fn selectors_file(folder: &std::path::Path, way: Way, mode: &str) -> PathBuf {
    let mut file = keyless::chat::selectors::load(None).unwrap();
    match way {
        Way::Correct => {
            let local = file.sites.get_mut("local").unwrap();
            correct_for(mode, &mut local.selectors);
        }
        Way::Stale(site) => {
            let other = file.sites[site].clone();
            let local = file.sites.get_mut("local").unwrap();
            local.selectors = other.selectors;
            local.texts = other.texts;
            local.insert = other.insert;
        }
        Way::Unknown => file.sites.clear(),
    }
    let path = folder.join("selectors.json");
    std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    path
}

/// Writes a file whose bytes Markdown would mangle, then says done.
const WRITE: &str = "```\n@@newfile notes/a.md\n<<<CONTENT\n# Title\n  *two* spaces, _under_ and a\ttab   \n\n\nafter two blank lines\n```\ninner fence\n```\nCONTENT>>>\n@@end\n@@eof\n```";
const WRITTEN: &str = "# Title\n  *two* spaces, _under_ and a\ttab   \n\n\nafter two blank lines\n```\ninner fence\n```\n";
const DONE: &str = "```\n@@done\n<<<MSG\nWrote the note.\nMSG>>>\n@@end\n@@eof\n```";

/// `keyless run` on the local page in `modes`, learning it `way`; returns stderr.
fn run_through(modes: &[&str], way: Way, profile: &std::path::Path) -> String {
    let chat = LocalChat::start(Script {
        page: page(modes),
        ..Script::replies([WRITE, DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let selectors = selectors_file(files.path(), way, modes[0]);
    let site = (!matches!(way, Way::Unknown)).then_some("local");
    let mut cmd = attached(keyless_at(
        &chat.url(),
        site,
        &profile.join("browser"),
        profile,
        &[
            "run",
            "Write the note of https://example.com/notes",
            "--mode",
            "auto",
        ],
    ));
    cmd.arg("--selectors")
        .arg(&selectors)
        .arg("--workspace")
        .arg(ws.path());
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let what = format!("{modes:?} {way:?}\n{stdout}\n{stderr}");
    assert_eq!(out.status.code(), Some(0), "{what}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes/a.md"))
            .unwrap_or_else(|e| panic!("{e}: {what}")),
        WRITTEN,
        "{what}"
    );
    // Nothing sent twice: the task, then the results, once each.
    let received = chat.received();
    assert_eq!(received.len(), 2, "{what}\n{received:#?}");
    assert!(
        received[0].ends_with("Task:\nWrite the note of https://example.com/notes\n"),
        "{what}"
    );
    assert!(received[1].starts_with("[KEYLESSAGENT RESULTS]"), "{what}");
    // The reading channel is in the transcript.
    let transcript = std::fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap();
    let channel = match expected_channel(modes) {
        Channel::Wire => "wire",
        _ => "copy_button",
    };
    assert!(
        transcript.contains(&format!("\"channel\":\"{channel}\"")),
        "{what}\n{transcript}"
    );
    stderr
}

/// A message box that keeps no whitespace of its own (a plain contenteditable drawn with
/// `white-space: normal`): no strategy puts the rules' indentation in exactly, and the turn
/// goes on with every word in place, said once as KA_MESSAGE_ALTERED. Before, the first
/// message with a tab or a run of spaces stopped the turn with KA_SEND_NOT_CONFIRMED naming the
/// last strategy tried (issue 30's first outside attack, its page "b").
#[test]
fn a_message_box_that_collapses_whitespace_gets_the_words_with_a_warning() {
    let profile = tempfile::tempdir().unwrap();
    let stderr = run_through(&["collapsing-composer"], Way::Correct, profile.path());
    assert!(stderr.contains("KA_MESSAGE_ALTERED"), "{stderr}");
    assert!(stderr.contains("keeps no whitespace"), "{stderr}");
    assert!(!stderr.contains("KA_SEND_NOT_CONFIRMED"), "{stderr}");
    assert_eq!(
        stderr.matches("keeps no whitespace").count(),
        1,
        "said once: {stderr}"
    );
}

/// Runs the whole loop on `mode` three ways: correct selectors, `stale` (another site's), none.
fn three_ways(mode: &str, stale: &'static str) {
    for way in [Way::Correct, Way::Stale(stale), Way::Unknown] {
        let profile = tempfile::tempdir().unwrap();
        let stderr = run_through(&[mode], way, profile.path());
        if matches!(way, Way::Unknown) {
            assert!(
                stderr.contains("finds the page's parts by their shape"),
                "{stderr}"
            );
        }
    }
}

macro_rules! three_ways {
    ($($name:ident: $mode:literal, $stale:literal;)*) => {$(
        #[test]
        fn $name() {
            three_ways($mode, $stale);
        }
    )*};
}

three_ways! {
    generated_classes_three_ways: "generated-classes", "chatgpt";
    no_ids_three_ways: "no-ids", "claude";
    translated_three_ways: "translated", "gemini";
    send_with_text_three_ways: "send-with-text", "deepseek";
    shared_slot_three_ways: "shared-slot", "grok";
    enter_only_three_ways: "enter-only", "mistral";
    other_containers_three_ways: "other-containers", "chatgpt";
    hover_copy_three_ways: "hover-copy", "claude";
    reasoning_three_ways: "reasoning", "copilot";
    busy_signal_three_ways: "busy-signal", "aistudio";
    enter_newline_three_ways: "enter-newline", "gemini";
    link_badges_three_ways: "link-badges", "chatgpt";
    doubled_thoughts_three_ways: "doubled-thoughts", "claude";
    code_editor_above_three_ways: "code-editor-above", "mistral";
    code_copy_three_ways: "code-copy", "gemini";
    sse_three_ways: "sse", "chatgpt";
    sse_cumulative_three_ways: "sse-cumulative", "claude";
    lossy_three_ways: "lossy", "deepseek";
    encoded_stream_three_ways: "encoded-stream", "grok";
    icon_copy_three_ways: "icon-copy", "chatgpt";
    menu_copy_three_ways: "menu-copy", "claude";
    collapsing_composer_three_ways: "collapsing-composer", "gemini";
    shift_enter_only_three_ways: "shift-enter-only", "claude";
    shadow_root_three_ways: "shadow-root", "gemini";
    nested_shadow_three_ways: "nested-shadow", "chatgpt";
    iframe_three_ways: "iframe", "claude";
    shadow_turns_three_ways: "shadow-turns", "gemini";
    counter_ids_three_ways: "counter-ids", "deepseek";
    far_images_three_ways: "far-images", "grok";
    busy_composer_three_ways: "busy-composer", "claude";
    rebuilding_thread_three_ways: "rebuilding-thread", "gemini";
    picker_menu_three_ways: "picker-menu", "chatgpt";
    picker_listbox_three_ways: "picker-listbox", "claude";
    model_locked_three_ways: "model-locked", "gemini";
    model_downgrade_three_ways: "model-downgrade", "deepseek";
    model_cap_three_ways: "model-cap", "grok";
    work_mode_three_ways: "work-mode", "chatgpt";
    temporary_chat_three_ways: "temporary-chat", "claude";
    effort_submenu_three_ways: "effort-submenu", "chatgpt";
    rich_rows_three_ways: "rich-rows", "claude";
    picker_select_three_ways: "picker-select", "gemini";
    attach_three_ways: "attach", "chatgpt";
    attach_refuse_three_ways: "attach-refuse", "claude";
    attach_cap_three_ways: "attach-cap", "gemini";
    attach_silent_three_ways: "attach-silent", "mistral";
    no_upload_three_ways: "no-upload", "qwen";
    late_actions_three_ways: "late-actions", "deepseek";
    own_words_three_ways: "own-words", "claude";
    websocket_three_ways: "websocket", "chatgpt";
}

#[test]
fn the_modes_are_all_run() {
    // A mode added to the page without a run above fails here.
    let source = include_str!("discovery.rs");
    for mode in MODES {
        assert!(
            source.contains(&format!("\"{mode}\", \"")),
            "{mode} has no three-ways test"
        );
    }
}

// --- Learning ---

/// Runs the built keyless with `args` on `chat`'s page, knowing no site, with `config` as its
/// config folder.
fn keyless_unknown(
    chat: &LocalChat,
    config: &std::path::Path,
    args: &[&str],
) -> std::process::Output {
    let selectors = config.join("no-sites.json");
    std::fs::write(&selectors, "{\"sites\": {}}").unwrap();
    attached(keyless_at(
        &chat.url(),
        None,
        &config.join("browser"),
        config,
        args,
    ))
    .arg("--selectors")
    .arg(&selectors)
    .output()
    .unwrap()
}

#[test]
fn doctor_learn_keeps_selectors_with_which_the_next_run_needs_no_discovery() {
    let modes = [
        "generated-classes",
        "no-ids",
        "other-containers",
        "translated",
    ];
    let chat = LocalChat::start(Script {
        page: page(&modes),
        ..Script::replies([WRITE, DONE])
    })
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = keyless_unknown(&chat, config.path(), &["doctor", "--learn"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("learned: the entry for 127.0.0.1:"),
        "{stdout}"
    );
    assert!(stdout.contains("+ Composer: "), "{stdout}");
    let path = config.path().join("keyless/learned-selectors.json");
    let file = keyless::chat::learned::load(&path).unwrap();
    // A page on a loopback address is named with its port: another port is another site.
    let (_, entry) = file
        .sites
        .iter()
        .find(|(name, _)| name.starts_with("127.0.0.1:"))
        .unwrap();
    for key in [
        "Composer",
        "UserMessage",
        "AssistantMessage",
        "CopyButton",
        "Completed",
    ] {
        assert!(
            entry.selectors.contains_key(key),
            "{key} not learned: {entry:#?}"
        );
    }
    // Never a generated class name: the page draws new ones on every load.
    let json = std::fs::read_to_string(&path).unwrap();
    assert!(!json.contains("div.c") && !json.contains(".c"), "{json}");

    // The next run, on a fresh page load, finds every part by the learned selectors.
    let ws = tempfile::tempdir().unwrap();
    let ws_arg = ws.path().to_str().unwrap();
    let out = keyless_unknown(
        &chat,
        config.path(),
        &[
            "run",
            "Write the note",
            "--mode",
            "auto",
            "--workspace",
            ws_arg,
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("using the selectors keyless learned"),
        "{stderr}"
    );
    assert!(!stderr.contains("by its shape"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes/a.md")).unwrap(),
        WRITTEN
    );
}

/// A copy control that is only an icon (no label, text or test id) is found by its icon and
/// proved by what its click copies; what is learned names it by what stays, never by the
/// `data-copied="true"` it shows for three seconds after a click: the next run finds it.
#[test]
fn an_icon_only_copy_control_is_learned_by_what_stays() {
    let chat = LocalChat::start(Script {
        page: page(&["icon-copy"]),
        ..Script::replies([WRITE, DONE])
    })
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = keyless_unknown(&chat, config.path(), &["doctor", "--learn"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let path = config.path().join("keyless/learned-selectors.json");
    let file = keyless::chat::learned::load(&path).unwrap();
    let (_, entry) = file
        .sites
        .iter()
        .find(|(name, _)| name.starts_with("127.0.0.1:"))
        .unwrap();
    let copy = entry
        .selectors
        .get("CopyButton")
        .unwrap_or_else(|| panic!("CopyButton not learned: {entry:#?}"));
    assert!(
        copy.iter().all(|css| !css.contains("copied")),
        "learned from a moment's state: {copy:?}"
    );
    let ws = tempfile::tempdir().unwrap();
    let ws_arg = ws.path().to_str().unwrap();
    let out = keyless_unknown(
        &chat,
        config.path(),
        &[
            "run",
            "Write the note",
            "--mode",
            "auto",
            "--workspace",
            ws_arg,
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stderr.contains("by its shape"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes/a.md")).unwrap(),
        WRITTEN
    );
    let transcript = std::fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap();
    assert!(
        transcript.contains("\"channel\":\"copy_button\""),
        "{transcript}"
    );
}

/// What `doctor --learn` keeps for a page whose parts sit in shadow roots inside shadow roots
/// crosses each boundary with `>>>`, and the next run finds every part by it.
#[test]
fn what_is_learned_inside_nested_shadow_roots_crosses_them_and_serves_the_next_run() {
    let chat = LocalChat::start(Script {
        page: page(&["nested-shadow"]),
        ..Script::replies([WRITE, DONE])
    })
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = keyless_unknown(&chat, config.path(), &["doctor", "--learn"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let path = config.path().join("keyless/learned-selectors.json");
    let file = keyless::chat::learned::load(&path).unwrap();
    let (_, entry) = file
        .sites
        .iter()
        .find(|(name, _)| name.starts_with("127.0.0.1:"))
        .unwrap();
    let first = |key: &str| {
        entry
            .selectors
            .get(key)
            .and_then(|list| list.first().cloned())
            .unwrap_or_else(|| panic!("{key} not learned: {entry:#?}"))
    };
    // Two crossings each: into `<chat-app>`, then into the component that holds the part.
    for (key, component) in [
        ("Composer", "chat-composer"),
        ("UserMessage", "chat-thread"),
        ("AssistantMessage", "chat-thread"),
    ] {
        let css = first(key);
        assert_eq!(css.matches(">>>").count(), 2, "{key}: {css}");
        assert!(css.starts_with("chat-app"), "{key}: {css}");
        assert!(css.contains(component), "{key}: {css}");
    }
    let ws = tempfile::tempdir().unwrap();
    let out = keyless_unknown(
        &chat,
        config.path(),
        &[
            "run",
            "Write the note",
            "--mode",
            "auto",
            "--workspace",
            ws.path().to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("by its shape"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes/a.md")).unwrap(),
        WRITTEN
    );
}

/// A chat inside a frame of another origin cannot be looked into by any script of the page:
/// keyless says so in words, naming the frame, and nothing is sent or executed.
#[test]
fn a_chat_in_a_frame_of_another_origin_is_named_as_unreadable_and_nothing_runs() {
    let chat = LocalChat::start(Script {
        page: page(&["far-frame"]),
        ..Script::replies([WRITE, DONE])
    })
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let out = keyless_unknown(
        &chat,
        config.path(),
        &[
            "run",
            "Write the note",
            "--mode",
            "auto",
            "--workspace",
            ws.path().to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("KA_SELECTOR_NOT_FOUND"), "{stderr}");
    assert!(
        stderr.contains("a frame from another origin (http://localhost:"),
        "{stderr}"
    );
    assert!(chat.received().is_empty());
    assert!(!ws.path().join("notes").exists());
    // The sketch saved for the report marks the frame too.
    let sketches: String = std::fs::read_dir(ws.path().join(".agent/logs"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("page-sketch-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        sketches.contains("(a frame from another origin, which keyless cannot look into)"),
        "{sketches}"
    );
}

/// The page sketch for a report shows what sits inside shadow roots (marked as such, at any
/// depth) and inside a frame of the same origin.
#[test]
fn the_page_sketch_looks_inside_shadow_roots_and_same_origin_frames() {
    for (mode, marked) in [
        ("nested-shadow", "#shadow-root (open)"),
        ("iframe", "iframe"),
    ] {
        let chat = LocalChat::start(Script {
            page: page(&[mode]),
            ..Script::replies([HOSTILE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let d = driver(&chat, Knowledge::None, profile.path().to_path_buf());
        let folder = tempfile::tempdir().unwrap();
        let path = d.save_sketch(folder.path(), "a test").unwrap();
        let sketch = std::fs::read_to_string(path).unwrap();
        for part in [
            "div#prompt-textarea",
            "main#thread",
            "button#send-button",
            marked,
        ] {
            assert!(sketch.contains(part), "{mode}: no {part} in\n{sketch}");
        }
        if mode == "nested-shadow" {
            assert_eq!(sketch.matches("#shadow-root (open)").count(), 3, "{sketch}");
        }
        d.close();
    }
}

// --- Faults in a discovered session: as with selectors, never executed half. ---

/// A driver on a page no selectors file knows, every disguise on, with `script`'s replies.
fn discovered(script: Script, timeout: Duration) -> (LocalChat, CdpDriver, tempfile::TempDir) {
    let chat = LocalChat::start(Script {
        page: PageFaults {
            modes: ALL_AT_ONCE.iter().map(|m| m.to_string()).collect(),
            ..script.page.clone()
        },
        ..script
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options =
        crate::common::shared_browser::local_page(chat.url(), profile.path().to_path_buf());
    options.site = keyless::chat::selectors::load(None)
        .unwrap()
        .unknown_site(&chat.url());
    options.reply_timeout = timeout;
    options.truncation_budget = Duration::from_secs(1);
    let driver = CdpDriver::start(options).unwrap();
    (chat, driver, profile)
}

fn faulty(fault: Fault) -> Script {
    Script {
        replies: vec![ScriptedReply {
            text: HOSTILE.to_string(),
            fault: Some(fault),
        }],
        ..Script::default()
    }
}

#[test]
fn a_truncated_reply_on_a_discovered_page_is_reply_truncated() {
    let (_chat, mut d, _p) = discovered(faulty(Fault::Truncate), Duration::from_secs(20));
    d.send("go on").unwrap();
    let failure = d.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(failure.code, Code::ReplyTruncated, "{failure:?}");
    d.close();
}

#[test]
fn no_reply_on_a_discovered_page_is_reply_timeout() {
    let (_chat, mut d, _p) = discovered(faulty(Fault::NoReply), Duration::from_secs(3));
    d.send("go on").unwrap();
    let failure = d.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(failure.code, Code::ReplyTimeout, "{failure:?}");
    d.close();
}

#[test]
fn the_length_limit_on_a_discovered_page_is_chat_exhausted() {
    let (_chat, mut d, _p) = discovered(faulty(Fault::Exhausted), Duration::from_secs(20));
    d.send("go on").unwrap();
    let failure = d.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(failure.code, Code::ChatExhausted, "{failure:?}");
    d.close();
}

#[test]
fn offline_on_a_discovered_page_is_reported_and_the_message_goes_later() {
    let (chat, mut d, _p) = discovered(Script::replies([HOSTILE]), Duration::from_secs(20));
    d.set_offline(true).unwrap();
    let failure = d
        .send("go on")
        .and_then(|()| d.wait_reply(&mut |_| {}).map(|_| ()))
        .unwrap_err();
    assert_eq!(failure.code, Code::NetworkOffline, "{failure:?}");
    d.set_offline(false).unwrap();
    d.send("go on").unwrap();
    assert_eq!(d.wait_reply(&mut |_| {}).unwrap().text, HOSTILE);
    assert_eq!(chat.received(), vec!["go on"]);
    d.close();
}

#[test]
fn a_stale_composer_on_a_discovered_page_is_cleared_first() {
    let script = Script {
        page: PageFaults {
            stale_composer: Some("old draft\nwith two lines".into()),
            ..PageFaults::default()
        },
        ..Script::replies([HOSTILE])
    };
    let (chat, mut d, _p) = discovered(script, Duration::from_secs(20));
    d.send("fresh message").unwrap();
    assert_eq!(d.wait_reply(&mut |_| {}).unwrap().text, HOSTILE);
    assert_eq!(chat.received(), vec!["fresh message"]);
    d.close();
}

/// A page no selectors file knows, opened at a conversation's own address: a new chat comes
/// from the page's "New chat" control, found by its shape (in German here); the address would
/// only reopen the conversation.
#[test]
fn a_new_chat_on_a_discovered_page_uses_its_new_chat_control() {
    let chat = LocalChat::start(Script {
        page: page(ALL_AT_ONCE),
        ..Script::replies([HOSTILE, HOSTILE])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let address = format!("{}c/kept", chat.url());
    let mut options =
        crate::common::shared_browser::local_page(address.clone(), profile.path().to_path_buf());
    options.site = keyless::chat::selectors::load(None)
        .unwrap()
        .unknown_site(&address);
    let mut d = CdpDriver::start(options).unwrap();
    d.send("first").unwrap();
    d.wait_reply(&mut |_| {}).unwrap();
    assert!(d.chat_url().unwrap().ends_with("/c/kept"));
    d.new_chat().unwrap();
    let fresh = d.chat_url().unwrap();
    assert!(!fresh.contains("/c/"), "{fresh}");
    d.send("second").unwrap();
    assert_eq!(d.wait_reply(&mut |_| {}).unwrap().text, HOSTILE);
    assert_eq!(chat.received(), vec!["first", "second"]);
    d.close();
}

/// `keyless doctor --learn` on every page mode, one at a time, knowing no site: it finishes
/// within a minute with its report, and what it learned serves the next run, which finds every
/// part by the learned selectors.
#[test]
fn doctor_learn_on_every_page_mode_finishes_within_a_minute_and_serves_the_next_run() {
    let mut failed = Vec::new();
    for mode in MODES {
        // No run succeeds there, by design (`server_drawn_three_ways`), or no message goes in
        // exactly, which doctor checks (`collapsing_composer_three_ways`).
        if INEXACT.contains(mode) {
            continue;
        }
        let chat = LocalChat::start(Script {
            page: page(&[mode]),
            ..Script::replies([WRITE, DONE])
        })
        .unwrap();
        let config = tempfile::tempdir().unwrap();
        let started = std::time::Instant::now();
        let out = keyless_unknown(&chat, config.path(), &["doctor", "--learn"]);
        let took = started.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if took >= Duration::from_secs(60) || !stdout.contains("learned: the entry for") {
            failed.push(format!("{mode}: doctor took {took:?}\n{stdout}"));
            continue;
        }
        let ws = tempfile::tempdir().unwrap();
        let out = keyless_unknown(
            &chat,
            config.path(),
            &[
                "run",
                "Write the note",
                "--mode",
                "auto",
                "--workspace",
                ws.path().to_str().unwrap(),
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let written = std::fs::read_to_string(ws.path().join("notes/a.md")).ok();
        if out.status.code() != Some(0)
            || written.as_deref() != Some(WRITTEN)
            || !stderr.contains("using the selectors keyless learned")
            || stderr.contains("by its shape")
        {
            failed.push(format!(
                "{mode}: the run after learning\n{stdout}\n{stderr}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n---\n"));
}

/// On a page whose turns carry ids from a counter (`counter-ids`, as NiceGUI's elements do),
/// discovery never names a turn by its id: that selector would match the first turn only, and
/// from the third message on keyless would see no new turn and no reply. Three exchanges, each
/// message received once, and nothing learned names an id.
#[test]
fn a_turns_counter_id_is_never_its_name() {
    const LOOK: &str = "```\n@@runcommand\n<<<CMD\ncat notes/a.md\nCMD>>>\n@@end\n@@eof\n```";
    let chat = LocalChat::start(Script {
        page: page(&["counter-ids"]),
        ..Script::replies([WRITE, LOOK, DONE])
    })
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let out = keyless_unknown(
        &chat,
        config.path(),
        &[
            "run",
            "Write the note, then read it",
            "--mode",
            "auto",
            "--workspace",
            ws.path().to_str().unwrap(),
        ],
    );
    let what = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{what}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("notes/a.md")).unwrap(),
        WRITTEN
    );
    assert_eq!(chat.received().len(), 3, "nothing sent twice: {what}");
    let learned =
        std::fs::read_to_string(config.path().join("keyless/learned-selectors.json")).unwrap();
    assert!(!learned.contains("#c"), "{learned}");
}

/// A page whose replies show a picture from a host that cannot be reached (`far-images`, as
/// Panel's page asks a CDN for its fonts): that failure says nothing about the chat's own
/// requests, so keyless never takes the machine for offline, and never sends again.
#[test]
fn a_picture_that_fails_to_load_is_not_the_machine_offline() {
    let chat = LocalChat::start(Script {
        page: page(&["far-images"]),
        ..Script::replies([WRITE, DONE])
    })
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let out = keyless_unknown(
        &chat,
        config.path(),
        &[
            "run",
            "Write the note",
            "--mode",
            "auto",
            "--workspace",
            ws.path().to_str().unwrap(),
        ],
    );
    let what = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{what}");
    assert!(!what.contains("KA_NETWORK_OFFLINE"), "{what}");
    assert_eq!(chat.received().len(), 2, "nothing sent twice: {what}");
}

/// The page mode where no agent can read a reply exactly.
const SERVER_DRAWN: &str = "server-drawn";

/// The page modes where nothing exact can pass one way: no reply read exactly
/// (`server-drawn`), or no message put into the message box exactly (`collapsing-composer`,
/// whose messages go with their whitespace changed and a warning).
const INEXACT: &[&str] = &[SERVER_DRAWN, "collapsing-composer", "any-enter-sends"];

/// `server-drawn`, three ways (selectors right, stale, none): the server draws each reply into
/// HTML with its tabs expanded and the page has no copy control, so no channel holds the
/// reply's bytes. The network carried the reply as HTML (its `<<<` escaped), so its code block
/// is the server's rendering, not proof: keyless reads it as rebuilt text, never executes it
/// (`KA_REPLY_NOT_EXACT`), and stops once the model's resends are used up, nothing written.
/// Before that rule, the code block's spaces were written where the reply had a tab.
#[test]
fn server_drawn_three_ways() {
    stops_where_no_reply_is_exact("server-drawn", "gemini");
}

/// `keyless run "Write the note"` on the local page in `mode`, learning it `way`, its model
/// answering `replies`: the chat, the workspace, the exit code, and the way with what keyless
/// printed.
fn write_the_note(
    mode: &str,
    way: Way,
    replies: &[&str],
) -> (LocalChat, tempfile::TempDir, Option<i32>, String) {
    let chat = LocalChat::start(Script {
        page: page(&[mode]),
        ..Script::replies(replies.iter().copied())
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let selectors = selectors_file(files.path(), way, mode);
    let site = (!matches!(way, Way::Unknown)).then_some("local");
    let out = attached(keyless_at(
        &chat.url(),
        site,
        &profile.path().join("browser"),
        profile.path(),
        &["run", "Write the note", "--mode", "auto"],
    ))
    .arg("--selectors")
    .arg(&selectors)
    .arg("--workspace")
    .arg(ws.path())
    .output()
    .unwrap();
    let what = format!(
        "{way:?}\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (chat, ws, out.status.code(), what)
}

/// `any-enter-sends`, three ways (selectors right, stale, none): Enter and Shift+Enter both
/// send and no line break goes in any other way, so keyless's first message (many lines)
/// cannot go whole: it stops with `KA_SEND_NOT_CONFIRMED` saying nothing was sent, and the
/// site received nothing (before, typing it with Shift+Enter sent each line as a message).
#[test]
fn any_enter_sends_three_ways() {
    let (mode, stale) = ("any-enter-sends", "claude");
    for way in [Way::Correct, Way::Stale(stale), Way::Unknown] {
        let (chat, _ws, code, what) = write_the_note(mode, way, &[WRITE, DONE]);
        assert_ne!(code, Some(0), "{what}");
        assert!(what.contains("KA_SEND_NOT_CONFIRMED"), "{what}");
        assert!(what.contains("nothing was sent"), "{what}");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(chat.received(), Vec::<String>::new(), "{what}");
    }
}

/// `mode`, three ways, where no reply can be read exactly: nothing executed, and keyless stops.
fn stops_where_no_reply_is_exact(mode: &str, stale: &'static str) {
    for way in [Way::Correct, Way::Stale(stale), Way::Unknown] {
        let (chat, ws, code, what) = write_the_note(mode, way, &[WRITE; 5]);
        assert_ne!(code, Some(0), "{what}");
        assert!(!ws.path().join("notes/a.md").exists(), "{what}");
        let received = chat.received();
        assert!(received.len() >= 2, "{what}");
        // Said to the model as KA_REPLY_NOT_EXACT's words.
        assert!(
            received[1].contains("could not read your reply exactly"),
            "{what}"
        );
        assert!(
            received[1..]
                .iter()
                .all(|m| m.contains("[KEYLESSAGENT FORMAT ERROR]")),
            "{what}\n{received:#?}"
        );
    }
}

/// A page that draws a reply's copy control seconds after its text, with each site's selectors
/// (several name this page's copy control, none its turns' order): while the second reply has
/// no control yet, the first reply's, drawn late, is the last one on the page, and its copy
/// holds the second reply's few words in order. The second reply is its own text, never the
/// first one's: a control before the reply starts belongs to an earlier turn. Before, with
/// ChatGPT's selectors, the second reply was read as the first.
#[test]
fn an_earlier_reply_s_late_copy_control_is_never_read_as_the_new_reply() {
    let file = keyless::chat::selectors::load(None).unwrap();
    for site in file.sites.keys().filter(|s| *s != "local") {
        let site: &'static str = Box::leak(site.clone().into_boxed_str());
        exchange_twice(&["late-actions"], Knowledge::Stale(site));
    }
}

/// A composer the page keeps disabled for a while after a reply (`busy-composer`): the results
/// go once it takes text again, the first time, with no insertion tried into the disabled box
/// and nothing sent twice.
#[test]
fn a_composer_disabled_after_the_reply_is_waited_for_before_the_results_go() {
    for way in [Way::Correct, Way::Unknown] {
        let (chat, ws, code, what) = write_the_note("busy-composer", way, &[WRITE, DONE]);
        assert_eq!(code, Some(0), "{what}");
        assert_eq!(chat.received().len(), 2, "{what}");
        let log = std::fs::read_to_string(ws.path().join(".agent/logs/keyless.log")).unwrap();
        assert!(
            log.contains("the composer is disabled: waiting for the page"),
            "{what}\n{log}"
        );
        assert!(
            !log.contains("ok=false"),
            "an insertion was tried while disabled: {log}"
        );
    }
}
