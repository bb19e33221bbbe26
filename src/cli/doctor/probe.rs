//! The probes `keyless doctor` makes on the page: each selector key, each insertion strategy,
//! the canary's round trip through every reading channel, and what discovery proved.

use crate::chat::ChatDriver;
use crate::chat::cdp::CdpDriver;
use crate::chat::local::CANARY_PREFIX;
use crate::chat::selectors::REQUIRED;

use super::{ChannelReport, InsertReport, KeyReport, LearnedReport};

/// A block full of what chat pages destroy: fences, @@ lines, leading spaces, tabs, `*`, `_`, `<`.
const CANARY: &str = "````agentscript\n@@say\n<<<MSG\n*stars* and _underscores_ and <angle> & ampersand\n    four leading spaces\n\ttab\tinside\ntrailing   \n\n\nafter two blank lines\n```\nan inner fence\n```\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n````";

/// Looks for one key's alternatives on the page (as the session uses them: what discovery
/// found first): the first that matches, how many, visible.
pub(super) fn check_key(driver: &mut CdpDriver, key: &'static str) -> KeyReport {
    let alternatives = driver
        .site_entry()
        .selectors
        .get(key)
        .cloned()
        .unwrap_or_default();
    let discovered = driver.learned().selectors.get(key);
    let mut entry = KeyReport {
        key,
        // A site may send with Enter: a missing send button is no missing part.
        required: REQUIRED.contains(&key) && key != "SendButton",
        matched: None,
        count: 0,
        visible: false,
        state: "missing",
        discovered: false,
    };
    for css in &alternatives {
        if let Ok(found) = driver.matches(css)
            && found.count > 0
        {
            entry.discovered = discovered == Some(css);
            entry.matched = Some(css.clone());
            entry.count = found.count;
            entry.visible = found.visible;
            entry.state = "found";
            break;
        }
    }
    entry
}

/// What an editor may change when text goes in: blank lines, indentation, trailing spaces,
/// tabs, markup-like text, characters outside ASCII; long enough to need several chunks' care.
fn insert_probe() -> String {
    let mut text = String::from("  keyless doctor: insertion probe\n\n");
    for i in 0..60 {
        text.push_str(&format!(
            "line {i}:\tindented  <b>not html</b> &amp; ünïcödé ✓ *stars*   \n"
        ));
        if i % 9 == 0 {
            text.push_str("\n\n    four spaces\n");
        }
    }
    text.push_str("the end  ");
    text
}

/// Tries each of the site's insertion strategies alone (every strategy keyless knows, on a
/// site that names none), reading the composer back.
pub(super) fn try_inserts(
    driver: &CdpDriver,
    strategies: &[String],
    problems: &mut Vec<String>,
) -> Vec<InsertReport> {
    let probe = insert_probe();
    let mut reports = Vec::new();
    let every: Vec<String> = crate::chat::cdp::STRATEGIES
        .iter()
        .map(|s| s.to_string())
        .collect();
    let strategies = if strategies.is_empty() {
        every.as_slice()
    } else {
        strategies
    };
    for strategy in strategies {
        let _ = driver.clear_composer();
        let started = std::time::Instant::now();
        let result = driver.insert_using(strategy, &probe);
        reports.push(InsertReport {
            strategy: strategy.clone(),
            exact: result.is_ok(),
            ms: started.elapsed().as_millis() as u64,
            problem: result.err().map(|f| format!("{}: {}", f.code, f.reason)),
        });
    }
    if let Err(f) = driver.clear_composer() {
        problems.push(format!("insert: {}: {}", f.code, f.reason));
    }
    if !strategies.is_empty() && reports.iter().all(|r| !r.exact) {
        problems
            .push("insert: no insertion strategy put the probe into the composer exactly".into());
    }
    reports
}

pub(super) fn round_trip(
    driver: &mut CdpDriver,
    problems: &mut Vec<String>,
    discovered: &mut Vec<String>,
) -> Vec<ChannelReport> {
    let message = format!(
        "{CANARY_PREFIX} Reply with exactly the block below, byte for byte, and nothing else.\n\n{CANARY}"
    );
    if let Err(f) = driver.send(&message) {
        problems.push(format!("canary: {}: {}", f.code, f.reason));
        return Vec::new();
    }
    // A reply no channel reads whole never proves itself finished; what the page shows is
    // still worth a look, channel by channel.
    if let Err(f) = driver.wait_reply(&mut |_| {}) {
        problems.push(format!("canary: {}: {}", f.code, f.reason));
    }
    // The sent probe must read back from the chat (UserMessage), or resuming cannot tell
    // whether a message went.
    // A part found by its shape is a finding, not a problem; any other warning is one.
    discovered.extend(driver.take_findings().into_iter().map(|f| f.reason));
    for warning in driver.take_warnings() {
        problems.push(format!("canary: {}: {}", warning.code, warning.reason));
    }
    let inner: String = CANARY
        .lines()
        .skip(1)
        .take(CANARY.lines().count() - 2)
        .collect::<Vec<_>>()
        .join("\n");
    let mut channels = Vec::new();
    let timed = |read: &dyn Fn() -> Result<Option<String>, crate::catalog::Failure>| {
        let started = std::time::Instant::now();
        let value = read().ok().flatten();
        (value, started.elapsed())
    };
    let click_started = std::time::Instant::now();
    let clicked = driver.channel_copy().ok();
    let click_took = click_started.elapsed();
    let copied = match clicked {
        Some(clicked) if clicked.pressed() => {
            let started = std::time::Instant::now();
            let mut text = None;
            while text.is_none() && started.elapsed() < std::time::Duration::from_secs(2) {
                std::thread::sleep(std::time::Duration::from_millis(10));
                text = driver.channel_copied().ok().flatten();
            }
            (text, click_took + started.elapsed())
        }
        _ => (None, click_took),
    };
    for (channel, (text, took), want) in [
        ("copy_button", copied, CANARY),
        ("wire", timed(&|| driver.channel_wire()), CANARY),
        (
            "code_block",
            timed(&|| driver.channel_code_block()),
            inner.as_str(),
        ),
        ("dom", timed(&|| driver.channel_dom()), CANARY),
    ] {
        // The reply's own end may carry a line break more or less than the block (a model ends
        // its reply with one, a site trims it): only the end's white space is let go.
        let exact = text.as_deref().map(str::trim_end) == Some(want.trim_end());
        channels.push(ChannelReport {
            channel,
            exact,
            state: match (&text, exact) {
                (None, _) => "unavailable",
                (Some(_), true) => "exact",
                (Some(_), false) => "not exact",
            },
            chars: text.map_or(0, |t| t.chars().count()),
            ms: took.as_millis() as u64,
        });
    }
    if !channels.iter().any(|c| c.exact) {
        problems.push("canary: no reading channel returned the block exactly".into());
    }
    channels
}

/// Keeps what discovery proved (`keyless doctor --learn`) and says how it differs from the
/// built-in entry.
pub(super) fn learned(driver: &CdpDriver, strategy: Option<&str>) -> Option<LearnedReport> {
    let (path, entry) = match crate::app::chat::keep_learned(
        driver,
        strategy,
        &mut crate::cli::report::Human,
    ) {
        Some(kept) => kept,
        None => {
            eprintln!(
                "keyless doctor --learn: nothing to learn: selectors.json's selectors found every part"
            );
            return None;
        }
    };
    let site = ChatDriver::site(driver);
    let builtin = crate::chat::selectors::load(None)
        .ok()
        .and_then(|file| file.sites.get(&site).cloned());
    Some(LearnedReport {
        path: path.display().to_string(),
        difference: crate::chat::learned::difference(builtin.as_ref(), &entry),
        site,
        entry,
    })
}
