//! `keyless prompt`: prints the first message the model would get for a task in this workspace.

use crate::app::conversation;
use crate::app::start;
use crate::exit::Status;

use super::args::Shared;

pub fn run(task: &str, shared: &Shared) -> Status {
    let config = match shared.load_config("prompt") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let choices = shared.choices();
    let root = choices.workspace_or_here();
    let settings = start::batch_settings(&config, &choices, &root);
    let task = if task.trim().is_empty() {
        "(the task goes here)"
    } else {
        task
    };
    let sandbox = start::sandbox_for(&choices, &config, &root);
    let ws = start::guarded(&choices, &config, &root).ok();
    print!(
        "{}",
        conversation::first_message(
            task,
            &root,
            ws.as_ref(),
            &config,
            &settings,
            &sandbox,
            "prompt",
            &mut super::report::Human,
        )
    );
    Status::Success
}
