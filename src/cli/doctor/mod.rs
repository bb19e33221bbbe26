//! `keyless doctor`: opens the chat site and checks it: every selector key (which alternative
//! matched, how many elements, visible or not), a login wall or bot challenge, and with
//! `--canary` a round trip of a hostile block through every reading channel; with `--learn`,
//! keeps what discovery found and proved on the page as learned selectors.

use serde::Serialize;

use crate::chat::cdp::CdpDriver;
use crate::chat::selectors::KEYS;
use crate::exit::Status;

use super::args::Shared;

mod print;
mod probe;

use print::print_text;
use probe::{check_key, learned, round_trip, try_inserts};

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
    /// With --models: what the page's model picker offers (`null` rows: no picker found).
    #[serde(skip_serializing_if = "Option::is_none")]
    models: Option<ModelsReport>,
}

/// What `keyless doctor --models` found of the model picker.
#[derive(Serialize)]
struct ModelsReport {
    /// A picker was found (by the selectors or by its shape).
    found: bool,
    /// The picker's own words, how it was found, and every row it offers.
    #[serde(flatten)]
    offered: Option<crate::chat::models::Offered>,
    /// The rows that are models and those that are effort levels, by label.
    models: Vec<String>,
    efforts: Vec<String>,
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

pub fn run(shared: &Shared, json: bool, canary: bool, learn: bool, models: bool) -> Status {
    // Learning proves what it keeps in an exchange.
    let canary = canary || learn;
    let config = match shared.load_config("doctor") {
        Ok(config) => config,
        Err(status) => return status,
    };
    let mut options = match crate::app::chat::driver_options(
        &shared.choices(),
        &config,
        &mut super::report::Human,
    ) {
        Ok(options) => options,
        Err(e) => return super::setup::refused("doctor", &e),
    };
    options.notice = Some(super::terminal::notice);
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
        models: None,
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
    if let (true, Some(driver)) = (models, driver.as_ref()) {
        match driver.models_offered() {
            Ok(offered) => {
                let labels = |rows: Vec<&crate::chat::models::Row>| {
                    rows.iter().map(|r| r.label.clone()).collect()
                };
                report.models = Some(ModelsReport {
                    found: offered.is_some(),
                    models: offered
                        .as_ref()
                        .map_or_else(Vec::new, |o| labels(o.models())),
                    efforts: offered
                        .as_ref()
                        .map_or_else(Vec::new, |o| labels(o.efforts())),
                    offered,
                });
            }
            Err(failure) => problems.push(format!("{}: {}", failure.code, failure.reason)),
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
    super::report::Format::of(json).give(
        || {
            println!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            )
        },
        || print_text(&report),
    );
    // Unchecked turn parts are no problem found: the exit status says whether one was.
    if report.problems.is_empty() {
        Status::Success
    } else {
        Status::Chat
    }
}
