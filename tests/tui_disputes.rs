//! Two curators disagreeing on a pair, as a curator sees it (issue 17): the
//! worker's snapshot marks the pair disputed and clusters it as undecided,
//! the member row says `⚑ differ` and the cluster row `⚑`, and the pair
//! screen lists each curator's verdict with its time, says the pair is
//! disputed, and opens the history with `v`. The same screens with one
//! curator look as they always did (the other TUI snapshots).

#![cfg(feature = "tui")]

mod common;

use std::sync::Arc;

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::EngineConfig;
use doppel_index::index::FolderIndex;
use doppel_index::worker::protocol::{
    PairCurators, PairDetail, Progress, Snapshot, Stage, WatchState,
};
use doppel_index::worker::{Command, Update};
use doppel_pairing::library::CuratorMark;
use doppel_store::VerdictChange;
use doppel_tui::action::Action;
use doppel_tui::state::{AppState, Focus};
use doppel_tui::{keymap, render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

use CuratorVerdict::{Duplicate, NotDuplicate};

const REP: &str = "moby/moby-dick-ch1.txt";
const UTF16: &str = "moby/other-encodings/moby-dick-ch1-utf16le.txt";

/// The sample corpus indexed at `dir`, alice calling REP ~ UTF16 a
/// duplicate and bob not.
fn disputed_index(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf, FolderIndex) {
    let folder = dir.join("books");
    let index_path = dir.join("index.sqlite");
    common::copy_dir(&common::sample_corpus(), &folder);
    let mut index = common::indexed(&folder, &index_path);
    let (rep, other) = (DocPath::from(REP), DocPath::from(UTF16));
    index.set_curator("alice");
    index
        .set_pair_verdict(&rep, &other, Some(Duplicate))
        .unwrap();
    index.set_curator("bob");
    index
        .set_pair_verdict(&other, &rep, Some(NotDuplicate))
        .unwrap();
    (folder, index_path, index)
}

fn scanned(snapshot: Arc<Snapshot>, w: u16, h: u16) -> AppState {
    let mut s = AppState::new("sample-corpus", &EngineConfig::default());
    update(&mut s, Action::Resize(w, h));
    update(&mut s, Action::Worker(Update::Snapshot(snapshot)));
    update(
        &mut s,
        Action::Worker(Update::Progress(Progress {
            stage: Stage::Idle,
            done: 0,
            total: 0,
            bytes: 0,
        })),
    );
    update(&mut s, Action::Worker(Update::Watch(WatchState::Watching)));
    s.cluster_sel = s
        .view
        .iter()
        .position(|&i| s.clusters()[i].members[0].path == REP)
        .expect("the Moby Dick cluster, its representative first");
    s
}

fn draw(state: &AppState) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(state.width, state.height)).unwrap();
    t.draw(|f| render(state, f)).unwrap();
    t
}

fn rows(t: &Terminal<TestBackend>) -> Vec<String> {
    let b = t.backend().buffer();
    (0..b.area.height)
        .map(|y| (0..b.area.width).map(|x| b[(x, y)].symbol()).collect())
        .collect()
}

fn row<'a>(rows: &'a [String], needle: &str) -> &'a str {
    rows.iter()
        .find(|r| r.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?}:\n{}", rows.join("\n")))
}

#[test]
fn a_disputed_pair_is_marked_in_the_lists_and_left_to_the_algorithms() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, index) = disputed_index(dir.path());
    let snapshot = common::snapshot_of(&index);
    let moby = snapshot
        .clusters
        .iter()
        .find(|c| c.members[0].path == REP)
        .expect("the algorithms keep the copies together: the dispute splits nothing");
    let utf16 = moby.members.iter().find(|m| m.path == UTF16).unwrap();
    assert!(utf16.disputed);
    assert_eq!(utf16.verdict, None, "disputed: no verdict pins the pair");
    assert_eq!(moby.disputed, 1);

    let mut s = scanned(snapshot.clone(), 80, 24);
    s.focus = Focus::Members;
    let t = draw(&s);
    let screen = rows(&t);
    assert!(
        row(&screen, "utf16le.txt").contains("⚑ differ"),
        "{screen:#?}"
    );
    insta::assert_snapshot!("disputed_list_80x24", t.backend());

    // Bob comes round: the pair is agreed, pinned, no longer marked.
    let mut index = index;
    index
        .set_pair_verdict(&DocPath::from(REP), &DocPath::from(UTF16), Some(Duplicate))
        .unwrap();
    let agreed = common::snapshot_of(&index);
    let moby = agreed
        .clusters
        .iter()
        .find(|c| c.members[0].path == REP)
        .unwrap();
    let utf16 = moby.members.iter().find(|m| m.path == UTF16).unwrap();
    assert_eq!((utf16.disputed, utf16.verdict), (false, Some(Duplicate)));
    assert_eq!(moby.disputed, 0);
}

/// 2026-11-25 09:00 UTC plus `minutes`, in unix ns.
fn at(minutes: i64) -> i64 {
    (1_795_597_200 + minutes * 60) * 1_000_000_000
}

#[test]
fn the_pair_screen_lists_each_curators_verdict_and_opens_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, index_path, index) = disputed_index(dir.path());
    let snapshot = common::snapshot_of(&index);
    drop(index);
    let (rep, other) = (DocPath::from(REP), DocPath::from(UTF16));
    let (detail, []) = common::worker_answers(&folder, &index_path, (&rep, &other), []);
    // What the worker says of the pair: both curators, in order, and
    // their history; no agreed verdict.
    let who: Vec<(&str, CuratorVerdict)> = detail
        .curators
        .verdicts
        .iter()
        .map(|m| (m.curator.as_str(), m.verdict))
        .collect();
    assert_eq!(who, vec![("alice", Duplicate), ("bob", NotDuplicate)]);
    assert!(detail.curators.disputed());
    assert_eq!(detail.curators.history.len(), 2);
    assert_eq!(detail.verdict, None);

    // The screens, with fixed times and this session's curator carol.
    let detail = PairDetail {
        curators: PairCurators {
            you: "carol".into(),
            verdicts: vec![
                CuratorMark {
                    curator: "alice".into(),
                    verdict: Duplicate,
                    at_ns: at(3),
                },
                CuratorMark {
                    curator: "bob".into(),
                    verdict: NotDuplicate,
                    at_ns: at(47),
                },
            ],
            history: vec![
                VerdictChange {
                    curator: "bob".into(),
                    verdict: Some(Duplicate),
                    at_ns: at(1),
                },
                VerdictChange {
                    curator: "alice".into(),
                    verdict: Some(Duplicate),
                    at_ns: at(3),
                },
                VerdictChange {
                    curator: "bob".into(),
                    verdict: Some(NotDuplicate),
                    at_ns: at(47),
                },
            ],
        },
        ..detail
    };
    let mut s = scanned(snapshot, 80, 24);
    s.focus = Focus::Members;
    s.member_sel = s
        .selected_cluster()
        .unwrap()
        .members
        .iter()
        .position(|m| m.path == UTF16)
        .unwrap();
    update(&mut s, Action::OpenPair);
    update(&mut s, Action::Worker(Update::Pair(Arc::new(detail))));
    let t = draw(&s);
    let screen = rows(&t);
    let line = row(&screen, "⚑ disputed");
    assert!(line.contains("⚑ disputed"), "{line}");
    assert!(line.contains("alice: dup 11-25 09:03"), "{line}");
    assert!(line.contains("bob: not dup 11-25 09:47"), "{line}");
    insta::assert_snapshot!("disputed_pair_80x24", t.backend());

    let v = keymap::key(&s, KeyEvent::new(KeyCode::Char('v'), KeyModifiers::NONE))
        .expect("v opens the history on the pair screen");
    update(&mut s, v);
    let t = draw(&s);
    let screen = rows(&t);
    let first = screen
        .iter()
        .position(|r| r.contains("09:01  bob: duplicate"));
    let last = screen
        .iter()
        .position(|r| r.contains("09:47  bob: not duplicate"));
    assert!(
        first.is_some() && first < last,
        "oldest first:\n{}",
        screen.join("\n")
    );
    insta::assert_snapshot!("disputed_pair_history_80x24", t.backend());

    // Carol gives her own verdict: sent as hers, and the pair stays
    // disputed while bob disagrees.
    let press_y = |s: &mut AppState| {
        let y = keymap::key(s, KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE)).unwrap();
        update(s, y)
    };
    let hers = |sent: &[Command]| {
        matches!(
            sent,
            [Command::SetPairVerdict {
                verdict: Some(Duplicate),
                ..
            }]
        )
    };
    let sent = press_y(&mut s);
    assert!(hers(&sent), "{sent:?}");
    let screen = rows(&draw(&s));
    let line = row(&screen, "⚑ disputed");
    assert!(line.contains("· you: dup"), "{line}");

    // Alice and bob agree it is a duplicate, carol has said nothing: her
    // `y` is still hers to record, not "already marked".
    let agreed = PairDetail {
        verdict: Some(Duplicate),
        curators: PairCurators {
            you: "carol".into(),
            verdicts: vec![
                CuratorMark {
                    curator: "alice".into(),
                    verdict: Duplicate,
                    at_ns: at(3),
                },
                CuratorMark {
                    curator: "bob".into(),
                    verdict: Duplicate,
                    at_ns: at(50),
                },
            ],
            history: Vec::new(),
        },
        ..(**s.pair.detail.as_ref().unwrap()).clone()
    };
    let mut s = scanned(common::snapshot_of(&reopened(&folder, &index_path)), 80, 24);
    s.focus = Focus::Members;
    s.member_sel = s
        .selected_cluster()
        .unwrap()
        .members
        .iter()
        .position(|m| m.path == UTF16)
        .unwrap();
    update(&mut s, Action::OpenPair);
    update(&mut s, Action::Worker(Update::Pair(Arc::new(agreed))));
    let screen = rows(&draw(&s));
    let line = row(&screen, " curators · alice: dup");
    assert!(!line.contains("disputed"), "{line}");
    let sent = press_y(&mut s);
    assert!(hers(&sent), "{sent:?}");
}

/// The index at `index_path` of `folder`, opened again.
fn reopened(folder: &std::path::Path, index_path: &std::path::Path) -> FolderIndex {
    common::indexed(folder, index_path)
}
