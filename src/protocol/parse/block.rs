//! Checking one block: its header (a known command, or the one most likely meant), its header's
//! argument, its sections, and building its command.

use super::{Header, OpenBlock, Parser, SectionText, count_chars, quote};
use crate::catalog::Code;
use crate::protocol::ast::{
    ArgumentShape, Block, Command, CommandKind, Need, OnError, RunOptions, Section,
};
use crate::protocol::path::{TrailingSlash, check_path};

impl Parser<'_> {
    pub(super) fn open_block(&mut self, name: &str, rest: &str, line: usize) -> OpenBlock {
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

    /// Checks what follows the command name on its header line.
    fn check_argument(
        &mut self,
        kind: CommandKind,
        argument: &str,
        line: usize,
    ) -> (String, RunOptions) {
        let mut path = String::new();
        let mut options = RunOptions::default();
        match kind.argument() {
            ArgumentShape::None if !argument.is_empty() => self.report(
                Code::ParseStrayText,
                Some(line),
                format!(
                    "@@{kind} takes nothing on its line, but {} follows it. Put text in its MSG section.",
                    quote(argument)
                ),
            ),
            ArgumentShape::None => {}
            ArgumentShape::Path if argument.is_empty() => self.report(
                Code::ParseMissingArgument,
                Some(line),
                format!("@@{kind} needs a path on its line, for example \"@@{kind} src/main.rs\"."),
            ),
            ArgumentShape::Path => {
                let trailing = if kind == CommandKind::Mkdir {
                    TrailingSlash::Allowed
                } else {
                    TrailingSlash::Refused
                };
                match check_path(argument, trailing) {
                    Ok(p) => path = p.to_string(),
                    Err(why) => self.report(Code::ParseBadPath, Some(line), format!("{why}.")),
                }
            }
            ArgumentShape::Options => options = self.run_options(argument, line),
        }
        (path, options)
    }

    /// Checks a closed block and, when it is valid, adds it to the script.
    pub(super) fn finish(&mut self, block: OpenBlock) {
        let Some(kind) = block.kind else { return };
        let before = self.diagnostics.len();
        let line = block.line;
        let OpenBlock { path, options, .. } = block;

        let wanted = kind.sections();
        let mut taken: Vec<Option<String>> = vec![None; wanted.len()];
        for SectionText {
            section,
            line: at,
            content,
        } in block.sections
        {
            let Some(slot) = wanted.iter().position(|(s, _)| *s == section) else {
                let takes = match wanted {
                    [] => "no sections".to_string(),
                    _ => wanted
                        .iter()
                        .map(|(s, _)| s.name())
                        .collect::<Vec<_>>()
                        .join(" and "),
                };
                self.report(
                    Code::ParseUnexpectedPayload,
                    Some(at),
                    format!(
                        "@@{kind} does not take a {} section; it takes {takes}.",
                        section.name()
                    ),
                );
                continue;
            };
            if taken[slot].is_some() {
                self.report(
                    Code::ParseUnexpectedPayload,
                    Some(at),
                    format!(
                        "A second {} section in @@{kind} (line {line}); give it once.",
                        section.name()
                    ),
                );
                continue;
            }
            let chars = count_chars(&content);
            if chars > self.limits.max_file_content_chars {
                self.report(
                    Code::LimitFileContentChars,
                    Some(at),
                    format!(
                        "The {} section is {chars} characters long; the limit is {}. Write the file in parts: a smaller @@newfile, then @@editfile additions.",
                        section.name(),
                        self.limits.max_file_content_chars
                    ),
                );
            }
            taken[slot] = Some(content);
        }
        for ((section, need), content) in wanted.iter().zip(&taken) {
            let must_have_text = matches!(section, Section::Find | Section::Cmd | Section::To)
                || (*section == Section::Msg && *need == Need::Required);
            match content {
                None if *need == Need::Required && !block.bad_marker => self.report(
                    Code::ParseMissingPayload,
                    Some(line),
                    format!(
                        "@@{kind} needs a {name} section: <<<{name} … {name}>>>.",
                        name = section.name()
                    ),
                ),
                Some(text) if must_have_text && text.trim().is_empty() => self.report(
                    Code::ParseMissingPayload,
                    Some(line),
                    format!("The {} section of @@{kind} is empty.", section.name()),
                ),
                _ => {}
            }
        }

        let mut to = String::new();
        if kind == CommandKind::MoveFile
            && let Some(Some(dest)) = taken.first()
            && !dest.trim().is_empty()
        {
            let dest = dest.trim();
            if dest.contains('\n') {
                self.report(
                    Code::ParseBadPath,
                    Some(line),
                    "The TO section of @@movefile holds more than one line; give one destination path."
                        .to_string(),
                );
            } else {
                match check_path(dest, TrailingSlash::Refused) {
                    Ok(p) => to = p.to_string(),
                    Err(why) => self.report(Code::ParseBadPath, Some(line), format!("TO: {why}.")),
                }
            }
        }

        if block.header_bad || self.diagnostics.len() > before {
            return;
        }
        let mut taken = taken.into_iter();
        let mut next = || taken.next().flatten().unwrap_or_default();
        let command = match kind {
            CommandKind::Say => Command::Say { msg: next() },
            CommandKind::Ask => Command::Ask { msg: next() },
            CommandKind::Commit => Command::Commit { msg: next() },
            CommandKind::Done => Command::Done {
                msg: taken_optional(&mut next),
            },
            CommandKind::Next => Command::Next {
                msg: taken_optional(&mut next),
            },
            CommandKind::NewFile => Command::NewFile {
                path,
                content: next(),
            },
            CommandKind::UpdateFile => Command::UpdateFile {
                path,
                content: next(),
            },
            CommandKind::EditFile => Command::EditFile {
                path,
                find: next(),
                replace: next(),
            },
            CommandKind::DeleteFile => Command::DeleteFile { path },
            CommandKind::ReadFile => Command::ReadFile { path },
            CommandKind::Mkdir => Command::Mkdir { path },
            CommandKind::MoveFile => Command::MoveFile { from: path, to },
            CommandKind::RunCommand => Command::RunCommand {
                cmd: next(),
                options,
            },
        };
        self.blocks.push(Block {
            index: block.index,
            line,
            command,
        });
    }

    fn run_options(&mut self, argument: &str, line: usize) -> RunOptions {
        let mut options = RunOptions::default();
        let mut seen: Vec<&str> = Vec::new();
        for token in argument.split_whitespace() {
            let Some((key, value)) = token.split_once('=') else {
                self.report(
                    Code::ParseBadOption,
                    Some(line),
                    format!(
                        "Option {} is not key=value. @@runcommand takes on_error=continue|stop and timeout=SECONDS; the command itself goes in <<<CMD.",
                        quote(token)
                    ),
                );
                continue;
            };
            if seen.contains(&key) {
                self.report(
                    Code::ParseBadOption,
                    Some(line),
                    format!("Option {key} is given twice."),
                );
                continue;
            }
            seen.push(key);
            match key {
                "on_error" => match value {
                    "continue" => options.on_error = Some(OnError::Continue),
                    "stop" => options.on_error = Some(OnError::Stop),
                    _ => self.report(
                        Code::ParseBadOption,
                        Some(line),
                        format!(
                            "on_error={} is not valid; use on_error=continue or on_error=stop.",
                            value.escape_debug()
                        ),
                    ),
                },
                "timeout" => match value.parse::<u32>() {
                    Ok(secs) if secs > 0 => options.timeout_seconds = Some(secs),
                    _ => self.report(
                        Code::ParseBadOption,
                        Some(line),
                        format!(
                            "timeout={} is not valid; give whole seconds above zero, e.g. timeout=120.",
                            value.escape_debug()
                        ),
                    ),
                },
                _ => self.report(
                    Code::ParseBadOption,
                    Some(line),
                    format!(
                        "Unknown option {}. @@runcommand takes on_error=continue|stop and timeout=SECONDS.",
                        quote(key)
                    ),
                ),
            }
        }
        options
    }
}

fn taken_optional(next: &mut impl FnMut() -> String) -> Option<String> {
    Some(next()).filter(|m| !m.is_empty())
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
