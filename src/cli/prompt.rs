//! `keyless prompt`: prints the first message the model would get for a task in this workspace.

use crate::exit::Status;
use crate::turn::prompt::{Snapshot, first_message};

use super::Shared;

pub fn run(task: &str, shared: &Shared) -> Status {
    let config = match super::load_config(shared, "prompt") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let root = shared.workspace.clone().unwrap_or_else(|| ".".into());
    let pace = shared.pace.map(Into::into).unwrap_or(config.agent.pace);
    let mut snapshot = Snapshot::take(
        &root,
        &config.snapshot.tools,
        config.commands.shell.as_deref(),
    );
    for warning in snapshot.run_scripts(&root, &config.snapshot.scripts) {
        eprintln!(
            "keyless prompt: {}: {} (the snapshot goes on without it)",
            warning.code, warning.reason
        );
    }
    let task = if task.trim().is_empty() {
        "(the task goes here)"
    } else {
        task
    };
    print!("{}", first_message(task, &config.limits, pace, &snapshot));
    Status::Success
}
