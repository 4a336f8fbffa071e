//! The pair graph: every verified pair kept with all its scores (the
//! [`PairTable`] rows) and each document's neighbours.

use crate::pairs::{Histograms, PairRow, PairTable};
use doppel_core::doc::DocId;
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::PairScores;

/// The other ends of one document's kept pairs, sorted: most documents
/// have a few, kept inline.
type Neighbours = smallvec::SmallVec<[DocId; 4]>;

/// Kept pairs and who is paired with whom.
#[derive(Debug, Clone, Default)]
pub(super) struct PairGraph {
    pairs: PairTable,
    /// The other ends of each document's kept pairs (by id), sorted.
    neighbours: Vec<Neighbours>,
}

impl PairGraph {
    /// The rows, for judging them all.
    pub fn table(&self) -> &PairTable {
        &self.pairs
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn row(&self, a: DocId, b: DocId) -> Option<&PairRow> {
        self.pairs.get(a, b)
    }

    /// The scores of the pair {from, to}, oriented from `from`.
    pub fn scores_from(&self, from: DocId, to: DocId) -> Option<PairScores> {
        Some(self.pairs.get(from, to)?.scores_from(from))
    }

    /// The other ends of `id`'s pairs, in id order.
    pub fn neighbours(&self, id: DocId) -> &[DocId] {
        self.neighbours
            .get(id as usize)
            .map_or(&[], |n| n.as_slice())
    }

    pub fn histograms(&self) -> Histograms {
        self.pairs.histograms()
    }

    /// Forget the pair {a, b}.
    pub fn drop_pair(&mut self, a: DocId, b: DocId) {
        self.pairs.remove(a.min(b), a.max(b));
        for (x, y) in [(a, b), (b, a)] {
            if let Some(list) = self.neighbours.get_mut(x as usize) {
                if let Ok(at) = list.binary_search(&y) {
                    list.remove(at);
                }
            }
        }
    }

    /// Keep the pair {id, other}, `scores` oriented from `id`;
    /// `smaller_shingles` is the smaller document's shingle count.
    pub fn insert(
        &mut self,
        id: DocId,
        other: DocId,
        scores: impl IntoIterator<Item = (AlgorithmId, Score)>,
        smaller_shingles: usize,
    ) {
        // Scores are stored for the ordered pair (a, b), a < b.
        let swap = id > other;
        let scores = scores
            .into_iter()
            .map(|(k, s)| (k, if swap { s.swapped() } else { s }));
        let (a, b) = (id.min(other), id.max(other));
        self.pairs
            .insert(PairRow::new(a, b, scores, smaller_shingles));
        self.link(id, other);
        self.link(other, id);
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

    /// Forget every pair of `id`.
    pub fn drop_doc(&mut self, id: DocId) {
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
    }

    /// Room for `docs` documents and `pairs` pairs.
    pub fn reserve(&mut self, docs: usize, pairs: usize) {
        self.neighbours.reserve_exact(docs);
        self.pairs.reserve(pairs);
    }
}
