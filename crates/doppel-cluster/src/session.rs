//! Where plans run and how a listing is read in them: a `Session` in
//! this process on DataFusion, or on a Ballista scheduler's executors
//! (the listing sent with each job's plan, several jobs when it is
//! large); either way the listing is dealt in batches to the partitions,
//! a read function mapped over it, and what comes back handed to an
//! `Answers` (a scan's gathering, an index's chunk). On a cluster a
//! plan that fails is run again for what it did not answer, and a job
//! with no executor to run it is given up after the scan's wait.

use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::RecordBatch;
use datafusion::catalog::MemTable;
use datafusion::logical_expr::{col, lit, ScalarUDF};
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};
use futures::StreamExt;

use doppel_core::doc::DocPath;
use doppel_index::reading::next_chunk;

use crate::read_stage::{self, Job, Kind, ReadFunction, Readable, Reader, Row};
use crate::remote::{self, Executors};
use crate::{ClusterError, PlanOptions};

/// Where a scan's plans run.
#[derive(Debug, Clone, Copy)]
pub enum Runner<'a> {
    /// In this process, on DataFusion.
    Local,
    /// On the executors of a Ballista scheduler (they must see the
    /// folder at the same path).
    Scheduler {
        /// Its `host:port`.
        address: &'a str,
        /// How long a job may find no executor there before the scan
        /// gives up: a job queued on a scheduler without executors
        /// waits for one forever.
        wait: Duration,
    },
}

/// Times a cluster's plan is run again for what it did not answer (an
/// executor lost with results the scheduler had already counted as done)
/// before the reading gives up. A local plan that fails is not run
/// again: nothing was lost, so it would fail the same way.
const CLUSTER_RERUNS: usize = 2;

/// What a reading is given back, batch by batch: each batch has the
/// listing's `path` column and the read function's `read`.
pub(crate) trait Answers {
    /// Whether `doc` was answered already.
    fn has(&self, doc: &DocPath) -> bool;
    /// Take the documents one batch answers.
    fn take(&mut self, batch: &RecordBatch) -> Result<(), ClusterError>;
}

/// How often a running job looks whether its scheduler still has an
/// executor.
const EXECUTORS_LOOKED_AT: Duration = Duration::from_secs(1);

/// Where a scan's plans run, started, and how they are cut.
pub(crate) struct Session {
    place: Place,
    plan: PlanOptions,
}

/// The two places plans run.
enum Place {
    /// This process: the listing is one job, a table of its memory.
    Local(SessionContext),
    /// A scheduler's executors: the listing goes with each job's plan, so
    /// a large one is cut into jobs that fit; a failed job is run again.
    Cluster(Cluster),
}

/// A session on a scheduler, and how long its jobs wait for an executor.
struct Cluster {
    context: SessionContext,
    /// The scheduler's `host:port` (never said: it is the cluster's, not
    /// for logs).
    address: String,
    wait: Duration,
}

impl Cluster {
    /// Return once the scheduler has had no executor for `wait` on end,
    /// with the error that says so; never while it has one, or when it
    /// cannot say (a scheduler without `/readyz` waits as Ballista does).
    async fn without_executors(&self) -> ClusterError {
        let mut empty_since: Option<Instant> = None;
        loop {
            tokio::time::sleep(EXECUTORS_LOOKED_AT).await;
            if remote::executors(&self.address).await != Executors::None {
                empty_since = None;
                continue;
            }
            let since = *empty_since.get_or_insert_with(|| {
                tracing::warn!(
                    wait_secs = self.wait.as_secs(),
                    "no executor serves the scheduler: the job waits for one to join"
                );
                Instant::now()
            });
            if since.elapsed() >= self.wait {
                return ClusterError::NoExecutors {
                    waited_secs: self.wait.as_secs(),
                };
            }
        }
    }
}

impl Session {
    /// The session `runner` names, its plans cut as `plan` says.
    pub(crate) async fn start(runner: Runner<'_>, plan: PlanOptions) -> Result<Self, ClusterError> {
        let partitions = plan.partitions.max(1);
        let place = match runner {
            Runner::Local => {
                let config = SessionConfig::new()
                    .with_target_partitions(partitions)
                    .with_batch_size(plan.batch_files.max(1));
                Place::Local(SessionContext::new_with_config(config))
            }
            Runner::Scheduler { address, wait } => Place::Cluster(Cluster {
                context: remote::context(address, partitions, plan.batch_files).await?,
                address: address.to_owned(),
                wait,
            }),
        };
        Ok(Self { place, plan })
    }

    /// The read function of `kind` as this session calls it: locally,
    /// reading `job` with the reader `reader` makes (of this process's
    /// engine); on a cluster, each executor makes its own.
    pub(crate) fn function(
        &self,
        kind: Kind,
        job: &Job,
        reader: impl FnOnce() -> Reader,
    ) -> ScalarUDF {
        ScalarUDF::from(match self.place {
            Place::Local(_) => ReadFunction::with_reader(kind, job, reader()),
            Place::Cluster(_) => ReadFunction::reading(kind, Readable::Any),
        })
    }

    /// `function(entry, job)` over every one of `rows` (as jobs), each
    /// answered batch handed to `answers`. On a cluster, a plan that
    /// fails after some documents came back is run again for the others
    /// only, so each document is answered once.
    pub(crate) async fn read_all(
        &self,
        rows: &[Row<'_>],
        function: &ScalarUDF,
        job: &Job,
        answers: &mut impl Answers,
    ) -> Result<(), ClusterError> {
        for rerun in 0.. {
            let unanswered: Vec<&Row<'_>> = rows.iter().filter(|r| !answers.has(r.doc)).collect();
            if unanswered.is_empty() {
                break;
            }
            let mut failed = None;
            for part in self.jobs(&unanswered) {
                let listing = self.listing(part)?;
                let call = function.call(vec![col("entry"), lit(job.literal())]);
                let frame = listing.select(vec![col("path"), call.alias("read")])?;
                if let Err(error) = self.take_all(frame, answers).await {
                    failed = Some(error);
                    break;
                }
            }
            match failed {
                None => break,
                Some(failed @ ClusterError::NoExecutors { .. }) => return Err(failed),
                Some(failed) if rerun >= self.reruns() => return Err(failed),
                Some(failed) => tracing::warn!(
                    error = %failed,
                    "the plan failed; running it again for the documents it did not answer"
                ),
            }
        }
        Ok(())
    }

    /// Run `frame` and hand every batch it answers to `answers`; on a
    /// cluster, give the job up once the scheduler has had no executor
    /// for the wait (dropped, its stream cancels the job).
    async fn take_all(
        &self,
        frame: DataFrame,
        answers: &mut impl Answers,
    ) -> Result<(), ClusterError> {
        match &self.place {
            Place::Local(_) => take_all(frame, answers).await,
            Place::Cluster(cluster) => tokio::select! {
                taken = take_all(frame, answers) => taken,
                none = cluster.without_executors() => Err(none),
            },
        }
    }

    /// `rows` as the listings of the jobs run in turn.
    fn jobs<'l, 'r, 'f>(&self, rows: &'l [&'r Row<'f>]) -> Vec<&'l [&'r Row<'f>]> {
        match self.place {
            Place::Local(_) => vec![rows],
            Place::Cluster(_) => jobs(rows, self.plan.job_files),
        }
    }

    /// One job's `rows` as the table its plan reads, dealt to the
    /// partitions.
    fn listing(&self, rows: &[&Row<'_>]) -> Result<DataFrame, ClusterError> {
        let dealt = deal(rows, self.plan);
        match &self.place {
            Place::Local(context) => local_listing(context, dealt),
            Place::Cluster(cluster) => remote::listing(&cluster.context, dealt),
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

/// A tokio runtime for plans cut in `plan.partitions`.
pub(crate) fn plans_runtime(plan: PlanOptions) -> Result<tokio::runtime::Runtime, ClusterError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(plan.partitions.max(1).min(cores))
        .enable_all()
        .thread_name("doppel-plan")
        .build()
        .map_err(ClusterError::Runtime)
}

/// Run `frame` and hand every batch it answers to `answers`.
async fn take_all(frame: DataFrame, answers: &mut impl Answers) -> Result<(), ClusterError> {
    let mut stream = frame.execute_stream().await?;
    while let Some(batch) = stream.next().await {
        answers.take(&batch?)?;
    }
    Ok(())
}

/// The listing bytes one job's plan carries at most: half the 16 MiB a
/// Ballista scheduler takes in one message, for the plan around them.
pub const JOB_LISTING_BYTES: usize = 8 << 20;

/// What a document costs in a plan besides its path and entry (the
/// literals around them).
const LISTED_COST: usize = 64;

/// `rows` cut into the listings of jobs in turn: at most `most`
/// documents each, and at most [`JOB_LISTING_BYTES`] of plan (always one
/// document; its path and entry).
fn jobs<'l, 'r, 'f>(rows: &'l [&'r Row<'f>], most: usize) -> Vec<&'l [&'r Row<'f>]> {
    let mut jobs = Vec::new();
    let mut rest = rows;
    while !rest.is_empty() {
        let mut bytes = 0;
        let mut end = 0;
        while end < rest.len() && end < most.max(1) {
            let row = rest[end];
            bytes += row.doc.as_bytes().len() + row.entry.len() + LISTED_COST;
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
/// bytes. A listing of fewer than a batch for every partition (an index's
/// chunk, a small folder) is cut in one batch per partition: a batch is
/// one task, read on one executor, and a chunk read as one batch kept
/// every other executor idle.
fn deal<'r, 'f>(rows: &[&'r Row<'f>], plan: PlanOptions) -> Vec<Vec<Vec<&'r Row<'f>>>> {
    let partitions = plan.partitions.max(1);
    let mut dealt = vec![Vec::new(); partitions];
    let most = plan.batch_files.min(rows.len().div_ceil(partitions)).max(1);
    let mut rest = rows.iter().copied().peekable();
    for at in 0.. {
        let batch = next_chunk(&mut rest, |r| r.bytes, most);
        if batch.is_empty() {
            break;
        }
        dealt[at % partitions].push(batch);
    }
    dealt
}

/// The listing as a table of this process's memory, a partition per
/// share [`deal`] gave.
fn local_listing(
    context: &SessionContext,
    dealt: Vec<Vec<Vec<&Row<'_>>>>,
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
        let small: Vec<Row<'_>> = small.iter().map(Row::listed).collect();
        let small: Vec<&Row<'_>> = small.iter().collect();
        let sizes: Vec<usize> = jobs(&small, 4).iter().map(|j| j.len()).collect();
        assert_eq!(sizes, [4, 4, 2]);
        assert_eq!(jobs(&small, usize::MAX).len(), 1);

        // Paths of 5 MiB: two do not fit one plan, one always goes.
        let long: Vec<FileEntry> = (0..3u8).map(|i| entry(vec![b'a' + i; 5 << 20])).collect();
        let long: Vec<Row<'_>> = long.iter().map(Row::listed).collect();
        let long: Vec<&Row<'_>> = long.iter().collect();
        let sizes: Vec<usize> = jobs(&long, usize::MAX).iter().map(|j| j.len()).collect();
        assert_eq!(sizes, [1, 1, 1]);
    }

    /// A listing smaller than a batch per partition gives every partition
    /// (every task, so every executor) a share; a larger one is cut in
    /// batches of `batch_files`, dealt in turn.
    #[test]
    fn every_partition_gets_a_share_of_a_small_listing() {
        let entries: Vec<FileEntry> = (0..100u8).map(|i| entry(vec![b'a', i])).collect();
        let rows: Vec<Row<'_>> = entries.iter().map(Row::listed).collect();
        let rows: Vec<&Row<'_>> = rows.iter().collect();
        let shares = |listed: &[&Row<'_>], partitions, batch_files| -> Vec<Vec<usize>> {
            let plan = PlanOptions {
                partitions,
                batch_files,
                job_files: usize::MAX,
            };
            let dealt = deal(listed, plan);
            dealt
                .iter()
                .map(|share| share.iter().map(Vec::len).collect())
                .collect()
        };
        assert_eq!(
            shares(&rows[..10], 4, 1024),
            [vec![3], vec![3], vec![3], vec![1]]
        );
        assert_eq!(
            shares(&rows[..1], 4, 1024),
            [vec![1], vec![], vec![], vec![]]
        );
        assert_eq!(shares(&rows, 2, 30), [vec![30, 30], vec![30, 10]]);
    }
}
