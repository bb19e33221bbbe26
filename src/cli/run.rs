//! `keyless run "task"`: one turn on a real chat site (or any site in selectors.json): the
//! first message, then the loop until @@done or a stop reason.

use crate::exit::Status;
use crate::turn;

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

    if !ws.root().join(".agent/session.json").is_file() {
        eprintln!(
            "keyless: KA_SESSION_NOT_FOUND: no saved session in this workspace (expected on a first run); starting a new chat"
        );
    }
    let first = super::first_message(
        task,
        ws.root(),
        &config,
        &settings.limits,
        settings.pace,
        "run",
    );
    let mut driver = match super::start_driver(options, "run") {
        Ok(driver) => driver,
        Err(status) => return status,
    };
    let mut host = TerminalHost::from_config(ws.root().to_path_buf(), &settings, &config);
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
