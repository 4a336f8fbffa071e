//! A `documents` row as any backend reads it, before its blobs are
//! decoded ([`RawDoc`]): each backend fills one from its own row type,
//! and the decoding (status, checksum, fingerprints, terms) is shared, as
//! is the list of documents whose stored fingerprints failed their
//! checksum ([`CorruptPrints`]): they read as missing, and the index reads
//! their files again.

use std::fmt::Display;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

use super::codec::{terms_from_blob, u64_from_sql};
use super::records::status_from_sql;
use super::{blob_checksum, DocRecord, DocStatus, Result, RowId, StoreError};
use doppel_core::doc::{DocPath, FileIdentity};
use doppel_core::engine::Fingerprints;
use doppel_pairing::keeper::{KeeperFacts, TextForm};

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
    /// The keeper facts' own columns: quality, words, text form.
    pub(super) keeper: (Option<f64>, Option<i64>, Option<String>),
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
        let status = status_from_sql(&self.status, self.reason).map_err(|e| err(e.to_string()))?;
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
        let keeper = match (&status, self.keeper) {
            (DocStatus::Indexed, (Some(quality), Some(words), Some(form))) => {
                let form = TextForm::from_name(&form)
                    .ok_or_else(|| err(format!("{form:?} is no text form")))?;
                Some(KeeperFacts {
                    quality,
                    form,
                    utf8: self.encoding.as_deref().is_some_and(KeeperFacts::is_utf8),
                    words: u64::try_from(words).unwrap_or(0),
                    modified_ns: self.identity.mtime_ns,
                })
            }
            _ => None,
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
                keeper,
                entry: None,
                boilerplate: None,
                text: None,
            },
            corrupt,
        ))
    }
}

/// A stored fingerprint blob and its checksum, as a backend reads them
/// (`None` for a document without fingerprints).
pub(crate) type StoredPrints = (Option<Vec<u8>>, Option<i64>);

/// The documents whose stored fingerprints failed their checksum since the
/// last [`CorruptPrints::take`]: each backend keeps one, notes every
/// corrupt blob it reads (and logs it), and the index reads those files
/// again.
#[derive(Default)]
pub(crate) struct CorruptPrints(Mutex<Vec<DocPath>>);

impl CorruptPrints {
    /// Note (and log) that `doc`'s fingerprints in `store` failed their checksum.
    pub(crate) fn note(&self, store: &dyn Display, doc: &DocPath) {
        tracing::warn!(store = %store, %doc, "stored fingerprints fail their checksum; the file will be read again");
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(doc.clone());
    }

    /// The documents noted since the last call.
    pub(crate) fn take(&self) -> Vec<DocPath> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The records of [`RawDoc::decode`], each corrupt one noted.
    pub(crate) fn noting(
        &self,
        store: &dyn Display,
        decoded: impl IntoIterator<Item = (DocRecord, bool)>,
    ) -> Vec<DocRecord> {
        decoded
            .into_iter()
            .map(|(record, corrupt)| {
                if corrupt {
                    self.note(store, &record.path);
                }
                record
            })
            .collect()
    }

    /// The fingerprints of `docs` from their stored blobs (`rows`, in the
    /// same order; `None` where a document has none), decoded in parallel.
    /// A blob that fails its checksum reads as `None` and is noted; one
    /// that passes it yet does not decode is an error naming `place`.
    pub(crate) fn decode_prints(
        &self,
        store: &dyn Display,
        place: &Path,
        rows: Vec<Option<StoredPrints>>,
        docs: &[&DocPath],
    ) -> Result<Vec<Option<Fingerprints>>> {
        /// Why a blob could not be used.
        enum Unusable {
            /// It does not match its checksum (or has none): read as missing.
            Checksum,
            /// It matches, yet does not decode: a real error.
            Decode(StoreError),
        }
        let decoded: Vec<std::result::Result<Option<Fingerprints>, Unusable>> = rows
            .into_par_iter()
            .zip(docs)
            .map(|(row, doc)| {
                let Some((Some(blob), checksum)) = row else {
                    return Ok(None);
                };
                if checksum.map(u64_from_sql) != Some(blob_checksum(&blob)) {
                    return Err(Unusable::Checksum);
                }
                postcard::from_bytes::<Fingerprints>(&blob)
                    .map(Some)
                    .map_err(|e| {
                        Unusable::Decode(StoreError::Decode {
                            path: place.to_path_buf(),
                            doc: doc.to_string(),
                            reason: format!("fingerprints do not decode: {e}"),
                        })
                    })
            })
            .collect();
        decoded
            .into_iter()
            .zip(docs)
            .map(|(result, doc)| match result {
                Ok(prints) => Ok(prints),
                Err(Unusable::Checksum) => {
                    self.note(store, doc);
                    Ok(None)
                }
                Err(Unusable::Decode(e)) => Err(e),
            })
            .collect()
    }
}
