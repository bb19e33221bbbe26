//! The redactor against a known value in the forms a person reads at a glance (`glance.rs`):
//! each form masked whole, tagged with the value's origin, and the forms of other strings, the
//! ordinary text that has the same look, left byte for byte.

use super::tests::check_with;
use super::{KnownValue, Redactor};

const VALUE: &str = "Zk8-known-S3cret-42";
const TAG: &str = "[redacted: file .env API_KEY]";

fn redactor() -> Redactor {
    Redactor::from_known(vec![KnownValue::file(".env", "API_KEY", VALUE)], vec![])
}

fn each_char(value: &str, f: impl Fn(char) -> String) -> String {
    value.chars().map(f).collect()
}

fn joined(value: &str, separator: &str) -> String {
    value
        .chars()
        .map(String::from)
        .collect::<Vec<_>>()
        .join(separator)
}

/// `xxd -b`'s lines for `data`, six bytes a line, as xxd 2022 prints them.
fn xxd_bits(data: &[u8]) -> String {
    data.chunks(6)
        .enumerate()
        .map(|(i, line)| {
            let bits: Vec<String> = line.iter().map(|b| format!("{b:08b}")).collect();
            let chars: String = line
                .iter()
                .map(|&b| {
                    if (0x20..0x7f).contains(&b) {
                        char::from(b)
                    } else {
                        '.'
                    }
                })
                .collect();
            format!("{:08x}: {:<53}  {chars}\n", 6 * i, bits.join(" "))
        })
        .collect()
}

#[test]
fn a_known_value_in_a_form_read_at_a_glance_is_masked_whole() {
    let r = redactor();
    let forms: Vec<(&str, String, String)> = vec![
        ("zero-width spaces", joined(VALUE, "\u{200b}"), TAG.into()),
        ("soft hyphens", joined(VALUE, "\u{ad}"), TAG.into()),
        (
            "word joiners and tags",
            joined(VALUE, "\u{2060}\u{e0020}"),
            TAG.into(),
        ),
        ("braille blanks", joined(VALUE, "\u{2800}"), TAG.into()),
        ("spaced", joined(VALUE, " "), TAG.into()),
        ("no-break spaces", joined(VALUE, "\u{a0}"), TAG.into()),
        ("dashes", joined(VALUE, "-"), TAG.into()),
        (
            "a Python list",
            format!("['{}']", joined(VALUE, "', '")),
            format!("['{TAG}']"),
        ),
        (
            "a JSON list",
            format!("[\"{}\"]", joined(VALUE, "\",\"")),
            format!("[\"{TAG}\"]"),
        ),
        (
            "fullwidth",
            each_char(VALUE, |c| {
                char::from_u32(u32::from(c) + 0xfee0).unwrap().to_string()
            }),
            TAG.into(),
        ),
        (
            "Cyrillic look-alikes",
            VALUE.replace('o', "\u{43e}").replace('e', "\u{435}"),
            TAG.into(),
        ),
        (
            "bold overstrike",
            each_char(VALUE, |c| format!("{c}\u{8}{c}")),
            TAG.into(),
        ),
        (
            "underline overstrike",
            each_char(VALUE, |c| format!("_\u{8}{c}")),
            TAG.into(),
        ),
        (
            "JSON escapes",
            each_char(VALUE, |c| format!("\\u{:04x}", u32::from(c))),
            TAG.into(),
        ),
        (
            "byte escapes",
            each_char(VALUE, |c| format!("\\x{:02x}", u32::from(c))),
            TAG.into(),
        ),
        (
            "octal escapes",
            each_char(VALUE, |c| format!("\\{:03o}", u32::from(c))),
            TAG.into(),
        ),
        (
            "HTML decimal entities",
            each_char(VALUE, |c| format!("&#{};", u32::from(c))),
            TAG.into(),
        ),
        (
            "HTML hex entities",
            each_char(VALUE, |c| format!("&#x{:X};", u32::from(c))),
            TAG.into(),
        ),
        // Nested: fullwidth letters with zero-width spaces, and escapes spaced out.
        (
            "fullwidth and zero-width spaces",
            each_char(VALUE, |c| {
                format!("{}\u{200b}", char::from_u32(u32::from(c) + 0xfee0).unwrap())
            }),
            format!("{TAG}\u{200b}"),
        ),
        (
            "spaced entities",
            each_char(VALUE, |c| format!("&#{}; ", u32::from(c))),
            format!("{TAG} "),
        ),
        // Reversed: the page shows it forwards inside a right-to-left override.
        (
            "a right-to-left override",
            format!(
                "\u{202e}{}\u{202c}",
                VALUE.chars().rev().collect::<String>()
            ),
            "\u{202e}[redacted: file .env API_KEY (reversed)]\u{202c}".into(),
        ),
        (
            "reversed",
            VALUE.chars().rev().collect(),
            "[redacted: file .env API_KEY (reversed)]".into(),
        ),
        // Every byte percent-encoded is one of the value's own needles.
        (
            "percent-encoded",
            each_char(VALUE, |c| format!("%{:02X}", u32::from(c))),
            "[redacted: file .env API_KEY (url-encoded)]".into(),
        ),
    ];
    for (name, form, masked) in forms {
        check_with(
            &r,
            &format!("<<{name}>>{form}<<end>>\n"),
            &format!("<<{name}>>{masked}<<end>>\n"),
        );
    }
}

#[test]
fn a_known_value_in_xxd_bits_is_masked_through_its_characters() {
    let r = redactor();
    let dump = xxd_bits(VALUE.as_bytes());
    assert!(
        dump.starts_with("00000000: 01011010 01101011 00111000 "),
        "{dump}"
    );
    check_with(&r, &dump, &format!("00000000: {TAG}\n"));
    // After a label printed without a line break.
    check_with(
        &r,
        &format!("bits: {dump}done\n"),
        &format!("bits: 00000000: {TAG}\ndone\n"),
    );
}

#[test]
fn the_same_forms_of_other_strings_come_out_as_they_went_in() {
    let r = redactor();
    let near = "Zk8-known-S3cret-43";
    for text in [
        joined(near, "\u{200b}"),
        joined(near, " "),
        format!("['{}']", joined(near, "', '")),
        each_char(near, |c| format!("\\u{:04x}", u32::from(c))),
        each_char(near, |c| format!("&#{};", u32::from(c))),
        each_char(near, |c| format!("{c}\u{8}{c}")),
        near.chars().rev().collect(),
        xxd_bits(near.as_bytes()),
        // Ordinary text with the same look.
        "a b c d e f g h i j\n['x', 'y', 'z']\n\\u00e9t\\u00e9 &amp; caf&#233;\n".into(),
        "NAME\n       l\u{8}ls\u{8}s - list directory contents\n".into(),
        "\u{ff21}\u{ff22}\u{ff23} \u{43f}\u{440}\u{438}\u{432}\u{435}\u{442} 100%\n".into(),
        "let x = a + b * c - d;\n\u{202e}olleh\u{202c}\n".into(),
    ] {
        check_with(&r, &text, &text);
    }
}
