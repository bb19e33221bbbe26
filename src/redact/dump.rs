//! Hex, binary and octal dumps read back into the bytes they show: `xxd` (and `xxd -b`),
//! `hexdump -C`, `hexdump` and `od` (`-c`, `-b`, `-tx1`, `-x`, the default octal words, with or without offsets, `-An`,
//! `-z`), and lists of bytes (`xxd -i`'s `0x67, 0x68`, `openssl`'s `67:68:70`, `67 68 70`).
//!
//! A command can print a secret a byte at a time in a dump; the redactor reads the dump's bytes
//! as text, and a secret found there is replaced in the dump itself. Each byte stands for its
//! digits and the rest of its line, so that a hit reaches from the first byte's digits to the
//! end of the last byte's line, where `xxd` and `hexdump -C` show the same bytes as characters.
//!
//! Each line is read on its own, by the first format it fits in full; consecutive dump lines
//! make one run of bytes, and a line that is no dump ends it. What it does not do: decimal
//! dumps (`od -tu1`), `od` with several `-t` at once, big-endian words (`xxd -e` reads as
//! written), and lines that `od` and `hexdump` fold into `*` (their bytes are not shown).

use super::view::{Decoded, View};

/// A line of bytes without an offset before them takes this many to count as a dump, unless it
/// continues one: fewer are as likely words (`be ad`) or a time (`10:30:45`).
const MIN_LONE_BYTES: usize = 4;

/// The bytes of the dumps in `text`, each standing for its digits and the rest of its line;
/// `None` when there is no dump.
pub(super) fn decoded(text: &str) -> Option<View> {
    let mut out = Decoded::default();
    let mut in_dump = false;
    let mut start = 0;
    while start < text.len() {
        let next = text[start..]
            .find('\n')
            .map_or(text.len(), |at| start + at + 1);
        let line = text[start..next].trim_end_matches(['\n', '\r']);
        let end = start + line.len();
        match read_line(line, in_dump) {
            Some(bytes) => {
                for (byte, at) in bytes {
                    out.push(byte, start + at, end);
                }
                in_dump = true;
            }
            None => {
                if in_dump {
                    out.separate(start);
                }
                in_dump = false;
            }
        }
        start = next;
    }
    if out.is_empty() {
        return None;
    }
    out.view()
}

/// The bytes a dump line shows, each with where its digits start in the line; `None` when the
/// line is no dump line. An offset alone, or `*`, is a dump line without bytes when a dump is
/// going on.
fn read_line(line: &str, in_dump: bool) -> Option<Vec<(u8, usize)>> {
    let trimmed = line.trim();
    if in_dump && (trimmed == "*" || is_offset(trimmed)) {
        return Some(Vec::new());
    }
    // Every dump line starts with a digit of its offset or data, or with blanks (`od -An`,
    // `xxd -i`): anything else is given up at once, but for an `xxd` line after a label.
    if !line.starts_with(|c: char| c.is_ascii_hexdigit() || c == ' ' || c == '\t') {
        return after_label(line);
    }
    // `xxd -b` first: a line of few bytes, padded, would also read as `xxd` with four bytes to a
    // group of eight digits.
    xxd_bits(line)
        .or_else(|| xxd(line))
        .or_else(|| hexdump_canonical(line))
        .or_else(|| od_chars(line))
        .or_else(|| words(line, in_dump))
        .or_else(|| after_label(line))
}

/// How wide `xxd` writes an offset.
const XXD_OFFSET_DIGITS: usize = 8;

/// `key: 00000000: 0111…  sk`: an `xxd` or `xxd -b` line after what a program printed before the
/// dump on the same line (a label without a line break). The first `: ` that ends an offset of
/// [`XXD_OFFSET_DIGITS`] digits starts the dump; only that one is tried.
fn after_label(line: &str) -> Option<Vec<(u8, usize)>> {
    let start = line
        .match_indices(": ")
        .filter_map(|(colon, _)| colon.checked_sub(XXD_OFFSET_DIGITS))
        .find(|&start| {
            start > 0
                && line
                    .get(start..start + XXD_OFFSET_DIGITS)
                    .is_some_and(is_offset)
        })?;
    let dump = &line[start..];
    let bytes = xxd_bits(dump).or_else(|| xxd(dump))?;
    Some(bytes.into_iter().map(|(b, at)| (b, start + at)).collect())
}

/// A dump's offset: hex digits, as wide as dumps print them, starting with a zero (a dump
/// starts at offset 0 and secrets are no gigabytes in).
fn is_offset(text: &str) -> bool {
    (6..=16).contains(&text.len()) && text.starts_with('0') && is_digits(text, 16)
}

fn is_digits(text: &str, radix: u32) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_digit(radix))
}

fn hex_pair(text: &str, at: usize) -> Option<u8> {
    text.get(at..at + 2)
        .filter(|p| is_digits(p, 16))
        .and_then(|p| u8::from_str_radix(p, 16).ok())
}

/// `00000010: 6c75 650a 0901 656e  lue...en`: an offset and a colon, groups of hex bytes one
/// blank apart, and the same bytes as characters, as many as there are bytes.
fn xxd(line: &str) -> Option<Vec<(u8, usize)>> {
    let colon = line.find(": ")?;
    if !is_offset(&line[..colon]) {
        return None;
    }
    let mut at = colon + 2;
    let mut bytes = Vec::new();
    loop {
        let group = line[at..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(line.len() - at);
        if group == 0 || !group.is_multiple_of(2) {
            return None;
        }
        for pair in (0..group).step_by(2) {
            bytes.push((hex_pair(line, at + pair)?, at + pair));
        }
        at += group;
        let more = line[at..].starts_with(' ')
            && line[at + 1..].starts_with(|c: char| c.is_ascii_hexdigit());
        if !more {
            break;
        }
        at += 1;
    }
    shows_as_characters(&line[at..], bytes)
}

/// `bytes` when `rest` (what follows the last byte's digits) is at least two blanks and then the
/// characters, as many as the bytes: how `xxd` ends a line.
fn shows_as_characters(rest: &str, bytes: Vec<(u8, usize)>) -> Option<Vec<(u8, usize)>> {
    let shown: Vec<char> = rest.chars().collect();
    let chars = shown.len().checked_sub(bytes.len())?;
    let padding = &shown[..chars];
    (padding.len() >= 2 && padding.iter().all(|&c| c == ' ')).then_some(bytes)
}

/// `00000000: 01110011 01101011  sk`: `xxd -b`, an offset and a colon, each byte as eight binary
/// digits one blank apart, and the same bytes as characters, as many as there are bytes.
fn xxd_bits(line: &str) -> Option<Vec<(u8, usize)>> {
    let colon = line.find(": ")?;
    if !is_offset(&line[..colon]) {
        return None;
    }
    let mut at = colon + 2;
    let mut bytes = Vec::new();
    loop {
        let digits = line.get(at..at + 8).filter(|d| is_digits(d, 2))?;
        bytes.push((u8::from_str_radix(digits, 2).ok()?, at));
        at += 8;
        // One blank before the next byte, two or more before the characters.
        if !line[at..].starts_with(' ') || line[at + 1..].starts_with(' ') {
            break;
        }
        at += 1;
    }
    shows_as_characters(&line[at..], bytes)
}

/// `00000000  67 68 70 5f 53 65 63 72  65 74 2d c3 a9 20 76 61  |ghp_Secret-.. va|`: an offset,
/// hex bytes one blank apart (two in the middle), and the same bytes as characters between bars.
fn hexdump_canonical(line: &str) -> Option<Vec<(u8, usize)>> {
    let offset = line.find("  ")?;
    if !is_offset(&line[..offset]) {
        return None;
    }
    let bar = line.find('|')?;
    let shown = line[bar..].strip_prefix('|')?.strip_suffix('|')?;
    let mut bytes = Vec::new();
    let mut at = offset;
    let digits = line[..bar].trim_end();
    while at < digits.len() {
        let blanks = digits[at..].find(|c: char| c != ' ')?;
        if !(1..=2).contains(&blanks) {
            return None;
        }
        at += blanks;
        bytes.push((hex_pair(digits, at)?, at));
        at += 2;
    }
    (!bytes.is_empty() && shown.chars().count() == bytes.len()).then_some(bytes)
}

/// `0000020   l   u   e  \n  \t 001`: `od -c`, an optional offset, then a cell of four
/// characters for each byte (a character, a backslash escape, or three octal digits).
fn od_chars(line: &str) -> Option<Vec<(u8, usize)>> {
    let offset = line
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(line.len());
    if offset != 0 && !is_offset(&line[..offset]) {
        return None;
    }
    let cells = &line[offset..];
    if cells.is_empty() || !cells.len().is_multiple_of(4) || !cells.is_ascii() {
        return None;
    }
    let mut bytes = Vec::new();
    for (i, cell) in cells.as_bytes().chunks(4).enumerate() {
        // A byte stands for its cell from its first visible character (a space byte for its
        // last column).
        let blanks = cell.iter().take_while(|&&b| b == b' ').count().min(3);
        let at = offset + 4 * i + blanks;
        let byte = match cell {
            [b' ', b' ', b' ', c] if c.is_ascii_graphic() || *c == b' ' => *c,
            [b' ', b' ', b'\\', e] => match e {
                b'0' => 0,
                b'a' => 7,
                b'b' => 8,
                b't' => 9,
                b'n' => 10,
                b'v' => 11,
                b'f' => 12,
                b'r' => 13,
                _ => return None,
            },
            [b' ', d @ ..] if d.iter().all(|b| (b'0'..=b'7').contains(b)) => {
                let value = d.iter().fold(0u16, |acc, &b| acc * 8 + u16::from(b - b'0'));
                u8::try_from(value).ok()?
            }
            _ => return None,
        };
        bytes.push((byte, at));
    }
    // A line of blanks is no dump; a cell of four blanks is a space inside one.
    bytes.iter().any(|&(b, _)| b != b' ').then_some(bytes)
}

/// `od` and `hexdump` words, and lists of bytes: an optional offset (a line that starts with a
/// digit, wider than the words), then words of one width, blanks, commas or colons between them,
/// `0x` before each or not, and maybe `>characters<` (`od -z`). Two hex digits or three octal
/// ones are a byte; four hex digits (`od -x`, `hexdump`), six octal ones (`od`) and eight hex
/// digits (`od -tx4`) are little-endian words.
fn words(line: &str, in_dump: bool) -> Option<Vec<(u8, usize)>> {
    let body = match line.find("  >") {
        Some(at) if line.ends_with('<') => &line[..at],
        _ => line,
    };
    // Each token with where it starts, `0x` taken off (the byte stands for the prefix too);
    // read lazily, so that an ordinary line is given up at its first word.
    let mut at = 0;
    let mut tokens = body.split([' ', '\t', ',', ':']).filter_map(|part| {
        let start = at;
        at += part.len() + 1;
        let token = part
            .strip_prefix("0x")
            .or_else(|| part.strip_prefix("0X"))
            .unwrap_or(part);
        (!part.is_empty()).then_some((start, token))
    });
    let first = tokens.next()?;
    if !is_digits(first.1, 16) {
        return None;
    }
    let second = tokens.next();
    let starts_with_offset = !line.starts_with([' ', '\t'])
        && second.is_some_and(|(_, t)| t.len() != first.1.len())
        && is_offset(first.1);
    let head = if starts_with_offset {
        second
    } else {
        Some(first)
    };
    let (_, lead) = head?;
    let width = lead.len();
    let radix = match width {
        2 | 4 | 8 => 16,
        3 | 6 => 8,
        _ => return None,
    };
    let rest: Vec<(usize, &str)> = head
        .into_iter()
        .chain((!starts_with_offset).then_some(second).flatten())
        .chain(tokens)
        .collect();
    if rest
        .iter()
        .any(|(_, t)| t.len() != width || !is_digits(t, radix))
    {
        return None;
    }
    let tokens = rest;
    let lone = !starts_with_offset && !in_dump;
    let per_word = match width {
        2 | 3 => 1,
        4 | 6 => 2,
        _ => 4,
    };
    if lone && tokens.len() * per_word < MIN_LONE_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(tokens.len() * per_word);
    for (at, token) in tokens {
        let value = u64::from_str_radix(token, radix).ok()?;
        if per_word == 1 {
            bytes.push((u8::try_from(value).ok()?, at));
        } else {
            if value >> (8 * per_word) != 0 {
                return None;
            }
            // Little-endian: the low byte came first.
            for i in 0..per_word {
                bytes.push(((value >> (8 * i)) as u8, at));
            }
        }
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the dumps of `text` decode to.
    fn bytes(text: &str) -> String {
        decoded(text)
            .map(|v| v.text().to_string())
            .unwrap_or_default()
    }

    // The dumps below are what `xxd`, `hexdump` and GNU `od` print for the 40 bytes of
    // `ghp_Secret-é value\n\t\x01end-of-the-secret!` (coreutils 9, xxd 2022).
    const DATA: &str = "ghp_Secret-é value\n\t\u{1}end-of-the-secret!";

    #[test]
    fn xxd_and_hexdump_canonical() {
        let xxd = "00000000: 6768 705f 5365 6372 6574 2dc3 a920 7661  ghp_Secret-.. va\n00000010: 6c75 650a 0901 656e 642d 6f66 2d74 6865  lue...end-of-the\n00000020: 2d73 6563 7265 7421                      -secret!\n";
        assert_eq!(bytes(xxd), DATA);
        let xxd_g1 = "00000000: 67 68 70 5f 53 65 63 72 65 74 2d c3 a9 20 76 61  ghp_Secret-.. va\n00000010: 6c 75 65 0a 09 01 65 6e 64 2d 6f 66 2d 74 68 65  lue...end-of-the\n00000020: 2d 73 65 63 72 65 74 21                          -secret!\n";
        assert_eq!(bytes(xxd_g1), DATA);
        let canonical = "00000000  67 68 70 5f 53 65 63 72  65 74 2d c3 a9 20 76 61  |ghp_Secret-.. va|\n00000010  6c 75 65 0a 09 01 65 6e  64 2d 6f 66 2d 74 68 65  |lue...end-of-the|\n00000020  2d 73 65 63 72 65 74 21                           |-secret!|\n00000028\n";
        assert_eq!(bytes(canonical), DATA);
    }

    #[test]
    fn xxd_bits_reads_its_binary_digits() {
        // `printf 'sk-pro\nj-Vb8' | xxd -b`, and a line of `xxd -b -c 2` whose characters
        // column starts with digits.
        let bits = "00000000: 01110011 01101011 00101101 01110000 01110010 01101111  sk-pro\n00000006: 00001010 01101010 00101101 01010110 01100010 00111000  .j-Vb8\n";
        assert_eq!(bytes(bits), "sk-pro\nj-Vb8");
        let narrow = "00000000: 00110001 00110000  10\n00000002: 00110001                    1\n";
        assert_eq!(bytes(narrow), "101");
        // After a label a program printed without a line break, `xxd` and `xxd -b` alike.
        let labelled = "<<bits>>00000000: 01110011 01101011  sk\nkey: 00000000: 736b 2d70  sk-p\n";
        assert_eq!(bytes(labelled), "sksk-p");
        // The characters column must hold as many characters as there are bytes.
        for not in [
            "00000000: 01110011 01101011  s",
            "00000000: 0111001 01101011  sk",
            "00000000: 01110011 01101011 sk",
            "00000000: 01110021 01101011  sk",
            "label00000000: 01110011 01101011  s",
            "took 00000000: seconds",
        ] {
            assert_eq!(bytes(not), "", "{not:?}");
        }
    }

    #[test]
    fn od_in_its_forms() {
        let forms = [
            // od -c
            "0000000   g   h   p   _   S   e   c   r   e   t   - 303 251       v   a\n0000020   l   u   e  \\n  \\t 001   e   n   d   -   o   f   -   t   h   e\n0000040   -   s   e   c   r   e   t   !\n0000050\n",
            // od -An -c
            "   g   h   p   _   S   e   c   r   e   t   - 303 251       v   a\n   l   u   e  \\n  \\t 001   e   n   d   -   o   f   -   t   h   e\n   -   s   e   c   r   e   t   !\n",
            // od -tx1
            "0000000 67 68 70 5f 53 65 63 72 65 74 2d c3 a9 20 76 61\n0000020 6c 75 65 0a 09 01 65 6e 64 2d 6f 66 2d 74 68 65\n0000040 2d 73 65 63 72 65 74 21\n0000050\n",
            // od -b
            "0000000 147 150 160 137 123 145 143 162 145 164 055 303 251 040 166 141\n0000020 154 165 145 012 011 001 145 156 144 055 157 146 055 164 150 145\n0000040 055 163 145 143 162 145 164 041\n0000050\n",
            // od -x and hexdump: little-endian words
            "0000000 6867 5f70 6553 7263 7465 c32d 20a9 6176\n0000020 756c 0a65 0109 6e65 2d64 666f 742d 6568\n0000040 732d 6365 6572 2174\n0000050\n",
            "0000000 6867 5f70 6553 7263 7465 c32d 20a9 6176\n0000010 756c 0a65 0109 6e65 2d64 666f 742d 6568\n0000020 732d 6365 6572 2174                    \n0000028\n",
            // od (octal words)
            "0000000 064147 057560 062523 071143 072145 141455 020251 060566\n0000020 072554 005145 000411 067145 026544 063157 072055 062550\n0000040 071455 061545 062562 020564\n0000050\n",
            // od -tx1z
            "0000000 67 68 70 5f 53 65 63 72 65 74 2d c3 a9 20 76 61  >ghp_Secret-.. va<\n0000020 6c 75 65 0a 09 01 65 6e 64 2d 6f 66 2d 74 68 65  >lue...end-of-the<\n0000040 2d 73 65 63 72 65 74 21                          >-secret!<\n0000050\n",
            // od -An -tx1 -w8
            " 67 68 70 5f 53 65 63 72\n 65 74 2d c3 a9 20 76 61\n 6c 75 65 0a 09 01 65 6e\n 64 2d 6f 66 2d 74 68 65\n 2d 73 65 63 72 65 74 21\n",
        ];
        for form in forms {
            assert_eq!(bytes(form), DATA, "{form}");
        }
        // The octal words end on a pad byte: the view reads it too.
        let last = "0000000 064147\n0000002 000041\n";
        assert_eq!(bytes(last), "gh!\0");
    }

    #[test]
    fn lists_of_bytes() {
        let xxd_i = "unsigned char s[] = {\n  0x67, 0x68, 0x70, 0x5f, 0x53, 0x65, 0x63, 0x72, 0x65, 0x74, 0x2d, 0xc3,\n  0xa9, 0x20, 0x76, 0x61\n};\n";
        assert_eq!(bytes(xxd_i), "ghp_Secret-é va\n\u{1e}\n");
        let colons = "privateExponent:\n    67:68:70:5f:53:65:63:72:\n    65:74\n";
        assert_eq!(bytes(colons), "ghp_Secret");
        assert_eq!(bytes("67 68 70 5F 53 65 63 72"), "ghp_Secr");
    }

    #[test]
    fn a_hit_reaches_the_end_of_its_last_line() {
        let xxd = "00000000: 6768 705f 5365 6372 6574 2dc3 a920 7661  ghp_Secret-.. va\n00000010: 6c75 650a 0901 656e 642d 6f66 2d74 6865  lue...end-of-the\nnext\n";
        let view = decoded(xxd).unwrap();
        let at = view.text().find("Secret").unwrap();
        let (s, e) = view.original(at, at + "Secret-é value".len());
        assert_eq!(&xxd[..s], "00000000: 6768 705f ");
        assert_eq!(&xxd[e..], "\nnext\n");
    }

    #[test]
    fn ordinary_lines_are_no_dump() {
        for line in [
            "   Compiling serde v1.0.210",
            "test result: ok. 42 passed; 0 failed",
            "at 10:30:45 the build ended",
            "be ad",
            "2024 12 01",
            "src/main.rs:12:9: warning",
            "    ",
            "0000000 is a number",
            "deadbeef: cafe babe",
        ] {
            assert_eq!(bytes(line), "", "{line:?}");
        }
    }
}
