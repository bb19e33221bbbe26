//! Assignments whose key names a secret (`API_KEY=…`, `"password": "…"`): finding them, and
//! judging whether the value is a literal secret or code that merely mentions one.

use super::hit::{Hit, Label};
use super::names::*;
use super::rules::{ASSIGNMENT_REGEX, Kind, TAG_OPEN, has_digit_and_letter};

/// An unquoted assigned value shorter than this is not taken for a secret: `token: Token`,
/// `password: &str` and `key = x` are code, and real secrets are longer.
const MIN_BARE_CHARS: usize = 8;

/// A quoted assigned value shorter than this is not taken for a secret: lexers are full of
/// `token == "fn"` and `token: "("`.
const MIN_QUOTED_CHARS: usize = 4;

/// A rejected assignment value no longer than this is searched again for an assignment nested in
/// it (`token = f(password="…")`); longer ones are skipped, which keeps the search linear.
const RESCAN_LIMIT: usize = 256;

pub(super) fn assignment_hits(text: &str, rank: usize, hits: &mut Vec<Hit>) {
    let Some(regex) = ASSIGNMENT_REGEX.as_ref() else {
        return;
    };
    let mut at = 0;
    while let Some(found) = regex.find_at(text, at) {
        let Some(parts) = Assignment::split(found.as_str()) else {
            at = found.end();
            continue;
        };
        let value_start = found.start() + parts.value_offset;
        at = match assigned_secret(&parts) {
            Some((len, kind)) => {
                hits.push(Hit {
                    start: value_start,
                    end: value_start + len,
                    rank,
                    label: Label::Rule(kind),
                });
                found.end()
            }
            None if parts.value.len() <= RESCAN_LIMIT => value_start,
            None => found.end(),
        };
    }
}

/// A match of [`ASSIGNMENT`], taken apart.
pub(super) struct Assignment<'a> {
    key: &'a str,
    /// The operator with the blanks around it: `=` alone is a tight shell or `.env` assignment.
    sep: &'a str,
    /// Without its quotes.
    value: &'a str,
    value_offset: usize,
    quoted: bool,
}

impl<'a> Assignment<'a> {
    /// Splits a match the way the pattern reads it (a key, an optional closing quote, blanks,
    /// the operator, blanks, the value). Done by hand because the regex crate's capture groups
    /// cost several times the search itself on every match, and most matches are dropped.
    fn split(found: &'a str) -> Option<Assignment<'a>> {
        let is_key = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
        let key_len = found.find(|c| !is_key(c))?;
        let rest = &found[key_len..];
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        let sep_offset = found.len() - rest.len();
        let operator = rest.trim_start_matches([' ', '\t']);
        let operator_len = if [":=", "=>"].iter().any(|op| operator.starts_with(op)) {
            2
        } else {
            1
        };
        let value = operator
            .get(operator_len..)?
            .trim_start_matches([' ', '\t']);
        let value_offset = found.len() - value.len();
        let sep = &found[sep_offset..value_offset];
        let quote = value.chars().next().filter(|c| matches!(c, '"' | '\''));
        let (value, value_offset) = match quote {
            Some(q) if value.len() >= 2 && value.ends_with(q) => {
                (&value[1..value.len() - 1], value_offset + 1)
            }
            Some(_) => return None,
            None => (value, value_offset),
        };
        Some(Assignment {
            key: &found[..key_len],
            sep,
            value,
            value_offset,
            quoted: quote.is_some(),
        })
    }
}

/// Whether an assignment gives a secret name a literal value: the length of the secret at the
/// start of the value and its kind, or `None` for code, templates and ordinary settings.
pub(super) fn assigned_secret(assignment: &Assignment<'_>) -> Option<(usize, Kind)> {
    let &Assignment {
        key,
        sep,
        value,
        quoted,
        ..
    } = assignment;
    // `spring.datasource.password`, `self.api_key`: the last part names the thing; `node.key`
    // is no API key.
    let name = key.rsplit('.').next().unwrap_or(key);
    if !is_secret_env_name(name) {
        return None;
    }
    let words = words(name);
    // A lone `token`, `secret` or `cookie` is as often a lexer's or a test's word as a secret:
    // its quoted value must look like one (`token: "error"` is no secret).
    let lone = matches!(
        words.as_slice(),
        [w] if ["TOKEN", "TOKENS", "SECRET", "SECRETS", "COOKIE", "COOKIES"].contains(&w.as_str())
    );
    let value = if quoted {
        let strict = !lone
            || (value.chars().count() >= MIN_BARE_CHARS && !value.contains(char::is_whitespace));
        (strict && literal_quoted(value)).then_some(value)?
    } else {
        // An escape (`\n`) ends a value inside a string literal, and closing punctuation
        // belongs to the code or document around it. A bare value right after a colon is not
        // YAML (which wants a space) but a URL's `user:password@` (the url-password rule's) or
        // a path (`Token::Eof`).
        let end = ["\\n", "\\r", "\\t"]
            .iter()
            .filter_map(|escape| value.find(escape))
            .min();
        let value = &value[..end.unwrap_or(value.len())];
        let value = value.trim_end_matches([',', ';', ')', ']', '}', '>']);
        (sep != ":" && literal_bare(value, sep == "=")).then_some(value)?
    };
    let has = |word: &str| words.iter().any(|w| w == word);
    let aws_shaped = value.len() == 40
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'/' || b == b'+');
    let kind = if aws_shaped && has("SECRET") && (has("AWS") || (has("ACCESS") && has("KEY"))) {
        Kind::AwsSecretKey
    } else {
        Kind::SecretValue
    };
    Some((value.len(), kind))
}

/// A quoted value is a literal unless it is empty, a template or format placeholder
/// (`"$TOKEN"`, `"{{ .Values.password }}"`, `"{}"`, `"%s"`), a stray quote pairing across a
/// string's end (`"token: " + x + "`), a placeholder word, or already redacted.
pub(super) fn literal_quoted(value: &str) -> bool {
    let trimmed = value.trim();
    value.chars().count() >= MIN_QUOTED_CHARS
        && trimmed.len() == value.len()
        && !value.starts_with(['$', '{', '%', '<', ';', ',', ')', '+'])
        && value.bytes().any(|b| b.is_ascii_alphanumeric())
        && !["true", "false", "null", "none", "undefined"]
            .iter()
            .any(|word| value.eq_ignore_ascii_case(word))
        && !value.contains(TAG_OPEN)
}

/// An unquoted value is a literal unless it reads as code: a reference (`$TOKEN`, `%TOKEN%`,
/// `&token`, `*alias`), a closure (`|x|`), a call, index, block or generic type (`lexer.next()`,
/// `Option<String>`), a path (`self.token`, `std::env::var`), a typed number (`22531u16`), or an
/// identifier that does not look random (`SecretString`, `TOKEN_TYPE_2`). After a tight `=`
/// (`.env`, shell, `--flag=`) a plain identifier is a literal unless it is snake_case
/// (`f(token=my_token)`).
pub(super) fn literal_bare(value: &str, tight: bool) -> bool {
    if value.chars().count() < MIN_BARE_CHARS
        || value.starts_with(['$', '%', '&', '*', '#', '|'])
        || value.contains(['(', '[', '{', '<'])
        || is_path(value)
        || is_typed_number(value)
    {
        return false;
    }
    // `quote_spanned!`, `vec!`: a macro call.
    let macro_call = value
        .strip_suffix('!')
        .is_some_and(|name| is_identifier(name) && !name.bytes().any(|b| b.is_ascii_uppercase()));
    !macro_call && (!is_identifier(value) || looks_random(value) || (tight && !value.contains('_')))
}

pub(super) fn is_identifier(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `a.b`, `a::b`, `a->b`, `a::`: identifiers joined by member or path operators.
pub(super) fn is_path(text: &str) -> bool {
    let (text, open) = match text.strip_suffix("::") {
        Some(head) => (head, true),
        None => (text, false),
    };
    let mut parts = 0;
    for part in text
        .split('.')
        .flat_map(|p| p.split("::"))
        .flat_map(|p| p.split("->"))
    {
        if !is_identifier(part) {
            return false;
        }
        parts += 1;
    }
    parts >= 2 || (open && parts == 1)
}

/// A number with Rust's digit separators or a type suffix: `1_000_000`, `22531u16`, `0.5f32`.
pub(super) fn is_typed_number(text: &str) -> bool {
    const SUFFIXES: [&str; 14] = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64",
    ];
    let number = SUFFIXES
        .iter()
        .find_map(|s| text.strip_suffix(s))
        .unwrap_or(text);
    number.starts_with(|c: char| c.is_ascii_digit())
        && number
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'_' || b == b'.')
        && (number.len() < text.len() || number.contains('_'))
}

/// Letters and digits mixed the way generated secrets mix them: a digit with a letter after it
/// (`hunter2hunter2`), or long enough (`abc…123`). Not: `token_v2`, `sha256`, one-case names
/// with underscores (`MSV1_0_CREDENTIAL_KEY`, `sha256_digest`), and CamelCase type names made
/// mostly of lower-case runs (`X509RequestOptions`, `Sha256Digest`).
pub(super) fn looks_random(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit_then_letter = bytes
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1].is_ascii_alphabetic());
    let upper = bytes.iter().any(u8::is_ascii_uppercase);
    let lower = bytes.iter().any(u8::is_ascii_lowercase);
    let one_case_words = text.contains('_') && !(upper && lower);
    let camel_words = bytes.first().is_some_and(u8::is_ascii_uppercase) && wordy(bytes);
    has_digit_and_letter(text)
        && !one_case_words
        && !camel_words
        && (digit_then_letter || text.len() >= 16)
}

/// Whether at least half the letters sit in lower-case runs of three or more, as in words.
pub(super) fn wordy(bytes: &[u8]) -> bool {
    let letters = bytes.iter().filter(|b| b.is_ascii_alphabetic()).count();
    let in_words: usize = bytes
        .split(|b| !b.is_ascii_lowercase())
        .map(<[u8]>::len)
        .filter(|&run| run >= 3)
        .sum();
    2 * in_words >= letters
}
