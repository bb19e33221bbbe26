//! The environment: which variables a command may set or unset, and the shell builtins that
//! rebind names or change how the shell runs.
//!
//! Positive knowledge again: a small list of variables is known to change only presentation
//! (locale, colour, log levels); everything programs read as commands or code climbs to Risky;
//! the variables keyless itself sets to keep commands safe (see `NON_INTERACTIVE` in
//! `src/exec/mod.rs`) may not be unset or overridden at all; any other variable is not known,
//! and a program may read it as configuration, so it climbs to Execute.

use super::vocab::{ReasonKind, Tier, Verdict};

/// Variables known to change only presentation or diagnostics.
const SAFE: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "COLUMNS",
    "LINES",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "RUST_LIB_BACKTRACE",
    "CI",
    "TERM",
    "DEBUG",
    "VERBOSE",
    "NODE_ENV",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "PYTHONHASHSEED",
    "GOTRACEBACK",
    "DOTNET_CLI_TELEMETRY_OPTOUT",
    "DOTNET_NOLOGO",
    "NPM_CONFIG_LOGLEVEL",
    "TIME_STYLE",
    "GREP_COLORS",
    "LS_COLORS",
    "SOURCE_DATE_EPOCH",
    "RUST_TEST_THREADS",
    "RUST_MIN_STACK",
    "CARGO_TERM_COLOR",
    "CARGO_TERM_VERBOSE",
    "CARGO_INCREMENTAL",
    "CARGO_BUILD_JOBS",
    "PROPTEST_CASES",
    "INSTA_UPDATE",
];

/// Variables keyless sets for every command; changing one undoes a guard.
pub(super) const GUARDS: &[&str] = &[
    "GIT_TERMINAL_PROMPT",
    "GCM_INTERACTIVE",
    "GIT_PAGER",
    "PAGER",
    "GIT_EDITOR",
    "EDITOR",
    "VISUAL",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
];

/// Whether `name` is one of keyless's guard variables (`GIT_CONFIG_KEY_0` and its family too).
pub(super) fn is_guard(name: &str) -> bool {
    GUARDS.contains(&name)
        || name.starts_with("GIT_CONFIG_KEY_")
        || name.starts_with("GIT_CONFIG_VALUE_")
}

/// Why a variable changes what runs, if it does.
fn runs_code(name: &str) -> Option<&'static str> {
    let why = match name {
        "PATH" | "SHELL" | "CDPATH" => "changes which programs run",
        "IFS" | "BASH_ENV" | "ENV" | "PROMPT_COMMAND" | "SHELLOPTS" | "BASHOPTS" | "PS4"
        | "PS1" | "PS0" | "GLOBIGNORE" | "HISTFILE" | "FPATH" | "ZDOTDIR" | "INPUTRC"
        | "BASH_XTRACEFD" | "EXECIGNORE" => "changes how the shell reads and runs commands",
        "MANPAGER" | "LESSOPEN" | "LESSCLOSE" | "LESSKEY" | "LESS" | "MANOPT" | "BROWSER"
        | "SUDO_ASKPASS" | "SSH_ASKPASS" | "DISPLAY" | "TERMINAL" | "HOME" | "TMPDIR"
        | "XDG_CONFIG_HOME" => "chooses a program or configuration to run",
        "CC"
        | "CXX"
        | "LD"
        | "AR"
        | "AS"
        | "CPP"
        | "NM"
        | "RANLIB"
        | "STRIP"
        | "OBJCOPY"
        | "RUSTC"
        | "RUSTC_WRAPPER"
        | "RUSTC_WORKSPACE_WRAPPER"
        | "RUSTDOC"
        | "RUSTFMT"
        | "MAKE"
        | "MAKEFLAGS"
        | "GOFLAGS"
        | "CMAKE_C_COMPILER_LAUNCHER" => "chooses the compiler, linker or build tool",
        "NODE_OPTIONS"
        | "NODE_PATH"
        | "PYTHONPATH"
        | "PYTHONSTARTUP"
        | "PYTHONHOME"
        | "PYTHONUSERBASE"
        | "PYTHONBREAKPOINT"
        | "PERL5OPT"
        | "PERL5LIB"
        | "PERLLIB"
        | "RUBYOPT"
        | "RUBYLIB"
        | "JAVA_TOOL_OPTIONS"
        | "_JAVA_OPTIONS"
        | "JDK_JAVA_OPTIONS"
        | "CLASSPATH"
        | "DOTNET_STARTUP_HOOKS"
        | "GEM_HOME"
        | "GEM_PATH"
        | "LUA_INIT"
        | "LUA_PATH"
        | "RIPGREP_CONFIG_PATH"
        | "WGETRC"
        | "CURL_HOME"
        | "GNUPGHOME"
        | "NPM_CONFIG_SCRIPT_SHELL"
        | "npm_config_script_shell"
        | "NPM_CONFIG_USERCONFIG" => {
            "makes an interpreter or tool load other code or configuration"
        }
        _ if name.ends_with("FLAGS") || name.ends_with("_OPTIONS") || name.ends_with("_OPTS") => {
            "passes options to a compiler or tool (they can name programs to run)"
        }
        _ if name.starts_with("LD_") || name.starts_with("DYLD_") => {
            "makes programs load other libraries"
        }
        _ if name.starts_with("GIT_") => "changes how git runs (it can name programs to run)",
        _ if name.starts_with("CARGO_") || name.starts_with("RUSTUP_") => {
            "changes how cargo runs (it can name programs to run)"
        }
        _ if name.starts_with("NPM_CONFIG_") || name.starts_with("npm_config_") => {
            "changes how npm runs (it can name programs to run)"
        }
        _ if name.starts_with("PIP_") || name.starts_with("UV_") || name.starts_with("POETRY_") => {
            "changes where packages come from"
        }
        _ if name.starts_with("BASH_FUNC_") => "defines a shell function",
        _ => return None,
    };
    Some(why)
}

fn is_safe(name: &str) -> bool {
    SAFE.contains(&name) || name.starts_with("LC_")
}

/// The verdict for setting `name` (a prefix assignment, `env NAME=…`, `export NAME=…`).
/// `for_command`: the assignment is for a program (an unknown variable may configure it).
pub(super) fn set_variable(name: &str, for_command: bool) -> Verdict {
    if is_guard(name) {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::GuardVariable,
            format!(
                "overrides {name}, which keyless sets so that commands cannot open a pager, an editor or a prompt, or run repository-chosen programs"
            ),
        );
    }
    if is_safe(name) {
        return Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "sets a variable");
    }
    if let Some(why) = runs_code(name) {
        return Verdict::new(
            Tier::Risky,
            ReasonKind::Environment,
            format!("sets {name}, which {why}"),
        );
    }
    if !for_command {
        return Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "sets a variable");
    }
    Verdict::new(
        Tier::Execute,
        ReasonKind::Environment,
        format!(
            "sets {name}, which the classifier does not know: a program may read it as configuration"
        ),
    )
}

/// The verdict for unsetting `name` (`env -u`, `unset`, `export -n`).
pub(super) fn unset_variable(name: &str) -> Verdict {
    if is_guard(name) {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::GuardVariable,
            format!(
                "unsets {name}, which keyless sets so that commands stay non-interactive and safe"
            ),
        );
    }
    Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "unsets a variable")
}

/// Words in a variable's name that say it holds a secret (`GITHUB_TOKEN`, `DB_PASSWORD`,
/// `OPENAI_API_KEY`). `AUTH` alone is left out: `SSH_AUTH_SOCK` and `GIT_AUTHOR_NAME` are not
/// secrets.
const SECRET_NAME_WORDS: &[&str] = &[
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "CREDENTIALS",
    "APIKEY",
    "PAT",
    "KEY",
    "KEYS",
];

/// Whether a variable's name says it holds a secret.
pub(super) fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper
        .split('_')
        .any(|word| SECRET_NAME_WORDS.contains(&word))
}

/// The first variable expanded in `value` (`$NAME`, `${NAME…}`) whose name says it holds a
/// secret.
pub(super) fn secret_expansion(value: &str) -> Option<&str> {
    let bytes = value.as_bytes();
    let mut at = 0;
    while let Some(found) = value[at..].find('$') {
        let mut start = at + found + 1;
        if bytes.get(start) == Some(&b'{') {
            start += 1;
            // `${!prefix*}` and `${#name}` still name the variable.
            while matches!(bytes.get(start), Some(b'!' | b'#')) {
                start += 1;
            }
        }
        let end = value[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(value.len(), |e| start + e);
        let name = &value[start..end];
        if !name.is_empty() && secret_name(name) {
            return Some(name);
        }
        at = end.max(at + found + 1);
    }
    None
}

/// Builtins that change the shell itself: `export`, `declare`, `unset`, `alias`, `set`, …
/// `None` when `name` is not one of them.
pub(super) fn builtin(name: &str, args: &[&str]) -> Option<Verdict> {
    let secret = |what: &str| {
        Verdict::new(
            Tier::Risky,
            ReasonKind::Secret,
            format!("{what}: prints the environment, which may hold secrets"),
        )
    };
    let rebinds = |what: &str| {
        Verdict::new(
            Tier::Risky,
            ReasonKind::Rebinding,
            format!("{what}: rebinds names or changes how the shell runs commands"),
        )
    };
    let verdict = match name {
        "printenv" => secret("printenv"),
        "export" | "declare" | "typeset" | "readonly" | "local" => {
            let options: Vec<&str> = args
                .iter()
                .copied()
                .filter(|a| a.starts_with('-') || a.starts_with('+'))
                .collect();
            let names: Vec<&str> = args
                .iter()
                .copied()
                .filter(|a| !a.starts_with('-') && !a.starts_with('+'))
                .collect();
            if names.is_empty() {
                return Some(secret(name));
            }
            let mut verdict = Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Nothing,
                format!("{name}: sets shell variables"),
            );
            if options
                .iter()
                .any(|o| o.contains('f') || o.contains('n') && name == "export")
            {
                verdict.raise(rebinds(name));
            }
            for word in names {
                let (var, assigned) = match word.split_once('=') {
                    Some((var, _)) => (var.trim_end_matches('+'), true),
                    None => (word, false),
                };
                if options.iter().any(|o| o.contains('n')) && name == "export" {
                    verdict.raise(unset_variable(var));
                } else if assigned {
                    verdict.raise(set_variable(var, assigned && name == "export"));
                }
            }
            verdict
        }
        "unset" => {
            let mut verdict = Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Nothing,
                "unset: removes shell variables",
            );
            for var in args.iter().filter(|a| !a.starts_with('-')) {
                verdict.raise(unset_variable(var));
            }
            verdict
        }
        "set" => {
            if args.is_empty() {
                return Some(secret("set"));
            }
            const KNOWN: &[&str] = &[
                "-e", "+e", "-u", "+u", "-x", "+x", "-v", "+v", "-eu", "-ue", "-ex", "-xe", "-eux",
                "-euo", "-eo", "-uo", "-exo", "-o", "+o", "-f", "+f", "-C", "+C",
            ];
            const OPTIONS: &[&str] = &[
                "errexit",
                "nounset",
                "xtrace",
                "pipefail",
                "verbose",
                "noclobber",
                "noglob",
            ];
            let mut after_dashdash = false;
            let ok = args.iter().all(|a| {
                if after_dashdash {
                    return true;
                }
                if *a == "--" {
                    after_dashdash = true;
                    return true;
                }
                KNOWN.contains(a) || OPTIONS.contains(a)
            });
            if ok {
                Verdict::new(
                    Tier::ReadOnly,
                    ReasonKind::Program,
                    "set: strict-mode options only",
                )
            } else {
                rebinds("set")
            }
        }
        "hash" => {
            if args.iter().any(|a| a.starts_with('-') && a.contains('p')) {
                rebinds("hash -p")
            } else {
                Verdict::new(
                    Tier::ReadOnly,
                    ReasonKind::Program,
                    "hash: looks up programs",
                )
            }
        }
        "alias" | "unalias" | "enable" | "trap" | "shopt" | "setopt" | "unsetopt" | "bind"
        | "complete" | "builtin" | "functions" | "autoload" | "zmodload" | "disown" => {
            rebinds(name)
        }
        "compgen" => secret("compgen"),
        _ => return None,
    };
    Some(verdict)
}

#[cfg(test)]
mod secret_names {
    use super::*;

    #[test]
    fn names_that_hold_secrets() {
        for value in [
            "$GITHUB_TOKEN",
            "Bearer ${OPENAI_API_KEY}",
            "x$db_password:y",
            "${#AWS_SECRET_ACCESS_KEY}",
            "${!NPM_TOKEN}",
            "$KEY",
        ] {
            assert!(secret_expansion(value).is_some(), "{value}");
        }
        for value in [
            "$HOME",
            "$PATH/x",
            "$GIT_AUTHOR_NAME",
            "$SSH_AUTH_SOCK",
            "$KEYBOARD",
            "${PWD}",
            "price$",
            "$1",
        ] {
            assert_eq!(secret_expansion(value), None, "{value}");
        }
    }
}
