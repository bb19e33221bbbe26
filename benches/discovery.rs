//! What discovery costs (issue 12): a session's first exchange on a page no selectors file
//! knows against the same page with its selectors (target: at most 1 s more), later exchanges
//! (target: nothing more: what was found is reused), and the end of a reply noticed after the
//! page finished it, on a discovered page (target: median ≤ 10 ms). Run:
//! `cargo bench --bench discovery`.

use std::time::{Duration, Instant};

use keyless::chat::ChatDriver;
use keyless::chat::cdp::{CdpDriver, Options};
use keyless::chat::local::{LocalChat, Script};

#[path = "support/mod.rs"]
mod support;
use support::median;

const SESSIONS: usize = 5;
const LATER: usize = 10;

fn reply(i: usize) -> String {
    format!("```\n@@say\n<<<MSG\nreply {i}\nMSG>>>\n@@end\n@@next\n@@end\n@@eof\n```\n")
}

/// One session: the driver's start, its first exchange, then `LATER` exchanges with the
/// latency from the page's end of stream to the driver knowing.
struct Session {
    start_ms: f64,
    first_ms: f64,
    later_ms: Vec<f64>,
    latency_ms: Vec<f64>,
}

fn session(discovered: bool) -> Session {
    let chat = LocalChat::start(Script {
        chunk_chars: 16,
        chunk_delay: Duration::from_millis(5),
        ..Script::replies((0..=LATER).map(reply))
    })
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut options = Options::local_page(chat.url(), profile.path().to_path_buf()).unwrap();
    if discovered {
        options.site = keyless::chat::selectors::load(None)
            .unwrap()
            .unknown_site(&chat.url());
    }
    options.reply_timeout = Duration::from_secs(30);
    let started = Instant::now();
    let mut driver = CdpDriver::start(options).unwrap();
    let start_ms = started.elapsed().as_secs_f64() * 1e3;
    let exchange = |driver: &mut CdpDriver, i: usize| {
        let started = Instant::now();
        driver.send(&format!("message {i}")).unwrap();
        let reply = driver.wait_reply(&mut |_| {}).unwrap();
        let took = started.elapsed().as_secs_f64() * 1e3;
        (took, support::end_noticed_after(driver, &reply))
    };
    let (first_ms, _) = exchange(&mut driver, 0);
    let mut later_ms = Vec::new();
    let mut latency_ms = Vec::new();
    for i in 1..=LATER {
        let (took, latency) = exchange(&mut driver, i);
        later_ms.push(took);
        latency_ms.push(latency);
    }
    driver.close();
    Session {
        start_ms,
        first_ms,
        later_ms,
        latency_ms,
    }
}

fn main() {
    let mut results = Vec::new();
    for discovered in [false, true] {
        let sessions: Vec<Session> = (0..SESSIONS).map(|_| session(discovered)).collect();
        let start = median(sessions.iter().map(|s| s.start_ms).collect());
        let first = median(sessions.iter().map(|s| s.first_ms).collect());
        let later = median(sessions.iter().flat_map(|s| s.later_ms.clone()).collect());
        let latency = median(sessions.iter().flat_map(|s| s.latency_ms.clone()).collect());
        let name = if discovered {
            "discovered"
        } else {
            "selectors"
        };
        println!(
            "discovery/{name}: start {start:.0} ms, first exchange {first:.0} ms, later exchanges {later:.0} ms, end of reply noticed {latency:.1} ms after the page (medians over {SESSIONS} sessions)"
        );
        results.push((start + first, later));
    }
    println!(
        "discovery/first_exchange_cost: {:.0} ms (start + first exchange, discovered minus selectors); later exchanges: {:+.0} ms",
        results[1].0 - results[0].0,
        results[1].1 - results[0].1
    );
}
