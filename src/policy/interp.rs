//! Shells and interpreters: `sh -c` scripts are classified as lines of their own; inline code
//! (`python -c`, `node -e`, `perl -e`, …) is at least Risky; a shell or interpreter reading its
//! program from standard input is Risky (Denied when the line also fetches from the network);
//! a script file in the workspace is Execute, elsewhere Risky.

use super::inline;
use super::lex::Word;
use super::paths;
use super::python;
use super::risks::is_remote;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, basename, values};

pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "csh", "tcsh", "mksh", "yash",
];

/// Interpreters and the options that take inline code.
const INLINE: &[(&str, &[&str])] = &[
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("nodejs", &["-e", "--eval", "-p", "--print"]),
    ("bun", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval", "-"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r", "-B", "-R", "-E", "-F"]),
    ("lua", &["-e"]),
    ("luajit", &["-e"]),
    ("Rscript", &["-e"]),
    ("osascript", &["-e"]),
    ("tclsh", &[]),
    ("wish", &[]),
    ("jshell", &[]),
    ("groovy", &["-e"]),
    ("julia", &["-e", "--eval", "-E", "--print"]),
    ("elixir", &["-e", "--eval"]),
    ("erl", &["-eval"]),
    ("scala", &["-e"]),
    ("ghci", &["-e"]),
    ("runghc", &[]),
    (
        "pwsh",
        &["-c", "-command", "-encodedcommand", "-e", "-ec", "-enc"],
    ),
    (
        "powershell",
        &["-c", "-command", "-encodedcommand", "-e", "-ec", "-enc"],
    ),
];

pub(super) fn is_python(name: &str) -> bool {
    matches!(
        name,
        "python" | "python2" | "python3" | "py" | "pypy" | "pypy3"
    ) || name.starts_with("python3.")
        || name.starts_with("python2.")
}

/// An interpreter's name without its version (`php8.2`, `lua5.4`, `ruby3.2`, `perl5.36`), when
/// that is an interpreter the table knows.
pub(super) fn unversioned(name: &str) -> &str {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    if base.len() < name.len() && INLINE.iter().any(|(n, _)| *n == base) {
        base
    } else {
        name
    }
}

/// Programs that run code they are given.
pub(super) fn is_interpreter(name: &str) -> bool {
    let name = unversioned(name);
    SHELLS.contains(&name)
        || is_python(name)
        || INLINE.iter().any(|(n, _)| *n == name)
        || matches!(name, "source" | "." | "eval" | "iex" | "invoke-expression")
}

/// A shell or interpreter that reads its program from standard input.
pub(super) fn reads_code_from_stdin(name: &str, args: &[&str]) -> bool {
    let name = unversioned(name);
    if !is_interpreter(name) || name == "eval" {
        return false;
    }
    if matches!(name, "iex" | "invoke-expression") {
        return args.is_empty();
    }
    if matches!(name, "source" | ".") {
        return args.first().is_some_and(|a| stdin_path(a));
    }
    if is_python(name) {
        return python::read(args) == python::Run::Stdin;
    }
    if !SHELLS.contains(&name) && args.iter().any(|a| stdin_path(a)) {
        return true;
    }
    if SHELLS.contains(&name)
        && args
            .iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('s'))
    {
        return true;
    }
    if inline_code(name, args).is_some() || args.iter().any(|a| matches!(*a, "-m" | "-c")) {
        return false;
    }
    !args
        .iter()
        .any(|a| !a.starts_with('-') || a.starts_with("--") && a.len() == 2)
        || args.iter().any(|a| stdin_path(a))
}

fn stdin_path(a: &str) -> bool {
    a == "-" || a == "/dev/stdin" || a.starts_with("/dev/fd/") || a.starts_with("/proc/self/fd/")
}

/// The inline-code option a command uses, if any.
fn inline_code<'a>(name: &str, args: &[&'a str]) -> Option<&'a str> {
    let options = INLINE
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[][..], |(_, o)| *o);
    args.iter().copied().find(|a| {
        let lower = a.to_ascii_lowercase();
        let key = lower.split('=').next().unwrap_or(&lower);
        options.contains(&key)
            || matches!(name, "perl" | "ruby" | "lua")
                && a.starts_with('-')
                && !a.starts_with("--")
                && a.contains(['e', 'E'])
            || (name == "pwsh" || name == "powershell")
                && key.len() > 2
                && "-command".starts_with(key)
    })
}

pub(super) fn interpreter(name: &str, words: &[Word], ctx: &mut Ctx) -> Option<Verdict> {
    let name = unversioned(name);
    let args = values(words);
    let verdict = match name {
        _ if SHELLS.contains(&name) => shell(name, words, ctx),
        _ if is_python(name) => run_python(name, &args, ctx),
        "eval" | "iex" | "invoke-expression" => {
            let text = args.join(" ");
            if words.iter().any(|w| w.dynamic) {
                Verdict::new(
                    Tier::Risky,
                    ReasonKind::InlineCode,
                    "eval of a computed string",
                )
                .max(ctx.nested(&computed_text(&text), "eval"))
            } else {
                ctx.nested(&text, "eval")
            }
        }
        "source" | "." => match args.first() {
            Some(a) if stdin_path(a) => Verdict::new(
                Tier::Risky,
                ReasonKind::InlineCode,
                format!("{name} {a}: runs code from its input"),
            ),
            Some(a) => script(name, a, ctx),
            None => Verdict::new(
                Tier::Risky,
                ReasonKind::Syntax,
                format!("{name} without a file"),
            ),
        },
        "cmd" | "cmd.exe" => match args
            .iter()
            .position(|a| a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k"))
        {
            Some(i) => ctx.nested(&args[i + 1..].join(" "), "cmd /c"),
            None => Verdict::new(
                Tier::Risky,
                ReasonKind::InlineCode,
                "cmd: an interactive shell",
            ),
        },
        "pwsh" | "powershell" => powershell(name, &args, ctx),
        _ if INLINE.iter().any(|(n, _)| *n == name) => {
            if let Some(option) = inline_code(name, &args) {
                inline::code(&format!("{name} {option}"), &args.join(" "), ctx)
            } else if name == "deno" || name == "bun" {
                let mut positionals = args.iter().copied().filter(|a| !a.starts_with('-'));
                let sub = positionals.next();
                let target = positionals.next();
                let remote = args.iter().any(|a| a.starts_with('-') && a.contains("://"))
                    || sub.is_some_and(is_remote)
                    || matches!(sub, Some("run" | "test" | "bench"))
                        && target.is_some_and(is_remote);
                match sub {
                    _ if remote => Verdict::new(
                        Tier::Risky,
                        ReasonKind::RemoteCode,
                        format!("{name}: runs code it fetches from the network"),
                    ),
                    Some("run" | "test" | "task" | "bench") => Verdict::new(
                        Tier::Execute,
                        ReasonKind::Program,
                        format!("{name}: runs project code"),
                    ),
                    Some("install" | "add" | "remove" | "update" | "x" | "upgrade" | "create") => {
                        Verdict::new(
                            Tier::Risky,
                            ReasonKind::Packages,
                            format!("{name}: installs or downloads packages"),
                        )
                    }
                    Some("eval" | "repl") | None => Verdict::new(
                        Tier::Risky,
                        ReasonKind::InlineCode,
                        format!("{name}: runs inline code"),
                    ),
                    Some(file) => script(name, file, ctx),
                }
            } else if reads_code_from_stdin(name, &args) {
                Verdict::new(
                    Tier::Risky,
                    ReasonKind::InlineCode,
                    format!("{name}: reads code from its input"),
                )
            } else {
                script_or_input(name, &args, ctx)
            }
        }
        _ => return None,
    };
    Some(verdict)
}

/// A script with expansions in it, as a line to classify: the variables stay as written
/// (`rm -rf $HOME` is still `rm -rf $HOME`), and a substitution whose output is not known
/// becomes a variable whose value is not known (not the reader's `$(…)` placeholder).
fn computed_text(text: &str) -> String {
    text.replace("$(…)", "$_").replace("`…`", "$_")
}

/// PowerShell: `-Command TEXT` is read as a command line and as code, `-EncodedCommand B64`
/// decoded first; at least Risky, since PowerShell is only partly analysed.
fn powershell(name: &str, args: &[&str], ctx: &mut Ctx) -> Verdict {
    let mut verdict = Verdict::new(
        Tier::Risky,
        ReasonKind::InlineCode,
        "PowerShell: its commands are only partly analysed",
    );
    let abbreviates = |a: &str, full: &str| {
        let l = a.to_ascii_lowercase();
        l.len() > 1 && full.starts_with(&l)
    };
    // `-e` is ambiguous, and PowerShell reads it as `-EncodedCommand`.
    let text = if let Some(i) = args.iter().position(|a| {
        a.eq_ignore_ascii_case("-e")
            || a.eq_ignore_ascii_case("-ec")
            || abbreviates(a, "-encodedcommand") && !abbreviates(a, "-executionpolicy")
    }) {
        args.get(i + 1)
            .and_then(|b| inline::decode_encoded_command(b))
    } else if let Some(i) = args
        .iter()
        .position(|a| a.eq_ignore_ascii_case("-c") || abbreviates(a, "-command") && a.len() > 2)
    {
        Some(args[i + 1..].join(" "))
    } else {
        // Without -File, what follows the options is the command (`powershell Stop-Computer`).
        let file = args.iter().any(|a| abbreviates(a, "-file") && a.len() > 2);
        let mut i = 0;
        while let Some(a) = args.get(i).filter(|a| a.starts_with('-')) {
            let valued = [
                "-executionpolicy",
                "-windowstyle",
                "-configurationname",
                "-workingdirectory",
                "-outputformat",
                "-inputformat",
                "-version",
            ]
            .iter()
            .any(|o| abbreviates(a, o) && a.len() > 3);
            i += if valued { 2 } else { 1 };
        }
        (!file && i < args.len()).then(|| args[i..].join(" "))
    };
    if let Some(text) = text {
        verdict.raise(inline::code(name, &text, ctx));
        verdict.raise(ctx.nested(&text, "PowerShell -Command"));
    }
    verdict
}

/// Python as CPython reads its command line (`python.rs`).
fn run_python(name: &str, args: &[&str], ctx: &mut Ctx) -> Verdict {
    match python::read(args) {
        python::Run::Inline(code) => inline::code(&format!("{name} -c"), &code.join(" "), ctx),
        python::Run::Module(module) => python::module_verdict(name, module),
        python::Run::Script(file) => script(name, file, ctx),
        python::Run::Stdin => Verdict::new(
            Tier::Risky,
            ReasonKind::InlineCode,
            format!("{name}: reads code from its input"),
        ),
        python::Run::Unknown(option) => Verdict::new(
            Tier::Risky,
            ReasonKind::UnknownOption,
            format!("{name} {option}: not an option of Python's (what follows may be code)"),
        ),
    }
}

/// Running a script file: Execute in the workspace, Risky elsewhere; code named by a URL or a
/// package reference is fetched first.
pub(super) fn script(name: &str, file: &str, ctx: &mut Ctx) -> Verdict {
    if is_remote(file) {
        return Verdict::new(
            Tier::Risky,
            ReasonKind::RemoteCode,
            format!("{name}: runs {file}, code it fetches from the network"),
        );
    }
    ctx.facts.scripts.push(basename(file).to_string());
    let place = paths::resolve(file, &ctx.cwd);
    if place.outside() {
        Verdict::new(
            Tier::Risky,
            ReasonKind::RunsProgram,
            format!("{name}: runs {file}, a script outside the workspace"),
        )
    } else {
        Verdict::new(
            Tier::Execute,
            ReasonKind::Program,
            format!("{name}: runs the workspace script {file}"),
        )
    }
}

fn shell(name: &str, words: &[Word], ctx: &mut Ctx) -> Verdict {
    let args = values(words);
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a == "--" || !a.starts_with(['-', '+']) {
            break;
        }
        if a.starts_with("--rcfile") || a.starts_with("--init-file") {
            return Verdict::new(
                Tier::Risky,
                ReasonKind::RunsProgram,
                format!("{name} {a}: runs a start-up file"),
            );
        }
        if !a.starts_with("--") && a.contains('c') && a.starts_with('-') {
            return match words.get(i + 1) {
                Some(script) if script.dynamic => Verdict::new(
                    Tier::Risky,
                    ReasonKind::InlineCode,
                    format!("{name} -c runs a computed script"),
                )
                .max(ctx.nested(&computed_text(&script.value), &format!("{name} -c"))),
                Some(script) => ctx.nested(&script.value, &format!("{name} -c")),
                None => Verdict::new(
                    Tier::Risky,
                    ReasonKind::Syntax,
                    format!("{name} -c without a script"),
                ),
            };
        }
        i += if matches!(a, "-o" | "+o" | "-O" | "+O") {
            2
        } else {
            1
        };
    }
    if reads_code_from_stdin(name, &args) {
        return Verdict::new(
            Tier::Risky,
            ReasonKind::InlineCode,
            format!("{name}: a shell reading commands from its input"),
        );
    }
    match args
        .get(i..)
        .and_then(|rest| rest.iter().find(|a| **a != "--"))
    {
        Some(file) => script(name, file, ctx),
        None => Verdict::new(
            Tier::Risky,
            ReasonKind::InlineCode,
            format!("{name}: a shell reading commands from its input"),
        ),
    }
}

/// The first argument that is no option is the script to run; without one, the program reads
/// its code from its input.
fn script_or_input(name: &str, args: &[&str], ctx: &mut Ctx) -> Verdict {
    match args.iter().copied().find(|a| !a.starts_with('-')) {
        Some(file) => script(name, file, ctx),
        None => Verdict::new(
            Tier::Risky,
            ReasonKind::InlineCode,
            format!("{name}: reads code from its input"),
        ),
    }
}
