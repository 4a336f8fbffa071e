//! Boilerplate learned from the collection, on the pipeline: on a generated
//! library collection, two works that share only a licence no longer pair
//! and a short work inside a long licence pairs with its own scan; many
//! copies of one text stay duplicates and teach nothing; the switch turns it
//! off; and the folder index learns exactly what a one-shot scan learns,
//! whatever order the files arrive and leave in, and reopens without
//! reading a file; a big file (read a piece at a time) takes no part in
//! learning; bodies made elsewhere (a cluster's executors), the rest
//! here, give the same scan. The curator's overrules on the index are in
//! `boilerplate_overrules.rs`, a one-shot scan's learning at once in
//! `boilerplate_at_once.rs`. The small generated library is made from the
//! books of `tests/data/corpus/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_core::hash::SplitMix64;
use doppel_eval::library::LibraryCollection;
use doppel_eval::{edit_words, vocabulary};
use doppel_index::index::{FolderIndex, IndexOptions, ReconcileReport};
use doppel_index::reading::ReadLimits;
use doppel_index::scan::{scan_folder_with, ScanHooks, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

mod common;
mod faulty_store;
use common::boilerplate::{indexed, scan, seen, small, state, write};

/// A scan of `dir` under the default library settings, with `hooks`.
fn scan_hooked(dir: &Path, engine: &Engine, hooks: &ScanHooks<'_>) -> ScanReport {
    let spec = ClusterSpec::from_engine(engine);
    let weights = engine.reference_weights();
    scan_folder_with(dir, engine, weights, LibraryConfig::default(), spec, hooks).expect("scan")
}

/// The fusion pairs of a report.
fn fused(report: &ScanReport) -> BTreeSet<(String, String)> {
    report
        .pairs()
        .into_iter()
        .filter(|p| p.verdict.fusion)
        .map(|p| (p.a.to_string(), p.b.to_string()))
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

#[test]
fn licence_only_pairs_are_gone_and_a_short_work_in_a_long_licence_pairs_with_its_scan() {
    let library = small();
    let dir = tempfile::tempdir().unwrap();
    write(library, dir.path(), |_| true);
    let report = scan(dir.path(), LibraryConfig::default());
    let truth: BTreeSet<(String, String)> = library
        .truth
        .pairs
        .iter()
        .map(|p| pair(&p.a, &p.b))
        .collect();
    // Families carried by fewer than three documents cannot be learned
    // (min-docs 3: two documents sharing a passage look like two related
    // documents); the small library's Lantern licence is one.
    let mut carriers: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &library.documents {
        if let Some(b) = &d.boilerplate {
            *carriers.entry(b.as_str()).or_default() += 1;
        }
    }
    let family = |path: &str| {
        library
            .documents
            .iter()
            .find(|d| d.path == path)
            .and_then(|d| d.boilerplate.as_deref())
    };
    let fused = fused(&report);
    for (a, b) in fused.difference(&truth) {
        let shared = family(a).filter(|f| family(b) == Some(f));
        assert!(
            shared.is_some_and(|f| carriers[f] < 3),
            "false pair {a} ~ {b} (families {:?} / {:?})",
            family(a),
            family(b)
        );
    }
    let riverbank = "hard-cases/riverbank/";
    assert!(
        fused.iter().all(
            |(a, b)| !(a.starts_with(riverbank) && b.starts_with(riverbank))
                || a.contains("hoover") && b.contains("hoover")
        ),
        "only the two Hoover texts of the Riverbank family pair: {fused:?}"
    );
    assert!(fused.contains(&pair(
        "etexts/lincoln-gettysburg-address.txt",
        "scans/lincoln-gettysburg-address-scan.txt"
    )));
    assert!(fused.contains(&pair(
        "hard-cases/riverbank/1932_herbert_hoover_r.txt",
        "hard-cases/riverbank/1932_herbert_hoover_r-edited.txt"
    )));
    // What was left out is the licence, shown as the text spells it.
    let gettysburg = &report.boilerplate.documents
        [&doppel_core::doc::DocPath::from("etexts/lincoln-gettysburg-address.txt")];
    let text = &library
        .documents
        .iter()
        .find(|d| d.path == "etexts/lincoln-gettysburg-address.txt")
        .unwrap()
        .text;
    assert!(gettysburg.words() > 1000, "{gettysburg:?}");
    for r in &gettysburg.ranges {
        let cut = &text[r.start as usize..r.end as usize];
        assert!(
            !cut.contains("Four score"),
            "the address is body: {cut:.200}"
        );
    }
    assert!(report
        .boilerplate
        .passages
        .iter()
        .any(|p| p.documents >= 4 && p.first_words.contains("Fees and donations")));
}

#[test]
fn many_copies_under_no_licence_are_all_still_paired_and_nothing_is_learned() {
    let text =
        std::fs::read_to_string(common::sample_corpus().join("moby/moby-dick-ch1.txt")).unwrap();
    let source: String = text
        .split_whitespace()
        .take(900)
        .collect::<Vec<_>>()
        .join(" ");
    let vocab = vocabulary([text.as_str()]);
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(7);
    let copies = 24;
    for i in 0..copies {
        let rate = 0.01 + 0.002 * i as f64;
        let edited = edit_words(&source, rate, &vocab, &mut rng);
        std::fs::write(dir.path().join(format!("copy-{i:02}.txt")), edited.text).unwrap();
    }
    let report = scan(dir.path(), LibraryConfig::default());
    assert!(
        report.boilerplate.passages.is_empty(),
        "{:?}",
        report.boilerplate.passages
    );
    assert!(report.boilerplate.documents.is_empty());
    assert_eq!(fused(&report).len(), copies * (copies - 1) / 2);
}

#[test]
fn the_switch_turns_learning_off() {
    let library = small();
    let dir = tempfile::tempdir().unwrap();
    write(library, dir.path(), |_| true);
    let mut config = LibraryConfig::default();
    config.boilerplate.enabled = false;
    let off = scan(dir.path(), config);
    assert!(off.boilerplate.passages.is_empty());
    assert!(off.boilerplate.documents.is_empty());
    // Without it, the Riverbank licence pairs different works again.
    assert!(fused(&off).contains(&pair(
        "hard-cases/riverbank/31_Obadiah.txt",
        "hard-cases/riverbank/65_Jude.txt"
    )));
}

/// Two of the four texts under the Riverbank licence, and the e-texts: too
/// few to learn the licence from, until the other two arrive.
fn two_riverbank_texts_and_the_etexts(path: &str) -> bool {
    path.contains("Obadiah") || path.contains("Jude") || path.starts_with("etexts/")
}

#[test]
fn the_index_learns_what_a_scan_learns_in_any_order_of_arrival_and_reopens_unread() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let index = tmp.path().join("index.sqlite");
    // Two of the four Riverbank texts first: the licence is not learned
    // yet (two documents), then the rest arrives and the first two must be
    // read again and fingerprinted over their bodies.
    let first = two_riverbank_texts_and_the_etexts;
    write(library, &dir, first);
    let (report, _) = indexed(&dir, &index);
    assert_eq!(seen(&report), seen(&scan(&dir, LibraryConfig::default())));
    write(library, &dir, |p| !first(p));
    let (report, _) = indexed(&dir, &index);
    let whole = scan(&dir, LibraryConfig::default());
    assert!(!whole.boilerplate.passages.is_empty());
    assert_eq!(seen(&report), seen(&whole));
    // Reopened unchanged: nothing is read, the same report.
    let (again, read) = indexed(&dir, &index);
    assert_eq!(read, 0);
    assert_eq!(seen(&again), seen(&whole));
    // Documents leave: the Riverbank licence is down to two documents.
    for gone in ["31_Obadiah.txt", "65_Jude.txt"] {
        std::fs::remove_file(dir.join("hard-cases/riverbank").join(gone)).unwrap();
    }
    let (report, _) = indexed(&dir, &index);
    assert_eq!(seen(&report), seen(&scan(&dir, LibraryConfig::default())));
}

/// Documents whose learned boilerplate a later arrival moved are read
/// again; when that is interrupted (here the store fails as on a full
/// disk, as a crash would), the next run still reads them again instead of
/// keeping their stale fingerprints.
#[test]
fn documents_whose_boilerplate_moved_are_read_again_after_an_interrupted_run() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let index = tmp.path().join("index.sqlite");
    let first = two_riverbank_texts_and_the_etexts;
    write(library, &dir, first);
    let (_, read) = indexed(&dir, &index);
    assert!(read > 0);
    write(library, &dir, |p| !first(p));
    let arriving = library.documents.iter().filter(|d| !first(&d.path)).count();
    let faults = faulty_store::Faults::default();
    let mut folder = faulty_store::open_index(
        &dir,
        Engine::default(),
        LibraryConfig::default(),
        &index,
        &faults,
    );
    // The arriving files are committed; reading the first two again fails.
    faults.fail_after(arriving, 1);
    assert!(folder.reconcile().is_err());
    assert_eq!(faults.pending(), 0, "the re-read was reached");
    drop(folder);
    let (report, read) = indexed(&dir, &index);
    assert!(
        read >= 2,
        "the documents whose boilerplate moved are read again: {read}"
    );
    let whole = scan(&dir, LibraryConfig::default());
    assert!(!whole.boilerplate.passages.is_empty());
    assert_eq!(seen(&report), seen(&whole));
    let (_, read) = indexed(&dir, &index);
    assert_eq!(read, 0, "and then nothing is left to read");
}

/// An index at `index` of `library`'s documents that `first` accepts,
/// reconciled; then the rest written into `dir`, not yet indexed, and
/// their paths in order (for the watcher's events to name them).
fn indexed_then_the_rest_written<'a>(
    library: &'a LibraryCollection,
    dir: &Path,
    index: &Path,
    first: impl Fn(&str) -> bool,
) -> (FolderIndex, Vec<&'a str>) {
    write(library, dir, &first);
    let (folder, _) = FolderIndex::open(
        dir,
        Engine::default(),
        LibraryConfig::default(),
        Some(index),
    )
    .unwrap();
    the_rest_written(library, dir, folder, first)
}

/// [`indexed_then_the_rest_written`], the index's document writes failing
/// as `faults` say (none until told).
fn indexed_then_the_rest_written_failing<'a>(
    library: &'a LibraryCollection,
    dir: &Path,
    index: &Path,
    first: impl Fn(&str) -> bool,
    faults: &faulty_store::Faults,
) -> (FolderIndex, Vec<&'a str>) {
    write(library, dir, &first);
    let folder = faulty_store::open_index(
        dir,
        Engine::default(),
        LibraryConfig::default(),
        index,
        faults,
    );
    the_rest_written(library, dir, folder, first)
}

/// `folder` reconciled with the documents `first` picks, then the others
/// written (not yet read), sorted.
fn the_rest_written<'a>(
    library: &'a LibraryCollection,
    dir: &Path,
    mut folder: FolderIndex,
    first: impl Fn(&str) -> bool,
) -> (FolderIndex, Vec<&'a str>) {
    folder.reconcile().unwrap();
    let mut rest: Vec<&str> = library
        .documents
        .iter()
        .map(|d| d.path.as_str())
        .filter(|p| !first(p))
        .collect();
    rest.sort();
    write(library, dir, |p| !first(p));
    (folder, rest)
}

#[test]
fn the_watcher_s_events_leave_the_index_equal_to_a_fresh_scan() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let index = tmp.path().join("index.sqlite");
    let first = |p: &str| p.contains("Obadiah") || p.starts_with("etexts/");
    let (mut folder, rest) = indexed_then_the_rest_written(library, &dir, &index, first);
    // Files arrive one event at a time, as the watcher names them.
    for path in &rest {
        folder.sync_paths(&[folder.root().join(path)]).unwrap();
    }
    // One leaves.
    let gone = folder.root().join("hard-cases/riverbank/65_Jude.txt");
    std::fs::remove_file(&gone).unwrap();
    folder.sync_paths(&[gone]).unwrap();
    assert_equals_a_fresh_scan(folder, &dir, "after the events");
}

/// The report of the index `folder` equals a fresh scan's of `dir`, and
/// that scan learned some boilerplate.
fn assert_equals_a_fresh_scan(folder: FolderIndex, dir: &Path, context: &str) {
    let spec = ClusterSpec::from_engine(&Engine::default());
    let report = ScanReport::from_index(folder, spec, &ReconcileReport::default()).unwrap();
    let fresh = scan(dir, LibraryConfig::default());
    assert!(!fresh.boilerplate.passages.is_empty(), "{context}");
    assert_eq!(seen(&report), seen(&fresh), "{context}");
}

#[test]
fn the_pair_screen_and_the_diff_show_the_learned_boilerplate() {
    use doppel_index::worker::protocol::DiffKind;
    use doppel_index::worker::{spawn, Command, Update, WorkerConfig};
    use std::time::{Duration, Instant};
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    write(library, &dir, |_| true);
    let mut config = WorkerConfig::new(&dir);
    config.index = Some(tmp.path().join("index.sqlite").into());
    config.rescan_every = Duration::ZERO;
    let worker = spawn(config);
    let (a, b) = (
        "hard-cases/riverbank/1932_herbert_hoover_r-edited.txt",
        "hard-cases/riverbank/1932_herbert_hoover_r.txt",
    );
    let end = Instant::now() + Duration::from_secs(120);
    let mut asked = false;
    let diff = loop {
        match worker
            .updates
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .expect("a diff within two minutes")
        {
            Update::Snapshot(s) if !asked && s.documents > 0 => {
                worker
                    .commands
                    .send(Command::RequestDiff {
                        a: a.into(),
                        b: b.into(),
                        deadline: Duration::from_secs(30),
                    })
                    .unwrap();
                asked = true;
            }
            Update::Diff(d) => break d,
            _ => {}
        }
    };
    let text = &library.documents.iter().find(|d| d.path == b).unwrap().text;
    let side = &diff.right;
    let ignored: Vec<&str> = side
        .words
        .iter()
        .filter(|w| w.kind == DiffKind::Ignored)
        .map(|w| &text[w.start as usize..w.end as usize])
        .collect();
    let compared = side.words.len() - ignored.len();
    // The licence (about 2,900 words of 3,800) is greyed; the address is not.
    assert!(ignored.len() > 2000, "{} ignored", ignored.len());
    assert!(compared > 500, "{compared} compared");
    assert!(ignored.join(" ").contains("Riverbank"));

    // The pair screen: how much of each side is boilerplate, and exact
    // measures over the bodies (two works that share only the licence).
    let (c, d) = (
        "hard-cases/riverbank/31_Obadiah.txt",
        "hard-cases/riverbank/65_Jude.txt",
    );
    worker
        .commands
        .send(Command::RequestPair {
            a: c.into(),
            b: d.into(),
        })
        .unwrap();
    let detail = loop {
        if let Update::Pair(p) = worker
            .updates
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .expect("a pair detail within two minutes")
        {
            break p;
        }
    };
    for side in detail.boilerplate {
        assert!(side.share() > 0.7, "{side:?}");
        assert!(side.shared_by >= 4, "{side:?}");
    }
    assert!(!detail.fusion);
    assert!(detail.a_in_b < 0.2 && detail.b_in_a < 0.2, "{detail:?}");
    worker.commands.send(Command::Quit).ok();
    worker.join();
}

/// The library's largest document holding learned boilerplate, with its
/// size in bytes.
fn largest_with_boilerplate(report: &ScanReport, dir: &Path) -> (DocPath, u64) {
    report
        .boilerplate
        .documents
        .keys()
        .map(|doc| {
            let bytes = std::fs::metadata(dir.join(doc.to_relative_path()))
                .unwrap()
                .len();
            (doc.clone(), bytes)
        })
        .max_by_key(|(_, bytes)| *bytes)
        .expect("the small library has learned boilerplate")
}

/// A document is nowhere in a report's boilerplate: no spans, no passage.
fn absent(report: &ScanReport, doc: &DocPath) -> bool {
    !report.boilerplate.documents.contains_key(doc)
        && report
            .boilerplate
            .passages
            .iter()
            .all(|p| !p.members.contains(doc))
}

#[test]
fn a_big_file_read_in_pieces_takes_no_part_in_learning_in_a_scan_or_the_index() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let index = tmp.path().join("index.sqlite");
    write(library, &dir, |_| true);
    // Read whole (every file is small): the largest carrier has spans, in
    // the index too.
    let whole = scan(&dir, LibraryConfig::default());
    let (big, bytes) = largest_with_boilerplate(&whole, &dir);
    let engine = Engine::default();
    let (mut folder, _) =
        FolderIndex::open(&dir, engine, LibraryConfig::default(), Some(&index)).unwrap();
    let reconciled = folder.reconcile().unwrap();
    let before = ScanReport::from_index(
        folder,
        ClusterSpec::from_engine(&Engine::default()),
        &reconciled,
    )
    .unwrap();
    assert!(!absent(&before, &big), "{big} has spans when read whole");

    // It grows past the big-file size: read a piece at a time, unsampled.
    let path = dir.join(big.to_relative_path());
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\nThe end.\n");
    std::fs::write(&path, text).unwrap();
    let limits = ReadLimits {
        big_file_bytes: bytes - 1,
        ..ReadLimits::default()
    };
    let engine = Engine::default();
    let hooks = ScanHooks {
        limits,
        ..ScanHooks::default()
    };
    let scanned = scan_hooked(&dir, &engine, &hooks);
    assert!(scanned.docs.iter().all(|d| d.skipped.is_none()));
    assert!(absent(&scanned, &big), "{big} is big: not learned from");
    for doc in scanned.boilerplate.documents.keys() {
        let len = std::fs::metadata(dir.join(doc.to_relative_path()))
            .unwrap()
            .len();
        assert!(len <= limits.big_file_bytes, "{doc} is big but has spans");
    }
    // Others still learn (the families have more carriers than it).
    assert!(!scanned.boilerplate.passages.is_empty());

    // The index reads the changed file as big: its stored spans go, and it
    // reports what the scan does under the same limits.
    let (mut folder, _) =
        FolderIndex::open(&dir, engine, LibraryConfig::default(), Some(&index)).unwrap();
    folder.set_read_limits(limits);
    let reconciled = folder.reconcile().unwrap();
    let after = ScanReport::from_index(
        folder,
        ClusterSpec::from_engine(&Engine::default()),
        &reconciled,
    )
    .unwrap();
    assert!(absent(&after, &big), "no stale span for {big}");
    assert_eq!(seen(&after), seen(&scanned));
}

/// The HTML report's diffs leave the learned boilerplate out and mark it,
/// as the review screen's diff does: a licence-wrapped pair shows its
/// licence words as boilerplate.
#[test]
fn the_html_report_marks_the_learned_boilerplate_in_its_diffs() {
    use doppel_report::html;
    let library = small();
    let dir = tempfile::tempdir().unwrap();
    write(library, dir.path(), |_| true);
    let report = scan(dir.path(), LibraryConfig::default());
    assert!(!report.boilerplate.documents.is_empty());
    let page = html::scan_report(
        &report,
        dir.path(),
        &doppel_core::engine::EngineConfig::default(),
        &html::Limits::default(),
    );
    let marked = page
        .matches("title=\"boilerplate, left out of the comparison\"")
        .count();
    assert!(marked > 0, "no boilerplate marked in any diff");
}

/// A one-shot scan reads its files a chunk at a time while the learner
/// takes the chunk before: read two files at a time, a scan learns and
/// pairs exactly what it does reading them all at once (the same passages
/// and spans, the same JSON report).
#[test]
fn a_scan_read_in_small_chunks_learns_and_pairs_as_in_one() {
    let f = common::fixture();
    let engine = Engine::default();
    let scan_in = |files: usize| {
        let hooks = ScanHooks {
            read_chunk_files: Some(files),
            ..ScanHooks::default()
        };
        let scan = scan_hooked(&f.folder, &engine, &hooks);
        let json = doppel_report::json(&scan, &f.folder, engine.config()).unwrap();
        assert!(
            !scan.boilerplate.passages.is_empty(),
            "the fixture has boilerplate"
        );
        (format!("{:#?}", scan.boilerplate), json)
    };
    let (whole_learned, whole_json) = scan_in(usize::MAX);
    let (chunked_learned, chunked_json) = scan_in(2);
    assert_eq!(chunked_learned, whole_learned);
    assert_eq!(chunked_json, whole_json);
}

/// Bodies made elsewhere (as doppel-cluster's executors make them, with
/// `read_body`) give the scan one process gives; and what the other place
/// does not answer (a plan that failed part way) is made here: every
/// other body answered there, the rest here, the same passages, spans
/// and JSON report.
#[test]
fn bodies_made_elsewhere_and_the_rest_here_give_the_same_scan() {
    use doppel_index::collection::{ListedRoot, Source};
    use doppel_index::scan::{read_body, BodiesElsewhere, BodyWanted, MadeBody};
    use doppel_index::spill::{SpillError, SpilledPrints};
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// Makes every other body it is asked for, and counts them.
    struct EveryOther {
        engine: Engine,
        listed: ListedRoot,
        asked: Mutex<usize>,
    }
    impl BodiesElsewhere for EveryOther {
        fn bodies<'w>(
            &self,
            wanted: &[BodyWanted<'w>],
            spill: &SpilledPrints,
        ) -> Result<HashMap<&'w DocPath, MadeBody>, SpillError> {
            *self.asked.lock().unwrap() += wanted.len();
            let mut made = HashMap::new();
            for w in wanted.iter().step_by(2) {
                let source = Source::Listed(&self.listed, w.file);
                let limits = ReadLimits::default();
                let body = read_body(&self.engine, source, &limits, w.words, w.spans);
                let body = match body {
                    Some((prints, count, found)) => {
                        spill.put(&w.file.doc, &prints)?;
                        Some((count, found))
                    }
                    None => None,
                };
                made.insert(&w.file.doc, body);
            }
            Ok(made)
        }
    }

    let f = common::fixture();
    let engine = Engine::default();
    let elsewhere = EveryOther {
        engine: Engine::default(),
        listed: ListedRoot::new(&f.folder),
        asked: Mutex::new(0),
    };
    let scan_with = |hooks: &ScanHooks<'_>| {
        let scan = scan_hooked(&f.folder, &engine, hooks);
        let json = doppel_report::json(&scan, &f.folder, engine.config()).unwrap();
        (format!("{:#?}", scan.boilerplate), json)
    };
    let (here_learned, here_json) = scan_with(&ScanHooks::default());
    let hooks = ScanHooks {
        bodies: Some(&elsewhere),
        ..ScanHooks::default()
    };
    let (split_learned, split_json) = scan_with(&hooks);
    let asked = *elsewhere.asked.lock().unwrap();
    assert!(asked >= 2, "bodies were asked for elsewhere: {asked}");
    assert_eq!(split_learned, here_learned);
    assert_eq!(split_json, here_json);
}

/// A reconcile learns each chunk while the one before it is committed.
/// Cancelled after a chunk, what it learned ahead was never committed:
/// when those files are gone before the next reconcile, the boilerplate
/// learned from what arrives after must not count them (here the Riverbank
/// licence, whose other two texts are committed first). The index ends as
/// a fresh index of what is left.
#[test]
fn a_cancelled_reconcile_forgets_what_it_learned_ahead_of_its_commits() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    write(library, &dir, |_| true);
    let open = |at: &str| {
        let at = tmp.path().join(at);
        FolderIndex::open(&dir, Engine::default(), LibraryConfig::default(), Some(&at))
            .unwrap()
            .0
    };
    let mut index = open("index.sqlite");
    index.set_options(IndexOptions {
        chunk_files: 2,
        ..index.options().clone()
    });
    let riverbank = dir.join("hard-cases/riverbank");
    assert!(riverbank.join("1932_herbert_hoover_r.txt").exists());
    // Two files at a time in path order, the two Hoover texts are the 11th
    // and 12th: stop once they are committed.
    let report = index
        .reconcile_with(&mut |p| {
            if p.done >= 12 {
                // Time for the next chunk (Obadiah and Jude) to be learned.
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            p.done < 12
        })
        .unwrap();
    assert!(report.cancelled);
    let gone = ["31_Obadiah.txt", "65_Jude.txt"];
    for name in gone {
        let doc = DocPath::from_relative(Path::new("hard-cases/riverbank").join(name).as_path());
        assert!(index.library().id_of(&doc).is_none(), "{name} uncommitted");
        std::fs::remove_file(riverbank.join(name)).unwrap();
    }
    index.reconcile().unwrap();
    let mut fresh = open("fresh.sqlite");
    fresh.reconcile().unwrap();
    assert_eq!(state(&index), state(&fresh));
}

/// A one-shot scan's fresh index frees its learner before pairing (at
/// 110k texts it is ~220 MiB of the peak). Opened again and changed, the
/// index builds it from the store and learns what a fresh scan learns.
#[test]
fn a_one_shot_index_frees_its_learner_and_builds_it_again_when_changed() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let at = tmp.path().join("index.sqlite");
    let first = two_riverbank_texts_and_the_etexts;
    write(library, &dir, first);
    let spec = ClusterSpec::from_engine(&Engine::default());
    let (mut index, _) =
        FolderIndex::open(&dir, Engine::default(), LibraryConfig::default(), Some(&at)).unwrap();
    index.set_one_shot(true);
    let reconciled = index.reconcile().unwrap();
    assert!(!index.holds_learner(), "freed before pairing");
    let report = ScanReport::from_index(index, spec, &reconciled).unwrap();
    assert_eq!(seen(&report), seen(&scan(&dir, LibraryConfig::default())));
    // The rest arrives: the Riverbank licence is learned from all four.
    write(library, &dir, |p| !first(p));
    let (report, _) = indexed(&dir, &at);
    let whole = scan(&dir, LibraryConfig::default());
    assert!(!whole.boilerplate.passages.is_empty());
    assert_eq!(seen(&report), seen(&whole));
}

/// The review screens show the boilerplate report kept between events: it
/// must equal the one read again from the store after every event, and an
/// event that touches no boilerplate must not rebuild it (that read takes
/// most of a watcher event's time in a large folder).
#[test]
fn the_kept_boilerplate_report_follows_every_event_and_survives_the_plain_ones() {
    let library = small();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    let index = tmp.path().join("index.sqlite");
    let (mut folder, rest) =
        indexed_then_the_rest_written(library, &dir, &index, two_riverbank_texts_and_the_etexts);
    let mut kept_over_plain_events = 0;
    let mut event = |folder: &mut FolderIndex, path: &Path| {
        let before = folder.boilerplate_cached().unwrap();
        folder.sync_paths(&[path.to_path_buf()]).unwrap();
        let after = folder.boilerplate_cached().unwrap();
        assert_eq!(
            *after,
            folder.boilerplate_report().unwrap(),
            "after the event on {}",
            path.display()
        );
        if Arc::ptr_eq(&before, &after) {
            kept_over_plain_events += 1;
        }
    };
    let root = folder.root().to_path_buf();
    for path in &rest {
        event(&mut folder, &root.join(path));
    }
    // A document with boilerplate changes, then leaves; a plain one leaves.
    let riverbank = root.join("hard-cases/riverbank/65_Jude.txt");
    let text = std::fs::read_to_string(&riverbank).unwrap();
    std::fs::write(&riverbank, text.replacen(' ', "  ", 40) + "\nAmen.\n").unwrap();
    event(&mut folder, &riverbank);
    std::fs::remove_file(&riverbank).unwrap();
    event(&mut folder, &riverbank);
    // One of many e-texts under one licence: no other document's spans
    // move, but the passage's count drops.
    let etext = library
        .documents
        .iter()
        .find(|d| d.path.starts_with("etexts/") && d.boilerplate.is_some())
        .map(|d| root.join(&d.path))
        .unwrap();
    std::fs::remove_file(&etext).unwrap();
    event(&mut folder, &etext);
    let plain = root.join(rest.iter().find(|p| !p.contains("riverbank")).unwrap());
    std::fs::remove_file(&plain).unwrap();
    event(&mut folder, &plain);
    assert!(
        !folder.boilerplate_report().unwrap().passages.is_empty(),
        "the licences were learned"
    );
    assert!(
        kept_over_plain_events > 0,
        "some events touched no boilerplate and kept the report"
    );
}

/// A folder of e-texts under one licence is removed in one watcher event:
/// the learner forgets them together, and the index equals a fresh scan of
/// what is left. When the store fails part way (its first write: marking
/// stale the documents whose spans the removal moved), those documents
/// are still fingerprinted again by the next reconcile, and the index
/// still equals a fresh scan.
#[test]
fn a_removed_folder_is_forgotten_at_once_and_after_a_failure_part_way() {
    let library = small();
    for fail in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("folder");
        let index = tmp.path().join("index.sqlite");
        let faults = faulty_store::Faults::default();
        let (mut folder, _) =
            indexed_then_the_rest_written_failing(library, &dir, &index, |_| true, &faults);
        let etexts = folder.root().join("etexts");
        std::fs::remove_dir_all(&etexts).unwrap();
        if fail {
            faults.fail_next_writes(1);
            assert!(folder.sync_paths(&[etexts]).is_err());
            assert_eq!(faults.pending(), 0, "the failure was reached");
            folder.reconcile().unwrap();
        } else {
            let changes = folder.sync_paths(&[etexts]).unwrap();
            let gone = library
                .documents
                .iter()
                .filter(|d| d.path.starts_with("etexts/"))
                .count();
            assert!(gone > 1, "{gone} e-texts");
            assert!(changes.len() >= gone, "{} changes", changes.len());
        }
        assert_equals_a_fresh_scan(folder, &dir, &format!("failure part way: {fail}"));
    }
}
