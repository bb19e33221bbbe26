//! `@@readfile`: a file's text as a CONTENT section would write it, whole or, past the result's
//! limit, in whole lines; a file too large to read whole read only as far as its result can show.

use super::{FileOutcome, eol_name, existing_at, not_opened};
use crate::catalog::{Code, Failure};
use crate::workspace::text::{count_lines, dominant, normalize, short_sha};
use crate::workspace::{Place, Reach, Workspace};

impl Workspace {
    /// `@@readfile`: the file's text, LF-normalised and without its final line break, so it
    /// reads back exactly as a CONTENT section would write it. Past `max_chars`, whole lines up
    /// to the limit are shown and the result says how to read the rest.
    pub fn read_file(&self, rel: &str, max_chars: usize) -> Result<FileOutcome, Failure> {
        let place = self.place(rel, Reach::Model)?;
        let large = place
            .entry()
            .is_some_and(|meta| meta.is_file() && meta.len() > READ_WHOLE_LIMIT);
        if large {
            return read_large(&place, rel, max_chars);
        }
        let old = existing_at(place, rel)?;
        let norm = normalize(&old.text.text);
        let total_lines = count_lines(&norm);
        let body = norm.strip_suffix('\n').unwrap_or(&norm);
        let mut outcome = FileOutcome::default();
        outcome.details.push(format!("lines: {total_lines}"));
        outcome.details.push(format!("bytes: {}", old.bytes.len()));
        outcome
            .details
            .push(format!("sha: {}", short_sha(&old.bytes)));
        if let Some(eol) = dominant(&old.text.text) {
            outcome.details.push(format!("eol: {}", eol_name(eol)));
        }
        if old.text.bom {
            outcome.details.push("bom: yes".to_string());
        }
        if !norm.is_empty() && !norm.ends_with('\n') {
            outcome.details.push("final newline: no".to_string());
        }
        let shown_text = if body.chars().count() > max_chars {
            let mut cut = 0;
            let mut chars = 0;
            for line in body.split_inclusive('\n') {
                let n = line.chars().count();
                if chars + n > max_chars {
                    break;
                }
                chars += n;
                cut += line.len();
            }
            let part = body[..cut].strip_suffix('\n').unwrap_or(&body[..cut]);
            let shown_lines = count_lines(part);
            outcome.lines.push(format!(
                "partial: lines 1-{shown_lines} of {total_lines} shown (the file has {} characters; a result holds at most {max_chars}). Read on with @@runcommand: sed -n '{},{}p' {rel}",
                body.chars().count(),
                shown_lines + 1,
                (shown_lines + 400).min(total_lines)
            ));
            part.to_string()
        } else {
            body.to_string()
        };
        outcome.block = Some(("CONTENT", shown_text));
        Ok(outcome)
    }
}

/// `@@readfile` of a file too large to read whole (a log, a sparse file): only as many bytes as
/// `max_chars` characters can take are read, and whole lines of them shown.
fn read_large(place: &Place, rel: &str, max_chars: usize) -> Result<FileOutcome, Failure> {
    use std::io::Read;
    // A character is at most 4 bytes in UTF-8.
    let budget = (max_chars as u64).saturating_mul(4).saturating_add(4);
    let (file, meta) = place.open_regular().map_err(|e| not_opened(rel, e))?;
    let mut bytes = Vec::new();
    file.take(budget)
        .read_to_end(&mut bytes)
        .map_err(|e| place.failure("read", e))?;
    let valid = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        // Cut inside a character at the end of the budget: keep the whole ones.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => {
            return Err(Failure::new(
                Code::FileIo,
                format!("{rel} is not UTF-8 text (binary, or another encoding)"),
            ));
        }
    };
    let text = valid.strip_prefix('\u{feff}').unwrap_or(valid);
    let norm = normalize(text);
    let mut shown = String::new();
    let mut chars = 0;
    for line in norm.split_inclusive('\n') {
        let n = line.chars().count();
        if chars + n > max_chars || !line.ends_with('\n') {
            break;
        }
        chars += n;
        shown.push_str(line);
    }
    let shown_lines = count_lines(&shown);
    let shown = shown.strip_suffix('\n').unwrap_or(&shown).to_string();
    Ok(FileOutcome {
        details: vec![format!("bytes: {}", meta.len())],
        lines: vec![format!(
            "partial: the first {shown_lines} lines shown; the file holds {} bytes, too many to read whole (a result holds at most {max_chars} characters). Read on with @@runcommand: sed -n '{},{}p' {rel}",
            meta.len(),
            shown_lines + 1,
            shown_lines + 400
        )],
        block: Some(("CONTENT", shown)),
    })
}

/// `@@readfile` of a larger file reads only what its result can show.
const READ_WHOLE_LIMIT: u64 = 16 * 1024 * 1024;
