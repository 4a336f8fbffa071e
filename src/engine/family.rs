//! Families of evidence: algorithms that measure the same thing vote once
//! in `fusion` ([`Family::of`], [`Family::weight`]), so two SimHash
//! variants agreeing count as one view, not two.

use serde::{Deserialize, Serialize};

use crate::engine::algo::{AlgorithmId, AlgorithmSet};

/// What an algorithm's agreement is evidence of. Algorithms of one family
/// measure the same thing (MinHash estimates shingle's Jaccard; the three
/// SimHashes all compare TF-IDF vocabularies), so a family votes once,
/// however many of its algorithms pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Text in common: exact, shingle, minhash, supershingle, winnow.
    Passages,
    /// Similar weighted vocabularies: the SimHash family. Long texts of
    /// one register converge here without sharing a sentence.
    Vocabulary,
    /// Equal term-set signatures: the I-Match family.
    Signatures,
    /// Roth's comparable size with one shared sampled 40-gram.
    Si,
}

impl Family {
    /// Every family, in order.
    pub const ALL: [Family; 4] = [
        Family::Passages,
        Family::Vocabulary,
        Family::Signatures,
        Family::Si,
    ];

    /// The family `id` belongs to.
    pub fn of(id: AlgorithmId) -> Family {
        use AlgorithmId as Id;
        match id {
            Id::Exact | Id::Shingle | Id::Minhash | Id::Supershingle | Id::Winnow => {
                Family::Passages
            }
            Id::Simhash | Id::SimhashShingle | Id::SimhashLexicons => Family::Vocabulary,
            Id::Imatch | Id::ImatchLexicons => Family::Signatures,
            Id::Si => Family::Si,
        }
    }

    /// The votes the family gives when it agrees: shared passages are the
    /// text itself in common and decide alone (2, the default `min_agree`);
    /// vocabulary, signatures and si need another family (1).
    pub fn weight(self) -> usize {
        match self {
            Family::Passages => 2,
            Family::Vocabulary | Family::Signatures | Family::Si => 1,
        }
    }

    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Passages => "passages",
            Family::Vocabulary => "vocabulary",
            Family::Signatures => "signatures",
            Family::Si => "si",
        }
    }

    /// Its algorithms.
    pub fn members(self) -> AlgorithmSet {
        AlgorithmId::ALL
            .into_iter()
            .filter(|&id| Family::of(id) == self)
            .collect()
    }
}
