//! `selectors.json`: per site, the page's URL, the CSS alternatives for every element keyless
//! needs, the phrases that reveal the chat's state, and how to insert text. Built into the
//! binary; a file given with `--selectors` (or `<workspace>/selectors.json`) overrides it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::catalog::{Code, Failure};

/// The selectors that ship with keyless.
pub const BUILT_IN: &str = include_str!("../../selectors.json");

/// Keys every site must give at least one alternative for.
pub const REQUIRED: &[&str] = &["Composer", "SendButton", "UserMessage", "AssistantMessage"];

/// Every key a site may give.
pub const KEYS: &[&str] = &[
    "Composer",
    "SendButton",
    "StopButton",
    "UserMessage",
    "AssistantMessage",
    "Completed",
    "CopyButton",
    "CodeBlock",
    "AttachmentInput",
    "AttachmentChip",
    "AttachmentRemove",
    "AttachmentFailed",
    "AttachButton",
    "NewChat",
    "ErrorBanner",
    "ModelPicker",
    "ModelOption",
    "ReplyModel",
    "PlainChat",
    "TemporaryChat",
];

/// Every phrase list a site may give.
pub const TEXT_KEYS: &[&str] = &[
    "ChatExhausted",
    "TooLong",
    "RateLimit",
    "Offline",
    "LoginRequired",
];

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// The schema's version; a file without one is version 1 (spec-notes §5).
    #[serde(default = "first_version")]
    pub version: u32,
    pub sites: BTreeMap<String, Site>,
}

/// One chat site.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Site {
    pub url: String,
    /// Substrings of page URLs that belong to the site.
    #[serde(rename = "match")]
    pub matches: Vec<String>,
    /// When the selectors were last checked against the real site.
    pub verified: String,
    /// The composer's editor, where known (lexical, prosemirror, textarea, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub editor: Option<String>,
    /// Insertion strategies, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub insert: Vec<String>,
    /// Longer messages go as a file attachment (falling back to pasting if the upload fails).
    #[serde(
        default,
        rename = "composerLimit",
        skip_serializing_if = "Option::is_none"
    )]
    pub composer_limit: Option<usize>,
    /// How many files one message may carry (`--attach`); files over it go as one bundle.
    /// Unset: `chat::attach::DEFAULT_MAX_FILES`.
    #[serde(
        default,
        rename = "maxAttachments",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_attachments: Option<usize>,
    /// How long a reopened conversation may take to show its messages, in milliseconds
    /// (default 8000); a page still empty after that is a chat that is gone.
    #[serde(
        default,
        rename = "historyWaitMs",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_wait_ms: Option<u64>,
    pub selectors: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub texts: BTreeMap<String, Vec<String>>,
    /// Other names of the site's models, each standing for the label its picker shows
    /// (`"gemini-3-pro": "Pro"`), for `--model`.
    #[serde(
        default,
        rename = "modelAliases",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub model_aliases: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// No selectors file knows this page: its parts are found by their shape.
    #[serde(skip)]
    pub discovered: bool,
}

impl Site {
    /// The entry for a page no selectors file knows: no selectors, no phrases; discovery finds
    /// its parts. Its `match` is the page's host and port.
    pub fn unknown(url: &str) -> Site {
        Site {
            url: url.to_string(),
            matches: vec![host(url).to_string()],
            verified: String::new(),
            editor: None,
            insert: Vec::new(),
            composer_limit: None,
            max_attachments: None,
            history_wait_ms: None,
            selectors: BTreeMap::new(),
            texts: BTreeMap::new(),
            model_aliases: BTreeMap::new(),
            notes: None,
            discovered: true,
        }
    }

    /// Puts `learned`'s selectors first for their keys (they were proved on the page), and
    /// its insertion strategies first.
    pub fn learn_from(&mut self, learned: &Site) {
        for (key, alternatives) in &learned.selectors {
            let list = self.selectors.entry(key.clone()).or_default();
            list.retain(|css| !alternatives.contains(css));
            list.splice(0..0, alternatives.iter().cloned());
        }
        for strategy in learned.insert.iter().rev() {
            self.insert.retain(|s| s != strategy);
            self.insert.insert(0, strategy.clone());
        }
        if !learned.verified.is_empty() {
            self.verified.clone_from(&learned.verified);
        }
    }
}

/// Whether a `match` pattern fits `url`. A pattern that names only a loopback host
/// (`127.0.0.1`, `localhost`, `[::1]`, `0.0.0.0`) fits nothing: many pages live there (a
/// self-hosted chat, a company portal, keyless's own local page), and the host alone cannot
/// tell them apart; such a pattern must say more (a port, a path).
pub fn pattern_fits(pattern: &str, url: &str) -> bool {
    let bare = pattern
        .trim_end_matches('/')
        .trim_start_matches("http://")
        .trim_start_matches("https://");
    let host_only = !bare.contains('/')
        && (!bare.contains(':') || bare.starts_with('[') && bare.ends_with(']') || bare == "::1");
    if host_only && is_loopback_host(bare) {
        return false;
    }
    url.contains(pattern)
}

/// Whether `host` (no port) is a loopback or unspecified address.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "0.0.0.0"
        || host.ends_with(".localhost")
}

/// The name of the entry for a page no site knows: its host, with the port when the host is
/// a loopback one (two front-ends on `localhost:3000` and `:8501` are two sites).
pub fn unknown_name(url: &str) -> String {
    let authority = host(url);
    let bare = match authority.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) && !h.ends_with(':') => h,
        _ => authority,
    };
    if is_loopback_host(bare) {
        authority.to_string()
    } else {
        bare.to_string()
    }
}

/// The host and port of a URL (`https://chat.example.com/c/1` → `chat.example.com`).
pub fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    authority.rsplit_once('@').map_or(authority, |(_, h)| h)
}

/// The only schema version so far.
const VERSION: u32 = 1;

fn first_version() -> u32 {
    VERSION
}

/// Reads and checks a selectors file.
pub fn parse(text: &str, origin: &str) -> Result<File, Failure> {
    parse_as(text, origin, true)
}

/// Reads and checks a file of learned selectors: like a selectors file, but an entry need not
/// give every required key (discovery finds the rest).
pub fn parse_learned(text: &str, origin: &str) -> Result<File, Failure> {
    parse_as(text, origin, false)
}

fn parse_as(text: &str, origin: &str, complete: bool) -> Result<File, Failure> {
    let file: File = serde_json::from_str(text).map_err(|e| {
        let code = if e.is_syntax() || e.is_eof() {
            Code::ConfigInvalid
        } else {
            Code::ConfigValidation
        };
        Failure::new(
            code,
            format!("{origin}: line {}, column {}: {e}", e.line(), e.column()),
        )
    })?;
    if file.version != VERSION {
        return Err(Failure::new(
            Code::ConfigValidation,
            format!(
                "{origin}: \"version\": {} is not known to this keyless, which reads version {VERSION} (a newer keyless may read it; or leave \"version\" out)",
                file.version
            ),
        ));
    }
    for (name, site) in &file.sites {
        for key in site.selectors.keys() {
            if !KEYS.contains(&key.as_str()) {
                return Err(Failure::new(
                    Code::ConfigValidation,
                    format!(
                        "{origin}: sites.{name}.selectors.{key} is not a known key; the keys are {}",
                        KEYS.join(", ")
                    ),
                ));
            }
        }
        for key in site.texts.keys() {
            if !TEXT_KEYS.contains(&key.as_str()) {
                return Err(Failure::new(
                    Code::ConfigValidation,
                    format!(
                        "{origin}: sites.{name}.texts.{key} is not a known key; the keys are {}",
                        TEXT_KEYS.join(", ")
                    ),
                ));
            }
        }
        for key in REQUIRED.iter().filter(|_| complete) {
            if site
                .selectors
                .get(*key)
                .is_none_or(|alternatives| alternatives.is_empty())
            {
                return Err(Failure::new(
                    Code::ConfigValidation,
                    format!(
                        "{origin}: sites.{name}.selectors.{key} needs at least one CSS selector"
                    ),
                ));
            }
        }
    }
    Ok(file)
}

/// The built-in selectors, or a file that overrides them.
pub fn load(path: Option<&Path>) -> Result<File, Failure> {
    match path {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Failure::new(
                    Code::ConfigInvalid,
                    format!("cannot read {}: {e}", path.display()),
                )
            })?;
            parse(&text, &path.display().to_string())
        }
        None => parse(BUILT_IN, "built-in selectors.json"),
    }
}

impl File {
    /// A site by name, or the one whose `match` patterns fit `url`; a page no entry knows
    /// (a `url` that matches none, or a `name` no entry has, with a `url`) gets an entry for
    /// discovery ([`Site::unknown`]), named by its host.
    pub fn site(&self, name: Option<&str>, url: Option<&str>) -> Result<(String, Site), Failure> {
        match (self.known(name, url), url) {
            (Ok(found), _) => Ok(found),
            (Err(_), Some(url)) if name.is_none_or(|n| !self.sites.contains_key(n)) => {
                let name = name.map_or_else(|| unknown_name(url), str::to_string);
                Ok((name, self.unknown_site(url)))
            }
            (Err(failure), _) => Err(failure),
        }
    }

    /// The entry for a page this file does not know ([`Site::unknown`]), with every phrase the
    /// known sites use for their notices (a length limit, a refusal, a rate limit, offline): a
    /// new site often says it the same way. Never their login phrases: a login wall stops
    /// discovery, and a chat page may well show "Log in" somewhere.
    pub fn unknown_site(&self, url: &str) -> Site {
        let mut site = Site::unknown(url);
        for known in self.sites.values() {
            for (key, phrases) in &known.texts {
                if key == "LoginRequired" {
                    continue;
                }
                let list = site.texts.entry(key.clone()).or_default();
                for phrase in phrases {
                    if !list.contains(phrase) {
                        list.push(phrase.clone());
                    }
                }
            }
        }
        site
    }

    /// A site this file has an entry for, by name, or by its `match` patterns.
    pub fn known(&self, name: Option<&str>, url: Option<&str>) -> Result<(String, Site), Failure> {
        if let Some(name) = name {
            return self
                .sites
                .get(name)
                .map(|s| (name.to_string(), s.clone()))
                .ok_or_else(|| {
                    Failure::new(
                        Code::ConfigValidation,
                        format!(
                            "no site named {name} in selectors.json; the sites are {}",
                            self.sites.keys().cloned().collect::<Vec<_>>().join(", ")
                        ),
                    )
                });
        }
        if let Some(url) = url
            && let Some((n, s)) = self
                .sites
                .iter()
                .find(|(_, s)| s.matches.iter().any(|m| pattern_fits(m, url)))
        {
            return Ok((n.clone(), s.clone()));
        }
        Err(Failure::new(
            Code::ConfigValidation,
            "no chat site chosen: pass --site NAME (chatgpt, claude, gemini, …) or --url of a known site",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_on_a_loopback_host_is_no_known_site_unless_the_entry_says_more_than_the_host() {
        let file = load(None).unwrap();
        for url in [
            "http://127.0.0.1:3000/",
            "http://localhost:8501/chat",
            "http://[::1]:7860/",
            "http://chat.localhost/",
        ] {
            let (name, site) = file.site(None, Some(url)).unwrap();
            assert!(site.discovered, "{url} was taken for {name}");
        }
        assert_eq!(unknown_name("http://127.0.0.1:3000/"), "127.0.0.1:3000");
        assert_eq!(unknown_name("http://localhost:8501/x"), "localhost:8501");
        assert_eq!(
            unknown_name("https://chat.example.com:8443/c/1"),
            "chat.example.com"
        );
        assert!(!pattern_fits("127.0.0.1", "http://127.0.0.1:3000/"));
        assert!(!pattern_fits("localhost/", "http://localhost:3000/"));
        assert!(pattern_fits("127.0.0.1:3000", "http://127.0.0.1:3000/"));
        assert!(pattern_fits("chatgpt.com", "https://chatgpt.com/c/1"));
        // keyless's own page is chosen by name.
        let (name, site) = file.site(Some("local"), None).unwrap();
        assert_eq!(name, "local");
        assert!(!site.discovered);
    }
}
