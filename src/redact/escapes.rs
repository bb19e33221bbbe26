//! Terminal escape sequences: a view of a text without them, and the way from a range of the view
//! back to the bytes of the text it came from.
//!
//! Coloured output (`cargo`, `grep --color`, test runners) puts escape sequences between the
//! characters a secret is made of, or right against it, where they break both exact values and
//! the format rules' word boundaries. The redactor matches on the view too and replaces the
//! original range, escapes inside it included.
//!
//! What counts as an escape (ECMA-48 and ECMA-35, 7-bit forms only): a CSI `ESC [`, parameter
//! bytes, intermediate bytes and a final byte; a control string (`ESC ]` OSC, `ESC P` DCS,
//! `ESC X`, `ESC ^`, `ESC _`) up to BEL or ST (`ESC \`); any other `ESC`, intermediates and a
//! final byte (`ESC 7`, `ESC ( B`). A sequence cut off is removed as far as it goes; a control
//! string with no terminator ends before the next `ESC` or at the end of the text. What it does
//! not do: the 8-bit C1 forms (`U+009B`), backspaces and carriage returns that overwrite what a
//! terminal showed.
//!
//! Escapes are ASCII and end before an ASCII byte or at the end, so every range removed starts
//! and ends on a character boundary.

use super::view::View;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// The view of `text` without its escape sequences, or `None` when it holds none (the view
/// would be the text).
pub(super) fn view(text: &str) -> Option<View> {
    let bytes = text.as_bytes();
    let mut removed = Vec::new();
    let mut from = 0;
    while let Some(next) = bytes[from..].iter().position(|&b| b == ESC) {
        let at = from + next;
        from = at + escape_len(bytes, at);
        removed.push((at, from));
    }
    View::without(text, &removed)
}

/// The length of the escape sequence starting at `bytes[at]` (an ESC).
fn escape_len(bytes: &[u8], at: usize) -> usize {
    let byte = |i: usize| bytes.get(i).copied();
    let skip = |mut i: usize, range: std::ops::RangeInclusive<u8>| {
        while byte(i).is_some_and(|b| range.contains(&b)) {
            i += 1;
        }
        i
    };
    let end = match byte(at + 1) {
        // CSI: parameters, intermediates, the final byte.
        Some(b'[') => {
            let i = skip(skip(at + 2, 0x30..=0x3f), 0x20..=0x2f);
            i + usize::from(byte(i).is_some_and(|b| (0x40..=0x7e).contains(&b)))
        }
        // A control string: to BEL or ST, or before an ESC that begins something else.
        Some(b']' | b'P' | b'X' | b'^' | b'_') => {
            let mut i = at + 2;
            loop {
                match byte(i) {
                    None => break i,
                    Some(BEL) => break i + 1,
                    Some(ESC) if byte(i + 1) == Some(b'\\') => break i + 2,
                    Some(ESC) => break i,
                    Some(_) => i += 1,
                }
            }
        }
        // Intermediates and a final byte (`ESC ( B`, `ESC 7`, `ESC =`).
        Some(0x20..=0x7e) => {
            let i = skip(at + 1, 0x20..=0x2f);
            i + usize::from(byte(i).is_some_and(|b| (0x30..=0x7e).contains(&b)))
        }
        _ => at + 1,
    };
    end - at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(text: &str) -> String {
        view(text).map_or(text.to_string(), |v| v.text().to_string())
    }

    #[test]
    fn escape_sequences_are_left_out_of_the_view() {
        let cases = [
            ("plain", "plain"),
            ("\x1b[31mred\x1b[0m", "red"),
            ("\x1b[1;38;5;208mbold\x1b[K end", "bold end"),
            ("\x1b[?25lhidden\x1b[?25h", "hidden"),
            ("\x1b]0;title\x07text", "text"),
            (
                "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\",
                "link",
            ),
            ("\x1b(Bx\x1b7y\x1b8", "xy"),
            ("a\x1b", "a"),
            ("cut \x1b[12", "cut "),
            ("\x1b]no end\x1b[1mbold", "bold"),
            ("\x1b]never ends", ""),
            ("é\x1b[0mé", "éé"),
            ("\x1b\x1b[1mx", "x"),
            ("\x1bé", "é"),
        ];
        for (text, expected) in cases {
            assert_eq!(seen(text), expected, "{text:?}");
        }
    }

    #[test]
    fn a_view_range_maps_to_the_original_bytes_with_the_escapes_inside() {
        let text = "ab \x1b[31mse\x1b[0mcr\x1b[1met\x1b[0m cd";
        let v = view(text).unwrap();
        assert_eq!(v.text(), "ab secret cd");
        let start = v.text().find("secret").unwrap();
        let (s, e) = v.original(start, start + "secret".len());
        assert_eq!(&text[s..e], "se\x1b[0mcr\x1b[1met");
        // A range at the very start and end.
        assert_eq!(v.original(0, 2), (0, 2));
        let end = v.text().len();
        assert_eq!(&text[v.original(end - 2, end).0..], "cd");
    }
}
