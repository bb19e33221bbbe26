//! Secrets whose exact value keyless knows: where each came from (named in its tag), and the
//! search for all of them, and for their encodings ([`super::encode`]), in one pass.
//!
//! The needles are computed when values are added, and found by one Aho-Corasick automaton in
//! time linear in the text, overlapping matches included (two values may overlap in a text, and
//! each must be masked whole). What it does not do: judge whether a value is a secret (the
//! caller decides, and [`super::dotenv`] for `.env` files), or match values shorter than
//! [`MIN_KNOWN_CHARS`].

use std::collections::{HashMap, HashSet};
use std::fmt;

use aho_corasick::{AhoCorasick, MatchKind};

use super::encode::{self, Encoding};

/// Known values shorter than this are not masked: short values (`true`, `1234`) occur
/// everywhere by chance, and masking them would garble ordinary output.
pub(super) const MIN_KNOWN_CHARS: usize = 8;

/// Where a known secret came from; its tag names it, never the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An environment variable: `[redacted: env NAME]`.
    Env { name: String },
    /// A line of a workspace `.env`-style file: `[redacted: file .env.local KEY]`.
    File { file: String, key: String },
}

/// A secret whose exact value keyless knows.
#[derive(Clone, PartialEq, Eq)]
pub struct KnownValue {
    pub origin: Origin,
    pub value: String,
}

impl KnownValue {
    pub fn env(name: impl Into<String>, value: impl Into<String>) -> KnownValue {
        KnownValue {
            origin: Origin::Env { name: name.into() },
            value: value.into(),
        }
    }

    pub fn file(
        file: impl Into<String>,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> KnownValue {
        KnownValue {
            origin: Origin::File {
                file: file.into(),
                key: key.into(),
            },
            value: value.into(),
        }
    }

    /// The inside of the tag for this value found in `encoding`, made only of characters no rule
    /// matches: `env NAME`, `file .env KEY (base64)`.
    fn tag(&self, encoding: Encoding) -> String {
        let clean = |text: &str, extra: &[char]| -> String {
            text.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || extra.contains(&c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        let origin = match &self.origin {
            Origin::Env { name } => format!("env {}", clean(name, &[])),
            Origin::File { file, key } => {
                format!("file {} {}", clean(file, &['.', '-']), clean(key, &[]))
            }
        };
        origin + encoding.suffix()
    }
}

/// Shows where the value came from, never the value.
impl fmt::Debug for KnownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KnownValue")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// Which needles a search looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Needles {
    All,
    /// The encodings of the values, not the values as they are.
    Encoded,
    /// Those that hold a line break.
    Lines,
}

/// The known values of a redactor and the needles that find them.
#[derive(Clone, Default)]
pub(super) struct KnownSet {
    values: Vec<KnownValue>,
    /// Every needle, distinct; the automaton's pattern ids index it.
    needles: Vec<String>,
    /// For each needle, its tag: an index into `tags`.
    needle_tags: Vec<usize>,
    /// For each needle, whether it is a value as it is (not one of its encodings), and whether
    /// it holds a line break.
    needle_plain: Vec<bool>,
    needle_lines: Vec<bool>,
    /// The inside of each tag.
    tags: Vec<String>,
    /// Which needles there are, and each tag's index: for adding without searching the lists.
    needle_set: HashSet<String>,
    tag_index: HashMap<String, usize>,
    /// `None` when there are no needles, or when the automaton could not be built (then each
    /// needle is searched for on its own: slower, never less safe).
    automaton: Option<AhoCorasick>,
}

impl KnownSet {
    /// Adds the values not known yet (trimmed; shorter than [`MIN_KNOWN_CHARS`] left out; the
    /// first origin of a value names it); returns how many were added.
    pub(super) fn add(&mut self, more: Vec<KnownValue>) -> usize {
        let before = self.values.len();
        for mut known in more {
            let value = known.value.trim();
            if value.chars().count() < MIN_KNOWN_CHARS
                || self.values.iter().any(|k| k.value == value)
            {
                continue;
            }
            known.value = value.to_string();
            for needle in encode::needles(&known.value) {
                if !self.needle_set.insert(needle.text.clone()) {
                    continue;
                }
                let tag = known.tag(needle.encoding);
                let next = self.tags.len();
                let index = *self.tag_index.entry(tag.clone()).or_insert(next);
                if index == next {
                    self.tags.push(tag);
                }
                self.needle_plain.push(needle.encoding == Encoding::Plain);
                self.needle_lines.push(needle.text.contains(['\n', '\r']));
                self.needles.push(needle.text);
                self.needle_tags.push(index);
            }
            self.values.push(known);
        }
        let added = self.values.len() - before;
        if added > 0 {
            self.automaton = AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&self.needles)
                .ok();
        }
        added
    }

    pub(super) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Calls `found(start, end, tag)` for every occurrence in `text` of every needle `which`
    /// names, overlapping ones included.
    pub(super) fn find(
        &self,
        text: &str,
        which: Needles,
        mut found: impl FnMut(usize, usize, usize),
    ) {
        let flag = |flags: &[bool], pattern: usize| flags.get(pattern).copied().unwrap_or(true);
        let wanted = |pattern: usize| match which {
            Needles::All => true,
            Needles::Encoded => !flag(&self.needle_plain, pattern),
            Needles::Lines => flag(&self.needle_lines, pattern),
        };
        // Values of several lines are few (a key in a quoted `.env` value): each of their needles
        // is searched on its own rather than the whole automaton run for them.
        let automaton = self.automaton.as_ref().filter(|_| which != Needles::Lines);
        if let Some(matches) = automaton.and_then(|a| a.try_find_overlapping_iter(text).ok()) {
            for m in matches {
                let pattern = m.pattern().as_usize();
                if let Some(&tag) = self.needle_tags.get(pattern).filter(|_| wanted(pattern)) {
                    found(m.start(), m.end(), tag);
                }
            }
            return;
        }
        for (pattern, (needle, &tag)) in self.needles.iter().zip(&self.needle_tags).enumerate() {
            if !wanted(pattern) {
                continue;
            }
            for (start, _) in text.match_indices(needle.as_str()) {
                found(start, start + needle.len(), tag);
            }
        }
    }

    /// The inside of tag `index`.
    pub(super) fn tag(&self, index: usize) -> &str {
        self.tags.get(index).map_or("", String::as_str)
    }

    /// Whether `inner` is the inside of one of this set's tags.
    pub(super) fn is_tag(&self, inner: &str) -> bool {
        self.tag_index.contains_key(inner)
    }

    /// Where each value came from, for `Debug`.
    pub(super) fn origins(&self) -> Vec<&Origin> {
        self.values.iter().map(|k| &k.origin).collect()
    }
}
