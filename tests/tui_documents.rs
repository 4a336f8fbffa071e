//! The documents screen and the keeper signals on real data from
//! `sample-corpus/` (file dates pinned): every file reachable with its
//! facts, the nearest neighbours with the algorithms that pass and fail,
//! a neighbour opened as a pair, sorting and filtering; the suggested
//! keeper and the curator's mark over it; the worker answering the new
//! requests end to end.

#![cfg(feature = "tui")]

mod common;

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use doppel_core::doc::DocPath;
use doppel_core::engine::EngineConfig;
use doppel_index::worker::documents::{facts_of, neighbours};
use doppel_index::worker::protocol::{DocumentFacts, Neighbours, Snapshot};
use doppel_index::worker::{spawn, Command, Update, WorkerConfig};
use doppel_pairing::cluster::ClusterSpec;
use doppel_tui::action::Action;
use doppel_tui::documents;
use doppel_tui::documents::DocSort;
use doppel_tui::state::{AppState, Focus, Prompt, Screen};
use doppel_tui::ui::Theme;
use doppel_tui::{render, update};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

struct Corpus {
    _dir: tempfile::TempDir,
    folder: std::path::PathBuf,
    snapshot: Arc<Snapshot>,
    facts: Vec<DocumentFacts>,
    /// Neighbours of every document, by path.
    neighbours: Vec<Arc<Neighbours>>,
}

/// Each file's date: 2026-01-01 plus a day per file in path order.
fn pin_dates(folder: &Path) {
    let mut files: Vec<_> = walk(folder);
    files.sort();
    let base = UNIX_EPOCH + Duration::from_secs(1_767_225_600);
    for (i, f) in files.iter().enumerate() {
        let t: SystemTime = base + Duration::from_secs(86_400 * i as u64);
        std::fs::File::options()
            .append(true)
            .open(f)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("books");
        common::copy_dir(&common::sample_corpus(), &folder);
        pin_dates(&folder);
        let index = common::indexed(&folder, &dir.path().join("state").join("index.sqlite"));
        let spec = ClusterSpec::from_engine(index.engine());
        let snapshot = common::snapshot_of(&index);
        let docs: Vec<DocPath> = index
            .library()
            .documents()
            .map(|(_, d)| d.path.clone())
            .collect();
        let facts = docs
            .iter()
            .map(|d| facts_of(d, &index.path_of(d)))
            .collect();
        let neighbours = docs
            .iter()
            .map(|d| Arc::new(neighbours(&index, &spec, d, 1)))
            .collect();
        Corpus {
            folder,
            _dir: dir,
            snapshot,
            facts,
            neighbours,
        }
    })
}

fn state(w: u16, h: u16, theme: Theme) -> AppState {
    let mut s = AppState::new("sample-corpus", &EngineConfig::default());
    s.theme = theme;
    update(&mut s, Action::Resize(w, h));
    let out = update(
        &mut s,
        Action::Worker(Update::Snapshot(corpus().snapshot.clone())),
    );
    answer(&mut s, out);
    s
}

/// Answer every request in `commands` as the worker would.
fn answer(s: &mut AppState, commands: Vec<Command>) {
    let c = corpus();
    for command in commands {
        match command {
            Command::RequestFacts { paths } => {
                let facts = paths
                    .iter()
                    .filter_map(|p| c.facts.iter().find(|f| f.path == *p).cloned())
                    .collect();
                let more = update(s, Action::Worker(Update::Facts(Arc::new(facts))));
                answer(s, more);
            }
            Command::RequestNeighbours { path } => {
                let n = c
                    .neighbours
                    .iter()
                    .find(|n| n.path == path)
                    .unwrap()
                    .clone();
                let more = update(s, Action::Worker(Update::Neighbours(n)));
                answer(s, more);
            }
            _ => {}
        }
    }
}

fn act(s: &mut AppState, action: Action) -> Vec<Command> {
    let out = update(s, action);
    answer(s, out.clone());
    out
}

fn select_doc(s: &mut AppState, path: &str) {
    let i = documents::rows(s)
        .iter()
        .position(|r| r.path == path)
        .unwrap_or_else(|| panic!("{path} is listed"));
    act(s, Action::Home);
    for _ in 0..i {
        act(s, Action::Down);
    }
    assert_eq!(documents::selected(s), Some(DocPath::from(path)));
}

fn draw(s: &AppState) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(s.width, s.height)).unwrap();
    t.draw(|f| render(s, f)).unwrap();
    t
}

fn screen_text(b: &Buffer) -> String {
    (0..b.area.height)
        .map(|y| {
            (0..b.area.width)
                .map(|x| b[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The documents screen with the KJV Ruth selected: its WEB translation is
/// its neighbour but not in its cluster.
fn ruth(w: u16, h: u16, theme: Theme) -> AppState {
    let mut s = state(w, h, theme);
    act(&mut s, Action::ShowScreen(Screen::Documents));
    select_doc(&mut s, "bible/ruth-kjv.txt");
    act(&mut s, Action::NextFocus);
    s
}

#[test]
fn every_file_is_listed_with_its_facts_and_its_neighbours_say_why() {
    let mut s = state(80, 24, Theme::Default);
    // The clusters screen knows the selected cluster's members (keeper
    // signals); the documents screen asks for every other file.
    let known = s.docs.facts.len();
    assert_eq!(known, s.selected_cluster().unwrap().members.len());
    let out = act(&mut s, Action::ShowScreen(Screen::Documents));
    // Facts for every document (clustered or not) in one request, and the
    // first row's neighbours.
    let asked: Vec<&DocPath> = out
        .iter()
        .flat_map(|c| match c {
            Command::RequestFacts { paths } => paths.iter().collect(),
            _ => Vec::new(),
        })
        .collect();
    assert_eq!(asked.len() + known, corpus().snapshot.documents);
    assert_eq!(s.docs.facts.len(), corpus().snapshot.documents);
    assert!(out
        .iter()
        .any(|c| matches!(c, Command::RequestNeighbours { .. })));
    assert_eq!(documents::rows(&s).len(), corpus().snapshot.documents);
    // Nothing asked twice.
    assert!(act(&mut s, Action::Down)
        .iter()
        .all(|c| !matches!(c, Command::RequestFacts { .. })));

    let s = ruth(80, 24, Theme::Default);
    let n = documents::shown_neighbours(&s).expect("ruth's neighbours");
    let web = n
        .neighbours
        .iter()
        .find(|n| n.path == "bible/ruth-web.txt")
        .expect("the WEB translation is a neighbour");
    assert!(!web.fusion && !web.failing.is_empty(), "{web:?}");
    let t = draw(&s);
    let text = screen_text(t.backend().buffer());
    assert!(text.contains("fails: "), "{text}");
    insta::assert_snapshot!("documents_80x24", t.backend());
}

#[test]
fn a_neighbour_opens_as_a_pair_and_enter_walks_in() {
    let mut s = state(80, 24, Theme::Default);
    act(&mut s, Action::ShowScreen(Screen::Documents));
    select_doc(&mut s, "bible/ruth-kjv.txt");
    act(&mut s, Action::Enter);
    assert!(s.docs.on_neighbours, "Enter moves to the neighbours");
    let (a, b) = documents::selected_pair(&s).unwrap();
    let out = act(&mut s, Action::Enter);
    assert_eq!(s.screen, Screen::Pair);
    assert!(out.contains(&Command::RequestPair {
        a: a.clone(),
        b: b.clone()
    }));
    assert_eq!(a, DocPath::from("bible/ruth-kjv.txt"));
    // Esc goes back to the clusters, as from any screen.
    act(&mut s, Action::Back);
    assert_eq!(s.screen, Screen::Clusters);
}

#[test]
fn the_list_sorts_by_key_and_filters_by_name() {
    let mut s = state(80, 24, Theme::Default);
    act(&mut s, Action::ShowScreen(Screen::Documents));
    select_doc(&mut s, "scans/pride-prejudice-ch1-3-ocr.txt");
    let words = |s: &AppState, p: &DocPath| s.docs.facts[p].quality.words;
    while s.docs.sort != DocSort::Words {
        act(&mut s, Action::CycleSort);
    }
    let rows: Vec<DocPath> = documents::rows(&s).iter().map(|r| r.path.clone()).collect();
    assert!(rows
        .windows(2)
        .all(|w| words(&s, &w[0]) >= words(&s, &w[1])));
    // The selection follows the file, not the row.
    assert_eq!(
        documents::selected(&s),
        Some(DocPath::from("scans/pride-prejudice-ch1-3-ocr.txt"))
    );
    while s.docs.sort != DocSort::Quality {
        act(&mut s, Action::CycleSort);
    }
    // The OCR'd scan reads worst of the Austen texts.
    let rows = documents::rows(&s);
    let scan = rows
        .iter()
        .position(|r| r.path == "scans/pride-prejudice-ch1-3-ocr.txt");
    let etext = rows
        .iter()
        .position(|r| r.path == "austen/pride-prejudice-ch1-3.txt");
    assert!(scan < etext, "{scan:?} {etext:?}");
    // `/` filters the files, those in no cluster included.
    act(&mut s, Action::StartFilter);
    for c in "1791-wash".chars() {
        act(&mut s, Action::PromptChar(c));
    }
    let rows = documents::rows(&s);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].cluster, None);
    assert!(matches!(s.prompt, Some(Prompt::Filter { .. })));
}

/// Each row's text and, under it, which cells are reversed or bold: a
/// monochrome frame must show the selection and the focus without colour.
fn monochrome(t: &Terminal<TestBackend>) -> String {
    let b = t.backend().buffer();
    let mut out = String::new();
    for y in 0..b.area.height {
        let mut mask = String::new();
        let mut row = String::new();
        for x in 0..b.area.width {
            let c = &b[(x, y)];
            assert!(
                c.fg == Color::Reset && c.bg == Color::Reset,
                "colour at {x},{y}"
            );
            if c.symbol().is_empty() {
                continue;
            }
            row.push_str(c.symbol());
            mask.push(if c.modifier.contains(Modifier::REVERSED) {
                'r'
            } else if c.modifier.contains(Modifier::BOLD) {
                'b'
            } else {
                '.'
            });
        }
        out.push_str(&format!("{row}\n{mask}\n"));
    }
    out
}

#[test]
fn monochrome_documents_show_the_selection_without_colour() {
    let s = ruth(80, 24, Theme::Monochrome);
    let t = draw(&s);
    let mono = monochrome(&t);
    assert!(mono.contains('r'), "the selected neighbour is reversed");
    insta::assert_snapshot!("mono_documents_80x24", mono);
}

#[test]
fn the_worker_answers_facts_and_neighbours() {
    let c = corpus();
    let mut config = WorkerConfig::new(&c.folder);
    config.index = None;
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    let worker = spawn(config);
    let end = Instant::now() + Duration::from_secs(120);
    let next = || {
        worker
            .updates
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .expect("an answer from the worker")
    };
    let kjv = DocPath::from("bible/ruth-kjv.txt");
    let scan = DocPath::from("scans/pride-prejudice-ch1-3-ocr.txt");
    worker
        .commands
        .send(Command::RequestFacts {
            paths: vec![kjv.clone(), scan.clone()],
        })
        .unwrap();
    worker
        .commands
        .send(Command::RequestNeighbours { path: kjv.clone() })
        .unwrap();
    let (mut facts, mut near) = (Vec::new(), None);
    while facts.len() < 2 || near.is_none() {
        match next() {
            Update::Facts(f) => facts.extend(f.iter().cloned()),
            Update::Neighbours(n) => near = Some(n),
            _ => {}
        }
    }
    worker.join();
    let expected: Vec<&DocumentFacts> = c
        .facts
        .iter()
        .filter(|f| f.path == kjv || f.path == scan)
        .collect();
    for f in &facts {
        assert!(expected.contains(&f), "{f:?}");
        assert!(f.quality.words > 1000 && f.problem.is_none(), "{f:?}");
    }
    let near = near.unwrap();
    assert_eq!(near.path, kjv);
    assert!(near
        .neighbours
        .iter()
        .any(|n| n.path == "bible/ruth-web.txt"));
}

// ------------------------------------------------------------------ keeper

const ETEXT: &str = "austen/pride-prejudice-ch1-3.txt";
const SCAN: &str = "scans/pride-prejudice-ch1-3-ocr.txt";

/// The clusters screen on the Pride and Prejudice cluster (the e-text and
/// its OCR'd scan), the members focused on `member`.
fn pride(member: &str) -> AppState {
    let mut s = state(80, 24, Theme::Default);
    let clusters = s.clusters().to_vec();
    let (i, m) = s
        .view
        .iter()
        .enumerate()
        .find_map(|(i, &c)| {
            let k = clusters[c].members.iter().position(|m| m.path == member)?;
            Some((i, k))
        })
        .expect("the cluster");
    s.cluster_sel = i;
    s.focus = Focus::Members;
    s.member_sel = m;
    // Any action asks for what the screen now shows.
    act(&mut s, Action::Tick(Duration::ZERO));
    s
}

fn row_of<'a>(screen: &'a str, name: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(name))
        .unwrap_or_else(|| panic!("{name} in {screen}"))
}

#[test]
fn the_clean_e_text_is_the_suggested_keeper_until_the_curator_marks_one() {
    let mut s = pride(SCAN);
    let c = s.selected_cluster().unwrap().clone();
    let suggested = documents::suggested_keeper(&s, &c).expect("a suggestion");
    assert_eq!(c.members[suggested].path, DocPath::from(ETEXT));
    let screen = screen_text(draw(&s).backend().buffer());
    assert!(
        screen.contains("☆austen/pride-prejudice-ch1-3.txt"),
        "{screen}"
    );
    // The selected member's signals: size, encoding, date, words, quality
    // (the date pinned by the file's place among the corpus's files).
    assert!(screen.contains("utf-8 · 2026-"), "{screen}");
    assert!(screen.contains(" words · quality"), "{screen}");
    insta::assert_snapshot!("keeper_signals_80x24", draw(&s).backend());
    // The curator keeps the scan: the suggestion gives way to the mark.
    act(&mut s, Action::ToggleKeep);
    let c = s.selected_cluster().unwrap().clone();
    assert_eq!(documents::suggested_keeper(&s, &c), None);
    let screen = screen_text(draw(&s).backend().buffer());
    assert!(!screen.contains("☆austen"), "{screen}");
    assert!(row_of(&screen, "ocr.txt").contains('★'), "{screen}");
}

/// The Emma chapter's cluster holds its e-text, an edited copy, its EPUB
/// and Tesseract's PDF and ALTO of its scan: the scans count more words
/// (page numbers, split words) and read within a point of the e-text; the
/// e-text is still the one to keep; the documents screen names each
/// file's format.
#[test]
fn the_e_text_is_suggested_over_its_epub_and_its_ocrd_scans() {
    let mut s = pride("formats/emma_scan.pdf");
    let c = s.selected_cluster().unwrap().clone();
    assert_eq!(c.members.len(), 5);
    let suggested = documents::suggested_keeper(&s, &c).expect("a suggestion");
    assert_eq!(
        c.members[suggested].path,
        DocPath::from("austen/emma-ch1.txt")
    );
    let screen = screen_text(draw(&s).backend().buffer());
    assert!(screen.contains("☆austen/emma-ch1.txt"), "{screen}");
    // On the documents screen: each file's format where plain text shows
    // its encoding.
    act(&mut s, Action::ShowScreen(Screen::Documents));
    for (path, format) in [
        ("formats/emma_scan.pdf", "PDF"),
        ("formats/emma_scan.xml", "ALTO"),
        ("formats/emma.epub", "EPUB"),
        ("austen/emma-ch1.txt", "utf-8"),
    ] {
        select_doc(&mut s, path);
        let screen = screen_text(draw(&s).backend().buffer());
        let row = row_of(&screen, path.rsplit('/').next().unwrap());
        assert!(row.contains(&format!(" {format} ")), "{row}");
    }
}

/// The Emma cluster's five members at 80×24 leave two rows under them:
/// the selected member's keeper signals take them (in fewer words when
/// they need more), and the legend (on `?` too) gives way; the ALTO
/// scan's OCR confidence is among them.
#[test]
fn the_keeper_signals_survive_under_five_members_at_80x24() {
    let s = pride("formats/emma_scan.xml");
    assert_eq!(s.selected_cluster().unwrap().members.len(), 5);
    let screen = screen_text(draw(&s).backend().buffer());
    let signals = row_of(&screen, " words · quality");
    assert!(signals.contains("ALTO · 2026-"), "{screen}");
    assert!(screen.contains("OCR confidence 94 %"), "{screen}");
    assert!(!screen.contains("● passes"), "{screen}");
    insta::assert_snapshot!("emma_signals_80x24", draw(&s).backend());
    // One row left: the signals in fewer words, on it.
    let mut s = s;
    act(&mut s, Action::Resize(80, 23));
    let screen = screen_text(draw(&s).backend().buffer());
    let signals = row_of(&screen, " words · quality");
    assert!(
        signals.contains("quality 99 % · OCR confidence 94 %"),
        "{screen}"
    );
    assert!(!screen.contains("dictionary words"), "{screen}");
}

/// `tests/data/formats/emma_scan.xml` with every word confidence (`WC`)
/// scaled by `factor`: the same words from an OCR engine less sure of
/// them, written into `dir`.
fn unsure_alto(dir: &Path, factor: f64) -> std::path::PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/formats/emma_scan.xml");
    let xml = std::fs::read_to_string(fixture).unwrap();
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml.as_str();
    while let Some(at) = rest.find(" WC=\"") {
        let (head, tail) = rest.split_at(at + 5);
        let end = tail.find('"').unwrap();
        let wc: f64 = tail[..end].parse().unwrap();
        out.push_str(head);
        out.push_str(&format!("{:.2}", wc * factor));
        rest = &tail[end..];
    }
    out.push_str(rest);
    let file = dir.join("emma_scan.xml");
    std::fs::write(&file, out).unwrap();
    file
}

/// The Emma cluster's ALTO scan as a less sure OCR engine read it (mean
/// word confidence 61 %): its quality is held down (to 67 %, from 99 %), and where the curator
/// sees quality it says why — the keeper signals, the documents list's
/// quality cell (`*67 %`) and the selected file's facts.
#[test]
fn a_low_ocr_confidence_is_named_where_the_curator_sees_quality() {
    let mut s = pride("formats/emma_scan.xml");
    let path = DocPath::from("formats/emma_scan.xml");
    let dir = tempfile::tempdir().unwrap();
    let unsure = DocumentFacts {
        modified: s.docs.facts[&path].modified,
        ..facts_of(&path, &unsure_alto(dir.path(), 0.65))
    };
    let q = unsure.quality;
    assert!(q.held_by_confidence(), "{q:?}");
    let (quality, confidence) = (q.score() * 100.0, q.ocr_confidence.unwrap() * 100.0);
    assert_eq!((quality.round(), confidence.round()), (67.0, 61.0), "{q:?}");
    act(
        &mut s,
        Action::Worker(Update::Facts(Arc::new(vec![unsure]))),
    );
    let screen = screen_text(draw(&s).backend().buffer());
    let signals = row_of(&screen, " words · quality");
    assert!(
        signals.contains("quality 67 % held down by OCR"),
        "{screen}"
    );
    assert!(
        screen.contains("confidence 61 % (99 % dictionary"),
        "{screen}"
    );
    // The e-text is still the one to keep.
    assert!(screen.contains("☆austen/emma-ch1.txt"), "{screen}");
    insta::assert_snapshot!("low_confidence_signals_80x24", draw(&s).backend());
    act(&mut s, Action::ShowScreen(Screen::Documents));
    select_doc(&mut s, "formats/emma_scan.xml");
    let t = draw(&s);
    let screen = screen_text(t.backend().buffer());
    assert!(
        row_of(&screen, "emma_scan.xml").contains(" *67 % "),
        "{screen}"
    );
    assert!(
        screen.contains("* quality 67 % held down by OCR confidence 61 %"),
        "{screen}"
    );
    insta::assert_snapshot!("low_confidence_documents_80x24", t.backend());
}

#[test]
fn a_clean_e_text_reads_better_than_its_noised_scan() {
    let text = std::fs::read_to_string(common::sample_corpus().join(ETEXT)).unwrap();
    let mut rng = doppel_core::hash::SplitMix64::new(20);
    let noised = doppel_eval::library::ocr_confusions(&text, 0.05, &mut rng);
    let (clean, scan) = (
        doppel_core::engine::quality::estimate(&text),
        doppel_core::engine::quality::estimate(&noised),
    );
    assert!(clean.score() > scan.score() + 0.02, "{clean:?} {scan:?}");
    assert!(scan.confusions > clean.confusions, "{clean:?} {scan:?}");
    assert_eq!(scan, doppel_core::engine::quality::estimate(&noised));
}

#[test]
fn y_on_a_cluster_row_names_the_pair_it_judges() {
    let mut s = pride(SCAN);
    s.focus = Focus::Clusters;
    act(&mut s, Action::MarkDuplicate);
    let (_, notice) = s.notice.clone().expect("a message");
    assert!(notice.contains(ETEXT) || notice.contains(SCAN), "{notice}");
    assert!(notice.contains("cluster row judges"), "{notice}");
    // Again: it says it is already marked, and which pair.
    act(&mut s, Action::MarkDuplicate);
    let (_, notice) = s.notice.clone().expect("a message");
    assert!(notice.starts_with("already marked duplicate: "), "{notice}");
    assert!(notice.contains('⇄'), "{notice}");
}

#[test]
fn a_keeper_marked_this_session_is_in_the_export_at_once() {
    let mut s = pride(SCAN);
    act(&mut s, Action::ToggleKeep);
    let keep_of = |csv: &str| -> String {
        csv.lines()
            .find(|l| l.contains(SCAN))
            .unwrap()
            .split(',')
            .nth(3)
            .unwrap()
            .to_owned()
    };
    // The snapshot has not carried the mark yet ...
    let raw = doppel_tui::export::clusters_csv(s.snapshot.as_ref().unwrap()).unwrap();
    assert_eq!(keep_of(&raw), "false");
    // ... the export writes what the screen shows.
    let seen = doppel_tui::export::as_seen(&s).unwrap();
    assert_eq!(
        keep_of(&doppel_tui::export::clusters_csv(&seen).unwrap()),
        "true"
    );
}

#[test]
fn clicks_select_a_file_then_a_neighbour_and_open_the_pair() {
    use doppel_tui::layout;
    let mut s = state(80, 24, Theme::Default);
    act(&mut s, Action::ShowScreen(Screen::Documents));
    let f = layout::frame_of(&s).unwrap();
    let d = layout::documents(f.body);
    let list = layout::rows(d.list, 1);
    // The third file.
    act(
        &mut s,
        Action::Click {
            col: list.x + 2,
            row: list.y + 2,
        },
    );
    assert_eq!(s.docs.sel, 2);
    select_doc(&mut s, "bible/ruth-kjv.txt");
    let near = layout::rows(d.neighbours, 1);
    let click = Action::Click {
        col: near.x + 2,
        row: near.y,
    };
    act(&mut s, click.clone());
    assert!(s.docs.on_neighbours);
    let out = act(&mut s, click);
    assert_eq!(s.screen, Screen::Pair);
    assert!(out.iter().any(|c| matches!(
        c,
        Command::RequestPair { b, .. } if *b == "bible/ruth-web.txt"
    )));
}

/// Facts arriving reorder a list sorted by them; the selection stays on
/// the file, not on the row.
#[test]
fn facts_arriving_keep_the_selected_file_selected() {
    let mut s = state(80, 24, Theme::Default);
    // Asked, not answered yet.
    let asked = update(&mut s, Action::ShowScreen(Screen::Documents));
    while s.docs.sort != DocSort::Size {
        update(&mut s, Action::CycleSort);
    }
    let last = documents::rows(&s).len() - 1;
    update(&mut s, Action::End);
    let chosen = documents::selected(&s).unwrap();
    assert_eq!(s.docs.sel, last);
    answer(&mut s, asked);
    assert_eq!(documents::selected(&s), Some(chosen.clone()));
    // By size now: the largest file first.
    let sizes: Vec<u64> = documents::rows(&s)
        .iter()
        .map(|r| s.docs.facts[&r.path].size)
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
}
