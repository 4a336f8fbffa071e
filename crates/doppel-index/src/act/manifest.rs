//! The decisions as a manifest, written without touching a file: one row
//! per cluster member, whether it is kept or a duplicate of the kept one,
//! its relation to the kept one, the curator's verdict on the two and
//! every algorithm's score between them ([`manifest_rows`]); written as CSV
//! or JSON by the exporter ([`crate::export::manifest`]).

pub use crate::export::manifest::{
    manifest_csv, manifest_json, ManifestRow, MANIFEST_FORMAT_VERSION,
};
use crate::scan::ScanReport;

use super::plan::{decided_with, relation_of, relations, Filter};
use doppel_core::engine::{Relation, Side};

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
            // Every member but the kept one is scored against it, a part
            // that stays as well as a duplicate (where the two were paired:
            // a part linked to the kept one only through another has none).
            let (verdict, scores) = if is_kept {
                (None, Vec::new())
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
                (verdict, scores)
            };
            let duplicate_of = (!is_kept && stays.is_none()).then(|| keeper.clone());
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
