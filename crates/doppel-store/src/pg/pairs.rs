//! A collection's pairs and library entries by row in PostgreSQL. Pairs and entries are keyed by document id, and a
//! document's id is its collection's, so every read and delete here goes
//! through `documents` to stay inside the collection.

use rayon::prelude::*;

use super::super::codec::{pair_row, scores_from_blob, to_blob};
use super::super::{DocEntry, Pairs, Result, RowId, ScoreList, StoreError};
use super::writer::PUT_ENTRY;
use super::PgStore;
use doppel_core::engine::PairScores;

/// Pairs written by one statement when all of a collection's are replaced.
const PAIRS_PER_STATEMENT: usize = 8192;

/// Rows decoded (and handed on) at a time by the `_each` reads.
pub(super) const CHUNK: usize = 4096;

impl Pairs for PgStore {
    fn clear_entries(&mut self) -> Result<()> {
        self.rows(
            "DELETE FROM document_entries WHERE id IN \
             (SELECT id FROM documents WHERE collection = $1)",
            "delete library entries",
        )
        .map(drop)
    }

    fn put_entries(&mut self, entries: &[(RowId, DocEntry)]) -> Result<()> {
        let place = self.place.clone();
        self.write("write library entries", |w| {
            let tx = w.transaction();
            let put = tx.prepare(PUT_ENTRY);
            let address = place.display().to_string();
            let fail = |error| StoreError::Postgres {
                address: address.clone(),
                context: "write library entries".into(),
                error,
            };
            let put = put.map_err(fail)?;
            for &(RowId(id), ref entry) in entries {
                let blob = to_blob(
                    entry,
                    &place,
                    format_args!("library entry of document {id}"),
                )?;
                tx.execute(&put, &[&id, &blob]).map_err(fail)?;
            }
            Ok(())
        })
    }

    fn replace_pairs(
        &mut self,
        pairs: &mut dyn Iterator<Item = (RowId, RowId, PairScores)>,
        pairs_hash: &str,
    ) -> Result<()> {
        let (place, collection) = (self.place.clone(), self.collection);
        self.write("replace pairs", |w| {
            let address = place.display().to_string();
            let fail = |context: &'static str| {
                let address = address.clone();
                move |error| StoreError::Postgres {
                    address,
                    context: context.into(),
                    error,
                }
            };
            let tx = w.transaction();
            // One replacement at a time per collection (documents'
            // writes, which only share the row's key, go on): otherwise
            // this delete misses the rows of one committing meanwhile,
            // which would stay under this one's key.
            tx.execute(
                "SELECT 1 FROM collections WHERE id = $1 FOR NO KEY UPDATE",
                &[&collection],
            )
            .map_err(fail("lock the collection's pairs"))?;
            tx.execute(
                "DELETE FROM pairs WHERE a IN (SELECT id FROM documents WHERE collection = $1)",
                &[&collection],
            )
            .map_err(fail("delete stored pairs"))?;
            // A statement per chunk of pairs, as columns: one round trip
            // for thousands of pairs (110k texts keep tens of thousands).
            let insert = tx
                .prepare(
                    "INSERT INTO pairs (a, b, scores) \
                     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])",
                )
                .map_err(fail("prepare pair insert"))?;
            let mut pairs = pairs.peekable();
            while pairs.peek().is_some() {
                let (mut a, mut b, mut blobs) = (Vec::new(), Vec::new(), Vec::new());
                for (RowId(x), RowId(y), scores) in pairs.by_ref().take(PAIRS_PER_STATEMENT) {
                    let (x, y, blob) = pair_row(x, y, &scores);
                    a.push(x);
                    b.push(y);
                    blobs.push(blob);
                }
                tx.execute(&insert, &[&a, &b, &blobs])
                    .map_err(fail("write pairs"))?;
            }
            tx.execute(
                "INSERT INTO meta (collection, key, value) VALUES ($1, 'pairs_hash', $2) \
                 ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value",
                &[&collection, &pairs_hash],
            )
            .map_err(fail("write meta pairs_hash"))?;
            Ok(())
        })
    }

    fn pair_count(&self) -> Result<usize> {
        let rows = self.rows(
            "SELECT count(*) FROM pairs p JOIN documents d ON d.id = p.a \
             WHERE d.collection = $1",
            "count pairs",
        )?;
        Ok(usize::try_from(rows[0].get::<_, i64>(0)).unwrap_or(0))
    }

    fn pairs_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, RowId, ScoreList)>) -> Result<()>,
    ) -> Result<()> {
        // The rows are read at once, then decoded chunk by chunk.
        let rows = self.rows(
            "SELECT p.a, p.b, p.scores FROM pairs p JOIN documents d ON d.id = p.a \
             WHERE d.collection = $1 ORDER BY p.a, p.b",
            "read pairs",
        )?;
        for chunk in rows.chunks(CHUNK) {
            let decoded = chunk
                .par_iter()
                .map(|row| {
                    let (a, b): (i64, i64) = (row.get(0), row.get(1));
                    let scores =
                        scores_from_blob(row.get(2)).map_err(|reason| StoreError::Decode {
                            path: self.place.clone(),
                            doc: format!("pair ({a}, {b})"),
                            reason: reason.to_string(),
                        })?;
                    Ok((RowId(a), RowId(b), scores))
                })
                .collect::<Result<Vec<_>>>()?;
            each(decoded)?;
        }
        Ok(())
    }
}
