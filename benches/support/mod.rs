//! What the chat benchmarks share: the 60,000-character prompt and the median. Included with
//! `#[path = "support/mod.rs"] mod support;`.

// Each benchmark is its own crate and uses what it needs of this.
#![allow(dead_code)]

/// 60,000 characters of what editors change: tabs, trailing spaces, blank lines, indentation,
/// characters outside ASCII, Markdown-like marks.
pub fn prompt() -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < 60_000 {
        out.push_str(&format!("line {i}: \tsome text with trailing   \n"));
        if i % 9 == 0 {
            out.push_str("\n  ünïcödé ✓ *stars* _under_\n");
        }
        i += 1;
    }
    out.truncate(60_000);
    out
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// How long after the page finished streaming `reply` the driver knew it was finished, in
/// milliseconds: the page's clock says how long ago the stream ended, the driver's how long
/// ago it saw the reply finished, less half the round trip of asking.
pub fn end_noticed_after(
    driver: &keyless::chat::cdp::CdpDriver,
    reply: &keyless::chat::Reply,
) -> f64 {
    let asked = std::time::Instant::now();
    let since_end = driver
        .evaluate_json("performance.now() - window.__streamEndedAt")
        .unwrap()
        .as_f64()
        .unwrap();
    let round_trip = asked.elapsed().as_secs_f64() * 1e3;
    let since_detected = (asked - reply.finished_at).as_secs_f64() * 1e3;
    since_end - since_detected - round_trip / 2.0
}
