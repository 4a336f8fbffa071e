//! A one-shot scan of a folder: read and fingerprint every file (in
//! parallel), build a [`Library`] (candidate tables + verified pairs), and
//! cluster it under a [`ClusterSpec`].

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use rayon::prelude::*;

use crate::boilerplate;
use crate::boilerplate::user::UserBoilerplate;
use crate::boilerplate::{BoilerplateReport, DocBoilerplate};
use crate::collection::{
    list_documents, FileEntry, ListedRoot, PageFolders, Skip, Source, DEFAULT_SIZE_CAP,
};
use crate::index::{FileChange, FolderIndex, IndexError, ReadProgress, ReconcileReport};
use crate::reading::{
    next_chunk, read_all, read_document, read_document_sampled, read_small_text, ReadDoc,
    ReadLimits, CHUNK_FILES,
};
use crate::spill::{SpillError, SpillProblem, SpilledPrints};
use doppel_core::doc::{DocId, DocPath};
use doppel_core::engine::fingerprinter::PrintOptions;
use doppel_core::engine::stats::TermWeights;
use doppel_core::engine::{verdict, Engine, Fingerprints, PairScores, RelationKind, Verdict};
use doppel_pairing::boilerplate::{learn_at_once, BoilerplateConfig, DocSamples, Span};
use doppel_pairing::cluster::{ClusterInfo, ClusterSpec};
use doppel_pairing::keeper::KeeperFacts;
use doppel_pairing::library::{Library, LibraryConfig, PrintSource};
use doppel_store::DocStatus;

/// One file of the scanned folder.
#[derive(Debug, Clone)]
pub struct ScannedDoc {
    /// The file, relative to the folder.
    pub path: DocPath,
    /// Its length in bytes.
    pub bytes: u64,
    /// Encoding the text was decoded from, for indexed documents.
    pub encoding: Option<String>,
    /// Why the file is not indexed, if it is not.
    pub skipped: Option<Skip>,
}

/// A kept pair judged under the scan's spec.
#[derive(Debug, Clone)]
pub struct ScannedPair {
    /// The first document (in byte order).
    pub a: DocPath,
    /// The second document.
    pub b: DocPath,
    /// Every algorithm's score, oriented from `a` to `b`.
    pub scores: PairScores,
    /// The scores judged under the scan's thresholds and fusion rule.
    pub verdict: Verdict,
}

/// Whether a report prints a kept pair with this verdict: it passes some
/// algorithm's threshold, is a `fusion` duplicate, or carries a relation
/// (`duplicate`, `contains`, `related`: translations are never left out).
pub fn reported(verdict: &Verdict) -> bool {
    !verdict.passing.is_empty() || verdict.fusion || verdict.relation.is_some()
}

/// A scanned folder: its files, its library and its clusters.
#[derive(Debug)]
pub struct ScanReport {
    /// Every file met, indexed or skipped, sorted by path.
    pub docs: Vec<ScannedDoc>,
    /// The indexed documents and their verified pairs.
    pub library: Library,
    /// How pairs were judged and grouped.
    pub spec: ClusterSpec,
    /// The clusters under `spec`, largest first.
    pub clusters: Vec<ClusterInfo>,
    /// The boilerplate learned from the folder and left out of every
    /// document's fingerprints.
    pub boilerplate: BoilerplateReport,
    /// When set, [`ScanReport::pairs`] gives only pairs of these relations
    /// (`--relation`); clusters are not filtered.
    pub only_relations: Option<Vec<RelationKind>>,
}

impl ScanReport {
    /// Clusters as lists of paths, representative first.
    pub fn cluster_paths(&self) -> Vec<Vec<DocPath>> {
        self.clusters
            .iter()
            .map(|c| {
                c.members
                    .iter()
                    .filter_map(|&m| self.path(m).cloned())
                    .collect()
            })
            .collect()
    }

    fn path(&self, id: DocId) -> Option<&DocPath> {
        self.library.doc(id).map(|d| &d.path)
    }

    /// The pairs a report prints, judged under the spec's thresholds and
    /// sorted by paths: every kept pair that passes some algorithm's
    /// threshold, is a `fusion` duplicate or carries a relation
    /// ([`reported`]); only those of [`ScanReport::only_relations`] when it
    /// is set. A kept pair that passes none of these (kept above a floor
    /// for looser thresholds) is not one.
    pub fn pairs(&self) -> Vec<ScannedPair> {
        self.reported_pairs().collect()
    }

    /// [`ScanReport::pairs`] one at a time: only the pairs' ids are held
    /// (sorted by paths), each is judged as it is reached, so a report of
    /// millions of pairs is written without holding them all judged.
    pub fn reported_pairs(&self) -> impl Iterator<Item = ScannedPair> + '_ {
        let path = |id: DocId| self.library.doc(id).map(|d| &d.path);
        // Oriented by path first: the relation names a side.
        let mut ids: Vec<(DocId, DocId)> = self
            .library
            .pair_ids()
            .filter_map(|(a, b)| Some(if path(a)? <= path(b)? { (a, b) } else { (b, a) }))
            .collect();
        ids.sort_unstable_by(|x, y| (path(x.0), path(x.1)).cmp(&(path(y.0), path(y.1))));
        ids.into_iter().filter_map(move |(a, b)| {
            let pair = self.judged(a, b)?;
            if !reported(&pair.verdict) {
                return None;
            }
            if let Some(only) = &self.only_relations {
                if !pair
                    .verdict
                    .relation
                    .is_some_and(|r| only.contains(&r.kind()))
                {
                    return None;
                }
            }
            Some(pair)
        })
    }

    /// How many pairs the report prints ([`ScanReport::pairs`] without
    /// `--relation`): fewer than the library keeps when some pass only a
    /// floor.
    pub fn reported_count(&self) -> usize {
        self.library
            .pair_ids()
            .filter(|&(a, b)| self.judged(a, b).is_some_and(|p| reported(&p.verdict)))
            .count()
    }

    /// The kept pair {a, b} oriented from `a`, judged under the spec.
    fn judged(&self, a: DocId, b: DocId) -> Option<ScannedPair> {
        let (da, db) = (self.library.doc(a)?, self.library.doc(b)?);
        let scores = self.library.pair_from(a, b)?;
        let verdict = verdict(
            &scores,
            &self.spec.thresholds,
            &self.spec.fusion,
            da.shingles.min(db.shingles),
        );
        Some(ScannedPair {
            a: da.path.clone(),
            b: db.path.clone(),
            scores,
            verdict,
        })
    }

    /// The judged pair of two paths, if it was kept.
    pub fn pair(&self, a: &DocPath, b: &DocPath) -> Option<ScannedPair> {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let pair = self.judged(self.library.id_of(a)?, self.library.id_of(b)?)?;
        let only = self.only_relations.as_ref();
        (reported(&pair.verdict)
            && only.is_none_or(|o| pair.verdict.relation.is_some_and(|r| o.contains(&r.kind()))))
        .then_some(pair)
    }
}

impl ScanReport {
    /// The report of a persistent index after `reconciled` (what
    /// [`FolderIndex::reconcile`] reported), which it closes. A file that
    /// changed while it was read is listed with that reason (the index keeps
    /// what it had of it, if anything, but this report does not).
    #[tracing::instrument(level = "debug", name = "scan.from_index", skip_all)]
    pub fn from_index(
        mut index: FolderIndex,
        spec: ClusterSpec,
        reconciled: &ReconcileReport,
    ) -> Result<Self, IndexError> {
        // The report is read from the store and the library alone.
        index.drop_learner_aside();
        let changed: std::collections::HashSet<DocPath> = reconciled
            .changes
            .iter()
            .filter_map(|c| match c {
                FileChange::Retry { path } => path
                    .strip_prefix(index.root())
                    .ok()
                    .map(DocPath::from_relative),
                _ => None,
            })
            .collect();
        let mut docs: Vec<ScannedDoc> = index
            .store()
            .listing()?
            .into_iter()
            .map(|record| ScannedDoc {
                skipped: match record.status {
                    _ if changed.contains(&record.path) => Some(Skip::Changed),
                    DocStatus::Indexed => None,
                    DocStatus::Skipped { reason } => Some(Skip::Recorded { reason }),
                },
                path: record.path,
                bytes: record.size,
                encoding: record.encoding,
            })
            .collect();
        let mut known: std::collections::HashSet<DocPath> =
            docs.iter().map(|d| d.path.clone()).collect();
        for doc in &changed {
            if known.insert(doc.clone()) {
                let bytes = std::fs::symlink_metadata(index.root().join(doc.to_relative_path()))
                    .map_or(0, |m| m.len());
                docs.push(ScannedDoc {
                    path: doc.clone(),
                    bytes,
                    encoding: None,
                    skipped: Some(Skip::Changed),
                });
            }
        }
        // Problems met while walking (unreadable folders, FIFOs) have no row.
        for (doc, reason) in index.skipped() {
            if !known.contains(doc) {
                docs.push(ScannedDoc {
                    path: doc.clone(),
                    bytes: 0,
                    encoding: None,
                    skipped: Some(Skip::Recorded {
                        reason: reason.clone(),
                    }),
                });
            }
        }
        docs.sort_by(|a, b| a.path.cmp(&b.path));
        let boilerplate = index.boilerplate_report()?;
        let changed: Vec<DocPath> = changed.into_iter().collect();
        let library = index.into_library_without(&changed)?;
        Ok(Self::clustered(docs, library, spec, boilerplate))
    }

    /// The report of `docs` and `library` (its boilerplate learned as
    /// `boilerplate`), clustered under `spec`.
    fn clustered(
        docs: Vec<ScannedDoc>,
        library: Library,
        spec: ClusterSpec,
        boilerplate: BoilerplateReport,
    ) -> Self {
        let clusters = library.clusters(&spec);
        Self {
            docs,
            library,
            spec,
            clusters,
            boilerplate,
            only_relations: None,
        }
    }
}

/// Read and fingerprint one file: `(fingerprints, distinct shingles,
/// encoding)` or why it is skipped.
pub fn fingerprint_file(
    path: &Path,
    engine: &Engine,
    weights: &dyn TermWeights,
    limits: &ReadLimits,
) -> Result<(Fingerprints, usize, &'static str), Skip> {
    let options = PrintOptions::default();
    let read = read_document(path, DEFAULT_SIZE_CAP, engine, weights, options, limits)?;
    Ok((
        read.printed.fingerprints,
        read.printed.shingles,
        read.encoding,
    ))
}

/// Scan `root` with `engine`, weighting terms with `weights`. Fails only
/// when the temporary file the documents' full fingerprints are spilled to
/// ([`SpilledPrints`]) cannot be written or read back.
pub fn scan_folder(
    root: &Path,
    engine: &Engine,
    weights: &dyn TermWeights,
    config: LibraryConfig,
    spec: ClusterSpec,
) -> Result<ScanReport, SpillError> {
    scan_folder_with(root, engine, weights, config, spec, &ScanHooks::default())
}

/// What [`scan_folder_with`] adds to [`scan_folder`].
#[derive(Default, Clone, Copy)]
pub struct ScanHooks<'a> {
    /// Ignore globs besides the built-in ones (see
    /// [`crate::collection::list_files_with`]).
    pub extra_ignores: &'a [String],
    /// Which folders are read as books (`[books] page-folders`).
    pub page_folders: PageFolders,
    /// Told after each file is read and fingerprinted (from the worker
    /// threads, so reports can arrive slightly out of order); once `done`
    /// equals `total` only comparing and clustering are left.
    pub progress: Option<&'a (dyn Fn(ReadProgress) + Sync)>,
    /// How big files are read (`[reading]`).
    pub limits: ReadLimits,
    /// The user's boilerplate folder, read
    /// ([`boilerplate::user::UserBoilerplate::load`]): pinned while learning.
    pub user_boilerplate: Option<&'a UserBoilerplate>,
    /// Files read together at most (`None`: [`CHUNK_FILES`]); tests
    /// make several chunks of a small folder.
    pub read_chunk_files: Option<usize>,
    /// Who makes the bodies of the documents with boilerplate, when not
    /// this process (doppel-cluster's executors).
    pub bodies: Option<&'a dyn BodiesElsewhere>,
}

/// A body the learned boilerplate asks for: the file as listed, its
/// analysis's words and its boilerplate spans.
#[derive(Debug, Clone, Copy)]
pub struct BodyWanted<'a> {
    /// The file.
    pub file: &'a FileEntry,
    /// Words of its whole analysis.
    pub words: u32,
    /// Its boilerplate, in word positions.
    pub spans: &'a [Span],
}

/// A body as [`read_body`] made it, its prints spilled: its distinct
/// shingles and where its boilerplate is; `None`: no body to make (its
/// whole prints stand).
pub type MadeBody = Option<(usize, DocBoilerplate)>;

/// Makes a one-shot scan's bodies somewhere else than this process, each
/// with [`read_body`] (doppel-cluster's executors, with the learned
/// spans sent to them).
pub trait BodiesElsewhere: Sync {
    /// Each of `wanted` made, its prints put in `spill`, by document. A
    /// document missing from the answer was not made there: this
    /// process makes it.
    fn bodies<'w>(
        &self,
        wanted: &[BodyWanted<'w>],
        spill: &SpilledPrints,
    ) -> Result<HashMap<&'w DocPath, MadeBody>, SpillError>;
}

/// The body of the listed file `source` (its text read again, only when
/// it is not big under `limits` and still the file listed; `words`: its
/// whole analysis's words) without the boilerplate `spans`:
/// [`boilerplate::body_prints`]. The one function a one-shot scan makes
/// bodies with, here or on doppel-cluster's executors.
pub fn read_body(
    engine: &Engine,
    source: Source<'_>,
    limits: &ReadLimits,
    words: u32,
    spans: &[Span],
) -> Option<(Fingerprints, usize, DocBoilerplate)> {
    let text = read_small_text(source, DEFAULT_SIZE_CAP, limits)?;
    boilerplate::body_prints(engine, &text, words, spans)
}

impl std::fmt::Debug for ScanHooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanHooks")
            .field("extra_ignores", &self.extra_ignores)
            .field("page_folders", &self.page_folders)
            .field("progress", &self.progress.is_some())
            .field("limits", &self.limits)
            .field("read_chunk_files", &self.read_chunk_files)
            .field(
                "user_boilerplate",
                &self.user_boilerplate.map(|u| u.files.len()),
            )
            .field("bodies", &self.bodies.is_some())
            .finish()
    }
}

/// [`scan_folder`] with extra ignore globs and a progress callback.
pub fn scan_folder_with(
    root: &Path,
    engine: &Engine,
    weights: &dyn TermWeights,
    config: LibraryConfig,
    spec: ClusterSpec,
    hooks: &ScanHooks<'_>,
) -> Result<ScanReport, SpillError> {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    // Each file's full fingerprints go to the spill as it is read: the
    // scan holds per document only what pairing keeps (hot prints and
    // candidate keys), not its shingle and winnowing sets.
    let spill = SpilledPrints::new()?;
    let (files, problems) = list_documents(root, hooks.extra_ignores, hooks.page_folders);
    // Each file is read only if it is still the one listed.
    let listed_root = ListedRoot::new(root);
    let total = files.len();
    let total_bytes = files.iter().map(|f| f.bytes).sum();
    let (done, bytes) = (AtomicUsize::new(0), AtomicU64::new(0));
    if let Some(progress) = hooks.progress {
        progress(ReadProgress {
            done: 0,
            total,
            bytes: 0,
            total_bytes,
        });
    }
    let read_one = |file: &FileEntry| {
        let result = read_listed(&listed_root, file, engine, weights, &config, &hooks.limits)
            // Only the samples are kept, the fingerprints spilled: holding
            // every file's text until all are read would hold the whole
            // folder (the few with boilerplate are read again).
            .map(|read| {
                let spilled = spill.put(&file.doc, &read.printed.fingerprints);
                (Kept::of(read), spilled)
            });
        if let Some(progress) = hooks.progress {
            progress(ReadProgress {
                done: done.fetch_add(1, Ordering::Relaxed) + 1,
                total,
                bytes: bytes.fetch_add(file.bytes, Ordering::Relaxed) + file.bytes,
                total_bytes,
            });
        }
        result
    };
    let mut gathering = Gathering::new(&listed_root, files.len() + problems.len());
    let most = hooks.read_chunk_files.unwrap_or(CHUNK_FILES);
    let mut rest = files.iter().peekable();
    loop {
        let chunk = next_chunk(&mut rest, |f| f.bytes, most);
        if chunk.is_empty() {
            break;
        }
        let results = read_all(chunk.clone(), |f| f.bytes, &hooks.limits, read_one);
        for (file, result) in chunk.into_iter().zip(results) {
            let kept = match result {
                Ok((kept, spilled)) => {
                    spilled?;
                    Ok(kept)
                }
                Err(skip) => Err(skip),
            };
            gathering.add(file, kept);
        }
    }
    gathering.finish(problems, engine, config, spec, hooks, &spill)
}

/// Read the listed `file` of `listed` as a one-shot scan does: decoded and
/// fingerprinted, and, when `config` learns boilerplate, a small file
/// sampled for the learner (big ones take no part in learning:
/// `crate::reading`). The one reading [`scan_folder_with`] and
/// doppel-cluster's plans both do.
pub fn read_listed(
    listed: &ListedRoot,
    file: &FileEntry,
    engine: &Engine,
    weights: &dyn TermWeights,
    config: &LibraryConfig,
    limits: &ReadLimits,
) -> Result<ReadDoc, Skip> {
    // Sampled exactly when `boilerplate::config_of` learns.
    let sampling = config.boilerplate.enabled.then_some(config);
    read_document_sampled(
        Source::Listed(listed, file),
        DEFAULT_SIZE_CAP,
        engine,
        weights,
        PrintOptions::default(),
        limits,
        sampling,
    )
}

/// What a one-shot scan keeps of a file it read: no text, and not its
/// fingerprints (spilled as they are made). It travels from where it
/// was read (doppel-cluster's executors) in serde's form.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Kept {
    /// The encoding its text was decoded from.
    pub encoding: String,
    /// What the keeper rule reads of it.
    pub keeper: KeeperFacts,
    /// Its distinct shingles.
    pub shingles: usize,
    /// Its samples for the boilerplate learner, when it was sampled.
    pub samples: Option<DocSamples>,
}

impl Kept {
    /// What is kept of `read` (its fingerprints are the caller's to
    /// spill).
    pub fn of(read: ReadDoc) -> Self {
        Self {
            encoding: read.encoding.to_owned(),
            keeper: read.keeper,
            shingles: read.printed.shingles,
            samples: read.sampled.map(|taken| taken.samples),
        }
    }
}

/// A one-shot scan's files as they are read, and what follows the last
/// one: the boilerplate learned at once, pairing, clustering. Reading is
/// the caller's ([`scan_folder_with`] on the rayon pool, doppel-cluster in
/// a DataFusion plan); each file's fingerprints go to the scan's spill,
/// and its [`Kept`] or skip is added here in the listing's order.
#[derive(Debug)]
pub struct Gathering<'a> {
    listed: &'a ListedRoot,
    docs: Vec<ScannedDoc>,
    indexed: Vec<(DocPath, usize)>,
    keeper_facts: Vec<(DocPath, KeeperFacts)>,
    // Every read document's samples, in file order: learned at once after
    // the last file, on the rayon pool (`learn_at_once`, the answer a
    // learner kept up to date file by file would give, at a fraction of
    // its cost).
    sampled: Vec<(DocPath, DocSamples)>,
    /// The sampled files as listed, read again for their bodies.
    files_of: HashMap<&'a DocPath, &'a FileEntry>,
}

impl<'a> Gathering<'a> {
    /// Nothing gathered yet of the files listed beneath `listed`, about
    /// `files` of them.
    pub fn new(listed: &'a ListedRoot, files: usize) -> Self {
        Self {
            listed,
            docs: Vec::with_capacity(files),
            indexed: Vec::new(),
            keeper_facts: Vec::new(),
            sampled: Vec::new(),
            files_of: HashMap::new(),
        }
    }

    /// The next file of the listing, read (its fingerprints spilled) or
    /// skipped.
    pub fn add(&mut self, file: &'a FileEntry, read: Result<Kept, Skip>) {
        let (encoding, skipped) = match read {
            Ok(kept) => {
                self.indexed.push((file.doc.clone(), kept.shingles));
                self.keeper_facts.push((file.doc.clone(), kept.keeper));
                if let Some(samples) = kept.samples {
                    self.sampled.push((file.doc.clone(), samples));
                    self.files_of.insert(&file.doc, file);
                }
                (Some(kept.encoding), None)
            }
            Err(skip) => (None, Some(skip)),
        };
        self.docs.push(ScannedDoc {
            path: file.doc.clone(),
            bytes: file.bytes,
            encoding,
            skipped,
        });
    }

    /// The scan once every listed file was added: the listing's
    /// `problems` joined to its files, the boilerplate learned and left
    /// out of the bodies (those read again), the library paired from
    /// `spill` and clustered under `spec`.
    pub fn finish(
        self,
        problems: Vec<(DocPath, Skip)>,
        engine: &Engine,
        config: LibraryConfig,
        spec: ClusterSpec,
        hooks: &ScanHooks<'_>,
        spill: &SpilledPrints,
    ) -> Result<ScanReport, SpillError> {
        let Self {
            listed,
            mut docs,
            mut indexed,
            keeper_facts,
            sampled,
            files_of,
        } = self;
        docs.extend(problems.into_iter().map(|(path, skip)| ScannedDoc {
            path,
            bytes: 0,
            encoding: None,
            skipped: Some(skip),
        }));
        let boilerplate = match boilerplate::config_of(engine, &config) {
            Some(learning) => learn_boilerplate(
                engine,
                &learning,
                hooks,
                sampled,
                (listed, &files_of),
                spill,
                &mut indexed,
            )?,
            None => BoilerplateReport::default(),
        };
        let mut library = pair_spilled(engine, config, indexed, spill)?;
        for (doc, facts) in keeper_facts {
            library.set_facts(&doc, facts);
        }
        Ok(ScanReport::clustered(docs, library, spec, boilerplate))
    }
}

/// Spilled bytes of full fingerprints filed in the candidate tables at a
/// time by [`pair_spilled`].
const ADMIT_BYTES: u64 = 64 << 20;

/// The library of the `indexed` documents (in arrival order, with their
/// distinct shingles), whose full fingerprints are in `spill`: filed in
/// the candidate tables a few at a time, then paired as one batch would
/// be ([`Library::admit_unpaired`], [`Library::pair_unpaired`]), each
/// step reading back only the fingerprints it needs.
fn pair_spilled(
    engine: &Engine,
    config: LibraryConfig,
    indexed: Vec<(DocPath, usize)>,
    spill: &SpilledPrints,
) -> Result<Library, SpillError> {
    let mut library = Library::new(engine, config);
    // Every document was read before this, and the learner is gone: the
    // slots are held at no peak, and deriving them again would read every
    // spilled print once more (~9 s at 110k texts).
    library.set_spill_after(usize::MAX);
    let mut rest = indexed.as_slice();
    while !rest.is_empty() {
        let mut bytes = 0;
        let take = rest
            .iter()
            .take_while(|(path, _)| {
                let fits = bytes == 0 || bytes < ADMIT_BYTES;
                bytes += spill.spilled_bytes(path);
                fits
            })
            .count();
        let (chunk, after) = rest.split_at(take);
        rest = after;
        let paths: Vec<&DocPath> = chunk.iter().map(|(path, _)| path).collect();
        let docs = chunk
            .iter()
            .zip(spill.full_prints(&paths)?)
            .map(|((path, shingles), prints)| {
                let prints = prints.ok_or_else(|| SpillError::Read {
                    path: path.clone(),
                    reason: SpillProblem::Missing,
                })?;
                Ok((path.clone(), prints, *shingles))
            })
            .collect::<Result<Vec<_>, SpillError>>()?;
        library.admit_unpaired(engine, docs, spill)?;
    }
    library.pair_unpaired(engine, spill)?;
    Ok(library)
}

/// Learn the boilerplate of the scanned documents (`sampled`, read from
/// `files_of` beneath `listed`; big files are not among them), the
/// user's boilerplate (`hooks`) pinned, and fingerprint every document
/// that has some over its body ([`read_body`]: read again, and only
/// while it is not big under `hooks.limits`, and only while it is the
/// file listed: only those documents pay; by `hooks.bodies` when set),
/// replacing its prints in `spill` and its shingle count in `indexed`.
/// Learned at once
/// ([`learn_at_once`]); the samples are dropped when this returns:
/// pairing does not need them.
fn learn_boilerplate(
    engine: &Engine,
    config: &BoilerplateConfig,
    hooks: &ScanHooks<'_>,
    sampled: Vec<(DocPath, DocSamples)>,
    (listed, files_of): (&ListedRoot, &HashMap<&DocPath, &FileEntry>),
    spill: &SpilledPrints,
    indexed: &mut [(DocPath, usize)],
) -> Result<BoilerplateReport, SpillError> {
    let limits = &hooks.limits;
    let pinned = hooks
        .user_boilerplate
        .map(UserBoilerplate::hashes)
        .unwrap_or_default();
    let learned = learn_at_once(&sampled, &pinned, &BTreeSet::new(), config);
    let samples: HashMap<&DocPath, &DocSamples> = sampled.iter().map(|(d, s)| (d, s)).collect();
    let wanted: Vec<BodyWanted<'_>> = learned
        .spans
        .iter()
        .filter_map(|(doc, spans)| {
            Some(BodyWanted {
                file: files_of.get(doc)?,
                words: samples.get(doc)?.words,
                spans,
            })
        })
        .collect();
    // Made elsewhere when the scan says where (their prints spilled as
    // they come back); what was not, here.
    let mut bodies: HashMap<&DocPath, MadeBody> = match hooks.bodies {
        Some(elsewhere) => elsewhere.bodies(&wanted, spill)?,
        None => HashMap::new(),
    };
    // Each body's prints are spilled as they are made: most books of a
    // collection have some boilerplate.
    let here: Vec<(&DocPath, MadeBody)> = wanted
        .par_iter()
        .filter(|w| !bodies.contains_key(&w.file.doc))
        .map(|w| {
            let made = read_body(
                engine,
                Source::Listed(listed, w.file),
                limits,
                w.words,
                w.spans,
            );
            let made = match made {
                Some((body, count, found)) => {
                    spill.put(&w.file.doc, &body)?;
                    Some((count, found))
                }
                None => None,
            };
            Ok((&w.file.doc, made))
        })
        .collect::<Result<_, SpillError>>()?;
    bodies.extend(here);
    let bodies: HashMap<&DocPath, (usize, DocBoilerplate)> = bodies
        .into_iter()
        .filter_map(|(doc, made)| Some((doc, made?)))
        .collect();
    for (doc, shingles) in indexed.iter_mut() {
        if let Some((count, _)) = bodies.get(doc) {
            *shingles = *count;
        }
    }
    Ok(BoilerplateReport::new(
        bodies
            .iter()
            .filter_map(|(doc, (_, found))| Some((*doc, *samples.get(doc)?, found))),
        config.shingle_words,
        &pinned,
    ))
}
