//! What a workspace's `.agent/` says, without opening a browser (`keyless status`, the MCP
//! server's `status`): the saved session and where its turn stands (what a resume would do),
//! whether a keyless is working there now, the batch an undo would put back, and what contains
//! the model's commands there.
//!
//! What it does not do: print (the front doors do) or change anything.

use serde::Serialize;

use crate::turn::record::{self, InFlight, Session};
use crate::workspace::Workspace;
use crate::workspace::backup;

#[derive(Serialize)]
pub struct Report {
    pub workspace: String,
    /// "none", "idle", "waiting" (a message awaits its reply) or "executing" (a batch was cut
    /// short).
    pub state: &'static str,
    pub session: Option<Session>,
    /// Commands of the cut-short batch that finished, and the one that was running.
    pub finished: Vec<usize>,
    pub running: Option<usize>,
    /// The running command's name (`runcommand`, `editfile`, …).
    pub running_command: Option<&'static str>,
    /// The process of a keyless working in this workspace now.
    pub running_pid: Option<i32>,
    /// The batch `keyless undo` would put back: its number and how many changes it made.
    pub undo: Option<(u64, usize)>,
    /// The batch folders kept in `.agent/backups/` and their size in bytes.
    pub backups: (usize, u64),
    /// What contains the model's commands here, in the configured mode.
    pub sandbox: String,
    /// Each guarantee of that containment, held or not, and why not.
    pub guarantees: Vec<crate::exec::sandbox::Guarantee>,
    /// Where a command's network goes in the configured mode: "off", "proxy" (only through
    /// keyless's proxy, to `network_allow`), or "unfiltered" (the machine's network).
    pub network: &'static str,
    /// The proxy's allow-list: each entry, and where it came from.
    pub network_allow: Vec<AllowEntry>,
}

/// One entry of the proxy's allow-list.
#[derive(Serialize)]
pub struct AllowEntry {
    /// `registry.npmjs.org`, `*.example.com`, `10.0.0.0/8`, or `*`.
    pub host: String,
    /// `built in (…)`, `npm's settings (/home/u/.npmrc)`, `keyless.json Sandbox.NetworkAllow`.
    pub from: String,
}

/// What `ws`'s `.agent/` says, with the containment the choices and `config` give there.
pub fn status(choices: &super::Choices, config: &crate::config::Config, ws: &Workspace) -> Report {
    let (containment, mode) = super::start::containment_with(choices, config, ws.root());
    let session = record::load_session(ws);
    let (mut finished, mut running) = (Vec::new(), None);
    let state = match &session {
        None => "none",
        Some(s) if matches!(s.in_flight, InFlight::CarryingOut { .. }) => {
            for line in record::read_journal(ws, s.batch) {
                match line.result {
                    Some(_) => {
                        finished.push(line.index);
                        running = None;
                    }
                    None => running = Some(line.index),
                }
            }
            "executing"
        }
        Some(s) if matches!(s.in_flight, InFlight::Sending { .. }) => "waiting",
        Some(_) => "idle",
    };
    let running_command = match (&session, running) {
        (Some(s), Some(index)) => match &s.in_flight {
            InFlight::CarryingOut { reply } => {
                crate::protocol::parse(reply, &crate::config::Limits::default())
                    .script
                    .and_then(|script| script.into_blocks().into_iter().find(|b| b.index == index))
                    .map(|b| b.command.kind().name())
            }
            _ => None,
        },
        _ => None,
    };
    let undo = backup::list(ws)
        .ok()
        .as_deref()
        .and_then(backup::next_undo)
        .map(|m| (m.id, m.entries.len()));
    Report {
        workspace: ws.root().display().to_string(),
        state,
        session,
        finished,
        running,
        running_command,
        running_pid: crate::claim::holder(&ws.agent(crate::workspace::agent::Agent::Claim)),
        undo,
        backups: backup::usage(ws),
        sandbox: format!("{} (mode {})", containment.line(), mode.name()),
        network: match (containment.network, containment.proxied()) {
            (false, _) => "off",
            (true, true) => "proxy",
            (true, false) => "unfiltered",
        },
        network_allow: containment
            .allow
            .entries()
            .iter()
            .map(|e| AllowEntry {
                host: e.pattern.to_string(),
                from: e.from.to_string(),
            })
            .collect(),
        guarantees: containment.guarantees,
    }
}
