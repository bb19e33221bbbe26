//! The chat's own controls (issue 33) on local pages shaped like the sites' pickers: a model and
//! an effort chosen and read back before anything is sent, three ways (selectors right, another
//! site's, none); a locked model, an unknown or ambiguous name refused before sending; a reply
//! from another model caught, and a model swapped after a usage cap caught before the next
//! message; plain chat made sure of; the temporary chat; a conversation the person had, gone on
//! in without its earlier replies read as replies.

use std::path::{Path, PathBuf};
use std::process::Output;

use keyless::catalog::Code;
use keyless::chat::cdp::CdpDriver;
use keyless::chat::local::{LocalChat, PageFaults, Script};
use keyless::chat::models::Wanted;
use keyless::chat::{ChatDriver, Reply};

use crate::common::local_keyless::{attached, keyless_at, keyless_on};

const DONE: &str = "```\n@@done\n<<<MSG\nDone.\nMSG>>>\n@@end\n@@eof\n```";
const NEXT: &str = "```\n@@next\n@@end\n@@eof\n```";

/// Which selectors the driver gets.
#[derive(Clone, Copy, Debug)]
enum Way {
    /// The built-in `local` entry, written for these pages.
    Right,
    /// Another site's selectors (stale for this page).
    Stale(&'static str),
    /// None: every part found by its shape.
    None,
}

const WAYS: [Way; 3] = [Way::Right, Way::Stale("chatgpt"), Way::None];

fn page(modes: &[&str]) -> PageFaults {
    PageFaults {
        modes: modes.iter().map(|m| m.to_string()).collect(),
        ..PageFaults::default()
    }
}

fn wanted(model: Option<&str>, effort: Option<&str>) -> Wanted {
    Wanted {
        model: model.map(str::to_string),
        effort: effort.map(str::to_string),
        ..Wanted::default()
    }
}

fn start(
    chat: &LocalChat,
    way: Way,
    wanted: Wanted,
    profile: PathBuf,
) -> Result<CdpDriver, keyless::catalog::Failure> {
    let mut options = crate::common::shared_browser::local_page(chat.url(), profile);
    let file = keyless::chat::selectors::load(None).unwrap();
    match way {
        Way::Right => {}
        Way::Stale(site) => {
            let (_, other) = file.site(Some(site), None).unwrap();
            options.site.selectors = other.selectors;
            options.site.texts = other.texts;
            options.site.insert = other.insert;
        }
        Way::None => options.site = file.unknown_site(&chat.url()),
    }
    options.wanted = wanted;
    CdpDriver::start(options)
}

fn exchange(d: &mut CdpDriver, message: &str) -> Result<Reply, keyless::catalog::Failure> {
    d.send(message)?;
    d.wait_reply(&mut |_| {})
}

#[test]
fn a_model_and_effort_are_chosen_and_read_back_three_ways_before_anything_is_sent() {
    for way in WAYS {
        let chat = LocalChat::start(Script {
            page: page(&["picker-menu"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut d = start(
            &chat,
            way,
            wanted(Some("gpt 5.5 THINKING"), Some("heavy")),
            profile.path().into(),
        )
        .unwrap_or_else(|f| panic!("{way:?}: {f:?}"));
        assert_eq!(chat.received_count(), 0, "{way:?}");
        assert_eq!(
            d.confirmed().model.as_deref(),
            Some("GPT-5.5 Thinking"),
            "{way:?}"
        );
        assert_eq!(d.confirmed().effort.as_deref(), Some("Heavy"), "{way:?}");
        let reply = exchange(&mut d, "Do the task.").unwrap();
        assert_eq!(reply.text, DONE);
        assert_eq!(reply.model.as_deref(), Some("GPT-5.5 Thinking"), "{way:?}");
        assert_eq!(reply.effort.as_deref(), Some("Heavy"), "{way:?}");
        let with = chat.sent_with();
        assert_eq!(with[0].model, "GPT-5.5 Thinking", "{way:?}");
        assert_eq!(with[0].effort, "Heavy", "{way:?}");
        d.close();
    }
}

#[test]
fn a_listbox_picker_is_chosen_three_ways_and_an_effort_it_lacks_is_refused() {
    for way in WAYS {
        let chat = LocalChat::start(Script {
            page: page(&["picker-listbox"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut d = start(
            &chat,
            way,
            wanted(Some("opus"), None),
            profile.path().into(),
        )
        .unwrap_or_else(|f| panic!("{way:?}: {f:?}"));
        assert_eq!(
            d.confirmed().model.as_deref(),
            Some("Claude Opus 4.6"),
            "{way:?}"
        );
        let reply = exchange(&mut d, "Do the task.").unwrap();
        assert_eq!(reply.model.as_deref(), Some("Claude Opus 4.6"), "{way:?}");
        assert_eq!(chat.sent_with()[0].model, "Claude Opus 4.6", "{way:?}");
        d.close();
    }
    let chat = LocalChat::start(Script {
        page: page(&["picker-listbox"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let refused = start(
        &chat,
        Way::Right,
        wanted(None, Some("heavy")),
        profile.path().into(),
    )
    .err()
    .expect("an effort the page does not offer is refused");
    assert_eq!(refused.code, Code::ModelNotConfirmed);
    assert!(
        refused.reason.contains("offers no effort"),
        "{}",
        refused.reason
    );
    assert!(
        refused.reason.contains("\"Claude Haiku 4.5\""),
        "{}",
        refused.reason
    );
    assert_eq!(chat.received_count(), 0);
}

#[test]
fn a_locked_model_is_refused_before_anything_is_sent_three_ways() {
    for (modes, want) in [
        (&["model-locked"][..], "pro"),
        (&["picker-listbox", "model-locked"][..], "opus"),
    ] {
        for way in WAYS {
            let chat = LocalChat::start(Script {
                page: page(modes),
                ..Script::replies([DONE])
            })
            .unwrap();
            let profile = tempfile::tempdir().unwrap();
            let refused = start(&chat, way, wanted(Some(want), None), profile.path().into())
                .err()
                .unwrap_or_else(|| panic!("{modes:?} {way:?}: a locked model was chosen"));
            assert_eq!(refused.code, Code::ModelNotConfirmed, "{modes:?} {way:?}");
            assert!(refused.reason.contains("locked"), "{}", refused.reason);
            assert!(
                refused.reason.contains("nothing was sent"),
                "{}",
                refused.reason
            );
            assert_eq!(chat.received_count(), 0, "{modes:?} {way:?}");
        }
    }
}

/// The labels of `rows`.
fn labels(rows: Vec<&keyless::chat::models::Row>) -> Vec<String> {
    rows.into_iter().map(|r| r.label.clone()).collect()
}

/// Opens a driver on a new page in `modes` with `want`; the chat and the driver.
fn open_on(modes: &[&str], way: Way, want: Wanted) -> (LocalChat, CdpDriver, tempfile::TempDir) {
    let chat = LocalChat::start(Script {
        page: page(modes),
        ..Script::replies([DONE])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let d = start(&chat, way, want, profile.path().into())
        .unwrap_or_else(|f| panic!("{modes:?} {way:?}: {f:?}"));
    (chat, d, profile)
}

/// The effort behind a row that opens its submenu on the pointer only, an older model behind
/// one that opens on ArrowRight only, each drawn apart from the menu: both are found, the
/// effort as a choice of its own (one of its levels checked, not the model the picker shows),
/// the older model among the models; each chosen and read back, in English and in German.
#[test]
fn submenus_opened_by_the_pointer_or_the_keys_are_chosen_three_ways() {
    let runs = WAYS
        .iter()
        .map(|&w| (&["effort-submenu"][..], w))
        .chain([(&["effort-submenu", "translated"][..], Way::None)]);
    for (modes, way) in runs {
        let (chat, mut d, _profile) = open_on(modes, way, wanted(Some("thinking"), Some("heavy")));
        assert_eq!(chat.received_count(), 0);
        assert_eq!(d.confirmed().model.as_deref(), Some("GPT-5.5 Thinking"));
        assert_eq!(d.confirmed().effort.as_deref(), Some("Heavy"), "{way:?}");
        let offered = d.models_offered().unwrap().expect("a picker");
        assert_eq!(
            labels(offered.models()),
            [
                "Auto",
                "GPT-5.5 Instant",
                "GPT-5.5 Thinking",
                "GPT-5.5 Pro",
                "GPT-4o"
            ],
            "{modes:?} {way:?}: {offered:?}"
        );
        assert_eq!(
            labels(offered.efforts()),
            ["Light", "Standard", "Extended", "Heavy"],
            "{modes:?} {way:?}"
        );
        exchange(&mut d, "Do the task.").unwrap();
        assert_eq!(chat.sent_with()[0].model, "GPT-5.5 Thinking");
        assert_eq!(chat.sent_with()[0].effort, "Heavy", "{modes:?} {way:?}");
        d.close();
        let (chat, mut d, _profile) = open_on(modes, way, wanted(Some("gpt-4o"), None));
        assert_eq!(d.confirmed().model.as_deref(), Some("GPT-4o"), "{way:?}");
        // Read back with the older model chosen: the efforts are still a choice of their own.
        let offered = d.models_offered().unwrap().expect("a picker");
        assert_eq!(offered.checked_model(), Some("GPT-4o"), "{offered:?}");
        assert_eq!(offered.checked_effort(), Some("Standard"), "{offered:?}");
        exchange(&mut d, "Do the task.").unwrap();
        assert_eq!(chat.sent_with()[0].model, "GPT-4o", "{modes:?} {way:?}");
        d.close();
    }
}

/// Options that hold a description line first (in the title's letters, named by
/// aria-describedby) and their title beside a boxed badge are named by the title: listed,
/// chosen and read back so; a locked one is refused as locked.
#[test]
fn options_with_a_description_and_a_badge_are_named_by_their_title_three_ways() {
    for way in WAYS {
        let (chat, mut d, _profile) = open_on(&["rich-rows"], way, wanted(Some("opus"), None));
        assert_eq!(
            d.confirmed().model.as_deref(),
            Some("Claude Opus 4.6"),
            "{way:?}"
        );
        let offered = d.models_offered().unwrap().expect("a picker");
        assert_eq!(
            labels(offered.models()),
            ["Claude Sonnet 4.6", "Claude Opus 4.6", "Claude Haiku 4.5"],
            "{way:?}"
        );
        exchange(&mut d, "Do the task.").unwrap();
        assert_eq!(chat.sent_with()[0].model, "Claude Opus 4.6", "{way:?}");
        d.close();
        let chat = LocalChat::start(Script {
            page: page(&["rich-rows", "model-locked"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let refused = start(
            &chat,
            way,
            wanted(Some("opus"), None),
            profile.path().into(),
        )
        .err()
        .unwrap_or_else(|| panic!("{way:?}: a locked model was chosen"));
        assert_eq!(refused.code, Code::ModelNotConfirmed, "{way:?}");
        assert!(refused.reason.contains("is locked"), "{}", refused.reason);
        assert_eq!(chat.received_count(), 0, "{way:?}");
    }
}

/// A native select with optgroups (its values slugs, not labels) is the picker: every option
/// listed as a model, one chosen and read back; a disabled option is locked; no effort.
#[test]
fn a_native_select_with_optgroups_is_chosen_three_ways() {
    for way in WAYS {
        let (chat, mut d, _profile) =
            open_on(&["picker-select"], way, wanted(Some("gpt-4o"), None));
        assert_eq!(d.confirmed().model.as_deref(), Some("GPT-4o"), "{way:?}");
        let offered = d.models_offered().unwrap().expect("a picker");
        assert_eq!(
            labels(offered.models()),
            [
                "Auto",
                "GPT-5.5 Instant",
                "GPT-5.5 Thinking",
                "GPT-5.5 Pro",
                "GPT-4o"
            ],
            "{way:?}"
        );
        assert!(offered.efforts().is_empty(), "{offered:?}");
        exchange(&mut d, "Do the task.").unwrap();
        assert_eq!(chat.sent_with()[0].model, "GPT-4o", "{way:?}");
        d.close();
        for (modes, want, says) in [
            (
                &["picker-select", "model-locked"][..],
                wanted(Some("pro"), None),
                "is locked",
            ),
            (
                &["picker-select"][..],
                wanted(None, Some("heavy")),
                "offers no effort",
            ),
        ] {
            let chat = LocalChat::start(Script {
                page: page(modes),
                ..Script::replies([DONE])
            })
            .unwrap();
            let profile = tempfile::tempdir().unwrap();
            let refused = start(&chat, way, want, profile.path().into())
                .err()
                .unwrap_or_else(|| panic!("{modes:?} {way:?}: chosen"));
            assert_eq!(refused.code, Code::ModelNotConfirmed, "{way:?}");
            assert!(refused.reason.contains(says), "{}", refused.reason);
            assert_eq!(chat.received_count(), 0, "{way:?}");
        }
    }
}

#[test]
fn a_name_no_model_or_several_answer_to_is_refused_naming_what_the_page_offers() {
    for (want, says) in [
        ("gpt-6", "no model on the page answers to \"gpt-6\""),
        (
            "gpt-5.5",
            "could be any of \"GPT-5.5 Instant\", \"GPT-5.5 Thinking\", \"GPT-5.5 Pro\"",
        ),
    ] {
        let chat = LocalChat::start(Script {
            page: page(&["picker-menu"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let refused = start(
            &chat,
            Way::Right,
            wanted(Some(want), None),
            profile.path().into(),
        )
        .err()
        .unwrap_or_else(|| panic!("{want} was chosen"));
        assert_eq!(refused.code, Code::ModelNotConfirmed);
        assert!(refused.reason.contains(says), "{}", refused.reason);
        assert_eq!(chat.received_count(), 0);
    }
    // A page with no picker at all.
    let chat = LocalChat::start(Script::replies([DONE])).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let refused = start(
        &chat,
        Way::Right,
        wanted(Some("thinking"), None),
        profile.path().into(),
    )
    .err()
    .expect("no picker, no model");
    assert_eq!(refused.code, Code::ModelNotConfirmed);
    assert!(
        refused.reason.contains("no model picker"),
        "{}",
        refused.reason
    );
    assert_eq!(chat.received_count(), 0);
}

#[test]
fn a_reply_from_another_model_than_the_one_shown_is_caught_three_ways() {
    for way in WAYS {
        let chat = LocalChat::start(Script {
            page: page(&["model-downgrade"]),
            ..Script::replies([NEXT, DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut d = start(
            &chat,
            way,
            wanted(Some("thinking"), None),
            profile.path().into(),
        )
        .unwrap_or_else(|f| panic!("{way:?}: {f:?}"));
        let caught = exchange(&mut d, "Do the task.").unwrap_err();
        assert_eq!(caught.code, Code::ModelChanged, "{way:?}: {caught:?}");
        assert!(
            caught.reason.contains("\"gpt-5-5-instant\""),
            "{}",
            caught.reason
        );
        assert!(
            caught.reason.contains("\"GPT-5.5 Thinking\""),
            "{}",
            caught.reason
        );
        d.close();
    }
    // Allowed: the reply goes on, named for what answered it, with a warning.
    let chat = LocalChat::start(Script {
        page: page(&["model-downgrade"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut allowed = wanted(Some("thinking"), None);
    allowed.allow_fallback = true;
    let mut d = start(&chat, Way::Right, allowed, profile.path().into()).unwrap();
    let reply = exchange(&mut d, "Do the task.").unwrap();
    assert_eq!(reply.model.as_deref(), Some("gpt-5-5-instant"));
    let warnings = d.take_warnings();
    assert!(
        warnings.iter().any(|w| w.code == Code::ModelChanged),
        "{warnings:?}"
    );
    d.close();
}

#[test]
fn a_model_swapped_after_a_usage_cap_stops_before_the_next_message_three_ways() {
    for way in WAYS {
        let chat = LocalChat::start(Script {
            page: page(&["model-cap"]),
            ..Script::replies([NEXT, DONE])
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut d = start(
            &chat,
            way,
            wanted(Some("thinking"), None),
            profile.path().into(),
        )
        .unwrap_or_else(|f| panic!("{way:?}: {f:?}"));
        let first = exchange(&mut d, "Do the task.").unwrap();
        assert_eq!(first.model.as_deref(), Some("GPT-5.5 Thinking"), "{way:?}");
        let caught = d.send("The results.").unwrap_err();
        assert_eq!(caught.code, Code::ModelChanged, "{way:?}: {caught:?}");
        assert!(
            caught.reason.contains("\"GPT-5.5 Instant\""),
            "{}",
            caught.reason
        );
        assert_eq!(chat.received_count(), 1, "{way:?}: the next message went");
        d.close();
    }
}

#[test]
fn plain_chat_is_made_sure_of_where_a_metered_mode_is_checked() {
    let chat = LocalChat::start(Script {
        page: page(&["work-mode"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut d = start(&chat, Way::Right, Wanted::default(), profile.path().into()).unwrap();
    exchange(&mut d, "Do the task.").unwrap();
    assert!(!chat.sent_with()[0].work, "{:?}", chat.sent_with());
    d.close();
}

/// Runs the built keyless with `args` on `chat`'s page, in `ws`, with `profile` as its
/// config folder.
fn keyless(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> (Output, String) {
    let out = keyless_on(chat, ws, profile, args).output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
fn run_with_a_model_tells_it_in_json_the_transcript_and_status() {
    let chat = LocalChat::start(Script {
        page: page(&["picker-menu"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &[
            "run", "Do it", "--json", "--model", "thinking", "--effort", "Extended",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let chosen = events
        .iter()
        .find(|e| e["type"] == "model_chosen")
        .expect("model_chosen");
    assert_eq!(chosen["model"], "GPT-5.5 Thinking");
    assert_eq!(chosen["effort"], "Extended");
    let received = events
        .iter()
        .find(|e| e["type"] == "reply_received")
        .unwrap();
    assert_eq!(received["model"], "GPT-5.5 Thinking");
    assert_eq!(received["effort"], "Extended");
    let transcript = std::fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap();
    assert!(
        transcript.contains("\"model\":\"GPT-5.5 Thinking\""),
        "{transcript}"
    );
    let (out, text) = keyless(&chat, ws.path(), profile.path(), &["status"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("model: GPT-5.5 Thinking (Extended effort) answered the last reply"),
        "{text}"
    );
}

#[test]
fn run_with_a_locked_model_stops_before_sending_with_its_code() {
    let chat = LocalChat::start(Script {
        page: page(&["model-locked"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "Do it", "--model", "GPT-5.5 Pro"],
    );
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_MODEL_NOT_CONFIRMED"), "{text}");
    assert!(text.contains("\"GPT-5.5 Pro\" (locked)"), "{text}");
    assert_eq!(chat.received_count(), 0);
}

#[test]
fn doctor_models_lists_exactly_what_each_picker_offers() {
    let menu_models = ["Auto", "GPT-5.5 Instant", "GPT-5.5 Thinking", "GPT-5.5 Pro"];
    let efforts = ["Light", "Standard", "Extended", "Heavy"];
    let claude = ["Claude Sonnet 4.6", "Claude Opus 4.6", "Claude Haiku 4.5"];
    for (modes, models, effort, locked) in [
        (&["picker-menu"][..], &menu_models[..], &efforts[..], None),
        (&["picker-listbox"][..], &claude[..], &[][..], None),
        (
            &["model-locked"][..],
            &menu_models[..],
            &efforts[..],
            Some("GPT-5.5 Pro"),
        ),
        (
            &["picker-listbox", "model-locked", "translated"][..],
            &claude[..],
            &[][..],
            Some("Claude Opus 4.6"),
        ),
    ] {
        let chat = LocalChat::start(Script {
            page: page(modes),
            ..Script::default()
        })
        .unwrap();
        let ws = tempfile::tempdir().unwrap();
        let profile = tempfile::tempdir().unwrap();
        let (out, text) = keyless(
            &chat,
            ws.path(),
            profile.path(),
            &["doctor", "--models", "--json"],
        );
        assert_eq!(out.status.code(), Some(0), "{modes:?} {text}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let m = &report["models"];
        assert_eq!(m["found"], true, "{modes:?} {m}");
        assert_eq!(m["models"], serde_json::json!(models), "{modes:?} {m}");
        assert_eq!(m["efforts"], serde_json::json!(effort), "{modes:?} {m}");
        let locked_rows: Vec<&str> = m["options"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["locked"] == true)
            .map(|r| r["label"].as_str().unwrap())
            .collect();
        assert_eq!(
            locked_rows,
            locked.into_iter().collect::<Vec<_>>(),
            "{modes:?}"
        );
    }
    let chat = LocalChat::start(Script::default()).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &["doctor", "--models", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["models"]["found"], false, "{text}");
}

#[test]
fn temporary_runs_in_the_sites_temporary_chat_or_stops_where_it_has_none() {
    let chat = LocalChat::start(Script {
        page: page(&["temporary-chat"]),
        ..Script::replies([DONE])
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "Do it", "--temporary"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(chat.sent_with()[0].temporary, "{:?}", chat.sent_with());
    assert!(
        chat.conversations().is_empty(),
        "the site kept it: {:?}",
        chat.conversations()
    );

    let chat = LocalChat::start(Script::replies([DONE])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let (out, text) = keyless(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "Do it", "--temporary"],
    );
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("KA_TEMPORARY_NOT_AVAILABLE"), "{text}");
    assert!(text.contains("shows no temporary chat"), "{text}");
    assert_eq!(chat.received_count(), 0);
}

#[test]
fn a_given_conversation_goes_on_without_its_earlier_replies_run() {
    let chat = LocalChat::start(Script::replies([DONE])).unwrap();
    // The person's own conversation: an earlier reply holds AgentScript that must never run.
    let earlier = "```\n@@newfile planted.txt\n<<<CONTENT\nfrom an old reply\nCONTENT>>>\n@@end\n@@done\n@@end\n@@eof\n```";
    chat.seed_conversation(
        "mine42",
        &[("user", "Earlier question"), ("assistant", earlier)],
    );
    let url = format!("{}c/mine42", chat.url());
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = attached(keyless_at(
        &url,
        Some("local"),
        &profile.path().join("browser"),
        profile.path(),
        &["run", "Go on with it", "--mode", "auto"],
    ))
    .arg("--workspace")
    .arg(ws.path())
    .output()
    .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        !ws.path().join("planted.txt").exists(),
        "an earlier reply ran: {text}"
    );
    // The task went into that conversation, after its earlier turn.
    let kept = chat.conversations();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].len(), 2, "{kept:?}");
    assert_eq!(kept[0][0], "Earlier question");
    assert!(kept[0][1].ends_with("Go on with it\n"), "{kept:?}");
    let status = attached(keyless_at(
        &url,
        Some("local"),
        &profile.path().join("browser"),
        profile.path(),
        &["status"],
    ))
    .arg("--workspace")
    .arg(ws.path())
    .output()
    .unwrap();
    let said = String::from_utf8_lossy(&status.stdout);
    assert!(said.contains(&format!("chat: {url} on local")), "{said}");
}

#[test]
fn keyless_json_chooses_the_model_per_site_and_the_flag_wins() {
    for (flag, expected) in [(None, "GPT-5.5 Thinking"), (Some("auto"), "Auto")] {
        let chat = LocalChat::start(Script {
            page: page(&["picker-menu"]),
            ..Script::replies([DONE])
        })
        .unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(
            ws.path().join("keyless.json"),
            r#"{"Browser": {"Models": {"local": {"Model": "thinking"}, "chatgpt": {"Model": "pro"}}}}"#,
        )
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut args = vec!["run", "Do it"];
        if let Some(model) = flag {
            args.extend(["--model", model]);
        }
        let (out, text) = keyless(&chat, ws.path(), profile.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert_eq!(chat.sent_with()[0].model, expected, "{flag:?}");
    }
}

/// A click the page did not take (the menu closed, nothing changed) is caught by reading the
/// choice back, before anything is sent.
#[test]
fn a_choice_the_page_did_not_take_is_caught_by_reading_it_back() {
    let chat = LocalChat::start(Script {
        page: PageFaults {
            picker_ignores_clicks: true,
            ..page(&["picker-menu"])
        },
        ..Script::replies([DONE])
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let refused = start(
        &chat,
        Way::Right,
        wanted(Some("thinking"), None),
        profile.path().into(),
    )
    .err()
    .expect("a choice the page did not take was confirmed");
    assert_eq!(refused.code, Code::ModelNotConfirmed);
    assert!(
        refused.reason.contains(
            "keyless chose the model \"GPT-5.5 Thinking\", but the page shows \"GPT-5.5 Instant\""
        ),
        "{}",
        refused.reason
    );
    assert_eq!(chat.received_count(), 0);
}
