//! The chat driver over the Chrome DevTools Protocol (chromiumoxide): launch or attach to
//! Chrome/Chromium, send a message and confirm it, wait for the reply on positive proof, and
//! read it exactly.
//!
//! Every CDP call has a Rust-side time limit; a closed or crashed browser is an error
//! (KA_BROWSER_CONNECTION_FAILED), never a hang. The handler stream is polled in its own task and
//! never stopped on an error: chromiumoxide's schema is older than Chromium and some events fail
//! to decode.
//!
//! The driver is five parts, each owning its state in a file of its own: the **tab**
//! (`tab.rs`: the connection, the page, the profile's claims; `launch.rs` and `spawn.rs` start
//! and end the browser, `navigate.rs` opens an address), the **composer** (`composer.rs`:
//! clearing, insertion strategies and their memory, attaching, how messages reach the page),
//! the **reader** (`read.rs`: the reading channels and their proofs), and **discovery**
//! (`discovery.rs`: the site's entry as the session heals it, finding and learning;
//! `sketch.rs` its reports), and the **controls** (`controls.rs`: the model and effort chosen
//! and read back, plain chat, the temporary chat, each reply's model checked). All of them reach the page only through `page_api/`. This file
//! composes them; `conversation.rs` sends, reopens and waits, `ready.rs` waits for the page.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use super::selectors::Site;
use crate::catalog::{Code, Failure};

mod attach;
mod composer;
mod controls;
mod conversation;
mod discovery;
mod error;
mod launch;
mod navigate;
mod page_api;
mod page_state;
mod read;
mod ready;
mod sent;
mod site_said;
mod sketch;
mod spawn;
mod tab;
mod waiting;
mod wire;

use composer::Composer;
use controls::Controls;
use discovery::Discovery;
use error::DriverError;
use page_api::PageApi;
use read::Reader;
use sent::{Delivery, Shown, fence, shown_as, shown_with_files};
pub use sent::{attachment_name, attachment_note};
use tab::{Reach, Tab};

pub use composer::STRATEGIES;
pub use discovery::Learned;
use launch::open_browser;
pub use launch::{LAUNCH_ARGS, find_browser};

/// The script keyless puts into the page.
const PAGE_JS: &str = include_str!("../page.js");
/// The finders that look for a part by its shape when no selector matches it.
const DISCOVER_JS: &str = include_str!("../discover.js");
/// Where the selectors' elements are, found with work that does not grow with the
/// conversation.
const LOCATE_JS: &str = include_str!("../locate.js");
/// The chat's own controls: the model picker, plain chat, the temporary chat.
const CONTROLS_JS: &str = include_str!("../controls.js");
/// The person's attachments: the file input, the chips by name, the site's refusal.
const ATTACH_JS: &str = include_str!("../attach.js");
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

/// Network errors that mean the machine is offline or the chat's connection was cut.
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

/// The errors of a chat request whose stream the site cut before its end (the connection
/// closed mid-body, a protocol's reset), the machine online: a site error, waited on a few
/// seconds, after which the chat, opened again, shows the reply if the site kept it.
const CUT_ERRORS: &[&str] = &[
    "net::ERR_INCOMPLETE_CHUNKED_ENCODING",
    "net::ERR_CONTENT_LENGTH_MISMATCH",
    "net::ERR_EMPTY_RESPONSE",
    "net::ERR_CONNECTION_ABORTED",
    "net::ERR_HTTP2_PROTOCOL_ERROR",
    "net::ERR_QUIC_PROTOCOL_ERROR",
    "net::ERR_TIMED_OUT",
    "net::ERR_CONNECTION_TIMED_OUT",
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
    /// How long a streaming reply may make no progress before it counts as stalled
    /// (`Browser.StallSeconds`).
    pub stall: Duration,
    /// How long a login wall is waited out for the user to log in (zero: report it at once,
    /// as without a window nobody can log in).
    pub login_wait: Duration,
    /// Where the driver's notices for the user go (the CLI prints them).
    pub notice: Option<fn(&str)>,
    /// A folder for sketches of the page (its structure, no text), saved when the chat fails
    /// in a way a changed site explains; `None` saves none.
    pub sketches: Option<PathBuf>,
    /// The model, effort and temporary chat the person asked for (`controls.rs`).
    pub wanted: crate::chat::models::Wanted,
    /// What the replies are: AgentScript (whole at its `@@eof`) or prose.
    pub replies: Replies,
    /// How long each of the person's attached files has to show its chip (`attach.rs`).
    pub attach_wait: Duration,
}

/// What a chat's replies are, which says when one is whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Replies {
    /// AgentScript: whole at its `@@eof`; a reply the page ended without it was cut short.
    #[default]
    AgentScript,
    /// Prose (a question's answer): whole when the page says the reply ended.
    Prose,
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
            stall: Duration::from_secs(20),
            login_wait: Duration::ZERO,
            notice: None,
            sketches: None,
            wanted: Default::default(),
            replies: Replies::AgentScript,
            attach_wait: ATTACH_CHIP_WAIT,
        })
    }
}

/// The driver: the tab it drives, the composer, the reader, discovery, the chat's own
/// controls, and the warnings not yet taken. Each part owns its state; the driver composes them (`conversation.rs`: sending,
/// reopening, waiting; `ready.rs`: waiting for the page to be usable).
pub struct CdpDriver {
    /// The browser, the chat page and the profile's claims (`tab.rs`).
    tab: Tab,
    /// Clearing, inserting, attaching, and how messages reach this page (`composer.rs`).
    composer: Composer,
    /// Reading a finished reply, and where the reply to wait for starts (`read.rs`).
    reader: Reader,
    /// The site's entry as the session heals it, and what was found by shape (`discovery.rs`).
    discovery: Discovery,
    /// Problems to tell the user, not yet taken (`take_warnings`).
    warnings: Vec<Failure>,
    /// The chat's own controls: the model, the effort, plain chat, the temporary chat
    /// (`controls.rs`).
    controls: Controls,
}

/// How long a person's attached file has to show its chip by default: an upload of a few
/// megabytes to a real site takes seconds (a peer waits 45 s in all); longer is a chip that
/// will not come.
pub const ATTACH_CHIP_WAIT: Duration = Duration::from_secs(30);

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
        // The page is set as the person asked before anything is sent.
        driver.settle_controls()?;
        Ok(driver)
    }

    /// Like [`CdpDriver::start`], for looking at a page that may be broken (`keyless doctor`):
    /// a page whose composer cannot be found still gives a driver, with the failure beside it,
    /// so that every other part can be checked and reported.
    pub fn start_for_inspection(options: Options) -> Result<(CdpDriver, Option<Failure>), Failure> {
        let mut driver = CdpDriver::launch(options)?;
        match driver.prepare_page() {
            Ok(()) => Ok((driver, None)),
            Err(failure) if failure.code == Code::SelectorNotFound && driver.tab.alive() => {
                Ok((driver, Some(failure)))
            }
            Err(failure) => Err(failure),
        }
    }

    /// Opens the browser and the page, without waiting for the page to be a usable chat; the
    /// options are shared out among the parts.
    fn launch(options: Options) -> Result<CdpDriver, Failure> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|source| DriverError::Runtime { source })?;
        let opened = runtime.block_on(open_browser(&options))?;
        let Options {
            site_name,
            site,
            url,
            cdp_url,
            executable: _,
            headless: _,
            profile,
            reply_timeout,
            truncation_budget,
            stall,
            login_wait,
            notice,
            sketches,
            wanted,
            replies,
            attach_wait,
        } = options;
        Ok(CdpDriver {
            tab: Tab::new(
                runtime,
                opened,
                Reach {
                    url,
                    cdp_url,
                    profile,
                    login_wait,
                    notice,
                },
            ),
            composer: Composer::new(attach_wait),
            reader: Reader::new(reply_timeout, truncation_budget, stall, replies),
            discovery: Discovery::new(site_name, site, sketches),
            warnings: Vec::new(),
            controls: Controls {
                wanted,
                ..Default::default()
            },
        })
    }

    /// The page's functions, typed, with the site's selectors as the session has them.
    fn api(&self) -> PageApi<'_> {
        self.discovery.api(&self.tab)
    }

    /// Listens for the page's notifications and its failed requests, then waits for the page.
    fn prepare_page(&mut self) -> Result<(), Failure> {
        self.tab.listen()?;
        let url = self.tab.reach.url.clone();
        self.tab
            .navigate(&url, "open the chat page", navigate::Opened::First)?;
        self.wait_ready()
    }

    /// The page's state: from the page script's look (one round trip while the script is
    /// there), or, while the browser reports a bot check, from that alone (no script runs in a
    /// check's page). A check reported while the look was made (a reload into it) is a check
    /// too: the caller waits it out where it may, as for one seen before.
    fn state(&self) -> Result<PageState, Failure> {
        self.reader.copied_by_look.borrow_mut().take();
        if let Some(words) = self.tab.check_shown() {
            return Ok(PageState::bot_check(words));
        }
        let mut state = match self.api().state() {
            Err(failure) if failure.code == crate::catalog::Code::BotCheck => {
                match self.tab.check_shown() {
                    Some(words) => return Ok(PageState::bot_check(words)),
                    None => return Err(failure),
                }
            }
            other => other?,
        };
        // What the page's own dialogs said (closed at once) is a notice like any other, newest
        // first: a site may say its limit in an `alert`.
        let dialogs = self
            .tab
            .dialogs()
            .into_iter()
            .map(|text| page_state::NoticeArea {
                text,
                dialog: false,
                aside: false,
            });
        state.notices.splice(0..0, dialogs);
        // What the look read through the copy control: for the read that follows this look.
        *self.reader.copied_by_look.borrow_mut() = state
            .copied
            .take()
            .and_then(|read| serde_json::from_value(read).ok());
        Ok(state)
    }

    /// Saves a sketch of the page for a failure a changed site explains (`sketch.rs`).
    fn sketched<T>(&mut self, result: Result<T, Failure>) -> Result<T, Failure> {
        self.discovery.sketched(&self.tab, result)
    }

    /// Clears the composer (stale text and chips) without sending.
    pub fn clear_composer(&self) -> Result<(), Failure> {
        self.composer.clean(&self.api())
    }

    /// Test and recovery hook: switches the page's network off or on.
    pub fn set_offline(&self, offline: bool) -> Result<(), Failure> {
        self.tab.set_offline(offline)
    }

    /// Kills a launched browser at once, as a crash would (tests and emergencies).
    pub fn kill_browser(&mut self) {
        self.tab.kill_browser();
    }

    /// Closes the browser (one on keyless's profile that no other keyless uses), or only the
    /// tab keyless opened (in the user's own browser, attached, or in one shared with other
    /// keyless processes): the chat stays at its address for the next run.
    pub fn close(self) {
        self.tab.close();
    }

    /// Puts the message into the composer with the site's insertion strategies, in order,
    /// until the composer holds exactly the message (`Composer::insert`).
    pub fn insert(&mut self, message: &str) -> Result<(), Failure> {
        let page = self.discovery.api(&self.tab);
        self.composer.insert(&page, message)
    }

    /// One `Input.insertText` of `text`, unchecked: how other tools fill a composer, for the
    /// benchmarks that compare keyless's way with theirs.
    pub fn insert_unchecked(&self, text: &str) -> Result<(), Failure> {
        let page = self.api();
        page.focus_composer()?;
        page.insert_text(text)
    }

    /// The insertion strategy that last put a message in exactly, to keep for the site.
    pub fn inserted_with(&self) -> Option<&str> {
        self.composer.inserted_with()
    }

    /// Puts the message into the composer with one strategy (`keyless doctor` checks each),
    /// checked exact; a failure leaves the composer as the strategy left it.
    pub fn insert_using(&self, strategy: &str, message: &str) -> Result<(), Failure> {
        self.composer.insert_using(&self.api(), strategy, message)
    }

    /// The notices of parts found by their shape since the last take (`take_warnings` takes
    /// them too, before the other warnings).
    pub fn take_findings(&mut self) -> Vec<Failure> {
        self.discovery.take_findings()
    }

    /// What discovery found and proved in this session, by key.
    pub fn learned(&self) -> &Learned {
        self.discovery.learned()
    }

    /// Keeps what discovery proves in the learned selectors at `path` as a reply is read and
    /// as trouble stops a turn, each time it grew (`learned::keep`), silently: the person is
    /// told once, as keyless ends.
    pub fn keep_learned_in(&mut self, path: PathBuf) {
        self.discovery.keep_in = Some(path);
    }

    /// [`CdpDriver::keep_learned_in`]'s keeping, now, where anything was proved since.
    pub(super) fn keep_learned_now(&mut self) {
        let Some(path) = self.discovery.keep_in.clone() else {
            return;
        };
        let now = (
            self.learned().selectors.clone(),
            self.inserted_with().map(str::to_string),
        );
        if self.discovery.kept.as_ref() == Some(&now) {
            return;
        }
        let site = crate::chat::ChatDriver::site(self);
        match crate::chat::learned::keep(&path, &site, self.site_entry(), &now.0, now.1.as_deref())
        {
            Ok(_) => self.discovery.kept = Some(now),
            Err(failure) => {
                tracing::warn!(code = ?failure.code, reason = failure.reason, "learned selectors not kept")
            }
        }
    }

    /// The site's entry as the session uses it: selectors.json's, with what discovery found
    /// first.
    pub fn site_entry(&self) -> &crate::chat::selectors::Site {
        &self.discovery.site
    }

    /// Saves a sketch of the page into `folder` (`Discovery::save_sketch`).
    pub fn save_sketch(&self, folder: &std::path::Path, why: &str) -> Option<PathBuf> {
        self.discovery.save_sketch(&self.tab, folder, why)
    }
}

fn browser_gone() -> Failure {
    connection(
        "the browser closed or crashed; nothing was lost: run `keyless run --resume` to open it again and go on where the turn stopped",
    )
}

/// The chat's tab closed (by the person, or its page crashed) while the browser runs.
fn tab_closed() -> Failure {
    connection(
        "the chat's tab was closed (or its page crashed) while keyless used it; nothing was lost: run `keyless run --resume` to open the chat again and go on where the turn stopped",
    )
}

/// Runs one CDP call with the time limit.
async fn bounded<T>(
    future: impl Future<Output = Result<T, chromiumoxide::error::CdpError>>,
    what: &str,
) -> Result<T, DriverError> {
    within(
        async { future.await.map_err(|e| DriverError::call(what, e)) },
        what,
    )
    .await
}

/// Runs calls that speak the room's error with the time limit.
async fn within<T>(
    future: impl Future<Output = Result<T, DriverError>>,
    what: &str,
) -> Result<T, DriverError> {
    match tokio::time::timeout(CDP_TIMEOUT, future).await {
        Ok(answered) => answered,
        Err(_) => Err(DriverError::Silent {
            what: what.to_string(),
            within: CDP_TIMEOUT,
        }),
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
