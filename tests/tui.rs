//! The terminal UI without a terminal: `update(Action)` unit tests, whole-
//! screen snapshots (TestBackend + insta) of every screen at 80×24 and
//! 160×48 on real data from `sample-corpus/`, a sweep of sizes from 0×0 to
//! 250×80 over every screen with hostile names and text (no panic, no
//! control character reaches the buffer), random action sequences, and the
//! event loop driven end to end against a worker stand-in.

#![cfg(feature = "tui")]

mod common;

use common::copy_dir;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::algo::{AlgorithmId, Score, Unit};
use doppel_core::engine::{EngineConfig, FusionRule, Thresholds};
use doppel_index::boilerplate::SideBoilerplate;
use doppel_index::worker::diff::{diff_texts, DiffOptions};
use doppel_index::worker::protocol::{
    ClusterView, DiffView, ErrorKind, MemberView, PairDetail, Progress, ScoreRow, Snapshot, Stage,
    WatchState, WorkerError,
};
use doppel_index::worker::{Command, Update, WorkerHandle};
use doppel_pairing::cluster::{ClusterBy, ClusterMode, ClusterSpec};
use doppel_pairing::library::LibraryConfig;
use doppel_tui::action::Action;
use doppel_tui::state::{AppState, Effect, Focus, Prompt, Screen, SortKey};
use doppel_tui::{render, update};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

// ---------------------------------------------------------------- fixtures

/// Real data from `sample-corpus/`: the snapshot, a pair detail and a diff
/// for the Emma cluster (the original and its lightly edited copy), and the
/// diff of the Pride and Prejudice e-text against its OCR'd scan.
struct Corpus {
    snapshot: Arc<Snapshot>,
    pair: Arc<PairDetail>,
    diff: Arc<DiffView>,
    scan_diff: Arc<DiffView>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("books");
        copy_dir(&common::sample_corpus(), &folder);
        let index_path = dir.path().join("state").join("index.sqlite");
        let snapshot = common::snapshot_of(&common::indexed(&folder, &index_path));
        let (a, b) = common::cluster_pair(&snapshot, "austen/emma-ch1.txt");
        let (sa, sb) = common::cluster_pair(&snapshot, "scans/pride-prejudice-ch1-3-ocr.txt");
        let (pair, [diff, scan_diff]) =
            common::worker_answers(&folder, &index_path, (&a, &b), [(&a, &b), (&sa, &sb)]);
        Corpus {
            snapshot,
            pair: Arc::new(pair),
            diff: Arc::new(diff),
            scan_diff: Arc::new(scan_diff),
        }
    })
}

// ------------------------------------------------------------------ states

/// A default threshold (defaults move as the engine is tuned).
fn default_of(id: AlgorithmId) -> f64 {
    Thresholds::default().get(id)
}

/// `v` rounded to hundredths, as the UI snaps similarity thresholds.
fn hundredths(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn feed(state: &mut AppState, u: Update) -> Vec<Command> {
    update(state, Action::Worker(u))
}

fn blank(w: u16, h: u16) -> AppState {
    let mut s = AppState::new("sample-corpus", &EngineConfig::default());
    s.export_prefix = "doppel-export".into();
    update(&mut s, Action::Resize(w, h));
    s
}

/// The state after a finished scan of the sample corpus.
fn scanned(w: u16, h: u16) -> AppState {
    let mut s = blank(w, h);
    feed(&mut s, Update::Watch(WatchState::Scanning));
    feed(
        &mut s,
        Update::Progress(Progress {
            stage: Stage::Reading,
            done: 27,
            total: 27,
            bytes: 0,
        }),
    );
    feed(
        &mut s,
        Update::FileSkipped {
            path: "broken.txt".into(),
            reason: "binary".into(),
        },
    );
    feed(
        &mut s,
        Update::FileIndexed {
            path: "sotu/1791-washington.txt".into(),
        },
    );
    feed(&mut s, Update::Snapshot(corpus().snapshot.clone()));
    feed(
        &mut s,
        Update::Progress(Progress {
            stage: Stage::Idle,
            done: 0,
            total: 0,
            bytes: 0,
        }),
    );
    feed(&mut s, Update::Watch(WatchState::Watching));
    s
}

/// Select the cluster holding `path` (through the filter) and focus its
/// member `path`.
fn select_member(s: &mut AppState, path: &str) {
    let path = DocPath::from(path);
    let rep_cluster = s
        .view
        .iter()
        .position(|&i| s.clusters()[i].members.iter().any(|m| m.path == path))
        .expect("a cluster with the path");
    s.cluster_sel = rep_cluster;
    update(s, Action::Right);
    let idx = s
        .selected_cluster()
        .unwrap()
        .members
        .iter()
        .position(|m| m.path == path)
        .unwrap();
    for _ in 0..idx {
        update(s, Action::Down);
    }
    assert_eq!(s.focus, Focus::Members);
}

fn with_pair(w: u16, h: u16) -> AppState {
    let mut s = scanned(w, h);
    let c = corpus();
    select_member(&mut s, &c.pair.b.to_string());
    let cmds = update(&mut s, Action::OpenPair);
    assert_eq!(
        cmds,
        vec![Command::RequestPair {
            a: c.pair.a.clone(),
            b: c.pair.b.clone()
        }]
    );
    feed(&mut s, Update::Pair(c.pair.clone()));
    update(&mut s, Action::Down);
    update(&mut s, Action::Down);
    s
}

fn with_diff(w: u16, h: u16) -> AppState {
    let mut s = with_pair(w, h);
    let c = corpus();
    let cmds = update(&mut s, Action::OpenDiff);
    assert!(
        matches!(&cmds[..], [Command::RequestDiff { a, b, .. }] if *a == c.diff.a && *b == c.diff.b)
    );
    feed(&mut s, Update::Diff(c.diff.clone()));
    update(&mut s, Action::NextChange);
    update(&mut s, Action::NextChange);
    s
}

/// The scan against its e-text, opened from the cluster list.
fn with_scan_diff(w: u16, h: u16) -> AppState {
    let mut s = scanned(w, h);
    let c = corpus();
    select_member(&mut s, &c.scan_diff.b.to_string());
    let cmds = update(&mut s, Action::OpenDiff);
    assert!(
        matches!(&cmds[..], [Command::RequestDiff { a, b, .. }] if *a == c.scan_diff.a && *b == c.scan_diff.b),
        "{cmds:?}"
    );
    feed(&mut s, Update::Diff(c.scan_diff.clone()));
    s
}

/// Search the diff for `query` as typed.
fn search(s: &mut AppState, query: &str) {
    update(s, Action::StartSearch);
    for c in query.chars() {
        update(s, Action::PromptChar(c));
    }
    update(s, Action::PromptSubmit);
}

fn with_thresholds(w: u16, h: u16) -> AppState {
    let mut s = scanned(w, h);
    update(&mut s, Action::ShowScreen(Screen::Thresholds));
    update(&mut s, Action::Down);
    update(&mut s, Action::Down);
    let cmds = update(&mut s, Action::Nudge(10));
    assert_eq!(
        cmds,
        vec![Command::SetThreshold {
            id: AlgorithmId::Minhash,
            value: hundredths(default_of(AlgorithmId::Minhash) + 0.1)
        }]
    );
    s
}

fn screen_state(name: &str, w: u16, h: u16) -> AppState {
    match name {
        "waiting" => {
            let mut s = blank(w, h);
            feed(&mut s, Update::Watch(WatchState::Scanning));
            feed(
                &mut s,
                Update::Progress(Progress {
                    stage: Stage::Reading,
                    done: 9,
                    total: 27,
                    bytes: 0,
                }),
            );
            s
        }
        "clusters" => scanned(w, h),
        "members" => {
            let mut s = scanned(w, h);
            select_member(&mut s, "moby/other-encodings/moby-dick-ch1-windows1252.txt");
            update(&mut s, Action::ToggleKeep);
            s
        }
        "filter" => {
            let mut s = scanned(w, h);
            update(&mut s, Action::StartFilter);
            for c in "austen".chars() {
                update(&mut s, Action::PromptChar(c));
            }
            s
        }
        "pair" => with_pair(w, h),
        "pair_boilerplate" => {
            // B is mostly a licence other documents carry too.
            let mut s = with_pair(w, h);
            let c = corpus();
            let mut detail = (*c.pair).clone();
            detail.boilerplate[1] = SideBoilerplate {
                words: 2860,
                document_words: 3764,
                shared_by: 4,
            };
            feed(&mut s, Update::Pair(Arc::new(detail)));
            s
        }
        "pair_si" => {
            // The last row: SI in Roth's terms, the Why panel grown to fit.
            let mut s = with_pair(w, h);
            for _ in 0..8 {
                update(&mut s, Action::Down);
            }
            s
        }
        "diff" => with_diff(w, h),
        "diff_scan" => with_scan_diff(w, h),
        "diff_scan_lines" => {
            let mut s = with_scan_diff(w, h);
            update(&mut s, Action::ToggleDiffMode);
            update(&mut s, Action::NextChange);
            s
        }
        "diff_scan_folded" => {
            let mut s = with_scan_diff(w, h);
            update(&mut s, Action::ToggleFold);
            search(&mut s, "Netherfield");
            update(&mut s, Action::NextChange);
            s
        }
        "thresholds" => with_thresholds(w, h),
        "skipped" => {
            let mut s = scanned(w, h);
            update(&mut s, Action::ShowScreen(Screen::Skipped));
            s
        }
        "log" => {
            let mut s = scanned(w, h);
            update(&mut s, Action::ShowScreen(Screen::Log));
            s
        }
        "help" => {
            let mut s = scanned(w, h);
            update(&mut s, Action::ToggleHelp);
            s
        }
        "export" => {
            let mut s = scanned(w, h);
            update(&mut s, Action::StartExport);
            s
        }
        other => panic!("no state {other}"),
    }
}

const SCREENS: [&str; 16] = [
    "waiting",
    "clusters",
    "members",
    "filter",
    "pair",
    "pair_si",
    "pair_boilerplate",
    "diff",
    "diff_scan",
    "diff_scan_lines",
    "diff_scan_folded",
    "thresholds",
    "skipped",
    "log",
    "help",
    "export",
];

fn draw(state: &AppState, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(state, f)).unwrap();
    t
}

// --------------------------------------------------------------- snapshots

#[test]
fn every_screen_at_80x24_and_160x48() {
    for (w, h) in [(80, 24), (160, 48)] {
        for name in SCREENS {
            let state = screen_state(name, w, h);
            let t = draw(&state, w, h);
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
        }
    }
}

#[test]
fn too_small_and_resizes() {
    let state = scanned(29, 7);
    insta::assert_snapshot!("too_small_29x7", draw(&state, 29, 7).backend());
    // T5-b: shrink to nothing and back between draws.
    let mut state = scanned(80, 24);
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    for (w, h) in [(80, 24), (10, 3), (0, 0), (1, 1), (200, 60), (100, 30)] {
        t.backend_mut().resize(w, h);
        update(&mut state, Action::Resize(w, h));
        t.draw(|f| render(&state, f)).unwrap();
    }
    insta::assert_snapshot!("after_resizes_100x30", t.backend());
}

// -------------------------------------------------------------- robustness

/// Names and text from a hostile folder: escapes, newlines, tabs, RTL
/// overrides, wide and combining characters, emoji, 300-character names.
fn hostile_names() -> Vec<String> {
    vec![
        "evil\x1b[2J\x1b[31mred\n.txt".into(),
        "tab\there\rcarriage.txt".into(),
        "rtl/\u{202E}txt.exe".into(),
        "שלום/עולם.txt".into(),
        "日本語/長いファイル名のテキスト.txt".into(),
        "combining/e\u{301}\u{301}\u{301}.txt".into(),
        "emoji/📚👩‍👩‍👧.txt".into(),
        format!("deep/{}.txt", "x".repeat(300)),
        "-leading-dash.txt".into(),
        "\u{7f}\u{85}\u{9b}c1.txt".into(),
    ]
}

fn hostile_snapshot() -> Arc<Snapshot> {
    let names = hostile_names();
    let scores: BTreeMap<AlgorithmId, Score> = AlgorithmId::ALL
        .into_iter()
        .map(|id| {
            let s = match id.unit() {
                Unit::HammingBits => Score::Hamming {
                    distance: 3,
                    bits: 64,
                },
                Unit::Matches => Score::Matches { matched: 2, of: 6 },
                Unit::Similarity if id == AlgorithmId::Shingle => Score::Overlap {
                    resemblance: 0.7,
                    a_in_b: 0.9,
                    b_in_a: 0.8,
                },
                Unit::Similarity if id == AlgorithmId::Si => Score::Incomparable,
                Unit::Similarity => Score::Similarity { value: 0.66 },
            };
            (id, s)
        })
        .collect();
    let member = |p: &str, rep: bool| MemberView {
        path: p.into(),
        scores: (!rep).then(|| scores.clone()),
        passing: if rep {
            Vec::new()
        } else {
            vec![AlgorithmId::Minhash, AlgorithmId::Simhash]
        },
        keeper: p.contains("rtl"),
        verdict: None,
        disputed: false,
    };
    let mut clusters: Vec<ClusterView> = names
        .chunks(3)
        .map(|chunk| ClusterView {
            members: chunk
                .iter()
                .enumerate()
                .map(|(i, p)| member(p, i == 0))
                .collect(),
            weakest: Some(0.42),
            agreeing: vec![AlgorithmId::Minhash],
            disagreement: true,
            disputed: 0,
            newest: 7,
        })
        .collect();
    // Many clusters, to scroll.
    for i in 0..300 {
        clusters.push(ClusterView {
            members: vec![
                member(&format!("bulk/{i:04}\x07.txt"), true),
                member(&format!("bulk/{i:04} copy.txt"), false),
            ],
            weakest: None,
            agreeing: Vec::new(),
            disagreement: false,
            disputed: 0,
            newest: i,
        });
    }
    let histograms = AlgorithmId::ALL
        .into_iter()
        .map(|id| {
            let v = (0..500)
                .map(|k| ((k * 37) % 101) as f64 / 100.0)
                .chain([f64::NAN, -1.0, 2.0])
                .collect();
            (id, v)
        })
        .collect::<std::collections::BTreeMap<_, _>>();
    Arc::new(Snapshot {
        generation: 5,
        spec: ClusterSpec {
            by: ClusterBy::Algorithm(AlgorithmId::Minhash),
            mode: ClusterMode::Star,
            thresholds: Thresholds::default(),
            fusion: FusionRule::default(),
        },
        clusters: clusters.into_iter().map(Arc::new).collect(),
        documents: usize::MAX,
        pairs: 123_456_789,
        skipped: names
            .iter()
            .map(|n| {
                (
                    n.as_str().into(),
                    format!("reason with \x1b[5m escape\n for {n}"),
                )
            })
            .collect(),
        histograms: Arc::new(histograms),
        floors: LibraryConfig::default().floors,
        si_capped: 3,
        unclustered: Vec::new(),
        verdicts_applied: 0,
        boilerplate: Default::default(),
    })
}

fn hostile_detail(a: &DocPath, b: &DocPath) -> PairDetail {
    PairDetail {
        generation: 5,
        a: a.clone(),
        b: b.clone(),
        rows: AlgorithmId::ALL
            .into_iter()
            .map(|id| ScoreRow {
                id,
                score: Score::Matches { matched: 1, of: 2 },
                exact: Some(f64::NAN),
                threshold: f64::INFINITY,
                passes: id == AlgorithmId::Exact,
                reason: format!("{}\x1b[2J\t\u{202E}reason", "very long ".repeat(40)),
            })
            .collect(),
        verdict: Some(CuratorVerdict::NotDuplicate),
        curators: Default::default(),
        a_in_b: f64::NAN,
        b_in_a: 2.0,
        fusion: true,
        boilerplate: [
            SideBoilerplate {
                words: u32::MAX,
                document_words: 0,
                shared_by: usize::MAX,
            },
            SideBoilerplate::default(),
        ],
    }
}

fn hostile_diff(a: &DocPath, b: &DocPath) -> DiffView {
    let long = format!("{}\x1b]0;title\x07", "wide 日本 ".repeat(2000));
    let left = format!(
        "\tindent\r\n{long}\n\u{202E}rtl e\u{301} {}\n\n\u{7f}\u{85}-\r\n x",
        "y".repeat(500)
    );
    let right = format!("שלום עולם e\u{301}\n{long}\r\nmore\tTAB 📚👩‍👩‍👧\n");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut d =
        diff_texts(left, right, &DiffOptions::new(deadline)).into_view(5, a.clone(), b.clone());
    d.equal = f64::NAN;
    d.truncated = true;
    d
}

/// Every screen of the hostile folder, as states to render.
fn hostile_states(w: u16, h: u16) -> Vec<AppState> {
    let snap = hostile_snapshot();
    let mut base = blank(w, h);
    feed(&mut base, Update::Snapshot(snap.clone()));
    feed(
        &mut base,
        Update::Watch(WatchState::Polling {
            reason: "inotify limit \x1b[2J reached\n".into(),
        }),
    );
    feed(
        &mut base,
        Update::Progress(Progress {
            stage: Stage::Reading,
            done: usize::MAX,
            total: 3,
            bytes: u64::MAX,
        }),
    );
    for n in hostile_names() {
        feed(
            &mut base,
            Update::Error(WorkerError::new(
                ErrorKind::Index,
                format!("error about {n}"),
            )),
        );
    }
    let (a, b) = (
        snap.clusters[0].members[0].path.clone(),
        snap.clusters[0].members[1].path.clone(),
    );
    let mut out = Vec::new();
    for screen in Screen::ALL {
        let mut s = base.clone();
        s.root = hostile_names()[0].clone();
        update(&mut s, Action::End);
        update(&mut s, Action::Right);
        update(&mut s, Action::End);
        match screen {
            Screen::Pair => {
                s.cluster_sel = 0;
                s.member_sel = 1;
                update(&mut s, Action::OpenPair);
                s.pair.requested = Some((a.clone(), b.clone()));
                feed(&mut s, Update::Pair(Arc::new(hostile_detail(&a, &b))));
                update(&mut s, Action::End);
            }
            Screen::Diff => {
                update(&mut s, Action::OpenDiff);
                s.diff.requested = Some((a.clone(), b.clone()));
                feed(&mut s, Update::Diff(Arc::new(hostile_diff(&a, &b))));
                update(&mut s, Action::NextChange);
                update(&mut s, Action::PageDown);
                // The line view, folded, searching for hostile text.
                let mut lines = s.clone();
                update(&mut lines, Action::ToggleDiffMode);
                update(&mut lines, Action::ToggleFold);
                search(&mut lines, "日本 \u{202E}rtl");
                update(&mut lines, Action::NextChange);
                out.push(lines);
            }
            other => {
                update(&mut s, Action::ShowScreen(other));
                update(&mut s, Action::End);
            }
        }
        let mut with_help = s.clone();
        update(&mut with_help, Action::ToggleHelp);
        update(&mut with_help, Action::End);
        let mut with_prompt = s.clone();
        update(&mut with_prompt, Action::StartExport);
        for c in hostile_names()[7].chars() {
            update(&mut with_prompt, Action::PromptChar(c));
        }
        out.extend([s, with_help, with_prompt]);
    }
    out
}

/// A fixed pseudo-random sequence (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn sizes() -> Vec<(u16, u16)> {
    let mut sizes = vec![
        (0, 0),
        (0, 24),
        (80, 0),
        (1, 1),
        (2, 2),
        (29, 7),
        (30, 8),
        (31, 9),
        (40, 10),
        (80, 24),
        (119, 30),
        (120, 30),
        (160, 48),
        (250, 80),
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..40 {
        sizes.push((rng.below(251) as u16, rng.below(81) as u16));
    }
    sizes
}

/// R10-c: no control character, escape or bidi override reaches a cell.
fn assert_clean(t: &Terminal<TestBackend>, what: &str) {
    for cell in t.backend().buffer().content() {
        let sym = cell.symbol();
        assert!(
            !sym.chars().any(|c| c.is_control()
                || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')),
            "{what}: unsafe character in cell {sym:?}"
        );
    }
}

#[test]
fn every_screen_at_every_size_never_panics() {
    let sizes = sizes();
    for (w, h) in &sizes {
        let (w, h) = (*w, *h);
        let mut states = hostile_states(w, h);
        if (w, h) == (80, 24) || (w, h) == (250, 80) || (w, h) == (31, 9) {
            states.extend(SCREENS.iter().map(|n| screen_state(n, w, h)));
        }
        for (i, s) in states.iter().enumerate() {
            let t = draw(s, w, h);
            assert_clean(&t, &format!("state {i} at {w}×{h}"));
        }
    }
}

#[test]
fn hostile_names_render_cleanly_in_the_cluster_list() {
    let snap = hostile_snapshot();
    let mut s = blank(100, 30);
    feed(&mut s, Update::Snapshot(snap));
    update(&mut s, Action::Right);
    let t = draw(&s, 100, 30);
    assert_clean(&t, "hostile cluster list");
    insta::assert_snapshot!("hostile_100x30", t.backend());
}

/// Random key, mouse, worker and resize actions never panic and keep
/// every selection in range.
#[test]
fn random_actions_never_panic() {
    let c = corpus();
    let hostile = hostile_snapshot();
    let mut rng = Rng(42);
    for round in 0..12 {
        let (w, h) = (rng.below(200) as u16, rng.below(70) as u16);
        let mut s = if round % 2 == 0 {
            scanned(w, h)
        } else {
            let mut s = blank(w, h);
            feed(&mut s, Update::Snapshot(hostile.clone()));
            s
        };
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        for _ in 0..300 {
            let (x, y) = (
                rng.below(u64::from(w) + 2) as u16,
                rng.below(u64::from(h) + 2) as u16,
            );
            let action = match rng.below(37) {
                0 => Action::Up,
                1 => Action::Down,
                2 => Action::PageUp,
                3 => Action::PageDown,
                4 => Action::Home,
                5 => Action::End,
                6 => Action::Left,
                7 => Action::Right,
                8 => Action::NextFocus,
                9 => Action::Enter,
                10 => Action::CycleSort,
                11 => Action::StartFilter,
                12 => Action::PromptChar(['a', 'é', '日', '/', ' '][rng.below(5) as usize]),
                13 => Action::PromptBackspace,
                14 => Action::PromptSubmit,
                15 => Action::Back,
                16 => Action::OpenPair,
                17 => Action::OpenDiff,
                18 => Action::NextChange,
                19 => Action::PrevChange,
                20 => Action::MarkDuplicate,
                21 => Action::MarkNotDuplicate,
                22 => Action::ToggleKeep,
                23 => Action::Undo,
                24 => Action::Nudge(rng.below(41) as i32 - 20),
                25 => Action::CycleClusterBy {
                    forward: rng.below(2) == 0,
                },
                26 => Action::ToggleMode,
                27 => Action::Click { col: x, row: y },
                28 => Action::Drag { col: x, row: y },
                29 => Action::Scroll {
                    col: x,
                    row: y,
                    down: rng.below(2) == 0,
                },
                30 => Action::ShowScreen(Screen::ALL[rng.below(6) as usize]),
                31 => Action::ToggleHelp,
                33 => Action::StartSearch,
                34 => Action::ToggleFold,
                35 => Action::ToggleDiffMode,
                32 => match rng.below(4) {
                    0 => Action::Worker(Update::Pair(c.pair.clone())),
                    1 => Action::Worker(Update::Diff(c.diff.clone())),
                    2 => Action::Worker(Update::Snapshot(c.snapshot.clone())),
                    _ => Action::Worker(Update::Stopped),
                },
                _ => Action::ResetThreshold,
            };
            update(&mut s, action);
            s.quit = false;
            if let Some(c) = s.selected_cluster() {
                assert!(s.member_sel < c.members.len().max(1));
            }
            assert!(s.cluster_sel < s.view.len().max(1));
            if rng.below(10) == 0 {
                t.draw(|f| render(&s, f)).unwrap();
            }
        }
        t.draw(|f| render(&s, f)).unwrap();
        assert_clean(&t, &format!("round {round}"));
    }
}

// ------------------------------------------------------- update(), no terminal

fn snapshot_with(generation: u64, spec: ClusterSpec) -> Arc<Snapshot> {
    let mut s = (*corpus().snapshot).clone();
    s.generation = generation;
    s.spec = spec;
    Arc::new(s)
}

#[test]
fn stale_snapshots_are_dropped_and_selection_follows_paths() {
    let mut s = scanned(80, 24);
    let spec = corpus().snapshot.spec.clone();
    // Select the second cluster and its second member.
    update(&mut s, Action::Down);
    update(&mut s, Action::Right);
    update(&mut s, Action::Down);
    let selected = s.selected_member().unwrap().path.clone();
    // A newer snapshot whose clusters come in reverse order.
    let mut newer = (*snapshot_with(3, spec.clone())).clone();
    newer.clusters.reverse();
    feed(&mut s, Update::Snapshot(Arc::new(newer)));
    assert_eq!(s.snapshot.as_ref().unwrap().generation, 3);
    assert_eq!(s.selected_member().unwrap().path, selected);
    // An older one is dropped.
    let dropped = s.dropped;
    feed(&mut s, Update::Snapshot(snapshot_with(2, spec)));
    assert_eq!(s.snapshot.as_ref().unwrap().generation, 3);
    assert_eq!(s.dropped, dropped + 1);
}

#[test]
fn pair_and_diff_answers_for_other_pairs_or_older_generations_are_dropped() {
    let c = corpus();
    let mut s = with_pair(80, 24);
    assert!(s.pair.detail.is_some());
    // An answer about another pair is not what is asked.
    let mut other = (*c.pair).clone();
    other.b = "misc/gettysburg.txt".into();
    other.generation = 9;
    let before = s.dropped;
    feed(&mut s, Update::Pair(Arc::new(other)));
    assert_eq!(s.pair.detail.as_ref().unwrap().b, c.pair.b);
    // A newer answer for the same pair (either order) replaces it...
    let mut newer = (*c.pair).clone();
    std::mem::swap(&mut newer.a, &mut newer.b);
    newer.generation = 4;
    feed(&mut s, Update::Pair(Arc::new(newer)));
    assert_eq!(s.pair.detail.as_ref().unwrap().generation, 4);
    // ... and an older one arriving late is dropped.
    feed(&mut s, Update::Pair(c.pair.clone()));
    assert_eq!(s.pair.detail.as_ref().unwrap().generation, 4);
    assert_eq!(s.dropped, before + 2);

    // Diffs: asked after generation 6 was shown, an answer from 5 is stale.
    let mut s = with_pair(80, 24);
    feed(
        &mut s,
        Update::Snapshot(snapshot_with(6, c.snapshot.spec.clone())),
    );
    update(&mut s, Action::OpenDiff);
    assert_eq!(s.diff.min_generation, 6);
    let mut old = (*c.diff).clone();
    old.generation = 5;
    feed(&mut s, Update::Diff(Arc::new(old)));
    assert!(s.diff.view.is_none());
    let mut fresh = (*c.diff).clone();
    fresh.generation = 6;
    feed(&mut s, Update::Diff(Arc::new(fresh)));
    assert!(s.diff.view.is_some());
}

#[test]
fn thresholds_move_in_steps_within_limits() {
    let mut s = scanned(80, 24);
    update(&mut s, Action::ShowScreen(Screen::Thresholds));
    // exact is fixed: nothing sent.
    assert!(update(&mut s, Action::Nudge(1)).is_empty());
    // shingle: one step up, then ten down.
    update(&mut s, Action::Down);
    let d = default_of(AlgorithmId::Shingle);
    assert_eq!(
        update(&mut s, Action::Nudge(1)),
        vec![Command::SetThreshold {
            id: AlgorithmId::Shingle,
            value: hundredths(d + 0.01)
        }]
    );
    assert_eq!(
        update(&mut s, Action::Nudge(-10)),
        vec![Command::SetThreshold {
            id: AlgorithmId::Shingle,
            value: hundredths(d - 0.09)
        }]
    );
    assert!(s.thresholds.awaiting);
    // Clamped at 1.0, and no command once there.
    update(&mut s, Action::Nudge(1000));
    assert!(update(&mut s, Action::Nudge(1)).is_empty());
    // simhash (bits): stricter = fewer bits.
    for _ in 0..3 {
        update(&mut s, Action::Down);
    }
    assert_eq!(s.algorithms[s.thresholds.selected], AlgorithmId::Simhash);
    let d = default_of(AlgorithmId::Simhash);
    assert_eq!(
        update(&mut s, Action::Nudge(1)),
        vec![Command::SetThreshold {
            id: AlgorithmId::Simhash,
            value: d - 1.0
        }]
    );
    // Back to the default.
    assert_eq!(
        update(&mut s, Action::ResetThreshold),
        vec![Command::SetThreshold {
            id: AlgorithmId::Simhash,
            value: d
        }]
    );
    // Cluster-by and mode.
    assert_eq!(
        update(&mut s, Action::CycleClusterBy { forward: false }),
        vec![Command::SetClusterBy(ClusterBy::Algorithm(AlgorithmId::Si))]
    );
    assert_eq!(
        update(&mut s, Action::ToggleMode),
        vec![Command::SetMode(ClusterMode::Star)]
    );
}

#[test]
fn pending_spec_clears_when_the_worker_answers_with_it() {
    let mut s = with_thresholds(80, 24);
    assert!(s.thresholds.awaiting);
    let old_spec = corpus().snapshot.spec.clone();
    // A snapshot computed before the change does not undo the request.
    feed(&mut s, Update::Snapshot(snapshot_with(2, old_spec.clone())));
    let asked = hundredths(default_of(AlgorithmId::Minhash) + 0.1);
    assert!(s.thresholds.awaiting);
    assert_eq!(s.thresholds.thresholds.get(AlgorithmId::Minhash), asked);
    let mut new_spec = old_spec;
    new_spec.thresholds.set(AlgorithmId::Minhash, asked);
    feed(&mut s, Update::Snapshot(snapshot_with(3, new_spec)));
    assert!(!s.thresholds.awaiting);
}

#[test]
fn verdicts_and_keeps_undo_with_the_inverse_command() {
    let c = corpus();
    let mut s = with_pair(80, 24);
    let (a, b) = (c.pair.a.clone(), c.pair.b.clone());
    assert_eq!(
        update(&mut s, Action::MarkDuplicate),
        vec![Command::SetPairVerdict {
            a: a.clone(),
            b: b.clone(),
            verdict: Some(CuratorVerdict::Duplicate)
        }]
    );
    assert_eq!(s.verdict(&b, &a), Some(CuratorVerdict::Duplicate));
    // The same mark again sends nothing.
    assert!(update(&mut s, Action::MarkDuplicate).is_empty());
    assert_eq!(
        update(&mut s, Action::MarkNotDuplicate),
        vec![Command::SetPairVerdict {
            a: a.clone(),
            b: b.clone(),
            verdict: Some(CuratorVerdict::NotDuplicate)
        }]
    );
    assert_eq!(
        update(&mut s, Action::Undo),
        vec![Command::SetPairVerdict {
            a: a.clone(),
            b: b.clone(),
            verdict: Some(CuratorVerdict::Duplicate)
        }]
    );
    assert_eq!(
        update(&mut s, Action::Undo),
        vec![Command::SetPairVerdict {
            a: a.clone(),
            b: b.clone(),
            verdict: None
        }]
    );
    assert!(update(&mut s, Action::Undo).is_empty());
    // Keep the selected member, then undo.
    update(&mut s, Action::Back);
    let path = s.selected_member().unwrap().path.clone();
    assert_eq!(
        update(&mut s, Action::ToggleKeep),
        vec![Command::SetKeeper {
            path: path.clone(),
            keeper: true
        }]
    );
    assert!(s.is_keeper(s.selected_member().unwrap()));
    assert_eq!(
        update(&mut s, Action::Undo),
        vec![Command::SetKeeper {
            path,
            keeper: false
        }]
    );
    assert!(!s.is_keeper(s.selected_member().unwrap()));
}

#[test]
fn filter_and_sort_the_cluster_list() {
    let mut s = scanned(80, 24);
    let all = s.view.len();
    assert!(all >= 5, "sample corpus clusters: {all}");
    update(&mut s, Action::StartFilter);
    for ch in "MOBY".chars() {
        update(&mut s, Action::PromptChar(ch));
    }
    assert_eq!(s.view.len(), 1);
    assert_eq!(s.selected_cluster().unwrap().members.len(), 3);
    update(&mut s, Action::PromptSubmit);
    assert!(s.prompt.is_none());
    assert_eq!(s.filter, "MOBY");
    update(&mut s, Action::Back);
    assert_eq!(s.view.len(), all);
    // Weakest first.
    update(&mut s, Action::CycleSort);
    assert_eq!(s.sort, SortKey::Weakest);
    let weakest: Vec<f64> = s
        .view
        .iter()
        .map(|&i| s.clusters()[i].weakest.unwrap_or(1.0))
        .collect();
    assert!(weakest.windows(2).all(|w| w[0] <= w[1]), "{weakest:?}");
    update(&mut s, Action::CycleSort);
    assert_eq!(s.sort, SortKey::Newest);
    update(&mut s, Action::CycleSort);
    assert_eq!(s.sort, SortKey::Size);
}

#[test]
fn mouse_selects_switches_tabs_and_sets_thresholds() {
    let mut s = scanned(80, 24);
    // Cluster list rows start at y = 1 (tabs) + 1 (border) + 1 (header).
    update(&mut s, Action::Click { col: 10, row: 4 });
    assert_eq!(s.cluster_sel, 1);
    assert_eq!(s.focus, Focus::Clusters);
    // Clicking it again opens its members.
    update(&mut s, Action::Click { col: 10, row: 4 });
    assert_eq!(s.focus, Focus::Members);
    // Wheel over the members moves the member selection.
    update(
        &mut s,
        Action::Scroll {
            col: 10,
            row: 18,
            down: true,
        },
    );
    assert_eq!(s.member_sel, 1);
    // The "4 Thresholds" tab.
    let (_, tabs) = doppel_tui::layout::tabs(80);
    let (_, x0, _) = tabs
        .iter()
        .find(|(s, ..)| *s == Screen::Thresholds)
        .unwrap();
    update(
        &mut s,
        Action::Click {
            col: *x0 + 1,
            row: 0,
        },
    );
    assert_eq!(s.screen, Screen::Thresholds);
    // Click the far right of minhash's slider: the strictest threshold.
    let f = doppel_tui::layout::frame_of(&s).unwrap();
    let t = doppel_tui::layout::thresholds(f.body, s.algorithms.len());
    let rows = doppel_tui::layout::rows(t.table, 1);
    let slider = doppel_tui::layout::slider(rows);
    let cmds = update(
        &mut s,
        Action::Click {
            col: slider.right() - 1,
            row: rows.y + 2,
        },
    );
    assert_eq!(
        cmds,
        vec![Command::SetThreshold {
            id: AlgorithmId::Minhash,
            value: 1.0
        }]
    );
    // Dragging to the middle.
    let cmds = update(
        &mut s,
        Action::Drag {
            col: slider.x + (slider.width - 1) / 2,
            row: 0,
        },
    );
    assert!(
        matches!(&cmds[..], [Command::SetThreshold { id: AlgorithmId::Minhash, value }] if (*value - 0.5).abs() < 0.02)
    );
}

#[test]
fn diff_jumps_between_changes() {
    let mut s = with_pair(80, 24);
    update(&mut s, Action::OpenDiff);
    feed(&mut s, Update::Diff(corpus().diff.clone()));
    let starts = s.diff.laid_out().unwrap().changes.clone();
    assert!(starts.len() >= 3, "changes: {starts:?}");
    update(&mut s, Action::NextChange);
    assert_eq!(s.diff.mark, Some(starts[0]));
    update(&mut s, Action::NextChange);
    assert_eq!(s.diff.mark, Some(starts[1]));
    update(&mut s, Action::PrevChange);
    assert_eq!(s.diff.mark, Some(starts[0]));
    update(&mut s, Action::PrevChange);
    assert_eq!(s.diff.mark, Some(starts[0]));
    update(&mut s, Action::End);
    assert!(s.diff.scroll > 0);
}

#[test]
fn export_quit_and_worker_loss() {
    let mut s = scanned(80, 24);
    update(&mut s, Action::StartExport);
    for _ in 0.."doppel-export".len() {
        update(&mut s, Action::PromptBackspace);
    }
    for ch in "out/x".chars() {
        update(&mut s, Action::PromptChar(ch));
    }
    assert!(update(&mut s, Action::PromptSubmit).is_empty());
    assert_eq!(
        s.effects,
        vec![Effect::Export {
            prefix: "out/x".into()
        }]
    );
    assert_eq!(update(&mut s, Action::Quit), vec![Command::Quit]);
    assert!(s.quit);
    let mut s = scanned(80, 24);
    update(&mut s, Action::WorkerGone);
    assert!(!s.worker_running);
    assert_eq!(s.log.back().unwrap().level, doppel_tui::state::Level::Error);
}

#[test]
fn export_writes_csv_and_json_outside_the_folder() {
    let c = corpus();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("books");
    fs::create_dir_all(&root).unwrap();
    let mut verdicts = BTreeMap::new();
    verdicts.insert(
        (c.pair.a.clone(), c.pair.b.clone()),
        Some(CuratorVerdict::Duplicate),
    );
    let written =
        doppel_tui::export::write("out", dir.path(), &root, &c.snapshot, &verdicts).unwrap();
    assert_eq!(written.files.len(), 3);
    let pairs = fs::read_to_string(dir.path().join("out-pairs.csv")).unwrap();
    assert!(pairs.starts_with("cluster,a,b,exact,shingle"));
    assert!(pairs.contains("duplicate"));
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("out.json")).unwrap()).unwrap();
    assert_eq!(
        json["clusters"].as_array().unwrap().len(),
        c.snapshot.clusters.len()
    );
    assert_eq!(json["verdicts"][0]["verdict"], "duplicate");
    let clusters = fs::read_to_string(dir.path().join("out-clusters.csv")).unwrap();
    assert!(clusters.contains("\"moby/moby-dick-ch1.txt\""));
    // Never into the watched folder.
    assert!(doppel_tui::export::write("x", &root, &root, &c.snapshot, &verdicts).is_err());
    assert_eq!(fs::read_dir(&root).unwrap().count(), 0);
}

#[test]
fn export_writes_the_html_report_outside_the_folder() {
    let c = corpus();
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    let mut verdicts = BTreeMap::new();
    verdicts.insert(
        (c.pair.a.clone(), c.pair.b.clone()),
        Some(CuratorVerdict::Duplicate),
    );
    let config = EngineConfig::default();
    let path =
        doppel_tui::export::write_html("out", dir.path(), &root, &c.snapshot, &verdicts, &config)
            .unwrap();
    assert_eq!(path, dir.path().canonicalize().unwrap().join("out.html"));
    let page = fs::read_to_string(&path).unwrap();
    assert_eq!(
        page.matches("<tbody class=\"cluster\"").count(),
        c.snapshot.clusters.len()
    );
    // Each member against its representative, diffed, the verdict shown.
    let against_rep: usize = c
        .snapshot
        .clusters
        .iter()
        .map(|c| c.members.iter().filter(|m| m.scores.is_some()).count())
        .sum();
    assert_eq!(page.matches("<table class=\"diff\">").count(), against_rep);
    assert!(page.contains("<td>duplicate</td>"));
    assert!(page.contains("<mark>rn</mark>ust"), "the scan's OCR marks");
    // Never into the watched folder.
    let err = doppel_tui::export::write_html("x", &root, &root, &c.snapshot, &verdicts, &config)
        .unwrap_err();
    assert!(err.to_string().contains("inside the watched folder"));
    assert!(!root.join("x.html").exists());
}

// ------------------------------------------------------------ the event loop

/// A worker stand-in over a real index: re-clusters on threshold changes,
/// answers pair requests, records every command, stops on `Quit`.
fn fake_worker(
    commands: crossbeam_channel::Receiver<Command>,
    updates: mpsc::Sender<Update>,
    seen: mpsc::Sender<Command>,
) {
    let c = corpus();
    let mut spec = c.snapshot.spec.clone();
    let mut generation = 1;
    let _ = updates.send(Update::Snapshot(c.snapshot.clone()));
    let _ = updates.send(Update::Watch(WatchState::Watching));
    for cmd in commands {
        let _ = seen.send(cmd.clone());
        match cmd {
            Command::SetThreshold { id, value } => {
                spec.thresholds.set(id, value);
                generation += 1;
                let mut snap = (*c.snapshot).clone();
                snap.spec = spec.clone();
                snap.generation = generation;
                let _ = updates.send(Update::Snapshot(Arc::new(snap)));
            }
            Command::RequestPair { .. } => {
                let mut p = (*c.pair).clone();
                p.generation = generation;
                let _ = updates.send(Update::Pair(Arc::new(p)));
            }
            Command::Quit => {
                let _ = updates.send(Update::Stopped);
                return;
            }
            _ => {}
        }
    }
}

fn key(c: char) -> std::io::Result<Event> {
    Ok(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )))
}

#[test]
fn the_loop_sends_commands_and_applies_answers() {
    let c = corpus();
    let (cmd_tx, cmd_rx) = crossbeam_channel::unbounded();
    let (upd_tx, upd_rx) = mpsc::channel();
    let (seen_tx, seen_rx) = mpsc::channel();
    let thread = std::thread::spawn(move || fake_worker(cmd_rx, upd_tx, seen_tx));
    // The stand-in behind the handle and bridge `doppel` itself uses: the
    // bridge joins it once its updates end, then says the worker is gone.
    let worker = WorkerHandle::from_parts(cmd_tx.clone(), upd_rx, thread);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let (actions_tx, mut actions) = tokio::sync::mpsc::unbounded_channel();
    doppel_tui::run::bridge(worker, actions_tx.clone());
    let (ev_tx, ev_rx) = tokio::sync::mpsc::unbounded_channel::<std::io::Result<Event>>();
    let events = Box::pin(futures::stream::unfold(ev_rx, |mut rx| async move {
        rx.recv().await.map(|e| (e, rx))
    }));
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut state = AppState::new("sample-corpus", &EngineConfig::default());
    let ctx = doppel_tui::run::ExportContext {
        cwd: std::env::temp_dir(),
        root: Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus"),
        engine: EngineConfig::default(),
    };
    let script = async {
        // Thresholds, select minhash, tighten ten steps.
        for ch in ['4', 'j', 'j', 'L'] {
            ev_tx.send(key(ch)).unwrap();
        }
        // Wait (bounded) until the worker has seen the threshold.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Command::SetThreshold { .. }) = seen_rx.try_recv() {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "no SetThreshold");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        ev_tx
            .send(Ok(Event::Key(KeyEvent::new(
                KeyCode::Char('c'),
                KeyModifiers::CONTROL,
            ))))
            .unwrap();
    };
    let mut no_suspend = |_: &mut Terminal<TestBackend>| Ok(());
    let loop_result = runtime.block_on(async {
        let (result, ()) = tokio::join!(
            doppel_tui::run::run_loop(
                &mut terminal,
                &mut state,
                events,
                &cmd_tx,
                &actions_tx,
                &mut actions,
                &ctx,
                &mut no_suspend,
            ),
            script
        );
        result
    });
    loop_result.unwrap();
    assert!(state.quit);
    // Everything the worker sent before it stopped is applied (its Stopped
    // may already have been, inside the loop); the bridge, the last sender
    // left, ends once it has joined the worker.
    drop(actions_tx);
    let bridge_ended = runtime.block_on(async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            match tokio::time::timeout_at(deadline, actions.recv()).await {
                Ok(Some(a)) => {
                    update(&mut state, a);
                }
                Ok(None) => return true,
                Err(_) => return false,
            }
        }
    });
    assert!(bridge_ended, "the bridge joined the worker and ended");
    assert!(!state.worker_running);
    let snap = state.snapshot.as_ref().unwrap();
    assert_eq!(snap.generation, 2);
    let asked = hundredths(default_of(AlgorithmId::Minhash) + 0.1);
    assert_eq!(snap.spec.thresholds.get(AlgorithmId::Minhash), asked);
    assert!(!state.thresholds.awaiting);
    assert_eq!(state.view.len(), c.snapshot.clusters.len());
    let screen = format!("{}", terminal.backend());
    assert!(screen.contains("Thresholds"), "{screen}");
    assert!(screen.contains(&format!("≥ {asked:.2}")), "{screen}");
}

#[test]
fn prompts_take_pasted_text_without_controls() {
    let mut s = scanned(80, 24);
    update(&mut s, Action::StartFilter);
    for a in doppel_tui::run::event_actions(&s, Event::Paste("emma\n\x1b".into())) {
        update(&mut s, a);
    }
    assert_eq!(
        s.prompt,
        Some(Prompt::Filter {
            input: "emma".into()
        })
    );
}

/// The pair screen says which side holds the other, e.g. "A ⊂ B, 97 % of
/// A", for a part and its whole, and nothing of the kind for a duplicate.
#[test]
fn the_pair_screen_names_a_part_and_its_whole() {
    let screen_text = |s: &AppState| {
        let t = draw(s, 160, 48);
        let buffer = t.backend().buffer().clone();
        buffer
            .content()
            .iter()
            .map(|c| c.symbol().to_owned())
            .collect::<String>()
    };
    let mut s = with_pair(160, 48);
    assert!(!screen_text(&s).contains('⊂'), "a duplicate is no part");
    let mut part = (*corpus().pair).clone();
    for row in &mut part.rows {
        if row.id == AlgorithmId::Shingle {
            row.score = Score::Overlap {
                resemblance: 0.097,
                a_in_b: 0.97,
                b_in_a: 0.1,
            };
        }
    }
    part.a_in_b = 0.97;
    part.b_in_a = 0.1;
    part.fusion = true;
    feed(&mut s, Update::Pair(Arc::new(part)));
    let text = screen_text(&s);
    assert!(text.contains("A ⊂ B, 97 % of A"), "{text}");
}

#[test]
fn the_status_line_says_the_worker_resumed_after_a_pause() {
    let mut s = scanned(120, 40);
    let reason = "database unreachable (postgres://curator@db:5432/lib)";
    feed(
        &mut s,
        Update::Watch(WatchState::Paused {
            reason: reason.into(),
        }),
    );
    assert_eq!(
        s.notice.as_ref().map(|(_, text)| text.as_str()),
        Some(format!("paused: {reason}").as_str())
    );
    // The retry walks the folder, then follows it again.
    feed(&mut s, Update::Watch(WatchState::Scanning));
    feed(&mut s, Update::Watch(WatchState::Watching));
    assert_eq!(
        s.last_event.as_deref(),
        Some("resumed: watching for changes")
    );
    // A later walk is not a resumption.
    feed(&mut s, Update::Watch(WatchState::Scanning));
    feed(&mut s, Update::Watch(WatchState::Watching));
    assert_eq!(s.last_event.as_deref(), Some("watching for changes"));
}
