//! The built `keyless` against the local chat page in headless Chromium: `keyless <args>
//! --site local --headless --url <page> --workspace <ws> --profile <profile>`, with the profile
//! as its config folder and no standard input.

use std::path::Path;
use std::process::{Command, Stdio};

use keyless::chat::local::LocalChat;

pub fn keyless_on(chat: &LocalChat, ws: &Path, profile: &Path, args: &[&str]) -> Command {
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
