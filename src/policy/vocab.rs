//! The classifier's shared vocabulary: tiers, reason kinds, verdicts, segments, and the context
//! every per-program rule receives. The rule files (`programs`, `readers`, `text`, `files`,
//! `git`, `tools`, `interp`) import this file and the leaf helpers (`paths`, `env`, `risks`,
//! `options`), never each other or `classify`: where a rule needs the classifier again (the
//! script of `sh -c`, the command after `find -exec`), it goes through `Ctx`, whose function
//! pointers `classify` fills in.

use serde::Serialize;

use super::lex::Word;
use super::paths::Place;

/// The specification's risk tiers, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Tier {
    ReadOnly,
    Build,
    Execute,
    Risky,
    Denied,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::ReadOnly => "ReadOnly",
            Tier::Build => "Build",
            Tier::Execute => "Execute",
            Tier::Risky => "Risky",
            Tier::Denied => "Denied",
        }
    }
}

/// Which rule decided a segment. Decisions are made on this, never on the human text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReasonKind {
    /// Nothing runs (an empty line, a safe assignment).
    Nothing,
    /// The program's own rule, with arguments it knows (reads, builds, runs project code).
    Program,
    /// A program the classifier does not know.
    UnknownProgram,
    /// A known program with an option or argument shape the classifier does not know.
    UnknownOption,
    /// The program's name is computed at run time.
    ComputedProgram,
    /// Syntax the reader did not understand, nesting too deep, a line too long.
    Syntax,
    /// Output redirected into a file.
    Redirect,
    /// An option or argument names a file the program writes.
    WritesFile,
    /// Deletes, moves or changes files.
    ChangesFiles,
    /// An option, argument or environment makes the program run another program.
    RunsProgram,
    /// Inline interpreter code, or a shell or interpreter reading its program from input.
    InlineCode,
    /// An environment variable programs read as code, commands or configuration.
    Environment,
    /// A shell builtin that rebinds names or changes how the shell runs.
    Rebinding,
    /// Reads a secret store or prints the environment.
    Secret,
    /// Talks to the network.
    Network,
    /// Installs, removes or publishes packages.
    Packages,
    /// Changes a repository or talks to a remote.
    GitWrite,
    /// Runs with elevated privileges.
    Privilege,
    /// Changes the machine: processes, services, mounts, users.
    System,
    /// Never ends on its own, or streams without end: it runs until the timeout stops it.
    Endless,
    /// Unsets or overrides a variable keyless sets to keep commands non-interactive and safe.
    GuardVariable,
    /// Deletes `/`, a home, a drive root, a system folder or everything in one.
    Catastrophic,
    /// Touches `.agent`, or writes `.git` or `keyless.json`.
    Protected,
    /// A shell wired to a socket.
    ReverseShell,
    /// Code fetched from the network reaches a shell or interpreter.
    RemoteCode,
    /// A force push or a remote deletion.
    ForcePush,
    /// Git configuration that names a program, or that changes every repository.
    GitConfig,
    /// Formats, partitions or writes raw disks.
    Disk,
    /// Stops or restarts the machine.
    Machine,
    /// A fork bomb.
    ForkBomb,
    /// Matches `Commands.DenyList`.
    DenyList,
    /// The repository's own git configuration names a program (decided by the batch).
    GitHazard,
}

impl ReasonKind {
    /// How specific a reason is. Between verdicts of equal tier the more specific reason is
    /// kept: a named rule (4) beats an option the classifier does not know (3), which beats an
    /// unknown program (2), which beats a program's ordinary description (1), which beats
    /// nothing at all (0).
    pub fn specificity(self) -> u8 {
        match self {
            ReasonKind::Nothing => 0,
            ReasonKind::Program => 1,
            ReasonKind::UnknownProgram => 2,
            ReasonKind::UnknownOption | ReasonKind::ComputedProgram | ReasonKind::Syntax => 3,
            _ => 4,
        }
    }
}

/// One segment's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub text: String,
    pub tier: Tier,
    pub reason: String,
    pub kind: ReasonKind,
}

/// A command line's verdict: the highest tier over its segments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Classification {
    pub tier: Tier,
    pub segments: Vec<Segment>,
}

/// A rule's verdict before it becomes a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Verdict {
    pub tier: Tier,
    pub kind: ReasonKind,
    pub reason: String,
}

impl Verdict {
    pub(super) fn new(tier: Tier, kind: ReasonKind, reason: impl Into<String>) -> Verdict {
        Verdict {
            tier,
            kind,
            reason: reason.into(),
        }
    }

    /// The higher verdict; on a tie the more specific reason, then the first.
    pub fn max(self, other: Verdict) -> Verdict {
        let rank = |x: &Verdict| (x.tier, x.kind.specificity(), !x.reason.is_empty());
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
    }

    /// Raises `self` to at least `other` (see `max`).
    pub fn raise(&mut self, other: Verdict) {
        let current =
            std::mem::replace(self, Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, ""));
        *self = current.max(other);
    }

    pub fn segment(&self, text: &str) -> Segment {
        Segment {
            text: text.trim().to_string(),
            tier: self.tier,
            reason: self.reason.clone(),
            kind: self.kind,
        }
    }
}

/// What classifying a piece of a line found that matters to the line as a whole.
#[derive(Clone, Debug, Default)]
pub(super) struct Facts {
    /// A program that talks to the network runs somewhere on the line.
    pub network: bool,
    /// Files a download writes (base names; `*` when the name cannot be known).
    pub downloads: Vec<String>,
    /// Script files the line runs (base names).
    pub scripts: Vec<String>,
    /// A shell or interpreter reads its code from its input (a pipe, a redirection, xargs).
    pub code_from_input: bool,
}

impl Facts {
    pub fn absorb(&mut self, other: Facts) {
        self.network |= other.network;
        self.code_from_input |= other.code_from_input;
        self.downloads.extend(other.downloads);
        self.scripts.extend(other.scripts);
    }
}

/// How deep `sh -c`, `eval`, substitutions and `find -exec` may nest before a line is simply
/// Risky.
pub(super) const MAX_DEPTH: usize = 6;

/// What earlier commands on the line made known to the ones after them (`flow` fills it in).
#[derive(Clone, Debug, Default)]
pub(super) struct Known {
    /// Shell variables set to a value known before the line runs (`d=/`, `h=$(git rev-parse
    /// --git-dir)/hooks`); the last one set counts.
    pub vars: Vec<(String, String)>,
    /// Paths the line linked or copied a system program to, with that program's name
    /// (`ln -s /bin/rm x`).
    pub links: Vec<(Place, String)>,
}

impl Known {
    /// The value the line last gave a variable, if it is known.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Records a variable's value, or that it is no longer known.
    pub fn set(&mut self, name: &str, value: Option<String>) {
        self.vars.retain(|(n, _)| n != name);
        if let Some(value) = value {
            self.vars.push((name.to_string(), value));
        }
    }
}

/// What reaches a command's standard input, when the line says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Input {
    /// Text known before the line runs: a here-string, a literal heredoc, or what an `echo`,
    /// `printf` or `base64 -d` of literals before it in the pipeline prints.
    Text(String),
    /// Paths a listing before it in the pipeline prints (`ls DIR`, `find DIR`): the folders it
    /// was given and everything in them.
    Paths(Vec<String>),
}

/// Classifies a nested command line at a depth, working directory and what is known.
pub(super) type NestFn = fn(&str, usize, &Place, &Known, &mut Vec<Segment>) -> Facts;
/// Classifies a program with its arguments (wrappers, resolution, rules).
pub(super) type ProgramFn = fn(&[Word], &mut Ctx<'_>) -> Verdict;

/// What every rule receives: where the shell is, where nested segments go, and the way back
/// into the classifier.
pub(super) struct Ctx<'a> {
    pub depth: usize,
    /// Where earlier `cd`s on the line left the shell.
    pub cwd: Place,
    /// Variables and links earlier commands on the line set.
    pub known: Known,
    /// What the command reads on its standard input, when that is known.
    pub input: Option<Input>,
    /// The command is stopped from outside in bounded time (`timeout 10`, a `head` reading its
    /// output), so a program that would never end on its own still ends.
    pub bounded: bool,
    pub out: &'a mut Vec<Segment>,
    pub facts: Facts,
    pub nest: NestFn,
    pub run: ProgramFn,
}

impl Ctx<'_> {
    /// Classifies `source` as a command line of its own (the script of `sh -c`, `eval`'s
    /// text); its segments are listed, and the verdict is theirs.
    pub fn nested(&mut self, source: &str, via: &str) -> Verdict {
        let before = self.out.len();
        let facts = (self.nest)(source, self.depth + 1, &self.cwd, &self.known, self.out);
        self.facts.absorb(facts);
        let tier = self.out[before..]
            .iter()
            .map(|s| s.tier)
            .max()
            .unwrap_or(Tier::ReadOnly);
        Verdict::new(
            tier,
            ReasonKind::Program,
            format!("{via}: runs the commands listed below it"),
        )
    }

    /// Classifies a program and its arguments found inside another command's arguments
    /// (`find -exec`, `fd -x`).
    pub fn program(&mut self, words: &[Word]) -> Verdict {
        if self.depth >= MAX_DEPTH {
            return Verdict::new(
                Tier::Risky,
                ReasonKind::Syntax,
                "nested too deeply to analyse",
            );
        }
        let mut inner = Ctx {
            depth: self.depth + 1,
            cwd: self.cwd.clone(),
            known: self.known.clone(),
            input: None,
            bounded: self.bounded,
            out: self.out,
            facts: Facts::default(),
            nest: self.nest,
            run: self.run,
        };
        let verdict = (self.run)(words, &mut inner);
        let facts = inner.facts;
        self.facts.absorb(facts);
        verdict
    }
}

pub(super) fn values(words: &[Word]) -> Vec<&str> {
    words.iter().map(|w| w.value.as_str()).collect()
}

pub(super) fn has(args: &[&str], flags: &[&str]) -> bool {
    args.iter().any(|a| flags.contains(a))
}

/// Whether an argument is the long option `--name` or an abbreviation of it (`--rec` for
/// `--recursive`: GNU getopt and git's parse-options accept any unambiguous prefix), with or
/// without `=value`. A prefix that is ambiguous makes the program refuse the line, so
/// counting it too costs nothing.
pub(super) fn long_is(arg: &str, name: &str) -> bool {
    arg.strip_prefix("--")
        .map(|a| a.split('=').next().unwrap_or(a))
        .is_some_and(|a| !a.is_empty() && name.starts_with(a))
}

/// Whether any argument is `--name` or an abbreviation of it.
pub(super) fn has_long(args: &[&str], name: &str) -> bool {
    args.iter().any(|a| long_is(a, name))
}

/// Short flags bundled in one argument: `-rf` has `r` and `f`.
pub(super) fn short_flag(args: &[&str], flag: char) -> bool {
    args.iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(flag))
}

pub(super) fn first_positional<'a>(args: &[&'a str]) -> Option<&'a str> {
    args.iter().copied().find(|a| !a.starts_with('-'))
}

pub(super) fn version_probe(args: &[&str]) -> bool {
    matches!(
        args,
        ["--version"]
            | ["-V"]
            | ["-v"]
            | ["version"]
            | ["-version"]
            | ["--help"]
            | ["-h"]
            | ["help"]
            | ["-vV"]
            | ["--info"]
    )
}

pub(super) fn basename(program: &str) -> &str {
    program.rsplit(['/', '\\']).next().unwrap_or(program)
}
