//! The MCP server's third reporter and its person: what happens in a task goes to the client
//! as progress notifications carrying the events `--json` prints (`docs/json-events.md`), and a
//! command that needs a person's yes is asked through MCP's elicitation when the client
//! declares it, else refused with the reason (never run unasked).
//!
//! What it does not do: decide whether a command needs a yes (the batch engine does) or wait
//! for the network in the turn's thread for anything but a person's answer.

use std::sync::{Arc, Mutex};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::ElicitationError;
use rmcp::{Peer, RoleServer};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::app::events;
use crate::app::report::{Report, Started, stop_status};
use crate::batch::{Confirmation, Person};
use crate::exit::Status;
use crate::turn::{Event, Stop};

/// How long a person has to answer a confirmation asked through the client: as long as a
/// person at a terminal would take, bounded so that a client that never answers ends the wait.
const ANSWER_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Sends each event of a task to the client as a progress notification on the call's token,
/// in order, numbered from 1; without a token (the client asked for no progress), nothing.
pub(super) fn forward(
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
) -> (UnboundedSender<Value>, tokio::task::JoinHandle<()>) {
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let forwarding = tokio::spawn(async move {
        let mut count = 0u32;
        while let Some(event) = events.recv().await {
            count += 1;
            if let Some(token) = &token {
                let note = ProgressNotificationParam::new(token.clone(), f64::from(count))
                    .with_message(event.to_string());
                // A client that went away ends nothing here: the task goes on to its end.
                let _ = peer.notify_progress(note).await;
            }
        }
    });
    (sender, forwarding)
}

/// The reporter of one MCP call: each event as `--json` has it, sent to [`forward`]; warnings
/// kept for the result (and logged on standard error, which MCP clients keep as the server's
/// log).
pub(super) struct Progress {
    pub events: UnboundedSender<Value>,
    pub warnings: Vec<String>,
}

impl Progress {
    fn send(&self, event: Value) {
        // The forwarder ends only after the call: a closed channel loses nothing that matters.
        let _ = self.events.send(event);
    }
}

impl Report for Progress {
    fn note(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn warn(&mut self, line: &str) {
        eprintln!("{line}");
        self.warnings.push(line.to_string());
    }

    fn started(&mut self, what: &Started) {
        self.send(events::started(what));
    }

    fn event(&mut self, event: Event) {
        for event in events::on_turn(&event) {
            self.send(event);
        }
    }

    fn chat_failed(&mut self, failure: &crate::catalog::Failure) {
        self.send(events::finished(
            "chat_error",
            None,
            Some(failure),
            Status::Chat,
        ));
    }

    fn finished(&mut self, stop: &Stop, _command: &str) -> Status {
        let status = stop_status(stop);
        self.send(events::turn_finished(stop, status));
        status
    }
}

/// What was refused for want of a person: each action and why.
pub(super) type Refusals = Arc<Mutex<Vec<String>>>;

/// The person behind the MCP client: asked through elicitation when the client can be asked,
/// else nobody (every confirmation refused, with the reason kept for the result).
pub(super) struct Client {
    pub peer: Peer<RoleServer>,
    /// The server's runtime, where the question to the client is sent from the turn's thread.
    pub runtime: tokio::runtime::Handle,
    pub can_ask: bool,
    pub events: UnboundedSender<Value>,
    pub refused: Refusals,
}

/// A yes or no, as the client's form asks it.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Approval {
    /// Whether keyless may do it.
    approve: bool,
}
rmcp::elicit_safe!(Approval);

/// An answer to the model's question.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    /// The answer, in words.
    answer: String,
}
rmcp::elicit_safe!(Answer);

impl Client {
    /// Asks the client's person through elicitation; `None` when they cannot be asked or did
    /// not answer.
    fn elicit<T>(&self, message: String) -> Result<Option<T>, ElicitationError>
    where
        T: rmcp::service::ElicitationSafe + for<'de> serde::Deserialize<'de>,
    {
        let peer = self.peer.clone();
        self.runtime.block_on(async move {
            peer.elicit_with_timeout::<T>(message, Some(ANSWER_WAIT))
                .await
        })
    }

    fn refuse(&self, action: &str, why: &str) {
        let line = format!("{action}: {why}");
        eprintln!("keyless mcp: refused {line}");
        if let Ok(mut refused) = self.refused.lock() {
            refused.push(line);
        }
    }
}

impl Person for Client {
    fn say(&mut self, message: &str) {
        let _ = self.events.send(events::object(
            "say",
            serde_json::json!({ "text": message }),
        ));
    }

    fn ask(&mut self, question: &str) -> Option<String> {
        if !self.can_ask {
            return None;
        }
        self.elicit::<Answer>(format!("The model asks: {question}"))
            .ok()
            .flatten()
            .map(|a| a.answer)
    }

    fn confirm(&mut self, confirmation: &Confirmation) -> bool {
        if !self.can_ask {
            self.refuse(
                &confirmation.action,
                &format!(
                    "it needs a person's yes ({}), and this MCP client cannot ask one (it declares no elicitation); run it with `keyless run` at a terminal, or choose a mode that allows it",
                    confirmation.reason
                ),
            );
            return false;
        }
        let message = format!(
            "keyless asks before it does this: {}\nWhy: {}",
            confirmation.action, confirmation.reason
        );
        match self.elicit::<Approval>(message) {
            Ok(Some(Approval { approve: true })) => true,
            Ok(_) | Err(ElicitationError::UserDeclined | ElicitationError::UserCancelled) => {
                self.refuse(&confirmation.action, "the person said no");
                false
            }
            Err(e) => {
                self.refuse(
                    &confirmation.action,
                    &format!("the question to the person failed ({e})"),
                );
                false
            }
        }
    }
}
