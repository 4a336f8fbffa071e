//! `si`: Roth's Similarity Index, one number per document.
//!
//! The document becomes a stream (characters, words or Soundex codes, with
//! one of Roth's processing variations A–D), the stream is cut into k-grams,
//! each k-gram is hashed to a signed 32-bit value (like the Java
//! `String.hashCode` Roth used), the hashes that are 0 mod `modulus` form the
//! sketch, and the index is the sum of the sketch. Two documents are similar
//! when their indices are within ±30 % of each other: the score is
//! `1 − |a − b| / max(|a|, |b|)` and Roth's rule is a threshold of 0.7.
//! Defaults are Roth's best combination (method 43B): Soundex stream, stop
//! words removed, duplicates kept, k = 40, 0 mod 25.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::{Algorithm, AlgorithmId, Score};
use crate::analysis::Analysis;
use crate::hash::mix64;
use crate::stats::TermWeights;
use crate::text::tokenize::shingle_hashes;
use crate::text::{Tokenizer, TokenizerConfig, Variation};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// Characters, whitespace removed.
    Char,
    /// Words.
    Word,
    /// Soundex codes of the words.
    Soundex,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SiConfig {
    /// Input stream. Default: soundex.
    pub stream: Stream,
    /// Processing variation (see [`Variation`]). Default: B.
    pub variation: Variation,
    /// Stream units per k-gram. Default: 40.
    pub k: usize,
    /// Keep k-gram hashes that are 0 mod `modulus`. Default: 25.
    pub modulus: u32,
    /// Seed of the k-gram hash. Default: 0x5eed_000a.
    pub seed: u64,
}

impl Default for SiConfig {
    fn default() -> Self {
        Self {
            stream: Stream::Soundex,
            variation: Variation::B,
            k: 40,
            modulus: 25,
            seed: 0x5eed_000a,
        }
    }
}

/// The index; `None` when the sketch is empty (document shorter than k, or no
/// k-gram hash fell in the sample).
pub type SiFingerprint = Option<i64>;

pub struct Si {
    pub config: SiConfig,
    /// Only the character stream needs the tokenizer (stop words in text).
    tokenizer: Tokenizer,
}

impl std::fmt::Debug for Si {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Si").field("config", &self.config).finish()
    }
}

impl Default for Si {
    fn default() -> Self {
        Self::new(SiConfig::default(), &TokenizerConfig::default())
    }
}

impl Si {
    pub fn new(config: SiConfig, tokenizer: &TokenizerConfig) -> Self {
        Self {
            config,
            tokenizer: Tokenizer::new(tokenizer),
        }
    }

    /// Sum of the sampled k-gram hashes.
    fn index(&self, grams: impl Iterator<Item = i32>) -> SiFingerprint {
        let modulus = self.config.modulus.max(1) as i32;
        let mut sum = 0i64;
        let mut any = false;
        for h in grams.filter(|h| h % modulus == 0) {
            sum += i64::from(h);
            any = true;
        }
        any.then_some(sum)
    }

    /// The unit stream for word and Soundex streams, per variation.
    fn tokens(&self, doc: &Analysis) -> Vec<u64> {
        let v = self.config.variation;
        let source = match self.config.stream {
            Stream::Soundex => &doc.soundex,
            _ => &doc.words,
        };
        let mut seen = HashSet::new();
        source
            .iter()
            .zip(&doc.stop)
            .filter(|(&t, &stop)| t != 0 && !(v.removes_stopwords() && stop))
            .map(|(&t, _)| t)
            .filter(|&t| !v.removes_second_kind() || seen.insert(t))
            .collect()
    }
}

impl Algorithm for Si {
    type Fingerprint = SiFingerprint;
    const ID: AlgorithmId = AlgorithmId::Si;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> SiFingerprint {
        let k = self.config.k.max(1);
        let seed = self.config.seed;
        let units: Vec<u64> = match self.config.stream {
            Stream::Char => self
                .tokenizer
                .char_stream(&doc.text, self.config.variation)
                .chars()
                .map(|c| mix64(u64::from(c)))
                .collect(),
            Stream::Word | Stream::Soundex => self.tokens(doc),
        };
        if units.len() < k {
            return None;
        }
        // Roth hashed each k-gram to a Java int; the low 32 bits as i32 keep
        // that range (and the sign cancellation it brings to the sum).
        self.index(shingle_hashes(&units, k, seed).map(|h| h as u32 as i32))
    }

    fn score(&self, a: &SiFingerprint, b: &SiFingerprint) -> Score {
        match (a, b) {
            (Some(a), Some(b)) => {
                let scale = a.unsigned_abs().max(b.unsigned_abs());
                let value = if scale == 0 {
                    1.0
                } else {
                    (1.0 - a.abs_diff(*b) as f64 / scale as f64).max(0.0)
                };
                Score::Similarity { value }
            }
            _ => Score::Incomparable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roths_thirty_percent_rule() {
        let si = Si::default();
        assert!(si.score(&Some(1000), &Some(1299)).passes(0.7));
        assert!(!si.score(&Some(1000), &Some(1500)).passes(0.7));
        // Signs differ: far apart however small the numbers.
        assert!(!si.score(&Some(-10), &Some(10)).passes(0.7));
        assert_eq!(si.score(&None, &Some(1)), Score::Incomparable);
    }

    #[test]
    fn duplicate_removal_variations_drop_repeated_tokens() {
        let analyzer = crate::analysis::Analyzer::new(&TokenizerConfig::default());
        let doc = analyzer.analyze("the whale the whale the sea");
        let mk = |variation| {
            Si::new(
                SiConfig {
                    stream: Stream::Word,
                    variation,
                    ..SiConfig::default()
                },
                &TokenizerConfig::default(),
            )
        };
        assert_eq!(mk(Variation::A).tokens(&doc).len(), 6);
        assert_eq!(mk(Variation::B).tokens(&doc).len(), 3);
        assert_eq!(mk(Variation::C).tokens(&doc).len(), 3);
        assert_eq!(mk(Variation::D).tokens(&doc).len(), 2);
    }
}
