//! `fusion` counts families of evidence, not algorithms: two long texts of
//! one register (word-bigram samples of one novel, no passage in common)
//! that the SimHash variants all pass are not duplicates, since vocabulary
//! alone is one family's vote.

use std::collections::HashMap;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, Family};

/// Emma, from the tests' books in the repository.
fn emma() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/corpus/austen/emma.txt"
    );
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A deterministic splitmix64 stream (the test's only randomness).
struct Splitmix(u64);

impl Splitmix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `words` words of a word-bigram walk over `source` (each next word drawn
/// from the words that follow the current one there), from `seed`.
fn bigram_text(source: &str, words: usize, seed: u64) -> String {
    let tokens: Vec<&str> = source.split_whitespace().collect();
    let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
    for pair in tokens.windows(2) {
        next.entry(pair[0]).or_default().push(pair[1]);
    }
    let mut rng = Splitmix(seed);
    let mut word = tokens[(rng.next() % tokens.len() as u64) as usize];
    let mut out = String::new();
    for i in 0..words {
        out.push_str(word);
        out.push(if i % 12 == 11 { '\n' } else { ' ' });
        word = match next.get(word) {
            Some(v) => v[(rng.next() % v.len() as u64) as usize],
            None => tokens[(rng.next() % tokens.len() as u64) as usize],
        };
    }
    out
}

#[test]
fn vocabulary_alone_does_not_make_two_long_texts_duplicates() {
    let source = emma();
    // ~80,000 words (~450 KB) each, like the synthetic books.
    let (a, b) = (
        bigram_text(&source, 80_000, 1),
        bigram_text(&source, 80_000, 2),
    );
    let engine = Engine::default();
    let weights = engine.reference_weights();
    let prepare = |text: &str| {
        let analysis = engine.analyze(text);
        let fingerprints = engine.fingerprint(&analysis, weights).unwrap();
        let shingles = engine.shingle_count(&analysis, &fingerprints);
        (fingerprints, shingles)
    };
    let ((fa, sa), (fb, sb)) = (prepare(&a), prepare(&b));
    let scores = engine.compare(&fa, &fb);
    let verdict = engine.verdict(&scores, sa.min(sb));

    // The SimHash variants converge on the shared register: at least two
    // of them pass, which counted as two votes (a duplicate) before.
    let vocabulary: Vec<AlgorithmId> = verdict
        .passing
        .iter()
        .copied()
        .filter(|&id| Family::of(id) == Family::Vocabulary)
        .collect();
    assert!(vocabulary.len() >= 2, "{scores:?}");
    // No passage in common.
    let jaccard = scores[&AlgorithmId::Shingle].value().unwrap();
    assert!(jaccard < 0.05, "shingle Jaccard {jaccard}");
    assert!(
        !verdict
            .passing
            .iter()
            .any(|&id| Family::of(id) == Family::Passages),
        "{:?}",
        verdict.passing
    );
    assert!(!verdict.fusion, "vocabulary alone: {:?}", verdict.passing);
    assert!(!verdict.contained);
}

#[test]
fn shared_passages_with_vocabulary_still_make_a_duplicate() {
    let source = emma();
    // The same long text with every 20th word replaced: passages and
    // vocabulary both agree.
    let a = bigram_text(&source, 80_000, 3);
    let b: String = a
        .split_whitespace()
        .enumerate()
        .map(|(i, w)| if i % 20 == 7 { "zebra" } else { w })
        .collect::<Vec<_>>()
        .join(" ");
    let engine = Engine::default();
    let weights = engine.reference_weights();
    let prepare = |text: &str| {
        let analysis = engine.analyze(text);
        let fingerprints = engine.fingerprint(&analysis, weights).unwrap();
        let shingles = engine.shingle_count(&analysis, &fingerprints);
        (fingerprints, shingles)
    };
    let ((fa, sa), (fb, sb)) = (prepare(&a), prepare(&b));
    let verdict = engine.verdict(&engine.compare(&fa, &fb), sa.min(sb));
    assert!(verdict.passing.contains(&AlgorithmId::Shingle));
    assert!(verdict.fusion, "{:?}", verdict.passing);
}
