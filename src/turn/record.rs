//! What a turn leaves in `.agent/`: the session (saved before every send, so a crash or Ctrl+C
//! loses nothing) and a JSONL transcript of every message sent, every raw reply, every parse
//! result and every results message.

use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use cap_std::fs::OpenOptions;
use serde::Serialize;

use crate::workspace::{AGENT_DIR, Workspace};

const SESSION: &str = "session.json";
const TRANSCRIPT: &str = "transcript.jsonl";

/// The turn's state, as saved before each send.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Session {
    pub site: String,
    /// The chat page's address, when known.
    pub chat_url: Option<String>,
    pub turn: u64,
    pub batch: u64,
    /// The message being sent (the one to resend after a crash).
    pub pending: Option<String>,
}

/// Writes the session and the transcript; a write failure is reported once on stderr and never
/// stops the turn.
pub struct Recorder<'w> {
    ws: &'w Workspace,
    warned: bool,
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

impl<'w> Recorder<'w> {
    pub fn new(ws: &'w Workspace) -> Recorder<'w> {
        Recorder { ws, warned: false }
    }

    fn warn(&mut self, what: &str, e: impl std::fmt::Display) {
        if !self.warned {
            eprintln!("keyless: could not write {AGENT_DIR}/{what}: {e} (the turn goes on)");
            self.warned = true;
        }
    }

    /// Saves the session atomically.
    pub fn session(&mut self, session: &Session) {
        let result = crate::workspace::backup::ensure_agent_dir(self.ws)
            .map_err(|f| f.reason)
            .and_then(|()| serde_json::to_vec_pretty(session).map_err(|e| e.to_string()))
            .and_then(|json| {
                self.ws
                    .write_atomic(&Path::new(AGENT_DIR).join(SESSION), &json, None)
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            self.warn(SESSION, e);
        }
    }

    /// Appends one transcript entry: `kind` and its fields.
    pub fn entry(&mut self, kind: &str, fields: serde_json::Value) {
        let mut line = serde_json::json!({ "at_ms": now_ms() as u64, "kind": kind });
        if let (Some(map), serde_json::Value::Object(extra)) = (line.as_object_mut(), fields) {
            map.extend(extra);
        }
        let result = crate::workspace::backup::ensure_agent_dir(self.ws)
            .map_err(|f| f.reason)
            .and_then(|()| {
                let mut file = self
                    .ws
                    .dir()
                    .open_with(
                        Path::new(AGENT_DIR).join(TRANSCRIPT),
                        OpenOptions::new().append(true).create(true),
                    )
                    .map_err(|e| e.to_string())?;
                writeln!(file, "{line}").map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            self.warn(TRANSCRIPT, e);
        }
    }
}
