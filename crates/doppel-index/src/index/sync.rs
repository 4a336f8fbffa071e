//! Keeping an index equal to its folder: a whole reconcile, or the paths
//! the watcher names. Files are read in parallel (identity-checked), enter
//! the library together, and are written together (`commit`): one store
//! transaction per chunk (or per watcher event), with the pairs their
//! arrival changed.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::at_once::{learn_unlearned, Unlearned};
use super::elsewhere::{read_with, IndexRead, ReadsElsewhere};
use super::{
    FileChange, FileReader, FolderIndex, IndexError, Phase, ReadProgress, ReconcileReport, Result,
};
use crate::collection::{
    describe_file_type, entry_now, list_documents, FileEntry, IgnoreRules, ListedRoot, Skip,
};
use crate::reading::{read_all, ReadLimits};
use doppel_core::doc::{DocId, DocPath, FileIdentity};
use doppel_core::engine::Engine;
use doppel_pairing::boilerplate::DocSamples;
use doppel_pairing::library::LibraryConfig;
use doppel_store::{DocRecord, RowId};

/// What reading files needs of an index, apart from it: a reconcile's
/// thread reading the next chunk holds it while the index commits the last.
#[derive(Clone)]
pub(super) struct Reading {
    engine: Arc<Engine>,
    /// The folder, held open: each file is read only if it is still the
    /// one listed ([`ListedRoot::open_listed`]).
    root: Arc<ListedRoot>,
    limits: ReadLimits,
    reader: Option<FileReader>,
    /// The library's settings, when learning boilerplate (files are
    /// sampled for the learner).
    learning: Option<LibraryConfig>,
    /// Who reads the files instead of this process, if anyone.
    elsewhere: Option<Arc<dyn ReadsElsewhere>>,
}

impl Reading {
    /// Read files, the small ones in parallel and the big ones one at a
    /// time ([`read_all`]; see [`read_with`]), or elsewhere.
    #[tracing::instrument(level = "debug", name = "index.read", skip_all, fields(files = entries.len()))]
    pub(super) fn ingest_all(&self, entries: Vec<FileEntry>) -> Vec<Ingested> {
        if let Some(elsewhere) = &self.elsewhere {
            let mut reads = elsewhere.read(&entries, self.learning.as_ref()).into_iter();
            // One read per entry, in order; any missing is not read.
            return entries
                .into_iter()
                .map(|entry| {
                    let read = reads.next().unwrap_or_else(|| IndexRead::not_read(&entry));
                    read.into_ingested(entry)
                })
                .collect();
        }
        read_all(
            entries,
            |entry| entry.bytes,
            &self.limits,
            |entry| {
                read_with(
                    &self.engine,
                    &self.root,
                    &self.limits,
                    self.reader.as_ref(),
                    self.learning.as_ref(),
                    &entry,
                )
                .into_ingested(entry)
            },
        )
    }
}

/// The outcome of reading one file (or of fingerprinting its kept text
/// again, see `learn`).
pub(super) struct Ingested {
    pub(super) entry: FileEntry,
    pub(super) record: DocRecord,
    /// The file changed while being read: the record must not be committed.
    pub(super) changed: bool,
    /// Its decoded text and samples, kept until its boilerplate is known
    /// (when learning).
    pub(super) learned: Option<(String, DocSamples)>,
    /// Taken from the team store as another process wrote it, not read
    /// (`shared_reading`): its row is not written again, only its pairs.
    pub(super) from_the_store: bool,
}

/// Commits what was read or taken ([`FolderIndex::commit_all`], or a
/// reconcile's chunk commit that also counts).
pub(super) type Commit<'a> =
    dyn FnMut(&mut FolderIndex, Vec<Ingested>) -> Result<Vec<FileChange>> + 'a;

impl FolderIndex {
    /// Bring the index in line with the folder: read new and changed files
    /// (in parallel), forget vanished ones.
    pub fn reconcile(&mut self) -> Result<ReconcileReport> {
        self.reconcile_with(&mut |_| true)
    }

    /// [`FolderIndex::reconcile`], reporting the reading stage to `progress`
    /// after every chunk of files, and again (the same numbers) before
    /// each slice of the pairing a fresh index ends with; `progress`
    /// returning `false` stops there (what was read stays committed; what
    /// was not paired is paired at the next reconcile, or when the index
    /// is next opened). Fails, forgetting nothing, when the root is
    /// unavailable.
    #[tracing::instrument(level = "info", name = "index.reconcile", skip_all)]
    pub fn reconcile_with(
        &mut self,
        progress: &mut dyn FnMut(ReadProgress) -> bool,
    ) -> Result<ReconcileReport> {
        self.ensure_available()?;
        // A reconcile stopped while pairing (or failed) left documents
        // unpaired: they are paired, and the pairs stored, before anything
        // else changes the library.
        if self.library.has_unpaired()
            && !self.pair_fresh(Vec::new(), &mut || progress(ReadProgress::default()))?
        {
            return Ok(ReconcileReport {
                cancelled: true,
                ..ReconcileReport::default()
            });
        }
        // What an earlier reconcile learned at once is not this one's.
        self.boilerplate.end_at_once();
        let (files, problems) = list_documents(
            &self.root,
            &self.options.extra_ignores,
            self.options.page_folders,
        );
        // The walk raced with the folder going away: it saw nothing, which
        // must not read as "every file was deleted".
        self.ensure_available()?;
        let mut report = ReconcileReport::default();
        let on_disk: HashSet<&DocPath> = files.iter().map(|f| &f.doc).collect();
        let gone = self.files.gone(&on_disk);
        drop(on_disk);
        self.forget_all(&gone)?;
        report.removed += gone.len();
        report
            .changes
            .extend(gone.into_iter().map(|path| FileChange::Removed { path }));
        let (unchanged, to_read): (Vec<FileEntry>, Vec<FileEntry>) =
            files.into_iter().partition(|f| self.is_unchanged(f));
        report.unchanged = unchanged.len();
        drop(unchanged);
        report.read = to_read.len();
        let mut state = ReadProgress {
            total: to_read.len(),
            total_bytes: to_read.iter().map(|f| f.bytes).sum(),
            ..ReadProgress::default()
        };
        if !progress(state) {
            report.cancelled = true;
            return Ok(report);
        }
        // Into an empty library (a fresh index, or every file read again
        // under a new configuration), documents are paired once all are
        // in: a chunk's arrival then gathers no earlier document's
        // candidates again.
        let fresh = self.library.is_empty() && !to_read.is_empty();
        if fresh {
            // No pair is stored: an open before the pairing below files
            // the documents from their entries and pairs them.
            let unpaired = super::unpaired_hash(&self.pairs_key());
            self.store
                .replace_pairs(&mut std::iter::empty(), &unpaired)?;
            // A one-shot scan with no learner to keep up to date learns at
            // once after its last file (on a team store, where other
            // processes' documents arrive too, chunk by chunk).
            let at_once = self.state.one_shot()
                && !self.store.is_shared()
                && self.boilerplate.learns_lazily();
            self.begin_filing(None, at_once);
        }
        let read = self.read_chunks(to_read, &mut report, &mut state, progress);
        if fresh {
            let unlearned = self.state.end_filing().unwrap_or_default();
            if self.options.stops_at(Phase::Pairing) {
                read?;
                report.cancelled = true;
                return Ok(report);
            }
            if self.state.one_shot() && self.boilerplate.none_moved() {
                // Pairing's memory comes on top of the learner's: nothing
                // needs it now.
                self.drop_learner();
            }
            let paired = self.pair_fresh(unlearned, &mut || progress(state));
            read?;
            report.cancelled |= !paired?;
        } else {
            read?;
        }
        if report.cancelled {
            return Ok(report);
        }
        report.changes.extend(self.reread_corrupt(&report.changes)?);
        // Problems of the walk (special files, unreadable folders) are
        // listed afresh each time; stale ones go.
        let problems = problems
            .into_iter()
            .map(|(doc, skip)| (doc, skip.to_string()))
            .collect();
        report.changes.extend(self.files.relist(problems));
        tracing::info!(
            read = report.read,
            unchanged = report.unchanged,
            removed = report.removed,
            skipped = report.skipped,
            "reconciled"
        );
        report.changes.extend(self.settle_boilerplate()?);
        self.boilerplate.end_at_once();
        if self.state.is_stale() {
            // Every file has been read under the current configuration.
            self.store.set_config_hash(&self.config_hash)?;
            self.state.refreshed();
        }
        Ok(report)
    }

    /// Begin filing what arrives unpaired (`state`), the fresh library
    /// holding [`IndexOptions::spill_after_slots`] of its slots.
    pub(super) fn begin_filing(&mut self, arrival_ns: Option<i64>, at_once: bool) {
        self.library.set_spill_after(self.options.spill_after_slots);
        self.state.begin_filing(arrival_ns, at_once);
    }

    /// Pair the documents a fresh reconcile filed unpaired (reading their
    /// fingerprints back from the store) and store every pair, marking
    /// them current in the same transaction. Until then the stored pairs
    /// read as out of date, so a run killed before this verifies every
    /// document again when it next opens the index.
    ///
    /// A one-shot scan learns its boilerplate at once (`unlearned`, the
    /// samples of what it committed; `at_once`) beside the pairing, on a
    /// thread of its own, when they are few enough for the two to be in
    /// memory together, else before it; either way the documents it moves
    /// are marked stale before the pairs are stored, and the "filed, not
    /// paired" key stays if it fails (the next open checks the spans).
    ///
    /// `go_on` is asked before each slice of the pairing: `false` stops
    /// there, the pairs not stored (the key stays), and returns `false`.
    #[tracing::instrument(level = "debug", name = "index.pair_fresh", skip_all)]
    fn pair_fresh(
        &mut self,
        unlearned: Vec<Unlearned>,
        go_on: &mut dyn FnMut() -> bool,
    ) -> Result<bool> {
        let any = self.library.has_unpaired();
        let inputs = match unlearned.is_empty() {
            true => None,
            false => self.at_once_inputs()?,
        };
        let samples: usize = unlearned.iter().map(|(_, s, _)| s.samples.len()).sum();
        let paired = match inputs {
            None => self.pair_unpaired(go_on),
            Some(inputs) if samples > self.options.learn_beside_pairing => {
                let learned = learn_unlearned(unlearned, inputs);
                self.keep_learned_at_once(learned)?;
                crate::memory::release_freed();
                self.pair_unpaired(go_on)
            }
            Some(inputs) => {
                let (learned, paired) = std::thread::scope(|scope| {
                    let learning = scope.spawn(move || learn_unlearned(unlearned, inputs));
                    let paired = self.pair_unpaired(go_on);
                    let learned = learning
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                    (learned, paired)
                });
                self.keep_learned_at_once(learned)?;
                paired
            }
        };
        let done = paired?;
        if !any || !done {
            return Ok(done);
        }
        let _storing = tracing::debug_span!("index.store_pairs").entered();
        let row_of: HashMap<DocPath, RowId> = self
            .store
            .document_paths()?
            .into_iter()
            .map(|(row, doc)| (doc, row))
            .collect();
        let library = &self.library;
        let row = |id: DocId| row_of.get(&library.doc(id)?.path).copied();
        let pairs = super::pairs_by_row(library, row);
        let hash = self.pairs_key();
        self.store.replace_pairs(&mut pairs.into_iter(), &hash)?;
        Ok(true)
    }

    /// The library pairs what a fresh reconcile filed unpaired, asking
    /// `go_on` before each slice; whether it paired them all.
    fn pair_unpaired(&mut self, go_on: &mut dyn FnMut() -> bool) -> Result<bool> {
        if !self.library.has_unpaired() {
            return Ok(true);
        }
        Ok(tracing::debug_span!("index.pair_unpaired").in_scope(|| {
            self.library
                .pair_unpaired_with(&self.engine, &*self.store, go_on)
        })?)
    }

    /// The documents the store holds under another identity than this
    /// process last saw (another process indexed, changed or forgot
    /// them), as paths for [`FolderIndex::sync_paths`]. Only sizes and
    /// modification times are compared: other machines see other inodes.
    pub fn changed_in_store(&self) -> Result<Vec<PathBuf>> {
        let in_store = self.store.stat_index()?;
        let docs = self.files.changed_in(&in_store);
        let mut paths: Vec<_> = docs.into_iter().map(|doc| self.path_of(doc)).collect();
        paths.sort();
        Ok(paths)
    }

    /// Whether a listed file is as it was read (its identity unchanged and
    /// its fingerprints of the current configuration).
    fn is_unchanged(&self, file: &FileEntry) -> bool {
        !self.state.is_stale() && self.files.read_as(&file.doc, &file.identity)
    }

    /// Look at some paths again (the watcher's events): read new and changed
    /// regular files (in parallel, identity-checked, one transaction for
    /// them all, never waiting for more to come),
    /// forget paths that are gone (a folder's whole subtree), list special
    /// files with their reason, and skip files whose identity is unchanged.
    /// Paths outside the root, ignored paths that were never indexed, and
    /// folders that still exist change nothing. Fails, forgetting nothing,
    /// when the root is unavailable.
    #[tracing::instrument(level = "debug", name = "index.sync", skip_all, fields(paths = paths.len()))]
    pub fn sync_paths(&mut self, paths: &[PathBuf]) -> Result<Vec<FileChange>> {
        self.ensure_available()?;
        let mut rules = IgnoreRules::with_extra(&self.root, &self.options.extra_ignores);
        let mut to_read = Vec::new();
        let mut paths: Vec<PathBuf> = paths.to_vec();
        paths.sort();
        paths.dedup();
        let (paths, mut changes) = self.documents_of(paths)?;
        for path in &paths {
            let Ok(relative) = path.strip_prefix(&self.root) else {
                continue;
            };
            if relative.as_os_str().is_empty() {
                continue;
            }
            let doc = DocPath::from_relative(relative);
            let meta = match std::fs::symlink_metadata(path) {
                Ok(meta) => meta,
                Err(e) if is_gone(&e) => {
                    changes.extend(self.forget_tree(&doc)?);
                    continue;
                }
                Err(e) => {
                    let reason = Skip::Unreadable {
                        reason: e.to_string(),
                    }
                    .to_string();
                    changes.extend(self.note_skipped(&doc, reason)?);
                    continue;
                }
            };
            if meta.is_dir() {
                if let Some(book) = self.book_folder_now(path, &mut changes)? {
                    if !rules.is_ignored(path, true) && !self.is_unchanged(&book) {
                        to_read.push(book);
                    }
                    continue;
                }
                // A folder where a file was: the file is gone. The folder's
                // own files come as events of their own.
                if self.files.is_stored(&doc) {
                    self.forget(&doc)?;
                    changes.push(FileChange::Removed { path: doc });
                }
                continue;
            }
            if rules.is_ignored(path, false) {
                changes.extend(self.forget_tree(&doc)?);
                continue;
            }
            let identity = FileIdentity::from_metadata(&meta);
            if !meta.is_file() {
                let reason = Skip::NotAFile {
                    what: describe_file_type(&meta.file_type()).to_owned(),
                }
                .to_string();
                changes.extend(self.note_skipped(&doc, reason)?);
                continue;
            }
            let entry = FileEntry::file(path.clone(), doc, identity);
            if !self.is_unchanged(&entry) {
                to_read.push(entry);
            }
        }
        changes.extend(self.read_and_commit(to_read)?);
        changes.extend(self.reread_corrupt(&changes)?);
        changes.extend(self.settle_boilerplate()?);
        Ok(changes)
    }

    /// Read files, the small ones in parallel and the big ones one at a
    /// time ([`read_all`]; see [`ingest`]).
    pub(super) fn ingest_all(&self, entries: Vec<FileEntry>) -> Vec<Ingested> {
        self.reading().ingest_all(entries)
    }

    /// What reading files needs of this index.
    pub(super) fn reading(&self) -> Reading {
        Reading {
            engine: Arc::clone(&self.engine),
            root: Arc::new(ListedRoot::new(&self.root)),
            limits: self.options.read_limits,
            reader: self.options.file_reader.clone(),
            learning: self
                .boilerplate
                .learning()
                .then(|| self.library.config().clone()),
            elsewhere: self.options.elsewhere.clone(),
        }
    }

    /// Read `entries` and `commit` them; on a team store, each file is
    /// read by one process of those following the collection, the others
    /// taking it from the store (`shared_reading`).
    pub(super) fn ingest_shared(
        &mut self,
        entries: Vec<FileEntry>,
        commit: &mut Commit<'_>,
    ) -> Result<Vec<FileChange>> {
        #[cfg(feature = "postgres")]
        if self.store.shared().is_some() && !entries.is_empty() {
            return self.ingest_locked(entries, commit);
        }
        let ingested = self.ingest_all(entries);
        commit(self, ingested)
    }

    /// Read files (or, on a team store, take those another process read
    /// from it) and commit them ([`FolderIndex::commit_all`]).
    pub(super) fn read_and_commit(&mut self, entries: Vec<FileEntry>) -> Result<Vec<FileChange>> {
        self.ingest_shared(entries, &mut |index, ingested| index.commit_all(ingested))
    }

    /// Read again the files whose stored fingerprints failed their checksum
    /// (the store read them as missing, see [`doppel_store::Documents::take_corrupt`]),
    /// but those `done` just wrote. Returns what changed.
    fn reread_corrupt(&mut self, done: &[FileChange]) -> Result<Vec<FileChange>> {
        let mut written: HashSet<DocPath> = done
            .iter()
            .filter_map(|c| match c {
                FileChange::Indexed { path }
                | FileChange::Reprinted { path }
                | FileChange::Skipped { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect();
        let mut changes = Vec::new();
        // A pass reads each corrupt file once; reading them may meet others.
        for _ in 0..3 {
            let mut corrupt = self.store.take_corrupt();
            corrupt.sort();
            corrupt.dedup();
            corrupt.retain(|doc| !written.contains(doc) && self.files.is_stored(doc));
            if corrupt.is_empty() {
                break;
            }
            let mut to_read = Vec::new();
            for doc in corrupt {
                tracing::warn!(%doc, "reading again a file whose stored fingerprints were corrupt");
                self.files.store(doc.clone(), None);
                let path = self.root.join(doc.to_relative_path());
                // Gone or not a document any more: the next look forgets it.
                to_read.extend(entry_now(&self.root, &path, self.options.page_folders));
            }
            written.extend(to_read.iter().map(|e| e.doc.clone()));
            changes.extend(self.read_and_commit(to_read)?);
        }
        Ok(changes)
    }

    /// Ingest or forget one file ([`FolderIndex::sync_paths`] for one path).
    pub fn upsert_path(&mut self, path: &Path) -> Result<Vec<FileChange>> {
        self.sync_paths(&[path.to_path_buf()])
    }

    /// Forget the file at `path` (absolute, under the root), or everything
    /// under it if it was a folder, whether or not it is still on disk.
    pub fn remove_path(&mut self, path: &Path) -> Result<Vec<FileChange>> {
        self.ensure_available()?;
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return Ok(Vec::new());
        };
        self.forget_tree(&DocPath::from_relative(relative))
    }

    /// Fails when the root is gone: nothing may be forgotten then.
    fn ensure_available(&self) -> Result<()> {
        if self.root.is_dir() {
            Ok(())
        } else {
            Err(IndexError::Unavailable {
                root: self.root.clone(),
            })
        }
    }

    /// Forget `doc` and, if it was a folder, every file under it.
    fn forget_tree(&mut self, doc: &DocPath) -> Result<Vec<FileChange>> {
        let gone = self.files.tree(doc);
        self.forget_all(&gone)?;
        let mut changes: Vec<FileChange> = gone
            .into_iter()
            .map(|path| FileChange::Removed { path })
            .collect();
        // Special files are listed but not stored.
        for p in self.files.skipped_within(doc) {
            self.files.unskip(&p);
            if !changes
                .iter()
                .any(|c| matches!(c, FileChange::Removed { path } if *path == p))
            {
                changes.push(FileChange::Removed { path: p });
            }
        }
        Ok(changes)
    }

    /// List a path that is not a document with its reason (not stored: a
    /// special file is looked at again by every walk).
    fn note_skipped(&mut self, doc: &DocPath, reason: String) -> Result<Option<FileChange>> {
        if self.files.is_stored(doc) {
            self.forget(doc)?;
        }
        if !self.files.skip(doc, &reason) {
            return Ok(None);
        }
        Ok(Some(FileChange::Skipped {
            path: doc.clone(),
            reason,
        }))
    }

    /// Forget a file that is gone from the folder.
    pub(super) fn forget(&mut self, doc: &DocPath) -> Result<()> {
        self.forget_all(std::slice::from_ref(doc))
    }

    /// Forget files gone from the folder (a removed folder's): the learner
    /// is told once for all of them (one update; one per file was ~5 ms
    /// each at 110k documents), then they leave the library (which gathers
    /// again the candidates their going changed once per thousand files,
    /// not once per file: [`doppel_pairing::library::Library::remove_many`])
    /// and the store, in one transaction. A failure part way drops the
    /// learner, which has forgotten files the store still holds: it is
    /// built again from the store.
    fn forget_all(&mut self, docs: &[DocPath]) -> Result<()> {
        if self.boilerplate.learning() {
            let held: Vec<DocPath> = docs
                .iter()
                .filter(|doc| self.library.id_of(doc).is_some())
                .cloned()
                .collect();
            if !held.is_empty() {
                self.unlearn(held)?;
            }
        }
        self.remove_forgotten(docs)
            .inspect_err(|_| self.drop_learner())
    }

    /// Take files the learner has forgotten out of the library and the
    /// store.
    fn remove_forgotten(&mut self, docs: &[DocPath]) -> Result<()> {
        self.library.remove_many(&self.engine, docs, &*self.store)?;
        for doc in docs {
            self.files.unskip(doc);
        }
        self.store.remove_documents(docs)?;
        for doc in docs {
            self.files.unstore(doc);
        }
        self.write_touched()
    }
}

/// The error of a path that is not there (any more).
fn is_gone(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}
