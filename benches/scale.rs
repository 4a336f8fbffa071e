//! Index-scale timings on a generated corpus: build, peak memory, reopen,
//! re-cluster after a threshold change, add one document, snapshot.
//!
//! `cargo bench --bench scale` reads `DOPPEL_SCALE_DIR` (default
//! `target/bench-corpus/docs`, made by `shared/bench/make_corpus.py`); a
//! missing folder prints a note and measures nothing. Prints one line per
//! figure; wall-clock medians, so run it on a quiet machine.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::index::FolderIndex;
use doppel_index::worker::protocol::Snapshot;
use doppel_index::worker::snapshot;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn open(dir: &Path, index: &Path) -> FolderIndex {
    FolderIndex::open(
        dir,
        Engine::new(EngineConfig::default()),
        LibraryConfig::default(),
        Some(index),
    )
    .expect("index opens")
    .0
}

fn main() {
    diff_time();
    let dir = std::env::var_os("DOPPEL_SCALE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/target/bench-corpus/docs"
            ))
        });
    if !dir.is_dir() {
        println!(
            "scale: no corpus at {} (make one with shared/bench/make_corpus.py); nothing measured",
            dir.display()
        );
        return;
    }
    // The index names files by their path under the canonical root.
    let dir = dir.canonicalize().expect("corpus folder");
    let state = std::env::temp_dir().join(format!("doppel-scale-{}", std::process::id()));
    std::fs::create_dir_all(&state).unwrap();
    let index_path = state.join("index.sqlite");

    let started = Instant::now();
    let mut index = open(&dir, &index_path);
    let report = index.reconcile().expect("reconcile");
    let build = started.elapsed();
    let docs = index.library().len();
    let bytes: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "build: {docs} documents ({:.1} MB) in {:.2} s = {:.0} docs/s, {:.1} MB/s (2 threads); {} read, {} skipped",
        bytes as f64 / 1e6,
        build.as_secs_f64(),
        docs as f64 / build.as_secs_f64(),
        bytes as f64 / 1e6 / build.as_secs_f64(),
        report.read,
        report.skipped
    );
    println!("pairs kept: {}", index.library().pair_count());
    if let Some(rss) = peak_rss_mib() {
        println!(
            "peak RSS after build: {rss:.0} MiB ({:.1} KiB per document)",
            rss * 1024.0 / docs as f64
        );
    }

    // Re-cluster after a threshold change (no fingerprint touched).
    let mut spec = ClusterSpec::from_engine(index.engine());
    let mut samples = Vec::new();
    for step in 0..21 {
        spec.thresholds
            .set(AlgorithmId::Minhash, 0.2 + 0.01 * f64::from(step % 5));
        let t = Instant::now();
        let clusters = index.library().clusters(&spec);
        samples.push(t.elapsed());
        std::hint::black_box(clusters);
    }
    println!(
        "re-cluster after a threshold change: median {:.1} ms",
        median(samples).as_secs_f64() * 1e3
    );

    let t = Instant::now();
    let snapshot = snapshot::build(&index, &spec, 1);
    println!(
        "first snapshot for the UI (computes the histograms): {:.1} ms ({} clusters)",
        t.elapsed().as_secs_f64() * 1e3,
        snapshot.clusters.len()
    );
    // A threshold key press: the worker re-clusters and builds the next
    // snapshot (pair-score histograms are cached until the pairs change).
    spec.thresholds.set(AlgorithmId::Minhash, 0.3);
    let samples = (0..11)
        .map(|n| {
            let t = Instant::now();
            std::hint::black_box(snapshot::build(&index, &spec, 2 + n));
            t.elapsed()
        })
        .collect();
    println!(
        "threshold change to the next snapshot (re-cluster included): median {:.1} ms",
        median(samples).as_secs_f64() * 1e3
    );
    #[cfg(feature = "tui")]
    render_times(snapshot);

    // Add one document (a copy of an indexed one under a new name) and get its cluster.
    let source = index
        .library()
        .doc(0)
        .map(|d| dir.join(d.path.to_relative_path()))
        .expect("a document");
    let mut samples = Vec::new();
    for n in 0..11 {
        let copy = dir.join(format!("zz-scale-copy-{n}.txt"));
        std::fs::copy(&source, &copy).unwrap();
        let t = Instant::now();
        index.upsert_path(&copy).expect("upsert");
        let clusters = index.library().clusters(&spec);
        assert_eq!(index.library().len(), docs + 1 + n, "the copy is indexed");
        samples.push(t.elapsed());
        std::hint::black_box(clusters);
    }
    println!(
        "add one document and re-cluster: median {:.1} ms",
        median(samples).as_secs_f64() * 1e3
    );
    // The same through to the worker's next snapshot (histograms merged).
    let mut samples = Vec::new();
    for n in 0..11 {
        let copy = dir.join(format!("zz-scale-copy-{}.txt", n + 100));
        std::fs::copy(&source, &copy).unwrap();
        let t = Instant::now();
        index.upsert_path(&copy).expect("upsert");
        std::hint::black_box(snapshot::build(&index, &spec, 100 + n));
        samples.push(t.elapsed());
        let _ = std::fs::remove_file(&copy);
        let _ = index.remove_path(&copy);
    }
    println!(
        "add one document to the next snapshot: median {:.1} ms",
        median(samples).as_secs_f64() * 1e3
    );
    for n in 0..11 {
        let copy = dir.join(format!("zz-scale-copy-{n}.txt"));
        let _ = std::fs::remove_file(&copy);
        let _ = index.remove_path(&copy);
    }

    // Bulk: 2,000 copies of indexed texts in one sync (as a bulk drop
    // reaches the index), against the build's rate.
    let bulk = dir.join("zz-scale-bulk");
    std::fs::create_dir_all(&bulk).unwrap();
    let copies: Vec<PathBuf> = (0..2000u32)
        .filter_map(|n| {
            let source = dir.join(index.library().doc(n * 7)?.path.to_relative_path());
            let copy = bulk.join(format!("b-{n:04}.txt"));
            std::fs::copy(source, &copy).ok()?;
            Some(copy)
        })
        .collect();
    let t = Instant::now();
    index.sync_paths(&copies).expect("bulk sync");
    let took = t.elapsed();
    assert_eq!(
        index.library().len(),
        docs + copies.len(),
        "every copy is indexed"
    );
    println!(
        "bulk add of {} copies in one sync: {:.2} s = {:.0} docs/s ({:.0} % of the build's rate)",
        copies.len(),
        took.as_secs_f64(),
        copies.len() as f64 / took.as_secs_f64(),
        100.0 * copies.len() as f64 / took.as_secs_f64() / (docs as f64 / build.as_secs_f64())
    );
    let _ = std::fs::remove_dir_all(&bulk);
    index.sync_paths(&copies).expect("bulk removal");
    drop(index);

    let t = Instant::now();
    let mut index = open(&dir, &index_path);
    let report = index.reconcile().expect("reconcile");
    println!(
        "reopen unchanged: {:.2} s ({} files read, {} unchanged)",
        t.elapsed().as_secs_f64(),
        report.read,
        report.unchanged
    );
    let _ = std::fs::remove_dir_all(&state);
}

/// Frame render time of each screen with this snapshot (the UI applies the
/// snapshot once, then draws), at 160×48 into ratatui's test backend.
#[cfg(feature = "tui")]
fn render_times(snapshot: Snapshot) {
    use doppel_tui::state::Screen;
    use doppel_tui::{render, update, Action, AppState};
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    let mut state = AppState::new("scale", &EngineConfig::default());
    update(&mut state, Action::Resize(160, 48));
    let t = Instant::now();
    update(
        &mut state,
        Action::Worker(doppel_index::worker::Update::Snapshot(std::sync::Arc::new(
            snapshot,
        ))),
    );
    println!(
        "UI applies a snapshot: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test backend");
    for screen in [
        Screen::Clusters,
        Screen::Thresholds,
        Screen::Skipped,
        Screen::Log,
    ] {
        update(&mut state, Action::ShowScreen(screen));
        let samples = (0..21)
            .map(|_| {
                let t = Instant::now();
                terminal.draw(|frame| render(&state, frame)).expect("draw");
                t.elapsed()
            })
            .collect();
        println!(
            "render {screen:?} at 160x48: median {:.2} ms",
            median(samples).as_secs_f64() * 1e3
        );
    }
}

/// Time from asking the worker for a diff of two ~1 MB books (Moby-Dick and
/// a copy with every 50th word changed) to receiving it, with a 1 s deadline.
fn diff_time() {
    use doppel_index::worker::{spawn, Command, Update, WorkerConfig};
    let book = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/corpus/moby/moby_dick.txt"
    ));
    let Ok(text) = std::fs::read_to_string(book) else {
        println!("diff: no {} here; not measured", book.display());
        return;
    };
    let dir = std::env::temp_dir().join(format!("doppel-scale-diff-{}", std::process::id()));
    let books = dir.join("books");
    std::fs::create_dir_all(&books).unwrap();
    std::fs::write(books.join("a.txt"), &text).unwrap();
    let edited: Vec<&str> = text
        .split(' ')
        .enumerate()
        .map(|(i, w)| if i % 50 == 0 { "changed" } else { w })
        .collect();
    std::fs::write(books.join("b.txt"), edited.join(" ")).unwrap();
    let mut config = WorkerConfig::new(&books);
    config.index = Some(dir.join("index.sqlite").into());
    config.watch = false;
    let worker = spawn(config);
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if let Ok(Update::Snapshot(_)) = worker.updates.recv_timeout(Duration::from_secs(1)) {
            break;
        }
    }
    let t = Instant::now();
    worker
        .commands
        .send(Command::RequestDiff {
            a: "a.txt".into(),
            b: "b.txt".into(),
            deadline: Duration::from_secs(1),
        })
        .unwrap();
    while Instant::now() < deadline {
        if let Ok(Update::Diff(view)) = worker.updates.recv_timeout(Duration::from_secs(1)) {
            println!(
                "diff of two {:.1} MB books ready in {:.0} ms ({} words, {:.0} % equal, truncated: {})",
                text.len() as f64 / 1e6,
                t.elapsed().as_secs_f64() * 1e3,
                view.left.words.len(),
                view.equal * 100.0,
                view.truncated
            );
            break;
        }
    }
    worker.join();
    let _ = std::fs::remove_dir_all(&dir);
}
