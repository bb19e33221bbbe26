//! Python's command line read as CPython reads it: options before the program, bundled
//! (`-Ic`, `-bc CODE`), values attached or next (`-W ignore`, `-Wignore`, `-X dev`,
//! `--check-hash-based-pycs always`), then one of `-c CODE`, `-m MODULE`, `-` or a script. So
//! `python3 -W ignore -c …` is inline code whatever came before `-c`, and `python train.py
//! -c config.yaml` is a script with an option of its own. An option CPython does not have is
//! not guessed past: the line is Risky.

use super::vocab::{ReasonKind, Tier, Verdict};

/// CPython's one-letter flags.
const FLAGS: &str = "bBdEhiIOPqRsSuvVx?";
/// CPython's one-letter options that take a value.
const VALUED: &str = "WX";
/// Long options that take a value.
const LONG_VALUED: &[&str] = &["--check-hash-based-pycs"];
/// Long options without one.
const LONG: &[&str] = &[
    "--help",
    "--help-env",
    "--help-xoptions",
    "--help-all",
    "--version",
];

/// What a Python command line runs.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Run<'a> {
    /// `-c`: the code and the arguments after it.
    Inline(Vec<&'a str>),
    /// `-m MODULE`.
    Module(&'a str),
    /// A script file.
    Script(&'a str),
    /// Code from standard input (`-`, or no program at all).
    Stdin,
    /// An option CPython does not have.
    Unknown(&'a str),
}

pub(super) fn read<'a>(args: &[&'a str]) -> Run<'a> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a == "-" {
            return Run::Stdin;
        }
        if a == "--" {
            return args.get(i).map_or(Run::Stdin, |s| Run::Script(s));
        }
        if !a.starts_with('-') {
            return Run::Script(a);
        }
        if a.starts_with("--") {
            let name = a.split('=').next().unwrap_or(a);
            if LONG_VALUED.contains(&name) {
                i += usize::from(!a.contains('='));
            } else if !LONG.contains(&name) {
                return Run::Unknown(a);
            }
            continue;
        }
        for (at, c) in a.char_indices().skip(1) {
            let attached = &a[at + c.len_utf8()..];
            match c {
                'c' | 'm' => {
                    let value = if attached.is_empty() {
                        i += 1;
                        args.get(i - 1).copied()
                    } else {
                        Some(attached)
                    };
                    let Some(value) = value else {
                        return Run::Unknown(a);
                    };
                    if c == 'm' {
                        return Run::Module(value);
                    }
                    let mut code = vec![value];
                    code.extend_from_slice(&args[i.min(args.len())..]);
                    return Run::Inline(code);
                }
                _ if VALUED.contains(c) => {
                    i += usize::from(attached.is_empty());
                    break;
                }
                _ if FLAGS.contains(c) => {}
                _ => return Run::Unknown(a),
            }
        }
    }
    Run::Stdin
}

pub(super) fn module_verdict(name: &str, module: &str) -> Verdict {
    match module {
        "pip" | "ensurepip" | "venv" | "virtualenv" | "pipx" | "uv" | "poetry" => Verdict::new(
            Tier::Risky,
            ReasonKind::Packages,
            format!("{name} -m: installs packages"),
        ),
        "http.server" | "urllib.request" | "urllib" | "smtpd" | "ftplib" | "webbrowser" => {
            Verdict::new(
                Tier::Risky,
                ReasonKind::Network,
                format!("{name} -m: serves or fetches over the network"),
            )
        }
        "pytest" | "unittest" | "doctest" | "tox" | "nox" => Verdict::new(
            Tier::Execute,
            ReasonKind::Program,
            format!("{name} -m: runs tests"),
        ),
        "mypy" | "black" | "ruff" | "flake8" | "pylint" | "isort" | "compileall" | "py_compile"
        | "json.tool" => Verdict::new(
            Tier::Build,
            ReasonKind::Program,
            format!("{name} -m: checks or formats code"),
        ),
        _ => Verdict::new(
            Tier::Execute,
            ReasonKind::Program,
            format!("{name} -m: runs a module"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_before_the_program_are_read_as_cpython_reads_them() {
        assert_eq!(read(&["-W", "ignore", "-c", "x"]), Run::Inline(vec!["x"]));
        assert_eq!(
            read(&["-Wignore", "-Ic", "x", "a"]),
            Run::Inline(vec!["x", "a"])
        );
        assert_eq!(
            read(&["-X", "dev", "-cprint(1)"]),
            Run::Inline(vec!["print(1)"])
        );
        assert_eq!(read(&["-u", "-m", "pytest"]), Run::Module("pytest"));
        assert_eq!(read(&["train.py", "-c", "x.yaml"]), Run::Script("train.py"));
        assert_eq!(read(&["-W", "ignore"]), Run::Stdin);
        assert_eq!(read(&["-"]), Run::Stdin);
        assert_eq!(read(&["-Z", "x"]), Run::Unknown("-Z"));
        assert_eq!(read(&["--frob", "-c", "x"]), Run::Unknown("--frob"));
    }
}
