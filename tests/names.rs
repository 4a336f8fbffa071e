//! File names are bytes end to end: a name that is not UTF-8, one with
//! control characters, and two that differ only in Unicode normalization
//! are five distinct documents on every path (an indexed and an unindexed
//! scan, `watch --jsonl`, the curator's verdicts and keeper marks through
//! the worker and a reopened index, the diff, and the TUI's export).
#![cfg(unix)]

mod common;

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use common::{doppel, sample_corpus};
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::EngineConfig;
use doppel_index::worker::protocol::{DiffView, PairDetail, Snapshot};
use doppel_index::worker::{spawn, Command, Update, WorkerConfig, WorkerHandle};
use doppel_store::{Documents, SqliteStore, Verdicts};
use doppel_tui::action::Action;
use doppel_tui::export;
use doppel_tui::state::AppState;
use doppel_tui::update;

/// The five names: plain, not UTF-8, control characters, and the same
/// accented name in NFC and in NFD.
const NAMES: [&[u8]; 5] = [
    b"a.txt",
    b"z\xe9.txt",
    b"ctl\x1b[31m\n.txt",
    "caf\u{e9}.txt".as_bytes(),
    "cafe\u{301}.txt".as_bytes(),
];

const PLAIN: usize = 0;
const NOT_UTF8: usize = 1;
const CONTROL: usize = 2;

fn doc(i: usize) -> DocPath {
    DocPath::from(NAMES[i])
}

/// How each name is displayed in reports, events and exports.
fn displayed() -> BTreeSet<String> {
    [
        "a.txt",
        "z\\xe9.txt",
        "ctl\\u{1b}[31m\\n.txt",
        "caf\u{e9}.txt",
        "cafe\u{301}.txt",
    ]
    .map(String::from)
    .into()
}

/// A folder holding the same text under the five names, and an index path
/// outside it.
struct Folder {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    index: PathBuf,
}

fn folder() -> Folder {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("d");
    std::fs::create_dir(&folder).unwrap();
    let text = std::fs::read(sample_corpus().join("misc/gettysburg.txt")).unwrap();
    for name in NAMES {
        std::fs::write(folder.join(OsStr::from_bytes(name)), &text).unwrap();
    }
    let index = dir.path().join("state").join("i.sqlite");
    Folder {
        _dir: dir,
        folder,
        index,
    }
}

fn scan_json(args: &[&OsStr]) -> serde_json::Value {
    let out = doppel()
        .arg("scan")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "doppel scan {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    value["root"] = serde_json::Value::Null;
    value
}

fn strings(values: &serde_json::Value) -> BTreeSet<String> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn indexed_and_unindexed_scans_agree_on_every_name() {
    let f = folder();
    let indexed = scan_json(&[
        f.folder.as_os_str(),
        "--index".as_ref(),
        f.index.as_os_str(),
    ]);
    let unindexed = scan_json(&[f.folder.as_os_str(), "--no-index".as_ref()]);
    assert_eq!(indexed, unindexed);
    let paths: BTreeSet<String> = indexed["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths, displayed(), "five distinct documents");
    let clusters = indexed["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 1);
    assert_eq!(strings(&clusters[0]["members"]), displayed());
    assert_eq!(indexed["pairs"].as_array().unwrap().len(), 10);
    // Reopened, nothing is read again and the report is the same.
    let again = scan_json(&[
        f.folder.as_os_str(),
        "--index".as_ref(),
        f.index.as_os_str(),
    ]);
    assert_eq!(again, indexed);
    let store = SqliteStore::open_read_only(&f.index).unwrap();
    let stored: BTreeSet<Vec<u8>> = store
        .document_paths()
        .unwrap()
        .into_iter()
        .map(|(_, p)| p.as_bytes().to_vec())
        .collect();
    let names: BTreeSet<Vec<u8>> = NAMES.iter().map(|n| n.to_vec()).collect();
    assert_eq!(stored, names, "rows keyed by the names' own bytes");
}

#[test]
fn watch_jsonl_names_every_document_once() {
    let f = folder();
    let mut child = doppel()
        .arg("watch")
        .arg(&f.folder)
        .args(["--jsonl", "--until-eof", "--index"])
        .arg(&f.index)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let value: serde_json::Value = serde_json::from_str(&line).unwrap();
            if tx.send(value).is_err() {
                break;
            }
        }
    });
    let end = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    let cluster = loop {
        let left = end.saturating_duration_since(Instant::now());
        let v: serde_json::Value = lines.recv_timeout(left).expect("a cluster event");
        assert_ne!(v["event"], "error", "{v}");
        seen.push(v.clone());
        if v["event"] == "cluster" {
            break v;
        }
    };
    assert_eq!(strings(&cluster["members"]), displayed());
    let indexed: Vec<String> = seen
        .iter()
        .filter(|v| v["event"] == "indexed")
        .map(|v| v["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(indexed.len(), NAMES.len(), "{indexed:?}");
    assert_eq!(indexed.into_iter().collect::<BTreeSet<_>>(), displayed());
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}

fn start(f: &Folder) -> WorkerHandle {
    let mut config = WorkerConfig::new(&f.folder);
    config.index = Some(f.index.clone().into());
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    spawn(config)
}

/// The next update `pick` takes, failing on a worker error.
fn wait_for<T>(worker: &WorkerHandle, what: &str, mut pick: impl FnMut(&Update) -> Option<T>) -> T {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let update = worker
            .updates
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("no {what} ({e})"));
        if let Update::Error(e) = &update {
            panic!("worker error while waiting for {what}: {e}");
        }
        if let Some(found) = pick(&update) {
            return found;
        }
    }
}

fn snapshot(worker: &WorkerHandle, what: &str, done: impl Fn(&Snapshot) -> bool) -> Arc<Snapshot> {
    wait_for(worker, what, |u| match u {
        Update::Snapshot(s) if done(s) => Some(s.clone()),
        _ => None,
    })
}

/// Send what the TUI asked for to the worker.
fn forward(worker: &WorkerHandle, commands: Vec<Command>) {
    assert!(!commands.is_empty(), "the TUI asked for nothing");
    for c in commands {
        worker.commands.send(c).unwrap();
    }
}

/// Select the member `path` of the (only) cluster in the TUI.
fn select(state: &mut AppState, path: &DocPath) {
    state.cluster_sel = 0;
    state.member_sel = 0;
    update(state, Action::Right);
    while state.selected_member().map(|m| &m.path) != Some(path) {
        let before = state.member_sel;
        update(state, Action::Down);
        assert_ne!(state.member_sel, before, "{path} is not a member");
    }
}

fn representative(s: &Snapshot) -> &DocPath {
    &s.clusters[0].members[0].path
}

#[test]
fn verdicts_keepers_and_diffs_from_the_tui_survive_a_reopen() {
    let f = folder();
    let worker = start(&f);
    let first = snapshot(&worker, "the first snapshot", |s| {
        s.clusters.len() == 1 && s.clusters[0].members.len() == NAMES.len()
    });
    assert_eq!(representative(&first), &doc(PLAIN), "earliest by path");
    let mut tui = AppState::new(f.folder.display().to_string(), &EngineConfig::default());
    update(&mut tui, Action::Resize(120, 40));
    update(&mut tui, Action::Worker(Update::Snapshot(first)));

    // The curator keeps the file named with control characters ...
    select(&mut tui, &doc(CONTROL));
    forward(&worker, update(&mut tui, Action::ToggleKeep));
    let kept = snapshot(&worker, "the keeper represents", |s| {
        representative(s) == &doc(CONTROL) && s.clusters[0].members[0].keeper
    });
    update(&mut tui, Action::Worker(Update::Snapshot(kept)));
    // ... marks the one that is not UTF-8 not a duplicate of it, and
    // opens their diff and their pair.
    select(&mut tui, &doc(NOT_UTF8));
    assert_eq!(tui.cluster_pair(), Some((doc(CONTROL), doc(NOT_UTF8))));
    forward(&worker, update(&mut tui, Action::MarkNotDuplicate));
    forward(&worker, update(&mut tui, Action::OpenDiff));
    let diff: Arc<DiffView> = wait_for(&worker, "the diff", |u| match u {
        Update::Diff(d) => Some(d.clone()),
        _ => None,
    });
    assert_eq!((&diff.a, &diff.b), (&doc(CONTROL), &doc(NOT_UTF8)));
    assert_eq!(diff.equal, 1.0, "the same text under two names");
    assert!(!diff.left.words.is_empty() && !diff.right.words.is_empty());
    update(&mut tui, Action::Worker(Update::Diff(diff)));
    assert!(
        tui.diff.view.is_some(),
        "the TUI takes the diff it asked for"
    );
    forward(&worker, update(&mut tui, Action::OpenPair));
    let pair: Arc<PairDetail> = wait_for(&worker, "the pair", |u| match u {
        Update::Pair(p) => Some(p.clone()),
        _ => None,
    });
    assert_eq!(pair.verdict, Some(CuratorVerdict::NotDuplicate));
    worker.join();

    // Stored under the names' own bytes ...
    let store = SqliteStore::open_read_only(&f.index).unwrap();
    let verdicts = store.pair_verdicts().unwrap();
    assert_eq!(verdicts.len(), 1);
    let (a, b) = (&verdicts[0].a, &verdicts[0].b);
    assert_eq!(
        [a.as_bytes(), b.as_bytes()],
        [NAMES[CONTROL], NAMES[NOT_UTF8]]
    );
    assert_eq!(store.keepers().unwrap(), [doc(CONTROL)]);
    drop(store);

    // ... and back after a reopen.
    let worker = start(&f);
    let reopened = snapshot(&worker, "the snapshot after reopening", |_| true);
    assert_eq!(representative(&reopened), &doc(CONTROL));
    assert!(reopened.clusters[0].members[0].keeper);
    worker
        .commands
        .send(Command::RequestPair {
            a: doc(NOT_UTF8),
            b: doc(CONTROL),
        })
        .unwrap();
    let pair = wait_for(&worker, "the pair after reopening", |u| match u {
        Update::Pair(p) => Some(p.clone()),
        _ => None,
    });
    assert_eq!(pair.verdict, Some(CuratorVerdict::NotDuplicate));
    worker
        .commands
        .send(Command::RequestDiff {
            a: doc(NOT_UTF8),
            b: doc(CONTROL),
            deadline: Duration::from_secs(10),
        })
        .unwrap();
    let diff = wait_for(&worker, "the diff after reopening", |u| match u {
        Update::Diff(d) => Some(d.clone()),
        _ => None,
    });
    assert_eq!(diff.equal, 1.0);

    // The TUI's export names each document once, distinctly.
    let mut tui = AppState::new("d", &EngineConfig::default());
    update(&mut tui, Action::Worker(Update::Snapshot(reopened.clone())));
    let json: serde_json::Value =
        serde_json::from_str(&export::json(&reopened, "d", &tui.verdicts).unwrap()).unwrap();
    let members: BTreeSet<String> = json["clusters"][0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(members, displayed());
    let csv = export::clusters_csv(&reopened).unwrap();
    assert_eq!(csv.lines().count(), 1 + NAMES.len());
    for name in displayed() {
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        assert_eq!(
            csv.matches(&quoted).count(),
            1,
            "{name:?} once in the CSV:\n{csv}"
        );
    }
    worker.join();
}
