//! Compilers, formatters and linters: Build, unless an option makes them run another program
//! (`-wrapper`, `-fplugin`, `-B`, `-specs`, `--sysroot`, `-fuse-ld=PATH`, `rustc -C linker`,
//! `-Z`, `@file`) or they write outside the workspace (`-o ~/x`, a fixer given `/etc/x`).
//! gcc-family options are known by family (`-W…`, `-f…`, `-O…`, `-I`, `-D`, …).

use super::readers::unknown_option;
use super::tools::{outside, runs, writes_outside};
use super::vocab::{Ctx, ReasonKind, Tier, Verdict};

/// gcc, clang and friends: options by family; anything else is unknown.
pub(super) fn compiler(name: &str, args: &[&str], ctx: &Ctx) -> Verdict {
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if !a.starts_with('-') {
            if a.starts_with('@') {
                return runs(name, a);
            }
            continue;
        }
        let risky = a == "-wrapper"
            || a.starts_with("-B")
            || a.starts_with("-fplugin")
            || a.starts_with("-specs")
            || a.starts_with("--specs")
            || a.starts_with("--sysroot")
            || a.starts_with("-isysroot")
            || a.starts_with("-fuse-ld=") && !matches!(&a[9..], "lld" | "gold" | "bfd" | "mold")
            || a.starts_with("--ld-path")
            || a.starts_with("-Xclang")
            || a.starts_with("-Xlinker")
            || a.starts_with("-Wl,") && a.contains("plugin")
            || a.starts_with("-load")
            || a.starts_with("-print-prog-name")
            || a.starts_with("-fprofile-generate=")
            || a.starts_with("-fdump-");
        if risky {
            return runs(name, a);
        }
        if a == "-o" || a == "-MF" || a == "-MT" || a == "-MQ" {
            let value = args.get(i).copied().unwrap_or("");
            i += 1;
            if a == "-o" && outside(value, ctx) {
                return writes_outside(name, value);
            }
            continue;
        }
        if matches!(
            a,
            "-I" | "-L"
                | "-D"
                | "-U"
                | "-x"
                | "-l"
                | "-isystem"
                | "-iquote"
                | "-include"
                | "-target"
                | "-arch"
                | "-MD"
                | "-MMD"
        ) {
            i += usize::from(!matches!(a, "-MD" | "-MMD"));
            continue;
        }
        let known = [
            "-W", "-f", "-O", "-g", "-std=", "--std=", "-I", "-L", "-l", "-D", "-U", "-m", "-M",
            "-o",
        ]
        .iter()
        .any(|p| a.starts_with(p))
            || matches!(
                a,
                "-c" | "-S"
                    | "-E"
                    | "-v"
                    | "-w"
                    | "-pipe"
                    | "-pthread"
                    | "-shared"
                    | "-static"
                    | "-ansi"
                    | "-pedantic"
                    | "-pedantic-errors"
                    | "-nostdlib"
                    | "-nostdinc"
                    | "-rdynamic"
                    | "-s"
                    | "-P"
                    | "-C"
                    | "--version"
                    | "-dumpversion"
                    | "-dumpmachine"
                    | "-print-search-dirs"
                    | "--help"
                    | "-###"
                    | "-fsyntax-only"
            )
            || a.starts_with("--target=");
        if !known {
            return unknown_option(name, a);
        }
        if let Some(out) = a.strip_prefix("-o")
            && outside(out, ctx)
        {
            return writes_outside(name, out);
        }
    }
    Verdict::new(
        Tier::Build,
        ReasonKind::Program,
        format!("{name}: compiles code"),
    )
}

pub(super) fn rustc(args: &[&str], ctx: &Ctx) -> Verdict {
    const CODEGEN: &[&str] = &[
        "opt-level",
        "debuginfo",
        "target-cpu",
        "target-feature",
        "codegen-units",
        "lto",
        "panic",
        "overflow-checks",
        "strip",
        "embed-bitcode",
        "relocation-model",
        "prefer-dynamic",
        "rpath",
        "debug-assertions",
        "force-frame-pointers",
        "incremental",
    ];
    for (i, a) in args.iter().enumerate() {
        let codegen = match *a {
            "-C" | "--codegen" => args.get(i + 1).copied(),
            _ => a
                .strip_prefix("-C")
                .filter(|c| !c.is_empty())
                .or_else(|| a.strip_prefix("--codegen=")),
        };
        if let Some(setting) = codegen
            && !CODEGEN.contains(&setting.split('=').next().unwrap_or(setting))
        {
            return runs("rustc", &format!("-C {setting}"));
        }
        if a.starts_with("-Z") {
            return runs("rustc", a);
        }
        if matches!(*a, "-o" | "--out-dir") && args.get(i + 1).is_some_and(|o| outside(o, ctx)) {
            return writes_outside("rustc", args.get(i + 1).copied().unwrap_or(""));
        }
    }
    Verdict::new(Tier::Build, ReasonKind::Program, "rustc: compiles code")
}

/// Formatters, linters and compilers of other languages: Build, unless given paths outside
/// the workspace (a fixer writes what it is given) or options that load code from elsewhere.
/// Options of formatters, linters and type checkers known to only change what they check
/// (inside the workspace), choose what to check, or shape the report. With the loaders above
/// (allowed when what they load lies in the workspace: project code, as a build script is),
/// these are the options a formatter earns Build with; any other climbs.
const FORMATTER_OPTIONS: &[&str] = &[
    "--check",
    "--diff",
    "--write",
    "-w",
    "--fix",
    "--fix-only",
    "--unsafe-fixes",
    "--list-different",
    "-l",
    "-i",
    "--in-place",
    "--quiet",
    "-q",
    "--verbose",
    "-v",
    "--color",
    "--no-color",
    "--version",
    "-V",
    "--help",
    "-h",
    "--noEmit",
    "--strict",
    "--pretty",
    "--incremental",
    "--skipLibCheck",
    "--watch=false",
    "--ext",
    "--max-warnings",
    "--cache",
    "--no-cache",
    "--ignore-path",
    "--no-ignore",
    "--line-length",
    "-L",
    "--target-version",
    "--select",
    "--ignore",
    "--extend-select",
    "--extend-ignore",
    "--exclude",
    "--extend-exclude",
    "--include",
    "--force-exclude",
    "--statistics",
    "--show-source",
    "--show-fixes",
    "--output-format",
    "--show-error-codes",
    "--show-column-numbers",
    "--no-error-summary",
    "--ignore-missing-imports",
    "--follow-imports",
    "--python-version",
    "--jobs",
    "-j",
    "--edition",
    "--emit",
    "--files-with-diff",
    "--severity",
    "--shell",
    "-s",
    "--enable",
    "--disable",
    "--tabWidth",
    "--tab-width",
    "--use-tabs",
    "--print-width",
    "--single-quote",
    "--no-semi",
    "--trailing-comma",
    "--end-of-line",
    "--prose-wrap",
    "--fast",
    "--preview",
    "--skip-string-normalization",
    "-S",
    "--profile",
    "--settings-path",
    "--recursive",
    "-r",
    "--dry-run",
    "-n",
    "--werror",
    "-Werror",
    "--Werror",
    "--all",
    "--new",
    "--fix-dry-run",
    "--report-unused-disable-directives",
    "--no-eslintrc",
    "--env",
    "--global",
    "--quiet=true",
];

pub(super) fn formatter(name: &str, args: &[&str], ctx: &Ctx) -> Verdict {
    const LOADS: &[&str] = &[
        "--plugin",
        "--plugins",
        "--rulesdir",
        "--resolve-plugins-relative-to",
        "--config",
        "-c",
        "--parser",
        "--require",
        "-r",
        "--loader",
        "--rcfile",
        "--load-plugins",
        "--init-hook",
        "--custom-typeshed-dir",
        "--python-executable",
        "--exec",
        "--format",
        "-f",
        "--formatter",
        "--assume-filename",
        "--style",
        "--plugin-search-dir",
        "--rc",
        "--project",
        "-p",
    ];
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        let key = a.split('=').next().unwrap_or(a);
        if LOADS.contains(&key) {
            let value = a
                .split_once('=')
                .map(|(_, v)| v)
                .or_else(|| args.get(i).copied())
                .unwrap_or("");
            if value.contains('/') && outside(value, ctx)
                || matches!(key, "--init-hook" | "--exec" | "--python-executable")
            {
                return runs(name, a);
            }
            continue;
        }
        if !a.starts_with('-') && outside(a, ctx) {
            return writes_outside(name, a);
        }
        if let Some(value) = a.split_once('=').map(|(_, v)| v)
            && (key.contains("out") || key.contains("cache"))
            && outside(value, ctx)
        {
            return writes_outside(name, value);
        }
        // Positive knowledge: an option on neither list climbs.
        if a.starts_with('-') && a != "-" && a != "--" && !FORMATTER_OPTIONS.contains(&key) {
            return unknown_option(name, a);
        }
    }
    Verdict::new(
        Tier::Build,
        ReasonKind::Program,
        format!("{name}: builds, formats or checks code"),
    )
}
