//! `imatch-lexicons`: Kołcz, Chowdhury & Alspector's multiple random
//! lexicons for I-Match.
//!
//! Besides the main I-Match signature, `lexicons − 1` extra lexicons each
//! keep a seeded random fraction `keep` of the band terms, and each gives its
//! own signature. A small edit breaks the main signature, but the edited term
//! is absent from some extra lexicons, whose signatures then still match; a
//! pair is a duplicate when any signature matches (threshold 1 match).

use serde::{Deserialize, Serialize};

use super::imatch::{band_terms, signature, ImatchConfig};
use super::simhash_lexicons::RandomLexicons;
use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;

/// Parameters of `imatch-lexicons` (`[algorithms.imatch-lexicons]` in the config file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImatchLexiconsConfig {
    /// Number of signatures, the main lexicon included, 1–64. Default: 10.
    pub lexicons: usize,
    /// Fraction of band terms each extra lexicon keeps. Default: 0.7.
    pub keep: f64,
    /// The I-Match band and signature settings. Defaults as `imatch`.
    pub imatch: ImatchConfig,
}

impl Default for ImatchLexiconsConfig {
    fn default() -> Self {
        Self {
            lexicons: 10,
            keep: 0.7,
            imatch: ImatchConfig::default(),
        }
    }
}

/// One signature per lexicon (`None` where too few terms remain).
pub type ImatchLexiconsFingerprint = Vec<Option<u128>>;

/// The `imatch-lexicons` algorithm (I-Match with extra randomized lexicons): a signature per lexicon.
#[derive(Debug, Clone, Default)]
pub struct ImatchLexicons {
    /// Its parameters.
    pub config: ImatchLexiconsConfig,
}

impl ImatchLexicons {
    /// The algorithm with these parameters.
    pub fn new(config: ImatchLexiconsConfig) -> Self {
        Self { config }
    }
}

impl ImatchLexicons {
    /// One signature per lexicon of already band-filtered terms.
    pub fn from_band_terms(&self, terms: &[u64]) -> ImatchLexiconsFingerprint {
        let c = &self.config;
        let lexicons = c.lexicons.clamp(1, 64);
        let random = RandomLexicons::new(c.keep, c.imatch.seed, lexicons);
        let membership: Vec<u64> = terms.iter().map(|&t| random.membership(t)).collect();
        let mut kept = Vec::with_capacity(terms.len());
        (0..lexicons)
            .map(|lexicon| {
                if lexicon == 0 {
                    return signature(terms, &c.imatch);
                }
                RandomLexicons::filter_into(lexicon, terms, &membership, &mut kept);
                signature(&kept, &c.imatch)
            })
            .collect()
    }
}

impl Algorithm for ImatchLexicons {
    type Fingerprint = ImatchLexiconsFingerprint;
    const ID: AlgorithmId = AlgorithmId::ImatchLexicons;

    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> ImatchLexiconsFingerprint {
        self.from_band_terms(&band_terms(doc, weights, &self.config.imatch))
    }

    fn score(&self, a: &ImatchLexiconsFingerprint, b: &ImatchLexiconsFingerprint) -> Score {
        let mut compared = 0;
        let mut matched = 0;
        for (x, y) in a.iter().zip(b) {
            if let (Some(x), Some(y)) = (x, y) {
                compared += 1;
                matched += u32::from(x == y);
            }
        }
        if compared == 0 {
            Score::Incomparable
        } else {
            Score::Matches {
                matched,
                of: a.len().max(b.len()) as u32,
            }
        }
    }
}
