//! SI's sketches of the documents a fresh pairing has read, each sampled
//! k-gram hash cut to 16 bits, so that a proposal only SI must confirm
//! (nearness in size, see `Library::promising_among`) is dropped without
//! reading the other document's full fingerprints back when the cuts
//! share nothing. Two sketches that share a sampled k-gram share its cut,
//! so nothing SI would verify is dropped; about one unrelated pair in a
//! hundred shares a cut by chance (4 KB texts keep ~28 k-grams) and is
//! read and verified as before. Two bytes a k-gram, held only while the
//! documents are paired.

use super::verify::Promising;
use doppel_core::doc::DocId;
use doppel_core::engine::algo::{sorted_intersection_len, AlgorithmId, AlgorithmSet};
use doppel_core::engine::Fingerprints;

/// The cut sketches by document.
#[derive(Debug, Default)]
pub(super) struct SiCuts {
    /// `(start, len)` in `values` by dense id; `len == ABSENT`: not noted.
    spans: Vec<(u32, u32)>,
    /// Each noted document's cuts, sorted and distinct.
    values: Vec<u16>,
}

const ABSENT: u32 = u32::MAX;

impl SiCuts {
    /// Note `id`'s sketch (nothing when it has no SI fingerprint).
    pub fn note(&mut self, id: DocId, full: &Fingerprints) {
        let Some(si) = &full.si else {
            return;
        };
        let id = id as usize;
        if self.spans.len() <= id {
            self.spans.resize(id + 1, (0, ABSENT));
        }
        let mut cuts: Vec<u16> = si.sketch.iter().map(|&h| cut(h)).collect();
        cuts.sort_unstable();
        cuts.dedup();
        self.spans[id] = (self.values.len() as u32, cuts.len() as u32);
        self.values.extend_from_slice(&cuts);
    }

    /// `id`'s cut sketch, when noted.
    pub fn of(&self, id: DocId) -> Option<&[u16]> {
        match self.spans.get(id as usize) {
            Some(&(start, len)) if len != ABSENT => {
                Some(&self.values[start as usize..(start + len) as usize])
            }
            _ => None,
        }
    }

    /// Drop from `promising` (the proposals of `ids`, in order) those only
    /// SI must confirm whose other document is noted, not `at_hand`, and
    /// shares no cut with the proposed-to one: SI would not verify them.
    /// Returns how many were dropped.
    pub fn drop_unverifiable(
        &self,
        ids: &[DocId],
        promising: &mut [Promising],
        at_hand: impl Fn(DocId) -> bool,
    ) -> usize {
        let mut si_alone = AlgorithmSet::default();
        si_alone.insert(AlgorithmId::Si);
        let mut dropped = 0;
        for (&id, others) in ids.iter().zip(promising) {
            let Some(mine) = self.of(id) else {
                continue;
            };
            let proposed = others.len();
            others.retain(|&(other, to_confirm)| {
                to_confirm != si_alone
                    || at_hand(other)
                    || self.of(other).is_none_or(|theirs| may_share(mine, theirs))
            });
            dropped += proposed - others.len();
        }
        dropped
    }
}

/// A sampled k-gram hash's cut: its top 16 bits (sampling fixes low ones).
fn cut(hash: u64) -> u16 {
    (hash >> 48) as u16
}

/// Whether two sorted cut sketches share a value: never false when the
/// sketches they were cut from share a hash.
fn may_share(a: &[u16], b: &[u16]) -> bool {
    sorted_intersection_len(a, b) > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_core::engine::algo::si::SiFingerprint;
    use proptest::prelude::*;

    fn prints(sketch: Vec<u64>) -> Fingerprints {
        Fingerprints {
            si: Some(SiFingerprint::from_sampled(sketch)),
            ..Fingerprints::default()
        }
    }

    proptest! {
        #[test]
        fn sketches_sharing_a_hash_always_share_a_cut(
            a in proptest::collection::vec(any::<u64>(), 0..60),
            b in proptest::collection::vec(any::<u64>(), 0..60),
            shared in proptest::option::of(any::<u64>()),
        ) {
            let (mut a, mut b) = (a, b);
            if let Some(h) = shared {
                a.push(h);
                b.push(h);
            }
            let (pa, pb) = (prints(a), prints(b));
            let mut cuts = SiCuts::default();
            cuts.note(7, &pa);
            cuts.note(3, &pb);
            let full = sorted_intersection_len(
                &pa.si.as_ref().unwrap().sketch,
                &pb.si.as_ref().unwrap().sketch,
            );
            let (ca, cb) = (cuts.of(7).unwrap(), cuts.of(3).unwrap());
            prop_assert!(ca.windows(2).all(|w| w[0] < w[1]));
            if full > 0 {
                prop_assert!(may_share(ca, cb));
            }
        }
    }

    #[test]
    fn unrelated_sketches_rarely_share_a_cut() {
        let mut rng = doppel_core::hash::SplitMix64::new(5);
        let mut cuts = SiCuts::default();
        for id in 0..200 {
            cuts.note(id, &prints((0..28).map(|_| rng.next_u64()).collect()));
        }
        let sharing = (1..200)
            .filter(|&id| may_share(cuts.of(0).unwrap(), cuts.of(id).unwrap()))
            .count();
        // 28 × 28 / 65,536: about 1.2 % by chance.
        assert!(sharing <= 8, "{sharing} of 199 share a cut");
        assert_eq!(cuts.of(500), None);
        let mut without = SiCuts::default();
        without.note(1, &Fingerprints::default());
        assert_eq!(without.of(1), None);
    }
}
