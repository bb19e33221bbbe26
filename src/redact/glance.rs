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

/// Whether a byte may start what [`unseen`] takes out: a control byte but a line break, tab or
/// carriage return, or a byte of a character outside ASCII.
fn may_be_unseen(b: u8) -> bool {
    b >= 0x7f || (b < 0x20 && !matches!(b, b'\n' | b'\t' | b'\r'))
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

/// The view of `text` without what a reader does not see; `None` when there is none. An
/// overstruck character (`x\bx`, `_\bx`, `a\bb\bc`) is the last one drawn, and stands for them
/// all; any other backspace is taken out.
fn unseen(text: &str) -> Option<View> {
    if !text.bytes().any(may_be_unseen) {
        return None;
    }
    let mut out = Rewritten::default();
    // Where the text not yet in the view starts.
    let mut copied = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let overstruck = is_drawn(c) && chars.peek().is_some_and(|&(_, b)| b == BACKSPACE);
        if overstruck {
            // Each backspace and the character after it draw over the one before.
            let mut drawn = None;
            let mut after = chars.clone();
            while let Some((_, BACKSPACE)) = after.next() {
                match after.next() {
                    Some((next, d)) if is_drawn(d) => {
                        drawn = Some((next, d));
                        chars = after.clone();
                    }
                    _ => break,
                }
            }
            if let Some((last, d)) = drawn {
                out.copy(text, copied, at);
                let end = last + d.len_utf8();
                out.rewrite(d.encode_utf8(&mut [0; 4]), at, end);
                copied = end;
                continue;
            }
        }
        if is_unseen(c) {
            out.copy(text, copied, at);
            out.skip();
            copied = at + c.len_utf8();
        }
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
