//! The plan: which files of which clusters would move. A member of a
//! cluster other than the kept ones (those the curator marked as keepers,
//! else the representative) is marked when it is itself a duplicate of a
//! kept one: a direct link under the scan's verdict (or the curator's
//! "duplicate") whose relation is not `contains` (neither the whole a kept
//! part sits in, nor a part of a kept whole). A member linked only through
//! another member, holding the kept file or inside it, stays and is named
//! with why (in components mode, a book links its two halves, which are
//! not duplicates of each other). Each marked file is checked against
//! what the index recorded when it read it (size, mtime, content hash): a
//! file changed or gone since is named and not moved.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use crate::index::{FolderIndex, ReconcileReport};
use crate::scan::ScanReport;
use doppel_core::doc::{CuratorVerdict, DocId, DocPath, FileIdentity};
use doppel_core::engine::{Engine, Relation, Side};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use doppel_store::{file_content_hash, Store, StoreAddress, StoreError};

use super::Result;

/// What the index recorded of a file when it read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// Its `stat` identity then.
    pub identity: FileIdentity,
    /// xxh3-64 of its bytes then.
    pub content_hash: u64,
}

impl Recorded {
    /// What `store` recorded of every document, by path (no blob is read).
    pub fn all_in(
        store: &dyn Store,
    ) -> std::result::Result<BTreeMap<DocPath, Recorded>, StoreError> {
        Ok(store
            .documents_without_blobs()?
            .into_iter()
            .map(|r| {
                let recorded = Recorded {
                    identity: r.identity,
                    content_hash: r.content_hash,
                };
                (r.path, recorded)
            })
            .collect())
    }
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

/// Open the index of `root` (at `index`, else the default file; verdicts
/// would be `curator`'s) and read its decisions as the curator last saw
/// them: no file of the folder is read, so a file changed since is told by
/// [`plan`] rather than silently fingerprinted anew.
pub fn open_decisions(
    root: &Path,
    engine: Engine,
    library_config: LibraryConfig,
    spec: ClusterSpec,
    index: Option<&StoreAddress>,
    curator: &str,
) -> Result<Decisions> {
    let (index, _opened) =
        FolderIndex::open_somewhere(root, engine, library_config, index, curator)?;
    let recorded = Recorded::all_in(index.store())?;
    // Not reconciled: nothing was read, so nothing changed while read.
    let report = ScanReport::from_index(index, spec, &ReconcileReport::default())?;
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
    /// Members that are duplicates of a kept one.
    pub marked: Vec<Marked>,
    /// Other members, left in place, with why.
    pub stays: Vec<(DocPath, String)>,
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
    /// Members neither kept nor to move, with why.
    pub stays: Vec<(DocPath, String)>,
}

impl ClusterDecision {
    /// The decision on a cluster of `members` (representative first):
    /// keep those `is_keeper` says, else the representative; every other
    /// member is marked.
    pub fn new(id: usize, members: Vec<DocPath>, is_keeper: impl Fn(&DocPath) -> bool) -> Self {
        let mut kept: Vec<DocPath> = members.iter().filter(|m| is_keeper(m)).cloned().collect();
        if kept.is_empty() {
            kept.extend(members.first().cloned());
        }
        Self {
            id,
            members,
            kept,
            stays: Vec::new(),
        }
    }

    /// Whether `member` is marked: neither kept nor staying.
    pub fn marks(&self, member: &DocPath) -> bool {
        !self.kept.contains(member) && !self.stays.iter().any(|(p, _)| p == member)
    }
}

/// How a member sits against a kept file it is linked to when it is not a
/// copy of it: inside it, or holding it (the pair's relation is
/// `contains`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nesting {
    /// The member is a part of the kept file.
    PartOfKept,
    /// The member is the whole the kept file sits in.
    HoldsKept,
}

/// Why `member` is not a duplicate of any kept member of its cluster, or
/// `None` when it is one. `linked` says whether two documents are linked
/// directly under the scan's verdict (the curator's verdicts count);
/// `nesting` how the member sits against a kept file when one holds the
/// other (`None` when they are copies, or the curator said duplicate).
fn stays_because(
    member: &DocPath,
    kept: &[DocPath],
    linked: impl Fn(&DocPath, &DocPath) -> bool,
    nesting: impl Fn(&DocPath, &DocPath) -> Option<Nesting>,
) -> Option<String> {
    let direct: Vec<&DocPath> = kept.iter().filter(|k| linked(k, member)).collect();
    if direct.is_empty() {
        return Some(
            "not itself a duplicate of the kept file (linked through another member)".into(),
        );
    }
    let nestings: Option<Vec<Nesting>> = direct.iter().map(|k| nesting(member, k)).collect();
    let first = direct[0];
    match nestings?.first()? {
        Nesting::HoldsKept => Some(format!(
            "holds the kept file {first} as a part (keep it, or mark the whole as the keeper)"
        )),
        Nesting::PartOfKept => Some(format!(
            "a part of the kept file {first}, not a copy of it (mark the pair duplicate to move it)"
        )),
    }
}

/// The decisions on the clusters of `report` that `filter` admits.
pub fn decided(report: &ScanReport, filter: &Filter) -> Vec<ClusterDecision> {
    decided_with(report, filter, &relations(report))
}

/// [`decided`] with the pairs' relations already gathered ([`relations`]).
pub(super) fn decided_with(
    report: &ScanReport,
    filter: &Filter,
    relations: &HashMap<(DocPath, DocPath), Relation>,
) -> Vec<ClusterDecision> {
    let lib = &report.library;
    let links: HashSet<(DocId, DocId)> =
        lib.links(&report.spec).iter().map(|l| (l.a, l.b)).collect();
    let ids = |x: &DocPath, y: &DocPath| {
        let (x, y) = (lib.id_of(x)?, lib.id_of(y)?);
        Some((x.min(y), x.max(y)))
    };
    let linked = |x: &DocPath, y: &DocPath| ids(x, y).is_some_and(|k| links.contains(&k));
    let nesting = |member: &DocPath, kept: &DocPath| {
        if lib.pair_verdict(member, kept) == Some(CuratorVerdict::Duplicate) {
            return None;
        }
        match relation_of(relations, member, kept)? {
            Relation::Contains { whole: Side::A } => Some(Nesting::HoldsKept),
            Relation::Contains { whole: Side::B } => Some(Nesting::PartOfKept),
            Relation::Duplicate | Relation::Related => None,
        }
    };
    report
        .cluster_paths()
        .into_iter()
        .enumerate()
        .map(|(n, members)| (n + 1, members))
        .filter(|(id, members)| filter.admits(*id, members))
        .map(|(id, members)| {
            let mut decision = ClusterDecision::new(id, members, |m| lib.is_keeper(m));
            decision.stays = decision
                .members
                .iter()
                .filter(|m| !decision.kept.contains(m))
                .filter_map(|m| {
                    let why = stays_because(m, &decision.kept, linked, nesting)?;
                    Some((m.clone(), why))
                })
                .collect();
            decision
        })
        .collect()
}

/// Every kept pair's relation, by its paths in byte order (as the scan's
/// pairs are oriented).
pub(super) fn relations(report: &ScanReport) -> HashMap<(DocPath, DocPath), Relation> {
    report
        .pairs()
        .into_iter()
        .filter_map(|p| Some(((p.a, p.b), p.verdict.relation?)))
        .collect()
}

/// The relation of `x` to `y` (oriented from `x`: `whole: A` means `x`
/// holds `y`), if their pair was kept with one.
pub(super) fn relation_of(
    relations: &HashMap<(DocPath, DocPath), Relation>,
    x: &DocPath,
    y: &DocPath,
) -> Option<Relation> {
    if x <= y {
        relations.get(&(x.clone(), y.clone())).copied()
    } else {
        relations.get(&(y.clone(), x.clone())).map(|r| r.swapped())
    }
}

/// Why a book read from a folder of pages stays where it is.
const FOLDER_STAYS: &str =
    "a folder of pages (one book): act moves single files, so move the folder yourself if you mean to";

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
        let mut stays = cluster.stays.clone();
        let marked: Vec<Marked> = cluster
            .members
            .iter()
            .filter(|m| cluster.marks(m))
            .filter(|m| {
                // A book read from a folder of pages is not one file to
                // move: it stays, said so, for the curator to move whole.
                let folder = root.join(m.to_relative_path());
                let is_folder = std::fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir());
                if is_folder {
                    stays.push(((*m).clone(), FOLDER_STAYS.into()));
                }
                !is_folder
            })
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
            stays,
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
    match file_content_hash(file) {
        Ok((hash, _)) if hash == recorded.content_hash => MarkState::Ready,
        Ok(_) => MarkState::Changed("its content differs from the index".into()),
        Err(e) => MarkState::Changed(format!("cannot be read: {e}")),
    }
}
