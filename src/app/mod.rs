//! The application layer: what every front door (`keyless run`, `interactive`, `demo`, `apply`,
//! the MCP server) stands on. One start-up ([`start::Start`]: the configuration, the workspace
//! claimed, the settings, the sandbox, the secrets and the chat's options, each made once, with
//! one typed [`error::StartError`]); one conversation ([`conversation`]: resume, the saved chat,
//! the first or the next message, the instructions); and one way to tell what happens
//! ([`report::Report`]), which each front door implements for its audience.
//!
//! What it does not do: parse a command line (clap stays in `cli`), prompt a person at a
//! terminal, or choose an output format. It decides; the front doors print.

pub(crate) mod chat;
pub(crate) mod consult;
pub(crate) mod conversation;
pub(crate) mod error;
pub(crate) mod events;
pub(crate) mod logging;
pub(crate) mod report;
pub(crate) mod start;
pub(crate) mod status;
pub(crate) mod task;

use std::path::PathBuf;

/// What a front door chose for a command (the command line's flags, an MCP tool's arguments):
/// each `None` leaves the choice to `keyless.json`, then to the defaults.
#[derive(Clone, Debug, Default)]
pub struct Choices {
    /// On a chat site's rate or usage limit, wait for its reset and go on.
    pub wait: bool,
    /// On a resume, go on before the reset of a limit the site named (it was lifted).
    pub now: bool,
    /// The workspace folder [default: the current folder].
    pub workspace: Option<PathBuf>,
    /// The configuration file to use instead of the one found.
    pub config: Option<PathBuf>,
    /// Who approves commands.
    pub mode: Option<crate::config::Mode>,
    /// How many commands one reply may carry.
    pub pace: Option<crate::config::Pace>,
    /// The chat site, by its name in selectors.json.
    pub site: Option<String>,
    /// The chat page to open.
    pub url: Option<String>,
    /// A selectors.json that overrides the built-in one.
    pub selectors: Option<PathBuf>,
    /// A running browser's DevTools endpoint to attach to.
    pub cdp: Option<String>,
    /// The Chrome/Chromium executable to launch.
    pub browser: Option<PathBuf>,
    /// The browser without a window.
    pub headless: bool,
    /// The browser profile folder.
    pub profile: Option<PathBuf>,
    /// A new chat instead of the saved one.
    pub new_chat: bool,
    /// The model, effort and temporary chat asked for (over `keyless.json`'s).
    pub wanted: crate::chat::models::Wanted,
}

impl Choices {
    /// The workspace folder chosen, or the current folder.
    pub fn workspace_or_here(&self) -> PathBuf {
        self.workspace.clone().unwrap_or_else(|| ".".into())
    }

    /// The configuration for the chosen workspace: `keyless.json` (or the chosen file) over the
    /// defaults, validated.
    pub fn load_config(&self) -> Result<crate::config::Config, error::StartError> {
        crate::config::file::load(self.config.as_deref(), &self.workspace_or_here())
            .map_err(error::StartError::Config)
    }

    /// The command that resumes a run made with these choices, as the person must type it:
    /// `keyless run --resume` with the flags that say where and how (a resume with other ones
    /// opens another workspace, profile or page); paths made absolute, words quoted for a
    /// POSIX shell where they need it.
    pub fn resume_command(&self) -> String {
        let path = |p: &std::path::Path| {
            // A path not made yet (a profile the run creates) is still made absolute.
            let text = std::fs::canonicalize(p)
                .or_else(|_| std::path::absolute(p))
                .unwrap_or_else(|_| p.to_path_buf())
                .to_string_lossy()
                .into_owned();
            shell_word(&text)
        };
        let mut cmd = String::from("keyless run --resume");
        if let Some(w) = &self.workspace {
            cmd += &format!(" --workspace {}", path(w));
        }
        if let Some(mode) = self.mode {
            let word = match mode {
                crate::config::Mode::Ask => "ask",
                crate::config::Mode::AutoSafe => "autosafe",
                crate::config::Mode::Auto => "auto",
            };
            cmd += &format!(" --mode {word}");
        }
        if let Some(c) = &self.config {
            cmd += &format!(" --config {}", path(c));
        }
        if let Some(site) = &self.site {
            cmd += &format!(" --site {}", shell_word(site));
        }
        if let Some(url) = &self.url {
            cmd += &format!(" --url {}", shell_word(url));
        }
        if let Some(s) = &self.selectors {
            cmd += &format!(" --selectors {}", path(s));
        }
        if let Some(cdp) = &self.cdp {
            cmd += &format!(" --cdp {}", shell_word(cdp));
        }
        if let Some(b) = &self.browser {
            cmd += &format!(" --browser {}", path(b));
        }
        if self.headless {
            cmd += " --headless";
        }
        if let Some(p) = &self.profile {
            cmd += &format!(" --profile {}", path(p));
        }
        cmd
    }
}

/// A word as a POSIX shell reads it back: as it is when it holds only safe characters, else in
/// single quotes (a quote inside ends them, is escaped, and opens them again).
pub(crate) fn shell_word(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
