//! Grouping the reader's tokens into simple commands and pipelines.

use super::{KEYWORDS, Line, Redirect, SimpleCommand, Sub, Token, Word};

/// Groups tokens into simple commands and pipelines.
pub(super) fn assemble(
    src: &str,
    tokens: Vec<(usize, usize, Token)>,
    heredoc_subs: Vec<Sub>,
    heredoc_bodies: Vec<(String, bool)>,
    line: &mut Line,
) {
    let mut bodies = heredoc_bodies.into_iter();
    let mut current = SimpleCommand::default();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut pipeline = 0;
    let mut stage = 0;
    let mut pending_redirect: Option<&'static str> = None;
    let mut heredoc_subs = Some(heredoc_subs);
    let mut shape = Shape::default();
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
            Token::Separator(_) | Token::Pipe => {
                let op = match token {
                    Token::Separator(op) => op,
                    _ => "|",
                };
                shape.operator(
                    op,
                    !current.words.is_empty()
                        || !current.assignments.is_empty()
                        || !current.redirects.is_empty(),
                    line,
                );
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
                if let Some((body, true)) = bodies.next() {
                    current.heredocs.push(body);
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
                        shape.keyword(&word.value, line);
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
                shape.command();
                current.words.push(word);
            }
        }
    }
    if let Some(op) = pending_redirect {
        line.problems
            .push(format!("the redirection {op} has no target"));
    }
    if !current.words.is_empty() || !current.assignments.is_empty() || !current.redirects.is_empty()
    {
        shape.command();
    }
    shape.finish(line);
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
            cmd: None,
        },
    ))
}

/// What the reader checks of a line's shape: operators with a command on each side, keywords
/// that open and close (`if`…`fi`, `while`…`done`, `{`…`}`) and parentheses, in balance.
#[derive(Default)]
struct Shape {
    /// A command has been seen since the last operator.
    have_command: bool,
    /// The last operator needs a command after it (`&&`, `||`, `|`).
    need_command: Option<&'static str>,
    open: Vec<&'static str>,
}

impl Shape {
    fn command(&mut self) {
        self.have_command = true;
        self.need_command = None;
    }

    fn operator(&mut self, op: &'static str, current_has_words: bool, line: &mut Line) {
        if current_has_words {
            self.command();
        }
        match op {
            "\n" => {}
            "(" => self.open.push("("),
            ")" => {
                if let Some(need) = self.need_command.take() {
                    line.problems.push(format!("nothing follows {need}"));
                }
                if self.open.pop() != Some("(") {
                    line.problems.push("a ) closes nothing".to_string());
                }
                self.have_command = true;
                return;
            }
            _ => {
                if !self.have_command {
                    line.problems.push(format!("nothing comes before {op}"));
                }
                if matches!(op, "&&" | "||" | "|") {
                    self.need_command = Some(op);
                }
            }
        }
        self.have_command = false;
    }

    fn keyword(&mut self, word: &str, line: &mut Line) {
        let expect = |open: &[&'static str], want: &str, line: &mut Line| {
            if open.last() != Some(&want) {
                line.problems
                    .push(format!("`{word}` without its opening keyword"));
            }
        };
        let mut turn = |from: &str, to: &'static str, line: &mut Line| {
            expect(&self.open, from, line);
            if let Some(top) = self.open.last_mut() {
                *top = to;
            }
        };
        match word {
            "if" => self.open.push("if"),
            "while" | "until" => self.open.push("while"),
            "{" => self.open.push("{"),
            "then" => turn("if", "then", line),
            "elif" => turn("then", "if", line),
            "else" => turn("then", "then", line),
            "do" => turn("while", "do", line),
            "fi" | "done" | "}" => {
                let want = match word {
                    "fi" => "then",
                    "done" => "do",
                    _ => "{",
                };
                if self.open.pop() != Some(want) {
                    line.problems.push(format!("`{word}` closes nothing"));
                }
                self.command();
                return;
            }
            _ => {}
        }
        self.have_command = false;
    }

    fn finish(&mut self, line: &mut Line) {
        if let Some(need) = self.need_command {
            line.problems.push(format!("the line ends with {need}"));
        }
        if let Some(open) = self.open.last() {
            line.problems.push(format!("`{open}` is never closed"));
        }
    }
}
