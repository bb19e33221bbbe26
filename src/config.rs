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
