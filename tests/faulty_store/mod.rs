//! A store whose document writes fail as on a full disk, wrapped around
//! any store: what a failed write leaves behind (a chunk committed whole or
//! not at all, a worker that pauses and resumes) is tested through it.
//! [`Faults`] says which writes fail; [`FaultyStore`] keeps the
//! `doppel_store::Store` contract by handing every call to the
//! store it wraps, except those writes.
//!
//! A write is one document: [`Documents::upsert_document`] and
//! [`Documents::upsert_documents`] count one each (their one transaction),
//! [`Documents::commit_batch`] one per document it writes, and a failure
//! there fails the whole batch, as its rolled-back transaction would:
//! nothing of it reaches the wrapped store. The error is SQLite's
//! `SQLITE_FULL` ([`StoreError::is_storage_full`]), naming the store.
// Each test binary uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use doppel_core::doc::{CuratorVerdict, DocPath, FileIdentity};
use doppel_core::engine::{Engine, Fingerprints, PairScores};
use doppel_index::index::FolderIndex;
use doppel_pairing::candidates::DocKeys;
use doppel_pairing::library::LibraryConfig;
use doppel_store::live::{Listener, LiveEvent};
#[cfg(feature = "postgres")]
use doppel_store::PgStore;
use doppel_store::{
    Boilerplate, DocEntry, DocRecord, DocSummary, Documents, KeptText, Meta, OverruledPassage,
    PairUpdate, PairVerdictRecord, Pairs, Result, RowId, ScoreList, SharedThresholds, SqliteStore,
    Store, StoreError, StoredBoilerplate, VerdictChange, Verdicts,
};

/// Which document writes fail, shared by the test and the stores it
/// wraps (a clone counts the same writes): none until told.
#[derive(Debug, Clone, Default)]
pub struct Faults(Arc<Counts>);

/// Writes to let through, then writes to fail.
#[derive(Debug, Default)]
struct Counts {
    pass: AtomicUsize,
    fail: AtomicUsize,
}

impl Faults {
    /// Fail the next `n` document writes.
    pub fn fail_next_writes(&self, n: usize) {
        self.fail_after(0, n);
    }

    /// Let `pass` document writes succeed, then fail the next `n`.
    pub fn fail_after(&self, pass: usize, n: usize) {
        self.0.pass.store(pass, Ordering::SeqCst);
        self.0.fail.store(n, Ordering::SeqCst);
    }

    /// Writes still to fail.
    pub fn pending(&self) -> usize {
        self.0.fail.load(Ordering::SeqCst)
    }

    /// Whether this write fails (counting it).
    fn take(&self) -> bool {
        let less = |n: usize| n.checked_sub(1);
        if (self.0.pass)
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, less)
            .is_ok()
        {
            return false;
        }
        (self.0.fail)
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, less)
            .is_ok()
    }

    /// `store` with its document writes failing as these faults say.
    pub fn wrap(&self, store: Box<dyn Store>) -> Box<dyn Store> {
        Box::new(FaultyStore {
            inner: store,
            faults: self.clone(),
        })
    }
}

/// The index of `folder` in the file `index`, loaded as
/// `FolderIndex::open` loads it, its store's document writes failing as
/// `faults` say (none until told).
pub fn open_index(
    folder: &Path,
    engine: Engine,
    library: LibraryConfig,
    index: &Path,
    faults: &Faults,
) -> FolderIndex {
    let (store, _) = SqliteStore::open(index).unwrap();
    FolderIndex::open_with_store(folder, engine, library, faults.wrap(Box::new(store))).unwrap()
}

/// A store whose document writes fail as its [`Faults`] say.
#[derive(Debug)]
pub struct FaultyStore {
    inner: Box<dyn Store>,
    faults: Faults,
}

impl FaultyStore {
    /// The error of a write that fails, if this one does.
    fn write(&self, context: &str) -> Result<()> {
        if !self.faults.take() {
            return Ok(());
        }
        Err(StoreError::Sqlite {
            path: self.inner.path().to_path_buf(),
            context: context.to_owned(),
            error: rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
                Some("database or disk is full (injected)".into()),
            ),
        })
    }
}

impl Store for FaultyStore {
    fn path(&self) -> &Path {
        self.inner.path()
    }
    fn backend_name(&self) -> &'static str {
        self.inner.backend_name()
    }
    fn is_shared(&self) -> bool {
        self.inner.is_shared()
    }
    fn integrity_check(&self) -> Result<bool> {
        self.inner.integrity_check()
    }
    fn checkpoint(&self) -> Result<()> {
        self.inner.checkpoint()
    }
    fn lock_exclusively(&mut self) -> Result<bool> {
        self.inner.lock_exclusively()
    }
    fn listen(&self, report: Box<dyn FnMut(LiveEvent) -> bool + Send>) -> Option<Listener> {
        self.inner.listen(report)
    }
    #[cfg(feature = "postgres")]
    fn team(&mut self) -> Option<&mut PgStore> {
        self.inner.team()
    }
    #[cfg(feature = "postgres")]
    fn shared(&self) -> Option<&PgStore> {
        self.inner.shared()
    }
}

impl Documents for FaultyStore {
    fn upsert_document(&mut self, rec: &DocRecord, pairs: &[PairUpdate]) -> Result<RowId> {
        self.write("begin update")?;
        self.inner.upsert_document(rec, pairs)
    }
    fn upsert_documents(&mut self, items: &[(DocRecord, Vec<PairUpdate>)]) -> Result<Vec<RowId>> {
        self.write("begin batch update")?;
        self.inner.upsert_documents(items)
    }
    fn commit_batch(
        &mut self,
        stale: &[DocPath],
        docs: &[(DocRecord, Vec<PairUpdate>)],
        touched: &[(DocPath, Vec<PairUpdate>)],
    ) -> Result<Vec<RowId>> {
        for _ in docs {
            // Nothing of the batch is written: as rolled back.
            self.write("write batch")?;
        }
        self.inner.commit_batch(stale, docs, touched)
    }
    fn replace_pairs_of(&mut self, docs: &[(DocPath, Vec<PairUpdate>)]) -> Result<()> {
        self.inner.replace_pairs_of(docs)
    }
    fn remove_document(&mut self, doc: &DocPath) -> Result<bool> {
        self.inner.remove_document(doc)
    }
    fn remove_documents(&mut self, docs: &[DocPath]) -> Result<usize> {
        self.inner.remove_documents(docs)
    }
    fn rename_document(&mut self, from: &DocPath, to: &DocPath) -> Result<bool> {
        self.inner.rename_document(from, to)
    }
    fn document(&self, doc: &DocPath) -> Result<Option<DocRecord>> {
        self.inner.document(doc)
    }
    fn fingerprints_at(&self, docs: &[&DocPath]) -> Result<Vec<Option<Fingerprints>>> {
        self.inner.fingerprints_at(docs)
    }
    fn stored_keys(&self, docs: &[&DocPath]) -> Result<Option<Vec<Option<DocKeys>>>> {
        Documents::stored_keys(&*self.inner, docs)
    }
    fn take_corrupt(&self) -> Vec<DocPath> {
        self.inner.take_corrupt()
    }
    fn documents(&self) -> Result<Vec<DocRecord>> {
        self.inner.documents()
    }
    fn documents_without_blobs(&self) -> Result<Vec<DocRecord>> {
        self.inner.documents_without_blobs()
    }
    fn document_entries_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, DocEntry)>) -> Result<()>,
    ) -> Result<()> {
        self.inner.document_entries_each(each)
    }
    fn document_paths(&self) -> Result<Vec<(RowId, DocPath)>> {
        self.inner.document_paths()
    }
    fn document_count(&self) -> Result<u64> {
        self.inner.document_count()
    }
    fn stat_index(&self) -> Result<BTreeMap<DocPath, FileIdentity>> {
        self.inner.stat_index()
    }
    fn listing(&self) -> Result<Vec<DocSummary>> {
        self.inner.listing()
    }
}

impl Meta for FaultyStore {
    fn config_hash(&self) -> Result<Option<String>> {
        self.inner.config_hash()
    }
    fn set_config_hash(&mut self, hash: &str) -> Result<()> {
        self.inner.set_config_hash(hash)
    }
    fn pairs_hash(&self) -> Result<Option<String>> {
        self.inner.pairs_hash()
    }
    fn idf_generation(&self) -> Result<Option<u64>> {
        self.inner.idf_generation()
    }
    fn set_idf_generation(&mut self, generation: u64) -> Result<()> {
        self.inner.set_idf_generation(generation)
    }
    fn shared_thresholds(&self) -> Result<Option<SharedThresholds>> {
        self.inner.shared_thresholds()
    }
    fn set_shared_thresholds(&mut self, shared: &SharedThresholds) -> Result<()> {
        self.inner.set_shared_thresholds(shared)
    }
    fn overruled_passages(&self) -> Result<Vec<OverruledPassage>> {
        self.inner.overruled_passages()
    }
    fn set_overruled_passages(&mut self, passages: &[OverruledPassage]) -> Result<()> {
        self.inner.set_overruled_passages(passages)
    }
    fn folder(&self) -> Result<Option<PathBuf>> {
        self.inner.folder()
    }
    fn last_used(&self) -> Result<Option<SystemTime>> {
        self.inner.last_used()
    }
    fn record_use(&mut self, folder: &Path) -> Result<()> {
        self.inner.record_use(folder)
    }
}

impl Boilerplate for FaultyStore {
    fn boilerplate_of(&self, doc: &DocPath) -> Result<Option<StoredBoilerplate>> {
        self.inner.boilerplate_of(doc)
    }
    fn boilerplate(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        self.inner.boilerplate()
    }
    fn boilerplate_found(&self) -> Result<Vec<(DocPath, StoredBoilerplate)>> {
        self.inner.boilerplate_found()
    }
    fn kept_text(&self, doc: &DocPath) -> Result<Option<KeptText>> {
        self.inner.kept_text(doc)
    }
    fn text_totals(&self) -> Result<(u64, u64)> {
        self.inner.text_totals()
    }
}

impl Pairs for FaultyStore {
    fn pairs_each(
        &self,
        each: &mut dyn FnMut(Vec<(RowId, RowId, ScoreList)>) -> Result<()>,
    ) -> Result<()> {
        self.inner.pairs_each(each)
    }
    fn pair_count(&self) -> Result<usize> {
        self.inner.pair_count()
    }
    fn replace_pairs(
        &mut self,
        pairs: &mut dyn Iterator<Item = (RowId, RowId, PairScores)>,
        pairs_hash: &str,
    ) -> Result<()> {
        self.inner.replace_pairs(pairs, pairs_hash)
    }
    fn clear_entries(&mut self) -> Result<()> {
        self.inner.clear_entries()
    }
    fn put_entries(&mut self, entries: &[(RowId, DocEntry)]) -> Result<()> {
        self.inner.put_entries(entries)
    }
}

impl Verdicts for FaultyStore {
    fn curator(&self) -> &str {
        self.inner.curator()
    }
    fn set_curator(&mut self, curator: &str) {
        self.inner.set_curator(curator)
    }
    fn set_pair_verdict(
        &mut self,
        x: &DocPath,
        y: &DocPath,
        verdict: CuratorVerdict,
    ) -> Result<i64> {
        self.inner.set_pair_verdict(x, y, verdict)
    }
    fn clear_pair_verdict(&mut self, x: &DocPath, y: &DocPath) -> Result<bool> {
        self.inner.clear_pair_verdict(x, y)
    }
    fn pair_verdicts(&self) -> Result<Vec<PairVerdictRecord>> {
        self.inner.pair_verdicts()
    }
    fn pair_verdict_history(&self, x: &DocPath, y: &DocPath) -> Result<Vec<VerdictChange>> {
        self.inner.pair_verdict_history(x, y)
    }
    fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()> {
        self.inner.set_keeper(doc, keeper)
    }
    fn keepers(&self) -> Result<Vec<DocPath>> {
        self.inner.keepers()
    }
}
