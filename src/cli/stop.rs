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
    let quote = |p: &std::path::Path| {
        let text = std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .to_string_lossy()
            .into_owned();
        shell_word(&text)
    };
    let mut cmd = String::from("keyless run --resume");
    if let Some(w) = &shared.workspace {
        cmd += &format!(" --workspace {}", quote(w));
    }
    if let Some(mode) = shared.mode {
        cmd += &format!(" --mode {}", mode_word(mode));
    }
    if let Some(c) = &shared.config {
        cmd += &format!(" --config {}", quote(c));
    }
    if let Some(site) = &shared.site {
        cmd += &format!(" --site {}", shell_word(site));
    }
    if let Some(url) = &shared.url {
        cmd += &format!(" --url {}", shell_word(url));
    }
    if let Some(s) = &shared.selectors {
        cmd += &format!(" --selectors {}", quote(s));
    }
    if let Some(cdp) = &shared.cdp {
        cmd += &format!(" --cdp {}", shell_word(cdp));
    }
    if let Some(b) = &shared.browser {
        cmd += &format!(" --browser {}", quote(b));
    }
    if shared.headless {
        cmd += " --headless";
    }
    if let Some(p) = &shared.profile {
        cmd += &format!(" --profile {}", quote(p));
    }
    let _ = RESUME.set(cmd);
}

/// A word as a POSIX shell reads it back: as it is when it holds only safe characters, else in
/// single quotes.
fn shell_word(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// A mode as `--mode` takes it.
fn mode_word(mode: super::args::Mode) -> &'static str {
    match mode {
        super::args::Mode::Ask => "ask",
        super::args::Mode::Autosafe => "autosafe",
        super::args::Mode::Auto => "auto",
    }
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
