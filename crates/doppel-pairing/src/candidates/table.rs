//! The candidate tables' one table: 32-bit slots → the documents filed
//! under them, for every key of every algorithm.
//!
//! A large library files tens of millions of keys (about 250 a document),
//! so this table is most of a library's memory, and it is built to spend 6
//! bytes a posting: it is split into shards by the slot's top bits (filed in
//! parallel), and each shard keeps its postings sorted by slot in two
//! parallel arrays, the slot's low 16 bits and the document, with a
//! directory of where each run of slots sharing the bits in between starts.
//! A slot shared by several documents is simply several postings in a row,
//! in filing order. Postings filed since the last merge wait in a small hash
//! map, merged in once they are an eighth of the sorted ones; a removed
//! posting is marked vacant until then.
//!
//! Most keys are a document's own (19.7 M of 32.5 M at 110k texts: a
//! MinHash band, a sampled shingle no other text has), and looking one up
//! costs three dependent cache misses to find the one posting, the
//! document itself.
//! So each shard also keeps a bit per few postings, set for every slot that
//! may hold two or more: a filed document's query passes over its slots
//! whose bit is clear after one miss ([`Table::postings_of_each_filed`]).

use rayon::prelude::*;
use smallvec::{smallvec, SmallVec};

use super::restore::Arena;
use super::DocId;
use doppel_core::hash::{prefetch, HashKeyed32};

/// Slots → documents, in [`Table::SHARDS`] shards by the slot's top bits.
#[derive(Debug, Clone)]
pub(super) struct Table {
    shards: Vec<Shard>,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            shards: vec![Shard::default(); Table::SHARDS],
        }
    }
}

/// Bits of a slot that pick its shard (the top ones).
const SHARD_BITS: u32 = 4;

/// The slot bits a shard orders its postings by.
const SHARD_MASK: u32 = u32::MAX >> SHARD_BITS;

impl Table {
    pub const SHARDS: usize = 1 << SHARD_BITS;

    fn shard(slot: u32) -> usize {
        (slot >> (32 - SHARD_BITS)) as usize
    }

    pub fn insert(&mut self, slot: u32, id: DocId) {
        let shard = &mut self.shards[Self::shard(slot)];
        shard.insert(slot & SHARD_MASK, id);
        shard.settle();
    }

    pub fn remove(&mut self, slot: u32, id: DocId) {
        let shard = &mut self.shards[Self::shard(slot)];
        shard.remove(slot & SHARD_MASK, id);
        shard.settle();
    }

    #[cfg(test)]
    pub fn postings(&self, slot: u32) -> Postings<'_> {
        self.shards[Self::shard(slot)].postings(slot & SHARD_MASK)
    }

    #[cfg(test)]
    fn may_be_shared(&self, slot: u32) -> bool {
        self.shards[Self::shard(slot)].may_be_shared(slot & SHARD_MASK)
    }

    /// How many keys ahead of the one searched [`Table::postings_of_each`]
    /// fetches each stage.
    const LOOKUP_AHEAD: usize = 8;

    /// [`Table::postings`] of each of `slots`, handed to `visit` in order
    /// with the slot's index. A lookup is three dependent reads far apart
    /// in a large table (the directory entry, the run's lows, its ids),
    /// each a cache miss; looked up one after another, a document's keys
    /// wait for each in turn. So the lookups are pipelined: while one key
    /// is searched, the run of the key [`Table::LOOKUP_AHEAD`] later starts
    /// loading, and the directory entry of the one after that, so the
    /// misses overlap.
    pub fn postings_of_each<'a>(
        &'a self,
        slots: &[u32],
        mut visit: impl FnMut(usize, Postings<'a>),
    ) {
        const AHEAD: usize = Table::LOOKUP_AHEAD;
        // Key i's run, from when it is fetched (i + AHEAD) to when it is
        // searched (i + 2 AHEAD): no two keys in flight share an entry.
        let mut runs = [(0usize, 0usize); 2 * AHEAD];
        let shard = |slot: u32| &self.shards[Self::shard(slot)];
        for i in 0..slots.len() + 2 * AHEAD {
            if let Some(&slot) = slots.get(i) {
                shard(slot).prefetch_directory(slot & SHARD_MASK);
            }
            if let Some(j) = i.checked_sub(AHEAD).filter(|&j| j < slots.len()) {
                let slot = slots[j];
                runs[j % (2 * AHEAD)] = shard(slot).prefetch_run(slot & SHARD_MASK);
            }
            if let Some(j) = i.checked_sub(2 * AHEAD).filter(|&j| j < slots.len()) {
                let (shard, slot) = (shard(slots[j]), slots[j] & SHARD_MASK);
                let merged = shard.merged_in(runs[j % (2 * AHEAD)], slot);
                visit(j, shard.postings_from(merged, slot));
            }
        }
    }

    /// [`Table::postings_of_each`] for document `id`, filed under every
    /// one of `slots`, passing over the slots no other document can share:
    /// those whose shard says they hold one posting at most, which is
    /// `id`'s own. Their postings would propose nothing, and telling them
    /// apart costs one cache miss instead of a lookup's three.
    pub fn postings_of_each_filed<'a>(
        &'a self,
        id: DocId,
        slots: &[u32],
        mut visit: impl FnMut(usize, Postings<'a>),
    ) {
        // The bits of the keys this many ahead start loading.
        const AHEAD: usize = 2 * Table::LOOKUP_AHEAD;
        let shard = |slot: u32| &self.shards[Self::shard(slot)];
        let mut shared = Vec::with_capacity(slots.len());
        let mut at = Vec::with_capacity(slots.len());
        for (i, &slot) in slots.iter().enumerate() {
            if let Some(&ahead) = slots.get(i + AHEAD) {
                shard(ahead).prefetch_shared(ahead & SHARD_MASK);
            }
            if shard(slot).may_be_shared(slot & SHARD_MASK) {
                shared.push(slot);
                at.push(i);
            } else {
                debug_assert!(
                    shard(slot)
                        .postings(slot & SHARD_MASK)
                        .iter()
                        .all(|other| other == id),
                    "document {id} is not filed under slot {slot:#x}, which holds another"
                );
            }
        }
        self.postings_of_each(&shared, |j, postings| visit(at[j], postings));
    }

    /// Whether no posting is filed.
    pub fn is_empty(&self) -> bool {
        self.shards
            .iter()
            .all(|s| s.ids.is_empty() && s.recent.is_empty())
    }

    /// An empty batch of postings for [`Table::file_batch`], one list per
    /// shard, with room for about `expected` in all.
    pub fn batch(&self, expected: usize) -> Vec<Vec<(u32, DocId)>> {
        // Uniform slots: each shard gets about its share, plus slack.
        let share = expected / Self::SHARDS * 9 / 8 + 16;
        (0..Self::SHARDS)
            .map(|_| Vec::with_capacity(share))
            .collect()
    }

    pub fn add_to_batch(batch: &mut [Vec<(u32, DocId)>], slot: u32, id: DocId) {
        batch[Self::shard(slot)].push((slot & SHARD_MASK, id));
    }

    /// File a batch of postings, in order within each slot, the shards in
    /// parallel.
    pub fn file_batch(&mut self, batch: Vec<Vec<(u32, DocId)>>) {
        self.shards
            .par_iter_mut()
            .zip(batch)
            .for_each(|(shard, postings)| {
                // A batch that is large next to the shard (a scan's first
                // ones, a reopen) is sorted and merged in one pass.
                if postings.len() * 8 >= shard.ids.len() {
                    shard.file_all(postings);
                    return;
                }
                for (slot, id) in postings {
                    shard.insert(slot, id);
                }
                shard.settle();
            });
    }
}

impl Table {
    /// Shards [`Table::fill_group`] fills at a time.
    pub const GROUP: usize = 4;

    /// The group of shards a slot's shard is in.
    pub fn group(slot: u32) -> usize {
        Self::shard(slot) / Self::GROUP
    }

    /// Fill the empty shards of group `group` with the postings in `arena`
    /// ([`fill_shards`]).
    pub(super) fn fill_group(&mut self, group: usize, arena: Arena) {
        let first = group * Self::GROUP;
        fill_shards(&mut self.shards[first..first + Self::GROUP], first, arena);
    }

    /// [`Table::fill_group`] of each group from `from` on with its arena
    /// (`arenas[0]` is group `from`'s), the groups in parallel: their
    /// shards are disjoint, and a group filled alone is mostly one
    /// thread's counting and placing (~2.6 s at 110k texts).
    pub(super) fn fill_groups(&mut self, from: usize, arenas: Vec<Arena>) {
        self.shards[from * Self::GROUP..]
            .par_chunks_mut(Self::GROUP)
            .zip(arenas)
            .enumerate()
            .for_each(|(k, (shards, arena))| fill_shards(shards, (from + k) * Self::GROUP, arena));
    }
}

/// Fill empty `shards` (a group's, the first of them shard `first`) with
/// the postings in `arena` (that group's slots and the documents owning
/// them; a slot's documents are filed in that order): counted by shard
/// and directory run, placed straight into the arrays they end in (a
/// counting sort, no room beyond those arrays), then each run sorted by
/// slot.
fn fill_shards(shards: &mut [Shard], first: usize, arena: Arena) {
    debug_assert!(
        shards
            .iter()
            .all(|s| s.ids.is_empty() && s.recent.is_empty()),
        "filled only when empty"
    );
    let mut per_shard = [0usize; Table::GROUP];
    for slot in arena.slots() {
        per_shard[Table::shard(slot) - first] += 1;
    }
    let mut next: Vec<Vec<u32>> = shards
        .iter_mut()
        .zip(per_shard)
        .map(|(shard, count)| {
            shard.directory_bits = Shard::directory_bits_for(count);
            shard.lows = vec![0; count];
            shard.ids = vec![0; count];
            vec![0u32; (1 << shard.directory_bits) + 1]
        })
        .collect();
    for slot in arena.slots() {
        let s = Table::shard(slot) - first;
        next[s][shards[s].run(slot & SHARD_MASK) + 1] += 1;
    }
    for (shard, next) in shards.iter_mut().zip(&mut next) {
        for run in 1..next.len() {
            next[run] += next[run - 1];
        }
        shard.directory = next.clone();
    }
    for (id, slots) in arena.owned() {
        for &slot in slots {
            let s = Table::shard(slot) - first;
            let shard = &mut shards[s];
            let slot = slot & SHARD_MASK;
            let at = &mut next[s][shard.run(slot)];
            shard.lows[*at as usize] = shard.low(slot);
            shard.ids[*at as usize] = id;
            *at += 1;
        }
    }
    drop(arena);
    shards.par_iter_mut().for_each(|shard| {
        shard.sort_runs();
        shard.mark_shared_slots();
    });
}

/// The documents filed under one slot: the merged ones (vacant entries
/// skipped), then the recent ones, in filing order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Postings<'a> {
    merged: &'a [DocId],
    recent: &'a [DocId],
}

impl<'a> Postings<'a> {
    pub fn iter(&self) -> impl Iterator<Item = DocId> + 'a {
        self.merged
            .iter()
            .copied()
            .filter(|&id| id != Shard::VACANT)
            .chain(self.recent.iter().copied())
    }

    /// An upper bound of the number of documents (vacant entries counted).
    pub fn bound(&self) -> usize {
        self.merged.len() + self.recent.len()
    }
}

/// The documents of a recent slot shared by several (near-duplicates share
/// most of their keys, so mostly two or three): inline, no allocation.
type IdList = SmallVec<[DocId; 2]>;

/// One shard: slots are the 28 bits below the shard bits.
#[derive(Debug, Clone)]
struct Shard {
    /// Merged postings sorted by slot, stably: each one's slot bits below
    /// the directory's ...
    lows: Vec<u16>,
    /// ... and its document ([`Shard::VACANT`] once removed, until the
    /// next merge).
    ids: Vec<DocId>,
    /// Where the postings whose slots share their top `directory_bits`
    /// (below the shard bits) start; one more entry than runs.
    directory: Vec<u32>,
    directory_bits: u32,
    /// Vacant merged postings.
    vacant: usize,
    /// Postings filed since the last merge: a slot's document, or
    /// [`Shard::LIST`] | the index of its list in `lists`.
    recent: HashKeyed32<u32>,
    lists: Vec<IdList>,
    /// Indexes of emptied lists, reused first.
    free: Vec<u32>,
    /// Postings in `recent` (lists counted in full).
    recent_postings: usize,
    /// [`Shard::SHARED_BITS`] bits per merged posting, each standing for
    /// the slots with its low bits: set for every slot that holds two
    /// postings or more (and so for the slots sharing its bit, and for
    /// those filed since the last merge). Empty: none kept, any slot may
    /// hold several.
    shared: Vec<u64>,
}

impl Default for Shard {
    fn default() -> Self {
        Shard {
            lows: Vec::new(),
            ids: Vec::new(),
            directory: vec![0; (1 << Shard::MIN_DIRECTORY_BITS) + 1],
            directory_bits: Shard::MIN_DIRECTORY_BITS,
            vacant: 0,
            recent: HashKeyed32::default(),
            lists: Vec::new(),
            free: Vec::new(),
            recent_postings: 0,
            shared: Vec::new(),
        }
    }
}

impl Shard {
    const LIST: u32 = 1 << 31;
    const VACANT: DocId = u32::MAX;
    /// Slots have 28 bits here; at least 12 in the directory leave at most
    /// 16 to store per posting.
    const MIN_DIRECTORY_BITS: u32 = 32 - SHARD_BITS - 16;
    /// Bits of [`Shard::shared`] per merged posting, rounded up to a power
    /// of two (at 110k texts, 16 MB, and a lookup for 3 % of the slots
    /// holding one posting, whose bit another slot set).
    const SHARED_BITS: usize = 4;

    fn low_bits(&self) -> u32 {
        32 - SHARD_BITS - self.directory_bits
    }

    fn run(&self, slot: u32) -> usize {
        (slot >> self.low_bits()) as usize
    }

    fn low(&self, slot: u32) -> u16 {
        (slot & ((1 << self.low_bits()) - 1)) as u16
    }

    /// Where run `run`'s merged postings start and end in `lows`/`ids`.
    fn run_bounds(&self, run: usize) -> (usize, usize) {
        (
            self.directory[run] as usize,
            self.directory[run + 1] as usize,
        )
    }

    /// The merged postings of `slot`: a range of `lows`/`ids`.
    fn merged(&self, slot: u32) -> std::ops::Range<usize> {
        self.merged_in(self.run_bounds(self.run(slot)), slot)
    }

    /// [`Shard::merged`] given the range of `slot`'s run.
    fn merged_in(&self, (from, to): (usize, usize), slot: u32) -> std::ops::Range<usize> {
        let low = self.low(slot);
        let lows = &self.lows[from..to];
        let start = lows.partition_point(|&l| l < low);
        let end = start + lows[start..].partition_point(|&l| l == low);
        from + start..from + end
    }

    fn insert(&mut self, slot: u32, id: DocId) {
        debug_assert!(id < Self::LIST, "document ids stay below 2^31");
        self.mark_shared(slot);
        self.recent_postings += 1;
        let value = self.recent.entry(slot).or_insert(Self::VACANT);
        let v = *value;
        if v == Self::VACANT {
            *value = id;
        } else if v & Self::LIST != 0 {
            self.lists[(v & !Self::LIST) as usize].push(id);
        } else {
            *value = Self::new_list_in(&mut self.lists, &mut self.free, smallvec![v, id]);
        }
    }

    /// Store a list of two or more ids; the slot value that points at it.
    /// (Takes the two fields, not `self`: callers hold a slot's value.)
    fn new_list_in(lists: &mut Vec<IdList>, free: &mut Vec<u32>, ids: IdList) -> u32 {
        let i = match free.pop() {
            Some(i) => {
                lists[i as usize] = ids;
                i
            }
            None => {
                lists.push(ids);
                (lists.len() - 1) as u32
            }
        };
        debug_assert!(i < Self::LIST, "list indexes stay below 2^31");
        i | Self::LIST
    }

    /// Take one posting of `id` under `slot` away (the earliest filed: a
    /// document filed twice under a shared slot stays filed once).
    fn remove(&mut self, slot: u32, id: DocId) {
        if !self.ids.is_empty() {
            let range = self.merged(slot);
            if let Some(i) = self.ids[range.clone()].iter().position(|&d| d == id) {
                self.ids[range.start + i] = Self::VACANT;
                self.vacant += 1;
                return;
            }
        }
        let Some(&v) = self.recent.get(&slot) else {
            return;
        };
        if v & Self::LIST == 0 {
            if v == id {
                self.recent.remove(&slot);
                self.recent_postings -= 1;
            }
            return;
        }
        let i = (v & !Self::LIST) as usize;
        let ids = &mut self.lists[i];
        let Some(at) = ids.iter().position(|&d| d == id) else {
            return;
        };
        ids.remove(at);
        self.recent_postings -= 1;
        if ids.len() == 1 {
            let single = ids[0];
            self.lists[i] = IdList::new();
            self.free.push(i as u32);
            self.recent.insert(slot, single);
        }
    }

    /// The word of [`Shard::shared`] holding `slot`'s bit, and the bit.
    fn shared_bit(&self, slot: u32) -> (usize, u64) {
        let bit = slot as usize & (self.shared.len() * 64 - 1);
        (bit / 64, 1 << (bit % 64))
    }

    /// Whether `slot` may hold two postings or more.
    fn may_be_shared(&self, slot: u32) -> bool {
        if self.shared.is_empty() {
            return true;
        }
        let (word, bit) = self.shared_bit(slot);
        self.shared[word] & bit != 0
    }

    fn mark_shared(&mut self, slot: u32) {
        if !self.shared.is_empty() {
            let (word, bit) = self.shared_bit(slot);
            self.shared[word] |= bit;
        }
    }

    /// Start loading `slot`'s word of [`Shard::shared`].
    fn prefetch_shared(&self, slot: u32) {
        if !self.shared.is_empty() {
            prefetch(&self.shared, self.shared_bit(slot).0);
        }
    }

    /// [`Shard::shared`] anew for the merged postings (sorted by slot, nothing
    /// recent): a slot's postings are in a row, so a posting with the same
    /// slot as the one before marks it.
    fn mark_shared_slots(&mut self) {
        debug_assert!(self.recent.is_empty(), "marked right after a merge");
        self.shared = Vec::new();
        if self.ids.is_empty() {
            return;
        }
        let words = (self.ids.len() * Self::SHARED_BITS).next_power_of_two() / 64;
        self.shared = vec![0; words.max(1)];
        let low_bits = self.low_bits();
        for run in 0..self.directory.len() - 1 {
            let (from, to) = self.run_bounds(run);
            for i in from + 1..to {
                if self.lows[i] == self.lows[i - 1] {
                    let slot = (run as u32) << low_bits | u32::from(self.lows[i]);
                    self.mark_shared(slot);
                }
            }
        }
    }

    /// Start loading the directory entry of `slot`'s run.
    fn prefetch_directory(&self, slot: u32) {
        if !self.ids.is_empty() {
            prefetch(&self.directory, self.run(slot));
        }
    }

    /// The range of `slot`'s run (empty when nothing is merged), whose
    /// lows and ids start loading.
    fn prefetch_run(&self, slot: u32) -> (usize, usize) {
        if self.ids.is_empty() {
            return (0, 0);
        }
        let run = self.run(slot);
        let (from, to) = self.run_bounds(run);
        if from < to {
            prefetch(&self.lows, from);
            prefetch(&self.ids, from);
        }
        (from, to)
    }

    fn postings(&self, slot: u32) -> Postings<'_> {
        let merged = if self.ids.is_empty() {
            0..0
        } else {
            self.merged(slot)
        };
        self.postings_from(merged, slot)
    }

    /// The postings of `slot`, whose merged ones are `merged`.
    fn postings_from(&self, merged: std::ops::Range<usize>, slot: u32) -> Postings<'_> {
        let merged = &self.ids[merged];
        // Most lookups come after a merge, with nothing recent to hash.
        let recent = if self.recent.is_empty() {
            None
        } else {
            self.recent.get(&slot)
        };
        let recent = match recent {
            None => &[][..],
            Some(v) if v & Self::LIST != 0 => &self.lists[(v & !Self::LIST) as usize][..],
            Some(v) => std::slice::from_ref(v),
        };
        Postings { merged, recent }
    }

    /// Merge the recent postings in once they are an eighth of the merged
    /// ones (so merging costs O(1) per posting over time), or once a
    /// quarter of those are vacant.
    fn settle(&mut self) {
        let merged = self.ids.len();
        if self.recent_postings > merged / 8 + 64 || self.vacant > merged / 4 + 64 {
            self.merge();
        }
    }

    /// The recent postings as (slot, id), sorted by slot and in filing
    /// order within one; the map and lists left empty.
    fn take_recent(&mut self) -> Vec<(u32, DocId)> {
        let mut recent = Vec::with_capacity(self.recent_postings);
        for (slot, v) in self.recent.drain() {
            if v & Self::LIST != 0 {
                let ids = &self.lists[(v & !Self::LIST) as usize];
                recent.extend(ids.iter().map(|&id| (slot, id)));
            } else {
                recent.push((slot, v));
            }
        }
        self.recent.shrink_to_fit();
        self.lists = Vec::new();
        self.free = Vec::new();
        self.recent_postings = 0;
        // Stable: a slot's postings came out of its list in order.
        radsort::sort_by_key(&mut recent, |&(slot, _)| slot);
        recent
    }

    fn merge(&mut self) {
        let recent = self.take_recent();
        self.rebuild(recent);
    }

    /// About eight postings a run.
    fn directory_bits_for(count: usize) -> u32 {
        (count / 8)
            .max(1)
            .ilog2()
            .clamp(Self::MIN_DIRECTORY_BITS, 32 - SHARD_BITS)
    }

    /// Sort each run's postings by slot, stably (a run is a handful).
    fn sort_runs(&mut self) {
        for run in 0..self.directory.len() - 1 {
            let (from, to) = self.run_bounds(run);
            for i in from + 1..to {
                let (low, id) = (self.lows[i], self.ids[i]);
                let mut j = i;
                while j > from && self.lows[j - 1] > low {
                    self.lows[j] = self.lows[j - 1];
                    self.ids[j] = self.ids[j - 1];
                    j -= 1;
                }
                self.lows[j] = low;
                self.ids[j] = id;
            }
        }
    }

    /// File many postings at once: sorted, then merged in one pass. The
    /// same postings, in the same order, as inserting them one by one.
    fn file_all(&mut self, mut postings: Vec<(u32, DocId)>) {
        let mut recent = self.take_recent();
        radsort::sort_by_key(&mut postings, |&(slot, _)| slot);
        if !recent.is_empty() {
            recent = merge_sorted(recent, postings);
        } else {
            recent = postings;
        }
        self.rebuild(recent);
    }

    /// The merged postings with `newer` (sorted by slot) merged in after
    /// them, vacant ones dropped, and the directory sized for the total.
    fn rebuild(&mut self, newer: Vec<(u32, DocId)>) {
        let live = self.ids.len() - self.vacant + newer.len();
        let old_low_bits = self.low_bits();
        let (old_lows, old_ids, old_directory) = (
            std::mem::take(&mut self.lows),
            std::mem::take(&mut self.ids),
            std::mem::take(&mut self.directory),
        );
        self.directory_bits = Self::directory_bits_for(live);
        let runs = 1usize << self.directory_bits;
        let low_bits = self.low_bits();
        let mut lows = Vec::with_capacity(live);
        let mut ids = Vec::with_capacity(live);
        let mut directory = Vec::with_capacity(runs + 1);
        let mut push = |slot: u32, id: DocId| {
            let run = (slot >> low_bits) as usize;
            while directory.len() <= run {
                directory.push(lows.len() as u32);
            }
            lows.push((slot & ((1 << low_bits) - 1)) as u16);
            ids.push(id);
        };
        // The old postings come out in slot order run by run; the newer
        // ones go after the old ones of their slot.
        let mut newer = newer.into_iter().peekable();
        for run in 0..old_directory.len().saturating_sub(1) {
            let base = (run as u32) << old_low_bits;
            for i in old_directory[run] as usize..old_directory[run + 1] as usize {
                let slot = base | u32::from(old_lows[i]);
                while let Some((s, id)) = newer.next_if(|&(s, _)| s < slot) {
                    push(s, id);
                }
                if old_ids[i] != Self::VACANT {
                    push(slot, old_ids[i]);
                }
            }
        }
        for (s, id) in newer {
            push(s, id);
        }
        while directory.len() <= runs {
            directory.push(lows.len() as u32);
        }
        self.lows = lows;
        self.ids = ids;
        self.directory = directory;
        self.vacant = 0;
        self.mark_shared_slots();
    }

    #[cfg(test)]
    fn heap_bytes(&self) -> usize {
        self.lows.capacity() * 2
            + self.ids.capacity() * 4
            + self.directory.capacity() * 4
            + self.recent.capacity() * 9
            + self.lists.capacity() * std::mem::size_of::<IdList>()
            + self.shared.capacity() * 8
    }
}

/// Two runs sorted by slot merged into one, `a`'s postings of a slot
/// before `b`'s.
fn merge_sorted(a: Vec<(u32, DocId)>, b: Vec<(u32, DocId)>) -> Vec<(u32, DocId)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        out.push(if y.0 < x.0 { b.next() } else { a.next() }.expect("peeked"));
    }
    out.extend(a);
    out.extend(b);
    out
}

#[cfg(test)]
mod tests;
