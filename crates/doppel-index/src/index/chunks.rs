//! A reconcile's reading, a chunk of files at a time: on a file index
//! three stages run at once, each on a thread of its own and in file
//! order (a chunk is read, the one before it learned, the one before that
//! committed); on a team store each chunk takes its files' locks first
//! (`shared_reading`).

use std::sync::{mpsc, Arc};

use super::at_once::{take_samples, Unlearned};
use super::learn::learn_chunk;
use super::sync::Ingested;
use super::{FolderIndex, ReadProgress, ReconcileReport, Result};
use crate::collection::FileEntry;
use crate::reading::next_chunk;
use doppel_core::doc::DocPath;
use doppel_store::DocStatus;

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
    /// files' locks first (`shared_reading`). When the pass learns at once
    /// (`at_once`), the samples of every document committed are collected
    /// in it.
    pub(super) fn read_chunks(
        &mut self,
        to_read: Vec<FileEntry>,
        report: &mut ReconcileReport,
        state: &mut ReadProgress,
        progress: &mut dyn FnMut(ReadProgress) -> bool,
    ) -> Result<()> {
        // Entries are moved into their chunk, so each one's paths are
        // freed once it is committed (100k of them are ~20 MB).
        let mut to_read = to_read.into_iter().peekable();
        let most = self.options.chunk_files();
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
        // The learner is lent to the learning stage, which learns each chunk
        // (in order) while the one before it is committed; it comes back
        // once every chunk it learned is committed. Cut short (cancelled,
        // failed), it may have learned a chunk not committed: it is dropped
        // then, to be built again from the store when next needed.
        let at_once = self.state.learns_at_once();
        if self.boilerplate.learning() && !at_once {
            self.learner()?;
        }
        let mut learner = self.boilerplate.take_learner();
        let engine = Arc::clone(&self.engine);
        let chunks = std::iter::from_fn(move || {
            Some(next_chunk(&mut to_read, |f| f.bytes, most)).filter(|c| !c.is_empty())
        });
        let pipeline = Pipeline {
            read: move |chunk| match &pool {
                Some(pool) => pool.install(|| reading.ingest_all(chunk)),
                None => reading.ingest_all(chunk),
            },
            learn: |mut items: Vec<Ingested>| {
                let (moved, unlearned) = match learner.as_mut() {
                    Some(learner) => (learn_chunk(learner, &engine, &mut items), Vec::new()),
                    None if at_once => (Vec::new(), take_samples(&mut items)),
                    None => (Vec::new(), Vec::new()),
                };
                Learned {
                    items,
                    moved,
                    unlearned,
                }
            },
        };
        let committed_all = pipeline.run(chunks, |learned: Learned| {
            count_read(&learned.items, report, state);
            self.boilerplate.note_moved(learned.moved);
            report.changes.extend(self.commit_learned(learned.items)?);
            self.state.collect(learned.unlearned);
            if progress(*state) {
                return Ok(true);
            }
            // The chunks read or learned ahead are dropped: the next
            // reconcile reads them.
            report.cancelled = true;
            Ok(false)
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
        if let (Ok(true), Some(learner)) = (&committed_all, learner) {
            self.boilerplate.give_back(learner);
        }
        committed_all.map(|_| ())
    }
}

/// A reconcile's three stages, in file order: each chunk is `read` on a
/// thread of its own, then `learn`ed on another, then committed on the
/// calling thread ([`Pipeline::run`]); so a chunk is read while the one
/// before it is learned and the one before that committed. No stage
/// runs more than one chunk ahead of the next: at most three chunks are
/// held at once.
pub(super) struct Pipeline<Read, Learn> {
    /// Reads a chunk of entries.
    pub(super) read: Read,
    /// Learns from a chunk read, in order.
    pub(super) learn: Learn,
}

impl<Read, Learn> Pipeline<Read, Learn> {
    /// Run every chunk of `chunks` through the stages, `commit` last, in
    /// order, until `commit` fails or returns false (stop: the chunks read
    /// or learned ahead are dropped). Ok(true) when every chunk was
    /// committed; a stage's panic is the caller's.
    pub(super) fn run<Chunk, ReadOut, Learned, E>(
        self,
        chunks: impl Iterator<Item = Chunk> + Send,
        mut commit: impl FnMut(Learned) -> Result<bool, E>,
    ) -> Result<bool, E>
    where
        Read: FnMut(Chunk) -> ReadOut + Send,
        Learn: FnMut(ReadOut) -> Learned + Send,
        ReadOut: Send,
        Learned: Send,
    {
        let Pipeline {
            mut read,
            mut learn,
        } = self;
        std::thread::scope(|scope| {
            let (read_tx, read_rx) = mpsc::sync_channel::<ReadOut>(0);
            let (learned_tx, learned_rx) = mpsc::sync_channel::<Learned>(0);
            let reader = scope.spawn(move || {
                for chunk in chunks {
                    if read_tx.send(read(chunk)).is_err() {
                        break;
                    }
                }
            });
            let learning = scope.spawn(move || {
                for items in read_rx {
                    if learned_tx.send(learn(items)).is_err() {
                        break;
                    }
                }
            });
            let mut committed_all = Ok(true);
            for learned in learned_rx.iter() {
                match commit(learned) {
                    Ok(true) => {}
                    stop => {
                        committed_all = stop;
                        break;
                    }
                }
            }
            // Stops the learning stage, which stops the reading one.
            drop(learned_rx);
            for stage in [reader, learning] {
                if let Err(panic) = stage.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            committed_all
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Pipeline;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// A stage of the pipelines below.
    type Stage<'a> = Box<dyn FnMut(Vec<u32>) -> Vec<u32> + Send + 'a>;

    /// A pipeline that reads a chunk by doubling it and learns by noting
    /// the chunks it saw, counting reads in `read`.
    fn doubling<'a>(
        reads: &'a AtomicUsize,
        learned: &'a Mutex<Vec<Vec<u32>>>,
    ) -> Pipeline<Stage<'a>, Stage<'a>> {
        Pipeline {
            read: Box::new(move |chunk: Vec<u32>| {
                reads.fetch_add(1, Ordering::SeqCst);
                chunk.into_iter().map(|x| x * 2).collect()
            }),
            learn: Box::new(move |items: Vec<u32>| {
                learned.lock().unwrap().push(items.clone());
                items
            }),
        }
    }

    fn chunks(n: u32) -> impl Iterator<Item = Vec<u32>> + Send {
        (0..n).map(|i| vec![3 * i, 3 * i + 1, 3 * i + 2])
    }

    #[test]
    fn every_chunk_is_read_learned_and_committed_in_order() {
        let (reads, learned) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        let mut committed = Vec::new();
        let all = doubling(&reads, &learned).run(chunks(40), |items| {
            committed.extend(items);
            Ok::<_, ()>(true)
        });
        assert_eq!(all, Ok(true));
        assert_eq!(committed, (0..120).map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(learned.lock().unwrap().len(), 40);
        assert_eq!(reads.load(Ordering::SeqCst), 40);
    }

    #[test]
    fn a_stop_commits_nothing_more_and_reads_at_most_two_chunks_ahead() {
        let (reads, learned) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        let mut committed = 0;
        let all = doubling(&reads, &learned).run(chunks(40), |_| {
            committed += 1;
            Ok::<_, ()>(committed < 5)
        });
        assert_eq!(all, Ok(false));
        assert_eq!(committed, 5);
        let read = reads.load(Ordering::SeqCst);
        assert!(
            (5..=7).contains(&read),
            "read {read} chunks for 5 committed"
        );
        assert!(learned.lock().unwrap().len() <= 6);
    }

    #[test]
    fn a_failed_commit_stops_the_stages_and_is_returned() {
        let (reads, learned) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        let mut committed = Vec::new();
        let all = doubling(&reads, &learned).run(chunks(40), |items| {
            if items[0] == 6 {
                return Err("disk full");
            }
            committed.push(items[0]);
            Ok(true)
        });
        assert_eq!(all, Err("disk full"));
        assert_eq!(committed, [0]);
        assert!(reads.load(Ordering::SeqCst) <= 4);
    }

    #[test]
    fn nothing_to_read_commits_nothing() {
        let (reads, learned) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        let all = doubling(&reads, &learned).run(chunks(0), |_| -> Result<bool, ()> {
            panic!("committed a chunk of nothing")
        });
        assert_eq!(all, Ok(true));
        assert_eq!(reads.load(Ordering::SeqCst), 0);
    }

    #[test]
    #[should_panic(expected = "unreadable")]
    fn a_stage_that_panics_panics_the_caller() {
        let pipeline = Pipeline {
            read: |chunk: Vec<u32>| -> Vec<u32> {
                assert!(chunk[0] < 6, "unreadable");
                chunk
            },
            learn: |items: Vec<u32>| items,
        };
        let _ = pipeline.run(chunks(10), |_| Ok::<_, ()>(true));
    }
}
