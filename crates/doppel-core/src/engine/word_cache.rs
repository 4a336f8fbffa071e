//! The per-thread cache of what is derived from each distinct word, keyed
//! by the word's hash: the analysis keeps each word's term, stop-word flag
//! and Soundex code in one, the quality estimate its reading of the word
//! in another.
//!
//! A library's vocabulary is Zipfian, so after the first documents nearly
//! every word is a hit, and the lookups themselves become the cost: a
//! vocabulary of tens of thousands of words does not fit the processor's
//! nearer caches. The table is open addressing over small slots (one
//! probe reads one cache line) keyed by the word hash, which is uniform
//! already, and a caller may prefetch the slots of words a few places
//! ahead, so their memory accesses overlap. Two words share an entry only
//! if their 64-bit hashes are equal.

/// How many words ahead [`WordCache::each_entry`] prefetches.
const PREFETCH_AHEAD: usize = 8;

#[derive(Clone, Copy, Default)]
struct Slot<E> {
    /// The word hash; 0 marks an empty slot (a word hashing to 0 is never
    /// cached, only recomputed).
    word: u64,
    entry: E,
}

/// Word hash → what was derived from the word (`E`), for one
/// configuration.
pub(crate) struct WordCache<E> {
    /// The configuration the entries were made under.
    tag: u64,
    /// A power of two in length (or empty); at most three quarters full.
    slots: Vec<Slot<E>>,
    len: usize,
}

impl<E> Default for WordCache<E> {
    fn default() -> Self {
        Self {
            tag: 0,
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<E: Copy + Default> WordCache<E> {
    /// Entries kept at most: a library's vocabulary fits, a hostile stream
    /// of unique tokens cannot grow memory without limit.
    pub const LIMIT: usize = 1 << 18;

    /// Empty the cache when it was made for another configuration or has
    /// reached [`WordCache::LIMIT`].
    pub fn prepare(&mut self, tag: u64) {
        if self.tag != tag || self.len >= Self::LIMIT {
            self.slots.iter_mut().for_each(|s| *s = Slot::default());
            self.len = 0;
            self.tag = tag;
        }
    }

    fn home(&self, word: u64) -> usize {
        word as usize & (self.slots.len().wrapping_sub(1))
    }

    /// Start loading the slot `word` would be found in.
    #[inline]
    pub fn prefetch(&self, word: u64) {
        if !self.slots.is_empty() {
            crate::hash::prefetch(&self.slots, self.home(word));
        }
    }

    #[inline]
    pub fn get(&self, word: u64) -> Option<E> {
        if self.slots.is_empty() || word == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(word);
        loop {
            let slot = &self.slots[i];
            if slot.word == word {
                return Some(slot.entry);
            }
            if slot.word == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    pub fn insert(&mut self, word: u64, entry: E) {
        if word == 0 {
            return;
        }
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(word);
        while self.slots[i].word != 0 && self.slots[i].word != word {
            i = (i + 1) & mask;
        }
        if self.slots[i].word == 0 {
            self.len += 1;
        }
        self.slots[i] = Slot { word, entry };
    }

    /// The entry of each of `words` (hashes), in order, to `f`; a word
    /// not cached is derived by `derive` (given its place) and kept. The
    /// lookups run in a tight loop of their own, prefetching the slots of
    /// words [`PREFETCH_AHEAD`] places ahead, so the processor overlaps
    /// their memory accesses.
    pub fn each_entry(
        &mut self,
        words: &[u64],
        mut derive: impl FnMut(usize) -> E,
        mut f: impl FnMut(E),
    ) {
        for (i, &h) in words.iter().enumerate() {
            if let Some(&ahead) = words.get(i + PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            let entry = match self.get(h) {
                Some(entry) => entry,
                None => {
                    let entry = derive(i);
                    self.insert(h, entry);
                    entry
                }
            };
            f(entry);
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots = vec![Slot::default(); (old.len() * 2).max(1024)];
        self.len = 0;
        for slot in old.into_iter().filter(|s| s.word != 0) {
            self.insert(slot.word, slot.entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: u64) -> (u64, u32, bool) {
        (n * 3, n as u32, n.is_multiple_of(2))
    }

    #[test]
    fn entries_survive_growth_and_collisions() {
        let mut cache = WordCache::default();
        cache.prepare(7);
        // Words sharing their low bits collide in every table size.
        let words: Vec<u64> = (1..5000u64).map(|n| n << 40 | 5).chain(1..5000).collect();
        for &w in &words {
            cache.insert(w, entry(w));
        }
        for &w in &words {
            cache.prefetch(w);
            assert_eq!(cache.get(w), Some(entry(w)), "word {w}");
        }
        assert_eq!(cache.get(6 << 40), None);
        assert_eq!(cache.get(0), None, "0 is never a key");
        cache.insert(3, entry(9));
        assert_eq!(cache.get(3), Some(entry(9)), "an insert replaces");
    }

    #[test]
    fn another_configuration_or_a_full_cache_starts_empty() {
        let mut cache = WordCache::default();
        cache.prepare(1);
        cache.insert(42, entry(1));
        cache.prepare(1);
        assert_eq!(cache.get(42), Some(entry(1)));
        cache.prepare(2);
        assert_eq!(cache.get(42), None);
        for w in 1..=WordCache::<(u64, u32, bool)>::LIMIT as u64 {
            cache.insert(w, entry(w));
        }
        cache.prepare(2);
        assert_eq!(cache.get(1), None, "a full cache is emptied");
    }
}
