//! `shingle`: Broder's w-shingling with optional modulo sampling.
//!
//! A document is the set of hashes of its word w-shingles (contiguous runs of
//! w words, stop words kept). With `modulus` m > 1 only shingles whose hash is
//! 0 mod m are kept (the shingling blog post's sampling): the set shrinks m
//! times while resemblance and containment stay unbiased estimates. Both
//! resemblance (Jaccard) and containment are reported; containment finds a
//! part inside a whole even when resemblance is low. The set keeps the top
//! 32 bits of each hash: two 4 KB texts (~700 shingles each) then share a
//! value by chance with probability ~700²/2³³ ≈ 10⁻⁴, and the set, held in
//! memory for every document, takes half the room.

use serde::{Deserialize, Serialize};

use std::collections::TryReserveError;

use super::pieces::{DistinctCount, DistinctHashes};
use super::{overlap, Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::engine::text::tokenize::shingle_hashes;

/// Parameters of `shingle` (`[algorithms.shingle]` in the config file).
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

/// Sorted, distinct top halves of the shingle hashes (after sampling).
pub type ShingleFingerprint = Vec<u32>;

/// The `shingle` algorithm (Broder's shingling): the (sampled) set of word shingles, compared by resemblance and containment.
#[derive(Debug, Clone, Default)]
pub struct Shingle {
    /// Its parameters.
    pub config: ShingleConfig,
}

impl Shingle {
    /// The algorithm with these parameters.
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
        let mut set: Vec<u32> = shingles
            .filter(|h| h % m == 0)
            .map(|h| (h >> 32) as u32)
            .collect();
        super::sort_hashes(&mut set);
        set.dedup();
        // Kept for the document's lifetime: give back the slack.
        set.shrink_to_fit();
        set
    }
}

impl Shingle {
    /// The fingerprint of a document whose shingles arrive in pieces; with
    /// `count_all`, also the number of its distinct (64-bit, unsampled)
    /// shingles, [`crate::engine::measure::shingle_set`]'s size.
    pub fn set_builder(&self, count_all: bool) -> ShingleSetBuilder {
        ShingleSetBuilder {
            modulus: self.config.modulus.max(1),
            kept: DistinctHashes::new(),
            all: count_all.then(DistinctCount::new),
        }
    }
}

/// A document's shingle set gathered piece by piece (see
/// [`Shingle::set_builder`]).
#[derive(Debug, Clone)]
pub struct ShingleSetBuilder {
    modulus: u64,
    /// The kept values (what the fingerprint is).
    kept: DistinctHashes<u32>,
    /// Every distinct shingle, counted when asked for.
    all: Option<DistinctCount>,
}

impl ShingleSetBuilder {
    /// Add (unsampled) shingle hashes.
    pub fn push(&mut self, shingles: &[u64]) -> Result<(), TryReserveError> {
        let m = self.modulus;
        if let Some(all) = &mut self.all {
            all.extend(shingles)?;
        }
        match m {
            1 => self.kept.extend(shingles.iter().map(|&h| (h >> 32) as u32)),
            _ => self.kept.extend_filtered(
                shingles
                    .iter()
                    .filter(|&&h| h % m == 0)
                    .map(|&h| (h >> 32) as u32),
                shingles.len(),
            ),
        }
    }

    /// The fingerprint, and the distinct shingles when counted.
    pub fn finish(self) -> Result<(ShingleFingerprint, Option<usize>), TryReserveError> {
        Ok((self.kept.finish(), self.all.map(DistinctCount::finish)))
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
