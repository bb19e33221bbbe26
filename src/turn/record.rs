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
/// The running batch's journal: a line before and after each command.
const JOURNAL: &str = "batch.jsonl";

/// The turn's state, saved before each send and before each batch is carried out. A turn that
/// stopped half-way (crash, closed browser, Ctrl+C) leaves `pending` or `reply` set, and the next
/// run resumes it from here.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Session {
    pub site: String,
    /// The chat page's address, when known.
    pub chat_url: Option<String>,
    pub turn: u64,
    pub batch: u64,
    /// The task as the user gave it.
    pub task: Option<String>,
    /// The whole first message of a new chat (rules, snapshot, task), for continuing the turn
    /// in a new chat.
    pub rules: Option<String>,
    /// The message being sent (the one to resend after a crash).
    pub pending: Option<String>,
    /// What that message is ("task", "results", "format correction"…).
    pub pending_what: Option<String>,
    /// The reply whose commands are being carried out (batch `batch`); its journal says which
    /// ran.
    pub reply: Option<String>,
    /// What the turn has done so far, latest last (a new chat's summary).
    pub done: Vec<String>,
}

impl Session {
    /// Whether a turn stopped half-way: a message was unanswered or a batch unfinished.
    pub fn interrupted(&self) -> bool {
        self.pending.is_some() || self.reply.is_some()
    }
}

/// The saved session, if the workspace has one. An unreadable one is reported and set aside
/// (renamed, never deleted), so that a new session can start.
pub fn load_session(ws: &Workspace) -> Option<Session> {
    let path = Path::new(AGENT_DIR).join(SESSION);
    let bytes = ws.dir().read(&path).ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(session) => Some(session),
        Err(e) => {
            let aside = Path::new(AGENT_DIR).join(format!("session.unreadable-{}.json", now_ms()));
            let _ = ws.dir().rename(&path, ws.dir(), &aside);
            eprintln!(
                "keyless: {AGENT_DIR}/{SESSION} is unreadable ({e}); it was kept as {} and a new session starts",
                aside.display()
            );
            None
        }
    }
}

/// One line of a batch's journal.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct JournalLine {
    pub batch: u64,
    /// The command's number in the reply (#N).
    pub index: usize,
    /// `None` when the command started; its result text once it finished.
    pub result: Option<String>,
}

/// The journal of batch `batch`: lines of other batches (a journal left over) are ignored.
pub fn read_journal(ws: &Workspace, batch: u64) -> Vec<JournalLine> {
    let Ok(text) = ws.dir().read_to_string(Path::new(AGENT_DIR).join(JOURNAL)) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| serde_json::from_str::<JournalLine>(line).ok())
        .filter(|line| line.batch == batch)
        .collect()
}

/// Writes the session and the transcript; a write failure is reported once on stderr and never
/// stops the turn.
pub struct Recorder<'w> {
    ws: &'w Workspace,
    warned: bool,
    /// Takes secrets out of every transcript entry (Secrets.Redact).
    redactor: Option<crate::redact::Redactor>,
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// Redacts every string inside `value` (the model's replies too: what keyless keeps on disk holds
/// no secret either).
fn redact_strings(value: &mut serde_json::Value, redactor: &crate::redact::Redactor) {
    match value {
        serde_json::Value::String(text) => {
            let redacted = redactor.redact(text);
            if redacted.count > 0 {
                *text = redacted.text;
            }
        }
        serde_json::Value::Array(items) => {
            items.iter_mut().for_each(|v| redact_strings(v, redactor));
        }
        serde_json::Value::Object(map) => {
            map.values_mut().for_each(|v| redact_strings(v, redactor));
        }
        _ => {}
    }
}

impl<'w> Recorder<'w> {
    pub fn new(ws: &'w Workspace) -> Recorder<'w> {
        Recorder {
            ws,
            warned: false,
            redactor: None,
        }
    }

    /// The same recorder, redacting every transcript entry with `redactor`.
    pub fn redacting(self, redactor: Option<crate::redact::Redactor>) -> Recorder<'w> {
        Recorder { redactor, ..self }
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

    /// Empties the journal before a batch starts.
    pub fn journal_start(&mut self) {
        let result = crate::workspace::backup::ensure_agent_dir(self.ws)
            .map_err(|f| f.reason)
            .and_then(|()| {
                self.ws
                    .write_atomic(&Path::new(AGENT_DIR).join(JOURNAL), b"", None)
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            self.warn(JOURNAL, e);
        }
    }

    /// Appends a journal line (a command starting or finished).
    pub fn journal(&mut self, line: &JournalLine) {
        let json = serde_json::to_string(line).unwrap_or_default();
        self.append(JOURNAL, &json);
    }

    /// Appends one transcript entry: `kind` and its fields.
    pub fn entry(&mut self, kind: &str, mut fields: serde_json::Value) {
        if let Some(redactor) = &self.redactor {
            redact_strings(&mut fields, redactor);
        }
        let mut line = serde_json::json!({ "at_ms": now_ms() as u64, "kind": kind });
        if let (Some(map), serde_json::Value::Object(extra)) = (line.as_object_mut(), fields) {
            map.extend(extra);
        }
        self.append(TRANSCRIPT, &line.to_string());
    }

    /// Appends one line to a file of `.agent/`, in one write.
    fn append(&mut self, name: &str, line: &str) {
        let result = crate::workspace::backup::ensure_agent_dir(self.ws)
            .map_err(|f| f.reason)
            .and_then(|()| {
                let mut file = self
                    .ws
                    .dir()
                    .open_with(
                        Path::new(AGENT_DIR).join(name),
                        OpenOptions::new().append(true).create(true),
                    )
                    .map_err(|e| e.to_string())?;
                file.write_all(format!("{line}\n").as_bytes())
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            self.warn(name, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_session_is_set_aside_never_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join(AGENT_DIR);
        std::fs::create_dir(&agent).unwrap();
        std::fs::write(agent.join(SESSION), "{ not json").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        assert_eq!(load_session(&ws), None);
        assert!(!agent.join(SESSION).exists());
        let kept: Vec<String> = std::fs::read_dir(&agent)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("session.unreadable-"))
            .collect();
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert_eq!(
            std::fs::read_to_string(agent.join(&kept[0])).unwrap(),
            "{ not json"
        );
    }

    #[test]
    fn a_journal_ignores_lines_of_other_batches() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let mut recorder = Recorder::new(&ws);
        recorder.journal_start();
        for (batch, index, result) in [(3, 1, Some("ok")), (4, 1, None), (4, 1, Some("done"))] {
            recorder.journal(&JournalLine {
                batch,
                index,
                result: result.map(str::to_string),
            });
        }
        let lines = read_journal(&ws, 4);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].result.as_deref(), Some("done"));
        recorder.journal_start();
        assert!(read_journal(&ws, 4).is_empty(), "a new batch starts empty");
    }
}
