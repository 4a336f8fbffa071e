//! `simhash-shingle`: Fan & Huang §3.1, SimHash over word k-shingles.
//!
//! Features are k-shingles of the term stream (stop words removed, stemmed;
//! default k = 2) instead of single terms; a shingle's weight is the sum of
//! the IDF of its words, so word order now matters and two documents with the
//! same vocabulary in a different order no longer collide. k = 1 is plain
//! `simhash`.

use serde::{Deserialize, Serialize};

use super::simhash::{hamming_score, weighted_fingerprint, SimhashFingerprint};
use super::{Algorithm, AlgorithmId, Score};
use crate::analysis::Analysis;
use crate::hash::combine;
use crate::stats::TermWeights;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashShingleConfig {
    /// Terms per shingle. Default: 2 (the paper's best).
    pub k: usize,
    /// Fingerprint size in bits, 1–64. Default: 64.
    pub bits: u32,
    /// Seed of the feature hash. Default: 0x5eed_0006.
    pub seed: u64,
}

impl Default for SimhashShingleConfig {
    fn default() -> Self {
        Self {
            k: 2,
            bits: 64,
            seed: 0x5eed_0006,
        }
    }
}

/// SimHash of the k-shingles of `terms` (the shared core with
/// `simhash-lexicons`, which passes a lexicon-filtered term stream).
pub fn shingle_simhash(
    terms: &[u64],
    weights: &dyn TermWeights,
    k: usize,
    bits: u32,
    seed: u64,
) -> Option<u64> {
    let k = k.max(1).min(terms.len().max(1));
    if terms.is_empty() {
        return None;
    }
    weighted_fingerprint(
        terms
            .windows(k)
            .map(|w| (combine(w, seed), w.iter().map(|&t| weights.idf(t)).sum())),
        bits,
    )
}

#[derive(Debug, Clone, Default)]
pub struct SimhashShingle {
    pub config: SimhashShingleConfig,
}

impl SimhashShingle {
    pub fn new(config: SimhashShingleConfig) -> Self {
        Self { config }
    }
}

impl Algorithm for SimhashShingle {
    type Fingerprint = SimhashFingerprint;
    const ID: AlgorithmId = AlgorithmId::SimhashShingle;

    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> SimhashFingerprint {
        let c = &self.config;
        shingle_simhash(&doc.terms, weights, c.k, c.bits, c.seed)
    }

    fn score(&self, a: &SimhashFingerprint, b: &SimhashFingerprint) -> Score {
        hamming_score(*a, *b, self.config.bits)
    }
}
