//! Issue 31's claims attacked a third time by a reviewer who had not read the code nor the
//! earlier attacks: a chat site of its own (`tests/attacks31c/site.py`, "Parley": a textarea
//! composer, replies streamed as JSON lines into `<section>`s, each reply's copy toolbar drawn
//! as the reply's sibling in the thread, limits in banners above the composer, toasts, a bot
//! check at an address of its own, conversations kept on the server). keyless runs with `--url`
//! alone (discovery), headless, in a tab of the test binary's shared browser. The site records
//! every message it received (`dup`: a message the conversation already held; `refused`: one
//! it turned away), the tests' proof of what went twice and what went into a refusing chat.
//!
//! What the attack found and these pin: a resume that sent an answered message again (the
//! learned user-turn selector also matched the replies' toolbars); a "reconnecting…" banner
//! that heals by itself taken for the machine offline and the message sent again; a usage
//! banner standing when the chat opened again, sent into; a whole reply before a limit's banner
//! left unrun; a bare HTTP 429 with `Retry-After` and a 503 with a passing toast not named; a
//! server error in Portuguese unknown; a bot check's own address saved as the chat's; and the
//! resume command named without the flags the run needs.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::local_keyless::{attached, keyless_at};
use crate::common::python_site::PythonSite;

/// The reply timeout keyless gets here: a reply waited for in vain costs this.
const REPLY_TIMEOUT: u64 = 40;

/// How long a stream may make no progress before keyless calls it stalled, here.
const STALL: u64 = 8;

const TASK: &str = "Create the two files a.txt and b.txt";

/// Parley with one fault (`args.json`: `fault`, `text`, `persist`, …).
fn site(args: Value) -> PythonSite {
    PythonSite::start("attacks31c", &[("args.json", args.to_string())])
}

/// Every message the site received, in order.
fn received(site: &PythonSite) -> Vec<Value> {
    fs::read_to_string(site.file("received.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["ev"] == "send")
        .collect()
}

/// The results messages the model took, and those the site refused.
fn results(site: &PythonSite) -> (usize, usize) {
    let sent = received(site);
    let kind = |e: &&Value| e["kind"] == "results";
    (
        sent.iter()
            .filter(kind)
            .filter(|e| e["refused"] == false)
            .count(),
        sent.iter()
            .filter(kind)
            .filter(|e| e["refused"] == true)
            .count(),
    )
}

fn no_message_twice(site: &PythonSite) {
    let sent = received(site);
    assert!(
        sent.iter().all(|e| e["dup"] != true),
        "a message the chat held was sent again: {sent:#?}"
    );
}

struct Place {
    dir: tempfile::TempDir,
}

#[derive(Debug)]
struct Out {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

impl Out {
    fn finished(&self) -> Value {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .rfind(|e| e["type"] == "finished")
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

    fn keyless(&self, site: &PythonSite, args: &[&str]) -> Out {
        let mut all = vec!["run", "--mode", "auto", "--json"];
        all.extend_from_slice(args);
        let mut cmd = attached(keyless_at(
            &site.url(),
            None,
            &self.dir.path().join("browser"),
            self.dir.path(),
            &all,
        ));
        cmd.arg("--workspace")
            .arg(self.ws())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = cmd.output().unwrap();
        Out {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
        }
    }

    fn run(&self, site: &PythonSite, args: &[&str]) -> Out {
        let mut all = args.to_vec();
        all.push(TASK);
        self.keyless(site, &all)
    }

    fn resume(&self, site: &PythonSite, args: &[&str]) -> Out {
        let mut all = vec!["--resume"];
        all.extend_from_slice(args);
        // The faults here are lifted before the resets they name: the person says so.
        if !args.contains(&"--wait") {
            all.push("--now");
        }
        self.keyless(site, &all)
    }

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

    fn read(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.ws().join(name)).ok()
    }

    /// The task finished: both files as the replies wrote them.
    fn completed(&self, site: &PythonSite, out: &Out) {
        assert_eq!(out.code, Some(0), "{out:#?}\n{:#?}", received(site));
        assert_eq!(self.read("a.txt").as_deref(), Some("alpha\n"), "{out:#?}");
        assert_eq!(self.read("b.txt").as_deref(), Some("beta\n"), "{out:#?}");
    }
}

/// Lifts the site's fault (the person waited, logged in, passed the check).
fn lift(site: &PythonSite) {
    let _ = std::net::TcpStream::connect(("127.0.0.1", site.port)).map(|mut s| {
        use std::io::{Read, Write};
        let _ = s.write_all(b"GET /__ctl?clear=1 HTTP/1.0\r\n\r\n");
        let mut sink = Vec::new();
        let _ = s.read_to_end(&mut sink);
    });
}

/// A stream that stalls with each reply's toolbar beside it: the stall is named, and the
/// resume reads the reply the reopened chat shows, never sending the answered message again
/// (the resume's look for the message found it by its words when the newest "user turn" by the
/// learned selector was a toolbar).
///
/// A fourth attack put the toolbar before each reply, or gave it a label ("Copied!"): the
/// resume, reading from the page, found no copy control and told the model its valid reply was
/// rejected. A toolbar right before the reply, or one with a label's words, is looked in too
/// (what its control copies is proved against the drawn reply).
#[test]
fn a_resume_never_sends_again_what_a_chat_with_toolbars_beside_its_replies_answered() {
    for layout in [
        json!({ "fault": "stall" }),
        json!({ "fault": "stall", "tools_before": true }),
        json!({ "fault": "stall", "tools_text": "Copied!" }),
    ] {
        let site = site(layout.clone());
        let place = Place::new();
        let out = place.run(&site, &[]);
        assert_eq!(out.code, Some(4), "{layout}: {out:#?}");
        assert!(
            out.stderr.contains("KA_REPLY_STALLED"),
            "{layout}: {out:#?}"
        );
        let resumed = place.resume(&site, &[]);
        place.completed(&site, &resumed);
        assert!(
            !resumed.stderr.contains("not valid AgentScript"),
            "{layout}: a correction for a valid reply: {resumed:#?}"
        );
        no_message_twice(&site);
        assert_eq!(results(&site), (1, 0), "{layout}: {:#?}", received(&site));
    }
}

/// A "Network error — reconnecting…" banner that heals by itself while the reply goes on
/// streaming is waited through: no "offline", no reload, nothing sent again.
#[test]
fn a_banner_that_reconnects_by_itself_while_the_reply_streams_is_waited_through() {
    let site = site(json!({ "fault": "net_heal", "text": "Network error — reconnecting…" }));
    let place = Place::new();
    let out = place.run(&site, &[]);
    place.completed(&site, &out);
    assert!(!out.stderr.contains("KA_NETWORK_OFFLINE"), "{out:#?}");
    assert!(!out.stderr.contains("KA_SITE_ERROR"), "{out:#?}");
    no_message_twice(&site);
    assert_eq!(results(&site), (1, 0), "{:#?}", received(&site));
}

/// A usage banner in Portuguese, shown 0.3 s after the first reply ended whole: the reply is
/// run, the results are not sent into the limited chat; a resume with the banner still up
/// (the site shows it on load) sends nothing either; once lifted, the resume finishes.
#[test]
fn a_limit_banner_standing_before_a_send_is_never_sent_into() {
    let words =
        "Você atingiu o limite de uso do seu plano. O limite será redefinido amanhã às 9:00.";
    let site = site(json!({ "fault": "banner_after1", "text": words, "persist": 600 }));
    let place = Place::new();
    let out = place.run(&site, &[]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_USAGE_LIMIT"), "{out:#?}");
    assert!(out.stderr.contains("limite de uso"), "{out:#?}");
    assert_eq!(
        place.read("a.txt").as_deref(),
        Some("alpha\n"),
        "the whole reply before the banner was not run: {out:#?}"
    );
    assert_eq!(results(&site), (0, 0), "{:#?}", received(&site));
    let again = place.resume(&site, &[]);
    assert_eq!(again.code, Some(4), "{again:#?}");
    assert!(again.stderr.contains("KA_USAGE_LIMIT"), "{again:#?}");
    assert_eq!(
        results(&site),
        (0, 0),
        "sent into a chat showing its limit: {:#?}",
        received(&site)
    );
    lift(&site);
    let done = place.resume(&site, &[]);
    place.completed(&site, &done);
    no_message_twice(&site);
}

/// The results refused with a bare HTTP 429 and `Retry-After: 4`, no words on the page: a rate
/// limit named by the status, waited out with `--wait`, the message sent once more and the task
/// finished.
#[test]
fn a_bare_429_with_retry_after_is_a_rate_limit_waited_out() {
    let site = site(json!({ "fault": "silent429", "retry_after": "4", "persist": 3 }));
    let place = Place::new();
    let started = Instant::now();
    let out = place.run(&site, &["--wait"]);
    place.completed(&site, &out);
    assert!(out.stderr.contains("KA_RATE_LIMITED"), "{out:#?}");
    assert!(out.stderr.contains("HTTP 429"), "{out:#?}");
    assert_eq!(results(&site), (1, 1), "{:#?}", received(&site));
    assert!(
        started.elapsed() < Duration::from_secs(REPLY_TIMEOUT),
        "waited out the reply timeout: {out:#?}"
    );
}

/// The results refused with a 429 whose words are only in its JSON body (a message and a code,
/// no `Retry-After`), the page showing nothing: the body's words name a usage limit and its
/// reset, quoted, and `--wait` waits for it and sends the message once more.
#[test]
fn a_429_whose_json_body_names_a_usage_limit_is_that_limit_in_its_words() {
    let words = "Your daily allowance of messages is spent; it renews in 7 seconds.";
    let site = site(json!({ "fault": "json429", "text": words, "persist": 4 }));
    let place = Place::new();
    let out = place.run(&site, &["--wait"]);
    place.completed(&site, &out);
    assert!(out.stderr.contains("KA_USAGE_LIMIT"), "{out:#?}");
    assert!(out.stderr.contains("HTTP 429"), "{out:#?}");
    assert!(
        out.stderr.contains("daily allowance of messages is spent"),
        "{out:#?}"
    );
    assert_eq!(results(&site), (1, 1), "{:#?}", received(&site));
    no_message_twice(&site);
}

/// The results refused with HTTP 402 Payment Required, in words that name no limit, the page
/// showing nothing: a spend limit (waiting will not help), its words quoted, nothing sent
/// again, even with `--wait`.
#[test]
fn a_402_is_a_spend_limit_that_no_wait_mends() {
    let words = "This workspace cannot start new conversations.";
    let site = site(json!({ "fault": "json402", "text": words, "persist": 4 }));
    let place = Place::new();
    let out = place.run(&site, &["--wait"]);
    assert_ne!(out.code, Some(0), "{out:#?}");
    assert!(out.stderr.contains("KA_SPEND_LIMIT"), "{out:#?}");
    assert!(out.stderr.contains("HTTP 402"), "{out:#?}");
    assert!(out.stderr.contains(words), "{out:#?}");
    assert!(out.stderr.contains("keyless run --resume"), "{out:#?}");
    no_message_twice(&site);
}

/// A server error in Portuguese beside the turn, and a 503 whose Spanish toast passes in 8 s:
/// each named as the site's error, the message found unanswered and sent once more.
#[test]
fn server_errors_in_other_languages_and_passing_toasts_are_named() {
    for (fault, words) in [
        (
            "inline500",
            "Erro interno do servidor (500). Tente novamente.",
        ),
        (
            "http503",
            "El modelo está sobrecargado en este momento. Inténtalo de nuevo en unos segundos.",
        ),
    ] {
        let site = site(json!({ "fault": fault, "text": words }));
        let place = Place::new();
        let started = Instant::now();
        let out = place.run(&site, &[]);
        place.completed(&site, &out);
        assert!(out.stderr.contains("KA_SITE_ERROR"), "{fault}: {out:#?}");
        // A refused message is never called sent (a fourth attack saw "it counts as sent and
        // was not sent again" beside the 503's toast, before it was rightly sent again).
        assert!(!out.stderr.contains("counts as sent"), "{fault}: {out:#?}");
        assert!(
            started.elapsed() < Duration::from_secs(REPLY_TIMEOUT),
            "{fault}: waited out the reply timeout: {out:#?}"
        );
        assert_eq!(results(&site), (1, 1), "{fault}: {:#?}", received(&site));
    }
}

/// A fourth outside attack: a 503 with `Retry-After: 12` that refuses for 10 s. Before, the
/// first retry went after keyless's own 5 s, into the refusal, and only then was the server's
/// time waited: now the first retry waits what the server asked, so one message is refused.
#[test]
fn a_503_s_retry_after_is_waited_before_the_first_retry() {
    let site = site(json!({
        "fault": "http503",
        "text": "The model is overloaded right now.",
        "retry_after": "12",
        "persist": 10,
    }));
    let place = Place::new();
    let out = place.run(&site, &[]);
    place.completed(&site, &out);
    assert!(out.stderr.contains("KA_SITE_ERROR"), "{out:#?}");
    assert!(!out.stderr.contains("counts as sent"), "{out:#?}");
    assert_eq!(
        results(&site),
        (1, 1),
        "retried inside the server's Retry-After: {:#?}",
        received(&site)
    );
    no_message_twice(&site);
}

/// A fifth outside attack: a limit's banner up before the first message, the run stopped,
/// the limit lifted early and `--resume --now` run. Nothing had ever gone, so the task goes as
/// it was, once: before, the resume called the chat gone and wrapped the task in a summary
/// ("continues from a chat that reached its length limit").
#[test]
fn a_first_message_no_chat_took_goes_as_it_was_on_resume() {
    let words = "You've reached your message limit. Try again in 2 hours.";
    let site = site(json!({ "fault": "preload_banner", "text": words, "persist": 600 }));
    let place = Place::new();
    let out = place.run(&site, &[]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_USAGE_LIMIT"), "{out:#?}");
    // "→ sending" was shown before the page was looked at: the stop says nothing went.
    assert!(out.stderr.contains("the message was not sent"), "{out:#?}");
    // The task as it waits in the session, in characters (as the site counts them).
    let session: Value =
        serde_json::from_str(&fs::read_to_string(place.ws().join(".agent/session.json")).unwrap())
            .unwrap();
    let pending = session["pending"]
        .as_str()
        .unwrap_or_default()
        .chars()
        .count() as u64;
    assert!(pending > 0, "{session:#?}");
    lift(&site);
    let done = place.resume(&site, &[]);
    place.completed(&site, &done);
    assert!(!done.stderr.contains("the chat is gone"), "{done:#?}");
    let tasks: Vec<Value> = received(&site)
        .into_iter()
        .filter(|e| e["kind"] == "task" && e["refused"] == false)
        .collect();
    assert_eq!(tasks.len(), 1, "{:#?}", received(&site));
    assert_eq!(
        tasks[0]["n"].as_u64(),
        Some(pending),
        "the task went other than it was (wrapped in a summary?): {:#?}",
        received(&site)
    );
    no_message_twice(&site);
}

/// A fifth outside attack: a notice in the reply's place in words keyless knew only in
/// English (a plan lapsed, in Portuguese) was called a stall on every resume, its words never
/// shown. Now the Portuguese is a spend limit, and a notice in words no list holds
/// (Indonesian) is the site's notice, quoted, never a stall.
#[test]
fn a_notice_in_the_reply_s_place_in_other_words_is_never_a_stall() {
    for (words, code) in [
        (
            "Seu plano expirou. Renove sua assinatura para continuar usando o Parley.",
            "KA_SPEND_LIMIT",
        ),
        (
            "Paket Anda telah berakhir. Perpanjang langganan untuk terus memakai Parley.",
            "KA_SITE_NOTICE",
        ),
    ] {
        let site = site(json!({ "fault": "turn_notice", "text": words, "persist": 600 }));
        let place = Place::new();
        let out = place.run(&site, &[]);
        assert_eq!(out.code, Some(4), "{words}: {out:#?}");
        assert!(out.stderr.contains(code), "{words}: {out:#?}");
        assert!(
            !out.stderr.contains("KA_REPLY_STALLED"),
            "{words}: {out:#?}"
        );
        assert!(out.stderr.contains(words), "the words are quoted: {out:#?}");
        let again = place.resume(&site, &[]);
        assert!(again.stderr.contains(code), "{words}: {again:#?}");
        assert!(
            !again.stderr.contains("KA_REPLY_STALLED"),
            "{words}: {again:#?}"
        );
    }
}

/// A bot check at an address of its own mid-turn: named, and its address is never saved as
/// the chat's; the stop names the resume command with the run's own flags.
#[test]
fn a_bot_check_s_own_address_is_never_the_chat_s() {
    let site = site(json!({ "fault": "botwall", "persist": 600 }));
    let place = Place::new();
    let out = place.run(&site, &[]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_BOT_CHECK"), "{out:#?}");
    let status = place.status();
    assert!(!status.contains("challenge"), "{status}");
    assert!(status.contains("/c/"), "{status}");
    let ws = fs::canonicalize(place.ws()).unwrap();
    assert!(
        out.stderr.contains(&format!(
            "keyless run --resume --workspace {}",
            ws.display()
        )),
        "the resume command lacks the run's workspace: {out:#?}"
    );
    assert_eq!(out.finished()["code"], "KA_BOT_CHECK");
}

/// A fourth outside attack: the sign-in page served at the chat's own address mid-turn (a
/// reload into an expired session). Named, the chat's address kept (before, the start page was
/// saved and the resume went into a new chat, the model's reply left unread); once the person
/// logged in, the resume reads the reply the chat kept, nothing sent again.
#[test]
fn a_sign_in_page_at_the_chat_s_own_address_keeps_the_chat() {
    let site = site(json!({ "fault": "login_same", "persist": 6 }));
    let place = Place::new();
    let out = place.run(&site, &[]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_LOGIN_REQUIRED"), "{out:#?}");
    let status = place.status();
    assert!(status.contains("/c/"), "{status}");
    let lifted = Instant::now() + Duration::from_secs(7);
    while Instant::now() < lifted {
        std::thread::sleep(Duration::from_millis(200));
    }
    let resumed = place.resume(&site, &[]);
    place.completed(&site, &resumed);
    no_message_twice(&site);
    assert_eq!(results(&site), (1, 0), "{:#?}", received(&site));
}

/// A fourth outside attack: the page shows a limit's banner before the first message goes,
/// run with `--wait`: nothing is sent into it; after the wait the page is opened again (the
/// banner read before the wait is no word of the site's now), and the task finishes. Before,
/// keyless read the same banner from the page it never reloaded and waited forever.
#[test]
fn a_limit_banner_up_before_the_first_message_is_waited_out_with_a_fresh_look() {
    let words = "You've reached your message limit. Try again in 10 seconds.";
    let site = site(json!({ "fault": "preload_banner", "text": words, "persist": 8 }));
    let place = Place::new();
    let started = Instant::now();
    let out = place.run(&site, &["--wait"]);
    place.completed(&site, &out);
    assert!(out.stderr.contains("KA_USAGE_LIMIT"), "{out:#?}");
    assert!(
        started.elapsed() < Duration::from_secs(REPLY_TIMEOUT + 20),
        "{out:#?}"
    );
    let refused = received(&site)
        .iter()
        .filter(|e| e["refused"] == true)
        .count();
    assert_eq!(
        refused,
        0,
        "sent into the limited chat: {:#?}",
        received(&site)
    );
}
