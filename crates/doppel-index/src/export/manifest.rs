//! The curator's decisions as a manifest (`doppel manifest`): one row per
//! cluster member, whether it is kept or a duplicate of the kept one, its
//! relation to the kept one, the curator's verdict on the two and every
//! algorithm's score between them; as CSV or JSON. The rows are made by
//! [`crate::act::manifest_rows`].

use serde::Serialize;

use super::{ByAlgorithm, CsvTable, ScoreColumns};
use doppel_core::doc::DocPath;
use doppel_core::engine::algo::AlgorithmId;

/// Version of the manifest's JSON.
pub const MANIFEST_FORMAT_VERSION: u32 = 1;

/// One cluster member and the decision on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestRow {
    /// Its cluster's id (1-based, as `doppel scan` numbers them).
    pub cluster: usize,
    /// The file, relative to the folder (display form).
    pub path: DocPath,
    /// Whether it is kept (a keeper, or the representative).
    pub kept: bool,
    /// Whether the curator marked it as the keeper.
    pub keeper_mark: bool,
    /// The kept member it duplicates (`None` for a kept one, and for one
    /// that stays).
    pub duplicate_of: Option<DocPath>,
    /// The curator's verdict on it and the kept member, if any.
    pub verdict: Option<&'static str>,
    /// Its relation to the kept member (`duplicate`, `contains`,
    /// `related`), where their pair was kept with one.
    pub relation: Option<&'static str>,
    /// For `contains`, which of the two is the whole: `kept` or `this`.
    pub whole: Option<&'static str>,
    /// Every algorithm's score from the kept member to it, where the pair
    /// was kept (in each algorithm's native unit), whether it moves or
    /// stays.
    pub scores: Vec<(AlgorithmId, f64)>,
    /// Why a member that is not kept is no duplicate of a kept one (it
    /// stays where it is).
    pub stays: Option<String>,
}

/// The rows as CSV: cluster, path, kept, keeper_mark, duplicate_of,
/// verdict, relation, whole, stays_because, then a column per algorithm
/// (empty where the pair has no score).
pub fn manifest_csv(rows: &[ManifestRow]) -> Result<String, csv::Error> {
    let header = [
        "cluster",
        "path",
        "kept",
        "keeper_mark",
        "duplicate_of",
        "verdict",
        "relation",
        "whole",
        "stays_because",
    ]
    .into_iter()
    .chain(super::score_header());
    let mut table = CsvTable::new(Vec::new(), header)?;
    for row in rows {
        table.row(&CsvRow {
            cluster: row.cluster,
            path: &row.path,
            kept: row.kept,
            keeper_mark: row.keeper_mark,
            duplicate_of: row.duplicate_of.as_ref(),
            verdict: row.verdict,
            relation: row.relation,
            whole: row.whole,
            stays_because: row.stays.as_deref(),
            scores: ScoreColumns::new(|id| {
                row.scores.iter().find(|(a, _)| *a == id).map(|&(_, v)| v)
            }),
        })?;
    }
    table.into_text()
}

/// One row of the manifest's CSV.
#[derive(Serialize)]
struct CsvRow<'a> {
    cluster: usize,
    path: &'a DocPath,
    kept: bool,
    keeper_mark: bool,
    duplicate_of: Option<&'a DocPath>,
    verdict: Option<&'static str>,
    relation: Option<&'static str>,
    whole: Option<&'static str>,
    stays_because: Option<&'a str>,
    scores: ScoreColumns,
}

/// The rows as JSON: `{"format_version", "rows": [...]}`, each row's
/// scores an object by algorithm id.
pub fn manifest_json(rows: &[ManifestRow]) -> serde_json::Result<String> {
    super::json_text(&ManifestJson {
        format_version: MANIFEST_FORMAT_VERSION,
        rows: rows
            .iter()
            .map(|r| JsonRow {
                cluster: r.cluster,
                duplicate_of: r.duplicate_of.as_ref(),
                keeper_mark: r.keeper_mark,
                kept: r.kept,
                path: &r.path,
                relation: r.relation,
                scores: ByAlgorithm::new(r.scores.iter().map(|&(id, v)| (id, Some(v)))),
                stays_because: r.stays.as_deref(),
                verdict: r.verdict,
                whole: r.whole,
            })
            .collect(),
    })
}

/// The manifest's JSON (keys in name order, as it has always had them).
#[derive(Serialize)]
struct ManifestJson<'a> {
    format_version: u32,
    rows: Vec<JsonRow<'a>>,
}

/// One row of the manifest's JSON.
#[derive(Serialize)]
struct JsonRow<'a> {
    cluster: usize,
    duplicate_of: Option<&'a DocPath>,
    keeper_mark: bool,
    kept: bool,
    path: &'a DocPath,
    relation: Option<&'static str>,
    scores: ByAlgorithm,
    stays_because: Option<&'a str>,
    verdict: Option<&'static str>,
    whole: Option<&'static str>,
}
