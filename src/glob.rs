//! The one wildcard keyless's configuration uses: `*` matches any run of characters, spaces
//! folded (`Commands.AllowList`/`DenyList`, `Git.ProtectedBranches`). A leaf: it uses nothing.

/// Whether `text` (spaces folded) matches `pattern`, where `*` matches any run of characters.
pub fn glob(pattern: &str, text: &str) -> bool {
    let fold = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let (pattern, text) = (fold(pattern), fold(text));
    let parts: Vec<&str> = pattern.split('*').collect();
    let Some((first, rest)) = parts.split_first() else {
        return text.is_empty();
    };
    let Some(mut remaining) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return remaining.is_empty();
    };
    for part in middle {
        match remaining.find(part) {
            Some(at) => remaining = &remaining[at + part.len()..],
            None => return false,
        }
    }
    remaining.ends_with(last) && remaining.len() >= last.len()
}
