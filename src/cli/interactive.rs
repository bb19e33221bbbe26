//! `keyless interactive`: a REPL in one chat. Each line is a task for the model (a turn); lines
//! starting with `/` are commands for keyless. History and line editing come from rustyline and
//! are kept in `.agent/history.txt`.

use clap::ValueEnum;
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;

use crate::catalog::Code;
use crate::chat::ChatDriver;
use crate::exit::Status;
use crate::turn;
use crate::workspace::backup::{self, UndoReport};

use super::Shared;
use super::session::{self, Saved};
use super::terminal::TerminalHost;

const HELP: &str = "Type a task and press Enter: the model works on it until @@done.
Commands:
  /new                        start a new chat (the rules are sent again)
  /undo                       put back what the last batch changed (again: the one before)
  /mode [ask|autosafe|auto]   who approves commands (alone: shows it)
  /pace [step|balanced|batch] how many commands one reply may carry (alone: shows it;
                              the chat is told of a change with the next task)
  /help                       this help
  /quit                       leave (Ctrl+D works too)";

/// Sets `slot` from a slash command's word, spelled as on the command line (`/pace step`); a
/// word that is none of them prints the choices. No word leaves it as it is.
fn choose<C: ValueEnum + Into<T>, T>(word: Option<&str>, slot: &mut T, command: &str) {
    let Some(word) = word else { return };
    match C::from_str(word, true) {
        Ok(choice) => *slot = choice.into(),
        Err(_) => {
            let names: Vec<String> = C::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
                .collect();
            println!("Usage: {command} {}", names.join("|"));
        }
    }
}

/// `keyless interactive`, or with `local` on the demo's stage: the local chat page and its
/// scripted model, headless, in a throwaway workspace (Ask mode unless `--mode` says otherwise,
/// so that the confirmations show).
pub fn run(shared: &Shared, local: bool) -> Status {
    if !local {
        return repl(shared, None);
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
    let status = repl(&on_stage, Some(LOCAL_HELP));
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

fn repl(shared: &Shared, intro: Option<&str>) -> Status {
    let config = match super::load_config(shared, "interactive") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let mut options = match super::driver_options(shared, "interactive") {
        Ok(options) => options,
        Err(status) => return status,
    };
    let (ws, _claim) = match super::apply::open_workspace(shared, "interactive") {
        Ok(opened) => opened,
        Err(status) => return status,
    };
    let mut settings = super::batch_settings(&config, shared, ws.root());
    if let Err(status) = super::sandbox_allows(&config, ws.root(), settings.mode, "interactive") {
        return status;
    }
    super::apply::install_ctrl_c();
    super::logging::init(ws.root());
    options.sketches = Some(ws.root().join(".agent").join("logs"));
    let mut editor = match DefaultEditor::new() {
        Ok(editor) => editor,
        Err(e) => {
            eprintln!("keyless interactive: cannot read from the terminal: {e}");
            return Status::Usage;
        }
    };
    let history = ws.root().join(".agent").join("history.txt");
    let _ = editor.load_history(&history);
    let mut driver = match super::start_driver(options, "interactive") {
        Ok(driver) => driver,
        Err(status) => return status,
    };
    let mut host = TerminalHost::from_config(
        ws.root().to_path_buf(),
        &settings,
        &config,
        super::sandbox_for(shared, &config, ws.root()),
    );
    // The saved chat goes on: an interrupted turn is finished first. `turns` counts the turns
    // in the chat (0: it has not had the rules); `chat_rules` is the first message the chat
    // had, which a continuation in a new chat starts with.
    let mut chat_rules: Option<String> = None;
    let mut turns = match session::saved(&ws, &driver.site(), shared.new_chat, "interactive") {
        Saved::Interrupted(s) => {
            session::announce_resume(&s, "interactive");
            let resumed_turn = s.turn.max(1);
            chat_rules = s.rules.clone();
            let stop = turn::resume(
                s,
                &mut driver,
                &ws,
                &mut host,
                &settings,
                &mut super::progress::print,
            );
            let _ = super::report_stop(stop, "interactive");
            resumed_turn
        }
        Saved::Chat(s) if session::open_chat(&mut driver, &s, "interactive") => {
            chat_rules = s.rules.clone();
            s.turn.max(1)
        }
        Saved::Chat(_) | Saved::Fresh => 0,
    };
    eprintln!("{HELP}");
    if let Some(intro) = intro {
        eprintln!("{intro}");
    }
    loop {
        let line = match editor.readline("keyless> ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(_) => break,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(line);
        let mut words = line.split_whitespace();
        match words.next().unwrap_or_default() {
            "/quit" | "/exit" => break,
            "/help" => println!("{HELP}"),
            "/new" => match driver.new_chat() {
                Ok(()) => {
                    turns = 0;
                    chat_rules = None;
                    println!("A new chat is open.");
                }
                Err(f) => println!("{}: {}", f.code, f.reason),
            },
            "/undo" => match backup::undo(&ws) {
                Ok(UndoReport::Restored { id, actions, .. }) => {
                    println!("Undid batch {id}:");
                    for action in actions {
                        println!("  {action}");
                    }
                }
                Ok(UndoReport::AllUndone { count }) => {
                    println!("Nothing to undo: all {count} batch(es) are undone.")
                }
                Ok(UndoReport::Nothing) => println!("Nothing to undo."),
                Err(f) => println!("{}: {}", f.code, f.reason),
            },
            "/mode" => {
                let was = settings.mode;
                choose::<super::Mode, _>(words.next(), &mut settings.mode, "/mode");
                if super::sandbox_allows(&config, ws.root(), settings.mode, "interactive").is_err()
                {
                    settings.mode = was;
                }
                println!("Mode: {}.", settings.mode.name());
            }
            "/pace" => {
                choose::<super::Pace, _>(words.next(), &mut settings.pace, "/pace");
                println!("Pace: {}.", settings.pace.name());
            }
            command if command.starts_with('/') => {
                println!("Unknown command {command}. /help lists them.")
            }
            _ => {
                // The snapshot is taken for a chat's first message only.
                let (rules, first) = match (&chat_rules, turns > 0) {
                    (Some(rules), true) => (
                        rules.clone(),
                        turn::prompt::next_task(
                            line,
                            turns + 1,
                            rules,
                            settings.pace,
                            &settings.limits,
                        ),
                    ),
                    _ => {
                        let rules = super::first_message(
                            shared,
                            line,
                            ws.root(),
                            &config,
                            &settings,
                            "interactive",
                        );
                        chat_rules = Some(rules.clone());
                        (rules.clone(), rules)
                    }
                };
                turns += 1;
                crate::cancel::reset();
                let task = turn::Task {
                    task: line.to_string(),
                    rules,
                    first,
                    turn: turns,
                };
                let stop = turn::run(
                    task,
                    &mut driver,
                    &ws,
                    &mut host,
                    &settings,
                    &mut super::progress::print,
                );
                match stop {
                    // Here the next line is the way on, not another run.
                    turn::Stop::Chat(failure) if failure.code == Code::Cancelled => eprintln!(
                        "keyless interactive: {}: the turn stopped (Ctrl+C); the next line goes on in the same chat",
                        failure.code
                    ),
                    stop => {
                        let _ = super::report_stop(stop, "interactive");
                    }
                }
            }
        }
    }
    let _ = std::fs::create_dir_all(history.parent().unwrap_or(ws.root()));
    let _ = editor.save_history(&history);
    super::close_driver(driver);
    Status::Success
}
