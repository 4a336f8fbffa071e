//! Whole books: two long texts of one register have alike vocabularies
//! (their SimHashes fall within the floor) and sizes (SI proposes them)
//! without sharing a sentence. Such a pair is neither compared in full nor
//! kept, so the work of verifying
//! follows the true pairs, not the documents' length; a long copy and a
//! chapter inside a book still pair, and short texts alike in vocabulary
//! still pair by SimHash. At any length SI's nearness in size alone
//! compares nothing. The folder index counts the shingles that make a
//! text long wherever a rule reads them, and only there.

mod common;

use doppel_core::doc::DocPath;
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::relation::Relation;
use doppel_core::engine::{Engine, Fingerprints};
use doppel_core::hash::SplitMix64;
use doppel_pairing::candidates::{CandidateConfig, SimhashBanding, LONG_DOCUMENT_SHINGLES};
use doppel_pairing::library::{Library, LibraryConfig, NoPrints};

/// A made-up vocabulary of 400 five-letter words.
fn vocabulary() -> Vec<String> {
    let mut rng = SplitMix64::new(11);
    (0..400)
        .map(|_| {
            (0..5)
                .map(|_| char::from(b'a' + rng.below(26) as u8))
                .collect()
        })
        .collect()
}

/// `n` words drawn uniformly from the vocabulary: texts of one register
/// (the same word frequencies) that share almost no 4-word shingle.
fn register_text(seed: u64, n: usize) -> Vec<String> {
    let vocabulary = vocabulary();
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| vocabulary[rng.below(vocabulary.len() as u64) as usize].clone())
        .collect()
}

/// `words` with about `rate` of them replaced by other words.
fn noised(words: &[String], rate: f64, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64::new(seed);
    let other = register_text(seed ^ 0xff, words.len());
    words
        .iter()
        .zip(other)
        .map(|(w, o)| {
            if (rng.below(10_000) as f64) < rate * 10_000.0 {
                o
            } else {
                w.clone()
            }
        })
        .collect()
}

fn print(engine: &Engine, name: &str, words: &[String]) -> (DocPath, Fingerprints, usize) {
    let (prints, shingles) = common::library_prints(engine, &words.join(" "));
    (DocPath::from(name), prints, shingles)
}

fn library_of(
    engine: &Engine,
    candidates: CandidateConfig,
    docs: Vec<(DocPath, Fingerprints, usize)>,
) -> Library {
    let mut library = Library::new(
        engine,
        LibraryConfig {
            candidates,
            ..LibraryConfig::default()
        },
    );
    let Ok(()) = library.extend(engine, docs, &NoPrints);
    library
}

/// SI off (it proposes every document's nearest in size, whatever the
/// text), and SimHash banded so that every pair within its floor is
/// proposed.
fn without_si() -> CandidateConfig {
    CandidateConfig {
        si_cap: 0,
        simhash_banding: SimhashBanding::Pigeonhole { max_distance: 12 },
        ..CandidateConfig::default()
    }
}

/// Two texts of `words` words each, alike in vocabulary only: whether
/// their SimHash passes its floor and how much shingle resemblance they
/// have (the preconditions the tests below rely on).
fn alike_in_vocabulary(engine: &Engine, words: usize) -> Vec<(DocPath, Fingerprints, usize)> {
    let a = print(engine, "a.txt", &register_text(1, words));
    let b = print(engine, "b.txt", &register_text(2, words));
    let scores = engine.compare(&a.1, &b.1);
    let floors = LibraryConfig::default().floors;
    assert!(
        scores[&AlgorithmId::Simhash].passes(floors.get(AlgorithmId::Simhash)),
        "the texts' vocabularies are alike: {:?}",
        scores[&AlgorithmId::Simhash]
    );
    let resemblance = scores[&AlgorithmId::Shingle].value().unwrap_or(0.0);
    assert!(resemblance < 0.05, "they share no passage: {resemblance}");
    vec![a, b]
}

#[test]
fn long_texts_alike_only_in_vocabulary_are_neither_compared_nor_kept() {
    let engine = Engine::default();
    let docs = alike_in_vocabulary(&engine, 15_000);
    assert!(docs.iter().all(|d| d.2 >= LONG_DOCUMENT_SHINGLES));
    let library = library_of(&engine, without_si(), docs.clone());
    assert_eq!(library.compared(), 0, "no full comparison");
    assert_eq!(library.pair_count(), 0, "no pair kept");
    // SI on proposes them (they are the same size), but they share no
    // sampled k-gram: still neither compared nor kept.
    let library = library_of(&engine, CandidateConfig::default(), docs);
    assert_eq!(
        library.compared(),
        0,
        "SI's nearness alone compares nothing"
    );
    assert_eq!(library.pair_count(), 0, "vocabulary alone keeps no pair");
}

#[test]
fn short_texts_alike_in_vocabulary_still_pair_by_simhash() {
    let engine = Engine::default();
    let docs = alike_in_vocabulary(&engine, 1_500);
    assert!(docs.iter().all(|d| d.2 < LONG_DOCUMENT_SHINGLES));
    let library = library_of(&engine, without_si(), docs);
    assert_eq!(library.compared(), 1);
    assert_eq!(library.pair_count(), 1, "simhash keeps the short pair");
}

#[test]
fn short_texts_only_near_in_size_are_not_compared() {
    // Two short texts of one size in different vocabularies (every word of
    // the second spelled backwards): SI proposes each to the other, its
    // nearest in size, but they share no sampled k-gram and nothing else
    // is near, so no pair is compared in full.
    let engine = Engine::default();
    let backwards: Vec<String> = register_text(2, 1_500)
        .iter()
        .map(|w| w.chars().rev().collect())
        .collect();
    let docs = vec![
        print(&engine, "a.txt", &register_text(1, 1_500)),
        print(&engine, "b.txt", &backwards),
    ];
    let scores = engine.compare(&docs[0].1, &docs[1].1);
    let floors = LibraryConfig::default().floors;
    assert_eq!(scores[&AlgorithmId::Si].value(), Some(0.0), "SI unverified");
    assert!(!scores[&AlgorithmId::Simhash].passes(floors.get(AlgorithmId::Simhash)));
    let library = library_of(&engine, CandidateConfig::default(), docs);
    assert_eq!(
        library.compared(),
        0,
        "SI's nearness alone compares nothing"
    );
    assert_eq!(library.pair_count(), 0);
}

#[test]
fn a_long_copy_and_a_chapter_inside_a_long_text_still_pair() {
    let engine = Engine::default();
    let book = register_text(3, 15_000);
    let docs = vec![
        print(&engine, "book.txt", &book),
        print(&engine, "copy.txt", &noised(&book, 0.02, 4)),
        print(&engine, "chapter.txt", &book[6_000..6_800]),
        print(&engine, "other.txt", &register_text(5, 15_000)),
    ];
    assert!(docs[2].2 < LONG_DOCUMENT_SHINGLES && docs[3].2 >= LONG_DOCUMENT_SHINGLES);
    let library = library_of(&engine, without_si(), docs);
    // Each kept pair by its two names (sorted), with its fused relation.
    let pairs: Vec<([String; 2], Option<Relation>)> = library
        .pairs()
        .map(|(a, b, scores)| {
            let (da, db) = (library.doc(a).unwrap(), library.doc(b).unwrap());
            let verdict = engine.verdict(&scores, da.shingles.min(db.shingles));
            assert!(verdict.fusion, "{} ~ {}", da.path, db.path);
            let mut names = [da.path.to_string(), db.path.to_string()];
            names.sort();
            (names, verdict.relation)
        })
        .collect();
    let names: Vec<&[String; 2]> = pairs.iter().map(|(names, _)| names).collect();
    assert!(
        names.iter().all(|n| n[1] != "other.txt"),
        "the other book, alike in vocabulary only, pairs with none: {names:?}"
    );
    assert!(
        names
            .iter()
            .any(|n| n[0] == "book.txt" && n[1] == "copy.txt"),
        "{names:?}"
    );
    let chapter = pairs
        .iter()
        .find(|(n, _)| n[0] == "book.txt" && n[1] == "chapter.txt")
        .and_then(|(_, relation)| *relation);
    assert!(
        matches!(chapter, Some(Relation::Contains { .. })),
        "the chapter is a part of the book: {chapter:?}"
    );
}

/// The folder index over `files`, with only `enabled` computed and SI's
/// proposals off: each document's stored shingle count, and the pairs kept.
fn indexed_with(files: &[(&str, Vec<String>)], enabled: &[AlgorithmId]) -> (Vec<usize>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    std::fs::create_dir(&folder).unwrap();
    for (name, words) in files {
        std::fs::write(folder.join(name), words.join(" ")).unwrap();
    }
    let config = doppel_core::engine::EngineConfig {
        enabled: enabled.iter().copied().collect(),
        ..Default::default()
    };
    let library = LibraryConfig {
        candidates: without_si(),
        ..LibraryConfig::default()
    };
    let (mut index, _) = doppel_index::index::FolderIndex::open(
        &folder,
        Engine::new(config),
        library,
        Some(&dir.path().join("index.sqlite")),
    )
    .unwrap();
    index.reconcile().unwrap();
    let lib = index.library();
    let counts = files
        .iter()
        .map(|(name, _)| {
            let id = lib.id_of(&DocPath::from(*name)).expect("indexed");
            lib.doc(id).unwrap().shingles
        })
        .collect();
    (counts, lib.pair_count())
}

/// The index counts a document's distinct shingles where a rule reads
/// them. Without `shingle`, two long books alike only in vocabulary,
/// indexed with `minhash` and `simhash`, are still long: SimHash alone
/// keeps no pair. With `minhash` alone nothing reads the count, and it is
/// not taken.
#[test]
fn the_index_counts_shingles_where_a_rule_reads_them() {
    let books = [
        ("a.txt", register_text(1, 15_000)),
        ("b.txt", register_text(2, 15_000)),
    ];
    let (counts, pairs) = indexed_with(&books, &[AlgorithmId::Minhash, AlgorithmId::Simhash]);
    assert!(
        counts.iter().all(|&c| c >= LONG_DOCUMENT_SHINGLES),
        "{counts:?}"
    );
    assert_eq!(pairs, 0, "vocabulary alone keeps no pair of long books");
    let (counts, _) = indexed_with(&books, &[AlgorithmId::Minhash]);
    assert_eq!(counts, vec![0, 0], "nothing reads it: not counted");
}
