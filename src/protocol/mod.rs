//! AgentScript v1: the parser, the script it produces, and the messages sent back to the model.
//!
//! Architecture invariant: everything in this module is pure. No I/O, no async, no clock; the
//! same text always parses to the same result.

pub(crate) mod ast;
pub mod parse;
pub(crate) mod path;
pub mod render;

pub use ast::{Block, Command, CommandKind, Control, OnError, RunOptions, Script, Section};
pub use parse::{Diagnostic, Header, Parsed, is_closed, parse};
