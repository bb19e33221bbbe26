//! The chat driver over the Chrome DevTools Protocol (chromiumoxide): launch or attach to
//! Chrome/Chromium, send a message and confirm it, wait for the reply on positive proof, and
//! read it exactly.
//!
//! Every CDP call has a Rust-side time limit; a closed or crashed browser is an error
//! (KA_BROWSER_CONNECTION_FAILED), never a hang. The handler stream is polled in its own task and
//! never stopped on an error: chromiumoxide's schema is older than Chromium and some events fail
//! to decode.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, InsertTextParams,
};
// The by-rule replacement needs URL patterns; the global switch still works in Chromium 156.
#[allow(deprecated)]
use chromiumoxide::cdp::browser_protocol::network::EmulateNetworkConditionsParams;
use chromiumoxide::cdp::browser_protocol::network::{EnableParams, EventLoadingFailed};
use chromiumoxide::cdp::js_protocol::runtime::{AddBindingParams, EventBindingCalled};
use chromiumoxide::{Browser, BrowserConfig, Page};
use futures::StreamExt;
use serde::Deserialize;

use super::selectors::Site;
use super::{Channel, ChatDriver, Reply};
use crate::catalog::{Code, Failure};

/// The script keyless puts into the page.
const PAGE_JS: &str = include_str!("page.js");

/// The longest any one CDP call may take.
const CDP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a page has to show its composer after navigation.
const PAGE_READY: Duration = Duration::from_secs(20);
/// How long a sent message has to appear as a user turn.
const SEND_CONFIRM: Duration = Duration::from_secs(5);
/// Characters per `Input.insertText` call: cut before a line break (Lexical drops a chunk's
/// final newline), and short enough to finish well inside the CDP time limit.
const INSERT_CHUNK: usize = 16_000;
/// How long the composer may take to show an inserted chunk.
const INSERT_SETTLE: Duration = Duration::from_secs(3);
/// The safety-net poll while waiting for a reply (the page's MutationObserver is the fast path).
const POLL: Duration = Duration::from_millis(250);
/// How long the reply text must stay unchanged, with no stop control, to count as finished when
/// the site shows no completion sign.
const SETTLE: Duration = Duration::from_millis(1500);
/// How long the copy button's clipboard write may take.
const COPY_WAIT: Duration = Duration::from_secs(2);

/// Network errors that mean the machine is offline (nothing was sent).
const OFFLINE_ERRORS: &[&str] = &[
    "net::ERR_INTERNET_DISCONNECTED",
    "net::ERR_NETWORK_CHANGED",
    "net::ERR_NAME_NOT_RESOLVED",
    "net::ERR_NETWORK_ACCESS_DENIED",
    "net::ERR_ADDRESS_UNREACHABLE",
    "net::ERR_PROXY_CONNECTION_FAILED",
    "net::ERR_CONNECTION_RESET",
    "net::ERR_CONNECTION_CLOSED",
    "net::ERR_CONNECTION_REFUSED",
];

/// How to reach the browser and the site.
#[derive(Clone, Debug)]
pub struct Options {
    pub site_name: String,
    pub site: Site,
    pub url: String,
    /// Attach to this DevTools endpoint instead of launching.
    pub cdp_url: Option<String>,
    pub executable: Option<PathBuf>,
    pub headless: bool,
    /// The browser profile folder (kept, so the user logs in once).
    pub profile: PathBuf,
    pub reply_timeout: Duration,
    pub truncation_budget: Duration,
}

impl Options {
    /// Options for the built-in local chat page at `url`, in headless Chromium with the given
    /// profile folder (the demo, the tests and the benchmarks).
    pub fn local_page(url: String, profile: PathBuf) -> Result<Options, Failure> {
        let (site_name, site) = super::selectors::load(None)?.site(Some("local"), None)?;
        Ok(Options {
            site_name,
            site,
            url,
            cdp_url: None,
            executable: None,
            headless: true,
            profile,
            reply_timeout: Duration::from_secs(20),
            truncation_budget: Duration::from_secs(2),
        })
    }
}

/// The driver: a browser, one chat page, and the runtime that drives them.
pub struct CdpDriver {
    runtime: tokio::runtime::Runtime,
    browser: Browser,
    page: Page,
    options: Options,
    handler: tokio::task::JoinHandle<()>,
    failed_requests: Arc<Mutex<Vec<String>>>,
    notified: Arc<tokio::sync::Notify>,
    assistants_before_send: usize,
    warnings: Vec<Failure>,
}

/// What keyless types when the message itself goes as an attachment.
pub const ATTACHMENT_NOTE: &str =
    "My message is in the attached file keyless-message.txt. Read it and reply exactly as it asks.";
/// The attachment's file name.
const ATTACHMENT_NAME: &str = "keyless-message.txt";
/// How long an attached file has to show its chip.
const ATTACH_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, Default, Deserialize)]
struct PageState {
    users: usize,
    assistants: usize,
    streaming: bool,
    done: bool,
    chars: usize,
    exhausted: bool,
    login: bool,
}

fn connection(reason: impl Into<String>) -> Failure {
    Failure::new(Code::BrowserConnectionFailed, reason)
}

/// Finds the installed Chrome or Chromium.
pub fn find_browser(configured: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(path) = configured {
        return if path.exists() {
            Ok(path.to_path_buf())
        } else {
            Err(connection(format!(
                "the browser {} does not exist (Browser.ExecutablePath / --browser)",
                path.display()
            )))
        };
    }
    // The real binary behind Debian's launcher script, which adds flags and noise.
    let fixed = [
        "/usr/lib/chromium/chromium",
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
        "/usr/bin/google-chrome-stable",
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
        "/Applications/Chromium.app/Contents/MacOS/Chromium",
        "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
        "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
    ];
    if let Some(found) = fixed.iter().map(PathBuf::from).find(|p| p.exists()) {
        return Ok(found);
    }
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
        "chrome",
    ] {
        if let Some(found) = crate::exec::snapshot::find_on_path(name) {
            return Ok(found);
        }
    }
    Err(connection(
        "no Chrome or Chromium was found; install one (Debian: apt-get install chromium) or set Browser.ExecutablePath",
    ))
}

impl CdpDriver {
    /// Launches (or attaches to) the browser and opens the chat page.
    pub fn start(options: Options) -> Result<CdpDriver, Failure> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| {
                Failure::new(
                    Code::Internal,
                    format!("cannot start the async runtime: {e}"),
                )
            })?;
        let (browser, page, handler) = runtime.block_on(open_browser(&options))?;
        let mut driver = CdpDriver {
            runtime,
            browser,
            page,
            options,
            handler,
            failed_requests: Arc::new(Mutex::new(Vec::new())),
            notified: Arc::new(tokio::sync::Notify::new()),
            assistants_before_send: 0,
            warnings: Vec::new(),
        };
        driver.prepare_page()?;
        Ok(driver)
    }

    fn block<T>(&self, future: impl Future<Output = Result<T, Failure>>) -> Result<T, Failure> {
        // The handler ends when the connection drops: a closed or crashed browser is known
        // at once, without waiting for a call's time limit.
        if self.handler.is_finished() {
            return Err(connection(
                "the browser closed or crashed (its DevTools connection is gone); run keyless again to reopen it",
            ));
        }
        self.runtime.block_on(future)
    }

    /// Listens for the page's notifications and its failed requests, then waits for the page.
    fn prepare_page(&mut self) -> Result<(), Failure> {
        let page = self.page.clone();
        let failed = Arc::clone(&self.failed_requests);
        let notified = Arc::clone(&self.notified);
        self.block(async move {
            bounded(
                page.execute(EnableParams::default()),
                "enable network events",
            )
            .await?;
            bounded(
                page.execute(AddBindingParams::new("__keylessNotify")),
                "add the page binding",
            )
            .await?;
            let mut failures = bounded(
                page.event_listener::<EventLoadingFailed>(),
                "listen for failed requests",
            )
            .await?;
            tokio::spawn(async move {
                while let Some(event) = failures.next().await {
                    if let Ok(mut list) = failed.lock() {
                        list.push(event.error_text.clone());
                    }
                }
            });
            let mut calls = bounded(
                page.event_listener::<EventBindingCalled>(),
                "listen to the page",
            )
            .await?;
            tokio::spawn(async move {
                while calls.next().await.is_some() {
                    notified.notify_one();
                }
            });
            Ok(())
        })?;
        self.wait_ready()
    }

    /// Waits until the page shows its composer (and says why not: a login wall, a wrong page).
    fn wait_ready(&mut self) -> Result<(), Failure> {
        let started = Instant::now();
        loop {
            self.install()?;
            if self.eval::<bool>("window.__keyless.exists('Composer')")? {
                let _ = self.eval::<bool>("window.__keyless.observe()");
                return Ok(());
            }
            if started.elapsed() > PAGE_READY {
                let state: PageState = self
                    .eval_json("window.__keyless.state()")
                    .unwrap_or_default();
                let why = if state.login {
                    " The page asks you to log in: log in once in this browser profile, then run keyless again."
                } else {
                    ""
                };
                return Err(self.selector_not_found("Composer", why));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn selector_not_found(&self, key: &str, why: &str) -> Failure {
        let tried = self
            .options
            .site
            .selectors
            .get(key)
            .map(|alternatives| alternatives.join("  |  "))
            .unwrap_or_default();
        Failure::new(
            Code::SelectorNotFound,
            format!(
                "the {} page has no {key} element: none of these selectors matched: {tried}.{why} Run `keyless doctor` to check the selectors.",
                self.options.site_name
            ),
        )
    }

    /// Puts the helper script into the page (again after a navigation).
    fn install(&self) -> Result<(), Failure> {
        let selectors =
            serde_json::to_string(&self.options.site.selectors).unwrap_or_else(|_| "{}".into());
        let texts = serde_json::to_string(&self.options.site.texts).unwrap_or_else(|_| "{}".into());
        let script = format!("({PAGE_JS})({selectors}, {texts})");
        self.eval::<String>(&script).map(|_| ())
    }

    fn eval<T: serde::de::DeserializeOwned>(&self, expression: &str) -> Result<T, Failure> {
        let page = self.page.clone();
        let expression = expression.to_string();
        self.block(async move {
            let result =
                bounded(page.evaluate(expression.as_str()), "evaluate in the page").await?;
            result.into_value::<T>().map_err(|e| {
                Failure::new(
                    Code::Internal,
                    format!(
                        "unexpected answer from the page for `{}`: {e}",
                        short(&expression)
                    ),
                )
            })
        })
    }

    /// Evaluates an expression whose value is a JSON-able object, through JSON.
    fn eval_json<T: serde::de::DeserializeOwned>(&self, expression: &str) -> Result<T, Failure> {
        let json: String = self.eval(&format!("JSON.stringify({expression})"))?;
        serde_json::from_str(&json)
            .map_err(|e| Failure::new(Code::Internal, format!("page state: {e}")))
    }

    fn state(&self) -> Result<PageState, Failure> {
        self.install()?;
        self.eval_json("window.__keyless.state()")
    }

    fn composer(&self) -> Result<Option<String>, Failure> {
        self.eval_json("window.__keyless.composer()")
    }

    /// Clears the composer's text, leaving attachment chips.
    fn clear_text(&self) -> Result<(), Failure> {
        if self.composer()?.unwrap_or_default().is_empty() {
            return Ok(());
        }
        self.eval::<bool>("window.__keyless.selectComposer()")?;
        self.key("Backspace", 8)
    }

    /// Clears stale text and attachment chips from the composer.
    fn clean_composer(&self) -> Result<(), Failure> {
        let dirty = || -> Result<(bool, usize), Failure> {
            let text = self.composer()?.unwrap_or_default();
            let chips: usize = self.eval("window.__keyless.count('AttachmentChip')")?;
            Ok((!text.is_empty(), chips))
        };
        let (text, chips) = dirty()?;
        if !text && chips == 0 {
            return Ok(());
        }
        if text {
            self.eval::<bool>("window.__keyless.selectComposer()")?;
            self.key("Backspace", 8)?;
        }
        if chips > 0 {
            self.eval::<usize>("window.__keyless.removeChips()")?;
        }
        std::thread::sleep(Duration::from_millis(100));
        let (text, chips) = dirty()?;
        if text || chips > 0 {
            return Err(Failure::new(
                Code::ComposerNotClean,
                format!(
                    "the composer still holds {} after keyless tried to clear it; nothing was sent. Run keyless doctor to fix the AttachmentRemove/AttachmentFailed selectors.",
                    if text {
                        "stale text"
                    } else {
                        "attachment chips"
                    }
                ),
            ));
        }
        Ok(())
    }

    fn key(&self, key: &str, code: i64) -> Result<(), Failure> {
        let page = self.page.clone();
        let key = key.to_string();
        self.block(async move {
            for kind in [
                DispatchKeyEventType::RawKeyDown,
                DispatchKeyEventType::KeyUp,
            ] {
                let params = DispatchKeyEventParams::builder()
                    .r#type(kind)
                    .key(key.clone())
                    .code(key.clone())
                    .windows_virtual_key_code(code)
                    .build()
                    .map_err(|e| Failure::new(Code::Internal, e))?;
                bounded(page.execute(params), "press a key").await?;
            }
            Ok(())
        })
    }

    /// Puts the message into the composer with the site's insertion strategies, in order
    /// (`selectors.json` `insert`), until the composer holds exactly the message:
    /// `insertTextWhole` is one `Input.insertText` (editors that handle `beforeinput` themselves,
    /// like Lexical: fastest), `insertText` is checked chunks cut before line breaks (safe for
    /// ProseMirror, whose cost grows with each line break).
    pub fn insert(&self, message: &str) -> Result<(), Failure> {
        let strategies: Vec<&str> = if self.options.site.insert.is_empty() {
            vec!["insertText"]
        } else {
            self.options
                .site
                .insert
                .iter()
                .map(String::as_str)
                .collect()
        };
        let mut last = None;
        for strategy in strategies {
            let chunk = match strategy {
                "insertTextWhole" => usize::MAX,
                "insertText" => INSERT_CHUNK,
                _ => continue,
            };
            match self.insert_chunks(message, chunk) {
                Ok(()) => return Ok(()),
                Err(failure) => {
                    last = Some(failure);
                    self.clean_composer()?;
                }
            }
        }
        Err(last.unwrap_or_else(|| {
            Failure::new(
                Code::ConfigValidation,
                "selectors.json names no insertion strategy keyless knows (insertTextWhole, insertText)",
            )
        }))
    }

    fn insert_chunks(&self, message: &str, max: usize) -> Result<(), Failure> {
        self.eval::<bool>("window.__keyless.focusComposer()")?;
        let mut sent = 0;
        for chunk in chunks(message, max) {
            let page = self.page.clone();
            let text = chunk.to_string();
            self.block(async move {
                bounded(page.execute(InsertTextParams::new(text)), "insert text").await?;
                Ok(())
            })?;
            sent += chunk.len();
            let want = &message[..sent];
            let started = Instant::now();
            loop {
                if self.composer()?.as_deref() == Some(want) {
                    break;
                }
                if started.elapsed() > INSERT_SETTLE {
                    return Err(Failure::new(
                        Code::SendNotConfirmed,
                        "the composer does not hold the message exactly after inserting it; nothing was sent",
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Ok(())
    }

    /// Attaches the message as a file through the site's file input and waits for its chip.
    fn attach(&self, message: &str) -> Result<(), Failure> {
        let failed = |why: String| Failure::new(Code::AttachmentUploadFailed, why);
        let folder = self.options.profile.join("keyless-attachments");
        std::fs::create_dir_all(&folder)
            .map_err(|e| failed(format!("cannot write the attachment: {e}")))?;
        let path = folder.join(ATTACHMENT_NAME);
        std::fs::write(&path, message)
            .map_err(|e| failed(format!("cannot write the attachment: {e}")))?;
        let css: Option<String> = self.eval_json("window.__keyless.which('AttachmentInput')")?;
        let css =
            css.ok_or_else(|| failed("the page has no file input (AttachmentInput)".into()))?;
        let page = self.page.clone();
        let file = path.to_string_lossy().into_owned();
        self.block(async move {
            let input = bounded(page.find_element(css), "find the file input").await?;
            let params = SetFileInputFilesParams::builder()
                .file(file)
                .backend_node_id(input.backend_node_id)
                .build()
                .map_err(|e| Failure::new(Code::Internal, e))?;
            bounded(page.execute(params), "attach the file").await?;
            Ok(())
        })?;
        let started = Instant::now();
        while started.elapsed() < ATTACH_WAIT {
            if self.eval::<usize>("window.__keyless.count('AttachmentFailed')")? > 0 {
                return Err(failed("the site marked the attachment as failed".into()));
            }
            if self.eval::<usize>("window.__keyless.count('AttachmentChip')")? > 0 {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(failed(format!(
            "no attachment chip appeared within {}s",
            ATTACH_WAIT.as_secs()
        )))
    }

    /// Whether a new user turn with the message appeared.
    fn confirmed(&self, message: &str, users_before: usize) -> Result<bool, Failure> {
        let started = Instant::now();
        while started.elapsed() < SEND_CONFIRM {
            let state = self.state()?;
            if state.users > users_before {
                let text: Option<String> = self.eval_json("window.__keyless.lastUserText()")?;
                let text = text.unwrap_or_default();
                return Ok(text == message || squash(&text) == squash(message));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(false)
    }

    /// Reads the last reply: the copy button, else the only code block, else the DOM.
    fn read(&self) -> Result<Reply, Failure> {
        let clicked: String = self.eval("window.__keyless.copy()")?;
        if clicked == "clicked" {
            let started = Instant::now();
            while started.elapsed() < COPY_WAIT {
                let copied: Option<String> = self.eval_json("window.__keyless.copied()")?;
                if let Some(text) = copied {
                    return Ok(Reply {
                        text,
                        channel: Channel::CopyButton,
                        finished_at: Instant::now(),
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if let Some(text) = self.eval_json::<Option<String>>("window.__keyless.codeBlock()")? {
            return Ok(Reply {
                text,
                channel: Channel::CodeBlock,
                finished_at: Instant::now(),
            });
        }
        let text: Option<String> = self.eval_json("window.__keyless.rebuilt()")?;
        Ok(Reply {
            text: text.unwrap_or_default(),
            channel: Channel::Dom,
            finished_at: Instant::now(),
        })
    }

    fn offline_failure(&self) -> Option<Failure> {
        let failed = self.failed_requests.lock().ok()?;
        failed.iter().find(|e| OFFLINE_ERRORS.contains(&e.as_str())).map(|e| {
            Failure::new(
                Code::NetworkOffline,
                format!("the chat request failed with {e}: the machine looks offline. Nothing was lost; the same message can be sent again."),
            )
        })
    }

    /// Evaluates an expression in the page and returns its value as JSON (benchmarks, doctor).
    pub fn evaluate_json(&self, expression: &str) -> Result<serde_json::Value, Failure> {
        self.eval_json(expression)
    }

    /// Clears the composer (stale text and chips) without sending.
    pub fn clear_composer(&self) -> Result<(), Failure> {
        self.clean_composer()
    }

    /// Test and recovery hook: switches the page's network off or on.
    pub fn set_offline(&self, offline: bool) -> Result<(), Failure> {
        let page = self.page.clone();
        self.block(async move {
            #[allow(deprecated)]
            let params = EmulateNetworkConditionsParams::new(offline, 0.0, -1.0, -1.0);
            bounded(page.execute(params), "emulate network conditions").await?;
            Ok(())
        })
    }

    /// Kills a launched browser at once, as a crash would (tests and emergencies).
    pub fn kill_browser(&mut self) {
        let browser = &mut self.browser;
        self.runtime.block_on(async {
            let _ = tokio::time::timeout(Duration::from_secs(5), browser.kill()).await;
        });
    }

    /// Closes the browser (a launched one) or detaches (an attached one).
    pub fn close(mut self) {
        let launched = self.options.cdp_url.is_none();
        let handler = self.handler;
        self.runtime.block_on(async {
            if launched {
                let _ = tokio::time::timeout(Duration::from_secs(5), self.browser.close()).await;
                let _ = tokio::time::timeout(Duration::from_secs(5), self.browser.wait()).await;
            }
            handler.abort();
        });
    }
}

impl ChatDriver for CdpDriver {
    fn take_warnings(&mut self) -> Vec<Failure> {
        std::mem::take(&mut self.warnings)
    }

    fn new_chat(&mut self) -> Result<(), Failure> {
        let page = self.page.clone();
        let url = self.options.url.clone();
        self.block(async move {
            bounded(page.goto(url.as_str()), "open a new chat").await?;
            Ok(())
        })?;
        self.assistants_before_send = 0;
        self.wait_ready()
    }

    fn site(&self) -> String {
        self.options.site_name.clone()
    }

    fn chat_url(&mut self) -> Option<String> {
        self.eval::<String>("location.href").ok()
    }

    fn send(&mut self, message: &str) -> Result<(), Failure> {
        if let Ok(mut failed) = self.failed_requests.lock() {
            failed.clear();
        }
        self.clean_composer()?;
        // Over the site's composer limit the message goes as a file; a failed upload falls back
        // to pasting the text (and is reported as a warning).
        let too_long = self
            .options
            .site
            .composer_limit
            .is_some_and(|limit| message.chars().count() > limit);
        let message = if too_long {
            match self.attach(message) {
                Ok(()) => ATTACHMENT_NOTE,
                Err(failure) => {
                    self.warnings.push(Failure::new(
                        failure.code,
                        format!("{}; the message was pasted instead", failure.reason),
                    ));
                    self.clean_composer()?;
                    message
                }
            }
        } else {
            message
        };
        let before = self.state()?;
        self.assistants_before_send = before.assistants;
        for _attempt in 0..2 {
            if self.composer()?.as_deref() != Some(message) {
                // Only the text: an attachment chip made for this message stays.
                self.clear_text()?;
                self.insert(message)?;
            }
            if !self.eval::<bool>("window.__keyless.click('SendButton')")? {
                return Err(self.selector_not_found("SendButton", ""));
            }
            if self.confirmed(message, before.users)? {
                return Ok(());
            }
            if let Some(offline) = self.offline_failure() {
                return Err(offline);
            }
        }
        Err(Failure::new(
            Code::SendNotConfirmed,
            "the message did not appear in the chat as a new user turn, after one retry; check the page, then send again",
        ))
    }

    fn wait_reply(&mut self, progress: &mut dyn FnMut(usize)) -> Result<Reply, Failure> {
        let started = Instant::now();
        let mut last_chars = 0;
        let mut last_change = Instant::now();
        let mut finished_without_eof: Option<Instant> = None;
        loop {
            if let Some(offline) = self.offline_failure() {
                return Err(offline);
            }
            let state = self.state()?;
            if state.exhausted {
                return Err(Failure::new(
                    Code::ChatExhausted,
                    "the chat reached its length limit; a new chat is needed to go on",
                ));
            }
            if state.assistants > self.assistants_before_send {
                if state.chars != last_chars {
                    last_chars = state.chars;
                    last_change = Instant::now();
                    progress(state.chars);
                }
                let settled = last_change.elapsed() >= SETTLE;
                if !state.streaming && (state.done || settled) {
                    let finished_at = Instant::now();
                    let mut reply = self.read()?;
                    reply.finished_at = finished_at;
                    if has_eof(&reply.text) {
                        return Ok(reply);
                    }
                    let since = *finished_without_eof.get_or_insert_with(Instant::now);
                    if since.elapsed() >= self.options.truncation_budget {
                        return Err(Failure::new(
                            Code::ReplyTruncated,
                            format!(
                                "the reply ended without @@eof and stayed so for {}s ({} characters arrived); ask for it again in smaller pieces",
                                self.options.truncation_budget.as_secs(),
                                reply.text.chars().count()
                            ),
                        ));
                    }
                } else {
                    finished_without_eof = None;
                }
            }
            if started.elapsed() >= self.options.reply_timeout {
                return Err(Failure::new(
                    Code::ReplyTimeout,
                    format!(
                        "no complete reply within {}s ({} characters arrived)",
                        self.options.reply_timeout.as_secs(),
                        last_chars
                    ),
                ));
            }
            let notified = Arc::clone(&self.notified);
            self.runtime.block_on(async move {
                let _ = tokio::time::timeout(POLL, notified.notified()).await;
            });
        }
    }
}

async fn open_browser(
    options: &Options,
) -> Result<(Browser, Page, tokio::task::JoinHandle<()>), Failure> {
    let (browser, mut handler) = match &options.cdp_url {
        Some(url) => bounded(Browser::connect(url.clone()), "attach to the browser").await?,
        None => {
            let executable = find_browser(options.executable.as_deref())?;
            std::fs::create_dir_all(&options.profile).map_err(|e| {
                connection(format!(
                    "cannot create the browser profile {}: {e}",
                    options.profile.display()
                ))
            })?;
            let mut builder = BrowserConfig::builder()
                .chrome_executable(executable)
                .user_data_dir(&options.profile)
                .launch_timeout(Duration::from_secs(20))
                .request_timeout(CDP_TIMEOUT)
                .window_size(1280, 900);
            // chromiumoxide adds the leading dashes itself.
            for arg in [
                "disable-gpu",
                "disable-quic",
                "no-first-run",
                "disable-background-networking",
                "disable-component-update",
                "disable-sync",
            ] {
                builder = builder.arg(arg);
            }
            if !options.headless {
                builder = builder.with_head();
            }
            if running_as_root() {
                builder = builder.no_sandbox();
            }
            let config = builder.build().map_err(connection)?;
            bounded(Browser::launch(config), "launch the browser").await?
        }
    };
    let handler_task = tokio::spawn(async move {
        // Errors are decode failures of newer events: never stop on them.
        while handler.next().await.is_some() {}
    });
    let page = bounded(browser.new_page(options.url.as_str()), "open the chat page").await?;
    Ok((browser, page, handler_task))
}

fn running_as_root() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() == 0 }
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Runs one CDP call with the time limit.
async fn bounded<T, E: std::fmt::Display>(
    future: impl Future<Output = Result<T, E>>,
    what: &str,
) -> Result<T, Failure> {
    match tokio::time::timeout(CDP_TIMEOUT, future).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(connection(format!("could not {what}: {e}"))),
        Err(_) => Err(connection(format!(
            "the browser did not answer within {}s while trying to {what}; it may have closed or crashed",
            CDP_TIMEOUT.as_secs()
        ))),
    }
}

/// Splits text into pieces of at most `max` bytes, each cut before a line break when possible.
fn chunks(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > max {
        let mut cut = max;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        if let Some(nl) = rest[..cut].rfind('\n').filter(|&i| i > 0) {
            cut = nl;
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

fn has_eof(text: &str) -> bool {
    text.lines().any(|l| l.trim().eq_ignore_ascii_case("@@eof"))
}

fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn short(text: &str) -> String {
    text.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cut_before_line_breaks_and_keep_every_byte() {
        let text = format!("{}\n{}\n{}", "a".repeat(10), "é".repeat(10), "b".repeat(30));
        let pieces = chunks(&text, 16);
        assert_eq!(pieces.concat(), text);
        assert!(pieces.iter().all(|p| p.len() <= 16));
        assert!(pieces[1].starts_with('\n'), "{pieces:?}");
    }

    #[test]
    fn eof_is_a_whole_line() {
        assert!(has_eof("@@done\n@@end\n@@eof\n```"));
        assert!(!has_eof("text mentioning @@eof inline"));
    }
}
