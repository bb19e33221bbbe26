//! Finding and launching Chrome/Chromium, or attaching to a running one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::{Browser, BrowserConfig, Page};
use futures::StreamExt;

use super::{CDP_TIMEOUT, Options, bounded, connection};
use crate::catalog::Failure;

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

pub(super) async fn open_browser(
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
