//! What a folder or the machine does to the index must never lose a file
//! silently: files that change while they are read, corrupt stored
//! fingerprints, two processes creating one index, storage errors.
//! Failures are injected (a file reader, a store fault), never raced.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{fixture, Fixture};

use doppel::doc::DocPath;
use doppel::engine::{Engine, EngineConfig};
use doppel::faces::report;
use doppel::pairing::cluster::ClusterSpec;
use doppel::pairing::library::LibraryConfig;
use doppel::runtime::collection::{read_bytes, Skip};
use doppel::runtime::index::{FileChange, FolderIndex};
use doppel::runtime::scan::ScanReport;

fn open(f: &Fixture) -> FolderIndex {
    FolderIndex::open(
        &f.folder,
        Engine::new(EngineConfig::default()),
        LibraryConfig::default(),
        Some(&f.index),
    )
    .unwrap()
    .0
}

/// Reads every file as usual but `victim`, which changes while it is read.
fn changes_while_read(index: &mut FolderIndex, victim: &'static str) {
    index.set_file_reader(Arc::new(move |path: &Path, cap| {
        if path.ends_with(victim) {
            Err(Skip::Changed)
        } else {
            read_bytes(path, cap)
        }
    }));
}

fn skip_of<'a>(report: &'a ScanReport, doc: &str) -> Option<&'a Skip> {
    let doc = DocPath::from(doc);
    report.docs.iter().find(|d| d.path == doc)?.skipped.as_ref()
}

#[test]
fn a_new_file_that_changes_while_an_indexed_scan_reads_it_is_reported() {
    let f = fixture();
    let mut index = open(&f);
    changes_while_read(&mut index, "misc/gettysburg.txt");
    let reconciled = index.reconcile().unwrap();
    assert!(reconciled
        .changes
        .iter()
        .any(|c| matches!(c, FileChange::Retry { path } if path.ends_with("misc/gettysburg.txt"))));
    let spec = ClusterSpec::from_engine(index.engine());
    let scan = ScanReport::from_index(index, spec, &reconciled).unwrap();
    assert_eq!(
        skip_of(&scan, "misc/gettysburg.txt"),
        Some(&Skip::Changed),
        "listed with its reason, not missing"
    );
    let text = report::text(&scan);
    assert!(
        text.contains("misc/gettysburg.txt") && text.contains("changed while being read"),
        "{text}"
    );
    assert!(
        !text.contains("will be read again"),
        "a one-off scan reads nothing again: {text}"
    );
}

#[test]
fn an_indexed_file_that_changes_while_read_again_is_reported_without_its_old_pairs() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    let edited = f.folder.join("edited/emma-ch1-edited.txt");
    let contents = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, format!("{contents}\nA line more.\n")).unwrap();
    changes_while_read(&mut index, "edited/emma-ch1-edited.txt");
    let reconciled = index.reconcile().unwrap();
    let spec = ClusterSpec::from_engine(index.engine());
    let scan = ScanReport::from_index(index, spec, &reconciled).unwrap();
    assert_eq!(
        skip_of(&scan, "edited/emma-ch1-edited.txt"),
        Some(&Skip::Changed)
    );
    let gone = DocPath::from("edited/emma-ch1-edited.txt");
    assert!(
        scan.pairs().iter().all(|p| p.a != gone && p.b != gone),
        "the report does not vouch for a version it could not read"
    );
}

#[test]
fn a_one_off_scan_does_not_promise_to_read_again() {
    assert_eq!(Skip::Changed.to_string(), "changed while being read");
}
