//! What a folder or the machine does to the index must never lose a file
//! silently: files that change while they are read, corrupt stored
//! fingerprints, two processes creating one index, storage errors.
//! Failures are injected (a file reader, a store fault), never raced.

mod common;
mod faulty_store;

use std::path::Path;
use std::sync::Arc;

use common::{fixture, Fixture};

use doppel_core::doc::DocPath;
use doppel_core::engine::{Engine, EngineConfig};

use doppel_index::collection::{read_bytes, Skip};
use doppel_index::index::{FileChange, FolderIndex, IndexOptions};
use doppel_index::scan::ScanReport;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use doppel_store::StoredBoilerplate;

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
    index.set_options(IndexOptions {
        file_reader: Some(Arc::new(move |path: &Path, cap| {
            if path.ends_with(victim) {
                Err(Skip::Changed)
            } else {
                read_bytes(path, cap)
            }
        })),
        ..index.options().clone()
    });
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
    let text = doppel_report::text(&scan, &f.folder);
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

const ORIGINAL: &str = "austen/persuasion-ch1.txt";
const COPY: &str = "copies/persuasion-ch1 (copy).txt";

/// The shingle resemblance of the kept pair {a, b}, if kept.
fn resemblance(index: &FolderIndex, a: &str, b: &str) -> Option<f64> {
    let lib = index.library();
    let (a, b) = (lib.id_of(&a.into())?, lib.id_of(&b.into())?);
    lib.pair(a, b)?
        .get(&doppel_core::engine::algo::AlgorithmId::Shingle)?
        .value()
}

/// Overwrite 64 bytes of `doc`'s stored fingerprint blob with 0xff, behind
/// the index's back (the checksum beside it is left as it was).
fn corrupt_blob(index_path: &Path, doc: &str) {
    let conn = rusqlite::Connection::open(index_path).unwrap();
    let blob: Vec<u8> = conn
        .query_row(
            "SELECT p.fingerprints FROM document_prints p JOIN documents d ON d.id = p.id \
             WHERE d.path = ?1",
            [doc.as_bytes()],
            |r| r.get(0),
        )
        .unwrap();
    let mut bad = blob.clone();
    let at = bad.len() / 2;
    bad[at..at + 64].fill(0xff);
    let changed = conn
        .execute(
            "UPDATE document_prints SET fingerprints = ?1 \
             WHERE id = (SELECT id FROM documents WHERE path = ?2)",
            rusqlite::params![bad, doc.as_bytes()],
        )
        .unwrap();
    assert_eq!(changed, 1);
}

#[test]
fn a_corrupt_stored_fingerprint_is_read_again_and_the_identical_pair_scores_one() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    assert_eq!(resemblance(&index, ORIGINAL, COPY), Some(1.0));
    drop(index);
    corrupt_blob(&f.index, ORIGINAL);
    let mut index = open(&f);
    // The copy changes (touched): verifying it reads the original's
    // stored fingerprints, which fail their checksum.
    let copy = f.folder.join(COPY);
    let file = std::fs::File::options().append(true).open(&copy).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    let reconciled = index.reconcile().unwrap();
    assert!(
        reconciled.changes.contains(&FileChange::Indexed {
            path: ORIGINAL.into()
        }),
        "the original is read again: {:?}",
        reconciled.changes
    );
    assert_eq!(resemblance(&index, ORIGINAL, COPY), Some(1.0));
    assert!(index.store().integrity_check().unwrap());
    drop(index);
    // What was written again is whole.
    let index = open(&f);
    assert_eq!(resemblance(&index, ORIGINAL, COPY), Some(1.0));
}

#[test]
fn a_corrupt_stored_fingerprint_met_on_open_is_read_again() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    drop(index);
    corrupt_blob(&f.index, ORIGINAL);
    // Another library configuration verifies every stored fingerprint again.
    let library = LibraryConfig {
        containment_floor: 0.6,
        ..LibraryConfig::default()
    };
    let (mut index, _) = FolderIndex::open(
        &f.folder,
        Engine::new(EngineConfig::default()),
        library,
        Some(&f.index),
    )
    .unwrap();
    let reconciled = index.reconcile().unwrap();
    assert_eq!(reconciled.read, 1, "{reconciled:?}");
    assert_eq!(resemblance(&index, ORIGINAL, COPY), Some(1.0));
}

/// The curator's tables as every schema before 6 had them (one verdict
/// per pair, no curator, no history): the first step of each downgrade.
const VERDICTS_BEFORE_6: &str = "
    DROP TABLE pair_verdicts; DROP TABLE verdict_history; DROP TABLE doc_verdicts;
    CREATE TABLE pair_verdicts (
        a BLOB NOT NULL, b BLOB NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('duplicate', 'not-duplicate')),
        set_at_ns INTEGER NOT NULL, PRIMARY KEY (a, b), CHECK (a < b)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE doc_verdicts (
        path BLOB PRIMARY KEY, verdict TEXT NOT NULL CHECK (verdict IN ('keep')),
        set_at_ns INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;";

/// Each document's part in learning as schema 6 kept it: samples and
/// findings in one postcard blob, a `document_boilerplate` row each, and
/// no `samples` column beside the fingerprints.
fn back_to_schema_6(f: &Fixture, parts: &[(DocPath, StoredBoilerplate)]) {
    let conn = rusqlite::Connection::open(&f.index).unwrap();
    conn.execute_batch("DELETE FROM document_boilerplate")
        .unwrap();
    for (doc, part) in parts {
        conn.execute(
            "INSERT INTO document_boilerplate (id, boilerplate) \
             SELECT id, ?2 FROM documents WHERE path = ?1",
            rusqlite::params![doc.as_bytes(), postcard::to_allocvec(part).unwrap()],
        )
        .unwrap();
    }
    // Schema 7 added the samples, 8 the keeper facts.
    conn.execute_batch(
        "ALTER TABLE document_prints DROP COLUMN samples;
         ALTER TABLE documents DROP COLUMN quality;
         ALTER TABLE documents DROP COLUMN words;
         ALTER TABLE documents DROP COLUMN text_form;
         PRAGMA user_version = 6;",
    )
    .unwrap();
}

/// The schema version of the index at `f`.
fn schema_of(f: &Fixture) -> i32 {
    rusqlite::Connection::open(&f.index)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

/// An index of the sample corpus turned back into schema 6, then into an
/// older one by `downgrade` (SQL, after [`VERDICTS_BEFORE_6`]), then
/// opened: it must be migrated to this build's schema. Returns the fixture
/// and the opened index (dropped first).
fn migrated_from(downgrade: &str) -> (Fixture, FolderIndex) {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    let parts = index.store().boilerplate().unwrap();
    drop(index);
    back_to_schema_6(&f, &parts);
    rusqlite::Connection::open(&f.index)
        .unwrap()
        .execute_batch(&format!("{VERDICTS_BEFORE_6}\n{downgrade}"))
        .unwrap();
    let index = open(&f);
    assert_eq!(schema_of(&f), doppel_store::SCHEMA_VERSION);
    (f, index)
}

/// An index of schema 6 (each document's samples and findings in a
/// boilerplate row of its own) opens and is migrated without reading a
/// file again: every document keeps its samples and findings, only those
/// with boilerplate keep a row, and the report says what it said.
#[test]
fn an_index_of_schema_6_is_migrated_keeping_what_was_learned() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    let parts = index.store().boilerplate().unwrap();
    let with_boilerplate = parts.iter().filter(|(_, b)| b.has_boilerplate()).count();
    assert!(
        with_boilerplate > 0,
        "the sample corpus's e-texts share a licence"
    );
    assert!(with_boilerplate < parts.len());
    let report = format!("{:?}", index.boilerplate_report().unwrap());
    drop(index);
    back_to_schema_6(&f, &parts);

    let mut index = open(&f);
    assert_eq!(schema_of(&f), doppel_store::SCHEMA_VERSION);
    assert_eq!(index.store().boilerplate().unwrap(), parts);
    let rows: i64 = rusqlite::Connection::open(&f.index)
        .unwrap()
        .query_row("SELECT count(*) FROM document_boilerplate", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(rows as usize, with_boilerplate);
    assert_eq!(format!("{:?}", index.boilerplate_report().unwrap()), report);
    // Rows from before schema 8 lack the keeper facts, so each indexed
    // file is read once more for them, and then never again.
    let first = index.reconcile().unwrap().read;
    assert!(first > 0, "the keeper facts are read");
    assert_eq!(index.reconcile().unwrap().read, 0, "nothing is read again");
    assert_eq!(
        index.store().boilerplate().unwrap(),
        parts,
        "what was learned stays"
    );
}

/// Touch the copy (a later modification time) so the next reconcile reads
/// it again.
fn touch_copy(f: &Fixture) {
    let copy = f.folder.join(COPY);
    let file = std::fs::File::options().append(true).open(&copy).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
}

#[test]
fn an_index_of_schema_2_is_migrated_and_its_unchecked_fingerprints_read_as_missing() {
    let (f, mut index) =
        migrated_from("ALTER TABLE document_prints DROP COLUMN checksum; PRAGMA user_version = 2;");
    // Rows from before have no checksum: any that is needed is read again.
    touch_copy(&f);
    index.reconcile().unwrap();
    assert_eq!(resemblance(&index, ORIGINAL, COPY), Some(1.0));
}

/// An index written by the release before boilerplate learning (schema 3:
/// checksums, no `document_boilerplate`) opens, is migrated, and keeps
/// working: its files read again store their part in learning.
#[test]
fn an_index_of_schema_3_without_boilerplate_is_migrated() {
    let (f, mut index) = migrated_from("DROP TABLE document_boilerplate; PRAGMA user_version = 3;");
    touch_copy(&f);
    index.reconcile().unwrap();
    assert_eq!(resemblance(&index, ORIGINAL, COPY), Some(1.0));
    let learned = index.store().boilerplate().unwrap();
    assert!(learned.iter().any(|(doc, _)| *doc == COPY), "{learned:?}");
}

/// An index of schema 4 (boilerplate, no kept texts) opens, is migrated,
/// and keeps working.
#[test]
fn an_index_of_schema_4_without_kept_texts_is_migrated() {
    let (_f, mut index) = migrated_from("DROP TABLE document_texts; PRAGMA user_version = 4;");
    assert_eq!(
        index.store().text_totals().unwrap(),
        (0, 0),
        "no texts kept yet"
    );
    index.reconcile().unwrap();
    assert_eq!(resemblance(&index, ORIGINAL, COPY), Some(1.0));
    // Read again for the keeper facts (schema 8), each file keeps its text.
    let (texts, _) = index.store().text_totals().unwrap();
    assert!(texts > 0, "texts are kept as files are read again");
    assert_eq!(index.reconcile().unwrap().read, 0, "and never read again");
}

/// Two openers creating the same new index at once, twenty times over:
/// both get a whole index, and neither takes the other's for a foreign
/// file to move aside.
#[test]
fn two_openers_creating_one_new_index_both_get_it_whole() {
    use doppel_store::{SqliteStore, Store};
    let dir = tempfile::tempdir().unwrap();
    for round in 0..20 {
        let path = dir.path().join(format!("round-{round}.sqlite"));
        let barrier = std::sync::Barrier::new(2);
        let reports: Vec<_> = std::thread::scope(|s| {
            let openers: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        SqliteStore::open(&path).map(|(store, report)| {
                            assert!(store.integrity_check().unwrap());
                            report
                        })
                    })
                })
                .collect();
            openers.into_iter().map(|o| o.join().unwrap()).collect()
        });
        for report in &reports {
            let report = report
                .as_ref()
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert!(report.moved_aside.is_none(), "round {round}: {report:?}");
        }
        let created = reports
            .iter()
            .filter(|r| r.as_ref().is_ok_and(|r| r.created))
            .count();
        assert_eq!(created, 1, "round {round}: one of them created it");
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains("corrupt") && !n.contains("creating")),
        "{names:?}"
    );
}

/// An index another process holds: "index is busy", exit status 3.
#[test]
fn an_index_another_process_holds_is_busy() {
    let f = fixture();
    let mut index = open(&f);
    index.reconcile().unwrap();
    drop(index);
    let holder = rusqlite::Connection::open(&f.index).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        .unwrap();
    let out = common::doppel()
        .args(["scan", "--index"])
        .arg(&f.index)
        .arg(&f.folder)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("index is busy"), "{stderr}");
    // The store's error says SQLite's once, though it keeps it as its
    // source too: one line, ending with the cause.
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(stderr.matches("database is locked").count(), 1, "{stderr}");
    assert!(stderr.ends_with(": database is locked)\n"), "{stderr}");
    drop(holder);
}

/// Two `doppel scan` processes creating the same new index at once, twenty
/// times over: both succeed and nothing is moved aside.
#[test]
fn two_processes_creating_one_new_index_both_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        common::sample_corpus().join("misc/gettysburg.txt"),
        folder.join("a.txt"),
    )
    .unwrap();
    for round in 0..20 {
        let index = dir.path().join(format!("round-{round}.sqlite"));
        let scans: Vec<_> = (0..2)
            .map(|_| {
                common::doppel()
                    .args(["scan", "--format", "csv", "--index"])
                    .arg(&index)
                    .arg(&folder)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for scan in scans {
            let out = scan.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "round {round}: {stderr}");
            assert!(!stderr.contains("moved"), "round {round}: {stderr}");
        }
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains("corrupt") && !n.contains("creating")),
        "{names:?}"
    );
}

/// The whole sequence of updates until `pick` says stop (60 s bound on a
/// loaded machine; nothing sleeps as an assertion).
fn updates_until(
    handle: &doppel_index::worker::WorkerHandle,
    mut stop: impl FnMut(&doppel_index::worker::Update) -> bool,
) -> Vec<doppel_index::worker::Update> {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        let left = end.saturating_duration_since(std::time::Instant::now());
        let update = handle
            .updates
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("{e} after {seen:#?}"));
        let done = stop(&update);
        seen.push(update);
        if done {
            return seen;
        }
    }
}

/// A worker on `f` (no timed rescans, storage retried after 10 ms) whose
/// next `writes` writes to the index fail as a full disk does.
fn worker_failing_writes(
    f: &Fixture,
    writes: usize,
) -> (doppel_index::worker::WorkerHandle, faulty_store::Faults) {
    use doppel_index::worker::{spawn, StoreOpener, WorkerConfig};
    use doppel_store::{SqliteStore, Store};
    let faults = faulty_store::Faults::default();
    faults.fail_next_writes(writes);
    let mut config = WorkerConfig::new(&f.folder);
    let (index, wrapping) = (f.index.clone(), faults.clone());
    config.store = Some(StoreOpener::new(move || {
        let (store, report) = SqliteStore::open(&index)?;
        let store: Box<dyn Store> = Box::new(store);
        Ok((wrapping.wrap(store), report))
    }));
    config.rescan_every = std::time::Duration::ZERO;
    config.storage_retry = std::time::Duration::from_millis(10);
    (spawn(config), faults)
}

/// A storage error in the first pass pauses the worker ("paused: disk
/// full"), which tries again by itself, with a growing delay, and then
/// indexes every file; nothing waits for the 10-minute rescan.
#[test]
fn a_storage_error_in_the_first_pass_pauses_and_resumes_by_itself() {
    use doppel_index::worker::protocol::{ErrorKind, WatchState};
    use doppel_index::worker::Update;
    let f = fixture();
    // The first commit fails, and the first two attempts after it.
    let (handle, faults) = worker_failing_writes(&f, 3);
    let (mut pauses, mut resumed) = (0, false);
    let seen = updates_until(&handle, |u| match u {
        Update::Watch(WatchState::Paused { .. }) => {
            pauses += 1;
            resumed = false;
            false
        }
        Update::Watch(WatchState::Watching) => {
            resumed = true;
            false
        }
        Update::Snapshot(_) => pauses == 3 && resumed,
        _ => false,
    });
    let paused = seen
        .iter()
        .filter(
            |u| matches!(u, Update::Watch(WatchState::Paused { reason }) if reason == "disk full"),
        )
        .count();
    assert_eq!(paused, 3, "paused at each failure: {seen:#?}");
    assert!(seen
        .iter()
        .any(|u| matches!(u, Update::Error(e) if e.kind == ErrorKind::StorageFull)));
    // After the last pause, the folder was read again and followed.
    let last_pause = seen
        .iter()
        .rposition(|u| matches!(u, Update::Watch(WatchState::Paused { .. })))
        .unwrap();
    assert!(seen[last_pause..]
        .iter()
        .any(|u| matches!(u, Update::Watch(WatchState::Watching))));
    assert_eq!(faults.pending(), 0);
    handle.join();
    // Everything is in the index: 30 documents and 3 skipped files.
    let mut index = open(&f);
    assert_eq!(index.library().len(), 30);
    assert_eq!(index.store().document_count().unwrap(), 33);
    assert_eq!(index.reconcile().unwrap().read, 0, "nothing left to read");
}

/// While a storage failure pauses the index, no snapshot is sent: the
/// index may hold documents read but not yet paired, which a snapshot
/// would show in no cluster ("clusters": 0 in `watch --jsonl`). The first
/// snapshot comes with the resume, and shows the clusters a fresh scan has.
#[test]
fn no_snapshot_is_sent_while_paused() {
    use doppel_index::worker::protocol::WatchState;
    use doppel_index::worker::Update;
    let f = fixture();
    let (handle, faults) = worker_failing_writes(&f, 2);
    let seen = updates_until(&handle, |u| matches!(u, Update::Snapshot(_)));
    assert!(
        seen.iter()
            .any(|u| matches!(u, Update::Watch(WatchState::Paused { .. }))),
        "the first pass paused: {seen:#?}"
    );
    let Some(Update::Snapshot(first)) = seen.last() else {
        unreachable!()
    };
    assert_eq!(
        faults.pending(),
        0,
        "the snapshot came after the last failure"
    );
    handle.join();
    let mut index = open(&f);
    index.reconcile().unwrap();
    let spec = ClusterSpec::from_engine(index.engine());
    let settled = doppel_index::worker::snapshot::build(&index, &spec, 0);
    assert_eq!(first.documents, 30);
    assert!(!first.clusters.is_empty());
    assert_eq!(first.clusters.len(), settled.clusters.len());
}

#[test]
fn the_paused_state_reads_paused_reason_in_watch_jsonl() {
    use doppel_index::worker::protocol::WatchState;
    let value = serde_json::to_value(WatchState::Paused {
        reason: "disk full".into(),
    })
    .unwrap();
    assert_eq!(value["state"], "paused", "{value}");
    assert_eq!(value["reason"], "disk full", "{value}");
}

/// The quiet period `watch --help` states is the one in effect: the
/// built-in config file's, the watcher's default.
#[test]
fn the_documented_quiet_period_is_the_one_in_effect() {
    let quiet = doppel_index::watch::DEFAULT_QUIET.as_millis();
    let help = String::from_utf8(common::stdout_of(
        common::doppel().args(["watch", "--help"]),
    ))
    .unwrap();
    assert!(help.contains(&format!("[default: {quiet}]")), "{help}");
    let defaults = doppel_index::config::Config::defaults();
    assert_eq!(u128::from(defaults.watch.quiet_ms), quiet);
}
