//! Building blocks for fingerprinting a document that arrives in pieces
//! (a large file analyzed a chunk at a time): the k-grams that straddle two
//! pieces, and sets of distinct hashes gathered piece by piece.
//!
//! Every algorithm's fingerprint of a document cut into pieces must equal,
//! bit for bit, its fingerprint of the whole (stored fingerprints do not
//! say how their file was read). A k-gram stream is continued across a cut
//! by keeping the last k − 1 units ([`GramTail`]); a set of hashes is kept
//! sorted and distinct as it grows ([`DistinctHashes`]), so its memory is
//! that of its distinct values, not of every occurrence; a set only counted
//! ([`DistinctCount`]) is a hash table while it is small.

use std::borrow::Cow;
use std::collections::TryReserveError;

use crate::hash::{sort_hashes, HashValue};

/// The last k − 1 units of a stream arriving in pieces, so each k-gram is
/// cut exactly once: a piece's units are read after the tail
/// ([`GramTail::join`]), and every k-gram of `tail ++ piece` ends inside
/// the piece.
#[derive(Debug, Clone)]
pub struct GramTail<T> {
    tail: Vec<T>,
    /// Units per gram.
    k: usize,
    /// Units seen so far.
    seen: usize,
}

impl<T: Copy> GramTail<T> {
    /// A stream cut into grams of `k` units (at least 1).
    pub fn new(k: usize) -> Self {
        Self {
            tail: Vec::new(),
            k: k.max(1),
            seen: 0,
        }
    }

    /// Units per gram.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Units seen so far.
    pub fn seen(&self) -> usize {
        self.seen
    }

    /// The units seen so far when there are fewer than k of them (all of
    /// them: the tail holds them all), else `None`. What a whole-document
    /// rule for short documents reads at the end.
    pub fn short(&self) -> Option<&[T]> {
        (self.seen < self.k).then_some(&self.tail[..])
    }

    /// The units whose k-grams are new: the tail followed by `piece` (the
    /// piece itself while the tail is empty). They hold a whole k-gram when
    /// [`GramTail::has_gram`] says so.
    pub fn join<'a>(&self, piece: &'a [T]) -> Result<Cow<'a, [T]>, TryReserveError> {
        if self.tail.is_empty() {
            return Ok(Cow::Borrowed(piece));
        }
        let mut joined = Vec::new();
        joined.try_reserve_exact(self.tail.len() + piece.len())?;
        joined.extend_from_slice(&self.tail);
        joined.extend_from_slice(piece);
        Ok(Cow::Owned(joined))
    }

    /// Whether `joined` holds at least one k-gram.
    pub fn has_gram(&self, joined: &[T]) -> bool {
        joined.len() >= self.k
    }

    /// Take in a piece of `piece_len` units whose grams were cut from
    /// `joined` ([`GramTail::join`]): keep its last k − 1 units.
    pub fn advance(&mut self, joined: &[T], piece_len: usize) {
        self.seen += piece_len;
        let keep = (self.k - 1).min(joined.len());
        self.tail.clear();
        self.tail.extend_from_slice(&joined[joined.len() - keep..]);
    }

    /// [`GramTail::join`], `grams` called on the joined units when they
    /// hold a k-gram, then [`GramTail::advance`].
    pub fn push<R>(
        &mut self,
        piece: &[T],
        grams: impl FnOnce(&[T]) -> R,
    ) -> Result<Option<R>, TryReserveError> {
        let joined = self.join(piece)?;
        let result = self.has_gram(&joined).then(|| grams(&joined));
        self.advance(&joined, piece.len());
        Ok(result)
    }
}

/// Sorted, distinct hashes gathered piece by piece. Values are appended as
/// they come; once the unsorted ones outgrow a quarter of the sorted ones
/// (and a floor) they are sorted and merged in, so the set holds about its
/// distinct values (at most a quarter more) however often they repeat. A
/// document given in one piece is sorted once, at the end, as
/// [`crate::engine::algo::into_set`] would.
#[derive(Debug, Clone, Default)]
pub struct DistinctHashes<T> {
    values: Vec<T>,
    /// `values[..sorted]` is sorted and distinct.
    sorted: usize,
}

/// Unsorted values below this are never merged early (merging costs a pass
/// over the sorted ones).
const MIN_UNSORTED: usize = 1 << 20;

impl<T: HashValue> DistinctHashes<T> {
    /// An empty set.
    pub fn new() -> Self {
        Self {
            values: Vec::new(),
            sorted: 0,
        }
    }

    /// Values held (distinct and not yet deduplicated).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value was added.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Add values; fails only when memory for them cannot be had.
    pub fn extend(
        &mut self,
        values: impl ExactSizeIterator<Item = T>,
    ) -> Result<(), TryReserveError> {
        self.reserve(values.len())?;
        self.values.extend(values);
        if self.values.len() - self.sorted > MIN_UNSORTED.max(self.sorted / 4) {
            self.merge()?;
        }
        Ok(())
    }

    /// Add values of unknown number (a filtered stream), a piece at a time.
    pub fn extend_filtered(
        &mut self,
        values: impl Iterator<Item = T>,
        upper_bound: usize,
    ) -> Result<(), TryReserveError> {
        self.reserve(upper_bound)?;
        self.values.extend(values);
        if self.values.len() - self.sorted > MIN_UNSORTED.max(self.sorted / 4) {
            self.merge()?;
        }
        Ok(())
    }

    /// Room for `more` values, growing by at least a quarter (amortized, and
    /// close to the size the set needs: an address-space limit counts
    /// capacity, not use).
    fn reserve(&mut self, more: usize) -> Result<(), TryReserveError> {
        let need = self.values.len() + more;
        if need > self.values.capacity() {
            let target = need.max(self.values.capacity() + self.values.capacity() / 4);
            self.values.try_reserve_exact(target - self.values.len())?;
        }
        Ok(())
    }

    /// Sort the unsorted values and merge them into the sorted ones, both
    /// deduplicated.
    fn merge(&mut self) -> Result<(), TryReserveError> {
        let mut fresh: Vec<T> = Vec::new();
        fresh.try_reserve_exact(self.values.len() - self.sorted)?;
        fresh.extend_from_slice(&self.values[self.sorted..]);
        sort_hashes(&mut fresh);
        fresh.dedup();
        // Merge from the back into `values`, which has room for both; a
        // value already in the sorted part is written once.
        let (mut i, mut j) = (self.sorted, fresh.len());
        self.values.truncate(self.sorted);
        self.values.resize(self.sorted + fresh.len(), T::default());
        let mut k = self.values.len();
        while j > 0 {
            k -= 1;
            if i > 0 && self.values[i - 1] >= fresh[j - 1] {
                if self.values[i - 1] == fresh[j - 1] {
                    j -= 1;
                }
                i -= 1;
                self.values[k] = self.values[i];
            } else {
                j -= 1;
                self.values[k] = fresh[j];
            }
        }
        // The sorted values not yet moved close the gap left by duplicates.
        let gap = k - i;
        if gap > 0 {
            self.values.copy_within(0..i, gap);
            self.values.drain(..gap);
        }
        self.sorted = self.values.len();
        Ok(())
    }

    /// The set: sorted, distinct, without spare capacity.
    pub fn finish(mut self) -> Vec<T> {
        if self.sorted == 0 {
            // One piece (or never merged): sort once, as `into_set` does.
            return crate::engine::algo::into_set(self.values);
        }
        if self.sorted < self.values.len() && self.merge().is_err() {
            // No room to merge: sorting in place needs none.
            sort_hashes(&mut self.values);
            self.values.dedup();
        }
        self.values.shrink_to_fit();
        self.values
    }
}

/// The number of distinct values of a stream of uniform 64-bit hashes
/// given in pieces, exactly. A document's shingles are counted in an
/// open-addressing table (a few KB, in the first level of cache: an insert
/// is a probe or two, where sorting them to count was a tenth of a scan's
/// work); past [`DistinctCount::TABLE_VALUES`] distinct values (a long
/// text, a whole book), or given more than that at once, they go to a
/// [`DistinctHashes`], whose sort beats a table that misses the cache on
/// every insert and holds twice the bytes (at 65,536 values the table made
/// the 880-book bench ~15 % slower).
#[derive(Debug, Clone, Default)]
pub struct DistinctCount {
    /// Slots by the values' top bits, linear probing; 0 is an empty slot.
    table: Vec<u64>,
    /// Values in the table.
    filled: usize,
    /// Whether the value 0 (which the table cannot hold) was seen.
    zero: bool,
    /// The values once there are too many for the table.
    sorted: Option<DistinctHashes<u64>>,
}

impl DistinctCount {
    /// Distinct values the table holds before they move to a sorted set
    /// (its slots then take 256 KiB, within a core's second-level cache).
    pub const TABLE_VALUES: usize = 1 << 14;

    /// Nothing counted yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Count `values` in; fails only when memory for them cannot be had.
    pub fn extend(&mut self, values: &[u64]) -> Result<(), TryReserveError> {
        if let Some(sorted) = &mut self.sorted {
            return sorted.extend(values.iter().copied());
        }
        if self.table.is_empty() && values.len() > Self::TABLE_VALUES {
            // A long document from the start: sorted at once.
            return self.move_to_sorted(values);
        }
        for &v in values {
            if v == 0 {
                self.zero = true;
                continue;
            }
            // At most half full, so a probe ends soon.
            if 2 * (self.filled + 1) > self.table.len() {
                if self.filled >= Self::TABLE_VALUES {
                    return self.move_to_sorted(values);
                }
                self.grow(values.len())?;
            }
            self.insert(v);
        }
        Ok(())
    }

    fn insert(&mut self, v: u64) {
        let mask = self.table.len() - 1;
        let bits = self.table.len().trailing_zeros();
        let mut at = (v >> (64 - bits)) as usize;
        loop {
            match self.table[at] {
                0 => {
                    self.table[at] = v;
                    self.filled += 1;
                    return;
                }
                held if held == v => return,
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// A table with room for `more` values beside those held (at most
    /// half full), the held ones inserted again.
    fn grow(&mut self, more: usize) -> Result<(), TryReserveError> {
        let want = (2 * (self.filled + more.min(Self::TABLE_VALUES)))
            .next_power_of_two()
            .clamp(64, 2 * Self::TABLE_VALUES);
        let want = want.max(2 * self.table.len());
        let mut table = Vec::new();
        table.try_reserve_exact(want)?;
        table.resize(want, 0);
        let old = std::mem::replace(&mut self.table, table);
        self.filled = 0;
        for v in old.into_iter().filter(|&v| v != 0) {
            self.insert(v);
        }
        Ok(())
    }

    /// Move to a sorted set: what the table holds and all of `values` (some
    /// of which it may hold already).
    fn move_to_sorted(&mut self, values: &[u64]) -> Result<(), TryReserveError> {
        let mut sorted = DistinctHashes::new();
        let held = std::mem::take(&mut self.table);
        sorted.extend_filtered(held.iter().copied().filter(|&v| v != 0), held.len())?;
        drop(held);
        self.filled = 0;
        sorted.extend(values.iter().copied())?;
        self.sorted = Some(sorted);
        Ok(())
    }

    /// The number of distinct values counted.
    pub fn finish(self) -> usize {
        let zero = usize::from(self.zero);
        match self.sorted {
            // The sorted set holds the zero too when it came after the move.
            Some(sorted) => {
                let set = sorted.finish();
                set.len() + usize::from(self.zero && set.first() != Some(&0))
            }
            None => self.filled + zero,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any cut of a stream into pieces yields exactly the k-grams of
        /// the whole, each once, in order.
        #[test]
        fn grams_of_pieces_are_the_grams_of_the_whole(
            units in proptest::collection::vec(0u64..5, 0..60),
            cuts in proptest::collection::vec(0usize..60, 0..6),
            k in 1usize..7,
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(units.len())).collect();
            cuts.sort_unstable();
            let mut tail = GramTail::new(k);
            let mut got = Vec::new();
            let mut at = 0;
            for cut in cuts.into_iter().chain([units.len()]) {
                tail.push(&units[at..cut], |joined| {
                    got.extend(joined.windows(k).map(<[u64]>::to_vec));
                }).unwrap();
                at = cut;
            }
            let whole: Vec<Vec<u64>> = units.windows(k).map(<[u64]>::to_vec).collect();
            prop_assert_eq!(got, whole);
            prop_assert_eq!(tail.seen(), units.len());
            if units.len() < k {
                prop_assert_eq!(tail.short(), Some(&units[..]));
            } else {
                prop_assert_eq!(tail.short(), None);
            }
        }

        /// The set gathered piece by piece (merged early or not) is the
        /// sorted distinct values of the whole.
        #[test]
        fn distinct_hashes_of_pieces_are_the_set_of_the_whole(
            pieces in proptest::collection::vec(proptest::collection::vec(0u64..50, 0..40), 0..8),
        ) {
            let mut set = DistinctHashes::new();
            let mut all = Vec::new();
            for piece in &pieces {
                set.extend(piece.iter().copied()).unwrap();
                set.merge().unwrap();
                all.extend_from_slice(piece);
            }
            all.sort_unstable();
            all.dedup();
            prop_assert_eq!(set.finish(), all);
        }
    }

    proptest! {
        /// Counted piece by piece, in the table or past it, the count is
        /// that of the whole's distinct values (zero among them or not).
        #[test]
        fn distinct_count_of_pieces_is_the_count_of_the_whole(
            pieces in proptest::collection::vec(
                proptest::collection::vec(0u64..4_000, 0..900), 0..6),
            spread in any::<bool>(),
        ) {
            // Uniform hashes as shingles are, or small values moved to the
            // top bits (neighbours in the table: long probes), zero kept.
            let value = |v: u64| if spread && v != 0 { crate::hash::mix64(v) } else { v.rotate_right(12) };
            let mut count = DistinctCount::new();
            let mut all = Vec::new();
            for piece in &pieces {
                let piece: Vec<u64> = piece.iter().map(|&v| value(v)).collect();
                count.extend(&piece).unwrap();
                all.extend_from_slice(&piece);
            }
            all.sort_unstable();
            all.dedup();
            prop_assert_eq!(count.finish(), all.len());
        }
    }

    #[test]
    fn a_count_past_the_table_moves_to_a_sorted_set_and_stays_exact() {
        // In pieces (the table fills, then moves) or at once (sorted from
        // the start), with the zero before or after.
        for (zero_first, piece) in [
            (true, 3_000),
            (false, 3_000),
            (true, 300_000),
            (false, 300_000),
        ] {
            let values: Vec<u64> = (0..300_000u64)
                .map(|i| crate::hash::mix64(i % 100_000 + 1))
                .collect();
            let mut count = DistinctCount::new();
            if zero_first {
                count.extend(&[0, 0]).unwrap();
            }
            for piece in values.chunks(piece) {
                count.extend(piece).unwrap();
            }
            assert!(
                count.sorted.is_some(),
                "100,000 distinct values outgrow the table"
            );
            if !zero_first {
                count.extend(&[0, 5, 0]).unwrap();
            }
            let five = usize::from(!zero_first && !values.contains(&5));
            assert_eq!(count.finish(), 100_000 + 1 + five);
        }
    }

    #[test]
    fn a_large_set_is_merged_as_it_grows_and_stays_distinct() {
        let mut set = DistinctHashes::new();
        let values: Vec<u32> = (0..3_000_000u64)
            .map(|i| crate::hash::mix64(i % 700_000) as u32)
            .collect();
        for piece in values.chunks(100_000) {
            set.extend(piece.iter().copied()).unwrap();
            assert!(set.len() <= 700_000 + MIN_UNSORTED + 100_000);
        }
        let mut expected = values;
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(set.finish(), expected);
    }
}
