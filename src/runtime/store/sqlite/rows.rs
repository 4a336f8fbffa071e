//! SQLite rows: reading a `documents` row ([`RawDoc`]), the statements
//! several tables share, and collecting a query's rows.

use rusqlite::{Connection, Params, Row};

use super::super::codec::u64_from_sql;
use super::super::raw::RawDoc;
use crate::doc::FileIdentity;

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
        })
    }
}
