//! The chat driver over the Chrome DevTools Protocol (chromiumoxide): launch or attach to
//! Chrome/Chromium, send a message and confirm it, wait for the reply on positive proof, and
//! read it exactly.
//!
//! Every CDP call has a Rust-side time limit; a closed or crashed browser is an error
//! (KA_BROWSER_CONNECTION_FAILED), never a hang. The handler stream is polled in its own task and
//! never stopped on an error: chromiumoxide's schema is older than Chromium and some events fail
//! to decode.
//!
//! This file is the browser and page plumbing; `conversation.rs` sends, reopens and waits,
//! `composer.rs` clears, inserts, attaches and reads, `launch.rs` finds and starts the browser
//! (`spawn.rs` its process), `navigate.rs` opens an address, `ready.rs` waits for the page.

use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// The by-rule replacement needs URL patterns; the global switch still works in Chromium 156.
#[allow(deprecated)]
use chromiumoxide::cdp::browser_protocol::network::EmulateNetworkConditionsParams;
use chromiumoxide::cdp::browser_protocol::network::{EnableParams, EventLoadingFailed};
use chromiumoxide::cdp::js_protocol::runtime::{AddBindingParams, EventBindingCalled};
use chromiumoxide::{Browser, Page};
use futures::StreamExt;

use super::selectors::Site;
use crate::catalog::{Code, Failure};

mod composer;
mod conversation;
mod discovery;
mod launch;
mod navigate;
mod page_api;
mod page_state;
mod read;
mod ready;
mod sent;
mod sketch;
mod spawn;

use sent::{Delivery, Shown, fence, shown_as};
pub use sent::{attachment_name, attachment_note};

pub use composer::STRATEGIES;
pub use discovery::Learned;
use launch::open_browser;
pub use launch::{LAUNCH_ARGS, find_browser};

/// The script keyless puts into the page.
const PAGE_JS: &str = include_str!("../page.js");
/// The finders that look for a part by its shape when no selector matches it.
const DISCOVER_JS: &str = include_str!("../discover.js");
/// How long a known site's page has to show its composer by the selectors before discovery
/// looks for it by its shape (a page still mounting its editor is not a changed page).
const DISCOVERY_GRACE: Duration = Duration::from_millis(1500);

/// The longest any one CDP call may take.
const CDP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a page has to show its composer after navigation.
const PAGE_READY: Duration = Duration::from_secs(20);
/// How long a login wall may stand in a browser nobody can log in with (it may be a page still
/// loading).
const LOGIN_GRACE: Duration = Duration::from_secs(3);
/// How long a sent message has to appear as a user turn.
const SEND_CONFIRM: Duration = Duration::from_secs(5);
/// How much longer a sent message's turn may take to appear once the site has emptied the
/// composer (it took the message; sending again would send it twice).
const LATE_TURN: Duration = Duration::from_secs(15);
/// Characters per `Input.insertText` call: cut before a line break (Lexical drops a chunk's
/// final newline), and short enough to finish well inside the CDP time limit.
const INSERT_CHUNK: usize = 16_000;
/// How long the composer may take to show an inserted chunk.
const INSERT_SETTLE: Duration = Duration::from_secs(3);
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
    /// How long a login wall is waited out for the user to log in (zero: report it at once,
    /// as without a window nobody can log in).
    pub login_wait: Duration,
    /// Where the driver's notices for the user go (the CLI prints them).
    pub notice: Option<fn(&str)>,
    /// A folder for sketches of the page (its structure, no text), saved when the chat fails
    /// in a way a changed site explains; `None` saves none.
    pub sketches: Option<PathBuf>,
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
            login_wait: Duration::ZERO,
            notice: None,
            sketches: None,
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
    /// The browser's process, when it runs here: its end is noticed at once.
    browser_pid: Option<i32>,
    /// The browser's process when keyless started it (in a process group of its own): closed
    /// or killed with the driver.
    browser_process: Option<tokio::process::Child>,
    /// This process's share of the profile while the driver lives: the last keyless using the
    /// browser closes it.
    profile_share: Option<crate::claim::Share>,
    failed_requests: Arc<Mutex<Vec<String>>>,
    /// The statuses of the documents the page loaded (`navigate.rs`).
    documents: navigate::Documents,
    notified: Arc<tokio::sync::Notify>,
    assistants_before_send: usize,
    /// The last message sent and how (a site that refuses it as too long gets it again as a
    /// file, once).
    last_sent: Option<(String, conversation::SendAs)>,
    warnings: Vec<Failure>,
    /// The notices of parts discovery found by their shape, not yet taken: findings, which
    /// `keyless doctor` tells apart from problems (`take_findings`).
    findings: Vec<Failure>,
    /// How messages reach this page (`sent::Delivery`).
    delivery: Delivery,
    /// Whether a sent message was shown as something else (a chip) and said so.
    drawn_unlike: bool,
    /// The failures a sketch of the page was saved for (one each).
    sketched: std::collections::HashSet<Code>,
    /// Keys discovery stood in for (each warned about once).
    healed: std::collections::HashSet<String>,
    /// What discovery found and proved, for `keyless doctor --learn`.
    learned: Learned,
    /// The insertion strategy that last worked (tried first next time).
    inserted_with: Option<String>,
}

/// How long an attached file has to show its chip.
const ATTACH_WAIT: Duration = Duration::from_secs(10);

use page_state::PageState;

fn connection(reason: impl Into<String>) -> Failure {
    Failure::new(Code::BrowserConnectionFailed, reason)
}

impl CdpDriver {
    /// Launches (or attaches to) the browser and opens the chat page.
    pub fn start(options: Options) -> Result<CdpDriver, Failure> {
        let mut driver = CdpDriver::launch(options)?;
        let prepared = driver.prepare_page();
        driver.sketched(prepared)?;
        Ok(driver)
    }

    /// Like [`CdpDriver::start`], for looking at a page that may be broken (`keyless doctor`):
    /// a page whose composer cannot be found still gives a driver, with the failure beside it,
    /// so that every other part can be checked and reported.
    pub fn start_for_inspection(options: Options) -> Result<(CdpDriver, Option<Failure>), Failure> {
        let mut driver = CdpDriver::launch(options)?;
        match driver.prepare_page() {
            Ok(()) => Ok((driver, None)),
            Err(failure) if failure.code == Code::SelectorNotFound && driver.browser_alive() => {
                Ok((driver, Some(failure)))
            }
            Err(failure) => Err(failure),
        }
    }

    /// Opens the browser and the page, without waiting for the page to be a usable chat.
    fn launch(options: Options) -> Result<CdpDriver, Failure> {
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
        let opened = runtime.block_on(open_browser(&options))?;
        let driver = CdpDriver {
            runtime,
            browser: opened.browser,
            page: opened.page,
            options,
            handler: opened.handler,
            browser_pid: opened.pid,
            browser_process: opened.child,
            profile_share: opened.share,
            failed_requests: Arc::new(Mutex::new(Vec::new())),
            documents: navigate::Documents::default(),
            notified: Arc::new(tokio::sync::Notify::new()),
            assistants_before_send: 0,
            last_sent: None,
            warnings: Vec::new(),
            findings: Vec::new(),
            sketched: std::collections::HashSet::new(),
            delivery: Delivery::Plain,
            drawn_unlike: false,
            healed: std::collections::HashSet::new(),
            learned: Learned::default(),
            inserted_with: None,
        };
        Ok(driver)
    }

    fn block<T>(&self, future: impl Future<Output = Result<T, Failure>>) -> Result<T, Failure> {
        // A closed or crashed browser is known at once (its process ended, or the handler saw
        // the connection drop), also in the middle of a call, never after a call's time limit.
        let pid = self.browser_pid;
        if !self.browser_alive() {
            return Err(browser_gone());
        }
        self.runtime.block_on(async move {
            tokio::select! {
                result = future => result,
                () = process_end(pid) => Err(browser_gone()),
            }
        })
    }

    /// Listens for the page's notifications and its failed requests, then waits for the page.
    fn prepare_page(&mut self) -> Result<(), Failure> {
        let page = self.page.clone();
        let failed = Arc::clone(&self.failed_requests);
        let notified = Arc::clone(&self.notified);
        let documents = Arc::clone(&self.documents);
        self.block(async move {
            bounded(
                page.execute(EnableParams::default()),
                "enable network events",
            )
            .await?;
            navigate::watch_documents(&page, documents).await?;
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
        let url = self.options.url.clone();
        self.navigate(&url, "open the chat page")?;
        self.wait_ready()
    }

    /// Whether the browser still runs and its connection still stands.
    fn browser_alive(&self) -> bool {
        !self.handler.is_finished() && self.browser_pid.is_none_or(crate::exec::process_alive)
    }

    /// The page's state: one round trip while the helper is there (the usual case: it is
    /// sent again only after a navigation took it away).
    fn state(&self) -> Result<PageState, Failure> {
        self.api().state()
    }

    /// Waits for the page's next change (its MutationObserver calls the binding), at most
    /// `cap`.
    fn next_change(&self, cap: Duration) {
        let notified = Arc::clone(&self.notified);
        self.runtime.block_on(async move {
            let _ = tokio::time::timeout(cap, notified.notified()).await;
        });
    }

    fn composer(&self) -> Result<Option<String>, Failure> {
        self.api().composer()
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
}

fn browser_gone() -> Failure {
    connection(
        "the browser closed or crashed; run keyless again to reopen it (the turn resumes where it stopped)",
    )
}

/// Ends when the process ends (never, without a process to watch). The caller has just seen
/// it alive, so the first look is after a pause.
async fn process_end(pid: Option<i32>) {
    let Some(pid) = pid else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(PROCESS_WATCH).await;
        if !crate::exec::process_alive(pid) {
            return;
        }
    }
}

/// How often a call in flight looks at the browser's process.
const PROCESS_WATCH: Duration = Duration::from_millis(100);

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
}
