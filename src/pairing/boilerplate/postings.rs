//! Sampled hash → the documents holding it, compact for the common case:
//! most sampled shingles are in one document only, and those take one
//! 8-byte table entry with the document inline; a list is allocated only
//! from the second document on.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::hash::mix64;

pub(super) type DocId = u32;

/// A `Hasher` for the sampled hashes: they are uniform but for three
/// bits that sampling fixes (`(top >> 7) % 8 == 0`), which a multiply
/// alone would carry into the table's bucket bits; a full mix spreads
/// them. In-process maps only.
#[derive(Default, Clone, Copy)]
pub(super) struct SampleHasher(u64);

impl std::hash::Hasher for SampleHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix64(self.0 ^ u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = mix64(u64::from(n));
    }
}

/// Maps and sets keyed by sampled hashes.
pub(super) type SampleMap<V> = HashMap<u32, V, BuildHasherDefault<SampleHasher>>;
pub(super) type SampleSet = HashSet<u32, BuildHasherDefault<SampleHasher>>;

/// Set on a table value that indexes `lists` rather than naming a document.
const LIST: u32 = 1 << 31;

#[derive(Debug, Clone, Default)]
pub(super) struct Postings {
    map: SampleMap<u32>,
    lists: Vec<Vec<DocId>>,
    free: Vec<u32>,
}

impl Postings {
    /// The documents holding `hash` (in no particular order).
    pub fn get(&self, hash: u32) -> &[DocId] {
        match self.map.get(&hash) {
            None => &[],
            Some(v) if v & LIST != 0 => &self.lists[(v & !LIST) as usize],
            Some(v) => std::slice::from_ref(v),
        }
    }

    pub fn len(&self, hash: u32) -> usize {
        self.get(hash).len()
    }

    /// Post `id` under `hash`; returns how many documents hold it now.
    pub fn insert(&mut self, hash: u32, id: DocId) -> usize {
        debug_assert!(id < LIST, "document ids stay below 2^31");
        let value = match self.map.entry(hash) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(id);
                return 1;
            }
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        };
        match *value {
            v if v & LIST != 0 => {
                let list = &mut self.lists[(v & !LIST) as usize];
                list.push(id);
                list.len()
            }
            single => {
                let list = vec![single, id];
                let slot = match self.free.pop() {
                    Some(slot) => {
                        self.lists[slot as usize] = list;
                        slot
                    }
                    None => {
                        self.lists.push(list);
                        (self.lists.len() - 1) as u32
                    }
                };
                *value = slot | LIST;
                2
            }
        }
    }

    /// Take `id` off `hash`; returns how many documents hold it now.
    pub fn remove(&mut self, hash: u32, id: DocId) -> usize {
        let Some(v) = self.map.get(&hash).copied() else {
            return 0;
        };
        if v & LIST == 0 {
            if v == id {
                self.map.remove(&hash);
                return 0;
            }
            return 1;
        }
        let slot = (v & !LIST) as usize;
        let list = &mut self.lists[slot];
        if let Some(i) = list.iter().position(|&d| d == id) {
            list.swap_remove(i);
        }
        if list.len() == 1 {
            let single = list[0];
            self.lists[slot] = Vec::new();
            self.free.push(slot as u32);
            self.map.insert(hash, single);
            return 1;
        }
        list.len()
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        self.map.capacity() * 9
            + self.lists.capacity() * 24
            + self.lists.iter().map(|l| l.capacity() * 4).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_grow_from_the_second_document_and_shrink_back() {
        let mut p = Postings::default();
        assert_eq!(p.insert(7, 1), 1);
        assert_eq!(p.get(7), &[1]);
        assert_eq!(p.insert(7, 2), 2);
        assert_eq!(p.insert(7, 3), 3);
        assert_eq!(p.len(7), 3);
        assert_eq!(p.remove(7, 1), 2);
        assert_eq!(p.remove(7, 3), 1);
        assert_eq!(p.get(7), &[2]);
        assert!(p.free.len() == 1, "the list went back to the free slots");
        p.insert(9, 4);
        p.insert(9, 5);
        assert_eq!(p.free.len(), 0, "and was reused");
        p.remove(7, 2);
        assert_eq!(p.get(7), &[] as &[u32]);
        p.remove(7, 2);
        assert_eq!(p.get(9), &[4, 5]);
    }
}
