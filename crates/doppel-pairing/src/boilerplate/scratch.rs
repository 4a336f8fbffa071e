//! The decision computed from scratch over a whole set of documents: the
//! definition, written as plainly as possible. [`super::Learner`] must
//! always agree with it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::runs::{anchors, candidate_runs, holds, run_hashes, spans, substantial_remainder};
use super::{BoilerplateConfig, DocSamples, Learned};
use crate::cluster::UnionFind;

/// Learn the boilerplate of `docs`: `pinned` shingles (the user's own
/// boilerplate) always count, `overruled` ones never do.
pub fn learn<K: Ord + Clone>(
    docs: &BTreeMap<K, DocSamples>,
    pinned: &BTreeSet<u32>,
    overruled: &BTreeSet<u32>,
    config: &BoilerplateConfig,
) -> Learned<K> {
    let list: Vec<&DocSamples> = docs.values().collect();
    let n = list.len();
    let mut postings: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, d) in list.iter().enumerate() {
        for h in d.distinct() {
            postings.entry(h).or_default().push(i);
        }
    }
    let df = |h: u32| postings.get(&h).map_or(0, Vec::len);

    // 1–2. Candidate runs, remainders, anchors.
    let mut cand: Vec<Vec<u32>> = Vec::with_capacity(n);
    let mut rem: Vec<Option<Vec<u32>>> = Vec::with_capacity(n);
    for d in &list {
        let runs = candidate_runs(&d.samples, config, |h| df(h) >= config.min_docs);
        cand.push(run_hashes(&d.samples, &runs));
        rem.push(substantial_remainder(&d.samples, &runs, config));
    }
    let is_c = |i: usize| !cand[i].is_empty();

    // 3. Groups: node n stands for "no substantial remainder".
    let mut groups = UnionFind::new(n + 1);
    for i in (0..n).filter(|&i| is_c(i)) {
        let Some(rem) = &rem[i] else {
            groups.union(i, n);
            continue;
        };
        let a = anchors(rem, config.anchors);
        let mut shared: BTreeMap<usize, usize> = BTreeMap::new();
        for h in &a {
            for &j in &postings[h] {
                *shared.entry(j).or_default() += 1;
            }
        }
        for (j, count) in shared {
            if j != i && is_c(j) && holds(count, a.len(), config.related) {
                groups.union(i, j);
            }
        }
    }

    // 4. Boilerplate: candidate shingles beside at least `min_groups` groups.
    let root: Vec<usize> = (0..=n).map(|i| groups.find(i)).collect();
    let mut learned: Vec<u32> = postings
        .iter()
        .filter(|(_, docs)| docs.len() >= config.min_docs)
        .filter(|(&h, docs)| {
            let holders: BTreeSet<usize> = docs
                .iter()
                .filter(|&&j| cand[j].binary_search(&h).is_ok())
                .map(|&j| root[j])
                .collect();
            holders.len() >= config.min_groups
        })
        .map(|(&h, _)| h)
        .collect();
    learned.sort_unstable();

    // 5. Spans.
    let is_learned = |h: u32| learned.binary_search(&h).is_ok() && !overruled.contains(&h);
    let spans = docs
        .iter()
        .map(|(k, d)| {
            (
                k.clone(),
                spans(d, config, is_learned, |h| pinned.contains(&h)),
            )
        })
        .filter(|(_, s)| !s.is_empty())
        .collect();
    Learned { learned, spans }
}
