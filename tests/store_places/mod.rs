//! Where a store under test lives, so one behaviour test runs on every
//! backend: an SQLite file in a temporary folder, and (built with the
//! `postgres` feature, with `DOPPEL_TEST_PG` set to a server's URL) a
//! collection in a fresh schema of its own on that server. Without the
//! URL the PostgreSQL run is skipped, saying so, unless
//! `DOPPEL_TEST_PG_REQUIRED=1`, when it fails (`.ci/run` sets both).
// Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::PathBuf;

use doppel_store::{Store, StoreAddress};

/// The collection every PostgreSQL run keeps its documents in.
const COLLECTION: &str = "/srv/doppel-test";

/// One place a test's store lives.
pub enum Place {
    /// An SQLite file, in a folder removed with the place.
    File(tempfile::TempDir, PathBuf),
    /// A collection in a PostgreSQL schema of its own.
    Postgres(StoreAddress),
}

impl Place {
    /// The backend's name, for assertion messages.
    pub fn backend(&self) -> &'static str {
        match self {
            Place::File(..) => "sqlite",
            Place::Postgres(_) => "postgres",
        }
    }

    /// Open (or reopen, on a new connection) the store here; asserts that
    /// nothing was moved aside.
    pub fn open(&self) -> Box<dyn Store> {
        let (store, report) = self.open_reporting();
        assert!(report.moved_aside.is_none(), "{:?}", report.messages());
        store
    }

    /// [`Place::open`] with the open's report.
    pub fn open_reporting(&self) -> (Box<dyn Store>, doppel_store::OpenReport) {
        let address = match self {
            Place::File(_, path) => StoreAddress::File(path.clone()),
            Place::Postgres(address) => address.clone(),
        };
        let (store, report) = doppel_store::open_at(&address, COLLECTION, "tester").unwrap();
        assert_eq!(store.backend_name(), self.backend());
        (store, report)
    }

    /// What the store's errors name it by.
    pub fn named(&self) -> String {
        match self {
            Place::File(_, path) => path.display().to_string(),
            Place::Postgres(address) => address.to_string(),
        }
    }
}

/// Every place `test` (a name unique among the tests) runs: an SQLite
/// file at `file` inside a fresh temporary folder, then the PostgreSQL
/// schema `test` when a server is given.
pub fn places(test: &str, file: &str) -> Vec<Place> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file);
    let mut out = vec![Place::File(dir, path)];
    if let Some(address) = postgres_schema(test) {
        out.push(Place::Postgres(address));
    }
    out
}

/// A fresh, empty schema named after `test` on the test server, and the
/// address that works in it; `None` (skip) when no server is given.
#[cfg(feature = "postgres")]
fn postgres_schema(test: &str) -> Option<StoreAddress> {
    postgres_url(test).map(|url| StoreAddress::parse(&url).unwrap())
}

/// [`postgres_schema`]'s address as a URL (for `--store`).
#[cfg(feature = "postgres")]
pub fn postgres_url(test: &str) -> Option<String> {
    use postgres::NoTls;
    let url = std::env::var("DOPPEL_TEST_PG")
        .ok()
        .filter(|u| !u.is_empty());
    let required = std::env::var("DOPPEL_TEST_PG_REQUIRED").is_ok_and(|v| v == "1");
    let Some(url) = url else {
        assert!(
            !required,
            "DOPPEL_TEST_PG_REQUIRED=1 but DOPPEL_TEST_PG is not set"
        );
        eprintln!("{test}: PostgreSQL skipped (set DOPPEL_TEST_PG to a server's URL)");
        return None;
    };
    let schema = format!("doppel_it_{test}");
    let mut admin = url
        .parse::<postgres::Config>()
        .unwrap()
        .connect(NoTls)
        .unwrap_or_else(|e| panic!("the test server at DOPPEL_TEST_PG is unreachable: {e}"));
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let separator = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{separator}options=-csearch_path%3D{schema}"))
}

#[cfg(not(feature = "postgres"))]
fn postgres_schema(_test: &str) -> Option<StoreAddress> {
    None
}

/// What `doppel ingest` left in the one collection of the schema at `url`
/// ([`postgres_url`]): the key the stored pairs were made under
/// (`meta.pairs_hash`; `unpaired:…` while the collection waits for its
/// pairing pass) and how many files are still queued (`ingest_claims`).
#[cfg(feature = "postgres")]
pub fn ingest_left(url: &str) -> (Option<String>, i64) {
    use postgres::NoTls;
    let mut client = url
        .parse::<postgres::Config>()
        .unwrap()
        .connect(NoTls)
        .unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT value FROM meta WHERE key = 'pairs_hash'), \
             (SELECT count(*) FROM ingest_claims)",
            &[],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

/// The collection at `url` was paired by an ingest's pairing pass: its
/// stored pairs are the whole pairing (a scan restores them as they are),
/// and no file waits to be fingerprinted.
#[cfg(feature = "postgres")]
pub fn assert_paired_by_ingest(url: &str) {
    let (pairs_hash, queued) = ingest_left(url);
    assert_eq!(queued, 0, "files left in the ingest queue");
    assert!(
        pairs_hash
            .as_deref()
            .is_some_and(|h| !h.is_empty() && !h.starts_with("unpaired:")),
        "the collection is not paired: pairs_hash {pairs_hash:?}"
    );
}
