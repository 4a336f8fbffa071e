//! The persistent index: one SQLite file per watched folder, outside it
//! (the `sqlite` backend), or a collection in a PostgreSQL database (the
//! team store), each keeping the one [`Store`] contract.
//!
//! A [`Store`] keeps what the watcher and worker need to resume without
//! re-reading the folder: one row per file (keyed by its [`DocPath`], the
//! raw bytes of its path relative to the root, so non-UTF-8 names stay
//! distinct), with its
//! stat identity, content hash and status; beside it, in tables of their
//! own, its fingerprints (with room for its sorted unique terms, which
//! would rebuild collection statistics without the files; the folder index
//! weighs terms by the pinned IDF table and stores none) and its library
//! entry (what a library keeps in memory of it, so reopening reads
//! neither); the scores of candidate pairs; and the curator's verdicts,
//! keyed by path so they survive re-indexing and rescans; in `meta`, the
//! folder the index is of and when it was last used
//! ([`Meta::record_use`]). Every change to one file is inside one `BEGIN
//! IMMEDIATE` transaction ([`Documents::upsert_document`],
//! [`Documents::remove_document`], or [`Documents::commit_batch`] for a chunk of
//! files with the pairs their arrival changed), so a crash
//! leaves each file either fully old or fully new; the next start
//! reconciles the store with the disk through [`Documents::stat_index`].
//!
//! [`SqliteStore::open`] creates the folder and file, sets WAL with
//! `synchronous=NORMAL` (ingest can be redone from the folder; verdict writes
//! switch to `FULL` for their commit), foreign keys and a busy timeout, and
//! checks the file is ours: a file that is not a database, is corrupt, belongs
//! to another application (`PRAGMA application_id`) or has a schema version
//! this build does not know is moved aside to `<name>.corrupt-<unix-seconds>`
//! (with its `-wal`/`-shm`) and a fresh index is created; [`OpenReport`] says
//! so. Nothing but the store file and its SQLite companions is ever renamed.
//! [`SqliteStore::open_checking_in_background`] runs the corruption check (`PRAGMA
//! quick_check`, which reads the whole file) beside the caller's load of a
//! large index; the caller writes nothing until it has passed.
//!
//! On-disk encodings (all part of [`SCHEMA_VERSION`]):
//! - u64 values (sizes, inodes, devices, hashes) are stored in INTEGER
//!   columns as the two's-complement bit pattern (`v as i64`, read back with
//!   `as u64`), so `u64::MAX` is stored as -1 and round-trips exactly; SQL
//!   comparisons on these columns are therefore signed.
//! - `fingerprints` is the postcard encoding of [`doppel_core::engine::Fingerprints`]; postcard is
//!   positional, so any change to a fingerprint type changes the format.
//!   [`engine_config_hash`] includes the crate version so a new build
//!   re-fingerprints instead of misreading old blobs.
//!   Its sorted hash sets (the shingle and winnowing sets) are
//!   delta-coded and bit-packed ([`doppel_core::packed`]).
//! - `terms` is the sorted unique term hashes as little-endian u64s.
//! - `document_entries.entry` is the postcard encoding of [`DocEntry`],
//!   its candidate slots bit-packed the same way.
//! - `document_prints.samples` is a document's learner samples packed
//!   (its word count, each hash as four little-endian bytes, each word
//!   position as a varint gap from the one before); NULL when it takes no
//!   part in learning. `document_boilerplate.boilerplate` is the postcard
//!   encoding of what it was fingerprinted without
//!   ([`doppel_pairing::boilerplate::DocBoilerplate`]), a row only where
//!   that is some boilerplate. (The team store keeps both in one
//!   postcard [`StoredBoilerplate`] a learning document.)
//! - `document_texts.text` is the zstd frame of a document's decoded
//!   UTF-8 text, with an xxh3 checksum beside it ([`StoredText`]).
//! - `pairs.scores` is the postcard encoding of a private mirror of
//!   [`doppel_core::engine::PairScores`] keyed by the algorithms' stable names, oriented from the
//!   pair's `a` (smaller id) to `b`.
//!
//! The code is split by backend and concern: `contract` says what a
//! store does, as [`Store`] and the trait of each concern ([`Meta`],
//! [`Documents`], [`Boilerplate`], [`Pairs`], [`Verdicts`]), and
//! [`open_at`] opens the backend an address names; `sqlite` is the
//! SQLite file backend ([`SqliteStore`]: opening, checking, moving a bad
//! file aside, its tables by concern), `pg` the PostgreSQL one (the team
//! store, feature `postgres`), each implementing every trait; what every
//! backend shares stays here: the records (`records`), a `documents` row
//! before decoding (`raw`), the on-disk encodings (`codec`), the kept
//! texts' compression (`texts`), the `meta` values (`meta`), the
//! changes other processes make to a shared store ([`live`]) and the
//! errors (`error`).
//!
//! Documents are named by [`DocPath`] everywhere in this API; a row id
//! ([`RowId`]) appears only where an index restores or rewrites its
//! library entries and pairs, which are stored by row.

mod address;
mod codec;
mod contract;
mod error;
pub mod live;
mod meta;
pub use meta::SharedThresholds;
#[cfg(feature = "postgres")]
mod pg;
mod raw;
mod records;
mod sqlite;
mod texts;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use doppel_core::doc::DocPath;
use doppel_core::engine::EngineConfig;
use doppel_core::hash::hash64;

#[cfg(feature = "postgres")]
pub use address::PgAddress;
pub use address::{redacted, redacted_in, StoreAddress, INDEX_FILE_EXTENSIONS};
pub use codec::ScoreList;
pub use contract::{open_at, Boilerplate, Documents, Meta, Pairs, Store, Verdicts};
pub use error::{OpenProblem, Result, StoreError};
#[cfg(feature = "postgres")]
pub use pg::{
    ClaimHeartbeat, Claimed, PairingLock, PairingPasses, PgStore, WorkLeft, PG_SCHEMA_VERSION,
};
pub use records::{
    DocEntry, DocRecord, DocStatus, DocSummary, OverruledPassage, PairUpdate, PairVerdictRecord,
    RowId, StoredBoilerplate, VerdictChange, ENTRY_FORMAT,
};
pub use sqlite::{MovedAside, OpenReport, PendingCheck, SqliteStore, STALE_CTIME};
pub use texts::{KeptText, StoredText};

use meta::MetaTable;

/// `PRAGMA application_id` of a doppel index ("dopp").
pub const APPLICATION_ID: i32 = 0x646f_7070;

/// `PRAGMA user_version` of the schema this build writes and reads (2:
/// fingerprints apart from `documents`, and stored library entries; 3: a
/// checksum beside each fingerprint blob; 4: each document's part in
/// boilerplate learning; 5: the kept texts of documents with boilerplate;
/// 6: a verdict per pair and curator, with their history, and the curator
/// of each keeper mark; 7: the learner's samples packed beside the
/// fingerprints, and boilerplate rows only for documents with
/// boilerplate; 8: each document's keeper facts, its text quality, words
/// and text form). A version-2 to -7 index is migrated when opened
/// read-write (the fingerprints of one before 5 or 8 are stale then
/// anyway: the configuration key names [`PRINTS_SCHEMA`]).
pub const SCHEMA_VERSION: i32 = 8;

/// The schema version whose document rows the configuration key names:
/// version 6 changed only the curator's tables and 7 only where the
/// learner's samples are kept, which must not make every file be read
/// again; 8 keeps each document's keeper facts, which only reading its
/// file gives, so every file is read again once.
pub const PRINTS_SCHEMA: i32 = 8;

/// The seed of the checksum stored beside each fingerprint blob
/// ([`blob_checksum`]).
const CHECKSUM_SEED: u64 = 0x00c5_ec4b_1ab5;

/// The checksum of a stored fingerprint blob (xxh3): a blob that does not
/// match it is treated as missing, and the file read again.
pub fn blob_checksum(blob: &[u8]) -> u64 {
    doppel_core::hash::hash64(blob, CHECKSUM_SEED)
}

/// How long a statement waits for another connection's lock before failing
/// with `SQLITE_BUSY`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The name of the index file of the folder at `canonical` (in the
/// platform data folder or the config's `index-dir`): the xxh3 of its
/// raw path bytes in hex, `.sqlite`.
pub fn index_file_name(canonical: &Path) -> String {
    format!(
        "{:016x}.sqlite",
        hash64(DocPath::from_relative(canonical).as_bytes(), 0)
    )
}

/// The content hash stored in [`DocRecord::content_hash`]: xxh3-64 of the bytes.
pub fn content_hash(bytes: &[u8]) -> u64 {
    hash64(bytes, 0)
}

/// [`content_hash`] of the file at `path` and its length in bytes, read a
/// MiB at a time (a big file is never held whole).
pub fn file_content_hash(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(0);
    let mut buffer = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return Ok((hasher.digest(), len)),
            Ok(n) => {
                hasher.update(&buffer[..n]);
                len += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The encoding of [`doppel_core::engine::Fingerprints`] blobs; bumped whenever a fingerprint
/// type changes (2: winnowing keeps hashes only, not positions; 3: hash
/// lists as little-endian bytes; 4: shingle sets of 32-bit values; 5:
/// 32-bit MinHash and winnow values; 6: SimHash counters summed per bit,
/// which rounds differently in rare near-ties; 7: SimHash weights rounded
/// to 1/256 and summed as integers; 8: SI keeps its sketch and sums it
/// unsigned; 9: scans fingerprinted without their page furniture; 10:
/// documents with learned boilerplate fingerprinted over their body; 11:
/// sorted hash sets (shingle, winnowing, candidate slots) bit-packed).
pub const FINGERPRINT_FORMAT: u32 = 11;

/// A key for [`Meta::set_config_hash`]: xxh3 of the configuration's JSON,
/// the crate version, [`PRINTS_SCHEMA`] and [`FINGERPRINT_FORMAT`] (a new
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
        "doppel {} schema {PRINTS_SCHEMA} fingerprints {FINGERPRINT_FORMAT}\n{json}",
        env!("CARGO_PKG_VERSION")
    );
    format!("{:016x}", hash64(keyed.as_bytes(), 0))
}

/// Who verdicts are recorded as when the configuration names no curator:
/// the login name (`USER`, else `USERNAME`), or `doppel` when neither is
/// set.
pub fn login_name() -> String {
    ["USER", "USERNAME"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "doppel".to_owned())
}

/// Now as unix nanoseconds (for `first_seen_ns`).
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// `path` made absolute and resolved through symlinks as far as it exists
/// (the rest, which does not exist yet, is appended lexically).
pub fn resolve_lenient(path: &Path) -> std::io::Result<PathBuf> {
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
