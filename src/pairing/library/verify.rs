//! Documents in and out: a new document's candidates come from the
//! candidate tables, pass a cheap check on the hot fingerprints (or shared
//! keys), are compared in full, and the pair is kept when some algorithm
//! passes its floor ([`Library::passes_floor`]). Many documents enter at
//! once with exactly the pairs of adding them one by one.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use super::{DocInfo, Library, LibraryConfig, PrintSource};
use crate::doc::{DocId, DocPath};
use crate::engine::algo::{AlgorithmId, AlgorithmSet, Score};
use crate::engine::{Engine, Fingerprints, HotPrints, PairScores, Thresholds};

/// Verified candidates of one document, and whether the SI cap cut some off.
type Verified = (Vec<(DocId, PairScores)>, bool);

/// Documents proposed for one new document that pass a cheap check, each
/// with the signature algorithms whose real score must confirm it (empty
/// when a check on real values passed), and whether the SI cap cut some
/// off.
type Promising = (Vec<(DocId, AlgorithmSet)>, bool);

/// Newly admitted documents in arrival order, and each one's full
/// fingerprints.
type Admitted = (Vec<DocId>, HashMap<DocId, Fingerprints>);

/// `ids` without repeats, first occurrences in order.
fn distinct(ids: &[DocId]) -> Vec<DocId> {
    let mut once = HashSet::new();
    ids.iter().copied().filter(|&id| once.insert(id)).collect()
}

impl Library {
    /// Whether verified `scores` keep a pair: an algorithm passes its
    /// floor, or containment reaches the containment floor.
    pub fn passes_floor(&self, scores: &PairScores) -> bool {
        scores
            .iter()
            .any(|(&id, s)| s.passes(self.config.floors.get(id)))
            || scores
                .get(&AlgorithmId::Shingle)
                .and_then(Score::containment)
                .is_some_and(|c| c >= self.config.containment_floor)
    }

    /// The full fingerprints of `ids` (documents this library holds) from
    /// `source`; an id without any is left out.
    fn full_prints_of<S: PrintSource + ?Sized>(
        &self,
        ids: &[DocId],
        source: &S,
    ) -> Result<HashMap<DocId, Fingerprints>, S::Error> {
        let held: Vec<(DocId, &DocPath)> = ids
            .iter()
            .filter_map(|&id| Some((id, &self.doc(id)?.path)))
            .collect();
        let paths: Vec<&DocPath> = held.iter().map(|(_, p)| *p).collect();
        let prints = source.full_prints(&paths)?;
        Ok(held
            .into_iter()
            .zip(prints)
            .filter_map(|((id, _), f)| Some((id, f?)))
            .collect())
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
    fn place<S: PrintSource + ?Sized>(
        &mut self,
        path: DocPath,
        hot: HotPrints,
        shingles: usize,
        source: &S,
    ) -> Result<DocId, S::Error> {
        let seen = match self.id_of(&path) {
            Some(old) => {
                let seen = self.doc(old).map(|d| d.seen);
                self.remove_id(old, source)?;
                seen.expect("a held document")
            }
            None => self.registry.arrive(),
        };
        Ok(self.admit(DocInfo {
            path,
            seen,
            hot,
            shingles,
        }))
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
        let (candidates, mine, capped) = self.tables.candidates_among(id, full, visible);
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
            self.graph.mark_si_capped(id);
        }
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
        self.tables.insert_many(&filed);
        Ok((ids, batch))
    }

    /// Add many documents at once: all enter the candidate tables first,
    /// then every new document is verified in parallel against the
    /// documents that arrived before it (so each new–new pair once), the
    /// full fingerprints of those already held read from `source` (only of
    /// the candidates that pass a cheap check, in one go). Gives the same
    /// pairs as adding them one by one in this order, posting and SI caps
    /// included.
    pub fn extend<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        docs: Vec<(DocPath, Fingerprints, usize)>,
        source: &S,
    ) -> Result<(), S::Error> {
        let (new_ids, batch) = self.admit_all(docs, source)?;
        // Position in this batch by dense id (MAX: not in the batch).
        let mut arrival = vec![usize::MAX; self.registry.id_bound()];
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
                        let theirs = batch.get(&other).or_else(|| loaded.get(&other))?;
                        let scores = engine.compare(mine, theirs);
                        (self.confirmed(&scores, to_confirm) && self.passes_floor(&scores))
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
        Ok(())
    }

    /// Remove the document at `path`, reading its full fingerprints (its
    /// candidate-table keys) from `source`; false if it was not held.
    pub fn remove<S: PrintSource + ?Sized>(
        &mut self,
        path: &DocPath,
        source: &S,
    ) -> Result<bool, S::Error> {
        match self.id_of(path) {
            Some(id) => {
                self.remove_id(id, source)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn remove_id<S: PrintSource + ?Sized>(
        &mut self,
        id: DocId,
        source: &S,
    ) -> Result<(), S::Error> {
        if self.doc(id).is_none() {
            return Ok(());
        }
        let full = self.full_prints_of(&[id], source)?.remove(&id);
        // Without its keys the document cannot be taken out of the tables;
        // its postings are skipped as long as the id is dead, so it is not
        // reused.
        if let Some(f) = &full {
            self.tables.remove(id, f);
        }
        self.dismiss(id, full.is_some());
        Ok(())
    }

    /// Re-gather every document's candidates under new `floors`, reading
    /// full fingerprints from `source` a chunk of documents at a time.
    pub fn regather<S: PrintSource + ?Sized>(
        &mut self,
        engine: &Engine,
        floors: Thresholds,
        source: &S,
    ) -> Result<(), S::Error> {
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
        for chunk in docs.chunks(CHUNK) {
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
        Ok(())
    }
}
