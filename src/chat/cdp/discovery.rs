//! Discovery on the Rust side: when every selector of a key fails, the page script's finders
//! (`discover.js`) look for the part by its shape, and the selector they make of it goes first
//! for that key for the rest of the session, with one warning naming the key and what was
//! found. What was found and proved is what `keyless doctor --learn` keeps.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::CdpDriver;
use crate::catalog::{Code, Failure};

/// A selector the page script made of a part it found by its shape.
#[derive(Debug, Deserialize)]
pub(super) struct Found {
    pub css: String,
    /// False for a mark keyless put on the element itself: good for this page only.
    pub kept: bool,
}

/// The selectors of the parts keyless found by their shape in a session.
#[derive(Clone, Debug, Default)]
pub struct Learned {
    /// Key to the selector that found it, proved in the exchange.
    pub selectors: BTreeMap<String, String>,
}

impl CdpDriver {
    /// Puts `css` first for `key`, in the page and for every later page of the session, and
    /// says so once per key.
    pub(super) fn heal(&mut self, key: &str, found: Found) -> Result<(), Failure> {
        let had = self
            .options
            .site
            .selectors
            .get(key)
            .is_some_and(|alternatives| !alternatives.is_empty());
        let list = self
            .options
            .site
            .selectors
            .entry(key.to_string())
            .or_default();
        list.retain(|c| *c != found.css);
        list.insert(0, found.css.clone());
        self.api().heal(key, &found.css)?;
        if found.kept {
            self.learned
                .selectors
                .insert(key.to_string(), found.css.clone());
        }
        if self.healed.insert(key.to_string()) {
            let why = if had {
                format!(
                    "none of selectors.json's {key} selectors for {} matched",
                    self.options.site_name
                )
            } else {
                format!(
                    "selectors.json has no {key} selector for {}",
                    self.options.site_name
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
    pub(super) fn discover_composer(&mut self) -> Result<bool, Failure> {
        let css = self.api().discover_composer()?;
        match css {
            Some(css) => {
                self.heal("Composer", Found { css, kept: true })?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Finds the send button by its shape; true when it was found (and healed).
    pub(super) fn discover_send(&mut self) -> Result<bool, Failure> {
        let found = self.api().discover_send()?;
        match found {
            Some(found) => {
                self.heal("SendButton", found)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// After a reply that discovery found and that proved complete: selectors for the turns,
    /// healed for the rest of the session. A turn no selector describes is found again by its
    /// shape in each exchange.
    pub(super) fn learn_turns(&mut self, user_discovered: bool) -> Result<(), Failure> {
        let Some(turns) = self.api().learn_turns()? else {
            return Ok(());
        };
        if user_discovered && let Some(css) = turns.user_message {
            self.heal("UserMessage", Found { css, kept: true })?;
        }
        if let Some(css) = turns.assistant_message {
            self.heal("AssistantMessage", Found { css, kept: true })?;
        }
        Ok(())
    }

    /// A copy control that proved itself; on a page with no completion sign, its showing up is
    /// the sign (a reply gets its copy control once it is finished).
    pub(super) fn heal_copy(&mut self, css: String) -> Result<(), Failure> {
        let no_sign = self
            .options
            .site
            .selectors
            .get("Completed")
            .is_none_or(Vec::is_empty);
        if no_sign {
            self.heal(
                "Completed",
                Found {
                    css: css.clone(),
                    kept: true,
                },
            )?;
        }
        self.heal("CopyButton", Found { css, kept: true })
    }

    /// What discovery found and proved in this session, by key.
    /// The notices of parts found by their shape since the last take (`take_warnings` takes
    /// them too, before the other warnings).
    pub fn take_findings(&mut self) -> Vec<Failure> {
        std::mem::take(&mut self.findings)
    }

    pub fn learned(&self) -> &Learned {
        &self.learned
    }

    /// The site's entry as the session uses it: selectors.json's, with what discovery found
    /// first.
    pub fn site_entry(&self) -> &crate::chat::selectors::Site {
        &self.options.site
    }
}
