//! A folder's persistent index: the SQLite store, the in-memory library and
//! the engine, kept equal to what is on disk.
//!
//! [`FolderIndex::open`] loads every stored fingerprint into the library
//! without reading a single file; [`FolderIndex::reconcile`] then compares
//! each file's `lstat` identity (size, mtime, ctime, inode, device) with the
//! stored one and reads only new or changed files, each committed in its own
//! store transaction, and forgets files that are gone. A changed engine
//! configuration makes every stored fingerprint stale. Curator verdicts live
//! in the store, keyed by path, and are applied to the library on open.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::candidates::DocId;
use crate::collection::{list_files, read_bytes, FileEntry, Skip, DEFAULT_SIZE_CAP};
use crate::engine::{Engine, Fingerprints};
use crate::library::{Library, LibraryConfig, PairVerdict};
use crate::measure::shingle_set;
use crate::store::{self, DocRecord, DocStatus, FileIdentity, OpenReport, Store};
use crate::text::decode::decode;

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
}

/// The outcome of reading one file.
struct Ingested {
    entry: FileEntry,
    record: DocRecord,
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
    /// The stored fingerprints were made by another configuration.
    stale: bool,
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
        let (mut store, report) = Store::open(&path)?;
        let config_hash = store::engine_config_hash(engine.config());
        let stale = store.config_hash()?.is_some_and(|h| h != config_hash);
        store.set_config_hash(&config_hash)?;

        let mut library = Library::new(&engine, library_config);
        let mut skipped = BTreeMap::new();
        let mut identities = HashMap::new();
        let mut keys = HashMap::new();
        let mut loaded = Vec::new();
        let mut records = store.documents()?;
        records.sort_by_key(|r| (r.first_seen_ns, r.path.clone()));
        for record in records {
            let rel = store::display_key(&record.path);
            identities.insert(record.path.clone(), record.identity);
            keys.insert(rel.clone(), record.path.clone());
            match (&record.status, record.fingerprints) {
                (DocStatus::Skipped { reason }, _) => {
                    skipped.insert(rel, reason.clone());
                }
                (DocStatus::Indexed, Some(fp)) if !stale => {
                    loaded.push((rel, fp, record.shingles as usize))
                }
                // Stale or unreadable fingerprints: forget the identity so the
                // next reconcile reads the file again.
                (DocStatus::Indexed, _) => {
                    identities.remove(&record.path);
                }
            }
        }
        library.extend(&engine, loaded);
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
                keys,
                stale,
            },
            report,
        ))
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

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Skipped files and their reasons, by display path.
    pub fn skipped(&self) -> &BTreeMap<String, String> {
        &self.skipped
    }

    /// Bring the index in line with the folder: read new and changed files
    /// (in parallel), forget vanished ones.
    pub fn reconcile(&mut self) -> Result<ReconcileReport> {
        let (files, problems) = list_files(&self.root);
        let mut report = ReconcileReport::default();
        let on_disk: HashSet<Vec<u8>> = files.iter().map(|f| f.key.clone()).collect();
        let gone: Vec<Vec<u8>> = self
            .identities
            .keys()
            .filter(|k| !on_disk.contains(*k))
            .cloned()
            .collect();
        for key in gone {
            self.forget(&key)?;
            report.removed += 1;
        }
        let (unchanged, to_read): (Vec<FileEntry>, Vec<FileEntry>) = files
            .into_iter()
            .partition(|f| !self.stale && self.identities.get(&f.key) == Some(&f.identity));
        report.unchanged = unchanged.len();
        report.read = to_read.len();
        let engine = &self.engine;
        let ingested: Vec<Ingested> = to_read
            .into_par_iter()
            .map(|entry| ingest(engine, entry))
            .collect();
        for item in ingested {
            if matches!(item.record.status, DocStatus::Skipped { .. }) {
                report.skipped += 1;
            }
            self.commit(item)?;
        }
        for (rel, skip) in problems {
            self.skipped.insert(rel, skip.to_string());
        }
        self.stale = false;
        Ok(report)
    }

    /// Apply one ingested file to the library and the store (one transaction).
    fn commit(&mut self, item: Ingested) -> Result<()> {
        let Ingested { entry, mut record } = item;
        let rel = entry.rel.clone();
        self.keys.insert(rel.clone(), entry.key.clone());
        // Arrival order is commit order (files are committed sorted by
        // path), which keeps "earliest seen" deterministic on reopen.
        record.first_seen_ns = match self.store.document(&record.path)? {
            Some(existing) => existing.first_seen_ns,
            None => store::now_ns(),
        };
        let pairs = match (&record.status, &record.fingerprints) {
            (DocStatus::Indexed, Some(fp)) => {
                self.skipped.remove(&rel);
                let id =
                    self.library
                        .upsert(&self.engine, &rel, fp.clone(), record.shingles as usize);
                self.pairs_of(id)
            }
            (DocStatus::Skipped { reason }, _) => {
                self.library.remove(&rel);
                self.skipped.insert(rel, reason.clone());
                Vec::new()
            }
            (DocStatus::Indexed, None) => Vec::new(),
        };
        self.store.upsert_document(&record, &pairs)?;
        self.identities.insert(record.path, record.identity);
        Ok(())
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
        self.library.remove(&rel);
        self.skipped.remove(&rel);
        self.store.remove_document(key)?;
        self.identities.remove(key);
        self.keys.remove(&rel);
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

    /// Fingerprints of an indexed document, by display path.
    pub fn fingerprints(&self, path: &str) -> Option<&Fingerprints> {
        Some(&self.library.doc(self.library.id_of(path)?)?.fingerprints)
    }
}

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
    };
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
            record.terms = analysis.unique_terms();
            record.encoding = Some(decoded.encoding.to_owned());
            record.fingerprints = Some(engine.fingerprint(&analysis, engine.reference_weights()));
        }
        Err(skip) => {
            record.status = DocStatus::Skipped {
                reason: skip.to_string(),
            }
        }
    }
    Ingested { entry, record }
}
