//! A view of a text: what a reader would read in it once something is taken out (escape
//! sequences, line breaks) or decoded (a hex dump, base64), and the way from a range of the view
//! back to the bytes of the text it came from.
//!
//! The redactor searches a view as it searches a text, and replaces the original range a hit
//! came from. A view of a view maps back one step at a time (see `Redactor::spans`).
//!
//! Four kinds of map: stretches copied as they are ([`View::without`]: one byte of the view is
//! one byte of the text), decoded bytes each with its own range ([`Decoded`]: a dump's byte
//! stands for its digits and the rest of its line), decoded runs laid out by a rule
//! ([`Piece`]: a hex byte is two digits, three base64 bytes are four characters), which take a
//! few words per run instead of two per byte, and characters written another way one after
//! another ([`Rewritten`]: `\u0073` is `s`, `ｓ` is `s`; a stretch of units of one size takes a
//! few words, however long). What it does not do: find what to remove or decode (`escapes.rs`,
//! `fold.rs`, `dump.rs`, `decode.rs`, `glance.rs` do).

/// A stretch of the text kept in the view: where it starts in each.
#[derive(Clone, Copy, Debug)]
struct Run {
    view: usize,
    original: usize,
}

/// A stretch of decoded data in a view: its byte `k` stands for the `width` characters at
/// `source + (k / group) * chars + k % group` (hex: a group of 1 byte in 2 characters; base64: 3
/// bytes in 4, each byte in 2 of them). A separator stands for nothing (`width` 0).
#[derive(Clone, Copy, Debug)]
pub(super) struct Piece {
    pub(super) view: usize,
    pub(super) source: usize,
    pub(super) group: usize,
    pub(super) chars: usize,
    pub(super) width: usize,
}

impl Piece {
    fn span(&self, at: usize) -> (usize, usize) {
        let k = at - self.view;
        let start = self.source + (k / self.group) * self.chars + k % self.group;
        (start, start + self.width)
    }
}

/// A stretch of a [`Rewritten`] view whose units all have one size: unit `k` is `view_len`
/// bytes of the view that stand for the `source_len` bytes of the text at
/// `source + k * source_len`. Text copied as it is has units of one byte for one byte.
#[derive(Clone, Copy, Debug)]
struct Stretch {
    view: usize,
    source: usize,
    view_len: usize,
    source_len: usize,
}

impl Stretch {
    fn span(&self, at: usize) -> (usize, usize) {
        let start = self.source + (at - self.view) / self.view_len * self.source_len;
        (start, start + self.source_len)
    }
}

#[derive(Debug)]
enum Map {
    /// Every kept stretch, in order, none empty.
    Runs(Vec<Run>),
    /// For each byte of the view, the range of the text it stands for.
    Bytes(Vec<(usize, usize)>),
    /// Stretches of decoded data, in order.
    Pieces(Vec<Piece>),
    /// Stretches of units of one size, in order, none empty.
    Stretches(Vec<Stretch>),
}

/// A text as a reader would read it once something is removed or decoded.
#[derive(Debug)]
pub(super) struct View {
    text: String,
    map: Map,
}

impl View {
    /// The view of `text` without the byte ranges `removed` (sorted, disjoint, each starting
    /// and ending on a character boundary), or `None` when there are none.
    pub(super) fn without(text: &str, removed: &[(usize, usize)]) -> Option<View> {
        if removed.is_empty() {
            return None;
        }
        let mut text_out = String::with_capacity(text.len());
        let mut runs = Vec::new();
        let mut keep = |start: usize, end: usize| {
            if let Some(part) = text.get(start..end).filter(|p| !p.is_empty()) {
                runs.push(Run {
                    view: text_out.len(),
                    original: start,
                });
                text_out.push_str(part);
            }
        };
        let mut kept = 0;
        for &(start, end) in removed {
            keep(kept, start);
            kept = end.max(kept);
        }
        keep(kept, text.len());
        Some(View {
            text: text_out,
            map: Map::Runs(runs),
        })
    }

    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// The range of the text that the view's `start..end` (not empty) came from: from where its
    /// first byte came from to where its last one did, with everything between them.
    pub(super) fn original(&self, start: usize, end: usize) -> (usize, usize) {
        match &self.map {
            Map::Runs(runs) => {
                let position = |at: usize| {
                    let run = runs.partition_point(|r| r.view <= at).saturating_sub(1);
                    runs.get(run).map_or(at, |r| r.original + (at - r.view))
                };
                (position(start), position(end - 1) + 1)
            }
            Map::Bytes(spans) => {
                let first = spans.get(start).map_or(0, |s| s.0);
                let last = spans.get(end - 1).map_or(first, |s| s.1);
                (first, last.max(first))
            }
            Map::Pieces(pieces) => {
                let span = |at: usize| {
                    let piece = pieces.partition_point(|p| p.view <= at).saturating_sub(1);
                    pieces.get(piece).map_or((at, at), |p| p.span(at))
                };
                let first = span(start).0;
                (first, span(end - 1).1.max(first))
            }
            Map::Stretches(stretches) => {
                let span = |at: usize| {
                    let i = stretches
                        .partition_point(|s| s.view <= at)
                        .saturating_sub(1);
                    stretches.get(i).map_or((at, at), |s| s.span(at))
                };
                let first = span(start).0;
                (first, span(end - 1).1.max(first))
            }
        }
    }
}

/// A view of a text built from its start to its end, a unit at a time: each stretch of the text
/// either copied as it is or rewritten (a character written another way, read as the one it
/// stands for). Consecutive units of one size are one [`Stretch`].
#[derive(Default)]
pub(super) struct Rewritten {
    text: String,
    stretches: Vec<Stretch>,
    /// Whether any unit was rewritten (else the view would be the text).
    rewritten: bool,
}

impl Rewritten {
    /// Appends `text[start..end]` as it is.
    pub(super) fn copy(&mut self, text: &str, start: usize, end: usize) {
        if let Some(part) = text.get(start..end).filter(|p| !p.is_empty()) {
            // Copied bytes are units of one byte each, one stretch however many.
            self.unit(1, start, 1);
            self.text.push_str(part);
        }
    }

    /// Appends `read`, which stands for the text's `start..end` (not empty).
    pub(super) fn rewrite(&mut self, read: &str, start: usize, end: usize) {
        if read.is_empty() || end <= start {
            return;
        }
        self.rewritten = true;
        self.unit(read.len(), start, end - start);
        self.text.push_str(read);
    }

    /// Leaves out what comes next in the text (the next copy starts after it): the view differs
    /// from the text.
    pub(super) fn skip(&mut self) {
        self.rewritten = true;
    }

    /// Records a unit of `view_len` bytes (copied text counts as units of one byte) that stands
    /// for `source_len` bytes at `source`: one more unit of the last stretch when it has units
    /// of this size and ends where this one starts.
    fn unit(&mut self, view_len: usize, source: usize, source_len: usize) {
        let view = self.text.len();
        if let Some(last) = self.stretches.last() {
            let units = (view - last.view) / last.view_len;
            if last.view_len == view_len
                && last.source_len == source_len
                && last.source + units * last.source_len == source
            {
                return;
            }
        }
        self.stretches.push(Stretch {
            view,
            source,
            view_len,
            source_len,
        });
    }

    /// The view, with the rest of `text` from `from` copied, or `None` when nothing was
    /// rewritten (then nothing more is copied).
    pub(super) fn finish(mut self, text: &str, from: usize) -> Option<View> {
        if !self.rewritten {
            return None;
        }
        self.copy(text, from, text.len());
        Some(View {
            text: self.text,
            map: Map::Stretches(self.stretches),
        })
    }
}

/// What keeps two runs of decoded bytes apart in a view, between line breaks.
pub(super) const SEPARATOR: u8 = 0x1e;

/// What a run of decoded bytes becomes a [`View`] through: each byte with the range of the text
/// it stands for, runs apart from each other by a line break.
#[derive(Default)]
pub(super) struct Decoded {
    bytes: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl Decoded {
    /// Adds one decoded byte that stands for `text[start..end]`.
    pub(super) fn push(&mut self, byte: u8, start: usize, end: usize) {
        self.bytes.push(byte);
        self.spans.push((start, end));
    }

    /// Ends a run of decoded bytes at `at` in the text: what follows is read apart from it. The
    /// separator is a line of its own holding an information separator (U+001E), which no rule
    /// reads as part of a secret and no joining of lines removes.
    pub(super) fn separate(&mut self, at: usize) {
        if self.bytes.last().is_some_and(|&b| b != SEPARATOR) {
            for b in [b'\n', SEPARATOR, b'\n'] {
                self.push(b, at, at);
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The view, or `None` when nothing was decoded.
    pub(super) fn view(self) -> Option<View> {
        Some(View {
            text: text_of(self.bytes)?,
            map: Map::Bytes(self.spans),
        })
    }
}

/// The view of decoded bytes laid out in `pieces`, or `None` when nothing was decoded.
pub(super) fn pieces(bytes: Vec<u8>, pieces: Vec<Piece>) -> Option<View> {
    Some(View {
        text: text_of(bytes)?,
        map: Map::Pieces(pieces),
    })
}

/// Decoded bytes as text, or `None` when they are only separators. Bytes that are not UTF-8
/// (binary data, or text cut in the middle of a character) read as line breaks, one for one, so
/// that the view stays text and nothing glues across them.
fn text_of(mut bytes: Vec<u8>) -> Option<String> {
    if bytes.iter().all(|&b| b == b'\n' || b == SEPARATOR) {
        return None;
    }
    let mut at = 0;
    while at < bytes.len() {
        match std::str::from_utf8(&bytes[at..]) {
            Ok(_) => break,
            Err(e) => {
                let bad = at + e.valid_up_to();
                let len = e.error_len().unwrap_or(bytes.len() - bad);
                bytes[bad..bad + len].fill(b'\n');
                at = bad + len;
            }
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_without_removed_parts_maps_back_with_them() {
        let text = "ab XXsecYYret cd";
        let v = View::without(text, &[(3, 5), (8, 10)]).unwrap();
        assert_eq!(v.text(), "ab secret cd");
        let (s, e) = v.original(3, 9);
        assert_eq!(&text[s..e], "secYYret");
        assert_eq!(v.original(0, 2), (0, 2));
        assert!(View::without(text, &[]).is_none());
    }

    #[test]
    fn rewritten_units_map_to_what_they_stand_for_in_few_stretches() {
        // `ab`, then three fullwidth letters (3 bytes each), then `\u00e9` (6 for 2), `cd`.
        let text = "ab\u{ff53}\u{ff4b}\u{ff50}\\u00e9cd";
        let mut out = Rewritten::default();
        out.copy(text, 0, 2);
        for (i, c) in ["s", "k", "p"].iter().enumerate() {
            out.rewrite(c, 2 + 3 * i, 5 + 3 * i);
        }
        out.rewrite("\u{e9}", 11, 17);
        let view = out.finish(text, 17).unwrap();
        assert_eq!(view.text(), "abskp\u{e9}cd");
        let Map::Stretches(stretches) = &view.map else {
            panic!("{view:?}");
        };
        // Copied, three letters of one size, one of another, copied.
        assert_eq!(stretches.len(), 4, "{stretches:?}");
        assert_eq!(view.original(2, 5), (2, 11));
        assert_eq!(view.original(3, 4), (5, 8));
        // Either byte of `é` stands for its whole escape.
        assert_eq!(view.original(6, 7), (11, 17));
        assert_eq!(view.original(5, 8), (11, 18));
        assert_eq!(view.original(0, 9), (0, 19));
        // Nothing rewritten: no view.
        let mut same = Rewritten::default();
        same.copy(text, 0, 5);
        assert!(same.finish(text, 5).is_none());
        let mut skipped = Rewritten::default();
        skipped.copy(text, 0, 1);
        skipped.skip();
        let view = skipped.finish(text, 2).unwrap();
        assert_eq!(view.original(0, 2), (0, 3));
    }

    #[test]
    fn decoded_bytes_map_to_what_they_stand_for_and_binary_reads_as_breaks() {
        let mut d = Decoded::default();
        for (i, b) in b"ok\xff\xfe".iter().enumerate() {
            d.push(*b, 10 + 2 * i, 12 + 2 * i);
        }
        d.separate(18);
        d.push(b'z', 20, 22);
        let v = d.view().unwrap();
        assert_eq!(v.text(), "ok\n\n\n\u{1e}\nz");
        assert_eq!(v.original(0, 2), (10, 14));
        assert_eq!(v.original(1, 8), (12, 22));
        assert!(Decoded::default().view().is_none());
    }
}
