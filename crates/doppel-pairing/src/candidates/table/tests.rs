//! The table's shards, filling and lookups against a map of lists.

use super::*;
use proptest::prelude::*;
use std::collections::HashMap;

/// Slots of one shard (28 bits), spread like hashes.
fn slot(s: u32) -> u32 {
    doppel_core::hash::mix64(u64::from(s)) as u32 & SHARD_MASK
}

fn ids(p: Postings<'_>) -> Vec<DocId> {
    p.iter().collect()
}

proptest! {
    /// A shard answers like a map from slot to the ids filed under it,
    /// in filing order, whether a slot's postings are merged, recent or
    /// both, through removals and merges.
    #[test]
    fn shard_answers_like_a_map_of_lists(
        ops in prop::collection::vec((any::<bool>(), 0u32..30, 0u32..5, any::<bool>()), 0..300),
    ) {
        let mut shard = Shard::default();
        let mut model: HashMap<u32, Vec<DocId>> = HashMap::new();
        for (file, s, id, merge) in ops {
            if file {
                shard.insert(slot(s), id);
                model.entry(slot(s)).or_default().push(id);
            } else {
                shard.remove(slot(s), id);
                let ids = model.entry(slot(s)).or_default();
                if let Some(at) = ids.iter().position(|&d| d == id) {
                    ids.remove(at);
                }
            }
            if merge {
                shard.merge();
            }
            for s in 0..30 {
                let want = model.get(&slot(s)).cloned().unwrap_or_default();
                prop_assert_eq!(ids(shard.postings(slot(s))), want, "slot {}", s);
            }
        }
    }

    /// Filing a batch at once files what inserting it one by one
    /// files, in the same order, whatever the shard already holds.
    #[test]
    fn filing_a_batch_equals_inserting_one_by_one(
        before in prop::collection::vec((0u32..50, 0u32..8, any::<bool>()), 0..100),
        batch in prop::collection::vec((0u32..50, 0u32..8), 0..200),
        merge_first in any::<bool>(),
    ) {
        let (mut one_by_one, mut batched) = (Shard::default(), Shard::default());
        for &(s, id, file) in &before {
            for shard in [&mut one_by_one, &mut batched] {
                if file {
                    shard.insert(slot(s), id);
                } else {
                    shard.remove(slot(s), id);
                }
            }
        }
        if merge_first {
            batched.merge();
        }
        let batch: Vec<(u32, DocId)> = batch.into_iter().map(|(s, id)| (slot(s), id)).collect();
        for &(s, id) in &batch {
            one_by_one.insert(s, id);
        }
        batched.file_all(batch);
        for s in 0..50 {
            prop_assert_eq!(ids(batched.postings(slot(s))), ids(one_by_one.postings(slot(s))));
        }
    }
}

#[test]
fn a_large_shard_finds_every_slot_through_its_directory() {
    let mut shard = Shard::default();
    let slots: Vec<u32> = (0..200_000u32).map(slot).collect();
    for (id, &slot) in slots.iter().enumerate() {
        shard.insert(slot, id as DocId);
        shard.settle();
    }
    shard.merge();
    assert!(shard.recent.is_empty() && shard.directory_bits > Shard::MIN_DIRECTORY_BITS);
    assert_eq!(shard.ids.len(), slots.len());
    // Six bytes a posting, and a directory of about half a byte.
    assert!(
        shard.heap_bytes() < slots.len() * 7,
        "{} bytes",
        shard.heap_bytes()
    );
    for (id, &slot) in slots.iter().enumerate() {
        assert!(
            shard.postings(slot).iter().any(|d| d == id as DocId),
            "slot {slot:#x}"
        );
    }
    assert_eq!(shard.postings(slot(300_001)).bound(), 0);
    // Removing everything leaves nothing, merged or not.
    for (id, &slot) in slots.iter().enumerate().step_by(2) {
        shard.remove(slot, id as DocId);
        shard.settle();
    }
    shard.merge();
    assert_eq!(shard.ids.len(), slots.len() / 2);
}

proptest! {
    /// Filling an empty table from arenas files what inserting the
    /// postings one by one files, in the same order, whether the
    /// groups are filled one at a time or, from group `from` on, in
    /// parallel.
    #[test]
    fn filling_from_an_arena_equals_inserting_one_by_one(
        docs in prop::collection::vec(prop::collection::vec(0u32..3000, 0..40), 0..60),
        from in 0..=Table::SHARDS / Table::GROUP,
    ) {
        let mut slots = Vec::new();
        let mut owners = Vec::new();
        let mut inserted = Table::default();
        for (id, keys) in docs.iter().enumerate() {
            owners.push((id as DocId, slots.len() as u32));
            for &k in keys {
                let slot = doppel_core::hash::mix64(u64::from(k) % 97) as u32;
                slots.push(slot);
                inserted.insert(slot, id as DocId);
            }
        }
        let mut arenas = Vec::new();
        for group in 0..Table::SHARDS / Table::GROUP {
            let mut arena = Arena::default();
            for (i, &(id, start)) in owners.iter().enumerate() {
                let end = owners.get(i + 1).map_or(slots.len(), |o| o.1 as usize);
                let mine: Vec<u32> = slots[start as usize..end]
                    .iter()
                    .copied()
                    .filter(|&s| Table::group(s) == group)
                    .collect();
                if !mine.is_empty() {
                    arena.push(id, &mine);
                }
            }
            arenas.push(arena);
        }
        let mut filled = Table::default();
        let in_parallel = arenas.split_off(from);
        for (group, arena) in arenas.into_iter().enumerate() {
            filled.fill_group(group, arena);
        }
        filled.fill_groups(from, in_parallel);
        for &slot in &slots {
            prop_assert_eq!(ids(filled.postings(slot)), ids(inserted.postings(slot)));
            // A filled table knows which slots several documents share.
            if filled.postings(slot).iter().count() > 1 {
                prop_assert!(filled.may_be_shared(slot), "slot {:#x}", slot);
            }
        }
    }
}

/// A slot spread over every shard, so lookups in blocks mix them.
fn spread(s: u32) -> u32 {
    doppel_core::hash::mix64(u64::from(s)) as u32
}

/// A table with `filed` (slot seed, document) filed, the first
/// `merged_share` in a batch and the rest one by one (recent), then
/// `removed` taken away; and the map of lists it should answer like.
fn filed_table(
    filed: &[(u32, DocId)],
    merged_share: usize,
    removed: &[(u32, DocId)],
) -> (Table, HashMap<u32, Vec<DocId>>) {
    let mut table = Table::default();
    let mut model: HashMap<u32, Vec<DocId>> = HashMap::new();
    let (merged, recent) = filed.split_at(merged_share.min(filed.len()));
    let mut batch = table.batch(merged.len());
    for &(s, id) in merged {
        Table::add_to_batch(&mut batch, spread(s), id);
        model.entry(spread(s)).or_default().push(id);
    }
    table.file_batch(batch);
    for &(s, id) in recent {
        table.insert(spread(s), id);
        model.entry(spread(s)).or_default().push(id);
    }
    for &(s, id) in removed {
        table.remove(spread(s), id);
        let ids = model.entry(spread(s)).or_default();
        if let Some(at) = ids.iter().position(|&d| d == id) {
            ids.remove(at);
        }
    }
    (table, model)
}

proptest! {
    /// Looking many slots up at once (in staged blocks) answers for
    /// each what a map of lists answers, in the order asked, whether
    /// its postings are merged, recent, both or none, repeats included.
    #[test]
    fn looking_up_many_slots_answers_like_a_map(
        filed in prop::collection::vec((0u32..120, 0u32..6), 0..400),
        merged_share in 0usize..=400,
        removed in prop::collection::vec((0u32..120, 0u32..6), 0..40),
        asked in prop::collection::vec(0u32..150, 0..70),
    ) {
        let (table, model) = filed_table(&filed, merged_share, &removed);
        let slots: Vec<u32> = asked.iter().map(|&s| spread(s)).collect();
        let mut answered = Vec::new();
        table.postings_of_each(&slots, |i, postings| answered.push((i, ids(postings))));
        prop_assert_eq!(answered.len(), slots.len());
        for (i, (at, got)) in answered.into_iter().enumerate() {
            prop_assert_eq!(at, i);
            let want = model.get(&slots[i]).cloned().unwrap_or_default();
            prop_assert_eq!(&got, &want, "slot {:#x}", slots[i]);
            prop_assert_eq!(got, ids(table.postings(slots[i])));
        }
    }
}

proptest! {
    /// A filed document's lookups answer, in order, for every slot
    /// another document shares with it, whether filed in a batch,
    /// recently or both, through removals and merges; the slots passed
    /// over hold nothing but its own postings.
    #[test]
    fn a_filed_document_passes_over_only_its_own_slots(
        filed in prop::collection::vec((0u32..40, 0u32..6), 0..300),
        merged_share in 0usize..=300,
        removed in prop::collection::vec((0u32..40, 0u32..6), 0..30),
        merge_after in any::<bool>(),
    ) {
        let (mut table, model) = filed_table(&filed, merged_share, &removed);
        if merge_after {
            for shard in &mut table.shards {
                shard.merge();
            }
        }
        for doc in 0..6 {
            let mut mine: Vec<u32> = model
                .iter()
                .filter(|(_, ids)| ids.contains(&doc))
                .map(|(&s, _)| s)
                .collect();
            mine.sort_unstable();
            let mut answered = Vec::new();
            table.postings_of_each_filed(doc, &mine, |i, postings| answered.push((i, ids(postings))));
            prop_assert!(answered.windows(2).all(|w| w[0].0 < w[1].0), "in order");
            let mut visited = answered.iter().map(|(i, _)| *i).peekable();
            for (i, s) in mine.iter().enumerate() {
                let want = &model[s];
                if visited.next_if_eq(&i).is_some() {
                    let got = &answered.iter().find(|(at, _)| *at == i).expect("visited").1;
                    prop_assert_eq!(got, want, "slot {:#x}", s);
                } else {
                    prop_assert!(want.iter().all(|&d| d == doc), "slot {:#x} passed over: {:?}", s, want);
                }
            }
        }
    }
}

/// Documents filed with a slot of their own each (and one slot all
/// share), in one batch or filled from arenas as a reopened index is: a
/// document's query looks up the shared slot and passes over nearly all
/// of its own (a bit falsely set may keep one).
#[test]
fn a_documents_own_slots_are_passed_over() {
    let own = |id: u64, k: u64| doppel_core::hash::mix64(id * 64 + k) as u32;
    let common = doppel_core::hash::mix64(u64::MAX) as u32;
    let slots_of = |id: u64| -> Vec<u32> {
        let mut slots: Vec<u32> = (0..8).map(|k| own(id, k)).collect();
        slots.push(common);
        slots
    };
    let mut batched = Table::default();
    let mut batch = batched.batch(5000 * 9);
    for id in 0..5000u64 {
        for slot in slots_of(id) {
            Table::add_to_batch(&mut batch, slot, id as DocId);
        }
    }
    batched.file_batch(batch);
    let mut filled = Table::default();
    let arenas = (0..Table::SHARDS / Table::GROUP)
        .map(|group| {
            let mut arena = Arena::default();
            for id in 0..5000u64 {
                let mine: Vec<u32> = slots_of(id)
                    .into_iter()
                    .filter(|&s| Table::group(s) == group)
                    .collect();
                if !mine.is_empty() {
                    arena.push(id as DocId, &mine);
                }
            }
            arena
        })
        .collect();
    filled.fill_groups(0, arenas);
    for table in [&batched, &filled] {
        let (mut looked_up, mut own_looked_up) = (0, 0);
        for id in (0..5000u64).step_by(50) {
            table.postings_of_each_filed(id as DocId, &slots_of(id), |i, postings| {
                looked_up += 1;
                if i < 8 {
                    own_looked_up += 1;
                    assert_eq!(ids(postings), [id as DocId]);
                } else {
                    assert_eq!(postings.iter().count(), 5000);
                }
            });
        }
        assert!(
            looked_up >= 100,
            "the shared slot is looked up for every document"
        );
        assert!(
            own_looked_up <= 40,
            "{own_looked_up} of 800 own slots looked up"
        );
    }
}

#[test]
fn a_table_files_each_slot_in_its_shard() {
    let mut table = Table::default();
    let slots: Vec<u32> = (0..5000u64)
        .map(|i| doppel_core::hash::mix64(i) as u32)
        .collect();
    let mut batch = table.batch(slots.len());
    for (id, &slot) in slots.iter().enumerate() {
        Table::add_to_batch(&mut batch, slot, id as DocId);
    }
    table.file_batch(batch);
    table.insert(slots[0], 9999);
    for (id, &slot) in slots.iter().enumerate() {
        assert!(table.postings(slot).iter().any(|d| d == id as DocId));
    }
    assert_eq!(ids(table.postings(slots[0])), [0, 9999]);
    table.remove(slots[0], 0);
    assert_eq!(ids(table.postings(slots[0])), [9999]);
}
