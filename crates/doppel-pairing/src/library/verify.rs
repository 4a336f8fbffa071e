//! Documents in and out: a new document's candidates come from the
//! candidate tables, pass a cheap check on the hot fingerprints (or shared
//! keys), are compared in full, and the pair is kept when some algorithm
//! passes its floor ([`Library::passes_floor`]). Many documents enter at
//! once with exactly the pairs of adding them one by one.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{DocInfo, Library, LibraryConfig, PrintSource, ProposedCounter};
use crate::candidates::{Affected, LONG_DOCUMENT_SHINGLES};
use doppel_core::doc::{DocId, DocPath};
use doppel_core::engine::algo::{AlgorithmId, AlgorithmSet, Score};
use doppel_core::engine::family::Family;
use doppel_core::engine::{Engine, Fingerprints, PairScores, ResidentPrints, Thresholds};

/// Documents [`Library::remove_many`] takes out before gathering again
/// the candidates of those their going changed: their full fingerprints,
/// and then the affected documents', are held at once.
const REMOVAL_CHUNK: usize = 1024;

/// SI's index of `f`, when it has one.
fn si_of(f: &Fingerprints) -> Option<u64> {
    f.si.as_ref().and_then(|si| si.index())
}

/// Verified candidates of one document.
type Verified = Vec<(DocId, PairScores)>;

/// Documents proposed for one document that pass a cheap check, each with
/// the algorithms whose real score must confirm it (signatures, and SI
/// between two long documents; empty when a check on real values passed).
pub(super) type Promising = Vec<(DocId, AlgorithmSet)>;

/// Newly admitted documents in arrival order, each one's full
/// fingerprints, the documents held before whose candidates their
/// coming (or their old versions' going) changed, and how it changed them.
type Admitted = (Vec<DocId>, HashMap<DocId, Fingerprints>, Affected, Change);

/// What a change did to the documents held before it, which decides what
/// [`Library::regather_some`] must look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// Documents only came in (none replaced or removed). Among the held
    /// documents, proposals then only shrink (a posting list can only cross
    /// the cap upwards, SI's nearest can only be pushed aside) and a
    /// proposal's check only hardens (fewer shared keys under the cap, fewer
    /// algorithms proposing), so no pair between held documents can be
    /// newly kept: only held documents with kept pairs need a look, and only
    /// to drop those no longer proposed or confirmed.
    Growth,
    /// Documents went (or were replaced): a list may fall back under the
    /// cap, a pushed-aside SI neighbour come back, so pairs may be gained.
    Any,
}

/// `ids` without repeats, first occurrences in order.
fn distinct(ids: &[DocId]) -> Vec<DocId> {
    let mut once = HashSet::new();
    ids.iter().copied().filter(|&id| once.insert(id)).collect()
}

impl Library {
    /// Whether verified `scores` keep a pair: an algorithm other than
    /// `si` passes its floor, containment reaches the containment floor,
    /// or `si` passes its floor where the two share text in substance
    /// (the smaller's containment reaches the `related` share, when
    /// shingle is scored). `si` on
    /// its own does not keep a pair: two texts of one size that share a
    /// single sampled passage (a quotation) pass Roth's test, and among
    /// many texts of one size that is much noise; a pair si finds is kept
    /// when another algorithm is near too (an edited copy, a part inside
    /// its whole) or it is a related pair, and si's score is then judged
    /// with the others. With `vocabulary_counts` false (two long
    /// documents, [`LONG_DOCUMENT_SHINGLES`], when another family is
    /// computed) the SimHash family's floors do not count either.
    pub fn passes_floor(&self, scores: &PairScores, vocabulary_counts: bool) -> bool {
        let floors = &self.config.floors;
        let containment = scores
            .get(&AlgorithmId::Shingle)
            .and_then(Score::containment);
        scores
            .iter()
            .filter(|(&id, _)| vocabulary_counts || Family::of(id) != Family::Vocabulary)
            .any(|(&id, s)| match id {
                // Without shingle (`--algorithms si`) nothing else can tell.
                AlgorithmId::Si => {
                    s.passes(floors.get(id))
                        && containment.is_none_or(|c| c >= self.si_alone_containment)
                }
                _ => s.passes(floors.get(id)),
            })
            || containment.is_some_and(|c| c >= self.config.containment_floor)
    }

    /// Whether the SimHash family's scores alone may make `a` and `b` a
    /// candidate and keep their pair: unless both are long
    /// ([`LONG_DOCUMENT_SHINGLES`]) and another family is computed to find
    /// what they share (long texts of one register have alike
    /// vocabularies without sharing a sentence). Symmetric, so proposing
    /// stays order-free.
    fn vocabulary_counts(&self, engine: &Engine, a: DocId, b: DocId) -> bool {
        let shingles = |id| self.doc(id).map_or(0, |d| d.shingles);
        Self::vocabulary_counts_between(engine, shingles(a), shingles(b))
    }

    /// [`Library::vocabulary_counts`] for two documents of `a` and `b`
    /// distinct shingles.
    fn vocabulary_counts_between(engine: &Engine, a: usize, b: usize) -> bool {
        a.min(b) < LONG_DOCUMENT_SHINGLES
            || !AlgorithmId::ALL
                .into_iter()
                .any(|algo| Family::of(algo) != Family::Vocabulary && engine.is_enabled(algo))
    }

    /// The full fingerprints of `ids` (documents this library holds) from
    /// `source`; an id without any is left out.
    pub(super) fn full_prints_of<S: PrintSource + ?Sized>(
        &self,
        ids: &[DocId],
        source: &S,
    ) -> Result<HashMap<DocId, Fingerprints>, S::Error> {
        let (held, paths) = self.held_paths(ids);
        let prints = source.full_prints(&paths)?;
        Ok(held
            .into_iter()
            .zip(prints)
            .filter_map(|((id, _), f)| Some((id, f?)))
            .collect())
    }

    /// Those of `ids` held, with their paths, and the paths alone (to ask a
    /// [`PrintSource`] for, answers in the same order).
    pub(super) fn held_paths(&self, ids: &[DocId]) -> (Vec<(DocId, &DocPath)>, Vec<&DocPath>) {
        let held: Vec<(DocId, &DocPath)> = ids
            .iter()
            .filter_map(|&id| Some((id, &self.doc(id)?.path)))
            .collect();
        let paths = held.iter().map(|(_, p)| *p).collect();
        (held, paths)
    }

    /// Add or replace the document at `path`; returns its id. A replaced
    /// document keeps its arrival order.
    pub fn upsert<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        path: &DocPath,
        fingerprints: Fingerprints,
        shingles: usize,
        source: &S,
    ) -> Result<DocId, S::Error> {
        self.extend(engine, vec![(path.clone(), fingerprints, shingles)], source)?;
        Ok(self.id_of(path).expect("just added"))
    }

    /// Give a document an id, replacing the one at the same path (whose
    /// arrival order it keeps); it is neither filed nor verified yet.
    pub(super) fn place<S: PrintSource + ?Sized>(
        &mut self,
        path: DocPath,
        hot: ResidentPrints,
        shingles: usize,
        source: &S,
        affected: &mut Affected,
    ) -> Result<DocId, S::Error> {
        let seen = match self.id_of(&path) {
            Some(old) => {
                let seen = self.doc(old).map(|d| d.seen);
                affected.extend(self.remove_id(old, source)?);
                seen.expect("a held document")
            }
            None => self.registry.arrive(),
        };
        Ok(self.admit(DocInfo {
            path,
            seen,
            hot,
            shingles,
            facts: None,
        }))
    }

    /// The documents proposed for `id` (whose full fingerprints are
    /// `full`) among the `visible` ones (below `below`, see
    /// [`crate::candidates::CandidateTables::candidates_among`])
    /// that pass a cheap check by an
    /// algorithm that proposed them: the shared keys of an inverted index
    /// (half the floor leaves room for sampling noise), the hot
    /// fingerprints' score, or the keys shared in a signature table. A
    /// shared slot there is a matched signature but for the rare slot two
    /// keys share, so such a candidate is kept only if a signature really
    /// matches once its full fingerprints are read. SI's check (nearness
    /// in size, which its two nearest always pass) leaves SI to confirm:
    /// the pair is compared in full only once the sketches share a sampled
    /// k-gram. Between two long documents ([`LONG_DOCUMENT_SHINGLES`], when
    /// another family is computed) the SimHash family's check does not
    /// count.
    pub(super) fn promising_among(
        &self,
        engine: &Engine,
        id: DocId,
        full: &Fingerprints,
        below: DocId,
        visible: &(dyn Fn(DocId) -> bool + Sync),
        proposed: &ProposedCounter,
    ) -> Promising {
        use AlgorithmId as Id;
        // Only a document held is filed in the tables.
        let Some(doc) = self.doc(id) else {
            return Vec::new();
        };
        let (candidates, mine) = self.tables.candidates_among(id, full, below, visible);
        proposed.note(&candidates);
        let floors = &self.config.floors;
        // A candidate's entry, and the resident prints it points to, are cache
        // misses in a large library when its check needs them: the entry
        // is asked for this many candidates ahead, its prints half as many.
        // Only the checks of the algorithms with resident prints read the entry
        // (the others count shared keys, and most candidates, those a
        // sampled shingle alone proposed, fail on that), and only those
        // with prints kept apart from it read those.
        const AHEAD: usize = 8;
        let reading = |k: usize, reads: AlgorithmSet| {
            candidates
                .get(k)
                .filter(|(_, proposal)| !proposal.by.intersection(reads).is_empty())
                .map(|&(other_id, _)| other_id)
        };
        for k in 0..AHEAD {
            if let Some(ahead) = reading(k, ResidentPrints::HELD) {
                self.registry.prefetch(ahead);
            }
        }
        let mut promising: Vec<(DocId, AlgorithmSet)> = candidates
            .iter()
            .enumerate()
            .filter_map(|(k, &(other_id, ref proposal))| {
                if let Some(ahead) = reading(k + AHEAD, ResidentPrints::HELD) {
                    self.registry.prefetch(ahead);
                }
                if let Some(ahead) = reading(k + AHEAD / 2, ResidentPrints::APART) {
                    self.registry.prefetch_hot(ahead);
                }
                // Looked up only when a check needs it: most candidates
                // fail on their shared keys alone (the entry asked for
                // above may still be on its way).
                let other = OnceCell::new();
                let other = || *other.get_or_init(|| self.doc(other_id));
                let vocabulary_counts = OnceCell::new();
                let vocabulary_counts = || {
                    *vocabulary_counts.get_or_init(|| {
                        let theirs = other().map_or(0, |d| d.shingles);
                        Self::vocabulary_counts_between(engine, doc.shingles, theirs)
                    })
                };
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
                        _ if Family::of(algo) == Family::Vocabulary && !vocabulary_counts() => {
                            false
                        }
                        // SI's nearness in size is no evidence: its shared
                        // sampled k-gram, read from the full prints, must
                        // confirm the pair before it is compared in full.
                        Id::Si => {
                            if other().is_some_and(|other| {
                                engine
                                    .score_hot(algo, &doc.hot, &other.hot)
                                    .is_some_and(|score| score.passes(floors.get(algo)))
                            }) {
                                to_confirm.insert(algo);
                            }
                            false
                        }
                        _ => other().is_some_and(|other| {
                            engine
                                .score_hot(algo, &doc.hot, &other.hot)
                                .is_some_and(|score| score.passes(floors.get(algo)))
                        }),
                    };
                    if passes {
                        return other().map(|_| (other_id, AlgorithmSet::default()));
                    }
                }
                (!to_confirm.is_empty() && other().is_some()).then_some((other_id, to_confirm))
            })
            .collect();
        promising.sort_unstable_by_key(|&(other, _)| other);
        promising
    }

    /// Verify document `id` against each of `others` whose full
    /// fingerprints `theirs` gives ([`Library::verify_pair`]); the pairs
    /// worth keeping, with their scores.
    pub(super) fn verify_against<'a>(
        &self,
        engine: &Engine,
        (id, mine): (DocId, &Fingerprints),
        others: impl IntoIterator<Item = (DocId, AlgorithmSet)>,
        theirs: impl Fn(&DocId) -> Option<&'a Fingerprints>,
        compared: &AtomicU64,
    ) -> Verified {
        others
            .into_iter()
            .filter_map(|(other, to_confirm)| {
                let scores = self.verify_pair(
                    engine,
                    (id, mine),
                    (other, theirs(&other)?),
                    to_confirm,
                    compared,
                )?;
                Some((other, scores))
            })
            .collect()
    }

    /// The scores of `id` and `other` (full prints `mine` and `theirs`)
    /// when their pair is kept: the algorithms of `to_confirm` are scored
    /// first, and the pair is compared in full (counted in `compared`) only
    /// when one of them passes its floor (the pair could not be kept
    /// otherwise).
    fn verify_pair(
        &self,
        engine: &Engine,
        (id, mine): (DocId, &Fingerprints),
        (other, theirs): (DocId, &Fingerprints),
        to_confirm: AlgorithmSet,
        compared: &AtomicU64,
    ) -> Option<PairScores> {
        let floors = &self.config.floors;
        let worth = to_confirm.is_empty()
            || to_confirm.iter().any(|algo| {
                engine
                    .score(algo, mine, theirs)
                    .is_some_and(|s| s.passes(floors.get(algo)))
            });
        if !worth {
            return None;
        }
        compared.fetch_add(1, Ordering::Relaxed);
        let scores = engine.compare(mine, theirs);
        let vocabulary = self.vocabulary_counts(engine, id, other);
        (self.confirmed(&scores, to_confirm) && self.passes_floor(&scores, vocabulary))
            .then_some(scores)
    }

    /// Whether verified `scores` keep a pair whose candidate check left
    /// `to_confirm`: one of those algorithms passes its floor.
    fn confirmed(&self, scores: &PairScores, to_confirm: AlgorithmSet) -> bool {
        to_confirm.is_empty()
            || to_confirm.iter().any(|algo| {
                scores
                    .get(&algo)
                    .is_some_and(|s| s.passes(self.config.floors.get(algo)))
            })
    }

    pub(super) fn add_pairs(&mut self, id: DocId, verified: Verified) {
        for (other, scores) in verified {
            self.keep_pair(id, other, scores);
        }
    }

    /// Give new documents ids (replacing any at the same paths, whose
    /// arrival order they keep) and file them in the candidate tables, in
    /// arrival order; no pair is verified. Returns the distinct ids in
    /// arrival order and each one's full fingerprints (a path given twice
    /// is filed once, with its last copy, under the id of that copy).
    fn admit_all<S: PrintSource + ?Sized>(
        &mut self,
        docs: Vec<(DocPath, Fingerprints, usize)>,
        source: &S,
    ) -> Result<Admitted, S::Error> {
        let mut ids = Vec::with_capacity(docs.len());
        let mut batch = HashMap::with_capacity(docs.len());
        // Only documents held outside this batch can be affected by it.
        let replaced = docs
            .iter()
            .filter(|(path, _, _)| self.id_of(path).is_some())
            .count();
        let held_outside = self.len() > replaced;
        let mut affected = Affected::default();
        let mut change = Change::Growth;
        for (path, fingerprints, shingles) in docs {
            if self.id_of(&path).is_some() {
                change = Change::Any;
            }
            let id = self.place(path, fingerprints.hot(), shingles, source, &mut affected)?;
            ids.push(id);
            batch.insert(id, fingerprints);
        }
        let ids = distinct(&ids);
        let filed: Vec<(DocId, &Fingerprints)> = ids
            .iter()
            .filter(|&&id| self.doc(id).is_some())
            .map(|&id| (id, &batch[&id]))
            .collect();
        if held_outside {
            affected.extend(self.tables.insert_many_affecting(&filed));
        } else {
            self.tables.insert_many(&filed);
        }
        Ok((ids, batch, affected, change))
    }

    /// Add many documents at once: all enter the candidate tables first,
    /// then every new document is verified in parallel against the
    /// documents that arrived before it (so each new–new pair once), the
    /// full fingerprints of those already held read from `source` (only of
    /// the candidates that pass a cheap check, in one go). Documents held
    /// before whose candidates the change moved (a posting list crossing
    /// the cap, SI neighbours pushed aside) gather theirs again
    /// (`regather_some`). The pairs depend only on the documents
    /// held, never on the order or the batches they came in: any sequence
    /// of additions, replacements and removals keeps exactly the pairs of
    /// one batch of what is left, posting and SI caps included.
    pub fn extend<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        docs: Vec<(DocPath, Fingerprints, usize)>,
        source: &S,
    ) -> Result<(), S::Error> {
        self.pair_unpaired(engine, source)?;
        let (new_ids, batch, affected, change) = self.admit_all(docs, source)?;
        // Position in this batch by dense id (MAX: not in the batch).
        let mut arrival = vec![usize::MAX; self.registry.id_bound()];
        for (i, &id) in new_ids.iter().enumerate() {
            arrival[id as usize] = i;
        }
        self.gathered += new_ids.len() as u64;
        let proposed = ProposedCounter::default();
        let promising: Vec<Promising> = new_ids
            .par_iter()
            .enumerate()
            .map(|(position, &id)| {
                let earlier = |other: DocId| {
                    arrival
                        .get(other as usize)
                        .is_none_or(|&p| p == usize::MAX || p < position)
                };
                self.promising_among(engine, id, &batch[&id], DocId::MAX, &earlier, &proposed)
            })
            .collect();
        self.proposed.add(&proposed.into_proposed());
        let mut outside: Vec<DocId> = promising
            .iter()
            .flatten()
            .map(|&(id, _)| id)
            .filter(|id| !batch.contains_key(id))
            .collect();
        outside.sort_unstable();
        outside.dedup();
        let loaded = self.full_prints_of(&outside, source)?;
        let compared = AtomicU64::new(0);
        let results: Vec<(DocId, Verified)> = new_ids
            .par_iter()
            .zip(promising)
            .map(|(&id, others)| {
                let theirs = |other: &DocId| batch.get(other).or_else(|| loaded.get(other));
                let verified =
                    self.verify_against(engine, (id, &batch[&id]), others, theirs, &compared);
                (id, verified)
            })
            .collect();
        drop(loaded);
        self.compared += compared.into_inner();
        for (id, verified) in results {
            self.add_pairs(id, verified);
        }
        self.regather_some(engine, affected, change, &batch, source)
    }

    /// Gather again the candidates of the `affected` held documents (but
    /// those in `batch`, just verified): keep the newly proposed pairs that
    /// pass, drop the kept pairs no longer proposed or confirmed. Proposing
    /// is symmetric, so each document's own query decides all its pairs. A
    /// kept pair still proposed keeps its scores (nothing changed them); a
    /// document whose SI proposals alone moved verifies only those. After
    /// [`Change::Growth`] only documents with kept pairs outside `batch` are
    /// looked at, and nothing is verified (no pair can be gained); so a
    /// chunk's arrival costs what it can change, not every document whose
    /// SI neighbours it pushed aside. The documents whose pairs changed are
    /// noted for [`Library::take_touched`].
    fn regather_some<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        affected: Affected,
        change: Change,
        batch: &HashMap<DocId, Fingerprints>,
        source: &S,
    ) -> Result<(), S::Error> {
        let may_lose = |id: DocId| {
            self.graph
                .neighbours(id)
                .iter()
                .any(|other| !batch.contains_key(other))
        };
        let live = |id: &DocId| {
            !batch.contains_key(id)
                && self.doc(*id).is_some()
                && (change == Change::Any || may_lose(*id))
        };
        let all_moved: HashSet<DocId> = affected.by_cap.into_iter().filter(live).collect();
        // After growth a document moved by SI alone keeps its other
        // proposals (no list it is in crossed the cap): its kept pairs can
        // change only where SI no longer proposes the other.
        let may_have_moved = |id: &DocId| {
            change == Change::Any || all_moved.contains(id) || self.si_left_a_pair(*id, batch)
        };
        let mut ids: Vec<DocId> = affected
            .by_si
            .into_iter()
            .filter(live)
            .filter(may_have_moved)
            .chain(all_moved.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return Ok(());
        }
        let mut full = self.full_prints_of(&ids, source)?;
        ids.retain(|id| full.contains_key(id));
        self.gathered += ids.len() as u64;
        let proposed = ProposedCounter::default();
        let outside = |other: DocId| !batch.contains_key(&other);
        // Per document: its promising candidates, and those to compare in
        // full (not kept yet, and proposed anew).
        let gathered: Vec<(Promising, Vec<(DocId, AlgorithmSet)>)> = ids
            .par_iter()
            .map(|&id| {
                let promising =
                    self.promising_among(engine, id, &full[&id], DocId::MAX, &outside, &proposed);
                let si: HashSet<DocId> = match (all_moved.contains(&id), si_of(&full[&id])) {
                    (false, Some(value)) if change == Change::Any => {
                        self.tables.si_proposed(id, value).into_iter().collect()
                    }
                    _ => HashSet::new(),
                };
                let fresh = promising
                    .iter()
                    .copied()
                    .filter(|&(other, _)| {
                        change == Change::Any
                            && self.graph.row(id, other).is_none()
                            && (all_moved.contains(&id) || si.contains(&other))
                    })
                    .collect();
                (promising, fresh)
            })
            .collect();
        self.proposed.add(&proposed.into_proposed());
        let mut others: Vec<DocId> = gathered
            .iter()
            .flat_map(|(_, fresh)| fresh)
            .map(|&(id, _)| id)
            .filter(|id| !full.contains_key(id))
            .collect();
        others.sort_unstable();
        others.dedup();
        full.extend(self.full_prints_of(&others, source)?);
        let compared = AtomicU64::new(0);
        let verified: Vec<Verified> = ids
            .par_iter()
            .zip(&gathered)
            .map(|(&id, (_, fresh))| {
                let others = fresh.iter().copied();
                self.verify_against(engine, (id, &full[&id]), others, |o| full.get(o), &compared)
            })
            .collect();
        drop(full);
        self.compared += compared.into_inner();
        for ((id, (promising, _)), verified) in ids.into_iter().zip(gathered).zip(verified) {
            let still: HashMap<DocId, AlgorithmSet> = promising.into_iter().collect();
            let stale: Vec<DocId> = self
                .graph
                .neighbours(id)
                .iter()
                .copied()
                .filter(|other| !batch.contains_key(other))
                .filter(
                    |other| match (still.get(other), self.graph.scores_from(id, *other)) {
                        (Some(&to_confirm), Some(scores)) => !self.confirmed(&scores, to_confirm),
                        _ => true,
                    },
                )
                .collect();
            let mut touched = !stale.is_empty();
            for other in stale {
                self.graph.drop_pair(id, other);
            }
            for (other, scores) in verified {
                if self.graph.row(id, other).is_none() {
                    self.keep_pair(id, other, scores);
                    touched = true;
                }
            }
            if touched {
                let path = self.doc(id).expect("a held document").path.clone();
                self.touched.insert(path);
            }
        }
        Ok(())
    }

    /// Whether document `id` has a kept pair (outside `batch`) with a
    /// document SI does not propose for it now (or it has no SI index).
    fn si_left_a_pair(&self, id: DocId, batch: &HashMap<DocId, Fingerprints>) -> bool {
        let Some(value) = self.doc(id).and_then(|d| d.hot.si.flatten()) else {
            return true;
        };
        let proposed: HashSet<DocId> = self.tables.si_proposed(id, value).into_iter().collect();
        self.graph
            .neighbours(id)
            .iter()
            .any(|other| !batch.contains_key(other) && !proposed.contains(other))
    }

    /// The held documents whose kept pairs changed because of changes to
    /// other documents since the last call (an index writes their pairs
    /// again).
    pub fn take_touched(&mut self) -> Vec<DocPath> {
        let mut touched: Vec<DocPath> = std::mem::take(&mut self.touched)
            .into_iter()
            .filter(|p| self.id_of(p).is_some())
            .collect();
        touched.sort();
        touched
    }

    /// Remove the document at `path`, reading its full fingerprints (its
    /// candidate-table keys) from `source`, and gather again the candidates
    /// of those its going changes; false if it was not held.
    pub fn remove<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        path: &DocPath,
        source: &S,
    ) -> Result<bool, S::Error> {
        Ok(self.remove_many(engine, std::slice::from_ref(path), source)? == 1)
    }

    /// [`Library::remove`] of each of `paths`, but the candidates of the
    /// documents their going changes are gathered again once per
    /// thousand of them, not once per document (a folder of
    /// 10,000 texts deleted under a watcher regathered ~10,000 times).
    /// The pairs kept are the same either way: each document's own query
    /// decides all its pairs, and it is asked against the library as the
    /// removals leave it. Returns how many of `paths` were held.
    pub fn remove_many<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        paths: &[DocPath],
        source: &S,
    ) -> Result<usize, S::Error> {
        let mut ids: Vec<DocId> = paths.iter().filter_map(|p| self.id_of(p)).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return Ok(0);
        }
        self.pair_unpaired(engine, source)?;
        for chunk in ids.chunks(REMOVAL_CHUNK) {
            let mut full = self.full_prints_of(chunk, source)?;
            let mut affected = Affected::default();
            for &id in chunk {
                affected.extend(self.take_out(id, full.remove(&id)));
            }
            drop(full);
            self.regather_some(engine, affected, Change::Any, &HashMap::new(), source)?;
        }
        Ok(ids.len())
    }

    /// Take document `id` out, reading its full fingerprints from
    /// `source`; returns the documents whose candidates its going changed.
    fn remove_id<S: PrintSource + ?Sized>(
        &mut self,
        id: DocId,
        source: &S,
    ) -> Result<Affected, S::Error> {
        if self.doc(id).is_none() {
            return Ok(Affected::default());
        }
        let full = self.full_prints_of(&[id], source)?.remove(&id);
        Ok(self.take_out(id, full))
    }

    /// Take held document `id` out, given its full fingerprints (`None`:
    /// the source had none); returns the documents whose candidates its
    /// going changed.
    fn take_out(&mut self, id: DocId, full: Option<Fingerprints>) -> Affected {
        // Without its keys the document cannot be taken out of the tables;
        // its postings are skipped as long as the id is dead, so it is not
        // reused.
        let affected = match &full {
            Some(f) => self.tables.remove_affecting(id, f),
            // Its postings stay (skipped while the id is dead), but SI's
            // index, which nearest-neighbour queries count, is cleared from
            // the resident prints.
            None => {
                if let Some(si) = self.doc(id).and_then(|d| d.hot.si.flatten()) {
                    self.tables.remove_si(id, si);
                }
                Affected::default()
            }
        };
        self.dismiss(id, full.is_some());
        affected
    }

    /// Re-gather every document's candidates under new `floors`, reading
    /// full fingerprints from `source` a chunk of documents at a time.
    pub fn regather<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        floors: Thresholds,
        source: &S,
    ) -> Result<(), S::Error> {
        self.regather_with(engine, floors, source, &mut || true)
            .map(|_| ())
    }

    /// [`Library::regather`], asking `go_on` before each chunk: `false`
    /// stops there, the library as it was (its floors too, so the next
    /// threshold move below them gathers again). Whether it is done.
    pub fn regather_with<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        floors: Thresholds,
        source: &S,
        go_on: &mut dyn FnMut() -> bool,
    ) -> Result<bool, S::Error> {
        const CHUNK: usize = 1024;
        let mut docs: Vec<(DocId, DocPath, usize, u64)> = self
            .registry
            .iter()
            .map(|(id, d)| (id, d.path.clone(), d.shingles, d.seen))
            .collect();
        docs.sort_by_key(|d| d.3);
        let mut fresh = Library::new(
            engine,
            LibraryConfig {
                floors,
                ..self.config.clone()
            },
        );
        fresh.batch_docs = self.batch_docs;
        for chunk in docs.chunks(self.batch_docs.unwrap_or(CHUNK)) {
            if !go_on() {
                tracing::debug!(documents = docs.len(), "regather stopped");
                return Ok(false);
            }
            let ids: Vec<DocId> = chunk.iter().map(|d| d.0).collect();
            let mut prints = self.full_prints_of(&ids, source)?;
            let batch: Vec<(DocPath, Fingerprints, usize)> = chunk
                .iter()
                .filter_map(|(id, path, shingles, _)| {
                    Some((path.clone(), prints.remove(id)?, *shingles))
                })
                .collect();
            drop(prints);
            fresh.extend(engine, batch, source)?;
        }
        let mut verdicts = std::mem::take(&mut self.verdicts);
        let registry = &fresh.registry;
        verdicts.reindex(|p| registry.id_of(p));
        fresh.verdicts = verdicts;
        *self = fresh;
        Ok(true)
    }
}
