//! The line loop: the reply read from top to bottom, each line a block's header, its `@@end`,
//! a section's opener, `@@eof` or stray text; and what the whole reply must hold once read
//! (not both `@@next` and `@@done`, more than `@@say`).

use super::fence::fence_opener;
use super::{OpenBlock, Parser, header_word, quote};
use crate::catalog::Code;
use crate::protocol::ast::CommandKind;

impl Parser<'_> {
    pub(super) fn run(&mut self, start: usize, end: usize, truncated: bool) {
        let mut open: Option<OpenBlock> = None;
        let mut eof_at: Option<usize> = None;
        let mut i = start;
        while i < end {
            let trimmed = self.lines[i].trim();
            if trimmed.is_empty() {
                i += 1;
                continue;
            }
            if let Some((name, rest)) = header_word(trimmed) {
                if name.eq_ignore_ascii_case("end") {
                    match open.take() {
                        Some(block) => {
                            if !rest.is_empty() {
                                self.report(
                                    Code::ParseStrayText,
                                    Some(i + 1),
                                    format!(
                                        "Text after @@end: {}. @@end stands alone on its line.",
                                        quote(rest)
                                    ),
                                );
                            }
                            self.finish(block);
                        }
                        None => self.report(
                            Code::ParseStrayText,
                            Some(i + 1),
                            "@@end without an open block. Every @@end closes the block its @@command opened."
                                .to_string(),
                        ),
                    }
                    i += 1;
                    continue;
                }
                if let Some(block) = open.take() {
                    let kind = block.kind.map_or("block", CommandKind::name);
                    self.report(
                        Code::ParseUnterminatedBlock,
                        Some(block.line),
                        format!(
                            "@@{kind} (line {}) has no @@end before line {}. Close every block with @@end.",
                            block.line,
                            i + 1
                        ),
                    );
                }
                if name.eq_ignore_ascii_case("eof") {
                    if !rest.is_empty() {
                        self.report(
                            Code::ParseTextAfterEof,
                            Some(i + 1),
                            format!(
                                "Text after @@eof: {}. @@eof stands alone on the last line.",
                                quote(rest)
                            ),
                        );
                    }
                    eof_at = Some(i);
                    break;
                }
                open = Some(self.open_block(name, rest, i + 1));
                i += 1;
                continue;
            }
            if let Some(block) = open.as_mut() {
                if trimmed.starts_with("<<<") {
                    i = self.section(block, i, end);
                    continue;
                }
                let (count, next) = self.stray_run(i, end);
                let kind = block.kind.map_or("block", CommandKind::name);
                self.report(
                    Code::ParseStrayText,
                    Some(i + 1),
                    format!(
                        "Text inside @@{kind} (line {}) but outside a section: {}{}. Put text in a <<<NAME … NAME>>> section.",
                        block.line,
                        quote(trimmed),
                        lines_note(count)
                    ),
                );
                i = next;
            } else {
                let (count, next) = self.stray_run(i, end);
                let hint = if trimmed.starts_with("<<<") {
                    " Sections belong inside a block (@@command … @@end)."
                } else {
                    " Put anything you want to tell the user in a @@say block."
                };
                self.report(
                    Code::ParseStrayText,
                    Some(i + 1),
                    format!(
                        "Text outside blocks: {}{}.{hint}",
                        quote(trimmed),
                        lines_note(count)
                    ),
                );
                i = next;
            }
        }

        if let Some(block) = open.filter(|b| !b.reported) {
            let kind = block.kind.map_or("block", CommandKind::name);
            self.report(
                Code::ParseUnterminatedBlock,
                Some(block.line),
                format!("@@{kind} (line {}) is never closed with @@end.", block.line),
            );
        }
        self.closed = eof_at.is_some();
        match eof_at {
            Some(eof) => {
                if let Some(after) = (eof + 1..end).find(|&j| !invisible(self.lines[j])) {
                    self.report(
                        Code::ParseTextAfterEof,
                        Some(after + 1),
                        format!(
                            "Text after @@eof: {}. Nothing may follow @@eof.",
                            quote(self.lines[after])
                        ),
                    );
                }
            }
            None if truncated => self.report(
                Code::ParseMissingEof,
                None,
                "Missing \"@@eof\" at the end (the response looks truncated).".to_string(),
            ),
            // The last line is an @@eof that an unclosed section swallowed; that section's
            // report says what went wrong.
            None => {}
        }
        self.check_control();
    }

    /// Counts a run of stray lines (up to a blank line, a header, a marker or a fence line) and returns the
    /// count and the index after it.
    fn stray_run(&self, from: usize, end: usize) -> (usize, usize) {
        // A fence line is a problem of its own, never folded into the prose around it.
        if fence_opener(self.lines[from].trim()).is_some() {
            return (1, from + 1);
        }
        let mut j = from + 1;
        while j < end {
            let t = self.lines[j].trim();
            if t.is_empty() || t.starts_with("@@") || t.starts_with("<<<") {
                break;
            }
            if fence_opener(t).is_some() {
                break;
            }
            j += 1;
        }
        (j - from, j)
    }

    fn check_control(&mut self) {
        let first = |kind| self.headers.iter().find(|h| h.kind == kind).map(|h| h.line);
        let (next, done) = (first(CommandKind::Next), first(CommandKind::Done));
        if let (Some(next), Some(done)) = (next, done) {
            self.report(
                Code::ParseConflictingControl,
                Some(next.max(done)),
                format!(
                    "The response has both @@next (line {next}) and @@done (line {done}); use one: @@next to get results and continue, @@done when the task is finished."
                ),
            );
        }
        // A broken reply's intent is unclear; its other problems are reported instead.
        let only_say = self.headers.iter().all(|h| h.kind == CommandKind::Say);
        if only_say && self.diagnostics.is_empty() {
            let message = if self.headers.is_empty() {
                "The response holds no commands. Send the next commands, or @@done when the task is finished."
            } else {
                "The response holds only @@say blocks. Add the next commands, or @@done when the task is finished (@@next if you only want to wait)."
            };
            self.report(Code::ParseSayOnly, None, message.to_string());
        }
    }
}

fn lines_note(count: usize) -> String {
    if count > 1 {
        format!(" ({count} lines)")
    } else {
        String::new()
    }
}

/// Whether a line shows nothing: white space, and the characters of zero width a page may
/// leave after a block it copied (a zero-width space, joiners, a byte-order mark).
fn invisible(line: &str) -> bool {
    line.chars().all(|c| {
        c.is_whitespace()
            || matches!(
                c,
                '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}'
            )
    })
}
