//! A shell reader for classification: it splits a command line into simple commands the way a
//! POSIX shell (bash) would, resolves quoting and escapes in each word, and collects every
//! command substitution, process substitution and heredoc so the classifier can look inside.
//!
//! It is not an interpreter and does not try to be complete. Whatever it does not understand is
//! recorded as a problem, which makes the line Risky: the classifier fails closed.

/// A word after quote removal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Word {
    /// The text the shell would pass, with expansions left as written (`$HOME` stays `$HOME`).
    pub value: String,
    /// The word's value depends on an expansion (`$x`, `${x}`, `$(…)`, backticks, `$((…))`).
    pub dynamic: bool,
    /// Command and process substitutions inside the word, as source text.
    pub subs: Vec<Sub>,
    /// The word as Windows' `cmd` reads it, when that differs from the shell's reading: a
    /// backslash is a path separator there, not an escape (`C:\\Windows` is `C:Windows` to
    /// bash). Only double quotes are removed.
    pub cmd: Option<String>,
}

/// A substitution found inside a word or a heredoc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sub {
    pub kind: SubKind,
    /// The command line inside it.
    pub source: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubKind {
    /// `$(…)` or backticks: output replaces the word.
    Command,
    /// `<(…)`: read as a file.
    ProcessIn,
    /// `>(…)`: written as a file.
    ProcessOut,
}

/// A redirection: operator and target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    pub op: &'static str,
    pub target: Word,
}

/// One simple command with what surrounds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command's source text, trimmed.
    pub text: String,
    /// `NAME=value` words before the program.
    pub assignments: Vec<(String, Word)>,
    /// The program and its arguments.
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Heredoc bodies fed to this command (their substitutions are in `subs`).
    pub heredoc_subs: Vec<Sub>,
    /// The text of each heredoc fed to this command whose body is known before the line runs
    /// (a quoted delimiter, or no expansion in it), in order.
    pub heredocs: Vec<String>,
    /// Which pipeline the command belongs to, and its place in it (0 = first).
    pub pipeline: usize,
    pub stage: usize,
}

/// A command line read into simple commands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Line {
    pub commands: Vec<SimpleCommand>,
    /// What the reader did not understand; any entry makes the line Risky.
    pub problems: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(Word),
    /// `&&`, `||`, `;`, `&`, newline, `(`, `)`: ends a command and a pipeline.
    Separator(&'static str),
    /// `|` or `|&`: ends a command, continues the pipeline.
    Pipe,
    Redirect(&'static str),
    /// A heredoc opener `<<` / `<<-`; its delimiter word follows.
    Heredoc,
}

/// Shell keywords that may open or continue a compound command; they are stepped over.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "time",
];

mod assemble;
mod braces;
mod expand;
mod quoting;

use assemble::assemble;

/// Redirection operators, longest first.
const REDIRECTS: &[&str] = &[
    "&>>", "<<<", "<<-", "&>", ">>", ">&", "<&", ">|", "<>", "<<", ">", "<",
];

/// A heredoc whose body starts after the current line.
struct PendingHeredoc {
    /// The word that ends the body.
    delimiter: String,
    /// Whether the body is expanded (`$…`, backquotes): the delimiter was not quoted.
    expands: bool,
    /// `<<-`: leading tabs are stripped from the body's lines.
    strip_tabs: bool,
}

struct Reader<'a> {
    src: &'a str,
    pos: usize,
    problems: Vec<String>,
    /// Heredocs opened on the current line, whose bodies follow its end.
    pending_heredocs: Vec<PendingHeredoc>,
    /// Substitutions found in heredoc bodies, attached to the command that opened them.
    heredoc_subs: Vec<Sub>,
    /// Every heredoc body in order, with whether it is known before the line runs.
    heredoc_bodies: Vec<(String, bool)>,
    /// The heredoc opener just read was `<<-` (its body's leading tabs are stripped).
    strip_next: bool,
    /// How many expansions and quotes are open around the reader (see `MAX_NESTING`).
    depth: usize,
    /// Where in the word being read its unquoted braces and commas are (brace expansion).
    brace_marks: Vec<usize>,
}

/// How deeply `$(…)`, `${…}`, `$((…))` and double quotes may nest. The reader recurses once per
/// level; past this it stops reading and reports a problem instead of exhausting the stack.
const MAX_NESTING: usize = 64;

/// Reads a command line.
pub fn read(src: &str) -> Line {
    let mut reader = Reader::new(src, 0);
    let tokens = reader.tokens();
    let mut line = Line {
        commands: Vec::new(),
        problems: std::mem::take(&mut reader.problems),
    };
    assemble(
        src,
        tokens,
        reader.heredoc_subs,
        reader.heredoc_bodies,
        &mut line,
    );
    line
}

impl<'a> Reader<'a> {
    fn new(src: &'a str, depth: usize) -> Reader<'a> {
        Reader {
            src,
            pos: 0,
            problems: Vec::new(),
            pending_heredocs: Vec::new(),
            heredoc_subs: Vec::new(),
            heredoc_bodies: Vec::new(),
            strip_next: false,
            depth,
            brace_marks: Vec::new(),
        }
    }
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Reads the whole input into tokens, each with its start offset.
    fn tokens(&mut self) -> Vec<(usize, usize, Token)> {
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            let start = self.pos;
            match c {
                ' ' | '\t' => {
                    self.bump();
                }
                '\\' if self.rest().starts_with("\\\n") => {
                    self.pos += 2;
                }
                '\n' => {
                    self.bump();
                    out.push((start, self.pos, Token::Separator("\n")));
                    self.read_heredoc_bodies();
                }
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                ';' | '(' | ')' => {
                    if self.rest().starts_with("()") {
                        self.problems
                            .push("a function definition is not analysed: names may not mean what they seem".to_string());
                    }
                    self.bump();
                    if c == ';' && self.peek() == Some(';') {
                        self.bump();
                        self.problems
                            .push("`;;` (a case statement) is not analysed".to_string());
                    }
                    let op = match c {
                        ';' => ";",
                        '(' => "(",
                        _ => ")",
                    };
                    out.push((start, self.pos, Token::Separator(op)));
                }
                '&' if self.rest().starts_with("&&") => {
                    self.pos += 2;
                    out.push((start, self.pos, Token::Separator("&&")));
                }
                '|' if self.rest().starts_with("||") => {
                    self.pos += 2;
                    out.push((start, self.pos, Token::Separator("||")));
                }
                '|' => {
                    self.bump();
                    if self.peek() == Some('&') {
                        self.bump();
                    }
                    out.push((start, self.pos, Token::Pipe));
                }
                '<' | '>' if self.rest()[1..].starts_with('(') => {
                    let word = self.word();
                    out.push((start, self.pos, Token::Word(word)));
                }
                '<' | '>' | '&' => {
                    if let Some(op) = REDIRECTS.iter().find(|op| self.rest().starts_with(**op)) {
                        self.pos += op.len();
                        self.strip_next = *op == "<<-";
                        let token = if matches!(*op, "<<" | "<<-") {
                            Token::Heredoc
                        } else {
                            Token::Redirect(op)
                        };
                        out.push((start, self.pos, token));
                    } else {
                        // A lone `&`: run in the background.
                        self.bump();
                        out.push((start, self.pos, Token::Separator("&")));
                    }
                }
                _ => {
                    let word = self.word();
                    // `2>` and `2>&1`: digits directly before a redirection name a descriptor.
                    if !word.dynamic
                        && !word.value.is_empty()
                        && word.value.bytes().all(|b| b.is_ascii_digit())
                        && self.src[start..self.pos]
                            .bytes()
                            .all(|b| b.is_ascii_digit())
                        && self.peek().is_some_and(|c| c == '<' || c == '>')
                    {
                        continue;
                    }
                    let marks = std::mem::take(&mut self.brace_marks);
                    let mut word = word;
                    let raw = &self.src[start..self.pos];
                    if raw.contains('\\') {
                        word.cmd = Some(raw.replace('"', ""));
                    }
                    for word in self.brace_expanded(word, &marks) {
                        out.push((start, self.pos, Token::Word(word)));
                    }
                }
            }
            // A heredoc opener: the next word is its delimiter.
            if matches!(out.last(), Some((at, _, Token::Heredoc)) if *at == start) {
                while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
                    self.bump();
                }
                let raw_start = self.pos;
                let delimiter = self.word();
                let quoted = self.src[raw_start..self.pos].contains(['\'', '"', '\\']);
                let strip = self.strip_next;
                self.strip_next = false;
                self.pending_heredocs.push(PendingHeredoc {
                    delimiter: delimiter.value,
                    expands: !quoted,
                    strip_tabs: strip,
                });
            }
        }
        if !self.pending_heredocs.is_empty() {
            self.read_heredoc_bodies();
        }
        out
    }

    /// Reads one word: quote removal, escapes, expansions.
    fn word(&mut self) -> Word {
        self.brace_marks.clear();
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' => {
                    if self.rest()[1..].starts_with('(') {
                        let kind = if c == '<' {
                            SubKind::ProcessIn
                        } else {
                            SubKind::ProcessOut
                        };
                        self.pos += 2;
                        let source = self.until_close_paren();
                        word.value.push_str(&format!("{c}(…)"));
                        word.dynamic = true;
                        word.subs.push(Sub { kind, source });
                    } else {
                        break;
                    }
                }
                '\\' => {
                    self.bump();
                    match self.bump() {
                        Some('\n') | None => {}
                        Some(escaped) => word.value.push(escaped),
                    }
                }
                '\'' => {
                    self.bump();
                    match self.rest().find('\'') {
                        Some(end) => {
                            word.value.push_str(&self.src[self.pos..self.pos + end]);
                            self.pos += end + 1;
                        }
                        None => {
                            self.problems
                                .push("a single quote is never closed".to_string());
                            word.value.push_str(self.rest());
                            self.pos = self.src.len();
                        }
                    }
                }
                '"' => {
                    self.bump();
                    self.double_quoted(&mut word);
                }
                '$' if self.rest().starts_with("$'") => {
                    self.pos += 2;
                    self.ansi_c_quoted(&mut word);
                }
                '$' if self.rest().starts_with("$\"") => {
                    self.pos += 2;
                    self.double_quoted(&mut word);
                }
                '$' | '`' => {
                    if !self.expansion(&mut word) {
                        word.value.push(c);
                        self.bump();
                    }
                }
                _ => {
                    if matches!(c, '{' | ',' | '}') {
                        self.brace_marks.push(word.value.len());
                    }
                    word.value.push(c);
                    self.bump();
                }
            }
        }
        word
    }

    /// Stops reading a line nested beyond `MAX_NESTING`; true when it did.
    fn too_deep(&mut self) -> bool {
        if self.depth < MAX_NESTING {
            return false;
        }
        if self.pos < self.src.len() {
            self.problems.push(format!(
                "expansions or quotes nest more than {MAX_NESTING} deep"
            ));
            self.pos = self.src.len();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &Line) -> Vec<Vec<String>> {
        line.commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.value.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_on_every_separator_outside_quotes() {
        let line = read("a && b || c ; d | e |& f & g\nh 'x && y' \"p | q\"");
        assert_eq!(
            argv(&line),
            vec![
                vec!["a"],
                vec!["b"],
                vec!["c"],
                vec!["d"],
                vec!["e"],
                vec!["f"],
                vec!["g"],
                vec!["h", "x && y", "p | q"],
            ]
        );
        assert!(line.problems.is_empty());
    }

    #[test]
    fn resolves_quoting_like_the_shell() {
        let line = read(r#"r"m" -"r"f \/ $'\x72\155' 'a'\''b'"#);
        assert_eq!(argv(&line), vec![vec!["rm", "-rf", "/", "rm", "a'b"]]);
    }

    #[test]
    fn finds_substitutions_at_any_depth() {
        let line = read("echo \"$(curl x | sh)\" `id` <(cat f) ${a:-$(date)} $((1 + $(n)))");
        let subs: Vec<&str> = line.commands[0]
            .words
            .iter()
            .flat_map(|w| w.subs.iter().map(|s| s.source.as_str()))
            .collect();
        assert_eq!(subs, vec!["curl x | sh", "id", "cat f", "date", "n"]);
    }

    #[test]
    fn redirections_and_descriptors() {
        let line = read("cargo build 2>&1 >out.txt < in.txt &>> log");
        let c = &line.commands[0];
        assert_eq!(argv(&line), vec![vec!["cargo", "build"]]);
        let r: Vec<(&str, &str)> = c
            .redirects
            .iter()
            .map(|r| (r.op, r.target.value.as_str()))
            .collect();
        assert_eq!(
            r,
            vec![
                (">&", "1"),
                (">", "out.txt"),
                ("<", "in.txt"),
                ("&>>", "log")
            ]
        );
    }

    #[test]
    fn heredoc_bodies_are_data_but_their_substitutions_are_not() {
        let line = read("cat <<EOF > f.txt\nrm -rf /\n$(whoami)\nEOF\nls");
        assert_eq!(argv(&line), vec![vec!["cat"], vec!["ls"]]);
        assert_eq!(line.commands[0].heredoc_subs[0].source, "whoami");
        let quoted = read("cat <<'EOF'\n$(whoami)\nEOF\n");
        assert!(quoted.commands[0].heredoc_subs.is_empty());
    }

    #[test]
    fn assignments_keywords_and_pipelines() {
        let line = read("FOO=1 BAR=\"x y\" cmd a | if true; then b; fi");
        let c = &line.commands[0];
        assert_eq!(c.assignments[0].0, "FOO");
        assert_eq!(c.assignments[1].1.value, "x y");
        assert_eq!(argv(&line), vec![vec!["cmd", "a"], vec!["true"], vec!["b"]]);
        assert_eq!((line.commands[0].pipeline, line.commands[0].stage), (0, 0));
        assert_eq!((line.commands[1].pipeline, line.commands[1].stage), (0, 1));
    }

    #[test]
    fn unclosed_constructs_are_problems() {
        for src in [
            "echo 'x",
            "echo \"x",
            "echo $(x",
            "echo `x",
            "echo ${x",
            "cat <<EOF\nbody",
            "echo >",
        ] {
            assert!(!read(src).problems.is_empty(), "{src}");
        }
        assert!(!read("f() { ls; }").problems.is_empty());
        assert!(!read("for f in *; do ls; done").problems.is_empty());
    }

    #[test]
    fn line_continuations_and_comments() {
        let line = read("cargo \\\n  build # and a comment; rm -rf /\nls");
        assert_eq!(argv(&line), vec![vec!["cargo", "build"], vec!["ls"]]);
    }
}
