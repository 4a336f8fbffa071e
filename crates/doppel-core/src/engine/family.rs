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
    pub const fn of(id: AlgorithmId) -> Family {
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

    /// Its algorithms (a constant: the pair table's judge asks for every
    /// family of every pair it judges).
    pub fn members(self) -> AlgorithmSet {
        const MEMBERS: [AlgorithmSet; 4] = [
            members_of(Family::Passages),
            members_of(Family::Vocabulary),
            members_of(Family::Signatures),
            members_of(Family::Si),
        ];
        MEMBERS[self as usize]
    }
}

/// The algorithms of `family`, worked out at compile time.
const fn members_of(family: Family) -> AlgorithmSet {
    let mut set = AlgorithmSet::EMPTY;
    let mut i = 0;
    while i < AlgorithmId::ALL.len() {
        let id = AlgorithmId::ALL[i];
        if Family::of(id) as u8 == family as u8 {
            set = set.with(id);
        }
        i += 1;
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_algorithm_is_a_member_of_its_own_family_only() {
        for family in Family::ALL {
            for id in AlgorithmId::ALL {
                assert_eq!(
                    family.members().contains(id),
                    Family::of(id) == family,
                    "{} in {}",
                    id.as_str(),
                    family.as_str()
                );
            }
        }
    }
}
