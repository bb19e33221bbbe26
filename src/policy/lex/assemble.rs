//! Grouping the reader's tokens into simple commands and pipelines.

use super::{KEYWORDS, Line, Redirect, SimpleCommand, Sub, Token, Word};

/// Groups tokens into simple commands and pipelines.
pub(super) fn assemble(
    src: &str,
    tokens: Vec<(usize, usize, Token)>,
    heredoc_subs: Vec<Sub>,
    line: &mut Line,
) {
    let mut current = SimpleCommand::default();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut pipeline = 0;
    let mut stage = 0;
    let mut pending_redirect: Option<&'static str> = None;
    let mut heredoc_subs = Some(heredoc_subs);
    let flush =
        |current: &mut SimpleCommand, start: &mut Option<usize>, end: usize, line: &mut Line| {
            if let Some(s) = start.take() {
                current.text = src[s..end].trim().to_string();
            }
            if !current.words.is_empty()
                || !current.assignments.is_empty()
                || !current.redirects.is_empty()
            {
                line.commands.push(std::mem::take(current));
            } else {
                *current = SimpleCommand::default();
            }
        };
    for (from, to, token) in tokens {
        match token {
            Token::Separator | Token::Pipe => {
                if let Some(op) = pending_redirect.take() {
                    line.problems
                        .push(format!("the redirection {op} has no target"));
                }
                current.pipeline = pipeline;
                current.stage = stage;
                flush(&mut current, &mut start, end, line);
                if matches!(token, Token::Pipe) {
                    stage += 1;
                } else {
                    pipeline += 1;
                    stage = 0;
                }
            }
            Token::Redirect(op) => {
                start.get_or_insert(from);
                end = to;
                pending_redirect = Some(op);
            }
            Token::Heredoc => {
                start.get_or_insert(from);
                end = to;
                // The reader took the delimiter; the body is the command's input.
                current.redirects.push(Redirect {
                    op: "<<",
                    target: Word::default(),
                });
                if let Some(subs) = heredoc_subs.take() {
                    current.heredoc_subs = subs;
                }
            }
            Token::Word(word) => {
                start.get_or_insert(from);
                end = to;
                if let Some(op) = pending_redirect.take() {
                    current.redirects.push(Redirect { op, target: word });
                    continue;
                }
                if current.words.is_empty() {
                    if KEYWORDS.contains(&word.value.as_str())
                        && !word.dynamic
                        && src[from..to] == word.value
                    {
                        // A keyword opens or continues a compound command; what follows is a
                        // command of its own.
                        start = None;
                        continue;
                    }
                    if let Some((name, value)) = assignment(&word, &src[from..to]) {
                        current.assignments.push((name, value));
                        continue;
                    }
                    if matches!(word.value.as_str(), "for" | "select" | "case" | "function")
                        || word.value.ends_with("()")
                    {
                        line.problems.push(format!(
                            "`{}` (a loop, case or function definition) is not analysed",
                            word.value
                        ));
                    }
                }
                current.words.push(word);
            }
        }
    }
    if let Some(op) = pending_redirect {
        line.problems
            .push(format!("the redirection {op} has no target"));
    }
    current.pipeline = pipeline;
    current.stage = stage;
    flush(&mut current, &mut start, end, line);
}

/// `NAME=value` as the shell reads it before the program name.
fn assignment(word: &Word, raw: &str) -> Option<(String, Word)> {
    let eq = raw.find('=')?;
    let name = &raw[..eq];
    if name.is_empty()
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || name.chars().next().is_some_and(|c| c.is_ascii_digit())
    {
        return None;
    }
    let value_start = word.value.find('=').map_or(word.value.len(), |i| i + 1);
    Some((
        name.to_string(),
        Word {
            value: word.value[value_start..].to_string(),
            dynamic: word.dynamic,
            subs: word.subs.clone(),
        },
    ))
}
