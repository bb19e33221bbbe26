//! `keyless interactive`: a REPL in one chat. Each line is a task for the model (a turn); lines
//! starting with `/` are commands for keyless. History and line editing come from rustyline and
//! are kept in `.agent/history.txt`. With `--json`, standard output carries only events
//! (`docs/json-events.md`): the lines come from standard input as they are, and everything
//! people read goes to standard error.

use std::io::{BufRead, IsTerminal, Write};

use clap::ValueEnum;
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;

use crate::app::conversation::{self, Conversation, Saved};
use crate::app::report::Started;
use crate::app::start::Start;
use crate::chat::ChatDriver;
use crate::exit::Status;
use crate::turn;
use crate::workspace::agent::Agent;
use crate::workspace::backup::{self, UndoReport};

use super::args::Shared;
use super::report::Format;
use super::stop::Out;

const HELP: &str = "Type a task and press Enter: the model works on it until @@done.
Commands:
  /new                        start a new chat (the rules are sent again)
  /undo                       put back what the last batch changed (again: the one before)
  /mode [ask|autosafe|auto]   who approves commands (alone: shows it)
  /pace [step|balanced|batch] how many commands one reply may carry (alone: shows it;
                              the chat is told of a change with the next task)
  /attach PATH…               files of yours to go with the next task's first message
                              (alone: shows them)
  /model [NAME]               choose the model in the site's picker, read back on the page
                              (alone: shows the one chosen)
  /effort [LEVEL]             choose the reasoning effort the same way
  /help                       this help
  /quit                       leave (Ctrl+D works too)";

/// Sets `slot` from a slash command's word, spelled as on the command line (`/pace step`); a
/// word that is none of them prints the choices. No word leaves it as it is.
fn choose<C: ValueEnum + Into<T>, T>(word: Option<&str>, slot: &mut T, command: &str, out: Out) {
    let Some(word) = word else { return };
    match C::from_str(word, true) {
        Ok(choice) => *slot = choice.into(),
        Err(_) => {
            let names: Vec<String> = C::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
                .collect();
            out.line(&format!("Usage: {command} {}", names.join("|")));
        }
    }
}

/// `keyless interactive`, or with `local` on the demo's stage: the local chat page and its
/// scripted model, headless, in a throwaway workspace (Ask mode unless `--mode` says otherwise,
/// so that the confirmations show).
pub fn run(shared: &Shared, local: bool, attach: &[std::path::PathBuf], json: bool) -> Status {
    // The person's files are read first: a path that is not a readable file is refused
    // before anything opens.
    let attachments =
        match super::setup::read_attachments("interactive", attach, shared.workspace.as_deref()) {
            Ok(files) => files,
            Err(status) => return status,
        };
    if !local {
        return repl(shared, None, attachments, json);
    }
    let stage = match super::demo::Stage::new("interactive") {
        Ok(stage) => stage,
        Err(message) => {
            eprintln!("keyless interactive: {message}");
            return Status::Chat;
        }
    };
    let on_stage = Shared {
        workspace: Some(stage.root.clone()),
        site: Some("local".into()),
        url: Some(stage.chat.url()),
        headless: true,
        profile: Some(stage.profile()),
        ..shared.clone()
    };
    let status = repl(&on_stage, Some(LOCAL_HELP), attachments, json);
    eprintln!(
        "keyless interactive: the model's work stays in {}",
        stage.root.display()
    );
    status
}

/// What the offline REPL adds to the help: the model is a script.
const LOCAL_HELP: &str =
    "This is the local chat page: its model is a script, the demo's, whatever you type. Its first
reply writes greet.sh and runs it (keyless asks you first: that is Ask mode), one reply is
malformed (keyless asks it to resend), then it fixes a typo and commits. Try
  Write greet.sh and run it
then /undo, /mode, /help. Nothing leaves this machine.";

/// Where the lines come from: rustyline at a terminal, or standard input read as it is
/// (`--json`: the prompt, at a terminal only, goes to standard error).
enum Lines {
    Editor(Box<DefaultEditor>),
    Plain,
}

impl Lines {
    /// The next line; `None` at the end of input (Ctrl+D). Ctrl+C at the prompt is an empty
    /// line.
    fn next(&mut self) -> Option<String> {
        match self {
            Lines::Editor(editor) => match editor.readline("keyless> ") {
                Ok(line) => Some(line),
                Err(ReadlineError::Interrupted) => Some(String::new()),
                Err(_) => None,
            },
            Lines::Plain => {
                if std::io::stdin().is_terminal() {
                    let mut err = std::io::stderr();
                    let _ = write!(err, "keyless> ");
                    let _ = err.flush();
                }
                let mut line = String::new();
                match std::io::stdin().lock().read_line(&mut line) {
                    Ok(0) => None,
                    Ok(_) => Some(line),
                    // Ctrl+C while reading interrupts the read: the next line is read.
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Some(String::new()),
                    Err(_) => None,
                }
            }
        }
    }

    fn remember(&mut self, line: &str) {
        if let Lines::Editor(editor) = self {
            let _ = editor.add_history_entry(line);
        }
    }
}

fn repl(
    shared: &Shared,
    intro: Option<&str>,
    mut attachments: Vec<crate::chat::attach::Attachment>,
    json: bool,
) -> Status {
    let format = Format::of(json);
    let out = format.out();
    let mut report = super::report::for_json(json);
    let report = report.as_mut();
    let choices = shared.choices();
    let (start, mut options) = match Start::chat(&choices, "interactive", report) {
        Ok(started) => started,
        Err(e) => return super::setup::refused("interactive", &e),
    };
    super::setup::install_ctrl_c();
    crate::app::logging::init(start.ws.root(), report);
    options.notice = Some(super::terminal::notice);
    let Start {
        config,
        ws,
        mut settings,
        machine,
        ..
    } = start;
    let mut host = crate::batch::Joined {
        person: super::terminal::Terminal::here(),
        runner: machine,
    };
    let history = ws.agent(Agent::History);
    // `--json`'s lines come from standard input as they are, for the program that drives it.
    let mut lines = match format {
        Format::Json => Lines::Plain,
        Format::Text => match DefaultEditor::new() {
            Ok(mut editor) => {
                let _ = editor.load_history(&history);
                Lines::Editor(Box::new(editor))
            }
            Err(e) => {
                eprintln!("keyless interactive: cannot read from the terminal: {e}");
                return Status::Usage;
            }
        },
    };
    let saved = conversation::saved(
        &ws,
        &options.site_name,
        shared.new_chat,
        "interactive",
        report,
    );
    report.started(&Started {
        command: "interactive",
        workspace: ws.root(),
        task: None,
        resume: matches!(saved, Saved::Interrupted(_)),
        chat: Some((&options.site_name, &options.url)),
        file: None,
        mode: settings.mode,
        pace: settings.pace,
    });
    let mut driver = match crate::app::chat::open(options, "interactive", report) {
        Ok(driver) => driver,
        Err(failure) => {
            report.chat_failed(&failure);
            return Status::Chat;
        }
    };
    // The saved chat goes on: an interrupted turn is finished first.
    let mut chat = match saved {
        Saved::Interrupted(s) => {
            conversation::announce_resume(&s, "interactive", report);
            let resumed_turn = s.turn.max(1);
            let rules = s.rules.clone();
            let stop = turn::resume(s, &mut driver, &ws, &mut host, &settings, &mut |event| {
                report.event(event)
            });
            report.turn_ended(resumed_turn, &stop);
            Conversation::going_on(rules, resumed_turn)
        }
        Saved::Chat(s) if conversation::open_chat(&mut driver, &s, "interactive", report) => {
            Conversation::going_on(s.rules.clone(), s.turn.max(1))
        }
        Saved::Chat(_) | Saved::Fresh => Conversation::new_chat(),
    };
    eprintln!("{HELP}");
    if let Some(intro) = intro {
        eprintln!("{intro}");
    }
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        lines.remember(line);
        let mut words = line.split_whitespace();
        match words.next().unwrap_or_default() {
            "/quit" | "/exit" => break,
            "/help" => out.line(HELP),
            "/new" => match driver.new_chat() {
                Ok(()) => {
                    chat = Conversation::new_chat();
                    report.new_chat();
                    out.line("A new chat is open.");
                }
                Err(f) => out.line(&format!("{}: {}", f.code, f.reason)),
            },
            "/undo" => match backup::undo(&ws) {
                Ok(UndoReport::Restored {
                    id,
                    actions,
                    refused,
                    ..
                }) => {
                    report.undone(Some(id), &actions, &refused);
                    out.line(&format!("Undid batch {id}:"));
                    for action in actions {
                        out.line(&format!("  {action}"));
                    }
                    for not in &refused {
                        out.line(&format!("  not put back: {}", not.reason()));
                    }
                }
                Ok(UndoReport::AllUndone { count }) => {
                    report.undone(None, &[], &[]);
                    out.line(&format!(
                        "Nothing to undo: all {count} batch(es) are undone."
                    ))
                }
                Ok(UndoReport::Nothing) => {
                    report.undone(None, &[], &[]);
                    out.line("Nothing to undo.")
                }
                Err(f) => out.line(&format!("{}: {}", f.code, f.reason)),
            },
            "/mode" => {
                let was = settings.mode;
                choose::<super::args::Mode, _>(words.next(), &mut settings.mode, "/mode", out);
                if let Err(e) = crate::app::start::mode_allowed(
                    host.runner.sandbox(),
                    settings.mode,
                    "interactive",
                    report,
                ) {
                    eprintln!("keyless interactive: {e}");
                    settings.mode = was;
                }
                report.settings(settings.mode, settings.pace);
                out.line(&format!("Mode: {}.", settings.mode.name()));
            }
            "/pace" => {
                choose::<super::args::Pace, _>(words.next(), &mut settings.pace, "/pace", out);
                report.settings(settings.mode, settings.pace);
                out.line(&format!("Pace: {}.", settings.pace.name()));
            }
            which @ ("/model" | "/effort") => {
                let named = line[which.len()..].trim();
                let chosen = if named.is_empty() {
                    Ok(driver.confirmed())
                } else if which == "/model" {
                    driver.choose_now(Some(named.to_string()), None)
                } else {
                    driver.choose_now(None, Some(named.to_string()))
                };
                match chosen {
                    Ok(chosen) => {
                        if !named.is_empty() {
                            report.model_chosen(chosen);
                        }
                        out.line(&format!(
                            "Model: {}; effort: {} (read back on the page).",
                            chosen.model.as_deref().unwrap_or("as the page has it"),
                            chosen.effort.as_deref().unwrap_or("as the page has it")
                        ));
                    }
                    Err(f) => out.line(&format!("{}: {}", f.code, f.reason)),
                }
            }
            "/attach" => {
                let paths: Vec<std::path::PathBuf> = words.map(std::path::PathBuf::from).collect();
                if !paths.is_empty() {
                    match super::setup::read_attachments("interactive", &paths, Some(ws.root())) {
                        Ok(files) => {
                            for file in files {
                                if attachments.iter().any(|f| f.name == file.name) {
                                    out.line(&format!(
                                        "{}: {} is attached already (a chip is told by its name).",
                                        crate::catalog::Code::AttachmentUnreadable,
                                        file.name
                                    ));
                                } else {
                                    attachments.push(file);
                                }
                            }
                        }
                        Err(_) => continue,
                    }
                }
                let names: Vec<&str> = attachments.iter().map(|f| f.name.as_str()).collect();
                out.line(&if names.is_empty() {
                    "No files attached to the next task.".to_string()
                } else {
                    format!("Attached to the next task: {}.", names.join(", "))
                });
            }
            command if command.starts_with('/') => {
                out.line(&format!("Unknown command {command}. /help lists them."))
            }
            _ => {
                // The snapshot is taken for a chat's first message only.
                let mut task = chat.next_task(line, &settings, || {
                    conversation::first_message(
                        line,
                        ws.root(),
                        Some(&ws),
                        &config,
                        &settings,
                        host.runner.sandbox(),
                        "interactive",
                        report,
                    )
                });
                task.attachments = std::mem::take(&mut attachments);
                crate::cancel::reset();
                report.task(task.turn, line);
                let turn = task.turn;
                let stop = turn::run(task, &mut driver, &ws, &mut host, &settings, &mut |event| {
                    report.event(event)
                });
                report.turn_ended(turn, &stop);
            }
        }
    }
    if let Lines::Editor(editor) = &mut lines {
        let _ = std::fs::create_dir_all(history.parent().unwrap_or(ws.root()));
        let _ = editor.save_history(&history);
    }
    crate::app::chat::close(driver, report);
    report.quit();
    Status::Success
}
