//! Writing the decoded texts of documents with boilerplate in SQLite
//! (`document_texts`; the blob and its checksum are [`StoredText`]'s;
//! `boilerplate` reads them).

use std::path::Path;

use rusqlite::params;

use super::super::codec::u64_to_sql;
use super::super::error::Context;
use super::super::texts::{checksum, StoredText};
use super::super::Result;
use doppel_core::doc::DocPath;

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
