//! Issue 34's promises about `keyless mcp` and `keyless run --until`, attacked by a reviewer who
//! had not read the change: a real MCP client (the official Python SDK, pinned in
//! `tests/mcp/requirements.txt`, driven by `tests/attacks34/client.py`) starts `keyless mcp` over
//! standard input and output and calls its tools on the local chat page with a scripted model.
//! Each test asserts what the issue (or the README's section on MCP) promises, and checks the
//! file system, the chat's received messages and the machine's processes rather than keyless's
//! own words. What keyless got wrong when this was written is kept as a test of the right
//! behaviour, ignored with the reason (`attack34: …`), so the branch stays green.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use keyless::chat::local::{LocalChat, Script};
use serde_json::{Value, json};

use crate::common::local_keyless::keyless_on;
use crate::common::shared_browser;

/// The client script, outside keyless's own code.
const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/attacks34/client.py");

/// How long any one client run may take before the test gives up on it.
const CLIENT_DEADLINE: Duration = Duration::from_secs(180);

/// The Python with the pinned MCP SDK (a virtual environment of this module's own, so that it
/// is never made at the same moment as another module's).
fn python() -> PathBuf {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY
        .get_or_init(|| {
            crate::common::venv::pinned("attacks34-mcp-venv", "tests/mcp/requirements.txt")
        })
        .join("bin/python")
}

// ---------------------------------------------------------------------------------------------
// Replies of the scripted model.

fn newfile(path: &str, content: &str) -> String {
    format!("@@newfile {path}\n<<<CONTENT\n{content}CONTENT>>>\n@@end\n")
}

fn run(cmd: &str) -> String {
    format!("@@runcommand\n<<<CMD\n{cmd}\nCMD>>>\n@@end\n")
}

fn done(msg: &str) -> String {
    format!("@@done\n<<<MSG\n{msg}\nMSG>>>\n@@end\n")
}

fn next() -> String {
    "@@next\n@@end\n".to_string()
}

/// One reply of blocks, closed by `@@eof`.
fn reply(blocks: &[String]) -> String {
    format!("{}@@eof\n", blocks.concat())
}

/// A local chat page whose model answers `replies` in order.
fn chat(replies: Vec<String>) -> LocalChat {
    LocalChat::start(Script::replies(replies)).unwrap()
}

/// A local chat page whose replies stream slowly (`millis` per 20 characters).
fn slow_chat(replies: Vec<String>, millis: u64) -> LocalChat {
    let mut script = Script::replies(replies);
    script.chunk_chars = 20;
    script.chunk_delay = Duration::from_millis(millis);
    LocalChat::start(script).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The server and the client.

/// One `keyless mcp` as a client starts it: its browser profile and config folder in a
/// temporary folder of its own, in a tab of the shared browser or launching its own.
struct Server {
    dir: tempfile::TempDir,
    shared: bool,
    extra: Vec<String>,
}

impl Server {
    /// Attached to the test binary's shared browser.
    fn shared() -> Server {
        Server {
            dir: tempfile::tempdir().unwrap(),
            shared: true,
            extra: Vec::new(),
        }
    }

    /// Launching its own browser on its own profile, as it does for a user.
    fn launching() -> Server {
        Server {
            dir: tempfile::tempdir().unwrap(),
            shared: false,
            extra: Vec::new(),
        }
    }

    fn profile(&self) -> PathBuf {
        self.dir.path().join("profile")
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    fn args(&self) -> Vec<String> {
        let mut args = vec![
            "mcp".to_string(),
            "--headless".to_string(),
            "--profile".to_string(),
            self.profile().display().to_string(),
        ];
        if self.shared {
            args.push("--cdp".to_string());
            args.push(shared_browser::cdp_url().to_string());
        }
        args.extend(self.extra.iter().cloned());
        args
    }

    /// A plan for the client: the server's command, and `calls` in groups (a group's calls at
    /// once, the groups in turn).
    fn plan(&self, calls: Value) -> Value {
        json!({
            "command": env!("CARGO_BIN_EXE_keyless"),
            "args": self.args(),
            "env": {"XDG_CONFIG_HOME": self.dir.path().join("config").display().to_string()},
            "server_log": self.log().display().to_string(),
            "calls": calls,
        })
    }

    /// Makes `plan` start the server through a shell that writes its process id (the shell's,
    /// which becomes keyless) into the server's folder, for [`Server::pid`].
    fn tell_pid(&self, plan: &mut Value) {
        let file = self.dir.path().join("pid");
        let mut args = vec![
            json!("-c"),
            json!(format!(
                "echo $$ > '{}'; exec \"$0\" \"$@\"",
                file.display()
            )),
            json!(env!("CARGO_BIN_EXE_keyless")),
        ];
        args.extend(self.args().into_iter().map(Value::from));
        plan["command"] = json!("/bin/sh");
        plan["args"] = Value::Array(args);
    }

    /// The server's process id, once a plan made by [`Server::tell_pid`] started it.
    fn pid(&self) -> u32 {
        let file = self.dir.path().join("pid");
        let read = || fs::read_to_string(&file).ok()?.trim().parse::<u32>().ok();
        assert!(wait_for(Duration::from_secs(20), || read().is_some()));
        read().unwrap()
    }

    /// The server's standard error so far.
    fn stderr(&self) -> String {
        fs::read_to_string(self.log()).unwrap_or_default()
    }

    /// Runs the client on `plan` and returns what it printed; the server's standard error is
    /// in every failure.
    fn client(&self, plan: &Value) -> Value {
        let out = client_output(plan, self.dir.path());
        let stderr = self.stderr();
        assert!(
            !stderr.contains("panicked"),
            "the server panicked:\n{stderr}"
        );
        out.unwrap_or_else(|e| panic!("{e}\nserver:\n{stderr}"))
    }
}

/// Runs the client on `plan` (written into `dir`), bounded by [`CLIENT_DEADLINE`].
fn client_output(plan: &Value, dir: &Path) -> Result<Value, String> {
    let file = dir.join(format!(
        "plan-{}.json",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    fs::write(&file, plan.to_string()).unwrap();
    let mut child = Command::new(python())
        .arg(CLIENT)
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > CLIENT_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the client ran over {CLIENT_DEADLINE:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = out_reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    if !status.success() {
        return Err(format!("the client failed ({status}):\n{stderr}\n{stdout}"));
    }
    serde_json::from_str(&stdout).map_err(|e| format!("client output {e}: {stdout}\n{stderr}"))
}

/// A call's arguments for `run_task` on the local page.
fn task_args(chat: &LocalChat, ws: &Path, task: &str, mode: &str) -> Value {
    json!({
        "task": task,
        "workspace": ws.display().to_string(),
        "site": "local",
        "url": chat.url(),
        "mode": mode,
    })
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"tool": tool, "arguments": arguments})
}

/// The call's result object: the structured content, else the first text block as JSON.
fn result_of(result: &Value) -> Value {
    if !result["structured"].is_null() {
        return result["structured"].clone();
    }
    result["text"][0]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

/// All the text a call's result gives a client (its blocks, joined).
fn text_of(result: &Value) -> String {
    result["text"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The progress objects of a call, of one type.
fn progress_of<'a>(result: &'a Value, kind: &str) -> Vec<&'a Value> {
    result["progress"]
        .as_array()
        .map(|p| p.iter().filter(|e| e["type"] == kind).collect())
        .unwrap_or_default()
}

fn ws_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let path = ws.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
    ws
}

// ---------------------------------------------------------------------------------------------
// Processes.

/// The command lines of the machine's live processes (zombies have none).
fn processes() -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(raw) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if raw.is_empty() {
            continue;
        }
        let line = String::from_utf8_lossy(&raw).replace('\0', " ");
        found.push((pid, line));
    }
    found
}

/// Browsers on `profile`: their main processes, not their helpers (`--type=…`) nor the
/// moment-long forks a browser makes of itself with its own command line (their parent is the
/// browser).
fn browsers_on(profile: &Path) -> Vec<(u32, String)> {
    let needle = format!("--user-data-dir={}", profile.display());
    let all = processes();
    let on_profile = |pid: u32| {
        all.iter()
            .any(|(p, line)| *p == pid && line.contains(&needle))
    };
    all.iter()
        .filter(|(_, line)| line.contains(&needle) && !line.contains("--type="))
        .filter(|(pid, _)| !parent_of(*pid).is_some_and(on_profile))
        .cloned()
        .collect()
}

/// The parent of process `pid`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Whether process `pid` is alive (a zombie is not).
fn alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .unwrap_or("");
            state != "Z" && state != "X"
        }
        Err(_) => false,
    }
}

/// Waits up to `limit` for `condition`.
fn wait_for(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    condition()
}

// =============================================================================================
// Tools and schemas.

#[test]
fn the_four_tools_are_listed_with_schemas_that_require_what_they_need() {
    let server = Server::shared();
    let out = server.client(&server.plan(json!([])));
    let tools = out["tools"].as_object().unwrap();
    let mut names: Vec<&str> = tools.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, ["consult", "run_task", "status", "undo"]);
    let required = |tool: &str| -> Vec<String> {
        let mut r: Vec<String> = tools[tool]["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        r.sort();
        r
    };
    assert_eq!(required("run_task"), ["task", "workspace"]);
    assert_eq!(required("consult"), ["question"]);
    assert_eq!(required("status"), ["workspace"]);
    assert_eq!(required("undo"), ["workspace"]);
    let run_task = &tools["run_task"];
    for property in ["task", "workspace", "site", "url", "mode", "pace", "until"] {
        assert!(
            run_task["properties"].get(property).is_some(),
            "run_task has no {property}: {run_task}"
        );
        assert!(
            run_task["properties"][property]["description"].is_string(),
            "run_task.{property} is not described: {run_task}"
        );
    }
    // The modes a client may choose are the three modes, spelled as the CLI spells them.
    let schema = run_task.to_string();
    for mode in ["\"ask\"", "\"autosafe\"", "\"auto\""] {
        assert!(schema.contains(mode), "{schema}");
    }
    for tool in names {
        assert_eq!(tools[tool]["type"], "object", "{tool}");
    }
}

#[test]
fn run_task_offers_model_and_effort() {
    let server = Server::shared();
    let out = server.client(&server.plan(json!([])));
    let properties = &out["tools"]["run_task"]["properties"];
    assert!(properties.get("model").is_some(), "{properties}");
    assert!(properties.get("effort").is_some(), "{properties}");
}

// =============================================================================================
// run_task.

#[test]
fn run_task_streams_the_events_run_json_prints_and_returns_stop_summary_files_and_diff() {
    let replies = || {
        vec![
            reply(&[
                "@@say\n<<<MSG\nStarting.\nMSG>>>\n@@end\n".to_string(),
                newfile("a.txt", "hello\n"),
                run("cat a.txt"),
                next(),
            ]),
            reply(&[
                "@@editfile old.txt\n<<<FIND\nold line\nFIND>>>\n<<<REPLACE\nnew line\nREPLACE>>>\n@@end\n".to_string(),
                done("Wrote a.txt."),
            ]),
        ]
    };
    let seed: &[(&str, &[u8])] = &[("old.txt", b"keep 1\nold line\nkeep 2\n")];
    let ws = ws_with(seed);
    let page = chat(replies());
    let server = Server::shared();
    let out = server.client(&server.plan(json!([[call(
        "run_task",
        task_args(&page, ws.path(), "Write a.txt", "autosafe")
    )]])));
    let result = &out["results"][0];
    assert_eq!(result["is_error"], false, "{result}");

    // Files changed.
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"hello\n");
    assert_eq!(
        fs::read(ws.path().join("old.txt")).unwrap(),
        b"keep 1\nnew line\nkeep 2\n"
    );

    // The result: the stop reason, the summary, the files changed and their diff.
    let r = result_of(result);
    assert_eq!(r["stop"], "done", "{r}");
    assert_eq!(r["message"], "Wrote a.txt.", "{r}");
    assert_eq!(r["exit_status"], 0, "{r}");
    let files = r["files"].to_string();
    assert!(files.contains("a.txt") && files.contains("old.txt"), "{r}");
    let diff = r["diff"].as_str().unwrap_or_default();
    assert!(diff.contains("+hello"), "no a.txt in the diff: {diff}");
    assert!(
        diff.contains("-old line") && diff.contains("+new line"),
        "no old.txt in the diff: {diff}"
    );
    assert_eq!(r["summary"]["batches"], 2, "{r}");

    // The progress notifications: JSON objects of the schema's version, started first and
    // finished last, the same kinds in the same order as `keyless run --json` prints for the
    // same script (and the model's @@say as a `say`).
    let progress = result["progress"].as_array().unwrap();
    assert!(!progress.is_empty(), "no progress: {result}");
    for event in progress {
        assert_eq!(event["v"], 1, "{event}");
        assert!(event["type"].is_string(), "{event}");
    }
    assert_eq!(progress[0]["type"], "started", "{result}");
    assert_eq!(progress.last().unwrap()["type"], "finished", "{result}");
    assert_eq!(progress_of(result, "say")[0]["text"], "Starting.");
    let mcp_kinds: Vec<&str> = progress
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .filter(|k| *k != "say")
        .collect();

    let ws2 = ws_with(seed);
    let page2 = chat(replies());
    let profile = tempfile::tempdir().unwrap();
    let cli = keyless_on(
        &page2,
        ws2.path(),
        profile.path(),
        &["run", "--json", "--mode", "autosafe", "Write a.txt"],
    )
    .output()
    .unwrap();
    assert_eq!(
        cli.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let cli_kinds: Vec<String> = String::from_utf8_lossy(&cli.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(mcp_kinds, cli_kinds, "{result}");
    // The commands' events agree field by field.
    let cli_commands: Vec<Value> = String::from_utf8_lossy(&cli.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "command")
        .collect();
    let mcp_commands = progress_of(result, "command");
    assert_eq!(mcp_commands.len(), cli_commands.len());
    for (m, c) in mcp_commands.iter().zip(&cli_commands) {
        for field in ["command", "label", "status", "tier", "decision", "code"] {
            assert_eq!(m[field], c[field], "{field}: {m} vs {c}");
        }
    }
}

// =============================================================================================
// Bad input.

/// Asserts `result` is a tool error (not a protocol crash) whose text contains each of `words`.
fn assert_tool_error(result: &Value, words: &[&str]) {
    assert!(
        result.get("exception").is_none(),
        "a protocol error, not a tool error: {result}"
    );
    assert_eq!(result["is_error"], true, "{result}");
    let text = text_of(result).to_lowercase();
    for word in words {
        assert!(
            text.contains(&word.to_lowercase()),
            "no {word:?} in the error: {text}"
        );
    }
}

#[test]
fn bad_input_gives_clear_tool_errors_and_the_server_stays_usable() {
    let ws = ws_with(&[]);
    let page = chat(vec![reply(&[newfile("ok.txt", "ok\n"), done("fine")])]);
    let server = Server::shared();
    let missing = ws.path().join("no-such-folder");
    let other = tempfile::tempdir().unwrap();
    let file = other.path().join("a-plain-file");
    fs::write(&file, "not a folder\n").unwrap();
    let args = |patch: Value| {
        let mut a = task_args(&page, ws.path(), "Write ok.txt", "ask");
        for (k, v) in patch.as_object().unwrap() {
            if v.is_null() {
                a.as_object_mut().unwrap().remove(k);
            } else {
                a[k] = v.clone();
            }
        }
        a
    };
    let out = server.client(&server.plan(json!([
        [
            call("run_task", args(json!({"task": null}))),
            call(
                "run_task",
                args(json!({"workspace": missing.display().to_string()}))
            ),
            call(
                "run_task",
                args(json!({"site": "no-such-site", "url": null}))
            ),
            call("run_task", args(json!({"mode": "yolo"}))),
            call("run_task", args(json!({"pace": "warp"}))),
            call(
                "status",
                json!({"workspace": missing.display().to_string()})
            ),
            call("undo", json!({"workspace": missing.display().to_string()})),
            call("run_task", args(json!({"task": 123}))),
            call(
                "run_task",
                args(json!({"workspace": file.display().to_string()}))
            ),
        ],
        [call("run_task", args(json!({})))],
    ])));
    let results = out["results"].as_array().unwrap();
    assert_tool_error(&results[0], &["task"]);
    assert_tool_error(&results[1], &["no-such-folder"]);
    assert_tool_error(&results[2], &["no-such-site"]);
    assert_tool_error(&results[3], &["yolo"]);
    assert_tool_error(&results[4], &["warp"]);
    assert_tool_error(&results[5], &["no-such-folder"]);
    assert_tool_error(&results[6], &["no-such-folder"]);
    assert_tool_error(&results[7], &["123"]);
    assert_tool_error(&results[8], &["a-plain-file"]);
    assert_eq!(fs::read(&file).unwrap(), b"not a folder\n");
    // Nothing was sent for the bad calls, no folder was made, and the server still works.
    assert!(!missing.exists());
    let last = &results[9];
    assert_eq!(last["is_error"], false, "{last}");
    assert_eq!(result_of(last)["stop"], "done", "{last}");
    assert_eq!(fs::read(ws.path().join("ok.txt")).unwrap(), b"ok\n");
    assert_eq!(page.received_count(), 1);
}

#[test]
fn a_relative_workspace_is_refused_not_taken_against_the_servers_folder() {
    let cwd = tempfile::tempdir().unwrap();
    fs::create_dir(cwd.path().join("rel")).unwrap();
    let page = chat(vec![reply(&[newfile("written.txt", "x\n"), done("ok")])]);
    let server = Server::shared();
    let mut plan = server.plan(json!([[
        call("run_task", json!({"task": "Write it", "workspace": "rel", "site": "local", "url": page.url(), "mode": "ask"})),
        call("status", json!({"workspace": "rel"})),
        call("undo", json!({"workspace": "rel"})),
    ]]));
    plan["cwd"] = json!(cwd.path().display().to_string());
    let out = server.client(&plan);
    for result in out["results"].as_array().unwrap() {
        assert_tool_error(result, &["absolute"]);
    }
    assert!(!cwd.path().join("rel/written.txt").exists());
    assert!(!cwd.path().join("rel/.agent").exists());
    assert_eq!(page.received_count(), 0);
}

#[test]
fn an_empty_task_is_refused_and_nothing_is_sent() {
    let ws = ws_with(&[]);
    let page = chat(vec![reply(&[done("nothing to do")])]);
    let server = Server::shared();
    let out = server.client(&server.plan(json!([
        [call("run_task", task_args(&page, ws.path(), "", "ask"))],
        [call(
            "run_task",
            task_args(&page, ws.path(), "   \n", "ask")
        )],
    ])));
    for result in out["results"].as_array().unwrap() {
        assert_tool_error(result, &["task"]);
    }
    assert_eq!(page.received_count(), 0);
}

// =============================================================================================
// Risky and Denied commands.

/// The workspace a Risky `rm -rf build` would empty, and a reply that asks for it then stops.
fn risky_case() -> (tempfile::TempDir, LocalChat) {
    let ws = ws_with(&[("build/keep.txt", b"keep me\n")]);
    let page = chat(vec![
        reply(&[run("rm -rf build"), next()]),
        reply(&[done("finished")]),
    ]);
    (ws, page)
}

/// Runs the risky case with the client answering elicitation as `elicit` (None: a client that
/// cannot elicit), and returns (the output, the call's result).
fn run_risky(elicit: Option<&str>) -> (tempfile::TempDir, LocalChat, Value) {
    let (ws, page) = risky_case();
    let server = Server::shared();
    let mut plan = server.plan(json!([[call(
        "run_task",
        task_args(&page, ws.path(), "Clean the build", "ask")
    )]]));
    if let Some(mode) = elicit {
        plan["elicit"] = json!(mode);
    }
    let out = server.client(&plan);
    (ws, page, out)
}

#[test]
fn a_risky_command_is_refused_with_its_reason_when_the_client_cannot_elicit() {
    let (ws, page, out) = run_risky(None);
    let result = &out["results"][0];
    // Never run: the folder is there, byte for byte.
    assert_eq!(
        fs::read(ws.path().join("build/keep.txt")).unwrap(),
        b"keep me\n",
        "{result}"
    );
    assert!(out["asked"].as_array().unwrap().is_empty());
    // Refused with the reason, told to the caller and to the model.
    let r = result_of(result);
    let command = progress_of(result, "command");
    let rm = command
        .iter()
        .find(|c| c["label"] == "rm -rf build")
        .unwrap_or_else(|| panic!("no command event for rm: {result}"));
    assert_eq!(rm["status"], "error", "{rm}");
    assert_eq!(rm["tier"], "Risky", "{rm}");
    assert!(rm["reason"].is_string(), "{rm}");
    assert!(
        r["refused"].to_string().contains("rm -rf build"),
        "the result does not say what was refused: {r}"
    );
    assert!(
        r["refused"].to_string().contains("elicitation"),
        "the result does not say why (the client cannot ask): {r}"
    );
    let received = page.received();
    assert!(received.len() >= 2, "{received:?}");
    assert!(
        received[1].contains("rm -rf build"),
        "the model was not told: {}",
        received[1]
    );
}

#[test]
fn a_risky_command_is_asked_through_elicitation_and_runs_when_accepted() {
    let (ws, _page, out) = run_risky(Some("accept"));
    let result = &out["results"][0];
    let asked = out["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{out}");
    assert!(
        asked[0]["message"]
            .as_str()
            .unwrap()
            .contains("rm -rf build"),
        "{out}"
    );
    assert!(
        !ws.path().join("build").exists(),
        "accepted, not run: {result}"
    );
    assert_eq!(result_of(result)["stop"], "done", "{result}");
}

#[test]
fn a_risky_command_declined_through_elicitation_never_runs() {
    for answer in ["decline", "cancel", "accept_false"] {
        let (ws, _page, out) = run_risky(Some(answer));
        let result = &out["results"][0];
        assert_eq!(out["asked"].as_array().unwrap().len(), 1, "{answer}: {out}");
        assert_eq!(
            fs::read(ws.path().join("build/keep.txt")).unwrap(),
            b"keep me\n",
            "{answer}: {result}"
        );
        let rm = progress_of(result, "command")
            .into_iter()
            .find(|c| c["label"] == "rm -rf build")
            .cloned()
            .unwrap_or_else(|| panic!("{answer}: no command event: {result}"));
        assert_eq!(rm["status"], "error", "{answer}: {rm}");
    }
}

#[test]
fn a_denied_command_never_runs_even_when_the_client_accepts_everything() {
    let ws = ws_with(&[]);
    let page = chat(vec![
        reply(&[run("touch ran.txt && git push --force"), next()]),
        reply(&[done("finished")]),
    ]);
    for mode in ["ask", "autosafe", "auto"] {
        let server = Server::shared();
        let mut plan = server.plan(json!([[call(
            "run_task",
            json!({"task": "Push", "workspace": ws.path().display().to_string(), "site": "local",
                   "url": page.url(), "mode": mode, "new_chat": true})
        )]]));
        plan["elicit"] = json!("accept");
        let out = server.client(&plan);
        let result = &out["results"][0];
        assert!(!ws.path().join("ran.txt").exists(), "{mode}: {result}");
        assert!(
            out["asked"].as_array().unwrap().is_empty(),
            "{mode}: a Denied command was asked about: {out}"
        );
        let event = progress_of(result, "command")
            .into_iter()
            .find(|c| c["command"] == "runcommand")
            .cloned()
            .unwrap_or_else(|| panic!("{mode}: {result}"));
        assert_eq!(event["tier"], "Denied", "{event}");
        assert_eq!(event["code"], "KA_COMMAND_DENIED", "{event}");
        // The next task gets the script from its start.
        page.push_reply(keyless::chat::local::ScriptedReply {
            text: reply(&[run("touch ran.txt && git push --force"), next()]),
            fault: None,
        });
        page.push_reply(keyless::chat::local::ScriptedReply {
            text: reply(&[done("finished")]),
            fault: None,
        });
    }
}

// =============================================================================================
// Calls at once.

/// Samples, until `stop`, the browsers running on `profile`: the most at once (and them).
fn count_browsers(
    profile: PathBuf,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<(u32, String)>> {
    std::thread::spawn(move || {
        let mut most = Vec::new();
        while !stop.load(Ordering::SeqCst) {
            let now = browsers_on(&profile);

            if now.len() > most.len() {
                most = now;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        most
    })
}

#[test]
fn two_tasks_in_two_workspaces_at_once_both_finish_in_one_browser() {
    // Two chat pages, so each task's replies are its own; slow replies, so the tasks overlap.
    // Each reply streams for about three seconds (a @@say of 600 characters, 20 every 100 ms).
    let filler = format!("@@say\n<<<MSG\n{}\nMSG>>>\n@@end\n", "working ".repeat(75));
    let a = slow_chat(
        vec![
            reply(&[filler.clone(), newfile("a.txt", "from a\n"), next()]),
            reply(&[filler.clone(), run("cat a.txt"), done("a done")]),
        ],
        100,
    );
    let b = slow_chat(
        vec![
            reply(&[filler.clone(), newfile("b.txt", "from b\n"), next()]),
            reply(&[filler.clone(), run("cat b.txt"), done("b done")]),
        ],
        100,
    );
    let ws_a = ws_with(&[]);
    let ws_b = ws_with(&[]);
    let server = Server::launching();
    let stop = Arc::new(AtomicBool::new(false));
    let counter = count_browsers(server.profile(), Arc::clone(&stop));
    let out = server.client(&server.plan(json!([[
        call("run_task", task_args(&a, ws_a.path(), "Task A", "autosafe")),
        call("run_task", task_args(&b, ws_b.path(), "Task B", "autosafe")),
    ]])));
    stop.store(true, Ordering::SeqCst);
    let most = counter.join().unwrap();
    let results = out["results"].as_array().unwrap();
    assert_eq!(
        result_of(&results[0])["message"],
        "a done",
        "{}",
        results[0]
    );
    assert_eq!(
        result_of(&results[1])["message"],
        "b done",
        "{}",
        results[1]
    );
    assert_eq!(fs::read(ws_a.path().join("a.txt")).unwrap(), b"from a\n");
    assert_eq!(fs::read(ws_b.path().join("b.txt")).unwrap(), b"from b\n");
    assert!(!ws_a.path().join("b.txt").exists());
    assert!(!ws_b.path().join("a.txt").exists());
    // Each page got its own task.
    assert!(a.received()[0].contains("Task A"));
    assert!(b.received()[0].contains("Task B"));
    // They ran at once: each began before the other ended.
    let (a_start, b_start) = (a.arrivals()[0], b.arrivals()[0]);
    let (a_end, b_end) = (
        *a.reply_ends().last().unwrap(),
        *b.reply_ends().last().unwrap(),
    );
    assert!(
        a_start < b_end && b_start < a_end,
        "the tasks did not overlap: a {:?} b {:?}",
        a.arrivals()
            .iter()
            .chain(a.reply_ends().iter())
            .map(|t| t.elapsed())
            .collect::<Vec<_>>(),
        b.arrivals()
            .iter()
            .chain(b.reply_ends().iter())
            .map(|t| t.elapsed())
            .collect::<Vec<_>>()
    );
    // One browser served both.
    assert_eq!(
        most.len(),
        1,
        "browsers at once on the server's profile: {most:?}"
    );
    // And none is left once the server is gone.
    assert!(
        wait_for(Duration::from_secs(10), || browsers_on(&server.profile())
            .is_empty()),
        "a browser outlived the server: {:?}",
        browsers_on(&server.profile())
    );
}

#[test]
fn a_second_call_in_the_same_workspace_is_refused_and_the_first_is_unharmed() {
    let page = slow_chat(
        vec![
            reply(&[newfile("first.txt", "first\n"), next()]),
            reply(&[run("cat first.txt"), done("first done")]),
            // Only a second task that got through would read these.
            reply(&[newfile("second.txt", "second\n"), done("second done")]),
        ],
        60,
    );
    let ws = ws_with(&[]);
    let server = Server::shared();
    let out = server.client(&server.plan(json!([[
        call("run_task", task_args(&page, ws.path(), "First", "autosafe")),
        call(
            "run_task",
            task_args(&page, ws.path(), "Second", "autosafe")
        ),
    ]])));
    let results = out["results"].as_array().unwrap();
    let (ok, refused): (Vec<&Value>, Vec<&Value>) =
        results.iter().partition(|r| r["is_error"] == false);
    assert_eq!(ok.len(), 1, "{out}");
    assert_eq!(refused.len(), 1, "{out}");
    assert_eq!(result_of(ok[0])["message"], "first done", "{}", ok[0]);
    // Refused clearly: it names the workspace and says it is busy.
    let text = text_of(refused[0]);
    assert!(
        text.contains(&ws.path().display().to_string()),
        "the refusal does not name the workspace: {text}"
    );
    assert_eq!(fs::read(ws.path().join("first.txt")).unwrap(), b"first\n");
    assert!(!ws.path().join("second.txt").exists());
    assert_eq!(page.received_count(), 2, "{:?}", page.received());
}

#[test]
fn the_same_workspace_refusal_says_another_call_of_this_server_not_another_process() {
    let page = slow_chat(
        vec![
            reply(&[newfile("first.txt", "first\n"), next()]),
            reply(&[done("first done")]),
        ],
        60,
    );
    let ws = ws_with(&[]);
    let server = Server::shared();
    let mut plan = server.plan(json!([[
        call("run_task", task_args(&page, ws.path(), "First", "autosafe")),
        call(
            "run_task",
            task_args(&page, ws.path(), "Second", "autosafe")
        ),
    ]]));
    server.tell_pid(&mut plan);
    let out = server.client(&plan);
    let pid = server.pid();
    let refused = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["is_error"] == true)
        .cloned()
        .unwrap_or_else(|| panic!("{out}"));
    let text = text_of(&refused);
    assert!(
        !text.contains(&format!("process {pid}")),
        "the server calls itself another keyless: {text}"
    );
}

// =============================================================================================
// consult.

/// A reply full of AgentScript that would leave marks if any of it ran.
fn tempting_reply() -> String {
    reply(&[
        "@@say\n<<<MSG\nThe answer is 42.\nMSG>>>\n@@end\n".to_string(),
        newfile("pwned.txt", "pwned\n"),
        run("touch ran.txt"),
        "@@deletefile notes.txt\n@@end\n".to_string(),
        done("consulted"),
    ])
}

#[test]
fn consult_returns_the_replys_text_and_runs_nothing_of_it() {
    let ws = ws_with(&[("notes.txt", b"CONSULT-TOKEN-7731 is in the notes\n")]);
    let page = chat(vec![tempting_reply()]);
    let server = Server::shared();
    let mut plan = server.plan(json!([[call(
        "consult",
        json!({"question": "What is the answer?", "workspace": ws.path().display().to_string(),
               "files": ["notes.txt"], "site": "local", "url": page.url()})
    )]]));
    plan["elicit"] = json!("accept");
    let out = server.client(&plan);
    let result = &out["results"][0];
    assert_eq!(result["is_error"], false, "{result}");
    // The reply's text came back.
    let text = format!("{}{}", text_of(result), result["structured"]);
    assert!(text.contains("The answer is 42."), "{result}");
    // Nothing ran, nothing was asked, nothing changed.
    assert!(!ws.path().join("pwned.txt").exists());
    assert!(!ws.path().join("ran.txt").exists());
    assert_eq!(
        fs::read(ws.path().join("notes.txt")).unwrap(),
        b"CONSULT-TOKEN-7731 is in the notes\n"
    );
    assert!(out["asked"].as_array().unwrap().is_empty(), "{out}");
    // One message, with the question and the file.
    let received = page.received();
    assert_eq!(received.len(), 1, "{received:?}");
    assert!(received[0].contains("What is the answer?"));
    assert!(
        received[0].contains("CONSULT-TOKEN-7731"),
        "{}",
        received[0]
    );
}

#[test]
fn consult_sends_no_file_from_outside_the_workspace() {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    fs::create_dir(&ws).unwrap();
    let outside = root.path().join("outside.txt");
    fs::write(&outside, "OUTSIDE-SECRET-5521\n").unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("link.txt")).unwrap();
    let page = chat(vec![
        reply(&[done("a")]),
        reply(&[done("b")]),
        reply(&[done("c")]),
    ]);
    let server = Server::shared();
    let ask = |file: &str| {
        call(
            "consult",
            json!({"question": "Read it", "workspace": ws.display().to_string(),
                   "files": [file], "site": "local", "url": page.url()}),
        )
    };
    let out = server.client(&server.plan(json!([
        [ask("../outside.txt")],
        [ask(&outside.display().to_string())],
        [ask("link.txt")],
    ])));
    for (received, message) in page.received().iter().enumerate() {
        assert!(
            !message.contains("OUTSIDE-SECRET-5521"),
            "message {received} carried a file from outside the workspace: {out}"
        );
    }
    for result in out["results"].as_array().unwrap() {
        assert_eq!(result["is_error"], true, "not refused: {result}");
    }
}

#[test]
fn consult_with_a_file_that_does_not_exist_is_a_clear_error_and_sends_nothing() {
    let ws = ws_with(&[]);
    let page = chat(vec![reply(&[done("ok")])]);
    let server = Server::shared();
    let out = server.client(&server.plan(json!([[call(
        "consult",
        json!({"question": "Read it", "workspace": ws.path().display().to_string(),
               "files": ["missing-file.txt"], "site": "local", "url": page.url()})
    )]])));
    assert_tool_error(&out["results"][0], &["missing-file.txt"]);
    assert_eq!(page.received_count(), 0);
}

#[test]
fn consult_sends_no_secret_of_a_file_it_attaches() {
    let token = format!("ghp_{}", "Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5");
    let ws = ws_with(&[(
        ".env",
        format!("GITHUB_TOKEN={token}\nNAME=demo\n").as_bytes(),
    )]);
    let page = chat(vec![reply(&[done("ok")])]);
    let server = Server::shared();
    let out = server.client(&server.plan(json!([[call(
        "consult",
        json!({"question": "What is configured?", "workspace": ws.path().display().to_string(),
               "files": [".env"], "site": "local", "url": page.url()})
    )]])));
    for message in page.received() {
        assert!(
            !message.contains(&token),
            "the token went to the chat: {out}"
        );
    }
    // Sent with the secret taken out, or refused whole: never sent as it is.
    let result = &out["results"][0];
    let sent = page.received().iter().any(|m| m.contains("NAME=demo"));
    assert!(
        sent || result["is_error"] == true,
        "{result} {:?}",
        page.received()
    );
}

// =============================================================================================
// status and undo.

#[test]
fn status_and_undo_put_back_exact_bytes_and_say_when_there_is_nothing_to_undo() {
    // Bytes a text tool might change: CRLF line ends, no final newline, invalid UTF-8, a BOM.
    let crlf: &[u8] = b"\xEF\xBB\xBFline one\r\nold line\r\nlast, no newline";
    let binary: &[u8] = b"\xff\xfe\x00raw\x00bytes\r\n\xc3";
    let ws = ws_with(&[("crlf.txt", crlf), ("blob.bin", binary)]);
    let page = chat(vec![reply(&[
        "@@editfile crlf.txt\n<<<FIND\nold line\nFIND>>>\n<<<REPLACE\nnew line\nREPLACE>>>\n@@end\n"
            .to_string(),
        "@@deletefile blob.bin\n@@end\n".to_string(),
        newfile("fresh.txt", "fresh\n"),
        done("changed three files"),
    ])]);
    let server = Server::shared();
    let w = ws.path().display().to_string();
    let mut args = task_args(&page, ws.path(), "Change them", "auto");
    args["pace"] = json!("batch");
    let out = server.client(&server.plan(json!([
        [call("run_task", args)],
        [call("status", json!({"workspace": w}))],
        [call("undo", json!({"workspace": w}))],
        [call("undo", json!({"workspace": w}))],
        [call("status", json!({"workspace": w}))],
    ])));
    let results = out["results"].as_array().unwrap();
    assert_eq!(result_of(&results[0])["stop"], "done", "{}", results[0]);
    // Before the undo, status says what undo would put back.
    let before = result_of(&results[1]);
    assert_eq!(results[1]["is_error"], false, "{}", results[1]);
    assert!(
        !before["undo"].is_null(),
        "status shows nothing to undo: {before}"
    );
    // The undo puts back every byte, and takes the new file away.
    assert_eq!(results[2]["is_error"], false, "{}", results[2]);
    assert_eq!(fs::read(ws.path().join("crlf.txt")).unwrap(), crlf);
    assert_eq!(fs::read(ws.path().join("blob.bin")).unwrap(), binary);
    assert!(!ws.path().join("fresh.txt").exists());
    assert!(
        !result_of(&results[2])["actions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // A second undo has nothing to put back and changes nothing.
    assert_eq!(fs::read(ws.path().join("crlf.txt")).unwrap(), crlf);
    let again = result_of(&results[3]);
    assert!(again["batch"].is_null(), "{again}");
    assert!(again["actions"].as_array().unwrap().is_empty(), "{again}");
    assert!(result_of(&results[4])["undo"].is_null(), "{}", results[4]);
}

#[test]
fn undo_with_nothing_to_undo_says_so_in_words() {
    let ws = ws_with(&[]);
    let server = Server::shared();
    let out = server.client(&server.plan(json!([[call(
        "undo",
        json!({"workspace": ws.path().display().to_string()})
    )]])));
    let text = text_of(&out["results"][0]).to_lowercase();
    assert!(text.contains("nothing to undo"), "{text}");
}

// =============================================================================================
// A client that goes away mid-task.

/// Live processes whose command line is exactly `line` (arguments joined by spaces).
fn processes_running(line: &str) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|(_, l)| l.trim_end() == line)
        .map(|(pid, _)| pid)
        .collect()
}

/// Browsers on a profile, killed when the test ends however it ends (a browser a test's server
/// left behind is the test's to end).
struct BrowserReaper(PathBuf);

impl Drop for BrowserReaper {
    fn drop(&mut self) {
        for (pid, _) in browsers_on(&self.0) {
            // SAFETY: kill has no preconditions; the pid is a browser on this test's profile.
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
    }
}

/// A task whose command (`sleep 29`, this module's own mark) is running when its client is
/// killed; returns once the client is dead, with the server's process id.
fn kill_the_client_mid_task(server: &Server, page: &LocalChat, ws: &Path) -> u32 {
    let mark = server.dir.path().join("reply-seen");
    let mut plan = server.plan(json!([[call(
        "run_task",
        task_args(page, ws, "Write and wait", "autosafe")
    )]]));
    plan["mark_on_progress"] = json!(mark.display().to_string());
    plan["mark_on_type"] = json!("reply_received");
    server.tell_pid(&mut plan);
    let file = server.dir.path().join("plan-killed.json");
    fs::write(&file, plan.to_string()).unwrap();
    let mut client = Command::new(python())
        .arg(CLIENT)
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = server.pid();
    assert!(
        wait_for(Duration::from_secs(60), || mark.exists()),
        "no reply came: {}",
        server.stderr()
    );
    assert!(
        wait_for(Duration::from_secs(20), || !processes_running("sleep 29")
            .is_empty()),
        "the command never started: {}",
        server.stderr()
    );
    client.kill().unwrap();
    client.wait().unwrap();
    pid
}

/// The script of a task killed mid-command, and of the tasks after it.
fn killed_task_chat() -> LocalChat {
    chat(vec![
        reply(&[newfile("a.txt", "a\n"), run("sleep 29"), next()]),
        reply(&[done("first turn over")]),
        reply(&[done("second task over")]),
        reply(&[done("third")]),
    ])
}

#[test]
fn a_client_killed_mid_task_stops_the_server_and_its_command_and_the_workspace_goes_on() {
    let page = killed_task_chat();
    let ws = ws_with(&[]);
    let server = Server::shared();
    let pid = kill_the_client_mid_task(&server, &page, ws.path());

    // The server goes, and takes the command with it.
    assert!(
        wait_for(Duration::from_secs(20), || !alive(pid)),
        "the server outlived its client by 20 s: {}",
        server.stderr()
    );
    assert!(
        wait_for(Duration::from_secs(10), || processes_running("sleep 29")
            .is_empty()),
        "the model's command outlived the server: {:?}",
        processes_running("sleep 29")
    );
    assert_eq!(fs::read(ws.path().join("a.txt")).unwrap(), b"a\n");

    // The workspace is free and consistent: status reads it, and a new server works in it.
    let status = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["status", "--json", "--workspace"])
        .arg(ws.path())
        .env("XDG_CONFIG_HOME", server.dir.path().join("config"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    // No keyless works there now; the saved turn shows the batch it stopped in, to resume: the
    // command cut off as cancelled (the server stopped it as Ctrl+C would), its results kept
    // to be sent.
    assert!(status["running_pid"].is_null(), "{status}");
    assert_eq!(status["session"]["pending_what"], "results", "{status}");
    assert!(
        status["session"]["done"]
            .as_array()
            .is_some_and(|d| d.iter().any(|l| l == "runcommand sleep 29: KA_CANCELLED")),
        "{status}"
    );
    // Another task is refused with what to do; the same task goes on where it stopped.
    let again = Server::shared();
    let out = again.client(&again.plan(json!([
        [call(
            "run_task",
            task_args(&page, ws.path(), "Go on", "autosafe")
        )],
        [call(
            "run_task",
            task_args(&page, ws.path(), "Write and wait", "autosafe")
        )],
    ])));
    let other = &out["results"][0];
    assert_tool_error(other, &["new_chat"]);
    let same = &out["results"][1];
    assert_eq!(same["is_error"], false, "{same}");
    assert_eq!(result_of(same)["stop"], "done", "{same}");
    assert_eq!(result_of(same)["message"], "first turn over", "{same}");
    // Nothing ran twice: the command cut off is told as such, not run again.
    assert!(progress_of(same, "command").is_empty(), "{same}");
    let told = page.received();
    assert!(
        told[1].contains("sleep 29") && told[1].contains("KA_CANCELLED"),
        "{told:?}"
    );
}

#[test]
fn a_server_whose_task_failed_to_open_its_page_leaves_no_browser_behind() {
    let ws = ws_with(&[]);
    let server = Server::launching();
    let _reaper = BrowserReaper(server.profile());
    // Port 1 is one the browser refuses: the page never loads.
    let out = server.client(&server.plan(json!([[call(
        "run_task",
        json!({"task": "x", "workspace": ws.path().display().to_string(),
               "url": "http://127.0.0.1:1/", "mode": "ask"})
    )]])));
    let result = &out["results"][0];
    assert_tool_error(result, &["KA_PAGE_NOT_LOADED"]);
    assert!(
        wait_for(Duration::from_secs(10), || browsers_on(&server.profile())
            .is_empty()),
        "the server's browser outlived it: {:?}",
        browsers_on(&server.profile())
    );
}

#[test]
fn two_calls_at_once_that_fail_to_open_their_page_leave_no_browser_behind() {
    // Not every time: three tries.
    for _ in 0..3 {
        two_failing_calls_at_once();
    }
}

fn two_failing_calls_at_once() {
    let ws = ws_with(&[]);
    let ws2 = ws_with(&[]);
    let failing = |ws: &Path| {
        call(
            "run_task",
            json!({"task": "x", "workspace": ws.display().to_string(),
                   "url": "http://127.0.0.1:1/", "mode": "ask"}),
        )
    };
    let server = Server::launching();
    let _reaper = BrowserReaper(server.profile());
    let stop = Arc::new(AtomicBool::new(false));
    let counter = count_browsers(server.profile(), Arc::clone(&stop));
    let out = server.client(&server.plan(json!([[failing(ws.path()), failing(ws2.path())]])));
    for result in out["results"].as_array().unwrap() {
        assert_tool_error(result, &["KA_PAGE_NOT_LOADED"]);
    }
    let left = wait_for(Duration::from_secs(10), || {
        browsers_on(&server.profile()).is_empty()
    });
    stop.store(true, Ordering::SeqCst);
    let most = counter.join().unwrap();
    assert!(
        left,
        "the server's browser outlived it: {:?} (at most {} at once)",
        browsers_on(&server.profile()),
        most.len()
    );
}

#[test]
fn a_client_killed_mid_task_leaves_no_browser_behind() {
    let page = killed_task_chat();
    let ws = ws_with(&[]);
    let server = Server::launching();
    let _reaper = BrowserReaper(server.profile());
    let pid = kill_the_client_mid_task(&server, &page, ws.path());
    assert!(
        wait_for(Duration::from_secs(20), || !alive(pid)),
        "the server outlived its client by 20 s: {}",
        server.stderr()
    );
    assert!(
        wait_for(Duration::from_secs(10), || browsers_on(&server.profile())
            .is_empty()),
        "the server's browser outlived it: {:?}",
        browsers_on(&server.profile())
    );
}

// =============================================================================================
// A task with a done-check (`until`).

fn with_until(mut args: Value, until: &str) -> Value {
    args["until"] = json!(until);
    args
}

#[test]
fn a_failing_done_check_goes_back_to_the_model_and_the_loop_goes_on() {
    let page = chat(vec![
        reply(&[done("first try")]),
        reply(&[newfile("fixed.txt", "fixed\n"), done("second try")]),
    ]);
    let ws = ws_with(&[]);
    let server = Server::shared();
    let out = server.client(&server.plan(json!([[call(
        "run_task",
        with_until(
            task_args(&page, ws.path(), "Make fixed.txt", "ask"),
            "cat fixed.txt"
        )
    )]])));
    let result = &out["results"][0];
    let r = result_of(result);
    assert_eq!(r["stop"], "done", "{result}");
    assert_eq!(r["message"], "second try", "{result}");
    // The check ran twice: failed, then passed; both in the events.
    let checks = progress_of(result, "done_check");
    let statuses: Vec<&Value> = checks.iter().map(|c| &c["status"]).collect();
    assert_eq!(statuses, [&json!("error"), &json!("ok")], "{result}");
    assert_eq!(checks[0]["code"], "KA_DONE_CHECK_FAILED");
    assert_eq!(checks[0]["command"], "cat fixed.txt");
    // The model got the check's own output.
    let received = page.received();
    assert_eq!(received.len(), 2, "{received:?}");
    assert!(
        received[1].contains("fixed.txt: No such file"),
        "the check's output did not go back: {}",
        received[1]
    );
    // The summary carries the check's outcome (in the events and in the result).
    let summary = progress_of(result, "summary")[0];
    assert_eq!(summary["check"]["command"], "cat fixed.txt", "{summary}");
    assert_eq!(summary["check"]["runs"], 2, "{summary}");
    assert_eq!(summary["check"]["passed"], true, "{summary}");
}

#[test]
fn the_results_summary_carries_the_done_check() {
    let page = chat(vec![
        reply(&[done("first try")]),
        reply(&[newfile("fixed.txt", "fixed\n"), done("second try")]),
    ]);
    let ws = ws_with(&[]);
    let server = Server::shared();
    let out = server.client(&server.plan(json!([[call(
        "run_task",
        with_until(
            task_args(&page, ws.path(), "Make fixed.txt", "ask"),
            "cat fixed.txt"
        )
    )]])));
    let r = result_of(&out["results"][0]);
    assert_eq!(r["summary"]["check"]["runs"], 2, "{r}");
    assert_eq!(r["summary"]["check"]["passed"], true, "{r}");
}

#[test]
fn a_done_check_that_always_fails_stops_at_the_iteration_limit() {
    let page = chat(
        (0..8)
            .map(|i| reply(&[done(&format!("done {i}"))]))
            .collect(),
    );
    let ws = ws_with(&[(
        "keyless.json",
        br#"{"Limits": {"MaxIterationsPerTurn": 3}}"#,
    )]);
    let server = Server::shared();
    let started = Instant::now();
    let out = server.client(&server.plan(json!([[call(
        "run_task",
        with_until(task_args(&page, ws.path(), "Never good", "ask"), "false")
    )]])));
    let result = &out["results"][0];
    let r = result_of(result);
    assert_eq!(r["stop"], "iterations", "{result}");
    assert_eq!(r["exit_status"], 3, "{result}");
    assert!(page.received_count() <= 3, "{:?}", page.received());
    let checks = progress_of(result, "done_check");
    assert!(!checks.is_empty() && checks.len() <= 3, "{result}");
    assert!(checks.iter().all(|c| c["status"] == "error"), "{result}");
    let summary = progress_of(result, "summary")[0];
    assert_eq!(summary["check"]["passed"], false, "{summary}");
    assert!(started.elapsed() < Duration::from_secs(120));
}

#[test]
fn a_done_check_that_hangs_is_bounded_by_the_longest_command_timeout() {
    let page = chat(
        (0..4)
            .map(|i| reply(&[done(&format!("done {i}"))]))
            .collect(),
    );
    let ws = ws_with(&[("keyless.json", SHORT_TIMEOUTS)]);
    let server = Server::shared();
    let started = Instant::now();
    let out = server.client(&server.plan(json!([[call(
        "run_task",
        with_until(task_args(&page, ws.path(), "Hang", "ask"), "sleep 600")
    )]])));
    let elapsed = started.elapsed();
    let result = &out["results"][0];
    assert_timed_out(&progress_of(result, "done_check"));
    assert_eq!(result_of(result)["stop"], "iterations", "{result}");
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    assert!(processes_running("sleep 600").is_empty());
}

// =============================================================================================
// `keyless run --until` from the command line.

/// Runs `keyless run --json <args>` on `page` in `ws` and returns (exit code, events, stderr).
fn run_json(page: &LocalChat, ws: &Path, args: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    let out = keyless_on(page, ws, profile.path(), &all).output().unwrap();
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    (
        out.status.code(),
        events,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn events_of<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The issue's own case: the model's first `@@done` leaves a failing test, the check's failure
/// goes back, and the model fixes it.
#[test]
fn run_until_from_the_cli_gives_the_failure_back_and_reports_the_check() {
    let check = "#!/bin/sh\ngot=$(sh add.sh 2 2)\n[ \"$got\" = 4 ] || { echo \"TEST FAILED: expected 4, got $got\"; exit 1; }\necho passed\n";
    let ws = ws_with(&[("check.sh", check.as_bytes())]);
    let page = chat(vec![
        reply(&[newfile("add.sh", "echo $(($1 + $2 + 1))\n"), done("added")]),
        reply(&[
            "@@updatefile add.sh\n<<<CONTENT\necho $(($1 + $2))\nCONTENT>>>\n@@end\n".to_string(),
            done("fixed the off-by-one"),
        ]),
    ]);
    let (code, events, stderr) = run_json(
        &page,
        ws.path(),
        &[
            "--mode",
            "autosafe",
            "--until",
            "sh check.sh",
            "Write add.sh",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let checks = events_of(&events, "done_check");
    assert_eq!(checks.len(), 2, "{events:?}");
    assert_eq!(checks[0]["status"], "error");
    assert_eq!(checks[0]["code"], "KA_DONE_CHECK_FAILED");
    assert_eq!(checks[0]["command"], "sh check.sh");
    assert_eq!(checks[1]["status"], "ok");
    assert_eq!(checks[1]["code"], Value::Null);
    // Each check follows its batch's commands and comes before the batch's event.
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let first_check = kinds.iter().position(|k| *k == "done_check").unwrap();
    assert_eq!(kinds[first_check + 1], "batch", "{kinds:?}");
    assert_eq!(events_of(&events, "batch")[0]["done"], "not_honoured");
    let received = page.received();
    assert!(
        received[1].contains("TEST FAILED: expected 4, got 5"),
        "{}",
        received[1]
    );
    let summary = events_of(&events, "summary")[0];
    assert_eq!(summary["check"]["command"], "sh check.sh", "{summary}");
    assert_eq!(summary["check"]["runs"], 2);
    assert_eq!(summary["check"]["passed"], true);
    let finished = events.last().unwrap();
    assert_eq!(finished["stop"], "done");
    assert_eq!(finished["message"], "fixed the off-by-one");
    assert_eq!(
        fs::read(ws.path().join("add.sh")).unwrap(),
        b"echo $(($1 + $2))\n"
    );
}

#[test]
fn run_until_from_the_cli_that_always_fails_stops_at_the_limit_with_exit_3() {
    let ws = ws_with(&[(
        "keyless.json",
        br#"{"Limits": {"MaxIterationsPerTurn": 2}}"#,
    )]);
    let page = chat(
        (0..5)
            .map(|i| reply(&[done(&format!("done {i}"))]))
            .collect(),
    );
    let (code, events, stderr) = run_json(&page, ws.path(), &["--until", "exit 7", "Never good"]);
    assert_eq!(code, Some(3), "{stderr}");
    let finished = events.last().unwrap();
    assert_eq!(finished["stop"], "iterations", "{finished}");
    assert!(page.received_count() <= 2);
    let checks = events_of(&events, "done_check");
    assert!(checks.iter().all(|c| c["status"] == "error"), "{checks:?}");
    assert!(
        checks[0]["details"].to_string().contains('7'),
        "the check's exit code is not in its details: {}",
        checks[0]
    );
}

/// The configuration of the hanging-check tests. A done-check is bounded by
/// `Commands.MaxTimeoutSeconds` (as measured: with `TimeoutSeconds` 2 alone, `sleep 600` ran its
/// whole 600 s), so both are small here.
const SHORT_TIMEOUTS: &[u8] =
    br#"{"Limits": {"MaxIterationsPerTurn": 2}, "Commands": {"TimeoutSeconds": 2, "MaxTimeoutSeconds": 3}}"#;

/// The done-check events' reasons say the check was stopped at its timeout.
fn assert_timed_out(checks: &[&Value]) {
    assert!(!checks.is_empty());
    for check in checks {
        assert_eq!(check["status"], "error", "{check}");
        assert_eq!(check["code"], "KA_DONE_CHECK_FAILED", "{check}");
        assert!(
            check["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("KA_TIMEOUT"),
            "{check}"
        );
    }
}

#[test]
fn run_until_from_the_cli_bounds_a_check_that_hangs() {
    let ws = ws_with(&[("keyless.json", SHORT_TIMEOUTS)]);
    let page = chat(
        (0..4)
            .map(|i| reply(&[done(&format!("done {i}"))]))
            .collect(),
    );
    let started = Instant::now();
    let (code, events, stderr) = run_json(&page, ws.path(), &["--until", "sleep 600", "Hang"]);
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(60),
        "took {elapsed:?}: {stderr}"
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert_timed_out(&events_of(&events, "done_check"));
    assert!(processes_running("sleep 600").is_empty());
}

#[test]
fn a_timed_out_done_check_gives_the_model_no_advice_it_cannot_take() {
    let ws = ws_with(&[("keyless.json", SHORT_TIMEOUTS)]);
    let page = chat(
        (0..4)
            .map(|i| reply(&[done(&format!("done {i}"))]))
            .collect(),
    );
    let (_, events, _) = run_json(&page, ws.path(), &["--until", "sleep 600", "Hang"]);
    assert_timed_out(&events_of(&events, "done_check"));
    for message in page.received().iter().skip(1) {
        assert!(!message.contains("@@runcommand timeout"), "{message}");
    }
}

// =============================================================================================
// `keyless mcp --print-config`.

/// `keyless mcp --print-config <client> <args>` run in `cwd`: its standard output.
fn print_config(cwd: &Path, client: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_keyless"))
        .args(["mcp", "--print-config", client])
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The JSON object of a snippet: from its first line that opens one to the end.
fn json_part(snippet: &str) -> Value {
    let start = snippet
        .lines()
        .position(|l| l.trim_start().starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON in {snippet}"));
    let text: Vec<&str> = snippet.lines().skip(start).collect();
    serde_json::from_str(&text.join("\n")).unwrap_or_else(|e| panic!("{e}: {snippet}"))
}

/// A snippet's TOML, read by Python's own TOML reader (tomllib), as JSON.
fn toml_part(snippet: &str) -> Value {
    let out = Command::new(python())
        .args([
            "-c",
            "import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(snippet.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        out.status.success(),
        "not TOML: {}\n{snippet}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The server entry of each client's snippet: (command, args).
fn entries(cwd: &Path, args: &[&str]) -> Vec<(String, Value, Value)> {
    let claude = json_part(&print_config(cwd, "claude", args));
    let cursor = json_part(&print_config(cwd, "cursor", args));
    let codex = toml_part(&print_config(cwd, "codex", args));
    vec![
        (
            "claude".to_string(),
            claude["mcpServers"]["keyless"]["command"].clone(),
            claude["mcpServers"]["keyless"]["args"].clone(),
        ),
        (
            "cursor".to_string(),
            cursor["mcpServers"]["keyless"]["command"].clone(),
            cursor["mcpServers"]["keyless"]["args"].clone(),
        ),
        (
            "codex".to_string(),
            codex["mcp_servers"]["keyless"]["command"].clone(),
            codex["mcp_servers"]["keyless"]["args"].clone(),
        ),
    ]
}

#[test]
fn print_config_gives_json_and_toml_that_parse_and_keep_awkward_arguments_whole() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("my work's \"dir\" & more");
    fs::create_dir(&ws).unwrap();
    let ws_text = ws.display().to_string();
    let url = "http://127.0.0.1:9/chat?a=1&b=2";
    let args = [
        "--workspace",
        ws_text.as_str(),
        "--url",
        url,
        "--mode",
        "autosafe",
        "--headless",
    ];
    for (client, command, got) in entries(dir.path(), &args) {
        assert!(command.is_string(), "{client}: {command}");
        let got: Vec<&str> = got
            .as_array()
            .unwrap_or_else(|| panic!("{client}: {got}"))
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert_eq!(got[0], "mcp", "{client}");
        for arg in args {
            assert!(got.contains(&arg), "{client}: {arg:?} not whole in {got:?}");
        }
    }
}

#[test]
fn print_config_claudes_command_line_survives_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("my work's dir & more");
    fs::create_dir(&ws).unwrap();
    let ws_text = ws.display().to_string();
    let snippet = print_config(dir.path(), "claude", &["--workspace", &ws_text]);
    let line = snippet
        .lines()
        .find(|l| l.trim_start().starts_with("claude mcp add"))
        .unwrap_or_else(|| panic!("{snippet}"));
    // The shell's own reading of the line: each word on a line of its own.
    let words = Command::new("sh")
        .arg("-c")
        .arg(format!("claude() {{ printf '%s\\n' \"$@\"; }}; {line}"))
        .output()
        .unwrap();
    let words = String::from_utf8_lossy(&words.stdout);
    assert!(
        words.lines().any(|w| w == ws_text),
        "the workspace is not one word of {line:?}: {words}"
    );
}

#[test]
fn print_config_makes_relative_paths_absolute() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("proj")).unwrap();
    fs::write(dir.path().join("proj/k.json"), "{}").unwrap();
    for (client, _, got) in entries(
        dir.path(),
        &["--workspace", "proj", "--config", "proj/k.json"],
    ) {
        let got: Vec<&str> = got
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let after = |flag: &str| {
            got.iter()
                .position(|a| *a == flag)
                .map(|i| got[i + 1])
                .unwrap_or_else(|| panic!("{client}: no {flag} in {got:?}"))
        };
        assert_eq!(
            Path::new(after("--workspace")),
            dir.path().join("proj"),
            "{client}"
        );
        assert_eq!(
            Path::new(after("--config")),
            dir.path().join("proj/k.json"),
            "{client}"
        );
    }
}

#[test]
fn print_config_names_a_command_that_starts_this_keyless() {
    let dir = tempfile::tempdir().unwrap();
    for (client, command, _) in entries(dir.path(), &[]) {
        let command = command.as_str().unwrap().to_string();
        // Copied into a client that starts it with a plain PATH, it must be found.
        let found = Command::new("sh")
            .arg("-c")
            .arg("command -v \"$1\"")
            .arg("sh")
            .arg(&command)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .output()
            .unwrap();
        let found = String::from_utf8_lossy(&found.stdout).trim().to_string();
        assert!(!found.is_empty(), "{client}: {command:?} is not found");
        assert_eq!(
            fs::canonicalize(&found).unwrap(),
            fs::canonicalize(env!("CARGO_BIN_EXE_keyless")).unwrap(),
            "{client}: {command:?} is another program"
        );
    }
}

#[test]
fn print_config_serves_when_copied() {
    // The snippet's command and arguments, run as a client runs them, serve MCP.
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("a workspace");
    fs::create_dir(&ws).unwrap();
    let ws_text = ws.display().to_string();
    let cursor = json_part(&print_config(
        dir.path(),
        "cursor",
        &["--workspace", &ws_text, "--headless"],
    ));
    let args = cursor["mcpServers"]["keyless"]["args"].clone();
    let server = Server::shared();
    let mut plan = server.plan(json!([[call("status", json!({"workspace": ws_text}))]]));
    plan["args"] = args;
    let out = server.client(&plan);
    let result = &out["results"][0];
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(
        Path::new(result_of(result)["workspace"].as_str().unwrap()),
        ws
    );
}

// =============================================================================================
// More of the same server at once.

#[test]
fn undo_while_a_task_works_in_the_workspace_is_refused_and_the_task_is_unharmed() {
    let page = chat(vec![
        reply(&[newfile("made.txt", "made\n"), next()]),
        reply(&[run("sleep 6"), next()]),
        reply(&[done("finished")]),
    ]);
    let ws = ws_with(&[]);
    let server = Server::shared();
    let w = ws.path().display().to_string();
    let mut undo = call("undo", json!({"workspace": w}));
    // By then the first batch is done and `sleep 6` runs.
    undo["delay"] = json!(4);
    let out = server.client(&server.plan(json!([[
        call(
            "run_task",
            task_args(&page, ws.path(), "Make and wait", "autosafe")
        ),
        undo,
    ]])));
    let task = &out["results"][0];
    let undo = &out["results"][1];
    assert_eq!(result_of(task)["stop"], "done", "{task}");
    assert_eq!(
        fs::read(ws.path().join("made.txt")).unwrap(),
        b"made\n",
        "the undo took the task's file away under it: {undo}"
    );
    assert_tool_error(undo, &["working", &ws.path().display().to_string()]);
}

#[test]
fn run_task_without_a_progress_token_still_works() {
    let page = chat(vec![reply(&[newfile("quiet.txt", "q\n"), done("quiet")])]);
    let ws = ws_with(&[]);
    let server = Server::shared();
    let mut c = call("run_task", task_args(&page, ws.path(), "Quietly", "ask"));
    c["progress"] = json!(false);
    let out = server.client(&server.plan(json!([[c]])));
    let result = &out["results"][0];
    assert_eq!(result_of(result)["stop"], "done", "{result}");
    assert!(result["progress"].as_array().unwrap().is_empty());
    assert_eq!(fs::read(ws.path().join("quiet.txt")).unwrap(), b"q\n");
}
