//! What a person reads at a glance: a text as a chat page or a terminal shows it, and as a person
//! reads it back without a tool, built as views (`view.rs`) in which the known values are
//! searched with their one-pass search (`known.rs`).
//!
//! Three stages, each a view of the one before, each built only when its input holds what it
//! undoes (otherwise it costs one scan and no view):
//!
//! 1. what is not seen taken out ([`unseen`]): the invisible, format, bidirectional, tag,
//!    variation-selector and blank characters `visible` names (a page shows
//!    `s\u{200b}k\u{ad}-…` as `sk-…`), the other control characters but line breaks, tabs and
//!    carriage returns, and overstrike resolved (`c\bc` and `_\bc`, as `man` pages and `nroff`
//!    print bold and underline: a backspace takes out itself and the character before it);
//! 2. what is written another way read as what it stands for (`unescape.rs`): `\uXXXX`, `\xXX`,
//!    octal `\NNN`, `&#NNN;`, `&#xHH;`, `%XX`, fullwidth and mathematical letters, letters of
//!    other scripts that look like Latin ones, and spaces other than U+0020;
//! 3. one separator between every character taken out (`spaced.rs`): `s k - p`, Python's
//!    `['s', 'k', '-', 'p']`, `s-k---p`.
//!
//! Only the last view is searched: each stage keeps what the one before made readable (a stage
//! only takes out or reads back), so a value readable after any stage is readable after the last,
//! and forms nest (fullwidth letters with zero-width spaces between them, escapes spaced out).
//! A value reversed inside a right-to-left override, which a page shows forwards, is no view:
//! the reversed value is one more needle (`encode.rs`), found wherever it stands.
//!
//! Every stage is one scan and no larger than its input, so the views cost time linear in the
//! text. What it does not do: read what takes more than a glance (a value spread over lines with
//! prefixes, a dump in decimal), search the views for the token formats (only known values; the
//! rules would read words joined from a spaced-out table as secrets), or join a value whose
//! separators differ from one pair of letters to the next.

use super::view::{Rewritten, View};
use super::{spaced, unescape};
use crate::visible::{self, Kind};

const BACKSPACE: char = '\u{8}';

/// The views of `text` a person reads at a glance, each a view of the one before (the first a
/// view of `text`); empty when `text` holds nothing they undo.
pub(super) fn views(text: &str) -> Vec<View> {
    let mut views: Vec<View> = Vec::new();
    for stage in [unseen, unescape::rewritten, spaced::joined] {
        let next = stage(views.last().map_or(text, View::text));
        views.extend(next);
    }
    views
}

/// Whether a byte may start what [`unseen`] takes out (or a backspace): a control byte but a
/// line break, tab or carriage return, or the first byte of a character whose code point could
/// be one `visible` names: `0xC2` (U+0080..U+00BF: C1 controls, the soft hyphen), `0xCD`
/// (U+034F), `0xD8`, `0xDB`, `0xDC` (the Arabic and Syriac format characters), and every
/// character of three or four bytes. Text in Latin, Greek, Cyrillic, Armenian or Hebrew letters
/// is passed over without decoding.
fn may_be_unseen(b: u8) -> bool {
    matches!(b, 0x00..=0x08 | 0x0b | 0x0c | 0x0e..=0x1f | 0x7f | 0xc2 | 0xcd | 0xd8 | 0xdb | 0xdc)
        || b >= 0xe0
}

/// Whether a character is taken out of what a reader sees.
fn is_unseen(c: char) -> bool {
    match visible::kind(c) {
        Some(Kind::Invisible | Kind::Bidi | Kind::Tag | Kind::VariationSelector | Kind::Blank) => {
            true
        }
        Some(Kind::Control) => !matches!(c, '\n' | '\r' | '\t'),
        Some(Kind::Space) | None => false,
    }
}

/// Whether a character can be drawn over (or drawn over another) by a backspace.
fn is_drawn(c: char) -> bool {
    !c.is_control()
}

/// The character that starts at `at`, if any.
fn char_at(text: &str, at: usize) -> Option<char> {
    text.get(at..)?.chars().next()
}

/// The view of `text` without what a reader does not see; `None` when there is none. An
/// overstruck character (`x\bx`, `_\bx`, `a\bb\bc`) is the last one drawn, and stands for them
/// all; any other backspace is taken out. Only the bytes [`may_be_unseen`] names are decoded.
fn unseen(text: &str) -> Option<View> {
    let bytes = text.as_bytes();
    let mut at = bytes.iter().position(|&b| may_be_unseen(b))?;
    let mut out = Rewritten::default();
    // Where the text not yet in the view starts.
    let mut copied = 0;
    while at < bytes.len() {
        if !may_be_unseen(bytes[at]) {
            at += 1;
            continue;
        }
        let Some(c) = char_at(text, at) else {
            at += 1;
            continue;
        };
        let end = at + c.len_utf8();
        if c == BACKSPACE {
            // Overstrike: the character before the backspace, drawn over by the one after it
            // (and by each after a further backspace); it stands for them all.
            let before = text[copied..at].char_indices().next_back();
            let mut drawn = None;
            let mut next = at;
            while char_at(text, next) == Some(BACKSPACE) {
                match char_at(text, next + 1).filter(|&d| is_drawn(d)) {
                    Some(d) => {
                        drawn = Some(d);
                        next += 1 + d.len_utf8();
                    }
                    None => break,
                }
            }
            match (before, drawn) {
                (Some((i, first)), Some(d)) if is_drawn(first) => {
                    out.copy(text, copied, copied + i);
                    out.rewrite(d.encode_utf8(&mut [0; 4]), copied + i, next);
                    copied = next;
                    at = next;
                }
                _ => {
                    out.copy(text, copied, at);
                    out.skip();
                    copied = end;
                    at = end;
                }
            }
            continue;
        }
        if is_unseen(c) {
            out.copy(text, copied, at);
            out.skip();
            copied = end;
        }
        at = end;
    }
    out.finish(text, copied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last(text: &str) -> String {
        views(text)
            .last()
            .map_or(text.to_string(), |v| v.text().to_string())
    }

    #[test]
    fn what_is_not_seen_is_taken_out() {
        let cases = [
            ("s\u{200b}k\u{200b}-\u{200b}p", "sk-p"),
            ("s\u{ad}k\u{ad}-", "sk-"),
            (
                "a\u{2060}b\u{feff}c\u{e0041}d\u{fe0f}e\u{202e}f\u{202c}",
                "abcdef",
            ),
            ("x\u{2800}y\u{1d159}z", "xyz"),
            ("a\u{0}b\u{7}c\u{1}d", "abcd"),
            // Overstrike: bold and underline as `nroff` prints them.
            ("s\u{8}sk\u{8}k-\u{8}-", "sk-"),
            ("_\u{8}s_\u{8}k", "sk"),
            ("a\u{8}b\u{8}c", "c"),
            // Any other backspace is taken out.
            ("abc\u{8}\u{8}XY", "abcXY"),
            ("\u{8}ab\n\u{8}cd\u{8}", "ab\ncd"),
            // Line breaks, tabs, carriage returns and other spaces stay.
            ("a\tb\r\nc", "a\tb\r\nc"),
        ];
        for (text, expected) in cases {
            let view = unseen(text);
            let seen = view.as_ref().map_or(text, View::text);
            assert_eq!(seen, expected, "{text:?}");
        }
        for plain in [
            "plain ascii\n\ttext\r\n",
            "caf\u{e9} \u{43f}\u{440}\u{438}",
            "",
        ] {
            assert!(unseen(plain).is_none(), "{plain:?}");
        }
    }

    /// The bytes the scan stops at cover every character it takes out.
    #[test]
    fn every_character_taken_out_starts_with_a_byte_the_scan_stops_at() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            if is_unseen(c) || c == BACKSPACE {
                let lead = c.encode_utf8(&mut [0; 4]).as_bytes()[0];
                assert!(may_be_unseen(lead), "U+{:04X}", u32::from(c));
            }
        }
    }

    #[test]
    fn a_range_maps_back_over_what_was_taken_out() {
        let text = "key: s\u{8}sk\u{8}k\u{200b}-\u{8}-p\u{8}p end";
        let view = unseen(text).unwrap();
        let at = view.text().find("sk-p").unwrap();
        let (s, e) = view.original(at, at + 4);
        // An overstruck character stands for all its strokes, at both ends.
        assert_eq!(&text[s..e], "s\u{8}sk\u{8}k\u{200b}-\u{8}-p\u{8}p");
    }

    #[test]
    fn the_stages_nest() {
        let cases = [
            // Fullwidth letters with zero-width spaces between them.
            (
                "\u{ff53}\u{200b}\u{ff4b}\u{200b}\u{ff0d}\u{200b}\u{ff50}",
                "sk-p",
            ),
            // HTML escapes spaced out, and a list of JSON escapes.
            (
                "&#115; &#107; &#45; &#112; &#114; &#111; &#106; &#45;",
                "sk-proj-",
            ),
            (
                "[\"\\u0073\", \"\\u006b\", \"\\u002d\", \"\\u0070\", \"\\u0072\", \"\\u006f\", \"\\u006a\", \"\\u002d\"]",
                "[\"sk-proj-\"]",
            ),
            // Overstruck letters, spaced.
            (
                "s\u{8}s k\u{8}k -\u{8}- p\u{8}p r\u{8}r o\u{8}o j\u{8}j -\u{8}-",
                "sk-proj-",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(last(text), expected, "{text:?}");
            // The whole maps back to the whole.
            let views = views(text);
            let (mut s, mut e) = (0, views.last().unwrap().text().len());
            for view in views.iter().rev() {
                (s, e) = view.original(s, e);
            }
            assert_eq!((s, e), (0, text.len()), "{text:?}");
        }
        assert!(views("cargo build --release\n   Compiling x v0.1.0\n").is_empty());
    }
}
