//! `keyless run "task"`: one turn on a real chat site (or any site in selectors.json): the
//! first message, then the loop until @@done or a stop reason.

use crate::batch::Settings;
use crate::catalog::Code;
use crate::chat::cdp::CdpDriver;
use crate::exec::snapshot;
use crate::exit::Status;
use crate::git;
use crate::turn::{self, Stop, prompt};

use super::Shared;
use super::terminal::TerminalHost;

pub fn run(task: &str, shared: &Shared) -> Status {
    let config = match super::load_config(shared, "run") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let options = match super::driver_options(shared, "run") {
        Ok(options) => options,
        Err(status) => return status,
    };
    let ws = match super::apply::open_workspace(shared, "run") {
        Ok(ws) => ws,
        Err(status) => return status,
    };
    let mut settings = Settings::from_config(&config);
    if let Some(pace) = shared.pace {
        settings.pace = pace.into();
    }
    if let Some(mode) = shared.mode {
        settings.mode = mode.into();
    }
    settings.missing_tools = snapshot::missing(&config.snapshot.tools);
    settings.git_hazards = git::read_only_hazards(ws.root());
    super::apply::install_ctrl_c();
    super::logging::init(ws.root());

    let shell = config.commands.shell.as_deref();
    let mut snapshot = prompt::Snapshot::take(ws.root(), &config.snapshot.tools, shell);
    for warning in snapshot.run_scripts(ws.root(), &config.snapshot.scripts) {
        eprintln!(
            "keyless run: {}: {} (the turn goes on without it)",
            warning.code, warning.reason
        );
    }
    if !ws.root().join(".agent/session.json").is_file() {
        eprintln!(
            "keyless: KA_SESSION_NOT_FOUND: no saved session in this workspace (expected on a first run); starting a new chat"
        );
    }
    let first = prompt::first_message(task, &settings.limits, settings.pace, &snapshot);
    eprintln!(
        "keyless: opening {} ({}) in {}",
        options.site_name,
        options.url,
        options.profile.display()
    );
    let mut driver = match CdpDriver::start(options) {
        Ok(driver) => driver,
        Err(failure) => {
            eprintln!("keyless run: {}: {}", failure.code, failure.reason);
            return Status::Chat;
        }
    };
    let mut host = TerminalHost::new(
        ws.root().to_path_buf(),
        settings.limits.max_command_output_chars,
        config.git.clone(),
        config.commands.shell.clone(),
    );
    let stop = turn::run(
        first,
        &mut driver,
        &ws,
        &mut host,
        &settings,
        &mut super::progress::print,
    );
    driver.close();
    match stop {
        Stop::Done { message } => {
            println!("Done. {}", message.unwrap_or_default().trim());
            Status::Success
        }
        Stop::FormatRetries { last_reply } => {
            println!(
                "Stopped: the model's replies were not valid AgentScript {} times in a row. Its last reply:\n{last_reply}",
                settings.limits.max_format_retries + 1
            );
            Status::Stopped
        }
        Stop::Iterations { limit } => {
            println!(
                "Stopped: {limit} replies without @@done (Limits.MaxIterationsPerTurn). Run again to go on."
            );
            Status::Stopped
        }
        Stop::Chat(failure) => {
            eprintln!("keyless run: {}: {}", failure.code, failure.reason);
            if failure.code == Code::Cancelled {
                Status::Interrupted
            } else {
                Status::Chat
            }
        }
    }
}
