//! The scan's plans, run in this process on DataFusion (`doppel cluster
//! scan --local`) or on a Ballista scheduler's executors (`--scheduler`:
//! the listing sent with the plan, as several jobs when it is large);
//! either way the listing is dealt in batches to the partitions, the read
//! stage mapped over it, and what comes back gathered in the listing's
//! order into `doppel_index::scan`'s own finish, here.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::array::{Array, BinaryArray, StringArray, StructArray};
use datafusion::catalog::MemTable;
use datafusion::logical_expr::{col, lit, ScalarUDF};
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use futures::StreamExt;

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_index::collection::{FileEntry, ListedRoot, Listing, Skip};
use doppel_index::index::ReadProgress;
use doppel_index::reading::next_chunk;
use doppel_index::scan::{Gathering, Kept, ScanHooks, ScanReport};
use doppel_index::spill::SpilledPrints;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

use crate::read_stage::{self, Job, ReadFunction, Reader};
use crate::{ClusterError, PlanOptions};

/// A document as the plan answered it: read (what the scan keeps of it)
/// or skipped.
type Outcome = Result<Kept, Skip>;

/// Where a scan's plans run.
#[derive(Debug, Clone, Copy)]
pub enum Runner<'a> {
    /// In this process, on DataFusion.
    Local,
    /// On the executors of the Ballista scheduler at this `host:port`
    /// (they must see the folder at the same path).
    Scheduler(&'a str),
}

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
    };
    // Only a local plan reads with this process's engine.
    let reader = || {
        Reader::new(
            Arc::clone(&engine),
            config.clone(),
            hooks.limits,
            ListedRoot::new(root),
        )
    };
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

/// Times a cluster's plan is run again for what it did not answer (an
/// executor lost with results the scheduler had already counted as done)
/// before the scan gives up. A local plan that fails is not run again:
/// nothing was lost, so it would fail the same way.
const CLUSTER_RERUNS: usize = 2;

/// Every listed file read by the plan: its prints put in `spill` as they
/// come back, what the scan keeps of it (or why it was skipped) by
/// document. Locally `reader` makes the reader (this process's engine);
/// executors make their own of `job`. On a cluster, a plan that fails
/// after some documents came back is run again for the others only, so
/// each document is put in `spill` once.
fn read_in_plan(
    reader: impl FnOnce() -> Reader,
    job: &Job,
    files: &[FileEntry],
    plan: PlanOptions,
    runner: Runner<'_>,
    hooks: &ScanHooks<'_>,
    spill: &SpilledPrints,
) -> Result<HashMap<DocPath, Outcome>, ClusterError> {
    let partitions = plan.partitions.max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(partitions.min(std::thread::available_parallelism().map_or(1, |n| n.get())))
        .enable_all()
        .thread_name("doppel-plan")
        .build()
        .map_err(ClusterError::Runtime)?;
    let mut answered = Answered {
        outcomes: HashMap::with_capacity(files.len()),
        total: files.len(),
        total_bytes: files.iter().map(|f| f.bytes).sum(),
        sizes: files.iter().map(|f| (&f.doc, f.bytes)).collect(),
        bytes: 0,
        hooks,
        spill,
    };
    runtime.block_on(async {
        let session = Session::start(runner, plan, job, reader).await?;
        for rerun in 0.. {
            let unanswered: Vec<&FileEntry> = files
                .iter()
                .filter(|f| !answered.outcomes.contains_key(&f.doc))
                .collect();
            if unanswered.is_empty() {
                break;
            }
            let mut failed = None;
            for part in session.jobs(&unanswered) {
                let listing = session.listing(part)?;
                let call = session.read.call(vec![col("entry"), lit(job.literal())]);
                let frame = listing.select(vec![col("path"), call.alias("read")])?;
                if let Err(error) = answered.take_all(frame).await {
                    failed = Some(error);
                    break;
                }
            }
            match failed {
                None => break,
                Some(failed) if rerun >= session.reruns() => return Err(failed),
                Some(failed) => tracing::warn!(
                    error = %failed,
                    "the plan failed; running it again for the documents it did not answer"
                ),
            }
        }
        Ok(answered.outcomes)
    })
}

/// Where a scan's plans run, started: a session in this process or on a
/// scheduler, and how each takes the listing.
struct Session {
    /// Where.
    place: Place,
    /// `doppel_read`, as this session calls it.
    read: ScalarUDF,
    /// How the plans are cut.
    plan: PlanOptions,
}

/// The two places plans run.
enum Place {
    /// This process: the listing is one job, a table of its memory.
    Local(SessionContext),
    /// A scheduler's executors: the listing goes with each job's plan, so
    /// a large one is cut into jobs that fit; a failed job is run again.
    Cluster(SessionContext),
}

impl Session {
    /// The session `runner` names; locally `doppel_read` reads `job` with
    /// the reader `reader` makes.
    async fn start(
        runner: Runner<'_>,
        plan: PlanOptions,
        job: &Job,
        reader: impl FnOnce() -> Reader,
    ) -> Result<Self, ClusterError> {
        let partitions = plan.partitions.max(1);
        let (place, read) = match runner {
            Runner::Local => {
                let config = SessionConfig::new()
                    .with_target_partitions(partitions)
                    .with_batch_size(plan.batch_files.max(1));
                let context = SessionContext::new_with_config(config);
                let read = ReadFunction::with_reader(job, reader());
                (Place::Local(context), read)
            }
            Runner::Scheduler(address) => {
                let context = crate::remote::context(address, partitions, plan.batch_files).await?;
                (Place::Cluster(context), ReadFunction::default())
            }
        };
        Ok(Self {
            place,
            read: ScalarUDF::from(read),
            plan,
        })
    }

    /// `files` as the listings of the jobs run in turn.
    fn jobs<'l, 'f>(&self, files: &'l [&'f FileEntry]) -> Vec<&'l [&'f FileEntry]> {
        match self.place {
            Place::Local(_) => vec![files],
            Place::Cluster(_) => jobs(files, self.plan.job_files),
        }
    }

    /// One job's `files` as the table its plan reads, dealt to the
    /// partitions.
    fn listing(&self, files: &[&FileEntry]) -> Result<DataFrame, ClusterError> {
        let dealt = deal(files, self.plan);
        match &self.place {
            Place::Local(context) => local_listing(context, dealt),
            Place::Cluster(context) => crate::remote::listing(context, dealt),
        }
    }

    /// Times a failed plan is run again for what it did not answer.
    fn reruns(&self) -> usize {
        match self.place {
            Place::Local(_) => 0,
            Place::Cluster(_) => CLUSTER_RERUNS,
        }
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

impl Answered<'_> {
    /// Run `frame` and take every document it answers.
    async fn take_all(&mut self, frame: DataFrame) -> Result<(), ClusterError> {
        let mut stream = frame.execute_stream().await?;
        while let Some(batch) = stream.next().await {
            for (doc, outcome) in outcomes_of(&batch?, self.spill)? {
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
        }
        Ok(())
    }
}

/// The listing bytes one job's plan carries at most: half the 16 MiB a
/// Ballista scheduler takes in one message, for the plan around them.
pub const JOB_LISTING_BYTES: usize = 8 << 20;

/// What a document costs in a plan besides its path and entry (the
/// literals around them).
const LISTED_COST: usize = 64;

/// `files` cut into the listings of jobs in turn: at most `most`
/// documents each, and at most [`JOB_LISTING_BYTES`] of plan (always one
/// document; its path and [`read_stage::listed_entry`]).
fn jobs<'l, 'f>(files: &'l [&'f FileEntry], most: usize) -> Vec<&'l [&'f FileEntry]> {
    let mut jobs = Vec::new();
    let mut rest = files;
    while !rest.is_empty() {
        let mut bytes = 0;
        let mut end = 0;
        while end < rest.len() && end < most.max(1) {
            let file = rest[end];
            bytes += file.doc.as_bytes().len() + read_stage::listed_entry(file).len() + LISTED_COST;
            if end > 0 && bytes > JOB_LISTING_BYTES {
                break;
            }
            end += 1;
        }
        let (job, after) = rest.split_at(end);
        jobs.push(job);
        rest = after;
    }
    jobs
}

/// The listing dealt to the partitions: cut in batches as a one-shot
/// scan cuts its chunks (at most `plan.batch_files` documents), the
/// batches dealt in turn, so each partition gets a like share of the
/// bytes.
fn deal<'f>(files: &[&'f FileEntry], plan: PlanOptions) -> Vec<Vec<Vec<&'f FileEntry>>> {
    let mut dealt = vec![Vec::new(); plan.partitions.max(1)];
    let mut rest = files.iter().copied().peekable();
    for at in 0.. {
        let batch = next_chunk(&mut rest, |f| f.bytes, plan.batch_files.max(1));
        if batch.is_empty() {
            break;
        }
        let partitions = dealt.len();
        dealt[at % partitions].push(batch);
    }
    dealt
}

/// The listing as a table of this process's memory, a partition per
/// share [`deal`] gave.
fn local_listing(
    context: &SessionContext,
    dealt: Vec<Vec<Vec<&FileEntry>>>,
) -> Result<DataFrame, ClusterError> {
    let dealt = dealt
        .into_iter()
        .map(|batches| {
            batches
                .iter()
                .map(|batch| read_stage::listing_batch(batch))
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let listing = MemTable::try_new(read_stage::listing_schema(), dealt)?;
    Ok(context.read_table(Arc::new(listing))?)
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

#[cfg(test)]
mod tests {
    use super::*;
    use doppel_index::collection::FileEntry;

    fn entry(name: Vec<u8>) -> FileEntry {
        let doc = DocPath::from_bytes(name);
        FileEntry::file(std::path::PathBuf::from("x"), doc, Default::default())
    }

    #[test]
    fn jobs_hold_at_most_their_documents_and_plan_bytes() {
        let small: Vec<FileEntry> = (0..10u8).map(|i| entry(vec![b'a' + i])).collect();
        let small: Vec<&FileEntry> = small.iter().collect();
        let sizes: Vec<usize> = jobs(&small, 4).iter().map(|j| j.len()).collect();
        assert_eq!(sizes, [4, 4, 2]);
        assert_eq!(jobs(&small, usize::MAX).len(), 1);

        // Paths of 5 MiB: two do not fit one plan, one always goes.
        let long: Vec<FileEntry> = (0..3u8).map(|i| entry(vec![b'a' + i; 5 << 20])).collect();
        let long: Vec<&FileEntry> = long.iter().collect();
        let sizes: Vec<usize> = jobs(&long, usize::MAX).iter().map(|j| j.len()).collect();
        assert_eq!(sizes, [1, 1, 1]);
    }
}
