//! Errors that say what happened, through the built binary: a chat page that never loads is
//! named as such (the address and the browser's error) within seconds, with the page sketch the
//! README promises; a browser with no display to open its window on says so and suggests
//! `--headless`; `keyless status` with a configuration it cannot read reports it and exits 2.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How soon a page that cannot load must be reported (the promise).
const PROMPTLY: Duration = Duration::from_secs(5);
/// How soon an HTTP error page must be: it is given a moment to turn out to be a chat after
/// all (`ERROR_STATUS_GRACE`, 2 s), and the tests share two cores.
const ERROR_PAGE: Duration = Duration::from_secs(8);

/// The exit status of a browser or chat error.
const CHAT_ERROR: i32 = 4;

/// `keyless run` on `url`, in a tab of the shared browser.
fn run_at(url: &str, ws: &Path) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args([
            "run",
            "a task",
            "--site",
            "local",
            "--headless",
            "--url",
            url,
        ])
        .arg("--workspace")
        .arg(ws)
        .arg("--profile")
        .arg(ws.join("profile"))
        .args(["--cdp", crate::common::shared_browser::cdp_url()])
        .env("XDG_CONFIG_HOME", ws.join("config"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out, started.elapsed())
}

/// A port of 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A server that answers every request with `status` and `body`, for as long as the test runs.
fn answering(status: &str, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/chat", listener.local_addr().unwrap());
    let status = status.to_string();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// The page sketches saved in the workspace.
fn sketches(ws: &Path) -> Vec<String> {
    std::fs::read_dir(ws.join(".agent/logs"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.starts_with("page-sketch-") && name.ends_with(".txt"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_chat_page_that_never_loads_is_named_promptly_with_its_error_and_a_sketch() {
    let refused = format!("http://127.0.0.1:{}/", closed_port());
    let not_found = answering(
        "404 Not Found",
        "<html><body><h1>No such page</h1></body></html>",
    );
    let empty_error = answering("503 Service Unavailable", "");
    let cases = [
        // Nothing listens there.
        (
            refused.as_str(),
            "(net::ERR_CONNECTION_REFUSED): nothing answers at that address",
            PROMPTLY,
        ),
        // The issue's own address: Chromium never connects to port 1.
        ("http://127.0.0.1:1/", "(net::ERR_UNSAFE_PORT)", PROMPTLY),
        // The name does not resolve (`.invalid` never does, RFC 2606).
        (
            "http://chat.keyless.invalid/",
            "(net::ERR_NAME_NOT_RESOLVED): the host name does not resolve",
            PROMPTLY,
        ),
        // A server's own error page, and an error status with an empty page (which the browser
        // names only as ERR_HTTP_RESPONSE_CODE_FAILURE).
        (
            not_found.as_str(),
            "the server answered HTTP 404 (Not Found)",
            ERROR_PAGE,
        ),
        (
            empty_error.as_str(),
            "the server answered HTTP 503 (Service Unavailable)",
            PROMPTLY,
        ),
    ];
    for (url, said, limit) in cases {
        let ws = tempfile::tempdir().unwrap();
        let (out, took) = run_at(url, ws.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(CHAT_ERROR), "{url}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "KA_PAGE_NOT_LOADED: the chat page {url} did not load"
            )),
            "{url}: {stderr}"
        );
        assert!(stderr.contains(said), "{url}: {stderr}");
        assert!(!stderr.contains("Composer"), "not a missing part: {stderr}");
        assert!(took < limit, "{url}: reported after {took:?}");
        // The sketch the README promises, named in the message.
        let saved = sketches(ws.path());
        assert_eq!(saved.len(), 1, "{url}: {saved:?}");
        assert!(stderr.contains(&saved[0]), "{url}: {stderr}");
        let sketch =
            std::fs::read_to_string(ws.path().join(".agent/logs").join(&saved[0])).unwrap();
        assert!(sketch.contains("KA_PAGE_NOT_LOADED"), "{sketch}");
        assert!(
            sketch.contains("selector Composer: none matched"),
            "{sketch}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_browser_with_no_display_says_so_and_suggests_headless() {
    let ws = tempfile::tempdir().unwrap();
    // keyless launches its own browser, with a window, where there is no display.
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args([
            "run",
            "a task",
            "--site",
            "local",
            "--url",
            "http://127.0.0.1:9/",
        ])
        .arg("--workspace")
        .arg(ws.path())
        .arg("--profile")
        .arg(ws.path().join("profile"))
        .env("XDG_CONFIG_HOME", ws.path().join("config"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(CHAT_ERROR), "{stderr}");
    assert!(
        stderr.contains("KA_BROWSER_CONNECTION_FAILED: the browser ended"),
        "{stderr}"
    );
    assert!(
        stderr.contains("there is no display to open its window on"),
        "{stderr}"
    );
    assert!(stderr.contains("Run keyless with --headless"), "{stderr}");
    // The line of the browser's that says it, not a page of its noise.
    assert!(stderr.contains("It said: "), "{stderr}");
    assert!(!stderr.contains("dbus"), "{stderr}");
}

/// `keyless status` in `ws` with `args`.
fn status(ws: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_keyless"))
        .arg("status")
        .args(args)
        .arg("--workspace")
        .arg(ws)
        .env("XDG_CONFIG_HOME", ws.join("config"))
        .output()
        .unwrap()
}

#[test]
fn status_reports_a_configuration_it_cannot_read_and_exits_2() {
    let ws = tempfile::tempdir().unwrap();
    let missing = ws.path().join("nowhere.json");
    let out = status(ws.path(), &["--config", missing.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "keyless status: KA_CONFIG_INVALID: the configuration file {} does not exist",
            missing.display()
        )),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no settings printed");

    std::fs::write(
        ws.path().join("keyless.json"),
        "{\"Agent\": {\"Mode\": \"auto\",}",
    )
    .unwrap();
    let out = status(ws.path(), &["--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("KA_CONFIG_INVALID"), "{stderr}");
    assert!(stderr.contains("line 1, column"), "{stderr}");
    assert!(out.stdout.is_empty(), "no JSON printed");

    std::fs::write(
        ws.path().join("keyless.json"),
        "{\"Agent\": {\"Moode\": \"auto\"}}",
    )
    .unwrap();
    let out = status(ws.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("KA_CONFIG_VALIDATION") && stderr.contains("Agent.Moode"),
        "{stderr}"
    );

    // A good one is shown as a run would use it.
    std::fs::write(
        ws.path().join("keyless.json"),
        "{\"Agent\": {\"Mode\": \"autosafe\"}}",
    )
    .unwrap();
    let out = status(ws.path(), &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("(mode AutoSafe)"), "{stdout}");
}
