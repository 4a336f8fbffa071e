//! The SQLite backend: one index file per folder (WAL), the embedded
//! default that needs no server. [`SqliteStore`] keeps the
//! [`super::Store`] contract in it; the schema, the pragmas, the checks
//! on opening and the encodings are described on [`super`].
//!
//! Split by concern, each file implementing its trait: `open` (opening,
//! checking, moving a bad file aside, migrating; [`super::Store`]),
//! `meta` (the folder, configuration keys, last use), `documents` (one
//! row per file, its fingerprints and library entry, alone or a chunk of
//! files in one transaction; [`super::Documents`]), `boilerplate` (its
//! learner samples, what it was fingerprinted without, and its kept
//! text; [`super::Boilerplate`]), `pairs` (kept pairs and library entries
//! by row, for reopening; [`super::Pairs`]), `texts` (writing the
//! decoded texts of documents with boilerplate), `verdicts` (the
//! curator's decisions, by path; [`super::Verdicts`]) and `rows` (reading
//! a row, shared statements).

mod boilerplate;
mod documents;
mod meta;
mod open;
mod pairs;
mod rows;
mod schema;
mod texts;
mod verdicts;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::PathBuf;

use rusqlite::Connection;

use super::MetaTable;
use super::{codec, error};
use super::{
    ensure_outside_root, index_file_name, now_ns, DocEntry, DocRecord, DocStatus, DocSummary,
    OpenProblem, PairUpdate, PairVerdictRecord, Result, RowId, StoreError, StoredBoilerplate,
    APPLICATION_ID, BUSY_TIMEOUT, SCHEMA_VERSION,
};

pub use documents::STALE_CTIME;
pub use open::{MovedAside, OpenReport, PendingCheck};

/// A connection to one doppel index file, the embedded [`super::Store`].
/// Writes take `&mut self` and run in `BEGIN IMMEDIATE` transactions.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    /// Documents whose stored fingerprints failed their checksum since the
    /// last [`super::Documents::take_corrupt`] (read as missing).
    corrupt: super::raw::CorruptPrints,
    /// Who this store's verdicts are recorded as.
    curator: String,
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}
