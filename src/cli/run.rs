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
    attach: &[std::path::PathBuf],
    json: bool,
    shared: &Shared,
) -> Status {
    // `--attach` takes the words after it up to the next option: a task written after the files
    // is taken for one. When no task was given and the last "file" is none, it was the task.
    if let (None, Some((last, files))) = (task, attach.split_last())
        && !last.exists()
        && !files.is_empty()
    {
        eprintln!(
            "keyless run: --attach takes every word after it up to the next option, so \"{}\" was read as a file, and there is no such file; if it is the task, give it before --attach: keyless run \"{}\" --attach {}",
            crate::visible::shown(&last.to_string_lossy()),
            crate::visible::shown(&last.to_string_lossy()),
            files
                .iter()
                .map(|f| crate::visible::shown(&f.to_string_lossy()).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
        return Status::Usage;
    }
    // The person's files are read first: a path that is not a readable file is refused
    // before anything opens.
    let attachments =
        match super::setup::read_attachments("run", attach, shared.workspace.as_deref()) {
            Ok(files) => files,
            Err(status) => return status,
        };
    if !attachments.is_empty() && task.is_none() {
        eprintln!(
            "keyless run: --attach goes with a task's first message; give the task: keyless run \"what to do\" --attach FILE"
        );
        return Status::Usage;
    }
    super::stop::set_resume_command(shared);
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
            (Saved::Interrupted(_), _) if !attachments.is_empty() => {
                eprintln!(
                    "keyless run: a turn stopped half-way here; its first message went already, so --attach cannot go with it. `keyless run --resume` finishes it without new files; `keyless run --new-chat \"TASK\" --attach FILE` starts the task again with them."
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
        attachments: attachments.clone(),
    };
    let person = super::terminal::Terminal::here();
    match task::run(&choices, begin, person, report.as_mut()) {
        Ok(done) => done.status,
        Err(task::Refused::Start(e)) => super::setup::refused("run", &e),
        Err(task::Refused::Check(status)) => status,
    }
}
