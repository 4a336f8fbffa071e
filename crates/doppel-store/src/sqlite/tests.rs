//! Unit tests of the store's internals (pragmas, rollback on a full
//! disk, the score codec).

use super::codec::{scores_from_blob, scores_to_blob};
use super::*;
use crate::{Boilerplate, Documents, Pairs, StoredText, Verdicts};
use doppel_core::doc::{CuratorVerdict, DocPath, FileIdentity};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::{Fingerprints, PairScores};

fn temp_store() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let (store, report) = SqliteStore::open(&dir.path().join("index.sqlite")).unwrap();
    assert!(report.created);
    (dir, store)
}

fn doc(path: &[u8]) -> DocRecord {
    DocRecord {
        id: None,
        path: DocPath::from(path),
        identity: FileIdentity {
            size: 10,
            ..FileIdentity::default()
        },
        content_hash: 1,
        first_seen_ns: 5,
        status: DocStatus::Indexed,
        encoding: Some("UTF-8".into()),
        fingerprints: Some(Fingerprints::default()),
        terms: vec![1, 2, 3],
        shingles: 3,
        keeper: None,
        entry: None,
        boilerplate: None,
        text: None,
    }
}

#[test]
fn d1_pragmas_take_effect() {
    let (_dir, store) = temp_store();
    let q = |name: &str| -> String {
        store
            .conn
            .pragma_query_value(None, name, |r| r.get::<_, rusqlite::types::Value>(0))
            .map(|v| match v {
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
            .unwrap()
    };
    assert_eq!(q("journal_mode"), "wal");
    assert_eq!(q("synchronous"), "1", "NORMAL");
    assert_eq!(q("foreign_keys"), "1");
    assert_eq!(q("application_id"), APPLICATION_ID.to_string());
    assert_eq!(q("user_version"), SCHEMA_VERSION.to_string());
    assert_eq!(q("busy_timeout"), BUSY_TIMEOUT.as_millis().to_string());
}

#[test]
fn verdict_writes_restore_normal_sync() {
    let (_dir, mut store) = temp_store();
    store
        .set_pair_verdict(&"a".into(), &"b".into(), CuratorVerdict::Duplicate)
        .unwrap();
    let sync: i64 = store
        .conn
        .pragma_query_value(None, "synchronous", |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 1);
}

#[test]
fn d8_full_store_rolls_back_and_resumes() {
    let (_dir, mut store) = temp_store();
    let pages: i64 = store
        .conn
        .pragma_query_value(None, "page_count", |r| r.get(0))
        .unwrap();
    store
        .conn
        .pragma_update(None, "max_page_count", pages + 2)
        .unwrap();
    let mut big = doc(b"big");
    big.terms = (0..200_000).collect();
    let err = store.upsert_document(&big, &[]).unwrap_err();
    assert!(err.is_storage_full(), "{err}");
    assert!(err.to_string().contains("index.sqlite"), "{err}");
    assert!(
        store.document(&"big".into()).unwrap().is_none(),
        "no partial row"
    );
    store
        .conn
        .pragma_update(None, "max_page_count", 1_000_000)
        .unwrap();
    store.upsert_document(&big, &[]).unwrap();
    assert_eq!(
        store.document(&"big".into()).unwrap().unwrap().terms.len(),
        200_000
    );
}

#[test]
fn scores_round_trip_and_swap() {
    let mut s = PairScores::new();
    s.insert(
        AlgorithmId::Shingle,
        Score::Overlap {
            resemblance: 0.5,
            a_in_b: 0.9,
            b_in_a: 0.6,
        },
    );
    s.insert(
        AlgorithmId::Simhash,
        Score::Hamming {
            distance: 3,
            bits: 64,
        },
    );
    s.insert(AlgorithmId::Minhash, Score::Similarity { value: 0.25 });
    s.insert(
        AlgorithmId::ImatchLexicons,
        Score::Matches { matched: 2, of: 10 },
    );
    s.insert(AlgorithmId::Si, Score::Incomparable);
    let back = |swap| -> PairScores {
        scores_from_blob(&scores_to_blob(&s, swap))
            .unwrap()
            .into_iter()
            .collect()
    };
    assert_eq!(back(false), s);
    let swapped = back(true);
    assert_eq!(
        swapped[&AlgorithmId::Shingle],
        Score::Overlap {
            resemblance: 0.5,
            a_in_b: 0.6,
            b_in_a: 0.9
        }
    );
}

/// A document's kept text reads back as written, goes when the document is
/// written without one or removed, and a blob that fails its checksum
/// reads as missing (the index then reads the file).
#[test]
fn a_kept_text_round_trips_and_a_corrupt_one_reads_as_missing() {
    let (_dir, mut store) = temp_store();
    let text = "Licence section 1. ".repeat(200) + "Une œuvre.";
    let kept = StoredText::compress(&text).unwrap();
    assert!(kept.compressed_len() < text.len() / 4, "{kept:?}");
    let a = DocPath::from(&b"a.txt"[..]);
    store
        .upsert_document(
            &DocRecord {
                text: Some(kept.clone()),
                ..doc(b"a.txt")
            },
            &[],
        )
        .unwrap();
    let read = store.kept_text(&a).unwrap().unwrap();
    assert_eq!((read.text.as_str(), read.content_hash), (text.as_str(), 1));
    assert_eq!(store.text_totals().unwrap().0, 1);
    store
        .conn
        .execute("UPDATE document_texts SET checksum = checksum + 1", [])
        .unwrap();
    assert_eq!(store.kept_text(&a).unwrap(), None);
    // Written again without boilerplate: the text goes with its row's.
    store.upsert_document(&doc(b"a.txt"), &[]).unwrap();
    assert_eq!(store.text_totals().unwrap(), (0, 0));
    store
        .upsert_document(
            &DocRecord {
                text: Some(kept),
                ..doc(b"a.txt")
            },
            &[],
        )
        .unwrap();
    store.remove_document(&a).unwrap();
    assert_eq!(store.text_totals().unwrap(), (0, 0));
}

/// A document written with pairs, text and boilerplate, then written again
/// without them, keeps none of them: in one batch (the second write of a
/// path is an update, though its row is new to the transaction), and
/// after a removal gives its id to another path (the rows that hung off
/// it went with it).
#[test]
fn a_row_new_to_a_batch_keeps_nothing_a_write_before_it_gave() {
    let (_dir, mut store) = temp_store();
    let text = StoredText::compress(&"Licence section 1. ".repeat(50)).unwrap();
    let dressed = |path: &[u8]| DocRecord {
        text: Some(text.clone()),
        // Findings of its own: a boilerplate row beside the samples.
        boilerplate: Some(StoredBoilerplate {
            found: doppel_pairing::boilerplate::DocBoilerplate {
                document_words: 5,
                ..Default::default()
            },
            ..StoredBoilerplate::default()
        }),
        ..doc(path)
    };
    let pair = |other: &[u8]| vec![(DocPath::from(other), PairScores::new())];
    let (a, b) = (DocPath::from(&b"a.txt"[..]), DocPath::from(&b"b.txt"[..]));
    let ids = store
        .commit_batch(
            &[],
            &[
                (doc(b"a.txt"), vec![]),
                (dressed(b"b.txt"), pair(b"a.txt")),
                (doc(b"b.txt"), vec![]),
            ],
            &[],
        )
        .unwrap();
    assert_eq!(ids[1], ids[2], "b written twice is one row");
    assert_eq!(
        store.pair_count().unwrap(),
        0,
        "b's second write has no pair"
    );
    assert_eq!(store.text_totals().unwrap(), (0, 0));
    assert_eq!(store.boilerplate_of(&b).unwrap(), None);

    // b holds the highest id; removed, its id goes to the next new path.
    store
        .commit_batch(&[], &[(dressed(b"b.txt"), pair(b"a.txt"))], &[])
        .unwrap();
    assert_eq!(store.pair_count().unwrap(), 1);
    store.remove_document(&b).unwrap();
    let c = store
        .commit_batch(&[], &[(doc(b"c.txt"), vec![])], &[])
        .unwrap();
    assert_eq!(c[0], ids[1], "the id is given out again");
    assert_eq!(store.pair_count().unwrap(), 0);
    assert_eq!(store.text_totals().unwrap(), (0, 0));
    assert_eq!(store.boilerplate_of(&"c.txt".into()).unwrap(), None);
    assert!(store.document(&a).unwrap().is_some());
}

/// Fingerprints read for many paths at once, whichever way they are read
/// (one walk of the range they fill, or one query each), are each path's
/// own: paths missing from the index, skipped documents and indexed
/// documents between the asked-for ones do not shift them.
#[test]
fn prints_read_for_many_paths_are_each_paths_own() {
    let (_dir, mut store) = temp_store();
    let name = |i: usize| format!("doc-{i:03}.txt").into_bytes();
    let records: Vec<(DocRecord, Vec<PairUpdate>)> = (0..200)
        .map(|i| {
            let mut rec = doc(&name(i));
            rec.fingerprints = Some(Fingerprints {
                exact: Some(Some(i as u128)),
                ..Fingerprints::default()
            });
            if i % 17 == 0 {
                rec.status = DocStatus::Skipped {
                    reason: "empty".into(),
                };
                rec.fingerprints = None;
            }
            (rec, vec![])
        })
        .collect();
    store.commit_batch(&[], &records, &[]).unwrap();
    let expected = |path: &DocPath| -> Option<u64> {
        let text = String::from_utf8(path.as_bytes().to_vec()).unwrap();
        let i: usize = text
            .strip_prefix("doc-")?
            .strip_suffix(".txt")?
            .parse()
            .ok()?;
        (i < 200 && !i.is_multiple_of(17)).then_some(i as u64)
    };
    let asks: Vec<Vec<DocPath>> = vec![
        // Dense and in order, with gaps and paths the index does not have.
        (10..150)
            .filter(|i| i % 9 != 0)
            .map(|i| DocPath::from(&name(i)[..]))
            .chain([DocPath::from(&b"doc-150a.txt"[..])])
            .chain((151..199).map(|i| DocPath::from(&name(i)[..])))
            .collect(),
        // Sparse: one in five.
        (0..200)
            .step_by(5)
            .map(|i| DocPath::from(&name(i)[..]))
            .collect(),
        // Out of order.
        (0..60).rev().map(|i| DocPath::from(&name(i)[..])).collect(),
        // Before the first and past the last.
        [&b"a.txt"[..], &name(0), &name(1), &b"z.txt"[..]]
            .iter()
            .map(|p| DocPath::from(*p))
            .collect(),
    ];
    for paths in asks {
        let refs: Vec<&DocPath> = paths.iter().collect();
        let read: Vec<Option<u64>> = store
            .fingerprints_at(&refs)
            .unwrap()
            .into_iter()
            .map(|f| f.and_then(|f| f.exact.flatten()).map(|e| e as u64))
            .collect();
        let want: Vec<Option<u64>> = paths.iter().map(expected).collect();
        assert_eq!(read, want);
    }
}

/// A document's keeper facts are kept with its row: its quality, words
/// and form in columns of their own, its UTF-8 and age read back from its
/// encoding and modification time.
#[test]
fn keeper_facts_round_trip_with_the_row() {
    use doppel_pairing::keeper::{KeeperFacts, TextForm};
    let (_dir, mut store) = temp_store();
    let facts = KeeperFacts {
        quality: 0.94,
        form: TextForm::Pages,
        utf8: true,
        words: 3354,
        modified_ns: 77,
    };
    let mut scan = doc(b"scan.pdf");
    scan.identity.mtime_ns = 77;
    scan.keeper = Some(facts);
    let mut cp1252 = doc(b"old.txt");
    cp1252.encoding = Some("windows-1252".into());
    cp1252.keeper = Some(KeeperFacts {
        form: TextForm::Plain,
        utf8: false,
        modified_ns: 0,
        ..facts
    });
    store.upsert_document(&scan, &[]).unwrap();
    store.upsert_document(&cp1252, &[]).unwrap();
    store.upsert_document(&doc(b"before.txt"), &[]).unwrap();
    let read: std::collections::HashMap<DocPath, Option<KeeperFacts>> = store
        .documents_without_blobs()
        .unwrap()
        .into_iter()
        .map(|r| (r.path, r.keeper))
        .collect();
    assert_eq!(read[&DocPath::from("scan.pdf")], scan.keeper);
    assert_eq!(read[&DocPath::from("old.txt")], cp1252.keeper);
    assert_eq!(read[&DocPath::from("before.txt")], None);
}

/// An index of schema 7 gains the keeper facts' columns, empty: its rows
/// read without facts (the index reads their files again).
#[test]
fn an_index_of_schema_7_gains_empty_keeper_facts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("index.sqlite");
    {
        let (mut store, _) = SqliteStore::open(&file).unwrap();
        store.upsert_document(&doc(b"a.txt"), &[]).unwrap();
        store
            .conn
            .execute_batch(
                "ALTER TABLE documents DROP COLUMN quality; \
                 ALTER TABLE documents DROP COLUMN words; \
                 ALTER TABLE documents DROP COLUMN text_form; \
                 PRAGMA user_version = 7;",
            )
            .unwrap();
    }
    let (store, report) = SqliteStore::open(&file).unwrap();
    assert!(report.moved_aside.is_none(), "migrated, not moved aside");
    let rows = store.documents_without_blobs().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].keeper, None);
    let version: i32 = store
        .conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}
