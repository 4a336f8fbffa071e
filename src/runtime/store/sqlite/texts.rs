//! The decoded texts of documents with boilerplate in SQLite
//! (`document_texts`; the blob and its checksum are [`StoredText`]'s).

use std::path::Path;

use rusqlite::{params, OptionalExtension};

use super::super::codec::{u64_from_sql, u64_to_sql};
use super::super::error::Context;
use super::super::texts::{checksum, KeptText, StoredText};
use super::super::Result;
use super::SqliteStore;
use crate::doc::DocPath;

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

impl SqliteStore {
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
        Ok(KeptText::unpack(
            &blob,
            u64_from_sql(sum),
            u64_from_sql(content_hash),
            encoding,
            &self.path,
            doc,
        ))
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
