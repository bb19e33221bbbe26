//! `keyless doctor` against the local chat page in headless Chromium: a healthy site passes the
//! canary; a broken selector is reported by key and fails the exit code.

use std::process::Command;

use keyless::chat::local::{LocalChat, Script};
use serde_json::Value;

fn doctor(url: &str, extra: &[&str]) -> (Value, Option<i32>) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args([
            "doctor",
            "--json",
            "--headless",
            "--site",
            "local",
            "--url",
            url,
            "--profile",
        ])
        .arg(profile.path())
        .args(extra)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
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
    let channels = report["canary"].as_array().unwrap();
    let exact =
        |name: &str| channels.iter().find(|c| c["channel"] == name).unwrap()["exact"].clone();
    assert_eq!(exact("copy_button"), true, "{report:#}");
    assert_eq!(exact("code_block"), true, "{report:#}");
    assert_eq!(
        exact("dom"),
        false,
        "rebuilding from the DOM loses the emphasis markers: {report:#}"
    );
}

#[test]
fn a_broken_selector_is_reported_and_fails_the_exit_code() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let mut file: Value =
        serde_json::from_str(&std::fs::read_to_string("selectors.json").unwrap()).unwrap();
    file["sites"]["local"]["selectors"]["SendButton"] = serde_json::json!(["#no-such-send-button"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("selectors.json");
    std::fs::write(&path, file.to_string()).unwrap();
    let (report, code) = doctor(&chat.url(), &["--selectors", path.to_str().unwrap()]);
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
}
