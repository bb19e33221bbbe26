//! git's writes that are never allowed: configuration that names a program (`git config`,
//! `git -c`), configuration of other repositories (`--global`, `--system`, `--file`), and
//! pushes that force or delete (`-f`, `--force-with-lease`, `--mirror`, `+refspec`, `:branch`).

use super::vocab::{ReasonKind, Tier, Verdict, long_is};

/// A configuration key set for one command (`git -c`, `clone --config`) or written
/// (`git config`), with its value when known.
pub(super) fn config_setting(key: &str, value: Option<&str>, via: &str) -> Verdict {
    if config_key_runs_programs(key) {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::GitConfig,
            format!("{via} {key} makes git run a program of the model's choosing"),
        );
    }
    let k = key.to_ascii_lowercase();
    let forcing = k.starts_with("remote.") && k.ends_with(".mirror")
        || k.starts_with("remote.")
            && k.ends_with(".push")
            && value.is_some_and(|v| v.starts_with(['+', ':']));
    if forcing {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::ForcePush,
            format!("{via} {key}: makes pushes force or delete"),
        );
    }
    Verdict::new(
        Tier::Risky,
        ReasonKind::RunsProgram,
        format!("{via} {key}: configuration for the command, which can change what git runs"),
    )
}

/// `git config`'s options that only read.
const READING: &[&str] = &[
    "get",
    "get-all",
    "get-regexp",
    "get-urlmatch",
    "get-color",
    "get-colorbool",
    "list",
    "show-origin",
    "show-scope",
    "name-only",
];

/// `git config`'s options that name another configuration file than the repository's.
const OUTSIDE: &[&str] = &["global", "system", "file"];

/// Every long option of `git config`, to tell an option given in full from an abbreviation
/// of another (`--get` is itself, not `--get-regexp`).
const ALL: &[&str] = &[
    "get",
    "get-all",
    "get-regexp",
    "get-urlmatch",
    "get-color",
    "get-colorbool",
    "list",
    "show-origin",
    "show-scope",
    "name-only",
    "global",
    "system",
    "file",
    "local",
    "worktree",
    "blob",
    "add",
    "replace-all",
    "unset",
    "unset-all",
    "rename-section",
    "remove-section",
    "edit",
    "type",
    "bool",
    "int",
    "bool-or-int",
    "path",
    "expiry-date",
    "no-type",
    "null",
    "includes",
    "no-includes",
    "default",
    "fixed-value",
    "comment",
    "all",
    "value",
    "url",
];

/// Whether `arg` is `--name`, or an abbreviation of it that is no other option in full.
fn option_is(arg: &str, name: &str) -> bool {
    let given = arg
        .strip_prefix("--")
        .map(|a| a.split('=').next().unwrap_or(a));
    match given {
        Some(g) if g == name => true,
        Some(g) if ALL.contains(&g) => false,
        _ => long_is(arg, name),
    }
}

pub(super) fn config(rest: &[&str], positional: &[&str]) -> Verdict {
    let option = |a: &str, names: &[&str]| names.iter().any(|n| option_is(a, n));
    let reading = rest.iter().any(|a| option(a, READING) || *a == "-l")
        || matches!(positional.first(), Some(&"get" | &"list" | &"get-regexp"));
    let outside = rest
        .iter()
        .any(|a| option(a, OUTSIDE) || *a == "-f" || a.starts_with("-f") && !a.starts_with("--"));
    let renames = rest.iter().any(|a| option_is(a, "rename-section"))
        || positional.first() == Some(&"rename-section");
    let program_key = positional.iter().find(|k| config_key_runs_programs(k));
    if reading && !renames {
        return read_config(rest, positional);
    }
    if renames {
        // `--rename-section x core` moves every key of x into core (`x.fsmonitor` becomes
        // `core.fsmonitor`): a section that holds keys that run programs is a place to plant
        // one.
        let into = positional.iter().rev().find(|p| **p != "rename-section");
        let section = into.map(|s| s.split('.').next().unwrap_or(s).to_ascii_lowercase());
        return match section {
            Some(s) if PROGRAM_SECTIONS.contains(&s.as_str()) || outside => Verdict::new(
                Tier::Denied,
                ReasonKind::GitConfig,
                format!("git config --rename-section into {s}: its keys can make git run programs"),
            ),
            _ => Verdict::new(
                Tier::Risky,
                ReasonKind::GitWrite,
                "git config --rename-section: changes the repository's configuration",
            ),
        };
    }
    if let Some(key) = program_key {
        return config_setting(key, None, "git config");
    }
    if outside {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::GitConfig,
            "git config --global/--system/--file changes git for other repositories",
        );
    }
    if let [.., key, value] = positional
        && let forcing @ Verdict {
            tier: Tier::Denied, ..
        } = config_setting(key, Some(value), "git config")
    {
        return forcing;
    }
    Verdict::new(
        Tier::Risky,
        ReasonKind::GitWrite,
        "git config: changes the repository's configuration",
    )
}

/// Reading configuration: ReadOnly for a named key that holds no secret, Risky for a list or a
/// pattern (the remotes' URLs carry tokens) and for secret-bearing keys.
fn read_config(rest: &[&str], positional: &[&str]) -> Verdict {
    let names_only = rest.iter().any(|a| option_is(a, "name-only"));
    let listing = rest.iter().any(|a| {
        *a == "-l"
            || ["list", "get-regexp", "get-urlmatch"]
                .iter()
                .any(|n| option_is(a, n))
    }) || matches!(positional.first(), Some(&"list" | &"get-regexp"));
    let secret_key = positional.iter().find(|k| key_holds_secret(k));
    match (listing && !names_only, secret_key) {
        (true, _) => Verdict::new(
            Tier::Risky,
            ReasonKind::Secret,
            "git config --list: prints every setting, the remotes' URLs and the tokens in them included",
        ),
        (false, Some(key)) => Verdict::new(
            Tier::Risky,
            ReasonKind::Secret,
            format!("git config: {key} may hold a token or a password"),
        ),
        (false, None) => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "git config: reads configuration",
        ),
    }
}

/// Keys whose value may be a credential: URLs (a token in them), headers, cookies, passwords.
fn key_holds_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let last = k.rsplit('.').next().unwrap_or(&k);
    [
        "url",
        "pushurl",
        "token",
        "pass",
        "secret",
        "auth",
        "cookie",
        "header",
        "credential",
    ]
    .iter()
    .any(|w| last.contains(w))
        || ["credential.", "http.", "url."]
            .iter()
            .any(|s| k.starts_with(s))
}

/// Sections every key of which makes git run a program or read more configuration.
const PROGRAM_SECTIONS: &[&str] = &[
    "core",
    "alias",
    "include",
    "includeif",
    "filter",
    "pager",
    "difftool",
    "mergetool",
    "man",
    "protocol",
    "credential",
    "browser",
    "guitool",
    "instaweb",
    "diff",
    "merge",
    "gpg",
    "sequence",
    "interactive",
    "trailer",
    "sendemail",
    "uploadpack",
    "remote",
    "submodule",
    "init",
    "imap",
    "safe",
    "web",
    "log",
];

/// Endings of a key's last part that, by git's naming, hold a program to run or a path git
/// loads from (`interactive.diffFilter`, `gpg.ssh.defaultKeyCommand`, `trailer.x.cmd`,
/// `sendemail.toCmd`, `mergetool.x.path`, `init.templateDir`).
const PROGRAM_ENDINGS: &[&str] = &[
    "command",
    "cmd",
    "program",
    "helper",
    "hook",
    "hookspath",
    "driver",
    "tool",
    "editor",
    "pager",
    "proxy",
    "difffilter",
    "textconv",
    "askpass",
    "tunnel",
    "external",
    "fsmonitor",
    "smtpserver",
    "httpd",
    "browser",
    "vcs",
    "templatedir",
    "worktree",
];

/// Git configuration keys whose value names a program git runs (or more configuration to
/// read): setting one is handing git a command (research: core.fsmonitor and core.hooksPath
/// turned "read-only" git into code execution in other agents). Known by section, by the
/// ending git gives such keys, and by name.
fn config_key_runs_programs(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let Some((section, _)) = k.split_once('.') else {
        return false;
    };
    let last = k.rsplit('.').next().unwrap_or(&k);
    matches!(
        k.as_str(),
        "core.bare"
            | "safe.directory"
            | "log.showsignature"
            | "protocol.allow"
            | "uploadpack.packobjectshook"
            | "core.alternaterefscommand"
            | "web.browser"
    ) || [
        "alias",
        "includeif",
        "include",
        "filter",
        "pager",
        "difftool",
        "mergetool",
        "man",
        "protocol",
        "credential",
        "browser",
        "guitool",
        "instaweb",
    ]
    .contains(&section)
        || PROGRAM_ENDINGS.iter().any(|e| last.ends_with(e))
        || section == "submodule" && last == "update"
}

/// `git clone`, `init` and `submodule` that write a new repository's hooks or configuration: a
/// template copies its hooks into the new `.git`, `clone --config` writes its configuration.
pub(super) fn new_repository(sub: &str, rest: &[&str]) -> Option<Verdict> {
    if rest
        .iter()
        .any(|a| long_is(a, "template") || a.starts_with("--separate-git-dir"))
    {
        return Some(Verdict::new(
            Tier::Denied,
            ReasonKind::Protected,
            format!("git {sub} --template: copies the template's hooks into .git"),
        ));
    }
    if sub != "clone" {
        return None;
    }
    rest.iter().enumerate().find_map(|(i, a)| {
        let setting = if *a == "-c" || long_is(a, "config") && !a.contains('=') {
            rest.get(i + 1).copied()
        } else {
            a.strip_prefix("--config=")
                .or_else(|| a.strip_prefix("-c"))
                .filter(|v| !v.is_empty())
        }?;
        let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
        let verdict = config_setting(key, Some(value), "git clone --config");
        (verdict.tier == Tier::Denied).then_some(verdict)
    })
}

pub(super) fn push(rest: &[&str]) -> Verdict {
    for a in rest {
        // Any prefix git accepts (`--mirr`, `--force-w`, `--del`).
        let forced = [
            "force",
            "force-with-lease",
            "force-if-includes",
            "mirror",
            "delete",
            "prune",
        ]
        .iter()
        .any(|o| long_is(a, o))
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
