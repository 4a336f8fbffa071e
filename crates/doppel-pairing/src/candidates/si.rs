//! SI's candidates: the `si_cap` documents nearest to a document's index
//! within `si_range` (every one as near as the last included, so ties
//! never depend on arrival), proposed both ways (a document's nearest, and
//! the documents it is nearest to), so that proposing is symmetric and a
//! library's pairs do not depend on the order documents came in.

use super::CandidateTables;
use doppel_core::doc::DocId;

impl CandidateTables {
    /// Whether SI indexes `a` and `b` are within `si_range` of each other,
    /// |a − b| ≤ r · max(a, b) (symmetric, an interval around either).
    fn si_in_band(&self, a: u64, b: u64) -> bool {
        let r = self.config.si_range.clamp(0.0, 0.99);
        a.abs_diff(b) as f64 <= r * a.max(b) as f64
    }

    /// The filed SI indexes within `si_range` of `value`, nearest first
    /// (document `id` left out), walking out both ways.
    fn si_by_distance(&self, id: DocId, value: u64) -> impl Iterator<Item = (u64, DocId)> + '_ {
        let mut below = self
            .si
            .range(..(value, id))
            .rev()
            .copied()
            .take_while(move |&(v, _)| self.si_in_band(value, v))
            .peekable();
        let mut above = self
            .si
            .range((value, id)..)
            .copied()
            .filter(move |&(_, d)| d != id)
            .take_while(move |&(v, _)| self.si_in_band(value, v))
            .peekable();
        std::iter::from_fn(move || {
            let pick_below = match (below.peek(), above.peek()) {
                (Some(b), Some(a)) => value.abs_diff(b.0) <= value.abs_diff(a.0),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return None,
            };
            let (v, d) = if pick_below {
                below.next()
            } else {
                above.next()
            }?;
            Some((value.abs_diff(v), d))
        })
    }

    /// SI's own proposals for the document `id` with index `value`: the
    /// `si_cap` documents nearest to it within `si_range`, with every one
    /// as near as the last (ties are never broken by arrival), and whether
    /// the cap cut some off.
    pub fn si_near(&self, id: DocId, value: u64) -> (Vec<DocId>, bool) {
        let mut near = Vec::new();
        let mut last = None;
        for (distance, d) in self.si_by_distance(id, value) {
            if near.len() >= self.config.si_cap && last != Some(distance) {
                return (near, true);
            }
            near.push(d);
            last = Some(distance);
        }
        (near, false)
    }

    /// The documents whose own SI proposals ([`CandidateTables::si_near`])
    /// include the document `id` with index `value`: those with fewer than
    /// `si_cap` documents strictly nearer to them than it is.
    pub fn si_reverse(&self, id: DocId, value: u64) -> Vec<DocId> {
        let k = self.config.si_cap;
        let mut out = Vec::new();
        if k == 0 {
            return out;
        }
        for side_above in [false, true] {
            // Documents met so far on this side whose index lies strictly
            // between `value` and the current one: each is nearer to it.
            let mut walked_off_value = 0usize;
            let mut at_current = 0usize;
            let mut current = None;
            let side: Box<dyn Iterator<Item = (u64, DocId)>> = if side_above {
                Box::new(
                    self.si
                        .range((value, id)..)
                        .copied()
                        .filter(|&(_, d)| d != id),
                )
            } else {
                Box::new(self.si.range(..(value, id)).rev().copied())
            };
            for (v, b) in side {
                if !self.si_in_band(value, v) {
                    break;
                }
                if current != Some(v) {
                    current = Some(v);
                    at_current = 0;
                }
                if walked_off_value - at_current >= k {
                    break;
                }
                let distance = value.abs_diff(v);
                let nearer = if distance == 0 {
                    0
                } else {
                    self.si
                        .range(
                            (v.saturating_sub(distance - 1), 0)
                                ..=(v.saturating_add(distance - 1), DocId::MAX),
                        )
                        .filter(|&&(c_value, c)| c != b && self.si_in_band(v, c_value))
                        .take(k)
                        .count()
                };
                if nearer < k {
                    out.push(b);
                }
                if v != value {
                    walked_off_value += 1;
                    at_current += 1;
                }
            }
        }
        out
    }

    /// Documents whose SI proposals the cap cut: more documents within
    /// `si_range` than it keeps. Every snapshot shows it, so it is one
    /// walk over the filed indexes in order instead of a walk out from
    /// each document ([`CandidateTables::si_near`]; that was ~20 % of a
    /// watcher event's CPU at 110k documents): the
    /// band's ends move up with the index, and a document is cut when its
    /// band's farthest member lies beyond its `si_cap`-th nearest.
    pub fn si_capped(&self) -> usize {
        let values: Vec<u64> = self.si.iter().map(|&(v, _)| v).collect();
        let k = self.config.si_cap;
        let (mut lo, mut hi) = (0, 0);
        let mut capped = 0;
        for (i, &v) in values.iter().enumerate() {
            // Both ends only move up: the band is [v (1 − r), v / (1 − r)].
            while !self.si_in_band(v, values[lo]) {
                lo += 1;
            }
            hi = hi.max(i);
            while hi + 1 < values.len() && self.si_in_band(v, values[hi + 1]) {
                hi += 1;
            }
            if hi - lo <= k {
                continue;
            }
            // The k-th nearest's distance, walking out both ways (below
            // first on a tie, as `si_by_distance` walks).
            let (mut below, mut above) = (i, i);
            let mut kth = None;
            for _ in 0..k {
                let down = (below > lo).then(|| v - values[below - 1]);
                let up = (above < hi).then(|| values[above + 1] - v);
                kth = match (down, up) {
                    (Some(d), Some(u)) if d <= u => {
                        below -= 1;
                        Some(d)
                    }
                    (Some(d), None) => {
                        below -= 1;
                        Some(d)
                    }
                    (_, up) => {
                        above += 1;
                        up
                    }
                };
            }
            let farthest = (v - values[lo]).max(values[hi] - v);
            if kth.is_none_or(|kth| farthest > kth) {
                capped += 1;
            }
        }
        capped
    }

    /// The documents SI proposes for the document `id` with index `value`,
    /// both ways ([`CandidateTables::si_near`], [`CandidateTables::si_reverse`]).
    pub fn si_proposed(&self, id: DocId, value: u64) -> Vec<DocId> {
        let mut out = self.si_near(id, value).0;
        out.extend(self.si_reverse(id, value));
        out
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::{CandidateConfig, CandidateTables};
    use doppel_core::doc::DocId;

    proptest! {
        /// The count every snapshot shows equals its definition: the
        /// documents whose own proposals the cap cut. Indexes drawn mostly
        /// from a narrow range (ties and crowded bands), some from anywhere.
        #[test]
        fn the_capped_count_is_the_documents_whose_proposals_were_cut(
            values in proptest::collection::vec(prop_oneof![0u64..60, any::<u64>()], 0..80),
            si_cap in 0usize..4,
            si_range in 0.0f64..0.5,
        ) {
            let config = CandidateConfig { si_cap, si_range, ..CandidateConfig::default() };
            let mut tables = CandidateTables::new(config, 128, 0.5, &[]);
            tables.si = values
                .iter()
                .enumerate()
                .map(|(id, &v)| (v, id as DocId))
                .collect();
            let defined = tables
                .si
                .iter()
                .filter(|&&(v, id)| tables.si_near(id, v).1)
                .count();
            prop_assert_eq!(tables.si_capped(), defined);
        }
    }
}
