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
//! Each position is tried once for each separator width (first from its bytes alone: a separator,
//! a character, the same separator) and a run found is stepped over, so the scan is linear: a try that fails after k characters took k steps, and k is below
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
    SEPARATORS[usize::from(b)]
}

/// [`is_separator`] as a table: the scan asks it of nearly every byte.
const SEPARATORS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = byte == b' ' || byte == b'\t' || byte.is_ascii_punctuation();
        b += 1;
    }
    table
};

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
    let b = *text.as_bytes().get(at)?;
    if b < 0x80 {
        // ASCII, read without decoding: the scan's common case.
        return (!b.is_ascii_control()).then_some(char::from(b));
    }
    text.get(at..)?.chars().next().filter(|c| !c.is_control())
}

/// Whether every other character of a run (its first and last aside) is one and the same
/// separator: `"s","k","-"` read with the separator `"` has `,` for every other character, and
/// is the run with the separator `","`, which starts one character later. Fed the run's
/// characters one by one, a step behind, so that the last is never counted.
#[derive(Default)]
struct OutOfStep {
    /// For each parity of the inner characters: the first, and whether all since were it.
    first: [Option<char>; 2],
    same: [bool; 2],
    count: [usize; 2],
    /// The last character seen, counted once another follows it.
    last: Option<char>,
    inner: usize,
}

impl OutOfStep {
    fn push(&mut self, c: char) {
        if let Some(inner) = self.last.replace(c) {
            let parity = self.inner % 2;
            match self.first[parity] {
                None => {
                    self.first[parity] = Some(inner);
                    self.same[parity] = true;
                }
                Some(first) => self.same[parity] &= first == inner,
            }
            self.count[parity] += 1;
            self.inner += 1;
        }
    }

    fn is_out_of_step(&self) -> bool {
        (0..2).any(|p| {
            self.same[p]
                && self.count[p] >= 3
                && self.first[p].is_some_and(|c| c.is_ascii() && is_separator(c as u8))
        })
    }
}

/// Whether the `width` bytes at `at` (separators) stand again after the character that follows
/// them: what every run has, read from the bytes alone (most places fail it at once).
fn repeats(bytes: &[u8], at: usize, width: usize) -> bool {
    let Some(separator) = bytes.get(at..at + width) else {
        return false;
    };
    let second = at + width;
    let Some(&lead) = bytes.get(second) else {
        return false;
    };
    let again = second + utf8_len(lead);
    bytes.get(again..again + width) == Some(separator)
}

/// How many bytes the UTF-8 character that starts with `lead` takes.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

/// The run that starts with the character at `at` and has separators `width` bytes wide, however
/// short; `None` when no separator follows the first character, or when the run is a wider one
/// read out of step (see [`OutOfStep`]).
fn run_at(text: &str, at: usize, width: usize) -> Option<Run> {
    let first = letter(text, at)?;
    let mut end = at + first.len_utf8();
    let separator = text.get(end..end + width)?;
    if !separator.bytes().all(is_separator) {
        return None;
    }
    let mut letters = 1;
    // The first character is no inner one: the check starts with the second.
    let mut step = OutOfStep::default();
    loop {
        let next = end + width;
        let Some(c) = letter(text, next).filter(|_| text[end..].starts_with(separator)) else {
            break;
        };
        letters += 1;
        step.push(c);
        end = next + c.len_utf8();
    }
    if step.is_out_of_step() {
        return None;
    }
    Some(Run {
        end,
        letters,
        width,
    })
}

/// The view of `text` with the separators of every run taken out; `None` when it has none.
pub(super) fn joined(text: &str) -> Option<View> {
    let mut removed = Vec::new();
    let mut at = 0;
    let bytes = text.as_bytes();
    while at < text.len() {
        let width = if bytes[at] < 0x80 {
            1
        } else {
            text[at..].chars().next().map_or(1, char::len_utf8)
        };
        // How many separator bytes follow this character: a run's separator is no wider (most
        // characters have none after them, and no run starts there).
        let separators = bytes
            .get(at + width..)
            .unwrap_or_default()
            .iter()
            .take(MAX_SEPARATOR)
            .take_while(|&&b| is_separator(b))
            .count();
        if separators == 0 {
            at += width;
            continue;
        }
        let best = (1..=separators)
            .filter(|&separator| repeats(bytes, at + width, separator))
            .filter_map(|separator| run_at(text, at, separator))
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
            None => at += width,
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
