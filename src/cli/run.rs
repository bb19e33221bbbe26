//! `keyless run "task"`: one turn on a real chat site (or any site in selectors.json): the
//! first message, then the loop until @@done or a stop reason.

use crate::chat::cdp::CdpDriver;
use crate::exit::Status;
use crate::turn::{self, prompt};

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
    let settings = super::batch_settings(&config, shared, ws.root());
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
    super::report_stop(stop, "run")
}
