//! What a person reads is what runs: a string the model chose (a command line, a path, a
//! question), shown so that every character in it can be seen for what it is.
//!
//! A zero-width space, a soft hyphen, a Unicode tag character or a variation selector takes no
//! room on a terminal, so `deploy.sh` and `deploy\u{200b}.sh` look alike while naming different
//! files; a bidirectional control reorders what follows it; a control character moves the cursor
//! or rewrites the line; a space other than U+0020, or a character drawn as an empty cell
//! (U+2800 BRAILLE PATTERN BLANK), looks like a space but is part of a word to the shell; a
//! Cyrillic `е` in `./dеploy.sh` looks like a Latin `e` but names another file. [`shown`] writes
//! each such character as an escape (`\u{200b}`) and leaves everything else alone; [`hidden`]
//! lists them, and [`Hidden::words`] says in words what a confirmation holds ("1 invisible
//! character (U+200B ZERO WIDTH SPACE)", "a letter from another script that looks like a Latin
//! one: U+0435 CYRILLIC SMALL LETTER IE").
//!
//! What counts (fixed here, no Unicode tables at run time): every control character (Cc) but
//! line feed and tab; every format character (Cf: zero-width characters, the soft hyphen,
//! bidirectional controls, the byte-order mark, tag characters, interlinear annotations and the
//! few others); variation selectors; the invisible letters and marks that render as nothing
//! (Hangul fillers, the combining grapheme joiner, Khmer's inherent vowels, the Khitan filler);
//! the symbols drawn as a blank (the braille blank, the musical null notehead); every space but
//! U+0020 and the line and paragraph separators; and the letters a person would misread
//! (`look_alike.rs`): in a word that mixes scripts (Latin and Cyrillic in `dеploy`), every letter
//! outside ASCII, and every compatibility form of an ASCII letter or digit (fullwidth `ｒｍ`). A
//! backslash that starts `\u{` is shown doubled, so that a literal `\u{200b}` the model wrote
//! never passes for an escaped character.
//!
//! What it does not do: judge whether a string is dangerous, decide anything, or touch data. The
//! string keyless runs or writes is the model's, byte for byte; only what a person reads changes.
//! Ordinary text of any script stays as it is: a whole word in Cyrillic, accented Latin (`café`),
//! Japanese. It is pure and a leaf: it uses nothing of keyless.

use std::borrow::Cow;
use std::fmt::Write;

mod look_alike;

pub(crate) use look_alike::{Form, look_alike};
use look_alike::{Odd, Why, odd_letters};

/// How a hidden character is shown: `\u{200b}`, as Rust writes a character escape.
fn escape(c: char, out: &mut String) {
    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
}

/// The kinds of character a person cannot see, or cannot see for what they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Cc: moves the cursor, erases, rings, or starts an escape sequence.
    Control,
    /// Reorders the text around it (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C).
    Bidi,
    /// Takes no room: zero-width characters, the soft hyphen, the byte-order mark, other Cf.
    Invisible,
    /// U+E0000..U+E007F: invisible copies of ASCII, able to carry a hidden text.
    Tag,
    /// Changes how the character before it is drawn, and takes no room itself.
    VariationSelector,
    /// Looks like a space and is none: part of a word to the shell.
    Space,
    /// A symbol drawn as an empty cell (U+2800 BRAILLE PATTERN BLANK): looks like a space and
    /// is none.
    Blank,
}

/// The kind of `c` when a person cannot see it for what it is; `None` for every other character,
/// line feed and tab included.
pub(crate) fn kind(c: char) -> Option<Kind> {
    let kind = match c {
        '\n' | '\t' => return None,
        _ if c.is_control() => Kind::Control,
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => Kind::Bidi,
        '\u{e0000}'..='\u{e007f}' => Kind::Tag,
        '\u{fe00}'..='\u{fe0f}'
        | '\u{e0100}'..='\u{e01ef}'
        | '\u{180b}'..='\u{180d}'
        | '\u{180f}' => Kind::VariationSelector,
        // Format characters (Cf) besides the bidirectional controls and tags, and the letters
        // and marks that render as nothing.
        '\u{00ad}'
        | '\u{034f}'
        | '\u{0600}'..='\u{0605}'
        | '\u{06dd}'
        | '\u{070f}'
        | '\u{0890}'..='\u{0891}'
        | '\u{08e2}'
        | '\u{115f}'..='\u{1160}'
        | '\u{17b4}'..='\u{17b5}'
        | '\u{180e}'
        | '\u{16fe4}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206a}'..='\u{206f}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}' => Kind::Invisible,
        // Spaces (Zs) other than U+0020, and the line and paragraph separators.
        '\u{00a0}'
        | '\u{1680}'
        | '\u{2000}'..='\u{200a}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{202f}'
        | '\u{205f}'
        | '\u{3000}' => Kind::Space,
        '\u{2800}' | '\u{1d159}' => Kind::Blank,
        _ => return None,
    };
    Some(kind)
}

/// `text` as a person should read it: every character of a [`Kind`] and every letter a person
/// would misread written as an escape (`\u{200b}`), a backslash before `u{` doubled, everything
/// else as it is. Borrowed when nothing needs showing.
pub(crate) fn shown(text: &str) -> Cow<'_, str> {
    let needs =
        |(i, c): (usize, char)| kind(c).is_some() || (c == '\\' && text[i + 1..].starts_with("u{"));
    let odd = odd_letters(text);
    if odd.is_empty() && !text.char_indices().any(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut odd = odd.iter().map(|o| o.at).peekable();
    for (i, c) in text.char_indices() {
        let misread = odd.next_if_eq(&i).is_some();
        if misread || kind(c).is_some() {
            escape(c, &mut out);
        } else if c == '\\' && text[i + 1..].starts_with("u{") {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `text` holds a character a person cannot see for what it is (line feed and tab
/// aside), or a letter a person would misread.
pub(crate) fn holds_hidden(text: &str) -> bool {
    text.chars().any(|c| kind(c).is_some()) || !odd_letters(text).is_empty()
}

/// The hidden characters and misread letters of a string: each distinct one with how often it
/// occurs, in the order of first appearance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hidden {
    found: Vec<(char, usize)>,
    letters: Vec<(char, Why, usize)>,
}

/// How many distinct characters [`Hidden::words`] names in a part before it only counts the
/// rest.
const NAMED_AT_MOST: usize = 4;

/// The hidden characters and misread letters of `text`; `None` when it holds none.
pub(crate) fn hidden(text: &str) -> Option<Hidden> {
    let mut found: Vec<(char, usize)> = Vec::new();
    for c in text.chars().filter(|&c| kind(c).is_some()) {
        match found.iter_mut().find(|(seen, _)| *seen == c) {
            Some((_, count)) => *count += 1,
            None => found.push((c, 1)),
        }
    }
    let mut letters: Vec<(char, Why, usize)> = Vec::new();
    for Odd { letter, why, .. } in odd_letters(text) {
        match letters.iter_mut().find(|(seen, _, _)| *seen == letter) {
            Some((_, _, count)) => *count += 1,
            None => letters.push((letter, why, 1)),
        }
    }
    (!found.is_empty() || !letters.is_empty()).then_some(Hidden { found, letters })
}

/// `U+200B ZERO WIDTH SPACE ×2, U+202E RIGHT-TO-LEFT OVERRIDE`: the first [`NAMED_AT_MOST`]
/// characters with their names and counts, then how many other kinds there are.
fn listed(found: &[(char, usize)]) -> String {
    let mut named: Vec<String> = found
        .iter()
        .take(NAMED_AT_MOST)
        .map(|&(c, n)| {
            let times = if n > 1 {
                format!(" ×{n}")
            } else {
                String::new()
            };
            format!("U+{:04X} {}{times}", u32::from(c), name(c))
        })
        .collect();
    if found.len() > NAMED_AT_MOST {
        named.push(format!("and {} other kinds", found.len() - NAMED_AT_MOST));
    }
    named.join(", ")
}

impl Hidden {
    /// What they are, in words, each kind its own part: `1 invisible character (U+200B ZERO
    /// WIDTH SPACE)`, `a letter from another script that looks like a Latin one: U+0435
    /// CYRILLIC SMALL LETTER IE`, joined by "and".
    pub(crate) fn words(&self) -> String {
        let mut parts = Vec::new();
        if !self.found.is_empty() {
            let count: usize = self.found.iter().map(|(_, n)| n).sum();
            let plural = if count == 1 { "" } else { "s" };
            parts.push(format!(
                "{count} invisible character{plural} ({})",
                listed(&self.found)
            ));
        }
        for (why, one, many) in [
            (
                Why::LookAlike,
                "a letter from another script that looks like a Latin one",
                "letters from other scripts that look like Latin ones",
            ),
            (
                Why::Compatibility,
                "a compatibility form of an ASCII character",
                "compatibility forms of ASCII characters",
            ),
            (
                Why::Mixed,
                "a letter of a word that mixes scripts",
                "letters of words that mix scripts",
            ),
        ] {
            let these: Vec<(char, usize)> = self
                .letters
                .iter()
                .filter(|(_, w, _)| *w == why)
                .map(|&(c, _, n)| (c, n))
                .collect();
            let count: usize = these.iter().map(|(_, n)| n).sum();
            match count {
                0 => {}
                1 => parts.push(format!("{one}: {}", listed(&these))),
                _ => parts.push(format!("{count} {many}: {}", listed(&these))),
            }
        }
        parts.join(" and ")
    }
}

/// The Unicode name of the characters people meet most, and what the others are.
fn name(c: char) -> Cow<'static, str> {
    let known = match c {
        '\u{00a0}' => "NO-BREAK SPACE",
        '\u{00ad}' => "SOFT HYPHEN",
        '\u{034f}' => "COMBINING GRAPHEME JOINER",
        '\u{061c}' => "ARABIC LETTER MARK",
        '\u{180e}' => "MONGOLIAN VOWEL SEPARATOR",
        '\u{200b}' => "ZERO WIDTH SPACE",
        '\u{200c}' => "ZERO WIDTH NON-JOINER",
        '\u{200d}' => "ZERO WIDTH JOINER",
        '\u{200e}' => "LEFT-TO-RIGHT MARK",
        '\u{200f}' => "RIGHT-TO-LEFT MARK",
        '\u{2028}' => "LINE SEPARATOR",
        '\u{2029}' => "PARAGRAPH SEPARATOR",
        '\u{202a}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202b}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202c}' => "POP DIRECTIONAL FORMATTING",
        '\u{202d}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202e}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{202f}' => "NARROW NO-BREAK SPACE",
        '\u{2060}' => "WORD JOINER",
        '\u{2061}' => "FUNCTION APPLICATION",
        '\u{2062}' => "INVISIBLE TIMES",
        '\u{2063}' => "INVISIBLE SEPARATOR",
        '\u{2064}' => "INVISIBLE PLUS",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{3000}' => "IDEOGRAPHIC SPACE",
        '\u{3164}' => "HANGUL FILLER",
        '\u{115f}' => "HANGUL CHOSEONG FILLER",
        '\u{1160}' => "HANGUL JUNGSEONG FILLER",
        '\u{ffa0}' => "HALFWIDTH HANGUL FILLER",
        '\u{2800}' => "BRAILLE PATTERN BLANK",
        '\u{1d159}' => "MUSICAL SYMBOL NULL NOTEHEAD",
        '\u{16fe4}' => "KHITAN SMALL SCRIPT FILLER",
        '\u{205f}' => "MEDIUM MATHEMATICAL SPACE",
        '\u{feff}' => "ZERO WIDTH NO-BREAK SPACE",
        '\u{1b}' => "ESCAPE",
        '\r' => "CARRIAGE RETURN",
        '\u{8}' => "BACKSPACE",
        '\0' => "NULL",
        '\u{e0001}' => "LANGUAGE TAG",
        '\u{e007f}' => "CANCEL TAG",
        _ => "",
    };
    if !known.is_empty() {
        return Cow::Borrowed(known);
    }
    if let Some(named) = look_alike::name(c) {
        return named;
    }
    match kind(c) {
        // A tag character copies an ASCII one: say which, so a hidden text can be read.
        Some(Kind::Tag) => match char::from_u32(u32::from(c) - 0xe0000) {
            Some(ascii) if ascii.is_ascii_graphic() => Cow::Owned(format!("TAG '{ascii}'")),
            _ => Cow::Borrowed("TAG CHARACTER"),
        },
        Some(Kind::VariationSelector) => Cow::Borrowed("VARIATION SELECTOR"),
        Some(Kind::Control) => Cow::Borrowed("CONTROL CHARACTER"),
        Some(Kind::Bidi) => Cow::Borrowed("BIDIRECTIONAL CONTROL"),
        Some(Kind::Space) => Cow::Borrowed("SPACE OTHER THAN U+0020"),
        Some(Kind::Blank) => Cow::Borrowed("BLANK SYMBOL"),
        Some(Kind::Invisible) => Cow::Borrowed("FORMAT CHARACTER"),
        None => match look_alike::script(c) {
            Some(script) => Cow::Borrowed(script.letter()),
            None => Cow::Borrowed("CHARACTER"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_shown_as_escapes() {
        let cases = [
            ("./deploy\u{200b}.sh", "./deploy\\u{200b}.sh"),
            ("co\u{00ad}py", "co\\u{ad}py"),
            ("\u{feff}start", "\\u{feff}start"),
            ("a\u{2060}b\u{2064}c", "a\\u{2060}b\\u{2064}c"),
            ("txt\u{202e}exe.sh", "txt\\u{202e}exe.sh"),
            ("x\u{2066}y\u{2069}\u{061c}", "x\\u{2066}y\\u{2069}\\u{61c}"),
            ("rm\u{e0020}\u{e0072}", "rm\\u{e0020}\\u{e0072}"),
            ("a\u{fe0f}b\u{e0100}", "a\\u{fe0f}b\\u{e0100}"),
            ("\u{1b}[2K\r\u{7}\u{85}", "\\u{1b}[2K\\u{d}\\u{7}\\u{85}"),
            ("rm -rf ~\u{a0}/tmp", "rm -rf ~\\u{a0}/tmp"),
            ("\u{3164}\u{115f}", "\\u{3164}\\u{115f}"),
            // A literal escape the model wrote is not taken for a shown one.
            ("printf '\\u{200b}'", "printf '\\\\u{200b}'"),
        ];
        for (text, expected) in cases {
            assert_eq!(shown(text), expected, "{text:?}");
            assert!(holds_hidden(text) || text.contains("\\u{"), "{text:?}");
        }
    }

    #[test]
    fn ordinary_text_is_borrowed_as_it_is() {
        for text in [
            "cargo test --all\n\tdone",
            "échec: 日本語 — naïve café ✓ ü",
            "printf '\\n' \\\\u",
            "emoji ✅ 🎉",
            "",
        ] {
            assert!(
                matches!(shown(text), Cow::Borrowed(t) if t == text),
                "{text:?}"
            );
            assert!(!holds_hidden(text), "{text:?}");
            assert_eq!(hidden(text), None);
        }
    }

    #[test]
    fn what_a_string_holds_is_said_in_words() {
        let words = |text: &str| hidden(text).map(|h| h.words());
        assert_eq!(
            words("./deploy\u{200b}.sh").as_deref(),
            Some("1 invisible character (U+200B ZERO WIDTH SPACE)")
        );
        assert_eq!(
            words("a\u{200b}b\u{202e}c\u{200b}").as_deref(),
            Some(
                "3 invisible characters (U+200B ZERO WIDTH SPACE ×2, U+202E RIGHT-TO-LEFT OVERRIDE)"
            )
        );
        assert_eq!(
            words("\u{e0072}\u{e006d}").as_deref(),
            Some("2 invisible characters (U+E0072 TAG 'r', U+E006D TAG 'm')")
        );
        assert_eq!(
            words("\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}").as_deref(),
            Some(
                "6 invisible characters (U+0001 CONTROL CHARACTER, U+0002 CONTROL CHARACTER, U+0003 CONTROL CHARACTER, U+0004 CONTROL CHARACTER, and 2 other kinds)"
            )
        );
    }

    /// Every character of the classes the module promises, checked by range, and every other
    /// character below U+3100 left alone unless it is one of them.
    #[test]
    fn the_classes_cover_what_they_promise() {
        let promised = [
            (0x00..=0x08, Kind::Control),
            (0x0b..=0x1f, Kind::Control),
            (0x7f..=0x9f, Kind::Control),
            (0x200b..=0x200b, Kind::Invisible),
            (0x2060..=0x2064, Kind::Invisible),
            (0xfeff..=0xfeff, Kind::Invisible),
            (0x00ad..=0x00ad, Kind::Invisible),
            (0xe0000..=0xe007f, Kind::Tag),
            (0x202a..=0x202e, Kind::Bidi),
            (0x2066..=0x2069, Kind::Bidi),
            (0xfe00..=0xfe0f, Kind::VariationSelector),
            (0xe0100..=0xe01ef, Kind::VariationSelector),
        ];
        for (range, expected) in promised {
            for code in range {
                let c = char::from_u32(code).unwrap();
                assert_eq!(kind(c), Some(expected), "U+{code:04X}");
                assert!(shown(&c.to_string()).starts_with("\\u{"), "U+{code:04X}");
            }
        }
        for c in (' '..='~').chain(['é', 'ß', 'Ж', 'א', 'ع', '中', '—', '…', '€']) {
            assert_eq!(kind(c), None, "{c:?}");
        }
    }

    #[test]
    fn blank_looking_characters_are_shown_as_escapes() {
        for (text, expected, named) in [
            (
                "./deploy.sh\u{2800}--dry-run",
                "./deploy.sh\\u{2800}--dry-run",
                "U+2800 BRAILLE PATTERN BLANK",
            ),
            (
                "./deploy.sh\u{1d159}--dry-run",
                "./deploy.sh\\u{1d159}--dry-run",
                "U+1D159 MUSICAL SYMBOL NULL NOTEHEAD",
            ),
            (
                "a\u{205f}b",
                "a\\u{205f}b",
                "U+205F MEDIUM MATHEMATICAL SPACE",
            ),
            (
                "a\u{ffa0}b",
                "a\\u{ffa0}b",
                "U+FFA0 HALFWIDTH HANGUL FILLER",
            ),
            (
                "a\u{115f}\u{1160}b",
                "a\\u{115f}\\u{1160}b",
                "U+115F HANGUL CHOSEONG FILLER",
            ),
            (
                "a\u{16fe4}b",
                "a\\u{16fe4}b",
                "U+16FE4 KHITAN SMALL SCRIPT FILLER",
            ),
            (
                "a\u{2003}b\u{3000}",
                "a\\u{2003}b\\u{3000}",
                "U+2003 SPACE OTHER THAN U+0020",
            ),
            ("a\u{1d173}b", "a\\u{1d173}b", "U+1D173 FORMAT CHARACTER"),
        ] {
            assert_eq!(shown(text), expected, "{text:?}");
            let words = hidden(text).map(|h| h.words()).unwrap_or_default();
            assert!(words.contains(named), "{text:?}: {words}");
        }
        // Braille that is not blank is braille.
        assert!(matches!(shown("\u{2801}\u{28ff}"), Cow::Borrowed(_)));
    }

    #[test]
    fn look_alike_letters_are_shown_as_escapes_and_said_in_words() {
        let cases = [
            (
                "./d\u{435}ploy.sh --prod",
                "./d\\u{435}ploy.sh --prod",
                "a letter from another script that looks like a Latin one: U+0435 CYRILLIC SMALL LETTER IE",
            ),
            (
                "p\u{430}yp\u{430}l \u{455}ecret",
                "p\\u{430}yp\\u{430}l \\u{455}ecret",
                "3 letters from other scripts that look like Latin ones: U+0430 CYRILLIC SMALL LETTER A ×2, U+0455 CYRILLIC SMALL LETTER DZE",
            ),
            (
                "\u{ff52}\u{ff4d} -rf /",
                "\\u{ff52}\\u{ff4d} -rf /",
                "2 compatibility forms of ASCII characters: U+FF52 FULLWIDTH LATIN SMALL LETTER R, U+FF4D FULLWIDTH LATIN SMALL LETTER M",
            ),
            (
                "ab\u{10d0}",
                "ab\\u{10d0}",
                "a letter of a word that mixes scripts: U+10D0 GEORGIAN LETTER",
            ),
        ];
        for (text, expected, words) in cases {
            assert_eq!(shown(text), expected, "{text:?}");
            assert!(holds_hidden(text), "{text:?}");
            assert_eq!(hidden(text).map(|h| h.words()).as_deref(), Some(words));
        }
        // Both kinds in one string: each part said.
        let both = hidden("./d\u{435}ploy\u{200b}.sh").map(|h| h.words());
        assert_eq!(
            both.as_deref(),
            Some(
                "1 invisible character (U+200B ZERO WIDTH SPACE) and a letter from another script that looks like a Latin one: U+0435 CYRILLIC SMALL LETTER IE"
            )
        );
    }

    #[test]
    fn ordinary_non_ascii_text_stays_readable() {
        for text in [
            "cat caf\u{e9}.txt na\u{ef}ve.md",
            "echo \u{43f}\u{440}\u{438}\u{432}\u{435}\u{442} \u{43c}\u{438}\u{440}",
            "ls \u{3b1}\u{3b2}\u{3b3}/ \u{65e5}\u{672c}\u{8a9e}.txt file\u{540d}.txt",
            "echo \u{4f60}\u{597d}\u{ff0c}\u{4e16}\u{754c}",
            "\u{5e9}\u{5dc}\u{5d5}\u{5dd} \u{645}\u{631}\u{62d}\u{628}\u{627}",
        ] {
            assert!(matches!(shown(text), Cow::Borrowed(_)), "{text:?}");
            assert!(!holds_hidden(text), "{text:?}");
            assert_eq!(hidden(text), None, "{text:?}");
        }
    }
}
