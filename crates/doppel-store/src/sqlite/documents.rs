//! One row per file: its identity, status, fingerprints and library
//! entry, written with its pairs in one transaction, alone or a chunk of
//! files at a time (with the pairs their arrival changed, and a mark on
//! the documents whose stored fingerprints it made stale); read back
//! whole, in listings, or just the fingerprints a library asks for.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rayon::prelude::*;
use rusqlite::{params, OptionalExtension, Row, TransactionBehavior};

use super::super::raw::RawDoc;
use super::super::records::status_from_sql;
use super::boilerplate;
use super::codec::{pair_row, terms_to_blob, to_blob, u64_from_sql, u64_to_sql};
use super::error::Context;
use super::rows::{collect_rows, put_or_delete, PerPath, INSERT_PAIR, PUT_ENTRY};
use super::{
    DocEntry, DocRecord, DocStatus, DocSummary, PairUpdate, Result, RowId, SqliteStore, StoreError,
};
use crate::Documents;
use doppel_core::doc::{DocPath, FileIdentity};
use doppel_core::engine::Fingerprints;
use doppel_pairing::candidates::DocKeys;

/// The `ctime_ns` of a row whose file must be read again (its stored
/// fingerprints went stale: their learned boilerplate moved): no file on
/// disk has it, so the next reconcile sees the file as changed. Writing
/// the document again clears it.
pub const STALE_CTIME: i64 = i64::MIN;

/// The columns [`RawDoc::from_row`] reads.
const DOC_COLUMNS: &str = "d.id, d.path, d.size, d.mtime_ns, d.ctime_ns, d.inode, d.dev, \
     d.content_hash, d.status, d.reason, d.encoding, d.first_seen_ns, p.fingerprints, p.terms, \
     d.shingles, p.checksum, d.quality, d.words, d.text_form";

/// The tables [`DOC_COLUMNS`] reads.
const DOC_FROM: &str = "documents d LEFT JOIN document_prints p ON p.id = d.id";

impl SqliteStore {
    fn document_id(&self, key: &[u8]) -> Result<Option<i64>> {
        self.conn
            .prepare_cached("SELECT id FROM documents WHERE path = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .ctx(
                &self.path,
                format_args!("look up {}", DocPath::from_bytes(key)),
            )
    }

    /// `blob`, if any, decoded: stored for `doc` as `what`, named in the
    /// error when it does not decode.
    fn decode_blob<T: serde::de::DeserializeOwned>(
        &self,
        blob: Option<Vec<u8>>,
        doc: &DocPath,
        what: &str,
    ) -> Result<Option<T>> {
        blob.map(|blob| {
            postcard::from_bytes(&blob).map_err(|e| StoreError::Decode {
                path: self.path.clone(),
                doc: doc.to_string(),
                reason: format!("{what} does not decode: {e}"),
            })
        })
        .transpose()
    }

    /// The library entries stored with the documents at these paths, in
    /// order (`None` where a path has none).
    fn entries_at(&self, docs: &[&DocPath]) -> Result<Vec<Option<DocEntry>>> {
        let read = PerPath {
            columns: "e.entry",
            from: "documents d JOIN document_entries e ON e.id = d.id",
            what: "the library entry",
        };
        let blobs = self.rows_by_path(read, docs, |r| r.get::<_, Vec<u8>>(0))?;
        blobs
            .into_iter()
            .zip(docs)
            .map(|(blob, doc)| self.decode_blob(blob, doc, "library entry"))
            .collect()
    }

    /// The rows of `sql`, read in order and decoded in parallel a chunk at
    /// a time (the previous chunk is decoded while the next one is read),
    /// so that only two chunks of raw blobs are held beside what is decoded.
    fn read_decoded<R: Send, T: Send>(
        &self,
        sql: &str,
        context: &str,
        row: impl FnMut(&Row<'_>) -> rusqlite::Result<R>,
        decode: impl Fn(R) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.read_decoded_each(sql, context, row, decode, |chunk| {
            out.extend(chunk);
            Ok(())
        })?;
        Ok(out)
    }

    /// [`SqliteStore::read_decoded`] handing each decoded chunk to `each`, in
    /// order, instead of collecting them: what is read is never all in
    /// memory at once.
    pub(super) fn read_decoded_each<R: Send, T: Send>(
        &self,
        sql: &str,
        context: &str,
        row: impl FnMut(&Row<'_>) -> rusqlite::Result<R>,
        decode: impl Fn(R) -> Result<T> + Sync,
        mut each: impl FnMut(Vec<T>) -> Result<()>,
    ) -> Result<()> {
        const CHUNK: usize = 4096;
        let mut stmt = self.conn.prepare_cached(sql).ctx(&self.path, context)?;
        let mut rows = stmt.query_map([], row).ctx(&self.path, context)?;
        let mut pending: Vec<R> = Vec::new();
        loop {
            let mut next = Vec::with_capacity(CHUNK);
            let mut decoded: Result<Vec<T>> = Ok(Vec::new());
            let read = rayon::in_place_scope(|scope| {
                let previous = std::mem::take(&mut pending);
                let (decoded, decode) = (&mut decoded, &decode);
                scope.spawn(move |_| {
                    *decoded = previous.into_par_iter().map(decode).collect();
                });
                for r in rows.by_ref().take(CHUNK) {
                    next.push(r.ctx(&self.path, context)?);
                }
                Ok::<_, StoreError>(())
            });
            each(decoded?)?;
            read?;
            if next.is_empty() {
                return Ok(());
            }
            pending = next;
        }
    }

    fn documents_selecting(&self, columns: &str, from: &str) -> Result<Vec<DocRecord>> {
        let sql = format!("SELECT {columns} FROM {from} ORDER BY d.id");
        let path = &self.path;
        let records =
            self.read_decoded(&sql, "read documents", RawDoc::from_row, |r| r.decode(path))?;
        Ok(self.corrupt.noting(&path.display(), records))
    }
}

impl Documents for SqliteStore {
    fn upsert_document(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<RowId> {
        tracing::trace!(doc = %rec.path, pairs = pairs.len(), "commit document");
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin update")?;
        let mut new_rows = NewRows::before(&tx, path)?;
        let id = upsert_in(&tx, path, rec, pairs, &mut new_rows)?;
        tx.commit().ctx(path, "commit update")?;
        Ok(id)
    }

    fn upsert_documents(&mut self, items: &[(DocRecord, Vec<PairUpdate>)]) -> Result<Vec<RowId>> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin batch update")?;
        let mut new_rows = NewRows::before(&tx, path)?;
        let ids = items
            .iter()
            .map(|(rec, pairs)| upsert_in(&tx, path, rec, pairs, &mut new_rows))
            .collect::<Result<Vec<_>>>()?;
        tx.commit().ctx(path, "commit batch update")?;
        Ok(ids)
    }

    fn replace_pairs_of(&mut self, docs: &[(DocPath, Vec<PairUpdate>)]) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin pair update")?;
        for (doc, pairs) in docs {
            replace_pairs_in(&tx, path, doc, pairs)?;
        }
        tx.commit().ctx(path, "commit pair update")
    }

    fn remove_document(&mut self, doc: &DocPath) -> Result<bool> {
        Ok(self.remove_documents(std::slice::from_ref(doc))? == 1)
    }

    fn remove_documents(&mut self, docs: &[DocPath]) -> Result<usize> {
        tracing::trace!(documents = docs.len(), "remove documents");
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin removal")?;
        let mut removed = 0;
        {
            let mut stmt = tx
                .prepare_cached("DELETE FROM documents WHERE path = ?1")
                .ctx(path, "prepare removal")?;
            for doc in docs {
                removed += stmt
                    .execute([doc.as_bytes()])
                    .ctx(path, format_args!("remove document {doc}"))?;
            }
        }
        tx.commit().ctx(path, "commit removal")?;
        Ok(removed)
    }

    fn rename_document(&mut self, from: &DocPath, to: &DocPath) -> Result<bool> {
        let what = || format!("rename {from} to {to}");
        let (from, to) = (from.as_bytes(), to.as_bytes());
        if from == to {
            return self.document_id(from).map(|id| id.is_some());
        }
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin rename")?;
        let exists: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM documents WHERE path = ?1)",
                [from],
                |r| r.get(0),
            )
            .ctx(path, what())?;
        if !exists {
            return Ok(false);
        }
        tx.execute("DELETE FROM documents WHERE path = ?1", [to])
            .ctx(path, what())?;
        tx.execute(
            "UPDATE documents SET path = ?2 WHERE path = ?1",
            params![from, to],
        )
        .ctx(path, what())?;
        // Verdicts follow the file.
        tx.execute(
            "INSERT OR REPLACE INTO doc_verdicts (path, verdict, curator, set_at_ns) \
             SELECT ?2, verdict, curator, set_at_ns FROM doc_verdicts WHERE path = ?1",
            params![from, to],
        )
        .ctx(path, what())?;
        tx.execute("DELETE FROM doc_verdicts WHERE path = ?1", [from])
            .ctx(path, what())?;
        let moved: Vec<super::rows::VerdictRow> = collect_rows(
            &tx,
            "SELECT a, b, curator, verdict, set_at_ns FROM pair_verdicts WHERE a = ?1 OR b = ?1",
            [from],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .ctx(path, what())?;
        tx.execute("DELETE FROM pair_verdicts WHERE a = ?1 OR b = ?1", [from])
            .ctx(path, what())?;
        for (a, b, curator, verdict, set_at) in moved {
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
                "INSERT OR REPLACE INTO pair_verdicts (a, b, curator, verdict, set_at_ns) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![x, y, curator, verdict, set_at],
            )
            .ctx(path, what())?;
        }
        // So does their history (in byte order again; none between the
        // two names of one file).
        tx.execute(
            "UPDATE verdict_history SET \
                 a = CASE WHEN a = ?1 THEN ?2 ELSE a END, \
                 b = CASE WHEN b = ?1 THEN ?2 ELSE b END \
             WHERE a = ?1 OR b = ?1",
            params![from, to],
        )
        .ctx(path, what())?;
        tx.execute_batch(
            "UPDATE verdict_history SET a = b, b = a WHERE a > b; \
             DELETE FROM verdict_history WHERE a = b;",
        )
        .ctx(path, what())?;
        tx.commit().ctx(path, what())?;
        Ok(true)
    }

    fn document(&self, doc: &DocPath) -> Result<Option<DocRecord>> {
        let sql = format!("SELECT {DOC_COLUMNS} FROM {DOC_FROM} WHERE d.path = ?1");
        let raw = self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([doc.as_bytes()], RawDoc::from_row).optional())
            .ctx(&self.path, format_args!("read {doc}"))?;
        let decoded = raw.map(|r| r.decode(&self.path)).transpose()?;
        Ok(self.corrupt.noting(&self.path.display(), decoded).pop())
    }

    fn fingerprints_at(&self, docs: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
        let read = PerPath {
            columns: "p.fingerprints, p.checksum",
            from: "documents d JOIN document_prints p ON p.id = d.id",
            what: "fingerprints",
        };
        let blobs = self.rows_by_path(read, docs, |r| {
            Ok((r.get::<_, Option<Vec<u8>>>(0)?, r.get::<_, Option<i64>>(1)?))
        })?;
        self.corrupt
            .decode_prints(&self.path.display(), &self.path, blobs, docs)
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
                .replace("p.fingerprints, p.terms", "NULL, NULL")
                .replace("p.checksum", "NULL"),
            "documents d",
        )
    }

    fn document_entries_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, DocEntry)>) -> Result<()>,
    ) -> Result<()> {
        let path = &self.path;
        self.read_decoded_each(
            "SELECT id, entry FROM document_entries ORDER BY id",
            "read library entries",
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)),
            |(id, blob)| {
                let entry = postcard::from_bytes(&blob).map_err(|e| StoreError::Decode {
                    path: path.clone(),
                    doc: format!("document {id}"),
                    reason: format!("library entry does not decode: {e}"),
                })?;
                Ok((RowId(id), entry))
            },
            each,
        )
    }

    fn document_paths(&self) -> Result<Vec<(RowId, DocPath)>> {
        collect_rows(
            &self.conn,
            "SELECT id, path FROM documents ORDER BY id",
            [],
            |r| {
                Ok((
                    RowId(r.get(0)?),
                    DocPath::from_bytes(r.get::<_, Vec<u8>>(1)?),
                ))
            },
        )
        .ctx(&self.path, "read document paths")
    }

    fn document_count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM documents", [], |r| r.get::<_, i64>(0))
            .map(u64_from_sql)
            .ctx(&self.path, "count documents")
    }

    fn stat_index(&self) -> Result<BTreeMap<DocPath, FileIdentity>> {
        let rows = collect_rows(
            &self.conn,
            "SELECT path, size, mtime_ns, ctime_ns, inode, dev FROM documents",
            [],
            |r| {
                Ok((
                    DocPath::from_bytes(r.get::<_, Vec<u8>>(0)?),
                    FileIdentity {
                        size: u64_from_sql(r.get(1)?),
                        mtime_ns: r.get(2)?,
                        ctime_ns: r.get(3)?,
                        inode: u64_from_sql(r.get(4)?),
                        dev: u64_from_sql(r.get(5)?),
                    },
                ))
            },
        )
        .ctx(&self.path, "read the stat index")?;
        Ok(rows.into_iter().collect())
    }

    fn listing(&self) -> Result<Vec<DocSummary>> {
        type Row = (Vec<u8>, i64, Option<String>, String, Option<String>);
        let rows: Vec<Row> = collect_rows(
            &self.conn,
            "SELECT path, size, encoding, status, reason FROM documents ORDER BY path",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .ctx(&self.path, "list documents")?;
        rows.into_iter()
            .map(|(path, size, encoding, status, reason)| {
                let status =
                    status_from_sql(&status, reason).map_err(|reason| StoreError::Decode {
                        path: self.path.clone(),
                        doc: DocPath::from_bytes(path.as_slice()).to_string(),
                        reason: reason.to_string(),
                    })?;
                Ok(DocSummary {
                    path: DocPath::from_bytes(path),
                    size: u64_from_sql(size),
                    encoding,
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
        // One `BEGIN IMMEDIATE` transaction, with the cached statements of
        // `upsert_document`.
        let path = &self.path;
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

    fn stored_keys(&self, docs: &[&DocPath]) -> Result<Option<Vec<Option<DocKeys>>>> {
        let entries = self.entries_at(docs)?;
        Ok(Some(
            entries.into_iter().map(|e| e.map(|e| e.keys)).collect(),
        ))
    }
}

/// The document rows a transaction inserts, told apart from the ones it
/// updates: a row inserted now has nothing yet in the tables that hang off
/// it (prints, entry, boilerplate, text, pairs), so [`upsert_in`] skips
/// deleting what is not there (a fresh index's documents all are new, and
/// the no-op deletes were a fifth of its writes).
///
/// An id above the highest one when the transaction began was inserted in
/// it: ids are the rowid, given out above the highest in use, and any rows
/// an earlier holder of the id left went with it (`ON DELETE CASCADE`,
/// foreign keys on). A second write of the same path in one transaction
/// is an update, so each id counts as new once.
pub(super) struct NewRows {
    above: i64,
    inserted: HashSet<i64>,
}

impl NewRows {
    /// The rows `tx` inserts from now on.
    pub(super) fn before(tx: &rusqlite::Transaction<'_>, path: &Path) -> Result<Self> {
        let above = tx
            .query_row("SELECT coalesce(max(id), 0) FROM documents", [], |r| {
                r.get(0)
            })
            .ctx(path, "read the highest document id")?;
        Ok(Self {
            above,
            inserted: HashSet::new(),
        })
    }

    /// Whether row `id`, just written, was inserted by this transaction
    /// and not written before in it.
    fn first_write_of_new(&mut self, id: i64) -> bool {
        id > self.above && self.inserted.insert(id)
    }
}

/// Write one document and its pairs inside `tx` (see
/// [`SqliteStore::upsert_document`]); `new_rows` tells whether its row is
/// new to the transaction.
pub(super) fn upsert_in(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    rec: &DocRecord,
    pairs: &[PairUpdate],
    new_rows: &mut NewRows,
) -> Result<RowId> {
    let doc = &rec.path;
    let (status, reason) = match &rec.status {
        DocStatus::Indexed => ("indexed", None),
        DocStatus::Skipped { reason } => ("skipped", Some(reason.as_str())),
    };
    let fingerprints = rec
        .fingerprints
        .as_ref()
        .map(|f| to_blob(f, path, format_args!("fingerprints of {doc}")))
        .transpose()?;
    let terms = (!rec.terms.is_empty()).then(|| terms_to_blob(&rec.terms));
    let entry = rec
        .entry
        .as_ref()
        .map(|e| to_blob(e, path, format_args!("library entry of {doc}")))
        .transpose()?;
    let boilerplate::Blobs { samples, found } =
        boilerplate::blobs_of(rec.boilerplate.as_ref(), path, doc)?;
    let id: i64 = tx
        .prepare_cached(
            "INSERT INTO documents (path, size, mtime_ns, ctime_ns, inode, dev, content_hash, \
                 status, reason, encoding, first_seen_ns, shingles, quality, words, text_form) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) \
             ON CONFLICT(path) DO UPDATE SET size = excluded.size, \
                 mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, \
                 inode = excluded.inode, dev = excluded.dev, \
                 content_hash = excluded.content_hash, status = excluded.status, \
                 reason = excluded.reason, encoding = excluded.encoding, \
                 shingles = excluded.shingles, quality = excluded.quality, \
                 words = excluded.words, text_form = excluded.text_form \
             RETURNING id",
        )
        .and_then(|mut s| {
            s.query_row(
                params![
                    rec.path.as_bytes(),
                    u64_to_sql(rec.identity.size),
                    rec.identity.mtime_ns,
                    rec.identity.ctime_ns,
                    u64_to_sql(rec.identity.inode),
                    u64_to_sql(rec.identity.dev),
                    u64_to_sql(rec.content_hash),
                    status,
                    reason,
                    rec.encoding,
                    rec.first_seen_ns,
                    rec.shingles,
                    rec.keeper.map(|k| k.quality),
                    rec.keeper
                        .map(|k| i64::try_from(k.words).unwrap_or(i64::MAX)),
                    rec.keeper.map(|k| k.form.as_str()),
                ],
                |r| r.get(0),
            )
        })
        .ctx(path, format_args!("write document {doc}"))?;
    let bare = new_rows.first_write_of_new(id);
    let checksum = fingerprints
        .as_deref()
        .map(|blob| u64_to_sql(super::super::blob_checksum(blob)));
    tx.prepare_cached(
        "INSERT INTO document_prints (id, fingerprints, terms, checksum, samples) \
             VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT(id) DO UPDATE SET fingerprints = excluded.fingerprints, \
             terms = excluded.terms, checksum = excluded.checksum, samples = excluded.samples",
    )
    .and_then(|mut s| s.execute(params![id, fingerprints, terms, checksum, samples]))
    .ctx(path, format_args!("write fingerprints of {doc}"))?;
    let entry_sql = (PUT_ENTRY, "DELETE FROM document_entries WHERE id = ?1");
    put_or_delete(tx, entry_sql, id, entry, bare)
        .ctx(path, format_args!("write library entry of {doc}"))?;
    boilerplate::write_found_in(tx, path, id, doc, found, bare)?;
    if !(bare && rec.text.is_none()) {
        super::texts::write_text_in(tx, path, id, doc, rec.text.as_ref())?;
    }
    if !bare {
        delete_pairs_in(tx, path, id, doc)?;
    }
    insert_pairs_in(tx, path, id, doc, pairs)?;
    Ok(RowId(id))
}

/// Replace every stored pair of `doc` with `pairs` inside `tx`, if it is
/// indexed (a document gone meanwhile has nothing to rewrite).
pub(super) fn replace_pairs_in(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    doc: &DocPath,
    pairs: &[PairUpdate],
) -> Result<()> {
    let id: Option<i64> = tx
        .prepare_cached("SELECT id FROM documents WHERE path = ?1")
        .and_then(|mut s| s.query_row([doc.as_bytes()], |r| r.get(0)).optional())
        .ctx(path, format_args!("look up {doc}"))?;
    match id {
        Some(id) => {
            delete_pairs_in(tx, path, id, doc)?;
            insert_pairs_in(tx, path, id, doc, pairs)
        }
        None => Ok(()),
    }
}

/// Delete every stored pair of document row `id` (at `doc`).
fn delete_pairs_in(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    id: i64,
    doc: &DocPath,
) -> Result<()> {
    tx.prepare_cached("DELETE FROM pairs WHERE a = ?1")
        .and_then(|mut s| s.execute([id]))
        .and_then(|_| tx.prepare_cached("DELETE FROM pairs WHERE b = ?1"))
        .and_then(|mut s| s.execute([id]))
        .ctx(path, format_args!("delete old pairs of {doc}"))?;
    Ok(())
}

/// Store `pairs` of document row `id` (at `doc`), which has none of them.
fn insert_pairs_in(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    id: i64,
    doc: &DocPath,
    pairs: &[PairUpdate],
) -> Result<()> {
    if pairs.is_empty() {
        return Ok(());
    }
    let mut find = tx
        .prepare_cached("SELECT id FROM documents WHERE path = ?1")
        .ctx(path, "prepare pair lookup")?;
    let mut insert = tx
        .prepare_cached(INSERT_PAIR)
        .ctx(path, "prepare pair insert")?;
    for (other, scores) in pairs {
        let other_id: Option<i64> = find
            .query_row([other.as_bytes()], |r| r.get(0))
            .optional()
            .ctx(path, format_args!("look up {other}"))?;
        let other_id = match other_id {
            Some(o) if o != id => o,
            Some(_) => {
                return Err(StoreError::Invalid {
                    path: path.to_path_buf(),
                    reason: format!("document {doc} paired with itself"),
                })
            }
            None => {
                return Err(StoreError::Invalid {
                    path: path.to_path_buf(),
                    reason: format!(
                        "document {doc} paired with {other}, which is not in the index"
                    ),
                })
            }
        };
        insert
            .execute(pair_row(id, other_id, scores))
            .ctx(path, format_args!("write pair {doc} / {other}"))?;
    }
    Ok(())
}
