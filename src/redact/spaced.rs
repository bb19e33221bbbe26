//! Letters one separator apart, joined: a view of a text without the separator between every
//! character of a run (a stage of `glance.rs`).
//!
//! `' '.join(s)` prints `s k - p`, `str(list(s))` prints `['s', 'k', '-', 'p']`, `'-'.join(s)`
//! prints `s-k---p`: a person reads the value in each at a glance. A run is a character, then the
//! same separator (one to [`MAX_SEPARATOR`] blanks or ASCII punctuation) and a character, again
//! and again, at least [`MIN_LETTERS`] characters; the view takes its separators out. The
//! characters of a run may be anything but a line break or a control character (a value holds
//! punctuation too: `-` in `s-k---p` is a character and a separator by turns).
//!
//! Each position is tried once for each separator width and a run found is stepped over, so the
//! scan is linear: a try that fails after k characters took k steps, and k is below
//! [`MIN_LETTERS`]. What it does not do: join runs whose separator changes (`s, k; -`), or
//! characters two or more apart.

use super::known::MIN_KNOWN_CHARS;
use super::view::View;

/// The longest separator: Python's `', '` and JSON's `", "` take four.
const MAX_SEPARATOR: usize = 4;

/// A run is this many characters at least: the shortest known value (shorter runs are words
/// with blanks between them, `a = b`, and hold no value).
const MIN_LETTERS: usize = MIN_KNOWN_CHARS;

fn is_separator(b: u8) -> bool {
    b == b' ' || b == b'\t' || b.is_ascii_punctuation()
}

/// A run found: where it ends (after its last character), how many characters it has, and how
/// wide its separator is.
#[derive(Clone, Copy)]
struct Run {
    end: usize,
    letters: usize,
    width: usize,
}

/// The character at `at` when it may be part of a run.
fn letter(text: &str, at: usize) -> Option<char> {
    text.get(at..)?.chars().next().filter(|c| !c.is_control())
}

/// The run that starts with the character at `at` and has separators `width` bytes wide, however
/// short; `None` when no separator follows the first character, or when the run is a wider one
/// read out of step (see [`out_of_step`]).
fn run_at(text: &str, at: usize, width: usize) -> Option<Run> {
    let first = letter(text, at)?;
    let mut end = at + first.len_utf8();
    let separator = text.get(end..end + width)?;
    if !separator.bytes().all(is_separator) {
        return None;
    }
    let mut letters = vec![first];
    loop {
        let next = end + width;
        let Some(c) = letter(text, next).filter(|_| text[end..].starts_with(separator)) else {
            break;
        };
        letters.push(c);
        end = next + c.len_utf8();
    }
    if out_of_step(&letters) {
        return None;
    }
    Some(Run {
        end,
        letters: letters.len(),
        width,
    })
}

/// Whether every other character of a run (its first and last aside) is one and the same
/// separator: `"s","k","-"` read with the separator `"` has `,` for every other character, and
/// is the run with the separator `","`, which starts one character later.
fn out_of_step(letters: &[char]) -> bool {
    let inner = letters
        .get(1..letters.len().saturating_sub(1))
        .unwrap_or_default();
    (0..2).any(|parity| {
        let mut every_other = inner.iter().skip(parity).step_by(2);
        let Some(&first) = every_other.next() else {
            return false;
        };
        let mut count = 1;
        let same = every_other.all(|&c| {
            count += 1;
            c == first
        });
        same && count >= 3 && first.is_ascii() && is_separator(first as u8)
    })
}

/// The view of `text` with the separators of every run taken out; `None` when it has none.
pub(super) fn joined(text: &str) -> Option<View> {
    let mut removed = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let best = (1..=MAX_SEPARATOR)
            .filter_map(|width| run_at(text, at, width))
            .filter(|run| run.letters >= MIN_LETTERS)
            .max_by_key(|run| (run.letters, std::cmp::Reverse(run.width)));
        match best {
            Some(run) => {
                // The separators: after each character but the last.
                let mut next = at;
                while let Some(c) = letter(text, next) {
                    let separator = next + c.len_utf8();
                    if separator >= run.end {
                        break;
                    }
                    removed.push((separator, separator + run.width));
                    next = separator + run.width;
                }
                at = run.end;
            }
            None => at += text[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    View::without(text, &removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(text: &str) -> String {
        joined(text).map_or(text.to_string(), |v| v.text().to_string())
    }

    #[test]
    fn runs_of_letters_one_separator_apart_are_joined() {
        let cases = [
            ("s k - p r o j - V", "sk-proj-V"),
            ("['s', 'k', '-', 'p', 'r', 'o', 'j', '-']", "['sk-proj-']"),
            (
                "[\"s\", \"k\", \"-\", \"p\", \"r\", \"o\", \"j\", \"-\"]",
                "[\"sk-proj-\"]",
            ),
            // Without blanks, every other character of the list is a comma between quotes.
            (
                "[\"s\",\"k\",\"-\",\"p\",\"r\",\"o\",\"j\",\"-\"]",
                "[\"sk-proj-\"]",
            ),
            ("s/k/-/p/r/o/j/-/", "sk-proj-/"),
            ("s-k---p-r-o-j---V", "sk-proj-V"),
            ("key: s.k.-.p.r.o.j.-.V end", "key: sk-proj-V end"),
            ("a  b  c  d  e  f  g  h", "abcdefgh"),
            (
                "\u{e9} \u{e8} \u{ea} \u{eb} \u{e0} \u{e2} \u{ee} \u{ef}",
                "\u{e9}\u{e8}\u{ea}\u{eb}\u{e0}\u{e2}\u{ee}\u{ef}",
            ),
            // Two runs on two lines: a line break ends a run.
            ("a b c d e f g h\ni j k l m n o p", "abcdefgh\nijklmnop"),
        ];
        for (text, expected) in cases {
            assert_eq!(seen(text), expected, "{text:?}");
        }
    }

    #[test]
    fn short_runs_and_words_are_no_run() {
        for text in [
            "a b c d e f g",
            "   Compiling serde v1.0.210 (/home/dev/.cargo)",
            "test result: ok. 42 passed; 0 failed",
            "let total = price + tax * rate;",
            "s k - p\nr o j -",
            "",
        ] {
            assert!(joined(text).is_none(), "{text:?}");
        }
    }

    /// Single letters between operators are a run too: joined, they are only searched for
    /// known values, and the text is as it was.
    #[test]
    fn an_expression_of_single_letters_is_a_harmless_run() {
        assert_eq!(seen("let x = a + b * c - d;"), "letx=a+b*c-d;");
    }

    #[test]
    fn a_run_maps_back_to_its_characters_and_separators() {
        let text = "got ['s', 'k', '-', 'p', 'r', 'o', 'j', 'x'] ok";
        let view = joined(text).unwrap();
        let at = view.text().find("sk-projx").unwrap();
        let (s, e) = view.original(at, at + 8);
        assert_eq!(&text[s..e], "s', 'k', '-', 'p', 'r', 'o', 'j', 'x");
    }
}
