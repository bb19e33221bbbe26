//! Name tables built once, for the lists every word of a line is asked against (wrappers,
//! readers, network programs): a map keyed by name with FNV-1a, a hash cheap for short
//! strings (the standard one is built to resist chosen keys, which these fixed tables need
//! not).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a, 64 bits.
#[derive(Default)]
pub(super) struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }
}

pub(super) type Build = BuildHasherDefault<Fnv>;

/// A table from names to values.
pub(super) type Names<K, V> = HashMap<K, V, Build>;

/// A set of names.
pub(super) type NameSet<K> = HashSet<K, Build>;

/// A table from each item's name to the item, the first of a name winning (as a scan of the
/// list would find it).
pub(super) fn by_name<T>(
    items: &'static [T],
    name: impl Fn(&'static T) -> &'static str,
) -> Names<&'static str, &'static T> {
    let mut map = Names::default();
    for item in items {
        map.entry(name(item)).or_insert(item);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_finds_what_it_holds_and_nothing_else() {
        let mut table: Names<&str, usize> = Names::default();
        for (i, name) in ["sudo", "env", "timeout", "nice"].iter().enumerate() {
            table.insert(name, i);
        }
        assert_eq!(table.get("env"), Some(&1));
        assert_eq!(table.get("envv"), None);
        assert_eq!(table.get(""), None);
    }
}
