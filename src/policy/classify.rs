//! The risk-tier classifier: a command line in, a tier and a reason for every segment out.
//!
//! Segments are the simple commands the shell reader finds, including those inside `$(…)`,
//! backticks, `<(…)`, `sh -c '…'`, `eval`, heredocs and wrappers (`env`, `sudo`, `timeout`,
//! `xargs`, `find -exec`, …). A line's tier is the highest of its segments. The classifier fails
//! closed: a program it does not know, a program name computed at run time, or syntax the reader
//! did not understand is Risky.

use serde::Serialize;

use super::lex::{self, SimpleCommand, SubKind, Word};
use super::programs::known_program;
pub(super) use super::risks::{dangerous_variable, is_fork_bomb, is_raw_disk, is_secret_path};

/// The specification's risk tiers, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Tier {
    ReadOnly,
    Build,
    Execute,
    Risky,
    Denied,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::ReadOnly => "ReadOnly",
            Tier::Build => "Build",
            Tier::Execute => "Execute",
            Tier::Risky => "Risky",
            Tier::Denied => "Denied",
        }
    }
}

/// One segment's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub text: String,
    pub tier: Tier,
    pub reason: String,
}

/// A command line's verdict: the highest tier over its segments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Classification {
    pub tier: Tier,
    pub segments: Vec<Segment>,
}

/// How deep `sh -c`, `eval` and substitutions may nest before the line is simply Risky.
const MAX_DEPTH: usize = 6;

/// Classifies a command line.
pub fn classify(line: &str) -> Classification {
    let mut segments = Vec::new();
    classify_into(line, 0, &mut segments);
    if segments.is_empty() {
        segments.push(Segment {
            text: line.trim().to_string(),
            tier: Tier::ReadOnly,
            reason: "nothing to run".to_string(),
        });
    }
    let tier = segments.iter().map(|s| s.tier).max().unwrap_or(Tier::Risky);
    Classification { tier, segments }
}

pub(super) fn classify_into(source: &str, depth: usize, out: &mut Vec<Segment>) {
    if depth > MAX_DEPTH {
        out.push(segment(source, Tier::Risky, "nested too deeply to analyse"));
        return;
    }
    if is_fork_bomb(source) {
        out.push(segment(source, Tier::Denied, "a fork bomb"));
        return;
    }
    let line = lex::read(source);
    for problem in &line.problems {
        out.push(segment(
            source,
            Tier::Risky,
            &format!("not understood: {problem}"),
        ));
    }
    for (i, command) in line.commands.iter().enumerate() {
        let mut verdict = command_verdict(command, depth, out);
        // Downloaded content piped into a shell or interpreter.
        if command.stage > 0 && runs_stdin_as_code(&command.words) {
            let fed_from_network = line.commands[..i].iter().any(|c| {
                c.pipeline == command.pipeline
                    && effective_program(&c.words).is_some_and(is_network)
            });
            if fed_from_network {
                verdict = (
                    Tier::Denied,
                    "pipes content from the network into a shell or interpreter".to_string(),
                );
            }
        }
        out.push(segment(&command.text, verdict.0, &verdict.1));
    }
}

/// The program each segment runs (wrappers stepped over), for checks that name programs.
pub fn programs(classification: &Classification) -> Vec<String> {
    let mut out = Vec::new();
    for segment in &classification.segments {
        for command in lex::read(&segment.text).commands {
            if let Some(program) = effective_program(&command.words) {
                out.push(program.to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

pub(super) fn segment(text: &str, tier: Tier, reason: &str) -> Segment {
    Segment {
        text: text.trim().to_string(),
        tier,
        reason: reason.to_string(),
    }
}

pub(super) type Verdict = (Tier, String);

pub(super) fn v(tier: Tier, reason: impl Into<String>) -> Verdict {
    (tier, reason.into())
}

/// The higher verdict; on a tie the first, unless it has no reason to give.
pub(super) fn max(a: Verdict, b: Verdict) -> Verdict {
    if b.0 > a.0 || b.0 == a.0 && a.1.is_empty() {
        b
    } else {
        a
    }
}

/// The verdict for one simple command; nested segments (substitutions) are added to `out`.
fn command_verdict(command: &SimpleCommand, depth: usize, out: &mut Vec<Segment>) -> Verdict {
    // The program's own verdict comes first, so on a tie its reason is the one shown.
    let mut verdict = if command.words.is_empty() {
        v(Tier::ReadOnly, "sets shell variables only")
    } else {
        program(&command.words, depth, out)
    };
    let interpreter = runs_code_from_arguments(&command.words);
    let words = command
        .words
        .iter()
        .chain(command.assignments.iter().map(|(_, w)| w))
        .chain(command.redirects.iter().map(|r| &r.target));
    for word in words {
        for sub in &word.subs {
            let before = out.len();
            classify_into(&sub.source, depth + 1, out);
            let from_network = out[before..]
                .iter()
                .any(|s| s.reason.starts_with(NETWORK_REASON));
            if from_network
                && (interpreter
                    || sub.kind == SubKind::ProcessIn && command.words.first() == Some(word))
            {
                verdict = max(
                    verdict,
                    v(Tier::Denied, "runs code fetched from the network"),
                );
            }
            if sub.kind == SubKind::ProcessOut {
                verdict = max(
                    verdict,
                    v(Tier::Risky, "writes through a process substitution"),
                );
            }
        }
    }
    for sub in &command.heredoc_subs {
        classify_into(&sub.source, depth + 1, out);
    }
    for (name, value) in &command.assignments {
        if let Some(why) = dangerous_variable(name) {
            verdict = max(verdict, v(Tier::Risky, format!("sets {name}, which {why}")));
        }
        let _ = value;
    }
    for redirect in &command.redirects {
        verdict = max(verdict, redirect_verdict(redirect.op, &redirect.target));
    }
    let named = command
        .words
        .iter()
        .skip(1)
        .chain(command.redirects.iter().map(|r| &r.target));
    for word in named {
        if let Some(why) = protected(&word.value, verdict.0 > Tier::ReadOnly) {
            verdict = max(verdict, v(Tier::Denied, why));
        }
    }
    verdict
}

/// Paths the model's commands may not touch: keyless's own state (`.agent`, not even to read),
/// and, from a command that may write, keyless's configuration and git's own store.
fn protected(path: &str, may_write: bool) -> Option<String> {
    let mut p = path;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let first = p.split('/').next().unwrap_or(p);
    if first.eq_ignore_ascii_case(".agent") {
        return Some(format!(
            "names {path}, keyless's own state (session, backups, transcript), which the model may not read or change"
        ));
    }
    if !may_write {
        return None;
    }
    if p.eq_ignore_ascii_case("keyless.json") {
        return Some(format!(
            "may change {path}, keyless's own configuration (mode, allow and deny lists), which only the user edits"
        ));
    }
    if first.eq_ignore_ascii_case(".git") {
        return Some(format!(
            "may change {path} inside .git, git's own store (its hooks and config make git run programs); use git commands or @@commit"
        ));
    }
    None
}

pub(super) const NETWORK_REASON: &str = "network access";

fn redirect_verdict(op: &str, target: &Word) -> Verdict {
    let path = target.value.as_str();
    match op {
        ">&" | "<&" if path.bytes().all(|b| b.is_ascii_digit()) || path == "-" => {
            v(Tier::ReadOnly, "duplicates a descriptor")
        }
        "<" | "<<<" | "<<" => {
            if is_secret_path(path) {
                v(Tier::Risky, format!("reads {path}, which may hold secrets"))
            } else {
                v(Tier::ReadOnly, "reads input")
            }
        }
        _ if target.dynamic => v(
            Tier::Risky,
            format!("redirects output to a computed path {path}"),
        ),
        _ if path == "/dev/null" || path == "/dev/stdout" || path == "/dev/stderr" => {
            v(Tier::ReadOnly, "discards or passes output")
        }
        _ if is_raw_disk(path) => v(
            Tier::Denied,
            format!("writes raw bytes to the disk device {path}"),
        ),
        _ => v(Tier::Risky, format!("writes to the file {path}")),
    }
}

pub(super) fn values(words: &[Word]) -> Vec<&str> {
    words.iter().map(|w| w.value.as_str()).collect()
}

/// Programs that only wrap another command; their options are stepped over.
/// `(name, options that take a value)`.
const WRAPPERS: &[(&str, &[&str])] = &[
    ("env", &["-u", "--unset", "-C", "--chdir"]),
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
            "-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "--user", "--group",
        ],
    ),
    ("doas", &["-u", "-C"]),
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

/// The program that really runs once wrappers are stepped over.
fn effective_program(words: &[Word]) -> Option<&str> {
    let (_, inner) = unwrap(words);
    inner.first().map(|w| basename(&w.value))
}

/// Steps over wrappers; returns the wrappers' names and the wrapped command.
fn unwrap(mut words: &[Word]) -> (Vec<&str>, &[Word]) {
    let mut wrappers = Vec::new();
    while let Some(first) = words.first() {
        let name = basename(&first.value);
        let Some((_, takes_value)) = WRAPPERS.iter().find(|(w, _)| *w == name) else {
            break;
        };
        let lookup = name == "command"
            && words
                .get(1)
                .is_some_and(|w| matches!(w.value.as_str(), "-v" | "-V"));
        if first.dynamic || lookup {
            break;
        }
        wrappers.push(name);
        let mut i = 1;
        while i < words.len() {
            let arg = words[i].value.as_str();
            if name == "env" && arg.contains('=') && !arg.starts_with('-') {
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
        words = &words[i.min(words.len())..];
    }
    (wrappers, words)
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "csh", "tcsh", "mksh",
];
pub(super) const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "pwsh",
    "powershell",
    "Rscript",
    "osascript",
    "tclsh",
    "jshell",
];
const NETWORK: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "http",
    "https",
    "xh",
    "aria2c",
    "lynx",
    "links",
    "ssh",
    "scp",
    "sftp",
    "ftp",
    "rsync",
    "ping",
    "dig",
    "nslookup",
    "host",
    "openssl",
    "gh",
    "git-remote-http",
];

pub(super) fn is_network(program: &str) -> bool {
    NETWORK.contains(&program)
}

fn is_interpreter(program: &str) -> bool {
    SHELLS.contains(&program)
        || INTERPRETERS.contains(&program)
        || program.starts_with("python3.")
        || program == "source"
        || program == "."
        || program == "eval"
}

/// A shell or interpreter that will read its program from standard input.
fn runs_stdin_as_code(words: &[Word]) -> bool {
    let (_, inner) = unwrap(words);
    let Some(first) = inner.first() else {
        return false;
    };
    let program = basename(&first.value);
    if !is_interpreter(program) {
        return false;
    }
    let rest = values(&inner[1..]);
    !rest.iter().any(|a| !a.starts_with('-')) || rest.contains(&"-") || rest.contains(&"/dev/stdin")
}

/// A shell or interpreter whose arguments are code (so substitutions in them are code too).
fn runs_code_from_arguments(words: &[Word]) -> bool {
    effective_program(words).is_some_and(is_interpreter)
}

/// Folders whose programs keep their plain names (`/usr/bin/cat` is `cat`).
const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/usr/local/bin",
    "/sbin",
    "/usr/sbin",
    "/usr/local/sbin",
];

/// The verdict for a program and its arguments.
pub(super) fn program(words: &[Word], depth: usize, out: &mut Vec<Segment>) -> Verdict {
    let (wrappers, inner) = unwrap(words);
    let mut verdict = v(Tier::ReadOnly, "");
    if wrappers.iter().any(|w| matches!(*w, "sudo" | "doas")) {
        verdict = v(Tier::Risky, "runs with elevated privileges");
    }
    if let Some(env_index) = words.iter().position(|w| w.value == "env") {
        for arg in values(&words[env_index + 1..]) {
            if let Some((name, _)) = arg.split_once('=')
                && let Some(why) = dangerous_variable(name)
            {
                verdict = max(verdict, v(Tier::Risky, format!("sets {name}, which {why}")));
            }
            if arg == "-S" || arg.starts_with("--split-string") {
                verdict = max(
                    verdict,
                    v(Tier::Risky, "env -S runs a command built from a string"),
                );
            }
        }
    }
    let Some(first) = inner.first() else {
        return match wrappers.last() {
            Some(&"env") => max(
                verdict,
                v(
                    Tier::Risky,
                    "env: prints the environment, which may hold secrets",
                ),
            ),
            Some(&"xargs") => max(verdict, v(Tier::ReadOnly, "xargs: echoes its input")),
            _ => max(verdict, v(Tier::ReadOnly, "runs nothing")),
        };
    };
    if first.dynamic {
        return max(
            verdict,
            v(
                Tier::Risky,
                format!("the program name {} is computed at run time", first.value),
            ),
        );
    }
    let raw = first.value.as_str();
    let name = if raw.contains('/') {
        let dir = &raw[..raw.rfind('/').unwrap_or(0)];
        if raw.starts_with('/') && SYSTEM_DIRS.contains(&dir) {
            basename(raw)
        } else if raw.starts_with('/') || raw.starts_with("~") {
            return max(
                verdict,
                v(
                    Tier::Risky,
                    format!("runs {raw}, a program outside the system folders"),
                ),
            );
        } else {
            return max(
                verdict,
                v(Tier::Execute, format!("runs the workspace program {raw}")),
            );
        }
    } else {
        raw
    };
    let args = &inner[1..];
    let own = known_program(name, args, depth, out);
    let mut own = own;
    if own.1.is_empty() {
        own.1 = name.to_string();
    }
    max(verdict, own)
}

pub(super) fn has(args: &[&str], flags: &[&str]) -> bool {
    args.iter().any(|a| flags.contains(a))
}

/// Short flags bundled in one argument: `-rf` has `r` and `f`.
pub(super) fn short_flag(args: &[&str], flag: char) -> bool {
    args.iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag))
}

pub(super) fn first_positional<'a>(args: &[&'a str]) -> Option<&'a str> {
    args.iter().copied().find(|a| !a.starts_with('-'))
}

pub(super) fn version_probe(args: &[&str]) -> bool {
    matches!(
        args,
        ["--version"]
            | ["-V"]
            | ["-v"]
            | ["version"]
            | ["-version"]
            | ["--help"]
            | ["-h"]
            | ["help"]
            | ["-vV"]
            | ["--info"]
    )
}
