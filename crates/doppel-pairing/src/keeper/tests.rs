use super::*;
use crate::cluster::{clusters, Link};
use doppel_core::engine::algo::AlgorithmSet;
use doppel_core::engine::{Containments, Relation};

fn facts(quality: f64, words: u64, modified_ns: i64) -> Option<KeeperFacts> {
    Some(KeeperFacts {
        quality,
        form: TextForm::Plain,
        utf8: true,
        words,
        modified_ns,
    })
}

fn with(f: Option<KeeperFacts>, form: TextForm, utf8: bool) -> Option<KeeperFacts> {
    f.map(|f| KeeperFacts { form, utf8, ..f })
}

/// Pairs from `(i, j, share of i in j, share of j in i)`.
fn pairs(n: usize, shares: &[(usize, usize, f64, f64)]) -> Vec<SharedWith> {
    let mut out = vec![Vec::new(); n];
    for &(i, j, ij, ji) in shares {
        out[i].push((j, ij, ji));
        out[j].push((i, ji, ij));
    }
    out
}

fn all(n: usize) -> Vec<bool> {
    vec![true; n]
}

#[test]
fn the_cleanest_text_is_kept_then_utf8_then_the_most_words_then_the_oldest() {
    // A scan at 94 % beside its clean e-text (newer, later in the cluster).
    let scan = facts(0.94, 1000, 1);
    let clean = facts(1.0, 1000, 5);
    assert_eq!(choose(&[scan, clean], &all(2), &pairs(2, &[])), Some(1));
    // Within a point, UTF-8 over windows-1252.
    let cp1252 = with(facts(0.99, 1000, 1), TextForm::Plain, false);
    let utf8 = facts(0.985, 1000, 9);
    assert_eq!(choose(&[cp1252, utf8], &all(2), &pairs(2, &[])), Some(1));
    // Then the most words, then the oldest, then the first.
    let short = facts(0.98, 400, 0);
    let long = facts(0.98, 1000, 3);
    assert_eq!(choose(&[short, long], &all(2), &pairs(2, &[])), Some(1));
    let newer = facts(0.98, 1000, 7);
    assert_eq!(choose(&[newer, long], &all(2), &pairs(2, &[])), Some(1));
    assert_eq!(choose(&[long, long], &all(2), &pairs(2, &[])), Some(0));
}

/// The Emma chapter's files in `sample-corpus/`: Tesseract's PDF and ALTO
/// read within a point of the e-text and count more words (page numbers,
/// split words); the e-text is still the one to keep, then its EPUB.
#[test]
fn a_plain_e_text_is_kept_over_its_epub_and_its_ocrd_scans() {
    let etext = with(facts(0.9997, 3326, 9), TextForm::Plain, false);
    let epub = with(facts(0.9997, 3330, 9), TextForm::Ebook, true);
    let pdf = with(facts(0.9919, 3354, 9), TextForm::Pages, true);
    let alto = with(facts(0.9934, 3352, 9), TextForm::Pages, true);
    let none = pairs(4, &[]);
    assert_eq!(choose(&[pdf, alto, epub, etext], &all(4), &none), Some(3));
    assert_eq!(choose(&[pdf, alto, epub], &all(3), &pairs(3, &[])), Some(2));
    // A scan that reads clearly better is still the one to keep.
    let garbled = facts(0.90, 3300, 1);
    assert_eq!(choose(&[garbled, pdf], &all(2), &pairs(2, &[])), Some(1));
}

/// `misc/us-constitution-no-preamble.txt` lies wholly within
/// `misc/us-constitution.txt` (all of its shingles in it, 98.8 % of the
/// other's in it): the complete text is kept, though the other is older,
/// first by path and reads as well.
#[test]
fn the_complete_text_is_kept_over_a_copy_missing_its_preamble() {
    let no_preamble = facts(0.99, 4400, 1);
    let complete = facts(0.99, 4452, 9);
    let shares = pairs(2, &[(0, 1, 1.0, 0.9877)]);
    assert_eq!(choose(&[no_preamble, complete], &all(2), &shares), Some(1));
    // Completeness comes before quality.
    let sharper = facts(0.995, 4400, 1);
    assert_eq!(choose(&[sharper, complete], &all(2), &shares), Some(1));
}

/// OCR noise breaks shingles both ways and adds some: a scan holds more
/// of its e-text than the e-text holds of it, and neither lies within the
/// other, so the quality decides.
#[test]
fn a_noisy_scan_never_counts_as_the_more_complete_text() {
    let clean = facts(0.99, 3758, 9);
    let scan = facts(0.95, 3888, 1);
    let shares = pairs(2, &[(0, 1, 0.8547, 0.8842)]);
    assert_eq!(choose(&[scan, clean], &all(2), &shares), Some(1));
    assert_eq!(choose(&[clean, scan], &all(2), &shares), Some(0));
}

/// A heavy rewrite (a quarter of its words changed) of a text kept twice:
/// as clean, older, longer and first, it still gives way to the text the
/// others share.
#[test]
fn a_rewrite_the_others_do_not_contain_never_wins() {
    let rewrite = facts(1.0, 5200, 1);
    let original = facts(0.995, 5000, 5);
    let copy = facts(0.995, 5000, 9);
    let shares = pairs(
        3,
        &[(0, 1, 0.31, 0.33), (0, 2, 0.31, 0.33), (1, 2, 1.0, 1.0)],
    );
    assert_eq!(
        choose(&[rewrite, original, copy], &all(3), &shares),
        Some(1)
    );
    // Beside a scan of the original rather than a copy, the same.
    let scan = facts(0.93, 5100, 9);
    let shares = pairs(
        3,
        &[(0, 1, 0.31, 0.33), (0, 2, 0.22, 0.21), (1, 2, 0.66, 0.63)],
    );
    assert_eq!(
        choose(&[rewrite, original, scan], &all(3), &shares),
        Some(1)
    );
}

/// `misc/alice-ch1-3-reordered.txt` holds the chapters of
/// `misc/alice-ch1-3.txt` in another order: the same words, the same
/// size; the scan of the book shares a little more with the original
/// order, which is kept though the reordered file is first and older.
#[test]
fn the_original_order_is_kept_over_reordered_chapters() {
    let reordered = facts(0.99, 26_500, 1);
    let original = facts(0.99, 26_500, 2);
    let scan = facts(0.95, 26_900, 3);
    let shares = pairs(
        3,
        &[
            (0, 1, 0.9992, 0.9992),
            (0, 2, 0.8834, 0.8539),
            (1, 2, 0.8842, 0.8547),
        ],
    );
    assert_eq!(
        choose(&[reordered, original, scan], &all(3), &shares),
        Some(1)
    );
}

#[test]
fn copies_of_one_text_tie_until_the_oldest() {
    let (a, b, c) = (
        facts(0.99, 100, 5),
        facts(0.99, 100, 2),
        facts(0.99, 100, 7),
    );
    let shares = pairs(3, &[(0, 1, 1.0, 1.0), (0, 2, 1.0, 1.0), (1, 2, 1.0, 1.0)]);
    assert_eq!(choose(&[a, b, c], &all(3), &shares), Some(1));
}

#[test]
fn only_eligible_members_are_kept_and_facts_beat_none() {
    let (a, b) = (facts(1.0, 100, 0), facts(0.5, 100, 0));
    assert_eq!(choose(&[a, b], &[false, true], &pairs(2, &[])), Some(1));
    assert_eq!(choose(&[a, b], &[false, false], &pairs(2, &[])), None);
    assert_eq!(choose(&[None, b], &all(2), &pairs(2, &[])), Some(1));
    assert_eq!(choose(&[None, None], &all(2), &pairs(2, &[])), Some(0));
}

#[test]
fn a_form_name_reads_back() {
    for form in [TextForm::Plain, TextForm::Ebook, TextForm::Pages] {
        assert_eq!(TextForm::from_name(form.as_str()), Some(form));
    }
    assert_eq!(TextForm::from_name("scroll"), None);
    assert!(KeeperFacts::is_utf8("UTF-8") && !KeeperFacts::is_utf8("windows-1252"));
}

fn link(a: DocId, b: DocId, a_in_b: f64, b_in_a: f64) -> Link {
    Link {
        a,
        b,
        passing: AlgorithmSet::default(),
        strength: 1.0,
        relation: Some(Relation::Duplicate),
        containments: Some(Containments { a_in_b, b_in_a }),
    }
}

/// The clusters of `links` (ids by arrival) with their keepers first, as
/// the library puts them: `quality[id]` each document's text quality,
/// `kept` the curator's keeper if any.
fn kept_first(
    links: &[Link],
    quality: &[f64],
    mode: ClusterMode,
    kept: Option<DocId>,
) -> Vec<ClusterInfo> {
    let rank = |id: DocId| (Some(id) != kept, u64::from(id), id);
    let mut found = clusters(links, quality.len(), mode, rank);
    for c in &mut found {
        put_first(
            c,
            mode,
            |id| Some(id) == kept,
            |id| facts(quality[id as usize], 100, 0),
            |id| {
                links
                    .iter()
                    .filter_map(|l| match (l.a == id, l.b == id) {
                        (true, _) => Some((l.b, l.containments?.a_in_b, l.containments?.b_in_a)),
                        (_, true) => Some((l.a, l.containments?.b_in_a, l.containments?.a_in_b)),
                        _ => None,
                    })
                    .collect()
            },
        );
    }
    found
}

fn roles(c: &ClusterInfo) -> Vec<(DocId, Role)> {
    c.members
        .iter()
        .copied()
        .zip(c.roles.iter().copied())
        .collect()
}

#[test]
fn the_keeper_heads_its_cluster_and_the_others_are_its_duplicates() {
    // 0 a scan, 1 and 2 the clean text twice: 1 is kept, 0 and 2 are
    // duplicates of it (components claim no direct link).
    let links = [link(0, 1, 0.8, 0.8), link(1, 2, 1.0, 1.0)];
    let quality = [0.9, 1.0, 1.0];
    let found = kept_first(&links, &quality, ClusterMode::Components, None);
    assert_eq!(
        roles(&found[0]),
        [
            (1, Role::Head),
            (0, Role::DuplicateOf(1)),
            (2, Role::DuplicateOf(1)),
        ]
    );
    // A star around the scan: the clean text is kept, its copy stays
    // linked through the centre it is a duplicate of.
    let star = [link(0, 1, 0.8, 0.8), link(0, 2, 0.8, 0.8)];
    let found = kept_first(&star, &quality, ClusterMode::Star, None);
    assert_eq!(
        roles(&found[0]),
        [
            (1, Role::Head),
            (0, Role::DuplicateOf(1)),
            (2, Role::DuplicateOf(0)),
        ]
    );
    // The curator's keeper stays first, whatever the rule says.
    let found = kept_first(&links, &quality, ClusterMode::Components, Some(0));
    assert_eq!(found[0].representative(), 0);
}

#[test]
fn a_part_is_never_the_keeper() {
    // 2 is a chapter of the book 0 (whose copy is 1), cleaner than both.
    let part = Link {
        relation: Some(Relation::Contains {
            whole: doppel_core::engine::Side::A,
        }),
        ..link(0, 2, 0.1, 1.0)
    };
    let links = [link(0, 1, 1.0, 1.0), part];
    let found = kept_first(&links, &[0.97, 0.99, 1.0], ClusterMode::Components, None);
    assert_eq!(
        roles(&found[0]),
        [
            (1, Role::Head),
            (0, Role::DuplicateOf(1)),
            (2, Role::PartOf(0)),
        ]
    );
}
