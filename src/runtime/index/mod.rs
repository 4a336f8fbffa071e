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
//! here; keeping the index equal to the folder is in `sync`.

#[cfg(feature = "postgres")]
mod adopt;
#[cfg(feature = "postgres")]
mod claimed;
mod commit;
mod error;
mod learn;
mod sync;

#[cfg(feature = "postgres")]
pub use claimed::{pair_when_done, IngestOptions, ShareReport};
pub use error::{IndexError, Result};

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::doc::{CuratorVerdict, DocId, DocPath, FileIdentity};
use crate::engine::{Engine, Fingerprints, Thresholds};
use crate::pairing::boilerplate::Learner;
use crate::pairing::candidates::Restore;
use crate::pairing::library::{Library, LibraryConfig, PrintSource};
use crate::runtime::boilerplate::user::UserBoilerplate;
use crate::runtime::collection::Skip;
use crate::runtime::reading::ReadLimits;
use crate::runtime::store::{self, DocEntry, DocStatus, OpenReport, RowId, Store, VerdictChange};

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
    /// The stored documents by row; those the library does not hold (no
    /// fingerprints stored) get no entry.
    rows: Vec<(RowId, DocPath)>,
    /// The stored entries are the current configuration's already (the
    /// documents were filed from them and only paired): only the pairs
    /// are written.
    entries_current: bool,
}

impl Rewrite {
    /// The rewrite of the `indexed` documents' pairs (and, unless
    /// `entries_current`, entries) under `pairs_hash`.
    fn of(pairs_hash: String, indexed: Vec<StoredDoc>, entries_current: bool) -> Rewrite {
        Rewrite {
            pairs_hash,
            rows: indexed
                .into_iter()
                .map(|(row, doc, _)| (row, doc))
                .collect(),
            entries_current,
        }
    }
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

/// An indexed document as opening reads it: its row, path and shingle
/// count, in arrival order.
type StoredDoc = (RowId, DocPath, usize);

/// A folder, its store and its library, kept equal to each other.
pub struct FolderIndex {
    root: PathBuf,
    /// Shared with a reconcile's reading thread (`sync`).
    engine: std::sync::Arc<Engine>,
    store: Store,
    library: Library,
    /// Every document the store has a row of, with the identity it was read
    /// with (`None`: read it again at the next look, its fingerprints are
    /// missing). Tells unchanged files without reading them, and finds the
    /// documents under a folder.
    stored: BTreeMap<DocPath, Option<FileIdentity>>,
    /// Skipped files and why: stored ones, and special files and
    /// unreadable folders the walk met (listed, not stored).
    skipped: BTreeMap<DocPath, String>,
    /// The stored fingerprints were made by another configuration.
    stale: bool,
    /// The current engine configuration's key ([`Store::config_hash`]).
    config_hash: String,
    /// Ignore globs besides the built-in ones (the config file's `ignore`).
    extra_ignores: Vec<String>,
    /// The boilerplate learner over every indexed document, built from the
    /// stored samples when a change first needs it (`None` until then, and
    /// when learning is off).
    learner: Option<Learner<DocPath>>,
    /// The user's boilerplate folder, read at open (its content is part of
    /// the fingerprints' configuration key).
    user: Option<UserBoilerplate>,
    /// Indexed documents whose boilerplate spans moved since they were
    /// fingerprinted: read again and fingerprinted over their new body
    /// before a reconcile or sync returns.
    respan: BTreeSet<DocPath>,
    /// The boilerplate report, kept until a change reaches it (spans moved,
    /// or a document with spans arrived, changed or left).
    report: Option<std::sync::Arc<crate::runtime::boilerplate::BoilerplateReport>>,
    /// Arriving documents are filed unpaired, to be paired all at once
    /// when the reconcile has read every file (a fresh index's scan, see
    /// `sync`).
    pair_later: bool,
    /// The first-seen time arriving documents get instead of the commit's
    /// (`claimed`: the time their claims were queued, so documents read by
    /// several processes arrive in path order as one process's would).
    arrival_ns: Option<i64>,
    /// Files read and committed together by a reconcile (`sync`'s
    /// `reading::CHUNK_FILES` but in tests).
    chunk_files: usize,
    /// Nothing changes after the next reconcile (a one-shot `scan`): the
    /// learner is freed when it is done with ([`FolderIndex::set_one_shot`]).
    one_shot: bool,
    /// How big files are read.
    read_limits: ReadLimits,
    /// Reads a file's bytes instead of the file system (tests: a file
    /// that changes while read, without racing a writer).
    reader: Option<FileReader>,
}

/// Reads one file whole under a size cap, identity-checked:
/// [`crate::runtime::collection::read_bytes`]'s contract.
pub type FileReader = std::sync::Arc<
    dyn Fn(&Path, u64) -> std::result::Result<(Vec<u8>, FileIdentity), Skip> + Send + Sync,
>;

impl std::fmt::Debug for FolderIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderIndex")
            .field("root", &self.root)
            .field("documents", &self.library.len())
            .finish()
    }
}

/// `root` made absolute and canonical, refused unless it is a folder.
fn canonical_folder(root: &Path) -> Result<PathBuf> {
    let root = root.canonicalize().map_err(|error| IndexError::Folder {
        root: root.to_path_buf(),
        error,
    })?;
    if !root.is_dir() {
        return Err(IndexError::NotAFolder { root });
    }
    Ok(root)
}

impl FolderIndex {
    /// Open (or create) the index of `root`, at `index_path` or the platform
    /// default outside the folder, and load it into memory. Reads no file of
    /// the folder.
    #[tracing::instrument(level = "info", name = "index.open", skip_all, fields(root = %root.display()))]
    pub fn open(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        index_path: Option<&Path>,
    ) -> Result<(Self, OpenReport)> {
        let root = canonical_folder(root)?;
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
            if folder != root {
                return Err(IndexError::OtherFolder {
                    index: path,
                    recorded: folder,
                    root,
                });
            }
        }
        let engine_config = engine.config().clone();
        let user = UserBoilerplate::load(&root, &engine, &library_config)?;
        let loaded = Self::load(
            root.clone(),
            engine,
            library_config.clone(),
            user.clone(),
            store,
        );
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
        let (mut index, writes) = Self::load(root, engine, library_config, user, store)?;
        writes.apply(&mut index)?;
        Ok((index, report))
    }

    /// Open (or create) the index of `root` at `address`: an SQLite file
    /// as [`FolderIndex::open`] does, or the folder's collection (named by
    /// its canonical path) in a PostgreSQL database, verdicts recorded as
    /// `curator`'s; then load it into memory. A database is shared: it is
    /// never checked file-wise, moved aside or replaced.
    pub fn open_at(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        address: &store::StoreAddress,
        curator: &str,
    ) -> Result<(Self, OpenReport)> {
        // Without the `postgres` feature, a file is the only kind.
        #[allow(irrefutable_let_patterns)]
        if let store::StoreAddress::File(path) = address {
            return Self::open(root, engine, library_config, Some(path));
        }
        let root = canonical_folder(root)?;
        let (store, report) = Store::open_at(address, &root.to_string_lossy(), curator)?;
        if let Some(folder) = store.folder()? {
            if folder != root {
                return Err(IndexError::OtherFolder {
                    index: address.to_string().into(),
                    recorded: folder,
                    root,
                });
            }
        }
        let user = UserBoilerplate::load(&root, &engine, &library_config)?;
        let (mut index, writes) = Self::load(root, engine, library_config, user, store)?;
        writes.apply(&mut index)?;
        Ok((index, report))
    }

    /// [`FolderIndex::open_at`] `address`, or [`FolderIndex::open`] the
    /// default file when there is none; verdicts and keeper marks made
    /// through it are recorded as `curator`'s.
    pub fn open_somewhere(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        address: Option<&store::StoreAddress>,
        curator: &str,
    ) -> Result<(Self, OpenReport)> {
        match address {
            Some(address) => Self::open_at(root, engine, library_config, address, curator),
            None => {
                let (mut index, report) = Self::open(root, engine, library_config, None)?;
                index.set_curator(curator);
                Ok((index, report))
            }
        }
    }

    /// Read an opened index into memory (writing nothing; what it would
    /// write is returned).
    fn load(
        root: PathBuf,
        engine: Engine,
        library_config: LibraryConfig,
        user: Option<UserBoilerplate>,
        store: Store,
    ) -> Result<(Self, MetaWrites)> {
        let config_hash = prints_config_hash(&engine, &library_config, user.as_ref());
        let stale = store.config_hash()?.is_some_and(|h| h != config_hash);
        let mut writes = MetaWrites {
            config_hash: (!stale).then(|| config_hash.clone()),
            rewrite: None,
        };
        let mut library = Library::new(&engine, library_config.clone());
        let mut skipped = BTreeMap::new();
        let mut stored = BTreeMap::new();
        let mut indexed: Vec<StoredDoc> = Vec::new();
        let mut records = store.documents_without_blobs()?;
        records.sort_by(|x, y| (x.first_seen_ns, &x.path).cmp(&(y.first_seen_ns, &y.path)));
        for record in records {
            match &record.status {
                DocStatus::Skipped { reason } => {
                    skipped.insert(record.path.clone(), reason.clone());
                }
                // Fingerprints of another configuration: the next
                // reconcile reads every file again anyway.
                DocStatus::Indexed if stale => {}
                DocStatus::Indexed => {
                    let id = record.id.expect("rows read from the store have ids");
                    indexed.push((id, record.path.clone(), record.shingles as usize));
                }
            }
            stored.insert(record.path, Some(record.identity));
        }
        // Stored pairs and library entries were kept under a configuration:
        // when it is the current one, load them; otherwise verify
        // candidates again, and write entries and pairs back once the
        // integrity check has passed (see `rewrite_stored_library`).
        let pairs_hash = pairs_config_hash(&config_hash, library.config());
        let stored_hash = store.pairs_hash()?;
        let current = !stale && stored_hash.as_deref() == Some(pairs_hash.as_str());
        // Documents filed under the current configuration and never paired
        // (a fresh index's scan or an ingest stopped before pairing, or
        // an ingest's pairing pass): filed from their stored entries, then
        // paired, each against those before it.
        let unpaired =
            !stale && stored_hash.as_deref() == Some(unpaired_hash(&pairs_hash).as_str());
        let restored = (current || unpaired) && Self::restore(&store, &mut library, &indexed)?;
        tracing::info!(
            documents = indexed.len(),
            stale,
            restored,
            unpaired,
            "index loaded"
        );
        if restored && unpaired {
            library.unpair_all();
            library.pair_unpaired(&engine, &store)?;
            writes.rewrite = Some(Rewrite::of(pairs_hash, indexed, true));
        } else if !restored {
            // Filed a chunk at a time, then verified all at once, each
            // against the documents before it (read back from the store).
            library = Library::new(&engine, library_config);
            for chunk in indexed.chunks(LOAD_CHUNK) {
                let paths: Vec<&DocPath> = chunk.iter().map(|(_, doc, _)| doc).collect();
                let mut docs = Vec::with_capacity(chunk.len());
                for ((_, doc, shingles), prints) in chunk.iter().zip(store.full_prints(&paths)?) {
                    match prints {
                        Some(prints) => docs.push((doc.clone(), prints, *shingles)),
                        // No fingerprints stored: read the file again.
                        None => {
                            stored.insert(doc.clone(), None);
                        }
                    }
                }
                library.admit_unpaired(&engine, docs, &store)?;
            }
            library.pair_unpaired(&engine, &store)?;
            writes.rewrite = Some(Rewrite::of(pairs_hash, indexed, false));
        }
        // Fingerprints that failed their checksum were read as missing:
        // their files are read again (`stored` says so already).
        for doc in store.take_corrupt() {
            stored.insert(doc, None);
        }
        read_verdicts(&store, &mut library)?;
        Ok((
            Self {
                root,
                engine: std::sync::Arc::new(engine),
                store,
                library,
                stored,
                skipped,
                stale,
                config_hash,
                extra_ignores: Vec::new(),
                learner: None,
                user,
                respan: BTreeSet::new(),
                report: None,
                pair_later: false,
                arrival_ns: None,
                chunk_files: crate::runtime::reading::CHUNK_FILES,
                one_shot: false,
                read_limits: ReadLimits::default(),
                reader: None,
            },
            writes,
        ))
    }

    /// Restore `library` from the stored library entries and pairs of the
    /// `indexed` documents (in arrival order). False, with `library`
    /// half-filled, when a document has no entry: the caller then verifies
    /// the documents again.
    fn restore(store: &Store, library: &mut Library, indexed: &[StoredDoc]) -> Result<bool> {
        // Row → position in arrival order.
        let position: HashMap<RowId, usize> = indexed
            .iter()
            .enumerate()
            .map(|(i, (row, _, _))| (*row, i))
            .collect();
        let mut doc_of_row: HashMap<RowId, DocId> = HashMap::with_capacity(indexed.len());
        library.reserve_restore(indexed.len(), store.pair_count()?);
        let mut restore = Restore::default();
        store.document_entries_each(|chunk| {
            for (row, entry) in chunk {
                let Some(&i) = position.get(&row) else {
                    continue;
                };
                let (_, doc, shingles) = &indexed[i];
                let id = library.restore_doc(
                    &mut restore,
                    doc.clone(),
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
        let mut row_of: HashMap<DocId, RowId> = HashMap::with_capacity(rewrite.rows.len());
        if rewrite.entries_current {
            row_of.extend(
                rewrite
                    .rows
                    .iter()
                    .filter_map(|(row, doc)| Some((self.library.id_of(doc)?, *row))),
            );
        } else {
            self.rewrite_entries(&rewrite.rows, &mut row_of)?;
        }
        let pairs = self
            .library
            .pairs()
            .filter_map(|(a, b, scores)| Some((*row_of.get(&a)?, *row_of.get(&b)?, scores)));
        self.store.replace_pairs(pairs, &rewrite.pairs_hash)?;
        Ok(())
    }

    /// Write every held document's library entry again from its stored
    /// fingerprints, noting each one's row in `row_of`.
    fn rewrite_entries(
        &mut self,
        rows: &[(RowId, DocPath)],
        row_of: &mut HashMap<DocId, RowId>,
    ) -> Result<()> {
        self.store.clear_entries()?;
        for chunk in rows.chunks(LOAD_CHUNK) {
            let paths: Vec<&DocPath> = chunk.iter().map(|(_, doc)| doc).collect();
            let mut entries = Vec::with_capacity(chunk.len());
            for ((row, doc), prints) in chunk.iter().zip(self.store.full_prints(&paths)?) {
                if let (Some(id), Some(prints)) = (self.library.id_of(doc), prints) {
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
        Ok(())
    }

    /// Read files with `reader` instead of
    /// [`crate::runtime::collection::read_bytes`]: tests make a file change
    /// while it is read, or fail, without racing a writer.
    #[doc(hidden)]
    pub fn set_file_reader(&mut self, reader: FileReader) {
        self.reader = Some(reader);
    }

    /// Read and commit at most `files` files at a time in a reconcile
    /// (tests: many chunks of a small folder).
    #[doc(hidden)]
    pub fn set_chunk_files(&mut self, files: usize) {
        self.chunk_files = files.max(1);
    }

    /// Make the store's writes fail as `faults` says (tests).
    #[doc(hidden)]
    pub fn set_store_faults(&mut self, faults: Option<store::StoreFaults>) {
        self.store.set_faults(faults);
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
            .remove_many(&self.engine, left_out, &self.store)?;
        Ok(self.library)
    }

    /// Free the boilerplate learner (~2 KB a document; at 110k texts
    /// ~220 MiB) where nothing will change any more (a one-shot scan's
    /// report); the next change builds it again from the store.
    pub fn drop_learner(&mut self) {
        self.learner = None;
    }

    /// Whether the boilerplate learner is in memory (it is built from the
    /// store when a change first needs it).
    pub fn holds_learner(&self) -> bool {
        self.learner.is_some()
    }

    /// Say that nothing but a report follows the next reconcile (a
    /// one-shot `scan`, not a watcher): a fresh reconcile then frees the
    /// learner before it pairs, unless documents wait to be fingerprinted
    /// again over new boilerplate, and a later change builds it again from
    /// the store.
    pub fn set_one_shot(&mut self, one_shot: bool) {
        self.one_shot = one_shot;
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Skipped files and their reasons.
    pub fn skipped(&self) -> &BTreeMap<DocPath, String> {
        &self.skipped
    }

    /// Leave out paths matched by these globs too (see
    /// [`crate::runtime::collection::list_files_with`]), from the next reconcile or
    /// sync on: indexed files they match are then forgotten.
    pub fn set_extra_ignores(&mut self, globs: Vec<String>) {
        self.extra_ignores = globs;
    }

    /// Read big files within `limits` (`[reading]`; the defaults until set).
    pub fn set_read_limits(&mut self, limits: ReadLimits) {
        self.read_limits = limits;
    }

    /// Re-gather every document's candidates under new floors (a threshold
    /// was moved below one). Only the in-memory pairs change; the floors are
    /// back to the configured ones on the next open.
    pub fn regather(&mut self, floors: Thresholds) -> Result<()> {
        self.library.regather(&self.engine, floors, &self.store)?;
        Ok(())
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
        read_verdicts(&self.store, &mut self.library)
    }

    /// Mark a document as its cluster's keeper (persisted; it represents
    /// its cluster).
    pub fn set_keeper(&mut self, doc: &DocPath, keeper: bool) -> Result<()> {
        self.store.set_keeper(doc, keeper)?;
        self.library.set_keeper(doc, keeper);
        Ok(())
    }

    /// The key the stored pairs are kept under in this index's
    /// configuration ([`Store::pairs_hash`]).
    fn pairs_key(&self) -> String {
        pairs_config_hash(&self.config_hash, self.library.config())
    }

    /// Save thresholds for everyone reviewing the collection (a team
    /// store announces them to the other processes).
    pub fn share_thresholds(&mut self, saved: &store::SharedThresholds) -> Result<()> {
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

/// Put the store's verdicts (every curator's) and keeper marks in
/// `library`, in place of those it had.
fn read_verdicts(store: &Store, library: &mut Library) -> Result<()> {
    library.clear_pair_verdicts();
    for v in store.pair_verdicts()? {
        library.set_pair_verdict(&v.a, &v.b, &v.curator, Some((v.verdict, v.set_at_ns)));
    }
    library.clear_keepers();
    for doc in store.keepers()? {
        library.set_keeper(&doc, true);
    }
    Ok(())
}

/// Documents read back and filed at a time when stored pairs cannot be
/// used (then paired all at once): bounds the full fingerprints held.
const LOAD_CHUNK: usize = 4096;

/// The key of the configuration fingerprints are made under: the engine's
/// and the boilerplate learning's (documents are fingerprinted without
/// their boilerplate).
fn prints_config_hash(
    engine: &Engine,
    library: &LibraryConfig,
    user: Option<&UserBoilerplate>,
) -> String {
    let engine_hash = store::engine_config_hash(engine.config());
    match crate::runtime::boilerplate::config_of(engine, library) {
        None => engine_hash,
        Some(config) => {
            let json = serde_json::to_string(&config).unwrap_or_default();
            let mut key = format!(
                "{engine_hash}-boilerplate{:016x}",
                crate::hash::hash64(json.as_bytes(), 0)
            );
            // The user's folder's content: a change of it reads every
            // document again, under the new pins.
            if let Some(user) = user {
                key.push_str(&format!("-user{:016x}", user.key()));
            }
            key
        }
    }
}

/// The key of the configuration stored pairs and library entries depend
/// on: the fingerprints' configuration, the library's floors and candidate
/// settings, and the entries' encoding.
/// The version of the rule that decides which pairs a library keeps: a
/// stored library made under another is verified again. 2: proposals no
/// longer depend on arrival order (posting caps count every document, SI
/// proposes both ways with ties). 3: two long documents are not paired on
/// the SimHash family's evidence alone
/// ([`crate::pairing::candidates::LONG_DOCUMENT_SHINGLES`]).
const PAIRING_RULE: u32 = 3;

/// What the stored pairs' key says while documents wait to be paired (a
/// fresh index's reconcile, an ingest): their library entries were written
/// under the configuration `pairs_hash` names, so an open files them from
/// the entries and pairs them, writing only the pairs.
fn unpaired_hash(pairs_hash: &str) -> String {
    format!("unpaired:{pairs_hash}")
}

fn pairs_config_hash(engine_config_hash: &str, library: &LibraryConfig) -> String {
    let json = serde_json::to_string(library).unwrap_or_default();
    format!(
        "{engine_config_hash}-{:016x}-entries{}-pairs{PAIRING_RULE}",
        crate::hash::hash64(json.as_bytes(), 0),
        store::ENTRY_FORMAT
    )
}
