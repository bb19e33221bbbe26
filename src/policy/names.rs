//! Program names as the system finds them. The rules know a program by its plain name; this
//! file brings every other spelling of it back to that name before any rule is asked:
//! a path through the system folders however it is written (`/bin/../bin/rm`, `//usr/bin/rm`,
//! `/usr/bin/./rm`, `/proc/self/root/bin/rm`, Debian's `/usr/bin/X11/rm`,
//! `C:\Windows\System32\shutdown.exe`), Windows' `.exe` and `.com` suffixes, other letters
//! (`FORMAT`, `Shutdown`: Windows and macOS find a program whatever its case), GNU tools under
//! their Homebrew names (`grm`, `gshred`), the variables and files that name the shell
//! (`$SHELL`, `/proc/self/exe`), and links the line itself made to a system program
//! (`ln -s /bin/rm x && ./x -rf /`).
//!
//! It never looks at the file system: a name is judged by what it can be.

use std::borrow::Cow;

use super::lex::Word;
use super::paths::{self, Place, Root};

/// How a command names its program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum How {
    /// A bare name (found on `PATH`) or a path into the system folders: the program is `name`.
    Named,
    /// The same in another spelling (`FORMAT`, `git.exe`, `grm`): `name` where case is ignored
    /// or the alias is installed, a program the classifier does not know elsewhere.
    Respelled,
    /// A path into the workspace: project code, whose file name says little.
    Workspace,
    /// A path elsewhere: a program of unknown origin that may be what its name says.
    Outside,
    /// Computed when the line runs; `name` is `sh` when the variable names the shell.
    Computed,
}

/// A command's program as the rules know it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Call {
    pub name: String,
    pub how: How,
}

/// Folders whose programs keep their plain names (`/usr/bin/cat` is `cat`).
const SYSTEM_DIRS: &[&[&str]] = &[
    &["bin"],
    &["sbin"],
    &["usr", "bin"],
    &["usr", "sbin"],
    &["usr", "local", "bin"],
    &["usr", "local", "sbin"],
];

/// Windows' system folders on a drive (`C:\Windows\System32\cmd.exe` is `cmd`).
const WINDOWS_DIRS: &[&[&str]] = &[
    &["Windows"],
    &["Windows", "System32"],
    &["Windows", "SysWOW64"],
    &["Windows", "System32", "WindowsPowerShell", "v1.0"],
];

/// Variables whose value is the running shell.
const SHELL_VARIABLES: &[&str] = &["$SHELL", "${SHELL}", "$BASH", "${BASH}", "$0", "${0}"];

/// GNU tools Homebrew installs with a `g` in front (`grm` is GNU `rm`).
fn gnu_prefixed(name: &str) -> bool {
    matches!(
        name,
        "rm" | "rmdir"
            | "shred"
            | "unlink"
            | "mv"
            | "cp"
            | "ln"
            | "chmod"
            | "chown"
            | "chgrp"
            | "dd"
            | "touch"
            | "truncate"
            | "install"
            | "mkdir"
            | "cat"
            | "ls"
            | "head"
            | "tail"
            | "sort"
            | "uniq"
            | "wc"
            | "cut"
            | "tr"
            | "date"
            | "stat"
            | "readlink"
            | "realpath"
            | "basename"
            | "dirname"
            | "seq"
            | "sleep"
            | "tee"
            | "env"
            | "nice"
            | "nohup"
            | "timeout"
            | "stdbuf"
            | "xargs"
            | "find"
            | "grep"
            | "tar"
            | "split"
            | "sha256sum"
            | "md5sum"
            | "base64"
            | "od"
            | "yes"
            | "printf"
            | "echo"
            | "test"
            | "kill"
    )
}

/// The program a word names, as seen from `cwd`. `links` are paths the line linked or copied
/// a system program to, with that program's name.
pub(super) fn call(word: &Word, cwd: &Place, links: &[(Place, String)]) -> Call {
    let raw = word.value.as_str();
    if word.dynamic {
        let name = if SHELL_VARIABLES.contains(&raw) {
            "sh"
        } else {
            raw
        };
        return Call {
            name: name.to_string(),
            how: How::Computed,
        };
    }
    if !raw.contains(['/', '\\']) {
        let (name, respelled) = plain(raw);
        return Call {
            name: name.into_owned(),
            how: if respelled {
                How::Respelled
            } else {
                How::Named
            },
        };
    }
    let place = paths::resolve(raw, cwd);
    if let Some((_, name)) = links.iter().find(|(p, _)| *p == place) {
        return Call {
            name: name.clone(),
            how: How::Named,
        };
    }
    let Some((base, dir)) = place.parts.split_last() else {
        return Call {
            name: raw.to_string(),
            how: if place.outside() {
                How::Outside
            } else {
                How::Workspace
            },
        };
    };
    if is_shell_binary(&place) {
        return Call {
            name: "sh".to_string(),
            how: How::Outside,
        };
    }
    let (name, respelled) = plain(base);
    let system = match place.root {
        Root::Slash => SYSTEM_DIRS.iter().any(|d| same_dir(d, dir, false)),
        Root::Drive => WINDOWS_DIRS.iter().any(|d| same_dir(d, dir, true)),
        _ => false,
    };
    let how = match (system, respelled) {
        (true, false) => How::Named,
        (true, true) => How::Respelled,
        _ if place.outside() => How::Outside,
        _ => How::Workspace,
    };
    Call {
        name: name.into_owned(),
        how,
    }
}

/// The plain name of a program (`Shutdown.EXE` → `shutdown`), and whether it was spelled
/// otherwise. Borrowed from `raw` unless its letters had to be lowered.
pub(super) fn plain(raw: &str) -> (Cow<'_, str>, bool) {
    let base = raw.rsplit(['/', '\\']).next().unwrap_or(raw);
    let mut name = base;
    for suffix in [".exe", ".com"] {
        let cut = name.len().saturating_sub(suffix.len());
        if cut > 0
            && name
                .get(cut..)
                .is_some_and(|end| end.eq_ignore_ascii_case(suffix))
        {
            name = &name[..cut];
        }
    }
    let mut name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    };
    if let Some(gnu) = name.strip_prefix('g')
        && gnu_prefixed(gnu)
    {
        name = match name {
            Cow::Borrowed(b) => Cow::Borrowed(&b[1..]),
            Cow::Owned(o) => Cow::Owned(o[1..].to_string()),
        };
    }
    let respelled = name != base;
    (name, respelled)
}

/// The name a command's program goes by, for the checks that name programs (interpreters
/// reading input, git's environment): the plain name of whatever the word names.
pub(super) fn name_of(word: &Word) -> String {
    if word.dynamic {
        return if SHELL_VARIABLES.contains(&word.value.as_str()) {
            "sh".to_string()
        } else {
            word.value.clone()
        };
    }
    if word.value.contains("/proc/") && word.value.ends_with("/exe") {
        return "sh".to_string();
    }
    plain(&word.value).0.into_owned()
}

fn same_dir(known: &[&str], dir: &[String], ignore_case: bool) -> bool {
    known.len() == dir.len()
        && known.iter().zip(dir).all(|(k, d)| {
            if ignore_case {
                k.eq_ignore_ascii_case(d)
            } else {
                k == d
            }
        })
}

/// `/proc/self/exe` is the program running the line: the shell.
fn is_shell_binary(place: &Place) -> bool {
    place.parts.len() == 3 && paths::proc_entry(place) == Some("exe")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(raw: &str) -> Call {
        let word = Word {
            value: raw.to_string(),
            dynamic: raw.starts_with('$'),
            subs: Vec::new(),
            cmd: None,
        };
        call(&word, &Place::workspace(), &[])
    }

    #[test]
    fn system_paths_in_every_spelling_keep_the_plain_name() {
        for raw in [
            "rm",
            "/bin/rm",
            "/usr/bin/rm",
            "//bin/rm",
            "/bin//rm",
            "/bin/./rm",
            "/bin/../bin/rm",
            "/usr/lib/../bin/rm",
            "/proc/self/root/bin/rm",
            "/proc/1/root/usr/bin/rm",
            "/usr/bin/X11/X11/rm",
            "/../../bin/rm",
        ] {
            assert_eq!(
                named(raw),
                Call {
                    name: "rm".to_string(),
                    how: How::Named
                },
                "{raw}"
            );
        }
    }

    #[test]
    fn other_spellings_are_respelled() {
        for (raw, name) in [
            ("FORMAT", "format"),
            ("Shutdown.exe", "shutdown"),
            ("format.com", "format"),
            ("grm", "rm"),
            ("/usr/bin/RM", "rm"),
            ("C:\\Windows\\System32\\SHUTDOWN.EXE", "shutdown"),
        ] {
            let got = named(raw);
            assert_eq!(got.name, name, "{raw}");
            assert_eq!(got.how, How::Respelled, "{raw}");
        }
    }

    #[test]
    fn other_places_and_computed_names() {
        assert_eq!(named("/tmp/x/rm").how, How::Outside);
        assert_eq!(named("/tmp/x/rm").name, "rm");
        assert_eq!(named("./.venv/bin/python").how, How::Workspace);
        assert_eq!(named("./.venv/bin/python").name, "python");
        assert_eq!(named("/proc/self/exe").name, "sh");
        assert_eq!(named("$SHELL").name, "sh");
        assert_eq!(named("$CMD").how, How::Computed);
        assert_eq!(named("/proc/self/cwd/x").how, How::Workspace);
    }
}
