//! Finding and launching Chrome/Chromium, or attaching to a running one; and closing it (or, in
//! the user's own browser, only keyless's tab).

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::emulation::SetFocusEmulationEnabledParams;
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;

use super::tab::{Opened, Tab};
use super::{CDP_TIMEOUT, DriverError, Options, bounded, connection, spawn};
use crate::catalog::Failure;
use crate::claim::{Lock, Share};

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

/// Joins the keyless processes using `profile`, each in its own tab of the one browser on it.
fn share_profile(profile: &Path) -> Result<Share, Failure> {
    std::fs::create_dir_all(profile).map_err(|source| DriverError::Launch {
        doing: format!("create the browser profile {}", profile.display()),
        source,
    })?;
    Ok(Share::join(&profile.join(PROFILE_USERS)))
}

/// The folder in a profile that names the keyless processes using it.
pub(super) const PROFILE_USERS: &str = "keyless.users";

/// The lock keyless processes take turns with to find or launch the browser on a profile.
const PROFILE_LAUNCH_LOCK: &str = "keyless.lock";

/// What a new tab shows until the chat's address is opened in it.
const BLANK: &str = "about:blank";

/// The browser's flags, without leading dashes. Never `enable-automation` (see `open_browser`).
pub const LAUNCH_ARGS: &[&str] = &[
    // A reply must stream while the window is behind others or minimised.
    "disable-background-timer-throttling",
    "disable-backgrounding-occluded-windows",
    "disable-renderer-backgrounding",
    "disable-ipc-flooding-protection",
    // Quiet: no first-run pages, default-browser or restore-after-crash bubbles, sync,
    // updates, crash reports or translate bar.
    "no-first-run",
    "no-default-browser-check",
    "hide-crash-restore-bubble",
    "disable-default-apps",
    "disable-sync",
    "disable-background-networking",
    "disable-component-update",
    "disable-breakpad",
    "disable-hang-monitor",
    "disable-prompt-on-repost",
    "disable-client-side-phishing-detection",
    "disable-features=TranslateUI",
    // No keyring prompt when the browser starts (the profile is keyless's own).
    "password-store=basic",
    "use-mock-keychain",
    // English, so the site's banners match the phrases in selectors.json.
    "lang=en-US",
    // Shared memory is small in containers; HTTP/3 and the GPU only add failure modes here.
    "disable-dev-shm-usage",
    "disable-quic",
    "disable-gpu",
];

pub(super) async fn open_browser(options: &Options) -> Result<Opened, Failure> {
    // Several keyless may use one profile, each in its own tab: one at a time finds the browser
    // on it or launches one, so that two never launch two.
    let share = match &options.cdp_url {
        Some(_) => None,
        None => Some(share_profile(&options.profile)?),
    };
    let _turn = match &options.cdp_url {
        Some(_) => None,
        None => Some(Lock::wait(&options.profile.join(PROFILE_LAUNCH_LOCK))),
    };
    let adopted = match &options.cdp_url {
        Some(_) => None,
        None => adopt(&options.profile).await?,
    };
    // The process keyless started (none attached or adopted): it ends when this is dropped.
    let mut child = None;
    let (browser, mut handler, adopted_pid) = match (&options.cdp_url, adopted) {
        (_, Some((browser, handler, pid))) => (browser, handler, Some(pid)),
        (Some(url), None) => {
            let (browser, handler) = bounded(
                Browser::connect_with_config(url.clone(), attached()),
                "attach to the browser",
            )
            .await?;
            (browser, handler, None)
        }
        (None, None) => {
            let executable = find_browser(options.executable.as_deref())?;
            // chromiumoxide's own defaults (puppeteer's) include `enable-automation`: Chrome
            // then says it is "controlled by automated test software", sets
            // `navigator.webdriver`, and Google's sign-in refuses the browser ("may not be
            // secure"), so the user could not log in to Gemini. keyless passes its own flags.
            let spawned = spawn::spawn(&spawn::Launch {
                executable: &executable,
                profile: &options.profile,
                args: LAUNCH_ARGS,
                headless: options.headless,
                no_sandbox: running_as_root(),
            })
            .await?;
            let (browser, handler) = bounded(
                Browser::connect_with_config(spawned.ws_url.clone(), attached()),
                "attach to the browser it launched",
            )
            .await?;
            if let (Some(group), Some(share)) = (
                spawned.child.id().and_then(|id| i32::try_from(id).ok()),
                &share,
            ) {
                tokio::spawn(note_group_while_alone(group, share.folder()));
            }
            child = Some(spawned.child);
            (browser, handler, None)
        }
    };
    let handler_task = tokio::spawn(async move {
        // Errors are decode failures of newer events: never stop on them.
        while handler.next().await.is_some() {}
    });
    let pid = adopted_pid.or_else(|| {
        child
            .as_ref()
            .and_then(tokio::process::Child::id)
            .and_then(|id| i32::try_from(id).ok())
    });
    // A blank tab: the chat's address is opened once keyless listens to the page, so that a
    // page that does not load is told apart from one that is not a chat (`navigate.rs`).
    let page = bounded(browser.new_page(BLANK), "open a tab").await?;
    // The page behaves as focused while the user works in another window (editors drop
    // their selection, and some pages pause, when they lose focus).
    bounded(
        page.execute(SetFocusEmulationEnabledParams::new(true)),
        "keep the chat page focused",
    )
    .await?;
    Ok(Opened {
        browser,
        page,
        handler: handler_task,
        pid,
        child,
        share,
    })
}

/// Notes the launched browser's process group to be ended when keyless leaves at once (a
/// second Ctrl+C, the terminal closed), for as long as no other keyless uses the browser.
async fn note_group_while_alone(group: i32, users: std::path::PathBuf) {
    loop {
        if crate::claim::others_in(&users).is_empty() {
            crate::cancel::end_with_keyless(group);
        } else {
            crate::cancel::forget(group);
        }
        tokio::time::sleep(SHARE_WATCH).await;
    }
}

/// How often a launching keyless looks whether others use its browser.
const SHARE_WATCH: Duration = Duration::from_millis(500);

/// The browser running on this profile: another keyless's (each uses its own tab), or one a
/// killed keyless left. It holds the profile, so a new launch would fail: keyless attaches to it
/// instead, through the DevTools address it left in the profile, and the last keyless using it
/// closes it.
async fn adopt(profile: &Path) -> Result<Option<Adopted>, Failure> {
    let Some(pid) = profile_owner(profile) else {
        return Ok(None);
    };
    let in_use = || {
        connection(format!(
            "the browser profile {} is in use by another browser (process {pid}) that keyless cannot attach to; close that browser or pass another --profile",
            profile.display()
        ))
    };
    let Ok(active) = std::fs::read_to_string(profile.join("DevToolsActivePort")) else {
        return Err(in_use());
    };
    let mut lines = active.lines();
    let (Some(port), Some(path)) = (lines.next(), lines.next()) else {
        return Err(in_use());
    };
    let url = format!("ws://127.0.0.1:{}{}", port.trim(), path.trim());
    match tokio::time::timeout(ADOPT_TIMEOUT, Browser::connect_with_config(url, attached())).await {
        Ok(Ok((browser, handler))) => {
            tracing::info!(pid, "attached to the browser left running on this profile");
            Ok(Some((browser, handler, pid)))
        }
        _ => Err(in_use()),
    }
}

/// How keyless attaches to a browser. chromiumoxide attaches to every page of the browser and,
/// by default, emulates an 800×600 screen on each: in the user's own browser that would
/// squeeze all their tabs while keyless runs. No emulation: every page stays as its window.
fn attached() -> HandlerConfig {
    HandlerConfig {
        viewport: None,
        request_timeout: CDP_TIMEOUT,
        ..HandlerConfig::default()
    }
}

/// A left-over browser: the connection and its process id.
type Adopted = (Browser, chromiumoxide::Handler, i32);

/// How long attaching to a left-over browser may take.
const ADOPT_TIMEOUT: Duration = Duration::from_secs(5);

/// The live process holding the profile's lock (`SingletonLock` → `host-pid`), if any.
fn profile_owner(profile: &Path) -> Option<i32> {
    let target = std::fs::read_link(profile.join("SingletonLock")).ok()?;
    let pid: i32 = target.to_str()?.rsplit('-').next()?.parse().ok()?;
    crate::exec::process_alive(pid).then_some(pid)
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

/// Ending: a launched browser closed or killed, an attached one left with its tab closed; a
/// browser other keyless processes use too is left to them, with only this one's tab closed.
impl Tab {
    /// Kills a launched browser at once, as a crash would (tests and emergencies).
    pub(super) fn kill_browser(&mut self) {
        let browser = &mut self.browser;
        let process = &mut self.browser_process;
        self.runtime.block_on(async {
            match process {
                Some(child) => {
                    let _ = child.kill().await;
                }
                // A browser found on the profile: no process handle, only its pid.
                None => {
                    let _ = tokio::time::timeout(CLOSE_WAIT, browser.kill()).await;
                }
            }
        });
    }

    /// Waits for this profile's turn to find, launch or close its browser (none in the user's
    /// own browser).
    fn launch_turn(&self) -> Option<Lock> {
        match &self.reach.cdp_url {
            Some(_) => None,
            None => Some(Lock::wait(&self.reach.profile.join(PROFILE_LAUNCH_LOCK))),
        }
    }

    /// Whether another keyless uses this driver's browser now.
    fn shared(&self) -> bool {
        self.profile_share
            .as_ref()
            .is_some_and(crate::claim::Share::shared)
    }

    /// Closes the browser (one on keyless's profile that no other keyless uses), or only the
    /// tab keyless opened (in the user's own browser, attached, or in one shared with other
    /// keyless processes): the chat stays at its address for the next run.
    pub(super) fn close(mut self) {
        // Deciding and closing in turn with the others: one that joins meanwhile finds the
        // browser gone and launches another, never one that is closing.
        let _turn = self.launch_turn();
        if self.reach.cdp_url.is_none() && !self.shared() {
            let browser = &mut self.browser;
            let process = &mut self.browser_process;
            let found = self.browser_pid.filter(|_| process.is_none());
            self.runtime.block_on(async {
                let _ = tokio::time::timeout(CLOSE_WAIT, browser.close()).await;
                // A browser found on the profile saves it and ends as asked; only one that does
                // not within the wait is ended on drop.
                if let Some(pid) = found {
                    let given_up = tokio::time::Instant::now() + CLOSE_WAIT;
                    while crate::exec::process_alive(pid) && tokio::time::Instant::now() < given_up
                    {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
                if let Some(child) = process {
                    let group = child.id().and_then(|id| i32::try_from(id).ok());
                    // A browser that does not end when asked is ended (on drop).
                    if let Ok(Ok(_)) = tokio::time::timeout(CLOSE_WAIT, child.wait()).await
                        && let Some(group) = group
                    {
                        crate::cancel::forget(group);
                    }
                }
            });
        }
        // Drop closes the tab of a browser that stays, and stops the handler.
    }
}

/// How long a browser may take to close when asked (or to answer on the way out).
const CLOSE_WAIT: Duration = Duration::from_secs(5);

impl Drop for Tab {
    /// A tab dropped without `close` (an error on the way out, a test) leaves no tab of
    /// its own behind in a browser that stays (the user's, or one other keyless processes
    /// use). A launched browser no one else uses is killed, with whatever of it still runs in
    /// its process group (its renderers and helpers).
    fn drop(&mut self) {
        let _turn = self.launch_turn();
        let shared = self.shared();
        // This tab's place among the browser's users is given up before the turn passes on (a
        // local declared after the turn goes first): another call deciding next must not count
        // this one, or both would leave the browser to the other.
        let _share = self.profile_share.take();
        let stays = self.reach.cdp_url.is_some() || shared;
        if stays && tokio::runtime::Handle::try_current().is_err() {
            let page = self.page.clone();
            self.runtime.block_on(async {
                let _ = tokio::time::timeout(CLOSE_WAIT, page.close()).await;
            });
        }
        self.handler.abort();
        // A browser found on keyless's profile (another call's, or one a killed keyless left):
        // no process handle, but when no one else uses it now, this was its last user, and it
        // ends with its whole group (a launched browser leads a group of its own).
        if self.browser_process.is_none()
            && !stays
            && let Some(pid) = self.browser_pid
        {
            #[cfg(unix)]
            // SAFETY: getpgid, killpg and kill have no memory preconditions; the pid is the
            // browser holding keyless's own profile, and only a group it leads is ended whole.
            unsafe {
                if libc::getpgid(pid) == pid {
                    libc::killpg(pid, libc::SIGKILL);
                } else {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            crate::cancel::forget(pid);
            return;
        }
        if let Some(mut child) = self.browser_process.take() {
            let group = child.id().and_then(|id| i32::try_from(id).ok());
            if let Some(group) = group {
                crate::cancel::forget(group);
            }
            if shared {
                // The others go on with it; whoever is last closes it.
                return;
            }
            #[cfg(unix)]
            if let Some(group) = group {
                // SAFETY: killpg has no memory preconditions; the group is the browser's own
                // (it was started as its leader), never keyless's.
                unsafe {
                    libc::killpg(group, libc::SIGKILL);
                }
            }
            let _ = child.start_kill();
            // Gone before the turn passes on: the next keyless launches anew.
            if tokio::runtime::Handle::try_current().is_err() {
                self.runtime.block_on(async {
                    let _ = tokio::time::timeout(CLOSE_WAIT, child.wait()).await;
                });
            }
        }
    }
}
