//! The command line: clap definitions (all of them live here) and the dispatch to each
//! subcommand. `main` only maps the returned [`Status`] to the process exit code.

mod apply;
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
mod status;
mod terminal;

use std::path::PathBuf;

use driver::{close_driver, driver_options, keep_learned};

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};

use crate::exit::Status;

/// A coding agent that drives the chat page you already pay for: no API key.
///
/// keyless sends your task to a chat site (ChatGPT, Claude, Gemini, …) in your own Chrome,
/// reads the model's reply as AgentScript v1, runs it in your workspace under a risk-tier
/// policy, and posts the results back, until the model says @@done.
#[derive(Debug, Parser)]
#[command(
    name = "keyless",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Args {
    /// Show more: every message sent and every raw reply (on standard error).
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Show less: only warnings, problems, what the model says to you (@@say, @@ask),
    /// confirmations and the outcome.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Subcommands,
}

const RUN_EXAMPLES: &str = "Examples:
  keyless run --site chatgpt \"Add a --verbose flag and test it\"
  keyless run \"Now document the flag\"     the next task goes on in the same chat
  keyless run --new-chat \"Fix issue 12\"   a new chat (the rules are sent again)
  keyless run --resume                    finish a turn cut short by a crash or Ctrl+C
  keyless run --url https://chat.example.com/ \"Fix it\"
                                          a page with no entry: its parts found by their shape

Exit codes: 0 done, 2 usage or configuration, 3 stopped before @@done, 4 browser or chat,
130 interrupted (the session is kept: --resume goes on).";

const INTERACTIVE_EXAMPLES: &str = "Examples:
  keyless interactive --site claude       each line you type is a task in the same chat
  keyless interactive --local             offline: the local page and a scripted model

Inside: /new, /undo, /mode, /pace, /help, /quit (Ctrl+D). Ctrl+C stops the running command or
the wait for a reply; the next line goes on in the same chat.";

#[derive(Debug, Subcommand)]
pub enum Subcommands {
    /// Run one turn: send TASK, loop until @@done or a stop reason.
    #[command(after_help = RUN_EXAMPLES)]
    Run {
        /// What the model should do, in plain words. Without it, an interrupted turn resumes.
        task: Option<String>,
        /// Resume the turn that stopped half-way (crash, closed browser, Ctrl+C) from
        /// .agent/session.json: its reply is read if the chat has it, nothing runs twice.
        #[arg(long)]
        resume: bool,
        /// Print every event as one JSON object per line on standard output (schema:
        /// docs/json-events.md); what people read goes to standard error.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        shared: Shared,
    },
    /// A REPL: each line is a turn in the same chat.
    #[command(after_help = INTERACTIVE_EXAMPLES)]
    Interactive {
        /// Try it offline: the built-in local chat page and the demo's scripted model, in
        /// headless Chromium, in a new git workspace in the temporary folder (named, and kept).
        #[arg(long, conflicts_with_all = ["workspace", "site", "url", "cdp", "profile", "selectors", "new_chat"])]
        local: bool,
        /// Print every event as one JSON object per line on standard output (schema:
        /// docs/json-events.md); the lines are read from standard input without line editing,
        /// and what people read goes to standard error.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        shared: Shared,
    },
    /// Open the chat page, check every selector, and round-trip a canary.
    Doctor {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Also send a hostile canary message and check each reading channel is byte-exact.
        #[arg(long)]
        canary: bool,
        /// Find the page's parts that no selector finds by their shape, prove them with the
        /// canary exchange, and keep them as learned selectors (used before discovery next
        /// time); prints the entry, ready to contribute to selectors.json.
        #[arg(long)]
        learn: bool,
        #[command(flatten)]
        shared: Shared,
    },
    /// Parse a reply and report every problem; exit 0 when valid, 1 when rejected.
    ///
    /// Reads FILE, or standard input when FILE is - or absent.
    Check {
        /// The reply to check (- for standard input).
        file: Option<PathBuf>,
        /// Print one JSON object: {ok, control, commands, errors}.
        #[arg(long)]
        json: bool,
        /// The configuration whose Limits apply (default: <workspace>/keyless.json, then the
        /// user's config folder), so that check rejects what run and apply would.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// The workspace whose keyless.json applies (default: the current folder).
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
    },
    /// Execute one reply in the workspace without a browser and print the results message.
    Apply {
        /// The reply to execute (- for standard input).
        file: Option<PathBuf>,
        /// Print every event (each command's outcome, the results message) as one JSON object
        /// per line on standard output (schema: docs/json-events.md).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        shared: Shared,
    },
    /// Classify a command line: tier per segment, decision per mode.
    Policy {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// The command line, as the model would send it in <<<CMD.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        cmdline: Vec<String>,
        #[command(flatten)]
        shared: Shared,
    },
    /// Print the first message the model would get (rules, limits, snapshot).
    Prompt {
        /// The task to put at the end of the message.
        #[arg(default_value = "")]
        task: String,
        #[command(flatten)]
        shared: Shared,
    },
    /// The whole loop, offline, against the built-in local chat page.
    ///
    /// A scripted model does a small task in a new git workspace in the temporary folder
    /// (named at the start, and kept so you can look at it), in headless Chromium, with every command run automatically. Of the shared
    /// options only --browser applies; the others are noted and have no effect.
    Demo {
        #[command(flatten)]
        shared: Shared,
    },
    /// Show where the saved turn stands, and what undo would put back; opens no browser.
    ///
    /// The saved session: where its turn stands and what --resume would do; whether a keyless
    /// works here now; what undo would put back; what the backups take.
    Status {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        shared: Shared,
    },
    /// Restore the files the last batch changed; run again to go back one more batch.
    Undo {
        #[command(flatten)]
        shared: Shared,
    },
    /// Print the shell completion script for SHELL on standard output.
    ///
    /// bash: keyless completions bash > ~/.local/share/bash-completion/completions/keyless;
    /// zsh: keyless completions zsh > ~/.zfunc/_keyless (with ~/.zfunc on fpath); fish:
    /// keyless completions fish > ~/.config/fish/completions/keyless.fish; PowerShell:
    /// keyless completions powershell >> $PROFILE.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on standard output: keyless man | man -l -
    Man {
        /// A subcommand's own page (keyless-run, …) instead of keyless's.
        subcommand: Option<String>,
    },
}

/// Options every workspace-facing subcommand shares.
#[derive(Debug, Clone, ClapArgs)]
pub struct Shared {
    /// The workspace folder the model works in [default: the current folder].
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// keyless.json to use [default: <workspace>/keyless.json, then the user's config folder].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Who approves commands: ask (you confirm risky steps), autosafe, or auto.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// How many commands one reply may carry: step (1), balanced (3), batch (the limit).
    #[arg(long, value_enum)]
    pub pace: Option<Pace>,
    /// The chat site, by its name in selectors.json (chatgpt, claude, gemini, …); optional with
    /// --url.
    #[arg(long, value_name = "NAME")]
    pub site: Option<String>,
    /// The chat page to open; a page no site in selectors.json matches works by discovery
    /// (keyless finds its parts by their shape and keeps what it proves).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// A selectors.json that overrides the built-in one.
    #[arg(long, value_name = "FILE")]
    pub selectors: Option<PathBuf>,
    /// Attach to a running browser's DevTools endpoint instead of launching one.
    #[arg(long, value_name = "URL")]
    pub cdp: Option<String>,
    /// The Chrome/Chromium executable to launch.
    #[arg(long, value_name = "PATH")]
    pub browser: Option<PathBuf>,
    /// Run the browser without a window.
    #[arg(long)]
    pub headless: bool,
    /// The browser profile folder (you log in once; it is kept).
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,
    /// Start a new chat instead of resuming the saved one.
    #[arg(long)]
    pub new_chat: bool,
}

impl Shared {
    /// The browser and chat options given (`--selectors`, `--site`, …), as spelled on the
    /// command line.
    pub fn browser_options(&self) -> Vec<&'static str> {
        [
            ("--site", self.site.is_some()),
            ("--url", self.url.is_some()),
            ("--cdp", self.cdp.is_some()),
            ("--browser", self.browser.is_some()),
            ("--headless", self.headless),
            ("--profile", self.profile.is_some()),
            ("--new-chat", self.new_chat),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect()
    }
}

/// Approval modes of the specification's risk-tier table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Ask,
    Autosafe,
    Auto,
}

/// Agent.Pace: how many non-say commands one response may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Pace {
    Step,
    Balanced,
    Batch,
}

impl From<Mode> for crate::config::Mode {
    fn from(mode: Mode) -> Self {
        match mode {
            Mode::Ask => crate::config::Mode::Ask,
            Mode::Autosafe => crate::config::Mode::AutoSafe,
            Mode::Auto => crate::config::Mode::Auto,
        }
    }
}

impl From<Pace> for crate::config::Pace {
    fn from(pace: Pace) -> Self {
        match pace {
            Pace::Step => crate::config::Pace::Step,
            Pace::Balanced => crate::config::Pace::Balanced,
            Pace::Batch => crate::config::Pace::Batch,
        }
    }
}

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

/// Loads the configuration for the shared options' workspace; on failure prints the code and
/// reason and returns the usage status.
fn load_config(shared: &Shared, command: &str) -> Result<crate::config::Config, Status> {
    let workspace = shared.workspace.clone().unwrap_or_else(|| ".".into());
    crate::config::file::load(shared.config.as_deref(), &workspace).map_err(|f| {
        eprintln!("keyless {command}: {}: {}", f.code, f.reason);
        Status::Usage
    })
}

/// The batch settings: the configuration, then the flags, then what only the machine knows
/// (tools the snapshot finds Missing, the repository's git hazards).
fn batch_settings(
    config: &crate::config::Config,
    shared: &Shared,
    root: &std::path::Path,
) -> crate::batch::Settings {
    let mut settings = crate::batch::Settings::from_config(config, root);
    if let Some(pace) = shared.pace {
        settings.pace = pace.into();
    }
    if let Some(mode) = shared.mode {
        settings.mode = mode.into();
    }
    settings.missing_tools = crate::exec::snapshot::missing(&config.snapshot.tools);
    settings.git_hazards = crate::git::read_only_hazards(root);
    settings
}

/// The sandbox for the model's commands in `root`, told which of keyless's own files it must
/// keep out of their reach: its configuration folder (the browser profile and learned
/// selectors in it), the browser profile wherever it is (an attached browser's too, found by
/// its debugging port), and a `--config` or `--selectors` file inside the workspace.
pub(crate) fn sandbox_for(
    shared: &Shared,
    config: &crate::config::Config,
    root: &std::path::Path,
) -> crate::exec::sandbox::Sandbox {
    let mut sandbox = crate::exec::sandbox::Sandbox::new(root, &config.sandbox);
    sandbox.hide(&driver::config_folder());
    sandbox.hide(&driver::profile(shared, config));
    #[cfg(target_os = "linux")]
    if let Some(port) = shared
        .cdp
        .as_deref()
        .or(config.browser.cdp_url.as_deref())
        .and_then(cdp_port)
        && let Some(profile) = crate::exec::sandbox::listener_profile(port)
    {
        sandbox.hide(&profile);
    }
    for file in [&shared.config, &shared.selectors].into_iter().flatten() {
        sandbox.protect(file);
    }
    sandbox
}

/// The host of a subcommand's batches in `root`: the person at this terminal, and this machine
/// running the model's commands in [`sandbox_for`] as the configuration sets it up.
pub(crate) fn host_for(
    shared: &Shared,
    config: &crate::config::Config,
    settings: &crate::batch::Settings,
    root: &std::path::Path,
) -> crate::batch::Joined<terminal::Terminal, crate::batch::Machine> {
    crate::batch::Joined {
        person: terminal::Terminal::here(),
        runner: crate::batch::Machine::from_config(
            root.to_path_buf(),
            settings,
            config,
            sandbox_for(shared, config, root),
        ),
    }
}

/// The port of a DevTools address (`http://127.0.0.1:9222`, `ws://localhost:9222/devtools/…`).
fn cdp_port(url: &str) -> Option<u16> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next()?;
    authority.rsplit_once(':')?.1.parse().ok()
}

/// Refuses a mode the machine cannot contain (Auto without a sandbox); prints why.
fn sandbox_allows(
    config: &crate::config::Config,
    root: &std::path::Path,
    mode: crate::config::Mode,
    command: &str,
) -> Result<(), Status> {
    let sandbox = crate::exec::sandbox::Sandbox::new(root, &config.sandbox);
    sandbox.check_mode(mode).map_err(|f| {
        eprintln!("keyless {command}: {}: {}", f.code, f.reason);
        Status::Usage
    })?;
    let containment = sandbox.containment(mode);
    if sandbox.is_off() {
        return Ok(());
    }
    let missing = containment.missing();
    if !containment.contained() {
        let why: Vec<&str> = missing
            .iter()
            .filter_map(|g| g.missing.as_deref())
            .take(1)
            .collect();
        eprintln!(
            "keyless {command}: warning: the model's commands cannot be contained here ({}); the command policy is the only guard",
            why.join("; ")
        );
    } else if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|g| g.name).collect();
        eprintln!(
            "keyless {command}: warning: the sandbox cannot give these guarantees here: {} (`keyless status` says why)",
            names.join(", ")
        );
    }
    Ok(())
}

/// What contains the model's commands in `root`, in the mode the flags and the configuration
/// give, for `doctor`, which only reports it: a configuration it cannot read is left to the
/// commands that need it, and the defaults stand in.
fn containment_here(
    shared: &Shared,
    root: &std::path::Path,
) -> (crate::exec::sandbox::Containment, crate::config::Mode) {
    let config = crate::config::file::load(shared.config.as_deref(), root).unwrap_or_default();
    containment_with(shared, &config, root)
}

/// What contains the model's commands in `root` under `config`, in the mode the flags and the
/// configuration give.
fn containment_with(
    shared: &Shared,
    config: &crate::config::Config,
    root: &std::path::Path,
) -> (crate::exec::sandbox::Containment, crate::config::Mode) {
    let mode = shared.mode.map(Into::into).unwrap_or(config.agent.mode);
    let sandbox = crate::exec::sandbox::Sandbox::new(root, &config.sandbox);
    (sandbox.containment(mode), mode)
}

/// The first message for `task` in `root`: the environment snapshot (the user's scripts
/// included; their problems are printed as warnings, and the snapshot goes on without them),
/// the rules, the limits and the pace.
fn first_message(
    shared: &Shared,
    task: &str,
    root: &std::path::Path,
    config: &crate::config::Config,
    settings: &crate::batch::Settings,
    command: &str,
) -> String {
    let shell = config.commands.shell.as_deref();
    let sandbox = sandbox_for(shared, config, root);
    let mut snapshot =
        crate::turn::prompt::Snapshot::take(root, &config.snapshot.tools, shell, Some(&sandbox));
    snapshot.sandbox = Some(sandbox.containment(settings.mode));
    if config.snapshot.instructions
        && let Ok(ws) = crate::workspace::Workspace::open(root)
    {
        snapshot.instructions = ws.instructions(task);
        if !snapshot.instructions.is_empty() && !progress::quiet() {
            let names: Vec<&str> = snapshot
                .instructions
                .iter()
                .map(|i| i.path.as_str())
                .collect();
            eprintln!(
                "keyless {command}: the project's instructions go with the first message: {} (Snapshot.Instructions turns this off)",
                names.join(", ")
            );
        }
    }
    for warning in snapshot.run_scripts(root, &config.snapshot.scripts, Some(&sandbox)) {
        eprintln!(
            "keyless {command}: {}: {} (the snapshot goes on without it)",
            warning.code, warning.reason
        );
    }
    let message =
        crate::turn::prompt::first_message(task, &settings.limits, settings.pace, &snapshot);
    match &settings.redactor {
        Some(redactor) => redactor.redact(&message).text,
        None => message,
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
