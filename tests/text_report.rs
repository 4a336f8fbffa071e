//! The text report reads as English and explains itself: counts agree with
//! their nouns, "contained" is defined once, a member linked through
//! another names it, and the si note appears only where it matters.

mod common;

use std::path::Path;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::Engine;

use doppel_index::scan::scan_folder;
use doppel_pairing::cluster::{ClusterBy, ClusterSpec};
use doppel_pairing::library::LibraryConfig;

use common::sample_corpus;

fn text_of(dir: &Path, spec: ClusterSpec, config: LibraryConfig) -> String {
    let engine = Engine::default();
    let scan = scan_folder(dir, &engine, engine.reference_weights(), config, spec).expect("scan");
    doppel_report::text(&scan, dir)
}

fn default_text(dir: &Path) -> String {
    let spec = ClusterSpec::from_engine(&Engine::default());
    text_of(dir, spec, LibraryConfig::default())
}

fn chapter(rel: &str) -> String {
    std::fs::read_to_string(sample_corpus().join(rel)).unwrap()
}

#[test]
fn counts_of_one_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    let emma = chapter("austen/emma-ch1.txt");
    std::fs::write(dir.path().join("a.txt"), &emma).unwrap();
    let text = default_text(dir.path());
    assert!(
        text.starts_with("1 document indexed, 0 skipped, 0 verified pairs, 0 clusters ("),
        "{text}"
    );
    std::fs::write(dir.path().join("b.txt"), &emma).unwrap();
    let text = default_text(dir.path());
    assert!(
        text.starts_with("2 documents indexed, 0 skipped, 1 verified pair, 1 cluster ("),
        "{text}"
    );
    assert!(text.contains("cluster 1 (2 documents;"), "{text}");
}

#[test]
fn contained_is_explained_once_where_it_is_used() {
    let text = default_text(&sample_corpus());
    let legends: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("contained = "))
        .collect();
    assert_eq!(
        legends,
        ["contained = at least 90 % of the smaller document's shingles (runs of words) are in the larger one"],
        "{text}"
    );
    assert!(text.contains("; contained]"), "{text}");
}

/// `a` and `b` are unrelated; `j` is the two joined, so each is a part of
/// it: the cluster is {j, a, b} with the whole `j` its representative
/// (though `a` arrived first), and each part names the whole it sits in,
/// never the other part.
#[test]
fn each_part_names_its_whole_which_represents_them() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        chapter("austen/emma-ch1.txt"),
        chapter("bible/ruth-kjv.txt"),
    );
    std::fs::write(dir.path().join("a.txt"), &a).unwrap();
    std::fs::write(dir.path().join("b.txt"), &b).unwrap();
    std::fs::write(dir.path().join("j.txt"), format!("{a}\n\n{b}")).unwrap();
    let text = default_text(dir.path());
    assert!(text.contains("cluster 1 (3 documents;"), "{text}");
    assert!(text.contains("  * j.txt\n"), "{text}");
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}: {text}"))
            .to_owned()
    };
    for part in ["a.txt", "b.txt"] {
        assert!(
            line(part).contains("[part of j.txt (100 % of it inside): ")
                && line(part).ends_with("contained]"),
            "{text}"
        );
    }
    assert!(!text.contains("linked through"), "{text}");
}

/// The SI cap cuts only si's own candidates, and si does not vote in
/// fusion: the note is left out unless clusters are made by si, and then
/// says in words what was cut.
#[test]
fn the_si_cap_note_appears_only_when_clustering_by_si() {
    let mut config = LibraryConfig::default();
    config.candidates.si_cap = 1;
    let engine = Engine::default();
    let fusion = ClusterSpec::from_engine(&engine);
    let by_si = ClusterSpec {
        by: ClusterBy::Algorithm(AlgorithmId::Si),
        ..fusion.clone()
    };
    let capped = scan_folder(
        &sample_corpus(),
        &engine,
        engine.reference_weights(),
        config.clone(),
        fusion.clone(),
    )
    .expect("scan")
    .library
    .si_capped();
    assert!(capped > 0, "no document's si candidates were capped");
    let text = text_of(&sample_corpus(), fusion, config.clone());
    assert!(!text.contains("note:"), "{text}");
    let text = text_of(&sample_corpus(), by_si, config);
    let note = format!(
        "note: si pairs each document only with the 1 document nearest in si value; \
         {capped} documents had more within 30 %, so some of their si pairs may be missing"
    );
    assert!(text.contains(&note), "{text}");
}

/// A chapter and its book (issue 46): no score passes for a part against
/// a whole many times its size, and the cluster's header says what holds
/// it instead of "agree: -"; a cluster of copies names what passes on
/// every link.
#[test]
fn a_chapter_and_its_book_say_what_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    let book = std::fs::read_to_string(common::test_corpus().join("austen/emma.txt")).unwrap();
    let cut = book[..40_000].rfind('\n').unwrap();
    std::fs::write(dir.path().join("book.txt"), &book).unwrap();
    std::fs::write(dir.path().join("chapter.txt"), &book[..cut]).unwrap();
    let emma = chapter("austen/persuasion-ch1.txt");
    std::fs::write(dir.path().join("copy-a.txt"), &emma).unwrap();
    std::fs::write(dir.path().join("copy-b.txt"), &emma).unwrap();
    let text = default_text(dir.path());
    assert!(
        text.contains("(2 documents; a whole and its parts, held by containment)"),
        "{text}"
    );
    assert!(
        text.contains("(2 documents; pass on every link: exact shingle"),
        "{text}"
    );
    assert!(!text.contains("agree: -"), "{text}");
}
