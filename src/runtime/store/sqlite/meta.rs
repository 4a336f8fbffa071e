//! The `meta` table: the folder an index is of, when it was last used,
//! the configurations its fingerprints and pairs were made under, and the
//! curator's "not boilerplate" overrules (a short JSON list: a few passages
//! at most, so no table and no schema change of their own).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::error::Context;
use super::{now_ns, OverruledPassage, Result, SqliteStore, StoreError};
use crate::doc::DocPath;

/// `meta` key of the folder an index is for: the hex of its raw path bytes.
const META_FOLDER: &str = "folder";

/// `meta` key of when a read-write open last used the index (unix ns).
const META_LAST_USED: &str = "last_used_ns";

/// `meta` key of the curator's overruled boilerplate passages (JSON).
const META_OVERRULED: &str = "boilerplate_overruled";

impl SqliteStore {
    fn meta(&self, key: &str) -> Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .ctx(&self.path, format_args!("read meta {key}"))
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<()> {
        put_meta(&self.conn, &self.path, key, value)
    }

    /// The engine configuration the stored fingerprints were made with
    /// (see [`super::engine_config_hash`]); `None` for a fresh index. When it differs
    /// from the running configuration, re-fingerprint and then set it.
    pub fn config_hash(&self) -> Result<Option<String>> {
        self.meta("config_hash")
    }

    /// Record the engine configuration the stored fingerprints are made
    /// with from now on (see [`SqliteStore::config_hash`]).
    pub fn set_config_hash(&mut self, hash: &str) -> Result<()> {
        self.set_meta("config_hash", hash)
    }

    /// The configuration the stored pairs were kept under (floors,
    /// candidate settings and the fingerprints' configuration); when it
    /// matches the current one, the pairs can be loaded instead of verified
    /// again. Empty when the stored pairs are known to be out of date.
    pub fn pairs_hash(&self) -> Result<Option<String>> {
        self.meta("pairs_hash")
    }

    /// The generation of the IDF weights the stored IDF-dependent
    /// fingerprints were made with (`None` until set).
    pub fn idf_generation(&self) -> Result<Option<u64>> {
        match self.meta("idf_generation")? {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| StoreError::Decode {
                path: self.path.clone(),
                doc: "(meta)".into(),
                reason: format!("idf_generation {v:?} is not a number"),
            }),
        }
    }

    /// Record the generation of the IDF weights (see
    /// [`SqliteStore::idf_generation`]).
    pub fn set_idf_generation(&mut self, generation: u64) -> Result<()> {
        self.set_meta("idf_generation", &generation.to_string())
    }

    /// The passages the curator overruled, in the order they were.
    pub fn overruled_passages(&self) -> Result<Vec<OverruledPassage>> {
        match self.meta(META_OVERRULED)? {
            None => Ok(Vec::new()),
            Some(v) => serde_json::from_str(&v).map_err(|e| StoreError::Decode {
                path: self.path.clone(),
                doc: "(meta)".into(),
                reason: format!("{META_OVERRULED}: {e}"),
            }),
        }
    }

    /// Record the overruled passages (replacing the list).
    pub fn set_overruled_passages(&mut self, passages: &[OverruledPassage]) -> Result<()> {
        let json = serde_json::to_string(passages).expect("plain data serializes");
        self.set_meta(META_OVERRULED, &json)
    }

    /// The canonical folder this index was made for; `None` for an index
    /// written before doppel recorded it (the next [`SqliteStore::record_use`]
    /// does).
    pub fn folder(&self) -> Result<Option<PathBuf>> {
        let Some(value) = self.meta(META_FOLDER)? else {
            return Ok(None);
        };
        let key = hex::decode(&value).map_err(|e| StoreError::Decode {
            path: self.path.clone(),
            doc: "(meta)".into(),
            reason: format!("folder {value:?} is not hex: {e}"),
        })?;
        Ok(Some(DocPath::from_bytes(key).to_relative_path()))
    }

    /// When a read-write open last used this index (see
    /// [`SqliteStore::record_use`]); `None` before doppel recorded it.
    pub fn last_used(&self) -> Result<Option<SystemTime>> {
        match self.meta(META_LAST_USED)? {
            None => Ok(None),
            Some(v) => v
                .parse::<u64>()
                .map(|ns| Some(UNIX_EPOCH + Duration::from_nanos(ns)))
                .map_err(|_| StoreError::Decode {
                    path: self.path.clone(),
                    doc: "(meta)".into(),
                    reason: format!("{META_LAST_USED} {v:?} is not a number"),
                }),
        }
    }

    /// Record, in one transaction, that this index is `folder`'s (its
    /// canonical path, kept as raw bytes so any name round-trips) and that
    /// it is used now.
    pub fn record_use(&mut self, folder: &Path) -> Result<()> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin recording the folder")?;
        put_meta(
            &tx,
            path,
            META_FOLDER,
            &hex::encode(DocPath::from_relative(folder).as_bytes()),
        )?;
        put_meta(&tx, path, META_LAST_USED, &now_ns().to_string())?;
        tx.commit().ctx(path, "commit the folder")
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
