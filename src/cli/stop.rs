//! How a turn's end is told to people (the outcome on standard output, or standard error when
//! standard output carries JSON events; a failure on standard error) and which exit status it
//! gives.

use crate::exit::Status;
use crate::visible::shown;

/// Where a command's result for people goes: standard output, or standard error when standard
/// output carries JSON events (`--json`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Out {
    Stdout,
    Stderr,
}

impl Out {
    pub(super) fn line(self, text: &str) {
        match self {
            Out::Stdout => println!("{text}"),
            Out::Stderr => eprintln!("{text}"),
        }
    }
}

/// The command that resumes this run, as the person must type it (its workspace, profile,
/// browser and page flags with it), set once as a run begins. Without it the messages name
/// `keyless run --resume` alone (right in the workspace, with the defaults).
static RESUME: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Sets the command that resumes this run from its flags (those that say where and how: a
/// resume with other ones opens another workspace, profile or page).
pub(super) fn set_resume_command(shared: &super::args::Shared) {
    let _ = RESUME.set(shared.choices().resume_command());
}

/// `text` with `keyless run --resume` spelled as this run's resume command.
pub(super) fn with_resume(text: &str) -> String {
    match RESUME.get() {
        Some(cmd) => text.replace("keyless run --resume", cmd),
        None => text.to_string(),
    }
}

/// Prints why a turn ended (the outcome to `out`, a failure to standard error) and returns the
/// matching exit status.
pub(super) fn report_stop_to(stop: &crate::turn::Stop, command: &str, out: Out) -> Status {
    use crate::turn::Stop;
    match stop {
        Stop::Done { message } => {
            out.line(&format!(
                "Done. {}",
                shown(message.as_deref().unwrap_or_default().trim())
            ));
            Status::Success
        }
        Stop::FormatRetries { last_reply } => {
            out.line(&format!(
                "Stopped: the model's replies were not valid AgentScript too many times in a row. Its last reply:\n{}",
                shown(last_reply)
            ));
            Status::Stopped
        }
        Stop::Iterations { limit } => {
            out.line(&format!(
                "Stopped: {limit} replies without @@done (Limits.MaxIterationsPerTurn). Run again to go on."
            ));
            Status::Stopped
        }
        Stop::Chat(failure) => {
            eprintln!(
                "keyless {command}: {}: {}",
                failure.code,
                with_resume(&failure.reason)
            );
            if failure.code == crate::catalog::Code::Cancelled {
                Status::Interrupted
            } else {
                Status::Chat
            }
        }
    }
}
