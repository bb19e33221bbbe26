//! The project's instructions for coding agents, for the first message: `AGENTS.md` at the
//! workspace root (the convention Codex CLI, Cursor, GitHub Copilot's coding agent, Jules and
//! others read), or, where a project has none, the file another agent reads (`CLAUDE.md`,
//! `GEMINI.md`, `.github/copilot-instructions.md`); and the `AGENTS.md` of every folder on the
//! way to a file or folder the task names, the nearer one taking precedence for what is under it.
//! `docs/instructions.md` says why these and no others.
//!
//! Read through the workspace's one resolver like any file the model reads: a link on the way is
//! not followed (an `AGENTS.md` a command made a link to `/etc/shadow` or `~/.ssh` is not read
//! into the chat), nor is anything protected or hidden. All of them together are
//! bounded ([`MAX_INSTRUCTIONS_CHARS`]); a file cut short, or left out, says how to read it.
//! The message they go into is redacted like everything sent.

use super::text::normalize;
use super::{Reach, Workspace};

/// The file the convention names, in any folder.
pub const AGENTS_MD: &str = "AGENTS.md";

/// Read at the root only, in this order, when it has no `AGENTS.md`: the same kind of file for
/// other agents (Claude Code, Gemini CLI, GitHub Copilot). One of them, never several: projects
/// that keep more than one mostly repeat themselves in each.
pub const ROOT_FALLBACKS: &[&str] = &["CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md"];

/// How many characters of instructions the first message carries, all files together: room for
/// the long `AGENTS.md` of a large project (Codex's own is about 9,000), small beside the rules
/// and a chat's context. Past it, a file is cut at a line and the model is told how to read on.
pub const MAX_INSTRUCTIONS_CHARS: usize = 12_000;

/// How many folders below the root may add their `AGENTS.md` (a task naming many files).
const MAX_FOLDERS: usize = 16;

/// Bytes read of one file at most: every character of the budget as four bytes of UTF-8.
const MAX_READ_BYTES: u64 = (MAX_INSTRUCTIONS_CHARS as u64) * 4 + 4;

/// One instructions file as the model gets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instructions {
    /// Its path in the workspace, with `/`.
    pub path: String,
    /// Its text (line endings as `\n`), perhaps cut.
    pub text: String,
    /// How it was cut, if it was.
    pub cut: Option<Cut>,
}

/// How a file was shortened to fit the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Its first lines are shown; the file has this many bytes.
    Partly { bytes: u64 },
    /// Nothing of it fits; it is only named.
    Left { bytes: u64 },
}

impl Workspace {
    /// The project's instructions for a task, root first, within the budget.
    pub fn instructions(&self, task: &str) -> Vec<Instructions> {
        let mut files = Vec::new();
        match self.read_instructions(AGENTS_MD) {
            Some(found) => files.push(found),
            None => {
                if let Some(found) = ROOT_FALLBACKS
                    .iter()
                    .find_map(|name| self.read_instructions(name))
                {
                    files.push(found);
                }
            }
        }
        for folder in self.folders_named(task) {
            if let Some(found) = self.read_instructions(&format!("{folder}/{AGENTS_MD}")) {
                files.push(found);
            }
        }
        fit(files, MAX_INSTRUCTIONS_CHARS)
    }

    /// A file's text and size, if it is a readable UTF-8 file inside the workspace.
    fn read_instructions(&self, rel: &str) -> Option<(String, String, u64)> {
        let place = self.place(rel, Reach::Model).ok()?;
        let (bytes, metadata) = place.read(Some(MAX_READ_BYTES)).ok()?;
        // A read cut in the middle of a character keeps the characters before it.
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) if metadata.len() > MAX_READ_BYTES => {
                let valid = e.utf8_error().valid_up_to();
                let mut bytes = e.into_bytes();
                bytes.truncate(valid);
                String::from_utf8(bytes).ok()?
            }
            Err(_) => return None,
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let text = normalize(text).trim().to_string();
        (!text.is_empty()).then(|| (rel.to_string(), text, metadata.len()))
    }

    /// The folders below the root on the way to what the task names: each word that is the
    /// path of a file or folder here (`src/cli/mod.rs`, `docs/`), its folders from the top.
    fn folders_named(&self, task: &str) -> Vec<String> {
        let mut folders: Vec<String> = Vec::new();
        for word in task.split_whitespace() {
            // Quotes and brackets around it, a full stop or a comma after it.
            let word = word
                .trim_start_matches(|c: char| "`'\"([{<*".contains(c))
                .trim_end_matches(|c: char| "`'\")]}>,;:!?*.".contains(c));
            if word.is_empty() || word.contains("://") || !word.contains(['/', '.']) {
                continue;
            }
            let Ok(place) = self.place(word.trim_end_matches('/'), Reach::Model) else {
                continue;
            };
            let Some(metadata) = place.entry() else {
                continue;
            };
            let resolved = place.rel();
            let folder = if metadata.is_dir() {
                resolved
            } else {
                match resolved.parent() {
                    Some(parent) => parent,
                    None => continue,
                }
            };
            let mut path = String::new();
            for part in folder.components() {
                if !path.is_empty() {
                    path.push('/');
                }
                path.push_str(&part.as_os_str().to_string_lossy());
                if !folders.contains(&path) {
                    folders.push(path.clone());
                }
            }
        }
        // Shallow first, so that the nearer file comes later and reads as the last word.
        folders.sort_by_key(|f| (f.matches('/').count(), f.clone()));
        folders.truncate(MAX_FOLDERS);
        folders
    }
}

/// The files within `budget` characters, in order: each whole while it fits, then cut at a
/// line, then only named.
fn fit(files: Vec<(String, String, u64)>, budget: usize) -> Vec<Instructions> {
    let mut left = budget;
    let mut out = Vec::new();
    for (path, text, bytes) in files {
        let chars = text.chars().count();
        if chars <= left {
            left -= chars;
            out.push(Instructions {
                path,
                text,
                cut: None,
            });
            continue;
        }
        let mut shown = String::new();
        let mut used = 0;
        for line in text.split_inclusive('\n') {
            let n = line.chars().count();
            if used + n > left {
                break;
            }
            used += n;
            shown.push_str(line);
        }
        left -= used;
        let shown = shown.trim_end().to_string();
        let cut = if shown.is_empty() {
            Cut::Left { bytes }
        } else {
            Cut::Partly { bytes }
        };
        out.push(Instructions {
            path,
            text: shown,
            cut: Some(cut),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_fit_the_budget_whole_then_cut_at_a_line_then_named() {
        let files = vec![
            ("AGENTS.md".to_string(), "a\nb\n".to_string(), 4),
            ("src/AGENTS.md".to_string(), "cc\ndd\nee".to_string(), 8),
            ("src/x/AGENTS.md".to_string(), "ff".to_string(), 2),
        ];
        let fitted = fit(files, 10);
        assert_eq!(fitted[0].cut, None);
        assert_eq!(fitted[1].text, "cc\ndd");
        assert_eq!(fitted[1].cut, Some(Cut::Partly { bytes: 8 }));
        assert_eq!(fitted[2].text, "");
        assert_eq!(fitted[2].cut, Some(Cut::Left { bytes: 2 }));
    }
}
