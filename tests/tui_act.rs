//! Acting on decisions from the review screen: `M` asks the worker for
//! the plan and opens a confirmation view (snapshots at 80×24); nothing
//! moves before `y`/Enter there and Esc sends nothing; the real worker
//! moves exactly the plan's files out of a folder and `U`'s undo puts
//! their bytes and mtimes back.

#![cfg(feature = "tui")]

mod common;

use common::wait_for_update as wait_for;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use doppel_core::engine::EngineConfig;
use doppel_index::worker::protocol::{ErrorKind, PlanView, Snapshot};
use doppel_index::worker::{spawn, Command, Update, WorkerConfig, WorkerHandle};
use doppel_tui::action::Action;
use doppel_tui::keymap;
use doppel_tui::state::{AppState, Prompt};
use doppel_tui::{render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

/// A folder of two clusters (Emma ×2, Persuasion ×2) and a lone text,
/// every file with its own old mtime, and a quarantine path outside it.
struct Setup {
    _dir: tempfile::TempDir,
    folder: PathBuf,
    index: PathBuf,
    quarantine: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    let sample = |name: &str| fs::read(common::sample_corpus().join(name)).unwrap();
    let emma = sample("austen/emma-ch1.txt");
    let persuasion = sample("austen/persuasion-ch1.txt");
    let files = [
        ("emma.txt", emma.clone()),
        ("copies/emma-copy.txt", emma),
        ("persuasion.txt", persuasion.clone()),
        ("dups/persuasion.txt", persuasion),
        ("lonely.txt", sample("austen/sense-sensibility-ch1.txt")),
    ];
    for (n, (name, bytes)) in files.into_iter().enumerate() {
        let path = folder.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        let when = UNIX_EPOCH + Duration::new(1_000_000_000 + n as u64 * 86_400, 123_456_789);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
    Setup {
        index: dir.path().join("state").join("index.sqlite"),
        quarantine: dir.path().join("quarantine"),
        folder,
        _dir: dir,
    }
}

fn start(s: &Setup) -> WorkerHandle {
    let mut config = WorkerConfig::new(&s.folder);
    config.index = Some(s.index.clone().into());
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    spawn(config)
}

fn first_snapshot(worker: &WorkerHandle) -> Arc<Snapshot> {
    wait_for(worker, "the first snapshot", |u| match u {
        Update::Snapshot(s) => Some(s),
        _ => None,
    })
}

fn ask_plan(worker: &WorkerHandle, snapshot: &Snapshot, to: &Path) -> Arc<PlanView> {
    worker
        .commands
        .send(Command::RequestPlan {
            generation: snapshot.generation,
            clusters: Vec::new(),
            to: to.to_path_buf(),
        })
        .unwrap();
    wait_for(worker, "the plan", |u| match u {
        Update::Plan(p) => Some(p),
        Update::Error(e) => panic!("no plan: {e}"),
        _ => None,
    })
}

/// Every file under `dir`: relative path → (bytes, mtime).
fn files_under(dir: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    let mut out = BTreeMap::new();
    for entry in walk(dir) {
        let rel = entry
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let mtime = fs::metadata(&entry).unwrap().modified().unwrap();
        out.insert(rel, (fs::read(&entry).unwrap(), mtime));
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The TUI model with the worker's snapshot, at 80×24, the quarantine
/// folder configured.
fn state_with(snapshot: Arc<Snapshot>, quarantine: Option<PathBuf>) -> AppState {
    let mut s = AppState::new("books", &EngineConfig::default());
    update(&mut s, Action::Resize(80, 24));
    update(&mut s, Action::Worker(Update::Snapshot(snapshot)));
    s.act.quarantine_dir = quarantine;
    s
}

fn draw(state: &AppState) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| render(state, f)).unwrap();
    t
}

fn moves_anything(commands: &[Command]) -> bool {
    commands.iter().any(|c| {
        matches!(
            c,
            Command::Quarantine { .. } | Command::UndoQuarantine { .. }
        )
    })
}

#[test]
fn confirm_moves_exactly_the_plans_files_and_undo_restores_bytes_and_mtimes() {
    let s = setup();
    let before = files_under(&s.folder);
    let worker = start(&s);
    let snapshot = first_snapshot(&worker);
    assert_eq!(snapshot.clusters.len(), 2, "Emma and Persuasion cluster");

    // Inside the watched folder is refused, and nothing is planned.
    worker
        .commands
        .send(Command::RequestPlan {
            generation: snapshot.generation,
            clusters: Vec::new(),
            to: s.folder.join("quarantine"),
        })
        .unwrap();
    let refused = wait_for(&worker, "the refusal", |u| match u {
        Update::Error(e) => Some(e),
        Update::Plan(p) => panic!("planned into the watched folder: {p:?}"),
        _ => None,
    });
    assert_eq!(refused.kind, ErrorKind::Request);
    assert!(refused.message.contains("the folder of books"), "{refused}");

    let planned = ask_plan(&worker, &snapshot, &s.quarantine);
    let mut ready: Vec<String> = planned.plan.ready().map(|m| m.path.to_string()).collect();
    ready.sort();
    assert_eq!(ready.len(), 2, "one copy per cluster: {ready:?}");
    assert_eq!(planned.plan.summary.files, 2);
    assert_eq!(planned.plan.summary.clusters, 2);
    // Nothing moved by asking.
    assert_eq!(files_under(&s.folder), before);

    worker
        .commands
        .send(Command::Quarantine {
            plan: Box::new(planned.plan.clone()),
            to: planned.to.clone(),
        })
        .unwrap();
    let outcome = wait_for(&worker, "the quarantine", |u| match u {
        Update::Quarantined(o) => Some(o),
        _ => None,
    });
    let mut moved: Vec<String> = outcome.moved.iter().map(|m| m.path.to_string()).collect();
    moved.sort();
    assert_eq!(moved, ready, "exactly the plan's files moved");
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    let after = files_under(&s.folder);
    let mut expected = before.clone();
    for path in &ready {
        expected.remove(path);
    }
    assert_eq!(after, expected, "the rest of the folder is untouched");
    let quarantined = files_under(&s.quarantine);
    for path in &ready {
        assert_eq!(quarantined[path].0, before[path].0, "{path} in quarantine");
    }
    // The worker walks the folder again: the copies are gone from it.
    wait_for(&worker, "a snapshot without the moved files", |u| match u {
        Update::Snapshot(s) if s.documents == 3 && s.clusters.is_empty() => Some(()),
        _ => None,
    });

    worker
        .commands
        .send(Command::UndoQuarantine {
            journal: outcome.journal.clone(),
        })
        .unwrap();
    let restored = wait_for(&worker, "the undo", |u| match u {
        Update::Restored(r) => Some(r),
        _ => None,
    });
    let mut back: Vec<String> = restored.restored.iter().map(ToString::to_string).collect();
    back.sort();
    assert_eq!(back, ready);
    assert!(restored.problems.is_empty(), "{:?}", restored.problems);
    assert_eq!(
        files_under(&s.folder),
        before,
        "every byte and mtime is back"
    );
    wait_for(&worker, "the clusters again", |u| match u {
        Update::Snapshot(s) if s.clusters.len() == 2 => Some(()),
        _ => None,
    });
}

/// The worker's snapshot and plan of the setup folder.
fn planned(s: &Setup) -> (Arc<Snapshot>, Arc<PlanView>) {
    let worker = start(s);
    let snapshot = first_snapshot(&worker);
    let plan = ask_plan(&worker, &snapshot, &s.quarantine);
    (snapshot, plan)
}

#[test]
fn nothing_is_sent_to_move_before_confirmation_and_esc_sends_nothing() {
    let s = setup();
    let (snapshot, plan) = planned(&s);
    let mut state = state_with(snapshot.clone(), Some(s.quarantine.clone()));

    // M asks for the plan of every cluster, and nothing else.
    let out = update(&mut state, Action::AskQuarantine);
    assert_eq!(
        out,
        vec![Command::RequestPlan {
            generation: snapshot.generation,
            clusters: Vec::new(),
            to: s.quarantine.clone(),
        }]
    );
    let out = update(&mut state, Action::Worker(Update::Plan(plan.clone())));
    assert!(out.is_empty());
    assert!(state.act.view.as_ref().unwrap().plan.is_some());
    // Keys on the open view: scrolling and other review keys move nothing.
    for key in ['j', 'k', 'Y', 'X', ' ', 'u', 'U', 'M'] {
        let event = KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE);
        if let Some(action) = keymap::key(&state, event) {
            let out = update(&mut state, action);
            assert!(out.is_empty(), "{key:?} sent {out:?}");
        }
    }
    assert!(state.act.view.is_some(), "still asking");
    // Esc cancels with nothing sent.
    let esc = keymap::key(&state, KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)).unwrap();
    let out = update(&mut state, esc);
    assert!(out.is_empty(), "Esc sent {out:?}");
    assert!(state.act.view.is_none());
    assert!(state.notice.as_ref().unwrap().1.contains("nothing moved"));

    // Again, and `y` moves exactly the plan shown.
    update(&mut state, Action::AskQuarantine);
    update(&mut state, Action::Worker(Update::Plan(plan.clone())));
    let y = keymap::key(
        &state,
        KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE),
    )
    .unwrap();
    let out = update(&mut state, y);
    assert_eq!(
        out,
        vec![Command::Quarantine {
            plan: Box::new(plan.plan.clone()),
            to: plan.to.clone(),
        }]
    );
    assert!(state.act.view.is_none());
}

#[test]
fn a_plan_for_an_older_snapshot_or_a_refusal_does_not_open_confirmation() {
    let s = setup();
    let (snapshot, plan) = planned(&s);
    let mut state = state_with(snapshot, Some(s.quarantine.clone()));
    update(&mut state, Action::AskQuarantine);
    let mut old = (*plan).clone();
    old.generation -= 1;
    update(&mut state, Action::Worker(Update::Plan(Arc::new(old))));
    assert!(state.act.view.as_ref().unwrap().plan.is_none());
    let out = update(&mut state, Action::ConfirmQuarantine);
    assert!(!moves_anything(&out), "confirmed a plan never shown");
    // A refusal closes the waiting view.
    update(
        &mut state,
        Action::Worker(Update::Error(
            doppel_index::worker::protocol::WorkerError::new(ErrorKind::Request, "refused"),
        )),
    );
    assert!(state.act.view.is_none());
}

#[test]
fn without_a_configured_folder_m_asks_for_one_and_a_filter_narrows_the_clusters() {
    let s = setup();
    let (snapshot, _) = planned(&s);
    let mut state = state_with(snapshot.clone(), None);
    let out = update(&mut state, Action::AskQuarantine);
    assert!(out.is_empty());
    assert!(matches!(state.prompt, Some(Prompt::Quarantine { .. })));
    for c in "/q".chars() {
        update(&mut state, Action::PromptChar(c));
    }
    let out = update(&mut state, Action::PromptSubmit);
    assert_eq!(
        out,
        vec![Command::RequestPlan {
            generation: snapshot.generation,
            clusters: Vec::new(),
            to: PathBuf::from("/q"),
        }]
    );
    update(&mut state, Action::Back);

    // With a `/` filter, only the clusters it keeps (1-based ids).
    update(&mut state, Action::StartFilter);
    for c in "persuasion".chars() {
        update(&mut state, Action::PromptChar(c));
    }
    update(&mut state, Action::PromptSubmit);
    let id = snapshot
        .clusters
        .iter()
        .position(|c| c.members.iter().any(|m| m.path == "persuasion.txt"))
        .unwrap()
        + 1;
    let out = update(&mut state, Action::AskQuarantine);
    assert_eq!(
        out,
        vec![Command::RequestPlan {
            generation: snapshot.generation,
            clusters: vec![id],
            to: PathBuf::from("/q"),
        }]
    );
}

#[test]
fn u_undoes_only_this_sessions_quarantine_and_says_what_came_back() {
    let s = setup();
    let (snapshot, _) = planned(&s);
    let mut state = state_with(snapshot, Some(s.quarantine.clone()));
    let out = update(&mut state, Action::UndoQuarantine);
    assert!(out.is_empty(), "nothing to undo yet");
    let journal = s.quarantine.join("doppel-journal-1.jsonl");
    update(
        &mut state,
        Action::Worker(Update::Quarantined(Arc::new(doppel_index::act::Outcome {
            journal: journal.clone(),
            moved: vec![doppel_index::act::Moved {
                path: "dups/persuasion.txt".into(),
                size: 10,
            }],
            problems: Vec::new(),
        }))),
    );
    let notice = &state.notice.as_ref().unwrap().1;
    assert!(
        notice.starts_with("moved 1 file to ") && notice.contains("U undoes"),
        "{notice}"
    );
    let out = update(&mut state, Action::UndoQuarantine);
    assert_eq!(
        out,
        vec![Command::UndoQuarantine {
            journal: journal.clone()
        }]
    );
    update(
        &mut state,
        Action::Worker(Update::Restored(Arc::new(doppel_index::act::UndoReport {
            journal,
            restored: Vec::new(),
            already_back: 0,
            problems: vec!["dups/persuasion.txt: a file is there again".into()],
            partials_removed: Vec::new(),
        }))),
    );
    let notice = &state.notice.as_ref().unwrap().1;
    assert!(
        notice.contains("put back 0 files") && notice.contains("dups/persuasion.txt"),
        "{notice}"
    );
}

#[test]
fn the_confirmation_view_at_80x24() {
    let s = setup();
    let (snapshot, plan) = planned(&s);
    // A fixed quarantine path for a stable snapshot.
    let mut plan = (*plan).clone();
    plan.to = PathBuf::from("/srv/quarantine");
    let mut state = state_with(snapshot, Some(plan.to.clone()));
    update(&mut state, Action::AskQuarantine);
    let waiting = draw(&state);
    insta::assert_snapshot!("act_waiting_80x24", waiting.backend());
    update(&mut state, Action::Worker(Update::Plan(Arc::new(plan))));
    let shown = draw(&state);
    insta::assert_snapshot!("act_confirm_80x24", shown.backend());
}

#[test]
fn the_confirmation_view_names_a_file_changed_since_it_was_read() {
    let s = setup();
    let worker = start(&s);
    let snapshot = first_snapshot(&worker);
    // The copy the keeper rule does not keep (emma.txt is older) changed
    // after the index read it (no watcher: the worker does not know): it
    // stays, named with why.
    fs::write(s.folder.join("copies/emma-copy.txt"), "rewritten since\n").unwrap();
    let plan = ask_plan(&worker, &snapshot, &s.quarantine);
    assert_eq!(plan.plan.summary.files, 1, "only the unchanged copy moves");
    assert_eq!(plan.plan.summary.held_back, 1);
    let mut plan = (*plan).clone();
    plan.to = PathBuf::from("/srv/quarantine");
    let mut state = state_with(snapshot, Some(plan.to.clone()));
    update(&mut state, Action::AskQuarantine);
    update(&mut state, Action::Worker(Update::Plan(Arc::new(plan))));
    let shown = draw(&state);
    insta::assert_snapshot!("act_confirm_changed_80x24", shown.backend());
}
