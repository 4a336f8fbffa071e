//! Documents filed now and paired later, all at once: how a fresh index
//! takes a whole folder. Each chunk of files is filed as it is read
//! ([`Library::admit_unpaired`]: its keys are gathered, and the candidate
//! tables filled with all of them when pairing starts), and only once every
//! chunk is in does [`Library::pair_unpaired`] gather each document's
//! candidates, once, against the documents that arrived before it, a slice
//! of documents at a time with their full fingerprints read back from the
//! [`PrintSource`].
//!
//! That is [`Library::extend`] of one batch, so the pairs are exactly the
//! ones adding the documents chunk by chunk keeps; but a chunk's arrival
//! makes no earlier document gather its candidates again (a posting list
//! crossing its cap, SI neighbours pushed aside), which made an indexed
//! scan look candidates up about three times per document.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;

use rayon::prelude::*;

use super::si_cuts::SiCuts;
use super::verify::Promising;
use super::{Library, PrintSource, ProposedCounter};
use crate::candidates::{Affected, DocKeys};
use doppel_core::doc::{DocId, DocPath};
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, Fingerprints};

/// Whether documents wait to be paired: the library's mode, moved only
/// by filing ([`Library::admit_unpaired`], [`Library::unpair_all`]) and
/// pairing ([`Library::pair_unpaired`], which every other change runs
/// first).
///
/// ```text
///            admit_unpaired into an empty library, unpair_all
///   AllPaired ───────────────────────────────────────────────▶ Filing(ids)
///      ▲  ▲                                                      │   │ admit_unpaired:
///      │  └──────────── pair_unpaired pairs them all ────────────┘   │ more filed
///      │                                                             │
///      │      pair_unpaired's read fails or is stopped part way      ▼
///      └─ pair_unpaired ── Interrupted(ids: those from the failed slice on)
/// ```
///
/// (A read failing before any document was paired leaves them all
/// waiting: `Filing` again.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum PairingState {
    /// Every held document is paired: what arrives is paired at once,
    /// but into an empty library, which may begin filing.
    #[default]
    AllPaired,
    /// Every held document was filed unpaired, in arrival order: more may
    /// be filed until they are paired.
    Filing(Vec<DocId>),
    /// A pairing stopped part way: these documents (in arrival order)
    /// wait, those before them are paired. Nothing more is filed: any
    /// change pairs them first.
    Interrupted(Vec<DocId>),
}

impl PairingState {
    /// `ids` left waiting by a pairing that stopped, of a library
    /// holding `held` documents: filing still when they are all of them.
    fn waiting(ids: Vec<DocId>, held: usize) -> Self {
        if ids.len() == held {
            PairingState::Filing(ids)
        } else {
            PairingState::Interrupted(ids)
        }
    }

    /// Whether a library holding `held` documents may file more unpaired.
    fn may_file(&self, held: usize) -> bool {
        match self {
            PairingState::AllPaired => held == 0,
            PairingState::Filing(_) => true,
            PairingState::Interrupted(_) => false,
        }
    }

    /// File `id`, unpaired (only where [`PairingState::may_file`]).
    fn file(&mut self, id: DocId) {
        match self {
            PairingState::Filing(ids) => ids.push(id),
            PairingState::AllPaired => *self = PairingState::Filing(vec![id]),
            PairingState::Interrupted(_) => unreachable!("filed beside an interrupted pairing"),
        }
    }

    /// Whether documents wait to be paired.
    fn waits(&self) -> bool {
        match self {
            PairingState::AllPaired => false,
            PairingState::Filing(ids) | PairingState::Interrupted(ids) => !ids.is_empty(),
        }
    }

    /// The documents waiting, in arrival order, to pair now: all paired
    /// from here on, unless the pairing stops ([`PairingState::waiting`]).
    fn take(&mut self) -> Vec<DocId> {
        match std::mem::take(self) {
            PairingState::AllPaired => Vec::new(),
            PairingState::Filing(ids) | PairingState::Interrupted(ids) => ids,
        }
    }
}

/// Documents paired together by [`Library::pair_unpaired`]: their full
/// fingerprints (and those of their candidates before them) are held
/// together. Three slices are held at once (one verified, the next
/// gathered, the one after read): two thirds of the 2,048 documents a
/// slice had when two were, so the peak stays where it was.
const PAIR_SLICE: usize = 1365;

/// ... and at most about this many distinct shingles among them (a slice
/// of at least one document): full fingerprints take a few bytes per
/// shingle, so a slice of whole books holds tens of megabytes, not the
/// collection.
const PAIR_SLICE_SHINGLES: usize = (8 << 20) / 3;

impl Library {
    /// File documents in the candidate tables without pairing them: until
    /// [`Library::pair_unpaired`] (which any other change runs first), they
    /// have no pairs. Only into a library whose every document is
    /// unpaired (an empty one to begin with), and only new paths: otherwise
    /// it pairs what it holds and adds `docs` with [`Library::extend`].
    /// Returns the documents' keys in the tables, in order
    /// ([`crate::candidates::CandidateTables::doc_keys`]); none when it
    /// extended instead.
    pub fn admit_unpaired<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        docs: Vec<(DocPath, Fingerprints, usize)>,
        source: &S,
    ) -> Result<Vec<DocKeys>, S::Error> {
        let mut paths = std::collections::HashSet::with_capacity(docs.len());
        let only_new = docs
            .iter()
            .all(|(path, _, _)| self.id_of(path).is_none() && paths.insert(path));
        if !self.pairing.may_file(self.len()) || !only_new {
            return self.extend(engine, docs, source).map(|()| Vec::new());
        }
        let mut filed = Vec::with_capacity(docs.len());
        for (path, fingerprints, shingles) in docs {
            // A new path replaces nothing, so nothing is affected.
            let id = self.place(
                path,
                fingerprints.hot(),
                shingles,
                source,
                &mut Affected::default(),
            )?;
            self.pairing.file(id);
            filed.push((id, fingerprints));
        }
        let filed: Vec<(DocId, &Fingerprints)> = filed.iter().map(|(id, f)| (*id, f)).collect();
        Ok(self.tables.insert_many_later(&filed))
    }

    /// `ids` cut into slices of [`PAIR_SLICE`] documents and
    /// [`PAIR_SLICE_SHINGLES`] shingles at most, as `(start, end)`.
    fn pair_slices(&self, ids: &[DocId]) -> Vec<(usize, usize)> {
        let sizes: Vec<usize> = ids
            .iter()
            .map(|&id| self.doc(id).map_or(0, |d| d.shingles))
            .collect();
        let most = self.batch_docs.unwrap_or(PAIR_SLICE);
        slices(&sizes, most, PAIR_SLICE_SHINGLES)
    }

    /// Treat every document held as filed and not yet paired, in arrival
    /// order: a library restored from stored entries whose pairs were
    /// never made (see [`Library::restore_doc`]), to be paired by
    /// [`Library::pair_unpaired`] as if [`Library::admit_unpaired`] had
    /// filed them. Only while it keeps no pair.
    pub fn unpair_all(&mut self) {
        debug_assert_eq!(self.pair_count(), 0, "unpaired while keeping pairs");
        self.tables.fill_restored();
        let mut ids: Vec<(u64, DocId)> = self.documents().map(|(id, d)| (d.seen, id)).collect();
        ids.sort_unstable();
        self.pairing = PairingState::Filing(ids.into_iter().map(|(_, id)| id).collect());
    }

    /// Keep at most `slots` of the documents filed unpaired in memory
    /// ([`crate::candidates::SPILL_AFTER_SLOTS`] unless told;
    /// `usize::MAX`: all, as a one-shot scan does; a few: tests).
    pub fn set_spill_after(&mut self, slots: usize) {
        self.tables.set_spill_after(slots);
    }

    /// Give the candidate tables back the slots of the documents filed
    /// without them ([`crate::candidates::CandidateTables::spilled`]),
    /// a slice at a time: the keys `source` stores with them
    /// ([`PrintSource::stored_keys`]), else (and for any whose stored
    /// counts differ from those filed) derived from their full prints. A
    /// failed read leaves the rest to the next call.
    #[tracing::instrument(level = "debug", name = "library.give_back_spilled", skip_all)]
    fn give_back_spilled<S: PrintSource + ?Sized>(&mut self, source: &S) -> Result<(), S::Error> {
        let spilled = self.tables.spilled().to_vec();
        for (start, end) in self.pair_slices(&spilled) {
            let keyed = self.spilled_keys_of(&spilled[start..end], source)?;
            self.tables.file_spilled(keyed);
        }
        Ok(())
    }

    /// The keys of documents `ids`, in order, for
    /// [`Library::give_back_spilled`] (`None`: neither stored nor
    /// derivable, their prints lost).
    fn spilled_keys_of<S: PrintSource + ?Sized>(
        &self,
        ids: &[DocId],
        source: &S,
    ) -> Result<Vec<(DocId, Option<DocKeys>)>, S::Error> {
        let (held, paths) = self.held_paths(ids);
        let mut keys: HashMap<DocId, DocKeys> = HashMap::with_capacity(ids.len());
        if let Some(stored) = source.stored_keys(&paths)? {
            keys.extend(
                held.iter()
                    .zip(stored)
                    .filter_map(|(&(id, _), k)| Some((id, k?)))
                    .filter(|(id, k)| k.counts == self.tables.key_counts_of(*id)),
            );
        }
        let missing: Vec<DocId> = ids
            .iter()
            .copied()
            .filter(|id| !keys.contains_key(id))
            .collect();
        if !missing.is_empty() {
            let full = self.full_prints_of(&missing, source)?;
            let docs: Vec<(DocId, Option<&Fingerprints>)> =
                missing.iter().map(|&id| (id, full.get(&id))).collect();
            keys.extend(
                self.tables
                    .spilled_keys(&docs)
                    .into_iter()
                    .filter_map(|(id, k)| Some((id, k?))),
            );
        }
        Ok(ids.iter().map(|&id| (id, keys.remove(&id))).collect())
    }

    /// Whether documents wait for [`Library::pair_unpaired`].
    pub fn has_unpaired(&self) -> bool {
        self.pairing.waits()
    }

    /// Pair every document filed by [`Library::admit_unpaired`], each
    /// against those that arrived before it, as one [`Library::extend`]
    /// of them all would; their full fingerprints are read from `source`
    /// (1,365 documents, or about 2.7 M shingles' worth, and their
    /// candidates at a time), which
    /// must have them all by now (a document it has none of stays without
    /// pairs). Adding or removing a document runs it first.
    ///
    /// Reading is serial work on this thread and the rest runs on the
    /// pool, so each read overlaps pool work: a slice's candidates are
    /// read while the next slice's are gathered, and the slice after
    /// next's own prints while this one is verified.
    pub fn pair_unpaired<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        source: &S,
    ) -> Result<(), S::Error> {
        self.pair_unpaired_with(engine, source, &mut || true)
            .map(|_| ())
    }

    /// [`Library::pair_unpaired`], asking `go_on` before each slice:
    /// `false` stops there, the slices paired keeping their pairs and the
    /// documents from that slice on waiting for the next call (as after a
    /// failed read). Whether every document is paired.
    pub fn pair_unpaired_with<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        source: &S,
        go_on: &mut dyn FnMut() -> bool,
    ) -> Result<bool, S::Error> {
        if !self.pairing.waits() {
            return Ok(true);
        }
        if !go_on() {
            return Ok(false);
        }
        self.give_back_spilled(source)?;
        self.tables.fill_restored();
        let ids = self.pairing.take();
        // Position in arrival order by dense id (MAX: not among them).
        let mut arrival = vec![usize::MAX; self.registry.id_bound()];
        for (i, &id) in ids.iter().enumerate() {
            arrival[id as usize] = i;
        }
        // Held documents all waiting, in the order of their ids (a fresh
        // index's): those before a document are those with smaller ids,
        // which the tables then skip to without asking.
        let by_id = ids.len() == self.len() && ids.windows(2).all(|w| w[0] < w[1]);
        tracing::debug!(documents = ids.len(), by_id, "pairing the unpaired");
        let compared_before = self.compared;
        let mut promising_total = 0usize;
        let (mut si_cuts, mut si_dropped) = (SiCuts::default(), 0usize);
        // SI scores an unverified pair 0, which a floor of 0 passes.
        let si_can_drop = self.config.floors.get(AlgorithmId::Si) > 0.0;
        let slices = self.pair_slices(&ids);
        let read = |this: &Library, i: usize| {
            slices
                .get(i)
                .map(|&(start, end)| this.full_prints_of(&ids[start..end], source))
        };
        // Counted once the whole call is paired (slices gathered ahead of
        // a stop are gathered again by the next call).
        let proposed = ProposedCounter::default();
        let gather = |this: &Library, i: usize, mine: &HashMap<DocId, Fingerprints>| {
            let (start, end) = slices[i];
            ids[start..end]
                .par_iter()
                .enumerate()
                .map(|(k, &id)| {
                    let position = start + k;
                    let earlier = |other: DocId| {
                        arrival
                            .get(other as usize)
                            .is_none_or(|&p| p == usize::MAX || p < position)
                    };
                    match mine.get(&id) {
                        Some(full) => {
                            let below = if by_id { id } else { DocId::MAX };
                            this.promising_among(engine, id, full, below, &earlier, &proposed)
                        }
                        None => Vec::new(),
                    }
                })
                .collect::<Vec<Promising>>()
        };
        // Those from a failed read's slice on wait for the next call, which
        // pairs them against every document before them, paired or not.
        let unpaired_from = |i: usize| ids[slices[i].0..].to_vec();
        let mine = match read(self, 0).expect("a slice at least") {
            Ok(mine) => mine,
            Err(e) => {
                self.pairing = PairingState::waiting(ids, self.len());
                return Err(e);
            }
        };
        let this = &*self;
        let (promising, mut next) = on_pool_while(|| gather(this, 0, &mine), || read(this, 1));
        // This slice: its prints and its promising candidates.
        let mut current = Some((mine, promising));
        for (i, &(start, end)) in slices.iter().enumerate() {
            // The slices read and gathered ahead are dropped: the next
            // call reads them again.
            if i > 0 && !go_on() {
                tracing::debug!(documents = ids.len(), slice = i, "pairing stopped");
                self.pairing = PairingState::waiting(unpaired_from(i), self.len());
                return Ok(false);
            }
            let this = &*self;
            let (mine, mut promising) = current.take().expect("gathered before its turn");
            promising_total += promising.iter().map(Vec::len).sum::<usize>();
            // SI's proposals it would not verify (their sketches share no
            // cut) are dropped before the documents they name are read back.
            if si_can_drop {
                for (&id, full) in &mine {
                    si_cuts.note(id, full);
                }
                si_dropped +=
                    si_cuts.drop_unverifiable(&ids[start..end], &mut promising, |other| {
                        mine.contains_key(&other)
                    });
            }
            let mut before: Vec<DocId> = promising
                .iter()
                .flatten()
                .map(|&(other, _)| other)
                .filter(|other| !mine.contains_key(other))
                .collect();
            before.sort_unstable();
            before.dedup();
            // The next slice's candidates are gathered while this one's
            // are read (unless its own read failed).
            let read_before = || this.full_prints_of(&before, source);
            let (gathered, loaded) = match next.take() {
                Some(Ok(next_mine)) => {
                    let (gathered, loaded) =
                        on_pool_while(|| gather(this, i + 1, &next_mine), read_before);
                    (Some(Ok((next_mine, gathered))), loaded)
                }
                Some(Err(e)) => (Some(Err(e)), read_before()),
                None => (None, read_before()),
            };
            let loaded = match loaded {
                Ok(loaded) => loaded,
                Err(e) => {
                    self.pairing = PairingState::waiting(unpaired_from(i), self.len());
                    return Err(e);
                }
            };
            let compared = AtomicU64::new(0);
            let (verified, after_next) = on_pool_while(
                || {
                    ids[start..end]
                        .par_iter()
                        .zip(promising)
                        .filter_map(|(&id, others)| {
                            let full = mine.get(&id)?;
                            let theirs =
                                |other: &DocId| mine.get(other).or_else(|| loaded.get(other));
                            Some((
                                id,
                                this.verify_against(engine, (id, full), others, theirs, &compared),
                            ))
                        })
                        .collect::<Vec<_>>()
                },
                || read(this, i + 2),
            );
            self.gathered += mine.len() as u64;
            self.compared += compared.into_inner();
            drop((mine, loaded));
            for (id, pairs) in verified {
                self.add_pairs(id, pairs);
            }
            match gathered {
                Some(Ok((next_mine, gathered))) => current = Some((next_mine, gathered)),
                Some(Err(e)) => {
                    self.pairing = PairingState::waiting(unpaired_from(i + 1), self.len());
                    return Err(e);
                }
                None => {}
            }
            next = after_next;
        }
        let proposed = proposed.into_proposed();
        self.proposed.add(&proposed);
        tracing::info!(
            documents = ids.len(),
            %proposed,
            promising = promising_total,
            si_dropped,
            compared = self.compared - compared_before,
            "paired the unpaired"
        );
        Ok(true)
    }
}

/// Run `pooled` (work for the rayon pool) on a thread of its own while this
/// thread runs `serial`; both results.
fn on_pool_while<A: Send, B>(
    pooled: impl FnOnce() -> A + Send,
    serial: impl FnOnce() -> B,
) -> (A, B) {
    std::thread::scope(|scope| {
        let pooled = scope.spawn(pooled);
        let serial = serial();
        let pooled = pooled
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (pooled, serial)
    })
}

/// Consecutive `(start, end)` ranges covering `sizes` in order, each of
/// at most `max_len` items whose sizes sum to at most `max_size`, but for
/// a single item bigger than that, which has a range of its own.
fn slices(sizes: &[usize], max_len: usize, max_size: usize) -> Vec<(usize, usize)> {
    let mut slices = Vec::new();
    let (mut start, mut total) = (0, 0);
    for (i, &size) in sizes.iter().enumerate() {
        if i > start && (i - start == max_len || total + size > max_size) {
            slices.push((start, i));
            (start, total) = (i, 0);
        }
        total += size;
    }
    if start < sizes.len() {
        slices.push((start, sizes.len()));
    }
    slices
}

#[cfg(test)]
mod tests {
    use super::{slices, PairingState};
    use proptest::prelude::*;

    #[test]
    fn only_an_empty_or_filing_library_files_and_an_interrupted_one_never() {
        let mut state = PairingState::default();
        assert!(!state.waits());
        assert!(state.may_file(0), "an empty library begins filing");
        assert!(!state.may_file(3), "a paired library pairs what arrives");
        state.file(4);
        state.file(5);
        assert_eq!(state, PairingState::Filing(vec![4, 5]));
        assert!(state.waits() && state.may_file(2));
        assert_eq!(state.take(), [4, 5]);
        assert_eq!(state, PairingState::AllPaired);
        assert!(!state.waits());
        // Unpaired from a library of nothing: nothing waits.
        assert!(!PairingState::Filing(Vec::new()).waits());
    }

    #[test]
    fn a_pairing_stopped_part_way_leaves_the_rest_waiting_and_files_no_more() {
        let interrupted = PairingState::waiting(vec![7, 8], 5);
        assert_eq!(interrupted, PairingState::Interrupted(vec![7, 8]));
        assert!(interrupted.waits());
        assert!(!interrupted.may_file(5), "any change pairs them first");
        let mut before_any = PairingState::waiting(vec![0, 1, 2], 3);
        assert_eq!(before_any, PairingState::Filing(vec![0, 1, 2]));
        assert!(before_any.may_file(3), "none was paired: still filing");
        assert_eq!(before_any.take(), [0, 1, 2]);
        assert!(!before_any.waits());
    }

    proptest! {
        /// The slices cover every document once, in order, none empty;
        /// each keeps within both bounds unless it is one document; and
        /// each is as long as the bounds allow (the next document would
        /// break one), so whole books do not make a slice apiece.
        #[test]
        fn pair_slices_cover_in_order_within_bounds(
            sizes in prop::collection::vec(0usize..50, 0..60),
            max_len in 1usize..8,
            max_size in 1usize..120,
        ) {
            let cut = slices(&sizes, max_len, max_size);
            let mut next = 0;
            for &(start, end) in &cut {
                prop_assert_eq!(start, next);
                prop_assert!(end > start);
                let total: usize = sizes[start..end].iter().sum();
                prop_assert!(end - start == 1 || (end - start <= max_len && total <= max_size));
                if end < sizes.len() {
                    prop_assert!(end - start == max_len || total + sizes[end] > max_size);
                }
                next = end;
            }
            prop_assert_eq!(next, sizes.len());
        }
    }
}
