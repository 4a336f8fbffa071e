//! The SQLite backend: one index file per folder (WAL), the embedded
//! default that needs no server. [`SqliteStore`] is what a
//! [`super::Store`] holds for it; the schema, the pragmas, the checks on
//! opening and the encodings are described on [`super`].
//!
//! Split by concern: `open` (opening, checking, moving a bad file aside,
//! migrating), `meta` (the folder, configuration keys, last use),
//! `documents` (one row per file, its fingerprints and library entry),
//! `boilerplate` (its learner samples, and what it was fingerprinted
//! without),
//! `batch` (a chunk of files in one transaction), `pairs` (kept pairs and
//! library entries by row, for reopening), `texts` (the decoded texts of
//! documents with boilerplate), `verdicts` (the curator's decisions, by
//! path) and `rows` (reading a row, shared statements).

mod batch;
mod boilerplate;
mod documents;
mod meta;
mod open;
mod pairs;
mod rows;
mod texts;
mod verdicts;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::error::Context;
use super::Meta;
use super::{codec, error};
use super::{
    ensure_outside_root, index_file_name, now_ns, DocEntry, DocRecord, DocStatus, DocSummary,
    OpenProblem, PairUpdate, PairVerdictRecord, Result, RowId, StoreError, StoreFaults,
    StoredBoilerplate, APPLICATION_ID, BUSY_TIMEOUT, SCHEMA_VERSION,
};
use rows::collect_rows;

pub use batch::STALE_CTIME;
pub use open::{MovedAside, OpenReport, PendingCheck};

/// A connection to one doppel index file. Writes take `&mut self` and run in
/// `BEGIN IMMEDIATE` transactions.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// Documents whose stored fingerprints failed their checksum since the
    /// last [`SqliteStore::take_corrupt`] (read as missing).
    corrupt: super::raw::CorruptPrints,
    /// Who this store's verdicts are recorded as.
    curator: String,
    /// Writes tests make fail ([`StoreFaults`]).
    faults: Option<StoreFaults>,
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl SqliteStore {
    /// Make writes fail as [`StoreFaults`] says (tests).
    pub fn set_faults(&mut self, faults: Option<StoreFaults>) {
        self.faults = faults;
    }

    /// An injected failure for this write, if [`StoreFaults`] asks for one.
    fn injected_fault(&self, context: &str) -> Result<()> {
        StoreFaults::check(self.faults.as_ref(), &self.path, context)
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `PRAGMA integrity_check` returns `ok`.
    pub fn integrity_check(&self) -> Result<bool> {
        let rows: Vec<String> =
            collect_rows(&self.conn, "PRAGMA integrity_check", [], |r| r.get(0))
                .ctx(&self.path, "integrity_check")?;
        Ok(rows.len() == 1 && rows[0] == "ok")
    }

    /// Copy the WAL into the database and truncate it (call when idle, so
    /// the `-wal` file does not grow without bound).
    pub fn checkpoint(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .ctx(&self.path, "checkpoint")
    }
}
