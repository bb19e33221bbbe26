//! Configuration: `keyless.json` (see `file.rs` and `keyless.json.example`), command-line flags
//! over the file over these defaults.

pub mod file;

use std::path::PathBuf;

/// Everything `keyless.json` can set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub agent: AgentConfig,
    pub limits: Limits,
    pub commands: CommandsConfig,
    pub git: GitSettings,
    pub browser: BrowserConfig,
    pub snapshot: SnapshotConfig,
    pub sandbox: SandboxConfig,
    pub secrets: SecretsConfig,
    /// The file it came from, if any.
    pub source: Option<PathBuf>,
}

/// The `Agent` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentConfig {
    pub pace: Pace,
    pub mode: Mode,
    pub site: Option<String>,
}

/// A command's timeout when neither `Commands.TimeoutSeconds` nor its `timeout=` says
/// otherwise (the specification's default).
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 300;

/// The `Commands` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandsConfig {
    pub failure_mode: FailureMode,
    /// A command's timeout unless its `timeout=` says otherwise.
    pub timeout_seconds: u64,
    /// The most a `timeout=` may ask for.
    pub max_timeout_seconds: u64,
    pub allow_list: Vec<String>,
    pub deny_list: Vec<String>,
    /// The shell that runs command lines (`sh`, `bash`, …; `cmd` on Windows).
    pub shell: Option<String>,
}

impl Default for CommandsConfig {
    fn default() -> Self {
        CommandsConfig {
            failure_mode: FailureMode::default(),
            timeout_seconds: DEFAULT_TIMEOUT_SECONDS,
            max_timeout_seconds: 1_800,
            allow_list: Vec::new(),
            deny_list: Vec::new(),
            shell: None,
        }
    }
}

/// The `Browser` section (used by the chat driver).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrowserConfig {
    pub executable_path: Option<PathBuf>,
    pub user_data_dir: Option<PathBuf>,
    pub headless: bool,
    pub cdp_url: Option<String>,
    pub url: Option<String>,
    /// How long to wait for a complete reply.
    pub reply_timeout_seconds: u64,
    /// How long a reply may stay without `@@eof` once the page says it is finished.
    pub truncation_budget_seconds: u64,
    /// How long a streaming reply may make no progress before it counts as stalled.
    pub stall_seconds: u64,
    /// On a rate or usage limit with a known reset, wait for it and go on (`--wait`).
    pub wait_on_limits: bool,
    /// The model and effort to choose per site (its name in selectors.json), as `--model` and
    /// `--effort` do; the flags win.
    pub models: std::collections::BTreeMap<String, SiteModel>,
}

/// `Browser.Models.<site>`: the model and effort chosen on that site.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SiteModel {
    pub model: Option<String>,
    pub effort: Option<String>,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        BrowserConfig {
            executable_path: None,
            user_data_dir: None,
            headless: false,
            cdp_url: None,
            url: None,
            reply_timeout_seconds: 600,
            truncation_budget_seconds: 30,
            // Long enough for a model that thinks for minutes behind a moving indicator.
            stall_seconds: 300,
            wait_on_limits: false,
            models: std::collections::BTreeMap::new(),
        }
    }
}

/// Tools the environment snapshot checks when the configuration names none.
pub const DEFAULT_TOOLS: &[&str] = &[
    "git", "cargo", "rustc", "node", "npm", "python3", "dotnet", "go",
];

/// The `Git` section: how `@@commit` behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitSettings {
    pub auto_init: bool,
    pub push: bool,
    /// Branch-name patterns (`*` wildcard) `@@commit` refuses to commit on.
    pub protected_branches: Vec<String>,
}

impl Default for GitSettings {
    fn default() -> Self {
        GitSettings {
            auto_init: false,
            push: true,
            protected_branches: vec!["main".to_string(), "master".to_string()],
        }
    }
}

/// The `Snapshot` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotConfig {
    /// Tools whose versions the environment snapshot reports (or Missing).
    pub tools: Vec<String>,
    /// Scripts whose output is added to the snapshot.
    pub scripts: Vec<String>,
    /// Whether the project's instructions for coding agents (`AGENTS.md` and kin, see
    /// `docs/instructions.md`) go into the first message.
    pub instructions: bool,
}

impl Default for SnapshotConfig {
    fn default() -> Self {
        SnapshotConfig {
            tools: DEFAULT_TOOLS.iter().map(|t| t.to_string()).collect(),
            scripts: Vec::new(),
            instructions: true,
        }
    }
}

/// The `Sandbox` section: what the model's commands can reach (see `docs/sandbox.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxConfig {
    pub mode: SandboxMode,
    /// Network for the model's commands; `None`: on in Ask mode, off in AutoSafe and Auto.
    pub network: Option<bool>,
    /// Folders (or files) the model's commands may write besides the workspace, the batch's
    /// temporary folder and the build caches.
    pub writable_paths: Vec<PathBuf>,
    /// Secret stores masked (shown empty) besides the built-in ones.
    pub hidden_paths: Vec<PathBuf>,
    /// Environment variables never given to the model's commands besides those whose names
    /// mark them as secret.
    pub hidden_env: Vec<String>,
    /// Environment variables given to the model's commands although their names mark them as
    /// secret.
    pub pass_env: Vec<String>,
    /// Folders (or files) the model's commands may read besides the system's folders, the
    /// toolchains and the workspace (the home folder is otherwise empty to them).
    pub readable_paths: Vec<PathBuf>,
    /// Guarantees (by name, `docs/sandbox.md`; `"*"` for all) that `--mode auto` may run
    /// without, where this machine cannot give them.
    pub allow_missing: Vec<String>,
    /// The most processes (threads included) one command may have at once.
    pub max_processes: u64,
    /// The most memory one command may use, in MiB; `None`: half of the machine's.
    pub max_memory_mib: Option<u64>,
    /// How big a command's private `$TMPDIR` may grow, in MiB.
    pub tmp_mib: u64,
    /// Hosts the sandbox's proxy reaches besides its base list (`Sandbox.NetworkAllow`).
    pub network_allow: Vec<crate::hosts::Pattern>,
    /// The proxy's base list instead of the built-in one and the tools' registries
    /// (`Sandbox.NetworkAllowOnly`); `None`: those.
    pub network_allow_only: Option<Vec<crate::hosts::Pattern>>,
}

/// The names of the guarantees containment makes (`docs/sandbox.md`), as `keyless status`
/// reports them and `Sandbox.AllowMissing` names them.
pub const GUARANTEE_NAMES: &[&str] = &[
    "processes",
    "privilege",
    "kernel",
    "files",
    "home",
    "sockets",
    "network",
    "caches",
    "protected",
    "process-limit",
    "memory-limit",
    "tmp-limit",
    "environment",
];

/// A command's process limit when the configuration sets none: enough for a parallel build's
/// compilers and their threads, far below what starves a machine.
pub const DEFAULT_MAX_PROCESSES: u64 = 4096;
/// A command's `$TMPDIR` size when the configuration sets none.
pub const DEFAULT_TMP_MIB: u64 = 2048;

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            mode: SandboxMode::default(),
            network: None,
            writable_paths: Vec::new(),
            hidden_paths: Vec::new(),
            hidden_env: Vec::new(),
            pass_env: Vec::new(),
            readable_paths: Vec::new(),
            allow_missing: Vec::new(),
            max_processes: DEFAULT_MAX_PROCESSES,
            max_memory_mib: None,
            tmp_mib: DEFAULT_TMP_MIB,
            network_allow: Vec::new(),
            network_allow_only: None,
        }
    }
}

/// Sandbox.Mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SandboxMode {
    /// Every command the model runs is contained as far as the platform allows.
    #[default]
    On,
    /// No containment (the user's explicit choice; the environment is still filtered).
    Off,
}

/// The `Secrets` section: what keyless keeps out of everything it sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretsConfig {
    /// Replace secrets by `[redacted: kind]` in everything sent to the chat or written to the
    /// transcript.
    pub redact: bool,
    /// Literal strings that are never redacted.
    pub allow: Vec<String>,
}

impl Default for SecretsConfig {
    fn default() -> Self {
        SecretsConfig {
            redact: true,
            allow: Vec::new(),
        }
    }
}

/// The limits of the specification's "Limits" table, injected into the system prompt and
/// enforced by the parser and the executor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Non-say commands one response may carry before the rest are skipped.
    pub max_commands_per_response: usize,
    /// A longer reply is rejected (KA_LIMIT_RESPONSE_CHARS).
    pub max_response_chars: usize,
    /// A longer payload section is rejected (KA_LIMIT_FILE_CONTENT_CHARS).
    pub max_file_content_chars: usize,
    /// Command output beyond this is cut to head + tail.
    pub max_command_output_chars: usize,
    /// Invalid replies in a row before the turn stops.
    pub max_format_retries: usize,
    /// Model replies per turn before the turn stops.
    pub max_iterations_per_turn: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_commands_per_response: 5,
            max_response_chars: 60_000,
            max_file_content_chars: 40_000,
            max_command_output_chars: 8_000,
            max_format_retries: 3,
            max_iterations_per_turn: 25,
        }
    }
}

/// Agent.Pace: how many non-say commands one response may carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pace {
    /// One command, then the model reads its result.
    Step,
    /// Three commands.
    #[default]
    Balanced,
    /// Limits.MaxCommandsPerResponse.
    Batch,
}

impl Pace {
    /// The name as the specification and the results message spell it.
    pub fn name(self) -> &'static str {
        match self {
            Pace::Step => "Step",
            Pace::Balanced => "Balanced",
            Pace::Batch => "Batch",
        }
    }

    /// The effective per-response limit: min(pace limit, MaxCommandsPerResponse).
    pub fn limit(self, limits: &Limits) -> usize {
        let pace = match self {
            Pace::Step => 1,
            Pace::Balanced => 3,
            Pace::Batch => limits.max_commands_per_response,
        };
        pace.min(limits.max_commands_per_response)
    }
}

/// Who approves commands (the specification's risk-tier table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Risky steps, and Execute-tier commands, need the user's yes.
    #[default]
    Ask,
    /// Execute-tier commands on the allow list run; Risky still asks.
    AutoSafe,
    /// Everything but Denied runs.
    Auto,
}

impl Mode {
    /// The name as the specification spells it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Ask => "Ask",
            Mode::AutoSafe => "AutoSafe",
            Mode::Auto => "Auto",
        }
    }
}

/// Commands.BatchFailureMode: what a failed command does to the rest of the batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FailureMode {
    /// A failed ReadOnly probe never stops the batch; any other failure does.
    #[default]
    StopOnMutationFailure,
    /// Any failure stops the rest.
    StopOnAnyFailure,
    /// Nothing stops.
    Continue,
}
