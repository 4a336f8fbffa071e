//! Pair details and diffs for a front end: the worker gathers what a
//! request needs from its index (fingerprints, boilerplate, file paths)
//! and hands it to a helper thread, which answers only the newest request
//! it has, so a slow diff never holds up commands.

use std::collections::{HashSet, TryReserveError};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::detail::{self, PairJob};
use super::diff;
use super::protocol::{DiffView, ErrorKind, PairCurators, Update, WorkerError};
use super::Worker;
use crate::collection::{read_text, Skip, DEFAULT_SIZE_CAP};
use crate::reading::ReadLimits;
use doppel_core::doc::DocPath;
use doppel_core::engine::algo::winnow::Winnow;
use doppel_core::engine::{Engine, EngineConfig};

/// A diff request for the diff helper.
pub(super) struct DiffJob {
    generation: u64,
    a: DocPath,
    b: DocPath,
    path_a: PathBuf,
    path_b: PathBuf,
    deadline: Duration,
    /// Winnowing fingerprints in both documents.
    shared: HashSet<u32>,
    /// Each side's learned boilerplate, as byte ranges: greyed out and left
    /// out of the comparison, as the fingerprints leave it out.
    boilerplate: [Vec<std::ops::Range<usize>>; 2],
}

impl Worker {
    pub(super) fn request_pair(&mut self, a: DocPath, b: DocPath) {
        // Without the report the pair screen only misses its boilerplate line.
        let report = self.index.boilerplate_cached().unwrap_or_default();
        let boilerplate = [report.side(&a), report.side(&b)];
        let spans_of = |doc: &DocPath| {
            report
                .documents
                .get(doc)
                .map(|found| found.spans.clone())
                .unwrap_or_default()
        };
        let spans = [spans_of(&a), spans_of(&b)];
        let lib = self.index.library();
        let docs = lib
            .id_of(&a)
            .and_then(|x| lib.doc(x))
            .zip(lib.id_of(&b).and_then(|y| lib.doc(y)));
        let Some((da, db)) = docs else {
            self.send(Update::Error(WorkerError::new(
                ErrorKind::Request,
                format!("no scores for {a} and {b}: both must be indexed documents"),
            )));
            return;
        };
        let prints = self
            .index
            .fingerprints(&a)
            .and_then(|fa| Ok(fa.zip(self.index.fingerprints(&b)?)));
        let (fa, fb) = match prints {
            Ok(Some(prints)) => prints,
            Ok(None) => {
                self.send(Update::Error(WorkerError::new(
                    ErrorKind::Request,
                    format!(
                        "no scores for {a} and {b}: the index has no fingerprints of one of them"
                    ),
                )));
                return;
            }
            Err(e) => {
                self.index_error(&e, Some(&format!("no scores for {a} and {b}")));
                return;
            }
        };
        let job = PairJob {
            boilerplate,
            spans,
            generation: self.generation,
            path_a: self.index.path_of(&a),
            path_b: self.index.path_of(&b),
            fa,
            fb,
            shingles_a: da.shingles,
            shingles_b: db.shingles,
            spec: self.spec.clone(),
            library: lib.config().clone(),
            verdict: lib.pair_verdict(&a, &b),
            curators: PairCurators {
                you: self.index.curator().to_owned(),
                verdicts: lib.pair_marks(&a, &b).to_vec(),
                // Without its history the pair screen still shows each
                // curator's verdict.
                history: self.index.pair_verdict_history(&a, &b).unwrap_or_default(),
            },
            a,
            b,
        };
        let _ = self.pair_jobs.send(job);
    }

    pub(super) fn request_diff(&mut self, a: DocPath, b: DocPath, deadline: Duration) {
        let hashes = |p: &DocPath| -> HashSet<u32> {
            // Without fingerprints the diff shows no shared passages.
            self.index
                .fingerprints(p)
                .ok()
                .flatten()
                .and_then(|f| f.winnow)
                .map(|w| w.hashes.into_iter().collect())
                .unwrap_or_default()
        };
        let (ha, hb) = (hashes(&a), hashes(&b));
        let boilerplate = |doc: &DocPath| self.index.boilerplate_ranges(doc).unwrap_or_default();
        let job = DiffJob {
            boilerplate: [boilerplate(&a), boilerplate(&b)],
            generation: self.generation,
            path_a: self.index.path_of(&a),
            path_b: self.index.path_of(&b),
            shared: ha.intersection(&hb).copied().collect(),
            a,
            b,
            deadline,
        };
        let _ = self.diff_jobs.send(job);
    }
}

/// The newest job waiting on `jobs` (older ones are no longer asked).
fn newest<T>(first: T, jobs: &Receiver<T>) -> T {
    let mut job = first;
    while let Ok(next) = jobs.try_recv() {
        job = next;
    }
    job
}

pub(super) fn spawn_pair_helper(engine: EngineConfig, updates: Sender<Update>) -> Sender<PairJob> {
    let (tx, rx) = mpsc::channel::<PairJob>();
    let _ = std::thread::Builder::new()
        .name("doppel-pairs".into())
        .spawn(move || {
            let engine = Engine::new(engine);
            while let Ok(first) = rx.recv() {
                let job = newest(first, &rx);
                let detail = detail::pair_detail(&engine, &job);
                if updates.send(Update::Pair(Arc::new(detail))).is_err() {
                    break;
                }
            }
        });
    tx
}

/// `furniture`: page furniture is dimmed and left out of the comparison,
/// as the engine leaves it out of the fingerprints.
pub(super) fn spawn_diff_helper(
    winnow: Winnow,
    furniture: bool,
    updates: Sender<Update>,
) -> Sender<DiffJob> {
    let (tx, rx) = mpsc::channel::<DiffJob>();
    let _ = std::thread::Builder::new()
        .name("doppel-diffs".into())
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                let job = newest(first, &rx);
                let update = match diff_job(&winnow, furniture, &job) {
                    Ok(view) => Update::Diff(Arc::new(view)),
                    Err(error) => {
                        Update::Error(WorkerError::new(ErrorKind::File, error.to_string()))
                    }
                };
                if updates.send(update).is_err() {
                    break;
                }
            }
        });
    tx
}

/// Why a pair's diff cannot be made: a side's reason, as a scan would
/// skip the file.
#[derive(Debug, thiserror::Error)]
enum DiffJobError {
    /// A side cannot be read as text.
    #[error("cannot diff {a} and {b}: {side}: {skip}")]
    Unreadable {
        a: DocPath,
        b: DocPath,
        /// The side.
        side: DocPath,
        #[source]
        skip: Skip,
    },
    /// Memory for a side's page furniture cannot be had.
    #[error("cannot diff {a} and {b}: {side}: {}", Skip::OutOfMemory { needed: *needed })]
    NoMemory {
        a: DocPath,
        b: DocPath,
        side: DocPath,
        /// The most reading it is expected to take, in bytes.
        needed: u64,
        #[source]
        error: TryReserveError,
    },
}

fn diff_job(winnow: &Winnow, furniture: bool, job: &DiffJob) -> Result<DiffView, DiffJobError> {
    let deadline = Instant::now() + job.deadline;
    let (a, b) = (job.a.clone(), job.b.clone());
    let read = |path: &PathBuf, side: &DocPath| {
        read_text(path, DEFAULT_SIZE_CAP)
            .map(|d| (d.text, d.book.map(|b| b.pages).unwrap_or_default()))
            .map_err(|skip| DiffJobError::Unreadable {
                a: a.clone(),
                b: b.clone(),
                side: side.clone(),
                skip,
            })
    };
    let ((ta, pages_a), (tb, pages_b)) = (read(&job.path_a, &job.a)?, read(&job.path_b, &job.b)?);
    let furniture_of = |text: &str, side: &DocPath| {
        if !furniture {
            return Ok(Vec::new());
        }
        let found = doppel_core::engine::text::page_furniture::find(text).map_err(|error| {
            DiffJobError::NoMemory {
                a: a.clone(),
                b: b.clone(),
                side: side.clone(),
                needed: ReadLimits::default().bound(text.len() as u64),
                error,
            }
        })?;
        Ok(found.into_iter().map(|f| f.range).collect::<Vec<_>>())
    };
    let (mut fa, mut fb) = (furniture_of(&ta, &job.a)?, furniture_of(&tb, &job.b)?);
    fa.extend(job.boilerplate[0].iter().cloned());
    fb.extend(job.boilerplate[1].iter().cloned());
    let options = diff::DiffOptions {
        shared: Some(diff::Shared {
            winnow,
            hashes: &job.shared,
        }),
        ignored: [&fa, &fb],
        ..diff::DiffOptions::new(deadline)
    };
    let mut parts = diff::diff_texts(ta, tb, &options);
    // A side read from a paged format names its rows by page.
    parts.left.pages = pages_a;
    parts.right.pages = pages_b;
    Ok(parts.into_view(job.generation, job.a.clone(), job.b.clone()))
}
