//! Several processes following one collection on the team store read each
//! new or changed file once: what one process indexed, the other takes
//! from the store (counted by each index's file reader), a file another
//! process is reading is waited for and then taken from the store, and a
//! file whose reader died is read by the process that waited for it. Two
//! workers that do not watch the folder see each other's documents
//! through the store's notifications alone. Skips without `DOPPEL_TEST_PG`
//! unless `DOPPEL_TEST_PG_REQUIRED=1` (see `store_places`).
#![cfg(feature = "postgres")]

mod common;
mod store_places;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use doppel_core::engine::Engine;
use doppel_index::index::{FolderIndex, IndexOptions};
use doppel_index::worker::{Command, Update, WorkerHandle};
use doppel_pairing::library::LibraryConfig;
use doppel_store::StoreAddress;

/// A near-duplicate of the sample corpus's Gettysburg address.
const COPY: &str = "misc/gettysburg-reprint.txt";

/// The index of `folder` in the collection at `url`, as `curator`, reading
/// files through a reader that counts them.
fn counted(folder: &Path, url: &str, curator: &str) -> (FolderIndex, Arc<AtomicUsize>) {
    let address = StoreAddress::parse(url).unwrap();
    let (mut index, _) = FolderIndex::open_at(
        folder,
        Engine::default(),
        LibraryConfig::default(),
        &address,
        curator,
    )
    .unwrap();
    let reads = common::count_reads(&mut index);
    (index, reads)
}

/// Write the reprint of the Gettysburg address into `folder`; its path.
fn write_copy(folder: &Path, extra: &str) -> PathBuf {
    let original = std::fs::read_to_string(folder.join("misc/gettysburg.txt")).unwrap();
    let path = folder.join(COPY);
    std::fs::write(&path, format!("{original}\n{extra}\n")).unwrap();
    path
}

fn reads(counter: &AtomicUsize) -> usize {
    counter.load(Ordering::SeqCst)
}

#[test]
fn what_one_process_indexed_the_other_takes_from_the_store_without_reading() {
    let Some(url) = store_places::postgres_url("reading_taken") else {
        return;
    };
    let f = common::fixture();
    let (mut alice, alice_reads) = counted(&f.folder, &url, "alice");
    alice.reconcile().unwrap();
    let (mut bob, bob_reads) = counted(&f.folder, &url, "bob");
    bob.reconcile().unwrap();
    assert_eq!(reads(&bob_reads), 0, "the folder was indexed by alice");

    // A new file: alice reads it, bob takes it from the store.
    let before = reads(&alice_reads);
    let copy = write_copy(&f.folder, "Reprinted by the Gazette.");
    alice.sync_paths(std::slice::from_ref(&copy)).unwrap();
    assert_eq!(reads(&alice_reads), before + 1);
    let changed = bob.changed_in_store().unwrap();
    assert_eq!(
        changed,
        vec![copy.clone()],
        "the store tells bob what alice indexed"
    );
    bob.sync_paths(&changed).unwrap();
    assert_eq!(reads(&bob_reads), 0, "bob took it from the store");
    let pairs = common::scored_pairs(bob.library());
    assert_eq!(pairs, common::scored_pairs(alice.library()));
    let names: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(a, b, _)| (a.as_str(), b.as_str()))
        .collect();
    assert!(
        names.contains(&(COPY, "misc/gettysburg.txt")),
        "the reprint pairs with its original: {names:?}"
    );

    // A changed file, the same way.
    let before = reads(&alice_reads);
    write_copy(
        &f.folder,
        "Reprinted by the Gazette, with a longer note of thanks.",
    );
    alice.sync_paths(std::slice::from_ref(&copy)).unwrap();
    assert_eq!(reads(&alice_reads), before + 1);
    let changed = bob.changed_in_store().unwrap();
    assert_eq!(changed, vec![copy.clone()]);
    bob.sync_paths(&changed).unwrap();
    assert_eq!(
        reads(&bob_reads),
        0,
        "bob took the new version from the store"
    );
    assert_eq!(
        common::scored_pairs(bob.library()),
        common::scored_pairs(alice.library())
    );

    // A removed file: forgotten by both, still nothing read.
    std::fs::remove_file(&copy).unwrap();
    alice.sync_paths(std::slice::from_ref(&copy)).unwrap();
    let changed = bob.changed_in_store().unwrap();
    assert_eq!(changed, vec![copy.clone()]);
    bob.sync_paths(&changed).unwrap();
    assert!(bob.library().id_of(&COPY.into()).is_none());
    assert_eq!(
        common::scored_pairs(bob.library()),
        common::scored_pairs(alice.library())
    );
    assert!(bob.changed_in_store().unwrap().is_empty(), "in step");
    assert_eq!(reads(&bob_reads), 0);
}

/// Alice, whose reader stops at the reprint until told to go on (then
/// reads it, or panics when `die`), and Bob, both with the fixture
/// indexed; the reprint is written. Alice is syncing it on a thread of her
/// own (which ends with her index) and holds its lock; Bob is syncing it
/// on another, and must be waiting for her. Returns Alice's thread, Bob's
/// thread, the sender that lets Alice's read go on, and Bob's read count.
#[allow(clippy::type_complexity)]
fn racing(
    folder: &Path,
    url: &str,
    die: bool,
) -> (
    std::thread::JoinHandle<FolderIndex>,
    std::thread::JoinHandle<FolderIndex>,
    mpsc::Sender<()>,
    Arc<AtomicUsize>,
) {
    let (started, on_start) = mpsc::channel();
    let (go, on_go) = mpsc::channel::<()>();
    let (mut alice, _) = counted(folder, url, "alice");
    let on_go = Mutex::new(on_go);
    alice.set_options(IndexOptions {
        file_reader: Some(Arc::new(move |path: &Path, cap: u64| {
            if path.ends_with(COPY) {
                started.send(()).unwrap();
                on_go.lock().unwrap().recv().unwrap();
                assert!(!die, "alice's process dies while reading");
            }
            doppel_index::collection::read_bytes(path, cap)
        })),
        ..alice.options().clone()
    });
    alice.reconcile().unwrap();
    let (mut bob, bob_reads) = counted(folder, url, "bob");
    bob.reconcile().unwrap();

    let copy = write_copy(folder, "Reprinted by the Gazette.");
    let alice_copy = copy.clone();
    let alice = std::thread::spawn(move || {
        alice.sync_paths(&[alice_copy]).unwrap();
        alice
    });
    on_start.recv().unwrap();
    let bob = std::thread::spawn(move || {
        bob.sync_paths(&[copy]).unwrap();
        bob
    });
    std::thread::sleep(Duration::from_millis(500));
    assert!(!bob.is_finished(), "bob did not wait for alice's read");
    (alice, bob, go, bob_reads)
}

#[test]
fn a_file_another_process_is_reading_is_waited_for_then_taken_from_the_store() {
    let Some(url) = store_places::postgres_url("reading_waited") else {
        return;
    };
    let f = common::fixture();
    let (alice, bob, go, bob_reads) = racing(&f.folder, &url, false);
    go.send(()).unwrap();
    let alice = alice.join().unwrap();
    let bob = bob.join().unwrap();
    assert_eq!(reads(&bob_reads), 0, "bob took alice's read from the store");
    assert!(bob.library().id_of(&COPY.into()).is_some());
    assert_eq!(
        common::scored_pairs(bob.library()),
        common::scored_pairs(alice.library())
    );
}

#[test]
fn a_file_whose_reader_died_is_read_by_the_process_that_waited() {
    let Some(url) = store_places::postgres_url("reading_died") else {
        return;
    };
    let f = common::fixture();
    let (alice, bob, go, bob_reads) = racing(&f.folder, &url, true);
    let released = Instant::now();
    // Alice's index (and its connection, and so its locks) goes with
    // the thread that panics.
    go.send(()).unwrap();
    assert!(alice.join().is_err(), "alice's reader died");
    let bob = bob.join().unwrap();
    assert_eq!(reads(&bob_reads), 1, "bob read the file alice could not");
    assert!(bob.library().id_of(&COPY.into()).is_some());
    assert!(
        released.elapsed() < Duration::from_secs(20),
        "bob did not wait out a timeout: the lock went with alice's connection"
    );
}

/// The documents of `worker`'s first snapshot with `ok` of them (fails
/// after a minute, naming `what`).
fn documents(worker: &WorkerHandle, what: &str, ok: impl Fn(usize) -> bool) -> usize {
    common::wait_for_update(worker, what, |update| match update {
        Update::Snapshot(s) if ok(s.documents) => Some(s.documents),
        _ => None,
    })
}

#[test]
fn a_worker_shows_the_documents_another_process_indexed_without_watching() {
    let Some(url) = store_places::postgres_url("reading_live") else {
        return;
    };
    let f = common::fixture();
    let alice = common::team_worker(&f.folder, &url, "alice");
    let first = documents(&alice, "the folder indexed", |n| n > 0);
    let bob = common::team_worker(&f.folder, &url, "bob");
    documents(&bob, "the folder loaded", |n| n == first);

    write_copy(&f.folder, "Reprinted by the Gazette.");
    alice.commands.send(Command::Rescan).unwrap();
    documents(&alice, "the reprint indexed", |n| n == first + 1);
    documents(&bob, "alice's reprint", |n| n == first + 1);

    std::fs::remove_file(f.folder.join(COPY)).unwrap();
    alice.commands.send(Command::Rescan).unwrap();
    documents(&bob, "the reprint gone", |n| n == first);
    alice.join();
    bob.join();
}
