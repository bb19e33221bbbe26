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

fn value_is_next(arg: &str) -> bool {
    !arg.contains('=')
}

#[cfg(test)]
mod tests {
    use super::*;

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
