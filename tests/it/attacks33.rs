//! Issue 33's claims about the chat's own controls, attacked by a reviewer who had not read the
//! fix: a chat site kept outside keyless's own code (`tests/attacks33/site.py`, "Pickers": a
//! textarea, turns with no role, a copy button per reply, a scripted model) whose model picker is
//! one of several shapes unlike keyless's local page: a ChatGPT-like pill opening a menu of
//! `menuitemradio` rows (effort inline, or behind a submenu row), a Claude-like dropdown whose
//! rows hold a description line, a badge and, when locked, an inline "Upgrade" button, a
//! Gemini-like combobox opening a listbox, a native `<select>`, German labels, no picker at all;
//! a temporary-chat toggle (that turns on, that refuses, or that gives way to a banner once the
//! chat has begun); ChatGPT-like Chat/Work radios left on Work; and a model that quietly answers in
//! the chosen one's place after the first message, said only on the reply (an attribute or a
//! byline) or by the picker's label swapping. The site records what model, effort and temporary
//! state every message was sent with, and which model answered it: the tests' proof that nothing
//! went before the choice was confirmed.
//!
//! keyless runs headless in a tab of the test binary's shared browser, with the chat's parts in
//! `tests/attacks33/selectors.json` (no picker keys unless a test adds them) or with `--url`
//! alone. Each test asserts what the issue asks. What keyless got wrong when this was written
//! is fixed and tested here, none skipped: loose names choosing another model ("gpt-5" → "GPT-5
//! mini", "GPT-5.5 Thinking") and so ChatGPT's fallback GPT-5 → GPT-5 mini going unseen on the
//! reply and in the picker; an effort behind a submenu row; rows and options holding a
//! description line and a badge (Claude's, Gemini's), now found by shape and named by their
//! title, so a locked one is refused as locked; a native `<select>`; and no coded warning under
//! `--allow-fallback` when the fallback answered the last reply.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::local_keyless::{attached, keyless_at};
use crate::common::python_site::PythonSite;

/// The reply timeout keyless gets: short, so a reply keyless waits for in vain costs 20 s.
const REPLY_TIMEOUT: u64 = 20;

/// The first reply: a file, then `@@next`, so a second message is sent.
const REPLY_1: &str = "```agentscript\n@@newfile one.txt\n<<<CONTENT\none\nCONTENT>>>\n@@end\n@@next\n@@end\n@@eof\n```";

/// The second reply: another file and `@@done`. `two.txt` exists only if this reply ran.
const REPLY_2: &str = "```agentscript\n@@newfile two.txt\n<<<CONTENT\ntwo\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nok\nMSG>>>\n@@end\n@@eof\n```";

const TASK: &str = "write the two files";

/// ChatGPT-like models and efforts; "GPT-5 mini" is checked at load, as a free plan's default.
fn gpt_models(picker: &str) -> Value {
    json!({
        "picker": picker,
        "models": [
            {"label": "GPT-5", "slug": "gpt-5"},
            {"label": "GPT-5 mini", "slug": "gpt-5-mini"},
            {"label": "GPT-5 Thinking", "slug": "gpt-5-thinking"},
            {"label": "o3", "slug": "o3"}
        ],
        "current": "GPT-5 mini",
        "efforts": ["Light", "Standard", "Heavy"],
        "effort": "Standard",
        "reply_tag": "slug"
    })
}

/// Claude-like rows: a title, a description line, a badge, and Opus locked behind "Upgrade".
fn claude_rows() -> Value {
    json!({
        "picker": "rows",
        "models": [
            {"label": "Haiku 4.5", "desc": "Fastest for quick answers"},
            {"label": "Sonnet 4.5", "desc": "Smart, efficient model for everyday use"},
            {"label": "Opus 4.5", "desc": "Most capable for complex work", "badge": "Max", "locked": true}
        ],
        "current": "Haiku 4.5",
        "reply_tag": "none"
    })
}

/// Gemini-like modes in a combobox's listbox, each with a description line.
fn gemini_listbox() -> Value {
    json!({
        "picker": "listbox",
        "models": [
            {"label": "Fast", "desc": "Answers quickly"},
            {"label": "Thinking", "desc": "Solves complex problems"},
            {"label": "Pro", "desc": "Thinks longer for advanced math and code"}
        ],
        "current": "Fast",
        "reply_tag": "none"
    })
}

/// A picker whose every word is German.
fn german_menu() -> Value {
    json!({
        "picker": "menu",
        "picker_label": "Modus wählen",
        "models_label": "Modelle",
        "effort_label": "Denkaufwand",
        "models": [{"label": "Schnell", "slug": "schnell"}, {"label": "Gründlich", "slug": "gruendlich"}],
        "current": "Schnell",
        "efforts": ["Niedrig", "Mittel", "Hoch"],
        "effort": "Mittel",
        "reply_tag": "none"
    })
}

/// `base` with `extra`'s keys set.
fn with(mut base: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

/// Pickers serving on this machine with its config and the two scripted replies.
struct Site(PythonSite);

impl std::ops::Deref for Site {
    type Target = PythonSite;

    fn deref(&self) -> &PythonSite {
        &self.0
    }
}

impl Site {
    fn start(config: Value) -> Site {
        Site(PythonSite::start(
            "attacks33",
            &[
                (
                    "script.json",
                    serde_json::to_string(&[REPLY_1, REPLY_2]).unwrap(),
                ),
                ("config.json", config.to_string()),
            ],
        ))
    }

    fn lines(&self, name: &str) -> Vec<Value> {
        fs::read_to_string(self.dir.path().join(name))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// Every message the site received: the model, effort and temporary state the page sent it
    /// with, and the model that answered.
    fn received(&self) -> Vec<Value> {
        self.lines("received.jsonl")
    }

    /// Whether the browser ever opened the upgrade page (a locked row or its button clicked).
    fn upgrade_opened(&self) -> bool {
        self.lines("visits.jsonl")
            .iter()
            .any(|v| v["path"].as_str().unwrap().starts_with("/upgrade"))
    }
}

/// How keyless finds the chat's parts: the site's selectors (with extra keys), or `--url` alone.
enum Parts {
    Selectors(Value),
    UrlOnly,
}

/// The site's chat parts and no picker keys.
fn selectors() -> Parts {
    Parts::Selectors(json!({}))
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
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        fs::create_dir(&ws).unwrap();
        fs::write(
            ws.join("keyless.json"),
            format!("{{ \"Browser\": {{ \"ReplyTimeoutSeconds\": {REPLY_TIMEOUT} }} }}"),
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

    /// keyless `args` on the site, in a tab of the shared browser.
    fn keyless(&self, site: &Site, parts: &Parts, args: &[&str]) -> Out {
        let named = matches!(parts, Parts::Selectors(_));
        let mut cmd = attached(keyless_at(
            &site.url(),
            named.then_some("pickers"),
            &self.dir.path().join("browser"),
            self.dir.path(),
            args,
        ));
        if let Parts::Selectors(extra) = parts {
            let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks33/selectors.json");
            let mut file: Value = serde_json::from_str(&fs::read_to_string(base).unwrap()).unwrap();
            for (k, v) in extra.as_object().unwrap() {
                file["sites"]["pickers"]["selectors"][k] = v.clone();
            }
            let path = self.dir.path().join("selectors.json");
            fs::write(&path, file.to_string()).unwrap();
            cmd.arg("--selectors").arg(path);
        }
        let out = cmd
            .arg("--workspace")
            .arg(self.ws())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        Out {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
        }
    }

    /// `keyless run --mode auto --pace batch --json <args> TASK`.
    fn run(&self, site: &Site, parts: &Parts, args: &[&str]) -> Out {
        let mut all = vec!["run", "--mode", "auto", "--pace", "batch", "--json"];
        all.extend_from_slice(args);
        all.push(TASK);
        self.keyless(site, parts, &all)
    }

    /// `keyless doctor --models --json`'s `models` object.
    fn doctor_models(&self, site: &Site, parts: &Parts) -> Value {
        let out = self.keyless(site, parts, &["doctor", "--models", "--json"]);
        let report: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("doctor's JSON does not parse ({e}): {out:#?}"));
        report["models"].clone()
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

    /// The models the transcript names for each reply, in order.
    fn transcript_models(&self) -> Vec<Value> {
        fs::read_to_string(self.ws().join(".agent/transcript.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|e| e["kind"] == "reply")
            .map(|e| e["model"].clone())
            .collect()
    }

    fn has(&self, name: &str) -> bool {
        self.ws().join(name).exists()
    }
}

/// A run stopped with `code` (exit 4) before the site received anything.
fn assert_refused_before_sending(site: &Site, out: &Out, code: &str) {
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains(code), "no {code}: {out:#?}");
    assert!(
        site.received().is_empty(),
        "a message went before the choice was confirmed: {:#?}",
        site.received()
    );
}

/// A run that finished with every message sent with `model` and `effort`, each reply's model
/// in `--json` and the transcript, and `keyless status` naming it.
fn assert_finished_with(place: &Place, site: &Site, out: &Out, model: &str, effort: Option<&str>) {
    assert_eq!(out.code, Some(0), "{out:#?}");
    assert!(place.has("one.txt") && place.has("two.txt"), "{out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    for r in &received {
        assert_eq!(
            r["model"], model,
            "a message went with another model: {received:#?}"
        );
        if let Some(effort) = effort {
            assert_eq!(
                r["effort"], effort,
                "a message went with another effort: {received:#?}"
            );
        }
    }
    let chosen = out.events("model_chosen");
    assert_eq!(chosen.len(), 1, "{out:#?}");
    assert_eq!(chosen[0]["model"], model, "{out:#?}");
    if let Some(effort) = effort {
        assert_eq!(chosen[0]["effort"], effort, "{out:#?}");
    }
    let replies: Vec<Value> = out
        .events("reply_received")
        .iter()
        .map(|e| e["model"].clone())
        .collect();
    assert_eq!(replies, vec![json!(model), json!(model)], "{out:#?}");
    assert_eq!(place.transcript_models(), vec![json!(model), json!(model)]);
    let status = place.status();
    assert!(status.contains(&format!("model: {model}")), "{status}");
}

/// The ChatGPT-like menu found by its shape (`--url` alone): a model named by one word of its
/// label and an effort are chosen and read back, and every message goes with them.
#[test]
fn a_menu_found_by_its_shape_sets_model_and_effort_before_anything_is_sent() {
    let site = Site::start(gpt_models("menu"));
    let place = Place::new();
    let out = place.run(
        &site,
        &Parts::UrlOnly,
        &["--model", "thinking", "--effort", "heavy"],
    );
    assert_finished_with(&place, &site, &out, "GPT-5 Thinking", Some("Heavy"));
}

/// `gpt-5` where the page offers "GPT-5 mini" and "GPT-4o" but no GPT-5: a loose name must not
/// choose a different model.
#[test]
fn gpt_5_never_chooses_gpt_5_mini() {
    let site = Site::start(with(
        gpt_models("menu"),
        json!({"models": [{"label": "GPT-5 mini", "slug": "gpt-5-mini"}, {"label": "GPT-4o", "slug": "gpt-4o"}],
               "current": "GPT-4o", "efforts": []}),
    ));
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "gpt-5"]);
    assert_refused_before_sending(&site, &out, "KA_MODEL_NOT_CONFIRMED");
    assert!(
        out.stderr.contains("GPT-5 mini"),
        "what the page offers is not named: {out:#?}"
    );
}

/// ChatGPT's effort sits behind an "Effort" row that opens a submenu.
#[test]
fn an_effort_behind_a_submenu_is_chosen_and_read_back() {
    let site = Site::start(gpt_models("submenu"));
    let place = Place::new();
    let out = place.run(
        &site,
        &selectors(),
        &["--model", "gpt-5", "--effort", "heavy"],
    );
    assert_finished_with(&place, &site, &out, "GPT-5", Some("Heavy"));
}

/// After the first message the site quietly answers with another model, saying so only in the
/// reply's `data-message-model-slug`: the turn stops before that reply runs.
fn fallback_named_on_the_reply(to: &str, to_slug: &str) {
    let site = Site::start(with(
        gpt_models("menu"),
        json!({"downgrade": {"after": 1, "to": to, "shows": "slug"}}),
    ));
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "gpt-5"]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_MODEL_CHANGED"), "{out:#?}");
    assert!(
        out.stderr.contains(to) || out.stderr.contains(to_slug),
        "the model that answered is not named: {out:#?}"
    );
    assert!(place.has("one.txt"), "{out:#?}");
    assert!(!place.has("two.txt"), "the fallback's reply ran: {out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert_eq!(received[1]["answered_by"], to);
}

#[test]
fn a_fallback_to_another_model_named_on_the_reply_stops_the_turn() {
    fallback_named_on_the_reply("o3", "o3");
}

/// ChatGPT's own cap fallback: GPT-5 → GPT-5 mini.
#[test]
fn a_fallback_to_gpt_5_mini_named_on_the_reply_stops_the_turn() {
    fallback_named_on_the_reply("GPT-5 mini", "gpt-5-mini");
}

/// After the first reply the picker's label swaps to another model (a usage cap's quiet
/// fallback): the next message is not sent.
fn picker_swaps_after_a_cap(to: &str) {
    let site = Site::start(with(
        gpt_models("menu"),
        json!({"downgrade": {"after": 1, "to": to, "shows": "picker"}}),
    ));
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "gpt-5"]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(out.stderr.contains("KA_MODEL_CHANGED"), "{out:#?}");
    assert!(
        out.stderr.contains(to),
        "the model shown now is not named: {out:#?}"
    );
    let received = site.received();
    assert_eq!(
        received.len(),
        1,
        "a message went with the swapped model: {received:#?}"
    );
    assert!(!place.has("two.txt"));
}

#[test]
fn a_picker_that_swaps_to_another_model_stops_before_the_next_message() {
    picker_swaps_after_a_cap("o3");
}

#[test]
fn a_picker_that_swaps_to_gpt_5_mini_stops_before_the_next_message() {
    picker_swaps_after_a_cap("GPT-5 mini");
}

/// `--allow-fallback`: the turn goes on, and `--json`, the transcript and `keyless status` say
/// which model answered each reply.
#[test]
fn allow_fallback_goes_on_and_every_record_names_the_model_that_answered() {
    let site = Site::start(with(
        gpt_models("menu"),
        json!({"downgrade": {"after": 1, "to": "o3", "shows": "slug"}}),
    ));
    let place = Place::new();
    let out = place.run(
        &site,
        &selectors(),
        &["--model", "gpt-5", "--allow-fallback"],
    );
    assert_eq!(out.code, Some(0), "{out:#?}");
    assert!(place.has("two.txt"));
    let replies: Vec<Value> = out
        .events("reply_received")
        .iter()
        .map(|e| e["model"].clone())
        .collect();
    assert_eq!(replies, vec![json!("GPT-5"), json!("o3")], "{out:#?}");
    assert_eq!(place.transcript_models(), vec![json!("GPT-5"), json!("o3")]);
    let status = place.status();
    assert!(status.contains("model: o3"), "{status}");
}

/// `--allow-fallback` makes a fallback a warning, not nothing: the person is told, with its
/// code, that another model than the one chosen answered.
#[test]
fn allow_fallback_still_warns_with_the_code() {
    let site = Site::start(with(
        gpt_models("menu"),
        json!({"downgrade": {"after": 1, "to": "o3", "shows": "slug"}}),
    ));
    let place = Place::new();
    let out = place.run(
        &site,
        &selectors(),
        &["--model", "gpt-5", "--allow-fallback"],
    );
    assert_eq!(out.code, Some(0), "{out:#?}");
    assert!(
        out.stderr.contains("KA_MODEL_CHANGED"),
        "no warning: {out:#?}"
    );
    let transcript = fs::read_to_string(place.ws().join(".agent/transcript.jsonl")).unwrap();
    assert!(transcript.contains("KA_MODEL_CHANGED"), "{transcript}");
}

/// A per-reply byline ("Answered by o3"), named by a `ReplyModel` selector, catches a fallback.
#[test]
fn a_byline_named_by_the_selectors_catches_a_fallback() {
    let site = Site::start(with(
        gpt_models("menu"),
        json!({"reply_tag": "byline", "downgrade": {"after": 1, "to": "o3", "shows": "byline"}}),
    ));
    let place = Place::new();
    let parts = Parts::Selectors(json!({"ReplyModel": [".turn.theirs .byline"]}));
    let out = place.run(&site, &parts, &["--model", "gpt-5"]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(
        out.stderr.contains("KA_MODEL_CHANGED") && out.stderr.contains("o3"),
        "{out:#?}"
    );
    assert!(!place.has("two.txt"));
}

/// A choice the page shows for a moment and then takes back (the plan does not allow it): the
/// run stops with the code, at most the one message in flight when the page took it back went
/// with another model (no look before a send can see a change made after it), and nothing a
/// reply from another model said was carried out.
#[test]
fn a_choice_the_page_takes_back_never_carries_a_message() {
    let site = Site::start(with(gpt_models("menu"), json!({"revert_ms": 400})));
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "o3"]);
    assert_eq!(out.code, Some(4), "{out:#?}");
    assert!(
        out.stderr.contains("KA_MODEL_NOT_CONFIRMED") || out.stderr.contains("KA_MODEL_CHANGED"),
        "{out:#?}"
    );
    let received = site.received();
    let others: Vec<usize> = (0..received.len())
        .filter(|&i| received[i]["model"] != "o3")
        .collect();
    assert!(
        others.len() <= 1 && others.iter().all(|&i| i + 1 == received.len()),
        "messages went with a model not chosen: {received:#?}"
    );
    // Each scripted reply writes its own file: none from another model's reply.
    for &i in &others {
        let file = ["one.txt", "two.txt"][i.min(1)];
        assert!(!place.has(file), "another model's reply ran: {out:#?}");
    }
}

/// Claude-like rows (title, description, badge) found by their shape: the model is chosen by
/// its title and named by it.
#[test]
fn claude_rows_found_by_shape_choose_by_title() {
    let site = Site::start(claude_rows());
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "sonnet"]);
    assert_finished_with_model_only(&site, &out, "Sonnet 4.5");
}

/// The same rows with the picker named by a selector: read back by the title.
#[test]
fn claude_rows_by_selectors_are_read_back_by_title() {
    let site = Site::start(claude_rows());
    let place = Place::new();
    let parts = Parts::Selectors(json!({"ModelPicker": ["button.pill"]}));
    let out = place.run(&site, &parts, &["--model", "sonnet"]);
    assert_finished_with_model_only(&site, &out, "Sonnet 4.5");
}

/// Finished, every message with `model`, and `model_chosen` naming it by its title.
fn assert_finished_with_model_only(site: &Site, out: &Out, model: &str) {
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert!(!received.is_empty());
    assert!(
        received.iter().all(|r| r["model"] == model),
        "{received:#?}"
    );
    let chosen = out.events("model_chosen");
    assert_eq!(chosen.len(), 1, "{out:#?}");
    assert_eq!(chosen[0]["model"], model, "{out:#?}");
}

/// A locked model (an inline "Upgrade" in its row) is refused before anything is sent, and
/// neither the row nor its Upgrade button is clicked.
#[test]
fn a_locked_model_is_refused_before_sending_without_clicking_upgrade() {
    let site = Site::start(claude_rows());
    let place = Place::new();
    let parts = Parts::Selectors(json!({"ModelPicker": ["button.pill"]}));
    let out = place.run(&site, &parts, &["--model", "opus"]);
    assert_refused_before_sending(&site, &out, "KA_MODEL_NOT_CONFIRMED");
    assert!(
        out.stderr.contains("locked"),
        "not said to be locked: {out:#?}"
    );
    assert!(!site.upgrade_opened(), "the upgrade page was opened");
}

/// Gemini-like: a combobox opening a listbox of options with descriptions, found by its shape.
#[test]
fn a_gemini_like_listbox_is_found_and_chosen() {
    let site = Site::start(gemini_listbox());
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "thinking"]);
    assert_finished_with_model_only(&site, &out, "Thinking");
}

/// A native `<select>` named by the selectors.
#[test]
fn a_native_select_is_chosen_and_read_back() {
    let site = Site::start(with(gpt_models("select"), json!({"efforts": []})));
    let place = Place::new();
    let parts = Parts::Selectors(json!({"ModelPicker": ["select.model-select"]}));
    let out = place.run(&site, &parts, &["--model", "GPT-5 Thinking"]);
    assert_finished_with_model_only(&site, &out, "GPT-5 Thinking");
}

/// Labels in German, found by role and state: chosen, read back, every message with them.
#[test]
fn german_labels_are_chosen_by_role_and_state() {
    let site = Site::start(german_menu());
    let place = Place::new();
    let out = place.run(
        &site,
        &selectors(),
        &["--model", "gründlich", "--effort", "hoch"],
    );
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(
        received
            .iter()
            .all(|r| r["model"] == "Gründlich" && r["effort"] == "Hoch"),
        "{received:#?}"
    );
}

/// A page with no picker refuses `--model` before anything is sent.
#[test]
fn a_page_without_a_picker_refuses_a_model_before_sending() {
    let site = Site::start(json!({"picker": "none", "reply_tag": "none"}));
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "gpt-5"]);
    assert_refused_before_sending(&site, &out, "KA_MODEL_NOT_CONFIRMED");
}

/// `keyless doctor --models --json` lists exactly the models and efforts the page offers.
fn doctor_lists(config: Value, parts: Parts, models: &[&str], efforts: &[&str]) -> Value {
    let site = Site::start(config);
    let place = Place::new();
    let listed = place.doctor_models(&site, &parts);
    assert_eq!(listed["models"], json!(models), "{listed:#}");
    assert_eq!(listed["efforts"], json!(efforts), "{listed:#}");
    assert!(site.received().is_empty(), "doctor sent a message");
    listed
}

#[test]
fn doctor_lists_the_menus_models_and_efforts() {
    doctor_lists(
        gpt_models("menu"),
        Parts::UrlOnly,
        &["GPT-5", "GPT-5 mini", "GPT-5 Thinking", "o3"],
        &["Light", "Standard", "Heavy"],
    );
}

#[test]
fn doctor_lists_german_labels() {
    doctor_lists(
        german_menu(),
        selectors(),
        &["Schnell", "Gründlich"],
        &["Niedrig", "Mittel", "Hoch"],
    );
}

#[test]
fn doctor_lists_nothing_on_a_page_without_a_picker() {
    let listed = doctor_lists(json!({"picker": "none"}), selectors(), &[], &[]);
    assert_eq!(listed["found"], false);
}

#[test]
fn doctor_lists_claude_rows_by_title_with_the_locked_one_marked() {
    let listed = doctor_lists(
        claude_rows(),
        selectors(),
        &["Haiku 4.5", "Sonnet 4.5", "Opus 4.5"],
        &[],
    );
    let opus = listed["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["label"] == "Opus 4.5")
        .cloned()
        .unwrap();
    assert_eq!(opus["locked"], true, "{listed:#}");
}

#[test]
fn doctor_lists_the_listboxs_modes() {
    doctor_lists(
        gemini_listbox(),
        selectors(),
        &["Fast", "Thinking", "Pro"],
        &[],
    );
}

#[test]
fn doctor_lists_a_native_selects_options() {
    doctor_lists(
        with(gpt_models("select"), json!({"efforts": []})),
        selectors(),
        &["GPT-5", "GPT-5 mini", "GPT-5 Thinking", "o3"],
        &[],
    );
}

/// `--temporary` with the toggle named: turned on before the first message, every message in it.
#[test]
fn temporary_chat_is_on_before_the_first_message() {
    let site = Site::start(with(gpt_models("menu"), json!({"temporary": "toggle"})));
    let place = Place::new();
    let parts = Parts::Selectors(json!({"TemporaryChat": ["button.ghost"]}));
    let out = place.run(&site, &parts, &["--temporary"]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(
        received.iter().all(|r| r["temporary"] == true),
        "{received:#?}"
    );
}

/// A toggle that does not turn on (the page wants a sign-in) stops before anything is sent.
#[test]
fn a_temporary_toggle_that_stays_off_is_refused_before_sending() {
    let site = Site::start(with(gpt_models("menu"), json!({"temporary": "refuses"})));
    let place = Place::new();
    let parts = Parts::Selectors(json!({"TemporaryChat": ["button.ghost"]}));
    let out = place.run(&site, &parts, &["--temporary"]);
    assert_refused_before_sending(&site, &out, "KA_TEMPORARY_NOT_AVAILABLE");
}

/// A page without a temporary chat (or one keyless has no selector for) says so, nothing sent.
#[test]
fn temporary_on_a_page_without_one_is_refused_before_sending() {
    let site = Site::start(gpt_models("menu"));
    let place = Place::new();
    let out = place.run(&site, &Parts::UrlOnly, &["--temporary"]);
    assert_refused_before_sending(&site, &out, "KA_TEMPORARY_NOT_AVAILABLE");
}

/// `gpt-5` where the page offers "GPT-5.5 Thinking" and "GPT-4o": GPT-5.5 is another model.
#[test]
fn gpt_5_never_chooses_gpt_5_5() {
    let site = Site::start(with(
        gpt_models("menu"),
        json!({"models": [{"label": "GPT-5.5 Thinking", "slug": "gpt-5-5-thinking"}, {"label": "GPT-4o", "slug": "gpt-4o"}],
               "current": "GPT-4o", "efforts": []}),
    ));
    let place = Place::new();
    let out = place.run(&site, &selectors(), &["--model", "gpt-5"]);
    assert_refused_before_sending(&site, &out, "KA_MODEL_NOT_CONFIRMED");
}

/// A temporary chat whose toggle gives way to a banner once it has begun: the later messages
/// go on in it (the toggle's absence is not taken as the chat having left temporary mode).
#[test]
fn a_temporary_chat_whose_toggle_gives_way_to_a_banner_goes_on() {
    let site = Site::start(json!({"picker": "none", "reply_tag": "none", "temporary": "hides"}));
    let place = Place::new();
    let parts = Parts::Selectors(json!({"TemporaryChat": ["button.ghost"]}));
    let out = place.run(&site, &parts, &["--temporary"]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    let received = site.received();
    assert_eq!(received.len(), 2, "{received:#?}");
    assert!(
        received.iter().all(|r| r["temporary"] == true),
        "{received:#?}"
    );
}

/// ChatGPT-like Chat/Work radios with Work checked at load: with the `PlainChat` selector,
/// every message goes in plain chat and keyless says it switched.
#[test]
fn a_page_left_in_work_mode_is_switched_to_plain_chat_before_sending() {
    let site = Site::start(json!({"picker": "none", "reply_tag": "none", "surface": "work"}));
    let place = Place::new();
    let parts =
        Parts::Selectors(json!({"PlainChat": ["[role=radiogroup] > [role=radio]:first-child"]}));
    let out = place.run(&site, &parts, &[]);
    assert_eq!(out.code, Some(0), "{out:#?}");
    assert!(out.stderr.contains("switched"), "not said: {out:#?}");
    let received = site.received();
    assert!(!received.is_empty());
    assert!(
        received.iter().all(|r| r["surface"] == "chat"),
        "{received:#?}"
    );
}
