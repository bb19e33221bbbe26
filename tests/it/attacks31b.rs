//! Issue 31's claims about a chat site's trouble mid-turn, attacked a second time by a reviewer
//! who had not read the fix nor the first attack: a chat site kept outside keyless's own code
//! (`tests/attacks31b/site.py` and `app.html`, "Murmur": a single-page app with a contenteditable
//! composer, turns as `<article>`s whose speaker is only in a `data-voice` attribute of its own
//! naming, replies streamed as JSON lines, toasts that vanish, a ribbon above the composer with no
//! role, a modal `<dialog>` with "Got it", errors inside a turn with "Try again", conversations
//! kept on the server and shown again at `/c/<id>`). One fault per run, at the first or second
//! exchange, in wordings nobody would pre-list; the site records every message it received, and
//! whether the model took it, the tests' proof of what was sent into a chat refusing messages and
//! what went twice.
//!
//! keyless runs headless in a tab of the test binary's shared browser (one test launches its own,
//! to kill it), with the site's parts in `tests/attacks31b/selectors.json` or with `--url` alone
//! (discovery). Each test asserts what the issue asks: the code keyless stops with, the site's own
//! words shown, the time to stop, the resume command named, nothing sent into the refusing chat
//! nor twice, `keyless status` and `--json` telling the trouble, and `--resume` (after the fault is
//! lifted) or `--wait` finishing the task with every file byte for byte and nothing run twice.
//! The cases keyless got wrong when this was written are fixed and run with the rest, but one:
//! a stall at the first exchange on a discovered page is named in time, yet `--resume` then
//! finds no conversation (the site gives the chat its address only when the reply ends); that
//! case is kept on the branch `fix31b`, not here, where nothing is skipped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::common::local_keyless::{attached, keyless_at};
use crate::common::python_site::PythonSite;

/// The reply timeout keyless gets: a reply waited for in vain costs this, not ten minutes.
const REPLY_TIMEOUT: u64 = 30;

/// How long a stream may make no progress before keyless calls it stalled, here.
const STALL: u64 = 6;

/// How soon trouble the page shows must be named: "within seconds". A run's stop includes
/// closing the tab and saving the session, so a few seconds beyond the notice's appearance.
const NAMED_WITHIN: f64 = 8.0;

/// The first reply: a file and a command whose every run leaves a line, so a batch run twice shows.
const REPLY_1: &str = "```agentscript\n@@newfile one.txt\n<<<CONTENT\none\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\necho ran >> log.txt\nCMD>>>\n@@end\n@@eof\n```";

/// The second reply: another file and `@@done`. `two.txt` exists only if this reply ran.
const REPLY_2: &str = "```agentscript\n@@newfile two.txt\n<<<CONTENT\ntwo\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nok\nMSG>>>\n@@end\n@@eof\n```";

const TASK: &str = "write the two files";

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Murmur serving on this machine with one fault and the two scripted replies.
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
            "attacks31b",
            &[
                (
                    "script.json",
                    serde_json::to_string(&[REPLY_1, REPLY_2]).unwrap(),
                ),
                ("config.json", json!({ "fault": fault }).to_string()),
            ],
        ))
    }

    /// Every message the site received: `text`, `thread`, `taken` (the model had it), `fault`
    /// (the fault that struck it), `t` (when, seconds since the epoch).
    fn received(&self) -> Vec<Value> {
        fs::read_to_string(self.file("received.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The messages the site refused (the chat was refusing messages).
    fn refused(&self) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|r| r["taken"] == false)
            .collect()
    }

    /// When the fault first struck a message (seconds since the epoch).
    fn struck_at(&self) -> f64 {
        self.received()
            .iter()
            .find(|r| !r["fault"].is_null())
            .and_then(|r| r["t"].as_f64())
            .unwrap_or_else(|| panic!("the fault never struck: {:#?}", self.received()))
    }

    /// The person dealt with it: logged in, passed the check, renewed the plan, or time passed.
    fn lift(&self) {
        fs::write(self.file("lifted"), "lifted").unwrap();
    }

    /// Waits until the site wrote `name` (a mark of its own: `midstream`).
    fn wait_for(&self, name: &str, within: Duration) {
        let started = Instant::now();
        while !self.file(name).exists() {
            assert!(started.elapsed() < within, "the site never wrote {name}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// How keyless finds the chat's parts: Murmur's selectors, or `--url` alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parts {
    Selectors,
    UrlOnly,
}

/// One workspace and browser profile, run on the site by the built keyless.
struct Place {
    dir: tempfile::TempDir,
}

#[derive(Debug)]
struct Out {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    /// When keyless ended (seconds since the epoch).
    ended: f64,
}

impl Out {
    /// The `--json` events of type `kind`.
    fn events(&self, kind: &str) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["type"] == kind)
            .collect()
    }

    fn finished(&self) -> Value {
        self.events("finished")
            .pop()
            .unwrap_or_else(|| panic!("no finished event: {self:#?}"))
    }
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

    fn profile(&self) -> PathBuf {
        self.dir.path().join("browser")
    }

    /// keyless `args` on the site, not started: in a tab of the shared browser unless `own`.
    fn command(&self, site: &Site, parts: Parts, args: &[&str], own: bool) -> Command {
        let named = parts == Parts::Selectors;
        let cmd = keyless_at(
            &site.url(),
            named.then_some("murmur"),
            &self.profile(),
            self.dir.path(),
            args,
        );
        let mut cmd = if own { cmd } else { attached(cmd) };
        if named {
            cmd.arg("--selectors")
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks31b/selectors.json"));
        }
        cmd.arg("--workspace")
            .arg(self.ws())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn output(mut cmd: Command) -> Out {
        let out = cmd.output().unwrap();
        Out {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
            ended: now(),
        }
    }

    /// `keyless run --mode auto --pace batch --json <args> TASK`.
    fn run(&self, site: &Site, parts: Parts, args: &[&str]) -> Out {
        let mut all = vec!["run", "--mode", "auto", "--pace", "batch", "--json"];
        all.extend_from_slice(args);
        all.push(TASK);
        Place::output(self.command(site, parts, &all, false))
    }

    /// `keyless run --resume --mode auto --pace batch --json <args>`.
    fn resume(&self, site: &Site, parts: Parts, args: &[&str]) -> Out {
        let mut all = vec![
            "run", "--resume", "--mode", "auto", "--pace", "batch", "--json",
        ];
        all.extend_from_slice(args);
        // The faults here are lifted before the resets they name: the person says so.
        if !args.contains(&"--wait") {
            all.push("--now");
        }
        Place::output(self.command(site, parts, &all, false))
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

    /// `keyless status --json` in the workspace.
    fn status_json(&self) -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
            .args(["status", "--json", "--workspace"])
            .arg(self.ws())
            .env("XDG_CONFIG_HOME", self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn read(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.ws().join(name)).ok()
    }
}

/// What a fault's stop must show.
struct Stop<'a> {
    code: &'a str,
    /// The site's own words, as the page shows them.
    words: &'a str,
    /// Seconds from the fault striking to keyless ending.
    within: f64,
}

/// keyless stopped on the fault as the issue asks: exit 4 with its code, the site's words and
/// the resume command, within the bound; `--json`'s `finished` has the code; `keyless status`
/// tells the trouble; nothing more was sent into the chat once it refused (at most the one
/// message that met the refusal).
fn assert_stopped(place: &Place, site: &Site, out: &Out, stop: &Stop) {
    assert_eq!(out.code, Some(4), "{out:#?}\n{:#?}", site.received());
    assert!(
        out.stderr.contains(stop.code),
        "no {}: {out:#?}\n{:#?}",
        stop.code,
        site.received()
    );
    assert!(
        out.stderr.contains(stop.words),
        "the site's words are not shown: {out:#?}"
    );
    assert!(
        out.stderr.contains("keyless run --resume"),
        "the resume command is not named: {out:#?}"
    );
    let took = out.ended - site.struck_at();
    assert!(
        took < stop.within,
        "named {took:.1} s after the fault struck, more than {} s: {out:#?}",
        stop.within
    );
    let finished = out.finished();
    assert_eq!(finished["code"], stop.code, "{finished:#}");
    assert!(
        site.refused().len() <= 1,
        "messages were sent into a chat refusing them: {:#?}",
        site.refused()
    );
    let status = place.status();
    assert!(
        status.contains(stop.code),
        "keyless status does not tell the trouble: {status}"
    );
}

/// The task finished: every file byte for byte, the command run once, each message the model
/// took taken once, all in one conversation.
fn assert_completed(place: &Place, site: &Site, out: &Out) {
    assert_eq!(out.code, Some(0), "{out:#?}\n{:#?}", site.received());
    assert_eq!(place.read("one.txt").as_deref(), Some("one\n"), "{out:#?}");
    assert_eq!(place.read("two.txt").as_deref(), Some("two\n"), "{out:#?}");
    assert_eq!(
        place.read("log.txt").as_deref(),
        Some("ran\n"),
        "the command ran other than once: {out:#?}"
    );
    let taken: Vec<Value> = site
        .received()
        .into_iter()
        .filter(|r| r["taken"] == true)
        .collect();
    assert_eq!(
        taken.len(),
        2,
        "the model got other than the task and one results message: {taken:#?}"
    );
    assert!(
        taken[0]["text"]
            .as_str()
            .unwrap()
            .contains(&format!("Task:\n{TASK}")),
        "{taken:#?}"
    );
    assert!(
        taken[1]["text"]
            .as_str()
            .unwrap()
            .contains("[KEYLESSAGENT RESULTS] turn=1 batch=1"),
        "{taken:#?}"
    );
    assert_eq!(
        taken[0]["thread"], taken[1]["thread"],
        "the turn went on in another conversation: {taken:#?}"
    );
}

/// A fault the site raises by refusing the message, shown where `where_` says.
fn refusal(at: u32, where_: &str, words: &str) -> Value {
    json!({ "at": at, "kind": "refuse", "where": where_, "words": words })
}

/// What one stop left: the run's output, `keyless status`'s text, when the fault struck, and the
/// reset `keyless status --json` gives (seconds since the epoch), read before the resume.
struct Stopped {
    out: Out,
    status: String,
    struck: f64,
    resets_at: Option<f64>,
}

/// A refusal that stops the turn with `code` and the site's `words`, then, the fault lifted,
/// `--resume` finishing the task.
fn stop_then_resume(fault: Value, parts: Parts, code: &str, words: &str) -> Stopped {
    let site = Site::start(fault);
    let place = Place::new();
    let out = place.run(&site, parts, &[]);
    assert_stopped(
        &place,
        &site,
        &out,
        &Stop {
            code,
            words,
            within: NAMED_WITHIN,
        },
    );
    let status = place.status();
    let resets_at = place.status_json()["session"]["trouble"]["resets_at"].as_f64();
    let struck = site.struck_at();
    site.lift();
    let again = place.resume(&site, parts, &[]);
    assert_completed(&place, &site, &again);
    Stopped {
        out,
        status,
        struck,
        resets_at,
    }
}

/// The stop names the limit's reset as `needle` (keyless writes local time, which is UTC on
/// the test machines), and `keyless status` says when it resets.
fn says_reset_in(stopped: &Stopped, needle: &str) {
    assert!(
        stopped.out.stderr.contains(needle),
        "the reset is not given as {needle:?}: {:#?}",
        stopped.out
    );
    assert!(
        stopped.status.contains("resets"),
        "keyless status does not say when the limit resets: {}",
        stopped.status
    );
}

/// The reset `keyless status --json` keeps is `after` seconds after the fault struck (a
/// relative reset), within a minute and a half.
fn resets_after(stopped: &Stopped, after: f64) {
    let at = stopped
        .resets_at
        .unwrap_or_else(|| panic!("no resets_at kept: {}", stopped.status));
    let off = at - (stopped.struck + after);
    assert!(
        off.abs() < 90.0,
        "resets_at is {off:.0} s off the site's words"
    );
}

// ----- Usage limits, the reset in many forms -----

/// A usage limit in the reply's place at the second exchange (after a batch ran), the reset
/// "available again in 47 minutes": named at once with the reset, the batch's results kept for
/// the model, and `--resume` after the reset finishes with nothing run twice.
#[test]
fn a_usage_limit_in_the_replys_place_resets_in_47_minutes() {
    let words = "You've used up your Murmur Plus messages for now. They'll be available again in 47 minutes.";
    let stopped = stop_then_resume(
        refusal(2, "turn", words),
        Parts::Selectors,
        "KA_USAGE_LIMIT",
        words,
    );
    says_reset_in(&stopped, "47m");
    resets_after(&stopped, 47.0 * 60.0);
}

/// The same limit found by discovery alone, at the first exchange, in Italian.
#[test]
fn a_usage_limit_in_italian_in_the_replys_place_found_by_discovery() {
    let words =
        "Hai raggiunto il limite di messaggi del tuo piano. Potrai scrivere di nuovo alle 16:45.";
    let stopped = stop_then_resume(
        refusal(1, "turn", words),
        Parts::UrlOnly,
        "KA_USAGE_LIMIT",
        words,
    );
    // Within five minutes after 16:45 the time shown has just gone: the site rounds its reset
    // down to the minute, so keyless reads it as due within a minute, not 16:45 tomorrow.
    let now = Command::new("date").arg("+%H%M").output().unwrap();
    let now: u32 = String::from_utf8_lossy(&now.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    if (1645..1650).contains(&now) {
        says_reset_in(&stopped, "resets in");
    } else {
        says_reset_in(&stopped, "16:45");
    }
}

/// A usage limit in the ribbon above the composer (the site's `ErrorBanner`), the reset at a
/// clock time in UTC, the send request answered 429 with an error body.
#[test]
fn a_usage_limit_in_the_ribbon_at_a_utc_clock_time() {
    let words = "Message cap reached. Your allowance refreshes at 16:45 UTC.";
    let mut fault = refusal(1, "ribbon", words);
    fault["status"] = json!(429);
    let stopped = stop_then_resume(fault, Parts::Selectors, "KA_USAGE_LIMIT", words);
    says_reset_in(&stopped, "16:45");
}

/// The ribbon again, found with `--url` alone: a role-less banner above the composer, and the
/// send request itself answered 429 with the words in its JSON body.
#[test]
fn a_usage_limit_in_a_roleless_ribbon_with_a_429_found_by_discovery() {
    let words = "Message cap reached. Your allowance refreshes at 16:45 UTC.";
    let mut fault = refusal(1, "ribbon", words);
    fault["status"] = json!(429);
    let stopped = stop_then_resume(fault, Parts::UrlOnly, "KA_USAGE_LIMIT", words);
    says_reset_in(&stopped, "16:45");
}

/// "resets in 2h 10m" in the ribbon, at the second exchange.
#[test]
fn a_usage_limit_in_the_ribbon_resets_in_2h_10m() {
    let words = "Limit reached · resets in 2h 10m";
    let stopped = stop_then_resume(
        refusal(2, "ribbon", words),
        Parts::Selectors,
        "KA_USAGE_LIMIT",
        words,
    );
    says_reset_in(&stopped, "2h 10m");
    resets_after(&stopped, 130.0 * 60.0);
}

/// A usage limit told only by a toast that vanishes after three seconds, "tomorrow at 9am".
#[test]
fn a_usage_limit_in_a_vanishing_toast_tomorrow_at_9am() {
    let words = "You've hit today's quota. Come back tomorrow at 9am to keep going.";
    let mut fault = refusal(2, "toast", words);
    fault["toast_ms"] = json!(3000);
    let stopped = stop_then_resume(fault, Parts::Selectors, "KA_USAGE_LIMIT", words);
    says_reset_in(&stopped, "09:00");
}

/// A usage limit in a modal `<dialog>` with "Got it", "renews on 3 December" (tomorrow's date
/// as the test runs: a fixed date passes and becomes next year's), found by discovery.
#[test]
fn a_usage_limit_in_a_modal_dialog_renews_on_a_date() {
    let (day, month_day) = tomorrow();
    let words = format!(
        "You have sent all the messages your plan includes this month. Your allowance renews on {day}."
    );
    let mut fault = refusal(1, "dialog", &words);
    fault["title"] = json!("Monthly allowance used");
    let stopped = stop_then_resume(fault, Parts::UrlOnly, "KA_USAGE_LIMIT", &words);
    says_reset_in(&stopped, &month_day);
}

/// Tomorrow in local time, as a site writes it ("3 December") and as keyless shows a date
/// ("12-03").
fn tomorrow() -> (String, String) {
    let out = Command::new("date")
        .args(["-d", "tomorrow", "+%-d %B|%m-%d"])
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let (day, month_day) = text.trim().split_once('|').unwrap();
    (day.to_string(), month_day.to_string())
}

// ----- Site errors, stalls, a cut connection -----

/// A server error in the reply's place with "Try again", the send answered 500, lasting about
/// 20 s then fine: keyless waits it out and goes on, the model getting the message once.
fn a_site_error_for_20_seconds_is_waited_out(parts: Parts) {
    let mut fault = refusal(
        2,
        "turn",
        "Something went wrong on our side. Please try again.",
    );
    fault["retry"] = json!(true);
    fault["status"] = json!(500);
    fault["lift_after"] = json!(20);
    let site = Site::start(fault);
    let place = Place::new();
    let out = place.run(&site, parts, &[]);
    assert!(
        out.stderr.contains("KA_SITE_ERROR")
            && out.stderr.contains("Something went wrong on our side."),
        "{out:#?}"
    );
    let trouble = out.events("trouble");
    assert!(
        trouble.iter().any(|t| t["code"] == "KA_SITE_ERROR"),
        "no trouble event: {out:#?}"
    );
    assert_completed(&place, &site, &out);
}

#[test]
fn a_site_error_for_20_seconds_is_waited_out_with_selectors() {
    a_site_error_for_20_seconds_is_waited_out(Parts::Selectors);
}

#[test]
fn a_site_error_for_20_seconds_is_waited_out_found_by_discovery() {
    a_site_error_for_20_seconds_is_waited_out(Parts::UrlOnly);
}

/// Half the reply streams, then nothing, the connection left open: `KA_REPLY_STALLED` within the
/// stall bound (not the reply timeout); the reply kept on the server is read on `--resume`,
/// the message not sent again.
fn a_stalled_stream(at: u32, parts: Parts) {
    let site = Site::start(json!({ "at": at, "kind": "stall" }));
    let place = Place::new();
    let out = place.run(&site, parts, &[]);
    assert_stopped(
        &place,
        &site,
        &out,
        &Stop {
            code: "KA_REPLY_STALLED",
            words: "",
            within: STALL as f64 + NAMED_WITHIN,
        },
    );
    site.lift();
    let again = place.resume(&site, parts, &[]);
    assert_completed(&place, &site, &again);
}

#[test]
fn a_stream_stalled_at_the_second_exchange_with_selectors() {
    a_stalled_stream(2, Parts::Selectors);
}

/// At the first exchange, on a page keyless learns as it goes (no turn known yet when the
/// stream stalls): `--resume` finds the message and the kept reply by their text.
#[test]
fn a_stream_stalled_at_the_first_exchange_found_by_discovery() {
    a_stalled_stream(1, Parts::UrlOnly);
}

/// The connection cut half-way through the reply, the reply kept on the server (the page says
/// "Connection lost … refresh to see it"): told within seconds, and the kept reply read (now or
/// on `--resume`) with the message not sent again.
#[test]
fn a_connection_cut_mid_stream_reads_the_reply_the_site_kept() {
    let site = Site::start(json!({ "at": 1, "kind": "drop" }));
    let place = Place::new();
    let out = place.run(&site, Parts::Selectors, &[]);
    if out.code == Some(0) {
        assert_completed(&place, &site, &out);
        return;
    }
    let took = out.ended - site.struck_at();
    assert!(
        took < NAMED_WITHIN,
        "named {took:.1} s after the cut: {out:#?}"
    );
    assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
    let again = place.resume(&site, Parts::Selectors, &[]);
    assert_completed(&place, &site, &again);
}

/// A few words keyless knows no list for in the reply's place, then the stream cut (the site's
/// notice in a language and wording of its own): the site's notice, quoted, and nothing sent
/// into the chat after it (no format correction, no resend).
#[test]
fn unknown_words_in_the_reply_s_place_then_a_cut_are_the_site_s_notice() {
    let words = "Zzyzx flux capacitor kaput, wacht even.";
    let site = Site::start(json!({ "at": 2, "kind": "cutnotice", "words": words }));
    let place = Place::new();
    let out = place.run(&site, Parts::Selectors, &[]);
    assert_ne!(out.code, Some(0), "{out:#?}");
    assert!(out.stderr.contains("KA_SITE_NOTICE"), "{out:#?}");
    assert!(out.stderr.contains(words), "{out:#?}");
    assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
    assert_eq!(
        site.received().len(),
        2,
        "sent into the chat after the notice: {:#?}",
        site.received()
    );
}

/// Words keyless knows no list for in a ribbon or a toast, come with a stream the site then cut
/// (the browser tells of the cut; the page says nothing of it), again on the one try after: the
/// site's notice, quoted, and nothing sent again after that try (before: a site error, the
/// results sent three times). The first time, such words may be harmless beside a hiccup
/// (`harmless_words_beside_a_one_off_cut_do_not_stop_the_run`).
#[test]
fn unknown_words_in_a_notice_area_beside_a_cut_stream_are_the_site_s_notice() {
    for (place_of_words, words) in [
        ("ribbon", "Blorp snazzle wibbit."),
        ("toast", "Frobnicator jammed, hang on."),
    ] {
        let site = Site::start(
            json!({ "at": 2, "kind": "cutnotice", "where": place_of_words, "words": words }),
        );
        let place = Place::new();
        let out = place.run(&site, Parts::Selectors, &[]);
        assert_eq!(out.code, Some(4), "{place_of_words}: {out:#?}");
        assert!(
            out.stderr.contains("KA_SITE_NOTICE"),
            "{place_of_words}: {out:#?}"
        );
        assert!(out.stderr.contains(words), "{place_of_words}: {out:#?}");
        assert!(
            out.stderr.contains("keyless run --resume"),
            "{place_of_words}: {out:#?}"
        );
        assert_eq!(
            site.received().len(),
            3,
            "{place_of_words}: the results went once more than the one try: {:#?}",
            site.received()
        );
        // The JSON stop names the resume command with the run's own flags, as stderr does.
        let reason = out.finished()["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            reason.contains("keyless run --resume --workspace ")
                && reason.contains(" --selectors "),
            "{place_of_words}: {reason}"
        );
    }
}

/// A toast shown for a moment (a third of a second) beside a refusal, gone long before keyless
/// names anything: with the stream cut, words keyless does not know are the site's notice and
/// words it knows are that trouble; with no cut and nothing coming after it, the unknown words
/// are the site's notice within seconds, not a reply time-out. Nothing is sent again.
#[test]
fn a_toast_gone_in_a_moment_still_says_what_the_site_answered() {
    // The fault, the stop's code, the words quoted, how many messages the site got (unknown
    // words beside a cut: the one try after it too).
    let cases = [
        (
            json!({ "at": 2, "kind": "cutnotice", "where": "toast", "toast_ms": 300,
                    "words": "Blorp snazzle wibbit." }),
            "KA_SITE_NOTICE",
            "Blorp snazzle wibbit.",
            3,
        ),
        (
            json!({ "at": 2, "kind": "cutnotice", "where": "toast", "toast_ms": 300,
                    "words": "You've reached your usage limit. Try again in 3 hours." }),
            "KA_USAGE_LIMIT",
            "You've reached your usage limit. Try again in 3 hours.",
            2,
        ),
        (
            json!({ "at": 2, "kind": "refuse", "where": "toast", "toast_ms": 300,
                    "words": "Frobnicator jammed, hang on." }),
            "KA_SITE_NOTICE",
            "Frobnicator jammed, hang on.",
            2,
        ),
    ];
    for (fault, code, words, sent) in cases {
        let site = Site::start(fault);
        let place = Place::new();
        let out = place.run(&site, Parts::Selectors, &[]);
        assert_eq!(out.code, Some(4), "{code}: {out:#?}");
        assert!(out.stderr.contains(code), "{code}: {out:#?}");
        assert!(out.stderr.contains(words), "{code}: {out:#?}");
        let took = out.ended - site.struck_at();
        assert!(
            took < 12.0 + NAMED_WITHIN,
            "{code}: named after {took:.1} s: {out:#?}"
        );
        assert_eq!(
            site.received().len(),
            sent,
            "{code}: sent into the chat after the notice: {:#?}",
            site.received()
        );
    }
}

/// A usage limit the page shows 4 s after the site cut the stream (after keyless named the cut
/// and began its wait): named before the chat is opened again, nothing sent into the limit
/// (an outside attack: the results went three times, the limit lost).
#[test]
fn a_limit_shown_seconds_after_a_cut_is_named_before_anything_is_sent_again() {
    let words = "You've reached your usage limit. Try again in 3 hours.";
    let site = Site::start(json!({ "at": 2, "kind": "cutnotice", "where": "toast",
        "show_delay_ms": 4000, "words": words }));
    let place = Place::new();
    let out = place.run(&site, Parts::Selectors, &[]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_USAGE_LIMIT"), "{out:#?}");
    assert!(out.stderr.contains(words), "{out:#?}");
    assert_eq!(site.received().len(), 2, "{:#?}", site.received());
    let status = place.status();
    assert!(status.contains("last trouble: KA_USAGE_LIMIT"), "{status}");
}

/// Harmless words a page shows beside a stream cut once ("Copied!", a chat renamed), the site
/// taking the message on the try after: the run goes on and finishes, the words quoted with the
/// site's error (an outside attack's regression check: a one-off cut beside a "Copied!" toast
/// stopped the run).
#[test]
fn harmless_words_beside_a_one_off_cut_do_not_stop_the_run() {
    let site = Site::start(json!({ "at": 2, "kind": "cutnotice", "where": "toast",
        "toast_ms": 1500, "lift_after": 1, "words": "Copied!" }));
    let place = Place::new();
    let out = place.run(&site, Parts::Selectors, &[]);
    assert!(out.stderr.contains("KA_SITE_ERROR"), "{out:#?}");
    assert!(out.stderr.contains("Copied!"), "{out:#?}");
    assert_completed(&place, &site, &out);
}

// ----- The tab closed, the browser killed -----

/// The site's DevTools HTTP address of the shared browser (for the site to close its tab).
fn devtools_http() -> String {
    let ws = crate::common::shared_browser::cdp_url();
    let host = ws
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    format!("http://{host}")
}

/// The tab closed half-way through the second reply: said in words with the resume command, and
/// `--resume` reads the reply the site kept, sending nothing again.
fn a_tab_closed_mid_reply(parts: Parts) {
    let site = Site::start(json!({ "at": 2, "kind": "closetab", "devtools": devtools_http() }));
    let place = Place::new();
    let out = place.run(&site, parts, &[]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("tab was closed"), "{out:#?}");
    assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
    assert!(
        !out.stderr.contains("receiver is gone"),
        "DevTools' words: {out:#?}"
    );
    let took = out.ended - site.struck_at();
    assert!(took < NAMED_WITHIN, "named after {took:.1} s: {out:#?}");
    let status = place.status();
    assert!(
        status.contains("last trouble: KA_BROWSER_CONNECTION_FAILED \"the chat's tab was closed"),
        "the closed tab is not the last trouble: {status}"
    );
    let again = place.resume(&site, parts, &[]);
    assert_completed(&place, &site, &again);
}

#[test]
fn a_tab_closed_mid_reply_with_selectors() {
    a_tab_closed_mid_reply(Parts::Selectors);
}

#[test]
fn a_tab_closed_mid_reply_found_by_discovery() {
    a_tab_closed_mid_reply(Parts::UrlOnly);
}

// ----- Walls mid-turn -----

/// A wall raised when the second message is sent; headless, keyless stops with `code` and the
/// resume command; once the person has passed it, `--resume` goes on in the same conversation.
fn a_wall_mid_turn(kind: &str, parts: Parts, code: &str, words: &str) -> (Out, Site) {
    let site = Site::start(json!({ "at": 2, "kind": kind }));
    let place = Place::new();
    let out = place.run(&site, parts, &[]);
    assert_stopped(
        &place,
        &site,
        &out,
        &Stop {
            code,
            words,
            within: NAMED_WITHIN,
        },
    );
    let session = fs::read_to_string(place.ws().join(".agent/session.json")).unwrap();
    assert!(
        !session.contains("/auth/login"),
        "the wall's address was saved as the chat's: {session}"
    );
    site.lift();
    let again = place.resume(&site, parts, &[]);
    assert_completed(&place, &site, &again);
    (out, site)
}

/// The page swaps itself for a sign-in form at the same address (no redirect): quoted as read,
/// the heading apart from the text, the form's fields' labels and its button ("Continue") left
/// out.
#[test]
fn a_sign_in_form_in_place_mid_turn_with_selectors() {
    let (out, _site) = a_wall_mid_turn(
        "login",
        Parts::Selectors,
        "KA_LOGIN_REQUIRED",
        "Your session has expired.",
    );
    assert!(
        out.stderr.contains(
            "\"Welcome back — Your session has expired. Sign in to pick up where you left off.\""
        ),
        "{out:#?}"
    );
}

#[test]
fn a_sign_in_form_in_place_mid_turn_found_by_discovery() {
    a_wall_mid_turn(
        "login",
        Parts::UrlOnly,
        "KA_LOGIN_REQUIRED",
        "Your session has expired.",
    );
}

/// The page goes to `/auth/login?next=/c/<id>` (every chat page redirects there until the person
/// logs in): the sign-in page's address is never saved as the chat's, and `--resume` goes on in
/// the same conversation.
#[test]
fn a_redirect_to_the_sign_in_page_mid_turn_found_by_discovery() {
    a_wall_mid_turn(
        "login_redirect",
        Parts::UrlOnly,
        "KA_LOGIN_REQUIRED",
        "Your session has expired.",
    );
}

/// What the check's page noted of a debugger's script: when it showed, and each new global it saw
/// appear in the page after that.
fn probes(site: &Site) -> (f64, Vec<Value>) {
    let lines: Vec<Value> = fs::read_to_string(site.file("probes.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shown = lines
        .iter()
        .find_map(|l| l["shown"].as_f64())
        .unwrap_or_else(|| panic!("the check never showed: {lines:#?}"));
    let reaches = lines
        .into_iter()
        .filter(|l| l["names"].is_array())
        .collect();
    (shown, reaches)
}

/// A "Checking your browser" interstitial at the chat's own address, answered 403, its title
/// not one keyless lists ("One moment, please..."): named `KA_BOT_CHECK` with its words, and no
/// script of keyless's put into the check's page (its page notes every new global).
#[test]
fn a_403_bot_check_at_the_chats_address_gets_no_script() {
    let site = Site::start(json!({ "at": 2, "kind": "bot403" }));
    let place = Place::new();
    let out = place.run(&site, Parts::Selectors, &[]);
    assert_stopped(
        &place,
        &site,
        &out,
        &Stop {
            code: "KA_BOT_CHECK",
            words: "Checking your browser",
            within: NAMED_WITHIN,
        },
    );
    let (_, reaches) = probes(&site);
    assert!(
        reaches.is_empty(),
        "keyless's script ran in the check's page: {reaches:#?}"
    );
    site.lift();
    let again = place.resume(&site, Parts::Selectors, &[]);
    assert_completed(&place, &site, &again);
}

/// The same stop (without the script check) and `--resume` through the 403 check, four runs in
/// a row: what keyless gets right about it most of the time.
#[test]
fn a_403_bot_check_at_the_chats_address_is_named_and_resumed_every_time() {
    for _ in 0..4 {
        a_wall_mid_turn(
            "bot403",
            Parts::Selectors,
            "KA_BOT_CHECK",
            "Checking your browser",
        );
    }
}

/// The page swaps itself for a check (status 200, the title still the site's own "Murmur"),
/// found by discovery: named `KA_BOT_CHECK`, and no new script put into the page once it showed
/// (a second's grace: keyless must look once to see it at all).
#[test]
fn a_bot_check_the_page_swaps_in_with_a_neutral_title() {
    let (_, site) = a_wall_mid_turn(
        "bot200",
        Parts::UrlOnly,
        "KA_BOT_CHECK",
        "Checking your browser",
    );
    let (shown, reaches) = probes(&site);
    let late: Vec<&Value> = reaches
        .iter()
        .filter(|r| r["t"].as_f64().unwrap() > shown + 1.5)
        .collect();
    assert!(
        late.is_empty(),
        "keyless's script ran in the check's page: {late:#?}"
    );
}

// ----- Limits in other languages -----

#[test]
fn a_usage_limit_in_portuguese_in_3_hours_found_by_discovery() {
    let words = "Você atingiu o limite de mensagens do seu plano. Tente novamente em 3 horas.";
    let stopped = stop_then_resume(
        refusal(1, "turn", words),
        Parts::UrlOnly,
        "KA_USAGE_LIMIT",
        words,
    );
    says_reset_in(&stopped, "3h 00m");
    resets_after(&stopped, 3.0 * 3600.0);
}

#[test]
fn a_usage_limit_in_korean_at_4_45_pm() {
    let words = "메시지 한도에 도달했습니다. 오후 4시 45분 이후에 다시 시도해 주세요.";
    let stopped = stop_then_resume(
        refusal(2, "turn", words),
        Parts::Selectors,
        "KA_USAGE_LIMIT",
        words,
    );
    says_reset_in(&stopped, "16:45");
}

// ----- Throttles, spend limits -----

/// "Too many requests" in a toast, the send answered 429: `KA_RATE_LIMITED`, then `--resume`.
#[test]
fn too_many_requests_in_a_toast_with_a_429() {
    let words = "Too many requests. Please wait a moment and try again.";
    let mut fault = refusal(2, "toast", words);
    fault["status"] = json!(429);
    fault["toast_ms"] = json!(6000);
    stop_then_resume(fault, Parts::Selectors, "KA_RATE_LIMITED", words);
}

/// "Whoa, slow down!" in the reply's place, found by discovery, with a reset in seconds.
#[test]
fn whoa_slow_down_in_the_replys_place_found_by_discovery() {
    let words = "Whoa, slow down! You're sending messages too quickly. Try again in 10 seconds.";
    stop_then_resume(
        refusal(2, "turn", words),
        Parts::UrlOnly,
        "KA_RATE_LIMITED",
        words,
    );
}

/// The same throttle with `--wait`: keyless says when it goes on, counts down, sends nothing
/// while the chat refuses, then sends the message once and finishes.
#[test]
fn whoa_slow_down_is_waited_out_with_wait() {
    let words = "Whoa, slow down! You're sending messages too quickly. Try again in 10 seconds.";
    let mut fault = refusal(2, "turn", words);
    fault["lift_after"] = json!(8);
    let site = Site::start(fault);
    let place = Place::new();
    let out = place.run(&site, Parts::UrlOnly, &["--wait"]);
    let trouble = out.events("trouble");
    assert!(
        trouble
            .iter()
            .any(|t| t["code"] == "KA_RATE_LIMITED" && t["words"] == words),
        "no trouble event with the site's words: {out:#?}"
    );
    assert!(!out.events("waiting").is_empty(), "no countdown: {out:#?}");
    assert_eq!(
        site.refused().len(),
        1,
        "sent into the refusing chat: {:#?}",
        site.received()
    );
    assert_completed(&place, &site, &out);
}

/// The chat's tab closed while `--wait` counts down a limit's reset: told at once (not when
/// the reset comes), nothing sent into the refusing chat, and `status` still names the limit
/// a resume must wait for.
#[test]
fn a_tab_closed_while_a_limit_is_waited_out_is_told_at_once() {
    let words =
        "You've reached the message limit for your plan. It will be available again in 2 minutes.";
    let mut fault = refusal(2, "ribbon", words);
    fault["close_after"] = json!(2);
    fault["devtools"] = json!(devtools_http());
    let site = Site::start(fault);
    let place = Place::new();
    let out = place.run(&site, Parts::Selectors, &["--wait"]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("tab was closed"), "{out:#?}");
    assert!(!out.events("waiting").is_empty(), "no countdown: {out:#?}");
    let took = out.ended - site.struck_at();
    assert!(
        took < 2.0 + NAMED_WITHIN,
        "told after {took:.1} s: {out:#?}"
    );
    assert_eq!(site.received().len(), 2, "{:#?}", site.received());
    let status = place.status();
    assert!(
        status.contains("last trouble: KA_USAGE_LIMIT"),
        "the limit a resume waits for: {status}"
    );
    // The resume it names is the one to type: the run's own page and browser flags.
    assert!(
        status.contains("`keyless run --resume --workspace ") && status.contains(" --selectors "),
        "{status}"
    );
}

/// A usage limit "available again in 1 minute" with `--wait`: waited out, then finished.
#[test]
fn a_usage_limit_in_1_minute_is_waited_out_with_wait() {
    let words =
        "You've reached the message limit for your plan. It will be available again in 1 minute.";
    let mut fault = refusal(2, "ribbon", words);
    fault["lift_after"] = json!(45);
    let site = Site::start(fault);
    let place = Place::new();
    let out = place.run(&site, Parts::Selectors, &["--wait"]);
    let trouble = out.events("trouble");
    assert!(
        trouble
            .iter()
            .any(|t| t["code"] == "KA_USAGE_LIMIT" && t["resets_at"].is_i64()),
        "no trouble event with the reset: {out:#?}"
    );
    assert_eq!(
        site.refused().len(),
        1,
        "sent into the refusing chat: {:#?}",
        site.received()
    );
    assert_completed(&place, &site, &out);
}

/// Out of credits, no reset: `KA_SPEND_LIMIT`, waiting will not help.
#[test]
fn out_of_credits_in_the_replys_place() {
    let words = "You're out of credits. Top up your balance to continue chatting.";
    let stopped = stop_then_resume(
        refusal(2, "turn", words),
        Parts::Selectors,
        "KA_SPEND_LIMIT",
        words,
    );
    assert!(
        stopped.out.stderr.contains("Waiting will not help"),
        "{:#?}",
        stopped.out
    );
    assert!(
        stopped.resets_at.is_none(),
        "a spend limit has no reset: {}",
        stopped.status
    );
}

/// A lapsed trial in the role-less ribbon, found by discovery.
#[test]
fn a_lapsed_trial_in_a_roleless_ribbon_found_by_discovery() {
    let words = "Your free trial has ended. Add a payment method to keep chatting with Murmur.";
    stop_then_resume(
        refusal(2, "ribbon", words),
        Parts::UrlOnly,
        "KA_SPEND_LIMIT",
        words,
    );
}

// ----- The browser killed -----

/// The processes of the browser keyless launched on `profile` (its command line names it).
fn browser_pids(profile: &Path) -> Vec<i32> {
    let mark = format!("--user-data-dir={}", profile.display());
    let mut pids = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline.split(|b| *b == 0).any(|arg| arg == mark.as_bytes()) {
            pids.push(pid);
        }
    }
    pids
}

/// The browser keyless launched is killed half-way through the second reply: said in words with
/// the resume command within seconds; `--resume` (a new browser) reads the reply the site kept.
#[test]
fn the_browser_killed_mid_reply() {
    let site = Site::start(json!({ "at": 2, "kind": "slowhalf", "pause": 8 }));
    let place = Place::new();
    let all = ["run", "--mode", "auto", "--pace", "batch", "--json", TASK];
    let child = place
        .command(&site, Parts::Selectors, &all, true)
        .spawn()
        .unwrap();
    site.wait_for("midstream", Duration::from_secs(60));
    let pids = browser_pids(&place.profile());
    assert!(!pids.is_empty(), "no browser on the profile");
    let killed = now();
    for pid in pids {
        // SAFETY: kill has no memory preconditions; these are the browser keyless launched.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    let out = child.wait_with_output().unwrap();
    let out = Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
        ended: now(),
    };
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
    assert!(
        out.ended - killed < NAMED_WITHIN,
        "named {:.1} s after the kill: {out:#?}",
        out.ended - killed
    );
    let status = place.status();
    assert!(
        status
            .contains("last trouble: KA_BROWSER_CONNECTION_FAILED \"the browser closed or crashed"),
        "the lost browser is not the last trouble: {status}"
    );
    let mut resume = place.command(
        &site,
        Parts::Selectors,
        &[
            "run", "--resume", "--mode", "auto", "--pace", "batch", "--json",
        ],
        true,
    );
    resume.stdin(Stdio::null());
    let again = Place::output(resume);
    assert_completed(&place, &site, &again);
}

/// A throttle in a native modal `<dialog>` ("Got it"), in words keyless knows in the reply's
/// place (`whoa_slow_down_in_the_replys_place_found_by_discovery`): quoted as read, its title
/// apart from its message (a title ends in no stop of its own) and its button left out.
#[test]
fn a_throttle_in_a_modal_dialog_with_got_it() {
    let words = "Whoa, slow down! You're sending messages too quickly. Try again in 10 seconds.";
    let mut fault = refusal(2, "dialog", words);
    fault["title"] = json!("Slow down");
    let stopped = stop_then_resume(fault, Parts::Selectors, "KA_RATE_LIMITED", words);
    assert!(
        stopped
            .out
            .stderr
            .contains(&format!("\"Slow down — {words}\"")),
        "the dialog's title runs into its message, or its button is quoted: {:#?}",
        stopped.out
    );
}

/// A usage limit in Chinese in the reply's place, the reset at 16:45.
#[test]
fn a_usage_limit_in_chinese_at_16_45() {
    let words = "您已达到当前套餐的消息上限，请于 16:45 后再试。";
    let stopped = stop_then_resume(
        refusal(2, "turn", words),
        Parts::Selectors,
        "KA_USAGE_LIMIT",
        words,
    );
    says_reset_in(&stopped, "16:45");
}

/// The sign-in form swapped in at the chat's own address, half a second after the send (when the
/// page's request is answered 401), six runs in a row alternating selectors and `--url` alone:
/// every time the stop is `KA_LOGIN_REQUIRED` at once with the words and the resume command,
/// nothing more sent, and nothing put into the form's fields (the form notes every input).
#[test]
fn a_sign_in_form_in_place_is_named_at_once_every_time() {
    for round in 0..6 {
        let parts = if round % 2 == 0 {
            Parts::UrlOnly
        } else {
            Parts::Selectors
        };
        let site = Site::start(json!({ "at": 2, "kind": "login" }));
        let place = Place::new();
        let out = place.run(&site, parts, &[]);
        assert_stopped(
            &place,
            &site,
            &out,
            &Stop {
                code: "KA_LOGIN_REQUIRED",
                words: "Your session has expired.",
                within: NAMED_WITHIN,
            },
        );
        let typed = fs::read_to_string(site.file("typed.jsonl")).unwrap_or_default();
        assert!(
            typed.is_empty(),
            "keyless put text into the sign-in form: {typed}"
        );
    }
}

/// A 500 to the send with its words only in a toast that vanishes ("hit a snag (error 500)"),
/// lasting about 20 s, found by discovery: waited out, the message taken once.
#[test]
fn a_500_told_by_a_toast_for_20_seconds_is_waited_out_found_by_discovery() {
    let words = "Hmm, Murmur hit a snag (error 500). Give it another go in a moment.";
    let mut fault = refusal(2, "toast", words);
    fault["status"] = json!(500);
    fault["toast_ms"] = json!(5000);
    fault["lift_after"] = json!(20);
    let site = Site::start(fault);
    let place = Place::new();
    let out = place.run(&site, Parts::UrlOnly, &[]);
    assert!(
        out.stderr.contains("KA_SITE_ERROR") && out.stderr.contains(words),
        "{out:#?}"
    );
    assert!(
        out.events("trouble")
            .iter()
            .any(|t| t["code"] == "KA_SITE_ERROR" && t["words"] == words),
        "no trouble event with the words: {out:#?}"
    );
    assert_completed(&place, &site, &out);
}

/// keyless killed while `--wait` counts down a limit on a page found by its shape alone (a
/// crash, or a second Ctrl+C, which ends it at once): what discovery proved was kept as it was
/// proved, so the resume finds the conversation and goes on in it, the task not sent again.
#[test]
fn killed_in_a_limit_s_wait_on_a_discovered_page_resumes_in_the_same_chat() {
    let site = Site::start(refusal(
        2,
        "ribbon",
        "You have reached your usage limit. Try again in 10 minutes.",
    ));
    let place = Place::new();
    let all = [
        "run", "--mode", "auto", "--pace", "batch", "--json", "--wait", TASK,
    ];
    let mut child = place
        .command(&site, Parts::UrlOnly, &all, false)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let waiting = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|line| serde_json::from_str::<Value>(&line).is_ok_and(|e| e["type"] == "waiting"));
    assert!(waiting, "keyless never waited: {:#?}", site.received());
    // SAFETY: kill has no memory preconditions; the process is the keyless started above.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    let _ = child.wait();
    site.lift();
    let again = place.resume(&site, Parts::UrlOnly, &[]);
    assert!(!again.stderr.contains("chat is gone"), "{again:#?}");
    assert_completed(&place, &site, &again);
}
