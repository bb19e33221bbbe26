//! The risk-tier classifier: a command line in, a tier and a reason for every segment out.
//!
//! Segments are the simple commands the shell reader finds, including those inside `$(…)`,
//! backticks, `<(…)`, `sh -c '…'`, `eval`, heredocs and wrappers (`env`, `sudo`, `timeout`,
//! `xargs`, `find -exec`, …). A line's tier is the highest of its segments. The classifier fails
//! closed: a program it does not know, a program name computed at run time, or syntax the reader
//! did not understand is Risky.

use serde::Serialize;

use super::lex::{self, SimpleCommand, SubKind, Word};

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

fn classify_into(source: &str, depth: usize, out: &mut Vec<Segment>) {
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

fn segment(text: &str, tier: Tier, reason: &str) -> Segment {
    Segment {
        text: text.trim().to_string(),
        tier,
        reason: reason.to_string(),
    }
}

type Verdict = (Tier, String);

fn v(tier: Tier, reason: impl Into<String>) -> Verdict {
    (tier, reason.into())
}

fn max(a: Verdict, b: Verdict) -> Verdict {
    if b.0 > a.0 { b } else { a }
}

/// The verdict for one simple command; nested segments (substitutions) are added to `out`.
fn command_verdict(command: &SimpleCommand, depth: usize, out: &mut Vec<Segment>) -> Verdict {
    let mut verdict = v(Tier::ReadOnly, "sets shell variables only");
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
    if command.words.is_empty() {
        return verdict;
    }
    max(verdict, program(&command.words, depth, out))
}

const NETWORK_REASON: &str = "network access";

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

fn is_raw_disk(path: &str) -> bool {
    [
        "/dev/sd",
        "/dev/nvme",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/dm-",
        "/dev/mapper/",
    ]
    .iter()
    .any(|p| path.starts_with(p))
}

/// Paths whose contents a chat page should not see.
fn is_secret_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.contains(".ssh/")
        || path.ends_with(".ssh")
        || path.contains(".aws/")
        || path.contains(".gnupg")
        || path.contains("/proc/") && path.ends_with("/environ")
        || path == "/etc/shadow"
        || name == ".env"
        || name.starts_with(".env.")
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || name.starts_with("id_ecdsa")
        || matches!(
            name,
            ".netrc" | ".pypirc" | ".git-credentials" | ".npmrc" | "credentials.json"
        )
}

/// Environment variables that change which programs run or what they load.
fn dangerous_variable(name: &str) -> Option<&'static str> {
    match name {
        "PATH" => Some("changes which programs run"),
        "IFS" | "BASH_ENV" | "ENV" | "PROMPT_COMMAND" | "SHELLOPTS" | "BASHOPTS" | "PS4" => {
            Some("changes how the shell reads and runs commands")
        }
        "NODE_OPTIONS"
        | "PYTHONPATH"
        | "PYTHONSTARTUP"
        | "PYTHONHOME"
        | "PERL5OPT"
        | "PERL5LIB"
        | "RUBYOPT"
        | "RUBYLIB"
        | "JAVA_TOOL_OPTIONS"
        | "_JAVA_OPTIONS"
        | "RUSTC_WRAPPER"
        | "RUSTC"
        | "CARGO_BUILD_RUSTC_WRAPPER" => Some("makes an interpreter or compiler load other code"),
        "EDITOR" | "VISUAL" | "PAGER" | "GIT_PAGER" | "MANPAGER" => {
            Some("chooses a program to run")
        }
        _ if name.starts_with("LD_") || name.starts_with("DYLD_") => {
            Some("makes programs load other libraries")
        }
        _ if name.starts_with("GIT_") => Some("changes how git runs (it can name programs to run)"),
        _ => None,
    }
}

/// Matches `name(){ name|name& };name` and its spellings.
fn is_fork_bomb(source: &str) -> bool {
    let compact: String = source.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = compact.find("(){") else {
        return false;
    };
    let name = &compact[..open];
    let name = name.rsplit([';', '&', '|']).next().unwrap_or(name);
    !name.is_empty() && compact[open..].contains(&format!("{name}|{name}&"))
}

fn values(words: &[Word]) -> Vec<&str> {
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

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "csh", "tcsh", "mksh",
];
const INTERPRETERS: &[&str] = &[
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

fn is_network(program: &str) -> bool {
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
fn program(words: &[Word], depth: usize, out: &mut Vec<Segment>) -> Verdict {
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

fn has(args: &[&str], flags: &[&str]) -> bool {
    args.iter().any(|a| flags.contains(a))
}

/// Short flags bundled in one argument: `-rf` has `r` and `f`.
fn short_flag(args: &[&str], flag: char) -> bool {
    args.iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag))
}

fn first_positional<'a>(args: &[&'a str]) -> Option<&'a str> {
    args.iter().copied().find(|a| !a.starts_with('-'))
}

fn version_probe(args: &[&str]) -> bool {
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

/// Rules for programs keyless knows.
fn known_program(name: &str, words: &[Word], depth: usize, out: &mut Vec<Segment>) -> Verdict {
    let args = values(words);
    let a = args.as_slice();
    if (INTERPRETERS.contains(&name)
        || name.starts_with("python3.")
        || matches!(
            name,
            "java" | "go" | "dotnet" | "rustc" | "gcc" | "cargo" | "npm" | "git"
        ))
        && version_probe(a)
    {
        return v(
            Tier::ReadOnly,
            format!("{name}: prints its version or help"),
        );
    }
    match name {
        // Shells and code evaluation.
        _ if SHELLS.contains(&name) => shell(name, words, depth, out),
        "eval" => {
            if words.iter().any(|w| w.dynamic) {
                v(Tier::Risky, "eval of a computed string")
            } else {
                nested(&args.join(" "), depth, out, "eval")
            }
        }
        "source" | "." => v(Tier::Execute, "runs a script in the shell"),
        "command" if matches!(args.first().copied(), Some("-v" | "-V")) => {
            v(Tier::ReadOnly, "command -v: looks up a program")
        }
        "cmd" | "cmd.exe" => match args
            .iter()
            .position(|a| a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k"))
        {
            Some(i) => nested(&args[i + 1..].join(" "), depth, out, "cmd /c"),
            None => v(Tier::Risky, "cmd: an interactive shell"),
        },
        "powershell" | "pwsh" | "powershell.exe" => {
            v(Tier::Risky, "PowerShell commands are not analysed")
        }
        "python" | "python2" | "python3" | "py" => python(a),
        _ if name.starts_with("python3.") => python(a),
        "node" | "nodejs" | "deno" => {
            inline_or_file(name, a, &["-e", "--eval", "-p", "--print"], "run")
        }
        "perl" | "ruby" | "lua" => inline_or_file(name, a, &["-e", "-E"], ""),
        "php" => inline_or_file(name, a, &["-r"], ""),
        "bun" => match first_positional(a) {
            Some("test") | Some("run") => v(Tier::Execute, "bun: runs project code"),
            Some("install" | "add" | "remove" | "update" | "x") => {
                v(Tier::Risky, "bun: installs or downloads packages")
            }
            _ => v(Tier::Execute, "bun: runs a file"),
        },
        "java" => v(Tier::Execute, "java: runs a program"),

        // Toolchains.
        "git" => git(a),
        "cargo" => cargo(a),
        "npm" | "pnpm" | "yarn" => node_package_manager(name, a),
        "npx" | "pnpx" | "bunx" => v(
            Tier::Risky,
            format!("{name}: runs a package that may be downloaded"),
        ),
        "go" => match first_positional(a) {
            Some("build" | "vet" | "fmt") => v(Tier::Build, "go: builds or checks the project"),
            Some("test" | "run" | "generate") => v(Tier::Execute, "go: runs project code"),
            Some("version" | "env" | "list" | "doc") => v(Tier::ReadOnly, "go: prints information"),
            _ => v(Tier::Risky, "go: downloads or installs modules"),
        },
        "dotnet" => match first_positional(a) {
            Some("build" | "restore" | "clean" | "format" | "msbuild") => {
                v(Tier::Build, "dotnet: builds the project")
            }
            Some("test" | "run" | "watch") => v(Tier::Execute, "dotnet: runs project code"),
            Some("--info" | "--list-sdks" | "--list-runtimes") => {
                v(Tier::ReadOnly, "dotnet: prints information")
            }
            _ if has(a, &["--info", "--list-sdks", "--list-runtimes"]) => {
                v(Tier::ReadOnly, "dotnet: prints information")
            }
            _ => v(Tier::Risky, "dotnet: changes packages, tools or projects"),
        },
        "make" | "gmake" | "just" | "rake" | "invoke" | "task" => {
            v(Tier::Execute, format!("{name}: runs the project's recipes"))
        }
        "ninja" | "cmake" | "meson" | "tsc" | "rustc" | "gcc" | "g++" | "cc" | "c++" | "clang"
        | "clang++" | "javac" | "kotlinc" | "rustfmt" | "gofmt" | "black" | "isort"
        | "prettier" | "eslint" | "ruff" | "mypy" | "pyright" | "stylelint" | "shellcheck"
        | "clang-format" | "golangci-lint" | "tflint" | "hadolint" => v(
            Tier::Build,
            format!("{name}: builds, formats or checks code"),
        ),
        "mvn" | "gradle" => match first_positional(a) {
            Some(
                "compile" | "package" | "build" | "assemble" | "clean" | "compileJava"
                | "dependencies",
            ) => v(Tier::Build, format!("{name}: builds the project")),
            Some("deploy" | "publish" | "release") => v(Tier::Risky, format!("{name}: publishes")),
            _ => v(Tier::Execute, format!("{name}: runs project tasks")),
        },
        "pytest" | "jest" | "vitest" | "mocha" | "tox" | "nox" | "phpunit" | "rspec" | "ctest"
        | "karma" | "ava" => v(Tier::Execute, format!("{name}: runs tests")),
        "rustup" => match first_positional(a) {
            Some("show") | None => v(Tier::ReadOnly, "rustup: shows toolchains"),
            _ => v(Tier::Risky, "rustup: installs or changes toolchains"),
        },
        "pip" | "pip3" | "pipx" | "uv" | "poetry" | "conda" | "gem" | "bundle" | "composer"
        | "apt" | "apt-get" | "brew" | "dnf" | "yum" | "pacman" | "apk" | "choco" | "winget"
        | "snap" | "nix-env" | "port" => match first_positional(a) {
            Some("list" | "show" | "freeze" | "search" | "info" | "outdated" | "check") => {
                v(Tier::ReadOnly, format!("{name}: lists packages"))
            }
            Some("run") if matches!(name, "uv" | "poetry" | "bundle") => {
                v(Tier::Execute, format!("{name}: runs project code"))
            }
            _ => v(Tier::Risky, format!("{name}: installs or changes packages")),
        },

        // Finding files, and commands that run other commands.
        "find" => find(words, depth, out),
        "fd" | "fdfind" => match words
            .iter()
            .position(|w| matches!(w.value.as_str(), "-x" | "--exec" | "-X" | "--exec-batch"))
        {
            Some(i) => max(
                v(Tier::ReadOnly, "fd: lists files"),
                program(&words[i + 1..], depth, out),
            ),
            None => v(Tier::ReadOnly, "fd: lists files"),
        },
        "watch" => {
            let mut i = 0;
            while i < a.len() && a[i].starts_with('-') {
                i += if matches!(a[i], "-n" | "--interval" | "-q" | "--equexit") {
                    2
                } else {
                    1
                };
            }
            nested(&a[i.min(a.len())..].join(" "), depth, out, "watch")
        }

        // Text tools with escape hatches.
        "sed" | "gsed" => sed(a),
        "awk" | "gawk" | "mawk" | "nawk" => awk(a),
        "rg" => {
            if args.iter().any(|x| x.starts_with("--pre")) {
                v(Tier::Risky, "rg --pre runs a program on every file")
            } else {
                read_only(name, a)
            }
        }
        "sort" => {
            if args.iter().any(|x| {
                x.starts_with("-o")
                    || x.starts_with("--output")
                    || x.starts_with("--compress-program")
            }) {
                v(Tier::Risky, "sort: writes a file or runs a program")
            } else {
                read_only(name, a)
            }
        }
        "uniq" => {
            if args.iter().filter(|x| !x.starts_with('-')).count() > 1 {
                v(Tier::Risky, "uniq: writes its output file")
            } else {
                read_only(name, a)
            }
        }
        "tee" => {
            if args
                .iter()
                .any(|x| !x.starts_with('-') && *x != "/dev/null")
            {
                v(Tier::Risky, "tee: writes to files")
            } else {
                v(Tier::ReadOnly, "tee: passes its input on")
            }
        }
        "date" if has(a, &["-s", "--set"]) => v(Tier::Risky, "date: sets the clock"),
        "printenv" | "set" | "export" | "declare" | "compgen" => v(
            Tier::Risky,
            format!("{name}: prints or changes the environment, which may hold secrets"),
        ),
        _ if READ_ONLY.contains(&name) => read_only(name, a),
        _ if WINDOWS_READ_ONLY.contains(&name) => v(Tier::ReadOnly, format!("{name}: reads only")),

        // Changing files.
        "rm" | "rmdir" | "del" | "erase" | "rd" | "unlink" | "shred" | "trash" | "srm" => {
            remove(name, a)
        }
        "chmod" | "chown" | "chgrp" if short_flag(a, 'R') || has(a, &["--recursive"]) => {
            if args.iter().any(|x| is_catastrophic_target(x)) {
                v(
                    Tier::Denied,
                    format!("{name} -R on a system or home folder"),
                )
            } else {
                v(Tier::Risky, format!("{name}: changes file permissions"))
            }
        }
        "dd" => {
            if args
                .iter()
                .any(|x| x.strip_prefix("of=").is_some_and(is_raw_disk))
            {
                v(Tier::Denied, "dd: writes raw bytes to a disk device")
            } else {
                v(Tier::Risky, "dd: copies raw bytes")
            }
        }
        "mv" | "cp" | "ln" | "mkdir" | "touch" | "chmod" | "chown" | "chgrp" | "truncate"
        | "install" | "tar" | "zip" | "unzip" | "gzip" | "gunzip" | "bzip2" | "xz" | "7z"
        | "patch" | "copy" | "xcopy" | "robocopy" | "move" | "ren" | "rename" | "md" | "attrib"
        | "mklink" => v(Tier::Risky, format!("{name}: changes files")),

        // The machine itself.
        "shutdown" | "reboot" | "halt" | "poweroff" => {
            v(Tier::Denied, format!("{name}: stops the machine"))
        }
        "init" | "telinit" if matches!(first_positional(a), Some("0" | "6")) => {
            v(Tier::Denied, "init: stops the machine")
        }
        "systemctl" | "loginctl"
            if matches!(
                first_positional(a),
                Some("poweroff" | "reboot" | "halt" | "kexec" | "suspend" | "hibernate")
            ) =>
        {
            v(Tier::Denied, format!("{name}: stops the machine"))
        }
        "format" | "diskpart" | "fdisk" | "sfdisk" | "gdisk" | "parted" | "wipefs" | "mke2fs"
        | "mkswap" => v(Tier::Denied, format!("{name}: formats or partitions disks")),
        _ if name.starts_with("mkfs") => v(Tier::Denied, format!("{name}: formats a disk")),
        "kill" | "pkill" | "killall" | "systemctl" | "service" | "crontab" | "mount" | "umount"
        | "useradd" | "passwd" | "iptables" | "docker" | "podman" | "kubectl" => {
            v(Tier::Risky, format!("{name}: changes the system"))
        }
        "su" | "pkexec" => v(
            Tier::Risky,
            format!("{name}: runs with elevated privileges"),
        ),

        _ if is_network(name) => v(Tier::Risky, format!("{NETWORK_REASON}: {name}")),
        _ => v(
            Tier::Risky,
            format!("unknown program {name}: not on the classifier's lists"),
        ),
    }
}

/// Programs that only read (output goes to the terminal).
const READ_ONLY: &[&str] = &[
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "ls",
    "tree",
    "pwd",
    "echo",
    "printf",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "ag",
    "ack",
    "file",
    "stat",
    "du",
    "df",
    "diff",
    "cmp",
    "comm",
    "cut",
    "tr",
    "nl",
    "od",
    "hexdump",
    "xxd",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "date",
    "whoami",
    "id",
    "uname",
    "hostname",
    "true",
    "false",
    "test",
    "[",
    "seq",
    "jq",
    "yq",
    "which",
    "whereis",
    "type",
    "column",
    "expand",
    "unexpand",
    "fold",
    "paste",
    "join",
    "tac",
    "rev",
    "strings",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "base64",
    "sleep",
    "ps",
    "free",
    "uptime",
    "locale",
    "nproc",
    "arch",
    "lscpu",
    "cd",
    "exit",
    "wait",
    "clear",
    "tput",
    "groups",
    "lsb_release",
    "git-lfs",
    "numfmt",
    "fmt",
    "look",
    "zcat",
    "zgrep",
    "bzcat",
    "xzcat",
    "pgrep",
    "man",
    "help",
    "hash",
    ":",
];

/// Windows `cmd` built-ins and tools that only read.
const WINDOWS_READ_ONLY: &[&str] = &[
    "dir",
    "where",
    "findstr",
    "ver",
    "cls",
    "tasklist",
    "systeminfo",
    "fc",
];

fn read_only(name: &str, args: &[&str]) -> Verdict {
    match args.iter().find(|a| is_secret_path(a)) {
        Some(secret) => v(
            Tier::Risky,
            format!("{name}: reads {secret}, which may hold secrets"),
        ),
        None => v(Tier::ReadOnly, format!("{name}: reads only")),
    }
}

fn nested(source: &str, depth: usize, out: &mut Vec<Segment>, via: &str) -> Verdict {
    let before = out.len();
    classify_into(source, depth + 1, out);
    let inner = out[before..]
        .iter()
        .map(|s| s.tier)
        .max()
        .unwrap_or(Tier::ReadOnly);
    v(inner, format!("{via}: runs the commands listed below it"))
}

fn shell(name: &str, words: &[Word], depth: usize, out: &mut Vec<Segment>) -> Verdict {
    let args = values(words);
    if let Some(i) = args
        .iter()
        .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
    {
        return match words.get(i + 1) {
            Some(script) if script.dynamic => {
                v(Tier::Risky, format!("{name} -c runs a computed script"))
            }
            Some(script) => nested(&script.value, depth, out, &format!("{name} -c")),
            None => v(Tier::Risky, format!("{name} -c without a script")),
        };
    }
    match first_positional(&args) {
        Some(_) => v(Tier::Execute, format!("{name}: runs a script")),
        None => v(
            Tier::Risky,
            format!("{name}: a shell reading commands from its input"),
        ),
    }
}

fn python(args: &[&str]) -> Verdict {
    if has(args, &["-c"]) {
        return v(Tier::Risky, "python -c runs inline code");
    }
    if let Some(i) = args.iter().position(|a| *a == "-m") {
        return match args.get(i + 1).copied() {
            Some("pip" | "ensurepip" | "venv" | "virtualenv" | "http.server") => {
                v(Tier::Risky, "python -m: installs packages or serves files")
            }
            Some("pytest" | "unittest" | "doctest" | "tox" | "nox") => {
                v(Tier::Execute, "python -m: runs tests")
            }
            Some(
                "mypy" | "black" | "ruff" | "flake8" | "pylint" | "isort" | "compileall"
                | "py_compile",
            ) => v(Tier::Build, "python -m: checks or formats code"),
            _ => v(Tier::Execute, "python -m: runs a module"),
        };
    }
    match first_positional(args) {
        Some("-") | None => v(Tier::Risky, "python: reads code from its input"),
        Some(_) => v(Tier::Execute, "python: runs a file"),
    }
}

fn inline_or_file(name: &str, args: &[&str], inline: &[&str], _run: &str) -> Verdict {
    if args
        .iter()
        .any(|a| inline.contains(a) || inline.iter().any(|f| a.starts_with(&format!("{f}="))))
    {
        return v(Tier::Risky, format!("{name}: runs inline code"));
    }
    match first_positional(args) {
        Some("run" | "test") if name == "deno" => v(Tier::Execute, "deno: runs project code"),
        Some("eval" | "repl") if name == "deno" => v(Tier::Risky, "deno: runs inline code"),
        Some("-") | None => v(Tier::Risky, format!("{name}: reads code from its input")),
        Some(_) => v(Tier::Execute, format!("{name}: runs a file")),
    }
}

fn find(words: &[Word], depth: usize, out: &mut Vec<Segment>) -> Verdict {
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

fn sed(args: &[&str]) -> Verdict {
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

fn awk(args: &[&str]) -> Verdict {
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

fn is_catastrophic_target(target: &str) -> bool {
    let t = target.trim_end_matches('/');
    let t = t.strip_suffix("/*").unwrap_or(t);
    matches!(
        t,
        "" | "/*"
            | "~"
            | "$HOME"
            | "${HOME}"
            | "/home"
            | "/root"
            | "/etc"
            | "/usr"
            | "/bin"
            | "/sbin"
            | "/var"
            | "/boot"
            | "/lib"
            | "/lib64"
            | "/opt"
            | "/dev"
            | "/sys"
            | "/proc"
            | "/System"
            | "/Users"
            | "C:"
            | "C:\\"
            | "c:"
    ) || t.starts_with("~/") && t.len() <= 3
        || t == "/*"
}

fn remove(name: &str, args: &[&str]) -> Verdict {
    let recursive =
        short_flag(args, 'r') || short_flag(args, 'R') || has(args, &["--recursive", "/s", "/S"]);
    if has(args, &["--no-preserve-root"]) {
        return v(Tier::Denied, format!("{name} --no-preserve-root"));
    }
    if let Some(target) = args
        .iter()
        .find(|a| !a.starts_with('-') && is_catastrophic_target(a))
    {
        if recursive || matches!(name, "rd" | "rmdir" | "del" | "erase") {
            return v(
                Tier::Denied,
                format!("{name}: deletes {target}, a system or home folder"),
            );
        }
    }
    v(Tier::Risky, format!("{name}: deletes files"))
}

fn git(args: &[&str]) -> Verdict {
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
            match (reading, outside) {
                (true, _) => v(Tier::ReadOnly, "git config: reads configuration"),
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

fn cargo(args: &[&str]) -> Verdict {
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

fn node_package_manager(name: &str, args: &[&str]) -> Verdict {
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
