//! SQLite rows: a `documents` row read before its blobs are decoded, the
//! statements several tables share, and collecting a query's rows.

use std::path::Path;

use rusqlite::{Connection, Params, Row};

use super::super::codec::{terms_from_blob, u64_from_sql};
use super::super::records::status_from_sql;
use super::super::{blob_checksum, DocRecord, Result, RowId, StoreError};
use crate::doc::{DocPath, FileIdentity};
use crate::engine::Fingerprints;

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

/// Insert one pair: `(a, b, scores)` with a < b, see [`pair_row`].
pub(crate) const INSERT_PAIR: &str = "INSERT INTO pairs (a, b, scores) VALUES (?1, ?2, ?3)";

/// Insert or replace one document's library entry: `(id, entry)`.
pub(crate) const PUT_ENTRY: &str = "INSERT INTO document_entries (id, entry) VALUES (?1, ?2) \
     ON CONFLICT(id) DO UPDATE SET entry = excluded.entry";

/// A `documents` row before its blobs are decoded.
pub(crate) struct RawDoc {
    id: i64,
    path: Vec<u8>,
    identity: FileIdentity,
    content_hash: u64,
    status: String,
    reason: Option<String>,
    encoding: Option<String>,
    first_seen_ns: i64,
    fingerprints: Option<Vec<u8>>,
    terms: Option<Vec<u8>>,
    shingles: u32,
    checksum: Option<i64>,
}

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

    /// The record, and whether its fingerprint blob failed its checksum
    /// (its fingerprints are then `None`).
    pub(crate) fn decode(self, store: &Path) -> Result<(DocRecord, bool)> {
        let err = |reason: String| StoreError::Decode {
            path: store.to_path_buf(),
            doc: DocPath::from_bytes(self.path.as_slice()).to_string(),
            reason,
        };
        let status = status_from_sql(&self.status, self.reason).map_err(err)?;
        let corrupt = self
            .fingerprints
            .as_deref()
            .is_some_and(|blob| self.checksum.map(u64_from_sql) != Some(blob_checksum(blob)));
        let fingerprints = self
            .fingerprints
            .as_deref()
            .filter(|_| !corrupt)
            .map(postcard::from_bytes::<Fingerprints>)
            .transpose()
            .map_err(|e| err(format!("fingerprints do not decode: {e}")))?;
        let terms = match self.terms.as_deref() {
            None => Vec::new(),
            Some(blob) => terms_from_blob(blob).ok_or_else(|| {
                err(format!(
                    "terms blob of {} bytes is not a whole number of u64s",
                    blob.len()
                ))
            })?,
        };
        Ok((
            DocRecord {
                id: Some(RowId(self.id)),
                path: DocPath::from_bytes(self.path),
                identity: self.identity,
                content_hash: self.content_hash,
                first_seen_ns: self.first_seen_ns,
                status,
                encoding: self.encoding,
                fingerprints,
                terms,
                shingles: self.shingles,
                entry: None,
                boilerplate: None,
                text: None,
            },
            corrupt,
        ))
    }
}
