//! Candidate generation: which documents are worth comparing with a given
//! one, without comparing all pairs.
//!
//! Each algorithm proposes candidates from its own index:
//!
//! * `minhash`: LSH banding of the sketch (b bands × r rows, chosen from the
//!   floor by minimizing weighted false-positive + false-negative mass, as
//!   datasketch does; overridable).
//! * `simhash`, `simhash-shingle`, `simhash-lexicons`: band tables over bit
//!   masks: either the lab report's m tables of k bits, or the pigeonhole
//!   setting (h + 1 disjoint blocks) that guarantees every pair within
//!   Hamming distance h shares a block.
//! * `shingle`: an inverted index of the shingles whose hash is 0 mod
//!   `shingle_modulus` (the blog post's sampling), which also finds a part
//!   inside a whole; `winnow`: an inverted index of the winnowed
//!   fingerprints whose hash is 0 mod `winnow_modulus` (a candidate is only
//!   worth verifying when it shares a good part of them, which a sample
//!   shows as well).
//!   Posting lists longer than `max_postings` (boilerplate shared by many
//!   documents, every one counted whatever the order it came in) stop
//!   proposing candidates.
//! * `exact`, `supershingle`, `imatch`, `imatch-lexicons`: signature tables.
//! * `si`: a sorted index queried for ±`si_range` around the document's
//!   value, capped to the `si_cap` nearest values (ties included), and
//!   proposing both ways: to a document its nearest, and those it is
//!   nearest to.
//!
//! Candidates are only proposals: the library verifies each with every
//! algorithm before it becomes a pair.
//!
//! Long documents: the SimHash family compares weighted vocabularies, which
//! converge for long texts of one register (on 880 generated books of
//! ~480 KB, a quarter of all pairs fell within `simhash`'s floor without
//! sharing a sentence). So between two documents of at least
//! [`LONG_DOCUMENT_SHINGLES`] shingles each, a SimHash band alone does not
//! make a candidate worth verifying: another family (shared passages,
//! signatures) must find it too, when one is computed, and SI's proposal
//! (the nearest in size) is verified only once SI's shared sampled k-gram
//! confirms it. Fused verdicts never counted vocabulary alone for such
//! pairs; this keeps the number of pairs verified proportional to the true
//! ones.

use std::collections::{BTreeSet, HashMap};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use doppel_core::engine::algo::AlgorithmId;
pub use doppel_core::engine::algo::AlgorithmSet;
use doppel_core::engine::Fingerprints;

use doppel_core::hash::{combine, mix32, rehash};

mod banding;
mod changes;
mod gather;
mod restore;
mod si;
mod table;

pub use banding::{optimal_bands, simhash_masks, SimhashBanding};
pub use changes::Affected;

use gather::Tally;
use table::Table;

pub use gather::{Candidates, Proposal};
pub use restore::{Restore, SPILL_AFTER_SLOTS};

use doppel_core::doc::DocId;

/// Shingles each of two documents has from which a SimHash-family match
/// alone no longer makes them a candidate (about 10,000 words, 55 KB of
/// English: far above the ~4 KB texts of the papers' protocols, below
/// any whole book).
pub const LONG_DOCUMENT_SHINGLES: usize = 10_000;

/// How candidates are proposed (`[library.candidates]` in the config
/// file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CandidateConfig {
    /// MinHash LSH (bands, rows) override; `None` derives them from the floor.
    pub minhash_bands: Option<(usize, usize)>,
    /// Weights of false positives and false negatives when deriving bands.
    /// Default: 0.5 and 0.5.
    pub minhash_fp_weight: f64,
    /// See `minhash_fp_weight`.
    pub minhash_fn_weight: f64,
    /// SimHash banding. Default: 12 tables of 16 random bits (a pair 6 bits
    /// apart is proposed with probability ≈ 0.94, one 3 bits apart ≈ 0.9997).
    pub simhash_banding: SimhashBanding,
    /// Index shingles whose hash is 0 mod this. Default: 8.
    pub shingle_modulus: u64,
    /// Index winnowed fingerprints whose hash is 0 mod this. Default: 4.
    pub winnow_modulus: u64,
    /// Posting lists longer than this propose nothing (phrases or passages
    /// shared by that many documents are boilerplate). Default: 200.
    pub max_postings: usize,
    /// SI range query: ± this fraction. Default: 0.3 (Roth).
    pub si_range: f64,
    /// At most this many SI candidates per document, nearest by value. SI is
    /// the crudest signal (one number per document), so few. Default: 2.
    pub si_cap: usize,
}

impl Default for CandidateConfig {
    fn default() -> Self {
        Self {
            minhash_bands: None,
            minhash_fp_weight: 0.5,
            minhash_fn_weight: 0.5,
            simhash_banding: SimhashBanding::Tables {
                tables: 12,
                bits_per_table: 16,
            },
            shingle_modulus: 8,
            winnow_modulus: 4,
            max_postings: 200,
            si_range: 0.3,
            si_cap: 2,
        }
    }
}

/// The slot of (algorithm, table, key) in the one [`Table`] every index
/// shares: a hash of all three within the algorithm's own range of slots
/// ([`slot_range`]), mixed across the 32 bits by a bijection
/// ([`mix32`]). Two keys of one algorithm may share a slot (about one in
/// a hundred at 100k documents): that only proposes a few more candidates,
/// which verification then rejects. Two keys of different algorithms never
/// do, so a slot two documents share is the same algorithm's key from
/// either side, and what a query tallies for the other document (which
/// algorithms propose it, how many keys they share) is what the other
/// document's query tallies for it: proposing does not depend on which of
/// two documents asks. (With a slot of 32 bits of a hash of all three,
/// 70 to 135 pairs of each collection of 5,000 short texts tried shared a
/// slot that was one algorithm's key for one and another's for the other:
/// a simhash table's key for the one, whose cheap check the pair passed,
/// a simhash-lexicons key for the other, whose check it failed, and the
/// pair was kept or not by whichever asked: issue 47.)
fn slot(algo: AlgorithmId, table: usize, key: u64) -> u32 {
    let hash = (rehash(key, ((algo as u64) << 32) | table as u64) >> 32) as u32;
    let (start, shift) = slot_range(algo);
    mix32(start | hash >> shift)
}

/// The range of slots (before [`mix32`]) an algorithm's keys take:
/// `start` and the shift that leaves a hash its size (`2^(32 - shift)`).
/// The ranges are disjoint and cover the 32 bits, each about the share of
/// the keys its algorithm files for a ~4 KB text (sampled shingles 34 %,
/// MinHash bands 19 %, simhash-lexicons 18 %, winnowed fingerprints 14 %,
/// the other tables 1 to 4 % each), so keys of one algorithm share a slot
/// about as often as any two keys did when the ranges were one (keys in a
/// slot another document holds, of ~1.02 M in 5,000 short texts: 254,042
/// and 247,371, against 254,022 and 247,286 before). SI files no key; it
/// has a range so the map is total.
fn slot_range(algo: AlgorithmId) -> (u32, u32) {
    use AlgorithmId as Id;
    match algo {
        Id::Shingle => (0x0000_0000, 2),
        Id::Minhash => (0x4000_0000, 3),
        Id::Winnow => (0x6000_0000, 3),
        Id::SimhashLexicons => (0x8000_0000, 3),
        Id::Simhash => (0xa000_0000, 4),
        Id::SimhashShingle => (0xb000_0000, 4),
        Id::ImatchLexicons => (0xc000_0000, 4),
        Id::Supershingle => (0xd000_0000, 4),
        Id::Exact => (0xe000_0000, 4),
        Id::Imatch => (0xf000_0000, 5),
        Id::Si => (0xf800_0000, 5),
    }
}

/// Keys a fingerprint contributes to each table of each algorithm.
type Keys = Vec<(AlgorithmId, usize, u64)>;

/// Whether `f`'s simhash-lexicons lexicon 0 (the full vocabulary) is its
/// simhash-shingle fingerprint, so that simhash-shingle's tables stand for
/// lexicon 0's.
fn full_lexicon_is_shingle(f: &Fingerprints) -> bool {
    matches!(
        (f.simhash_shingle, &f.simhash_lexicons),
        (Some(shingle), Some(lexicons)) if lexicons.first() == Some(&shingle)
    )
}

/// How many of `keys` go to the shingle and winnow inverted indexes.
fn count_keys(keys: &Keys) -> KeyCounts {
    let mut counts = KeyCounts::default();
    for (algo, _, _) in keys {
        match algo {
            AlgorithmId::Shingle => counts.shingle += 1,
            AlgorithmId::Winnow => counts.winnow += 1,
            _ => {}
        }
    }
    counts
}

/// SI's index of `f`, when it has one.
fn si_index(f: &Fingerprints) -> Option<u64> {
    f.si.as_ref().and_then(|si| si.index())
}

/// The candidate tables of every algorithm.
#[derive(Debug, Clone)]
pub struct CandidateTables {
    config: CandidateConfig,
    minhash_bands: (usize, usize),
    simhash_masks: HashMap<AlgorithmId, Vec<u64>>,
    tables: Table,
    /// Restored documents' slots not yet filed in `tables`: a reopened
    /// index that no change reaches never needs the tables, so they are
    /// filled when something first files or removes a document
    /// ([`CandidateTables::fill_restored`]).
    unfiled: Option<Restore>,
    /// Documents filed to be paired later whose slots `unfiled` does not
    /// hold (those after its first [`SPILL_AFTER_SLOTS`]), in filing
    /// order, and how many of them [`CandidateTables::file_spilled`] has
    /// given back: the tables cannot be filled before all are.
    spilled: Vec<DocId>,
    spilled_back: usize,
    /// [`SPILL_AFTER_SLOTS`] unless told (see `set_spill_after`).
    spill_after: usize,
    si: BTreeSet<(u64, DocId)>,
    /// Per document (by id): how many keys it has in the shingle and
    /// winnow inverted indexes (the denominators of the overlap estimates).
    key_counts: Vec<KeyCounts>,
}

/// Index keys of one document in the two inverted indexes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyCounts {
    /// Keys in the shingle index.
    pub shingle: u32,
    /// Keys in the winnow index.
    pub winnow: u32,
}

/// One document's entries in the candidate tables: the slot of each of its
/// keys (sorted) and how many are in the two inverted indexes. Derived from its full
/// fingerprints ([`CandidateTables::doc_keys`]); stored beside them, so a
/// reopened index files its documents again without reading those.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocKeys {
    /// The slot of each key, sorted.
    #[serde(with = "doppel_core::packed")]
    pub slots: Vec<u32>,
    /// How many keys are in the inverted indexes.
    pub counts: KeyCounts,
}

impl CandidateTables {
    /// `minhash_floor` is the Jaccard floor the bands are derived for;
    /// `bits` gives each SimHash algorithm's fingerprint size.
    pub fn new(
        config: CandidateConfig,
        num_perm: usize,
        minhash_floor: f64,
        bits: &[(AlgorithmId, u32)],
    ) -> Self {
        let minhash_bands = config.minhash_bands.unwrap_or_else(|| {
            optimal_bands(
                minhash_floor,
                num_perm,
                config.minhash_fp_weight,
                config.minhash_fn_weight,
            )
        });
        let simhash_masks = bits
            .iter()
            .map(|&(id, b)| {
                (
                    id,
                    simhash_masks(&config.simhash_banding, b, 0xba4d ^ b as u64),
                )
            })
            .collect();
        Self {
            config,
            minhash_bands,
            simhash_masks,
            tables: Table::default(),
            unfiled: None,
            spilled: Vec::new(),
            spilled_back: 0,
            spill_after: SPILL_AFTER_SLOTS,
            si: BTreeSet::new(),
            key_counts: Vec::new(),
        }
    }

    /// The configuration it proposes under.
    pub fn config(&self) -> &CandidateConfig {
        &self.config
    }

    /// The MinHash (bands, rows) in use.
    pub fn minhash_bands(&self) -> (usize, usize) {
        self.minhash_bands
    }

    fn keys(&self, f: &Fingerprints) -> Keys {
        use AlgorithmId as Id;
        // Room for the sampled inverted-index keys (about one in the
        // modulus) and the tables' few dozen, so it is allocated once.
        let sampled = |n: usize, modulus: u64| n / modulus.max(1) as usize + n / 64 + 8;
        let mut keys = Keys::with_capacity(
            f.shingle
                .as_ref()
                .map_or(0, |s| sampled(s.len(), self.config.shingle_modulus))
                + f.winnow
                    .as_ref()
                    .map_or(0, |w| sampled(w.hashes.len(), self.config.winnow_modulus))
                + 128,
        );
        if let Some(Some(sig)) = f.exact {
            keys.push((Id::Exact, 0, sig as u64));
        }
        if let Some(shingles) = &f.shingle {
            let m = self.config.shingle_modulus.max(1);
            keys.extend(
                shingles
                    .iter()
                    .map(|&h| u64::from(h))
                    .filter(|&h| (h >> 7) % m == 0)
                    .map(|h| (Id::Shingle, 0, h)),
            );
        }
        if let Some(sketch) = f.minhash.as_ref().filter(|s| !s.is_empty()) {
            let (bands, rows) = self.minhash_bands;
            for band in 0..bands.min(sketch.len() / rows.max(1)) {
                keys.push((
                    Id::Minhash,
                    band,
                    combine(&sketch[band * rows..(band + 1) * rows], band as u64),
                ));
            }
        }
        if let Some(supers) = &f.supershingle {
            keys.extend(
                supers
                    .iter()
                    .enumerate()
                    .map(|(i, &h)| (Id::Supershingle, i, h)),
            );
        }
        let mut simhash = |id: Id, fp: Option<u64>, lexicon: usize| {
            if let (Some(fp), Some(masks)) = (fp, self.simhash_masks.get(&id)) {
                for (t, &mask) in masks.iter().enumerate() {
                    keys.push((id, lexicon * masks.len() + t, fp & mask));
                }
            }
        };
        if let Some(fp) = f.simhash {
            simhash(Id::Simhash, fp, 0);
        }
        if let Some(fp) = f.simhash_shingle {
            simhash(Id::SimhashShingle, fp, 0);
        }
        if let Some(fps) = &f.simhash_lexicons {
            // Lexicon 0 is simhash-shingle's fingerprint under the default
            // configuration (same seed): its tables would repeat that
            // algorithm's keys, so they are not filed, and simhash-shingle's
            // proposals count for both (see `candidates_among`).
            let skip_full = full_lexicon_is_shingle(f);
            for (lexicon, &fp) in fps.iter().enumerate() {
                if lexicon > 0 || !skip_full {
                    simhash(Id::SimhashLexicons, fp, lexicon);
                }
            }
        }
        if let Some(Some(sig)) = f.imatch {
            keys.push((Id::Imatch, 0, sig as u64));
        }
        if let Some(sigs) = &f.imatch_lexicons {
            keys.extend(
                sigs.iter()
                    .enumerate()
                    .filter_map(|(i, s)| Some((Id::ImatchLexicons, i, (*s)? as u64))),
            );
        }
        if let Some(w) = &f.winnow {
            let m = self.config.winnow_modulus.max(1);
            keys.extend(
                w.hashes
                    .iter()
                    .filter(|&&h| (u64::from(h) >> 7) % m == 0)
                    .map(|&h| (Id::Winnow, 0, u64::from(h))),
            );
        }
        keys
    }

    /// A document's key counts in the inverted indexes.
    pub fn key_counts(&self, f: &Fingerprints) -> KeyCounts {
        count_keys(&self.keys(f))
    }

    /// A document's entries in the index ([`DocKeys`]).
    pub fn doc_keys(&self, f: &Fingerprints) -> DocKeys {
        let keys = self.keys(f);
        let mut slots: Vec<u32> = keys
            .iter()
            .map(|&(algo, table, key)| slot(algo, table, key))
            .collect();
        // Sorted: a reopen files each group of shards from its own run.
        slots.sort_unstable();
        DocKeys {
            counts: count_keys(&keys),
            slots,
        }
    }

    /// [`CandidateTables::insert`] of many documents: their keys are derived
    /// in parallel a chunk at a time, then all are filed in one batch.
    /// Returns each document's keys ([`CandidateTables::doc_keys`]), in
    /// order: what an index stores beside its fingerprints.
    pub fn insert_many(&mut self, docs: &[(DocId, &Fingerprints)]) -> Vec<DocKeys> {
        self.insert_many_noting(docs, |_| {})
    }

    /// [`CandidateTables::insert_many`], showing `note` each document's
    /// slots as it files them.
    fn insert_many_noting(
        &mut self,
        docs: &[(DocId, &Fingerprints)],
        mut note: impl FnMut(&[u32]),
    ) -> Vec<DocKeys> {
        self.fill_restored();
        let mut batch = self.tables.batch(docs.len() * 300);
        let filed = self.keyed_in_chunks(docs, |tables, id, keys, si| {
            note(&keys.slots);
            tables.file_into(&mut batch, id, keys, si);
        });
        self.tables.file_batch(batch);
        filed
    }

    /// Each document's keys and SI index, derived in parallel a chunk at a
    /// time and handed to `file`, in order; the keys, in order.
    fn keyed_in_chunks(
        &mut self,
        docs: &[(DocId, &Fingerprints)],
        mut file: impl FnMut(&mut Self, DocId, &DocKeys, Option<u64>),
    ) -> Vec<DocKeys> {
        let mut filed = Vec::with_capacity(docs.len());
        for chunk in docs.chunks(4096) {
            let keyed: Vec<(DocKeys, Option<u64>)> = chunk
                .par_iter()
                .map(|&(_, f)| (self.doc_keys(f), si_index(f)))
                .collect();
            for (&(id, _), (keys, si)) in chunk.iter().zip(keyed) {
                file(self, id, &keys, si);
                filed.push(keys);
            }
        }
        filed
    }

    fn file_into(
        &mut self,
        batch: &mut [Vec<(u32, DocId)>],
        id: DocId,
        keys: &DocKeys,
        si: Option<u64>,
    ) {
        self.set_key_counts(id, keys.counts);
        if let Some(si) = si {
            self.si.insert((si, id));
        }
        for &slot in &keys.slots {
            Table::add_to_batch(batch, slot, id);
        }
    }

    /// The key counts filed for document `id` (zero when none).
    pub fn key_counts_of(&self, id: DocId) -> KeyCounts {
        self.key_counts
            .get(id as usize)
            .copied()
            .unwrap_or_default()
    }

    fn set_key_counts(&mut self, id: DocId, counts: KeyCounts) {
        let i = id as usize;
        if self.key_counts.len() <= i {
            self.key_counts.resize(i + 1, KeyCounts::default());
        }
        self.key_counts[i] = counts;
    }

    /// File document `id` under the keys of its full fingerprints.
    pub fn insert(&mut self, id: DocId, f: &Fingerprints) {
        self.fill_restored();
        let keys = self.keys(f);
        self.set_key_counts(id, count_keys(&keys));
        for (algo, table, key) in keys {
            self.tables.insert(slot(algo, table, key), id);
        }
        if let Some(si) = si_index(f) {
            self.si.insert((si, id));
        }
    }

    /// Take document `id`'s SI index out (when its full fingerprints, and
    /// so its other keys, are lost).
    pub fn remove_si(&mut self, id: DocId, si: u64) {
        self.fill_restored();
        self.si.remove(&(si, id));
    }

    /// Take document `id` out (its keys derived from the same fingerprints).
    pub fn remove(&mut self, id: DocId, f: &Fingerprints) {
        self.fill_restored();
        self.set_key_counts(id, KeyCounts::default());
        for (algo, table, key) in self.keys(f) {
            self.tables.remove(slot(algo, table, key), id);
        }
        if let Some(si) = si_index(f) {
            self.si.remove(&(si, id));
        }
    }

    /// Documents (other than `id`) proposed for `f` by any algorithm among
    /// the `visible` ones, and `f`'s own key counts. Which documents are
    /// proposed depends only on the documents filed, never on the order
    /// they came in or on `visible` (which only filters the answer): a
    /// posting list counts all its documents against `max_postings`, and SI
    /// proposes both ways ([`CandidateTables::si_near`] and
    /// [`CandidateTables::si_reverse`]). So proposing is symmetric: `b` is
    /// proposed for `a` exactly when `a` is for `b`.
    ///
    /// `id` must be filed (under `f`'s keys): its own postings, a slot no
    /// other document shares, are passed over without being looked up.
    ///
    /// A document at or above `below` is passed over without asking
    /// `visible`, which must not admit it anyway: a caller whose visible
    /// documents are those with smaller ids says so here (`DocId::MAX`:
    /// no such bound). A fresh index's pairing does, and its queries skip
    /// the tally for about a third of the postings they visit (31 % at
    /// 110k texts).
    pub fn candidates_among(
        &self,
        id: DocId,
        f: &Fingerprints,
        below: DocId,
        visible: &(dyn Fn(DocId) -> bool + Sync),
    ) -> (Candidates, KeyCounts) {
        debug_assert!(self.unfiled.is_none(), "tables filled before a query");
        let keys = self.keys(f);
        let counts = count_keys(&keys);
        let full_lexicon = full_lexicon_is_shingle(f);
        let slots: Vec<u32> = keys
            .iter()
            .map(|&(algo, table, key)| slot(algo, table, key))
            .collect();
        let mut tally = Tally::new();
        self.tables
            .postings_of_each_filed(id, &slots, |i, postings| {
                if self.over_cap(postings) {
                    return;
                }
                let algo = keys[i].0;
                for other in postings.iter().filter(|&other| other < below) {
                    // Found before: it was visible then (`visible` depends
                    // on the document alone), so it is not asked again.
                    let Some(proposal) = tally.entry_if(other, || other != id && visible(other))
                    else {
                        continue;
                    };
                    proposal.by.insert(algo);
                    if full_lexicon && algo == AlgorithmId::SimhashShingle {
                        proposal.by.insert(AlgorithmId::SimhashLexicons);
                    }
                    let shared = &mut proposal.shared[algo as usize];
                    *shared = shared.saturating_add(1);
                }
            });
        if let Some(si) = si_index(f) {
            let near = self.si_near(id, si).0;
            let reverse = self.si_reverse(id, si);
            for other in near.into_iter().chain(reverse).filter(|&o| o < below) {
                if let Some(proposal) = tally.entry_if(other, || visible(other)) {
                    proposal.by.insert(AlgorithmId::Si);
                }
            }
        }
        let mut out = tally.finish();
        for (other, proposal) in &mut out {
            proposal.keys = self
                .key_counts
                .get(*other as usize)
                .copied()
                .unwrap_or_default();
        }
        (out, counts)
    }

    /// Whether a posting list holds more than `max_postings` documents
    /// besides any one of them (boilerplate: it proposes nothing).
    fn over_cap(&self, postings: table::Postings<'_>) -> bool {
        let limit = self.config.max_postings.saturating_add(1);
        postings.bound() > limit && postings.iter().take(limit + 1).count() > limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_core::hash::SplitMix64;
    use proptest::prelude::*;

    /// The slot ranges are disjoint and cover the 32 bits: with `mix32` a
    /// bijection, keys of two algorithms never share a slot.
    #[test]
    fn each_algorithm_has_slots_of_its_own() {
        let mut ranges: Vec<(u64, u64)> = AlgorithmId::ALL
            .iter()
            .map(|&algo| {
                let (start, shift) = slot_range(algo);
                (u64::from(start), u64::from(start) + (1u64 << (32 - shift)))
            })
            .collect();
        ranges.sort_unstable();
        let mut next = 0;
        for (start, end) in ranges {
            assert_eq!(start, next, "the ranges leave no gap and do not overlap");
            next = end;
        }
        assert_eq!(next, 1 << 32);
    }

    /// Prints with an exact signature, a SimHash and a simhash-shingle
    /// fingerprint, some shingles and super-shingles.
    fn prints(
        exact: u64,
        simhash: u64,
        simhash_shingle: u64,
        shingles: Vec<u32>,
        supershingles: Vec<u64>,
    ) -> Fingerprints {
        Fingerprints {
            exact: Some(Some(u128::from(exact))),
            shingle: Some(shingles),
            supershingle: Some(supershingles),
            simhash: Some(Some(simhash)),
            simhash_shingle: Some(Some(simhash_shingle)),
            ..Fingerprints::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// What a document's query tallies for another (the algorithms
        /// proposing it, the keys it shares in each) is what the other's
        /// query tallies for it, under any cap. Random documents drawing
        /// their values from small pools (so they share keys, and lists
        /// fill past small caps), beside two whose keys of different
        /// algorithms shared a slot when a slot was 32 bits of a hash of
        /// (algorithm, table, key): the exact signature of the one and the
        /// simhash-shingle key of table 7 of the other (see
        /// `tests/library.rs`), which the one's query then tallied as exact
        /// and the other's as simhash-shingle.
        #[test]
        fn proposing_is_the_same_from_either_side(
            seed in any::<u64>(),
            docs in 2usize..40,
            max_postings in 1usize..8,
        ) {
            let mut rng = SplitMix64::new(seed);
            let mut pick = |pool: u64| rng.below(pool).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let mut all: Vec<Fingerprints> = (0..docs)
                .map(|_| {
                    let shingles = (0..40).map(|_| (pick(300) >> 32) as u32).collect();
                    let supers = (0..6).map(|_| pick(20)).collect();
                    prints(pick(8), pick(6), pick(6), shingles, supers)
                })
                .collect();
            all.push(prints(0x0685_d5cc_a755_b472, 1, 0x3390_50ea_3d81_d535, vec![], vec![]));
            all.push(prints(1, 1, 0x3390_50ea_3d81_d59a, vec![], vec![]));
            let config = CandidateConfig { max_postings, ..CandidateConfig::default() };
            let mut tables = CandidateTables::new(
                config,
                128,
                0.5,
                &[(AlgorithmId::Simhash, 64), (AlgorithmId::SimhashShingle, 64)],
            );
            let filed: Vec<(DocId, &Fingerprints)> =
                all.iter().enumerate().map(|(i, f)| (i as DocId, f)).collect();
            tables.insert_many(&filed);
            let tallied: Vec<HashMap<DocId, Proposal>> = filed
                .iter()
                .map(|&(id, f)| {
                    let (found, _) = tables.candidates_among(id, f, DocId::MAX, &|_| true);
                    found
                        .into_iter()
                        .map(|(other, mut p)| {
                            // The other's own counts, not what it shares.
                            p.keys = KeyCounts::default();
                            (other, p)
                        })
                        .collect()
                })
                .collect();
            for (a, proposals) in tallied.iter().enumerate() {
                for (&b, proposal) in proposals {
                    prop_assert_eq!(
                        Some(proposal),
                        tallied[b as usize].get(&(a as DocId)),
                        "{} proposes {} by {:?}, not the other way round",
                        a,
                        b,
                        proposal.by
                    );
                }
            }
        }
    }
}
