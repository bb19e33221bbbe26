//! `keyless mcp`: keyless as a tool for other agents, a Model Context Protocol server on
//! standard input and output (the official Rust SDK, `rmcp`). Its tools stand on the
//! application layer as `keyless run` does: `run_task` (the whole loop in a workspace, its
//! events as progress notifications, the result with the files changed and their diff),
//! `consult` (one message, the reply's text back, nothing run), `status` and `undo`. Each call
//! runs on a thread of its own with a chat driver of its own: calls at once each get a tab of
//! the one browser (`--cdp`, or the browser keyless shares on its profile).
//!
//! What it does not do: print on standard output (it is the protocol's), or run a command a
//! person must approve without asking one (`report.rs`).

mod report;
mod snippets;

use std::path::{Path, PathBuf};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Implementation, RequestMetaObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::{
    ErrorData, Peer, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::Choices;
use crate::app::conversation::Saved;
use crate::app::task::{self, Begin, Refused};
use crate::exit::Status;
use crate::workspace::backup::Change;

pub use snippets::{Client, snippet};

/// Serves MCP on standard input and output until the client closes it, with `base` as every
/// call's choices before its own arguments (the browser, the profile, the site).
pub fn serve(base: Choices) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        let server = Server::new(base)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("the MCP session did not start: {e}"))?;
        let ended = server.waiting().await;
        // The client is gone: the calls still running stop as at a Ctrl+C (their sessions kept,
        // to resume), and the browser goes with the server.
        crate::cancel::request();
        let given_up = std::time::Instant::now() + LAST_CALLS;
        while RUNNING.load(std::sync::atomic::Ordering::SeqCst) > 0
            && std::time::Instant::now() < given_up
        {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        crate::cancel::end_groups();
        ended.map_err(|e| format!("the MCP session ended badly: {e}"))?;
        Ok(())
    })
}

/// How long the calls still running when the client goes get to stop and save their sessions.
const LAST_CALLS: std::time::Duration = std::time::Duration::from_secs(20);

/// How many calls run now, on threads of their own.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Who approves commands, as a tool's argument spells it.
#[derive(Clone, Copy, Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    /// A person approves risky commands (asked through the client, or refused).
    Ask,
    /// Safe and risky commands run contained; a person approves the rest.
    Autosafe,
    /// Every command that is not denied runs contained.
    Auto,
}

/// How many commands one reply may carry.
#[derive(Clone, Copy, Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Pace {
    Step,
    Balanced,
    Batch,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct RunTask {
    /// What the model should do, in plain words.
    task: String,
    /// The workspace folder the model works in (an absolute path).
    workspace: PathBuf,
    /// The chat site, by its name in selectors.json (chatgpt, claude, gemini, …).
    site: Option<String>,
    /// The chat page to open instead of the site's.
    url: Option<String>,
    /// Who approves commands: ask (the default), autosafe or auto.
    mode: Option<Mode>,
    /// How many commands one reply may carry: step, balanced or batch.
    pace: Option<Pace>,
    /// Start a new chat instead of going on in the workspace's saved one.
    #[serde(default)]
    new_chat: bool,
    /// A done-check: a command line run in the sandbox after the model's @@done; when it
    /// fails, its output goes back to the model and the work goes on (e.g. "cargo test").
    until: Option<String>,
    /// The model to choose in the site's picker (read back before anything is sent).
    model: Option<String>,
    /// The reasoning effort to choose there.
    effort: Option<String>,
    /// A reply from another model than the one chosen is a warning, not a stop.
    #[serde(default)]
    allow_fallback: bool,
    /// Run the task in the site's temporary chat (its history is not kept).
    #[serde(default)]
    temporary: bool,
    /// Files to send with the task's first message (absolute paths, the caller's own files;
    /// text files are sent with their secrets redacted).
    #[serde(default)]
    attach: Vec<PathBuf>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Consult {
    /// The question for the model.
    question: String,
    /// Files of the workspace to send with it (paths relative to the workspace).
    #[serde(default)]
    files: Vec<String>,
    /// The workspace the files are in [default: the server's current folder].
    workspace: Option<PathBuf>,
    /// The chat site, by its name in selectors.json.
    site: Option<String>,
    /// The chat page to open instead of the site's.
    url: Option<String>,
    /// The model to choose in the site's picker (read back before the question is sent).
    model: Option<String>,
    /// The reasoning effort to choose there.
    effort: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct InWorkspace {
    /// The workspace folder (an absolute path).
    workspace: PathBuf,
}

/// The server: the choices every call starts from, and its tools.
#[derive(Clone)]
struct Server {
    base: Choices,
    #[expect(
        dead_code,
        reason = "the tool_handler macro reads the router its own way"
    )]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Server {
    fn new(base: Choices) -> Server {
        Server {
            base,
            tool_router: Self::tool_router(),
        }
    }

    /// The base choices with a call's own.
    fn choices(
        &self,
        workspace: Option<PathBuf>,
        site: Option<String>,
        url: Option<String>,
    ) -> Choices {
        let mut choices = self.base.clone();
        if workspace.is_some() {
            choices.workspace = workspace;
        }
        if site.is_some() || url.is_some() {
            choices.site = site;
            choices.url = url;
        }
        choices
    }

    #[tool(
        description = "Carry out a coding task with keyless: the model in the person's chat page works in the workspace until it says it is done, every command checked by keyless's policy and contained by its sandbox, every file change backed up (undo puts it back). Progress notifications carry the events of `keyless run --json`. The result is the stop reason, the summary, the files changed and their diff. A command that needs a person's yes is asked through elicitation when this client supports it, else refused with the reason."
    )]
    async fn run_task(
        &self,
        Parameters(args): Parameters<RunTask>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        call: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if args.task.trim().is_empty() {
            return Ok(failed(
                "keyless mcp: the task is empty; say what the model should do",
            ));
        }
        if let Some(refused) = relative(Some(&args.workspace)) {
            return Ok(refused);
        }
        let mut choices = self.choices(Some(args.workspace), args.site, args.url);
        if let Some(mode) = args.mode {
            choices.mode = Some(match mode {
                Mode::Ask => crate::config::Mode::Ask,
                Mode::Autosafe => crate::config::Mode::AutoSafe,
                Mode::Auto => crate::config::Mode::Auto,
            });
        }
        if let Some(pace) = args.pace {
            choices.pace = Some(match pace {
                Pace::Step => crate::config::Pace::Step,
                Pace::Balanced => crate::config::Pace::Balanced,
                Pace::Batch => crate::config::Pace::Batch,
            });
        }
        choices.new_chat = choices.new_chat || args.new_chat;
        choices.wanted.model = args.model.or(choices.wanted.model);
        choices.wanted.effort = args.effort.or(choices.wanted.effort);
        choices.wanted.allow_fallback |= args.allow_fallback;
        choices.wanted.temporary |= args.temporary;
        // The caller's files, read before anything opens (a missing one is refused here); the
        // server's current folder is not the caller's, so only absolute paths are taken.
        if let Some(relative) = args.attach.iter().find(|p| p.is_relative()) {
            return Ok(failed(&format!(
                "keyless mcp: attach takes absolute paths, and {} is relative",
                relative.display()
            )));
        }
        let workspace = choices.workspace_or_here();
        let attachments =
            match crate::chat::attach::read(&args.attach, Path::new("/"), Some(&workspace)) {
                Ok(files) => files,
                Err(failure) => {
                    return Ok(failed(&format!(
                        "keyless mcp: {}: {}",
                        failure.code, failure.reason
                    )));
                }
            };
        let can_ask = peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form);
        let (events, forwarding) = report::forward(peer.clone(), meta.get_progress_token());
        let refused = report::Refusals::default();
        let client = report::Client {
            peer,
            runtime: tokio::runtime::Handle::current(),
            can_ask,
            events: events.clone(),
            refused: refused.clone(),
        };
        let task_text = args.task;
        let until = args.until;
        let outcome = on_a_thread(&call, move || {
            let mut progress = report::Progress {
                events,
                warnings: Vec::new(),
            };
            let why_not = std::cell::RefCell::new(None);
            let has_files = !attachments.is_empty();
            let check = |saved: &Saved| match saved {
                Saved::Interrupted(_) if has_files => {
                    *why_not.borrow_mut() = Some(
                        "a turn stopped half-way in this workspace and its first message went already, so files cannot go with it; finish it without attach, or give new_chat: true to start the task again with them".to_string(),
                    );
                    Err(Status::Usage)
                }
                Saved::Interrupted(s) if s.task.as_deref() != Some(task_text.as_str()) => {
                    *why_not.borrow_mut() = Some(format!(
                        "a turn for another task stopped half-way in this workspace (\"{}\"); finish it with `keyless run --resume` or give new_chat: true to drop it",
                        s.task.as_deref().unwrap_or("unknown")
                    ));
                    Err(Status::Usage)
                }
                _ => Ok(()),
            };
            let begin = Begin {
                command: "mcp",
                task: &task_text,
                check: &check,
                notice: None,
                until,
                attachments,
            };
            let done = task::run(&choices, begin, client, &mut progress);
            let why_not = why_not.borrow_mut().take();
            (done, progress.warnings, why_not)
        })
        .await?;
        // Every progress notification goes before the result.
        let _ = forwarding.await;
        let (done, warnings, why_not) = outcome;
        let refused = refused.lock().map(|r| r.clone()).unwrap_or_default();
        Ok(match done {
            Ok(done) => task_result(&done, &refused, &warnings),
            Err(Refused::Start(e)) => failed(&format!("keyless mcp: {e}")),
            Err(Refused::Check(_)) => failed(&why_not.unwrap_or_default()),
        })
    }

    #[tool(
        description = "Ask the model in the person's chat page one question, optionally with files of a workspace, and get its reply's text back. Nothing is run and nothing changes."
    )]
    async fn consult(
        &self,
        Parameters(args): Parameters<Consult>,
        call: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(refused) = relative(args.workspace.as_deref()) {
            return Ok(refused);
        }
        let mut choices = self.choices(args.workspace, args.site, args.url);
        // A question is its own conversation, never a task's chat.
        choices.new_chat = true;
        choices.wanted.model = args.model.or(choices.wanted.model);
        choices.wanted.effort = args.effort.or(choices.wanted.effort);
        let outcome = on_a_thread(&call, move || {
            let mut report = Quiet;
            crate::app::consult::consult(&choices, &args.question, &args.files, &mut report)
        })
        .await?;
        Ok(match outcome {
            Ok(reply) => CallToolResult::success(vec![rmcp::model::ContentBlock::text(reply)]),
            Err(e) => failed(&format!("keyless mcp: {e}")),
        })
    }

    #[tool(
        description = "What keyless's state in a workspace says: the saved session and where its turn stands, whether a keyless works there now, the batch undo would put back, what contains the model's commands."
    )]
    async fn status(
        &self,
        Parameters(args): Parameters<InWorkspace>,
        call: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(refused) = relative(Some(&args.workspace)) {
            return Ok(refused);
        }
        let choices = self.choices(Some(args.workspace), None, None);
        let outcome = on_a_thread(&call, move || -> Result<Value, String> {
            let config = choices.load_config().map_err(|e| e.to_string())?;
            let ws = crate::workspace::Workspace::open(&choices.workspace_or_here())
                .map_err(|f| f.reason)?;
            let report = crate::app::status::status(&choices, &config, &ws);
            serde_json::to_value(&report).map_err(|e| e.to_string())
        })
        .await?;
        Ok(match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(why) => failed(&format!("keyless mcp: {why}")),
        })
    }

    #[tool(
        description = "Put back what the last batch of keyless's commands changed in a workspace; call again to go back one more batch."
    )]
    async fn undo(
        &self,
        Parameters(args): Parameters<InWorkspace>,
        call: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(refused) = relative(Some(&args.workspace)) {
            return Ok(refused);
        }
        let choices = self.choices(Some(args.workspace), None, None);
        let outcome = on_a_thread(&call, move || -> Result<Value, String> {
            let config = choices.load_config().map_err(|e| e.to_string())?;
            let (ws, _claim) =
                crate::app::start::open_workspace(&choices, &config).map_err(|e| e.to_string())?;
            let report = crate::workspace::backup::undo(&ws);
            let next = crate::workspace::backup::list(&ws).ok().and_then(|all| {
                crate::workspace::backup::next_undo(&all).map(|m| (m.id, m.label.clone()))
            });
            let status = match &report {
                Ok(crate::workspace::backup::UndoReport::Restored { refused, .. })
                    if !refused.is_empty() =>
                {
                    Status::Stopped
                }
                Ok(_) => Status::Success,
                Err(_) => Status::Stopped,
            };
            Ok(crate::app::events::undo_json(
                &report,
                next.as_ref(),
                status,
            ))
        })
        .await?;
        Ok(match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(why) => failed(&format!("keyless mcp: {why}")),
        })
    }
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("keyless", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "keyless carries out coding tasks with the model in the person's own chat page (no API key): run_task for a whole task in a workspace, consult for one question, status and undo for a workspace.",
            )
    }
}

/// Runs `work` on a thread of its own (the chat driver and the turn block, and the driver has
/// a runtime of its own), and waits for it without holding up the server; the client's cancellation of the call (or its going away)
/// asks it to stop, as Ctrl+C asks a run (`cancel.rs`): what runs stops, the session is kept.
async fn on_a_thread<T: Send + 'static>(
    call: &RequestContext<RoleServer>,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ErrorData> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let cancelled = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let told = std::sync::Arc::clone(&cancelled);
    let token = call.ct.clone();
    let watch = tokio::spawn(async move {
        token.cancelled().await;
        told.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    RUNNING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    std::thread::spawn(move || {
        crate::cancel::for_this_thread(cancelled);
        let _ = sender.send(work());
        RUNNING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    });
    let answered = receiver
        .await
        .map_err(|_| ErrorData::internal_error("the call's thread ended without a result", None));
    watch.abort();
    answered
}

/// A workspace given as a relative path, refused: the server's current folder is not the
/// caller's, so it would name another folder.
fn relative(workspace: Option<&Path>) -> Option<CallToolResult> {
    let workspace = workspace.filter(|w| w.is_relative())?;
    Some(failed(&format!(
        "keyless mcp: the workspace must be an absolute path, and {} is relative (the server's current folder is not the caller's)",
        workspace.display()
    )))
}

/// A failed call's result: the reason, in words.
fn failed(reason: &str) -> CallToolResult {
    CallToolResult::structured_error(json!({ "reason": reason }))
}

/// A task's result: how it ended (as `--json`'s `finished` says it), the summary, each file
/// changed with how, their diff, what was refused for want of a person, and the warnings.
fn task_result(done: &task::Done, refused: &[String], warnings: &[String]) -> CallToolResult {
    let mut value = crate::app::events::turn_finished(&done.stop, done.status);
    if let Value::Object(map) = &mut value {
        map.remove("v");
        map.remove("type");
        map.insert(
            "summary".into(),
            done.summary
                .as_ref()
                .map_or(Value::Null, crate::app::events::summary_json),
        );
        let files: Vec<Value> = done
            .changes
            .iter()
            .map(|c| json!({ "path": c.path, "change": change_kind(c) }))
            .collect();
        map.insert("files".into(), json!(files));
        map.insert("diff".into(), json!(diff(&done.changes)));
        map.insert("refused".into(), json!(refused));
        map.insert("warnings".into(), json!(warnings));
    }
    let mut result = CallToolResult::structured(value);
    // A task that did not finish is still a result the caller reads, not a protocol error.
    result.is_error = Some(done.status != Status::Success);
    result
}

fn change_kind(change: &Change) -> &'static str {
    match (&change.before, &change.after) {
        (None, Some(_)) => "created",
        (Some(_), None) => "deleted",
        (None, None) => "moved",
        (Some(_), Some(_)) => "modified",
    }
}

/// The changes as one unified diff (`a/` before, `b/` now); a file that is not text is named.
fn diff(changes: &[Change]) -> String {
    let mut out = String::new();
    for change in changes {
        let before = change.before.as_deref().unwrap_or_default();
        let after = change.after.as_deref().unwrap_or_default();
        let (Ok(before), Ok(after)) = (std::str::from_utf8(before), std::str::from_utf8(after))
        else {
            out.push_str(&format!("Binary file {} changed\n", change.path));
            continue;
        };
        let old = if change.before.is_some() {
            format!("a/{}", change.path)
        } else {
            "/dev/null".to_string()
        };
        let new = if change.after.is_some() {
            format!("b/{}", change.path)
        } else {
            "/dev/null".to_string()
        };
        let text = similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .header(&old, &new)
            .to_string();
        out.push_str(&text);
    }
    out
}

/// A reporter for calls with nothing to follow (`consult`): lines go to the server's log.
struct Quiet;

impl crate::app::report::Report for Quiet {
    fn note(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn warn(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn event(&mut self, _event: crate::turn::Event) {}

    fn finished(&mut self, stop: &crate::turn::Stop, _command: &str) -> Status {
        crate::app::report::stop_status(stop)
    }
}
