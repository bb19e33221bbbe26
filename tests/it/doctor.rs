//! `keyless doctor` against the local chat page in headless Chromium: a healthy site passes the
//! canary; a broken selector is reported by key and fails the exit code.

use keyless::chat::local::{LocalChat, PageFaults, Script};
use serde_json::Value;

use crate::common::local_keyless::{attached, keyless_at};

fn doctor(url: &str, extra: &[&str]) -> (Value, Option<i32>) {
    let profile = tempfile::tempdir().unwrap();
    let out = attached(keyless_at(
        url,
        Some("local"),
        profile.path(),
        profile.path(),
        &["doctor", "--json"],
    ))
    .args(extra)
    .output()
    .unwrap();
    let mut json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    // A sketch lives in the profile folder, gone with it: read it while it is there.
    if let Some(path) = json["sketch"].as_str() {
        json["sketch_text"] = Value::String(std::fs::read_to_string(path).unwrap());
    }
    (json, out.status.code())
}

#[test]
fn the_local_page_is_healthy_and_passes_the_canary() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let (report, code) = doctor(&chat.url(), &["--canary"]);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["healthy"], true);
    let composer = report["selectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == "Composer")
        .unwrap();
    assert_eq!(
        composer["matched"],
        "#prompt-textarea[contenteditable=\"true\"]"
    );
    assert_eq!(composer["visible"], true);
    let inserts = report["inserts"].as_array().unwrap();
    let strategies: Vec<(&str, bool)> = inserts
        .iter()
        .map(|i| {
            (
                i["strategy"].as_str().unwrap(),
                i["exact"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        strategies,
        vec![
            ("pasteHtml", true),
            ("insertTextWhole", true),
            ("insertText", true)
        ],
        "each of the site's insertion strategies is tried alone: {report:#}"
    );
    let channels = report["canary"].as_array().unwrap();
    let exact =
        |name: &str| channels.iter().find(|c| c["channel"] == name).unwrap()["exact"].clone();
    assert_eq!(exact("copy_button"), true, "{report:#}");
    assert_eq!(
        exact("wire"),
        true,
        "the reply as the page's server streamed it: {report:#}"
    );
    assert_eq!(exact("code_block"), true, "{report:#}");
    assert_eq!(
        exact("dom"),
        false,
        "rebuilding from the DOM loses the emphasis markers: {report:#}"
    );
}

/// Runs doctor with the built-in selectors changed for the local site.
fn doctor_with(url: &str, change: impl FnOnce(&mut Value), extra: &[&str]) -> (Value, Option<i32>) {
    let mut file: Value =
        serde_json::from_str(&std::fs::read_to_string("selectors.json").unwrap()).unwrap();
    change(&mut file["sites"]["local"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("selectors.json");
    std::fs::write(&path, file.to_string()).unwrap();
    let mut args = vec!["--selectors", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    doctor(url, &args)
}

#[test]
fn a_strategy_that_fails_is_reported_and_the_site_stays_healthy_with_another() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let (report, code) = doctor_with(
        &chat.url(),
        |site| site["insert"] = serde_json::json!(["typeEachKey", "pasteHtml"]),
        &["--canary"],
    );
    assert_eq!(code, Some(0), "{report:#}");
    let inserts = report["inserts"].as_array().unwrap();
    assert_eq!(inserts[0]["exact"], false, "{report:#}");
    assert!(
        inserts[0]["problem"]
            .as_str()
            .unwrap()
            .contains("KA_CONFIG_VALIDATION: unknown insertion strategy typeEachKey"),
        "{report:#}"
    );
    assert_eq!(
        inserts[1]["exact"], true,
        "the local page's editor takes a paste: {report:#}"
    );
}

#[test]
fn a_broken_selector_is_reported_and_fails_the_exit_code() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let (report, code) = doctor_with(
        &chat.url(),
        |site| site["selectors"]["SendButton"] = serde_json::json!(["#no-such-send-button"]),
        &[],
    );
    assert_eq!(code, Some(4), "{report:#}");
    assert_eq!(report["healthy"], false);
    let send = report["selectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == "SendButton")
        .unwrap();
    assert_eq!(send["matched"], Value::Null);
    assert!(
        report["problems"][0]
            .as_str()
            .unwrap()
            .contains("SendButton: none of #no-such-send-button matched"),
        "{report:#}"
    );
    // A sketch of the page is kept for a report.
    let sketch = report["sketch_text"].as_str().unwrap();
    assert!(
        sketch.contains("selector SendButton: none matched"),
        "{sketch}"
    );
    assert!(sketch.contains("button#send-button"), "{sketch}");
}

/// A site that draws the sent probe as something else (a chip for a pasted file) would leave a
/// resumed turn unable to tell whether its message went: the canary says so.
#[test]
fn a_sent_message_that_does_not_read_back_fails_the_canary() {
    let chat = LocalChat::start(Script {
        page: PageFaults {
            user_display: Some("replaced".into()),
            ..PageFaults::default()
        },
        ..Script::default()
    })
    .unwrap();
    let (report, code) = doctor(&chat.url(), &["--canary"]);
    assert_eq!(code, Some(4), "{report:#}");
    assert_eq!(report["healthy"], false);
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("canary: KA_SEND_NOT_CONFIRMED"),
        "{report:#}"
    );
    // The reply itself was still read exactly.
    assert!(
        report["canary"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["exact"] == true),
        "{report:#}"
    );
}

/// On an empty chat the turn parts cannot be seen: doctor says they are unchecked, and never
/// calls the page healthy (nor reports them missing) until the canary has drawn a turn.
#[test]
fn turn_parts_are_unchecked_without_the_canary_and_found_after_it() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let (report, code) = doctor(&chat.url(), &[]);
    assert_eq!(code, Some(0), "no problem was found: {report:#}");
    assert_eq!(report["healthy"], false, "{report:#}");
    assert_eq!(
        report["problems"].as_array().unwrap().len(),
        0,
        "{report:#}"
    );
    let state = |report: &Value, key: &str| {
        report["selectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .unwrap()["state"]
            .clone()
    };
    for key in ["UserMessage", "AssistantMessage"] {
        assert_eq!(state(&report, key), "unchecked", "{report:#}");
    }
    assert_eq!(state(&report, "Composer"), "found");
    let (report, code) = doctor(&chat.url(), &["--canary"]);
    assert_eq!(code, Some(0), "{report:#}");
    for key in [
        "UserMessage",
        "AssistantMessage",
        "Completed",
        "CopyButton",
        "CodeBlock",
    ] {
        assert_eq!(state(&report, key), "found", "{key}: {report:#}");
    }
    assert_eq!(report["healthy"], true);
}

/// A page without its composer is when a user needs the whole table most: every other key is
/// still checked and reported.
#[test]
fn a_missing_composer_still_gets_every_other_key_checked() {
    let chat = LocalChat::start(Script {
        page: PageFaults {
            modes: vec!["no-composer".into()],
            ..Default::default()
        },
        ..Script::default()
    })
    .unwrap();
    let (report, code) = doctor(&chat.url(), &["--canary"]);
    assert_eq!(code, Some(4), "{report:#}");
    assert_eq!(report["healthy"], false);
    let selectors = report["selectors"].as_array().unwrap();
    assert_eq!(selectors.len(), keyless::chat::selectors::KEYS.len());
    let send = selectors.iter().find(|s| s["key"] == "SendButton").unwrap();
    assert_eq!(send["state"], "found", "{report:#}");
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("KA_SELECTOR_NOT_FOUND")
            && problems.contains("nothing on the page has its shape"),
        "{problems}"
    );
}

/// A stale composer selector: discovery finds the composer and the canary goes through, but
/// the entry is out of date, and doctor says so with what it found instead.
#[test]
fn a_stale_composer_selector_is_a_problem_even_when_discovery_stands_in() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let (report, code) = doctor_with(
        &chat.url(),
        |site| site["selectors"]["Composer"] = serde_json::json!(["#no-such-composer"]),
        &["--canary"],
    );
    assert_eq!(code, Some(4), "{report:#}");
    assert_eq!(report["healthy"], false);
    let selectors = report["selectors"].as_array().unwrap();
    assert_eq!(
        selectors.len(),
        keyless::chat::selectors::KEYS.len(),
        "{report:#}"
    );
    let send = selectors.iter().find(|s| s["key"] == "SendButton").unwrap();
    assert_eq!(send["state"], "found", "{report:#}");
    // Discovery stood in for the composer, and the canary went through; the stale entry is
    // still a problem, with what was found instead.
    let problems = report["problems"].to_string();
    assert!(
        problems.contains("Composer: none of #no-such-composer matched")
            && problems.contains("found it by its shape as div#prompt-textarea"),
        "{problems}"
    );
    let composer = selectors.iter().find(|s| s["key"] == "Composer").unwrap();
    assert_eq!(composer["discovered"], true, "{report:#}");
    assert!(
        report["discovered"].to_string().contains("Composer"),
        "{report:#}"
    );
}

/// The matrix, honestly: on a Quill composer whose replies have no copy control, draw code in
/// CodeMirror views (which hold only the lines on screen) and stream in a form only the page
/// reads (the wire cannot), doctor reports each insertion
/// strategy and each reading channel as exact, not exact or unavailable, with its time.
#[test]
fn the_canary_reports_each_strategy_and_channel_as_exact_not_exact_or_unavailable() {
    let chat = LocalChat::start(Script {
        page: PageFaults {
            editor: Some("quill".into()),
            renderer: Some("codemirror".into()),
            modes: vec!["no-copy".into(), "encoded-stream".into()],
            ..PageFaults::default()
        },
        modules: Some(crate::editors::modules()),
        ..Script::default()
    })
    .unwrap();
    // No channel reads the reply whole, so it never proves itself finished: a short budget.
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("keyless.json"),
        r#"{"Browser": {"TruncationBudgetSeconds": 2}}"#,
    )
    .unwrap();
    let ws_arg = ws.path().to_str().unwrap();
    let (report, code) = doctor(&chat.url(), &["--canary", "--workspace", ws_arg]);
    assert_eq!(code, Some(4), "{report:#}");
    let inserts = report["inserts"].as_array().unwrap();
    let exact = |name: &str| {
        inserts.iter().find(|i| i["strategy"] == name).unwrap()["exact"]
            .as_bool()
            .unwrap()
    };
    // Quill keeps whitespace of an HTML paste only inside <pre>.
    assert!(!exact("pasteHtml"), "{report:#}");
    assert!(exact("insertTextWhole"), "{report:#}");
    assert!(inserts.iter().all(|i| i["ms"].is_u64()), "{report:#}");
    let channels = report["canary"].as_array().unwrap();
    let state = |name: &str| {
        channels.iter().find(|c| c["channel"] == name).unwrap()["state"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(state("copy_button"), "unavailable", "{report:#}");
    assert_eq!(state("wire"), "unavailable", "{report:#}");
    assert_eq!(state("code_block"), "unavailable", "{report:#}");
    assert_eq!(state("dom"), "not exact", "{report:#}");
    assert!(
        report["problems"]
            .to_string()
            .contains("no reading channel returned the block exactly"),
        "{report:#}"
    );
}
