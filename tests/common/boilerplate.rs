//! Shared by the boilerplate tests: the small generated library
//! collection, scans and indexes of it, and what a user sees of each.

use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};

use doppel_core::engine::Engine;
use doppel_eval::library::{make_library, LibraryCollection, LibraryOptions};
use doppel_index::index::FolderIndex;
use doppel_index::scan::{scan_folder, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

/// The small generated library collection, made once per test binary.
pub fn small() -> &'static LibraryCollection {
    static SMALL: OnceLock<LibraryCollection> = OnceLock::new();
    SMALL.get_or_init(|| make_library(&super::test_corpus(), &LibraryOptions::default()).unwrap())
}

/// Write `library`'s documents (those `keep` accepts) under `dir`.
pub fn write(library: &LibraryCollection, dir: &Path, keep: impl Fn(&str) -> bool) {
    for d in library.documents.iter().filter(|d| keep(&d.path)) {
        let path = dir.join(&d.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &d.text).unwrap();
    }
}

/// A one-shot `--no-index` scan of `dir` under `config`.
pub fn scan(dir: &Path, config: LibraryConfig) -> ScanReport {
    let engine = Engine::default();
    let spec = ClusterSpec::from_engine(&engine);
    scan_folder(dir, &engine, engine.reference_weights(), config, spec).expect("scan")
}

/// Everything a user sees of a report: every kept pair with its scores and
/// verdict, the passages, and each document's boilerplate.
pub fn seen(report: &ScanReport) -> String {
    let pairs: Vec<String> = report
        .pairs()
        .iter()
        .map(|p| format!("{} {} {:?} {:?}", p.a, p.b, p.scores, p.verdict))
        .collect();
    format!(
        "{pairs:#?}\n{:#?}\n{:#?}",
        report.boilerplate.passages, report.boilerplate.documents
    )
}

/// The report of the index at `index` over `dir` after a reconcile.
pub fn indexed(dir: &Path, index: &Path) -> (ScanReport, usize) {
    let engine = Engine::default();
    let spec = ClusterSpec::from_engine(&engine);
    let (mut folder, _) =
        FolderIndex::open(dir, engine, LibraryConfig::default(), Some(index)).unwrap();
    let reconciled = folder.reconcile().unwrap();
    (
        ScanReport::from_index(folder, spec, &reconciled).unwrap(),
        reconciled.read,
    )
}

/// The learned passage with the most words (the licence) of `index`.
pub fn longest_passage(index: &FolderIndex) -> doppel_index::boilerplate::PassageSummary {
    index
        .boilerplate_report()
        .unwrap()
        .passages
        .into_iter()
        .max_by_key(|p| p.words)
        .unwrap()
}

/// The index's kept pairs (with their scores) and its boilerplate report,
/// read without consuming it.
pub fn state(index: &FolderIndex) -> String {
    let report = index.boilerplate_report().unwrap();
    format!(
        "{:#?}\n{:#?}\n{:#?}",
        super::scored_pairs(index.library()),
        report.passages,
        report.documents
    )
}

/// Open (or create) the index at `at` of `dir`, reading every file through
/// a reader that counts the files read.
pub fn counted(dir: &Path, at: &Path) -> (FolderIndex, Arc<AtomicUsize>) {
    let (mut index, _) =
        FolderIndex::open(dir, Engine::default(), LibraryConfig::default(), Some(at)).unwrap();
    let reads = super::count_reads(&mut index);
    (index, reads)
}
