//! The one-shot scan's plans: the listing read in a `Session` (here or
//! on a Ballista scheduler's executors) by `doppel_read`, and what comes
//! back gathered in the listing's order into `doppel_index::scan`'s own
//! finish, here.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::array::{Array, ArrayRef, BinaryArray, StringArray, StructArray};
use datafusion::logical_expr::ScalarUDF;

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_index::collection::{FileEntry, ListedRoot, Listing, Skip};
use doppel_index::index::ReadProgress;
use doppel_index::scan::{BodiesElsewhere, BodyWanted, Gathering, Kept, MadeBody};
use doppel_index::scan::{ScanHooks, ScanReport};
use doppel_index::spill::{SpillError, SpilledPrints};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

use crate::read_stage::{Job, Kind, Reader, Row};
pub use crate::session::Runner;
use crate::session::{plans_runtime, Answers, Session};
use crate::{ClusterError, PlanOptions};

/// A document as the plan answered it: read (what the scan keeps of it)
/// or skipped.
type Outcome = Result<Kept, Skip>;

/// Scan the documents of `listing` (a folder's walk: as
/// `doppel_index::scan::scan_folder_with` does; or a manifest's), with
/// `engine`'s reference term weights, reading in DataFusion plans cut as
/// `plan` says, run by `runner`: the same report. The bodies of the
/// documents with boilerplate are made in plans too, once it is learned.
pub fn scan_in_plans(
    listing: Listing,
    engine: Arc<Engine>,
    config: LibraryConfig,
    spec: ClusterSpec,
    hooks: &ScanHooks<'_>,
    plan: PlanOptions,
    runner: Runner<'_>,
) -> Result<ScanReport, ClusterError> {
    let spill = SpilledPrints::new()?;
    let Listing {
        root,
        files,
        problems,
    } = listing;
    let root = root.as_path();
    let job = Job {
        root: root.to_path_buf(),
        engine: engine.config().clone(),
        library: config.clone(),
        limits: hooks.limits,
        learning: false,
    };
    let runtime = plans_runtime(plan)?;
    let session = runtime.block_on(Session::start(runner, plan))?;
    let planned = Planned {
        runtime: &runtime,
        session: &session,
        job: &job,
        engine: &engine,
    };
    let mut read = planned.read(&files, hooks, &spill)?;
    // Each file is read again (its body, once the boilerplate is known)
    // only if it is still the one listed.
    let listed = ListedRoot::new(root);
    let mut gathering = Gathering::new(&listed, files.len() + problems.len());
    for file in &files {
        let outcome = read.remove(&file.doc).unwrap_or_else(|| {
            Err(Skip::Recorded {
                reason: "not read: no partition answered for it".to_owned(),
            })
        });
        gathering.add(file, outcome);
    }
    let hooks = ScanHooks {
        bodies: Some(&planned),
        ..*hooks
    };
    Ok(gathering.finish(problems, &engine, config, spec, &hooks, &spill)?)
}

/// A scan's plans: where they run and what they read with.
struct Planned<'a> {
    runtime: &'a tokio::runtime::Runtime,
    session: &'a Session,
    job: &'a Job,
    /// This process's engine (a local plan reads with it; executors make
    /// their own of the job).
    engine: &'a Arc<Engine>,
}

impl Planned<'_> {
    /// The function of `kind` as the session calls it.
    fn function(&self, kind: Kind) -> ScalarUDF {
        self.session.function(kind, self.job, || {
            Reader::new(Arc::clone(self.engine), self.job)
        })
    }

    /// Every listed file read by the plan: its prints put in `spill` as
    /// they come back, what the scan keeps of it (or why it was skipped)
    /// by document.
    fn read(
        &self,
        files: &[FileEntry],
        hooks: &ScanHooks<'_>,
        spill: &SpilledPrints,
    ) -> Result<HashMap<DocPath, Outcome>, ClusterError> {
        let mut answered = Answered {
            outcomes: HashMap::with_capacity(files.len()),
            total: files.len(),
            total_bytes: files.iter().map(|f| f.bytes).sum(),
            sizes: files.iter().map(|f| (&f.doc, f.bytes)).collect(),
            bytes: 0,
            hooks,
            spill,
        };
        let rows: Vec<Row<'_>> = files.iter().map(Row::listed).collect();
        let read = self.function(Kind::Scan);
        self.runtime
            .block_on(self.session.read_all(&rows, &read, self.job, &mut answered))?;
        Ok(answered.outcomes)
    }
}

impl BodiesElsewhere for Planned<'_> {
    /// The bodies made by `doppel_body` in the plans. When the plan
    /// fails, what came back is kept and the rest is made here (the
    /// report is the same either way).
    fn bodies<'w>(
        &self,
        wanted: &[BodyWanted<'w>],
        spill: &SpilledPrints,
    ) -> Result<HashMap<&'w DocPath, MadeBody>, SpillError> {
        let mut made = MadeBodies {
            docs: wanted.iter().map(|w| &w.file.doc).collect(),
            made: HashMap::with_capacity(wanted.len()),
            spill,
        };
        if wanted.is_empty() {
            return Ok(made.made);
        }
        let rows: Vec<Row<'w>> = wanted.iter().map(Row::body).collect();
        let body = self.function(Kind::Body);
        let done = self
            .runtime
            .block_on(self.session.read_all(&rows, &body, self.job, &mut made));
        match done {
            Ok(()) => {}
            Err(ClusterError::Spill(error)) => return Err(error),
            Err(error) => tracing::warn!(
                %error,
                made = made.made.len(),
                wanted = wanted.len(),
                "the bodies' plan failed: the rest are made here"
            ),
        }
        Ok(made.made)
    }
}

/// What the plans have answered so far, and the progress it makes.
struct Answered<'a> {
    /// Each document answered: read or skipped.
    outcomes: HashMap<DocPath, Outcome>,
    /// Documents listed.
    total: usize,
    /// Their bytes.
    total_bytes: u64,
    /// Each document's bytes.
    sizes: HashMap<&'a DocPath, u64>,
    /// Bytes of the documents answered.
    bytes: u64,
    /// Where progress is told.
    hooks: &'a ScanHooks<'a>,
    /// Where the prints go.
    spill: &'a SpilledPrints,
}

impl Answers for Answered<'_> {
    fn has(&self, doc: &DocPath) -> bool {
        self.outcomes.contains_key(doc)
    }

    fn take(&mut self, batch: &RecordBatch) -> Result<(), ClusterError> {
        for (doc, outcome) in outcomes_of(batch, self.spill)? {
            self.bytes += self.sizes.get(&doc).copied().unwrap_or(0);
            self.outcomes.insert(doc, outcome);
            if let Some(progress) = self.hooks.progress {
                progress(ReadProgress {
                    done: self.outcomes.len(),
                    total: self.total,
                    bytes: self.bytes,
                    total_bytes: self.total_bytes,
                });
            }
        }
        Ok(())
    }
}

/// The bodies the plans have made so far.
struct MadeBodies<'w, 's> {
    /// Each body wanted (a batch's paths are its own: the answer is kept
    /// under these).
    docs: HashSet<&'w DocPath>,
    /// Each body made, by document.
    made: HashMap<&'w DocPath, MadeBody>,
    /// Where the bodies' prints go.
    spill: &'s SpilledPrints,
}

impl Answers for MadeBodies<'_, '_> {
    fn has(&self, doc: &DocPath) -> bool {
        self.made.contains_key(doc)
    }

    fn take(&mut self, batch: &RecordBatch) -> Result<(), ClusterError> {
        let paths: &BinaryArray = downcast(batch.column_by_name("path"), "no path column")?;
        let body: &StructArray = downcast(batch.column_by_name("read"), "no body column")?;
        let binary = |name| downcast::<BinaryArray>(body.column_by_name(name), "a body half made");
        let (prints, found) = (binary("prints")?, binary("made")?);
        for row in 0..batch.num_rows() {
            let doc = DocPath::from_bytes(paths.value(row));
            let &wanted = self
                .docs
                .get(&doc)
                .ok_or(ClusterError::Malformed("a body nobody asked for"))?;
            if !(prints.is_valid(row) && found.is_valid(row)) {
                self.made.insert(wanted, None);
                continue;
            }
            let made =
                postcard::from_bytes(found.value(row)).map_err(|source| ClusterError::Decode {
                    doc: doc.clone(),
                    source,
                })?;
            self.spill.put_record(&doc, prints.value(row))?;
            self.made.insert(wanted, Some(made));
        }
        Ok(())
    }
}

/// `column` as an `A`; `what` is missing when it is not.
fn downcast<'b, A: Array + 'static>(
    column: Option<&'b ArrayRef>,
    what: &'static str,
) -> Result<&'b A, ClusterError> {
    column
        .and_then(|c| c.as_any().downcast_ref::<A>())
        .ok_or(ClusterError::Malformed(what))
}

/// The documents of one batch the plan answered, each read (its prints
/// put in `spill`) or skipped.
fn outcomes_of(
    batch: &RecordBatch,
    spill: &SpilledPrints,
) -> Result<Vec<(DocPath, Outcome)>, ClusterError> {
    let paths: &BinaryArray = downcast(batch.column_by_name("path"), "no path column")?;
    let read: &StructArray = downcast(batch.column_by_name("read"), "no read column")?;
    let binary = |name| downcast::<BinaryArray>(read.column_by_name(name), "a read half made");
    let (prints, kept) = (binary("prints")?, binary("kept")?);
    let skipped: &StringArray = downcast(read.column_by_name("skipped"), "a read half made")?;
    (0..batch.num_rows())
        .map(|row| {
            let doc = DocPath::from_bytes(paths.value(row));
            if skipped.is_valid(row) {
                let reason = skipped.value(row).to_owned();
                return Ok((doc, Err(Skip::Recorded { reason })));
            }
            if !(prints.is_valid(row) && kept.is_valid(row)) {
                return Err(ClusterError::Malformed("a read without its prints"));
            }
            spill.put_record(&doc, prints.value(row))?;
            let outcome = postcard::from_bytes::<Kept>(kept.value(row)).map_err(|source| {
                ClusterError::Decode {
                    doc: doc.clone(),
                    source,
                }
            })?;
            Ok((doc, Ok(outcome)))
        })
        .collect()
}
