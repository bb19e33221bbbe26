//! selectors.json: the built-in file holds every site of the research notes with the required
//! keys, and a broken override is refused with its code.

use keyless::catalog::Code;
use keyless::chat::selectors::{self, REQUIRED};

#[test]
fn the_built_in_file_has_every_site_with_required_keys_and_alternatives() {
    let file = selectors::load(None).unwrap();
    for name in [
        "local", "chatgpt", "claude", "gemini", "aistudio", "deepseek", "mistral", "grok",
        "copilot",
    ] {
        let site = file
            .sites
            .get(name)
            .unwrap_or_else(|| panic!("no site {name}"));
        assert!(site.url.starts_with("http"), "{name}");
        assert!(
            !site.matches.is_empty() && !site.verified.is_empty(),
            "{name}"
        );
        for key in REQUIRED {
            assert!(!site.selectors[*key].is_empty(), "{name}.{key}");
        }
    }
    let (name, _) = file.site(None, Some("https://chatgpt.com/c/123")).unwrap();
    assert_eq!(name, "chatgpt");
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
