//! keyless: a coding agent that drives the chat page you already pay for, with no API key.
//!
//! See `ARCHITECTURE.md` for the map of modules and the invariants that hold between them.

// Errors are values here: a failure carries a catalog code to the user, it never aborts keyless.
// Tests may unwrap.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub(crate) mod app;
pub mod batch;
pub(crate) mod cancel;
pub mod catalog;
pub mod chat;
pub(crate) mod claim;
pub mod cli;
pub mod config;
pub mod exec;
pub(crate) mod exit;
pub mod git;
pub(crate) mod glob;
pub mod hosts;
pub(crate) mod mcp;
pub mod policy;
pub mod protocol;
pub mod redact;
pub mod turn;
pub(crate) mod visible;
pub mod workspace;
