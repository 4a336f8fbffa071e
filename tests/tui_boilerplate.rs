//! The boilerplate overlay of the review screen, on a real worker: a
//! licence around three different works is learned and left out, so only a
//! work and its edited copy cluster; `b` lists it (snapshot at 80×24), `o`
//! sends the curator's "not boilerplate" for the snapshot shown, the worker
//! applies it and the clusters follow (every work under the licence pairs),
//! and `o` again restores it. A ruling on a list that changed since is
//! refused. The TUI's HTML export (`e`) marks the licence as boilerplate in
//! its diffs, as `doppel report --html` does. The texts are cut from the
//! books of `tests/data/corpus/`.

#![cfg(feature = "tui")]

mod common;

use common::wait_for_update as wait_for;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use doppel_core::engine::EngineConfig;
use doppel_index::worker::protocol::{ErrorKind, Snapshot};
use doppel_index::worker::{spawn, Command, Update, WorkerConfig, WorkerHandle};
use doppel_tui::action::Action;
use doppel_tui::keymap;
use doppel_tui::state::AppState;
use doppel_tui::{render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

/// Words `range` of a corpus file, joined by spaces.
fn words(file: &str, range: std::ops::Range<usize>) -> String {
    let text = std::fs::read_to_string(common::test_corpus().join(file)).unwrap();
    text.split_whitespace()
        .skip(range.start)
        .take(range.len())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A 700-word licence around three works and an edited copy of the
/// first, in `books/`; the index beside it.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    std::fs::create_dir_all(&folder).unwrap();
    let licence = words("moby/moby_dick.txt", 5000..5700);
    let emma = words("austen/emma.txt", 3000..3300);
    let copy: Vec<&str> = emma
        .split(' ')
        .enumerate()
        .map(|(i, w)| if i % 30 == 0 { "changed" } else { w })
        .collect();
    let works = [
        ("emma.txt", emma.clone()),
        ("emma-copy.txt", copy.join(" ")),
        ("persuasion.txt", words("austen/persuasion.txt", 3000..3300)),
        (
            "mansfield.txt",
            words("austen/mansfieldpark.txt", 3000..3300),
        ),
    ];
    for (name, body) in works {
        std::fs::write(folder.join(name), format!("{licence}\n\n{body}\n")).unwrap();
    }
    let index = dir.path().join("state/index.sqlite");
    (dir, folder, index)
}

fn start(folder: &std::path::Path, index: &std::path::Path) -> WorkerHandle {
    let mut config = WorkerConfig::new(folder);
    config.index = Some(index.to_path_buf().into());
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    spawn(config)
}

/// Each cluster's members, by name.
fn clusters(snapshot: &Snapshot) -> BTreeSet<BTreeSet<String>> {
    snapshot
        .clusters
        .iter()
        .map(|c| c.members.iter().map(|m| m.path.to_string()).collect())
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<BTreeSet<String>> {
    BTreeSet::from([names.iter().map(|n| n.to_string()).collect()])
}

fn press(state: &mut AppState, c: char) -> Vec<Command> {
    let action = keymap::key(state, KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
        .unwrap_or_else(|| panic!("{c:?} does nothing"));
    update(state, action)
}

fn draw(state: &AppState) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| render(state, f)).unwrap();
    t
}

/// Send `commands`; the first snapshot after them with `want` clusters.
fn ruled(
    worker: &WorkerHandle,
    commands: Vec<Command>,
    want: &BTreeSet<BTreeSet<String>>,
) -> Arc<Snapshot> {
    assert!(
        commands
            .iter()
            .any(|c| matches!(c, Command::SetBoilerplateOverruled { .. })),
        "{commands:?}"
    );
    for c in commands {
        worker.commands.send(c).unwrap();
    }
    wait_for(worker, "the clusters after the ruling", |u| match u {
        Update::Snapshot(s) if &clusters(&s) == want => Some(s),
        Update::Error(e) => panic!("{e}"),
        _ => None,
    })
}

#[test]
fn the_overlay_lists_the_licence_and_o_overrules_and_restores_it_through_the_worker() {
    let (_dir, folder, index) = setup();
    let worker = start(&folder, &index);
    let first = wait_for(&worker, "the first snapshot", |u| match u {
        Update::Snapshot(s) => Some(s),
        _ => None,
    });
    let alone = set(&["emma.txt", "emma-copy.txt"]);
    assert_eq!(clusters(&first), alone);
    let learned = &first.boilerplate.passages;
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!((learned[0].documents, learned[0].overruled), (4, false));

    let mut state = AppState::new("books", &EngineConfig::default());
    update(&mut state, Action::Resize(80, 24));
    update(&mut state, Action::Worker(Update::Snapshot(first.clone())));
    assert!(press(&mut state, 'b').is_empty());
    insta::assert_snapshot!("boilerplate_80x24", draw(&state).backend());

    // Not boilerplate: the licence is compared again, every work pairs.
    let commands = press(&mut state, 'o');
    let every = set(&[
        "emma.txt",
        "emma-copy.txt",
        "mansfield.txt",
        "persuasion.txt",
    ]);
    let overruled = ruled(&worker, commands, &every);
    let listed = &overruled.boilerplate.passages;
    assert_eq!(listed.len(), 1);
    assert!(listed[0].overruled, "{listed:?}");
    update(
        &mut state,
        Action::Worker(Update::Snapshot(overruled.clone())),
    );
    let shown = format!("{:?}", draw(&state).backend());
    assert!(shown.contains("overruled"), "{shown}");

    // A ruling on the list of an older snapshot is refused.
    worker
        .commands
        .send(Command::SetBoilerplateOverruled {
            generation: first.generation,
            passage: 0,
            overrule: false,
        })
        .unwrap();
    let refused = wait_for(&worker, "the refusal", |u| match u {
        Update::Error(e) => Some(e),
        _ => None,
    });
    assert_eq!(refused.kind, ErrorKind::Request);
    assert!(refused.message.contains("changed since"), "{refused}");

    // `o` again: boilerplate again, the clusters are back.
    let commands = press(&mut state, 'o');
    let restored = ruled(&worker, commands, &alone);
    assert!(!restored.boilerplate.passages[0].overruled);

    // Esc closes the overlay.
    press(&mut state, 'b');
    assert!(state.boilerplate.is_none());
}

/// `e`'s HTML page, written from the TUI's snapshot, leaves the licence
/// out of the pair's diff and marks it, as `doppel report --html` does.
#[test]
fn the_tui_export_marks_the_learned_boilerplate_in_its_html_diffs() {
    let (dir, folder, index) = setup();
    let worker = start(&folder, &index);
    let snapshot = wait_for(&worker, "the first snapshot", |u| match u {
        Update::Snapshot(s) => Some(s),
        _ => None,
    });
    assert_eq!(clusters(&snapshot), set(&["emma.txt", "emma-copy.txt"]));
    let written = doppel_tui::export::write_html(
        "export",
        dir.path(),
        &folder,
        &snapshot,
        &Default::default(),
        &EngineConfig::default(),
    )
    .unwrap();
    let page = std::fs::read_to_string(written).unwrap();
    let marked = page
        .matches("title=\"boilerplate, left out of the comparison\"")
        .count();
    assert!(marked > 0, "the licence is not marked in the exported diff");
}

/// Every row of `state` drawn at 80×24, one line each.
fn screen_text(state: &AppState) -> String {
    let t = draw(state);
    let buf = t.backend().buffer();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The curator's review found the overlay after `o` marking the passage
/// only when the worker answered, the status bar counting "2 boilerplate"
/// beside the overlay's "0 left out · 2 overruled", the rows re-sorting
/// under the cursor, and the first Esc (on the documents screen) not
/// closing it. Two passages, the first overruled: the mark and both
/// counts show at once, the cursor follows the passage to its new row,
/// and Esc closes the overlay from any screen.
#[test]
fn a_ruling_shows_at_once_and_the_cursor_stays_on_its_passage_as_the_list_resorts() {
    let (_dir, folder, index) = setup();
    let worker = start(&folder, &index);
    let first = wait_for(&worker, "the first snapshot", |u| match u {
        Update::Snapshot(s) => Some(s),
        _ => None,
    });
    let licence = first.boilerplate.passages[0].clone();
    let named = |words: &str, overruled: bool| {
        let mut p = licence.clone();
        p.first_words = words.to_owned();
        p.overruled = overruled;
        p
    };
    let with = |generation: u64, passages| {
        let mut s = (*first).clone();
        s.generation = generation;
        Arc::make_mut(&mut s.boilerplate).passages = passages;
        Arc::new(s)
    };
    let before = with(
        first.generation,
        vec![named("alpha licence", false), named("beta notice", false)],
    );
    let mut state = AppState::new("books", &EngineConfig::default());
    update(&mut state, Action::Resize(80, 24));
    update(&mut state, Action::Worker(Update::Snapshot(before)));
    press(&mut state, 'b');
    let commands = press(&mut state, 'o');
    assert!(
        matches!(
            commands[..],
            [Command::SetBoilerplateOverruled {
                passage: 0,
                overrule: true,
                ..
            }]
        ),
        "{commands:?}"
    );
    // Marked before the worker answers, and counted alike in both places.
    let shown = screen_text(&state);
    let row = shown.lines().find(|l| l.contains("alpha licence")).unwrap();
    assert!(row.contains("overruled"), "{shown}");
    assert!(shown.contains("1 left out · 1 overruled"), "{shown}");
    assert!(shown.contains("1 boilerplate, 1 overruled (b)"), "{shown}");

    // The worker's list: the learned passage first, the overruled after.
    let after = with(
        first.generation + 1,
        vec![named("beta notice", false), named("alpha licence", true)],
    );
    update(&mut state, Action::Worker(Update::Snapshot(after)));
    let view = state.boilerplate.clone().unwrap();
    assert_eq!(view.selected, 1, "the cursor left the ruled passage");
    assert_eq!(view.pending, None);
    let shown = screen_text(&state);
    assert!(shown.contains("o: boilerplate again"), "{shown}");

    // Esc closes it at once, whichever screen is under it.
    press(&mut state, 'b');
    for screen in ["1", "D", "t"] {
        press(&mut state, screen.chars().next().unwrap());
        press(&mut state, 'b');
        assert!(state.boilerplate.is_some());
        let esc = keymap::key(&state, KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)).unwrap();
        update(&mut state, esc);
        assert!(
            state.boilerplate.is_none(),
            "Esc kept it open over {screen}"
        );
    }
}
