//! `simhash`: Charikar's random-projection fingerprint with Manku et al.'s
//! feature weights: features are terms, weighted by TF-IDF.
//!
//! For each feature with hash h and weight w, add +w to counter i where bit i
//! of h is 1 and −w where it is 0; bit i of the fingerprint is 1 when counter
//! i ends ≥ 0 (the lab report's worked example is a test below); weights are
//! rounded to 1/256 so the counters are exact integers ([`WEIGHT_UNITS`]).
//! The Hamming distance of two fingerprints tracks the angle between the two
//! weighted feature vectors. [`weighted_fingerprint`] is the shared core of
//! `simhash-shingle` and `simhash-lexicons`.

use serde::{Deserialize, Serialize};

use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::hash::{rehash_key, rehash_keyed};

/// Parameters of `simhash` (`[algorithms.simhash]` in the config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashConfig {
    /// Fingerprint size in bits, 1–64. Default: 64 (Manku et al.); Fan &
    /// Huang's experiments use 32.
    pub bits: u32,
    /// Seed of the feature hash. Default: 0x5eed_0005.
    pub seed: u64,
}

impl Default for SimhashConfig {
    fn default() -> Self {
        Self {
            bits: 64,
            seed: 0x5eed_0005,
        }
    }
}

/// The fingerprint (low `bits` bits); `None` for a document without features.
pub type SimhashFingerprint = Option<u64>;

/// Weight units per 1.0 of weight: counters add integers, each term's
/// weight rounded to the nearest 1/256 (a positive weight to at least one
/// unit) and a feature's weight capped at 256. Integer sums do not depend
/// on the order they are added in, so every vectorized path gives the same
/// fingerprint as the plain one, and the rounding moves a bit only where
/// its counter is within the rounding error of zero (a tie in all but
/// name).
pub const WEIGHT_UNITS: f64 = 256.0;

/// A weight in [`WEIGHT_UNITS`]: 0 for a weight that is not positive.
#[inline]
pub fn quantize(weight: f64) -> u32 {
    if weight > 0.0 {
        // Rounds half up (`round` is a library call); `as` saturates.
        ((weight * WEIGHT_UNITS + 0.5) as u32).clamp(1, MAX_FEATURE_WEIGHT)
    } else {
        0
    }
}

/// The largest weight of one feature: 256 in [`WEIGHT_UNITS`].
pub const MAX_FEATURE_WEIGHT: u32 = u16::MAX as u32;

/// Features added to 32-bit counters before they are moved into 64-bit
/// totals: 256 weights of at most 2^16 units cannot overflow. (At most
/// this many features at a time.)
const CHUNK: usize = 256;

/// The SimHash of weighted features, `hashes[i]` weighing `weights[i]`
/// (in [`WEIGHT_UNITS`], at most [`MAX_FEATURE_WEIGHT`] counted): bit i is
/// 1 when the features whose hash has bit i set carry at least half the
/// total weight (Σ ±w ≥ 0, as Charikar defines it). `None` when no feature
/// has a positive weight (all-zero counters would make every such document
/// the same all-ones fingerprint).
pub fn weighted_fingerprint(hashes: &[u64], weights: &[u32], bits: u32) -> Option<u64> {
    let mut counters = Counters::default();
    counters.add(hashes, weights);
    counters.finish(bits)
}

/// The counters of a SimHash whose features arrive in pieces: integer sums,
/// so adding features piece by piece gives the fingerprint of adding them
/// all at once ([`weighted_fingerprint`]).
#[derive(Debug, Clone)]
pub struct Counters {
    /// Per bit, the weight of the features whose hash has it set.
    totals: [u64; 64],
    total_weight: u64,
}

impl Default for Counters {
    fn default() -> Self {
        Self {
            totals: [0; 64],
            total_weight: 0,
        }
    }
}

impl Counters {
    /// Add features: `hashes[i]` weighing `weights[i]`.
    pub fn add(&mut self, hashes: &[u64], weights: &[u32]) {
        debug_assert_eq!(hashes.len(), weights.len());
        for (hashes, weights) in hashes.chunks(CHUNK).zip(weights.chunks(CHUNK)) {
            self.total_weight += weights
                .iter()
                .map(|&w| u64::from(w.min(MAX_FEATURE_WEIGHT)))
                .sum::<u64>();
            let counters = accumulate(hashes, weights);
            for (total, counter) in self.totals.iter_mut().zip(counters) {
                *total += u64::from(counter);
            }
        }
    }

    /// The fingerprint's low `bits` bits (see [`weighted_fingerprint`]).
    pub fn finish(&self, bits: u32) -> Option<u64> {
        let bits = bits.clamp(1, 64) as usize;
        if self.total_weight == 0 {
            return None;
        }
        let fingerprint = self.totals[..bits]
            .iter()
            .enumerate()
            .filter(|(_, &set)| 2 * set >= self.total_weight)
            .fold(0u64, |f, (i, _)| f | 1 << i);
        Some(fingerprint)
    }
}

/// For each bit i, the sum of the weights of the features whose hash has
/// bit i set. Processors with AVX2 run the same code compiled for them,
/// chosen at run time (eight counters per instruction).
fn accumulate(hashes: &[u64], weights: &[u32]) -> [u32; 64] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor supports the function's target features.
            #[allow(unsafe_code)]
            return unsafe { accumulate_avx2(hashes, weights) };
        }
    }
    accumulate_portable(hashes, weights)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn accumulate_avx2(hashes: &[u64], weights: &[u32]) -> [u32; 64] {
    accumulate_portable(hashes, weights)
}

/// The counters themselves; inlined into each target-feature copy above.
/// Bit i of a hash is shifted to the sign bit and spread into a mask (no
/// branch, no multiply), which selects the weight.
#[inline(always)]
fn accumulate_portable(hashes: &[u64], weights: &[u32]) -> [u32; 64] {
    let (mut low, mut high) = ([0u32; 32], [0u32; 32]);
    for (&hash, &weight) in hashes.iter().zip(weights) {
        let weight = weight.min(MAX_FEATURE_WEIGHT);
        let (lo, hi) = (hash as u32, (hash >> 32) as u32);
        for (i, counter) in low.iter_mut().enumerate() {
            let mask = ((lo << (31 - i)) as i32 >> 31) as u32;
            *counter = counter.wrapping_add(mask & weight);
        }
        for (i, counter) in high.iter_mut().enumerate() {
            let mask = ((hi << (31 - i)) as i32 >> 31) as u32;
            *counter = counter.wrapping_add(mask & weight);
        }
    }
    let mut counters = [0u32; 64];
    counters[..32].copy_from_slice(&low);
    counters[32..].copy_from_slice(&high);
    counters
}

/// The IDF of each term of a stream in [`WEIGHT_UNITS`] (the
/// per-occurrence weight of the SimHash family; a term's total weight is
/// then tf × idf).
pub fn term_weights(terms: &[u64], weights: &dyn TermWeights) -> Vec<u32> {
    terms.iter().map(|&t| quantize(weights.idf(t))).collect()
}

/// The SimHash family (`simhash`, `simhash-shingle`, `simhash-lexicons`):
/// a fingerprint of a term stream with each term's weight. Each member's
/// [`Algorithm::fingerprint`] is [`WeightedTerms::of_analysis`], written
/// here once.
pub trait WeightedTerms {
    /// The fingerprint the member makes.
    type Output;

    /// The fingerprint of `terms`, each occurrence weighing its `idf`
    /// ([`term_weights`]).
    fn of_weighted_terms(&self, terms: &[u64], idf: &[u32]) -> Self::Output;

    /// The fingerprint of an analysed document: each occurrence of a term
    /// adds its IDF, so a term's total weight is tf × idf.
    fn of_analysis(&self, doc: &Analysis, weights: &dyn TermWeights) -> Self::Output {
        self.of_weighted_terms(&doc.terms, &term_weights(&doc.terms, weights))
    }
}

/// Hamming-distance score of two optional fingerprints.
pub fn hamming_score(a: Option<u64>, b: Option<u64>, bits: u32) -> Score {
    match (a, b) {
        (Some(a), Some(b)) => Score::Hamming {
            distance: (a ^ b).count_ones(),
            bits: bits.clamp(1, 64),
        },
        _ => Score::Incomparable,
    }
}

/// The `simhash` algorithm: Charikar's SimHash of the IDF-weighted terms, compared by Hamming distance.
#[derive(Debug, Clone, Default)]
pub struct Simhash {
    /// Its parameters.
    pub config: SimhashConfig,
}

impl Simhash {
    /// The algorithm with these parameters.
    pub fn new(config: SimhashConfig) -> Self {
        Self { config }
    }
}

impl WeightedTerms for Simhash {
    type Output = SimhashFingerprint;

    /// The fingerprint of a term stream with its per-term weights
    /// ([`term_weights`]).
    fn of_weighted_terms(&self, terms: &[u64], idf: &[u32]) -> SimhashFingerprint {
        let mut counters = Counters::default();
        self.add_weighted_terms(&mut counters, terms, idf);
        counters.finish(self.config.bits)
    }
}

impl Simhash {
    /// Add a piece of a term stream with its per-term weights.
    pub fn add_weighted_terms(&self, counters: &mut Counters, terms: &[u64], idf: &[u32]) {
        let key = rehash_key(self.config.seed);
        let hashes: Vec<u64> = terms.iter().map(|&t| rehash_keyed(t, key)).collect();
        counters.add(&hashes, idf);
    }
}

impl Algorithm for Simhash {
    type Fingerprint = SimhashFingerprint;
    const ID: AlgorithmId = AlgorithmId::Simhash;

    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> SimhashFingerprint {
        self.of_analysis(doc, weights)
    }

    fn score(&self, a: &SimhashFingerprint, b: &SimhashFingerprint) -> Score {
        hamming_score(*a, *b, self.config.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint_of(features: impl IntoIterator<Item = (u64, u32)>, bits: u32) -> Option<u64> {
        let (hashes, weights): (Vec<u64>, Vec<u32>) = features.into_iter().unzip();
        weighted_fingerprint(&hashes, &weights, bits)
    }

    #[test]
    fn lab_report_worked_example() {
        // 'bit' (w 0.4, hash 1111) and 'coin' (w 1.2, hash 1001), b = 4 → 1001.
        let fp = fingerprint_of([(0b1111, quantize(0.4)), (0b1001, quantize(1.2))], 4);
        assert_eq!(fp, Some(0b1001));
    }

    fn random_features(seed: u64, n: usize) -> Vec<(u64, f64)> {
        let mut rng = crate::hash::SplitMix64::new(seed);
        (0..n)
            .map(|_| (rng.next_u64(), rng.next_f64() * 5.0))
            .collect()
    }

    fn quantized(features: &[(u64, f64)]) -> Vec<(u64, u32)> {
        features.iter().map(|&(h, w)| (h, quantize(w))).collect()
    }

    /// Charikar's definition with the weights as [`quantize`] rounds them:
    /// counter i is Σ ±w, and bit i is 1 when it ends ≥ 0.
    fn sign_of_counters(features: &[(u64, f64)]) -> (u64, [f64; 64]) {
        let mut counters = [0.0f64; 64];
        let mut rounded = [0i64; 64];
        for &(h, w) in features {
            let q = i64::from(quantize(w));
            for i in 0..64 {
                let sign = if h >> i & 1 == 1 { 1 } else { -1 };
                counters[i] += sign as f64 * w;
                rounded[i] += sign * q;
            }
        }
        let fingerprint = (0..64)
            .filter(|&i| rounded[i] >= 0)
            .fold(0u64, |f, i| f | 1 << i);
        (fingerprint, counters)
    }

    #[test]
    fn fingerprint_is_the_sign_of_sixty_four_counters() {
        for seed in 0..50 {
            let features = random_features(seed, 1 + seed as usize * 37);
            let (direct, _) = sign_of_counters(&features);
            assert_eq!(
                fingerprint_of(quantized(&features), 64),
                Some(direct),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn rounding_the_weights_moves_only_bits_whose_counter_is_within_the_rounding() {
        for seed in 0..200 {
            let features = random_features(seed, 1 + seed as usize * 5);
            let fingerprint = fingerprint_of(quantized(&features), 64).unwrap();
            let (_, exact) = sign_of_counters(&features);
            // Each weight moves by at most half a unit.
            let slack = features.len() as f64 * 0.5 / WEIGHT_UNITS;
            for (i, &counter) in exact.iter().enumerate() {
                if counter.abs() > slack {
                    assert_eq!(
                        fingerprint >> i & 1 == 1,
                        counter >= 0.0,
                        "seed {seed} bit {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_chunk_of_heavy_features_cannot_overflow_the_counters() {
        // More than a chunk of features at the weight cap, every bit set.
        let features = vec![(u64::MAX, u32::MAX); 3 * CHUNK + 7];
        assert_eq!(fingerprint_of(features, 64), Some(u64::MAX));
        let mut features = vec![(u64::MAX, u32::MAX); 600];
        features.extend(vec![(0, u32::MAX); 601]);
        assert_eq!(fingerprint_of(features, 64), Some(0));
    }

    #[test]
    fn vectorized_paths_match_the_portable_one_bit_for_bit() {
        // Stored fingerprints must not depend on the processor that made them.
        for seed in 0..200 {
            let features = random_features(seed, 1 + seed as usize * 7);
            let hashes: Vec<u64> = features.iter().map(|f| f.0).collect();
            let weights: Vec<u32> = features.iter().map(|f| quantize(f.1)).collect();
            for chunk in (0..hashes.len()).step_by(CHUNK) {
                let end = (chunk + CHUNK).min(hashes.len());
                assert_eq!(
                    accumulate(&hashes[chunk..end], &weights[chunk..end]),
                    accumulate_portable(&hashes[chunk..end], &weights[chunk..end]),
                    "seed {seed}"
                );
            }
        }
    }

    #[test]
    fn no_features_no_fingerprint() {
        assert_eq!(fingerprint_of([], 64), None);
        assert_eq!(
            fingerprint_of([(7, quantize(0.0)), (9, quantize(-1.0))], 64),
            None
        );
        // A tiny positive weight still counts.
        assert_eq!(fingerprint_of([(7, quantize(1e-9))], 64), Some(7));
        assert_eq!(hamming_score(None, Some(1), 64), Score::Incomparable);
    }

    #[test]
    fn fingerprint_keeps_only_the_requested_bits() {
        let fp = fingerprint_of([(u64::MAX, 256)], 32).unwrap();
        assert_eq!(fp, u64::from(u32::MAX));
    }
}
