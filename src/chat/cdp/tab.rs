//! The tab: the connection to the browser, the one chat page keyless drives in it, and the
//! claims on the profile. It owns the runtime every CDP call runs on, knows at once when the
//! browser is gone, hears the page's notifications, failed requests and streams (`wire.rs`),
//! and opens addresses
//! (`navigate.rs`); launching and closing the browser are in `launch.rs`.

use std::collections::VecDeque;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

// The by-rule replacement needs URL patterns; the global switch still works in Chromium 156.
#[allow(deprecated)]
use chromiumoxide::cdp::browser_protocol::network::EmulateNetworkConditionsParams;
use chromiumoxide::cdp::browser_protocol::network::{
    EnableParams, EventLoadingFailed, EventResponseReceived, GetResponseBodyParams, RequestId,
    ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    DialogType, EventJavascriptDialogOpening, GetNavigationHistoryParams,
    HandleJavaScriptDialogParams, NavigationEntry,
};
use chromiumoxide::cdp::browser_protocol::target::{GetTargetsParams, TargetId};
use chromiumoxide::cdp::js_protocol::runtime::{AddBindingParams, EventBindingCalled};
use chromiumoxide::{Browser, Page};
use futures::StreamExt;
use regex::Regex;

use super::{CUT_ERRORS, OFFLINE_ERRORS, bounded, browser_gone, tab_closed};
use crate::catalog::{Code, Failure};
use crate::claim::Share;

/// The browser, the chat page in it, and what keyless hears from them.
pub(super) struct Tab {
    pub(super) runtime: tokio::runtime::Runtime,
    pub(super) browser: Browser,
    pub(super) page: Page,
    pub(super) handler: tokio::task::JoinHandle<()>,
    /// The browser's process, when it runs here: its end is noticed at once.
    pub(super) browser_pid: Option<i32>,
    /// The browser's process when keyless started it (in a process group of its own): closed
    /// or killed with the tab.
    pub(super) browser_process: Option<tokio::process::Child>,
    /// This process's share of the profile while the tab lives: the last keyless using the
    /// browser closes it.
    pub(super) profile_share: Option<crate::claim::Share>,
    /// The browser's errors of the page's chat requests that failed since the last message
    /// (or since the page was opened again).
    pub(super) failed_requests: Arc<Mutex<Vec<String>>>,
    /// The words of the JavaScript dialogs (`alert`, `confirm`, `prompt`) the page opened since
    /// the last message, each closed at once: an open one stalls every script keyless runs.
    dialogs: Arc<Mutex<Vec<String>>>,
    /// What the page's network said since the last message (`wire.rs`).
    pub(super) wire: super::wire::Wire,
    /// The statuses of the documents the page loaded (`navigate.rs`).
    pub(super) documents: Documents,
    /// The page's own document as its response came (not a frame's): whether the site's
    /// answer marked it a bot check, and its status ([`Tab::check_shown`]).
    pub(super) last_answer: Arc<Mutex<Option<Answer>>>,
    /// What the body of a document answered 403 or 503 says, read from the network once per
    /// document (no script in the page): its request, and the check's words when it is one.
    check_read: Mutex<Option<(String, Option<String>)>>,
    notified: Arc<tokio::sync::Notify>,
    /// Where the chat is, and how the person at the browser is reached.
    pub(super) reach: Reach,
}

/// The chat's address and the browser's place, from the driver's options.
pub(super) struct Reach {
    /// The chat's address (a new chat opens there).
    pub(super) url: String,
    /// The DevTools endpoint keyless attached to (the user's own browser), if it did.
    pub(super) cdp_url: Option<String>,
    /// The browser profile folder.
    pub(super) profile: PathBuf,
    /// How long a login wall is waited out for the person to log in (`Options::login_wait`).
    pub(super) login_wait: Duration,
    /// Where notices for the person go (`Options::notice`).
    pub(super) notice: Option<fn(&str)>,
}

impl Tab {
    /// The tab of a browser just opened, at `url` once [`Tab::listen`] ran.
    pub(super) fn new(runtime: tokio::runtime::Runtime, opened: Opened, reach: Reach) -> Tab {
        Tab {
            runtime,
            browser: opened.browser,
            page: opened.page,
            handler: opened.handler,
            browser_pid: opened.pid,
            browser_process: opened.child,
            profile_share: opened.share,
            failed_requests: Arc::new(Mutex::new(Vec::new())),
            dialogs: Arc::default(),
            wire: super::wire::Wire::default(),
            documents: Documents::default(),
            last_answer: Arc::default(),
            check_read: Mutex::new(None),
            notified: Arc::new(tokio::sync::Notify::new()),
            reach,
        }
    }

    /// Runs `future` on the tab's runtime; a closed or crashed browser ends it at once.
    pub(super) fn block<T, E: Into<Failure>>(
        &self,
        future: impl Future<Output = Result<T, E>>,
    ) -> Result<T, Failure> {
        // A closed or crashed browser is known at once (its process ended, or the handler saw
        // the connection drop), also in the middle of a call, never after a call's time limit.
        let pid = self.browser_pid;
        if !self.alive() {
            return Err(browser_gone());
        }
        let browser = &self.browser;
        let ours = self.page.target_id().clone();
        let result = self.runtime.block_on(async move {
            tokio::select! {
                result = future => result.map_err(Into::into),
                () = process_end(pid) => Err(browser_gone()),
                () = tab_end(browser, ours) => Err(tab_closed()),
            }
        });
        // A call that failed on a browser still running: its tab may be gone (closed by the
        // person, or crashed), which DevTools tells only as a channel with no receiver. The
        // browser's own list of tabs says so, in words that name what to do.
        match result {
            Err(failure) if failure.code == Code::BrowserConnectionFailed && !self.tab_open() => {
                Err(tab_closed())
            }
            other => other,
        }
    }

    /// The browser gone or this tab closed, now.
    pub(super) fn lost(&self) -> Option<Failure> {
        if !self.alive() {
            return Some(browser_gone());
        }
        (!self.tab_open()).then(tab_closed)
    }

    /// Whether the browser still lists this tab (true when it cannot say: the failure that
    /// asked stays as it was).
    fn tab_open(&self) -> bool {
        if !self.alive() {
            return true;
        }
        let ours = self.page.target_id().clone();
        let browser = &self.browser;
        self.runtime
            .block_on(async {
                bounded(
                    browser.execute(GetTargetsParams::default()),
                    "list the browser's tabs",
                )
                .await
            })
            .map_or(true, |got| {
                got.result
                    .target_infos
                    .iter()
                    .any(|target| target.target_id == ours)
            })
    }

    /// Listens for the page's notifications, its failed requests and its documents' statuses.
    pub(super) fn listen(&self) -> Result<(), Failure> {
        let page = self.page.clone();
        let failed = Arc::clone(&self.failed_requests);
        let dialogs = Arc::clone(&self.dialogs);
        let notified = Arc::clone(&self.notified);
        let documents = Arc::clone(&self.documents);
        let last_answer = Arc::clone(&self.last_answer);
        let wire = self.wire.clone();
        self.block(async move {
            bounded(
                page.execute(EnableParams::default()),
                "enable network events",
            )
            .await?;
            watch_documents(&page, documents, last_answer).await?;
            wire.listen(&page).await?;
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
                    if !carries_the_conversation(&event.r#type) {
                        continue;
                    }
                    if let Ok(mut list) = failed.lock() {
                        list.push(event.error_text.clone());
                    }
                }
            });
            close_dialogs(&page, dialogs, Arc::clone(&notified)).await?;
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
            Ok::<_, Failure>(())
        })
    }

    /// Whether the browser still runs and its connection still stands.
    pub(super) fn alive(&self) -> bool {
        !self.handler.is_finished() && self.browser_pid.is_none_or(crate::exec::process_alive)
    }

    /// Waits for the page's next change (its MutationObserver calls the binding), at most
    /// `cap`.
    pub(super) fn next_change(&self, cap: Duration) {
        let notified = Arc::clone(&self.notified);
        self.runtime.block_on(async move {
            let _ = tokio::time::timeout(cap, notified.notified()).await;
        });
    }

    /// Forgets the failed requests, the dialogs and the network's streams heard so far (a new
    /// message is about to go).
    pub(super) fn forget_failures(&self) {
        self.wire.mark();
        if let Ok(mut failed) = self.failed_requests.lock() {
            failed.clear();
        }
        if let Ok(mut dialogs) = self.dialogs.lock() {
            dialogs.clear();
        }
    }

    /// The words of the dialogs the page opened since the last message, newest first.
    pub(super) fn dialogs(&self) -> Vec<String> {
        self.dialogs
            .lock()
            .map(|d| d.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    /// The failure of a request since the last send that says the machine is offline.
    pub(super) fn offline_failure(&self) -> Option<Failure> {
        self.failed_with(OFFLINE_ERRORS).map(|e| {
            Failure::new(
                Code::NetworkOffline,
                format!("the chat request failed with {e}: the machine looks offline or the connection was cut. Nothing was lost; the chat is asked whether it holds the message before it is sent again."),
            )
        })
    }

    /// The failure of a chat request since the last send that says the site cut its stream
    /// before the end (no words on the page need say so).
    pub(super) fn cut_failure(&self) -> Option<Failure> {
        self.failed_with(CUT_ERRORS).map(|e| {
            Failure::new(
                Code::SiteError,
                format!("the site cut the reply's stream before its end ({e}). Nothing was lost: the chat is asked whether it kept the reply before the message is sent again; `keyless run --resume` does the same later."),
            )
        })
    }

    /// The first error among `errors` a chat request failed with since the last send.
    fn failed_with(&self, errors: &[&str]) -> Option<String> {
        let failed = self.failed_requests.lock().ok()?;
        failed
            .iter()
            .find(|e| errors.contains(&e.as_str()))
            .cloned()
    }

    /// What the page's network said since the last message, responses that finished before
    /// they could be heard streaming read whole now.
    pub(super) fn heard(&self) -> Result<Vec<crate::chat::wire::Heard>, Failure> {
        let page = self.page.clone();
        let wire = self.wire.clone();
        self.block(async move {
            wire.complete(&page).await;
            Ok::<_, super::DriverError>(wire.heard())
        })
    }

    /// The body of the answer to request `id`, read whole when it finished before it could be
    /// heard streaming.
    pub(super) fn answer_to(&self, id: &str) -> Option<Vec<u8>> {
        let page = self.page.clone();
        let wire = self.wire.clone();
        self.block(async move {
            wire.complete(&page).await;
            Ok::<_, super::DriverError>(())
        })
        .ok()?;
        self.wire.body_of(id)
    }

    /// Switches the page's network off or on.
    pub(super) fn set_offline(&self, offline: bool) -> Result<(), Failure> {
        let page = self.page.clone();
        self.block(async move {
            #[allow(deprecated)]
            let params = EmulateNetworkConditionsParams::new(offline, 0.0, -1.0, -1.0);
            bounded(page.execute(params), "emulate network conditions").await?;
            Ok::<_, super::DriverError>(())
        })
    }

    /// The tab's history as the browser reports it (no script runs in the page): the
    /// addresses of its entries, oldest first, and which one is shown now.
    pub(super) fn history(&self) -> Result<(usize, Vec<String>), Failure> {
        let (current, entries) = self.entries()?;
        Ok((current, entries.into_iter().map(|e| e.url).collect()))
    }

    /// The id of the tab's history entry shown now and its address (no script in the page).
    pub(super) fn shown_entry(&self) -> Result<(i64, String), Failure> {
        let (current, mut entries) = self.entries()?;
        if current >= entries.len() {
            return Ok((-1, String::new()));
        }
        let entry = entries.swap_remove(current);
        Ok((entry.id, entry.url))
    }

    /// What the browser shows of the tab, as the browser reports it (no script runs in the
    /// page): the address and the title of the entry shown now. A bot check is watched this
    /// way (`ready.rs`): such checks re-arm while a debugger runs script in the page.
    pub(super) fn shown(&self) -> Result<(String, String), Failure> {
        let (current, mut entries) = self.entries()?;
        if current >= entries.len() {
            return Ok(Default::default());
        }
        let entry = entries.swap_remove(current);
        Ok((entry.url, entry.title))
    }

    /// What the browser shows of the tab now, as [`Tab::shown`], with the request that answered
    /// its document: a bot check is watched by this changing (the answer's event may come a
    /// moment after the title changed, or before).
    pub(super) fn seen(&self) -> Seen {
        Seen {
            shown: self.shown().ok(),
            answer: self
                .last_answer
                .lock()
                .ok()
                .and_then(|answer| answer.as_ref().map(|a| a.request.clone())),
        }
    }

    /// The bot check the tab shows, known from what the browser reports alone (no script in the
    /// page: such checks re-arm while a debugger runs script): the page's document was answered
    /// with Cloudflare's check header, or with an error status (403, 503) under a check's title
    /// or with a check's words or machinery in its body (read from the network, whatever the
    /// title). The check's words are returned. A check a page draws itself, with no such
    /// answer, is seen by the page script's look instead.
    pub(super) fn check_shown(&self) -> Option<String> {
        let answer = self.last_answer.lock().ok()?.clone()?;
        if !answer.mitigated && !matches!(answer.status, 403 | 503) {
            return None;
        }
        let (_, title) = self.shown().ok()?;
        if CHECK_TITLES.iter().any(|t| title.contains(t)) {
            return Some(title.trim().to_string());
        }
        // The title may still be the page's before (the moment after the answer came), or the
        // check's own in words no list holds: its body says.
        if let Some(words) = self.check_in_body(&answer) {
            return Some(words);
        }
        answer
            .mitigated
            .then(|| "a bot check (the site's answer marked the page a check)".to_string())
    }

    /// The check's words in the body of the document `answer` came with, read from the network
    /// (once per document; a body not yet there is waited for a moment).
    fn check_in_body(&self, answer: &Answer) -> Option<String> {
        if let Ok(read) = self.check_read.lock()
            && let Some((request, words)) = read.as_ref()
            && request == &answer.request
        {
            return words.clone();
        }
        let deadline = std::time::Instant::now() + BODY_WAIT;
        let body = loop {
            let page = self.page.clone();
            let request = RequestId::new(answer.request.clone());
            let got = self.block(async move {
                bounded(
                    page.execute(GetResponseBodyParams::new(request)),
                    "read the page's document",
                )
                .await
            });
            match got {
                Ok(got) if !got.result.base64_encoded => break Some(got.result.body.clone()),
                Ok(_) => break None,
                Err(_) if std::time::Instant::now() < deadline && self.alive() => {
                    std::thread::sleep(BODY_STEP);
                }
                Err(_) => break None,
            }
        };
        let words = body.as_deref().and_then(check_words);
        if let Ok(mut read) = self.check_read.lock() {
            *read = Some((answer.request.clone(), words.clone()));
        }
        words
    }

    fn entries(&self) -> Result<(usize, Vec<NavigationEntry>), Failure> {
        let page = self.page.clone();
        let got = self.block(async move {
            bounded(
                page.execute(GetNavigationHistoryParams::default()),
                "read the tab's history",
            )
            .await
        })?;
        let current = usize::try_from(got.result.current_index).unwrap_or(0);
        Ok((current, got.result.entries))
    }

    /// The browser's other tabs, with their addresses (a tab that closed while they were listed
    /// is left out).
    pub(super) fn other_tabs(&self) -> Result<Vec<(Page, String)>, Failure> {
        let ours = self.page.target_id().clone();
        let browser = &self.browser;
        let pages =
            self.block(async { bounded(browser.pages(), "list the browser's tabs").await })?;
        let mut others = Vec::new();
        for page in pages {
            if page.target_id() == &ours {
                continue;
            }
            // A tab that closes meanwhile (the user's, another keyless's) is no longer there.
            let Ok(Some(url)) =
                self.block(async { bounded(page.url(), "read a tab's address").await })
            else {
                if !self.alive() {
                    return Err(browser_gone());
                }
                continue;
            };
            others.push((page, url));
        }
        Ok(others)
    }
}

/// Ends when the process ends (never, without a process to watch). The caller has just seen
/// it alive, so the first look is after a pause.
/// Closes each JavaScript dialog the page opens, at once, keeping its words in `dialogs`: an
/// open `alert` stalls every script in the page, keyless's included, until someone answers it
/// (a site that says its limit in one would hang the turn). An alert is acknowledged and a page
/// leaving is let go (keyless navigates); a `confirm` or `prompt` is refused, never agreed to.
async fn close_dialogs(
    page: &Page,
    dialogs: Arc<Mutex<Vec<String>>>,
    notified: Arc<tokio::sync::Notify>,
) -> Result<(), Failure> {
    let mut opened = bounded(
        page.event_listener::<EventJavascriptDialogOpening>(),
        "listen for the page's dialogs",
    )
    .await?;
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(event) = opened.next().await {
            let accept = matches!(event.r#type, DialogType::Alert | DialogType::Beforeunload);
            // The page's own words (the site's, never the browser's).
            let said: &str = &event.message;
            let words = said.split_whitespace().collect::<Vec<_>>().join(" ");
            if event.r#type != DialogType::Beforeunload
                && !words.is_empty()
                && let Ok(mut list) = dialogs.lock()
            {
                list.push(words);
            }
            let _ = bounded(
                page.execute(HandleJavaScriptDialogParams::new(accept)),
                "close the page's dialog",
            )
            .await;
            notified.notify_one();
        }
    });
    Ok(())
}

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

/// Ends when the browser no longer lists the tab `ours` (the person closed it): a call in
/// flight on a closed tab is never answered, and would otherwise wait out its time limit. Looked
/// at only once a call has taken [`TAB_WATCH`], so quick calls cost nothing.
async fn tab_end(browser: &Browser, ours: TargetId) {
    loop {
        tokio::time::sleep(TAB_WATCH).await;
        let listed = bounded(
            browser.execute(GetTargetsParams::default()),
            "list the browser's tabs",
        )
        .await;
        if let Ok(got) = listed
            && !got.result.target_infos.iter().any(|t| t.target_id == ours)
        {
            return;
        }
    }
}

/// How long a call runs before its tab is looked for among the browser's tabs, and how often
/// after.
const TAB_WATCH: Duration = Duration::from_secs(1);

/// How often a call in flight looks at the browser's process.
const PROCESS_WATCH: Duration = Duration::from_millis(100);

/// An open browser: the connection, the chat page, the task driving the connection, and the
/// browser's process id when it runs on this machine (launched, or found on the profile).
pub(super) struct Opened {
    pub browser: Browser,
    pub page: Page,
    pub handler: tokio::task::JoinHandle<()>,
    pub pid: Option<i32>,
    /// The browser's process when keyless launched it.
    pub child: Option<tokio::process::Child>,
    /// This process's share of the profile, for as long as its tab is open.
    pub share: Option<Share>,
}

/// The HTTP status of each document the page loaded, by its loader (the latest few): the
/// browser's error for an error status with an empty page (`net::ERR_HTTP_RESPONSE_CODE_FAILURE`)
/// names no status.
pub(super) type Documents = Arc<Mutex<VecDeque<(String, u16)>>>;

/// How many documents' statuses are kept (a navigation looks its own up at once).
const DOCUMENTS_KEPT: usize = 8;

/// Notes the status of every document the page loads, from the page's network events, and of
/// the page's own document whether the site's answer marked it a bot check (Cloudflare's
/// `cf-mitigated: challenge` header): known with no script in the page.
pub(super) async fn watch_documents(
    page: &Page,
    documents: Documents,
    last_answer: Arc<Mutex<Option<Answer>>>,
) -> Result<(), Failure> {
    let mut responses = bounded(
        page.event_listener::<EventResponseReceived>(),
        "listen for the page's documents",
    )
    .await?;
    // A page's own frame has the id of its target.
    let own_frame = page.target_id().inner().clone();
    tokio::spawn(async move {
        while let Some(event) = responses.next().await {
            let Ok(status) = u16::try_from(event.response.status) else {
                continue;
            };
            if event.r#type != ResourceType::Document {
                continue;
            }
            if event
                .frame_id
                .as_ref()
                .is_some_and(|f| f.inner() == &own_frame)
            {
                let mitigated = event
                    .response
                    .headers
                    .inner()
                    .as_object()
                    .is_some_and(|headers| {
                        headers.iter().any(|(name, value)| {
                            name.eq_ignore_ascii_case(CHECK_HEADER)
                                && value.as_str().is_some_and(|v| v.contains("challenge"))
                        })
                    });
                if let Ok(mut shown) = last_answer.lock() {
                    *shown = Some(Answer {
                        status,
                        mitigated,
                        request: event.request_id.inner().clone(),
                    });
                }
            }
            if let Ok(mut kept) = documents.lock() {
                kept.push_back((event.loader_id.inner().clone(), status));
                while kept.len() > DOCUMENTS_KEPT {
                    kept.pop_front();
                }
            }
        }
    });
    Ok(())
}

/// What the browser shows of a tab at a moment ([`Tab::seen`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Seen {
    /// Its address and title, when the browser answered.
    shown: Option<(String, String)>,
    /// The request that answered its document.
    answer: Option<String>,
}

/// The answer that came with the page's own document (not a frame's).
#[derive(Clone, Debug)]
pub(super) struct Answer {
    /// Its HTTP status.
    pub(super) status: u16,
    /// Whether the site marked it a bot check (Cloudflare's header).
    pub(super) mitigated: bool,
    /// The request it answered, whose body the network still holds.
    request: String,
}

/// How long a document's body may take to be there to read, and how often it is asked for:
/// a check's page is small and comes at once.
const BODY_WAIT: Duration = Duration::from_millis(1500);
const BODY_STEP: Duration = Duration::from_millis(100);

/// The marks a bot check's machinery leaves in a page's source (Cloudflare's challenge
/// platform and Turnstile, the captcha services).
const CHECK_MARKS: &[&str] = &[
    "/challenge-platform/",
    "challenges.cloudflare.com",
    "cf-turnstile",
    "g-recaptcha",
    "h-captcha",
    "hcaptcha.com",
    "recaptcha/api",
];

/// The most of a body's text read as the check's words.
const BODY_TEXT_CHARS: usize = 1_500;

/// The words of a bot check in a document's source, when it is one (the check's words in the
/// sites' languages, or a check's machinery): its text with tags, scripts and styles taken
/// out.
fn check_words(html: &str) -> Option<String> {
    static HIDDEN: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?is)<(script|style|noscript|template)\b.*?</(script|style|noscript|template)\s*>|<title\b.*?</title\s*>").ok()
    });
    static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?s)<[^>]*>").ok());
    let shown = HIDDEN.as_ref()?.replace_all(html, " ");
    let text = TAG.as_ref()?.replace_all(&shown, " ");
    let text = text
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
        .replace("&#39;", "'")
        .replace("&quot;", "\"");
    let text: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(BODY_TEXT_CHARS)
        .collect();
    let clock = crate::chat::trouble::Clock { unix: 0, offset: 0 };
    let extra = crate::chat::trouble::Extra::default();
    let said =
        crate::chat::trouble::classify(&text, crate::chat::trouble::Place::Area, &extra, clock)
            .filter(|n| n.kind == crate::chat::trouble::Kind::BotCheck)
            .map(|n| n.words);
    let lower = html.to_lowercase();
    said.or_else(|| {
        CHECK_MARKS.iter().any(|m| lower.contains(m)).then(|| {
            if text.is_empty() {
                "a bot check (the page is a check's)".to_string()
            } else {
                text.chars().take(300).collect()
            }
        })
    })
}

/// The response header with which Cloudflare marks a page it answered with a check.
const CHECK_HEADER: &str = "cf-mitigated";

/// Titles of bot-check pages (Cloudflare's interstitial, its block page), as a page answered
/// with an error status shows them.
const CHECK_TITLES: &[&str] = &["Just a moment", "Attention Required", "One more step"];

/// Whether a request of this kind can carry the conversation (a message out, a reply in): the
/// page's documents and the requests its code makes. A font, a stylesheet, an image or a script
/// the page asks another host for (a CDN this machine cannot reach) says nothing about the
/// chat: its failure is not the machine offline. Offline, the conversation's own requests fail
/// too, and say so.
fn carries_the_conversation(kind: &ResourceType) -> bool {
    matches!(
        kind,
        ResourceType::Document
            | ResourceType::Xhr
            | ResourceType::Fetch
            | ResourceType::EventSource
            | ResourceType::WebSocket
    )
}

#[cfg(test)]
mod tests {
    use super::check_words;

    #[test]
    fn a_checks_page_is_known_by_its_words_or_machinery_never_a_plain_error_page() {
        let check = "<html><head><title>One moment, please...</title><script>var x='verify you are human';</script></head><body><h2>Checking your browser before accessing example.test</h2><p>This is automatic.</p></body></html>";
        assert_eq!(
            check_words(check).as_deref(),
            Some("Checking your browser before accessing example.test This is automatic.")
        );
        let widget =
            "<html><body><div class=\"cf-turnstile\"></div><p>Un instant…</p></body></html>";
        assert_eq!(check_words(widget).as_deref(), Some("Un instant…"));
        // A server's own error page, and words only in a script or the title, are no check.
        for page in [
            "<html><body><h1>503 Service Unavailable</h1></body></html>",
            "<html><head><title>Checking your browser</title></head><body>Forbidden</body></html>",
            "<html><body><script>'checking your browser'</script>Forbidden</body></html>",
            "",
        ] {
            assert_eq!(check_words(page), None, "{page}");
        }
    }
}
