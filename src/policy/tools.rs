//! Rules for the tools with the most ways in: git, cargo, the npm family, sed, awk and find.

use super::classify::{
    Segment, Tier, Verdict, first_positional, has, max, program, segment, v, values,
};
use super::lex::Word;

pub(super) fn find(words: &[Word], depth: usize, out: &mut Vec<Segment>) -> Verdict {
    let mut verdict = v(Tier::ReadOnly, "find: lists files");
    let mut i = 0;
    while i < words.len() {
        match words[i].value.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = words[i + 1..]
                    .iter()
                    .position(|w| w.value == ";" || w.value == "+")
                    .map_or(words.len(), |p| i + 1 + p);
                let inner = &words[i + 1..end];
                if inner.is_empty() {
                    verdict = max(verdict, v(Tier::Risky, "find -exec without a command"));
                } else {
                    let text: Vec<&str> = values(inner);
                    let inner_verdict = program(inner, depth + 1, out);
                    out.push(segment(
                        &text.join(" "),
                        inner_verdict.0,
                        &format!("run by find -exec: {}", inner_verdict.1),
                    ));
                    verdict = max(
                        verdict,
                        v(
                            inner_verdict.0,
                            "find -exec: runs the command listed below it",
                        ),
                    );
                }
                i = end + 1;
            }
            "-delete" => {
                verdict = max(verdict, v(Tier::Risky, "find -delete removes files"));
                i += 1;
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                verdict = max(verdict, v(Tier::Risky, "find: writes to a file"));
                i += 1;
            }
            _ => i += 1,
        }
    }
    verdict
}

pub(super) fn sed(args: &[&str]) -> Verdict {
    let mut scripts = Vec::new();
    let mut i = 0;
    let mut positional_script = true;
    while i < args.len() {
        let a = args[i];
        if a == "-i"
            || a.starts_with("--in-place")
            || (a.starts_with('-')
                && !a.starts_with("--")
                && a.contains('i')
                && !a.starts_with("-e"))
        {
            return v(Tier::Risky, "sed -i edits files in place");
        }
        match a {
            "-e" | "--expression" => {
                if let Some(s) = args.get(i + 1) {
                    scripts.push(*s);
                }
                positional_script = false;
                i += 2;
            }
            "-f" | "--file" => return v(Tier::Risky, "sed -f runs a script from a file"),
            _ if a.starts_with('-') => i += 1,
            _ => {
                if positional_script {
                    scripts.push(a);
                    positional_script = false;
                }
                i += 1;
            }
        }
    }
    if scripts.iter().all(|s| sed_script_is_safe(s)) {
        v(Tier::ReadOnly, "sed: prints transformed text")
    } else {
        v(
            Tier::Risky,
            "sed: the script may run commands or write files (only p, d, =, q, s and y with plain flags count as read-only)",
        )
    }
}

/// A sed script made only of commands that print: addresses, then p, d, =, q, l, n, N, or an
/// `s`/`y` command whose flags cannot write or execute.
fn sed_script_is_safe(script: &str) -> bool {
    script
        .split([';', '\n'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .all(|command| {
            let Some(body) = strip_sed_addresses(command) else {
                return false;
            };
            match body.chars().next() {
                None => true,
                Some(
                    'p' | 'd' | '=' | 'l' | 'n' | 'N' | 'P' | 'D' | 'G' | 'g' | 'h' | 'H' | 'x',
                ) => body.len() == 1,
                Some('q' | 'Q') => body[1..].trim().bytes().all(|b| b.is_ascii_digit()),
                Some(c @ ('s' | 'y')) => {
                    let mut chars = body[1..].chars();
                    let Some(delim) = chars.next() else {
                        return false;
                    };
                    let rest: String = chars.collect();
                    let parts: Vec<&str> = rest.split(delim).collect();
                    let flags = if parts.len() == 3 {
                        parts[2]
                    } else {
                        return false;
                    };
                    c == 'y' && flags.is_empty()
                        || c == 's'
                            && flags.chars().all(|f| {
                                matches!(f, 'g' | 'p' | 'i' | 'I' | 'm' | 'M') || f.is_ascii_digit()
                            })
                }
                _ => false,
            }
        })
}

/// Steps over a sed command's addresses (`12`, `$`, `/re/`, ranges, `!`); `None` when an
/// address is malformed.
fn strip_sed_addresses(command: &str) -> Option<&str> {
    let mut body = command;
    loop {
        body = body.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, ',' | '$' | '!' | ' ' | '{' | '}' | '~')
        });
        let Some(rest) = body.strip_prefix('/') else {
            return Some(body);
        };
        let mut escaped = false;
        let end = rest.char_indices().find(|&(_, c)| {
            let close = c == '/' && !escaped;
            escaped = c == '\\' && !escaped;
            close
        })?;
        body = rest[end.0 + 1..].trim_start_matches(['I', 'M']);
    }
}

pub(super) fn awk(args: &[&str]) -> Verdict {
    if args.iter().any(|a| *a == "-f" || a.starts_with("--file")) {
        return v(Tier::Risky, "awk -f runs a program from a file");
    }
    let mut i = 0;
    let mut program = None;
    while i < args.len() {
        match args[i] {
            "-F" | "-v" => i += 2,
            a if a.starts_with('-') => i += 1,
            a => {
                program = Some(a);
                break;
            }
        }
    }
    match program {
        Some(p)
            if ["system", "|", ">", "getline", "close", "fflush", "ENVIRON"]
                .iter()
                .any(|k| p.contains(k)) =>
        {
            v(
                Tier::Risky,
                "awk: the program may run commands, write files or read the environment",
            )
        }
        _ => v(Tier::ReadOnly, "awk: prints transformed text"),
    }
}

pub(super) fn git(args: &[&str]) -> Verdict {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        match args[i] {
            "-c" => {
                return v(
                    Tier::Risky,
                    "git -c sets configuration for the command, which can make it run programs",
                );
            }
            "-C" => i += 2,
            a if a.starts_with("--git-dir")
                || a.starts_with("--work-tree")
                || a.starts_with("--exec-path")
                || a.starts_with("--namespace")
                || a.starts_with("--config-env") =>
            {
                return v(Tier::Risky, format!("git {a}: points git elsewhere"));
            }
            _ => i += 1,
        }
    }
    let Some(sub) = args.get(i).copied() else {
        return v(Tier::ReadOnly, "git: prints help");
    };
    let rest = &args[i + 1..];
    let positional: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    let writes_output = rest
        .iter()
        .any(|a| a.starts_with("--output") || *a == "-o" || *a == "--ext-diff");
    match sub {
        "status" | "log" | "diff" | "show" | "blame" | "rev-parse" | "ls-files" | "ls-tree"
        | "cat-file" | "describe" | "shortlog" | "grep" | "merge-base" | "rev-list"
        | "whatchanged" | "count-objects" | "check-ignore" | "check-attr" | "name-rev"
        | "for-each-ref" | "show-ref" | "var" | "version" | "help" | "diff-tree" | "diff-index"
        | "diff-files" | "annotate" | "cherry" | "show-branch" | "range-diff" => {
            if writes_output {
                v(
                    Tier::Risky,
                    format!("git {sub}: writes a file or runs an external diff"),
                )
            } else {
                v(Tier::ReadOnly, format!("git {sub}: reads the repository"))
            }
        }
        "reflog" if matches!(positional.first(), None | Some(&"show")) => {
            v(Tier::ReadOnly, "git reflog: reads the repository")
        }
        "branch" => {
            let changes = has(
                rest,
                &[
                    "-d",
                    "-D",
                    "-m",
                    "-M",
                    "-c",
                    "-C",
                    "--delete",
                    "--move",
                    "--copy",
                    "-u",
                    "--unset-upstream",
                    "-f",
                    "--force",
                    "--edit-description",
                ],
            ) || rest.iter().any(|a| a.starts_with("--set-upstream-to"));
            let lists = positional.is_empty()
                || has(
                    rest,
                    &[
                        "--contains",
                        "--no-contains",
                        "--merged",
                        "--no-merged",
                        "--points-at",
                        "--list",
                        "-l",
                    ],
                );
            if lists && !changes {
                v(Tier::ReadOnly, "git branch: lists branches")
            } else {
                v(
                    Tier::Risky,
                    "git branch: creates, renames or deletes branches",
                )
            }
        }
        "tag"
            if rest.is_empty()
                || has(rest, &["-l", "--list", "--contains", "--points-at", "-n"]) =>
        {
            v(Tier::ReadOnly, "git tag: lists tags")
        }
        "remote" if positional.is_empty() || positional.first() == Some(&"get-url") => {
            v(Tier::ReadOnly, "git remote: lists remotes")
        }
        "stash" if matches!(positional.first(), Some(&"list" | &"show")) => {
            v(Tier::ReadOnly, "git stash: lists stashes")
        }
        "worktree" if positional.first() == Some(&"list") => {
            v(Tier::ReadOnly, "git worktree: lists worktrees")
        }
        "config" => {
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
                )
            }) || matches!(positional.first(), Some(&"get" | &"list"));
            let outside = has(rest, &["--global", "--system"]);
            let program_key = positional.iter().find(|k| config_key_runs_programs(k));
            match (reading, outside) {
                (true, _) => v(Tier::ReadOnly, "git config: reads configuration"),
                (false, _) if program_key.is_some() => v(
                    Tier::Denied,
                    format!(
                        "git config {} makes git run a program of the model's choosing",
                        program_key.copied().unwrap_or_default()
                    ),
                ),
                (false, true) => v(
                    Tier::Denied,
                    "git config --global/--system changes git for every repository",
                ),
                (false, false) => v(
                    Tier::Risky,
                    "git config: changes the repository's configuration",
                ),
            }
        }
        "push" => git_push(rest),
        _ => v(
            Tier::Risky,
            format!("git {sub}: changes the repository or talks to a remote"),
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
            | "sequence.editor"
            | "diff.external"
            | "diff.tool"
            | "merge.tool"
            | "credential.helper"
            | "gpg.program"
            | "include.path"
            | "uploadpack.packobjectshook"
    ) || [
        "alias.",
        "includeif.",
        "filter.",
        "pager.",
        "difftool.",
        "mergetool.",
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
}

fn git_push(rest: &[&str]) -> Verdict {
    for a in rest {
        let forced = matches!(
            *a,
            "--force" | "--mirror" | "--delete" | "--prune" | "--force-if-includes"
        ) || a.starts_with("--force-with-lease")
            || a.starts_with("--force=")
            || (a.starts_with('-') && !a.starts_with("--") && (a.contains('f') || a.contains('d')));
        if forced {
            return v(
                Tier::Denied,
                format!("git push {a}: a force push or remote deletion"),
            );
        }
        if !a.starts_with('-')
            && (a.starts_with('+')
                || a.contains(":")
                    && a.split(':')
                        .next()
                        .is_some_and(|s| s.is_empty() || s.starts_with('+')))
        {
            return v(
                Tier::Denied,
                format!("git push {a}: a forced or deleting refspec"),
            );
        }
        if !a.starts_with('-') && a.contains(":+") {
            return v(Tier::Denied, format!("git push {a}: a forced refspec"));
        }
    }
    v(Tier::Risky, "git push: sends commits to a remote")
}

pub(super) fn cargo(args: &[&str]) -> Verdict {
    let mut i = 0;
    while i < args.len() && (args[i].starts_with('-') || args[i].starts_with('+')) {
        match args[i] {
            "--config" => {
                return v(
                    Tier::Risky,
                    "cargo --config can make cargo run other programs",
                );
            }
            "--manifest-path" | "--color" | "-Z" | "--target-dir" => i += 2,
            "-V" | "--version" => return v(Tier::ReadOnly, "cargo: prints its version"),
            "--list" => return v(Tier::ReadOnly, "cargo: lists commands"),
            _ => i += 1,
        }
    }
    let Some(sub) = args.get(i).copied() else {
        return v(Tier::ReadOnly, "cargo: prints help");
    };
    match sub {
        "build" | "b" | "check" | "c" | "clippy" | "doc" | "d" | "fmt" | "clean" | "fix"
        | "metadata" | "tree" => v(
            Tier::Build,
            format!("cargo {sub}: builds or checks the project"),
        ),
        "test" | "t" | "run" | "r" | "bench" | "nextest" | "miri" | "llvm-cov" | "tarpaulin" => {
            v(Tier::Execute, format!("cargo {sub}: runs project code"))
        }
        "version" | "help" | "locate-project" | "pkgid" | "read-manifest" | "verify-project" => {
            v(Tier::ReadOnly, format!("cargo {sub}: prints information"))
        }
        _ => v(
            Tier::Risky,
            format!("cargo {sub}: installs, publishes or changes dependencies"),
        ),
    }
}

pub(super) fn node_package_manager(name: &str, args: &[&str]) -> Verdict {
    let sub = first_positional(args);
    match sub {
        Some(
            "test" | "t" | "tst" | "run" | "run-script" | "start" | "stop" | "restart" | "build"
            | "lint",
        ) => v(
            Tier::Execute,
            format!("{name} {}: runs a project script", sub.unwrap_or_default()),
        ),
        Some(
            "ls" | "list" | "outdated" | "view" | "info" | "why" | "explain" | "root" | "bin"
            | "prefix" | "doctor" | "help" | "whoami",
        ) => v(Tier::ReadOnly, format!("{name}: prints information")),
        Some("audit") if !args.contains(&"fix") => v(
            Tier::ReadOnly,
            format!("{name} audit: reports vulnerabilities"),
        ),
        Some("config") if matches!(args.get(1).copied(), Some("get" | "list" | "ls")) => v(
            Tier::ReadOnly,
            format!("{name} config: reads configuration"),
        ),
        Some(
            "ci" | "install" | "i" | "add" | "remove" | "rm" | "uninstall" | "un" | "update" | "up"
            | "upgrade" | "link" | "publish" | "unpublish" | "dlx" | "create" | "init" | "exec"
            | "x" | "dedupe" | "prune" | "rebuild" | "version" | "login" | "logout" | "pack"
            | "set" | "config" | "audit" | "import" | "patch",
        ) => v(
            Tier::Risky,
            format!("{name}: installs, publishes or changes packages (install scripts run code)"),
        ),
        None if name == "yarn" => v(Tier::Risky, "yarn: installs packages"),
        None => v(Tier::ReadOnly, format!("{name}: prints help")),
        Some(script) if name != "npm" => v(
            Tier::Execute,
            format!("{name} {script}: runs a project script"),
        ),
        Some(other) => v(Tier::Risky, format!("npm {other}: unknown npm command")),
    }
}
