//! What the store reads and writes: a document's row ([`DocRecord`]), its
//! library entry ([`DocEntry`]), listings and verdicts.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::codec::{terms_from_blob, u64_from_sql};
use super::{Result, StoreError};
use crate::doc::{CuratorVerdict, DocPath, FileIdentity};
use crate::engine::{Fingerprints, HotPrints, PairScores};
use crate::pairing::boilerplate::DocSamples;
use crate::pairing::candidates::DocKeys;
use crate::runtime::boilerplate::DocBoilerplate;

/// A document's row in one store: what its library entry and pairs are
/// stored by. Meaningful only to the store that gave it (an index keeps
/// it only while restoring or rewriting what is stored by row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowId(pub(super) i64);

/// Whether a file was fingerprinted or skipped (with the reason shown to the user).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocStatus {
    /// Read and fingerprinted.
    Indexed,
    /// Not a document.
    Skipped {
        /// Why, in words.
        reason: String,
    },
}

/// One file of the watched folder as the index knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRecord {
    /// The row id; `None` for a record not read from the store. Ignored by
    /// [`super::Store::upsert_document`], which keys on `path` and keeps the id of an
    /// existing row.
    pub id: Option<RowId>,
    /// The path relative to the root.
    pub path: DocPath,
    /// The file's `stat` identity when it was read.
    pub identity: FileIdentity,
    /// xxh3-64 of the file's bytes ([`super::content_hash`]).
    pub content_hash: u64,
    /// When the path was first indexed (unix ns); kept on update, so the
    /// earliest-seen member of a cluster can represent it.
    pub first_seen_ns: i64,
    /// Indexed, or skipped and why.
    pub status: DocStatus,
    /// The detected text encoding, if decoded.
    pub encoding: Option<String>,
    /// Every enabled algorithm's fingerprint (indexed documents).
    pub fingerprints: Option<Fingerprints>,
    /// The document's sorted, distinct term hashes (for collection statistics).
    pub terms: Vec<u64>,
    /// Number of distinct word shingles (the fusion containment guard).
    pub shingles: u32,
    /// What a library keeps of the document, under the configuration of
    /// the stored pairs (`None`: none stored). Written by
    /// [`super::Store::upsert_document`]; reading documents leaves it `None`
    /// ([`super::Store::document_entries`] reads them).
    pub entry: Option<DocEntry>,
    /// What the boilerplate learner read of the document and the
    /// boilerplate it was fingerprinted without (`None`: not learned
    /// from). Written by [`super::Store::upsert_document`]; reading
    /// documents leaves it `None` ([`super::Store::boilerplate`] reads it).
    pub boilerplate: Option<StoredBoilerplate>,
    /// The decoded text it was fingerprinted from, kept when it carries
    /// boilerplate (`None`: none kept). Written by
    /// [`super::Store::upsert_document`]; reading documents leaves it
    /// `None` ([`super::Store::kept_text`] reads it).
    pub text: Option<super::StoredText>,
}

/// A document's part in boilerplate learning, as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredBoilerplate {
    /// Its sampled shingles (the learner's input).
    pub samples: DocSamples,
    /// The boilerplate it was fingerprinted without.
    pub found: DocBoilerplate,
}

/// What a library keeps in memory of one document: its hot fingerprints
/// and its entries in the candidate tables. Stored beside the full
/// fingerprints so that reopening an index reads neither them nor derives
/// keys; valid while the stored pairs are (see
/// [`super::Store::pairs_hash`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    /// The fingerprints the cheap candidate checks read.
    pub hot: HotPrints,
    /// The document's slots in the candidate tables.
    pub keys: DocKeys,
}

/// The encoding of [`DocEntry`] (2: the hot MinHash sketch at 8 bits).
/// Part of the key stored pairs and entries are kept under (see
/// [`super::Store::pairs_hash`]): entries of another format are not read, the
/// library is verified again once and its entries written anew.
pub const ENTRY_FORMAT: u32 = 2;

/// The `status` and `reason` columns as a [`DocStatus`].
pub(super) fn status_from_sql(status: &str, reason: Option<String>) -> Result<DocStatus, String> {
    match status {
        "indexed" => Ok(DocStatus::Indexed),
        "skipped" => Ok(DocStatus::Skipped {
            reason: reason.unwrap_or_default(),
        }),
        other => Err(format!("unknown status {other:?}")),
    }
}

/// One row of [`super::Store::listing`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocSummary {
    /// The path relative to the root.
    pub path: DocPath,
    /// Length in bytes when it was read.
    pub size: u64,
    /// The detected text encoding, if decoded.
    pub encoding: Option<String>,
    /// Indexed, or skipped and why.
    pub status: DocStatus,
}

/// A candidate pair given to [`super::Store::upsert_document`]: the other
/// document's path and `engine.compare(this, other)`.
pub type PairUpdate = (DocPath, PairScores);

/// A stored pair verdict; `a < b` bytewise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairVerdictRecord {
    /// The first document (in byte order).
    pub a: DocPath,
    /// The second document.
    pub b: DocPath,
    /// What the curator decided.
    pub verdict: CuratorVerdict,
    /// When (unix ns).
    pub set_at_ns: i64,
}

/// A `documents` row before its blobs are decoded.
pub(super) struct RawDoc {
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
    pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
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
    pub(super) fn decode(self, store: &Path) -> Result<(DocRecord, bool)> {
        let err = |reason: String| StoreError::Decode {
            path: store.to_path_buf(),
            doc: DocPath::from_bytes(self.path.as_slice()).to_string(),
            reason,
        };
        let status = status_from_sql(&self.status, self.reason).map_err(err)?;
        let corrupt = self.fingerprints.as_deref().is_some_and(|blob| {
            self.checksum.map(u64_from_sql) != Some(super::blob_checksum(blob))
        });
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
