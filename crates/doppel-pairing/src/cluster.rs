//! From judged pairs to clusters.
//!
//! [`links`] judges every kept pair under a [`ClusterSpec`] (thresholds,
//! the fusion rule or one algorithm, and the curator's verdicts first),
//! each with its relation, and [`clusters`] groups the links. Duplicate
//! links make groups: connected components (union-find), or star
//! clustering, where every member is directly linked to its centre so a
//! chain never joins unrelated documents. A `contains` link never makes
//! two documents duplicates: each group that is a part joins the group of
//! its tightest whole (the smallest document it sits in), a containment
//! tree, so two disjoint parts of one whole share its cluster as parts of
//! it, never as duplicates of each other, and a dump holding every file is
//! a whole with its parts, not a chain. Each member has its [`Role`]; each
//! cluster is described by its weakest link and the algorithms that agree
//! on all its links. The order of members (representative first) is the
//! caller's ([`Rank`]).

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::pairs::{Judge, PairRow, PairTable};
use doppel_core::doc::{CuratorVerdict, DocId};
use doppel_core::engine::algo::{AlgorithmId, AlgorithmSet};
use doppel_core::engine::{Containments, Engine, FusionRule, Relation, Side, Thresholds};

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
    /// Each member's role, in the order of `members`.
    pub roles: Vec<Role>,
}

/// What a member is in its cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "role", content = "of")]
pub enum Role {
    /// The head of the cluster's outermost group: the whole the others sit
    /// in, or the document they duplicate.
    Head,
    /// A duplicate of this member (the head of its group).
    DuplicateOf(DocId),
    /// A part of this member (the smallest whole it sits in).
    PartOf(DocId),
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
    /// What the two are to each other, oriented from `a` (`None` for a
    /// link the curator made between documents no algorithm paired).
    pub relation: Option<Relation>,
    /// The shingle containments, oriented from `a`.
    pub containments: Option<Containments>,
}

impl Link {
    /// `(part, whole)` when the link is a part inside its whole.
    pub fn part_whole(&self) -> Option<(DocId, DocId)> {
        match self.relation? {
            Relation::Contains { whole: Side::A } => Some((self.b, self.a)),
            Relation::Contains { whole: Side::B } => Some((self.a, self.b)),
            _ => None,
        }
    }
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
    let fusion = judge.fusion(row, passing);
    let linked = match curator {
        Some(CuratorVerdict::Duplicate) => true,
        Some(CuratorVerdict::NotDuplicate) => false,
        None => match by {
            ClusterBy::Fusion => fusion,
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
    // The curator's "duplicate" overrules a containment; otherwise a link
    // is whatever the pair is, a duplicate when the relation says nothing.
    let relation = match (curator, judge.relation(row, fusion)) {
        (Some(CuratorVerdict::Duplicate), _) | (None, None | Some(Relation::Related)) => {
            Relation::Duplicate
        }
        (_, Some(r)) => r,
        (_, None) => Relation::Duplicate,
    };
    Some(Link {
        a: row.a,
        b: row.b,
        passing,
        strength,
        relation: Some(relation),
        containments: row.containments(),
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
        if !pairs.contains(a, b) {
            links.extend(curator_link(a, b, v));
        }
    }
    links.par_sort_unstable_by_key(|l| (l.a, l.b));
    links
}

/// The link the curator's verdict `v` makes between two documents no kept
/// pair holds: "duplicate" links them.
fn curator_link(a: DocId, b: DocId, v: CuratorVerdict) -> Option<Link> {
    (v == CuratorVerdict::Duplicate && a != b).then_some(Link {
        a,
        b,
        passing: AlgorithmSet::default(),
        strength: 1.0,
        relation: None,
        containments: None,
    })
}

/// [`links`] brought up to date from `old`, the links under the same
/// `spec` and `curator` verdicts before the pairs `touched` (a < b) were
/// inserted, replaced or removed: only those are judged again, the rest
/// are copied, so a snapshot after one file's arrival costs a copy of the
/// links, not a judgement of every kept pair.
pub fn relink(
    old: &[Link],
    pairs: &PairTable,
    curator: &HashMap<(DocId, DocId), CuratorVerdict>,
    spec: &ClusterSpec,
    mut touched: Vec<(DocId, DocId)>,
) -> Vec<Link> {
    touched.sort_unstable();
    touched.dedup();
    let judge = Judge::new(&spec.thresholds, &spec.fusion);
    let fresh = touched.iter().filter_map(|&(a, b)| {
        let verdict = curator.get(&(a, b)).copied();
        match pairs.get(a, b) {
            Some(row) => judge_row(row, &judge, spec.by, verdict),
            None => curator_link(a, b, verdict?),
        }
    });
    let kept = old
        .iter()
        .filter(|l| touched.binary_search(&(l.a, l.b)).is_err())
        .cloned();
    let mut links = Vec::with_capacity(old.len() + touched.len());
    let (mut kept, mut fresh) = (kept.peekable(), fresh.peekable());
    loop {
        let take_kept = match (kept.peek(), fresh.peek()) {
            (Some(k), Some(f)) => (k.a, k.b) < (f.a, f.b),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        links.extend(if take_kept { kept.next() } else { fresh.next() });
    }
    links
}

/// The clusters `links` make among documents with ids below `id_bound`,
/// largest first (then by their representatives' [`Rank`]): groups of
/// duplicates, each group that is a part joined to the group of its
/// tightest whole.
pub fn clusters(
    links: &[Link],
    id_bound: usize,
    mode: ClusterMode,
    rank: impl Fn(DocId) -> Rank + Sync,
) -> Vec<ClusterInfo> {
    let duplicates: Vec<&Link> = links.iter().filter(|l| l.part_whole().is_none()).collect();
    let (mut group_of, mut groups) = duplicate_groups(&duplicates, id_bound, mode, &rank);
    // A part or whole linked to no duplicate is a group of its own.
    for l in links.iter().filter(|l| l.part_whole().is_some()) {
        for id in [l.a, l.b] {
            if group_of[id as usize] == NONE {
                group_of[id as usize] = groups.len() as u32;
                groups.push(vec![id]);
            }
        }
    }
    // Each group that is a part hangs from its tightest whole: the part
    // link (from one of its members into another group) whose whole is
    // the smallest, i.e. whose size ratio is the largest.
    let mut parent: Vec<Option<(DocId, DocId, f64)>> = vec![None; groups.len()];
    for l in links {
        let Some((part, whole)) = l.part_whole() else {
            continue;
        };
        let (gp, gw) = (group_of[part as usize], group_of[whole as usize]);
        if gp == gw {
            continue;
        }
        let ratio = l.containments.and_then(|c| c.size_ratio()).unwrap_or(0.0);
        let tighter = match parent[gp as usize] {
            None => true,
            Some((_, w, r)) => ratio > r || (ratio == r && rank(whole) < rank(w)),
        };
        if tighter {
            parent[gp as usize] = Some((part, whole, ratio));
        }
    }
    // Groups joined along the chosen part links make the clusters.
    let mut uf = UnionFind::new(groups.len());
    for (g, p) in parent.iter().enumerate() {
        if let Some((_, whole, _)) = p {
            uf.union(g, group_of[*whole as usize] as usize);
        }
    }
    let mut cluster_of_root = vec![NONE; groups.len()];
    let mut members_of: Vec<Vec<(DocId, Role)>> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let root = uf.find(g);
        if cluster_of_root[root] == NONE {
            cluster_of_root[root] = members_of.len() as u32;
            members_of.push(Vec::new());
        }
        let members = &mut members_of[cluster_of_root[root] as usize];
        // The group's head: its member inside the whole, else its first.
        let head = match parent[g] {
            Some((part, _, _)) => part,
            None => *group
                .iter()
                .min_by_key(|&&id| rank(id))
                .expect("groups are not empty"),
        };
        for &id in group {
            let role = match parent[g] {
                Some((part, whole, _)) if part == id => Role::PartOf(whole),
                None if id == head => Role::Head,
                _ => Role::DuplicateOf(head),
            };
            members.push((id, role));
        }
    }
    // Each link belongs to the cluster holding both its ends (in star mode
    // a link may join two groups and then describes neither).
    let mut inner: Vec<Vec<&Link>> = vec![Vec::new(); members_of.len()];
    for l in links {
        let (ga, gb) = (group_of[l.a as usize], group_of[l.b as usize]);
        if ga == NONE || gb == NONE {
            continue;
        }
        let (ca, cb) = (
            cluster_of_root[uf.find(ga as usize)],
            cluster_of_root[uf.find(gb as usize)],
        );
        if ca == cb {
            inner[ca as usize].push(l);
        }
    }
    let mut clusters: Vec<(ClusterInfo, Rank)> = members_of
        .into_par_iter()
        .zip(inner)
        .filter_map(|(members, inner)| {
            // The whole and its copies first, then the parts: the whole
            // represents its parts unless the curator kept another member.
            let part_of: HashMap<DocId, bool> = members
                .iter()
                .map(|&(id, role)| (id, matches!(role, Role::PartOf(_))))
                .collect();
            let in_part = |role: Role| match role {
                Role::Head => false,
                Role::PartOf(_) => true,
                Role::DuplicateOf(head) => part_of.get(&head).copied().unwrap_or(false),
            };
            let mut members: Vec<(Rank, Role)> =
                members.iter().map(|&(id, role)| (rank(id), role)).collect();
            members.sort_unstable_by_key(|&(r, role)| (r.0, in_part(role), r));
            members.dedup_by_key(|m| m.0);
            (members.len() > 1).then(|| {
                let first = members[0].0;
                let roles = members.iter().map(|m| m.1).collect();
                let members = members.into_iter().map(|((_, _, id), _)| id).collect();
                (describe(members, roles, &inner), first)
            })
        })
        .collect();
    clusters.par_sort_unstable_by(|(a, pa), (b, pb)| {
        b.members.len().cmp(&a.members.len()).then(pa.cmp(pb))
    });
    clusters.into_iter().map(|(c, _)| c).collect()
}

/// No group.
const NONE: u32 = u32::MAX;

/// Groups of duplicates: the group number of each linked document by
/// dense id, and each group's members.
fn duplicate_groups(
    links: &[&Link],
    id_bound: usize,
    mode: ClusterMode,
    rank: &(impl Fn(DocId) -> Rank + Sync),
) -> (Vec<u32>, Vec<Vec<DocId>>) {
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
    (group_of, groups)
}

/// Summarize a cluster from its members and the links inside it.
fn describe(members: Vec<DocId>, roles: Vec<Role>, inner: &[&Link]) -> ClusterInfo {
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
        roles,
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
            relation: Some(Relation::Duplicate),
            containments: None,
        }
    }

    /// `part` sits inside `whole`, `ratio` of its size.
    fn part(part: DocId, whole: DocId, ratio: f64) -> Link {
        let (a, b) = (part.min(whole), part.max(whole));
        let (in_whole, whole_in) = (0.95, 0.95 * ratio);
        let (containments, side) = if part == a {
            ((in_whole, whole_in), Side::B)
        } else {
            ((whole_in, in_whole), Side::A)
        };
        Link {
            a,
            b,
            passing: AlgorithmSet::default(),
            strength: 1.0,
            relation: Some(Relation::Contains { whole: side }),
            containments: Some(Containments {
                a_in_b: containments.0,
                b_in_a: containments.1,
            }),
        }
    }

    fn roles(cluster: &ClusterInfo) -> Vec<(DocId, Role)> {
        cluster
            .members
            .iter()
            .copied()
            .zip(cluster.roles.iter().copied())
            .collect()
    }

    #[test]
    fn disjoint_parts_are_parts_of_their_whole_never_duplicates() {
        // 0 is a book, 3 its scan; 1 and 2 two disjoint chapters of it
        // (each inside the book and the scan).
        let mut links = vec![
            link(0, 3),
            part(1, 0, 0.1),
            part(2, 0, 0.1),
            part(1, 3, 0.1),
            part(2, 3, 0.1),
        ];
        links.sort_by_key(|l| (l.a, l.b));
        let by_id = |id: DocId| (false, u64::from(id), id);
        for mode in [ClusterMode::Components, ClusterMode::Star] {
            let found = clusters(&links, 4, mode, by_id);
            assert_eq!(found.len(), 1, "{mode:?}");
            assert_eq!(
                roles(&found[0]),
                // The whole and its copy first, then the parts.
                [
                    (0, Role::Head),
                    (3, Role::DuplicateOf(0)),
                    (1, Role::PartOf(0)),
                    (2, Role::PartOf(0)),
                ],
                "{mode:?}"
            );
        }
    }

    #[test]
    fn a_dump_of_everything_is_a_whole_with_parts_not_a_chain() {
        // 9 holds every other file; 0 and 1 are one book twice, 2 a
        // chapter of it, 3 and 4 unrelated books.
        let mut links = vec![link(0, 1), part(2, 0, 0.1), part(2, 1, 0.1)];
        for (id, ratio) in [(0, 0.3), (1, 0.3), (2, 0.03), (3, 0.2), (4, 0.25)] {
            links.push(part(id, 9, ratio));
        }
        links.sort_by_key(|l| (l.a, l.b));
        let by_id = |id: DocId| (false, u64::from(id), id);
        let found = clusters(&links, 10, ClusterMode::Components, by_id);
        assert_eq!(found.len(), 1);
        let roles: HashMap<DocId, Role> = roles(&found[0]).into_iter().collect();
        assert_eq!(roles[&9], Role::Head);
        assert_eq!(roles[&0], Role::PartOf(9));
        assert_eq!(roles[&1], Role::DuplicateOf(0));
        // The chapter hangs from its book, the tightest whole.
        assert_eq!(roles[&2], Role::PartOf(0));
        assert_eq!(roles[&3], Role::PartOf(9));
        assert_eq!(roles[&4], Role::PartOf(9));
        let duplicates = roles
            .values()
            .filter(|r| matches!(r, Role::DuplicateOf(_)))
            .count();
        assert_eq!(duplicates, 1, "only the book's copy duplicates anything");
    }

    #[test]
    fn a_poem_in_two_anthologies_does_not_join_them() {
        let links = [part(0, 1, 0.2), part(0, 2, 0.1)];
        let by_id = |id: DocId| (false, u64::from(id), id);
        let found = clusters(&links, 3, ClusterMode::Components, by_id);
        // The anthology represents the poem, which arrived first.
        assert_eq!(members(&found), [vec![1, 0]], "the tighter anthology only");
        assert_eq!(roles(&found[0]), [(1, Role::Head), (0, Role::PartOf(1))]);
    }

    #[test]
    fn a_whole_represents_its_parts_unless_a_part_is_kept() {
        // 0 and 1 two chapters (arrived first), 2 their book, 3 the book's
        // copy: the book heads, its copy follows, the chapters come last.
        let links = [part(0, 2, 0.4), part(1, 2, 0.4), link(2, 3)];
        let by_id = |id: DocId| (false, u64::from(id), id);
        let found = clusters(&links, 4, ClusterMode::Components, by_id);
        assert_eq!(members(&found), [vec![2, 3, 0, 1]]);
        // A chapter the curator kept represents the cluster.
        let kept_1 = |id: DocId| (id != 1, u64::from(id), id);
        let found = clusters(&links, 4, ClusterMode::Components, kept_1);
        assert_eq!(members(&found), [vec![1, 2, 3, 0]]);
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
