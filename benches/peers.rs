//! keyless side by side with Playwright-based drivers on the same page, in one run (issue 32):
//! the local chat page with a scripted model, one headless Chromium started by keyless's own
//! driver, and the peers of `benches/peers/peers.mjs` attached to that browser over CDP, each
//! in a tab of its own on the same page. They take turns, round after round (the one that goes
//! first changes every round), and each round every one of them delivers a 60,000-character
//! prompt and reads the ~7 KB reply to it. Measured:
//!
//! - delivering the prompt exactly: inserted, sent, and confirmed by the new user turn holding
//!   exactly the prompt (keyless: `send`; a peer: its own way and its own comparison), on the
//!   driver's clock;
//! - from the page's end of the reply to the reply read exactly, on the page's clock.
//!
//! Every exchange is checked here as well: the server must have received exactly the prompt,
//! and keyless's reply must be the scripted one; a peer that reports a text unlike the one sent
//! or scripted has its figures printed but not counted against keyless. Targets (issue 32):
//! keyless at most 0.5× the best peer's delivery, at most 0.3× its reading.
//!
//! Run: `cargo bench --bench peers` (`PEERS_ROUNDS=N` for another number of rounds). It needs
//! Node.js and npm: the first run installs `benches/peers/node_modules` with `npm ci`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use keyless::chat::ChatDriver;
use keyless::chat::cdp::{CdpDriver, Options};
use keyless::chat::local::{LocalChat, Script};

#[path = "support/mod.rs"]
mod support;
use support::{median, prompt};

/// Rounds measured, after rounds that warm every driver's code and the page's up.
const ROUNDS: usize = 21;
const WARM_UP: usize = 2;
/// The prompt's length in characters.
const PROMPT_CHARS: usize = 60_000;
/// The reply's length, about (as the shape benchmark's exchanges).
const REPLY_CHARS: usize = 6_800;
/// How the reply streams: 400 characters every 10 ms (under 200 ms for 7 KB), so that the
/// rounds are about delivering and reading, not waiting.
const CHUNK_CHARS: usize = 400;
const CHUNK_DELAY: Duration = Duration::from_millis(10);
/// How long the server may take to show a message after the driver confirmed it.
const ARRIVAL_WAIT: Duration = Duration::from_secs(10);
/// The peers, as `peers.mjs` names them.
const PEERS: &[&str] = &["fill", "paste"];

/// About `chars` characters of prose, different for every `seed`.
fn prose(seed: usize, chars: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    while out.len() < chars {
        out.push_str(&format!(
            "Step {seed}.{line}: the model explains what it found in notes.txt and what it will count next ({}).\n",
            seed * 7919 + line * 104_729
        ));
        line += 1;
    }
    out
}

/// The reply to message `i`: an AgentScript reply of about 7 KB in one fence, as models answer.
fn reply(i: usize) -> String {
    format!(
        "```\n@@say\n<<<MSG\n{}MSG>>>\n@@end\n@@runcommand\n<<<CMD\nwc -l notes.txt\nCMD>>>\n@@end\n@@eof\n```\n",
        prose(i, REPLY_CHARS)
    )
}

/// The prompt of a round: named for who sends it and when, then the shared text, 60,000
/// characters in all.
fn message(who: &str, round: usize, text: &str) -> String {
    format!("{who} round {round}\n{text}")
        .chars()
        .take(PROMPT_CHARS)
        .collect()
}

/// Fails with what to install when a tool the peers need is missing.
fn require(tool: &str) {
    let found = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(
        found,
        "the peers bench needs `{tool}` on PATH: install Node.js 20 or newer with npm (e.g. `apt-get install nodejs npm`), then run `cargo bench --bench peers` again"
    );
}

/// The peers' folder, with playwright-core installed (`npm ci` the first time).
fn peers_folder() -> PathBuf {
    require("node");
    require("npm");
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers");
    if !folder
        .join("node_modules/playwright-core/package.json")
        .exists()
    {
        eprintln!("peers: installing playwright-core in {}", folder.display());
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&folder)
            .status()
            .expect("run npm ci");
        assert!(
            status.success(),
            "`npm ci` in {} failed: the peers need playwright-core from npm",
            folder.display()
        );
    }
    folder
}

/// The DevTools address of the browser keyless launched on `profile`, from the port file
/// Chromium writes there.
fn devtools_url(profile: &Path) -> String {
    let active = std::fs::read_to_string(profile.join("DevToolsActivePort"))
        .expect("the browser keyless launched wrote no DevToolsActivePort");
    let mut lines = active.lines();
    let port = lines.next().expect("a port line");
    let path = lines.next().expect("a path line");
    format!("ws://127.0.0.1:{port}{path}")
}

/// The Node process driving the peers.
struct Peers {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

/// One peer's round, as `peers.mjs` reports it.
#[derive(serde::Deserialize)]
struct PeerRound {
    deliver_ms: f64,
    delivered_exact: bool,
    read_ms: f64,
    read_exact: bool,
    note: String,
}

impl Peers {
    fn start(folder: &Path, ws_url: &str, chat_url: &str) -> Peers {
        let mut child = Command::new("node")
            .arg(folder.join("peers.mjs"))
            .args([ws_url, chat_url])
            .current_dir(folder)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start node");
        let input = child.stdin.take().expect("node's stdin");
        let mut output = BufReader::new(child.stdout.take().expect("node's stdout"));
        let mut first = String::new();
        output.read_line(&mut first).expect("read node");
        assert!(
            first.contains("\"ready\":true"),
            "the peers did not start: {first:?}"
        );
        Peers {
            child,
            input,
            output,
        }
    }

    fn round(&mut self, peer: &str, text: &str, reply: &str) -> PeerRound {
        let ask = serde_json::json!({"peer": peer, "text": text, "reply": reply});
        writeln!(self.input, "{ask}").expect("write to node");
        self.input.flush().expect("write to node");
        let mut line = String::new();
        self.output.read_line(&mut line).expect("read node");
        let value: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("the peers said {line:?}: {e}"));
        if let Some(error) = value.get("error") {
            panic!("peer {peer} failed: {}", error.as_str().unwrap_or_default());
        }
        serde_json::from_value(value).expect("a peer's round")
    }
}

impl Drop for Peers {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until the server has received `count` messages, the last of them `text`.
fn arrived(chat: &LocalChat, count: usize, text: &str, who: &str) {
    let deadline = Instant::now() + ARRIVAL_WAIT;
    while chat.received_count() < count {
        assert!(
            Instant::now() < deadline,
            "{who}'s message never reached the server"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let received = chat.received();
    assert!(
        received.last().map(String::as_str) == Some(text),
        "the server received from {who} a message unlike the one sent ({} chars against {})",
        received.last().map(|m| m.chars().count()).unwrap_or(0),
        text.chars().count()
    );
}

/// One driver's figures.
#[derive(Default)]
struct Figures {
    deliver: Vec<f64>,
    read: Vec<f64>,
    /// Rounds whose delivery or reading was not exact (their times are not counted).
    inexact_deliveries: usize,
    inexact_reads: usize,
    notes: Vec<String>,
}

impl Figures {
    fn line(&self, who: &str) -> String {
        let shown = |v: &[f64]| {
            if v.is_empty() {
                "no exact round".to_string()
            } else {
                format!(
                    "median {:.1} ms (runs {:?})",
                    median(v.to_vec()),
                    v.iter().map(|m| m.round()).collect::<Vec<_>>()
                )
            }
        };
        format!(
            "peers/{who}: deliver 60,000 chars exactly: {}{}\npeers/{who}: reply end to read exactly: {}{}",
            shown(&self.deliver),
            if self.inexact_deliveries > 0 {
                format!("; {} deliveries NOT exact", self.inexact_deliveries)
            } else {
                String::new()
            },
            shown(&self.read),
            if self.inexact_reads > 0 {
                format!(
                    "; {} reads NOT exact ({})",
                    self.inexact_reads,
                    self.notes.first().cloned().unwrap_or_default()
                )
            } else {
                String::new()
            },
        )
    }
}

/// Time from the page's end of `reply` to `read_at`, on the page's clock, less half the round
/// trip of asking (as `support::end_noticed_after` measures the end noticed).
fn read_after_end(driver: &CdpDriver, read_at: Instant) -> f64 {
    let asked = Instant::now();
    let since_end = driver
        .evaluate_json("performance.now() - window.__streamEndedAt")
        .unwrap()
        .as_f64()
        .unwrap();
    let round_trip = asked.elapsed().as_secs_f64() * 1e3;
    since_end - (asked - read_at).as_secs_f64() * 1e3 - round_trip / 2.0
}

fn main() {
    let rounds = std::env::var("PEERS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ROUNDS);
    let folder = peers_folder();
    let who: Vec<&str> = std::iter::once("keyless")
        .chain(PEERS.iter().copied())
        .collect();
    let exchanges = (WARM_UP + rounds) * who.len();
    let chat = LocalChat::start(Script {
        chunk_chars: CHUNK_CHARS,
        chunk_delay: CHUNK_DELAY,
        ..Script::replies((0..exchanges).map(reply))
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options = Options::local_page(chat.url(), profile.path().to_path_buf()).unwrap();
    options.reply_timeout = Duration::from_secs(60);
    let mut driver = CdpDriver::start(options).unwrap();
    let mut peers = Peers::start(&folder, &devtools_url(profile.path()), &chat.url());

    let text = prompt();
    let mut figures: Vec<Figures> = who.iter().map(|_| Figures::default()).collect();
    let mut sent = 0;
    for round in 0..WARM_UP + rounds {
        // Who goes first changes every round, so that none always follows the same one.
        for turn in 0..who.len() {
            let at = (round + turn) % who.len();
            let name = who[at];
            let message = message(name, round, &text);
            let want = reply(sent);
            sent += 1;
            let (deliver, delivered_exact, read, read_exact, note) = if name == "keyless" {
                let started = Instant::now();
                driver.send(&message).unwrap();
                let deliver = started.elapsed().as_secs_f64() * 1e3;
                let got = driver.wait_reply(&mut |_| {}).unwrap();
                let read_at = Instant::now();
                let read = read_after_end(&driver, read_at);
                let exact = got.text == want;
                let note = format!("read {} chars via {:?}", got.text.len(), got.channel);
                (deliver, true, read, exact, note)
            } else {
                let r = peers.round(name, &message, &want);
                (
                    r.deliver_ms,
                    r.delivered_exact,
                    r.read_ms,
                    r.read_exact,
                    r.note,
                )
            };
            arrived(&chat, sent, &message, name);
            if round < WARM_UP {
                continue;
            }
            let f = &mut figures[at];
            if delivered_exact {
                f.deliver.push(deliver);
            } else {
                f.inexact_deliveries += 1;
            }
            if read_exact {
                f.read.push(read);
            } else {
                f.inexact_reads += 1;
                f.notes.push(note);
            }
        }
    }
    assert!(
        figures[0].inexact_reads == 0,
        "keyless read a reply unlike the scripted one: {:?}",
        figures[0].notes
    );
    for (name, f) in who.iter().zip(&figures) {
        println!("{}", f.line(name));
    }
    let best = |pick: fn(&Figures) -> &Vec<f64>| {
        figures[1..]
            .iter()
            .zip(&who[1..])
            .filter(|(f, _)| !pick(f).is_empty())
            .map(|(f, name)| (median(pick(f).clone()), *name))
            .min_by(|a, b| a.0.total_cmp(&b.0))
    };
    let ours_deliver = median(figures[0].deliver.clone());
    let ours_read = median(figures[0].read.clone());
    match best(|f| &f.deliver) {
        Some((theirs, name)) => println!(
            "peers/ratio deliver: keyless {ours_deliver:.1} ms / best peer ({name}) {theirs:.1} ms = {:.2}× (target ≤ 0.5×)",
            ours_deliver / theirs
        ),
        None => println!("peers/ratio deliver: no peer delivered exactly"),
    }
    match best(|f| &f.read) {
        Some((theirs, name)) => println!(
            "peers/ratio read: keyless {ours_read:.1} ms / best peer ({name}) {theirs:.1} ms = {:.2}× (target ≤ 0.3×)",
            ours_read / theirs
        ),
        None => println!("peers/ratio read: no peer read exactly"),
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "peers/load average at the end: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    drop(peers);
    driver.close();
}
