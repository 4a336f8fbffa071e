//! An index's files read as DataFusion plans: [`ClusterReading`] is the
//! `doppel_index::index::ReadsElsewhere` an index (SQLite or the team's
//! PostgreSQL store) reads through, chunk by chunk, so `doppel cluster
//! scan --store` commits exactly what `doppel scan --store` commits, read
//! by `doppel_read_for_index` on the executors (or here, `--local`), and a
//! later run reads only what is new or changed: the index decides what to
//! read, the plans only read it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{Array, BinaryArray, RecordBatch};

use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_index::collection::FileEntry;
use doppel_index::index::{IndexRead, ReadsElsewhere};
use doppel_index::reading::ReadLimits;
use doppel_pairing::library::LibraryConfig;

use crate::read_stage::{Job, Kind, Reader, Row};
use crate::session::{plans_runtime, Answers, Runner, Session};
use crate::{ClusterError, PlanOptions};

/// Reading an index's chunks in plans, on the session it started.
pub struct ClusterReading {
    runtime: tokio::runtime::Runtime,
    session: Session,
    /// The job, but for whether it samples for the learner (the index
    /// says, chunk by chunk).
    job: Job,
    engine: Arc<Engine>,
    /// Why a chunk was not read (its documents came back not read, so
    /// the index did not commit them), the first such reason.
    failure: Mutex<Option<ClusterError>>,
}

impl ClusterReading {
    /// Reading the folder `root` for an index with `engine` under
    /// `library` and `limits`, in plans cut as `plan` says and run by
    /// `runner`.
    pub fn start(
        root: &std::path::Path,
        engine: Arc<Engine>,
        library: LibraryConfig,
        limits: ReadLimits,
        plan: PlanOptions,
        runner: Runner<'_>,
    ) -> Result<Self, ClusterError> {
        let runtime = plans_runtime(plan)?;
        let session = runtime.block_on(Session::start(runner, plan))?;
        let job = Job {
            root: root.to_path_buf(),
            engine: engine.config().clone(),
            library,
            limits,
            learning: false,
        };
        Ok(Self {
            runtime,
            session,
            job,
            engine,
            failure: Mutex::new(None),
        })
    }

    /// Why a chunk could not be read, if one could not: its documents,
    /// and those of every chunk after it, were not committed (the next
    /// run reads them).
    pub fn failure(&self) -> Option<ClusterError> {
        self.lock().take()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<ClusterError>> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ReadsElsewhere for ClusterReading {
    fn read(&self, entries: &[FileEntry], learning: Option<&LibraryConfig>) -> Vec<IndexRead> {
        // After a chunk failed, the others are not tried: the cluster that
        // failed it (every executor lost, say) would fail them too, each
        // after the scan's wait for an executor.
        if self.lock().is_some() {
            return entries.iter().map(IndexRead::not_read).collect();
        }
        let job = Job {
            library: learning.unwrap_or(&self.job.library).clone(),
            learning: learning.is_some(),
            ..self.job.clone()
        };
        let mut answered = IndexReads::default();
        let read = self.session.function(Kind::Index, &job, || {
            Reader::new(Arc::clone(&self.engine), &job)
        });
        let rows: Vec<Row<'_>> = entries.iter().map(Row::listed).collect();
        let done = self
            .runtime
            .block_on(self.session.read_all(&rows, &read, &job, &mut answered));
        if let Err(error) = done {
            tracing::warn!(%error, "a chunk was not read: its documents are not committed");
            self.lock().get_or_insert(error);
        }
        entries
            .iter()
            .map(|entry| {
                answered
                    .reads
                    .remove(&entry.doc)
                    .unwrap_or_else(|| IndexRead::not_read(entry))
            })
            .collect()
    }
}

/// What the plans answered of a chunk.
#[derive(Default)]
struct IndexReads {
    reads: HashMap<DocPath, IndexRead>,
}

impl Answers for IndexReads {
    fn has(&self, doc: &DocPath) -> bool {
        self.reads.contains_key(doc)
    }

    fn take(&mut self, batch: &RecordBatch) -> Result<(), ClusterError> {
        let binary = |name| {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_any().downcast_ref::<BinaryArray>())
                .ok_or(ClusterError::Malformed("no path or read column"))
        };
        let (paths, reads) = (binary("path")?, binary("read")?);
        for row in 0..batch.num_rows() {
            let doc = DocPath::from_bytes(paths.value(row));
            if !reads.is_valid(row) {
                return Err(ClusterError::Malformed("a document without its read"));
            }
            let read =
                postcard::from_bytes(reads.value(row)).map_err(|source| ClusterError::Decode {
                    doc: doc.clone(),
                    source,
                })?;
            self.reads.insert(doc, read);
        }
        Ok(())
    }
}
