//! `keyless prompt`: prints the first message the model would get for a task in this workspace.

use crate::exit::Status;

use super::args::Shared;

pub fn run(task: &str, shared: &Shared) -> Status {
    let config = match shared.load_config("prompt") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let root = shared.workspace.clone().unwrap_or_else(|| ".".into());
    let settings = super::setup::batch_settings(&config, shared, &root);
    let task = if task.trim().is_empty() {
        "(the task goes here)"
    } else {
        task
    };
    print!(
        "{}",
        super::setup::first_message(shared, task, &root, &config, &settings, "prompt")
    );
    Status::Success
}
