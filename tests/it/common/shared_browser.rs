//! One headless Chromium for the whole test binary. The browser tests attach to it (`--cdp`,
//! `Options::cdp_url`) as keyless attaches to a user's own browser, each in a tab of its own,
//! instead of launching one each: a launch costs about 2.4 CPU-seconds, and the suite opens a
//! few hundred chat pages. A tab behind another is hidden, yet it works: keyless emulates
//! focus on its page, and the flags keep hidden pages' timers at full speed. The tests of launching itself (a killed keyless's browser
//! adopted, the profile claimed, the browser crashing) still launch their own.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The DevTools address of the shared browser, launched on first use.
pub fn cdp_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(launch)
}

fn launch() -> String {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    remove_stale_profiles(&root);
    let profile = root.join(format!("shared-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).unwrap();
    let executable = keyless::chat::cdp::find_browser(None).unwrap();
    let mut cmd = Command::new(executable);
    cmd.args(
        keyless::chat::cdp::LAUNCH_ARGS
            .iter()
            .map(|a| format!("--{a}")),
    )
    .args([
        "--headless",
        "--remote-debugging-port=0",
        "--window-size=1280,900",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg("about:blank")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.arg("--no-sandbox");
    }
    // The browser dies with the test binary: the kernel kills it when the thread that
    // spawned it ends, so it is spawned by a thread that never ends.
    // SAFETY: prctl is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let (sent, spawned) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        sent.send(cmd.spawn().map(|child| child.id())).unwrap();
        loop {
            std::thread::park();
        }
    });
    spawned.recv().unwrap().expect("the shared browser starts");
    devtools_address(&profile)
}

/// The WebSocket address the browser writes into its profile once it listens.
fn devtools_address(profile: &Path) -> String {
    let (port, path) = devtools_active_port(profile);
    format!("ws://127.0.0.1:{port}{path}")
}

/// The DevTools port and browser path that a browser started with `--remote-debugging-port=0`
/// writes into its profile (`DevToolsActivePort`) once it listens, waited for.
pub fn devtools_active_port(profile: &Path) -> (String, String) {
    let started = Instant::now();
    loop {
        if let Ok(active) = std::fs::read_to_string(profile.join("DevToolsActivePort")) {
            let mut lines = active.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return (port.trim().to_string(), path.trim().to_string());
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the browser did not listen within 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Profiles of earlier test binaries that are gone.
fn remove_stale_profiles(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("shared-browser-") else {
            continue;
        };
        let alive = pid
            .parse::<i32>()
            .is_ok_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// [`Options::local_page`](keyless::chat::cdp::Options::local_page), attached to the shared
/// browser.
pub fn local_page(url: String, profile: PathBuf) -> keyless::chat::cdp::Options {
    keyless::chat::cdp::Options {
        cdp_url: Some(cdp_url().to_string()),
        ..keyless::chat::cdp::Options::local_page(url, profile).unwrap()
    }
}
