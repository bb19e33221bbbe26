//! The AgentScript v1 parser: reply text in, a [`Script`] or every diagnostic out.
//!
//! ```text
//! response   := fence? block* "@@eof" fence? ;
//! block      := "@@" command [ argument ] newline section* "@@end" newline ;
//! section    := "<<<" NAME [ ":" nonce ] newline content-line* NAME [ ":" nonce ] ">>>" newline ;
//! command    := say | newfile | updatefile | editfile | deletefile | readfile | mkdir
//!             | movefile | runcommand | ask | commit | done | next      (any ASCII case)
//! NAME       := MSG | CONTENT | FIND | REPLACE | CMD | TO
//! nonce      := 1 to 32 of [A-Za-z0-9_-]
//! ```
//!
//! The parser is pure (no I/O) and never panics. It reads the reply line by line and keeps
//! going after a problem, so one pass reports everything wrong, each problem with its code and
//! the 1-based line of the reply as received: a BOM, CRLF endings or a stripped fence never
//! shift line numbers. Markers count only as whole (trimmed) lines; inside a section only that
//! section's own end marker counts, so `@@end` or `CONTENT>>>` under a nonce is content.

mod block;
mod fence;

use fence::{fence_opener, strip_fence};

use super::ast::{Block, CommandKind, RunOptions, Script, Section};
use crate::catalog::Code;
use crate::config::Limits;

/// One problem found in a reply.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub code: Code,
    /// 1-based line in the reply as received; `None` for whole-reply problems.
    pub line: Option<usize>,
    pub message: String,
}

/// A block header as written, recorded even when the block has problems.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// #N: the block's position among the reply's known commands.
    pub index: usize,
    pub kind: CommandKind,
    /// The header's argument (path or options), trimmed; `None` when absent.
    pub argument: Option<String>,
    pub line: usize,
}

/// What parsing a reply found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Every block of a known command, in reply order.
    pub headers: Vec<Header>,
    /// Every problem, in the order found. Empty exactly when `script` is `Some`.
    pub diagnostics: Vec<Diagnostic>,
    /// The executable script, only for a reply without problems.
    pub script: Option<Script>,
    /// The reply ends without `@@eof` (or inside an open block): it looks cut off.
    pub truncated: bool,
    /// An `@@eof` line outside every section closes the reply (text after it aside). An `@@eof`
    /// inside a payload is content and closes nothing.
    pub closed: bool,
}

impl Parsed {
    pub fn is_ok(&self) -> bool {
        self.script.is_some()
    }
}

/// The longest nonce a section marker may carry.
const MAX_NONCE_LEN: usize = 32;
/// How much of an offending line a message quotes.
const QUOTE_CHARS: usize = 60;

/// Parses one model reply under the given limits.
pub fn parse(input: &str, limits: &Limits) -> Parsed {
    let text = input.strip_prefix('\u{feff}').unwrap_or(input);
    if text.trim().is_empty() {
        return Parsed {
            headers: Vec::new(),
            diagnostics: vec![Diagnostic {
                code: Code::ReplyEmpty,
                line: None,
                message: "The response is empty. Send AgentScript v1 blocks ending with @@eof."
                    .to_string(),
            }],
            script: None,
            truncated: false,
            closed: false,
        };
    }
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let mut parser = Parser {
        lines: &lines,
        limits,
        diagnostics: Vec::new(),
        dropped: None,
        closed: false,
        headers: Vec::new(),
        blocks: Vec::new(),
    };
    let chars = count_chars(text);
    if chars > limits.max_response_chars {
        parser.report(
            Code::LimitResponseChars,
            None,
            format!(
                "The response is {chars} characters long; the limit is {}. Split the work over several responses (fewer or smaller commands each).",
                limits.max_response_chars
            ),
        );
    }
    let (start, end) = strip_fence(&lines);
    // Truncated: no @@eof at all. (An @@eof followed by something, a fence closer say, is
    // text after @@eof, not a cut-off reply.)
    let truncated = !lines[start..end]
        .iter()
        .any(|line| is_eof_line(line.trim()));
    parser.run(start, end, truncated);
    let Parser {
        mut diagnostics,
        dropped,
        closed,
        headers,
        blocks,
        ..
    } = parser;
    if let Some((code, count)) = dropped {
        diagnostics.push(Diagnostic {
            code,
            line: None,
            message: format!(
                "{count} more problem(s) are not listed: fix the first {MAX_DIAGNOSTICS}, then check again"
            ),
        });
    }
    let script = diagnostics.is_empty().then_some(Script::parsed(blocks));
    Parsed {
        headers,
        diagnostics,
        script,
        truncated,
        closed,
    }
}

/// Whether `text` is a whole reply as far as its end goes: an `@@eof` line outside every section
/// closes it. What a chat page shows while the model still writes, or after a cut, is not
/// closed, even when a file's content in it holds an `@@eof` line. (Whether the reply is valid
/// is [`parse`]'s question.)
pub fn is_closed(text: &str) -> bool {
    parse(text, &Limits::default()).closed
}

fn count_chars(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

fn is_eof_line(trimmed: &str) -> bool {
    header_word(trimmed).is_some_and(|(name, _)| name.eq_ignore_ascii_case("eof"))
}

/// Splits a trimmed `@@name rest` line into the name and the trimmed rest.
fn header_word(trimmed: &str) -> Option<(&str, &str)> {
    let body = trimmed.strip_prefix("@@")?;
    let end = body.find(char::is_whitespace).unwrap_or(body.len());
    Some((&body[..end], body[end..].trim()))
}

/// Quotes the start of a line for a message.
fn quote(text: &str) -> String {
    let trimmed = text.trim();
    let mut out: String = trimmed.chars().take(QUOTE_CHARS).collect();
    if out.len() < trimmed.len() {
        out.push('…');
    }
    format!("\"{}\"", out.escape_debug())
}

/// A section found inside a block.
struct SectionText {
    section: Section,
    line: usize,
    content: String,
}

/// A block between its header and its `@@end`.
struct OpenBlock {
    /// `None` for an unknown command: its body is skipped without further reports.
    kind: Option<CommandKind>,
    index: usize,
    line: usize,
    /// The checked path, for path commands whose path passed.
    path: String,
    options: RunOptions,
    /// The header line itself had a problem (already reported).
    header_bad: bool,
    /// A section marker was malformed: its section is not checked as missing.
    bad_marker: bool,
    sections: Vec<SectionText>,
    /// Its missing end was already reported (an unclosed section ran to the end of the reply).
    reported: bool,
}

/// A reply with more problems than this lists the first ones and counts the rest, so that an
/// enormous input cannot make the report enormous too.
pub const MAX_DIAGNOSTICS: usize = 200;

struct Parser<'a> {
    lines: &'a [&'a str],
    limits: &'a Limits,
    diagnostics: Vec<Diagnostic>,
    /// Problems past [`MAX_DIAGNOSTICS`]: their code (the first one's) and how many.
    dropped: Option<(Code, usize)>,
    /// Whether an `@@eof` line outside every section was found.
    closed: bool,
    headers: Vec<Header>,
    blocks: Vec<Block>,
}

impl Parser<'_> {
    fn report(&mut self, code: Code, line: Option<usize>, message: String) {
        if self.diagnostics.len() >= MAX_DIAGNOSTICS {
            self.dropped.get_or_insert((code, 0)).1 += 1;
            return;
        }
        self.diagnostics.push(Diagnostic {
            code,
            line,
            message,
        });
    }

    fn run(&mut self, start: usize, end: usize, truncated: bool) {
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
                if let Some(after) = (eof + 1..end).find(|&j| !self.lines[j].trim().is_empty()) {
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

    fn open_block(&mut self, name: &str, rest: &str, line: usize) -> OpenBlock {
        let kind = CommandKind::from_name(name);
        let mut index = 0;
        match kind {
            Some(kind) => {
                index = self.headers.len() + 1;
                self.headers.push(Header {
                    index,
                    kind,
                    argument: (!rest.is_empty()).then(|| rest.to_string()),
                    line,
                });
            }
            None => {
                let written = format!("@@{name}");
                let suggestion = suggest(name)
                    .map(|k| format!(" Did you mean @@{k}?"))
                    .unwrap_or_default();
                let names: Vec<&str> = CommandKind::ALL.iter().map(|k| k.name()).collect();
                self.report(
                    Code::ParseUnknownCommand,
                    Some(line),
                    format!(
                        "Unknown command \"{}\".{suggestion} Known commands: {}.",
                        written.escape_debug(),
                        names.join(", ")
                    ),
                );
            }
        }
        let before = self.diagnostics.len();
        let (path, options) = match kind {
            Some(kind) => self.check_argument(kind, rest, line),
            None => (String::new(), RunOptions::default()),
        };
        OpenBlock {
            kind,
            index,
            line,
            path,
            options,
            header_bad: self.diagnostics.len() > before,
            bad_marker: false,
            sections: Vec::new(),
            reported: false,
        }
    }

    /// Reads the section whose opener is at `at`; returns the index after it.
    fn section(&mut self, block: &mut OpenBlock, at: usize, end: usize) -> usize {
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

/// The command a model most likely meant by a name keyless does not know.
fn suggest(name: &str) -> Option<CommandKind> {
    let lower = name.to_ascii_lowercase();
    let kind = match lower.as_str() {
        "createfile" | "create" | "writefile" | "write" | "addfile" | "file" => {
            CommandKind::NewFile
        }
        "replacefile" | "overwrite" | "overwritefile" | "update" => CommandKind::UpdateFile,
        "edit" | "replace" | "patch" | "modify" | "modifyfile" => CommandKind::EditFile,
        "delete" | "remove" | "rm" | "removefile" => CommandKind::DeleteFile,
        "read" | "cat" | "open" | "view" | "viewfile" => CommandKind::ReadFile,
        "mkdirs" | "makedir" | "createdir" | "folder" => CommandKind::Mkdir,
        "move" | "mv" | "rename" | "renamefile" => CommandKind::MoveFile,
        "run" | "exec" | "shell" | "bash" | "sh" | "cmd" | "command" | "execute" => {
            CommandKind::RunCommand
        }
        "message" | "print" | "echo" | "tell" | "note" => CommandKind::Say,
        "question" | "prompt" => CommandKind::Ask,
        "gitcommit" | "git" => CommandKind::Commit,
        "finish" | "finished" | "complete" | "stop" => CommandKind::Done,
        "continue" => CommandKind::Next,
        _ => return None,
    };
    Some(kind)
}
