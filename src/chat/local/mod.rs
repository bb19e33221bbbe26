//! The local chat page: served on 127.0.0.1 by keyless itself, for `keyless demo` and the tests.
//! It behaves like a real chat site (see `assets/chat/`), and its model is a script: replies and
//! faults from files, handed out one per message.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

mod modules;
mod script;
pub use modules::{editor_modules, prosemirror_modules};
pub use script::{Fault, MODES, PageFaults, Script, ScriptedReply};

/// The page's files, kept readable in `assets/chat/` and built into the binary.
const INDEX_HTML: &str = include_str!("../../../assets/chat/index.html");
const CHAT_JS: &str = include_str!("../../../assets/chat/chat.js");
const MARKDOWN_JS: &str = include_str!("../../../assets/chat/markdown.js");
const CHAT_CSS: &str = include_str!("../../../assets/chat/chat.css");
const PM_EDITOR_JS: &str = include_str!("../../../assets/chat/pm-editor.js");
/// Where the editors' and renderers' packages are, for the page's import map.
const IMPORT_MAP: &str = include_str!("../../../assets/chat/editors/importmap.json");
/// The real editors and Markdown renderers a test may mount (`PageFaults::editor`,
/// `PageFaults::renderer`), from the npm packages a test serves (`Script::modules`).
const EDITORS: &[(&str, &str)] = &[
    (
        "prosemirror.js",
        include_str!("../../../assets/chat/editors/prosemirror.js"),
    ),
    (
        "tiptap.js",
        include_str!("../../../assets/chat/editors/tiptap.js"),
    ),
    (
        "lexical.js",
        include_str!("../../../assets/chat/editors/lexical.js"),
    ),
    (
        "quill.js",
        include_str!("../../../assets/chat/editors/quill.js"),
    ),
    (
        "textarea.js",
        include_str!("../../../assets/chat/editors/textarea.js"),
    ),
    (
        "markdown-it.js",
        include_str!("../../../assets/chat/editors/markdown-it.js"),
    ),
    (
        "marked.js",
        include_str!("../../../assets/chat/editors/marked.js"),
    ),
    (
        "codemirror.js",
        include_str!("../../../assets/chat/editors/codemirror.js"),
    ),
];

/// The editors a test may mount as the composer.
pub const EDITOR_NAMES: &[&str] = &["prosemirror", "tiptap", "lexical", "quill", "textarea"];
/// The Markdown renderers a test may draw replies with (besides the page's own).
pub const RENDERER_NAMES: &[&str] = &["markdown-it", "marked", "codemirror"];

/// What the chat says when a conversation is too long (ChatGPT's wording).
pub const EXHAUSTED_TEXT: &str = "You've reached the maximum length for this conversation, but you can keep talking by starting a new chat.";

/// What the chat says when a message is too long (ChatGPT's wording).
pub const TOO_LONG_TEXT: &str = "The message you submitted was too long, please reload the conversation and submit something shorter.";

/// What the chat says when the user's message limit is reached.
pub const RATE_LIMIT_TEXT: &str = "Too many requests in 1 hour. Try again later.";

/// How `keyless doctor` starts its canary message; the local model echoes the block after the
/// first blank line.
pub const CANARY_PREFIX: &str = "keyless doctor canary.";

struct Shared {
    script: Script,
    next: usize,
    received: Vec<String>,
    /// When each message arrived, in the order of `received` (the shape benchmark measures
    /// keyless's turnaround against the page's end of the reply before it).
    arrived: Vec<Instant>,
    /// When the page said each reply had ended (`POST /api/ended`, sent the moment it marks a
    /// reply finished), in order.
    ended: Vec<Instant>,
    /// What each message of `received` went with (model, effort, surface, temporary), as the
    /// page said in its request.
    sent_with: Vec<SentWith>,
    /// Conversations by id, as a real site keeps them: a reopened `/c/{id}` shows them again.
    conversations: std::collections::HashMap<String, Vec<Turn>>,
    /// The conversations' ids in the order they began, for the page's history list.
    started: Vec<String>,
    /// Each bot check the page showed, once passed: when keyless's page script was reached for
    /// while it showed, in milliseconds since it appeared (`POST /api/check-looks`).
    check_looks: Vec<Vec<u64>>,
    /// The files the page uploaded (its `attach` modes), by name, with their bytes as they
    /// arrived, in order.
    uploads: Vec<(String, Vec<u8>)>,
    /// Until when the site is unreachable ([`Fault::Outage`]).
    down: Down,
}

/// One message of a stored conversation.
#[derive(Clone, Debug, serde::Serialize)]
struct Turn {
    role: &'static str,
    text: String,
}

/// The header that tells the page where to show a notice in the reply's stead.
const NOTICE_HEADER: &str = "x-notice";

/// The header that says what a message went with (JSON: model, effort, work, temporary).
const SENT_WITH_HEADER: &str = "x-sent-with";

/// What a message went with on the local page.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
pub struct SentWith {
    /// The model the page's picker had chosen (empty: the page has no picker).
    pub model: String,
    /// The effort chosen (empty: none).
    pub effort: String,
    /// Sent in the separately metered "Work" surface instead of plain chat.
    pub work: bool,
    /// Sent in a temporary chat (the site keeps no history of it).
    pub temporary: bool,
}

/// The header that names the conversation a message belongs to.
const CONVERSATION_HEADER: &str = "x-conversation";

type AppState = Arc<Mutex<Shared>>;

/// How long the site stays unreachable after [`Fault::Outage`] drops the network.
pub const OUTAGE: Duration = Duration::from_secs(8);

/// Until when the site is unreachable (an outage), shared by the server's connections.
#[derive(Clone, Default)]
struct Down(Arc<Mutex<Option<Instant>>>);

impl Down {
    fn now(&self) -> bool {
        self.0
            .lock()
            .is_ok_and(|until| until.is_some_and(|t| Instant::now() < t))
    }

    fn for_a_while(&self) {
        if let Ok(mut until) = self.0.lock() {
            *until = Some(Instant::now() + OUTAGE);
        }
    }
}

/// The server's listener: while the site is down, a new connection is closed unanswered.
struct Cuttable {
    listener: tokio::net::TcpListener,
    down: Down,
}

impl axum::serve::Listener for Cuttable {
    type Io = Line;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Line, SocketAddr) {
        loop {
            let Ok((stream, addr)) = self.listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            if !self.down.now() {
                let down = self.down.clone();
                return (Line { stream, down }, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// One connection, which breaks on its next use while the site is down (a connection kept
/// open by the browser is dropped too).
struct Line {
    stream: tokio::net::TcpStream,
    down: Down,
}

impl Line {
    fn cut(&self) -> Option<std::io::Error> {
        self.down
            .now()
            .then(|| std::io::Error::new(std::io::ErrorKind::ConnectionReset, "the site is down"))
    }
}

impl tokio::io::AsyncRead for Line {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if let Some(e) = self.cut() {
            return std::task::Poll::Ready(Err(e));
        }
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Line {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if let Some(e) = self.cut() {
            return std::task::Poll::Ready(Err(e));
        }
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A running local chat page.
pub struct LocalChat {
    addr: SocketAddr,
    state: AppState,
    runtime: tokio::runtime::Runtime,
}

impl LocalChat {
    /// Serves the page on a free port of 127.0.0.1.
    pub fn start(script: Script) -> std::io::Result<LocalChat> {
        let down = Down::default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let state: AppState = Arc::new(Mutex::new(Shared {
            script,
            next: 0,
            received: Vec::new(),
            arrived: Vec::new(),
            ended: Vec::new(),
            sent_with: Vec::new(),
            conversations: std::collections::HashMap::new(),
            started: Vec::new(),
            check_looks: Vec::new(),
            uploads: Vec::new(),
            down: down.clone(),
        }));
        let app = Router::new()
            .route("/", get(|| async { index() }))
            .route("/c/{id}", get(|| async { index() }))
            .route("/login", get(|| async { index() }))
            .route("/editors/{name}", get(editor_module))
            .route(
                "/chat.js",
                get(|| async { page(CHAT_JS, "text/javascript; charset=utf-8") }),
            )
            .route(
                "/markdown.js",
                get(|| async { page(MARKDOWN_JS, "text/javascript; charset=utf-8") }),
            )
            .route(
                "/chat.css",
                get(|| async { page(CHAT_CSS, "text/css; charset=utf-8") }),
            )
            .route(
                "/pm-editor.js",
                get(|| async { page(PM_EDITOR_JS, "text/javascript; charset=utf-8") }),
            )
            .route("/modules/{*path}", get(module))
            .route("/api/config", get(config))
            .route("/api/conversation/{id}", get(conversation))
            .route("/api/conversations", get(conversations))
            .route("/api/chat", post(chat))
            .route("/api/socket", get(socket))
            .route("/api/ended", post(ended))
            .route("/api/upload", post(upload))
            .route("/api/check-looks", post(check_looks))
            .with_state(Arc::clone(&state));
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        let listener = Cuttable { listener, down };
        runtime.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(LocalChat {
            addr,
            state,
            runtime,
        })
    }

    /// The page's address.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Every message the page sent to the model, exactly as received.
    pub fn received(&self) -> Vec<String> {
        self.state
            .lock()
            .map(|s| s.received.clone())
            .unwrap_or_default()
    }

    /// What each message went with, in the order of [`LocalChat::received`]: the model and
    /// effort the page had chosen, whether it was sent in the metered "Work" surface, and
    /// whether the chat was temporary.
    pub fn sent_with(&self) -> Vec<SentWith> {
        self.state
            .lock()
            .map(|s| s.sent_with.clone())
            .unwrap_or_default()
    }

    /// Opens a conversation the person had before keyless came: `turns` as (role, text) pairs,
    /// stored as the site keeps them; its address is `url()` + `c/{id}`.
    pub fn seed_conversation(&self, id: &str, turns: &[(&'static str, &str)]) {
        if let Ok(mut s) = self.state.lock() {
            s.started.push(id.to_string());
            s.conversations.insert(
                id.to_string(),
                turns
                    .iter()
                    .map(|(role, text)| Turn {
                        role,
                        text: text.to_string(),
                    })
                    .collect(),
            );
        }
    }

    /// The files the page uploaded (its `attach` modes), each with its name and its bytes
    /// exactly as they arrived, in order.
    pub fn uploads(&self) -> Vec<(String, Vec<u8>)> {
        self.state
            .lock()
            .map(|s| s.uploads.clone())
            .unwrap_or_default()
    }

    /// How many messages the page has sent to the model so far.
    /// For each bot check the page showed and the person passed: when the page script keyless
    /// puts into the page was reached for while it showed (milliseconds since it appeared).
    /// keyless looks once to see the check, then watches only what the browser reports.
    pub fn check_looks(&self) -> Vec<Vec<u64>> {
        self.state
            .lock()
            .map(|s| s.check_looks.clone())
            .unwrap_or_default()
    }

    pub fn received_count(&self) -> usize {
        self.state.lock().map(|s| s.received.len()).unwrap_or(0)
    }

    /// When each message reached the model, in order (the clock of this process).
    pub fn arrivals(&self) -> Vec<Instant> {
        self.state
            .lock()
            .map(|s| s.arrived.clone())
            .unwrap_or_default()
    }

    /// When the page reported each reply ended, in order (the clock of this process; the
    /// report is a request the page makes the moment it marks the reply finished, so it is
    /// late by one local round trip at most).
    pub fn reply_ends(&self) -> Vec<Instant> {
        self.state
            .lock()
            .map(|s| s.ended.clone())
            .unwrap_or_default()
    }

    /// The user's messages of each conversation the page began, in the order they began.
    pub fn conversations(&self) -> Vec<Vec<String>> {
        self.state
            .lock()
            .map(|s| {
                s.started
                    .iter()
                    .map(|id| {
                        s.conversations
                            .get(id)
                            .map(|turns| {
                                turns
                                    .iter()
                                    .filter(|t| t.role == "user")
                                    .map(|t| t.text.clone())
                                    .collect()
                            })
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Adds replies to the script (the demo's model answers as the turn goes).
    pub fn push_reply(&self, reply: ScriptedReply) {
        if let Ok(mut s) = self.state.lock() {
            s.script.replies.push(reply);
        }
    }

    /// The user logs in (or passes the bot check): the wall goes, and the composer appears.
    pub fn log_in(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.script.page.login_wall = false;
            s.script.page.challenge = false;
        }
    }

    /// The runtime serving the page, for callers that share it.
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        &self.runtime
    }
}

/// The page, with the import map of the editors and renderers a test may mount.
fn index() -> Response {
    let html = INDEX_HTML.replace("{{IMPORTMAP}}", IMPORT_MAP.trim());
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

async fn editor_module(axum::extract::Path(name): axum::extract::Path<String>) -> Response {
    match EDITORS.iter().find(|(file, _)| *file == name) {
        Some((_, body)) => page(body, "text/javascript; charset=utf-8"),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn page(body: &'static str, kind: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// A file of the `node_modules` folder the script names: JavaScript and CSS only, never outside
/// the folder.
async fn module(
    State(state): State<AppState>,
    axum::extract::Path(path): axum::extract::Path<String>,
) -> Response {
    let Some(root) = state.lock().ok().and_then(|s| s.script.modules.clone()) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let inside = Path::new(&path)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    let kind = match Path::new(&path).extension().and_then(|e| e.to_str()) {
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    match std::fs::read(root.join(&path)) {
        Ok(bytes) if inside => ([(header::CONTENT_TYPE, kind)], bytes).into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn config(State(state): State<AppState>) -> Response {
    let faults = state
        .lock()
        .map(|s| s.script.page.clone())
        .unwrap_or_default();
    let json = serde_json::to_string(&faults).unwrap_or_else(|_| "{}".to_string());
    ([(header::CONTENT_TYPE, "application/json")], json).into_response()
}

/// The history list: every conversation, newest first, named by its number, as real sites list
/// them beside the chat (their titles are a model's summary, never the message itself).
async fn conversations(State(state): State<AppState>) -> Response {
    let list: Vec<serde_json::Value> = state
        .lock()
        .map(|s| {
            s.started
                .iter()
                .enumerate()
                .rev()
                .map(|(i, id)| serde_json::json!({ "id": id, "title": format!("Conversation {}", i + 1) }))
                .collect()
        })
        .unwrap_or_default();
    let json = serde_json::to_string(&list).unwrap_or_else(|_| "[]".to_string());
    ([(header::CONTENT_TYPE, "application/json")], json).into_response()
}

/// A stored conversation's messages, oldest first (404 when the id is unknown).
async fn conversation(
    State(state): State<AppState>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let turns = state
        .lock()
        .ok()
        .and_then(|s| s.conversations.get(&id).cloned());
    match turns {
        Some(turns) => {
            let json = serde_json::to_string(&turns).unwrap_or_else(|_| "[]".to_string());
            ([(header::CONTENT_TYPE, "application/json")], json).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn chat(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    body: String,
) -> Response {
    let conversation = headers
        .get(CONVERSATION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let sent_with = headers
        .get(SENT_WITH_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    answer(state, conversation, sent_with, body).await
}

/// socket.io's tag before an event's JSON (a message, type event).
const EVENT_FRAME: &str = "42";

/// A message asked over the page's socket (`websocket`): what `/api/chat` takes as headers
/// and body, in one JSON frame.
#[derive(serde::Deserialize)]
struct SocketAsk {
    conversation: Option<String>,
    #[serde(rename = "sentWith")]
    sent_with: Option<String>,
    text: String,
}

/// The page's socket (`websocket`, as chat sites that stream over a WebSocket do, in
/// socket.io's framing: `42["event",{…}]`): each `message` event the page sends is a message,
/// answered as `/api/chat` answers it, in events: a `start` with the answer's status and
/// headers, the body's pieces as `delta`s, and an `end`; a body that breaks off closes the
/// socket.
async fn socket(
    State(state): State<AppState>,
    upgrade: axum::extract::ws::WebSocketUpgrade,
) -> Response {
    use axum::extract::ws::Message;
    use futures::StreamExt as _;
    upgrade.on_upgrade(move |mut ws| async move {
        while let Some(Ok(frame)) = ws.recv().await {
            let Message::Text(frame) = frame else {
                continue;
            };
            let asked = frame
                .as_str()
                .strip_prefix(EVENT_FRAME)
                .and_then(|event| serde_json::from_str::<(String, SocketAsk)>(event).ok());
            let Some((_, asked)) = asked else {
                continue;
            };
            let answered = answer(
                state.clone(),
                asked.conversation,
                asked.sent_with,
                asked.text,
            )
            .await;
            let headers: serde_json::Map<String, serde_json::Value> = answered
                .headers()
                .iter()
                .filter_map(|(name, value)| {
                    Some((name.to_string(), serde_json::json!(value.to_str().ok()?)))
                })
                .collect();
            let start = serde_json::json!([
                "start",
                { "status": answered.status().as_u16(), "headers": headers }
            ]);
            if ws
                .send(Message::text(format!("{EVENT_FRAME}{start}")))
                .await
                .is_err()
            {
                return;
            }
            let mut body = answered.into_body().into_data_stream();
            while let Some(piece) = body.next().await {
                let Ok(piece) = piece else {
                    // The stream broke: the socket goes with it, as a dropped connection.
                    return;
                };
                let delta =
                    serde_json::json!(["delta", { "text": String::from_utf8_lossy(&piece) }]);
                if ws
                    .send(Message::text(format!("{EVENT_FRAME}{delta}")))
                    .await
                    .is_err()
                {
                    return;
                }
            }
            if ws
                .send(Message::text(format!("{EVENT_FRAME}[\"end\"]")))
                .await
                .is_err()
            {
                return;
            }
        }
    })
}

/// The site's answer to one message, from whichever way it came.
async fn answer(
    state: AppState,
    conversation: Option<String>,
    sent_with: Option<String>,
    body: String,
) -> Response {
    let (reply, chunk_chars, delay, stream_as, down) = {
        let Ok(mut s) = state.lock() else {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        };
        // The doctor's canary is echoed, as a model asked to repeat a block would.
        let canary = body
            .strip_prefix(CANARY_PREFIX)
            .and_then(|rest| rest.split_once("\n\n"))
            .map(|(_, block)| ScriptedReply {
                text: block.to_string(),
                fault: None,
            });
        let body_for_record = body.clone();
        let with: SentWith = sent_with
            .as_deref()
            .and_then(|v| serde_json::from_str(v).ok())
            .unwrap_or_default();
        // A temporary chat is kept nowhere: no history, no conversation to reopen.
        let conversation = conversation.filter(|_| !with.temporary);
        s.sent_with.push(with);
        s.received.push(body);
        s.arrived.push(Instant::now());
        let reply = match canary {
            Some(echo) => Some(echo),
            None => {
                s.next += 1;
                s.script.replies.get(s.next - 1).cloned()
            }
        };
        // The site keeps the whole exchange, whether or not the page stays to read it.
        if let Some(id) = conversation {
            if !s.started.contains(&id) {
                s.started.push(id.clone());
            }
            let turns = s.conversations.entry(id).or_default();
            turns.push(Turn {
                role: "user",
                text: body_for_record,
            });
            if let Some(text) = reply.as_ref().and_then(stored_reply) {
                turns.push(Turn {
                    role: "assistant",
                    text,
                });
            }
        }
        // The session expires, or a bot check arms: every page shows the wall until the
        // person passes it.
        match reply.as_ref().and_then(|r| r.fault) {
            Some(Fault::LoginRedirect) => s.script.page.login_wall = true,
            Some(Fault::BotCheck) => s.script.page.challenge = true,
            _ => {}
        }
        let stream_as = StreamAs::of(&s.script.page.modes);
        (
            reply,
            s.script.chunk_chars.max(1),
            s.script.chunk_delay,
            stream_as,
            s.down.clone(),
        )
    };
    let Some(reply) = reply else {
        return (
            StatusCode::OK,
            "@@say\n<<<MSG\nThe script has no more replies.\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n",
        )
            .into_response();
    };
    let text = match reply.fault {
        Some(Fault::TooLong) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, TOO_LONG_TEXT).into_response();
        }
        Some(Fault::RateLimited) => {
            return (StatusCode::TOO_MANY_REQUESTS, RATE_LIMIT_TEXT).into_response();
        }
        Some(Fault::Exhausted) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, EXHAUSTED_TEXT).into_response();
        }
        Some(Fault::ServerError) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        Some(Fault::NoReply) => {
            let pending = futures::stream::pending::<Result<Bytes, Infallible>>();
            return Response::new(Body::from_stream(pending));
        }
        Some(
            fault @ (Fault::Toast
            | Fault::ToastAlone
            | Fault::Dialog
            | Fault::Alert
            | Fault::ErrorTurn
            | Fault::Banner
            | Fault::LoginRedirect
            | Fault::BotCheck),
        ) => {
            let (status, place) = match fault {
                Fault::Toast => (StatusCode::TOO_MANY_REQUESTS, "toast"),
                // Answered OK, refused only in words: no status tells keyless what it is.
                Fault::ToastAlone => (StatusCode::OK, "toast-alone"),
                Fault::Dialog => (StatusCode::TOO_MANY_REQUESTS, "dialog"),
                Fault::Alert => (StatusCode::TOO_MANY_REQUESTS, "alert"),
                Fault::Banner => (StatusCode::PAYMENT_REQUIRED, "banner"),
                Fault::LoginRedirect => (StatusCode::UNAUTHORIZED, "login"),
                Fault::BotCheck => (StatusCode::FORBIDDEN, "challenge"),
                _ => (StatusCode::INTERNAL_SERVER_ERROR, "turn"),
            };
            return (status, [(NOTICE_HEADER, place)], reply.text).into_response();
        }
        Some(Fault::Stall) => {
            let half = truncated(&reply.text);
            let head =
                futures::stream::once(async move { Ok::<Bytes, Infallible>(Bytes::from(half)) });
            use futures::StreamExt as _;
            let pending = futures::stream::pending::<Result<Bytes, Infallible>>();
            return Response::new(Body::from_stream(head.chain(pending)));
        }
        Some(fault @ (Fault::Offline | Fault::Outage)) => {
            // Half the reply, then the connection breaks (an error ends the body mid-stream),
            // and in an outage the site stays unreachable a while.
            use futures::StreamExt as _;
            let half = truncated(&reply.text);
            let stream = futures::stream::iter([
                Ok::<Bytes, std::io::Error>(Bytes::from(half)),
                Err(std::io::Error::other("the network dropped")),
            ])
            .then(move |item| {
                let down = down.clone();
                async move {
                    tokio::time::sleep(delay).await;
                    if item.is_err() && fault == Fault::Outage {
                        down.for_a_while();
                    }
                    item
                }
            });
            return (
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                Body::from_stream(stream),
            )
                .into_response();
        }
        Some(Fault::Truncate) => truncated(&reply.text),
        None => reply.text,
    };
    let chunks: Vec<String> = text
        .chars()
        .collect::<Vec<_>>()
        .chunks(chunk_chars)
        .map(|c| c.iter().collect())
        .collect();
    let (kind, pieces) = stream_as.pieces(chunks);
    let stream = futures::stream::unfold(pieces.into_iter(), move |mut rest| async move {
        let chunk = rest.next()?;
        tokio::time::sleep(delay).await;
        Some((Ok::<Bytes, Infallible>(Bytes::from(chunk)), rest))
    });
    ([(header::CONTENT_TYPE, kind)], Body::from_stream(stream)).into_response()
}

/// How the reply goes to the page, as real sites stream theirs: plain text (the default),
/// server-sent events with a JSON delta each (`sse`, as OpenAI-style APIs), or with the whole
/// text so far each (`sse-cumulative`, as ChatGPT's page once did), or in a form only the
/// page's own script reads (`encoded-stream`: a base64 line per piece, as a site's binary or
/// encrypted stream is to keyless).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StreamAs {
    Plain,
    Deltas,
    Cumulative,
    Encoded,
    /// `server-drawn`: the reply drawn into HTML on the server (as NiceGUI's markdown2 does,
    /// tabs expanded to four spaces), the page showing that HTML as it comes.
    Html,
}

/// A reply drawn into HTML as a server-side Markdown renderer draws it: a fenced reply as a
/// highlighted code block, anything else as a paragraph; tabs expanded to four spaces, as
/// markdown2 does.
fn drawn_on_the_server(reply: &str) -> String {
    let escaped = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('\t', "    ")
    };
    let lines: Vec<&str> = reply.trim_end().split('\n').collect();
    let fenced = lines.len() >= 2
        && lines[0].starts_with("```")
        && lines[lines.len() - 1].starts_with("```");
    if fenced {
        // Each line in a span of its own, as a server's highlighter (Pygments) draws code.
        let inner: Vec<String> = lines[1..lines.len() - 1]
            .iter()
            .map(|l| format!("<span class=\"hl\">{}</span>", escaped(l)))
            .collect();
        format!("<pre><code>{}\n</code></pre>", inner.join("\n"))
    } else {
        format!("<p>{}</p>", escaped(reply))
    }
}

impl StreamAs {
    fn of(modes: &[String]) -> StreamAs {
        if modes.iter().any(|m| m == "server-drawn") {
            StreamAs::Html
        } else if modes.iter().any(|m| m == "encoded-stream") {
            StreamAs::Encoded
        } else if modes.iter().any(|m| m == "sse-cumulative") {
            StreamAs::Cumulative
        } else if modes.iter().any(|m| m == "sse") {
            StreamAs::Deltas
        } else {
            StreamAs::Plain
        }
    }

    /// The content type and the pieces sent for the reply's `chunks`.
    fn pieces(self, chunks: Vec<String>) -> (&'static str, Vec<String>) {
        match self {
            StreamAs::Plain => ("text/plain; charset=utf-8", chunks),
            StreamAs::Html => {
                let html = drawn_on_the_server(&chunks.concat());
                let size = html.len().div_ceil(chunks.len().max(1)).max(1);
                let mut out = Vec::new();
                let mut rest = html.as_str();
                while !rest.is_empty() {
                    let mut at = size.min(rest.len());
                    while !rest.is_char_boundary(at) {
                        at += 1;
                    }
                    out.push(rest[..at].to_string());
                    rest = &rest[at..];
                }
                ("text/html; charset=utf-8", out)
            }
            StreamAs::Encoded => {
                use base64::Engine;
                let out = chunks
                    .iter()
                    .map(|c| base64::engine::general_purpose::STANDARD.encode(c) + "\n")
                    .collect();
                ("application/x-encoded-lines", out)
            }
            StreamAs::Deltas => {
                let mut out: Vec<String> = chunks
                    .iter()
                    .map(|c| {
                        let event = serde_json::json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": c}}]});
                        format!("data: {event}\n\n")
                    })
                    .collect();
                out.push("data: [DONE]\n\n".to_string());
                ("text/event-stream", out)
            }
            StreamAs::Cumulative => {
                let mut so_far = String::new();
                let mut out = vec!["event: delta_encoding\ndata: \"v1\"\n\n".to_string()];
                for c in &chunks {
                    so_far.push_str(c);
                    let event = serde_json::json!({"message": {"author": {"role": "assistant"}, "content": {"content_type": "text", "parts": [so_far]}, "status": "in_progress"}});
                    out.push(format!("data: {event}\n\n"));
                }
                out.push("data: [DONE]\n\n".to_string());
                ("text/event-stream", out)
            }
        }
    }
}

/// The page marked a reply finished.
async fn check_looks(State(state): State<AppState>, body: String) -> StatusCode {
    let Ok(looks) = serde_json::from_str::<Vec<u64>>(&body) else {
        return StatusCode::BAD_REQUEST;
    };
    if let Ok(mut s) = state.lock() {
        s.check_looks.push(looks);
    }
    StatusCode::NO_CONTENT
}

/// What the `attach-refuse` page says of a type it does not take, and of a file over its size.
pub const REFUSED_TYPE_TEXT: &str = "File type not supported: .exe files can't be uploaded.";
pub const TOO_LARGE_TEXT: &str = "This file is too large. Files can be up to 2 MB.";
/// The largest file the `attach-refuse` page takes.
const REFUSE_OVER: usize = 2 * 1024 * 1024;

/// A file the page uploads (`x-file-name` names it, URL-encoded): kept with its bytes, or
/// refused in the site's words (`attach-refuse`: `.exe` files, files over 2 MB).
async fn upload(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let name = headers
        .get("x-file-name")
        .and_then(|v| v.to_str().ok())
        .map(percent_decoded)
        .unwrap_or_default();
    let Ok(mut s) = state.lock() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    if s.script.page.modes.iter().any(|m| m == "attach-refuse") {
        if name.ends_with(".exe") {
            return (StatusCode::UNSUPPORTED_MEDIA_TYPE, REFUSED_TYPE_TEXT).into_response();
        }
        if body.len() > REFUSE_OVER {
            return (StatusCode::PAYLOAD_TOO_LARGE, TOO_LARGE_TEXT).into_response();
        }
    }
    s.uploads.push((name, body.to_vec()));
    StatusCode::NO_CONTENT.into_response()
}

/// `%XX` escapes read back (the page's `encodeURIComponent`).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

async fn ended(State(state): State<AppState>) -> StatusCode {
    if let Ok(mut s) = state.lock() {
        s.ended.push(Instant::now());
    }
    StatusCode::NO_CONTENT
}

/// What the site keeps of a reply: nothing for a fault that produced none, the cut text for a
/// truncated one.
fn stored_reply(reply: &ScriptedReply) -> Option<String> {
    match reply.fault {
        None | Some(Fault::Offline | Fault::Outage) => Some(reply.text.clone()),
        Some(Fault::Truncate) => Some(truncated(&reply.text)),
        Some(
            Fault::NoReply
            | Fault::Exhausted
            | Fault::ServerError
            | Fault::TooLong
            | Fault::RateLimited
            | Fault::Toast
            | Fault::ToastAlone
            | Fault::Dialog
            | Fault::Alert
            | Fault::ErrorTurn
            | Fault::Banner
            | Fault::LoginRedirect
            | Fault::BotCheck,
        ) => None,
        Some(Fault::Stall) => Some(truncated(&reply.text)),
    }
}

/// A reply cut before its `@@eof` (or in half when it has none).
fn truncated(text: &str) -> String {
    match text.rfind("@@eof") {
        Some(at) => text[..at].to_string(),
        None => {
            let mut half = text.len() / 2;
            while !text.is_char_boundary(half) {
                half -= 1;
            }
            text[..half].to_string()
        }
    }
}
