//! `exact`: a 128-bit hash of the normalized word stream.
//!
//! Two files are exact duplicates when their normalized text has the same
//! words in the same order, so a re-encoded, re-wrapped, CRLF or BOM copy of
//! a file still counts as exact.

use serde::{Deserialize, Serialize};

use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::hash::{hash_u64s_128, U64sHash128};

/// Parameters of `exact` (`[algorithms.exact]` in the config file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExactConfig {
    /// Seed of the signature hash. Default: 0x5eed.
    pub seed: u64,
}

impl Default for ExactConfig {
    fn default() -> Self {
        Self { seed: 0x5eed }
    }
}

/// The signature; `None` for a document without words.
pub type ExactFingerprint = Option<u128>;

/// The `exact` algorithm: a 128-bit hash of the normalized word stream.
#[derive(Debug, Clone, Default)]
pub struct Exact {
    /// Its parameters.
    pub config: ExactConfig,
}

impl Exact {
    /// The algorithm with these parameters.
    pub fn new(config: ExactConfig) -> Self {
        Self { config }
    }
}

impl Exact {
    /// The signature of a document given in pieces ([`ExactStream`]).
    pub fn stream(&self) -> ExactStream {
        ExactStream {
            hash: U64sHash128::new(self.config.seed),
            any: false,
        }
    }
}

/// `exact` of a document whose words arrive in pieces: equal to the
/// signature of all its words at once.
#[derive(Clone)]
pub struct ExactStream {
    hash: U64sHash128,
    any: bool,
}

impl ExactStream {
    /// The next piece's words.
    pub fn push(&mut self, words: &[u64]) {
        self.any |= !words.is_empty();
        self.hash.update(words);
    }

    /// The hash of every word pushed (none when there were no words).
    pub fn finish(&self) -> ExactFingerprint {
        self.any.then(|| self.hash.finish())
    }
}

impl Algorithm for Exact {
    type Fingerprint = ExactFingerprint;
    const ID: AlgorithmId = AlgorithmId::Exact;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> ExactFingerprint {
        (!doc.words.is_empty()).then(|| hash_u64s_128(&doc.words, self.config.seed))
    }

    fn score(&self, a: &ExactFingerprint, b: &ExactFingerprint) -> Score {
        match (a, b) {
            (Some(a), Some(b)) => Score::Matches {
                matched: u32::from(a == b),
                of: 1,
            },
            _ => Score::Incomparable,
        }
    }
}
