//! From judged pairs to clusters.
//!
//! [`links`] judges every kept pair under a [`ClusterSpec`] (thresholds,
//! the fusion rule or one algorithm, and the curator's verdicts first) and
//! [`clusters`] groups the links: connected components (union-find), or
//! star clustering, where every member is directly linked to its centre so
//! a chain never joins unrelated documents. Each cluster is described by
//! its weakest link and the algorithms that agree on all its links. The
//! order of members (representative first) is the caller's ([`Rank`]).

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::doc::{CuratorVerdict, DocId};
use crate::engine::algo::{AlgorithmId, AlgorithmSet};
use crate::engine::{Engine, FusionRule, Thresholds};
use crate::pairing::pairs::{Judge, PairRow, PairTable};

/// What defines a duplicate link for clustering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterBy {
    /// The fusion rule: enough voting algorithms agree, or containment.
    Fusion,
    /// One algorithm's threshold.
    Algorithm(AlgorithmId),
}

/// How links become clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterMode {
    /// Connected components: A~B and B~C put A, B, C together.
    #[default]
    Components,
    /// Star (centre) clustering: every member is directly linked to its
    /// cluster's centre, so chains never merge unrelated documents.
    Star,
}

/// Everything that decides which pairs link and how links group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterSpec {
    /// The verdict that makes a link.
    pub by: ClusterBy,
    /// Components or star.
    pub mode: ClusterMode,
    /// Each algorithm's threshold, in its native unit.
    pub thresholds: Thresholds,
    /// The fusion rule for the engine's enabled algorithms.
    pub fusion: FusionRule,
}

impl ClusterSpec {
    /// Fusion and components under the engine's thresholds and rule.
    pub fn from_engine(engine: &Engine) -> Self {
        Self {
            by: ClusterBy::Fusion,
            mode: ClusterMode::Components,
            thresholds: engine.config().thresholds.clone(),
            fusion: engine.fusion_rule().clone(),
        }
    }
}

/// A cluster of two or more documents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterInfo {
    /// Members; the representative first, then by [`Rank`].
    pub members: Vec<DocId>,
    /// The weakest link: its two ends and its strength in [0, 1] (the
    /// cluster-by algorithm's similarity; for fusion, the share of
    /// algorithms that agree).
    pub weakest: Option<(DocId, DocId, f64)>,
    /// Algorithms that pass on every link of the cluster.
    pub agreeing: Vec<AlgorithmId>,
    /// Some algorithm passes on some links but not on others.
    pub disagreement: bool,
}

impl ClusterInfo {
    /// The member that stands for the cluster (the first).
    pub fn representative(&self) -> DocId {
        self.members[0]
    }
}

/// A verified pair and what the current spec says about it.
#[derive(Debug, Clone)]
pub struct Link {
    /// The smaller id.
    pub a: DocId,
    /// The larger id.
    pub b: DocId,
    /// The algorithms whose threshold the pair passes.
    pub passing: AlgorithmSet,
    /// How strong the link is, in [0, 1].
    pub strength: f64,
}

/// The order of a cluster's members, smallest first: keepers before the
/// rest, then by arrival, then by id. The first member represents.
pub type Rank = (bool, u64, DocId);

/// Disjoint sets over `0..n` with path halving and union by size.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    /// `n` sets of one.
    pub fn new(n: usize) -> Self {
        Self {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    /// The representative of `x`'s set.
    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Join the sets of `a` and `b`.
    pub fn union(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
    }
}

/// Judge one kept pair: the passing algorithms, and whether it links its
/// documents under `by` (a curator's verdict decides first).
pub fn judge_row(
    row: &PairRow,
    judge: &Judge,
    by: ClusterBy,
    curator: Option<CuratorVerdict>,
) -> Option<Link> {
    let passing = judge.passing(row);
    let linked = match curator {
        Some(CuratorVerdict::Duplicate) => true,
        Some(CuratorVerdict::NotDuplicate) => false,
        None => match by {
            ClusterBy::Fusion => judge.fusion(row, passing),
            ClusterBy::Algorithm(id) => passing.contains(id),
        },
    };
    if !linked {
        return None;
    }
    let strength = match by {
        ClusterBy::Fusion => passing.len() as f64 / row.scored().max(1) as f64,
        ClusterBy::Algorithm(id) => row.similarity(id).unwrap_or(0.0),
    };
    Some(Link {
        a: row.a,
        b: row.b,
        passing,
        strength,
    })
}

/// Every linking pair of `pairs` under `spec`, sorted by (a, b); `curator`
/// holds the verdicts between held documents by ordered ids. A curator's
/// "duplicate" links documents no algorithm paired.
pub fn links(
    pairs: &PairTable,
    curator: &HashMap<(DocId, DocId), CuratorVerdict>,
    spec: &ClusterSpec,
) -> Vec<Link> {
    let judge = Judge::new(&spec.thresholds, &spec.fusion);
    let mut links: Vec<Link> = pairs
        .par_rows()
        .filter_map(|row| {
            let verdict = if curator.is_empty() {
                None
            } else {
                curator.get(&(row.a, row.b)).copied()
            };
            judge_row(row, &judge, spec.by, verdict)
        })
        .collect();
    for (&(a, b), &v) in curator {
        if v == CuratorVerdict::Duplicate && a != b && !pairs.contains(a, b) {
            links.push(Link {
                a,
                b,
                passing: AlgorithmSet::default(),
                strength: 1.0,
            });
        }
    }
    links.par_sort_unstable_by_key(|l| (l.a, l.b));
    links
}

/// The clusters `links` make among documents with ids below `id_bound`,
/// largest first (then by their representatives' [`Rank`]).
pub fn clusters(
    links: &[Link],
    id_bound: usize,
    mode: ClusterMode,
    rank: impl Fn(DocId) -> Rank + Sync,
) -> Vec<ClusterInfo> {
    const NONE: u32 = u32::MAX;
    // Group number of each linked document, by dense id.
    let mut group_of = vec![NONE; id_bound];
    let mut groups: Vec<Vec<DocId>> = Vec::new();
    match mode {
        ClusterMode::Components => {
            let mut uf = UnionFind::new(id_bound);
            for l in links {
                uf.union(l.a as usize, l.b as usize);
            }
            let mut group_of_root = vec![NONE; id_bound];
            for l in links {
                for id in [l.a, l.b] {
                    if group_of[id as usize] != NONE {
                        continue;
                    }
                    let root = uf.find(id as usize);
                    if group_of_root[root] == NONE {
                        group_of_root[root] = groups.len() as u32;
                        groups.push(Vec::new());
                    }
                    group_of[id as usize] = group_of_root[root];
                    groups[group_of_root[root] as usize].push(id);
                }
            }
        }
        ClusterMode::Star => {
            let mut adjacency: HashMap<DocId, Vec<DocId>> = HashMap::new();
            for l in links {
                adjacency.entry(l.a).or_default().push(l.b);
                adjacency.entry(l.b).or_default().push(l.a);
            }
            let mut order: Vec<Rank> = adjacency.keys().map(|&id| rank(id)).collect();
            order.sort_unstable();
            for (_, _, centre) in order {
                if group_of[centre as usize] != NONE {
                    continue;
                }
                let g = groups.len() as u32;
                group_of[centre as usize] = g;
                let mut group = vec![centre];
                for &n in &adjacency[&centre] {
                    if group_of[n as usize] == NONE {
                        group_of[n as usize] = g;
                        group.push(n);
                    }
                }
                groups.push(group);
            }
        }
    }
    // Each link belongs to the group holding both its ends (in star mode
    // a link may join two groups and then describes neither).
    let mut inner: Vec<Vec<&Link>> = vec![Vec::new(); groups.len()];
    for l in links {
        let (ga, gb) = (group_of[l.a as usize], group_of[l.b as usize]);
        if ga == gb && ga != NONE {
            inner[ga as usize].push(l);
        }
    }
    let mut clusters: Vec<(ClusterInfo, Rank)> = groups
        .into_par_iter()
        .zip(inner)
        .filter_map(|(members, inner)| {
            let mut members: Vec<Rank> = members.into_iter().map(&rank).collect();
            members.sort_unstable();
            members.dedup();
            (members.len() > 1).then(|| {
                let first = members[0];
                let members = members.into_iter().map(|(_, _, id)| id).collect();
                (describe(members, &inner), first)
            })
        })
        .collect();
    clusters.par_sort_unstable_by(|(a, pa), (b, pb)| {
        b.members.len().cmp(&a.members.len()).then(pa.cmp(pb))
    });
    clusters.into_iter().map(|(c, _)| c).collect()
}

/// Summarize a cluster from its members and the links inside it.
fn describe(members: Vec<DocId>, inner: &[&Link]) -> ClusterInfo {
    let weakest = inner
        .iter()
        .min_by(|x, y| x.strength.total_cmp(&y.strength))
        .map(|l| (l.a, l.b, l.strength));
    let mut agreeing: Option<AlgorithmSet> = None;
    let mut any = AlgorithmSet::default();
    for l in inner {
        any = any.union(l.passing);
        agreeing = Some(agreeing.map_or(l.passing, |a| a.intersection(l.passing)));
    }
    let agreeing = agreeing.unwrap_or_default();
    ClusterInfo {
        disagreement: agreeing != any,
        members,
        weakest,
        agreeing: agreeing.iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(a: DocId, b: DocId) -> Link {
        Link {
            a,
            b,
            passing: AlgorithmSet::default(),
            strength: 1.0,
        }
    }

    fn members(clusters: &[ClusterInfo]) -> Vec<Vec<DocId>> {
        clusters.iter().map(|c| c.members.clone()).collect()
    }

    #[test]
    fn components_chain_and_star_does_not() {
        // 0~1, 1~2, 4~5: a chain and a pair.
        let links = [link(0, 1), link(1, 2), link(4, 5)];
        let by_id = |id: DocId| (false, u64::from(id), id);
        assert_eq!(
            members(&clusters(&links, 6, ClusterMode::Components, by_id)),
            [vec![0, 1, 2], vec![4, 5]]
        );
        // The star around 0 takes 1 only; 2 is left with nobody.
        assert_eq!(
            members(&clusters(&links, 6, ClusterMode::Star, by_id)),
            [vec![0, 1], vec![4, 5]]
        );
    }

    #[test]
    fn a_keeper_represents_its_cluster() {
        let links = [link(0, 1), link(1, 2)];
        let rank = |id: DocId| (id != 2, u64::from(id), id);
        let found = clusters(&links, 3, ClusterMode::Components, rank);
        assert_eq!(found[0].representative(), 2);
    }
}
