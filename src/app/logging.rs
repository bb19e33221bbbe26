//! Logs for the turn commands (`run`, `interactive`, `demo`): `tracing` events written to
//! `<workspace>/.agent/logs/keyless.log`, keyless's at info level and chromiumoxide's at error
//! level only (its schema is older than Chromium and it warns on every newer event).

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::Mutex;

use tracing::Level;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

/// Starts logging to the workspace's `.agent/logs/keyless.log`. Failing to open the log is
/// told once to `report`, and keyless goes on without it.
pub fn init(root: &Path, report: &mut dyn crate::app::report::Report) {
    let folder = crate::workspace::agent::Agent::Logs.under(root);
    let file = std::fs::create_dir_all(&folder).and_then(|()| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(folder.join("keyless.log"))
    });
    let file = match file {
        Ok(file) => file,
        Err(e) => {
            report.warn(&format!("keyless: no log file ({e}); going on without one"));
            return;
        }
    };
    let filter = Targets::new()
        .with_target("keyless", Level::INFO)
        .with_target("chromiumoxide", Level::ERROR);
    let layer = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(Mutex::new(file));
    let _ = tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .try_init();
}
