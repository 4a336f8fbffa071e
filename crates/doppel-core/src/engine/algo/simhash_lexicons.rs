//! `simhash-lexicons`: Fan & Huang §3.2, multiple random lexicons (after
//! Kołcz et al.) combined with shingle-based SimHash.
//!
//! Lexicon 0 is the full vocabulary; lexicons 1..L keep each term with
//! probability `keep`, decided by a seeded hash of the term, so every
//! document sees the same random lexicons. Each lexicon filters the term
//! stream, and the filtered stream gets its own shingle SimHash. A pair is a
//! duplicate if *any* lexicon's two fingerprints are within the threshold, so
//! the score is the smallest Hamming distance over the lexicons. An edit that
//! lands on a word missing from some lexicon leaves that lexicon's
//! fingerprint untouched, which is where the recall gain comes from.
//! With L = 1 this is exactly `simhash-shingle`.

use serde::{Deserialize, Serialize};

use std::collections::TryReserveError;

use super::simhash::WeightedTerms;
use super::simhash_shingle::{shingle_simhash, ShingleCounters, SimhashShingleConfig};
use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::hash::{rehash_key, rehash_keyed};

/// Parameters of `simhash-lexicons` (`[algorithms.simhash-lexicons]` in the config file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashLexiconsConfig {
    /// Number of lexicons including the full one, 1–64. Default: 5 (the
    /// paper's best).
    pub lexicons: usize,
    /// Fraction of terms each extra lexicon keeps. Default: 0.7.
    pub keep: f64,
    /// Terms per shingle. Default: 2.
    pub k: usize,
    /// Fingerprint size in bits, 1–64. Default: 64.
    pub bits: u32,
    /// Seed of the feature hash (membership hashes use seed + 1, + 2, …).
    /// Default: 0x5eed_0006, `simhash-shingle`'s, so that lexicon 0 is
    /// exactly its fingerprint and is computed once.
    pub seed: u64,
}

impl Default for SimhashLexiconsConfig {
    fn default() -> Self {
        Self {
            lexicons: 5,
            keep: 0.7,
            k: 2,
            bits: 64,
            seed: 0x5eed_0006,
        }
    }
}

/// One fingerprint per lexicon (`None` where the filtered stream is empty).
pub type SimhashLexiconsFingerprint = Vec<Option<u64>>;

/// Seeded random lexicons: each lexicon j ≥ 1 holds a term with
/// probability `keep`, decided by 16 bits of a seeded hash of the term, so
/// every document sees the same lexicons. One hash decides four lexicons:
/// lexicon j reads quarter (j − 1) mod 4 of `rehash(term, seed + 1 +
/// (j − 1) / 4)` and holds the term when it is below `keep` × 2^16.
/// Lexicon 0 (the full vocabulary) is not asked.
#[derive(Debug, Clone)]
pub struct RandomLexicons {
    /// Quarters below this are in.
    cut: u32,
    /// Extra lexicons (the count minus lexicon 0).
    extra: usize,
    /// `rehash`'s key for each hash's seed, derived once rather than per
    /// term ([`rehash_key`]).
    keys: Vec<u64>,
}

impl RandomLexicons {
    /// Lexicons `0..count` (0 is never asked), at most 64.
    pub fn new(keep: f64, seed: u64, count: usize) -> Self {
        let extra = count.clamp(1, 64) - 1;
        Self {
            cut: (keep.clamp(0.0, 1.0) * 65536.0) as u32,
            extra,
            keys: (0..extra.div_ceil(4))
                .map(|c| rehash_key(seed.wrapping_add(1 + c as u64)))
                .collect(),
        }
    }

    /// Which extra lexicons hold `term`: bit j − 1 for lexicon j.
    #[inline]
    pub fn membership(&self, term: u64) -> u64 {
        let mut mask = 0;
        for (c, &key) in self.keys.iter().enumerate() {
            let h = rehash_keyed(term, key);
            for q in 0..4 {
                let quarter = (h >> (16 * q)) as u32 & 0xffff;
                mask |= u64::from(quarter < self.cut) << (4 * c + q);
            }
        }
        // Quarters past the last lexicon are not lexicons.
        mask & ((1 << self.extra) - 1)
    }

    /// Whether lexicon `index` (≥ 1, below the count) contains `term`.
    pub fn contains(&self, term: u64, index: usize) -> bool {
        self.membership(term) >> (index - 1) & 1 == 1
    }

    /// The terms lexicon `index` (≥ 1) contains, in order, into `out`,
    /// given each term's [`RandomLexicons::membership`] (filtered without a
    /// branch per term: membership is a coin flip).
    pub fn filter_into(index: usize, terms: &[u64], membership: &[u64], out: &mut Vec<u64>) {
        out.resize(terms.len(), 0);
        let mut n = 0;
        for (&t, &m) in terms.iter().zip(membership) {
            out[n] = t;
            n += (m >> (index - 1) & 1) as usize;
        }
        out.truncate(n);
    }
}

/// The `simhash-lexicons` algorithm (shingle SimHash over randomized lexicons): one fingerprint per lexicon, the closest pair counts.
#[derive(Debug, Clone, Default)]
pub struct SimhashLexicons {
    /// Its parameters.
    pub config: SimhashLexiconsConfig,
}

impl SimhashLexicons {
    /// The algorithm with these parameters.
    pub fn new(config: SimhashLexiconsConfig) -> Self {
        Self { config }
    }
}

impl WeightedTerms for SimhashLexicons {
    type Output = SimhashLexiconsFingerprint;

    /// One shingle SimHash per lexicon of a weighted term stream.
    fn of_weighted_terms(&self, terms: &[u64], idf: &[u32]) -> SimhashLexiconsFingerprint {
        self.of_weighted_terms_and_full(terms, idf, None)
    }
}

impl SimhashLexicons {
    /// Whether lexicon 0 (the full vocabulary) of this configuration is the
    /// `simhash-shingle` fingerprint of `shingle`'s.
    pub fn full_lexicon_is(&self, shingle: &SimhashShingleConfig) -> bool {
        let c = &self.config;
        (c.k, c.bits, c.seed) == (shingle.k, shingle.bits, shingle.seed)
    }

    /// [`WeightedTerms::of_weighted_terms`], with lexicon 0 given when
    /// it is already known ([`SimhashLexicons::full_lexicon_is`]).
    pub fn of_weighted_terms_and_full(
        &self,
        terms: &[u64],
        idf: &[u32],
        full: Option<Option<u64>>,
    ) -> SimhashLexiconsFingerprint {
        let c = &self.config;
        let lexicons = c.lexicons.clamp(1, 64);
        let random = RandomLexicons::new(c.keep, c.seed, lexicons);
        // Which extra lexicons hold each term, as a bit mask (bit j−1 for
        // lexicon j). Membership is a coin flip per term, so it is folded
        // and filtered below without branching on it.
        let membership: Vec<u64> = terms.iter().map(|&t| random.membership(t)).collect();
        let (mut kept_terms, mut kept_idf) = (vec![0; terms.len()], vec![0; terms.len()]);
        (0..lexicons)
            .map(|lexicon| {
                if lexicon == 0 {
                    return full
                        .unwrap_or_else(|| shingle_simhash(terms, idf, c.k, c.bits, c.seed));
                }
                let mut n = 0;
                for ((&t, &w), &m) in terms.iter().zip(idf).zip(&membership) {
                    kept_terms[n] = t;
                    kept_idf[n] = w;
                    n += (m >> (lexicon - 1) & 1) as usize;
                }
                shingle_simhash(&kept_terms[..n], &kept_idf[..n], c.k, c.bits, c.seed)
            })
            .collect()
    }
}

impl SimhashLexicons {
    /// The fingerprint of a weighted term stream arriving in pieces; with
    /// `full_known`, lexicon 0 is left to the caller (it is the
    /// `simhash-shingle` fingerprint, [`SimhashLexicons::full_lexicon_is`]).
    pub fn counters(&self, full_known: bool) -> LexiconCounters {
        let c = &self.config;
        let lexicons = c.lexicons.clamp(1, 64);
        let stream = || ShingleCounters::new(c.k, c.bits, c.seed);
        LexiconCounters {
            random: RandomLexicons::new(c.keep, c.seed, lexicons),
            full: (!full_known).then(stream),
            extra: (1..lexicons).map(|_| stream()).collect(),
            kept_terms: Vec::new(),
            kept_idf: Vec::new(),
        }
    }
}

/// [`SimhashLexicons::of_weighted_terms_and_full`] of a term stream
/// arriving in pieces: each lexicon's filtered stream continues across the
/// pieces on its own.
#[derive(Debug, Clone)]
pub struct LexiconCounters {
    random: RandomLexicons,
    /// Lexicon 0, unless the caller knows it.
    full: Option<ShingleCounters>,
    /// Lexicons 1.. .
    extra: Vec<ShingleCounters>,
    kept_terms: Vec<u64>,
    kept_idf: Vec<u32>,
}

impl LexiconCounters {
    /// The next terms of the stream, with their weights.
    pub fn push(&mut self, terms: &[u64], idf: &[u32]) -> Result<(), TryReserveError> {
        if let Some(full) = &mut self.full {
            full.push(terms, idf)?;
        }
        let membership: Vec<u64> = terms.iter().map(|&t| self.random.membership(t)).collect();
        self.kept_terms.resize(terms.len(), 0);
        self.kept_idf.resize(terms.len(), 0);
        for (index, lexicon) in self.extra.iter_mut().enumerate() {
            // Membership is a coin flip per term: filtered without a branch.
            let mut n = 0;
            for ((&t, &w), &m) in terms.iter().zip(idf).zip(&membership) {
                self.kept_terms[n] = t;
                self.kept_idf[n] = w;
                n += (m >> index & 1) as usize;
            }
            lexicon.push(&self.kept_terms[..n], &self.kept_idf[..n])?;
        }
        Ok(())
    }

    /// One fingerprint per lexicon; lexicon 0 is `full` when these
    /// counters were made with it known.
    pub fn finish(self, full: Option<u64>) -> SimhashLexiconsFingerprint {
        let first = match self.full {
            Some(own) => own.finish(),
            None => full,
        };
        std::iter::once(first)
            .chain(self.extra.into_iter().map(ShingleCounters::finish))
            .collect()
    }
}

impl Algorithm for SimhashLexicons {
    type Fingerprint = SimhashLexiconsFingerprint;
    const ID: AlgorithmId = AlgorithmId::SimhashLexicons;

    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> SimhashLexiconsFingerprint {
        self.of_analysis(doc, weights)
    }

    fn score(&self, a: &SimhashLexiconsFingerprint, b: &SimhashLexiconsFingerprint) -> Score {
        let bits = self.config.bits.clamp(1, 64);
        a.iter()
            .zip(b)
            .filter_map(|(x, y)| Some((x.as_ref()? ^ y.as_ref()?).count_ones()))
            .min()
            .map_or(Score::Incomparable, |distance| Score::Hamming {
                distance,
                bits,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_lexicons_keep_about_the_configured_fraction() {
        let lexicons = RandomLexicons::new(0.7, 9, 10);
        for index in 1..10 {
            let kept = (0..10_000u64)
                .filter(|&t| lexicons.contains(crate::hash::mix64(t), index))
                .count();
            assert!(
                (6_700..7_300).contains(&kept),
                "lexicon {index} kept {kept} of 10000"
            );
        }
        for (a, b) in [(1, 2), (4, 5), (1, 9)] {
            let differ = (0..10_000u64)
                .filter(|&t| {
                    let t = crate::hash::mix64(t);
                    lexicons.contains(t, a) != lexicons.contains(t, b)
                })
                .count();
            assert!(differ > 3_000, "lexicons {a} and {b} must differ");
        }
        // Stored fingerprints depend on membership staying this function.
        let cut = (0.7 * 65536.0) as u64;
        for t in 0..1_000u64 {
            let h = crate::hash::rehash(t, 11);
            assert_eq!(lexicons.contains(t, 6), (h >> 16 & 0xffff) < cut);
            assert_eq!(lexicons.membership(t) >> 9, 0, "nine extra lexicons");
        }
        assert_eq!(RandomLexicons::new(0.7, 9, 1).membership(5), 0);
        assert_eq!(RandomLexicons::new(1.0, 9, 64).membership(5), u64::MAX >> 1);
    }
}
