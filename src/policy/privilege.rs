//! Programs that run a command given as one string, under another identity or on another
//! machine: `su -c`, `runuser -c`, `sg GROUP -c`, `runas`, `script -c`, `flock FILE -c`,
//! `ssh HOST COMMAND`. The string is classified as a command line of its own, so the command
//! is at least what it would be without them; without one, `su`, `script` and `ssh` run a
//! shell that reads its commands from its input.

use super::interp::SHELLS;
use super::names;
use super::options::{Getopt, Opt, Takes};
use super::vocab::{Ctx, ReasonKind, Tier, Verdict};

use Takes::{Nothing as N, Value as V};

/// `su`'s and `runuser`'s options (util-linux).
const SU: Getopt = Getopt {
    short_valued: "cCgGswu",
    long: &[
        ("command", V, 'c'),
        ("session-command", V, 'C'),
        ("group", V, 'g'),
        ("supp-group", V, 'G'),
        ("shell", V, 's'),
        ("whitelist-environment", V, 'w'),
        ("user", V, 'u'),
        ("login", N, 'l'),
        ("preserve-environment", N, 'm'),
        ("pty", N, 'P'),
        ("fast", N, 'f'),
    ],
};

/// `script`'s options (util-linux) that take a value.
const SCRIPT: Getopt = Getopt {
    short_valued: "cEIOBTm",
    long: &[
        ("command", V, 'c'),
        ("echo", V, 'E'),
        ("log-in", V, 'I'),
        ("log-out", V, 'O'),
        ("log-io", V, 'B'),
        ("log-timing", V, 'T'),
        ("logging-format", V, 'm'),
    ],
};

/// `ssh`'s options that take a value (OpenSSH).
const SSH: Getopt = Getopt {
    short_valued: "BbcDEeFIiJLlmOoPpQRSWw",
    long: &[],
};

/// Reads options wherever they stand (GNU getopt permutes: `su - root -c CMD`); returns the
/// options and the operands.
fn permuted<'a>(spec: &Getopt, args: &[&'a str]) -> (Vec<Opt<'a>>, Vec<&'a str>) {
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let (found, at) = spec.read(&args[i..]);
        opts.extend(found);
        i += at;
        if args.get(i.wrapping_sub(1)) == Some(&"--") && at > 0 {
            operands.extend_from_slice(&args[i..]);
            break;
        }
        if let Some(operand) = args.get(i) {
            operands.push(*operand);
            i += 1;
        }
    }
    (opts, operands)
}

fn privileged(name: &str) -> Verdict {
    Verdict::new(
        Tier::Risky,
        ReasonKind::Privilege,
        format!("{name}: runs with another user's privileges"),
    )
}

/// A shell that reads its commands from its input.
fn reads_input(name: &str, ctx: &mut Ctx) -> Verdict {
    ctx.facts.code_from_input = true;
    Verdict::new(
        Tier::Risky,
        ReasonKind::InlineCode,
        format!("{name}: a shell reading commands from its input"),
    )
}

/// The verdict for a program that runs a command string, or `None` when `name` is not one.
pub(super) fn command_string(name: &str, args: &[&str], ctx: &mut Ctx) -> Option<Verdict> {
    let verdict = match name {
        "su" | "runuser" => {
            let (opts, _) = permuted(&SU, args);
            let mut verdict = privileged(name);
            if let Some(shell) = opts.iter().find(|o| o.name == "shell")
                && !SHELLS.contains(&names::plain(shell.value.unwrap_or("")).0.as_ref())
            {
                verdict.raise(Verdict::new(
                    Tier::Risky,
                    ReasonKind::RunsProgram,
                    format!("{name} -s {}: runs that program as the shell", shell.raw),
                ));
            }
            match opts
                .iter()
                .find(|o| matches!(o.name.as_str(), "command" | "session-command"))
            {
                Some(command) => {
                    verdict.raise(ctx.nested(command.value.unwrap_or(""), &format!("{name} -c")))
                }
                None => verdict.raise(reads_input(name, ctx)),
            }
            verdict
        }
        "sg" => {
            let rest: Vec<&str> = args
                .iter()
                .copied()
                .skip_while(|a| *a == "-")
                .skip(1)
                .filter(|a| *a != "-c")
                .collect();
            privileged(name).max(ctx.nested(&rest.join(" "), "sg"))
        }
        "runas" => {
            let command = args.iter().rev().find(|a| !a.starts_with('/')).copied();
            privileged(name).max(ctx.nested(command.unwrap_or(""), "runas"))
        }
        "script" => {
            let (opts, _) = permuted(&SCRIPT, args);
            let records = Verdict::new(
                Tier::Risky,
                ReasonKind::WritesFile,
                "script: records the session in a file",
            );
            match opts.iter().find(|o| o.name == "command") {
                Some(command) => records.max(ctx.nested(command.value.unwrap_or(""), "script -c")),
                None => records.max(reads_input(name, ctx)),
            }
        }
        "flock" => {
            let at = args
                .iter()
                .position(|a| *a == "-c" || a.starts_with("--c"))?;
            let command = match args[at].split_once('=') {
                Some((_, value)) => value,
                None => args.get(at + 1).copied().unwrap_or(""),
            };
            ctx.nested(command, "flock -c")
        }
        "ssh" => {
            ctx.facts.network = true;
            let (opts, at) = SSH.read(args);
            let mut network = Verdict::new(
                Tier::Risky,
                ReasonKind::Network,
                "ssh: runs commands on another machine",
            );
            // `-o ProxyCommand=…` and `LocalCommand` run here, not there.
            for option in opts.iter().filter(|o| o.name == "o") {
                let value = option.value.unwrap_or("");
                if let Some((key, command)) = value.split_once(['=', ' '])
                    && matches!(
                        key.to_ascii_lowercase().as_str(),
                        "proxycommand" | "localcommand" | "knownhostscommand"
                    )
                {
                    network.raise(ctx.nested(command, &format!("ssh -o {key}")));
                }
            }
            match args.get(at + 1..).filter(|rest| !rest.is_empty()) {
                Some(command) => network.max(ctx.nested(&command.join(" "), "ssh")),
                None => network.max(reads_input(name, ctx)),
            }
        }
        _ => return None,
    };
    Some(verdict)
}
