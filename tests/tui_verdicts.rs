//! The curator's verdicts are visible in the lists (issue 20, "verdicts a
//! curator can see"), on the sample corpus: each member row says whether
//! it was judged a duplicate of the representative or not, each cluster
//! row how many of its members are reviewed — for verdicts given in this
//! session (before the worker's next snapshot) and for those stored by an
//! earlier one (they come with the snapshot). And a pair or diff on screen
//! whose file is deleted says so; any two members open as a pair; a
//! whole cluster is accepted or dismissed with one key; after `x`, the
//! curator is told whether the file left the cluster or what holds it.

#![cfg(feature = "tui")]

mod common;

use std::sync::Arc;

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::EngineConfig;
use doppel_index::worker::protocol::{Progress, Snapshot, Stage, WatchState};
use doppel_index::worker::{Command, Update};
use doppel_tui::action::Action;
use doppel_tui::state::{AppState, Focus, Level, Screen};
use doppel_tui::{keymap, render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

const REP: &str = "moby/moby-dick-ch1.txt";
const UTF16: &str = "moby/other-encodings/moby-dick-ch1-utf16le.txt";
const CP1252: &str = "moby/other-encodings/moby-dick-ch1-windows1252.txt";

/// The sample corpus's snapshot, after `stored` verdicts were recorded in
/// its index (as an earlier session would have).
fn snapshot_with(stored: &[(&str, &str, CuratorVerdict)]) -> Arc<Snapshot> {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    common::copy_dir(&common::sample_corpus(), &folder);
    let mut index = common::indexed(&folder, &dir.path().join("index.sqlite"));
    for &(a, b, v) in stored {
        index
            .set_pair_verdict(&DocPath::from(a), &DocPath::from(b), Some(v))
            .unwrap();
    }
    common::snapshot_of(&index)
}

/// The UI at `w`×`h` after a finished scan, the Moby Dick cluster selected.
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

/// Focus the member `path` of the selected cluster.
fn select_member(s: &mut AppState, path: &str) {
    s.focus = Focus::Members;
    s.member_sel = s
        .selected_cluster()
        .unwrap()
        .members
        .iter()
        .position(|m| m.path == path)
        .unwrap();
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

/// The screen row holding `needle` (the first one).
fn row<'a>(rows: &'a [String], needle: &str) -> &'a str {
    rows.iter()
        .find(|r| r.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?}:\n{}", rows.join("\n")))
}

/// The clusters pane's row of the cluster `rep` represents: side by side,
/// a row spans both panes and the members pane may show `rep` on another
/// one; stacked, the clusters pane comes first.
fn row_of_cluster<'a>(rows: &'a [String], rep: &str) -> &'a str {
    rows.iter()
        .find(|r| {
            r.find(rep)
                .is_some_and(|at| r.find("││").is_none_or(|pane| at < pane))
        })
        .unwrap_or_else(|| panic!("no cluster row of {rep:?}:\n{}", rows.join("\n")))
}

/// The words of a row after the (possibly shortened) file name `name`.
fn after(row: &str, name: &str) -> String {
    let at = row
        .find(name)
        .unwrap_or_else(|| panic!("{name} not in {row}"));
    row[at + name.len()..]
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `y` on one member and `x` on the other: both rows say so, the cluster
/// row counts 2 of 2 reviewed; undo takes the last back to `–`.
#[test]
fn marks_of_this_session_show_on_member_and_cluster_rows_at_80x24() {
    let mut s = scanned(snapshot_with(&[]), 80, 24);
    let screen = rows(&draw(&s));
    assert!(
        row(&screen, "size reviewed").contains("agree"),
        "{screen:#?}"
    );
    assert!(
        after(row_of_cluster(&screen, REP), "3").starts_with("0/2"),
        "{screen:#?}"
    );

    select_member(&mut s, UTF16);
    let sent = update(&mut s, Action::MarkDuplicate);
    assert!(matches!(
        sent.as_slice(),
        [Command::SetPairVerdict {
            verdict: Some(CuratorVerdict::Duplicate),
            ..
        }]
    ));
    select_member(&mut s, CP1252);
    update(&mut s, Action::MarkNotDuplicate);
    let t = draw(&s);
    let screen = rows(&t);
    insta::assert_snapshot!("verdicts_marked_80x24", screen.join("\n"));
    assert!(row(&screen, "verdict").contains("contain verdict"));
    assert!(
        after(row(&screen, "utf16le.txt"), "utf16le.txt").ends_with("100 % ⚑ dup"),
        "{screen:#?}"
    );
    assert!(
        after(row(&screen, "windows1252.txt"), "windows1252.txt").ends_with("100 % ⚑ not dup"),
        "{screen:#?}"
    );
    let cluster_row = screen.iter().find(|r| r.contains(REP)).unwrap();
    assert!(
        after(cluster_row, "   3").starts_with("2/2"),
        "{cluster_row}"
    );

    update(&mut s, Action::Undo);
    let screen = rows(&draw(&s));
    assert!(
        after(row(&screen, "windows1252.txt"), "windows1252.txt").ends_with("100 % –"),
        "{screen:#?}"
    );
    assert!(
        after(row_of_cluster(&screen, REP), "3").starts_with("1/2"),
        "{screen:#?}"
    );
}

/// A verdict stored by an earlier session comes with the snapshot: the
/// member row shows it and the cluster row counts it, with no pair opened.
#[test]
fn stored_verdicts_show_without_opening_the_pair() {
    let snapshot = snapshot_with(&[(REP, UTF16, CuratorVerdict::Duplicate)]);
    let moby = snapshot
        .clusters
        .iter()
        .find(|c| c.members[0].path == REP)
        .unwrap();
    let verdict_of = |p: &str| moby.members.iter().find(|m| m.path == p).unwrap().verdict;
    assert_eq!(verdict_of(UTF16), Some(CuratorVerdict::Duplicate));
    assert_eq!(verdict_of(CP1252), None);
    assert_eq!(verdict_of(REP), None);

    let mut s = scanned(snapshot.clone(), 160, 48);
    s.focus = Focus::Members;
    let screen = rows(&draw(&s));
    assert!(
        after(row(&screen, "utf16le.txt"), "utf16le.txt").ends_with("100 % ⚑ dup"),
        "{screen:#?}"
    );
    assert!(
        after(row_of_cluster(&screen, REP), "3").starts_with("1/2"),
        "{screen:#?}"
    );
}

/// A file of the open pair or diff is deleted: the message line says so
/// and its name is marked `(deleted)` on both screens until it is back;
/// a file not on screen is only logged.
#[test]
fn a_deleted_file_of_the_open_pair_says_so() {
    let mut s = scanned(snapshot_with(&[]), 80, 24);
    select_member(&mut s, CP1252);
    let sent = update(&mut s, Action::OpenPair);
    assert!(matches!(sent.as_slice(), [Command::RequestPair { .. }]));
    assert_eq!(s.screen, Screen::Pair);

    let removed = |path: &str| Action::Worker(Update::FileRemoved { path: path.into() });
    update(&mut s, removed("austen/emma-ch1.txt"));
    assert!(s.notice.is_none(), "{:?}", s.notice);
    assert!(!rows(&draw(&s)).join("\n").contains("(deleted)"));

    update(&mut s, removed(CP1252));
    let (level, notice) = s.notice.clone().expect("a notice");
    assert_eq!(level, Level::Warn);
    assert!(notice.contains("deleted from the folder"), "{notice}");
    let screen = rows(&draw(&s));
    assert!(
        row(&screen, " B ").trim_end().ends_with("(deleted)"),
        "{screen:#?}"
    );
    assert!(!row(&screen, " A ").contains("(deleted)"), "{screen:#?}");
    // The message line (wrapped) says it whole.
    let words = screen
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(words.contains("was deleted from the folder: the pair open shows it as it was"));

    update(&mut s, Action::OpenDiff);
    let screen = rows(&draw(&s));
    assert!(row(&screen, " B ").contains("(deleted)"), "{screen:#?}");

    update(
        &mut s,
        Action::Worker(Update::FileIndexed {
            path: CP1252.into(),
        }),
    );
    assert!(!rows(&draw(&s)).join("\n").contains("(deleted)"));
}

/// `a` on a member, then Enter on another opens those two as the pair (not
/// each against the representative, here the whole book both halves sit
/// in); `y` then judges that pair; `a` again goes back to the
/// representative.
#[test]
fn any_two_members_open_as_a_pair() {
    const KJV_START: &str = "bible/proverbs-kjv-ch01-16.txt";
    const KJV_END: &str = "bible/proverbs-kjv-ch17-31.txt";
    let mut s = scanned(snapshot_with(&[]), 80, 24);
    s.cluster_sel = s
        .view
        .iter()
        .position(|&i| s.clusters()[i].members.iter().any(|m| m.path == KJV_END))
        .unwrap();
    let press = |s: &mut AppState, c: char| {
        let action = keymap::key(s, KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
            .unwrap_or_else(|| panic!("{c:?} does nothing"));
        update(s, action)
    };
    select_member(&mut s, KJV_START);
    press(&mut s, 'a');
    let screen = rows(&draw(&s));
    assert!(
        row(&screen, "ch01-16.txt").contains("◆ bible/proverbs"),
        "{screen:#?}"
    );
    assert!(!row(&screen, "ch17-31.txt").contains('◆'), "{screen:#?}");

    select_member(&mut s, KJV_END);
    let sent = update(&mut s, Action::Enter);
    let [Command::RequestPair { a, b }] = sent.as_slice() else {
        panic!("{sent:?}")
    };
    assert_eq!(
        (a.to_string(), b.to_string()),
        (KJV_START.into(), KJV_END.into())
    );
    let screen = rows(&draw(&s));
    assert!(row(&screen, " A ").contains(KJV_START), "{screen:#?}");
    assert!(row(&screen, " B ").contains(KJV_END), "{screen:#?}");
    let sent = press(&mut s, 'y');
    let [Command::SetPairVerdict { a, b, .. }] = sent.as_slice() else {
        panic!("{sent:?}")
    };
    let mut judged = [a.to_string(), b.to_string()];
    judged.sort();
    assert_eq!(judged, [KJV_START.to_owned(), KJV_END.to_owned()]);

    // Back on the list, `a` on the anchor clears it: the representative again.
    update(&mut s, Action::Back);
    select_member(&mut s, KJV_START);
    press(&mut s, 'a');
    select_member(&mut s, KJV_END);
    let sent = update(&mut s, Action::Enter);
    let [Command::RequestPair { a, .. }] = sent.as_slice() else {
        panic!("{sent:?}")
    };
    assert_eq!(
        a.to_string(),
        s.selected_cluster().unwrap().members[0].path.to_string()
    );
}

/// `Y` on the cluster list accepts the whole cluster: one verdict per
/// member against the representative, all shown at once; `u` takes them
/// all back; `X` dismisses only what is not dismissed yet.
#[test]
fn a_whole_cluster_is_accepted_or_dismissed_with_one_key() {
    let mut s = scanned(snapshot_with(&[]), 80, 24);
    let press = |s: &mut AppState, c: char| {
        let action = keymap::key(s, KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
            .unwrap_or_else(|| panic!("{c:?} does nothing"));
        update(s, action)
    };
    let judged = |sent: &[Command]| -> Vec<(String, String, Option<CuratorVerdict>)> {
        let mut v: Vec<_> = sent
            .iter()
            .map(|c| match c {
                Command::SetPairVerdict { a, b, verdict } => {
                    (a.to_string(), b.to_string(), *verdict)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        v.sort_by(|x, y| x.1.cmp(&y.1));
        v
    };
    let dup = Some(CuratorVerdict::Duplicate);
    let sent = press(&mut s, 'Y');
    assert_eq!(
        judged(&sent),
        [
            (REP.into(), UTF16.into(), dup),
            (REP.into(), CP1252.into(), dup)
        ]
    );
    s.focus = Focus::Members;
    let screen = rows(&draw(&s));
    assert!(
        after(row_of_cluster(&screen, REP), "3").starts_with("2/2"),
        "{screen:#?}"
    );
    for name in ["utf16le.txt", "windows1252.txt"] {
        assert!(
            after(row(&screen, name), name).ends_with("% ⚑ dup"),
            "{screen:#?}"
        );
    }
    let words = screen
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("cluster accepted: 2 members marked duplicates of"),
        "{words}"
    );

    let sent = press(&mut s, 'u');
    assert_eq!(
        judged(&sent),
        [
            (REP.into(), UTF16.into(), None),
            (REP.into(), CP1252.into(), None)
        ]
    );
    assert!(after(row(&rows(&draw(&s)), REP), "3").starts_with("0/2"));

    select_member(&mut s, CP1252);
    update(&mut s, Action::MarkNotDuplicate);
    s.focus = Focus::Clusters;
    let sent = press(&mut s, 'X');
    assert_eq!(
        judged(&sent),
        [(REP.into(), UTF16.into(), Some(CuratorVerdict::NotDuplicate))]
    );
    assert!(after(row(&rows(&draw(&s)), REP), "3").starts_with("2/2"));
}

/// After `x`, once a snapshot holds the verdict (and not before), the
/// message line says whether the two files parted or another link keeps
/// them in one cluster.
#[test]
fn after_x_the_curator_is_told_whether_the_file_left_the_cluster() {
    let base = snapshot_with(&[]);
    let mut s = scanned(base.clone(), 80, 24);
    let next = |generation: u64, applied: u64, without: Option<&str>| {
        let mut snap = (*base).clone();
        snap.generation = generation;
        snap.verdicts_applied = applied;
        if let Some(gone) = without {
            for c in &mut snap.clusters {
                Arc::make_mut(c).members.retain(|m| m.path != gone);
            }
        }
        Action::Worker(Update::Snapshot(Arc::new(snap)))
    };
    let notice = |s: &AppState| s.notice.clone().map(|(_, text)| text).unwrap_or_default();

    select_member(&mut s, CP1252);
    update(&mut s, Action::MarkNotDuplicate);
    assert!(notice(&s).starts_with("marked not duplicate"));
    // A snapshot built before the worker applied the verdict says nothing.
    update(&mut s, next(2, 0, None));
    assert!(
        notice(&s).starts_with("marked not duplicate"),
        "{}",
        notice(&s)
    );
    update(&mut s, next(3, 1, None));
    assert!(
        notice(&s).starts_with(&format!("{CP1252} stays in a cluster with {REP}: a link")),
        "{}",
        notice(&s)
    );
    // Told once.
    update(&mut s, Action::Down);
    update(&mut s, next(4, 1, None));
    assert!(s.notice.is_none(), "{:?}", s.notice);

    select_member(&mut s, UTF16);
    update(&mut s, Action::MarkNotDuplicate);
    update(&mut s, next(5, 2, Some(UTF16)));
    assert_eq!(
        notice(&s),
        format!("{UTF16} and {REP} are no longer in one cluster")
    );
}

/// `/` finds files outside every cluster too: the snapshot lists the
/// indexed documents in no cluster, and a filter matching one names it on
/// the cluster list (its title counts them).
#[test]
fn the_filter_finds_files_outside_clusters() {
    let snapshot = snapshot_with(&[]);
    assert!(!snapshot.unclustered.is_empty());
    let in_clusters: Vec<String> = snapshot
        .clusters
        .iter()
        .flat_map(|c| c.members.iter().map(|m| m.path.to_string()))
        .collect();
    for p in &snapshot.unclustered {
        assert!(!in_clusters.contains(&p.to_string()), "{p} is in a cluster");
    }
    assert_eq!(
        snapshot.documents,
        snapshot.unclustered.len()
            + snapshot
                .clusters
                .iter()
                .map(|c| c.members.len())
                .sum::<usize>()
    );
    // A file in no cluster whose name no clustered file shares.
    let lone = snapshot
        .unclustered
        .iter()
        .map(|p| p.to_string())
        .find(|p| {
            let name = p.rsplit('/').next().unwrap();
            !in_clusters.iter().any(|c| c.contains(name))
        })
        .expect("a lone file in the sample corpus");
    let name = lone.rsplit('/').next().unwrap().to_owned();

    let mut s = scanned(snapshot, 80, 24);
    update(&mut s, Action::StartFilter);
    for c in name.chars() {
        update(&mut s, Action::PromptChar(c));
    }
    update(&mut s, Action::PromptSubmit);
    let screen = rows(&draw(&s));
    assert!(
        row(&screen, "┌ Clusters").contains("· 1 in no cluster"),
        "{screen:#?}"
    );
    assert!(row(&screen, "no cluster has a file matching").contains('│'));
    assert!(
        row(&screen, " in no cluster: ").contains(&lone),
        "{screen:#?}"
    );
}
