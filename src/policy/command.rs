//! One program call: the wrappers in front of it stepped over (`sudo`, `env`, `timeout`,
//! `xargs`, …), its name brought back to the plain name the rules know (`names`), its rule
//! asked, and arguments known only when the line runs held against a low tier.
//!
//! Two ways in are closed here rather than in a rule: a wrapper's options the table does not
//! know can hide the command behind them (`nice --adj 5 rm -rf /`), so when the word after the
//! wrappers is no program the classifier knows, the words after it are tried as the command
//! too; and an unknown program in front of a destructive command (`eatmydata rm -rf /`) is
//! taken for the wrapper it may be.

use super::endless;
use super::env;
use super::flow;
use super::interp::is_interpreter;
use super::lex::{SubKind, Word};
use super::names::{self, How};
use super::programs::known_program;
use super::readers::is_windows_builtin;
use super::risks::is_network;
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, basename, values};
use super::wrappers::{Wrapper, unwrap, wrapper_verdict};

/// How many words after an unknown program or a wrapper's unknown option are tried as the
/// command they may run: a wrapper's own option values and positionals are one or two words
/// (`nice --adj 5`, `proxychains4 -f conf`), and each try classifies the rest once more.
const MAX_SKIPPED_WORDS: usize = 3;

/// The verdict for a program and its arguments (wrappers stepped over).
pub(super) fn program(words: &[Word], ctx: &mut Ctx) -> Verdict {
    let (verdict, hidden) = direct(words, ctx);
    let mut verdict = verdict;
    if let Some(hidden) = hidden {
        verdict.raise(hidden_command(hidden.rest, hidden.behind_wrapper, ctx));
    }
    let (wrappers, inner) = unwrap(words);
    if wrappers.iter().any(|w| w.name == "xargs") {
        verdict.raise(flow::through_xargs(&wrappers, inner, ctx));
    }
    verdict
}

/// Words after a program no rule knows.
struct Hidden<'a> {
    rest: &'a [Word],
    behind_wrapper: bool,
}

/// The wrappers' verdicts and the program's own; when no rule knows the program, the words
/// after it.
fn direct<'a>(words: &'a [Word], ctx: &mut Ctx) -> (Verdict, Option<Hidden<'a>>) {
    let (wrappers, inner) = unwrap(words);
    let mut verdict = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    for wrapper in &wrappers {
        verdict.raise(wrapper_verdict(wrapper, inner, ctx));
    }
    let Some(first) = inner.first() else {
        let verdict = match wrappers.last().map(|w| w.name) {
            Some("env") => verdict.max(Verdict::new(
                Tier::Risky,
                ReasonKind::Secret,
                "env: prints the environment, which may hold secrets",
            )),
            Some("xargs") => verdict.max(Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Program,
                "xargs: echoes its input",
            )),
            _ => verdict.max(Verdict::new(
                Tier::ReadOnly,
                ReasonKind::Nothing,
                "runs nothing",
            )),
        };
        return (verdict, None);
    };
    // `timeout 10 tail -f log` ends: the wrapper stops it.
    let bounded = ctx.bounded;
    ctx.bounded |= wrappers.iter().any(|w| {
        w.name == "timeout"
            && w.args
                .last()
                .and_then(|d| endless::seconds(&d.value))
                .is_some_and(|s| s <= endless::ENDLESS_SECONDS)
    });
    let own = named(first, &wrappers, &inner[1..], ctx);
    ctx.bounded = bounded;
    let hidden = (own.kind == ReasonKind::UnknownProgram).then_some(Hidden {
        rest: &inner[1..],
        behind_wrapper: !wrappers.is_empty(),
    });
    verdict.raise(own);
    (verdict, hidden)
}

/// The program a word names, with its rule.
fn named(first: &Word, wrappers: &[Wrapper], args: &[Word], ctx: &mut Ctx) -> Verdict {
    let call = names::call(first, &ctx.cwd, &ctx.known.links);
    let raw = first.value.as_str();
    match call.how {
        How::Named => rules(&call.name, wrappers, args, ctx),
        How::Computed => {
            let computed = Verdict::new(
                Tier::Risky,
                ReasonKind::ComputedProgram,
                format!("the program name {raw} is computed at run time"),
            );
            if call.name == "sh" {
                computed.max(rules("sh", wrappers, args, ctx))
            } else {
                computed
            }
        }
        How::Respelled => {
            let exact = rules(basename(raw), wrappers, args, ctx);
            if exact.kind != ReasonKind::UnknownProgram {
                return exact;
            }
            let floor = if is_windows_builtin(&call.name) {
                Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "")
            } else {
                Verdict::new(
                    Tier::Risky,
                    ReasonKind::UnknownProgram,
                    format!(
                        "{raw} is {} where names ignore case or the alias is installed (Windows, macOS, Homebrew), and a program the classifier does not know elsewhere",
                        call.name
                    ),
                )
            };
            floor.max(rules(&call.name, wrappers, args, ctx))
        }
        How::Workspace => {
            ctx.facts.scripts.push(basename(raw).to_string());
            let floor = Verdict::new(
                Tier::Execute,
                ReasonKind::Program,
                format!("runs the workspace program {raw}"),
            );
            // A virtual environment's interpreter is the interpreter (`.venv/bin/python -c`).
            if is_interpreter(&call.name) {
                floor.max(rules(&call.name, wrappers, args, ctx))
            } else {
                floor
            }
        }
        How::Outside => {
            ctx.facts.scripts.push(basename(raw).to_string());
            Verdict::new(
                Tier::Risky,
                ReasonKind::RunsProgram,
                format!("runs {raw}, a program outside the system folders"),
            )
            .max(rules(&call.name, wrappers, args, ctx))
        }
    }
}

/// A program's own rule, and the arguments known only at run time.
fn rules(name: &str, wrappers: &[Wrapper], args: &[Word], ctx: &mut Ctx) -> Verdict {
    if is_network(name) {
        ctx.facts.network = true;
    }
    let known = known_program(name, args, ctx);
    let verdict = unknown_arguments(name, wrappers, args, known);
    match endless::check(name, &values(args), ctx) {
        Some(endless) => verdict.max(endless),
        None => verdict,
    }
}

/// After a word no rule knows, the words that follow may be the command it runs. Behind a
/// wrapper (whose options the table may not know) every verdict counts; behind an unknown
/// program only the Denied classes that are never a subcommand's name (`vagrant halt` stops a
/// virtual machine, `rm -rf /` is the same wherever it stands).
fn hidden_command(rest: &[Word], behind_wrapper: bool, ctx: &mut Ctx) -> Verdict {
    let mut verdict = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    for skip in 0..rest.len().min(MAX_SKIPPED_WORDS) {
        let words = &rest[skip..];
        let Some(first) = words.first() else { break };
        if first.value.starts_with('-') || first.dynamic {
            continue;
        }
        let (found, _) = direct(words, ctx);
        let counts = if behind_wrapper {
            found.kind != ReasonKind::UnknownProgram
        } else {
            found.tier == Tier::Denied && found.kind != ReasonKind::Machine
        };
        if counts {
            verdict.raise(Verdict {
                reason: format!(
                    "{} may run `{}`: {}",
                    if behind_wrapper {
                        "the wrapper"
                    } else {
                        "an unknown program"
                    },
                    words
                        .iter()
                        .map(|w| w.value.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    found.reason
                ),
                ..found
            });
        }
    }
    verdict
}

/// Programs whose arguments, whatever their value, neither run anything nor read a file.
const ANY_ARGUMENTS: &[&str] = &["echo", "true", "false", ":", "test", "["];

/// A low tier is earned with arguments the classifier has seen. One whose value is only known
/// when the line runs (`rg $OPTS x`, `sort $(cat opts) a.txt`), or arguments `xargs` adds from
/// its input, could be an option (`--pre=sh`, `-o FILE`) or a path into a secret store: the
/// segment climbs to Risky.
fn unknown_arguments(
    name: &str,
    wrappers: &[Wrapper<'_>],
    args: &[Word],
    known: Verdict,
) -> Verdict {
    if known.tier > Tier::Build || ANY_ARGUMENTS.contains(&name) {
        return known;
    }
    if wrappers.iter().any(|w| w.name == "xargs") {
        return known.max(Verdict::new(
            Tier::Risky,
            ReasonKind::UnknownOption,
            format!(
                "xargs {name}: adds arguments from its input, which could be options or paths the classifier cannot check"
            ),
        ));
    }
    // A process substitution alone is a `/dev/fd/N` path, never an option.
    let unknown = |a: &&Word| {
        a.dynamic
            && !(a.subs.len() == 1
                && matches!(a.subs[0].kind, SubKind::ProcessIn | SubKind::ProcessOut)
                && a.value.starts_with(['<', '>'])
                && a.value.ends_with(')'))
    };
    match args.iter().find(unknown) {
        Some(arg) => known.max(Verdict::new(
            Tier::Risky,
            ReasonKind::UnknownOption,
            format!(
                "{name} {}: an argument known only when the line runs could be an option or a path the classifier cannot check",
                arg.value
            ),
        )),
        None => known,
    }
}

/// Whether a word assigns a guard variable through `${NAME:=value}` or `${NAME=value}`.
pub(super) fn default_assignments(word: &Word) -> Vec<Verdict> {
    let mut found = Vec::new();
    let mut rest = word.value.as_str();
    while let Some(at) = rest.find("${") {
        rest = &rest[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(end);
        if !name.is_empty() && (after.starts_with(":=") || after.starts_with('=')) {
            found.push(env::set_variable(name, false));
        }
    }
    found
}
