//! The `fusion` rule: how the algorithms' passing scores combine into one
//! verdict (a weighted vote of families, or containment for a part inside
//! its whole), as configured (`[fusion]`, [`FusionConfig`]) and as applied
//! to the algorithms enabled ([`FusionRule`]).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::engine::algo::{AlgorithmId, AlgorithmSet};
use crate::engine::family::Family;
use crate::engine::relation::{Containments, RelationRule};

/// How `fusion` combines the algorithms into one verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct FusionConfig {
    /// A pair is a duplicate when the families of evidence whose voting
    /// algorithms pass weigh at least this many votes ([`Family::weight`]).
    /// Default: 2 (shared passages alone, or two other families).
    pub min_agree: usize,
    /// The algorithms that vote. Default: all but `si`, whose comparable
    /// sizes verified by one shared passage are too weak a sign.
    pub voters: BTreeSet<AlgorithmId>,
    /// ... or when at least this share of the smaller document's shingles is
    /// in the larger one (containment). Default: 0.9.
    pub containment: f64,
    /// Containment counts only when the smaller document has at least this
    /// many shingles (a two-line note is not "contained" in a book). Default: 50.
    pub min_shingles: usize,
    /// ... or when the smaller is a part of the larger: at least this share
    /// of its shingles is in the larger (tolerating the OCR noise that
    /// breaks word shingles of a scanned whole) ... Default: 0.7.
    pub part_containment: f64,
    /// ... and it is at most this share of the larger's size (below 1:
    /// two documents of one size are never a part and its whole).
    /// Default: 0.75.
    pub part_size_ratio: f64,
    /// ... or the larger holds at least this many shingles of its own,
    /// beyond the smaller's size (an anthology of a work and two short
    /// ones is its whole though the work is most of it). Default: 200.
    pub own_text: usize,
    /// ... making at least this share of the larger. Default: 0.05.
    pub own_text_share: f64,
    /// A kept pair that is no duplicate is `related` when at least this
    /// share of each side's shingles is in the other. Default: 0.12.
    pub related_containment: f64,
}

impl Default for FusionConfig {
    fn default() -> Self {
        Self {
            min_agree: 2,
            voters: AlgorithmId::ALL
                .into_iter()
                .filter(|&id| id != AlgorithmId::Si)
                .collect(),
            containment: 0.9,
            min_shingles: 50,
            part_containment: 0.7,
            part_size_ratio: 0.75,
            own_text: 200,
            own_text_share: 0.05,
            related_containment: 0.12,
        }
    }
}

impl FusionConfig {
    /// The votes `voters` can give at most: the weights of their families.
    pub fn max_votes(voters: &BTreeSet<AlgorithmId>) -> usize {
        Family::ALL
            .into_iter()
            .filter(|f| voters.iter().any(|&id| Family::of(id) == *f))
            .map(Family::weight)
            .sum()
    }

    /// The rule in force when only `enabled` algorithms are computed: the
    /// voters not computed drop out, and when their families cannot give
    /// `min_agree` votes every one of those families must agree (at least
    /// one vote is always needed). The only place the votes needed are
    /// worked out.
    pub fn rule(&self, enabled: &BTreeSet<AlgorithmId>) -> FusionRule {
        let voters: BTreeSet<AlgorithmId> = self.voters.intersection(enabled).copied().collect();
        FusionRule {
            votes_needed: self.min_agree.min(Self::max_votes(&voters)).max(1),
            voters,
            min_agree: self.min_agree,
            containment: self.containment,
            min_shingles: self.min_shingles,
            containment_applies: enabled.contains(&AlgorithmId::Shingle),
            relations: RelationRule {
                part_containment: self.part_containment,
                part_size_ratio: self.part_size_ratio,
                related: self.related_containment,
                min_shingles: self.min_shingles,
                own_text: self.own_text,
                own_text_share: self.own_text_share,
            },
        }
    }
}

/// The `fusion` rule as it applies to the enabled algorithms
/// ([`FusionConfig::rule`]): what [`verdict`](super::verdict) and the pair table's judge
/// apply, and what reports state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FusionRule {
    /// The voting algorithms that are computed.
    pub voters: BTreeSet<AlgorithmId>,
    /// Votes of agreeing families that make a duplicate.
    pub votes_needed: usize,
    /// The configured `min_agree` (more than `votes_needed` when the
    /// computed voters' families cannot give that many votes).
    pub min_agree: usize,
    /// Duplicate also when this share of the smaller document's shingles is
    /// in the larger ...
    pub containment: f64,
    /// ... and the smaller has at least this many shingles.
    pub min_shingles: usize,
    /// Whether `shingle`, whose scores the containment rule reads, is
    /// computed (without it containment never applies).
    pub containment_applies: bool,
    /// What makes a part of a whole (a duplicate verdict too) and a
    /// related pair.
    pub relations: RelationRule,
}

impl Default for FusionRule {
    /// The default configuration's rule with every algorithm computed.
    fn default() -> Self {
        FusionConfig::default().rule(&AlgorithmId::ALL.into_iter().collect())
    }
}

impl FusionRule {
    /// Whether the smaller document of a pair is contained in the larger:
    /// at least this rule's share of its shingles (`containment`, the
    /// larger of the two directions) and it has enough of them, or it is a
    /// part of the larger ([`RelationRule::whole`]: a noise-tolerant share,
    /// and the sizes clearly differ).
    pub fn contained(&self, containments: Option<Containments>, smaller_shingles: usize) -> bool {
        (containments.is_some_and(|c| c.larger() >= self.containment)
            && smaller_shingles >= self.min_shingles)
            || self
                .relations
                .whole(containments, smaller_shingles)
                .is_some()
    }

    /// The families with at least one computed voter, in order.
    pub fn families(&self) -> Vec<Family> {
        Family::ALL
            .into_iter()
            .filter(|f| self.voters.iter().any(|&id| Family::of(id) == *f))
            .collect()
    }

    /// The computed voters as a set.
    pub fn voter_set(&self) -> AlgorithmSet {
        self.voters.iter().copied().collect()
    }

    /// The families that agree on a pair whose passing algorithms are
    /// `passing`: those with a passing voter.
    pub fn agreeing(&self, passing: AlgorithmSet) -> Vec<Family> {
        let passing = passing.intersection(self.voter_set());
        Family::ALL
            .into_iter()
            .filter(|f| !passing.intersection(f.members()).is_empty())
            .collect()
    }

    /// The votes a pair whose passing algorithms are `passing` gets: each
    /// agreeing family's weight, once however many of its algorithms pass.
    pub fn votes(&self, passing: AlgorithmSet) -> usize {
        Self::family_votes(passing.intersection(self.voter_set()))
    }

    /// [`FusionRule::votes`] of passing algorithms that are all voters (the
    /// pair table's judge intersects once, without allocating). The one
    /// place votes are counted.
    pub fn family_votes(passing_voters: AlgorithmSet) -> usize {
        Family::ALL
            .into_iter()
            .filter(|f| !passing_voters.intersection(f.members()).is_empty())
            .map(Family::weight)
            .sum()
    }

    /// The `fusion` verdict on a pair that gets `votes` ([`FusionRule::votes`]):
    /// enough votes, or containment. The one place the rule is applied (the
    /// engine's [`verdict`](super::verdict) and the pair table's judge both ask it).
    ///
    /// A smaller side under `min_shingles` (a few dozen words) is too short
    /// for votes: one shared phrase is most of it, and every algorithm then
    /// agrees. Such a pair is a duplicate only when it is the same text,
    /// each side at least `part_containment` within the other.
    pub fn decides(
        &self,
        votes: usize,
        containments: Option<Containments>,
        smaller_shingles: usize,
    ) -> bool {
        if self.containment_applies && smaller_shingles < self.min_shingles {
            return containments
                .is_some_and(|c| c.a_in_b.min(c.b_in_a) >= self.relations.part_containment);
        }
        votes >= self.votes_needed || self.contained(containments, smaller_shingles)
    }

    /// The votes each family with a computed voter gives, e.g.
    /// "passages 2, vocabulary 1, signatures 1".
    pub fn weights(&self) -> String {
        self.families()
            .into_iter()
            .map(|f| format!("{} {}", f.as_str(), f.weight()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The rule in words, e.g. "≥ 2 family votes, or containment ≥ 90 %"
    /// (the votes per family: [`FusionRule::weights`]) or "minhash alone
    /// (only 1 voting algorithm enabled)".
    pub fn describe(&self) -> String {
        let votes = match self.voters.len() {
            0 => None,
            1 => Some(format!(
                "{} alone (only 1 voting algorithm enabled)",
                self.voters.iter().map(|id| id.as_str()).collect::<String>()
            )),
            _ if self.votes_needed < self.min_agree => Some(format!(
                "≥ {} family votes (all {} can give)",
                self.votes_needed,
                self.weights()
            )),
            _ => Some(format!("≥ {} family votes", self.votes_needed)),
        };
        let containment = self
            .containment_applies
            .then(|| format!("containment ≥ {:.0} %", self.containment * 100.0));
        match (votes, containment) {
            (Some(v), Some(c)) => format!("{v}, or {c}"),
            (Some(v), None) => v,
            (None, Some(c)) => format!("{c} only (no voting algorithm enabled)"),
            (None, None) => "never (no voting algorithm enabled)".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::relation::sets;

    #[test]
    fn a_short_text_is_a_duplicate_only_of_its_same_text() {
        let rule = FusionRule::default();
        let all_votes = FusionConfig::max_votes(&rule.voters);
        // An eight-word excerpt wholly inside a 27-word one: every family
        // agrees, but it is one shared phrase.
        assert!(!rule.decides(all_votes, Some(sets(5, 24, 5)), 5));
        // Two excerpts sharing half of each.
        assert!(!rule.decides(all_votes, Some(sets(20, 20, 10)), 20));
        // The same short text, once with one word misread.
        assert!(rule.decides(all_votes, Some(sets(20, 20, 20)), 20));
        assert!(rule.decides(all_votes, Some(sets(20, 20, 16)), 20));
        // Long enough: the votes decide again.
        assert!(rule.decides(all_votes, Some(sets(400, 900, 120)), 400));
        assert!(!rule.decides(0, Some(sets(400, 900, 120)), 400));
    }
}
