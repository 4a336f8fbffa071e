//! Learning a collection's boilerplate at once (`learn_at_once`), as a
//! fresh scan does after its last file: a generated collection shaped as
//! the 110k-text scale corpus (about 90 samples a text), 40 % of the texts
//! ending in one of eight licences and a tenth of them sharing their body
//! with another. Measured on the rayon pool the process has
//! (`RAYON_NUM_THREADS=1` for one core).
//!
//! `cargo bench -p doppel-pairing --bench learn`; `DOPPEL_BENCH_TEXTS`
//! sets the number of texts (default 110,000).

#![allow(missing_docs)] // criterion_main! makes an undocumented `main`

use std::collections::BTreeSet;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use doppel_pairing::boilerplate::{learn_at_once, BoilerplateConfig, DocSamples, Sample};

/// splitmix64: the same collection on every run.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn collection(texts: usize) -> Vec<(u32, DocSamples)> {
    let mut state = 7;
    let licences: Vec<Vec<u32>> = (0..8)
        .map(|_| (0..30).map(|_| next(&mut state) as u32).collect())
        .collect();
    let mut bodies: Vec<Vec<u32>> = Vec::with_capacity(texts);
    (0..texts as u32)
        .map(|id| {
            let r = next(&mut state);
            let body: Vec<u32> = if r.is_multiple_of(10) && !bodies.is_empty() {
                bodies[(r >> 8) as usize % bodies.len()].clone()
            } else {
                (0..60 + r % 60).map(|_| next(&mut state) as u32).collect()
            };
            bodies.push(body.clone());
            let mut hashes = body;
            if r % 10 < 4 {
                hashes.extend(&licences[(r >> 4) as usize % 8]);
            }
            let samples: Vec<Sample> = hashes
                .iter()
                .enumerate()
                .map(|(i, &hash)| Sample {
                    hash,
                    word: i as u32 * 8,
                })
                .collect();
            let words = samples.len() as u32 * 8 + 4;
            (id, DocSamples { samples, words })
        })
        .collect()
}

fn learning(c: &mut Criterion) {
    let texts = std::env::var("DOPPEL_BENCH_TEXTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(110_000);
    let docs = collection(texts);
    let config = BoilerplateConfig::default();
    let none = BTreeSet::new();
    let learned = learn_at_once(&docs, &none, &none, &config);
    assert_eq!(learned.learned.len(), 8 * 30, "the eight licences, whole");
    let mut group = c.benchmark_group("learn_at_once");
    group.sample_size(10);
    group.throughput(Throughput::Elements(texts as u64));
    group.bench_function(format!("{texts} texts"), |b| {
        b.iter(|| learn_at_once(&docs, &none, &none, &config).spans.len())
    });
    group.finish();
}

criterion_group!(benches, learning);
criterion_main!(benches);
