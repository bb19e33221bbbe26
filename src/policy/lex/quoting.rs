//! The reader's less common forms: heredoc bodies and bash's ANSI-C `$'…'` quoting.

use super::{PendingHeredoc, Reader, Word};

impl Reader<'_> {
    /// After a newline: reads the bodies of the heredocs opened on the line just ended.
    pub(super) fn read_heredoc_bodies(&mut self) {
        for heredoc in std::mem::take(&mut self.pending_heredocs) {
            let PendingHeredoc {
                delimiter,
                expands,
                strip_tabs: strip,
            } = heredoc;
            let mut body = String::new();
            let mut closed = false;
            while self.pos < self.src.len() {
                let end = self
                    .rest()
                    .find('\n')
                    .map_or(self.src.len(), |i| self.pos + i);
                let line = &self.src[self.pos..end];
                self.pos = (end + 1).min(self.src.len());
                let candidate = if strip {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if candidate == delimiter {
                    closed = true;
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if !closed {
                self.problems.push(format!(
                    "the heredoc ending with {delimiter} is never closed"
                ));
            }
            let literal = !expands || !body.contains(['$', '`']);
            if expands {
                let (problems, subs) = super::expand::read_word_subs(&body, self.depth + 1);
                self.problems.extend(problems);
                self.heredoc_subs.extend(subs);
            }
            self.heredoc_bodies.push((body, literal));
        }
    }

    /// `$'…'`: bash's ANSI-C quoting, decoded (so `$'\x72m'` is seen as `rm`).
    pub(super) fn ansi_c_quoted(&mut self, word: &mut Word) {
        loop {
            let Some(c) = self.bump() else {
                self.problems
                    .push("a $'…' quote is never closed".to_string());
                return;
            };
            match c {
                '\'' => return,
                '\\' => {
                    let Some(e) = self.bump() else { continue };
                    let decoded = match e {
                        'a' => Some('\u{7}'),
                        'b' => Some('\u{8}'),
                        'e' | 'E' => Some('\u{1b}'),
                        'f' => Some('\u{c}'),
                        'n' => Some('\n'),
                        'r' => Some('\r'),
                        't' => Some('\t'),
                        'v' => Some('\u{b}'),
                        '\\' | '\'' | '"' | '?' => Some(e),
                        'x' => self.radix_digits(16, 2),
                        'u' => self.radix_digits(16, 4),
                        'U' => self.radix_digits(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.radix_digits(8, 3)
                        }
                        _ => {
                            word.value.push('\\');
                            Some(e)
                        }
                    };
                    match decoded {
                        Some(d) => word.value.push(d),
                        None => self
                            .problems
                            .push("an escape in $'…' could not be decoded".to_string()),
                    }
                }
                c => word.value.push(c),
            }
        }
    }

    fn radix_digits(&mut self, radix: u32, max: usize) -> Option<char> {
        let digits: String = self
            .rest()
            .chars()
            .take(max)
            .take_while(|c| c.is_digit(radix))
            .collect();
        self.pos += digits.len();
        u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
    }
}
