//! keyless's integration tests, in one binary (as just's `tests/`): one link of tokio,
//! chromiumoxide, git2 and axum instead of one per file. Each module is the tests of one area;
//! `common` holds what they share (the [`common::Test`] builder for "a workspace, a reply,
//! `keyless apply`", the host with no one at it, the built binary on the local chat page).
//!
//! Every test shares the process with the others, so no test changes process-wide state (the
//! environment, the current directory, the Ctrl+C flag, signal handlers): what needs another
//! environment runs the built binary with it.

mod common;

mod architecture;
mod attach;
mod attacks29;
mod attacks29b;
mod attacks31;
mod attacks31b;
mod attacks31c;
mod attacks33;
mod attacks33b;
mod attacks34;
mod batch;
mod browser;
mod catalog;
mod claims;
mod cli_check;
mod config;
mod conventions;
mod crash;
mod discovery;
mod doctor;
mod editors;
mod errors;
mod exec;
mod flat;
mod frontends;
mod git;
mod hands;
mod instructions;
mod interactive;
mod json_events;
mod loop_e2e;
mod mcp;
mod models;
mod network;
mod parser;
mod parser_props;
mod policy;
mod policy_bypass;
mod policy_props;
mod policy_spellings;
mod progress;
mod prosemirror;
mod reading;
mod readme;
mod redact_values;
mod resume;
mod run;
mod sandbox;
mod scenarios;
mod selectors;
mod snapshot;
mod terminal;
mod trouble;
mod turn;
mod workspace;
mod world;
