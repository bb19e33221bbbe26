//! The events as JSON: every event a person sees, as one JSON object, for `--json` (`run`,
//! `apply`, `interactive`: one object per line on standard output, for CI jobs and programs
//! that drive keyless, in the spirit of `codex exec --json` and `claude -p --output-format
//! stream-json`) and for the MCP server's progress notifications. This file only builds the
//! objects; who listens sends them.
//!
//! The schema is `docs/json-events.md`: every object has `v` (the schema's version) and `type`;
//! a test checks every event of real runs against the tables there. Adding a field or a type
//! is compatible; renaming or removing one raises [`SCHEMA_VERSION`].

use serde_json::{Value, json};

use crate::batch::{Done, Report, SkipReason};
use crate::catalog::{Code, Failure};
use crate::chat::Reopened;
use crate::exit::Status;
use crate::turn::{Event, Stop};

use super::report::Started;

/// The version of the events' schema (`docs/json-events.md`).
pub const SCHEMA_VERSION: u32 = 1;

/// One event: its fields, after `v` and `type`.
pub fn object(kind: &str, fields: Value) -> Value {
    let mut event = serde_json::Map::new();
    event.insert("v".into(), json!(SCHEMA_VERSION));
    event.insert("type".into(), json!(kind));
    if let Value::Object(fields) = fields {
        event.extend(fields);
    }
    Value::Object(event)
}

/// The turn's event as JSON, if it is one the stream carries (not the wait's progress).
pub fn turn_event(event: &Event) -> Option<(&'static str, Value)> {
    Some(match event {
        Event::Resumed { reopened } => (
            "resumed",
            json!({ "reopened": match reopened {
                Reopened::Answered => "answered",
                Reopened::Retried => "retried",
                Reopened::Unsent => "unsent",
                Reopened::Empty => "empty",
            }}),
        ),
        Event::NewChat => ("new_chat", json!({})),
        Event::Trouble(failure) => {
            // Every field always present: null where the site said nothing keyless quotes.
            let mut fields = failure_fields(failure);
            if let Value::Object(map) = &mut fields {
                let said = failure.said.as_ref();
                map.insert("words".into(), json!(said.map(|s| &s.words)));
                map.insert("resets_at".into(), json!(said.and_then(|s| s.resets_at)));
            }
            ("trouble", fields)
        }
        Event::Waiting { code, left } => (
            "waiting",
            json!({ "code": code, "seconds_left": left.as_secs() }),
        ),
        Event::Warning(failure) => ("warning", failure_fields(failure)),
        Event::Offline { attempt, wait } => (
            "offline",
            json!({ "attempt": attempt, "wait_seconds": wait.as_secs() }),
        ),
        Event::Sending { chars, kind, text } => (
            "message_sent",
            json!({ "kind": kind, "chars": chars, "text": text }),
        ),
        Event::Receiving { .. } => return None,
        Event::Received {
            chars,
            channel,
            text,
            model,
            effort,
        } => (
            "reply_received",
            json!({ "chars": chars, "channel": channel, "text": text, "model": model, "effort": effort }),
        ),
        Event::Rejected {
            problems,
            retries_left,
        } => (
            "reply_rejected",
            json!({ "problems": problems, "retries_left": retries_left }),
        ),
        Event::Executed { .. } | Event::Attaching { .. } => return None,
        Event::AttachmentSent { file } => (
            "attachment_sent",
            json!({ "name": file.name, "size": file.size, "how": file.how, "redacted": file.redacted }),
        ),
        Event::Finished { summary } => ("summary", summary_json(summary)),
    })
}

/// What a turn did, as the `summary` event and MCP's `run_task` result say it.
pub fn summary_json(summary: &crate::turn::Summary) -> Value {
    json!({
        "batches": summary.batches,
        "ok": summary.ok,
        "failed": summary.failed,
        "changed": summary.changed,
        "check": summary.check.as_ref().map(|c| json!({
            "command": c.command,
            "runs": c.runs,
            "passed": c.passed,
        })),
    })
}

/// The turn's event as the events the stream carries (a batch is several, none for the wait's
/// progress).
pub fn on_turn(event: &Event) -> Vec<Value> {
    match event {
        Event::Executed { report } => batch(report),
        event => turn_event(event)
            .map(|(kind, fields)| object(kind, fields))
            .into_iter()
            .collect(),
    }
}

/// A batch: each command's outcome, the skipped commands, then the batch itself.
pub fn batch(report: &Report) -> Vec<Value> {
    let mut events = Vec::new();
    for result in &report.results {
        let outcome = &result.outcome;
        events.push(object(
            "command",
            json!({
                "turn": report.turn,
                "batch": report.batch,
                "index": result.index,
                "command": result.kind.name(),
                "label": result.label,
                "status": if outcome.error.is_some() { "error" } else { "ok" },
                "code": outcome.error.as_ref().map(|f| f.code.code()),
                "reason": outcome.error.as_ref().map(|f| f.reason.as_str()),
                "tier": outcome.policy.map(|p| p.tier),
                "decision": outcome.policy.map(|p| p.decision),
                "details": outcome.details,
            }),
        ));
    }
    for skipped in &report.skipped {
        let commands: Vec<Value> = skipped
            .commands
            .iter()
            .map(|(index, kind, label)| {
                json!({ "index": index, "command": kind.name(), "label": label })
            })
            .collect();
        events.push(object(
            "skipped",
            json!({
                "turn": report.turn,
                "batch": report.batch,
                "reason": skip_reason(skipped.reason),
                "text": skipped.reason.text(),
                "commands": commands,
            }),
        ));
    }
    if let Some(check) = &report.check {
        let failure = check.outcome.error.as_ref();
        events.push(object(
            "done_check",
            json!({
                "turn": report.turn,
                "batch": report.batch,
                "command": check.command,
                "status": if check.passed() { "ok" } else { "error" },
                "code": failure.map(|f| f.code.code()),
                "reason": failure.map(|f| f.reason.as_str()),
                "details": check.outcome.details,
            }),
        ));
    }
    let (done, why) = match &report.done {
        Done::NotRequested => ("not_requested", None),
        Done::Honoured { .. } => ("honoured", None),
        Done::NotHonoured { why } => ("not_honoured", Some(why.as_str())),
    };
    events.push(object(
        "batch",
        json!({
            "turn": report.turn,
            "batch": report.batch,
            "commands": report.total,
            "ok": report.results.iter().filter(|r| r.outcome.error.is_none()).count(),
            "failed": report.results.iter().filter(|r| r.outcome.error.is_some()).count(),
            "done": done,
            "done_refused_because": why,
            "redacted": report.redacted,
        }),
    ));
    events
}

fn skip_reason(reason: SkipReason) -> &'static str {
    match reason {
        SkipReason::Limit { .. } => "limit",
        SkipReason::StoppedAt(_) => "stopped_at",
        SkipReason::AfterDone => "after_done",
        SkipReason::Cancelled => "cancelled",
        SkipReason::NotRun => "not_run",
    }
}

fn failure_fields(failure: &Failure) -> Value {
    json!({ "code": failure.code.code(), "reason": failure.reason })
}

/// The first event: what keyless is about to do, and where.
pub fn started(what: &Started) -> Value {
    object(
        "started",
        json!({
            "command": what.command,
            "keyless": env!("CARGO_PKG_VERSION"),
            "workspace": what.workspace.display().to_string(),
            "task": what.task,
            "resume": what.resume,
            "site": what.chat.map(|(site, _)| site),
            "url": what.chat.map(|(_, url)| url),
            "file": what.file.map(|f| f.display().to_string()),
            "mode": what.mode.name().to_ascii_lowercase(),
            "pace": what.pace.name().to_ascii_lowercase(),
        }),
    )
}

/// Why a turn ended: its name in the stream, the model's closing message and the failure.
fn stop_fields(stop: &Stop) -> (&'static str, Option<&str>, Option<&Failure>) {
    match stop {
        Stop::Done { message } => ("done", message.as_deref(), None),
        Stop::FormatRetries { .. } => ("format_retries", None, None),
        Stop::Iterations { .. } => ("iterations", None, None),
        Stop::Chat(failure) if failure.code == Code::Cancelled => {
            ("cancelled", None, Some(failure))
        }
        Stop::Chat(failure) => ("chat_error", None, Some(failure)),
    }
}

/// `interactive`: a line taken as a task, and the turn it starts.
pub fn task(turn: u64, text: &str) -> Value {
    object("task", json!({ "turn": turn, "task": text }))
}

/// `interactive`: the end of one turn (the REPL goes on).
pub fn turn_ended(turn: u64, stop: &Stop) -> Value {
    let (stop, message, failure) = stop_fields(stop);
    object(
        "turn_ended",
        json!({
            "turn": turn,
            "stop": stop,
            "message": message.map(str::trim),
            "code": failure.map(|f| f.code.code()),
            "reason": failure.map(|f| f.reason.as_str()),
        }),
    )
}

/// `interactive`: the mode or pace changed (`/mode`, `/pace`).
pub fn settings(mode: crate::config::Mode, pace: crate::config::Pace) -> Value {
    object(
        "settings",
        json!({
            "mode": mode.name().to_ascii_lowercase(),
            "pace": pace.name().to_ascii_lowercase(),
        }),
    )
}

/// `interactive`: `/undo` put a batch back (`batch` null: nothing to undo), and what it left as
/// it is (`refused`: a path the resolver refused, with why).
pub fn undone(
    batch: Option<u64>,
    actions: &[String],
    refused: &[crate::workspace::backup::NotRestored],
) -> Value {
    object(
        "undone",
        json!({
            "batch": batch,
            "actions": actions,
            "refused": refused_json(refused),
        }),
    )
}

/// The last event of `run`: why the turn ended and the exit status.
pub fn turn_finished(stop: &Stop, status: Status) -> Value {
    let (stop_name, message, failure) = stop_fields(stop);
    finished(stop_name, message, failure, status)
}

/// The last event: how the command ended (`stop`), the model's closing message, the failure
/// that ended it, and the exit status.
pub fn finished(
    stop: &str,
    message: Option<&str>,
    failure: Option<&Failure>,
    status: Status,
) -> Value {
    object(
        "finished",
        json!({
            "stop": stop,
            "message": message.map(str::trim),
            "code": failure.map(|f| f.code.code()),
            "reason": failure.map(|f| f.reason.as_str()),
            // The site's own words and the reset it named, where its trouble stopped the turn.
            "words": failure.and_then(|f| f.said.as_ref()).map(|s| &s.words),
            "resets_at": failure.and_then(|f| f.said.as_ref()).and_then(|s| s.resets_at),
            "exit_status": status.code(),
        }),
    )
}

/// What `undo` left as it was, each path with why and whether it was kept.
pub fn refused_json(refused: &[crate::workspace::backup::NotRestored]) -> Value {
    refused
        .iter()
        .map(|not| {
            json!({
                "path": not.path,
                "reason": not.reason(),
                "kept": not.kept,
            })
        })
        .collect()
}

/// An undo (`keyless undo --json`, the MCP server's `undo`): what was put back, what was left as it is and why, the exit status.
pub fn undo_json(
    report: &Result<crate::workspace::backup::UndoReport, Failure>,
    next: Option<&(u64, String)>,
    status: Status,
) -> Value {
    let mut value = json!({
        "batch": null,
        "label": null,
        "actions": [],
        "refused": [],
        "safety_copy": null,
        "next": next.map(|(id, _)| id),
        "code": null,
        "reason": null,
        "message": null,
        "exit_status": status.code(),
    });
    match report {
        Ok(crate::workspace::backup::UndoReport::Restored {
            id,
            label,
            actions,
            refused,
            safety_copy,
        }) => {
            value["batch"] = json!(id);
            value["label"] = json!(label);
            value["actions"] = json!(actions);
            value["refused"] = refused_json(refused);
            value["safety_copy"] = json!(safety_copy);
            value["message"] = json!(format!("Put back batch {id} ({label})."));
        }
        Ok(crate::workspace::backup::UndoReport::Nothing) => {
            value["message"] =
                json!("Nothing to undo: no batch has changed files in this workspace.");
        }
        Ok(crate::workspace::backup::UndoReport::AllUndone { count }) => {
            value["message"] = json!(format!(
                "Nothing to undo: all {count} batch(es) saved in this workspace are undone."
            ));
        }
        Err(failure) => {
            value["code"] = json!(failure.code.code());
            value["reason"] = json!(failure.reason);
        }
    }
    value
}

/// The model and effort chosen and read back on the page, before anything is sent.
pub fn model_chosen(confirmed: &crate::chat::models::Confirmed) -> Value {
    object(
        "model_chosen",
        json!({ "model": confirmed.model, "effort": confirmed.effort }),
    )
}
