//! A one-shot scan of a fresh index learns its boilerplate at once, after
//! its last file (`runtime::index::at_once`), where a watcher's index
//! learns chunk by chunk. Both must end in the same index: the same pairs
//! and scores, the same passages, every document's spans, the texts kept
//! for rulings. A scan stopped after its commits but before that learning
//! (where a kill leaves it) is settled the next time the index is opened,
//! even by an open that reads nothing. The small generated library is made
//! from the books of `tests/data/corpus/`.

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use doppel_core::engine::Engine;
use doppel_index::boilerplate::PassageSummary;
use doppel_index::index::{FolderIndex, IndexOptions, Phase};
use doppel_pairing::library::LibraryConfig;

mod common;
use common::boilerplate::state;

fn open(dir: &Path, at: &Path) -> FolderIndex {
    FolderIndex::open(dir, Engine::default(), LibraryConfig::default(), Some(at))
        .unwrap()
        .0
}

/// Read three files a chunk.
fn in_threes() -> IndexOptions {
    IndexOptions {
        chunk_files: 3,
        ..IndexOptions::default()
    }
}

/// A one-shot index of `dir` at `at`, read as `options` say.
fn one_shot_with(dir: &Path, at: &Path, options: IndexOptions) -> FolderIndex {
    let mut index = open(dir, at);
    index.set_one_shot(true);
    index.set_options(options);
    index
}

/// A one-shot index of `dir` at `at`, read three files a chunk.
fn one_shot(dir: &Path, at: &Path) -> FolderIndex {
    one_shot_with(dir, at, in_threes())
}

/// The small library written under `tmp`, and its index learned chunk by
/// chunk (a watcher's).
fn library_and_its_index(tmp: &Path) -> (std::path::PathBuf, FolderIndex) {
    let dir = tmp.join("folder");
    common::make_small_library(&dir);
    let mut watched = open(&dir, &tmp.join("watched.sqlite"));
    watched.set_options(in_threes());
    watched.reconcile().unwrap();
    assert!(
        !watched.boilerplate_report().unwrap().passages.is_empty(),
        "the small library has licences to learn"
    );
    (dir, watched)
}

/// Learned beside the pairing (a small folder) or before it (a large one).
#[test]
fn a_one_shot_scan_learns_at_once_what_a_watcher_learns_chunk_by_chunk() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, watched) = library_and_its_index(tmp.path());
    let before = tmp.path().join("before.sqlite");
    // Past this many samples, learned before pairing (none: always).
    let before_pairing = IndexOptions {
        learn_beside_pairing: 0,
        ..in_threes()
    };
    let mut learned_before = one_shot_with(&dir, &before, before_pairing);
    learned_before.reconcile().unwrap();
    assert_eq!(state(&learned_before), state(&watched));
    let at = tmp.path().join("scan.sqlite");
    let mut scanned = one_shot(&dir, &at);
    scanned.reconcile().unwrap();
    assert!(!scanned.holds_learner(), "no learner was kept up to date");
    assert_eq!(state(&scanned), state(&watched));
    // What it stored is settled: opened again, nothing is read.
    drop(scanned);
    let mut again = open(&dir, &at);
    assert_eq!(again.reconcile().unwrap().read, 0);
    assert_eq!(state(&again), state(&watched));
}

#[test]
fn a_scan_stopped_before_learning_is_settled_when_next_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, watched) = library_and_its_index(tmp.path());
    let at = tmp.path().join("scan.sqlite");
    let stop_before_pairing = IndexOptions {
        on_phase: Some(Arc::new(|phase| match phase {
            Phase::Pairing => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })),
        ..in_threes()
    };
    let mut stopped = one_shot_with(&dir, &at, stop_before_pairing);
    let report = stopped.reconcile().unwrap();
    assert!(report.read > 0);
    assert!(report.cancelled, "stopped before its end");
    assert!(
        stopped.boilerplate_report().unwrap().passages.is_empty(),
        "stopped before anything was learned"
    );
    drop(stopped);
    // An open that reads nothing (a report's) settles what it must.
    drop(open(&dir, &at));
    let mut index = open(&dir, &at);
    let reads = common::count_reads(&mut index);
    index.reconcile().unwrap();
    let with_boilerplate = watched.boilerplate_report().unwrap().documents.len();
    assert_eq!(
        reads.load(Ordering::SeqCst),
        with_boilerplate,
        "the documents with boilerplate, and only those, are read again"
    );
    assert_eq!(state(&index), state(&watched));
}

/// Passages the curator overruled before the scan (every one learned):
/// the documents holding them keep their text though they have no
/// boilerplate left, so restoring one reads no file.
#[test]
fn a_one_shot_scan_under_overrules_keeps_the_texts_a_restore_needs() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, watched) = library_and_its_index(tmp.path());
    let passages: Vec<PassageSummary> = watched.boilerplate_report().unwrap().passages;
    let overruled_first = |at: &Path, once: bool| {
        let mut index = open(&dir, at);
        index.set_options(in_threes());
        for passage in &passages {
            index.overrule_passage(passage, true).unwrap();
        }
        if once {
            // Ruling builds a learner; a scan then learns at once.
            index.drop_learner();
            index.set_one_shot(true);
        }
        index.reconcile().unwrap();
        index
    };
    let mut scanned = overruled_first(&tmp.path().join("scan.sqlite"), true);
    let mut chunked = overruled_first(&tmp.path().join("chunked.sqlite"), false);
    assert_eq!(state(&scanned), state(&chunked));
    assert!(scanned.boilerplate_report().unwrap().documents.is_empty());
    let longest = passages.iter().max_by_key(|p| p.words).unwrap();
    let reads = common::count_reads(&mut scanned);
    assert!(!scanned.overrule_passage(longest, false).unwrap().is_empty());
    assert_eq!(reads.load(Ordering::SeqCst), 0, "restored from kept texts");
    chunked.overrule_passage(longest, false).unwrap();
    assert_eq!(state(&scanned), state(&chunked));
}
