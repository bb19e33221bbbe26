//! find: its predicates are known one by one; `-exec`, `-execdir`, `-ok` run the command that
//! follows (classified as a segment of its own), `-delete` deletes (Denied from a catastrophic
//! root), `-fprint*` write files, and any other predicate is unknown.

use super::lex::Word;
use super::paths;
use super::places;
use super::readers::{secrets, unknown_option};
use super::vocab::{Ctx, ReasonKind, Tier, Verdict, values};

const FIND_VALUED: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-regextype",
    "-type",
    "-xtype",
    "-size",
    "-newer",
    "-anewer",
    "-cnewer",
    "-mtime",
    "-atime",
    "-ctime",
    "-mmin",
    "-amin",
    "-cmin",
    "-used",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-perm",
    "-links",
    "-inum",
    "-samefile",
    "-fstype",
    "-lname",
    "-ilname",
    "-context",
    "-maxdepth",
    "-mindepth",
    "-printf",
];
const FIND_FLAGS: &[&str] = &[
    "-empty",
    "-nouser",
    "-nogroup",
    "-readable",
    "-writable",
    "-executable",
    "-true",
    "-false",
    "-depth",
    "-d",
    "-mount",
    "-xdev",
    "-noleaf",
    "-follow",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-daystart",
    "-warn",
    "-nowarn",
    "-help",
    "--help",
    "-version",
    "--version",
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
    "!",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    "(",
    ")",
    ",",
    "-H",
    "-L",
    "-P",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
];

pub(super) fn find(words: &[Word], ctx: &mut Ctx) -> Verdict {
    let mut verdict = Verdict::new(Tier::ReadOnly, ReasonKind::Program, "find: lists files");
    let args = values(words);
    let roots: Vec<&str> = args
        .iter()
        .copied()
        .take_while(|a| !a.starts_with('-') && !matches!(*a, "!" | "(" | ")"))
        .collect();
    let catastrophic_root = roots
        .iter()
        .find(|r| places::catastrophic(&paths::resolve(r, &ctx.cwd)))
        .copied();
    let mut runs = false;
    let mut i = roots.len();
    while i < words.len() {
        let a = args[i];
        match a {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                runs = true;
                let end = args[i + 1..]
                    .iter()
                    .position(|w| *w == ";" || *w == "+")
                    .map_or(words.len(), |p| i + 1 + p);
                let inner = &words[i + 1..end];
                if inner.is_empty() {
                    verdict.raise(Verdict::new(
                        Tier::Risky,
                        ReasonKind::Syntax,
                        "find -exec without a command",
                    ));
                } else {
                    let inner_verdict = ctx.program(inner);
                    let text = values(inner).join(" ");
                    let mut shown = inner_verdict.clone();
                    if let Some(root) = catastrophic_root
                        && inner_verdict.kind == ReasonKind::ChangesFiles
                    {
                        shown = Verdict::new(
                            Tier::Denied,
                            ReasonKind::Catastrophic,
                            format!("find {root} -exec: deletes or changes everything in {root}"),
                        );
                    }
                    shown.reason = format!("run by find -exec: {}", shown.reason);
                    ctx.out.push(shown.segment(&text));
                    verdict.raise(Verdict {
                        reason: "find -exec: runs the command listed below it".to_string(),
                        ..shown
                    });
                }
                i = end + 1;
            }
            "-delete" => {
                verdict.raise(match catastrophic_root {
                    Some(root) => Verdict::new(
                        Tier::Denied,
                        ReasonKind::Catastrophic,
                        format!("find {root} -delete: deletes everything in {root}"),
                    ),
                    None => Verdict::new(
                        Tier::Risky,
                        ReasonKind::ChangesFiles,
                        "find -delete removes files",
                    ),
                });
                i += 1;
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                verdict.raise(Verdict::new(
                    Tier::Risky,
                    ReasonKind::WritesFile,
                    format!("find {a}: writes to a file"),
                ));
                i += 2 + usize::from(a == "-fprintf");
            }
            _ if FIND_VALUED.contains(&a)
                || a.starts_with("-newer") && a.len() == 8
                || a == "-D" =>
            {
                i += 2
            }
            _ if FIND_FLAGS.contains(&a) => i += 1,
            _ => {
                verdict.raise(unknown_option("find", a));
                i += 1;
            }
        }
    }
    if runs {
        verdict.raise(secrets("find", &roots, true, ctx));
    }
    verdict
}
