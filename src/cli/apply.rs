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
use super::report::Format;

pub fn apply(file: Option<&Path>, json: bool, shared: &Shared) -> Status {
    let mut report = super::report::for_json(json);
    let report = report.as_mut();
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
    let settings = crate::app::start::batch_settings(&config, &shared.choices(), &root);
    report.started(&crate::app::report::Started {
        command: "apply",
        workspace: &root.canonicalize().unwrap_or(root.clone()),
        task: None,
        resume: false,
        chat: None,
        file: file.filter(|f| f.as_os_str() != "-"),
        mode: settings.mode,
        pace: settings.pace,
    });
    let parsed = reply.parse(&config.limits);
    let Some(script) = parsed.script else {
        // The format error echoes parts of the reply: it passes the redactor too.
        let message = format_error(&parsed.diagnostics, parsed.truncated);
        let message = match settings.redactor {
            Some(redactor) => redactor.redact(&message).text,
            None => message,
        };
        report.rejected(&parsed.diagnostics, &message);
        return Status::Rejected;
    };
    // After `started`, every end is told.
    let start = match super::setup::start(shared, config, "apply", report) {
        Ok(start) => start,
        Err(status) => {
            report.ended("usage", status);
            return status;
        }
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
    let batch = batch::execute(&script, ws, &mut backup, &mut host, settings, (1, 1));
    let message = results::render(&batch);
    let (stop, status) = if batch.cancelled() {
        ("cancelled", Status::Interrupted)
    } else if batch.all_ok() {
        ("ok", Status::Success)
    } else {
        ("failed", Status::Stopped)
    };
    report.applied(&batch, &message, stop, status);
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
    match Format::of(json) {
        Format::Json => println!("{}", events::undo_json(&report, next.as_ref(), status)),
        Format::Text => undo_text(report, next),
    }
    status
}

/// `keyless undo`'s words for a person: what was put back, what was left and why.
fn undo_text(report: Result<UndoReport, crate::catalog::Failure>, next: Option<(u64, String)>) {
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
}
