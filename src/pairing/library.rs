//! The in-memory library: documents, their candidate index, every verified
//! pair, curator verdicts, and clusters under live thresholds.
//!
//! Adding a document proposes candidates from the index, verifies each one
//! with every algorithm, and keeps the pair (with all its scores) when any
//! algorithm passes its permissive *floor* or the containment floor. Moving
//! a threshold anywhere at or above the floors re-clusters from the kept
//! pairs without touching fingerprints; [`Library::floors_allow`] tells
//! when a requested threshold is looser than a floor and candidates must be
//! re-gathered with [`Library::regather`]. Curator verdicts (keyed by path)
//! override the algorithms and survive re-indexing.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::doc::{ordered_pair, CuratorVerdict, DocId, DocPath};
use crate::engine::algo::{AlgorithmId, AlgorithmSet, Score};
use crate::engine::{Engine, Fingerprints, FusionRule, HotPrints, PairScores, Thresholds};
use crate::pairing::candidates::{CandidateConfig, CandidateIndex, DocKeys, Restore};
use crate::pairing::cluster::UnionFind;
pub use crate::pairing::pairs::Histograms;
use crate::pairing::pairs::{Judge, PairRow, PairTable};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct LibraryConfig {
    pub candidates: CandidateConfig,
    /// Pairs are kept when any algorithm passes its floor (the loosest
    /// threshold that can be set without re-gathering candidates).
    pub floors: Thresholds,
    /// ... or when containment reaches this. Default: 0.5.
    pub containment_floor: f64,
}

impl Default for LibraryConfig {
    fn default() -> Self {
        use AlgorithmId::*;
        Self {
            candidates: CandidateConfig::default(),
            floors: Thresholds(BTreeMap::from([
                (Exact, 1.0),
                (Shingle, 0.15),
                (Minhash, 0.15),
                (Supershingle, 1.0),
                (Simhash, 12.0),
                (SimhashShingle, 18.0),
                (SimhashLexicons, 16.0),
                (Imatch, 1.0),
                (ImatchLexicons, 1.0),
                (Winnow, 0.15),
                (Si, 0.7),
            ])),
            containment_floor: 0.5,
        }
    }
}

/// One indexed document.
#[derive(Debug, Clone)]
pub struct DocInfo {
    pub path: DocPath,
    /// Order of first arrival (the earliest is the likely original).
    pub seen: u64,
    /// The fingerprints the cheap candidate checks read; the full ones are
    /// in the library's memory or its [`PrintSource`].
    pub hot: HotPrints,
    /// Distinct word-shingle count (the containment rule's size guard).
    pub shingles: usize,
}

/// Where a library finds the full fingerprints of documents it holds when
/// it keeps only their hot part in memory ([`Library::new_external`]): an
/// index's store. Asked only from the calling thread.
pub trait PrintSource {
    /// The full fingerprints of the documents at these paths, in order
    /// (`None` for a path it does not have).
    fn full_prints(&self, paths: &[&DocPath]) -> anyhow::Result<Vec<Option<Fingerprints>>>;
}

/// A source with nothing in it: for a library that keeps full
/// fingerprints itself ([`Library::new`]), or one that only ever takes one
/// batch of documents into an empty library.
pub struct NoPrints;

impl PrintSource for NoPrints {
    fn full_prints(&self, paths: &[&DocPath]) -> anyhow::Result<Vec<Option<Fingerprints>>> {
        Ok(vec![None; paths.len()])
    }
}

/// Full fingerprints kept in memory by path (tests, and sources of small
/// libraries).
#[derive(Debug, Clone, Default)]
pub struct MemoryPrints(pub HashMap<DocPath, Fingerprints>);

impl PrintSource for MemoryPrints {
    fn full_prints(&self, paths: &[&DocPath]) -> anyhow::Result<Vec<Option<Fingerprints>>> {
        Ok(paths.iter().map(|p| self.0.get(*p).cloned()).collect())
    }
}

/// What defines a duplicate link for clustering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterBy {
    Fusion,
    Algorithm(AlgorithmId),
}

/// How links become clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterMode {
    /// Connected components: A~B and B~C put A, B, C together.
    #[default]
    Components,
    /// Star (centre) clustering: every member is directly linked to its
    /// cluster's centre, so chains never merge unrelated documents.
    Star,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterSpec {
    pub by: ClusterBy,
    pub mode: ClusterMode,
    pub thresholds: Thresholds,
    /// The fusion rule for the engine's enabled algorithms.
    pub fusion: FusionRule,
}

impl ClusterSpec {
    pub fn from_engine(engine: &Engine) -> Self {
        Self {
            by: ClusterBy::Fusion,
            mode: ClusterMode::Components,
            thresholds: engine.config().thresholds.clone(),
            fusion: engine.fusion_rule().clone(),
        }
    }
}

/// A cluster of two or more documents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterInfo {
    /// Members; the representative first, then by arrival.
    pub members: Vec<DocId>,
    /// The weakest link: its two ends and its strength in [0, 1] (the
    /// cluster-by algorithm's similarity; for fusion, the share of
    /// algorithms that agree).
    pub weakest: Option<(DocId, DocId, f64)>,
    /// Algorithms that pass on every link of the cluster.
    pub agreeing: Vec<AlgorithmId>,
    /// Some algorithm passes on some links but not on others.
    pub disagreement: bool,
}

impl ClusterInfo {
    pub fn representative(&self) -> DocId {
        self.members[0]
    }
}

/// A verified pair and what the current spec says about it.
#[derive(Debug, Clone)]
pub struct Link {
    pub a: DocId,
    pub b: DocId,
    pub passing: AlgorithmSet,
    pub strength: f64,
}

/// Document ids by path. The table holds ids only and hashes each from the
/// path its document holds, so a path is stored once (in its [`DocInfo`]),
/// not again as a map key. Every id in it has a document.
#[derive(Debug, Clone, Default)]
struct PathIndex(hashbrown::HashTable<DocId>);

fn path_hash(path: &DocPath) -> u64 {
    crate::hash::hash64(path.as_bytes(), 0x7061_7468)
}

impl PathIndex {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn path_of(docs: &[Option<DocInfo>], id: DocId) -> &DocPath {
        &docs[id as usize]
            .as_ref()
            .expect("an indexed id has a document")
            .path
    }

    fn get(&self, docs: &[Option<DocInfo>], path: &DocPath) -> Option<DocId> {
        self.0
            .find(path_hash(path), |&id| Self::path_of(docs, id) == path)
            .copied()
    }

    /// Index `id` by the path of its document (not indexed yet).
    fn insert(&mut self, docs: &[Option<DocInfo>], id: DocId) {
        let hash = path_hash(Self::path_of(docs, id));
        self.0
            .insert_unique(hash, id, |&other| path_hash(Self::path_of(docs, other)));
    }

    /// Take `id` out (its document still in `docs`).
    fn remove(&mut self, docs: &[Option<DocInfo>], id: DocId) {
        if let Ok(entry) = self
            .0
            .find_entry(path_hash(Self::path_of(docs, id)), |&x| x == id)
        {
            entry.remove();
        }
    }

    fn reserve(&mut self, additional: usize, docs: &[Option<DocInfo>]) {
        self.0
            .reserve(additional, |&id| path_hash(Self::path_of(docs, id)));
    }
}

#[derive(Debug, Clone)]
pub struct Library {
    config: LibraryConfig,
    docs: Vec<Option<DocInfo>>,
    free: Vec<DocId>,
    by_path: PathIndex,
    index: CandidateIndex,
    pairs: PairTable,
    /// The other ends of each document's kept pairs (by id), sorted.
    neighbours: Vec<Neighbours>,
    pair_verdicts: HashMap<(DocPath, DocPath), CuratorVerdict>,
    keeps: HashSet<DocPath>,
    si_capped: HashSet<DocId>,
    next_seen: u64,
    /// Every document's full fingerprints, by id, when the library keeps
    /// them itself ([`Library::new`]); `None` when a [`PrintSource`] holds
    /// them ([`Library::new_external`]).
    full: Option<Vec<Option<Fingerprints>>>,
}

/// The other ends of one document's kept pairs, sorted: most documents
/// have a few, kept inline.
type Neighbours = smallvec::SmallVec<[DocId; 4]>;

/// Verified candidates of one document, and whether the SI cap cut some off.
type Verified = (Vec<(DocId, PairScores)>, bool);

/// Documents proposed for one new document that pass a cheap check, each
/// with the signature algorithms whose real score must confirm it (empty
/// when a check on real values passed), and whether the SI cap cut some
/// off.
type Promising = (Vec<(DocId, AlgorithmSet)>, bool);

/// `ids` without repeats, first occurrences in order.
fn distinct(ids: &[DocId]) -> Vec<DocId> {
    let mut once = HashSet::new();
    ids.iter().copied().filter(|&id| once.insert(id)).collect()
}

fn ordered(a: DocId, b: DocId) -> (DocId, DocId) {
    (a.min(b), a.max(b))
}

impl Library {
    /// A library that keeps every document's full fingerprints in memory.
    pub fn new(engine: &Engine, config: LibraryConfig) -> Self {
        let mut library = Self::new_external(engine, config);
        library.full = Some(Vec::new());
        library
    }

    /// A library that keeps only each document's [`HotPrints`] (about 0.3
    /// KB instead of 5): verifying candidates, removing and re-gathering
    /// read the full fingerprints from the [`PrintSource`] the caller
    /// passes.
    pub fn new_external(engine: &Engine, config: LibraryConfig) -> Self {
        let a = &engine.config().algorithms;
        let bits = [
            (AlgorithmId::Simhash, a.simhash.bits),
            (AlgorithmId::SimhashShingle, a.simhash_shingle.bits),
            (AlgorithmId::SimhashLexicons, a.simhash_lexicons.bits),
        ];
        let index = CandidateIndex::new(
            config.candidates.clone(),
            a.minhash.num_perm,
            config.floors.get(AlgorithmId::Minhash),
            &bits,
        );
        Self {
            config,
            docs: Vec::new(),
            free: Vec::new(),
            by_path: PathIndex::default(),
            index,
            pairs: PairTable::default(),
            neighbours: Vec::new(),
            pair_verdicts: HashMap::new(),
            keeps: HashSet::new(),
            si_capped: HashSet::new(),
            next_seen: 0,
            full: None,
        }
    }

    pub fn config(&self) -> &LibraryConfig {
        &self.config
    }

    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    pub fn doc(&self, id: DocId) -> Option<&DocInfo> {
        self.docs.get(id as usize)?.as_ref()
    }

    pub fn id_of(&self, path: &DocPath) -> Option<DocId> {
        self.by_path.get(&self.docs, path)
    }

    /// Every kept pair with its scores (a < b).
    pub fn pairs(&self) -> impl Iterator<Item = (DocId, DocId, PairScores)> + '_ {
        self.pairs.rows().map(|r| (r.a, r.b, r.scores()))
    }

    /// How many pairs are kept.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// The kept pairs of `id`, scores oriented from `id` to the other side.
    pub fn neighbours(&self, id: DocId) -> impl Iterator<Item = (DocId, PairScores)> + '_ {
        self.neighbours
            .get(id as usize)
            .into_iter()
            .flatten()
            .filter_map(move |&other| Some((other, self.pair_from(id, other)?)))
    }

    /// The scores of the kept pair {a, b}, oriented from the smaller id.
    pub fn pair(&self, a: DocId, b: DocId) -> Option<PairScores> {
        Some(self.pairs.get(a, b)?.scores())
    }

    /// The scores of the kept pair {from, to}, oriented from `from`.
    pub fn pair_from(&self, from: DocId, to: DocId) -> Option<PairScores> {
        let scores = self.pairs.get(from, to)?.scores();
        Some(if from < to {
            scores
        } else {
            scores.into_iter().map(|(k, s)| (k, s.swapped())).collect()
        })
    }

    /// The sorted similarity of every kept pair per algorithm (for the
    /// thresholds histogram); updated from the changes since the last call.
    pub fn histograms(&self) -> Histograms {
        self.pairs.histograms()
    }

    /// Documents whose SI candidates were cut by the cap.
    pub fn si_capped(&self) -> usize {
        self.si_capped.len()
    }

    /// Whether a threshold for `id` is within what the kept pairs cover.
    pub fn floors_allow(&self, id: AlgorithmId, threshold: f64) -> bool {
        self.config.floors.allows(id, threshold)
    }

    fn keep(&self, scores: &PairScores) -> bool {
        scores
            .iter()
            .any(|(&id, s)| s.passes(self.config.floors.get(id)))
            || scores
                .get(&AlgorithmId::Shingle)
                .and_then(Score::containment)
                .is_some_and(|c| c >= self.config.containment_floor)
    }

    /// Give a document an id (a freed one if any) and index its path.
    fn allocate(&mut self, info: DocInfo) -> DocId {
        let id = match self.free.pop() {
            Some(id) => {
                self.docs[id as usize] = Some(info);
                id
            }
            None => {
                self.docs.push(Some(info));
                (self.docs.len() - 1) as DocId
            }
        };
        self.by_path.insert(&self.docs, id);
        id
    }

    /// The full fingerprints of `ids` (documents this library holds), from
    /// its memory or from `source`; an id without any is left out.
    fn full_prints_of<'a>(
        &'a self,
        ids: &[DocId],
        source: &dyn PrintSource,
    ) -> anyhow::Result<HashMap<DocId, Cow<'a, Fingerprints>>> {
        if let Some(full) = &self.full {
            return Ok(ids
                .iter()
                .filter_map(|&id| Some((id, Cow::Borrowed(full.get(id as usize)?.as_ref()?))))
                .collect());
        }
        let ids: Vec<DocId> = ids
            .iter()
            .copied()
            .filter(|&id| self.doc(id).is_some())
            .collect();
        let paths: Vec<&DocPath> = ids
            .iter()
            .map(|&id| &self.docs[id as usize].as_ref().expect("live").path)
            .collect();
        let prints = source.full_prints(&paths)?;
        Ok(ids
            .into_iter()
            .zip(prints)
            .filter_map(|(id, f)| Some((id, Cow::Owned(f?))))
            .collect())
    }

    /// Add or replace the document at `path`; returns its id. A replaced
    /// document keeps its arrival order. (A library keeping full
    /// fingerprints itself; see [`Library::upsert_with`].)
    pub fn upsert(
        &mut self,
        engine: &Engine,
        path: &DocPath,
        fingerprints: Fingerprints,
        shingles: usize,
    ) -> DocId {
        self.upsert_with(engine, path, fingerprints, shingles, &NoPrints)
            .expect("a library keeping its own fingerprints reads no source")
    }

    /// [`Library::upsert`] reading full fingerprints from `source`.
    pub fn upsert_with(
        &mut self,
        engine: &Engine,
        path: &DocPath,
        fingerprints: Fingerprints,
        shingles: usize,
        source: &dyn PrintSource,
    ) -> anyhow::Result<DocId> {
        self.extend_with(engine, vec![(path.clone(), fingerprints, shingles)], source)?;
        Ok(self.id_of(path).expect("just added"))
    }

    /// Give a document an id, replacing the one at the same path (whose
    /// arrival order it keeps); it is neither filed nor verified yet.
    fn place(
        &mut self,
        path: DocPath,
        hot: HotPrints,
        shingles: usize,
        source: &dyn PrintSource,
    ) -> anyhow::Result<DocId> {
        let seen = match self.id_of(&path) {
            Some(old) => {
                let seen = self.doc(old).map_or(self.next_seen, |d| d.seen);
                self.remove_id(old, source)?;
                seen
            }
            None => {
                self.next_seen += 1;
                self.next_seen - 1
            }
        };
        let id = self.allocate(DocInfo {
            path,
            seen,
            hot,
            shingles,
        });
        Ok(id)
    }

    /// The documents proposed for `id` (whose full fingerprints are
    /// `full`) among the `visible` ones that pass a cheap check by an
    /// algorithm that proposed them: the shared keys of an inverted index
    /// (half the floor leaves room for sampling noise), the hot
    /// fingerprints' score, or the keys shared in a signature table. A
    /// shared slot there is a matched signature but for the rare slot two
    /// keys share, so such a candidate is kept only if a signature really
    /// matches once its full fingerprints are read.
    fn promising_among(
        &self,
        engine: &Engine,
        id: DocId,
        full: &Fingerprints,
        visible: &(dyn Fn(DocId) -> bool + Sync),
    ) -> Promising {
        use AlgorithmId as Id;
        let (candidates, mine, capped) = self.index.candidates_among(id, full, visible);
        let Some(doc) = self.doc(id) else {
            return (Vec::new(), capped);
        };
        let floors = &self.config.floors;
        let mut promising: Vec<(DocId, AlgorithmSet)> = candidates
            .into_iter()
            .filter_map(|(other_id, proposal)| {
                let other = self.doc(other_id)?;
                let mut to_confirm = AlgorithmSet::default();
                for algo in proposal.by.iter() {
                    let passes = match algo {
                        Id::Shingle | Id::Winnow => proposal.estimate(algo, mine).is_some_and(
                            |(resemblance, containment)| {
                                resemblance >= floors.get(algo) / 2.0
                                    || containment >= self.config.containment_floor / 2.0
                            },
                        ),
                        Id::Exact | Id::Imatch | Id::ImatchLexicons | Id::Supershingle => {
                            if f64::from(proposal.shared(algo)) >= floors.get(algo) {
                                to_confirm.insert(algo);
                            }
                            false
                        }
                        _ => engine
                            .score_hot(algo, &doc.hot, &other.hot)
                            .is_some_and(|score| score.passes(floors.get(algo))),
                    };
                    if passes {
                        return Some((other_id, AlgorithmSet::default()));
                    }
                }
                (!to_confirm.is_empty()).then_some((other_id, to_confirm))
            })
            .collect();
        promising.sort_unstable_by_key(|&(other, _)| other);
        (promising, capped)
    }

    /// Whether verified `scores` keep a pair whose candidate check left
    /// `to_confirm`: one of those signature algorithms passes its floor.
    fn confirmed(&self, scores: &PairScores, to_confirm: AlgorithmSet) -> bool {
        to_confirm.is_empty()
            || to_confirm.iter().any(|algo| {
                scores
                    .get(&algo)
                    .is_some_and(|s| s.passes(self.config.floors.get(algo)))
            })
    }

    fn add_pairs(&mut self, id: DocId, (verified, capped): Verified) {
        if capped {
            self.si_capped.insert(id);
        }
        for (other, scores) in verified {
            self.add_pair(id, other, scores);
        }
    }

    /// Keep the pair {id, other}, `scores` oriented from `id`.
    fn add_pair(
        &mut self,
        id: DocId,
        other: DocId,
        scores: impl IntoIterator<Item = (AlgorithmId, Score)>,
    ) {
        // Scores are stored for the ordered pair (a, b), a < b.
        let swap = id > other;
        let scores = scores
            .into_iter()
            .map(|(k, s)| (k, if swap { s.swapped() } else { s }));
        let shingles = match (self.doc(id), self.doc(other)) {
            (Some(x), Some(y)) => x.shingles.min(y.shingles),
            _ => 0,
        };
        let (a, b) = ordered(id, other);
        self.pairs.insert(PairRow::new(a, b, scores, shingles));
        self.link(id, other);
        self.link(other, id);
    }

    /// Give new documents ids (replacing any at the same paths, whose
    /// arrival order they keep) and file them in the candidate index, in
    /// arrival order; no pair is verified. Returns the distinct ids in
    /// arrival order and each one's full fingerprints (a path given twice
    /// is filed once, with its last copy, under the id of that copy).
    fn admit_all(
        &mut self,
        docs: Vec<(DocPath, Fingerprints, usize)>,
        source: &dyn PrintSource,
    ) -> anyhow::Result<(Vec<DocId>, HashMap<DocId, Fingerprints>)> {
        let mut ids = Vec::with_capacity(docs.len());
        let mut batch = HashMap::with_capacity(docs.len());
        for (path, fingerprints, shingles) in docs {
            let id = self.place(path, fingerprints.hot(), shingles, source)?;
            ids.push(id);
            batch.insert(id, fingerprints);
        }
        let ids = distinct(&ids);
        let filed: Vec<(DocId, &Fingerprints)> = ids
            .iter()
            .filter(|&&id| self.doc(id).is_some())
            .map(|&id| (id, &batch[&id]))
            .collect();
        self.index.insert_many(&filed);
        Ok((ids, batch))
    }

    /// Add many documents at once: all enter the index first, then every
    /// new document is verified in parallel against the documents that
    /// arrived before it (so each new–new pair once). Gives the same pairs
    /// as adding them one by one in this order, posting and SI caps included.
    /// (A library keeping full fingerprints itself; see
    /// [`Library::extend_with`].)
    pub fn extend(&mut self, engine: &Engine, docs: Vec<(DocPath, Fingerprints, usize)>) {
        self.extend_with(engine, docs, &NoPrints)
            .expect("a library keeping its own fingerprints reads no source")
    }

    /// [`Library::extend`] reading full fingerprints of documents added
    /// before from `source`: those of the candidates that pass a cheap
    /// check, read in one go.
    pub fn extend_with(
        &mut self,
        engine: &Engine,
        docs: Vec<(DocPath, Fingerprints, usize)>,
        source: &dyn PrintSource,
    ) -> anyhow::Result<()> {
        let (new_ids, batch) = self.admit_all(docs, source)?;
        // Position in this batch by dense id (MAX: not in the batch).
        let mut arrival = vec![usize::MAX; self.docs.len()];
        for (i, &id) in new_ids.iter().enumerate() {
            arrival[id as usize] = i;
        }
        let promising: Vec<Promising> = new_ids
            .par_iter()
            .enumerate()
            .map(|(position, &id)| {
                let earlier = |other: DocId| {
                    arrival
                        .get(other as usize)
                        .is_none_or(|&p| p == usize::MAX || p < position)
                };
                self.promising_among(engine, id, &batch[&id], &earlier)
            })
            .collect();
        let mut outside: Vec<DocId> = promising
            .iter()
            .flat_map(|(ids, _)| ids)
            .map(|&(id, _)| id)
            .filter(|id| !batch.contains_key(id))
            .collect();
        outside.sort_unstable();
        outside.dedup();
        let loaded = self.full_prints_of(&outside, source)?;
        let results: Vec<(DocId, Verified)> = new_ids
            .par_iter()
            .zip(promising)
            .map(|(&id, (others, capped))| {
                let mine = &batch[&id];
                let verified = others
                    .into_iter()
                    .filter_map(|(other, to_confirm)| {
                        let theirs = batch
                            .get(&other)
                            .or_else(|| loaded.get(&other).map(|f| f.as_ref()))?;
                        let scores = engine.compare(mine, theirs);
                        (self.confirmed(&scores, to_confirm) && self.keep(&scores))
                            .then_some((other, scores))
                    })
                    .collect();
                (id, (verified, capped))
            })
            .collect();
        drop(loaded);
        for (id, verified) in results {
            self.add_pairs(id, verified);
        }
        self.keep_full(batch);
        Ok(())
    }

    /// A library keeping its own full fingerprints keeps these.
    fn keep_full(&mut self, prints: HashMap<DocId, Fingerprints>) {
        if let Some(full) = &mut self.full {
            for (id, f) in prints {
                let i = id as usize;
                if full.len() <= i {
                    full.resize(i + 1, None);
                }
                full[i] = Some(f);
            }
        }
    }

    /// Restore a document from its stored library entry: its hot
    /// fingerprints and its entries in the candidate index (see
    /// [`DocKeys`]), with its arrival order `seen`. What a reopened index
    /// needs, without reading any full fingerprint or verifying anything;
    /// [`Library::finish_restore`] files the keys of every restored
    /// document at once. Only for a library made with
    /// [`Library::new_external`], before anything else is added.
    pub fn restore_doc(
        &mut self,
        restore: &mut Restore,
        path: DocPath,
        seen: u64,
        hot: HotPrints,
        keys: &DocKeys,
        shingles: usize,
    ) -> DocId {
        debug_assert!(self.full.is_none(), "restored without full fingerprints");
        let si = hot.si.flatten();
        debug_assert!(self.id_of(&path).is_none(), "{path} restored twice");
        let id = self.allocate(DocInfo {
            path,
            seen,
            hot,
            shingles,
        });
        self.next_seen = self.next_seen.max(seen + 1);
        restore.add(id, keys, si);
        id
    }

    /// Room for `docs` restored documents and `pairs` restored pairs, so a
    /// reopened index grows nothing by doubling.
    pub fn reserve_restore(&mut self, docs: usize, pairs: usize) {
        self.docs.reserve_exact(docs);
        self.by_path.reserve(docs, &self.docs);
        self.neighbours.reserve_exact(docs);
        self.pairs.reserve(pairs);
    }

    /// File the keys of every document restored with `restore`: in the
    /// candidate index when a change first needs them, or ahead of one by
    /// [`Library::prepare_some`].
    pub fn finish_restore(&mut self, restore: Restore) {
        self.index.file_restored(restore);
    }

    /// Take a step of the work a restored library leaves until a change
    /// needs it (filing its documents' keys); whether more is to do.
    pub fn prepare_some(&mut self) -> bool {
        self.index.fill_restored_some()
    }

    /// Keep a stored pair again, `scores` oriented from `a` to `b`.
    pub fn restore_pair(
        &mut self,
        a: DocId,
        b: DocId,
        scores: impl IntoIterator<Item = (AlgorithmId, Score)>,
    ) {
        if a != b && self.doc(a).is_some() && self.doc(b).is_some() {
            self.add_pair(a, b, scores);
        }
    }

    /// A document's entries in the candidate index ([`DocKeys`]), as this
    /// library's configuration derives them from its full fingerprints.
    pub fn doc_keys(&self, fingerprints: &Fingerprints) -> DocKeys {
        self.index.doc_keys(fingerprints)
    }

    /// Remove the document at `path`; false if it was not indexed. (A
    /// library keeping full fingerprints itself; see
    /// [`Library::remove_with`].)
    pub fn remove(&mut self, path: &DocPath) -> bool {
        self.remove_with(path, &NoPrints)
            .expect("a library keeping its own fingerprints reads no source")
    }

    /// [`Library::remove`], reading the document's full fingerprints (its
    /// index keys) from `source`.
    pub fn remove_with(
        &mut self,
        path: &DocPath,
        source: &dyn PrintSource,
    ) -> anyhow::Result<bool> {
        match self.id_of(path) {
            Some(id) => {
                self.remove_id(id, source)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn remove_id(&mut self, id: DocId, source: &dyn PrintSource) -> anyhow::Result<()> {
        if self.doc(id).is_none() {
            return Ok(());
        }
        let full = self
            .full_prints_of(&[id], source)?
            .remove(&id)
            .map(Cow::into_owned);
        // Out of the path index while its path is still there to hash.
        self.by_path.remove(&self.docs, id);
        self.docs[id as usize] = None;
        match full {
            Some(f) => self.index.remove(id, &f),
            // Without its keys the document cannot be taken out of the
            // tables; its postings are skipped as long as the id is dead,
            // so it is not reused.
            None => {
                self.drop_pairs(id);
                return Ok(());
            }
        }
        if let Some(full) = &mut self.full {
            if let Some(slot) = full.get_mut(id as usize) {
                *slot = None;
            }
        }
        self.drop_pairs(id);
        self.free.push(id);
        Ok(())
    }

    /// Note `other` among `id`'s neighbours.
    fn link(&mut self, id: DocId, other: DocId) {
        let i = id as usize;
        if self.neighbours.len() <= i {
            self.neighbours.resize(i + 1, Neighbours::new());
        }
        let list = &mut self.neighbours[i];
        if let Err(at) = list.binary_search(&other) {
            list.insert(at, other);
        }
    }

    fn drop_pairs(&mut self, id: DocId) {
        let others = self
            .neighbours
            .get_mut(id as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        for other in others {
            self.pairs.remove(id, other);
            if let Some(list) = self.neighbours.get_mut(other as usize) {
                if let Ok(at) = list.binary_search(&id) {
                    list.remove(at);
                }
            }
        }
        self.si_capped.remove(&id);
    }

    /// Re-gather every document's candidates (after floors change). (A
    /// library keeping full fingerprints itself; see
    /// [`Library::regather_with`].)
    pub fn regather(&mut self, engine: &Engine, floors: Thresholds) {
        self.regather_with(engine, floors, &NoPrints)
            .expect("a library keeping its own fingerprints reads no source")
    }

    /// [`Library::regather`] reading full fingerprints from `source`, a
    /// chunk of documents at a time.
    pub fn regather_with(
        &mut self,
        engine: &Engine,
        floors: Thresholds,
        source: &dyn PrintSource,
    ) -> anyhow::Result<()> {
        const CHUNK: usize = 1024;
        let mut docs: Vec<(DocId, DocPath, usize, u64)> = self
            .docs
            .iter()
            .enumerate()
            .filter_map(|(id, d)| {
                Some((
                    id as DocId,
                    d.as_ref()?.path.clone(),
                    d.as_ref()?.shingles,
                    d.as_ref()?.seen,
                ))
            })
            .collect();
        docs.sort_by_key(|d| d.3);
        let mut fresh = Library::new_external(
            engine,
            LibraryConfig {
                floors,
                ..self.config.clone()
            },
        );
        if self.full.is_some() {
            fresh.full = Some(Vec::new());
        }
        for chunk in docs.chunks(CHUNK) {
            let ids: Vec<DocId> = chunk.iter().map(|d| d.0).collect();
            let mut prints = self.full_prints_of(&ids, source)?;
            let batch: Vec<(DocPath, Fingerprints, usize)> = chunk
                .iter()
                .filter_map(|(id, path, shingles, _)| {
                    Some((path.clone(), prints.remove(id)?.into_owned(), *shingles))
                })
                .collect();
            drop(prints);
            fresh.extend_with(engine, batch, source)?;
        }
        fresh.pair_verdicts = std::mem::take(&mut self.pair_verdicts);
        fresh.keeps = std::mem::take(&mut self.keeps);
        *self = fresh;
        Ok(())
    }

    pub fn set_pair_verdict(&mut self, a: &DocPath, b: &DocPath, verdict: Option<CuratorVerdict>) {
        match verdict {
            Some(v) => self.pair_verdicts.insert(ordered_pair(a, b), v),
            None => self.pair_verdicts.remove(&ordered_pair(a, b)),
        };
    }

    pub fn pair_verdict(&self, a: &DocPath, b: &DocPath) -> Option<CuratorVerdict> {
        self.pair_verdicts.get(&ordered_pair(a, b)).copied()
    }

    pub fn is_keeper(&self, path: &DocPath) -> bool {
        self.keeps.contains(path)
    }

    pub fn set_keeper(&mut self, path: &DocPath, keeper: bool) {
        if keeper {
            self.keeps.insert(path.clone());
        } else {
            self.keeps.remove(path);
        }
    }

    /// Judge one kept pair under `spec`: the passing algorithms and whether
    /// it links the two documents (curator verdicts first).
    pub fn judge(&self, a: DocId, b: DocId, spec: &ClusterSpec) -> Option<Link> {
        let row = self.pairs.get(a, b)?;
        let (da, db) = (self.doc(a)?, self.doc(b)?);
        let judge = Judge::new(&spec.thresholds, &spec.fusion);
        self.judge_row(row, &judge, spec.by, self.pair_verdict(&da.path, &db.path))
    }

    /// [`Library::judge`] of one row with the thresholds resolved and the
    /// curator's verdict already looked up.
    fn judge_row(
        &self,
        row: &PairRow,
        judge: &Judge,
        by: ClusterBy,
        curator: Option<CuratorVerdict>,
    ) -> Option<Link> {
        let passing = judge.passing(row);
        let linked = match curator {
            Some(CuratorVerdict::Duplicate) => true,
            Some(CuratorVerdict::NotDuplicate) => false,
            None => match by {
                ClusterBy::Fusion => judge.fusion(row, passing),
                ClusterBy::Algorithm(id) => passing.contains(id),
            },
        };
        if !linked {
            return None;
        }
        let strength = match by {
            ClusterBy::Fusion => passing.len() as f64 / row.scored().max(1) as f64,
            ClusterBy::Algorithm(id) => row.similarity(id).unwrap_or(0.0),
        };
        Some(Link {
            a: row.a,
            b: row.b,
            passing,
            strength,
        })
    }

    /// Curator verdicts keyed by the (ordered) ids of indexed documents.
    fn verdicts_by_id(&self) -> HashMap<(DocId, DocId), CuratorVerdict> {
        self.pair_verdicts
            .iter()
            .filter_map(|((pa, pb), &v)| Some((ordered(self.id_of(pa)?, self.id_of(pb)?), v)))
            .collect()
    }

    /// Every linking pair under `spec`, sorted by (a, b).
    pub fn links(&self, spec: &ClusterSpec) -> Vec<Link> {
        let overrides = self.verdicts_by_id();
        let judge = Judge::new(&spec.thresholds, &spec.fusion);
        let mut links: Vec<Link> = self
            .pairs
            .par_rows()
            .filter_map(|row| {
                let curator = if overrides.is_empty() {
                    None
                } else {
                    overrides.get(&(row.a, row.b)).copied()
                };
                self.judge_row(row, &judge, spec.by, curator)
            })
            .collect();
        // A curator's "duplicate" links documents no algorithm paired.
        for (&(a, b), &v) in &overrides {
            if v == CuratorVerdict::Duplicate && a != b && !self.pairs.contains(a, b) {
                links.push(Link {
                    a,
                    b,
                    passing: AlgorithmSet::default(),
                    strength: 1.0,
                });
            }
        }
        links.par_sort_unstable_by_key(|l| (l.a, l.b));
        links
    }

    /// Representative priority: kept documents first, then earliest arrival.
    fn priority(&self, id: DocId) -> (bool, u64, DocId) {
        let doc = self.doc(id).expect("live document");
        let kept = !self.keeps.is_empty() && self.keeps.contains(&doc.path);
        (!kept, doc.seen, id)
    }

    /// The clusters under `spec`, largest first.
    pub fn clusters(&self, spec: &ClusterSpec) -> Vec<ClusterInfo> {
        const NONE: u32 = u32::MAX;
        let links = self.links(spec);
        // Group number of each linked document, by dense id.
        let mut group_of = vec![NONE; self.docs.len()];
        let mut groups: Vec<Vec<DocId>> = Vec::new();
        match spec.mode {
            ClusterMode::Components => {
                let mut uf = UnionFind::new(self.docs.len());
                for l in &links {
                    uf.union(l.a as usize, l.b as usize);
                }
                let mut group_of_root = vec![NONE; self.docs.len()];
                for l in &links {
                    for id in [l.a, l.b] {
                        if group_of[id as usize] != NONE {
                            continue;
                        }
                        let root = uf.find(id as usize);
                        if group_of_root[root] == NONE {
                            group_of_root[root] = groups.len() as u32;
                            groups.push(Vec::new());
                        }
                        group_of[id as usize] = group_of_root[root];
                        groups[group_of_root[root] as usize].push(id);
                    }
                }
            }
            ClusterMode::Star => {
                let mut adjacency: HashMap<DocId, Vec<DocId>> = HashMap::new();
                for l in &links {
                    adjacency.entry(l.a).or_default().push(l.b);
                    adjacency.entry(l.b).or_default().push(l.a);
                }
                let mut order: Vec<(bool, u64, DocId)> =
                    adjacency.keys().map(|&id| self.priority(id)).collect();
                order.sort_unstable();
                for (_, _, centre) in order {
                    if group_of[centre as usize] != NONE {
                        continue;
                    }
                    let g = groups.len() as u32;
                    group_of[centre as usize] = g;
                    let mut group = vec![centre];
                    for &n in &adjacency[&centre] {
                        if group_of[n as usize] == NONE {
                            group_of[n as usize] = g;
                            group.push(n);
                        }
                    }
                    groups.push(group);
                }
            }
        }
        // Each link belongs to the group holding both its ends (in star mode
        // a link may join two groups and then describes neither).
        let mut inner: Vec<Vec<&Link>> = vec![Vec::new(); groups.len()];
        for l in &links {
            let (ga, gb) = (group_of[l.a as usize], group_of[l.b as usize]);
            if ga == gb && ga != NONE {
                inner[ga as usize].push(l);
            }
        }
        let mut clusters: Vec<(ClusterInfo, (bool, u64, DocId))> = groups
            .into_par_iter()
            .zip(inner)
            .filter_map(|(members, inner)| {
                let mut members: Vec<(bool, u64, DocId)> =
                    members.into_iter().map(|id| self.priority(id)).collect();
                members.sort_unstable();
                members.dedup();
                (members.len() > 1).then(|| {
                    let first = members[0];
                    let members = members.into_iter().map(|(_, _, id)| id).collect();
                    (self.describe(members, &inner), first)
                })
            })
            .collect();
        clusters.par_sort_unstable_by(|(a, pa), (b, pb)| {
            b.members.len().cmp(&a.members.len()).then(pa.cmp(pb))
        });
        clusters.into_iter().map(|(c, _)| c).collect()
    }

    /// Summarize a cluster from its members and the links inside it.
    fn describe(&self, members: Vec<DocId>, inner: &[&Link]) -> ClusterInfo {
        let weakest = inner
            .iter()
            .min_by(|x, y| x.strength.total_cmp(&y.strength))
            .map(|l| (l.a, l.b, l.strength));
        let mut agreeing: Option<AlgorithmSet> = None;
        let mut any = AlgorithmSet::default();
        for l in inner {
            any = any.union(l.passing);
            agreeing = Some(agreeing.map_or(l.passing, |a| a.intersection(l.passing)));
        }
        let agreeing = agreeing.unwrap_or_default();
        ClusterInfo {
            disagreement: agreeing != any,
            members,
            weakest,
            agreeing: agreeing.iter().collect(),
        }
    }
}
