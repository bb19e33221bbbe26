//! Waiting until the chat page is usable: its composer shows (found by the selectors, or by
//! its shape), or the page says why not: a login wall or a bot check (waited out in a window
//! the person can see), an HTTP error page, or a page that is not a chat at all.
//!
//! While a bot check shows, no script runs in the page: such checks re-arm while a debugger
//! evaluates script, so keyless watches only what the browser reports of the tab (its address
//! and title, [`super::tab::Tab::shown`]) and looks into the page again once that changes.

use std::time::{Duration, Instant};

use super::{CdpDriver, DISCOVERY_GRACE, LOGIN_GRACE, PAGE_READY, PageState, navigate, site_said};
use crate::catalog::{Code, Failure};
use crate::chat::trouble::{Kind, Notice};

impl CdpDriver {
    /// Waits until the page shows its composer (and says why not: a login wall, a bot check, a
    /// wrong page). A login wall or a bot check in a browser the user can see is waited out
    /// (`Options::login_wait`): the user deals with it there, and keyless goes on by itself.
    pub(super) fn wait_ready(&mut self) -> Result<(), Failure> {
        self.wait_ready_behind(None)
    }

    /// [`CdpDriver::wait_ready`] behind a wall the turn already met (`wall`: a login wall or a
    /// bot check named by its words or by the site's answer): while the tab stays at the
    /// address it showed then, it is that wall even where the page's look does not recognise it
    /// (a sign-in page in words keyless does not know), so the person is told at once and given
    /// the time to deal with it, and its form is never taken for the chat's composer.
    pub(super) fn wait_ready_behind(&mut self, wall: Option<Kind>) -> Result<(), Failure> {
        let started = Instant::now();
        let mut told = false;
        let wall_at = wall.and_then(|_| self.tab.shown().ok()).map(|(url, _)| url);
        loop {
            // A page that navigates (as a login does) loses the helper and may fail a call in
            // the middle: only a browser that is gone ends the wait early.
            // A bot check the browser reports (the site's answer said so) is not looked into.
            // What the tab shows is taken before it is judged, so that a check passed while it
            // was judged is seen at once as a change.
            let seen = self.tab.seen();
            let state = match self.tab.check_shown() {
                Some(words) => PageState::bot_check(words),
                None => {
                    let page = self.api();
                    let ready = page.install().and_then(|()| page.exists("Composer"));
                    match ready {
                        Ok(true) => {
                            let _ = self.api().observe();
                            return Ok(());
                        }
                        Err(failure) if !self.tab.alive() => return Err(failure),
                        _ => {}
                    }
                    self.api().state().unwrap_or_default()
                }
            };
            let mut state = state;
            if let Some(at) = &wall_at
                && self.tab.shown().is_ok_and(|(url, _)| &url == at)
            {
                state.login |= wall == Some(Kind::LoginWall);
                state.challenge |= wall == Some(Kind::BotCheck);
            }
            // No selector finds the composer: look for it by its shape (never on a login wall
            // or a bot check, whose fields are not a chat's).
            let known = self.discovery.knows("Composer");
            if !state.login
                && !state.challenge
                && (!known || started.elapsed() >= DISCOVERY_GRACE)
                && self.discovery.discover_composer(&self.tab).unwrap_or(false)
            {
                let _ = self.api().observe();
                return Ok(());
            }
            let login_wait = self.tab.reach.login_wait;
            // A login or a bot check needs the person: in a window, they get time for it.
            let blocked = if state.login {
                Some("asks you to log in: log in")
            } else if state.challenge {
                Some("shows a bot check: pass it")
            } else {
                None
            };
            let limit = match blocked {
                Some(what) if !login_wait.is_zero() => {
                    if !told {
                        told = true;
                        if let Some(notice) = self.tab.reach.notice {
                            notice(&format!(
                                "{} {what} in the browser window keyless opened (profile {}); keyless goes on by itself once the chat shows its message box. Waiting up to {} minutes; Ctrl+C stops.",
                                self.discovery.site_name,
                                self.tab.reach.profile.display(),
                                login_wait.as_secs().div_ceil(60)
                            ));
                        }
                    }
                    login_wait
                }
                // Nobody can act on it (no window): say so soon.
                Some(_) => LOGIN_GRACE,
                // An HTTP error page is soon known not to be a chat.
                None if navigate::shown_error(&self.api()).is_some() => {
                    navigate::ERROR_STATUS_GRACE
                }
                None => PAGE_READY,
            };
            if crate::cancel::requested() {
                return Err(Failure::new(
                    Code::Cancelled,
                    "stopped while waiting for the chat page (Ctrl+C)",
                ));
            }
            // A bot check is left alone until the browser shows the tab changed.
            if state.challenge && !self.watch_check(&seen, started, limit)? {
                return Err(self.wall_unpassed(&state));
            }
            if started.elapsed() > limit && (state.login || state.challenge) {
                return Err(self.wall_unpassed(&state));
            }
            if started.elapsed() > limit {
                if let (false, false, Some((status, url))) = (
                    state.login,
                    state.challenge,
                    navigate::shown_error(&self.api()),
                ) {
                    return Err(navigate::error_status(&url, status));
                }
                let far = self.api().far_frames().unwrap_or_default();
                let why = far_frames_said(&far);
                return Err(self.discovery.selector_not_found("Composer", &why));
            }
            if !state.challenge {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// The failure for a login wall or a bot check still in the chat's place when its wait
    /// ended (at once where no window shows it): `KA_LOGIN_REQUIRED` or `KA_BOT_CHECK`, in the
    /// page's words, never a composer not found.
    fn wall_unpassed(&self, state: &PageState) -> Failure {
        let clock = site_said::clock_now();
        let kind = if state.challenge {
            Kind::BotCheck
        } else {
            Kind::LoginWall
        };
        let notice = state
            .trouble(usize::MAX, false, &self.extra(), clock)
            .map(|seen| seen.notice)
            .filter(|notice| notice.kind == kind)
            .filter(|notice| !notice.words.is_empty())
            .unwrap_or(Notice {
                kind,
                words: document_title(&self.tab),
                resets_in: None,
            });
        let mut failure = site_said::trouble_failure(&notice, clock);
        let what = match kind {
            Kind::BotCheck => "shows a bot check",
            _ => "asks you to log in",
        };
        failure.reason = format!(
            "the {} page {what} where the chat should be; {}",
            self.discovery.site_name, failure.reason
        );
        failure
    }

    /// Watches a bot check from outside the page until the browser shows the tab changed since
    /// `before` (its address, its title, or a new answer for its document: true, time to look
    /// into the page again) or the wait started at `started` passed `limit` (false). Ctrl+C and
    /// a browser that is gone end it with their failure.
    fn watch_check(
        &self,
        before: &super::tab::Seen,
        started: Instant,
        limit: Duration,
    ) -> Result<bool, Failure> {
        loop {
            if crate::cancel::requested() {
                return Err(Failure::new(
                    Code::Cancelled,
                    "stopped while waiting for the chat page (Ctrl+C)",
                ));
            }
            if started.elapsed() > limit {
                return Ok(false);
            }
            if &self.tab.seen() != before {
                return Ok(true);
            }
            std::thread::sleep(CHECK_WATCH);
            // A tab between documents may not answer for a moment: only a browser that is gone
            // ends the watch early.
            if let Err(failure) = self.tab.shown()
                && !self.tab.alive()
            {
                return Err(failure);
            }
        }
    }
}

/// The tab's title as the browser reports it (the words of a page no script looked into).
fn document_title(tab: &super::tab::Tab) -> String {
    tab.shown().map(|(_, title)| title).unwrap_or_default()
}

/// How often a bot check is looked at from outside the page.
const CHECK_WATCH: Duration = Duration::from_millis(250);

/// Words for the frames from another origin on a page where no composer was found: keyless
/// cannot look into them (the browser keeps each origin's page to itself), so a chat inside
/// one is opened at its own address.
fn far_frames_said(far: &[String]) -> String {
    const NAMED: usize = 3;
    if far.is_empty() {
        return String::new();
    }
    let named: Vec<&str> = far
        .iter()
        .take(NAMED)
        .map(|s| {
            if s.is_empty() {
                "with no address"
            } else {
                s.as_str()
            }
        })
        .collect();
    format!(
        " The page shows {} from another origin ({}), which keyless cannot look into: if the chat is inside it, open that address with --url.",
        if far.len() == 1 { "a frame" } else { "frames" },
        named.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::far_frames_said;

    #[test]
    fn far_frames_are_named_and_nothing_is_said_without_them() {
        assert_eq!(far_frames_said(&[]), "");
        let said = far_frames_said(&["http://localhost:9/".into()]);
        assert!(
            said.contains("a frame from another origin (http://localhost:9/)"),
            "{said}"
        );
        assert!(said.contains("--url"), "{said}");
    }
}
