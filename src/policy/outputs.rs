//! What a command prints, when that is known before the line runs: `echo` and `printf` of
//! literals, `pwd`, `git rev-parse --git-dir` and its kin, `which`, `realpath`, and the
//! filters a literal passes through unchanged or decoded (`cat`, `head`, `sort`, `base64 -d`,
//! `xxd -r -p`, `rev`); and what a listing (`ls DIR`, `find DIR`) prints, as paths. `flow`
//! feeds this to the commands after them: a substitution's value, `xargs`'s arguments, the
//! script a shell reads from its input. Anything else prints what only running it can tell
//! (`None`), and the classifier judges the command without it.
//!
//! Paths keep the spellings the path normaliser reads (`$PWD`, `$HOME`, `~`).

use super::decode::decode_base64;
use super::lex::{SimpleCommand, Word};
use super::vocab::{Input, Known, values};
use super::wrappers::unwrap;

/// The most text a literal command is taken to print; past it the output is not followed
/// (nothing a command line holds literally is longer, and decoding stays bounded).
const MAX_OUTPUT: usize = 64 * 1024;

/// How deeply literal substitutions are followed (`$(echo $(echo /))`): each level reads its
/// text again, so the depth bounds the work; what lies deeper is judged without its value.
const MAX_SUBSTITUTION_DEPTH: usize = 3;

/// Variables whose value the path normaliser knows how to read: they stay as written.
const PATH_VARIABLES: &[&str] = &["HOME", "PWD", "USERPROFILE", "GIT_DIR"];

/// The value of a word when every expansion in it is known: variables the line set, the
/// output of literal substitutions, and the path variables the normaliser reads.
pub(super) fn word_value(word: &Word, known: &Known) -> Option<String> {
    value_at(word, known, 0)
}

fn value_at(word: &Word, known: &Known, depth: usize) -> Option<String> {
    if !word.dynamic {
        return Some(word.value.clone());
    }
    let mut out = String::new();
    let mut subs = word.subs.iter();
    let mut rest = word.value.as_str();
    while let Some(at) = rest.find(['$', '`']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest
            .strip_prefix("$(…)")
            .or_else(|| rest.strip_prefix("`…`"))
        {
            let sub = subs.next()?;
            out.push_str(output_at(&sub.source, known, depth + 1)?.trim_end_matches('\n'));
            rest = after;
            continue;
        }
        let body = rest.strip_prefix('$')?;
        let (name, after) = if let Some(braced) = body.strip_prefix('{') {
            let end = braced.find('}')?;
            (&braced[..end], &braced[end + 1..])
        } else {
            let end = body
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(body.len());
            (&body[..end], &body[end..])
        };
        // `${NAME:?msg}`, `${NAME:-x}`, `${NAME=x}`: NAME's value when it is set.
        let (name, modifier) = name
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or((name, ""), |at| name.split_at(at));
        let keeps_value = modifier.is_empty()
            || modifier.starts_with([':', '-', '?', '=']) && !modifier.starts_with(":+");
        if !keeps_value {
            return None;
        }
        if let Some(value) = known.var(name) {
            out.push_str(value);
        } else if PATH_VARIABLES.contains(&name) {
            out.push_str(&rest[..rest.len() - after.len()]);
        } else {
            return None;
        }
        rest = after;
    }
    out.push_str(rest);
    Some(out)
}

/// What `$(source)` prints when it is a pipeline of literal commands.
pub(super) fn substitution_output(source: &str, known: &Known) -> Option<String> {
    output_at(source, known, 0)
}

fn output_at(source: &str, known: &Known, depth: usize) -> Option<String> {
    if depth > MAX_SUBSTITUTION_DEPTH || source.len() > MAX_OUTPUT {
        return None;
    }
    let line = super::lex::read(source);
    if !line.problems.is_empty() || line.commands.is_empty() {
        return None;
    }
    let mut input: Option<Input> = None;
    for (i, command) in line.commands.iter().enumerate() {
        if command.pipeline != 0 || command.stage != i {
            return None;
        }
        input = Some(printed(command, input.as_ref(), known, depth)?);
    }
    match input? {
        Input::Text(text) => Some(text),
        Input::Paths(_) => None,
    }
}

/// What a command prints, given what it reads.
pub(super) fn output(
    command: &SimpleCommand,
    input: Option<&Input>,
    known: &Known,
) -> Option<Input> {
    printed(command, input, known, 0)
}

fn printed(
    command: &SimpleCommand,
    input: Option<&Input>,
    known: &Known,
    depth: usize,
) -> Option<Input> {
    let (_, inner) = unwrap(&command.words);
    let (first, args) = inner.split_first()?;
    if first.dynamic {
        return None;
    }
    let text = |s: String| (s.len() <= MAX_OUTPUT).then_some(Input::Text(s));
    let literal = |words: &[Word]| -> Option<Vec<String>> {
        words.iter().map(|w| value_at(w, known, depth)).collect()
    };
    let input_text = || match input {
        Some(Input::Text(t)) => Some(t.clone()),
        _ => None,
    };
    let raw: Vec<&str> = values(args);
    let name = super::names::plain(&first.value).0;
    match name.as_ref() {
        "echo" => {
            let words = literal(args)?;
            let (flags, rest): (Vec<&String>, Vec<&String>) = {
                let n = words
                    .iter()
                    .take_while(|w| {
                        w.len() > 1
                            && w.starts_with('-')
                            && w[1..].chars().all(|c| "neE".contains(c))
                    })
                    .count();
                (words[..n].iter().collect(), words[n..].iter().collect())
            };
            let mut out = rest
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            if flags.iter().any(|f| f.contains('e')) {
                out = unescape(&out);
            }
            if !flags.iter().any(|f| f.contains('n')) {
                out.push('\n');
            }
            text(out)
        }
        "printf" => {
            let words = literal(args)?;
            let (format, rest) = words.split_first()?;
            if format.starts_with('-') {
                return None;
            }
            text(printf(format, rest))
        }
        "pwd" => text("$PWD\n".to_string()),
        "git" if raw.first() == Some(&"rev-parse") => {
            let mut out = String::new();
            let mut i = 1;
            while i < raw.len() {
                let line = match raw[i] {
                    "--git-dir" | "--git-common-dir" => ".git".to_string(),
                    "--absolute-git-dir" => "$PWD/.git".to_string(),
                    "--show-toplevel" => "$PWD".to_string(),
                    "--git-path" => {
                        i += 1;
                        format!(".git/{}", raw.get(i)?)
                    }
                    _ => return None,
                };
                out.push_str(&line);
                out.push('\n');
                i += 1;
            }
            text(out)
        }
        "which" | "whereis" | "command" | "type" => {
            let programs: Vec<&str> = raw
                .iter()
                .copied()
                .filter(|a| !a.starts_with('-'))
                .collect();
            if programs.is_empty() || name == "command" && !raw.contains(&"-v") {
                return None;
            }
            text(programs.iter().map(|p| format!("/usr/bin/{p}\n")).collect())
        }
        "realpath" | "readlink" => {
            let paths = literal(args)?;
            text(
                paths
                    .iter()
                    .filter(|p| !p.starts_with('-'))
                    .map(|p| format!("{p}\n"))
                    .collect(),
            )
        }
        "cat" | "head" | "tail" | "sort" | "uniq" | "tac" | "tee"
            if raw.iter().all(|a| a.starts_with('-')) =>
        {
            input.cloned()
        }
        "base64" if raw.iter().any(|a| matches!(*a, "-d" | "--decode" | "-D")) => {
            text(String::from_utf8(decode_base64(&input_text()?)?).ok()?)
        }
        "xxd" if raw.iter().any(|a| a.contains('r')) && raw.iter().any(|a| a.contains('p')) => {
            text(String::from_utf8(decode_hex(&input_text()?)?).ok()?)
        }
        "rev" if raw.is_empty() => text(
            input_text()?
                .lines()
                .map(|l| l.chars().rev().collect::<String>() + "\n")
                .collect(),
        ),
        "ls" => {
            let roots = literal(args)?;
            let mut roots: Vec<String> =
                roots.into_iter().filter(|a| !a.starts_with('-')).collect();
            if roots.is_empty() {
                roots.push(".".to_string());
            }
            Some(Input::Paths(listed(&roots)))
        }
        // A find that only lists (no test narrows what it prints) prints its roots and all
        // below them.
        "find" => {
            let words = literal(args)?;
            let roots: Vec<String> = words
                .iter()
                .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "!" | "(" | ")"))
                .cloned()
                .collect();
            let rest = &words[roots.len()..];
            let only_lists = rest.iter().all(|a| {
                matches!(
                    a.as_str(),
                    "-print" | "-print0" | "-depth" | "-xdev" | "-mount" | "-L" | "-H" | "-P"
                ) || a.starts_with("-maxdepth")
                    || a.starts_with("-mindepth")
                    || a.bytes().all(|b| b.is_ascii_digit())
            });
            only_lists.then(|| Input::Paths(listed(&roots)))
        }
        _ => None,
    }
}

/// The folders a listing names and everything in them.
fn listed(roots: &[String]) -> Vec<String> {
    roots
        .iter()
        .flat_map(|r| [r.clone(), format!("{}/*", r.trim_end_matches('/'))])
        .collect()
}

/// `printf FORMAT ARGS…`: the format is repeated while arguments remain, each conversion
/// takes the next one.
fn printf(format: &str, args: &[String]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    loop {
        let mut used = false;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            // Flags, width and precision, then the conversion.
            let mut conversion = None;
            while let Some(&next) = chars.peek() {
                chars.next();
                if next.is_ascii_alphabetic() || next == '%' {
                    conversion = Some(next);
                    break;
                }
            }
            match conversion {
                Some('%') => out.push('%'),
                Some(_) => {
                    used = true;
                    out.push_str(args.next().map_or("", |a| a.as_str()));
                }
                None => {}
            }
            if out.len() > MAX_OUTPUT {
                return unescape(&out);
            }
        }
        if !used || args.len() == 0 {
            break;
        }
    }
    unescape(&out)
}

/// The escapes `echo -e` and `printf` decode.
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('x') => {
                let hex: String = chars
                    .clone()
                    .take(2)
                    .take_while(|c| c.is_ascii_hexdigit())
                    .collect();
                for _ in 0..hex.len() {
                    chars.next();
                }
                if let Some(decoded) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(decoded);
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).ok()?;
            u8::from_str_radix(s, 16).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(source: &str) -> Option<String> {
        substitution_output(source, &Known::default())
    }

    #[test]
    fn literal_commands_print_what_they_say() {
        assert_eq!(out("echo /").as_deref(), Some("/\n"));
        assert_eq!(out("echo -n ~").as_deref(), Some("~"));
        assert_eq!(out("printf '%s\\n' / ~").as_deref(), Some("/\n~\n"));
        assert_eq!(out("printf 'rm -rf /'").as_deref(), Some("rm -rf /"));
        assert_eq!(out("git rev-parse --git-dir").as_deref(), Some(".git\n"));
        assert_eq!(
            out("git rev-parse --git-path hooks").as_deref(),
            Some(".git/hooks\n")
        );
        assert_eq!(
            out("echo cm0gLXJmIC8= | base64 -d").as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(
            out("echo 726d202d7266202f | xxd -r -p").as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(out("echo / | rev | rev").as_deref(), Some("/\n"));
        assert_eq!(out("which rm").as_deref(), Some("/usr/bin/rm\n"));
        assert_eq!(out("echo $HOME").as_deref(), Some("$HOME\n"));
        for unknown in ["cat f", "echo $X", "date", "echo $(date)", "ls"] {
            assert_eq!(out(unknown), None, "{unknown}");
        }
    }
}
