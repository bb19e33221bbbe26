//! The environment filter, on every platform, sandbox or not: variables whose names mark them as
//! secret (and those `Sandbox.HiddenEnv` names, and the agent sockets) never reach the model's
//! processes, since a command could print them re-encoded, which no redactor can catch.

use std::ffi::OsString;
use std::process::Command;

use crate::config::SandboxConfig;

/// Environment variables that are never given to the model's processes although their names do
/// not look secret: they hand over a credential (the ssh agent) or a way out of the sandbox.
const HIDDEN_ENV: &[&str] = &[
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
];

/// Removes from the command's environment every variable whose name marks it as secret (and
/// those `Sandbox.HiddenEnv` names), except those `Sandbox.PassEnv` hands through.
pub fn filter_env(command: &mut Command, config: &SandboxConfig) {
    for name in hidden_env_names(std::env::vars_os().map(|(k, _)| k), config) {
        command.env_remove(name);
    }
}

/// The names among `names` that are withheld from the model's processes.
pub fn hidden_env_names(
    names: impl Iterator<Item = OsString>,
    config: &SandboxConfig,
) -> Vec<OsString> {
    names
        .filter(|name| {
            let Some(text) = name.to_str() else {
                return false;
            };
            let passed = config.pass_env.iter().any(|p| p.eq_ignore_ascii_case(text));
            let hidden = crate::redact::is_secret_env_name(text)
                || HIDDEN_ENV.iter().any(|h| h.eq_ignore_ascii_case(text))
                || config
                    .hidden_env
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(text));
            hidden && !passed
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_withheld_unless_passed() {
        let config = SandboxConfig {
            hidden_env: vec!["MY_VAR".into()],
            pass_env: vec!["NPM_TOKEN".into()],
            ..SandboxConfig::default()
        };
        let names = [
            "GITHUB_TOKEN",
            "NPM_TOKEN",
            "PATH",
            "MY_VAR",
            "SSH_AUTH_SOCK",
            "HOME",
            "AWS_SECRET_ACCESS_KEY",
        ]
        .map(OsString::from);
        let hidden = hidden_env_names(names.into_iter(), &config);
        assert_eq!(
            hidden,
            [
                "GITHUB_TOKEN",
                "MY_VAR",
                "SSH_AUTH_SOCK",
                "AWS_SECRET_ACCESS_KEY"
            ]
            .map(OsString::from)
        );
    }
}
