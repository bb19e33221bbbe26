//! The text of `keyless.json` before and beside serde: comments blanked out (so line and column
//! numbers stay true) and a key that appears twice in one object found (serde would keep one).

/// Blanks out `//` and `/* */` comments (outside strings) so line and column numbers stay true.
pub(super) fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                out.push(' ');
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut last = ' ';
                for c in chars.by_ref() {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The first key that appears twice in the same object of valid JSON text, with the line of its
/// second appearance.
pub(super) fn duplicate_key(text: &str) -> Option<(String, usize)> {
    use std::collections::HashSet;
    // One set of keys per open container; arrays get `None`.
    let mut open: Vec<Option<HashSet<String>>> = Vec::new();
    let mut line = 1;
    let mut chars = text.chars().peekable();
    let mut last_string: Option<String> = None;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '{' => open.push(Some(HashSet::new())),
            '[' => open.push(None),
            '}' | ']' => {
                open.pop();
            }
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some(n) = chars.next() {
                                s.push('\\');
                                s.push(n);
                            }
                        }
                        '"' => break,
                        c => s.push(c),
                    }
                }
                last_string = Some(s);
                continue;
            }
            ':' => {
                if let (Some(key), Some(Some(keys))) = (last_string.take(), open.last_mut())
                    && !keys.insert(key.clone())
                {
                    return Some((key, line));
                }
            }
            _ => {}
        }
        if !c.is_whitespace() {
            last_string = None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanked_without_moving_positions() {
        let text = "{ // a comment\n  \"Agent\": { /* inline */ \"Pace\": \"Step\" }, \"x\": \"// not a comment\" }";
        let stripped = strip_comments(text);
        assert_eq!(
            stripped,
            "{             \n  \"Agent\": {              \"Pace\": \"Step\" }, \"x\": \"// not a comment\" }"
        );
    }
}
