//! What a kept pair is to each other: the same text (`duplicate`), one
//! within the other (`contains`, and which side is the whole), or
//! substantial shared text below a duplicate (`related`: two translations,
//! a heavy revision).
//!
//! Decided from a pair's two shingle containments alone (measured over the
//! documents' bodies, boilerplate and page furniture already left out) and
//! the `fusion` verdict: no new storage. The containments give the sizes
//! too, |A| / |B| = `b_in_a` / `a_in_b`, so "the sizes clearly differ" needs
//! no document lookup. A part is the smaller side when enough of it is in
//! the larger (a threshold that tolerates OCR noise, which breaks word
//! shingles) and the sizes differ by more than noise; two documents of
//! equal size are never a part and its whole. "Differ" is either a ratio
//! (the smaller at most `part_size_ratio` of the larger: a chapter in its
//! book) or the whole's text of its own, measured in shingles (an anthology
//! holding all of one work and two short ones beside it is its whole though
//! the work is 90 % of it). OCR noise breaks shingles on both sides alike
//! without changing their counts, so the size difference is text of its
//! own, not noise. The fusion rule counts a
//! part as a duplicate verdict ([`RelationRule::whole`] is one of its
//! branches), so a `contains` pair is always a fusion positive.

use serde::{Deserialize, Serialize};

use crate::engine::algo::Score;

/// One side of a pair (the pair's `a` or `b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The pair's first document.
    A,
    /// The pair's second document.
    B,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    /// `"a"` or `"b"`, as the JSON writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }
}

/// What the two documents of a kept pair are to each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// The same text: another digitization, edition or lightly edited copy.
    Duplicate,
    /// One side is within the other; `whole` is the side that contains.
    Contains {
        /// The side that holds the other.
        whole: Side,
    },
    /// Substantial shared text below a duplicate (translations, revisions).
    Related,
}

impl Relation {
    /// Its name in reports and in `--relation`: `duplicate`, `contains`,
    /// `related`.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Duplicate => "duplicate",
            Relation::Contains { .. } => "contains",
            Relation::Related => "related",
        }
    }

    /// The relation seen from the other side (the whole swaps).
    pub fn swapped(self) -> Relation {
        match self {
            Relation::Contains { whole } => Relation::Contains {
                whole: whole.other(),
            },
            other => other,
        }
    }
}

impl Relation {
    /// Its kind, without the side.
    pub fn kind(self) -> RelationKind {
        match self {
            Relation::Duplicate => RelationKind::Duplicate,
            Relation::Contains { .. } => RelationKind::Contains,
            Relation::Related => RelationKind::Related,
        }
    }
}

/// A relation without its side: what `--relation` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RelationKind {
    /// [`Relation::Duplicate`].
    Duplicate,
    /// [`Relation::Contains`].
    Contains,
    /// [`Relation::Related`].
    Related,
}

impl RelationKind {
    /// Every kind, in order.
    pub const ALL: [RelationKind; 3] = [
        RelationKind::Duplicate,
        RelationKind::Contains,
        RelationKind::Related,
    ];

    /// Its name: `duplicate`, `contains`, `related`.
    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Duplicate => "duplicate",
            RelationKind::Contains => "contains",
            RelationKind::Related => "related",
        }
    }
}

/// A name that is no [`RelationKind`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is no relation (duplicate, contains, related)")]
pub struct UnknownRelation {
    /// The name given.
    pub name: String,
}

impl std::str::FromStr for RelationKind {
    type Err = UnknownRelation;

    fn from_str(s: &str) -> Result<Self, UnknownRelation> {
        RelationKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownRelation { name: s.to_owned() })
    }
}

/// The share of each side's shingles found in the other, oriented a → b.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Containments {
    /// The share of `a`'s shingles in `b`.
    pub a_in_b: f64,
    /// The share of `b`'s shingles in `a`.
    pub b_in_a: f64,
}

impl Containments {
    /// The containments of an overlap score (shingle's, winnow's).
    pub fn of(score: &Score) -> Option<Containments> {
        match *score {
            Score::Overlap { a_in_b, b_in_a, .. } => Some(Containments { a_in_b, b_in_a }),
            _ => None,
        }
    }

    /// The same pair seen from the other side.
    pub fn swapped(self) -> Containments {
        Containments {
            a_in_b: self.b_in_a,
            b_in_a: self.a_in_b,
        }
    }

    /// The smaller side's containment in the larger (the larger of the two).
    pub fn larger(self) -> f64 {
        self.a_in_b.max(self.b_in_a)
    }

    /// The smaller side's size over the larger's, in [0, 1] (1 for equal
    /// sizes); `None` when nothing is shared, which tells no sizes.
    pub fn size_ratio(self) -> Option<f64> {
        let (low, high) = (self.a_in_b.min(self.b_in_a), self.larger());
        (high > 0.0 && low.is_finite()).then(|| low / high)
    }

    /// The larger side (it holds more shingles, so less of it is in the
    /// other); `None` for equal sizes.
    pub fn larger_side(self) -> Option<Side> {
        if self.a_in_b < self.b_in_a {
            Some(Side::A)
        } else if self.b_in_a < self.a_in_b {
            Some(Side::B)
        } else {
            None
        }
    }
}

/// The thresholds that decide a relation (`[fusion]` of the configuration
/// file, beside the containment rule they extend).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationRule {
    /// A part: at least this share of the smaller side's shingles is in
    /// the larger (`fusion.part-containment`) ...
    pub part_containment: f64,
    /// ... and the smaller is at most this share of the larger's size
    /// (`fusion.part-size-ratio`, below 1: equal sizes are never a part).
    pub part_size_ratio: f64,
    /// Related: at least this share of each side's shingles is in the
    /// other (`fusion.related-containment`): text shared by both in
    /// substance, not a passage (a leftover licence line, a quotation)
    /// that is much of a small document and little of a large one.
    pub related: f64,
    /// Containments count only when the smaller side has at least this
    /// many shingles (`fusion.min-shingles`).
    pub min_shingles: usize,
    /// Or the larger holds at least this many shingles of its own (beyond
    /// the smaller's size: `fusion.own-text`) ...
    pub own_text: usize,
    /// ... making at least this share of it (`fusion.own-text-share`): a
    /// whole at any size ratio, as an anthology is of each work in it.
    pub own_text_share: f64,
}

impl Default for RelationRule {
    fn default() -> Self {
        RelationRule {
            part_containment: 0.7,
            part_size_ratio: 0.75,
            related: 0.12,
            min_shingles: 50,
            own_text: 200,
            own_text_share: 0.05,
        }
    }
}

impl RelationRule {
    /// The part rule in words, e.g. "a part: ≥ 70 % of the smaller's
    /// shingles in the larger, the smaller ≤ 75 % of its size or the larger
    /// ≥ 200 shingles (5 %) of its own".
    pub fn describe(&self) -> String {
        format!(
            "a part: ≥ {:.0} % of the smaller's shingles in the larger, the smaller ≤ {:.0} % of its size or the larger ≥ {} shingles ({:.0} %) of its own",
            self.part_containment * 100.0,
            self.part_size_ratio * 100.0,
            self.own_text,
            self.own_text_share * 100.0
        )
    }

    /// When the smaller side is a part of the larger, the larger (the
    /// whole): enough of the smaller is in it, the smaller has enough
    /// shingles, and the sizes clearly differ (by ratio, or by the larger's
    /// text of its own).
    pub fn whole(&self, c: Option<Containments>, smaller_shingles: usize) -> Option<Side> {
        let c = c?;
        let ratio = c.size_ratio()?;
        let part = smaller_shingles >= self.min_shingles
            && c.larger() >= self.part_containment
            && (ratio <= self.part_size_ratio || self.has_own_text(ratio, smaller_shingles));
        if part {
            c.larger_side()
        } else {
            None
        }
    }

    /// Whether the larger side, `1 / ratio` times the smaller's
    /// `smaller_shingles`, holds enough text of its own: the difference,
    /// in shingles and as a share of the larger.
    fn has_own_text(&self, ratio: f64, smaller_shingles: usize) -> bool {
        if ratio <= 0.0 || ratio >= 1.0 {
            return false;
        }
        let larger = smaller_shingles as f64 / ratio;
        let own = larger - smaller_shingles as f64;
        own >= self.own_text as f64 && 1.0 - ratio >= self.own_text_share
    }

    /// The relation of a kept pair with shingle containments `c`, the
    /// smaller side's shingle count, and the `fusion` verdict `duplicate`:
    /// a part within its whole first, then a duplicate, then related when
    /// enough of each is in the other; else none.
    pub fn relation(
        &self,
        c: Option<Containments>,
        smaller_shingles: usize,
        duplicate: bool,
    ) -> Option<Relation> {
        if let Some(whole) = self.whole(c, smaller_shingles) {
            return Some(Relation::Contains { whole });
        }
        if duplicate {
            return Some(Relation::Duplicate);
        }
        let related = smaller_shingles >= self.min_shingles
            && c.is_some_and(|c| c.a_in_b.min(c.b_in_a) >= self.related);
        related.then_some(Relation::Related)
    }
}

/// The containments of sets of sizes `a` and `b` sharing `shared` (the
/// engine's tests build pairs from them).
#[cfg(test)]
pub(crate) fn sets(a: u32, b: u32, shared: u32) -> Containments {
    Containments {
        a_in_b: f64::from(shared) / f64::from(a),
        b_in_a: f64::from(shared) / f64::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_noisy_chapter_is_within_its_book_and_a_noisy_copy_is_not() {
        let rule = RelationRule::default();
        // A chapter of 1,200 shingles, 80 % of them in a book of 90,000
        // (OCR noise broke the rest).
        let chapter = sets(1_200, 90_000, 960);
        assert_eq!(
            rule.relation(Some(chapter), 1_200, false),
            Some(Relation::Contains { whole: Side::B })
        );
        // The same book scanned: comparable sizes, 80 % shared both ways.
        let scan = sets(90_000, 91_000, 72_000);
        assert_eq!(
            rule.relation(Some(scan), 90_000, true),
            Some(Relation::Duplicate)
        );
        assert_eq!(rule.whole(Some(scan), 90_000), None);
        // Two translations: 30 % of the smaller in the larger, 19 % of the
        // larger in the smaller.
        let translation = sets(2_400, 3_800, 720);
        assert_eq!(
            rule.relation(Some(translation), 2_400, false),
            Some(Relation::Related)
        );
        // A short text and a long one sharing a passage left of a licence
        // (the small library: an abridged Alice and Ruth in one licence):
        // a third of the short one, 8 % of the long one.
        let leftover = sets(2_000, 8_000, 660);
        assert_eq!(rule.relation(Some(leftover), 2_000, false), None);
        // Unrelated books sharing phrases only.
        assert_eq!(
            rule.relation(Some(sets(5_000, 9_000, 200)), 5_000, false),
            None
        );
        // A two-line note is no part of anything.
        assert_eq!(rule.relation(Some(sets(20, 9_000, 20)), 20, false), None);
    }

    #[test]
    fn an_anthology_holds_a_work_that_is_most_of_it_and_a_preamble_is_no_own_text() {
        let rule = RelationRule::default();
        // All of a 25,000-shingle novel in a 28,800-shingle anthology (the
        // novel is 87 % of it: two shorter works beside it).
        let anthology = sets(25_000, 28_800, 25_000);
        assert_eq!(
            rule.relation(Some(anthology), 25_000, true),
            Some(Relation::Contains { whole: Side::B })
        );
        // The same novel scanned with OCR noise: a fifth of each side's
        // shingles broken, sizes within 1 %: a duplicate, not a whole.
        let scan = sets(25_000, 25_200, 20_000);
        assert_eq!(
            rule.relation(Some(scan), 25_000, true),
            Some(Relation::Duplicate)
        );
        // A constitution without its 50-word preamble: too little text of
        // its own for the complete one to be its whole.
        let preamble = sets(4_400, 4_446, 4_400);
        assert_eq!(
            rule.relation(Some(preamble), 4_400, true),
            Some(Relation::Duplicate)
        );
        // A short text with 300 shingles of its own beside a 100-shingle
        // poem: a whole (the ratio rule says so already).
        assert_eq!(rule.whole(Some(sets(100, 400, 100)), 100), Some(Side::B));
        // 300 shingles of its own are not enough as a share of a 20,000-shingle book.
        assert_eq!(rule.whole(Some(sets(19_700, 20_000, 19_700)), 19_700), None);
    }

    #[test]
    fn nothing_shared_tells_no_sizes() {
        let c = Containments {
            a_in_b: 0.0,
            b_in_a: 0.0,
        };
        assert_eq!(c.size_ratio(), None);
        assert_eq!(RelationRule::default().relation(Some(c), 100, false), None);
        assert_eq!(
            RelationRule::default().relation(None, 100, true),
            Some(Relation::Duplicate)
        );
    }

    proptest! {
        /// Swapping a and b swaps the whole and changes nothing else.
        #[test]
        fn relation_is_symmetric_under_swapping_sides(
            a in 1u32..5_000,
            b in 1u32..5_000,
            shared_share in 0.0f64..=1.0,
            smaller in 0usize..200,
            duplicate in any::<bool>(),
        ) {
            let shared = (f64::from(a.min(b)) * shared_share).round() as u32;
            let c = sets(a, b, shared);
            let rule = RelationRule::default();
            let there = rule.relation(Some(c), smaller, duplicate);
            let back = rule.relation(Some(c.swapped()), smaller, duplicate);
            prop_assert_eq!(back, there.map(Relation::swapped));
        }

        /// Two documents of one size never contain each other, whatever
        /// they share and whatever the thresholds.
        #[test]
        fn equal_sizes_never_contain(
            size in 1u32..5_000,
            shared_share in 0.0f64..=1.0,
            part_containment in 0.0f64..=1.0,
            part_size_ratio in 0.0f64..1.0,
            duplicate in any::<bool>(),
        ) {
            let shared = (f64::from(size) * shared_share).round() as u32;
            let rule = RelationRule { part_containment, part_size_ratio, related: 0.1, min_shingles: 0, ..RelationRule::default() };
            let c = sets(size, size, shared);
            prop_assert_eq!(rule.whole(Some(c), size as usize), None);
            let relation = rule.relation(Some(c), size as usize, duplicate);
            prop_assert_ne!(relation.map(Relation::kind), Some(RelationKind::Contains));
        }

        /// The whole is always the larger side.
        #[test]
        fn the_whole_is_the_larger_side(
            a in 1u32..5_000,
            b in 1u32..5_000,
            shared_share in 0.0f64..=1.0,
        ) {
            let shared = (f64::from(a.min(b)) * shared_share).round() as u32;
            let rule = RelationRule { min_shingles: 0, ..RelationRule::default() };
            if let Some(whole) = rule.whole(Some(sets(a, b, shared)), a.min(b) as usize) {
                prop_assert_eq!(whole, if a > b { Side::A } else { Side::B });
            }
        }
    }
}
