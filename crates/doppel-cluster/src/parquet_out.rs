//! A scan written as Parquet (`doppel cluster scan --out DIR`), one file
//! per table, for the tools a large library already runs (DataFusion,
//! Spark, DuckDB, pandas):
//!
//! - `documents.parquet`: `path` (as text), `path_bytes` (the raw name),
//!   `bytes`, `encoding`, `skipped` (why, when it was not indexed);
//! - `pairs.parquet`: the pairs the report prints, in its order: `a`,
//!   `b`, one score column per algorithm (null where a side has no
//!   print), `containment`, `duplicate_by` (the algorithms passing,
//!   space-separated), `fusion`, `relation` and `whole` (`a` or `b` for
//!   `contains`);
//! - `clusters.parquet`: `cluster` (1-based, as the JSON numbers them),
//!   `rank` (0 is the file the cluster keeps) and `path`.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BinaryArray, BooleanArray, Float64Array, RecordBatch, StringArray, UInt32Array,
    UInt64Array,
};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::parquet::arrow::ArrowWriter;

use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::Relation;
use doppel_index::scan::ScanReport;

use crate::ClusterError;

/// Write `report` as the three tables into the folder `out` (made if
/// missing; files of the same names are replaced).
pub fn write(report: &ScanReport, out: &Path) -> Result<(), ClusterError> {
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |e: Box<dyn std::error::Error + Send + Sync>| ClusterError::Write { path, source: e }
    };
    std::fs::create_dir_all(out).map_err(|e| failed(out)(e.into()))?;
    for (name, batch) in [
        ("documents.parquet", documents(report)),
        ("pairs.parquet", pairs(report)),
        ("clusters.parquet", clusters(report)),
    ] {
        let path = out.join(name);
        let written = batch.map_err(Into::into).and_then(|batch| {
            let mut writer = ArrowWriter::try_new(File::create(&path)?, batch.schema(), None)?;
            writer.write(&batch)?;
            writer.close()?;
            Ok(())
        });
        written.map_err(failed(&path))?;
    }
    Ok(())
}

type Built = Result<RecordBatch, datafusion::arrow::error::ArrowError>;

/// A batch of `columns`, each named and typed with its nullability.
fn batch(columns: Vec<(&str, ArrayRef, bool)>) -> Built {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, array, nullable)| Field::new(*name, array.data_type().clone(), *nullable))
        .collect();
    let arrays = columns.into_iter().map(|(_, array, _)| array).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

fn text<'a>(values: impl IntoIterator<Item = Option<&'a str>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values))
}

fn documents(report: &ScanReport) -> Built {
    let docs = &report.docs;
    let paths: Vec<String> = docs.iter().map(|d| d.path.to_string()).collect();
    let skipped: Vec<Option<String>> = docs
        .iter()
        .map(|d| d.skipped.as_ref().map(ToString::to_string))
        .collect();
    batch(vec![
        ("path", text(paths.iter().map(|p| Some(p.as_str()))), false),
        (
            "path_bytes",
            Arc::new(BinaryArray::from_iter_values(
                docs.iter().map(|d| d.path.as_bytes()),
            )),
            false,
        ),
        (
            "bytes",
            Arc::new(UInt64Array::from_iter_values(docs.iter().map(|d| d.bytes))),
            false,
        ),
        (
            "encoding",
            text(docs.iter().map(|d| d.encoding.as_deref())),
            true,
        ),
        ("skipped", text(skipped.iter().map(Option::as_deref)), true),
    ])
}

fn pairs(report: &ScanReport) -> Built {
    let pairs = report.pairs();
    let names = |side: fn(&doppel_index::scan::ScannedPair) -> String| -> Vec<String> {
        pairs.iter().map(side).collect()
    };
    let (a, b) = (names(|p| p.a.to_string()), names(|p| p.b.to_string()));
    let mut columns = vec![
        ("a", text(a.iter().map(|s| Some(s.as_str()))), false),
        ("b", text(b.iter().map(|s| Some(s.as_str()))), false),
    ];
    for id in AlgorithmId::ALL {
        let scores = pairs
            .iter()
            .map(|p| p.scores.get(&id).and_then(Score::value));
        columns.push((id.as_str(), Arc::new(Float64Array::from_iter(scores)), true));
    }
    let containment = pairs.iter().map(|p| p.verdict.containment);
    let passing: Vec<String> = pairs
        .iter()
        .map(|p| {
            let ids: Vec<&str> = p.verdict.passing.iter().map(|id| id.as_str()).collect();
            ids.join(" ")
        })
        .collect();
    let relation = pairs
        .iter()
        .map(|p| p.verdict.relation.map(Relation::as_str));
    let whole = pairs.iter().map(|p| match p.verdict.relation {
        Some(Relation::Contains { whole }) => Some(whole.as_str()),
        _ => None,
    });
    columns.extend([
        (
            "containment",
            Arc::new(Float64Array::from_iter(containment)) as ArrayRef,
            true,
        ),
        (
            "duplicate_by",
            text(passing.iter().map(|s| Some(s.as_str()))),
            false,
        ),
        (
            "fusion",
            Arc::new(BooleanArray::from_iter(
                pairs.iter().map(|p| Some(p.verdict.fusion)),
            )),
            false,
        ),
        ("relation", text(relation), true),
        ("whole", text(whole), true),
    ]);
    batch(columns)
}

fn clusters(report: &ScanReport) -> Built {
    let (mut cluster, mut rank, mut path) = (Vec::new(), Vec::new(), Vec::new());
    for (n, members) in report.cluster_paths().iter().enumerate() {
        for (at, member) in members.iter().enumerate() {
            cluster.push(n as u64 + 1);
            rank.push(at as u32);
            path.push(member.to_string());
        }
    }
    batch(vec![
        ("cluster", Arc::new(UInt64Array::from(cluster)), false),
        ("rank", Arc::new(UInt32Array::from(rank)), false),
        ("path", text(path.iter().map(|p| Some(p.as_str()))), false),
    ])
}
