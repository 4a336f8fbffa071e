//! Exact similarity measures for verification and display, computed on
//! demand for one pair from the two analyses: Jaccard resemblance and
//! containment of the full (unsampled) word-shingle sets, and the cosine of
//! the TF-IDF term vectors. Estimators (MinHash, SimHash) are tested against
//! these.

use serde::Serialize;

use crate::engine::algo::{into_set, sorted_intersection_len};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;

/// The exact measures a pair's estimates approximate, from the full
/// analyses of both documents.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExactMeasures {
    /// |A ∩ B| / |A ∪ B| of the full w-shingle sets.
    pub jaccard: f64,
    /// |A ∩ B| / |A|: how much of A is found in B.
    pub a_in_b: f64,
    /// |A ∩ B| / |B|.
    pub b_in_a: f64,
    /// Cosine of the TF-IDF term vectors.
    pub cosine: f64,
    /// Distinct shingles of A.
    pub a_shingles: usize,
    /// Distinct shingles of B.
    pub b_shingles: usize,
}

/// The full, sorted, distinct w-shingle set of a document's words.
pub fn shingle_set(doc: &Analysis, w: usize, seed: u64) -> Vec<u64> {
    into_set(crate::engine::text::tokenize::shingle_hashes(&doc.words, w, seed).collect())
}

/// Jaccard of two sorted, distinct sets (0 when both are empty: two empty
/// documents share nothing worth calling similar).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let common = sorted_intersection_len(a, b);
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// Size of the union of two sorted, distinct sets.
pub fn union_len(a: &[u64], b: &[u64]) -> usize {
    a.len() + b.len() - sorted_intersection_len(a, b)
}

/// Cosine similarity of the TF-IDF vectors of two documents' terms.
pub fn cosine_tfidf(a: &Analysis, b: &Analysis, weights: &dyn TermWeights) -> f64 {
    // Sorted (term, weight) vectors: sums in term order, so the result is
    // the same to the last bit on every run (a hash map's order is not).
    fn vector(doc: &Analysis, weights: &dyn TermWeights) -> Vec<(u64, f64)> {
        let mut terms = doc.terms.clone();
        terms.sort_unstable();
        let mut v: Vec<(u64, f64)> = Vec::with_capacity(terms.len());
        for t in terms {
            match v.last_mut() {
                Some((last, w)) if *last == t => *w += weights.idf(t),
                _ => v.push((t, weights.idf(t))),
            }
        }
        v
    }
    let (va, vb) = (vector(a, weights), vector(b, weights));
    let norm = |v: &[(u64, f64)]| v.iter().map(|(_, x)| x * x).sum::<f64>().sqrt();
    let (na, nb) = (norm(&va), norm(&vb));
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    let (mut i, mut j, mut dot) = (0, 0, 0.0);
    while i < va.len() && j < vb.len() {
        match va[i].0.cmp(&vb[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += va[i].1 * vb[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    (dot / (na * nb)).clamp(0.0, 1.0)
}

/// All exact measures for a pair.
pub fn exact_measures(
    a: &Analysis,
    b: &Analysis,
    w: usize,
    seed: u64,
    weights: &dyn TermWeights,
) -> ExactMeasures {
    let (sa, sb) = (shingle_set(a, w, seed), shingle_set(b, w, seed));
    let common = sorted_intersection_len(&sa, &sb) as f64;
    let share = |n: usize| if n == 0 { 0.0 } else { common / n as f64 };
    ExactMeasures {
        jaccard: jaccard(&sa, &sb),
        a_in_b: share(sa.len()),
        b_in_a: share(sb.len()),
        cosine: cosine_tfidf(a, b, weights),
        a_shingles: sa.len(),
        b_shingles: sb.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stats::TermWeights;

    /// Every term weighs 1: the cosine of raw term frequencies.
    struct Unit;

    impl TermWeights for Unit {
        fn idf(&self, _: u64) -> f64 {
            1.0
        }
        fn unseen_idf(&self) -> f64 {
            1.0
        }
    }

    fn doc(terms: &[u64]) -> Analysis {
        Analysis {
            terms: terms.to_vec(),
            ..Analysis::default()
        }
    }

    #[test]
    fn cosine_of_term_frequency_vectors() {
        // (x:2, y:1) · (x:1, z:1) = 2; norms √5 and √2.
        let c = cosine_tfidf(&doc(&[1, 2, 1]), &doc(&[3, 1]), &Unit);
        assert!((c - 2.0 / 10f64.sqrt()).abs() < 1e-12, "{c}");
        assert!((cosine_tfidf(&doc(&[4, 5, 4]), &doc(&[5, 4, 4]), &Unit) - 1.0).abs() < 1e-12);
        assert_eq!(cosine_tfidf(&doc(&[1, 2]), &doc(&[3, 4]), &Unit), 0.0);
        assert_eq!(cosine_tfidf(&doc(&[]), &doc(&[3, 4]), &Unit), 0.0);
    }
}
