//! `--json` through the built binary: every line of standard output is one event that agrees
//! with the schema in `docs/json-events.md` (read from the doc's tables), nothing else is on
//! standard output, and a consumer rebuilds the turn's summary from the events alone.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use keyless::chat::local::{Fault, LocalChat, Script, ScriptedReply};
use serde_json::Value;

use crate::common::local_keyless::keyless_on;

const SCHEMA: &str = "docs/json-events.md";

/// A field's JSON type as the schema names it.
#[derive(Debug)]
struct FieldType {
    json: String,
    nullable: bool,
}

/// The schema's tables: event type → field → type.
fn schema() -> BTreeMap<String, BTreeMap<String, FieldType>> {
    let doc = std::fs::read_to_string(SCHEMA).unwrap();
    let mut events = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        if let Some(name) = line
            .strip_prefix("### `")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            current = Some(name.to_string());
            events.insert(name.to_string(), BTreeMap::new());
            continue;
        }
        let (Some(event), Some(row)) = (&current, line.strip_prefix("| `")) else {
            continue;
        };
        let cells: Vec<&str> = row.split(" | ").collect();
        let field = cells[0].trim_end_matches('`').to_string();
        let kind = cells[1].trim();
        let (json, nullable) = match kind.strip_suffix(" or null") {
            Some(json) => (json.to_string(), true),
            None => (kind.to_string(), false),
        };
        assert!(
            ["string", "integer", "boolean", "array", "object"].contains(&json.as_str()),
            "{SCHEMA}: {event}.{field} has an unknown type {kind}"
        );
        events
            .get_mut(event)
            .unwrap()
            .insert(field, FieldType { json, nullable });
    }
    assert!(events.len() > 10, "{SCHEMA} has its tables: {events:?}");
    events
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every line of `stdout` as an event that the schema describes exactly.
fn read_events(stdout: &[u8]) -> Vec<Value> {
    let schema = schema();
    let text = String::from_utf8(stdout.to_vec()).unwrap();
    assert!(!text.is_empty(), "no events");
    text.lines()
        .map(|line| {
            let event: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line}"));
            assert_eq!(event["v"], 1, "{line}");
            let kind = event["type"].as_str().unwrap_or_else(|| panic!("{line}"));
            let fields = schema
                .get(kind)
                .unwrap_or_else(|| panic!("{SCHEMA} has no event {kind}: {line}"));
            let object = event.as_object().unwrap();
            for (name, value) in object {
                if name == "v" || name == "type" {
                    continue;
                }
                let field = fields
                    .get(name)
                    .unwrap_or_else(|| panic!("{SCHEMA} has no field {kind}.{name}: {line}"));
                let found = type_of(value);
                assert!(
                    found == field.json || (found == "null" && field.nullable),
                    "{kind}.{name} is {found}, the schema says {field:?}: {line}"
                );
            }
            for name in fields.keys() {
                assert!(
                    object.contains_key(name),
                    "{kind}.{name} is missing: {line}"
                );
            }
            event
        })
        .collect()
}

/// The events of one type.
fn of<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn run_json_is_one_event_per_line_by_the_schema_and_its_summary_can_be_rebuilt() {
    let chat = LocalChat::start(Script::replies([
        "@@newfile a.txt\n<<<CONTENT\nhello\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\ncat a.txt\nCMD>>>\n@@end\n@@runcommand\n<<<CMD\ncat missing.txt\nCMD>>>\n@@end\n@@next\n@@end\n@@eof\n",
        "@@frobnicate a.txt\n@@eof\n",
        "@@editfile a.txt\n<<<FIND\nhello\nFIND>>>\n<<<REPLACE\nhello, world\nREPLACE>>>\n@@end\n@@done\n<<<MSG\nWrote a.txt.\nMSG>>>\n@@end\n@@eof\n",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "--json", "--mode", "auto", "Write a.txt"],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let events = read_events(&out.stdout);

    // The order: started first, finished last, with the process's exit status.
    assert_eq!(events[0]["type"], "started");
    assert_eq!(events[0]["command"], "run");
    assert_eq!(events[0]["task"], "Write a.txt");
    assert_eq!(events[0]["mode"], "auto");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "finished");
    assert_eq!(last["stop"], "done");
    assert_eq!(last["message"], "Wrote a.txt.", "{last}\n{stderr}");
    assert_eq!(last["exit_status"], 0);
    // What people read went to standard error.
    assert!(stderr.contains("Done. Wrote a.txt."), "{stderr}");

    // Every message the chat received was an event, as sent.
    let sent: Vec<&str> = of(&events, "message_sent")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(sent, chat.received());
    let kinds: Vec<&str> = of(&events, "message_sent")
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["task", "results", "format_correction"]);
    assert_eq!(of(&events, "reply_received").len(), 3);
    assert_eq!(of(&events, "reply_rejected").len(), 1);

    // Each command with its tier, decision and outcome.
    let commands = of(&events, "command");
    let cat = commands.iter().find(|c| c["label"] == "cat a.txt").unwrap();
    assert_eq!(cat["tier"], "ReadOnly");
    assert_eq!(cat["decision"], "auto");
    assert_eq!(cat["status"], "ok");
    let missing = commands
        .iter()
        .find(|c| c["label"] == "cat missing.txt")
        .unwrap();
    assert_eq!(missing["status"], "error");
    assert_eq!(missing["code"], "KA_COMMAND_FAILED");
    let newfile = commands.iter().find(|c| c["command"] == "newfile").unwrap();
    assert_eq!(newfile["tier"], Value::Null);

    // A consumer rebuilds the summary from the other events alone.
    let batches = of(&events, "batch").len();
    let ok = commands.iter().filter(|c| c["status"] == "ok").count();
    let failed = commands.iter().filter(|c| c["status"] == "error").count();
    let mut changed: Vec<&str> = Vec::new();
    for c in &commands {
        let file_command = [
            "newfile",
            "updatefile",
            "editfile",
            "deletefile",
            "movefile",
            "mkdir",
        ]
        .contains(&c["command"].as_str().unwrap());
        let label = c["label"].as_str().unwrap();
        if c["status"] == "ok" && file_command && !changed.contains(&label) {
            changed.push(label);
        }
    }
    let summary = of(&events, "summary");
    assert_eq!(summary.len(), 1);
    assert_eq!(summary[0]["batches"], batches);
    assert_eq!(summary[0]["ok"], ok);
    assert_eq!(summary[0]["failed"], failed);
    assert_eq!(summary[0]["changed"], serde_json::json!(changed));
    assert_eq!((batches, ok, failed), (2, 3, 1));
    // And the batches agree with their commands.
    let batch = of(&events, "batch");
    assert_eq!(batch[1]["done"], "honoured");
    assert_eq!(batch[0]["failed"], 1);
}

/// `keyless apply --json` of `reply` in `ws`.
fn apply(ws: &Path, reply: &str) -> Output {
    let file = ws.join("reply.txt");
    std::fs::write(&file, reply).unwrap();
    Command::new(env!("CARGO_BIN_EXE_keyless"))
        .arg("apply")
        .arg(&file)
        .args(["--json", "--mode", "autosafe", "--workspace"])
        .arg(ws)
        .env("XDG_CONFIG_HOME", ws.join(".config-home"))
        .output()
        .unwrap()
}

/// The site's trouble waited out with `--wait`: a `trouble` event with the site's words and
/// when it resets, then the `waiting` countdown, each by the schema; the turn then finishes.
#[test]
fn run_json_tells_the_site_s_trouble_and_the_wait_by_the_schema() {
    let words = "Too many requests. You're making requests too quickly. Try again in 2 seconds.";
    let chat = LocalChat::start(Script {
        replies: vec![
            ScriptedReply {
                text: words.into(),
                fault: Some(Fault::Toast),
            },
            ScriptedReply {
                text: "@@done\n<<<MSG\nafter the wait\nMSG>>>\n@@end\n@@eof\n".into(),
                fault: None,
            },
        ],
        ..Script::default()
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["run", "--json", "--wait", "--mode", "auto", "the task"],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let events = read_events(&out.stdout);
    let trouble = of(&events, "trouble");
    assert_eq!(trouble.len(), 1, "{events:?}");
    assert_eq!(trouble[0]["code"], "KA_RATE_LIMITED");
    assert_eq!(trouble[0]["words"], words);
    assert!(trouble[0]["resets_at"].is_u64(), "{:?}", trouble[0]);
    let waiting = of(&events, "waiting");
    assert!(!waiting.is_empty(), "{events:?}");
    assert_eq!(waiting[0]["code"], "KA_RATE_LIMITED");
    // The site's 2 s, and the moment keyless waits beyond a reset said as a wait.
    assert!(
        waiting[0]["seconds_left"].as_u64().is_some_and(|s| s <= 4),
        "{:?}",
        waiting[0]
    );
}

#[test]
fn apply_json_reports_each_command_the_results_and_a_format_error() {
    let ws = tempfile::tempdir().unwrap();
    let out = apply(
        ws.path(),
        "@@newfile b.txt\n<<<CONTENT\nb\nCONTENT>>>\n@@end\n@@runcommand on_error=continue\n<<<CMD\nsh ./b.txt\nCMD>>>\n@@end\n@@runcommand\n<<<CMD\nrm -rf /\nCMD>>>\n@@end\n@@eof\n",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let events = read_events(&out.stdout);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "started", "command", "command", "command", "batch", "results", "finished"
        ]
    );
    // Without a terminal nobody approves: declined, never run; Denied is never asked.
    assert_eq!(events[2]["tier"], "Execute");
    assert_eq!(events[2]["decision"], "confirm");
    assert_eq!(events[2]["code"], "KA_COMMAND_DECLINED");
    assert_eq!(events[3]["tier"], "Denied");
    assert_eq!(events[3]["decision"], "never");
    assert_eq!(events[3]["code"], "KA_COMMAND_DENIED");
    assert!(
        events[5]["text"]
            .as_str()
            .unwrap()
            .starts_with("[KEYLESSAGENT RESULTS] turn=1 batch=1\n"),
        "{}",
        events[5]
    );
    assert_eq!(events[6]["stop"], "failed");
    assert_eq!(events[6]["exit_status"], 3);

    let out = apply(ws.path(), "@@frobnicate x\n@@eof\n");
    assert_eq!(out.status.code(), Some(1));
    let events = read_events(&out.stdout);
    assert_eq!(events[1]["type"], "format_error");
    assert_eq!(events[1]["problems"][0]["code"], "KA_PARSE_UNKNOWN_COMMAND");
    assert_eq!(events[1]["problems"][0]["line"], 1);
    assert_eq!(events[2]["stop"], "rejected");
    assert_eq!(events[2]["exit_status"], 1);
}

#[test]
fn a_run_whose_chat_cannot_open_ends_with_a_finished_event() {
    let ws = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["run", "--json", "a task", "--site", "local", "--headless"])
        .args(["--url", "http://127.0.0.1:1/", "--workspace"])
        .arg(ws.path())
        .arg("--profile")
        .arg(ws.path().join("profile"))
        .args(["--cdp", crate::common::shared_browser::cdp_url()])
        .env("XDG_CONFIG_HOME", ws.path().join("config"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let events = read_events(&out.stdout);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1]["stop"], "chat_error", "{events:?}");
    assert_eq!(
        events[1]["code"],
        "KA_PAGE_NOT_LOADED",
        "{events:?}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(events[1]["exit_status"], 4);
}

/// `keyless interactive --json`: lines from standard input, a turn per task, the slash
/// commands as events, and nothing but events on standard output.
#[test]
fn interactive_json_streams_each_turn_and_the_slash_commands() {
    let chat = LocalChat::start(Script::replies([
        "@@newfile a.txt\n<<<CONTENT\none\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nWrote a.txt.\nMSG>>>\n@@end\n@@eof\n",
        "@@newfile b.txt\n<<<CONTENT\ntwo\nCONTENT>>>\n@@end\n@@done\n<<<MSG\nWrote b.txt.\nMSG>>>\n@@end\n@@eof\n",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut child = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &["interactive", "--json", "--mode", "auto"],
    )
    .stdin(std::process::Stdio::piped())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"Write a.txt\n/mode autosafe\n/undo\n\nWrite b.txt\n")
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let events = read_events(&out.stdout);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types[0], "started", "{types:?}");
    assert_eq!(events[0]["command"], "interactive");
    assert_eq!(events[0]["task"], Value::Null);
    assert_eq!(*types.last().unwrap(), "finished", "{types:?}");
    assert_eq!(events.last().unwrap()["stop"], "quit");
    assert_eq!(events.last().unwrap()["exit_status"], 0);
    // Each task starts its turn and ends it; the slash commands sit between them, in order.
    let marks: Vec<&str> = types
        .iter()
        .copied()
        .filter(|t| ["task", "turn_ended", "settings", "undone"].contains(t))
        .collect();
    assert_eq!(
        marks,
        [
            "task",
            "turn_ended",
            "settings",
            "undone",
            "task",
            "turn_ended"
        ],
        "{types:?}"
    );
    let tasks = of(&events, "task");
    assert_eq!(tasks[0]["task"], "Write a.txt");
    assert_eq!(
        (&tasks[0]["turn"], &tasks[1]["turn"]),
        (&1.into(), &2.into())
    );
    let ended = of(&events, "turn_ended");
    assert_eq!(ended[0]["stop"], "done");
    assert_eq!(ended[1]["message"], "Wrote b.txt.");
    assert_eq!(of(&events, "settings")[0]["mode"], "autosafe");
    let undone = of(&events, "undone");
    assert_eq!(undone[0]["batch"], 1, "{stderr}");
    // /undo put the first batch back; the second turn's file is there.
    assert!(!ws.path().join("a.txt").exists());
    assert_eq!(
        std::fs::read_to_string(ws.path().join("b.txt")).unwrap(),
        "two\n"
    );
    assert_eq!(of(&events, "summary").len(), 2);
    let sent: Vec<&str> = of(&events, "message_sent")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(sent, chat.received());
    // What people read went to standard error.
    assert!(stderr.contains("Mode: AutoSafe."), "{stderr}");
    assert!(stderr.contains("Undid batch 1:"), "{stderr}");
}

/// `run --until CMD` (issue 34): the model's first `@@done` leaves a failing test; the person's
/// done-check (`cargo test`, in the sandbox) fails, its output goes back with the results, the
/// model fixes the code, and the second `@@done` passes the check and ends the turn.
#[test]
fn until_sends_a_failing_done_check_back_and_the_model_fixes_it() {
    let chat = LocalChat::start(Script::replies([
        "@@say\n<<<MSG\nAll done, the sum works.\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n",
        "@@editfile src/lib.rs\n<<<FIND\na - b\nFIND>>>\n<<<REPLACE\na + b\nREPLACE>>>\n@@end\n@@done\n<<<MSG\nFixed the sum.\nMSG>>>\n@@end\n@@eof\n",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join("src")).unwrap();
    std::fs::write(
        ws.path().join("Cargo.toml"),
        "[package]\nname = \"sum\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        ws.path().join("src/lib.rs"),
        "pub fn sum(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[test]\nfn two_and_two() {\n    assert_eq!(sum(2, 2), 4, \"sum is wrong\");\n}\n",
    )
    .unwrap();
    let out = keyless_on(
        &chat,
        ws.path(),
        profile.path(),
        &[
            "run",
            "--json",
            "--mode",
            "auto",
            "--until",
            "cargo test --offline",
            "Make sum add",
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let events = read_events(&out.stdout);

    // The first @@done was not honoured: the check's failure went back to the model.
    let received = chat.received();
    assert_eq!(received.len(), 2, "{received:?}");
    let results = &received[1];
    assert!(
        results.contains(
            "--- done-check | cargo test --offline ---\nstatus: error | code: KA_DONE_CHECK_FAILED"
        ),
        "{results}"
    );
    assert!(results.contains("sum is wrong"), "{results}");
    assert!(
        results.contains(
            "--- @@done not honoured: the done-check the user set (`cargo test --offline`) failed"
        ),
        "{results}"
    );
    // The fix is in, and the check passed the second time.
    assert!(
        std::fs::read_to_string(ws.path().join("src/lib.rs"))
            .unwrap()
            .contains("a + b")
    );
    let checks = of(&events, "done_check");
    assert_eq!(checks.len(), 2, "{events:?}");
    assert_eq!(checks[0]["status"], "error");
    assert_eq!(checks[0]["code"], "KA_DONE_CHECK_FAILED");
    assert_eq!(checks[1]["status"], "ok");
    assert_eq!(checks[1]["code"], Value::Null);
    let batches = of(&events, "batch");
    assert_eq!(batches[0]["done"], "not_honoured");
    assert_eq!(batches[1]["done"], "honoured");
    let summary = of(&events, "summary")[0];
    assert_eq!(
        summary["check"],
        serde_json::json!({ "command": "cargo test --offline", "runs": 2, "passed": true })
    );
    let last = events.last().unwrap();
    assert_eq!(last["stop"], "done");
    assert_eq!(last["message"], "Fixed the sum.");
    assert!(
        stderr.contains("Done-check `cargo test --offline`: passed (run 2 time(s))."),
        "{stderr}"
    );
}
