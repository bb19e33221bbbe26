//! Where a command that works in a workspace starts: the one start-up ([`Start`]: the
//! configuration loaded and validated once and passed down, the workspace claimed, the batch
//! settings with the secrets' redactor, the sandbox built once and checked against the mode,
//! and for the chat the driver's options), with one typed error, [`StartError`].
//!
//! What it does not do: print, or handle signals (the front door that owns the process does).

use std::path::{Path, PathBuf};

use super::Choices;
pub use super::error::StartError;
use super::report::Report;
use crate::catalog::Failure;
use crate::claim::Claim;
use crate::config::Config;
use crate::exec::sandbox::Sandbox;
use crate::workspace::Workspace;
use crate::workspace::agent::Agent;
use crate::workspace::backup;

/// What a command that works in a workspace starts from, made once and in one order: every
/// part of it below reads this configuration, never the file again.
pub struct Start {
    /// The configuration: `keyless.json` (or `--config`) over the defaults, validated.
    pub config: Config,
    /// The workspace, claimed for this process while the value lives.
    pub ws: Workspace,
    /// The batch settings: the configuration, the choices, what only this machine knows, and
    /// the secrets' redactor.
    pub settings: crate::batch::Settings,
    /// The model's commands' runner with the one sandbox built for this workspace (the first
    /// message's probes and scripts run in it too: [`crate::batch::Machine::sandbox`]).
    pub machine: crate::batch::Machine,
    _claim: Claim,
}

impl Start {
    /// The start of `command` in the chosen workspace, from its configuration: the claim, the
    /// settings, the sandbox and the mode's check (its warnings to `report`).
    pub fn with(
        choices: &Choices,
        config: Config,
        command: &str,
        report: &mut dyn Report,
    ) -> Result<Start, StartError> {
        let (ws, claim) = open_workspace(choices, &config)?;
        let settings = batch_settings(&config, choices, ws.root());
        let sandbox = sandbox_for(choices, &config, ws.root());
        mode_allowed(&sandbox, settings.mode, command, report)?;
        let machine = crate::batch::Machine::from_config(
            ws.root().to_path_buf(),
            &settings,
            &config,
            sandbox,
        );
        Ok(Start {
            config,
            ws,
            settings,
            machine,
            _claim: claim,
        })
    }

    /// The start of a command that opens the chat (`run`, `interactive`, the MCP server's
    /// tasks): the driver's options come from the same configuration, before the workspace is
    /// claimed (a bad selectors file costs nothing then); page sketches go to the workspace's
    /// `.agent/logs`.
    pub fn chat(
        choices: &Choices,
        command: &str,
        report: &mut dyn Report,
    ) -> Result<(Start, crate::chat::cdp::Options), StartError> {
        let config = choices.load_config()?;
        let mut options = super::chat::driver_options(choices, &config, report)?;
        let start = Start::with(choices, config, command, report)?;
        options.sketches = Some(start.ws.agent(Agent::Logs));
        Ok((start, options))
    }
}

/// Opens the workspace and claims its `.agent/` for this process: a second keyless working in
/// the same folder at once would mix up sessions, journals and backups. The claim ends with the
/// returned value. keyless's own places in it ([`own_places`]) are out of the model's reach.
pub fn open_workspace(
    choices: &Choices,
    config: &Config,
) -> Result<(Workspace, Claim), StartError> {
    let ws =
        guarded(choices, config, &choices.workspace_or_here()).map_err(StartError::Workspace)?;
    backup::ensure_agent_dir(&ws).map_err(StartError::AgentFolder)?;
    let claim = Claim::take(&ws.agent(Agent::Claim)).map_err(|pid| StartError::Claimed {
        pid,
        root: ws.root().to_path_buf(),
    })?;
    // The workspace is ours now: what a killed keyless left half-written goes.
    backup::clean_after_crash(&ws);
    Ok((ws, claim))
}

/// The batch settings: the configuration, then the choices, then what only the machine knows
/// (tools the snapshot finds Missing, the repository's git hazards).
pub fn batch_settings(config: &Config, choices: &Choices, root: &Path) -> crate::batch::Settings {
    let mut settings = crate::batch::Settings::from_config(config, root);
    if let Some(pace) = choices.pace {
        settings.pace = pace;
    }
    if let Some(mode) = choices.mode {
        settings.mode = mode;
    }
    if choices.wait {
        settings.wait_on_limits = true;
    }
    if choices.now {
        settings.wait_on_limits = false;
        settings.limit_lifted = true;
    }
    settings.resume_command = Some(choices.resume_command());
    settings.missing_tools = crate::exec::snapshot::missing(&config.snapshot.tools);
    settings.git_hazards = crate::git::read_only_hazards(root);
    settings
}

/// keyless's own places, wherever they are: what its hands and the model's commands must both
/// keep out of.
struct OwnPlaces {
    /// The configuration files keyless reads: `--config` (or the `keyless.json` it found) and
    /// `--selectors`. Read-only to commands; neither read nor written by file commands.
    config: Vec<PathBuf>,
    /// What no command sees and no file command reaches: keyless's configuration folder (the
    /// browser profile and learned selectors in it), the browser profile wherever it is (an
    /// attached browser's too, found by its debugging port).
    hidden: Vec<PathBuf>,
}

/// keyless's own places under these choices and this configuration.
fn own_places(choices: &Choices, config: &Config) -> OwnPlaces {
    let mut hidden = vec![
        super::chat::config_folder(),
        super::chat::profile(choices, config),
    ];
    #[cfg(target_os = "linux")]
    if let Some(port) = choices
        .cdp
        .as_deref()
        .or(config.browser.cdp_url.as_deref())
        .and_then(cdp_port)
        && let Some(profile) = crate::exec::sandbox::listener_profile(port)
    {
        hidden.push(profile);
    }
    let config_files = [&choices.config, &choices.selectors, &config.source]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    OwnPlaces {
        config: config_files,
        hidden,
    }
}

/// The workspace at `path`, with keyless's own places and every path hidden from commands (the
/// secret stores, `Sandbox.HiddenPaths`) out of the model's reach wherever they lie in it.
pub fn guarded(choices: &Choices, config: &Config, path: &Path) -> Result<Workspace, Failure> {
    let mut ws = Workspace::open(path)?;
    let own = own_places(choices, config);
    let mut hidden = own.hidden;
    hidden.extend(crate::exec::sandbox::secret_places(
        crate::exec::sandbox::home_folder().as_deref(),
        &config.sandbox,
    ));
    ws.keep_out(&own.config, &hidden);
    Ok(ws)
}

/// The sandbox for the model's commands in `root`, told which of keyless's own places it must
/// keep out of their reach ([`own_places`]).
pub fn sandbox_for(choices: &Choices, config: &Config, root: &Path) -> Sandbox {
    let mut sandbox = Sandbox::new(root, &config.sandbox);
    sandbox.quarantine_into(Agent::Quarantine.under(root));
    let own = own_places(choices, config);
    for place in &own.hidden {
        sandbox.hide(place);
    }
    for file in &own.config {
        sandbox.protect(file);
    }
    sandbox
}

/// The port of a DevTools address (`http://127.0.0.1:9222`, `ws://localhost:9222/devtools/…`).
fn cdp_port(url: &str) -> Option<u16> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next()?;
    authority.rsplit_once(':')?.1.parse().ok()
}

/// Refuses a mode `sandbox` cannot contain (Auto without a sandbox); warns, through `report`,
/// of what it cannot guarantee here.
pub fn mode_allowed(
    sandbox: &Sandbox,
    mode: crate::config::Mode,
    command: &str,
    report: &mut dyn Report,
) -> Result<(), StartError> {
    sandbox.check_mode(mode).map_err(StartError::Mode)?;
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
        report.warn(&format!(
            "keyless {command}: warning: the model's commands cannot be contained here ({}); the command policy is the only guard",
            why.join("; ")
        ));
    } else if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|g| g.name).collect();
        report.warn(&format!(
            "keyless {command}: warning: the sandbox cannot give these guarantees here: {} (`keyless status` says why)",
            names.join(", ")
        ));
    }
    Ok(())
}

/// What contains the model's commands in `root` under `config`, in the mode the choices and
/// the configuration give.
pub fn containment_with(
    choices: &Choices,
    config: &Config,
    root: &Path,
) -> (crate::exec::sandbox::Containment, crate::config::Mode) {
    let mode = choices.mode.unwrap_or(config.agent.mode);
    let sandbox = Sandbox::new(root, &config.sandbox);
    (sandbox.containment(mode), mode)
}
