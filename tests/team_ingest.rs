//! `doppel ingest DIR --store postgres://…` on several processes: every
//! file is fingerprinted by exactly one of them, a process killed while
//! holding claims has its files taken over once its heartbeat is older
//! than the timeout, and the collection ends with the pairs and clusters
//! of one SQLite scan. Skips without `DOPPEL_TEST_PG` unless
//! `DOPPEL_TEST_PG_REQUIRED=1` (see `store_places`).
#![cfg(feature = "postgres")]

mod common;
mod store_places;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{doppel, fixture, stdout_of};
use doppel_core::engine::Engine;
use doppel_index::index::{FolderIndex, IngestOptions};
use doppel_pairing::library::LibraryConfig;
use doppel_store::StoreAddress;

/// Bound of every wait for a process (a loaded 2-core machine, debug
/// build): a hang guard, never what a test measures.
const WAIT: Duration = Duration::from_secs(120);

/// `doppel scan FOLDER --format json EXTRA`'s report.
fn scan(folder: &Path, extra: &[&str]) -> serde_json::Value {
    let out = stdout_of(
        doppel()
            .args(["scan", "--format", "json"])
            .args(extra)
            .arg(folder),
    );
    serde_json::from_slice(&out).unwrap()
}

/// `doppel ingest FOLDER --store URL --format json`, claiming two files
/// at a time (so processes interleave), with `extra` flags.
fn ingest(folder: &Path, url: &str, extra: &[&str]) -> Command {
    let mut command = doppel();
    command
        .args([
            "ingest",
            "--format",
            "json",
            "--claim-files",
            "2",
            "--store",
            url,
        ])
        .args(extra)
        .arg(folder)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// A finished ingest's JSON report; the run must succeed.
fn report_of(child: Child) -> serde_json::Value {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The team store's report equals the SQLite file's: pairs, clusters and
/// documents; returns how many documents (indexed or skipped) there are.
fn assert_same_as_sqlite(folder: &Path, index: &Path, url: &str) -> u64 {
    let through_file = scan(folder, &["--index", &index.display().to_string()]);
    assert!(
        through_file["pairs"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "the sample corpus has pairs: {through_file}"
    );
    let through_postgres = scan(folder, &["--store", url]);
    for part in ["pairs", "clusters", "documents"] {
        assert_eq!(through_postgres[part], through_file[part], "{part}");
    }
    through_file["documents"].as_array().unwrap().len() as u64
}

#[test]
fn two_ingest_processes_read_each_file_once_and_pair_as_one_sqlite_scan() {
    let Some(url) = store_places::postgres_url("ingest_two") else {
        return;
    };
    let f = fixture();
    let first = ingest(&f.folder, &url, &[]).spawn().unwrap();
    let second = ingest(&f.folder, &url, &[]).spawn().unwrap();
    let (first, second) = (report_of(first), report_of(second));
    let fingerprinted =
        first["fingerprinted"].as_u64().unwrap() + second["fingerprinted"].as_u64().unwrap();
    assert!(
        first["paired_here"] == true || second["paired_here"] == true,
        "one of them paired: {first} {second}"
    );
    let documents = assert_same_as_sqlite(&f.folder, &f.index, &url);
    assert_eq!(
        fingerprinted, documents,
        "every file fingerprinted exactly once: {first} {second}"
    );
}

#[test]
fn a_killed_claimers_files_are_taken_over_after_the_timeout() {
    let Some(url) = store_places::postgres_url("ingest_killed") else {
        return;
    };
    let f = fixture();
    // The first process claims two files and stops there (the hidden
    // hook), its claims held; then it is killed without a word.
    let mut claimer = ingest(&f.folder, &url, &[])
        .env("DOPPEL_TEST_HOLD_AFTER_CLAIM", "1")
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(claimer.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("holding") {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the claimer ended before claiming"
        );
    }
    assert!(line.contains("holding 2 claimed files"), "{line}");
    claimer.kill().unwrap(); // SIGKILL
    claimer.wait().unwrap();
    // The next process waits until the dead claims are a second old and
    // takes them over: it reads every file, and nothing is lost.
    let next = report_of(
        ingest(&f.folder, &url, &["--claim-timeout", "1"])
            .spawn()
            .unwrap(),
    );
    assert_eq!(next["taken_over"], 2, "{next}");
    assert_eq!(next["paired_here"], true, "{next}");
    let documents = assert_same_as_sqlite(&f.folder, &f.index, &url);
    assert_eq!(next["fingerprinted"].as_u64(), Some(documents), "{next}");
}

/// The pairing process killed (SIGKILL) while it holds the pairing lock,
/// before it has paired: the process waiting for the lock takes the
/// pairing over, and the collection ends paired as a fresh scan pairs it
/// (it was left unpaired, the other process saying another one paired).
#[test]
fn a_killed_pairers_pairing_is_taken_over_by_the_process_waiting() {
    let Some(url) = store_places::postgres_url("ingest_pairer_killed") else {
        return;
    };
    let f = fixture();
    // The first process fingerprints the whole folder, takes the pairing
    // lock and stops there (the hidden hook).
    let mut pairer = common::Reaped(Some(
        ingest(&f.folder, &url, &[])
            .env("DOPPEL_TEST_HOLD_WHILE_PAIRING", "1")
            .spawn()
            .unwrap(),
    ));
    let mut pairer_says = common::Lines::of(pairer.child().stderr.take().unwrap());
    pairer_says.until("holding the pairing lock", WAIT);
    // The second finds (almost) nothing to read and the lock held: it
    // waits.
    let mut other = common::Reaped(Some(ingest(&f.folder, &url, &[]).spawn().unwrap()));
    let mut other_says = common::Lines::of(other.child().stderr.take().unwrap());
    other_says.until("another process is pairing the collection", WAIT);
    pairer.child().kill().unwrap(); // SIGKILL: its session, and lock, end with it
    pairer.child().wait().unwrap();

    other_says.until_end(WAIT);
    let out = other.finish();
    assert!(out.status.success(), "{}", other_says.seen.join("\n"));
    let other: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(other["paired_here"], true, "{other}");
    assert_eq!(other["pairing_taken_over"], true, "{other}");
    store_places::assert_paired_by_ingest(&url);
    common::assert_store_scans_as_fresh(&f.folder, &url);
}

/// The collection at `url` as an ingest's share opens it
/// ([`FolderIndex::open_to_share`]).
fn open_to_share(folder: &Path, url: &str) -> FolderIndex {
    let address = StoreAddress::parse(url).unwrap();
    FolderIndex::open_to_share(
        folder,
        Engine::default(),
        LibraryConfig::default(),
        &address,
        "tester",
    )
    .unwrap()
    .0
}

/// A process that starts while another has filed part of the collection
/// unpaired pairs nothing: had it paired those documents, its pairs would
/// be stored as the collection's whole pairing, and the pairing pass would
/// keep them without pairing the documents filed after.
#[test]
fn a_process_opening_mid_ingest_stores_no_partial_pairing() {
    let Some(url) = store_places::postgres_url("ingest_late") else {
        return;
    };
    let f = fixture();
    let mut first = open_to_share(&f.folder, &url);
    let options = IngestOptions {
        chunk_files: 2,
        ..IngestOptions::for_this_process(IngestOptions::DEFAULT_CLAIM_TIMEOUT)
    };
    let mut claims = 0;
    let share = first
        .fingerprint_share(&options, &mut |_| {
            claims += 1;
            // Two chunks are stored by now, filed unpaired.
            if claims == 3 {
                let late = open_to_share(&f.folder, &url);
                assert_eq!(late.library().pair_count(), 0, "the late open paired");
            }
        })
        .unwrap();
    assert!(claims > 3, "the folder took more than three chunks");
    drop(first);
    let address = StoreAddress::parse(&url).unwrap();
    let (mut pairing, _) = FolderIndex::open_at(
        &f.folder,
        Engine::default(),
        LibraryConfig::default(),
        &address,
        "tester",
    )
    .unwrap();
    pairing.queue_moved_boilerplate().unwrap();
    pairing.reconcile().unwrap();
    drop(pairing);
    let documents = assert_same_as_sqlite(&f.folder, &f.index, &url);
    assert_eq!(share.fingerprinted as u64, documents);
}

/// A share of a later ingest reads the changed file alone and loads no
/// other document (loading them, a changed one would have had every
/// stored document paired in each share); the pairing pass then ends
/// where a SQLite scan of the folder does.
#[test]
fn a_later_share_reads_what_changed_and_loads_nothing_else() {
    let Some(url) = store_places::postgres_url("ingest_again") else {
        return;
    };
    let f = fixture();
    let first = report_of(ingest(&f.folder, &url, &[]).spawn().unwrap());
    assert_eq!(first["paired_here"], true, "{first}");
    let changed = f.folder.join("misc/gettysburg.txt");
    let text = std::fs::read_to_string(&changed).unwrap();
    std::fs::write(&changed, format!("{text}\nReprinted by the Gazette.\n")).unwrap();

    let mut share = open_to_share(&f.folder, &url);
    assert_eq!(share.library().len(), 0, "no stored document loaded");
    let options = IngestOptions::for_this_process(IngestOptions::DEFAULT_CLAIM_TIMEOUT);
    let report = share.fingerprint_share(&options, &mut |_| {}).unwrap();
    assert_eq!((report.needed, report.fingerprinted), (1, 1));
    assert_eq!(share.library().len(), 1, "only the file it read");
    assert_eq!(share.library().pair_count(), 0);
    drop(share);
    let again = report_of(ingest(&f.folder, &url, &[]).spawn().unwrap());
    assert_eq!(again["fingerprinted"], 0, "{again}");
    assert_eq!(again["paired_here"], true, "{again}");
    assert_same_as_sqlite(&f.folder, &f.index, &url);
}

#[test]
fn ingest_into_a_file_says_it_needs_a_team_store() {
    let f = fixture();
    let out = doppel()
        .args(["ingest", "--store"])
        .arg(&f.index)
        .arg(&f.folder)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("through a PostgreSQL store: give --store postgres://"),
        "{stderr}"
    );
    assert!(!f.index.exists(), "no index file made");
}
