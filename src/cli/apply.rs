//! `keyless apply` and `keyless undo`: execute one reply in the workspace without a browser, and
//! put back what the last batch changed.

use std::path::Path;

use crate::batch::{self, results};
use crate::exit::Status;
use crate::protocol::render::format_error;
use crate::visible::{holds_hidden, shown};
use crate::workspace::backup::{self, Backup, BatchKind, UndoReport};

use super::args::Shared;
use super::events;

pub fn apply(file: Option<&Path>, json: bool, shared: &Shared) -> Status {
    let reply = match super::reply::read_reply(file) {
        Ok(reply) => reply,
        Err(message) => {
            eprintln!("keyless apply: {message}");
            return Status::Usage;
        }
    };
    let config = match shared.load_config("apply") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let root = shared.workspace.clone().unwrap_or_else(|| ".".into());
    if json {
        let settings = crate::app::start::batch_settings(&config, &shared.choices(), &root);
        events::print([events::started(&crate::app::report::Started {
            command: "apply",
            workspace: &root.canonicalize().unwrap_or(root.clone()),
            task: None,
            resume: false,
            chat: None,
            file: file.filter(|f| f.as_os_str() != "-"),
            mode: settings.mode,
            pace: settings.pace,
        })]);
    }
    let parsed = reply.parse(&config.limits);
    let Some(script) = parsed.script else {
        // The format error echoes parts of the reply: it passes the redactor too.
        let message = format_error(&parsed.diagnostics, parsed.truncated);
        let message = match crate::batch::Settings::from_config(&config, &root).redactor {
            Some(redactor) => redactor.redact(&message).text,
            None => message,
        };
        if json {
            let problems: Vec<serde_json::Value> = parsed
                .diagnostics
                .iter()
                .map(|d| serde_json::json!({"code": d.code.code(), "line": d.line, "message": d.message}))
                .collect();
            events::emit(
                "format_error",
                serde_json::json!({ "problems": problems, "text": message }),
            );
            events::print([events::finished("rejected", None, None, Status::Rejected)]);
        } else {
            print!("{message}");
        }
        return Status::Rejected;
    };
    // After `started`, every end is a `finished` event.
    let failed = |status: Status| {
        if json {
            events::print([events::finished("usage", None, None, status)]);
        }
        status
    };
    let start = match super::setup::start(shared, config, "apply", &mut super::report::Human) {
        Ok(start) => start,
        Err(status) => return failed(status),
    };
    let (ws, settings) = (&start.ws, &start.settings);
    let label = match file {
        Some(path) if path.as_os_str() != "-" => format!("keyless apply {}", path.display()),
        _ => "keyless apply (standard input)".to_string(),
    };
    let mut backup = Backup::new(ws, BatchKind::Batch, label);
    let mut host = batch::Joined {
        person: super::terminal::Terminal::here(),
        runner: start.machine,
    };
    let report = batch::execute(&script, ws, &mut backup, &mut host, settings, (1, 1));
    // The results message is data for the model; on a person's terminal it is shown with its
    // control characters escaped, so that a command's output cannot rewrite the screen.
    let message = results::render(&report);
    let (stop, status) = if report.cancelled() {
        ("cancelled", Status::Interrupted)
    } else if report.all_ok() {
        ("ok", Status::Success)
    } else {
        ("failed", Status::Stopped)
    };
    if json {
        events::print(events::batch(&report));
        events::emit("results", serde_json::json!({ "text": message }));
        events::print([events::finished(stop, None, None, status)]);
    } else if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        print!("{}", shown(&message));
    } else {
        print!("{message}");
    }
    status
}

pub fn undo(shared: &Shared, json: bool) -> Status {
    let config = match shared.load_config("undo") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let (ws, _claim) = match crate::app::start::open_workspace(&shared.choices(), &config) {
        Ok(opened) => opened,
        Err(e) => return super::setup::refused("undo", &e),
    };
    let report = backup::undo(&ws);
    let next = backup::list(&ws)
        .ok()
        .and_then(|all| backup::next_undo(&all).map(|m| (m.id, m.label.clone())));
    let status = match &report {
        Ok(UndoReport::Restored { refused, .. }) if !refused.is_empty() => Status::Stopped,
        Ok(_) => Status::Success,
        Err(_) => Status::Stopped,
    };
    if json {
        println!("{}", events::undo_json(&report, next.as_ref(), status));
        return status;
    }
    match report {
        Ok(UndoReport::Nothing) => {
            println!("Nothing to undo: no batch has changed files in this workspace.");
        }
        Ok(UndoReport::AllUndone { count }) => {
            println!("Nothing to undo: all {count} batch(es) saved in this workspace are undone.");
        }
        Ok(UndoReport::Restored {
            id,
            label,
            actions,
            refused,
            safety_copy,
        }) => {
            println!("Undid batch {id} ({}):", shown(&label));
            for action in &actions {
                println!("  {}", shown(action));
            }
            for not in &refused {
                println!("  not put back: {}", shown(&not.reason()));
            }
            if actions.is_empty() && refused.is_empty() {
                println!("  (nothing left to restore)");
            }
            if actions.iter().any(|action| holds_hidden(action))
                || refused.iter().any(|not| holds_hidden(&not.reason()))
            {
                println!(
                    "  (a name above holds characters a terminal does not show for what they are; they are written \\u{{…}})"
                );
            }
            if let Some(copy) = safety_copy {
                println!(
                    "The files as they were before this undo are kept in .agent/backups/b{copy:06}."
                );
            }
            if !refused.is_empty() {
                eprintln!(
                    "keyless undo: {} change(s) were left as they are: keyless puts files back only where no link, protected or hidden path is on the way",
                    refused.len()
                );
            }
            if let Some((next, label)) = next {
                println!(
                    "`keyless undo` again puts back batch {next} ({}) too.",
                    shown(&label)
                );
            }
        }
        Err(failure) => {
            eprintln!("keyless undo: {}: {}", failure.code, shown(&failure.reason));
        }
    }
    status
}
