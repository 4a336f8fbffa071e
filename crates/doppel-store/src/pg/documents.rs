//! A collection's documents in PostgreSQL: one row per file with its
//! fingerprints, library entry, boilerplate and kept text, written with
//! its pairs in one transaction ([`super::writer::Writer`]), alone or a
//! chunk of files at a time; read back whole, in listings, or just the
//! fingerprints a library asks for (one query for all of them). Rows are
//! read in one query and decoded in parallel, as in SQLite. Every write
//! announces itself to the other processes following the collection.

use std::collections::BTreeMap;

use postgres::Row;
use rayon::prelude::*;

use super::super::codec::u64_from_sql;
use super::super::raw::{RawDoc, StoredPrints};
use super::super::records::status_from_sql;
use super::super::texts::KeptText;
use super::super::{
    Boilerplate, DocEntry, DocRecord, DocSummary, Documents, PairUpdate, Result, RowId, StoreError,
    StoredBoilerplate,
};
use super::writer::Writer;
use super::PgStore;
use crate::live::Change;
use doppel_core::doc::{DocPath, FileIdentity};
use doppel_core::engine::Fingerprints;
use doppel_pairing::candidates::DocKeys;

/// The columns [`raw_doc`] reads.
const DOC_COLUMNS: &str = "d.id, d.path, d.size, d.mtime_ns, d.ctime_ns, d.inode, d.dev, \
     d.content_hash, d.status, d.reason, d.encoding, d.first_seen_ns, p.fingerprints, p.terms, \
     d.shingles, p.checksum, d.quality, d.words, d.text_form";

/// The tables [`DOC_COLUMNS`] reads.
const DOC_FROM: &str = "documents d LEFT JOIN document_prints p ON p.id = d.id";

/// A `documents` row (of [`DOC_COLUMNS`]) before its blobs are decoded.
fn raw_doc(r: &Row) -> RawDoc {
    RawDoc {
        id: r.get(0),
        path: r.get(1),
        identity: FileIdentity {
            size: u64_from_sql(r.get(2)),
            mtime_ns: r.get(3),
            ctime_ns: r.get(4),
            inode: u64_from_sql(r.get(5)),
            dev: u64_from_sql(r.get(6)),
        },
        content_hash: u64_from_sql(r.get(7)),
        status: r.get(8),
        reason: r.get(9),
        encoding: r.get(10),
        first_seen_ns: r.get(11),
        fingerprints: r.get(12),
        terms: r.get(13),
        // Written from a u32.
        shingles: u32::try_from(r.get::<_, i64>(14)).unwrap_or(u32::MAX),
        checksum: r.get(15),
        keeper: (r.get(16), r.get(17), r.get(18)),
    }
}

impl PgStore {
    /// Run `write` in one transaction of this collection.
    pub(super) fn write<T>(
        &mut self,
        context: &str,
        write: impl FnOnce(&mut Writer<'_, '_>) -> Result<T>,
    ) -> Result<T> {
        let address = self.address.to_string();
        let fail = |context: &str| {
            let address = address.clone();
            let context = context.to_owned();
            move |error| StoreError::Postgres {
                address,
                context,
                error,
            }
        };
        let client = self.client.get_mut().unwrap_or_else(|e| e.into_inner());
        super::reconnect_if_lost(client, &self.address);
        let mut tx = client.transaction().map_err(fail(context))?;
        let out = write(&mut Writer::new(&mut tx, self.collection, &address))?;
        // Delivered to the other processes' listeners on commit.
        super::live::notify(&mut tx, &self.channel, &self.sender, Change::Documents)
            .map_err(fail(context))?;
        tx.commit().map_err(fail(context))?;
        Ok(out)
    }

    fn document_id(&self, doc: &DocPath) -> Result<Option<i64>> {
        self.client()
            .query_opt(
                "SELECT id FROM documents WHERE collection = $1 AND path = $2",
                &[&self.collection, &doc.as_bytes()],
            )
            .map(|row| row.map(|r| r.get(0)))
            .map_err(self.fail(format_args!("look up {doc}")))
    }

    /// The rows of `sql` (whose `$1` is the collection).
    pub(super) fn rows(&self, sql: &str, context: impl std::fmt::Display) -> Result<Vec<Row>> {
        self.client()
            .query(sql, &[&self.collection])
            .map_err(self.fail(context))
    }

    fn decode_boilerplate(&self, doc: &DocPath, blob: &[u8]) -> Result<StoredBoilerplate> {
        postcard::from_bytes(blob).map_err(|e| StoreError::Decode {
            path: self.place.clone(),
            doc: doc.to_string(),
            reason: format!("boilerplate does not decode: {e}"),
        })
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
        w.mark_stale(stale)?;
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

    fn documents_selecting(&self, columns: &str, from: &str) -> Result<Vec<DocRecord>> {
        let sql = format!("SELECT {columns} FROM {from} WHERE d.collection = $1 ORDER BY d.id");
        let rows = self.rows(&sql, "read documents")?;
        let records = rows
            .into_par_iter()
            .map(|row| raw_doc(&row).decode(&self.place))
            .collect::<Result<Vec<_>>>()?;
        Ok(self.corrupt.noting(&self.address, records))
    }
}

impl Boilerplate for PgStore {
    fn boilerplate_of(&self, doc: &DocPath) -> Result<Option<StoredBoilerplate>> {
        let blob: Option<Vec<u8>> = self
            .client()
            .query_opt(
                "SELECT b.boilerplate FROM documents d \
                 JOIN document_boilerplate b ON b.id = d.id \
                 WHERE d.collection = $1 AND d.path = $2",
                &[&self.collection, &doc.as_bytes()],
            )
            .map_err(self.fail(format_args!("read boilerplate of {doc}")))?
            .map(|r| r.get(0));
        blob.map(|blob| self.decode_boilerplate(doc, &blob))
            .transpose()
    }

    fn boilerplate_found(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        let mut all = self.boilerplate()?;
        all.retain(|(_, b)| b.has_boilerplate());
        Ok(all)
    }

    fn boilerplate(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        let rows = self.rows(
            "SELECT d.path, b.boilerplate FROM documents d \
             JOIN document_boilerplate b ON b.id = d.id WHERE d.collection = $1 ORDER BY d.path",
            "read boilerplate",
        )?;
        rows.into_par_iter()
            .map(|row| {
                let doc = DocPath::from_bytes(row.get::<_, Vec<u8>>(0));
                let stored = self.decode_boilerplate(&doc, row.get(1))?;
                Ok((doc, stored))
            })
            .collect()
    }

    fn kept_text(&self, doc: &DocPath) -> Result<Option<KeptText>> {
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

    fn text_totals(&self) -> Result<(u64, u64)> {
        let rows = self.rows(
            "SELECT count(*), coalesce(sum(length(t.text)), 0)::bigint FROM document_texts t \
             JOIN documents d ON d.id = t.id WHERE d.collection = $1",
            "count the kept texts",
        )?;
        Ok((u64_from_sql(rows[0].get(0)), u64_from_sql(rows[0].get(1))))
    }
}

impl Documents for PgStore {
    fn upsert_document(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<RowId> {
        tracing::trace!(doc = %rec.path, pairs = pairs.len(), "commit document");
        self.write("begin update", |w| w.upsert(rec, pairs))
    }

    fn upsert_documents(&mut self, items: &[(DocRecord, Vec<PairUpdate>)]) -> Result<Vec<RowId>> {
        self.write("begin batch update", |w| {
            items
                .iter()
                .map(|(rec, pairs)| w.upsert(rec, pairs))
                .collect()
        })
    }

    fn replace_pairs_of(&mut self, docs: &[(DocPath, Vec<PairUpdate>)]) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        self.write("begin pair update", |w| {
            docs.iter()
                .try_for_each(|(doc, pairs)| w.replace_pairs_of(doc, pairs))
        })
    }

    fn remove_document(&mut self, doc: &DocPath) -> Result<bool> {
        Ok(self.remove_documents(std::slice::from_ref(doc))? == 1)
    }

    fn remove_documents(&mut self, docs: &[DocPath]) -> Result<usize> {
        let collection = self.collection;
        let paths: Vec<&[u8]> = docs.iter().map(DocPath::as_bytes).collect();
        let fail = |context: &str| self.fail(context.to_owned());
        let mut client = self.client();
        let mut tx = client
            .transaction()
            .map_err(fail("begin removing documents"))?;
        let removed = tx
            .execute(
                "DELETE FROM documents WHERE collection = $1 AND path = ANY($2)",
                &[&collection, &paths],
            )
            .map_err(fail("remove documents"))?;
        if removed > 0 {
            super::live::notify(&mut tx, &self.channel, &self.sender, Change::Documents)
                .map_err(fail("announce the documents removed"))?;
        }
        tx.commit().map_err(fail("commit removing documents"))?;
        Ok(usize::try_from(removed).unwrap_or(usize::MAX))
    }

    fn rename_document(&mut self, from: &DocPath, to: &DocPath) -> Result<bool> {
        let what = format!("rename {from} to {to}");
        if from == to {
            return Ok(self.document_id(from)?.is_some());
        }
        let collection = self.collection;
        self.write(&what.clone(), |w| {
            let (from, to) = (from.as_bytes(), to.as_bytes());
            if w.find(&DocPath::from(from))?.is_none() {
                return Ok(false);
            }
            let address = w.address().to_owned();
            let fail = |error| StoreError::Postgres {
                address: address.clone(),
                context: what.clone(),
                error,
            };
            let tx = w.transaction();
            tx.execute(
                "DELETE FROM documents WHERE collection = $1 AND path = $2",
                &[&collection, &to],
            )
            .map_err(fail)?;
            tx.execute(
                "UPDATE documents SET path = $3 WHERE collection = $1 AND path = $2",
                &[&collection, &from, &to],
            )
            .map_err(fail)?;
            // Verdicts follow the file.
            tx.execute(
                "INSERT INTO doc_verdicts (collection, path, verdict, curator, set_at_ns) \
                 SELECT collection, $3, verdict, curator, set_at_ns FROM doc_verdicts \
                 WHERE collection = $1 AND path = $2 \
                 ON CONFLICT (collection, path) DO UPDATE SET verdict = excluded.verdict, \
                 curator = excluded.curator, set_at_ns = excluded.set_at_ns",
                &[&collection, &from, &to],
            )
            .map_err(fail)?;
            tx.execute(
                "DELETE FROM doc_verdicts WHERE collection = $1 AND path = $2",
                &[&collection, &from],
            )
            .map_err(fail)?;
            let moved = tx
                .query(
                    "DELETE FROM pair_verdicts WHERE collection = $1 AND (a = $2 OR b = $2) \
                     RETURNING a, b, verdict, curator, set_at_ns",
                    &[&collection, &from],
                )
                .map_err(fail)?;
            for row in moved {
                let (a, b): (Vec<u8>, Vec<u8>) = (row.get(0), row.get(1));
                let other = if a == from { b } else { a };
                if other == to {
                    continue; // a verdict between the two names of one file
                }
                let (x, y) = if other.as_slice() <= to {
                    (other.as_slice(), to)
                } else {
                    (to, other.as_slice())
                };
                tx.execute(
                    "INSERT INTO pair_verdicts (collection, a, b, verdict, curator, set_at_ns) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (collection, a, b, curator) \
                     DO UPDATE SET verdict = excluded.verdict, set_at_ns = excluded.set_at_ns",
                    &[
                        &collection,
                        &x,
                        &y,
                        &row.get::<_, &str>(2),
                        &row.get::<_, &str>(3),
                        &row.get::<_, i64>(4),
                    ],
                )
                .map_err(fail)?;
            }
            // So does their history (in byte order again; none between the
            // two names of one file).
            tx.execute(
                "UPDATE verdict_history SET \
                     a = CASE WHEN a = $2 THEN $3 ELSE a END, \
                     b = CASE WHEN b = $2 THEN $3 ELSE b END \
                 WHERE collection = $1 AND (a = $2 OR b = $2)",
                &[&collection, &from, &to],
            )
            .map_err(fail)?;
            tx.execute(
                "UPDATE verdict_history SET a = b, b = a WHERE collection = $1 AND a > b",
                &[&collection],
            )
            .map_err(fail)?;
            tx.execute(
                "DELETE FROM verdict_history WHERE collection = $1 AND a = b",
                &[&collection],
            )
            .map_err(fail)?;
            Ok(true)
        })
    }

    fn document(&self, doc: &DocPath) -> Result<Option<DocRecord>> {
        let sql =
            format!("SELECT {DOC_COLUMNS} FROM {DOC_FROM} WHERE d.collection = $1 AND d.path = $2");
        let row = self
            .client()
            .query_opt(&sql, &[&self.collection, &doc.as_bytes()])
            .map_err(self.fail(format_args!("read {doc}")))?;
        let decoded = row.map(|r| raw_doc(&r).decode(&self.place)).transpose()?;
        Ok(self.corrupt.noting(&self.address, decoded).pop())
    }

    fn fingerprints_at(&self, docs: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
        let paths: Vec<&[u8]> = docs.iter().map(|d| d.as_bytes()).collect();
        let rows = self
            .client()
            .query(
                "SELECT d.path, p.fingerprints, p.checksum FROM documents d \
                 JOIN document_prints p ON p.id = d.id \
                 WHERE d.collection = $1 AND d.path = ANY($2)",
                &[&self.collection, &paths],
            )
            .map_err(self.fail("read fingerprints"))?;
        let mut blobs: std::collections::HashMap<Vec<u8>, StoredPrints> = rows
            .into_iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2))))
            .collect();
        let found: Vec<_> = docs
            .iter()
            .map(|doc| blobs.remove(doc.as_bytes()))
            .collect();
        self.corrupt
            .decode_prints(&self.address, &self.place, found, docs)
    }

    fn take_corrupt(&self) -> Vec<DocPath> {
        self.corrupt.take()
    }

    fn documents(&self) -> Result<Vec<DocRecord>> {
        self.documents_selecting(DOC_COLUMNS, DOC_FROM)
    }

    fn documents_without_blobs(&self) -> Result<Vec<DocRecord>> {
        self.documents_selecting(
            &DOC_COLUMNS
                .replace("p.fingerprints, p.terms", "NULL::bytea, NULL::bytea")
                .replace("p.checksum", "NULL::bigint"),
            "documents d",
        )
    }

    fn document_entries_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, DocEntry)>) -> Result<()>,
    ) -> Result<()> {
        // The rows are read at once, then decoded chunk by chunk.
        let rows = self.rows(
            "SELECT e.id, e.entry FROM document_entries e JOIN documents d ON d.id = e.id \
             WHERE d.collection = $1 ORDER BY e.id",
            "read library entries",
        )?;
        for chunk in rows.chunks(super::pairs::CHUNK) {
            let decoded = chunk
                .par_iter()
                .map(|row| {
                    let id: i64 = row.get(0);
                    let entry =
                        postcard::from_bytes(row.get(1)).map_err(|e| StoreError::Decode {
                            path: self.place.clone(),
                            doc: format!("document {id}"),
                            reason: format!("library entry does not decode: {e}"),
                        })?;
                    Ok((RowId(id), entry))
                })
                .collect::<Result<Vec<_>>>()?;
            each(decoded)?;
        }
        Ok(())
    }

    fn document_paths(&self) -> Result<Vec<(RowId, DocPath)>> {
        Ok(self
            .rows(
                "SELECT id, path FROM documents WHERE collection = $1 ORDER BY id",
                "read document paths",
            )?
            .into_iter()
            .map(|r| (RowId(r.get(0)), DocPath::from_bytes(r.get::<_, Vec<u8>>(1))))
            .collect())
    }

    fn document_count(&self) -> Result<u64> {
        let rows = self.rows(
            "SELECT count(*) FROM documents WHERE collection = $1",
            "count documents",
        )?;
        Ok(u64_from_sql(rows[0].get(0)))
    }

    fn stat_index(&self) -> Result<BTreeMap<DocPath, FileIdentity>> {
        Ok(self
            .rows(
                "SELECT path, size, mtime_ns, ctime_ns, inode, dev FROM documents \
                 WHERE collection = $1",
                "read the stat index",
            )?
            .into_iter()
            .map(|r| {
                (
                    DocPath::from_bytes(r.get::<_, Vec<u8>>(0)),
                    FileIdentity {
                        size: u64_from_sql(r.get(1)),
                        mtime_ns: r.get(2),
                        ctime_ns: r.get(3),
                        inode: u64_from_sql(r.get(4)),
                        dev: u64_from_sql(r.get(5)),
                    },
                )
            })
            .collect())
    }

    fn listing(&self) -> Result<Vec<DocSummary>> {
        self.rows(
            "SELECT path, size, encoding, status, reason FROM documents \
             WHERE collection = $1 ORDER BY path",
            "list documents",
        )?
        .into_iter()
        .map(|r| {
            let path = DocPath::from_bytes(r.get::<_, Vec<u8>>(0));
            let status =
                status_from_sql(r.get(3), r.get(4)).map_err(|reason| StoreError::Decode {
                    path: self.place.clone(),
                    doc: path.to_string(),
                    reason: reason.to_string(),
                })?;
            Ok(DocSummary {
                path,
                size: u64_from_sql(r.get(1)),
                encoding: r.get(2),
                status,
            })
        })
        .collect()
    }

    #[tracing::instrument(level = "debug", name = "store.commit_batch", skip_all, fields(docs = docs.len()))]
    fn commit_batch(
        &mut self,
        stale: &[DocPath],
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        if stale.is_empty() && docs.is_empty() && touched.is_empty() {
            return Ok(Vec::new());
        }
        tracing::trace!(
            stale = stale.len(),
            documents = docs.len(),
            touched = touched.len(),
            "commit batch"
        );
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

    fn stored_keys(&self, _docs: &[&DocPath]) -> Result<Option<Vec<Option<DocKeys>>>> {
        // Derived from the prints: no entry is read by path.
        Ok(None)
    }
}
