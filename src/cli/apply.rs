//! `keyless apply` and `keyless undo`: execute one reply in the workspace without a browser, and
//! put back what the last batch changed.

use std::path::Path;

use crate::batch::{self, results};
use crate::claim::Claim;
use crate::exit::Status;
use crate::protocol::render::format_error;
use crate::workspace::Workspace;
use crate::workspace::backup::{self, Backup, BatchKind, UndoReport};

use super::args::Shared;
use super::events;

/// Opens the workspace and claims its `.agent/` for this process: a second keyless working in
/// the same folder at once would mix up sessions, journals and backups. The claim ends with the
/// returned value.
pub(super) fn open_workspace(shared: &Shared, command: &str) -> Result<(Workspace, Claim), Status> {
    let path = shared.workspace.clone().unwrap_or_else(|| ".".into());
    let ws = Workspace::open(&path).map_err(|f| {
        eprintln!("keyless {command}: {}", f.reason);
        Status::Usage
    })?;
    backup::ensure_agent_dir(&ws).map_err(|f| {
        eprintln!("keyless {command}: {}: {}", f.code, f.reason);
        Status::Usage
    })?;
    let claim = Claim::take(&ws.agent(crate::workspace::agent::Agent::Claim)).map_err(|pid| {
        eprintln!(
            "keyless {command}: another keyless (process {pid}) is working in {}; wait for it to finish",
            ws.root().display()
        );
        Status::Usage
    })?;
    // The workspace is ours now: what a killed keyless left half-written goes.
    backup::clean_after_crash(&ws);
    Ok((ws, claim))
}

pub fn apply(file: Option<&Path>, json: bool, shared: &Shared) -> Status {
    let reply = match super::read_reply(file) {
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
        let settings = super::setup::batch_settings(&config, shared, &root);
        events::started(events::Started {
            command: "apply",
            workspace: &root.canonicalize().unwrap_or(root.clone()),
            task: None,
            resume: false,
            chat: None,
            file: file.filter(|f| f.as_os_str() != "-"),
            mode: settings.mode,
            pace: settings.pace,
        });
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
            events::finished("rejected", None, None, Status::Rejected);
        } else {
            print!("{message}");
        }
        return Status::Rejected;
    };
    // After `started`, every end is a `finished` event.
    let failed = |status: Status| {
        if json {
            events::finished("usage", None, None, status);
        }
        status
    };
    let start = match super::setup::Start::with(shared, config, "apply") {
        Ok(start) => start,
        Err(status) => return failed(status),
    };
    let (ws, settings) = (&start.ws, &start.settings);
    let label = match file {
        Some(path) if path.as_os_str() != "-" => format!("keyless apply {}", path.display()),
        _ => "keyless apply (standard input)".to_string(),
    };
    let mut backup = Backup::new(ws, BatchKind::Batch, label);
    let mut host = start.host(shared);
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
        events::batch(&report);
        events::emit("results", serde_json::json!({ "text": message }));
        events::finished(stop, None, None, status);
    } else if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        print!("{}", super::progress::printable(&message));
    } else {
        print!("{message}");
    }
    status
}

/// Ctrl+C cancels the running command (its partial output is kept); a second Ctrl+C ends
/// keyless at once.
pub(super) fn install_ctrl_c() {
    let _ = ctrlc::set_handler(|| {
        if crate::cancel::request() {
            // Leaving at once, without unwinding: the browser's own group ends here.
            crate::cancel::end_groups();
            std::process::exit(130);
        }
    });
    on_hangup();
}

/// The terminal closed (SIGHUP): keyless leaves, and with it the browser it launched, which runs
/// in a process group of its own that the terminal's hangup never reaches.
fn on_hangup() {
    #[cfg(unix)]
    {
        extern "C" fn hung_up(_: libc::c_int) {
            crate::cancel::end_groups();
            // SAFETY: _exit is async-signal-safe and ends the process at once.
            unsafe { libc::_exit(HANGUP_STATUS) }
        }
        // SAFETY: the handler does only async-signal-safe work (an atomic, killpg, _exit).
        unsafe {
            libc::signal(
                libc::SIGHUP,
                hung_up as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// The exit status after a hangup, as a shell reports a process ended by SIGHUP (128 + 1).
#[cfg(unix)]
const HANGUP_STATUS: libc::c_int = 129;

pub fn undo(shared: &Shared) -> Status {
    let (ws, _claim) = match open_workspace(shared, "undo") {
        Ok(opened) => opened,
        Err(status) => return status,
    };
    match backup::undo(&ws) {
        Ok(UndoReport::Nothing) => {
            println!("Nothing to undo: no batch has changed files in this workspace.");
            Status::Success
        }
        Ok(UndoReport::AllUndone { count }) => {
            println!("Nothing to undo: all {count} batch(es) saved in this workspace are undone.");
            Status::Success
        }
        Ok(UndoReport::Restored {
            id,
            label,
            actions,
            safety_copy,
        }) => {
            println!("Undid batch {id} ({label}):");
            for action in &actions {
                println!("  {action}");
            }
            if actions.is_empty() {
                println!("  (nothing left to restore)");
            }
            if let Some(copy) = safety_copy {
                println!(
                    "The files as they were before this undo are kept in .agent/backups/b{copy:06}."
                );
            }
            if let Some(next) = backup::list(&ws)
                .ok()
                .as_deref()
                .and_then(backup::next_undo)
            {
                println!(
                    "`keyless undo` again puts back batch {} ({}) too.",
                    next.id, next.label
                );
            }
            Status::Success
        }
        Err(failure) => {
            eprintln!("keyless undo: {}: {}", failure.code, failure.reason);
            Status::Stopped
        }
    }
}
