//! The `meta` table in SQLite: one row per key (the values are
//! [`crate::Meta`]'s).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::error::Context;
use super::{MetaTable, Result, SqliteStore};

impl MetaTable for SqliteStore {
    fn meta(&self, key: &str) -> Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .ctx(&self.path, format_args!("read meta {key}"))
    }

    fn set_metas(&mut self, values: &[(&str, &str)]) -> Result<()> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin writing meta")?;
        for (key, value) in values {
            put_meta(&tx, path, key, value)?;
        }
        tx.commit().ctx(path, "commit meta")
    }

    fn meta_place(&self) -> PathBuf {
        self.path.clone()
    }
}

/// Write one `meta` row, on the store's connection or in a transaction.
pub(super) fn put_meta(conn: &Connection, path: &Path, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )
    .ctx(path, format_args!("write meta {key}"))?;
    Ok(())
}
