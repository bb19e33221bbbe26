//! The built `keyless` on a chat page in headless Chromium, one way for every test that runs
//! it on a page: [`keyless_at`] builds `keyless <args> [--site <site>] --headless --url <page>
//! --profile <profile>` with its own config folder and no standard input; [`attached`] puts it
//! in a tab of the test binary's shared browser (`--cdp`). On the local chat page: attached
//! ([`keyless_on`]) or launching its own browser ([`keyless_launching`]), the profile as its
//! config folder.

use std::path::Path;
use std::process::{Command, Stdio};

use keyless::chat::local::LocalChat;

/// keyless on the page at `url`, with `site`'s selectors (`None`: a page keyless does not
/// know, its parts found by their shape), the browser profile `profile` and `config` as its
/// config folder (`XDG_CONFIG_HOME`).
pub fn keyless_at(
    url: &str,
    site: Option<&str>,
    profile: &Path,
    config: &Path,
    args: &[&str],
) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_keyless"));
    cmd.args(args);
    if let Some(site) = site {
        cmd.args(["--site", site]);
    }
    cmd.args(["--headless", "--url", url])
        .arg("--profile")
        .arg(profile)
        .env("XDG_CONFIG_HOME", config)
        .stdin(Stdio::null());
    cmd
}

/// `cmd` in a tab of the test binary's shared browser instead of a browser of its own.
pub fn attached(mut cmd: Command) -> Command {
    cmd.args(["--cdp", super::shared_browser::cdp_url()]);
    cmd
}

/// keyless attached to the test binary's shared browser (`--cdp`), in a tab of its own.
pub fn keyless_on(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> Command {
    attached(keyless_launching(chat, ws, profile, args))
}

/// keyless launching its own browser on `profile`, as it does by default: for the tests of
/// launching itself (the profile claimed, a killed keyless's browser adopted).
pub fn keyless_launching(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> Command {
    let mut cmd = keyless_at(&chat.url(), Some("local"), profile, profile, args);
    cmd.arg("--workspace").arg(ws);
    cmd
}
