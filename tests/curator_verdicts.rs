//! Curators' verdicts in the store, on every backend (`store_places`):
//! each curator's verdict on a pair kept apart from the others', one
//! curator changing or clearing theirs touching only their own, and the
//! history of every set and clear, in order, following a renamed file;
//! and an SQLite index from before curators were recorded keeping its
//! verdicts as the unknown curator's.

use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_store::{PairVerdictRecord, SqliteStore, Store, VerdictChange, Verdicts};

mod store_places;

use store_places::places;

use CuratorVerdict::{Duplicate, NotDuplicate};

fn d(name: &str) -> DocPath {
    DocPath::from(name)
}

/// Each curator's current verdict, as (a, b, curator, verdict).
fn current(store: &dyn Store) -> Vec<(String, String, String, CuratorVerdict)> {
    store
        .pair_verdicts()
        .unwrap()
        .into_iter()
        .map(|r: PairVerdictRecord| (r.a.to_string(), r.b.to_string(), r.curator, r.verdict))
        .collect()
}

/// A pair's history, as (curator, verdict or cleared).
fn history(store: &dyn Store, a: &str, b: &str) -> Vec<(String, Option<CuratorVerdict>)> {
    let changes = store.pair_verdict_history(&d(a), &d(b)).unwrap();
    assert!(
        changes.windows(2).all(|w| w[0].at_ns <= w[1].at_ns),
        "oldest first: {changes:?}"
    );
    changes
        .into_iter()
        .map(|c: VerdictChange| (c.curator, c.verdict))
        .collect()
}

fn row(
    a: &str,
    b: &str,
    curator: &str,
    v: CuratorVerdict,
) -> (String, String, String, CuratorVerdict) {
    (a.into(), b.into(), curator.into(), v)
}

#[test]
fn two_curators_verdicts_are_kept_apart_with_their_history() {
    for place in places("two_curators_verdicts_kept_apart", "index.sqlite") {
        let backend = place.backend();
        let mut store = place.open();
        store.set_curator("alice");
        store
            .set_pair_verdict(&d("b.txt"), &d("a.txt"), Duplicate)
            .unwrap();
        store.set_curator("bob");
        assert_eq!(store.curator(), "bob");
        store
            .set_pair_verdict(&d("a.txt"), &d("b.txt"), NotDuplicate)
            .unwrap();
        assert_eq!(
            current(&*store),
            vec![
                row("a.txt", "b.txt", "alice", Duplicate),
                row("a.txt", "b.txt", "bob", NotDuplicate)
            ],
            "{backend}: bob's verdict never replaces alice's"
        );

        // Alice changes her mind: hers is replaced, bob's stays.
        drop(store);
        let mut store = place.open();
        store.set_curator("alice");
        store
            .set_pair_verdict(&d("a.txt"), &d("b.txt"), NotDuplicate)
            .unwrap();
        let now = current(&*store);
        assert_eq!(now.len(), 2, "{backend}: one verdict per curator: {now:?}");
        assert!(now.contains(&row("a.txt", "b.txt", "alice", NotDuplicate)));
        assert!(now.contains(&row("a.txt", "b.txt", "bob", NotDuplicate)));

        // Bob clears his: alice's is left.
        store.set_curator("bob");
        assert!(store.clear_pair_verdict(&d("b.txt"), &d("a.txt")).unwrap());
        assert!(
            !store.clear_pair_verdict(&d("b.txt"), &d("a.txt")).unwrap(),
            "{backend}: bob has none left to clear"
        );
        assert_eq!(
            current(&*store),
            vec![row("a.txt", "b.txt", "alice", NotDuplicate)]
        );

        assert_eq!(
            history(&*store, "b.txt", "a.txt"),
            vec![
                ("alice".into(), Some(Duplicate)),
                ("bob".into(), Some(NotDuplicate)),
                ("alice".into(), Some(NotDuplicate)),
                ("bob".into(), None),
            ],
            "{backend}: every set and clear, in order, whichever way the pair is named"
        );
        assert!(history(&*store, "a.txt", "c.txt").is_empty());
    }
}

#[test]
fn a_renamed_file_takes_every_curators_verdict_and_history() {
    for place in places("renamed_file_takes_curators_verdicts", "index.sqlite") {
        let backend = place.backend();
        let mut store = place.open();
        store.set_curator("alice");
        store
            .set_pair_verdict(&d("m.txt"), &d("b.txt"), Duplicate)
            .unwrap();
        store.set_keeper(&d("m.txt"), true).unwrap();
        store.set_curator("bob");
        store
            .set_pair_verdict(&d("m.txt"), &d("b.txt"), NotDuplicate)
            .unwrap();
        // rename_document moves an indexed row: index m.txt first.
        let record = skipped_record("m.txt");
        store.upsert_document(&record, &[]).unwrap();
        assert!(store.rename_document(&d("m.txt"), &d("a.txt")).unwrap());

        assert_eq!(
            current(&*store),
            vec![
                row("a.txt", "b.txt", "alice", Duplicate),
                row("a.txt", "b.txt", "bob", NotDuplicate)
            ],
            "{backend}"
        );
        assert_eq!(
            history(&*store, "a.txt", "b.txt"),
            vec![
                ("alice".into(), Some(Duplicate)),
                ("bob".into(), Some(NotDuplicate))
            ],
            "{backend}: the history follows the file"
        );
        assert!(history(&*store, "m.txt", "b.txt").is_empty());
        assert_eq!(store.keepers().unwrap(), vec![d("a.txt")]);
    }
}

/// A document record for `path` that was skipped (no fingerprints needed).
fn skipped_record(path: &str) -> doppel_store::DocRecord {
    use doppel_core::doc::FileIdentity;
    use doppel_store::{DocRecord, DocStatus};
    DocRecord {
        first_seen_ns: 7,
        status: DocStatus::Skipped {
            reason: "empty".into(),
        },
        ..DocRecord::read(d(path), FileIdentity::default(), 0)
    }
}

#[test]
fn an_index_from_before_curators_keeps_its_verdicts_as_the_unknown_curators() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    drop(SqliteStore::open(&path).unwrap());
    // Turn it into a version-5 index, with one verdict and one keeper.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TABLE pair_verdicts; DROP TABLE verdict_history; DROP TABLE doc_verdicts;
         CREATE TABLE pair_verdicts (
             a BLOB NOT NULL, b BLOB NOT NULL,
             verdict TEXT NOT NULL CHECK (verdict IN ('duplicate', 'not-duplicate')),
             set_at_ns INTEGER NOT NULL, PRIMARY KEY (a, b), CHECK (a < b)
         ) STRICT, WITHOUT ROWID;
         CREATE TABLE doc_verdicts (
             path BLOB PRIMARY KEY, verdict TEXT NOT NULL CHECK (verdict IN ('keep')),
             set_at_ns INTEGER NOT NULL
         ) STRICT, WITHOUT ROWID;
         INSERT INTO pair_verdicts VALUES (CAST('a.txt' AS BLOB), CAST('b.txt' AS BLOB), 'duplicate', 42);
         INSERT INTO doc_verdicts VALUES (CAST('a.txt' AS BLOB), 'keep', 43);
         ALTER TABLE document_prints DROP COLUMN samples;
         ALTER TABLE documents DROP COLUMN quality;
         ALTER TABLE documents DROP COLUMN words;
         ALTER TABLE documents DROP COLUMN text_form;
         PRAGMA user_version = 5;",
    )
    .unwrap();
    drop(conn);

    let (mut store, report) = SqliteStore::open(&path).unwrap();
    assert!(report.moved_aside.is_none(), "migrated, not moved aside");
    let old = store.pair_verdicts().unwrap();
    assert_eq!(
        (old[0].curator.as_str(), old[0].verdict, old[0].set_at_ns),
        ("", Duplicate, 42),
        "the old verdict is the unknown curator's, at the time it was set"
    );
    assert_eq!(
        history(&store, "a.txt", "b.txt"),
        vec![(String::new(), Some(Duplicate))]
    );
    assert_eq!(store.keepers().unwrap(), vec![d("a.txt")]);
    // The index was one person's: the next curator to judge the pair takes
    // the old verdict over instead of disputing it.
    store.set_curator("alice");
    store
        .set_pair_verdict(&d("a.txt"), &d("b.txt"), NotDuplicate)
        .unwrap();
    assert_eq!(
        current(&store),
        vec![row("a.txt", "b.txt", "alice", NotDuplicate)]
    );
    assert_eq!(
        history(&store, "a.txt", "b.txt"),
        vec![
            (String::new(), Some(Duplicate)),
            ("alice".into(), Some(NotDuplicate))
        ]
    );
}
