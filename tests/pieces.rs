//! A document fingerprinted a piece at a time gets, bit for bit, the
//! fingerprints and the measures stored beside them (shingle counts) of
//! the whole document analyzed at once: for every algorithm, under the
//! default settings and under small ones that put many k-grams across
//! every cut, wherever the text is cut and however its decoded text
//! arrives.

use std::sync::LazyLock;

use doppel_core::engine::algo::si::Stream;
use doppel_core::engine::fingerprinter::{Fingerprinter, PrintOptions};
use doppel_core::engine::measure::shingle_set;
use doppel_core::engine::text::cut::is_cut;
use doppel_core::engine::text::Variation;
use doppel_core::engine::{Engine, EngineConfig};
use proptest::prelude::*;

/// Small settings: grams of two to four units, every k-gram sampled, the
/// lexicons' and MinHash's streams apart from the ones they usually share.
fn small(stream: Stream, variation: Variation) -> Engine {
    let mut config = EngineConfig::default();
    let a = &mut config.algorithms;
    a.shingle.w = 2;
    a.minhash.w = 3;
    a.minhash.num_perm = 16;
    a.supershingle.groups = 4;
    a.supershingle.per_group = 4;
    a.simhash_shingle.k = 3;
    a.simhash_lexicons.k = 2;
    a.simhash_lexicons.lexicons = 4;
    a.imatch.min_terms = 1;
    a.imatch_lexicons.imatch.min_terms = 2;
    a.imatch_lexicons.imatch.nidf_max = 1.0;
    a.winnow.k = 3;
    a.winnow.w = 4;
    a.si.k = 3;
    a.si.modulus = 1;
    a.si.stream = stream;
    a.si.variation = variation;
    Engine::new(config)
}

/// Built once: each parses the reference IDF table.
static ENGINES: LazyLock<Vec<Engine>> = LazyLock::new(|| {
    let mut sampled = EngineConfig::default();
    sampled.algorithms.shingle.modulus = 3;
    sampled.algorithms.shingle.w = 2;
    sampled.tokenizer.strip_furniture = false;
    vec![
        Engine::default(),
        small(Stream::Soundex, Variation::D),
        small(Stream::Char, Variation::D),
        small(Stream::Word, Variation::A),
        Engine::new(sampled),
    ]
});

/// Words, stop words, numbers, accents, ligatures, curly quotes, a soft
/// hyphen, combining marks, and page-number lines (page furniture).
const TOKENS: [&str; 28] = [
    "whale",
    "Ship",
    "the",
    "of",
    "and",
    "sea",
    "captain",
    "digi-",
    "tized",
    "Straße",
    "café",
    "cafe\u{301}",
    "ﬁne",
    "don’t",
    "“quoted”",
    "—",
    "1851",
    "x",
    "soft\u{ad}",
    "word",
    "é",
    "\u{301}",
    "-",
    "12",
    "e.g.",
    "U.S.A.",
    "harpoon",
    "Ishmael",
];

const SPACES: [&str; 8] = [" ", " ", "  ", "\n", "\r\n", "-\n", "\n\n", " \u{c}\n"];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec((0..TOKENS.len(), 0..SPACES.len()), 0..160).prop_map(|parts| {
        let mut text = String::new();
        for (n, (t, s)) in parts.into_iter().enumerate() {
            text.push_str(TOKENS[t]);
            text.push_str(SPACES[s]);
            // Every ~15 lines a page-number line, so furniture is found.
            if n % 23 == 22 {
                text.push_str(&format!("\n{}\n", n / 23 + 1));
            }
        }
        text
    })
}

/// Cut points of `text` for its decoded bytes to arrive at (any character
/// boundary).
fn parts(text: &str, cuts: &[usize]) -> Vec<usize> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|&c| {
            let mut c = c % (text.len() + 1);
            while !text.is_char_boundary(c) {
                c -= 1;
            }
            c
        })
        .collect();
    at.sort_unstable();
    at.push(text.len());
    at
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn a_document_in_pieces_fingerprints_as_the_whole(
        text in text(),
        piece in 1usize..120,
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        for engine in ENGINES.iter() {
            let weights = engine.reference_weights();
            let analysis = engine.analyze(&text);
            let whole = engine.fingerprint(&analysis, weights).unwrap();
            let shingle = &engine.config().algorithms.shingle;
            let options = PrintOptions {
                count_all_shingles: true,
                ..PrintOptions::default()
            };
            let mut printer = engine
                .document_printer(engine.furniture_of(&text).unwrap(), weights, options)
                .with_piece_bytes(piece);
            let mut at = 0;
            for cut in parts(&text, &cuts) {
                printer.push(&text[at..cut]).unwrap();
                at = cut;
            }
            let printed = printer.finish().unwrap();
            prop_assert_eq!(&printed.fingerprints, &whole);
            prop_assert_eq!(printed.shingles, engine.shingle_count(&analysis, &whole));
            prop_assert_eq!(
                printed.all_shingles,
                Some(shingle_set(&analysis, shingle.w, shingle.seed).len())
            );
            let text_at_once = engine.fingerprint_text(&text, weights, options).unwrap();
            prop_assert_eq!(text_at_once, printed);
        }
    }

    /// Wherever text may be cut, its pieces' analyses are the whole's,
    /// stream by stream.
    #[test]
    fn analyses_of_pieces_join_into_the_analysis_of_the_whole(text in text()) {
        let engine = &ENGINES[0];
        let cuts: Vec<usize> = (0..=text.len()).filter(|&at| is_cut(&text, at)).collect();
        let whole = engine.analyzer().analyze(&text);
        let mut at = 0;
        let mut joined = doppel_core::engine::analysis::Analysis::default();
        let mut texts = Vec::new();
        for cut in cuts.into_iter().chain([text.len()]) {
            let piece = engine.analyzer().analyze(&text[at..cut]);
            joined.words.extend(piece.words);
            joined.stop.extend(piece.stop);
            joined.soundex.extend(piece.soundex);
            joined.terms.extend(piece.terms);
            joined.alnum.push_str(&piece.alnum);
            if !piece.text.is_empty() {
                texts.push(piece.text);
            }
            at = cut;
        }
        prop_assert_eq!(joined.words, whole.words);
        prop_assert_eq!(joined.stop, whole.stop);
        prop_assert_eq!(joined.soundex, whole.soundex);
        prop_assert_eq!(joined.terms, whole.terms);
        prop_assert_eq!(joined.alnum, whole.alnum);
        prop_assert_eq!(texts.join(" "), whole.text);
    }
}

/// A book-length text in pieces of 64 KiB, pushed as a file's blocks would
/// be: the real sizes, every algorithm at its defaults.
#[test]
fn a_long_book_in_pieces_fingerprints_as_the_whole() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-corpus");
    let mut text = String::new();
    for file in [
        "moby/moby-dick-ch1.txt",
        "austen/emma-ch1.txt",
        "misc/alice-ch1-3.txt",
        "scans/pride-prejudice-ch1-3-ocr.txt",
    ] {
        text.push_str(&std::fs::read_to_string(format!("{dir}/{file}")).unwrap());
        text.push('\n');
    }
    let text = text.repeat(4);
    let engine = &ENGINES[0];
    let weights = engine.reference_weights();
    let furniture = engine.furniture_of(&text).unwrap();
    assert!(!furniture.is_empty(), "the scan's running heads are found");
    let whole = engine.fingerprint(&engine.analyze(&text), weights).unwrap();
    let mut printer = engine
        .document_printer(furniture, weights, PrintOptions::default())
        .with_piece_bytes(64 << 10);
    // Blocks of about 10 kB, as a decoder hands them on: whole characters.
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + 10_000).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        printer.push(&text[at..end]).unwrap();
        at = end;
    }
    assert_eq!(printer.taken(), text.len());
    assert_eq!(printer.finish().unwrap().fingerprints, whole);
    // The fingerprinter alone, given the whole as one piece, is the engine's.
    let mut one = Fingerprinter::new(engine, weights, PrintOptions::default());
    one.push(&engine.analyze(&text)).unwrap();
    assert_eq!(one.finish().unwrap().fingerprints, whole);
}
