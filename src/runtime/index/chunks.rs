//! A reconcile's reading, a chunk of files at a time: on a file index
//! three stages run at once, each on a thread of its own and in file
//! order (a chunk is read, the one before it learned, the one before that
//! committed); on a team store each chunk takes its files' locks first
//! (`adopt`).

use std::sync::{mpsc, Arc};

use super::at_once::{take_samples, Unlearned};
use super::learn::learn_chunk;
use super::sync::Ingested;
use super::{FolderIndex, ReadProgress, ReconcileReport, Result};
use crate::doc::DocPath;
use crate::runtime::collection::FileEntry;
use crate::runtime::reading::next_chunk;
use crate::runtime::store::DocStatus;

/// Count a chunk's files into `state` (read) and `report` (skipped).
fn count_read(items: &[Ingested], report: &mut ReconcileReport, state: &mut ReadProgress) {
    for item in items {
        state.done += 1;
        state.bytes += item.entry.bytes;
        if !item.changed && matches!(item.record.status, DocStatus::Skipped { .. }) {
            report.skipped += 1;
        }
    }
}

/// A chunk the learner has been told about, on its way to be committed,
/// with the indexed documents whose spans its learning moved.
struct Learned {
    items: Vec<Ingested>,
    moved: Vec<DocPath>,
    /// Their samples, when learned at once after the last chunk.
    unlearned: Vec<Unlearned>,
}

impl FolderIndex {
    /// Read `to_read` and commit it a chunk at a time, reporting to
    /// `progress` after each ([`FolderIndex::reconcile_with`]). On a file
    /// index three stages run at once, each on a thread of its own and in
    /// file order: a chunk is read, the one before it learned
    /// ([`learn_chunk`]), the one before that committed (the library and
    /// the store's transaction); on a team store each chunk takes its
    /// files' locks first (`adopt`). Also returns, when the index learns at
    /// once (`at_once`), the samples of every document committed.
    pub(super) fn read_chunks(
        &mut self,
        to_read: Vec<FileEntry>,
        report: &mut ReconcileReport,
        state: &mut ReadProgress,
        progress: &mut dyn FnMut(ReadProgress) -> bool,
    ) -> (Result<()>, Vec<Unlearned>) {
        let mut unlearned = Vec::new();
        let read = self.read_chunks_into(to_read, report, state, progress, &mut unlearned);
        (read, unlearned)
    }

    /// [`FolderIndex::read_chunks`]: the samples of the documents
    /// committed go to `unlearned` when they are learned at once.
    fn read_chunks_into(
        &mut self,
        to_read: Vec<FileEntry>,
        report: &mut ReconcileReport,
        state: &mut ReadProgress,
        progress: &mut dyn FnMut(ReadProgress) -> bool,
        unlearned: &mut Vec<Unlearned>,
    ) -> Result<()> {
        // Entries are moved into their chunk, so each one's paths are
        // freed once it is committed (100k of them are ~20 MB).
        let mut to_read = to_read.into_iter().peekable();
        let most = self.chunk_files;
        if self.store.is_shared() {
            loop {
                let chunk = next_chunk(&mut to_read, |f| f.bytes, most);
                if chunk.is_empty() {
                    return Ok(());
                }
                let changes = self.ingest_shared(chunk, &mut |index, ingested| {
                    count_read(&ingested, report, state);
                    index.commit_all(ingested)
                })?;
                report.changes.extend(changes);
                if !progress(*state) {
                    report.cancelled = true;
                    return Ok(());
                }
            }
        }
        if to_read.peek().is_none() {
            return Ok(());
        }
        let reading = self.reading();
        // The reading has a pool of its own: the commit's parallel work
        // (candidate keys, bodies) does not queue behind the next chunk's
        // files, and the readers go on while a chunk is committed.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("doppel-read-{i}"))
            .build()
            .ok();
        // The learner is lent to a thread of its own that learns each chunk
        // (in order) while the one before it is committed; it comes back
        // once every chunk it learned is committed. Cut short (cancelled,
        // failed), it may have learned a chunk not committed: it is dropped
        // then, to be built again from the store when next needed.
        let at_once = self.learns_at_once();
        if self.learning() && !at_once {
            self.learner()?;
        }
        let mut learner = self.learner.take();
        let engine = Arc::clone(&self.engine);
        let committed_all = std::thread::scope(|scope| {
            let (read_tx, read_rx) = mpsc::sync_channel::<Vec<Ingested>>(0);
            let (learned_tx, learned_rx) = mpsc::sync_channel::<Learned>(0);
            let reader = scope.spawn(move || loop {
                let chunk = next_chunk(&mut to_read, |f| f.bytes, most);
                if chunk.is_empty() {
                    break;
                }
                let items = match &pool {
                    Some(pool) => pool.install(|| reading.ingest_all(chunk)),
                    None => reading.ingest_all(chunk),
                };
                if read_tx.send(items).is_err() {
                    break;
                }
            });
            let (learner, engine) = (&mut learner, &engine);
            let learning = scope.spawn(move || {
                for mut items in read_rx {
                    let (moved, unlearned) = match learner.as_mut() {
                        Some(learner) => (learn_chunk(learner, engine, &mut items), Vec::new()),
                        None if at_once => (Vec::new(), take_samples(&mut items)),
                        None => (Vec::new(), Vec::new()),
                    };
                    let learned = Learned {
                        items,
                        moved,
                        unlearned,
                    };
                    if learned_tx.send(learned).is_err() {
                        break;
                    }
                }
            });
            let mut committed_all = Ok(true);
            for learned in learned_rx.iter() {
                count_read(&learned.items, report, state);
                self.note_moved(learned.moved);
                match self.commit_learned(learned.items) {
                    Ok(changes) => {
                        report.changes.extend(changes);
                        unlearned.extend(learned.unlearned);
                    }
                    Err(error) => {
                        committed_all = Err(error);
                        break;
                    }
                }
                if !progress(*state) {
                    // The chunks read or learned ahead are dropped: the
                    // next reconcile reads them.
                    report.cancelled = true;
                    committed_all = Ok(false);
                    break;
                }
            }
            // Stops the learning thread, which stops the reading one.
            drop(learned_rx);
            for stage in [reader, learning] {
                if let Err(panic) = stage.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            committed_all
        });
        // Its size walks every document: only when it is logged.
        if let Some(learner) = learner
            .as_ref()
            .filter(|_| tracing::enabled!(tracing::Level::DEBUG))
        {
            let (shared, own) = learner.heap_bytes();
            tracing::debug!(
                documents = learner.len(),
                heap_mib = (shared + own) >> 20,
                "boilerplate learner"
            );
        }
        if let Ok(true) = committed_all {
            self.learner = learner;
        }
        committed_all.map(|_| ())
    }
}
