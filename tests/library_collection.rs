//! The generated library collection (`doppel_eval::library`, hidden
//! `doppel make-library`): deterministic, every relation present, a truth
//! that `doppel eval --truth` reads, and transformations that do what the
//! truth file says they did. Made from the books of `tests/data/corpus/`
//! (every book the `small` and `large` plans name).

use std::collections::{BTreeSet, HashMap};
use std::process::Command;
use std::sync::OnceLock;

use doppel_core::engine::measure::exact_measures;
use doppel_core::engine::{Engine, EngineConfig};
use doppel_core::hash::{hash128, SplitMix64};
use doppel_eval::library::{
    make_library, ocr_confusions, LibraryCollection, LibraryOptions, LibrarySize, LibraryTruth,
    Relation, Side,
};
use doppel_index::collection::list_files;

mod common;

fn small() -> &'static LibraryCollection {
    static SMALL: OnceLock<LibraryCollection> = OnceLock::new();
    SMALL.get_or_init(|| make_library(&common::test_corpus(), &LibraryOptions::default()).unwrap())
}

fn doc<'a>(
    library: &'a LibraryCollection,
    path: &str,
) -> &'a doppel_eval::library::LibraryDocument {
    library
        .documents
        .iter()
        .find(|d| d.path == path)
        .unwrap_or_else(|| panic!("no {path} in the collection"))
}

fn digest(library: &LibraryCollection) -> u128 {
    let mut bytes = Vec::new();
    for d in &library.documents {
        bytes.extend_from_slice(d.path.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(d.text.as_bytes());
        bytes.push(0);
    }
    bytes.extend_from_slice(serde_json::to_string(&library.truth).unwrap().as_bytes());
    hash128(&bytes, 0)
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_other_bytes_with_the_same_truth() {
    let again = make_library(&common::test_corpus(), &LibraryOptions::default()).unwrap();
    assert_eq!(digest(small()), digest(&again));
    let other = make_library(
        &common::test_corpus(),
        &LibraryOptions {
            seed: 2,
            ..LibraryOptions::default()
        },
    )
    .unwrap();
    assert_ne!(digest(small()), digest(&other));
    // The plan, not the seed, decides what is related to what.
    assert_eq!(small().truth.pairs, other.truth.pairs);
}

#[test]
fn the_small_collection_holds_every_relation_and_the_negatives_that_matter() {
    let library = small();
    let truth = &library.truth;
    assert!(library.bytes() < 2_000_000, "{}", library.bytes());
    for relation in Relation::ALL {
        assert!(truth.count(relation) > 0, "no {relation:?} pair");
    }
    let listed: HashMap<(&str, &str), Relation> = truth
        .pairs
        .iter()
        .map(|p| ((p.a.as_str(), p.b.as_str()), p.relation))
        .collect();
    let relation = |a: &str, b: &str| listed.get(&(a, b)).copied();
    assert_eq!(
        relation("etexts/carroll-alice.txt", "scans/carroll-alice-scan.txt"),
        Some(Relation::Duplicate)
    );
    assert_eq!(
        relation(
            "etexts/lincoln-gettysburg-address.txt",
            "scans/lincoln-gettysburg-address-scan.txt"
        ),
        Some(Relation::Duplicate),
        "the short work in a long licence and its scan"
    );
    assert_eq!(
        relation(
            "hard-cases/riverbank/1932_herbert_hoover_r-edited.txt",
            "hard-cases/riverbank/1932_herbert_hoover_r.txt"
        ),
        Some(Relation::Duplicate),
        "the 3 %-edited body under the same licence"
    );
    assert_eq!(
        relation("translations/ruth-kjv.txt", "translations/ruth-web.txt"),
        Some(Relation::Related)
    );
    let part = truth
        .pairs
        .iter()
        .find(|p| p.a == "addresses/washington-1790.txt" && p.b.starts_with("anthologies/"))
        .expect("an address is in its anthology");
    assert_eq!(
        (part.relation, part.container),
        (Relation::Contains, Some(Side::B))
    );
    // Negatives: unlisted pairs.
    for (a, b) in [
        // two disjoint parts of one whole
        (
            "addresses/washington-1790.txt",
            "addresses/washington-1792-scan.txt",
        ),
        // a chapter the abridgement cut
        (
            "chapters/carroll-alice-chapter-04.txt",
            "editions/carroll-alice-abridged.txt",
        ),
        // two novels by one author
        (
            "etexts/austen-northanger-abbey-chapters-01-03.txt",
            "etexts/austen-persuasion-chapters-01-03.txt",
        ),
        // different bodies under one licence
        (
            "hard-cases/riverbank/31_Obadiah.txt",
            "hard-cases/riverbank/65_Jude.txt",
        ),
    ] {
        assert_eq!(relation(a, b), None, "{a} ~ {b}");
    }
    // `groups` are exactly the duplicate and contains pairs.
    let positives: BTreeSet<(String, String)> = truth
        .pairs
        .iter()
        .filter(|p| p.relation != Relation::Related)
        .map(|p| (p.a.clone(), p.b.clone()))
        .collect();
    assert_eq!(truth.truth().positive_pairs(), positives);
    assert_eq!(truth.containment.len(), truth.count(Relation::Contains));
}

#[test]
fn the_written_collection_is_what_the_truth_describes_and_eval_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("library");
    common::make_small_library(&out);
    let truth: LibraryTruth =
        serde_json::from_str(&std::fs::read_to_string(out.join("truth.json")).unwrap()).unwrap();
    assert_eq!(truth, small().truth);
    for d in &truth.documents {
        let bytes = std::fs::read(out.join(&d.path)).unwrap();
        assert_eq!(bytes.len(), d.bytes, "{}", d.path);
        assert_eq!(bytes, doc(small(), &d.path).text.as_bytes());
    }
    // A scan sees the documents only: README.md and truth.json are ignored.
    let (files, problems) = list_files(&out);
    assert!(problems.is_empty());
    let listed: Vec<String> = files.iter().map(|f| f.doc.to_string()).collect();
    let expected: Vec<&str> = truth.documents.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(listed, expected);
    // `doppel eval --truth` scores against the groups (duplicate + contains).
    let eval = Command::new(env!("CARGO_BIN_EXE_doppel"))
        .args(["eval", "--format", "json", "--truth"])
        .arg(out.join("truth.json"))
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        eval.status.success(),
        "{}",
        String::from_utf8_lossy(&eval.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&eval.stdout).unwrap();
    assert_eq!(report["documents"], truth.documents.len());
    assert_eq!(report["missing"].as_array().unwrap().len(), 0);
    let positives = truth.count(Relation::Duplicate) + truth.count(Relation::Contains);
    assert_eq!(report["positives"], positives);
    // Writing again replaces the collection; a foreign folder is refused.
    small().write(&out).unwrap();
    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("mine.txt"), "keep me").unwrap();
    let err = small().write(&foreign).unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    assert_eq!(
        std::fs::read_to_string(foreign.join("mine.txt")).unwrap(),
        "keep me"
    );
}

#[test]
fn scan_pages_carry_a_running_head_and_consecutive_page_numbers() {
    let library = small();
    let scans: Vec<_> = library
        .documents
        .iter()
        .filter(|d| d.form.contains("page scan"))
        .collect();
    assert!(scans.len() >= 3);
    for d in scans {
        let text = d.text.replace("\r\n", "\n");
        let pages: Vec<&str> = text.split('\u{c}').collect();
        assert!(
            pages[0].contains("Scan identifier:"),
            "{}: notice on page 1",
            d.path
        );
        let foot = d.form.contains("numbers at the foot");
        let mut numbers = Vec::new();
        for page in &pages[1..] {
            let lines: Vec<&str> = page.lines().filter(|l| !l.trim().is_empty()).collect();
            let head = lines[0].trim();
            let number_line = if foot { lines[lines.len() - 1] } else { head };
            let number: u32 = number_line
                .split_whitespace()
                .find_map(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("{}: no page number in {number_line:?}", d.path));
            let words: Vec<&str> = head
                .split_whitespace()
                .filter(|w| w.parse::<u32>().is_err())
                .collect();
            let words = words.join(" ");
            assert!(
                words == d.title().to_uppercase() || words.starts_with("CHAPTER"),
                "{}: running head {head:?}",
                d.path
            );
            numbers.push(number);
        }
        assert!(
            numbers.windows(2).all(|w| w[1] == w[0] + 1),
            "{}: {numbers:?}",
            d.path
        );
    }
    // The long scan alternates: the title on even pages, a chapter on odd ones.
    let alice = doc(library, "scans/carroll-alice-scan.txt").text.as_str();
    let heads: Vec<&str> = alice
        .split('\u{c}')
        .skip(1)
        .map(|p| p.lines().next().unwrap())
        .collect();
    assert!(heads.len() > 50);
    for head in &heads[3..] {
        let number: u32 = head
            .split_whitespace()
            .find_map(|w| w.parse().ok())
            .unwrap();
        let title = head.contains("ALICE'S ADVENTURES IN WONDERLAND");
        assert_eq!(title, number.is_multiple_of(2), "{head:?}");
        assert_eq!(
            head.contains("CHAPTER"),
            !number.is_multiple_of(2),
            "{head:?}"
        );
    }
    assert!(alice.contains("-\n"), "line-end hyphens");
}

/// Whitespace-separated words of `a` and `b` that differ, position by position.
fn differing_share(a: &str, b: &str) -> f64 {
    let (x, y): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    assert_eq!(x.len(), y.len(), "OCR keeps every word");
    x.iter().zip(&y).filter(|(p, q)| p != q).count() as f64 / x.len() as f64
}

#[test]
fn ocr_confuses_the_requested_share_of_words_and_scans_stay_within_2_to_5_percent() {
    let library = small();
    let text = doc(library, "etexts/carroll-alice.txt").body();
    for rate in [0.02, 0.035, 0.05] {
        let ocr = ocr_confusions(text, rate, &mut SplitMix64::new(9));
        let share = differing_share(text, &ocr);
        assert!((share - rate).abs() < 0.001, "asked {rate}, got {share}");
    }
    // The scan's body against the e-text's: same words, 2-5 % confused.
    let scan = doc(library, "scans/carroll-alice-scan.txt").body();
    let share = differing_share(text, scan);
    assert!((0.02..=0.05).contains(&share), "{share}");
}

/// Lines (non-blank) that every file of the family has, as a share of each
/// file's non-blank bytes.
fn shared_line_shares(files: &[&str]) -> Vec<f64> {
    let sets: Vec<BTreeSet<&str>> = files
        .iter()
        .map(|f| f.lines().filter(|l| !l.trim().is_empty()).collect())
        .collect();
    let common: BTreeSet<&str> = sets[0]
        .iter()
        .filter(|l| sets.iter().all(|s| s.contains(*l)))
        .copied()
        .collect();
    files
        .iter()
        .map(|f| {
            let lines: Vec<&str> = f.lines().filter(|l| !l.trim().is_empty()).collect();
            let total: usize = lines.iter().map(|l| l.len()).sum();
            let shared: usize = lines
                .iter()
                .filter(|l| common.contains(*l))
                .map(|l| l.len())
                .sum();
            shared as f64 / total as f64
        })
        .collect()
}

#[test]
fn boilerplate_is_at_least_half_of_each_hard_case_and_seven_times_the_short_work() {
    let library = small();
    let family: Vec<&str> = library
        .documents
        .iter()
        .filter(|d| d.path.starts_with("hard-cases/riverbank/"))
        .map(|d| d.text.as_str())
        .collect();
    assert!(family.len() >= 4);
    for share in shared_line_shares(&family) {
        assert!(share >= 0.5, "{share}");
    }
    let short = doc(library, "etexts/lincoln-gettysburg-address.txt");
    assert!(short.text.contains(short.body().trim_end()));
    let ratio = (short.text.len() - short.body().len()) as f64 / short.body().len() as f64;
    assert!(
        (6.5..8.0).contains(&ratio),
        "licence {ratio:.1} times the work"
    );
}

#[test]
fn abridgement_and_parts_are_contained_in_their_whole_and_disjoint_parts_are_not() {
    let library = small();
    let engine = Engine::new(EngineConfig::default());
    let shingle = &engine.config().algorithms.shingle;
    let analyses: HashMap<&str, _> = [
        "etexts/carroll-alice.txt",
        "editions/carroll-alice-abridged.txt",
        "chapters/carroll-alice-chapter-04.txt",
        "anthologies/washington-annual-addresses-1790-1792.txt",
        "addresses/washington-1790.txt",
    ]
    .into_iter()
    .map(|p| (p, engine.analyze(doc(library, p).body())))
    .collect();
    let measure = |a: &str, b: &str| {
        exact_measures(
            &analyses[a],
            &analyses[b],
            shingle.w,
            shingle.seed,
            engine.reference_weights(),
        )
    };
    let abridged = measure(
        "editions/carroll-alice-abridged.txt",
        "etexts/carroll-alice.txt",
    );
    assert!(abridged.a_in_b >= 0.9, "{abridged:?}");
    assert!(
        abridged.b_in_a < 0.7,
        "an abridgement is shorter: {abridged:?}"
    );
    let part = measure(
        "addresses/washington-1790.txt",
        "anthologies/washington-annual-addresses-1790-1792.txt",
    );
    assert!(part.a_in_b >= 0.9, "{part:?}");
    let cut = measure(
        "chapters/carroll-alice-chapter-04.txt",
        "editions/carroll-alice-abridged.txt",
    );
    assert!(cut.a_in_b < 0.05, "the abridgement cut chapter IV: {cut:?}");
}

#[test]
fn the_large_collection_has_the_issue_scale_and_its_hard_cases() {
    let large = make_library(
        &common::test_corpus(),
        &LibraryOptions {
            size: LibrarySize::Large,
            ..LibraryOptions::default()
        },
    )
    .unwrap();
    let in_set = |set: &'static str| large.documents.iter().filter(move |d| d.set == set);
    let library_bytes: usize = in_set("library").map(|d| d.text.len()).sum();
    assert!(in_set("library").count() >= 36);
    assert!(
        (10_000_000..12_500_000).contains(&library_bytes),
        "{library_bytes}"
    );
    for relation in Relation::ALL {
        assert!(large.truth.count(relation) > 0, "no {relation:?} pair");
    }
    let hard = |prefix: &str| -> Vec<&str> {
        in_set("hard-cases")
            .filter(|d| d.path.starts_with(prefix))
            .map(|d| d.path.as_str())
            .collect()
    };
    let (riverbank, northgate) = (hard("hard-cases/riverbank/"), hard("hard-cases/northgate/"));
    assert_eq!((riverbank.len(), northgate.len()), (7, 6));
    let true_pairs: Vec<_> = large
        .truth
        .pairs
        .iter()
        .filter(|p| p.a.starts_with("hard-cases/") || p.b.starts_with("hard-cases/"))
        .collect();
    assert_eq!(
        true_pairs.len(),
        1,
        "only the 3 %-edited body: {true_pairs:?}"
    );
    for family in [riverbank, northgate] {
        let texts: Vec<&str> = family
            .iter()
            .map(|p| doc(&large, p).text.as_str())
            .collect();
        for share in shared_line_shares(&texts) {
            assert!(share >= 0.5, "{share}");
        }
    }
}

#[test]
fn many_copies_of_one_text_are_all_duplicates_of_each_other() {
    let library = make_library(
        &common::test_corpus(),
        &LibraryOptions {
            many_copies: 6,
            ..LibraryOptions::default()
        },
    )
    .unwrap();
    let copies: Vec<&str> = library
        .documents
        .iter()
        .filter(|d| d.set == "copies")
        .map(|d| d.path.as_str())
        .collect();
    assert_eq!(copies.len(), 6);
    let texts: BTreeSet<&str> = copies
        .iter()
        .map(|p| doc(&library, p).text.as_str())
        .collect();
    assert_eq!(texts.len(), 6, "every copy is edited differently");
    assert!(library
        .truth
        .groups
        .contains(&copies.iter().map(|s| s.to_string()).collect()));
    assert_eq!(
        library.truth.count(Relation::Duplicate),
        small().truth.count(Relation::Duplicate) + 6 * 5 / 2
    );
}
