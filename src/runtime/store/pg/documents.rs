//! A collection's documents in PostgreSQL: one row per file with its
//! fingerprints, library entry, boilerplate and kept text, written with
//! its pairs in one transaction ([`super::writer::Writer`]); read back
//! whole, in listings, or just the fingerprints a library asks for. Rows
//! are read in one query and decoded in parallel, as in SQLite.

use std::collections::BTreeMap;

use postgres::Row;
use rayon::prelude::*;

use super::super::codec::u64_from_sql;
use super::super::raw::{RawDoc, StoredPrints};
use super::super::records::status_from_sql;
use super::super::{
    DocEntry, DocRecord, DocSummary, PairUpdate, Result, RowId, StoreError, StoreFaults,
    StoredBoilerplate,
};
use super::writer::Writer;
use super::PgStore;
use crate::doc::{DocPath, FileIdentity};
use crate::engine::Fingerprints;
use crate::pairing::library::PrintSource;
use crate::runtime::store::live::Change;

/// The columns [`raw_doc`] reads.
const DOC_COLUMNS: &str = "d.id, d.path, d.size, d.mtime_ns, d.ctime_ns, d.inode, d.dev, \
     d.content_hash, d.status, d.reason, d.encoding, d.first_seen_ns, p.fingerprints, p.terms, \
     d.shingles, p.checksum";

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
    }
}

impl PgStore {
    /// An injected failure for this write, if [`StoreFaults`] asks for one.
    fn injected_fault(&self, context: &str) -> Result<()> {
        StoreFaults::check(self.faults.as_ref(), &self.place, context)
    }

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
        let faults = self.faults.as_ref();
        let out = write(&mut Writer::new(&mut tx, self.collection, &address, faults))?;
        // Delivered to the other processes' listeners on commit.
        super::live::notify(&mut tx, self.collection, &self.sender, Change::Documents)
            .map_err(fail(context))?;
        tx.commit().map_err(fail(context))?;
        Ok(out)
    }

    /// Insert or replace the document at `rec.path` and its pairs in one
    /// transaction (see [`crate::runtime::store::Store::upsert_document`]).
    pub fn upsert_document(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<RowId> {
        tracing::trace!(doc = %rec.path, pairs = pairs.len(), "commit document");
        self.injected_fault("begin update")?;
        self.write("begin update", |w| w.upsert(rec, pairs))
    }

    /// [`PgStore::upsert_document`] for many documents in one transaction.
    pub fn upsert_documents(
        &mut self,
        items: &[(DocRecord, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        self.injected_fault("begin batch update")?;
        self.write("begin batch update", |w| {
            items
                .iter()
                .map(|(rec, pairs)| w.upsert(rec, pairs))
                .collect()
        })
    }

    /// Rewrite the stored pairs of documents already in the collection,
    /// in one transaction.
    pub fn replace_pairs_of(&mut self, docs: &[(DocPath, Vec<PairUpdate>)]) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        self.write("begin pair update", |w| {
            docs.iter()
                .try_for_each(|(doc, pairs)| w.replace_pairs_of(doc, pairs))
        })
    }

    /// Remove the document at `doc` and (by cascade) its pairs; verdicts
    /// stay. `false` if it was not indexed.
    pub fn remove_document(&mut self, doc: &DocPath) -> Result<bool> {
        Ok(self.remove_documents(std::slice::from_ref(doc))? == 1)
    }

    /// Remove many documents in one transaction, which tells the other
    /// processes; returns how many existed.
    pub fn remove_documents(&mut self, docs: &[DocPath]) -> Result<usize> {
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
            super::live::notify(&mut tx, collection, &self.sender, Change::Documents)
                .map_err(fail("announce the documents removed"))?;
        }
        tx.commit().map_err(fail("commit removing documents"))?;
        Ok(usize::try_from(removed).unwrap_or(usize::MAX))
    }

    /// A file was renamed: the row moves to `to` with its id,
    /// fingerprints, pairs and `first_seen_ns`, and verdicts on `from`
    /// follow it (with their curator). A row already at `to` is removed
    /// first. `false` if `from` was not indexed.
    pub fn rename_document(&mut self, from: &DocPath, to: &DocPath) -> Result<bool> {
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

    /// The document at `doc`, if indexed.
    pub fn document(&self, doc: &DocPath) -> Result<Option<DocRecord>> {
        let sql =
            format!("SELECT {DOC_COLUMNS} FROM {DOC_FROM} WHERE d.collection = $1 AND d.path = $2");
        let row = self
            .client()
            .query_opt(&sql, &[&self.collection, &doc.as_bytes()])
            .map_err(self.fail(format_args!("read {doc}")))?;
        let decoded = row.map(|r| raw_doc(&r).decode(&self.place)).transpose()?;
        Ok(self.corrupt.noting(&self.address, decoded).pop())
    }

    /// One document's part in boilerplate learning, if stored.
    pub fn boilerplate_of(&self, doc: &DocPath) -> Result<Option<StoredBoilerplate>> {
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

    fn decode_boilerplate(&self, doc: &DocPath, blob: &[u8]) -> Result<StoredBoilerplate> {
        postcard::from_bytes(blob).map_err(|e| StoreError::Decode {
            path: self.place.clone(),
            doc: doc.to_string(),
            reason: format!("boilerplate does not decode: {e}"),
        })
    }

    /// The part in learning of every document with boilerplate, by path:
    /// what the boilerplate report reads.
    pub fn boilerplate_found(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        let mut all = self.boilerplate()?;
        all.retain(|(_, b)| b.has_boilerplate());
        Ok(all)
    }

    /// Every stored document's part in boilerplate learning, by path.
    pub fn boilerplate(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
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

    /// The fingerprints of the documents at these paths, in order (`None`
    /// where a path has none, or its blob fails its checksum: noted for
    /// [`PgStore::take_corrupt`]). One query for all of them.
    pub fn fingerprints_at(&self, docs: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
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

    /// The documents whose stored fingerprints failed their checksum since
    /// the last call: their files must be read again.
    pub fn take_corrupt(&self) -> Vec<DocPath> {
        self.corrupt.take()
    }

    /// Every document, fingerprints decoded, in id order.
    pub fn documents(&self) -> Result<Vec<DocRecord>> {
        self.documents_selecting(DOC_COLUMNS, DOC_FROM)
    }

    /// [`PgStore::documents`] without fingerprints and terms.
    pub fn documents_without_blobs(&self) -> Result<Vec<DocRecord>> {
        self.documents_selecting(
            &DOC_COLUMNS
                .replace("p.fingerprints, p.terms", "NULL::bytea, NULL::bytea")
                .replace("p.checksum", "NULL::bigint"),
            "documents d",
        )
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

    /// Every stored library entry by document id, a decoded chunk at a
    /// time, in id order (the rows are read at once, then decoded chunk by
    /// chunk).
    pub fn document_entries_each(
        &self,
        mut each: impl FnMut(Vec<(RowId, DocEntry)>) -> Result<()>,
    ) -> Result<()> {
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

    /// Every document's id and path, in id order.
    pub fn document_paths(&self) -> Result<Vec<(RowId, DocPath)>> {
        Ok(self
            .rows(
                "SELECT id, path FROM documents WHERE collection = $1 ORDER BY id",
                "read document paths",
            )?
            .into_iter()
            .map(|r| (RowId(r.get(0)), DocPath::from_bytes(r.get::<_, Vec<u8>>(1))))
            .collect())
    }

    /// Number of documents (indexed and skipped).
    pub fn document_count(&self) -> Result<u64> {
        let rows = self.rows(
            "SELECT count(*) FROM documents WHERE collection = $1",
            "count documents",
        )?;
        Ok(u64_from_sql(rows[0].get(0)))
    }

    /// Every stored path with its stat identity.
    pub fn stat_index(&self) -> Result<BTreeMap<DocPath, FileIdentity>> {
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

    /// Every document's path, size, encoding and status, in path order.
    pub fn listing(&self) -> Result<Vec<DocSummary>> {
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
                    reason,
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
}

impl PrintSource for PgStore {
    type Error = StoreError;

    /// The stored fingerprints ([`PgStore::fingerprints_at`]).
    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
        self.fingerprints_at(paths)
    }
}
