//! Passwords and keys in the configuration styles that are no `KEY = value` assignment (those
//! are `assignment.rs`'s):
//!
//! - XML: an element named for a secret (`<password>…</password>`, Maven's `settings.xml`,
//!   `<db.password>`, `<ns:Secret>`), an attribute (`password="…"`), an element or attribute
//!   whose `key` or `name` names one (`.NET`'s `<add key="DbPassword" value="…"/>`,
//!   `<entry key="api.token">…</entry>`, Spring's `<property name="password" value="…"/>`), and
//!   a property list's `<key>password</key><string>…</string>`;
//! - a call given a secret's name and its value (`define('DB_PASSWORD', '…')`,
//!   `setenv("API_TOKEN", "…")`, `("password", "…")`);
//! - a connection string's `Password=…;` or `Pwd=…;` (ADO.NET, ODBC, JDBC);
//! - a container registry's `"auth": "<base64 of user:password>"` (Docker's `config.json`) and
//!   `.npmrc`'s `_auth=`;
//! - SQL's `IDENTIFIED BY '…'` and `PASSWORD '…'`.
//!
//! A name is a secret's by [`is_secret_env_name`]; a value is a literal unless it is empty, a
//! template or reference (`${DB_PASSWORD}`, `{{ .Values.pw }}`, `%PASS%`, `@db.password@`), a
//! mask (`****`), the name itself or prose (a label such as `"Your password"`). Any length
//! counts: in these styles the name says it all, and `<password>x</password>` is a password.
//! Matching is linear: one pass of each pattern, and each tag's attributes read once.

use std::sync::LazyLock;

use regex::Regex;

use super::hit::{Hit, Label};
use super::names::is_secret_env_name;
use super::rules::{Kind, TAG_OPEN};

/// An XML start tag (or an empty-element tag): its name and its attributes.
static TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"<([A-Za-z_][\w.:-]*)((?:\s[^<>]*)?)>"#).ok());

/// One attribute of a tag: its name and its value in double or single quotes.
static ATTRIBUTE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"([A-Za-z_][\w.:-]*)[ \t\r\n]*=[ \t\r\n]*(?:"([^"]*)"|'([^']*)')"#).ok()
});

/// A call or list given a name and a value in quotes: `define('DB_PASSWORD', 'x')`.
static NAME_VALUE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"[(\[][ \t]*["']([A-Za-z0-9_.:-]+)["'][ \t]*,[ \t]*(?:"([^"\r\n]*)"|'([^'\r\n]*)')"#,
    )
    .ok()
});

/// A connection string's password: the value runs to `;`, a quote, an angle bracket or the
/// line's end.
static CONNECTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?i-u:\b(?:password|pwd))[ \t]*=[ \t]*([^;"'<>\r\n]*)"#).ok());

/// Docker's `"auth": "…"` and `.npmrc`'s `_auth=…`: base64 of `user:password`.
static REGISTRY_AUTH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?:"auth"[ \t]*:[ \t]*"|(?m:^|[\s:])_auth[ \t]*=[ \t]*"?)([A-Za-z0-9+/]{4,}={0,2})"#,
    )
    .ok()
});

/// SQL: `CREATE USER u IDENTIFIED BY 'x'`, `ALTER ROLE r PASSWORD 'x'`.
static SQL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"(?i-u:\b(?:identified[ \t]+by|password))[ \t]+'([^'\r\n]+)'"#).ok()
});

pub(super) fn config_hits(text: &str, rank: usize, hits: &mut Vec<Hit>) {
    let mut push = |start: usize, end: usize, kind: Kind| {
        hits.push(Hit {
            start,
            end,
            rank,
            label: Label::Rule(kind),
        });
    };
    if text.contains('<') {
        xml_hits(text, &mut push);
    }
    if let Some(regex) = NAME_VALUE.as_ref() {
        for caps in regex.captures_iter(text) {
            let (Some(name), Some(value)) = (caps.get(1), caps.get(2).or(caps.get(3))) else {
                continue;
            };
            if is_secret_name(name.as_str()) && literal(value.as_str(), name.as_str()) {
                push(value.start(), value.end(), Kind::SecretValue);
            }
        }
    }
    if let Some(regex) = CONNECTION.as_ref() {
        for caps in regex.captures_iter(text) {
            let (Some(whole), Some(value)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            // Inside a connection string: a `;` ends the value or comes before the key.
            let after = text[value.end()..].starts_with(';');
            let before = text[..whole.start()]
                .trim_end_matches([' ', '\t'])
                .ends_with(';');
            let trimmed = value.as_str().trim_end();
            if (after || before) && literal(trimmed, "password") {
                push(
                    value.start(),
                    value.start() + trimmed.len(),
                    Kind::SecretValue,
                );
            }
        }
    }
    if let Some(regex) = REGISTRY_AUTH.as_ref() {
        for caps in regex.captures_iter(text) {
            if let Some(value) = caps.get(1).filter(|v| is_user_password(v.as_str())) {
                push(value.start(), value.end(), Kind::RegistryAuth);
            }
        }
    }
    if let Some(regex) = SQL.as_ref() {
        for caps in regex.captures_iter(text) {
            if let Some(value) = caps.get(1).filter(|v| literal(v.as_str(), "password")) {
                push(value.start(), value.end(), Kind::SecretValue);
            }
        }
    }
}

/// The secrets in XML: each start tag's attributes, and the text of an element that a secret's
/// name labels (its own name, its `key` or `name` attribute, or the `<key>` before it).
fn xml_hits(text: &str, push: &mut impl FnMut(usize, usize, Kind)) {
    let (Some(tag), Some(attribute)) = (TAG.as_ref(), ATTRIBUTE.as_ref()) else {
        return;
    };
    // The end of the last `<key>NAME</key>` that named a secret, for a property list.
    let mut plist_key: Option<usize> = None;
    for caps in tag.captures_iter(text) {
        let (Some(whole), Some(name), Some(attributes)) = (caps.get(0), caps.get(1), caps.get(2))
        else {
            continue;
        };
        let mut labelled = is_secret_name(name.as_str());
        // `key="…"`/`name="…"` naming a secret: the `value` attribute or the element's text.
        let mut named_value: Option<(usize, usize)> = None;
        let mut names_secret = false;
        for attr in attribute.captures_iter(attributes.as_str()) {
            let (Some(attr_name), Some(value)) = (attr.get(1), attr.get(2).or(attr.get(3))) else {
                continue;
            };
            let at = attributes.start() + value.start();
            let span = (at, at + value.len());
            let attr_name = attr_name.as_str();
            if attr_name.eq_ignore_ascii_case("value") {
                named_value = Some(span);
            } else if attr_name.eq_ignore_ascii_case("key")
                || attr_name.eq_ignore_ascii_case("name")
            {
                names_secret |= is_secret_name(value.as_str());
            } else if is_secret_name(attr_name) && literal(value.as_str(), attr_name) {
                push(span.0, span.1, Kind::SecretValue);
            }
        }
        if names_secret {
            match named_value {
                Some((start, end)) if literal(&text[start..end], "password") => {
                    push(start, end, Kind::SecretValue);
                }
                Some(_) => {}
                None => labelled = true,
            }
        }
        if attributes.as_str().trim_end().ends_with('/') {
            continue;
        }
        // The element's text: up to the next tag, which must close it.
        let content_start = whole.end();
        let Some(content_len) = text[content_start..].find('<') else {
            continue;
        };
        let content = &text[content_start..content_start + content_len];
        let closes = text[content_start + content_len..].starts_with("</");
        let after_key = plist_key.is_some_and(|end| {
            text.get(end..whole.start())
                .is_some_and(|between| between.trim().is_empty())
        });
        plist_key = None;
        if name.as_str() == "key" && closes && is_secret_name(content.trim()) {
            plist_key = Some(content_start + content_len + "</key>".len());
        }
        if (labelled || after_key) && closes {
            let trimmed = content.trim();
            if literal(trimmed, name.as_str()) {
                let start = content_start + (content.len() - content.trim_start().len());
                push(start, start + trimmed.len(), Kind::SecretValue);
            }
        }
    }
}

/// Whether a name in a configuration names a secret: its last part (`db.password`,
/// `ns:Secret`), as an environment variable's name would.
fn is_secret_name(name: &str) -> bool {
    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
    is_secret_env_name(last)
}

/// Whether `value`, given to the secret named `name`, is a literal secret: not empty, no
/// template or reference, no mask, not the name again, no prose, not redacted already.
fn literal(value: &str, name: &str) -> bool {
    let value = value.trim();
    let wrapped = |mark: char| value.len() > 1 && value.starts_with(mark) && value.ends_with(mark);
    let template = value.starts_with('$')
        || wrapped('%')
        || wrapped('@')
        || ["{{", "${", "#{"].iter().any(|t| value.contains(t));
    let mask = value.chars().all(|c| matches!(c, '*' | '•'));
    let squeeze = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    // "Your password", "Enter the API token": words and blanks, as a label or a message is.
    let prose = value.contains(' ')
        && value
            .chars()
            .all(|c| c.is_alphabetic() || c == ' ' || matches!(c, '.' | ',' | ':' | '!' | '?'));
    !value.is_empty()
        && !template
        && !mask
        && !prose
        && squeeze(value) != squeeze(name)
        && !["true", "false", "null", "none", "nil", "undefined"]
            .iter()
            .any(|w| value.eq_ignore_ascii_case(w))
        && !value.contains(TAG_OPEN)
}

/// Whether `value` is base64 of `user:password` (a registry's `auth`).
fn is_user_password(value: &str) -> bool {
    let digit = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => u32::from(b - b'A'),
            b'a'..=b'z' => u32::from(b - b'a') + 26,
            b'0'..=b'9' => u32::from(b - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let mut decoded = Vec::with_capacity(value.len() * 3 / 4);
    for group in value.trim_end_matches('=').as_bytes().chunks(4) {
        let Some(bits) = group
            .iter()
            .try_fold(0u32, |acc, &b| Some((acc << 6) | digit(b)?))
        else {
            return false;
        };
        let bits = bits << (6 * (4 - group.len()));
        for j in 0..group.len().saturating_sub(1) {
            decoded.push((bits >> (16 - 8 * j)) as u8);
        }
    }
    decoded
        .iter()
        .position(|&b| b == b':')
        .is_some_and(|colon| colon > 0 && colon + 1 < decoded.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patterns_compile() {
        for regex in [
            &TAG,
            &ATTRIBUTE,
            &NAME_VALUE,
            &CONNECTION,
            &REGISTRY_AUTH,
            &SQL,
        ] {
            assert!(regex.is_some());
        }
    }

    #[test]
    fn literals_and_what_is_not_one() {
        for value in ["x", "hunter2", "p@ss w0rd!", "{COQLCE6DU6GtcS5P=}x"] {
            assert!(literal(value, "password"), "{value}");
        }
        for value in [
            "",
            "  ",
            "${DB_PASSWORD}",
            "{{ .Values.password }}",
            "%DB_PASS%",
            "@db.password@",
            "#{secret}",
            "****",
            "Password",
            "Your password",
            "null",
            "[redacted: secret-value]",
        ] {
            assert!(!literal(value, "password"), "{value}");
        }
        assert!(is_user_password("dXNlcjpwYXNz")); // user:pass
        assert!(!is_user_password("dXNlcnBhc3M=")); // userpass
    }
}
