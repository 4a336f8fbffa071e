//! Live changes on the team store, worker to worker: two workers on one
//! folder and one PostgreSQL collection (in this process, so no terminal
//! is needed), neither watching the folder, so only the store's
//! notifications can tell one what the other did: a verdict, its
//! clearing and a keeper mark made through one appear in the other's next
//! snapshot; a boilerplate ruling `doppel boilerplate --store` makes
//! applies in a running worker; thresholds saved for the team apply in
//! the other worker and in one started later. Skips without `DOPPEL_TEST_PG` unless
//! `DOPPEL_TEST_PG_REQUIRED=1` (see `store_places`).
#![cfg(feature = "postgres")]

mod common;
mod store_places;

use std::sync::Arc;
use std::time::{Duration, Instant};

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_index::worker::protocol::Snapshot;
use doppel_index::worker::{Command, Update, WorkerHandle};

/// Bound of every wait (a loaded 2-core CI machine, debug build).
const WAIT: Duration = Duration::from_secs(60);

/// The first snapshot of `worker` for which `ok` holds (fails after
/// [`WAIT`], naming `what`).
fn snapshot(worker: &WorkerHandle, what: &str, ok: impl Fn(&Snapshot) -> bool) -> Arc<Snapshot> {
    let end = Instant::now() + WAIT;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match worker.updates.recv_timeout(left) {
            Ok(Update::Snapshot(s)) if ok(&s) => return s,
            Ok(Update::Error(e)) => eprintln!("worker error: {e}"),
            Ok(_) => {}
            Err(e) => panic!("no snapshot with {what} within {WAIT:?}: {e}"),
        }
    }
}

/// The members of the cluster holding `path`, representative first.
fn cluster_of(s: &Snapshot, path: &str) -> Option<Vec<String>> {
    let path = DocPath::from(path);
    s.clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.path == path))
        .map(|c| c.members.iter().map(|m| m.path.to_string()).collect())
}

#[test]
fn a_verdict_through_one_worker_shows_in_the_others_next_snapshot() {
    let Some(url) = store_places::postgres_url("live_workers") else {
        return;
    };
    let f = common::fixture();
    let alice = common::team_worker(&f.folder, &url, "alice");
    snapshot(&alice, "the folder indexed", |s| s.documents > 0);
    let bob = common::team_worker(&f.folder, &url, "bob");
    let first = snapshot(&bob, "the folder loaded", |s| s.documents > 0);
    let (a, b) = common::cluster_pair(&first, "misc/gettysburg.txt");

    alice
        .commands
        .send(Command::SetPairVerdict {
            a: a.clone(),
            b: b.clone(),
            verdict: Some(CuratorVerdict::NotDuplicate),
        })
        .unwrap();
    let split = snapshot(&bob, "alice's verdict", |s| {
        cluster_of(s, "misc/gettysburg.txt").is_none()
    });
    assert_eq!(split.documents, first.documents, "nothing read again");

    alice
        .commands
        .send(Command::SetPairVerdict {
            a,
            b,
            verdict: None,
        })
        .unwrap();
    snapshot(&bob, "alice's verdict cleared", |s| {
        cluster_of(s, "misc/gettysburg.txt").is_some()
    });

    // And the other way round, a keeper mark: it represents its cluster.
    // The keeper rule keeps the complete constitution; mark the other.
    let kept = "misc/us-constitution-no-preamble.txt";
    assert_ne!(
        cluster_of(&first, kept).unwrap()[0],
        kept,
        "the fixture's representative is the other file"
    );
    bob.commands
        .send(Command::SetKeeper {
            path: DocPath::from(kept),
            keeper: true,
        })
        .unwrap();
    snapshot(&alice, "bob's keeper", |s| {
        cluster_of(s, kept).is_some_and(|members| members[0] == kept)
    });
    alice.join();
    bob.join();
}

#[test]
fn another_curators_boilerplate_ruling_applies_in_a_running_worker() {
    let Some(url) = store_places::postgres_url("live_boilerplate") else {
        return;
    };
    let f = common::fixture();
    let worker = common::team_worker(&f.folder, &url, "alice");
    let first = snapshot(&worker, "the folder indexed", |s| s.documents > 0);
    assert!(
        !first.boilerplate.passages.is_empty(),
        "the sample corpus has boilerplate"
    );
    common::stdout_of(
        common::doppel()
            .args(["boilerplate", "--store", &url, "--overrule", "1"])
            .arg(&f.folder),
    );
    let end = Instant::now() + WAIT;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match worker.updates.recv_timeout(left) {
            Ok(Update::Warning(message)) if message.contains("boilerplate rulings: applied") => {
                break
            }
            Ok(_) => {}
            Err(e) => panic!("no word of the ruling within {WAIT:?}: {e}"),
        }
    }
    // Applied without reopening: the passage is listed as overruled, and
    // its documents no longer carry it.
    let ruled = &first.boilerplate.passages[0];
    let after = snapshot(&worker, "the ruling applied", |s| {
        s.boilerplate
            .passages
            .iter()
            .any(|p| p.hashes == ruled.hashes && p.overruled)
    });
    assert_eq!(after.documents, first.documents);
    assert_ne!(
        after.boilerplate.documents, first.boilerplate.documents,
        "the documents holding the passage were fingerprinted again"
    );
    worker.join();
}

/// The first `Update::TeamThresholds` of `worker`: what was saved, and
/// whether through it.
fn team_thresholds(worker: &WorkerHandle) -> (Arc<doppel_store::SharedThresholds>, bool) {
    common::wait_for_update(worker, "team thresholds", |update| match update {
        Update::TeamThresholds { saved, by_you } => Some((saved, by_you)),
        _ => None,
    })
}

#[test]
fn thresholds_saved_for_the_team_apply_in_every_worker_and_in_one_started_later() {
    use doppel_core::engine::algo::AlgorithmId;

    let Some(url) = store_places::postgres_url("live_thresholds") else {
        return;
    };
    let f = common::fixture();
    let alice = common::team_worker(&f.folder, &url, "alice");
    let first = snapshot(&alice, "the folder indexed", |s| s.documents > 0);
    let bob = common::team_worker(&f.folder, &url, "bob");
    snapshot(&bob, "the folder loaded", |s| s.documents > 0);

    // Stricter MinHash: the Gettysburg pair (MinHash 0.85) no longer
    // clusters by it alone.
    let mut team = first.spec.thresholds.clone();
    team.set(AlgorithmId::Minhash, 0.99);
    assert_ne!(team, first.spec.thresholds);
    alice
        .commands
        .send(Command::ShareThresholds {
            thresholds: team.clone(),
        })
        .unwrap();
    let (saved, by_you) = team_thresholds(&alice);
    assert!(by_you);
    assert_eq!(
        (saved.curator.as_str(), &saved.thresholds),
        ("alice", &team)
    );

    let (saved, by_you) = team_thresholds(&bob);
    assert!(!by_you, "alice saved them");
    assert_eq!(saved.curator, "alice");
    snapshot(&bob, "the team's thresholds", |s| s.spec.thresholds == team);

    let carol = common::team_worker(&f.folder, &url, "carol");
    let (saved, _) = team_thresholds(&carol);
    assert_eq!(saved.thresholds, team);
    let opened = snapshot(&carol, "the folder loaded", |s| s.documents > 0);
    assert_eq!(opened.spec.thresholds, team, "started from the team's");
    alice.join();
    bob.join();
    carol.join();
}
