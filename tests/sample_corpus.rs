//! The engine against `sample-corpus/expected.json`: every group clusters
//! together, every part is found inside its whole, no distractor pair is
//! called a duplicate, and the empty and binary files are skipped with the
//! right reason. The corpus is scanned once for every test.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use doppel_core::doc::DocPath;
use doppel_core::engine::text::decode::NotText;
use doppel_core::engine::Engine;
use doppel_index::collection::Skip;
use doppel_index::scan::{scan_folder, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use serde::Deserialize;

#[derive(Deserialize)]
struct Expected {
    groups: Vec<Vec<String>>,
    containment: Vec<(String, String)>,
    distinct: Vec<(String, String)>,
    skipped: HashMap<String, String>,
}

/// The expectations and the scan of the sample corpus, made once.
fn setup() -> &'static (Expected, ScanReport) {
    static SCANNED: OnceLock<(Expected, ScanReport)> = OnceLock::new();
    SCANNED.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
        let expected: Expected =
            serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).unwrap())
                .unwrap();
        let engine = Engine::default();
        let spec = ClusterSpec::from_engine(&engine);
        let report = scan_folder(
            &root,
            &engine,
            engine.reference_weights(),
            LibraryConfig::default(),
            spec,
        )
        .expect("scan");
        (expected, report)
    })
}

fn doc<'a>(report: &'a ScanReport, rel: &str) -> &'a doppel_index::scan::ScannedDoc {
    report
        .docs
        .iter()
        .find(|d| d.path == rel)
        .unwrap_or_else(|| panic!("{rel} was not found by the scan"))
}

/// A document of the corpus by its (UTF-8) name.
fn path(rel: &str) -> DocPath {
    DocPath::from(rel)
}

#[test]
fn metadata_files_are_not_documents() {
    let (_, report) = setup();
    assert!(report
        .docs
        .iter()
        .all(|d| d.path != "README.md" && d.path != "expected.json"));
}

#[test]
fn every_expected_group_is_one_cluster() {
    let (expected, report) = setup();
    let clusters = report.cluster_paths();
    for group in &expected.groups {
        let cluster = clusters
            .iter()
            .find(|c| c.contains(&path(&group[0])))
            .unwrap_or_else(|| panic!("{} is in no cluster", group[0]));
        for rel in group {
            assert!(
                cluster.contains(&path(rel)),
                "{rel} is not clustered with {}",
                group[0]
            );
        }
    }
}

#[test]
fn parts_are_found_inside_their_whole() {
    let (expected, report) = setup();
    for (part, whole) in &expected.containment {
        let pair = report
            .pair(&path(part), &path(whole))
            .unwrap_or_else(|| panic!("{part} / {whole}: no pair reported"));
        assert!(
            pair.verdict.contained,
            "{part} should be contained in {whole}: {:?}",
            pair.verdict
        );
        assert!(pair.verdict.fusion);
    }
}

#[test]
fn distractors_are_never_reported_as_duplicates() {
    let (expected, report) = setup();
    for (a, b) in &expected.distinct {
        doc(report, a);
        doc(report, b);
        if let Some(pair) = report.pair(&path(a), &path(b)) {
            assert!(
                !pair.verdict.fusion,
                "{a} / {b} must not be duplicates: {:?}",
                pair.verdict
            );
        }
    }
}

#[test]
fn empty_and_binary_files_are_skipped_with_their_reason() {
    let (expected, report) = setup();
    let pairs = report.pairs();
    for (rel, kind) in &expected.skipped {
        let reason = doc(report, rel)
            .skipped
            .as_ref()
            .unwrap_or_else(|| panic!("{rel} was indexed"));
        let matches = matches!(
            (kind.as_str(), reason),
            ("empty", Skip::NotText(NotText::Empty))
                | ("binary", Skip::NotText(NotText::Binary { .. }))
                | ("damaged", Skip::NotText(NotText::Format { .. }))
        );
        assert!(matches, "{rel}: expected {kind}, got {reason}");
        assert!(pairs.iter().all(|p| p.a != path(rel) && p.b != path(rel)));
    }
}

#[test]
fn nothing_outside_the_expected_groups_clusters() {
    let (expected, report) = setup();
    let mut allowed: Vec<Vec<DocPath>> = expected
        .groups
        .iter()
        .map(|g| g.iter().map(|p| path(p)).collect())
        .collect();
    // Parts cluster with their whole (and so with each other through it).
    for (part, whole) in &expected.containment {
        allowed.push(vec![path(part), path(whole)]);
    }
    for pair in report.pairs().iter().filter(|p| p.verdict.fusion) {
        assert!(
            allowed
                .iter()
                .any(|g| g.contains(&pair.a) && g.contains(&pair.b)),
            "unexpected duplicate pair {} / {}: {:?}",
            pair.a,
            pair.b,
            pair.verdict
        );
    }
}
