//! Discovery on the Rust side: when every selector of a key fails, the page script's finders
//! (`discover.js`) look for the part by its shape, and the selector they make of it goes first
//! for that key for the rest of the session, with one warning naming the key and what was
//! found. What was found and proved is what `keyless doctor --learn` keeps.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use super::page_api::{Found, PageApi};
use super::tab::Tab;
use crate::catalog::{Code, Failure};
use crate::chat::selectors::Site;

/// The selectors of the parts keyless found by their shape in a session.
#[derive(Clone, Debug, Default)]
pub struct Learned {
    /// Key to the selector that found it, proved in the exchange.
    pub selectors: BTreeMap<String, String>,
}

/// The discovery part: the site's entry as the session uses it (selectors.json's, with what
/// was found by shape first), what was found and proved, and the notices not yet taken.
#[derive(Debug)]
pub(super) struct Discovery {
    /// The site's name, for the notices.
    pub(super) site_name: String,
    /// The site's entry, healed as parts are found.
    pub(super) site: Site,
    /// Keys discovery stood in for (each told once).
    healed: HashSet<String>,
    /// What discovery found and proved, for `keyless doctor --learn`.
    learned: Learned,
    /// The notices of parts found by their shape, not yet taken: findings, which `keyless
    /// doctor` tells apart from problems.
    findings: Vec<Failure>,
    /// The failures a sketch of the page was saved for (one each), and where sketches go
    /// (`None`: none is saved).
    pub(super) sketched: HashSet<Code>,
    pub(super) sketches: Option<PathBuf>,
    /// Where what discovery proves is kept as soon as it is proved
    /// (`CdpDriver::keep_learned_in`), and what was kept there last (the selectors and the
    /// insertion strategy).
    pub(super) keep_in: Option<PathBuf>,
    pub(super) kept: Option<(std::collections::BTreeMap<String, String>, Option<String>)>,
}

impl Discovery {
    pub(super) fn new(site_name: String, site: Site, sketches: Option<PathBuf>) -> Discovery {
        Discovery {
            site_name,
            site,
            healed: HashSet::new(),
            learned: Learned::default(),
            findings: Vec::new(),
            sketched: HashSet::new(),
            sketches,
            keep_in: None,
            kept: None,
        }
    }

    /// The page in `tab`, called with the site's selectors as the session has them.
    pub(super) fn api<'d>(&'d self, tab: &'d Tab) -> PageApi<'d> {
        PageApi::new(tab, &self.site)
    }

    /// Whether selectors.json (or healing) gives `key` any selector.
    pub(super) fn knows(&self, key: &str) -> bool {
        self.site
            .selectors
            .get(key)
            .is_some_and(|alternatives| !alternatives.is_empty())
    }

    /// Puts `css` first for `key`, in the page and for every later page of the session, and
    /// says so once per key. A part found by its shape that one of the key's selectors already
    /// names (a slow page drew it after the selectors' grace) goes first quietly: nothing was
    /// healed, and nothing new is learned.
    pub(super) fn heal(&mut self, tab: &Tab, key: &str, found: Found) -> Result<(), Failure> {
        let had = self.knows(key);
        let list = self.site.selectors.entry(key.to_string()).or_default();
        let named = list.contains(&found.css);
        list.retain(|c| *c != found.css);
        list.insert(0, found.css.clone());
        self.api(tab).heal(key, &found.css)?;
        if named {
            return Ok(());
        }
        if found.kept {
            self.learned
                .selectors
                .insert(key.to_string(), found.css.clone());
        }
        if self.healed.insert(key.to_string()) {
            let why = if had {
                format!(
                    "none of selectors.json's {key} selectors for {} matched",
                    self.site_name
                )
            } else {
                format!(
                    "selectors.json has no {key} selector for {}",
                    self.site_name
                )
            };
            let keep = if found.kept {
                " `keyless doctor --learn` keeps it for the next runs."
            } else {
                " No lasting selector describes it; keyless looks for it again on each page."
            };
            self.findings.push(Failure::new(
                Code::SelectorNotFound,
                format!(
                    "{why}; keyless found the {key} by its shape instead: {}.{keep}",
                    found.css
                ),
            ));
        }
        Ok(())
    }

    /// Finds the composer by its shape; true when it was found (and healed).
    pub(super) fn discover_composer(&mut self, tab: &Tab) -> Result<bool, Failure> {
        let css = self.api(tab).discover_composer()?;
        match css {
            Some(css) => {
                self.heal(tab, "Composer", Found { css, kept: true })?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Finds the send button by its shape; true when it was found (and healed).
    pub(super) fn discover_send(&mut self, tab: &Tab) -> Result<bool, Failure> {
        let found = self.api(tab).discover_send()?;
        match found {
            Some(found) => {
                self.heal(tab, "SendButton", found)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// After a reply that discovery found and that proved complete: selectors for the turns,
    /// healed for the rest of the session. A turn no selector describes is found again by its
    /// shape in each exchange.
    pub(super) fn learn_turns(&mut self, tab: &Tab, user_discovered: bool) -> Result<(), Failure> {
        let Some(turns) = self.api(tab).learn_turns()? else {
            return Ok(());
        };
        if user_discovered && let Some(css) = turns.user_message {
            self.heal(tab, "UserMessage", Found { css, kept: true })?;
        }
        if let Some(css) = turns.assistant_message {
            self.heal(tab, "AssistantMessage", Found { css, kept: true })?;
        }
        Ok(())
    }

    /// A copy control that proved itself; on a page with no completion sign, its showing up is
    /// the sign (a reply gets its copy control once it is finished).
    pub(super) fn heal_copy(&mut self, tab: &Tab, css: String) -> Result<(), Failure> {
        if !self.knows("Completed") {
            self.heal(
                tab,
                "Completed",
                Found {
                    css: css.clone(),
                    kept: true,
                },
            )?;
        }
        self.heal(tab, "CopyButton", Found { css, kept: true })
    }

    /// The notices of parts found by their shape since the last take.
    pub(super) fn take_findings(&mut self) -> Vec<Failure> {
        std::mem::take(&mut self.findings)
    }

    /// What discovery found and proved in this session, by key.
    pub(super) fn learned(&self) -> &Learned {
        &self.learned
    }
}
