//! git: which subcommands and options only read, which change the repository or talk to a
//! remote, and which make git run a program (`-c`, `--config-env`, `--exec-path`, `--ext-diff`,
//! `--textconv`, `--upload-pack`, `--receive-pack`, `--exec`, `-O` pagers, `--output` files).
//! A read-only subcommand stays ReadOnly only when every option is on its list.

use super::git_config::{config, config_setting, new_repository, push};
use super::paths;
use super::places;
use super::readers::{secrets, unknown_option};
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, has};

/// Options that only shape what the read-only subcommands print.
#[rustfmt::skip]
const SHOWING: &[&str] = &[
    "-p", "-u", "-s", "-z", "-a", "-b", "-w", "-R", "-r", "-t", "-l", "-W", "-c", "-m", "-v", "-q",
    "-i", "-E", "-F", "-P", "-g", "-h", "-H", "-n", "-e", "-x", "-d", "-o", "-k", "-f", "-L", "-S",
    "-G", "-U", "-C", "-M", "-B", "-A", "-1", "-2", "-3", "-vv", "-sb", "-la", "--stat",
    "--numstat", "--shortstat", "--dirstat", "--summary", "--patch-with-stat", "--name-only",
    "--name-status", "--raw", "--patch", "--no-patch", "--abbrev", "--full-index", "--binary",
    "--color", "--no-color", "--color-moved", "--color-words", "--word-diff", "--word-diff-regex",
    "--no-renames", "--find-renames", "--find-copies", "--find-copies-harder",
    "--irreversible-delete", "--pickaxe-all", "--pickaxe-regex", "--relative", "--no-relative",
    "--text", "--ignore-space-at-eol", "--ignore-space-change", "--ignore-all-space",
    "--ignore-blank-lines", "--ignore-cr-at-eol", "--ignore-submodules", "--inter-hunk-context",
    "--function-context", "--exit-code", "--quiet", "--no-ext-diff", "--no-textconv",
    "--src-prefix", "--dst-prefix", "--no-prefix", "--default-prefix", "--line-prefix", "--cached",
    "--staged", "--merge-base", "--no-index", "--diff-filter", "--unified", "--minimal",
    "--patience", "--histogram", "--anchored", "--diff-algorithm", "--indent-heuristic",
    "--no-indent-heuristic", "--submodule", "--check", "--compact-summary", "--max-count", "--skip",
    "--since", "--after", "--until", "--before", "--author", "--committer", "--grep", "--all-match",
    "--invert-grep", "--regexp-ignore-case", "--basic-regexp", "--extended-regexp",
    "--fixed-strings", "--perl-regexp", "--merges", "--no-merges", "--min-parents", "--max-parents",
    "--first-parent", "--not", "--all", "--branches", "--tags", "--remotes", "--glob", "--exclude",
    "--reflog", "--walk-reflogs", "--oneline", "--pretty", "--format", "--abbrev-commit",
    "--no-abbrev-commit", "--decorate", "--no-decorate", "--decorate-refs",
    "--decorate-refs-exclude", "--source", "--graph", "--reverse", "--date", "--relative-date",
    "--topo-order", "--date-order", "--author-date-order", "--follow", "--left-right",
    "--cherry-pick", "--cherry-mark", "--cherry", "--boundary", "--simplify-by-decoration",
    "--full-history", "--ancestry-path", "--dense", "--sparse", "--simplify-merges", "--show-pulls",
    "--parents", "--children", "--no-walk", "--do-walk", "--encoding", "--expand-tabs",
    "--no-expand-tabs", "--notes", "--no-notes", "--show-notes", "--mailmap", "--use-mailmap",
    "--no-mailmap", "--log-size", "--stdin", "--count", "--objects", "--timestamp", "--header",
    "--since-as-filter", "--porcelain", "--line-porcelain", "--incremental", "--show-email",
    "--root", "--show-stats", "--show-name", "--show-number", "--score-debug", "--contents",
    "--ignore-rev", "--ignore-revs-file", "--color-lines", "--color-by-age", "--progress",
    "--no-progress", "--short", "--branch", "--show-stash", "--long", "--verbose",
    "--untracked-files", "--ignored", "--column", "--no-column", "--ahead-behind",
    "--no-ahead-behind", "--renames", "--untracked", "--recurse-submodules", "--max-depth", "--and",
    "--or", "--full-name", "--heading", "--break", "--threads", "--files-with-matches",
    "--files-without-match", "--only-matching", "--line-number", "--ignore-case", "--word-regexp",
    "--invert-match", "--deleted", "--modified", "--others", "--stage", "--unmerged", "--killed",
    "--directory", "--no-empty-directory", "--exclude-from", "--exclude-per-directory",
    "--exclude-standard", "--error-unmatch", "--with-tree", "--debug", "--eol", "--deduplicate",
    "--format", "--name-only", "--long", "--tags", "--contains", "--no-contains", "--merged",
    "--no-merged", "--points-at", "--sort", "--list", "--show-current", "--abbrev-ref",
    "--symbolic-full-name", "--verify", "--show-toplevel", "--git-dir", "--absolute-git-dir",
    "--git-common-dir", "--is-inside-work-tree", "--is-inside-git-dir", "--is-bare-repository",
    "--show-prefix", "--show-cdup", "--short", "--symbolic", "--local-env-vars",
    "--show-superproject-working-tree", "--path-format", "--sq", "--default", "--since", "--until",
    "--dirty", "--broken", "--always", "--candidates", "--exact-match", "--first-parent", "--match",
    "--long", "--object-only", "--full-tree", "--name-only", "--object-only", "-t", "--batch-check",
    "--batch", "--batch-all-objects", "--unordered", "--buffer", "--is-ancestor", "--octopus",
    "--independent", "--fork-point", "--summary", "--numbered", "--email", "--group", "--committer",
    "--remotes", "--heads", "--hash", "--dereference", "--exists", "--show-signature-not",
    "--creation-factor", "--no-dual-color", "--output-indicator-new", "--output-indicator-old",
    "--output-indicator-context", "--ita-invisible-in-index", "--ignore-other-worktrees",
    "--get-url", "--push", "--expire", "--no-optional-locks", "--end-of-options", "--",
];

/// Read-only subcommands.
const READING: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "cat-file",
    "describe",
    "shortlog",
    "grep",
    "merge-base",
    "rev-list",
    "whatchanged",
    "count-objects",
    "check-ignore",
    "check-attr",
    "name-rev",
    "for-each-ref",
    "show-ref",
    "var",
    "version",
    "diff-tree",
    "diff-index",
    "diff-files",
    "annotate",
    "cherry",
    "show-branch",
    "range-diff",
];

/// Options that make a subcommand run a program or a remote command.
const RUNS: &[&str] = &[
    "--ext-diff",
    "--textconv",
    "--filters",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--open-files-in-pager",
    "-O",
    "--tool",
    "--extcmd",
    "--show-signature",
    "-u",
];

pub(super) fn git(args: &[&str], ctx: &Ctx) -> Verdict {
    let mut i = 0;
    let mut floor = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    let mut elsewhere = false;
    while i < args.len() && args[i].starts_with('-') {
        let a = args[i];
        match a {
            "-c" => {
                let setting = args.get(i + 1).copied().unwrap_or("");
                let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
                floor.raise(config_setting(key, Some(value), "git -c"));
                i += 2;
            }
            "-C" => {
                let dir = args.get(i + 1).copied().unwrap_or("");
                let place = paths::resolve(dir, &ctx.cwd);
                if place.outside() || places::protected(&place).is_some() {
                    elsewhere = true;
                    floor.raise(Verdict::new(
                        Tier::Risky,
                        ReasonKind::RunsProgram,
                        format!(
                            "git -C {dir}: another repository, whose configuration may run programs"
                        ),
                    ));
                }
                i += 2;
            }
            _ if a.starts_with("--config-env") => {
                floor.raise(Verdict::new(Tier::Risky, ReasonKind::RunsProgram, "git --config-env sets configuration from a variable, which can make git run programs"));
                i += if a.contains('=') { 1 } else { 2 };
            }
            _ if ["--git-dir", "--work-tree", "--exec-path", "--namespace"]
                .iter()
                .any(|o| a.starts_with(o))
                || a == "--bare" =>
            {
                elsewhere = true;
                floor.raise(Verdict::new(Tier::Risky, ReasonKind::RunsProgram, format!("git {a}: points git elsewhere (another repository's configuration and hooks, or other git programs)")));
                i += if a.contains('=') || a == "--bare" || a == "--exec-path" {
                    1
                } else {
                    2
                };
            }
            "--no-pager"
            | "-P"
            | "-p"
            | "--paginate"
            | "--no-replace-objects"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-optional-locks"
            | "--no-advice"
            | "--no-lazy-fetch"
            | "--html-path"
            | "--man-path"
            | "--info-path" => i += 1,
            _ if a.starts_with("--list-cmds") => i += 1,
            "--version" | "-v" | "--help" | "-h" => {
                return Verdict::new(
                    Tier::ReadOnly,
                    ReasonKind::Program,
                    "git: prints its version or help",
                );
            }
            _ => {
                floor.raise(unknown_option("git", a));
                i += 1;
            }
        }
    }
    let Some(sub) = args.get(i).copied() else {
        return floor.max(Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "git: prints help",
        ));
    };
    let rest = &args[i + 1..];
    let mut verdict = subcommand(sub, rest, ctx);
    if elsewhere && verdict.tier > Tier::ReadOnly {
        verdict.raise(Verdict::new(Tier::Denied, ReasonKind::Protected, format!("git {sub} in a repository named by -C, --git-dir or --work-tree: it may write that repository's .git")));
    }
    if let Some(option) = rest.iter().find(|a| {
        let name = a.split('=').next().unwrap_or(a);
        RUNS.contains(&name)
            && (name != "-u" || matches!(sub, "clone" | "fetch" | "pull" | "ls-remote" | "archive"))
    }) {
        verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::RunsProgram,
            format!("git {sub} {option}: runs another program"),
        ));
    }
    floor.max(verdict)
}

fn subcommand(sub: &str, rest: &[&str], ctx: &Ctx) -> Verdict {
    let positional: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    match sub {
        _ if READING.contains(&sub) => {
            if let Some(option) = rest.iter().find(|a| writes_output(a)) {
                return Verdict::new(
                    Tier::Risky,
                    ReasonKind::WritesFile,
                    format!("git {sub} {option}: writes a file"),
                );
            }
            if let Some(option) = rest.iter().find(|a| !known_showing(sub, a)) {
                return unknown_option(&format!("git {sub}"), option);
            }
            let mut verdict = Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                format!("git {sub}: reads the repository"),
            );
            if has(rest, &["--no-index"])
                || sub == "blame" && rest.iter().any(|a| a.starts_with("--contents"))
            {
                verdict.raise(secrets("git", &positional, false, ctx));
            }
            verdict.raise(history_secrets(sub, &positional, ctx));
            verdict
        }
        "reflog" if matches!(positional.first(), None | Some(&"show")) => reading(sub, rest),
        "branch" => {
            const LISTING: &[&str] = &[
                "-a",
                "-r",
                "-v",
                "-vv",
                "--list",
                "-l",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--sort",
                "--format",
                "--color",
                "--no-color",
                "--column",
                "--no-column",
                "--show-current",
                "-i",
                "--ignore-case",
                "--abbrev",
                "--no-abbrev",
                "--all",
                "--remotes",
                "--verbose",
            ];
            let listing = rest.iter().all(|a| a.starts_with('-') && known(LISTING, a))
                || has(
                    rest,
                    &[
                        "--list",
                        "-l",
                        "--contains",
                        "--merged",
                        "--no-merged",
                        "--points-at",
                    ],
                ) && rest
                    .iter()
                    .all(|a| !a.starts_with('-') || known(LISTING, a));
            if listing {
                Verdict::new(
                    Tier::ReadOnly,
                    ReasonKind::Program,
                    "git branch: lists branches",
                )
            } else {
                Verdict::new(
                    Tier::Risky,
                    ReasonKind::GitWrite,
                    "git branch: creates, renames or deletes branches",
                )
            }
        }
        "tag" => {
            const LISTING: &[&str] = &[
                "-l",
                "--list",
                "-n",
                "--contains",
                "--no-contains",
                "--points-at",
                "--sort",
                "--format",
                "--merged",
                "--no-merged",
                "-i",
                "--ignore-case",
                "--column",
                "--no-column",
                "--color",
            ];
            let listing = rest.is_empty()
                || has(
                    rest,
                    &[
                        "-l",
                        "--list",
                        "--contains",
                        "--points-at",
                        "--merged",
                        "--no-merged",
                    ],
                ) && rest
                    .iter()
                    .all(|a| !a.starts_with('-') || known(LISTING, a) || a.starts_with("-n"));
            if listing {
                Verdict::new(Tier::ReadOnly, ReasonKind::Program, "git tag: lists tags")
            } else {
                Verdict::new(
                    Tier::Risky,
                    ReasonKind::GitWrite,
                    "git tag: creates or deletes tags",
                )
            }
        }
        "remote"
            if positional.is_empty() && rest.iter().all(|a| matches!(*a, "-v" | "--verbose")) =>
        {
            Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                "git remote: lists remotes",
            )
        }
        "remote" if positional.first() == Some(&"get-url") => reading(sub, &rest[1..]),
        "stash" if matches!(positional.first(), Some(&"list" | &"show")) => {
            reading(sub, &rest[1..])
        }
        "worktree"
            if positional.first() == Some(&"list")
                && rest
                    .iter()
                    .all(|a| matches!(*a, "list" | "--porcelain" | "-v" | "--verbose" | "-z")) =>
        {
            Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                "git worktree: lists worktrees",
            )
        }
        "config" => config(rest, &positional),
        "push" | "send-pack" => push(rest),
        "clone" | "init" | "submodule" if let Some(verdict) = new_repository(sub, rest) => verdict,
        "help"
            if rest.iter().all(|a| {
                matches!(*a, "-a" | "--all" | "-g" | "--guides") || !a.starts_with('-')
            }) =>
        {
            Verdict::new(Tier::ReadOnly, ReasonKind::Program, "git help: prints help")
        }
        "difftool" | "mergetool" | "filter-branch" | "bisect" | "rebase"
            if sub != "rebase" || has(rest, &["-x", "--exec"]) =>
        {
            Verdict::new(
                Tier::Risky,
                ReasonKind::RunsProgram,
                format!("git {sub}: runs other programs"),
            )
        }
        "clone" | "fetch" | "pull" | "ls-remote" | "remote" | "submodule" | "archive" => {
            Verdict::new(
                Tier::Risky,
                ReasonKind::Network,
                format!("git {sub}: talks to a remote or writes the repository"),
            )
        }
        _ => Verdict::new(
            Tier::Risky,
            ReasonKind::GitWrite,
            format!("git {sub}: changes the repository or talks to a remote"),
        ),
    }
}

/// A secret file read from the repository's objects or history: `git show HEAD:.env`,
/// `git cat-file -p :.env`, `git log -p -- .env`. Paths are the repository's, from its root
/// for `REV:path`.
fn history_secrets(sub: &str, positional: &[&str], ctx: &Ctx) -> Verdict {
    let paths: Vec<&str> = positional
        .iter()
        .map(|p| p.split_once(':').map_or(*p, |(_, path)| path))
        .filter(|p| !p.is_empty())
        .collect();
    let found = secrets("git", &paths, false, ctx);
    if found.tier > Tier::ReadOnly {
        return Verdict::new(
            Tier::Risky,
            ReasonKind::Secret,
            format!(
                "git {sub}: prints a file that may hold secrets, from the repository's history"
            ),
        );
    }
    found
}

fn reading(sub: &str, rest: &[&str]) -> Verdict {
    match rest
        .iter()
        .find(|a| a.starts_with('-') && !known_showing(sub, a))
    {
        Some(option) => unknown_option(&format!("git {sub}"), option),
        None => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            format!("git {sub}: reads the repository"),
        ),
    }
}

/// `--output`, `--output=f`, `-o` outside grep: a file git writes.
fn writes_output(arg: &str) -> bool {
    (arg.starts_with("--output") && !arg.starts_with("--output-indicator"))
        || arg.starts_with("--out=")
}

fn known(list: &[&str], arg: &str) -> bool {
    let name = arg.split('=').next().unwrap_or(arg);
    list.contains(&name)
}

/// An argument a read-only subcommand may take: a positional, a known option, or a short
/// option with its value attached (`-n5`, `-U3`, `-M50%`, `-L1,5:f`, `-Sneedle`, `-5`).
fn known_showing(sub: &str, arg: &str) -> bool {
    if !arg.starts_with('-') || arg == "-" {
        return true;
    }
    if (arg == "-o" || arg == "-O") && sub != "grep" {
        return false;
    }
    if arg == "-O" || arg.starts_with("-O") && sub == "grep" {
        return false;
    }
    let name = arg.split('=').next().unwrap_or(arg);
    if known(SHOWING, arg) && (!RUNS.contains(&name) || name == "-u") {
        return true;
    }
    let bytes = arg.as_bytes();
    bytes.len() > 2 && !arg.starts_with("--") && b"nUMCBSGLlABCem".contains(&bytes[1])
        || arg[1..].bytes().all(|b| b.is_ascii_digit())
}
