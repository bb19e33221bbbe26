//! Build systems and the go and dotnet toolchains: Build or Execute with options known not to
//! run other programs (`-toolexec`, `-exec`, `-vettool`, `make --eval`, `SHELL=`, `cmake -E/-P`,
//! launcher and compiler `-D`) or write outside the workspace; `go run` of a module at a
//! version or a remote import path fetches what it runs (Risky).

use super::risks::is_remote;
use super::tools::{outside, runs, writes_outside};
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, first_positional, has};

pub(super) fn go(args: &[&str], ctx: &Ctx) -> Verdict {
    for (i, a) in args.iter().enumerate() {
        let key = a.trim_start_matches('-').split('=').next().unwrap_or("");
        if a.starts_with('-')
            && matches!(
                key,
                "toolexec"
                    | "exec"
                    | "vettool"
                    | "overlay"
                    | "modfile"
                    | "pkgdir"
                    | "compiler"
                    | "C"
                    | "ldflags"
                    | "gccgoflags"
                    | "asmflags"
            )
        {
            return runs("go", a);
        }
        if *a == "-o" || a.starts_with("-o=") {
            let value = a
                .strip_prefix("-o=")
                .or_else(|| args.get(i + 1).copied())
                .unwrap_or("");
            if outside(value, ctx) {
                return writes_outside("go", value);
            }
        }
    }
    let mut positionals = args.iter().copied().filter(|a| !a.starts_with('-'));
    let sub = positionals.next();
    // `go run example.com/cmd@latest` fetches the module and runs it; so does a package path
    // whose first element is a domain (`go run golang.org/x/tools/cmd/x`).
    if matches!(sub, Some("run" | "test" | "generate"))
        && let Some(target) = positionals.next()
        && (is_remote(target)
            || !target.starts_with('.')
                && !target.ends_with(".go")
                && target.split('/').next().is_some_and(|d| d.contains('.')))
    {
        return Verdict::new(
            Tier::Risky,
            ReasonKind::RemoteCode,
            format!(
                "go {}: {target} is fetched from the network and run",
                sub.unwrap_or_default()
            ),
        );
    }
    match first_positional(args) {
        Some("build" | "vet" | "fmt") => Verdict::new(
            Tier::Build,
            ReasonKind::Program,
            "go: builds or checks the project",
        ),
        Some("test" | "run" | "generate") => {
            Verdict::new(Tier::Execute, ReasonKind::Program, "go: runs project code")
        }
        Some("env") if has(args, &["-w", "-u"]) => Verdict::new(
            Tier::Risky,
            ReasonKind::Environment,
            "go env -w changes go's settings (GOFLAGS can name programs)",
        ),
        Some("version" | "env" | "list" | "doc") => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "go: prints information",
        ),
        _ => Verdict::new(
            Tier::Risky,
            ReasonKind::Packages,
            "go: downloads or installs modules",
        ),
    }
}

pub(super) fn dotnet(args: &[&str]) -> Verdict {
    match first_positional(args) {
        Some("build" | "restore" | "clean" | "format" | "msbuild") => Verdict::new(
            Tier::Build,
            ReasonKind::Program,
            "dotnet: builds the project",
        ),
        Some("test" | "run" | "watch") => Verdict::new(
            Tier::Execute,
            ReasonKind::Program,
            "dotnet: runs project code",
        ),
        _ if has(args, &["--info", "--list-sdks", "--list-runtimes"]) => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "dotnet: prints information",
        ),
        _ => Verdict::new(
            Tier::Risky,
            ReasonKind::Packages,
            "dotnet: changes packages, tools or projects",
        ),
    }
}

pub(super) fn make(name: &str, args: &[&str], ctx: &Ctx) -> Verdict {
    for (i, a) in args.iter().enumerate() {
        if a.starts_with("--eval") || *a == "-E" {
            return Verdict::new(
                Tier::Risky,
                ReasonKind::InlineCode,
                format!("{name} {a}: runs inline make code"),
            );
        }
        if matches!(
            *a,
            "-f" | "--file" | "--makefile" | "-C" | "--directory" | "-I" | "--include-dir"
        ) {
            let value = args.get(i + 1).copied().unwrap_or("");
            if outside(value, ctx) {
                return runs(name, &format!("{a} {value}"));
            }
        }
        if let Some((var, _)) = a.split_once('=')
            && !a.starts_with('-')
            && matches!(
                var,
                "SHELL"
                    | "MAKE"
                    | "CC"
                    | "CXX"
                    | "LD"
                    | "AR"
                    | ".SHELLFLAGS"
                    | "MAKEFLAGS"
                    | "PATH"
            )
        {
            return runs(name, a);
        }
    }
    Verdict::new(
        Tier::Execute,
        ReasonKind::Program,
        format!("{name}: runs the project's recipes"),
    )
}

pub(super) fn cmake(args: &[&str], ctx: &Ctx) -> Verdict {
    for (i, a) in args.iter().enumerate() {
        match *a {
            "-E" | "-P" | "-C" | "--toolchain" => return runs("cmake", a),
            _ if a.starts_with("-D")
                && (a.contains("LAUNCHER")
                    || a.contains("COMPILER")
                    || a.contains("TOOLCHAIN")
                    || a.contains("LINKER")) =>
            {
                return runs("cmake", a);
            }
            "-B" | "--build" | "-S" => {
                let value = args.get(i + 1).copied().unwrap_or("");
                if outside(value, ctx) {
                    return writes_outside("cmake", value);
                }
            }
            _ => {}
        }
    }
    Verdict::new(
        Tier::Build,
        ReasonKind::Program,
        "cmake: configures or builds the project",
    )
}
