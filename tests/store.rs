//! The persistent index (`doppel_store`): round trips, odd names, verdicts,
//! pairs, corrupt and foreign files, and SIGKILL during ingest (hazards.md
//! section C and R10). The behaviour tests run on every backend
//! (`store_places`): SQLite, and PostgreSQL when `DOPPEL_TEST_PG` is set.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use doppel_core::doc::{CuratorVerdict, DocPath, FileIdentity};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::{Engine, Fingerprints, PairScores};
use doppel_store::{
    content_hash, engine_config_hash, DocEntry, DocRecord, DocStatus, Documents, OpenProblem,
    Pairs, RowId, SqliteStore, Store, StoreError, StoredBoilerplate, StoredText, Verdicts,
    APPLICATION_ID, STALE_CTIME,
};

mod faulty_store;
mod store_places;

use store_places::places;

/// The document named by these bytes.
fn d(bytes: &[u8]) -> DocPath {
    DocPath::from(bytes)
}

const CHILD_ENV: &str = "DOPPEL_STORE_CHILD";

const PARAGRAPHS: [&str; 4] = [
    "It is a truth universally acknowledged, that a single man in possession of a good \
     fortune, must be in want of a wife. However little known the feelings or views of such \
     a man may be on his first entering a neighbourhood, this truth is so well fixed in the \
     minds of the surrounding families, that he is considered the rightful property of some \
     one or other of their daughters.",
    "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money \
     in my purse, and nothing particular to interest me on shore, I thought I would sail about \
     a little and see the watery part of the world. It is a way I have of driving off the \
     spleen and regulating the circulation.",
    "Alice was beginning to get very tired of sitting by her sister on the bank, and of having \
     nothing to do: once or twice she had peeped into the book her sister was reading, but it \
     had no pictures or conversations in it, and what is the use of a book, thought Alice, \
     without pictures or conversations?",
    "Four score and seven years ago our fathers brought forth on this continent, a new nation, \
     conceived in Liberty, and dedicated to the proposition that all men are created equal. \
     Now we are engaged in a great civil war, testing whether that nation, or any nation so \
     conceived and so dedicated, can long endure.",
];

/// Text number `n`: a rotation of the paragraphs, repeated to about 4 KB.
fn text(n: usize) -> String {
    let mut out = String::new();
    let mut i = n;
    while out.len() < 4000 {
        out.push_str(PARAGRAPHS[i % PARAGRAPHS.len()]);
        out.push('\n');
        i += 1 + n % 3;
    }
    out
}

fn fingerprint(engine: &Engine, text: &str) -> (Fingerprints, Vec<u64>) {
    let analysis = engine.analyze(text);
    let fp = engine
        .fingerprint(&analysis, engine.reference_weights())
        .unwrap();
    (fp, analysis.unique_terms())
}

fn record(engine: &Engine, path: &[u8], n: usize) -> DocRecord {
    let t = text(n);
    let (fp, terms) = fingerprint(engine, &t);
    DocRecord {
        id: None,
        path: d(path),
        identity: FileIdentity {
            size: t.len() as u64,
            mtime_ns: 1_700_000_000_123_456_789,
            ctime_ns: 1_700_000_000_987_654_321,
            inode: 4242,
            dev: 2049,
        },
        content_hash: content_hash(t.as_bytes()),
        first_seen_ns: 1_000 + n as i64,
        status: DocStatus::Indexed,
        encoding: Some("UTF-8".into()),
        fingerprints: Some(fp),
        shingles: terms.len() as u32,
        keeper: None,
        entry: None,
        boilerplate: None,
        text: None,
        terms,
    }
}

fn skipped(path: &[u8], reason: &str) -> DocRecord {
    DocRecord {
        first_seen_ns: 7,
        status: DocStatus::Skipped {
            reason: reason.into(),
        },
        ..DocRecord::read(d(path), FileIdentity::default(), 0)
    }
}

fn open(path: &Path) -> SqliteStore {
    let (store, report) = SqliteStore::open(path).unwrap();
    assert!(report.moved_aside.is_none(), "{:?}", report.messages());
    store
}

fn tree_checksum(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        out.push((p.clone(), content_hash(&std::fs::read(&p).unwrap())));
    }
    out.sort();
    out
}

fn ids_by_path(store: &dyn Store) -> std::collections::HashMap<DocPath, RowId> {
    store
        .documents()
        .unwrap()
        .into_iter()
        .map(|d| (d.path, d.id.unwrap()))
        .collect()
}

#[test]
fn round_trip_with_real_fingerprints_survives_reopen() {
    for place in places(
        "round_trip_with_real_fingerprints_survives_reopen",
        "nested/folders/index.sqlite",
    ) {
        let backend = place.backend();
        let engine = Engine::default();
        let rec = record(&engine, b"austen/emma.txt", 0);
        assert!(rec.fingerprints.as_ref().unwrap().minhash.is_some());
        let skip = skipped(b"scan.png", "binary (NUL byte at 12)");
        let (mut store, report) = place.open_reporting();
        assert!(report.created && report.moved_aside.is_none() && report.messages().is_empty());
        let id = store.upsert_document(&rec, &[]).unwrap();
        store.upsert_document(&skip, &[]).unwrap();
        drop(store);

        let (store, report) = place.open_reporting();
        assert!(!report.created, "{backend}: reopening does not recreate");
        let docs = store.documents().unwrap();
        assert_eq!(docs.len(), 2, "{backend}");
        assert_eq!(
            docs[0],
            DocRecord {
                id: Some(id),
                ..rec.clone()
            }
        );
        assert_eq!(docs[1].status, skip.status);
        assert_eq!(docs[1].fingerprints, None);
        // Opening an index reads every document without its blobs.
        assert!(!rec.terms.is_empty());
        let light = store.documents_without_blobs().unwrap();
        assert_eq!(
            light[0],
            DocRecord {
                terms: Vec::new(),
                fingerprints: None,
                ..docs[0].clone()
            }
        );
        assert_eq!(light[1], docs[1]);
        assert_eq!(
            store.document(&d(b"austen/emma.txt")).unwrap().unwrap(),
            docs[0]
        );
        assert_eq!(store.document(&d(b"austen/emma")).unwrap(), None);
        assert_eq!(store.document_count().unwrap(), 2);
        let stat = store.stat_index().unwrap();
        assert_eq!(stat[&d(b"austen/emma.txt")], rec.identity);

        // The stored fingerprints still compare like fresh ones.
        let fresh = engine.compare(
            &rec.fingerprints.clone().unwrap(),
            docs[0].fingerprints.as_ref().unwrap(),
        );
        assert!(
            fresh[&AlgorithmId::Exact].passes(1.0),
            "an exact copy of itself"
        );
        assert_eq!(
            fresh[&AlgorithmId::Minhash],
            Score::Similarity { value: 1.0 }
        );
        assert!(store.integrity_check().unwrap());
    }
}

#[test]
fn library_entries_round_trip_and_go_with_their_document() {
    for place in places(
        "library_entries_round_trip_and_go_with_their_document",
        "index.sqlite",
    ) {
        let backend = place.backend();
        let engine = Engine::default();
        let library = doppel_pairing::library::Library::new(&engine, Default::default());
        let mut rec = record(&engine, b"a.txt", 0);
        let fp = rec.fingerprints.clone().unwrap();
        let entry = DocEntry {
            hot: fp.hot(),
            keys: library.doc_keys(&fp),
        };
        assert!(entry.keys.slots.len() > 100, "a 4 KB text files ~250 keys");
        rec.entry = Some(entry.clone());
        let mut store = place.open();
        let id = store.upsert_document(&rec, &[]).unwrap();
        let other = store
            .upsert_document(&record(&engine, b"b.txt", 1), &[])
            .unwrap();
        drop(store);
        let mut store = place.open();
        assert_eq!(
            store.document_entries().unwrap(),
            [(id, entry.clone())],
            "{backend}"
        );
        // The full fingerprints are read by path, apart from the entry.
        assert_eq!(
            store.fingerprints_at(&[&d(b"a.txt"), &d(b"nope")]).unwrap(),
            [Some(fp), None]
        );
        // Rewritten without an entry (say, a skipped file), none is left.
        rec.entry = None;
        store.upsert_document(&rec, &[]).unwrap();
        assert!(store.document_entries().unwrap().is_empty());
        rec.entry = Some(entry);
        store.upsert_document(&rec, &[]).unwrap();
        store.remove_document(&d(b"a.txt")).unwrap();
        assert!(store.document_entries().unwrap().is_empty());
        assert_eq!(store.fingerprints_at(&[&d(b"a.txt")]).unwrap(), [None]);
        assert!(store.fingerprints_at(&[&d(b"b.txt")]).unwrap()[0].is_some());
        assert_eq!(store.document_count().unwrap(), 1);
        assert_ne!(other, id);
        assert!(store.integrity_check().unwrap());
    }
}

#[test]
fn file_identity_tells_a_rewritten_file_from_an_untouched_one() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::write(&book, "first edition").unwrap();
    let first = FileIdentity::from_metadata(&std::fs::metadata(&book).unwrap());
    assert_eq!(first.size, 13);
    assert_eq!(
        first,
        FileIdentity::from_metadata(&std::fs::metadata(&book).unwrap())
    );
    #[cfg(unix)]
    assert!(first.inode != 0 && first.mtime_ns > 1_000_000_000 * 1_000_000_000);
    std::fs::write(&book, "second, longer edition").unwrap();
    assert_ne!(
        first,
        FileIdentity::from_metadata(&std::fs::metadata(&book).unwrap())
    );

    for place in places("file_identity", "index.sqlite") {
        let mut store = place.open();
        let mut rec = skipped(b"book.txt", "empty");
        rec.identity = first;
        let id = store.upsert_document(&rec, &[]).unwrap();
        assert_eq!(
            store.stat_index().unwrap()[&d(b"book.txt")],
            first,
            "{}",
            place.backend()
        );
        assert_eq!(store.document_paths().unwrap(), vec![(id, d(b"book.txt"))]);
    }
}

#[test]
fn d6_u64_extremes_round_trip_exactly() {
    for place in places("d6_u64_extremes_round_trip_exactly", "index.sqlite") {
        let backend = place.backend();
        let mut store = place.open();
        let values = [0, 1, i64::MAX as u64, 1 << 63, u64::MAX];
        for (i, &v) in values.iter().enumerate() {
            let mut rec = skipped(format!("file-{i}").as_bytes(), "empty");
            rec.status = DocStatus::Indexed;
            rec.identity = FileIdentity {
                size: v,
                mtime_ns: if i % 2 == 0 { i64::MIN } else { i64::MAX },
                ctime_ns: -1,
                inode: v,
                dev: v,
            };
            rec.content_hash = v;
            rec.terms = vec![0, 1, 1 << 63, u64::MAX - 1, u64::MAX];
            store.upsert_document(&rec, &[]).unwrap();
        }
        drop(store);
        let store = place.open();
        let docs = store.documents().unwrap();
        assert_eq!(docs.len(), values.len());
        for (doc, &v) in docs.iter().zip(&values) {
            assert_eq!(
                doc.content_hash, v,
                "{backend}: content hash of {}",
                doc.path
            );
            assert_eq!(doc.identity.inode, v);
            assert_eq!(doc.identity.dev, v);
            assert_eq!(doc.identity.size, v);
            assert_eq!(doc.terms, vec![0, 1, 1 << 63, u64::MAX - 1, u64::MAX]);
        }
        let stat = store.stat_index().unwrap();
        assert_eq!(stat[&d(b"file-4")].inode, u64::MAX);
        assert_eq!(stat[&d(b"file-3")].size, 1 << 63);
        assert_eq!(stat[&d(b"file-0")].mtime_ns, i64::MIN);
    }
}

#[test]
fn r10_non_utf8_and_unicode_twin_names_stay_distinct() {
    for place in places(
        "r10_non_utf8_and_unicode_twin_names_stay_distinct",
        "index.sqlite",
    ) {
        let backend = place.backend();
        let mut store = place.open();
        let engine = Engine::default();
        let e9: &[u8] = b"caf\xe9.txt";
        let e8: &[u8] = b"caf\xe8.txt";
        assert_eq!(String::from_utf8_lossy(e9), String::from_utf8_lossy(e8));
        let nfc = "caf\u{e9}.txt".as_bytes();
        let nfd = "cafe\u{301}.txt".as_bytes();
        for (i, name) in [e9, e8, nfc, nfd].into_iter().enumerate() {
            store
                .upsert_document(&record(&engine, name, i), &[])
                .unwrap();
        }
        drop(store);
        let store = place.open();
        let docs = store.documents().unwrap();
        assert_eq!(
            docs.len(),
            4,
            "{backend}: four distinct byte names are four rows"
        );
        for (i, name) in [e9, e8, nfc, nfd].into_iter().enumerate() {
            let d = store
                .document(&d(name))
                .unwrap()
                .expect("each name has its row");
            assert_eq!(d.content_hash, content_hash(text(i).as_bytes()));
        }
        assert_eq!(d(e9).to_string(), "caf\\xe9.txt");
        assert_eq!(d(e8).to_string(), "caf\\xe8.txt");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let p = Path::new(std::ffi::OsStr::from_bytes(e9));
            assert_eq!(DocPath::from_relative(p), d(e9));
            assert_eq!(d(e9).to_relative_path(), p);
        }
    }
}

#[test]
fn verdicts_survive_reopen_and_remove_then_readd() {
    for place in places(
        "verdicts_survive_reopen_and_remove_then_readd",
        "index.sqlite",
    ) {
        let backend = place.backend();
        let engine = Engine::default();
        let mut store = place.open();
        store
            .upsert_document(&record(&engine, b"b.txt", 0), &[])
            .unwrap();
        store
            .upsert_document(&record(&engine, b"a.txt", 1), &[])
            .unwrap();
        // Given in either order, stored ordered.
        store
            .set_pair_verdict(&d(b"b.txt"), &d(b"a.txt"), CuratorVerdict::NotDuplicate)
            .unwrap();
        store
            .set_pair_verdict(&d(b"a.txt"), &d(b"b.txt"), CuratorVerdict::Duplicate)
            .unwrap();
        store.set_keeper(&d(b"b.txt"), true).unwrap();
        store.set_keeper(&d(b"gone.txt"), true).unwrap();
        store.set_keeper(&d(b"gone.txt"), false).unwrap();
        assert!(store
            .set_pair_verdict(&d(b"a.txt"), &d(b"a.txt"), CuratorVerdict::Duplicate)
            .is_err());
        drop(store);

        let mut store = place.open();
        assert_eq!(store.document_count().unwrap(), 2, "{backend}");
        let v = store.pair_verdicts().unwrap();
        assert_eq!(v.len(), 1);
        assert_eq!(
            (v[0].a.as_bytes(), v[0].b.as_bytes()),
            (b"a.txt".as_slice(), b"b.txt".as_slice())
        );
        assert_eq!(
            v[0].verdict,
            CuratorVerdict::Duplicate,
            "the later verdict wins"
        );
        assert_eq!(store.keepers().unwrap(), vec![d(b"b.txt")]);

        let old_id = ids_by_path(&*store)[&d(b"b.txt")];
        assert!(store.remove_document(&d(b"b.txt")).unwrap());
        assert!(
            !store.remove_document(&d(b"b.txt")).unwrap(),
            "already gone"
        );
        assert_eq!(
            store.pair_verdicts().unwrap().len(),
            1,
            "verdicts are kept by path"
        );
        store
            .upsert_document(&record(&engine, b"b.txt", 0), &[])
            .unwrap();
        let new_id = ids_by_path(&*store)[&d(b"b.txt")];
        assert_ne!(old_id, new_id, "re-added under a new id");
        drop(store);
        let mut store = place.open();
        assert_eq!(
            store.pair_verdicts().unwrap()[0].verdict,
            CuratorVerdict::Duplicate
        );
        assert_eq!(store.keepers().unwrap(), vec![d(b"b.txt")]);
        assert!(store
            .clear_pair_verdict(&d(b"b.txt"), &d(b"a.txt"))
            .unwrap());
        assert!(store.pair_verdicts().unwrap().is_empty());
    }
}

#[test]
fn upsert_replaces_pairs_and_remove_cascades() {
    for place in places("upsert_replaces_pairs_and_remove_cascades", "index.sqlite") {
        let backend = place.backend();
        let engine = Engine::default();
        let mut store = place.open();
        let a = record(&engine, b"a.txt", 0);
        let b = record(&engine, b"b.txt", 4); // same rotation start as a, different step
        let c = record(&engine, b"c.txt", 1);
        let fa = a.fingerprints.clone().unwrap();
        let fb = b.fingerprints.clone().unwrap();
        let fc = c.fingerprints.clone().unwrap();
        let id_a = store.upsert_document(&a, &[]).unwrap();
        let id_b = store
            .upsert_document(&b, &[(d(b"a.txt"), engine.compare(&fb, &fa))])
            .unwrap();
        let id_c = store
            .upsert_document(
                &c,
                &[
                    (d(b"a.txt"), engine.compare(&fc, &fa)),
                    (d(b"b.txt"), engine.compare(&fc, &fb)),
                ],
            )
            .unwrap();
        let pairs = store.pairs().unwrap();
        let keys: Vec<(RowId, RowId)> = pairs.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(
            keys,
            vec![(id_a, id_b), (id_a, id_c), (id_b, id_c)],
            "{backend}"
        );
        // Scores are oriented from the smaller id: b was upserted with
        // compare(b, a), but the stored pair reads as compare(a, b).
        assert_eq!(pairs[0].2, engine.compare(&fa, &fb));

        // Re-indexing a with one pair drops its other pair; ids stay.
        let a2 = record(&engine, b"a.txt", 2);
        let fa2 = a2.fingerprints.clone().unwrap();
        let again = store
            .upsert_document(&a2, &[(d(b"c.txt"), engine.compare(&fa2, &fc))])
            .unwrap();
        assert_eq!(again, id_a, "an update keeps the row id");
        let doc_a = store.document(&d(b"a.txt")).unwrap().unwrap();
        assert_eq!(doc_a.first_seen_ns, a.first_seen_ns, "first seen is kept");
        assert_eq!(doc_a.fingerprints.as_ref(), Some(&fa2));
        let keys: Vec<(RowId, RowId)> = store.pairs().unwrap().iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(keys, vec![(id_a, id_c), (id_b, id_c)]);

        // A pair with a path not in the index fails the whole update.
        let err = store
            .upsert_document(
                &record(&engine, b"a.txt", 3),
                &[(d(b"nowhere.txt"), PairScores::new())],
            )
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("nowhere.txt") && msg.contains(&place.named()),
            "{msg}"
        );
        assert_eq!(
            store.document(&d(b"a.txt")).unwrap().unwrap(),
            doc_a,
            "unchanged"
        );
        assert_eq!(store.pairs().unwrap().len(), 2, "pairs unchanged");

        assert!(store.remove_document(&d(b"c.txt")).unwrap());
        assert!(
            store.pairs().unwrap().is_empty(),
            "removing c removed both its pairs"
        );
        assert_eq!(
            store.remove_documents(&[d(b"a.txt"), d(b"zzz")]).unwrap(),
            1
        );
        assert_eq!(store.document_count().unwrap(), 1);
    }
}

#[test]
fn w4_rename_keeps_id_pairs_and_verdicts() {
    for place in places("w4_rename_keeps_id_pairs_and_verdicts", "index.sqlite") {
        let backend = place.backend();
        let mut store = place.open();
        let engine = Engine::default();
        let a = record(&engine, b"a.txt", 0);
        let b = record(&engine, b"b.txt", 1);
        let id_a = store.upsert_document(&a, &[]).unwrap();
        let scores = engine.compare(
            b.fingerprints.as_ref().unwrap(),
            a.fingerprints.as_ref().unwrap(),
        );
        store.upsert_document(&b, &[(d(b"a.txt"), scores)]).unwrap();
        store
            .set_pair_verdict(&d(b"a.txt"), &d(b"b.txt"), CuratorVerdict::Duplicate)
            .unwrap();
        store.set_keeper(&d(b"a.txt"), true).unwrap();

        assert!(store.rename_document(&d(b"a.txt"), &d(b"z.txt")).unwrap());
        assert!(
            !store.rename_document(&d(b"a.txt"), &d(b"y.txt")).unwrap(),
            "a.txt is gone"
        );
        let z = store.document(&d(b"z.txt")).unwrap().unwrap();
        assert_eq!(z.id, Some(id_a), "{backend}");
        assert_eq!(z.fingerprints, a.fingerprints);
        assert_eq!(store.pairs().unwrap().len(), 1);
        let v = store.pair_verdicts().unwrap();
        assert_eq!(
            (v[0].a.as_bytes(), v[0].b.as_bytes()),
            (b"b.txt".as_slice(), b"z.txt".as_slice())
        );
        assert_eq!(store.keepers().unwrap(), vec![d(b"z.txt")]);

        // Renaming over an indexed file replaces it (mv b.txt z.txt).
        assert!(store.rename_document(&d(b"b.txt"), &d(b"z.txt")).unwrap());
        assert_eq!(store.document_count().unwrap(), 1);
        assert!(store.pairs().unwrap().is_empty());
    }
}

/// A batch marks its stale documents, writes its documents (whose pairs
/// may name one written before them in the batch) and rewrites the pairs
/// of the documents it touched, all at once; a write that fails midway
/// leaves the store as it was before the batch.
#[test]
fn a_batch_is_written_whole_or_not_at_all() {
    for place in places("a_batch_is_written_whole", "index.sqlite") {
        let backend = place.backend();
        let engine = Engine::default();
        let mut store = place.open();
        let (a, b, c) = (
            record(&engine, b"a.txt", 0),
            record(&engine, b"b.txt", 1),
            record(&engine, b"c.txt", 2),
        );
        let compare = |x: &DocRecord, y: &DocRecord| {
            engine.compare(
                x.fingerprints.as_ref().unwrap(),
                y.fingerprints.as_ref().unwrap(),
            )
        };
        // y and z, outside the batch, keep their pair.
        let (y, z) = (record(&engine, b"y.txt", 5), record(&engine, b"z.txt", 6));
        store.upsert_document(&a, &[]).unwrap();
        store.upsert_document(&y, &[]).unwrap();
        store
            .upsert_document(&z, &[(d(b"y.txt"), compare(&z, &y))])
            .unwrap();
        // As if written one by one: b's pair with a is dropped when a's
        // pairs are replaced by the touched list.
        let ids = store
            .commit_batch(
                &[d(b"a.txt"), d(b"not-indexed.txt")],
                &[
                    (b.clone(), vec![(d(b"a.txt"), compare(&b, &a))]),
                    (c.clone(), vec![(d(b"b.txt"), compare(&c, &b))]),
                ],
                &[(d(b"a.txt"), vec![(d(b"c.txt"), compare(&a, &c))])],
            )
            .unwrap();
        let by_path = ids_by_path(&*store);
        assert_eq!(
            ids,
            [by_path[&d(b"b.txt")], by_path[&d(b"c.txt")]],
            "{backend}"
        );
        assert_eq!(
            store.stat_index().unwrap()[&d(b"a.txt")].ctime_ns,
            STALE_CTIME,
            "{backend}: a is to be read again"
        );
        let mut keys: Vec<(RowId, RowId)> =
            store.pairs().unwrap().iter().map(|p| (p.0, p.1)).collect();
        keys.sort();
        let mut expected = vec![
            (by_path[&d(b"a.txt")], by_path[&d(b"c.txt")]),
            (by_path[&d(b"b.txt")], by_path[&d(b"c.txt")]),
            (by_path[&d(b"y.txt")], by_path[&d(b"z.txt")]),
        ];
        expected.sort();
        assert_eq!(keys, expected, "{backend}");

        // The second document of a batch fails: neither is written, and
        // the stale mark and the touched pairs go with them.
        let faults = faulty_store::Faults::default();
        let mut store = faults.wrap(store);
        faults.fail_after(1, 1);
        let d2 = record(&engine, b"d.txt", 3);
        let e2 = record(&engine, b"e.txt", 4);
        assert!(store
            .commit_batch(
                &[d(b"b.txt")],
                &[(d2, vec![]), (e2, vec![])],
                &[(d(b"a.txt"), vec![])],
            )
            .is_err());
        assert_eq!(faults.pending(), 0);
        drop(store);
        let store = place.open();
        assert_eq!(store.document_count().unwrap(), 5, "{backend}: rolled back");
        assert_ne!(
            store.stat_index().unwrap()[&d(b"b.txt")].ctime_ns,
            STALE_CTIME
        );
        assert_eq!(store.pair_count().unwrap(), 3, "{backend}");
    }
}

/// What reopening reads instead of recomputing round-trips: the pairs kept
/// under a configuration (replaced whole), the library entries by row, the
/// documents' boilerplate and their kept texts.
#[test]
fn kept_pairs_entries_boilerplate_and_texts_round_trip() {
    for place in places("kept_pairs_entries", "index.sqlite") {
        let backend = place.backend();
        let engine = Engine::default();
        let library = doppel_pairing::library::Library::new(&engine, Default::default());
        let mut store = place.open();
        let text = "Licence section 1. ".repeat(200);
        let kept = StoredText::compress(&text).unwrap();
        let a = DocRecord {
            text: Some(kept.clone()),
            boilerplate: Some(StoredBoilerplate::default()),
            ..record(&engine, b"a.txt", 0)
        };
        let b = record(&engine, b"b.txt", 1);
        let id_a = store.upsert_document(&a, &[]).unwrap();
        let id_b = store.upsert_document(&b, &[]).unwrap();
        let (fa, fb) = (
            a.fingerprints.clone().unwrap(),
            b.fingerprints.clone().unwrap(),
        );
        // Given from b to a, read back from the smaller id.
        store
            .replace_pairs(
                &mut [(id_b, id_a, engine.compare(&fb, &fa))].into_iter(),
                "kept-under-1",
            )
            .unwrap();
        let entry = DocEntry {
            hot: fb.hot(),
            keys: library.doc_keys(&fb),
        };
        store.put_entries(&[(id_b, entry.clone())]).unwrap();
        drop(store);

        let mut store = place.open();
        assert_eq!(
            store.pairs_hash().unwrap().as_deref(),
            Some("kept-under-1"),
            "{backend}"
        );
        let (lo, hi) = (id_a.min(id_b), id_a.max(id_b));
        let (x, y) = if lo == id_a { (&fa, &fb) } else { (&fb, &fa) };
        assert_eq!(store.pairs().unwrap(), [(lo, hi, engine.compare(x, y))]);
        let mut listed = Vec::new();
        store
            .pairs_each(&mut |chunk| {
                listed.extend(chunk.into_iter().map(|(a, b, _)| (a, b)));
                Ok(())
            })
            .unwrap();
        assert_eq!(listed, [(lo, hi)], "{backend}");
        assert_eq!(store.document_entries().unwrap(), [(id_b, entry)]);
        assert_eq!(
            store.boilerplate_of(&d(b"a.txt")).unwrap(),
            Some(StoredBoilerplate::default())
        );
        assert_eq!(store.boilerplate_of(&d(b"b.txt")).unwrap(), None);
        assert_eq!(store.boilerplate().unwrap().len(), 1);
        let read = store.kept_text(&d(b"a.txt")).unwrap().unwrap();
        assert_eq!(
            (read.text.as_str(), read.content_hash),
            (text.as_str(), a.content_hash),
            "{backend}"
        );
        assert_eq!(
            store.text_totals().unwrap(),
            (1, kept.compressed_len() as u64)
        );

        store.clear_entries().unwrap();
        assert!(store.document_entries().unwrap().is_empty(), "{backend}");
        store
            .replace_pairs(&mut std::iter::empty(), "kept-under-2")
            .unwrap();
        assert_eq!(store.pair_count().unwrap(), 0, "{backend}");
        store.remove_document(&d(b"a.txt")).unwrap();
        assert_eq!(store.text_totals().unwrap(), (0, 0), "{backend}");
        assert!(store.boilerplate().unwrap().is_empty());
    }
}

#[test]
fn overruled_passages_start_empty_and_survive_reopening() {
    for place in places("overruled_passages", "index.sqlite") {
        let mut store = place.open();
        // An index written before overrules existed has no such row: none.
        assert_eq!(store.overruled_passages().unwrap(), Vec::new());
        let licence = doppel_store::OverruledPassage {
            hashes: vec![3, 5, 8],
            documents: 4,
            words: 700,
            first_words: "the entry; the door".into(),
            representative: "a.txt".into(),
        };
        store
            .set_overruled_passages(std::slice::from_ref(&licence))
            .unwrap();
        drop(store);
        let store = place.open();
        assert_eq!(
            store.overruled_passages().unwrap(),
            vec![licence],
            "{}",
            place.backend()
        );
    }
}

#[test]
fn meta_detects_a_config_change() {
    for place in places("meta_detects_a_config_change", "index.sqlite") {
        let backend = place.backend();
        let mut store = place.open();
        assert_eq!(
            store.config_hash().unwrap(),
            None,
            "{backend}: a fresh index has no config"
        );
        let default = engine_config_hash(&doppel_core::engine::EngineConfig::default());
        assert_eq!(
            default,
            engine_config_hash(&doppel_core::engine::EngineConfig::default())
        );
        store.set_config_hash(&default).unwrap();
        store.set_idf_generation(u64::MAX).unwrap();
        drop(store);
        let store = place.open();
        assert_eq!(
            store.config_hash().unwrap().as_deref(),
            Some(default.as_str())
        );
        assert_eq!(store.idf_generation().unwrap(), Some(u64::MAX));
        let mut changed = doppel_core::engine::EngineConfig::default();
        changed.enabled.remove(&AlgorithmId::Winnow);
        assert_ne!(
            store.config_hash().unwrap().unwrap(),
            engine_config_hash(&changed)
        );
    }
}

/// Checks that the only things that changed in `dir` are the index and its
/// moved-aside copies, and that `books` is byte-for-byte unchanged.
fn assert_moved_aside(
    db: &Path,
    original: &[u8],
    expected: fn(&OpenProblem) -> bool,
    books: &Path,
) {
    let before = tree_checksum(books);
    let (mut store, report) = SqliteStore::open(db).unwrap();
    let moved = report
        .moved_aside
        .clone()
        .expect("the bad file is moved aside");
    assert!(expected(&moved.problem), "{:?}", moved.problem);
    assert!(report.created, "a fresh index was created");
    let msg = report.messages().join("\n");
    assert!(
        msg.contains(&db.display().to_string()) && msg.contains(".corrupt-"),
        "{msg}"
    );
    assert!(moved
        .to
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("index.sqlite.corrupt-"));
    assert_eq!(
        std::fs::read(&moved.to).unwrap(),
        original,
        "the old file is kept intact"
    );
    assert!(store.integrity_check().unwrap());
    assert_eq!(store.document_count().unwrap(), 0);
    store
        .upsert_document(&skipped(b"x.txt", "empty"), &[])
        .unwrap();
    assert_eq!(tree_checksum(books), before, "no book was touched");
    drop(store);
    assert!(
        open(db).document(&d(b"x.txt")).unwrap().is_some(),
        "the new index works"
    );
}

#[test]
fn d7_garbage_file_is_moved_aside_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let books = dir.path().join("books");
    std::fs::create_dir(&books).unwrap();
    std::fs::write(books.join("emma.txt"), text(0)).unwrap();
    let db = dir.path().join("store/index.sqlite");
    std::fs::create_dir(dir.path().join("store")).unwrap();
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&db, &garbage).unwrap();
    assert_moved_aside(
        &db,
        &garbage,
        |p| matches!(p, OpenProblem::NotADatabase { .. }),
        &books,
    );

    // A text file at the index path.
    let db2 = dir.path().join("store2/index.sqlite");
    std::fs::create_dir(dir.path().join("store2")).unwrap();
    std::fs::write(&db2, text(1)).unwrap();
    assert_moved_aside(
        &db2,
        text(1).as_bytes(),
        |p| matches!(p, OpenProblem::NotADatabase { .. }),
        &books,
    );
}

#[test]
fn d7_real_index_with_a_clobbered_header_is_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let books = dir.path().join("books");
    std::fs::create_dir(&books).unwrap();
    std::fs::write(books.join("moby.txt"), text(1)).unwrap();
    let db = dir.path().join("index.sqlite");
    let engine = Engine::default();
    let mut store = open(&db);
    for i in 0..20 {
        store
            .upsert_document(&record(&engine, format!("{i}.txt").as_bytes(), i), &[])
            .unwrap();
    }
    store.checkpoint().unwrap();
    drop(store);
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[..100].fill(0xa5);
    std::fs::write(&db, &bytes).unwrap();
    assert_moved_aside(
        &db,
        &bytes,
        |p| {
            matches!(
                p,
                OpenProblem::NotADatabase { .. } | OpenProblem::Corrupt { .. }
            )
        },
        &books,
    );
}

#[test]
fn d7_foreign_sqlite_file_is_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let books = dir.path().join("books");
    std::fs::create_dir(&books).unwrap();
    std::fs::write(books.join("alice.txt"), text(2)).unwrap();
    let db = dir.path().join("index.sqlite");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "PRAGMA application_id = 1234; CREATE TABLE recipes (name TEXT); \
             INSERT INTO recipes VALUES ('soup');",
        )
        .unwrap();
    }
    let original = std::fs::read(&db).unwrap();
    assert_moved_aside(
        &db,
        &original,
        |p| {
            *p == OpenProblem::Foreign {
                application_id: 1234,
            }
        },
        &books,
    );

    // A plain SQLite file (application_id 0) with someone's tables is foreign too.
    let db2 = dir.path().join("other.sqlite");
    {
        let conn = rusqlite::Connection::open(&db2).unwrap();
        conn.execute_batch("CREATE TABLE notes (t TEXT);").unwrap();
    }
    let (_s, report) = SqliteStore::open(&db2).unwrap();
    assert_eq!(
        report.moved_aside.unwrap().problem,
        OpenProblem::Foreign { application_id: 0 }
    );
}

#[test]
fn unknown_schema_version_is_moved_aside_and_read_only_open_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.sqlite");
    drop(open(&db));
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let err = SqliteStore::open_read_only(&db).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::NotAnIndex {
                problem: OpenProblem::UnknownSchema { version: 99 },
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("schema version 99"), "{err}");
    let (_store, report) = SqliteStore::open(&db).unwrap();
    assert_eq!(
        report.moved_aside.unwrap().problem,
        OpenProblem::UnknownSchema { version: 99 }
    );
}

/// A store error keeps what it wraps as its source (SQLite's error, the
/// file system's, why a file is not an index, the PostgreSQL client's), so
/// whoever walks the error chain reaches the cause; its own message still
/// says the cause, as it always did.
#[test]
fn a_store_error_keeps_its_cause_as_its_source() {
    use std::error::Error as _;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.sqlite");
    drop(open(&db));
    std::fs::write(dir.path().join("folder"), "a file, not a folder").unwrap();

    // SQLite's error: a write to a read-only connection.
    let mut reader = SqliteStore::open_read_only(&db).unwrap();
    let err = reader.remove_documents(&[d(b"a.txt")]).unwrap_err();
    assert!(matches!(err, StoreError::Sqlite { .. }), "{err}");
    let cause = err.source().expect("SQLite's error is the source");
    assert!(cause.is::<rusqlite::Error>(), "{cause:?}");
    assert!(err.to_string().ends_with(&format!(": {cause}")), "{err}");

    // The file system's: an index whose folder cannot be made.
    let err = SqliteStore::open(&dir.path().join("folder/index.sqlite")).unwrap_err();
    assert!(matches!(err, StoreError::Io { .. }), "{err}");
    let cause = err.source().expect("the file system's error is the source");
    assert!(cause.is::<std::io::Error>(), "{cause:?}");
    assert!(err.to_string().ends_with(&format!(": {cause}")), "{err}");

    // Why a file is not an index.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
    }
    let err = SqliteStore::open_read_only(&db).unwrap_err();
    let cause = err.source().expect("the problem is the source");
    assert_eq!(
        cause.downcast_ref::<OpenProblem>(),
        Some(&OpenProblem::UnknownSchema { version: 99 })
    );
    assert!(err.to_string().ends_with(&format!(": {cause}")), "{err}");

    // The PostgreSQL client's: nothing listens on port 1.
    #[cfg(feature = "postgres")]
    {
        let address =
            doppel_store::StoreAddress::parse("postgres://doppel@127.0.0.1:1/doppel").unwrap();
        let err = doppel_store::open_at(&address, "/srv/folder", "tester").unwrap_err();
        assert!(matches!(err, StoreError::Postgres { .. }), "{err}");
        let cause = err.source().expect("the client's error is the source");
        assert!(cause.is::<postgres::Error>(), "{cause:?}");
    }
}

#[test]
fn read_only_connection_sees_the_writers_commits() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.sqlite");
    let engine = Engine::default();
    let mut writer = open(&db);
    let reader = SqliteStore::open_read_only(&db).unwrap();
    assert_eq!(reader.document_count().unwrap(), 0);
    writer
        .upsert_document(&record(&engine, b"a.txt", 0), &[])
        .unwrap();
    assert_eq!(reader.document_count().unwrap(), 1);
    let mut reader = reader;
    let err = reader.set_keeper(&d(b"a.txt"), true).unwrap_err();
    assert!(err.to_string().contains("index.sqlite"), "{err}");
    assert!(SqliteStore::open_read_only(&dir.path().join("missing.sqlite")).is_err());
    assert!(
        !dir.path().join("missing.sqlite").exists(),
        "read-only open creates nothing"
    );
}

#[test]
fn default_path_is_outside_the_root_and_stable() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("library");
    std::fs::create_dir(&root).unwrap();
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let p = match SqliteStore::default_path(&root) {
        Ok(p) => p,
        Err(StoreError::NoDataDir) => return eprintln!("skipped: no home directory"),
        Err(e) => panic!("{e}"),
    };
    assert!(!p.starts_with(&root) && !p.starts_with(root.canonicalize().unwrap()));
    assert_eq!(p.extension().unwrap(), "sqlite");
    assert_eq!(p.parent().unwrap().file_name().unwrap(), "indexes");
    assert_eq!(SqliteStore::default_path(&root).unwrap(), p, "stable");
    assert_eq!(
        SqliteStore::default_path(&root.join(".")).unwrap(),
        p,
        "same folder, other spelling"
    );
    assert_eq!(
        SqliteStore::default_path(&dir.path().join("other/../library")).unwrap(),
        p
    );
    #[cfg(unix)]
    {
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&root, &link).unwrap();
        assert_eq!(
            SqliteStore::default_path(&link).unwrap(),
            p,
            "a link to the folder"
        );
    }
    assert_ne!(
        SqliteStore::default_path(&other).unwrap(),
        p,
        "another folder, another index"
    );
    assert!(
        !p.exists() || p.is_file(),
        "computing the path creates nothing"
    );
    let err = SqliteStore::default_path(&dir.path().join("missing")).unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}

#[test]
fn w14_index_inside_the_root_is_refused_naming_both_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("library");
    std::fs::create_dir(&root).unwrap();
    let inside = root.join("sub/.doppel/index.sqlite");
    let err = doppel_store::ensure_outside_root(&inside, &root).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains(&inside.display().to_string()) && msg.contains(&root.display().to_string()),
        "{msg}"
    );
    assert!(!root.join("sub").exists(), "the check creates nothing");
    doppel_store::ensure_outside_root(&dir.path().join("library-index.sqlite"), &root).unwrap();
}

#[test]
fn fingerprint_blob_of_a_4kb_text_stays_small() {
    let engine = Engine::default();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus/moby/moby-dick-ch1.txt");
    let full = std::fs::read_to_string(path).unwrap();
    let cut = (4096..full.len())
        .find(|&i| full.is_char_boundary(i))
        .unwrap();
    let t = &full[..cut];
    let (fp, terms) = fingerprint(&engine, t);
    let blob = postcard::to_allocvec(&fp).unwrap();
    eprintln!(
        "{} B of Moby-Dick: fingerprints {} B (shingles {}, winnow hashes {}), terms {} B",
        t.len(),
        blob.len(),
        fp.shingle.as_ref().map_or(0, Vec::len),
        fp.winnow.as_ref().map_or(0, |w| w.hashes.len()),
        terms.len() * 8
    );
    // The index grows by a few times the text, not by orders of magnitude.
    assert!(blob.len() < 8 * t.len(), "{} bytes", blob.len());
    assert_eq!(postcard::from_bytes::<Fingerprints>(&blob).unwrap(), fp);
}

// -- D2: SIGKILL during ingest ----------------------------------------------

/// Not a test on its own: with `DOPPEL_STORE_CHILD=<index path>` it upserts
/// documents forever (the parent test kills it). Document `doc-<k>` with
/// `size = i` carries the fingerprints of `text(i % 8)`, so the parent can
/// recompute what every row must hold.
#[test]
fn child_ingest_forever() {
    let Some(db) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let engine = Engine::default();
    let records: Vec<DocRecord> = (0..8).map(|n| record(&engine, b"", n)).collect();
    let (mut store, _) = SqliteStore::open(Path::new(&db)).unwrap();
    let start = store
        .stat_index()
        .unwrap()
        .values()
        .map(|s| s.size)
        .max()
        .map_or(0, |m| m + 1);
    for i in start.. {
        let mut rec = records[(i % 8) as usize].clone();
        rec.path = format!("doc-{}.txt", i % 300).as_str().into();
        rec.identity.size = i;
        let partner: DocPath = format!("doc-{}.txt", (i + 1) % 300).as_str().into();
        let pairs = if store.document(&partner).unwrap().is_some() {
            let other = records[((i + 1) % 8) as usize]
                .fingerprints
                .as_ref()
                .unwrap();
            vec![(
                partner,
                engine.compare(rec.fingerprints.as_ref().unwrap(), other),
            )]
        } else {
            Vec::new()
        };
        store.upsert_document(&rec, &pairs).unwrap();
    }
}

/// Kills the child if the test panics before it does.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn max_size(db: &Path) -> Option<u64> {
    let store = SqliteStore::open_read_only(db).ok()?;
    store.stat_index().ok()?.values().map(|s| s.size).max()
}

#[test]
fn d2_sigkill_during_ingest_leaves_a_consistent_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.sqlite");
    drop(open(&db));
    let engine = Engine::default();
    let expected: Vec<Fingerprints> = (0..8).map(|n| fingerprint(&engine, &text(n)).0).collect();
    let mut reached = 0;
    for round in 0..3 {
        let mut child = KillOnDrop(
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "child_ingest_forever",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, &db)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let target = reached + 40;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.0.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(&mut child.0.stderr.take().unwrap(), &mut err)
                    .unwrap();
                panic!("round {round}: the ingesting child exited early ({status}): {err}");
            }
            if max_size(&db).is_some_and(|m| m >= target) {
                break;
            }
            if Instant::now() > deadline {
                panic!("round {round}: the child did not commit 40 upserts past {reached} in 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.0.kill().unwrap(); // SIGKILL on unix
        child.0.wait().unwrap();

        let (store, report) = SqliteStore::open(&db).unwrap();
        assert!(
            report.moved_aside.is_none(),
            "round {round}: {:?}",
            report.messages()
        );
        assert!(
            store.integrity_check().unwrap(),
            "round {round}: integrity_check"
        );
        let docs = store.documents().expect("every row decodes");
        let paths: HashSet<&[u8]> = docs.iter().map(|d| d.path.as_bytes()).collect();
        assert_eq!(paths.len(), docs.len(), "each path appears once");
        for d in &docs {
            let n = (d.identity.size % 8) as usize;
            assert_eq!(d.fingerprints.as_ref(), Some(&expected[n]), "{}", d.path);
            assert_eq!(d.content_hash, content_hash(text(n).as_bytes()));
        }
        let ids: HashSet<RowId> = docs.iter().map(|d| d.id.unwrap()).collect();
        for (a, b, scores) in store.pairs().expect("every pair decodes") {
            assert!(
                ids.contains(&a) && ids.contains(&b),
                "no orphan pair ({a:?}, {b:?})"
            );
            assert!(!scores.is_empty());
        }
        drop(store);
        let conn = rusqlite::Connection::open(&db).unwrap();
        let fk_violations: i64 = conn
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(fk_violations, 0);
        let app: i32 = conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .unwrap();
        assert_eq!(app, APPLICATION_ID);
        reached = max_size(&db).unwrap();
        assert!(reached >= target);
    }
}
