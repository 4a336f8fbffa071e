//! Throughput of the whole fingerprint pipeline on ~4 KB texts.
//!
//! The texts are cut (deterministically, on whitespace boundaries) from the
//! public-domain books under `DOPPEL_CORPUS` (for instance the workplace's
//! `shared/corpus/`), else the repository's `tests/data/corpus/` — a mix of
//! the King James Bible, Jane Austen, Moby-Dick, State of the Union
//! addresses and the misc collection — the size of the texts in the Fan &
//! Huang experiments.
//!
//! Everything runs on the bench thread (no rayon), so the MB/s criterion
//! prints is a per-core figure.
//!
//! Note on caching: `Analyzer` caches each distinct word's analysis (term
//! hash, stop-word flag, Soundex) in a thread-local map. After the first
//! pass over the texts (criterion's warm-up) nearly every word is a cache
//! hit. That is realistic rather than flattering: a library's vocabulary is
//! Zipfian, so in a real scan the cache also answers almost every lookup
//! after the first few documents.
//!
//! Run with `cargo bench --bench pipeline`.

// criterion_main! defines `main` without a doc comment.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, EngineConfig, Fingerprints};

/// Number of texts to cut (fewer when the fallback corpus is too small).
const TEXTS: usize = 500;
/// Target size of one text in bytes (each ends at the next whitespace).
const TEXT_BYTES: usize = 4096;
/// Pairs scored by the `compare_all` benchmark.
const PAIRS: usize = 1000;

/// Collections mixed into the bench texts, in this order; each is the first
/// of its folder names that exists (the sample corpus calls the KJV `bible`).
const COLLECTIONS: [&[&str]; 5] = [
    &["kjv", "bible"],
    &["austen"],
    &["moby"],
    &["sotu"],
    &["misc"],
];

/// The books to fingerprint: `DOPPEL_CORPUS` (for instance the
/// workplace's `shared/corpus`), else the repository's `tests/data/corpus`.
fn corpus_root() -> PathBuf {
    std::env::var_os("DOPPEL_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus"))
}

/// Every UTF-8 `.txt` file under `dir`, recursively, in sorted path order.
fn text_files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "txt") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(dir, &mut paths);
    paths.sort();
    paths
        .iter()
        // Non-UTF-8 files (the sample corpus's other encodings) are skipped.
        .filter_map(|p| String::from_utf8(std::fs::read(p).ok()?).ok())
        .collect()
}

/// Cuts `text` into pieces of `TEXT_BYTES` bytes extended to the next
/// whitespace; a trailing piece shorter than half that is dropped.
fn cut(text: &str, out: &mut Vec<String>) {
    let bytes = text.as_bytes();
    let mut start = 0;
    loop {
        // Skip whitespace so each piece starts on a word (and a char boundary).
        while start < bytes.len() && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        if bytes.len() - start < TEXT_BYTES / 2 {
            return;
        }
        let mut end = (start + TEXT_BYTES).min(bytes.len());
        // ASCII whitespace is never inside a multi-byte UTF-8 sequence.
        while end < bytes.len() && !bytes[end].is_ascii_whitespace() {
            end += 1;
        }
        out.push(text[start..end].to_owned());
        start = end;
    }
}

/// About `TEXTS` texts of ~4 KB, an equal share from each collection, taken
/// evenly spaced through the collection so every book part contributes.
fn bench_texts() -> Vec<String> {
    let root = corpus_root();
    let share = TEXTS / COLLECTIONS.len();
    let mut per_collection: Vec<Vec<String>> = COLLECTIONS
        .iter()
        .map(|names| {
            let mut pieces = Vec::new();
            let Some(dir) = names.iter().map(|n| root.join(n)).find(|d| d.is_dir()) else {
                return pieces;
            };
            for text in text_files(&dir) {
                cut(&text, &mut pieces);
            }
            if pieces.len() > share {
                let step = pieces.len() as f64 / share as f64;
                pieces = (0..share)
                    .map(|i| std::mem::take(&mut pieces[(i as f64 * step) as usize]))
                    .collect();
            }
            pieces
        })
        .collect();
    if per_collection.iter().all(Vec::is_empty) {
        // A fallback layout without these folders: use whatever is there.
        let mut pieces = Vec::new();
        for text in text_files(&root) {
            cut(&text, &mut pieces);
        }
        per_collection = vec![pieces];
    }
    // Interleave the collections so no benchmark sees one style in a block.
    let mut texts = Vec::new();
    let longest = per_collection.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for pieces in &mut per_collection {
            if let Some(piece) = pieces.get_mut(i) {
                texts.push(std::mem::take(piece));
            }
        }
    }
    texts.truncate(TEXTS);
    assert!(
        !texts.is_empty(),
        "pipeline bench: no texts in {}",
        root.display()
    );
    texts
}

fn configure(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
}

/// Analyze + fingerprint every text with `engine`.
fn fingerprint_all(engine: &Engine, texts: &[String]) {
    for text in texts {
        let analysis = engine.analyze(black_box(text));
        black_box(
            engine
                .fingerprint(&analysis, engine.reference_weights())
                .unwrap(),
        );
    }
}

fn pipeline(c: &mut Criterion) {
    let texts = bench_texts();
    let total_bytes: u64 = texts.iter().map(|t| t.len() as u64).sum();
    eprintln!(
        "pipeline bench: {} texts, {} bytes (mean {} bytes)",
        texts.len(),
        total_bytes,
        total_bytes / texts.len() as u64
    );

    let mut group = c.benchmark_group("pipeline");
    configure(&mut group);
    group.throughput(Throughput::Bytes(total_bytes));

    // 1. The shared text pass alone: normalize, tokenize, stem, Soundex.
    let engine = Engine::default();
    group.bench_function("analyze", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(engine.analyze(black_box(text)));
            }
        })
    });

    // 2. Analyze + one algorithm. (Supershingle also computes the MinHash
    //    sketch it is derived from.)
    for id in AlgorithmId::ALL {
        let engine = Engine::new(EngineConfig {
            enabled: [id].into_iter().collect(),
            ..Default::default()
        });
        group.bench_function(id.as_str(), |b| b.iter(|| fingerprint_all(&engine, &texts)));
    }

    // 3. Analyze + every algorithm (the default configuration).
    group.bench_function("all", |b| b.iter(|| fingerprint_all(&engine, &texts)));
    group.finish();

    // 4. Scoring pairs of precomputed fingerprints with every algorithm.
    let fingerprints: Vec<Fingerprints> = texts
        .iter()
        .map(|t| {
            engine
                .fingerprint(&engine.analyze(t), engine.reference_weights())
                .unwrap()
        })
        .collect();
    let n = fingerprints.len();
    let pairs: Vec<(usize, usize)> = (0..PAIRS)
        .map(|i| {
            let a = i % n;
            // Alternate texts of the same collection (the texts interleave
            // five collections) with unrelated far-apart ones.
            let b = if i % 2 == 0 {
                (a + COLLECTIONS.len()) % n
            } else {
                (a * 7 + n / 2) % n
            };
            (a, b)
        })
        .collect();
    let mut group = c.benchmark_group("compare");
    configure(&mut group);
    group.throughput(Throughput::Elements(PAIRS as u64));
    group.bench_function("compare_all", |b| {
        b.iter(|| {
            for &(x, y) in &pairs {
                black_box(engine.compare(&fingerprints[x], &fingerprints[y]));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
