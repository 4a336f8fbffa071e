//! Opening a folder's index: the folder made canonical, the store opened
//! (or created) and checked, and the library loaded from each document's
//! stored entry and the kept pairs without reading a file; under another
//! configuration the stored fingerprints are verified again, once, and the
//! entries and pairs written back ([`Rewrite`]). An ingest's share
//! ([`FolderIndex::open_to_share`]) loads no document and writes no pair.
//! Also the keys of the configurations stored fingerprints and pairs are
//! made under.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::{
    FolderFiles, FolderIndex, IndexBoilerplate, IndexError, IndexOptions, IndexState, Result,
};
use crate::boilerplate::user::UserBoilerplate;
use doppel_core::doc::{DocId, DocPath};
use doppel_core::engine::{Engine, PairScores};
use doppel_pairing::candidates::Restore;
use doppel_pairing::library::{Library, LibraryConfig, PrintSource};
use doppel_store::{DocEntry, DocStatus, OpenReport, RowId, SqliteStore, Store};

/// What opening an index records in it, once its integrity check passed
/// (besides its folder and the time, [`doppel_store::Meta::record_use`]).
struct MetaWrites {
    /// The engine configuration the fingerprints are made under from now
    /// on; `None` when the stored ones were made under another, in which
    /// case the reconcile that has read every file again records it (an
    /// interrupted one leaves them all stale).
    config_hash: Option<String>,
    /// Set when the library was verified again instead of restored.
    rewrite: Option<Rewrite>,
    /// Opened under the "filed, not paired" key: a fresh scan stopped,
    /// perhaps before its boilerplate was learned (`at_once`), so the
    /// stored spans are checked before that key goes.
    unsettled: bool,
}

/// The stored library entries and pairs to write again from a library
/// verified under the current configuration, so the next open restores
/// them instead of verifying again.
struct Rewrite {
    /// The configuration they are kept under ([`doppel_store::Meta::pairs_hash`]).
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
        if self.unsettled && !index.store.is_shared() {
            index.queue_unsettled()?;
        }
        if let Some(rewrite) = self.rewrite {
            index.rewrite_stored_library(rewrite)?;
        }
        Ok(())
    }
}

/// Whether an open loads and pairs the stored documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pairing {
    /// Pair every document the stored pairs do not cover, and write the
    /// pairs back: every open but an ingest's share.
    Now,
    /// Load no document into the library (only which files are stored,
    /// and as what) and write no pair: a process's share of an ingest,
    /// while other processes add documents. It files what it reads as new
    /// documents, unpaired; the process that takes the pairing lock loads
    /// and pairs them all (see `claimed`).
    Deferred,
}

/// An indexed document as opening reads it: its row, path and shingle
/// count, in arrival order.
type StoredDoc = (RowId, DocPath, usize);

/// `root` made absolute and canonical, refused unless it is a folder.
pub(super) fn canonical_folder(root: &Path) -> Result<PathBuf> {
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
            None => SqliteStore::default_path(&root)?,
        };
        doppel_store::ensure_outside_root(&path, &root)?;
        // The integrity check reads the whole file: it runs on a connection
        // of its own while the index is loaded, and nothing is written
        // until it has passed.
        let (store, report, check) = SqliteStore::open_checking_in_background(&path)?;
        let store: Box<dyn Store> = Box::new(store);
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
            Pairing::Now,
        );
        if check.passed()? {
            let (mut index, writes) = loaded?;
            writes.apply(&mut index)?;
            return Ok((index, report));
        }
        // Corrupt after all: what was read goes, and the plain open moves
        // the file aside (as its report says) and starts a fresh index.
        drop(loaded);
        let (store, report) = SqliteStore::open(&path)?;
        let engine = Engine::new(engine_config);
        let (mut index, writes) = Self::load(
            root,
            engine,
            library_config,
            user,
            Box::new(store),
            Pairing::Now,
        )?;
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
        address: &doppel_store::StoreAddress,
        curator: &str,
    ) -> Result<(Self, OpenReport)> {
        // Without the `postgres` feature, a file is the only kind.
        #[allow(irrefutable_let_patterns)]
        if let doppel_store::StoreAddress::File(path) = address {
            return Self::open(root, engine, library_config, Some(path));
        }
        Self::open_team(root, engine, library_config, address, curator, Pairing::Now)
    }

    /// [`FolderIndex::open_at`] a team store for this process's share of
    /// an ingest ([`FolderIndex::fingerprint_share`]): which files the
    /// store holds, and as what, is read, but no document is loaded into
    /// the library and no pair is made or written, as other processes are
    /// adding documents meanwhile (a pairing written now would claim to
    /// cover documents it never saw). The pairing pass loads them all.
    pub fn open_to_share(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        address: &doppel_store::StoreAddress,
        curator: &str,
    ) -> Result<(Self, OpenReport)> {
        Self::open_team(
            root,
            engine,
            library_config,
            address,
            curator,
            Pairing::Deferred,
        )
    }

    /// Open the team store at `address` and load it, pairing as `pairing`
    /// says.
    fn open_team(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        address: &doppel_store::StoreAddress,
        curator: &str,
        pairing: Pairing,
    ) -> Result<(Self, OpenReport)> {
        let root = canonical_folder(root)?;
        let (store, report) = doppel_store::open_at(address, &root.to_string_lossy(), curator)?;
        let index = Self::load_opened(root, engine, library_config, store, pairing)?;
        Ok((index, report))
    }

    /// Load the index of `root` from `store`, a store the caller opened
    /// (or wrapped) itself: for an embedder that keeps the index in a
    /// store of its own, or a test whose store fails as a full disk does.
    /// The store is used as it is: it is not checked for corruption first,
    /// as [`FolderIndex::open`] checks an index file, and its verdicts are
    /// recorded as its curator's ([`doppel_store::Verdicts::set_curator`]). As
    /// any open does, this refuses a store that records another folder,
    /// and a store that is not shared and lies inside `root` (doppel never
    /// writes in the folder it reads); then it records the folder and the
    /// time in the store. Reads no file of the folder.
    pub fn open_with_store(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        store: Box<dyn Store>,
    ) -> Result<Self> {
        let root = canonical_folder(root)?;
        if !store.is_shared() {
            doppel_store::ensure_outside_root(store.path(), &root)?;
        }
        Self::load_opened(root, engine, library_config, store, Pairing::Now)
    }

    /// Load the index of the canonical folder `root` from the opened
    /// `store` (refused when it records another folder), pairing as
    /// `pairing` says, and record the open in it.
    fn load_opened(
        root: PathBuf,
        engine: Engine,
        library_config: LibraryConfig,
        store: Box<dyn Store>,
        pairing: Pairing,
    ) -> Result<Self> {
        if let Some(folder) = store.folder()? {
            if folder != root {
                return Err(IndexError::OtherFolder {
                    index: store.path().to_path_buf(),
                    recorded: folder,
                    root,
                });
            }
        }
        let user = UserBoilerplate::load(&root, &engine, &library_config)?;
        let (mut index, writes) = Self::load(root, engine, library_config, user, store, pairing)?;
        writes.apply(&mut index)?;
        Ok(index)
    }

    /// [`FolderIndex::open_at`] `address`, or [`FolderIndex::open`] the
    /// default file when there is none; verdicts and keeper marks made
    /// through it are recorded as `curator`'s.
    pub fn open_somewhere(
        root: &Path,
        engine: Engine,
        library_config: LibraryConfig,
        address: Option<&doppel_store::StoreAddress>,
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
    /// write is returned), pairing as `pairing` says.
    fn load(
        root: PathBuf,
        engine: Engine,
        library_config: LibraryConfig,
        user: Option<UserBoilerplate>,
        store: Box<dyn Store>,
        pairing: Pairing,
    ) -> Result<(Self, MetaWrites)> {
        let config_hash = prints_config_hash(&engine, &library_config, user.as_ref());
        let stale = store.config_hash()?.is_some_and(|h| h != config_hash);
        let mut writes = MetaWrites {
            config_hash: (!stale).then(|| config_hash.clone()),
            rewrite: None,
            unsettled: false,
        };
        let mut library = Library::new(&engine, library_config.clone());
        let mut skipped = BTreeMap::new();
        let mut stored = BTreeMap::new();
        let mut indexed: Vec<StoredDoc> = Vec::new();
        let mut keeper_facts = Vec::new();
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
                    // A row from before schema 8 has no keeper facts: its
                    // file is read again for them (held meanwhile).
                    match record.keeper {
                        Some(facts) => keeper_facts.push((record.path.clone(), facts)),
                        None => {
                            stored.insert(record.path, None);
                            continue;
                        }
                    }
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
        writes.unsettled = unpaired && pairing == Pairing::Now;
        // Pairs are read only when they are the whole current pairing:
        // under the unpaired key any left are a racing writer's, and the
        // pairing below replaces them.
        let restored = pairing == Pairing::Now
            && (current || unpaired)
            && Self::restore(&*store, &mut library, &indexed, current)?;
        tracing::info!(
            documents = indexed.len(),
            stale,
            restored,
            unpaired,
            ?pairing,
            "index loaded"
        );
        if pairing == Pairing::Deferred {
            // An ingest's share: what it reads is filed as new documents.
        } else if restored && unpaired {
            library.unpair_all();
            library.pair_unpaired(&engine, &*store)?;
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
                library.admit_unpaired(&engine, docs, &PrintsOnly(&*store))?;
            }
            library.pair_unpaired(&engine, &PrintsOnly(&*store))?;
            writes.rewrite = Some(Rewrite::of(pairs_hash, indexed, false));
        }
        for (doc, facts) in keeper_facts {
            library.set_facts(&doc, facts);
        }
        // Fingerprints that failed their checksum were read as missing:
        // their files are read again (`stored` says so already).
        for doc in store.take_corrupt() {
            stored.insert(doc, None);
        }
        read_verdicts(&*store, &mut library)?;
        let boilerplate = IndexBoilerplate::new(
            crate::boilerplate::config_of(&engine, library.config()),
            user,
        );
        Ok((
            Self {
                root,
                engine: std::sync::Arc::new(engine),
                store,
                library,
                files: FolderFiles::new(stored, skipped),
                config_hash,
                state: IndexState::opened(stale),
                boilerplate,
                options: IndexOptions::default(),
            },
            writes,
        ))
    }

    /// Restore `library` from the stored library entries (and, when
    /// `with_pairs`, the pairs) of the `indexed` documents (in arrival
    /// order). False, with `library` half-filled, when a document has no
    /// entry: the caller then verifies the documents again.
    fn restore(
        store: &dyn Store,
        library: &mut Library,
        indexed: &[StoredDoc],
        with_pairs: bool,
    ) -> Result<bool> {
        // Row → position in arrival order.
        let position: HashMap<RowId, usize> = indexed
            .iter()
            .enumerate()
            .map(|(i, (row, _, _))| (*row, i))
            .collect();
        let mut doc_of_row: HashMap<RowId, DocId> = HashMap::with_capacity(indexed.len());
        let pairs = if with_pairs { store.pair_count()? } else { 0 };
        library.reserve_restore(indexed.len(), pairs);
        let mut restore = Restore::default();
        store.document_entries_each(&mut |chunk| {
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
        if !with_pairs {
            return Ok(true);
        }
        store.pairs_each(&mut |chunk| {
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
        let pairs = pairs_by_row(&self.library, |id| row_of.get(&id).copied());
        self.store
            .replace_pairs(&mut pairs.into_iter(), &rewrite.pairs_hash)?;
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
}

/// Put the store's verdicts (every curator's) and keeper marks in
/// `library`, in place of those it had.
pub(super) fn read_verdicts(store: &dyn Store, library: &mut Library) -> Result<()> {
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
pub(super) fn prints_config_hash(
    engine: &Engine,
    library: &LibraryConfig,
    user: Option<&UserBoilerplate>,
) -> String {
    let engine_hash = doppel_store::engine_config_hash(engine.config());
    match crate::boilerplate::config_of(engine, library) {
        None => engine_hash,
        Some(config) => {
            let json = serde_json::to_string(&config).unwrap_or_default();
            let mut key = format!(
                "{engine_hash}-boilerplate{:016x}",
                doppel_core::hash::hash64(json.as_bytes(), 0)
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

/// The version of the rule that decides which pairs a library keeps: a
/// stored library made under another is verified again. 2: proposals no
/// longer depend on arrival order (posting caps count every document, SI
/// proposes both ways with ties). 3: two long documents are not paired on
/// the SimHash family's evidence alone
/// ([`doppel_pairing::candidates::LONG_DOCUMENT_SHINGLES`]). 4: SI's
/// proposals are compared in full only once SI confirms them, at any
/// length. 5: keys of different algorithms never share a slot, so a
/// proposal does not depend on which of two documents asked (issue 47).
const PAIRING_RULE: u32 = 5;

/// A store read for its full fingerprints only, by a library verified
/// again because its stored pairs and entries were kept under another
/// configuration: the slots those entries hold may be another
/// configuration's (another banding, another slot scheme) with the same
/// key counts, so none is taken back ([`PrintSource::stored_keys`]); a
/// document's keys are derived from its prints.
struct PrintsOnly<'a>(&'a dyn Store);

impl PrintSource for PrintsOnly<'_> {
    type Error = doppel_store::StoreError;

    fn full_prints(
        &self,
        paths: &[&DocPath],
    ) -> std::result::Result<Vec<Option<doppel_core::engine::Fingerprints>>, Self::Error> {
        self.0.full_prints(paths)
    }
}

/// What the stored pairs' key says while documents wait to be paired (a
/// fresh index's reconcile, an ingest): their library entries were written
/// under the configuration `pairs_hash` names, so an open files them from
/// the entries and pairs them, writing only the pairs.
pub(super) fn unpaired_hash(pairs_hash: &str) -> String {
    format!("unpaired:{pairs_hash}")
}

/// The key of the configuration stored pairs and library entries depend
/// on: the fingerprints' configuration, the library's floors and candidate
/// settings, the entries' encoding and the pairing rule.
pub(super) fn pairs_config_hash(engine_config_hash: &str, library: &LibraryConfig) -> String {
    let json = serde_json::to_string(library).unwrap_or_default();
    format!(
        "{engine_config_hash}-{:016x}-entries{}-pairs{PAIRING_RULE}",
        doppel_core::hash::hash64(json.as_bytes(), 0),
        doppel_store::ENTRY_FORMAT
    )
}

/// Every kept pair of `library` between documents with a stored `row`,
/// in the order of the pairs table's key (rows, lower first), scores
/// oriented from the lower: written so, each insert lands at the end of
/// the table, not at a random page (at 110k texts, 3.6 s -> 2.0 s).
pub(super) fn pairs_by_row(
    library: &Library,
    row: impl Fn(DocId) -> Option<RowId>,
) -> impl Iterator<Item = (RowId, RowId, PairScores)> + '_ {
    let mut order: Vec<(RowId, RowId, DocId, DocId)> = library
        .pair_ids()
        .filter_map(|(a, b)| {
            let (x, y) = (row(a)?, row(b)?);
            Some(if x < y { (x, y, a, b) } else { (y, x, b, a) })
        })
        .collect();
    order.sort_unstable();
    order
        .into_iter()
        .filter_map(|(x, y, a, b)| Some((x, y, library.pair_from(a, b)?)))
}
