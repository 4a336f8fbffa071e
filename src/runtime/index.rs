//! A folder's persistent index: the SQLite store, the in-memory library and
//! the engine, kept equal to what is on disk.
//!
//! [`FolderIndex::open`] loads each document's stored library entry and the
//! kept pairs without reading a single file (under another library
//! configuration it verifies the stored fingerprints again, once);
//! [`FolderIndex::reconcile`] then compares each file's `lstat` identity
//! (size, mtime, ctime, inode, device) with the stored one and reads only
//! new or changed files, each committed in its own store transaction, and
//! forgets files that are gone. A changed engine configuration makes every
//! stored fingerprint stale until a reconcile has read every file again.
//! Curator verdicts live in the store, keyed by path, and are applied to
//! the library on open. Every open records the folder in the index and the
//! time it was used; an index recording another folder is refused.
//!
//! The watcher's events come in through [`FolderIndex::sync_paths`] (and
//! [`FolderIndex::upsert_path`] / [`FolderIndex::remove_path`]): the same
//! identity-checked read and one store transaction per file, for just the
//! paths that changed. A file that changes while it is read is never
//! committed ([`FileChange::Retry`]). A missing root is an error, never a
//! reason to forget files: the index stays as it was until the folder is back.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::engine::measure::shingle_set;
use crate::engine::text::decode::decode;
use crate::engine::{Engine, Fingerprints, Thresholds};
use crate::pairing::candidates::{DocId, Restore};
use crate::pairing::library::{Library, LibraryConfig, PairVerdict, PrintSource};
use crate::runtime::collection::{
    describe_file_type, list_files_with, read_bytes, FileEntry, IgnoreRules, Skip, DEFAULT_SIZE_CAP,
};
use crate::runtime::store::{
    self, DocEntry, DocRecord, DocStatus, FileIdentity, OpenReport, Store,
};

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
    /// The progress callback asked to stop: files not yet read are read by
    /// the next reconcile.
    pub cancelled: bool,
}

/// One file's change in the index, for front ends (paths are display paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// Read and fingerprinted (new or changed).
    Indexed { path: String },
    /// Not a document, with the reason.
    Skipped { path: String, reason: String },
    /// Gone from the folder (or now ignored), forgotten.
    Removed { path: String },
    /// Changed while being read: nothing was committed; read it again once
    /// it has settled.
    Retry { path: PathBuf },
}

/// How far the reading stage of a reconcile is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadProgress {
    /// Files read (or found unreadable) so far, of `total` to read.
    pub done: usize,
    pub total: usize,
    /// Bytes of the files done so far, of `total_bytes`.
    pub bytes: u64,
    pub total_bytes: u64,
}

/// Files read in parallel between two progress reports.
const READ_CHUNK: usize = 128;

/// The outcome of reading one file.
struct Ingested {
    entry: FileEntry,
    record: DocRecord,
    /// The file changed while being read: the record must not be committed.
    changed: bool,
}

/// What opening an index records in it, once its integrity check passed
/// (besides its folder and the time, [`Store::record_use`]).
struct MetaWrites {
    /// The engine configuration the fingerprints are made under from now
    /// on; `None` when the stored ones were made under another, in which
    /// case the reconcile that has read every file again records it (an
    /// interrupted one leaves them all stale).
    config_hash: Option<String>,
    /// Set when the library was verified again instead of restored.
    rewrite: Option<Rewrite>,
}

/// The stored library entries and pairs to write again from a library
/// verified under the current configuration, so the next open restores
/// them instead of verifying again.
struct Rewrite {
    /// The configuration they are kept under ([`Store::pairs_hash`]).
    pairs_hash: String,
    /// The stored documents (row id, display path); those the library does
    /// not hold (no fingerprints stored) get no entry.
    rows: Vec<(i64, String)>,
}

impl MetaWrites {
    fn apply(self, index: &mut FolderIndex) -> Result<()> {
        index.store.record_use(&index.root)?;
        if let Some(hash) = &self.config_hash {
            index.store.set_config_hash(hash)?;
        }
        if let Some(rewrite) = self.rewrite {
            index.rewrite_stored_library(rewrite)?;
        }
        Ok(())
    }
}

/// The store as a [`PrintSource`]: full fingerprints by display path.
struct StorePrints<'a> {
    store: &'a Store,
    keys: &'a HashMap<String, Vec<u8>>,
}

impl PrintSource for StorePrints<'_> {
    fn full_prints(&self, paths: &[&str]) -> Result<Vec<Option<Fingerprints>>> {
        let keys: Vec<&[u8]> = paths
            .iter()
            .map(|p| self.keys.get(*p).map_or(p.as_bytes(), Vec::as_slice))
            .collect();
        Ok(self.store.fingerprints_at(&keys)?)
    }
}

pub struct FolderIndex {
    root: PathBuf,
    engine: Engine,
    store: Store,
    library: Library,
    /// Skipped files and why, by display path.
    skipped: BTreeMap<String, String>,
    /// Stored identities by raw key, to tell unchanged files without reading.
    identities: HashMap<Vec<u8>, FileIdentity>,
    /// Raw keys by display path.
    keys: HashMap<String, Vec<u8>>,
    /// The same raw keys in order, to find the files under a folder.
    ordered_keys: BTreeSet<Vec<u8>>,
    /// The stored fingerprints were made by another configuration.
    stale: bool,
    /// The current engine configuration's key ([`Store::config_hash`]).
    config_hash: String,
    /// Ignore globs besides the built-in ones (the config file's `ignore`).
    extra_ignores: Vec<String>,
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
    /// Open (or create) the index of `root`, at `index_path` or the platform
    /// default outside the folder, and load it into memory. Reads no file of
    /// the folder.
    pub fn open(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        index_path: Option<&Path>,
    ) -> Result<(Self, OpenReport)> {
        let root = root
            .canonicalize()
            .with_context(|| format!("cannot open folder {}", root.display()))?;
        anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
        let path = match index_path {
            Some(p) => p.to_path_buf(),
            None => Store::default_path(&root)?,
        };
        store::ensure_outside_root(&path, &root)?;
        // The integrity check reads the whole file: it runs on a connection
        // of its own while the index is loaded, and nothing is written
        // until it has passed.
        let (store, report, check) = Store::open_checking_in_background(&path)?;
        // Another folder's index would lose that folder's rows to this
        // folder's reconcile. (A recorded folder that cannot be read is
        // left to the load, whose errors count once the check passed.)
        if let Ok(Some(folder)) = store.folder() {
            anyhow::ensure!(
                folder == root,
                "index {path} is the index of {folder}, not of {root}; using it would \
                 drop that folder's documents. Pass another --index path (or none, for \
                 {root}'s own index), or remove it with `doppel index forget --index {path}`",
                path = path.display(),
                folder = folder.display(),
                root = root.display(),
            );
        }
        let engine_config = engine.config().clone();
        let loaded = Self::load(root.clone(), engine, library_config.clone(), store);
        if check.passed()? {
            let (mut index, writes) = loaded?;
            writes.apply(&mut index)?;
            return Ok((index, report));
        }
        // Corrupt after all: what was read goes, and the plain open moves
        // the file aside (as its report says) and starts a fresh index.
        drop(loaded);
        let (store, report) = Store::open(&path)?;
        let engine = Engine::new(engine_config);
        let (mut index, writes) = Self::load(root, engine, library_config, store)?;
        writes.apply(&mut index)?;
        Ok((index, report))
    }

    /// Read an opened index into memory (writing nothing; what it would
    /// write is returned).
    fn load(
        root: PathBuf,
        engine: Engine,
        library_config: LibraryConfig,
        store: Store,
    ) -> Result<(Self, MetaWrites)> {
        let config_hash = store::engine_config_hash(engine.config());
        let stale = store.config_hash()?.is_some_and(|h| h != config_hash);
        let mut writes = MetaWrites {
            config_hash: (!stale).then(|| config_hash.clone()),
            rewrite: None,
        };
        let mut library = Library::new_external(&engine, library_config.clone());
        let mut skipped = BTreeMap::new();
        let mut identities = HashMap::new();
        let mut keys = HashMap::new();
        // Indexed documents in arrival order: (row id, display path, shingles).
        let mut indexed: Vec<(i64, String, usize)> = Vec::new();
        let mut records = store.documents_without_blobs()?;
        records.sort_by(|x, y| (x.first_seen_ns, &x.path).cmp(&(y.first_seen_ns, &y.path)));
        for record in records {
            let rel = store::display_key(&record.path);
            keys.insert(rel.clone(), record.path.clone());
            match &record.status {
                DocStatus::Skipped { reason } => {
                    identities.insert(record.path.clone(), record.identity);
                    skipped.insert(rel, reason.clone());
                }
                DocStatus::Indexed if !stale => {
                    identities.insert(record.path.clone(), record.identity);
                    let id = record.id.expect("rows read from the store have ids");
                    indexed.push((id, rel, record.shingles as usize));
                }
                // Fingerprints of another configuration: without its
                // identity the next reconcile reads the file again.
                DocStatus::Indexed => {}
            }
        }
        // Stored pairs and library entries were kept under a configuration:
        // when it is the current one, load them; otherwise verify
        // candidates again, and write entries and pairs back once the
        // integrity check has passed (see `rewrite_stored_library`).
        let pairs_hash = pairs_config_hash(&config_hash, library.config());
        let current = !stale && store.pairs_hash()?.as_deref() == Some(pairs_hash.as_str());
        let restored = current && Self::restore(&store, &mut library, &indexed)?;
        if !restored {
            // Verified again a chunk at a time, each against the documents
            // before it (read back from the store).
            library = Library::new_external(&engine, library_config);
            let source = StorePrints {
                store: &store,
                keys: &keys,
            };
            for chunk in indexed.chunks(LOAD_CHUNK) {
                let paths: Vec<&str> = chunk.iter().map(|(_, rel, _)| rel.as_str()).collect();
                let mut docs = Vec::with_capacity(chunk.len());
                for ((_, rel, shingles), prints) in chunk.iter().zip(source.full_prints(&paths)?) {
                    match prints {
                        Some(prints) => docs.push((rel.clone(), prints, *shingles)),
                        // No fingerprints stored: read the file again.
                        None => {
                            identities.remove(&keys[rel]);
                        }
                    }
                }
                library.extend_with(&engine, docs, &source)?;
            }
            writes.rewrite = Some(Rewrite {
                pairs_hash,
                rows: indexed
                    .iter()
                    .map(|(row, rel, _)| (*row, rel.clone()))
                    .collect(),
            });
        }
        for v in store.pair_verdicts()? {
            let verdict = match v.verdict {
                store::PairVerdict::Duplicate => PairVerdict::Duplicate,
                store::PairVerdict::NotDuplicate => PairVerdict::NotDuplicate,
            };
            library.set_pair_verdict(
                &store::display_key(&v.a),
                &store::display_key(&v.b),
                Some(verdict),
            );
        }
        for key in store.keeps()? {
            library.set_keep(&store::display_key(&key), true);
        }
        Ok((
            Self {
                root,
                engine,
                store,
                library,
                skipped,
                identities,
                ordered_keys: keys.values().cloned().collect(),
                keys,
                stale,
                config_hash,
                extra_ignores: Vec::new(),
            },
            writes,
        ))
    }

    /// Restore `library` from the stored library entries and pairs of the
    /// `indexed` documents (row id, display path, shingles; in arrival
    /// order). False, with `library` half-filled, when a document has no
    /// entry: the caller then verifies the documents again.
    fn restore(
        store: &Store,
        library: &mut Library,
        indexed: &[(i64, String, usize)],
    ) -> Result<bool> {
        // Row id → position in arrival order.
        let position: HashMap<i64, usize> = indexed
            .iter()
            .enumerate()
            .map(|(i, (id, _, _))| (*id, i))
            .collect();
        let mut doc_of_row: HashMap<i64, DocId> = HashMap::with_capacity(indexed.len());
        library.reserve_restore(indexed.len(), store.pair_count()?);
        let mut restore = Restore::default();
        store.document_entries_each(|chunk| {
            for (row, entry) in chunk {
                let Some(&i) = position.get(&row) else {
                    continue;
                };
                let (_, rel, shingles) = &indexed[i];
                let id = library.restore_doc(
                    &mut restore,
                    rel.clone(),
                    i as u64,
                    entry.hot,
                    &entry.keys,
                    *shingles,
                );
                doc_of_row.insert(row, id);
            }
            Ok(())
        })?;
        // Counted here rather than beforehand: a count of the entries
        // would read every page of them once more.
        if doc_of_row.len() != indexed.len() {
            return Ok(false);
        }
        library.finish_restore(restore);
        store.pairs_each(|chunk| {
            for (a, b, scores) in chunk {
                if let (Some(&x), Some(&y)) = (doc_of_row.get(&a), doc_of_row.get(&b)) {
                    library.restore_pair(x, y, scores);
                }
            }
            Ok(())
        })?;
        Ok(true)
    }

    /// Write the library entries and pairs of a library verified again
    /// (see [`Rewrite`]): entries a chunk at a time from the stored
    /// fingerprints, then every pair and the configuration they are kept
    /// under in one transaction. Until that last commit either the stored
    /// pairs are marked as kept under another configuration or entries are
    /// missing, so an interrupted rewrite only means verifying again at the
    /// next open.
    fn rewrite_stored_library(&mut self, rewrite: Rewrite) -> Result<()> {
        self.store.clear_entries()?;
        let mut row_of: HashMap<DocId, i64> = HashMap::with_capacity(rewrite.rows.len());
        for chunk in rewrite.rows.chunks(LOAD_CHUNK) {
            let source = StorePrints {
                store: &self.store,
                keys: &self.keys,
            };
            let paths: Vec<&str> = chunk.iter().map(|(_, rel)| rel.as_str()).collect();
            let mut entries = Vec::with_capacity(chunk.len());
            for ((row, rel), prints) in chunk.iter().zip(source.full_prints(&paths)?) {
                if let (Some(id), Some(prints)) = (self.library.id_of(rel), prints) {
                    entries.push((
                        *row,
                        DocEntry {
                            hot: prints.hot(),
                            keys: self.library.doc_keys(&prints),
                        },
                    ));
                    row_of.insert(id, *row);
                }
            }
            self.store.put_entries(&entries)?;
        }
        let pairs = self
            .library
            .pairs()
            .filter_map(|(a, b, scores)| Some((*row_of.get(&a)?, *row_of.get(&b)?, scores)));
        self.store.replace_pairs(pairs, &rewrite.pairs_hash)?;
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

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

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Skipped files and their reasons, by display path.
    pub fn skipped(&self) -> &BTreeMap<String, String> {
        &self.skipped
    }

    /// Leave out paths matched by these globs too (see
    /// [`crate::runtime::collection::list_files_with`]), from the next reconcile or
    /// sync on: indexed files they match are then forgotten.
    pub fn set_extra_ignores(&mut self, globs: Vec<String>) {
        self.extra_ignores = globs;
    }

    /// Bring the index in line with the folder: read new and changed files
    /// (in parallel), forget vanished ones.
    pub fn reconcile(&mut self) -> Result<ReconcileReport> {
        self.reconcile_with(&mut |_| true)
    }

    /// [`FolderIndex::reconcile`], reporting the reading stage to `progress`
    /// after every chunk of files; `progress` returning `false` stops there
    /// (what was read stays committed). Fails, forgetting nothing, when the
    /// root is unavailable.
    pub fn reconcile_with(
        &mut self,
        progress: &mut dyn FnMut(ReadProgress) -> bool,
    ) -> Result<ReconcileReport> {
        self.ensure_available()?;
        let (files, problems) = list_files_with(&self.root, &self.extra_ignores);
        // The walk raced with the folder going away: it saw nothing, which
        // must not read as "every file was deleted".
        self.ensure_available()?;
        let mut report = ReconcileReport::default();
        let on_disk: HashSet<&[u8]> = files.iter().map(|f| f.key.as_slice()).collect();
        let gone: Vec<Vec<u8>> = self
            .identities
            .keys()
            .filter(|k| !on_disk.contains(k.as_slice()))
            .cloned()
            .collect();
        drop(on_disk);
        for key in gone {
            self.forget(&key)?;
            report.removed += 1;
            report.changes.push(FileChange::Removed {
                path: store::display_key(&key),
            });
        }
        let (unchanged, to_read): (Vec<FileEntry>, Vec<FileEntry>) = files
            .into_iter()
            .partition(|f| !self.stale && self.identities.get(&f.key) == Some(&f.identity));
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
        // Entries are moved into their chunk, so each one's paths are
        // freed once it is committed (100k of them are ~20 MB).
        let mut to_read = to_read.into_iter();
        loop {
            let chunk: Vec<FileEntry> = to_read.by_ref().take(READ_CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            let engine = &self.engine;
            let ingested: Vec<Ingested> = chunk
                .into_par_iter()
                .map(|entry| ingest(engine, entry))
                .collect();
            for item in &ingested {
                state.done += 1;
                state.bytes += item.entry.bytes;
                if !item.changed && matches!(item.record.status, DocStatus::Skipped { .. }) {
                    report.skipped += 1;
                }
            }
            report.changes.extend(self.commit_all(ingested)?);
            if !progress(state) {
                report.cancelled = true;
                return Ok(report);
            }
        }
        // Problems of the walk (special files, unreadable folders) are
        // listed afresh each time; stale ones go.
        let (stored, listed): (BTreeMap<_, _>, BTreeMap<_, _>) = std::mem::take(&mut self.skipped)
            .into_iter()
            .partition(|(rel, _)| self.keys.contains_key(rel));
        self.skipped = stored;
        for (rel, skip) in problems {
            let reason = skip.to_string();
            if listed.get(&rel) != Some(&reason) {
                report.changes.push(FileChange::Skipped {
                    path: rel.clone(),
                    reason: reason.clone(),
                });
            }
            self.skipped.insert(rel, reason);
        }
        for rel in listed.into_keys() {
            if !self.skipped.contains_key(&rel) {
                report.changes.push(FileChange::Removed { path: rel });
            }
        }
        if self.stale {
            // Every file has been read under the current configuration.
            self.store.set_config_hash(&self.config_hash)?;
            self.stale = false;
        }
        Ok(report)
    }

    /// Look at some paths again (the watcher's events): read new and changed
    /// regular files (in parallel, identity-checked, one transaction each),
    /// forget paths that are gone (a folder's whole subtree), list special
    /// files with their reason, and skip files whose identity is unchanged.
    /// Paths outside the root, ignored paths that were never indexed, and
    /// folders that still exist change nothing. Fails, forgetting nothing,
    /// when the root is unavailable.
    pub fn sync_paths(&mut self, paths: &[PathBuf]) -> Result<Vec<FileChange>> {
        self.ensure_available()?;
        let mut rules = IgnoreRules::with_extra(&self.root, &self.extra_ignores);
        let mut changes = Vec::new();
        let mut to_read = Vec::new();
        let mut paths: Vec<&PathBuf> = paths.iter().collect();
        paths.sort();
        paths.dedup();
        for path in paths {
            let Ok(relative) = path.strip_prefix(&self.root) else {
                continue;
            };
            if relative.as_os_str().is_empty() {
                continue;
            }
            let key = store::path_key(relative);
            let rel = store::display_key(&key);
            let meta = match std::fs::symlink_metadata(path) {
                Ok(meta) => meta,
                Err(e) if is_gone(&e) => {
                    changes.extend(self.forget_tree(&key)?);
                    continue;
                }
                Err(e) => {
                    let reason = Skip::Unreadable {
                        reason: e.to_string(),
                    }
                    .to_string();
                    changes.extend(self.note_skipped(&key, reason)?);
                    continue;
                }
            };
            if meta.is_dir() {
                // A folder where a file was: the file is gone. The folder's
                // own files come as events of their own.
                if self.keys.contains_key(&rel) {
                    self.forget(&key)?;
                    changes.push(FileChange::Removed { path: rel });
                }
                continue;
            }
            if rules.is_ignored(path, false) {
                changes.extend(self.forget_tree(&key)?);
                continue;
            }
            let identity = FileIdentity::from_metadata(&meta);
            if !meta.is_file() {
                let reason = Skip::NotAFile {
                    what: describe_file_type(&meta.file_type()).to_owned(),
                }
                .to_string();
                changes.extend(self.note_skipped(&key, reason)?);
                continue;
            }
            if !self.stale && self.identities.get(&key) == Some(&identity) {
                continue;
            }
            to_read.push(FileEntry {
                path: path.clone(),
                rel,
                key,
                bytes: identity.size,
                identity,
            });
        }
        let engine = &self.engine;
        let ingested: Vec<Ingested> = to_read
            .into_par_iter()
            .map(|entry| ingest(engine, entry))
            .collect();
        changes.extend(self.commit_all(ingested)?);
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
        self.forget_tree(&store::path_key(relative))
    }

    /// Re-gather every document's candidates under new floors (a threshold
    /// was moved below one). Only the in-memory pairs change; the floors are
    /// back to the configured ones on the next open.
    pub fn regather(&mut self, floors: Thresholds) -> Result<()> {
        let source = StorePrints {
            store: &self.store,
            keys: &self.keys,
        };
        self.library.regather_with(&self.engine, floors, &source)
    }

    /// The file a display path stands for (absolute).
    pub fn path_of(&self, display: &str) -> PathBuf {
        self.root.join(store::key_path(&self.key_of(display)))
    }

    /// Fails when the root is gone: nothing may be forgotten then.
    fn ensure_available(&self) -> Result<()> {
        anyhow::ensure!(
            self.root.is_dir(),
            "folder {} is unavailable (deleted, moved or unmounted); the index is kept as it was",
            self.root.display()
        );
        Ok(())
    }

    /// Forget `key` and, if it was a folder, every file under it.
    fn forget_tree(&mut self, key: &[u8]) -> Result<Vec<FileChange>> {
        let rel = store::display_key(key);
        let mut prefix = key.to_vec();
        prefix.push(b'/');
        let gone: Vec<Vec<u8>> = self
            .ordered_keys
            .get(key)
            .into_iter()
            .chain(
                self.ordered_keys
                    .range(prefix.clone()..)
                    .take_while(|k| k.starts_with(&prefix)),
            )
            .cloned()
            .collect();
        let mut changes = Vec::new();
        for k in gone {
            self.forget(&k)?;
            changes.push(FileChange::Removed {
                path: store::display_key(&k),
            });
        }
        // Special files are listed but not stored.
        let display_prefix = format!("{rel}/");
        let listed: Vec<String> = self
            .skipped
            .keys()
            .filter(|p| **p == rel || p.starts_with(&display_prefix))
            .cloned()
            .collect();
        for p in listed {
            self.skipped.remove(&p);
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
    fn note_skipped(&mut self, key: &[u8], reason: String) -> Result<Option<FileChange>> {
        let rel = store::display_key(key);
        if self.keys.contains_key(&rel) {
            self.forget(key)?;
        }
        if self.skipped.get(&rel) == Some(&reason) {
            return Ok(None);
        }
        self.skipped.insert(rel.clone(), reason.clone());
        Ok(Some(FileChange::Skipped { path: rel, reason }))
    }

    /// Apply ingested files, in order, to the library and the store. The
    /// indexed ones enter the library together (their candidates verified
    /// in parallel, see [`Library::extend`]); then each file is written in a
    /// store transaction of its own, with its pairs to the files already
    /// written. A file that changed while being read is not committed.
    fn commit_all(&mut self, items: Vec<Ingested>) -> Result<Vec<FileChange>> {
        let arriving: Vec<(String, crate::engine::Fingerprints, usize)> = items
            .iter()
            .filter(|i| !i.changed && i.record.status == DocStatus::Indexed)
            .filter_map(|i| {
                let fp = i.record.fingerprints.clone()?;
                Some((i.entry.rel.clone(), fp, i.record.shingles as usize))
            })
            .collect();
        // Paths in the library but not yet in the store: pairs with them are
        // written with their own document.
        let mut unwritten: HashSet<String> = arriving.iter().map(|d| d.0.clone()).collect();
        if !arriving.is_empty() {
            let source = StorePrints {
                store: &self.store,
                keys: &self.keys,
            };
            self.library.extend_with(&self.engine, arriving, &source)?;
        }
        let mut changes = Vec::new();
        for item in items {
            let Ingested {
                entry,
                mut record,
                changed,
            } = item;
            if changed {
                changes.push(FileChange::Retry { path: entry.path });
                continue;
            }
            let rel = entry.rel.clone();
            self.keys.insert(rel.clone(), entry.key.clone());
            self.ordered_keys.insert(entry.key.clone());
            // Arrival order is commit order (files are committed sorted by
            // path), which keeps "earliest seen" deterministic on reopen.
            record.first_seen_ns = match self.store.document(&record.path)? {
                Some(existing) => existing.first_seen_ns,
                None => store::now_ns(),
            };
            let pairs = match (&record.status, self.library.id_of(&rel)) {
                (DocStatus::Indexed, Some(id)) if unwritten.remove(&rel) => {
                    record.entry = record.fingerprints.as_ref().map(|f| DocEntry {
                        hot: f.hot(),
                        keys: self.library.doc_keys(f),
                    });
                    self.skipped.remove(&rel);
                    changes.push(FileChange::Indexed { path: rel });
                    self.pairs_of(id)
                        .into_iter()
                        .filter(|(other, _)| !unwritten.contains(&store::display_key(other)))
                        .collect()
                }
                (DocStatus::Skipped { reason }, _) => {
                    let source = StorePrints {
                        store: &self.store,
                        keys: &self.keys,
                    };
                    self.library.remove_with(&rel, &source)?;
                    self.skipped.insert(rel.clone(), reason.clone());
                    changes.push(FileChange::Skipped {
                        path: rel,
                        reason: reason.clone(),
                    });
                    Vec::new()
                }
                _ => Vec::new(),
            };
            self.store.upsert_document(&record, &pairs)?;
            self.identities.insert(record.path, record.identity);
        }
        Ok(changes)
    }

    /// The kept pairs of one document, oriented from it, with raw keys.
    fn pairs_of(&self, id: DocId) -> Vec<store::PairUpdate> {
        self.library
            .neighbours(id)
            .filter_map(|(other, scores)| {
                let doc = self.library.doc(other)?;
                Some((self.key_of(&doc.path), scores))
            })
            .collect()
    }

    /// The raw key of a display path (display paths of UTF-8 names without
    /// control characters or backslashes are their own bytes).
    fn key_of(&self, display: &str) -> Vec<u8> {
        self.keys
            .get(display)
            .cloned()
            .unwrap_or_else(|| display.as_bytes().to_vec())
    }

    /// Forget a file that is gone from the folder.
    fn forget(&mut self, key: &[u8]) -> Result<()> {
        let rel = store::display_key(key);
        let source = StorePrints {
            store: &self.store,
            keys: &self.keys,
        };
        self.library.remove_with(&rel, &source)?;
        self.skipped.remove(&rel);
        self.store.remove_document(key)?;
        self.identities.remove(key);
        self.keys.remove(&rel);
        self.ordered_keys.remove(key);
        Ok(())
    }

    /// Record a curator's verdict on a pair (persisted, applied at once).
    pub fn set_pair_verdict(
        &mut self,
        a: &str,
        b: &str,
        verdict: Option<PairVerdict>,
    ) -> Result<()> {
        let (ka, kb) = (self.key_of(a), self.key_of(b));
        match verdict {
            Some(v) => {
                let stored = match v {
                    PairVerdict::Duplicate => store::PairVerdict::Duplicate,
                    PairVerdict::NotDuplicate => store::PairVerdict::NotDuplicate,
                };
                self.store.set_pair_verdict(&ka, &kb, stored)?;
            }
            None => {
                self.store.clear_pair_verdict(&ka, &kb)?;
            }
        }
        self.library.set_pair_verdict(a, b, verdict);
        Ok(())
    }

    /// Mark a document to keep (persisted; it represents its cluster).
    pub fn set_keep(&mut self, path: &str, keep: bool) -> Result<()> {
        self.store.set_keep(&self.key_of(path), keep)?;
        self.library.set_keep(path, keep);
        Ok(())
    }

    /// Fingerprints of an indexed document, by display path (read from
    /// the store: the library keeps only their hot part).
    pub fn fingerprints(&self, path: &str) -> Result<Option<Fingerprints>> {
        if self.library.id_of(path).is_none() {
            return Ok(None);
        }
        let source = StorePrints {
            store: &self.store,
            keys: &self.keys,
        };
        Ok(source.full_prints(&[path])?.pop().flatten())
    }
}

/// Documents verified again per [`Library::extend_with`] call when stored
/// pairs cannot be used: bounds the full fingerprints held at once.
const LOAD_CHUNK: usize = 4096;

/// Read and fingerprint one file (no shared state touched).
fn ingest(engine: &Engine, entry: FileEntry) -> Ingested {
    let mut record = DocRecord {
        id: None,
        path: entry.key.clone(),
        identity: entry.identity,
        content_hash: 0,
        first_seen_ns: 0,
        status: DocStatus::Indexed,
        encoding: None,
        fingerprints: None,
        terms: Vec::new(),
        shingles: 0,
        entry: None,
    };
    let mut changed = false;
    let result = read_bytes(&entry.path, DEFAULT_SIZE_CAP).and_then(|(bytes, identity)| {
        record.identity = identity;
        record.content_hash = store::content_hash(&bytes);
        decode(&bytes).map_err(Skip::NotText)
    });
    match result {
        Ok(decoded) => {
            let analysis = engine.analyze(&decoded.text);
            let shingle = &engine.config().algorithms.shingle;
            record.shingles = shingle_set(&analysis, shingle.w, shingle.seed).len() as u32;
            // `record.terms` stays empty: the folder index weighs terms by
            // the pinned IDF table, so nothing reads them back (they were a
            // fifth of the file at 100k documents).
            record.encoding = Some(decoded.encoding.to_owned());
            record.fingerprints = Some(engine.fingerprint(&analysis, engine.reference_weights()));
        }
        Err(skip) => {
            // Changed or deleted while being read: whatever comes next is
            // looked at again.
            changed = skip == Skip::Changed || std::fs::symlink_metadata(&entry.path).is_err();
            record.status = DocStatus::Skipped {
                reason: skip.to_string(),
            }
        }
    }
    Ingested {
        entry,
        record,
        changed,
    }
}

/// The error of a path that is not there (any more).
fn is_gone(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// The key of the configuration stored pairs and library entries depend
/// on: the fingerprints' configuration, the library's floors and candidate
/// settings, and the entries' encoding.
fn pairs_config_hash(engine_config_hash: &str, library: &LibraryConfig) -> String {
    let json = serde_json::to_string(library).unwrap_or_default();
    format!(
        "{engine_config_hash}-{:016x}-entries{}",
        crate::hash::hash64(json.as_bytes(), 0),
        store::ENTRY_FORMAT
    )
}
