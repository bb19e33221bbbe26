//! `keyless mcp` driven by a real MCP client from a registry: the official Python SDK from
//! PyPI, pinned in `tests/mcp/requirements.txt` and installed into `target/tmp/mcp-venv` on
//! first use; `tests/mcp/client.py` makes the calls a test plans and prints what came back.
//! The server runs the built binary attached to the test binary's shared browser (each call in
//! a tab of its own) on the local chat page with a scripted model.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use keyless::chat::local::{LocalChat, Script};
use serde_json::{Value, json};

use crate::common::shared_browser::cdp_url;

/// The virtual environment with the MCP client, made once per machine (pip from the pinned
/// requirements).
fn venv() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| crate::common::venv::pinned("mcp-venv", "tests/mcp/requirements.txt"))
}

/// Starts `keyless mcp` (attached to the shared browser, `profile` as its profile and config
/// folder) under the Python client, makes `calls` (groups made one after the other, the calls
/// of a group at once) and returns what the client saw.
fn client(profile: &Path, calls: Value) -> Value {
    client_with(profile, calls, Browser::Shared, Elicit::No)
}

/// Which browser the server uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Browser {
    /// The test binary's shared browser (`--cdp`).
    Shared,
    /// One it launches on its profile, as it does by default.
    Its,
}

/// Whether the client declares elicitation (and approves every question).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elicit {
    No,
    Approve,
}

fn client_with(profile: &Path, calls: Value, browser: Browser, elicit: Elicit) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    let log = dir.path().join("server.log");
    let profile_arg = profile.display().to_string();
    let mut args = vec!["mcp", "--headless", "--profile", &profile_arg];
    if browser == Browser::Shared {
        args.extend(["--cdp", cdp_url()]);
    }
    fs::write(
        &plan,
        json!({
            "command": env!("CARGO_BIN_EXE_keyless"),
            "args": args,
            "env": { "XDG_CONFIG_HOME": profile_arg },
            "server_log": log.display().to_string(),
            "calls": calls,
            "elicit": if elicit == Elicit::Approve { "accept" } else { "no" },
        })
        .to_string(),
    )
    .unwrap();
    let out = Command::new(venv().join("bin/python"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py"))
        .arg(&plan)
        .output()
        .unwrap();
    let server_log = fs::read_to_string(&log).unwrap_or_default();
    assert!(
        out.status.success(),
        "the client failed: {}\nthe server said: {server_log}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nthe server said: {server_log}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// A `run_task` call on `chat` in `ws`.
fn run_task(chat: &LocalChat, ws: &Path, task: &str, mode: &str) -> Value {
    json!({ "tool": "run_task", "arguments": {
        "task": task, "workspace": ws, "site": "local", "url": chat.url(), "mode": mode,
    }})
}

/// The `type` of each progress notification of a call, in order.
fn progress_types(result: &Value) -> Vec<String> {
    result["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

const WRITE_A_NOTE: [&str; 2] = [
    "```\n@@newfile notes.txt\n<<<CONTENT\nfirst note\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\ncat notes.txt\nCMD>>>\n@@end\n@@eof\n```",
    "```\n@@done\n<<<MSG\nWrote notes.txt.\nMSG>>>\n@@end\n@@eof\n```",
];

#[test]
fn lists_its_four_tools_with_their_arguments() {
    let profile = tempfile::tempdir().unwrap();
    let seen = client(profile.path(), json!([]));
    assert_eq!(
        seen["tools"],
        json!(["consult", "run_task", "status", "undo"])
    );
    let run = &seen["schemas"]["run_task"];
    let required: Vec<&str> = run["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, ["task", "workspace"], "{run}");
    for argument in ["site", "url", "mode", "pace", "new_chat"] {
        assert!(run["properties"][argument].is_object(), "{argument}: {run}");
    }
    assert_eq!(
        seen["schemas"]["consult"]["required"],
        json!(["question"]),
        "{}",
        seen["schemas"]["consult"]
    );
}

/// A task on the local page: the events `--json` prints arrive as progress notifications, the
/// file is written, the result holds the stop, the summary, the file and its diff; `status`
/// then tells the saved session, and `undo` puts the file back.
#[test]
fn runs_a_task_with_progress_and_a_diff_then_status_and_undo() {
    let chat = LocalChat::start(Script::replies(WRITE_A_NOTE)).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let seen = client(
        profile.path(),
        json!([
            [run_task(&chat, ws.path(), "Write a note", "autosafe")],
            [{ "tool": "status", "arguments": { "workspace": ws.path() } }],
            [{ "tool": "undo", "arguments": { "workspace": ws.path() } }],
        ]),
    );
    let results = seen["results"].as_array().unwrap();
    let run = &results[0];
    assert_eq!(run["is_error"], json!(false), "{run}");
    let done = &run["structured"];
    assert_eq!(done["stop"], "done", "{done}");
    assert_eq!(done["message"], "Wrote notes.txt.", "{done}");
    assert_eq!(done["exit_status"], 0, "{done}");
    assert_eq!(done["summary"]["batches"], 2, "{done}");
    assert_eq!(done["summary"]["ok"], 2, "{done}");
    assert_eq!(
        done["files"],
        json!([{ "path": "notes.txt", "change": "created" }])
    );
    assert_eq!(
        done["diff"], "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+first note\n",
        "{done}"
    );
    assert_eq!(done["refused"], json!([]));
    let types = progress_types(run);
    for expected in [
        "started",
        "message_sent",
        "reply_received",
        "command",
        "batch",
        "summary",
        "finished",
    ] {
        assert!(types.iter().any(|t| t == expected), "{expected}: {types:?}");
    }
    assert_eq!(types.first().map(String::as_str), Some("started"));
    assert_eq!(types.last().map(String::as_str), Some("finished"));
    // Every notification carries the schema's version, as --json's lines do.
    assert!(
        run["progress"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["v"] == 1),
        "{}",
        run["progress"]
    );
    assert_eq!(chat.received().len(), 2);

    let status = &results[1]["structured"];
    assert_eq!(status["state"], "idle", "{status}");
    assert_eq!(status["session"]["task"], "Write a note", "{status}");
    assert_eq!(status["undo"], json!([1, 1]), "{status}");

    let undo = &results[2];
    assert_eq!(undo["structured"]["batch"], 1, "{undo}");
    assert_eq!(undo["structured"]["exit_status"], 0, "{undo}");
    assert!(!ws.path().join("notes.txt").exists());
}

/// Two tasks at once, each in its own workspace on its own page, in two tabs of one browser:
/// each finishes with its own file, and the two conversations overlapped in time.
#[test]
fn two_tasks_at_once_in_two_workspaces() {
    let slow = |text: &str| Script {
        chunk_chars: 20,
        chunk_delay: Duration::from_millis(40),
        ..Script::replies([
            WRITE_A_NOTE[0].replace("first note", text),
            WRITE_A_NOTE[1].to_string(),
        ])
    };
    let (one, two) = (
        LocalChat::start(slow("from one")).unwrap(),
        LocalChat::start(slow("from two")).unwrap(),
    );
    let (ws_one, ws_two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let profile = tempfile::tempdir().unwrap();
    let seen = client(
        profile.path(),
        json!([[
            run_task(&one, ws_one.path(), "Write note one", "autosafe"),
            run_task(&two, ws_two.path(), "Write note two", "autosafe"),
        ]]),
    );
    for result in seen["results"].as_array().unwrap() {
        assert_eq!(result["structured"]["stop"], "done", "{result}");
    }
    assert_eq!(
        fs::read_to_string(ws_one.path().join("notes.txt")).unwrap(),
        "from one\n"
    );
    assert_eq!(
        fs::read_to_string(ws_two.path().join("notes.txt")).unwrap(),
        "from two\n"
    );
    assert_eq!((one.received().len(), two.received().len()), (2, 2));
    // At once: each chat had its first message before the other's last reply ended.
    let first = |chat: &LocalChat| chat.arrivals()[0];
    let last_end = |chat: &LocalChat| *chat.reply_ends().last().unwrap();
    assert!(
        first(&one) < last_end(&two) && first(&two) < last_end(&one),
        "the two tasks ran one after the other"
    );
}

/// Two tasks at once with the browser the server launches itself on its profile: the second
/// call's driver joins the first's browser in a tab of its own, and the first to finish closes
/// only its tab (the process's drivers share the profile as two processes would).
#[test]
fn two_tasks_at_once_in_the_browser_it_launches() {
    let slow = Script {
        chunk_chars: 20,
        chunk_delay: Duration::from_millis(40),
        ..Script::replies(WRITE_A_NOTE)
    };
    let quick = Script::replies(WRITE_A_NOTE);
    let (one, two) = (
        LocalChat::start(quick).unwrap(),
        LocalChat::start(slow).unwrap(),
    );
    let (ws_one, ws_two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let profile = tempfile::tempdir().unwrap();
    let seen = client_with(
        profile.path(),
        json!([[
            run_task(&one, ws_one.path(), "Write a note", "autosafe"),
            run_task(&two, ws_two.path(), "Write a note", "autosafe"),
        ]]),
        Browser::Its,
        Elicit::No,
    );
    for result in seen["results"].as_array().unwrap() {
        assert_eq!(result["structured"]["stop"], "done", "{result}");
    }
    assert!(ws_one.path().join("notes.txt").exists() && ws_two.path().join("notes.txt").exists());
}

/// Two calls at once in one workspace: one works, the other is refused as a second keyless
/// would be (one keyless per workspace), and nothing is mixed up.
#[test]
fn two_tasks_at_once_in_one_workspace_one_is_refused() {
    let slow = Script {
        chunk_chars: 20,
        chunk_delay: Duration::from_millis(40),
        ..Script::replies(WRITE_A_NOTE)
    };
    let (one, two) = (
        LocalChat::start(slow).unwrap(),
        LocalChat::start(Script::replies(WRITE_A_NOTE)).unwrap(),
    );
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let seen = client(
        profile.path(),
        json!([[
            run_task(&one, ws.path(), "Write a note", "autosafe"),
            run_task(&two, ws.path(), "Write a note", "autosafe"),
        ]]),
    );
    let results = seen["results"].as_array().unwrap();
    let done: Vec<&Value> = results
        .iter()
        .filter(|r| r["structured"]["stop"] == "done")
        .collect();
    let refused: Vec<&Value> = results.iter().filter(|r| r["is_error"] == true).collect();
    assert_eq!((done.len(), refused.len()), (1, 1), "{results:?}");
    let why = refused[0]["structured"]["reason"].as_str().unwrap();
    assert!(why.contains("is working in"), "{why}");
    assert_eq!(one.received().len() + two.received().len(), 2);
}

/// A client that declares elicitation: a Risky command is asked about through it, and runs
/// after the person's yes (the redirection made `ran.txt`).
#[test]
fn a_risky_command_waits_for_the_clients_yes() {
    let chat = LocalChat::start(Script::replies([
        "```\n@@runcommand\n<<<CMD\nfrobnicate --now > ran.txt\nCMD>>>\n@@end\n@@eof\n```",
        "```\n@@done\n<<<MSG\nRan it.\nMSG>>>\n@@end\n@@eof\n```",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let seen = client_with(
        profile.path(),
        json!([[run_task(&chat, ws.path(), "Run the tool", "ask")]]),
        Browser::Shared,
        Elicit::Approve,
    );
    let done = &seen["results"][0]["structured"];
    let asked = seen["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?} ({})", seen["protocol"]);
    assert!(
        asked[0]
            .as_str()
            .unwrap()
            .contains("frobnicate --now > ran.txt")
    );
    assert!(
        ws.path().join("ran.txt").exists(),
        "approved but not run: {done}"
    );
    assert_eq!(done["refused"], json!([]), "{done}");
}

/// A command that needs a person's yes (Risky, Ask mode) is refused, not run, when the client
/// cannot be asked (it declares no elicitation): the result says why, and the model is told.
#[test]
fn a_risky_command_is_refused_when_the_client_cannot_ask() {
    let chat = LocalChat::start(Script::replies([
        "```\n@@runcommand\n<<<CMD\nfrobnicate --now > ran.txt\nCMD>>>\n@@end\n@@eof\n```",
        "```\n@@done\n<<<MSG\nCould not run it.\nMSG>>>\n@@end\n@@eof\n```",
    ]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let seen = client(
        profile.path(),
        json!([[run_task(&chat, ws.path(), "Run the tool", "ask")]]),
    );
    let done = &seen["results"][0]["structured"];
    assert!(!ws.path().join("ran.txt").exists(), "the command ran");
    let refused = done["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{done}");
    let why = refused[0].as_str().unwrap();
    assert!(
        why.contains("frobnicate --now > ran.txt") && why.contains("cannot ask"),
        "{why}"
    );
    assert_eq!(done["summary"]["failed"], 1, "{done}");
    let results = &chat.received()[1];
    assert!(results.contains("frobnicate"), "{results}");
}

/// `consult`: one message with the question and the file, the reply's text back, nothing run
/// and nothing written in the workspace.
#[test]
fn consult_sends_one_message_and_returns_the_reply() {
    let chat = LocalChat::start(Script::replies(["The answer is 42."])).unwrap();
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("question.txt"), "six times seven\n").unwrap();
    let profile = tempfile::tempdir().unwrap();
    let seen = client(
        profile.path(),
        json!([[{ "tool": "consult", "arguments": {
            "question": "What is the answer?",
            "files": ["question.txt"],
            "workspace": ws.path(),
            "site": "local",
            "url": chat.url(),
        }}]]),
    );
    let result = &seen["results"][0];
    assert_eq!(result["is_error"], json!(false), "{result}");
    assert_eq!(result["text"], json!(["The answer is 42."]), "{result}");
    let received = chat.received();
    assert_eq!(received.len(), 1);
    assert!(
        received[0].starts_with("What is the answer?\n\n--- question.txt ---\nsix times seven\n"),
        "{}",
        received[0]
    );
    let left: Vec<_> = fs::read_dir(ws.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["question.txt"]);
}

#[test]
fn print_config_gives_each_client_its_snippet() {
    let print = |client: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
            .args(["mcp", "--print-config", client, "--site", "chatgpt"])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let program = env!("CARGO_BIN_EXE_keyless");
    let claude = print("claude");
    assert!(
        claude.starts_with(&format!(
            "claude mcp add keyless -- {program} mcp --site chatgpt\n"
        )),
        "{claude}"
    );
    let codex = print("codex");
    assert_eq!(
        codex,
        format!(
            "[mcp_servers.keyless]\ncommand = {program:?}\nargs = [\"mcp\", \"--site\", \"chatgpt\"]\n"
        )
    );
    // Standard output is the file itself; the note for the person is on standard error.
    let parsed: Value = serde_json::from_str(&print("cursor")).unwrap();
    assert_eq!(
        parsed["mcpServers"]["keyless"],
        json!({ "command": program, "args": ["mcp", "--site", "chatgpt"] })
    );
}

/// A client that gives up on a call (its time limit: the SDK then sends
/// `notifications/cancelled`) stops that task as Ctrl+C stops a run: the command running is
/// ended, nothing after it runs, the workspace is free again and its session kept to resume.
#[test]
fn a_call_the_client_cancels_stops_its_task_and_keeps_the_session() {
    let marker = "sleep 41.5";
    let chat = LocalChat::start(Script::replies([&*format!(
        "```\n@@runcommand\n<<<CMD\n{marker} && echo late > late.txt\nCMD>>>\n@@end\n@@eof\n```"
    )]))
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut cancelled = run_task(&chat, ws.path(), "Wait a while", "auto");
    cancelled["timeout"] = json!(8);
    let seen = client(
        profile.path(),
        json!([
            [cancelled],
            [{ "tool": "status", "arguments": { "workspace": ws.path() }, "after": 3 }],
        ]),
    );
    let results = seen["results"].as_array().unwrap();
    assert!(results[0]["error"].is_string(), "{}", results[0]);
    // The command had started: the task was under way when the client gave up.
    assert!(
        progress_types(&results[0])
            .iter()
            .any(|t| t == "message_sent"),
        "{}",
        results[0]
    );
    let status = &results[1]["structured"];
    // No keyless works there any more; the session waits to be resumed.
    assert!(status["running_pid"].is_null(), "{status}");
    assert_ne!(status["state"], "none", "{status}");
    assert_eq!(status["session"]["task"], "Wait a while", "{status}");
    let running = Command::new("pgrep").args(["-f", marker]).output().unwrap();
    assert!(
        running.stdout.is_empty(),
        "the cancelled task's command still runs: {}",
        String::from_utf8_lossy(&running.stdout)
    );
    assert!(!ws.path().join("late.txt").exists());
}

/// `run_task` takes what `keyless run` takes for the chat's controls: the model and effort are
/// chosen in the page's picker and read back before anything is sent, and the caller's files go
/// with the first message, each confirmed by its chip, a secret in a text file redacted; a
/// relative path is refused before anything opens.
#[test]
fn run_task_chooses_the_model_and_sends_the_callers_files() {
    let chat = LocalChat::start(Script {
        page: keyless::chat::local::PageFaults {
            modes: vec!["picker-menu".into(), "attach".into()],
            ..Default::default()
        },
        ..Script::replies(WRITE_A_NOTE)
    })
    .unwrap();
    let ws = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let notes = files.path().join("notes.md");
    let key = format!("AKIA{}", "QWERTYUIOPASDFGH");
    fs::write(&notes, format!("the plan\naws key {key}\n")).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut call = run_task(&chat, ws.path(), "Write a note", "autosafe");
    call["arguments"]["model"] = json!("gpt 5.5 thinking");
    call["arguments"]["effort"] = json!("heavy");
    call["arguments"]["attach"] = json!([notes]);
    let mut relative = run_task(&chat, ws.path(), "Write a note", "autosafe");
    relative["arguments"]["attach"] = json!(["notes.md"]);
    let seen = client(profile.path(), json!([[relative], [call]]));
    let results = seen["results"].as_array().unwrap();
    assert_eq!(results[0]["is_error"], json!(true), "{}", results[0]);
    assert!(
        results[0]["structured"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("absolute paths")),
        "{}",
        results[0]
    );
    let run = &results[1];
    assert_eq!(run["structured"]["stop"], "done", "{run}");
    let with = chat.sent_with();
    assert_eq!(with[0].model, "GPT-5.5 Thinking", "{with:?}");
    assert_eq!(with[0].effort, "Heavy", "{with:?}");
    let uploads = chat.uploads();
    assert_eq!(uploads.len(), 1, "{uploads:?}");
    assert_eq!(uploads[0].0, "notes.md");
    let arrived = String::from_utf8_lossy(&uploads[0].1).into_owned();
    assert!(arrived.starts_with("the plan\n"), "{arrived}");
    assert!(!arrived.contains(&key), "the secret left: {arrived}");
    assert!(
        progress_types(run).iter().any(|t| t == "attachment_sent"),
        "{run}"
    );
}
