//! `keyless run "task"`: one turn on a real chat site (or any site in selectors.json): the
//! first message, then the loop until @@done or a stop reason. A turn that stopped half-way is
//! resumed (`--resume`, or the same task again); a finished turn's chat is reused for the next
//! task unless `--new-chat`.

use crate::exit::Status;
use crate::turn;

use super::args::Shared;
use super::session::{self, Saved};
use super::setup::Start;

pub fn run(
    task: Option<&str>,
    resume: bool,
    until: Option<String>,
    json: bool,
    shared: &Shared,
) -> Status {
    let (mut start, options) = match Start::chat(shared, "run") {
        Ok(started) => started,
        Err(status) => return status,
    };
    let saved = session::saved(&start.ws, &options.site_name, shared.new_chat, "run");
    // A resumed turn keeps the done-check it was started with, unless another is given.
    start.settings.until = match (&saved, until) {
        (_, Some(until)) => Some(until),
        (Saved::Interrupted(s), None) => s.until.clone(),
        (_, None) => None,
    };
    let (ws, settings) = (&start.ws, &start.settings);
    // Decide before the browser opens: a mistake costs nothing then.
    match (&saved, task) {
        (Saved::Interrupted(s), Some(task)) if !resume && s.task.as_deref() != Some(task) => {
            eprintln!(
                "keyless run: a turn for another task stopped half-way here (\"{}\"). `keyless run --resume` finishes it; `keyless run --new-chat \"{task}\"` drops it and starts this task in a new chat.",
                s.task.as_deref().unwrap_or("unknown")
            );
            return Status::Usage;
        }
        (Saved::Interrupted(_), _) => {}
        (_, None) => {
            eprintln!(
                "keyless run: nothing to resume in this workspace; give a task: keyless run \"what to do\""
            );
            return Status::Usage;
        }
        (_, Some(_)) if resume => {
            eprintln!("keyless run: nothing to resume in this workspace; starting the task");
        }
        _ => {}
    }
    if json {
        super::events::started(super::events::Started {
            command: "run",
            workspace: ws.root(),
            task,
            resume: matches!(saved, Saved::Interrupted(_)),
            chat: Some((&options.site_name, &options.url)),
            file: None,
            mode: settings.mode,
            pace: settings.pace,
        });
    }
    let mut driver = match super::driver::start_driver_failing(options, "run") {
        Ok(driver) => driver,
        Err(failure) => {
            if json {
                super::events::finished("chat_error", None, Some(&failure), Status::Chat);
            }
            return Status::Chat;
        }
    };
    if json {
        super::driver::tell_chosen(&driver);
    }
    let mut host = start.host(shared);
    let progress = &mut |event: turn::Event| {
        if json {
            super::events::on_turn(&event);
        }
        super::progress::print(event);
    };
    let stop = match saved {
        Saved::Interrupted(s) => {
            session::announce_resume(&s, "run");
            turn::resume(s, &mut driver, ws, &mut host, settings, progress)
        }
        saved => {
            let task = task.unwrap_or_default();
            let rules = start.first_message(shared, task, "run");
            let (has_rules, next_turn) = match &saved {
                Saved::Chat(s) => (session::open_chat(&mut driver, s, "run"), s.turn + 1),
                _ => (false, 1),
            };
            let chat_rules = match &saved {
                Saved::Chat(s) => s.rules.clone().unwrap_or_default(),
                _ => String::new(),
            };
            let first = if has_rules {
                turn::prompt::next_task(
                    task,
                    next_turn,
                    &chat_rules,
                    settings.pace,
                    &settings.limits,
                )
            } else {
                rules.clone()
            };
            let task = turn::Task {
                task: task.to_string(),
                rules,
                first,
                turn: if has_rules { next_turn } else { 1 },
            };
            turn::run(task, &mut driver, ws, &mut host, settings, progress)
        }
    };
    super::driver::close_driver(driver);
    let status = super::stop::report_stop_to(&stop, "run", super::stop::Out::for_json(json));
    if json {
        super::events::turn_finished(&stop, status);
    }
    status
}
