//! The process exit statuses keyless documents in the README. Scripts rely on them.

/// How a keyless invocation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything asked for was done.
    Success,
    /// The reply was rejected by the parser; nothing executed.
    Rejected,
    /// The command line or the configuration is wrong, or an input could not be read.
    Usage,
    /// The turn stopped before `@@done` (a limit, a failed command that stopped the batch, …).
    Stopped,
    /// The browser or the chat page failed.
    Chat,
    /// The user interrupted keyless (Ctrl+C).
    Interrupted,
}

impl Status {
    /// The numeric exit code.
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Rejected => 1,
            Status::Usage => 2,
            Status::Stopped => 3,
            Status::Chat => 4,
            Status::Interrupted => 130,
        }
    }
}
