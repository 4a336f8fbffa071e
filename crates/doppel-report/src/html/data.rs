//! What the HTML report says, apart from how it looks: the clusters with
//! their members, each pair inside a cluster with every algorithm's score,
//! the curator's verdicts and keeper marks, and (filled in later) where
//! each pair with a paged side matches, with its page images
//! ([`Report::attach_places`]), and each pair's word diff
//! ([`super::pair_diff`]).
//!
//! Two adapters fill it: [`Report::from_scan`] from a [`ScanReport`] (the
//! `doppel report` command; every kept pair inside a cluster) and
//! [`Report::from_snapshot`] from the review screen's [`Snapshot`] (its
//! export; each member against its representative, as the screen shows
//! them). Nothing else here knows either type.

use std::collections::HashMap;
use std::path::Path;

use crate::format_threshold;
use doppel_core::doc::{CuratorVerdict, DocId, DocPath};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::{Relation, Side, Thresholds};
use doppel_index::boilerplate::BoilerplateReport;
use doppel_index::places::{PairPages, Places};
use doppel_index::scan::ScanReport;
use doppel_index::worker::protocol::Snapshot;
use doppel_pairing::cluster::{ClusterBy, ClusterMode, ClusterSpec, Role};
use doppel_pairing::library::CuratorMark;

use super::pair_diff::PairDiff;

/// The whole report.
#[derive(Debug, Clone)]
pub struct Report {
    /// The folder scanned, as shown (escaped as a document's name is).
    pub root: String,
    /// How clusters were formed, in words (`fusion: ≥ 2 algorithms agree`).
    pub rule: String,
    /// `components` or `star`.
    pub mode: &'static str,
    /// The algorithms scored, in [`AlgorithmId::ALL`] order, with their
    /// threshold in words (`≥ 0.20`, `≤ 10`).
    pub algorithms: Vec<(AlgorithmId, String)>,
    /// Documents indexed.
    pub documents: usize,
    /// Pairs the report prints among them (passing a threshold or
    /// carrying a relation: [`doppel_index::scan::ScanReport::pairs`]).
    pub pairs: usize,
    /// The clusters, in the scan's order.
    pub clusters: Vec<Cluster>,
    /// Files not indexed, with why.
    pub skipped: Vec<(DocPath, String)>,
    /// Said once, above the clusters, when diffs were left out for size.
    pub diff_note: Option<String>,
}

/// One cluster, numbered as the scan's JSON numbers it (1-based, in order).
#[derive(Debug, Clone)]
pub struct Cluster {
    /// Its number (the scan JSON's `id`).
    pub id: usize,
    /// The representative first.
    pub members: Vec<Member>,
    /// Algorithms that pass on every link.
    pub agreeing: Vec<AlgorithmId>,
    /// Some algorithm passes on some links and not on others.
    pub disagreement: bool,
    /// A member is a part of another (the source knows roles: a scan).
    pub has_parts: bool,
    /// The weakest link's strength in [0, 1].
    pub weakest: Option<f64>,
    /// Pairs of members, those with the representative first.
    pub pairs: Vec<Pair>,
    /// Pairs of members not listed (see [`Report::keep_pairs`]).
    pub pairs_left_out: usize,
}

/// A document of a cluster.
#[derive(Debug, Clone)]
pub struct Member {
    /// The document (shown in its display form, opened by its bytes).
    pub path: DocPath,
    /// The curator marked it as the one to keep.
    pub keep: bool,
    /// What it is in the cluster, in words ("duplicate", "part of
    /// b.txt", "the whole"), where the source knows (a scan does; the
    /// review screen's snapshot does not).
    pub role: Option<String>,
}

/// Two members and what doppel and the curator say about them.
#[derive(Debug, Clone)]
pub struct Pair {
    /// The first document (the representative, when it is in the pair).
    pub a: DocPath,
    /// The second document.
    pub b: DocPath,
    /// Every computed algorithm's score (in [`AlgorithmId::ALL`] order)
    /// and whether it passes its threshold.
    pub scores: Vec<(AlgorithmId, Score, bool)>,
    /// The fusion verdict, where the source knows it.
    pub fusion: Option<bool>,
    /// The smaller document's share of shingles found in the larger.
    pub containment: Option<f64>,
    /// The verdict the curators agree on.
    pub verdict: Option<CuratorVerdict>,
    /// Each curator's verdict, oldest first, where the source knows them
    /// (a scan does; the review screen's snapshot only knows
    /// [`Pair::disputed`]).
    pub curators: Vec<CuratorMark>,
    /// The curators' verdicts differ (the pair counts as undecided).
    pub disputed: bool,
    /// How the two relate ("duplicate", "A ⊂ B" for a part and its whole,
    /// "related"); shown as a column when any pair has one (the TUI's
    /// snapshot does not carry it).
    pub relation: Option<String>,
    /// Where each side matches and its matched pages' images, when a side
    /// has pages (a scan, an ALTO file, …); `None` for a plain-text pair
    /// or until [`Report::attach_places`].
    pub place: Option<PairPages>,
    /// The word diff of A against B, or why there is none.
    pub diff: DiffCell,
}

/// A pair's diff, or why there is none.
#[derive(Debug, Clone)]
pub enum DiffCell {
    /// Not computed (yet).
    Pending,
    /// The diff, shaped for the page.
    Shown(Box<PairDiff>),
    /// Left out (size limits) or failed (a file could not be read): why.
    Missing(String),
}

/// A folder as shown: escaped as a document's name is (control
/// characters, bytes that are not UTF-8), never lossily.
fn folder_shown(root: &Path) -> String {
    DocPath::from_relative(root).to_string()
}

/// The rule clusters were formed by, in words.
pub fn rule_words(spec: &ClusterSpec) -> String {
    match spec.by {
        ClusterBy::Fusion => format!("fusion: {}", spec.fusion.describe()),
        ClusterBy::Algorithm(id) => {
            format!("{id} {}", format_threshold(id, spec.thresholds.get(id)))
        }
    }
}

fn mode_name(mode: ClusterMode) -> &'static str {
    match mode {
        ClusterMode::Components => "components",
        ClusterMode::Star => "star",
    }
}

/// Scores in [`AlgorithmId::ALL`] order, each with whether it passes.
fn judged(
    scores: &doppel_core::engine::PairScores,
    thresholds: &Thresholds,
) -> Vec<(AlgorithmId, Score, bool)> {
    AlgorithmId::ALL
        .iter()
        .filter_map(|id| {
            let score = *scores.get(id)?;
            Some((*id, score, score.passes(thresholds.get(*id))))
        })
        .collect()
}

/// The algorithms that appear in any pair, with their thresholds.
fn algorithms_of(clusters: &[Cluster], thresholds: &Thresholds) -> Vec<(AlgorithmId, String)> {
    AlgorithmId::ALL
        .iter()
        .filter(|id| {
            clusters
                .iter()
                .flat_map(|c| &c.pairs)
                .any(|p| p.scores.iter().any(|(s, _, _)| s == *id))
        })
        .map(|&id| (id, format_threshold(id, thresholds.get(id))))
        .collect()
}

/// A pair's relation for the pairs table: "duplicate", "A ⊂ B" (A is a
/// part of B), "B ⊂ A" or "related".
fn relation_words(relation: Relation) -> String {
    match relation {
        Relation::Contains { whole: Side::B } => "A ⊂ B".to_owned(),
        Relation::Contains { whole: Side::A } => "B ⊂ A".to_owned(),
        other => other.as_str().to_owned(),
    }
}

/// A member's role in words, `path` naming the member it refers to, in a
/// cluster that `has_parts` or not (then its head is what the others
/// duplicate, not a whole).
fn role_words(role: Role, has_parts: bool, path: impl Fn(DocId) -> String) -> String {
    match role {
        Role::Head if has_parts => "the whole the others sit in".to_owned(),
        Role::Head => "the text the others duplicate".to_owned(),
        Role::DuplicateOf(of) => format!("duplicate of {}", path(of)),
        Role::PartOf(of) => format!("part of {}", path(of)),
    }
}

impl Report {
    /// The report of a scan of `root`: every cluster with every kept pair
    /// inside it (those the scan's JSON gives the cluster's id), verdicts
    /// and keeper marks from the library. Diffs are left
    /// [`DiffCell::Pending`].
    pub fn from_scan(scan: &ScanReport, root: &Path) -> Self {
        let lib = &scan.library;
        let spec = &scan.spec;
        let cluster_paths = scan.cluster_paths();
        let cluster_of: HashMap<&DocPath, usize> = cluster_paths
            .iter()
            .enumerate()
            .flat_map(|(n, members)| members.iter().map(move |m| (m, n)))
            .collect();
        let mut pairs: Vec<Vec<Pair>> = vec![Vec::new(); cluster_paths.len()];
        for p in scan.pairs() {
            let (Some(&ca), Some(&cb)) = (cluster_of.get(&p.a), cluster_of.get(&p.b)) else {
                continue;
            };
            if ca != cb {
                continue;
            }
            pairs[ca].push(Pair {
                scores: judged(&p.scores, &spec.thresholds),
                fusion: Some(p.verdict.fusion),
                containment: p.verdict.containment,
                verdict: lib.pair_verdict(&p.a, &p.b),
                curators: lib.pair_marks(&p.a, &p.b).to_vec(),
                disputed: lib.is_disputed(&p.a, &p.b),
                relation: p.verdict.relation.map(relation_words),
                place: None,
                diff: DiffCell::Pending,
                a: p.a,
                b: p.b,
            });
        }
        let clusters: Vec<Cluster> = scan
            .clusters
            .iter()
            .zip(cluster_paths)
            .zip(pairs)
            .enumerate()
            .map(|(n, ((info, paths), mut pairs))| {
                let rep = &paths[0];
                // Stable: pairs with the representative first, each group
                // in path order.
                pairs.sort_by_key(|p| p.a != *rep && p.b != *rep);
                let shown = |id| lib.doc(id).map(|d| d.path.to_string()).unwrap_or_default();
                let has_parts = info.roles.iter().any(|r| matches!(r, Role::PartOf(_)));
                Cluster {
                    id: n + 1,
                    members: paths
                        .iter()
                        .zip(&info.roles)
                        .enumerate()
                        .map(|(m, (path, &role))| Member {
                            keep: lib.is_keeper(path),
                            path: path.clone(),
                            // The head is the representative unless a keeper
                            // mark put another first; it is "the whole" only
                            // when the cluster has parts.
                            role: match role {
                                Role::Head if m == 0 && !has_parts => None,
                                Role::DuplicateOf(of)
                                    if Some(of) == info.members.first().copied() =>
                                {
                                    Some("duplicate of the representative".to_owned())
                                }
                                role => Some(role_words(role, has_parts, shown)),
                            },
                        })
                        .collect(),
                    agreeing: info.agreeing.clone(),
                    disagreement: info.disagreement,
                    has_parts,
                    weakest: info.weakest.map(|(_, _, w)| w),
                    pairs,
                    pairs_left_out: 0,
                }
            })
            .collect();
        Self {
            root: folder_shown(root),
            rule: rule_words(spec),
            mode: mode_name(spec.mode),
            algorithms: algorithms_of(&clusters, &spec.thresholds),
            documents: scan.docs.iter().filter(|d| d.skipped.is_none()).count(),
            pairs: scan.reported_count(),
            clusters,
            skipped: scan
                .docs
                .iter()
                .filter_map(|d| Some((d.path.clone(), d.skipped.as_ref()?.to_string())))
                .collect(),
            diff_note: None,
        }
    }

    /// List at most `per_cluster` pairs of each cluster, those with the
    /// representative first: a cluster of n near-copies has up to
    /// n(n − 1)/2 pairs, and the page must stay small.
    pub fn keep_pairs(&mut self, per_cluster: usize) {
        for cluster in &mut self.clusters {
            if cluster.pairs.len() > per_cluster {
                cluster.pairs_left_out += cluster.pairs.len() - per_cluster;
                cluster.pairs.truncate(per_cluster);
            }
        }
    }

    /// Find where each listed pair with a paged side matches, and its
    /// matched pages' images, reading the files under `root` again with
    /// the boilerplate `learned` left out (as the text report's places).
    /// Call it after [`Self::keep_pairs`]: only listed pairs are read.
    pub fn attach_places(&mut self, root: &Path, learned: &BoilerplateReport) {
        let places = Places::new(root);
        for pair in self.clusters.iter_mut().flat_map(|c| &mut c.pairs) {
            pair.place = places.pages_of_pair(learned, &pair.a, &pair.b);
        }
    }

    /// The report of what the review screen shows: each member against
    /// its representative (members linked only through another member
    /// have no pair), with the curator's `verdict` of each pair.
    pub fn from_snapshot(
        snap: &Snapshot,
        root: &Path,
        verdict: &dyn Fn(&DocPath, &DocPath) -> Option<CuratorVerdict>,
    ) -> Self {
        let spec = &snap.spec;
        let clusters: Vec<Cluster> = snap
            .clusters
            .iter()
            .enumerate()
            .map(|(n, c)| {
                // A cluster always has members; an empty one has no pairs.
                let rep = c
                    .members
                    .first()
                    .map(|m| m.path.clone())
                    .unwrap_or_default();
                let pairs = c
                    .members
                    .iter()
                    .skip(1)
                    .filter_map(|m| {
                        let scores = m.scores.as_ref()?;
                        Some(Pair {
                            a: rep.clone(),
                            b: m.path.clone(),
                            scores: judged(scores, &spec.thresholds),
                            fusion: None,
                            containment: scores
                                .get(&AlgorithmId::Shingle)
                                .and_then(Score::containment),
                            verdict: verdict(&rep, &m.path),
                            curators: Vec::new(),
                            disputed: m.disputed,
                            relation: None,
                            place: None,
                            diff: DiffCell::Pending,
                        })
                    })
                    .collect();
                Cluster {
                    id: n + 1,
                    members: c
                        .members
                        .iter()
                        .map(|m| Member {
                            path: m.path.clone(),
                            keep: m.keeper,
                            role: None,
                        })
                        .collect(),
                    agreeing: c.agreeing.clone(),
                    disagreement: c.disagreement,
                    has_parts: false,
                    weakest: c.weakest,
                    pairs,
                    pairs_left_out: 0,
                }
            })
            .collect();
        Self {
            root: folder_shown(root),
            rule: rule_words(spec),
            mode: mode_name(spec.mode),
            algorithms: algorithms_of(&clusters, &spec.thresholds),
            documents: snap.documents,
            pairs: snap.pairs,
            clusters,
            skipped: snap.skipped.clone(),
            diff_note: None,
        }
    }
}
