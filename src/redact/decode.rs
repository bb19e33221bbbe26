//! Encoded runs read back into their bytes: base64 (standard or URL-safe, padded or not) and
//! plain hex, wherever they stand in a text (`client-key-data: LS0tLS1CRUdJTi…`, a Kubernetes
//! Secret's `data:`, `xxd -p`, `base64` of a `.npmrc`).
//!
//! The redactor reads the decoded bytes as text with every rule, so that the shapes it knows (a
//! PEM private key, an assignment to a password, a token) are found inside an encoding too, and
//! replaces the encoded characters they came from. Each decoded byte stands for the characters
//! that hold its bits (two of base64's four, or its two hex digits).
//!
//! A run is decoded from its first character, as encoders write it, and read only when it
//! decodes to text. What it does not do: read binary data (a key's DER is found by its encoded
//! first bytes in `rules.rs`), find
//! data encoded at another offset inside a run (known values have needles at every alignment for
//! that, in `encode.rs`), other bases (base32, base58, ascii85), or compressed data.

use super::view::{self, Piece, SEPARATOR, View};

/// Runs shorter than this are left alone: words and identifiers, and nothing a secret shape
/// fits in (the shortest, a password assignment, takes more once encoded).
const MIN_RUN_CHARS: usize = 16;

/// A decoded run with more than one byte in this many binary (control bytes, not UTF-8) is left
/// out: see [`is_text`].
const MAX_BINARY_SHARE: usize = 8;

fn is_run_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')
}

/// The decoded runs of `text`, each apart from the next; `None` when there is none.
pub(super) fn decoded(text: &str) -> Option<View> {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !is_run_byte(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && is_run_byte(bytes[at]) {
            at += 1;
        }
        let run = &bytes[start..at];
        if run.len() < MIN_RUN_CHARS {
            continue;
        }
        let (decoded, group, chars) = if run.iter().all(u8::is_ascii_hexdigit) {
            (hex(run), 1, 2)
        } else {
            match base64(run) {
                Some(decoded) => (decoded, 3, 4),
                None => continue,
            }
        };
        if !is_text(&decoded) {
            continue;
        }
        pieces.push(Piece {
            view: out.len(),
            source: start,
            group,
            chars,
            width: 2,
        });
        out.extend_from_slice(&decoded);
        // Apart from the next run: a line of its own holding the separator.
        pieces.push(Piece {
            view: out.len(),
            source: at,
            group: 1,
            chars: 0,
            width: 0,
        });
        out.extend_from_slice(&[b'\n', SEPARATOR, b'\n']);
    }
    if out.is_empty() {
        return None;
    }
    view::pieces(out, pieces)
}

/// Whether decoded bytes read as text: at most one in [`MAX_BINARY_SHARE`] a control byte or
/// not UTF-8. Binary data (an image, compressed or random bytes, a key's DER) holds no shape a
/// rule reads, and the known values' needles find a value inside it in the encoded text itself.
fn is_text(bytes: &[u8]) -> bool {
    let control = bytes
        .iter()
        .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
        .count();
    let mut invalid = 0;
    let mut at = 0;
    while let Err(e) = std::str::from_utf8(&bytes[at..]) {
        let len = e.error_len().unwrap_or(bytes.len() - at - e.valid_up_to());
        invalid += len;
        at += e.valid_up_to() + len;
        if (control + invalid) * MAX_BINARY_SHARE > bytes.len() {
            return false;
        }
    }
    (control + invalid) * MAX_BINARY_SHARE <= bytes.len()
}

fn hex(run: &[u8]) -> Vec<u8> {
    let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
    run.chunks_exact(2)
        .map(|pair| (digit(pair[0]) << 4) | digit(pair[1]))
        .collect()
}

/// Decodes a run in the alphabet its characters say (`+` and `/`, or `-` and `_`); a run that
/// mixes the two is no base64. A group of n characters holds n - 1 whole bytes.
fn base64(run: &[u8]) -> Option<Vec<u8>> {
    let standard = run.iter().any(|b| matches!(b, b'+' | b'/'));
    let url = run.iter().any(|b| matches!(b, b'-' | b'_'));
    if standard && url {
        return None;
    }
    let value = |b: u8| -> u32 {
        match b {
            b'A'..=b'Z' => u32::from(b - b'A'),
            b'a'..=b'z' => u32::from(b - b'a') + 26,
            b'0'..=b'9' => u32::from(b - b'0') + 52,
            b'+' | b'-' => 62,
            _ => 63,
        }
    };
    let mut out = Vec::with_capacity(run.len() * 3 / 4);
    for group in run.chunks(4) {
        let bits =
            group.iter().fold(0u32, |acc, &b| (acc << 6) | value(b)) << (6 * (4 - group.len()));
        for j in 0..group.len().saturating_sub(1) {
            out.push((bits >> (16 - 8 * j)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::encode::reference_base64;

    fn text_of(text: &str) -> String {
        decoded(text)
            .map(|v| v.text().to_string())
            .unwrap_or_default()
    }

    #[test]
    fn base64_and_hex_runs_decode_where_they_stand() {
        let secret = "password = hunter2hunter2\n";
        let standard = reference_base64(secret.as_bytes(), false);
        let url = reference_base64(b"\xfb\xffpassword: s3cr3t-v4lue", true);
        let hex: String = secret.bytes().map(|b| format!("{b:02X}")).collect();
        let text = format!("data: {standard}\nurl={url};\nhex {hex}.");
        assert_eq!(
            text_of(&text),
            format!("{secret}\n\x1e\n\n\npassword: s3cr3t-v4lue\n\x1e\n{secret}\n\x1e\n")
        );
        // Unpadded, and cut before its end: what is whole decodes.
        let cut = &standard[..standard.len() - 3];
        assert!(text_of(cut).starts_with("password = hunter2hunter"));
    }

    #[test]
    fn a_decoded_range_maps_to_the_characters_of_its_bits() {
        let encoded = reference_base64(b"abcdefghijklmnopqrstuvwxyz", false);
        let text = format!("x {encoded} y");
        let view = decoded(&text).unwrap();
        let at = view.text().find("def").unwrap();
        let (s, e) = view.original(at, at + 3);
        // Bytes 3..6 are the second group of four characters.
        assert_eq!(&text[s..e], &encoded[4..8]);
        let at = view.text().find("bc").unwrap();
        let (s, e) = view.original(at, at + 2);
        assert_eq!(&text[s..e], &encoded[1..4]);
    }

    #[test]
    fn binary_data_is_left_alone() {
        let binary: Vec<u8> = (0..600u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let text = format!(
            "img {} and {}",
            reference_base64(&binary, false),
            reference_base64(b"some text that is text", false)
        );
        assert_eq!(text_of(&text), "some text that is text\n\x1e\n");
    }

    #[test]
    fn short_runs_and_mixed_alphabets_are_left_alone() {
        for text in [
            "Compiling serde_json v1.0",
            "a/b-c/d_e+f/g-h/i_j",
            "src/lexer/token.rs:12:9",
        ] {
            assert_eq!(text_of(text), "", "{text}");
        }
    }
}
