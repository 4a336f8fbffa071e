//! Export of what the curator sees — clusters, each member's scores
//! against its representative, verdicts, skipped files — to CSV and JSON,
//! and as the HTML report for colleagues ([`doppel_report::html`]), each
//! member's diff against its representative included.
//!
//! Files go to a prefix the curator types (default: the current folder,
//! or the home folder when that is inside the watched one). A target
//! inside the watched folder is refused: doppel never writes there. An
//! export never replaces an earlier one: when a file of the prefix exists,
//! the first free `PREFIX-2`, `PREFIX-3`, … is used instead (and said), and
//! the next export is offered the next free name. Each file is written to
//! a temporary name beside it, then renamed into place.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::{io, ExportError, Result};

use doppel_core::doc::{ordered_pair, CuratorVerdict, DocPath};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_index::export::review;
pub use doppel_index::export::review::EXPORT_FORMAT;
use doppel_index::export::review::{MemberRow, PairRow};
use doppel_index::export::{json_text, ByAlgorithm, Words};
use doppel_index::worker::protocol::{cluster_by_label, MemberView, Snapshot};
use doppel_pairing::cluster::ClusterMode;

/// Verdicts known to the UI, by ordered pair.
pub type Verdicts = BTreeMap<(DocPath, DocPath), Option<CuratorVerdict>>;

fn mode_name(m: ClusterMode) -> &'static str {
    match m {
        ClusterMode::Components => "components",
        ClusterMode::Star => "star",
    }
}

/// The verdict on a member and its representative `rep`: this session's
/// mark (or undo) over the one stored with the snapshot.
fn verdict_of(verdicts: &Verdicts, rep: &DocPath, m: &MemberView) -> Option<CuratorVerdict> {
    match verdicts.get(&ordered_pair(rep, &m.path)) {
        Some(v) => *v,
        None => m.verdict,
    }
}

/// Every verdict known: this session's, and those stored with the
/// snapshot that it did not change.
fn all_verdicts(snap: &Snapshot, verdicts: &Verdicts) -> Verdicts {
    let mut all = verdicts.clone();
    for c in &snap.clusters {
        let Some(rep) = c.members.first() else {
            continue;
        };
        for m in &c.members[1..] {
            all.entry(ordered_pair(&rep.path, &m.path))
                .or_insert(m.verdict);
        }
    }
    all
}

/// The snapshot as the curator sees it: with this session's keeper marks
/// that no snapshot has carried yet (so an export right after `Space`
/// writes the keep column the screen shows).
pub fn as_seen(state: &crate::state::AppState) -> Option<std::sync::Arc<Snapshot>> {
    let snap = state.snapshot.clone()?;
    if state.keeper_overrides.is_empty() {
        return Some(snap);
    }
    let mut seen = (*snap).clone();
    for m in seen
        .clusters
        .iter_mut()
        .flat_map(|c| std::sync::Arc::make_mut(c).members.iter_mut())
    {
        if let Some(&keep) = state.keeper_overrides.get(&m.path) {
            m.keeper = keep;
        }
    }
    Some(std::sync::Arc::new(seen))
}

/// One row per cluster member: cluster id, path, whether it is the
/// representative, keep flag, the cluster's weakest link, agreeing
/// algorithms, disagreement.
pub fn clusters_csv(snap: &Snapshot) -> Result<String> {
    let rows = snap.clusters.iter().enumerate().flat_map(|(i, c)| {
        c.members.iter().enumerate().map(move |(j, m)| MemberRow {
            cluster: i + 1,
            path: &m.path,
            representative: j == 0,
            keep: m.keeper,
            weakest: c.weakest,
            agreeing: Words::ids(&c.agreeing),
            disagreement: c.disagreement,
        })
    });
    Ok(review::clusters_csv(rows)?)
}

/// One row per (representative, member) pair: every algorithm's score in
/// its native unit, containment, passing algorithms, the curator's verdict.
pub fn pairs_csv(snap: &Snapshot, verdicts: &Verdicts) -> Result<String> {
    let rows = snap.clusters.iter().enumerate().flat_map(|(i, c)| {
        let rep = c.members.first();
        rep.into_iter().flat_map(move |rep| {
            c.members.iter().skip(1).map(move |m| PairRow {
                cluster: i + 1,
                a: &rep.path,
                b: &m.path,
                scores: m.scores.as_ref(),
                containment: m
                    .scores
                    .as_ref()
                    .and_then(|s| s.get(&AlgorithmId::Shingle))
                    .and_then(Score::containment),
                passing: Words::ids(&m.passing),
                verdict: verdict_of(verdicts, &rep.path, m),
            })
        })
    });
    Ok(review::pairs_csv(rows)?)
}

/// Everything in one JSON document (format [`EXPORT_FORMAT`]).
pub fn json(snap: &Snapshot, root: &str, verdicts: &Verdicts) -> Result<String> {
    let ids = |ids: &[AlgorithmId]| ids.iter().map(|id| id.as_str()).collect();
    let all = all_verdicts(snap, verdicts);
    let value = review::ReviewJson {
        cluster_algorithm: cluster_by_label(snap.spec.by),
        clusters: snap
            .clusters
            .iter()
            .enumerate()
            .map(|(i, c)| review::ClusterJson {
                agreeing: ids(&c.agreeing),
                disagreement: c.disagreement,
                id: i + 1,
                members: c
                    .members
                    .iter()
                    .map(|m| review::MemberJson {
                        keep: m.keeper,
                        passing: ids(&m.passing),
                        path: &m.path,
                        scores: m.scores.as_ref().map(ByAlgorithm::every_score),
                    })
                    .collect(),
                representative: c.members.first().map(|m| &m.path),
                weakest: c.weakest,
            })
            .collect(),
        documents: snap.documents,
        doppel: env!("CARGO_PKG_VERSION"),
        export_format: EXPORT_FORMAT,
        mode: mode_name(snap.spec.mode),
        root,
        skipped: snap
            .skipped
            .iter()
            .map(|(path, reason)| review::SkippedJson { path, reason })
            .collect(),
        thresholds: ByAlgorithm::new(
            AlgorithmId::ALL
                .into_iter()
                .map(|id| (id, Some(snap.spec.thresholds.get(id)))),
        ),
        verdicts: all
            .iter()
            .filter_map(|((a, b), v)| {
                Some(review::VerdictJson {
                    a,
                    b,
                    verdict: (*v)?,
                })
            })
            .collect(),
    };
    Ok(json_text(&value)?)
}

/// The absolute prefix for `input` (relative to `cwd`, `~/` = home),
/// refused when its folder is inside `root` or does not exist.
pub fn resolve(input: &str, cwd: &Path, root: &Path) -> Result<PathBuf> {
    let input = input.trim();
    let expanded = match input.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(rest))
            .unwrap_or_else(|| PathBuf::from(input)),
        None => PathBuf::from(input),
    };
    let full = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    let Some(name) = full.file_name().map(|n| n.to_owned()) else {
        return Err(ExportError::NoName { path: full }.into());
    };
    let dir = full.parent().unwrap_or(Path::new("/"));
    let dir = dir.canonicalize().map_err(|error| ExportError::NoFolder {
        folder: dir.to_path_buf(),
        error,
    })?;
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if dir.starts_with(&root) {
        return Err(ExportError::InsideFolder { folder: dir }.into());
    }
    Ok(dir.join(name))
}

/// A default export prefix: `doppel-export` in `cwd`, or in the home
/// folder (then the temp folder) when `cwd` is inside `root`.
pub fn default_prefix(cwd: &Path, root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let cwd_c = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    if !cwd_c.starts_with(&root) {
        return "doppel-export".to_owned();
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let base = home
        .filter(|h| {
            h.canonicalize()
                .map(|h| !h.starts_with(&root))
                .unwrap_or(false)
        })
        .unwrap_or_else(std::env::temp_dir);
    base.join("doppel-export").display().to_string()
}

fn write_atomic(path: &Path, contents: &str) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, contents).map_err(io(format!("write {}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|error| {
        let _ = std::fs::remove_file(&tmp);
        io(format!("rename into {}", path.display()))(error)
    })
}

/// The suffixes of an export's files.
const SUFFIXES: [&str; 4] = ["-clusters.csv", "-pairs.csv", ".json", ".html"];

fn with_suffix(prefix: &Path, suffix: &str) -> PathBuf {
    let mut p = prefix.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// `input` when none of its files exists, else the first of `input-2`,
/// `input-3`, … (counting on from `N` when `input` ends in `-N`) whose
/// files are all free; with its resolved path.
pub fn free_prefix(input: &str, cwd: &Path, root: &Path) -> Result<(String, PathBuf)> {
    let input = input.trim();
    let taken = |p: &Path| SUFFIXES.iter().any(|s| with_suffix(p, s).exists());
    let first = resolve(input, cwd, root)?;
    if !taken(&first) {
        return Ok((input.to_owned(), first));
    }
    let (base, from) = match input.rsplit_once('-') {
        Some((base, n)) if !base.is_empty() && !n.is_empty() => match n.parse::<u32>() {
            Ok(n) if n >= 2 && !n.to_string().starts_with('0') => (base, n + 1),
            _ => (input, 2),
        },
        _ => (input, 2),
    };
    for n in from..from.saturating_add(10_000) {
        let name = format!("{base}-{n}");
        let path = resolve(&name, cwd, root)?;
        if !taken(&path) {
            return Ok((name, path));
        }
    }
    Err(ExportError::NoFreeName {
        input: input.to_owned(),
        from,
    }
    .into())
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The prefix the curator asked for.
    pub asked: String,
    /// The prefix used: `asked`, or a numbered one when `asked` was taken.
    pub used: String,
    /// The files, in full.
    pub files: Vec<PathBuf>,
    /// A free prefix for the next export.
    pub next: String,
}

impl Written {
    /// "exported to DIR/: a-clusters.csv, a-pairs.csv, a.json", saying so
    /// when the name asked for was taken.
    pub fn describe(&self) -> String {
        let dir = self
            .files
            .first()
            .and_then(|f| f.parent())
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let names: Vec<String> = self
            .files
            .iter()
            .filter_map(|f| f.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        let taken = if self.used == self.asked {
            String::new()
        } else {
            format!("{} was taken (nothing overwritten): ", self.asked)
        };
        format!("{taken}exported to {dir}/: {}", names.join(", "))
    }
}

/// Write `<prefix>-clusters.csv`, `<prefix>-pairs.csv` and `<prefix>.json`
/// for the first free prefix from `input` on (see [`free_prefix`]).
pub fn write(
    input: &str,
    cwd: &Path,
    root: &Path,
    snap: &Snapshot,
    verdicts: &Verdicts,
) -> Result<Written> {
    let (used, prefix) = free_prefix(input, cwd, root)?;
    let with = |suffix: &str| with_suffix(&prefix, suffix);
    let files = [
        (with(SUFFIXES[0]), clusters_csv(snap)?),
        (with(SUFFIXES[1]), pairs_csv(snap, verdicts)?),
        (
            with(SUFFIXES[2]),
            json(snap, &root.display().to_string(), verdicts)?,
        ),
    ];
    let mut written = Vec::new();
    for (path, contents) in files {
        write_atomic(&path, &contents)?;
        written.push(path);
    }
    let (next, _) = free_prefix(&used, cwd, root)?;
    Ok(Written {
        asked: input.trim().to_owned(),
        used,
        files: written,
        next,
    })
}

/// Write `<prefix>.html`: the HTML report of the snapshot, with each
/// member's word diff against its representative (files read from
/// `root`, the snapshot's boilerplate left out and marked); the path
/// written. Slow for many large files: call it off the
/// event loop.
pub fn write_html(
    input: &str,
    cwd: &Path,
    root: &Path,
    snap: &Snapshot,
    verdicts: &Verdicts,
    engine: &doppel_core::engine::EngineConfig,
) -> Result<PathBuf> {
    use doppel_report::html;
    let prefix = resolve(input, cwd, root)?;
    let mut path = prefix.into_os_string();
    path.push(".html");
    let path = PathBuf::from(path);
    // Verdicts of earlier sessions count, as in the CSV and JSON.
    let all = all_verdicts(snap, verdicts);
    let verdict = |a: &DocPath, b: &DocPath| all.get(&ordered_pair(a, b)).copied().flatten();
    let mut report = html::Report::from_snapshot(snap, root, &verdict);
    let limits = html::Limits::default();
    report.keep_pairs(limits.pairs_per_cluster);
    // Pages and page images of each match, as `doppel report --html` shows.
    report.attach_places(root, &snap.boilerplate);
    // The boilerplate the index learned is left out and marked, as in
    // `doppel report --html` and the review screen's diff.
    let docs = html::Documents::new(root, engine).with_boilerplate(&snap.boilerplate);
    html::attach_diffs(&mut report, &docs, &limits);
    write_atomic(&path, &html::render::page(&report))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_the_watched_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("books");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let err = resolve("out", &root, &root).unwrap_err();
        assert!(err.to_string().contains("inside the watched folder"));
        assert!(resolve("sub/out", &root, &root).is_err());
        assert!(resolve("../books/out", &root, &root).is_err());
        let ok = resolve("../out", &root, &root).unwrap();
        assert_eq!(ok, dir.path().canonicalize().unwrap().join("out"));
        assert!(resolve("missing/out", dir.path(), &root).is_err());
        assert!(!default_prefix(&root, &root).starts_with("doppel-export"));
        assert_eq!(default_prefix(dir.path(), &root), "doppel-export");
    }

    /// A verdict stored by an earlier session is exported as this
    /// session's are (in the pairs CSV and the JSON's verdicts), unless
    /// this session undid it.
    #[test]
    fn stored_verdicts_are_exported() {
        use doppel_index::worker::protocol::ClusterView;
        let member = |path: &str, verdict| MemberView {
            path: path.into(),
            scores: None,
            passing: Vec::new(),
            keeper: false,
            verdict,
            disputed: false,
        };
        let snap = Snapshot {
            clusters: vec![std::sync::Arc::new(ClusterView {
                members: vec![
                    member("a.txt", None),
                    member("b.txt", Some(CuratorVerdict::Duplicate)),
                ],
                weakest: None,
                agreeing: Vec::new(),
                disagreement: false,
                disputed: 0,
                newest: 0,
            })],
            ..empty_snapshot()
        };
        let csv = pairs_csv(&snap, &Verdicts::new()).unwrap();
        assert!(csv.lines().nth(1).unwrap().ends_with(",duplicate"), "{csv}");
        let json = json(&snap, "/books", &Verdicts::new()).unwrap();
        assert!(json.contains("\"verdict\": \"duplicate\""), "{json}");
        let undone = Verdicts::from([(ordered_pair(&"a.txt".into(), &"b.txt".into()), None)]);
        let csv = pairs_csv(&snap, &undone).unwrap();
        assert!(csv.lines().nth(1).unwrap().ends_with(','), "{csv}");
        assert!(!json_of(&snap, &undone).contains("duplicate"));
    }

    fn json_of(snap: &Snapshot, verdicts: &Verdicts) -> String {
        json(snap, "/books", verdicts).unwrap()
    }

    fn empty_snapshot() -> Snapshot {
        Snapshot {
            generation: 1,
            spec: doppel_pairing::cluster::ClusterSpec {
                by: doppel_pairing::cluster::ClusterBy::Fusion,
                mode: ClusterMode::Components,
                thresholds: Default::default(),
                fusion: Default::default(),
            },
            clusters: Vec::new(),
            documents: 0,
            pairs: 0,
            skipped: Vec::new(),
            histograms: Default::default(),
            floors: Default::default(),
            si_capped: 0,
            unclustered: Vec::new(),
            verdicts_applied: 0,
            boilerplate: Default::default(),
        }
    }

    /// A second export under the same name keeps the first: it takes the
    /// next free number and says so, and offers the one after.
    #[test]
    fn a_second_export_never_overwrites_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("books");
        std::fs::create_dir_all(&root).unwrap();
        let snap = empty_snapshot();
        let first = write("out", dir.path(), &root, &snap, &Verdicts::new()).unwrap();
        assert_eq!((first.used.as_str(), first.next.as_str()), ("out", "out-2"));
        assert!(first.describe().starts_with("exported to "));
        std::fs::write(&first.files[0], "curator's notes").unwrap();
        let second = write("out", dir.path(), &root, &snap, &Verdicts::new()).unwrap();
        assert_eq!(second.used, "out-2");
        assert_eq!(second.next, "out-3");
        assert!(
            second.describe().starts_with("out was taken"),
            "{}",
            second.describe()
        );
        assert_eq!(
            std::fs::read_to_string(&first.files[0]).unwrap(),
            "curator's notes"
        );
        // Only one of the three files there is enough to take the name.
        std::fs::remove_file(dir.path().join("out-2-clusters.csv")).unwrap();
        std::fs::remove_file(dir.path().join("out-2.json")).unwrap();
        assert_eq!(free_prefix("out-2", dir.path(), &root).unwrap().0, "out-3");
        assert_eq!(free_prefix("new", dir.path(), &root).unwrap().0, "new");
    }
}
