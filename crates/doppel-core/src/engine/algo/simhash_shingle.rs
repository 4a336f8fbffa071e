//! `simhash-shingle`: Fan & Huang §3.1, SimHash over word k-shingles.
//!
//! Features are k-shingles of the term stream (stop words removed, stemmed;
//! default k = 2) instead of single terms; a shingle's weight is the sum of
//! the IDF of its words, so word order now matters and two documents with the
//! same vocabulary in a different order no longer collide. k = 1 is plain
//! `simhash`.

use serde::{Deserialize, Serialize};

use std::collections::TryReserveError;

use super::pieces::GramTail;
use super::simhash::{
    hamming_score, Counters, SimhashFingerprint, WeightedTerms, MAX_FEATURE_WEIGHT,
};
use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::engine::text::tokenize::shingle_hashes;

/// Parameters of `simhash-shingle` (`[algorithms.simhash-shingle]` in the config file).
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

/// SimHash of the k-shingles of `terms` whose per-term weights are `idf`
/// (in [`super::simhash::WEIGHT_UNITS`]; the shared core with
/// `simhash-lexicons`, which passes a lexicon-filtered stream). A
/// shingle's weight is the sum of its terms' weights.
pub fn shingle_simhash(terms: &[u64], idf: &[u32], k: usize, bits: u32, seed: u64) -> Option<u64> {
    let mut counters = Counters::default();
    add_shingles(&mut counters, terms, idf, k, seed);
    counters.finish(bits)
}

/// Add the k-shingles of `terms` (one of all of them when there are fewer
/// than k) to `counters`, each weighing the sum of its terms' `idf`.
fn add_shingles(counters: &mut Counters, terms: &[u64], idf: &[u32], k: usize, seed: u64) {
    if terms.is_empty() {
        return;
    }
    let k = k.max(1).min(terms.len());
    let hashes: Vec<u64> = shingle_hashes(terms, k, seed).collect();
    // Integer sums, so rolling the window is exact.
    let mut window: u64 = idf[..k - 1].iter().map(|&w| u64::from(w)).sum();
    let weights: Vec<u32> = idf[k - 1..]
        .iter()
        .zip(idf)
        .map(|(&entering, &leaving)| {
            window += u64::from(entering);
            let weight = window.min(u64::from(MAX_FEATURE_WEIGHT)) as u32;
            window -= u64::from(leaving);
            weight
        })
        .collect();
    counters.add(&hashes, &weights);
}

/// [`shingle_simhash`] of a weighted term stream arriving in pieces: the
/// shingles that straddle two pieces are made from the last k − 1 terms
/// kept, and a stream shorter than k makes its one shingle at the end.
#[derive(Debug, Clone)]
pub struct ShingleCounters {
    k: usize,
    bits: u32,
    seed: u64,
    terms: GramTail<u64>,
    idf: GramTail<u32>,
    counters: Counters,
}

impl ShingleCounters {
    /// Counters for shingles of `k` terms, a `bits`-bit fingerprint.
    pub fn new(k: usize, bits: u32, seed: u64) -> Self {
        let k = k.max(1);
        Self {
            k,
            bits,
            seed,
            terms: GramTail::new(k),
            idf: GramTail::new(k),
            counters: Counters::default(),
        }
    }

    /// The next terms of the stream, with their weights.
    pub fn push(&mut self, terms: &[u64], idf: &[u32]) -> Result<(), TryReserveError> {
        // Both tails keep the same positions, so they join alike.
        let (joined_terms, joined_idf) = (self.terms.join(terms)?, self.idf.join(idf)?);
        if self.terms.has_gram(&joined_terms) {
            add_shingles(
                &mut self.counters,
                &joined_terms,
                &joined_idf,
                self.k,
                self.seed,
            );
        }
        self.terms.advance(&joined_terms, terms.len());
        self.idf.advance(&joined_idf, idf.len());
        Ok(())
    }

    /// The fingerprint of the whole stream (none when it was empty).
    pub fn finish(mut self) -> Option<u64> {
        if let (Some(terms), Some(idf)) = (self.terms.short(), self.idf.short()) {
            add_shingles(&mut self.counters, terms, idf, self.k, self.seed);
        }
        self.counters.finish(self.bits)
    }
}

/// The `simhash-shingle` algorithm: SimHash of word shingles, each weighted by the IDF of its terms.
#[derive(Debug, Clone, Default)]
pub struct SimhashShingle {
    /// Its parameters.
    pub config: SimhashShingleConfig,
}

impl SimhashShingle {
    /// The algorithm with these parameters.
    pub fn new(config: SimhashShingleConfig) -> Self {
        Self { config }
    }
}

impl WeightedTerms for SimhashShingle {
    type Output = SimhashFingerprint;

    fn of_weighted_terms(&self, terms: &[u64], idf: &[u32]) -> SimhashFingerprint {
        let c = &self.config;
        shingle_simhash(terms, idf, c.k, c.bits, c.seed)
    }
}

impl SimhashShingle {
    /// The fingerprint of a weighted term stream arriving in pieces.
    pub fn counters(&self) -> ShingleCounters {
        let c = &self.config;
        ShingleCounters::new(c.k, c.bits, c.seed)
    }
}

impl Algorithm for SimhashShingle {
    type Fingerprint = SimhashFingerprint;
    const ID: AlgorithmId = AlgorithmId::SimhashShingle;

    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> SimhashFingerprint {
        self.of_analysis(doc, weights)
    }

    fn score(&self, a: &SimhashFingerprint, b: &SimhashFingerprint) -> Score {
        hamming_score(*a, *b, self.config.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::super::simhash::weighted_fingerprint;
    use super::*;

    #[test]
    fn each_shingle_weighs_the_sum_of_its_terms() {
        let terms: Vec<u64> = (0..40u64).map(crate::hash::mix64).collect();
        let idf: Vec<u32> = (0..40u32).map(|i| i * 37 % 500).collect();
        for k in [1, 2, 3, 40, 50] {
            let kk = k.min(terms.len());
            let (hashes, weights): (Vec<u64>, Vec<u32>) = (0..=terms.len() - kk)
                .map(|i| {
                    let window = &terms[i..i + kk];
                    let hash = shingle_hashes(window, kk, 9).next().unwrap();
                    (hash, idf[i..i + kk].iter().sum::<u32>())
                })
                .unzip();
            assert_eq!(
                shingle_simhash(&terms, &idf, k, 64, 9),
                weighted_fingerprint(&hashes, &weights, 64),
                "k {k}"
            );
        }
        assert_eq!(shingle_simhash(&[], &[], 2, 64, 9), None);
    }
}
