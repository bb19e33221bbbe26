//! Resuming a turn that stopped half-way: keyless killed while a command ran or while the model
//! was writing, Ctrl+C while waiting, the iteration limit, a chat that is gone. The next run
//! picks the turn up from `.agent/session.json` without losing anything and without running
//! anything twice. Real headless Chromium against the local chat page; the kill is a SIGKILL of
//! the real binary, whose browser survives it as it would on a user's machine.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use keyless::batch::Settings;
use keyless::catalog::Code;
use keyless::chat::cdp::CdpDriver;
use keyless::chat::local::{Fault, LocalChat, Script, ScriptedReply};
use keyless::config::Mode;
use keyless::turn::{self, Stop, record};
use keyless::workspace::Workspace;

use crate::common::quiet_host::Quiet;

use crate::common::local_keyless::{keyless_launching, keyless_on};

/// `keyless <args>` on the local page, approving every command (Auto mode), attached to the
/// shared browser; or, for a profile made by [`own_browser`], launching its own on it.
fn keyless(args: &[&str], ws: &Path, profile: &Path, chat: &LocalChat) -> Command {
    let mut cmd = if profile.join(OWN_BROWSER).exists() {
        keyless_launching(chat, ws, profile, args)
    } else {
        keyless_on(chat, ws, profile, args)
    };
    cmd.args(["--mode", "auto"]);
    cmd
}

/// A profile on which keyless launches a browser of its own: for the tests that kill keyless
/// and check that the browser it leaves is taken over.
fn own_browser() -> tempfile::TempDir {
    let profile = tempfile::tempdir().unwrap();
    std::fs::write(profile.path().join(OWN_BROWSER), "").unwrap();
    profile
}

/// The mark of a profile made by [`own_browser`].
const OWN_BROWSER: &str = "own-browser";

/// Starts keyless with its output thrown away (it is going to be stopped).
fn start_silently(args: &[&str], ws: &Path, profile: &Path, chat: &LocalChat) -> Child {
    keyless(args, ws, profile, chat)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Runs keyless to its end; returns its output and all of it as text for assertion messages.
fn run_to_end(args: &[&str], ws: &Path, profile: &Path, chat: &LocalChat) -> (Output, String) {
    let out = keyless(args, ws, profile, chat).output().unwrap();
    let text = format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Ctrl+C, as a terminal sends it.
fn interrupt(child: &Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

fn kill(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Whether a process still runs with this profile on its command line (the browser).
fn browser_alive(profile: &Path) -> bool {
    let needle = profile.to_string_lossy().into_owned();
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains(&needle))
            .unwrap_or(false)
    })
}

fn read(ws: &Path, name: &str) -> String {
    std::fs::read_to_string(ws.join(name)).unwrap()
}

/// The results message after a resume: the second message the chat got, after the task.
fn the_results(chat: &LocalChat) -> String {
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    received[1].clone()
}

fn block(header: &str, section: &str, body: &str) -> String {
    format!("@@{header}\n<<<{section}\n{body}\n{section}>>>\n@@end\n")
}

#[test]
fn killed_while_a_command_runs_resumes_without_running_anything_twice() {
    let first = format!(
        "{}{}{}@@eof\n",
        block("newfile a.txt", "CONTENT", "a"),
        block("runcommand", "CMD", "echo ran >> ran.txt && sleep 10"),
        block("newfile c.txt", "CONTENT", "c"),
    );
    let second = format!(
        "{}@@done\n<<<MSG\nFinished after the restart.\nMSG>>>\n@@end\n@@eof\n",
        block("newfile c.txt", "CONTENT", "c")
    );
    let chat = LocalChat::start(Script::replies([first, second])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = own_browser();
    let task = "Write a, run the counter, write c";

    let mut child = start_silently(&["run", task], ws.path(), profile.path(), &chat);
    // Written, not only made: the shell opens the file before it writes to it.
    wait_for("the command to start", || {
        std::fs::read_to_string(ws.path().join("ran.txt")).is_ok_and(|t| t == "ran\n")
    });
    kill(&mut child);
    assert!(
        browser_alive(profile.path()),
        "the browser outlives keyless"
    );

    // `keyless status` says where the turn stands, without a browser.
    let (out, text) = run_to_end(&["status"], ws.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("turn: interrupted while batch 1 was carried out (finished: #1; #2 runcommand was running (its outcome is unknown))"),
        "{text}"
    );
    assert!(
        text.contains("undo: `keyless undo` puts back batch 1 (1 change(s))"),
        "{text}"
    );
    assert!(
        !text.contains("is working here"),
        "the killed keyless holds nothing: {text}"
    );

    let (out, text) = run_to_end(&["run", "--resume"], ws.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("resuming the interrupted turn"), "{text}");
    let (out, status) = run_to_end(&["status", "--json"], ws.path(), profile.path(), &chat);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["state"], "idle", "{status}");
    assert!(text.contains("Done. Finished after the restart."), "{text}");
    // The command ran once, before the kill; nothing ran it again.
    assert_eq!(
        std::fs::read_to_string(ws.path().join("ran.txt")).unwrap(),
        "ran\n"
    );
    assert_eq!(read(ws.path(), "a.txt"), "a\n");
    assert_eq!(read(ws.path(), "c.txt"), "c\n");
    let results = &the_results(&chat);
    assert!(
        results.starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=1\n--- keyless was stopped while carrying out this batch"),
        "{results}"
    );
    assert!(
        results.contains("--- result 1/3 | #1 newfile | a.txt ---\nstatus: ok\n"),
        "{results}"
    );
    assert!(
        results.contains("--- result 2/3 | #2 runcommand | echo ran >> ran.txt && sleep 10 ---\nstatus: error | code: KA_CANCELLED\nreason: keyless was stopped while this command ran"),
        "{results}"
    );
    assert!(
        results.contains("--- skipped 1 commands: keyless was stopped before running them; send them again if they are still needed ---\nskipped: #3 newfile | c.txt\n"),
        "{results}"
    );
    // The left-over browser was taken over and closed at the end.
    wait_for("the browser to close", || !browser_alive(profile.path()));
    let session = std::fs::read_to_string(ws.path().join(".agent/session.json")).unwrap();
    let session: record::Session = serde_json::from_str(&session).unwrap();
    assert!(!session.interrupted(), "{session:?}");
}

/// A 12 MB file with one line to change: rewriting it (and backing it up first) takes long
/// enough to kill keyless in the middle.
fn big_file() -> String {
    let mut out = String::with_capacity(13_000_000);
    let mut n = 0u64;
    while out.len() < 12_000_000 {
        if n == 100_000 {
            out.push_str("THE OLD LINE\n");
        }
        out.push_str(&format!(
            "line {n:08} of a file that takes a while to rewrite\n"
        ));
        n += 1;
    }
    out
}

#[test]
fn killed_in_a_file_command_resumes_by_looking_and_goes_on_with_the_rest() {
    let first = format!(
        "{}{}@@eof\n",
        block("editfile big.txt", "FIND", "THE OLD LINE").replace(
            "FIND>>>\n@@end",
            "FIND>>>\n<<<REPLACE\nTHE NEW LINE\nREPLACE>>>\n@@end"
        ),
        block("newfile c.txt", "CONTENT", "c"),
    );
    let second = "@@done\n<<<MSG\nFinished after the restart.\nMSG>>>\n@@end\n@@eof\n".to_string();
    let chat = LocalChat::start(Script::replies([first, second])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = own_browser();
    let old = big_file();
    std::fs::write(ws.path().join("big.txt"), &old).unwrap();

    let mut child = start_silently(
        &["run", "Change the line"],
        ws.path(),
        profile.path(),
        &chat,
    );
    // The backup of the old bytes is recorded before the file is rewritten: kill keyless as
    // soon as the record shows, while (or just after) the file is rewritten.
    let manifest = ws.path().join(".agent/backups/b000001/manifest.json");
    wait_for("the edit's backup record", || manifest.exists());
    kill(&mut child);
    let now = std::fs::read(ws.path().join("big.txt")).unwrap();
    let new = old.replace("THE OLD LINE\n", "THE NEW LINE\n");
    let was_done = now == new.as_bytes();
    assert!(
        was_done || now == old.as_bytes(),
        "the file is whole: old or new"
    );

    let (_, status) = run_to_end(&["status"], ws.path(), profile.path(), &chat);
    assert!(
        status.contains("#1 editfile was running (resuming checks on disk whether it was done)")
            || status.contains("(finished: #1)"),
        "{status}"
    );
    let (out, text) = run_to_end(&["run", "--resume"], ws.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Done. Finished after the restart."), "{text}");
    assert!(std::fs::read(ws.path().join("big.txt")).unwrap() == new.as_bytes());
    assert_eq!(read(ws.path(), "c.txt"), "c\n");
    let results = &the_results(&chat);
    assert!(
        results.starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=1\n--- keyless was stopped while carrying out this batch and has restarted: what had run is reported as it was, and the rest ran now"),
        "{results}"
    );
    assert_eq!(
        results
            .matches("#1 editfile | big.txt ---\nstatus: ok")
            .count(),
        1,
        "{results}"
    );
    assert!(
        results.contains("--- result 2/2 | #2 newfile | c.txt ---\nstatus: ok"),
        "{results}"
    );
    assert!(!results.contains("skipped"), "{results}");
    if was_done {
        assert!(results.contains("checked on disk"), "{results}");
    }
    // `keyless undo` puts the whole batch back: one backup for the edit and the new file.
    let undo = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["undo", "--workspace"])
        .arg(ws.path())
        .output()
        .unwrap();
    assert!(undo.status.success(), "{undo:?}");
    assert!(std::fs::read(ws.path().join("big.txt")).unwrap() == old.as_bytes());
    assert!(!ws.path().join("c.txt").exists());
}

#[test]
fn killed_while_the_model_writes_reads_the_reply_from_the_page_without_resending() {
    let first = format!("{}@@eof\n", block("newfile a.txt", "CONTENT", "slow reply"));
    let mut script = Script::replies([
        first,
        "@@done\n<<<MSG\nRead after the restart.\nMSG>>>\n@@end\n@@eof\n".to_string(),
    ]);
    script.chunk_chars = 4;
    script.chunk_delay = Duration::from_millis(150);
    let chat = LocalChat::start(script).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = own_browser();
    let task = "Write a slowly";

    let mut child = start_silently(&["run", task], ws.path(), profile.path(), &chat);
    let session_file = ws.path().join(".agent/session.json");
    wait_for("the chat's own address in the session", || {
        std::fs::read_to_string(&session_file).is_ok_and(|s| s.contains("/c/"))
    });
    kill(&mut child);
    assert_eq!(chat.received().len(), 1);
    assert!(!ws.path().join("a.txt").exists());

    // The same task again resumes the turn.
    let (out, text) = run_to_end(&["run", task], ws.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("the reply is on the page"), "{text}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "slow reply\n"
    );
    let received = chat.received();
    assert_eq!(
        received.len(),
        2,
        "the task was not sent twice: {received:#?}"
    );
    assert!(
        received[1].starts_with(
            "[KEYLESSAGENT RESULTS] turn=1 batch=1\n--- result 1/1 | #1 newfile | a.txt ---"
        ),
        "{}",
        received[1]
    );
}

#[test]
fn another_task_while_a_turn_is_interrupted_is_refused_before_the_browser_opens() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join(".agent")).unwrap();
    let session = record::Session {
        site: "local".into(),
        task: Some("the first task".into()),
        in_flight: record::InFlight::Sending {
            message: "a message".into(),
            kind: record::MessageKind::Task,
        },
        ..record::Session::default()
    };
    std::fs::write(
        ws.path().join(".agent/session.json"),
        serde_json::to_vec(&session).unwrap(),
    )
    .unwrap();
    let (out, text) = run_to_end(&["run", "another task"], ws.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("the first task") && text.contains("keyless run --resume"),
        "{text}"
    );
    assert!(chat.received().is_empty());

    // Without a saved turn, a run needs a task.
    let empty = tempfile::tempdir().unwrap();
    let (out, text) = run_to_end(&["run"], empty.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("KA_SESSION_NOT_FOUND"), "{text}");
    assert!(text.contains("give a task"), "{text}");
}

fn driver(chat: &LocalChat, profile: &Path) -> CdpDriver {
    let mut options = crate::common::shared_browser::local_page(chat.url(), profile.to_path_buf());
    options.reply_timeout = Duration::from_secs(20);
    CdpDriver::start(options).unwrap()
}

/// Resumes a saved turn with the files-only host.
fn resume(
    session: record::Session,
    driver: &mut CdpDriver,
    ws: &Workspace,
    settings: &Settings,
) -> Stop {
    turn::resume(session, driver, ws, &mut Quiet, settings, &mut |_| {})
}

fn done(message: &str) -> Stop {
    Stop::Done {
        message: Some(message.to_string()),
    }
}

fn done_reply(message: &str) -> String {
    format!("@@done\n<<<MSG\n{message}\nMSG>>>\n@@end\n@@eof\n")
}

/// A chat whose first answer is a fault, and whose second is `@@done` with `message`.
fn fault_then_done(fault: Fault, message: &str) -> LocalChat {
    LocalChat::start(Script {
        replies: vec![
            ScriptedReply {
                text: String::new(),
                fault: Some(fault),
            },
            ScriptedReply {
                text: done_reply(message),
                fault: None,
            },
        ],
        ..Script::default()
    })
    .unwrap()
}

fn settings() -> Settings {
    Settings {
        mode: Mode::Auto,
        ..Settings::default()
    }
}

/// Ctrl+C is a SIGINT to the built binary: the Ctrl+C flag is process-wide, and these tests
/// share their process with the others.
#[test]
fn ctrl_c_while_waiting_keeps_the_message_and_an_unanswered_one_is_resent() {
    let chat = fault_then_done(Fault::NoReply, "answered");
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut child = start_silently(&["run", "the task"], ws.path(), profile.path(), &chat);
    wait_for("the message", || chat.received().len() == 1);
    interrupt(&child);
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "Ctrl+C is exit 130 (KA_CANCELLED)"
    );
    let session = record::load_session(&Workspace::open(ws.path()).unwrap()).unwrap();
    assert!(
        session.in_flight.message().unwrap().contains("the task"),
        "{session:?}"
    );
    assert!(session.chat_url.as_deref().unwrap().contains("/c/"));

    // The chat shows the message without a reply: it is sent again, in the same chat.
    let (out, text) = run_to_end(&["run", "--resume"], ws.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Done. answered"), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert_eq!(received[0], received[1], "the same message again");
}

#[test]
fn a_reply_saved_but_never_carried_out_runs_once_in_a_new_chat_when_the_old_one_is_gone() {
    let chat = LocalChat::start(Script::replies([done_reply("continued")])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut driver = driver(&chat, profile.path());
    // As keyless leaves it when killed between saving a reply and running its first command.
    let session = record::Session {
        site: "local".into(),
        chat_url: Some(format!("{}c/forgotten", chat.url())),
        turn: 1,
        batch: 4,
        task: Some("make b".into()),
        rules: Some("RULES AND TASK".into()),
        in_flight: record::InFlight::CarryingOut {
            reply: format!("{}@@eof\n", block("newfile b.txt", "CONTENT", "b")),
        },
        done: vec!["newfile a.txt: ok".into()],
        ..record::Session::default()
    };
    let stop = resume(session, &mut driver, &ws, &settings());
    assert_eq!(stop, done("continued"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "b\n"
    );
    let received = chat.received();
    assert_eq!(received.len(), 1);
    let message = &received[0];
    assert!(message.starts_with("RULES AND TASK\n"), "{message}");
    assert!(
        message.contains("- newfile a.txt: ok\n- newfile b.txt: ok\n"),
        "{message}"
    );
    assert!(
        message.contains(
            "[KEYLESSAGENT RESULTS] turn=1 batch=4\n--- result 1/1 | #1 newfile | b.txt ---"
        ),
        "{message}"
    );
    driver.close();
}

#[test]
fn the_iteration_limit_keeps_the_unsent_results_for_the_next_run() {
    let chat = LocalChat::start(Script::replies([
        format!("{}@@eof\n", block("newfile a.txt", "CONTENT", "a")),
        done_reply("after the limit"),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut driver = driver(&chat, profile.path());
    let mut settings = settings();
    settings.limits.max_iterations_per_turn = 1;
    let stop = turn::run(
        "the task".into(),
        &mut driver,
        &ws,
        &mut Quiet,
        &settings,
        &mut |_| {},
    );
    assert_eq!(stop, Stop::Iterations { limit: 1 });
    let session = record::load_session(&ws).unwrap();
    assert!(session.interrupted());
    let pending = session.in_flight.message().unwrap().to_string();
    assert!(
        pending.starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=1\n"),
        "{pending}"
    );
    assert_eq!(chat.received().len(), 1);

    let stop = resume(session, &mut driver, &ws, &settings);
    assert_eq!(stop, done("after the limit"));
    let received = chat.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1], pending);
    assert!(!record::load_session(&ws).unwrap().interrupted());
    driver.close();
}

#[test]
fn the_next_task_goes_on_in_the_saved_chat_and_new_chat_starts_another() {
    let done = |msg: &str| format!("@@done\n<<<MSG\n{msg}\nMSG>>>\n@@end\n@@eof\n");
    let chat =
        LocalChat::start(Script::replies([done("one"), done("two"), done("three")])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    for (args, said) in [
        (vec!["run", "first task"], "one"),
        (vec!["run", "second task"], "two"),
        (vec!["run", "--new-chat", "third task"], "three"),
    ] {
        let (out, text) = run_to_end(&args, ws.path(), profile.path(), &chat);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains(&format!("Done. {said}")), "{text}");
    }
    let received = chat.received();
    assert_eq!(received.len(), 3);
    assert!(
        received[0].contains("You are a coding agent"),
        "{}",
        received[0]
    );
    assert_eq!(
        received[1],
        "Next task (turn 2; reply in AgentScript v1 only):\nsecond task\n"
    );
    assert!(
        received[2].contains("You are a coding agent") && received[2].ends_with("third task\n"),
        "{}",
        received[2]
    );
}

#[test]
fn ctrl_c_during_a_command_stops_the_turn_and_the_next_run_sends_its_results() {
    let first = format!(
        "{}{}@@eof\n",
        block(
            "runcommand",
            "CMD",
            "echo started >> started.txt && sleep 30"
        ),
        block("newfile never.txt", "CONTENT", "never"),
    );
    let chat = LocalChat::start(Script::replies([first, done_reply("after Ctrl+C")])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut child = start_silently(&["run", "sleep"], ws.path(), profile.path(), &chat);
    wait_for("the command to start", || {
        ws.path().join("started.txt").exists()
    });
    interrupt(&child);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "Ctrl+C is exit 130");
    assert_eq!(chat.received().len(), 1, "nothing more was sent");
    assert!(!ws.path().join("never.txt").exists());

    let (out, text) = run_to_end(&["run", "--resume"], ws.path(), profile.path(), &chat);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Done. after Ctrl+C"), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(
        received[1].contains("status: error | code: KA_CANCELLED"),
        "{}",
        received[1]
    );
    assert!(
        received[1].contains("skipped: #2 newfile | never.txt"),
        "{}",
        received[1]
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("started.txt")).unwrap(),
        "started\n",
        "the command ran once"
    );
}

#[test]
fn a_message_limit_stops_the_turn_and_a_later_resume_sends_the_message_again() {
    let chat = fault_then_done(Fault::RateLimited, "after the limit reset");
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut driver = driver(&chat, profile.path());
    let stop = turn::run(
        "the task".into(),
        &mut driver,
        &ws,
        &mut Quiet,
        &settings(),
        &mut |_| {},
    );
    let Stop::Chat(failure) = stop else {
        panic!("{stop:?}")
    };
    // The site's throttle, named with its words (not a send that was not confirmed).
    assert_eq!(failure.code, Code::RateLimited, "{failure:?}");
    assert!(
        failure.reason.contains("Too many requests in 1 hour"),
        "{failure:?}"
    );
    let session = record::load_session(&ws).unwrap();
    assert_eq!(session.in_flight.message(), Some("the task"));

    let stop = resume(session, &mut driver, &ws, &settings());
    assert_eq!(stop, done("after the limit reset"));
    assert_eq!(chat.received(), vec!["the task", "the task"]);
    driver.close();
}

/// keyless killed at every moment from the task's send to the chat's own address being saved:
/// the session says a message was being sent, and its saved address may still be the page's
/// start. The resumed turn finds the chat that holds the task (the browser's tab it left, or
/// the site's history list), never sends the task twice, and finishes in that same chat.
#[test]
fn killed_between_the_send_and_the_chat_s_address_resumes_in_the_same_chat() {
    let slow = ScriptedReply {
        text: "```\n@@newfile a.txt\n<<<CONTENT\nwritten once\nCONTENT>>>\n@@end\n@@eof\n```"
            .into(),
        fault: None,
    };
    for delay_ms in [0u64, 40, 120, 400] {
        let mut script = Script::replies([
            "```\n@@done\n<<<MSG\nDone after the restart.\nMSG>>>\n@@end\n@@eof\n```",
        ]);
        script.replies.insert(0, slow.clone());
        // The first reply streams for about two seconds: the kill lands while it does.
        script.chunk_chars = 8;
        script.chunk_delay = Duration::from_millis(40);
        let chat = LocalChat::start(script).unwrap();
        let ws = tempfile::tempdir().unwrap();
        let profile = own_browser();
        let task = format!("Write a.txt once (kill after {delay_ms} ms)");
        let log = ws.path().join("first-run.log");
        let mut child = keyless(&["run", &task], ws.path(), profile.path(), &chat)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while chat.received().is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{delay_ms} ms: the task never reached the chat: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(delay_ms));
        kill(&mut child);

        let (out, text) = run_to_end(&["run", "--resume"], ws.path(), profile.path(), &chat);
        assert_eq!(out.status.code(), Some(0), "{delay_ms} ms: {text}");
        assert_eq!(
            read(ws.path(), "a.txt"),
            "written once\n",
            "{delay_ms} ms: {text}"
        );
        let tasks = chat
            .received()
            .iter()
            .filter(|m| m.ends_with(&format!("Task:\n{task}\n")))
            .count();
        assert_eq!(tasks, 1, "{delay_ms} ms: the task went twice: {text}");
        let conversations = chat.conversations();
        assert_eq!(
            conversations.len(),
            1,
            "{delay_ms} ms: {conversations:#?}\n{text}"
        );
        assert_eq!(
            conversations[0].len(),
            2,
            "task and results, one chat: {text}"
        );
        wait_for("the browser to close", || !browser_alive(profile.path()));
    }
}
