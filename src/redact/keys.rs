//! Private keys written as JSON Web Keys (RFC 7517, 7518): an object with a `"kty"` member whose
//! private members (`d`, `p`, `q`, `dp`, `dq`, `qi`, and a symmetric key's `k`) hold the key.
//!
//! The other forms of a private key (PEM blocks, PuTTY files, the base64 of a key's DER,
//! `openssl -text`) are token formats in `rules.rs`; a JWK needs its object read first, so that
//! `"d"` elsewhere in JSON is left alone. Only the private members' values are replaced: the key
//! type, its public numbers and its id stay readable. What it does not do: read a JWK whose
//! object holds nested objects (`oth`), or one written in YAML.

use std::sync::LazyLock;

use regex::Regex;

use super::hit::{Hit, Label};
use super::rules::Kind;

/// A JSON object without nested objects that has a `"kty"` member (quotes escaped or not, as
/// inside a JSON string).
static JWK: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"\{[^{}]*\\?"kty\\?"[^{}]*\}"#).ok());

/// A private member of a JWK and its base64url value.
static PRIVATE_MEMBER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"\\?"(?:d|p|q|dp|dq|qi|k)\\?"[ \t\r\n]*:[ \t\r\n]*\\?"([A-Za-z0-9_-]+=*)\\?""#)
        .ok()
});

pub(super) fn key_hits(text: &str, rank: usize, hits: &mut Vec<Hit>) {
    let (Some(jwk), Some(member)) = (JWK.as_ref(), PRIVATE_MEMBER.as_ref()) else {
        return;
    };
    if !text.contains("kty") {
        return;
    }
    for object in jwk.find_iter(text) {
        for caps in member.captures_iter(object.as_str()) {
            if let Some(value) = caps.get(1) {
                hits.push(Hit {
                    start: object.start() + value.start(),
                    end: object.start() + value.end(),
                    rank,
                    label: Label::Rule(Kind::PrivateKey),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patterns_compile() {
        assert!(JWK.is_some() && PRIVATE_MEMBER.is_some());
    }
}
