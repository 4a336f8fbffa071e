//! `doppel cluster scan` must give exactly what one machine gives: for the
//! same folder and settings, the scan run as DataFusion plans reports the
//! same documents (skips and their reasons), pairs with every score,
//! relations, boilerplate (each document's, its body made in the plans)
//! and clusters as `doppel scan --no-index`, byte for byte in the JSON
//! and text reports, whatever the partitions (1, 2, 7) and however small
//! the batches (many batches, dealt out of order).
//! The folders: the generated small library (planted copies, parts,
//! abridgements, translations, OCR, licences to learn as boilerplate) and
//! the sample corpus (PDF, EPUB, ALTO, an empty file to skip) with a
//! book as a folder of ALTO pages.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use doppel_cluster::scan::{scan_in_plans, Runner};
use doppel_cluster::PlanOptions;
use doppel_core::engine::Engine;
use doppel_eval::library::{make_library, LibraryOptions};
use doppel_index::collection::manifest::list_manifest;
use doppel_index::collection::{Listing, PageFolders};
use doppel_index::scan::{scan_folder_with, ScanHooks, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The small generated library, written under `dir`.
fn small_library(dir: &Path) -> PathBuf {
    let out = dir.join("library");
    let corpus = repository().join("tests/data/corpus");
    make_library(&corpus, &LibraryOptions::default())
        .unwrap()
        .write(&out)
        .unwrap();
    out
}

/// Both reports a script or a reader sees of `report`.
fn reports(report: &ScanReport, root: &Path, engine: &Engine) -> (String, String) {
    (
        doppel_report::json(report, root, engine.config()).unwrap(),
        doppel_report::text(report, root),
    )
}

/// The one-machine scan of `root`.
fn one_machine(root: &Path, engine: &Engine) -> ScanReport {
    let spec = ClusterSpec::from_engine(engine);
    scan_folder_with(
        root,
        engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        spec,
        &ScanHooks::default(),
    )
    .unwrap()
}

/// The scan of `listing` as DataFusion plans cut as `plan`.
fn in_plans(listing: Listing, engine: &Arc<Engine>, plan: PlanOptions) -> ScanReport {
    let spec = ClusterSpec::from_engine(engine);
    scan_in_plans(
        listing,
        Arc::clone(engine),
        LibraryConfig::default(),
        spec,
        &ScanHooks::default(),
        plan,
        Runner::Local,
    )
    .unwrap()
}

/// `root` scanned on 1, 2 and 7 partitions, in batches of `batch_files`,
/// reports what one machine reports.
fn equal_on_every_cut(root: &Path, batch_files: usize) -> ScanReport {
    equal_on_every_cut_of(root, batch_files, || {
        Listing::of_folder(root, &[], PageFolders::Auto)
    })
}

/// The documents `listing` makes, scanned on 1, 2 and 7 partitions in
/// batches of `batch_files`, report what one machine reports of `root`.
fn equal_on_every_cut_of(
    root: &Path,
    batch_files: usize,
    listing: impl Fn() -> Listing,
) -> ScanReport {
    let engine = Arc::new(Engine::default());
    let expected = one_machine(root, &engine);
    let (json, text) = reports(&expected, root, &engine);
    assert!(
        !expected.pairs().is_empty() && !expected.clusters.is_empty(),
        "the folder has duplicates to find"
    );
    for partitions in [1, 2, 7] {
        let plan = PlanOptions {
            partitions,
            batch_files,
            ..PlanOptions::default()
        };
        let got = in_plans(listing(), &engine, plan);
        let (got_json, got_text) = reports(&got, root, &engine);
        assert!(
            got_json == json,
            "JSON differs on {partitions} partitions, batches of {batch_files}"
        );
        assert_eq!(got_text, text, "{partitions} partitions");
        // The bodies made in the plans: each document's boilerplate where
        // one machine finds it, in words and bytes.
        assert!(
            got.boilerplate.documents == expected.boilerplate.documents,
            "boilerplate differs on {partitions} partitions"
        );
    }
    expected
}

#[test]
fn the_generated_library_gives_one_machines_report_on_any_partitions() {
    let tmp = tempfile::tempdir().unwrap();
    let root = small_library(tmp.path());
    let report = equal_on_every_cut(&root, 3);
    assert!(
        !report.boilerplate.passages.is_empty() && report.boilerplate.documents.len() > 10,
        "the library's licences are learned as boilerplate, and equal"
    );
}

#[test]
fn the_sample_corpus_gives_one_machines_report_skips_formats_and_books_included() {
    let tmp = tempfile::tempdir().unwrap();
    let root = sample_corpus_with_a_book(tmp.path());
    let report = equal_on_every_cut(&root, 2);
    assert!(
        report.docs.iter().any(|d| d.skipped.is_some()),
        "the sample corpus has a file to skip (its empty one)"
    );
    let book = report
        .docs
        .iter()
        .find(|d| d.path.as_bytes() == b"emma_pages");
    assert!(
        book.is_some_and(|b| b.skipped.is_none()),
        "the folder of pages is read as one book"
    );
}

/// The sample corpus copied under `dir`, with a book as a folder of ALTO
/// pages (it travels to the reader with its pages as listed).
fn sample_corpus_with_a_book(dir: &Path) -> PathBuf {
    let root = dir.join("corpus");
    copy_tree(&repository().join("sample-corpus"), &root);
    copy_tree(
        &repository().join("tests/data/formats/emma_pages"),
        &root.join("emma_pages"),
    );
    root
}

/// The folder `from` copied into `to`, folders and all.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn a_manifest_of_the_folder_gives_the_folders_report() {
    let tmp = tempfile::tempdir().unwrap();
    let root = sample_corpus_with_a_book(tmp.path());
    let root = root.canonicalize().unwrap();
    // As `find . -type f` lists it, backwards, once more than once, the
    // manifest hidden (so a scan of the folder does not read it).
    let mut listed = Vec::new();
    walk(&root, &root, &mut listed);
    listed.reverse();
    listed.push(listed[0].clone());
    let manifest = root.join(".manifest");
    std::fs::write(&manifest, listed.join("\n")).unwrap();
    let report = equal_on_every_cut_of(&root, 2, || {
        list_manifest(&manifest, &[], PageFolders::Auto).unwrap()
    });
    assert!(
        report
            .docs
            .iter()
            .any(|d| d.path.as_bytes() == b"emma_pages"),
        "the pages listed one by one are gathered into their book"
    );
}

/// Every file beneath `dir`, as `./`-relative paths to `root`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(root, &path, out);
        } else {
            let relative = path.strip_prefix(root).unwrap();
            out.push(format!("./{}", relative.display()));
        }
    }
}
