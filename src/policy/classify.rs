//! The risk-tier classifier: a command line in, a tier and a reason for every segment out.
//!
//! Segments are the simple commands the shell reader finds, including those inside `$(…)`,
//! backticks, `<(…)`, `sh -c '…'`, `eval`, heredocs and wrappers (`env`, `sudo`, `timeout`,
//! `xargs`, `find -exec`, …). A line's tier is the highest of its segments. The classifier fails
//! closed: a program or option it does not know, a program name computed at run time, or
//! syntax the reader did not understand is Risky. This file holds what is about the line and
//! the command around a program: environment prefixes, redirections, substitutions, wrappers,
//! `cd`, protected paths, and what the whole line does (network into code).

use super::command::{default_assignments, program};
use super::endless;
use super::env;
use super::flow;
use super::inline;
use super::interp::{SHELLS, is_interpreter, reads_code_from_stdin};
use super::lex::{self, SimpleCommand, SubKind, Word};
use super::names;
use super::outputs::{self, word_value};
use super::paths::{self, Place, Root};
use super::places;
use super::places::Protected;
use super::risks::{is_fork_bomb, is_network};
pub use super::vocab::Classification;
use super::vocab::{
    Ctx, Facts, Input, Known, MAX_DEPTH, ReasonKind, Segment, Tier, Verdict, basename, values,
};
use super::wrappers::unwrap;

/// Longer lines are refused unread: no model needs 64 KiB on one command line (file contents
/// go through the file commands), and a cap keeps classification time bounded.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Classifies a command line.
pub fn classify(line: &str) -> Classification {
    let mut segments = Vec::new();
    if line.len() > MAX_LINE_BYTES {
        let text: String = line.chars().take(80).collect();
        segments.push(Verdict::new(
            Tier::Denied,
            ReasonKind::Syntax,
            format!("the line is {} bytes, more than the {MAX_LINE_BYTES} the classifier reads; write long content with the file commands", line.len()),
        ).segment(&format!("{text}…")));
    } else {
        let facts = classify_into(
            line,
            0,
            &Place::workspace(),
            &Known::default(),
            &mut segments,
        );
        if facts.code_from_input && facts.network {
            segments.push(Verdict::new(
                Tier::Denied,
                ReasonKind::RemoteCode,
                "fetches from the network and feeds a shell or interpreter that reads code from its input",
            ).segment(line));
        }
        if let Some(file) = facts
            .scripts
            .iter()
            .find(|s| facts.downloads.iter().any(|d| d == *s || d == "*"))
        {
            segments.push(
                Verdict::new(
                    Tier::Denied,
                    ReasonKind::RemoteCode,
                    format!("runs {file}, which a download on the same line writes"),
                )
                .segment(line),
            );
        }
    }
    if segments.is_empty() {
        segments.push(
            Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "nothing to run").segment(line),
        );
    }
    let tier = segments.iter().map(|s| s.tier).max().unwrap_or(Tier::Risky);
    Classification { tier, segments }
}

fn classify_into(
    source: &str,
    depth: usize,
    cwd: &Place,
    known: &Known,
    out: &mut Vec<Segment>,
) -> Facts {
    let mut facts = Facts::default();
    if depth > MAX_DEPTH {
        out.push(
            Verdict::new(
                Tier::Risky,
                ReasonKind::Syntax,
                "nested too deeply to analyse",
            )
            .segment(source),
        );
        return facts;
    }
    if is_fork_bomb(source) {
        out.push(Verdict::new(Tier::Denied, ReasonKind::ForkBomb, "a fork bomb").segment(source));
        return facts;
    }
    let line = lex::read(source);
    for problem in &line.problems {
        out.push(
            Verdict::new(
                Tier::Risky,
                ReasonKind::Syntax,
                format!("not understood: {problem}"),
            )
            .segment(source),
        );
    }
    let mut cwd = cwd.clone();
    let mut known = known.clone();
    // The last pipeline stage: its pipeline, place and what it prints.
    let mut piped: Option<(usize, usize, Option<Input>)> = None;
    for (at, command) in line.commands.iter().enumerate() {
        // `head` ends the stream it reads when it has its lines.
        let bounded = line.commands.get(at + 1).is_some_and(|next| {
            next.pipeline == command.pipeline
                && next.stage == command.stage + 1
                && unwrap(&next.words).1.first().map(names::name_of).as_deref() == Some("head")
        });
        let previous = piped
            .as_ref()
            .filter(|(p, s, _)| *p == command.pipeline && s + 1 == command.stage)
            .and_then(|(_, _, o)| o.as_ref());
        let input = flow::input_of(command, previous, &known);
        // A prefix assignment is in the environment of what the command runs (`d=/ sh -c …`).
        let mut scope = known.clone();
        for (name, word) in &command.assignments {
            scope.set(name, word_value(word, &known));
        }
        let mut ctx = Ctx {
            depth,
            cwd: cwd.clone(),
            known: scope,
            input: input.clone(),
            bounded,
            out,
            facts: Facts::default(),
            nest: classify_into,
            run: program,
        };
        let verdict = command_verdict(command, &mut ctx);
        facts.absorb(ctx.facts);
        let printed = outputs::output(command, input.as_ref(), &known);
        piped = Some((command.pipeline, command.stage, printed));
        if let Some(next) = moves_to(command, &cwd, &known) {
            cwd = next;
        }
        flow::learn(command, &mut known, &cwd);
        out.push(verdict.segment(&command.text));
    }
    facts
}

/// Where `cd`/`pushd` leaves the shell.
fn moves_to(command: &SimpleCommand, cwd: &Place, known: &Known) -> Option<Place> {
    let (_, inner) = unwrap(&command.words);
    let first = inner.first()?;
    if !matches!(
        first.value.as_str(),
        "cd" | "pushd" | "chdir" | "Set-Location" | "sl"
    ) {
        return None;
    }
    let target = inner[1..]
        .iter()
        .find(|w| !w.value.starts_with('-') || w.value == "-");
    Some(match target {
        None => paths::resolve("~", cwd),
        Some(w) if w.value == "-" => Place {
            root: Root::Unknown,
            up: 0,
            parts: Vec::new(),
        },
        Some(w) => paths::resolve(
            &word_value(w, known).unwrap_or_else(|| w.value.clone()),
            cwd,
        ),
    })
}

/// The program each segment runs (wrappers stepped over), for checks that name programs.
pub fn programs(classification: &Classification) -> Vec<String> {
    let mut out = Vec::new();
    for segment in &classification.segments {
        for command in lex::read(&segment.text).commands {
            let (_, inner) = unwrap(&command.words);
            if let Some(first) = inner.first() {
                out.push(names::name_of(first));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The verdict for one simple command; nested segments (substitutions) are added to `out`.
fn command_verdict(command: &SimpleCommand, ctx: &mut Ctx) -> Verdict {
    // The program's own verdict comes first, so on a tie its reason is the one shown.
    let mut verdict = if command.words.is_empty() {
        Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Nothing,
            "sets shell variables only",
        )
    } else {
        program(&command.words, ctx)
    };
    // Wrappers and programs that run a shell on their input (`sudo -s`, `su`) say so.
    let program_reads_code = ctx.facts.code_from_input;
    let for_command = !command.words.is_empty();
    for (name, _) in &command.assignments {
        verdict.raise(env::set_variable(name, for_command));
    }
    let (_, inner) = unwrap(&command.words);
    let inner_name = inner.first().map(names::name_of).unwrap_or_default();
    let inner_name = inner_name.as_str();
    if inner_name == "git"
        && verdict.tier > Tier::ReadOnly
        && command.assignments.iter().any(|(n, _)| {
            matches!(
                n.as_str(),
                "GIT_DIR"
                    | "GIT_WORK_TREE"
                    | "GIT_INDEX_FILE"
                    | "GIT_OBJECT_DIRECTORY"
                    | "GIT_COMMON_DIR"
            )
        })
    {
        verdict.raise(Verdict::new(
            Tier::Denied,
            ReasonKind::Protected,
            "git with GIT_DIR or GIT_WORK_TREE set may write another .git",
        ));
    }
    let interpreter = is_interpreter(inner_name);
    let words = command
        .words
        .iter()
        .chain(command.assignments.iter().map(|(_, w)| w))
        .chain(command.redirects.iter().map(|r| &r.target));
    for word in words {
        for assigned in default_assignments(word) {
            verdict.raise(assigned);
        }
        if word.dynamic
            && let Some(name) = env::secret_expansion(&word.value)
        {
            verdict.raise(Verdict::new(
                Tier::Risky,
                ReasonKind::Secret,
                format!("expands ${name}, a variable whose name says it holds a secret"),
            ));
        }
        for sub in &word.subs {
            let had_network = std::mem::take(&mut ctx.facts.network);
            ctx.nested(&sub.source, "substitution");
            let from_network = ctx.facts.network;
            ctx.facts.network |= had_network;
            if from_network
                && (interpreter
                    || sub.kind == SubKind::ProcessIn && command.words.first() == Some(word))
            {
                verdict.raise(Verdict::new(
                    Tier::Denied,
                    ReasonKind::RemoteCode,
                    "runs code fetched from the network",
                ));
            }
            if sub.kind == SubKind::ProcessOut {
                verdict.raise(Verdict::new(
                    Tier::Risky,
                    ReasonKind::WritesFile,
                    "writes through a process substitution",
                ));
            }
        }
    }
    for sub in &command.heredoc_subs {
        let had_network = std::mem::take(&mut ctx.facts.network);
        ctx.nested(&sub.source, "heredoc substitution");
        if ctx.facts.network && interpreter {
            verdict.raise(Verdict::new(
                Tier::Denied,
                ReasonKind::RemoteCode,
                "feeds code fetched from the network to an interpreter",
            ));
        }
        ctx.facts.network |= had_network;
    }
    let stdin_redirected = command
        .redirects
        .iter()
        .any(|r| matches!(r.op, "<" | "<<" | "<<<" | "<>"));
    let inner_args = values(inner.get(1..).unwrap_or(&[]));
    // Wherever it sits (a pipe, a group, a fifo), a shell reading code from its input is fed
    // by something on the line.
    let reads_code = program_reads_code
        || reads_code_from_stdin(inner_name, &inner_args)
        || stdin_redirected && interpreter;
    ctx.facts.code_from_input |= reads_code;
    // …and when what feeds it is known, that is the script it runs.
    if reads_code && let Some(Input::Text(script)) = ctx.input.clone() {
        if SHELLS.contains(&inner_name) || !interpreter {
            verdict.raise(ctx.nested(&script, "the script it reads from its input"));
        } else {
            verdict.raise(inline::code(inner_name, &script, ctx));
        }
    }
    for redirect in &command.redirects {
        verdict.raise(redirect_verdict(redirect.op, &redirect.target, &ctx.cwd));
        if matches!(redirect.op, "<" | "<>")
            && let Some(endless) =
                endless::input(inner_name, &inner_args, &redirect.target.value, ctx)
        {
            verdict.raise(endless);
        }
        if is_network(inner_name) && matches!(redirect.op, ">" | ">>" | ">|" | "&>") {
            ctx.facts
                .downloads
                .push(basename(&redirect.target.value).to_string());
        }
    }
    let named = command
        .words
        .iter()
        .skip(1)
        .chain(command.redirects.iter().map(|r| &r.target))
        .chain(command.assignments.iter().map(|(_, w)| w));
    for word in named {
        for candidate in paths::candidates(&word.value) {
            // A read of a secret store is Risky, and still only a read.
            let may_write = verdict.tier > Tier::ReadOnly && verdict.kind != ReasonKind::Secret;
            if let Some(why) = protected(candidate, &ctx.cwd, may_write) {
                verdict.raise(why);
            }
        }
    }
    if let Some(text) = flow::rewrite(command, &ctx.known) {
        verdict.raise(ctx.nested(
            &text,
            "as it runs, with the values the line gives its variables and substitutions",
        ));
    }
    verdict
}

/// Paths the model's commands may not touch: keyless's own state (`.agent`, not even to read),
/// and, from a command that may write, keyless's configuration and git's own store.
fn protected(path: &str, cwd: &Place, may_write: bool) -> Option<Verdict> {
    // Every protected name but `/etc/gitconfig` and `/proc/sysrq-trigger` has a dot; without
    // one (or a glob, or a variable) a path from the workspace root cannot reach them.
    if cwd.root == Root::Workspace
        && cwd.parts.is_empty()
        && !path.contains(['.', '*', '?', '[', '$'])
        && !path.contains("gitconfig")
        && !path.contains("sysrq")
    {
        return None;
    }
    let place = paths::resolve(path, cwd);
    if may_write && places::is_sysrq(&place) {
        return Some(Verdict::new(
            Tier::Denied,
            ReasonKind::Machine,
            format!("may write {path}, which reboots, powers off or crashes the machine"),
        ));
    }
    let why = match places::protected(&place)? {
        Protected::Agent => format!(
            "names {path}, keyless's own state (session, backups, transcript), which the model may not read or change"
        ),
        _ if !may_write => return None,
        Protected::Settings => format!(
            "may change {path}, keyless's own configuration (mode, allow and deny lists), which only the user edits"
        ),
        Protected::Git => format!(
            "may change {path} inside .git, git's own store (its hooks and config make git run programs); use git commands or @@commit"
        ),
        Protected::GlobalGitConfig => {
            return Some(Verdict::new(
                Tier::Denied,
                ReasonKind::GitConfig,
                format!("may change {path}, git's configuration for every repository"),
            ));
        }
    };
    Some(Verdict::new(Tier::Denied, ReasonKind::Protected, why))
}

fn redirect_verdict(op: &str, target: &Word, cwd: &Place) -> Verdict {
    let path = target.value.as_str();
    let place = paths::resolve(path, cwd);
    // `/dev/$kind/host/port`: a computed name in `/dev` is only ever the socket trick.
    let computed_device = target.dynamic
        && place.root == Root::Slash
        && matches!(place.parts.as_slice(), [dev, kind, _, ..] if dev == "dev" && kind.contains('$'));
    if places::is_socket(&place) || computed_device {
        return Verdict::new(
            Tier::Denied,
            ReasonKind::ReverseShell,
            format!("opens a network socket through {path} (a remote shell's wiring)"),
        );
    }
    match op {
        ">&" | "<&" if path.bytes().all(|b| b.is_ascii_digit()) || path == "-" => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Nothing,
            "duplicates a descriptor",
        ),
        "<" | "<<<" | "<<" => {
            if places::secret(&place, false) {
                Verdict::new(
                    Tier::Risky,
                    ReasonKind::Secret,
                    format!("reads {path}, which may hold secrets"),
                )
            } else {
                Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "reads input")
            }
        }
        _ if target.dynamic => Verdict::new(
            Tier::Risky,
            ReasonKind::Redirect,
            format!("redirects output to a computed path {path}"),
        ),
        _ if matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr") => Verdict::new(
            Tier::ReadOnly,
            ReasonKind::Nothing,
            "discards or passes output",
        ),
        _ if places::is_sysrq(&place) => Verdict::new(
            Tier::Denied,
            ReasonKind::Machine,
            format!("writes to {path}, which reboots, powers off or crashes the machine"),
        ),
        _ if places::is_raw_disk(path) => Verdict::new(
            Tier::Denied,
            ReasonKind::Disk,
            format!("writes raw bytes to the disk device {path}"),
        ),
        _ => Verdict::new(
            Tier::Risky,
            ReasonKind::Redirect,
            format!("writes to the file {path}"),
        ),
    }
}
