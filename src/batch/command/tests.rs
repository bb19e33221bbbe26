//! The orchestrator's decisions, with a person who answers from a list and a runner that starts
//! nothing: when the person is asked, and what; when the sandbox is left; what a result says.
//! Real processes in a real sandbox are tried in `tests/it/terminal.rs` and `tests/it/sandbox.rs`.

use std::collections::VecDeque;

use super::*;
use crate::batch::Person;

/// Answers each confirmation from a list (no once it runs out) and lets each contained attempt
/// meet the next refusal of a list.
#[derive(Default)]
struct Stand {
    answers: VecDeque<bool>,
    refusals: VecDeque<Refusal>,
    asked: Vec<Confirmation>,
    /// What ran, in order: `contained: …` or `unconfined: …`.
    ran: Vec<String>,
    /// The time limit of each attempt.
    limits: Vec<Duration>,
}

impl Person for Stand {
    fn say(&mut self, _: &str) {}
    fn ask(&mut self, _: &str) -> Option<String> {
        None
    }
    fn confirm(&mut self, confirmation: &Confirmation) -> bool {
        self.asked.push(confirmation.clone());
        self.answers.pop_front().unwrap_or(false)
    }
}

impl Runner for Stand {
    fn contained(&mut self, cmd: &str, timeout: Duration, _: Mode) -> Attempt {
        self.ran.push(format!("contained: {cmd}"));
        self.limits.push(timeout);
        Attempt {
            outcome: Outcome::default(),
            refusal: self.refusals.pop_front(),
        }
    }
    fn unconfined(&mut self, cmd: &str, timeout: Duration) -> Outcome {
        self.ran.push(format!("unconfined: {cmd}"));
        self.limits.push(timeout);
        Outcome::default()
    }
    fn commit(&mut self, _: &str) -> Outcome {
        Outcome::default()
    }
}

fn in_mode(mode: Mode) -> Settings {
    Settings {
        mode,
        ..Settings::default()
    }
}

fn refused() -> Refusal {
    Refusal::Refused(Failure::new(
        Code::SandboxDenied,
        "the sandbox refused a write",
    ))
}

fn code(outcome: &Outcome) -> Option<Code> {
    outcome.error.as_ref().map(|f| f.code)
}

/// A `timeout=1` the reply asked for.
const SECOND: Option<u32> = Some(1);

#[test]
fn the_time_limit_is_the_one_asked_for_at_most_the_maximum_else_the_default() {
    let settings = Settings {
        mode: Mode::Auto,
        default_timeout: Duration::from_secs(300),
        max_timeout: Duration::from_secs(1800),
        ..Settings::default()
    };
    let mut stand = Stand::default();
    for asked in [Some(5), Some(99_999), None] {
        run("ls", asked, &mut stand, &settings);
    }
    assert_eq!(
        stand.limits,
        [5, 1800, 300].map(Duration::from_secs),
        "{:?}",
        stand.ran
    );
    // Leaving the sandbox keeps the limit.
    let mut stand = Stand {
        answers: VecDeque::from([true]),
        refusals: VecDeque::from([refused()]),
        ..Stand::default()
    };
    run("ls /x", Some(7), &mut stand, &in_mode(Mode::Ask));
    assert_eq!(
        stand.limits,
        [7, 7].map(Duration::from_secs),
        "{:?}",
        stand.ran
    );
}

#[test]
fn a_denied_line_is_never_asked_about_nor_started() {
    let mut stand = Stand {
        answers: VecDeque::from([true]),
        ..Stand::default()
    };
    let outcome = run("rm -rf /", SECOND, &mut stand, &in_mode(Mode::Ask));
    assert_eq!(code(&outcome), Some(Code::CommandDenied));
    assert_eq!(outcome.details, ["tier: Denied"]);
    assert!(stand.asked.is_empty() && stand.ran.is_empty());
}

#[test]
fn a_risky_line_in_ask_mode_runs_only_after_a_yes() {
    for (answer, ran) in [(true, vec!["contained: touch a"]), (false, vec![])] {
        let mut stand = Stand {
            answers: VecDeque::from([answer]),
            ..Stand::default()
        };
        let outcome = run("touch a", SECOND, &mut stand, &in_mode(Mode::Ask));
        assert_eq!(stand.ran, ran);
        assert_eq!(stand.asked.len(), 1);
        assert_eq!(stand.asked[0].action, "run: touch a");
        assert_eq!(
            stand.asked[0].kind,
            ConfirmationKind::Approval {
                tier: Some(Tier::Risky)
            }
        );
        let expected = (!answer).then_some(Code::CommandDeclined);
        assert_eq!(code(&outcome), expected);
        assert_eq!(outcome.details, ["tier: Risky"]);
    }
}

#[test]
fn the_git_hazard_raises_a_read_only_git_line_and_a_missing_tool_is_not_started() {
    let hazard = Settings {
        git_hazards: vec!["core.fsmonitor".into()],
        ..in_mode(Mode::AutoSafe)
    };
    let mut stand = Stand::default();
    let outcome = run("git status", SECOND, &mut stand, &hazard);
    assert_eq!(code(&outcome), Some(Code::CommandDeclined));
    assert_eq!(
        stand.asked[0].reason,
        "the repository's own git configuration sets core.fsmonitor, which would make git run a program (git status)"
    );

    let missing = Settings {
        missing_tools: vec!["ls".into()],
        ..in_mode(Mode::Auto)
    };
    let mut stand = Stand::default();
    let outcome = run("ls", SECOND, &mut stand, &missing);
    assert_eq!(code(&outcome), Some(Code::ToolMissing));
    assert!(stand.ran.is_empty());
}

#[test]
fn a_refusal_in_ask_mode_is_offered_once_outside_the_sandbox() {
    let mut stand = Stand {
        answers: VecDeque::from([true]),
        refusals: VecDeque::from([refused()]),
        ..Stand::default()
    };
    let outcome = run("ls /x", SECOND, &mut stand, &in_mode(Mode::Ask));
    assert_eq!(stand.ran, ["contained: ls /x", "unconfined: ls /x"]);
    assert_eq!(stand.asked.len(), 1);
    assert_eq!(stand.asked[0].kind, ConfirmationKind::LeaveSandbox);
    assert_eq!(
        stand.asked[0].action,
        "run again without the sandbox: ls /x"
    );
    assert_eq!(stand.asked[0].reason, "the sandbox refused a write");
    assert_eq!(code(&outcome), None);
    assert_eq!(
        outcome.details,
        ["sandbox: off (you allowed it)", "tier: ReadOnly"]
    );

    let mut declining = Stand {
        refusals: VecDeque::from([refused()]),
        ..Stand::default()
    };
    let outcome = run("ls /x", SECOND, &mut declining, &in_mode(Mode::Ask));
    assert_eq!(declining.ran, ["contained: ls /x"]);
    assert_eq!(code(&outcome), Some(Code::SandboxDenied));
}

#[test]
fn outside_ask_mode_and_after_a_change_undone_nobody_is_offered_to_leave() {
    for mode in [Mode::AutoSafe, Mode::Auto] {
        let mut stand = Stand {
            answers: VecDeque::from([true]),
            refusals: VecDeque::from([refused()]),
            ..Stand::default()
        };
        let outcome = run("ls /x", SECOND, &mut stand, &in_mode(mode));
        assert!(stand.asked.is_empty(), "{mode:?}");
        assert_eq!(stand.ran, ["contained: ls /x"]);
        assert_eq!(code(&outcome), Some(Code::SandboxDenied));
    }
    let tampered = Refusal::Tampered(Failure::new(Code::SandboxDenied, "changed .git"));
    let mut stand = Stand {
        answers: VecDeque::from([true]),
        refusals: VecDeque::from([tampered]),
        ..Stand::default()
    };
    let outcome = run("ls", SECOND, &mut stand, &in_mode(Mode::Ask));
    assert!(stand.asked.is_empty());
    assert_eq!(code(&outcome), Some(Code::SandboxDenied));
}

#[test]
fn a_note_from_the_sandbox_is_a_line_of_a_success() {
    let mut stand = Stand {
        refusals: VecDeque::from([Refusal::Noted("note: a limit".into())]),
        ..Stand::default()
    };
    let outcome = run("ls", SECOND, &mut stand, &in_mode(Mode::Auto));
    assert_eq!(code(&outcome), None);
    assert_eq!(outcome.lines, ["note: a limit"]);
    assert!(outcome.read_only);
}
