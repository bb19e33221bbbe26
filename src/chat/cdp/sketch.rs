//! When the page is not what keyless expects: the failure that names the part no selector
//! (nor discovery) found, and the sketch of the page saved for a report, its structure without
//! the conversation's text.

use std::path::PathBuf;

use super::discovery::Discovery;
use super::tab::Tab;
use crate::catalog::{Code, Failure};

impl Discovery {
    /// Saves a sketch of the page for a failure a changed site explains, once per kind, and
    /// says where it is. Other failures (offline, Ctrl+C, a closed browser) pass unchanged.
    pub(super) fn sketched<T>(
        &mut self,
        tab: &Tab,
        result: Result<T, Failure>,
    ) -> Result<T, Failure> {
        let Err(mut failure) = result else {
            return result;
        };
        let telling = matches!(
            failure.code,
            Code::SelectorNotFound
                | Code::PageNotLoaded
                | Code::SendNotConfirmed
                | Code::ComposerNotClean
                | Code::ReplyTimeout
                | Code::ReplyTruncated
        );
        let Some(folder) = self.sketches.clone() else {
            return Err(failure);
        };
        if !telling || !self.sketched.insert(failure.code) {
            return Err(failure);
        }
        if let Some(path) = self.save_sketch(
            tab,
            &folder,
            &format!("{}: {}", failure.code, failure.reason),
        ) {
            let reason = failure.reason.trim_end().trim_end_matches('.');
            failure.reason = format!(
                "{reason}. A sketch of the page (its structure, without the conversation's text) is in {}; attach it to a report if the site changed.",
                path.display()
            );
        }
        Err(failure)
    }

    /// Saves a sketch of the page into `folder` (created if missing): which selector
    /// alternative matched each key, then the elements with their ids, classes and the
    /// attributes selectors use, text only as a length. `None` when the page or the folder
    /// cannot be had.
    pub(super) fn save_sketch(
        &self,
        tab: &Tab,
        folder: &std::path::Path,
        why: &str,
    ) -> Option<PathBuf> {
        // A page that did not load (the browser's error page) never had the helper.
        let sketch = self.api(tab).sketch().ok()?;
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let path = folder.join(format!("page-sketch-{millis}.txt"));
        let header = format!(
            "keyless {}: the {} page, sketched because of {why}\n",
            env!("CARGO_PKG_VERSION"),
            self.site_name,
        );
        std::fs::create_dir_all(folder).ok()?;
        std::fs::write(&path, format!("{header}{sketch}")).ok()?;
        Some(path)
    }

    pub(super) fn selector_not_found(&self, key: &str, why: &str) -> Failure {
        let alternatives = self.site.selectors.get(key).cloned().unwrap_or_default();
        let tried = if alternatives.is_empty() {
            "selectors.json has no selector for it".to_string()
        } else {
            format!(
                "none of these selectors matched: {}",
                alternatives.join("  |  ")
            )
        };
        Failure::new(
            Code::SelectorNotFound,
            format!(
                "the {} page has no {key} element: {tried}, and nothing on the page has its shape.{why} Run `keyless doctor` to check the selectors.",
                self.site_name
            ),
        )
    }
}
