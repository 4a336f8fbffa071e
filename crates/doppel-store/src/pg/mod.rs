//! The PostgreSQL backend (feature `postgres`): the team store, one
//! database shared by several curators and machines, keeping the
//! [`super::Store`] contract as [`PgStore`]. It opens a database, brings
//! its schema to this build's version, registers the collection, and
//! keeps the collection's `meta` values (`meta`), the curator's verdicts
//! (`verdicts`, [`super::Verdicts`]), its documents with their
//! fingerprints, library entries, boilerplate and kept texts
//! (`documents`, [`super::Documents`] and [`super::Boilerplate`], written
//! through `writer`, one transaction's statements prepared once), and its
//! pairs and entries by row (`pairs`, [`super::Pairs`]), each doing what
//! the SQLite backend does. What only a team store does (claims, document
//! locks, following other processes' changes) is `PgStore`'s own.
//!
//! The tables are the SQLite index's (bytea for blobs, bigint for the u64
//! bit patterns, as in SQLite), with every row keyed by a collection
//! (`collections`: the folder's canonical path as given, or a name), so
//! several folders share one database and two curators' folders never
//! mix. Verdicts carry the curator and the time from the start, which
//! verdict history and claims across processes will need.
//!
//! `schema_migrations` holds one row per version applied; opening applies
//! the missing ones in one transaction under an advisory lock (two
//! processes opening a new database at once do not both create it), and a
//! database a newer doppel wrote is refused with one line
//! ([`StoreError::NewerSchema`]) and left exactly as it is: it is shared,
//! never moved aside as a bad SQLite file is.

mod claims;
mod doc_locks;
mod documents;
mod live;
mod meta;
mod pairs;
#[cfg(test)]
mod tests;
mod verdicts;
mod writer;

use std::fmt;
use std::path::{Path, PathBuf};

use postgres::{Client, NoTls};

pub use claims::{ClaimHeartbeat, Claimed, PairingLock, PairingPasses, WorkLeft};

use super::{PgAddress, Result, Store, StoreError};
use crate::live::{Listener, LiveEvent};

/// The newest version of the PostgreSQL schema this build writes and reads.
pub const PG_SCHEMA_VERSION: i32 = 4;

/// The advisory lock key opening takes while it migrates ("doppel" in
/// ASCII), so concurrent openers apply each migration once.
const MIGRATION_LOCK: i64 = 0x0000_646f_7070_656c;

/// The schema's migrations, `MIGRATIONS[v - 1]` bringing version `v - 1`
/// to `v`.
const MIGRATIONS: [&str; PG_SCHEMA_VERSION as usize] = [
    // 1: the SQLite index's tables, keyed by collection.
    "
CREATE TABLE collections (
    id         bigserial PRIMARY KEY,
    name       text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE meta (
    collection bigint NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    key        text NOT NULL,
    value      text NOT NULL,
    PRIMARY KEY (collection, key)
);

CREATE TABLE documents (
    id            bigserial PRIMARY KEY,
    collection    bigint NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path          bytea NOT NULL,
    size          bigint NOT NULL,
    mtime_ns      bigint NOT NULL,
    ctime_ns      bigint NOT NULL,
    inode         bigint NOT NULL,
    dev           bigint NOT NULL,
    content_hash  bigint NOT NULL,
    status        text NOT NULL CHECK (status IN ('indexed', 'skipped')),
    reason        text,
    encoding      text,
    first_seen_ns bigint NOT NULL,
    shingles      bigint NOT NULL DEFAULT 0,
    UNIQUE (collection, path),
    CHECK ((status = 'skipped') = (reason IS NOT NULL))
);

CREATE TABLE document_prints (
    id           bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    fingerprints bytea,
    terms        bytea,
    checksum     bigint
);

CREATE TABLE document_entries (
    id    bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    entry bytea NOT NULL
);

CREATE TABLE document_boilerplate (
    id          bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    boilerplate bytea NOT NULL
);

CREATE TABLE document_texts (
    id       bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    text     bytea NOT NULL,
    checksum bigint NOT NULL
);

CREATE TABLE pairs (
    a      bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    b      bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    scores bytea NOT NULL,
    PRIMARY KEY (a, b),
    CHECK (a < b)
);
CREATE INDEX pairs_by_b ON pairs(b);

CREATE TABLE pair_verdicts (
    collection bigint NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    a          bytea NOT NULL,
    b          bytea NOT NULL,
    verdict    text NOT NULL CHECK (verdict IN ('duplicate', 'not-duplicate')),
    curator    text NOT NULL,
    set_at_ns  bigint NOT NULL,
    PRIMARY KEY (collection, a, b),
    CHECK (a < b)
);

CREATE TABLE doc_verdicts (
    collection bigint NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path       bytea NOT NULL,
    verdict    text NOT NULL CHECK (verdict IN ('keep')),
    curator    text NOT NULL,
    set_at_ns  bigint NOT NULL,
    PRIMARY KEY (collection, path)
);
",
    // A verdict per pair and curator (a second curator's never replaces
    // the first's), and the history of every set and clear, seeded with
    // the verdicts there are.
    "
ALTER TABLE pair_verdicts DROP CONSTRAINT pair_verdicts_pkey;
ALTER TABLE pair_verdicts ADD PRIMARY KEY (collection, a, b, curator);

CREATE TABLE verdict_history (
    seq        bigserial PRIMARY KEY,
    collection bigint NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    a          bytea NOT NULL,
    b          bytea NOT NULL,
    curator    text NOT NULL,
    verdict    text CHECK (verdict IN ('duplicate', 'not-duplicate')),
    at_ns      bigint NOT NULL
);
CREATE INDEX verdict_history_by_pair ON verdict_history(collection, a, b, seq);
INSERT INTO verdict_history (collection, a, b, curator, verdict, at_ns)
    SELECT collection, a, b, curator, verdict, set_at_ns FROM pair_verdicts
    ORDER BY set_at_ns;
",
    // 3: the claims `doppel ingest` processes split a collection with.
    claims::CLAIMS_MIGRATION,
    // 4: each document's keeper facts (`doppel_pairing::keeper`), NULL in
    // the rows from before, whose files are read again.
    "
ALTER TABLE documents ADD COLUMN quality double precision,
    ADD COLUMN words bigint,
    ADD COLUMN text_form text;
",
];

/// A connection to one collection of a doppel database.
pub struct PgStore {
    /// The connection; behind a lock because the client's queries take
    /// `&mut`, while a store's reads take `&self`.
    client: std::sync::Mutex<Client>,
    address: PgAddress,
    collection: i64,
    /// Who this store's verdicts are recorded as.
    curator: String,
    /// The address as a path: what errors and logs name (password-free).
    place: PathBuf,
    /// Documents whose stored fingerprints failed their checksum since the
    /// last [`super::Documents::take_corrupt`] (read as missing).
    corrupt: super::raw::CorruptPrints,
    /// The token this store's change notifications carry, so its own
    /// listener ignores them (`live`).
    sender: String,
    /// The channel the collection's changes are announced on (`live`).
    channel: String,
    /// Claims to release with the next document commit (`claims`).
    release: Option<claims::PendingRelease>,
}

impl fmt::Debug for PgStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgStore")
            .field("address", &self.address)
            .field("collection", &self.collection)
            .finish()
    }
}

impl PgStore {
    /// Connect to the database at `address`, bring its schema to
    /// [`PG_SCHEMA_VERSION`] and register `collection` (a folder's
    /// canonical path, or a name given for it); verdicts written through
    /// it are recorded as `curator`'s. An unreachable server, a
    /// refused login or a newer schema is one error line naming the
    /// address without its password.
    #[tracing::instrument(level = "info", name = "store.open", skip_all, fields(address = %address))]
    pub fn open(address: &PgAddress, collection: &str, curator: &str) -> Result<PgStore> {
        let fail = |context: &str| {
            let address = address.to_string();
            let context = context.to_owned();
            move |error| StoreError::Postgres {
                address,
                context,
                error,
            }
        };
        let mut client = address.config().connect(NoTls).map_err(fail("connect"))?;
        migrate(&mut client, address)?;
        let collection = client
            .query_one(
                "INSERT INTO collections (name) VALUES ($1) \
                 ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id",
                &[&collection],
            )
            .map_err(fail("register the collection"))?
            .get(0);
        let schema: String = client
            .query_one("SELECT current_schema()", &[])
            .map_err(fail("read the schema's name"))?
            .get(0);
        Ok(PgStore {
            client: std::sync::Mutex::new(client),
            address: address.clone(),
            collection,
            curator: curator.to_owned(),
            place: address.to_string().into(),
            corrupt: Default::default(),
            sender: live::sender_token(),
            channel: live::channel_name(&schema, collection),
            release: None,
        })
    }

    /// The database's address (its display leaves the password out).
    pub fn address(&self) -> &PgAddress {
        &self.address
    }

    /// The id of this store's collection: every row it reads or writes is
    /// that collection's.
    pub fn collection_id(&self) -> i64 {
        self.collection
    }

    /// The schema version the database records.
    pub fn schema_version(&self) -> Result<i32> {
        recorded_version(&mut *self.client()).map_err(self.fail("read the schema version"))
    }

    /// The connection, for one operation; a new one if the last was lost
    /// (the server restarted): if that fails too, the lost one, whose
    /// operations fail as unreachable, so the caller waits and retries.
    fn client(&self) -> std::sync::MutexGuard<'_, Client> {
        // A panic while holding it leaves nothing half-done on the client
        // (a transaction not committed is rolled back when dropped).
        let mut client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        reconnect_if_lost(&mut client, &self.address);
        client
    }

    /// The error of `context` failing with the client's error.
    fn fail(&self, context: impl fmt::Display) -> impl FnOnce(postgres::Error) -> StoreError {
        let address = self.address.to_string();
        let context = context.to_string();
        move |error| StoreError::Postgres {
            address,
            context,
            error,
        }
    }

    /// A stored value that does not decode, named for people.
    fn undecodable(&self, doc: String, reason: String) -> StoreError {
        StoreError::Decode {
            path: self.address.to_string().into(),
            doc,
            reason,
        }
    }
}

impl Store for PgStore {
    fn path(&self) -> &Path {
        &self.place
    }

    fn integrity_check(&self) -> Result<bool> {
        Ok(true)
    }

    fn checkpoint(&self) -> Result<()> {
        Ok(())
    }

    fn lock_exclusively(&mut self) -> Result<bool> {
        let collection = self.collection;
        self.client()
            .query_one("SELECT pg_try_advisory_lock($1)", &[&collection])
            .map(|row| row.get(0))
            .map_err(self.fail("lock the collection"))
    }

    fn backend_name(&self) -> &'static str {
        "postgres"
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn listen(&self, report: Box<dyn FnMut(LiveEvent) -> bool + Send>) -> Option<Listener> {
        Some(self.follow(report))
    }

    fn team(&mut self) -> Option<&mut PgStore> {
        Some(self)
    }

    fn shared(&self) -> Option<&PgStore> {
        Some(self)
    }
}

/// Replace `client` by a new connection to `address` when the server
/// closed it; keep it (closed) when the server cannot be reached.
fn reconnect_if_lost(client: &mut Client, address: &PgAddress) {
    if !client.is_closed() {
        return;
    }
    match address.config().connect(NoTls) {
        Ok(fresh) => {
            tracing::info!(%address, "reconnected");
            *client = fresh;
        }
        Err(error) => tracing::debug!(%address, %error, "still unreachable"),
    }
}

/// The newest version `schema_migrations` records (0 for none).
fn recorded_version(client: &mut impl postgres::GenericClient) -> Result<i32, postgres::Error> {
    client
        .query_one(
            "SELECT coalesce(max(version), 0) FROM schema_migrations",
            &[],
        )
        .map(|row| row.get(0))
}

/// Apply the migrations the database lacks, in one transaction under
/// [`MIGRATION_LOCK`]; refuse a database a newer doppel wrote.
fn migrate(client: &mut Client, address: &PgAddress) -> Result<()> {
    let fail = |context: &'static str| {
        move |error| StoreError::Postgres {
            address: address.to_string(),
            context: context.into(),
            error,
        }
    };
    let mut tx = client.transaction().map_err(fail("begin the migration"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(fail("lock the schema"))?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version    integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )",
    )
    .map_err(fail("create schema_migrations"))?;
    let version = recorded_version(&mut tx).map_err(fail("read the schema version"))?;
    if version > PG_SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            address: address.to_string(),
            version,
            known: PG_SCHEMA_VERSION,
        });
    }
    for (to, sql) in (version + 1..).zip(&MIGRATIONS[usize::try_from(version).unwrap_or(0)..]) {
        tx.batch_execute(sql)
            .map_err(fail("apply a schema migration"))?;
        tx.execute(
            "INSERT INTO schema_migrations (version) VALUES ($1)",
            &[&to],
        )
        .map_err(fail("record a schema migration"))?;
        tracing::info!(version = to, "applied a schema migration");
    }
    tx.commit().map_err(fail("commit the migration"))
}
