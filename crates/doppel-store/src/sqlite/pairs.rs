//! The kept pairs and every document's library entry, stored by row so
//! that reopening an index restores its library without verifying again.

use rusqlite::{params, TransactionBehavior};

use super::codec::{pair_row, scores_from_blob, to_blob, ScoreList};
use super::error::Context;
use super::meta::put_meta;
use super::rows::{INSERT_PAIR, PUT_ENTRY};
use super::{DocEntry, Result, RowId, SqliteStore, StoreError};
use crate::Pairs;
use doppel_core::engine::PairScores;

impl Pairs for SqliteStore {
    fn clear_entries(&mut self) -> Result<()> {
        self.conn
            .execute("DELETE FROM document_entries", [])
            .ctx(&self.path, "delete library entries")?;
        Ok(())
    }

    fn put_entries(&mut self, entries: &[(RowId, DocEntry)]) -> Result<()> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin entry update")?;
        {
            let mut put = tx
                .prepare_cached(PUT_ENTRY)
                .ctx(path, "prepare entry update")?;
            for &(RowId(id), ref entry) in entries {
                let blob = to_blob(entry, path, format_args!("library entry of document {id}"))?;
                put.execute(params![id, blob])
                    .ctx(path, format_args!("write library entry of document {id}"))?;
            }
        }
        tx.commit().ctx(path, "commit entry update")
    }

    fn replace_pairs(
        &mut self,
        pairs: &mut dyn Iterator<Item = (RowId, RowId, PairScores)>,
        pairs_hash: &str,
    ) -> Result<()> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin pair replacement")?;
        tx.execute("DELETE FROM pairs", [])
            .ctx(path, "delete stored pairs")?;
        {
            let mut insert = tx
                .prepare_cached(INSERT_PAIR)
                .ctx(path, "prepare pair insert")?;
            for (RowId(x), RowId(y), scores) in pairs {
                insert
                    .execute(pair_row(x, y, &scores))
                    .ctx(path, format_args!("write pair of documents {x} and {y}"))?;
            }
        }
        put_meta(&tx, path, "pairs_hash", pairs_hash)?;
        tx.commit().ctx(path, "commit pair replacement")
    }

    fn pair_count(&self) -> Result<usize> {
        self.conn
            .query_row("SELECT count(*) FROM pairs", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .ctx(&self.path, "count pairs")
    }

    fn pairs_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, RowId, ScoreList)>) -> Result<()>,
    ) -> Result<()> {
        let path = &self.path;
        self.read_decoded_each(
            "SELECT a, b, scores FROM pairs ORDER BY a, b",
            "read pairs",
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                ))
            },
            |(a, b, blob)| {
                let scores = scores_from_blob(&blob).map_err(|reason| StoreError::Decode {
                    path: path.clone(),
                    doc: format!("pair ({a}, {b})"),
                    reason: reason.to_string(),
                })?;
                Ok((RowId(a), RowId(b), scores))
            },
            each,
        )
    }
}
