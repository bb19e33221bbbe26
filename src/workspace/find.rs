//! Locating an editfile's FIND text, and explaining a miss so the model's next try succeeds.
//!
//! Matching is exact on LF-normalised text and never fuzzy: a FIND either matches exactly
//! once or the edit fails. What fuzziness buys is the diagnosis: how many matches, where, the
//! closest region with line numbers and whitespace made visible, and whether REPLACE is already
//! there (the edit was probably applied before).

use std::collections::HashMap;

use super::text::line_of;

/// Matches listed by line before the rest are counted.
const MAX_LISTED_MATCHES: usize = 8;
/// Lines of context shown around the closest region.
const CONTEXT_LINES: usize = 2;
/// The longest region shown, in lines.
const MAX_REGION_LINES: usize = 30;
/// Characters of one shown line before it is cut.
const MAX_SHOWN_LINE_CHARS: usize = 160;

/// Where FIND matched, in bytes of the LF-normalised text. Overlapping matches count.
pub fn find_all(haystack: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    if needle.is_empty() {
        return found;
    }
    let mut from = 0;
    while let Some(at) = haystack[from..].find(needle) {
        let start = from + at;
        found.push(start);
        let step = haystack[start..].chars().next().map_or(1, char::len_utf8);
        from = start + step;
        if from > haystack.len() {
            break;
        }
    }
    found
}

/// Explains why FIND did not match exactly once. `text` is the LF-normalised file.
pub fn explain_miss(text: &str, find: &str, replace: &str, matches: &[usize]) -> String {
    if matches.len() > 1 {
        let lines: Vec<String> = matches
            .iter()
            .take(MAX_LISTED_MATCHES)
            .map(|&m| line_of(text, m).to_string())
            .collect();
        let more = if matches.len() > MAX_LISTED_MATCHES {
            format!(" and {} more", matches.len() - MAX_LISTED_MATCHES)
        } else {
            String::new()
        };
        let mut out = format!(
            "FIND text matched {} times (must match exactly once), at lines {}{more}. Add surrounding lines to FIND so that it matches only the place you mean (> marks where each match starts):\n",
            matches.len(),
            lines.join(", ")
        );
        let find_lines = find.matches('\n').count();
        let starts: Vec<usize> = matches
            .iter()
            .take(MAX_LISTED_MATCHES)
            .map(|&m| line_of(text, m))
            .collect();
        out.push_str(&show_matches(text, &starts, find_lines));
        return out;
    }

    let mut out = "FIND text matched 0 times (must match exactly once).".to_string();
    if !replace.is_empty() && replace != find {
        let present = find_all(text, replace);
        if let Some(&first) = present.first() {
            out.push_str(&format!(
                " The REPLACE text is already present at line {}: this edit was probably applied already. Read the file before editing it again.",
                line_of(text, first)
            ));
            return out;
        }
    }
    let find_lines: Vec<&str> = find.split('\n').collect();
    match closest_region(text, &find_lines) {
        Some((start, votes)) => {
            let end = start + find_lines.len() - 1;
            out.push_str(&format!(
                " The closest region is lines {start}-{end} ({votes} of {} FIND lines match ignoring indentation). Copy FIND exactly from these lines (· is a space, → a tab):\n{}",
                find_lines.len(),
                show_region(text, start, end, Some(&find_lines))
            ));
        }
        None => out.push_str(
            " No line of FIND appears in the file, even ignoring indentation. Read the file (@@readfile) and copy FIND from it exactly.",
        ),
    }
    out
}

/// The 1-based first line of the window of the file that shares the most trimmed lines with
/// FIND, with that count.
fn closest_region(text: &str, find_lines: &[&str]) -> Option<(usize, usize)> {
    let mut wanted: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, line) in find_lines.iter().enumerate() {
        let t = line.trim();
        if !t.is_empty() {
            wanted.entry(t).or_default().push(k);
        }
    }
    let mut votes: HashMap<isize, usize> = HashMap::new();
    for (i, line) in text.split('\n').enumerate() {
        if let Some(ks) = wanted.get(line.trim()) {
            for &k in ks {
                *votes.entry(i as isize - k as isize).or_default() += 1;
            }
        }
    }
    votes
        .into_iter()
        .max_by_key(|&(start, n)| (n, std::cmp::Reverse(start)))
        .map(|(start, n)| ((start.max(0) + 1) as usize, n))
}

/// The lines of each match with one line of context, overlapping ranges merged, each match's
/// first line marked with `>`.
fn show_matches(text: &str, starts: &[usize], extra_lines: usize) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &start in starts {
        let from = start.saturating_sub(1).max(1);
        let to = (start + extra_lines + 1).min(lines.len());
        match ranges.last_mut() {
            Some(last) if from <= last.1 + 1 => last.1 = last.1.max(to),
            _ => ranges.push((from, to)),
        }
    }
    let width = ranges.last().map_or(1, |r| r.1.to_string().len());
    let mut out = Vec::new();
    for (i, (from, to)) in ranges.iter().enumerate() {
        if i > 0 {
            out.push("  …".to_string());
        }
        for n in *from..=*to {
            let mark = if starts.contains(&n) { "> " } else { "  " };
            let line = lines.get(n - 1).copied().unwrap_or_default();
            out.push(format!("{mark}{n:>width$} | {}", visible(line)));
        }
    }
    out.join("\n")
}

/// File lines `first..=last` (1-based) with context, numbered, whitespace made visible. With
/// `expected`, lines that differ from the FIND line they stand for are marked.
fn show_region(text: &str, first: usize, last: usize, expected: Option<&[&str]>) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let from = first.saturating_sub(CONTEXT_LINES).max(1);
    let to = (last + CONTEXT_LINES)
        .min(lines.len())
        .min(from + MAX_REGION_LINES - 1);
    let width = to.to_string().len();
    let mut out = Vec::new();
    for n in from..=to {
        let line = lines.get(n - 1).copied().unwrap_or_default();
        let mark = match expected {
            Some(find) if n >= first && n <= last => {
                let want = find.get(n - first).copied().unwrap_or_default();
                if line == want {
                    "  "
                } else if line.trim() == want.trim() {
                    "~ "
                } else {
                    "≠ "
                }
            }
            _ => "  ",
        };
        out.push(format!("{mark}{n:>width$} | {}", visible(line)));
    }
    if expected.is_some() {
        out.push("(~ differs from FIND only in whitespace; ≠ differs in text)".to_string());
    }
    out.join("\n")
}

fn visible(line: &str) -> String {
    let mut out: String = line
        .chars()
        .take(MAX_SHOWN_LINE_CHARS)
        .map(|c| match c {
            ' ' => '·',
            '\t' => '→',
            '\r' => '␍',
            c => c,
        })
        .collect();
    if line.chars().count() > MAX_SHOWN_LINE_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_matches_count() {
        assert_eq!(find_all("aaa", "aa"), vec![0, 1]);
        assert_eq!(find_all("héhé", "hé"), vec![0, 3]);
        assert!(find_all("abc", "").is_empty());
    }

    #[test]
    fn many_matches_are_listed_by_line() {
        let text = "x = 1\ny = 2\nx = 1\n";
        let why = explain_miss(text, "x = 1", "x = 3", &find_all(text, "x = 1"));
        assert!(
            why.starts_with("FIND text matched 2 times (must match exactly once), at lines 1, 3."),
            "{why}"
        );
    }

    #[test]
    fn a_miss_shows_the_closest_region_with_whitespace_visible() {
        let text = "fn a() {\n\tlet x = 1;\n\tlet y = 2;\n}\n";
        let find = "fn a() {\n    let x = 1;\n    let y = 2;";
        let why = explain_miss(text, find, "z", &[]);
        assert!(
            why.contains("closest region is lines 1-3 (3 of 3 FIND lines"),
            "{why}"
        );
        assert!(why.contains("~ 2 | →let·x·=·1;"), "{why}");
    }

    #[test]
    fn an_applied_edit_is_recognised() {
        let text = "a\nnew line\nb\n";
        let why = explain_miss(text, "old line", "new line", &[]);
        assert!(
            why.contains("REPLACE text is already present at line 2"),
            "{why}"
        );
    }

    #[test]
    fn nothing_similar() {
        let why = explain_miss("a\nb\n", "zzz", "y", &[]);
        assert!(why.contains("No line of FIND appears"), "{why}");
    }
}
