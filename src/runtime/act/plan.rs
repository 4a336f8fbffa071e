//! The plan: which files of which clusters would move. Every member of a
//! cluster but the kept ones (those the curator marked as keepers, else
//! the representative) is marked, and checked against what the index
//! recorded when it read it (size, mtime, content hash): a file changed
//! or gone since is named and not moved.

use std::collections::BTreeMap;
use std::path::Path;

use crate::doc::{DocPath, FileIdentity};
use crate::engine::Engine;
use crate::pairing::cluster::ClusterSpec;
use crate::pairing::library::LibraryConfig;
use crate::runtime::index::FolderIndex;
use crate::runtime::scan::ScanReport;
use crate::runtime::store::content_hash;

use super::Result;

/// What the index recorded of a file when it read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// Its `stat` identity then.
    pub identity: FileIdentity,
    /// xxh3-64 of its bytes then.
    pub content_hash: u64,
}

/// A folder's clusters and decisions as its index holds them, with what
/// the index recorded of every file.
#[derive(Debug)]
pub struct Decisions {
    /// The clusters, keeper marks and pair verdicts.
    pub report: ScanReport,
    /// Every document's recorded identity and hash, by path.
    pub recorded: BTreeMap<DocPath, Recorded>,
}

/// Open the index of `root` and read its decisions as the curator last saw
/// them: no file of the folder is read, so a file changed since is told by
/// [`plan`] rather than silently fingerprinted anew.
pub fn open_decisions(
    root: &Path,
    engine: Engine,
    library_config: LibraryConfig,
    spec: ClusterSpec,
    index_path: Option<&Path>,
) -> Result<Decisions> {
    let (index, _opened) = FolderIndex::open(root, engine, library_config, index_path)?;
    let recorded = index
        .store()
        .documents_without_blobs()?
        .into_iter()
        .map(|r| {
            let recorded = Recorded {
                identity: r.identity,
                content_hash: r.content_hash,
            };
            (r.path, recorded)
        })
        .collect();
    let report = ScanReport::from_index(index, spec)?;
    Ok(Decisions { report, recorded })
}

/// Which clusters to act on: all of them, or those given by id (1-based,
/// as `doppel scan` numbers them) and/or holding a member under a path
/// prefix.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these cluster ids (empty: every cluster).
    pub clusters: Vec<usize>,
    /// Only clusters with a member whose path starts with these bytes.
    pub under: Option<DocPath>,
}

impl Filter {
    fn admits(&self, id: usize, members: &[DocPath]) -> bool {
        (self.clusters.is_empty() || self.clusters.contains(&id))
            && self.under.as_ref().is_none_or(|prefix| {
                members
                    .iter()
                    .any(|m| m.as_bytes().starts_with(prefix.as_bytes()))
            })
    }
}

/// Whether a marked file can move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkState {
    /// On disk as the index recorded it.
    Ready,
    /// Changed since it was read (why, in words): left where it is.
    Changed(String),
    /// No longer there.
    Missing,
}

/// A file marked to move: a member of a cluster that is not kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The file, relative to the folder.
    pub path: DocPath,
    /// The member kept in its place.
    pub duplicate_of: DocPath,
    /// Its recorded size in bytes.
    pub size: u64,
    /// Its recorded mtime (unix ns).
    pub mtime_ns: i64,
    /// Its recorded content hash.
    pub content_hash: u64,
    /// Whether it can move.
    pub state: MarkState,
}

/// One cluster of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedCluster {
    /// Its id, 1-based in cluster order (as `doppel scan` numbers them).
    pub id: usize,
    /// The members kept: the curator's keepers, else the representative.
    pub kept: Vec<DocPath>,
    /// Every other member.
    pub marked: Vec<Marked>,
}

/// What a plan would do, in numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Clusters with a file to move.
    pub clusters: usize,
    /// Files that would move.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Marked files left where they are (changed or gone since read).
    pub held_back: usize,
}

/// The files to move, cluster by cluster, and the totals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The clusters the filter admits, in cluster order.
    pub clusters: Vec<PlannedCluster>,
    /// The totals.
    pub summary: Summary,
}

impl Plan {
    /// Every marked file ready to move.
    pub fn ready(&self) -> impl Iterator<Item = &Marked> {
        self.clusters
            .iter()
            .flat_map(|c| &c.marked)
            .filter(|m| m.state == MarkState::Ready)
    }

    /// Every marked file that will not move, with why.
    pub fn held_back(&self) -> impl Iterator<Item = &Marked> {
        self.clusters
            .iter()
            .flat_map(|c| &c.marked)
            .filter(|m| m.state != MarkState::Ready)
    }
}

/// One cluster's decision before any file is looked at: its members,
/// and those kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterDecision {
    /// The cluster's id, 1-based in cluster order.
    pub id: usize,
    /// Its members, the representative first.
    pub members: Vec<DocPath>,
    /// The members kept: the curator's keepers, else the representative.
    pub kept: Vec<DocPath>,
}

impl ClusterDecision {
    /// The decision on a cluster of `members` (representative first):
    /// keep those `is_keeper` says, else the representative.
    pub fn new(id: usize, members: Vec<DocPath>, is_keeper: impl Fn(&DocPath) -> bool) -> Self {
        let mut kept: Vec<DocPath> = members.iter().filter(|m| is_keeper(m)).cloned().collect();
        if kept.is_empty() {
            kept.extend(members.first().cloned());
        }
        Self { id, members, kept }
    }
}

/// The decisions on the clusters of `report` that `filter` admits.
pub fn decided(report: &ScanReport, filter: &Filter) -> Vec<ClusterDecision> {
    report
        .cluster_paths()
        .into_iter()
        .enumerate()
        .map(|(n, members)| (n + 1, members))
        .filter(|(id, members)| filter.admits(*id, members))
        .map(|(id, members)| ClusterDecision::new(id, members, |m| report.library.is_keeper(m)))
        .collect()
}

/// The plan for `root` under `decisions`: every marked file of the
/// clusters `filter` admits, each checked against the disk.
pub fn plan(decisions: &Decisions, root: &Path, filter: &Filter) -> Plan {
    plan_for(
        &decided(&decisions.report, filter),
        |path| decisions.recorded.get(path).copied(),
        root,
    )
}

/// The plan for `root` of decided clusters, each marked file checked
/// against what `recorded` says the index read (a front end holding its
/// own clusters, such as the review screen's worker, starts here).
pub fn plan_for(
    clusters: &[ClusterDecision],
    recorded: impl Fn(&DocPath) -> Option<Recorded>,
    root: &Path,
) -> Plan {
    let mut plan = Plan::default();
    for cluster in clusters {
        let Some(keeper) = cluster.kept.first() else {
            continue;
        };
        let marked: Vec<Marked> = cluster
            .members
            .iter()
            .filter(|m| !cluster.kept.contains(m))
            .map(|path| {
                let recorded = recorded(path);
                let state = match &recorded {
                    Some(r) => check(&root.join(path.to_relative_path()), r),
                    None => MarkState::Changed("not in the index".into()),
                };
                Marked {
                    path: path.clone(),
                    duplicate_of: keeper.clone(),
                    size: recorded.map_or(0, |r| r.identity.size),
                    mtime_ns: recorded.map_or(0, |r| r.identity.mtime_ns),
                    content_hash: recorded.map_or(0, |r| r.content_hash),
                    state,
                }
            })
            .collect();
        let ready: Vec<&Marked> = marked
            .iter()
            .filter(|m| m.state == MarkState::Ready)
            .collect();
        if !ready.is_empty() {
            plan.summary.clusters += 1;
        }
        plan.summary.files += ready.len();
        plan.summary.bytes += ready.iter().map(|m| m.size).sum::<u64>();
        plan.summary.held_back += marked.len() - ready.len();
        plan.clusters.push(PlannedCluster {
            id: cluster.id,
            kept: cluster.kept.clone(),
            marked,
        });
    }
    plan
}

/// Whether the file at `file` is still what the index recorded.
fn check(file: &Path, recorded: &Recorded) -> MarkState {
    let meta = match std::fs::symlink_metadata(file) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return MarkState::Missing,
        Err(e) => return MarkState::Changed(format!("cannot be read: {e}")),
    };
    if !meta.file_type().is_file() {
        return MarkState::Changed("no longer a regular file".into());
    }
    let now = FileIdentity::from_metadata(&meta);
    let then = recorded.identity;
    if now.size != then.size || now.mtime_ns != then.mtime_ns {
        return MarkState::Changed("size or modification time differs from the index".into());
    }
    match std::fs::read(file) {
        Ok(bytes) if content_hash(&bytes) == recorded.content_hash => MarkState::Ready,
        Ok(_) => MarkState::Changed("its content differs from the index".into()),
        Err(e) => MarkState::Changed(format!("cannot be read: {e}")),
    }
}
