//! selectors.json: the built-in file holds every site of the research notes with the required
//! keys, and a broken override is refused with its code.

use keyless::catalog::Code;
use keyless::chat::selectors::{self, REQUIRED};

#[test]
fn the_built_in_file_has_every_site_with_required_keys_and_alternatives() {
    let file = selectors::load(None).unwrap();
    for name in [
        "local",
        "chatgpt",
        "claude",
        "gemini",
        "aistudio",
        "deepseek",
        "mistral",
        "grok",
        "copilot",
        "qwen",
        "kimi",
        "perplexity",
        "meta",
    ] {
        let site = file
            .sites
            .get(name)
            .unwrap_or_else(|| panic!("no site {name}"));
        assert!(site.url.starts_with("http"), "{name}");
        // The local page is chosen by name: a page on a loopback host is nobody's by its host.
        assert!(
            (name == "local" || !site.matches.is_empty()) && !site.verified.is_empty(),
            "{name}"
        );
        for key in REQUIRED {
            assert!(!site.selectors[*key].is_empty(), "{name}.{key}");
        }
    }
    for (url, site) in [
        ("https://chatgpt.com/c/123", "chatgpt"),
        ("https://chat.qwen.ai/c/5f2e", "qwen"),
        ("https://www.kimi.com/chat/d1", "kimi"),
        ("https://www.perplexity.ai/search/how-to-x", "perplexity"),
        ("https://www.meta.ai/prompt/0b7c", "meta"),
    ] {
        let (name, _) = file.site(None, Some(url)).unwrap();
        assert_eq!(name, site, "{url}");
    }
    assert_eq!(
        file.site(Some("nope"), None).unwrap_err().code,
        Code::ConfigValidation
    );
}

#[test]
fn a_broken_override_is_refused_with_its_code() {
    let invalid = selectors::parse("{ \"version\": 1, \"sites\": { ", "test.json").unwrap_err();
    assert_eq!(invalid.code, Code::ConfigInvalid);
    assert!(invalid.reason.contains("line 1"), "{}", invalid.reason);
    let unknown = selectors::parse(
        r#"{"version": 1, "sites": {"x": {"url": "u", "match": ["m"], "verified": "d", "selectors": {"Composer": ["a"], "SendButton": ["b"], "UserMessage": ["c"], "AssistantMessage": ["d"], "Compser": ["e"]}}}}"#,
        "test.json",
    )
    .unwrap_err();
    assert_eq!(unknown.code, Code::ConfigValidation);
    assert!(
        unknown
            .reason
            .contains("sites.x.selectors.Compser is not a known key"),
        "{}",
        unknown.reason
    );
    let missing = selectors::parse(
        r#"{"version": 1, "sites": {"x": {"url": "u", "match": ["m"], "verified": "d", "selectors": {"Composer": ["a"]}}}}"#,
        "test.json",
    )
    .unwrap_err();
    assert!(
        missing
            .reason
            .contains("SendButton needs at least one CSS selector"),
        "{}",
        missing.reason
    );
}

#[test]
fn a_file_without_a_version_is_version_1_and_a_newer_version_is_named() {
    let site = r#""sites": {"x": {"url": "u", "match": ["m"], "verified": "d", "selectors": {"Composer": ["a"], "SendButton": ["b"], "UserMessage": ["c"], "AssistantMessage": ["d"]}}}"#;
    let file = selectors::parse(&format!("{{{site}}}"), "mine.json").unwrap();
    assert_eq!(file.version, 1);
    let newer = selectors::parse(&format!("{{\"version\": 2, {site}}}"), "mine.json").unwrap_err();
    assert_eq!(newer.code, Code::ConfigValidation);
    assert!(
        newer.reason.contains("\"version\": 2 is not known"),
        "{}",
        newer.reason
    );
}

/// Every selector of the built-in file is valid CSS in a real Chromium (a typo or a selector
/// the engine does not support would fail every lookup of its key on the real site).
#[test]
fn every_built_in_selector_parses_in_chromium() {
    let file = selectors::load(None).unwrap();
    let all: Vec<String> = file
        .sites
        .values()
        .flat_map(|s| s.selectors.values().flatten().cloned())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("check.html");
    std::fs::write(
        &page,
        format!(
            "<html><body><script>const bad = []; for (const s of {}) {{ try {{ document.querySelectorAll(s); }} catch (e) {{ bad.push(s); }} }} document.body.textContent = 'BAD:' + JSON.stringify(bad) + ':' + {};</script></body></html>",
            serde_json::to_string(&all).unwrap(),
            all.len()
        ),
    )
    .unwrap();
    let browser = keyless::chat::cdp::find_browser(None).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains(&format!("BAD:[]:{}", all.len())),
        "invalid selectors: {dom}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
