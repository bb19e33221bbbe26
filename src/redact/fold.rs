//! Text cut into lines that a reader joins again: `fold -w N`, `base64` wrapping at 76, PEM and
//! `openssl base64` at 64, `xxd -p` at 60, a YAML block whose continuation lines are indented.
//!
//! Two views, for two searches:
//! - [`joined`]: the whole text with every line break and the blanks that indent the next line
//!   removed. A known value is searched there (one pass of its automaton), so it is found however
//!   it was cut: at any width, a character a line, at spaces (`fold -s`).
//! - [`folded`]: the blocks that look folded (a line, then lines without blanks of the same
//!   width, and maybe a narrower last one; two lines of encoded data, the second narrower),
//!   each joined: on their own, where the token formats read them, and in the whole text,
//!   where encoded runs are decoded (`decode.rs`) once, folded or not. Every rule reads them, so a token or an encoded
//!   key cut by `fold` is whole again; ordinary text, whose lines differ in width, mostly stays
//!   out, which keeps the rules' second reading small.
//!
//! What it does not do: join lines whose prefixes differ (`cat -n`, `grep -n`, a diff's `+`), or
//! text cut by anything but line breaks.

use super::view::View;

/// A folded block's lines are at least this wide: narrower cuts are left to the search of known
/// values across every break ([`joined`]), where a width does not matter.
const MIN_FOLD_WIDTH: usize = 8;

/// The widths encoders wrap their lines at: `xxd -p` 60, PEM and `openssl base64` 64, `base64`
/// 76.
const ENCODER_WIDTHS: [usize; 3] = [60, 64, 76];

/// One line of a text: where it starts, where its content ends (before `\r\n` or `\n`), where
/// the next line starts, and where its content starts after the blanks that indent it.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    body: usize,
    end: usize,
    next: usize,
}

fn lines(text: &str) -> impl Iterator<Item = Line> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let newline = bytes[start..].iter().position(|&b| b == b'\n');
        let (end, next) = match newline {
            Some(at) => (start + at, start + at + 1),
            None => (bytes.len(), bytes.len()),
        };
        let end = if end > start && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        let indent = bytes[start..end]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let line = Line {
            start,
            body: start + indent,
            end,
            next,
        };
        start = next;
        Some(line)
    })
}

/// The text with every line break removed, and with it the blanks that indent the next line;
/// `None` when it has no line break before more text.
pub(super) fn joined(text: &str) -> Option<View> {
    let mut removed = Vec::new();
    let mut previous: Option<Line> = None;
    for line in lines(text) {
        if let Some(before) = previous {
            removed.push((before.end, line.body));
        }
        previous = Some(line);
    }
    View::without(text, &removed)
}

/// The folded blocks of a text, joined: on their own, and in the whole text.
pub(super) struct Folded {
    /// Only the blocks, each ended by its last line break.
    pub(super) blocks: View,
    /// The whole text with its blocks joined.
    pub(super) whole: View,
}

/// The blocks of `text` that look folded, each joined into one line (see [`Folded`]); `None`
/// when there is none. A block: a line at least [`MIN_FOLD_WIDTH`] bytes wide,
/// then one or more lines without blanks (indented or not) of the same width, and maybe a
/// narrower last one.
pub(super) fn folded(text: &str) -> Option<Folded> {
    let lines: Vec<Line> = lines(text).collect();
    let mut joins = Vec::new();
    let width = |line: &Line| line.end - line.start;
    let unbroken = |line: &Line| {
        line.body < line.end && !text[line.body..line.end].contains(char::is_whitespace)
    };
    let mut removed = Vec::new();
    // Where the text not given to a block yet starts.
    let mut outside = 0;
    let mut i = 0;
    while i < lines.len() {
        let w = width(&lines[i]);
        let mut j = i + 1;
        if w >= MIN_FOLD_WIDTH {
            while j < lines.len() && unbroken(&lines[j]) && width(&lines[j]) <= w {
                j += 1;
                if width(&lines[j - 1]) < w {
                    break;
                }
            }
        }
        // At least two lines of the full width: a line and a shorter one after it is ordinary
        // text as often as not (`key=value` above `other=1`), unless both are encoded data at
        // an encoder's width (`base64` of 60 bytes wraps into 76 characters and 4).
        let full = (i..j).filter(|&k| width(&lines[k]) == w).count();
        let encoded = ENCODER_WIDTHS.contains(&(lines[i].end - lines[i].body))
            && (i..j).all(|k| is_encoded(&text[lines[k].body..lines[k].end]));
        if full < 2 && !(j - i == 2 && encoded) {
            i += 1;
            continue;
        }
        removed.push((outside, lines[i].start));
        for k in i..j - 1 {
            let join = (lines[k].end, lines[k + 1].body);
            removed.push(join);
            joins.push(join);
        }
        outside = lines[j - 1].next;
        i = j;
    }
    if joins.is_empty() {
        return None;
    }
    removed.push((outside, text.len()));
    removed.retain(|&(s, e)| s < e);
    Some(Folded {
        blocks: View::without(text, &removed)?,
        whole: View::without(text, &joins)?,
    })
}

/// Whether a line is base64 or hex and nothing else: its alphabets' characters, and padding at
/// its end.
fn is_encoded(line: &str) -> bool {
    let data = line.trim_end_matches('=');
    !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded_text(text: &str) -> String {
        folded(text)
            .map(|f| f.blocks.text().to_string())
            .unwrap_or_default()
    }

    #[test]
    fn every_break_is_joined_with_the_next_lines_indent() {
        let text = "ab\ncd\r\n   ef\n\tg";
        let view = joined(text).unwrap();
        assert_eq!(view.text(), "abcdefg");
        let (s, e) = view.original(1, 6);
        assert_eq!(&text[s..e], "b\ncd\r\n   ef");
        assert!(joined("one line").is_none());
    }

    #[test]
    fn folded_blocks_are_joined_and_kept_apart() {
        let line = "QUJD".repeat(19);
        let text = format!(
            "$ base64 key\n{line}\n{line}\nQUJD==\nprompt> ls\nsrc target\n  data: abcdefghij\nklmnopqrstuvwxyzAB\nCD\nend\n  secret:\n    {line}\n    {line}\n    QUJD\n"
        );
        assert_eq!(
            folded_text(&text),
            format!(
                "{line}{line}QUJD==\n  data: abcdefghijklmnopqrstuvwxyzABCD\n    {line}{line}QUJD\n"
            )
        );
        // In the whole text only the blocks' own breaks go.
        let whole = folded(&text).unwrap().whole.text().to_string();
        assert!(whole.starts_with(&format!("$ base64 key\n{line}{line}QUJD==\nprompt> ls\n")));
        // Ordinary lines of different widths, lines with blanks, and narrow lines are no block.
        for ordinary in [
            "   Compiling serde v1.0\n    Finished dev\n",
            "short\nlines\nhere\n",
            "a line with words\nanother with words\n",
            "0123456789\n0123456789ab\n",
            "_auth=ZGVwbG95OnMzY3JldC1wYXNz\nemail=me@x.io\n",
            "Finished-the-build-in-3s\nDone-here\n",
        ] {
            assert_eq!(folded_text(ordinary), "", "{ordinary:?}");
        }
    }
}
