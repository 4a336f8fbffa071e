//! Many files' writes in one transaction: a chunk of files a reconcile
//! read, each with its pairs and library entry, then the pairs of the
//! documents the chunk's arrival changed, and a mark on the documents
//! whose stored fingerprints it made stale (their learned boilerplate
//! moved: [`STALE_CTIME`]). All of it is committed, or none: a crash leaves
//! every file of the chunk as it was before, and whatever the chunk made
//! stale is read again by the next run.
//!
//! One transaction per chunk instead of one per file is what keeps the
//! indexed scan close to the `--no-index` one (see BENCHMARKS.md, "The
//! persistent index"); the statements are the cached ones of
//! [`SqliteStore::upsert_document`].

use rusqlite::TransactionBehavior;

use super::documents::{replace_pairs_in, upsert_in, NewRows};
use super::error::Context;
use super::{DocRecord, PairUpdate, Result, RowId, SqliteStore, StoreFaults};
use crate::doc::DocPath;

/// The `ctime_ns` of a row whose file must be read again (its stored
/// fingerprints went stale): no file on disk has it, so the next
/// reconcile sees the file as changed. Writing the document again clears
/// it.
pub const STALE_CTIME: i64 = i64::MIN;

impl SqliteStore {
    /// Mark `stale` documents (those in the index) to be read again
    /// ([`STALE_CTIME`]), then write `docs` in order, each as [`SqliteStore::upsert_document`] does (a
    /// document's pairs may name documents written before it in `docs`),
    /// then give each of `touched` (documents in the index or in `docs`)
    /// exactly the pairs listed, as [`SqliteStore::replace_pairs_of`] does: all
    /// in one `BEGIN IMMEDIATE` transaction. Returns the ids of `docs`.
    pub fn commit_batch(
        &mut self,
        stale: &[DocPath],
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        let (path, faults) = (&self.path, self.faults.as_ref());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin batch update")?;
        for doc in stale {
            tx.prepare_cached("UPDATE documents SET ctime_ns = ?2 WHERE path = ?1")
                .and_then(|mut s| s.execute(rusqlite::params![doc.as_bytes(), STALE_CTIME]))
                .ctx(path, format_args!("mark {doc} to be read again"))?;
        }
        let mut new_rows = NewRows::before(&tx, path)?;
        let ids = docs
            .iter()
            .map(|(rec, pairs)| {
                // A failure here rolls back the documents before it too.
                StoreFaults::check(faults, path, "write batch")?;
                tracing::trace!(doc = %rec.path, pairs = pairs.len(), "commit document");
                upsert_in(&tx, path, rec, pairs, &mut new_rows)
            })
            .collect::<Result<Vec<_>>>()?;
        for (doc, pairs) in touched {
            replace_pairs_in(&tx, path, doc, pairs)?;
        }
        tx.commit().ctx(path, "commit batch update")?;
        Ok(ids)
    }
}
