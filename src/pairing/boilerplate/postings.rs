//! Sampled hash → the documents holding it, compact for the common case:
//! most sampled shingles are in one document only, and those take one
//! 8-byte table entry with the document inline; a list is allocated only
//! from the second document on.

use crate::hash::HashKeyed32;

pub(super) type DocId = u32;

/// Set on a table value that indexes `lists` rather than naming a document.
const LIST: u32 = 1 << 31;

#[derive(Debug, Clone, Default)]
pub(super) struct Postings {
    map: HashKeyed32<u32>,
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

    pub fn insert(&mut self, hash: u32, id: DocId) {
        debug_assert!(id < LIST, "document ids stay below 2^31");
        match self.map.get(&hash).copied() {
            None => {
                self.map.insert(hash, id);
            }
            Some(v) if v & LIST != 0 => self.lists[(v & !LIST) as usize].push(id),
            Some(single) => {
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
                self.map.insert(hash, slot | LIST);
            }
        }
    }

    pub fn remove(&mut self, hash: u32, id: DocId) {
        let Some(v) = self.map.get(&hash).copied() else {
            return;
        };
        if v & LIST == 0 {
            if v == id {
                self.map.remove(&hash);
            }
            return;
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
        }
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
        p.insert(7, 1);
        assert_eq!(p.get(7), &[1]);
        p.insert(7, 2);
        p.insert(7, 3);
        assert_eq!(p.len(7), 3);
        p.remove(7, 1);
        p.remove(7, 3);
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
