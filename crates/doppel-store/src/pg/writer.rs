//! Writing documents inside one PostgreSQL transaction: a document's row
//! with its fingerprints, library entry, boilerplate, kept text and pairs
//! ([`Writer::upsert`]), a document's pairs alone, a stale mark. Each
//! statement is prepared once per transaction, then bound per row. A
//! batch of distinct documents ([`Writer::upsert_many`]) goes in a fixed
//! number of statements instead, each table's rows as arrays (`unnest`):
//! 5,000 small files scanned in 3.4 s against 8.4 s row by row over a
//! local socket (debug build, 2 loaded cores; SQLite 3.3 s), and a
//! remote server makes each saved round trip dearer.

use std::collections::HashMap;
use std::fmt;

use postgres::types::ToSql;
use postgres::{Row, Statement, Transaction};

use super::super::codec::{pair_row, terms_to_blob, to_blob, u64_to_sql};
use super::super::texts::{checksum, StoredText};
use super::super::{blob_checksum, DocRecord, DocStatus, PairUpdate, Result, RowId, StoreError};
use doppel_core::doc::DocPath;

/// Insert or update a document's row, keeping its id and `first_seen_ns`.
const UPSERT_DOCUMENT: &str = "INSERT INTO documents (collection, path, size, mtime_ns, \
     ctime_ns, inode, dev, content_hash, status, reason, encoding, first_seen_ns, shingles, \
     quality, words, text_form) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
     ON CONFLICT (collection, path) DO UPDATE SET size = excluded.size, \
     mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, inode = excluded.inode, \
     dev = excluded.dev, content_hash = excluded.content_hash, status = excluded.status, \
     reason = excluded.reason, encoding = excluded.encoding, shingles = excluded.shingles, \
     quality = excluded.quality, words = excluded.words, text_form = excluded.text_form \
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
}

impl<'t, 'c> Writer<'t, 'c> {
    pub(super) fn new(tx: &'t mut Transaction<'c>, collection: i64, address: &'t str) -> Self {
        Writer {
            tx,
            collection,
            address,
            prepared: HashMap::new(),
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

    /// Mark `docs` (those indexed) to be read again
    /// ([`super::super::STALE_CTIME`]), in one statement.
    pub(super) fn mark_stale(&mut self, docs: &[DocPath]) -> Result<()> {
        if docs.is_empty() {
            return Ok(());
        }
        let collection = self.collection;
        let paths: Vec<&[u8]> = docs.iter().map(DocPath::as_bytes).collect();
        self.execute(
            "UPDATE documents SET ctime_ns = $3 WHERE collection = $1 AND path = ANY($2)",
            &[&collection, &paths, &super::super::STALE_CTIME],
            format_args!("mark {} documents to be read again", docs.len()),
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
                    &rec.keeper.map(|k| k.quality),
                    &rec.keeper.map(|k| words_to_sql(k.words)),
                    &rec.keeper.map(|k| k.form.as_str()),
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

/// A batch's documents as columns, one array per column, for `unnest`.
#[derive(Default)]
struct Columns<'a> {
    paths: Vec<&'a [u8]>,
    sizes: Vec<i64>,
    mtimes: Vec<i64>,
    ctimes: Vec<i64>,
    inodes: Vec<i64>,
    devs: Vec<i64>,
    hashes: Vec<i64>,
    statuses: Vec<&'a str>,
    reasons: Vec<Option<&'a str>>,
    encodings: Vec<Option<&'a str>>,
    first_seen: Vec<i64>,
    shingles: Vec<i64>,
    qualities: Vec<Option<f64>>,
    words: Vec<Option<i64>>,
    forms: Vec<Option<&'static str>>,
}

/// A word count as a `bigint`.
fn words_to_sql(words: u64) -> i64 {
    i64::try_from(words).unwrap_or(i64::MAX)
}

/// Insert or update many documents' rows in one statement (see
/// [`UPSERT_DOCUMENT`]), returning each row's id and path.
const UPSERT_DOCUMENTS: &str = "INSERT INTO documents (collection, path, size, mtime_ns, \
     ctime_ns, inode, dev, content_hash, status, reason, encoding, first_seen_ns, shingles, \
     quality, words, text_form) \
     SELECT $1, * FROM unnest($2::bytea[], $3::bigint[], $4::bigint[], $5::bigint[], \
     $6::bigint[], $7::bigint[], $8::bigint[], $9::text[], $10::text[], $11::text[], \
     $12::bigint[], $13::bigint[], $14::double precision[], $15::bigint[], $16::text[]) \
     ON CONFLICT (collection, path) DO UPDATE SET size = excluded.size, \
     mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, inode = excluded.inode, \
     dev = excluded.dev, content_hash = excluded.content_hash, status = excluded.status, \
     reason = excluded.reason, encoding = excluded.encoding, shingles = excluded.shingles, \
     quality = excluded.quality, words = excluded.words, text_form = excluded.text_form \
     RETURNING id, path";

impl Writer<'_, '_> {
    /// Write `docs` in order and then give each of `touched` exactly its
    /// pairs, as [`Writer::upsert`] and [`Writer::replace_pairs_of`] one
    /// by one would, in a fixed number of statements whatever the batch's
    /// size (one per table, its rows as arrays): on a server a round trip
    /// away, per-row statements cost a round trip each. The paths of
    /// `docs` must be distinct. Returns the ids of `docs`.
    pub(super) fn upsert_many(
        &mut self,
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        let place = std::path::PathBuf::from(self.address);
        let mut columns = Columns::default();
        for (rec, _) in docs {
            let (status, reason) = match &rec.status {
                DocStatus::Indexed => ("indexed", None),
                DocStatus::Skipped { reason } => ("skipped", Some(reason.as_str())),
            };
            columns.paths.push(rec.path.as_bytes());
            columns.sizes.push(u64_to_sql(rec.identity.size));
            columns.mtimes.push(rec.identity.mtime_ns);
            columns.ctimes.push(rec.identity.ctime_ns);
            columns.inodes.push(u64_to_sql(rec.identity.inode));
            columns.devs.push(u64_to_sql(rec.identity.dev));
            columns.hashes.push(u64_to_sql(rec.content_hash));
            columns.statuses.push(status);
            columns.reasons.push(reason);
            columns.encodings.push(rec.encoding.as_deref());
            columns.first_seen.push(rec.first_seen_ns);
            columns.shingles.push(i64::from(rec.shingles));
            columns.qualities.push(rec.keeper.map(|k| k.quality));
            columns
                .words
                .push(rec.keeper.map(|k| words_to_sql(k.words)));
            columns.forms.push(rec.keeper.map(|k| k.form.as_str()));
        }
        let c = &columns;
        let collection = self.collection;
        let rows = self
            .tx
            .query(
                UPSERT_DOCUMENTS,
                &[
                    &collection,
                    &c.paths,
                    &c.sizes,
                    &c.mtimes,
                    &c.ctimes,
                    &c.inodes,
                    &c.devs,
                    &c.hashes,
                    &c.statuses,
                    &c.reasons,
                    &c.encodings,
                    &c.first_seen,
                    &c.shingles,
                    &c.qualities,
                    &c.words,
                    &c.forms,
                ],
            )
            .map_err(self.fail("write a batch of documents"))?;
        let mut known: HashMap<Vec<u8>, i64> = rows
            .iter()
            .map(|r| (r.get::<_, Vec<u8>>(1), r.get(0)))
            .collect();
        let ids: Vec<i64> = docs
            .iter()
            .map(|(rec, _)| known[rec.path.as_bytes()])
            .collect();

        // Each document's blobs, one statement per table.
        let mut prints = (Vec::new(), Vec::new(), Vec::new());
        let mut entries = (Vec::new(), Vec::new());
        let mut boilerplate = (Vec::new(), Vec::new());
        let mut texts = (Vec::new(), Vec::new(), Vec::new());
        for ((rec, _), &id) in docs.iter().zip(&ids) {
            let doc = &rec.path;
            let blob = rec
                .fingerprints
                .as_ref()
                .map(|f| to_blob(f, &place, format_args!("fingerprints of {doc}")))
                .transpose()?;
            prints
                .2
                .push(blob.as_deref().map(|b| u64_to_sql(blob_checksum(b))));
            prints.0.push(blob);
            prints
                .1
                .push((!rec.terms.is_empty()).then(|| terms_to_blob(&rec.terms)));
            if let Some(entry) = &rec.entry {
                entries.0.push(id);
                entries.1.push(to_blob(
                    entry,
                    &place,
                    format_args!("library entry of {doc}"),
                )?);
            }
            if let Some(found) = &rec.boilerplate {
                boilerplate.0.push(id);
                boilerplate.1.push(to_blob(
                    found,
                    &place,
                    format_args!("boilerplate of {doc}"),
                )?);
            }
            if let Some(StoredText(blob)) = &rec.text {
                texts.0.push(id);
                texts.1.push(blob.as_slice());
                texts.2.push(u64_to_sql(checksum(blob)));
            }
        }
        let statements: [(&str, &[&(dyn ToSql + Sync)]); 7] = [
            (
                "INSERT INTO document_prints (id, fingerprints, terms, checksum) \
                 SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[], $4::bigint[]) \
                 ON CONFLICT (id) DO UPDATE SET fingerprints = excluded.fingerprints, \
                 terms = excluded.terms, checksum = excluded.checksum",
                &[&ids, &prints.0, &prints.1, &prints.2],
            ),
            ("DELETE FROM document_entries WHERE id = ANY($1)", &[&ids]),
            (
                "INSERT INTO document_entries (id, entry) \
                 SELECT * FROM unnest($1::bigint[], $2::bytea[])",
                &[&entries.0, &entries.1],
            ),
            (
                "DELETE FROM document_boilerplate WHERE id = ANY($1)",
                &[&ids],
            ),
            (
                "INSERT INTO document_boilerplate (id, boilerplate) \
                 SELECT * FROM unnest($1::bigint[], $2::bytea[])",
                &[&boilerplate.0, &boilerplate.1],
            ),
            ("DELETE FROM document_texts WHERE id = ANY($1)", &[&ids]),
            (
                "INSERT INTO document_texts (id, text, checksum) \
                 SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bigint[])",
                &[&texts.0, &texts.1, &texts.2],
            ),
        ];
        for (sql, params) in statements {
            self.tx
                .execute(sql, params)
                .map_err(self.fail("write a batch of documents"))?;
        }

        // The pairs: what writing the documents, then the touched ones, one
        // by one would leave, worked out here and written at once.
        let unknown: Vec<&[u8]> =
            docs.iter()
                .flat_map(|(_, pairs)| pairs.iter().map(|(other, _)| other))
                .chain(touched.iter().flat_map(|(doc, pairs)| {
                    std::iter::once(doc).chain(pairs.iter().map(|p| &p.0))
                }))
                .map(DocPath::as_bytes)
                .filter(|path| !known.contains_key(*path))
                .collect();
        if !unknown.is_empty() {
            let found = self
                .tx
                .query(
                    "SELECT path, id FROM documents WHERE collection = $1 AND path = ANY($2)",
                    &[&collection, &unknown],
                )
                .map_err(self.fail("look up a batch's pairs"))?;
            known.extend(found.iter().map(|r| (r.get::<_, Vec<u8>>(0), r.get(1))));
        }
        let mut pairs = PairSet::default();
        let mut cleared = ids.clone();
        let writes =
            docs.iter()
                .zip(&ids)
                .map(|((rec, pairs), &id)| (&rec.path, id, pairs))
                .chain(touched.iter().filter_map(|(doc, pairs)| {
                    known.get(doc.as_bytes()).map(|&id| (doc, id, pairs))
                }));
        for (doc, id, listed) in writes {
            cleared.push(id);
            pairs.clear(id);
            for (other, scores) in listed {
                let other_id = match known.get(other.as_bytes()) {
                    Some(&o) if o != id => o,
                    Some(_) => {
                        return Err(StoreError::Invalid {
                            path: place,
                            reason: format!("document {doc} paired with itself"),
                        })
                    }
                    None => {
                        return Err(StoreError::Invalid {
                            path: place,
                            reason: format!(
                                "document {doc} paired with {other}, which is not in the index"
                            ),
                        })
                    }
                };
                pairs.insert(pair_row(id, other_id, scores));
            }
        }
        self.tx
            .execute(
                "DELETE FROM pairs WHERE a = ANY($1) OR b = ANY($1)",
                &[&cleared],
            )
            .map_err(self.fail("delete a batch's old pairs"))?;
        let (a, b, scores) = pairs.columns();
        self.tx
            .execute(
                "INSERT INTO pairs (a, b, scores) \
                 SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])",
                &[&a, &b, &scores],
            )
            .map_err(self.fail("write a batch's pairs"))?;
        Ok(ids.into_iter().map(RowId).collect())
    }
}

/// Pairs being worked out: each by its ids (smaller first), and each
/// document's partners, so a document's pairs can be replaced.
#[derive(Default)]
struct PairSet {
    scores: std::collections::BTreeMap<(i64, i64), Vec<u8>>,
    partners: HashMap<i64, Vec<i64>>,
}

impl PairSet {
    /// Forget every pair of `id`.
    fn clear(&mut self, id: i64) {
        for other in self.partners.remove(&id).unwrap_or_default() {
            self.scores.remove(&(id.min(other), id.max(other)));
            if let Some(list) = self.partners.get_mut(&other) {
                list.retain(|&o| o != id);
            }
        }
    }

    /// Add (or replace) the pair `(a, b, scores)`, `a < b`.
    fn insert(&mut self, (a, b, scores): (i64, i64, Vec<u8>)) {
        if self.scores.insert((a, b), scores).is_none() {
            self.partners.entry(a).or_default().push(b);
            self.partners.entry(b).or_default().push(a);
        }
    }

    /// The pairs as columns, for `unnest`.
    fn columns(self) -> (Vec<i64>, Vec<i64>, Vec<Vec<u8>>) {
        let mut columns = (Vec::new(), Vec::new(), Vec::new());
        for ((a, b), scores) in self.scores {
            columns.0.push(a);
            columns.1.push(b);
            columns.2.push(scores);
        }
        columns
    }
}
