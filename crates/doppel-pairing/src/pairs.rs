//! The kept pairs of a library, stored as dense fixed-size rows.
//!
//! Re-clustering after a threshold change judges every kept pair, so the
//! pairs live in one contiguous `Vec<PairRow>` (no map or allocation per
//! pair) with a slot map for lookup by document ids. A row holds every
//! algorithm's score losslessly (kind, native value, scale) and is turned
//! back into [`PairScores`] on demand. [`Judge`] resolves a threshold set
//! and fusion rule once so judging a row is a handful of comparisons. The
//! per-algorithm sorted similarities (the thresholds histogram) are cached
//! and brought up to date by merging the pairs added and removed since.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use doppel_core::doc::DocId;
use doppel_core::engine::algo::{AlgorithmId, AlgorithmSet, Score, Unit};
use doppel_core::engine::{Containments, FusionRule, PairScores, Relation, Thresholds};
use doppel_core::hash::{mix64, HashKeyed};

const N: usize = AlgorithmId::ALL.len();

/// Every kept pair's similarity in [0, 1] per algorithm, sorted ascending
/// (incomparable scores left out); shared, so snapshots do not copy it.
pub type Histograms = Arc<BTreeMap<AlgorithmId, Vec<f64>>>;

/// Score kinds as stored in a row.
const MISSING: u8 = 0;
const SIMILARITY: u8 = 1;
const OVERLAP: u8 = 2;
const HAMMING: u8 = 3;
const MATCHES: u8 = 4;
const INCOMPARABLE: u8 = 5;

/// One kept pair (a < b), scores oriented from `a` to `b`.
#[derive(Debug, Clone, PartialEq)]
pub struct PairRow {
    /// The smaller id.
    pub a: DocId,
    /// The larger id.
    pub b: DocId,
    /// The smaller document's shingle count (the containment rule's guard).
    pub smaller_shingles: u32,
    kinds: [u8; N],
    /// Hamming: fingerprint bits; matches: signatures compared; overlap:
    /// the slot of its containments in `overlaps`.
    scales: [u16; N],
    /// The native value ([`Score::value`]); NaN when missing or incomparable.
    values: [f64; N],
    /// (a_in_b, b_in_a) of the overlap scores (shingle's and winnow's).
    overlaps: [(f64, f64); OVERLAP_SLOTS],
}

/// Algorithms scoring set overlap (with containments): shingle and winnow.
const OVERLAP_SLOTS: usize = 2;

impl PairRow {
    /// The row of the pair (a, b), `scores` oriented from `a`; `smaller_shingles` is the smaller document's shingle count.
    pub fn new(
        a: DocId,
        b: DocId,
        scores: impl IntoIterator<Item = (AlgorithmId, Score)>,
        smaller_shingles: usize,
    ) -> Self {
        let mut row = PairRow {
            a,
            b,
            smaller_shingles: u32::try_from(smaller_shingles).unwrap_or(u32::MAX),
            kinds: [MISSING; N],
            scales: [0; N],
            values: [f64::NAN; N],
            overlaps: [(f64::NAN, f64::NAN); OVERLAP_SLOTS],
        };
        let mut overlaps = 0;
        for (id, score) in scores {
            let i = id as usize;
            let (kind, scale) = match score {
                Score::Similarity { .. } => (SIMILARITY, 0),
                Score::Overlap { a_in_b, b_in_a, .. } => {
                    debug_assert!(overlaps < OVERLAP_SLOTS, "more overlap scores than slots");
                    let slot = overlaps.min(OVERLAP_SLOTS - 1);
                    overlaps += 1;
                    row.overlaps[slot] = (a_in_b, b_in_a);
                    (OVERLAP, slot as u16)
                }
                // Fingerprints of at most 64 bits; compared signatures (a
                // configuration's lexicons or super-shingle groups) are
                // counted far below 65,536.
                Score::Hamming { bits, .. } => (HAMMING, bits as u16),
                Score::Matches { of, .. } => (MATCHES, u16::try_from(of).unwrap_or(u16::MAX)),
                Score::Incomparable => (INCOMPARABLE, 0),
            };
            row.kinds[i] = kind;
            row.scales[i] = scale;
            row.values[i] = score.value().unwrap_or(f64::NAN);
        }
        row
    }

    /// The score of one algorithm, as it was stored.
    pub fn score(&self, id: AlgorithmId) -> Option<Score> {
        let i = id as usize;
        let v = self.values[i];
        Some(match self.kinds[i] {
            SIMILARITY => Score::Similarity { value: v },
            OVERLAP => {
                let (a_in_b, b_in_a) = self.overlaps[self.scales[i] as usize];
                Score::Overlap {
                    resemblance: v,
                    a_in_b,
                    b_in_a,
                }
            }
            HAMMING => Score::Hamming {
                distance: v as u32,
                bits: u32::from(self.scales[i]),
            },
            MATCHES => Score::Matches {
                matched: v as u32,
                of: u32::from(self.scales[i]),
            },
            INCOMPARABLE => Score::Incomparable,
            _ => return None,
        })
    }

    /// Whether `other` holds the same pair and scores, bit for bit (`==`
    /// never holds for a row with a missing score, whose value is NaN).
    pub fn same_as(&self, other: &PairRow) -> bool {
        let overlap_bits = |row: &PairRow| row.overlaps.map(|(x, y)| (x.to_bits(), y.to_bits()));
        (
            self.a,
            self.b,
            self.smaller_shingles,
            self.kinds,
            self.scales,
        ) == (
            other.a,
            other.b,
            other.smaller_shingles,
            other.kinds,
            other.scales,
        ) && self.values.map(f64::to_bits) == other.values.map(f64::to_bits)
            && overlap_bits(self) == overlap_bits(other)
    }

    /// Every stored score, oriented from `a` to `b`.
    pub fn scores(&self) -> PairScores {
        AlgorithmId::ALL
            .into_iter()
            .filter_map(|id| Some((id, self.score(id)?)))
            .collect()
    }

    /// Every stored score, oriented from `from` (one end of the pair).
    pub fn scores_from(&self, from: DocId) -> PairScores {
        if from == self.a {
            return self.scores();
        }
        AlgorithmId::ALL
            .into_iter()
            .filter_map(|id| Some((id, self.score(id)?.swapped())))
            .collect()
    }

    /// How many algorithms scored the pair.
    pub fn scored(&self) -> usize {
        self.kinds.iter().filter(|&&k| k != MISSING).count()
    }

    /// [`Score::similarity`] of one algorithm without building the score;
    /// `None` when it is missing or incomparable.
    pub fn similarity(&self, id: AlgorithmId) -> Option<f64> {
        let i = id as usize;
        let v = self.values[i];
        match self.kinds[i] {
            SIMILARITY | OVERLAP => Some(v),
            HAMMING => Some(1.0 - v / f64::from(self.scales[i].max(1))),
            MATCHES => Some(v / f64::from(self.scales[i].max(1))),
            _ => None,
        }
    }

    /// The larger containment of one side in the other by shingles (the
    /// fusion rule's containment).
    pub fn containment(&self) -> Option<f64> {
        self.containments().map(Containments::larger)
    }

    /// Both containments by shingles, oriented from `a` (the fusion rule's
    /// and the relation's).
    pub fn containments(&self) -> Option<Containments> {
        let i = AlgorithmId::Shingle as usize;
        (self.kinds[i] == OVERLAP).then(|| {
            let (a_in_b, b_in_a) = self.overlaps[self.scales[i] as usize];
            Containments { a_in_b, b_in_a }
        })
    }
}

/// A threshold set and fusion rule resolved for judging many rows.
#[derive(Debug, Clone)]
pub struct Judge {
    thresholds: [f64; N],
    lower_is_closer: [bool; N],
    voters: AlgorithmSet,
    fusion: FusionRule,
}

impl Judge {
    /// Resolve `thresholds` and the fusion rule for judging rows.
    pub fn new(thresholds: &Thresholds, fusion: &FusionRule) -> Self {
        Judge {
            thresholds: AlgorithmId::ALL.map(|id| thresholds.get(id)),
            lower_is_closer: AlgorithmId::ALL.map(|id| id.unit() == Unit::HammingBits),
            voters: fusion.voters.iter().copied().collect(),
            fusion: fusion.clone(),
        }
    }

    /// The algorithms whose threshold the pair passes (as [`Score::passes`]:
    /// NaN, i.e. missing or incomparable, passes nothing).
    pub fn passing(&self, row: &PairRow) -> AlgorithmSet {
        let mut set = AlgorithmSet::default();
        for (i, id) in AlgorithmId::ALL.into_iter().enumerate() {
            let (v, t) = (row.values[i], self.thresholds[i]);
            if (self.lower_is_closer[i] && v <= t) || (!self.lower_is_closer[i] && v >= t) {
                set.insert(id);
            }
        }
        set
    }

    /// The `fusion` verdict for a row whose passing set is `passing`.
    pub fn fusion(&self, row: &PairRow, passing: AlgorithmSet) -> bool {
        self.fusion.decides(
            FusionRule::family_votes(passing.intersection(self.voters)),
            row.containments(),
            row.smaller_shingles as usize,
        )
    }

    /// What the row's documents are to each other under the `fusion`
    /// verdict `duplicate` (oriented from `a`).
    pub fn relation(&self, row: &PairRow, duplicate: bool) -> Option<Relation> {
        self.fusion
            .relations
            .relation(row.containments(), row.smaller_shingles as usize, duplicate)
    }
}

/// Sorted similarities as last computed, and the changes since.
#[derive(Debug, Default)]
struct HistogramState {
    base: Option<Histograms>,
    added: Vec<(AlgorithmId, f64)>,
    removed: Vec<(AlgorithmId, f64)>,
}

/// The pairs inserted, replaced or removed since the last
/// [`PairTable::take_touched`] (`tracking` false before the first call and
/// after more changed than the table holds).
#[derive(Debug, Default)]
struct Touched {
    tracking: bool,
    pairs: Vec<(DocId, DocId)>,
}

/// Rows per segment of a [`PairTable`].
const SEGMENT: usize = 4096;

/// The kept pairs: dense rows plus a slot per ordered pair. The rows live
/// in segments of 4,096, so a growing table never holds a vector
/// twice the size of its rows (old and new while it reallocates) nor
/// leaves half of one unused.
#[derive(Debug, Default)]
pub struct PairTable {
    slots: HashKeyed<u32>,
    segments: Vec<Vec<PairRow>>,
    len: usize,
    histograms: Mutex<HistogramState>,
    touched: Mutex<Touched>,
}

impl Clone for PairTable {
    /// A clone starts without cached histograms or a log of touched
    /// pairs, since its pairs may then change independently.
    fn clone(&self) -> Self {
        PairTable {
            slots: self.slots.clone(),
            segments: self.segments.clone(),
            len: self.len,
            histograms: Default::default(),
            touched: Default::default(),
        }
    }
}

/// A uniform map key for an ordered pair (`mix64` is a bijection, so keys
/// never collide).
fn key(a: DocId, b: DocId) -> u64 {
    mix64(u64::from(a.min(b)) << 32 | u64::from(a.max(b)))
}

impl PairTable {
    /// How many pairs are kept.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no pair is kept.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every row.
    pub fn rows(&self) -> impl Iterator<Item = &PairRow> + '_ {
        self.segments.iter().flatten()
    }

    /// Every row, for rayon.
    pub fn par_rows(&self) -> impl rayon::iter::ParallelIterator<Item = &PairRow> + '_ {
        use rayon::prelude::*;
        self.segments.par_iter().flat_map_iter(|s| s.iter())
    }

    fn row(&self, slot: u32) -> &PairRow {
        let slot = slot as usize;
        &self.segments[slot / SEGMENT][slot % SEGMENT]
    }

    /// The row of the pair {a, b} (stored with a < b).
    pub fn get(&self, a: DocId, b: DocId) -> Option<&PairRow> {
        self.slots.get(&key(a, b)).map(|&s| self.row(s))
    }

    /// Whether the pair {a, b} is kept.
    pub fn contains(&self, a: DocId, b: DocId) -> bool {
        self.slots.contains_key(&key(a, b))
    }

    /// Room for `additional` more pairs.
    pub fn reserve(&mut self, additional: usize) {
        self.slots.reserve(additional);
    }

    /// Insert or replace a row (its `a` < `b`).
    pub fn insert(&mut self, row: PairRow) {
        debug_assert!(row.a < row.b);
        self.remove(row.a, row.b);
        self.record(&row, true);
        self.slots.insert(key(row.a, row.b), self.len as u32);
        match self.segments.last_mut() {
            Some(last) if last.len() < SEGMENT => last.push(row),
            _ => {
                let mut segment = Vec::with_capacity(SEGMENT);
                segment.push(row);
                self.segments.push(segment);
            }
        }
        self.len += 1;
    }

    /// Remove the pair {a, b}; false if it was not kept. The last row
    /// takes its place.
    pub fn remove(&mut self, a: DocId, b: DocId) -> bool {
        let Some(slot) = self.slots.remove(&key(a, b)) else {
            return false;
        };
        let last = self.segments.last_mut().expect("a kept pair has a row");
        let mut row = last.pop().expect("segments are never empty");
        if last.is_empty() {
            self.segments.pop();
        }
        self.len -= 1;
        let slot = slot as usize;
        if slot < self.len {
            // The last row moves into the removed one's place.
            std::mem::swap(&mut row, &mut self.segments[slot / SEGMENT][slot % SEGMENT]);
            let moved = &self.segments[slot / SEGMENT][slot % SEGMENT];
            self.slots.insert(key(moved.a, moved.b), slot as u32);
        }
        self.record(&row, false);
        true
    }

    /// Note a row's similarities as added or removed since the cached
    /// histograms (dropping the cache when the changes outgrow it).
    fn record(&mut self, row: &PairRow, added: bool) {
        let touched = self.touched.get_mut().unwrap_or_else(|e| e.into_inner());
        if touched.tracking {
            touched.pairs.push((row.a, row.b));
            if touched.pairs.len() > self.len {
                *touched = Touched::default();
            }
        }
        let state = self.histograms.get_mut().unwrap_or_else(|e| e.into_inner());
        if state.base.is_none() {
            return;
        }
        let log = if added {
            &mut state.added
        } else {
            &mut state.removed
        };
        log.extend(
            AlgorithmId::ALL
                .into_iter()
                .filter_map(|id| Some((id, row.similarity(id)?))),
        );
        if state.added.len() + state.removed.len() > self.len {
            *state = HistogramState::default();
        }
    }

    /// The pairs (a < b, unordered, possibly repeated) inserted, replaced
    /// or removed since the last call; `None` on the first call and when
    /// more changed than the table holds (judge every row again then).
    pub fn take_touched(&self) -> Option<Vec<(DocId, DocId)>> {
        let mut touched = self.touched.lock().unwrap_or_else(|e| e.into_inner());
        let since = touched.tracking.then(|| std::mem::take(&mut touched.pairs));
        touched.tracking = true;
        since
    }

    /// The sorted similarity of every kept pair per algorithm: computed in
    /// full once, then updated by merging the changes since.
    pub fn histograms(&self) -> Histograms {
        let mut state = self.histograms.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = match state.base.take() {
            None => self.full_histograms(),
            Some(base) if state.added.is_empty() && state.removed.is_empty() => base,
            Some(base) => {
                let (mut added, mut removed) = (
                    std::mem::take(&mut state.added),
                    std::mem::take(&mut state.removed),
                );
                added.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
                removed.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
                let of = |log: &[(AlgorithmId, f64)], id: AlgorithmId| -> Vec<f64> {
                    log.iter().filter(|e| e.0 == id).map(|e| e.1).collect()
                };
                let ids: Vec<AlgorithmId> = base
                    .keys()
                    .copied()
                    .chain(added.iter().map(|e| e.0))
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect();
                let empty = Vec::new();
                Arc::new(
                    ids.into_iter()
                        .map(|id| {
                            let old = base.get(&id).unwrap_or(&empty);
                            (id, merge(old, &of(&added, id), &of(&removed, id)))
                        })
                        .filter(|(_, v)| !v.is_empty())
                        .collect(),
                )
            }
        };
        state.base = Some(fresh.clone());
        fresh
    }

    fn full_histograms(&self) -> Histograms {
        use rayon::prelude::*;
        let mut map: BTreeMap<AlgorithmId, Vec<f64>> = BTreeMap::new();
        for id in AlgorithmId::ALL {
            let v: Vec<f64> = self.rows().filter_map(|r| r.similarity(id)).collect();
            if !v.is_empty() {
                map.insert(id, v);
            }
        }
        map.par_iter_mut()
            .for_each(|(_, v)| v.sort_unstable_by(f64::total_cmp));
        Arc::new(map)
    }
}

/// `old` (sorted) with the sorted `added` merged in and one occurrence of
/// each of the sorted `removed` taken out.
fn merge(old: &[f64], added: &[f64], removed: &[f64]) -> Vec<f64> {
    // A change is a few values against hundreds of thousands: the runs
    // between them are found by binary search and copied whole.
    let mut out = Vec::with_capacity(old.len() + added.len());
    let mut from = 0;
    for &v in added {
        let run = old[from..].partition_point(|x| x.total_cmp(&v).is_le());
        out.extend_from_slice(&old[from..from + run]);
        out.push(v);
        from += run;
    }
    out.extend_from_slice(&old[from..]);
    let (mut write, mut read) = (0, 0);
    for &v in removed {
        let run = out[read..].partition_point(|x| x.total_cmp(&v).is_lt());
        out.copy_within(read..read + run, write);
        (write, read) = (write + run, read + run);
        if out.get(read).is_some_and(|x| x.total_cmp(&v).is_eq()) {
            read += 1;
        }
    }
    let len = out.len();
    out.copy_within(read..len, write);
    out.truncate(write + len - read);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_core::engine::FusionConfig;
    use proptest::prelude::*;

    fn scores(seed: u32) -> PairScores {
        let s = f64::from(seed % 100) / 100.0;
        PairScores::from([
            (
                AlgorithmId::Exact,
                Score::Matches {
                    matched: seed % 2,
                    of: 1,
                },
            ),
            (
                AlgorithmId::Shingle,
                Score::Overlap {
                    resemblance: s,
                    a_in_b: s,
                    b_in_a: 1.0 - s,
                },
            ),
            (AlgorithmId::Minhash, Score::Similarity { value: s }),
            (
                AlgorithmId::Winnow,
                Score::Overlap {
                    resemblance: s / 2.0,
                    a_in_b: 0.25,
                    b_in_a: s,
                },
            ),
            (
                AlgorithmId::Simhash,
                Score::Hamming {
                    distance: seed % 64,
                    bits: 64,
                },
            ),
            (AlgorithmId::Si, Score::Incomparable),
        ])
    }

    #[test]
    fn rows_across_segments_stay_findable_through_removals() {
        let mut table = PairTable::default();
        let n = 3 * SEGMENT as u32 + 17;
        for b in 1..=n {
            table.insert(PairRow::new(0, b, scores(b), 60));
        }
        assert_eq!(table.len(), n as usize);
        let mut rng = doppel_core::hash::SplitMix64::new(4);
        let mut kept: Vec<u32> = Vec::new();
        for b in 1..=n {
            if rng.below(2) == 0 {
                assert!(table.remove(b, 0));
            } else {
                kept.push(b);
            }
        }
        assert!(!table.remove(0, 1) || kept.contains(&1));
        assert_eq!(table.len(), table.rows().count());
        for &b in &kept {
            let row = table.get(0, b).expect("kept");
            assert_eq!((row.a, row.b), (0, b));
            assert_eq!(row.scores(), scores(b));
        }
        assert_eq!(
            rayon::iter::ParallelIterator::count(table.par_rows()),
            table.len()
        );
    }

    #[test]
    fn rows_give_back_the_scores_they_were_made_from() {
        for seed in 0..200 {
            let s = scores(seed);
            let row = PairRow::new(1, 2, s.clone(), 60);
            assert_eq!(row.scores(), s);
            assert_eq!(row.scored(), s.len());
            for (id, score) in &s {
                let expected = (*score != Score::Incomparable).then(|| score.similarity());
                assert_eq!(row.similarity(*id), expected, "{id}");
            }
        }
    }

    #[test]
    fn the_judge_agrees_with_the_engine_verdict() {
        use AlgorithmId as Id;
        let enabled_sets: [&[AlgorithmId]; 4] = [
            &AlgorithmId::ALL,
            &[Id::Minhash],
            &[Id::Minhash, Id::Simhash, Id::Si],
            &[Id::Shingle, Id::Si],
        ];
        for enabled in enabled_sets {
            let enabled: std::collections::BTreeSet<AlgorithmId> =
                enabled.iter().copied().collect();
            for min_agree in 1..=3 {
                let fusion = FusionConfig {
                    min_agree,
                    ..FusionConfig::default()
                }
                .rule(&enabled);
                let mut thresholds = Thresholds::default();
                for step in 0..20 {
                    thresholds.set(Id::Minhash, f64::from(step) / 20.0);
                    thresholds.set(Id::Simhash, f64::from(step * 3));
                    let judge = Judge::new(&thresholds, &fusion);
                    for seed in 0..100 {
                        // Only enabled algorithms score a pair.
                        let s: PairScores = scores(seed)
                            .into_iter()
                            .filter(|(id, _)| enabled.contains(id))
                            .collect();
                        let row = PairRow::new(1, 2, s.clone(), 40 + seed as usize % 30);
                        let v = doppel_core::engine::verdict(
                            &s,
                            &thresholds,
                            &fusion,
                            row.smaller_shingles as usize,
                        );
                        let passing = judge.passing(&row);
                        assert_eq!(passing.iter().collect::<Vec<_>>(), v.passing);
                        assert_eq!(judge.fusion(&row, passing), v.fusion, "{enabled:?}");
                        assert_eq!(judge.relation(&row, v.fusion), v.relation, "{enabled:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn slots_follow_rows_moved_by_removal() {
        let mut table = PairTable::default();
        for b in 1..50 {
            table.insert(PairRow::new(0, b, scores(b), 60));
        }
        assert!(table.remove(0, 7));
        assert!(!table.remove(7, 0), "removed once");
        assert!(table.remove(10, 0), "either order names the pair");
        assert_eq!(table.len(), 47);
        for b in (1..50).filter(|b| ![7, 10].contains(b)) {
            assert_eq!(table.get(b, 0).map(|r| r.b), Some(b));
        }
    }

    proptest! {
        /// Fusion counts families, each once, and follows the enabled set:
        /// a pair every computed voter passes is a duplicate (the families
        /// they can give decide), one whose agreeing families weigh fewer
        /// than min(min_agree, what they can give) votes is not, and one
        /// with min_agree votes is (containment aside). Two algorithms of
        /// one family weigh what one does.
        #[test]
        fn fusion_needs_the_votes_the_enabled_voters_can_give(
            enabled in proptest::collection::btree_set(proptest::sample::select(AlgorithmId::ALL.to_vec()), 1..=11),
            passing in proptest::collection::btree_set(proptest::sample::select(AlgorithmId::ALL.to_vec()), 0..=11),
            min_agree in 1usize..=10,
        ) {
            use doppel_core::engine::Family;
            let config = FusionConfig { min_agree, ..FusionConfig::default() };
            let rule = config.rule(&enabled);
            // Scores of the enabled algorithms, passing the default
            // thresholds or not.
            let scores: PairScores = enabled
                .iter()
                .map(|&id| {
                    let pass = passing.contains(&id);
                    let score = match id.unit() {
                        Unit::HammingBits => Score::Hamming { distance: if pass { 0 } else { 64 }, bits: 64 },
                        Unit::Matches => Score::Matches { matched: if pass { 10 } else { 0 }, of: 10 },
                        Unit::Similarity => Score::Similarity { value: if pass { 1.0 } else { 0.0 } },
                    };
                    (id, score)
                })
                .collect();
            let thresholds = Thresholds::default();
            let judge = Judge::new(&thresholds, &rule);
            // Documents long enough for votes (short ones need their same
            // text: `FusionRule::decides`).
            let row = PairRow::new(1, 2, scores.clone(), 1_000);
            let fusion = doppel_core::engine::verdict(&scores, &thresholds, &rule, 1_000).fusion;
            prop_assert_eq!(judge.fusion(&row, judge.passing(&row)), fusion);
            // Counted here from the definition: distinct families of the
            // passing voters, weighted.
            let voters: Vec<_> = enabled.iter().filter(|id| config.voters.contains(id)).collect();
            let family_set = |ids: &mut dyn Iterator<Item = &&AlgorithmId>| {
                ids.map(|&&id| Family::of(id)).collect::<std::collections::BTreeSet<_>>()
            };
            let can_give: usize = family_set(&mut voters.iter()).into_iter().map(Family::weight).sum();
            let votes: usize = family_set(&mut voters.iter().filter(|id| passing.contains(id)))
                .into_iter()
                .map(Family::weight)
                .sum();
            if !voters.is_empty() && votes == can_give {
                prop_assert!(fusion, "every enabled family agrees");
            }
            if votes < min_agree.min(can_give).max(1) {
                prop_assert!(!fusion, "{} votes", votes);
            }
            if votes >= min_agree {
                prop_assert!(fusion, "{} votes", votes);
            }
        }

        /// The judge's fast path equals the engine's verdict on random
        /// scores, voter sets and min_agree (families counted once on both).
        #[test]
        fn the_judge_counts_families_as_the_verdict_does(
            voters in proptest::collection::btree_set(proptest::sample::select(AlgorithmId::ALL.to_vec()), 1..=11),
            seed in 0u32..500,
            min_agree in 1usize..=5,
        ) {
            let config = FusionConfig { min_agree, voters, ..FusionConfig::default() };
            let rule = config.rule(&AlgorithmId::ALL.into_iter().collect());
            let thresholds = Thresholds::default();
            let judge = Judge::new(&thresholds, &rule);
            let s = scores(seed);
            let row = PairRow::new(1, 2, s.clone(), 40 + seed as usize % 30);
            let v = doppel_core::engine::verdict(&s, &thresholds, &rule, row.smaller_shingles as usize);
            prop_assert_eq!(judge.fusion(&row, judge.passing(&row)), v.fusion);
        }

        /// The merge is the sorted multiset old + added − removed (a removed
        /// value not there takes nothing out).
        #[test]
        fn merge_is_a_multiset_update(
            mut old in proptest::collection::vec(0u8..20, 0..200),
            mut added in proptest::collection::vec(0u8..20, 0..30),
            mut removed in proptest::collection::vec(0u8..25, 0..30),
        ) {
            old.sort_unstable();
            added.sort_unstable();
            removed.sort_unstable();
            let f = |v: &[u8]| v.iter().map(|&x| f64::from(x) / 8.0).collect::<Vec<f64>>();
            let mut expected: Vec<u8> = old.iter().chain(&added).copied().collect();
            expected.sort_unstable();
            for r in &removed {
                if let Some(at) = expected.iter().position(|x| x == r) {
                    expected.remove(at);
                }
            }
            prop_assert_eq!(merge(&f(&old), &f(&added), &f(&removed)), f(&expected));
        }

        /// Histograms brought up to date by merging equal ones computed afresh.
        #[test]
        fn merged_histograms_equal_fresh_ones(
            first in proptest::collection::vec(1u32..400, 1..60),
            second in proptest::collection::vec(1u32..400, 0..20),
            drop in proptest::collection::vec(1u32..400, 0..20),
        ) {
            let mut table = PairTable::default();
            for &b in &first {
                table.insert(PairRow::new(0, b, scores(b * 7), 60));
            }
            let _ = table.histograms();
            for &b in &second {
                table.insert(PairRow::new(1000, 1000 + b, scores(b * 3), 60));
            }
            for &b in &drop {
                table.remove(0, b);
            }
            let merged = table.histograms();
            prop_assert_eq!(&*merged, &*table.clone().full_histograms());
        }
    }
}
