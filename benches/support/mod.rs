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
