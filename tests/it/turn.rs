//! The turn loop with a real headless Chromium and the local chat page: the stop reasons, and
//! the first message `keyless prompt` prints.

use std::time::Duration;

use keyless::batch::Settings;
use keyless::chat::cdp::CdpDriver;
use keyless::chat::local::{Fault, LocalChat, Script, ScriptedReply};
use keyless::config::{Limits, Mode};
use keyless::turn::{self, Stop};
use keyless::workspace::Workspace;

use crate::common::quiet_host::Quiet;

fn run_turn(replies: Vec<String>, limits: Limits) -> (Stop, Vec<String>) {
    let chat = LocalChat::start(Script::replies(replies)).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options =
        crate::common::shared_browser::local_page(chat.url(), profile.path().to_path_buf());
    options.reply_timeout = Duration::from_secs(20);
    options.truncation_budget = Duration::from_secs(2);
    let mut driver = CdpDriver::start(options).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let settings = Settings {
        mode: Mode::Auto,
        limits,
        ..Settings::default()
    };
    let stop = turn::run(
        "the task".into(),
        &mut driver,
        &ws,
        &mut Quiet,
        &settings,
        &mut |_| {},
    );
    driver.close();
    (stop, chat.received())
}

#[test]
fn too_many_invalid_replies_stop_the_turn_with_the_last_reply() {
    let bad: Vec<String> = (0..4)
        .map(|i| format!("not agentscript {i}\n@@eof"))
        .collect();
    let limits = Limits {
        max_format_retries: 2,
        ..Limits::default()
    };
    let (stop, received) = run_turn(bad, limits);
    assert_eq!(
        stop,
        Stop::FormatRetries {
            last_reply: "not agentscript 2\n@@eof".into()
        }
    );
    assert_eq!(received.len(), 3, "the task and two corrections");
    assert!(
        received[1].starts_with("[KEYLESSAGENT FORMAT ERROR]"),
        "{}",
        received[1]
    );
}

#[test]
fn a_truncated_reply_asks_for_smaller_pieces_and_counts_as_a_retry() {
    let cut = "@@newfile a.txt\n<<<CONTENT\nhalf of it".to_string();
    let limits = Limits {
        max_format_retries: 1,
        ..Limits::default()
    };
    let (stop, received) = run_turn(vec![cut.clone(), cut.clone(), cut], limits);
    assert!(matches!(stop, Stop::FormatRetries { .. }), "{stop:?}");
    assert_eq!(received.len(), 2);
    assert!(
        received[1].contains("Resend it in SMALLER pieces"),
        "{}",
        received[1]
    );
}

#[test]
fn the_iteration_limit_stops_the_turn() {
    let next = "@@readfile missing.txt\n@@end\n@@eof\n".to_string();
    let limits = Limits {
        max_iterations_per_turn: 2,
        ..Limits::default()
    };
    let (stop, received) = run_turn(vec![next.clone(), next.clone(), next], limits);
    assert_eq!(stop, Stop::Iterations { limit: 2 });
    assert!(
        received[1].starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=1"),
        "{}",
        received[1]
    );
}

#[test]
fn keyless_prompt_prints_rules_limits_snapshot_and_task() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("Cargo.toml"), "[package]\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["prompt", "Add a README", "--pace", "step", "--workspace"])
        .arg(ws.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    for needle in [
        "Reply with one fenced code block",
        "@@editfile PATH + FIND + REPLACE",
        "At most 1 command(s) per reply besides @@say (pace Step)",
        "Step pace: send one command, then @@next",
        "- Workspace: Cargo.toml",
        "- Git: not a repository",
        "Task:\nAdd a README\n",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    eprintln!("first message: {} characters", text.chars().count());
}

/// The real driver, with the browser's network off for the first send and back on once the
/// failure has been reported, as when a connection drops and returns.
struct DropsOnce {
    inner: CdpDriver,
    dropped: bool,
}

impl keyless::chat::ChatDriver for DropsOnce {
    fn send(&mut self, message: &str) -> Result<(), keyless::catalog::Failure> {
        if !self.dropped {
            self.inner.set_offline(true)?;
        }
        let sent = self.inner.send(message);
        if sent.is_err() && !self.dropped {
            self.dropped = true;
            self.inner.set_offline(false)?;
        }
        sent
    }
    fn wait_reply(
        &mut self,
        progress: &mut dyn FnMut(usize),
    ) -> Result<keyless::chat::Reply, keyless::catalog::Failure> {
        let reply = self.inner.wait_reply(progress);
        if reply.is_err() && !self.dropped {
            self.dropped = true;
            self.inner.set_offline(false)?;
        }
        reply
    }
    fn new_chat(&mut self) -> Result<(), keyless::catalog::Failure> {
        self.inner.new_chat()
    }
    fn take_warnings(&mut self) -> Vec<keyless::catalog::Failure> {
        self.inner.take_warnings()
    }
    fn site(&self) -> String {
        self.inner.site()
    }
    fn chat_url(&mut self) -> Option<String> {
        self.inner.chat_url()
    }
    fn reopen(
        &mut self,
        url: &str,
        pending: Option<&str>,
    ) -> Result<keyless::chat::Reopened, keyless::catalog::Failure> {
        self.inner.reopen(url, pending)
    }
}

#[test]
fn offline_waits_and_resends_the_same_message() {
    let chat = LocalChat::start(Script::replies(["@@done\n@@end\n@@eof\n"])).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options =
        crate::common::shared_browser::local_page(chat.url(), profile.path().to_path_buf());
    options.reply_timeout = Duration::from_secs(20);
    options.truncation_budget = Duration::from_secs(2);
    let inner = CdpDriver::start(options).unwrap();
    let mut driver = DropsOnce {
        inner,
        dropped: false,
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let settings = Settings {
        mode: Mode::Auto,
        ..Settings::default()
    };
    let mut offline_events = 0;
    let stop = turn::run(
        "the task".into(),
        &mut driver,
        &ws,
        &mut Quiet,
        &settings,
        &mut |e| {
            if matches!(e, turn::Event::Offline { .. }) {
                offline_events += 1;
            }
        },
    );
    assert_eq!(stop, Stop::Done { message: None });
    assert_eq!(offline_events, 1);
    assert_eq!(
        chat.received(),
        vec!["the task"],
        "sent once it could be, and only once"
    );
    driver.inner.close();
}

#[test]
fn a_full_chat_is_continued_in_a_new_chat_with_a_summary() {
    let script = Script {
        replies: vec![
            ScriptedReply {
                text: "@@mkdir built\n@@end\n@@eof\n".into(),
                fault: None,
            },
            ScriptedReply {
                text: String::new(),
                fault: Some(Fault::Exhausted),
            },
            ScriptedReply {
                text: "@@done\n@@end\n@@eof\n".into(),
                fault: None,
            },
        ],
        ..Script::default()
    };
    let chat = LocalChat::start(script).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options =
        crate::common::shared_browser::local_page(chat.url(), profile.path().to_path_buf());
    options.reply_timeout = Duration::from_secs(20);
    options.truncation_budget = Duration::from_secs(2);
    let mut driver = CdpDriver::start(options).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let settings = Settings {
        mode: Mode::Auto,
        ..Settings::default()
    };
    let stop = turn::run(
        "the task".into(),
        &mut driver,
        &ws,
        &mut Quiet,
        &settings,
        &mut |_| {},
    );
    driver.close();
    assert_eq!(stop, Stop::Done { message: None });
    let received = chat.received();
    assert_eq!(received.len(), 3, "{received:?}");
    let continued = &received[2];
    assert!(
        continued.starts_with(
            "the task\nThis task continues from a chat that reached its length limit."
        ),
        "{continued}"
    );
    assert!(continued.contains("- mkdir built: ok"), "{continued}");
    assert!(continued.contains("The last message keyless sent, which you have not answered yet:\n[KEYLESSAGENT RESULTS]"), "{continued}");
}
