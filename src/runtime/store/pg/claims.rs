//! Claims: how several `doppel ingest` processes split one collection's
//! fingerprinting so each file is read once, and a crashed process's
//! files are read by someone else.
//!
//! `ingest_claims` holds one row per file waiting to be fingerprinted (its
//! path, the identity it was listed with, when it was queued) and, while a
//! process works on it, that process's name and a heartbeat. The rows are
//! the queue: every process queues the files it finds changed (`INSERT …
//! ON CONFLICT DO NOTHING`, so a file is queued once), then claims chunks
//! of unclaimed rows, or rows whose heartbeat is older than the timeout,
//! in one statement: `UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED)`.
//! The claim commits at once and is what other processes see, so a
//! fingerprinting pass holds no transaction open; `SKIP LOCKED` only keeps
//! two processes claiming at the same instant from waiting on, or taking,
//! the same rows. A heartbeat thread on a connection of its own keeps a
//! process's claims fresh while it reads; when it dies (SIGKILL, a machine
//! lost) its heartbeat stops and its rows become claimable after the
//! timeout. Heartbeats use the server's clock (`now()`), so machines with
//! skewed clocks agree on what is stale.
//!
//! A claim is released in the transaction that writes its documents
//! (`commit_batch` with a release pending): the release deletes the rows
//! still claimed by this process and only their documents are written, so
//! a file whose claim was taken over meanwhile is written by its new
//! claimer alone, and a process killed before its commit leaves its rows
//! for someone else: nothing is lost, nothing is written twice.
//!
//! One process pairs once no work is left: the one that takes the
//! collection's pairing advisory lock ([`PairingLock`]).

use std::collections::HashSet;
use std::sync::mpsc;
use std::time::Duration;

use postgres::{Client, NoTls};

use super::super::codec::u64_to_sql;
use super::super::{PgAddress, Result, StoreError};
use super::PgStore;
use crate::doc::{DocPath, FileIdentity};

/// The claims table (a migration of its own in [`super::MIGRATIONS`]).
pub(super) const CLAIMS_MIGRATION: &str = "
CREATE TABLE ingest_claims (
    collection bigint NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path       bytea NOT NULL,
    size       bigint NOT NULL,
    mtime_ns   bigint NOT NULL,
    ctime_ns   bigint NOT NULL,
    inode      bigint NOT NULL,
    dev        bigint NOT NULL,
    queued_ns  bigint NOT NULL,
    claimer    text,
    heartbeat  timestamptz,
    PRIMARY KEY (collection, path),
    CHECK ((claimer IS NULL) = (heartbeat IS NULL))
);
CREATE INDEX ingest_claims_by_claimer ON ingest_claims(collection, claimer);
";

/// Second half of the advisory lock key the pairing process takes (the
/// first is the collection's id).
const PAIRING_LOCK: i32 = 0x7061_6972; // "pair"

impl PendingRelease {
    /// The commit that released the claims was rolled back: they are
    /// still held.
    pub(super) fn rolled_back(&mut self) {
        self.released = None;
    }
}

/// A file a process claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// The document.
    pub doc: DocPath,
    /// When it was queued (unix ns): what its `first_seen_ns` becomes, so
    /// documents arrive in path order whoever reads them.
    pub queued_ns: i64,
    /// It was claimed from another process whose heartbeat had stopped.
    pub taken_over: bool,
}

/// The queue's state for one process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkLeft {
    /// Rows no live process holds (unclaimed, or their claimer's
    /// heartbeat is older than the timeout).
    pub claimable: i64,
    /// Rows other live processes hold.
    pub held_by_others: i64,
}

/// A release waiting for the next document commit ([`PgStore::commit_batch`]).
#[derive(Debug, Default)]
pub(super) struct PendingRelease {
    claimer: String,
    docs: Vec<DocPath>,
    /// Set once a commit released them: how many were still ours.
    released: Option<usize>,
}

impl PgStore {
    /// Queue `files` (path and the identity they were listed with) for
    /// fingerprinting, queued at `queued_ns`; a file queued already keeps
    /// its row. With `drop_done`, rows no one holds whose stored document
    /// has the listed identity already (another process wrote it since
    /// this one looked) are dropped again.
    pub fn queue_work(
        &mut self,
        files: &[(DocPath, FileIdentity)],
        queued_ns: i64,
        drop_done: bool,
    ) -> Result<()> {
        let collection = self.collection;
        let mut paths = Vec::with_capacity(files.len());
        let (mut sizes, mut mtimes, mut ctimes, mut inodes, mut devs) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (doc, identity) in files {
            paths.push(doc.as_bytes());
            sizes.push(u64_to_sql(identity.size));
            mtimes.push(identity.mtime_ns);
            ctimes.push(identity.ctime_ns);
            inodes.push(u64_to_sql(identity.inode));
            devs.push(u64_to_sql(identity.dev));
        }
        let fail = self.fail("queue files to fingerprint");
        let mut client = self.client();
        let mut tx = client.transaction().map_err(fail)?;
        let result = (|| {
            tx.execute(
                "INSERT INTO ingest_claims \
                 (collection, path, size, mtime_ns, ctime_ns, inode, dev, queued_ns) \
                 SELECT $1::bigint, *, $8::bigint FROM unnest($2::bytea[], $3::bigint[], $4::bigint[], \
                 $5::bigint[], $6::bigint[], $7::bigint[]) \
                 ON CONFLICT (collection, path) DO NOTHING",
                &[
                    &collection,
                    &paths,
                    &sizes,
                    &mtimes,
                    &ctimes,
                    &inodes,
                    &devs,
                    &queued_ns,
                ],
            )?;
            // A statement of its own: it sees every commit made while the
            // insert ran, so a file written meanwhile is not read twice.
            if drop_done {
                tx.execute(
                    "DELETE FROM ingest_claims w USING documents d \
                     WHERE w.collection = $1 AND d.collection = $1 AND d.path = w.path \
                     AND w.claimer IS NULL AND d.size = w.size AND d.mtime_ns = w.mtime_ns \
                     AND d.ctime_ns = w.ctime_ns AND d.inode = w.inode AND d.dev = w.dev",
                    &[&collection],
                )?;
            }
            tx.commit()
        })();
        drop(client);
        result.map_err(self.fail("queue files to fingerprint"))
    }

    /// Claim for `claimer` at most `most` queued files no live process
    /// holds (unclaimed, or held by a claimer whose heartbeat is older
    /// than `timeout`), in path order. Committed when it returns.
    pub fn claim_work(
        &mut self,
        claimer: &str,
        most: usize,
        timeout: Duration,
    ) -> Result<Vec<Claimed>> {
        let collection = self.collection;
        let most = i64::try_from(most).unwrap_or(i64::MAX);
        let timeout = timeout.as_secs_f64();
        let rows = self
            .client()
            .query(
                "UPDATE ingest_claims w SET claimer = $2, heartbeat = now() \
                 FROM (SELECT path, claimer AS was FROM ingest_claims \
                       WHERE collection = $1 AND (claimer IS NULL OR (claimer <> $2 \
                       AND heartbeat < now() - make_interval(secs => $3))) \
                       ORDER BY path LIMIT $4 FOR UPDATE SKIP LOCKED) picked \
                 WHERE w.collection = $1 AND w.path = picked.path \
                 RETURNING w.path, w.queued_ns, picked.was",
                &[&collection, &claimer, &timeout, &most],
            )
            .map_err(self.fail("claim files to fingerprint"))?;
        let mut claimed: Vec<Claimed> = rows
            .iter()
            .map(|row| Claimed {
                doc: DocPath::from_bytes(row.get::<_, Vec<u8>>(0)),
                queued_ns: row.get(1),
                taken_over: row.get::<_, Option<String>>(2).is_some(),
            })
            .collect();
        claimed.sort_by(|a, b| a.doc.cmp(&b.doc));
        Ok(claimed)
    }

    /// What is left of the queue for `claimer` (see [`WorkLeft`]).
    pub fn work_left(&self, claimer: &str, timeout: Duration) -> Result<WorkLeft> {
        let collection = self.collection;
        let timeout = timeout.as_secs_f64();
        let row = self
            .client()
            .query_one(
                "SELECT \
                 count(*) FILTER (WHERE claimer IS NULL OR (claimer <> $2 \
                     AND heartbeat < now() - make_interval(secs => $3))), \
                 count(*) FILTER (WHERE claimer <> $2 \
                     AND heartbeat >= now() - make_interval(secs => $3)) \
                 FROM ingest_claims WHERE collection = $1",
                &[&collection, &claimer, &timeout],
            )
            .map_err(self.fail("count the files left to fingerprint"))?;
        Ok(WorkLeft {
            claimable: row.get(0),
            held_by_others: row.get(1),
        })
    }

    /// Release `claimer`'s claims on `docs` in the transaction of the next
    /// document commit, writing only the documents still claimed by it
    /// (see the module's text); [`PgStore::finish_release`] tells how many
    /// were.
    pub fn release_with_next_commit(&mut self, claimer: &str, docs: Vec<DocPath>) {
        self.release = Some(PendingRelease {
            claimer: claimer.to_owned(),
            docs,
            released: None,
        });
    }

    /// How many of the files given to
    /// [`PgStore::release_with_next_commit`] were still this process's
    /// and were released (their documents written); releases them now if
    /// no commit did (nothing in the chunk was written).
    pub fn finish_release(&mut self) -> Result<usize> {
        let Some(pending) = self.release.take() else {
            return Ok(0);
        };
        if let Some(released) = pending.released {
            return Ok(released);
        }
        let collection = self.collection;
        let paths: Vec<&[u8]> = pending.docs.iter().map(|d| d.as_bytes()).collect();
        self.client()
            .execute(
                "DELETE FROM ingest_claims \
                 WHERE collection = $1 AND claimer = $2 AND path = ANY($3)",
                &[&collection, &pending.claimer, &paths],
            )
            .map_err(self.fail("release claimed files"))?;
        Ok(0)
    }

    /// Within a commit's transaction: release the pending claims still
    /// held and return the documents that may be written (`None`: no
    /// release pending, write all).
    pub(super) fn release_in(
        pending: Option<&mut PendingRelease>,
        tx: &mut postgres::Transaction<'_>,
        collection: i64,
    ) -> std::result::Result<Option<HashSet<DocPath>>, postgres::Error> {
        let Some(pending) = pending.filter(|p| p.released.is_none()) else {
            return Ok(None);
        };
        let paths: Vec<&[u8]> = pending.docs.iter().map(|d| d.as_bytes()).collect();
        let rows = tx.query(
            "DELETE FROM ingest_claims \
             WHERE collection = $1 AND claimer = $2 AND path = ANY($3) RETURNING path",
            &[&collection, &pending.claimer, &paths],
        )?;
        let kept: HashSet<DocPath> = rows
            .iter()
            .map(|row| DocPath::from_bytes(row.get::<_, Vec<u8>>(0)))
            .collect();
        pending.released = Some(kept.len());
        Ok(Some(kept))
    }
}

/// Keeps one claimer's claims fresh from a thread with its own
/// connection, every `every`, until dropped.
pub struct ClaimHeartbeat {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ClaimHeartbeat {
    /// Start beating for `claimer`'s claims on collection `collection` of
    /// the database at `address`.
    pub fn start(
        address: &PgAddress,
        collection: i64,
        claimer: &str,
        every: Duration,
    ) -> Result<ClaimHeartbeat> {
        let mut client = connect(address, "connect for the claims' heartbeat")?;
        let claimer = claimer.to_owned();
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("claims-heartbeat".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    if let Err(error) = client.execute(
                        "UPDATE ingest_claims SET heartbeat = now() \
                         WHERE collection = $1 AND claimer = $2",
                        &[&collection, &claimer],
                    ) {
                        // Claims not kept fresh are taken over: slower,
                        // never wrong (the release checks who holds them).
                        tracing::warn!(%error, "could not keep the claims fresh");
                    }
                }
            })
            .expect("a thread can be started");
        Ok(ClaimHeartbeat {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for ClaimHeartbeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The collection's pairing lock, held on a connection of its own for as
/// long as it lives: one process pairs at a time.
pub struct PairingLock {
    _client: Client,
}

impl PairingLock {
    /// Take the pairing lock of collection `collection`; `None` when
    /// another process holds it.
    pub fn try_take(address: &PgAddress, collection: i64) -> Result<Option<PairingLock>> {
        let mut client = connect(address, "connect for the pairing lock")?;
        let taken: bool = client
            .query_one(
                // Keyed by schema too: collections of two schemas of one
                // database have the same ids.
                "SELECT pg_try_advisory_lock(hashtext(current_schema() || ':' || $1::text), \
                 $2::integer)",
                &[&collection.to_string(), &PAIRING_LOCK],
            )
            .map(|row| row.get(0))
            .map_err(|error| StoreError::Postgres {
                address: address.to_string(),
                context: "take the pairing lock".into(),
                error,
            })?;
        Ok(taken.then_some(PairingLock { _client: client }))
    }
}

/// A new connection to `address`, failing as `context`.
fn connect(address: &PgAddress, context: &str) -> Result<Client> {
    address
        .config()
        .connect(NoTls)
        .map_err(|error| StoreError::Postgres {
            address: address.to_string(),
            context: context.into(),
            error,
        })
}
