//! `si`: Roth's Similarity Index, one number per document, and the sketch
//! it sums.
//!
//! The document becomes a stream (characters, words or Soundex codes, with
//! one of Roth's processing variations A–D), the stream is cut into k-grams,
//! each k-gram is hashed (seeded, 64 bits), the k-grams whose hash's low 32
//! bits are 0 mod `modulus` are sampled, and their distinct hashes form the
//! sketch. The index is the sum of the sketch's 32-bit hashes. Defaults are
//! Roth's best combination (method 43B): Soundex stream, stop words
//! removed, duplicates kept, k = 40, 0 mod 25.
//!
//! Roth summed Java `String.hashCode` values, signed 32-bit integers. Their
//! sum is a random walk around 0: any change to the sketch moves it
//! arbitrarily and can flip its sign, so comparing two such sums within
//! ±30 % compares noise (a 2 %-edited chapter of *Emma* scored 0 against
//! the original, the Gettysburg Address 0.96 against it). Here each hash
//! counts unsigned, so the index grows with the number of sampled k-grams:
//! an edited copy keeps about its original's index, a part's index is
//! about its share of the whole (Proverbs 1–24 within ±30 % of Proverbs,
//! 25–31 not, as in Roth's tables), and a 276-word speech is far from a
//! 3,289-word chapter: Roth's "comparable size" comes with it.
//!
//! A size alone calls any two texts of similar length similar, so the
//! score is verified, as the paper's process does by hand: two documents
//! are similar when the smaller index lies in Roth's ±30 % band around the
//! larger (his Figure 2) *and* their sketches share at least `min_shared`
//! sampled k-grams. The score is Roth's closeness `1 − |a − b| / max(a, b)`
//! (0.7 = ±30 %) when verified and 0 when not. The sketch keeps all 64 bits
//! of each hash so that no verification rests on a chance collision (two
//! unrelated novels' 2,700-value sketches share a 32-bit value in about 1
//! pair of 20). A library keeps only the index in memory (its closeness is
//! the cheap check, never below the verified score); the sketch stays with
//! the stored fingerprints.

use std::collections::{HashSet, TryReserveError};

use serde::{Deserialize, Serialize};

use super::pieces::{DistinctHashes, GramTail};
use super::{sorted_intersection_len, Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::engine::text::tokenize::shingle_hashes;
use crate::engine::text::{Tokenizer, TokenizerConfig, Variation};
use crate::hash::mix64;

/// What SI samples k-grams of.
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

/// Parameters of `si` (`[algorithms.si]` in the config file).
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
    /// Verification: the sketches must share at least this many sampled
    /// k-grams (a passage of k units in both). Default: 1.
    pub min_shared: usize,
}

impl SiConfig {
    /// Both parts of Roth's test: the indices' closeness and the sampled
    /// k-grams the sketches share. `None` when a sketch is empty.
    pub fn compare(&self, a: &SiFingerprint, b: &SiFingerprint) -> Option<SiComparison> {
        let (x, y) = (a.index()?, b.index()?);
        let shared = sorted_intersection_len(&a.sketch, &b.sketch);
        let of = a.sketch.len().min(b.sketch.len());
        let verified = shared >= self.min_shared.max(1);
        Some(SiComparison {
            closeness: closeness(x, y),
            shared,
            of,
            verified,
        })
    }
}

impl Default for SiConfig {
    fn default() -> Self {
        Self {
            stream: Stream::Soundex,
            variation: Variation::B,
            k: 40,
            modulus: 25,
            seed: 0x5eed_000a,
            min_shared: 1,
        }
    }
}

/// Roth's sketch of a document, whose sum is its Similarity Index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiFingerprint {
    /// The distinct sampled k-gram hashes, sorted; empty when the document
    /// is shorter than k or no k-gram fell in the sample.
    #[serde(with = "crate::hash::le_u64s")]
    pub sketch: Vec<u64>,
}

impl SiFingerprint {
    /// The sketch of sampled hashes given in any order.
    pub fn from_sampled(sampled: impl IntoIterator<Item = u64>) -> Self {
        Self {
            sketch: crate::engine::algo::into_set(sampled.into_iter().collect()),
        }
    }

    /// The Similarity Index: the sum of the sketch's hashes, each taken as
    /// an unsigned 32-bit value (Roth's hash width); `None` when the sketch
    /// is empty (nothing to compare).
    pub fn index(&self) -> Option<u64> {
        (!self.sketch.is_empty()).then(|| self.sketch.iter().map(|&h| u64::from(h as u32)).sum())
    }
}

/// Roth's comparison of two documents, in the paper's terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SiComparison {
    /// 1 − |a − b| / max(a, b) of the two indices.
    pub closeness: f64,
    /// Sampled k-grams in both sketches.
    pub shared: usize,
    /// The smaller sketch's size.
    pub of: usize,
    /// Whether they share at least `min_shared`: the indices then measure
    /// related texts.
    pub verified: bool,
}

/// The `si` algorithm (Roth's SI): the sum of a sampled sketch of k-grams, compared by closeness.
pub struct Si {
    /// Its parameters.
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
    /// The algorithm with these parameters.
    pub fn new(config: SiConfig, tokenizer: &TokenizerConfig) -> Self {
        Self {
            config,
            tokenizer: Tokenizer::new(tokenizer),
        }
    }

    /// Roth's ±30 % comparison of two indices (`None`: an empty sketch):
    /// `1 − |a − b| / max(a, b)`, the score before verification. What the
    /// hot prints, which keep only the index, can tell.
    pub fn closeness(a: Option<u64>, b: Option<u64>) -> Score {
        match (a, b) {
            (Some(a), Some(b)) => Score::Similarity {
                value: closeness(a, b),
            },
            _ => Score::Incomparable,
        }
    }

    /// The sketch of a unit stream: its k-grams sampled 0 mod `modulus`
    /// (on the hash's low 32 bits, Roth's hash width).
    fn sketch_of(&self, units: &[u64]) -> SiFingerprint {
        let k = self.config.k.max(1);
        if units.len() < k {
            return SiFingerprint::default();
        }
        let modulus = self.config.modulus.max(1);
        SiFingerprint::from_sampled(
            shingle_hashes(units, k, self.config.seed)
                .filter(|&h| (h as u32).is_multiple_of(modulus)),
        )
    }

    /// The unit stream for word and Soundex streams, per variation.
    fn tokens(&self, doc: &Analysis) -> Vec<u64> {
        self.tokens_into(doc, &mut HashSet::new())
    }

    /// [`Si::tokens`] of a piece of a document, `seen` holding the tokens
    /// of the pieces before (for the variations that drop repeats).
    fn tokens_into(&self, doc: &Analysis, seen: &mut HashSet<u64>) -> Vec<u64> {
        let v = self.config.variation;
        let source = match self.config.stream {
            Stream::Soundex => &doc.soundex,
            _ => &doc.words,
        };
        source
            .iter()
            .zip(&doc.stop)
            .filter(|(&t, &stop)| t != 0 && !(v.removes_stopwords() && stop))
            .map(|(&t, _)| t)
            .filter(|&t| !v.removes_second_kind() || seen.insert(t))
            .collect()
    }
}

impl Si {
    /// The sketch of a document given as the analyses of its pieces
    /// ([`SiStream`]).
    pub fn stream(&self) -> SiStream<'_> {
        SiStream {
            si: self,
            seen: HashSet::new(),
            units: GramTail::new(self.config.k),
            sampled: DistinctHashes::new(),
        }
    }
}

/// `si`'s sketch of a document analyzed piece by piece: the tokens already
/// seen (variations that drop repeats) and the last k − 1 units carry over.
#[derive(Debug)]
pub struct SiStream<'a> {
    si: &'a Si,
    seen: HashSet<u64>,
    units: GramTail<u64>,
    sampled: DistinctHashes<u64>,
}

impl SiStream<'_> {
    /// The next piece's analysis.
    pub fn push(&mut self, doc: &Analysis) -> Result<(), TryReserveError> {
        let config = &self.si.config;
        let units: Vec<u64> = match config.stream {
            Stream::Char => self
                .si
                .tokenizer
                .char_stream(&doc.text, config.variation)
                .chars()
                .map(|c| mix64(u64::from(c)))
                .collect(),
            Stream::Word | Stream::Soundex => self.si.tokens_into(doc, &mut self.seen),
        };
        let (k, seed, modulus) = (self.units.k(), config.seed, config.modulus.max(1));
        let sampled = &mut self.sampled;
        self.units
            .push(&units, |joined| {
                sampled.extend_filtered(
                    shingle_hashes(joined, k, seed).filter(|&h| (h as u32).is_multiple_of(modulus)),
                    joined.len() / modulus as usize + 1,
                )
            })?
            .transpose()?;
        Ok(())
    }

    /// The fingerprint of every piece pushed.
    pub fn finish(self) -> SiFingerprint {
        SiFingerprint {
            sketch: self.sampled.finish(),
        }
    }
}

impl Algorithm for Si {
    type Fingerprint = SiFingerprint;
    const ID: AlgorithmId = AlgorithmId::Si;

    fn fingerprint(&self, doc: &Analysis, _: &dyn TermWeights) -> SiFingerprint {
        let units: Vec<u64> = match self.config.stream {
            Stream::Char => self
                .tokenizer
                .char_stream(&doc.text, self.config.variation)
                .chars()
                .map(|c| mix64(u64::from(c)))
                .collect(),
            Stream::Word | Stream::Soundex => self.tokens(doc),
        };
        self.sketch_of(&units)
    }

    fn score(&self, a: &SiFingerprint, b: &SiFingerprint) -> Score {
        match self.config.compare(a, b) {
            Some(c) => Score::Similarity {
                value: if c.verified { c.closeness } else { 0.0 },
            },
            None => Score::Incomparable,
        }
    }
}

/// `1 − |a − b| / max(a, b)`: 1 for equal indices, 0.7 at Roth's ±30 %.
fn closeness(a: u64, b: u64) -> f64 {
    match a.max(b) {
        0 => 1.0,
        larger => a.min(b) as f64 / larger as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::SplitMix64;
    use proptest::prelude::*;

    fn units(n: usize, seed: u64) -> Vec<u64> {
        let mut rng = SplitMix64::new(seed);
        (0..n).map(|_| rng.next_u64()).collect()
    }

    fn sketch(values: &[u64]) -> SiFingerprint {
        SiFingerprint::from_sampled(values.iter().copied())
    }

    #[test]
    fn the_index_sums_32_bit_hashes_unsigned() {
        // Java's signed ints would sum these to −2 + 5: a sign flip.
        let s = sketch(&[0xffff_ffff, 5, 0xdead_0000_ffff_fffe]);
        assert_eq!(s.index(), Some(0xffff_ffff + 5 + 0xffff_fffe));
        assert_eq!(SiFingerprint::default().index(), None);
    }

    proptest! {
        #[test]
        fn order_and_repeats_of_sampled_grams_do_not_matter(
            values in proptest::collection::vec(any::<u64>(), 1..200),
            rotate in 0usize..200,
        ) {
            let mut other = values.clone();
            other.rotate_left(rotate % values.len());
            other.extend_from_slice(&values[..values.len() / 2]);
            prop_assert_eq!(sketch(&values), sketch(&other));
            let total: u64 = sketch(&values).sketch.iter().map(|&h| h & 0xffff_ffff).sum();
            prop_assert_eq!(sketch(&values).index(), Some(total));
        }

        /// A prefix's sketch is inside the whole's, so its index is never
        /// larger (a signed sum has no such order).
        #[test]
        fn a_part_never_outweighs_its_whole(n in 50usize..3000, cut in 0.0f64..1.0, seed: u64) {
            let si = Si::new(SiConfig { k: 8, modulus: 5, ..SiConfig::default() }, &TokenizerConfig::default());
            let whole = units(n, seed);
            let part = si.sketch_of(&whole[..(n as f64 * cut) as usize]);
            let all = si.sketch_of(&whole);
            prop_assert!(part.sketch.iter().all(|h| all.sketch.binary_search(h).is_ok()));
            prop_assert!(part.index().unwrap_or(0) <= all.index().unwrap_or(0));
        }

        /// The hot check (indices only) never scores below the verified score.
        #[test]
        fn closeness_bounds_the_verified_score(
            a in proptest::collection::vec(0u64..400, 0..40),
            b in proptest::collection::vec(0u64..400, 0..40),
        ) {
            let si = Si::default();
            let (a, b) = (sketch(&a), sketch(&b));
            let full = si.score(&a, &b);
            let hot = Si::closeness(a.index(), b.index());
            prop_assert_eq!(full == Score::Incomparable, hot == Score::Incomparable);
            prop_assert!(full.similarity() <= hot.similarity());
            prop_assert_eq!(full, si.score(&b, &a));
        }
    }

    #[test]
    fn a_parts_index_is_about_its_share_of_the_whole() {
        let si = Si::default();
        let whole = units(100_000, 7);
        let index = |n: usize| si.sketch_of(&whole[..n]).index().unwrap() as f64;
        for share in [0.25, 0.5, 0.75] {
            let ratio = index((100_000.0 * share) as usize) / index(100_000);
            assert!((ratio - share).abs() < 0.05, "{share}: {ratio}");
        }
    }

    #[test]
    fn roths_thirty_percent_rule_on_verified_sketches() {
        let si = Si::default();
        // Shared sampled grams 1 and 2; the indices differ by the rest.
        let a = sketch(&[1, 2, 1000]);
        let near = sketch(&[1, 2, 1290]);
        let far = sketch(&[1, 2, 1600]);
        assert!(si.score(&a, &near).passes(0.7));
        assert!(!si.score(&a, &far).passes(0.7));
        // Equal sizes, nothing shared: not verified, 0.
        let stranger = sketch(&[3, 4, 996]);
        assert_eq!(
            Si::closeness(a.index(), stranger.index()),
            Score::Similarity { value: 1.0 }
        );
        assert_eq!(si.score(&a, &stranger), Score::Similarity { value: 0.0 });
        assert_eq!(si.score(&SiFingerprint::default(), &a), Score::Incomparable);
        // A stricter verification wants more shared grams.
        let strict = Si::new(
            SiConfig {
                min_shared: 3,
                ..SiConfig::default()
            },
            &TokenizerConfig::default(),
        );
        assert_eq!(strict.score(&a, &near), Score::Similarity { value: 0.0 });
    }

    #[test]
    fn duplicate_removal_variations_drop_repeated_tokens() {
        let analyzer = crate::engine::analysis::Analyzer::new(&TokenizerConfig::default());
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
