//! Toolchains: cargo and the npm family (go, dotnet, make and cmake are `builders`; compilers,
//! formatters and linters `compilers`), and the helpers they share. Build is earned with
//! options known not to run other programs (`--config`, `-Z`, `RUSTC_WRAPPER`,
//! `--script-shell`, …) and not to write outside the workspace (`--target-dir /tmp/x`).

use super::paths;
use super::readers::unknown_option;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, first_positional};

/// Whether a path argument resolves outside the workspace.
pub(super) fn outside(raw: &str, ctx: &Ctx) -> bool {
    paths::resolve(raw, &ctx.cwd).outside()
}

/// A toolchain told to write a path outside the workspace.
pub(super) fn writes_outside(name: &str, raw: &str) -> Verdict {
    Verdict::new(
        Tier::Risky,
        ReasonKind::WritesFile,
        format!("{name}: writes {raw}, outside the workspace"),
    )
}

/// A toolchain option that makes it run another program.
pub(super) fn runs(name: &str, option: &str) -> Verdict {
    Verdict::new(
        Tier::Risky,
        ReasonKind::RunsProgram,
        format!("{name} {option}: makes it run another program or load other code"),
    )
}

/// Cargo options that are safe for every subcommand, with whether they take a value.
const CARGO_OPTIONS: &[(&str, bool)] = &[
    ("-p", true),
    ("--package", true),
    ("--workspace", false),
    ("--all", false),
    ("--exclude", true),
    ("--lib", false),
    ("--bin", true),
    ("--bins", false),
    ("--example", true),
    ("--examples", false),
    ("--test", true),
    ("--tests", false),
    ("--bench", true),
    ("--benches", false),
    ("--all-targets", false),
    ("-F", true),
    ("--features", true),
    ("--all-features", false),
    ("--no-default-features", false),
    ("-r", false),
    ("--release", false),
    ("--profile", true),
    ("-j", true),
    ("--jobs", true),
    ("--keep-going", false),
    ("--target", true),
    ("--message-format", true),
    ("-q", false),
    ("--quiet", false),
    ("-v", false),
    ("-vv", false),
    ("--verbose", false),
    ("--color", true),
    ("--frozen", false),
    ("--locked", false),
    ("--offline", false),
    ("--timings", false),
    ("--no-deps", false),
    ("--document-private-items", false),
    ("--fix", false),
    ("--allow-dirty", false),
    ("--allow-staged", false),
    ("--allow-no-vcs", false),
    ("--broken-code", false),
    ("--edition", false),
    ("--edition-idioms", false),
    ("--check", false),
    ("--doc", false),
    ("--future-incompat-report", false),
    ("--no-run", false),
    ("--no-fail-fast", false),
    ("--ignore-rust-version", false),
    ("--build-plan", false),
    ("--format-version", true),
    ("--filter-platform", true),
    ("-e", true),
    ("--edges", true),
    ("-i", true),
    ("--invert", true),
    ("--depth", true),
    ("--prefix", true),
    ("--charset", true),
    ("-d", false),
    ("--duplicates", false),
    ("--dry-run", false),
    ("--lockfile-path", true),
    ("--target-dir", true),
    ("--manifest-path", true),
    ("--no-cfg", false),
];

pub(super) fn cargo(args: &[&str], ctx: &Ctx) -> Verdict {
    let mut floor = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    let mut sub = None;
    let mut unknown = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a == "--" {
            if matches!(sub, Some("clippy" | "fmt")) {
                let tool_ok = args[i..].iter().all(|t| {
                    matches!(
                        *t,
                        "-D" | "-W"
                            | "-A"
                            | "-F"
                            | "--check"
                            | "--no-deps"
                            | "--emit=stdout"
                            | "--emit=files"
                    ) || !t.starts_with('-')
                        || t.starts_with("-D")
                        || t.starts_with("-W")
                        || t.starts_with("-A")
                        || t.starts_with("--edition")
                });
                if !tool_ok {
                    unknown = unknown.or(Some("--"));
                }
            }
            break;
        }
        let (name, inline) = match a.split_once('=') {
            Some((n, value)) if a.starts_with("--") => (n, Some(value)),
            _ => (a, None),
        };
        match name {
            "--config" => floor.raise(runs("cargo", a)),
            _ if name.starts_with("-Z") || name.starts_with("-C") && sub.is_none() => {
                floor.raise(runs("cargo", a))
            }
            "--target-dir" | "--manifest-path" | "--out-dir" | "--artifact-dir"
            | "--lockfile-path" => {
                let value = inline.or_else(|| args.get(i).copied()).unwrap_or("");
                if inline.is_none() {
                    i += 1;
                }
                if outside(value, ctx) {
                    floor.raise(writes_outside("cargo", value));
                }
            }
            "-V" | "--version" | "--list" if sub.is_none() => {
                return Verdict::new(
                    Tier::ReadOnly,
                    ReasonKind::Program,
                    "cargo: prints information",
                );
            }
            _ if name.starts_with('+') && sub.is_none() => {}
            _ if name.starts_with('-') => match CARGO_OPTIONS.iter().find(|(o, _)| *o == name) {
                Some((_, true)) if inline.is_none() => i += 1,
                Some(_) => {}
                None if name.len() > 2
                    && !name.starts_with("--")
                    && name[1..].chars().all(|c| "qvr".contains(c)) => {}
                None if name.len() > 2
                    && !name.starts_with("--")
                    && name.get(..2).is_some_and(|p| {
                        CARGO_OPTIONS.iter().any(|(o, valued)| *valued && *o == p)
                    }) => {}
                None => unknown = unknown.or(Some(a)),
            },
            _ if sub.is_none() => sub = Some(a),
            _ => {}
        }
    }
    let Some(sub) = sub else {
        return floor.max(Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "cargo: prints help",
        ));
    };
    let own =
        match sub {
            "build" | "b" | "check" | "c" | "clippy" | "doc" | "d" | "fmt" | "clean" | "fix"
            | "metadata" | "tree" => match unknown {
                Some(option) => unknown_option(&format!("cargo {sub}"), option),
                None => Verdict::new(
                    Tier::Build,
                    ReasonKind::Program,
                    format!("cargo {sub}: builds or checks the project"),
                ),
            },
            "test" | "t" | "run" | "r" | "bench" | "nextest" | "miri" | "llvm-cov"
            | "tarpaulin" => Verdict::new(
                Tier::Execute,
                ReasonKind::Program,
                format!("cargo {sub}: runs project code"),
            ),
            "version" | "help" | "locate-project" | "pkgid" | "read-manifest"
            | "verify-project" => Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                format!("cargo {sub}: prints information"),
            ),
            _ => Verdict::new(
                Tier::Risky,
                ReasonKind::Packages,
                format!("cargo {sub}: installs, publishes or changes dependencies"),
            ),
        };
    floor.max(own)
}

/// Options of npm's information subcommands known to only shape what they print.
const NPM_INFO_OPTIONS: &[&str] = &[
    "--json",
    "--long",
    "-l",
    "--all",
    "-a",
    "--depth",
    "--parseable",
    "-p",
    "--omit",
    "--include",
    "--production",
    "--prod",
    "--dev",
    "--workspace",
    "-w",
    "--workspaces",
    "--link",
    "--global",
    "-g",
    "--unicode",
    "--color",
    "--no-color",
    "--help",
    "-h",
    "--silent",
    "-s",
    "--loglevel",
    "--quiet",
    "-q",
];

pub(super) fn node_package_manager(name: &str, args: &[&str]) -> Verdict {
    if let Some(option) = args.iter().find(|a| {
        [
            "--script-shell",
            "--userconfig",
            "--globalconfig",
            "--node-options",
            "--shell",
            "--prefix",
            "--call",
            "-c",
        ]
        .iter()
        .any(|o| a.split('=').next() == Some(*o))
    }) {
        return runs(name, option);
    }
    let sub = first_positional(args);
    match sub {
        Some(
            "test" | "t" | "tst" | "run" | "run-script" | "start" | "stop" | "restart" | "build"
            | "lint",
        ) => Verdict::new(
            Tier::Execute,
            ReasonKind::Program,
            format!("{name} {}: runs a project script", sub.unwrap_or_default()),
        ),
        Some(
            "ls" | "list" | "outdated" | "view" | "info" | "why" | "explain" | "root" | "bin"
            | "prefix" | "help" | "whoami",
        ) => match args.iter().find(|a| {
            a.starts_with('-') && !NPM_INFO_OPTIONS.contains(&a.split('=').next().unwrap_or(a))
        }) {
            // Positive knowledge: `--registry`, `--userconfig` and the rest change where npm
            // talks to or what it reads.
            Some(option) => unknown_option(name, option),
            None => Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                format!("{name}: prints information"),
            ),
        },
        Some("audit") if !args.contains(&"fix") => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            format!("{name} audit: reports vulnerabilities"),
        ),
        // `npm config get //registry…/:_authToken` prints a token: a secret store.
        Some("config") if matches!(args.get(1).copied(), Some("get" | "list" | "ls")) => {
            Verdict::new(
                Tier::Risky,
                ReasonKind::Secret,
                format!("{name} config: prints configuration, which may hold registry tokens"),
            )
        }
        Some("exec" | "x" | "dlx" | "create" | "init") => Verdict::new(
            Tier::Risky,
            ReasonKind::Packages,
            format!(
                "{name} {}: runs a package that may be downloaded",
                sub.unwrap_or_default()
            ),
        ),
        Some(
            "ci" | "install" | "i" | "add" | "remove" | "rm" | "uninstall" | "un" | "update" | "up"
            | "upgrade" | "link" | "publish" | "unpublish" | "dedupe" | "prune" | "rebuild"
            | "version" | "login" | "logout" | "pack" | "set" | "config" | "audit" | "import"
            | "patch",
        ) => Verdict::new(
            Tier::Risky,
            ReasonKind::Packages,
            format!("{name}: installs, publishes or changes packages (install scripts run code)"),
        ),
        None if name == "yarn" => {
            Verdict::new(Tier::Risky, ReasonKind::Packages, "yarn: installs packages")
        }
        None => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            format!("{name}: prints help"),
        ),
        Some(script) if name != "npm" => Verdict::new(
            Tier::Execute,
            ReasonKind::Program,
            format!("{name} {script}: runs a project script"),
        ),
        Some(other) => Verdict::new(
            Tier::Risky,
            ReasonKind::UnknownOption,
            format!("npm {other}: not a command the classifier knows"),
        ),
    }
}
