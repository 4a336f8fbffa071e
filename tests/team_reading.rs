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

use doppel::engine::Engine;
use doppel::pairing::library::LibraryConfig;
use doppel::runtime::index::FolderIndex;
use doppel::runtime::store::StoreAddress;
use doppel::runtime::worker::{spawn, Command, Update, WorkerConfig, WorkerHandle};

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
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = reads.clone();
    index.set_file_reader(Arc::new(move |path: &Path, cap: u64| {
        counter.fetch_add(1, Ordering::SeqCst);
        doppel::runtime::collection::read_bytes(path, cap)
    }));
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

/// Alice's index with a reader that, for the reprint, says so on
/// `started` and waits for `go` (then reads it, or panics when `die`).
fn held_reader(
    folder: &Path,
    url: &str,
    started: mpsc::Sender<()>,
    go: mpsc::Receiver<()>,
    die: bool,
) -> FolderIndex {
    let (mut alice, _) = counted(folder, url, "alice");
    let go = Mutex::new(go);
    alice.set_file_reader(Arc::new(move |path: &Path, cap: u64| {
        if path.ends_with(COPY) {
            started.send(()).unwrap();
            go.lock().unwrap().recv().unwrap();
            assert!(!die, "alice's process dies while reading");
        }
        doppel::runtime::collection::read_bytes(path, cap)
    }));
    alice
}

/// Run `sync` on a thread; fails unless it is still waiting after a while
/// (it must wait for alice's read).
fn waiting<T: Send + 'static>(
    sync: impl FnOnce() -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    let thread = std::thread::spawn(sync);
    std::thread::sleep(Duration::from_millis(500));
    assert!(!thread.is_finished(), "bob did not wait for alice's read");
    thread
}

#[test]
fn a_file_another_process_is_reading_is_waited_for_then_taken_from_the_store() {
    let Some(url) = store_places::postgres_url("reading_waited") else {
        return;
    };
    let f = common::fixture();
    let (started, on_start) = mpsc::channel();
    let (go, on_go) = mpsc::channel();
    let mut alice = held_reader(&f.folder, &url, started, on_go, false);
    alice.reconcile().unwrap();
    let (mut bob, bob_reads) = counted(&f.folder, &url, "bob");
    bob.reconcile().unwrap();

    let copy = write_copy(&f.folder, "Reprinted by the Gazette.");
    let alice_copy = copy.clone();
    let alice = std::thread::spawn(move || {
        alice.sync_paths(&[alice_copy]).unwrap();
        alice
    });
    on_start.recv().unwrap();
    let bob_copy = copy.clone();
    let bob = waiting(move || {
        bob.sync_paths(&[bob_copy]).unwrap();
        bob
    });
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
    let (started, on_start) = mpsc::channel();
    let (go, on_go) = mpsc::channel();
    let mut alice = held_reader(&f.folder, &url, started, on_go, true);
    alice.reconcile().unwrap();
    let (mut bob, bob_reads) = counted(&f.folder, &url, "bob");
    bob.reconcile().unwrap();

    let copy = write_copy(&f.folder, "Reprinted by the Gazette.");
    let alice_copy = copy.clone();
    // Alice's index (and its connection, and so its locks) goes with
    // the thread that panics.
    let alice = std::thread::spawn(move || alice.sync_paths(&[alice_copy]).map(|_| ()));
    on_start.recv().unwrap();
    let bob_copy = copy.clone();
    let started_waiting = Instant::now();
    let bob = waiting(move || {
        bob.sync_paths(&[bob_copy]).unwrap();
        bob
    });
    go.send(()).unwrap();
    assert!(alice.join().is_err(), "alice's reader died");
    let bob = bob.join().unwrap();
    assert_eq!(reads(&bob_reads), 1, "bob read the file alice could not");
    assert!(bob.library().id_of(&COPY.into()).is_some());
    assert!(
        started_waiting.elapsed() < Duration::from_secs(20),
        "bob did not wait out a timeout: the lock went with alice's connection"
    );
}

/// A worker on `folder` keeping its index at `url`, not watching it.
fn start(folder: &Path, url: &str, curator: &str) -> WorkerHandle {
    let mut config = WorkerConfig::new(folder);
    config.index = Some(StoreAddress::parse(url).unwrap());
    config.curator = curator.to_owned();
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    spawn(config)
}

/// The documents of `worker`'s first snapshot with `ok` of them (fails
/// after a minute, naming `what`).
fn documents(worker: &WorkerHandle, what: &str, ok: impl Fn(usize) -> bool) -> usize {
    let wait = Duration::from_secs(60);
    let end = Instant::now() + wait;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match worker.updates.recv_timeout(left) {
            Ok(Update::Snapshot(s)) if ok(s.documents) => return s.documents,
            Ok(_) => {}
            Err(e) => panic!("no snapshot with {what} within {wait:?}: {e}"),
        }
    }
}

#[test]
fn a_worker_shows_the_documents_another_process_indexed_without_watching() {
    let Some(url) = store_places::postgres_url("reading_live") else {
        return;
    };
    let f = common::fixture();
    let alice = start(&f.folder, &url, "alice");
    let first = documents(&alice, "the folder indexed", |n| n > 0);
    let bob = start(&f.folder, &url, "bob");
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
