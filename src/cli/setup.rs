//! What the command line adds to a command's start (`app::start` makes the rest): Ctrl+C and a
//! closed terminal handled for the process, and a start-up error said as
//! `keyless COMMAND: …` with the usage status.

use super::args::Shared;
use crate::app::report::Report;
use crate::app::start::{Start, StartError};
use crate::exit::Status;

/// Reads the person's files for `--attach`/`/attach` (relative paths from the current folder;
/// `workspace`, default the current folder, is where a symbolic link is never followed); a
/// path that is not a readable file is said as `keyless COMMAND: CODE: …` with the usage
/// status, before anything opens.
pub(super) fn read_attachments(
    command: &str,
    paths: &[std::path::PathBuf],
    workspace: Option<&std::path::Path>,
) -> Result<Vec<crate::chat::attach::Attachment>, Status> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let here = std::env::current_dir().unwrap_or_default();
    let workspace = here.join(workspace.unwrap_or(&here));
    crate::chat::attach::read(paths, &here, Some(&workspace)).map_err(|f| {
        eprintln!("keyless {command}: {}: {}", f.code, f.reason);
        Status::Usage
    })
}

/// Says why `command` could not start; the usage status.
pub(super) fn refused(command: &str, error: &StartError) -> Status {
    eprintln!("keyless {command}: {error}");
    Status::Usage
}

/// The start of `command` in the flags' workspace, from its configuration, with Ctrl+C
/// handled; a problem is printed and its status returned.
pub(super) fn start(
    shared: &Shared,
    config: crate::config::Config,
    command: &str,
    report: &mut dyn Report,
) -> Result<Start, Status> {
    let start = Start::with(&shared.choices(), config, command, report)
        .map_err(|e| refused(command, &e))?;
    install_ctrl_c();
    Ok(start)
}

/// Ctrl+C cancels the running command (its partial output is kept); a second Ctrl+C ends
/// keyless at once.
pub(super) fn install_ctrl_c() {
    let _ = ctrlc::set_handler(|| {
        if crate::cancel::request() {
            // Leaving at once, without unwinding: the browser's own group ends here.
            crate::cancel::end_groups();
            std::process::exit(130);
        }
    });
    on_hangup();
    on_terminate();
}

/// SIGTERM (`timeout`, `kill`, a service manager) asks keyless to stop as Ctrl+C does: the wait
/// or command under way stops, the session is kept, and the browser keyless launched is closed
/// on the way out (before, it stayed running, orphaned). Keyless is gone within
/// [`TERMINATE_GRACE`] all the same (an alarm ends it and the browser's group, as when it sat
/// at a prompt), and a second SIGTERM ends both at once.
fn on_terminate() {
    #[cfg(unix)]
    {
        extern "C" fn leave(_: libc::c_int) {
            crate::cancel::end_groups();
            // SAFETY: _exit is async-signal-safe and ends the process at once.
            unsafe { libc::_exit(TERMINATED_STATUS) }
        }
        extern "C" fn terminated(signal: libc::c_int) {
            if crate::cancel::request() {
                leave(signal);
            }
            // SAFETY: alarm is async-signal-safe.
            unsafe {
                libc::alarm(TERMINATE_GRACE);
            }
        }
        // SAFETY: the handlers do only async-signal-safe work (atomics, alarm, killpg, _exit).
        unsafe {
            libc::signal(
                libc::SIGALRM,
                leave as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
            libc::signal(
                libc::SIGTERM,
                terminated as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// Seconds keyless has, after a SIGTERM, to stop what it does and close the browser it launched.
#[cfg(unix)]
const TERMINATE_GRACE: libc::c_uint = 10;

/// The exit status when a second SIGTERM ends keyless at once (128 + 15).
#[cfg(unix)]
const TERMINATED_STATUS: libc::c_int = 143;

/// The terminal closed (SIGHUP): keyless leaves, and with it the browser it launched, which runs
/// in a process group of its own that the terminal's hangup never reaches.
fn on_hangup() {
    #[cfg(unix)]
    {
        extern "C" fn hung_up(_: libc::c_int) {
            crate::cancel::end_groups();
            // SAFETY: _exit is async-signal-safe and ends the process at once.
            unsafe { libc::_exit(HANGUP_STATUS) }
        }
        // SAFETY: the handler does only async-signal-safe work (an atomic, killpg, _exit).
        unsafe {
            libc::signal(
                libc::SIGHUP,
                hung_up as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// The exit status after a hangup, as a shell reports a process ended by SIGHUP (128 + 1).
#[cfg(unix)]
const HANGUP_STATUS: libc::c_int = 129;

/// What contains the model's commands in `root`, in the mode the flags and the configuration
/// give, for `doctor`, which only reports it: a configuration it cannot read is left to the
/// commands that need it, and the defaults stand in.
pub(super) fn containment_here(
    shared: &Shared,
    root: &std::path::Path,
) -> (crate::exec::sandbox::Containment, crate::config::Mode) {
    let config = crate::config::file::load(shared.config.as_deref(), root).unwrap_or_default();
    crate::app::start::containment_with(&shared.choices(), &config, root)
}
