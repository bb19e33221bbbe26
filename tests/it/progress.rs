//! What a person sees: `-v` adds every message and raw reply, `-q` keeps only the outcome, and
//! the turn commands log to `.agent/logs/keyless.log`.

use std::process::{Command, Stdio};

/// The demo keeps its folder for the user to look at; a test removes it once read.
fn remove_demo_folder(output: &str) {
    if let Some(workspace) = output.lines().find_map(|l| {
        l.trim_end_matches('\r')
            .strip_prefix("keyless demo: workspace ")
    }) {
        let _ = std::fs::remove_dir_all(std::path::Path::new(workspace).parent().unwrap());
    }
}

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

    assert!(
        verbose.contains("Summary: 3 batch(es), 5 command(s) ok.\nChanged: greet.sh."),
        "a short summary at the end: {verbose}"
    );

    assert!(
        !verbose.contains('\x1b'),
        "not a terminal, no colour: {verbose}"
    );

    let (stdout, quiet) = demo("-q");
    assert!(!quiet.contains("Summary:"), "{quiet}");
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
    remove_demo_folder(&verbose);
    remove_demo_folder(&quiet);
}

/// `keyless demo` on a pseudo-terminal (`script`), with the environment given.
fn demo_at_terminal(no_color: bool) -> String {
    let mut command = Command::new("script");
    command
        .args([
            "-qec",
            &format!("{} demo", env!("CARGO_BIN_EXE_keyless")),
            "/dev/null",
        ])
        .stdin(Stdio::null())
        .env_remove("NO_COLOR");
    if no_color {
        command.env("NO_COLOR", "1");
    }
    let out = command
        .output()
        .expect("`script` (bsdutils) gives a terminal");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    remove_demo_folder(&text);
    text
}

#[test]
fn colours_only_on_a_terminal_and_never_with_no_color() {
    let coloured = demo_at_terminal(false);
    assert!(
        coloured.contains("\x1b[32mok\x1b[0m"),
        "results are coloured on a terminal: {coloured}"
    );
    let plain = demo_at_terminal(true);
    assert!(plain.contains("— ok"), "{plain}");
    assert!(!plain.contains("\x1b[3"), "NO_COLOR: {plain}");
    // Output that is not a terminal has no colour: `verbose_and_quiet_…` checks it.
}

#[test]
fn quiet_run_shows_only_what_the_model_says_problems_and_the_outcome() {
    use keyless::chat::local::{LocalChat, Script};
    let chat = LocalChat::start(Script::replies([
        "@@say\n<<<MSG\nWriting the note.\nMSG>>>\n@@end\n@@newfile n.txt\n<<<CONTENT\nn\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\ncat n.txt\nCMD>>>\n@@end\n@@done\n<<<MSG\nWrote n.txt.\nMSG>>>\n@@end\n@@eof\n",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = crate::common::local_keyless::keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["-q", "run", "--mode", "auto", "Write a note"],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout, "Done. Wrote n.txt.\n");
    // Standard error: the model's words, nothing about keyless's own steps.
    assert_eq!(stderr, "model: Writing the note.\n", "{stderr}");
}
