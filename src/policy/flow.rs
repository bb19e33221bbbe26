//! What flows from one command on a line to the next, when it is known before the line runs:
//! a variable set to a literal (`d=/; rm -rf $d`, `h=$(git rev-parse --git-dir)/hooks`), the
//! value of a literal substitution (`rm -rf $(echo ~)`), `${IFS}` between words, a link to a
//! system program (`ln -s /bin/rm x; ./x -rf /`), what a literal pipeline stage or a
//! here-string or heredoc puts on a command's input (`echo / | xargs rm -rf`,
//! `sh <<< 'rm -rf /'`). A command is judged as written and, when one of these changes what
//! it does, once more as it will run; the higher verdict counts.

use super::lex::{SimpleCommand, SubKind, Word};
use super::names::{self, How};
use super::options::Opt;
use super::outputs::{substitution_output, word_value};
use super::paths::{self, Place};
use super::vocab::{Ctx, Input, Known, ReasonKind, Tier, Verdict};
use super::wrappers::{Wrapper, unwrap};

/// How many input items are given to the command `xargs` runs: enough for any literal
/// listing a line holds, few enough that each `-I` substitution is classified quickly.
const MAX_XARGS_ITEMS: usize = 32;

/// What a command leaves known for the commands after it: assignments, `export`/`declare`
/// and friends, `unset`, links and copies of system programs.
pub(super) fn learn(command: &SimpleCommand, known: &mut Known, cwd: &Place) {
    if command.words.is_empty() {
        for (name, word) in &command.assignments {
            let value = word_value(word, known);
            known.set(name, value);
        }
        return;
    }
    let (_, inner) = unwrap(&command.words);
    let Some((first, args)) = inner.split_first() else {
        return;
    };
    match names::plain(&first.value).0.as_ref() {
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            for arg in args.iter().filter(|a| !a.value.starts_with(['-', '+'])) {
                if let Some((name, value)) = arg.value.split_once('=') {
                    let name = name.trim_end_matches('+');
                    let word = Word {
                        value: value.to_string(),
                        dynamic: arg.dynamic,
                        subs: arg.subs.clone(),
                        cmd: None,
                    };
                    let value = word_value(&word, known);
                    known.set(name, value);
                }
            }
        }
        "unset" => {
            for arg in args {
                known.set(&arg.value, None);
            }
        }
        "ln" | "cp" | "install" => {
            let operands: Vec<&Word> = args.iter().filter(|a| !a.value.starts_with('-')).collect();
            if let [target, link] = operands.as_slice() {
                let call = names::call(target, cwd, &known.links);
                if call.how == How::Named && target.value.contains('/') {
                    let place = paths::resolve(&link.value, cwd);
                    let mut inside = place.clone();
                    inside.parts.push(call.name.clone());
                    known.links.push((place, call.name.clone()));
                    known.links.push((inside, call.name));
                }
            }
        }
        _ => {}
    }
}

/// What a command reads on its input: its own here-string or literal heredoc, else what the
/// stage before it in the pipeline prints.
pub(super) fn input_of(
    command: &SimpleCommand,
    previous: Option<&Input>,
    known: &Known,
) -> Option<Input> {
    if let Some(redirect) = command.redirects.iter().rev().find(|r| r.op == "<<<") {
        return word_value(&redirect.target, known).map(|t| Input::Text(t + "\n"));
    }
    if let Some(body) = command.heredocs.last() {
        return Some(Input::Text(body.clone()));
    }
    if command
        .redirects
        .iter()
        .any(|r| matches!(r.op, "<" | "<<" | "<>"))
    {
        return None;
    }
    previous.cloned()
}

/// The command's text with what the line makes known put in: known variables and `${IFS}`
/// where the shell expands them (not inside single quotes), literal substitutions by what
/// they print. `None` when nothing changed.
pub(super) fn rewrite(command: &SimpleCommand, known: &Known) -> Option<String> {
    let text = command.text.as_str();
    if !text.contains(['$', '`']) || command.redirects.iter().any(|r| r.op == "<<") {
        return None;
    }
    let literal_subs = command
        .words
        .iter()
        .chain(command.assignments.iter().map(|(_, w)| w))
        .chain(command.redirects.iter().map(|r| &r.target))
        .flat_map(|w| &w.subs)
        .any(|s| s.kind == SubKind::Command);
    if known.vars.is_empty() && !literal_subs && !text.contains("IFS") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut quote = Quote::None;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        match (quote, c) {
            (Quote::Single, '\'') => quote = Quote::None,
            (Quote::Single, _) => {}
            (_, '\\') => {
                let len = 1 + rest[1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&rest[..len]);
                i += len;
                continue;
            }
            (Quote::None, '\'') => quote = Quote::Single,
            (Quote::None, '"') => quote = Quote::Double,
            (Quote::Double, '"') => quote = Quote::None,
            (_, '$' | '`') => match expansion(rest, known) {
                Expansion::Known(len, value) => {
                    out.push_str(&escape(&value, quote));
                    changed = true;
                    i += len;
                    continue;
                }
                // Its text is copied whole: what lies inside is read once, not from every
                // character of it again.
                Expansion::Unknown(len) => {
                    out.push_str(&rest[..len]);
                    i += len;
                    continue;
                }
                Expansion::None => {}
            },
            _ => {}
        }
        out.push(c);
        i += c.len_utf8();
    }
    changed.then_some(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// An expansion at the start of a text.
enum Expansion {
    /// Its length in the text and its value.
    Known(usize, String),
    /// A substitution whose value is not known, and its length.
    Unknown(usize),
    /// No expansion, or one left as written.
    None,
}

/// The expansion at the start of `text`.
fn expansion(text: &str, known: &Known) -> Expansion {
    let substitution = |len: usize, source: &str| match substitution_output(source, known) {
        Some(value) => Expansion::Known(len, value.trim_end_matches('\n').to_string()),
        None => Expansion::Unknown(len),
    };
    if let Some(body) = text.strip_prefix("$(").filter(|b| !b.starts_with('(')) {
        return match closing_paren(body) {
            Some(end) => substitution(2 + end + 1, &body[..end]),
            None => Expansion::Unknown(text.len()),
        };
    }
    if let Some(body) = text.strip_prefix('`') {
        return match body.find('`') {
            Some(end) => substitution(end + 2, &body[..end]),
            None => Expansion::Unknown(text.len()),
        };
    }
    let Some(body) = text.strip_prefix('$') else {
        return Expansion::None;
    };
    let (name, len) = if let Some(braced) = body.strip_prefix('{') {
        let Some(end) = braced.find('}') else {
            return Expansion::None;
        };
        (&braced[..end], end + 3)
    } else {
        let end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        (&body[..end], end + 1)
    };
    match known.var(name) {
        Some(value) => Expansion::Known(len, value.to_string()),
        // The default IFS splits words on blanks.
        None if name == "IFS" => Expansion::Known(len, " ".to_string()),
        None => Expansion::None,
    }
}

/// The offset of the `)` that closes a `$(` whose body starts `text`.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 1usize;
    let mut quote = Quote::None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Quote::Single, '\'') => quote = Quote::None,
            (Quote::Single, _) => {}
            (_, '\\') => escaped = true,
            (Quote::None, '\'') => quote = Quote::Single,
            (Quote::None, '"') => quote = Quote::Double,
            (Quote::Double, '"') => quote = Quote::None,
            (Quote::None, '(') => depth += 1,
            (Quote::None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A value as the shell passes it after expansion: split on blanks outside quotes, never
/// read again as syntax (so its `;` or `|` stay characters).
fn escape(value: &str, quote: Quote) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match quote {
            Quote::Double if matches!(c, '$' | '`' | '"' | '\\') => out.push('\\'),
            Quote::None if c == '\n' || c == '\t' => {
                out.push(' ');
                continue;
            }
            Quote::None
                if matches!(
                    c,
                    '|' | '&'
                        | ';'
                        | '<'
                        | '>'
                        | '('
                        | ')'
                        | '$'
                        | '`'
                        | '\\'
                        | '"'
                        | '\''
                        | '{'
                        | '}'
                        | ','
                        | '#'
                ) =>
            {
                out.push('\\')
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The command `xargs` runs, with the arguments its known input gives it (or, with `-I`,
/// each item put in place of the replacement string).
pub(super) fn through_xargs(wrappers: &[Wrapper], inner: &[Word], ctx: &mut Ctx) -> Verdict {
    let mut verdict = Verdict::new(Tier::ReadOnly, ReasonKind::Nothing, "");
    let Some(xargs) = wrappers.iter().find(|w| w.name == "xargs") else {
        return verdict;
    };
    let options: Vec<Opt> = xargs.options();
    if inner.is_empty() || options.iter().any(|o| o.name == "arg-file") {
        return verdict;
    }
    let items: Vec<String> = match ctx.input.clone() {
        Some(Input::Text(text)) => text.split_whitespace().map(str::to_string).collect(),
        Some(Input::Paths(paths)) => paths,
        None => return verdict,
    };
    let items = &items[..items.len().min(MAX_XARGS_ITEMS)];
    let word = |value: String| Word {
        value,
        dynamic: false,
        subs: Vec::new(),
        cmd: None,
    };
    let replace = options.iter().find(|o| o.name == "replace").map(|o| {
        o.value
            .filter(|v| !v.is_empty())
            .unwrap_or("{}")
            .to_string()
    });
    let commands: Vec<Vec<Word>> = match replace {
        Some(pattern) => items
            .iter()
            .map(|item| {
                inner
                    .iter()
                    .map(|w| {
                        if w.value.contains(&pattern) {
                            word(w.value.replace(&pattern, item))
                        } else {
                            w.clone()
                        }
                    })
                    .collect()
            })
            .collect(),
        None => vec![
            inner
                .iter()
                .cloned()
                .chain(items.iter().cloned().map(word))
                .collect(),
        ],
    };
    for words in commands {
        let found = ctx.program(&words);
        verdict.raise(Verdict {
            reason: format!("xargs gives it {}: {}", items.join(" "), found.reason),
            ..found
        });
    }
    verdict
}
