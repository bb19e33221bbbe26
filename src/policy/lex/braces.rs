//! Brace expansion of literal lists, as bash does it before any other expansion:
//! `rm -rf {/,~}` is `rm -rf / ~`, `/{bin,etc}` is `/bin /etc`, lists nest (`{a,{b,c}}`).
//! Only braces and commas the reader saw unquoted count (`'{a,b}'` and `jq '{a: 1, b: 2}'` stay
//! one word); a brace without a comma at its level (`{}`, `${x}`, `{ ls; }`) is literal.
//! Sequences (`{1..9}`) are left as written: they name no path a list could not.

use super::{Reader, Word};

impl Reader<'_> {
    /// The words a word is after brace expansion (itself when it holds no list). Assignments
    /// (`x={a,b}`) are not expanded, as bash does not.
    pub(super) fn brace_expanded(&mut self, word: Word, marks: &[usize]) -> Vec<Word> {
        if marks.len() < 3 {
            return vec![word];
        }
        let assignment = word.value.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && marks.first().is_some_and(|m| *m > name.len())
        });
        if assignment {
            return vec![word];
        }
        match expand(&word.value, marks) {
            Ok(Some(values)) if !values.is_empty() => {
                let mut words: Vec<Word> = values
                    .into_iter()
                    .map(|value| Word {
                        value,
                        dynamic: word.dynamic,
                        subs: Vec::new(),
                        cmd: None,
                    })
                    .collect();
                words[0].subs = word.subs;
                words
            }
            Ok(_) => vec![word],
            Err(problem) => {
                self.problems.push(problem);
                vec![word]
            }
        }
    }
}

/// How many words one word may expand to; more is reported as a problem (the line is then
/// Risky) instead of being built: `{a,b}` repeated 20 times is a million words.
pub(super) const MAX_WORDS: usize = 256;

/// The words `value` expands to, when an unquoted brace list in it expands; `marks` are the
/// byte offsets in `value` of the braces and commas read unquoted. `Err` when the expansion
/// passes `MAX_WORDS`.
pub(super) fn expand(value: &str, marks: &[usize]) -> Result<Option<Vec<String>>, String> {
    let mut out = Vec::new();
    if !expand_into(value, marks, &mut out)? {
        return Ok(None);
    }
    out.retain(|w| !w.is_empty());
    Ok(Some(out))
}

/// Expands the first list in `value` and, recursively, every list in what it yields. Returns
/// false when `value` holds no list (it is then not pushed).
fn expand_into(value: &str, marks: &[usize], out: &mut Vec<String>) -> Result<bool, String> {
    let Some((open, commas, close)) = first_list(value, marks) else {
        return Ok(false);
    };
    let prefix = &value[..open];
    let suffix = &value[close + 1..];
    let mut starts = vec![open + 1];
    starts.extend(commas.iter().map(|c| c + 1));
    let mut ends = commas.clone();
    ends.push(close);
    for (start, end) in starts.into_iter().zip(ends) {
        let word = format!("{prefix}{}{suffix}", &value[start..end]);
        // Marks keep their meaning where they moved: before the list, inside this
        // alternative, after the list.
        let moved: Vec<usize> = marks
            .iter()
            .filter_map(|&m| {
                if m < open {
                    Some(m)
                } else if m >= start && m < end {
                    Some(m - start + open)
                } else if m > close {
                    Some(m - close - 1 + open + (end - start))
                } else {
                    None
                }
            })
            .collect();
        if !expand_into(&word, &moved, out)? {
            out.push(word);
        }
        if out.len() > MAX_WORDS {
            return Err(format!(
                "a brace expansion makes more than {MAX_WORDS} words"
            ));
        }
    }
    Ok(true)
}

/// The first `{` whose matching `}` closes a list with a comma at its own level: the offsets
/// of the brace, the commas and the closing brace.
fn first_list(value: &str, marks: &[usize]) -> Option<(usize, Vec<usize>, usize)> {
    let bytes = value.as_bytes();
    for (i, &open) in marks.iter().enumerate() {
        if bytes.get(open) != Some(&b'{') {
            continue;
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for &m in &marks[i + 1..] {
            match bytes.get(m) {
                Some(b'{') => depth += 1,
                Some(b',') if depth == 0 => commas.push(m),
                Some(b'}') if depth == 0 => {
                    if commas.is_empty() {
                        break;
                    }
                    return Some((open, commas, m));
                }
                Some(b'}') => depth -= 1,
                _ => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks every brace and comma (as if none were quoted).
    fn all(value: &str) -> Option<Vec<String>> {
        let marks: Vec<usize> = value
            .char_indices()
            .filter(|(_, c)| matches!(c, '{' | ',' | '}'))
            .map(|(i, _)| i)
            .collect();
        expand(value, &marks).ok().flatten()
    }

    #[test]
    fn lists_expand_like_bash() {
        assert_eq!(all("{/,~}"), Some(vec!["/".into(), "~".into()]));
        assert_eq!(
            all("/{bin,etc}/x"),
            Some(vec!["/bin/x".into(), "/etc/x".into()])
        );
        assert_eq!(
            all("{a,{b,c}}d"),
            Some(vec!["ad".into(), "bd".into(), "cd".into()])
        );
        assert_eq!(
            all("{a,b}{c,d}"),
            Some(vec!["ac".into(), "ad".into(), "bc".into(), "bd".into()])
        );
        assert_eq!(all("x{,/}"), Some(vec!["x".into(), "x/".into()]));
        assert_eq!(all("{,/}"), Some(vec!["/".into()]));
        for literal in ["{}", "{a}", "a,b", "{1..3}", "}{,", "{"] {
            assert_eq!(all(literal), None, "{literal}");
        }
        let quoted_comma = expand("{a,b}", &[0, 4]).ok().flatten();
        assert_eq!(quoted_comma, None);
        assert!(expand(&"{a,b}".repeat(20), &[]).is_ok());
        let many = "{a,b}".repeat(20);
        let marks: Vec<usize> = many
            .char_indices()
            .filter(|(_, c)| matches!(c, '{' | ',' | '}'))
            .map(|(i, _)| i)
            .collect();
        assert!(expand(&many, &marks).is_err());
    }
}
