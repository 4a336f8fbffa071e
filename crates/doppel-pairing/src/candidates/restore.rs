//! Documents' slots gathered to be filed in the tables at once, by a
//! counting sort per group of shards, rather than merged in a chunk after
//! another: a reopen's (from their stored entries, [`Restore`]) and those
//! a fresh library files to pair later
//! ([`CandidateTables::insert_many_later`]). Past
//! [`SPILL_AFTER_SLOTS`] a fresh library does not hold them while it reads:
//! they are given back before the tables are filled
//! ([`CandidateTables::file_spilled`]).

use rayon::prelude::*;

use super::table::Table;
use super::{CandidateTables, DocKeys, KeyCounts};
use doppel_core::doc::DocId;
use doppel_core::engine::Fingerprints;

/// Slots (4 bytes each) the documents filed to be paired later keep in
/// memory until pairing; the slots of those after them are not held but
/// given back when pairing starts ([`CandidateTables::file_spilled`]:
/// from the entries an index stored, else derived from the full prints).
/// A fresh index of 110k texts files 35 M slots (141 MB) while its
/// boilerplate learner is at its largest; giving them back costs a read
/// of those documents' entries (0.9 s at 110k).
pub const SPILL_AFTER_SLOTS: usize = 8 << 20;

/// Documents being restored from their stored entries ([`DocKeys`]),
/// gathered to be filed by [`CandidateTables::file_restored`]: their slots
/// in one arena per group of the table's shards, 4 bytes a key, each freed
/// once its shards are filled.
#[derive(Debug, Clone, Default)]
pub struct Restore {
    arenas: Vec<Arena>,
    /// Slots in the arenas.
    slots: usize,
    counts: Vec<(DocId, KeyCounts)>,
    si: Vec<(u64, DocId)>,
    /// Groups of shards filled so far.
    filled: usize,
}

impl Restore {
    /// Gather document `id`'s keys (and SI index) to be filed.
    pub fn add(&mut self, id: DocId, keys: &DocKeys, si: Option<u64>) {
        self.add_slots(id, &keys.slots);
        self.counts.push((id, keys.counts));
        if let Some(si) = si {
            self.si.push((si, id));
        }
    }

    /// Gather document `id`'s `slots` into their groups' arenas.
    fn add_slots(&mut self, id: DocId, slots: &[u32]) {
        if self.arenas.is_empty() {
            self.arenas = vec![Arena::default(); Table::SHARDS / Table::GROUP];
        }
        // A document's slots are stored sorted, so each group's (the top
        // bits) are a run of them.
        let sorted;
        let mut slots = slots;
        if !slots.is_sorted() {
            sorted = {
                let mut s = slots.to_vec();
                s.sort_unstable();
                s
            };
            slots = &sorted;
        }
        self.slots += slots.len();
        let groups = self.arenas.len();
        for (g, arena) in self.arenas.iter_mut().enumerate() {
            let end = slots.partition_point(|&s| Table::group(s) <= g);
            if end > 0 {
                arena.push(id, &slots[..end]);
            }
            slots = &slots[end..];
            debug_assert!(g + 1 < groups || slots.is_empty());
        }
    }
}

/// Slots of one group of shards, and the documents owning them, in blocks
/// of about [`Arena::BLOCK`] slots. A fresh index's arenas grow with every
/// document it reads (35 MB each at 110k texts): in blocks, growing one
/// never copies it into a vector twice its size.
#[derive(Debug, Clone, Default)]
pub(crate) struct Arena {
    blocks: Vec<ArenaBlock>,
}

/// Some documents' slots, each owner's running from its start to the next
/// owner's (or the end).
#[derive(Debug, Clone, Default)]
struct ArenaBlock {
    slots: Vec<u32>,
    owners: Vec<(DocId, u32)>,
}

impl Arena {
    /// Slots a block holds (4 MiB) unless one document brings more.
    const BLOCK: usize = 1 << 20;

    /// File document `id`'s `slots` (not empty), kept together in one block.
    pub fn push(&mut self, id: DocId, slots: &[u32]) {
        let fits = |b: &ArenaBlock| b.slots.len() + slots.len() <= Self::BLOCK;
        if !self.blocks.last().is_some_and(fits) {
            // The first block grows as a vector does (small collections
            // stay small); the ones after it are full-sized from the start.
            let room = if self.blocks.is_empty() {
                0
            } else {
                Self::BLOCK.max(slots.len())
            };
            self.blocks.push(ArenaBlock {
                slots: Vec::with_capacity(room),
                owners: Vec::new(),
            });
        }
        let block = self.blocks.last_mut().expect("a block with room");
        block.owners.push((id, block.slots.len() as u32));
        block.slots.extend_from_slice(slots);
    }

    /// Every slot, in filing order.
    pub fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.blocks.iter().flat_map(|b| b.slots.iter().copied())
    }

    /// Each document with its slots, in filing order.
    pub fn owned(&self) -> impl Iterator<Item = (DocId, &[u32])> + '_ {
        self.blocks.iter().flat_map(|b| {
            b.owners.iter().enumerate().map(|(i, &(id, start))| {
                let end = b.owners.get(i + 1).map_or(b.slots.len(), |o| o.1 as usize);
                (id, &b.slots[start as usize..end])
            })
        })
    }
}

impl CandidateTables {
    /// [`CandidateTables::insert_many`] of documents to be paired later
    /// ([`crate::library::Library::admit_unpaired`]). Into tables
    /// that hold nothing filed yet (a fresh library, or a reopen's slots not
    /// yet filled), their slots are gathered as a reopen's are
    /// ([`Restore`]) and filled in at once, a counting sort per group of
    /// shards, when first needed: not merged into the tables chunk after
    /// chunk. The same postings in the same order either way.
    pub fn insert_many_later(&mut self, docs: &[(DocId, &Fingerprints)]) -> Vec<DocKeys> {
        let nothing_filed = match &self.unfiled {
            Some(restore) => restore.filled == 0,
            None => self.tables.is_empty(),
        };
        if !nothing_filed {
            return self.insert_many(docs);
        }
        self.keyed_in_chunks(docs, |tables, id, keys, si| {
            tables.set_key_counts(id, keys.counts);
            if let Some(si) = si {
                tables.si.insert((si, id));
            }
            let restore = tables.unfiled.get_or_insert_with(Restore::default);
            if restore.slots < tables.spill_after && tables.spilled.is_empty() {
                restore.add_slots(id, &keys.slots);
            } else {
                tables.spilled.push(id);
            }
        })
    }

    /// Keep at most `slots` of the documents filed to be paired later in
    /// memory ([`SPILL_AFTER_SLOTS`] unless told; `usize::MAX`: all).
    pub fn set_spill_after(&mut self, slots: usize) {
        self.spill_after = slots;
    }

    /// The documents filed to be paired later whose slots are still to be
    /// given back ([`CandidateTables::file_spilled`]), in the order they
    /// must be.
    pub fn spilled(&self) -> &[DocId] {
        &self.spilled[self.spilled_back..]
    }

    /// The keys of documents from their full fingerprints, derived in
    /// parallel, for [`CandidateTables::file_spilled`] (`None`: lost).
    pub fn spilled_keys(
        &self,
        docs: &[(DocId, Option<&Fingerprints>)],
    ) -> Vec<(DocId, Option<DocKeys>)> {
        docs.par_iter()
            .map(|&(id, f)| (id, f.map(|f| self.doc_keys(f))))
            .collect()
    }

    /// Give back the slots of the next of [`CandidateTables::spilled`]
    /// ([`CandidateTables::spilled_keys`]; `None`: the prints were lost,
    /// so the document is in no posting list and proposes nothing, as when
    /// its prints are missing at pairing).
    pub fn file_spilled(&mut self, keyed: Vec<(DocId, Option<DocKeys>)>) {
        let restore = self
            .unfiled
            .as_mut()
            .expect("spilled documents wait in a restore");
        for (id, keys) in keyed {
            assert_eq!(
                self.spilled.get(self.spilled_back),
                Some(&id),
                "spilled documents given back in filing order"
            );
            if let Some(keys) = keys {
                restore.add_slots(id, &keys.slots);
            }
            self.spilled_back += 1;
        }
        if self.spilled_back == self.spilled.len() {
            self.spilled = Vec::new();
            self.spilled_back = 0;
        }
    }

    /// File the documents gathered in `restore` (a reopen, into an empty
    /// index). Their slots go into the tables when first needed.
    pub fn file_restored(&mut self, mut restore: Restore) {
        debug_assert!(self.unfiled.is_none(), "restored once");
        for (id, counts) in std::mem::take(&mut restore.counts) {
            self.set_key_counts(id, counts);
        }
        self.si.extend(std::mem::take(&mut restore.si));
        self.unfiled = Some(restore);
    }

    /// Fill the tables with the restored documents' slots, if that is
    /// still to do (every change does it first).
    pub fn fill_restored(&mut self) {
        assert!(
            self.spilled.is_empty(),
            "the tables filled before their spilled slots were given back"
        );
        let Some(restore) = self.unfiled.take() else {
            return;
        };
        let arenas = restore.arenas.into_iter().skip(restore.filled).collect();
        self.tables.fill_groups(restore.filled, arenas);
    }

    /// Fill part of the tables with the restored documents' slots, a step
    /// an idle caller can take between others; whether more is to do.
    pub fn fill_restored_some(&mut self) -> bool {
        let Some(restore) = self.unfiled.as_mut().filter(|_| self.spilled.is_empty()) else {
            return false;
        };
        if let Some(arena) = restore.arenas.get_mut(restore.filled) {
            let arena = std::mem::take(arena);
            self.tables.fill_group(restore.filled, arena);
        }
        restore.filled += 1;
        if restore.filled >= Table::SHARDS / Table::GROUP {
            self.unfiled = None;
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arena grows a block at a time: each document's slots stay whole
    /// and in filing order, a block holds at most [`Arena::BLOCK`] but for
    /// one document bringing more, and the arena reads back as the one
    /// vector it stands for.
    #[test]
    fn an_arena_past_a_block_keeps_each_document_whole_and_in_order() {
        let block = Arena::BLOCK;
        let sizes = [block / 2 + 7, block / 2 + 7, block + 3, 1, block / 2];
        let docs: Vec<(DocId, Vec<u32>)> = sizes
            .iter()
            .enumerate()
            .map(|(id, &n)| {
                (
                    id as DocId,
                    (0..n as u32).map(|k| k * 7 + id as u32).collect(),
                )
            })
            .collect();
        let mut arena = Arena::default();
        for (id, slots) in &docs {
            arena.push(*id, slots);
        }
        let owned: Vec<(DocId, Vec<u32>)> = arena.owned().map(|(id, s)| (id, s.to_vec())).collect();
        assert_eq!(owned, docs);
        let all: Vec<u32> = docs.iter().flat_map(|(_, s)| s.iter().copied()).collect();
        assert!(arena.slots().eq(all.iter().copied()));
        // Each of the first three starts a block (the second does not fit
        // beside the first); the last two share the fourth.
        let per_block: Vec<usize> = arena.blocks.iter().map(|b| b.owners.len()).collect();
        assert_eq!(per_block, vec![1, 1, 1, 2]);
        assert!(arena
            .blocks
            .iter()
            .all(|b| b.slots.len() <= block || b.owners.len() == 1));
    }
}
