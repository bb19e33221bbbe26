//! `keyless interactive` on a pseudo-terminal (`script`, from bsdutils) against the local chat
//! page in headless Chromium: a task runs as a turn, /undo puts it back, /quit leaves.

use std::path::Path;

use keyless::chat::local::{LocalChat, Script};

use crate::common::pty::Pty;

/// The line editor's prompt: keyless is ready for the next line.
const PROMPT: &str = "keyless> ";

/// Runs `keyless interactive` on a pseudo-terminal in `ws` and returns what the terminal
/// showed. Each line is typed once the terminal shows the text given with it and then the
/// prompt (`""`: the prompt alone).
fn at_terminal(chat: &LocalChat, ws: &Path, lines: &[(&str, &str)]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut terminal = start(chat, ws, profile.path(), Browser::Shared);
    for (shown, line) in lines {
        // The line editor reads keys in raw mode: Enter is a carriage return.
        terminal
            .wait_for(shown)
            .wait_for(PROMPT)
            .type_line(line, "\r");
    }
    terminal.finish()
}

/// Which browser keyless uses.
#[derive(PartialEq)]
enum Browser {
    /// The test binary's shared one (`--cdp`).
    Shared,
    /// Its own, launched on the profile, as a user's keyless does.
    Launched,
}

/// Starts `keyless interactive` on a pseudo-terminal in `ws`.
fn start(chat: &LocalChat, ws: &Path, profile: &Path, browser: Browser) -> Pty {
    let mut command = format!(
        "{} interactive --site local --url {} --headless --mode auto --workspace {} --profile {}",
        env!("CARGO_BIN_EXE_keyless"),
        chat.url(),
        ws.display(),
        profile.display(),
    );
    if browser == Browser::Shared {
        command.push_str(" --cdp ");
        command.push_str(crate::common::shared_browser::cdp_url());
    }
    Pty::start(&command, &[("XDG_CONFIG_HOME", profile)])
}

/// Whether a process runs with `profile` on its command line (a browser on it).
fn browser_on(profile: &Path) -> bool {
    let needle = profile.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains(&needle))
            .unwrap_or(false)
    })
}

#[test]
fn ctrl_c_at_the_terminal_stops_the_wait_and_the_browser_stays_for_the_next_line() {
    // The first reply streams slowly enough to be interrupted in the middle.
    let slow = format!(
        "@@say\n<<<MSG\n{}\nMSG>>>\n@@end\n@@done\n<<<MSG\nfirst\nMSG>>>\n@@end\n@@eof\n",
        "a long thought ".repeat(30)
    );
    let mut script = Script::replies([
        slow,
        "@@done\n<<<MSG\nsecond\nMSG>>>\n@@end\n@@eof\n".to_string(),
    ]);
    script.chunk_chars = 10;
    script.chunk_delay = std::time::Duration::from_millis(100);
    let chat = LocalChat::start(script).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut terminal = start(&chat, ws.path(), profile.path(), Browser::Launched);
    terminal
        .wait_for(PROMPT)
        .type_line("think for a while", "\r")
        .wait_for("the model is writing");
    // Ctrl+C as a terminal sends it: the line discipline signals the whole foreground process
    // group (keyless and whatever it started in its group).
    terminal.type_line("\x03", "");
    terminal
        .wait_for("KA_CANCELLED: the turn stopped (Ctrl+C); the next line goes on in the same chat")
        .wait_for(PROMPT)
        .type_line("second thing", "\r")
        .wait_for("Done. second")
        .wait_for(PROMPT)
        .type_line("/quit", "\r");
    let text = terminal.finish();
    assert!(!text.contains("KA_BROWSER_CONNECTION_FAILED"), "{text}");
    assert!(
        !text.contains("Done. first"),
        "the first turn was stopped: {text}"
    );
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert_eq!(
        received[1], "Next task (turn 2; reply in AgentScript v1 only):\nsecond thing\n",
        "the same chat goes on"
    );
    // The browser still ends with keyless (its helper processes a moment after it).
    wait_for_the_browser_to_end(profile.path());
}

/// Waits until no browser runs on `profile`.
fn wait_for_the_browser_to_end(profile: &Path) {
    let started = std::time::Instant::now();
    while browser_on(profile) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the browser on {} outlived keyless",
            profile.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The keyless process working with `profile`.
fn keyless_on(profile: &Path) -> i32 {
    let needle = profile.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline);
            let exe = std::fs::read_link(entry.path().join("exe")).ok()?;
            (exe.ends_with("keyless") && cmdline.contains(&needle)).then_some(pid)
        })
        .expect("keyless runs")
}

#[test]
fn keyless_leaving_at_once_ends_its_browser_too() {
    // A second Ctrl+C: keyless leaves at once, without unwinding.
    let mut script = Script::replies(["@@done\n<<<MSG\nslow\nMSG>>>\n@@end\n@@eof\n"]);
    script.chunk_chars = 5;
    script.chunk_delay = std::time::Duration::from_millis(300);
    let chat = LocalChat::start(script).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut terminal = start(&chat, ws.path(), profile.path(), Browser::Launched);
    terminal
        .wait_for(PROMPT)
        .type_line("a task", "\r")
        .wait_for("the model is writing")
        .type_line("\x03", "")
        .wait_for("the next line goes on in the same chat")
        .wait_for(PROMPT);
    assert!(browser_on(profile.path()), "the first Ctrl+C left it");
    let sent = std::process::Command::new("kill")
        .args(["-INT", &keyless_on(profile.path()).to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    terminal.finish();
    wait_for_the_browser_to_end(profile.path());

    // The terminal closed: SIGHUP, which reaches keyless and not the browser's own group.
    let chat = LocalChat::start(Script::default()).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut terminal = start(&chat, ws.path(), profile.path(), Browser::Launched);
    terminal.wait_for(PROMPT);
    assert!(browser_on(profile.path()), "the browser is open");
    terminal.hang_up();
    wait_for_the_browser_to_end(profile.path());
}

#[test]
fn interactive_local_tries_the_repl_offline_with_confirmations_and_undo() {
    let config = tempfile::tempdir().unwrap();
    let command = format!("{} interactive --local", env!("CARGO_BIN_EXE_keyless"));
    let mut terminal = Pty::start(&command, &[("XDG_CONFIG_HOME", config.path())]);
    // Ask mode: the scripted model's commands are asked for, answered as a person would.
    terminal
        .wait_for("its model is a script")
        .wait_for(PROMPT)
        .type_line("Write greet.sh and run it", "\r")
        .wait_for("run: sh greet.sh keyless [Execute]")
        .wait_for("allow? [y]es / [n]o / [a]lways this session: ")
        .type_line("y", "\n")
        .wait_for("asking the model to resend")
        .wait_for("allow? [y]es / [n]o / [a]lways this session: ")
        .type_line("y", "\n")
        .wait_for("Done. greet.sh prints \"Hello, keyless!\" and is committed.")
        .wait_for(PROMPT)
        .type_line("/undo", "\r")
        .wait_for("restored greet.sh")
        .wait_for(PROMPT)
        .type_line("/quit", "\r");
    let text = terminal.finish();
    let workspace = text
        .lines()
        .find_map(|l| l.strip_prefix("keyless interactive: workspace "))
        .expect("the workspace is named")
        .trim_end()
        .to_string();
    let workspace = Path::new(&workspace);
    // /undo put back the typo fix; the commit stays.
    let script = std::fs::read_to_string(workspace.join("greet.sh")).unwrap();
    assert!(script.contains("echo \"Helo, $name!\""), "{script}");
    assert!(
        text.contains(&format!(
            "the model's work stays in {}",
            workspace.display()
        )),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(workspace.parent().unwrap());
}

#[test]
fn a_line_is_a_turn_and_slash_commands_work() {
    let chat = LocalChat::start(Script::replies([
        "@@newfile todo.txt\n<<<CONTENT\nbuy milk\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nWrote todo.txt.\nMSG>>>\n@@end\n@@eof\n",
        "@@done\n<<<MSG\nNothing to do.\nMSG>>>\n@@end\n@@eof\n",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let text = at_terminal(
        &chat,
        ws.path(),
        &[
            ("", "write a todo list"),
            ("Done. Wrote todo.txt.", "/undo"),
            ("removed todo.txt", "/help"),
            ("/pace [step|balanced|batch]", "/frobnicate"),
            ("Unknown command /frobnicate", "/pace"),
            ("Pace: Balanced.", "/pace fast"),
            ("Usage: /pace step|balanced|batch", "/mode autosafe"),
            ("Mode: AutoSafe.", "/pace step"),
            ("Pace: Step.", "check it"),
            ("Done. Nothing to do.", "/quit"),
        ],
    );
    assert!(text.contains("Done. Wrote todo.txt."), "{text}");
    assert!(
        text.contains("removed todo.txt (it was new; a copy is kept)"),
        "{text}"
    );
    assert!(text.contains("/pace [step|balanced|batch]"), "{text}");
    assert!(text.contains("Unknown command /frobnicate"), "{text}");
    assert!(!ws.path().join("todo.txt").exists(), "undone");
    assert!(
        ws.path().join(".agent/history.txt").is_file(),
        "history is kept"
    );
    // The pace is shown, changed, and the chat is told before the next task.
    assert!(text.contains("Pace: Balanced."), "{text}");
    assert!(text.contains("Pace: Step."), "{text}");
    assert!(text.contains("Usage: /pace step|balanced|batch"), "{text}");
    assert!(text.contains("Mode: AutoSafe."), "{text}");
    assert!(text.contains("Done. Nothing to do."), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(received[0].contains("Task:\nwrite a todo list"));
    assert!(
        received[1].starts_with("The user changed the pace to Step: "),
        "{}",
        received[1]
    );
    assert!(received[1].ends_with("Next task (turn 2; reply in AgentScript v1 only):\ncheck it\n"));
}

#[test]
fn an_interrupted_turn_is_finished_first_and_later_lines_go_on_in_its_chat() {
    let done = |msg: &str| format!("@@done\n<<<MSG\n{msg}\nMSG>>>\n@@end\n@@eof\n");
    let chat = LocalChat::start(Script::replies([done("resumed"), done("second")])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    // As keyless leaves it when killed after saving a reply, before running it.
    std::fs::create_dir(ws.path().join(".agent")).unwrap();
    let session = keyless::turn::record::Session {
        site: "local".into(),
        turn: 1,
        batch: 1,
        task: Some("make a".into()),
        rules: Some("THE RULES".into()),
        in_flight: keyless::turn::record::InFlight::CarryingOut {
            reply: "@@newfile a.txt\n<<<CONTENT\na\nCONTENT>>>\n@@end\n@@eof\n".into(),
        },
        ..Default::default()
    };
    std::fs::write(
        ws.path().join(".agent/session.json"),
        serde_json::to_vec(&session).unwrap(),
    )
    .unwrap();
    let text = at_terminal(
        &chat,
        ws.path(),
        &[("Done. resumed", "second thing"), ("Done. second", "/quit")],
    );
    assert!(
        text.contains("resuming the interrupted turn \"make a\""),
        "{text}"
    );
    assert!(text.contains("Done. resumed"), "{text}");
    assert!(text.contains("Done. second"), "{text}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "a\n"
    );
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(received[0].starts_with("THE RULES\n"), "{}", received[0]);
    assert!(
        received[0].contains("--- result 1/1 | #1 newfile | a.txt ---"),
        "{}",
        received[0]
    );
    assert_eq!(
        received[1],
        "Next task (turn 2; reply in AgentScript v1 only):\nsecond thing\n"
    );
}

/// `/model` and `/effort` choose in the site's picker and read the choice back; the next task
/// goes with them, and a locked model is refused with its code, the choice before kept.
#[test]
fn model_and_effort_are_chosen_from_the_repl_and_read_back() {
    let chat = LocalChat::start(Script {
        page: keyless::chat::local::PageFaults {
            modes: vec!["model-locked".into()],
            ..Default::default()
        },
        ..Script::replies(["@@done\n<<<MSG\nNothing to do.\nMSG>>>\n@@end\n@@eof\n"])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let text = at_terminal(
        &chat,
        ws.path(),
        &[
            ("", "/model gpt-5.5 thinking"),
            ("Model: GPT-5.5 Thinking;", "/effort extended"),
            ("effort: Extended (read back on the page)", "/model pro"),
            ("KA_MODEL_NOT_CONFIRMED", "/model"),
            ("Model: GPT-5.5 Thinking;", "check it"),
            ("Done. Nothing to do.", "/quit"),
        ],
    );
    assert!(text.contains("\"GPT-5.5 Pro\" is locked"), "{text}");
    let with = chat.sent_with();
    assert_eq!(with.len(), 1, "{with:?}");
    assert_eq!(with[0].model, "GPT-5.5 Thinking");
    assert_eq!(with[0].effort, "Extended");
}
