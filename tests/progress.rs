//! What a person sees: `-v` adds every message and raw reply, `-q` keeps only the outcome, and
//! the turn commands log to `.agent/logs/keyless.log`.

use std::process::{Command, Stdio};

fn demo(flag: &str) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["demo", flag])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn verbose_and_quiet_change_what_is_shown_and_logs_are_kept() {
    let (_, verbose) = demo("-v");
    assert!(verbose.contains("→ sending the task"), "{verbose}");
    assert!(
        verbose.contains("You are a coding agent"),
        "the message itself is shown: {verbose}"
    );
    assert!(
        verbose.contains("@@createfile greet.sh"),
        "raw replies are shown: {verbose}"
    );
    assert!(
        verbose.contains("#3 runcommand sh greet.sh keyless [Execute] — ok"),
        "commands show their tier: {verbose}"
    );

    let (stdout, quiet) = demo("-q");
    assert!(stdout.contains("Done: greet.sh prints"), "{stdout}");
    assert!(!quiet.contains("→ sending"), "{quiet}");
    assert!(!quiet.contains("keyless: running"), "{quiet}");
    assert!(
        quiet.contains("model: I will write a small greeting script"),
        "the model's @@say still reaches the user: {quiet}"
    );

    let workspace = quiet
        .lines()
        .find_map(|l| l.strip_prefix("keyless demo: workspace "))
        .unwrap();
    let log = std::fs::read_to_string(format!("{workspace}/.agent/logs/keyless.log")).unwrap();
    assert!(
        log.contains("INFO keyless::turn: sending") && log.contains("turn ended stop=Done"),
        "{log}"
    );
}
