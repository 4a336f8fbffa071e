//! Crafted families (licences around different works, copies of one text,
//! mixed families, a short work in a long licence, an anthology and its
//! parts, header/footer families) and the property that the incremental
//! learner always equals learning from scratch.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::*;
use doppel_core::engine::text::tokenize::shingle_hashes;
use doppel_core::hash::{mix64, SplitMix64};

const SHINGLE_SEED: u64 = 0x5eed_0002;

/// Random words (hashes) from a vocabulary of 5,000, seeded.
fn text(seed: u64, words: usize) -> Vec<u64> {
    let mut rng = SplitMix64::new(mix64(seed));
    (0..words).map(|_| mix64(rng.below(5_000) + 1)).collect()
}

/// `words` with word edits (insert, delete, replace) at `rate`, seeded.
fn edited(words: &[u64], rate: f64, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64::new(mix64(seed ^ 0xed17));
    let mut out = Vec::with_capacity(words.len());
    for &w in words {
        if rng.next_f64() < rate {
            match rng.below(3) {
                0 => {}
                1 => out.push(mix64(rng.below(5_000) + 1)),
                _ => {
                    out.push(w);
                    out.push(mix64(rng.below(5_000) + 1));
                }
            }
        } else {
            out.push(w);
        }
    }
    out
}

fn doc(parts: &[&[u64]]) -> DocSamples {
    let words: Vec<u64> = parts.concat();
    DocSamples::from_shingles(shingle_hashes(&words, 4, SHINGLE_SEED), words.len(), 8)
}

fn words_in(spans: &[Span], range: std::ops::Range<u32>) -> u32 {
    spans
        .iter()
        .map(|s| {
            s.end
                .min(range.end)
                .saturating_sub(s.start.max(range.start))
        })
        .sum()
}

fn learn_all(docs: &BTreeMap<String, DocSamples>) -> Learned<String> {
    learn(
        docs,
        &BTreeSet::new(),
        &BTreeSet::new(),
        &BoilerplateConfig::default(),
    )
}

/// Each document wrapped as header + body + footer; returns the documents
/// and each one's body word range.
fn wrapped(
    header: &[u64],
    footer: &[u64],
    bodies: &[(String, Vec<u64>)],
) -> (
    BTreeMap<String, DocSamples>,
    BTreeMap<String, std::ops::Range<u32>>,
) {
    let mut docs = BTreeMap::new();
    let mut ranges = BTreeMap::new();
    for (name, body) in bodies {
        docs.insert(name.clone(), doc(&[header, body, footer]));
        let start = header.len() as u32;
        ranges.insert(name.clone(), start..start + body.len() as u32);
    }
    (docs, ranges)
}

#[test]
fn a_licence_around_different_works_is_boilerplate_and_the_works_are_not() {
    let (header, footer) = (text(1, 400), text(2, 1_600));
    let bodies: Vec<(String, Vec<u64>)> = (0..6)
        .map(|i| (format!("work-{i}"), text(100 + i, 1_500)))
        .collect();
    let (docs, ranges) = wrapped(&header, &footer, &bodies);
    let learned = learn_all(&docs);
    for (name, body) in &ranges {
        let spans = &learned.spans[name];
        let total = docs[name].words;
        let body_hit = words_in(spans, body.clone());
        let licence = words_in(spans, 0..total) - body_hit;
        assert!(body_hit <= 8, "{name}: {body_hit} body words taken");
        assert!(
            licence >= 1_950,
            "{name}: only {licence} of 2,000 licence words found"
        );
    }
}

#[test]
fn copies_of_one_text_are_not_boilerplate_however_many() {
    let source = text(7, 2_000);
    let mut docs = BTreeMap::new();
    for k in 0..120u64 {
        let rate = 0.03 * (k % 31) as f64 / 30.0;
        docs.insert(format!("copy-{k:03}"), doc(&[&edited(&source, rate, k)]));
    }
    let learned = learn_all(&docs);
    assert!(
        learned.spans.is_empty(),
        "{:?}",
        learned.spans.keys().next()
    );
    assert!(learned.learned.is_empty());
}

#[test]
fn a_mixed_family_loses_its_licence_and_keeps_its_copies() {
    let (header, footer) = (text(1, 600), text(2, 900));
    let copied = text(9, 1_200);
    let mut bodies: Vec<(String, Vec<u64>)> = (0..4)
        .map(|i| (format!("work-{i}"), text(200 + i, 1_000)))
        .collect();
    for k in 0..10 {
        bodies.push((
            format!("copy-{k}"),
            edited(&copied, 0.01 * k as f64 / 3.0, k),
        ));
    }
    let (docs, ranges) = wrapped(&header, &footer, &bodies);
    let learned = learn_all(&docs);
    for (name, body) in &ranges {
        let spans = &learned.spans[name];
        assert!(words_in(spans, body.clone()) <= 8, "{name}: body taken");
        assert!(
            words_in(spans, 0..docs[name].words) >= 1_450,
            "{name}: licence missed"
        );
    }
}

#[test]
fn a_short_work_in_a_long_licence_keeps_its_body() {
    let (header, footer) = (text(1, 500), text(2, 1_600));
    let address = text(30, 270);
    let mut bodies: Vec<(String, Vec<u64>)> = (0..5)
        .map(|i| (format!("work-{i}"), text(300 + i, 2_000)))
        .collect();
    bodies.push(("address".into(), address.clone()));
    let (mut docs, ranges) = wrapped(&header, &footer, &bodies);
    docs.insert("address-scan".into(), doc(&[&edited(&address, 0.03, 5)]));
    let learned = learn_all(&docs);
    let spans = &learned.spans["address"];
    assert_eq!(words_in(spans, ranges["address"].clone()), 0);
    assert!(words_in(spans, 0..docs["address"].words) >= 2_050);
    assert!(!learned.spans.contains_key("address-scan"));
}

#[test]
fn an_anthology_and_its_parts_are_not_boilerplate() {
    let parts: Vec<Vec<u64>> = (0..4).map(|i| text(400 + i, 1_500)).collect();
    let refs: Vec<&[u64]> = parts.iter().map(Vec::as_slice).collect();
    let mut docs = BTreeMap::new();
    docs.insert("volume".to_owned(), doc(&refs));
    docs.insert("part-0".to_owned(), doc(&[&parts[0]]));
    docs.insert(
        "part-0-scan".to_owned(),
        doc(&[&edited(&parts[0], 0.03, 1)]),
    );
    docs.insert("part-1".to_owned(), doc(&[&parts[1]]));
    docs.insert(
        "part-2-scan".to_owned(),
        doc(&[&edited(&parts[2], 0.03, 2)]),
    );
    let learned = learn_all(&docs);
    assert!(learned.spans.is_empty(), "{:?}", learned.spans);
}

#[test]
fn header_footer_families_lose_the_licence_and_an_edited_body_keeps_its_match() {
    let (header, footer) = (text(1, 700), text(2, 2_000));
    let mut bodies: Vec<(String, Vec<u64>)> = (0..6)
        .map(|i| (format!("short-{i}"), text(500 + i, 300 + 100 * i as usize)))
        .collect();
    let edited_body = edited(&bodies[0].1, 0.03, 3);
    bodies.push(("short-0-edited".into(), edited_body));
    let (docs, ranges) = wrapped(&header, &footer, &bodies);
    let learned = learn_all(&docs);
    for (name, body) in &ranges {
        let spans = &learned.spans[name];
        assert_eq!(words_in(spans, body.clone()), 0, "{name}");
        assert!(words_in(spans, 0..docs[name].words) >= 2_650, "{name}");
    }
}

#[test]
fn overrules_and_pins_change_spans_at_once_and_name_the_documents() {
    let (header, footer) = (text(1, 400), text(2, 800));
    let notice = text(3, 150);
    let bodies: Vec<(String, Vec<u64>)> = (0..4)
        .map(|i| (format!("work-{i}"), text(600 + i, 800)))
        .collect();
    let (docs, _) = wrapped(&header, &footer, &bodies);
    let mut learner = Learner::new(BoilerplateConfig::default());
    for (k, d) in &docs {
        learner.insert(k.clone(), d.clone());
    }
    // Two scans share a notice: too few documents to learn it.
    let a = text(700, 900);
    let b = text(701, 900);
    learner.insert("scan-a".into(), doc(&[&notice, &a]));
    learner.insert("scan-b".into(), doc(&[&notice, &b]));
    assert!(learner.spans(&"scan-a".into()).is_empty());

    let passages = learner.passages();
    assert_eq!(passages.len(), 2, "header and footer");
    assert!(passages.iter().all(|p| p.documents == 4));
    let overruled: BTreeSet<u32> = passages[0].hashes.iter().copied().collect();
    let changed = learner.set_overruled(overruled);
    assert_eq!(changed.len(), 4, "every licensed document changed");
    assert_eq!(learner.passages().len(), 1);
    assert_eq!(learner.set_overruled(BTreeSet::new()).len(), 4);

    let changed = learner.set_pinned("user/notice.txt".into(), Some(doc(&[&notice])));
    assert_eq!(changed, vec!["scan-a".to_owned(), "scan-b".to_owned()]);
    // The notice's 150 words, to the sampling's precision.
    let span = learner.spans(&"scan-a".into())[0];
    assert!(
        span.start == 0 && (140..=154).contains(&span.end),
        "{span:?}"
    );
    learner.set_pinned("user/notice.txt".into(), None);
    assert!(learner.spans(&"scan-b".into()).is_empty());
}

#[test]
fn editions_of_a_long_work_with_their_own_prefaces_are_not_boilerplate() {
    let work = text(11, 12_000);
    let mut docs = BTreeMap::new();
    for i in 0..4u64 {
        let preface = text(900 + i, 1_500);
        let copy = edited(&work, 0.002 * i as f64, i);
        docs.insert(format!("edition-{i}"), doc(&[&preface, &copy]));
    }
    assert!(learn_all(&docs).spans.is_empty());
    // The same shape with a short shared text is a licence around works.
    let licence = text(12, 2_000);
    for i in 0..4u64 {
        docs.insert(
            format!("edition-{i}"),
            doc(&[&text(900 + i, 1_500), &licence]),
        );
    }
    assert_eq!(learn_all(&docs).spans.len(), 4);
}

#[test]
fn copies_of_a_long_work_under_a_licence_still_lose_the_licence() {
    let (header, footer) = (text(1, 400), text(2, 1_600));
    let work = text(13, 11_000);
    let mut bodies: Vec<(String, Vec<u64>)> = (0..3)
        .map(|i| (format!("work-{i}"), text(950 + i, 1_000)))
        .collect();
    // Three copies of one long work: too much shared text for any of it
    // to be boilerplate there; the other works carry the licence.
    for i in 0..3 {
        bodies.push((format!("copy-{i}"), work.clone()));
    }
    let (docs, ranges) = wrapped(&header, &footer, &bodies);
    let learned = learn_all(&docs);
    for (name, body) in &ranges {
        let spans = &learned.spans[name];
        assert_eq!(words_in(spans, body.clone()), 0, "{name}");
        assert!(words_in(spans, 0..docs[name].words) >= 1_950, "{name}");
    }
}

#[test]
fn a_volume_joining_two_works_takes_their_licence_below_the_group_count() {
    let (h1, f1, h2) = (text(1, 400), text(2, 500), text(3, 450));
    let b: Vec<Vec<u64>> = (0..5).map(|i| text(800 + i, 600)).collect();
    let mut learner = Learner::new(BoilerplateConfig::default());
    for (i, body) in b[..3].iter().enumerate() {
        learner.insert(format!("work-{i}"), doc(&[&h1, body, &f1]));
    }
    assert!(
        !learner.spans(&"work-0".into()).is_empty(),
        "three works, three groups"
    );
    // The volume holds works 0 and 1 under another licence; once that
    // licence is in three documents the volume has candidate runs and
    // joins the two works into one group: the first licence now sits
    // beside two groups only.
    learner.insert("volume".into(), doc(&[&h2, &b[0], &b[1]]));
    learner.insert("other-3".into(), doc(&[&h2, &b[3]]));
    let changed = learner.insert("other-4".into(), doc(&[&h2, &b[4]]));
    let names: Vec<String> = (0..3).map(|i| format!("work-{i}")).collect();
    assert!(names.iter().all(|n| changed.contains(n)), "{changed:?}");
    assert!(names.iter().all(|n| learner.spans(n).is_empty()));
    assert!(
        !learner.spans(&"other-3".into()).is_empty(),
        "the second licence is learned"
    );
    let docs: BTreeMap<String, DocSamples> = learner
        .documents()
        .map(|(k, d, _)| (k.clone(), d.clone()))
        .collect();
    assert_eq!(learner.snapshot(), learn_all(&docs));
}

/// Building blocks of the property test's documents: licence families,
/// works, volumes of two works, and copies of one work.
fn pool() -> Vec<DocSamples> {
    let (h1, f1, h2) = (text(1, 120), text(2, 160), text(3, 140));
    let b: Vec<Vec<u64>> = (0..6).map(|i| text(50 + i, 60 + 30 * i as usize)).collect();
    let copied = text(40, 200);
    let mut pool = vec![
        doc(&[&h2, &b[0], &b[1]]),
        doc(&[&h2, &b[4]]),
        doc(&[&h2, &b[5]]),
        doc(&[&h2, &b[2], &f1]),
        doc(&[&b[3], &b[4]]),
    ];
    for body in &b[..4] {
        pool.push(doc(&[&h1, body, &f1]));
    }
    for k in 0..4 {
        pool.push(doc(&[&edited(&copied, 0.005 * k as f64, k)]));
        pool.push(doc(&[&h1, &edited(&copied, 0.01 * k as f64, k + 9), &f1]));
    }
    pool
}

#[derive(Debug, Clone)]
enum Op {
    Insert(usize, usize),
    Remove(usize),
    Batch(Vec<(usize, usize)>, Vec<usize>),
    Overrule(u8),
    Pin(Option<usize>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..8usize, 0..17usize).prop_map(|(k, d)| Op::Insert(k, d)),
        2 => (0..8usize).prop_map(Op::Remove),
        2 => (
            proptest::collection::vec((0..8usize, 0..17usize), 0..5),
            proptest::collection::vec(0..8usize, 0..3)
        )
            .prop_map(|(a, r)| Op::Batch(a, r)),
        1 => any::<u8>().prop_map(Op::Overrule),
        1 => proptest::option::of(0..17usize).prop_map(Op::Pin),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any sequence of arrivals, replacements, removals, batches,
    /// overrules and pins leaves the learner exactly where learning the
    /// final set from scratch does; and it names every document whose spans
    /// moved.
    #[test]
    fn incremental_learning_equals_learning_from_scratch(ops in proptest::collection::vec(op(), 1..40)) {
        let pool = pool();
        let config = BoilerplateConfig { min_words: 24, min_remainder: 4, max_words: 320, ..BoilerplateConfig::default() };
        let mut learner: Learner<String> = Learner::new(config.clone());
        let mut docs: BTreeMap<String, DocSamples> = BTreeMap::new();
        let mut overruled = BTreeSet::new();
        let mut pinned = BTreeSet::new();
        let key = |k: usize| format!("doc-{k:02}");
        for op in ops {
            let before = learner.snapshot();
            let (changed, touched): (Vec<String>, BTreeSet<String>) = match op {
                Op::Insert(k, d) => {
                    docs.insert(key(k), pool[d].clone());
                    (learner.insert(key(k), pool[d].clone()), [key(k)].into())
                }
                Op::Remove(k) => {
                    docs.remove(&key(k));
                    (learner.remove(&key(k)), [key(k)].into())
                }
                Op::Batch(adds, removes) => {
                    let mut touched = BTreeSet::new();
                    for &r in &removes {
                        docs.remove(&key(r));
                        touched.insert(key(r));
                    }
                    let batch: BTreeMap<String, DocSamples> =
                        adds.iter().map(|&(k, d)| (key(k), pool[d].clone())).collect();
                    for (k, d) in &batch {
                        docs.insert(k.clone(), d.clone());
                        touched.insert(k.clone());
                    }
                    let removes = removes.iter().map(|&r| key(r)).collect();
                    (learner.update(batch.into_iter().collect(), removes), touched)
                }
                Op::Overrule(pick) => {
                    let passages = learner.passages();
                    overruled = passages
                        .get(pick as usize % (passages.len() + 1))
                        .map(|p| p.hashes.iter().copied().collect())
                        .unwrap_or_default();
                    (learner.set_overruled(overruled.clone()), BTreeSet::new())
                }
                Op::Pin(d) => {
                    pinned = d.map(|d| pool[d].distinct().into_iter().collect()).unwrap_or_default();
                    (learner.set_pinned("pinned".into(), d.map(|d| pool[d].clone())), BTreeSet::new())
                }
            };
            let after = learner.snapshot();
            let expected = learn(&docs, &pinned, &overruled, &config);
            prop_assert_eq!(&after, &expected);
            for k in docs.keys().filter(|k| !touched.contains(*k)) {
                let moved = before.spans.get(k) != after.spans.get(k);
                prop_assert_eq!(moved, changed.contains(k), "{} named wrongly", k);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Learning a set at once learns what learning it from scratch does,
    /// with or without pins and overrules, for any set of the pool's
    /// documents (some of them more than once, under other keys).
    #[test]
    fn learning_at_once_equals_learning_from_scratch(
        picks in proptest::collection::vec(0..17usize, 0..24),
        pin in proptest::option::of(0..17usize),
        overrule in any::<u8>(),
        min_docs in 2..4usize,
    ) {
        let pool = pool();
        let config = BoilerplateConfig {
            min_words: 24, min_remainder: 4, max_words: 320, min_docs,
            ..BoilerplateConfig::default()
        };
        let docs: BTreeMap<String, DocSamples> = picks
            .iter()
            .enumerate()
            .map(|(k, &d)| (format!("doc-{k:02}"), pool[d].clone()))
            .collect();
        let pinned: BTreeSet<u32> = pin.map(|d| pool[d].distinct().into_iter().collect()).unwrap_or_default();
        let plain = learn(&docs, &pinned, &BTreeSet::new(), &config);
        let passages = {
            let mut learner = Learner::new(config.clone());
            learner.add_in_batches(docs.clone());
            learner.passages()
        };
        let overruled: BTreeSet<u32> = passages
            .get(overrule as usize % (passages.len() + 1))
            .map(|p| p.hashes.iter().copied().collect())
            .unwrap_or_default();
        let listed: Vec<(String, DocSamples)> = docs.clone().into_iter().collect();
        prop_assert_eq!(&learn_at_once(&listed, &pinned, &BTreeSet::new(), &config), &plain);
        prop_assert_eq!(
            learn_at_once(&listed, &pinned, &overruled, &config),
            learn(&docs, &pinned, &overruled, &config)
        );
    }
}
