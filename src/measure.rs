//! Exact similarity measures for verification and display, computed on
//! demand for one pair from the two analyses: Jaccard resemblance and
//! containment of the full (unsampled) word-shingle sets, and the cosine of
//! the TF-IDF term vectors. Estimators (MinHash, SimHash) are tested against
//! these.

use std::collections::HashMap;

use serde::Serialize;

use crate::algo::{into_set, sorted_intersection_len};
use crate::analysis::Analysis;
use crate::stats::TermWeights;

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
    pub a_shingles: usize,
    pub b_shingles: usize,
}

/// The full, sorted, distinct w-shingle set of a document's words.
pub fn shingle_set(doc: &Analysis, w: usize, seed: u64) -> Vec<u64> {
    into_set(crate::text::tokenize::shingle_hashes(&doc.words, w, seed).collect())
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
    fn vector(doc: &Analysis, weights: &dyn TermWeights) -> HashMap<u64, f64> {
        let mut v = HashMap::new();
        for &t in &doc.terms {
            *v.entry(t).or_insert(0.0) += weights.idf(t);
        }
        v
    }
    let (va, vb) = (vector(a, weights), vector(b, weights));
    let norm = |v: &HashMap<u64, f64>| v.values().map(|x| x * x).sum::<f64>().sqrt();
    let (na, nb) = (norm(&va), norm(&vb));
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    let dot: f64 = va
        .iter()
        .filter_map(|(t, x)| vb.get(t).map(|y| x * y))
        .sum();
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
