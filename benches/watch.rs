//! The watcher with a large folder indexed: latency from a file's close to
//! the snapshot that shows it in its cluster, and the throughput of a bulk
//! drop against the initial scan's.
//!
//! `cargo bench --bench watch` follows `DOPPEL_WATCH_DIR` (default
//! `target/scale-corpus`, made by `benches/make_scale_corpus.py`; a missing
//! folder prints a note and measures nothing) through the real worker and
//! watcher, with a fresh index in a temporary folder. Files are dropped into
//! `zz-watch-drop/` inside it and removed afterwards. The bulk drop copies
//! the texts of `DOPPEL_DROP_DIR` (default `target/drop-corpus`: new texts
//! of the same kind, `make_scale_corpus.py target/drop-corpus --docs 9091
//! --seed 2`), or copies of indexed texts when it is missing.
//! `DOPPEL_QUIET_MS` sets the quiet period (default: the crate's).
//! Wall-clock figures: run it on a quiet machine.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use doppel_index::worker::protocol::Snapshot;
use doppel_index::worker::protocol::Stage;
use doppel_index::worker::{spawn, Command, Update, WorkerConfig};

const LATENCY_SAMPLES: usize = 40;
const BULK_FILES: usize = 10_000;
const PATIENCE: Duration = Duration::from_secs(600);

/// The next snapshot satisfying `done`, skipping other updates.
fn wait_for(
    updates: &Receiver<Update>,
    mut done: impl FnMut(&Snapshot) -> bool,
) -> Option<Instant> {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        match updates.recv_timeout(Duration::from_secs(1)) {
            Ok(Update::Snapshot(s)) if done(&s) => return Some(Instant::now()),
            Ok(Update::Stopped) => return None,
            _ => {}
        }
    }
    None
}

fn in_a_cluster(s: &Snapshot, path: &str) -> bool {
    s.clusters
        .iter()
        .any(|c| c.members.iter().any(|m| m.path == path))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn texts(dir: &Path, n: usize) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files.truncate(n);
    files
}

fn main() {
    let dir = std::env::var_os("DOPPEL_WATCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/scale-corpus"))
        });
    if !dir.is_dir() {
        println!(
            "watch: no corpus at {} (make one with benches/make_scale_corpus.py); nothing measured",
            dir.display()
        );
        return;
    }
    let drop_dir = dir.join("zz-watch-drop");
    let _ = std::fs::remove_dir_all(&drop_dir);
    let state = std::env::temp_dir().join(format!("doppel-watch-{}", std::process::id()));
    std::fs::create_dir_all(&state).unwrap();

    let mut config = WorkerConfig::new(&dir);
    config.index = Some(state.join("index.sqlite").into());
    config.rescan_every = Duration::ZERO;
    if let Some(ms) = std::env::var("DOPPEL_QUIET_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        config.quiet = Duration::from_millis(ms);
    }
    let quiet = config.quiet;
    let started = Instant::now();
    let worker = spawn(config);
    // The first snapshot follows the initial scan; its reading progress
    // also gives the rate over the scan's last BULK_FILES files (read into
    // an index of about the size the bulk drop meets).
    let mut tail_start: Option<(Instant, usize)> = None;
    let deadline = Instant::now() + PATIENCE;
    let base = loop {
        match worker.updates.recv_timeout(Duration::from_secs(1)) {
            Ok(Update::Snapshot(s)) => break s.documents,
            Ok(Update::Progress(p))
                if p.stage == Stage::Reading
                    && tail_start.is_none()
                    && p.total > BULK_FILES
                    && p.done >= p.total - BULK_FILES =>
            {
                tail_start = Some((Instant::now(), p.done));
            }
            Ok(Update::Stopped) => {
                println!("watch: the worker stopped before its first snapshot");
                return;
            }
            _ if Instant::now() > deadline => {
                println!("watch: no first snapshot");
                return;
            }
            _ => {}
        }
    };
    let scan = started.elapsed();
    let scan_rate = base as f64 / scan.as_secs_f64();
    println!(
        "initial scan: {base} documents in {:.1} s = {scan_rate:.0} docs/s (quiet period {} ms)",
        scan.as_secs_f64(),
        quiet.as_millis()
    );
    let tail_rate = tail_start.map(|(at, done)| (base - done) as f64 / at.elapsed().as_secs_f64());
    if let Some(rate) = tail_rate {
        println!("initial scan, its last files: {rate:.0} docs/s");
    }

    // Latency: a copy of an indexed text, written and closed, until the
    // snapshot that shows it in a cluster.
    std::fs::create_dir_all(&drop_dir).unwrap();
    let sources = texts(&dir, LATENCY_SAMPLES);
    let mut latencies = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let text = std::fs::read(source).unwrap();
        let name = format!("lat-{i}.txt");
        std::fs::write(drop_dir.join(&name), &text).unwrap();
        let closed = Instant::now();
        let rel = format!("zz-watch-drop/{name}");
        match wait_for(&worker.updates, |s| in_a_cluster(s, &rel)) {
            Some(seen) => latencies.push(seen - closed),
            None => {
                println!("watch: {rel} never reached a cluster");
                break;
            }
        }
    }
    latencies.sort();
    if !latencies.is_empty() {
        println!(
            "file close to its cluster in a snapshot ({} files): p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            latencies.len(),
            percentile(&latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&latencies, 0.95).as_secs_f64() * 1e3,
            latencies.last().unwrap().as_secs_f64() * 1e3
        );
    }

    // Bulk drop: BULK_FILES copies as fast as the disk takes them, until the
    // snapshot counts them all.
    let before = base + latencies.len();
    let bulk = drop_dir.join("bulk");
    std::fs::create_dir_all(&bulk).unwrap();
    let drop_source = std::env::var_os("DOPPEL_DROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/drop-corpus"))
        });
    let (sources, kind) = if drop_source.is_dir() {
        (texts(&drop_source, BULK_FILES), "new texts")
    } else {
        (texts(&dir, BULK_FILES), "copies of indexed texts")
    };
    let t = Instant::now();
    for (i, source) in sources.iter().enumerate() {
        std::fs::copy(source, bulk.join(format!("b-{i:05}.txt"))).unwrap();
    }
    let written = t.elapsed();
    let expected = before + sources.len();
    match wait_for(&worker.updates, |s| s.documents >= expected) {
        Some(done) => {
            let took = done - t;
            let rate = sources.len() as f64 / took.as_secs_f64();
            println!(
                "bulk drop of {} {kind} (written in {:.1} s): indexed in {:.1} s = {rate:.0} docs/s, {:.0} % of the initial scan's rate{}",
                sources.len(),
                written.as_secs_f64(),
                took.as_secs_f64(),
                100.0 * rate / scan_rate,
                tail_rate.map_or(String::new(), |t| format!(
                    ", {:.0} % of its rate over its last files",
                    100.0 * rate / t
                ))
            );
        }
        None => println!("watch: the bulk drop was never fully indexed"),
    }

    let t = Instant::now();
    let _ = std::fs::remove_dir_all(&drop_dir);
    if let Some(done) = wait_for(&worker.updates, |s| s.documents <= base) {
        println!(
            "removing the dropped folder ({} files): clusters updated in {:.1} s",
            expected - base,
            (done - t).as_secs_f64()
        );
    }

    // The same texts moved in as one folder (staged beside the watched
    // folder, on the same file system), so writing them costs nothing here.
    let stage = dir
        .parent()
        .unwrap_or(&dir)
        .join(format!("zz-watch-stage-{}", std::process::id()));
    std::fs::create_dir_all(&stage).unwrap();
    for (i, source) in sources.iter().enumerate() {
        std::fs::copy(source, stage.join(format!("m-{i:05}.txt"))).unwrap();
    }
    let moved = dir.join("zz-watch-moved");
    let t = Instant::now();
    std::fs::rename(&stage, &moved).unwrap();
    let expected = base + sources.len();
    match wait_for(&worker.updates, |s| s.documents >= expected) {
        Some(done) => {
            let rate = sources.len() as f64 / (done - t).as_secs_f64();
            println!(
                "bulk drop of the same {} files moved in as a folder: indexed in {:.1} s = {rate:.0} docs/s, {:.0} % of the initial scan's rate",
                sources.len(),
                (done - t).as_secs_f64(),
                100.0 * rate / scan_rate
            );
        }
        None => println!("watch: the moved folder was never fully indexed"),
    }
    let _ = std::fs::remove_dir_all(&moved);
    let _ = wait_for(&worker.updates, |s| s.documents <= base);
    let _ = worker.commands.send(Command::Quit);
    worker.join();
    let _ = std::fs::remove_dir_all(&state);
}
