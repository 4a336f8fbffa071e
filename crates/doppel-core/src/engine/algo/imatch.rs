//! `imatch`: Chowdhury et al.'s I-Match signature.
//!
//! Keep the document's distinct terms whose NIDF lies in a band
//! `[nidf_min, nidf_max]`: very common terms say nothing about the document
//! and very rare ones (typos, OCR garbage, terms never seen in the reference
//! statistics) are the ones most likely to differ between copies. The
//! signature is a 128-bit hash of the sorted kept terms; equal signatures
//! mean duplicates. A document keeping fewer than `min_terms` terms gets no
//! signature (Chowdhury et al. also drop such documents: a signature of two
//! words would collide with everything).

use serde::{Deserialize, Serialize};

use std::collections::TryReserveError;

use super::pieces::DistinctHashes;
use super::{Algorithm, AlgorithmId, Score};
use crate::engine::analysis::Analysis;
use crate::engine::stats::{nidf_from_idf, TermWeights};
use crate::hash::hash_u64s_128;

/// Parameters of `imatch` (`[algorithms.imatch]` in the config file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImatchConfig {
    /// Lowest NIDF kept (drops the most common terms). Default: 0.2.
    pub nidf_min: f64,
    /// Highest NIDF kept (drops the rarest terms). Default: 0.9.
    pub nidf_max: f64,
    /// Fewest distinct kept terms for a signature. Default: 5.
    pub min_terms: usize,
    /// Seed of the signature hash. Default: 0x5eed_0008.
    pub seed: u64,
}

impl Default for ImatchConfig {
    fn default() -> Self {
        Self {
            nidf_min: 0.2,
            nidf_max: 0.9,
            min_terms: 5,
            seed: 0x5eed_0008,
        }
    }
}

/// The signature; `None` when too few terms survive the band.
pub type ImatchFingerprint = Option<u128>;

/// The document's distinct terms inside the NIDF band, sorted.
pub fn band_terms(doc: &Analysis, weights: &dyn TermWeights, config: &ImatchConfig) -> Vec<u64> {
    let idf: Vec<f64> = doc.terms.iter().map(|&t| weights.idf(t)).collect();
    band_terms_of(&doc.terms, &idf, weights.unseen_idf(), config)
}

/// [`band_terms`] of a term stream whose IDFs are already known (each
/// term's `idf`, and the IDF of an unseen term, which normalizes them).
pub fn band_terms_of(
    terms: &[u64],
    idf: &[f64],
    unseen_idf: f64,
    config: &ImatchConfig,
) -> Vec<u64> {
    let mut kept: Vec<u64> = in_band(terms, idf, unseen_idf, config).collect();
    super::sort_hashes(&mut kept);
    kept.dedup();
    kept
}

/// [`band_terms_of`] of a term stream arriving in pieces: each piece's
/// terms inside the band join `band`, whose finished set is the band terms
/// of the whole stream.
pub fn push_band_terms(
    band: &mut DistinctHashes<u64>,
    terms: &[u64],
    idf: &[f64],
    unseen_idf: f64,
    config: &ImatchConfig,
) -> Result<(), TryReserveError> {
    band.extend_filtered(in_band(terms, idf, unseen_idf, config), terms.len())
}

/// The terms whose NIDF lies in the band, in order.
fn in_band<'a>(
    terms: &'a [u64],
    idf: &'a [f64],
    unseen_idf: f64,
    config: &'a ImatchConfig,
) -> impl Iterator<Item = u64> + 'a {
    terms
        .iter()
        .zip(idf)
        .filter(move |(_, &idf)| {
            let nidf = nidf_from_idf(idf, unseen_idf);
            nidf >= config.nidf_min && nidf <= config.nidf_max
        })
        .map(|(&t, _)| t)
}

/// Signature of sorted distinct terms, or `None` below `min_terms`.
pub fn signature(terms: &[u64], config: &ImatchConfig) -> Option<u128> {
    (terms.len() >= config.min_terms.max(1)).then(|| hash_u64s_128(terms, config.seed))
}

/// The `imatch` algorithm (I-Match): one signature of the document's terms in an IDF band.
#[derive(Debug, Clone, Default)]
pub struct Imatch {
    /// Its parameters.
    pub config: ImatchConfig,
}

impl Imatch {
    /// The algorithm with these parameters.
    pub fn new(config: ImatchConfig) -> Self {
        Self { config }
    }
}

impl Imatch {
    /// The signature of already band-filtered terms ([`band_terms`]).
    pub fn from_band_terms(&self, terms: &[u64]) -> ImatchFingerprint {
        signature(terms, &self.config)
    }
}

impl Algorithm for Imatch {
    type Fingerprint = ImatchFingerprint;
    const ID: AlgorithmId = AlgorithmId::Imatch;

    fn fingerprint(&self, doc: &Analysis, weights: &dyn TermWeights) -> ImatchFingerprint {
        self.from_band_terms(&band_terms(doc, weights, &self.config))
    }

    fn score(&self, a: &ImatchFingerprint, b: &ImatchFingerprint) -> Score {
        match (a, b) {
            (Some(a), Some(b)) => Score::Matches {
                matched: u32::from(a == b),
                of: 1,
            },
            _ => Score::Incomparable,
        }
    }
}
