//! The chat driver against the local chat page in a real headless Chromium: sending exactly,
//! reading replies byte for byte, never taking a reply before it is finished, and every
//! chat/browser fault producing its code.

use std::path::PathBuf;
use std::time::Duration;

use keyless::catalog::{Code, Failure};
use keyless::chat::cdp::{CdpDriver, Options, attachment_name, attachment_note};
use keyless::chat::local::{Fault, LocalChat, PageFaults, Script, ScriptedReply};
use keyless::chat::{Channel, ChatDriver, Reopened};

struct Setup {
    chat: LocalChat,
    driver: CdpDriver,
    _profile: tempfile::TempDir,
}

fn options(url: String, profile: PathBuf) -> Options {
    Options {
        truncation_budget: Duration::from_secs(1),
        ..crate::common::shared_browser::local_page(url, profile)
    }
}

fn launch(
    chat: &LocalChat,
    change: impl FnOnce(&mut Options),
) -> (Result<CdpDriver, Failure>, tempfile::TempDir) {
    let profile = tempfile::tempdir().unwrap();
    let mut opts = options(chat.url(), profile.path().to_path_buf());
    change(&mut opts);
    (CdpDriver::start(opts), profile)
}

fn start_with(script: Script, change: impl FnOnce(&mut Options)) -> Setup {
    let chat = LocalChat::start(script).unwrap();
    let (driver, profile) = launch(&chat, change);
    Setup {
        chat,
        driver: driver.unwrap(),
        _profile: profile,
    }
}

/// A browser of the test's own, launched as keyless does by default (the other tests attach to
/// the shared one).
fn launching(options: &mut Options) {
    options.cdp_url = None;
}

fn start(script: Script) -> Setup {
    start_with(script, |_| {})
}

fn faulty(text: &str, fault: Fault) -> Script {
    Script {
        replies: vec![ScriptedReply {
            text: text.to_string(),
            fault: Some(fault),
        }],
        ..Script::default()
    }
}

/// A reply full of what Markdown rendering destroys.
const HOSTILE: &str = "````agentscript\n@@say\n<<<MSG\n*emphasis* and _under_ and **bold** <b>html</b> & stuff\n  two leading spaces\n\ttab\ttab  \ntrailing spaces   \n\n\ntwo blank lines above\nMSG>>>\n@@end\n@@newfile src/a.md\n<<<CONTENT:x7\n# Heading\n- item\n```rust\nfn main() {}\n```\n@@end\nCONTENT>>>\nCONTENT:x7>>>\n@@end\n@@done\n@@end\n@@eof\n````\n";

const SHORT: &str = "@@done\n@@end\n@@eof";

#[test]
fn a_hostile_reply_is_read_byte_for_byte_through_the_copy_button() {
    let mut s = start(Script::replies([HOSTILE]));
    s.driver.send("Please do the task.").unwrap();
    let reply = s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(reply.text, HOSTILE);
    assert_eq!(reply.channel, Channel::CopyButton);
    assert_eq!(s.chat.received(), vec!["Please do the task."]);
    s.driver.close();
}

/// 60,000 characters with blank lines, tabs, trailing spaces, indentation and non-ASCII.
fn big_prompt() -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < 60_000 {
        out.push_str(&format!("line {i}: \tindented  text with trailing   \n"));
        if i % 7 == 0 {
            out.push('\n');
        }
        if i % 11 == 0 {
            out.push_str("\n\n    four-space indent, ünïcödé ✓ 🚀 and *stars* _under_\n");
        }
        i += 1;
    }
    out.push_str("@@newfile x\n<<<CONTENT\nCONTENT>>>\nthe end");
    out
}

#[test]
fn a_60000_character_prompt_arrives_exactly() {
    let mut s = start(Script::replies([SHORT]));
    let prompt = big_prompt();
    let started = std::time::Instant::now();
    s.driver.send(&prompt).unwrap();
    eprintln!(
        "sent {} characters in {:?}",
        prompt.chars().count(),
        started.elapsed()
    );
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec![prompt]);
    s.driver.close();
}

/// A page whose replies have no copy control (neither selectors nor discovery find one).
fn no_copy(script: Script) -> Script {
    Script {
        page: PageFaults {
            modes: vec!["no-copy".into()],
            ..PageFaults::default()
        },
        ..script
    }
}

#[test]
fn without_a_copy_button_the_code_block_is_read_exactly() {
    let inner =
        "@@say\n<<<MSG\n*kept*  and _kept_\n\n  indented\nMSG>>>\n@@end\n@@done\n@@end\n@@eof";
    let reply = format!("```agentscript\n{inner}\n```\n");
    // A stream keyless cannot read, so that the code block is the channel that reads it.
    let mut script = no_copy(Script::replies([reply]));
    script.page.modes.push("encoded-stream".into());
    let mut s = start_with(script, |o| {
        o.site.selectors.remove("CopyButton");
    });
    s.driver.send("go").unwrap();
    let got = s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(got.channel, Channel::CodeBlock);
    assert_eq!(got.text, inner);
    s.driver.close();
}

#[test]
fn without_copy_button_or_code_block_the_wire_reads_it_exactly() {
    let reply = "@@say\n<<<MSG\n  *kept*  as sent\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n";
    let mut s = start_with(no_copy(Script::replies([reply])), |o| {
        o.site.selectors.remove("CopyButton");
        o.site.selectors.remove("CodeBlock");
    });
    s.driver.send("go").unwrap();
    let got = s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(got.channel, Channel::Wire);
    assert_eq!(got.text, reply);
    s.driver.close();
}

#[test]
fn without_copy_button_code_block_or_a_readable_stream_the_dom_is_rebuilt() {
    let mut script = no_copy(Script::replies(["@@done\n@@end\n@@eof\n"]));
    script.page.modes.push("encoded-stream".into());
    let mut s = start_with(script, |o| {
        o.site.selectors.remove("CopyButton");
        o.site.selectors.remove("CodeBlock");
    });
    s.driver.send("go").unwrap();
    let got = s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(got.channel, Channel::Dom);
    assert!(got.text.contains("@@eof"), "{:?}", got.text);
    s.driver.close();
}

#[test]
fn a_reply_is_never_taken_before_it_is_finished() {
    // Slow streaming: 5 characters every 60 ms, a long and a short reply.
    for text in [HOSTILE, SHORT] {
        let script = Script {
            chunk_chars: 5,
            chunk_delay: Duration::from_millis(60),
            ..Script::replies([text])
        };
        let mut s = start(script);
        s.driver.send("go").unwrap();
        let mut seen = Vec::new();
        let reply = s.driver.wait_reply(&mut |n| seen.push(n)).unwrap();
        assert_eq!(reply.text, text);
        assert!(
            seen.len() > 1 || text == SHORT,
            "progress is reported while waiting: {seen:?}"
        );
        s.driver.close();
    }
}

#[test]
fn a_truncated_reply_is_reply_truncated() {
    let mut s = start(faulty(HOSTILE, Fault::Truncate));
    s.driver.send("go").unwrap();
    let failure = s.driver.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(failure.code, Code::ReplyTruncated, "{failure:?}");
    s.driver.close();
}

#[test]
fn no_reply_is_reply_timeout() {
    let mut s = start_with(faulty(SHORT, Fault::NoReply), |o| {
        o.reply_timeout = Duration::from_secs(3)
    });
    s.driver.send("go").unwrap();
    let failure = s.driver.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(failure.code, Code::ReplyTimeout, "{failure:?}");
    s.driver.close();
}

/// A failure a changed site explains leaves a sketch of the page for a report: its structure
/// and which selectors matched, never the conversation's text. One per kind of failure.
#[test]
fn a_reply_timeout_leaves_a_sketch_of_the_page_without_its_text() {
    let sketches = tempfile::tempdir().unwrap();
    let script = Script {
        replies: vec![
            ScriptedReply {
                text:
                    "```\n@@say\n<<<MSG\nSECRET-REPLY\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n```\n"
                        .into(),
                fault: None,
            },
            ScriptedReply {
                text: SHORT.into(),
                fault: Some(Fault::NoReply),
            },
        ],
        ..Script::default()
    };
    let folder = sketches.path().to_path_buf();
    let mut s = start_with(script, |o| {
        o.reply_timeout = Duration::from_secs(1);
        o.sketches = Some(folder);
    });
    s.driver.send("SECRET-MESSAGE one").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    s.driver.send("SECRET-MESSAGE two").unwrap();
    let failure = s.driver.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(failure.code, Code::ReplyTimeout, "{failure:?}");
    let files: Vec<_> = std::fs::read_dir(sketches.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        failure.reason.contains(&files[0].display().to_string()),
        "{failure:?}"
    );
    let sketch = std::fs::read_to_string(&files[0]).unwrap();
    for expected in [
        "because of KA_REPLY_TIMEOUT",
        "selector Composer: #prompt-textarea",
        "div#prompt-textarea",
        "[data-message-author-role=user]",
        "[aria-label=Send prompt]",
        "characters)",
    ] {
        assert!(sketch.contains(expected), "{expected} missing:\n{sketch}");
    }
    assert!(
        !sketch.contains("SECRET"),
        "the conversation leaked:\n{sketch}"
    );
    // The same kind of failure again: no second sketch.
    let again = s.driver.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(again.code, Code::ReplyTimeout);
    assert!(!again.reason.contains("sketch"), "{again:?}");
    assert_eq!(std::fs::read_dir(sketches.path()).unwrap().count(), 1);
    s.driver.close();
}

/// The browser keyless starts does not say it is "controlled by automated test software"
/// (`--enable-automation`, which chromiumoxide adds by default): Google's sign-in refuses such a
/// browser, so the user could not log in to Gemini. It keeps streaming behind other windows.
/// (Headless Chromium sets `navigator.webdriver` whatever the flags, so the flags are checked.)
#[test]
fn the_browser_does_not_announce_automation() {
    let s = start_with(Script::replies([SHORT]), launching);
    let profile = s._profile.path().to_string_lossy().into_owned();
    let browser: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&profile) && !c.contains("--type="))
        .collect();
    assert_eq!(browser.len(), 1, "{browser:?}");
    assert!(
        !browser[0].contains("--enable-automation"),
        "{}",
        browser[0]
    );
    for wanted in [
        "--disable-renderer-backgrounding",
        "--lang=en-US",
        "--no-first-run",
        "--no-default-browser-check",
    ] {
        assert!(browser[0].contains(wanted), "{wanted}: {}", browser[0]);
    }
    s.driver.close();
}

#[test]
fn the_length_limit_is_chat_exhausted() {
    let mut s = start(faulty(SHORT, Fault::Exhausted));
    s.driver.send("go").unwrap();
    let failure = s.driver.wait_reply(&mut |_| {}).unwrap_err();
    assert_eq!(failure.code, Code::ChatExhausted, "{failure:?}");
    s.driver.close();
}

#[test]
fn a_lost_send_is_retried_once_then_not_confirmed() {
    let one = Script {
        page: PageFaults {
            drop_sends: 1,
            ..PageFaults::default()
        },
        ..Script::replies([SHORT])
    };
    let mut s = start(one);
    s.driver.send("first try is lost").unwrap();
    // The page posts the message after showing it: the reply proves the request arrived.
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec!["first try is lost"]);
    s.driver.close();

    let two = Script {
        page: PageFaults {
            drop_sends: 2,
            ..PageFaults::default()
        },
        ..Script::replies([SHORT])
    };
    let mut s = start(two);
    let failure = s.driver.send("both tries are lost").unwrap_err();
    assert_eq!(failure.code, Code::SendNotConfirmed, "{failure:?}");
    assert!(s.chat.received().is_empty());
    s.driver.close();
}

/// Real sites draw the user's message in their own way: a paragraph per line, the start of a
/// long one with "Show more", a chip for a pasted file. The message is sent once whatever the
/// drawing (sending again would make the model answer twice), and a reopened chat finds it
/// answered when the drawing still shows its text.
#[test]
fn a_message_drawn_another_way_is_sent_once_and_found_again_on_reopening() {
    let message: String = (0..120)
        .map(|i| {
            format!(
                "line {i}:  text\n{}",
                if i % 9 == 0 { "\n    indented\n" } else { "" }
            )
        })
        .collect();
    for (display, warned, found_again) in [
        ("paragraphs", false, true),
        ("shortened", false, true),
        ("replaced", true, false),
    ] {
        let script = Script {
            page: PageFaults {
                user_display: Some(display.into()),
                ..PageFaults::default()
            },
            ..Script::replies([SHORT, SHORT])
        };
        let mut s = start(script);
        s.driver.send(&message).unwrap();
        s.driver.wait_reply(&mut |_| {}).unwrap();
        assert_eq!(s.chat.received(), vec![message.clone()], "{display}");
        let warnings = s.driver.take_warnings();
        assert_eq!(
            warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
            if warned {
                vec![Code::SendNotConfirmed]
            } else {
                vec![]
            },
            "{display}: {warnings:?}"
        );
        let url = s.driver.chat_url().unwrap();
        let reopened = s.driver.reopen(&url, Some(&message)).unwrap();
        let want = if found_again {
            Reopened::Answered
        } else {
            Reopened::Unsent
        };
        assert_eq!(reopened, want, "{display}");
        // The warning is given once, not with every message.
        s.driver.send("a second message").unwrap();
        s.driver.wait_reply(&mut |_| {}).unwrap();
        assert!(s.driver.take_warnings().is_empty(), "{display}");
        s.driver.close();
    }
}

/// One message and its reply on a page with `page`'s faults: the page must have received the
/// message exactly once. The setup is returned for further checks.
fn one_exchange(page: PageFaults, message: &str) -> Setup {
    let mut s = start(Script {
        page,
        ..Script::replies([SHORT])
    });
    s.driver.send(message).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec![message]);
    s
}

/// A send button that ignores scripted clicks gets a real mouse click on the retry, and the
/// message goes once.
#[test]
fn a_send_button_that_wants_a_real_click_gets_one() {
    let page = PageFaults {
        real_clicks_only: true,
        ..PageFaults::default()
    };
    one_exchange(page, "only a real click sends this")
        .driver
        .close();
}

/// A site that empties the composer at once but shows the sent turn only after the first
/// wait has taken the message: keyless waits for the turn instead of sending again.
#[test]
fn a_message_shown_late_is_not_sent_twice() {
    let page = PageFaults {
        slow_user_turn_ms: 7_000,
        ..PageFaults::default()
    };
    let s = one_exchange(page, "shown late");
    // The server sees a second send only after the page's delay; the page counts at once.
    assert_eq!(
        s.driver.evaluate_json("window.localChatSends").unwrap(),
        serde_json::json!(1),
        "the page took the message more than once"
    );
    s.driver.close();
}

/// A site that empties the composer at once but shows the sent turn later than keyless waits
/// for it (past both waits, as a page whose turns the selectors no longer find): the emptied
/// composer says the site took the message, so it counts as sent and never goes again.
#[test]
fn a_message_the_site_took_is_not_sent_twice_however_late_its_turn() {
    let page = PageFaults {
        slow_user_turn_ms: 22_000,
        ..PageFaults::default()
    };
    let s = one_exchange(page, "shown very late");
    assert_eq!(
        s.driver.evaluate_json("window.localChatSends").unwrap(),
        serde_json::json!(1),
        "the page took the message more than once"
    );
    s.driver.close();
}

#[test]
fn a_stale_composer_is_cleared_before_sending() {
    let page = PageFaults {
        stale_composer: Some("old draft\nwith two lines".into()),
        ..PageFaults::default()
    };
    one_exchange(page, "fresh message").driver.close();
}

#[test]
fn chips_that_cannot_be_removed_are_composer_not_clean() {
    let script = Script {
        page: PageFaults {
            stale_composer: Some("old draft".into()),
            ..PageFaults::default()
        },
        ..Script::replies([SHORT])
    };
    let mut s = start_with(script, |o| {
        o.site.selectors.insert(
            "AttachmentRemove".into(),
            vec!["#no-such-remove-button".into()],
        );
    });
    let failure = s.driver.send("fresh message").unwrap_err();
    assert_eq!(failure.code, Code::ComposerNotClean, "{failure:?}");
    assert!(s.chat.received().is_empty());
    s.driver.close();
}

#[test]
fn a_selector_that_matches_nothing_is_named() {
    // Nothing on the page can be typed in: discovery finds no composer either.
    let chat = LocalChat::start(Script {
        page: PageFaults {
            modes: vec!["no-composer".into()],
            ..PageFaults::default()
        },
        ..Script::default()
    })
    .unwrap();
    let (result, _profile) = launch(&chat, |o| {
        o.site
            .selectors
            .insert("Composer".into(), vec!["#gone".into(), ".also-gone".into()]);
    });
    let failure = result.err().expect("no composer on the page");
    assert_eq!(failure.code, Code::SelectorNotFound);
    assert!(
        failure.reason.contains("no Composer element"),
        "{failure:?}"
    );
    assert!(
        failure.reason.contains("#gone  |  .also-gone")
            && failure.reason.contains("nothing on the page has its shape"),
        "{failure:?}"
    );
}

#[test]
fn a_stale_composer_selector_is_healed_by_discovery_with_one_warning() {
    let mut s = start_with(Script::replies([SHORT, SHORT]), |o| {
        o.site
            .selectors
            .insert("Composer".into(), vec!["#gone".into(), ".also-gone".into()]);
    });
    s.driver.send("first").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    let warnings = s.driver.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].code, Code::SelectorNotFound);
    assert!(
        warnings[0]
            .reason
            .contains("none of selectors.json's Composer selectors")
            && warnings[0].reason.contains("div#prompt-textarea"),
        "{warnings:?}"
    );
    // A new chat (a new page) keeps what was found, and says nothing again.
    s.driver.new_chat().unwrap();
    s.driver.send("second").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert!(s.driver.take_warnings().is_empty());
    assert_eq!(s.chat.received(), vec!["first", "second"]);
    s.driver.close();
}

#[test]
fn a_browser_that_cannot_be_reached_is_connection_failed() {
    let chat = LocalChat::start(Script::default()).unwrap();
    let (result, _p) = launch(&chat, |o| {
        launching(o);
        o.executable = Some("/no/such/chromium".into())
    });
    assert_eq!(result.err().unwrap().code, Code::BrowserConnectionFailed);
    let (result, _p) = launch(&chat, |o| o.cdp_url = Some("http://127.0.0.1:9".into()));
    assert_eq!(result.err().unwrap().code, Code::BrowserConnectionFailed);
}

#[test]
fn offline_is_reported_at_once_and_the_same_message_goes_through_later() {
    let mut s = start(Script::replies([SHORT, SHORT]));
    s.driver.set_offline(true).unwrap();
    let started = std::time::Instant::now();
    let failure = match s.driver.send("hello") {
        Err(f) => f,
        Ok(()) => s.driver.wait_reply(&mut |_| {}).unwrap_err(),
    };
    assert_eq!(failure.code, Code::NetworkOffline, "{failure:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "reported at once: {:?}",
        started.elapsed()
    );
    assert!(s.chat.received().is_empty(), "nothing reached the model");
    s.driver.set_offline(false).unwrap();
    s.driver.send("hello").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec!["hello"]);
    s.driver.close();
}

#[test]
fn insertion_strategies_are_tried_in_order() {
    // An unknown strategy is skipped; the chunked one still delivers the message exactly.
    let mut s = start_with(Script::replies([SHORT]), |o| {
        o.site.insert = vec!["pasteHtml".into(), "insertText".into()];
    });
    let prompt = big_prompt();
    s.driver.send(&prompt).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec![prompt]);
    s.driver.close();
}

/// What the local page receives for a message sent as a file: the note typed in the composer,
/// then the attached file's name and text.
fn as_a_file(message: &str) -> String {
    format!(
        "{}\n\n[attachment {}]\n{message}",
        attachment_note(message),
        attachment_name(message)
    )
}

/// The page received one message: `message`, as a file.
fn assert_received_once_as_a_file(chat: &LocalChat, message: &str) {
    let received = chat.received();
    assert_eq!(received.len(), 1);
    assert!(
        received[0] == as_a_file(message),
        "the page received {} characters: {:?}…",
        received[0].len(),
        &received[0][..received[0].len().min(200)]
    );
}

#[test]
fn a_message_over_the_composer_limit_goes_as_an_attachment() {
    let mut s = start_with(Script::replies([SHORT]), |o| {
        o.site.composer_limit = Some(1_000)
    });
    let prompt = big_prompt();
    s.driver.send(&prompt).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert!(s.driver.take_warnings().is_empty());
    assert_received_once_as_a_file(&s.chat, &prompt);
    s.driver.close();
}

/// A reopened chat whose last user turn is an earlier message's attachment note has not had
/// the pending message: it must be sent, never answered by the earlier reply (which would run
/// again). The note names a file unique to its message, so the two are told apart.
#[test]
fn a_reopened_chat_tells_one_attached_message_from_another() {
    let mut s = start_with(Script::replies([SHORT, SHORT]), |o| {
        o.site.composer_limit = Some(1_000)
    });
    let sent = big_prompt();
    s.driver.send(&sent).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    // Only the last attached file is kept in the profile.
    let files = || -> Vec<String> {
        std::fs::read_dir(s._profile.path().join("keyless-attachments"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(files(), vec![attachment_name(&sent)]);
    let pending = big_prompt().replace("the end", "another ending");
    let url = s.driver.chat_url().unwrap();
    assert_eq!(
        s.driver.reopen(&url, Some(&pending)).unwrap(),
        Reopened::Unsent
    );
    assert_eq!(
        s.driver.reopen(&url, Some(&sent)).unwrap(),
        Reopened::Answered
    );
    s.driver.send(&pending).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(files(), vec![attachment_name(&pending)]);
    s.driver.close();
}

/// The same task given twice in a chat: a crash before the second is sent must not take the
/// first one's reply for it (and carry that reply out again). Each task's message names its
/// turn, so the page tells them apart.
#[test]
fn a_reopened_chat_tells_the_same_task_given_twice_apart() {
    use keyless::turn::prompt::follow_up;
    let mut s = start(Script::replies([SHORT]));
    s.driver.send(&follow_up("fix the tests", 2)).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    let url = s.driver.chat_url().unwrap();
    assert_eq!(
        s.driver
            .reopen(&url, Some(&follow_up("fix the tests", 3)))
            .unwrap(),
        Reopened::Unsent
    );
    assert_eq!(
        s.driver
            .reopen(&url, Some(&follow_up("fix the tests", 2)))
            .unwrap(),
        Reopened::Answered
    );
    s.driver.close();
}

/// The note that goes with an attached message is inserted like any text; when the first
/// insertion strategy fails on it, undoing that attempt keeps the attachment's chip, so the
/// model still gets the file.
#[test]
fn a_failed_insertion_strategy_keeps_the_attached_message() {
    let script = Script {
        page: PageFaults {
            ignore_paste: true,
            ..PageFaults::default()
        },
        ..Script::replies([SHORT])
    };
    let mut s = start_with(script, |o| {
        o.site.composer_limit = Some(1_000);
        o.site.insert = vec!["pasteHtml".into(), "insertTextWhole".into()];
    });
    let prompt = big_prompt();
    s.driver.send(&prompt).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_received_once_as_a_file(&s.chat, &prompt);
    s.driver.close();
}

#[test]
fn a_failed_upload_is_reported_and_the_message_is_pasted_instead() {
    let script = Script {
        page: PageFaults {
            upload_fails: true,
            ..PageFaults::default()
        },
        ..Script::replies([SHORT])
    };
    let mut s = start_with(script, |o| o.site.composer_limit = Some(1_000));
    let prompt = big_prompt();
    s.driver.send(&prompt).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    let warnings = s.driver.take_warnings();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].code, Code::AttachmentUploadFailed);
    assert!(
        warnings[0].reason.contains("pasted instead"),
        "{warnings:?}"
    );
    assert_eq!(
        s.chat.received(),
        vec![prompt],
        "the whole message arrived, pasted"
    );
    s.driver.close();
}

#[test]
fn a_crashed_browser_is_connection_failed_never_a_hang() {
    let mut s = start_with(Script::replies([SHORT]), launching);
    s.driver.kill_browser();
    let started = std::time::Instant::now();
    let failure = s.driver.send("anyone there?").unwrap_err();
    assert_eq!(failure.code, Code::BrowserConnectionFailed, "{failure:?}");
    // Its process is watched: the end is known at once, not after a call's 30 s limit.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "bounded: {:?}",
        started.elapsed()
    );
}

#[test]
fn an_unexpected_answer_from_the_page_is_the_internal_bug_guard() {
    let s = start(Script::default());
    // `undefined` has no JSON form: the page gives no value where keyless needs one.
    let failure = s.driver.evaluate_json("undefined").unwrap_err();
    assert_eq!(failure.code, Code::Internal, "{failure:?}");
    assert!(
        failure.reason.contains("unexpected answer from the page"),
        "{failure:?}"
    );
    s.driver.close();
}

/// What the driver told the user (its notices go here in the login test).
static NOTICES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn note(text: &str) {
    NOTICES.lock().unwrap().push(text.to_string());
}

/// What the page noted of each bot check it showed, once passed (it tells the server a moment
/// after).
fn passed_check_looks(chat: &LocalChat) -> Vec<Vec<u64>> {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while chat.check_looks().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    chat.check_looks()
}

/// keyless reached into the page only in the moment it saw the check (a few calls at once, each
/// reaching for its script two or three times; on a loaded machine two rounds of them, the
/// browser's word of the check arriving late), not again while it showed (the person takes
/// six seconds and more): the looks span well under the check's time.
fn assert_looked_only_to_see_it(looks: &[u64]) {
    assert!(looks.len() <= 30, "{} looks: {looks:?}", looks.len());
    let span = looks.iter().max().unwrap_or(&0) - looks.iter().min().unwrap_or(&0);
    assert!(
        span < 2500,
        "looked for {span} ms while the check showed: {looks:?}"
    );
}

/// A bot check mid-turn in a window the person can see: keyless looks into the page once to
/// see it, then watches only the tab's address and title (as the browser reports them) until
/// the person passed it, and goes on in the same chat.
#[test]
fn a_bot_check_mid_turn_is_watched_from_outside_the_page_until_passed() {
    let chat = LocalChat::start(Script {
        replies: vec![
            ScriptedReply {
                text: "Forbidden".to_string(),
                fault: Some(Fault::BotCheck),
            },
            ScriptedReply {
                text: SHORT.to_string(),
                fault: None,
            },
        ],
        ..Script::default()
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut opts = options(chat.url(), profile.path().to_path_buf());
    opts.login_wait = Duration::from_secs(60);
    let mut driver = CdpDriver::start(opts).unwrap();
    let reply = std::thread::scope(|scope| {
        scope.spawn(|| {
            let started = std::time::Instant::now();
            while chat.received_count() == 0 && started.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(20));
            }
            // The person takes a few seconds to pass the check.
            std::thread::sleep(Duration::from_millis(6000));
            chat.log_in();
        });
        driver.send("through the check").unwrap();
        driver.wait_reply(&mut |_| {})
    });
    let reply = reply.unwrap();
    assert_eq!(reply.text.trim_end(), SHORT);
    let looks = passed_check_looks(&chat);
    assert_eq!(looks.len(), 1, "one check, passed: {looks:?}");
    assert_looked_only_to_see_it(&looks[0]);
    driver.close();
}

/// A page that asks the user to log in, or shows a bot check, until `LocalChat::log_in`.
fn walled(challenge: bool, replies: Script) -> LocalChat {
    LocalChat::start(Script {
        page: PageFaults {
            login_wall: !challenge,
            challenge,
            ..PageFaults::default()
        },
        ..replies
    })
    .unwrap()
}

#[test]
fn a_login_wall_or_a_bot_check_is_waited_out_while_the_user_deals_with_it() {
    for (challenge, told) in [
        (
            false,
            "local asks you to log in: log in in the browser window",
        ),
        (
            true,
            "local shows a bot check: pass it in the browser window",
        ),
    ] {
        NOTICES.lock().unwrap().clear();
        let chat = walled(challenge, Script::replies([SHORT]));
        let profile = tempfile::tempdir().unwrap();
        let mut opts = options(chat.url(), profile.path().to_path_buf());
        opts.login_wait = Duration::from_secs(60);
        opts.notice = Some(note);
        let mut driver = std::thread::scope(|scope| {
            scope.spawn(|| {
                // The user reads keyless's notice, then takes a while to log in (waiting for the
                // notice, not a fixed time: a slow launch must not see the wall already gone).
                let started = std::time::Instant::now();
                while NOTICES.lock().unwrap().is_empty()
                    && started.elapsed() < Duration::from_secs(30)
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                std::thread::sleep(Duration::from_millis(if challenge { 6000 } else { 1000 }));
                chat.log_in();
            });
            CdpDriver::start(opts).unwrap()
        });
        let notices = NOTICES.lock().unwrap().clone();
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(notices[0].starts_with(told), "{notices:?}");
        if challenge {
            // keyless looked into the page to see the check, then only watched the tab from
            // outside until it changed (a real check re-arms while script runs in the page).
            let looks = passed_check_looks(&chat);
            assert_eq!(looks.len(), 1, "one check, passed: {looks:?}");
            assert_looked_only_to_see_it(&looks[0]);
        }
        driver.send("after the wall").unwrap();
        driver.wait_reply(&mut |_| {}).unwrap();
        assert_eq!(chat.received(), vec!["after the wall"]);
        driver.close();
    }
}

#[test]
fn a_wall_without_a_window_is_reported_soon() {
    for (challenge, code, why) in [
        (
            false,
            Code::LoginRequired,
            "asks you to log in where the chat should be",
        ),
        (
            true,
            Code::BotCheck,
            "shows a bot check where the chat should be",
        ),
    ] {
        let chat = walled(challenge, Script::default());
        let started = std::time::Instant::now();
        let (driver, _profile) = launch(&chat, |_| {});
        let failure = driver.err().unwrap();
        assert_eq!(failure.code, code, "{failure:?}");
        assert!(failure.reason.contains(why), "{failure:?}");
        assert!(failure.reason.contains("without --headless"), "{failure:?}");
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "not the whole page wait: {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_message_the_site_refuses_as_too_long_goes_again_as_a_file() {
    let mut s = start(Script {
        replies: vec![
            ScriptedReply {
                text: String::new(),
                fault: Some(Fault::TooLong),
            },
            ScriptedReply {
                text: SHORT.to_string(),
                fault: None,
            },
        ],
        ..Script::default()
    });
    let message = "a message the site finds too long\nwith two lines";
    s.driver.send(message).unwrap();
    let reply = s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(reply.text, SHORT);
    let received = s.chat.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert_eq!(received[0], message);
    assert_eq!(received[1], as_a_file(message));
    let warnings = s.driver.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].reason.contains("sent again as a file"),
        "{warnings:?}"
    );
    s.driver.close();
}

#[test]
fn a_message_limit_stops_with_a_clear_reason() {
    let mut s = start(faulty("", Fault::RateLimited));
    s.driver.send("one more").unwrap();
    let failure = s.driver.wait_reply(&mut |_| {}).unwrap_err();
    // The site's own words, quoted, with the command that goes on.
    assert_eq!(failure.code, Code::RateLimited, "{failure:?}");
    assert!(
        failure
            .reason
            .contains(keyless::chat::local::RATE_LIMIT_TEXT)
            && failure.reason.contains("--resume"),
        "{failure:?}"
    );
    s.driver.close();
}

/// The DevTools HTTP endpoint's answer for `path` (a minimal GET; the test has no HTTP client).
fn devtools_get(port: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    // The endpoint may keep the connection open: read what comes within the time limit.
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn attaching_to_the_users_browser_works_and_closes_only_keyless_s_tab() {
    // The user's own tab, which says how wide it is in its title, with a count of its looks.
    const USERS_TAB: &str = "data:text/html,<script>let n=0;setInterval(()=>document.title='wide '%2BinnerWidth%2B' look '%2B(%2B%2Bn),100)</script>";
    let chat = LocalChat::start(Script::replies([SHORT])).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let executable = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("chromium");
    let mut browser = std::process::Command::new(executable)
        .args([
            "--headless",
            "--no-sandbox",
            "--remote-debugging-port=0",
            "--window-size=1000,700",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(USERS_TAB)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (port, path) = crate::common::shared_browser::devtools_active_port(profile.path());

    let keyless_profile = tempfile::tempdir().unwrap();
    let mut opts = options(chat.url(), keyless_profile.path().to_path_buf());
    opts.cdp_url = Some(format!("ws://127.0.0.1:{port}{path}"));
    let mut driver = CdpDriver::start(opts).unwrap();
    assert!(devtools_get(&port, "/json/list").contains(&chat.url()));
    // No screen is emulated: keyless's page is as wide as the window, and the user's tab keeps
    // its width while keyless is attached (chromiumoxide's default would make both 800).
    assert_eq!(driver.evaluate_json("innerWidth").unwrap(), 1000);
    // Two more looks of the user's tab since keyless attached: its width as it is now.
    let looks = |targets: &str| -> Option<u64> {
        targets
            .split(" look ")
            .nth(1)?
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    let waited = std::time::Instant::now();
    let mut first = None;
    let targets = loop {
        let targets = devtools_get(&port, "/json/list");
        match (first, looks(&targets)) {
            (None, Some(n)) => first = Some(n),
            (Some(start), Some(n)) if n >= start + 2 => break targets,
            _ => {}
        }
        assert!(
            waited.elapsed() < Duration::from_secs(10),
            "the user's tab keeps looking: {targets}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        targets.contains("wide 1000 look") && !targets.contains("wide 800"),
        "{targets}"
    );
    driver.send("from an attached keyless").unwrap();
    assert_eq!(driver.wait_reply(&mut |_| {}).unwrap().text, SHORT);
    driver.close();

    // The tab closes soon after (the browser lists a closed tab a moment longer); the browser
    // stays.
    let tab_closed = || {
        let waited = std::time::Instant::now();
        while devtools_get(&port, "/json/list").contains(&chat.url())
            && waited.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    tab_closed();
    assert!(
        browser.try_wait().unwrap().is_none(),
        "the user's browser stays open"
    );
    let targets = devtools_get(&port, "/json/list");
    assert!(
        !targets.contains(&chat.url()),
        "keyless's tab is closed: {targets}"
    );
    assert_eq!(chat.received(), vec!["from an attached keyless"]);

    // A driver that stops without closing (an error on the way out) leaves no tab either.
    let keyless_profile = tempfile::tempdir().unwrap();
    let mut opts = options(chat.url(), keyless_profile.path().to_path_buf());
    opts.cdp_url = Some(format!("ws://127.0.0.1:{port}{path}"));
    let dropped = CdpDriver::start(opts).unwrap();
    assert!(devtools_get(&port, "/json/list").contains(&chat.url()));
    drop(dropped);
    tab_closed();
    let targets = devtools_get(&port, "/json/list");
    assert!(
        !targets.contains(&chat.url()),
        "a dropped driver's tab is closed: {targets}"
    );
    browser.kill().unwrap();
    browser.wait().unwrap();
}

/// A long paste the site turns into a "Pasted Text" card (claude.ai's markup, which the chip
/// selectors do not know): keyless sees the card, removes it, and pastes the message in pieces
/// under the site's limit; the message goes once, as text.
#[test]
fn a_paste_turned_into_a_card_is_noticed_removed_and_pasted_in_pieces() {
    let message = big_prompt()[..32_000].to_string();
    let mut s = start_with(
        Script {
            page: PageFaults {
                modes: vec!["paste-to-file".into()],
                ..PageFaults::default()
            },
            ..Script::replies([SHORT])
        },
        |o| o.site.insert = vec!["pasteHtml".into(), "insertText".into()],
    );
    s.driver.send(&message).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec![message]);
    assert_eq!(s.driver.inserted_with(), Some("pasteHtml"));
    s.driver.close();
}

/// A page that draws the user's message as Markdown (its tabs and blank lines drawn otherwise)
/// and sends it exactly: the request that carried it is what the model gets, so no alteration
/// is said and the next message goes plain, not fenced (an outside attack's Vaadin and
/// Chainlit pages: every later message fenced for nothing).
#[test]
fn a_message_drawn_altered_but_carried_exactly_is_exact() {
    let mut s = start(Script {
        page: PageFaults {
            user_display: Some("markdown".into()),
            ..PageFaults::default()
        },
        ..Script::replies([SHORT, SHORT])
    });
    let first = "first line\n\tindented with a tab\n\n  two spaces\nafter a blank line\n";
    s.driver.send(first).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    let warnings = s.driver.take_warnings();
    assert!(warnings.is_empty(), "{warnings:?}");
    s.driver.send("the second\n\tmessage").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(
        s.chat.received(),
        vec![first.to_string(), "the second\n\tmessage".to_string()]
    );
    s.driver.close();
}

/// A rich composer that serialises to Markdown (TipTap with a Markdown serialiser) changes the
/// message on its way: tabs become spaces, blank lines lines of two spaces. keyless notices on
/// the first send, says so once, and sends the next messages inside a fence, which such a
/// composer keeps verbatim: the model then receives them exactly, and keyless sees so.
#[test]
fn a_message_the_page_alters_is_caught_and_the_next_arrives_exact_inside_a_fence() {
    for display in [None, Some("markdown")] {
        let script = Script {
            page: PageFaults {
                modes: vec!["markdown-composer".into()],
                user_display: display.map(str::to_string),
                ..PageFaults::default()
            },
            ..Script::replies([SHORT, SHORT, SHORT])
        };
        let mut s = start(script);
        let first = "first line\n\tindented with a tab\n\nafter a blank line\n";
        let results =
            "[KEYLESSAGENT RESULTS] turn=1 batch=1\nfile:\n\tkeep\tthe\ttabs\n\n  two spaces\n";
        s.driver.send(first).unwrap();
        s.driver.wait_reply(&mut |_| {}).unwrap();
        let warnings = s.driver.take_warnings();
        assert_eq!(
            warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
            [Code::MessageAltered],
            "{display:?}: {warnings:?}"
        );
        // Said as the request carried it where it is heard (what the model got), else as the
        // turn draws it.
        assert!(
            warnings[0].reason.contains("request that carried it")
                || warnings[0].reason.contains("tabs"),
            "{warnings:?}"
        );
        // The page changed the first on its way, as the model saw it.
        assert_eq!(
            s.chat.received()[0],
            "first line\n    indented with a tab\n  \nafter a blank line\n  "
        );
        s.driver.send(results).unwrap();
        s.driver.wait_reply(&mut |_| {}).unwrap();
        let received = s.chat.received();
        assert_eq!(received[1], format!("~~~~\n{}\n~~~~", results.trim_end()));
        let later = s.driver.take_warnings();
        assert!(
            later.is_empty(),
            "proved exact, nothing to say: {display:?} {later:?}"
        );
        // A resumed turn still finds a fenced message by its text.
        let url = s.driver.chat_url().unwrap();
        assert_eq!(
            s.driver.reopen(&url, Some(results)).unwrap(),
            Reopened::Answered,
            "{display:?}"
        );
    }
}

/// A composer whose Enter sends and that takes a line break only from Shift+Enter or a pasted
/// `<br>` (line breaks in typed or pasted text are dropped): every other strategy leaves the
/// lines run together, and is undone; a paste with `<br>` and typing each line with Shift+Enter
/// between both put it in exactly, and nothing goes before the message is whole.
#[test]
fn a_composer_that_breaks_lines_only_on_shift_enter_gets_the_message_exactly() {
    let message = "first line\n\n  indented\tand a tab\nlast";
    for (insert, used) in [
        (vec![], None),
        (vec!["pasteBr"], Some("pasteBr")),
        (vec!["shiftEnter"], Some("shiftEnter")),
    ] {
        let mut s = start_with(
            Script {
                page: PageFaults {
                    modes: vec!["shift-enter-only".into()],
                    ..PageFaults::default()
                },
                ..Script::replies([SHORT])
            },
            |o| o.site.insert = insert.iter().map(|s| s.to_string()).collect(),
        );
        s.driver.send(message).unwrap();
        s.driver.wait_reply(&mut |_| {}).unwrap();
        assert_eq!(s.chat.received(), vec![message.to_string()], "{insert:?}");
        if let Some(used) = used {
            assert_eq!(s.driver.inserted_with(), Some(used));
        } else {
            let chosen = s.driver.inserted_with().unwrap().to_string();
            assert!(
                ["pasteBr", "shiftEnter"].contains(&chosen.as_str()),
                "{chosen}"
            );
        }
        s.driver.close();
    }
}

/// A page that draws the user's message as Markdown with no white space between its blocks
/// (an outside attack's Vaadin page): the words at a heading's end and the next paragraph's
/// start run together in the turn's text, and its HTML lines drop, yet the turn is the
/// message's and its reply is found (before: never found, the reply waited for until the
/// timeout with "0 characters").
#[test]
fn a_user_turn_drawn_as_tight_markdown_is_found_and_its_reply_read() {
    // As keyless sees a page no selectors file knows: the turns found by their shape.
    let mut s = start_with(
        Script {
            page: PageFaults {
                user_display: Some("markdown".into()),
                modes: vec!["tight-markdown".into()],
                ..PageFaults::default()
            },
            ..Script::replies([SHORT])
        },
        |o| {
            let file = keyless::chat::selectors::load(None).unwrap();
            o.site = file.unknown_site(&o.url);
        },
    );
    let message = "Create the notes as I describe.\n# one\ntwo words\n# three\nfour words\n# five\nsix words\n# seven\neight\nend.";
    s.driver.send(message).unwrap();
    let reply = s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(reply.text, SHORT);
    assert_eq!(s.chat.received(), vec![message.to_string()]);
    s.driver.close();
}

/// A composer where Enter and Shift+Enter both send and no line break goes in any other way (an
/// outside attack's page): a message of several lines cannot go whole, and nothing of it goes
/// (before, typing it with Shift+Enter between lines sent each line as a message, 42 of them);
/// a message of one line goes as usual.
#[test]
fn a_composer_where_shift_enter_sends_too_gets_no_line_of_a_longer_message() {
    let mut s = start(Script {
        page: PageFaults {
            modes: vec!["any-enter-sends".into()],
            ..PageFaults::default()
        },
        ..Script::replies([SHORT])
    });
    let failure = s
        .driver
        .send("first line\nsecond line\nthird line\nfourth line")
        .unwrap_err();
    assert_eq!(failure.code, Code::SendNotConfirmed, "{failure}");
    assert!(failure.reason.contains("nothing was sent"), "{failure}");
    // The server got nothing, and the page sent nothing it could have kept to itself.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(s.chat.received(), Vec::<String>::new());
    s.driver.send("one line only").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received(), vec!["one line only".to_string()]);
    s.driver.close();
}

/// A page that draws the message as sent but turns its blank lines into two spaces on the way
/// to its server (as a self-hosted front-end did): the rendering cannot show it, the request
/// that carried the message does. keyless says so once and fences what follows.
#[test]
fn a_message_altered_only_on_its_way_to_the_server_is_caught_from_the_wire() {
    for over in [None, Some("websocket")] {
        let modes = ["blank-lines-altered"]
            .into_iter()
            .chain(over)
            .map(str::to_string);
        altered_on_its_way(modes.collect());
    }
}

/// A message altered on its way (`blank-lines-altered`) on a page in `modes`, caught.
fn altered_on_its_way(modes: Vec<String>) {
    let mut s = start(Script {
        page: PageFaults {
            modes,
            ..PageFaults::default()
        },
        ..Script::replies([SHORT, SHORT])
    });
    let first = "first paragraph\n\nsecond paragraph\n";
    s.driver.send(first).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(
        s.chat.received()[0],
        "first paragraph\n  \nsecond paragraph\n  "
    );
    let warnings = s.driver.take_warnings();
    assert_eq!(
        warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
        [Code::MessageAltered],
        "{warnings:?}"
    );
    assert!(warnings[0].reason.contains("server"), "{warnings:?}");
    s.driver.send("one line only").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.chat.received()[1], "~~~~\none line only\n~~~~");
    s.driver.close();
}

/// A chat keyless has no address for is found by what it holds: here through the site's
/// history list (the tab has moved on to a new chat); a message no chat holds finds nothing.
#[test]
fn a_chat_is_found_again_by_its_message_through_the_history_list() {
    let mut s = start(Script::replies([SHORT, SHORT]));
    let message = "Find me again: the one message of this chat, with its own words";
    s.driver.send(message).unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    let url = s.driver.chat_url().unwrap();
    assert!(url.contains("/c/"), "{url}");
    s.driver.new_chat().unwrap();
    s.driver.send("a second chat's message").unwrap();
    s.driver.wait_reply(&mut |_| {}).unwrap();
    assert_eq!(s.driver.find_chat(message).unwrap(), Some(url));
    assert_eq!(
        s.driver.find_chat("a message nobody sent here").unwrap(),
        None
    );
}
