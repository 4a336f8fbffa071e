//! The store's on-disk encodings: u64s as two's-complement INTEGERs, term
//! lists as little-endian bytes, pair scores as postcard lists keyed by the
//! algorithms' stable names ([`StoredScore`] mirrors [`Score`] so the disk
//! format never follows `Score`'s JSON attributes), other values as
//! postcard. The in-memory pair rows (`pairing::pairs`) hold the same
//! scores in a fixed-size columnar layout for judging speed; the two stay
//! apart because the stored one must survive a reordering of the
//! algorithm list.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::{Result, StoreError};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::PairScores;
use doppel_pairing::boilerplate::{DocSamples, Sample};

pub(super) fn u64_to_sql(v: u64) -> i64 {
    v as i64
}

pub(super) fn u64_from_sql(v: i64) -> u64 {
    v as u64
}

pub(super) fn terms_to_blob(terms: &[u64]) -> Vec<u8> {
    doppel_core::hash::le_u64s::to_bytes(terms)
}

pub(super) fn terms_from_blob(blob: &[u8]) -> Option<Vec<u64>> {
    let chunks = blob.chunks_exact(8);
    if !chunks.remainder().is_empty() {
        return None;
    }
    Some(
        chunks
            .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunk")))
            .collect(),
    )
}

/// The stored form of a [`Score`]: its own enum so the on-disk encoding does
/// not follow the JSON attributes of `Score`. Append variants only.
#[derive(Serialize, Deserialize)]
enum StoredScore {
    Similarity(f64),
    Overlap(f64, f64, f64),
    Hamming(u32, u32),
    Matches(u32, u32),
    Incomparable,
}

impl From<Score> for StoredScore {
    fn from(s: Score) -> Self {
        match s {
            Score::Similarity { value } => StoredScore::Similarity(value),
            Score::Overlap {
                resemblance,
                a_in_b,
                b_in_a,
            } => StoredScore::Overlap(resemblance, a_in_b, b_in_a),
            Score::Hamming { distance, bits } => StoredScore::Hamming(distance, bits),
            Score::Matches { matched, of } => StoredScore::Matches(matched, of),
            Score::Incomparable => StoredScore::Incomparable,
        }
    }
}

impl From<StoredScore> for Score {
    fn from(s: StoredScore) -> Self {
        match s {
            StoredScore::Similarity(value) => Score::Similarity { value },
            StoredScore::Overlap(resemblance, a_in_b, b_in_a) => Score::Overlap {
                resemblance,
                a_in_b,
                b_in_a,
            },
            StoredScore::Hamming(distance, bits) => Score::Hamming { distance, bits },
            StoredScore::Matches(matched, of) => Score::Matches { matched, of },
            StoredScore::Incomparable => Score::Incomparable,
        }
    }
}

pub(super) fn scores_to_blob(scores: &PairScores, swap: bool) -> Vec<u8> {
    let stored: Vec<(&str, StoredScore)> = scores
        .iter()
        .map(|(id, s)| {
            let s = if swap { s.swapped() } else { *s };
            (id.as_str(), StoredScore::from(s))
        })
        .collect();
    postcard::to_allocvec(&stored).expect("scores serialize")
}

/// A pair's scores as stored, in algorithm order; inline, so decoding the
/// pairs of a large index allocates nothing per pair.
pub type ScoreList = SmallVec<[(AlgorithmId, Score); AlgorithmId::ALL.len()]>;

/// Why a value the store keeps does not decode (written by another build,
/// or damaged); said in [`super::StoreError::Decode`].
#[derive(Debug, thiserror::Error)]
pub enum Undecodable {
    /// A pair's scores.
    #[error("pair scores do not decode: {0}")]
    Scores(#[source] postcard::Error),
    /// A pair's scores name an algorithm this build does not know.
    #[error(transparent)]
    Algorithm(#[from] doppel_core::engine::algo::UnknownAlgorithm),
    /// A pair's scores end with bytes to spare.
    #[error("pair scores do not decode: {0} bytes left over")]
    ScoresLeftOver(usize),
    /// A document's boilerplate samples.
    #[error("samples do not decode: {0}")]
    Samples(#[source] postcard::Error),
    /// The samples' hashes and positions do not pair up.
    #[error("samples do not decode: {hashes} hashes for {positions} positions")]
    SampleCounts {
        /// Hashes stored.
        hashes: usize,
        /// Positions stored.
        positions: usize,
    },
    /// A document's learned boilerplate.
    #[error("boilerplate does not decode: {0}")]
    Boilerplate(#[source] postcard::Error),
    /// A document's status column.
    #[error("unknown status {0:?}")]
    Status(String),
}

pub(super) fn scores_from_blob(blob: &[u8]) -> Result<ScoreList, Undecodable> {
    // Element by element: the names borrow from the blob and nothing is
    // collected on the way.
    let (len, mut rest) = postcard::take_from_bytes::<usize>(blob).map_err(Undecodable::Scores)?;
    let mut list = ScoreList::new();
    for _ in 0..len {
        let ((name, score), tail) =
            postcard::take_from_bytes::<(&str, StoredScore)>(rest).map_err(Undecodable::Scores)?;
        list.push((name.parse::<AlgorithmId>()?, score.into()));
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(Undecodable::ScoresLeftOver(rest.len()));
    }
    Ok(list)
}

/// The [`INSERT_PAIR`] parameters of the pair {x, y} whose scores are
/// oriented from `x`: stored with the smaller id first.
pub(super) fn pair_row(x: i64, y: i64, scores: &PairScores) -> (i64, i64, Vec<u8>) {
    if x < y {
        (x, y, scores_to_blob(scores, false))
    } else {
        (y, x, scores_to_blob(scores, true))
    }
}

/// The postcard encoding of `value` (`what` names it in the error).
pub(super) fn to_blob(
    value: &impl Serialize,
    path: &Path,
    what: fmt::Arguments<'_>,
) -> Result<Vec<u8>> {
    postcard::to_allocvec(value).map_err(|e| StoreError::Invalid {
        path: path.to_path_buf(),
        reason: format!("{what} does not serialize: {e}"),
    })
}

/// A document's learner samples as the SQLite index stores them
/// ([`samples_to_blob`]): each hash as its four little-endian bytes (they
/// are uniform: a varint took five), each word position as its gap from
/// the one before (a varint byte, where the position took two).
#[derive(Serialize, Deserialize)]
struct PackedSamples {
    words: u32,
    #[serde(with = "doppel_core::hash::le_u32s")]
    hashes: Vec<u32>,
    gaps: Vec<u32>,
}

/// `samples` packed ([`PackedSamples`]): ~5 bytes a sample, where their
/// postcard took ~7.
pub(super) fn samples_to_blob(samples: &DocSamples) -> Vec<u8> {
    let mut last = 0u32;
    let packed = PackedSamples {
        words: samples.words,
        hashes: samples.samples.iter().map(|s| s.hash).collect(),
        gaps: samples
            .samples
            .iter()
            .map(|s| {
                // Positions come in word order; wrapping keeps any order exact.
                let gap = s.word.wrapping_sub(last);
                last = s.word;
                gap
            })
            .collect(),
    };
    postcard::to_allocvec(&packed).expect("samples serialize")
}

/// The samples [`samples_to_blob`] packed.
pub(super) fn samples_from_blob(blob: &[u8]) -> Result<DocSamples, Undecodable> {
    let packed: PackedSamples = postcard::from_bytes(blob).map_err(Undecodable::Samples)?;
    if packed.hashes.len() != packed.gaps.len() {
        return Err(Undecodable::SampleCounts {
            hashes: packed.hashes.len(),
            positions: packed.gaps.len(),
        });
    }
    let mut word = 0u32;
    let samples = packed
        .hashes
        .into_iter()
        .zip(packed.gaps)
        .map(|(hash, gap)| {
            word = word.wrapping_add(gap);
            Sample { hash, word }
        })
        .collect();
    Ok(DocSamples {
        samples,
        words: packed.words,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{samples_from_blob, samples_to_blob};
    use doppel_pairing::boilerplate::{DocSamples, Sample};

    proptest! {
        /// Packed samples come back exactly, in any word order (positions
        /// are stored as gaps), and take five bytes a sample at most for
        /// short gaps, where postcard took up to seven.
        #[test]
        fn packed_samples_round_trip(
            raw in prop::collection::vec((any::<u32>(), 0u32..100_000), 0..200),
            words in any::<u32>(),
            sorted in any::<bool>(),
        ) {
            let mut samples: Vec<Sample> =
                raw.into_iter().map(|(hash, word)| Sample { hash, word }).collect();
            if sorted {
                samples.sort_by_key(|s| s.word);
            }
            let doc = DocSamples { samples, words };
            let blob = samples_to_blob(&doc);
            prop_assert_eq!(samples_from_blob(&blob).unwrap(), doc.clone());
            let gaps_short = doc.samples.first().is_none_or(|s| s.word < 128)
                && doc.samples.windows(2).all(|w| w[1].word >= w[0].word && w[1].word - w[0].word < 128);
            if gaps_short {
                prop_assert!(blob.len() <= 5 * doc.samples.len() + 5 + 3 + 3);
            }
        }
    }

    /// A blob cut short, or with hashes and positions of different counts,
    /// is an error, not a wrong document.
    #[test]
    fn damaged_samples_do_not_decode() {
        let doc = DocSamples {
            samples: (0..10)
                .map(|i| Sample {
                    hash: i * 77,
                    word: i * 8,
                })
                .collect(),
            words: 90,
        };
        let blob = samples_to_blob(&doc);
        assert!(samples_from_blob(&blob[..blob.len() - 3]).is_err());
        let mismatched = postcard::to_allocvec(&(90u32, &[0u8; 8][..], vec![1u32])).unwrap();
        assert!(samples_from_blob(&mismatched).is_err());
    }
}
