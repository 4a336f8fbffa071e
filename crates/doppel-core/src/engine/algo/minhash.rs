//! `minhash`: k min-wise hashes of the word-shingle set; estimates Jaccard.
//!
//! Instead of k independent permutations (k hash evaluations per shingle),
//! this is one-permutation hashing (Li, Owen & Zhang 2012) with optimal
//! densification (Shrivastava 2017): each shingle is hashed once, the hash
//! picks one of k bins and competes for that bin's minimum; bins left empty
//! borrow the minimum of the first non-empty bin on a fixed pseudo-random
//! probe sequence that is the same for every document. The fraction of equal
//! bins is an unbiased estimate of the Jaccard resemblance with variance
//! close to J(1 − J)/k, at about one hash per shingle instead of k.

use serde::{Deserialize, Serialize};

use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::engine::text::tokenize::shingle_hashes;
use crate::hash::{rehash, rehash_key, rehash_keyed};

/// Parameters of `minhash` (`[algorithms.minhash]` in the config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MinhashConfig {
    /// Number of min-hash values (bins). Default: 128.
    pub num_perm: usize,
    /// Words per shingle; equal to `shingle.w` by default so the estimate
    /// and the exact `shingle` resemblance measure the same set. Default: 4.
    pub w: usize,
    /// Seed of the shingle hash (must equal `shingle.seed` for the estimate to
    /// target `shingle`'s set). Default: 0x5eed_0002.
    pub shingle_seed: u64,
    /// Seed of the permutation. Default: 0x5eed_0003.
    pub seed: u64,
}

impl Default for MinhashConfig {
    fn default() -> Self {
        Self {
            num_perm: 128,
            w: 4,
            shingle_seed: 0x5eed_0002,
            seed: 0x5eed_0003,
        }
    }
}

/// The densified sketch; empty for a document without shingles. Each bin's
/// minimum is taken over 64-bit hashes and kept as its low 32 bits: two
/// different minima agree on those with probability 2^−32, and the sketch
/// takes half the memory.
pub type MinhashFingerprint = Vec<u32>;

/// The `minhash` algorithm (MinHash): a sketch of minimum hashes estimating the Jaccard resemblance of word shingles.
#[derive(Debug, Clone, Default)]
pub struct Minhash {
    /// Its parameters.
    pub config: MinhashConfig,
}

impl Minhash {
    /// The algorithm with these parameters.
    pub fn new(config: MinhashConfig) -> Self {
        Self { config }
    }

    /// The sketch of a set of (already uniform) shingle hashes.
    pub fn sketch(&self, shingles: impl Iterator<Item = u64>) -> MinhashFingerprint {
        let mut bins = self.bins();
        bins.push(shingles);
        bins.finish()
    }

    /// The bins of a sketch whose shingles arrive in pieces (a minimum does
    /// not depend on the order, or the repeats, of what it is taken over).
    pub fn bins(&self) -> Bins {
        let k = self.config.num_perm.max(1);
        Bins {
            key: rehash_key(self.config.seed),
            seed: self.config.seed,
            bins: vec![u64::MAX; k],
            filled: vec![false; k],
            any: false,
        }
    }

    /// Estimated Jaccard resemblance of two sketches (of any width of
    /// value: a library's in-memory copy keeps 8 bits of each).
    pub fn estimate<T: PartialEq>(a: &[T], b: &[T]) -> Option<f64> {
        if a.is_empty() || b.is_empty() || a.len() != b.len() {
            return None;
        }
        let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
        Some(equal as f64 / a.len() as f64)
    }
}

/// A sketch being filled ([`Minhash::bins`]).
#[derive(Debug, Clone)]
pub struct Bins {
    key: u64,
    seed: u64,
    bins: Vec<u64>,
    filled: Vec<bool>,
    any: bool,
}

impl Bins {
    /// Let each shingle compete for its bin's minimum.
    pub fn push(&mut self, shingles: impl Iterator<Item = u64>) {
        let k = self.bins.len();
        let (bins, filled) = (&mut self.bins[..], &mut self.filled[..]);
        let mut any = false;
        // Whether a hash lowers its bin's minimum is a coin flip early on:
        // a min and two stores, no branch.
        for s in shingles {
            let v = rehash_keyed(s, self.key);
            let bin = ((u128::from(v) * k as u128) >> 64) as usize;
            bins[bin] = bins[bin].min(v);
            filled[bin] = true;
            any = true;
        }
        self.any |= any;
    }

    /// The densified sketch; empty when no shingle came.
    pub fn finish(mut self) -> MinhashFingerprint {
        if !self.any {
            return Vec::new();
        }
        densify(&mut self.bins, &self.filled, self.seed);
        self.bins.into_iter().map(|v| v as u32).collect()
    }
}

/// Fill each empty bin from the first originally filled bin along a probe
/// sequence that depends only on the bin index and the seed.
fn densify(bins: &mut [u64], filled: &[bool], seed: u64) {
    let k = bins.len();
    for i in 0..k {
        if filled[i] {
            continue;
        }
        let mut attempt = 1u64;
        loop {
            let probe = rehash((i as u64) << 32 | attempt, seed ^ 0xde45);
            let j = ((u128::from(probe) * k as u128) >> 64) as usize;
            if filled[j] {
                bins[i] = bins[j];
                break;
            }
            attempt += 1;
        }
    }
}

impl Algorithm for Minhash {
    type Fingerprint = MinhashFingerprint;
    const ID: AlgorithmId = AlgorithmId::Minhash;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> MinhashFingerprint {
        self.sketch(shingle_hashes(
            &doc.words,
            self.config.w,
            self.config.shingle_seed,
        ))
    }

    fn score(&self, a: &MinhashFingerprint, b: &MinhashFingerprint) -> Score {
        match Self::estimate(a, b) {
            Some(value) => Score::Similarity { value },
            None => Score::Incomparable,
        }
    }
}
