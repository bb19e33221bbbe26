//! One section between its markers: the opener checked (name, nonce), its content taken up to
//! its own end marker, and a section that never ends.

use super::{OpenBlock, Parser, SectionText, header_word, quote};
use crate::catalog::Code;
use crate::protocol::ast::{CommandKind, Section};

/// The longest nonce a section marker may carry.
const MAX_NONCE_LEN: usize = 32;

impl Parser<'_> {
    /// Reads the section whose opener is at `at`; returns the index after it.
    pub(super) fn section(&mut self, block: &mut OpenBlock, at: usize, end: usize) -> usize {
        let trimmed = self.lines[at].trim();
        let marker = &trimmed[3..];
        let (name, nonce) = match marker.split_once(':') {
            Some((name, nonce)) => (name, Some(nonce)),
            None => (marker, None),
        };
        let section = Section::from_name(name);
        let nonce_ok = nonce.is_none_or(|n| {
            !n.is_empty()
                && n.len() <= MAX_NONCE_LEN
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        });
        if section.is_none() || !nonce_ok {
            let why = if section.is_none() {
                match Section::ALL
                    .iter()
                    .find(|s| s.name().eq_ignore_ascii_case(name))
                {
                    Some(s) => format!("section names are uppercase: write <<<{}", s.name()),
                    None => format!(
                        "section names are {}",
                        Section::ALL.map(Section::name).join(", ")
                    ),
                }
            } else {
                "a nonce is 1 to 32 letters, digits, _ or -".to_string()
            };
            self.report(
                Code::ParseBadMarker,
                Some(at + 1),
                format!("Malformed section marker {}: {why}.", quote(trimmed)),
            );
            block.bad_marker = true;
        }
        // Even a bad marker is skipped with its body when its end marker can be found, so one
        // mistake does not turn the whole payload into stray text.
        let close = format!("{marker}>>>");
        let found = (at + 1..end).find(|&j| self.lines[j].trim() == close);
        let Some(close_at) = found else {
            if section.is_some() && nonce_ok {
                self.unterminated_section(block, at, end, &close);
                return end;
            }
            return at + 1;
        };
        if let Some(section) = section.filter(|_| nonce_ok) {
            let content = self.lines[at + 1..close_at].join("\n");
            block.sections.push(SectionText {
                section,
                line: at + 1,
                content,
            });
        }
        close_at + 1
    }

    fn unterminated_section(&mut self, block: &mut OpenBlock, at: usize, end: usize, close: &str) {
        let swallowed = (at + 1..end).find(|&j| {
            header_word(self.lines[j].trim()).is_some_and(|(n, _)| {
                n.eq_ignore_ascii_case("end") || n.eq_ignore_ascii_case("eof")
            })
        });
        let hint = match swallowed {
            Some(j) => format!(
                " Line {} ({}) is inside that section; end the section with a line \"{close}\" before it.",
                j + 1,
                quote(self.lines[j])
            ),
            None => String::new(),
        };
        let kind = block.kind.map_or("block", CommandKind::name);
        self.report(
            Code::ParseUnterminatedBlock,
            Some(block.line),
            format!(
                "@@{kind} (line {}) never ends: its section opened at line {} has no closing line \"{close}\".{hint}",
                block.line,
                at + 1
            ),
        );
        block.kind = None;
        block.reported = true;
    }
}
