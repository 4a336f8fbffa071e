//! A `documents` row as any backend reads it, before its blobs are
//! decoded ([`RawDoc`]): each backend fills one from its own row type,
//! and the decoding (status, checksum, fingerprints, terms) is shared.

use std::path::Path;

use super::codec::{terms_from_blob, u64_from_sql};
use super::records::status_from_sql;
use super::{blob_checksum, DocRecord, Result, RowId, StoreError};
use crate::doc::{DocPath, FileIdentity};
use crate::engine::Fingerprints;

/// A `documents` row before its blobs are decoded.
pub(crate) struct RawDoc {
    pub(super) id: i64,
    pub(super) path: Vec<u8>,
    pub(super) identity: FileIdentity,
    pub(super) content_hash: u64,
    pub(super) status: String,
    pub(super) reason: Option<String>,
    pub(super) encoding: Option<String>,
    pub(super) first_seen_ns: i64,
    pub(super) fingerprints: Option<Vec<u8>>,
    pub(super) terms: Option<Vec<u8>>,
    pub(super) shingles: u32,
    pub(super) checksum: Option<i64>,
}

impl RawDoc {
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
