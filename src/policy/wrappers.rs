//! Programs that only wrap another command (`env`, `sudo`, `nice`, `timeout`, `xargs`, …):
//! stepping over them to the command they run, and what they do themselves (`sudo`, `doas`,
//! `pkexec` and `runuser -u` run with privileges, `env` sets, unsets or clears variables and
//! moves the command, `exec -c` clears the environment, `builtin` and `command -p` bypass the
//! names the shell would find).
//!
//! A wrapper's options are read the way getopt reads them: bundled letters (`sudo -iu root`),
//! values attached or next, long options by any prefix GNU getopt accepts (`nice --adj 5`,
//! `env --uns=PAGER`). An option the table does not know is taken for a flag; should it have
//! taken a value, `command` tries the words after it as the command too.

use std::sync::OnceLock;

use super::env;
use super::interp::is_interpreter;
use super::lex::Word;
use super::lookup::{self, Names};
use super::names;
use super::options::{Getopt, Opt, Takes};
use super::paths;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, values};

use Takes::{Nothing as N, Optional as O, Value as V};

/// A wrapper: its name, its options, and how many operands come before the command
/// (`timeout DURATION`, `chroot NEWROOT`).
struct Spec {
    name: &'static str,
    options: Getopt,
    operands: usize,
}

const fn spec(
    name: &'static str,
    short_valued: &'static str,
    long: &'static [(&'static str, Takes, char)],
    operands: usize,
) -> Spec {
    Spec {
        name,
        options: Getopt { short_valued, long },
        operands,
    }
}

/// The wrappers, with the options that take a value. Dangerous options come first in each
/// list: an abbreviation that matches several is read as the first.
#[rustfmt::skip]
const WRAPPERS: &[Spec] = &[
    spec("env", "uCSP", &[("ignore-environment", N, 'i'), ("unset", V, 'u'), ("chdir", V, 'C'), ("split-string", V, 'S'), ("null", N, '0'), ("debug", N, 'v'), ("default-signal", O, ' '), ("ignore-signal", O, ' '), ("block-signal", O, ' '), ("list-signal-handling", N, ' ')], 0),
    spec("nice", "n", &[("adjustment", V, 'n')], 0),
    spec("nohup", "", &[], 0),
    spec("time", "fo", &[("format", V, 'f'), ("output", V, 'o'), ("append", N, 'a'), ("portability", N, 'p'), ("verbose", N, 'v'), ("quiet", N, 'q')], 0),
    spec("command", "", &[], 0),
    spec("builtin", "", &[], 0),
    spec("exec", "a", &[], 0),
    spec("stdbuf", "ioe", &[("input", V, 'i'), ("output", V, 'o'), ("error", V, 'e')], 0),
    spec("timeout", "sk", &[("signal", V, 's'), ("kill-after", V, 'k'), ("foreground", N, ' '), ("preserve-status", N, ' '), ("verbose", N, 'v')], 1),
    spec("setsid", "", &[("fork", N, 'f'), ("wait", N, 'w'), ("ctty", N, 'c')], 0),
    spec("chronic", "", &[], 0),
    spec("unbuffer", "", &[], 0),
    spec("ionice", "cnpPut", &[("class", V, 'c'), ("classdata", V, 'n'), ("pid", V, 'p'), ("pgid", V, 'P'), ("uid", V, 'u')], 0),
    spec("taskset", "", &[], 1),
    spec("chrt", "T", &[("sched-runtime", V, 'T'), ("sched-period", V, 'P'), ("sched-deadline", V, 'D')], 1),
    spec("caffeinate", "tw", &[], 0),
    spec("sudo", "ugCDpUrtTR", &[("user", V, 'u'), ("group", V, 'g'), ("close-from", V, 'C'), ("chdir", V, 'D'), ("prompt", V, 'p'), ("other-user", V, 'U'), ("role", V, 'r'), ("type", V, 't'), ("command-timeout", V, 'T'), ("chroot", V, 'R'), ("host", V, ' '), ("preserve-env", O, 'E'), ("login", N, 'i'), ("shell", N, 's')], 0),
    spec("doas", "uC", &[], 0),
    spec("pkexec", "", &[("user", V, ' '), ("keep-cwd", N, ' '), ("disable-internal-agent", N, ' ')], 0),
    spec("runuser", "ugGw", &[("user", V, 'u'), ("group", V, 'g'), ("supp-group", V, 'G'), ("whitelist-environment", V, 'w')], 0),
    spec("chroot", "", &[("userspec", V, ' '), ("groups", V, ' '), ("skip-chdir", N, ' ')], 1),
    spec("nsenter", "tSGw", &[("target", V, 't'), ("setuid", V, 'S'), ("setgid", V, 'G'), ("wd", O, 'w'), ("root", O, 'r'), ("mount", O, 'm'), ("net", O, 'n'), ("pid", O, 'p'), ("user", O, 'U')], 0),
    spec("unshare", "", &[("map-user", V, ' '), ("map-group", V, ' '), ("setgroups", V, ' '), ("propagation", V, ' '), ("wd", V, ' '), ("root", V, ' ')], 0),
    spec("setpriv", "", &[("reuid", V, ' '), ("regid", V, ' '), ("ruid", V, ' '), ("euid", V, ' '), ("rgid", V, ' '), ("egid", V, ' '), ("groups", V, ' '), ("inh-caps", V, ' '), ("ambient-caps", V, ' '), ("bounding-set", V, ' '), ("securebits", V, ' '), ("pdeathsig", V, ' '), ("selinux-label", V, ' '), ("apparmor-profile", V, ' ')], 0),
    spec("systemd-run", "upEMHS", &[("unit", V, 'u'), ("property", V, 'p'), ("setenv", V, 'E'), ("machine", V, 'M'), ("host", V, 'H'), ("uid", V, ' '), ("gid", V, ' '), ("slice", V, ' '), ("nice", V, ' '), ("working-directory", V, ' '), ("description", V, ' '), ("on-active", V, ' '), ("on-calendar", V, ' ')], 0),
    spec("strace", "eoOpPsSuUXabEI", &[("output", V, 'o'), ("expr", V, 'e'), ("attach", V, 'p'), ("user", V, 'u'), ("env", V, 'E')], 0),
    spec("ltrace", "aAeFlnopsuxXL", &[("output", V, 'o')], 0),
    spec("flock", "wE", &[("timeout", V, 'w'), ("conflict-exit-code", V, 'E')], 1),
    spec("faketime", "", &[], 1),
    spec("torsocks", "uapP", &[], 0),
    spec("proxychains", "f", &[], 0),
    spec("proxychains4", "f", &[], 0),
    spec("eatmydata", "", &[], 0),
    spec("nocache", "n", &[], 0),
    spec("fakeroot", "lsi", &[("lib", V, 'l'), ("faked", V, ' ')], 0),
    spec("firejail", "", &[], 0),
    spec("xvfb-run", "nsfepl", &[("server-num", V, 'n'), ("server-args", V, 's'), ("auth-file", V, 'f'), ("error-file", V, 'e')], 0),
    spec("dbus-run-session", "", &[("config-file", V, ' '), ("dbus-daemon", V, ' ')], 0),
    spec("catchsegv", "", &[], 0),
    spec("busybox", "", &[], 0),
    spec("toybox", "", &[], 0),
    spec("xargs", "nIPLdasE", &[("max-args", V, 'n'), ("replace", O, 'i'), ("max-procs", V, 'P'), ("max-lines", O, 'l'), ("delimiter", V, 'd'), ("arg-file", V, 'a'), ("max-chars", V, 's'), ("eof", O, 'e'), ("null", N, '0'), ("no-run-if-empty", N, 'r'), ("interactive", N, 'p'), ("verbose", N, 't'), ("exit", N, 'x'), ("open-tty", N, 'o'), ("process-slot-var", V, ' ')], 0),
];

/// The wrapper named `name`, found through a table built once (a line asks for every word
/// that may be one).
fn spec_of(name: &str) -> Option<&'static Spec> {
    static BY_NAME: OnceLock<Names<&'static str, &'static Spec>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| lookup::by_name(WRAPPERS, |spec| spec.name))
        .get(name)
        .copied()
}

/// Wrappers that run the command with another user's privileges.
const PRIVILEGED: &[&str] = &[
    "sudo", "doas", "pkexec", "runuser", "chroot", "nsenter", "setpriv",
];

/// A wrapper as found on a line: its name, its own arguments, and the word that named it.
pub(super) struct Wrapper<'a> {
    pub name: &'a str,
    pub args: &'a [Word],
    pub word: &'a Word,
}

impl<'a> Wrapper<'a> {
    /// Its options, read by its spec.
    pub(super) fn options(&self) -> Vec<Opt<'a>> {
        match spec_of(self.name) {
            Some(spec) => spec.options.read(&values(self.args)).0,
            None => Vec::new(),
        }
    }
}

/// Steps over wrappers; returns them and the wrapped command.
pub(super) fn unwrap(mut words: &[Word]) -> (Vec<Wrapper<'_>>, &[Word]) {
    let mut wrappers = Vec::new();
    while let Some(first) = words.first() {
        let plain = names::plain(&first.value).0;
        let Some(spec) = spec_of(&plain) else {
            break;
        };
        let args = values(&words[1..]);
        let lookup = spec.name == "command" && matches!(args.first().copied(), Some("-v" | "-V"));
        // `runuser` without `-u`, and `flock … -c`, take their command as a string.
        let string_form = spec.name == "runuser"
            && !args.iter().any(|a| *a == "-u" || a.starts_with("--u"))
            || spec.name == "flock" && args.iter().any(|a| *a == "-c" || a.starts_with("--c"));
        if first.dynamic || lookup || string_form {
            break;
        }
        let (_, mut at) = spec.options.read(&args);
        if spec.name == "env" {
            // `env [-] [NAME=VALUE]… COMMAND`
            while args
                .get(at)
                .is_some_and(|a| *a == "-" || a.contains('=') && !a.starts_with('-'))
            {
                at += 1;
            }
        }
        let end = (1 + at + spec.operands).min(words.len());
        wrappers.push(Wrapper {
            name: spec.name,
            args: &words[1..end],
            word: first,
        });
        words = &words[end..];
    }
    (wrappers, words)
}

/// What wrappers themselves do: privileges, `env`'s assignments and options, `exec -c`,
/// `builtin`, `command -p`; `env -C` moves the command. A wrapper named by a path outside the
/// system folders is a program of unknown origin.
pub(super) fn wrapper_verdict(wrapper: &Wrapper, inner: &[Word], ctx: &mut Ctx) -> Verdict {
    let mut verdict = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    let call = names::call(wrapper.word, &ctx.cwd, &ctx.known.links);
    if matches!(call.how, names::How::Outside | names::How::Workspace) {
        verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::RunsProgram,
            format!(
                "runs {}, a program outside the system folders",
                wrapper.word.value
            ),
        ));
    }
    if PRIVILEGED.contains(&wrapper.name) {
        verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::Privilege,
            format!("{}: runs with elevated privileges", wrapper.name),
        ));
    }
    let options = wrapper.options();
    match wrapper.name {
        "builtin" => verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::Rebinding,
            "builtin: bypasses functions and aliases",
        )),
        "command" if options.iter().any(|o| o.name == "p") => {
            verdict.raise(Verdict::new(
                Tier::Risky,
                ReasonKind::Rebinding,
                "command -p: runs a program from a default PATH",
            ));
        }
        "exec" if options.iter().any(|o| o.name == "c") => verdict.raise(Verdict::new(
            Tier::Denied,
            ReasonKind::GuardVariable,
            "exec -c clears the environment, and with it the variables keyless sets to keep commands safe",
        )),
        "torsocks" | "proxychains" | "proxychains4" => verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::Network,
            format!("{}: sends the command's connections through a proxy", wrapper.name),
        )),
        "systemd-run" => verdict.raise(Verdict::new(
            Tier::Risky,
            ReasonKind::System,
            "systemd-run: runs the command as a service, outside keyless's control",
        )),
        "strace" | "ltrace" | "time" if options.iter().any(|o| o.name == "output") => {
            verdict.raise(Verdict::new(
                Tier::Risky,
                ReasonKind::WritesFile,
                format!("{} -o writes a file", wrapper.name),
            ));
        }
        "env" => verdict.raise(env_verdict(wrapper, &options, inner, ctx)),
        "sudo" | "doas"
            if inner.is_empty()
                && options
                    .iter()
                    .any(|o| matches!(o.name.as_str(), "login" | "shell" | "s" | "i")) =>
        {
            ctx.facts.code_from_input = true;
            verdict.raise(Verdict::new(
                Tier::Risky,
                ReasonKind::InlineCode,
                format!("{} -s: a shell reading commands from its input", wrapper.name),
            ));
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

/// `env`'s options and assignments.
fn env_verdict(wrapper: &Wrapper, options: &[Opt], inner: &[Word], ctx: &mut Ctx) -> Verdict {
    let mut verdict = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    let clears = || {
        Verdict::new(
            Tier::Denied,
            ReasonKind::GuardVariable,
            "env -i clears the environment, and with it the variables keyless sets to keep commands safe",
        )
    };
    for option in options {
        let value = option.value.unwrap_or("");
        match option.name.as_str() {
            "ignore-environment" => verdict.raise(clears()),
            "unset" => verdict.raise(env::unset_variable(value)),
            "chdir" => ctx.cwd = paths::resolve(value, &ctx.cwd),
            "split-string" => {
                let rest = values(inner).join(" ");
                verdict.raise(Verdict::new(
                    Tier::Risky,
                    ReasonKind::InlineCode,
                    "env -S runs a command built from a string",
                ));
                verdict.raise(ctx.nested(&format!("{value} {rest}"), "env -S"));
            }
            "null" | "debug" => {}
            _ => verdict.raise(Verdict::new(
                Tier::Risky,
                ReasonKind::UnknownOption,
                format!("env {}: not an option the classifier knows", option.raw),
            )),
        }
    }
    for word in wrapper.args {
        let a = word.value.as_str();
        if a == "-" {
            verdict.raise(clears());
        } else if !a.starts_with('-') && a.contains('=') {
            let name = a.split('=').next().unwrap_or(a);
            verdict.raise(env::set_variable(name, true));
        }
    }
    verdict
}
