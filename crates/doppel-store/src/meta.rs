//! The `meta` table's values, the same in every backend: the folder an
//! index is of, when it was last used, the configurations its fingerprints
//! and pairs were made under, and the curator's "not boilerplate"
//! overrules (a short JSON list: a few passages at most, so no table and
//! no schema change of their own). A backend gives [`MetaTable`] its raw
//! reads and writes; the typed values ([`Meta`]) are decoded here once,
//! for every backend.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{now_ns, Meta, OverruledPassage, Result, StoreError};
use doppel_core::doc::DocPath;

/// `meta` key of the folder an index is for: the hex of its raw path bytes.
const META_FOLDER: &str = "folder";

/// `meta` key of when a read-write open last used the index (unix ns).
const META_LAST_USED: &str = "last_used_ns";

/// `meta` key of the curator's overruled boilerplate passages (JSON).
pub(super) const META_OVERRULED: &str = "boilerplate_overruled";

/// `meta` key of the thresholds a curator saved for the whole team (JSON
/// [`SharedThresholds`]).
pub(super) const META_SHARED_THRESHOLDS: &str = "shared_thresholds";

/// The thresholds one curator saved for everyone reviewing the collection:
/// a team store's review screens and `watch` processes cluster by them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SharedThresholds {
    /// Who saved them.
    pub curator: String,
    /// When (unix ns).
    pub at_ns: i64,
    /// The thresholds, each in its algorithm's own unit.
    pub thresholds: doppel_core::engine::Thresholds,
}

/// A backend's `meta` table (keyed by its collection where it has
/// several): what [`Meta`]'s typed values are read from and written to.
pub(super) trait MetaTable {
    /// The value of `key`, if set.
    fn meta(&self, key: &str) -> Result<Option<String>>;

    /// Set each `(key, value)`, all in one transaction.
    fn set_metas(&mut self, values: &[(&str, &str)]) -> Result<()>;

    /// What a value that does not decode is reported against (the index
    /// file, or the database's address).
    fn meta_place(&self) -> PathBuf;
}

/// The typed values, the same for every backend's table.
impl<T: MetaTable> Meta for T {
    fn config_hash(&self) -> Result<Option<String>> {
        self.meta("config_hash")
    }

    fn set_config_hash(&mut self, hash: &str) -> Result<()> {
        self.set_metas(&[("config_hash", hash)])
    }

    fn pairs_hash(&self) -> Result<Option<String>> {
        self.meta("pairs_hash")
    }

    fn idf_generation(&self) -> Result<Option<u64>> {
        match self.meta("idf_generation")? {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| StoreError::Decode {
                path: self.meta_place(),
                doc: "(meta)".into(),
                reason: format!("idf_generation {v:?} is not a number"),
            }),
        }
    }

    fn set_idf_generation(&mut self, generation: u64) -> Result<()> {
        self.set_metas(&[("idf_generation", &generation.to_string())])
    }

    fn overruled_passages(&self) -> Result<Vec<OverruledPassage>> {
        match self.meta(META_OVERRULED)? {
            None => Ok(Vec::new()),
            Some(v) => serde_json::from_str(&v).map_err(|e| StoreError::Decode {
                path: self.meta_place(),
                doc: "(meta)".into(),
                reason: format!("{META_OVERRULED}: {e}"),
            }),
        }
    }

    fn set_overruled_passages(&mut self, passages: &[OverruledPassage]) -> Result<()> {
        let json = serde_json::to_string(passages).expect("plain data serializes");
        self.set_metas(&[(META_OVERRULED, &json)])
    }

    fn shared_thresholds(&self) -> Result<Option<SharedThresholds>> {
        let Some(v) = self.meta(META_SHARED_THRESHOLDS)? else {
            return Ok(None);
        };
        serde_json::from_str(&v)
            .map(Some)
            .map_err(|e| StoreError::Decode {
                path: self.meta_place(),
                doc: "(meta)".into(),
                reason: format!("{META_SHARED_THRESHOLDS}: {e}"),
            })
    }

    fn set_shared_thresholds(&mut self, shared: &SharedThresholds) -> Result<()> {
        let json = serde_json::to_string(shared).expect("plain data serializes");
        self.set_metas(&[(META_SHARED_THRESHOLDS, &json)])
    }

    fn folder(&self) -> Result<Option<PathBuf>> {
        let Some(value) = self.meta(META_FOLDER)? else {
            return Ok(None);
        };
        let key = hex::decode(&value).map_err(|e| StoreError::Decode {
            path: self.meta_place(),
            doc: "(meta)".into(),
            reason: format!("folder {value:?} is not hex: {e}"),
        })?;
        Ok(Some(DocPath::from_bytes(key).to_relative_path()))
    }

    fn last_used(&self) -> Result<Option<SystemTime>> {
        match self.meta(META_LAST_USED)? {
            None => Ok(None),
            Some(v) => v
                .parse::<u64>()
                .map(|ns| Some(UNIX_EPOCH + Duration::from_nanos(ns)))
                .map_err(|_| StoreError::Decode {
                    path: self.meta_place(),
                    doc: "(meta)".into(),
                    reason: format!("{META_LAST_USED} {v:?} is not a number"),
                }),
        }
    }

    fn record_use(&mut self, folder: &Path) -> Result<()> {
        let folder = hex::encode(DocPath::from_relative(folder).as_bytes());
        let now = now_ns().to_string();
        self.set_metas(&[(META_FOLDER, &folder), (META_LAST_USED, &now)])
    }
}
