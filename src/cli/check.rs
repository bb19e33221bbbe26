//! `keyless check`: parse one reply and report, for people or (with --json) for programs.

use std::path::Path;

use serde::Serialize;

use crate::exit::Status;
use crate::protocol::{Diagnostic, Parsed};

#[derive(Serialize)]
struct Report<'a> {
    ok: bool,
    control: Option<&'static str>,
    commands: Vec<CommandEntry<'a>>,
    errors: &'a [Diagnostic],
}

#[derive(Serialize)]
struct CommandEntry<'a> {
    index: usize,
    command: &'static str,
    argument: Option<&'a str>,
    line: usize,
}

pub fn run(
    file: Option<&Path>,
    json: bool,
    config: Option<&Path>,
    workspace: Option<&Path>,
) -> Status {
    let limits = match crate::config::file::load(config, workspace.unwrap_or(Path::new("."))) {
        Ok(config) => config.limits,
        Err(failure) => {
            eprintln!("keyless check: {}: {}", failure.code, failure.reason);
            return Status::Usage;
        }
    };
    let reply = match super::reply::read_reply(file) {
        Ok(reply) => reply,
        Err(message) => {
            eprintln!("keyless check: {message}");
            return Status::Usage;
        }
    };
    let parsed = reply.parse(&limits);
    super::report::Format::of(json).give(
        || println!("{}", render_json(&parsed)),
        || print!("{}", crate::visible::shown(&render_text(&parsed))),
    );
    if parsed.is_ok() {
        Status::Success
    } else {
        Status::Rejected
    }
}

fn render_json(parsed: &Parsed) -> String {
    use crate::protocol::ast::ArgumentShape;
    let commands = parsed
        .headers
        .iter()
        .map(|h| CommandEntry {
            index: h.index,
            command: h.kind.name(),
            argument: match h.kind.argument() {
                ArgumentShape::Path => h.argument.as_deref(),
                _ => None,
            },
            line: h.line,
        })
        .collect();
    let report = Report {
        ok: parsed.is_ok(),
        control: parsed.script.as_ref().map(|s| s.control().name()),
        commands,
        errors: &parsed.diagnostics,
    };
    serde_json::to_string_pretty(&report).unwrap_or_else(|e| {
        format!("{{\"ok\": false, \"errors\": [{{\"code\": \"KA_INTERNAL\", \"line\": null, \"message\": \"{e}\"}}]}}")
    })
}

fn render_text(parsed: &Parsed) -> String {
    let mut out = String::new();
    match &parsed.script {
        Some(script) => {
            out.push_str(&format!(
                "ok: {} command(s), control: {}\n",
                script.blocks().len(),
                script.control().name()
            ));
            for block in script.blocks() {
                let arg = block.command.path().unwrap_or_default();
                out.push_str(&format!(
                    "  #{} {} {}(line {})\n",
                    block.index,
                    block.command.kind().name(),
                    if arg.is_empty() {
                        String::new()
                    } else {
                        format!("{arg} ")
                    },
                    block.line
                ));
            }
        }
        None => {
            let mut ordered: Vec<&Diagnostic> = parsed.diagnostics.iter().collect();
            ordered.sort_by_key(|d| (d.line.is_none(), d.line));
            for d in ordered {
                match d.line {
                    Some(line) => out.push_str(&format!("line {line}: {} {}\n", d.code, d.message)),
                    None => out.push_str(&format!("reply: {} {}\n", d.code, d.message)),
                }
            }
            out.push_str(&format!(
                "rejected: {} problem(s); nothing would execute.{}\n",
                parsed.diagnostics.len(),
                if parsed.truncated {
                    " The reply looks truncated."
                } else {
                    ""
                }
            ));
        }
    }
    out
}
