//! Sampled hash → the documents holding it, compact for the common case:
//! most sampled shingles are in one document only, and those take one
//! 8-byte entry of a sorted shard with the document inline; from the
//! second document on the entry names a list, which holds up to four
//! documents in place and allocates only from the fifth. A batch of
//! documents is posted in one merge per shard
//! ([`Postings::insert_sorted`]), and a hash is found by where its value
//! puts it in its shard (the hashes are uniform), not by bisecting the
//! shard.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

use doppel_core::hash::mix64;

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

/// Set on an entry's value that indexes `lists` rather than naming a document.
const LIST: u32 = 1 << 31;

/// A shard splits in two past this many entries on average (each insert
/// shifts half a shard, ~1 KB at most on average).
const SHARD_ENTRIES: usize = 256;

/// Hash → documents, as sorted packed entries `[hash, value]` (the
/// value a document, or `LIST | slot` of a list in `lists`) in shards by
/// the hash's top bits. Eight bytes a hash, with one-eighth spare at most
/// per shard, where a hash table keeps nine bytes a bucket at a load of a
/// half to seven-eighths and twice that while it grows (at 110k documents
/// the table was 231 MB of the peak); a shard grows or splits alone.
#[derive(Debug, Clone)]
pub(super) struct Postings {
    /// `shards[hash >> (32 - shard_bits)]`, each sorted.
    shards: Vec<Vec<Entry>>,
    shard_bits: u32,
    entries: usize,
    lists: Vec<List>,
    free: Vec<u32>,
}

impl Default for Postings {
    fn default() -> Self {
        Self {
            shards: vec![Vec::new()],
            shard_bits: 0,
            entries: 0,
            lists: Vec::new(),
            free: Vec::new(),
        }
    }
}

/// `[hash, value]`.
type Entry = [u32; 2];

/// The documents of a hash held by more than one. Most shared sampled
/// shingles are held by two to four documents (at 110,000 texts 1.2 of
/// the 1.35 million lists), which sit inline, in the 24 bytes an empty
/// `Vec` takes: an allocation each cost ~23 MB there.
type List = smallvec::SmallVec<[DocId; 4]>;

impl Postings {
    fn shard_of(&self, hash: u32) -> usize {
        ((u64::from(hash) << self.shard_bits) >> 32) as usize
    }

    /// Where in its shard `hash` is likely to be: the hashes are uniform.
    fn guess_in_shard(&self, shard: usize, hash: u32) -> usize {
        let width = 32 - self.shard_bits;
        let within = u64::from(hash) & ((1u64 << width) - 1);
        ((within * self.shards[shard].len() as u64) >> width) as usize
    }

    /// Where `hash` is (`Ok`) or would go (`Err`) in its shard.
    fn find(&self, hash: u32) -> (usize, Result<usize, usize>) {
        let shard = self.shard_of(hash);
        let guess = self.guess_in_shard(shard, hash);
        (shard, gallop(&self.shards[shard], hash, guess))
    }

    /// Start loading the lines of its shard where `hash` is likely to be
    /// (the search looks a line or so each way, eight entries a line).
    fn prefetch_place(&self, hash: u32) {
        let shard = self.shard_of(hash);
        let (entries, guess) = (&self.shards[shard], self.guess_in_shard(shard, hash));
        for i in [guess.saturating_sub(8), guess, guess + 8] {
            doppel_core::hash::prefetch(entries, i);
        }
    }

    fn set_value(&mut self, shard: usize, i: usize, value: u32) {
        self.shards[shard][i][1] = value;
    }

    /// The documents holding `hash` (in no particular order).
    pub fn get(&self, hash: u32) -> &[DocId] {
        let (shard, at) = self.find(hash);
        let Ok(i) = at else {
            return &[];
        };
        let value = &self.shards[shard][i][1];
        match *value {
            v if v & LIST != 0 => &self.lists[(v & !LIST) as usize],
            _ => std::slice::from_ref(value),
        }
    }

    /// Every posted hash with the documents holding it, in hash order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &[DocId])> {
        self.shards.iter().flatten().map(|entry| {
            let docs: &[DocId] = match entry[1] {
                v if v & LIST != 0 => &self.lists[(v & !LIST) as usize],
                _ => std::slice::from_ref(&entry[1]),
            };
            (entry[0], docs)
        })
    }

    pub fn len(&self, hash: u32) -> usize {
        self.get(hash).len()
    }

    /// No hash is posted.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Post `id` under `hash`; returns how many documents hold it now.
    pub fn insert(&mut self, hash: u32, id: DocId) -> usize {
        debug_assert!(id < LIST, "document ids stay below 2^31");
        let (shard, at) = self.find(hash);
        let i = match at {
            Ok(i) => i,
            Err(i) => {
                let entries = &mut self.shards[shard];
                if entries.len() == entries.capacity() {
                    // Grow by an eighth, not double: the spare is the cost.
                    entries.reserve_exact(entries.len() / 8 + 4);
                }
                entries.insert(i, [hash, id]);
                self.entries += 1;
                if self.entries > self.shards.len() * SHARD_ENTRIES {
                    self.split();
                }
                return 1;
            }
        };
        match self.shards[shard][i][1] {
            v if v & LIST != 0 => {
                let list = &mut self.lists[(v & !LIST) as usize];
                list.push(id);
                list.len()
            }
            single => {
                let slot = self.new_list(smallvec::smallvec![single, id]);
                self.set_value(shard, i, slot | LIST);
                2
            }
        }
    }

    /// Post a batch: `pairs` sorted by hash, a hash's documents in the
    /// order they are to be posted (the postings then equal posting them one
    /// at a time in that order). Returns each distinct hash of `pairs`, in
    /// order, with how many documents held it before. Each shard the batch
    /// reaches is merged once, where one insert at a time shifts half a
    /// shard per new hash.
    pub fn insert_sorted(&mut self, pairs: &[(u32, DocId)]) -> Vec<(u32, u32)> {
        // A batch of 4 KB texts brings each shard a hash or two: each is a
        // cache miss, asked for this many pairs ahead.
        const AHEAD: usize = 16;
        let mut before = Vec::new();
        let mut fresh: Vec<(usize, Entry)> = Vec::new();
        let mut at = 0;
        while at < pairs.len() {
            if let Some(ahead) = pairs.get(at + AHEAD) {
                self.prefetch_place(ahead.0);
            }
            let shard = self.shard_of(pairs[at].0);
            // A walk, not a bisection: a shard's part of a batch is short.
            let len = pairs[at..]
                .iter()
                .position(|p| self.shard_of(p.0) != shard)
                .unwrap_or(pairs.len() - at);
            fresh.clear();
            self.post_in_shard(shard, &pairs[at..at + len], &mut fresh, &mut before);
            merge_fresh(&mut self.shards[shard], &fresh);
            self.entries += fresh.len();
            at += len;
        }
        while self.entries > self.shards.len() * SHARD_ENTRIES {
            self.split();
        }
        before
    }

    /// The hashes of `pairs` (all in `shard`) already there take their new
    /// documents; the others are returned in `fresh`, in order, each with
    /// where it goes among the shard's entries.
    fn post_in_shard(
        &mut self,
        shard: usize,
        pairs: &[(u32, DocId)],
        fresh: &mut Vec<(usize, Entry)>,
        before: &mut Vec<(u32, u32)>,
    ) {
        let mut from = 0;
        for group in pairs.chunk_by(|a, b| a.0 == b.0) {
            let hash = group[0].0;
            let ids = group.iter().map(|&(_, id)| id);
            debug_assert!(group.iter().all(|&(_, id)| id < LIST));
            // The batch is sorted: search on from the last hash's place,
            // starting where the hash's value puts it.
            let guess = self.guess_in_shard(shard, hash).saturating_sub(from);
            let entries = &self.shards[shard];
            let i = from + gallop(&entries[from..], hash, guess).unwrap_or_else(|i| i);
            from = i;
            if i < entries.len() && entries[i][0] == hash {
                let value = entries[i][1];
                let list = match value {
                    v if v & LIST != 0 => &mut self.lists[(v & !LIST) as usize],
                    single => {
                        let mut list = List::new();
                        list.push(single);
                        let slot = self.new_list(list);
                        self.set_value(shard, i, slot | LIST);
                        &mut self.lists[slot as usize]
                    }
                };
                before.push((hash, list.len() as u32));
                list.extend(ids);
            } else {
                before.push((hash, 0));
                let value = match group {
                    [(_, single)] => *single,
                    _ => self.new_list(ids.collect()) | LIST,
                };
                fresh.push((i, [hash, value]));
            }
        }
    }

    /// A slot for `list` (a free one first).
    fn new_list(&mut self, list: List) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.lists[slot as usize] = list;
                slot
            }
            None => {
                self.lists.push(list);
                (self.lists.len() - 1) as u32
            }
        }
    }

    /// Take `id` off `hash`; returns how many documents hold it now.
    pub fn remove(&mut self, hash: u32, id: DocId) -> usize {
        let (shard, at) = self.find(hash);
        let Ok(i) = at else {
            return 0;
        };
        let v = self.shards[shard][i][1];
        if v & LIST == 0 {
            if v == id {
                self.shards[shard].remove(i);
                self.entries -= 1;
                return 0;
            }
            return 1;
        }
        let slot = (v & !LIST) as usize;
        let list = &mut self.lists[slot];
        if let Some(at) = list.iter().position(|&d| d == id) {
            list.swap_remove(at);
        }
        if list.len() == 1 {
            let single = list[0];
            self.lists[slot] = List::new();
            self.free.push(slot as u32);
            self.set_value(shard, i, single);
            return 1;
        }
        list.len()
    }

    /// Double the shards: each sorted shard splits at the next hash bit,
    /// one shard at a time (so only one is ever held twice).
    fn split(&mut self) {
        let bits = self.shard_bits + 1;
        let old = std::mem::take(&mut self.shards);
        let mut shards = Vec::with_capacity(old.len() * 2);
        for entries in old {
            let high = |e: &Entry| ((u64::from(e[0]) << bits) >> 32) & 1 == 1;
            let cut = entries.partition_point(|e| !high(e));
            shards.push(entries[..cut].to_vec());
            shards.push(entries[cut..].to_vec());
        }
        self.shards = shards;
        self.shard_bits = bits;
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        self.shards.capacity() * 24
            + self.shards.iter().map(|s| s.capacity() * 8).sum::<usize>()
            + self.lists.capacity() * 24
            + self
                .lists
                .iter()
                .filter(|l| l.spilled())
                .map(|l| l.capacity() * 4)
                .sum::<usize>()
    }
}

/// Where `hash` is (`Ok`) or would go (`Err`) in sorted `entries`,
/// searched outwards from `guess` in doubling steps, then bisected: a few
/// entries away from a good guess, one cache line or two.
fn gallop(entries: &[Entry], hash: u32, guess: usize) -> Result<usize, usize> {
    let n = entries.len();
    let below = |i: usize| entries[i][0] < hash;
    // The answer (the first entry not below `hash`) is in lo..=hi.
    let (mut lo, mut hi) = (0, n);
    let guess = guess.min(n);
    let mut step = 1;
    if guess < n && below(guess) {
        lo = guess + 1;
        loop {
            let probe = lo - 1 + step;
            if probe >= n {
                break;
            }
            if !below(probe) {
                hi = probe;
                break;
            }
            lo = probe + 1;
            step *= 2;
        }
    } else {
        hi = guess;
        while let Some(probe) = hi.checked_sub(step) {
            if below(probe) {
                lo = probe + 1;
                break;
            }
            hi = probe;
            step *= 2;
        }
    }
    let at = lo + entries[lo..hi].partition_point(|e| e[0] < hash);
    match entries.get(at) {
        Some(e) if e[0] == hash => Ok(at),
        _ => Err(at),
    }
}

/// The first place at or after `from` in sorted `hashes` whose hash is not
/// below `hash` (`hashes.len()` if none): searched from `from` in doubling
/// steps, so a walk over many increasing hashes costs little more than
/// one pass.
pub(super) fn first_not_below(hashes: &[u32], from: usize, hash: u32) -> usize {
    let (mut lo, mut step) = (from, 1);
    // Every hash in `from..lo` is below `hash`.
    let hi = loop {
        let probe = lo + step - 1;
        if probe >= hashes.len() {
            break hashes.len();
        }
        if hashes[probe] >= hash {
            break probe;
        }
        lo = probe + 1;
        step *= 2;
    };
    lo + hashes[lo..hi].partition_point(|&h| h < hash)
}

/// Merge `fresh` (sorted, none of its hashes in `entries`, each with the
/// index among `entries` it goes before) into sorted `entries`, from the
/// back, in place: the entries between two places move as one block, with
/// no comparison (a batch brings a shard a few new hashes among hundreds).
/// Grown by an eighth past the need.
fn merge_fresh(entries: &mut Vec<Entry>, fresh: &[(usize, Entry)]) {
    if fresh.is_empty() {
        return;
    }
    let (old, need) = (entries.len(), entries.len() + fresh.len());
    if need > entries.capacity() {
        entries.reserve_exact(need - old + need / 8 + 4);
    }
    entries.resize(need, [0, 0]);
    // Old entries `..unmoved` are still in place; `end` is where the
    // entries placed so far begin.
    let (mut unmoved, mut end) = (old, need);
    for &(at, entry) in fresh.iter().rev() {
        let block = unmoved - at;
        entries.copy_within(at..unmoved, end - block);
        end -= block + 1;
        entries[end] = entry;
        unmoved = at;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;

    use super::*;

    /// Hashes spread over the top bits, as sampled shingle hashes are.
    fn spread(h: u32) -> u32 {
        h.wrapping_mul(0x9E37_79B9)
    }

    proptest! {
        /// The doubling search finds what bisecting the rest finds, from
        /// any starting place at or before it.
        #[test]
        fn first_not_below_is_the_partition_point(
            mut hashes in prop::collection::vec(0u32..200, 0..100),
            probes in prop::collection::vec(0u32..210, 1..20),
        ) {
            hashes.sort_unstable();
            let mut probes = probes;
            probes.sort_unstable();
            let mut at = 0;
            for hash in probes {
                let found = first_not_below(&hashes, at, hash);
                prop_assert_eq!(found, hashes.partition_point(|&h| h < hash));
                at = found;
            }
        }
    }

    proptest! {
        /// Through inserts, removes and the shard splits they cause (a few
        /// thousand hashes split the one first shard several times), every
        /// hash names exactly the documents posted under it and not taken
        /// off.
        #[test]
        fn postings_hold_what_was_posted_through_splits(
            ops in proptest::collection::vec((0..1500u32, 0..4u32), 0..4000),
        ) {
            let mut p = Postings::default();
            let mut model: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
            for (h, id) in ops {
                let h = spread(h);
                let docs = model.entry(h).or_default();
                let now = if docs.insert(id) {
                    p.insert(h, id)
                } else {
                    docs.remove(&id);
                    p.remove(h, id)
                };
                prop_assert_eq!(now, docs.len());
            }
            for (h, docs) in &model {
                let mut got = p.get(*h).to_vec();
                got.sort_unstable();
                prop_assert_eq!(&got, &docs.iter().copied().collect::<Vec<_>>());
            }
            prop_assert_eq!(p.get(spread(1501)), &[] as &[u32]);
        }
    }

    proptest! {
        /// Posting batches through `insert_sorted` (with removes between
        /// them) leaves every hash naming the same documents, in the same
        /// order, as posting them one at a time, and tells each hash's
        /// count before the batch; the merges split the shards as inserts do.
        #[test]
        fn a_sorted_batch_posts_what_one_at_a_time_posts(
            batches in proptest::collection::vec(
                (
                    proptest::collection::vec((0..3000u32, 0..64u32), 0..1500),
                    proptest::collection::vec((0..3000u32, 0..64u32), 0..200),
                ),
                1..5,
            ),
        ) {
            let mut one = Postings::default();
            let mut batched = Postings::default();
            let mut seen: BTreeSet<u32> = BTreeSet::new();
            for (adds, removes) in batches {
                let mut pairs: Vec<(u32, u32)> = adds
                    .iter()
                    .map(|&(h, id)| (spread(h), id))
                    .collect();
                pairs.sort_by_key(|p| p.0);
                pairs.dedup();
                // Posted ids must be new to their hash, as a document's are.
                pairs.retain(|&(h, id)| !one.get(h).contains(&id));
                let mut expected = Vec::new();
                for group in pairs.chunk_by(|a, b| a.0 == b.0) {
                    expected.push((group[0].0, one.len(group[0].0) as u32));
                    for &(h, id) in group {
                        one.insert(h, id);
                    }
                }
                prop_assert_eq!(batched.insert_sorted(&pairs), expected);
                for &(h, id) in &removes {
                    let h = spread(h);
                    prop_assert_eq!(one.remove(h, id), batched.remove(h, id));
                }
                seen.extend(pairs.iter().map(|p| p.0));
            }
            for h in seen {
                prop_assert_eq!(one.get(h), batched.get(h));
            }
            prop_assert_eq!(one.entries, batched.entries);
            prop_assert!(batched.entries <= batched.shards.len() * SHARD_ENTRIES);
        }

        /// Outward search from any guess finds what bisection finds.
        #[test]
        fn the_search_from_a_guess_finds_what_bisection_finds(
            hashes in proptest::collection::btree_set(any::<u32>(), 0..300),
            probe in any::<u32>(),
            guess in 0..400usize,
        ) {
            let entries: Vec<Entry> = hashes.iter().map(|&h| [h, 0]).collect();
            let bisected = entries.binary_search_by_key(&probe, |e| e[0]);
            prop_assert_eq!(gallop(&entries, probe, guess), bisected);
            if let Some(&h) = hashes.iter().nth(guess % hashes.len().max(1)) {
                let bisected = entries.binary_search_by_key(&h, |e| e[0]);
                prop_assert_eq!(gallop(&entries, h, guess), bisected);
            }
        }
    }

    #[test]
    fn a_hash_in_one_document_costs_under_nine_bytes() {
        // 120,000 single-document hashes: a hash table would keep 262,144
        // buckets of nine bytes (~20 bytes a hash) once past its 7/8 load.
        let mut p = Postings::default();
        let n = 120_000u32;
        for h in 0..n {
            p.insert(spread(h), h % 1000);
        }
        let per_hash = p.heap_bytes() as f64 / f64::from(n);
        assert!(per_hash < 9.0, "{per_hash:.2} bytes a hash");
        assert_eq!(p.get(spread(77)), &[77]);
    }

    #[test]
    fn a_hash_in_a_few_documents_allocates_nothing_more() {
        // Two to four documents sit inline, in what an empty list takes.
        assert_eq!(
            std::mem::size_of::<List>(),
            std::mem::size_of::<Vec<DocId>>()
        );
        let mut p = Postings::default();
        for id in 0..4 {
            p.insert(7, id);
        }
        let inline = p.heap_bytes();
        p.insert(7, 4);
        assert_eq!(p.get(7), &[0, 1, 2, 3, 4]);
        assert!(
            p.heap_bytes() > inline,
            "the fifth moves the list to the heap"
        );
    }

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
