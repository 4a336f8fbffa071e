//! Writing documents inside one PostgreSQL transaction: a document's row
//! with its fingerprints, library entry, boilerplate, kept text and pairs
//! ([`Writer::upsert`]), a document's pairs alone, a stale mark. Each
//! statement is prepared once per transaction (a batch of a thousand
//! documents prepares a dozen, not a thousand), then bound per row.

use std::collections::HashMap;
use std::fmt;

use postgres::types::ToSql;
use postgres::{Row, Statement, Transaction};

use super::super::codec::{pair_row, terms_to_blob, to_blob, u64_to_sql};
use super::super::texts::{checksum, StoredText};
use super::super::{
    blob_checksum, DocRecord, DocStatus, PairUpdate, Result, RowId, StoreError, StoreFaults,
};
use crate::doc::DocPath;

/// Insert or update a document's row, keeping its id and `first_seen_ns`.
const UPSERT_DOCUMENT: &str = "INSERT INTO documents (collection, path, size, mtime_ns, \
     ctime_ns, inode, dev, content_hash, status, reason, encoding, first_seen_ns, shingles) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
     ON CONFLICT (collection, path) DO UPDATE SET size = excluded.size, \
     mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, inode = excluded.inode, \
     dev = excluded.dev, content_hash = excluded.content_hash, status = excluded.status, \
     reason = excluded.reason, encoding = excluded.encoding, shingles = excluded.shingles \
     RETURNING id";

const PUT_PRINTS: &str = "INSERT INTO document_prints (id, fingerprints, terms, checksum) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET \
     fingerprints = excluded.fingerprints, terms = excluded.terms, checksum = excluded.checksum";

/// Insert or replace one document's library entry: `(id, entry)`.
pub(super) const PUT_ENTRY: &str = "INSERT INTO document_entries (id, entry) VALUES ($1, $2) \
     ON CONFLICT (id) DO UPDATE SET entry = excluded.entry";

const PUT_BOILERPLATE: &str = "INSERT INTO document_boilerplate (id, boilerplate) \
     VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET boilerplate = excluded.boilerplate";

const PUT_TEXT: &str = "INSERT INTO document_texts (id, text, checksum) VALUES ($1, $2, $3) \
     ON CONFLICT (id) DO UPDATE SET text = excluded.text, checksum = excluded.checksum";

/// Insert one pair: `(a, b, scores)` with a < b (see [`pair_row`]).
pub(super) const INSERT_PAIR: &str = "INSERT INTO pairs (a, b, scores) VALUES ($1, $2, $3)";

/// The id of a path in the collection.
const FIND: &str = "SELECT id FROM documents WHERE collection = $1 AND path = $2";

/// Writes inside one transaction of one collection.
pub(super) struct Writer<'t, 'c> {
    tx: &'t mut Transaction<'c>,
    collection: i64,
    address: &'t str,
    prepared: HashMap<&'static str, Statement>,
    /// Writes tests make fail ([`StoreFaults`]).
    faults: Option<&'t StoreFaults>,
}

impl<'t, 'c> Writer<'t, 'c> {
    pub(super) fn new(
        tx: &'t mut Transaction<'c>,
        collection: i64,
        address: &'t str,
        faults: Option<&'t StoreFaults>,
    ) -> Self {
        Writer {
            tx,
            collection,
            address,
            prepared: HashMap::new(),
            faults,
        }
    }

    /// The transaction, for a statement of its own.
    pub(super) fn transaction(&mut self) -> &mut Transaction<'c> {
        self.tx
    }

    /// The database's address (password-free).
    pub(super) fn address(&self) -> &str {
        self.address
    }

    /// An injected failure for this write, if [`StoreFaults`] asks for one.
    pub(super) fn injected_fault(&self, context: &str) -> Result<()> {
        StoreFaults::check(self.faults, std::path::Path::new(self.address), context)
    }

    /// The error of `context` failing with the client's error.
    fn fail(&self, context: impl fmt::Display) -> impl FnOnce(postgres::Error) -> StoreError {
        let address = self.address.to_owned();
        let context = context.to_string();
        move |error| StoreError::Postgres {
            address,
            context,
            error,
        }
    }

    /// `sql`, prepared once in this transaction.
    fn statement(&mut self, sql: &'static str) -> Result<Statement> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self
            .tx
            .prepare(sql)
            .map_err(self.fail("prepare a statement"))?;
        self.prepared.insert(sql, statement.clone());
        Ok(statement)
    }

    fn execute(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
        what: impl fmt::Display,
    ) -> Result<u64> {
        let statement = self.statement(sql)?;
        self.tx.execute(&statement, params).map_err(self.fail(what))
    }

    fn query_opt(
        &mut self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
        what: impl fmt::Display,
    ) -> Result<Option<Row>> {
        let statement = self.statement(sql)?;
        self.tx
            .query_opt(&statement, params)
            .map_err(self.fail(what))
    }

    /// The row id of `doc` in the collection, if indexed.
    pub(super) fn find(&mut self, doc: &DocPath) -> Result<Option<i64>> {
        let collection = self.collection;
        Ok(self
            .query_opt(
                FIND,
                &[&collection, &doc.as_bytes()],
                format_args!("look up {doc}"),
            )?
            .map(|row| row.get(0)))
    }

    /// Mark `doc` (if indexed) to be read again ([`super::super::STALE_CTIME`]).
    pub(super) fn mark_stale(&mut self, doc: &DocPath) -> Result<()> {
        let collection = self.collection;
        self.execute(
            "UPDATE documents SET ctime_ns = $3 WHERE collection = $1 AND path = $2",
            &[&collection, &doc.as_bytes(), &super::super::STALE_CTIME],
            format_args!("mark {doc} to be read again"),
        )
        .map(drop)
    }

    /// Write one document and its pairs (see [`super::PgStore::upsert_document`]).
    pub(super) fn upsert(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<RowId> {
        let doc = &rec.path;
        let place = std::path::PathBuf::from(self.address);
        let (status, reason) = match &rec.status {
            DocStatus::Indexed => ("indexed", None),
            DocStatus::Skipped { reason } => ("skipped", Some(reason.as_str())),
        };
        let fingerprints = rec
            .fingerprints
            .as_ref()
            .map(|f| to_blob(f, &place, format_args!("fingerprints of {doc}")))
            .transpose()?;
        let entry = rec
            .entry
            .as_ref()
            .map(|e| to_blob(e, &place, format_args!("library entry of {doc}")))
            .transpose()?;
        let boilerplate = rec
            .boilerplate
            .as_ref()
            .map(|b| to_blob(b, &place, format_args!("boilerplate of {doc}")))
            .transpose()?;
        let terms = (!rec.terms.is_empty()).then(|| terms_to_blob(&rec.terms));
        let collection = self.collection;
        let id: i64 = self
            .query_opt(
                UPSERT_DOCUMENT,
                &[
                    &collection,
                    &doc.as_bytes(),
                    &u64_to_sql(rec.identity.size),
                    &rec.identity.mtime_ns,
                    &rec.identity.ctime_ns,
                    &u64_to_sql(rec.identity.inode),
                    &u64_to_sql(rec.identity.dev),
                    &u64_to_sql(rec.content_hash),
                    &status,
                    &reason,
                    &rec.encoding,
                    &rec.first_seen_ns,
                    &i64::from(rec.shingles),
                ],
                format_args!("write document {doc}"),
            )?
            .map(|row| row.get(0))
            .expect("INSERT … RETURNING returns a row");
        let checksum_of_prints = fingerprints
            .as_deref()
            .map(|blob| u64_to_sql(blob_checksum(blob)));
        self.execute(
            PUT_PRINTS,
            &[&id, &fingerprints, &terms, &checksum_of_prints],
            format_args!("write fingerprints of {doc}"),
        )?;
        match entry {
            Some(entry) => self.execute(PUT_ENTRY, &[&id, &entry], "write a library entry"),
            None => self.execute(
                "DELETE FROM document_entries WHERE id = $1",
                &[&id],
                "delete a library entry",
            ),
        }?;
        match boilerplate {
            Some(blob) => self.execute(PUT_BOILERPLATE, &[&id, &blob], "write boilerplate"),
            None => self.execute(
                "DELETE FROM document_boilerplate WHERE id = $1",
                &[&id],
                "delete boilerplate",
            ),
        }?;
        match &rec.text {
            Some(StoredText(blob)) => self.execute(
                PUT_TEXT,
                &[&id, blob, &u64_to_sql(checksum(blob))],
                format_args!("write the text of {doc}"),
            ),
            None => self.execute(
                "DELETE FROM document_texts WHERE id = $1",
                &[&id],
                format_args!("delete the text of {doc}"),
            ),
        }?;
        self.write_pairs(id, doc, pairs)?;
        Ok(RowId(id))
    }

    /// Replace every stored pair of `doc` with `pairs`, if it is indexed
    /// (a document gone meanwhile has nothing to rewrite).
    pub(super) fn replace_pairs_of(&mut self, doc: &DocPath, pairs: &[PairUpdate]) -> Result<()> {
        match self.find(doc)? {
            Some(id) => self.write_pairs(id, doc, pairs),
            None => Ok(()),
        }
    }

    /// Replace every stored pair of document row `id` (at `doc`) with `pairs`.
    fn write_pairs(&mut self, id: i64, doc: &DocPath, pairs: &[PairUpdate]) -> Result<()> {
        self.execute(
            "DELETE FROM pairs WHERE a = $1 OR b = $1",
            &[&id],
            format_args!("delete old pairs of {doc}"),
        )?;
        for (other, scores) in pairs {
            let other_id = match self.find(other)? {
                Some(o) if o != id => o,
                Some(_) => {
                    return Err(StoreError::Invalid {
                        path: self.address.into(),
                        reason: format!("document {doc} paired with itself"),
                    })
                }
                None => {
                    return Err(StoreError::Invalid {
                        path: self.address.into(),
                        reason: format!(
                            "document {doc} paired with {other}, which is not in the index"
                        ),
                    })
                }
            };
            let (a, b, blob) = pair_row(id, other_id, scores);
            self.execute(
                INSERT_PAIR,
                &[&a, &b, &blob],
                format_args!("write pair {doc} / {other}"),
            )?;
        }
        Ok(())
    }
}
