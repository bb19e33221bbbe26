//! `keyless doctor`: opens the chat site and checks it: every selector key (which alternative
//! matched, how many elements, visible or not), a login wall or bot challenge, and with
//! `--canary` a round trip of a hostile block through every reading channel; with `--learn`,
//! keeps what discovery found and proved on the page as learned selectors.

use serde::Serialize;

use crate::chat::ChatDriver;
use crate::chat::cdp::CdpDriver;
use crate::chat::local::CANARY_PREFIX;
use crate::chat::selectors::{KEYS, REQUIRED};
use crate::exit::Status;

use super::args::Shared;

/// A block full of what chat pages destroy: fences, @@ lines, leading spaces, tabs, `*`, `_`, `<`.
const CANARY: &str = "````agentscript\n@@say\n<<<MSG\n*stars* and _underscores_ and <angle> & ampersand\n    four leading spaces\n\ttab\tinside\ntrailing   \n\n\nafter two blank lines\n```\nan inner fence\n```\nMSG>>>\n@@end\n@@done\n@@end\n@@eof\n````";

#[derive(Serialize)]
struct KeyReport {
    key: &'static str,
    required: bool,
    /// The first alternative that matched, or null.
    matched: Option<String>,
    count: usize,
    visible: bool,
    /// "found", "missing", or "unchecked" (a turn part on a page with no turns yet: only the
    /// canary exchange draws one).
    state: &'static str,
    /// Found by its shape, not by selectors.json's selectors.
    discovered: bool,
}

/// The parts a page shows only once a message was exchanged: checked after the canary.
const TURN_KEYS: &[&str] = &[
    "UserMessage",
    "AssistantMessage",
    "Completed",
    "CopyButton",
    "CodeBlock",
];

#[derive(Serialize)]
struct ChannelReport {
    channel: &'static str,
    exact: bool,
    /// "exact", "not exact", or "unavailable" (the channel knew it could not read the reply:
    /// no copy control, no single code block that is the whole reply).
    state: &'static str,
    chars: usize,
    ms: u64,
}

#[derive(Serialize)]
struct InsertReport {
    strategy: String,
    exact: bool,
    ms: u64,
    problem: Option<String>,
}

#[derive(Serialize)]
struct Report {
    site: String,
    url: String,
    healthy: bool,
    login_wall: bool,
    challenge: bool,
    selectors: Vec<KeyReport>,
    canary: Option<Vec<ChannelReport>>,
    /// With --canary: each insertion strategy of the site, tried alone.
    inserts: Option<Vec<InsertReport>>,
    problems: Vec<String>,
    /// Where a sketch of the page was saved, when there were problems.
    sketch: Option<String>,
    /// What contains the model's commands on this machine.
    sandbox: String,
    /// The parts no selector found and discovery did, with what it found.
    discovered: Vec<String>,
    /// With --learn: where the learned entry was kept, the entry, and its difference from the
    /// built-in one (`+` new, `=` known).
    learned: Option<LearnedReport>,
}

#[derive(Serialize)]
struct LearnedReport {
    path: String,
    site: String,
    entry: crate::chat::selectors::Site,
    difference: Vec<String>,
}

/// How long doctor waits for the canary's reply (a model repeating a few lines).
const CANARY_REPLY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(40);
/// How long a canary reply may stay without its end before doctor calls it truncated.
const CANARY_TRUNCATION_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

pub fn run(shared: &Shared, json: bool, canary: bool, learn: bool) -> Status {
    // Learning proves what it keeps in an exchange.
    let canary = canary || learn;
    let config = match shared.load_config("doctor") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let mut options = match super::driver_options(shared, &config, "doctor") {
        Ok(options) => options,
        Err(status) => return status,
    };
    // doctor never hangs: its canary is short, and a page that does not answer it is a
    // problem to report, not to wait ten minutes for.
    options.reply_timeout = options.reply_timeout.min(CANARY_REPLY_TIMEOUT);
    options.truncation_budget = options.truncation_budget.min(CANARY_TRUNCATION_BUDGET);
    let site_name = options.site_name.clone();
    let url = options.url.clone();
    let options_profile = options.profile.clone();
    let site = options.site.clone();
    let mut problems = Vec::new();
    let mut driver = match CdpDriver::start_for_inspection(options) {
        Ok((driver, not_ready)) => {
            // A page without its composer is exactly when the whole table is needed: the
            // failure is one problem, and every other part is still checked.
            if let Some(failure) = not_ready {
                problems.push(format!("{}: {}", failure.code, failure.reason));
            }
            Some(driver)
        }
        Err(failure) => {
            problems.push(format!("{}: {}", failure.code, failure.reason));
            None
        }
    };
    let mut report = Report {
        site: site_name,
        url,
        healthy: false,
        login_wall: false,
        challenge: false,
        selectors: Vec::new(),
        canary: None,
        inserts: None,
        problems: Vec::new(),
        sketch: None,
        sandbox: {
            let root = shared.workspace.clone().unwrap_or_else(|| ".".into());
            super::setup::containment_here(shared, &root).0.line()
        },
        discovered: Vec::new(),
        learned: None,
    };
    if let Some(driver) = driver.as_mut() {
        report.selectors = KEYS.iter().map(|key| check_key(driver, key)).collect();
        let page = driver.glance().unwrap_or_default();
        let text = page.text.to_lowercase();
        report.challenge = page.challenge
            || page.title.contains("Just a moment")
            || text.contains("verify you are human");
        report.login_wall = site
            .texts
            .get("LoginRequired")
            .is_some_and(|phrases| phrases.iter().any(|p| text.contains(&p.to_lowercase())))
            && report
                .selectors
                .iter()
                .any(|s| s.key == "Composer" && s.matched.is_none());
        if report.challenge {
            problems.push("the page shows a bot challenge: solve it once in this browser profile (run without --headless)".into());
        }
        if report.login_wall {
            problems.push("the page asks you to log in: log in once in this browser profile (run without --headless)".into());
        }
        let composer_found = report
            .selectors
            .iter()
            .any(|s| s.key == "Composer" && s.matched.is_some());
        if canary && composer_found && !report.challenge && !report.login_wall {
            report.inserts = Some(try_inserts(driver, &site.insert, &mut problems));
            report.canary = Some(round_trip(driver, &mut problems, &mut report.discovered));
            // The turn parts exist now, and discovery may have found parts: look again.
            report.selectors = KEYS.iter().map(|key| check_key(driver, key)).collect();
            if learn {
                let strategy = report
                    .inserts
                    .iter()
                    .flatten()
                    .find(|i| i.exact)
                    .map(|i| i.strategy.clone());
                report.learned = learned(driver, strategy.as_deref());
            }
        }
        // A turn part that was not found on a page with no turns is unchecked, not missing.
        let turns_drawn = report
            .selectors
            .iter()
            .any(|s| matches!(s.key, "UserMessage" | "AssistantMessage") && s.matched.is_some());
        for entry in report.selectors.iter_mut() {
            if entry.matched.is_none() && TURN_KEYS.contains(&entry.key) && !turns_drawn {
                entry.state = "unchecked";
            }
            // selectors.json's alternatives for a part the chat needs that match nothing are
            // a problem even when discovery stood in: the entry is out of date.
            let given = site
                .selectors
                .get(entry.key)
                .filter(|alternatives| !alternatives.is_empty());
            let needed = entry.required || entry.key == "SendButton";
            let stale = entry.state == "missing" || entry.discovered;
            match given {
                Some(alternatives) if needed && stale && entry.state != "unchecked" => {
                    let instead = match (&entry.matched, entry.key) {
                        (Some(css), _) if entry.discovered => format!(
                            "; keyless found it by its shape as {css} (`keyless doctor --learn` keeps it)"
                        ),
                        (_, "SendButton") => "; Enter sends instead".to_string(),
                        _ => ", and nothing on the page has its shape".to_string(),
                    };
                    problems.push(format!(
                        "{}: none of {} matched{instead}",
                        entry.key,
                        alternatives.join(" | ")
                    ));
                }
                None if entry.required && entry.state == "missing" => problems.push(format!(
                    "{}: no selector for it, and nothing on the page has its shape",
                    entry.key
                )),
                _ => {}
            }
        }
    }
    if let Some(driver) = driver {
        if !problems.is_empty() {
            // What the page looked like, for a report when the site changed.
            let folder = options_profile.join("keyless-sketches");
            report.sketch = driver
                .save_sketch(&folder, "keyless doctor found problems")
                .map(|p| p.display().to_string());
        }
        driver.close();
    }
    // Healthy only when every required part was found: an unchecked one is not known to work.
    report.healthy = problems.is_empty()
        && report
            .selectors
            .iter()
            .all(|s| !s.required || s.state == "found");
    report.problems = problems;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print_text(&report);
    }
    // Unchecked turn parts are no problem found: the exit status says whether one was.
    if report.problems.is_empty() {
        Status::Success
    } else {
        Status::Chat
    }
}

/// Looks for one key's alternatives on the page (as the session uses them: what discovery
/// found first): the first that matches, how many, visible.
fn check_key(driver: &mut CdpDriver, key: &'static str) -> KeyReport {
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
fn try_inserts(
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

fn round_trip(
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
    let copied = match clicked.as_deref() {
        Some("clicked" | "discovered") => {
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
        (
            "code_block",
            timed(&|| driver.channel_code_block()),
            inner.as_str(),
        ),
        ("dom", timed(&|| driver.channel_dom()), CANARY),
    ] {
        let exact = text.as_deref() == Some(want);
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
fn learned(driver: &CdpDriver, strategy: Option<&str>) -> Option<LearnedReport> {
    let (path, entry) = match super::keep_learned(driver, strategy) {
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

fn print_text(report: &Report) {
    let unchecked = report.selectors.iter().any(|s| s.state == "unchecked");
    println!(
        "{} ({}): {}",
        report.site,
        report.url,
        if report.healthy {
            "healthy"
        } else if report.problems.is_empty() && unchecked {
            "no problem found so far; the turn parts are unchecked (keyless doctor --canary exchanges a message to check them)"
        } else {
            "problems found"
        }
    );
    for s in &report.selectors {
        match &s.matched {
            Some(css) => println!(
                "  {:<16} {} element(s){}  via {css}",
                s.key,
                s.count,
                if s.visible { "" } else { ", hidden" }
            ),
            None => println!(
                "  {:<16} {}",
                s.key,
                match (s.state, s.required) {
                    ("unchecked", _) => "unchecked (no turn on the page yet)",
                    (_, true) => "NOT FOUND (required)",
                    _ => "not found",
                }
            ),
        }
    }
    for i in report.inserts.iter().flatten() {
        println!(
            "  insert via {:<16} {} ({} ms){}",
            i.strategy,
            if i.exact { "exact" } else { "NOT exact" },
            i.ms,
            i.problem
                .as_deref()
                .map(|p| format!(": {p}"))
                .unwrap_or_default()
        );
    }
    if let Some(channels) = &report.canary {
        for c in channels {
            println!(
                "  canary via {:<12} {} ({} ms){}",
                c.channel,
                match c.state {
                    "not exact" => "NOT exact",
                    state => state,
                },
                c.ms,
                if c.channel == "dom" {
                    "; never executed: a reply only read this way is asked again, fenced"
                } else {
                    ""
                }
            );
        }
    }
    println!("  {}", report.sandbox);
    for d in &report.discovered {
        println!("discovered: {d}");
    }
    if let Some(learned) = &report.learned {
        println!(
            "learned: the entry for {} is kept in {} (used before discovery next time); to contribute it to selectors.json:",
            learned.site, learned.path
        );
        let entry = serde_json::to_string_pretty(&learned.entry).unwrap_or_default();
        println!("\"{}\": {entry}", learned.site);
        println!("difference from the built-in entry (+ new, = already there):");
        for line in &learned.difference {
            println!("  {line}");
        }
    }
    for p in &report.problems {
        println!("problem: {p}");
    }
    if let Some(sketch) = &report.sketch {
        println!(
            "A sketch of the page (its structure, without text) is in {sketch}; attach it to a report if the site changed."
        );
    }
}
