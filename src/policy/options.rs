//! Reading a program's arguments against what is known about its options, the way getopt
//! does: bundled short flags (`-rn`), short options with a value attached or next (`-n5`,
//! `-n 5`), long options with `=` or the next word, `--` ending options. An option that is not
//! in the spec is reported, never guessed: GNU tools accept unambiguous abbreviations of long
//! options (`--out` for `--output`), and an exact-match list refuses every one of them.

/// What is known about a program's options.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Spec {
    /// Short options without a value.
    pub flags: &'static str,
    /// Short options that take a value (attached or the next word).
    pub valued: &'static str,
    /// Long options (without `--`) that take no value or an optional `=value`.
    pub long: &'static [&'static str],
    /// Long options that take a value (`=value` or the next word).
    pub long_valued: &'static [&'static str],
    /// `-5` (a count) is an option.
    pub digits: bool,
}

/// Arguments read against a spec.
#[derive(Debug, Default)]
pub(super) struct Parsed<'a> {
    pub positionals: Vec<&'a str>,
    /// Options that took a value, with the value.
    pub values: Vec<(&'a str, &'a str)>,
    /// The first argument that is not a known option.
    pub unknown: Option<&'a str>,
}

impl Spec {
    pub(super) fn parse<'a>(&self, args: &[&'a str]) -> Parsed<'a> {
        let mut parsed = Parsed::default();
        let mut i = 0;
        let mut only_positionals = false;
        while i < args.len() {
            let arg = args[i];
            i += 1;
            if only_positionals || arg == "-" || !arg.starts_with('-') {
                parsed.positionals.push(arg);
                continue;
            }
            if arg == "--" {
                only_positionals = true;
                continue;
            }
            if let Some(long) = arg.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                if self.long.contains(&name) {
                    if let Some(value) = value {
                        parsed.values.push((arg, value));
                    }
                } else if self.long_valued.contains(&name) {
                    match value.or_else(|| args.get(i).copied()) {
                        Some(value) => {
                            if value_is_next(arg) {
                                i += 1;
                            }
                            parsed.values.push((arg, value));
                        }
                        None => parsed.unknown = parsed.unknown.or(Some(arg)),
                    }
                } else {
                    parsed.unknown = parsed.unknown.or(Some(arg));
                }
                continue;
            }
            let chars: Vec<(usize, char)> = arg.char_indices().skip(1).collect();
            for (at, c) in chars {
                if self.flags.contains(c) || self.digits && c.is_ascii_digit() {
                    continue;
                }
                if self.valued.contains(c) {
                    let attached = &arg[at + c.len_utf8()..];
                    if attached.is_empty() {
                        match args.get(i) {
                            Some(value) => {
                                parsed.values.push((arg, value));
                                i += 1;
                            }
                            None => parsed.unknown = parsed.unknown.or(Some(arg)),
                        }
                    } else {
                        parsed.values.push((arg, attached));
                    }
                    break;
                }
                parsed.unknown = parsed.unknown.or(Some(arg));
                break;
            }
        }
        parsed
    }
}

/// How a long option takes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Takes {
    Nothing,
    /// `=value` or the next word.
    Value,
    /// Only `=value`.
    Optional,
}

/// A wrapper's options, for finding where the command it runs starts: the letters that take a
/// value (any other letter is a flag), and long options with how they take a value and the
/// letter they stand for (`' '` for none).
#[derive(Clone, Copy, Debug)]
pub(super) struct Getopt {
    pub short_valued: &'static str,
    pub long: &'static [(&'static str, Takes, char)],
}

/// One option as getopt reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Opt<'a> {
    /// The long name (`unset` for `-u`, `--uns`, `--unset=X`), the letter when it has none,
    /// `?` when the spec does not know it.
    pub name: String,
    pub value: Option<&'a str>,
    /// The word it was read from.
    pub raw: &'a str,
}

impl Getopt {
    /// Reads options up to the first operand (the command a wrapper runs): bundled letters
    /// (`-iu NAME`), values attached or next, long options by any prefix GNU getopt accepts
    /// (`--uns=X` for `--unset=X`), `--` ending options. Returns the options and where the
    /// operands start.
    pub(super) fn read<'a>(&self, args: &[&'a str]) -> (Vec<Opt<'a>>, usize) {
        let mut opts = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let arg = args[i];
            if arg == "--" {
                return (opts, i + 1);
            }
            if arg == "-" || !arg.starts_with('-') {
                break;
            }
            i += 1;
            if let Some(long) = arg.strip_prefix("--") {
                let (given, inline) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                let found = self
                    .long
                    .iter()
                    .find(|(n, _, _)| *n == given)
                    .or_else(|| self.long.iter().find(|(n, _, _)| n.starts_with(given)));
                let Some(&(name, takes, _)) = found else {
                    opts.push(Opt {
                        name: "?".to_string(),
                        value: inline,
                        raw: arg,
                    });
                    continue;
                };
                let value = match (takes, inline) {
                    (_, Some(v)) => Some(v),
                    (Takes::Value, None) => {
                        i += 1;
                        args.get(i - 1).copied()
                    }
                    _ => None,
                };
                opts.push(Opt {
                    name: name.to_string(),
                    value,
                    raw: arg,
                });
                continue;
            }
            for (at, c) in arg.char_indices().skip(1) {
                let name = self
                    .long
                    .iter()
                    .find(|(_, _, short)| *short == c)
                    .map_or_else(|| c.to_string(), |(n, _, _)| n.to_string());
                if self.short_valued.contains(c) {
                    let attached = &arg[at + c.len_utf8()..];
                    let value = if attached.is_empty() {
                        i += 1;
                        args.get(i - 1).copied()
                    } else {
                        Some(attached)
                    };
                    opts.push(Opt {
                        name,
                        value,
                        raw: arg,
                    });
                    break;
                }
                opts.push(Opt {
                    name,
                    value: None,
                    raw: arg,
                });
            }
        }
        (opts, i.min(args.len()))
    }
}

fn value_is_next(arg: &str) -> bool {
    !arg.contains('=')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getopt_reads_bundles_values_and_abbreviations() {
        const ENV: Getopt = Getopt {
            short_valued: "uC",
            long: &[
                ("ignore-environment", Takes::Nothing, 'i'),
                ("unset", Takes::Value, 'u'),
                ("chdir", Takes::Value, 'C'),
            ],
        };
        let (opts, at) = ENV.read(&["-iu", "PAGER", "--ch=/", "--uns", "X", "ls", "-l"]);
        let names: Vec<(&str, Option<&str>)> =
            opts.iter().map(|o| (o.name.as_str(), o.value)).collect();
        assert_eq!(
            names,
            vec![
                ("ignore-environment", None),
                ("unset", Some("PAGER")),
                ("chdir", Some("/")),
                ("unset", Some("X")),
            ]
        );
        assert_eq!(at, 5);
        let (opts, at) = ENV.read(&["-uPAGER", "--", "-x"]);
        assert_eq!(opts[0].value, Some("PAGER"));
        assert_eq!(at, 2);
        let (opts, _) = ENV.read(&["--frobnicate", "ls"]);
        assert_eq!(opts[0].name, "?");
    }

    const SORT: Spec = Spec {
        flags: "nru",
        valued: "kt",
        long: &["numeric-sort", "reverse"],
        long_valued: &["key"],
        digits: false,
    };

    #[test]
    fn known_options_pass_and_unknown_ones_are_reported() {
        let p = SORT.parse(&["-nr", "-k2", "-t", ",", "--key=3", "f.txt", "--", "-o"]);
        assert_eq!(p.positionals, vec!["f.txt", "-o"]);
        assert!(p.unknown.is_none());
        for bad in [
            &["-o", "x"][..],
            &["-nro"],
            &["--output=x"],
            &["--out", "x"],
            &["-nox"],
        ] {
            assert!(SORT.parse(bad).unknown.is_some(), "{bad:?}");
        }
    }
}
