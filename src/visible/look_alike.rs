//! Letters that look like Latin ones and are not: the letters of other scripts a reader takes
//! for Latin ones (Cyrillic `е` for `e`), the compatibility forms of ASCII (fullwidth `ｅ`,
//! mathematical `𝐞`), and which script a letter belongs to, so that a word mixing scripts is
//! found.
//!
//! The idea is Unicode's (UTS #39: confusables and mixed-script words); the tables are fixed here
//! and small, and no Unicode data is read at run time:
//!
//! - [`LOOK_ALIKES`]: the letters of Cyrillic, Greek, Armenian and Cherokee that Unicode's
//!   confusables map to one ASCII letter, as they are drawn in common fonts;
//! - the compatibility forms computed by rule: fullwidth ASCII (U+FF01..U+FF5E) and the
//!   mathematical letters and digits (U+1D400..U+1D6A3, U+1D7CE..U+1D7FF);
//! - [`script`]: a letter's script by its block, coarsely (Latin, Greek, Cyrillic, Armenian,
//!   Hebrew, Arabic, Georgian, Cherokee, the CJK family, any other).
//!
//! [`odd_letters`] reads a text word by word (a word: letters and digits, `char::is_alphanumeric`)
//! and finds the letters a person would misread: in a word of two scripts (Latin and Cyrillic in
//! `dеploy`; Latin with the CJK family is ordinary, as UTS #39's "highly restrictive" level
//! allows), every letter not in ASCII; and every compatibility form of an ASCII letter or digit
//! wherever it stands (`ｒｍ` runs a program that is not `rm`).
//!
//! What it does not do: a word wholly of look-alike letters (`рау`, all Cyrillic) stays as it is,
//! as ordinary Cyrillic text must (UTS #39's whole-script confusables are not judged); Latin
//! letters that look like other Latin ones (`ı` for `i`, `ɑ` for `a`) are Latin and left alone,
//! as Turkish and the IPA need them.

use std::borrow::Cow;

/// Letters of other scripts that are drawn like one ASCII letter: the letter, the ASCII one, and
/// the letter's Unicode name. Sorted by the letter.
#[rustfmt::skip]
const LOOK_ALIKES: &[(char, char, &str)] = &[
    ('\u{0391}', 'A', "GREEK CAPITAL LETTER ALPHA"),
    ('\u{0392}', 'B', "GREEK CAPITAL LETTER BETA"),
    ('\u{0395}', 'E', "GREEK CAPITAL LETTER EPSILON"),
    ('\u{0396}', 'Z', "GREEK CAPITAL LETTER ZETA"),
    ('\u{0397}', 'H', "GREEK CAPITAL LETTER ETA"),
    ('\u{0399}', 'I', "GREEK CAPITAL LETTER IOTA"),
    ('\u{039a}', 'K', "GREEK CAPITAL LETTER KAPPA"),
    ('\u{039c}', 'M', "GREEK CAPITAL LETTER MU"),
    ('\u{039d}', 'N', "GREEK CAPITAL LETTER NU"),
    ('\u{039f}', 'O', "GREEK CAPITAL LETTER OMICRON"),
    ('\u{03a1}', 'P', "GREEK CAPITAL LETTER RHO"),
    ('\u{03a4}', 'T', "GREEK CAPITAL LETTER TAU"),
    ('\u{03a5}', 'Y', "GREEK CAPITAL LETTER UPSILON"),
    ('\u{03a7}', 'X', "GREEK CAPITAL LETTER CHI"),
    ('\u{03b1}', 'a', "GREEK SMALL LETTER ALPHA"),
    ('\u{03b3}', 'y', "GREEK SMALL LETTER GAMMA"),
    ('\u{03b9}', 'i', "GREEK SMALL LETTER IOTA"),
    ('\u{03bd}', 'v', "GREEK SMALL LETTER NU"),
    ('\u{03bf}', 'o', "GREEK SMALL LETTER OMICRON"),
    ('\u{03c1}', 'p', "GREEK SMALL LETTER RHO"),
    ('\u{03c5}', 'u', "GREEK SMALL LETTER UPSILON"),
    ('\u{03f2}', 'c', "GREEK LUNATE SIGMA SYMBOL"),
    ('\u{03f3}', 'j', "GREEK LETTER YOT"),
    ('\u{03f9}', 'C', "GREEK CAPITAL LUNATE SIGMA SYMBOL"),
    ('\u{0405}', 'S', "CYRILLIC CAPITAL LETTER DZE"),
    ('\u{0406}', 'I', "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I"),
    ('\u{0408}', 'J', "CYRILLIC CAPITAL LETTER JE"),
    ('\u{0410}', 'A', "CYRILLIC CAPITAL LETTER A"),
    ('\u{0412}', 'B', "CYRILLIC CAPITAL LETTER VE"),
    ('\u{0415}', 'E', "CYRILLIC CAPITAL LETTER IE"),
    ('\u{041a}', 'K', "CYRILLIC CAPITAL LETTER KA"),
    ('\u{041c}', 'M', "CYRILLIC CAPITAL LETTER EM"),
    ('\u{041d}', 'H', "CYRILLIC CAPITAL LETTER EN"),
    ('\u{041e}', 'O', "CYRILLIC CAPITAL LETTER O"),
    ('\u{0420}', 'P', "CYRILLIC CAPITAL LETTER ER"),
    ('\u{0421}', 'C', "CYRILLIC CAPITAL LETTER ES"),
    ('\u{0422}', 'T', "CYRILLIC CAPITAL LETTER TE"),
    ('\u{0423}', 'Y', "CYRILLIC CAPITAL LETTER U"),
    ('\u{0425}', 'X', "CYRILLIC CAPITAL LETTER HA"),
    ('\u{0430}', 'a', "CYRILLIC SMALL LETTER A"),
    ('\u{0435}', 'e', "CYRILLIC SMALL LETTER IE"),
    ('\u{043e}', 'o', "CYRILLIC SMALL LETTER O"),
    ('\u{0440}', 'p', "CYRILLIC SMALL LETTER ER"),
    ('\u{0441}', 'c', "CYRILLIC SMALL LETTER ES"),
    ('\u{0443}', 'y', "CYRILLIC SMALL LETTER U"),
    ('\u{0445}', 'x', "CYRILLIC SMALL LETTER HA"),
    ('\u{0455}', 's', "CYRILLIC SMALL LETTER DZE"),
    ('\u{0456}', 'i', "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I"),
    ('\u{0458}', 'j', "CYRILLIC SMALL LETTER JE"),
    ('\u{0474}', 'V', "CYRILLIC CAPITAL LETTER IZHITSA"),
    ('\u{0475}', 'v', "CYRILLIC SMALL LETTER IZHITSA"),
    ('\u{04ae}', 'Y', "CYRILLIC CAPITAL LETTER STRAIGHT U"),
    ('\u{04af}', 'y', "CYRILLIC SMALL LETTER STRAIGHT U"),
    ('\u{04ba}', 'h', "CYRILLIC CAPITAL LETTER SHHA"),
    ('\u{04bb}', 'h', "CYRILLIC SMALL LETTER SHHA"),
    ('\u{04c0}', 'I', "CYRILLIC LETTER PALOCHKA"),
    ('\u{04cf}', 'l', "CYRILLIC SMALL LETTER PALOCHKA"),
    ('\u{0501}', 'd', "CYRILLIC SMALL LETTER KOMI DE"),
    ('\u{051a}', 'Q', "CYRILLIC CAPITAL LETTER QA"),
    ('\u{051b}', 'q', "CYRILLIC SMALL LETTER QA"),
    ('\u{051c}', 'W', "CYRILLIC CAPITAL LETTER WE"),
    ('\u{051d}', 'w', "CYRILLIC SMALL LETTER WE"),
    ('\u{053c}', 'L', "ARMENIAN CAPITAL LETTER LIWN"),
    ('\u{054d}', 'U', "ARMENIAN CAPITAL LETTER SEH"),
    ('\u{054f}', 'S', "ARMENIAN CAPITAL LETTER TIWN"),
    ('\u{0555}', 'O', "ARMENIAN CAPITAL LETTER OH"),
    ('\u{0561}', 'w', "ARMENIAN SMALL LETTER AYB"),
    ('\u{0566}', 'q', "ARMENIAN SMALL LETTER ZA"),
    ('\u{0570}', 'h', "ARMENIAN SMALL LETTER HO"),
    ('\u{0578}', 'n', "ARMENIAN SMALL LETTER VO"),
    ('\u{057d}', 'u', "ARMENIAN SMALL LETTER SEH"),
    ('\u{0581}', 'g', "ARMENIAN SMALL LETTER CO"),
    ('\u{0585}', 'o', "ARMENIAN SMALL LETTER OH"),
    ('\u{13a0}', 'D', "CHEROKEE LETTER A"),
    ('\u{13a2}', 'T', "CHEROKEE LETTER I"),
    ('\u{13aa}', 'A', "CHEROKEE LETTER GO"),
    ('\u{13ab}', 'J', "CHEROKEE LETTER GU"),
    ('\u{13ac}', 'E', "CHEROKEE LETTER GV"),
    ('\u{13b3}', 'W', "CHEROKEE LETTER LA"),
    ('\u{13b7}', 'M', "CHEROKEE LETTER LU"),
    ('\u{13bb}', 'H', "CHEROKEE LETTER MI"),
    ('\u{13c0}', 'G', "CHEROKEE LETTER NAH"),
    ('\u{13c3}', 'Z', "CHEROKEE LETTER NO"),
    ('\u{13d9}', 'V', "CHEROKEE LETTER DO"),
    ('\u{13da}', 'S', "CHEROKEE LETTER DU"),
    ('\u{13de}', 'L', "CHEROKEE LETTER TLE"),
    ('\u{13df}', 'C', "CHEROKEE LETTER TLI"),
    ('\u{13e2}', 'P', "CHEROKEE LETTER TLV"),
    ('\u{13e6}', 'K', "CHEROKEE LETTER TSO"),
    ('\u{13f4}', 'B', "CHEROKEE LETTER YV"),
];

/// The styles of the mathematical letters, in code point order: 52 letters each (A..Z, a..z)
/// from U+1D400.
const MATH_LETTER_STYLES: [&str; 13] = [
    "BOLD",
    "ITALIC",
    "BOLD ITALIC",
    "SCRIPT",
    "BOLD SCRIPT",
    "FRAKTUR",
    "DOUBLE-STRUCK",
    "BOLD FRAKTUR",
    "SANS-SERIF",
    "SANS-SERIF BOLD",
    "SANS-SERIF ITALIC",
    "SANS-SERIF BOLD ITALIC",
    "MONOSPACE",
];
const MATH_LETTERS: u32 = 0x1d400;

/// The code points in the mathematical letters that Unicode leaves unassigned (their letters
/// were encoded earlier among the letterlike symbols, `ℎ` U+210E).
const MATH_LETTER_HOLES: [u32; 24] = [
    0x1d455, 0x1d49d, 0x1d4a0, 0x1d4a1, 0x1d4a3, 0x1d4a4, 0x1d4a7, 0x1d4a8, 0x1d4ad, 0x1d4ba,
    0x1d4bc, 0x1d4c4, 0x1d506, 0x1d50b, 0x1d50c, 0x1d515, 0x1d51d, 0x1d53a, 0x1d53f, 0x1d545,
    0x1d547, 0x1d548, 0x1d549, 0x1d551,
];

/// The styles of the mathematical digits, 10 each (0..9) from U+1D7CE.
const MATH_DIGIT_STYLES: [&str; 5] = [
    "BOLD",
    "DOUBLE-STRUCK",
    "SANS-SERIF",
    "SANS-SERIF BOLD",
    "MONOSPACE",
];
const MATH_DIGITS: u32 = 0x1d7ce;

/// Fullwidth ASCII: U+FF01..U+FF5E are U+0021..U+007E this far apart.
const FULLWIDTH_OFFSET: u32 = 0xfee0;

const DIGIT_NAMES: [&str; 10] = [
    "ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE",
];

/// What kind of look-alike a character is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// A letter of another script, drawn like a Latin one.
    Script,
    /// A compatibility form of an ASCII character (fullwidth, mathematical).
    Compatibility,
}

/// The ASCII character `c` is drawn like, and how; `None` when it is ASCII or like none.
pub(crate) fn look_alike(c: char) -> Option<(char, Form)> {
    if c.is_ascii() {
        return None;
    }
    let code = u32::from(c);
    let ascii = |code: u32| char::from_u32(code).map(|a| (a, Form::Compatibility));
    match code {
        0xff01..=0xff5e => ascii(code - FULLWIDTH_OFFSET),
        0x1d400..=0x1d6a3 if !MATH_LETTER_HOLES.contains(&code) => {
            let k = (code - MATH_LETTERS) % 52;
            ascii(if k < 26 { 0x41 + k } else { 0x61 + k - 26 })
        }
        0x1d7ce..=0x1d7ff => ascii(0x30 + (code - MATH_DIGITS) % 10),
        _ => LOOK_ALIKES
            .binary_search_by_key(&c, |&(letter, _, _)| letter)
            .ok()
            .and_then(|at| LOOK_ALIKES.get(at))
            .map(|&(_, latin, _)| (latin, Form::Script)),
    }
}

/// The Unicode name of a look-alike letter or of a compatibility form of an ASCII letter or
/// digit; `None` for any other character.
pub(super) fn name(c: char) -> Option<Cow<'static, str>> {
    let code = u32::from(c);
    let (ascii, form) = look_alike(c)?;
    if form == Form::Script {
        return LOOK_ALIKES
            .binary_search_by_key(&c, |&(letter, _, _)| letter)
            .ok()
            .and_then(|at| LOOK_ALIKES.get(at))
            .map(|&(_, _, name)| Cow::Borrowed(name));
    }
    let case = if ascii.is_ascii_uppercase() {
        "CAPITAL"
    } else {
        "SMALL"
    };
    let upper = ascii.to_ascii_uppercase();
    let digit = ascii.to_digit(10).and_then(|d| DIGIT_NAMES.get(d as usize));
    let named = match code {
        0xff01..=0xff5e => match digit {
            Some(digit) => format!("FULLWIDTH DIGIT {digit}"),
            None if ascii.is_ascii_alphabetic() => format!("FULLWIDTH LATIN {case} LETTER {upper}"),
            None => return None,
        },
        0x1d400..=0x1d6a3 => {
            let style = MATH_LETTER_STYLES.get(((code - MATH_LETTERS) / 52) as usize)?;
            format!("MATHEMATICAL {style} {case} {upper}")
        }
        _ => {
            let style = MATH_DIGIT_STYLES.get(((code - MATH_DIGITS) / 10) as usize)?;
            format!("MATHEMATICAL {style} DIGIT {}", digit?)
        }
    };
    Some(Cow::Owned(named))
}

/// A letter's script, coarsely: what tells a word of two scripts from a word of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Hebrew,
    Arabic,
    Georgian,
    Cherokee,
    /// Han, the kana, Hangul and Bopomofo, which Japanese, Chinese and Korean write together.
    Cjk,
    /// Any other script: all of them count as one, so that a word is never split between two
    /// blocks of the same script.
    Other,
}

impl Script {
    /// How a letter of this script is named when its own name is not known here.
    pub(super) fn letter(self) -> &'static str {
        match self {
            Script::Latin => "LATIN LETTER",
            Script::Greek => "GREEK LETTER",
            Script::Cyrillic => "CYRILLIC LETTER",
            Script::Armenian => "ARMENIAN LETTER",
            Script::Hebrew => "HEBREW LETTER",
            Script::Arabic => "ARABIC LETTER",
            Script::Georgian => "GEORGIAN LETTER",
            Script::Cherokee => "CHEROKEE LETTER",
            Script::Cjk => "CJK CHARACTER",
            Script::Other => "LETTER",
        }
    }
}

/// The script of a letter by its block; `None` for a character of no script of its own (digits,
/// marks, the compatibility forms, anything not alphabetic).
pub(super) fn script(c: char) -> Option<Script> {
    if c.is_ascii_alphabetic() {
        return Some(Script::Latin);
    }
    if !c.is_alphabetic() || look_alike(c).is_some_and(|(_, form)| form == Form::Compatibility) {
        return None;
    }
    let script = match u32::from(c) {
        0xaa
        | 0xb5
        | 0xba
        | 0xc0..=0x24f
        | 0x250..=0x2af
        | 0x1d00..=0x1dbf
        | 0x1e00..=0x1eff
        | 0x2c60..=0x2c7f
        | 0xa720..=0xa7ff
        | 0xab30..=0xab6f
        | 0xfb00..=0xfb06 => Script::Latin,
        0x370..=0x3ff | 0x1f00..=0x1fff => Script::Greek,
        0x400..=0x52f | 0x1c80..=0x1c8f | 0x2de0..=0x2dff | 0xa640..=0xa69f => Script::Cyrillic,
        0x530..=0x58f | 0xfb13..=0xfb17 => Script::Armenian,
        0x590..=0x5ff | 0xfb1d..=0xfb4f => Script::Hebrew,
        0x600..=0x6ff | 0x750..=0x77f | 0x8a0..=0x8ff | 0xfb50..=0xfdff | 0xfe70..=0xfeff => {
            Script::Arabic
        }
        0x10a0..=0x10ff | 0x1c90..=0x1cbf | 0x2d00..=0x2d2f => Script::Georgian,
        0x13a0..=0x13ff | 0xab70..=0xabbf => Script::Cherokee,
        0x1100..=0x11ff
        | 0x2e80..=0x2fdf
        | 0x3005..=0x3007
        | 0x3021..=0x3029
        | 0x3031..=0x3035
        | 0x3038..=0x303c
        | 0x3040..=0x31ff
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xa960..=0xa97f
        | 0xac00..=0xd7ff
        | 0xf900..=0xfaff
        | 0xff66..=0xffdc
        | 0x1b000..=0x1b16f
        | 0x20000..=0x3134f => Script::Cjk,
        _ => Script::Other,
    };
    Some(script)
}

/// Why a letter is one a person would misread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// A letter of another script that looks like a Latin one, in a word of two scripts.
    LookAlike,
    /// A compatibility form of an ASCII letter or digit (fullwidth, mathematical).
    Compatibility,
    /// Another letter of a word of two scripts.
    Mixed,
}

/// A letter a person would misread: where it starts in the text, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Odd {
    pub(super) at: usize,
    pub(super) letter: char,
    pub(super) why: Why,
}

/// The letters of `text` a person would misread, in order (see the module's account).
pub(super) fn odd_letters(text: &str) -> Vec<Odd> {
    let mut odd = Vec::new();
    if text.is_ascii() {
        return odd;
    }
    let mut word_start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_alphanumeric(), word_start) {
            (true, None) => word_start = Some(at),
            (false, Some(start)) => {
                word(start, &text[start..at], &mut odd);
                word_start = None;
            }
            _ => {}
        }
    }
    odd
}

/// The odd letters of one word, which starts at `start` in the text.
fn word(start: usize, word: &str, odd: &mut Vec<Odd>) {
    if word.is_ascii() {
        return;
    }
    let mut ascii_letter = false;
    let mut script_look_alike = false;
    let mut first: Option<Script> = None;
    let mut two_scripts = false;
    for c in word.chars() {
        ascii_letter |= c.is_ascii_alphabetic();
        script_look_alike |= look_alike(c).is_some_and(|(_, form)| form == Form::Script);
        if let Some(script) = script(c) {
            match first {
                None => first = Some(script),
                Some(seen) if seen != script => {
                    let ordinary = matches!(
                        (seen, script),
                        (Script::Latin, Script::Cjk) | (Script::Cjk, Script::Latin)
                    );
                    two_scripts |= !ordinary;
                }
                Some(_) => {}
            }
        }
    }
    let mixed = two_scripts || (ascii_letter && script_look_alike);
    for (i, c) in word.char_indices().filter(|(_, c)| !c.is_ascii()) {
        let why = match look_alike(c) {
            Some((ascii, Form::Compatibility)) if ascii.is_ascii_alphanumeric() => {
                Why::Compatibility
            }
            Some((_, Form::Script)) if mixed => Why::LookAlike,
            _ if mixed && c.is_alphabetic() => Why::Mixed,
            _ => continue,
        };
        odd.push(Odd {
            at: start + i,
            letter: c,
            why,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odd(text: &str) -> Vec<(char, Why)> {
        odd_letters(text)
            .into_iter()
            .map(|o| {
                assert_eq!(text[o.at..].chars().next(), Some(o.letter));
                (o.letter, o.why)
            })
            .collect()
    }

    #[test]
    fn the_table_is_sorted_and_maps_to_ascii_letters() {
        assert!(LOOK_ALIKES.windows(2).all(|w| w[0].0 < w[1].0));
        for &(letter, latin, name) in LOOK_ALIKES {
            assert!(!letter.is_ascii() && latin.is_ascii_alphabetic(), "{name}");
            assert_eq!(look_alike(letter), Some((latin, Form::Script)), "{name}");
            assert!(script(letter).is_some_and(|s| s != Script::Latin), "{name}");
        }
    }

    #[test]
    fn look_alikes_and_their_names() {
        let cases = [
            (
                '\u{435}',
                Some(('e', Form::Script)),
                Some("CYRILLIC SMALL LETTER IE"),
            ),
            (
                '\u{391}',
                Some(('A', Form::Script)),
                Some("GREEK CAPITAL LETTER ALPHA"),
            ),
            (
                '\u{ff45}',
                Some(('e', Form::Compatibility)),
                Some("FULLWIDTH LATIN SMALL LETTER E"),
            ),
            (
                '\u{ff21}',
                Some(('A', Form::Compatibility)),
                Some("FULLWIDTH LATIN CAPITAL LETTER A"),
            ),
            (
                '\u{ff11}',
                Some(('1', Form::Compatibility)),
                Some("FULLWIDTH DIGIT ONE"),
            ),
            ('\u{ff0d}', Some(('-', Form::Compatibility)), None),
            (
                '\u{1d41e}',
                Some(('e', Form::Compatibility)),
                Some("MATHEMATICAL BOLD SMALL E"),
            ),
            (
                '\u{1d400}',
                Some(('A', Form::Compatibility)),
                Some("MATHEMATICAL BOLD CAPITAL A"),
            ),
            (
                '\u{1d6a3}',
                Some(('z', Form::Compatibility)),
                Some("MATHEMATICAL MONOSPACE SMALL Z"),
            ),
            (
                '\u{1d7d8}',
                Some(('0', Form::Compatibility)),
                Some("MATHEMATICAL DOUBLE-STRUCK DIGIT ZERO"),
            ),
            (
                '\u{1d7ff}',
                Some(('9', Form::Compatibility)),
                Some("MATHEMATICAL MONOSPACE DIGIT NINE"),
            ),
            ('\u{1d455}', None, None),
            ('e', None, None),
            ('\u{e9}', None, None),
            ('\u{436}', None, None),
        ];
        for (c, expected, named) in cases {
            assert_eq!(look_alike(c), expected, "{c:?}");
            assert_eq!(name(c).as_deref(), named, "{c:?}");
        }
    }

    #[test]
    fn a_word_of_two_scripts_has_its_letters_outside_ascii_found() {
        use Why::*;
        let cases: [(&str, Vec<(char, Why)>); 8] = [
            ("./d\u{435}ploy.sh --prod", vec![('\u{435}', LookAlike)]),
            // A Cyrillic word with one Latin letter: every Cyrillic letter is shown.
            (
                "\u{41c}\u{43e}\u{441}\u{43a}\u{432}a",
                vec![
                    ('\u{41c}', LookAlike),
                    ('\u{43e}', LookAlike),
                    ('\u{441}', LookAlike),
                    ('\u{43a}', Mixed),
                    ('\u{432}', Mixed),
                ],
            ),
            // Greek and Cyrillic in one word, no ASCII at all.
            (
                "\u{3b1}\u{3b2}\u{436}",
                vec![
                    ('\u{3b1}', LookAlike),
                    ('\u{3b2}', Mixed),
                    ('\u{436}', Mixed),
                ],
            ),
            // Latin with Georgian: not alike, still two scripts.
            ("ab\u{10d0}", vec![('\u{10d0}', Mixed)]),
            // A compatibility form anywhere, alone or in a word.
            (
                "\u{ff52}\u{ff4d} -rf",
                vec![('\u{ff52}', Compatibility), ('\u{ff4d}', Compatibility)],
            ),
            ("v\u{ff11}", vec![('\u{ff11}', Compatibility)]),
            ("x\u{1d41e}y", vec![('\u{1d41e}', Compatibility)]),
            // Digits and an accented Latin letter around the look-alike.
            (
                "9caf\u{e9}\u{440}",
                vec![('\u{e9}', Mixed), ('\u{440}', LookAlike)],
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(odd(text), expected, "{text:?}");
        }
    }

    #[test]
    fn ordinary_text_of_one_script_has_no_odd_letter() {
        for text in [
            "caf\u{e9} na\u{ef}ve \u{fc}ber stra\u{df}e",
            // A whole word in Cyrillic, and one in Greek, beside Latin ones.
            "\u{43f}\u{440}\u{438}\u{432}\u{435}\u{442} world \u{3b1}\u{3b2}\u{3b3}",
            // Latin with the CJK family, and Japanese of three scripts.
            "file\u{540d}\u{524d}.txt \u{65e5}\u{672c}\u{8a9e}\u{306e}\u{30c6}\u{30ad}\u{30b9}\u{30c8}",
            "k\u{131}l\u{131}\u{e7} \u{2116}5 5\u{b5}s",
            // Fullwidth punctuation in CJK text.
            "\u{4f60}\u{597d}\u{ff0c}\u{4e16}\u{754c}\u{ff01}",
            "plain ascii",
        ] {
            assert_eq!(odd(text), vec![], "{text:?}");
        }
    }
}
