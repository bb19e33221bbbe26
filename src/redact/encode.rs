//! The strings a known secret shows up as when a command re-encodes it: base64 (standard and
//! URL-safe, at every byte alignment), hex (lower- and upper-case), URL percent-encoding, and
//! the value's characters in reverse order (`s[::-1]`, which a page shows forwards inside a
//! right-to-left override).
//!
//! Each is a needle for an exact search, computed once when the redactor is built. Encodings of
//! encodings, dumps and folded lines are not needles: the redactor decodes those in views
//! (`decode.rs`, `dump.rs`, `fold.rs`) and searches the needles there. What this does not cover:
//! other bases (base32, base58), compression, and percent-encodings that leave other bytes alone
//! than the three conventions below.

/// How a known value was written where it was found; named in the tag (`(base64)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoding {
    Plain,
    Base64,
    Base64Url,
    Hex,
    Url,
    Reversed,
}

impl Encoding {
    /// What the tag adds after the secret's name.
    pub(super) fn suffix(self) -> &'static str {
        match self {
            Encoding::Plain => "",
            Encoding::Base64 => " (base64)",
            Encoding::Base64Url => " (base64url)",
            Encoding::Hex => " (hex)",
            Encoding::Url => " (url-encoded)",
            Encoding::Reversed => " (reversed)",
        }
    }
}

/// One string to search for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Needle {
    pub(super) encoding: Encoding,
    pub(super) text: String,
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Which bytes the common percent-encoders leave as they are, besides ASCII letters and digits:
/// RFC 3986's unreserved set (form encoding, Go's `QueryEscape`), that and `/` (Python's
/// `quote`), that and `!'()*` (JavaScript's `encodeURIComponent`); `None`: every byte encoded
/// (`%41%42`, as an obfuscation does it).
const KEPT_BYTES: &[Option<&[u8]>] = &[Some(b"-._~"), Some(b"-._~/"), Some(b"-._~!'()*"), None];

/// The needles for `value`: the value itself first, then each distinct encoding of it that
/// differs from every earlier needle.
pub(super) fn needles(value: &str) -> Vec<Needle> {
    let bytes = value.as_bytes();
    let mut out = vec![Needle {
        encoding: Encoding::Plain,
        text: value.to_string(),
    }];
    let mut add = |encoding: Encoding, text: String| {
        if !text.is_empty() && !out.iter().any(|n| n.text == text) {
            out.push(Needle { encoding, text });
        }
    };
    for (encoding, alphabet) in [
        (Encoding::Base64, BASE64),
        (Encoding::Base64Url, BASE64_URL),
    ] {
        for filler in 0..3 {
            add(encoding, base64_core(bytes, filler, alphabet));
        }
    }
    add(Encoding::Hex, hex(bytes, b"0123456789abcdef"));
    add(Encoding::Hex, hex(bytes, b"0123456789ABCDEF"));
    for kept in KEPT_BYTES {
        for digits in [b"0123456789ABCDEF", b"0123456789abcdef"] {
            for plus in [false, true] {
                add(Encoding::Url, percent(bytes, *kept, digits, plus));
            }
        }
    }
    add(Encoding::Reversed, value.chars().rev().collect());
    out
}

/// The base64 characters of `bytes` when `filler` (0 to 2) unknown bytes come before it in the
/// encoded data: only the characters made of the value's bits alone. The first character or two
/// share bits with the filler and the last may share bits with what follows, so those are left
/// out; the core is then found wherever the value sits in a longer encoded string, padded or not.
fn base64_core(bytes: &[u8], filler: usize, alphabet: &[u8; 64]) -> String {
    let start_bit = 8 * filler;
    let end_bit = 8 * (filler + bytes.len());
    // Characters wholly inside [start_bit, end_bit): from ceil(start/6) to floor(end/6).
    let first = start_bit.div_ceil(6);
    let last = end_bit / 6;
    let bit = |at: usize| -> u8 {
        // Bit `at` of the filler-prefixed data, most significant first; the filler is zero.
        match at.checked_sub(start_bit) {
            Some(at) => bytes.get(at / 8).map_or(0, |b| (b >> (7 - at % 8)) & 1),
            None => 0,
        }
    };
    (first..last)
        .map(|c| {
            let index = (0..6).fold(0usize, |acc, i| (acc << 1) | usize::from(bit(6 * c + i)));
            char::from(alphabet[index])
        })
        .collect()
}

fn hex(bytes: &[u8], digits: &[u8; 16]) -> String {
    bytes
        .iter()
        .flat_map(|b| [digits[usize::from(b >> 4)], digits[usize::from(b & 0xf)]])
        .map(char::from)
        .collect()
}

/// `bytes` percent-encoded: every byte but ASCII letters, digits and `kept` (all of them when
/// `kept` is `None`) becomes `%XX`; a space becomes `+` when `plus` (form encoding).
fn percent(bytes: &[u8], kept: Option<&[u8]>, digits: &[u8; 16], plus: bool) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        if kept.is_some_and(|kept| b.is_ascii_alphanumeric() || kept.contains(&b)) {
            out.push(char::from(b));
        } else if plus && b == b' ' {
            out.push('+');
        } else {
            out.push('%');
            out.push(char::from(digits[usize::from(b >> 4)]));
            out.push(char::from(digits[usize::from(b & 0xf)]));
        }
    }
    out
}

/// A reference encoder with padding (`url`: the URL-safe alphabet), to check the cores against.
#[cfg(test)]
pub(super) fn reference_base64(bytes: &[u8], url: bool) -> String {
    let alphabet = if url { BASE64_URL } else { BASE64 };
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
        }
        for _ in chunk.len()..3 {
            out.push('=');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
        reference_base64(bytes, alphabet == BASE64_URL)
    }

    #[test]
    fn the_reference_encoder_is_right() {
        assert_eq!(base64(b"hello world", BASE64), "aGVsbG8gd29ybGQ=");
        assert_eq!(base64(b"ab", BASE64), "YWI=");
        assert_eq!(base64(b"\xfb\xff", BASE64_URL), "-_8=");
    }

    #[test]
    fn each_base64_core_sits_inside_the_encoding_at_its_alignment() {
        let value = b"s3cr3t-value/with?odd bytes\xc3\xa9";
        for alphabet in [BASE64, BASE64_URL] {
            for filler in 0..3 {
                let core = base64_core(value, filler, alphabet);
                assert!(core.len() + 3 >= value.len() * 4 / 3, "{core}");
                // Whatever comes before (at this alignment) and after, the core is in the
                // encoding of the whole.
                for before in [0u8, b'q', 0xff] {
                    for after in [&b""[..], b"!", b"??", b"\x00\x00\x00"] {
                        let mut data = b"abc".to_vec();
                        data.extend(std::iter::repeat_n(before, filler));
                        data.extend_from_slice(value);
                        data.extend_from_slice(after);
                        let encoded = base64(&data, alphabet);
                        assert!(
                            encoded.contains(&core),
                            "filler {filler}, after {after:?}: {core} not in {encoded}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_aligned_core_is_the_unpadded_encoding_but_its_last_partial_character() {
        assert_eq!(base64_core(b"hello world", 0, BASE64), "aGVsbG8gd29ybG");
        assert_eq!(base64_core(b"abc", 0, BASE64), "YWJj");
        // After one filler byte, the first two characters hold filler bits (`AGhl…`).
        assert_eq!(base64(b"\0hello world", BASE64), "AGhlbGxvIHdvcmxk");
        assert_eq!(base64_core(b"hello world", 1, BASE64), "hlbGxvIHdvcmxk");
        assert_eq!(base64_core(b"hello world", 2, BASE64), "oZWxsbyB3b3JsZ");
    }

    #[test]
    fn hex_and_percent_encodings() {
        let found = needles("a b/c+é");
        let texts: Vec<(&str, Encoding)> = found
            .iter()
            .map(|n| (n.text.as_str(), n.encoding))
            .collect();
        for expected in [
            ("a b/c+é", Encoding::Plain),
            ("6120622f632bc3a9", Encoding::Hex),
            ("6120622F632BC3A9", Encoding::Hex),
            ("a%20b%2Fc%2B%C3%A9", Encoding::Url),
            ("a+b%2Fc%2B%C3%A9", Encoding::Url),
            ("a%20b%2fc%2b%c3%a9", Encoding::Url),
            ("a%20b/c%2B%C3%A9", Encoding::Url),
            ("%61%20%62%2F%63%2B%C3%A9", Encoding::Url),
            ("%61+%62%2f%63%2b%c3%a9", Encoding::Url),
            ("é+c/b a", Encoding::Reversed),
        ] {
            assert!(texts.contains(&expected), "{expected:?} not in {texts:?}");
        }
    }

    #[test]
    fn needles_are_distinct_and_the_value_comes_first() {
        // Nothing an ordinary percent-encoder encodes, no `+` or `/` in its base64, hex without
        // letters: the duplicates go.
        let found = needles("00000000");
        assert_eq!(found[0].text, "00000000");
        for (i, a) in found.iter().enumerate() {
            assert!(found[i + 1..].iter().all(|b| b.text != a.text), "{found:?}");
        }
        // Only the every-byte percent-encoding differs from the value; its two cases agree.
        assert_eq!(
            found.iter().filter(|n| n.encoding == Encoding::Url).count(),
            1,
            "{found:?}"
        );
        assert_eq!(
            found.iter().filter(|n| n.encoding == Encoding::Hex).count(),
            1,
            "{found:?}"
        );
    }
}
