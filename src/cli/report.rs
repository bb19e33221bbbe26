//! The command line's two reporters of what happens: [`Human`] (progress, warnings and the
//! outcome for a person: progress and warnings on standard error, the outcome on standard
//! output) and [`Json`] (`--json`: the same person's lines, the outcome moved to standard error,
//! and every event as a JSON line on standard output, `docs/json-events.md`). The one place
//! that chooses between them is [`for_json`].

use crate::app::report::{Report, Started};
use crate::catalog::{Code, Failure};
use crate::exit::Status;
use crate::turn::{Event, Stop};

use super::events;
use super::stop::Out;

/// The reporter `--json` chooses.
pub(super) fn for_json(json: bool) -> Box<dyn Report> {
    if json {
        Box::new(Json)
    } else {
        Box::new(Human)
    }
}

/// How a one-shot command (`check`, `policy`, `status`, `doctor`, `undo`) gives its result:
/// one JSON document (`--json`), or text for a person. Each command renders both; this is the
/// one place that chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    Text,
    Json,
}

impl Format {
    pub(super) fn of(json: bool) -> Format {
        if json { Format::Json } else { Format::Text }
    }

    /// Where a result for people goes: standard output, or standard error when standard
    /// output carries JSON.
    pub(super) fn out(self) -> Out {
        match self {
            Format::Json => Out::Stderr,
            Format::Text => Out::Stdout,
        }
    }

    /// Gives the result: `json` makes the document, `text` the words.
    pub(super) fn give<T>(self, json: impl FnOnce() -> T, text: impl FnOnce() -> T) -> T {
        match self {
            Format::Json => json(),
            Format::Text => text(),
        }
    }
}

/// A person at a terminal.
pub(super) struct Human;

impl Report for Human {
    fn note(&mut self, line: &str) {
        super::progress::note(line);
    }

    fn warn(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn event(&mut self, event: Event) {
        super::progress::print(event);
    }

    fn turn_ended(&mut self, _turn: u64, stop: &Stop) {
        interactive_stop(stop, Out::Stdout);
    }

    fn rejected(&mut self, _problems: &[crate::protocol::parse::Diagnostic], message: &str) {
        print!("{message}");
    }

    fn applied(&mut self, _report: &crate::batch::Report, message: &str, _stop: &str, _: Status) {
        // The results message is data for the model; on a person's terminal it is shown with
        // its control characters escaped, so that a command's output cannot rewrite the screen.
        if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            print!("{}", crate::visible::shown(message));
        } else {
            print!("{message}");
        }
    }

    fn finished(&mut self, stop: &Stop, command: &str) -> Status {
        super::stop::report_stop_to(stop, command, Out::Stdout)
    }
}

/// `--json`: a person's lines on standard error, the events on standard output.
pub(super) struct Json;

impl Report for Json {
    fn note(&mut self, line: &str) {
        super::progress::note(line);
    }

    fn warn(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn started(&mut self, what: &Started) {
        events::print([events::started(what)]);
    }

    fn event(&mut self, event: Event) {
        events::print(events::on_turn(&event));
        super::progress::print(event);
    }

    fn model_chosen(&mut self, chosen: &crate::chat::models::Confirmed) {
        events::print([events::model_chosen(chosen)]);
    }

    fn chat_failed(&mut self, failure: &Failure) {
        events::print([events::finished(
            "chat_error",
            None,
            Some(failure),
            Status::Chat,
        )]);
    }

    fn rejected(&mut self, problems: &[crate::protocol::parse::Diagnostic], message: &str) {
        let problems: Vec<serde_json::Value> = problems
            .iter()
            .map(|d| serde_json::json!({"code": d.code.code(), "line": d.line, "message": d.message}))
            .collect();
        events::emit(
            "format_error",
            serde_json::json!({ "problems": problems, "text": message }),
        );
        self.ended("rejected", Status::Rejected);
    }

    fn applied(
        &mut self,
        report: &crate::batch::Report,
        message: &str,
        stop: &str,
        status: Status,
    ) {
        events::print(events::batch(report));
        events::emit("results", serde_json::json!({ "text": message }));
        self.ended(stop, status);
    }

    fn ended(&mut self, stop: &str, status: Status) {
        events::print([events::finished(stop, None, None, status)]);
    }

    fn task(&mut self, turn: u64, text: &str) {
        events::print([events::task(turn, text)]);
    }

    fn turn_ended(&mut self, turn: u64, stop: &Stop) {
        events::print([events::turn_ended(turn, stop)]);
        interactive_stop(stop, Out::Stderr);
    }

    fn new_chat(&mut self) {
        events::emit("new_chat", serde_json::json!({}));
    }

    fn undone(
        &mut self,
        batch: Option<u64>,
        actions: &[String],
        refused: &[crate::workspace::backup::NotRestored],
    ) {
        events::print([events::undone(batch, actions, refused)]);
    }

    fn settings(&mut self, mode: crate::config::Mode, pace: crate::config::Pace) {
        events::print([events::settings(mode, pace)]);
    }

    fn quit(&mut self) {
        events::print([events::finished("quit", None, None, Status::Success)]);
    }

    fn finished(&mut self, stop: &Stop, command: &str) -> Status {
        let status = super::stop::report_stop_to(stop, command, Out::Stderr);
        events::print([events::turn_finished(stop, status)]);
        status
    }
}

/// How `interactive` tells a turn's end: as `run` does, except that Ctrl+C only ends the turn
/// (the next line is the way on, not another run).
fn interactive_stop(stop: &Stop, out: Out) {
    match stop {
        Stop::Chat(failure) if failure.code == Code::Cancelled => eprintln!(
            "keyless interactive: {}: the turn stopped (Ctrl+C); the next line goes on in the same chat",
            failure.code
        ),
        stop => {
            let _ = super::stop::report_stop_to(stop, "interactive", out);
        }
    }
}
