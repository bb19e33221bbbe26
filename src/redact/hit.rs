//! One secret found (where it lies, and the rule or known value that names it), and the hits
//! merged into the sorted, disjoint spans that are replaced.

use super::rules::Kind;

/// What replaces a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Label {
    Rule(Kind),
    /// A known value: the index of its tag.
    Known(usize),
}

/// One secret found: `text[start..end]`. `rank` breaks ties between hits on the same span.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hit {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) rank: usize,
    pub(super) label: Label,
}

/// Sorts the hits (earliest first, then longest, then by rank, then as given) and merges the overlapping ones:
/// a merged span covers every byte any of its hits covered and keeps the first hit's label, so
/// no part of a secret escapes and no tag is cut in two.
pub(super) fn merge(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_by_key(|hit| (hit.start, std::cmp::Reverse(hit.end), hit.rank));
    let mut spans: Vec<Hit> = Vec::with_capacity(hits.len());
    for hit in hits {
        match spans.last_mut() {
            Some(last) if hit.start < last.end => last.end = last.end.max(hit.end),
            _ => spans.push(hit),
        }
    }
    spans
}
