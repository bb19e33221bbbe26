//! Opening and closing the chat: the driver's options from the choices, `keyless.json`, the
//! selectors file and what keyless learned on the page before; starting the driver; and, when a
//! command ends, keeping what discovery proved on the page (learned selectors).
//!
//! What it does not do: drive the page (`chat::cdp` does), or tell a person at a login wall
//! what to do (the front door sets [`crate::chat::cdp::Options::notice`]).

use std::path::PathBuf;

use super::Choices;
use super::error::StartError;
use super::report::Report;
use crate::catalog::Failure;
use crate::chat::cdp::{CdpDriver, Options};

/// Starts the chat driver; a failure is told as a warning, with its code, and returned.
pub fn open(
    options: Options,
    command: &str,
    report: &mut dyn Report,
) -> Result<CdpDriver, Failure> {
    report.note(&format!(
        "keyless: opening {} ({}) in {}",
        options.site_name,
        options.url,
        options.profile.display()
    ));
    let mut driver = CdpDriver::start(options).inspect_err(|failure| {
        report.warn(&format!(
            "keyless {command}: {}: {}",
            failure.code, failure.reason
        ));
    })?;
    // What discovery proves is kept as it is proved, not only as keyless ends: a run killed
    // (a crash, a second Ctrl+C in a limit's wait) still finds its chat on the resume.
    driver.keep_learned_in(crate::chat::learned::path(&config_folder()));
    let chosen = driver.confirmed();
    if chosen.model.is_some() || chosen.effort.is_some() {
        let what: Vec<String> = [("model", &chosen.model), ("effort", &chosen.effort)]
            .into_iter()
            .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name} \"{v}\"")))
            .collect();
        report.note(&format!(
            "keyless {command}: {} chosen and read back on the page",
            what.join(", ")
        ));
        report.model_chosen(chosen);
    }
    Ok(driver)
}

/// The address of the site whose chat the workspace's saved session holds (the chat's origin:
/// a new chat opens there; the saved chat itself is reopened by the turn).
fn saved_site(choices: &Choices) -> Option<String> {
    let ws = crate::workspace::Workspace::open(&choices.workspace_or_here()).ok()?;
    let chat = crate::turn::record::load_session(&ws)?.chat_url?;
    let parsed = url::Url::parse(&chat).ok()?;
    Some(format!("{}/", parsed.origin().ascii_serialization()))
}

/// The chat driver's options from the choices, over `keyless.json`, over the site's defaults.
pub fn driver_options(
    choices: &Choices,
    config: &crate::config::Config,
    report: &mut dyn Report,
) -> Result<Options, StartError> {
    let file =
        crate::chat::selectors::load(choices.selectors.as_deref()).map_err(StartError::Chat)?;
    let site = choices.site.clone().or(config.agent.site.clone());
    // Neither a site nor an address chosen: the site of the workspace's saved chat (the
    // `keyless run --resume` a stop names goes on where the run was, on a page no selectors file
    // knows too).
    let url = choices
        .url
        .clone()
        .or(config.browser.url.clone())
        .or_else(|| site.is_none().then(|| saved_site(choices)).flatten());
    let (mut site_name, mut site) = file
        .site(site.as_deref(), url.as_deref())
        .map_err(StartError::Chat)?;
    // What discovery proved on this page before goes first (learned selectors).
    let learned_path = crate::chat::learned::path(&config_folder());
    let learned = crate::chat::learned::load(&learned_path).map_err(StartError::Chat)?;
    if site.discovered {
        let known = learned
            .known(Some(&site_name), None)
            .or_else(|_| learned.known(None, url.as_deref()));
        if let Ok((name, entry)) = known {
            site_name = name;
            site.learn_from(&entry);
            site.matches = entry.matches;
            report.warn(&format!(
                "keyless: no site in selectors.json matches this page; using the selectors keyless learned on it ({})",
                learned_path.display()
            ));
        } else {
            report.warn(&format!(
                "keyless: no site in selectors.json matches {}: keyless finds the page's parts by their shape (discovery) and says what it found. What it proves is kept in {} for the next runs.",
                url.as_deref().unwrap_or_default(),
                learned_path.display()
            ));
        }
    } else if let Some(entry) = learned.sites.get(&site_name) {
        site.learn_from(entry);
    }
    let headless = choices.headless || config.browser.headless;
    let profile = profile(choices, config);
    // keyless.json's model and effort for this site; the choices win.
    let chosen = config.browser.models.get(&site_name);
    Ok(Options {
        url: url.unwrap_or_else(|| site.url.clone()),
        site_name,
        site,
        cdp_url: choices.cdp.clone().or(config.browser.cdp_url.clone()),
        executable: choices
            .browser
            .clone()
            .or(config.browser.executable_path.clone()),
        headless,
        profile,
        reply_timeout: std::time::Duration::from_secs(config.browser.reply_timeout_seconds),
        truncation_budget: std::time::Duration::from_secs(config.browser.truncation_budget_seconds),
        stall: std::time::Duration::from_secs(config.browser.stall_seconds),
        // In a window the user can log in; headless, nobody can.
        login_wait: if headless {
            std::time::Duration::ZERO
        } else {
            LOGIN_WAIT
        },
        // Set by the front door that has someone to tell.
        notice: None,
        // Set by the command that knows where its logs go.
        sketches: None,
        attach_wait: crate::chat::cdp::ATTACH_CHIP_WAIT,
        wanted: crate::chat::models::Wanted {
            model: choices
                .wanted
                .model
                .clone()
                .or_else(|| chosen.and_then(|c| c.model.clone())),
            effort: choices
                .wanted
                .effort
                .clone()
                .or_else(|| chosen.and_then(|c| c.effort.clone())),
            allow_fallback: choices.wanted.allow_fallback,
            temporary: choices.wanted.temporary,
        },
        replies: crate::chat::cdp::Replies::AgentScript,
    })
}

/// How long a login wall in a visible browser waits for the user.
const LOGIN_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// The browser profile keyless uses: `--profile`, `Browser.UserDataDir`, or its own.
pub fn profile(choices: &Choices, config: &crate::config::Config) -> PathBuf {
    choices
        .profile
        .clone()
        .or(config.browser.user_data_dir.clone())
        .unwrap_or_else(default_profile)
}

/// The browser profile keyless keeps, so the user logs in once: `$XDG_CONFIG_HOME/keyless/profile`
/// or `~/.config/keyless/profile`.
fn default_profile() -> PathBuf {
    config_folder().join("profile")
}

/// keyless's own config folder: `$XDG_CONFIG_HOME/keyless` or `~/.config/keyless` (the
/// browser profile, learned selectors).
pub fn config_folder() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(std::env::temp_dir)
        .join("keyless")
}

/// Keeps what discovery found and proved on the page (with `strategy`, the insertion that
/// worked, when known) in the learned selectors, merged with what was learned on the site
/// before, and says so. The path and the entry kept, or `None` when nothing was found.
pub fn keep_learned(
    driver: &CdpDriver,
    strategy: Option<&str>,
    report: &mut dyn Report,
) -> Option<(PathBuf, crate::chat::selectors::Site)> {
    use crate::chat::learned;
    let found = &driver.learned().selectors;
    let path = learned::path(&config_folder());
    let site = crate::chat::ChatDriver::site(driver);
    match learned::keep(&path, &site, driver.site_entry(), found, strategy) {
        Ok(Some(entry)) => {
            let mut kept: Vec<String> = found.keys().cloned().collect();
            kept.extend(entry.insert.first().map(|s| format!("insertion by {s}")));
            report.warn(&format!(
                "keyless: kept what worked on {site} ({}) in {}; it is used first next time",
                kept.join(", "),
                path.display()
            ));
            Some((path, entry))
        }
        Ok(None) => None,
        Err(failure) => {
            report.warn(&format!("keyless: {}: {}", failure.code, failure.reason));
            None
        }
    }
}

/// Closes the chat driver, keeping first what discovery proved on the page and the insertion
/// strategy that worked.
pub fn close(driver: CdpDriver, report: &mut dyn Report) {
    keep_learned(&driver, driver.inserted_with(), report);
    driver.close();
}
