//! The persistent folder index: a second open reads no file, changes made
//! while doppel was not running are reconciled, verdicts survive restarts.

mod common;
mod faulty_store;

use common::{fixture, Fixture};

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use doppel_core::doc::CuratorVerdict;
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::index::FolderIndex;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

fn open(f: &Fixture) -> FolderIndex {
    open_with(
        f,
        EngineConfig::default(),
        LibraryConfig::default(),
        &f.index,
    )
}

/// The fixture's folder opened under these configurations, with its index at `index`.
fn open_with(
    f: &Fixture,
    engine: EngineConfig,
    library: LibraryConfig,
    index: &Path,
) -> FolderIndex {
    FolderIndex::open(&f.folder, Engine::new(engine), library, Some(index))
        .unwrap()
        .0
}

fn clusters(index: &FolderIndex) -> BTreeSet<BTreeSet<String>> {
    common::cluster_paths(index.library(), &ClusterSpec::from_engine(index.engine()))
}

/// Every kept pair as (path, path, scores), order-free.
fn pairs(index: &FolderIndex) -> Vec<(String, String, String)> {
    common::scored_pairs(index.library())
}

#[test]
fn second_open_of_an_unchanged_folder_reads_no_file() {
    let f = fixture();
    let mut first = open(&f);
    let report = first.reconcile().unwrap();
    assert_eq!(report.read, 33, "every file is read once: {report:?}");
    assert_eq!(report.skipped, 3);
    let before = clusters(&first);
    assert!(before.len() >= 7);
    let first_pairs = pairs(&first);
    drop(first);

    let mut second = open(&f);
    assert_eq!(
        clusters(&second),
        before,
        "clusters come back from the store alone"
    );
    assert_eq!(
        pairs(&second),
        first_pairs,
        "the verified pairs are loaded as they were kept"
    );
    let report = second.reconcile().unwrap();
    assert_eq!(report.read, 0, "{report:?}");
    assert_eq!(report.unchanged, 33);
    assert_eq!(
        second.skipped().len(),
        3,
        "skipped files and reasons persist"
    );
    assert!(second.store().integrity_check().unwrap());
}

#[test]
fn a_missing_library_entry_is_made_good_from_the_stored_fingerprints() {
    let f = fixture();
    let mut first = open(&f);
    first.reconcile().unwrap();
    let (before, first_pairs) = (clusters(&first), pairs(&first));
    drop(first);
    // One document's entry lost (an index written by a build that kept
    // none for it): the others' entries alone would restore a library
    // without it.
    let conn = rusqlite::Connection::open(&f.index).unwrap();
    let lost = conn
        .execute(
            "DELETE FROM document_entries WHERE id = (SELECT min(id) FROM document_entries)",
            [],
        )
        .unwrap();
    assert_eq!(lost, 1);
    drop(conn);

    let mut second = open(&f);
    assert!(!second.prepare_some(), "verified again, its tables filled");
    assert_eq!(clusters(&second), before, "verified again, nothing lost");
    assert_eq!(pairs(&second), first_pairs);
    let report = second.reconcile().unwrap();
    assert_eq!(report.read, 0, "from the stored fingerprints: {report:?}");
    drop(second);

    let mut third = open(&f);
    assert!(
        third.prepare_some(),
        "the entries were written back: restored, its tables left to fill"
    );
    assert_eq!(clusters(&third), before);
    assert_eq!(pairs(&third), first_pairs);
}

#[test]
fn after_a_floor_change_one_open_verifies_again_and_the_next_restores() {
    let f = fixture();
    let mut first = open(&f);
    first.reconcile().unwrap();
    let loose = pairs(&first);
    drop(first);
    let mut stricter = LibraryConfig::default();
    stricter.floors.set(AlgorithmId::Minhash, 0.5);
    stricter.floors.set(AlgorithmId::Shingle, 0.5);
    stricter.floors.set(AlgorithmId::Si, 0.95);
    stricter.containment_floor = 0.5;
    let open_stricter = || open_with(&f, EngineConfig::default(), stricter.clone(), &f.index);
    let mut second = open_stricter();
    assert!(!second.prepare_some(), "verified under the new floors");
    let (kept, kept_clusters) = (pairs(&second), clusters(&second));
    assert!(kept.len() < loose.len(), "stricter floors keep fewer pairs");
    drop(second);

    // The same pairs as a fresh index under the new floors.
    let fresh_index = f.index.with_extension("fresh");
    let mut fresh = open_with(&f, EngineConfig::default(), stricter.clone(), &fresh_index);
    fresh.reconcile().unwrap();
    assert_eq!(kept, pairs(&fresh), "verified again exactly as built");

    let mut third = open_stricter();
    assert!(
        third.prepare_some(),
        "restored from what the second open wrote"
    );
    assert_eq!(pairs(&third), kept);
    assert_eq!(clusters(&third), kept_clusters);
}

#[test]
fn changes_made_while_closed_are_reconciled() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    drop(index);

    // While doppel is not running: a copy arrives, a file goes, one is edited.
    fs::copy(
        f.folder.join("misc/gettysburg.txt"),
        f.folder.join("gettysburg copy.txt"),
    )
    .unwrap();
    fs::remove_file(f.folder.join("edited/emma-ch1-edited.txt")).unwrap();
    let sotu = f.folder.join("sotu/1790-washington.txt");
    let mut text = fs::read_to_string(&sotu).unwrap();
    text.push_str("\nA postscript added by the curator.\n");
    fs::write(&sotu, text).unwrap();

    let mut index = open(&f);
    let report = index.reconcile().unwrap();
    assert_eq!((report.read, report.removed), (2, 1), "{report:?}");
    let now = clusters(&index);
    assert!(now
        .iter()
        .any(|c| c.contains("gettysburg copy.txt") && c.contains("misc/gettysburg.txt")));
    // The chapter's other forms (EPUB, PDF scan, ALTO) keep its cluster.
    let emma: BTreeSet<String> = [
        "austen/emma-ch1.txt",
        "formats/emma.epub",
        "formats/emma_scan.pdf",
        "formats/emma_scan.xml",
    ]
    .map(String::from)
    .into();
    assert!(
        now.contains(&emma),
        "the edited copy left its cluster, the rest stay: {now:?}"
    );
    assert!(!now.iter().any(|c| c.contains("edited/emma-ch1-edited.txt")));
    assert!(index
        .library()
        .id_of(&"edited/emma-ch1-edited.txt".into())
        .is_none());
}

#[test]
fn a_reopened_index_finds_candidates_among_what_it_restored() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    drop(index);
    for prepare_first in [false, true] {
        let mut index = open(&f);
        // The candidate tables are filed when a change needs them, or a
        // step at a time ahead of one.
        if prepare_first {
            let mut steps = 0;
            while index.prepare_some() {
                steps += 1;
            }
            assert!(steps > 0, "a reopen leaves the tables to fill");
        }
        let copy = f
            .folder
            .join(format!("gettysburg copy {prepare_first}.txt"));
        fs::copy(f.folder.join("misc/gettysburg.txt"), &copy).unwrap();
        index.upsert_path(&copy).unwrap();
        let name = format!("gettysburg copy {prepare_first}.txt");
        assert!(
            clusters(&index)
                .iter()
                .any(|c| c.contains(&name) && c.contains("misc/gettysburg.txt")),
            "the copy joins its original (prepared first: {prepare_first})"
        );
        assert!(!index.prepare_some(), "nothing left to do after a change");
    }
}

#[test]
fn curator_verdicts_survive_a_restart() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    let (a, b) = (
        "austen/persuasion-ch1.txt",
        "copies/persuasion-ch1 (copy).txt",
    );
    index
        .set_pair_verdict(&a.into(), &b.into(), Some(CuratorVerdict::NotDuplicate))
        .unwrap();
    index.set_keeper(&b.into(), true).unwrap();
    assert!(!clusters(&index)
        .iter()
        .any(|c| c.contains(a) && c.contains(b)));
    drop(index);

    let mut index = open(&f);
    index.reconcile().unwrap();
    assert_eq!(
        index.library().pair_verdict(&a.into(), &b.into()),
        Some(CuratorVerdict::NotDuplicate)
    );
    assert!(!clusters(&index)
        .iter()
        .any(|c| c.contains(a) && c.contains(b)));
}

#[test]
fn a_threshold_change_does_not_refingerprint_but_an_algorithm_change_does() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    drop(index);
    let mut stricter = EngineConfig::default();
    stricter
        .thresholds
        .set(doppel_core::engine::algo::AlgorithmId::Minhash, 0.9);
    let (mut index, _) = FolderIndex::open(
        &f.folder,
        Engine::new(stricter),
        LibraryConfig::default(),
        Some(&f.index),
    )
    .unwrap();
    assert_eq!(index.reconcile().unwrap().read, 0);
    drop(index);
    let mut fewer = EngineConfig::default();
    fewer.algorithms.shingle.w = 5;
    let (mut index, _) = FolderIndex::open(
        &f.folder,
        Engine::new(fewer),
        LibraryConfig::default(),
        Some(&f.index),
    )
    .unwrap();
    assert_eq!(
        index.reconcile().unwrap().read,
        33,
        "new shingle size: every file again"
    );
}

#[test]
fn an_interrupted_refingerprint_starts_over_at_the_next_open() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    drop(index);
    let open_w5 = || {
        let mut config = EngineConfig::default();
        config.algorithms.shingle.w = 5;
        open_with(&f, config, LibraryConfig::default(), &f.index)
    };
    // Stopped before a single file was read again under the new shingle
    // size: the stored fingerprints are still the old configuration's.
    let mut index = open_w5();
    let report = index.reconcile_with(&mut |_| false).unwrap();
    assert!(report.cancelled && report.read == 33, "{report:?}");
    drop(index);

    let mut index = open_w5();
    assert_eq!(
        index.reconcile().unwrap().read,
        33,
        "nothing was read under the new configuration: every file again"
    );
    drop(index);
    let mut index = open_w5();
    assert_eq!(index.reconcile().unwrap().read, 0, "and then it is current");
}

#[test]
fn the_index_never_lives_inside_the_folder_and_the_folder_is_untouched() {
    let f = fixture();
    let inside = f.folder.join("index.sqlite");
    let err = FolderIndex::open(
        &f.folder,
        Engine::default(),
        LibraryConfig::default(),
        Some(&inside),
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("inside"), "{err:#}");
    let listing = |p: &Path| {
        let mut v: Vec<_> = walk(p);
        v.sort();
        v
    };
    let before = listing(&f.folder);
    let mut index = open(&f);
    index.reconcile().unwrap();
    assert_eq!(
        listing(&f.folder),
        before,
        "doppel wrote nothing into the folder"
    );
}

fn walk(p: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    for e in fs::read_dir(p).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push((e.path(), e.metadata().unwrap().len()));
        }
    }
    out
}

#[test]
fn corruption_found_by_the_background_check_moves_the_index_aside_and_rebuilds() {
    let f = fixture();
    let mut first = open(&f);
    first.reconcile().unwrap();
    let before = clusters(&first);
    drop(first);

    // Clobber the `pairs_by_b` index: loading never reads it, so only the
    // integrity check (running beside the load) can notice.
    let (page_size, root_page): (i64, i64) = {
        let conn = rusqlite::Connection::open(&f.index).unwrap();
        (
            conn.query_row("PRAGMA page_size", [], |r| r.get(0))
                .unwrap(),
            conn.query_row(
                "SELECT rootpage FROM sqlite_master WHERE name = 'pairs_by_b'",
                [],
                |r| r.get(0),
            )
            .unwrap(),
        )
    };
    let mut bytes = fs::read(&f.index).unwrap();
    let (page, page_size) = (((root_page - 1) * page_size) as usize, page_size as usize);
    for (i, b) in bytes[page..page + page_size].iter_mut().enumerate() {
        *b = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3];
    }
    fs::write(&f.index, &bytes).unwrap();

    let (mut second, report) = FolderIndex::open(
        &f.folder,
        Engine::new(EngineConfig::default()),
        LibraryConfig::default(),
        Some(&f.index),
    )
    .unwrap();
    let moved = report
        .moved_aside
        .expect("the corrupt index is moved aside");
    assert!(
        matches!(moved.problem, doppel_store::OpenProblem::Corrupt { .. }),
        "{:?}",
        moved.problem
    );
    assert_eq!(fs::read(&moved.to).unwrap(), bytes, "kept as it was");
    assert_eq!(second.library().len(), 0, "nothing of the bad file is used");
    assert_eq!(
        second.reconcile().unwrap().read,
        33,
        "every file read again"
    );
    assert_eq!(clusters(&second), before);
    assert!(second.store().integrity_check().unwrap());
}

/// A store the caller opened and hands over is held to what any open
/// holds an index to: a file inside the folder is refused (doppel never
/// writes there) and so is another folder's index, each before anything
/// is written; the folder's own loads as `FolderIndex::open` loads it.
#[test]
fn a_store_handed_over_is_refused_inside_the_folder_and_for_another_folder() {
    use doppel_index::index::IndexError;
    use doppel_store::{SqliteStore, StoreError};
    let f = fixture();
    let handed = |index: &Path| {
        let (store, _) = SqliteStore::open(index).unwrap();
        FolderIndex::open_with_store(
            &f.folder,
            Engine::default(),
            LibraryConfig::default(),
            Box::new(store),
        )
    };
    let inside = f.folder.join("index.sqlite");
    let Err(err) = handed(&inside) else {
        panic!("an index inside the folder was taken");
    };
    assert!(
        matches!(err, IndexError::Store(StoreError::InsideRoot { .. })),
        "{err}"
    );
    std::fs::remove_file(&inside).unwrap();

    let other = f.index.with_file_name("other-folder");
    std::fs::create_dir_all(&other).unwrap();
    let others = f.index.with_file_name("other.sqlite");
    drop(
        FolderIndex::open(
            &other,
            Engine::default(),
            LibraryConfig::default(),
            Some(&others),
        )
        .unwrap(),
    );
    let Err(err) = handed(&others) else {
        panic!("another folder's index was taken");
    };
    assert!(matches!(err, IndexError::OtherFolder { .. }), "{err}");

    let mut index = handed(&f.index).unwrap();
    index.reconcile().unwrap();
    drop(index);
    let mut reopened = open(&f);
    assert_eq!(
        reopened.reconcile().unwrap().read,
        0,
        "all of it was stored"
    );
    assert_eq!(reopened.store().document_count().unwrap(), 33);
}

/// A chunk of files is committed together or not at all: when the store
/// write of a reconcile fails (a full disk), none of the chunk's files is
/// in the index, and the next reconcile reads exactly those files again
/// and keeps the pairs and clusters a reconcile without the failure keeps.
#[test]
fn a_failed_chunk_write_commits_none_of_its_files_and_the_next_reconcile_reads_them() {
    let f = fixture();
    let clean_index = f.index.with_file_name("clean.sqlite");
    let mut clean = open_with(
        &f,
        EngineConfig::default(),
        LibraryConfig::default(),
        &clean_index,
    );
    clean.reconcile().unwrap();
    let faults = faulty_store::Faults::default();
    let mut index = faulty_store::open_index(
        &f.folder,
        Engine::default(),
        LibraryConfig::default(),
        &f.index,
        &faults,
    );
    // The third file's write fails: the two before it go back too.
    faults.fail_after(2, 1);
    assert!(
        index.reconcile().is_err(),
        "the injected full disk fails it"
    );
    assert_eq!(faults.pending(), 0);
    assert_eq!(
        index.store().document_count().unwrap(),
        0,
        "no file of the failed chunk was committed"
    );
    drop(index);
    let mut index = open(&f);
    let report = index.reconcile().unwrap();
    assert_eq!(report.read, 33, "every uncommitted file is read again");
    assert_eq!(pairs(&index), pairs(&clean));
    assert_eq!(clusters(&index), clusters(&clean));
    assert!(index.store().integrity_check().unwrap());
    drop(index);
    let reopened = open(&f);
    assert_eq!(pairs(&reopened), pairs(&clean), "the pairs were stored");
}
