//! SQLite rows: reading a `documents` row ([`RawDoc`]), the statements
//! several tables share, collecting a query's rows, and reading a row for
//! each of many paths.

use rusqlite::{Connection, OptionalExtension, Params, Row};

use super::super::codec::u64_from_sql;
use super::super::raw::RawDoc;
use super::error::Context;
use super::{Result, SqliteStore};
use doppel_core::doc::{DocPath, FileIdentity};

/// Write document row `id`'s `blob` into a table of its own with `put`
/// (`?1` the id, `?2` the blob) or, with `None`, delete it with `delete`
/// (`?1`) unless the row is `bare`: new to the transaction, it has nothing
/// there.
pub(crate) fn put_or_delete(
    tx: &rusqlite::Transaction<'_>,
    (put, delete): (&str, &str),
    id: i64,
    blob: Option<Vec<u8>>,
    bare: bool,
) -> rusqlite::Result<usize> {
    match blob {
        Some(blob) => tx
            .prepare_cached(put)
            .and_then(|mut s| s.execute(rusqlite::params![id, blob])),
        None if bare => Ok(0),
        None => tx.prepare_cached(delete).and_then(|mut s| s.execute([id])),
    }
}

/// Fewest paths [`SqliteStore::rows_by_path`] reads in one walk of their
/// range.
const RANGE_READ_FROM: usize = 32;

/// What [`SqliteStore::rows_by_path`] reads for each path: `columns` of
/// `from` (which names `documents d`); `what` names it in errors.
#[derive(Clone, Copy)]
pub(super) struct PerPath<'a> {
    pub columns: &'a str,
    pub from: &'a str,
    pub what: &'a str,
}

impl PerPath<'_> {
    /// The query of one path (`?1`).
    fn of_one(&self) -> String {
        format!(
            "SELECT {} FROM {} WHERE d.path = ?1",
            self.columns, self.from
        )
    }

    /// The query of a path range (`?1` to `?2`), in path order, the path
    /// last.
    fn of_range(&self) -> String {
        format!(
            "SELECT {}, d.path FROM {} WHERE d.path BETWEEN ?1 AND ?2 ORDER BY d.path",
            self.columns, self.from
        )
    }
}

impl SqliteStore {
    /// The row `read` gives for each of `docs`, in order (`None` where
    /// there is none). Paths in ascending order that are most of
    /// the range they span (a fresh index pairs its documents in path
    /// order, a slice at a time) are read in one walk of that range; other
    /// paths one query each. The reads share one read transaction (unless
    /// the caller's is open): each query on its own would take and drop the
    /// file's shared lock and the WAL's read mark (at 110k texts, pairing's
    /// 373k reads back spent ~1 s of system time on them).
    pub(super) fn rows_by_path<T>(
        &self,
        read: PerPath<'_>,
        docs: &[&DocPath],
        row: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<Option<T>>> {
        let what = read.what;
        let reading = if self.conn.is_autocommit() && docs.len() > 1 {
            Some(
                self.conn
                    .unchecked_transaction()
                    .ctx(&self.path, format_args!("begin the read of {what}"))?,
            )
        } else {
            None
        };
        let rows = match self.fills_its_range(docs, what)? {
            true => self.rows_in_range(read, docs, row),
            false => {
                let mut stmt = self.statement(&read.of_one(), what)?;
                docs.iter()
                    .map(|doc| {
                        stmt.query_row([doc.as_bytes()], &row)
                            .optional()
                            .ctx(&self.path, format_args!("read {what} of {doc}"))
                    })
                    .collect()
            }
        };
        // A read: ending it by rolling back (on drop) loses nothing.
        drop(reading);
        rows
    }

    /// `sql`, prepared once per connection, to read `what`.
    fn statement(&self, sql: &str, what: &str) -> Result<rusqlite::CachedStatement<'_>> {
        self.conn
            .prepare_cached(sql)
            .ctx(&self.path, format_args!("prepare the read of {what}"))
    }

    /// Whether `docs` are many, in ascending order, and at least half of
    /// the indexed paths in the range they span (counted no further than
    /// that needs).
    fn fills_its_range(&self, docs: &[&DocPath], what: &str) -> Result<bool> {
        if docs.len() < RANGE_READ_FROM || !docs.windows(2).all(|w| w[0] < w[1]) {
            return Ok(false);
        }
        let (first, last) = (docs[0].as_bytes(), docs[docs.len() - 1].as_bytes());
        let most = 2 * docs.len() as i64;
        let within: i64 = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM \
                 (SELECT 1 FROM documents WHERE path BETWEEN ?1 AND ?2 LIMIT ?3)",
            )
            .and_then(|mut s| s.query_row(rusqlite::params![first, last, most + 1], |r| r.get(0)))
            .ctx(
                &self.path,
                format_args!("count the paths to read {what} of"),
            )?;
        Ok(within <= most)
    }

    /// [`SqliteStore::rows_by_path`] for `docs` in ascending order: the
    /// rows of their path range in path order (the path read last, after
    /// `row`'s columns), matched to them.
    fn rows_in_range<T>(
        &self,
        read: PerPath<'_>,
        docs: &[&DocPath],
        row: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<Option<T>>> {
        let what = read.what;
        let mut stmt = self.statement(&read.of_range(), what)?;
        let path_column = stmt.column_count() - 1;
        let (first, last) = (docs[0].as_bytes(), docs[docs.len() - 1].as_bytes());
        let mut rows = stmt
            .query(rusqlite::params![first, last])
            .ctx(&self.path, format_args!("read {what}"))?;
        let mut found: Vec<Option<T>> = Vec::with_capacity(docs.len());
        while let Some(r) = rows.next().ctx(&self.path, format_args!("read {what}"))? {
            let path = r
                .get_ref(path_column)
                .and_then(|v| Ok(v.as_blob()?))
                .ctx(&self.path, format_args!("read {what}"))?;
            // Paths asked for that no row has come before this one.
            while found.len() < docs.len() && docs[found.len()].as_bytes() < path {
                found.push(None);
            }
            if found.len() < docs.len() && docs[found.len()].as_bytes() == path {
                let doc = docs[found.len()];
                found.push(Some(
                    row(r).ctx(&self.path, format_args!("read {what} of {doc}"))?,
                ));
            }
        }
        found.resize_with(docs.len(), || None);
        Ok(found)
    }
}

/// Run a (cached) query and collect every row.
pub(crate) fn collect_rows<T, P: Params>(
    conn: &Connection,
    sql: &str,
    params: P,
    f: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params, f)?;
    rows.collect()
}

/// A `pair_verdicts` row: `(a, b, curator, verdict, set_at_ns)`.
pub(crate) type VerdictRow = (Vec<u8>, Vec<u8>, String, String, i64);

/// Insert one pair: `(a, b, scores)` with a < b, see [`pair_row`].
pub(crate) const INSERT_PAIR: &str = "INSERT INTO pairs (a, b, scores) VALUES (?1, ?2, ?3)";

/// Insert or replace one document's library entry: `(id, entry)`.
pub(crate) const PUT_ENTRY: &str = "INSERT INTO document_entries (id, entry) VALUES (?1, ?2) \
     ON CONFLICT(id) DO UPDATE SET entry = excluded.entry";

impl RawDoc {
    pub(crate) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
        Ok(RawDoc {
            id: r.get(0)?,
            path: r.get(1)?,
            identity: FileIdentity {
                size: u64_from_sql(r.get(2)?),
                mtime_ns: r.get(3)?,
                ctime_ns: r.get(4)?,
                inode: u64_from_sql(r.get(5)?),
                dev: u64_from_sql(r.get(6)?),
            },
            content_hash: u64_from_sql(r.get(7)?),
            status: r.get(8)?,
            reason: r.get(9)?,
            encoding: r.get(10)?,
            first_seen_ns: r.get(11)?,
            fingerprints: r.get(12)?,
            terms: r.get(13)?,
            shingles: r.get(14)?,
            checksum: r.get(15)?,
            keeper: (r.get(16)?, r.get(17)?, r.get(18)?),
        })
    }
}
