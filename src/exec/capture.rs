//! Bounded output capture: the first and last part of a command's output, however much it
//! prints. Memory stays fixed: a head buffer that stops growing, and a ring for the tail.

/// Keeps the first `half` bytes and the last `half` bytes of a stream, and counts the rest.
pub struct Capture {
    half: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    /// Where the ring's oldest byte is, once the ring is full.
    tail_start: usize,
    total: u64,
}

impl Capture {
    /// A capture that keeps about `max_chars` characters in all (head and tail halves; bytes
    /// are kept with room for multi-byte characters, then trimmed to characters at the end).
    pub fn new(max_chars: usize) -> Capture {
        let half = (max_chars / 2).max(1) * 4;
        Capture {
            half,
            head: Vec::with_capacity(half.min(64 * 1024)),
            tail: Vec::new(),
            tail_start: 0,
            total: 0,
        }
    }

    /// Takes the next chunk of output.
    pub fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        if self.head.len() < self.half {
            let take = (self.half - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.is_empty() {
            return;
        }
        if chunk.len() >= self.half {
            self.tail.clear();
            self.tail
                .extend_from_slice(&chunk[chunk.len() - self.half..]);
            self.tail_start = 0;
            return;
        }
        if self.tail.len() < self.half {
            let room = self.half - self.tail.len();
            let take = room.min(chunk.len());
            self.tail.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        for &b in chunk {
            self.tail[self.tail_start] = b;
            self.tail_start = (self.tail_start + 1) % self.half;
        }
    }

    /// Bytes seen in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The output as text: all of it when it fits in `max_chars`, else its first and last
    /// `max_chars / 2` characters with the cut marked in between.
    pub fn render(&self, max_chars: usize) -> String {
        let mut tail = Vec::with_capacity(self.tail.len());
        tail.extend_from_slice(&self.tail[self.tail_start..]);
        tail.extend_from_slice(&self.tail[..self.tail_start]);
        let kept = (self.head.len() + tail.len()) as u64;
        if kept == self.total {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            let text = String::from_utf8_lossy(&all);
            if text.chars().count() <= max_chars {
                return text.into_owned();
            }
        }
        let half = max_chars / 2;
        let head_text = String::from_utf8_lossy(&self.head);
        let head: String = head_text.chars().take(half).collect();
        // The tail may start inside a character: skip continuation bytes.
        let skip = tail
            .iter()
            .take_while(|&&b| b & 0b1100_0000 == 0b1000_0000)
            .count();
        let tail_text = String::from_utf8_lossy(&tail[skip..]);
        let tail_chars = tail_text.chars().count();
        let tail_kept: String = tail_text
            .chars()
            .skip(tail_chars.saturating_sub(half))
            .collect();
        let omitted = self.total - head.len() as u64 - tail_kept.len() as u64;
        format!(
            "{head}\n[… {omitted} bytes of output omitted: the command printed {} bytes; showing the first {} and last {} characters …]\n{tail_kept}",
            self.total,
            head.chars().count(),
            tail_kept.chars().count()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut c = Capture::new(100);
        c.push(b"hello\n");
        c.push(b"world\n");
        assert_eq!(c.render(100), "hello\nworld\n");
    }

    #[test]
    fn long_output_keeps_head_and_tail_in_fixed_memory() {
        let mut c = Capture::new(20);
        for i in 0..100_000u32 {
            c.push(format!("line {i:06}\n").as_bytes());
        }
        let text = c.render(20);
        assert!(
            text.starts_with("line 00000\n[… 1199980 bytes of output omitted"),
            "{text}"
        );
        assert!(text.ends_with("…]\nne 099999\n"), "{text}");
        assert!(
            text.contains("bytes of output omitted: the command printed 1200000 bytes"),
            "{text}"
        );
        assert!(
            c.head.capacity() <= 64 * 1024 && c.tail.len() <= 40,
            "bounded"
        );
    }

    #[test]
    fn big_chunks_and_multibyte_edges() {
        let mut c = Capture::new(10);
        c.push("é".repeat(1000).as_bytes());
        let text = c.render(10);
        assert!(text.starts_with("ééééé\n[…"), "{text}");
        assert!(
            text.ends_with("…]\néééééé") || text.ends_with("…]\nééééé"),
            "{text}"
        );
    }
}
