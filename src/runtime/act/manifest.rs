//! The decisions as a manifest, written without touching a file: one row
//! per cluster member, whether it is kept or a duplicate of the kept one,
//! its relation to the kept one, the curator's verdict on the two and
//! every algorithm's score between them; as CSV (`csv`) or JSON.

use serde::Serialize;

use crate::doc::DocPath;
use crate::engine::algo::AlgorithmId;
use crate::runtime::scan::ScanReport;

use super::plan::{decided_with, relation_of, relations, Filter};
use crate::engine::{Relation, Side};

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
    /// The kept member it duplicates (`None` for a kept one).
    pub duplicate_of: Option<DocPath>,
    /// The curator's verdict on it and the kept member, if any.
    pub verdict: Option<&'static str>,
    /// Its relation to the kept member (`duplicate`, `contains`,
    /// `related`), where their pair was kept with one.
    pub relation: Option<&'static str>,
    /// For `contains`, which of the two is the whole: `kept` or `this`.
    pub whole: Option<&'static str>,
    /// Every algorithm's score from the kept member to it, where the pair
    /// was kept (in each algorithm's native unit).
    pub scores: Vec<(AlgorithmId, f64)>,
    /// Why a member that is not kept is no duplicate of a kept one (it
    /// stays where it is).
    pub stays: Option<String>,
}

/// A row per member of the clusters `filter` admits, in cluster order.
pub fn manifest_rows(report: &ScanReport, filter: &Filter) -> Vec<ManifestRow> {
    let lib = &report.library;
    let relations = relations(report);
    let mut rows = Vec::new();
    for decision in decided_with(report, filter, &relations) {
        let (cluster, kept) = (decision.id, &decision.kept);
        let Some(keeper) = kept.first() else {
            continue;
        };
        for path in decision.members.iter().cloned() {
            let is_kept = kept.contains(&path);
            let stays = decision
                .stays
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, why)| why.clone());
            let (duplicate_of, verdict, scores) = if is_kept || stays.is_some() {
                (None, None, Vec::new())
            } else {
                let scores = lib
                    .id_of(keeper)
                    .zip(lib.id_of(&path))
                    .and_then(|(k, m)| lib.pair_from(k, m))
                    .map(|scores| {
                        scores
                            .iter()
                            .filter_map(|(id, s)| Some((*id, s.value()?)))
                            .collect()
                    })
                    .unwrap_or_default();
                let verdict = lib.pair_verdict(keeper, &path).map(|v| v.as_str());
                (Some(keeper.clone()), verdict, scores)
            };
            let relation = (!is_kept)
                .then(|| relation_of(&relations, keeper, &path))
                .flatten();
            let whole = match relation {
                Some(Relation::Contains { whole: Side::A }) => Some("kept"),
                Some(Relation::Contains { whole: Side::B }) => Some("this"),
                _ => None,
            };
            rows.push(ManifestRow {
                cluster,
                keeper_mark: lib.is_keeper(&path),
                path,
                kept: is_kept,
                duplicate_of,
                verdict,
                relation: relation.map(Relation::as_str),
                whole,
                scores,
                stays,
            });
        }
    }
    rows
}

/// The rows as CSV: cluster, path, kept, keeper_mark, duplicate_of,
/// verdict, relation, whole, stays_because, then a column per algorithm
/// (empty where the pair has no score).
pub fn manifest_csv(rows: &[ManifestRow]) -> Result<String, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
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
    .chain(AlgorithmId::ALL.iter().map(|id| id.as_str()));
    out.write_record(header)?;
    for row in rows {
        let score = |id: &AlgorithmId| {
            row.scores
                .iter()
                .find(|(a, _)| a == id)
                .map_or(String::new(), |(_, v)| v.to_string())
        };
        let record = [
            row.cluster.to_string(),
            row.path.to_string(),
            row.kept.to_string(),
            row.keeper_mark.to_string(),
            row.duplicate_of
                .as_ref()
                .map_or(String::new(), ToString::to_string),
            row.verdict.unwrap_or_default().to_owned(),
            row.relation.unwrap_or_default().to_owned(),
            row.whole.unwrap_or_default().to_owned(),
            row.stays.clone().unwrap_or_default(),
        ]
        .into_iter()
        .chain(AlgorithmId::ALL.iter().map(score));
        out.write_record(record)?;
    }
    let bytes = out.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8"))
}

/// The rows as JSON: `{"format_version", "rows": [...]}`, each row's
/// scores an object by algorithm id.
pub fn manifest_json(rows: &[ManifestRow]) -> String {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let scores: serde_json::Map<String, serde_json::Value> = r
                .scores
                .iter()
                .map(|(id, v)| (id.as_str().to_owned(), serde_json::json!(v)))
                .collect();
            serde_json::json!({
                "cluster": r.cluster,
                "path": r.path,
                "kept": r.kept,
                "keeper_mark": r.keeper_mark,
                "duplicate_of": r.duplicate_of,
                "verdict": r.verdict,
                "relation": r.relation,
                "whole": r.whole,
                "stays_because": r.stays,
                "scores": scores,
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&serde_json::json!({
        "format_version": MANIFEST_FORMAT_VERSION,
        "rows": rows,
    }))
    .expect("the manifest serializes");
    text.push('\n');
    text
}
