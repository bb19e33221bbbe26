//! Text tools with escape hatches: sed (`e`, `w`, `s///e`, `-i`), awk (`system`, pipes,
//! `print >`), find (`-exec`, `-delete`, `-fprint`), tee, jq and yq. Each is ReadOnly only
//! when its options and its script are known not to write, run or read secrets.

use super::inline;
use super::options::Spec;
use super::paths;
use super::places;
use super::readers::{secrets, unknown_option};
use super::vocab::{Ctx, ReasonKind, Tier, Verdict};

const SED: Spec = Spec {
    flags: "nEruszaU",
    valued: "l",
    long: &[
        "quiet",
        "silent",
        "debug",
        "posix",
        "regexp-extended",
        "separate",
        "sandbox",
        "unbuffered",
        "null-data",
        "follow-symlinks",
        "help",
        "version",
    ],
    long_valued: &["line-length"],
    digits: false,
};

pub(super) fn sed(args: &[&str], ctx: &Ctx) -> Verdict {
    let mut scripts = Vec::new();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a == "--" {
            rest.extend_from_slice(&args[i..]);
            break;
        }
        let short = a.starts_with('-') && !a.starts_with("--");
        if a.starts_with("--in-place")
            || short && a[1..].split('e').next().unwrap_or("").contains('i')
        {
            return Verdict::new(
                Tier::Risky,
                ReasonKind::WritesFile,
                "sed -i edits files in place",
            );
        }
        if a == "-f"
            || a.starts_with("--file")
            || short && a[1..].split('e').next().unwrap_or("").contains('f')
        {
            return Verdict::new(
                Tier::Risky,
                ReasonKind::RunsProgram,
                "sed -f runs a script from a file",
            );
        }
        if let Some(script) = a.strip_prefix("--expression=") {
            scripts.push(script);
        } else if a == "-e" || a == "--expression" {
            if let Some(script) = args.get(i) {
                scripts.push(script);
                i += 1;
            }
        } else if short && a.contains('e') {
            // `-ne 'p'` or `-es/a/b/`.
            let (flags, attached) = a[1..].split_once('e').unwrap_or(("", ""));
            if !flags.chars().all(|c| SED.flags.contains(c)) {
                return unknown_option("sed", a);
            }
            if attached.is_empty() {
                if let Some(script) = args.get(i) {
                    scripts.push(script);
                    i += 1;
                }
            } else {
                scripts.push(attached);
            }
        } else {
            rest.push(a);
        }
    }
    let parsed = SED.parse(&rest);
    if let Some(option) = parsed.unknown {
        return unknown_option("sed", option);
    }
    let mut files = parsed.positionals;
    if scripts.is_empty() && !files.is_empty() {
        scripts.push(files.remove(0));
    }
    for script in &scripts {
        if let Err(why) = sed_script(script, ctx) {
            return why;
        }
    }
    let mut verdict = Verdict::new(
        Tier::ReadOnly,
        ReasonKind::Program,
        "sed: prints transformed text",
    );
    verdict.raise(secrets("sed", &files, false, ctx));
    verdict
}

/// A sed script made only of commands that print or read plain files; `Err` says why not.
fn sed_script(script: &str, ctx: &Ctx) -> Result<(), Verdict> {
    let bad = |why: &str| {
        Err(Verdict::new(
            Tier::Risky,
            ReasonKind::RunsProgram,
            format!(
                "sed: {why} (only printing commands, and s and y with plain flags, count as read-only)"
            ),
        ))
    };
    for command in script
        .split([';', '\n'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        let Some(body) = strip_sed_addresses(command) else {
            return bad("an address is not understood");
        };
        let body = body.trim();
        match body.chars().next() {
            None | Some('}') => {}
            Some(
                'p' | 'd' | '=' | 'l' | 'n' | 'N' | 'P' | 'D' | 'G' | 'g' | 'h' | 'H' | 'x' | 'z'
                | 'F',
            ) => {
                if body.len() != 1 && !body[1..].trim().bytes().all(|b| b.is_ascii_digit()) {
                    return bad("a command is not understood");
                }
            }
            Some('q' | 'Q') if body[1..].trim().bytes().all(|b| b.is_ascii_digit()) => {}
            Some(':' | 'b' | 't' | 'T') => {}
            Some('a' | 'i' | 'c') => {}
            Some('r' | 'R') => {
                let file = body[1..].trim();
                if places::secret(&paths::resolve(file, &ctx.cwd), false) {
                    return Err(Verdict::new(
                        Tier::Risky,
                        ReasonKind::Secret,
                        format!("sed: reads {file}, which may hold secrets"),
                    ));
                }
            }
            Some(c @ ('s' | 'y')) => {
                let mut chars = body[1..].chars();
                let Some(delim) = chars.next() else {
                    return bad("an s or y command is cut short");
                };
                let rest: String = chars.collect();
                let parts: Vec<&str> = rest.split(delim).collect();
                if parts.len() != 3 {
                    return bad("an s or y command is not understood");
                }
                let flags = parts[2];
                let plain = c == 'y' && flags.is_empty()
                    || c == 's'
                        && flags.chars().all(|f| {
                            matches!(f, 'g' | 'p' | 'i' | 'I' | 'm' | 'M') || f.is_ascii_digit()
                        });
                if !plain {
                    return bad("the s flags e and w run a command or write a file");
                }
            }
            Some('e') => return bad("e runs a command"),
            Some('w' | 'W') => {
                return Err(Verdict::new(
                    Tier::Risky,
                    ReasonKind::WritesFile,
                    "sed: w writes a file",
                ));
            }
            Some(_) => return bad("a command is not understood"),
        }
    }
    Ok(())
}

/// Steps over a sed command's addresses (`12`, `$`, `/re/`, ranges, `!`); `None` when an
/// address is malformed.
fn strip_sed_addresses(command: &str) -> Option<&str> {
    let mut body = command;
    loop {
        body = body.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, ',' | '$' | '!' | ' ' | '{' | '~' | '+')
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

const AWK: Spec = Spec {
    flags: "bcCMnNOPrSsVt",
    valued: "Fv",
    long: &[
        "posix",
        "traditional",
        "sandbox",
        "characters-as-bytes",
        "re-interval",
        "non-decimal-data",
        "bignum",
        "optimize",
        "no-optimize",
        "use-lc-numeric",
        "help",
        "version",
        "copyright",
    ],
    long_valued: &["field-separator", "assign"],
    digits: false,
};

pub(super) fn awk(name: &str, args: &[&str], ctx: &mut Ctx) -> Verdict {
    let mut programs = Vec::new();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        match a {
            "-f" | "--file" | "-i" | "--include" | "-l" | "--load" | "-E" | "--exec" => {
                return Verdict::new(
                    Tier::Risky,
                    ReasonKind::RunsProgram,
                    format!("{name} {a} loads a program from a file"),
                );
            }
            "-e" | "--source" => {
                if let Some(p) = args.get(i) {
                    programs.push(*p);
                    i += 1;
                }
            }
            _ => rest.push(a),
        }
    }
    let parsed = AWK.parse(&rest);
    if let Some(option) = parsed.unknown {
        return unknown_option(name, option);
    }
    let mut operands = parsed.positionals.into_iter();
    if programs.is_empty() {
        programs.extend(operands.next());
    }
    for program in &programs {
        if let Some(denied) = inline::danger(name, program, ctx) {
            return denied;
        }
        if let Some(why) = awk_program_risk(program) {
            return Verdict::new(
                Tier::Risky,
                ReasonKind::RunsProgram,
                format!("{name}: the program {why}"),
            );
        }
    }
    let files: Vec<&str> = operands.filter(|o| !o.contains('=')).collect();
    let mut verdict = Verdict::new(
        Tier::ReadOnly,
        ReasonKind::Program,
        format!("{name}: prints transformed text"),
    );
    verdict.raise(secrets(name, &files, false, ctx));
    verdict
}

fn awk_program_risk(program: &str) -> Option<&'static str> {
    for word in [
        "system", "getline", "close", "fflush", "ENVIRON", "PROCINFO", "@load", "@include", "/inet",
    ] {
        if program.contains(word) {
            return Some("may run commands, open sockets or read the environment");
        }
    }
    if program.replace("||", "").contains('|') {
        return Some("pipes into or out of a command");
    }
    // `>` after print is a redirection; elsewhere it compares.
    let statements = program.split([';', '{', '}', '\n']);
    for statement in statements {
        if let Some(at) = statement.find("print")
            && statement[at..].contains('>')
        {
            return Some("writes to a file");
        }
    }
    None
}

pub(super) fn tee(args: &[&str]) -> Verdict {
    const TEE: Spec = Spec {
        flags: "aip",
        valued: "",
        long: &[
            "append",
            "ignore-interrupts",
            "output-error",
            "help",
            "version",
        ],
        long_valued: &[],
        digits: false,
    };
    let parsed = TEE.parse(args);
    if let Some(option) = parsed.unknown {
        return unknown_option("tee", option);
    }
    match parsed
        .positionals
        .iter()
        .find(|p| !matches!(**p, "/dev/null" | "/dev/stdout" | "/dev/stderr"))
    {
        Some(file) if places::is_raw_disk(file) => Verdict::new(
            Tier::Denied,
            ReasonKind::Disk,
            format!("tee: writes raw bytes to the disk device {file}"),
        ),
        Some(file) => Verdict::new(
            Tier::Risky,
            ReasonKind::WritesFile,
            format!("tee: writes to {file}"),
        ),
        None => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Program,
            "tee: passes its input on",
        ),
    }
}

/// jq and yq: the filter may read the environment or other files; yq may edit in place.
pub(super) fn jq(name: &str, args: &[&str], ctx: &Ctx) -> Verdict {
    const JQ: Spec = Spec {
        flags: "nrjaCMSescRkeNP",
        valued: "fLIop",
        long: &[
            "tab",
            "args",
            "jsonargs",
            "seq",
            "stream",
            "stream-errors",
            "raw-input",
            "slurp",
            "null-input",
            "compact-output",
            "ascii-output",
            "sort-keys",
            "color-output",
            "monochrome-output",
            "raw-output",
            "raw-output0",
            "join-output",
            "exit-status",
            "unbuffered",
            "help",
            "version",
            "prettyPrint",
            "no-colors",
            "colors",
            "no-doc",
        ],
        long_valued: &["indent", "from-file", "output-format", "input-format"],
        digits: false,
    };
    let mut rest = Vec::new();
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-i" | "--inplace" => {
                return Verdict::new(
                    Tier::Risky,
                    ReasonKind::WritesFile,
                    format!("{name} -i edits files in place"),
                );
            }
            "--arg" | "--argjson" => i += 3,
            "--slurpfile" | "--rawfile" => {
                files.extend(args.get(i + 2).copied());
                i += 3;
            }
            a => {
                rest.push(a);
                i += 1;
            }
        }
    }
    let parsed = JQ.parse(&rest);
    if let Some(option) = parsed.unknown {
        return unknown_option(name, option);
    }
    let mut positionals = parsed.positionals.into_iter();
    let mut filter = positionals.next().unwrap_or("");
    if name == "yq" && matches!(filter, "eval" | "e" | "eval-all" | "ea") {
        filter = positionals.next().unwrap_or("");
    }
    if [
        "env",
        "$ENV",
        "load",
        "input_filename",
        "$__prog",
        "getpath",
    ]
    .iter()
    .any(|k| filter.contains(k))
    {
        return Verdict::new(
            Tier::Risky,
            ReasonKind::Secret,
            format!("{name}: the filter reads the environment or other files"),
        );
    }
    files.extend(positionals);
    files.extend(parsed.values.iter().map(|(_, value)| *value));
    let mut verdict = Verdict::new(
        Tier::ReadOnly,
        ReasonKind::Program,
        format!("{name}: reads only"),
    );
    verdict.raise(secrets(name, &files, false, ctx));
    verdict
}
