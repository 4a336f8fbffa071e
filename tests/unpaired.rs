//! Pairing the documents a library filed unpaired (a fresh index's),
//! all at once: a read that fails part way leaves the rest for the next
//! call, and slots not kept in memory while reading come back from the
//! keys a source stores or from the prints, ending with the same pairs.

mod common;

use common::{library_prints, pair_paths, scored_pairs};

use std::collections::BTreeSet;
use std::sync::LazyLock;

use doppel_core::doc::DocPath;
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, EngineConfig, Fingerprints};
use doppel_pairing::library::{Library, LibraryConfig, MemoryPrints};

static ENGINE: LazyLock<Engine> = LazyLock::new(Engine::default);

/// A source whose `fail_at`-th read (from 0) fails, as a store whose disk
/// fails while a fresh index pairs its documents.
struct FailingRead {
    prints: MemoryPrints,
    reads: std::cell::Cell<usize>,
    fail_at: usize,
}

impl doppel_pairing::library::PrintSource for FailingRead {
    type Error = String;

    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>, String> {
        let read = self.reads.get();
        self.reads.set(read + 1);
        if read == self.fail_at {
            return Err(format!("read {read} failed"));
        }
        let Ok(prints) = self.prints.full_prints(paths);
        Ok(prints)
    }
}

/// Documents filed unpaired and paired all at once (a fresh index) are
/// paired a slice of 1,365 at a time (two slices here), each read beside
/// the pool's work on another slice. A read that fails at any point of that returns its
/// error and leaves the documents not yet paired for the next call, which
/// ends with exactly the pairs of an uninterrupted pairing.
#[test]
fn pairing_stopped_by_a_failed_read_ends_equal_on_the_next_call() {
    let (docs, prints) = copies_over_two_slices();
    let mut whole = Library::new(&ENGINE, LibraryConfig::default());
    let Ok(keys) = whole.admit_unpaired(&ENGINE, docs.clone(), &prints);
    // The keys it filed, in order, are those an index stores for each.
    assert_eq!(keys.len(), docs.len());
    for ((_, fp, _), keys) in docs.iter().zip(&keys) {
        assert_eq!(*keys, whole.doc_keys(fp));
    }
    let Ok(()) = whole.pair_unpaired(&ENGINE, &prints);
    let expected = pair_paths(&whole);
    assert!(
        expected.len() >= 250,
        "the copies are found: {}",
        expected.len()
    );
    // Reads: the first slice's prints, the second slice's (while the
    // first's candidates are gathered), the first's candidates' (while the
    // second's are gathered), the second's candidates'.
    for fail_at in 0..4 {
        let source = FailingRead {
            prints: prints.clone(),
            reads: std::cell::Cell::new(0),
            fail_at,
        };
        let mut lib = Library::new(&ENGINE, LibraryConfig::default());
        lib.admit_unpaired(&ENGINE, docs.clone(), &source).unwrap();
        let failed = lib.pair_unpaired(&ENGINE, &source);
        assert_eq!(failed, Err(format!("read {fail_at} failed")));
        assert!(lib.has_unpaired(), "read {fail_at}: documents wait");
        lib.pair_unpaired(&ENGINE, &source).unwrap();
        assert!(!lib.has_unpaired());
        assert_eq!(pair_paths(&lib), expected, "failed at read {fail_at}");
    }
}

/// Pairing asks `go_on` before each slice (two here): told to stop, it
/// ends at that slice, the documents not yet paired waiting (none paired
/// at the first ask, only the first slice's at the second), and the next
/// call ends with exactly the pairs of an uninterrupted pairing: what a
/// stopped fresh index pairs at its next pass.
#[test]
fn pairing_stopped_between_slices_ends_equal_on_the_next_call() {
    let (docs, prints) = copies_over_two_slices();
    let mut whole = Library::new(&ENGINE, LibraryConfig::default());
    let Ok(_) = whole.admit_unpaired(&ENGINE, docs.clone(), &prints);
    let Ok(()) = whole.pair_unpaired(&ENGINE, &prints);
    let expected = pair_paths(&whole);
    for stop_at in [1, 2] {
        let mut lib = Library::new(&ENGINE, LibraryConfig::default());
        let Ok(_) = lib.admit_unpaired(&ENGINE, docs.clone(), &prints);
        let mut asked = 0;
        let Ok(done) = lib.pair_unpaired_with(&ENGINE, &prints, &mut || {
            asked += 1;
            asked < stop_at
        });
        assert!(!done, "stopped at ask {stop_at}");
        assert_eq!(asked, stop_at, "not asked again once stopped");
        assert!(lib.has_unpaired(), "ask {stop_at}: documents wait");
        let paired = pair_paths(&lib).len();
        match stop_at {
            1 => assert_eq!(paired, 0, "nothing paired before the first slice"),
            _ => assert!(
                0 < paired && paired < expected.len(),
                "the first slice only: {paired} of {}",
                expected.len()
            ),
        }
        let Ok(done) = lib.pair_unpaired_with(&ENGINE, &prints, &mut || true);
        assert!(done && !lib.has_unpaired());
        assert_eq!(pair_paths(&lib), expected, "stopped at ask {stop_at}");
    }
}

/// A library that keeps the slots of only its first unpaired documents in
/// memory (a fresh index of a large folder: the others' are derived again
/// from their prints when pairing starts) files the same keys and ends
/// with exactly the pairs of one keeping them all, whatever it kept, and
/// also when a read fails while it takes the slots back or pairs.
#[test]
fn unpaired_documents_whose_slots_were_not_kept_pair_the_same() {
    let (docs, prints) = copies_over_two_slices();
    let (keys, expected) = paired_keeping_all(&docs, &prints);
    // All spilled (taken back in two slices), most, a few.
    for spill_after in [0, 1_000, 200_000] {
        // Reads 0 and 1 take back slots (when spilled), the rest pair.
        for fail_at in [None, Some(0), Some(1), Some(3)] {
            let source = FailingRead {
                prints: prints.clone(),
                reads: std::cell::Cell::new(0),
                fail_at: fail_at.unwrap_or(usize::MAX),
            };
            let context = format!("keeping {spill_after} slots, failing at read {fail_at:?}");
            let mut lib = Library::new(&ENGINE, LibraryConfig::default());
            lib.set_spill_after(spill_after);
            let filed = lib.admit_unpaired(&ENGINE, docs.clone(), &source).unwrap();
            assert_eq!(filed, keys, "{context}: the keys an index stores");
            if let Some(at) = fail_at {
                let failed = lib.pair_unpaired(&ENGINE, &source);
                assert_eq!(failed, Err(format!("read {at} failed")), "{context}");
                assert!(lib.has_unpaired(), "{context}: documents wait");
            }
            lib.pair_unpaired(&ENGINE, &source).unwrap();
            assert!(!lib.has_unpaired(), "{context}");
            assert_eq!(pair_paths(&lib), expected, "{context}");
        }
    }
}

/// Prints in memory, and keys stored beside them for some documents, as
/// an index keeps library entries; counts how many prints were read.
struct StoredKeys {
    prints: MemoryPrints,
    keys: std::collections::HashMap<DocPath, doppel_pairing::candidates::DocKeys>,
    prints_read: std::cell::Cell<usize>,
}

impl doppel_pairing::library::PrintSource for StoredKeys {
    type Error = std::convert::Infallible;

    fn full_prints(
        &self,
        paths: &[&DocPath],
    ) -> Result<Vec<Option<Fingerprints>>, std::convert::Infallible> {
        self.prints_read.set(self.prints_read.get() + paths.len());
        self.prints.full_prints(paths)
    }

    fn stored_keys(
        &self,
        paths: &[&DocPath],
    ) -> Result<Option<Vec<Option<doppel_pairing::candidates::DocKeys>>>, std::convert::Infallible>
    {
        Ok(Some(
            paths.iter().map(|p| self.keys.get(*p).cloned()).collect(),
        ))
    }
}

/// Slots not kept in memory are taken back from the keys the source
/// stores where it has them, and derived from the prints where it has
/// none or stored keys whose counts are not those filed (another
/// configuration's): the pairs are those of a library keeping them all.
#[test]
fn spilled_slots_come_back_from_stored_keys_where_they_agree() {
    let (docs, prints) = copies_over_two_slices();
    let (keys, expected) = paired_keeping_all(&docs, &prints);
    // Every fifth document has no stored keys; every third, keys whose
    // counts are off (and no slots): both are derived again.
    let mut stored = std::collections::HashMap::new();
    let mut derived = 0;
    for (i, ((path, _, _), k)) in docs.iter().zip(&keys).enumerate() {
        if i % 5 == 0 {
            derived += 1;
            continue;
        }
        let mut k = k.clone();
        if i % 3 == 0 {
            derived += 1;
            k.counts.shingle += 1;
            k.slots.clear();
        }
        stored.insert(path.clone(), k);
    }
    let source = StoredKeys {
        prints,
        keys: stored,
        prints_read: std::cell::Cell::new(0),
    };
    let mut lib = Library::new(&ENGINE, LibraryConfig::default());
    lib.set_spill_after(0);
    let Ok(filed) = lib.admit_unpaired(&ENGINE, docs.clone(), &source);
    assert_eq!(filed, keys);
    let Ok(()) = lib.pair_unpaired(&ENGINE, &source);
    assert_eq!(pair_paths(&lib), expected);
    // Pairing reads every document's prints once as its own slice's, and
    // some as candidates; taking the slots back read only the derived ones.
    let mut paired = Library::new(&ENGINE, LibraryConfig::default());
    let counting = StoredKeys {
        prints: source.prints.clone(),
        keys: std::collections::HashMap::new(),
        prints_read: std::cell::Cell::new(0),
    };
    let Ok(_) = paired.admit_unpaired(&ENGINE, docs.clone(), &counting);
    let Ok(()) = paired.pair_unpaired(&ENGINE, &counting);
    assert_eq!(
        source.prints_read.get(),
        counting.prints_read.get() + derived
    );
}

/// The keys filed and the pairs made by a library that keeps every
/// unpaired document's slots in memory.
fn paired_keeping_all(
    docs: &[(DocPath, Fingerprints, usize)],
    prints: &MemoryPrints,
) -> (
    Vec<doppel_pairing::candidates::DocKeys>,
    BTreeSet<(String, String)>,
) {
    let mut whole = Library::new(&ENGINE, LibraryConfig::default());
    let Ok(keys) = whole.admit_unpaired(&ENGINE, docs.to_vec(), prints);
    let Ok(()) = whole.pair_unpaired(&ENGINE, prints);
    (keys, pair_paths(&whole))
}

/// 1,900 random texts and 250 copies with one word changed of the first
/// 1,500, spread over both of a pairing's slices, with their prints.
fn copies_over_two_slices() -> (Vec<(DocPath, Fingerprints, usize)>, MemoryPrints) {
    let mut rng = doppel_core::hash::SplitMix64::new(7);
    let words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    let mut texts: Vec<String> = (0..1_900)
        .map(|_| {
            (0..40)
                .map(|_| words[rng.below(words.len() as u64) as usize].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    // Copies with one word changed, of the first 1,500 documents, spread
    // over both slices.
    for _ in 0..250 {
        let source = rng.below(1_500) as usize;
        let mut copy: Vec<&str> = texts[source].split(' ').collect();
        copy[20] = "changed";
        let at = 1_000 + rng.below(texts.len() as u64 - 1_000) as usize;
        texts.insert(at, copy.join(" "));
    }
    let docs: Vec<(DocPath, Fingerprints, usize)> = texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let (fp, shingles) = library_prints(&ENGINE, text);
            (DocPath::from(format!("{i:05}.txt").as_str()), fp, shingles)
        })
        .collect();
    let prints = MemoryPrints(
        docs.iter()
            .map(|(path, fp, _)| (path.clone(), fp.clone()))
            .collect(),
    );
    (docs, prints)
}

/// Texts of one size (400 words) proposed to each other by SI (each is
/// another's nearest in size) across both of a pairing's slices, most
/// sharing no sampled k-gram, and 40 copies (one word changed, or every
/// tenth) of documents in the first slice placed in the second: pairing
/// them all at once keeps exactly the pairs, with the same scores, that
/// extending a library with them does (which reads every proposal's
/// prints), with every algorithm and with SI alone (whose pairs only its
/// proposals find). Proposals only SI must confirm are dropped there when
/// the SI sketches cut to 16 bits share nothing, before the other
/// document's prints are read back.
#[test]
fn si_proposals_across_slices_pair_as_extending_does() {
    let mut rng = doppel_core::hash::SplitMix64::new(17);
    let words: Vec<String> = (0..2_000)
        .map(|_| {
            (0..6)
                .map(|_| char::from(b'a' + rng.below(26) as u8))
                .collect()
        })
        .collect();
    let mut texts: Vec<Vec<String>> = (0..1_500)
        .map(|_| {
            (0..400)
                .map(|_| words[rng.below(words.len() as u64) as usize].clone())
                .collect()
        })
        .collect();
    for step in [400, 10].repeat(20) {
        let mut copy = texts[rng.below(1_000) as usize].clone();
        for word in copy.iter_mut().step_by(step) {
            *word = words[rng.below(words.len() as u64) as usize].clone();
        }
        texts.push(copy);
    }
    let si_alone = Engine::new(EngineConfig {
        enabled: BTreeSet::from([AlgorithmId::Si]),
        ..EngineConfig::default()
    });
    for (engine, least) in [(&*ENGINE, 40), (&si_alone, 10)] {
        let docs: Vec<(DocPath, Fingerprints, usize)> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let (fp, shingles) = library_prints(engine, &text.join(" "));
                (DocPath::from(format!("{i:05}.txt").as_str()), fp, shingles)
            })
            .collect();
        assert!(docs
            .iter()
            .all(|(_, fp, _)| fp.si.as_ref().is_some_and(|si| !si.sketch.is_empty())));
        let prints = MemoryPrints(
            docs.iter()
                .map(|(path, fp, _)| (path.clone(), fp.clone()))
                .collect(),
        );
        let mut at_once = Library::new(engine, LibraryConfig::default());
        let Ok(_) = at_once.admit_unpaired(engine, docs.clone(), &prints);
        let Ok(()) = at_once.pair_unpaired(engine, &prints);
        let mut extended = Library::new(engine, LibraryConfig::default());
        let Ok(()) = extended.extend(engine, docs, &prints);
        let pairs = scored_pairs(&at_once);
        assert!(pairs.len() >= least, "the copies pair: {}", pairs.len());
        assert_eq!(pairs, scored_pairs(&extended));
    }
}
