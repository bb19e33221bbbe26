//! Insertion into the editors real chat sites use (issue 13), from their npm packages
//! (`tests/editors/`): a 60,000-character prompt put into the composer and checked exact,
//! keyless choosing its strategy as on a site that names none (target: median ≤ 150 ms per
//! editor); and on the local page's own composer, which re-renders itself on every input event,
//! keyless's whole send (insert, check, click, confirm) against one plain CDP insertion of the
//! same text plus a click (the peer's way), in the same run. Run: `cargo bench --bench editors`
//! (`-- NAME` for the parts whose name contains NAME: an editor's, or `rerendering`).

use std::time::{Duration, Instant};

use keyless::chat::ChatDriver;
use keyless::chat::cdp::{CdpDriver, Options};
use keyless::chat::local::{self, EDITOR_NAMES, LocalChat, PageFaults, Script};

#[path = "support/mod.rs"]
mod support;
use support::{median, prompt};

/// Rounds measured, after rounds that warm the page's code up (the first insertions into a
/// fresh editor run its code cold and take two to four times as long).
const ROUNDS: usize = 9;
const WARM_UP: usize = 2;
/// Rounds of the whole-send comparison: each way varies by a factor of two from round to round
/// (the page's own rendering and garbage collection), so it takes more rounds to tell them apart.
const SEND_ROUNDS: usize = 21;

fn driver(chat: &LocalChat, profile: &std::path::Path) -> CdpDriver {
    let mut options = Options::local_page(chat.url(), profile.to_path_buf()).unwrap();
    options.site.insert = Vec::new();
    options.reply_timeout = Duration::from_secs(60);
    CdpDriver::start(options).unwrap()
}

fn main() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/editors");
    let modules = local::editor_modules(&folder).unwrap();
    let text = prompt();
    // `cargo bench` passes `--bench`; any other argument picks the parts to run.
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let runs = |name: &str| wanted.is_empty() || wanted.iter().any(|w| name.contains(w.as_str()));
    for editor in EDITOR_NAMES.iter().filter(|e| runs(e)) {
        let chat = LocalChat::start(Script {
            page: PageFaults {
                editor: Some(editor.to_string()),
                ..PageFaults::default()
            },
            modules: Some(modules.clone()),
            ..Script::default()
        })
        .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let mut driver = driver(&chat, profile.path());
        let mut ms = Vec::new();
        for round in 0..WARM_UP + ROUNDS {
            driver.clear_composer().unwrap();
            let started = Instant::now();
            driver.insert(&text).unwrap();
            if round >= WARM_UP {
                ms.push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        println!(
            "editors/{editor}: 60,000 characters inserted and checked in {:.0} ms (median of {ROUNDS}; by {}; runs {:?})",
            median(ms.clone()),
            driver.inserted_with().unwrap_or("?"),
            ms.iter().map(|m| m.round()).collect::<Vec<_>>()
        );
        driver.close();
    }
    if runs("rerendering") {
        rerendering(&text);
    }
}

/// The local page's own composer re-renders all of itself on every input event.
fn rerendering(text: &str) {
    let chat = LocalChat::start(Script::replies(
        (0..2 * (WARM_UP + SEND_ROUNDS)).map(|_| "@@done\n@@end\n@@eof\n".to_string()),
    ))
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let mut driver = driver(&chat, profile.path());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let sends = |d: &CdpDriver| {
        d.evaluate_json("window.localChatSends || 0")
            .unwrap()
            .as_u64()
            .unwrap()
    };
    // keyless's whole send, then its reply read.
    let keyless_way = |driver: &mut CdpDriver, round: usize| {
        let message = format!("{round}\n{text}");
        let started = Instant::now();
        driver.send(&message).unwrap();
        let ms = started.elapsed().as_secs_f64() * 1e3;
        driver.wait_reply(&mut |_| {}).unwrap();
        ms
    };
    // One plain insertion and a click, until the page counts the send; its reply streams to
    // its end before anything else happens.
    let peer_way = |driver: &mut CdpDriver, round: usize| {
        let before = sends(driver);
        let message = format!("peer {round}\n{text}");
        let started = Instant::now();
        driver.insert_unchecked(&message).unwrap();
        driver.click_selector("SendButton").unwrap();
        while sends(driver) == before {
            std::thread::sleep(Duration::from_millis(1));
        }
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let busy = "!!document.querySelector('[data-done=\"false\"]')";
        while driver.evaluate_json(busy).unwrap().as_bool().unwrap() {
            std::thread::sleep(Duration::from_millis(5));
        }
        ms
    };
    // The two ways take turns going first, so that neither always follows the other's reply.
    for round in 0..WARM_UP + SEND_ROUNDS {
        let (k, p) = if round % 2 == 0 {
            let k = keyless_way(&mut driver, round);
            (k, peer_way(&mut driver, round))
        } else {
            let p = peer_way(&mut driver, round);
            (keyless_way(&mut driver, round), p)
        };
        if round >= WARM_UP {
            ours.push(k);
            theirs.push(p);
        }
    }
    println!(
        "editors/rerendering_composer: keyless sends 60,000 characters (inserted, checked, clicked, confirmed) in {:.0} ms; one plain Input.insertText plus a click takes {:.0} ms (medians of {SEND_ROUNDS}, the two ways taking turns to go first)",
        median(ours),
        median(theirs)
    );
    driver.close();
}
