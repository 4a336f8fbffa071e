//! doppel's one-shot scan run as Apache DataFusion plans, for a library
//! that outgrows one process's reading: the folder's listing becomes a
//! partitioned table of document paths, and reading and fingerprinting
//! each document is a DataFusion scalar function over it
//! ([`read_stage`]), run on as many partitions as asked. What follows
//! (the boilerplate learned at once, pairing, verification, clusters) is
//! `doppel_index::scan`'s own [`doppel_index::scan::Gathering`], fed in
//! the listing's order whatever order the partitions finish in; so the
//! report equals `doppel scan --no-index`'s byte for byte, on any number
//! of partitions and any batch size (tests/equal_to_one_machine.rs; the
//! binary's tests/cluster_scan.rs on a real scheduler).
//! There is one implementation of every algorithm: the plans call the
//! engine's code.
//!
//! [`scan::scan_in_plans`] runs the plans in this process or on the
//! executors of an Apache DataFusion Ballista scheduler ([`remote`]; the
//! scheduler and executor processes are [`serve`]'s, `doppel cluster
//! scheduler` and `doppel cluster executor`); [`parquet_out`] writes the
//! result (documents, pairs with every score, clusters) as Parquet. The engine crates below never see DataFusion or tokio; this
//! crate sits beside the report, under the binary's `cluster` feature.

pub mod index_reading;
pub mod parquet_out;
pub mod plain;
pub mod read_stage;
pub mod remote;
pub mod scan;
pub mod serve;
pub mod session;

use doppel_core::doc::DocPath;
use doppel_index::spill::SpillError;

pub use plain::plain;

/// How a plan is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    /// Partitions the listing is dealt to (DataFusion's target
    /// partitions): how many batches are read at once.
    pub partitions: usize,
    /// Documents in one batch of the listing at most (also at most
    /// `doppel_index::reading::CHUNK_BYTES` of them, but always one).
    pub batch_files: usize,
    /// Documents in one job on a cluster at most. A job's plan carries
    /// its part of the listing, so a scan of more than fit in one
    /// (see [`session::JOB_LISTING_BYTES`]) runs as several jobs in turn.
    /// A local plan is one job.
    pub job_files: usize,
}

impl Default for PlanOptions {
    /// A partition per core, batches as a one-shot scan's chunks, jobs as
    /// large as the scheduler takes.
    fn default() -> Self {
        Self {
            partitions: std::thread::available_parallelism().map_or(1, |n| n.get()),
            batch_files: doppel_index::reading::CHUNK_FILES,
            job_files: usize::MAX,
        }
    }
}

/// Why a plan gave no report.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// DataFusion refused or failed the plan: its innermost reason,
    /// without addresses ([`plain()`]), and not the error itself, which a
    /// caller printing causes would print whole.
    #[error("the plan failed: {0}")]
    Plan(String),
    /// The spilled prints could not be written or read back.
    #[error(transparent)]
    Spill(#[from] SpillError),
    /// What a partition sent back of a document does not decode.
    #[error("what was read of {doc} does not decode: {source}")]
    Decode {
        /// The document.
        doc: DocPath,
        /// Why.
        #[source]
        source: postcard::Error,
    },
    /// A row came back without its document or its outcome.
    #[error("a partition sent back a malformed row: {0}")]
    Malformed(&'static str),
    /// The Ballista scheduler did not answer (its address is not said:
    /// it is the cluster's, not for logs).
    #[error("the scheduler cannot be reached (is `doppel cluster scheduler` running there?)")]
    Unreachable,
    /// A job found no executor on the scheduler for as long as the scan
    /// waits for one.
    #[error(
        "no executor served the scheduler for {waited_secs} s: start one \
         (`doppel cluster executor --scheduler HOST:PORT --allow FOLDER`), \
         or wait longer (--wait-for-executors)"
    )]
    NoExecutors {
        /// How long the scan waited.
        waited_secs: u64,
    },
    /// A scheduler or executor process cannot listen where it was told
    /// (the option is said, not the address).
    #[error("cannot listen at {option}: {source}")]
    Listen {
        /// The option naming the address.
        option: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A scheduler or executor process failed.
    #[error("the cluster process failed: {0}")]
    Serve(#[from] ballista_core::error::BallistaError),
    /// An executor's folder for its tasks' results could not be made.
    #[error("cannot make the executor's work folder: {0}")]
    WorkDir(#[source] std::io::Error),
    /// The runtime the plans run on could not be started.
    #[error("cannot start the plans' runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The Parquet output could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl From<datafusion::error::DataFusionError> for ClusterError {
    fn from(err: datafusion::error::DataFusionError) -> Self {
        Self::Plan(plain(&err))
    }
}
