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
//!
//! This file holds the entry ([`parse`], [`is_closed`]), what it answers and the parser's state;
//! the line loop is in `lines.rs`, a block's header and checks in `block.rs`, a section between
//! its markers in `section.rs`, and the surrounding fence in `fence.rs`.

mod block;
mod fence;
mod lines;
mod section;

use fence::strip_fence;

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
}
