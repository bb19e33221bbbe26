//! The person's attachments on the page: what the page takes (a file input, how many files a
//! message), and the files handed to its file input one by one, each confirmed by a chip with
//! its name in the composer's area before the message's text goes in.
//!
//! What it does not do: decide how the files go (`chat::attach::plan`), or keep them past the
//! message they went with (the composer forgets them once a send is confirmed). A refusal the
//! page shows (a failed chip, an alert, a toast) stops with the site's own words
//! (`KA_ATTACHMENT_REFUSED`); a chip that does not come within the bound stops too
//! (`KA_ATTACHMENT_NOT_CONFIRMED`); neither sends anything.

use std::time::{Duration, Instant};

use super::CdpDriver;
use super::page_api::PageApi;
use crate::catalog::{Code, Failure};
use crate::chat::attach::{DEFAULT_MAX_FILES, PageTakes, Upload};

/// How long the page may take to react to files handed over before it is given the events of a
/// person's choice (a framework that does not hear what the protocol sets).
const NUDGE_AFTER: Duration = Duration::from_millis(1500);
/// How long a chip, once all show settled, is watched for the site changing its mind (a chip
/// drawn at once and marked failed when the upload ends), before the next file goes.
const SETTLE: Duration = Duration::from_millis(300);
/// The same watch once the last file's chip settled, a little longer: a chip that shows busy
/// while the site checks the file (a scan, a quota) is not settled until its verdict, so this
/// only catches a site that flips a settled chip to failed at once. Paid once a message, not
/// once a file; with the upload itself it keeps a 1 MB file's cost under a second
/// (`cargo bench --bench chat -- attach`).
const LAST_WATCH: Duration = Duration::from_millis(400);
/// How often the composer is looked at while a chip is awaited.
const LOOK_EVERY: Duration = Duration::from_millis(50);
/// The folder in the browser profile the files are written to for the file input (the
/// browser reads them from there); emptied before each message's files.
const FOLDER: &str = "keyless-files";

impl CdpDriver {
    /// What the page takes of the person's files now.
    pub(super) fn takes_files(&mut self) -> Result<PageTakes, Failure> {
        let file_input = self.api().has_file_input()?;
        let max_files = self
            .discovery
            .site
            .max_attachments
            .unwrap_or(DEFAULT_MAX_FILES);
        Ok(PageTakes {
            file_input,
            max_files,
        })
    }

    /// Hands the composer's pending files to the page's file input one by one, each confirmed
    /// by its chip (by its name) before the next; the composer is clean of the message's text.
    pub(super) fn upload_pending(&self) -> Result<(), Failure> {
        let files = &self.composer.files;
        if files.is_empty() {
            return Ok(());
        }
        let page = self.api();
        let paths = write_out(&page, files)?;
        if !page.attach_begin()? {
            return Err(Failure::new(
                Code::AttachmentNotSupported,
                "the page has no file input (AttachmentInput, or an input[type=file] by the composer) to attach the files with; nothing was sent",
            ));
        }
        let mut names: Vec<String> = Vec::new();
        for (n, (file, path)) in files.iter().zip(paths).enumerate() {
            names.push(file.name.clone());
            let watch = if n + 1 == files.len() {
                LAST_WATCH
            } else {
                SETTLE
            };
            if !page.choose_files(vec![path])? {
                return Err(Failure::new(
                    Code::AttachmentNotSupported,
                    format!(
                        "the page's file input went away before {} could be handed to it; nothing was sent",
                        file.name
                    ),
                ));
            }
            self.await_chips(&page, &names, watch)?;
        }
        Ok(())
    }

    /// Waits until a settled chip shows each of `names` (the newest last) and all stay so for
    /// `watch`, nudging the input once when the page does not react; a refusal the page shows
    /// ends the wait with its words.
    fn await_chips(
        &self,
        page: &PageApi<'_>,
        names: &[String],
        watch: Duration,
    ) -> Result<(), Failure> {
        let newest = names.last().map(String::as_str).unwrap_or_default();
        let started = Instant::now();
        let mut nudged = false;
        let mut all_since: Option<Instant> = None;
        loop {
            let look = page.attach_look(names)?;
            if let Some(words) = look.refused.first().or(look.notices.first()) {
                return Err(Failure::new(
                    Code::AttachmentRefused,
                    format!(
                        "the site refused {newest}: \"{words}\"; nothing was sent (attach another file, or fewer)"
                    ),
                ));
            }
            if look.showing.len() == names.len() {
                let since = *all_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= watch {
                    tracing::info!(file = newest, "attachment confirmed by its chip");
                    return Ok(());
                }
            } else {
                all_since = None;
            }
            if !nudged && started.elapsed() >= NUDGE_AFTER && look.showing.len() < names.len() {
                nudged = true;
                page.attach_nudge()?;
            }
            if started.elapsed() >= self.composer.attach_wait {
                let missing: Vec<&str> = names
                    .iter()
                    .filter(|n| !look.showing.contains(n))
                    .map(String::as_str)
                    .collect();
                return Err(Failure::new(
                    Code::AttachmentNotConfirmed,
                    format!(
                        "no chip named {} (new since the files went, naming the whole file, done uploading) showed in the composer within {}s after the file went to the page's file input; nothing was sent (run keyless doctor, or check the AttachmentChip selectors)",
                        missing.join(", "),
                        self.composer.attach_wait.as_secs()
                    ),
                ));
            }
            std::thread::sleep(LOOK_EVERY);
        }
    }
}

/// Writes `files` where the browser reads them, in a folder of their own per message; their
/// paths, in order.
fn write_out(page: &PageApi<'_>, files: &[Upload]) -> Result<Vec<String>, Failure> {
    let failed = |e: std::io::Error| {
        Failure::new(
            Code::AttachmentNotConfirmed,
            format!("cannot write the files for the page to read: {e}; nothing was sent"),
        )
    };
    let folder = page.tab().reach.profile.join(FOLDER);
    // Earlier messages' files went with them; only this message's are kept.
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).map_err(failed)?;
    let mut paths = Vec::new();
    for file in files {
        let path = folder.join(&file.name);
        std::fs::write(&path, &file.bytes).map_err(failed)?;
        paths.push(path.to_string_lossy().into_owned());
    }
    Ok(paths)
}
