//! The environment snapshot's user scripts: their output reaches the first message, and a
//! missing or failing script is a warning with its code while everything goes on.

use std::process::Command;

#[test]
fn snapshot_scripts_add_output_and_warn_without_stopping() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("ok.sh"), "echo database: postgres 16\n").unwrap();
    std::fs::write(ws.path().join("fails.sh"), "echo broken >&2; exit 3\n").unwrap();
    std::fs::write(ws.path().join("silent.sh"), "true\n").unwrap();
    std::fs::write(
        ws.path().join("keyless.json"),
        r#"{ "Snapshot": { "Tools": [], "Scripts": ["ok.sh", "missing.sh", "fails.sh", "silent.sh"] } }"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["prompt", "task", "--workspace"])
        .arg(ws.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("- ok.sh:\ndatabase: postgres 16\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("KA_SNAPSHOT_MISSING: the snapshot script missing.sh does not exist"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "KA_SNAPSHOT_RUN_FAILED: the snapshot script fails.sh exited with code 3: broken"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("KA_SNAPSHOT_MISSING: the snapshot script silent.sh printed nothing"),
        "{stderr}"
    );
}

#[test]
fn a_first_run_says_there_is_no_saved_session() {
    let ws = tempfile::tempdir().unwrap();
    // No browser is needed to see the message: the site is unreachable on purpose.
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args([
            "run",
            "task",
            "--site",
            "local",
            "--url",
            "http://127.0.0.1:9/",
            "--headless",
            "--browser",
            "/no/such/browser",
            "--workspace",
        ])
        .arg(ws.path())
        .env("XDG_CONFIG_HOME", ws.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("KA_SESSION_NOT_FOUND: no saved session in this workspace"),
        "{stderr}"
    );
    assert_eq!(
        out.status.code(),
        Some(4),
        "the unreachable browser is a chat error: {stderr}"
    );
    assert!(stderr.contains("KA_BROWSER_CONNECTION_FAILED"), "{stderr}");
}
