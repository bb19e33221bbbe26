//! What a turn leaves in `.agent/`: the session (saved before every send, so a crash or Ctrl+C
//! loses nothing) and a JSONL transcript of every message sent, every raw reply, every parse
//! result and every results message.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::workspace::Workspace;
use crate::workspace::agent::Agent;

/// The turn's state, saved before each send and before each batch is carried out. A turn that
/// stopped half-way (crash, closed browser, Ctrl+C) leaves something [`InFlight`], and the next
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
    /// What the turn was doing (saved as the fields `pending`, `pending_what` and `reply`).
    #[serde(flatten)]
    pub in_flight: InFlight,
    /// What the turn has done so far, latest last (a new chat's summary).
    pub done: Vec<String>,
    /// The chat site's last trouble (a limit, an error, a wall), for `keyless status`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trouble: Option<Trouble>,
    /// The person's done-check (`--until`), kept so that `--resume` checks too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// The model the page said answered the last reply, for `keyless status`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The effort keyless chose and read back for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// The person's files that went (or were going) with the task's first message: a resumed
    /// turn never hands them to the page again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<crate::chat::attach::Sent>,
    /// The command that resumes the turn as the person must type it (the run's own flags), for
    /// `keyless status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
}

/// The chat site's trouble as a turn met it: facts, for `keyless status` and `--resume`.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Trouble {
    /// The catalog code (`KA_USAGE_LIMIT`, …).
    pub code: String,
    /// The site's own words.
    pub words: String,
    /// When it happened, and when the limit resets (seconds since the Unix epoch).
    pub at: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<u64>,
}

impl Trouble {
    /// Whether this is a limit (a throttle, a plan's cap) whose named reset is still ahead at
    /// `now` (seconds since the Unix epoch).
    pub fn limit_ahead(&self, now: u64) -> bool {
        crate::catalog::Code::from_code(&self.code).is_some_and(|c| {
            matches!(
                c,
                crate::catalog::Code::RateLimited | crate::catalog::Code::UsageLimit
            )
        }) && self.resets_at.is_some_and(|at| at > now)
    }
}

impl Session {
    /// Whether a turn stopped half-way: a message was unanswered or a batch unfinished.
    pub fn interrupted(&self) -> bool {
        self.in_flight != InFlight::Idle
    }
}

/// What a turn was in the middle of when its session was saved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(from = "InFlightFields", into = "InFlightFields")]
pub enum InFlight {
    /// Nothing: the turn finished (or handed its last reply to the user).
    #[default]
    Idle,
    /// A message was being sent, or waited for its reply: the one to send again after a crash.
    Sending { message: String, kind: MessageKind },
    /// A reply's commands were being carried out (batch [`Session::batch`]); its journal says
    /// which ran.
    CarryingOut { reply: String },
}

impl InFlight {
    /// The message being sent, if one is.
    pub fn message(&self) -> Option<&str> {
        match self {
            InFlight::Sending { message, .. } => Some(message),
            _ => None,
        }
    }
}

/// What kind of message keyless sends (shown to the user, kept in the transcript).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// The task and, in a new chat, the rules.
    Task,
    /// A batch's results.
    Results,
    /// A format error's correction request.
    FormatCorrection,
    /// The first message of a new chat that continues a turn.
    Continuation,
    /// A message whose kind was not saved.
    Message,
}

impl MessageKind {
    pub fn name(self) -> &'static str {
        match self {
            MessageKind::Task => "task",
            MessageKind::Results => "results",
            MessageKind::FormatCorrection => "format correction",
            MessageKind::Continuation => "task, continued in a new chat",
            MessageKind::Message => "message",
        }
    }

    fn from_name(name: &str) -> MessageKind {
        [
            MessageKind::Task,
            MessageKind::Results,
            MessageKind::FormatCorrection,
            MessageKind::Continuation,
        ]
        .into_iter()
        .find(|kind| kind.name() == name)
        .unwrap_or(MessageKind::Message)
    }
}

/// [`InFlight`] as `session.json` has always kept it.
#[derive(Default, Serialize, serde::Deserialize)]
#[serde(default)]
struct InFlightFields {
    /// The message being sent.
    pending: Option<String>,
    /// What that message is ("task", "results", "format correction"…).
    pending_what: Option<String>,
    /// The reply whose commands are being carried out.
    reply: Option<String>,
}

impl From<InFlightFields> for InFlight {
    fn from(fields: InFlightFields) -> InFlight {
        match fields {
            InFlightFields {
                reply: Some(reply), ..
            } => InFlight::CarryingOut { reply },
            InFlightFields {
                pending: Some(message),
                pending_what,
                ..
            } => InFlight::Sending {
                message,
                kind: MessageKind::from_name(pending_what.as_deref().unwrap_or_default()),
            },
            _ => InFlight::Idle,
        }
    }
}

impl From<InFlight> for InFlightFields {
    fn from(in_flight: InFlight) -> InFlightFields {
        match in_flight {
            InFlight::Idle => InFlightFields::default(),
            InFlight::Sending { message, kind } => InFlightFields {
                pending: Some(message),
                pending_what: Some(kind.name().to_string()),
                reply: None,
            },
            InFlight::CarryingOut { reply } => InFlightFields {
                reply: Some(reply),
                ..InFlightFields::default()
            },
        }
    }
}

/// The saved session, if the workspace has one. An unreadable one is reported and set aside
/// (renamed, never deleted), so that a new session can start.
pub fn load_session(ws: &Workspace) -> Option<Session> {
    let path = Agent::Session.rel();
    let bytes = ws.read_own(&path).ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(session) => Some(session),
        Err(e) => {
            let aside = Agent::named(&format!("session.unreadable-{}.json", now_ms()));
            let _ = ws.rename_own(&path, &aside);
            eprintln!(
                "keyless: {} is unreadable ({e}); it was kept as {} and a new session starts",
                Agent::Session.shown(),
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
    /// Once it finished, how, as data: resume decides by this, never by the text. A journal
    /// written before keyless kept it reads as not known to have succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Recorded>,
    /// Where the batch's backup stood when the command started: the changes recorded after it
    /// are the command's, so a command cut short can be resolved by looking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<crate::workspace::backup::Mark>,
}

/// A finished command's outcome in the journal.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Recorded {
    pub ok: bool,
    /// The failure's code (`KA_…`) when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl Recorded {
    pub fn ok() -> Recorded {
        Recorded {
            ok: true,
            code: None,
        }
    }
}

impl JournalLine {
    /// Whether the line says its command finished and succeeded.
    pub fn succeeded(&self) -> bool {
        self.outcome.as_ref().is_some_and(|o| o.ok)
    }

    /// The line batch `batch` journals for a step: a command starting (with where the backup
    /// stood), or its result once it finished.
    pub fn of(batch: u64, step: &crate::batch::Step) -> JournalLine {
        match step {
            crate::batch::Step::Starting { index, mark, .. } => JournalLine {
                batch,
                index: *index,
                result: None,
                outcome: None,
                backup: *mark,
            },
            crate::batch::Step::Finished(result) => JournalLine {
                batch,
                index: result.index,
                result: Some(crate::batch::results::outcome_text(&result.outcome)),
                outcome: Some(Recorded {
                    ok: result.outcome.error.is_none(),
                    code: result
                        .outcome
                        .error
                        .as_ref()
                        .map(|f| f.code.code().to_string()),
                }),
                backup: None,
            },
        }
    }
}

/// The journal of batch `batch`: lines of other batches (a journal left over) are ignored.
pub fn read_journal(ws: &Workspace, batch: u64) -> Vec<JournalLine> {
    let Ok(text) = ws
        .read_own(&Agent::Journal.rel())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    else {
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

    fn warn(&mut self, what: Agent, e: impl std::fmt::Display) {
        if !self.warned {
            eprintln!(
                "keyless: could not write {}: {e} (the turn goes on)",
                what.shown()
            );
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
                    .write_own(&Agent::Session.rel(), &json)
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            self.warn(Agent::Session, e);
        }
    }

    /// Empties the journal before a batch starts. Not waited for on the disk: its lines are
    /// appended without it too, and each names its batch, so a journal a machine crash left
    /// un-emptied is read for the new batch as holding nothing (`read_journal`).
    pub fn journal_start(&mut self) {
        let result = crate::workspace::backup::ensure_agent_dir(self.ws)
            .map_err(|f| f.reason)
            .and_then(|()| {
                self.ws
                    .write_own_unsynced(&Agent::Journal.rel(), b"")
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            self.warn(Agent::Journal, e);
        }
    }

    /// Appends a journal line (a command starting or finished).
    pub fn journal(&mut self, line: &JournalLine) {
        let json = serde_json::to_string(line).unwrap_or_default();
        self.append(Agent::Journal, &json);
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
        self.append(Agent::Transcript, &line.to_string());
    }

    /// Appends one line to a file of `.agent/`, in one write.
    fn append(&mut self, what: Agent, line: &str) {
        let result = crate::workspace::backup::ensure_agent_dir(self.ws)
            .map_err(|f| f.reason)
            .and_then(|()| {
                self.ws
                    .append_own(&what.rel(), format!("{line}\n").as_bytes())
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            self.warn(what, e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_session_is_set_aside_never_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let agent = Agent::Folder.under(dir.path());
        std::fs::create_dir(&agent).unwrap();
        std::fs::write(Agent::Session.under(dir.path()), "{ not json").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        assert_eq!(load_session(&ws), None);
        assert!(!Agent::Session.under(dir.path()).exists());
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

    /// `session.json` keeps the fields it always had, so a session saved by an earlier keyless
    /// resumes, and one saved now reads the same.
    #[test]
    fn the_state_in_flight_is_saved_as_the_same_fields() {
        let sending = Session {
            in_flight: InFlight::Sending {
                message: "the results".into(),
                kind: MessageKind::Results,
            },
            ..Session::default()
        };
        let json = serde_json::to_value(&sending).unwrap();
        assert_eq!(json["pending"], "the results");
        assert_eq!(json["pending_what"], "results");
        assert_eq!(json["reply"], serde_json::Value::Null);
        assert_eq!(serde_json::from_value::<Session>(json).unwrap(), sending);
        let carrying: Session =
            serde_json::from_str(r#"{ "batch": 2, "reply": "@@eof" }"#).unwrap();
        assert_eq!(
            carrying.in_flight,
            InFlight::CarryingOut {
                reply: "@@eof".into()
            }
        );
        let old: Session =
            serde_json::from_str(r#"{ "pending": "hi", "pending_what": "something else" }"#)
                .unwrap();
        assert_eq!(
            old.in_flight,
            InFlight::Sending {
                message: "hi".into(),
                kind: MessageKind::Message
            }
        );
        let idle: Session = serde_json::from_str("{}").unwrap();
        assert!(!idle.interrupted());
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
                outcome: result.map(|_| Recorded::ok()),
                backup: None,
            });
        }
        let lines = read_journal(&ws, 4);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].result.as_deref(), Some("done"));
        recorder.journal_start();
        assert!(read_journal(&ws, 4).is_empty(), "a new batch starts empty");
    }
}
