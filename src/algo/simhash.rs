//! `simhash`: Charikar's random-projection fingerprint with Manku et al.'s
//! feature weights: features are terms, weighted by TF-IDF.
//!
//! For each feature with hash h and weight w, add +w to counter i where bit i
//! of h is 1 and −w where it is 0; bit i of the fingerprint is 1 when counter
//! i ends ≥ 0 (the lab report's worked example is a test below). The Hamming
//! distance of two fingerprints tracks the angle between the two weighted
//! feature vectors. [`weighted_fingerprint`] is the shared core of
//! `simhash-shingle` and `simhash-lexicons`.

use serde::{Deserialize, Serialize};

use super::{Algorithm, AlgorithmId, Score};
use crate::analysis::Analysis;
use crate::hash::rehash;
use crate::stats::TermWeights;

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

/// The SimHash of weighted features `(hash, weight)`: `None` when no feature
/// has a positive weight (all-zero counters would make every such document
/// the same all-ones fingerprint).
///
/// Each feature adds ±w to 64 counters: an add per counter with the sign
/// bit of w flipped where the hash bit is 0, which vectorizes. Processors
/// with AVX2 or AVX-512 run the same code compiled for them, chosen at run
/// time; every path adds the same values in the same order, so the
/// fingerprint is bit-identical on every machine.
pub fn weighted_fingerprint(
    features: impl IntoIterator<Item = (u64, f64)>,
    bits: u32,
) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor supports the function's target features.
            return unsafe { weighted_fingerprint_avx512(features, bits) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { weighted_fingerprint_avx2(features, bits) };
        }
    }
    weighted_fingerprint_portable(features, bits)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn weighted_fingerprint_avx512(
    features: impl IntoIterator<Item = (u64, f64)>,
    bits: u32,
) -> Option<u64> {
    weighted_fingerprint_portable(features, bits)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn weighted_fingerprint_avx2(
    features: impl IntoIterator<Item = (u64, f64)>,
    bits: u32,
) -> Option<u64> {
    weighted_fingerprint_portable(features, bits)
}

/// The counters themselves; inlined into each target-feature copy above.
#[inline(always)]
fn weighted_fingerprint_portable(
    features: impl IntoIterator<Item = (u64, f64)>,
    bits: u32,
) -> Option<u64> {
    let bits = bits.clamp(1, 64) as usize;
    let mut counters = [0.0f64; 64];
    let mut any = false;
    for (hash, weight) in features {
        if weight <= 0.0 {
            continue;
        }
        any = true;
        let weight = weight.to_bits();
        for (i, counter) in counters.iter_mut().enumerate() {
            *counter += f64::from_bits(weight ^ ((!hash >> i & 1) << 63));
        }
    }
    if !any {
        return None;
    }
    let fingerprint = counters[..bits]
        .iter()
        .enumerate()
        .filter(|(_, &c)| c >= 0.0)
        .fold(0u64, |f, (i, _)| f | 1 << i);
    Some(fingerprint)
}

/// The IDF of each term of a stream (the per-occurrence weight of the
/// SimHash family; a term's total weight is then tf × idf).
pub fn term_weights(terms: &[u64], weights: &dyn TermWeights) -> Vec<f64> {
    terms.iter().map(|&t| weights.idf(t)).collect()
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

#[derive(Debug, Clone, Default)]
pub struct Simhash {
    pub config: SimhashConfig,
}

impl Simhash {
    pub fn new(config: SimhashConfig) -> Self {
        Self { config }
    }
}

impl Simhash {
    /// The fingerprint of a term stream with its per-term weights.
    pub fn from_weighted_terms(&self, terms: &[u64], idf: &[f64]) -> SimhashFingerprint {
        let seed = self.config.seed;
        weighted_fingerprint(
            terms.iter().zip(idf).map(|(&t, &w)| (rehash(t, seed), w)),
            self.config.bits,
        )
    }
}

impl Algorithm for Simhash {
    type Fingerprint = SimhashFingerprint;
    const ID: AlgorithmId = AlgorithmId::Simhash;

    /// Each occurrence of a term adds its IDF, so a term's total weight is
    /// tf × idf.
    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> SimhashFingerprint {
        self.from_weighted_terms(&doc.terms, &term_weights(&doc.terms, weights))
    }

    fn score(&self, a: &SimhashFingerprint, b: &SimhashFingerprint) -> Score {
        hamming_score(*a, *b, self.config.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lab_report_worked_example() {
        // 'bit' (w 0.4, hash 1111) and 'coin' (w 1.2, hash 1001), b = 4 → 1001.
        let fp = weighted_fingerprint([(0b1111, 0.4), (0b1001, 1.2)], 4);
        assert_eq!(fp, Some(0b1001));
    }

    fn random_features(seed: u64, n: usize) -> Vec<(u64, f64)> {
        let mut rng = crate::hash::SplitMix64::new(seed);
        (0..n)
            .map(|_| (rng.next_u64(), rng.next_f64() * 5.0))
            .collect()
    }

    #[test]
    fn fingerprint_is_the_sign_of_sixty_four_counters() {
        let features = random_features(5, 300);
        let mut counters = [0.0f64; 64];
        for &(h, w) in &features {
            for (i, c) in counters.iter_mut().enumerate() {
                *c += if h >> i & 1 == 1 { w } else { -w };
            }
        }
        let direct = counters
            .iter()
            .enumerate()
            .filter(|(_, &c)| c >= 0.0)
            .fold(0u64, |f, (i, _)| f | 1 << i);
        assert_eq!(weighted_fingerprint(features, 64), Some(direct));
    }

    #[test]
    fn vectorized_paths_match_the_portable_one_bit_for_bit() {
        // Stored fingerprints must not depend on the processor that made them.
        for seed in 0..200 {
            let features = random_features(seed, 1 + seed as usize * 7);
            assert_eq!(
                weighted_fingerprint(features.clone(), 64),
                weighted_fingerprint_portable(features, 64),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn no_features_no_fingerprint() {
        assert_eq!(weighted_fingerprint([], 64), None);
        assert_eq!(weighted_fingerprint([(7, 0.0), (9, 0.0)], 64), None);
        assert_eq!(hamming_score(None, Some(1), 64), Score::Incomparable);
    }

    #[test]
    fn fingerprint_keeps_only_the_requested_bits() {
        let fp = weighted_fingerprint([(u64::MAX, 1.0)], 32).unwrap();
        assert_eq!(fp, u64::from(u32::MAX));
    }
}
