//! Page furniture on the pipeline (`doppel_core::engine::text::page_furniture`):
//! every generated scan of a library collection loses exactly its layout,
//! a scan pairs with its e-text and scores far higher than with its
//! furniture in, two scans of different books under the same heads do not
//! pair, and the switch (`[tokenizer] strip_furniture`) turns it off.
//! Reads the books of `tests/data/corpus/`: the generated collections are
//! made from them, and none of them has furniture (they are a varied
//! enough sample: novels, Bible books verse by verse, addresses, a
//! dictionary, a treatise).

use std::path::Path;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::stats::TermWeights;
use doppel_core::engine::text::decode::decode;
use doppel_core::engine::text::page_furniture;
use doppel_core::engine::text::page_furniture::{Furniture, FurnitureKind};
use doppel_core::engine::text::{normalize, TokenizerConfig};
use doppel_core::engine::{Engine, EngineConfig, PairScores};
use doppel_core::hash::SplitMix64;
use doppel_eval::library::{make_library, ocr_confusions, LibraryOptions, LibrarySize};
use doppel_index::collection::list_files;

mod common;

/// The page furniture of a test text (memory for its lines is there).
fn find(text: &str) -> Vec<Furniture> {
    page_furniture::find(text).expect("memory for a test text's lines")
}

/// A test text without its page furniture.
fn without_furniture(text: &str) -> std::borrow::Cow<'_, str> {
    page_furniture::without_furniture(text).expect("memory for a test text's lines")
}

fn engine(strip_furniture: bool) -> Engine {
    Engine::new(EngineConfig {
        tokenizer: TokenizerConfig {
            strip_furniture,
            ..TokenizerConfig::default()
        },
        ..EngineConfig::default()
    })
}

/// Every algorithm's scores for two texts, and the `fusion` verdict.
fn compare(engine: &Engine, a: &str, b: &str) -> (PairScores, bool) {
    let weights: &dyn TermWeights = engine.reference_weights();
    let (da, db) = (engine.analyze(a), engine.analyze(b));
    let (fa, fb) = (
        engine.fingerprint(&da, weights).unwrap(),
        engine.fingerprint(&db, weights).unwrap(),
    );
    let scores = engine.compare(&fa, &fb);
    let smaller = engine
        .shingle_count(&da, &fa)
        .min(engine.shingle_count(&db, &fb));
    let fusion = engine.verdict(&scores, smaller).fusion;
    (scores, fusion)
}

/// An algorithm's score as the value its threshold is compared with.
fn value(scores: &PairScores, id: AlgorithmId) -> f64 {
    scores[&id]
        .value()
        .unwrap_or_else(|| panic!("{id:?} incomparable"))
}

#[test]
fn every_generated_scan_loses_its_layout_and_nothing_of_its_book() {
    // The large collection has every scanner's style: heads with numbers in
    // the margin or numbers at the foot, CRLF, one page or hundreds.
    let large = make_library(
        &common::test_corpus(),
        &LibraryOptions {
            size: LibrarySize::Large,
            ..LibraryOptions::default()
        },
    )
    .unwrap();
    let mut scans = 0;
    for d in large
        .documents
        .iter()
        .filter(|d| d.form.contains("page scan"))
    {
        scans += 1;
        let first_page = d.text.split('\u{c}').next().unwrap();
        let stripped = without_furniture(&d.text);
        // The scanning notice and the title page stay (boilerplate, not
        // furniture); after them comes the body, word for word, with the
        // words hyphenated across page breaks joined.
        let expected = format!("{} {}", normalize(first_page), normalize(d.body()));
        assert!(
            normalize(&stripped) == expected,
            "{}: the scan without furniture is not its first page and body",
            d.path
        );
        let found = find(&d.text);
        let pages = d.text.matches('\u{c}').count();
        let heads = found
            .iter()
            .filter(|f| f.kind == FurnitureKind::RunningHead)
            .count();
        assert_eq!(heads, pages, "{}: one running head a page", d.path);
    }
    assert!(scans >= 10, "{scans} scans");
    // E-texts and every other text of the collection have no furniture.
    for d in large
        .documents
        .iter()
        .filter(|d| !d.form.contains("page scan"))
    {
        assert!(find(&d.text).is_empty(), "{}", d.path);
    }
}

/// A page scan of `body` as a scanner lays one out: a first page with the
/// scanner's notice and the title, then pages of `lines_per_page` lines
/// wrapped at `width` (a word of eight letters or more at a line end
/// hyphenated one time in four), each after a form feed under a running
/// head: the title on even pages, the chapter on odd ones, the page number
/// in the outer margin. `ocr` is the share of words OCR confused.
fn scan(body: &str, title: &str, lines_per_page: usize, ocr: f64, seed: u64) -> String {
    lay_out(body, title, lines_per_page, ocr, seed, true)
}

/// [`scan`], or without `furniture` the same lines with no form feed, head
/// or page number.
fn lay_out(
    body: &str,
    title: &str,
    lines_per_page: usize,
    ocr: f64,
    seed: u64,
    furniture: bool,
) -> String {
    let mut rng = SplitMix64::new(seed);
    let body = ocr_confusions(body, ocr, &mut rng);
    let width = 56;
    let mut lines: Vec<(String, String)> = Vec::new();
    let mut chapter = title.to_uppercase();
    for paragraph in body.split("\n\n") {
        if paragraph.trim_start().to_lowercase().starts_with("chapter") {
            chapter = paragraph.trim().lines().next().unwrap().to_uppercase();
        }
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if line.len() + 1 + word.len() > width && !line.is_empty() {
                let letters = word.chars().all(|c| c.is_ascii_alphabetic());
                if letters && word.len() >= 8 && line.len() + 6 <= width && rng.below(4) == 0 {
                    lines.push((format!("{line} {}-", &word[..4]), chapter.clone()));
                    line = word[4..].to_owned();
                    continue;
                }
                lines.push((std::mem::take(&mut line), chapter.clone()));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push((line, chapter.clone()));
        lines.push((String::new(), chapter.clone()));
    }
    let title_head = title.to_uppercase();
    let mut out = format!(
        "This volume was digitized by the Example Scanning Project from a copy\n\
         held by the Old Town Library. Scan identifier: {seed}\n\n\n{title_head:>40}\n"
    );
    for (k, page) in lines.chunks(lines_per_page).enumerate() {
        let number = k + 3;
        let head = if number.is_multiple_of(2) {
            &title_head
        } else {
            &page[0].1
        };
        if furniture {
            out.push('\u{c}');
            if number.is_multiple_of(2) {
                out.push_str(&format!("{number:<6}{head:>w$}\n\n", w = width - 6));
            } else {
                out.push_str(&format!("{head:<w$}{number:>6}\n\n", w = width - 6));
            }
        }
        for (line, _) in page {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn sample(path: &str) -> String {
    std::fs::read_to_string(common::sample_corpus().join(path)).unwrap()
}

#[test]
fn a_scan_pairs_with_its_etext_and_scores_far_higher_without_its_furniture() {
    let etext = sample("austen/pride-prejudice-ch1-3.txt");
    // Typeset and extracted without OCR (a PDF's text): once its heads,
    // numbers and page breaks are out, it is the e-text word for word.
    let printed = scan(&etext, "Pride and Prejudice", 30, 0.0, 1);
    let body = printed.split_once("\u{c}").unwrap().1;
    let (before, _) = compare(&engine(false), body, &etext);
    let (after, fusion) = compare(&engine(true), body, &etext);
    assert!(fusion);
    // The signatures of the whole text (exact, I-Match) now match; with
    // the furniture in, none did.
    for id in [AlgorithmId::Exact, AlgorithmId::Imatch] {
        assert_eq!(value(&before, id), 0.0, "{id:?}: {before:?}");
        assert_eq!(value(&after, id), 1.0, "{id:?}: {after:?}");
    }
    let lexicons = AlgorithmId::ImatchLexicons;
    assert_eq!(
        (value(&before, lexicons), value(&after, lexicons)),
        (1.0, 10.0)
    );
    assert_eq!(value(&after, AlgorithmId::Shingle), 1.0);
    assert!(value(&before, AlgorithmId::Shingle) < 0.97, "{before:?}");

    // OCR'd at 3 %, notice on the first page: the OCR errors stay, the
    // furniture goes, and every measure of shared passages rises.
    let ocr = scan(&etext, "Pride and Prejudice", 30, 0.03, 2);
    let (before, _) = compare(&engine(false), &ocr, &etext);
    let (after, fusion) = compare(&engine(true), &ocr, &etext);
    assert!(fusion);
    for id in [AlgorithmId::Shingle, AlgorithmId::Winnow, AlgorithmId::Si] {
        assert!(
            value(&after, id) > value(&before, id) + 0.02,
            "{id:?}: {before:?} -> {after:?}"
        );
    }
}

#[test]
fn two_scans_of_different_books_under_the_same_heads_share_nothing_of_them() {
    // One scanner, one series: the same notice, the same title head on
    // every other page, chapter heads and page numbers alike, short pages.
    let read = |p: &str| std::fs::read_to_string(common::test_corpus().join(p)).unwrap();
    let (a, b) = (read("kjv/29_Joel.txt"), read("kjv/36_Zephaniah.txt"));
    let series = "The Twelve Minor Prophets";
    let (scan_a, scan_b) = (scan(&a, series, 12, 0.03, 3), scan(&b, series, 12, 0.03, 3));
    let plain_a = lay_out(&a, series, 12, 0.03, 3, false);
    let plain_b = lay_out(&b, series, 12, 0.03, 3, false);
    let (with_furniture, _) = compare(&engine(false), &scan_a, &scan_b);
    let (stripped, fusion) = compare(&engine(true), &scan_a, &scan_b);
    let (unpaged, _) = compare(&engine(false), &plain_a, &plain_b);
    assert!(!fusion, "{stripped:?}");
    // What the two scans share is what the same lines without pages share:
    // the furniture adds nothing (with it in, it did).
    assert_eq!(stripped, unpaged);
    assert!(
        value(&with_furniture, AlgorithmId::Shingle) > value(&unpaged, AlgorithmId::Shingle),
        "{with_furniture:?}"
    );
}

#[test]
fn no_book_of_the_test_corpus_and_no_sample_text_but_the_scans_have_furniture() {
    // Each file as the pipeline decodes it (or none: binary, empty).
    let texts = |root: &Path| {
        let (files, _) = list_files(root);
        files.into_iter().filter_map(|f| {
            let decoded = decode(&std::fs::read(&f.path).unwrap()).ok()?;
            Some((f.doc.to_string(), decoded.text))
        })
    };
    // 46 e-texts (and their README and manifest): novels, the KJV and WEB
    // verse by verse, State of the Union addresses, a dictionary, a
    // treatise, the Constitution.
    let mut books = 0;
    for (path, text) in texts(&common::test_corpus()) {
        assert!(find(&text).is_empty(), "{path}");
        books += 1;
    }
    assert!(books >= 48, "{books}");
    for (path, text) in texts(&common::sample_corpus()) {
        let found = find(&text);
        if path == "scans/pride-prejudice-ch1-3-ocr.txt" {
            // Its running head every 42 lines, without form feeds.
            assert_eq!(found.len(), 10);
            for f in &found {
                assert_eq!(f.kind, FurnitureKind::RunningHead);
                assert!(text[f.range.clone()]
                    .trim()
                    .starts_with("PRIDE AND PREJUDICE  "));
            }
        } else if path == "scans/alice-ch1-3-scan.txt" {
            // A form feed and a running head (title or chapter, with the
            // page number) on each of its 19 pages after the first.
            let kinds = |kind| found.iter().filter(|f| f.kind == kind).count();
            assert_eq!(kinds(FurnitureKind::PageBreak), 19);
            assert_eq!(kinds(FurnitureKind::RunningHead), 19);
            assert_eq!(found.len(), 38);
            for f in found
                .iter()
                .filter(|f| f.kind == FurnitureKind::RunningHead)
            {
                let head = text[f.range.clone()].trim();
                assert!(
                    head.contains("ALICE'S ADVENTURES IN WONDERLAND")
                        || head.starts_with("CHAPTER "),
                    "{head}"
                );
            }
        } else {
            assert!(found.is_empty(), "{path}");
        }
    }
}
