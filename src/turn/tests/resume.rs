//! Resuming a turn that stopped half-way: a reply already on the page, an unanswered message,
//! a chat that is gone, a saved reply that never ran, a batch cut short, a finished turn.

use super::*;

#[test]
fn resume_waits_for_a_reply_already_on_the_page_without_resending() {
    let mut bench = Bench::new();
    save(&bench, &interrupted(Some("the message"), None));
    let mut chat = ScriptedChat {
        reopened: Some(Reopened::Answered),
        ..ScriptedChat::replying([done("read from the page")])
    };
    assert_eq!(bench.resume(&mut chat), stop_done("read from the page"));
    assert!(chat.sent.is_empty(), "{:?}", chat.sent);
    assert_eq!(
        chat.reopens,
        [(
            "https://chat.test/c/7".to_string(),
            Some("the message".to_string())
        )]
    );
    assert!(bench.events[0].contains("Answered"), "{:?}", bench.events);
}

#[test]
fn resume_sends_an_unanswered_message_again() {
    let mut bench = Bench::new();
    save(&bench, &interrupted(Some("the message"), None));
    let mut chat = ScriptedChat::replying([done("answered")]);
    assert_eq!(bench.resume(&mut chat), stop_done("answered"));
    assert_eq!(chat.sent, ["the message"]);
    assert_eq!(chat.new_chats, 0, "in the same chat");
}

#[test]
fn resume_in_a_chat_that_is_gone_starts_a_new_one_with_the_rules() {
    let mut bench = Bench::new();
    save(&bench, &interrupted(Some("the message"), None));
    let mut chat = ScriptedChat {
        reopened: Some(Reopened::Empty),
        ..ScriptedChat::replying([done("in a new chat")])
    };
    assert_eq!(bench.resume(&mut chat), stop_done("in a new chat"));
    assert_eq!(chat.new_chats, 1);
    assert!(chat.sent[0].starts_with("THE RULES\n"), "{}", chat.sent[0]);
    assert!(chat.sent[0].ends_with("the message\n"), "{}", chat.sent[0]);
}

#[test]
fn resume_carries_out_a_saved_reply_that_never_ran() {
    let mut bench = Bench::new();
    save(
        &bench,
        &interrupted(None, Some(next(&newfile("a.txt", "a")))),
    );
    let mut chat = ScriptedChat::replying([done("carried out")]);
    assert_eq!(bench.resume(&mut chat), stop_done("carried out"));
    assert_eq!(bench.file("a.txt").as_deref(), Some("a\n"));
    assert!(
        chat.sent[0].starts_with(
            "[KEYLESSAGENT RESULTS] turn=1 batch=1\n--- result 1/1 | #1 newfile | a.txt ---"
        ),
        "{}",
        chat.sent[0]
    );
}

#[test]
fn resume_reports_a_batch_cut_short_without_running_any_of_it_again() {
    let mut bench = Bench::new();
    let reply = next(&(newfile("a.txt", "a") + &runcommand("make") + &newfile("c.txt", "c")));
    save(&bench, &interrupted(None, Some(reply)));
    let mut recorder = Recorder::new(&bench.ws);
    recorder.journal_start();
    for (index, result) in [(1, None), (1, Some("status: ok")), (2, None)] {
        recorder.journal(&JournalLine {
            batch: 1,
            index,
            result: result.map(str::to_string),
            outcome: result.map(|_| crate::turn::record::Recorded::ok()),
            backup: None,
        });
    }
    let mut chat = ScriptedChat::replying([done("reported")]);
    assert_eq!(bench.resume(&mut chat), stop_done("reported"));
    assert!(bench.host.ran.is_empty(), "nothing ran again");
    assert_eq!(bench.file("c.txt"), None);
    let results = &chat.sent[0];
    assert!(
        results.contains("#2 runcommand | make ---\nstatus: error | code: KA_CANCELLED"),
        "{results}"
    );
    assert!(results.contains("skipped: #3 newfile | c.txt"), "{results}");
}

#[test]
fn resume_of_a_finished_turn_has_nothing_to_do() {
    let mut bench = Bench::new();
    save(&bench, &interrupted(None, None));
    let mut chat = ScriptedChat::default();
    assert_eq!(
        bench.resume(&mut chat),
        stop_done("Nothing to resume: the saved turn had finished.")
    );
    assert!(chat.sent.is_empty());
}

/// What a resume holds back for a limit saved when the turn stopped: `Some(left)` when it waited
/// (the countdown's first time left), `None` when it went on at once, `Err` when it stopped.
fn held_back(trouble: record::Trouble, wait: bool) -> Result<Option<Duration>, Failure> {
    held_back_on(trouble, wait, &mut ScriptedChat::default())
}

/// [`held_back`] on a chat of the test's.
fn held_back_on(
    trouble: record::Trouble,
    wait: bool,
    chat: &mut ScriptedChat,
) -> Result<Option<Duration>, Failure> {
    let bench = Bench::with(Settings {
        mode: Mode::Auto,
        wait_on_limits: wait,
        ..Settings::default()
    });
    let session = Session {
        trouble: Some(trouble),
        ..interrupted(Some("the message"), None)
    };
    let mut turn = Turn::new(session, &bench.ws, &bench.settings);
    turn.sleep = |_| {};
    let mut first_left = None;
    let mut told = false;
    let stop = turn.limit_in_force(chat, &mut |event| match event {
        Event::Trouble(failure) => {
            assert!(failure.said.is_some(), "{failure:?}");
            told = true;
        }
        Event::Waiting { left, .. } => {
            assert!(told, "a countdown before the trouble was told");
            first_left.get_or_insert(left);
        }
        _ => {}
    });
    match stop {
        Some(Stop::Chat(failure)) => Err(failure),
        Some(other) => panic!("{other:?}"),
        None => Ok(first_left),
    }
}

fn met(code: Code, ago: u64, resets_in: Option<u64>) -> record::Trouble {
    let now = now_unix();
    record::Trouble {
        code: code.code().to_string(),
        words: "slow down".to_string(),
        at: now - ago,
        resets_at: resets_in.map(|s| now + s),
    }
}

#[test]
fn a_resume_with_wait_waits_a_throttle_that_gave_no_time_from_when_it_came() {
    let left = held_back(met(Code::RateLimited, 10, None), true)
        .unwrap()
        .expect("sent into the throttle at once");
    // 60 s from when it came, 10 s ago, and the margin of a wait said in seconds.
    assert!(
        (Duration::from_secs(49)..=Duration::from_secs(53)).contains(&left),
        "{left:?}"
    );
    // Its minute passed: nothing to wait for.
    assert_eq!(held_back(met(Code::RateLimited, 61, None), true), Ok(None));
    // Without --wait, the person who resumes says the time has come.
    assert_eq!(held_back(met(Code::RateLimited, 10, None), false), Ok(None));
    // A plan's limit that named no reset: nothing to wait for, the person decides.
    assert_eq!(held_back(met(Code::UsageLimit, 10, None), true), Ok(None));
}

/// The chat's tab closed while a resume waits for a limit's reset: told at once, not when the
/// reset comes.
#[test]
fn a_tab_closed_in_a_resume_s_wait_is_told_at_once() {
    let tab_closed = Failure::new(Code::BrowserConnectionFailed, "the chat's tab was closed");
    let mut chat = ScriptedChat {
        lost: Some(tab_closed.clone()),
        ..ScriptedChat::default()
    };
    let stopped = held_back_on(met(Code::UsageLimit, 10, Some(3600)), true, &mut chat);
    assert_eq!(stopped, Err(tab_closed));
    assert_eq!(chat.lost_asked, 1);
}

#[test]
fn a_resume_without_wait_stops_before_a_named_reset_saying_how_to_go_on() {
    let failure = held_back(met(Code::UsageLimit, 10, Some(600)), false).unwrap_err();
    assert_eq!(failure.code, Code::UsageLimit);
    assert!(
        failure.reason.contains("\"slow down\"")
            && failure.reason.contains("keyless run --resume --wait")
            && failure.reason.contains("--now"),
        "{}",
        failure.reason
    );
    let left = held_back(met(Code::UsageLimit, 10, Some(600)), true)
        .unwrap()
        .expect("not waited");
    assert!(left > Duration::from_secs(598), "{left:?}");
    // A site error is no limit: a resume tries again at once.
    assert_eq!(
        held_back(met(Code::SiteError, 10, Some(600)), true),
        Ok(None)
    );
}
