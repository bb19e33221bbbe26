//! The turn loop's rules against a scripted chat: retries, recovery, resume, pace notes and stop
//! reasons, in milliseconds, with no browser and no sleeping (the offline backoff's waits are
//! recorded, not slept). The CDP driver's own behaviour is tested in a real browser
//! (`tests/it/browser.rs`).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::record::{self, InFlight, JournalLine, MessageKind, Recorder, Session};
use super::recover::{OFFLINE_MAX_WAIT, OFFLINE_TRIES};
use super::*;
use crate::batch::{Attempt, Confirmation, Outcome, Person, Runner};
use crate::config::{Limits, Mode};

/// A chat whose answers are written in advance: each `send` takes the next scripted send result
/// (success when none is left), each `wait_reply` the next reply or failure.
#[derive(Default)]
struct ScriptedChat {
    sends: VecDeque<Result<(), Failure>>,
    replies: VecDeque<Result<String, Failure>>,
    /// Where a reopened chat stands.
    reopened: Option<Reopened>,
    /// Warnings the next send leaves.
    warnings: Vec<Failure>,
    /// Every message the chat received, in order.
    sent: Vec<String>,
    /// Sends that failed, in order.
    refused: Vec<String>,
    new_chats: usize,
    /// Each reopen's address and pending message.
    reopens: Vec<(String, Option<String>)>,
    /// The channel each reply is read through (the copy button once these run out).
    channels: VecDeque<Channel>,
    /// The chat's address once a reply was waited for (a site that names a new chat only
    /// when its reply begins); before, the usual one.
    address_once_waited: Option<String>,
    waited: bool,
    /// Where the chat stands with the message due after a failure (`Unsent` once these run
    /// out).
    held: VecDeque<Reopened>,
    /// Failures of those checks first (the chat could not be opened to ask), in order.
    unreachable: VecDeque<Failure>,
    /// The page lost (its tab closed) from the moment a wait first asks; how often it asked.
    lost: Option<Failure>,
    lost_asked: usize,
}

impl ScriptedChat {
    fn replying<S: Into<String>>(replies: impl IntoIterator<Item = S>) -> ScriptedChat {
        ScriptedChat {
            replies: replies.into_iter().map(|r| Ok(r.into())).collect(),
            ..ScriptedChat::default()
        }
    }
}

impl ChatDriver for ScriptedChat {
    fn send(&mut self, message: &str) -> Result<(), Failure> {
        let sent = self.sends.pop_front().unwrap_or(Ok(()));
        match sent {
            Ok(()) => self.sent.push(message.to_string()),
            Err(_) => self.refused.push(message.to_string()),
        }
        sent
    }

    fn wait_reply(&mut self, progress: &mut dyn FnMut(usize)) -> Result<Reply, Failure> {
        self.waited = true;
        let next = self
            .replies
            .pop_front()
            .expect("the turn waited for a reply the script does not have");
        next.map(|text| {
            progress(text.chars().count());
            Reply {
                text,
                channel: self.channels.pop_front().unwrap_or(Channel::CopyButton),
                finished_at: Instant::now(),
                model: None,
                effort: None,
            }
        })
    }

    fn take_warnings(&mut self) -> Vec<Failure> {
        std::mem::take(&mut self.warnings)
    }

    fn new_chat(&mut self) -> Result<(), Failure> {
        self.new_chats += 1;
        Ok(())
    }

    fn site(&self) -> String {
        "scripted".to_string()
    }

    fn chat_url(&mut self) -> Option<String> {
        if let (true, Some(url)) = (self.waited, &self.address_once_waited) {
            return Some(url.clone());
        }
        Some(format!("https://chat.test/c/{}", self.new_chats))
    }

    fn holds(&mut self, _: &str) -> Result<Reopened, Failure> {
        if let Some(failure) = self.unreachable.pop_front() {
            return Err(failure);
        }
        Ok(self.held.pop_front().unwrap_or(Reopened::Unsent))
    }

    fn lost(&mut self) -> Option<Failure> {
        self.lost_asked += 1;
        self.lost.clone()
    }

    fn reopen(&mut self, url: &str, pending: Option<&str>) -> Result<Reopened, Failure> {
        self.reopens
            .push((url.to_string(), pending.map(str::to_string)));
        Ok(self.reopened.unwrap_or(Reopened::Unsent))
    }
}

/// Approves everything and runs nothing: a command's outcome is success, or Ctrl+C for a
/// command that says `ctrl-c`.
#[derive(Default)]
struct Approving {
    ran: Vec<String>,
}

impl Person for Approving {
    fn say(&mut self, _: &str) {}
    fn ask(&mut self, _: &str) -> Option<String> {
        None
    }
    fn confirm(&mut self, _: &Confirmation) -> bool {
        true
    }
}

impl Runner for Approving {
    fn contained(&mut self, cmd: &str, _: Duration, _: Mode) -> Attempt {
        self.ran.push(cmd.to_string());
        if cmd.contains("ctrl-c") {
            return Outcome::failed(Failure::new(Code::Cancelled, "the user pressed Ctrl+C"))
                .into();
        }
        Outcome::default().into()
    }
    fn unconfined(&mut self, cmd: &str, _: Duration) -> Outcome {
        unreachable!("no scripted command is refused by a sandbox: {cmd}")
    }
    fn commit(&mut self, _: &str) -> Outcome {
        Outcome::default()
    }
}

/// A workspace in a temporary folder, the settings of a test and what a turn did.
struct Bench {
    _dir: tempfile::TempDir,
    ws: Workspace,
    settings: Settings,
    host: Approving,
    /// What the watcher heard (`Event`s, as their debug text).
    events: Vec<String>,
    /// The offline backoff's waits, in order.
    waits: Vec<Duration>,
}

impl Bench {
    fn new() -> Bench {
        Bench::with(Settings {
            mode: Mode::Auto,
            ..Settings::default()
        })
    }

    fn with(settings: Settings) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        Bench {
            _dir: dir,
            ws,
            settings,
            host: Approving::default(),
            events: Vec::new(),
            waits: Vec::new(),
        }
    }

    fn limits(mut self, limits: Limits) -> Bench {
        self.settings.limits = limits;
        self
    }

    /// Runs a turn for "the task" to its end.
    fn run(&mut self, chat: &mut ScriptedChat) -> Stop {
        let (mut turn, next) = Turn::first("the task".into(), &*chat, &self.ws, &self.settings);
        turn.sleep = |_| {};
        let (events, waits) = (&mut self.events, &mut self.waits);
        turn.drive(next, chat, &mut self.host, &mut |event| {
            if let Event::Offline { wait, .. } = &event {
                waits.push(*wait);
            }
            events.push(format!("{event:?}"));
        })
    }

    /// Resumes the saved turn to its end.
    fn resume(&mut self, chat: &mut ScriptedChat) -> Stop {
        let session = self.session();
        let events = &mut self.events;
        resume(
            session,
            chat,
            &self.ws,
            &mut self.host,
            &self.settings,
            &mut |event| events.push(format!("{event:?}")),
        )
    }

    fn session(&self) -> Session {
        record::load_session(&self.ws).unwrap()
    }

    fn file(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.ws.root().join(path)).ok()
    }
}

/// Saves a session as a turn leaves it when stopped.
fn save(bench: &Bench, session: &Session) {
    Recorder::new(&bench.ws).session(session);
}

fn interrupted(pending: Option<&str>, reply: Option<String>) -> Session {
    Session {
        site: "scripted".to_string(),
        chat_url: Some("https://chat.test/c/7".to_string()),
        turn: 1,
        batch: 1,
        task: Some("the task".to_string()),
        rules: Some("THE RULES".to_string()),
        in_flight: match (pending, reply) {
            (_, Some(reply)) => InFlight::CarryingOut { reply },
            (Some(message), None) => InFlight::Sending {
                message: message.to_string(),
                kind: MessageKind::Results,
            },
            (None, None) => InFlight::Idle,
        },
        done: Vec::new(),
        ..Session::default()
    }
}

fn done(message: &str) -> String {
    format!("@@done\n<<<MSG\n{message}\nMSG>>>\n@@end\n@@eof\n")
}

fn newfile(path: &str, content: &str) -> String {
    format!("@@newfile {path}\n<<<CONTENT\n{content}\nCONTENT>>>\n@@end\n")
}

fn runcommand(cmd: &str) -> String {
    format!("@@runcommand\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n")
}

/// A reply of `commands` that asks to go on.
fn next(commands: &str) -> String {
    format!("{commands}@@next\n@@end\n@@eof\n")
}

fn stop_done(message: &str) -> Stop {
    Stop::Done {
        message: Some(message.to_string()),
    }
}

#[test]
fn a_done_reply_ends_the_turn_and_leaves_nothing_to_resume() {
    let mut bench = Bench::new();
    let mut chat = ScriptedChat::replying([next(&newfile("a.txt", "a")), done("finished")]);
    assert_eq!(bench.run(&mut chat), stop_done("finished"));
    assert_eq!(bench.file("a.txt").as_deref(), Some("a\n"));
    assert_eq!(chat.sent.len(), 2);
    assert_eq!(chat.sent[0], "the task");
    assert!(
        chat.sent[1].starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=1\n"),
        "{}",
        chat.sent[1]
    );
    let session = bench.session();
    assert!(!session.interrupted(), "{session:?}");
    assert_eq!(session.batch, 2);
    assert_eq!(session.chat_url.as_deref(), Some("https://chat.test/c/0"));
}

/// The site's error in the reply's place, answered again by its Retry control once waited
/// out: the reply is waited for and read, the message never sent twice.
#[test]
fn a_site_error_retried_on_the_page_sends_nothing_again() {
    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        replies: VecDeque::from([
            Err(Failure::new(Code::SiteError, "Something went wrong")),
            Ok(done("finished")),
        ]),
        held: VecDeque::from([Reopened::Retried]),
        ..ScriptedChat::default()
    };
    assert_eq!(bench.run(&mut chat), stop_done("finished"));
    assert_eq!(chat.sent, vec!["the task".to_string()]);
}

/// The chat's tab closed while a site error's wait counts down: the turn stops at once (the
/// loss told, not met when the wait ends), nothing sent again; a page that stands is asked
/// now and then and the turn goes on.
#[test]
fn a_tab_closed_in_a_wait_for_the_site_stops_the_turn_at_once() {
    let tab_closed = Failure::new(Code::BrowserConnectionFailed, "the chat's tab was closed");
    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        replies: VecDeque::from([Err(Failure::new(Code::SiteError, "Something went wrong")
            .saying(crate::catalog::SiteSaid {
                words: "Something went wrong".to_string(),
                resets_at: Some(now_unix() + 60),
            }))]),
        lost: Some(tab_closed.clone()),
        ..ScriptedChat::default()
    };
    let stop = bench.run(&mut chat);
    assert_eq!(stop, Stop::Chat(tab_closed));
    assert_eq!(chat.sent, vec!["the task".to_string()]);
    assert_eq!(chat.lost_asked, 1);
    let countdowns = bench
        .events
        .iter()
        .filter(|e| e.starts_with("Waiting"))
        .count();
    assert_eq!(countdowns, 1, "{:?}", bench.events);

    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        replies: VecDeque::from([
            Err(
                Failure::new(Code::SiteError, "Something went wrong").saying(
                    crate::catalog::SiteSaid {
                        words: "Something went wrong".to_string(),
                        resets_at: Some(now_unix() + 20),
                    },
                ),
            ),
            Ok(done("finished")),
        ]),
        ..ScriptedChat::default()
    };
    assert_eq!(bench.run(&mut chat), stop_done("finished"));
    assert!(chat.lost_asked >= 3, "asked {} times", chat.lost_asked);
}

/// A site that names a new chat only when its reply begins: a stop while waiting (the reply
/// timeout here, no trouble the site named) keeps the address the chat has by then, for
/// `--resume` to reopen it.
#[test]
fn a_stop_while_waiting_keeps_the_address_the_chat_got_meanwhile() {
    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        replies: VecDeque::from([Err(Failure::new(Code::ReplyTimeout, "no reply"))]),
        address_once_waited: Some("https://chat.test/c/named-late".to_string()),
        ..ScriptedChat::default()
    };
    let stop = bench.run(&mut chat);
    assert!(
        matches!(&stop, Stop::Chat(f) if f.code == Code::ReplyTimeout),
        "{stop:?}"
    );
    let session = bench.session();
    assert!(session.interrupted(), "{session:?}");
    assert_eq!(
        session.chat_url.as_deref(),
        Some("https://chat.test/c/named-late")
    );
}

#[test]
fn invalid_replies_are_corrected_until_the_retry_limit() {
    let mut bench = Bench::new().limits(Limits {
        max_format_retries: 2,
        ..Limits::default()
    });
    let mut chat = ScriptedChat::replying((0..4).map(|i| format!("not agentscript {i}\n@@eof")));
    let stop = bench.run(&mut chat);
    assert_eq!(
        stop,
        Stop::FormatRetries {
            last_reply: "not agentscript 2\n@@eof".to_string()
        }
    );
    assert_eq!(chat.sent.len(), 3, "the task and two corrections");
    assert!(chat.sent[1].starts_with("[KEYLESSAGENT FORMAT ERROR]"));
    assert!(!bench.session().interrupted(), "handed to the user");
    assert!(bench.events.iter().any(|e| e.contains("retries_left: 1")));
}

#[test]
fn a_reply_read_only_from_the_pages_prose_is_never_executed() {
    let mut bench = Bench::new();
    let mut chat = ScriptedChat::replying([
        next(&newfile("a.txt", "a")),
        next(&newfile("a.txt", "a")),
        done("made it"),
    ]);
    chat.channels = [Channel::Dom].into();
    let stop = bench.run(&mut chat);
    assert_eq!(
        stop,
        Stop::Done {
            message: Some("made it".into())
        }
    );
    assert!(
        chat.sent[1].starts_with("[KEYLESSAGENT FORMAT ERROR]")
            && chat.sent[1].contains("ONE fenced code block"),
        "{}",
        chat.sent[1]
    );
    // Written once, by the reply read exactly.
    assert_eq!(bench.file("a.txt").as_deref(), Some("a\n"));
    assert!(chat.sent[2].contains("newfile"), "{}", chat.sent[2]);
}

/// A reply the page drew as one code block, read only as text rebuilt from the page: the
/// correction never tells the model it was not in one (it would only fence it again, puzzled).
#[test]
fn a_fenced_reply_read_only_from_the_page_is_not_told_it_was_unfenced() {
    let mut bench = Bench::new();
    let fenced = format!("```agentscript\n{}```", next(&newfile("a.txt", "a")));
    let mut chat = ScriptedChat::replying([fenced, next(&newfile("a.txt", "a")), done("made it")]);
    chat.channels = [Channel::Dom].into();
    assert_eq!(bench.run(&mut chat), stop_done("made it"));
    assert!(
        chat.sent[1].starts_with("[KEYLESSAGENT FORMAT ERROR]")
            && chat.sent[1].contains("it was inside one code block")
            && !chat.sent[1].contains("not inside one code block"),
        "{}",
        chat.sent[1]
    );
    assert_eq!(bench.file("a.txt").as_deref(), Some("a\n"));
}

#[test]
fn a_valid_reply_starts_the_retry_count_again() {
    let mut bench = Bench::new().limits(Limits {
        max_format_retries: 1,
        ..Limits::default()
    });
    let bad = "not agentscript\n@@eof".to_string();
    let mut chat = ScriptedChat::replying([
        bad.clone(),
        next(&newfile("a.txt", "a")),
        bad,
        done("made it"),
    ]);
    assert_eq!(bench.run(&mut chat), stop_done("made it"));
}

#[test]
fn a_truncated_reply_asks_for_smaller_pieces_and_counts_as_a_retry() {
    let mut bench = Bench::new().limits(Limits {
        max_format_retries: 1,
        ..Limits::default()
    });
    let cut = || Err(Failure::new(Code::ReplyTruncated, "cut off"));
    let mut chat = ScriptedChat {
        replies: [cut(), cut()].into(),
        ..ScriptedChat::default()
    };
    let stop = bench.run(&mut chat);
    assert_eq!(
        stop,
        Stop::FormatRetries {
            last_reply: "cut off".to_string()
        }
    );
    assert_eq!(chat.sent.len(), 2);
    assert!(
        chat.sent[1].contains("Resend it in SMALLER pieces"),
        "{}",
        chat.sent[1]
    );
}

#[test]
fn a_full_chat_goes_on_in_a_new_one_with_the_rules_and_what_was_done() {
    let mut bench = Bench::new();
    let full = || Err(Failure::new(Code::ChatExhausted, "the chat is full"));
    let mut chat = ScriptedChat {
        replies: [Ok(next(&newfile("a.txt", "a"))), full(), Ok(done("fresh"))].into(),
        ..ScriptedChat::default()
    };
    assert_eq!(bench.run(&mut chat), stop_done("fresh"));
    assert_eq!(chat.new_chats, 1);
    assert_eq!(chat.sent.len(), 3);
    let first_of_new_chat = &chat.sent[2];
    assert!(
        first_of_new_chat.starts_with(
            "the task\nThis task continues from a chat that reached its length limit."
        ),
        "{first_of_new_chat}"
    );
    assert!(
        first_of_new_chat.contains("- newfile a.txt: ok\n"),
        "{first_of_new_chat}"
    );
    assert!(
        first_of_new_chat
            .contains("which you have not answered yet:\n[KEYLESSAGENT RESULTS] turn=1 batch=1"),
        "{first_of_new_chat}"
    );
    assert!(bench.events.iter().any(|e| e == "NewChat"));
    assert_eq!(
        bench.session().chat_url.as_deref(),
        Some("https://chat.test/c/1"),
        "the new chat's address is saved"
    );
}

#[test]
fn a_chat_that_fills_up_again_and_again_stops_the_turn() {
    let mut bench = Bench::new();
    let full = || Err(Failure::new(Code::ChatExhausted, "the chat is full"));
    let mut chat = ScriptedChat {
        replies: (0..=MAX_NEW_CHATS).map(|_| full()).collect(),
        ..ScriptedChat::default()
    };
    let stop = bench.run(&mut chat);
    assert!(
        matches!(&stop, Stop::Chat(f) if f.code == Code::ChatExhausted),
        "{stop:?}"
    );
    assert_eq!(chat.new_chats, MAX_NEW_CHATS as usize);
    assert!(bench.session().interrupted(), "the message stays pending");
}

#[test]
fn offline_waits_longer_each_time_and_resends_the_same_message() {
    let mut bench = Bench::new();
    let offline = || Err(Failure::new(Code::NetworkOffline, "offline"));
    let mut chat = ScriptedChat {
        sends: [offline(), offline(), offline()].into(),
        replies: [Ok(done("back online"))].into(),
        ..ScriptedChat::default()
    };
    assert_eq!(bench.run(&mut chat), stop_done("back online"));
    assert_eq!(
        bench.waits,
        [2, 4, 8].map(Duration::from_secs).to_vec(),
        "doubling from the first wait"
    );
    assert_eq!(chat.refused, ["the task"; 3]);
    assert_eq!(chat.sent, ["the task"]);
}

/// The reply's stream dropped and the chat cannot be reached to ask whether it kept the
/// message (an outage): nothing is sent before the chat answers; each wait for the network is
/// followed by the check again, and the reply the chat kept is read. Never reached: the turn
/// stops with the message pending, nothing sent.
#[test]
fn a_chat_that_cannot_be_reached_to_ask_is_asked_again_never_sent_blind() {
    let unreachable = || Failure::new(Code::NetworkOffline, "cannot be reached");
    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        replies: [
            Err(Failure::new(Code::NetworkOffline, "dropped")),
            Ok(done("kept")),
        ]
        .into(),
        unreachable: [unreachable(), unreachable()].into(),
        held: [Reopened::Answered].into(),
        ..ScriptedChat::default()
    };
    assert_eq!(bench.run(&mut chat), stop_done("kept"));
    assert_eq!(bench.waits, [2, 4, 8].map(Duration::from_secs).to_vec());
    assert_eq!(chat.sent, ["the task"], "sent once, never again blind");

    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        replies: [Err(Failure::new(Code::NetworkOffline, "dropped"))].into(),
        unreachable: (0..=OFFLINE_TRIES).map(|_| unreachable()).collect(),
        ..ScriptedChat::default()
    };
    let stop = bench.run(&mut chat);
    assert!(
        matches!(&stop, Stop::Chat(f) if f.code == Code::NetworkOffline
            && f.reason.contains("keyless run --resume")),
        "{stop:?}"
    );
    assert_eq!(bench.waits.len(), OFFLINE_TRIES as usize);
    assert_eq!(
        chat.sent,
        ["the task"],
        "nothing sent into a chat not asked"
    );
}

#[test]
fn offline_for_too_long_stops_the_turn_with_the_message_pending() {
    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        sends: (0..=OFFLINE_TRIES)
            .map(|_| Err(Failure::new(Code::NetworkOffline, "offline")))
            .collect(),
        ..ScriptedChat::default()
    };
    let stop = bench.run(&mut chat);
    assert!(
        matches!(&stop, Stop::Chat(f) if f.code == Code::NetworkOffline),
        "{stop:?}"
    );
    assert_eq!(bench.waits.len(), OFFLINE_TRIES as usize);
    assert_eq!(bench.waits.last(), Some(&OFFLINE_MAX_WAIT), "capped");
    assert!(chat.sent.is_empty());
    // The outage is the last trouble `keyless status` shows, not an earlier one.
    assert_eq!(
        bench.session().trouble.map(|t| t.code),
        Some("KA_NETWORK_OFFLINE".to_string())
    );
    assert_eq!(
        bench.session().in_flight,
        InFlight::Sending {
            message: "the task".to_string(),
            kind: MessageKind::Task
        }
    );
}

#[test]
fn a_reply_starts_the_offline_count_again() {
    let mut bench = Bench::new();
    let offline = || Err(Failure::new(Code::NetworkOffline, "offline"));
    let mut chat = ScriptedChat {
        sends: [offline(), Ok(()), offline()].into(),
        replies: [Ok(next(&newfile("a.txt", "a"))), Ok(done("ok"))].into(),
        ..ScriptedChat::default()
    };
    assert_eq!(bench.run(&mut chat), stop_done("ok"));
    assert_eq!(bench.waits, [2, 2].map(Duration::from_secs).to_vec());
}

#[test]
fn another_chat_failure_stops_the_turn_and_keeps_the_message_to_resume() {
    let mut bench = Bench::new();
    let mut chat = ScriptedChat {
        replies: [Err(Failure::new(Code::ReplyTimeout, "no reply"))].into(),
        ..ScriptedChat::default()
    };
    let stop = bench.run(&mut chat);
    assert!(
        matches!(&stop, Stop::Chat(f) if f.code == Code::ReplyTimeout),
        "{stop:?}"
    );
    assert_eq!(
        bench.session().in_flight,
        InFlight::Sending {
            message: "the task".to_string(),
            kind: MessageKind::Task
        }
    );
}

#[test]
fn the_iteration_limit_keeps_the_unsent_results_for_the_next_run() {
    let mut bench = Bench::new().limits(Limits {
        max_iterations_per_turn: 2,
        ..Limits::default()
    });
    let mut chat =
        ScriptedChat::replying([next(&newfile("a.txt", "a")), next(&newfile("b.txt", "b"))]);
    assert_eq!(bench.run(&mut chat), Stop::Iterations { limit: 2 });
    assert_eq!(chat.sent.len(), 2, "the second results were not sent");
    let session = bench.session();
    let InFlight::Sending { message, kind } = &session.in_flight else {
        panic!("{session:?}")
    };
    assert!(
        message.starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=2"),
        "{message}"
    );
    assert_eq!(*kind, MessageKind::Results);
}

#[test]
fn step_pace_notes_the_commands_it_skips_and_allows_more_replies() {
    let mut bench = Bench::with(Settings {
        mode: Mode::Auto,
        pace: Pace::Step,
        limits: Limits {
            max_iterations_per_turn: 2,
            ..Limits::default()
        },
        ..Settings::default()
    });
    let two = next(&(newfile("a.txt", "a") + &newfile("b.txt", "b")));
    let mut replies: Vec<String> = (0..3).map(|_| two.clone()).collect();
    replies.push(done("stepped"));
    let mut chat = ScriptedChat::replying(replies);
    assert_eq!(
        bench.run(&mut chat),
        stop_done("stepped"),
        "Step pace raises the iteration limit to {STEP_MIN_ITERATIONS}"
    );
    assert!(
        chat.sent[1].contains("pace=Step: only 1 command(s) per response"),
        "{}",
        chat.sent[1]
    );
    assert_eq!(bench.file("b.txt"), None, "the skipped command never ran");
}

#[test]
fn ctrl_c_during_a_command_keeps_the_results_for_the_next_run() {
    let mut bench = Bench::new();
    let mut chat =
        ScriptedChat::replying([next(&(runcommand("echo ctrl-c") + &newfile("a.txt", "a")))]);
    let stop = bench.run(&mut chat);
    assert!(
        matches!(&stop, Stop::Chat(f) if f.code == Code::Cancelled),
        "{stop:?}"
    );
    assert_eq!(chat.sent.len(), 1, "nothing more was sent");
    let session = bench.session();
    let InFlight::Sending { message, kind } = &session.in_flight else {
        panic!("{session:?}")
    };
    assert!(message.contains("code: KA_CANCELLED"), "{message}");
    assert_eq!(*kind, MessageKind::Results);
    assert_eq!(bench.file("a.txt"), None);
}

#[test]
fn driver_warnings_reach_the_watcher_and_secrets_never_reach_the_chat() {
    let secret = "k3yless-test-secret-value-0123456789";
    let mut bench = Bench::with(Settings {
        mode: Mode::Auto,
        redactor: Some(crate::redact::Redactor::new(
            vec![("TEST_TOKEN".to_string(), secret.to_string())],
            Vec::new(),
        )),
        ..Settings::default()
    });
    let mut chat = ScriptedChat {
        warnings: vec![Failure::new(Code::AttachmentUploadFailed, "pasted instead")],
        ..ScriptedChat::replying([done("ok")])
    };
    let (turn, _) = Turn::first("the task".into(), &chat, &bench.ws, &bench.settings);
    let events = &mut bench.events;
    let next = Next::Send {
        message: format!("the token is {secret}"),
        kind: MessageKind::Task,
    };
    let stop = turn.drive(next, &mut chat, &mut bench.host, &mut |e| {
        events.push(format!("{e:?}"))
    });
    assert_eq!(stop, stop_done("ok"));
    assert!(!chat.sent[0].contains(secret), "{}", chat.sent[0]);
    assert!(chat.sent[0].contains("[redacted"), "{}", chat.sent[0]);
    assert!(
        bench
            .events
            .iter()
            .any(|e| e.contains("AttachmentUploadFailed")),
        "{:?}",
        bench.events
    );
}

// Resume.

mod resume;
mod stopped;
