//! Where a subcommand starts: the one start-up ([`Start`]: the configuration loaded and
//! validated once and passed down, the workspace claimed, the batch settings, the mode checked
//! against what this machine can contain, Ctrl+C handled; for the chat, the driver's options),
//! the sandbox and host for the model's commands, and the first message.

use std::path::{Path, PathBuf};

use super::args::Shared;
use super::{driver, logging, progress, terminal};
use crate::catalog::Failure;
use crate::claim::Claim;
use crate::config::Config;
use crate::exit::Status;
use crate::workspace::Workspace;
use crate::workspace::agent::Agent;
use crate::workspace::backup;

/// What a subcommand that works in a workspace starts from, made once and in one order: every
/// part of it below reads this configuration, never the file again.
pub(super) struct Start {
    /// The configuration: `keyless.json` (or `--config`) over the defaults, validated.
    pub config: Config,
    /// The workspace, claimed for this process while the value lives.
    pub ws: Workspace,
    /// The batch settings: the configuration, the flags, what only this machine knows.
    pub settings: crate::batch::Settings,
    _claim: Claim,
}

impl Start {
    /// The start of `command` in the flags' workspace, from its configuration: the claim, the
    /// settings, the mode's check and Ctrl+C. A problem is printed and its status returned.
    pub(super) fn with(shared: &Shared, config: Config, command: &str) -> Result<Start, Status> {
        let (ws, claim) = open_workspace(shared, &config, command)?;
        let settings = batch_settings(&config, shared, ws.root());
        sandbox_allows(&config, ws.root(), settings.mode, command)?;
        install_ctrl_c();
        Ok(Start {
            config,
            ws,
            settings,
            _claim: claim,
        })
    }

    /// The start of a command that opens the chat (`run`, `interactive`): the driver's options
    /// come from the same configuration, before the workspace is claimed (a bad selectors file
    /// costs nothing then); logs and page sketches go to the workspace's `.agent/logs`.
    pub(super) fn chat(
        shared: &Shared,
        command: &str,
    ) -> Result<(Start, crate::chat::cdp::Options), Status> {
        let config = shared.load_config(command)?;
        let mut options = driver::driver_options(shared, &config, command)?;
        let start = Start::with(shared, config, command)?;
        logging::init(start.ws.root());
        options.sketches = Some(start.ws.agent(Agent::Logs));
        Ok((start, options))
    }

    /// The host of this start's batches ([`host_for`]).
    pub(super) fn host(
        &self,
        shared: &Shared,
    ) -> crate::batch::Joined<terminal::Terminal, crate::batch::Machine> {
        host_for(shared, &self.config, &self.settings, self.ws.root())
    }

    /// The first message for `task` in this workspace ([`first_message`]).
    pub(super) fn first_message(&self, shared: &Shared, task: &str, command: &str) -> String {
        first_message(
            shared,
            task,
            self.ws.root(),
            &self.config,
            &self.settings,
            command,
        )
    }
}

/// Opens the workspace and claims its `.agent/` for this process: a second keyless working in
/// the same folder at once would mix up sessions, journals and backups. The claim ends with the
/// returned value. keyless's own places in it ([`own_places`]) are out of the model's reach.
pub(super) fn open_workspace(
    shared: &Shared,
    config: &Config,
    command: &str,
) -> Result<(Workspace, Claim), Status> {
    let path = shared.workspace.clone().unwrap_or_else(|| ".".into());
    let ws = guarded(shared, config, &path).map_err(|f| {
        eprintln!("keyless {command}: {}", f.reason);
        Status::Usage
    })?;
    backup::ensure_agent_dir(&ws).map_err(|f| {
        eprintln!("keyless {command}: {}: {}", f.code, f.reason);
        Status::Usage
    })?;
    let claim = Claim::take(&ws.agent(crate::workspace::agent::Agent::Claim)).map_err(|pid| {
        eprintln!(
            "keyless {command}: another keyless (process {pid}) is working in {}; wait for it to finish",
            ws.root().display()
        );
        Status::Usage
    })?;
    // The workspace is ours now: what a killed keyless left half-written goes.
    backup::clean_after_crash(&ws);
    Ok((ws, claim))
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
}

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

/// The batch settings: the configuration, then the flags, then what only the machine knows
/// (tools the snapshot finds Missing, the repository's git hazards).
pub(super) fn batch_settings(
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
    if shared.wait {
        settings.wait_on_limits = true;
    }
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

/// keyless's own places under these flags and this configuration.
fn own_places(shared: &Shared, config: &Config) -> OwnPlaces {
    let mut hidden = vec![driver::config_folder(), driver::profile(shared, config)];
    #[cfg(target_os = "linux")]
    if let Some(port) = shared
        .cdp
        .as_deref()
        .or(config.browser.cdp_url.as_deref())
        .and_then(cdp_port)
        && let Some(profile) = crate::exec::sandbox::listener_profile(port)
    {
        hidden.push(profile);
    }
    let config_files = [&shared.config, &shared.selectors, &config.source]
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
pub(super) fn guarded(shared: &Shared, config: &Config, path: &Path) -> Result<Workspace, Failure> {
    let mut ws = Workspace::open(path)?;
    let own = own_places(shared, config);
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
fn sandbox_for(shared: &Shared, config: &Config, root: &Path) -> crate::exec::sandbox::Sandbox {
    let mut sandbox = crate::exec::sandbox::Sandbox::new(root, &config.sandbox);
    sandbox.quarantine_into(Agent::Quarantine.under(root));
    let own = own_places(shared, config);
    for place in &own.hidden {
        sandbox.hide(place);
    }
    for file in &own.config {
        sandbox.protect(file);
    }
    sandbox
}

/// The host of a subcommand's batches in `root`: the person at this terminal, and this machine
/// running the model's commands in [`sandbox_for`] as the configuration sets it up.
pub(super) fn host_for(
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
pub(super) fn sandbox_allows(
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
pub(super) fn containment_here(
    shared: &Shared,
    root: &std::path::Path,
) -> (crate::exec::sandbox::Containment, crate::config::Mode) {
    let config = crate::config::file::load(shared.config.as_deref(), root).unwrap_or_default();
    containment_with(shared, &config, root)
}

/// What contains the model's commands in `root` under `config`, in the mode the flags and the
/// configuration give.
pub(super) fn containment_with(
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
pub(super) fn first_message(
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
    let ws = guarded(shared, config, root).ok();
    if let Some(ws) = &ws {
        snapshot.listing = crate::turn::prompt::listing(ws);
    }
    if config.snapshot.instructions
        && let Some(ws) = &ws
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
