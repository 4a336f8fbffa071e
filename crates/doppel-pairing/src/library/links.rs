//! The links of the kept pairs under the last cluster spec asked for, kept
//! between calls: every snapshot clusters the whole library, and judging
//! every kept pair again (~360k at 110k documents) was a third of a
//! watcher event's time. Kept links are brought up to date by judging only
//! the pairs the table logged as touched since ([`cluster::relink`]); a
//! new spec or a change in the curator's verdicts judges them all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::cluster;
use crate::cluster::{ClusterSpec, Link};
use crate::pairs::PairTable;
use doppel_core::doc::{CuratorVerdict, DocId};

/// The links last judged, with what they were judged under.
#[derive(Debug)]
struct Judged {
    spec: ClusterSpec,
    curator: HashMap<(DocId, DocId), CuratorVerdict>,
    links: Arc<Vec<Link>>,
}

/// The kept links; a clone starts empty (its pairs may change apart).
#[derive(Debug, Default)]
pub(super) struct LinkCache(Mutex<Option<Judged>>);

impl Clone for LinkCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl LinkCache {
    /// Every linking pair of `pairs` under `spec` and the `curator`'s
    /// verdicts, sorted by (a, b): [`cluster::links`], from the kept links
    /// where they serve.
    pub fn links(
        &self,
        pairs: &PairTable,
        curator: &HashMap<(DocId, DocId), CuratorVerdict>,
        spec: &ClusterSpec,
    ) -> Arc<Vec<Link>> {
        let mut judged = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Taken on every call, and under the lock, so the log always runs
        // from the kept links.
        let touched = pairs.take_touched();
        let links = match (judged.take(), touched) {
            (Some(j), Some(touched))
                if j.spec.by == spec.by
                    && j.spec.thresholds == spec.thresholds
                    && j.spec.fusion == spec.fusion
                    && j.curator == *curator =>
            {
                if touched.is_empty() {
                    j.links
                } else {
                    Arc::new(cluster::relink(&j.links, pairs, curator, spec, touched))
                }
            }
            _ => Arc::new(cluster::links(pairs, curator, spec)),
        };
        *judged = Some(Judged {
            spec: spec.clone(),
            curator: curator.clone(),
            links: links.clone(),
        });
        links
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::pairs::PairRow;
    use doppel_core::engine::algo::{AlgorithmId, Score};
    use doppel_core::engine::Engine;

    fn row(a: DocId, b: DocId, s: f64) -> PairRow {
        let scores = [
            (AlgorithmId::Minhash, Score::Similarity { value: s }),
            (
                AlgorithmId::Shingle,
                Score::Overlap {
                    resemblance: s,
                    a_in_b: s,
                    b_in_a: (2.0 * s).min(1.0),
                },
            ),
        ];
        PairRow::new(a, b, scores, 60)
    }

    proptest! {
        /// Whatever changes between two calls (pairs inserted, rescored or
        /// removed, verdicts given or taken back, a threshold moved), the
        /// kept links equal the links judged afresh.
        #[test]
        fn kept_links_equal_links_judged_afresh(
            ops in proptest::collection::vec((0u8..4, 0u32..8, 0u32..8, 0.0f64..1.0), 1..60),
        ) {
            let mut spec = ClusterSpec::from_engine(&Engine::default());
            let mut pairs = PairTable::default();
            let mut curator = HashMap::new();
            let cache = LinkCache::default();
            for (op, x, y, s) in ops {
                let (a, b) = (x.min(y), x.max(y));
                match op {
                    0 if a != b => pairs.insert(row(a, b, s)),
                    1 => {
                        pairs.remove(a, b);
                    }
                    2 if a != b => {
                        match curator.get(&(a, b)) {
                            None => curator.insert((a, b), CuratorVerdict::Duplicate),
                            Some(CuratorVerdict::Duplicate) => {
                                curator.insert((a, b), CuratorVerdict::NotDuplicate)
                            }
                            Some(_) => curator.remove(&(a, b)),
                        };
                    }
                    3 => spec.thresholds.set(AlgorithmId::Minhash, s),
                    _ => {}
                }
                let kept = cache.links(&pairs, &curator, &spec);
                let fresh = cluster::links(&pairs, &curator, &spec);
                prop_assert_eq!(format!("{kept:?}"), format!("{fresh:?}"));
            }
        }
    }
}
