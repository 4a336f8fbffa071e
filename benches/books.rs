//! Whole books, one-shot: a `--no-index` scan of a folder of long texts,
//! with throughput (MB/s), wall and CPU seconds, peak memory, and the
//! pairs compared in full against the true ones.
//!
//! The corpus: `benches/make_scale_corpus.py DIR/docs --books 800` writes
//! 800 books of ~480 KB (120 consecutive generated texts each), a 2 %-noised
//! copy of every tenth, and `DIR/truth.tsv` (copy, source, rate):
//!
//!     python3 benches/make_scale_corpus.py target/books880/docs --books 800
//!     DOPPEL_BOOKS_DIR=target/books880/docs cargo bench --bench books
//!
//! `DOPPEL_BOOKS_DIR` defaults to `target/books/docs`; a missing folder
//! prints a note and measures nothing. One run (a scan of 400 MB is long
//! enough to time once); run it on a quiet machine.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::Engine;
use doppel_index::scan::scan_folder;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

/// A field of `/proc/self/status` in KiB, as MiB.
fn status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// User + system CPU seconds of this process so far (`/proc/self/stat`,
/// clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The true pairs of `truth.tsv` (copy, source), each sorted.
fn truth(path: &Path) -> BTreeSet<(String, String)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeSet::new();
    };
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let mut cols = line.split('\t');
            let (a, b) = (
                format!("{}.txt", cols.next()?),
                format!("{}.txt", cols.next()?),
            );
            Some(if a < b { (a, b) } else { (b, a) })
        })
        .collect()
}

fn main() {
    let dir = std::env::var_os("DOPPEL_BOOKS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/books/docs"))
        });
    if !dir.is_dir() {
        println!(
            "books: no corpus at {} (make one with benches/make_scale_corpus.py --books 800); nothing measured",
            dir.display()
        );
        return;
    }
    let truth = truth(&dir.join("../truth.tsv"));
    let engine = Engine::default();
    let spec = ClusterSpec::from_engine(&engine);
    let (started, cpu_before) = (Instant::now(), cpu_seconds().unwrap_or(0.0));
    let report = scan_folder(
        &dir,
        &engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        spec,
    )
    .expect("scan");
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds().unwrap_or(0.0) - cpu_before;
    let bytes: u64 = report.docs.iter().map(|d| d.bytes).sum();
    let pairs = report.pairs();
    let found: BTreeSet<(String, String)> = pairs
        .iter()
        .filter(|p| p.verdict.fusion)
        .map(|p| {
            let (a, b) = (p.a.to_string(), p.b.to_string());
            if a < b {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect();
    let hits = found.intersection(&truth).count();
    println!(
        "books: {} documents, {:.1} MB in {wall:.1} s wall, {cpu:.1} s CPU = {:.1} MB/s; peak RSS {:.0} MiB",
        report.docs.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / wall,
        status_mib("VmHWM:").unwrap_or(f64::NAN),
    );
    let proposed = report.library.proposed();
    let by: Vec<String> = AlgorithmId::ALL
        .into_iter()
        .filter(|&algo| proposed.by(algo) > 0)
        .map(|algo| format!("{algo} {}", proposed.by(algo)))
        .collect();
    println!(
        "books: {} candidates proposed ({:.1} a document; by index: {})",
        proposed.total,
        proposed.total as f64 / report.docs.len().max(1) as f64,
        by.join(", "),
    );
    println!(
        "books: {} pairs compared in full, {} kept, {} fusion duplicates; {} true pairs, {hits} found ({:.1} compared per true pair)",
        report.library.compared(),
        pairs.len(),
        found.len(),
        truth.len(),
        report.library.compared() as f64 / truth.len().max(1) as f64,
    );
}
