//! The review screens tell the truth (issue 20, the terminal's part), on
//! real data from `sample-corpus/`: the monochrome theme (what `NO_COLOR`
//! gets) shows every state by a modifier or a glyph, through a real
//! terminal emulator too; whole messages on the message line at 80×24; the
//! reason panel scrolls; the legend, the fusion rule and agreement counted
//! one way; exports that never overwrite; the status bar back to idle after
//! the worker's re-gather and rescan; Ctrl+Z through the event loop.

#![cfg(feature = "tui")]

mod common;

use common::copy_dir;

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::EngineConfig;
use doppel_index::worker::protocol::{DiffView, PairDetail, Progress, Snapshot, Stage, WatchState};
use doppel_index::worker::{spawn, Command, Update, WorkerConfig};
use doppel_tui::action::Action;
use doppel_tui::state::{AppState, Focus, Level, Prompt, Screen};
use doppel_tui::ui::Theme;
use doppel_tui::{render, update};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

// ---------------------------------------------------------------- fixtures

/// The sample corpus's snapshot, the Emma pair's detail and diff, as the
/// worker gives them.
struct Corpus {
    snapshot: Arc<Snapshot>,
    pair: Arc<PairDetail>,
    diff: Arc<DiffView>,
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
        let (pair, [diff]) = common::worker_answers(&folder, &index_path, (&a, &b), [(&a, &b)]);
        Corpus {
            snapshot,
            pair: Arc::new(pair),
            diff: Arc::new(diff),
        }
    })
}

fn feed(state: &mut AppState, u: Update) -> Vec<Command> {
    update(state, Action::Worker(u))
}

/// After a finished scan of the sample corpus, drawn with `theme`.
fn scanned(w: u16, h: u16, theme: Theme) -> AppState {
    let mut s = AppState::new("sample-corpus", &EngineConfig::default());
    s.theme = theme;
    s.export_prefix = "doppel-export".into();
    update(&mut s, Action::Resize(w, h));
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

/// Focus the member `path` of its cluster.
fn select_member(s: &mut AppState, path: &str) {
    s.cluster_sel = s
        .view
        .iter()
        .position(|&i| s.clusters()[i].members.iter().any(|m| m.path == path))
        .expect("a cluster with the path");
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

fn with_pair(w: u16, h: u16, theme: Theme) -> AppState {
    let mut s = scanned(w, h, theme);
    select_member(&mut s, &corpus().pair.b.to_string());
    update(&mut s, Action::OpenPair);
    feed(&mut s, Update::Pair(corpus().pair.clone()));
    update(&mut s, Action::Down);
    s
}

fn screen_state(name: &str, w: u16, h: u16, theme: Theme) -> AppState {
    match name {
        "clusters" => scanned(w, h, theme),
        "members" => {
            let mut s = scanned(w, h, theme);
            select_member(&mut s, "moby/other-encodings/moby-dick-ch1-windows1252.txt");
            update(&mut s, Action::ToggleKeep);
            update(&mut s, Action::Down);
            s
        }
        "pair" => with_pair(w, h, theme),
        "diff" => {
            let mut s = with_pair(w, h, theme);
            update(&mut s, Action::OpenDiff);
            feed(&mut s, Update::Diff(corpus().diff.clone()));
            update(&mut s, Action::NextChange);
            s
        }
        "thresholds" => {
            let mut s = scanned(w, h, theme);
            update(&mut s, Action::ShowScreen(Screen::Thresholds));
            update(&mut s, Action::Down);
            update(&mut s, Action::Down);
            update(&mut s, Action::Nudge(10));
            update(&mut s, Action::Up);
            s
        }
        other => panic!("no state {other}"),
    }
}

fn draw(state: &AppState) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(state.width, state.height)).unwrap();
    t.draw(|f| render(state, f)).unwrap();
    t
}

fn text(t: &Terminal<TestBackend>) -> String {
    let b = t.backend().buffer();
    (0..b.area.height)
        .map(|y| row_text(b, y))
        .collect::<Vec<_>>()
        .join("\n")
}

fn row_text(b: &Buffer, y: u16) -> String {
    (0..b.area.width)
        .map(|x| b[(x, y)].symbol())
        .collect::<String>()
}

/// The screen as a terminal without colour shows it: each row's text, and
/// under it the modifiers of its cells, one letter per combination (the
/// legend at the end; `.` for none). Fails on any cell with a colour.
fn monochrome(t: &Terminal<TestBackend>) -> String {
    let b = t.backend().buffer();
    let mut combos: Vec<Modifier> = Vec::new();
    let mut out = String::new();
    for y in 0..b.area.height {
        let mut mask = String::new();
        for x in 0..b.area.width {
            let c = &b[(x, y)];
            assert!(
                c.fg == Color::Reset && c.bg == Color::Reset,
                "a colour at ({x}, {y}): {c:?}"
            );
            let m = c.modifier;
            if c.symbol().is_empty() {
                continue; // the second half of a wide character
            }
            mask.push(if m.is_empty() {
                '.'
            } else {
                let k = combos.iter().position(|&x| x == m).unwrap_or_else(|| {
                    combos.push(m);
                    combos.len() - 1
                });
                char::from(b'a' + k as u8)
            });
        }
        out.push_str(&format!("{}\n{mask}\n", row_text(b, y)));
    }
    for (k, m) in combos.iter().enumerate() {
        out.push_str(&format!("{} = {m:?}\n", char::from(b'a' + k as u8)));
    }
    out
}

/// Whether every cell of row `y` from `x0` to `x1` has `m`.
fn row_has(t: &Terminal<TestBackend>, y: u16, x0: u16, x1: u16, m: Modifier) -> bool {
    let b = t.backend().buffer();
    (x0..x1).all(|x| b[(x, y)].modifier.contains(m))
}

/// The screen row holding `needle`.
fn row_of(t: &Terminal<TestBackend>, needle: &str) -> u16 {
    let b = t.backend().buffer();
    (0..b.area.height)
        .find(|&y| row_text(b, y).contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?}:\n{}", text(t)))
}

// ------------------------------------------------------------ monochrome

#[test]
fn monochrome_screens_show_every_state_without_colour() {
    for name in ["clusters", "members", "pair", "diff", "thresholds"] {
        let state = screen_state(name, 80, 24, Theme::Monochrome);
        let t = draw(&state);
        insta::assert_snapshot!(format!("mono_{name}_80x24"), monochrome(&t));
    }
}

/// The rows a terminal honouring `NO_COLOR` shows for `state`: the frame
/// written by the real backend (crossterm, told `NO_COLOR`), read back by
/// a terminal emulator.
fn on_a_no_color_terminal(state: &AppState) -> vt100::Parser {
    use ratatui::backend::CrosstermBackend;
    use ratatui::layout::Rect;
    use ratatui::{TerminalOptions, Viewport};
    // What crossterm reads from NO_COLOR (this test binary only).
    ratatui::crossterm::style::Colored::set_ansi_color_disabled(true);
    let area = Rect::new(0, 0, state.width, state.height);
    let mut bytes = Vec::<u8>::new();
    let mut t = Terminal::with_options(
        CrosstermBackend::new(&mut bytes),
        TerminalOptions {
            viewport: Viewport::Fixed(area),
        },
    )
    .unwrap();
    t.draw(|f| render(state, f)).unwrap();
    drop(t);
    let rows = std::num::NonZeroU16::new(state.height).unwrap();
    let cols = std::num::NonZeroU16::new(state.width).unwrap();
    let mut vt = vt100::Parser::new(rows, cols, 0);
    vt.process(&bytes);
    vt
}

fn vt_row(vt: &vt100::Parser, needle: &str) -> u16 {
    let contents = vt.screen().contents();
    contents
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no row with {needle:?}:\n{contents}")) as u16
}

/// Whether every cell of row `y` from `x0` to `x1` passes `has`.
fn vt_row_all(vt: &vt100::Parser, y: u16, x0: u16, x1: u16, has: fn(&vt100::Cell) -> bool) -> bool {
    (x0..x1).all(|x| vt.screen().cell(y, x).is_some_and(has))
}

/// `NO_COLOR=1` used to leave the selected row one reversed cell (each
/// colour change is written as an empty SGR sequence, a reset) and the
/// pair and threshold selections, the active tab, the focused pane and a
/// diff's changes invisible. The theme `NO_COLOR` picks keeps each.
#[test]
fn a_no_color_terminal_shows_the_selections_tab_focus_and_changes() {
    let theme = Theme::resolve(Default::default(), Some(std::ffi::OsStr::new("1")));
    assert_eq!(theme, Theme::Monochrome);

    // The cluster list's selected row, reversed across its width; the
    // active tab.
    let s = screen_state("clusters", 80, 24, theme);
    let vt = on_a_no_color_terminal(&s);
    // The selected cluster's row: the first row naming its representative.
    let rep = s.selected_cluster().unwrap().members[0].path.to_string();
    let y = vt_row(&vt, &rep);
    assert!(vt_row_all(&vt, y, 1, 79, |c| c.inverse()), "row {y}");
    let tab = vt
        .screen()
        .contents()
        .lines()
        .next()
        .unwrap()
        .find("1 Clusters")
        .unwrap() as u16;
    assert!(vt_row_all(&vt, 0, tab, tab + 10, |c| c.inverse() && c.bold()));
    assert!(!vt_row_all(&vt, 0, tab + 12, tab + 18, |c| c.inverse()));
    // The focused pane has the thick border, the other a thin one.
    assert_eq!(vt.screen().cell(1, 0).unwrap().contents(), "┏");
    let members = vt_row(&vt, "Members");
    assert_eq!(vt.screen().cell(members, 0).unwrap().contents(), "┌");

    // Members focused: its selection reversed, the cluster's underlined.
    let s = screen_state("members", 80, 24, theme);
    let vt = on_a_no_color_terminal(&s);
    let y = vt_row(&vt, "moby-dick-ch1-windows1252.txt ");
    assert!(vt_row_all(&vt, y, 1, 79, |c| c.inverse()));
    let y = vt_row(&vt, "1.00 moby/moby-dick-ch1.txt");
    assert!(vt_row_all(&vt, y, 1, 79, |c| c.underline() && !c.inverse()));

    // The pair table's and the threshold table's selected rows.
    let s = screen_state("pair", 80, 24, theme);
    let vt = on_a_no_color_terminal(&s);
    let y = vt_row(&vt, "shingle          0.867");
    assert!(vt_row_all(&vt, y, 1, 79, |c| c.inverse()));
    let s = screen_state("thresholds", 80, 24, theme);
    let vt = on_a_no_color_terminal(&s);
    let y = vt_row(&vt, "shingle           ≥");
    assert!(vt_row_all(&vt, y, 1, 79, |c| c.inverse()));
    // minhash moved from its default: underlined, not selected.
    let y = vt_row(&vt, "minhash           ≥");
    assert!(vt_row_all(&vt, y, 1, 8, |c| c.underline() && !c.inverse()));

    // The diff: the changed characters reversed, the inserted word
    // underlined.
    let s = screen_state("diff", 80, 24, theme);
    let vt = on_a_no_color_terminal(&s);
    let y = vt_row(&vt, "distress fondly vex");
    let line = vt
        .screen()
        .contents()
        .lines()
        .nth(usize::from(y))
        .unwrap()
        .to_owned();
    let x = line.find("fondly").unwrap() as u16;
    let x = line[..usize::from(x)].chars().count() as u16;
    assert!(vt_row_all(&vt, y, x, x + 6, |c| c.inverse()));
}

#[test]
fn monochrome_selections_span_their_rows() {
    let s = screen_state("members", 160, 48, Theme::Monochrome);
    let t = draw(&s);
    let y = row_of(&t, "moby-dick-ch1-windows1252.txt ");
    // The members panel is on the right at this width.
    assert!(row_has(&t, y, 84, 159, Modifier::REVERSED), "{}", text(&t));
    let y = row_of(&t, "1.00 moby/moby-dick-ch1.txt");
    assert!(row_has(&t, y, 1, 82, Modifier::UNDERLINED), "{}", text(&t));
}

// ------------------------------------------------------ messages and panels

/// Thresholds, minhash, `H` three times (below the floor): the whole
/// message at 80×24, not "minhash → 0.01: below the fl…"; gone at the
/// next key.
#[test]
fn a_long_status_message_is_whole_on_the_message_line_at_80x24() {
    let mut s = scanned(80, 24, Theme::Default);
    update(&mut s, Action::ShowScreen(Screen::Thresholds));
    update(&mut s, Action::Down);
    update(&mut s, Action::Down);
    for _ in 0..2 {
        update(&mut s, Action::Nudge(-10));
    }
    let t = draw(&s);
    let screen = text(&t);
    let message = "minhash → 0.01: below the floor, candidates are gathered again";
    assert_eq!(s.thresholds.thresholds.get(AlgorithmId::Minhash), 0.01);
    assert!(screen.contains(message), "{screen}");
    insta::assert_snapshot!("message_line_80x24", screen);
    update(&mut s, Action::Down);
    assert!(!text(&draw(&s)).contains("below the floor"));
    // A third press finds the end of the range, and says so.
    update(&mut s, Action::Up);
    update(&mut s, Action::Nudge(-10));
    assert!(text(&draw(&s)).contains("minhash stays at 0.01: the end of its range"));

    // An export's whole path, however long.
    let dir = format!("/tmp/{}", "a-rather-long-folder-name/".repeat(4));
    let written = doppel_tui::export::Written {
        asked: "doppel-export".into(),
        used: "doppel-export-2".into(),
        files: ["-clusters.csv", "-pairs.csv", ".json"]
            .iter()
            .map(|x| format!("{dir}doppel-export-2{x}").into())
            .collect(),
        next: "doppel-export-3".into(),
    };
    update(&mut s, Action::Exported(Ok(written)));
    let screen = text(&draw(&s)).replace('\n', "");
    let squeezed: String = screen.split_whitespace().collect();
    for needle in [
        "doppel-exportwastaken(nothingoverwritten)",
        "doppel-export-2-clusters.csv",
        "doppel-export-2.json",
        "a-rather-long-folder-name/a-rather-long-folder-name/",
    ] {
        assert!(squeezed.contains(needle), "{needle} not in {screen}");
    }
    // The next export is offered a free name, not the last one typed.
    update(&mut s, Action::Down);
    update(&mut s, Action::StartExport);
    assert_eq!(
        s.prompt,
        Some(Prompt::Export {
            input: "doppel-export-3".into()
        })
    );
    // A click lands on what is drawn, and closes the message line.
    update(&mut s, Action::PromptCancel);
    let full = doppel_tui::TuiError::Io {
        what: "write out.json".into(),
        error: std::io::Error::other("disk full"),
    };
    update(&mut s, Action::Exported(Err(Arc::new(full))));
    assert!(text(&draw(&s)).contains("export failed: cannot write out.json: disk full"));
    assert_eq!(s.log.back().unwrap().level, Level::Error);
    let y = row_of(&draw(&s), "simhash ");
    update(&mut s, Action::Click { col: 3, row: y });
    assert_eq!(s.algorithms[s.thresholds.selected], AlgorithmId::Simhash);
    assert!(s.notice.is_none());
}

/// SI's reason, the longest: whole at 80×24; where it is longer than its
/// panel (80×18) its last rows are reached with `J`, and the title says
/// there is more.
#[test]
fn the_reason_panel_is_whole_at_80x24_and_scrolls_where_it_is_not() {
    let mut s = with_pair(80, 24, Theme::Default);
    update(&mut s, Action::End);
    let reason = s.pair.detail.clone().unwrap().rows[s.pair.row]
        .reason
        .clone();
    let squeeze = |x: &str| x.split_whitespace().collect::<String>();
    let screen = squeeze(&text(&draw(&s)).replace('│', ""));
    for line in reason.lines() {
        assert!(screen.contains(&squeeze(line)), "{line}\n{screen}");
    }

    let mut s = with_pair(80, 18, Theme::Default);
    update(&mut s, Action::End);
    let d = s.pair.detail.clone().unwrap();
    assert_eq!(d.rows[s.pair.row].id, AlgorithmId::Si);
    let last_words = d.rows[s.pair.row]
        .reason
        .lines()
        .last()
        .unwrap()
        .split_whitespace()
        .rev()
        .take(2)
        .collect::<Vec<_>>();
    let screen = text(&draw(&s));
    assert!(screen.contains("J/K scroll"), "{screen}");
    for _ in 0..20 {
        update(&mut s, Action::ScrollReason { down: true });
    }
    let screen = text(&draw(&s));
    for w in &last_words {
        assert!(screen.contains(w), "{w} not in\n{screen}");
    }
    insta::assert_snapshot!("reason_scrolled_80x18", screen);
    // Scrolled no further than the end: one step back shows another row.
    update(&mut s, Action::ScrollReason { down: false });
    assert_ne!(text(&draw(&s)), screen);
    // Another row starts at the top of its reason.
    update(&mut s, Action::Up);
    assert_eq!(s.pair.why_scroll, 0);
}

// --------------------------------------------------- what the numbers mean

#[test]
fn the_pair_screen_states_the_fusion_rule_and_counts_its_voters() {
    let s = with_pair(80, 24, Theme::Default);
    let screen = text(&draw(&s));
    let rule = corpus().snapshot.spec.fusion.describe();
    assert!(
        screen.contains(&format!("fusion: duplicate — its rule: {rule}.")),
        "{screen}"
    );
    // Votes are the agreeing families' (passages 2, vocabulary 1, ...),
    // as the rule counts them, not the passing algorithms.
    let d = &corpus().pair;
    let fusion = &corpus().snapshot.spec.fusion;
    let passing = d.rows.iter().filter(|r| r.passes).map(|r| r.id).collect();
    let families: Vec<&str> = fusion
        .agreeing(passing)
        .iter()
        .map(|f| f.as_str())
        .collect();
    assert!(families.len() >= 2, "{families:?}");
    let votes = format!(
        "{} votes ({} needed): {} · A in B",
        fusion.votes(passing),
        fusion.votes_needed,
        families.join(" + ")
    );
    assert!(screen.contains(&votes), "{votes} not in\n{screen}");
    assert!(!screen.contains("voters agree"), "{screen}");
    // The column of exact measures is not named after the algorithm.
    assert!(screen.contains("actual threshold"), "{screen}");
    assert!(!screen.contains(" exact threshold"), "{screen}");
}

/// A cluster row's `agree` is its lowest member's, as the member rows
/// count it; "weakest" says it is a link.
#[test]
fn cluster_rows_count_agreement_as_their_member_rows_do() {
    let mut s = scanned(80, 30, Theme::Default);
    let n = s.algorithms.len();
    let screen = text(&draw(&s));
    assert!(
        screen.contains("agree weakest link representative"),
        "{screen}"
    );
    for k in 0..s.view.len() {
        s.cluster_sel = k;
        s.focus = Focus::Clusters;
        let c = s.selected_cluster().unwrap().clone();
        let t = draw(&s);
        let member_counts: Vec<usize> = c
            .members
            .iter()
            .filter(|m| m.scores.is_some())
            .map(|m| {
                let path = m.path.to_string();
                let name = path.rsplit('/').next().unwrap();
                let row = row_text(t.backend().buffer(), row_of(&t, &format!("{name} ")));
                let count = format!("{}/{n}", m.passing.len());
                assert!(row.contains(&count), "{count} not in {row}");
                m.passing.len()
            })
            .collect();
        let lowest = member_counts.iter().min().unwrap();
        let row = row_text(
            t.backend().buffer(),
            row_of(&t, &c.members[0].path.to_string()),
        );
        assert!(
            row.contains("representative") || !row.contains("rep "),
            "{row}"
        );
        assert!(
            row.contains(&format!(" {lowest}/{n} ")),
            "cluster row {row} lacks its lowest member's {lowest}/{n}"
        );
    }
}

#[test]
fn the_legend_explains_every_symbol_in_help_and_below_the_members() {
    let mut s = scanned(80, 24, Theme::Default);
    update(&mut s, Action::ToggleHelp);
    let mut seen = String::new();
    for _ in 0..40 {
        seen.push_str(&text(&draw(&s)));
        update(&mut s, Action::PageDown);
    }
    for needle in [
        "Legend",
        "● ○ ·",
        "≠",
        "★",
        "┃",
        "weakest link",
        "actual",
        "simhash-lexicons",
        "Ctrl+Z",
        "J K",
    ] {
        assert!(seen.contains(needle), "{needle} not in the help");
    }
    // Below the members where there is room (a cluster of three at
    // 80x24): every algorithm's letter.
    let mut s = scanned(80, 24, Theme::Default);
    s.cluster_sel = s
        .view
        .iter()
        .position(|&i| {
            s.clusters()[i]
                .members
                .iter()
                .any(|m| m.path == "bible/proverbs-kjv-ch01-31.txt")
        })
        .expect("the Proverbs cluster");
    assert_eq!(s.selected_cluster().unwrap().members.len(), 3);
    let screen: String = text(&draw(&s))
        .replace('│', "")
        .split_whitespace()
        .collect();
    for id in AlgorithmId::ALL {
        let letter = doppel_tui::ui::code(id);
        assert!(
            screen.contains(&format!("·{letter}{id}")),
            "{letter} {id} not in {screen}"
        );
    }
    assert!(screen.contains("●passes·○fails·≠algorithmsdisagree·★kept"));
}

// ------------------------------------------------------------------ worker

/// The status bar after the real worker's re-gather (a threshold below
/// its floor) and its rescan of an unchanged folder: idle, not "scanning
/// clustering 0/23" or "scanning reading 0" for good.
#[test]
fn the_status_bar_settles_after_a_regather_and_an_unchanged_rescan() {
    let f = common::fixture();
    let mut config = WorkerConfig::new(&f.folder);
    config.index = Some(f.index.clone().into());
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    let worker = spawn(config);
    let mut s = AppState::new("books", &EngineConfig::default());
    update(&mut s, Action::Resize(100, 30));
    let end = Instant::now() + Duration::from_secs(120);
    // Apply updates until `done` holds after one.
    let pump = |s: &mut AppState, what: &str, done: &dyn Fn(&AppState, &Update) -> bool| loop {
        let u = worker
            .updates
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|e| panic!("no {what}: {e}"));
        let finished = done(s, &u);
        for c in update(s, Action::Worker(u)) {
            worker.commands.send(c).unwrap();
        }
        if finished {
            return;
        }
    };
    let idle = |s: &AppState| {
        let status = text(&draw(s));
        let status = status.lines().last().unwrap().to_owned();
        assert!(!status.contains("scanning"), "{status}");
        assert!(status.contains("● indexed"), "{status}");
        assert!(!status.contains("re-clustering"), "{status}");
    };
    pump(&mut s, "first idle", &|s, u| {
        s.snapshot.is_some() && matches!(u, Update::Progress(p) if p.stage == Stage::Idle)
    });
    idle(&s);
    // A marker the worker thread answers in its next pass.
    let marker = |s: &mut AppState| {
        s.pair.requested = None;
        worker
            .commands
            .send(Command::RequestPair {
                a: "no such file".into(),
                b: "nor this one".into(),
            })
            .unwrap();
    };

    update(&mut s, Action::ShowScreen(Screen::Thresholds));
    update(&mut s, Action::Down);
    update(&mut s, Action::Down);
    for _ in 0..3 {
        for c in update(&mut s, Action::Nudge(-10)) {
            worker.commands.send(c).unwrap();
        }
    }
    pump(
        &mut s,
        "the re-clustered snapshot",
        &|s, u| matches!(u, Update::Snapshot(snap) if snap.spec.thresholds == s.thresholds.thresholds),
    );
    marker(&mut s);
    pump(&mut s, "the marker's answer", &|_, u| {
        matches!(u, Update::Error(_))
    });
    idle(&s);

    for c in update(&mut s, Action::Rescan) {
        worker.commands.send(c).unwrap();
    }
    pump(
        &mut s,
        "the rescan",
        &|_, u| matches!(u, Update::Progress(p) if p.stage == Stage::Listing),
    );
    marker(&mut s);
    pump(&mut s, "the marker's answer", &|_, u| {
        matches!(u, Update::Error(_))
    });
    idle(&s);
    worker.join();
}

// ----------------------------------------------------------------- Ctrl+Z

/// Ctrl+Z reaches the loop's suspend step (the terminal handed back, the
/// process stopped: `tests/tui_e2e.rs` does it for real), after which the
/// loop draws again and goes on.
#[test]
fn ctrl_z_suspends_through_the_loop_and_the_ui_goes_on() {
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    let (cmd_tx, _cmd_rx) = crossbeam_channel::unbounded::<Command>();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let (actions_tx, mut actions) = tokio::sync::mpsc::unbounded_channel();
    let events = futures::stream::iter(vec![
        Ok(Event::Key(KeyEvent::new(
            KeyCode::Char('z'),
            KeyModifiers::CONTROL,
        ))),
        Ok(Event::Key(KeyEvent::new(
            KeyCode::Char('4'),
            KeyModifiers::NONE,
        ))),
        Ok(Event::Key(KeyEvent::new(
            KeyCode::Char('q'),
            KeyModifiers::NONE,
        ))),
    ]);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut state = scanned(80, 24, Theme::Default);
    let ctx = doppel_tui::run::ExportContext {
        cwd: std::env::temp_dir(),
        root: std::env::temp_dir(),
        engine: doppel_core::engine::EngineConfig::default(),
    };
    let mut suspended = Vec::new();
    let mut suspend = |t: &mut Terminal<TestBackend>| {
        suspended.push(t.backend().buffer().clone());
        Ok(())
    };
    runtime
        .block_on(doppel_tui::run::run_loop(
            &mut terminal,
            &mut state,
            events,
            &cmd_tx,
            &actions_tx,
            &mut actions,
            &ctx,
            &mut suspend,
        ))
        .unwrap();
    assert_eq!(suspended.len(), 1);
    assert!(state.quit);
    assert_eq!(state.screen, Screen::Thresholds);
}

/// At 80×24 the thresholds screen has no room for the selected
/// algorithm's explanation beside the sliders: `i` shows it in their place.
#[test]
fn the_explanation_of_an_algorithm_is_reachable_at_80x24() {
    let mut s = scanned(80, 24, Theme::Default);
    update(&mut s, Action::ShowScreen(Screen::Thresholds));
    update(&mut s, Action::Down);
    let about = doppel_tui::ui::describe_algorithm(AlgorithmId::Shingle);
    let squeeze = |x: &str| x.replace('│', "").split_whitespace().collect::<String>();
    assert!(!squeeze(&text(&draw(&s))).contains(&squeeze(about)));
    update(&mut s, Action::ToggleAbout);
    let screen = text(&draw(&s));
    assert!(squeeze(&screen).contains(&squeeze(about)), "{screen}");
    assert!(screen.contains("floor ≥"), "{screen}");
    // The keys still move between algorithms, and `i` goes back.
    update(&mut s, Action::Down);
    let about = doppel_tui::ui::describe_algorithm(AlgorithmId::Minhash);
    assert!(squeeze(&text(&draw(&s))).contains(&squeeze(about)));
    update(&mut s, Action::ToggleAbout);
    assert!(text(&draw(&s)).contains("loose ◂ slider ▸ strict"));
}
