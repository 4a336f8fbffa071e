//! Properties of the estimators and scores, checked on random documents.

use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::measure::{jaccard, shingle_set};
use doppel_core::engine::{Engine, EngineConfig};
use proptest::prelude::*;
use std::sync::LazyLock;

/// Built once: parsing the reference IDF table per case would dominate.
static ENGINE: LazyLock<Engine> = LazyLock::new(Engine::default);

/// A small vocabulary so random documents share shingles often enough to
/// cover the whole range of resemblance.
const VOCABULARY: [&str; 24] = [
    "whale", "ship", "sea", "captain", "harpoon", "ocean", "storm", "sailor", "deck", "mast",
    "wind", "wave", "island", "shore", "boat", "crew", "voyage", "anchor", "rope", "sail", "night",
    "moon", "star", "fish",
];

fn text_from(words: &[usize]) -> String {
    words
        .iter()
        .map(|&i| VOCABULARY[i % VOCABULARY.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A base document and an edited copy (each word replaced with probability
/// `edit`), so pairs span resemblances from 0 to 1.
fn doc_pair() -> impl Strategy<Value = (String, String)> {
    (
        prop::collection::vec(0usize..24, 30..400),
        0.0f64..1.0,
        any::<u64>(),
    )
        .prop_map(|(base, edit, seed)| {
            let mut rng = doppel_core::hash::SplitMix64::new(seed);
            let edited: Vec<usize> = base
                .iter()
                .map(|&w| {
                    if rng.next_f64() < edit {
                        rng.below(24) as usize
                    } else {
                        w
                    }
                })
                .collect();
            (text_from(&base), text_from(&edited))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn minhash_estimate_is_within_four_sigma_of_exact_jaccard((a, b) in doc_pair()) {
        let engine = &*ENGINE;
        let (da, db) = (engine.analyze(&a), engine.analyze(&b));
        let w = engine.config().algorithms.shingle.w;
        let seed = engine.config().algorithms.shingle.seed;
        let (sa, sb) = (shingle_set(&da, w, seed), shingle_set(&db, w, seed));
        let exact = jaccard(&sa, &sb);
        let union = doppel_core::engine::measure::union_len(&sa, &sb) as f64;
        let weights = engine.reference_weights();
        let scores = engine.compare(&engine.fingerprint(&da, weights).unwrap(), &engine.fingerprint(&db, weights).unwrap());
        let Score::Similarity { value: estimate } = scores[&AlgorithmId::Minhash] else {
            panic!("minhash gives a similarity");
        };
        let k = engine.config().algorithms.minhash.num_perm as f64;
        // One-permutation hashing has one independent sample per bin that the
        // union fills, k(1 − (1 − 1/k)^|A ∪ B|) of them; densified empty bins
        // repeat those. For documents (|A ∪ B| ≫ k) this is k.
        let samples = k * (1.0 - (1.0 - 1.0 / k).powf(union));
        let sigma = (exact * (1.0 - exact) / samples).sqrt();
        // A floor of 1/k: at J = 0 or 1 the bound must still allow one bin of slack.
        prop_assert!((estimate - exact).abs() <= 4.0 * sigma + 1.0 / k,
            "estimate {estimate} vs exact {exact} (sigma {sigma}, union {union})");
    }

    #[test]
    fn every_score_is_symmetric_in_range_and_never_nan((a, b) in doc_pair()) {
        let engine = &*ENGINE;
        let weights = engine.reference_weights();
        let fa = engine.fingerprint(&engine.analyze(&a), weights).unwrap();
        let fb = engine.fingerprint(&engine.analyze(&b), weights).unwrap();
        let ab = engine.compare(&fa, &fb);
        let ba = engine.compare(&fb, &fa);
        prop_assert_eq!(ab.len(), AlgorithmId::ALL.len());
        for (id, score) in &ab {
            prop_assert_eq!(score.swapped(), ba[id], "{} is not symmetric", id);
            let s = score.similarity();
            prop_assert!((0.0..=1.0).contains(&s), "{} similarity {} out of range", id, s);
            if let Some(v) = score.value() {
                prop_assert!(!v.is_nan(), "{} is NaN", id);
            }
        }
    }

    #[test]
    fn a_document_scores_maximal_against_itself(words in prop::collection::vec(0usize..24, 60..400)) {
        let engine = &*ENGINE;
        let weights = engine.reference_weights();
        let f = engine.fingerprint(&engine.analyze(&text_from(&words)), weights).unwrap();
        for (id, score) in engine.compare(&f, &f) {
            match score {
                // SI needs a sketch: a short document may sample no k-gram.
                Score::Incomparable => prop_assert!(id == AlgorithmId::Si || id == AlgorithmId::Imatch || id == AlgorithmId::ImatchLexicons,
                    "{} incomparable with itself", id),
                Score::Hamming { distance, .. } => prop_assert_eq!(distance, 0, "{}", id),
                other => prop_assert_eq!(other.similarity(), 1.0, "{} = {:?}", id, other),
            }
        }
    }
}

#[test]
fn an_empty_document_matches_nothing_and_yields_no_nan() {
    let engine = Engine::new(EngineConfig::default());
    let weights = engine.reference_weights();
    let empty = engine.fingerprint(&engine.analyze(""), weights).unwrap();
    let blank = engine
        .fingerprint(&engine.analyze("  \n\t, ; !"), weights)
        .unwrap();
    let text = engine
        .fingerprint(
            &engine.analyze(&text_from(&(0..200).collect::<Vec<_>>())),
            weights,
        )
        .unwrap();
    for other in [&empty, &blank, &text] {
        for (id, score) in engine.compare(&empty, other) {
            assert_eq!(score, Score::Incomparable, "{id}: {score:?}");
            assert!(!score.passes(engine.config().thresholds.get(id)));
            assert_eq!(score.similarity(), 0.0);
        }
    }
}

#[test]
fn stemming_and_stop_words_change_what_they_should() {
    let engine = &*ENGINE;
    let weights = engine.reference_weights();
    // Same content words, different inflections and function words.
    let a = engine.analyze("The sailors were hunting the whales across the stormy seas");
    let b = engine.analyze("A sailor hunts whale across stormy sea");
    assert_ne!(a.words, b.words, "the raw word streams differ");
    assert_eq!(a.terms, b.terms, "stemmed content terms are equal");
    let scores = engine.compare(
        &engine.fingerprint(&a, weights).unwrap(),
        &engine.fingerprint(&b, weights).unwrap(),
    );
    assert_eq!(
        scores[&AlgorithmId::Simhash],
        Score::Hamming {
            distance: 0,
            bits: 64
        }
    );
    assert_ne!(
        scores[&AlgorithmId::Exact],
        Score::Matches { matched: 1, of: 1 }
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Hostile input: whatever the bytes, decoding, analysis and every
    /// algorithm finish without panicking.
    #[test]
    fn any_bytes_fingerprint_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let engine = &*ENGINE;
        if let Ok(decoded) = doppel_core::engine::text::decode::decode(&bytes) {
            let f = engine.fingerprint(&engine.analyze(&decoded.text), engine.reference_weights()).unwrap();
            let _ = engine.compare(&f, &f);
        }
    }

    /// Any Unicode text (control characters, RTL, combining marks, astral
    /// planes) goes through the whole pipeline.
    #[test]
    fn any_text_fingerprints_without_panicking(text in "\\PC{0,400}") {
        let engine = &*ENGINE;
        let f = engine.fingerprint(&engine.analyze(&text), engine.reference_weights()).unwrap();
        let _ = engine.compare(&f, &f);
    }
}

/// The engine shares work between algorithms; the result must equal what
/// each algorithm computes on its own.
#[test]
fn shared_engine_pass_equals_each_algorithm_alone() {
    use doppel_core::engine::algo::Algorithm;
    let engine = &*ENGINE;
    let weights = engine.reference_weights();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample-corpus/austen/emma-ch1.txt"
    ))
    .unwrap();
    let doc = engine.analyze(&text);
    let all = engine.fingerprint(&doc, weights).unwrap();
    let a = &engine.config().algorithms;
    let tok = &engine.config().tokenizer;
    use doppel_core::engine::algo::*;
    assert_eq!(
        all.shingle.as_ref(),
        Some(&shingle::Shingle::new(a.shingle.clone()).fingerprint(&doc, weights))
    );
    assert_eq!(
        all.minhash.as_ref(),
        Some(&minhash::Minhash::new(a.minhash.clone()).fingerprint(&doc, weights))
    );
    let supershingle = supershingle::Supershingle::new(a.supershingle.clone(), a.minhash.clone());
    assert_eq!(
        all.supershingle.as_ref(),
        Some(&supershingle.fingerprint(&doc, weights))
    );
    assert_eq!(
        all.simhash,
        Some(simhash::Simhash::new(a.simhash.clone()).fingerprint(&doc, weights))
    );
    let ss = simhash_shingle::SimhashShingle::new(a.simhash_shingle.clone());
    assert_eq!(all.simhash_shingle, Some(ss.fingerprint(&doc, weights)));
    let sl = simhash_lexicons::SimhashLexicons::new(a.simhash_lexicons.clone());
    assert_eq!(
        all.simhash_lexicons.as_ref(),
        Some(&sl.fingerprint(&doc, weights))
    );
    assert_eq!(
        all.imatch,
        Some(imatch::Imatch::new(a.imatch.clone()).fingerprint(&doc, weights))
    );
    let il = imatch_lexicons::ImatchLexicons::new(a.imatch_lexicons.clone());
    assert_eq!(
        all.imatch_lexicons.as_ref(),
        Some(&il.fingerprint(&doc, weights))
    );
    assert_eq!(
        all.winnow.as_ref(),
        Some(&winnow::Winnow::new(a.winnow.clone()).fingerprint(&doc, weights))
    );
    assert_eq!(
        all.si,
        Some(si::Si::new(a.si.clone(), tok).fingerprint(&doc, weights))
    );
    assert_eq!(
        all.exact,
        Some(exact::Exact::new(a.exact.clone()).fingerprint(&doc, weights))
    );
}
