//! The background worker on a real folder: dropped near-duplicates join
//! their cluster, thresholds re-cluster (and coalesce), verdicts persist
//! across restarts, pair details and diffs answer, `Quit` stops it.
//!
//! Every wait polls the update channel with a generous bound; nothing
//! sleeps as an assertion.

mod common;

use common::{fixture, Fixture};

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use doppel_core::doc::CuratorVerdict;
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_index::worker::protocol::{DiffKind, ErrorKind, Snapshot, Stage};
use doppel_index::worker::{spawn, Command, Update, WorkerConfig, WorkerHandle};
use doppel_pairing::cluster::ClusterBy;

/// Bound of every wait (a loaded 2-core CI machine, debug build).
const WAIT: Duration = Duration::from_secs(60);

fn start(f: &Fixture) -> WorkerHandle {
    let mut config = WorkerConfig::new(&f.folder);
    config.index = Some(f.index.clone().into());
    config.quiet = Duration::from_millis(100);
    config.rescan_every = Duration::ZERO;
    spawn(config)
}

/// Poll the updates until `pick` returns something (panics after `WAIT`).
fn wait_for<T>(handle: &WorkerHandle, what: &str, mut pick: impl FnMut(&Update) -> Option<T>) -> T {
    let end = Instant::now() + WAIT;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match handle.updates.recv_timeout(left) {
            Ok(update) => {
                if let Update::Error(message) = &update {
                    eprintln!("worker error: {message}");
                }
                if let Some(found) = pick(&update) {
                    return found;
                }
            }
            Err(e) => panic!("no {what} within {WAIT:?}: {e}"),
        }
    }
}

fn snapshot(
    handle: &WorkerHandle,
    what: &str,
    mut ok: impl FnMut(&Snapshot) -> bool,
) -> Arc<Snapshot> {
    wait_for(handle, what, |u| match u {
        Update::Snapshot(s) if ok(s) => Some(s.clone()),
        _ => None,
    })
}

fn clusters(s: &Snapshot) -> Vec<BTreeSet<String>> {
    s.clusters
        .iter()
        .map(|c| c.members.iter().map(|m| m.path.to_string()).collect())
        .collect()
}

fn together(s: &Snapshot, a: &str, b: &str) -> bool {
    clusters(s).iter().any(|c| c.contains(a) && c.contains(b))
}

/// The text of `original` with every 40th word replaced.
/// Every document of a snapshot is listed once: in a cluster, or among
/// the unclustered (sorted, so the documents screen lists them in order).
fn assert_every_document_listed_once(s: &Snapshot) {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for m in s.clusters.iter().flat_map(|c| &c.members) {
        assert!(
            seen.insert(m.path.to_string()),
            "{} clustered twice",
            m.path
        );
    }
    for p in &s.unclustered {
        assert!(seen.insert(p.to_string()), "{p} both clustered and not");
    }
    assert_eq!(seen.len(), s.documents, "every document listed");
    assert!(s.unclustered.is_sorted(), "the unclustered in path order");
}

fn near_duplicate(original: &Path) -> String {
    let text = fs::read_to_string(original).unwrap();
    text.split(' ')
        .enumerate()
        .map(|(i, w)| if i % 40 == 17 { "zzyzx" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_dropped_near_duplicate_joins_its_original_and_a_stricter_threshold_splits_it() {
    let f = fixture();
    let worker = start(&f);
    let first = snapshot(&worker, "the first snapshot", |_| true);
    assert!(first.documents >= 20, "{} documents", first.documents);
    let original = "moby/moby-dick-ch1.txt";
    let copy = "dropped/moby-copy.txt";
    fs::create_dir_all(f.folder.join("dropped")).unwrap();
    fs::write(
        f.folder.join(copy),
        near_duplicate(&f.folder.join(original)),
    )
    .unwrap();
    let written = Instant::now();
    wait_for(&worker, "the copy indexed", |u| {
        matches!(u, Update::FileIndexed { path } if path == copy).then_some(())
    });
    let joined = snapshot(&worker, "the copy clustered with its original", |s| {
        together(s, original, copy)
    });
    eprintln!(
        "latency from close to snapshot: {:?} (quiet period 100 ms)",
        written.elapsed()
    );
    assert!(joined.generation > first.generation);

    // Cluster by MinHash alone, then ask for more than the copy scores.
    worker
        .commands
        .send(Command::SetClusterBy(ClusterBy::Algorithm(
            AlgorithmId::Minhash,
        )))
        .unwrap();
    let by_minhash = snapshot(&worker, "clusters by minhash", |s| {
        s.spec.by == ClusterBy::Algorithm(AlgorithmId::Minhash)
    });
    assert!(together(&by_minhash, original, copy));
    let cluster = by_minhash
        .clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.path == copy))
        .unwrap();
    assert_eq!(cluster.members[0].path, original, "the original represents");
    let member = cluster.members.iter().find(|m| m.path == copy).unwrap();
    let score = match member.scores.as_ref().unwrap()[&AlgorithmId::Minhash] {
        Score::Similarity { value } => value,
        other => panic!("minhash score {other:?}"),
    };
    assert!((0.5..1.0).contains(&score), "copy scores {score}");
    let stricter = (score + 1.0) / 2.0;
    worker
        .commands
        .send(Command::SetThreshold {
            id: AlgorithmId::Minhash,
            value: stricter,
        })
        .unwrap();
    let split = snapshot(&worker, "the copy split off", |s| {
        s.spec.thresholds.get(AlgorithmId::Minhash) == stricter
    });
    assert!(split.generation > by_minhash.generation);
    assert!(!together(&split, original, copy), "{:?}", clusters(&split));
    for s in [&first, &joined, &by_minhash, &split] {
        assert_every_document_listed_once(s);
    }
    assert!(split.unclustered.iter().any(|p| *p == copy));
    // Exact re-encodings of the original still pass.
    assert!(together(
        &split,
        original,
        "moby/other-encodings/moby-dick-ch1-windows1252.txt"
    ));
    worker.join();
}

#[test]
fn fifty_threshold_moves_coalesce_into_few_reclusters() {
    let f = fixture();
    let worker = start(&f);
    let first = snapshot(&worker, "the first snapshot", |_| true);
    for i in 0..50 {
        worker
            .commands
            .send(Command::SetThreshold {
                id: AlgorithmId::Minhash,
                value: 0.5 + f64::from(i) / 100.0,
            })
            .unwrap();
    }
    let last = 0.5 + 49.0 / 100.0;
    let mut seen = 0;
    let final_snapshot = snapshot(&worker, "the last threshold applied", |s| {
        seen += 1;
        s.spec.thresholds.get(AlgorithmId::Minhash) == last
    });
    assert!(final_snapshot.generation > first.generation);
    assert!(seen < 50, "{seen} snapshots for 50 moves");
    // A threshold below the floor re-gathers candidates with that floor.
    worker
        .commands
        .send(Command::SetThreshold {
            id: AlgorithmId::Minhash,
            value: 0.1,
        })
        .unwrap();
    let lowered = snapshot(&worker, "the lowered floor", |s| {
        s.floors.get(AlgorithmId::Minhash) == 0.1
    });
    assert!(lowered.pairs >= final_snapshot.pairs);
    worker.join();
}

#[test]
fn verdicts_persist_across_a_restart_and_quit_stops() {
    let f = fixture();
    let (a, b) = ("misc/gettysburg.txt", "sotu/1790-washington.txt");
    let kept = "edited/emma-ch1-edited.txt";
    {
        let worker = start(&f);
        let first = snapshot(&worker, "the first snapshot", |_| true);
        assert!(!together(&first, a, b));
        worker
            .commands
            .send(Command::SetPairVerdict {
                a: a.into(),
                b: b.into(),
                verdict: Some(CuratorVerdict::Duplicate),
            })
            .unwrap();
        worker
            .commands
            .send(Command::SetKeeper {
                path: kept.into(),
                keeper: true,
            })
            .unwrap();
        let after = snapshot(&worker, "the verdicts applied", |s| {
            together(s, a, b)
                && s.clusters
                    .iter()
                    .any(|c| c.members[0].path == kept && c.members[0].keeper)
        });
        assert!(after.generation > first.generation);
        // The snapshot says how many verdicts it holds (the front end's
        // cue that a "not duplicate" parted two files, or did not).
        assert_eq!((first.verdicts_applied, after.verdicts_applied), (0, 1));
        worker.commands.send(Command::Quit).unwrap();
        wait_for(&worker, "Stopped", |u| {
            matches!(u, Update::Stopped).then_some(())
        });
        worker.join();
    }
    let worker = start(&f);
    let reopened = snapshot(&worker, "the first snapshot after restart", |_| true);
    assert!(together(&reopened, a, b), "{:?}", clusters(&reopened));
    let emma = reopened
        .clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.path == kept))
        .unwrap();
    assert_eq!(emma.members[0].path, kept, "the kept document represents");
    assert!(emma.members[0].keeper);
    worker.join();
}

#[test]
fn a_pair_request_gives_every_algorithm_with_reasons() {
    let f = fixture();
    let worker = start(&f);
    let first = snapshot(&worker, "the first snapshot", |_| true);
    let (a, b) = ("austen/emma-ch1.txt", "edited/emma-ch1-edited.txt");
    worker
        .commands
        .send(Command::RequestPair {
            a: a.into(),
            b: b.into(),
        })
        .unwrap();
    let detail = wait_for(&worker, "the pair detail", |u| match u {
        Update::Pair(p) => Some(p.clone()),
        _ => None,
    });
    assert_eq!(
        (detail.a.to_string(), detail.b.to_string()),
        (a.into(), b.into())
    );
    assert_eq!(detail.generation, first.generation);
    assert_eq!(detail.rows.len(), 11, "{:#?}", detail.rows);
    for row in &detail.rows {
        assert!(!row.reason.is_empty(), "{row:?}");
        assert_eq!(row.passes, row.score.passes(row.threshold), "{row:?}");
    }
    let row = |id| detail.rows.iter().find(|r| r.id == id).unwrap();
    assert!(
        row(AlgorithmId::Minhash)
            .reason
            .contains("LSH bands collided"),
        "{:?}",
        row(AlgorithmId::Minhash)
    );
    let jaccard = row(AlgorithmId::Minhash).exact.unwrap();
    assert!(jaccard > 0.5 && jaccard < 1.0, "{jaccard}");
    assert!(row(AlgorithmId::Simhash).reason.contains("of 64"));
    assert!(row(AlgorithmId::Exact)
        .reason
        .starts_with("signatures differ"));
    assert_eq!(row(AlgorithmId::Imatch).reason, "signatures differ");
    assert!(row(AlgorithmId::Simhash).exact.is_some(), "cosine");
    assert!(row(AlgorithmId::ImatchLexicons)
        .reason
        .contains("lexicon signatures match"));
    // SI in Roth's terms: a summary for the table, then both indices as
    // plain numbers, the ±30 % band around the larger, the verification.
    let si = row(AlgorithmId::Si);
    let lines: Vec<&str> = si.reason.lines().collect();
    assert!(si.passes, "{si:?}");
    assert!(
        lines[0].contains("within Roth's ±30 % band")
            && lines[0].contains("sampled 40-grams shared"),
        "{lines:?}"
    );
    let indices: Vec<u64> = lines[1]
        .split(' ')
        .filter_map(|word| word.replace(',', "").parse().ok())
        .collect();
    assert!(lines[1].starts_with("indices: A "), "{lines:?}");
    assert_eq!(
        indices.len(),
        2,
        "A's and B's, no exponent or sign: {lines:?}"
    );
    let (larger, smaller) = (indices[0].max(indices[1]), indices[0].min(indices[1]));
    assert!(smaller as f64 >= 0.7 * larger as f64, "{indices:?}");
    assert!(
        lines[2].contains("< SI <") && lines[2].contains("lies in it"),
        "{lines:?}"
    );
    assert!(lines[3].starts_with("verified: "), "{lines:?}");
    assert!(detail.fusion);
    assert!(detail.a_in_b > 0.5 && detail.b_in_a > 0.5);
    worker.join();
}

#[test]
fn a_diff_request_gives_words_and_honours_a_tiny_deadline() {
    let f = fixture();
    let worker = start(&f);
    snapshot(&worker, "the first snapshot", |_| true);
    let (a, b) = ("austen/emma-ch1.txt", "edited/emma-ch1-edited.txt");
    worker
        .commands
        .send(Command::RequestDiff {
            a: a.into(),
            b: b.into(),
            deadline: Duration::from_secs(20),
        })
        .unwrap();
    let diff = wait_for(&worker, "the diff", |u| match u {
        Update::Diff(d) => Some(d.clone()),
        _ => None,
    });
    assert!(!diff.left.words.is_empty() && !diff.right.words.is_empty());
    assert!(diff.equal > 0.9 && diff.equal < 1.0, "{}", diff.equal);
    let kinds = |kind| diff.right.words.iter().filter(|w| w.kind == kind).count();
    assert!(kinds(DiffKind::Changed) > 0 && kinds(DiffKind::Inserted) > 0);
    assert!(diff.left.words.iter().any(|w| w.shared), "winnowing marks");
    assert!(diff.right.words.iter().any(|w| w.shared), "winnowing marks");

    // A deadline that has passed at once: a coarse diff, promptly.
    let (a, b) = (
        "austen/pride-prejudice-ch1-3.txt",
        "scans/pride-prejudice-ch1-3-ocr.txt",
    );
    let asked = Instant::now();
    worker
        .commands
        .send(Command::RequestDiff {
            a: a.into(),
            b: b.into(),
            deadline: Duration::ZERO,
        })
        .unwrap();
    let coarse = wait_for(&worker, "the coarse diff", |u| match u {
        Update::Diff(d) if d.a == a => Some(d.clone()),
        _ => None,
    });
    assert!(coarse.truncated);
    // Every word of both files, the CRLF scan's as much as the other's.
    let words = |text: &str| text.split_whitespace().count();
    let read = |p: &str| std::fs::read_to_string(f.folder.join(p)).unwrap();
    assert!(coarse.left.words.len() <= words(&read(a)));
    assert!(coarse.left.words.len() + 20 >= words(&read(a)));
    assert_eq!(coarse.left.text, read(a));
    eprintln!("coarse diff in {:?}", asked.elapsed());
    worker.join();
}

#[test]
fn without_watching_a_rescan_command_reads_the_folder_again() {
    let f = fixture();
    let mut config = WorkerConfig::new(&f.folder);
    config.index = Some(f.index.clone().into());
    config.watch = false;
    let worker = spawn(config);
    let first = snapshot(&worker, "the first snapshot", |_| true);
    fs::copy(
        f.folder.join("misc/gettysburg.txt"),
        f.folder.join("gettysburg-again.txt"),
    )
    .unwrap();
    fs::remove_file(f.folder.join("sotu/1791-washington.txt")).unwrap();
    worker.commands.send(Command::Rescan).unwrap();
    let after = snapshot(&worker, "the rescan", |s| {
        together(s, "misc/gettysburg.txt", "gettysburg-again.txt")
    });
    assert_eq!(after.documents, first.documents);
    worker.join();
}

#[test]
fn a_missing_folder_reports_an_error_and_stops() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = WorkerConfig::new(dir.path().join("nowhere"));
    config.index = Some(dir.path().join("index.sqlite").into());
    let worker = spawn(config);
    let message = wait_for(&worker, "an error", |u| match u {
        Update::Error(e) => Some(e.clone()),
        _ => None,
    });
    assert_eq!(message.kind, ErrorKind::Index, "{message}");
    assert!(message.message.contains("nowhere"), "{message}");
    wait_for(&worker, "Stopped", |u| {
        matches!(u, Update::Stopped).then_some(())
    });
}

/// The progress stages announced from now until the worker answers a pair
/// request for documents it does not have: an answer the worker thread
/// gives in its next pass, so everything before it is in.
fn stages_until_the_next_pass(worker: &WorkerHandle) -> Vec<Stage> {
    worker
        .commands
        .send(Command::RequestPair {
            a: "no such file".into(),
            b: "nor this one".into(),
        })
        .unwrap();
    let mut stages = Vec::new();
    wait_for(worker, "the answer to the marker request", |u| match u {
        Update::Progress(p) => {
            stages.push(p.stage);
            None
        }
        Update::Error(m) if m.message.contains("no such file") => Some(()),
        _ => None,
    });
    stages
}

/// Every pass that announces a stage announces `Idle` when it is over: a
/// threshold below its floor (candidates gathered again) and a rescan of
/// an unchanged folder used to leave "clustering 0/23" and "reading 0" on
/// the status bar for good.
#[test]
fn progress_returns_to_idle_after_a_regather_and_an_unchanged_rescan() {
    let f = fixture();
    let worker = start(&f);
    let first = snapshot(&worker, "the first snapshot", |_| true);
    assert_eq!(
        stages_until_the_next_pass(&worker).last(),
        Some(&Stage::Idle)
    );

    // Below the floor: the worker gathers candidates again.
    let id = AlgorithmId::Minhash;
    let value = ((first.floors.get(id) - 0.1) * 100.0).round() / 100.0;
    assert!(value > 0.0 && !first.floors.allows(id, value));
    let mut stages = Vec::new();
    worker
        .commands
        .send(Command::SetThreshold { id, value })
        .unwrap();
    wait_for(
        &worker,
        "the snapshot at the looser threshold",
        |u| match u {
            Update::Progress(p) => {
                stages.push(p.stage);
                None
            }
            Update::Snapshot(s) if s.spec.thresholds.get(id) == value => Some(()),
            _ => None,
        },
    );
    assert!(stages.contains(&Stage::Clustering), "{stages:?}");
    stages.extend(stages_until_the_next_pass(&worker));
    assert_eq!(stages.last(), Some(&Stage::Idle), "{stages:?}");

    // A rescan that finds nothing new.
    worker.commands.send(Command::Rescan).unwrap();
    wait_for(&worker, "the rescan listing the folder", |u| {
        matches!(u, Update::Progress(p) if p.stage == Stage::Listing).then_some(())
    });
    let stages = stages_until_the_next_pass(&worker);
    assert_eq!(stages.last(), Some(&Stage::Idle), "{stages:?}");
    worker.join();
}
