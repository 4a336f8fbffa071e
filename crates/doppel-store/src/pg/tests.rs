//! The PostgreSQL backend against a real server: `DOPPEL_TEST_PG` holds
//! its URL (`.ci/run` starts a throwaway cluster and sets it). Without it
//! these tests skip, saying so, unless `DOPPEL_TEST_PG_REQUIRED=1`, when
//! they fail. Each test works in a PostgreSQL schema of its own (through
//! the URL's `options=-csearch_path=…`), so they run in parallel.

use postgres::{Client, NoTls};

use super::*;
use crate::{DocRecord, DocStatus, Documents, Meta, PairUpdate, StoreAddress, Verdicts};
use doppel_core::doc::{CuratorVerdict, DocPath};

/// The test server's URL; `None` (skip) when none is set and none is
/// required.
fn server() -> Option<String> {
    let url = std::env::var("DOPPEL_TEST_PG")
        .ok()
        .filter(|u| !u.is_empty());
    let required = std::env::var("DOPPEL_TEST_PG_REQUIRED").is_ok_and(|v| v == "1");
    match url {
        Some(url) => Some(url),
        None if required => panic!("DOPPEL_TEST_PG_REQUIRED=1 but DOPPEL_TEST_PG is not set"),
        None => {
            eprintln!("skipped: set DOPPEL_TEST_PG to a PostgreSQL URL to run this test");
            None
        }
    }
}

/// A fresh, empty PostgreSQL schema named `name` on the test server, and
/// the address that works in it.
fn fresh_schema(url: &str, name: &str) -> PgAddress {
    let mut admin = url
        .parse::<postgres::Config>()
        .unwrap()
        .connect(NoTls)
        .unwrap_or_else(|e| panic!("the test server at DOPPEL_TEST_PG is unreachable: {e}"));
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
        ))
        .unwrap();
    let separator = if url.contains('?') { '&' } else { '?' };
    PgAddress::parse(&format!("{url}{separator}options=-csearch_path%3D{name}")).unwrap()
}

fn connect(address: &PgAddress) -> Client {
    address.config().connect(NoTls).unwrap()
}

#[test]
fn opening_creates_the_schema_once_and_keeps_collections_apart() {
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_open");
    let first = PgStore::open(&address, "/srv/collection-a", "alice").unwrap();
    assert_eq!(first.schema_version().unwrap(), PG_SCHEMA_VERSION);
    let again = PgStore::open(&address, "/srv/collection-a", "alice").unwrap();
    let other = PgStore::open(&address, "/srv/collection-b", "alice").unwrap();
    assert_eq!(first.collection_id(), again.collection_id());
    assert_ne!(first.collection_id(), other.collection_id());
    let mut client = connect(&address);
    let applied: i64 = client
        .query_one("SELECT count(*) FROM schema_migrations", &[])
        .unwrap()
        .get(0);
    assert_eq!(applied, i64::from(PG_SCHEMA_VERSION), "each migration once");
    // The documents' own tables and pairs are keyed by the documents' ids.
    for table in ["documents", "pair_verdicts", "doc_verdicts", "meta"] {
        let has_collection: bool = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 \
                 AND column_name = 'collection')",
                &[&table],
            )
            .unwrap()
            .get(0);
        assert!(has_collection, "{table} is keyed by collection");
    }
}

#[test]
fn a_newer_schema_is_refused_in_one_line_and_left_as_it_is() {
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_newer");
    drop(PgStore::open(&address, "/srv/collection", "alice").unwrap());
    let mut client = connect(&address);
    client
        .execute("INSERT INTO schema_migrations (version) VALUES (99)", &[])
        .unwrap();
    let error = PgStore::open(&address, "/srv/collection", "alice")
        .unwrap_err()
        .to_string();
    assert!(error.contains("schema version 99"), "{error}");
    assert!(error.contains(&address.to_string()), "{error}");
    assert!(!error.contains('\n'), "{error}");
    let (versions, collections): (i64, i64) = client
        .query_one(
            "SELECT (SELECT count(*) FROM schema_migrations), (SELECT count(*) FROM collections)",
            &[],
        )
        .map(|r| (r.get(0), r.get(1)))
        .unwrap();
    assert_eq!(
        (versions, collections),
        (i64::from(PG_SCHEMA_VERSION) + 1, 1),
        "nothing moved or dropped"
    );
}

#[test]
fn an_unreachable_server_is_one_line_naming_it_without_the_password() {
    // Port 1 on the loopback: nothing listens there.
    let StoreAddress::Postgres(address) =
        StoreAddress::parse("postgres://alice:s3cret@127.0.0.1:1/library?connect_timeout=5")
            .unwrap()
    else {
        unreachable!("a postgres URL")
    };
    let error = PgStore::open(&address, "/srv/collection", "alice")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("store postgres://alice@127.0.0.1:1/library: connect: "),
        "{error}"
    );
    assert!(!error.contains("s3cret"), "{error}");
    assert!(!error.contains('\n'), "{error}");
    eprintln!("{error}");
}

#[test]
fn verdicts_are_kept_per_collection_with_their_curator() {
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_verdicts");
    let mut alice = PgStore::open(&address, "/srv/letters", "alice").unwrap();
    let mut bob = PgStore::open(&address, "/srv/letters", "bob").unwrap();
    let mut elsewhere = PgStore::open(&address, "/srv/minutes", "carol").unwrap();
    let (x, y, z) = (
        DocPath::from(&b"b.txt"[..]),
        DocPath::from(&b"a.txt"[..]),
        DocPath::from(&b"c\xff.txt"[..]),
    );
    alice
        .set_pair_verdict(&x, &y, CuratorVerdict::Duplicate)
        .unwrap();
    elsewhere
        .set_pair_verdict(&x, &y, CuratorVerdict::NotDuplicate)
        .unwrap();
    bob.set_pair_verdict(&z, &x, CuratorVerdict::NotDuplicate)
        .unwrap();
    alice.set_keeper(&z, true).unwrap();

    // One collection's verdicts, whoever made them, in path order.
    let seen: Vec<_> = bob
        .pair_verdicts()
        .unwrap()
        .into_iter()
        .map(|r| (r.a, r.b, r.verdict, r.curator))
        .collect();
    assert_eq!(
        seen,
        vec![
            (
                y.clone(),
                x.clone(),
                CuratorVerdict::Duplicate,
                "alice".to_owned()
            ),
            (
                x.clone(),
                z.clone(),
                CuratorVerdict::NotDuplicate,
                "bob".to_owned()
            ),
        ]
    );
    assert_eq!(bob.keepers().unwrap(), vec![z.clone()]);
    // The other folder's are its own.
    let other = elsewhere.pair_verdicts().unwrap();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0].verdict, CuratorVerdict::NotDuplicate);
    assert!(elsewhere.keepers().unwrap().is_empty());

    // A second curator's verdict on a pair stands beside the first's.
    bob.set_pair_verdict(&x, &y, CuratorVerdict::NotDuplicate)
        .unwrap();
    let on_xy: Vec<_> = alice
        .pair_verdicts()
        .unwrap()
        .into_iter()
        .filter(|r| r.b == x)
        .map(|r| (r.curator, r.verdict))
        .collect();
    assert_eq!(
        on_xy,
        vec![
            ("alice".to_owned(), CuratorVerdict::Duplicate),
            ("bob".to_owned(), CuratorVerdict::NotDuplicate)
        ]
    );

    assert!(alice.clear_pair_verdict(&y, &x).unwrap());
    assert!(
        !alice.clear_pair_verdict(&y, &x).unwrap(),
        "already cleared"
    );
    alice.set_keeper(&z, false).unwrap();
    assert!(bob.keepers().unwrap().is_empty());
    assert!(alice
        .set_pair_verdict(&x, &x, CuratorVerdict::Duplicate)
        .is_err());
}

#[test]
fn a_version_1_database_keeps_its_verdicts_as_their_curators_history() {
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_migrate_v1");
    let mut client = connect(&address);
    // A database as the first schema left it, with one verdict.
    client
        .batch_execute(&format!(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, \
                 applied_at timestamptz NOT NULL DEFAULT now()); \
             {} \
             INSERT INTO schema_migrations (version) VALUES (1); \
             INSERT INTO collections (name) VALUES ('/srv/letters'); \
             INSERT INTO pair_verdicts (collection, a, b, verdict, curator, set_at_ns) \
                 SELECT id, 'a.txt', 'b.txt', 'duplicate', 'alice', 42 FROM collections;",
            MIGRATIONS[0]
        ))
        .unwrap();
    let mut bob = PgStore::open(&address, "/srv/letters", "bob").unwrap();
    assert_eq!(bob.schema_version().unwrap(), PG_SCHEMA_VERSION);
    let (a, b) = (DocPath::from("a.txt"), DocPath::from("b.txt"));
    bob.set_pair_verdict(&a, &b, CuratorVerdict::NotDuplicate)
        .unwrap();
    let kept: Vec<_> = bob
        .pair_verdicts()
        .unwrap()
        .into_iter()
        .map(|r| (r.curator, r.verdict))
        .collect();
    assert_eq!(
        kept,
        vec![
            ("alice".to_owned(), CuratorVerdict::Duplicate),
            ("bob".to_owned(), CuratorVerdict::NotDuplicate)
        ],
        "alice's verdict from before the migration stays beside bob's"
    );
    let history = bob.pair_verdict_history(&b, &a).unwrap();
    assert_eq!(history[0].curator, "alice");
    assert_eq!(history[0].at_ns, 42);
    assert_eq!(history.len(), 2);
}

/// A listener says when it first listens, before any change: what was
/// committed before then was never announced, and its worker reads it
/// then (a verdict made while another screen started was lost for good).
#[test]
fn a_listener_says_when_it_listens_and_then_hears_the_others_changes() {
    use crate::live::{Change, LiveEvent};
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_listening");
    // A collection of its own: notification channels are the database's,
    // named by collection, so another test writing "/srv/letters" at the
    // same time would be heard here.
    let mut alice = PgStore::open(&address, "/srv/listening", "alice").unwrap();
    let bob = PgStore::open(&address, "/srv/listening", "bob").unwrap();
    let (heard, events) = std::sync::mpsc::channel();
    let _listener = bob.follow(move |event| heard.send(event).is_ok());
    let wait = std::time::Duration::from_secs(30);
    assert_eq!(events.recv_timeout(wait), Ok(LiveEvent::Listening));
    let (x, y) = (DocPath::from("a.txt"), DocPath::from("b.txt"));
    alice
        .set_pair_verdict(&x, &y, CuratorVerdict::Duplicate)
        .unwrap();
    assert_eq!(
        events.recv_timeout(wait),
        Ok(LiveEvent::Changed(Change::Decisions))
    );
}

/// Two schemas of one database (two teams' stores, or two tests) each
/// have a collection with id 1: a change in one is not heard in the other
/// (channels are the database's; named by the id alone, they were shared).
#[test]
fn a_listener_hears_its_own_schemas_collection_and_no_other() {
    use crate::live::{Change, LiveEvent};
    let Some(url) = server() else { return };
    let ours = fresh_schema(&url, "doppel_test_channel_ours");
    let theirs = fresh_schema(&url, "doppel_test_channel_theirs");
    let mut alice = PgStore::open(&ours, "/srv/shared-name", "alice").unwrap();
    let bob = PgStore::open(&ours, "/srv/shared-name", "bob").unwrap();
    let mut stranger = PgStore::open(&theirs, "/srv/shared-name", "carol").unwrap();
    assert_eq!(alice.collection_id(), stranger.collection_id());
    let (heard, events) = std::sync::mpsc::channel();
    let _listener = bob.follow(move |event| heard.send(event).is_ok());
    let wait = std::time::Duration::from_secs(30);
    assert_eq!(events.recv_timeout(wait), Ok(LiveEvent::Listening));
    // Notifications arrive in commit order: the other schema's change
    // (its team's thresholds) first, then ours.
    use crate::meta::{MetaTable, META_SHARED_THRESHOLDS};
    stranger
        .set_metas(&[(META_SHARED_THRESHOLDS, "{}")])
        .unwrap();
    let (x, y) = (DocPath::from("a.txt"), DocPath::from("b.txt"));
    alice
        .set_pair_verdict(&x, &y, CuratorVerdict::Duplicate)
        .unwrap();
    assert_eq!(
        events.recv_timeout(wait),
        Ok(LiveEvent::Changed(Change::Decisions)),
        "the first change heard is our verdict, not the other schema's"
    );
}

#[test]
fn meta_values_round_trip_per_collection() {
    use crate::OverruledPassage;
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_meta");
    let mut letters = PgStore::open(&address, "/srv/letters", "alice").unwrap();
    let mut minutes = PgStore::open(&address, "/srv/minutes", "alice").unwrap();
    assert_eq!(letters.config_hash().unwrap(), None, "a fresh collection");
    letters.set_config_hash("0123abcd").unwrap();
    letters.set_idf_generation(u64::MAX).unwrap();
    let passage = OverruledPassage {
        hashes: vec![7, 1, 7],
        documents: 3,
        words: 40,
        first_words: "This eBook is for the use of anyone".into(),
        representative: "a.txt".into(),
    };
    letters
        .set_overruled_passages(std::slice::from_ref(&passage))
        .unwrap();
    let before = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    letters
        .record_use(std::path::Path::new("/srv/letters"))
        .unwrap();
    minutes.set_config_hash("ffff").unwrap();

    let again = PgStore::open(&address, "/srv/letters", "bob").unwrap();
    assert_eq!(again.config_hash().unwrap().as_deref(), Some("0123abcd"));
    assert_eq!(again.idf_generation().unwrap(), Some(u64::MAX));
    assert_eq!(again.overruled_passages().unwrap(), vec![passage]);
    assert_eq!(
        again.folder().unwrap(),
        Some(std::path::PathBuf::from("/srv/letters"))
    );
    assert!(again.last_used().unwrap().is_some_and(|t| t >= before));
    assert_eq!(minutes.config_hash().unwrap().as_deref(), Some("ffff"));
    assert!(minutes.overruled_passages().unwrap().is_empty());
    assert_eq!(minutes.folder().unwrap(), None);
}

/// A skipped document's record at `path` (the least a commit writes).
fn skipped_record(path: &str, identity: doppel_core::doc::FileIdentity) -> DocRecord {
    DocRecord {
        first_seen_ns: 1,
        status: DocStatus::Skipped {
            reason: "empty".into(),
        },
        ..DocRecord::read(DocPath::from(path.as_bytes()), identity, 0)
    }
}

#[test]
fn a_claim_is_taken_over_only_once_stale_and_a_lost_claim_writes_nothing() {
    use std::time::Duration;
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_claims");
    let mut x = PgStore::open(&address, "/srv/collection", "x").unwrap();
    let mut y = PgStore::open(&address, "/srv/collection", "y").unwrap();
    let identity = doppel_core::doc::FileIdentity {
        size: 5,
        mtime_ns: 7,
        ..Default::default()
    };
    let docs: Vec<(DocPath, _)> = ["a", "b", "c"]
        .iter()
        .map(|p| (DocPath::from(p.as_bytes()), identity))
        .collect();
    x.queue_work(&docs, 42, true).unwrap();
    // Queued twice, held once.
    y.queue_work(&docs, 43, true).unwrap();
    let minute = Duration::from_secs(60);
    let held = x.claim_work("x", 2, minute).unwrap();
    let names = |c: &[Claimed]| c.iter().map(|c| c.doc.to_string()).collect::<Vec<_>>();
    assert_eq!(names(&held), ["a", "b"]);
    assert!(held.iter().all(|c| c.queued_ns == 42 && !c.taken_over));
    // Fresh claims are not y's to take; the free one is.
    let free = y.claim_work("y", 10, minute).unwrap();
    assert_eq!(names(&free), ["c"]);
    assert_eq!(
        y.work_left("y", minute).unwrap(),
        WorkLeft {
            claimable: 0,
            held_by_others: 2
        }
    );
    // With no time allowed, x's claims are stale: y takes them over.
    let taken = y.claim_work("y", 10, Duration::ZERO).unwrap();
    assert_eq!(names(&taken), ["a", "b"]);
    assert!(taken.iter().all(|c| c.taken_over));
    // x's commit of its lost claims writes none of their documents.
    let records: Vec<(DocRecord, Vec<PairUpdate>)> = ["a", "b"]
        .iter()
        .map(|p| (skipped_record(p, identity), Vec::new()))
        .collect();
    x.release_with_next_commit("x", records.iter().map(|r| r.0.path.clone()).collect());
    x.commit_batch(&[], &records, &[]).unwrap();
    assert_eq!(x.finish_release().unwrap(), 0);
    assert_eq!(x.document_count().unwrap(), 0, "nothing written twice");
    // y's commit writes all three and leaves no work.
    let records: Vec<(DocRecord, Vec<PairUpdate>)> = ["a", "b", "c"]
        .iter()
        .map(|p| (skipped_record(p, identity), Vec::new()))
        .collect();
    y.release_with_next_commit("y", records.iter().map(|r| r.0.path.clone()).collect());
    y.commit_batch(&[], &records, &[]).unwrap();
    assert_eq!(y.finish_release().unwrap(), 3);
    assert_eq!(y.document_count().unwrap(), 3);
    assert_eq!(y.work_left("y", minute).unwrap(), WorkLeft::default());
    // Queued again as they are stored: already done, nothing to claim.
    x.queue_work(&docs, 44, true).unwrap();
    assert_eq!(x.work_left("x", minute).unwrap(), WorkLeft::default());
}

/// The pairing lock is one process's at a time and goes with its session;
/// a pass begins only with the queue empty, and the passes a process saw
/// begun tell it whether a completed one came after its files.
#[test]
fn a_pairing_pass_begins_with_the_queue_empty_and_the_lock_goes_with_its_session() {
    use std::time::Duration;
    let Some(url) = server() else { return };
    let address = fresh_schema(&url, "doppel_test_pairing");
    let mut x = PgStore::open(&address, "/srv/collection", "x").unwrap();
    let collection = x.collection_id();
    let a = DocPath::from("a");
    x.queue_work(&[(a.clone(), Default::default())], 1, false)
        .unwrap();
    let seen = x.pairing_passes_begun().unwrap();
    assert_eq!(seen, 0);

    let mut first = PairingLock::connect(&address, collection).unwrap();
    let mut second = PairingLock::connect(&address, collection).unwrap();
    assert!(first.try_take().unwrap());
    assert!(!second.try_take().unwrap(), "one holder at a time");
    // A file is queued: it comes first, and no pass is counted.
    assert_eq!(first.begin_pass().unwrap(), None);
    assert_eq!(first.passes().unwrap(), PairingPasses::default());
    // Claimed and given back (as after a lost connection), then claimed
    // again and released.
    assert_eq!(
        x.claim_work("x", 5, Duration::from_secs(60)).unwrap().len(),
        1
    );
    assert_eq!(x.unclaim("x").unwrap(), 1);
    let again = x.claim_work("y", 5, Duration::from_secs(60)).unwrap();
    assert!(!again[0].taken_over, "given back, not taken over");
    x.release_with_next_commit("y", vec![a.clone()]);
    x.finish_release().unwrap();
    // The queue is empty: pass 1 begins, and its holder dies unfinished.
    assert_eq!(first.begin_pass().unwrap(), Some(1));
    drop(first);
    second.take().unwrap();
    let passes = second.passes().unwrap();
    assert_eq!((passes.begun, passes.done), (1, 0), "begun, never done");
    assert!(passes.done <= seen, "x's files are still to pair");
    assert_eq!(second.begin_pass().unwrap(), Some(2));
    second.finish_pass(2).unwrap();
    assert!(
        second.passes().unwrap().done > seen,
        "paired after x's files"
    );
    assert_eq!(x.pairing_passes_begun().unwrap(), 2);
}
