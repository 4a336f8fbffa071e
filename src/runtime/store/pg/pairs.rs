//! A collection's pairs, library entries by row, kept texts and batches in
//! PostgreSQL. Pairs and entries are keyed by document id, and a
//! document's id is its collection's, so every read and delete here goes
//! through `documents` to stay inside the collection.

use rayon::prelude::*;

use super::super::codec::{pair_row, scores_from_blob, to_blob, u64_from_sql};
use super::super::texts::KeptText;
use super::super::{DocEntry, DocRecord, PairUpdate, Result, RowId, ScoreList, StoreError};
use super::writer::{Writer, PUT_ENTRY};
use super::PgStore;
use crate::doc::DocPath;
use crate::engine::PairScores;

/// Pairs written by one statement when all of a collection's are replaced.
const PAIRS_PER_STATEMENT: usize = 8192;

/// Rows decoded (and handed on) at a time by the `_each` reads.
pub(super) const CHUNK: usize = 4096;

impl PgStore {
    /// Mark `stale` documents to be read again, write `docs` in order,
    /// then give each of `touched` exactly the pairs listed, all in one
    /// transaction (see [`crate::runtime::store::Store::commit_batch`]).
    pub fn commit_batch(
        &mut self,
        stale: &[DocPath],
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        let mut release = self.release.take();
        let collection = self.collection;
        let result = self.write("commit batch update", |w| {
            // Claims released here decide which documents are written
            // (`claims`): one still claimed by this process, or all.
            let kept = PgStore::release_in(release.as_mut(), w.transaction(), collection).map_err(
                |error| StoreError::Postgres {
                    address: w.address().to_owned(),
                    context: "release claimed files".into(),
                    error,
                },
            )?;
            let Some(kept) = kept else {
                return Self::write_batch(w, stale, docs, touched);
            };
            let docs: Vec<(DocRecord, Vec<PairUpdate>)> = docs
                .iter()
                .filter(|(rec, _)| kept.contains(&rec.path))
                .cloned()
                .collect();
            Self::write_batch(w, stale, &docs, touched)
        });
        if let (Err(_), Some(pending)) = (&result, release.as_mut()) {
            // Rolled back: nothing was released.
            pending.rolled_back();
        }
        self.release = release;
        result
    }

    /// `commit_batch`'s writes, in `w`'s transaction.
    fn write_batch(
        w: &mut Writer<'_, '_>,
        stale: &[DocPath],
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        // Distinct paths (as a reconcile's chunk has) go in one statement
        // per table; anything else one row at a time.
        let distinct = docs
            .iter()
            .map(|(rec, _)| rec.path.as_bytes())
            .collect::<std::collections::HashSet<_>>()
            .len()
            == docs.len();
        {
            w.mark_stale(stale)?;
            for _ in docs {
                // A failure here rolls back the documents before it too.
                w.injected_fault("write batch")?;
            }
            if distinct && !docs.is_empty() {
                return w.upsert_many(docs, touched);
            }
            let ids = docs
                .iter()
                .map(|(rec, pairs)| w.upsert(rec, pairs))
                .collect::<Result<Vec<_>>>()?;
            for (doc, pairs) in touched {
                w.replace_pairs_of(doc, pairs)?;
            }
            Ok(ids)
        }
    }

    /// Forget every stored library entry of the collection.
    pub fn clear_entries(&mut self) -> Result<()> {
        self.rows(
            "DELETE FROM document_entries WHERE id IN \
             (SELECT id FROM documents WHERE collection = $1)",
            "delete library entries",
        )
        .map(drop)
    }

    /// Write the library entries of stored documents (by row id), in one
    /// transaction.
    pub fn put_entries(&mut self, entries: &[(RowId, DocEntry)]) -> Result<()> {
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

    /// Replace every stored pair of the collection with `pairs` and record
    /// that they were kept under `pairs_hash`, in one transaction.
    pub fn replace_pairs(
        &mut self,
        pairs: impl IntoIterator<Item = (RowId, RowId, PairScores)>,
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
            let mut pairs = pairs.into_iter().peekable();
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

    /// How many pairs the collection has.
    pub fn pair_count(&self) -> Result<usize> {
        let rows = self.rows(
            "SELECT count(*) FROM pairs p JOIN documents d ON d.id = p.a \
             WHERE d.collection = $1",
            "count pairs",
        )?;
        Ok(usize::try_from(rows[0].get::<_, i64>(0)).unwrap_or(0))
    }

    /// [`crate::runtime::store::Store::pairs`] a decoded chunk at a time, each pair's scores as
    /// a list (the rows are read at once, then decoded chunk by chunk).
    pub fn pairs_each(
        &self,
        mut each: impl FnMut(Vec<(RowId, RowId, ScoreList)>) -> Result<()>,
    ) -> Result<()> {
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
                            reason,
                        })?;
                    Ok((RowId(a), RowId(b), scores))
                })
                .collect::<Result<Vec<_>>>()?;
            each(decoded)?;
        }
        Ok(())
    }

    /// The decoded text `doc` was last fingerprinted from, if kept (`None`,
    /// logged, when it fails its checksum or does not decode).
    pub fn kept_text(&self, doc: &DocPath) -> Result<Option<KeptText>> {
        let row = self
            .client()
            .query_opt(
                "SELECT t.text, t.checksum, d.content_hash, d.encoding FROM documents d \
                 JOIN document_texts t ON t.id = d.id WHERE d.collection = $1 AND d.path = $2",
                &[&self.collection, &doc.as_bytes()],
            )
            .map_err(self.fail(format_args!("read the text of {doc}")))?;
        Ok(row.and_then(|r| {
            KeptText::unpack(
                r.get(0),
                u64_from_sql(r.get(1)),
                u64_from_sql(r.get(2)),
                r.get(3),
                &self.place,
                doc,
            )
        }))
    }

    /// Documents with a kept text and the bytes kept, compressed.
    pub fn text_totals(&self) -> Result<(u64, u64)> {
        let rows = self.rows(
            "SELECT count(*), coalesce(sum(length(t.text)), 0)::bigint FROM document_texts t \
             JOIN documents d ON d.id = t.id WHERE d.collection = $1",
            "count the kept texts",
        )?;
        Ok((u64_from_sql(rows[0].get(0)), u64_from_sql(rows[0].get(1))))
    }
}
