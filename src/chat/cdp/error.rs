//! What went wrong between keyless and the browser: one enum for the driver's room, each variant
//! with what keyless tried and the error beneath it (the DevTools protocol's, the OS's, the
//! page's answer that would not decode). Decisions take the variant ([`DriverError::between_documents`]
//! for a call the page's reload cut off); the catalog's code comes from the variant too, and the
//! error stays the failure's source.
//!
//! What this module does not do: name the chat's trouble (a limit, a wall: `trouble.rs`) or say
//! what a failed step means for the turn (the callers' [`Failure`]s with their own codes).

use std::fmt;
use std::time::Duration;

use chromiumoxide::error::CdpError;

use crate::catalog::{Code, Failure};

/// An error of the driver's own room.
#[derive(Debug)]
pub enum DriverError {
    /// A DevTools call failed: what keyless tried, and the protocol's error.
    Call { what: String, source: CdpError },
    /// The browser did not answer a call within the time limit.
    Silent { what: String, within: Duration },
    /// The page answered with something keyless cannot read.
    Answer {
        what: String,
        source: serde_json::Error,
    },
    /// A DevTools command could not be built (the library says why in words only).
    Command { what: &'static str, why: String },
    /// The browser's process, profile or log could not be had: what, and the OS's error.
    Launch {
        doing: String,
        source: std::io::Error,
    },
    /// keyless's own machinery (the async runtime) could not start.
    Runtime { source: std::io::Error },
    /// A file for the page's file input could not be written.
    Attachment { source: std::io::Error },
}

impl DriverError {
    /// A failed call: `what` keyless tried.
    pub fn call(what: impl Into<String>, source: CdpError) -> DriverError {
        DriverError::Call {
            what: what.into(),
            source,
        }
    }

    /// Whether the browser refused the call because the page's document went away under it (a
    /// reload or a navigation): the call may be made again in the next document. The protocol
    /// answers this with its generic server error, so its own words are the only sign; they
    /// are read here, once, where the protocol's error becomes ours.
    pub fn between_documents(&self) -> bool {
        let DriverError::Call {
            source: CdpError::Chrome(error),
            ..
        } = self
        else {
            return false;
        };
        [
            "Cannot find context with specified id",
            "Inspected target navigated or closed",
            "Execution context was destroyed",
        ]
        .iter()
        .any(|words| error.message.contains(words))
    }

    /// The catalog's code for the error.
    pub fn code(&self) -> Code {
        match self {
            DriverError::Call { .. } | DriverError::Silent { .. } | DriverError::Launch { .. } => {
                Code::BrowserConnectionFailed
            }
            DriverError::Answer { .. }
            | DriverError::Command { .. }
            | DriverError::Runtime { .. } => Code::Internal,
            DriverError::Attachment { .. } => Code::AttachmentUploadFailed,
        }
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::Call { what, source } => write!(f, "could not {what}: {source}"),
            DriverError::Silent { what, within } => write!(
                f,
                "the browser did not answer within {}s while trying to {what}; it may have closed or crashed",
                within.as_secs()
            ),
            DriverError::Answer { what, source } => {
                write!(f, "unexpected answer from the page for {what}: {source}")
            }
            DriverError::Command { what, why } => {
                write!(
                    f,
                    "the DevTools command to {what} could not be built: {why}"
                )
            }
            DriverError::Launch { doing, source } => write!(f, "cannot {doing}: {source}"),
            DriverError::Runtime { source } => {
                write!(f, "cannot start the async runtime: {source}")
            }
            DriverError::Attachment { source } => {
                write!(f, "cannot write the attachment: {source}")
            }
        }
    }
}

impl std::error::Error for DriverError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DriverError::Call { source, .. } => Some(source),
            DriverError::Answer { source, .. } => Some(source),
            DriverError::Launch { source, .. }
            | DriverError::Runtime { source }
            | DriverError::Attachment { source } => Some(source),
            DriverError::Silent { .. } | DriverError::Command { .. } => None,
        }
    }
}

impl From<DriverError> for Failure {
    fn from(error: DriverError) -> Failure {
        Failure::from_error(error.code(), error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reload_under_a_call_is_told_from_other_refusals_and_the_cause_is_kept() {
        let refused = |message: &str| {
            DriverError::call(
                "evaluate in the page",
                CdpError::Chrome(chromiumoxide::types::Error {
                    code: -32000,
                    message: message.to_string(),
                }),
            )
        };
        assert!(refused("Cannot find context with specified id").between_documents());
        assert!(!refused("Object reference chain is too long").between_documents());
        let failure = Failure::from(refused("Execution context was destroyed."));
        assert_eq!(failure.code, Code::BrowserConnectionFailed);
        let kept = std::error::Error::source(&failure)
            .and_then(|e| e.downcast_ref::<DriverError>())
            .is_some_and(DriverError::between_documents);
        assert!(kept, "{failure:?}");
    }
}
