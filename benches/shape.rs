//! The shape of keyless's cost as a chat grows (issue 32): the built `keyless run` on the local
//! chat page, as a new user runs it (no `--site`: a page keyless has never seen, its parts
//! found by their shape), for 100 exchanges of about 7 KB replies that each run one `wc -l`.
//! It reports:
//!
//! - keyless's own turnaround per exchange, from the page's end of a reply (the page tells the
//!   server the moment it marks it finished) to keyless's next message arriving at the server:
//!   noticing the end, reading, parsing, running `wc -l`, rendering and delivering. The first
//!   and the last ten exchanges, and their ratio (target: at most 1.2, the first ones at most
//!   40 ms);
//! - keyless's memory (resident set) after exchange 1 and after the last (target: within 10 %);
//! - keyless's own CPU and the renderer's per exchange, first and last ten;
//! - one long reply (`SHAPE_STREAM_SECS`, 120 s unless set; the issue's figure is 600) streamed
//!   at about 80 characters a second: the renderer's CPU while keyless watches it, against the
//!   same page in a tab nobody watches (target: within 5 % of one core), and keyless's own CPU.
//!
//! - the renderer's CPU per exchange for the same exchanges in a tab nobody watches (the page
//!   sends its messages itself): what the page's own drawing costs as the chat grows.
//!
//! Run: `cargo bench --bench shape` (`-- exchanges`, `-- unwatched` or `-- stream` for one
//! part; `SHAPE_EXCHANGES=40` for another length; `SHAPE_SITE=local` for the page's known
//! selectors; `SHAPE_MODES=nested-shadow` for the page in its modes (comma-separated); `SHAPE_LOG=FILE` keeps keyless's standard error; `SHAPE_BROWSER=PATH` another
//! browser for keyless, `SHAPE_SANDBOX_OFF=1` the commands run with the sandbox off (what
//! containment adds to an exchange), `SHAPE_KEYLESS=PATH` another build of keyless, `SHAPE_UNWATCHED_ARGS` more flags for the unwatched one).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use keyless::chat::local::{LocalChat, Script};

/// How often the bench looks at the page server and the processes.
const LOOK: Duration = Duration::from_millis(2);
/// The streamed reply's pace: characters per chunk and the pause between chunks (80 a second,
/// redrawn 20 times a second as chat sites do).
const STREAM_CHUNK: usize = 4;
const STREAM_DELAY: Duration = Duration::from_millis(50);
/// How long the exchanges' replies take to stream (400 characters every 10 ms: under 200 ms).
const FAST_CHUNK: usize = 400;
const FAST_DELAY: Duration = Duration::from_millis(10);
/// The longest a run may take before the bench gives up on it.
const RUN_LIMIT: Duration = Duration::from_secs(3600);

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// About `chars` characters of prose, different for every `seed`.
fn prose(seed: usize, chars: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    while out.len() < chars {
        out.push_str(&format!(
            "Step {seed}.{line}: the model explains what it found in notes.txt and what it will count next, in words that change ({}).\n",
            seed * 7919 + line * 104_729
        ));
        line += 1;
    }
    out
}

/// Reply `i` of the exchanges: about 7 KB, a message for the person and one `wc -l`.
fn exchange_reply(i: usize) -> String {
    format!(
        "```\n@@say\n<<<MSG\n{}MSG>>>\n@@end\n@@runcommand\n<<<CMD\nwc -l notes.txt\nCMD>>>\n@@end\n@@eof\n```\n",
        prose(i, 6800)
    )
}

fn done_reply() -> String {
    "```\n@@done\n<<<MSG\nCounted.\nMSG>>>\n@@end\n@@eof\n```\n".to_string()
}

/// A workspace with the file to count and a configuration that lets a turn run long: a
/// repository, as a person's project is (a world is built ahead between exchanges only where
/// it needs no placeholder: `.git` and `keyless.json` are there).
fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(ws.path())
        .status()
        .unwrap();
    assert!(init.success());
    std::fs::write(ws.path().join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(
        ws.path().join("keyless.json"),
        if std::env::var_os("SHAPE_SANDBOX_OFF").is_some() {
            r#"{"Limits": {"MaxIterationsPerTurn": 1000}, "Browser": {"ReplyTimeoutSeconds": 7200}, "Sandbox": {"Mode": "Off"}}"#
        } else {
            r#"{"Limits": {"MaxIterationsPerTurn": 1000}, "Browser": {"ReplyTimeoutSeconds": 7200}}"#
        },
    )
    .unwrap();
    ws
}

/// `keyless run` on the page, launching its own headless browser.
fn keyless(chat: &LocalChat, ws: &Path, profile: &Path, log: &Path) -> Child {
    // `SHAPE_KEYLESS=PATH`: another build of keyless (an earlier commit's, to compare).
    let program = std::env::var_os("SHAPE_KEYLESS").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_keyless")),
        PathBuf::from,
    );
    let mut cmd = Command::new(program);
    cmd.args(["run", "Count the lines of notes.txt, again and again."])
        .args(["--headless", "--mode", "auto", "--url", &chat.url()])
        .arg("--profile")
        .arg(profile)
        .arg("--workspace")
        .arg(ws)
        .env("XDG_CONFIG_HOME", profile)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::fs::File::create(log).unwrap()))
        .stderr(Stdio::from(
            std::fs::File::create(log.with_extension("err")).unwrap(),
        ));
    if let Ok(site) = std::env::var("SHAPE_SITE") {
        cmd.args(["--site", &site]);
    }
    // `SHAPE_BROWSER=PATH`: another browser (a script that adds flags to Chromium, say).
    if let Ok(browser) = std::env::var("SHAPE_BROWSER") {
        cmd.args(["--browser", &browser]);
    }
    cmd.spawn().unwrap()
}

// --- What /proc says about a process tree. ---

/// Clock ticks a second (`_SC_CLK_TCK`).
fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) as f64 }
}

/// The fields of `/proc/<pid>/stat` after the command's name.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    Some(after.split_whitespace().map(str::to_string).collect())
}

/// A process's own CPU time (user and system, its threads, not its children), in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let Some(f) = stat_fields(pid) else {
        return 0.0;
    };
    // After the name: state is 0, ppid 1, …, utime 11, stime 12.
    let ticks: f64 = f[11].parse::<f64>().unwrap_or(0.0) + f[12].parse::<f64>().unwrap_or(0.0);
    ticks / ticks_per_second()
}

/// A process's resident set, in MiB.
fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The renderer processes under `root`: Chromium's processes started with `--type=renderer`.
fn renderers(root: u32) -> Vec<u32> {
    let mut parent = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Some(f) = stat_fields(pid) {
            parent.insert(pid, f[1].parse::<u32>().unwrap_or(0));
        }
    }
    let under = |mut pid: u32| {
        for _ in 0..64 {
            if pid == root {
                return true;
            }
            match parent.get(&pid) {
                Some(&up) if up > 1 => pid = up,
                _ => return false,
            }
        }
        false
    };
    parent
        .keys()
        .copied()
        .filter(|&pid| pid != root && under(pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains("--type=renderer"))
                .unwrap_or(false)
        })
        .collect()
}

fn renderer_cpu(root: u32) -> f64 {
    renderers(root).into_iter().map(cpu_seconds).sum()
}

/// What the processes had used when a message arrived.
#[derive(Clone, Copy, Debug)]
struct Sample {
    keyless_cpu: f64,
    renderer_cpu: f64,
    rss: f64,
}

fn sample(pid: u32) -> Sample {
    Sample {
        keyless_cpu: cpu_seconds(pid),
        renderer_cpu: renderer_cpu(pid),
        rss: rss_mib(pid),
    }
}

/// Waits for `child` to end, sampling it each time a message reaches the page's server and
/// each time the page reports a reply ended.
struct Watched {
    at_arrival: Vec<Sample>,
    at_end: Vec<Sample>,
}

fn watch(chat: &LocalChat, child: &mut Child, log: &Path) -> Watched {
    let pid = child.id();
    let started = Instant::now();
    let mut watched = Watched {
        at_arrival: Vec::new(),
        at_end: Vec::new(),
    };
    loop {
        let arrived = chat.received_count();
        while watched.at_arrival.len() < arrived {
            watched.at_arrival.push(sample(pid));
        }
        let ended = chat.reply_ends().len();
        while watched.at_end.len() < ended {
            watched.at_end.push(sample(pid));
        }
        if let Some(status) = child.try_wait().unwrap() {
            if !status.success() {
                let err = std::fs::read_to_string(log.with_extension("err")).unwrap_or_default();
                let tail: String = err
                    .chars()
                    .rev()
                    .take(3000)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                panic!("keyless ended with {status}:\n{tail}");
            }
            // `SHAPE_LOG=FILE` keeps what keyless said.
            if let Some(keep) = std::env::var_os("SHAPE_LOG") {
                let _ = std::fs::copy(log.with_extension("err"), keep);
            }
            return watched;
        }
        assert!(started.elapsed() < RUN_LIMIT, "keyless took too long");
        std::thread::sleep(LOOK);
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn exchanges() {
    let n = env_number("SHAPE_EXCHANGES", 100) as usize;
    // `SHAPE_MODES=nested-shadow,…`: the page in those modes (the chat in shadow roots, say).
    let modes: Vec<String> = std::env::var("SHAPE_MODES")
        .map(|m| m.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let chat = LocalChat::start(Script {
        chunk_chars: FAST_CHUNK,
        chunk_delay: FAST_DELAY,
        page: keyless::chat::local::PageFaults {
            modes,
            ..Default::default()
        },
        ..Script::replies((0..n).map(exchange_reply).chain([done_reply()]))
    })
    .unwrap();
    let ws = workspace();
    let profile = tempfile::tempdir().unwrap();
    let log = profile.path().join("keyless.out");
    let mut child = keyless(&chat, ws.path(), profile.path(), &log);
    let watched = watch(&chat, &mut child, &log);
    // `SHAPE_LOG=FILE` also keeps the workspace's log (`FILE.workspace`): when each reply was
    // received, each command ran and each message went.
    if let Some(mut keep) = std::env::var_os("SHAPE_LOG") {
        keep.push(".workspace");
        let _ = std::fs::copy(ws.path().join(".agent/logs/keyless.log"), keep);
    }
    let arrivals = chat.arrivals();
    let ends = chat.reply_ends();
    assert!(
        arrivals.len() > n && ends.len() > n,
        "{} messages and {} replies for {n} exchanges",
        arrivals.len(),
        ends.len()
    );
    // Exchange k (1..=n): reply k ended on the page, and keyless's message about it arrived.
    let turnaround: Vec<f64> = (1..=n)
        .map(|k| ms(arrivals[k].duration_since(ends[k - 1])))
        .collect();
    let per = |f: fn(&Sample) -> f64, k: usize| {
        (f(&watched.at_arrival[k]) - f(&watched.at_arrival[k - 1])) * 1e3
    };
    let keyless_cpu: Vec<f64> = (1..=n).map(|k| per(|s| s.keyless_cpu, k)).collect();
    let renderer_cpu: Vec<f64> = (1..=n).map(|k| per(|s| s.renderer_cpu, k)).collect();
    let ten = 10.min(n);
    let (first, last) = (&turnaround[..ten], &turnaround[n - ten..]);
    let site = std::env::var("SHAPE_SITE").unwrap_or_else(|_| "discovered".into());
    println!(
        "shape/turnaround ({n} exchanges, {site}): first ten mean {:.1} ms (median {:.1}), last ten mean {:.1} ms (median {:.1}): {:.2}x; every exchange: {:?}",
        mean(first),
        median(first),
        mean(last),
        median(last),
        mean(last) / mean(first),
        turnaround
            .iter()
            .map(|t| t.round() as i64)
            .collect::<Vec<_>>()
    );
    println!(
        "shape/cpu_per_exchange: keyless first ten {:.1} ms, last ten {:.1} ms; renderer first ten {:.1} ms, last ten {:.1} ms",
        mean(&keyless_cpu[..ten]),
        mean(&keyless_cpu[n - ten..]),
        mean(&renderer_cpu[..ten]),
        mean(&renderer_cpu[n - ten..]),
    );
    let (one, last_rss) = (watched.at_arrival[1].rss, watched.at_arrival[n].rss);
    println!(
        "shape/keyless_rss: after exchange 1 {one:.1} MiB, after exchange {n} {last_rss:.1} MiB ({:+.1} %)",
        (last_rss / one - 1.0) * 100.0
    );
}

/// The same exchanges in a tab nobody watches: the page sends its messages itself, each
/// `SHAPE_PAUSE_MS` (150 unless set: about keyless's turnaround) after the reply before it
/// ended. The renderer's own work per exchange, the page drawing a longer and longer chat.
fn unwatched() {
    let n = env_number("SHAPE_EXCHANGES", 100) as usize;
    let pause = env_number("SHAPE_PAUSE_MS", 150);
    let cpu = unwatched_exchanges(n, pause);
    let ten = 10.min(n);
    println!(
        "shape/renderer_unwatched ({n} exchanges, {pause} ms apart, in a tab nobody watches): renderer first ten {:.1} ms, last ten {:.1} ms per exchange",
        mean(&cpu[..ten]),
        mean(&cpu[n - ten..]),
    );
}

/// The renderer's CPU per exchange, in milliseconds, for `n` exchanges in a tab nobody
/// watches, `pause` ms apart.
fn unwatched_exchanges(n: usize, pause: u64) -> Vec<f64> {
    let chat = LocalChat::start(Script {
        chunk_chars: FAST_CHUNK,
        chunk_delay: FAST_DELAY,
        ..Script::replies((0..=n).map(exchange_reply))
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut browser = unwatched_browser(&chat, profile.path(), n + 1, pause);
    let root = browser.id();
    let started = Instant::now();
    let mut at_arrival = Vec::new();
    while at_arrival.len() <= n {
        while at_arrival.len() < chat.received_count() {
            at_arrival.push(renderer_cpu(root));
        }
        assert!(started.elapsed() < RUN_LIMIT, "the page stopped sending");
        std::thread::sleep(LOOK);
    }
    end_group(&mut browser);
    (1..=n)
        .map(|k| (at_arrival[k] - at_arrival[k - 1]) * 1e3)
        .collect()
}

/// Ends the browser this bench started, with its process group.
fn end_group(browser: &mut Child) {
    // SAFETY: kill has no preconditions; the group is the browser this bench started.
    unsafe { libc::kill(-(browser.id() as i32), libc::SIGKILL) };
    let _ = browser.wait();
}

/// The long reply: a message for the person of `secs` seconds' worth of characters, then done.
fn long_script(secs: u64) -> Script {
    let chars = (secs as f64 / STREAM_DELAY.as_secs_f64()) as usize * STREAM_CHUNK;
    // The fences and commands around the prose stream too.
    let reply = format!(
        "```\n@@say\n<<<MSG\n{}MSG>>>\n@@end\n@@eof\n```\n",
        prose(0, chars.saturating_sub(60))
    );
    Script {
        chunk_chars: STREAM_CHUNK,
        chunk_delay: STREAM_DELAY,
        ..Script::replies([reply, done_reply()])
    }
}

/// CPU used a second (as a share of one core) between the first message's arrival and the
/// first reply's end.
fn share(before: f64, after: f64, window: Duration) -> f64 {
    (after - before) / window.as_secs_f64() * 100.0
}

fn stream() {
    let secs = env_number("SHAPE_STREAM_SECS", 120);
    // Watched: keyless waits for the reply.
    let chat = LocalChat::start(long_script(secs)).unwrap();
    let ws = workspace();
    let profile = tempfile::tempdir().unwrap();
    let log = profile.path().join("keyless.out");
    let mut child = keyless(&chat, ws.path(), profile.path(), &log);
    let watched = watch(&chat, &mut child, &log);
    let window = chat.reply_ends()[0].duration_since(chat.arrivals()[0]);
    let (from, to) = (watched.at_arrival[0], watched.at_end[0]);
    let renderer_watched = share(from.renderer_cpu, to.renderer_cpu, window);
    let keyless_watched = share(from.keyless_cpu, to.keyless_cpu, window);

    // Unwatched: the same page in a browser nobody drives; the page sends the message itself.
    let chat = LocalChat::start(long_script(secs)).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut browser = unwatched_browser(&chat, profile.path(), 1, 0);
    let root = browser.id();
    let started = Instant::now();
    while chat.received_count() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the page sent nothing"
        );
        std::thread::sleep(LOOK);
    }
    let from = renderer_cpu(root);
    while chat.reply_ends().is_empty() {
        assert!(started.elapsed() < RUN_LIMIT, "the reply did not end");
        std::thread::sleep(LOOK);
    }
    let to = renderer_cpu(root);
    let unwatched_window = chat.reply_ends()[0].duration_since(chat.arrivals()[0]);
    let renderer_unwatched = share(from, to, unwatched_window);
    end_group(&mut browser);
    println!(
        "shape/long_reply ({:.0} s streamed): renderer {renderer_watched:.1} % of a core watched by keyless, {renderer_unwatched:.1} % unwatched ({:+.1} points); keyless {keyless_watched:.2} % of a core",
        window.as_secs_f64(),
        renderer_watched - renderer_unwatched
    );
}

/// Chromium on the page as keyless launches it, with nothing attached: the page sends its
/// message itself (`?autosend=`), `repeat` times, `pause` ms apart.
fn unwatched_browser(chat: &LocalChat, profile: &Path, repeat: usize, pause: u64) -> Child {
    let executable: PathBuf = keyless::chat::cdp::find_browser(None).unwrap();
    let executable = std::fs::canonicalize(&executable).unwrap_or(executable);
    let mut cmd = Command::new(executable);
    cmd.args(
        keyless::chat::cdp::LAUNCH_ARGS
            .iter()
            .map(|a| format!("--{a}")),
    )
    .args([
        "--remote-debugging-port=0",
        "--disable-extensions",
        "--window-size=1280,900",
        "--headless",
        "--hide-scrollbars",
        "--mute-audio",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(
        std::env::var("SHAPE_UNWATCHED_ARGS")
            .unwrap_or_default()
            .split_whitespace(),
    )
    .arg(format!(
        "{}?autosend=Write%20a%20long%20answer.&repeat={repeat}&pause={pause}",
        chat.url()
    ))
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.args(["--no-sandbox", "--disable-setuid-sandbox"]);
    }
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.spawn().unwrap()
}

fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |part: &str| only.is_empty() || only.iter().any(|o| o == part);
    if wants("exchanges") {
        exchanges();
    }
    if wants("unwatched") {
        unwatched();
    }
    if wants("stream") {
        stream();
    }
}
