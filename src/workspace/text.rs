//! Pure text handling for file commands: decoding, line endings, and the verified line.
//!
//! keyless edits UTF-8 text only (with or without a BOM). Matching runs on LF-normalised text;
//! every edit is mapped back to the original bytes so that bytes it did not change stay as they
//! were, whatever mix of CRLF and LF the file holds.

use sha2::{Digest, Sha256};

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";
/// How far into a file a NUL byte marks it as binary.
const BINARY_SNIFF_BYTES: usize = 8_000;
/// Characters of the file's start and end the verified line quotes.
const SNIPPET_CHARS: usize = 60;
/// The verified line's maximum length, in characters.
const VERIFIED_MAX_CHARS: usize = 300;

/// A line ending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eol {
    Lf,
    CrLf,
}

impl Eol {
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
        }
    }

    /// The ending a new file gets when nothing else decides: the platform's.
    pub fn platform() -> Eol {
        if cfg!(windows) { Eol::CrLf } else { Eol::Lf }
    }
}

/// A decoded text file: its BOM flag and its text exactly as on disk (endings not normalised).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextFile {
    pub bom: bool,
    pub text: String,
}

impl TextFile {
    /// Encodes back to bytes, BOM first when the file had one.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text.len() + 3);
        if self.bom {
            out.extend_from_slice(BOM);
        }
        out.extend_from_slice(self.text.as_bytes());
        out
    }
}

/// Decodes file bytes as UTF-8 text, refusing binary files and other encodings with a reason
/// written for the model.
pub fn decode(bytes: Vec<u8>) -> Result<TextFile, String> {
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err("is UTF-16 text; keyless reads and edits UTF-8 files only (convert it first, or leave it alone)".to_string());
    }
    let bom = bytes.starts_with(BOM);
    let body = if bom { bytes[3..].to_vec() } else { bytes };
    if body[..body.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(
            "is a binary file (it contains NUL bytes); keyless reads and edits text files only"
                .to_string(),
        );
    }
    match String::from_utf8(body) {
        Ok(text) => Ok(TextFile { bom, text }),
        Err(e) => Err(format!(
            "is not UTF-8 text (invalid byte at offset {}); keyless reads and edits UTF-8 files only, so it was left untouched",
            e.utf8_error().valid_up_to() + if bom { 3 } else { 0 }
        )),
    }
}

/// Counts `(crlf, lone_lf)` line endings.
pub fn count_endings(text: &str) -> (usize, usize) {
    let bytes = text.as_bytes();
    let mut crlf = 0;
    let mut lf = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            if i > 0 && bytes[i - 1] == b'\r' {
                crlf += 1;
            } else {
                lf += 1;
            }
        }
    }
    (crlf, lf)
}

/// The ending most of the text's lines use; `None` when it has no line ending. A tie goes to LF.
pub fn dominant(text: &str) -> Option<Eol> {
    match count_endings(text) {
        (0, 0) => None,
        (crlf, lf) if crlf > lf => Some(Eol::CrLf),
        _ => Some(Eol::Lf),
    }
}

/// The text with every CRLF turned into LF. A lone CR is content and stays.
pub fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains("\r\n") {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// LF text with each LF written as `eol`.
pub fn with_eol(lf_text: &str, eol: Eol) -> String {
    match eol {
        Eol::Lf => lf_text.to_string(),
        Eol::CrLf => lf_text.replace('\n', "\r\n"),
    }
}

/// Payload text as a file body: each line followed by `eol`; empty text is an empty file.
pub fn file_body(content: &str, eol: Eol) -> String {
    if content.is_empty() {
        return String::new();
    }
    let mut out = with_eol(content, eol);
    out.push_str(eol.as_str());
    out
}

/// Maps byte offsets of the LF-normalised text to offsets of the original. `offsets` must be
/// sorted. An offset at a normalised `\n` that came from CRLF maps to its `\r`, so a range that
/// starts or ends at a line break keeps the whole CRLF together.
pub fn original_offsets(original: &str, offsets: &[usize]) -> Vec<usize> {
    let bytes = original.as_bytes();
    let mut out = Vec::with_capacity(offsets.len());
    let mut crs_before = 0;
    let mut scanned = 0; // original bytes examined
    for &target in offsets {
        // Advance until the normalised position `scanned - crs_before` reaches `target`.
        while scanned < bytes.len() && scanned - crs_before < target {
            if bytes[scanned] == b'\r' && bytes.get(scanned + 1) == Some(&b'\n') {
                crs_before += 1;
            }
            scanned += 1;
        }
        // A CR that begins a CRLF at this point is skipped over by normalisation: step past it
        // only when the target lies beyond the line break, never at it.
        out.push(scanned);
    }
    out
}

/// 1-based line number of a byte offset in LF text.
pub fn line_of(lf_text: &str, offset: usize) -> usize {
    lf_text.as_bytes()[..offset.min(lf_text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Lines in LF-normalised text: every line break, plus an unterminated last line.
pub fn count_lines(text: &str) -> usize {
    let breaks = text.bytes().filter(|&b| b == b'\n').count();
    breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Escapes a snippet so newlines and quotes stay on one unambiguous line.
fn escape_snippet(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The first 8 hex digits of the SHA-256 of `bytes`.
pub fn short_sha(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// The compact line a model can trust instead of re-reading a file it just wrote:
/// `verified: path=<p> bytes=<n> lines=<n> sha=<8 hex> first="…" last="…"`.
pub fn verified_line(path: &str, bytes: &[u8]) -> String {
    let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
    // CRLF and LF both end in one \n, so lines can be counted on the raw bytes.
    let breaks = body.iter().filter(|&&b| b == b'\n').count();
    let lines = breaks + usize::from(!body.is_empty() && !body.ends_with(b"\n"));
    // Only the edges are quoted: decode just enough bytes for 60 characters at each end.
    let edge = SNIPPET_CHARS * 4;
    let head_text = String::from_utf8_lossy(&body[..body.len().min(edge)]);
    let mut tail_start = body.len().saturating_sub(edge);
    while tail_start < body.len() && (body[tail_start] & 0b1100_0000) == 0b1000_0000 {
        tail_start += 1;
    }
    let tail_text = String::from_utf8_lossy(&body[tail_start..]);
    let head = |n: usize| -> String { head_text.chars().take(n).collect() };
    let tail = |n: usize| -> String {
        let start = tail_text
            .char_indices()
            .rev()
            .take(n)
            .last()
            .map_or(tail_text.len(), |(i, _)| i);
        tail_text[start..].to_string()
    };
    let sha = short_sha(bytes);
    let mut n = SNIPPET_CHARS;
    loop {
        let line = format!(
            "verified: path={path} bytes={} lines={lines} sha={sha} first=\"{}\" last=\"{}\"",
            bytes.len(),
            escape_snippet(&head(n)),
            escape_snippet(&tail(n))
        );
        if line.chars().count() <= VERIFIED_MAX_CHARS {
            return line;
        }
        if n == 0 {
            // Only a very long path can get here: cut the line itself.
            return line
                .chars()
                .take(VERIFIED_MAX_CHARS - 1)
                .collect::<String>()
                + "…";
        }
        n = n.saturating_sub(10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_keeps_bom_and_refuses_binary_and_other_encodings() {
        let file = decode(b"\xEF\xBB\xBFhi\r\n".to_vec()).unwrap();
        assert!(file.bom);
        assert_eq!(file.text, "hi\r\n");
        assert_eq!(file.to_bytes(), b"\xEF\xBB\xBFhi\r\n");
        assert!(decode(b"a\0b".to_vec()).unwrap_err().contains("binary"));
        assert!(
            decode(b"\xFF\xFEh\0".to_vec())
                .unwrap_err()
                .contains("UTF-16")
        );
        assert!(
            decode(b"caf\xE9".to_vec())
                .unwrap_err()
                .contains("offset 3")
        );
    }

    #[test]
    fn dominant_ending() {
        assert_eq!(dominant("a\r\nb\r\nc\n"), Some(Eol::CrLf));
        assert_eq!(dominant("a\nb\r\n"), Some(Eol::Lf));
        assert_eq!(dominant("a\rb"), None);
        assert_eq!(count_endings("a\r\nb\n\r\n"), (2, 1));
    }

    #[test]
    fn offsets_map_back_through_crlf() {
        let original = "ab\r\ncd\r\nef";
        let norm = normalize(original);
        assert_eq!(norm, "ab\ncd\nef");
        // "cd" is at 3..5 normalised, 4..6 original; "\ncd\n" at 2..6 → 2..8.
        assert_eq!(original_offsets(original, &[3, 5]), vec![4, 6]);
        assert_eq!(original_offsets(original, &[2, 6]), vec![2, 8]);
        assert_eq!(original_offsets(original, &[0, 8]), vec![0, 10]);
    }

    #[test]
    fn file_body_ends_every_line() {
        assert_eq!(file_body("a\nb", Eol::CrLf), "a\r\nb\r\n");
        assert_eq!(file_body("", Eol::CrLf), "");
        assert_eq!(file_body("a\n", Eol::Lf), "a\n\n");
    }

    #[test]
    fn verified_line_format() {
        let line = verified_line("src/a.txt", b"one\r\ntwo\r\n");
        assert_eq!(
            line,
            "verified: path=src/a.txt bytes=10 lines=2 sha=".to_string()
                + &short_sha(b"one\r\ntwo\r\n")
                + " first=\"one\\r\\ntwo\\r\\n\" last=\"one\\r\\ntwo\\r\\n\""
        );
        let long = "x\n".repeat(500);
        let line = verified_line(&"p/".repeat(100), long.as_bytes());
        assert!(line.chars().count() <= 300, "{line}");
        assert_eq!(
            verified_line("e", b""),
            format!(
                "verified: path=e bytes=0 lines=0 sha={} first=\"\" last=\"\"",
                short_sha(b"")
            )
        );
    }
}
