//! `--json`: the events `app::events` builds, one JSON object per line on standard output
//! (`docs/json-events.md`). The human progress stays on standard error.

use std::io::Write;

use serde_json::Value;

pub use crate::app::events::*;

/// Prints events, one line each: a `reason` that names `keyless run --resume` names this run's
/// resume command, with its flags, as the lines on standard error do.
pub fn print(events: impl IntoIterator<Item = Value>) {
    let mut out = std::io::stdout().lock();
    for mut event in events {
        if let Some(reason) = event.get_mut("reason")
            && let Some(text) = reason.as_str()
        {
            *reason = Value::String(super::stop::with_resume(text));
        }
        // A reader that went away ends nothing here: the turn goes on, as it would unwatched.
        let _ = writeln!(out, "{event}");
    }
    let _ = out.flush();
}

/// Prints one event: its fields, after `v` and `type`.
pub fn emit(kind: &str, fields: Value) {
    print([object(kind, fields)]);
}
