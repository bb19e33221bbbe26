//! The built `keyless` against the local chat page in headless Chromium: `keyless <args>
//! --site local --headless --url <page> --workspace <ws> --profile <profile>`, with the profile
//! as its config folder and no standard input; attached to the shared browser
//! ([`keyless_on`]) or launching its own ([`keyless_launching`]).

use std::path::Path;
use std::process::{Command, Stdio};

use keyless::chat::local::LocalChat;

/// keyless attached to the test binary's shared browser (`--cdp`), in a tab of its own.
pub fn keyless_on(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> Command {
    let mut cmd = keyless_launching(chat, ws, profile, args);
    cmd.args(["--cdp", super::shared_browser::cdp_url()]);
    cmd
}

/// keyless launching its own browser on `profile`, as it does by default: for the tests of
/// launching itself (the profile claimed, a killed keyless's browser adopted).
pub fn keyless_launching(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_keyless"));
    cmd.args(args)
        .args(["--site", "local", "--headless", "--url"])
        .arg(chat.url())
        .arg("--workspace")
        .arg(ws)
        .arg("--profile")
        .arg(profile)
        .env("XDG_CONFIG_HOME", profile)
        .stdin(Stdio::null());
    cmd
}
