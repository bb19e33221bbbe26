//! Decoding what a line hands over encoded, so that it is judged as it will run: base64 (the
//! standard and the URL-safe alphabet, padding and white space allowed), for `base64 -d` in a
//! pipe and PowerShell's `-EncodedCommand`.

/// The bytes `text` encodes in base64; `None` when it holds a character of neither alphabet.
pub(super) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for b in text.bytes() {
        let value = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b if b.is_ascii_whitespace() => continue,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_alphabets_and_white_space_decode() {
        assert_eq!(
            decode_base64("cm0gLXJmIH4=").as_deref(),
            Some(&b"rm -rf ~"[..])
        );
        assert_eq!(decode_base64("cm0g\nLXJm").as_deref(), Some(&b"rm -rf"[..]));
        assert_eq!(decode_base64("-_8").as_deref(), Some(&[0xfb, 0xff][..]));
        assert_eq!(decode_base64("not base64!"), None);
    }
}
