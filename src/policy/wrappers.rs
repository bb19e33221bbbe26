//! Programs that only wrap another command (`env`, `sudo`, `nice`, `timeout`, `xargs`, …):
//! stepping over them to the command they run, and what they do themselves (`sudo` runs with
//! privileges, `env` sets, unsets or clears variables and moves the command, `builtin` and
//! `command -p` bypass the names the shell would find).

use super::env;
use super::interp::is_interpreter;
use super::lex::Word;
use super::names;
use super::paths;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, values};

/// Programs that only wrap another command. `(name, options that take a value)`.
pub(super) const WRAPPERS: &[(&str, &[&str])] = &[
    (
        "env",
        &[
            "-u",
            "--unset",
            "-C",
            "--chdir",
            "-S",
            "--split-string",
            "-P",
        ],
    ),
    ("nice", &["-n", "--adjustment"]),
    ("nohup", &[]),
    ("time", &["-f", "--format", "-o", "--output"]),
    ("command", &[]),
    ("builtin", &[]),
    ("exec", &["-a"]),
    (
        "stdbuf",
        &["-i", "-o", "-e", "--input", "--output", "--error"],
    ),
    ("timeout", &["-s", "--signal", "-k", "--kill-after"]),
    ("setsid", &[]),
    ("chronic", &[]),
    ("unbuffer", &[]),
    ("ionice", &["-c", "-n", "-p", "--class", "--classdata"]),
    ("taskset", &[]),
    ("caffeinate", &[]),
    (
        "sudo",
        &[
            "-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "--user", "--group", "--chdir",
        ],
    ),
    ("doas", &["-u", "-C"]),
    ("busybox", &[]),
    (
        "xargs",
        &[
            "-n",
            "-I",
            "-P",
            "-L",
            "-d",
            "-a",
            "-s",
            "-E",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--arg-file",
            "--replace",
        ],
    ),
];

/// A wrapper as found on a line: its name and its own arguments.
pub(super) struct Wrapper<'a> {
    pub name: &'a str,
    pub args: &'a [Word],
}

/// Steps over wrappers; returns them and the wrapped command.
pub(super) fn unwrap(mut words: &[Word]) -> (Vec<Wrapper<'_>>, &[Word]) {
    let mut wrappers = Vec::new();
    while let Some(first) = words.first() {
        let plain = names::plain(&first.value).0;
        let Some(&(name, takes_value)) = WRAPPERS.iter().find(|(w, _)| *w == plain) else {
            break;
        };
        let lookup = name == "command"
            && words
                .get(1)
                .is_some_and(|w| matches!(w.value.as_str(), "-v" | "-V"));
        if first.dynamic || lookup {
            break;
        }
        let mut i = 1;
        while i < words.len() {
            let arg = words[i].value.as_str();
            if name == "env" && (arg.contains('=') && !arg.starts_with('-') || arg == "-") {
                i += 1;
            } else if arg == "--" {
                i += 1;
                break;
            } else if arg.starts_with('-') && arg.len() > 1 {
                let key = arg.split('=').next().unwrap_or(arg);
                i += if takes_value.contains(&key) && !arg.contains('=') {
                    2
                } else {
                    1
                };
            } else {
                break;
            }
        }
        // timeout DURATION, taskset MASK: one positional before the command.
        if matches!(name, "timeout" | "taskset") && i < words.len() {
            i += 1;
        }
        let end = i.min(words.len());
        wrappers.push(Wrapper {
            name,
            args: &words[1..end],
        });
        words = &words[end..];
    }
    (wrappers, words)
}

/// What wrappers themselves do: `sudo`, `env`'s assignments and options, `builtin`,
/// `command -p`; `env -C` moves the command.
pub(super) fn wrapper_verdict(wrapper: &Wrapper, inner: &[Word], ctx: &mut Ctx) -> Verdict {
    let mut verdict = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    let args = values(wrapper.args);
    match wrapper.name {
        "sudo" | "doas" => verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::Privilege,
            "runs with elevated privileges",
        )),
        "builtin" => verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::Rebinding,
            "builtin: bypasses functions and aliases",
        )),
        "command" if args.iter().any(|a| a.starts_with('-') && a.contains('p')) => {
            verdict.raise(Verdict::new(
                Tier::Risky,
                ReasonKind::Rebinding,
                "command -p: runs a program from a default PATH",
            ));
        }
        "env" => {
            let mut i = 0;
            while i < args.len() {
                let a = args[i];
                let next = args.get(i + 1).copied().unwrap_or("");
                match a {
                    "-i" | "-" | "--ignore-environment" => verdict.raise(Verdict::new(
                        Tier::Denied,
                        ReasonKind::GuardVariable,
                        "env -i clears the environment, and with it the variables keyless sets to keep commands safe",
                    )),
                    "-u" | "--unset" => {
                        verdict.raise(env::unset_variable(next));
                        i += 1;
                    }
                    "-C" | "--chdir" => {
                        ctx.cwd = paths::resolve(next, &ctx.cwd);
                        i += 1;
                    }
                    "-S" | "--split-string" => {
                        let rest = values(inner).join(" ");
                        verdict.raise(Verdict::new(Tier::Risky, ReasonKind::InlineCode, "env -S runs a command built from a string"));
                        verdict.raise(ctx.nested(&format!("{next} {rest}"), "env -S"));
                        i += 1;
                    }
                    "-0" | "-v" | "--debug" | "--null" | "--" => {}
                    _ if a.starts_with("--unset=") => verdict.raise(env::unset_variable(&a[8..])),
                    _ if a.starts_with("-u") && a.len() > 2 => verdict.raise(env::unset_variable(&a[2..])),
                    _ if a.starts_with("--chdir=") => ctx.cwd = paths::resolve(&a[8..], &ctx.cwd),
                    _ if a.starts_with("--split-string=") || a.starts_with("-S") => {
                        verdict.raise(Verdict::new(Tier::Risky, ReasonKind::InlineCode, "env -S runs a command built from a string"));
                    }
                    _ if !a.starts_with('-') && a.contains('=') => {
                        let name = a.split('=').next().unwrap_or(a);
                        verdict.raise(env::set_variable(name, true));
                    }
                    _ => verdict.raise(Verdict::new(Tier::Risky, ReasonKind::UnknownOption, format!("env {a}: not an option the classifier knows"))),
                }
                i += 1;
            }
        }
        "xargs"
            if inner
                .first()
                .is_some_and(|w| is_interpreter(&names::name_of(w))) =>
        {
            ctx.facts.code_from_input = true;
            verdict.raise(Verdict::new(
                Tier::Risky,
                ReasonKind::InlineCode,
                "xargs feeds its input to a shell or interpreter",
            ));
        }
        _ => {}
    }
    verdict
}
