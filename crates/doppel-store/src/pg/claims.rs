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
//! One process pairs once no work is left: the one that holds the
//! collection's pairing advisory lock ([`PairingLock`]). The others wait
//! for that lock rather than exit: the server releases it when its holder
//! finishes, or dies (an advisory lock ends with its session), so a
//! process killed while pairing leaves the lock to the next process
//! waiting. Which then has to know whether the holder finished. The
//! collection's `meta` counts the pairing passes begun
//! (`ingest_pairing_begun`) and names the last one completed
//! (`ingest_pairing_done`): a process reads the count once its files are
//! queued ([`PgStore::pairing_passes_begun`]), and a pass begun after
//! that, with the queue empty (checked when it begins:
//! [`PairingLock::begin_pass`]), found every file the process queued
//! written, so once it is completed the process's share is paired. Both
//! read and count lock the counter's row, so a pass cannot begin between
//! a process's reading and the queue it checks.

use std::collections::HashSet;
use std::sync::mpsc;
use std::time::Duration;

use postgres::{Client, NoTls};

use super::super::codec::u64_to_sql;
use super::super::{PgAddress, Result, StoreError};
use super::PgStore;
use doppel_core::doc::{DocPath, FileIdentity};

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

/// The `meta` key counting the pairing passes begun.
const PASSES_BEGUN: &str = "ingest_pairing_begun";

/// The `meta` key naming (by its count) the last pairing pass completed.
const PASS_DONE: &str = "ingest_pairing_done";

/// Read the pairing passes begun (`$1`: the collection, `$2`:
/// [`PASSES_BEGUN`]), locking the counter's row until the statement's
/// transaction ends: a pass being begun meanwhile is waited for.
const READ_PASSES_BEGUN: &str = "INSERT INTO meta (collection, key, value) VALUES ($1, $2, '0') \
     ON CONFLICT (collection, key) DO UPDATE SET value = meta.value RETURNING value";

/// Count one more pairing pass begun, returning its number (same
/// parameters and lock as [`READ_PASSES_BEGUN`]).
const COUNT_PASS_BEGUN: &str = "INSERT INTO meta (collection, key, value) VALUES ($1, $2, '1') \
     ON CONFLICT (collection, key) DO UPDATE SET value = (meta.value::bigint + 1)::text \
     RETURNING value";

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

    /// How many pairing passes of the collection had begun: read once
    /// this process's files are queued, it tells which pass pairs them
    /// (see the module's text and `doppel_index::index::pair_when_done`).
    pub fn pairing_passes_begun(&mut self) -> Result<i64> {
        let collection = self.collection;
        let row = self
            .client()
            .query_one(READ_PASSES_BEGUN, &[&collection, &PASSES_BEGUN])
            .map_err(self.fail("read the pairing passes begun"))?;
        Ok(counter(&row))
    }

    /// Give back the files `claimer` still holds (claimed before the
    /// connection was lost, never written): anyone, `claimer` too, may
    /// claim them at once. How many there were.
    pub fn unclaim(&mut self, claimer: &str) -> Result<u64> {
        let collection = self.collection;
        self.client()
            .execute(
                "UPDATE ingest_claims SET claimer = NULL, heartbeat = NULL \
                 WHERE collection = $1 AND claimer = $2",
                &[&collection, &claimer],
            )
            .map_err(self.fail("give back claimed files"))
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
        let address = address.clone();
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("claims-heartbeat".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    // After a server restart, beat on a new connection.
                    super::reconnect_if_lost(&mut client, &address);
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

/// The collection's pairing lock, on a connection of its own: one process
/// pairs at a time, and the lock is released when this is dropped (or
/// its process dies).
pub struct PairingLock {
    client: Client,
    address: PgAddress,
    collection: i64,
}

/// Where the collection's pairing passes stand.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairingPasses {
    /// How many have begun.
    pub begun: i64,
    /// The number of the last one completed (0: none).
    pub done: i64,
}

impl PairingLock {
    /// A connection for the pairing lock of collection `collection`
    /// (not holding it yet).
    pub fn connect(address: &PgAddress, collection: i64) -> Result<PairingLock> {
        Ok(PairingLock {
            client: connect(address, "connect for the pairing lock")?,
            address: address.clone(),
            collection,
        })
    }

    /// Take the lock unless another process holds it; whether it was
    /// taken.
    pub fn try_take(&mut self) -> Result<bool> {
        self.lock("pg_try_advisory_lock")
            .map(|row| row.get(0))
            .map_err(self.fail("take the pairing lock"))
    }

    /// Wait for the lock: until the process holding it releases it or
    /// dies.
    pub fn take(&mut self) -> Result<()> {
        self.lock("pg_advisory_lock")
            .map(drop)
            .map_err(self.fail("wait for the pairing lock"))
    }

    fn lock(&mut self, function: &str) -> std::result::Result<postgres::Row, postgres::Error> {
        self.client.query_one(
            // Keyed by schema too: collections of two schemas of one
            // database have the same ids.
            &format!(
                "SELECT {function}(hashtext(current_schema() || ':' || $1::text), $2::integer)"
            ),
            &[&self.collection.to_string(), &PAIRING_LOCK],
        )
    }

    /// Where the pairing passes stand.
    pub fn passes(&mut self) -> Result<PairingPasses> {
        let rows = self
            .client
            .query(
                "SELECT key, value FROM meta WHERE collection = $1 AND key IN ($2, $3)",
                &[&self.collection, &PASSES_BEGUN, &PASS_DONE],
            )
            .map_err(self.fail("read the pairing passes"))?;
        let mut passes = PairingPasses::default();
        for row in rows {
            let value = counter_at(&row, 1);
            match row.get::<_, &str>(0) {
                PASSES_BEGUN => passes.begun = value,
                _ => passes.done = value,
            }
        }
        Ok(passes)
    }

    /// With the lock held: begin a pairing pass, returning its number, if
    /// no file is queued for fingerprinting (`None`: some are, and they
    /// come first). The queue is read after the pass is counted, so every
    /// process that read the count before (see
    /// [`PgStore::pairing_passes_begun`]) has its files written by now.
    pub fn begin_pass(&mut self) -> Result<Option<i64>> {
        let (collection, fail) = (self.collection, self.fail("begin a pairing pass"));
        let mut tx = self.client.transaction().map_err(&fail)?;
        let pass = counter(
            &tx.query_one(COUNT_PASS_BEGUN, &[&collection, &PASSES_BEGUN])
                .map_err(&fail)?,
        );
        // Visible to this statement: every commit made before the count
        // was (the counter's row lock orders them).
        let queued: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM ingest_claims WHERE collection = $1)",
                &[&collection],
            )
            .map_err(&fail)?
            .get(0);
        if queued {
            tx.rollback().map_err(&fail)?;
            return Ok(None);
        }
        tx.commit().map_err(&fail)?;
        Ok(Some(pass))
    }

    /// Record pass `pass` completed: the collection is paired as of its
    /// beginning.
    pub fn finish_pass(&mut self, pass: i64) -> Result<()> {
        let collection = self.collection;
        self.client
            .execute(
                "INSERT INTO meta (collection, key, value) VALUES ($1, $2, $3) \
                 ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value",
                &[&collection, &PASS_DONE, &pass.to_string()],
            )
            .map(drop)
            .map_err(self.fail("record the pairing pass done"))
    }

    /// The error of `context` failing with the client's error.
    fn fail(&self, context: &str) -> impl Fn(postgres::Error) -> StoreError {
        let address = self.address.to_string();
        let context = context.to_owned();
        move |error| StoreError::Postgres {
            address: address.clone(),
            context: context.clone(),
            error,
        }
    }
}

/// A counter `meta` holds, in the first column of `row` (0 if it does not
/// read as one).
fn counter(row: &postgres::Row) -> i64 {
    counter_at(row, 0)
}

/// A counter `meta` holds, in column `at` of `row`.
fn counter_at(row: &postgres::Row, at: usize) -> i64 {
    row.get::<_, &str>(at).parse().unwrap_or(0)
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
