//! `supershingle`: Broder's super-shingles over the min-hash sketch.
//!
//! The sketch is cut into `groups` runs of `per_group` consecutive min-hash
//! values and each run is hashed into one super-shingle. Two documents that
//! share a super-shingle agree on a whole run, which happens with probability
//! J^per_group, so matching super-shingles single out very similar documents
//! at a cost of a few hash-table lookups. Defaults follow Fetterly et al.
//! (84 min-hashes, 6 super-shingles of 14, duplicate when ≥ 2 match).

use serde::{Deserialize, Serialize};

use super::minhash::{Minhash, MinhashConfig};
use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::hash::combine;

/// Parameters of `supershingle` (`[algorithms.supershingle]` in the config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SupershingleConfig {
    /// Number of super-shingles. Default: 6.
    pub groups: usize,
    /// Min-hash values per super-shingle (taken from the front of the
    /// `minhash` sketch; groups × per_group must not exceed `minhash.num_perm`,
    /// otherwise per_group shrinks to fit). Default: 14.
    pub per_group: usize,
    /// Seed of the super-shingle hash. Default: 0x5eed_0004.
    pub seed: u64,
}

impl Default for SupershingleConfig {
    fn default() -> Self {
        Self {
            groups: 6,
            per_group: 14,
            seed: 0x5eed_0004,
        }
    }
}

/// One hash per group; empty for a document without shingles.
pub type SupershingleFingerprint = Vec<u64>;

/// The `supershingle` algorithm (super-shingles): hashes of groups of the MinHash sketch, compared by matches.
#[derive(Debug, Clone, Default)]
pub struct Supershingle {
    /// Its parameters.
    pub config: SupershingleConfig,
    /// The MinHash whose sketch the groups are cut from.
    pub minhash: Minhash,
}

impl Supershingle {
    /// The algorithm with these parameters.
    pub fn new(config: SupershingleConfig, minhash: MinhashConfig) -> Self {
        Self {
            config,
            minhash: Minhash::new(minhash),
        }
    }

    /// Super-shingles of an existing min-hash sketch.
    pub fn from_sketch(&self, sketch: &[u32]) -> SupershingleFingerprint {
        let groups = self.config.groups.max(1);
        let per_group = self.config.per_group.min(sketch.len() / groups).max(1);
        if sketch.len() < groups {
            return Vec::new();
        }
        sketch
            .chunks_exact(per_group)
            .take(groups)
            .map(|run| combine(run, self.config.seed))
            .collect()
    }
}

impl Algorithm for Supershingle {
    type Fingerprint = SupershingleFingerprint;
    const ID: AlgorithmId = AlgorithmId::Supershingle;

    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> SupershingleFingerprint {
        self.from_sketch(&self.minhash.fingerprint(doc, weights))
    }

    fn score(&self, a: &SupershingleFingerprint, b: &SupershingleFingerprint) -> Score {
        if a.is_empty() || b.is_empty() || a.len() != b.len() {
            return Score::Incomparable;
        }
        let matched = a.iter().zip(b).filter(|(x, y)| x == y).count() as u32;
        Score::Matches {
            matched,
            of: a.len() as u32,
        }
    }
}
