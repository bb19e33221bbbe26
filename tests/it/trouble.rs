//! The chat site's trouble mid-turn (issue 31), through the built binary on the local chat
//! page with faults injected: a usage limit in the reply's place, a throttle toast (and the
//! same words again for the resent message) and a throttle dialog, a spend limit in a banner,
//! an error turn with a Retry button (passing, and staying), a stalled stream, a login
//! redirect and a bot check mid-turn, the tab closed mid-reply, the network dropped
//! mid-stream with the reply kept by the site. Each is named with its
//! code and the site's words within seconds, nothing is sent into a refusing chat (no format
//! correction), the session stays resumable, and `--resume` or `--wait` finishes the turn
//! with nothing sent twice that the model had.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use keyless::chat::local::{Fault, LocalChat, Script, ScriptedReply};
use keyless::turn::record;
use keyless::workspace::Workspace;

use crate::common::local_keyless::keyless_on;

fn done_reply(message: &str) -> String {
    format!("```\n@@done\n<<<MSG\n{message}\nMSG>>>\n@@end\n@@eof\n```")
}

/// A chat whose first answer is `fault` with `words`, and whose second is `@@done`.
fn chat(fault: Option<Fault>, words: &str, chunk_delay: Duration) -> LocalChat {
    LocalChat::start(Script {
        replies: vec![
            ScriptedReply {
                text: words.to_string(),
                fault,
            },
            ScriptedReply {
                text: done_reply("finished after the trouble"),
                fault: None,
            },
        ],
        chunk_delay,
        chunk_chars: 40,
        ..Script::default()
    })
    .unwrap()
}

/// How soon trouble must be named: well before the reply's time limit (`config`), however
/// loaded the machine, so that a notice missed (waited out to the limit) fails the test.
const NAMED_WITHIN: Duration = Duration::from_secs(40);

/// Short waits for stalls and truncation; a reply time limit far past `NAMED_WITHIN`, so that a
/// missed notice shows as `KA_REPLY_TIMEOUT` after it.
fn config(ws: &Path) {
    std::fs::write(
        ws.join("keyless.json"),
        r#"{"Browser": {"ReplyTimeoutSeconds": 60, "TruncationBudgetSeconds": 2, "StallSeconds": 3}}"#,
    )
    .unwrap();
}

/// `keyless <args>` to its end: the output as text, and how long it took.
fn run(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> (Output, String, Duration) {
    let started = Instant::now();
    let mut cmd = keyless_on(chat, ws, profile, args);
    cmd.args(["--mode", "auto"]);
    let out = cmd.output().unwrap();
    let text = format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text, started.elapsed())
}

fn pending(ws: &Path) -> Option<String> {
    let session = record::load_session(&Workspace::open(ws).unwrap()).unwrap();
    session.in_flight.message().map(str::to_string)
}

/// A limit in the reply's own place, in several sites' wordings and time formats: named at
/// once with its code and words, no format correction sent, the turn resumable. Before the
/// reset the site named, a plain `--resume` stops with nothing sent (a fourth outside attack
/// saw the message go into the limited chat twice more); `--resume --now` (the limit lifted)
/// sends the message once more and finishes.
#[test]
fn a_usage_limit_in_the_reply_s_place_stops_resumable_with_the_site_s_words() {
    for words in [
        "You've hit your limit · resets 4:00 PM",
        "You've reached the current usage cap for GPT-4. You can continue with the default model now, or try again after 19:06",
        "Du hast dein Nutzungslimit erreicht. Versuche es in 3 Stunden erneut.",
        "Weekly limit reached · resets Jan 5",
    ] {
        let chat = chat(None, words, Duration::from_millis(10));
        let ws = tempfile::tempdir().unwrap();
        let profile = tempfile::tempdir().unwrap();
        config(ws.path());
        let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
        assert_ne!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("KA_USAGE_LIMIT"), "{words}: {text}");
        assert!(text.contains(words), "the site's words are shown: {text}");
        assert!(text.contains("keyless run --resume"), "{text}");
        assert!(!text.contains("KA_PARSE"), "{text}");
        assert!(took < NAMED_WITHIN, "{words}: took {took:?}");
        assert_eq!(
            chat.received().len(),
            1,
            "nothing sent into the refusing chat: {text}"
        );
        assert!(
            pending(ws.path()).is_some_and(|m| m.contains("the task")),
            "{text}"
        );
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"))
            .args(["status", "--workspace"])
            .arg(ws.path())
            .env("XDG_CONFIG_HOME", profile.path())
            .output()
            .unwrap();
        let status = String::from_utf8_lossy(&status.stdout).into_owned()
            + &String::from_utf8_lossy(&status.stderr);
        assert!(status.contains("KA_USAGE_LIMIT"), "{status}");

        // Before a reset the site named, a plain resume sends nothing into the chat: it says
        // when, and how to go on (`--wait`, or `--now` when the limit is lifted already).
        let resets = record::load_session(&Workspace::open(ws.path()).unwrap())
            .unwrap()
            .trouble
            .and_then(|t| t.resets_at);
        let go_on: &[&str] = if resets.is_some() {
            let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
            assert_eq!(out.status.code(), Some(4), "{words}: {text}");
            assert!(text.contains("KA_USAGE_LIMIT"), "{words}: {text}");
            assert!(text.contains("resets in"), "{words}: {text}");
            assert!(text.contains("--wait` to wait"), "{text}");
            assert!(text.contains("--now` if the limit is lifted"), "{text}");
            assert!(took < NAMED_WITHIN, "{words}: took {took:?}");
            assert_eq!(chat.received().len(), 1, "sent before the reset: {text}");
            &["run", "--resume", "--now"]
        } else {
            &["run", "--resume"]
        };
        let (out, text, _) = run(&chat, ws.path(), profile.path(), go_on);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("finished after the trouble"), "{text}");
        let received = chat.received();
        assert_eq!(received.len(), 2, "{text}");
        assert_eq!(received[0], received[1], "the same message once more");
    }
}

/// A throttle toast outside the conversation with a reset seconds away: with `--wait`,
/// keyless tells the countdown, waits it out, sends the message once more and finishes.
#[test]
fn a_throttle_toast_is_waited_out_with_wait() {
    let chat = chat(
        Some(Fault::Toast),
        "Too many requests. You're making requests too quickly. Try again in 3 seconds.",
        Duration::from_millis(10),
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "the task", "--wait", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_RATE_LIMITED"), "{text}");
    assert!(text.contains(r#""type":"waiting""#), "{text}");
    assert!(text.contains(r#""type":"trouble""#), "{text}");
    assert!(took >= Duration::from_secs(3), "waited: {took:?}");
    let received = chat.received();
    assert_eq!(received.len(), 2, "{text}");
    assert_eq!(received[0], received[1], "the same message once more");
}

/// A toast in words no kind of trouble keyless knows, the reply's turn left empty (a site
/// refusing in its own words): `KA_SITE_NOTICE` with the words quoted, within seconds; no
/// format correction goes into the refusing chat, and `--resume` finishes. Before, the empty
/// turn was read as a reply cut short and corrections went until one was taken in place of the
/// message.
#[test]
fn an_empty_reply_beside_unknown_words_is_a_site_notice_and_nothing_more_is_sent() {
    let words = "Parley needs a breather. Come back after lunch.";
    let chat = chat(Some(Fault::Toast), words, Duration::from_millis(10));
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_SITE_NOTICE"), "{text}");
    assert!(text.contains(words), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    assert!(!text.contains("SMALLER"), "{text}");
    assert!(!text.contains("KA_REPLY_TIMEOUT"), "{text}");
    assert!(took < NAMED_WITHIN, "took {took:?}");
    assert_eq!(chat.received().len(), 1, "{text}");
    assert!(
        pending(ws.path()).is_some_and(|m| m.contains("the task")),
        "{text}"
    );
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
}

/// A refusal that takes the reply's turn away and says so in a toast in words no kind of
/// trouble keyless knows: with no reply begun and nothing streaming, the standing notice is the
/// site's answer, `KA_SITE_NOTICE` with its words, nothing more sent, and `--resume` finishes.
/// Before, keyless waited for a reply to the end of its time limit.
#[test]
fn a_notice_in_unknown_words_where_no_reply_began_is_named() {
    let words = "Parley is resting its voice. Try again after tea.";
    let chat = chat(Some(Fault::ToastAlone), words, Duration::from_millis(10));
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_SITE_NOTICE"), "{text}");
    assert!(text.contains(words), "{text}");
    assert!(!text.contains("KA_REPLY_TIMEOUT"), "{text}");
    assert!(took < NAMED_WITHIN, "took {took:?}");
    assert_eq!(chat.received().len(), 1, "{text}");
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
}

/// On a page no selectors file knows, run with `--url`: the `keyless run --resume` a stop
/// names, as written (no `--url`, no `--site`), goes on in the saved chat. Before, it failed
/// with "no chat site chosen" (an outside attack).
#[test]
fn the_resume_a_stop_names_works_as_written_on_a_discovered_page() {
    let words = "Parley is resting its voice. Try again after tea.";
    let chat = chat(Some(Fault::Toast), words, Duration::from_millis(10));
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    config(ws.path());
    let selectors = home.path().join("no-sites.json");
    std::fs::write(&selectors, r#"{"sites": {}}"#).unwrap();
    let keyless = |args: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_keyless"));
        cmd.args(args)
            .args(["--headless", "--mode", "auto", "--selectors"])
            .arg(&selectors)
            .arg("--profile")
            .arg(home.path().join("browser"))
            .arg("--workspace")
            .arg(ws.path())
            .env("XDG_CONFIG_HOME", home.path())
            .stdin(std::process::Stdio::null());
        let out = crate::common::local_keyless::attached(cmd)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let (code, text) = keyless(&["run", "the task", "--url", &chat.url()]);
    assert_ne!(code, Some(0), "{text}");
    // The site's 429 names the refusal a rate limit, in its own words.
    assert!(text.contains("KA_RATE_LIMITED"), "{text}");
    assert!(text.contains(words), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    let (code, text) = keyless(&["run", "--resume"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
    assert_eq!(chat.received().len(), 2, "{text}");
}

/// ChatGPT's throttle modal, in a dialog with "Got it": named and acknowledged; without
/// `--wait` the run stops at once, resumable.
#[test]
fn a_throttle_dialog_is_named_and_acknowledged() {
    let chat = chat(
        Some(Fault::Dialog),
        "Too many requests. We've temporarily limited access to your conversations. Please wait a few minutes.",
        Duration::from_millis(10),
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_RATE_LIMITED"), "{text}");
    assert!(text.contains("temporarily limited access"), "{text}");
    assert!(took < NAMED_WITHIN, "took {took:?}");
    assert_eq!(chat.received().len(), 1, "{text}");
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
}

/// A limit said in the browser's own `alert()`, which stalls every script of the page until it
/// is answered: the alert is closed at once and its words read as any notice's, the known
/// (a throttle) and the unknown (a site notice) alike; nothing more is sent, and `--resume`
/// finishes in the page the alert left. Before, every look at the page hung on the open alert
/// and the run ended 30 s later as a lost browser connection.
#[test]
fn a_limit_in_an_alert_is_closed_read_and_named() {
    for (words, code) in [
        (
            "Too many requests. You have sent too many messages in a short time, please wait a few minutes.",
            "KA_RATE_LIMITED",
        ),
        (
            "Parley is catching its breath. Come back after lunch.",
            "KA_SITE_NOTICE",
        ),
    ] {
        let chat = chat(Some(Fault::Alert), words, Duration::from_millis(10));
        let ws = tempfile::tempdir().unwrap();
        let profile = tempfile::tempdir().unwrap();
        config(ws.path());
        let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
        assert_ne!(out.status.code(), Some(0), "{text}");
        assert!(text.contains(code), "{code}: {text}");
        assert!(text.contains(words), "{code}: {text}");
        assert!(!text.contains("KA_BROWSER_CONNECTION_FAILED"), "{text}");
        assert!(!text.contains("SMALLER"), "{text}");
        assert!(took < NAMED_WITHIN, "{code}: took {took:?}");
        assert_eq!(chat.received().len(), 1, "{text}");
        let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
        assert_eq!(out.status.code(), Some(0), "{code}: {text}");
        assert!(text.contains("finished after the trouble"), "{text}");
    }
}

/// An error in the reply's place with a Retry button, in an element no selector names: a
/// site error, tried again by itself after a few seconds; the model is never told its reply
/// was invalid.
#[test]
fn an_error_turn_is_retried_and_the_turn_finishes() {
    let chat = chat(
        Some(Fault::ErrorTurn),
        "Something went wrong while generating the response. If this issue persists please contact us.",
        Duration::from_millis(10),
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
    assert!(!text.contains("SMALLER"), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), 2, "{text}");
    assert_eq!(received[0], received[1], "no format correction");
}

/// The same error turn, in words no list knows, on a page whose copy selector (as one learned
/// from a reply's copy button, `… > button`) matches every button of a reply, its Retry too
/// (a sixth outside attack): the Retry is never clicked as a copy control (each click made the
/// site answer again, 64 of them), the turn is the site's error by its shape, tried again by
/// itself, and no format correction is sent.
#[test]
fn a_copy_selector_that_matches_an_error_s_retry_never_clicks_it_as_copy() {
    let chat = chat(
        Some(Fault::ErrorTurn),
        "Tessera tripped over something on our end.",
        Duration::from_millis(10),
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let mut selectors: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("selectors.json"))
            .unwrap(),
    )
    .unwrap();
    let broad = serde_json::json!(["[data-message-author-role=\"assistant\"] button"]);
    let local = &mut selectors["sites"]["local"]["selectors"];
    local["CopyButton"] = broad.clone();
    local["Completed"] = broad;
    let file = ws.path().join("broad-selectors.json");
    std::fs::write(&file, selectors.to_string()).unwrap();
    let (out, text, _) = run(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "--selectors", file.to_str().unwrap(), "the task"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
    assert!(!text.contains("SMALLER"), "{text}");
    assert!(!text.contains("format"), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), 2, "{text}");
    assert_eq!(received[0], received[1], "no format correction");
}

/// A stream that stops growing while the page still shows it streaming: KA_REPLY_STALLED
/// within its bound (not a timeout "the site changed"), with the resume command; `--resume`
/// finishes the turn.
#[test]
fn a_stalled_stream_is_named_within_its_bound_and_resume_finishes() {
    let chat = chat(
        Some(Fault::Stall),
        &done_reply("never ends"),
        Duration::from_millis(10),
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_REPLY_STALLED"), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    assert!(took < NAMED_WITHIN, "took {took:?}");
    assert!(
        pending(ws.path()).is_some_and(|m| m.contains("the task")),
        "{text}"
    );
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
}

/// A chat whose answers are `faults` (each with `words`) and then `@@done`.
fn chat_of(faults: &[Fault], words: &str) -> LocalChat {
    let mut replies: Vec<ScriptedReply> = faults
        .iter()
        .map(|&fault| ScriptedReply {
            text: words.to_string(),
            fault: Some(fault),
        })
        .collect();
    replies.push(ScriptedReply {
        text: done_reply("finished after the trouble"),
        fault: None,
    });
    LocalChat::start(Script {
        replies,
        chunk_delay: Duration::from_millis(10),
        chunk_chars: 40,
        ..Script::default()
    })
    .unwrap()
}

/// `--resume` finishes the turn: the message that was in flight goes once more, the same
/// message as before, and nothing else goes.
fn resume_finishes(chat: &LocalChat, ws: &Path, profile: &Path, sent_before: usize) {
    let (out, text, _) = run(chat, ws, profile, &["run", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
    let received = chat.received();
    assert_eq!(received.len(), sent_before + 1, "{text}");
    assert!(
        received.iter().all(|m| *m == received[0]),
        "the same message each time: {text}"
    );
}

/// The same throttle words shown again, in a new toast, for the message sent once more after
/// the wait: they are this message's trouble (a notice counts by when it appeared, not by its
/// words), waited out again, and the third send finishes.
#[test]
fn the_same_throttle_words_again_after_the_wait_are_the_new_message_s_trouble() {
    let chat = chat_of(
        &[Fault::Toast, Fault::Toast],
        "Too many requests. You're making requests too quickly. Try again in 2 seconds.",
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "the task", "--wait", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches(r#""type":"trouble""#).count(), 2, "{text}");
    assert!(took >= Duration::from_secs(4), "waited twice: {took:?}");
    let received = chat.received();
    assert_eq!(received.len(), 3, "{text}");
    assert!(received.iter().all(|m| *m == received[0]), "{text}");
}

/// A spend limit in a banner at the top of the page (HTTP 402): KA_SPEND_LIMIT at once with
/// the site's words and "waiting will not help", even with `--wait`; nothing more is sent,
/// and `--resume` (the account put in order) finishes.
#[test]
fn a_spend_limit_banner_stops_at_once_even_with_wait() {
    let words =
        "You've reached your monthly spend limit. Raise it in Settings > Billing to keep going.";
    let chat = chat_of(&[Fault::Banner], words);
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "the task", "--wait"],
    );
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_SPEND_LIMIT"), "{text}");
    assert!(text.contains(words), "the site's words are shown: {text}");
    assert!(text.contains("Waiting will not help"), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    assert!(took < NAMED_WITHIN, "took {took:?}");
    assert_eq!(chat.received().len(), 1, "{text}");
    assert!(
        pending(ws.path()).is_some_and(|m| m.contains("the task")),
        "{text}"
    );
    resume_finishes(&chat, ws.path(), profile.path(), 1);
}

/// A 5xx error in the reply's place that stays: tried again after 5 s and 20 s, then
/// KA_SITE_ERROR with the site's words and the resume command (never a format correction);
/// `--resume` finishes once the site works.
#[test]
fn a_site_error_that_stays_is_tried_twice_then_stops_resumable() {
    let words = "Something went wrong while generating the response. If this issue persists please contact us.";
    let chat = chat_of(
        &[Fault::ErrorTurn, Fault::ErrorTurn, Fault::ErrorTurn],
        words,
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_SITE_ERROR"), "{text}");
    assert!(text.contains(words), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    assert!(
        !text.contains("SMALLER") && !text.contains("KA_PARSE"),
        "{text}"
    );
    assert!(
        took >= Duration::from_secs(25) && took < Duration::from_secs(55),
        "5 s and 20 s waited, then stopped: {took:?}"
    );
    let received = chat.received();
    assert_eq!(received.len(), 3, "{text}");
    assert!(received.iter().all(|m| *m == received[0]), "{text}");
    assert!(
        pending(ws.path()).is_some_and(|m| m.contains("the task")),
        "{text}"
    );
    resume_finishes(&chat, ws.path(), profile.path(), 3);
}

/// The session expires mid-turn and the page goes to the site's login address: KA_LOGIN_REQUIRED
/// at once with the page's words (headless: nobody can log in in the window), the login
/// address never saved as the chat's; once logged in, `--resume` goes on in the same
/// conversation.
#[test]
fn a_login_redirect_mid_turn_is_a_wall_and_resume_goes_on_in_the_same_chat() {
    let chat = chat_of(&[Fault::LoginRedirect], "Unauthorized");
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_LOGIN_REQUIRED"), "{text}");
    assert!(text.contains("Log in to continue"), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    assert!(took < NAMED_WITHIN, "took {took:?}");
    assert_eq!(chat.received().len(), 1, "{text}");
    let session = record::load_session(&Workspace::open(ws.path()).unwrap()).unwrap();
    let url = session.chat_url.unwrap_or_default();
    assert!(
        url.contains("/c/") && !url.contains("login"),
        "the chat's address, not the wall's: {url}"
    );
    chat.log_in();
    resume_finishes(&chat, ws.path(), profile.path(), 1);
    assert_eq!(chat.conversations().len(), 1, "the same conversation");
}

/// A bot check mid-turn (the page reloads as a challenge): KA_BOT_CHECK at once with its
/// words; once passed, `--resume` goes on in the same conversation.
#[test]
fn a_bot_check_mid_turn_is_a_wall_and_resume_goes_on_in_the_same_chat() {
    let chat = chat_of(&[Fault::BotCheck], "Forbidden");
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, took) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_BOT_CHECK"), "{text}");
    assert!(text.contains("Verify you are human"), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    assert!(took < NAMED_WITHIN, "took {took:?}");
    assert_eq!(chat.received().len(), 1, "{text}");
    chat.log_in();
    resume_finishes(&chat, ws.path(), profile.path(), 1);
    assert_eq!(chat.conversations().len(), 1, "the same conversation");
}

/// The DevTools HTTP endpoint of the test binary's shared browser: the answer to GET `path`.
fn devtools(path: &str) -> String {
    use std::io::{Read, Write};
    let url = crate::common::shared_browser::cdp_url();
    let host = url
        .trim_start_matches("http://")
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let mut stream = std::net::TcpStream::connect(&host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The person closes the chat's tab while the reply streams: keyless says so in words and
/// names `--resume`, at once; `--resume` opens the chat again, reads the reply the site kept
/// and finishes, the message never sent twice.
#[test]
fn a_tab_closed_mid_reply_is_said_in_words_and_resume_reads_the_kept_reply() {
    let chat = LocalChat::start(Script {
        replies: vec![ScriptedReply {
            text: done_reply("finished after the trouble"),
            fault: None,
        }],
        // About four seconds of stream: the tab closes while it runs.
        chunk_delay: Duration::from_millis(100),
        chunk_chars: 2,
        ..Script::default()
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let mut cmd = keyless_on(&chat, ws.path(), profile.path(), &["run", "the task"]);
    cmd.args(["--mode", "auto"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while chat.received_count() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    // The tab on this chat's page, by its address (each test's chat has its own port).
    let list: serde_json::Value = {
        let raw = devtools("/json/list");
        let body = raw.split("\r\n\r\n").nth(1).unwrap_or("[]").to_string();
        serde_json::from_str(&body).unwrap()
    };
    let origin = chat.url();
    let tab = list
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["url"].as_str().is_some_and(|u| u.starts_with(&origin)))
        .unwrap_or_else(|| panic!("no tab on {origin}: {list}"));
    let closed_at = Instant::now();
    devtools(&format!("/json/close/{}", tab["id"].as_str().unwrap()));
    let out = child.wait_with_output().unwrap();
    let took = closed_at.elapsed();
    let text = format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("tab was closed"), "{text}");
    assert!(text.contains("keyless run --resume"), "{text}");
    assert!(!text.contains("receiver is gone"), "{text}");
    assert!(took < Duration::from_secs(5), "said at once: {took:?}");
    assert!(
        pending(ws.path()).is_some_and(|m| m.contains("the task")),
        "{text}"
    );
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("finished after the trouble"), "{text}");
    assert_eq!(chat.received().len(), 1, "never sent twice: {text}");
}

/// The network drops mid-stream and the site stays unreachable for a while after (every
/// connection dropped unanswered, so the chat cannot be opened again to ask whether it kept the
/// reply): keyless either waits and reads the kept reply, or stops with the network named and
/// `keyless run --resume`, sending nothing it could not check; never a blind send, never "the
/// site changed". A resume after the outage reads the kept reply; the model gets the message
/// once. Before (a fifth outside attack), keyless sent the results into a page it could not
/// load and stopped with KA_SEND_NOT_CONFIRMED, asking for a report as if the site had changed.
#[test]
fn an_outage_mid_stream_is_waited_out_or_stopped_resumable_never_sent_blind() {
    let chat = chat_of(&[Fault::Outage], &done_reply("kept by the site"));
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    for wrong in [
        "KA_SEND_NOT_CONFIRMED",
        "site changed",
        "sketch of the page",
    ] {
        assert!(!text.contains(wrong), "{wrong}: {text}");
    }
    assert!(
        text.contains("KA_NETWORK_OFFLINE") || text.contains("network"),
        "the network named: {text}"
    );
    assert_eq!(chat.received().len(), 1, "nothing sent blind: {text}");
    if out.status.code() != Some(0) {
        assert!(text.contains("keyless run --resume"), "{text}");
        std::thread::sleep(keyless::chat::local::OUTAGE);
        let (out, again, _) = run(&chat, ws.path(), profile.path(), &["run", "--resume"]);
        assert_eq!(out.status.code(), Some(0), "{text}\n--- resumed:\n{again}");
        assert!(again.contains("kept by the site"), "{again}");
    } else {
        assert!(text.contains("kept by the site"), "{text}");
    }
    assert_eq!(
        chat.received().len(),
        1,
        "the model received the message once"
    );
}

/// The network drops mid-stream (half the reply came, then the connection broke and the page
/// says "Network error"), while the site kept the whole reply: keyless waits for the network,
/// opens the chat again, finds the message answered and reads the reply; the model received
/// the message once.
#[test]
fn offline_mid_stream_never_sends_the_message_twice() {
    let chat = chat_of(&[Fault::Offline], &done_reply("kept by the site"));
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    config(ws.path());
    let (out, text, _) = run(&chat, ws.path(), profile.path(), &["run", "the task"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("kept by the site"), "{text}");
    assert!(
        text.contains("KA_NETWORK_OFFLINE") || text.contains("offline"),
        "{text}"
    );
    assert_eq!(
        chat.received().len(),
        1,
        "the model received the message once: {text}"
    );
}
