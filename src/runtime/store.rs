//! The persistent index: one SQLite file per watched folder, outside it.
//!
//! A [`Store`] keeps what the watcher and worker need to resume without
//! re-reading the folder: one row per file (keyed by the raw bytes of its
//! path relative to the root, so non-UTF-8 names stay distinct), with its
//! stat identity, content hash and status; beside it, in tables of their
//! own, its fingerprints (with room for its sorted unique terms, which
//! would rebuild collection statistics without the files; the folder index
//! weighs terms by the pinned IDF table and stores none) and its library
//! entry (what a library keeps in memory of it, so reopening reads
//! neither); the scores of candidate pairs; and the curator's verdicts,
//! keyed by path so they survive re-indexing and rescans; in `meta`, the
//! folder the index is of and when it was last used
//! ([`Store::record_use`]). Every change to one file is one `BEGIN
//! IMMEDIATE` transaction ([`Store::upsert_document`],
//! [`Store::remove_document`]), so a crash
//! leaves each file either fully old or fully new; the next start
//! reconciles the store with the disk through [`Store::stat_index`].
//!
//! [`Store::open`] creates the folder and file, sets WAL with
//! `synchronous=NORMAL` (ingest can be redone from the folder; verdict writes
//! switch to `FULL` for their commit), foreign keys and a busy timeout, and
//! checks the file is ours: a file that is not a database, is corrupt, belongs
//! to another application (`PRAGMA application_id`) or has a schema version
//! this build does not know is moved aside to `<name>.corrupt-<unix-seconds>`
//! (with its `-wal`/`-shm`) and a fresh index is created; [`OpenReport`] says
//! so. Nothing but the store file and its SQLite companions is ever renamed.
//! [`Store::open_checking_in_background`] runs the corruption check (`PRAGMA
//! quick_check`, which reads the whole file) beside the caller's load of a
//! large index; the caller writes nothing until it has passed.
//!
//! On-disk encodings (all part of [`SCHEMA_VERSION`]):
//! - u64 values (sizes, inodes, devices, hashes) are stored in INTEGER
//!   columns as the two's-complement bit pattern (`v as i64`, read back with
//!   `as u64`), so `u64::MAX` is stored as -1 and round-trips exactly; SQL
//!   comparisons on these columns are therefore signed.
//! - `fingerprints` is the postcard encoding of [`Fingerprints`]; postcard is
//!   positional, so any change to a fingerprint type changes the format.
//!   [`engine_config_hash`] includes the crate version so a new build
//!   re-fingerprints instead of misreading old blobs.
//! - `terms` is the sorted unique term hashes as little-endian u64s.
//! - `document_entries.entry` is the postcard encoding of [`DocEntry`].
//! - `pairs.scores` is the postcard encoding of a private mirror of
//!   [`PairScores`] keyed by the algorithms' stable names, oriented from the
//!   pair's `a` (smaller id) to `b`.

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use rusqlite::{
    params, Connection, ErrorCode, OpenFlags, OptionalExtension, Params, Row, TransactionBehavior,
};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::engine::algo::{AlgorithmId, Score};
use crate::engine::{EngineConfig, Fingerprints, HotPrints, PairScores};
use crate::hash::hash64;
use crate::pairing::candidates::DocKeys;

/// `PRAGMA application_id` of a doppel index ("dopp").
pub const APPLICATION_ID: i32 = 0x646f_7070;

/// `PRAGMA user_version` of the schema this build writes and reads (2:
/// fingerprints apart from `documents`, and stored library entries).
pub const SCHEMA_VERSION: i32 = 2;

/// `meta` key of the folder an index is for: the hex of its [`path_key`].
const META_FOLDER: &str = "folder";

/// `meta` key of when a read-write open last used the index (unix ns).
const META_LAST_USED: &str = "last_used_ns";

/// How long a statement waits for another connection's lock before failing
/// with `SQLITE_BUSY`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE documents (
    id            INTEGER PRIMARY KEY,
    path          BLOB NOT NULL UNIQUE,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    ctime_ns      INTEGER NOT NULL,
    inode         INTEGER NOT NULL,
    dev           INTEGER NOT NULL,
    content_hash  INTEGER NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('indexed', 'skipped')),
    reason        TEXT,
    encoding      TEXT,
    first_seen_ns INTEGER NOT NULL,
    shingles      INTEGER NOT NULL DEFAULT 0,
    CHECK ((status = 'skipped') = (reason IS NOT NULL))
) STRICT;

CREATE TABLE document_prints (
    id           INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    fingerprints BLOB,
    terms        BLOB
) STRICT;

CREATE TABLE document_entries (
    id    INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    entry BLOB NOT NULL
) STRICT;

CREATE TABLE pairs (
    a      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    b      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    scores BLOB NOT NULL,
    PRIMARY KEY (a, b),
    CHECK (a < b)
) STRICT, WITHOUT ROWID;
CREATE INDEX pairs_by_b ON pairs(b);

CREATE TABLE pair_verdicts (
    a         BLOB NOT NULL,
    b         BLOB NOT NULL,
    verdict   TEXT NOT NULL CHECK (verdict IN ('duplicate', 'not-duplicate')),
    set_at_ns INTEGER NOT NULL,
    PRIMARY KEY (a, b),
    CHECK (a < b)
) STRICT, WITHOUT ROWID;

CREATE TABLE doc_verdicts (
    path      BLOB PRIMARY KEY,
    verdict   TEXT NOT NULL CHECK (verdict IN ('keep')),
    set_at_ns INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
";

const DOC_COLUMNS: &str = "d.id, d.path, d.size, d.mtime_ns, d.ctime_ns, d.inode, d.dev, \
     d.content_hash, d.status, d.reason, d.encoding, d.first_seen_ns, p.fingerprints, p.terms, \
     d.shingles";

/// The tables [`DOC_COLUMNS`] reads.
const DOC_FROM: &str = "documents d LEFT JOIN document_prints p ON p.id = d.id";

// ---------------------------------------------------------------------------
// Errors

/// A store failure; every variant names the index file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused an operation.
    #[error("index {}: {context}: {error}", path.display())]
    Sqlite {
        path: PathBuf,
        context: String,
        error: rusqlite::Error,
    },
    /// A file-system operation on the index or its folder failed.
    #[error("index {}: {context}: {error}", path.display())]
    Io {
        path: PathBuf,
        context: String,
        error: std::io::Error,
    },
    /// A stored value does not decode (written by another build, or damaged).
    #[error("index {}: document {doc}: {reason}", path.display())]
    Decode {
        path: PathBuf,
        doc: String,
        reason: String,
    },
    /// The call itself was invalid (e.g. a pair with a path not in the index).
    #[error("index {}: {reason}", path.display())]
    Invalid { path: PathBuf, reason: String },
    /// The file is not a usable doppel index and was opened read-only, so it
    /// was left alone.
    #[error("index {}: {problem}", path.display())]
    NotAnIndex { path: PathBuf, problem: OpenProblem },
    /// No platform data directory (no home directory).
    #[error("no data directory for doppel's index (is $HOME set?); give an index path explicitly")]
    NoDataDir,
    /// The watched folder cannot be resolved.
    #[error("folder {}: {error}", root.display())]
    Root {
        root: PathBuf,
        error: std::io::Error,
    },
    /// The index would live inside the folder doppel reads (W14).
    #[error(
        "index {} is inside the watched folder {}; doppel never writes there, \
         so choose an index path outside it",
        store.display(),
        root.display()
    )]
    InsideRoot { store: PathBuf, root: PathBuf },
}

impl StoreError {
    fn sqlite_code(&self) -> Option<ErrorCode> {
        match self {
            StoreError::Sqlite { error, .. } => error.sqlite_error_code(),
            _ => None,
        }
    }

    /// The disk or the index's page limit is full (`SQLITE_FULL`); the
    /// failed transaction was rolled back.
    pub fn is_storage_full(&self) -> bool {
        self.sqlite_code() == Some(ErrorCode::DiskFull)
    }

    /// Another connection held the lock longer than [`BUSY_TIMEOUT`]; retry.
    pub fn is_busy(&self) -> bool {
        matches!(
            self.sqlite_code(),
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
        )
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

trait Context<T> {
    fn ctx(self, path: &Path, context: impl fmt::Display) -> Result<T>;
}

impl<T> Context<T> for rusqlite::Result<T> {
    fn ctx(self, path: &Path, context: impl fmt::Display) -> Result<T> {
        self.map_err(|error| StoreError::Sqlite {
            path: path.to_path_buf(),
            context: context.to_string(),
            error,
        })
    }
}

// ---------------------------------------------------------------------------
// Records

/// What `stat` says about a file: enough to tell, without reading it, whether
/// it may have changed (size, mtime, ctime) or moved (inode, device).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FileIdentity {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
    pub dev: u64,
}

impl FileIdentity {
    /// The identity of a file from its metadata (`lstat` or `fstat`).
    #[cfg(unix)]
    pub fn from_metadata(meta: &fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        Self {
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
            dev: meta.dev(),
        }
    }

    /// The identity of a file from its metadata (no inode off unix).
    #[cfg(not(unix))]
    pub fn from_metadata(meta: &fs::Metadata) -> Self {
        let ns = |t: std::io::Result<SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        };
        Self {
            size: meta.len(),
            mtime_ns: ns(meta.modified()),
            ctime_ns: ns(meta.created()),
            inode: 0,
            dev: 0,
        }
    }
}

/// Whether a file was fingerprinted or skipped (with the reason shown to the user).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocStatus {
    Indexed,
    Skipped { reason: String },
}

/// One file of the watched folder as the index knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRecord {
    /// The row id; `None` for a record not read from the store. Ignored by
    /// [`Store::upsert_document`], which keys on `path` and keeps the id of an
    /// existing row.
    pub id: Option<i64>,
    /// Raw bytes of the path relative to the root ([`path_key`]).
    pub path: Vec<u8>,
    pub identity: FileIdentity,
    /// xxh3-64 of the file's bytes ([`content_hash`]).
    pub content_hash: u64,
    /// When the path was first indexed (unix ns); kept on update, so the
    /// earliest-seen member of a cluster can represent it.
    pub first_seen_ns: i64,
    pub status: DocStatus,
    /// The detected text encoding, if decoded.
    pub encoding: Option<String>,
    pub fingerprints: Option<Fingerprints>,
    /// The document's sorted, distinct term hashes (for collection statistics).
    pub terms: Vec<u64>,
    /// Number of distinct word shingles (the fusion containment guard).
    pub shingles: u32,
    /// What a library keeps of the document, under the configuration of
    /// the stored pairs (`None`: none stored). Written by
    /// [`Store::upsert_document`]; reading documents leaves it `None`
    /// ([`Store::document_entries`] reads them).
    pub entry: Option<DocEntry>,
}

/// What a library keeps in memory of one document: its hot fingerprints
/// and its entries in the candidate index. Stored beside the full
/// fingerprints so that reopening an index reads neither them nor derives
/// keys; valid while the stored pairs are (see
/// [`Store::pairs_hash`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocEntry {
    pub hot: HotPrints,
    pub keys: DocKeys,
}

/// The encoding of [`DocEntry`] (2: the hot MinHash sketch at 8 bits).
/// Part of the key stored pairs and entries are kept under (see
/// [`Store::pairs_hash`]): entries of another format are not read, the
/// library is verified again once and its entries written anew.
pub const ENTRY_FORMAT: u32 = 2;

/// The `status` and `reason` columns as a [`DocStatus`].
fn status_from_sql(status: &str, reason: Option<String>) -> Result<DocStatus, String> {
    match status {
        "indexed" => Ok(DocStatus::Indexed),
        "skipped" => Ok(DocStatus::Skipped {
            reason: reason.unwrap_or_default(),
        }),
        other => Err(format!("unknown status {other:?}")),
    }
}

/// One row of [`Store::listing`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocSummary {
    pub path: Vec<u8>,
    pub size: u64,
    pub encoding: Option<String>,
    pub status: DocStatus,
}

/// A candidate pair given to [`Store::upsert_document`]: the other
/// document's path and `engine.compare(this, other)`.
pub type PairUpdate = (Vec<u8>, PairScores);

/// A curator's verdict on a pair of paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairVerdict {
    Duplicate,
    NotDuplicate,
}

impl PairVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            PairVerdict::Duplicate => "duplicate",
            PairVerdict::NotDuplicate => "not-duplicate",
        }
    }
}

/// A stored pair verdict; `a < b` bytewise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairVerdictRecord {
    pub a: Vec<u8>,
    pub b: Vec<u8>,
    pub verdict: PairVerdict,
    pub set_at_ns: i64,
}

/// Why an existing file at the index path could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenProblem {
    /// SQLite says it is not a database (garbage, a text file, a truncated header).
    NotADatabase { detail: String },
    /// A database that fails `PRAGMA quick_check` or reports corruption.
    Corrupt { detail: String },
    /// Another application's SQLite database.
    Foreign { application_id: i32 },
    /// A doppel index with a schema this build does not know.
    UnknownSchema { version: i32 },
}

impl fmt::Display for OpenProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenProblem::NotADatabase { detail } => write!(f, "not a database ({detail})"),
            OpenProblem::Corrupt { detail } => write!(f, "corrupt ({detail})"),
            OpenProblem::Foreign { application_id } => write!(
                f,
                "another application's database (application_id {application_id:#x}, \
                 doppel's is {APPLICATION_ID:#x})"
            ),
            OpenProblem::UnknownSchema { version } => write!(
                f,
                "a doppel index with schema version {version}; this build reads version \
                 {SCHEMA_VERSION}"
            ),
        }
    }
}

/// An unusable index file that [`Store::open`] renamed before creating a fresh one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedAside {
    pub problem: OpenProblem,
    /// Where the file now is.
    pub to: PathBuf,
    /// Its `-wal`/`-shm`/`-journal` companions, moved beside it.
    pub companions: Vec<PathBuf>,
}

/// What [`Store::open`] found and did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReport {
    pub path: PathBuf,
    /// A fresh, empty index was created (first run, or after moving a bad file aside).
    pub created: bool,
    pub moved_aside: Option<MovedAside>,
    /// Non-fatal problems (e.g. WAL unavailable on this file system).
    pub warnings: Vec<String>,
}

impl OpenReport {
    /// One line per thing the user should hear about (empty when all is well).
    pub fn messages(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(m) = &self.moved_aside {
            out.push(format!(
                "index {} was {}; moved it to {} and started a fresh index \
                 (the folder will be re-read)",
                self.path.display(),
                m.problem,
                m.to.display()
            ));
        }
        out.extend(self.warnings.iter().cloned());
        out
    }
}

// ---------------------------------------------------------------------------
// Free helpers

/// The index key of a path relative to the root: its raw bytes on unix
/// (never a lossy conversion, so `caf\xe9` and `caf\xe8` stay two keys).
#[cfg(unix)]
pub fn path_key(relative: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    relative.as_os_str().as_bytes().to_vec()
}

/// The index key of a path relative to the root: UTF-16 code units as
/// little-endian bytes off unix (lossless for unpaired surrogates too).
#[cfg(not(unix))]
pub fn path_key(relative: &Path) -> Vec<u8> {
    use std::os::windows::ffi::OsStrExt;
    relative
        .as_os_str()
        .encode_wide()
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// The relative path an index key stands for (inverse of [`path_key`]).
#[cfg(unix)]
pub fn key_path(key: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(key))
}

/// The relative path an index key stands for (inverse of [`path_key`]).
#[cfg(not(unix))]
pub fn key_path(key: &[u8]) -> PathBuf {
    use std::os::windows::ffi::OsStringExt;
    let units: Vec<u16> = key
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    PathBuf::from(std::ffi::OsString::from_wide(&units))
}

/// A printable, unambiguous form of an index key for logs and errors: valid
/// UTF-8 with control characters escaped, invalid bytes as `\xNN`.
pub fn display_key(key: &[u8]) -> String {
    let mut out = String::with_capacity(key.len());
    for chunk in key.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() || c == '\\' {
                out.extend(c.escape_debug());
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The name of the index file of the folder at `canonical` (in the
/// platform data folder or the config's `index-dir`): the xxh3 of its
/// [`path_key`] in hex, `.sqlite`.
pub fn index_file_name(canonical: &Path) -> String {
    format!("{:016x}.sqlite", hash64(&path_key(canonical), 0))
}

/// The content hash stored in [`DocRecord::content_hash`]: xxh3-64 of the bytes.
pub fn content_hash(bytes: &[u8]) -> u64 {
    hash64(bytes, 0)
}

/// The encoding of [`Fingerprints`] blobs; bumped whenever a fingerprint
/// type changes (2: winnowing keeps hashes only, not positions; 3: hash
/// lists as little-endian bytes; 4: shingle sets of 32-bit values; 5:
/// 32-bit MinHash and winnow values; 6: SimHash counters summed per bit,
/// which rounds differently in rare near-ties; 7: SimHash weights rounded
/// to 1/256 and summed as integers; 8: SI keeps its sketch and sums it
/// unsigned; 9: scans fingerprinted without their page furniture).
pub const FINGERPRINT_FORMAT: u32 = 9;

/// A key for [`Store::set_config_hash`]: xxh3 of the configuration's JSON,
/// the crate version, [`SCHEMA_VERSION`] and [`FINGERPRINT_FORMAT`] (a new
/// build may change the fingerprint encoding, so it re-fingerprints rather
/// than misread).
pub fn engine_config_hash(config: &EngineConfig) -> String {
    // Only what changes fingerprints: thresholds and the fusion rule are
    // applied to stored scores and must not force a re-read of the folder.
    let relevant = (
        &config.tokenizer,
        &config.algorithms,
        &config.enabled,
        &config.idf,
    );
    let json = serde_json::to_string(&relevant).unwrap_or_else(|_| format!("{relevant:?}"));
    let keyed = format!(
        "doppel {} schema {SCHEMA_VERSION} fingerprints {FINGERPRINT_FORMAT}\n{json}",
        env!("CARGO_PKG_VERSION")
    );
    format!("{:016x}", hash64(keyed.as_bytes(), 0))
}

/// Now as unix nanoseconds (for `first_seen_ns`).
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// `path` made absolute and resolved through symlinks as far as it exists
/// (the rest, which does not exist yet, is appended lexically).
fn resolve_lenient(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut base) => {
                for part in rest.iter().rev() {
                    base.push(part);
                }
                return Ok(base);
            }
            Err(e) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                _ => return Err(e),
            },
        }
    }
}

/// Fails with [`StoreError::InsideRoot`] when `store` is the folder `root` or
/// inside it (after resolving symlinks), so doppel never writes into the
/// folder it watches.
pub fn ensure_outside_root(store: &Path, root: &Path) -> Result<()> {
    let root_resolved = root.canonicalize().map_err(|error| StoreError::Root {
        root: root.to_path_buf(),
        error,
    })?;
    let store_resolved = resolve_lenient(store).map_err(|error| StoreError::Io {
        path: store.to_path_buf(),
        context: "resolve the index path".into(),
        error,
    })?;
    if store_resolved.starts_with(&root_resolved) {
        return Err(StoreError::InsideRoot {
            store: store.to_path_buf(),
            root: root.to_path_buf(),
        });
    }
    Ok(())
}

fn u64_to_sql(v: u64) -> i64 {
    v as i64
}

fn u64_from_sql(v: i64) -> u64 {
    v as u64
}

fn terms_to_blob(terms: &[u64]) -> Vec<u8> {
    terms.iter().flat_map(|t| t.to_le_bytes()).collect()
}

fn terms_from_blob(blob: &[u8]) -> Option<Vec<u64>> {
    let chunks = blob.chunks_exact(8);
    if !chunks.remainder().is_empty() {
        return None;
    }
    Some(
        chunks
            .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunk")))
            .collect(),
    )
}

/// The stored form of a [`Score`]: its own enum so the on-disk encoding does
/// not follow the JSON attributes of `Score`. Append variants only.
#[derive(Serialize, Deserialize)]
enum StoredScore {
    Similarity(f64),
    Overlap(f64, f64, f64),
    Hamming(u32, u32),
    Matches(u32, u32),
    Incomparable,
}

impl From<Score> for StoredScore {
    fn from(s: Score) -> Self {
        match s {
            Score::Similarity { value } => StoredScore::Similarity(value),
            Score::Overlap {
                resemblance,
                a_in_b,
                b_in_a,
            } => StoredScore::Overlap(resemblance, a_in_b, b_in_a),
            Score::Hamming { distance, bits } => StoredScore::Hamming(distance, bits),
            Score::Matches { matched, of } => StoredScore::Matches(matched, of),
            Score::Incomparable => StoredScore::Incomparable,
        }
    }
}

impl From<StoredScore> for Score {
    fn from(s: StoredScore) -> Self {
        match s {
            StoredScore::Similarity(value) => Score::Similarity { value },
            StoredScore::Overlap(resemblance, a_in_b, b_in_a) => Score::Overlap {
                resemblance,
                a_in_b,
                b_in_a,
            },
            StoredScore::Hamming(distance, bits) => Score::Hamming { distance, bits },
            StoredScore::Matches(matched, of) => Score::Matches { matched, of },
            StoredScore::Incomparable => Score::Incomparable,
        }
    }
}

fn scores_to_blob(scores: &PairScores, swap: bool) -> Vec<u8> {
    let stored: Vec<(&str, StoredScore)> = scores
        .iter()
        .map(|(id, s)| {
            let s = if swap { s.swapped() } else { *s };
            (id.as_str(), StoredScore::from(s))
        })
        .collect();
    postcard::to_allocvec(&stored).expect("scores serialize")
}

/// A pair's scores as stored, in algorithm order; inline, so decoding the
/// pairs of a large index allocates nothing per pair.
pub type ScoreList = SmallVec<[(AlgorithmId, Score); AlgorithmId::ALL.len()]>;

fn scores_from_blob(blob: &[u8]) -> Result<ScoreList, String> {
    // Element by element: the names borrow from the blob and nothing is
    // collected on the way.
    let bad = |e: postcard::Error| format!("pair scores do not decode: {e}");
    let (len, mut rest) = postcard::take_from_bytes::<usize>(blob).map_err(bad)?;
    let mut list = ScoreList::new();
    for _ in 0..len {
        let ((name, score), tail) =
            postcard::take_from_bytes::<(&str, StoredScore)>(rest).map_err(bad)?;
        list.push((name.parse()?, score.into()));
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(format!(
            "pair scores do not decode: {} bytes left over",
            rest.len()
        ));
    }
    Ok(list)
}

/// Run a (cached) query and collect every row.
fn collect_rows<T, P: Params>(
    conn: &Connection,
    sql: &str,
    params: P,
    f: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params, f)?;
    rows.collect()
}

fn ordered<'a>(x: &'a [u8], y: &'a [u8]) -> (&'a [u8], &'a [u8]) {
    if x <= y {
        (x, y)
    } else {
        (y, x)
    }
}

// ---------------------------------------------------------------------------
// Opening

enum OpenFailure {
    /// The file is unusable and may be moved aside.
    Bad(OpenProblem),
    Fatal(StoreError),
}

impl From<StoreError> for OpenFailure {
    fn from(e: StoreError) -> Self {
        OpenFailure::Fatal(e)
    }
}

/// Errors that mean "this file is not a (sound) database", as opposed to
/// "cannot get at it right now" (permissions, locks, I/O), which must never
/// cause a move.
fn classify(path: &Path, context: &str, error: rusqlite::Error) -> OpenFailure {
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => OpenFailure::Bad(OpenProblem::NotADatabase {
            detail: error.to_string(),
        }),
        Some(ErrorCode::DatabaseCorrupt) => OpenFailure::Bad(OpenProblem::Corrupt {
            detail: error.to_string(),
        }),
        _ => OpenFailure::Fatal(StoreError::Sqlite {
            path: path.to_path_buf(),
            context: context.to_string(),
            error,
        }),
    }
}

struct Probe {
    application_id: i32,
    user_version: i32,
    objects: i64,
}

fn probe(conn: &Connection, path: &Path) -> Result<Probe, OpenFailure> {
    let read = || -> rusqlite::Result<Probe> {
        Ok(Probe {
            application_id: conn.pragma_query_value(None, "application_id", |r| r.get(0))?,
            user_version: conn.pragma_query_value(None, "user_version", |r| r.get(0))?,
            objects: conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?,
        })
    };
    read().map_err(|e| classify(path, "read the header", e))
}

fn quick_check(conn: &Connection, path: &Path) -> Result<Option<String>, OpenFailure> {
    let rows: Vec<String> = collect_rows(conn, "PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| classify(path, "quick_check", e))?;
    if rows.len() == 1 && rows[0] == "ok" {
        Ok(None)
    } else {
        Ok(Some(rows.join("; ")))
    }
}

/// When [`Store`]'s opening runs `PRAGMA quick_check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Before the store is returned.
    Now,
    /// On another thread, see [`Store::open_checking_in_background`].
    Background,
}

type CheckThread = std::thread::JoinHandle<Result<Option<String>, OpenFailure>>;

/// A `PRAGMA quick_check` of an index running on a read-only connection of
/// its own (see [`Store::open_checking_in_background`]).
#[must_use = "an index is not known to be sound until its check has passed"]
pub struct PendingCheck {
    thread: Option<CheckThread>,
}

impl PendingCheck {
    fn start(path: &Path) -> Self {
        let path = path.to_path_buf();
        let thread = std::thread::spawn(move || {
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(&path, flags)
                .map_err(|e| classify(&path, "open read-only for quick_check", e))?;
            conn.busy_timeout(BUSY_TIMEOUT)
                .ctx(&path, "set busy_timeout")?;
            quick_check(&conn, &path)
        });
        PendingCheck {
            thread: Some(thread),
        }
    }

    /// Wait for the check: `true` when the index is sound (or new), `false`
    /// when it is corrupt. An error that proves nothing about the file
    /// (I/O, a lock held too long) is returned.
    pub fn passed(self) -> Result<bool> {
        let Some(thread) = self.thread else {
            return Ok(true);
        };
        match thread.join() {
            Ok(Ok(None)) => Ok(true),
            Ok(Ok(Some(_)) | Err(OpenFailure::Bad(_))) => Ok(false),
            Ok(Err(OpenFailure::Fatal(e))) => Err(e),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The first name `<name>.corrupt-<ts>[-n]` whose file and companions are all free.
fn aside_name(path: &Path, ts: u64) -> PathBuf {
    let base = path.as_os_str().to_os_string();
    (0u32..)
        .map(|n| {
            let mut name = base.clone();
            name.push(format!(".corrupt-{ts}"));
            if n > 0 {
                name.push(format!("-{n}"));
            }
            PathBuf::from(name)
        })
        .find(|candidate| {
            ["", "-wal", "-shm", "-journal"].iter().all(|suffix| {
                let mut p = candidate.as_os_str().to_os_string();
                p.push(suffix);
                fs::symlink_metadata(PathBuf::from(p)).is_err()
            })
        })
        .expect("a free name")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

fn move_aside(path: &Path, problem: OpenProblem) -> Result<MovedAside> {
    let ts = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let to = aside_name(path, ts);
    fs::rename(path, &to).map_err(|error| StoreError::Io {
        path: path.to_path_buf(),
        context: format!("move the unusable index aside to {}", to.display()),
        error,
    })?;
    let mut companions = Vec::new();
    for suffix in ["-wal", "-shm", "-journal"] {
        let from = with_suffix(path, suffix);
        if fs::symlink_metadata(&from).is_ok() {
            let dest = with_suffix(&to, suffix);
            fs::rename(&from, &dest).map_err(|error| StoreError::Io {
                path: from.clone(),
                context: format!("move aside to {}", dest.display()),
                error,
            })?;
            companions.push(dest);
        }
    }
    Ok(MovedAside {
        problem,
        to,
        companions,
    })
}

// ---------------------------------------------------------------------------
// The store

/// A connection to one doppel index file. Writes take `&mut self` and run in
/// `BEGIN IMMEDIATE` transactions; one writer owns a read-write `Store`, and
/// readers (the UI) open their own with [`Store::open_read_only`].
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Open (creating if needed) the index at `path`; a file there that is not
    /// a usable doppel index is moved aside and replaced by a fresh one, as
    /// the report says. Errors that do not prove the file bad (permissions,
    /// another process holding a lock, I/O) are returned and move nothing.
    pub fn open(path: &Path) -> Result<(Store, OpenReport)> {
        let (store, report, check) = Self::open_with(path, Check::Now)?;
        debug_assert!(check.thread.is_none(), "checked before returning");
        Ok((store, report))
    }

    /// [`Store::open`], except that an existing index's `PRAGMA
    /// quick_check`, which reads the whole file (about a quarter of a second
    /// per GB), runs on a connection of its own while the caller reads the
    /// index. The caller writes nothing before [`PendingCheck::passed`], and
    /// when it fails, drops this store and calls [`Store::open`], which
    /// moves the file aside.
    pub fn open_checking_in_background(path: &Path) -> Result<(Store, OpenReport, PendingCheck)> {
        Self::open_with(path, Check::Background)
    }

    fn open_with(path: &Path, check: Check) -> Result<(Store, OpenReport, PendingCheck)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(|error| StoreError::Io {
                path: path.to_path_buf(),
                context: format!("create the folder {}", dir.display()),
                error,
            })?;
        }
        let mut report = OpenReport {
            path: path.to_path_buf(),
            created: false,
            moved_aside: None,
            warnings: Vec::new(),
        };
        let (opened, pending) = match Self::try_open(path, &mut report, check) {
            Ok(opened) => opened,
            Err(OpenFailure::Fatal(e)) => return Err(e),
            Err(OpenFailure::Bad(problem)) => {
                report.moved_aside = Some(move_aside(path, problem)?);
                match Self::try_open(path, &mut report, Check::Now) {
                    Ok(opened) => opened,
                    Err(OpenFailure::Fatal(e)) => return Err(e),
                    Err(OpenFailure::Bad(problem)) => {
                        return Err(StoreError::NotAnIndex {
                            path: path.to_path_buf(),
                            problem,
                        })
                    }
                }
            }
        };
        Ok((opened, report, pending))
    }

    fn try_open(
        path: &Path,
        report: &mut OpenReport,
        check: Check,
    ) -> Result<(Store, PendingCheck), OpenFailure> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(path, flags).map_err(|e| classify(path, "open", e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .ctx(path, "set busy_timeout")?;
        let p = probe(&conn, path)?;
        let fresh = p.application_id == 0 && p.user_version == 0 && p.objects == 0;
        if !fresh {
            if p.application_id != APPLICATION_ID {
                return Err(OpenFailure::Bad(OpenProblem::Foreign {
                    application_id: p.application_id,
                }));
            }
            if p.user_version != SCHEMA_VERSION {
                return Err(OpenFailure::Bad(OpenProblem::UnknownSchema {
                    version: p.user_version,
                }));
            }
            if check == Check::Now {
                if let Some(detail) = quick_check(&conn, path)? {
                    return Err(OpenFailure::Bad(OpenProblem::Corrupt { detail }));
                }
            }
        }
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(|e| classify(path, "set journal_mode=WAL", e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            report.warnings.push(format!(
                "index {}: write-ahead logging is unavailable here (journal_mode is {mode}); \
                 is it on a network file system? Updates will be slower.",
                path.display()
            ));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .ctx(path, "set synchronous=NORMAL")?;
        conn.pragma_update(None, "foreign_keys", true)
            .ctx(path, "set foreign_keys=ON")?;
        let fk: bool = conn
            .pragma_query_value(None, "foreign_keys", |r| r.get(0))
            .ctx(path, "read foreign_keys")?;
        if !fk {
            return Err(OpenFailure::Fatal(StoreError::Invalid {
                path: path.to_path_buf(),
                reason: "this SQLite build does not enforce foreign keys".into(),
            }));
        }
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        if fresh {
            report.created = store.init_schema()?;
        }
        let pending = match check {
            Check::Background if !fresh => PendingCheck::start(path),
            _ => PendingCheck { thread: None },
        };
        Ok((store, pending))
    }

    /// Create the schema in one transaction; `false` if another process did
    /// it first.
    fn init_schema(&mut self) -> Result<bool> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin creating the schema")?;
        let app: i32 = tx
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .ctx(path, "read application_id")?;
        if app == APPLICATION_ID {
            return Ok(false);
        }
        tx.execute_batch(SCHEMA).ctx(path, "create the schema")?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .ctx(path, "set application_id")?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .ctx(path, "set user_version")?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('created_by', ?1), ('created_at_ns', ?2)",
            params![
                format!("doppel {}", env!("CARGO_PKG_VERSION")),
                now_ns().to_string()
            ],
        )
        .ctx(path, "write meta")?;
        tx.commit().ctx(path, "commit the schema")?;
        Ok(true)
    }

    /// Open an existing index for reading only (the UI's connection). Never
    /// creates or moves anything; a file that is not a usable index is an error.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let bad = |problem| StoreError::NotAnIndex {
            path: path.to_path_buf(),
            problem,
        };
        let fatal = |f: OpenFailure| match f {
            OpenFailure::Bad(problem) => bad(problem),
            OpenFailure::Fatal(e) => e,
        };
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| fatal(classify(path, "open read-only", e)))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .ctx(path, "set busy_timeout")?;
        let p = probe(&conn, path).map_err(fatal)?;
        if p.application_id != APPLICATION_ID {
            return Err(bad(OpenProblem::Foreign {
                application_id: p.application_id,
            }));
        }
        if p.user_version != SCHEMA_VERSION {
            return Err(bad(OpenProblem::UnknownSchema {
                version: p.user_version,
            }));
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The default index file for `root`: in [`Store::default_dir`], named
    /// by [`index_file_name`]. The same folder, however it is spelled or
    /// linked to, gets the same file. Refused when it would lie inside `root`
    /// (e.g. when watching the home folder); pass an explicit path then.
    pub fn default_path(root: &Path) -> Result<PathBuf> {
        let canonical = root.canonicalize().map_err(|error| StoreError::Root {
            root: root.to_path_buf(),
            error,
        })?;
        let path = Self::default_dir()?.join(index_file_name(&canonical));
        ensure_outside_root(&path, root)?;
        Ok(path)
    }

    /// The folder of the indexes when the config file names none: the
    /// platform data directory's `indexes` (`$XDG_DATA_HOME/doppel/indexes`
    /// on Linux).
    pub fn default_dir() -> Result<PathBuf> {
        let dirs = directories::ProjectDirs::from("", "", "doppel").ok_or(StoreError::NoDataDir)?;
        Ok(dirs.data_dir().join("indexes"))
    }

    /// Open an existing index to look at it or remove it ([`crate::runtime::index_files`]):
    /// read-write, so closing it removes the `-wal`/`-shm` that reading
    /// creates, but never creating, moving or writing anything. A file that is not a doppel index of this schema is
    /// [`StoreError::NotAnIndex`].
    pub fn open_existing(path: &Path) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let fatal = |f: OpenFailure| match f {
            OpenFailure::Bad(problem) => StoreError::NotAnIndex {
                path: path.to_path_buf(),
                problem,
            },
            OpenFailure::Fatal(e) => e,
        };
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| fatal(classify(path, "open", e)))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .ctx(path, "set busy_timeout")?;
        let p = probe(&conn, path).map_err(fatal)?;
        if p.application_id != APPLICATION_ID {
            return Err(fatal(OpenFailure::Bad(OpenProblem::Foreign {
                application_id: p.application_id,
            })));
        }
        if p.user_version != SCHEMA_VERSION {
            return Err(fatal(OpenFailure::Bad(OpenProblem::UnknownSchema {
                version: p.user_version,
            })));
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Take an exclusive lock on the index for as long as this connection
    /// lives; `false` when another connection, in this process or another,
    /// has the index open (even idle or read-only: in WAL mode every open
    /// connection keeps a shared lock on the file). Only for a store about to
    /// be dropped, e.g. before its files are removed.
    pub fn lock_exclusively(&mut self) -> Result<bool> {
        let path = &self.path;
        self.conn
            .pragma_update(None, "locking_mode", "EXCLUSIVE")
            .ctx(path, "set locking_mode=EXCLUSIVE")?;
        // Any other connection, however briefly it holds its lock, means
        // the index is in use: no waiting.
        self.conn
            .busy_timeout(Duration::ZERO)
            .ctx(path, "set busy_timeout")?;
        let locked = self.conn.execute_batch("BEGIN EXCLUSIVE; COMMIT");
        self.conn
            .busy_timeout(BUSY_TIMEOUT)
            .ctx(path, "set busy_timeout")?;
        match locked {
            Ok(()) => Ok(true),
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                ) =>
            {
                // Reads go on under the others' shared locks.
                self.conn
                    .pragma_update(None, "locking_mode", "NORMAL")
                    .ctx(path, "set locking_mode=NORMAL")?;
                Ok(false)
            }
            Err(e) => Err(e).ctx(path, "take an exclusive lock"),
        }
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    // -- meta ---------------------------------------------------------------

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
    /// (see [`engine_config_hash`]); `None` for a fresh index. When it differs
    /// from the running configuration, re-fingerprint and then set it.
    pub fn config_hash(&self) -> Result<Option<String>> {
        self.meta("config_hash")
    }

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

    pub fn set_idf_generation(&mut self, generation: u64) -> Result<()> {
        self.set_meta("idf_generation", &generation.to_string())
    }

    /// The canonical folder this index was made for; `None` for an index
    /// written before doppel recorded it (the next [`Store::record_use`]
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
        Ok(Some(key_path(&key)))
    }

    /// When a read-write open last used this index (see
    /// [`Store::record_use`]); `None` before doppel recorded it.
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
        put_meta(&tx, path, META_FOLDER, &hex::encode(path_key(folder)))?;
        put_meta(&tx, path, META_LAST_USED, &now_ns().to_string())?;
        tx.commit().ctx(path, "commit the folder")
    }

    // -- documents ----------------------------------------------------------

    /// Insert or replace the document at `rec.path` and its pairs in one
    /// transaction: the row is updated in place (same id, `first_seen_ns`
    /// kept), every pair it was part of is deleted, and `pairs` are inserted.
    /// Each pair is `(other path, engine.compare(this, other))`; the other
    /// path must already be in the index. Returns the document's id.
    pub fn upsert_document(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<i64> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin update")?;
        let id = upsert_in(&tx, path, rec, pairs)?;
        tx.commit().ctx(path, "commit update")?;
        Ok(id)
    }

    /// [`Store::upsert_document`] for many documents in one transaction
    /// (bulk loads): all are written, or none. Returns their ids in order.
    pub fn upsert_documents(&mut self, items: &[(DocRecord, Vec<PairUpdate>)]) -> Result<Vec<i64>> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin batch update")?;
        let ids = items
            .iter()
            .map(|(rec, pairs)| upsert_in(&tx, path, rec, pairs))
            .collect::<Result<Vec<_>>>()?;
        tx.commit().ctx(path, "commit batch update")?;
        Ok(ids)
    }

    /// Remove the document at `path` and (by cascade) its pairs. Verdicts,
    /// keyed by path, stay. `false` if it was not indexed.
    pub fn remove_document(&mut self, key: &[u8]) -> Result<bool> {
        Ok(self.remove_documents(&[key])? == 1)
    }

    /// Remove many documents in one transaction; returns how many existed.
    pub fn remove_documents<K: AsRef<[u8]>>(&mut self, keys: &[K]) -> Result<usize> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin removal")?;
        let mut removed = 0;
        {
            let mut stmt = tx
                .prepare_cached("DELETE FROM documents WHERE path = ?1")
                .ctx(path, "prepare removal")?;
            for key in keys {
                removed += stmt.execute([key.as_ref()]).ctx(
                    path,
                    format_args!("remove document {}", display_key(key.as_ref())),
                )?;
            }
        }
        tx.commit().ctx(path, "commit removal")?;
        Ok(removed)
    }

    /// A file was renamed: the row moves to `to` with its id, fingerprints,
    /// pairs and `first_seen_ns`, and verdicts on `from` follow it. A row
    /// already at `to` (the file the rename replaced) is removed first.
    /// `false` if `from` was not indexed (nothing changes).
    pub fn rename_document(&mut self, from: &[u8], to: &[u8]) -> Result<bool> {
        if from == to {
            return self.document_id(from).map(|id| id.is_some());
        }
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin rename")?;
        let what = || format!("rename {} to {}", display_key(from), display_key(to));
        let exists: bool = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM documents WHERE path = ?1)",
                [from],
                |r| r.get(0),
            )
            .ctx(path, what())?;
        if !exists {
            return Ok(false);
        }
        tx.execute("DELETE FROM documents WHERE path = ?1", [to])
            .ctx(path, what())?;
        tx.execute(
            "UPDATE documents SET path = ?2 WHERE path = ?1",
            params![from, to],
        )
        .ctx(path, what())?;
        // Verdicts follow the file.
        tx.execute(
            "INSERT OR REPLACE INTO doc_verdicts (path, verdict, set_at_ns) \
             SELECT ?2, verdict, set_at_ns FROM doc_verdicts WHERE path = ?1",
            params![from, to],
        )
        .ctx(path, what())?;
        tx.execute("DELETE FROM doc_verdicts WHERE path = ?1", [from])
            .ctx(path, what())?;
        let moved: Vec<(Vec<u8>, Vec<u8>, String, i64)> = collect_rows(
            &tx,
            "SELECT a, b, verdict, set_at_ns FROM pair_verdicts WHERE a = ?1 OR b = ?1",
            [from],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .ctx(path, what())?;
        tx.execute("DELETE FROM pair_verdicts WHERE a = ?1 OR b = ?1", [from])
            .ctx(path, what())?;
        for (a, b, verdict, set_at) in moved {
            let other = if a == from { b } else { a };
            if other == to {
                continue; // a verdict between the two names of one file
            }
            let (x, y) = ordered(&other, to);
            tx.execute(
                "INSERT OR REPLACE INTO pair_verdicts (a, b, verdict, set_at_ns) \
                 VALUES (?1, ?2, ?3, ?4)",
                params![x, y, verdict, set_at],
            )
            .ctx(path, what())?;
        }
        tx.commit().ctx(path, what())?;
        Ok(true)
    }

    fn document_id(&self, key: &[u8]) -> Result<Option<i64>> {
        self.conn
            .prepare_cached("SELECT id FROM documents WHERE path = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .ctx(&self.path, format_args!("look up {}", display_key(key)))
    }

    /// The document at `key`, if indexed.
    pub fn document(&self, key: &[u8]) -> Result<Option<DocRecord>> {
        let sql = format!("SELECT {DOC_COLUMNS} FROM {DOC_FROM} WHERE d.path = ?1");
        let raw = self
            .conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([key], RawDoc::from_row).optional())
            .ctx(&self.path, format_args!("read {}", display_key(key)))?;
        raw.map(|r| r.decode(&self.path)).transpose()
    }

    /// The fingerprints of the documents at these paths, in order (`None`
    /// where a path has none): read one row at a time, decoded in parallel.
    pub fn fingerprints_at(&self, keys: &[&[u8]]) -> Result<Vec<Option<Fingerprints>>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT p.fingerprints FROM documents d JOIN document_prints p ON p.id = d.id \
                 WHERE d.path = ?1",
            )
            .ctx(&self.path, "prepare fingerprint read")?;
        let blobs = keys
            .iter()
            .map(|key| {
                stmt.query_row([key], |r| r.get::<_, Option<Vec<u8>>>(0))
                    .optional()
                    .map(Option::flatten)
                    .ctx(
                        &self.path,
                        format_args!("read fingerprints of {}", display_key(key)),
                    )
            })
            .collect::<Result<Vec<_>>>()?;
        let store = &self.path;
        blobs
            .into_par_iter()
            .zip(keys)
            .map(|(blob, key)| {
                blob.map(|blob| {
                    postcard::from_bytes::<Fingerprints>(&blob).map_err(|e| StoreError::Decode {
                        path: store.clone(),
                        doc: display_key(key),
                        reason: format!("fingerprints do not decode: {e}"),
                    })
                })
                .transpose()
            })
            .collect()
    }

    /// The rows of `sql`, read in order and decoded in parallel a chunk at
    /// a time (the previous chunk is decoded while the next one is read),
    /// so that only two chunks of raw blobs are held beside what is decoded.
    fn read_decoded<R: Send, T: Send>(
        &self,
        sql: &str,
        context: &str,
        row: impl FnMut(&Row<'_>) -> rusqlite::Result<R>,
        decode: impl Fn(R) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.read_decoded_each(sql, context, row, decode, |chunk| {
            out.extend(chunk);
            Ok(())
        })?;
        Ok(out)
    }

    /// [`Store::read_decoded`] handing each decoded chunk to `each`, in
    /// order, instead of collecting them: what is read is never all in
    /// memory at once.
    fn read_decoded_each<R: Send, T: Send>(
        &self,
        sql: &str,
        context: &str,
        row: impl FnMut(&Row<'_>) -> rusqlite::Result<R>,
        decode: impl Fn(R) -> Result<T> + Sync,
        mut each: impl FnMut(Vec<T>) -> Result<()>,
    ) -> Result<()> {
        const CHUNK: usize = 4096;
        let mut stmt = self.conn.prepare_cached(sql).ctx(&self.path, context)?;
        let mut rows = stmt.query_map([], row).ctx(&self.path, context)?;
        let mut pending: Vec<R> = Vec::new();
        loop {
            let mut next = Vec::with_capacity(CHUNK);
            let mut decoded: Result<Vec<T>> = Ok(Vec::new());
            let read = rayon::in_place_scope(|scope| {
                let previous = std::mem::take(&mut pending);
                let (decoded, decode) = (&mut decoded, &decode);
                scope.spawn(move |_| {
                    *decoded = previous.into_par_iter().map(decode).collect();
                });
                for r in rows.by_ref().take(CHUNK) {
                    next.push(r.ctx(&self.path, context)?);
                }
                Ok::<_, StoreError>(())
            });
            each(decoded?)?;
            read?;
            if next.is_empty() {
                return Ok(());
            }
            pending = next;
        }
    }

    /// Every document, fingerprints decoded, in id order.
    pub fn documents(&self) -> Result<Vec<DocRecord>> {
        self.documents_selecting(DOC_COLUMNS, DOC_FROM)
    }

    /// [`Store::documents`] without fingerprints and terms: what opening
    /// an index reads of every document (the library's part of each is in
    /// [`Store::document_entries`]).
    pub fn documents_without_blobs(&self) -> Result<Vec<DocRecord>> {
        self.documents_selecting(
            &DOC_COLUMNS.replace("p.fingerprints, p.terms", "NULL, NULL"),
            "documents d",
        )
    }

    fn documents_selecting(&self, columns: &str, from: &str) -> Result<Vec<DocRecord>> {
        let sql = format!("SELECT {columns} FROM {from} ORDER BY d.id");
        let path = &self.path;
        self.read_decoded(&sql, "read documents", RawDoc::from_row, |r| r.decode(path))
    }

    /// Every stored library entry ([`DocEntry`]) by document id, in id
    /// order.
    pub fn document_entries(&self) -> Result<Vec<(i64, DocEntry)>> {
        let mut out = Vec::new();
        self.document_entries_each(|chunk| {
            out.extend(chunk);
            Ok(())
        })?;
        Ok(out)
    }

    /// [`Store::document_entries`] a decoded chunk at a time, in id order.
    pub fn document_entries_each(
        &self,
        each: impl FnMut(Vec<(i64, DocEntry)>) -> Result<()>,
    ) -> Result<()> {
        let path = &self.path;
        self.read_decoded_each(
            "SELECT id, entry FROM document_entries ORDER BY id",
            "read library entries",
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)),
            |(id, blob)| {
                let entry = postcard::from_bytes(&blob).map_err(|e| StoreError::Decode {
                    path: path.clone(),
                    doc: format!("document {id}"),
                    reason: format!("library entry does not decode: {e}"),
                })?;
                Ok((id, entry))
            },
            each,
        )
    }

    /// Every document's id and path, in id order, without decoding blobs
    /// (to label [`Store::pairs`]).
    pub fn document_paths(&self) -> Result<Vec<(i64, Vec<u8>)>> {
        collect_rows(
            &self.conn,
            "SELECT id, path FROM documents ORDER BY id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ctx(&self.path, "read document paths")
    }

    /// Number of documents (indexed and skipped).
    pub fn document_count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM documents", [], |r| r.get::<_, i64>(0))
            .map(u64_from_sql)
            .ctx(&self.path, "count documents")
    }

    /// Every stored path with its stat identity, for reconciling with the
    /// disk without reading file contents or decoding fingerprints.
    pub fn stat_index(&self) -> Result<HashMap<Vec<u8>, FileIdentity>> {
        let rows = collect_rows(
            &self.conn,
            "SELECT path, size, mtime_ns, ctime_ns, inode, dev FROM documents",
            [],
            |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    FileIdentity {
                        size: u64_from_sql(r.get(1)?),
                        mtime_ns: r.get(2)?,
                        ctime_ns: r.get(3)?,
                        inode: u64_from_sql(r.get(4)?),
                        dev: u64_from_sql(r.get(5)?),
                    },
                ))
            },
        )
        .ctx(&self.path, "read the stat index")?;
        Ok(rows.into_iter().collect())
    }

    /// Every document's path, size, encoding and status, without decoding
    /// any fingerprint (for reports).
    pub fn listing(&self) -> Result<Vec<DocSummary>> {
        type Row = (Vec<u8>, i64, Option<String>, String, Option<String>);
        let rows: Vec<Row> = collect_rows(
            &self.conn,
            "SELECT path, size, encoding, status, reason FROM documents ORDER BY path",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .ctx(&self.path, "list documents")?;
        rows.into_iter()
            .map(|(path, size, encoding, status, reason)| {
                let status =
                    status_from_sql(&status, reason).map_err(|reason| StoreError::Decode {
                        path: self.path.clone(),
                        doc: display_key(&path),
                        reason,
                    })?;
                Ok(DocSummary {
                    path,
                    size: u64_from_sql(size),
                    encoding,
                    status,
                })
            })
            .collect()
    }

    // -- pairs --------------------------------------------------------------

    /// Every stored pair `(a, b, scores)` with `a < b` (document ids) and the
    /// scores oriented from `a` to `b` (`a_in_b` is a's containment in b).
    pub fn pairs(&self) -> Result<Vec<(i64, i64, PairScores)>> {
        let mut out = Vec::new();
        self.pairs_each(|chunk| {
            out.extend(
                chunk
                    .into_iter()
                    .map(|(a, b, scores)| (a, b, scores.into_iter().collect())),
            );
            Ok(())
        })?;
        Ok(out)
    }

    /// Forget every stored library entry (before they are written again).
    pub fn clear_entries(&mut self) -> Result<()> {
        self.conn
            .execute("DELETE FROM document_entries", [])
            .ctx(&self.path, "delete library entries")?;
        Ok(())
    }

    /// Write the library entries of stored documents (by row id), in one
    /// transaction.
    pub fn put_entries(&mut self, entries: &[(i64, DocEntry)]) -> Result<()> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin entry update")?;
        {
            let mut put = tx
                .prepare_cached(PUT_ENTRY)
                .ctx(path, "prepare entry update")?;
            for (id, entry) in entries {
                let blob = to_blob(entry, path, format_args!("library entry of document {id}"))?;
                put.execute(params![id, blob])
                    .ctx(path, format_args!("write library entry of document {id}"))?;
            }
        }
        tx.commit().ctx(path, "commit entry update")
    }

    /// Replace every stored pair with `pairs` (document row ids, scores
    /// oriented from the first to the second) and record that they were
    /// kept under `pairs_hash` (see [`Store::pairs_hash`]), in one
    /// transaction.
    pub fn replace_pairs(
        &mut self,
        pairs: impl IntoIterator<Item = (i64, i64, PairScores)>,
        pairs_hash: &str,
    ) -> Result<()> {
        let path = &self.path;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(path, "begin pair replacement")?;
        tx.execute("DELETE FROM pairs", [])
            .ctx(path, "delete stored pairs")?;
        {
            let mut insert = tx
                .prepare_cached(INSERT_PAIR)
                .ctx(path, "prepare pair insert")?;
            for (x, y, scores) in pairs {
                insert
                    .execute(pair_row(x, y, &scores))
                    .ctx(path, format_args!("write pair of documents {x} and {y}"))?;
            }
        }
        put_meta(&tx, path, "pairs_hash", pairs_hash)?;
        tx.commit().ctx(path, "commit pair replacement")
    }

    /// How many pairs are stored (counted on the small `pairs_by_b` index,
    /// not the scores).
    pub fn pair_count(&self) -> Result<usize> {
        self.conn
            .query_row("SELECT count(*) FROM pairs", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .ctx(&self.path, "count pairs")
    }

    /// [`Store::pairs`] a decoded chunk at a time, each pair's scores as a
    /// list.
    pub fn pairs_each(
        &self,
        each: impl FnMut(Vec<(i64, i64, ScoreList)>) -> Result<()>,
    ) -> Result<()> {
        let path = &self.path;
        self.read_decoded_each(
            "SELECT a, b, scores FROM pairs ORDER BY a, b",
            "read pairs",
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                ))
            },
            |(a, b, blob)| {
                let scores = scores_from_blob(&blob).map_err(|reason| StoreError::Decode {
                    path: path.clone(),
                    doc: format!("pair ({a}, {b})"),
                    reason,
                })?;
                Ok((a, b, scores))
            },
            each,
        )
    }

    // -- verdicts -----------------------------------------------------------

    /// Run a verdict write with `synchronous=FULL`: curator decisions cannot
    /// be recomputed from the folder, so their commit is made durable.
    fn durably<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.conn
            .pragma_update(None, "synchronous", "FULL")
            .ctx(&self.path, "set synchronous=FULL")?;
        let out = f(self);
        let restored = self
            .conn
            .pragma_update(None, "synchronous", "NORMAL")
            .ctx(&self.path, "set synchronous=NORMAL");
        let out = out?;
        restored?;
        Ok(out)
    }

    /// Record the curator's verdict on two paths (in either order).
    pub fn set_pair_verdict(&mut self, x: &[u8], y: &[u8], verdict: PairVerdict) -> Result<()> {
        if x == y {
            return Err(StoreError::Invalid {
                path: self.path.clone(),
                reason: format!(
                    "a verdict needs two different paths, got {}",
                    display_key(x)
                ),
            });
        }
        let (a, b) = ordered(x, y);
        self.durably(|s| {
            s.conn
                .execute(
                    "INSERT INTO pair_verdicts (a, b, verdict, set_at_ns) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT(a, b) DO UPDATE SET verdict = excluded.verdict, \
                     set_at_ns = excluded.set_at_ns",
                    params![a, b, verdict.as_str(), now_ns()],
                )
                .ctx(
                    &s.path,
                    format_args!("set verdict on {} / {}", display_key(a), display_key(b)),
                )
                .map(drop)
        })
    }

    /// Forget the verdict on two paths; `false` if there was none.
    pub fn clear_pair_verdict(&mut self, x: &[u8], y: &[u8]) -> Result<bool> {
        let (a, b) = ordered(x, y);
        self.durably(|s| {
            s.conn
                .execute(
                    "DELETE FROM pair_verdicts WHERE a = ?1 AND b = ?2",
                    params![a, b],
                )
                .ctx(
                    &s.path,
                    format_args!("clear verdict on {} / {}", display_key(a), display_key(b)),
                )
                .map(|n| n > 0)
        })
    }

    /// Every pair verdict, ordered by path.
    pub fn pair_verdicts(&self) -> Result<Vec<PairVerdictRecord>> {
        let raws: Vec<(Vec<u8>, Vec<u8>, String, i64)> = collect_rows(
            &self.conn,
            "SELECT a, b, verdict, set_at_ns FROM pair_verdicts ORDER BY a, b",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .ctx(&self.path, "read pair verdicts")?;
        raws.into_iter()
            .map(|(a, b, verdict, set_at_ns)| {
                let verdict = match verdict.as_str() {
                    "duplicate" => PairVerdict::Duplicate,
                    "not-duplicate" => PairVerdict::NotDuplicate,
                    other => {
                        return Err(StoreError::Decode {
                            path: self.path.clone(),
                            doc: format!("{} / {}", display_key(&a), display_key(&b)),
                            reason: format!("unknown verdict {other:?}"),
                        })
                    }
                };
                Ok(PairVerdictRecord {
                    a,
                    b,
                    verdict,
                    set_at_ns,
                })
            })
            .collect()
    }

    /// Mark (or unmark) a path as one to keep.
    pub fn set_keep(&mut self, key: &[u8], keep: bool) -> Result<()> {
        self.durably(|s| {
            let what = format!("set keep on {}", display_key(key));
            if keep {
                s.conn
                    .execute(
                        "INSERT INTO doc_verdicts (path, verdict, set_at_ns) VALUES (?1, 'keep', ?2) \
                         ON CONFLICT(path) DO UPDATE SET verdict = 'keep', set_at_ns = excluded.set_at_ns",
                        params![key, now_ns()],
                    )
                    .ctx(&s.path, what)?;
            } else {
                s.conn
                    .execute("DELETE FROM doc_verdicts WHERE path = ?1", [key])
                    .ctx(&s.path, what)?;
            }
            Ok(())
        })
    }

    /// Every path marked keep, in byte order.
    pub fn keeps(&self) -> Result<Vec<Vec<u8>>> {
        collect_rows(
            &self.conn,
            "SELECT path FROM doc_verdicts WHERE verdict = 'keep' ORDER BY path",
            [],
            |r| r.get(0),
        )
        .ctx(&self.path, "read keeps")
    }

    // -- maintenance ----------------------------------------------------------

    /// `PRAGMA integrity_check` returns `ok`.
    pub fn integrity_check(&self) -> Result<bool> {
        let rows: Vec<String> =
            collect_rows(&self.conn, "PRAGMA integrity_check", [], |r| r.get(0))
                .ctx(&self.path, "integrity_check")?;
        Ok(rows.len() == 1 && rows[0] == "ok")
    }

    /// Copy the WAL into the database and truncate it (call when idle, so
    /// the `-wal` file does not grow without bound).
    pub fn checkpoint(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .ctx(&self.path, "checkpoint")
    }
}

/// Insert one pair: `(a, b, scores)` with a < b, see [`pair_row`].
const INSERT_PAIR: &str = "INSERT INTO pairs (a, b, scores) VALUES (?1, ?2, ?3)";

/// Insert or replace one document's library entry: `(id, entry)`.
const PUT_ENTRY: &str = "INSERT INTO document_entries (id, entry) VALUES (?1, ?2) \
     ON CONFLICT(id) DO UPDATE SET entry = excluded.entry";

/// The [`INSERT_PAIR`] parameters of the pair {x, y} whose scores are
/// oriented from `x`: stored with the smaller id first.
fn pair_row(x: i64, y: i64, scores: &PairScores) -> (i64, i64, Vec<u8>) {
    if x < y {
        (x, y, scores_to_blob(scores, false))
    } else {
        (y, x, scores_to_blob(scores, true))
    }
}

/// Write one `meta` row, on the store's connection or in a transaction.
fn put_meta(conn: &Connection, path: &Path, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) \
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )
    .ctx(path, format_args!("write meta {key}"))?;
    Ok(())
}

/// The postcard encoding of `value` (`what` names it in the error).
fn to_blob(value: &impl Serialize, path: &Path, what: fmt::Arguments<'_>) -> Result<Vec<u8>> {
    postcard::to_allocvec(value).map_err(|e| StoreError::Invalid {
        path: path.to_path_buf(),
        reason: format!("{what} does not serialize: {e}"),
    })
}

fn upsert_in(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    rec: &DocRecord,
    pairs: &[PairUpdate],
) -> Result<i64> {
    let doc = || display_key(&rec.path);
    let (status, reason) = match &rec.status {
        DocStatus::Indexed => ("indexed", None),
        DocStatus::Skipped { reason } => ("skipped", Some(reason.as_str())),
    };
    let fingerprints = rec
        .fingerprints
        .as_ref()
        .map(|f| to_blob(f, path, format_args!("fingerprints of {}", doc())))
        .transpose()?;
    let terms = (!rec.terms.is_empty()).then(|| terms_to_blob(&rec.terms));
    let entry = rec
        .entry
        .as_ref()
        .map(|e| to_blob(e, path, format_args!("library entry of {}", doc())))
        .transpose()?;
    let id: i64 = tx
        .prepare_cached(
            "INSERT INTO documents (path, size, mtime_ns, ctime_ns, inode, dev, content_hash, \
                 status, reason, encoding, first_seen_ns, shingles) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
             ON CONFLICT(path) DO UPDATE SET size = excluded.size, \
                 mtime_ns = excluded.mtime_ns, ctime_ns = excluded.ctime_ns, \
                 inode = excluded.inode, dev = excluded.dev, \
                 content_hash = excluded.content_hash, status = excluded.status, \
                 reason = excluded.reason, encoding = excluded.encoding, \
                 shingles = excluded.shingles \
             RETURNING id",
        )
        .and_then(|mut s| {
            s.query_row(
                params![
                    rec.path,
                    u64_to_sql(rec.identity.size),
                    rec.identity.mtime_ns,
                    rec.identity.ctime_ns,
                    u64_to_sql(rec.identity.inode),
                    u64_to_sql(rec.identity.dev),
                    u64_to_sql(rec.content_hash),
                    status,
                    reason,
                    rec.encoding,
                    rec.first_seen_ns,
                    rec.shingles,
                ],
                |r| r.get(0),
            )
        })
        .ctx(path, format_args!("write document {}", doc()))?;
    tx.prepare_cached(
        "INSERT INTO document_prints (id, fingerprints, terms) VALUES (?1, ?2, ?3) \
         ON CONFLICT(id) DO UPDATE SET fingerprints = excluded.fingerprints, \
             terms = excluded.terms",
    )
    .and_then(|mut s| s.execute(params![id, fingerprints, terms]))
    .ctx(path, format_args!("write fingerprints of {}", doc()))?;
    match entry {
        Some(entry) => tx
            .prepare_cached(PUT_ENTRY)
            .and_then(|mut s| s.execute(params![id, entry])),
        None => tx
            .prepare_cached("DELETE FROM document_entries WHERE id = ?1")
            .and_then(|mut s| s.execute([id])),
    }
    .ctx(path, format_args!("write library entry of {}", doc()))?;
    tx.prepare_cached("DELETE FROM pairs WHERE a = ?1")
        .and_then(|mut s| s.execute([id]))
        .and_then(|_| tx.prepare_cached("DELETE FROM pairs WHERE b = ?1"))
        .and_then(|mut s| s.execute([id]))
        .ctx(path, format_args!("delete old pairs of {}", doc()))?;
    let mut find = tx
        .prepare_cached("SELECT id FROM documents WHERE path = ?1")
        .ctx(path, "prepare pair lookup")?;
    let mut insert = tx
        .prepare_cached(INSERT_PAIR)
        .ctx(path, "prepare pair insert")?;
    for (other, scores) in pairs {
        let other_id: Option<i64> = find
            .query_row([other], |r| r.get(0))
            .optional()
            .ctx(path, format_args!("look up {}", display_key(other)))?;
        let other_id = match other_id {
            Some(o) if o != id => o,
            Some(_) => {
                return Err(StoreError::Invalid {
                    path: path.to_path_buf(),
                    reason: format!("document {} paired with itself", doc()),
                })
            }
            None => {
                return Err(StoreError::Invalid {
                    path: path.to_path_buf(),
                    reason: format!(
                        "document {} paired with {}, which is not in the index",
                        doc(),
                        display_key(other)
                    ),
                })
            }
        };
        insert.execute(pair_row(id, other_id, scores)).ctx(
            path,
            format_args!("write pair {} / {}", doc(), display_key(other)),
        )?;
    }
    Ok(id)
}

/// A `documents` row before its blobs are decoded.
struct RawDoc {
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
}

impl RawDoc {
    fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
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
        })
    }

    fn decode(self, store: &Path) -> Result<DocRecord> {
        let err = |reason: String| StoreError::Decode {
            path: store.to_path_buf(),
            doc: display_key(&self.path),
            reason,
        };
        let status = status_from_sql(&self.status, self.reason).map_err(err)?;
        let fingerprints = self
            .fingerprints
            .as_deref()
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
        Ok(DocRecord {
            id: Some(self.id),
            path: self.path,
            identity: self.identity,
            content_hash: self.content_hash,
            first_seen_ns: self.first_seen_ns,
            status,
            encoding: self.encoding,
            fingerprints,
            terms,
            shingles: self.shingles,
            entry: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let (store, report) = Store::open(&dir.path().join("index.sqlite")).unwrap();
        assert!(report.created);
        (dir, store)
    }

    fn doc(path: &[u8]) -> DocRecord {
        DocRecord {
            id: None,
            path: path.to_vec(),
            identity: FileIdentity {
                size: 10,
                ..FileIdentity::default()
            },
            content_hash: 1,
            first_seen_ns: 5,
            status: DocStatus::Indexed,
            encoding: Some("UTF-8".into()),
            fingerprints: Some(Fingerprints::default()),
            terms: vec![1, 2, 3],
            shingles: 3,
            entry: None,
        }
    }

    #[test]
    fn d1_pragmas_take_effect() {
        let (_dir, store) = temp_store();
        let q = |name: &str| -> String {
            store
                .conn
                .pragma_query_value(None, name, |r| r.get::<_, rusqlite::types::Value>(0))
                .map(|v| match v {
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    rusqlite::types::Value::Text(t) => t,
                    other => format!("{other:?}"),
                })
                .unwrap()
        };
        assert_eq!(q("journal_mode"), "wal");
        assert_eq!(q("synchronous"), "1", "NORMAL");
        assert_eq!(q("foreign_keys"), "1");
        assert_eq!(q("application_id"), APPLICATION_ID.to_string());
        assert_eq!(q("user_version"), SCHEMA_VERSION.to_string());
        assert_eq!(q("busy_timeout"), BUSY_TIMEOUT.as_millis().to_string());
    }

    #[test]
    fn verdict_writes_restore_normal_sync() {
        let (_dir, mut store) = temp_store();
        store
            .set_pair_verdict(b"a", b"b", PairVerdict::Duplicate)
            .unwrap();
        let sync: i64 = store
            .conn
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 1);
    }

    #[test]
    fn d8_full_store_rolls_back_and_resumes() {
        let (_dir, mut store) = temp_store();
        let pages: i64 = store
            .conn
            .pragma_query_value(None, "page_count", |r| r.get(0))
            .unwrap();
        store
            .conn
            .pragma_update(None, "max_page_count", pages + 2)
            .unwrap();
        let mut big = doc(b"big");
        big.terms = (0..200_000).collect();
        let err = store.upsert_document(&big, &[]).unwrap_err();
        assert!(err.is_storage_full(), "{err}");
        assert!(err.to_string().contains("index.sqlite"), "{err}");
        assert!(store.document(b"big").unwrap().is_none(), "no partial row");
        store
            .conn
            .pragma_update(None, "max_page_count", 1_000_000)
            .unwrap();
        store.upsert_document(&big, &[]).unwrap();
        assert_eq!(
            store.document(b"big").unwrap().unwrap().terms.len(),
            200_000
        );
    }

    #[test]
    fn scores_round_trip_and_swap() {
        let mut s = PairScores::new();
        s.insert(
            AlgorithmId::Shingle,
            Score::Overlap {
                resemblance: 0.5,
                a_in_b: 0.9,
                b_in_a: 0.6,
            },
        );
        s.insert(
            AlgorithmId::Simhash,
            Score::Hamming {
                distance: 3,
                bits: 64,
            },
        );
        s.insert(AlgorithmId::Minhash, Score::Similarity { value: 0.25 });
        s.insert(
            AlgorithmId::ImatchLexicons,
            Score::Matches { matched: 2, of: 10 },
        );
        s.insert(AlgorithmId::Si, Score::Incomparable);
        let back = |swap| -> PairScores {
            scores_from_blob(&scores_to_blob(&s, swap))
                .unwrap()
                .into_iter()
                .collect()
        };
        assert_eq!(back(false), s);
        let swapped = back(true);
        assert_eq!(
            swapped[&AlgorithmId::Shingle],
            Score::Overlap {
                resemblance: 0.5,
                a_in_b: 0.6,
                b_in_a: 0.9
            }
        );
    }

    #[test]
    fn display_key_escapes_controls_and_bad_bytes() {
        assert_eq!(display_key(b"caf\xe9.txt"), "caf\\xe9.txt");
        assert_eq!(display_key("café\n\x1b[2J".as_bytes()), "café\\n\\u{1b}[2J");
    }
}
