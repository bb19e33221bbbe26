//! The batch rules: failure modes, on_error, @@ask, confirmations and the order in which @@say
//! reaches the user. The person at the terminal is played by `Scripted`, which records what it
//! was shown and answers from a list; runcommand and commit answers are scripted too, so the
//! engine's rules are tested apart from process and git behaviour.

use std::collections::VecDeque;

use keyless::batch::{
    self, Attempt, Confirmation, Done, Outcome, Person, Report, Runner, Settings, results,
};
use keyless::catalog::{Code, Failure};
use keyless::config::{FailureMode, Limits, Mode, Pace};
use keyless::protocol::parse;
use keyless::workspace::Workspace;
use keyless::workspace::backup::{Backup, BatchKind};

#[derive(Default)]
struct Scripted {
    said: Vec<String>,
    answers: VecDeque<Option<String>>,
    approvals: VecDeque<bool>,
    asked_to_confirm: Vec<String>,
    /// Commands whose text contains "fail" fail.
    ran: Vec<String>,
}

impl Person for Scripted {
    fn say(&mut self, message: &str) {
        self.said.push(message.to_string());
    }
    fn ask(&mut self, _: &str) -> Option<String> {
        self.answers.pop_front().flatten()
    }
    fn confirm(&mut self, confirmation: &Confirmation) -> bool {
        self.asked_to_confirm.push(confirmation.action.clone());
        self.approvals.pop_front().unwrap_or(false)
    }
}

impl Runner for Scripted {
    fn contained(&mut self, cmd: &str, _: std::time::Duration, _: Mode) -> Attempt {
        self.ran.push(cmd.to_string());
        if cmd.contains("fail") {
            // The code is irrelevant to the batch rules; the real runner's codes are tested
            // with real processes.
            Outcome::failed(Failure::new(Code::Internal, "scripted failure")).into()
        } else {
            Outcome::default().into()
        }
    }
    fn unconfined(&mut self, cmd: &str, _: std::time::Duration) -> Outcome {
        unreachable!("no scripted command is refused by a sandbox: {cmd}")
    }
    fn commit(&mut self, _: &str) -> Outcome {
        Outcome::default()
    }
}

fn run(reply: &str, host: &mut Scripted, settings: Settings) -> Report {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let parsed = parse(reply, &settings.limits);
    let script = parsed
        .script
        .unwrap_or_else(|| panic!("{:?}", parsed.diagnostics));
    let mut backup = Backup::new(&ws, BatchKind::Batch, "test");
    batch::execute(&script, &ws, &mut backup, host, &settings, (2, 5))
}

fn settings(failure_mode: FailureMode) -> Settings {
    Settings {
        pace: Pace::Batch,
        mode: Mode::Auto,
        failure_mode,
        limits: Limits {
            max_commands_per_response: 20,
            ..Limits::default()
        },
        ..Settings::default()
    }
}

fn cmd(text: &str) -> String {
    format!("@@runcommand\n<<<CMD\n{text}\nCMD>>>\n@@end\n")
}

fn cmd_with(option: &str, text: &str) -> String {
    format!("@@runcommand {option}\n<<<CMD\n{text}\nCMD>>>\n@@end\n")
}

const NEXT: &str = "@@next\n@@end\n@@eof\n";

#[test]
fn stop_on_mutation_failure_lets_probes_fail() {
    let reply = cmd("ls probe-fail") + &cmd("cargo build fail") + &cmd("echo never") + NEXT;
    let mut host = Scripted::default();
    let report = run(
        &reply,
        &mut host,
        settings(FailureMode::StopOnMutationFailure),
    );
    assert_eq!(host.ran, vec!["ls probe-fail", "cargo build fail"]);
    assert_eq!(
        report.skipped[0].reason,
        keyless::batch::SkipReason::StoppedAt(2)
    );
}

#[test]
fn stop_on_any_failure_stops_at_a_probe() {
    let reply = cmd("ls probe-fail") + &cmd("echo never") + NEXT;
    let mut host = Scripted::default();
    let report = run(&reply, &mut host, settings(FailureMode::StopOnAnyFailure));
    assert_eq!(host.ran, vec!["ls probe-fail"]);
    assert_eq!(
        report.skipped[0].reason,
        keyless::batch::SkipReason::StoppedAt(1)
    );
}

#[test]
fn continue_runs_everything() {
    let reply = cmd("echo fail-1") + &cmd("echo fail-2") + &cmd("echo ok") + NEXT;
    let mut host = Scripted::default();
    let report = run(&reply, &mut host, settings(FailureMode::Continue));
    assert_eq!(host.ran.len(), 3);
    assert!(report.skipped.is_empty());
}

#[test]
fn on_error_overrides_the_mode_for_one_command() {
    let reply =
        cmd_with("on_error=continue", "cargo test fail-tolerated") + &cmd("echo runs") + NEXT;
    let mut host = Scripted::default();
    run(&reply, &mut host, settings(FailureMode::StopOnAnyFailure));
    assert_eq!(host.ran, vec!["cargo test fail-tolerated", "echo runs"]);

    let reply = cmd_with("on_error=stop", "ls probe-fail") + &cmd("echo never") + NEXT;
    let mut host = Scripted::default();
    run(&reply, &mut host, settings(FailureMode::Continue));
    assert_eq!(host.ran, vec!["ls probe-fail"]);
}

#[test]
fn a_failure_before_done_withholds_it() {
    let reply = cmd_with("on_error=continue", "cargo test fail") + "@@done\n@@end\n@@eof\n";
    let mut host = Scripted::default();
    let report = run(&reply, &mut host, settings(FailureMode::Continue));
    assert!(
        matches!(report.done, Done::NotHonoured { .. }),
        "{:?}",
        report.done
    );
}

#[test]
fn ask_answers_become_the_result() {
    let reply = "@@ask\n<<<MSG\nWhich port?\nMSG>>>\n@@end\n".to_string() + NEXT;
    let mut host = Scripted {
        answers: VecDeque::from([Some("8080".to_string())]),
        ..Scripted::default()
    };
    let report = run(
        &reply,
        &mut host,
        settings(FailureMode::StopOnMutationFailure),
    );
    assert_eq!(
        report.results[0].outcome.block,
        Some(("ANSWER", "8080".to_string()))
    );
    assert!(results::render(&report).contains("<<<ANSWER\n8080\nANSWER>>>\n"));
}

#[test]
fn deletefile_asks_in_ask_mode_only() {
    let reply = "@@deletefile a.txt\n@@end\n".to_string() + NEXT;
    let mut host = Scripted {
        approvals: VecDeque::from([true]),
        ..Scripted::default()
    };
    let ask = Settings {
        mode: Mode::Ask,
        ..settings(FailureMode::Continue)
    };
    let report = run(&reply, &mut host, ask.clone());
    assert_eq!(host.asked_to_confirm, vec!["delete a.txt"]);
    assert!(report.results[0].outcome.error.is_none());

    let mut declining = Scripted::default();
    let report = run(&reply, &mut declining, ask);
    assert_eq!(
        report.results[0].outcome.error.as_ref().map(|f| f.code),
        Some(Code::CommandDeclined)
    );

    for mode in [Mode::AutoSafe, Mode::Auto] {
        let mut host = Scripted::default();
        let report = run(
            &reply,
            &mut host,
            Settings {
                mode,
                ..settings(FailureMode::Continue)
            },
        );
        assert!(host.asked_to_confirm.is_empty());
        assert!(report.results[0].outcome.error.is_none());
    }
}

#[test]
fn say_reaches_the_user_in_order_even_after_done() {
    let reply = "@@say\n<<<MSG\nfirst\nMSG>>>\n@@end\n".to_string()
        + &cmd("echo x")
        + "@@done\n@@end\n"
        + &cmd("echo after")
        + "@@say\n<<<MSG\nlast\nMSG>>>\n@@end\n@@eof\n";
    let mut host = Scripted::default();
    let report = run(
        &reply,
        &mut host,
        settings(FailureMode::StopOnMutationFailure),
    );
    assert_eq!(host.said, vec!["first", "last"]);
    assert_eq!(host.ran, vec!["echo x"]);
    assert_eq!(report.done, Done::Honoured { message: None });
    assert!(report.all_ok());
}

#[test]
fn results_header_numbers_turn_and_batch_and_results() {
    let reply = cmd("echo one") + &cmd("echo two") + NEXT;
    let report = run(
        &reply,
        &mut Scripted::default(),
        settings(FailureMode::Continue),
    );
    let text = results::render(&report);
    assert!(text.starts_with("[KEYLESSAGENT RESULTS] turn=2 batch=5\n--- result 1/2 | #1 runcommand | echo one ---\nstatus: ok | tier: ReadOnly\n--- result 2/2 | #2 runcommand | echo two ---\n"), "{text}");
    assert!(text.ends_with("[END RESULTS]\nContinue with the next commands, or finish with @@done. Reply in AgentScript v1 only.\n"));
}

/// The done-check (`--until`) runs only when the reply's `@@done` would be honoured, after every
/// command; its failure keeps `@@done` from being honoured and is reported after the results.
#[test]
fn the_done_check_runs_only_for_an_honoured_done_and_its_failure_refuses_it() {
    const DONE: &str = "@@done\n@@end\n@@eof\n";
    let with_check = |check: &str| Settings {
        until: Some(check.to_string()),
        ..settings(FailureMode::StopOnAnyFailure)
    };

    // A passing check: done stays honoured, and the check ran last.
    let mut host = Scripted::default();
    let report = run(
        &(cmd("echo one") + DONE),
        &mut host,
        with_check("make check"),
    );
    assert_eq!(host.ran, ["echo one", "make check"]);
    assert_eq!(report.done, Done::Honoured { message: None });
    assert!(report.check.as_ref().unwrap().passed());

    // A failing check: done is refused, with the check's code and its command named.
    let mut host = Scripted::default();
    let report = run(
        &(cmd("echo one") + DONE),
        &mut host,
        with_check("make fail"),
    );
    let Done::NotHonoured { why } = &report.done else {
        panic!("{:?}", report.done)
    };
    assert!(why.contains("`make fail`"), "{why}");
    let check = report.check.as_ref().unwrap();
    assert_eq!(
        check.outcome.error.as_ref().map(|f| f.code),
        Some(Code::DoneCheckFailed)
    );
    let text = results::render(&report);
    let check_at = text.find("--- done-check | make fail ---").unwrap();
    assert!(
        text[..check_at].contains("#1 runcommand | echo one"),
        "{text}"
    );

    // No check when @@done is not honoured anyway (a command failed), or not asked for.
    let mut host = Scripted::default();
    let report = run(
        &(cmd("fail now") + DONE),
        &mut host,
        with_check("make check"),
    );
    assert_eq!(host.ran, ["fail now"]);
    assert!(report.check.is_none());
    let mut host = Scripted::default();
    let report = run(
        &(cmd("echo one") + NEXT),
        &mut host,
        with_check("make check"),
    );
    assert_eq!(host.ran, ["echo one"]);
    assert!(report.check.is_none());
}
