//! Every clap definition of the command line: the subcommands, their flags and help, and the
//! options the workspace-facing ones share (with the configuration they name). `mod.rs`
//! dispatches them; `completions.rs` turns them into shell completions and the man page.

use std::path::PathBuf;

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

const MCP_EXAMPLES: &str = "Examples:
  keyless mcp --print-config claude --site chatgpt
                                          what Claude Code needs to start keyless as a server
  keyless mcp --site claude --headless    serve (an MCP client starts this itself)";

/// The MCP clients `keyless mcp --print-config` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum McpClient {
    /// Claude Code.
    Claude,
    /// OpenAI's Codex CLI.
    Codex,
    /// Cursor.
    Cursor,
}

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
        /// A done-check: after the model's @@done, run CMD in the sandbox; when it fails, its
        /// output goes back to the model and the loop goes on (within the iteration limit).
        /// Kept with the turn, so --resume checks too. Example: --until "cargo test".
        #[arg(long, value_name = "CMD")]
        until: Option<String>,
        /// Files and images of yours to go with the task's first message (only the first:
        /// later messages carry none), through the site's file input, each confirmed by its
        /// chip; text is redacted first. Repeat it or give several: --attach a.py b.png. Paths
        /// are relative to the current folder and may lie outside the workspace. Over the
        /// site's count the rest go as one bundle; on a page with no file input, text files go
        /// inline in the message. See docs/attachments.md.
        #[arg(long, value_name = "PATH", num_args = 1..)]
        attach: Vec<PathBuf>,
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
        /// Files and images of yours to go with the first task's first message (only the first:
        /// later messages carry none; /attach PATH… adds files to the next task), through the site's file input, each confirmed by its
        /// chip; text is redacted first. Repeat it or give several: --attach a.py b.png. Paths
        /// are relative to the current folder and may lie outside the workspace. Over the
        /// site's count the rest go as one bundle; on a page with no file input, text files go
        /// inline in the message. See docs/attachments.md.
        #[arg(long, value_name = "PATH", num_args = 1..)]
        attach: Vec<PathBuf>,
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
        /// Open the site's model picker and list what it offers: the models (locked ones
        /// marked), the effort levels, the one chosen now.
        #[arg(long)]
        models: bool,
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
    /// Serve keyless to other agents: an MCP server on standard input and output.
    ///
    /// A Model Context Protocol server. Tools: run_task (a whole task in a workspace, its events as progress notifications),
    /// consult (one question, the reply's text back), status and undo. The flags given here
    /// are every call's defaults.
    #[command(after_help = MCP_EXAMPLES)]
    Mcp {
        /// Print what CLIENT needs to start this server (with the flags given here), and exit.
        #[arg(long, value_enum, value_name = "CLIENT")]
        print_config: Option<McpClient>,
        #[command(flatten)]
        shared: Shared,
    },
    /// Restore the files the last batch changed; run again to go back one more batch.
    ///
    /// A file whose path a command has since made a link, or that is protected or hidden, is
    /// left as it is and named with the reason (exit status 3); the rest is put back.
    Undo {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
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
    /// On a chat site's rate or usage limit, wait for its reset (with a countdown; Ctrl+C
    /// stops and keeps the session) and go on, instead of stopping at once.
    #[arg(long)]
    pub wait: bool,
    /// With --resume before the reset of a limit the site named: go on at once, the limit
    /// being lifted already (a plan changed). Without it such a resume stops, nothing sent.
    #[arg(long, conflicts_with = "wait")]
    pub now: bool,
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
    /// The model to choose in the site's picker before anything is sent, read back on the
    /// page (loosely: case, spaces and punctuation aside, a word of the name will do when it
    /// names one model only); every reply's model is checked against it.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The reasoning effort to choose in the site's picker (its own words: Light, Heavy, …),
    /// read back on the page.
    #[arg(long, value_name = "LEVEL")]
    pub effort: Option<String>,
    /// A reply from another model than the one chosen (a site's fallback after a usage cap)
    /// is a warning, not a stop.
    #[arg(long)]
    pub allow_fallback: bool,
    /// Run in the site's temporary chat (its history is not kept); a page without one stops
    /// before anything is sent.
    #[arg(long)]
    pub temporary: bool,
}

impl Shared {
    /// Loads the configuration for these options' workspace; on failure prints the code and
    /// reason (as `keyless COMMAND: …`) and returns the usage status.
    pub fn load_config(&self, command: &str) -> Result<crate::config::Config, Status> {
        self.choices().load_config().map_err(|e| {
            eprintln!("keyless {command}: {e}");
            Status::Usage
        })
    }

    /// These flags as given on a command line (for another client to start keyless with).
    pub fn as_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        let mut value = |flag: &str, value: Option<String>| {
            if let Some(value) = value {
                flags.push(flag.to_string());
                flags.push(value);
            }
        };
        // Absolute: the flags start another keyless, in another folder (an MCP client's).
        let shown = |p: &Option<PathBuf>| {
            p.as_ref()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                .map(|p| p.display().to_string())
        };
        value("--workspace", shown(&self.workspace));
        value("--config", shown(&self.config));
        value(
            "--mode",
            self.mode
                .and_then(|m| m.to_possible_value())
                .map(|v| v.get_name().to_string()),
        );
        value(
            "--pace",
            self.pace
                .and_then(|p| p.to_possible_value())
                .map(|v| v.get_name().to_string()),
        );
        value("--site", self.site.clone());
        value("--url", self.url.clone());
        value("--selectors", shown(&self.selectors));
        value("--cdp", self.cdp.clone());
        // A browser named without a folder is looked for on PATH, as given.
        value(
            "--browser",
            match &self.browser {
                Some(b) if b.components().count() == 1 => Some(b.display().to_string()),
                other => shown(other),
            },
        );
        value("--profile", shown(&self.profile));
        for (flag, on) in [
            ("--wait", self.wait),
            ("--headless", self.headless),
            ("--new-chat", self.new_chat),
        ] {
            if on {
                flags.push(flag.to_string());
            }
        }
        flags
    }

    /// What these flags choose, for the application layer.
    pub fn choices(&self) -> crate::app::Choices {
        crate::app::Choices {
            wait: self.wait,
            now: self.now,
            workspace: self.workspace.clone(),
            config: self.config.clone(),
            mode: self.mode.map(Into::into),
            pace: self.pace.map(Into::into),
            site: self.site.clone(),
            url: self.url.clone(),
            selectors: self.selectors.clone(),
            cdp: self.cdp.clone(),
            browser: self.browser.clone(),
            headless: self.headless,
            profile: self.profile.clone(),
            new_chat: self.new_chat,
            wanted: crate::chat::models::Wanted {
                model: self.model.clone(),
                effort: self.effort.clone(),
                allow_fallback: self.allow_fallback,
                temporary: self.temporary,
            },
        }
    }

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
            ("--model", self.model.is_some()),
            ("--effort", self.effort.is_some()),
            ("--allow-fallback", self.allow_fallback),
            ("--temporary", self.temporary),
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
