//! Text keyless writes in AgentScript terms: scripts rendered back to replies, and the
//! format-error message sent when a reply is rejected.

use super::ast::{Command, OnError, Section};
use super::parse::Diagnostic;

/// How many problems one format-error message lists; the rest are counted.
const MAX_LISTED_PROBLEMS: usize = 20;

/// Renders commands as a reply that parses back to the same commands: each payload gets a
/// nonce when one of its lines would otherwise close it early.
pub fn render_commands(commands: &[Command]) -> String {
    let mut out = String::new();
    for command in commands {
        out.push_str("@@");
        out.push_str(command.kind().name());
        let argument = match command {
            Command::RunCommand { options, .. } => {
                let mut parts = Vec::new();
                match options.on_error {
                    Some(OnError::Continue) => parts.push("on_error=continue".to_string()),
                    Some(OnError::Stop) => parts.push("on_error=stop".to_string()),
                    None => {}
                }
                if let Some(secs) = options.timeout_seconds {
                    parts.push(format!("timeout={secs}"));
                }
                parts.join(" ")
            }
            _ => command.path().unwrap_or_default().to_string(),
        };
        if !argument.is_empty() {
            out.push(' ');
            out.push_str(&argument);
        }
        out.push('\n');
        for (section, content) in sections(command) {
            push_section(&mut out, section, content);
        }
        out.push_str("@@end\n");
    }
    out.push_str("@@eof\n");
    out
}

fn sections(command: &Command) -> Vec<(Section, &str)> {
    match command {
        Command::Say { msg } | Command::Ask { msg } | Command::Commit { msg } => {
            vec![(Section::Msg, msg)]
        }
        Command::Done { msg } | Command::Next { msg } => msg
            .as_deref()
            .map(|m| vec![(Section::Msg, m)])
            .unwrap_or_default(),
        Command::NewFile { content, .. } | Command::UpdateFile { content, .. } => {
            vec![(Section::Content, content)]
        }
        Command::EditFile { find, replace, .. } => {
            vec![(Section::Find, find), (Section::Replace, replace)]
        }
        Command::MoveFile { to, .. } => vec![(Section::To, to)],
        Command::RunCommand { cmd, .. } => vec![(Section::Cmd, cmd)],
        Command::DeleteFile { .. } | Command::ReadFile { .. } | Command::Mkdir { .. } => Vec::new(),
    }
}

/// Writes `<<<NAME[:nonce]`, the content lines, and the matching end marker.
pub fn push_section(out: &mut String, section: Section, content: &str) {
    push_named_section(out, section.name(), content);
}

/// Like [`push_section`] for any block name (results use OUTPUT, CONTENT, ANSWER): a nonce is
/// added when a line of `content` would otherwise end the block early.
pub fn push_named_section(out: &mut String, name: &str, content: &str) {
    let marker = section_marker(name, content);
    out.push_str("<<<");
    out.push_str(&marker);
    out.push('\n');
    out.push_str(content);
    out.push('\n');
    out.push_str(&marker);
    out.push_str(">>>\n");
}

/// `NAME`, or `NAME:kN` with the first nonce no line of `content` would collide with.
fn section_marker(name: &str, content: &str) -> String {
    let collides = |marker: &str| {
        content.split('\n').any(|line| {
            line.trim()
                .strip_suffix(">>>")
                .is_some_and(|head| head == marker)
        })
    };
    if !collides(name) {
        return name.to_string();
    }
    (1..)
        .map(|n| format!("{name}:k{n}"))
        .find(|marker| !collides(marker))
        .unwrap_or_else(|| name.to_string())
}

/// Why a reply read as text rebuilt from the chat page is not executed (the driver could not
/// read it exactly), for the format correction: `text` is what was rebuilt. A reply the page
/// drew as one code block already is not told it was not in one.
pub fn not_exact(text: &str) -> Diagnostic {
    let message = if one_fenced_block(text) {
        "keyless could not read your reply exactly from the chat page (it was inside one code block, but this page draws code blocks in a way keyless cannot vouch for, and the page's copy control was missing or did not match); send the same reply again, unchanged, as ONE fenced code block"
    } else {
        "keyless could not read your reply exactly from the chat page (it was not inside one code block, and the page's copy control was missing); put the WHOLE reply inside ONE fenced code block (a longer fence, e.g. ````, when file content holds ``` lines)"
    };
    Diagnostic {
        code: crate::catalog::Code::ReplyNotExact,
        line: None,
        message: message.into(),
    }
}

/// Whether text rebuilt from a page is one fenced code block and nothing else.
fn one_fenced_block(text: &str) -> bool {
    let text = text.trim();
    let Some(inner) = text
        .strip_prefix("```")
        .and_then(|inner| inner.strip_suffix("```"))
    else {
        return false;
    };
    let inner = inner.trim_end_matches('\n');
    inner.contains('\n') && !inner.contains("\n```")
}

/// The message sent in place of results when a reply is rejected.
pub fn format_error(diagnostics: &[Diagnostic], truncated: bool) -> String {
    let mut ordered: Vec<&Diagnostic> = diagnostics.iter().collect();
    ordered.sort_by_key(|d| (d.line.is_none(), d.line));
    let mut out = String::from(
        "[KEYLESSAGENT FORMAT ERROR]\nYour last response was rejected. Nothing was executed.\nProblems:\n",
    );
    for diagnostic in ordered.iter().take(MAX_LISTED_PROBLEMS) {
        match diagnostic.line {
            Some(line) => out.push_str(&format!("- line {line}: {}\n", diagnostic.message)),
            None => out.push_str(&format!("- {}\n", diagnostic.message)),
        }
    }
    if ordered.len() > MAX_LISTED_PROBLEMS {
        out.push_str(&format!(
            "- … and {} more problems.\n",
            ordered.len() - MAX_LISTED_PROBLEMS
        ));
    }
    if truncated {
        out.push_str(
            "Your response looks truncated. Resend it in SMALLER pieces (fewer commands per response).\n",
        );
    }
    out.push_str(
        "Resend your COMPLETE response using only AgentScript v1. Do not apologize or explain. Do not add text outside blocks.\n",
    );
    out
}
