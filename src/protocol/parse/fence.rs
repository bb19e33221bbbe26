//! The one Markdown fence a reply may come wrapped in: which lines open and close one, and
//! which to strip.

/// Returns the range of lines left once one surrounding Markdown fence is removed. The opener
/// is the first non-blank line (3+ backticks or tildes, optional info string); the closer is the
/// last non-blank line (the same character, at least as long, nothing else).
pub(super) fn strip_fence(lines: &[&str]) -> (usize, usize) {
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return (0, lines.len());
    };
    let is_fence = |i: usize| fence_opener(lines[i].trim()).is_some();
    match fence_opener(lines[first].trim()) {
        Some(opener) if last > first && fence_closes(lines[last].trim(), opener) => {
            (first + 1, last)
        }
        // An opener whose closer is missing (a reply cut off, or a closer the model forgot):
        // tolerated, as long as no other fence line stands at the end.
        Some(_) if last == first || !is_fence(last) => (first + 1, lines.len()),
        // A closer alone at the end, with no opener anywhere: tolerated the same way.
        None if is_fence(last) && !(first..last).any(is_fence) => {
            let closer = lines[last].trim();
            let bare = fence_opener(closer)
                .is_some_and(|(ch, len)| closer.len() == len && closer.bytes().all(|b| b == ch));
            (0, if bare { last } else { lines.len() })
        }
        // Half a fence that cannot be stripped (an opener and a closer that differ, prose before
        // the opener): nothing is stripped, and each fence line is reported where it stands (the
        // opener as stray text, the closer as text after @@eof), so the model sees what to drop.
        _ => (0, lines.len()),
    }
}

/// `(fence byte, run length)` when the line opens a fence.
pub(super) fn fence_opener(line: &str) -> Option<(u8, usize)> {
    let ch = *line.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = line.bytes().take_while(|&b| b == ch).count();
    if len < 3 {
        return None;
    }
    let info = &line[len..];
    if ch == b'`' && info.contains('`') {
        return None;
    }
    Some((ch, len))
}

fn fence_closes(line: &str, (ch, len): (u8, usize)) -> bool {
    line.len() >= len && line.bytes().all(|b| b == ch)
}
