//! `shingle`: Broder's w-shingling with optional modulo sampling.
//!
//! A document is the set of hashes of its word w-shingles (contiguous runs of
//! w words, stop words kept). With `modulus` m > 1 only shingles whose hash is
//! 0 mod m are kept (the shingling blog post's sampling): the set shrinks m
//! times while resemblance and containment stay unbiased estimates. Both
//! resemblance (Jaccard) and containment are reported; containment finds a
//! part inside a whole even when resemblance is low.

use serde::{Deserialize, Serialize};

use super::{into_set, overlap, Algorithm, AlgorithmId, Score};
use crate::analysis::Analysis;
use crate::stats::TermWeights;
use crate::text::tokenize::shingle_hashes;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShingleConfig {
    /// Words per shingle. Default: 4 (the blog post's 4-shingling).
    pub w: usize,
    /// Keep shingles whose hash is 0 mod `modulus`; 1 keeps all. Default: 1.
    pub modulus: u64,
    /// Seed of the shingle hash. Default: 0x5eed_0002.
    pub seed: u64,
}

impl Default for ShingleConfig {
    fn default() -> Self {
        Self {
            w: 4,
            modulus: 1,
            seed: 0x5eed_0002,
        }
    }
}

/// Sorted, distinct shingle hashes (after sampling).
pub type ShingleFingerprint = Vec<u64>;

#[derive(Debug, Clone, Default)]
pub struct Shingle {
    pub config: ShingleConfig,
}

impl Shingle {
    pub fn new(config: ShingleConfig) -> Self {
        Self { config }
    }

    /// Every shingle hash of a document, unsampled and in order.
    pub fn all_shingles<'a>(&self, doc: &'a Analysis) -> impl Iterator<Item = u64> + 'a {
        shingle_hashes(&doc.words, self.config.w, self.config.seed)
    }
}

impl Shingle {
    /// The fingerprint from a document's (unsampled) shingle hashes.
    pub fn from_shingles(&self, shingles: impl Iterator<Item = u64>) -> ShingleFingerprint {
        let m = self.config.modulus.max(1);
        into_set(shingles.filter(|h| h % m == 0).collect())
    }
}

impl Algorithm for Shingle {
    type Fingerprint = ShingleFingerprint;
    const ID: AlgorithmId = AlgorithmId::Shingle;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> ShingleFingerprint {
        self.from_shingles(self.all_shingles(doc))
    }

    fn score(&self, a: &ShingleFingerprint, b: &ShingleFingerprint) -> Score {
        overlap(a, b)
    }
}
