//! Characters written another way, read as the ones they stand for: a view of a text in which
//! each escape, entity and compatibility form is the character it means (a stage of
//! `glance.rs`).
//!
//! What is read back, each a unit of the view that maps to the bytes it came from:
//!
//! | written | read as |
//! |---|---|
//! | `\u0073`, `\U00000073`, `\u{73}`, a surrogate pair `\ud83d\ude00` | the character (JSON, JavaScript, Python, Rust, Java) |
//! | `\x73`, `\163` (three octal digits), `%73` | the byte; bytes in a row that spell UTF-8 are its characters (`%C3%A9` is `é`) |
//! | `\"`, `\'`, `\\`, `\/` | the character after the backslash (JSON's and shells' quoting) |
//! | `&#115;`, `&#x73;`, `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` | the character (HTML, XML) |
//! | fullwidth and mathematical forms (`visible::look_alike`) | the ASCII character they are drawn like |
//! | a letter of another script that looks like a Latin one, in a word with ASCII letters or digits (`kn\u{43e}wn`) | the Latin letter |
//! | spaces other than U+0020 (no-break, ideographic, …) | a space |
//!
//! What it does not do: escapes that stand for line breaks or tabs (`\n`, `\t`: a value holds
//! none), named entities beyond the six above, or bytes that spell no character (they stay as
//! they are written).

use super::view::{Rewritten, View};
use crate::visible::{self, Form, Kind};

/// The named entities read back: HTML's five that escape markup, and the no-break space.
const ENTITIES: [(&str, char); 6] = [
    ("&amp;", '&'),
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&quot;", '"'),
    ("&apos;", '\''),
    ("&nbsp;", ' '),
];

/// The longest numeric entity read: `&#1114111;` and `&#x10FFFF;` (the largest code point).
const MAX_ENTITY_DIGITS: usize = 7;

/// Whether a byte may start what this view reads back.
fn may_start(b: u8) -> bool {
    matches!(b, b'\\' | b'&' | b'%') || b >= 0x80
}

/// The view of `text` with every escape, entity and compatibility form read back; `None` when it
/// holds none.
pub(super) fn rewritten(text: &str) -> Option<View> {
    let bytes = text.as_bytes();
    if !bytes.iter().copied().any(may_start) {
        return None;
    }
    let mut out = Rewritten::default();
    // The bytes escaped one at a time in a row (`%C3%A9`), each with the range it came from:
    // read together, since a character may take several.
    let mut escaped: Vec<(u8, usize, usize)> = Vec::new();
    // Where the text not yet in the view starts.
    let mut copied = 0;
    let mut word = Word::default();
    let mut at = 0;
    while at < bytes.len() {
        if !may_start(bytes[at]) {
            at += 1;
            continue;
        }
        if let Some((byte, len)) = byte_escape(bytes, at) {
            // Only escapes right after each other spell one character.
            if escaped.last().is_some_and(|&(_, _, end)| end != at) {
                read_bytes(text, &escaped, &mut out);
                escaped.clear();
            }
            if escaped.is_empty() {
                out.copy(text, copied, at);
            }
            escaped.push((byte, at, at + len));
            at += len;
            copied = at;
            continue;
        }
        if !escaped.is_empty() {
            read_bytes(text, &escaped, &mut out);
            escaped.clear();
        }
        let unit = match bytes[at] {
            b'\\' => backslash(text, at),
            b'&' => entity(text, at),
            _ => folded(text, at, &mut word),
        };
        match unit {
            Some((c, len)) => {
                out.copy(text, copied, at);
                out.rewrite(c.encode_utf8(&mut [0; 4]), at, at + len);
                at += len;
                copied = at;
            }
            None => at += 1,
        }
    }
    if !escaped.is_empty() {
        read_bytes(text, &escaped, &mut out);
    }
    out.finish(text, copied)
}

/// Bytes escaped one at a time, read as the UTF-8 characters they spell; a byte that starts no
/// character stays as it is written.
fn read_bytes(text: &str, escaped: &[(u8, usize, usize)], out: &mut Rewritten) {
    let mut i = 0;
    while let Some(&(lead, start, end)) = escaped.get(i) {
        let width = utf8_width(lead);
        let spelled = escaped
            .get(i..i + width)
            .map(|run| run.iter().map(|&(b, _, _)| b).collect::<Vec<u8>>())
            .and_then(|run| String::from_utf8(run).ok());
        match spelled {
            Some(c) => {
                let last = escaped.get(i + width - 1).map_or(end, |&(_, _, e)| e);
                out.rewrite(&c, start, last);
                i += width;
            }
            None => {
                out.copy(text, start, end);
                i += 1;
            }
        }
    }
}

/// How many bytes a UTF-8 character that starts with `lead` takes (1 for a byte that starts
/// none, which then fails to read).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 1,
    }
}

fn hex_value(digits: &[u8]) -> Option<u32> {
    std::str::from_utf8(digits)
        .ok()
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit()))
        .and_then(|d| u32::from_str_radix(d, 16).ok())
}

/// A byte escaped on its own at `at`: `\xHH`, `\NNN` (octal, up to `\377`), `%HH`; its value and
/// its length.
fn byte_escape(bytes: &[u8], at: usize) -> Option<(u8, usize)> {
    let tail = bytes.get(at + 1..)?;
    let (value, len) = match (bytes[at], tail) {
        (b'\\', [b'x', h, l, ..]) => (hex_value(&[*h, *l])?, 4),
        (b'\\', [a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7', ..]) => (
            (u32::from(a - b'0') << 6) | (u32::from(b - b'0') << 3) | u32::from(c - b'0'),
            4,
        ),
        (b'%', [h, l, ..]) => (hex_value(&[*h, *l])?, 3),
        _ => return None,
    };
    Some((u8::try_from(value).ok()?, len))
}

/// A backslash escape of one character at `at`: the character and the escape's length.
fn backslash(text: &str, at: usize) -> Option<(char, usize)> {
    let bytes = text.as_bytes();
    match bytes.get(at + 1)? {
        b'"' | b'\'' | b'\\' | b'/' => Some((char::from(bytes[at + 1]), 2)),
        b'u' if bytes.get(at + 2) == Some(&b'{') => {
            let close = bytes
                .get(at + 3..bytes.len().min(at + 10))?
                .iter()
                .position(|&b| b == b'}')?;
            let c = char::from_u32(hex_value(&bytes[at + 3..at + 3 + close])?)?;
            Some((c, close + 4))
        }
        b'u' => {
            let code = hex_value(bytes.get(at + 2..at + 6)?)?;
            if (0xd800..0xdc00).contains(&code) {
                // A high surrogate is a character only with the low one after it.
                let low = bytes
                    .get(at + 6..at + 8)
                    .filter(|b| *b == b"\\u")
                    .and_then(|_| hex_value(bytes.get(at + 8..at + 12)?))
                    .filter(|low| (0xdc00..0xe000).contains(low))?;
                let c = char::from_u32(0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00))?;
                return Some((c, 12));
            }
            Some((char::from_u32(code)?, 6))
        }
        b'U' => Some((char::from_u32(hex_value(bytes.get(at + 2..at + 10)?)?)?, 10)),
        _ => None,
    }
}

/// An entity at `at` (`&#115;`, `&#x73;`, `&amp;`): the character and the entity's length.
fn entity(text: &str, at: usize) -> Option<(char, usize)> {
    let rest = &text[at..];
    if let Some(&(name, c)) = ENTITIES.iter().find(|(name, _)| rest.starts_with(name)) {
        return Some((c, name.len()));
    }
    let numeric = rest.strip_prefix("&#")?;
    let (digits, radix, prefix) = match numeric.strip_prefix(['x', 'X']) {
        Some(hex) => (hex, 16, 3),
        None => (numeric, 10, 2),
    };
    let len = digits
        .bytes()
        .take(MAX_ENTITY_DIGITS + 1)
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    if len == 0 || len > MAX_ENTITY_DIGITS || digits.as_bytes().get(len) != Some(&b';') {
        return None;
    }
    let code = u32::from_str_radix(&digits[..len], radix).ok()?;
    Some((char::from_u32(code)?, prefix + len + 1))
}

/// The word around the last letter of another script that looks like a Latin one, and whether
/// it holds an ASCII letter or digit: only then are its look-alikes read as Latin letters.
#[derive(Default)]
struct Word {
    end: usize,
    has_ascii: bool,
}

impl Word {
    /// Whether the word around `at` holds an ASCII letter or digit; the word is found once, for
    /// its first look-alike, so each is read at most twice.
    fn has_ascii(&mut self, text: &str, at: usize) -> bool {
        if at >= self.end {
            let start = text[..at]
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_alphanumeric())
                .last()
                .map_or(at, |(i, _)| i);
            self.end = text[at..]
                .char_indices()
                .find(|(_, c)| !c.is_alphanumeric())
                .map_or(text.len(), |(i, _)| at + i);
            self.has_ascii = text[start..self.end]
                .bytes()
                .any(|b| b.is_ascii_alphanumeric());
        }
        self.has_ascii
    }
}

/// The character at `at` (outside ASCII) read as the ASCII one it is drawn like, or a space for
/// a space other than U+0020: the character and its length. A letter of another script that
/// looks like a Latin one is read so only in a word that holds ASCII letters or digits (where
/// `visible` shows it escaped): a word of Cyrillic stays Cyrillic.
fn folded(text: &str, at: usize, word: &mut Word) -> Option<(char, usize)> {
    let c = text.get(at..)?.chars().next()?;
    let read = match visible::look_alike(c) {
        Some((ascii, Form::Compatibility)) => ascii,
        Some((ascii, Form::Script)) if word.has_ascii(text, at) => ascii,
        Some(_) => return None,
        None if visible::kind(c) == Some(Kind::Space) => ' ',
        None => return None,
    };
    Some((read, c.len_utf8()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> String {
        rewritten(text).map_or(text.to_string(), |v| v.text().to_string())
    }

    #[test]
    fn escapes_entities_and_forms_are_read_back() {
        let cases = [
            ("\\u0073\\u006B-\\u00e9", "sk-\u{e9}"),
            (
                "\\ud83d\\ude00 \\U0001F600 \\u{1f600}",
                "\u{1f600} \u{1f600} \u{1f600}",
            ),
            ("\\x73\\x6b \\163\\153 %73%6B", "sk sk sk"),
            ("%C3%A9 \\xc3\\xa9 %e2%82%ac", "\u{e9} \u{e9} \u{20ac}"),
            ("%41bc%42 %c3x%a9", "AbcB %c3x%a9"),
            ("p\\\"w\\'d\\\\x\\/y", "p\"w'd\\x/y"),
            (
                "&#115;&#x6B;&#X2D;&amp;&lt;&gt;&quot;&apos;&nbsp;",
                "sk-&<>\"' ",
            ),
            (
                "\u{ff53}\u{ff4b}\u{ff0d}\u{ff50} \u{1d42c}\u{1d5c4}",
                "sk-p sk",
            ),
            ("d\u{435}ploy \u{3000}a\u{a0}b\u{2009}c", "deploy  a b c"),
            // An escaped backslash ends there: what follows is text.
            ("\\\\u0073", "\\u0073"),
        ];
        for (text, expected) in cases {
            assert_eq!(read(text), expected, "{text:?}");
        }
    }

    #[test]
    fn what_is_no_escape_stays() {
        for text in [
            "100% done, 50%% left, %zz %4",
            "\\n\\t \\x4 \\u12 \\u{110000} \\ud83d alone \\uzzzz \\400",
            "&#; &#x; &#12345678; &#1114112; &amp &copy; & plain",
            "caf\u{e9} \u{43f}\u{436} \u{65e5}\u{672c}",
            // Look-alike letters in a word of Cyrillic only.
            "\u{43e}\u{441}\u{435}\u{43d}\u{44c} \u{441}\u{43e}\u{440}",
            // A byte that spells no character stays as written.
            "%ff%fe \\xc3 alone",
        ] {
            assert_eq!(read(text), text, "{text:?}");
        }
        assert!(rewritten("plain ascii text, no escapes").is_none());
    }

    #[test]
    fn a_range_maps_back_to_the_escapes_it_came_from() {
        let text = "id=&#115;\\u006b%2D\u{ff50}\\xc3\\xa9!";
        let view = rewritten(text).unwrap();
        assert_eq!(view.text(), "id=sk-p\u{e9}!");
        let (s, e) = view.original(3, 3 + "sk-p\u{e9}".len());
        assert_eq!(&text[s..e], "&#115;\\u006b%2D\u{ff50}\\xc3\\xa9");
        // Inside a character read from several bytes, any byte maps to all of them.
        let at = view.text().find('\u{e9}').unwrap();
        let (s, e) = view.original(at + 1, at + 2);
        assert_eq!(&text[s..e], "\\xc3\\xa9");
        // Copied text maps one for one.
        assert_eq!(view.original(0, 3), (0, 3));
        assert_eq!(
            &text[view.original(view.text().len() - 1, view.text().len()).0..],
            "!"
        );
    }
}
