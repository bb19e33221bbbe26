//! `keyless run "task"`: one turn on a real chat site (or any site in selectors.json): the
//! first message, then the loop until @@done or a stop reason. A turn that stopped half-way is
//! resumed (`--resume`, or the same task again); a finished turn's chat is reused for the next
//! task unless `--new-chat`. The command line's part: the flags' checks and the person's
//! words; the turn itself is `app::task`.

use crate::app::conversation::Saved;
use crate::app::task::{self, Begin};
use crate::exit::Status;

use super::args::Shared;

pub fn run(
    task: Option<&str>,
    resume: bool,
    until: Option<String>,
    json: bool,
    shared: &Shared,
) -> Status {
    let mut report = super::report::for_json(json);
    let choices = shared.choices();
    let check = |saved: &Saved| -> Result<(), Status> {
        // Decide before the browser opens: a mistake costs nothing then.
        let checked = match (saved, task) {
            (Saved::Interrupted(s), Some(task)) if !resume && s.task.as_deref() != Some(task) => {
                eprintln!(
                    "keyless run: a turn for another task stopped half-way here (\"{}\"). `keyless run --resume` finishes it; `keyless run --new-chat \"{task}\"` drops it and starts this task in a new chat.",
                    s.task.as_deref().unwrap_or("unknown")
                );
                Err(Status::Usage)
            }
            (Saved::Interrupted(_), _) => Ok(()),
            (_, None) => {
                eprintln!(
                    "keyless run: nothing to resume in this workspace; give a task: keyless run \"what to do\""
                );
                Err(Status::Usage)
            }
            (_, Some(_)) if resume => {
                eprintln!("keyless run: nothing to resume in this workspace; starting the task");
                Ok(())
            }
            _ => Ok(()),
        };
        if checked.is_ok() {
            super::setup::install_ctrl_c();
        }
        checked
    };
    let begin = Begin {
        command: "run",
        task: task.unwrap_or_default(),
        check: &check,
        notice: Some(super::terminal::notice),
        until,
    };
    let person = super::terminal::Terminal::here();
    match task::run(&choices, begin, person, report.as_mut()) {
        Ok(done) => done.status,
        Err(task::Refused::Start(e)) => super::setup::refused("run", &e),
        Err(task::Refused::Check(status)) => status,
    }
}
