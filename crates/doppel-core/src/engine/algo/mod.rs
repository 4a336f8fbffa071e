//! The fingerprint algorithms of the papers, one module each, behind one
//! trait.
//!
//! Every algorithm turns an [`Analysis`] (plus term weights, for the
//! IDF-dependent ones) into a fingerprint, and two fingerprints into a
//! [`Score`]. Scores come in the algorithm's native unit, which is also the
//! unit of its threshold ([`AlgorithmId::unit`]):
//!
//! | id | score | duplicate when |
//! |---|---|---|
//! | `exact` | signatures equal (0/1) | equal |
//! | `shingle` | Jaccard resemblance, containment both ways | resemblance ≥ t |
//! | `minhash` | estimated Jaccard | ≥ t |
//! | `supershingle` | matching super-shingles of s | matches ≥ t |
//! | `simhash`, `simhash-shingle` | Hamming distance of b bits | distance ≤ t |
//! | `simhash-lexicons` | smallest Hamming distance over the L lexicons | ≤ t |
//! | `imatch` | signatures equal (0/1) | equal |
//! | `imatch-lexicons` | matching lexicon signatures of L | matches ≥ t |
//! | `winnow` | Jaccard of fingerprint sets, containment both ways | resemblance ≥ t |
//! | `si` | 1 − relative difference of the two indices; 0 unless the sketches share a sampled k-gram | ≥ t (0.7 = Roth's ±30 %) |
//!
//! A document with no features (empty, or too short for the algorithm) has an
//! empty fingerprint; comparing it with anything gives [`Score::Incomparable`],
//! which passes no threshold and is never NaN.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
pub use crate::hash::{sort_hashes, HashValue};

pub mod exact;
pub mod imatch;
pub mod imatch_lexicons;
pub mod minhash;
pub mod pieces;
pub mod shingle;
pub mod si;
pub mod simhash;
pub mod simhash_lexicons;
pub mod simhash_shingle;
pub mod supershingle;
pub mod winnow;

/// Stable identifiers, used by the CLI, the config file and JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlgorithmId {
    /// `exact`: the same normalized words in the same order.
    Exact,
    /// `shingle`: Broder's word shingles, resemblance and containment.
    Shingle,
    /// `minhash`: the MinHash estimate of the shingles' resemblance.
    Minhash,
    /// `supershingle`: matching groups of the MinHash sketch.
    Supershingle,
    /// `simhash`: Charikar's SimHash of the weighted terms.
    Simhash,
    /// `simhash-shingle`: SimHash of weighted word shingles.
    SimhashShingle,
    /// `simhash-lexicons`: shingle SimHash over randomized lexicons.
    SimhashLexicons,
    /// `imatch`: I-Match's signature of the mid-IDF terms.
    Imatch,
    /// `imatch-lexicons`: I-Match over randomized lexicons.
    ImatchLexicons,
    /// `winnow`: winnowed k-gram fingerprints, overlap.
    Winnow,
    /// `si`: Roth's sketch index, closeness.
    Si,
}

/// A small set of algorithms (one bit each; no allocation), iterated in
/// [`AlgorithmId::ALL`] order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AlgorithmSet(u16);

impl AlgorithmSet {
    /// No algorithm.
    pub const EMPTY: AlgorithmSet = AlgorithmSet(0);

    /// The set with `id` added (usable in constants).
    pub const fn with(self, id: AlgorithmId) -> AlgorithmSet {
        AlgorithmSet(self.0 | 1 << id as u16)
    }

    /// Add `id`.
    pub fn insert(&mut self, id: AlgorithmId) {
        self.0 |= 1 << id as u16;
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: AlgorithmId) -> bool {
        self.0 >> id as u16 & 1 == 1
    }

    /// How many algorithms are in the set.
    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The algorithms in both sets.
    pub fn intersection(self, other: AlgorithmSet) -> AlgorithmSet {
        AlgorithmSet(self.0 & other.0)
    }

    /// The algorithms in either set.
    pub fn union(self, other: AlgorithmSet) -> AlgorithmSet {
        AlgorithmSet(self.0 | other.0)
    }

    /// The algorithms in the set, in [`AlgorithmId::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = AlgorithmId> + '_ {
        AlgorithmId::ALL.into_iter().filter(|&id| self.contains(id))
    }
}

impl FromIterator<AlgorithmId> for AlgorithmSet {
    fn from_iter<I: IntoIterator<Item = AlgorithmId>>(iter: I) -> Self {
        let mut set = AlgorithmSet::default();
        for id in iter {
            set.insert(id);
        }
        set
    }
}

/// What a score (and so a threshold) counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// A similarity in [0, 1]; higher is more alike; duplicate when ≥ threshold.
    Similarity,
    /// A Hamming distance in bits; lower is more alike; duplicate when ≤ threshold.
    HammingBits,
    /// A count of matching signatures; duplicate when ≥ threshold.
    Matches,
}

impl AlgorithmId {
    /// Every algorithm, in the order tables show them.
    pub const ALL: [AlgorithmId; 11] = [
        AlgorithmId::Exact,
        AlgorithmId::Shingle,
        AlgorithmId::Minhash,
        AlgorithmId::Supershingle,
        AlgorithmId::Simhash,
        AlgorithmId::SimhashShingle,
        AlgorithmId::SimhashLexicons,
        AlgorithmId::Imatch,
        AlgorithmId::ImatchLexicons,
        AlgorithmId::Winnow,
        AlgorithmId::Si,
    ];

    /// The stable id (`simhash-shingle`), as the CLI, config and JSON spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            AlgorithmId::Exact => "exact",
            AlgorithmId::Shingle => "shingle",
            AlgorithmId::Minhash => "minhash",
            AlgorithmId::Supershingle => "supershingle",
            AlgorithmId::Simhash => "simhash",
            AlgorithmId::SimhashShingle => "simhash-shingle",
            AlgorithmId::SimhashLexicons => "simhash-lexicons",
            AlgorithmId::Imatch => "imatch",
            AlgorithmId::ImatchLexicons => "imatch-lexicons",
            AlgorithmId::Winnow => "winnow",
            AlgorithmId::Si => "si",
        }
    }

    /// The unit its scores and thresholds are in.
    pub fn unit(self) -> Unit {
        match self {
            AlgorithmId::Simhash | AlgorithmId::SimhashShingle | AlgorithmId::SimhashLexicons => {
                Unit::HammingBits
            }
            AlgorithmId::Supershingle | AlgorithmId::ImatchLexicons => Unit::Matches,
            _ => Unit::Similarity,
        }
    }

    /// Whether fingerprints depend on term weights (and so on [`crate::engine::stats`]).
    pub fn uses_idf(self) -> bool {
        matches!(
            self,
            AlgorithmId::Simhash
                | AlgorithmId::SimhashShingle
                | AlgorithmId::SimhashLexicons
                | AlgorithmId::Imatch
                | AlgorithmId::ImatchLexicons
        )
    }
}

impl fmt::Display for AlgorithmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no [`AlgorithmId`]; says the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown algorithm {name:?} (known: {})", known_ids())]
pub struct UnknownAlgorithm {
    /// The name given.
    pub name: String,
}

/// Every algorithm id, comma-separated.
fn known_ids() -> String {
    let known: Vec<&str> = AlgorithmId::ALL.iter().map(|id| id.as_str()).collect();
    known.join(", ")
}

impl FromStr for AlgorithmId {
    type Err = UnknownAlgorithm;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AlgorithmId::ALL
            .into_iter()
            .find(|id| id.as_str() == s)
            .ok_or_else(|| UnknownAlgorithm { name: s.to_owned() })
    }
}

/// The comparison of two fingerprints, in the algorithm's native unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Score {
    /// A similarity in [0, 1].
    Similarity {
        /// The similarity.
        value: f64,
    },
    /// Set overlap: Jaccard resemblance and the containment of each side in
    /// the other (`a_in_b` = |A ∩ B| / |A|).
    Overlap {
        /// |A ∩ B| / |A ∪ B|.
        resemblance: f64,
        /// |A ∩ B| / |A|.
        a_in_b: f64,
        /// |A ∩ B| / |B|.
        b_in_a: f64,
    },
    /// Hamming distance between `bits`-bit fingerprints.
    Hamming {
        /// Bits that differ.
        distance: u32,
        /// Bits compared.
        bits: u32,
    },
    /// `matched` of `of` signatures are equal.
    Matches {
        /// Signatures equal on both sides.
        matched: u32,
        /// Signatures compared.
        of: u32,
    },
    /// One side has no fingerprint (empty or too short): never a duplicate.
    Incomparable,
}

impl Score {
    /// The value a threshold is compared with (see [`AlgorithmId::unit`]).
    /// `None` for [`Score::Incomparable`].
    pub fn value(&self) -> Option<f64> {
        match *self {
            Score::Similarity { value } => Some(value),
            Score::Overlap { resemblance, .. } => Some(resemblance),
            Score::Hamming { distance, .. } => Some(f64::from(distance)),
            Score::Matches { matched, .. } => Some(f64::from(matched)),
            Score::Incomparable => None,
        }
    }

    /// A similarity in [0, 1] for every kind of score (Hamming: 1 − d/b;
    /// matches: matched/of; incomparable: 0), for sorting and histograms.
    pub fn similarity(&self) -> f64 {
        match *self {
            Score::Similarity { value } => value,
            Score::Overlap { resemblance, .. } => resemblance,
            Score::Hamming { distance, bits } => 1.0 - f64::from(distance) / f64::from(bits.max(1)),
            Score::Matches { matched, of } => f64::from(matched) / f64::from(of.max(1)),
            Score::Incomparable => 0.0,
        }
    }

    /// The larger containment of one side in the other, where the score has one.
    pub fn containment(&self) -> Option<f64> {
        match *self {
            Score::Overlap { a_in_b, b_in_a, .. } => Some(a_in_b.max(b_in_a)),
            _ => None,
        }
    }

    /// Whether this score makes a duplicate at `threshold` (native unit).
    pub fn passes(&self, threshold: f64) -> bool {
        match *self {
            Score::Hamming { distance, .. } => f64::from(distance) <= threshold,
            Score::Incomparable => false,
            _ => self.value().is_some_and(|v| v >= threshold),
        }
    }

    /// The same comparison seen from the other side (swaps containments).
    pub fn swapped(self) -> Self {
        match self {
            Score::Overlap {
                resemblance,
                a_in_b,
                b_in_a,
            } => Score::Overlap {
                resemblance,
                a_in_b: b_in_a,
                b_in_a: a_in_b,
            },
            other => other,
        }
    }
}

/// One fingerprint algorithm.
///
/// Implementations are pure: the same analysis and weights give the same
/// fingerprint on every run and platform, and `score` is symmetric (up to
/// [`Score::swapped`]) with a document scoring maximal against itself.
pub trait Algorithm: Send + Sync {
    /// The fingerprint kept per document.
    type Fingerprint: Clone + Send + Sync + fmt::Debug + PartialEq;

    /// Which algorithm it is.
    const ID: AlgorithmId;

    /// Fingerprint one document. `weights` is ignored by algorithms that do
    /// not use IDF.
    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> Self::Fingerprint;

    /// Compare two fingerprints made by this algorithm with this config.
    fn score(&self, a: &Self::Fingerprint, b: &Self::Fingerprint) -> Score;
}

/// Resemblance and containments of two sorted, deduplicated hash sets.
/// Empty sets are incomparable (never 0/0).
pub fn overlap<T: Ord + Copy>(a: &[T], b: &[T]) -> Score {
    if a.is_empty() || b.is_empty() {
        return Score::Incomparable;
    }
    let common = sorted_intersection_len(a, b) as f64;
    let union = a.len() as f64 + b.len() as f64 - common;
    Score::Overlap {
        resemblance: common / union,
        a_in_b: common / a.len() as f64,
        b_in_a: common / b.len() as f64,
    }
}

/// Size of the intersection of two sorted, deduplicated slices.
///
/// A merge without branches on the comparison: the steps of two unrelated
/// sets are a coin toss each, which a branch mispredicts half the time
/// (twice as slow on random 32-bit sets of 90 to 700 hashes).
pub fn sorted_intersection_len<T: Ord + Copy>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += usize::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    n
}

/// Sort and deduplicate a hash list in place, returning it.
pub fn into_set<T: HashValue>(mut v: Vec<T>) -> Vec<T> {
    sort_hashes(&mut v);
    v.dedup();
    // Fingerprints live as long as their document: give back the slack.
    v.shrink_to_fit();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The merge counts what a set intersection counts, whatever the
        /// sets' sizes, overlap and order of arguments.
        #[test]
        fn intersection_len_counts_the_common_hashes(
            a in proptest::collection::btree_set(0u32..400, 0..120),
            b in proptest::collection::btree_set(0u32..400, 0..120),
        ) {
            let (a, b): (Vec<u32>, Vec<u32>) = (a.into_iter().collect(), b.into_iter().collect());
            let common = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
            prop_assert_eq!(sorted_intersection_len(&a, &b), common);
            prop_assert_eq!(sorted_intersection_len(&b, &a), common);
        }
    }

    #[test]
    fn ids_round_trip_through_their_stable_names() {
        for id in AlgorithmId::ALL {
            assert_eq!(id.as_str().parse::<AlgorithmId>().unwrap(), id);
            assert_eq!(
                serde_json::to_string(&id).unwrap(),
                format!("\"{}\"", id.as_str())
            );
        }
        assert!("simhash2"
            .parse::<AlgorithmId>()
            .unwrap_err()
            .to_string()
            .contains("known: exact"));
    }

    #[test]
    fn thresholds_compare_in_the_native_direction() {
        assert!(Score::Hamming {
            distance: 3,
            bits: 64
        }
        .passes(3.0));
        assert!(!Score::Hamming {
            distance: 4,
            bits: 64
        }
        .passes(3.0));
        assert!(Score::Similarity { value: 0.8 }.passes(0.8));
        assert!(!Score::Incomparable.passes(0.0));
        assert!(!Score::Incomparable.passes(f64::INFINITY));
    }

    #[test]
    fn overlap_of_empty_sets_is_incomparable_not_nan() {
        assert_eq!(overlap::<u64>(&[], &[]), Score::Incomparable);
        assert_eq!(overlap(&[1], &[]), Score::Incomparable);
        let s = overlap(&[1, 2, 3, 4], &[3, 4]);
        assert_eq!(
            s,
            Score::Overlap {
                resemblance: 0.5,
                a_in_b: 0.5,
                b_in_a: 1.0
            }
        );
    }
}
