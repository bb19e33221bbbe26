//! Which rule a program name goes to. The rules themselves live by concern: `readers` (tools
//! that only read), `text` (sed, awk, find, tee, jq), `files` (deletes and other changes),
//! `git`, `tools` (toolchains), `interp` (shells and interpreters), `env` (builtins that change
//! the shell); the machine, privileges and the network are decided here. A name no rule knows
//! is Risky.

use super::builders;
use super::compilers;
use super::env;
use super::files;
use super::find;
use super::git::git;
use super::interp::{self, is_interpreter};
use super::lex::Word;
use super::machine;
use super::privilege;
use super::readers::{self, unknown_option};
use super::risks::{is_network, is_remote, network};
use super::text;
use super::tools;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, first_positional, values, version_probe};

/// The verdict for a program keyless may know, with its arguments.
pub(super) fn known_program(name: &str, words: &[Word], ctx: &mut Ctx) -> Verdict {
    let args = values(words);
    let a = args.as_slice();
    if (is_interpreter(name) && !matches!(name, "eval" | "source" | ".")
        || matches!(
            name,
            "java" | "go" | "dotnet" | "rustc" | "gcc" | "cargo" | "npm" | "git"
        ))
        && version_probe(a)
    {
        return Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            format!("{name}: prints its version or help"),
        );
    }
    if let Some(verdict) = interp::interpreter(name, words, ctx) {
        return verdict;
    }
    if let Some(verdict) = privilege::command_string(name, a, ctx) {
        return verdict;
    }
    if let Some(verdict) = machine::machine(name, a) {
        return verdict;
    }
    if let Some(verdict) = env::builtin(name, a) {
        return verdict;
    }
    if let Some(verdict) = readers::reader(name, a, ctx) {
        return verdict;
    }
    if let Some(verdict) = files::change(name, a, ctx) {
        // Windows paths come unquoted (`rd /s /q C:\Windows\System32`): as cmd reads them too.
        if words.iter().any(|w| w.cmd.is_some()) {
            let cmd: Vec<&str> = words
                .iter()
                .map(|w| w.cmd.as_deref().unwrap_or(&w.value))
                .collect();
            if let Some(as_cmd) = files::change(name, &cmd, ctx) {
                return verdict.max(as_cmd);
            }
        }
        return verdict;
    }
    match name {
        "command" if matches!(a.first().copied(), Some("-v" | "-V")) => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "command -v: looks up a program",
        ),
        "java" => Verdict::new(Tier::Execute, ReasonKind::Program, "java: runs a program"),

        // Toolchains.
        "git" => git(a, ctx),
        "git-lfs"
            if matches!(
                first_positional(a),
                Some("ls-files" | "status" | "version" | "env")
            ) =>
        {
            Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                "git-lfs: reads the repository",
            )
        }
        "cargo" => tools::cargo(a, ctx),
        "npm" | "pnpm" | "yarn" => tools::node_package_manager(name, a),
        "npx" | "pnpx" | "bunx" => Verdict::new(
            Tier::Risky,
            ReasonKind::Packages,
            format!("{name}: runs a package that may be downloaded"),
        ),
        "go" => builders::go(a, ctx),
        "dotnet" => builders::dotnet(a),
        "make" | "gmake" | "just" | "rake" | "invoke" | "task" => builders::make(name, a, ctx),
        "cmake" => builders::cmake(a, ctx),
        "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++" => compilers::compiler(name, a, ctx),
        "rustc" => compilers::rustc(a, ctx),
        "ninja" | "meson" | "tsc" | "javac" | "kotlinc" | "rustfmt" | "gofmt" | "black"
        | "isort" | "prettier" | "eslint" | "ruff" | "mypy" | "pyright" | "stylelint"
        | "shellcheck" | "clang-format" | "golangci-lint" | "tflint" | "hadolint" | "flake8"
        | "pylint" | "biome" => compilers::formatter(name, a, ctx),
        "mvn" | "gradle" => match first_positional(a) {
            Some(
                "compile" | "package" | "build" | "assemble" | "clean" | "compileJava"
                | "dependencies",
            ) => Verdict::new(
                Tier::Build,
                ReasonKind::Program,
                format!("{name}: builds the project"),
            ),
            Some("deploy" | "publish" | "release") => Verdict::new(
                Tier::Risky,
                ReasonKind::Packages,
                format!("{name}: publishes"),
            ),
            _ => Verdict::new(
                Tier::Execute,
                ReasonKind::Program,
                format!("{name}: runs project tasks"),
            ),
        },
        "pytest" | "jest" | "vitest" | "mocha" | "tox" | "nox" | "phpunit" | "rspec" | "ctest"
        | "karma" | "ava" => Verdict::new(
            Tier::Execute,
            ReasonKind::Program,
            format!("{name}: runs tests"),
        ),
        "rustup" => match first_positional(a) {
            Some("show") | None => Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                "rustup: shows toolchains",
            ),
            _ => Verdict::new(
                Tier::Risky,
                ReasonKind::Packages,
                "rustup: installs or changes toolchains",
            ),
        },
        "pipenv" | "pdm" | "hatch" | "pixi" | "rye" if first_positional(a) == Some("run") => {
            environment_run(name, words, ctx)
        }
        "pip" | "pip3" | "pipx" | "uv" | "poetry" | "conda" | "gem" | "bundle" | "composer"
        | "apt" | "apt-get" | "brew" | "dnf" | "yum" | "pacman" | "apk" | "choco" | "winget"
        | "snap" | "nix-env" | "port" => match first_positional(a) {
            Some("list" | "show" | "freeze" | "search" | "info" | "outdated" | "check") => {
                Verdict::new(
                    Tier::ReadOnly,
                    ReasonKind::Program,
                    format!("{name}: lists packages"),
                )
            }
            // `uv run URL` and `uv run --with PKG` fetch what they run.
            Some("run")
                if matches!(name, "uv" | "poetry" | "bundle")
                    && (a.iter().any(|x| {
                        [
                            "--with",
                            "--from",
                            "--index",
                            "--extra-index-url",
                            "--index-url",
                        ]
                        .iter()
                        .any(|o| x.starts_with(o))
                    }) || a
                        .iter()
                        .filter(|x| !x.starts_with('-'))
                        .nth(1)
                        .is_some_and(|x| is_remote(x))) =>
            {
                Verdict::new(
                    Tier::Risky,
                    ReasonKind::RemoteCode,
                    format!("{name} run: fetches what it runs"),
                )
            }
            Some("run") if matches!(name, "uv" | "poetry" | "bundle" | "conda") => {
                environment_run(name, words, ctx)
            }
            _ => Verdict::new(
                Tier::Risky,
                ReasonKind::Packages,
                format!("{name}: installs or changes packages"),
            ),
        },

        // Finding files, and commands that run other commands.
        "find" => find::find(words, ctx),
        "fd" | "fdfind" => match words
            .iter()
            .position(|w| matches!(w.value.as_str(), "-x" | "--exec" | "-X" | "--exec-batch"))
        {
            Some(i) => Verdict::new(Tier::ReadOnly, ReasonKind::Program, "fd: lists files")
                .max(ctx.program(&words[i + 1..])),
            None => Verdict::new(Tier::ReadOnly, ReasonKind::Program, "fd: lists files"),
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
            ctx.nested(&a[i.min(a.len())..].join(" "), "watch")
        }

        // Text tools with escape hatches.
        "sed" | "gsed" => text::sed(a, ctx),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => text::awk(name, a, ctx),
        "tee" => text::tee(a),
        "jq" | "yq" | "gojq" | "jaq" => text::jq(name, a, ctx),
        "vim" | "vi" | "nvim" | "emacs" | "nano" | "ed" | "ex" => Verdict::new(
            Tier::Risky,
            ReasonKind::RunsProgram,
            format!("{name}: an editor (its commands can run programs and write files)"),
        ),

        "kill" | "pkill" | "killall" | "systemctl" | "service" | "crontab" | "mount" | "umount"
        | "useradd" | "passwd" | "iptables" | "docker" | "podman" | "kubectl" | "at" | "batch"
        | "launchctl" | "schtasks" | "reg" | "setx" => Verdict::new(
            Tier::Risky,
            ReasonKind::System,
            format!("{name}: changes the system"),
        ),

        _ if is_network(name) => network(name, a, ctx),
        _ if name.starts_with('-') => unknown_option("the shell", name),
        _ => Verdict::new(
            Tier::Risky,
            ReasonKind::UnknownProgram,
            format!("unknown program {name}: not on the classifier's lists"),
        ),
    }
}

/// Options of the environment runners' `run` that take a value.
const RUN_VALUED: &[&str] = &[
    "--python",
    "-p",
    "--directory",
    "--project",
    "--env-file",
    "--extra",
    "--group",
    "--package",
    "-n",
    "--name",
    "--prefix",
    "-e",
    "--environment",
    "--manifest-path",
];

/// `uv run CMD …`, `poetry run CMD …`, `conda run -n ENV CMD …`: CMD runs in the project's
/// environment, and is judged as itself (`uv run python -c …` is inline code); a script or an
/// entry point the classifier does not know is project code.
fn environment_run(name: &str, words: &[Word], ctx: &mut Ctx) -> Verdict {
    let floor = Verdict::new(
        Tier::Execute,
        ReasonKind::Program,
        format!("{name} run: runs project code in its environment"),
    );
    let Some(run) = words.iter().position(|w| w.value == "run") else {
        return floor;
    };
    let mut i = run + 1;
    while let Some(w) = words.get(i) {
        if w.value == "--" {
            i += 1;
            break;
        }
        if !w.value.starts_with('-') {
            break;
        }
        i += if RUN_VALUED.contains(&w.value.as_str()) {
            2
        } else {
            1
        };
    }
    let command = words.get(i..).unwrap_or(&[]);
    match command.first() {
        Some(script) if script.value.ends_with(".py") => floor,
        Some(_) => {
            let inner = ctx.program(command);
            if inner.kind == ReasonKind::UnknownProgram {
                floor
            } else {
                floor.max(inner)
            }
        }
        None => floor,
    }
}
