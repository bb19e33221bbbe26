//! Configuration values. For now: the enforced limits, with the specification's defaults.

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
