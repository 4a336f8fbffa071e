//! Gathering one document's candidates from a large library's tables: its
//! ~250 keys looked up in the shared table (most lists hold only the
//! document itself), the documents found tallied by algorithm.
//!
//! The library is 20,000 generated texts of ~600 words drawn from a
//! 6,000-word vocabulary, every fifth an edited copy of the one before (so
//! some lists hold two), filed with every algorithm's keys; the bench
//! gathers the candidates of 2,000 of them on one thread. The table is far
//! larger than the caches, as in a real library, so this measures the
//! lookups' memory traffic as much as their arithmetic.
//!
//! Run with `cargo bench --bench candidates`.

// criterion_main! defines `main` without a doc comment.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use doppel_core::doc::DocId;
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, EngineConfig, Fingerprints};
use doppel_core::hash::SplitMix64;
use doppel_pairing::candidates::{CandidateConfig, CandidateTables};
use rayon::prelude::*;

const DOCS: usize = 20_000;
const WORDS: usize = 600;
const VOCABULARY: u64 = 6_000;
const QUERIES: usize = 2_000;

/// Document `i`'s text: random words, or (every fifth) the text before
/// with a few words changed.
fn texts() -> Vec<String> {
    let mut rng = SplitMix64::new(16);
    let mut words: Vec<Vec<u64>> = Vec::with_capacity(DOCS);
    for i in 0..DOCS {
        let doc = if i % 5 == 4 {
            let mut copy = words[i - 1].clone();
            for _ in 0..8 {
                let at = rng.below(WORDS as u64) as usize;
                copy[at] = rng.below(VOCABULARY);
            }
            copy
        } else {
            // Squaring skews the draw towards common words, as in prose.
            (0..WORDS)
                .map(|_| {
                    let r = rng.below(VOCABULARY);
                    r * r / VOCABULARY
                })
                .collect()
        };
        words.push(doc);
    }
    words
        .iter()
        .map(|doc| {
            doc.iter()
                .map(|w| format!("w{w:x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn bench_candidates(c: &mut Criterion) {
    let engine = Engine::new(EngineConfig::default());
    let prints: Vec<Fingerprints> = texts()
        .par_iter()
        .map(|text| {
            engine
                .fingerprint(&engine.analyze(text), engine.reference_weights())
                .unwrap()
        })
        .collect();
    let a = &engine.config().algorithms;
    let mut tables = CandidateTables::new(
        CandidateConfig::default(),
        a.minhash.num_perm,
        0.5,
        &[
            (AlgorithmId::Simhash, a.simhash.bits),
            (AlgorithmId::SimhashShingle, a.simhash_shingle.bits),
            (AlgorithmId::SimhashLexicons, a.simhash_lexicons.bits),
        ],
    );
    let docs: Vec<(DocId, &Fingerprints)> = prints
        .iter()
        .enumerate()
        .map(|(i, f)| (i as DocId, f))
        .collect();
    tables.insert_many(&docs);
    // Spread over the library, so no query warms the next one's lines.
    let queries: Vec<(DocId, &Fingerprints)> =
        docs.iter().step_by(DOCS / QUERIES).copied().collect();
    let mut group = c.benchmark_group("candidates");
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.sample_size(20);
    group.bench_function("gather 2,000 of 20,000 documents", |b| {
        b.iter(|| {
            let mut proposed = 0;
            for &(id, f) in &queries {
                proposed += tables
                    .candidates_among(id, f, DocId::MAX, &|_| true)
                    .0
                    .len();
            }
            black_box(proposed)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_candidates);
criterion_main!(benches);
