//! The contract every backend keeps: [`Store`], made of one trait per
//! concern — [`Meta`] (what an index records about itself),
//! [`Documents`] (one row per file, written alone or a chunk at a time),
//! [`Boilerplate`] (each document's part in learning, and the texts kept
//! for it), [`Pairs`] (the kept pairs and library entries, by row) and
//! [`Verdicts`] (the curators' decisions). The SQLite file
//! ([`SqliteStore`]) and the PostgreSQL database (`PgStore`, feature
//! `postgres`) implement each, every file of a backend the trait of its
//! concern; what each method does is said here, once, and each backend
//! keeps to it.
//!
//! Callers hold a store as a `Box<dyn Store>`: [`open_at`] opens the one
//! an address names (the one place an address becomes a backend), and
//! every method is called through it with no trait in scope. A store's
//! writes take `&mut self` and each is one transaction; one writer owns a
//! read-write store, and readers (the UI) open their own
//! ([`SqliteStore::open_read_only`]).
//!
//! Anything that implements every trait is a store: a test may wrap one
//! to make its writes fail, an embedder hand an index one it opened
//! itself (`doppel_index::index::FolderIndex::open_with_store`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::live::{Listener, LiveEvent};
#[cfg(feature = "postgres")]
use super::PgStore;
use super::{
    DocEntry, DocRecord, DocSummary, KeptText, OpenReport, OverruledPassage, PairUpdate,
    PairVerdictRecord, Result, RowId, ScoreList, SharedThresholds, SqliteStore, StoreAddress,
    StoreError, StoredBoilerplate, VerdictChange,
};
use doppel_core::doc::{CuratorVerdict, DocPath, FileIdentity};
use doppel_core::engine::{Fingerprints, PairScores};
use doppel_pairing::candidates::DocKeys;
use doppel_pairing::library::PrintSource;

/// One doppel index, in whichever backend holds it: an SQLite file (the
/// embedded default, [`SqliteStore`]) or a collection in a PostgreSQL
/// database (the team store). What it keeps is in the traits it is made
/// of; this one has what is about the store itself.
pub trait Store: Meta + Documents + Boilerplate + Pairs + Verdicts + fmt::Debug + Send {
    /// The index file, or the database's address as a path (its password
    /// left out): what errors and logs name.
    fn path(&self) -> &Path;

    /// The backend's kind, for messages and tests: `"sqlite"` or
    /// `"postgres"`.
    fn backend_name(&self) -> &'static str;

    /// Whether several processes may share this store (a team store):
    /// what they save for the team is shared through it.
    fn is_shared(&self) -> bool;

    /// The store is consistent: an index file's `PRAGMA integrity_check`
    /// returns `ok` (always `true` for a database, whose server keeps its
    /// own files consistent).
    fn integrity_check(&self) -> Result<bool>;

    /// Copy an index file's WAL into the database and truncate it (call
    /// when idle, so the `-wal` file does not grow without bound); nothing
    /// to do for a database, whose server checkpoints its own log.
    fn checkpoint(&self) -> Result<()>;

    /// Take an exclusive lock on the index for as long as this connection
    /// lives; `false` when another connection, in this process or another,
    /// has it open (an index file: even idle or read-only, as in WAL mode
    /// every open connection keeps a shared lock on the file; a database:
    /// another session holds the collection's lock). Only for a store
    /// about to be dropped, e.g. before its files are removed.
    fn lock_exclusively(&mut self) -> Result<bool>;

    /// Start following the changes other processes make to a shared
    /// store ([`super::live`]): `report` gets each, and returns `false` to
    /// stop. `None` (the default) for a store only this process writes.
    fn listen(&self, report: Box<dyn FnMut(LiveEvent) -> bool + Send>) -> Option<Listener> {
        drop(report);
        None
    }

    /// The PostgreSQL backend, for what only a team store does (claims,
    /// see `pg::claims`); `None` (the default) for any other store.
    #[cfg(feature = "postgres")]
    fn team(&mut self) -> Option<&mut PgStore> {
        None
    }

    /// The PostgreSQL backend, for what only a team store does that needs
    /// no writing (document locks, see `pg::doc_locks`); `None` (the
    /// default) for any other store.
    #[cfg(feature = "postgres")]
    fn shared(&self) -> Option<&PgStore> {
        None
    }
}

/// What an index records about itself (its `meta` values): the folder it
/// is of, when it was last used, the configurations its fingerprints and
/// pairs were made under, and what curators saved for everyone. Each
/// write is one transaction.
pub trait Meta {
    /// The engine configuration the stored fingerprints were made with
    /// (see [`super::engine_config_hash`]); `None` for a fresh index. When
    /// it differs from the running configuration, re-fingerprint and then
    /// set it.
    fn config_hash(&self) -> Result<Option<String>>;

    /// Record the engine configuration the stored fingerprints are made
    /// with from now on (see [`Meta::config_hash`]).
    fn set_config_hash(&mut self, hash: &str) -> Result<()>;

    /// The configuration the stored pairs were kept under (floors,
    /// candidate settings and the fingerprints' configuration); when it
    /// matches the current one, the pairs can be loaded instead of verified
    /// again. Empty when the stored pairs are known to be out of date.
    /// [`Pairs::replace_pairs`] sets it.
    fn pairs_hash(&self) -> Result<Option<String>>;

    /// The generation of the IDF weights the stored IDF-dependent
    /// fingerprints were made with (`None` until set).
    fn idf_generation(&self) -> Result<Option<u64>>;

    /// Record the generation of the IDF weights (see
    /// [`Meta::idf_generation`]).
    fn set_idf_generation(&mut self, generation: u64) -> Result<()>;

    /// The thresholds a curator last saved for the team, if any.
    fn shared_thresholds(&self) -> Result<Option<SharedThresholds>>;

    /// Record the thresholds saved for the team (replacing the last); on a
    /// team store, every other process following the collection hears of
    /// it.
    fn set_shared_thresholds(&mut self, shared: &SharedThresholds) -> Result<()>;

    /// The passages the curator overruled, in the order they were.
    fn overruled_passages(&self) -> Result<Vec<OverruledPassage>>;

    /// Record the overruled passages (replacing the list); on a team
    /// store, every other process following the collection hears of it.
    fn set_overruled_passages(&mut self, passages: &[OverruledPassage]) -> Result<()>;

    /// The canonical folder this index was made for; `None` for an index
    /// written before doppel recorded it (the next [`Meta::record_use`]
    /// does).
    fn folder(&self) -> Result<Option<PathBuf>>;

    /// When a read-write open last used this index (see
    /// [`Meta::record_use`]); `None` before doppel recorded it.
    fn last_used(&self) -> Result<Option<SystemTime>>;

    /// Record, in one transaction, that this index is `folder`'s (its
    /// canonical path, kept as raw bytes so any name round-trips) and that
    /// it is used now.
    fn record_use(&mut self, folder: &Path) -> Result<()>;
}

/// One row per file of the folder: its stat identity, content hash and
/// status, its fingerprints and its library entry, written with its pairs
/// in one transaction, so a crash leaves each file either fully old or
/// fully new. Documents are named by their [`DocPath`]; a [`RowId`]
/// appears only where an index restores or rewrites what is stored by
/// row.
pub trait Documents {
    /// Insert or replace the document at `rec.path` and its pairs in one
    /// transaction: the row is updated in place (same id, `first_seen_ns`
    /// kept), every pair it was part of is deleted, and `pairs` are inserted.
    /// Each pair is `(other path, engine.compare(this, other))`; the other
    /// path must already be in the index. Returns the document's id.
    fn upsert_document(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<RowId>;

    /// [`Documents::upsert_document`] for many documents in one
    /// transaction (bulk loads): all are written, or none. Returns their
    /// ids in order.
    fn upsert_documents(&mut self, items: &[(DocRecord, Vec<PairUpdate>)]) -> Result<Vec<RowId>>;

    /// Mark `stale` documents (those in the index) to be read again
    /// ([`super::STALE_CTIME`]), then write `docs` in order, each as
    /// [`Documents::upsert_document`] does (a document's pairs may name
    /// documents written before it in `docs`), then give each of `touched`
    /// (documents in the index or in `docs`) exactly the pairs listed, as
    /// [`Documents::replace_pairs_of`] does: all in one transaction, or
    /// none of it (nothing at all when all three are empty). Returns the
    /// ids of `docs`.
    ///
    /// One transaction per chunk of files instead of one per file is what
    /// keeps the indexed scan close to the `--no-index` one (see
    /// BENCHMARKS.md, "The persistent index"); a crash leaves every file of
    /// the chunk as it was before, and whatever the chunk made stale is
    /// read again by the next run.
    fn commit_batch(
        &mut self,
        stale: &[DocPath],
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>>;

    /// Rewrite the stored pairs of documents already in the index (each
    /// with all its current pairs, whose other ends must be in the index
    /// too), in one transaction: the documents whose pairs a change to
    /// others altered ([`doppel_pairing::library::Library::take_touched`]).
    fn replace_pairs_of(&mut self, docs: &[(DocPath, Vec<PairUpdate>)]) -> Result<()>;

    /// Remove the document at `doc` and (by cascade) its pairs. Verdicts,
    /// keyed by path, stay. `false` if it was not indexed.
    fn remove_document(&mut self, doc: &DocPath) -> Result<bool>;

    /// Remove many documents in one transaction; returns how many existed.
    fn remove_documents(&mut self, docs: &[DocPath]) -> Result<usize>;

    /// A file was renamed: the row moves to `to` with its id, fingerprints,
    /// pairs and `first_seen_ns`, and verdicts on `from` follow it. A row
    /// already at `to` (the file the rename replaced) is removed first.
    /// `false` if `from` was not indexed (nothing changes).
    fn rename_document(&mut self, from: &DocPath, to: &DocPath) -> Result<bool>;

    /// The document at `doc`, if indexed.
    fn document(&self, doc: &DocPath) -> Result<Option<DocRecord>>;

    /// The fingerprints of the documents at these paths, in order (`None`
    /// where a path has none), decoded in parallel. A blob that fails its
    /// checksum is `None` too: noted for [`Documents::take_corrupt`] (the
    /// index reads the file again) and logged.
    fn fingerprints_at(&self, docs: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>>;

    /// The candidate keys of the stored library entries of the documents
    /// at these paths, in order (`None` where a path has none), read
    /// without their fingerprints: what a fresh library takes back
    /// ([`PrintSource::stored_keys`]). `Ok(None)` from a store that reads
    /// no entry by path (a team store: the keys are derived from the
    /// fingerprints).
    fn stored_keys(&self, docs: &[&DocPath]) -> Result<Option<Vec<Option<DocKeys>>>>;

    /// The documents whose stored fingerprints failed their checksum since
    /// the last call (read as missing): their files must be read again.
    fn take_corrupt(&self) -> Vec<DocPath>;

    /// Every document, fingerprints decoded, in id order.
    fn documents(&self) -> Result<Vec<DocRecord>>;

    /// [`Documents::documents`] without fingerprints and terms: what
    /// opening an index reads of every document (the library's part of
    /// each is in [`Documents::document_entries`]).
    fn documents_without_blobs(&self) -> Result<Vec<DocRecord>>;

    /// Every stored library entry ([`DocEntry`]) by document id, in id
    /// order.
    fn document_entries(&self) -> Result<Vec<(RowId, DocEntry)>> {
        let mut out = Vec::new();
        self.document_entries_each(&mut |chunk| {
            out.extend(chunk);
            Ok(())
        })?;
        Ok(out)
    }

    /// [`Documents::document_entries`] a decoded chunk at a time, in id
    /// order; an error from `each` stops the read and is returned.
    fn document_entries_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, DocEntry)>) -> Result<()>,
    ) -> Result<()>;

    /// Every document's id and path, in id order, without decoding blobs
    /// (to label [`Pairs::pairs`]).
    fn document_paths(&self) -> Result<Vec<(RowId, DocPath)>>;

    /// Number of documents (indexed and skipped).
    fn document_count(&self) -> Result<u64>;

    /// Every stored path with its stat identity, for reconciling with the
    /// disk without reading file contents or decoding fingerprints.
    fn stat_index(&self) -> Result<BTreeMap<DocPath, FileIdentity>>;

    /// Every document's path, size, encoding and status, without decoding
    /// any fingerprint (for reports).
    fn listing(&self) -> Result<Vec<DocSummary>>;
}

/// Each document's part in boilerplate learning (written with the
/// document, [`DocRecord::boilerplate`]) and the decoded texts kept of
/// documents with boilerplate (so what a change to the learned passages
/// moves is fingerprinted again without reading the file).
pub trait Boilerplate {
    /// One document's part in boilerplate learning, if stored.
    fn boilerplate_of(&self, doc: &DocPath) -> Result<Option<StoredBoilerplate>>;

    /// Every stored document's part in boilerplate learning, by path.
    fn boilerplate(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>>;

    /// The part in learning of every document fingerprinted without some
    /// boilerplate ([`StoredBoilerplate::has_boilerplate`]), by path: what
    /// the boilerplate report reads.
    fn boilerplate_found(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>>;

    /// The decoded text `doc` was last fingerprinted from, if kept, with
    /// what its row says of the file it was decoded from. A blob that fails
    /// its checksum or does not decompress to UTF-8 is `None` (logged): the
    /// caller reads the file.
    fn kept_text(&self, doc: &DocPath) -> Result<Option<KeptText>>;

    /// Documents with a kept text and the bytes kept, compressed.
    fn text_totals(&self) -> Result<(u64, u64)>;
}

/// The kept pairs and every document's library entry, stored by row so
/// that reopening an index restores its library without verifying again.
pub trait Pairs {
    /// Every stored pair `(a, b, scores)` with `a < b` (document ids) and the
    /// scores oriented from `a` to `b` (`a_in_b` is a's containment in b).
    fn pairs(&self) -> Result<Vec<(RowId, RowId, PairScores)>> {
        let mut out = Vec::new();
        self.pairs_each(&mut |chunk| {
            out.extend(
                chunk
                    .into_iter()
                    .map(|(a, b, scores)| (a, b, scores.into_iter().collect())),
            );
            Ok(())
        })?;
        Ok(out)
    }

    /// [`Pairs::pairs`] a decoded chunk at a time, each pair's scores as a
    /// list; an error from `each` stops the read and is returned.
    fn pairs_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, RowId, ScoreList)>) -> Result<()>,
    ) -> Result<()>;

    /// How many pairs are stored (on an index file, counted on the small
    /// `pairs_by_b` index, not the scores).
    fn pair_count(&self) -> Result<usize>;

    /// Replace every stored pair with `pairs` (document row ids, scores
    /// oriented from the first to the second) and record that they were
    /// kept under `pairs_hash` (see [`Meta::pairs_hash`]), in one
    /// transaction.
    fn replace_pairs(
        &mut self,
        pairs: &mut dyn Iterator<Item = (RowId, RowId, PairScores)>,
        pairs_hash: &str,
    ) -> Result<()>;

    /// Forget every stored library entry (before they are written again).
    fn clear_entries(&mut self) -> Result<()>;

    /// Write the library entries of stored documents (by row id), in one
    /// transaction.
    fn put_entries(&mut self, entries: &[(RowId, DocEntry)]) -> Result<()>;
}

/// The curators' decisions, keyed by path (not by row) so they survive a
/// file being forgotten and indexed again: each curator's current verdict
/// on a pair (a second curator's never replaces the first's), the history
/// of every set and clear, and the documents marked as keepers, each with
/// who and when. No folder can recompute them, so each is committed
/// durably.
pub trait Verdicts {
    /// Who this store's verdicts and keeper marks are recorded as (the
    /// login name unless set).
    fn curator(&self) -> &str;

    /// Record the verdicts and keeper marks written from now on as
    /// `curator`'s (the configuration's `curator`).
    fn set_curator(&mut self, curator: &str);

    /// Record this store's curator's verdict on two documents (in either
    /// order), replacing only their own, and append it to the pair's
    /// history; returns when (unix ns).
    fn set_pair_verdict(
        &mut self,
        x: &DocPath,
        y: &DocPath,
        verdict: CuratorVerdict,
    ) -> Result<i64>;

    /// Forget this store's curator's verdict on two documents (another
    /// curator's stays) and append the clearing to the pair's history;
    /// `false` if they had none.
    fn clear_pair_verdict(&mut self, x: &DocPath, y: &DocPath) -> Result<bool>;

    /// Every curator's current verdict on every pair, ordered by path, then
    /// time, then curator.
    fn pair_verdicts(&self) -> Result<Vec<PairVerdictRecord>>;

    /// Every set and clear of a verdict on two documents (in either order),
    /// oldest first.
    fn pair_verdict_history(&self, x: &DocPath, y: &DocPath) -> Result<Vec<VerdictChange>>;

    /// Mark (or unmark) a document as its cluster's keeper.
    fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()>;

    /// Every document marked as a keeper, in byte order.
    fn keepers(&self) -> Result<Vec<DocPath>>;
}

/// A library reads a store's fingerprints and stored keys through it.
impl PrintSource for dyn Store + '_ {
    type Error = StoreError;

    /// The stored fingerprints ([`Documents::fingerprints_at`]).
    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
        self.fingerprints_at(paths)
    }

    /// The keys of the stored library entries ([`Documents::stored_keys`]).
    fn stored_keys(&self, paths: &[&DocPath]) -> Result<Option<Vec<Option<DocKeys>>>> {
        Documents::stored_keys(self, paths)
    }
}

/// Open the index at `address`: an SQLite file as [`SqliteStore::open`]
/// does, or `collection` (the folder's canonical path, or a name given
/// for it) in a PostgreSQL database, its verdicts recorded as
/// `curator`'s. A database is never moved aside or replaced: one that
/// cannot be used is an error (and the report says nothing was).
pub fn open_at(
    address: &StoreAddress,
    collection: &str,
    curator: &str,
) -> Result<(Box<dyn Store>, OpenReport)> {
    match address {
        StoreAddress::File(path) => {
            let _ = (collection, curator);
            let (store, report) = SqliteStore::open(path)?;
            Ok((Box::new(store), report))
        }
        #[cfg(feature = "postgres")]
        StoreAddress::Postgres(address) => {
            let store = PgStore::open(address, collection, curator)?;
            let created = store.document_count()? == 0 && store.config_hash()?.is_none();
            let report = OpenReport {
                path: store.path().to_path_buf(),
                created,
                moved_aside: None,
                warnings: Vec::new(),
            };
            Ok((Box::new(store), report))
        }
    }
}
