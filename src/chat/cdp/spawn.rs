//! Starting the browser's process: keyless spawns Chrome/Chromium itself (chromiumoxide's
//! launcher gives no say in how the process starts) and attaches to the DevTools address the
//! browser prints on its standard error (kept in `keyless-browser.log` in the profile).
//!
//! Why not chromiumoxide's `Browser::launch`: it starts the browser in keyless's own process
//! group. In a terminal, Ctrl+C goes to the whole foreground process group, so one Ctrl+C meant
//! to stop a command or a wait for a reply also ended the browser, and every later line of
//! `keyless interactive` failed. Here the browser gets a process group of its own, which no
//! key pressed in the terminal reaches; it still ends with keyless (`launch.rs` kills it when
//! keyless drops it, as chromiumoxide did, unless another keyless still uses it), and outlives
//! only a keyless that was killed, which the next keyless takes over (`launch::adopt`).
//!
//! What the browser says before it is ready is kept: when it ends or hangs before printing
//! its address, the failure says why in words (no display: use `--headless`), with its last
//! lines for the rest.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use super::{DriverError, connection};
use crate::catalog::Failure;

/// How long the browser may take to print its DevTools address (a cold start on a loaded
/// machine, a first run creating its profile).
pub(super) const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);

/// The window's size when there is one: room for a chat and its composer.
const WINDOW_SIZE: &str = "1280,900";

/// How much of the browser's standard error a failure quotes (its last lines).
const STDERR_QUOTED: usize = 600;

/// What the browser prints when it is ready, before the address.
const LISTENING: &str = "DevTools listening on ";

/// How a browser is launched.
pub(super) struct Launch<'a> {
    pub executable: &'a Path,
    pub profile: &'a Path,
    /// The flags, without leading dashes.
    pub args: &'a [&'a str],
    pub headless: bool,
    /// Without the browser's own sandbox (it refuses to start as root with one).
    pub no_sandbox: bool,
}

/// A browser process keyless started: its DevTools address and the process, which is killed
/// when this is dropped.
pub(super) struct Spawned {
    pub ws_url: String,
    pub child: Child,
}

/// The command line for `launch`, flags with their dashes.
fn arguments(launch: &Launch) -> Vec<String> {
    let mut args: Vec<String> = launch.args.iter().map(|a| format!("--{a}")).collect();
    args.extend([
        // Port 0: the browser picks a free one and prints it.
        "--remote-debugging-port=0".to_string(),
        "--disable-extensions".to_string(),
        format!("--user-data-dir={}", launch.profile.display()),
        format!("--window-size={WINDOW_SIZE}"),
    ]);
    if launch.no_sandbox {
        args.extend(["--no-sandbox".into(), "--disable-setuid-sandbox".into()]);
    }
    if launch.headless {
        args.extend([
            "--headless".into(),
            "--hide-scrollbars".into(),
            "--mute-audio".into(),
        ]);
    }
    args
}

/// Starts the browser in a process group of its own and waits for its DevTools address.
pub(super) async fn spawn(launch: &Launch<'_>) -> Result<Spawned, Failure> {
    // The real file (a snap's launcher excepted, which must be run by its own path), so that
    // the browser's own sandbox finds its helpers beside it.
    let executable: PathBuf = if launch.executable.to_string_lossy().contains("/snap/") {
        launch.executable.to_path_buf()
    } else {
        std::fs::canonicalize(launch.executable).unwrap_or_else(|_| launch.executable.into())
    };
    // The browser's standard error goes to a file in its profile, not a pipe: a browser that
    // other keyless processes go on using outlives the one that launched it, and a write to a
    // pipe nobody reads any more would end it (SIGPIPE).
    let log_path = launch.profile.join(BROWSER_LOG);
    let log = std::fs::File::create(&log_path).map_err(|source| DriverError::Launch {
        doing: format!("write the browser's log {}", log_path.display()),
        source,
    })?;
    let mut command = Command::new(&executable);
    command
        .args(arguments(launch))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(|source| DriverError::Launch {
        doing: format!("start the browser {}", executable.display()),
        source,
    })?;
    let started = std::time::Instant::now();
    loop {
        let said = std::fs::read_to_string(&log_path).unwrap_or_default();
        if let Some(ws_url) = said.lines().find_map(|line| {
            line.split_once(LISTENING)
                .map(|(_, url)| url.trim())
                .filter(|url| url.starts_with("ws"))
        }) {
            return Ok(Spawned {
                ws_url: ws_url.to_string(),
                child,
            });
        }
        if let Ok(Some(status)) = child.try_wait() {
            // What it printed last may still be on its way to the file.
            let said = std::fs::read_to_string(&log_path).unwrap_or(said);
            let ended = format!("the browser ended ({status}) before it was ready");
            return Err(connection(explain(&ended, &said, launch.headless)));
        }
        if started.elapsed() > LAUNCH_TIMEOUT {
            let _ = child.kill().await;
            let ended = format!(
                "the browser did not say it was ready within {}s",
                LAUNCH_TIMEOUT.as_secs()
            );
            return Err(connection(explain(&ended, &said, launch.headless)));
        }
        tokio::time::sleep(LAUNCH_POLL).await;
    }
}

/// The browser's standard error, in its profile (kept for a report; each launch starts it anew).
pub(super) const BROWSER_LOG: &str = "keyless-browser.log";

/// How often the log is read for the DevTools address while the browser starts.
const LAUNCH_POLL: Duration = Duration::from_millis(50);

/// The failure's words for a browser that never got ready: what is recognised in what it said
/// (no display, a profile held by another browser) with the line that says it, or else its
/// last lines.
pub(super) fn explain(ended: &str, said: &str, headless: bool) -> String {
    let line_with = |needles: &[&str]| {
        said.lines().find(|line| {
            let lower = line.to_ascii_lowercase();
            needles.iter().any(|needle| lower.contains(needle))
        })
    };
    let no_display = line_with(NO_DISPLAY).filter(|_| !headless);
    let in_use = line_with(PROFILE_IN_USE);
    let (hint, line) = if let Some(line) = no_display {
        (
            "there is no display to open its window on (no X server or Wayland compositor: DISPLAY and WAYLAND_DISPLAY are unset or unreachable). Run keyless with --headless (or set Browser.Headless in keyless.json), or where a desktop session runs",
            line,
        )
    } else if let Some(line) = in_use {
        (
            "the profile is in use by another browser; close that browser or pass another --profile",
            line,
        )
    } else {
        let tail = last_chars(said.trim(), STDERR_QUOTED);
        return if tail.is_empty() {
            format!("{ended}. It printed nothing.")
        } else {
            format!("{ended}. It printed:\n{tail}")
        };
    };
    format!("{ended}: {hint}. It said: {}", line.trim())
}

/// What Chromium says when it has no display (X11, then Ozone's Wayland and X11 backends).
const NO_DISPLAY: &[&str] = &[
    "missing x server",
    "$display",
    "cannot open display",
    "failed to connect to wayland",
    "platform failed to initialize",
];

/// What Chromium says when another browser holds the profile.
const PROFILE_IN_USE: &[&str] = &["profile appears to be in use", "processsingleton"];

/// The last `max` bytes of `text`, cut at a line start when there is one, marked when cut.
fn last_chars(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let rest = &text[start..];
    let rest = rest.split_once('\n').map_or(rest, |(_, after)| after);
    format!("[…]\n{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_display_is_named_and_headless_suggested() {
        let said = "[1:1:ERROR:ozone_platform_x11.cc(240)] Missing X server or $DISPLAY\n[1:1:ERROR:env.cc(257)] The platform failed to initialize.  Exiting.\n";
        let text = explain(
            "the browser ended (exit status: 1) before it was ready",
            said,
            false,
        );
        assert!(text.contains("no display"), "{text}");
        assert!(text.contains("--headless"), "{text}");
        assert!(text.contains("Missing X server"), "{text}");
        // Headless never needs a display: no such hint then.
        let text = explain("ended", said, true);
        assert!(!text.contains("--headless"), "{text}");
    }

    #[test]
    fn long_output_is_cut_at_a_line_start() {
        let said = format!("{}\nlast line", "x".repeat(2000));
        let text = last_chars(&said, 100);
        assert_eq!(text, "[…]\nlast line");
    }
}
