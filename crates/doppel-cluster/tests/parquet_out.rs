//! `--out DIR` writes the scan as three Parquet tables a large library's
//! own tools read: every document (skips with their reasons), the pairs
//! the report prints with every algorithm's score, and the clusters with
//! the kept file first. Read back here with Parquet's own reader.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{Array, Float64Array, RecordBatch, StringArray, UInt32Array};
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use doppel_cluster::scan::{scan_in_plans, Runner};
use doppel_cluster::{parquet_out, PlanOptions};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::Engine;
use doppel_index::collection::{Listing, PageFolders};
use doppel_index::scan::ScanHooks;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

/// The one batch of the table at `path`.
fn table(path: &Path) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    datafusion::arrow::compute::concat_batches(&batches[0].schema(), &batches).unwrap()
}

fn strings<'a>(batch: &'a RecordBatch, name: &str) -> Vec<Option<&'a str>> {
    let column = batch.column_by_name(name).unwrap();
    let column = column.as_any().downcast_ref::<StringArray>().unwrap();
    (0..column.len())
        .map(|i| column.is_valid(i).then(|| column.value(i)))
        .collect()
}

#[test]
fn the_parquet_tables_hold_the_reports_documents_pairs_and_clusters() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample-corpus");
    let engine = Arc::new(Engine::default());
    let report = scan_in_plans(
        Listing::of_folder(&root, &[], PageFolders::Auto),
        Arc::clone(&engine),
        LibraryConfig::default(),
        ClusterSpec::from_engine(&engine),
        &ScanHooks::default(),
        PlanOptions {
            partitions: 2,
            batch_files: 4,
            ..PlanOptions::default()
        },
        Runner::Local,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    parquet_out::write(&report, out.path()).unwrap();

    let documents = table(&out.path().join("documents.parquet"));
    let paths: Vec<String> = report.docs.iter().map(|d| d.path.to_string()).collect();
    let written: Vec<&str> = strings(&documents, "path").into_iter().flatten().collect();
    assert_eq!(written, paths, "every document, in the report's order");
    let skipped = strings(&documents, "skipped");
    let empty = paths.iter().position(|p| p == "empty.txt").unwrap();
    assert_eq!(skipped[empty], Some("empty file"));

    let pairs = table(&out.path().join("pairs.parquet"));
    let expected = report.pairs();
    assert!(!expected.is_empty());
    assert_eq!(pairs.num_rows(), expected.len());
    let (a, b) = (strings(&pairs, "a"), strings(&pairs, "b"));
    for id in AlgorithmId::ALL {
        let scores = pairs.column_by_name(id.as_str()).unwrap();
        let scores = scores.as_any().downcast_ref::<Float64Array>().unwrap();
        for (row, pair) in expected.iter().enumerate() {
            assert_eq!(a[row], Some(pair.a.to_string().as_str()));
            assert_eq!(b[row], Some(pair.b.to_string().as_str()));
            let score = pair.scores.get(&id).and_then(Score::value);
            let got = scores.is_valid(row).then(|| scores.value(row));
            assert_eq!(got, score, "{} of {} ~ {}", id.as_str(), pair.a, pair.b);
        }
    }
    let relations = strings(&pairs, "relation");
    for (row, pair) in expected.iter().enumerate() {
        assert_eq!(relations[row], pair.verdict.relation.map(|r| r.as_str()));
    }

    let clusters = table(&out.path().join("clusters.parquet"));
    let members: usize = report.cluster_paths().iter().map(Vec::len).sum();
    assert_eq!(clusters.num_rows(), members);
    let rank = clusters.column_by_name("rank").unwrap();
    let rank = rank.as_any().downcast_ref::<UInt32Array>().unwrap();
    let path = strings(&clusters, "path");
    let keepers: Vec<&str> = (0..clusters.num_rows())
        .filter(|&row| rank.value(row) == 0)
        .filter_map(|row| path[row])
        .collect();
    let expected_keepers: Vec<String> = report
        .cluster_paths()
        .iter()
        .map(|members| members[0].to_string())
        .collect();
    assert_eq!(
        keepers, expected_keepers,
        "each cluster's kept file ranked 0"
    );
}
