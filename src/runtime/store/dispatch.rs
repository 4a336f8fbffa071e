//! [`Store`]'s methods, each forwarded to the backend that holds the
//! index (see [`Backend`]); what each does is the backend's to keep the
//! same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::meta::Meta;
#[cfg(feature = "postgres")]
use super::pg::PgStore;
use super::sqlite::SqliteStore;
use super::{
    Backend, DocEntry, DocRecord, DocSummary, KeptText, OpenReport, OverruledPassage, PairUpdate,
    PairVerdictRecord, PendingCheck, Result, RowId, ScoreList, SharedThresholds, Store,
    StoreAddress, StoreError, StoreFaults, StoredBoilerplate, VerdictChange,
};
use crate::doc::{CuratorVerdict, DocPath, FileIdentity};
use crate::engine::{Fingerprints, PairScores};
use crate::pairing::candidates::DocKeys;
use crate::pairing::library::PrintSource;

/// `$call` on the backend `$s` of `self` (`mut self` for a write).
macro_rules! dispatch {
    (mut $this:ident, $s:ident => $call:expr) => {
        match &mut $this.backend {
            Backend::Sqlite($s) => $call,
            #[cfg(feature = "postgres")]
            Backend::Postgres($s) => $call,
        }
    };
    ($this:ident, $s:ident => $call:expr) => {
        match &$this.backend {
            Backend::Sqlite($s) => $call,
            #[cfg(feature = "postgres")]
            Backend::Postgres($s) => $call,
        }
    };
}

impl Store {
    fn sqlite(store: SqliteStore) -> Store {
        Store {
            backend: Backend::Sqlite(store),
        }
    }

    /// Open the index at `address`: an SQLite file as [`Store::open`]
    /// does, or `collection` (the folder's canonical path, or a name given
    /// for it) in a PostgreSQL database, its verdicts recorded as
    /// `curator`'s. A database is never moved aside or replaced: one that
    /// cannot be used is an error (and the report says nothing was).
    pub fn open_at(
        address: &StoreAddress,
        collection: &str,
        curator: &str,
    ) -> Result<(Store, OpenReport)> {
        match address {
            StoreAddress::File(path) => {
                let _ = (collection, curator);
                Self::open(path)
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
                Ok((
                    Store {
                        backend: Backend::Postgres(Box::new(store)),
                    },
                    report,
                ))
            }
        }
    }

    /// Start following the changes other processes make to a shared
    /// store ([`super::live`]): `report` gets each, and returns `false` to
    /// stop. `None` for a file index, which only this process writes.
    pub fn listen(
        &self,
        report: impl FnMut(super::live::LiveEvent) -> bool + Send + 'static,
    ) -> Option<super::live::Listener> {
        match &self.backend {
            Backend::Sqlite(_) => {
                drop(report);
                None
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(store) => Some(store.listen(report)),
        }
    }

    /// The PostgreSQL backend, for what only a team store does (claims,
    /// see `pg::claims`); `None` for an SQLite file.
    #[cfg(feature = "postgres")]
    pub fn team(&mut self) -> Option<&mut PgStore> {
        match &mut self.backend {
            Backend::Postgres(s) => Some(s),
            Backend::Sqlite(_) => None,
        }
    }

    /// The PostgreSQL backend, for what only a team store does that needs
    /// no writing (document locks, see `pg::doc_locks`); `None` for an
    /// SQLite file.
    #[cfg(feature = "postgres")]
    pub fn shared(&self) -> Option<&PgStore> {
        match &self.backend {
            Backend::Postgres(s) => Some(s),
            Backend::Sqlite(_) => None,
        }
    }

    /// Whether several processes may share this store (a team store):
    /// what they save for the team is shared through it.
    pub fn is_shared(&self) -> bool {
        !matches!(self.backend, Backend::Sqlite(_))
    }

    /// The backend's kind, for messages and tests: `"sqlite"` or
    /// `"postgres"`.
    pub fn backend_name(&self) -> &'static str {
        match &self.backend {
            Backend::Sqlite(_) => "sqlite",
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => "postgres",
        }
    }

    /// Open (creating if needed) the index at `path`; a file there that is not
    /// a usable doppel index is moved aside and replaced by a fresh one, as
    /// the report says. Errors that do not prove the file bad (permissions,
    /// another process holding a lock, I/O) are returned and move nothing.
    pub fn open(path: &Path) -> Result<(Store, OpenReport)> {
        let (store, report) = SqliteStore::open(path)?;
        Ok((Self::sqlite(store), report))
    }

    /// [`Store::open`], except that an existing index's `PRAGMA
    /// quick_check`, which reads the whole file (about a quarter of a second
    /// per GB), runs on a connection of its own while the caller reads the
    /// index. The caller writes nothing before [`PendingCheck::passed`], and
    /// when it fails, drops this store and calls [`Store::open`], which
    /// moves the file aside.
    pub fn open_checking_in_background(path: &Path) -> Result<(Store, OpenReport, PendingCheck)> {
        let (store, report, check) = SqliteStore::open_checking_in_background(path)?;
        Ok((Self::sqlite(store), report, check))
    }

    /// Open an existing index for reading only (the UI's connection). Never
    /// creates or moves anything; a file that is not a usable index is an error.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        SqliteStore::open_read_only(path).map(Self::sqlite)
    }

    /// Open an existing index to look at it or remove it ([`crate::runtime::index_files`]):
    /// read-write, so closing it removes the `-wal`/`-shm` that reading
    /// creates, but never creating, moving or writing anything. A file that is not a doppel index of this schema is
    /// [`StoreError::NotAnIndex`].
    pub fn open_existing(path: &Path) -> Result<Store> {
        SqliteStore::open_existing(path).map(Self::sqlite)
    }

    /// The default index file for `root`: in [`Store::default_dir`], named
    /// by [`super::index_file_name`]. The same folder, however it is spelled or
    /// linked to, gets the same file. Refused when it would lie inside `root`
    /// (e.g. when watching the home folder); pass an explicit path then.
    pub fn default_path(root: &Path) -> Result<PathBuf> {
        SqliteStore::default_path(root)
    }

    /// The folder of the indexes when the config file names none: the
    /// platform data directory's `indexes` (`$XDG_DATA_HOME/doppel/indexes`
    /// on Linux).
    pub fn default_dir() -> Result<PathBuf> {
        SqliteStore::default_dir()
    }

    /// Make writes fail as [`StoreFaults`] says (tests).
    #[doc(hidden)]
    pub fn set_faults(&mut self, faults: Option<StoreFaults>) {
        dispatch!(mut self, s => s.set_faults(faults))
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        dispatch!(self, s => s.path())
    }

    /// `PRAGMA integrity_check` returns `ok`.
    pub fn integrity_check(&self) -> Result<bool> {
        dispatch!(self, s => s.integrity_check())
    }

    /// Copy the WAL into the database and truncate it (call when idle, so
    /// the `-wal` file does not grow without bound).
    pub fn checkpoint(&self) -> Result<()> {
        dispatch!(self, s => s.checkpoint())
    }

    // meta
    /// The engine configuration the stored fingerprints were made with
    /// (see [`super::engine_config_hash`]); `None` for a fresh index. When it differs
    /// from the running configuration, re-fingerprint and then set it.
    pub fn config_hash(&self) -> Result<Option<String>> {
        dispatch!(self, s => s.config_hash())
    }

    /// Record the engine configuration the stored fingerprints are made
    /// with from now on (see [`Store::config_hash`]).
    pub fn set_config_hash(&mut self, hash: &str) -> Result<()> {
        dispatch!(mut self, s => s.set_config_hash(hash))
    }

    /// The configuration the stored pairs were kept under (floors,
    /// candidate settings and the fingerprints' configuration); when it
    /// matches the current one, the pairs can be loaded instead of verified
    /// again. Empty when the stored pairs are known to be out of date.
    pub fn pairs_hash(&self) -> Result<Option<String>> {
        dispatch!(self, s => s.pairs_hash())
    }

    /// The generation of the IDF weights the stored IDF-dependent
    /// fingerprints were made with (`None` until set).
    pub fn idf_generation(&self) -> Result<Option<u64>> {
        dispatch!(self, s => s.idf_generation())
    }

    /// Record the generation of the IDF weights (see
    /// [`Store::idf_generation`]).
    pub fn set_idf_generation(&mut self, generation: u64) -> Result<()> {
        dispatch!(mut self, s => s.set_idf_generation(generation))
    }

    /// The thresholds a curator last saved for the team, if any.
    pub fn shared_thresholds(&self) -> Result<Option<SharedThresholds>> {
        dispatch!(self, s => s.shared_thresholds())
    }

    /// Record the thresholds saved for the team; on a team store, every
    /// other process following the collection hears of it.
    pub fn set_shared_thresholds(&mut self, shared: &SharedThresholds) -> Result<()> {
        dispatch!(mut self, s => s.set_shared_thresholds(shared))
    }

    /// The passages the curator overruled, in the order they were.
    pub fn overruled_passages(&self) -> Result<Vec<OverruledPassage>> {
        dispatch!(self, s => s.overruled_passages())
    }

    /// Record the overruled passages (replacing the list).
    pub fn set_overruled_passages(&mut self, passages: &[OverruledPassage]) -> Result<()> {
        dispatch!(mut self, s => s.set_overruled_passages(passages))
    }

    /// The canonical folder this index was made for; `None` for an index
    /// written before doppel recorded it (the next [`Store::record_use`]
    /// does).
    pub fn folder(&self) -> Result<Option<PathBuf>> {
        dispatch!(self, s => s.folder())
    }

    /// When a read-write open last used this index (see
    /// [`Store::record_use`]); `None` before doppel recorded it.
    pub fn last_used(&self) -> Result<Option<SystemTime>> {
        dispatch!(self, s => s.last_used())
    }

    /// Record, in one transaction, that this index is `folder`'s (its
    /// canonical path, kept as raw bytes so any name round-trips) and that
    /// it is used now.
    pub fn record_use(&mut self, folder: &Path) -> Result<()> {
        dispatch!(mut self, s => s.record_use(folder))
    }

    // documents
    /// Insert or replace the document at `rec.path` and its pairs in one
    /// transaction: the row is updated in place (same id, `first_seen_ns`
    /// kept), every pair it was part of is deleted, and `pairs` are inserted.
    /// Each pair is `(other path, engine.compare(this, other))`; the other
    /// path must already be in the index. Returns the document's id.
    pub fn upsert_document(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<RowId> {
        dispatch!(mut self, s => s.upsert_document(rec, pairs))
    }

    /// [`Store::upsert_document`] for many documents in one transaction
    /// (bulk loads): all are written, or none. Returns their ids in order.
    pub fn upsert_documents(
        &mut self,
        items: &[(DocRecord, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        dispatch!(mut self, s => s.upsert_documents(items))
    }

    /// Rewrite the stored pairs of documents already in the index (each
    /// with all its current pairs, whose other ends must be in the index
    /// too), in one transaction: the documents whose pairs a change to
    /// others altered ([`crate::pairing::library::Library::take_touched`]).
    pub fn replace_pairs_of(&mut self, docs: &[(DocPath, Vec<PairUpdate>)]) -> Result<()> {
        dispatch!(mut self, s => s.replace_pairs_of(docs))
    }

    /// Remove the document at `path` and (by cascade) its pairs. Verdicts,
    /// keyed by path, stay. `false` if it was not indexed.
    pub fn remove_document(&mut self, doc: &DocPath) -> Result<bool> {
        dispatch!(mut self, s => s.remove_document(doc))
    }

    /// Remove many documents in one transaction; returns how many existed.
    pub fn remove_documents(&mut self, docs: &[DocPath]) -> Result<usize> {
        dispatch!(mut self, s => s.remove_documents(docs))
    }

    /// A file was renamed: the row moves to `to` with its id, fingerprints,
    /// pairs and `first_seen_ns`, and verdicts on `from` follow it. A row
    /// already at `to` (the file the rename replaced) is removed first.
    /// `false` if `from` was not indexed (nothing changes).
    pub fn rename_document(&mut self, from: &DocPath, to: &DocPath) -> Result<bool> {
        dispatch!(mut self, s => s.rename_document(from, to))
    }

    /// The document at `doc`, if indexed.
    pub fn document(&self, doc: &DocPath) -> Result<Option<DocRecord>> {
        dispatch!(self, s => s.document(doc))
    }

    /// One document's part in boilerplate learning, if stored.
    pub fn boilerplate_of(&self, doc: &DocPath) -> Result<Option<StoredBoilerplate>> {
        dispatch!(self, s => s.boilerplate_of(doc))
    }

    /// Every stored document's part in boilerplate learning, by path.
    pub fn boilerplate(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        dispatch!(self, s => s.boilerplate())
    }

    /// The part in learning of every document fingerprinted without some
    /// boilerplate ([`StoredBoilerplate::has_boilerplate`]), by path: what
    /// the boilerplate report reads.
    pub fn boilerplate_found(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        dispatch!(self, s => s.boilerplate_found())
    }

    /// The fingerprints of the documents at these paths, in order (`None`
    /// where a path has none): read one row at a time, decoded in parallel.
    /// A blob that fails its checksum is `None` too: noted for
    /// [`Store::take_corrupt`] (the index reads the file again) and logged.
    pub fn fingerprints_at(&self, docs: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
        dispatch!(self, s => s.fingerprints_at(docs))
    }

    /// The documents whose stored fingerprints failed their checksum since
    /// the last call (read as missing): their files must be read again.
    pub fn take_corrupt(&self) -> Vec<DocPath> {
        dispatch!(self, s => s.take_corrupt())
    }

    /// Every document, fingerprints decoded, in id order.
    pub fn documents(&self) -> Result<Vec<DocRecord>> {
        dispatch!(self, s => s.documents())
    }

    /// [`Store::documents`] without fingerprints and terms: what opening
    /// an index reads of every document (the library's part of each is in
    /// [`Store::document_entries`]).
    pub fn documents_without_blobs(&self) -> Result<Vec<DocRecord>> {
        dispatch!(self, s => s.documents_without_blobs())
    }

    /// Every stored library entry ([`DocEntry`]) by document id, in id
    /// order.
    pub fn document_entries(&self) -> Result<Vec<(RowId, DocEntry)>> {
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
        each: impl FnMut(Vec<(RowId, DocEntry)>) -> Result<()>,
    ) -> Result<()> {
        dispatch!(self, s => s.document_entries_each(each))
    }

    /// Every document's id and path, in id order, without decoding blobs
    /// (to label [`Store::pairs`]).
    pub fn document_paths(&self) -> Result<Vec<(RowId, DocPath)>> {
        dispatch!(self, s => s.document_paths())
    }

    /// Number of documents (indexed and skipped).
    pub fn document_count(&self) -> Result<u64> {
        dispatch!(self, s => s.document_count())
    }

    /// Every stored path with its stat identity, for reconciling with the
    /// disk without reading file contents or decoding fingerprints.
    pub fn stat_index(&self) -> Result<BTreeMap<DocPath, FileIdentity>> {
        dispatch!(self, s => s.stat_index())
    }

    /// Every document's path, size, encoding and status, without decoding
    /// any fingerprint (for reports).
    pub fn listing(&self) -> Result<Vec<DocSummary>> {
        dispatch!(self, s => s.listing())
    }

    // batch
    /// Mark `stale` documents (those in the index) to be read again
    /// ([`super::STALE_CTIME`]), then write `docs` in order, each as [`Store::upsert_document`] does (a
    /// document's pairs may name documents written before it in `docs`),
    /// then give each of `touched` (documents in the index or in `docs`)
    /// exactly the pairs listed, as [`Store::replace_pairs_of`] does: all
    /// in one transaction. Returns the ids of `docs`.
    #[tracing::instrument(level = "debug", name = "store.commit_batch", skip_all, fields(docs = docs.len()))]
    pub fn commit_batch(
        &mut self,
        stale: &[DocPath],
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        if stale.is_empty() && docs.is_empty() && touched.is_empty() {
            return Ok(Vec::new());
        }
        tracing::trace!(
            stale = stale.len(),
            documents = docs.len(),
            touched = touched.len(),
            "commit batch"
        );
        dispatch!(mut self, s => s.commit_batch(stale, docs, touched))
    }

    // pairs
    /// Every stored pair `(a, b, scores)` with `a < b` (document ids) and the
    /// scores oriented from `a` to `b` (`a_in_b` is a's containment in b).
    pub fn pairs(&self) -> Result<Vec<(RowId, RowId, PairScores)>> {
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
        dispatch!(mut self, s => s.clear_entries())
    }

    /// Write the library entries of stored documents (by row id), in one
    /// transaction.
    pub fn put_entries(&mut self, entries: &[(RowId, DocEntry)]) -> Result<()> {
        dispatch!(mut self, s => s.put_entries(entries))
    }

    /// Replace every stored pair with `pairs` (document row ids, scores
    /// oriented from the first to the second) and record that they were
    /// kept under `pairs_hash` (see [`Store::pairs_hash`]), in one
    /// transaction.
    pub fn replace_pairs(
        &mut self,
        pairs: impl IntoIterator<Item = (RowId, RowId, PairScores)>,
        pairs_hash: &str,
    ) -> Result<()> {
        dispatch!(mut self, s => s.replace_pairs(pairs, pairs_hash))
    }

    /// How many pairs are stored (counted on the small `pairs_by_b` index,
    /// not the scores).
    pub fn pair_count(&self) -> Result<usize> {
        dispatch!(self, s => s.pair_count())
    }

    /// [`Store::pairs`] a decoded chunk at a time, each pair's scores as a
    /// list.
    pub fn pairs_each(
        &self,
        each: impl FnMut(Vec<(RowId, RowId, ScoreList)>) -> Result<()>,
    ) -> Result<()> {
        dispatch!(self, s => s.pairs_each(each))
    }

    // texts
    /// The decoded text `doc` was last fingerprinted from, if kept, with
    /// what its row says of the file it was decoded from. A blob that fails
    /// its checksum or does not decompress to UTF-8 is `None` (logged): the
    /// caller reads the file.
    pub fn kept_text(&self, doc: &DocPath) -> Result<Option<KeptText>> {
        dispatch!(self, s => s.kept_text(doc))
    }

    /// Documents with a kept text and the bytes kept, compressed.
    pub fn text_totals(&self) -> Result<(u64, u64)> {
        dispatch!(self, s => s.text_totals())
    }

    // verdicts
    /// Who this store's verdicts and keeper marks are recorded as (the
    /// login name unless set).
    pub fn curator(&self) -> &str {
        dispatch!(self, s => s.curator())
    }

    /// Record the verdicts and keeper marks written from now on as
    /// `curator`'s (the configuration's `curator`).
    pub fn set_curator(&mut self, curator: &str) {
        dispatch!(mut self, s => s.set_curator(curator))
    }

    /// Record this store's curator's verdict on two documents (in either
    /// order), replacing only their own, and append it to the pair's
    /// history; returns when (unix ns).
    pub fn set_pair_verdict(
        &mut self,
        x: &DocPath,
        y: &DocPath,
        verdict: CuratorVerdict,
    ) -> Result<i64> {
        dispatch!(mut self, s => s.set_pair_verdict(x, y, verdict))
    }

    /// Forget this store's curator's verdict on two documents (another
    /// curator's stays) and append the clearing to the pair's history;
    /// `false` if they had none.
    pub fn clear_pair_verdict(&mut self, x: &DocPath, y: &DocPath) -> Result<bool> {
        dispatch!(mut self, s => s.clear_pair_verdict(x, y))
    }

    /// Every curator's current verdict on every pair, ordered by path, then
    /// time, then curator.
    pub fn pair_verdicts(&self) -> Result<Vec<PairVerdictRecord>> {
        dispatch!(self, s => s.pair_verdicts())
    }

    /// Every set and clear of a verdict on two documents (in either order),
    /// oldest first.
    pub fn pair_verdict_history(&self, x: &DocPath, y: &DocPath) -> Result<Vec<VerdictChange>> {
        dispatch!(self, s => s.pair_verdict_history(x, y))
    }

    /// Mark (or unmark) a document as its cluster's keeper.
    pub fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()> {
        dispatch!(mut self, s => s.set_keeper(doc, keeper))
    }

    /// Every document marked as a keeper, in byte order.
    pub fn keepers(&self) -> Result<Vec<DocPath>> {
        dispatch!(self, s => s.keepers())
    }

    // open
    /// Take an exclusive lock on the index for as long as this connection
    /// lives; `false` when another connection, in this process or another,
    /// has the index open (even idle or read-only: in WAL mode every open
    /// connection keeps a shared lock on the file). Only for a store about to
    /// be dropped, e.g. before its files are removed.
    pub fn lock_exclusively(&mut self) -> Result<bool> {
        dispatch!(mut self, s => s.lock_exclusively())
    }
}

impl PrintSource for Store {
    type Error = StoreError;

    /// The stored fingerprints ([`Store::fingerprints_at`]).
    fn full_prints(&self, paths: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
        self.fingerprints_at(paths)
    }

    /// The keys of the stored library entries, read by path; a team
    /// store gives none (they are derived from the prints).
    fn stored_keys(&self, paths: &[&DocPath]) -> Result<Option<Vec<Option<DocKeys>>>> {
        match &self.backend {
            Backend::Sqlite(s) => {
                let entries = s.entries_at(paths)?;
                Ok(Some(
                    entries.into_iter().map(|e| e.map(|e| e.keys)).collect(),
                ))
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Ok(None),
        }
    }
}
