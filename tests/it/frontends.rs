//! Real chat front-ends nobody here wrote (issue 24), from PyPI at pinned versions
//! (`tests/frontends/requirements.txt`, installed into `target/tmp/frontends-venv` on first
//! use): Gradio's chat interface and Streamlit's chat elements, each served on this machine with
//! a scripted model (`tests/frontends/scripted.py`: its replies from a file, and every message
//! it receives recorded as it received it). keyless drives them through `keyless run --url` with
//! no selectors at all (discovery), attached to the shared browser: a task in two batches with
//! hostile file content, a truncated reply, a 30,000-character task, an unfenced reply. Each
//! checks the files byte for byte, that nothing was sent twice (the model's own record), and
//! what keyless says about the page.
//!
//! Deep Chat (`deep-chat` from npm, pinned by `tests/deepchat/package-lock.json` and installed
//! there with `npm ci` on first use) is a front-end built as a web component: its whole chat,
//! composer, send button and messages, sits in its own open shadow root. It is served by
//! `tests/frontends/deepchat_server.py` with the same scripted model, its replies streamed as
//! server-sent events.
//!
//! Chainlit (PyPI, its own virtual environment: `tests/frontends/requirements-chainlit.txt`)
//! streams its replies over Socket.IO and draws code blocks with no `<pre>`, each with a header
//! of a label and a copy button of its own beside the message's own copy button.
//!
//! One fact of Gradio's is a limit, not a failure: it replaces tabs with spaces in everything it
//! shows and copies (its code blocks and its copy button alike), so a reply's tabs cannot be
//! read there; the hostile content on Gradio has none (`keyless doctor --canary` reports that
//! channel as not exact).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::local_keyless::{attached, keyless_at};

/// How long a front-end may take to start serving.
const START: Duration = Duration::from_secs(90);

/// The virtual environment with the front-ends, made once per machine (pip from the pinned
/// requirements).
fn venv() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        crate::common::venv::pinned("frontends-venv", "tests/frontends/requirements.txt")
    })
}

/// The virtual environment with the front-ends that draw replies on their server (Panel,
/// NiceGUI), kept apart from Gradio's and Streamlit's so that their pins never fight.
fn more_venv() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        crate::common::venv::pinned(
            "frontends-more-venv",
            "tests/frontends/requirements-more.txt",
        )
    })
}

/// The virtual environment with Chainlit, apart from the others (its pins are many).
fn chainlit_venv() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        crate::common::venv::pinned(
            "frontends-chainlit-venv",
            "tests/frontends/requirements-chainlit.txt",
        )
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Gradio,
    Streamlit,
    DeepChat,
    Chatscope,
    NiceGui,
    Panel,
    Chainlit,
}

impl Kind {
    /// Whether the page draws the user's turn as Markdown (keyless sees its message altered
    /// once, and fences the rest).
    fn draws_user_markdown(self) -> bool {
        matches!(
            self,
            Kind::Gradio | Kind::Streamlit | Kind::NiceGui | Kind::Panel
        )
    }
}

/// chatscope's kit, installed from its lock file and bundled by esbuild once per machine.
fn chatscope() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chatscope");
        if !folder
            .join("node_modules/@chatscope/chat-ui-kit-react/package.json")
            .exists()
        {
            let installed = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&folder)
                .status()
                .unwrap();
            assert!(installed.success(), "npm ci in tests/chatscope failed");
        }
        if !folder.join("dist/app.js").exists() {
            let built = Command::new("npm")
                .args(["run", "build"])
                .current_dir(&folder)
                .status()
                .unwrap();
            assert!(built.success(), "npm run build in tests/chatscope failed");
        }
        folder
    })
}

/// Deep Chat's package, installed from its lock file once per machine.
fn deep_chat() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/deepchat");
        if !folder
            .join("node_modules/deep-chat/dist/deepChat.bundle.js")
            .exists()
        {
            let installed = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&folder)
                .status()
                .unwrap();
            assert!(installed.success(), "npm ci in tests/deepchat failed");
        }
        folder
    })
}

/// A front-end serving on this machine, with its scripted model.
struct FrontEnd {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl FrontEnd {
    fn start(kind: Kind, replies: &[String]) -> FrontEnd {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("script.json"),
            serde_json::to_string(replies).unwrap(),
        )
        .unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let apps = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frontends");
        let mut command = match kind {
            Kind::Gradio => {
                let mut c = Command::new(venv().join("bin/python"));
                c.arg(apps.join("gradio_app.py")).arg(port.to_string());
                c
            }
            Kind::Streamlit => {
                let mut c = Command::new(venv().join("bin/streamlit"));
                c.arg("run")
                    .arg(apps.join("streamlit_app.py"))
                    .args(["--server.address", "127.0.0.1", "--server.port"])
                    .arg(port.to_string())
                    .args([
                        "--server.headless",
                        "true",
                        "--browser.gatherUsageStats",
                        "false",
                    ]);
                c
            }
            Kind::DeepChat => {
                deep_chat();
                let mut c = Command::new("python3");
                c.arg(apps.join("deepchat_server.py")).arg(port.to_string());
                c
            }
            Kind::Chatscope => {
                chatscope();
                let mut c = Command::new("python3");
                c.arg(apps.join("chatscope_server.py"))
                    .arg(port.to_string());
                c
            }
            Kind::Chainlit => {
                let mut c = Command::new(chainlit_venv().join("bin/chainlit"));
                c.arg("run")
                    .arg(apps.join("chainlit_app.py"))
                    .args(["--headless", "--host", "127.0.0.1", "--port"])
                    .arg(port.to_string())
                    // Chainlit writes its config and its welcome page where it runs.
                    .current_dir(dir.path())
                    // A token a character, as a model streams a fence: its stream starts with a
                    // lone backtick, which the wire cannot tell from a doubled first piece, so
                    // the reply must be read through the message's own copy button.
                    .env("KEYLESS_FE_CHUNK", "1");
                c
            }
            Kind::NiceGui | Kind::Panel => {
                let app = if kind == Kind::NiceGui {
                    "nicegui_app.py"
                } else {
                    "panel_app.py"
                };
                let mut c = Command::new(more_venv().join("bin/python"));
                c.arg(apps.join(app)).arg(port.to_string());
                c
            }
        };
        command
            .env("KEYLESS_FE_SCRIPT", dir.path().join("script.json"))
            .env("KEYLESS_FE_RECEIVED", dir.path().join("received.jsonl"))
            .env("GRADIO_ANALYTICS_ENABLED", "False")
            .env("HOME", dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(dir.path().join("server.log")).unwrap());
        let front = FrontEnd {
            child: command.spawn().unwrap(),
            port,
            dir,
        };
        let started = Instant::now();
        loop {
            let up = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok_and(|mut s| {
                use std::io::{Read, Write};
                let _ = s.write_all(b"GET / HTTP/1.0\r\n\r\n");
                let mut head = [0u8; 12];
                s.read_exact(&mut head).is_ok()
                    && head.starts_with(b"HTTP/1.")
                    && &head[9..12] == b"200"
            });
            if up {
                break front;
            }
            assert!(
                started.elapsed() < START,
                "{kind:?} did not start: {}",
                fs::read_to_string(front.dir.path().join("server.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// Every message the model received, as it received it.
    fn received(&self) -> Vec<String> {
        fs::read_to_string(self.dir.path().join("received.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for FrontEnd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `keyless run --url` on the front-end, knowing no site, in a fresh workspace whose keyless.json
/// adds `browser` to its `Browser` section; returns what keyless printed and the workspace.
fn run(front: &FrontEnd, task: &str, browser: &str) -> (String, Option<i32>, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    run_at(front, task, browser, home.path())
}

/// `run` with `home` as keyless's config folder and browser profile's parent (what it learns
/// stays there for the next run).
fn run_at(
    front: &FrontEnd,
    task: &str,
    browser: &str,
    home: &Path,
) -> (String, Option<i32>, tempfile::TempDir) {
    run_in(front, task, browser, home, attached)
}

/// `run` in a browser keyless launches for itself: for a page whose heavy work must not share
/// a renderer with the other tests' tabs.
fn run_alone(front: &FrontEnd, task: &str) -> (String, Option<i32>, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    run_in(front, task, "", home.path(), |cmd| cmd)
}

fn run_in(
    front: &FrontEnd,
    task: &str,
    browser: &str,
    home: &Path,
    browse: fn(std::process::Command) -> std::process::Command,
) -> (String, Option<i32>, tempfile::TempDir) {
    let ws = tempfile::tempdir().unwrap();
    // A reply that never comes ends a test in a minute, not in keyless's usual ten.
    let config = format!("{{ \"Browser\": {{ \"ReplyTimeoutSeconds\": 60{browser} }} }}");
    fs::write(ws.path().join("keyless.json"), config).unwrap();
    let out = browse(keyless_at(
        &front.url(),
        None,
        &home.join("browser"),
        home,
        &["run", task, "--mode", "auto", "--pace", "batch"],
    ))
    .arg("--workspace")
    .arg(ws.path())
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (text, out.status.code(), ws)
}

/// The reading channels the transcript records for the replies.
fn channels(ws: &Path) -> Vec<String> {
    fs::read_to_string(ws.join(".agent/transcript.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            v.get("channel")
                .and_then(|c| c.as_str())
                .map(str::to_string)
        })
        .collect()
}

/// Content a page could take for Markdown, HTML or AgentScript, and whitespace it could eat.
fn hostile(kind: Kind) -> String {
    let mut text = String::from(
        "# not a heading *stars* _under_ **bold** <b>tag</b> &amp; <script>alert(1)</script>\n```rust\nfn main() {}\n```\n    four leading spaces\ntrailing spaces   \n\n\nafter two blank lines\n@@end\nCONTENT>>>\n<<<CMD\n| a | b |\n|---|---|\n[link](http://example.com) ünïcödé ✓ 😀\n1. not a list\n> not a quote\n",
    );
    if matches!(kind, Kind::Streamlit | Kind::Chatscope) {
        text.push_str("\ttab\tinside\n");
    }
    text
}

fn fenced(body: &str) -> String {
    format!("`````\n{body}`````")
}

const DONE: &str = "```\n@@done\n<<<MSG\nFinished.\nMSG>>>\n@@end\n@@eof\n```";

fn two_batches_with_hostile_content(kind: Kind) {
    let content = hostile(kind);
    let first = fenced(&format!(
        "@@newfile hostile.md\n<<<CONTENT:n1\n{}CONTENT:n1>>>\n@@end\n@@runcommand\n<<<CMD\nwc -l hostile.md\nCMD>>>\n@@end\n@@eof\n",
        content
    ));
    let second = fenced(
        "@@editfile hostile.md\n<<<FIND\n    four leading spaces\nFIND>>>\n<<<REPLACE\n    four leading spaces, edited\nREPLACE>>>\n@@end\n@@eof\n",
    );
    let front = FrontEnd::start(kind, &[first, second, DONE.to_string()]);
    let (out, code, ws) = run(&front, "Write the hostile file, then edit it", "");
    assert_eq!(code, Some(0), "{out}");
    let expected = content.replace(
        "    four leading spaces\n",
        "    four leading spaces, edited\n",
    );
    let transcript =
        fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap_or_default();
    assert_eq!(
        fs::read_to_string(ws.path().join("hostile.md")).unwrap(),
        expected,
        "{out}\n{transcript}"
    );
    let received = front.received();
    assert_eq!(
        received.len(),
        3,
        "nothing sent twice: {received:#?}\n{out}"
    );
    // chatscope sends its composer's `innerText`, which ends in one more line break than the
    // message (the contenteditable's closing `<br>`).
    assert!(
        received[0]
            .trim_end()
            .ends_with("Task:\nWrite the hostile file, then edit it"),
        "{}",
        received[0]
    );
    assert!(
        received[1].contains("[KEYLESSAGENT RESULTS] turn=1 batch=1"),
        "{}",
        received[1]
    );
    assert!(
        received[2].contains("[KEYLESSAGENT RESULTS] turn=1 batch=2"),
        "{}",
        received[2]
    );
    if kind.draws_user_markdown() {
        // The page draws the user's turn as Markdown: where the request that carried the
        // message is heard and holds it exactly, that is how the model got it, and nothing is
        // said or fenced; where it is not heard (a binary socket), the drawing is all keyless
        // has: it says so once, and fences what follows.
        let told = out.matches("KA_MESSAGE_ALTERED").count();
        let fenced = received[1].starts_with("~~~~\n") && received[2].starts_with("~~~~\n");
        let plain = !received[1].starts_with("~~~~") && !received[2].starts_with("~~~~");
        assert!(
            (told == 1 && fenced) || (told == 0 && plain),
            "told {told} times\n{}\n{out}",
            received[1]
        );
    } else {
        assert!(!out.contains("KA_MESSAGE_ALTERED"), "{out}");
    }
    let read = channels(ws.path());
    assert_eq!(read.len(), 3, "{read:?}\n{out}");
    assert!(!read.iter().any(|c| c == "rebuilt"), "{read:?}");
}

#[test]
fn gradio_carries_two_batches_of_hostile_content_exactly() {
    two_batches_with_hostile_content(Kind::Gradio);
}

#[test]
fn streamlit_carries_two_batches_of_hostile_content_exactly() {
    two_batches_with_hostile_content(Kind::Streamlit);
}

fn truncated_reply_is_asked_for_again(kind: Kind) {
    let cut = "```\n@@newfile a.txt\n<<<CONTENT\nthe first half".to_string();
    let whole = fenced("@@newfile a.txt\n<<<CONTENT\nthe whole file\nCONTENT>>>\n@@end\n@@eof\n");
    let front = FrontEnd::start(kind, &[cut, whole, DONE.to_string()]);
    let (out, code, ws) = run(&front, "Write a.txt", ", \"TruncationBudgetSeconds\": 2");
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "the whole file\n"
    );
    let received = front.received();
    assert_eq!(received.len(), 3, "{received:#?}\n{out}");
    assert!(
        received[1].contains("stopped before @@eof"),
        "{}",
        received[1]
    );
}

#[test]
fn gradio_asks_for_a_truncated_reply_again() {
    truncated_reply_is_asked_for_again(Kind::Gradio);
}

#[test]
fn streamlit_asks_for_a_truncated_reply_again() {
    truncated_reply_is_asked_for_again(Kind::Streamlit);
}

fn long_task_arrives_exactly(kind: Kind) {
    let mut task = String::from("Check the numbers below.\n");
    let mut i = 0;
    while task.len() < 30_000 {
        task.push_str(&format!("line {i}: value {} and a word or two  \n", i * 7));
        i += 1;
    }
    let front = FrontEnd::start(kind, &[DONE.to_string()]);
    let (out, code, _ws) = run(&front, &task, "");
    assert_eq!(code, Some(0), "{out}");
    let received = front.received();
    assert_eq!(received.len(), 1, "{out}");
    assert!(
        received[0].ends_with(&format!("Task:\n{}\n", task.trim())),
        "the task arrived altered\n{out}"
    );
}

#[test]
fn gradio_takes_a_30000_character_task_exactly() {
    long_task_arrives_exactly(Kind::Gradio);
}

#[test]
fn streamlit_takes_a_30000_character_task_exactly() {
    long_task_arrives_exactly(Kind::Streamlit);
}

/// An unfenced reply is executed only when a channel proves its bytes (Gradio's copy button
/// gives its Markdown source); otherwise (Streamlit draws it as prose, with no copy control) it
/// is never executed, and the model is asked for it fenced.
fn unfenced_reply(kind: Kind) -> (String, tempfile::TempDir, Vec<String>) {
    let unfenced = "@@runcommand\n<<<CMD\necho ran >> log.txt\nCMD>>>\n@@end\n@@eof\n".to_string();
    let again = "```\n@@runcommand\n<<<CMD\necho ran >> log.txt\nCMD>>>\n@@end\n@@done\n<<<MSG\nLogged.\nMSG>>>\n@@end\n@@eof\n```".to_string();
    let front = FrontEnd::start(kind, &[unfenced, again]);
    let (out, code, ws) = run(&front, "Log once", "");
    assert_eq!(code, Some(0), "{out}");
    (out, ws, front.received())
}

#[test]
fn gradio_reads_an_unfenced_reply_through_its_copy_button() {
    let (out, ws, received) = unfenced_reply(Kind::Gradio);
    assert_eq!(
        fs::read_to_string(ws.path().join("log.txt")).unwrap(),
        "ran\nran\n",
        "{out}"
    );
    assert_eq!(received.len(), 2, "{out}");
    assert!(
        channels(ws.path()).iter().all(|c| c == "copy_button"),
        "{out}"
    );
}

#[test]
fn streamlit_never_executes_an_unfenced_reply_it_cannot_read_exactly() {
    let (out, ws, received) = unfenced_reply(Kind::Streamlit);
    assert_eq!(
        fs::read_to_string(ws.path().join("log.txt")).unwrap(),
        "ran\n",
        "{out}"
    );
    assert_eq!(received.len(), 2, "{out}");
    // Read only as prose: not executed, and the model asked again.
    assert!(
        received[1].contains("[KEYLESSAGENT FORMAT ERROR]"),
        "{}\n{out}",
        received[1]
    );
}

/// `keyless doctor --learn` on a real front-end finishes within a minute with its report, and
/// what it learned serves the next run, which then needs no discovery.
fn doctor_learns(kind: Kind) {
    let front = FrontEnd::start(kind, &[DONE.to_string()]);
    let home = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let profile = home.path().join("browser");
    let out = attached(keyless_at(
        &front.url(),
        None,
        &profile,
        home.path(),
        &["doctor", "--learn", "--json"],
    ))
    .output()
    .unwrap();
    let took = started.elapsed();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        took < Duration::from_secs(60),
        "doctor took {took:?}: {report:#}"
    );
    assert!(
        report["canary"].as_array().is_some_and(|c| !c.is_empty()),
        "{report:#}"
    );
    assert!(report["learned"].is_object(), "{report:#}");
    let ws = tempfile::tempdir().unwrap();
    let out = attached(keyless_at(
        &front.url(),
        None,
        &profile,
        home.path(),
        &["run", "Nothing to do", "--mode", "auto"],
    ))
    .arg("--workspace")
    .arg(ws.path())
    .output()
    .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("using the selectors keyless learned on it"),
        "{text}"
    );
    assert!(
        !text.contains("KA_SELECTOR_NOT_FOUND"),
        "no discovery needed: {text}\n{report:#}"
    );
}

#[test]
fn doctor_learns_gradio_within_a_minute_and_the_next_run_needs_no_discovery() {
    doctor_learns(Kind::Gradio);
}

#[test]
fn doctor_learns_streamlit_within_a_minute_and_the_next_run_needs_no_discovery() {
    doctor_learns(Kind::Streamlit);
}

/// Deep Chat, every part inside its own open shadow root, driven with `--url` only: a task in
/// two batches writes its file byte for byte, and nothing is sent twice (the model's own
/// record); what the run learned crosses into the shadow root (`deep-chat >>> …`) and the next
/// run needs no discovery. Deep Chat has no copy control: its replies are read from the wire
/// (its server-sent events), proved by `@@eof` and by agreeing with the rendered turn. It sends
/// the composer's text trimmed, which keyless's messages survive.
///
/// Its composer (a plain contenteditable) does not keep a run of spaces inside a line as
/// keyless puts it in by any strategy: keyless then stops that message with
/// `KA_SEND_NOT_CONFIRMED`, nothing sent. The file here has no such run, since the results
/// message quotes the file's first and last characters (`first="…\n    four…"` would be one).
#[test]
fn deep_chat_in_its_shadow_root_carries_two_batches_exactly() {
    let content = "# not a heading *stars* _under_ <b>tag</b> &amp;\n\tindented by a tab\n  two leading spaces\ntrailing space \n\n\nafter two blank lines\n";
    let first = fenced(&format!(
        "@@newfile notes.md\n<<<CONTENT:n1\n{content}CONTENT:n1>>>\n@@end\n@@runcommand\n<<<CMD\nwc -l notes.md\nCMD>>>\n@@end\n@@eof\n"
    ));
    let second = fenced(
        "@@editfile notes.md\n<<<FIND\n\tindented by a tab\nFIND>>>\n<<<REPLACE\n\tindented by a tab, edited\nREPLACE>>>\n@@end\n@@eof\n",
    );
    let front = FrontEnd::start(
        Kind::DeepChat,
        &[first, second, DONE.to_string(), DONE.to_string()],
    );
    let home = tempfile::tempdir().unwrap();
    let (out, code, ws) = run_at(&front, "Write the notes, then edit them", "", home.path());
    let transcript =
        fs::read_to_string(ws.path().join(".agent/transcript.jsonl")).unwrap_or_default();
    assert_eq!(code, Some(0), "{out}\n{transcript}");
    assert_eq!(
        fs::read_to_string(ws.path().join("notes.md")).unwrap(),
        content.replace("\tindented by a tab\n", "\tindented by a tab, edited\n"),
        "{out}"
    );
    let received = front.received();
    assert_eq!(
        received.len(),
        3,
        "nothing sent twice: {received:#?}\n{out}"
    );
    assert!(
        received[0].contains("Task:\nWrite the notes, then edit them"),
        "{}",
        received[0]
    );
    assert!(
        received[1].contains("[KEYLESSAGENT RESULTS] turn=1 batch=1"),
        "{}",
        received[1]
    );
    assert!(
        received[2].contains("[KEYLESSAGENT RESULTS] turn=1 batch=2"),
        "{}",
        received[2]
    );
    let read = channels(ws.path());
    assert_eq!(read.len(), 3, "{read:?}\n{out}");
    assert!(!read.iter().any(|c| c == "rebuilt"), "{read:?}");
    // What the run learned crosses into Deep Chat's shadow root, and the next run finds every
    // part by it: no discovery.
    let learned = fs::read_to_string(home.path().join("keyless/learned-selectors.json")).unwrap();
    assert!(learned.contains("deep-chat >>> "), "{learned}");
    let (again, code, _ws) = run_at(&front, "Nothing to do", "", home.path());
    assert_eq!(code, Some(0), "{again}");
    assert!(
        again.contains("using the selectors keyless learned on it"),
        "{again}"
    );
    assert!(!again.contains("by its shape"), "{again}\n{learned}");
    assert_eq!(front.received().len(), 4, "{again}");
}

// --- Issue 30: a composer where Enter sends, an icon-only copy control, Markdown drawn on the
// server. ---

/// chatscope's kit (`@chatscope/chat-ui-kit-react` from npm, pinned by
/// `tests/chatscope/package-lock.json`, bundled by esbuild): its composer is a contenteditable
/// where Enter sends and only Shift+Enter breaks a line. keyless finds that out before it
/// sends, breaks lines with Shift+Enter, and reads the replies from the wire (the page's
/// streamed fetch body): the hostile content, tabs included, byte for byte.
#[test]
fn chatscope_where_enter_sends_carries_two_batches_of_hostile_content_exactly() {
    two_batches_with_hostile_content(Kind::Chatscope);
}

/// An unfenced reply on chatscope: the wire holds it exactly, so it is read and run once.
#[test]
fn chatscope_reads_an_unfenced_reply_from_the_wire() {
    let (out, ws, received) = unfenced_reply(Kind::Chatscope);
    assert_eq!(
        fs::read_to_string(ws.path().join("log.txt")).unwrap(),
        "ran\nran\n",
        "{out}"
    );
    assert_eq!(received.len(), 2, "{out}");
    assert!(channels(ws.path()).iter().all(|c| c == "wire"), "{out}");
}

/// chatscope's composer keeps a run of spaces as no-break spaces (a contenteditable does, to
/// show them), and the page sends its `innerText`: a 30,000-character task whose lines end in
/// two spaces reaches the model with `\u{a0}\u{a0}` there. keyless cannot put plain spaces
/// through that composer by any strategy; it hears the difference in the request that carried
/// the message and names it (`KA_MESSAGE_ALTERED`, with the place), never silently. Typing
/// the task is given up on from its opening lines, not from the whole.
#[test]
fn chatscope_names_the_no_break_spaces_its_composer_puts_in_a_long_task() {
    let mut task = String::from("Check the numbers below.\n");
    let mut i = 0;
    while task.len() < 30_000 {
        task.push_str(&format!("line {i}: value {} and a word or two  \n", i * 7));
        i += 1;
    }
    let front = FrontEnd::start(Kind::Chatscope, &[DONE.to_string()]);
    // Its own browser: 33 KB through chatscope's composer keeps a renderer busy for seconds, and
    // in the shared browser (one renderer for every 127.0.0.1 tab) the tab was lost under a
    // full run's load.
    let (out, code, ws) = run_alone(&front, &task);
    assert_eq!(code, Some(0), "{out}");
    let received = front.received();
    assert_eq!(received.len(), 1, "nothing sent twice\n{out}");
    let arrived = received[0].ends_with(&format!("Task:\n{}\n", task.trim()));
    assert!(
        arrived || (out.contains("KA_MESSAGE_ALTERED") && out.contains("\\u{a0}")),
        "the task arrived altered, unsaid\n{out}"
    );
    // Typing fails on that composer: its opening lines told so in under a second each, where
    // typing the whole task failed in 20 s.
    let log = fs::read_to_string(ws.path().join(".agent/logs/keyless.log")).unwrap();
    for typed in ["insertTextWhole", "insertText"] {
        assert!(
            log.lines()
                .any(|l| l.contains("insertion skipped")
                    && l.contains(&format!("strategy=\"{typed}\""))),
            "{typed} was tried with the whole task\n{log}"
        );
    }
}

/// NiceGUI (`nicegui` from PyPI): the reply's Markdown becomes HTML in Python (markdown2, its
/// code highlighted by Pygments) and the page gets only that, over its WebSocket; it has no
/// copy control. markdown2 expands a reply's tabs before anything reaches the page, so no
/// agent can read a reply exactly there: the network carried the reply as HTML (its `<<<`
/// escaped), so keyless takes its code block for the server's rendering, not proof, reads it
/// as rebuilt text and never executes it (`KA_REPLY_NOT_EXACT`), and stops once the model's
/// resends are used up, nothing written. Before that rule it wrote the code block's spaces
/// where the reply had tabs. Each element's id comes from a counter (`c9`, `c11`), which
/// keyless never takes for a turn's name.
#[test]
fn nicegui_drawing_markdown_on_its_server_stops_with_nothing_executed() {
    let first = fenced(
        "@@newfile tabs.txt\n<<<CONTENT\n\tone tab\nCONTENT>>>\n@@end\n@@runcommand\n<<<CMD\necho ran >> log.txt\nCMD>>>\n@@end\n@@eof\n",
    );
    let front = FrontEnd::start(Kind::NiceGui, &vec![first; 5]);
    let (out, code, ws) = run(&front, "Write tabs.txt", "");
    assert_ne!(code, Some(0), "{out}");
    assert!(!ws.path().join("tabs.txt").exists(), "{out}");
    assert!(!ws.path().join("log.txt").exists(), "{out}");
    let received = front.received();
    assert!(received.len() >= 2, "{out}");
    // Said to the model as KA_REPLY_NOT_EXACT's words.
    assert!(
        received[1].contains("could not read your reply exactly"),
        "{}",
        received[1]
    );
    // Every message after the task asks for the reply again; none carries results.
    assert!(
        received[1..]
            .iter()
            .all(|m| m.contains("[KEYLESSAGENT FORMAT ERROR]") && !m.contains("RESULTS]")),
        "{received:#?}\n{out}"
    );
    // The turns were found every time: by their shape, never by NiceGUI's counter ids.
    assert!(!out.contains("div#c"), "{out}");
}

/// On Panel, with each turn's text in shadow roots of its own and a copy control that is only
/// an icon (a `div type="button"`, its title the only words): a reply its copy control gives
/// exactly (no `<` in it) is read through that control, and the task goes once. Before,
/// keyless found neither turn and waited out the reply's time limit.
#[test]
fn panel_reads_a_reply_through_its_icon_copy() {
    let done = "```\n@@done\n@@end\n@@eof\n```".to_string();
    let front = FrontEnd::start(Kind::Panel, &[done]);
    let (out, code, ws) = run(&front, "Say you are done", "");
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(front.received().len(), 1, "sent once\n{out}");
    assert_eq!(channels(ws.path()), ["copy_button"], "{out}");
    assert!(!out.contains("KA_REPLY_TIMEOUT"), "{out}");
}

/// Where Panel's copy is not exact (a reply with a section, its `<<<` escaped by Panel's
/// server), keyless finds the reply, proves neither its copy nor the server's HTML, reads it
/// as rebuilt text, never executes it (`KA_REPLY_NOT_EXACT`, said to the model), and stops once
/// the model's resends are used up: the task went once, nothing ran. Before, a font Panel's
/// page asks a CDN for failed and keyless took the machine for offline, sending the task again
/// and again (nine times); after that, it found neither turn and waited out the reply's time
/// limit.
#[test]
fn panel_gets_the_task_once_and_nothing_is_executed() {
    let first = fenced("@@runcommand\n<<<CMD\necho ran >> log.txt\nCMD>>>\n@@end\n@@eof\n");
    let front = FrontEnd::start(Kind::Panel, &vec![first; 5]);
    let (out, code, ws) = run(&front, "Log once", "");
    assert_ne!(code, Some(0), "{out}");
    assert!(!out.contains("KA_REPLY_TIMEOUT"), "{out}");
    assert!(!out.contains("KA_NETWORK_OFFLINE"), "{out}");
    assert!(!ws.path().join("log.txt").exists(), "{out}");
    let received = front.received();
    assert!(received.len() >= 2, "{out}");
    assert!(received[0].trim_end().ends_with("Task:\nLog once"), "{out}");
    assert!(
        received[1].contains("could not read your reply exactly"),
        "{}",
        received[1]
    );
    assert!(
        received[1..]
            .iter()
            .all(|m| m.contains("[KEYLESSAGENT FORMAT ERROR]") && !m.contains("RESULTS]")),
        "{received:#?}\n{out}"
    );
}

/// Chainlit draws a code block with no `<pre>`: a header of a label ("Raw code", or the
/// language) and a copy button of the block's own, then a `<code>`; each message has its own
/// copy button below it. A reply of prose around a code block (unfenced, a file's content holding
/// a fence) is read exactly, never through the block's button (which copies the code alone), and
/// a reply that is one plain fenced block likewise.
#[test]
fn chainlit_reads_replies_around_code_blocks_exactly() {
    let content = "Example file\n```\nprint(1)\n```\nend of file\n";
    let first = format!(
        "@@newfile k.txt\n<<<CONTENT\n{content}CONTENT>>>\n@@end\n@@runcommand\n<<<CMD\necho ran >> log.txt\nCMD>>>\n@@end\n@@eof\n"
    );
    let second =
        "```\n@@newfile em.txt\n<<<CONTENT\nplain fence\nCONTENT>>>\n@@end\n@@eof\n```".to_string();
    // The plain fenced block first: its block's button would copy it whole but its fences, and
    // a selector learned from it would then miss the prose around the next one's block.
    let whole = format!("reply received: {} characters", second.chars().count());
    let front = FrontEnd::start(Kind::Chainlit, &[second, first, DONE.to_string()]);
    let (out, code, ws) = run(&front, "Write the two files", "");
    let read = channels(ws.path());
    assert_eq!(code, Some(0), "{read:?}\n{out}");
    // Read whole, its fences too: not through the block's own button.
    assert!(out.contains(&whole), "{out}");
    assert_eq!(
        fs::read_to_string(ws.path().join("k.txt")).unwrap(),
        content,
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(ws.path().join("em.txt")).unwrap(),
        "plain fence\n",
        "{out}"
    );
    assert_eq!(front.received().len(), 3, "nothing sent twice\n{out}");
    assert_eq!(read.len(), 3, "{read:?}\n{out}");
    assert!(
        !read.iter().any(|c| c == "rebuilt" || c == "dom"),
        "{read:?}\n{out}"
    );
}
