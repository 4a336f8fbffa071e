//! The read stage: reading and fingerprinting a document as a DataFusion
//! scalar function, `doppel_read(entry, job)`, over the listing's table
//! of documents: each one's path (raw bytes, a document's id from its
//! path, never from its place or arrival) and its entry as listed (its
//! identity, a book folder's pages), so no executor walks the folder and
//! each reads a document only if it is still the one listed. `job` is the
//! scan's [`Job`] (folder, settings), a literal the plan carries to
//! wherever it runs; each process makes its [`Reader`] of a job once.
//! Each call reads its batch as a one-shot scan
//! reads a chunk (`doppel_index::reading::read_all`: the small files on
//! the rayon pool, big ones one at a time) through
//! `doppel_index::scan::read_listed`, the same function `doppel scan`
//! calls, and answers a struct per document: its prints in the spill's
//! record form, what the scan keeps of it, or why it was skipped.
//! Once the client has learned the boilerplate, `doppel_body(entry, job)`
//! makes the bodies of the documents that have some the same way, each
//! entry carrying its learned spans (`doppel_index::scan::read_body`),
//! so the client reads no document itself.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, BinaryBuilder, StringBuilder};
use datafusion::arrow::array::{RecordBatch, StructArray};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use datafusion::common::{exec_err, DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use doppel_core::doc::{DocPath, FileIdentity};
use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::collection::{BookFolder, BookWhy, FileEntry, ListedRoot, Source};
use doppel_index::index::read_for_index;
use doppel_index::reading::{read_all, ReadLimits};
use doppel_index::scan::{read_body, read_listed, BodyWanted, Kept};
use doppel_index::spill;
use doppel_pairing::boilerplate::Span;
use doppel_pairing::library::LibraryConfig;

/// What a read function answers for each document, and its name in
/// plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A one-shot scan's reading, `doppel_read`: a struct of the prints,
    /// what the scan keeps, or why it was skipped ([`read_fields`]).
    Scan,
    /// An index's, `doppel_read_for_index`: postcard of the
    /// [`IndexRead`](doppel_index::index::IndexRead) the index commits.
    Index,
    /// A one-shot scan's bodies, once its boilerplate is learned,
    /// `doppel_body` over [`body_entry`]s: a struct of the body's prints
    /// and where its boilerplate is, both null when it has no body
    /// ([`body_fields`]).
    Body,
}

impl Kind {
    /// Every one, as a process that runs plans registers them.
    pub const ALL: [Kind; 3] = [Kind::Scan, Kind::Index, Kind::Body];

    /// The function's name in plans.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Scan => "doppel_read",
            Kind::Index => "doppel_read_for_index",
            Kind::Body => "doppel_body",
        }
    }

    fn return_type(self) -> DataType {
        match self {
            Kind::Scan => DataType::Struct(read_fields()),
            Kind::Index => DataType::Binary,
            Kind::Body => DataType::Struct(body_fields()),
        }
    }
}

/// The jobs whose readers (an engine each) a process keeps.
const JOBS_KEPT: usize = 4;

/// The listing's table: each document's path as raw bytes, and its entry
/// as the read function takes it ([`listed_entry`], [`body_entry`]).
pub fn listing_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("path", DataType::Binary, false),
        Field::new("entry", DataType::Binary, false),
    ]))
}

/// A document as a plan's table carries it: its path and its entry,
/// encoded once (a cluster's jobs are cut by the bytes they carry).
#[derive(Debug)]
pub struct Row<'f> {
    /// The document.
    pub doc: &'f DocPath,
    /// Its bytes as listed (batches are cut by them).
    pub bytes: u64,
    /// Its entry ([`listed_entry`], [`body_entry`]).
    pub entry: Vec<u8>,
}

impl<'f> Row<'f> {
    /// `file` as the read functions take it ([`listed_entry`]).
    pub fn listed(file: &'f FileEntry) -> Self {
        Self {
            doc: &file.doc,
            bytes: file.bytes,
            entry: listed_entry(file),
        }
    }

    /// The body `wanted` asks for, as `doppel_body` takes it
    /// ([`body_entry`]).
    pub fn body(wanted: &BodyWanted<'f>) -> Self {
        Self {
            doc: &wanted.file.doc,
            bytes: wanted.file.bytes,
            entry: body_entry(wanted),
        }
    }
}

/// `rows` as a batch of that table.
pub fn listing_batch(rows: &[&Row<'_>]) -> Result<RecordBatch> {
    let paths = BinaryArray::from_iter_values(rows.iter().map(|r| r.doc.as_bytes()));
    let entries = BinaryArray::from_iter_values(rows.iter().map(|r| &r.entry));
    Ok(RecordBatch::try_new(
        listing_schema(),
        vec![Arc::new(paths), Arc::new(entries)],
    )?)
}

/// A listed document as the plan carries it: its path, its identity when
/// listed, and a book folder's pages (their paths and identities).
#[derive(serde::Serialize, serde::Deserialize)]
struct Listed {
    doc: Vec<u8>,
    identity: FileIdentity,
    book: Option<(BookWhy, Vec<ListedPage>)>,
}

/// A book's page as the plan carries it: its path and identity.
type ListedPage = (Vec<u8>, FileIdentity);

impl Listed {
    /// `file` as listed.
    fn of(file: &FileEntry) -> Self {
        let book = file.book.as_ref().map(|book| {
            let pages = book.pages.iter();
            let pages = pages.map(|p| (p.doc.as_bytes().to_vec(), p.identity));
            (book.why, pages.collect())
        });
        Self {
            doc: file.doc.as_bytes().to_vec(),
            identity: file.identity,
            book,
        }
    }
}

/// A body as `doppel_body` is asked for it: the file as listed, its
/// analysis's words and the boilerplate spans to leave out.
#[derive(serde::Serialize, serde::Deserialize)]
struct WantedBody {
    listed: Listed,
    words: u32,
    spans: Vec<Span>,
}

/// `file`'s entry as the plan carries it (postcard of its path, identity
/// and pages).
pub fn listed_entry(file: &FileEntry) -> Vec<u8> {
    postcard::to_allocvec(&Listed::of(file)).expect("a listed entry is plain data")
}

/// The entry of the body `wanted` asks for (postcard of the file as
/// listed, its words and the learned spans: the boilerplate model, as
/// much of it as the document needs).
pub fn body_entry(wanted: &BodyWanted<'_>) -> Vec<u8> {
    let body = WantedBody {
        listed: Listed::of(wanted.file),
        words: wanted.words,
        spans: wanted.spans.to_vec(),
    };
    postcard::to_allocvec(&body).expect("a wanted body is plain data")
}

/// The entry `bytes` carry ([`listed_entry`]), beneath `root`; why not
/// when they do not decode, or name a path that is not beneath it (a
/// client's plan does not make an executor read elsewhere).
fn entry_beneath(root: &Path, bytes: &[u8]) -> std::result::Result<FileEntry, String> {
    let listed: Listed =
        postcard::from_bytes(bytes).map_err(|e| format!("a malformed listing entry: {e}"))?;
    listed_beneath(root, listed)
}

/// A body as an executor is asked for it: the file, its analysis's words
/// and the spans to leave out.
type AskedBody = (FileEntry, u32, Vec<Span>);

/// The body `bytes` ask for ([`body_entry`]): the file beneath `root`
/// (as [`entry_beneath`]), its words and spans.
fn body_beneath(root: &Path, bytes: &[u8]) -> std::result::Result<AskedBody, String> {
    let wanted: WantedBody =
        postcard::from_bytes(bytes).map_err(|e| format!("a malformed body entry: {e}"))?;
    let file = listed_beneath(root, wanted.listed)?;
    Ok((file, wanted.words, wanted.spans))
}

/// The file `listed` names beneath `root`, or why not.
fn listed_beneath(root: &Path, listed: Listed) -> std::result::Result<FileEntry, String> {
    let file = |doc: Vec<u8>, identity| {
        let doc = DocPath::from_bytes(doc);
        let relative = doc
            .to_contained_path()
            .ok_or_else(|| "not beneath the folder scanned".to_owned())?;
        Ok(FileEntry::file(root.join(relative), doc, identity))
    };
    let mut entry = file(listed.doc, listed.identity)?;
    if let Some((why, pages)) = listed.book {
        let pages = pages.into_iter().map(|(doc, identity)| file(doc, identity));
        let pages = pages.collect::<std::result::Result<_, String>>()?;
        entry.book = Some(Arc::new(BookFolder { why, pages }));
    }
    Ok(entry)
}

/// The struct each document is read to: `prints` (the spill's record of
/// its fingerprints) and `kept` (postcard of [`Kept`]) when it was read,
/// else `skipped` (why, in the words reports print).
pub fn read_fields() -> Fields {
    Fields::from(vec![
        Field::new("prints", DataType::Binary, true),
        Field::new("kept", DataType::Binary, true),
        Field::new("skipped", DataType::Utf8, true),
    ])
}

/// The struct each body is made to: `prints` (the spill's record of the
/// body's fingerprints) and `made` (postcard of its distinct shingles and
/// its `DocBoilerplate`), both null when it has no body (its whole
/// prints stand).
pub fn body_fields() -> Fields {
    Fields::from(vec![
        Field::new("prints", DataType::Binary, true),
        Field::new("made", DataType::Binary, true),
    ])
}

/// What a scan's reading needs wherever it runs: the folder (as every
/// process running the plan sees it: a shared file system's path) and
/// the settings the scan runs with.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// The folder scanned.
    pub root: PathBuf,
    /// How documents are fingerprinted (with the engine's reference term
    /// weights).
    pub engine: EngineConfig,
    /// The library's settings (what is sampled for the learner).
    pub library: LibraryConfig,
    /// How big files are read.
    pub limits: ReadLimits,
    /// Whether an index's reading samples documents for the boilerplate
    /// learner (a scan's samples as `library` says).
    pub learning: bool,
}

impl Job {
    /// The job as the plan carries it.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a job is plain data")
    }

    /// The literal `doppel_read`'s second argument is.
    pub fn literal(&self) -> ScalarValue {
        ScalarValue::Binary(Some(self.to_bytes()))
    }
}

/// What reading needs, shared by every call: the engine and settings of
/// the scan, and its folder held open.
pub struct Reader {
    engine: Arc<Engine>,
    config: LibraryConfig,
    limits: ReadLimits,
    listed: ListedRoot,
    learning: bool,
}

impl Reader {
    /// The reader of `job` in a process that has no engine for it yet
    /// (an executor).
    pub fn of_job(job: &Job) -> Self {
        Self::new(Arc::new(Engine::new(job.engine.clone())), job)
    }

    /// Reading `job`'s documents with `engine` (made of its settings; its
    /// reference term weights).
    pub fn new(engine: Arc<Engine>, job: &Job) -> Self {
        Self {
            engine,
            config: job.library.clone(),
            limits: job.limits,
            listed: ListedRoot::new(&job.root),
            learning: job.learning,
        }
    }

    /// One document read (`Ok`: its prints' record and its [`Kept`],
    /// encoded) or why not.
    fn read(
        &self,
        file: std::result::Result<FileEntry, String>,
    ) -> Result<std::result::Result<Read, String>> {
        let file = match file {
            Ok(file) => file,
            Err(why) => return Ok(Err(why)),
        };
        let engine = &self.engine;
        let weights = engine.reference_weights();
        match read_listed(
            &self.listed,
            &file,
            engine,
            weights,
            &self.config,
            &self.limits,
        ) {
            Ok(read) => {
                let prints = spill::encode(&read.printed.fingerprints)
                    .map_err(|e| DataFusionError::External(Box::new(e)))?;
                let kept = postcard::to_allocvec(&Kept::of(read))
                    .map_err(|e| DataFusionError::External(Box::new(e)))?;
                Ok(Ok(Read { prints, with: kept }))
            }
            Err(skip) => Ok(Err(skip.to_string())),
        }
    }

    /// `file` read for an index, encoded.
    fn read_for_index(&self, file: &FileEntry) -> Result<Vec<u8>> {
        let learning = self.learning.then_some(&self.config);
        let read = read_for_index(&self.engine, &self.listed, &self.limits, learning, file);
        postcard::to_allocvec(&read).map_err(|e| DataFusionError::External(Box::new(e)))
    }

    /// The body of `file` without `spans` (`words`: its whole analysis's),
    /// made by `doppel_index::scan::read_body`, encoded; `None`: no body.
    fn body(&self, file: &FileEntry, words: u32, spans: &[Span]) -> Result<Option<Read>> {
        let source = Source::Listed(&self.listed, file);
        let Some((body, count, found)) =
            read_body(&self.engine, source, &self.limits, words, spans)
        else {
            return Ok(None);
        };
        let prints = spill::encode(&body).map_err(|e| DataFusionError::External(Box::new(e)))?;
        let made = postcard::to_allocvec(&(count, found))
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        Ok(Some(Read { prints, with: made }))
    }

    /// The bodies' column of `wanted` ([`body_fields`]). An entry that
    /// does not decode, or names a path outside the folder, fails the
    /// batch (the client then makes those bodies itself).
    fn body_column(&self, wanted: Vec<std::result::Result<AskedBody, String>>) -> Result<ArrayRef> {
        let made = read_all(
            every_one(wanted)?,
            |(file, _, _)| file.bytes,
            &self.limits,
            |(file, words, spans)| self.body(&file, words, &spans),
        );
        let (mut prints, mut found) = (BinaryBuilder::new(), BinaryBuilder::new());
        for body in made {
            match body? {
                Some(body) => {
                    prints.append_value(&body.prints);
                    found.append_value(&body.with);
                }
                None => {
                    prints.append_null();
                    found.append_null();
                }
            }
        }
        let columns: Vec<ArrayRef> = vec![Arc::new(prints.finish()), Arc::new(found.finish())];
        Ok(Arc::new(StructArray::try_new(
            body_fields(),
            columns,
            None,
        )?))
    }

    /// The scan's columns of `files` ([`read_fields`]).
    fn scan_columns(&self, files: Vec<std::result::Result<FileEntry, String>>) -> Result<ArrayRef> {
        let results = read_all(
            files,
            |file| file.as_ref().map_or(0, |f| f.bytes),
            &self.limits,
            |file| self.read(file),
        );
        let (mut prints, mut kept) = (BinaryBuilder::new(), BinaryBuilder::new());
        let mut skipped = StringBuilder::new();
        for result in results {
            match result? {
                Ok(read) => {
                    prints.append_value(&read.prints);
                    kept.append_value(&read.with);
                    skipped.append_null();
                }
                Err(why) => {
                    prints.append_null();
                    kept.append_null();
                    skipped.append_value(why);
                }
            }
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(prints.finish()),
            Arc::new(kept.finish()),
            Arc::new(skipped.finish()),
        ];
        Ok(Arc::new(StructArray::try_new(
            read_fields(),
            columns,
            None,
        )?))
    }

    /// The index's column of `files`: an [`IndexRead`](doppel_index::index::IndexRead) each. An entry
    /// that does not decode, or names a path outside the folder, fails
    /// the batch: an index records every listed document or none.
    fn index_column(&self, files: Vec<std::result::Result<FileEntry, String>>) -> Result<ArrayRef> {
        let reads = read_all(
            every_one(files)?,
            |file| file.bytes,
            &self.limits,
            |file| self.read_for_index(&file),
        );
        let mut column = BinaryBuilder::new();
        for read in reads {
            column.append_value(read?);
        }
        Ok(Arc::new(column.finish()))
    }
}

/// Every one of `decoded`, or the batch fails with the first reason one
/// was not.
fn every_one<T>(decoded: Vec<std::result::Result<T, String>>) -> Result<Vec<T>> {
    decoded
        .into_iter()
        .collect::<std::result::Result<Vec<_>, String>>()
        .or_else(|why| exec_err!("{why}"))
}

/// Each of `entries` decoded, or why not.
fn decoded<T>(
    entries: &BinaryArray,
    decode: impl Fn(&[u8]) -> std::result::Result<T, String>,
) -> Vec<std::result::Result<T, String>> {
    (0..entries.len())
        .map(|row| match entries.is_valid(row) {
            true => decode(entries.value(row)),
            false => Err("not in the listing".to_owned()),
        })
        .collect()
}

/// A document read (or its body made), encoded to travel.
struct Read {
    /// The spill's record of its prints.
    prints: Vec<u8>,
    /// Postcard of what goes with them: the scan's `Kept`, or a body's
    /// distinct shingles and boilerplate.
    with: Vec<u8>,
}

/// Which folders a process's `doppel_read` may read when a job names one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readable {
    /// Any: a process that reads the folder it listed itself (`--local`),
    /// or one that only plans.
    Any,
    /// These folders and what is beneath them, as canonical paths (an
    /// executor's `--allow`): a client cannot make it read elsewhere.
    Beneath(Vec<PathBuf>),
}

impl Readable {
    /// Whether a job may read `root` (its canonical path: a link out of
    /// the allowed folders is outside them).
    pub fn permits(&self, root: &Path) -> bool {
        match self {
            Self::Any => true,
            Self::Beneath(allowed) => std::fs::canonicalize(root)
                .is_ok_and(|root| allowed.iter().any(|dir| root.starts_with(dir))),
        }
    }
}

/// `doppel_read(entry, job)` (or `doppel_read_for_index`, by [`Kind`])
/// as DataFusion calls it: the same function in the process that plans
/// (registered by name) and in every one that runs the plan, each
/// keeping the readers of the jobs it met.
pub struct ReadFunction {
    kind: Kind,
    readers: Mutex<HashMap<Vec<u8>, Arc<Reader>>>,
    readable: Readable,
    signature: Signature,
}

impl ReadFunction {
    /// The function of `kind` reading only the folders `readable`
    /// permits.
    pub fn reading(kind: Kind, readable: Readable) -> Self {
        Self {
            kind,
            readers: Mutex::new(HashMap::new()),
            readable,
            signature: Signature::exact(
                vec![DataType::Binary, DataType::Binary],
                Volatility::Volatile,
            ),
        }
    }

    /// The function of `kind`, reading `job` with `reader` (of the engine
    /// this process already has) rather than making one.
    pub fn with_reader(kind: Kind, job: &Job, reader: Reader) -> Self {
        let function = Self::reading(kind, Readable::Any);
        function.lock().insert(job.to_bytes(), Arc::new(reader));
        function
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<u8>, Arc<Reader>>> {
        // A reader is whole once inserted: a panic elsewhere left it so.
        self.readers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The reader of the job encoded as `job`, made on first use.
    fn reader(&self, job: &[u8]) -> Result<Arc<Reader>> {
        if let Some(reader) = self.lock().get(job) {
            return Ok(Arc::clone(reader));
        }
        let decoded: Job =
            serde_json::from_slice(job).map_err(|e| DataFusionError::External(Box::new(e)))?;
        if !self.readable.permits(&decoded.root) {
            return exec_err!(
                "this executor does not read the folder the scan names \
                 (it reads only beneath its --allow folders)"
            );
        }
        // Made outside the lock; two partitions meeting a new job at once
        // make two, and keep one.
        let reader = Arc::new(Reader::of_job(&decoded));
        let mut readers = self.lock();
        // An executor serves job after job: the readers of old ones go.
        if readers.len() >= JOBS_KEPT && !readers.contains_key(job) {
            readers.clear();
        }
        Ok(Arc::clone(readers.entry(job.to_vec()).or_insert(reader)))
    }
}

impl std::fmt::Debug for ReadFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadFunction")
            .field("kind", &self.kind)
            .field("jobs", &self.lock().len())
            .finish()
    }
}

// DataFusion compares functions to dedupe expressions: every instance
// of a kind computes the same function of its arguments.
impl PartialEq for ReadFunction {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

impl Eq for ReadFunction {}

impl Hash for ReadFunction {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.kind.name().hash(state);
    }
}

impl ScalarUDFImpl for ReadFunction {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.kind.return_type())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [ColumnarValue::Array(entries), ColumnarValue::Scalar(ScalarValue::Binary(Some(job)))] =
            args.args.as_slice()
        else {
            return exec_err!(
                "{} reads a column of listed entries and its job",
                self.name()
            );
        };
        let Some(entries) = entries.as_any().downcast_ref::<BinaryArray>() else {
            return exec_err!("{} reads binary entries", self.name());
        };
        let reader = self.reader(job)?;
        let root = reader.listed.path();
        // An executor's log says what it reads (DOPPEL_LOG=doppel_cluster=info).
        Ok(ColumnarValue::Array(match self.kind {
            Kind::Scan => {
                tracing::info!(documents = entries.len(), "reading a batch");
                reader.scan_columns(decoded(entries, |b| entry_beneath(root, b)))?
            }
            Kind::Index => {
                tracing::info!(documents = entries.len(), "reading a batch");
                reader.index_column(decoded(entries, |b| entry_beneath(root, b)))?
            }
            Kind::Body => {
                tracing::info!(documents = entries.len(), "making the bodies of a batch");
                reader.body_column(decoded(entries, |b| body_beneath(root, b)))?
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(size: u64) -> FileIdentity {
        FileIdentity {
            size,
            inode: size + 1,
            ..FileIdentity::default()
        }
    }

    fn listed(doc: &[u8], book: Option<(BookWhy, Vec<ListedPage>)>) -> Vec<u8> {
        let listed = Listed {
            doc: doc.to_vec(),
            identity: identity(7),
            book,
        };
        postcard::to_allocvec(&listed).unwrap()
    }

    #[test]
    fn a_book_travels_with_its_pages_beneath_the_readers_folder() {
        let pages = vec![
            (b"emma/0001.xml".to_vec(), identity(3)),
            (b"emma/0002.xml".to_vec(), identity(4)),
        ];
        let root = Path::new("/library");
        let entry = entry_beneath(root, &listed(b"emma", Some((BookWhy::Mets, pages)))).unwrap();
        assert_eq!(entry.path, root.join("emma"));
        assert_eq!((entry.bytes, entry.identity), (7, identity(7)));
        let book = entry.book.as_deref().unwrap();
        assert_eq!(book.why, BookWhy::Mets);
        let pages: Vec<_> = book.pages.iter().map(|p| (&p.path, p.identity)).collect();
        assert_eq!(
            pages,
            [
                (&root.join("emma/0001.xml"), identity(3)),
                (&root.join("emma/0002.xml"), identity(4)),
            ]
        );
        // What a client lists is what an executor reads.
        let again = entry_beneath(root, &listed_entry(&entry)).unwrap();
        assert_eq!(again.path, entry.path);
        assert_eq!(again.book.unwrap().pages.len(), 2);
    }

    #[test]
    fn a_plan_naming_a_path_outside_the_folder_reads_nothing() {
        let root = Path::new("/library");
        for doc in [&b"../etc/passwd"[..], b"/etc/passwd", b"", b"a/../../b"] {
            let why = entry_beneath(root, &listed(doc, None)).unwrap_err();
            assert_eq!(why, "not beneath the folder scanned", "{doc:?}");
        }
        let page_outside = Some((BookWhy::Marker, vec![(b"../x/1.txt".to_vec(), identity(1))]));
        assert!(entry_beneath(root, &listed(b"book", page_outside)).is_err());
        assert!(entry_beneath(root, b"\xff\xff\xff").is_err(), "malformed");
    }

    #[test]
    fn a_body_travels_with_its_spans_and_only_beneath_the_readers_folder() {
        let root = Path::new("/library");
        let spans = [
            Span { start: 0, end: 40 },
            Span {
                start: 870,
                end: 900,
            },
        ];
        let file = |doc: &[u8]| {
            let doc = DocPath::from_bytes(doc.to_vec());
            FileEntry::file(PathBuf::from("/client/sees/it/here"), doc, identity(9))
        };
        let emma = file(b"austen/emma.txt");
        let wanted = BodyWanted {
            file: &emma,
            words: 900,
            spans: &spans,
        };
        let (entry, words, got) = body_beneath(root, &body_entry(&wanted)).unwrap();
        assert_eq!(
            entry.path,
            root.join("austen/emma.txt"),
            "beneath the reader's folder"
        );
        assert_eq!(
            (entry.identity, words, got),
            (identity(9), 900, spans.to_vec())
        );
        let outside = file(b"../etc/passwd");
        let wanted = BodyWanted {
            file: &outside,
            ..wanted
        };
        let why = body_beneath(root, &body_entry(&wanted)).unwrap_err();
        assert_eq!(why, "not beneath the folder scanned");
        assert!(body_beneath(root, b"\xff\xff\xff").is_err(), "malformed");
    }
}
