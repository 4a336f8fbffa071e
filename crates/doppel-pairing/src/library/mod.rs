//! The in-memory library: the documents of a folder, every verified pair
//! with all its scores, the curator's decisions, and clusters under live
//! thresholds.
//!
//! Split by job:
//! - `registry`: the documents ([`DocInfo`] by [`DocId`] and by path) and
//!   their arrival order;
//! - `graph`: the kept pairs ([`crate::pairs::PairTable`]) and
//!   each document's neighbours;
//! - `verify`: adding, replacing and removing documents: candidates from
//!   the [`CandidateTables`], a cheap check on the hot fingerprints, the
//!   full comparison, and the floors a pair must pass to be kept; and
//!   re-gathering under looser floors;
//! - `unpaired`: documents filed as they come and paired later, all at
//!   once (a fresh index's scan): the library's one mode, a state
//!   (`unpaired`'s `PairingState`: all paired, filing, or a pairing
//!   interrupted) that only filing and pairing move;
//! - `verdicts`: the curator's verdicts and keeper marks, by path and by
//!   id;
//! - clustering is [`crate::cluster`]'s.
//!
//! A library keeps only each document's [`ResidentPrints`] (about 0.3 KB); every
//! operation that needs full fingerprints reads them from the
//! [`PrintSource`] it is given: an index's store, a one-shot scan's
//! temporary file, [`MemoryPrints`], or [`NoPrints`] for a library that
//! takes one batch of documents and never changes. Moving a threshold anywhere at or above the
//! floors re-clusters from the kept pairs without touching fingerprints;
//! [`Library::floors_allow`] tells when a requested threshold is looser
//! than a floor and candidates must be re-gathered with
//! [`Library::regather`].

mod graph;
mod links;
mod registry;
mod si_cuts;
mod unpaired;
mod verdicts;
mod verify;
mod work;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::convert::Infallible;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::boilerplate::BoilerplateConfig;
use crate::candidates::{CandidateConfig, CandidateTables, DocKeys, Restore};
use crate::cluster;
use crate::cluster::{ClusterInfo, ClusterSpec, Link, Rank};
use crate::keeper::{self, KeeperFacts};
pub use crate::pairs::Histograms;
use crate::pairs::PairRow;
use doppel_core::doc::{CuratorVerdict, DocId, DocPath};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::{Engine, Fingerprints, PairScores, ResidentPrints, Thresholds};

use graph::PairGraph;
pub use registry::DocInfo;
use registry::Registry;
use verdicts::Verdicts;
pub use verdicts::{agreed, disputed, CuratorMark};
pub use work::Proposed;
use work::ProposedCounter;

/// What a library keeps and how it finds candidates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct LibraryConfig {
    /// How candidates are proposed.
    pub candidates: CandidateConfig,
    /// Pairs are kept when any algorithm passes its floor (the loosest
    /// threshold that can be set without re-gathering candidates).
    pub floors: Thresholds,
    /// ... or when containment reaches this: low enough that pairs
    /// sharing text in substance (two translations) are kept and reported
    /// `related`: at most the fusion rule's `related-containment` (loading
    /// a configuration lowers it to that). Default: 0.12.
    pub containment_floor: f64,
    /// Boilerplate learned from the collection (`[boilerplate]` of the
    /// configuration file, not `[library]`): documents are fingerprinted
    /// without it.
    #[serde(skip)]
    pub boilerplate: BoilerplateConfig,
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
                // The SimHash family's floors are their thresholds plus
                // two bits: at 110,000 ~4 KB texts, floors four bits
                // looser kept 150,717 pairs passing no threshold (90 % of
                // all kept), every one verified, stored and held.
                (Simhash, 12.0),
                (SimhashShingle, 16.0),
                (SimhashLexicons, 14.0),
                (Imatch, 1.0),
                (ImatchLexicons, 1.0),
                (Winnow, 0.15),
                (Si, 0.7),
            ])),
            containment_floor: 0.12,
            boilerplate: BoilerplateConfig::default(),
        }
    }
}

/// Where a library finds the full fingerprints of the documents it holds:
/// exactly those it was given them with (a replaced document's source
/// gives its new fingerprints only once the library has them). Asked only
/// from the calling thread.
pub trait PrintSource {
    /// Why the fingerprints could not be read.
    type Error;

    /// The full fingerprints of the documents at these paths, in order
    /// (`None` for a path it does not have).
    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>, Self::Error>;

    /// The candidate keys stored with the documents at these paths, in
    /// order (`None` for a path it has none of), when the source keeps
    /// them, as an index keeps each document's library entry: a fresh
    /// library takes back the slots it did not hold from them
    /// ([`Library::pair_unpaired`]), a third of the bytes of the full
    /// prints and nothing to derive. `Ok(None)`, the default: it keeps
    /// none, and the keys are derived from the full prints.
    fn stored_keys(
        &self,
        _paths: &[&DocPath],
    ) -> Result<Option<Vec<Option<DocKeys>>>, Self::Error> {
        Ok(None)
    }
}

/// A source with nothing in it, for a library that takes one batch of
/// documents into an empty library and never changes. (Removing from a
/// library with this source leaves the document's candidate-table entries
/// behind; its id is then never given again.)
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPrints;

impl PrintSource for NoPrints {
    type Error = Infallible;

    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>, Infallible> {
        Ok(vec![None; paths.len()])
    }
}

/// Full fingerprints kept in memory by path (tests, and sources of small
/// libraries). Add a document's fingerprints after the library has taken
/// them, so that replacing it reads the old ones.
#[derive(Debug, Clone, Default)]
pub struct MemoryPrints(pub HashMap<DocPath, Fingerprints>);

impl PrintSource for MemoryPrints {
    type Error = Infallible;

    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>, Infallible> {
        Ok(paths.iter().map(|p| self.0.get(*p).cloned()).collect())
    }
}

/// The documents of a folder, their verified pairs and the curator's
/// decisions.
#[derive(Debug, Clone)]
pub struct Library {
    config: LibraryConfig,
    /// The share of the smaller document's shingles in the larger with
    /// which `si` alone keeps a pair: the engine's `related` share, so
    /// that si keeps the related pairs it finds (texts quoting each
    /// other) and no pair that merely shares a quotation.
    si_alone_containment: f64,
    registry: Registry,
    tables: CandidateTables,
    graph: PairGraph,
    verdicts: Verdicts,
    /// Held documents whose pairs changed because others changed, not yet
    /// taken ([`Library::take_touched`]).
    touched: HashSet<DocPath>,
    /// Whether documents wait to be paired, and which
    /// ([`Library::admit_unpaired`], [`Library::pair_unpaired`]).
    pairing: unpaired::PairingState,
    /// Pairs compared in full since the library was made.
    compared: u64,
    /// Times a document's candidates were gathered since it was made.
    gathered: u64,
    /// What those gathers proposed.
    proposed: Proposed,
    /// The links under the last spec clustered by.
    links: links::LinkCache,
    /// Documents a batch of [`Library::pair_unpaired_with`] and
    /// [`Library::regather_with`] at most, when set (tests).
    batch_docs: Option<usize>,
}

impl Library {
    /// An empty library for documents fingerprinted by `engine`.
    pub fn new(engine: &Engine, config: LibraryConfig) -> Self {
        let a = &engine.config().algorithms;
        let bits = [
            (AlgorithmId::Simhash, a.simhash.bits),
            (AlgorithmId::SimhashShingle, a.simhash_shingle.bits),
            (AlgorithmId::SimhashLexicons, a.simhash_lexicons.bits),
        ];
        let tables = CandidateTables::new(
            config.candidates.clone(),
            a.minhash.num_perm,
            config.floors.get(AlgorithmId::Minhash),
            &bits,
        );
        Self {
            config,
            si_alone_containment: engine.config().fusion_rule().relations.related,
            registry: Registry::default(),
            tables,
            graph: PairGraph::default(),
            verdicts: Verdicts::default(),
            touched: HashSet::new(),
            pairing: unpaired::PairingState::default(),
            compared: 0,
            gathered: 0,
            proposed: Proposed::default(),
            links: Default::default(),
            batch_docs: None,
        }
    }

    /// Pair and gather again at most `docs` documents between two asks of
    /// the stop check ([`Library::pair_unpaired_with`],
    /// [`Library::regather_with`]); `None`, the default, slices by memory
    /// (1,365 documents, or about 2.7 M shingles' worth, a slice). Smaller
    /// batches stop sooner and cost more passes.
    pub fn set_batch_docs(&mut self, docs: Option<usize>) {
        self.batch_docs = docs.map(|docs| docs.max(1));
    }

    /// The configuration it keeps pairs under.
    pub fn config(&self) -> &LibraryConfig {
        &self.config
    }

    /// Documents held.
    pub fn len(&self) -> usize {
        self.registry.len()
    }

    /// Whether it holds no document.
    pub fn is_empty(&self) -> bool {
        self.registry.len() == 0
    }

    /// The document with this id, if held.
    pub fn doc(&self, id: DocId) -> Option<&DocInfo> {
        self.registry.doc(id)
    }

    /// Every document held, by id.
    pub fn documents(&self) -> impl Iterator<Item = (DocId, &DocInfo)> + '_ {
        self.registry.iter()
    }

    /// The id of the document at `path`, if held.
    pub fn id_of(&self, path: &DocPath) -> Option<DocId> {
        self.registry.id_of(path)
    }

    /// Every kept pair with its scores (a < b).
    pub fn pairs(&self) -> impl Iterator<Item = (DocId, DocId, PairScores)> + '_ {
        self.graph.table().rows().map(|r| (r.a, r.b, r.scores()))
    }

    /// Every kept pair's ids (a < b), without building its scores.
    pub fn pair_ids(&self) -> impl Iterator<Item = (DocId, DocId)> + '_ {
        self.graph.table().rows().map(|r| (r.a, r.b))
    }

    /// How many pairs are kept.
    pub fn pair_count(&self) -> usize {
        self.graph.len()
    }

    /// The kept pairs of `id`, scores oriented from `id` to the other side.
    pub fn neighbours(&self, id: DocId) -> impl Iterator<Item = (DocId, PairScores)> + '_ {
        self.graph
            .neighbours(id)
            .iter()
            .filter_map(move |&other| Some((other, self.graph.scores_from(id, other)?)))
    }

    /// The scores of the kept pair {a, b}, oriented from the smaller id.
    pub fn pair(&self, a: DocId, b: DocId) -> Option<PairScores> {
        Some(self.graph.row(a, b)?.scores())
    }

    /// The scores of the kept pair {from, to}, oriented from `from`.
    pub fn pair_from(&self, from: DocId, to: DocId) -> Option<PairScores> {
        self.graph.scores_from(from, to)
    }

    /// The stored row of the kept pair {a, b}: equal rows give equal
    /// [`Library::pair_from`] scores.
    pub fn pair_row(&self, a: DocId, b: DocId) -> Option<&PairRow> {
        self.graph.table().get(a, b)
    }

    /// The sorted similarity of every kept pair per algorithm (for the
    /// thresholds histogram); updated from the changes since the last call.
    pub fn histograms(&self) -> Histograms {
        self.graph.histograms()
    }

    /// Documents whose SI candidates were cut by the cap.
    pub fn si_capped(&self) -> usize {
        self.tables.si_capped()
    }

    /// Whether a threshold for `id` is within what the kept pairs cover.
    pub fn floors_allow(&self, id: AlgorithmId, threshold: f64) -> bool {
        self.config.floors.allows(id, threshold)
    }

    /// A document's entries in the candidate tables ([`DocKeys`]), as this
    /// library's configuration derives them from its full fingerprints.
    pub fn doc_keys(&self, fingerprints: &Fingerprints) -> DocKeys {
        self.tables.doc_keys(fingerprints)
    }

    // -- the curator's decisions --------------------------------------------

    /// Set (with `Some((verdict, at_ns))`) or clear `curator`'s verdict on
    /// two documents, held or not; the other curators' stay.
    pub fn set_pair_verdict(
        &mut self,
        a: &DocPath,
        b: &DocPath,
        curator: &str,
        verdict: Option<(CuratorVerdict, i64)>,
    ) {
        let registry = &self.registry;
        self.verdicts
            .set_pair(a, b, curator, verdict, |p| registry.id_of(p));
    }

    /// Forget every curator's verdict on every pair (before they are read
    /// again from the store).
    pub fn clear_pair_verdicts(&mut self) {
        self.verdicts.clear_pairs();
    }

    /// Forget every keeper mark (before they are read again).
    pub fn clear_keepers(&mut self) {
        self.verdicts.clear_keepers();
    }

    /// The verdict the curators agree on for two documents: `None` when
    /// none judged them or they disagree ([`Library::is_disputed`]).
    pub fn pair_verdict(&self, a: &DocPath, b: &DocPath) -> Option<CuratorVerdict> {
        self.verdicts.pair(a, b)
    }

    /// Each curator's current verdict on two documents, oldest first.
    pub fn pair_marks(&self, a: &DocPath, b: &DocPath) -> &[CuratorMark] {
        self.verdicts.marks(a, b)
    }

    /// Whether the curators' verdicts on two documents differ (the pair
    /// then counts as undecided).
    pub fn is_disputed(&self, a: &DocPath, b: &DocPath) -> bool {
        disputed(self.verdicts.marks(a, b))
    }

    /// Every disputed pair, each once (`a < b`), in path order.
    pub fn disputed_pairs(&self) -> impl Iterator<Item = (&DocPath, &DocPath)> {
        self.verdicts.disputed_pairs()
    }

    /// Whether the curator marked `path` as its cluster's keeper.
    pub fn is_keeper(&self, path: &DocPath) -> bool {
        self.verdicts.is_keeper(path)
    }

    /// Changes whenever a pair verdict or a keeper mark is set or cleared:
    /// what is read from them by path ([`Library::pair_verdict`],
    /// [`Library::is_disputed`], [`Library::is_keeper`]) holds while it
    /// stays the same.
    pub fn verdicts_version(&self) -> u64 {
        self.verdicts.version()
    }

    /// Mark (or unmark) `path` as its cluster's keeper (it represents it).
    pub fn set_keeper(&mut self, path: &DocPath, keeper: bool) {
        let id = self.registry.id_of(path);
        self.verdicts.set_keeper(path, id, keeper);
    }

    // -- clusters -------------------------------------------------------------

    /// Every linking pair under `spec`, sorted by (a, b) (kept between
    /// calls and brought up to date from the pairs touched since).
    pub fn links(&self, spec: &ClusterSpec) -> Arc<Vec<Link>> {
        self.links
            .links(self.graph.table(), self.verdicts.by_id(), spec)
    }

    /// The clusters under `spec`, largest first, each with its keeper
    /// first: the curator's, else the one [`keeper::put_first`] picks from
    /// the documents' [`KeeperFacts`] and their pairs' containments.
    pub fn clusters(&self, spec: &ClusterSpec) -> Vec<ClusterInfo> {
        let links = self.links(spec);
        let mut clusters = cluster::clusters(&links, self.registry.id_bound(), spec.mode, |id| {
            self.rank(id)
        });
        clusters.par_iter_mut().for_each(|c| {
            keeper::put_first(
                c,
                spec.mode,
                |id| self.verdicts.is_keeper_id(id),
                |id| self.doc(id).and_then(|d| d.facts),
                |id| self.shares_of(id),
            )
        });
        clusters
    }

    /// The kept pairs of `id` with the share of its shingles in the other
    /// and of the other's in it.
    fn shares_of(&self, id: DocId) -> Vec<(DocId, f64, f64)> {
        self.graph
            .neighbours(id)
            .iter()
            .filter_map(|&other| {
                let row = self.graph.row(id, other)?;
                let c = row.containments()?;
                Some(match row.a == id {
                    true => (other, c.a_in_b, c.b_in_a),
                    false => (other, c.b_in_a, c.a_in_b),
                })
            })
            .collect()
    }

    /// Tell what the keeper rule reads of the document at `path` (when it
    /// is held): set after it is added or replaced, which forgets them.
    pub fn set_facts(&mut self, path: &DocPath, facts: KeeperFacts) {
        if let Some(doc) = self.id_of(path).and_then(|id| self.registry.doc_mut(id)) {
            doc.facts = Some(facts);
        }
    }

    /// Where a document ranks in its cluster: keepers first, then the
    /// earliest arrival.
    fn rank(&self, id: DocId) -> Rank {
        let doc = self.doc(id).expect("live document");
        (!self.verdicts.is_keeper_id(id), doc.seen, id)
    }

    // -- reopening -------------------------------------------------------------

    /// Restore a document from its stored library entry: its hot
    /// fingerprints and its entries in the candidate tables (see
    /// [`DocKeys`]), with its arrival order `seen`. What a reopened index
    /// needs, without reading any full fingerprint or verifying anything;
    /// [`Library::finish_restore`] files the keys of every restored
    /// document at once. Only before anything else is added.
    pub fn restore_doc(
        &mut self,
        restore: &mut Restore,
        path: DocPath,
        seen: u64,
        hot: ResidentPrints,
        keys: &DocKeys,
        shingles: usize,
    ) -> DocId {
        let si = hot.si.flatten();
        debug_assert!(self.id_of(&path).is_none(), "{path} restored twice");
        let id = self.admit(DocInfo {
            path,
            seen,
            hot,
            shingles,
            facts: None,
        });
        restore.add(id, keys, si);
        id
    }

    /// Room for `docs` restored documents and `pairs` restored pairs, so a
    /// reopened index grows nothing by doubling.
    pub fn reserve_restore(&mut self, docs: usize, pairs: usize) {
        self.registry.reserve(docs);
        self.graph.reserve(docs, pairs);
    }

    /// File the keys of every document restored with `restore`: in the
    /// candidate tables when a change first needs them, or ahead of one by
    /// [`Library::prepare_some`].
    pub fn finish_restore(&mut self, restore: Restore) {
        self.tables.file_restored(restore);
    }

    /// Take a step of the work a restored library leaves until a change
    /// needs it (filing its documents' keys); whether more is to do.
    pub fn prepare_some(&mut self) -> bool {
        self.tables.fill_restored_some()
    }

    /// Keep a stored pair again, `scores` oriented from `a` to `b`.
    pub fn restore_pair(
        &mut self,
        a: DocId,
        b: DocId,
        scores: impl IntoIterator<Item = (AlgorithmId, Score)>,
    ) {
        if a != b && self.doc(a).is_some() && self.doc(b).is_some() {
            self.keep_pair(a, b, scores);
        }
    }

    // -- the registry and the verdicts kept in step ------------------------

    /// Give a document an id and apply the curator's decisions on it.
    fn admit(&mut self, info: DocInfo) -> DocId {
        let path = info.path.clone();
        let id = self.registry.allocate(info);
        let registry = &self.registry;
        self.verdicts.attach(id, &path, |p| registry.id_of(p));
        id
    }

    /// Take a document out of the registry and its pairs out of the graph
    /// (its candidate-table entries are the caller's); its id is given
    /// again only when `reuse`.
    fn dismiss(&mut self, id: DocId, reuse: bool) {
        if let Some(doc) = self.registry.doc(id) {
            let registry = &self.registry;
            self.verdicts.detach(id, &doc.path, |p| registry.id_of(p));
        }
        self.registry.release(id, reuse);
        self.graph.drop_doc(id);
    }

    /// Keep the pair {id, other}, `scores` oriented from `id`.
    fn keep_pair(
        &mut self,
        id: DocId,
        other: DocId,
        scores: impl IntoIterator<Item = (AlgorithmId, Score)>,
    ) {
        let shingles = match (self.doc(id), self.doc(other)) {
            (Some(x), Some(y)) => x.shingles.min(y.shingles),
            _ => 0,
        };
        self.graph.insert(id, other, scores, shingles);
    }
}
