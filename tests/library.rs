//! The incremental library: candidate generation finds what all-pairs
//! comparison finds, thresholds re-cluster live, verdicts override, and the
//! order documents arrive in does not change the result.

mod common;

use common::{cluster_paths, library_prints, pair_paths, scored_pairs};

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, Fingerprints};
use doppel_index::collection::{list_files, read_text, DEFAULT_SIZE_CAP};
use doppel_pairing::candidates::CandidateConfig;
use doppel_pairing::cluster::{ClusterBy, ClusterMode, ClusterSpec, UnionFind};
use doppel_pairing::library::{Library, LibraryConfig, MemoryPrints, NoPrints};
use proptest::prelude::*;

static ENGINE: LazyLock<Engine> = LazyLock::new(Engine::default);

/// A library and the full fingerprints of what it holds, kept in step (as
/// an index keeps its library and its store).
struct Held {
    lib: Library,
    prints: MemoryPrints,
}

impl std::ops::Deref for Held {
    type Target = Library;
    fn deref(&self) -> &Library {
        &self.lib
    }
}

impl std::ops::DerefMut for Held {
    /// For the curator's decisions, which read no fingerprints.
    fn deref_mut(&mut self) -> &mut Library {
        &mut self.lib
    }
}

impl Held {
    fn new(config: LibraryConfig) -> Self {
        Held {
            lib: Library::new(&ENGINE, config),
            prints: MemoryPrints::default(),
        }
    }

    fn upsert(&mut self, path: &DocPath, fp: Fingerprints, shingles: usize) {
        let Ok(_) = self
            .lib
            .upsert(&ENGINE, path, fp.clone(), shingles, &self.prints);
        self.prints.0.insert(path.clone(), fp);
    }

    fn extend(&mut self, docs: Vec<(DocPath, Fingerprints, usize)>) {
        let Ok(()) = self.lib.extend(&ENGINE, docs.clone(), &self.prints);
        self.prints
            .0
            .extend(docs.into_iter().map(|(p, f, _)| (p, f)));
    }

    fn remove(&mut self, path: &DocPath) -> bool {
        let Ok(removed) = self.lib.remove(&ENGINE, path, &self.prints);
        self.prints.0.remove(path);
        removed
    }

    fn regather(&mut self, floors: doppel_core::engine::Thresholds) {
        let Ok(()) = self.lib.regather(&ENGINE, floors, &self.prints);
    }
}

/// Connected components of `n` documents joined by `edges` (two or more
/// members each), as index sets: the all-pairs oracle.
fn components(n: usize, edges: impl IntoIterator<Item = (usize, usize)>) -> Vec<BTreeSet<usize>> {
    let mut uf = UnionFind::new(n);
    for (a, b) in edges {
        uf.union(a, b);
    }
    let mut groups: std::collections::BTreeMap<usize, BTreeSet<usize>> = Default::default();
    for i in 0..n {
        groups.entry(uf.find(i)).or_default().insert(i);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

fn sample_docs() -> Vec<(DocPath, Fingerprints, usize)> {
    SAMPLE.clone()
}

static SAMPLE: LazyLock<Vec<(DocPath, Fingerprints, usize)>> = LazyLock::new(|| {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus");
    list_files(&root)
        .0
        .into_iter()
        .filter_map(|f| {
            let text = read_text(&f.path, DEFAULT_SIZE_CAP).ok()?.text;
            let (fp, shingles) = library_prints(&ENGINE, &text);
            Some((f.doc, fp, shingles))
        })
        .collect()
});

fn fusion() -> ClusterSpec {
    ClusterSpec::from_engine(&ENGINE)
}

#[test]
fn candidate_index_finds_the_same_clusters_as_all_pairs() {
    let engine = &*ENGINE;
    let docs = sample_docs();
    // The oracle: every pair compared, fusion verdicts, connected components.
    let edges = (0..docs.len())
        .flat_map(|a| (a + 1..docs.len()).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            let scores = engine.compare(&docs[a].1, &docs[b].1);
            engine.verdict(&scores, docs[a].2.min(docs[b].2)).fusion
        });
    let oracle: BTreeSet<BTreeSet<String>> = components(docs.len(), edges.collect::<Vec<_>>())
        .iter()
        .map(|c| c.iter().map(|&m| docs[m].0.to_string()).collect())
        .collect();
    let mut lib = Held::new(LibraryConfig::default());
    for (path, fp, shingles) in docs {
        lib.upsert(&path, fp, shingles);
    }
    assert!(
        oracle.len() >= 6,
        "the sample corpus has its groups: {oracle:?}"
    );
    assert_eq!(cluster_paths(&lib, &fusion()), oracle);
}

#[test]
fn default_floors_cover_every_default_threshold() {
    let lib = Library::new(&ENGINE, LibraryConfig::default());
    for id in AlgorithmId::ALL {
        let threshold = ENGINE.config().thresholds.get(id);
        assert!(
            lib.floors_allow(id, threshold),
            "{id}: threshold {threshold} is looser than its floor"
        );
    }
}

#[test]
fn raising_a_threshold_splits_a_cluster_without_refingerprinting() {
    let mut lib = Held::new(LibraryConfig::default());
    for (path, fp, shingles) in sample_docs() {
        lib.upsert(&path, fp, shingles);
    }
    let by_minhash = |t: f64| {
        let mut spec = fusion();
        spec.by = ClusterBy::Algorithm(AlgorithmId::Minhash);
        spec.thresholds.set(AlgorithmId::Minhash, t);
        cluster_paths(&lib, &spec)
    };
    let loose = by_minhash(0.5);
    let strict = by_minhash(0.95);
    let emma = |clusters: &BTreeSet<BTreeSet<String>>| {
        clusters
            .iter()
            .any(|c| c.contains("austen/emma-ch1.txt") && c.contains("edited/emma-ch1-edited.txt"))
    };
    assert!(emma(&loose), "the 2 % edited copy clusters at 0.5");
    assert!(!emma(&strict), "and splits off at 0.95");
    assert!(
        strict
            .iter()
            .any(|c| c.contains("austen/persuasion-ch1.txt")),
        "exact copies stay"
    );
    assert!(lib.floors_allow(AlgorithmId::Minhash, 0.95));
    assert!(
        !lib.floors_allow(AlgorithmId::Minhash, 0.1),
        "below the floor needs re-gathering"
    );
    assert!(!lib.floors_allow(AlgorithmId::Simhash, 40.0));
}

#[test]
fn regathering_below_the_floor_finds_weaker_pairs() {
    let mut lib = Held::new(LibraryConfig::default());
    for (path, fp, shingles) in sample_docs() {
        lib.upsert(&path, fp, shingles);
    }
    let before = lib.pairs().count();
    let mut floors = lib.config().floors.clone();
    floors.set(AlgorithmId::Simhash, 30.0);
    lib.regather(floors);
    assert!(lib.floors_allow(AlgorithmId::Simhash, 30.0));
    assert!(lib.pairs().count() >= before);
}

/// A regather asks `go_on` between its chunks of documents (four a chunk
/// here): told to stop, it leaves the library as it was, its floors and
/// pairs (the next threshold move below them gathers again), and the next
/// regather ends with the pairs of one never stopped.
#[test]
fn a_stopped_regather_leaves_the_library_as_it_was_and_the_next_completes() {
    let held = || {
        let mut lib = Held::new(LibraryConfig::default());
        lib.extend(sample_docs());
        lib.lib.set_batch_docs(Some(4));
        lib
    };
    let mut floors = LibraryConfig::default().floors;
    for id in [
        AlgorithmId::Shingle,
        AlgorithmId::Minhash,
        AlgorithmId::Winnow,
    ] {
        floors.set(id, 0.02);
    }
    floors.set(AlgorithmId::Simhash, 30.0);
    let mut whole = held();
    let before = scored_pairs(&whole);
    whole.regather(floors.clone());
    let expected = scored_pairs(&whole);
    assert!(
        expected.len() > before.len(),
        "the lower floors find more: {} then {}",
        before.len(),
        expected.len()
    );

    let mut lib = held();
    let mut asked = 0;
    let Ok(done) = lib
        .lib
        .regather_with(&ENGINE, floors.clone(), &lib.prints, &mut || {
            asked += 1;
            asked < 2
        });
    assert!(!done, "stopped");
    assert_eq!(asked, 2, "not asked again once stopped");
    assert_eq!(scored_pairs(&lib), before, "the pairs it had");
    assert!(
        !lib.floors_allow(AlgorithmId::Simhash, 30.0),
        "the floors it had"
    );
    let Ok(done) = lib
        .lib
        .regather_with(&ENGINE, floors, &lib.prints, &mut || true);
    assert!(done && lib.floors_allow(AlgorithmId::Simhash, 30.0));
    assert_eq!(scored_pairs(&lib), expected);
}

/// Three documents in a chain: A~B and B~C share half their words, A and C
/// only a sixth.
fn chain() -> Held {
    let words: Vec<String> = (0..500).map(|i| format!("word{i}x")).collect();
    let text = |r: std::ops::Range<usize>| words[r].join(" ");
    let mut lib = Held::new(LibraryConfig::default());
    for (path, range) in [("a.txt", 0..300), ("b.txt", 100..400), ("c.txt", 200..500)] {
        let (fp, n) = library_prints(&ENGINE, &text(range));
        lib.upsert(&path.into(), fp, n);
    }
    lib
}

fn by_shingle(mode: ClusterMode) -> ClusterSpec {
    let mut spec = fusion();
    spec.by = ClusterBy::Algorithm(AlgorithmId::Shingle);
    spec.thresholds.set(AlgorithmId::Shingle, 0.45);
    spec.mode = mode;
    spec
}

#[test]
fn star_mode_does_not_chain_unrelated_documents() {
    let lib = chain();
    let components = cluster_paths(&lib, &by_shingle(ClusterMode::Components));
    assert_eq!(components.len(), 1);
    assert_eq!(
        components.first().unwrap().len(),
        3,
        "components chain A~B~C"
    );
    let star = lib.clusters(&by_shingle(ClusterMode::Star));
    assert_eq!(star.len(), 1);
    let members: Vec<String> = star[0]
        .members
        .iter()
        .map(|&m| lib.doc(m).unwrap().path.to_string())
        .collect();
    assert_eq!(
        members,
        ["a.txt", "b.txt"],
        "the star around A leaves C out"
    );
}

#[test]
fn clusters_report_representative_weakest_link_and_agreement() {
    let lib = chain();
    let clusters = lib.clusters(&by_shingle(ClusterMode::Components));
    let c = &clusters[0];
    // The keeper rule's member represents, not the earliest arrival: B,
    // the middle of the chain, which both others agree with (A and C share
    // a third of their text with each other only through it).
    assert_eq!(
        lib.doc(c.representative()).unwrap().path,
        "b.txt",
        "the keeper rule's choice represents"
    );
    let (_, _, weakest) = c.weakest.unwrap();
    assert!((0.45..0.55).contains(&weakest), "weakest link {weakest}");
    assert!(c.agreeing.contains(&AlgorithmId::Shingle));
}

#[test]
fn curator_verdicts_override_and_survive_reindexing() {
    let mut lib = Held::new(LibraryConfig::default());
    let docs = sample_docs();
    for (path, fp, shingles) in docs.clone() {
        lib.upsert(&path, fp, shingles);
    }
    let (copy_a, copy_b) = (
        "austen/persuasion-ch1.txt",
        "copies/persuasion-ch1 (copy).txt",
    );
    let together = |lib: &Library| {
        cluster_paths(lib, &fusion())
            .iter()
            .any(|c| c.contains(copy_a) && c.contains(copy_b))
    };
    assert!(together(&lib));
    lib.set_pair_verdict(
        &copy_a.into(),
        &copy_b.into(),
        "alice",
        Some((CuratorVerdict::NotDuplicate, 1)),
    );
    assert!(
        !together(&lib),
        "a not-duplicate verdict splits exact copies"
    );
    // Re-index the copy (as a rescan would): the verdict holds.
    let (path, fp, shingles) = docs.iter().find(|d| d.0 == copy_b).unwrap().clone();
    lib.upsert(&path, fp, shingles);
    assert!(!together(&lib));
    // A second curator who disagrees disputes the pair: undecided, the
    // algorithms join the copies again, until one of them changes theirs.
    lib.set_pair_verdict(
        &copy_a.into(),
        &copy_b.into(),
        "bob",
        Some((CuratorVerdict::Duplicate, 2)),
    );
    assert!(lib.is_disputed(&copy_a.into(), &copy_b.into()));
    assert_eq!(lib.pair_verdict(&copy_a.into(), &copy_b.into()), None);
    assert_eq!(lib.pair_marks(&copy_a.into(), &copy_b.into()).len(), 2);
    assert!(together(&lib), "a disputed pair is left to the algorithms");
    lib.set_pair_verdict(
        &copy_a.into(),
        &copy_b.into(),
        "bob",
        Some((CuratorVerdict::NotDuplicate, 3)),
    );
    assert!(!lib.is_disputed(&copy_a.into(), &copy_b.into()));
    assert!(!together(&lib), "agreed again: the verdict holds");
    lib.set_pair_verdict(&copy_a.into(), &copy_b.into(), "bob", None);
    assert!(!together(&lib), "alice's verdict stays when bob clears his");
    lib.set_pair_verdict(&copy_a.into(), &copy_b.into(), "alice", None);
    assert!(together(&lib));
    // A duplicate verdict joins documents no algorithm links.
    lib.set_pair_verdict(
        &"bible/ruth-kjv.txt".into(),
        &"bible/ruth-web.txt".into(),
        "alice",
        Some((CuratorVerdict::Duplicate, 4)),
    );
    assert!(cluster_paths(&lib, &fusion())
        .iter()
        .any(|c| c.contains("bible/ruth-kjv.txt") && c.contains("bible/ruth-web.txt")));
    // Keeping a document makes it the representative.
    lib.set_keeper(&copy_b.into(), true);
    let clusters = lib.clusters(&fusion());
    let c = clusters
        .iter()
        .find(|c| {
            c.members
                .iter()
                .any(|&m| lib.doc(m).unwrap().path == copy_a)
        })
        .unwrap();
    assert_eq!(lib.doc(c.representative()).unwrap().path, copy_b);
}

#[test]
fn removing_a_document_removes_its_pairs_and_cluster() {
    let mut lib = Held::new(LibraryConfig::default());
    for (path, fp, shingles) in sample_docs() {
        lib.upsert(&path, fp, shingles);
    }
    let id = lib.id_of(&"edited/emma-ch1-edited.txt".into()).unwrap();
    assert!(lib.pairs().any(|(a, b, _)| a == id || b == id));
    assert!(lib.remove(&"edited/emma-ch1-edited.txt".into()));
    assert!(!lib.pairs().any(|(a, b, _)| a == id || b == id));
    // The chapter's other forms (EPUB, PDF scan, ALTO) keep its cluster.
    let clusters = cluster_paths(&lib, &fusion());
    let emma = clusters
        .iter()
        .find(|c| c.contains("austen/emma-ch1.txt"))
        .expect("the chapter still has its other forms");
    assert_eq!(
        emma.iter().map(String::as_str).collect::<Vec<_>>(),
        [
            "austen/emma-ch1.txt",
            "formats/emma.epub",
            "formats/emma_scan.pdf",
            "formats/emma_scan.xml"
        ],
        "the edited copy left its cluster, the rest stay"
    );
    assert!(!clusters
        .iter()
        .any(|c| c.contains("edited/emma-ch1-edited.txt")));
    assert!(!lib.remove(&"edited/emma-ch1-edited.txt".into()));
}

/// Shuffle `docs` (the arrival order) with a seeded generator.
fn shuffle<T>(docs: &mut [T], seed: u64) {
    let mut rng = doppel_core::hash::SplitMix64::new(seed);
    for i in (1..docs.len()).rev() {
        docs.swap(i, rng.below(i as u64 + 1) as usize);
    }
}

/// A library built by upserting `docs` one at a time, in order.
fn one_at_a_time(config: LibraryConfig, docs: Vec<(DocPath, Fingerprints, usize)>) -> Held {
    let mut lib = Held::new(config);
    for (path, fp, shingles) in docs {
        lib.upsert(&path, fp, shingles);
    }
    lib
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// One document at a time gives the same pairs and clusters as all at
    /// once, in any arrival order.
    #[test]
    fn incremental_equals_batch(seed in any::<u64>()) {
        let engine = &*ENGINE;
        let config = LibraryConfig {
            candidates: CandidateConfig { si_cap: 1000, ..CandidateConfig::default() },
            ..LibraryConfig::default()
        };
        let mut docs = sample_docs();
        let mut unshuffled = Library::new(engine, config.clone());
        let Ok(()) = unshuffled.extend(engine, docs.clone(), &NoPrints);
        shuffle(&mut docs, seed);
        // Same arrival order, so the same "earliest" representatives.
        let mut batch = Library::new(engine, config.clone());
        let Ok(()) = batch.extend(engine, docs.clone(), &NoPrints);
        let one_by_one = one_at_a_time(config, docs);
        prop_assert_eq!(pair_paths(&batch), pair_paths(&one_by_one));
        prop_assert_eq!(pair_paths(&unshuffled), pair_paths(&one_by_one));
        // Components do not depend on arrival order at all.
        prop_assert_eq!(cluster_paths(&unshuffled, &fusion()), cluster_paths(&one_by_one, &fusion()));
        for mode in [ClusterMode::Components, ClusterMode::Star] {
            let spec = ClusterSpec { mode, ..fusion() };
            prop_assert_eq!(cluster_paths(&batch, &spec), cluster_paths(&one_by_one, &spec));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// With caps that bite (one SI neighbour, posting lists of two), adding
    /// documents all at once still gives exactly the pairs of adding them
    /// one at a time in the same order.
    #[test]
    fn batch_equals_one_by_one_when_caps_bite(seed in any::<u64>()) {
        let engine = &*ENGINE;
        let config = LibraryConfig {
            candidates: CandidateConfig {
                si_cap: 1,
                max_postings: 2,
                ..CandidateConfig::default()
            },
            ..LibraryConfig::default()
        };
        let mut docs = sample_docs();
        shuffle(&mut docs, seed);
        let mut batch = Library::new(engine, config.clone());
        let Ok(()) = batch.extend(engine, docs.clone(), &NoPrints);
        let one_by_one = one_at_a_time(config, docs);
        prop_assert!(batch.si_capped() > 0, "the SI cap bites");
        prop_assert_eq!(pair_paths(&batch), pair_paths(&one_by_one));
        prop_assert_eq!(batch.si_capped(), one_by_one.si_capped());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// A library changed step by step (a batch, single additions, a
    /// document replaced by another's text, removals), reading what it
    /// held from its source, keeps exactly the pairs, with the same
    /// scores, of one built at once from the documents left; and after a
    /// re-gathering under a looser floor, those of one built at once under
    /// that floor. Caps bite (one SI neighbour, posting lists of two):
    /// what a library keeps never depends on the order documents came in.
    #[test]
    fn a_library_changed_step_by_step_equals_one_built_at_once(seed in any::<u64>(), split in 1usize..20) {
        let engine = &*ENGINE;
        let config = LibraryConfig {
            candidates: CandidateConfig { si_cap: 1, max_postings: 2, ..CandidateConfig::default() },
            ..LibraryConfig::default()
        };
        let mut docs = sample_docs();
        shuffle(&mut docs, seed);
        let split = split.min(docs.len());
        let mut changed = Held::new(config.clone());
        let (first, rest) = docs.split_at(split);
        changed.extend(first.to_vec());
        for (path, fp, n) in rest {
            changed.upsert(path, fp.clone(), *n);
        }
        // The first document comes back with the second one's text.
        let (path, _, _) = &docs[0];
        let (_, fp, n) = &docs[1];
        changed.upsert(path, fp.clone(), *n);
        let mut left = docs.clone();
        left[0] = (path.clone(), fp.clone(), *n);
        for (path, _, _) in docs.iter().skip(2).step_by(3) {
            prop_assert!(changed.remove(path));
        }
        left.retain(|(p, _, _)| changed.id_of(p).is_some());
        let mut fresh = Library::new(engine, config.clone());
        let Ok(()) = fresh.extend(engine, left.clone(), &NoPrints);
        prop_assert_eq!(scored_pairs(&changed), scored_pairs(&fresh));
        prop_assert_eq!(cluster_paths(&changed, &fusion()), cluster_paths(&fresh, &fusion()));
        let mut floors = config.floors.clone();
        floors.set(AlgorithmId::Minhash, 0.05);
        changed.regather(floors.clone());
        let mut fresh = Library::new(engine, LibraryConfig { floors, ..config });
        let Ok(()) = fresh.extend(engine, left, &NoPrints);
        prop_assert_eq!(scored_pairs(&changed), scored_pairs(&fresh));
    }
}

/// A document added to held ones is compared with each of them at most
/// once: the held documents its coming moves (it enters their SI nearest)
/// are not compared among themselves again, since no pair between them
/// can be gained by an addition. An indexed scan adds its files a chunk at
/// a time, and re-comparing what it held made it cost three times a scan
/// without an index.
#[test]
fn adding_a_document_compares_it_with_each_held_one_at_most_once() {
    let config = LibraryConfig {
        candidates: CandidateConfig {
            si_cap: 1000,
            ..CandidateConfig::default()
        },
        ..LibraryConfig::default()
    };
    let mut docs = sample_docs();
    let (path, fp, shingles) = docs.pop().expect("a sample corpus");
    let mut held = Held::new(config.clone());
    held.extend(docs.clone());
    let before = held.compared();
    held.upsert(&path, fp.clone(), shingles);
    let added = held.compared() - before;
    assert!(
        added <= docs.len() as u64,
        "{added} full comparisons to add one document to {}",
        docs.len()
    );
    // And the pairs are those of all of them at once.
    docs.push((path, fp, shingles));
    let mut at_once = Library::new(&ENGINE, config);
    let Ok(()) = at_once.extend(&ENGINE, docs, &NoPrints);
    assert_eq!(pair_paths(&held), pair_paths(&at_once));
}

/// The tables' proposals are counted as the tables make them: a copy
/// added after its original is one candidate, proposed by every index
/// whose keys the two share (the exact signature's and MinHash's bands
/// among them); the original, gathered before the copy existed, proposed
/// nothing.
#[test]
fn proposals_are_counted_once_per_gather() {
    let (path, fp, shingles) = sample_docs().swap_remove(0);
    let mut held = Held::new(LibraryConfig::default());
    held.upsert(&path, fp.clone(), shingles);
    assert_eq!(held.proposed().total, 0, "nothing to propose yet");
    held.upsert(&DocPath::from("copy.txt"), fp, shingles);
    let proposed = held.proposed();
    assert_eq!(proposed.total, 1, "{proposed:?}");
    assert_eq!(proposed.by(AlgorithmId::Exact), 1);
    assert_eq!(proposed.by(AlgorithmId::Minhash), 1);
    assert_eq!(pair_paths(&held).len(), 1);
}

/// Two different chapters wrapped in the same long licence header and
/// footer (a fifth of each text) are not duplicates under the defaults.
#[test]
fn shared_boilerplate_does_not_make_duplicates() {
    let engine = &*ENGINE;
    let read = |p: &str| std::fs::read_to_string(common::sample_corpus().join(p)).unwrap();
    let boilerplate = read("misc/us-constitution.txt");
    let boilerplate: String = boilerplate
        .split_whitespace()
        .take(900)
        .collect::<Vec<_>>()
        .join(" ");
    let a = format!(
        "{boilerplate}\n{}\n{boilerplate}",
        read("austen/emma-ch1.txt")
    );
    let b = format!(
        "{boilerplate}\n{}\n{boilerplate}",
        read("austen/persuasion-ch1.txt")
    );
    let (fa, na) = library_prints(&ENGINE, &a);
    let (fb, nb) = library_prints(&ENGINE, &b);
    let scores = engine.compare(&fa, &fb);
    let verdict = engine.verdict(&scores, na.min(nb));
    assert!(
        !verdict.fusion,
        "boilerplate alone made a duplicate: {verdict:?}"
    );
    let mut lib = Held::new(LibraryConfig::default());
    lib.upsert(&"a.txt".into(), fa, na);
    lib.upsert(&"b.txt".into(), fb, nb);
    assert!(lib.clusters(&fusion()).is_empty());
}

#[test]
fn histograms_are_sorted_and_follow_the_pairs() {
    let mut lib = Held::new(LibraryConfig::default());
    for (path, fp, shingles) in sample_docs() {
        lib.upsert(&path, fp, shingles);
    }
    let before = lib.histograms();
    let minhash = &before[&AlgorithmId::Minhash];
    assert_eq!(minhash.len(), lib.pairs().count());
    assert!(minhash.is_sorted_by(|a, b| a <= b));
    assert!(
        std::sync::Arc::ptr_eq(&before, &lib.histograms()),
        "cached while the pairs stay"
    );
    lib.remove(&"edited/emma-ch1-edited.txt".into());
    let after = lib.histograms();
    assert_eq!(after[&AlgorithmId::Minhash].len(), lib.pairs().count());
    assert!(after[&AlgorithmId::Minhash].len() < minhash.len());
}

/// Prints holding only a SimHash fingerprint and, when given, a
/// simhash-shingle fingerprint and an exact signature: a document whose
/// only keys are those algorithms' (hand-made, so their keys are known).
fn bare_prints(simhash: u64, simhash_shingle: Option<u64>, exact: Option<u64>) -> Fingerprints {
    Fingerprints {
        simhash: Some(Some(simhash)),
        simhash_shingle: simhash_shingle.map(Some),
        exact: exact.map(|x| Some(u128::from(x))),
        ..Fingerprints::default()
    }
}

/// The shape of issue 47's missing pair: two documents with identical
/// SimHash signatures in crowded buckets (200 more documents share the
/// signature, so each of SimHash's twelve posting lists holds 202, past
/// the cap), whose simhash-shingle fingerprints are 6 bits apart (within
/// that algorithm's floor) but share none of its twelve tables, and
/// whose other keys share a slot: `c.txt`'s simhash-shingle key of table
/// 7 and `b.txt`'s exact signature hashed to the same 32 bits when a
/// slot was a hash of (algorithm, table, key) alone. Proposals then
/// depended on which of the two asked: `c.txt`'s query found `b.txt` by
/// simhash-shingle (a cheap check it passes, and the pair is kept, 0 bits
/// apart by SimHash), `b.txt`'s by exact (a signature it must confirm, and
/// it does not). A fresh scan asked from `c.txt` (the later path); an
/// index whose `b.txt` came later, or gathered its candidates again when
/// the crowd pushed a list past the cap, did not keep the pair.
fn crowded_identical_signatures() -> Vec<(DocPath, Fingerprints, usize)> {
    const SIGNATURE: u64 = 0x5eed_0047_0000_0001;
    const SHINGLE_A: u64 = 0x3390_50ea_3d81_d59a;
    // One bit of each of the twelve tables' masks flipped.
    const SHINGLE_B: u64 = SHINGLE_A ^ 0xaf;
    const EXACT_B: u64 = 0x0685_d5cc_a755_b472;
    let mut docs = vec![
        (
            DocPath::from("b.txt"),
            bare_prints(SIGNATURE, Some(SHINGLE_B), Some(EXACT_B)),
            300,
        ),
        (
            DocPath::from("c.txt"),
            bare_prints(SIGNATURE, Some(SHINGLE_A), Some(1)),
            300,
        ),
    ];
    docs.extend((0..200).map(|i| {
        (
            DocPath::from(format!("a{i:03}.txt").as_str()),
            bare_prints(SIGNATURE, None, None),
            300,
        )
    }));
    docs
}

/// [`any_arrival_order_and_batches_keep_the_pairs_of_a_fresh_scan`]'s
/// case: the sample corpus and [`crowded_identical_signatures`] arrive in
/// the order `seed` shuffles them to, in batches cut at `cuts`.
fn arrive_in_batches(seed: u64, cuts: Vec<usize>) -> Result<(), TestCaseError> {
    let engine = &*ENGINE;
    let config = LibraryConfig::default();
    let mut docs = sample_docs();
    docs.extend(crowded_identical_signatures());
    docs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut fresh = Library::new(engine, config.clone());
    let all = MemoryPrints(
        docs.iter()
            .map(|(p, f, _)| (p.clone(), f.clone()))
            .collect(),
    );
    let Ok(_) = fresh.admit_unpaired(engine, docs.clone(), &all);
    let Ok(()) = fresh.pair_unpaired(engine, &all);
    shuffle(&mut docs, seed);
    let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(docs.len())).collect();
    cuts.push(docs.len());
    cuts.sort_unstable();
    let mut held = Held::new(config);
    let mut start = 0;
    for end in cuts {
        let batch = docs[start..end].to_vec();
        if start == 0 {
            // A fresh index: filed as read, paired once all are in.
            held.prints
                .0
                .extend(batch.iter().map(|(p, f, _)| (p.clone(), f.clone())));
            let Ok(_) = held.lib.admit_unpaired(engine, batch, &held.prints);
            let Ok(()) = held.lib.pair_unpaired(engine, &held.prints);
        } else {
            held.extend(batch);
        }
        start = end;
    }
    prop_assert_eq!(scored_pairs(&held), scored_pairs(&fresh));
    prop_assert_eq!(
        cluster_paths(&held, &fusion()),
        cluster_paths(&fresh, &fusion())
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Whatever the order documents arrive in and the batches they come
    /// in (a fresh index's first batch paired all at once, then batches
    /// added as an index adds its chunks), a library keeps exactly the
    /// pairs, every algorithm's scores, and the clusters of one made from
    /// all of them at once in path order (a `--no-index` scan). Among the
    /// sample corpus, documents with identical SimHash signatures crowd
    /// SimHash's posting lists past the cap, so lists cross it between
    /// batches ([`crowded_identical_signatures`]).
    #[test]
    fn any_arrival_order_and_batches_keep_the_pairs_of_a_fresh_scan(
        seed in any::<u64>(),
        cuts in prop::collection::vec(0usize..230, 0..4),
    ) {
        arrive_in_batches(seed, cuts)?;
    }
}

/// The case proptest shrank the property above to before keys of different
/// algorithms had slots of their own (proptest keeps no seed file for this
/// test crate): the fresh scan kept `b.txt` ~ `c.txt` (asked from `c.txt`),
/// the library that took the first 33 documents first did not.
#[test]
fn two_batches_of_the_crowded_documents_keep_the_pairs_of_a_fresh_scan() {
    arrive_in_batches(1_323_329_899_684_344_592, vec![33]).unwrap();
}
