//! A folder's persistent index: the SQLite store, the in-memory library and
//! the engine, kept equal to what is on disk.
//!
//! [`FolderIndex::open`] loads each document's stored library entry and the
//! kept pairs without reading a single file (under another library
//! configuration it verifies the stored fingerprints again, once);
//! [`FolderIndex::reconcile`] then compares each file's `lstat` identity
//! (size, mtime, ctime, inode, device) with the stored one and reads only
//! new or changed files, a chunk at a time, each chunk committed in one
//! store transaction, and forgets files that are gone. A changed engine configuration makes every
//! stored fingerprint stale until a reconcile has read every file again.
//! Curator verdicts live in the store, keyed by path, and are applied to
//! the library on open. Every open records the folder in the index and the
//! time it was used; an index recording another folder is refused.
//!
//! The watcher's events come in through [`FolderIndex::sync_paths`] (and
//! [`FolderIndex::upsert_path`] / [`FolderIndex::remove_path`]): the same
//! identity-checked read and one store transaction for all of the files
//! an event names, for just the paths that changed. A file that changes
//! while it is read is never committed ([`FileChange::Retry`]). A missing root is an error, never a
//! reason to forget files: the index stays as it was until the folder is back.
//!
//! Every document is named by its [`DocPath`] throughout: in the library,
//! the store, the changes reported and the curator's verdicts. Opening is
//! in `open`; keeping the index equal to the folder is in `sync`, a
//! reconcile's chunks going through `chunks`' `Pipeline` (read, learned,
//! committed by `commit`).
//!
//! The index's modes are states, each moved only by its transitions:
//! its purpose, stored prints and pass (`state`: kept or one-shot;
//! current or stale; pairing as documents arrive or filing them to pair
//! at once), and what stands for its boilerplate learner (`learning`:
//! unbuilt, built, or what a one-shot scan learned at once), each
//! module's text drawing its diagram. What it knows of the files without
//! reading one is `files`'; how it reads and commits, [`IndexOptions`].

mod at_once;
mod book_paths;
mod chunks;
#[cfg(feature = "postgres")]
mod claimed;
mod commit;
mod elsewhere;
mod error;
mod files;
mod learn;
mod learning;
mod open;
mod options;
#[cfg(feature = "postgres")]
mod shared_reading;
mod state;
mod sync;

use files::FolderFiles;
use learning::IndexBoilerplate;
use open::{pairs_by_row, pairs_config_hash, read_verdicts, unpaired_hash};
use state::IndexState;

#[cfg(feature = "postgres")]
pub use claimed::{pair_when_done, IngestOptions, Paired, ShareReport};
pub use elsewhere::{read_for_index, IndexRead, ReadsElsewhere};
pub use error::{IndexError, Result};
pub use options::{FileReader, IndexOptions, Phase, PhaseHook};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::reading::ReadLimits;
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::{Engine, Fingerprints, Thresholds};
use doppel_pairing::library::{Library, PrintSource};
use doppel_store::{Store, VerdictChange};

/// What [`FolderIndex::reconcile`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReconcileReport {
    /// Files whose content was read (new, changed, or stale fingerprints).
    pub read: usize,
    /// Files found unchanged by their identity alone.
    pub unchanged: usize,
    /// Stored files no longer on disk, now forgotten.
    pub removed: usize,
    /// Files skipped (binary, empty, unreadable, ...), each with a reason.
    pub skipped: usize,
    /// What changed, file by file (unchanged files are not listed).
    pub changes: Vec<FileChange>,
    /// The progress callback (or [`IndexOptions::on_phase`]) asked to
    /// stop: files not yet read are read by the next reconcile.
    pub cancelled: bool,
}

/// One file's change in the index, for front ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// Read and fingerprinted (new or changed).
    Indexed {
        /// The document.
        path: DocPath,
    },
    /// Not a document, with the reason.
    Skipped {
        /// The file.
        path: DocPath,
        /// Why, in words.
        reason: String,
    },
    /// Fingerprinted again, its file unchanged: the boilerplate learned
    /// around it (or a curator's ruling on it) moved, so its body did.
    /// Not a change of the file: `watch` reports no `indexed` event for it.
    Reprinted {
        /// The document.
        path: DocPath,
    },
    /// Gone from the folder (or now ignored), forgotten.
    Removed {
        /// The document.
        path: DocPath,
    },
    /// Changed while being read: nothing was committed; read it again once
    /// it has settled.
    Retry {
        /// The file (absolute, as the watcher names it).
        path: PathBuf,
    },
}

/// How far the reading stage of a reconcile is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadProgress {
    /// Files read (or found unreadable) so far, of `total` to read.
    pub done: usize,
    /// Files to read in all.
    pub total: usize,
    /// Bytes of the files done so far, of `total_bytes`.
    pub bytes: u64,
    /// Bytes of the files to read in all.
    pub total_bytes: u64,
}

/// A folder, its store and its library, kept equal to each other.
pub struct FolderIndex {
    root: PathBuf,
    /// Shared with a reconcile's reading thread (`sync`).
    engine: std::sync::Arc<Engine>,
    store: Box<dyn Store>,
    library: Library,
    /// The folder's files as stored or skipped: tells unchanged files
    /// without reading them, and finds the documents under a folder.
    files: FolderFiles,
    /// The current engine configuration's key ([`Store::config_hash`]).
    config_hash: String,
    /// Its purpose, stored prints and pass (`state`).
    state: IndexState,
    /// The learner, the documents whose spans moved, the report
    /// (`learning`).
    boilerplate: IndexBoilerplate,
    /// How it reads and commits.
    options: IndexOptions,
}

impl std::fmt::Debug for FolderIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderIndex")
            .field("root", &self.root)
            .field("documents", &self.library.len())
            .finish()
    }
}

impl FolderIndex {
    /// Read and commit as `options` say from now on (see
    /// [`IndexOptions`]: the ignore globs and reading limits, chunk sizes,
    /// a file reader of the caller's, a hook told of a reconcile's
    /// phases), all of them replaced: start from
    /// [`FolderIndex::options`] to change some.
    pub fn set_options(&mut self, options: IndexOptions) {
        self.library.set_batch_docs(options.batch_docs);
        self.options = options;
    }

    /// How it reads and commits.
    pub fn options(&self) -> &IndexOptions {
        &self.options
    }

    /// The folder (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The engine the documents are fingerprinted and compared with.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The library: documents, kept pairs, verdicts.
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// Take a step of the work a reopened index leaves until a change
    /// needs it (see [`Library::prepare_some`]); whether more is to do.
    pub fn prepare_some(&mut self) -> bool {
        self.library.prepare_some()
    }

    /// Close the index and keep its library (a one-shot report needs no
    /// second copy of every fingerprint and table).
    pub fn into_library(self) -> Library {
        self.library
    }

    /// [`FolderIndex::into_library`] without the documents at `left_out`
    /// (a report that cannot vouch for them; the index keeps them).
    pub fn into_library_without(mut self, left_out: &[DocPath]) -> Result<Library> {
        self.library
            .remove_many(&self.engine, left_out, &*self.store)?;
        Ok(self.library)
    }

    /// Free the boilerplate learner (~2 KB a document; at 110k texts
    /// ~220 MiB) where nothing will change any more (a one-shot scan's
    /// report); the next change builds it again from the store.
    pub fn drop_learner(&mut self) {
        if self.boilerplate.take_learner().is_some() {
            crate::memory::release_freed();
        }
    }

    /// [`FolderIndex::drop_learner`] on a thread of its own, for a caller
    /// that needs neither the learner nor the wait while it is freed (a
    /// one-shot scan's report: ~10 ms at 13k texts).
    pub fn drop_learner_aside(&mut self) {
        let Some(learner) = self.boilerplate.take_learner() else {
            return;
        };
        let freeing = std::thread::Builder::new()
            .name("doppel-free".into())
            .spawn(move || {
                drop(learner);
                crate::memory::release_freed();
            });
        if freeing.is_err() {
            crate::memory::release_freed();
        }
    }

    /// Whether the boilerplate learner is in memory (it is built from the
    /// store when a change first needs it).
    pub fn holds_learner(&self) -> bool {
        self.boilerplate.holds_learner()
    }

    /// Say that nothing but a report follows the next reconcile (a
    /// one-shot `scan`, not a watcher): a fresh reconcile then frees the
    /// learner before it pairs, unless documents wait to be fingerprinted
    /// again over new boilerplate, and a later change builds it again from
    /// the store.
    pub fn set_one_shot(&mut self, one_shot: bool) {
        self.state.set_one_shot(one_shot);
    }

    /// The store.
    pub fn store(&self) -> &dyn Store {
        &*self.store
    }

    /// Skipped files and their reasons.
    pub fn skipped(&self) -> &BTreeMap<DocPath, String> {
        self.files.skipped()
    }

    /// Leave out paths matched by these globs too (see
    /// [`crate::collection::list_files_with`]), from the next reconcile or
    /// sync on: indexed files they match are then forgotten
    /// ([`IndexOptions::extra_ignores`]).
    pub fn set_extra_ignores(&mut self, globs: Vec<String>) {
        self.options.extra_ignores = globs;
    }

    /// Read folders as books by `page_folders`' rules (`[books]
    /// page-folders`; [`IndexOptions::page_folders`]), from the next
    /// reconcile or sync on.
    pub fn set_page_folders(&mut self, page_folders: crate::collection::PageFolders) {
        self.options.page_folders = page_folders;
    }

    /// Read big files within `limits` (`[reading]`; the defaults until set;
    /// [`IndexOptions::read_limits`]).
    pub fn set_read_limits(&mut self, limits: ReadLimits) {
        self.options.read_limits = limits;
    }

    /// Re-gather every document's candidates under new floors (a threshold
    /// was moved below one). Only the in-memory pairs change; the floors are
    /// back to the configured ones on the next open.
    pub fn regather(&mut self, floors: Thresholds) -> Result<()> {
        self.regather_with(floors, &mut || true).map(|_| ())
    }

    /// [`FolderIndex::regather`], asking `go_on` between two chunks of
    /// documents; whether it is done.
    pub fn regather_with(
        &mut self,
        floors: Thresholds,
        go_on: &mut dyn FnMut() -> bool,
    ) -> Result<bool> {
        Ok(self
            .library
            .regather_with(&self.engine, floors, &*self.store, go_on)?)
    }

    /// The file a document is (absolute).
    pub fn path_of(&self, doc: &DocPath) -> PathBuf {
        self.root.join(doc.to_relative_path())
    }

    /// Record this index's curator's verdict on a pair, or clear theirs
    /// (persisted with its history, applied at once); another curator's
    /// verdict on it stays.
    pub fn set_pair_verdict(
        &mut self,
        a: &DocPath,
        b: &DocPath,
        verdict: Option<CuratorVerdict>,
    ) -> Result<()> {
        let set = match verdict {
            Some(v) => Some((v, self.store.set_pair_verdict(a, b, v)?)),
            None => {
                self.store.clear_pair_verdict(a, b)?;
                None
            }
        };
        let curator = self.store.curator().to_owned();
        self.library.set_pair_verdict(a, b, &curator, set);
        Ok(())
    }

    /// Who this index's verdicts and keeper marks are recorded as.
    pub fn curator(&self) -> &str {
        self.store.curator()
    }

    /// Record the verdicts and keeper marks made from now on as
    /// `curator`'s (the configuration's `curator`).
    pub fn set_curator(&mut self, curator: &str) {
        self.store.set_curator(curator);
    }

    /// Every set and clear of a verdict on two documents, oldest first.
    pub fn pair_verdict_history(&self, a: &DocPath, b: &DocPath) -> Result<Vec<VerdictChange>> {
        Ok(self.store.pair_verdict_history(a, b)?)
    }

    /// Read every curator's verdicts and the keeper marks from the store
    /// again (another process may have changed them).
    pub fn reload_verdicts(&mut self) -> Result<()> {
        read_verdicts(&*self.store, &mut self.library)
    }

    /// Mark a document as its cluster's keeper (persisted; it represents
    /// its cluster).
    pub fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()> {
        self.store.set_keeper(doc, keeper)?;
        self.library.set_keeper(doc, keeper);
        Ok(())
    }

    /// The key the stored pairs are kept under in this index's
    /// configuration ([`doppel_store::Meta::pairs_hash`]).
    fn pairs_key(&self) -> String {
        pairs_config_hash(&self.config_hash, self.library.config())
    }

    /// Save thresholds for everyone reviewing the collection (a team
    /// store announces them to the other processes).
    pub fn share_thresholds(&mut self, saved: &doppel_store::SharedThresholds) -> Result<()> {
        Ok(self.store.set_shared_thresholds(saved)?)
    }

    /// Fingerprints of an indexed document (read from the store: the
    /// library keeps only their hot part).
    pub fn fingerprints(&self, doc: &DocPath) -> Result<Option<Fingerprints>> {
        if self.library.id_of(doc).is_none() {
            return Ok(None);
        }
        Ok(self.store.full_prints(&[doc])?.pop().flatten())
    }
}
