//! git's writes that are never allowed: configuration that names a program (`git config`,
//! `git -c`), configuration of other repositories (`--global`, `--system`, `--file`), and
//! pushes that force or delete (`-f`, `--force-with-lease`, `--mirror`, `+refspec`, `:branch`).

use super::vocab::{ReasonKind, Tier, Verdict};

/// A configuration key set for one command (`git -c`) or written (`git config`).
pub(super) fn config_setting(key: &str, via: &str) -> Verdict {
    if config_key_runs_programs(key) {
        Verdict::new(
            Tier::Denied,
            ReasonKind::GitConfig,
            format!("{via} {key} makes git run a program of the model's choosing"),
        )
    } else {
        Verdict::new(
            Tier::Risky,
            ReasonKind::RunsProgram,
            format!("{via} {key}: configuration for the command, which can change what git runs"),
        )
    }
}

pub(super) fn config(rest: &[&str], positional: &[&str]) -> Verdict {
    let reading = rest.iter().any(|a| {
        matches!(
            *a,
            "--get"
                | "--get-all"
                | "--get-regexp"
                | "--list"
                | "-l"
                | "--show-origin"
                | "--get-urlmatch"
                | "--show-scope"
                | "--name-only"
        )
    }) || matches!(positional.first(), Some(&"get" | &"list"));
    let outside = rest
        .iter()
        .any(|a| matches!(*a, "--global" | "--system") || a.starts_with("--file") || *a == "-f");
    let program_key = positional.iter().find(|k| config_key_runs_programs(k));
    match (reading, outside) {
        (true, _) => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "git config: reads configuration",
        ),
        (false, _) if program_key.is_some() => {
            config_setting(program_key.copied().unwrap_or_default(), "git config")
        }
        (false, true) => Verdict::new(
            Tier::Denied,
            ReasonKind::GitConfig,
            "git config --global/--system/--file changes git for other repositories",
        ),
        (false, false) => Verdict::new(
            Tier::Risky,
            ReasonKind::GitWrite,
            "git config: changes the repository's configuration",
        ),
    }
}

/// Git configuration keys whose value names a program git runs (or more configuration to
/// read): setting one is handing git a command (research: core.fsmonitor and core.hooksPath
/// turned "read-only" git into code execution in other agents).
fn config_key_runs_programs(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let section_ends = |section: &str, name: &str| k.starts_with(section) && k.ends_with(name);
    matches!(
        k.as_str(),
        "core.hookspath"
            | "core.fsmonitor"
            | "core.sshcommand"
            | "core.pager"
            | "core.editor"
            | "core.askpass"
            | "core.gitproxy"
            | "core.worktree"
            | "sequence.editor"
            | "diff.external"
            | "diff.tool"
            | "merge.tool"
            | "credential.helper"
            | "gpg.program"
            | "include.path"
            | "uploadpack.packobjectshook"
            | "core.alternaterefscommand"
            | "protocol.allow"
            | "web.browser"
            | "instaweb.httpd"
            | "sendemail.smtpserver"
            | "log.showsignature"
            | "safe.directory"
            | "core.bare"
    ) || [
        "alias.",
        "includeif.",
        "filter.",
        "pager.",
        "difftool.",
        "mergetool.",
        "man.",
        "protocol.",
    ]
    .iter()
    .any(|p| k.starts_with(p))
        || section_ends("diff.", ".textconv")
        || section_ends("diff.", ".command")
        || section_ends("merge.", ".driver")
        || section_ends("gpg.", ".program")
        || section_ends("credential.", ".helper")
        || section_ends("remote.", ".uploadpack")
        || section_ends("remote.", ".receivepack")
        || section_ends("remote.", ".proxy")
        || section_ends("http.", ".proxy")
        || section_ends("submodule.", ".update")
}

pub(super) fn push(rest: &[&str]) -> Verdict {
    for a in rest {
        let forced = matches!(
            *a,
            "--force" | "--mirror" | "--delete" | "--prune" | "--force-if-includes"
        ) || a.starts_with("--force-with-lease")
            || a.starts_with("--force=")
            || (a.starts_with('-') && !a.starts_with("--") && (a.contains('f') || a.contains('d')));
        if forced {
            return Verdict::new(
                Tier::Denied,
                ReasonKind::ForcePush,
                format!("git push {a}: a force push or remote deletion"),
            );
        }
        if !a.starts_with('-')
            && (a.starts_with('+')
                || a.contains(':')
                    && a.split(':')
                        .next()
                        .is_some_and(|s| s.is_empty() || s.starts_with('+'))
                || a.contains(":+"))
        {
            return Verdict::new(
                Tier::Denied,
                ReasonKind::ForcePush,
                format!("git push {a}: a forced or deleting refspec"),
            );
        }
    }
    Verdict::new(
        Tier::Risky,
        ReasonKind::GitWrite,
        "git push: sends commits to a remote",
    )
}
