//! Each document's part in boilerplate learning in SQLite: its learner
//! samples packed beside its fingerprints (`document_prints.samples`,
//! written in the same row), and what it was fingerprinted without
//! (`document_boilerplate`, a row only for a document with boilerplate).
//!
//! Beside them, the decoded texts kept of documents with boilerplate
//! (`document_texts`, written by `texts`).
//!
//! Every learning document has samples; few have boilerplate. A row of
//! their own for every document's samples and empty findings was a third
//! of a fresh index's blob bytes and the write of a row a document, and
//! the boilerplate report read them all to find the few with spans.

use std::path::Path;

use rayon::prelude::*;
use rusqlite::{params, OptionalExtension};

use super::codec::{samples_from_blob, samples_to_blob, to_blob, u64_from_sql, Undecodable};
use super::error::Context;
use super::rows::{collect_rows, put_or_delete};
use super::{Result, SqliteStore, StoreError, StoredBoilerplate};
use crate::{Boilerplate, KeptText};
use doppel_core::doc::DocPath;

/// A document's two blobs: its packed samples (for `document_prints`),
/// and its findings when it has boilerplate (for `document_boilerplate`).
pub(super) struct Blobs {
    pub samples: Option<Vec<u8>>,
    pub found: Option<Vec<u8>>,
}

/// `stored`'s [`Blobs`].
pub(super) fn blobs_of(
    stored: Option<&StoredBoilerplate>,
    path: &Path,
    doc: &DocPath,
) -> Result<Blobs> {
    let Some(stored) = stored else {
        return Ok(Blobs {
            samples: None,
            found: None,
        });
    };
    let found = stored
        .has_boilerplate()
        .then(|| to_blob(&stored.found, path, format_args!("boilerplate of {doc}")))
        .transpose()?;
    Ok(Blobs {
        samples: Some(samples_to_blob(&stored.samples)),
        found,
    })
}

/// Write (or, with `None`, delete unless the row is `bare`: new to the
/// transaction) document row `id`'s findings inside `tx`.
pub(super) fn write_found_in(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    id: i64,
    doc: &DocPath,
    found: Option<Vec<u8>>,
    bare: bool,
) -> Result<()> {
    let sql = (
        "INSERT OR REPLACE INTO document_boilerplate (id, boilerplate) VALUES (?1, ?2)",
        "DELETE FROM document_boilerplate WHERE id = ?1",
    );
    put_or_delete(tx, sql, id, found, bare)
        .ctx(path, format_args!("write boilerplate of {doc}"))?;
    Ok(())
}

/// A document's part in learning from its stored blobs (`None`: it takes
/// no part), or why it does not decode.
fn decode(
    samples: Option<&[u8]>,
    found: Option<&[u8]>,
) -> Result<Option<StoredBoilerplate>, Undecodable> {
    let Some(samples) = samples else {
        return Ok(None);
    };
    let mut stored = StoredBoilerplate::without_boilerplate(samples_from_blob(samples)?);
    if let Some(blob) = found {
        stored.found = postcard::from_bytes(blob).map_err(Undecodable::Boilerplate)?;
    }
    Ok(Some(stored))
}

/// Every learning document's samples and findings (the path, samples and
/// findings as `d.path`, `p.samples`, `b.boilerplate`), to be narrowed by
/// a `WHERE`.
const SELECT_PARTS: &str = "SELECT d.path, p.samples, b.boilerplate FROM documents d \
     JOIN document_prints p ON p.id = d.id \
     LEFT JOIN document_boilerplate b ON b.id = d.id";

/// Those of [`SELECT_PARTS`] with boilerplate, by path: the few rows of
/// `document_boilerplate` lead (`CROSS JOIN` keeps them the outer loop,
/// where the path's order would have the planner walk every document).
const SELECT_FOUND: &str = "SELECT d.path, p.samples, b.boilerplate FROM document_boilerplate b \
     CROSS JOIN documents d ON d.id = b.id \
     CROSS JOIN document_prints p ON p.id = b.id \
     WHERE p.samples IS NOT NULL ORDER BY d.path";

type PartRow = (Vec<u8>, Option<Vec<u8>>, Option<Vec<u8>>);

impl SqliteStore {
    /// The parts `sql` (path, samples, findings) reads, decoded in parallel.
    fn parts(&self, sql: &str) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        let rows: Vec<PartRow> = collect_rows(&self.conn, sql, [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .ctx(&self.path, "read boilerplate")?;
        let store = self.path.as_path();
        rows.into_par_iter()
            .filter_map(|(doc, samples, found)| {
                let doc = DocPath::from_bytes(doc);
                match decode(samples.as_deref(), found.as_deref()) {
                    Ok(stored) => stored.map(|s| Ok((doc, s))),
                    Err(reason) => Some(Err(StoreError::Decode {
                        path: store.to_path_buf(),
                        doc: doc.to_string(),
                        reason: reason.to_string(),
                    })),
                }
            })
            .collect()
    }
}

impl Boilerplate for SqliteStore {
    fn boilerplate_of(&self, doc: &DocPath) -> Result<Option<StoredBoilerplate>> {
        let row: Option<PartRow> = self
            .conn
            .prepare_cached(&format!("{SELECT_PARTS} WHERE d.path = ?1"))
            .and_then(|mut s| {
                s.query_row([doc.as_bytes()], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
            })
            .ctx(&self.path, format_args!("read boilerplate of {doc}"))?;
        let Some((_, samples, found)) = row else {
            return Ok(None);
        };
        decode(samples.as_deref(), found.as_deref()).map_err(|reason| StoreError::Decode {
            path: self.path.clone(),
            doc: doc.to_string(),
            reason: reason.to_string(),
        })
    }

    fn boilerplate(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        self.parts(&format!(
            "{SELECT_PARTS} WHERE p.samples IS NOT NULL ORDER BY d.path"
        ))
    }

    fn boilerplate_found(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        self.parts(SELECT_FOUND)
    }

    fn kept_text(&self, doc: &DocPath) -> Result<Option<KeptText>> {
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

    fn text_totals(&self) -> Result<(u64, u64)> {
        self.conn
            .query_row(
                "SELECT count(*), coalesce(sum(length(text)), 0) FROM document_texts",
                [],
                |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
            )
            .ctx(&self.path, "count the kept texts")
    }
}

/// Schema 7's move, inside the migration's transaction: each
/// `document_boilerplate` row of before (samples and findings in one
/// postcard blob) has its samples packed into `document_prints`, and stays
/// only if its document has boilerplate. A row that does not decode goes:
/// its document then takes no part in learning until its file is read
/// again.
pub(super) fn split_rows_of_schema_6(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    let rows: Vec<(i64, Vec<u8>)> = collect_rows(
        conn,
        "SELECT id, boilerplate FROM document_boilerplate",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut set_samples = conn.prepare("UPDATE document_prints SET samples = ?2 WHERE id = ?1")?;
    let mut set_found =
        conn.prepare("UPDATE document_boilerplate SET boilerplate = ?2 WHERE id = ?1")?;
    let mut drop_found = conn.prepare("DELETE FROM document_boilerplate WHERE id = ?1")?;
    for (id, blob) in rows {
        let Ok(stored) = postcard::from_bytes::<StoredBoilerplate>(&blob) else {
            drop_found.execute([id])?;
            continue;
        };
        set_samples.execute(params![id, samples_to_blob(&stored.samples)])?;
        match stored.has_boilerplate() {
            true => set_found.execute(params![
                id,
                postcard::to_allocvec(&stored.found).expect("findings serialize")
            ])?,
            false => drop_found.execute([id])?,
        };
    }
    Ok(())
}
