//! Documents' decoded texts, kept compressed for the documents that carry
//! learned boilerplate (or a passage the curator overruled): a ruling on a
//! passage moves those documents' spans, and their bodies are fingerprinted
//! again from the stored text instead of the folder's files
//! ([`crate::runtime::index`]). The text is what the document was
//! fingerprinted from, so it agrees with the stored identity even if the
//! file has changed since (a changed file goes through the normal path).
//!
//! A blob is the zstd frame of the UTF-8 text, with an xxh3 checksum beside
//! it as the fingerprint blobs have; one that fails it, or does not
//! decompress to UTF-8, reads as missing (logged), and the index reads the
//! file instead.

use std::path::Path;

use rusqlite::{params, OptionalExtension};

use super::codec::{u64_from_sql, u64_to_sql};
use super::error::Context;
use super::{Result, Store};
use crate::doc::DocPath;

/// The zstd level texts are compressed at: the library's default, about a
/// third of English text at ~300 MB/s (higher levels gain a few percent
/// on one book at many times the time).
const LEVEL: i32 = 3;

/// The seed of a stored text's checksum (apart from the fingerprints').
const TEXT_CHECKSUM_SEED: u64 = 0x7e47_c0de;

/// A document's decoded text, compressed as the store keeps it.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredText(Vec<u8>);

impl StoredText {
    /// `text` compressed; `None` when the compressor fails (no memory):
    /// the document is then kept without its text, and read again if a
    /// ruling moves it.
    pub fn compress(text: &str) -> Option<Self> {
        zstd::bulk::compress(text.as_bytes(), LEVEL)
            .map(Self)
            .map_err(|e| tracing::warn!(error = %e, "could not compress a text to keep"))
            .ok()
    }

    /// Bytes kept.
    pub fn compressed_len(&self) -> usize {
        self.0.len()
    }
}

impl std::fmt::Debug for StoredText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoredText({} bytes compressed)", self.0.len())
    }
}

/// A kept text as read back, with what the document's row says of the
/// file it was decoded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptText {
    /// The decoded text.
    pub text: String,
    /// The hash of the file's bytes it was decoded from.
    pub content_hash: u64,
    /// The encoding it was decoded from.
    pub encoding: Option<String>,
}

/// The checksum stored beside a compressed text.
fn checksum(blob: &[u8]) -> u64 {
    crate::hash::hash64(blob, TEXT_CHECKSUM_SEED)
}

/// Write (or, with `None`, delete) document row `id`'s text inside `tx`.
pub(super) fn write_text_in(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    id: i64,
    doc: &DocPath,
    text: Option<&StoredText>,
) -> Result<()> {
    match text {
        Some(StoredText(blob)) => tx
            .prepare_cached(
                "INSERT OR REPLACE INTO document_texts (id, text, checksum) VALUES (?1, ?2, ?3)",
            )
            .and_then(|mut s| s.execute(params![id, blob, u64_to_sql(checksum(blob))])),
        None => tx
            .prepare_cached("DELETE FROM document_texts WHERE id = ?1")
            .and_then(|mut s| s.execute([id])),
    }
    .ctx(path, format_args!("write the text of {doc}"))?;
    Ok(())
}

impl Store {
    /// The decoded text `doc` was last fingerprinted from, if kept, with
    /// what its row says of the file it was decoded from. A blob that fails
    /// its checksum or does not decompress to UTF-8 is `None` (logged): the
    /// caller reads the file.
    pub fn kept_text(&self, doc: &DocPath) -> Result<Option<KeptText>> {
        let row: Option<(Vec<u8>, i64, i64, Option<String>)> = self
            .conn
            .prepare_cached(
                "SELECT t.text, t.checksum, d.content_hash, d.encoding FROM documents d \
                 JOIN document_texts t ON t.id = d.id WHERE d.path = ?1",
            )
            .and_then(|mut s| {
                s.query_row([doc.as_bytes()], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .optional()
            })
            .ctx(&self.path, format_args!("read the text of {doc}"))?;
        let Some((blob, sum, content_hash, encoding)) = row else {
            return Ok(None);
        };
        let problem = if u64_from_sql(sum) != checksum(&blob) {
            "fails its checksum".to_owned()
        } else {
            match zstd::stream::decode_all(blob.as_slice()).map(String::from_utf8) {
                Ok(Ok(text)) => {
                    return Ok(Some(KeptText {
                        text,
                        content_hash: u64_from_sql(content_hash),
                        encoding,
                    }))
                }
                Ok(Err(_)) => "is not UTF-8".to_owned(),
                Err(e) => format!("does not decompress: {e}"),
            }
        };
        tracing::warn!(store = %self.path.display(), %doc, "the stored text {problem}; the file will be read instead");
        Ok(None)
    }

    /// Documents with a kept text and the bytes kept, compressed.
    pub fn text_totals(&self) -> Result<(u64, u64)> {
        self.conn
            .query_row(
                "SELECT count(*), coalesce(sum(length(text)), 0) FROM document_texts",
                [],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
            )
            .ctx(&self.path, "count the kept texts")
    }
}
