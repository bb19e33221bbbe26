//! The command line: the dispatch to each subcommand (its clap definitions are in `args.rs`,
//! where each starts in `setup.rs`), and how a turn's end is reported. `main` only maps the
//! returned [`Status`] to the process exit code.

mod apply;
mod args;
mod check;
mod completions;
mod demo;
mod doctor;
mod events;
mod interactive;
mod policy;
mod progress;
mod prompt;
mod reply;
mod report;
mod run;
mod setup;
mod status;
mod stop;
mod terminal;

pub use args::{Args, McpClient, Mode, Pace, Shared, Subcommands};

use crate::exit::Status;

/// Runs the parsed command line and returns how it ended.
pub fn run(args: Args) -> Status {
    crate::exec::inherit_nothing();
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
        Subcommands::Undo { shared, .. } => Some(("undo", shared)),
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
            until,
            attach,
            json,
            shared,
        } => run::run(task.as_deref(), resume, until, &attach, json, &shared),
        Subcommands::Interactive {
            local,
            attach,
            json,
            shared,
        } => interactive::run(&shared, local, &attach, json),
        Subcommands::Doctor {
            json,
            canary,
            learn,
            models,
            shared,
        } => doctor::run(&shared, json, canary, learn, models),
        Subcommands::Apply { file, json, shared } => apply::apply(file.as_deref(), json, &shared),
        Subcommands::Policy {
            cmdline,
            json,
            shared,
        } => policy::run(&cmdline, json, &shared),
        Subcommands::Prompt { task, shared } => prompt::run(&task, &shared),
        Subcommands::Demo { shared } => demo::run(&shared),
        Subcommands::Undo { json, shared } => apply::undo(&shared, json),
        Subcommands::Status { json, shared } => status::run(&shared, json),
        Subcommands::Mcp {
            print_config,
            shared,
        } => mcp(print_config, &shared),
        Subcommands::Completions { shell } => completions::completions(shell),
        Subcommands::Man { subcommand } => completions::man(subcommand.as_deref()),
    }
}

/// `keyless mcp`: the server on standard input and output, or with `--print-config` what a
/// client needs to start it.
fn mcp(print_config: Option<McpClient>, shared: &Shared) -> Status {
    if let Some(client) = print_config {
        let client = match client {
            McpClient::Claude => crate::mcp::Client::Claude,
            McpClient::Codex => crate::mcp::Client::Codex,
            McpClient::Cursor => crate::mcp::Client::Cursor,
        };
        // The path of this keyless: a client starts it with its own PATH.
        let program = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "keyless".to_string());
        let snippet = crate::mcp::snippet(client, &program, &shared.as_flags());
        eprintln!("{}", snippet.note);
        print!("{}", snippet.text);
        return Status::Success;
    }
    match crate::mcp::serve(shared.choices()) {
        Ok(()) => Status::Success,
        Err(why) => {
            eprintln!("keyless mcp: {why}");
            Status::Chat
        }
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
