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
pub fn weighted_fingerprint(
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
        for (i, counter) in counters.iter_mut().enumerate().take(bits) {
            if hash >> i & 1 == 1 {
                *counter += weight;
            } else {
                *counter -= weight;
            }
        }
    }
    any.then(|| {
        counters[..bits]
            .iter()
            .enumerate()
            .filter(|(_, &c)| c >= 0.0)
            .fold(0u64, |fp, (i, _)| fp | 1 << i)
    })
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

impl Algorithm for Simhash {
    type Fingerprint = SimhashFingerprint;
    const ID: AlgorithmId = AlgorithmId::Simhash;

    /// Each occurrence of a term adds its IDF, so a term's total weight is
    /// tf × idf.
    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> SimhashFingerprint {
        let seed = self.config.seed;
        weighted_fingerprint(
            doc.terms.iter().map(|&t| (rehash(t, seed), weights.idf(t))),
            self.config.bits,
        )
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
