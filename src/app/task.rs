//! One task from start to end, for every front door that runs one (`keyless run`, the MCP
//! server's `run_task`): the start-up, where the workspace's conversation stands (resume, the
//! saved chat, a new one), the chat opened, the turn, the chat closed, and what changed.
//!
//! What it does not do: read a person's answers (the front door's [`Person`] does) or print
//! (its [`Report`] does).

use super::Choices;
use super::conversation::{self, Conversation, Saved};
use super::report::{Report, Started};
use super::start::{Start, StartError};
use crate::batch::{Joined, Person};
use crate::exit::Status;
use crate::turn::{self, Event, Stop, Summary};
use crate::workspace::backup::{self, Change};

/// How a front door begins a task.
pub struct Begin<'a> {
    /// The command's name in what is told (`run`, `mcp`).
    pub command: &'a str,
    /// The task; empty when only an interrupted turn is to be resumed.
    pub task: &'a str,
    /// The front door's last word before the browser opens, given where the workspace's
    /// conversation stands: its own checks of the saved state, and what it sets up for the
    /// process (Ctrl+C). An `Err` ends the task there, with that status.
    pub check: &'a dyn Fn(&Saved) -> Result<(), Status>,
    /// Where the chat driver's notices for a person go (a login wall in a window).
    pub notice: Option<fn(&str)>,
    /// The person's done-check (`--until`): run in the sandbox after an honoured `@@done`; a
    /// resumed turn keeps the one it was started with unless another is given.
    pub until: Option<String>,
    /// The person's files for the task's first message (read already, before anything
    /// opened); a resumed turn takes none.
    pub attachments: Vec<crate::chat::attach::Attachment>,
}

/// Why a task did not begin.
#[derive(Debug)]
pub enum Refused {
    /// The start-up failed.
    Start(StartError),
    /// The front door's check said no ([`Begin::check`]).
    Check(Status),
}

/// How a task ended.
#[derive(Debug)]
pub struct Done {
    /// Why the turn stopped.
    pub stop: Stop,
    /// Its exit status, as the reporter told it.
    pub status: Status,
    /// What the turn did, when it ran (not when the chat did not open).
    pub summary: Option<Summary>,
    /// What this task's batches changed and did not undo, each path once.
    pub changes: Vec<Change>,
}

/// Runs one task: resumes the workspace's interrupted turn, or sends `begin.task` as a new
/// chat's first message or as the saved chat's next task, and drives the turn to its end.
pub fn run<P: Person>(
    choices: &Choices,
    begin: Begin,
    person: P,
    report: &mut dyn Report,
) -> Result<Done, Refused> {
    let command = begin.command;
    let (mut start, mut options) = Start::chat(choices, command, report).map_err(Refused::Start)?;
    super::logging::init(start.ws.root(), report);
    options.notice = begin.notice;
    let saved = conversation::saved(
        &start.ws,
        &options.site_name,
        choices.new_chat,
        command,
        report,
    );
    (begin.check)(&saved).map_err(Refused::Check)?;
    start.settings.until = match (&saved, begin.until.clone()) {
        (_, Some(until)) => Some(until),
        (Saved::Interrupted(s), None) => s.until.clone(),
        (_, None) => None,
    };
    let task = begin.task;
    report.started(&Started {
        command,
        workspace: start.ws.root(),
        task: Some(task).filter(|t| !t.is_empty()),
        resume: matches!(saved, Saved::Interrupted(_)),
        chat: Some((&options.site_name, &options.url)),
        file: None,
        mode: start.settings.mode,
        pace: start.settings.pace,
    });
    let mut driver = match super::chat::open(options, command, report) {
        Ok(driver) => driver,
        Err(failure) => {
            report.chat_failed(&failure);
            return Ok(Done {
                stop: Stop::Chat(failure),
                status: Status::Chat,
                summary: None,
                changes: Vec::new(),
            });
        }
    };
    let before = backup::newest(&start.ws);
    let mut summary = None;
    let (config, ws, settings) = (&start.config, &start.ws, &start.settings);
    let machine = start.machine;
    let next = match saved {
        Saved::Interrupted(s) => {
            conversation::announce_resume(&s, command, report);
            Next::Resume(Box::new(s))
        }
        saved => {
            let rules = conversation::first_message(
                task,
                ws.root(),
                Some(ws),
                config,
                settings,
                machine.sandbox(),
                command,
                report,
            );
            let mut chat = match &saved {
                Saved::Chat(s) if conversation::open_chat(&mut driver, s, command, report) => {
                    Conversation::going_on(Some(s.rules.clone().unwrap_or_default()), s.turn)
                }
                _ => Conversation::new_chat(),
            };
            let mut task = chat.next_task(task, settings, || rules);
            task.attachments = begin.attachments;
            Next::Run(task)
        }
    };
    let mut host = Joined {
        person,
        runner: machine,
    };
    let mut progress = |event: Event| {
        if let Event::Finished { summary: s } = &event {
            summary = Some(Summary::clone(s));
        }
        report.event(event);
    };
    let stop = match next {
        Next::Resume(s) => turn::resume(*s, &mut driver, ws, &mut host, settings, &mut progress),
        Next::Run(task) => turn::run(task, &mut driver, ws, &mut host, settings, &mut progress),
    };
    super::chat::close(driver, report);
    let status = report.finished(&stop, command);
    let changes = backup::changes_since(&start.ws, before);
    Ok(Done {
        stop,
        status,
        summary,
        changes,
    })
}

/// What the turn does: pick up the interrupted one, or run a new one.
enum Next {
    Resume(Box<crate::turn::record::Session>),
    Run(turn::Task),
}
