//! Issue 31's claims, attacked by a reviewer who had not read the fix: a chat site kept outside
//! keyless's own code (`tests/attacks31/site.py`, "Parlor": a textarea, bubbles with no role,
//! a copy button per reply, replies streamed as JSON lines over fetch, conversations at
//! `/talk/<id>`, a scripted model) with one fault injected per run at the reply of the first or
//! second exchange, in wordings and layouts unlike keyless's local page: a limit in the reply's
//! place, in an error strip with no role, in a toast, in a modal; a throttle; a spend limit; a
//! server error turn with a Retry button; a stream that stalls; a connection cut mid-stream; a
//! login redirect; a Cloudflare-like check at the chat's address; the tab closed mid-reply.
//! keyless gets the site's selectors (`tests/attacks31/selectors.json`, no `texts`, no
//! `ErrorBanner`) and runs headless in a tab of the test binary's shared browser.
//!
//! Each test asserts what the issue asks: the code and the site's own words, the stop within
//! seconds of the fault, the resume command named, nothing sent into a refusing chat and no
//! message answered twice (the site's own record), and that `--resume` (the fault lifted) or
//! `--wait` finishes the task with each command run once and the files byte for byte. Seven
//! cases keyless got wrong when this was written (a cut connection, an error turn in unknown
//! words, a bot check's address and its script, a sign-in page in a window, a dialog's words,
//! a French month) were fixed against these tests; none is skipped.

use std::fs;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::common::local_keyless::{attached, keyless_at};
use crate::common::python_site::PythonSite;

/// The reply timeout keyless gets: short, so a fault keyless does not name costs a test 20 s, not
/// ten minutes, and a stop "within seconds" is told from a stop at the timeout.
const REPLY_TIMEOUT: u64 = 20;

/// How long a stream may make no progress before keyless calls it stalled (the config minimum
/// is 2; 3 leaves room for a slow shared machine between chunks).
const STALL: u64 = 3;

/// How long after the site refused or failed a message keyless may take to stop and say so:
/// "within seconds", well under [`REPLY_TIMEOUT`], with room for two cores shared by a suite.
const NAMED_WITHIN: f64 = 10.0;

/// The first reply: a file with bytes an editor would change, and a command whose every run
/// leaves a line (a second run would show).
const REPLY_1: &str = "```agentscript\n@@newfile one.txt\n<<<CONTENT\nfirst file\t tab  \n  indented\n\nend\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\nprintf 'first\\n' >> runs.log\nCMD>>>\n@@end\n@@next\n@@end\n@@eof\n```";

/// The second reply: another file, another counted command, and `@@done`.
const REPLY_2: &str = "```agentscript\n@@newfile two.txt\n<<<CONTENT\nsecond file\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\nprintf 'second\\n' >> runs.log\nCMD>>>\n@@end\n@@done\n<<<MSG\nBoth files are written.\nMSG>>>\n@@end\n@@eof\n```";

/// The task's files once it is done, byte for byte.
const ONE: &str = "first file\t tab  \n  indented\n\nend\n";
const TWO: &str = "second file\n";
const RUNS: &str = "first\nsecond\n";

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// `date` formats an instant in the machine's local time, as keyless shows a reset.
fn local(epoch: u64, format: &str) -> String {
    let out = Command::new("date")
        .arg("-d")
        .arg(format!("@{epoch}"))
        .arg(format!("+{format}"))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Parlor serving on this machine with its scripted model and one fault.
struct Site(PythonSite);

impl std::ops::Deref for Site {
    type Target = PythonSite;

    fn deref(&self) -> &PythonSite {
        &self.0
    }
}

impl Site {
    fn start(fault: Value) -> Site {
        Site(PythonSite::start(
            "attacks31",
            &[
                (
                    "script.json",
                    serde_json::to_string(&[REPLY_1, REPLY_2]).unwrap(),
                ),
                ("fault.json", fault.to_string()),
            ],
        ))
    }

    /// Lifts the fault: the person logged in, the limit reset, the site works again.
    fn lift(&self) {
        let path = self.dir.path().join("fault.json");
        let mut fault: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        fault["lifted"] = json!(true);
        fs::write(path, fault.to_string()).unwrap();
    }

    fn lines(&self, name: &str) -> Vec<Value> {
        fs::read_to_string(self.dir.path().join(name))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Every message the site received, in order, with what became of it (`answered…`,
    /// `refused:<kind>`).
    fn received(&self) -> Vec<Value> {
        self.lines("received.jsonl")
            .into_iter()
            .filter(|r| r.get("outcome").is_some())
            .collect()
    }

    /// When the faulty reply began streaming (epoch seconds), once it has.
    fn streaming_since(&self) -> Option<f64> {
        self.lines("received.jsonl")
            .iter()
            .find(|r| r.get("streaming").is_some())
            .and_then(|r| r["t"].as_f64())
    }

    /// The pages (HTML) the browser asked for, by path.
    fn visits(&self) -> Vec<String> {
        self.lines("visits.jsonl")
            .iter()
            .map(|v| v["path"].as_str().unwrap().to_string())
            .collect()
    }

    /// When the site first refused or failed a message (epoch seconds).
    fn first_fault_at(&self) -> f64 {
        self.received()
            .iter()
            .find(|r| r["outcome"].as_str().unwrap() != "answered")
            .and_then(|r| r["t"].as_f64())
            .unwrap_or_else(|| panic!("the fault never fired: {:#?}", self.received()))
    }

    /// No message reached the model twice: every answered text is unique, and no message was
    /// sent into the chat after it refused one (with the fault still on) more than `refusals`.
    fn assert_nothing_twice(&self, refusals: usize) {
        let received = self.received();
        let answered: Vec<&str> = received
            .iter()
            .filter(|r| r["outcome"].as_str().unwrap().starts_with("answered"))
            .map(|r| r["text"].as_str().unwrap())
            .collect();
        assert_each_once(&answered, "answered", &received);
        let refused = received
            .iter()
            .filter(|r| r["outcome"].as_str().unwrap().starts_with("refused"))
            .count();
        assert!(
            refused <= refusals,
            "{refused} messages were sent into a chat refusing them (at most {refusals}): {received:#?}"
        );
        assert_eq!(answered.len(), 2, "the model answered {received:#?}");
    }
}

/// One workspace and browser profile, run on the site by the built keyless.
struct Place {
    dir: tempfile::TempDir,
}

/// What one keyless run printed, how it ended and when.
#[derive(Debug)]
struct Out {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    ended: f64,
    took: f64,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        fs::create_dir(&ws).unwrap();
        fs::write(
            ws.join("keyless.json"),
            format!(
                "{{ \"Browser\": {{ \"ReplyTimeoutSeconds\": {REPLY_TIMEOUT}, \"StallSeconds\": {STALL} }} }}"
            ),
        )
        .unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&ws)
            .status()
            .unwrap();
        assert!(git.success());
        Place { dir }
    }

    fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn command(&self, site: &Site, args: &[&str]) -> Command {
        let mut all = vec!["run", "--mode", "auto", "--pace", "batch"];
        all.extend_from_slice(args);
        let mut cmd = attached(keyless_at(
            &site.url(),
            Some("parlor"),
            &self.dir.path().join("browser"),
            self.dir.path(),
            &all,
        ));
        cmd.arg("--selectors")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks31/selectors.json"))
            .arg("--workspace")
            .arg(self.ws())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// keyless as a person runs it with a window they see (no `--headless`), in a tab of the
    /// shared browser: a wall mid-turn is for them to pass, and keyless waits for it.
    fn command_in_a_window(&self, site: &Site, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_keyless"));
        cmd.args(["run", "--mode", "auto", "--pace", "batch"])
            .args(args)
            .args(["--site", "parlor", "--url", &site.url()])
            .arg("--profile")
            .arg(self.dir.path().join("browser"))
            .args(["--cdp", crate::common::shared_browser::cdp_url()])
            .arg("--selectors")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks31/selectors.json"))
            .arg("--workspace")
            .arg(self.ws())
            .env("XDG_CONFIG_HOME", self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn run(&self, site: &Site, args: &[&str]) -> Out {
        let started = Instant::now();
        let out = self.command(site, args).output().unwrap();
        Out {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
            ended: now(),
            took: started.elapsed().as_secs_f64(),
        }
    }

    /// `keyless status` in the workspace (no browser).
    fn status(&self) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
            .arg("status")
            .arg("--workspace")
            .arg(self.ws())
            .env("XDG_CONFIG_HOME", self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    }

    fn session(&self) -> Value {
        serde_json::from_str(&fs::read_to_string(self.ws().join(".agent/session.json")).unwrap())
            .unwrap()
    }

    /// The task's files byte for byte, each command run once.
    fn assert_done(&self) {
        let ws = self.ws();
        assert_eq!(fs::read_to_string(ws.join("one.txt")).unwrap(), ONE);
        assert_eq!(fs::read_to_string(ws.join("two.txt")).unwrap(), TWO);
        assert_eq!(
            fs::read_to_string(ws.join("runs.log")).unwrap(),
            RUNS,
            "a command ran twice or not at all"
        );
    }
}

/// No text of `texts` (the messages the site `what`: answered, sent) comes twice.
fn assert_each_once(texts: &[&str], what: &str, received: &[Value]) {
    for (i, text) in texts.iter().enumerate() {
        assert!(
            !texts[..i].contains(text),
            "a message was {what} twice: {received:#?}"
        );
    }
}

const TASK: &str = "write the two files";

/// The fault `kind` in `place` with the site's `words`, at the reply of exchange `at`.
fn fault(kind: &str, at: u32, place: &str, words: &str) -> Value {
    json!({ "kind": kind, "at": at, "place": place, "words": words })
}

/// A run that the site's trouble stopped: the code, the site's words and the resume command in
/// what keyless said, within [`NAMED_WITHIN`] of the fault, exit 4, and the trouble and its
/// code in `keyless status`.
fn assert_stopped(place: &Place, site: &Site, out: &Out, code: &str, words: &str) {
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains(code), "no {code}: {out:#?}");
    assert!(
        out.stderr.contains(words),
        "the site's words {words:?} are not shown: {out:#?}"
    );
    assert!(
        out.stderr.contains("keyless run --resume"),
        "the resume command is not named: {out:#?}"
    );
    let after = out.ended - site.first_fault_at();
    assert!(
        after < NAMED_WITHIN,
        "stopped {after:.1}s after the fault (at most {NAMED_WITHIN}s): {out:#?}"
    );
    let status = place.status();
    assert!(
        status.contains("last trouble") && status.contains(code) && status.contains(words),
        "keyless status does not show the trouble: {status}"
    );
}

/// Lifts the fault and resumes: the task finishes, nothing twice. The person knows the limit
/// was lifted before the reset the site named (`--now`; a plain resume would stop there).
fn assert_resumes(place: &Place, site: &Site, refusals: usize) -> Out {
    site.lift();
    let out = place.run(site, &["--resume", "--now"]);
    assert_eq!(out.code, Some(0), "--resume did not finish: {out:#?}");
    place.assert_done();
    site.assert_nothing_twice(refusals);
    out
}

/// A limit, a throttle or a spend limit, anywhere on the page, at exchange `at`: named with its
/// words (and `reset`, the reset as keyless shows it, when given), nothing sent after the
/// refusal, and `--resume` finishes in the same chat.
fn refusal(kind: &str, at: u32, place_on_page: &str, words: &str, code: &str, reset: Option<&str>) {
    let site = Site::start(fault(kind, at, place_on_page, words));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert_stopped(&place, &site, &out, code, words);
    if let Some(reset) = reset {
        assert!(
            out.stderr.contains(reset),
            "the reset {reset:?} is not shown: {out:#?}"
        );
        assert!(
            place.status().contains("resets in"),
            "status: {}",
            place.status()
        );
    }
    assert_eq!(
        site.received().len(),
        at as usize,
        "messages went after the refusal"
    );
    let chat = place.session()["chat_url"].clone();
    assert_resumes(&place, &site, 1);
    if at > 1 {
        assert!(
            chat.as_str().is_some_and(|c| c.contains("/talk/")),
            "the chat's address was not kept: {chat}"
        );
        let answered = site.received();
        let thread = answered[0]["thread"].as_str().unwrap();
        assert!(
            answered.iter().all(|r| r["thread"] == thread),
            "resume did not go on in the same chat: {answered:#?}"
        );
    }
}

/// "resets at 4:00 PM" in the reply's place, mid-turn.
#[test]
fn a_usage_limit_in_the_replys_place_with_a_clock_time_is_named_and_resumed() {
    refusal(
        "limit",
        2,
        "turn",
        "You've reached your message limit. Your limit resets at 4:00 PM.",
        "KA_USAGE_LIMIT",
        Some("16:00 local time"),
    );
}

/// "try again in 3 hours" in a toast that goes away after 8 s.
#[test]
fn a_usage_limit_in_a_toast_with_a_relative_time_is_named_and_resumed() {
    refusal(
        "limit",
        2,
        "toast",
        "You're out of messages. Try again in 3 hours.",
        "KA_USAGE_LIMIT",
        Some("It resets in "),
    );
    // The instant: three hours from now, to the minute (either side of a minute's turn).
    let site = Site::start(fault(
        "limit",
        2,
        "toast",
        "You're out of messages. Try again in 3 hours.",
    ));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    let soon = now() as u64 + 3 * 3600;
    assert!(
        [soon - 60, soon, soon + 60].iter().any(|t| out
            .stderr
            .contains(&format!("at {} local time", local(*t, "%Y-%m-%d %H:%M")))),
        "not three hours from now: {out:#?}"
    );
}

/// An ISO instant in the reply's place.
#[test]
fn a_usage_limit_with_an_iso_reset_is_named_with_that_instant() {
    let reset = (now() as u64 / 60 + 26 * 60) * 60;
    let iso = Command::new("date")
        .args(["-u", "-d", &format!("@{reset}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    let iso = String::from_utf8_lossy(&iso.stdout).trim().to_string();
    refusal(
        "limit",
        2,
        "turn",
        &format!("Usage cap hit — resets {iso}"),
        "KA_USAGE_LIMIT",
        Some(&format!("at {} local time", local(reset, "%Y-%m-%d %H:%M"))),
    );
}

/// "after 14:30" in the page's error strip (no role, only a class), in German.
#[test]
fn a_german_usage_limit_in_the_error_strip_is_named_with_its_reset() {
    refusal(
        "limit",
        2,
        "area",
        "Du hast dein Nachrichtenlimit erreicht. Es wird um 14:30 Uhr zurückgesetzt.",
        "KA_USAGE_LIMIT",
        Some("14:30 local time"),
    );
}

/// French, with a clock time written the French way.
#[test]
fn a_french_usage_limit_in_the_error_strip_is_named_with_its_reset() {
    refusal(
        "limit",
        2,
        "area",
        "Vous avez atteint votre limite de messages. Réessayez après 14h30.",
        "KA_USAGE_LIMIT",
        Some("14:30 local time"),
    );
}

/// Japanese, in the reply's place.
#[test]
fn a_japanese_usage_limit_is_named_with_its_reset() {
    refusal(
        "limit",
        2,
        "turn",
        "メッセージの上限に達しました。午後4時にリセットされます。",
        "KA_USAGE_LIMIT",
        Some("16:00 local time"),
    );
}

/// A month and day ("Dec 3"), at the first exchange: the task itself was refused.
#[test]
fn a_usage_limit_with_a_month_and_day_at_the_first_exchange_is_named_and_resumed() {
    let tomorrow = now() as u64 + 86_400;
    refusal(
        "limit",
        1,
        "turn",
        &format!(
            "You've hit the free plan limit. You can send more messages {}.",
            local(tomorrow, "%b %-d")
        ),
        "KA_USAGE_LIMIT",
        Some(&local(tomorrow, "%Y-%m-%d")),
    );
}

/// French month and day ("le 3 déc.").
#[test]
fn a_french_usage_limit_with_a_month_and_day_is_named_with_its_reset() {
    let tomorrow = now() as u64 + 86_400;
    let months = [
        "janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.",
        "déc.",
    ];
    let month: usize = local(tomorrow, "%-m").parse().unwrap();
    refusal(
        "limit",
        2,
        "area",
        &format!(
            "Vous avez atteint la limite de messages. Réessayez le {} {}",
            local(tomorrow, "%-d"),
            months[month - 1]
        ),
        "KA_USAGE_LIMIT",
        Some(&local(tomorrow, "%Y-%m-%d")),
    );
}

/// A modal dialog with a title and an acknowledge button: the words quoted are the dialog's
/// message, not its title and button run into it ("Hold onLimit reached. … 14:30.OK").
#[test]
fn a_usage_limit_in_a_modal_is_quoted_as_the_site_wrote_it() {
    let words = "Limit reached. Come back after 14:30.";
    refusal(
        "limit",
        2,
        "modal",
        words,
        "KA_USAGE_LIMIT",
        Some("14:30 local time"),
    );
    // The same run again, to read what keyless quoted.
    let site = Site::start(fault("limit", 2, "modal", words));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert!(
        !out.stderr.contains("Hold onLimit") && !out.stderr.contains("14:30.OK"),
        "the dialog's words run together: {out:#?}"
    );
}

/// The same where the dialog's title and message are spans its flex column draws as lines of
/// their own: still apart in the words quoted ("Hold on Limit reached …", never "Hold onLimit").
#[test]
fn a_usage_limit_in_a_dialog_of_spans_is_quoted_with_its_lines_apart() {
    let words = "Limit reached. Come back after 14:30.";
    let site = Site::start(fault("limit", 2, "spanmodal", words));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert!(out.stderr.contains("KA_USAGE_LIMIT"), "{out:#?}");
    assert!(out.stderr.contains(words), "{out:#?}");
    assert!(
        !out.stderr.contains("Hold onLimit") && !out.stderr.contains("14:30.OK"),
        "the dialog's words run together: {out:#?}"
    );
}

/// A throttle in a toast.
#[test]
fn a_throttle_in_a_toast_is_named_and_resumed() {
    refusal(
        "throttle",
        2,
        "toast",
        "You're sending messages too quickly. Please slow down.",
        "KA_RATE_LIMITED",
        None,
    );
}

/// A throttle in a modal whose button says only "OK".
#[test]
fn a_throttle_in_a_modal_is_named_and_resumed() {
    refusal(
        "throttle",
        2,
        "modal",
        "Whoa there! You are sending messages too fast. Wait a bit and try again.",
        "KA_RATE_LIMITED",
        None,
    );
}

/// A spend cap in the reply's place: no reset, and `--wait` does not wait for one.
#[test]
fn a_spend_limit_is_named_and_wait_does_not_wait() {
    let words = "Your team has hit its monthly spend cap. Ask an admin to raise it.";
    let site = Site::start(fault("spend", 2, "turn", words));
    let place = Place::new();
    let out = place.run(&site, &[TASK, "--wait"]);
    assert_stopped(&place, &site, &out, "KA_SPEND_LIMIT", words);
    assert_resumes(&place, &site, 1);
}

/// A lapsed plan in the error strip, at the first exchange.
#[test]
fn a_lapsed_plan_at_the_first_exchange_is_named_and_resumed() {
    refusal(
        "spend",
        1,
        "area",
        "Your subscription has lapsed. Renew your plan to keep chatting.",
        "KA_SPEND_LIMIT",
        None,
    );
}

/// `--wait` on a throttle that says when: keyless waits, then sends the message once.
#[test]
fn wait_outlasts_a_throttle_that_says_when_and_sends_once() {
    let mut f = fault(
        "throttle",
        2,
        "turn",
        "You're sending messages too quickly. Try again in 6 seconds.",
    );
    f["for"] = json!(5);
    let site = Site::start(f);
    let place = Place::new();
    let out = place.run(&site, &[TASK, "--wait", "--json"]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    place.assert_done();
    site.assert_nothing_twice(1);
    let events: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let trouble = events
        .iter()
        .find(|e| e["type"] == "trouble")
        .unwrap_or_else(|| panic!("no trouble event: {out:#?}"));
    assert_eq!(trouble["code"], "KA_RATE_LIMITED");
    assert!(trouble["resets_at"].is_u64(), "{trouble}");
    assert!(
        events.iter().any(|e| e["type"] == "waiting"),
        "no waiting event: {out:#?}"
    );
}

/// A run stopped by a throttle that says when, then `--resume --wait` at once: the resume waits
/// for the reset keyless was told before it sends anything (before, it sent into the refusing
/// chat at once), then the task finishes with one refusal only.
#[test]
fn resume_with_wait_before_a_known_reset_waits_before_sending() {
    let mut f = fault(
        "throttle",
        2,
        "turn",
        "You're sending messages too quickly. Try again in 12 seconds.",
    );
    f["for"] = json!(10);
    let site = Site::start(f);
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert_stopped(
        &place,
        &site,
        &out,
        "KA_RATE_LIMITED",
        "Try again in 12 seconds",
    );
    let out = place.run(&site, &["--resume", "--wait", "--json"]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    place.assert_done();
    site.assert_nothing_twice(1);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.contains(r#""type":"waiting""#)),
        "no waiting event: {out:#?}"
    );
}

/// `--wait` on a usage limit with an ISO reset a few seconds ahead.
#[test]
fn wait_outlasts_a_usage_limit_with_an_iso_reset_and_sends_once() {
    let reset = now() as u64 + 12;
    let iso = Command::new("date")
        .args(["-u", "-d", &format!("@{reset}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    let iso = String::from_utf8_lossy(&iso.stdout).trim().to_string();
    let mut f = fault(
        "limit",
        2,
        "area",
        &format!("You have reached the usage limit for your plan. It resets at {iso}."),
    );
    f["until"] = json!(reset);
    let site = Site::start(f);
    let place = Place::new();
    let out = place.run(&site, &[TASK, "--wait"]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    assert!(out.stderr.contains("KA_USAGE_LIMIT"), "{out:#?}");
    place.assert_done();
    site.assert_nothing_twice(1);
}

/// `--json`: a stop for a limit is a `finished` event with its code and the site's words.
#[test]
fn json_tells_a_limit_stop_with_its_code_and_words() {
    let words = "You've reached your message limit. Your limit resets at 4:00 PM.";
    let site = Site::start(fault("limit", 2, "turn", words));
    let place = Place::new();
    let out = place.run(&site, &[TASK, "--json"]);
    let finished: Value = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "finished")
        .unwrap_or_else(|| panic!("no finished event: {out:#?}"));
    assert_eq!(finished["stop"], "chat_error", "{finished}");
    assert_eq!(finished["code"], "KA_USAGE_LIMIT", "{finished}");
    assert!(
        finished["reason"].as_str().unwrap().contains(words),
        "{finished}"
    );
    assert_eq!(site.received().len(), 2);
}

/// A server error turn with a Retry button that lasts about 40 s, then the site is fine: named
/// as a site error at once, and the task finishes (by itself, or by `--resume`), nothing twice.
#[test]
fn a_site_error_lasting_forty_seconds_is_named_and_the_task_finishes() {
    let mut f = fault(
        "error",
        2,
        "turn",
        "Hmm… something seems to have gone wrong.",
    );
    f["for"] = json!(40);
    let site = Site::start(f);
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert!(out.stderr.contains("KA_SITE_ERROR"), "{out:#?}");
    assert!(
        out.stderr
            .contains("Hmm… something seems to have gone wrong."),
        "{out:#?}"
    );
    assert!(
        !out.stderr.contains("not valid AgentScript") && !out.stderr.contains("SMALLER"),
        "an error was taken for a reply: {out:#?}"
    );
    if out.code != Some(0) {
        assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
        // Wait out the rest of the 40 s, as a person would before resuming.
        let left = 41.0 - (now() - site.first_fault_at());
        if left > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(left));
        }
        let resumed = place.run(&site, &["--resume"]);
        assert_eq!(resumed.code, Some(0), "{resumed:#?}");
    }
    place.assert_done();
    // Errors refuse the message; each retry is a new message into a failing chat, but none was
    // answered twice.
    site.assert_nothing_twice(usize::MAX);
}

/// A server error in the reply's place with a Retry button, over by the time keyless tries
/// again: its Retry control is clicked (the site answers the message it kept, as for a
/// person), the message is never sent twice and the task finishes.
#[test]
fn a_site_error_turn_over_in_seconds_is_answered_again_by_its_retry_button() {
    let mut f = fault("error", 2, "turn", "Something went sideways on our end.");
    f["for"] = json!(3);
    answered_again_by_its_control(f);
}

/// A server error turn whose control says "Regenerate" (no copy control, no known words), over
/// in seconds: an error turn by its shape all the same; the control is clicked and nothing
/// goes twice. Before, the turn was taken for the model's reply and a format correction went.
#[test]
fn a_site_error_turn_with_a_regenerate_button_is_answered_again() {
    let mut f = fault(
        "error",
        2,
        "turn",
        "Something went sideways while writing this answer.",
    );
    f["for"] = json!(3);
    f["button"] = json!("Regenerate");
    let received = answered_again_by_its_control(f);
    assert!(
        !received.iter().any(|r| r["text"]
            .as_str()
            .is_some_and(|t| t.contains("FORMAT ERROR"))),
        "a format correction went: {received:#?}"
    );
}

/// The error turn `fault`, over in seconds: the task finishes, the turn's control (Retry, or
/// the label the fault gives it) was clicked, and every message went once. What the site
/// received.
fn answered_again_by_its_control(fault: Value) -> Vec<Value> {
    let site = Site::start(fault);
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    place.assert_done();
    let received = site.received();
    assert!(
        received.iter().any(|r| r["retry"] == true),
        "the error turn's control was not clicked: {received:#?}"
    );
    let sent: Vec<&str> = received
        .iter()
        .filter(|r| r["retry"] != true)
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_each_once(&sent, "sent", &received);
    received
}

/// A server error in words unlike keyless's list ("went sideways"), in the reply's place with
/// a Retry button: an error turn by its shape.
#[test]
fn a_site_error_turn_with_a_retry_button_is_named_by_its_shape() {
    let words = "Something went sideways on our end. Please retry.";
    let mut f = fault("error", 2, "turn", words);
    f["for"] = json!(1000);
    let site = Site::start(f);
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert!(out.stderr.contains("KA_SITE_ERROR"), "{out:#?}");
    assert!(out.stderr.contains(words), "{out:#?}");
    assert!(!out.stderr.contains("KA_REPLY_TIMEOUT"), "{out:#?}");
    // Named at once, then tried again after 5 s and 20 s (a site's hiccup passes), as the
    // forty-second error above: the run ends after those waits, never after a reply timeout
    // on top of them (its code is not said, above). The whole run (a browser started, a first
    // exchange) took 46 s once on a machine loaded by the suite: the bound leaves room for it.
    assert!(
        out.stderr
            .contains("waiting 5s for the site (KA_SITE_ERROR)"),
        "{out:#?}"
    );
    assert!(
        out.took < 25.0 + 3.0 * NAMED_WITHIN,
        "took more than the site error's waits: {out:#?}"
    );
    assert_resumes(&place, &site, usize::MAX);
}

/// A stream that stops sending while the page shows it streaming: stalled within its bound, and
/// `--resume` reads the reply the site kept, sending nothing again.
#[test]
fn a_stalled_stream_is_named_within_its_bound_and_resume_reads_the_kept_reply() {
    let site = Site::start(fault("stall", 2, "turn", ""));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_REPLY_STALLED"), "{out:#?}");
    assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
    let since = site.streaming_since().unwrap();
    let after = out.ended - since;
    assert!(
        after < (STALL as f64) + NAMED_WITHIN,
        "stalled reported {after:.1}s after the stream stopped: {out:#?}"
    );
    let resumed = assert_resumes(&place, &site, 0);
    assert!(resumed.stderr.contains("nothing is resent"), "{resumed:#?}");
    assert_eq!(site.received().len(), 2, "a message went twice");
}

/// The connection cut mid-stream and the site unreachable for 4 s; the model answered and the
/// site kept the reply. The page says "Connection lost" with a Retry button: keyless names it
/// within seconds, and the reply is read from the chat, never asked for twice.
#[test]
fn a_connection_cut_mid_stream_is_named_and_the_kept_reply_is_read() {
    let site = Site::start(fault("drop", 2, "turn", ""));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert!(!out.stderr.contains("KA_REPLY_TIMEOUT"), "{out:#?}");
    let since = site.streaming_since().unwrap();
    if out.code == Some(0) {
        place.assert_done();
    } else {
        assert!(
            out.ended - since < NAMED_WITHIN,
            "named {:.1}s after the cut: {out:#?}",
            out.ended - since
        );
        assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
        assert_resumes(&place, &site, 0);
    }
    assert_eq!(site.received().len(), 2, "a message went twice");
}

/// The connection cut mid-stream with no words at all: the page shows the half that came as if
/// it were the whole reply. The browser's word of the failed request names the cut, and the
/// reply the site kept is read: no format correction, nothing twice. Before, the half was
/// taken for a reply cut short and a correction went.
#[test]
fn a_quiet_cut_mid_stream_is_heard_from_the_network_and_the_kept_reply_is_read() {
    let mut f = fault("drop", 2, "turn", "");
    f["quiet"] = json!(true);
    // The site is reachable again at once: only the stream was cut.
    f["for"] = json!(0);
    let site = Site::start(f);
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    let received = site.received();
    assert!(
        !received.iter().any(|r| r["text"]
            .as_str()
            .is_some_and(|t| t.contains("FORMAT ERROR"))),
        "a format correction went: {out:#?}"
    );
    assert!(!out.stderr.contains("KA_REPLY_TIMEOUT"), "{out:#?}");
    if out.code == Some(0) {
        place.assert_done();
    } else {
        let since = site.streaming_since().unwrap();
        assert!(
            out.ended - since < NAMED_WITHIN,
            "named {:.1}s after the cut: {out:#?}",
            out.ended - since
        );
        assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
        assert_resumes(&place, &site, 0);
    }
    assert_eq!(site.received().len(), 2, "a message went twice: {out:#?}");
}

/// The session expires mid-turn: the page goes to a sign-in address. Named, the sign-in
/// address never saved as the chat's, and `--resume` after logging in goes on in the same chat.
#[test]
fn a_login_redirect_mid_turn_is_named_and_resume_goes_on_in_the_same_chat() {
    let site = Site::start(fault("login", 2, "turn", ""));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert_stopped(
        &place,
        &site,
        &out,
        "KA_LOGIN_REQUIRED",
        "Your session has expired.",
    );
    let chat = place.session()["chat_url"].as_str().unwrap().to_string();
    assert!(
        chat.contains("/talk/") && !chat.contains("signin"),
        "saved chat address: {chat}"
    );
    assert_resumes(&place, &site, 1);
    let received = site.received();
    assert!(
        received
            .iter()
            .all(|r| r["thread"] == received[0]["thread"])
    );
    assert!(
        site.visits()
            .last()
            .is_some_and(|v| v.starts_with("/talk/")),
        "resume did not open the chat: {:?}",
        site.visits()
    );
}

/// Still logged out when `--resume` opens the chat again: the chat's address sends the browser
/// to the sign-in page, in words no site text knows, whose shape (a password field, a sign-in
/// address) names it: `KA_LOGIN_REQUIRED` in the page's words within seconds, nothing sent; once
/// logged in, `--resume` finishes in the same chat. Before, keyless looked 20 s for a composer
/// and said none was found.
#[test]
fn a_login_wall_met_on_resume_is_named_by_its_shape() {
    let site = Site::start(fault("login", 2, "turn", ""));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_LOGIN_REQUIRED"), "{out:#?}");
    let sent = site.received().len();
    let out = place.run(&site, &["--resume"]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_LOGIN_REQUIRED"), "{out:#?}");
    assert!(!out.stderr.contains("KA_SELECTOR_NOT_FOUND"), "{out:#?}");
    assert!(out.stderr.contains("Your session has expired"), "{out:#?}");
    assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
    assert!(
        out.took < NAMED_WITHIN,
        "named after {:.1} s: {out:#?}",
        out.took
    );
    assert_eq!(
        site.received().len(),
        sent,
        "sent behind the wall: {out:#?}"
    );
    assert_resumes(&place, &site, 1);
}

/// A Cloudflare-like check served at the chat's own address mid-turn: named, the chat's
/// address kept, and `--resume` once it passed goes on in the same chat.
#[test]
fn a_bot_check_at_the_chats_address_is_named_and_resume_goes_on_in_the_same_chat() {
    let site = Site::start(fault("botcheck", 2, "turn", ""));
    let place = Place::new();
    let out = place.run(&site, &[TASK]);
    // No script runs in a check's page (issue 31), so its words are its title as the browser
    // reports it, or, in the moment before the title shows, what the site's answer said: the
    // words of the document it answered with (read from the network), else its mark.
    let words = if out.stderr.contains("Just a moment...") {
        "Just a moment..."
    } else if out.stderr.contains("Verify you are human") {
        "needs to review the security of your connection"
    } else {
        "the site's answer marked the page a check"
    };
    assert_stopped(&place, &site, &out, "KA_BOT_CHECK", words);
    let chat = place.session()["chat_url"].as_str().unwrap().to_string();
    assert!(chat.contains("/talk/"), "saved chat address: {chat}");
    let resumed = assert_resumes(&place, &site, 1);
    assert!(!resumed.stderr.contains("chat is gone"), "{resumed:#?}");
    let received = site.received();
    assert!(
        received
            .iter()
            .all(|r| r["thread"] == received[0]["thread"]),
        "resume went on in another chat: {received:#?}"
    );
}

/// A GET on the shared browser's DevTools HTTP endpoint.
fn devtools_get(path: &str) -> String {
    let url = crate::common::shared_browser::cdp_url();
    let host = url
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let mut stream = TcpStream::connect(&host).unwrap();
    // Bounded: a DevTools server that keeps the connection open must not hang the test.
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(_) => break,
        }
        let text = String::from_utf8_lossy(&answer);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
            });
            if length.is_some_and(|n| body.len() >= n) {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    text.split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default()
}

/// The person closes keyless's tab while the reply streams: said in words with the resume
/// command within seconds, and `--resume` reads the reply the site kept, sending nothing again.
#[test]
fn a_tab_closed_mid_reply_is_said_in_words_and_resume_reads_the_kept_reply() {
    let site = Site::start(fault("slow", 2, "turn", ""));
    let place = Place::new();
    let child = place.command(&site, &[TASK]).spawn().unwrap();
    let started = Instant::now();
    while site.streaming_since().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the reply never streamed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let tabs: Value = serde_json::from_str(&devtools_get("/json/list")).unwrap();
    let tab = tabs
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["url"]
                .as_str()
                .is_some_and(|u| u.starts_with(&site.url()))
        })
        .unwrap_or_else(|| panic!("no tab on the site: {tabs:#}"));
    let closed_at = now();
    devtools_get(&format!("/json/close/{}", tab["id"].as_str().unwrap()));
    let out = child.wait_with_output().unwrap();
    let ended = now();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("closed"), "not said in words: {stderr}");
    assert!(!stderr.contains("receiver is gone"), "{stderr}");
    assert!(stderr.contains("keyless run --resume"), "{stderr}");
    assert!(
        ended - closed_at < NAMED_WITHIN,
        "stopped {:.1}s after the tab closed: {stderr}",
        ended - closed_at
    );
    let resumed = assert_resumes(&place, &site, 0);
    assert!(resumed.stderr.contains("nothing is resent"), "{resumed:#?}");
    assert_eq!(site.received().len(), 2, "a message went twice");
}

/// How long a test waits for keyless to reach a wall, or to finish once the wall is passed.
const WALL_WAIT: Duration = Duration::from_secs(60);

/// Waits until `ready` holds while `child` runs; a child that ends first is a failure (it
/// stopped instead of waiting for the person), reported with what it said.
fn wait_while_running(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            panic!("keyless ended ({status}) before {what}: {stderr}");
        }
        assert!(started.elapsed() < WALL_WAIT, "never {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `child`'s end, bounded by [`WALL_WAIT`] (killed after it).
fn finish(mut child: Child) -> (Option<i32>, String) {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > WALL_WAIT {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// SIGTERM while `--wait` counts down (`timeout`, a service manager): keyless stops as for
/// Ctrl+C, keeps the session and the trouble, and closes the browser it launched. A fourth
/// outside attack found that browser left running, orphaned, on the profile.
#[test]
fn sigterm_during_a_wait_keeps_the_session_and_leaves_no_browser_behind() {
    let site = Site::start(fault(
        "limit",
        2,
        "turn",
        "You've reached your message limit. Try again in 10 minutes.",
    ));
    let place = Place::new();
    let profile = place.dir.path().join("own-browser");
    let mut cmd = keyless_at(
        &site.url(),
        Some("parlor"),
        &profile,
        place.dir.path(),
        &[
            "run", "--mode", "auto", "--pace", "batch", TASK, "--wait", "--json",
        ],
    );
    cmd.arg("--selectors")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks31/selectors.json"))
        .arg("--workspace")
        .arg(place.ws())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    until_waiting(&mut child);
    let keyless = child.id();
    assert!(
        on_profile(&profile).iter().any(|pid| *pid != keyless),
        "no browser of keyless's own ran"
    );
    // SAFETY: kill has no preconditions; the process is keyless, started above.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("keyless run --resume"), "{stderr}");
    let started = Instant::now();
    while !on_profile(&profile).is_empty() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        on_profile(&profile),
        Vec::<u32>::new(),
        "the browser keyless launched outlived it"
    );
    held_by_the_limit(&place, &site);
}

/// After a wait for a limit was stopped: status names the limit, its reset, and what a resume
/// will do (send nothing before the reset); nothing went during the wait.
fn held_by_the_limit(place: &Place, site: &Site) {
    let status = place.status();
    assert!(
        status.contains("KA_USAGE_LIMIT") && status.contains("resets in"),
        "{status}"
    );
    assert!(
        status.contains("sends nothing before the reset") && status.contains("--resume --wait"),
        "{status}"
    );
    assert!(!status.contains("or sends the"), "{status}");
    assert_eq!(site.received().len(), 2, "a message went during the wait");
}

/// Reads keyless's `--json` events until it says it is waiting out a limit (a minute at most).
fn until_waiting(child: &mut Child) {
    let stdout = child.stdout.take().unwrap();
    let (seen, waiting) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("\"waiting\"") {
                let _ = seen.send(());
            }
        }
    });
    waiting
        .recv_timeout(WALL_WAIT)
        .expect("no waiting event within a minute");
}

/// The processes whose command line names `profile` (a browser running on it).
fn on_profile(profile: &Path) -> Vec<u32> {
    let needle = profile.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&needle) {
            found.push(pid);
        }
    }
    found
}

/// A bot check at the chat's address mid-turn, in a window the person sees: keyless tells them
/// and waits, runs no script in the page while the check shows (the page watches for script
/// of someone else's: calls into its DOM, new globals), and once the check is passed goes on in
/// the same chat and finishes, nothing twice.
#[test]
fn a_bot_check_in_a_window_is_waited_for_without_script_in_the_page() {
    let site = Site::start(fault("botcheck", 2, "turn", ""));
    let place = Place::new();
    let mut child = place.command_in_a_window(&site, &[TASK]).spawn().unwrap();
    wait_while_running(&mut child, "the check showed for a second", || {
        site.lines("beacons.jsonl").len() >= 3
    });
    site.lift();
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("bot check"),
        "the person was not told: {stderr}"
    );
    place.assert_done();
    site.assert_nothing_twice(1);
    let received = site.received();
    assert!(
        received
            .iter()
            .all(|r| r["thread"] == received[0]["thread"]),
        "went on in another chat: {received:#?}"
    );
    for seen in site.lines("beacons.jsonl") {
        assert!(
            seen["calls"] == 0 && seen["foreign"].as_array().is_some_and(|f| f.is_empty()),
            "keyless ran script in the page while the bot check showed: {seen}"
        );
    }
}

/// A login redirect mid-turn in a window the person sees: keyless waits while they sign in,
/// then goes on in the same chat and finishes, nothing twice.
#[test]
fn a_login_redirect_in_a_window_is_waited_for_and_the_turn_goes_on() {
    let site = Site::start(fault("login", 2, "turn", ""));
    let place = Place::new();
    let mut child = place.command_in_a_window(&site, &[TASK]).spawn().unwrap();
    // The person takes a few seconds to sign in.
    wait_while_running(&mut child, "the sign-in page showed for 3 s", || {
        site.lines("visits.jsonl").iter().any(|v| {
            v["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/account/signin"))
                && now() - v["t"].as_f64().unwrap() > 3.0
        })
    });
    site.lift();
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("KA_LOGIN_REQUIRED") || stderr.contains("log in"),
        "the person was not told: {stderr}"
    );
    place.assert_done();
    site.assert_nothing_twice(1);
    let received = site.received();
    assert!(
        received
            .iter()
            .all(|r| r["thread"] == received[0]["thread"]),
        "went on in another chat: {received:#?}"
    );
}

/// A warning before a limit ("5 messages remaining until 4:00 PM", as sites show while they still
/// answer) beside a reply that comes all the same: not trouble; the turn goes on and finishes.
#[test]
fn a_warning_before_a_limit_beside_a_reply_does_not_stop_the_turn() {
    for place_on_page in ["area", "toast"] {
        let site = Site::start(fault(
            "warn",
            2,
            place_on_page,
            "You have 5 messages remaining until 4:00 PM.",
        ));
        let place = Place::new();
        let out = place.run(&site, &[TASK]);
        assert_eq!(out.code, Some(0), "{place_on_page}: {out:#?}");
        place.assert_done();
        site.assert_nothing_twice(0);
    }
}

/// Ctrl+C while `--wait` counts down: keyless stops (130), keeps the session and the trouble,
/// and `--resume` once the limit is gone finishes, nothing twice.
#[test]
fn ctrl_c_during_a_wait_keeps_the_session_and_resume_finishes() {
    let site = Site::start(fault(
        "limit",
        2,
        "turn",
        "You've reached your message limit. Try again in 10 minutes.",
    ));
    let place = Place::new();
    let mut child = place
        .command(&site, &[TASK, "--wait", "--json"])
        .spawn()
        .unwrap();
    until_waiting(&mut child);
    // SAFETY: kill has no preconditions; the process is keyless, started above.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(130), "{stderr}");
    held_by_the_limit(&place, &site);
    assert_resumes(&place, &site, 1);
}
