//! How a front door is told what happens: one [`Report`] trait, implemented once per audience
//! (a person at a terminal and `--json`'s lines in `cli`, MCP progress notifications in `mcp`).
//! The application layer calls it and never asks which audience listens.
//!
//! What it does not do: decide anything. A reporter tells; the exit status it returns for a
//! turn's end is the one [`stop_status`] gives, whoever listens.

use crate::catalog::{Code, Failure};
use crate::exit::Status;
use crate::turn::{Event, Stop};

/// What a `started` report says: what keyless is about to do, and where.
pub struct Started<'a> {
    pub command: &'a str,
    pub workspace: &'a std::path::Path,
    pub task: Option<&'a str>,
    pub resume: bool,
    /// The site's name and the chat's address (`run`, `interactive`).
    pub chat: Option<(&'a str, &'a str)>,
    /// The reply's file (`apply`; none for standard input).
    pub file: Option<&'a std::path::Path>,
    pub mode: crate::config::Mode,
    pub pace: crate::config::Pace,
}

/// What happens, told to whoever listens. Every method but [`Report::event`] has a default that
/// tells nothing, for the audiences that do not follow it.
pub trait Report {
    /// A line about what keyless is doing (opening the browser, going on in a saved chat); a
    /// person who asked for quiet does not see it.
    fn note(&mut self, line: &str);
    /// A warning or a problem: always told.
    fn warn(&mut self, line: &str);
    /// The command begins.
    fn started(&mut self, _what: &Started) {}
    /// One event of a turn.
    fn event(&mut self, event: Event);
    /// The model and effort chosen and read back on the page, before anything is sent.
    fn model_chosen(&mut self, _chosen: &crate::chat::models::Confirmed) {}
    /// The chat did not open (already told as a warning): the command ends here.
    fn chat_failed(&mut self, _failure: &Failure) {}
    /// `interactive`: a line taken as turn `turn`'s task.
    fn task(&mut self, _turn: u64, _text: &str) {}
    /// `interactive`: turn `turn` ended (the conversation goes on).
    fn turn_ended(&mut self, _turn: u64, _stop: &Stop) {}
    /// `interactive`: a new chat was opened (`/new`).
    fn new_chat(&mut self) {}
    /// `interactive`: `/undo` put batch `batch` back (`None`: nothing to undo), and what it
    /// left as it is.
    fn undone(
        &mut self,
        _batch: Option<u64>,
        _actions: &[String],
        _refused: &[crate::workspace::backup::NotRestored],
    ) {
    }
    /// `interactive`: the mode or the pace changed.
    fn settings(&mut self, _mode: crate::config::Mode, _pace: crate::config::Pace) {}
    /// `interactive`: the person left.
    fn quit(&mut self) {}
    /// `apply`: the reply was rejected for its format; `message` is the format error the model
    /// would get, redacted.
    fn rejected(&mut self, _problems: &[crate::protocol::parse::Diagnostic], _message: &str) {}
    /// `apply`: the reply's batch ran; `message` is its results message, `stop` how it ended
    /// (`ok`, `failed`, `cancelled`).
    fn applied(
        &mut self,
        _report: &crate::batch::Report,
        _message: &str,
        _stop: &str,
        _status: Status,
    ) {
    }
    /// The command ended before any turn or batch (`usage`), after it was `started`.
    fn ended(&mut self, _stop: &str, _status: Status) {}
    /// The turn ended and so does the command: tells the outcome, as `command`, and returns its
    /// exit status.
    fn finished(&mut self, stop: &Stop, command: &str) -> Status;
}

/// The exit status of a turn that ended with `stop`.
pub fn stop_status(stop: &Stop) -> Status {
    match stop {
        Stop::Done { .. } => Status::Success,
        Stop::FormatRetries { .. } | Stop::Iterations { .. } => Status::Stopped,
        Stop::Chat(failure) if failure.code == Code::Cancelled => Status::Interrupted,
        Stop::Chat(_) => Status::Chat,
    }
}
