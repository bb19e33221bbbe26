//! The reader's quotes and expansions: double-quoted text, `$…` parameter, arithmetic and
//! command substitutions, backticks and process substitutions, each collected (at any depth)
//! so the classifier can look inside.

use super::{Reader, Sub, SubKind, Word};

impl Reader<'_> {
    pub(super) fn double_quoted(&mut self, word: &mut Word) {
        if self.too_deep() {
            return;
        }
        self.depth += 1;
        self.double_quoted_inner(word);
        self.depth -= 1;
    }

    fn double_quoted_inner(&mut self, word: &mut Word) {
        loop {
            match self.peek() {
                None => {
                    self.problems
                        .push("a double quote is never closed".to_string());
                    return;
                }
                Some('"') => {
                    self.bump();
                    return;
                }
                Some('\\') => {
                    self.bump();
                    match self.bump() {
                        Some(c @ ('$' | '`' | '"' | '\\')) => word.value.push(c),
                        Some('\n') | None => {}
                        Some(c) => {
                            word.value.push('\\');
                            word.value.push(c);
                        }
                    }
                }
                Some(c @ ('$' | '`')) => {
                    if !self.expansion(word) {
                        word.value.push(c);
                        self.bump();
                    }
                }
                Some(c) => {
                    word.value.push(c);
                    self.bump();
                }
            }
        }
    }

    /// Reads an expansion at `$` or a backtick, if there is one. Returns false when the `$` is
    /// a plain character.
    pub(super) fn expansion(&mut self, word: &mut Word) -> bool {
        if !self.rest().starts_with(['$', '`']) {
            return false;
        }
        if self.too_deep() {
            return true;
        }
        self.depth += 1;
        let found = self.expansion_inner(word);
        self.depth -= 1;
        found
    }

    fn expansion_inner(&mut self, word: &mut Word) -> bool {
        let rest = self.rest();
        if !rest.starts_with(['$', '`']) {
            return false;
        }
        if rest.starts_with("$((") {
            self.pos += 3;
            let source = self.until_close_paren();
            // `$((…))`: the second `)` closes the arithmetic.
            if self.peek() == Some(')') {
                self.bump();
            }
            word.value.push_str("$((…))");
            word.dynamic = true;
            self.nested_subs(&source, word);
            return true;
        }
        if rest.starts_with("$(") {
            self.pos += 2;
            let source = self.until_close_paren();
            word.value.push_str("$(…)");
            word.dynamic = true;
            word.subs.push(Sub {
                kind: SubKind::Command,
                source,
            });
            return true;
        }
        if rest.starts_with('`') {
            self.bump();
            let mut source = String::new();
            loop {
                match self.bump() {
                    None => {
                        self.problems
                            .push("a backtick substitution is never closed".to_string());
                        break;
                    }
                    Some('`') => break,
                    Some('\\') => {
                        if let Some(c) = self.bump() {
                            if !matches!(c, '`' | '\\' | '$') {
                                source.push('\\');
                            }
                            source.push(c);
                        }
                    }
                    Some(c) => source.push(c),
                }
            }
            word.value.push_str("`…`");
            word.dynamic = true;
            word.subs.push(Sub {
                kind: SubKind::Command,
                source,
            });
            return true;
        }
        if rest.starts_with("${") {
            self.pos += 2;
            let mut depth = 1;
            let start = self.pos;
            while let Some(c) = self.bump() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    '\\' => {
                        self.bump();
                    }
                    _ => {}
                }
            }
            let inner_end = if depth == 0 {
                // The closing `}` is one byte.
                self.pos - 1
            } else {
                self.problems
                    .push("a ${…} expansion is never closed".to_string());
                self.pos
            };
            let inner = self.src[start..inner_end].to_string();
            if inner.contains("@P") {
                self.problems
                    .push("${…@P} runs prompt expansion, which can run commands".to_string());
            }
            word.value.push_str(&format!("${{{inner}}}"));
            word.dynamic = true;
            self.nested_subs(&inner, word);
            return true;
        }
        let name_len = rest[1..]
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(rest.len() - 1, |(i, _)| i);
        let special = rest[1..]
            .chars()
            .next()
            .is_some_and(|c| "@*#?$!-0123456789".contains(c));
        if name_len > 0 || special {
            let len = if name_len > 0 { name_len } else { 1 };
            word.value.push_str(&rest[..1 + len]);
            self.pos += 1 + len;
            word.dynamic = true;
            return true;
        }
        false
    }

    /// Collects substitutions inside text that is itself an expansion (arithmetic, `${…}`).
    fn nested_subs(&mut self, source: &str, word: &mut Word) {
        let inner = read_word_subs(source, self.depth + 1);
        self.problems.extend(inner.0);
        word.subs.extend(inner.1);
    }

    /// Reads up to the `)` that closes an opened `(`, respecting quotes and nesting; returns the
    /// text inside.
    pub(super) fn until_close_paren(&mut self) -> String {
        let start = self.pos;
        let mut depth = 1;
        while let Some(c) = self.bump() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return self.src[start..self.pos - 1].to_string();
                    }
                }
                '\\' => {
                    self.bump();
                }
                '\'' => match self.rest().find('\'') {
                    Some(end) => self.pos += end + 1,
                    None => self.pos = self.src.len(),
                },
                '"' => {
                    let mut scratch = Word::default();
                    self.double_quoted(&mut scratch);
                }
                '`' => {
                    self.pos -= 1;
                    let mut scratch = Word::default();
                    self.expansion(&mut scratch);
                }
                _ => {}
            }
        }
        self.problems.push("a $( or ( is never closed".to_string());
        self.src[start..].to_string()
    }
}

/// The substitutions inside a piece of text read as one word.
pub(super) fn read_word_subs(source: &str, depth: usize) -> (Vec<String>, Vec<Sub>) {
    let mut reader = Reader::new(source, depth);
    let mut word = Word::default();
    while reader.pos < source.len() {
        if !reader.expansion(&mut word) {
            reader.bump();
        }
    }
    (reader.problems, word.subs)
}
