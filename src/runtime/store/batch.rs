//! Many files' writes in one transaction: a chunk of files a reconcile
//! read, each with its pairs and library entry, then the pairs of the
//! documents the chunk's arrival changed. All of it is committed, or
//! none: a crash leaves every file of the chunk as it was before.
//!
//! One transaction per chunk instead of one per file is what keeps the
//! indexed scan close to the `--no-index` one (see BENCHMARKS.md, "The
//! persistent index"); the statements are the cached ones of
//! [`Store::upsert_document`].

use rusqlite::{OptionalExtension, TransactionBehavior};

use super::documents::{upsert_in, write_pairs_in};
use super::error::Context;
use super::{DocRecord, PairUpdate, Result, RowId, Store, StoreFaults};
use crate::doc::DocPath;

impl Store {
    /// Write `docs` in order, each as [`Store::upsert_document`] does (a
    /// document's pairs may name documents written before it in `docs`),
    /// then give each of `touched` (documents in the index or in `docs`)
    /// exactly the pairs listed, as [`Store::replace_pairs_of`] does: all
    /// in one `BEGIN IMMEDIATE` transaction. Returns the ids of `docs`.
    pub fn commit_batch(
        &mut self,
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        if docs.is_empty() && touched.is_empty() {
            return Ok(Vec::new());
        }
        tracing::trace!(
            documents = docs.len(),
            touched = touched.len(),
            "commit batch"
        );
        let (path, faults) = (&self.path, self.faults.as_ref());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin batch update")?;
        let ids = docs
            .iter()
            .map(|(rec, pairs)| {
                // A failure here rolls back the documents before it too.
                StoreFaults::check(faults, path, "write batch")?;
                upsert_in(&tx, path, rec, pairs)
            })
            .collect::<Result<Vec<_>>>()?;
        for (doc, pairs) in touched {
            let id: Option<i64> = tx
                .prepare_cached("SELECT id FROM documents WHERE path = ?1")
                .and_then(|mut s| s.query_row([doc.as_bytes()], |r| r.get(0)).optional())
                .ctx(path, format_args!("look up {doc}"))?;
            if let Some(id) = id {
                write_pairs_in(&tx, path, id, doc, pairs)?;
            }
        }
        tx.commit().ctx(path, "commit batch update")?;
        Ok(ids)
    }
}
