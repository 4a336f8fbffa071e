//! The one-shot scan's plans: the listing read in a `Session` (here or
//! on a Ballista scheduler's executors) by `doppel_read`, and what comes
//! back gathered in the listing's order into `doppel_index::scan`'s own
//! finish, here.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::array::{Array, BinaryArray, StringArray, StructArray};

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_index::collection::{FileEntry, ListedRoot, Listing, Skip};
use doppel_index::index::ReadProgress;
use doppel_index::scan::{Gathering, Kept, ScanHooks, ScanReport};
use doppel_index::spill::SpilledPrints;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

use crate::read_stage::{Job, Kind, Reader};
pub use crate::session::Runner;
use crate::session::{plans_runtime, Answers, Session};
use crate::{ClusterError, PlanOptions};

/// A document as the plan answered it: read (what the scan keeps of it)
/// or skipped.
type Outcome = Result<Kept, Skip>;

/// Scan the documents of `listing` (a folder's walk: as
/// `doppel_index::scan::scan_folder_with` does; or a manifest's), with
/// `engine`'s reference term weights, reading in DataFusion plans cut as
/// `plan` says, run by `runner`: the same report.
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
    // Only a local plan reads with this process's engine.
    let reader = || Reader::new(Arc::clone(&engine), &job);
    let mut read = read_in_plan(reader, &job, &files, plan, runner, hooks, &spill)?;
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
    Ok(gathering.finish(problems, &engine, config, spec, hooks, &spill)?)
}

/// Every listed file read by the plan: its prints put in `spill` as they
/// come back, what the scan keeps of it (or why it was skipped) by
/// document. Locally `reader` makes the reader (this process's engine);
/// executors make their own of `job`.
fn read_in_plan(
    reader: impl FnOnce() -> Reader,
    job: &Job,
    files: &[FileEntry],
    plan: PlanOptions,
    runner: Runner<'_>,
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
    plans_runtime(plan)?.block_on(async {
        let session = Session::start(runner, plan).await?;
        let read = session.function(Kind::Scan, job, reader);
        session.read_all(files, &read, job, &mut answered).await
    })?;
    Ok(answered.outcomes)
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

/// The documents of one batch the plan answered, each read (its prints
/// put in `spill`) or skipped.
fn outcomes_of(
    batch: &RecordBatch,
    spill: &SpilledPrints,
) -> Result<Vec<(DocPath, Outcome)>, ClusterError> {
    let paths = batch
        .column_by_name("path")
        .and_then(|c| c.as_any().downcast_ref::<BinaryArray>())
        .ok_or(ClusterError::Malformed("no path column"))?;
    let read = batch
        .column_by_name("read")
        .and_then(|c| c.as_any().downcast_ref::<StructArray>())
        .ok_or(ClusterError::Malformed("no read column"))?;
    let binary = |name| {
        read.column_by_name(name)
            .and_then(|c| c.as_any().downcast_ref::<BinaryArray>())
            .ok_or(ClusterError::Malformed("a read without its prints"))
    };
    let (prints, kept) = (binary("prints")?, binary("kept")?);
    let skipped = read
        .column_by_name("skipped")
        .and_then(|c| c.as_any().downcast_ref::<StringArray>())
        .ok_or(ClusterError::Malformed("a read without its reason"))?;
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
