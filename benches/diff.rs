//! The review screen's word diff on whole books: the worker's part
//! (`diff_texts`: words, alignment, character marks, moved blocks) and the
//! UI's (laying the rows out for a pane, drawing one frame deep inside).
//!
//! Pairs, from the shared corpus (`DOPPEL_CORPUS` or `../shared/corpus/`;
//! when it is missing the sample corpus's
//! scan and e-text stand in, so the bench always runs):
//!
//! - `scan`: Moby-Dick (1.2 MB) against a page scan of it made here, seeded:
//!   OCR confusions on 5 % of the words (`eval::library::ocr_confusions`),
//!   a dropped or doubled space on 1 %, lines re-wrapped at 64 columns
//!   with one in four line-end words hyphenated, a running head every 40
//!   lines, CRLF line ends;
//! - `every50`: Moby-Dick against itself with every 50th word replaced;
//! - `chapter`: a 60 KB chapter of the scan against the whole e-text
//!   (very unequal sizes: the chapter is located first);
//! - `unrelated`: Emma against Mansfield Park (two 0.9 MB books with
//!   nothing but common words in common: the worst case).
//!
//! The bar is the `scan` pair ready in ≤ 1 s in a release build
//! (the worker's part plus the UI's layout). Run with
//! `cargo bench --bench diff`.

// criterion_main! defines `main` without a doc comment.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use doppel_core::hash::SplitMix64;
use doppel_eval::library::ocr_confusions;
use doppel_index::worker::diff::{diff_texts, DiffOptions};
use doppel_index::worker::protocol::DiffView;

/// A file of the shared corpus: under `DOPPEL_CORPUS`, or `../shared/corpus`
/// beside the repository (a worktree under `wt/` finds it one level up).
fn corpus(path: &str) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("DOPPEL_CORPUS")
        .map(std::path::PathBuf::from)
        .into_iter()
        .chain([
            root.join("../shared/corpus"),
            root.join("../../shared/corpus"),
        ])
        .find_map(|dir| std::fs::read_to_string(dir.join(path)).ok())
}

fn sample(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    std::fs::read_to_string(root.join(path)).expect("the sample corpus")
}

/// A page scan of `text` (see the module documentation), seeded.
fn scan(text: &str, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let misread = ocr_confusions(text, 0.05, &mut rng);
    let mut words: Vec<String> = Vec::new();
    for w in misread.split_whitespace() {
        let x = rng.next_f64();
        if x < 0.005 && w.len() > 4 {
            words.push(format!("{} {}", &w[..2], &w[2..]));
        } else if x < 0.01 && !words.is_empty() {
            words.last_mut().expect("a word").push_str(w);
        } else {
            words.push(w.to_owned());
        }
    }
    let mut lines: Vec<String> = vec![String::new()];
    for w in words {
        let line = lines.last_mut().expect("a line");
        if line.len() + 1 + w.len() > 64 && !line.is_empty() {
            let long = w.len() >= 7 && w.chars().all(|c| c.is_ascii_alphabetic());
            if long && rng.next_f64() < 0.25 {
                line.push(' ');
                line.push_str(&w[..3]);
                line.push('-');
                lines.push(w[3..].to_owned());
            } else {
                lines.push(w);
            }
            continue;
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 10);
    for (n, line) in lines.iter().enumerate() {
        if n % 40 == 0 {
            out.push_str(&format!("MOBY-DICK; OR, THE WHALE  {}\r\n\r\n", n / 40 + 1));
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out
}

fn diff(a: &str, b: &str) -> DiffView {
    let deadline = Instant::now() + Duration::from_secs(120);
    diff_texts(a.to_owned(), b.to_owned(), &DiffOptions::new(deadline)).into_view(
        1,
        "a".into(),
        "b".into(),
    )
}

fn pairs() -> Vec<(&'static str, String, String)> {
    let Some(moby) = corpus("moby/moby_dick.txt") else {
        println!("diff: no ../shared/corpus here; the sample scan stands in");
        return vec![(
            "sample-scan",
            sample("austen/pride-prejudice-ch1-3.txt"),
            sample("scans/pride-prejudice-ch1-3-ocr.txt"),
        )];
    };
    let scanned = scan(&moby, 15);
    let every50: Vec<&str> = moby
        .split(' ')
        .enumerate()
        .map(|(i, w)| if i % 50 == 0 { "changed" } else { w })
        .collect();
    let start = scanned.len() / 3;
    let start = start + scanned[start..].find("\r\n\r\n").unwrap_or(0);
    let chapter = scanned[start..start + 60_000].to_owned();
    let mut out = vec![
        ("scan", moby.clone(), scanned),
        ("every50", moby.clone(), every50.join(" ")),
        ("chapter", chapter, moby),
    ];
    if let (Some(a), Some(b)) = (
        corpus("austen/emma.txt"),
        corpus("austen/mansfieldpark.txt"),
    ) {
        out.push(("unrelated", a, b));
    }
    out
}

fn bench(c: &mut Criterion) {
    let pairs = pairs();
    let mut group = c.benchmark_group("word_diff");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    for (name, a, b) in &pairs {
        let d = diff(a, b);
        let equal = |s: &doppel_index::worker::protocol::DiffSide| s.words.len();
        println!(
            "{name}: {:.2} + {:.2} MB, {} + {} words, {:.1} % equal, {} moved, region {:?}, truncated {}",
            a.len() as f64 / 1e6,
            b.len() as f64 / 1e6,
            equal(&d.left),
            equal(&d.right),
            d.equal * 100.0,
            d.moves.len(),
            d.region,
            d.truncated
        );
        group.throughput(Throughput::Bytes((a.len() + b.len()) as u64));
        group.bench_function(*name, |bench| bench.iter(|| black_box(diff(a, b))));
    }
    group.finish();
    #[cfg(feature = "tui")]
    ui(c, &pairs[0]);
}

/// The UI's share: rows for a 160-column terminal in both views, and one
/// frame drawn half-way down.
#[cfg(feature = "tui")]
fn ui(c: &mut Criterion, (name, a, b): &(&str, String, String)) {
    use doppel_core::engine::EngineConfig;
    use doppel_index::worker::Update;
    use doppel_tui::diff::rows::{line_rows, word_rows};
    use doppel_tui::{render, update, Action, AppState};
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use std::sync::Arc;

    let view = Arc::new(diff(a, b));
    let mut group = c.benchmark_group(format!("diff_ui_{name}"));
    group.sample_size(10);
    group.bench_function("word_rows_160", |bench| {
        bench.iter(|| black_box(word_rows(&view, 74)))
    });
    group.bench_function("line_rows_160", |bench| {
        bench.iter(|| black_box(line_rows(&view, 74)))
    });
    let mut state = AppState::new("bench", &EngineConfig::default());
    update(&mut state, Action::Resize(160, 48));
    state.diff.requested = Some((view.a.clone(), view.b.clone()));
    update(&mut state, Action::Worker(Update::Diff(view.clone())));
    update(
        &mut state,
        Action::ShowScreen(doppel_tui::state::Screen::Diff),
    );
    let rows = state.diff.laid_out().map_or(0, |l| l.shown.len());
    state.diff.scroll = rows / 2;
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test backend");
    group.bench_function("frame_160x48", |bench| {
        bench.iter(|| terminal.draw(|f| render(&state, f)).expect("draw").area)
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
