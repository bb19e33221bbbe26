//! What each program a command line names is allowed to be: the per-program rules behind the
//! classifier (interpreters, toolchains, file tools, the machine itself), and the lists of
//! programs that only read.

use super::classify::{
    INTERPRETERS, NETWORK_REASON, SHELLS, Segment, Tier, Verdict, classify_into, first_positional,
    has, is_network, is_raw_disk, is_secret_path, max, program, short_flag, v, values,
    version_probe,
};
use super::lex::Word;
use super::tools::{awk, cargo, find, git, node_package_manager, sed};

/// Rules for programs keyless knows.
pub(super) fn known_program(
    name: &str,
    words: &[Word],
    depth: usize,
    out: &mut Vec<Segment>,
) -> Verdict {
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

pub(super) fn read_only(name: &str, args: &[&str]) -> Verdict {
    match args.iter().find(|a| is_secret_path(a)) {
        Some(secret) => v(
            Tier::Risky,
            format!("{name}: reads {secret}, which may hold secrets"),
        ),
        None => v(Tier::ReadOnly, format!("{name}: reads only")),
    }
}

pub(super) fn nested(source: &str, depth: usize, out: &mut Vec<Segment>, via: &str) -> Verdict {
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
        && (recursive || matches!(name, "rd" | "rmdir" | "del" | "erase"))
    {
        return v(
            Tier::Denied,
            format!("{name}: deletes {target}, a system or home folder"),
        );
    }
    v(Tier::Risky, format!("{name}: deletes files"))
}
