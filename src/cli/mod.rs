//! The command line: the dispatch to each subcommand (its clap definitions are in `args.rs`,
//! where each starts in `setup.rs`), and how a turn's end is reported. `main` only maps the
//! returned [`Status`] to the process exit code.

mod apply;
mod args;
mod check;
mod completions;
mod demo;
mod doctor;
mod driver;
mod events;
mod interactive;
mod logging;
mod policy;
mod progress;
mod prompt;
mod run;
mod session;
mod setup;
mod status;
mod terminal;

pub use args::{Args, Mode, Pace, Shared, Subcommands};

use crate::exit::Status;

/// Runs the parsed command line and returns how it ended.
pub fn run(args: Args) -> Status {
    progress::set_level(if args.quiet {
        progress::Level::Quiet
    } else if args.verbose {
        progress::Level::Verbose
    } else {
        progress::Level::Normal
    });
    // Commands that print a result and talk to no browser or server end quietly when their
    // reader goes away (`keyless policy … | head -1`), as other command-line tools do.
    if matches!(
        args.command,
        Subcommands::Check { .. }
            | Subcommands::Policy { .. }
            | Subcommands::Prompt { .. }
            | Subcommands::Apply { .. }
            | Subcommands::Undo { .. }
            | Subcommands::Status { .. }
            | Subcommands::Completions { .. }
            | Subcommands::Man { .. }
    ) {
        end_quietly_on_closed_output();
    }
    let browserless = match &args.command {
        Subcommands::Apply { shared, .. } => Some(("apply", shared)),
        Subcommands::Policy { shared, .. } => Some(("policy", shared)),
        Subcommands::Prompt { shared, .. } => Some(("prompt", shared)),
        Subcommands::Undo { shared } => Some(("undo", shared)),
        Subcommands::Status { shared, .. } => Some(("status", shared)),
        _ => None,
    };
    if let Some((name, shared)) = browserless {
        // A selectors file is a deliberate input: given where nothing reads it, the user
        // believes it was used. The other browser options are shared by contract and noted.
        if let Some(file) = &shared.selectors {
            eprintln!(
                "keyless {name}: --selectors {} is not used: keyless {name} opens no browser. Leave it out (it applies to run, interactive and doctor).",
                file.display()
            );
            return Status::Usage;
        }
        let unused = shared.browser_options();
        if !unused.is_empty() && !progress::quiet() {
            eprintln!(
                "keyless {name}: {} ha{} no effect here: keyless {name} opens no browser",
                unused.join(", "),
                if unused.len() == 1 { "s" } else { "ve" }
            );
        }
    }
    match args.command {
        Subcommands::Check {
            file,
            json,
            config,
            workspace,
        } => check::run(
            file.as_deref(),
            json,
            config.as_deref(),
            workspace.as_deref(),
        ),
        Subcommands::Run {
            task,
            resume,
            json,
            shared,
        } => run::run(task.as_deref(), resume, json, &shared),
        Subcommands::Interactive {
            local,
            json,
            shared,
        } => interactive::run(&shared, local, json),
        Subcommands::Doctor {
            json,
            canary,
            learn,
            shared,
        } => doctor::run(&shared, json, canary, learn),
        Subcommands::Apply { file, json, shared } => apply::apply(file.as_deref(), json, &shared),
        Subcommands::Policy {
            cmdline,
            json,
            shared,
        } => policy::run(&cmdline, json, &shared),
        Subcommands::Prompt { task, shared } => prompt::run(&task, &shared),
        Subcommands::Demo { shared } => demo::run(&shared),
        Subcommands::Undo { shared } => apply::undo(&shared),
        Subcommands::Status { json, shared } => status::run(&shared, json),
        Subcommands::Completions { shell } => completions::completions(shell),
        Subcommands::Man { subcommand } => completions::man(subcommand.as_deref()),
    }
}

/// Restores the default SIGPIPE action, which Rust's runtime ignores (so that printing to a
/// closed pipe would panic). Never for commands holding sockets to a browser or a server: a
/// dropped connection there must be an error keyless reports, not a silent death.
fn end_quietly_on_closed_output() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Prints why a turn ended and returns the matching exit status.
fn report_stop(stop: crate::turn::Stop, command: &str) -> Status {
    report_stop_to(&stop, command, Out::Stdout)
}

/// Where a command's result for people goes: standard output, or standard error when standard
/// output carries JSON events (`--json`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Out {
    Stdout,
    Stderr,
}

impl Out {
    fn for_json(json: bool) -> Out {
        if json { Out::Stderr } else { Out::Stdout }
    }

    fn line(self, text: &str) {
        match self {
            Out::Stdout => println!("{text}"),
            Out::Stderr => eprintln!("{text}"),
        }
    }
}

/// Prints why a turn ended (the outcome to `out`, a failure to standard error) and returns the
/// matching exit status.
fn report_stop_to(stop: &crate::turn::Stop, command: &str, out: Out) -> Status {
    use crate::turn::Stop;
    match stop {
        Stop::Done { message } => {
            out.line(&format!(
                "Done. {}",
                message.as_deref().unwrap_or_default().trim()
            ));
            Status::Success
        }
        Stop::FormatRetries { last_reply } => {
            out.line(&format!(
                "Stopped: the model's replies were not valid AgentScript too many times in a row. Its last reply:\n{last_reply}"
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
            eprintln!("keyless {command}: {}: {}", failure.code, failure.reason);
            if failure.code == crate::catalog::Code::Cancelled {
                Status::Interrupted
            } else {
                Status::Chat
            }
        }
    }
}

/// Reads a reply from FILE, or from standard input for `-` or no file.
fn read_reply(file: Option<&std::path::Path>) -> Result<Reply, String> {
    use std::io::Read;
    let bytes = match file {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            buf
        }
    };
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Reply {
            text,
            not_utf8: None,
        },
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Reply {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                not_utf8: Some(crate::protocol::parse::Diagnostic {
                    code: crate::catalog::Code::ParseStrayText,
                    line: Some(line),
                    message: format!(
                        "line {line} holds bytes that are not UTF-8 (the first at byte {at}; shown as U+FFFD): a reply is UTF-8 text. Resend it as text."
                    ),
                }),
            }
        }
    })
}

/// A reply read from a file or standard input.
struct Reply {
    /// The text; bytes that are not UTF-8 are U+FFFD here.
    text: String,
    /// The problem that the bytes were not all UTF-8.
    not_utf8: Option<crate::protocol::parse::Diagnostic>,
}

impl Reply {
    /// Parses the reply; bytes that were not UTF-8 are a problem like any other, so such a
    /// reply never executes.
    fn parse(&self, limits: &crate::config::Limits) -> crate::protocol::parse::Parsed {
        let mut parsed = crate::protocol::parse(&self.text, limits);
        if let Some(problem) = &self.not_utf8 {
            parsed.diagnostics.insert(0, problem.clone());
            parsed.script = None;
        }
        parsed
    }
}
