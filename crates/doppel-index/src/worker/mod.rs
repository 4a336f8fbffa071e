//! The background worker: owns the folder index on its own thread, takes
//! [`Command`]s, sends [`Update`]s. See [`protocol`].
//!
//! [`spawn`] starts it: it opens the index, starts the watcher (before the
//! walk, so nothing slips between them), reconciles with the folder while
//! sending [`Update::Progress`], publishes the first [`protocol::Snapshot`], and then
//! loops. Each pass first drains everything pending (commands, watcher
//! events, due retries) and coalesces it: fifty `SetThreshold`s are one
//! re-cluster, a thousand file events are one parallel batch read, any
//! number of rescans is one reconcile, and only the newest pair and diff
//! requests are answered. A pass that changed anything bumps the generation
//! and sends one snapshot. Pair details and diffs are computed on helper
//! threads (each also answering only its newest request) so they never hold
//! up commands. `Quit` (or dropping the [`WorkerHandle`]) stops the worker,
//! also in the middle of a reconcile, of the pairing a fresh index ends
//! with, or of a regather (between two of their batches; `inputs`);
//! [`Update::Stopped`] is sent once the index is closed.
//!
//! Threads: this one, which selects over the commands and the watcher's
//! and a shared store's events (`inputs`: no thread forwards one channel
//! into another), and the pair, diff and facts helpers; the watcher, the
//! store's listener and the index's reading run their own.

pub mod acting;
mod batch;
pub mod detail;
pub mod diff;
pub mod documents;
mod inputs;
pub mod pause;
pub mod protocol;
mod requests;
mod setup;
pub mod snapshot;
mod team;
pub mod views;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::index::{FileChange, FolderIndex, IndexError};
use crate::watch::{WatchConfig, Watcher};
use doppel_core::doc::DocPath;
use doppel_core::engine::algo::winnow::Winnow;
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::Engine;
use doppel_pairing::cluster::ClusterSpec;

use batch::{Batch, Input};
use crossbeam_channel::{RecvTimeoutError, TryRecvError};
use detail::PairJob;
use inputs::Inputs;
pub use protocol::{Command, Update};
use protocol::{ErrorKind, Progress, Stage, WatchState, WorkerError};
use requests::{spawn_diff_helper, spawn_pair_helper, DiffJob};
pub use setup::{StoreOpener, WorkerConfig};

/// The front end's side of a running worker. Dropping it asks the worker to
/// quit (without waiting); [`WorkerHandle::join`] waits.
pub struct WorkerHandle {
    /// Where to send commands (the worker selects over them and its
    /// watcher's events).
    pub commands: crossbeam_channel::Sender<Command>,
    /// Where the worker's updates arrive.
    pub updates: Receiver<Update>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for WorkerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerHandle").finish_non_exhaustive()
    }
}

impl WorkerHandle {
    /// A handle on a worker of the caller's own running on `thread`: it
    /// answers the [`Command`]s sent on `commands` with [`Update`]s on
    /// `updates` under this protocol, and ends after [`Command::Quit`]. A
    /// front end then runs against it as against [`spawn`]'s (a scripted
    /// worker in tests, or one that forwards to another process).
    pub fn from_parts(
        commands: crossbeam_channel::Sender<Command>,
        updates: Receiver<Update>,
        thread: JoinHandle<()>,
    ) -> Self {
        Self {
            commands,
            updates,
            thread: Some(thread),
        }
    }

    /// Ask the worker to quit and wait until it has (index closed).
    pub fn join(mut self) {
        let _ = self.commands.send(Command::Quit);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for WorkerHandle {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Quit);
    }
}

/// Start the worker thread.
pub fn spawn(config: WorkerConfig) -> WorkerHandle {
    let (command_tx, command_rx) = crossbeam_channel::unbounded();
    let (update_tx, update_rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("doppel-worker".into())
        .spawn(move || {
            let last_word = update_tx.clone();
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run(config, command_rx, update_tx)
            }));
            if let Err(panic) = ran {
                let what = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown panic");
                let _ = last_word.send(Update::Error(WorkerError::new(
                    ErrorKind::Worker,
                    format!("the worker failed: {what}"),
                )));
                let _ = last_word.send(Update::Stopped);
            }
        })
        .expect("spawn the worker thread");
    WorkerHandle {
        commands: command_tx,
        updates: update_rx,
        thread: Some(thread),
    }
}

/// Most attempts at a file that keeps changing while it is read.
const MAX_RETRIES: u32 = 8;

struct Worker {
    config: WorkerConfig,
    index: FolderIndex,
    spec: ClusterSpec,
    generation: u64,
    updates: Sender<Update>,
    inputs: Inputs,
    watch_state: Option<WatchState>,
    /// Files that changed while being read: when to look again, attempts.
    retries: HashMap<PathBuf, (Instant, u32)>,
    pair_jobs: Sender<PairJob>,
    diff_jobs: Sender<DiffJob>,
    /// Files to read for their facts (document, file).
    fact_jobs: Sender<Vec<(DocPath, PathBuf)>>,
    /// A pass changed the clusters since the last snapshot was sent.
    unpublished: bool,
    /// The last snapshot's cluster views, shared by the next where they hold.
    views: views::KeptViews,
    last_published: Instant,
    /// A stage other than `Idle` was announced and not yet ended.
    busy: bool,
    /// Curator verdicts applied so far (see `Snapshot::verdicts_applied`).
    verdicts_applied: u64,
    /// The index could not be written: the whole folder is read again
    /// when this is due ([`pause`]).
    paused: Option<pause::StoragePause>,
}

/// While more input is already waiting (a bulk drop), snapshots are sent at
/// most this often; otherwise each pass that changes something sends one.
const PUBLISH_EVERY: Duration = Duration::from_secs(1);

fn run(
    config: WorkerConfig,
    commands: crossbeam_channel::Receiver<Command>,
    updates: Sender<Update>,
) {
    let (input_tx, events) = crossbeam_channel::unbounded();
    let send = |u: Update| {
        let _ = updates.send(u);
    };
    send(Update::Progress(Progress {
        stage: Stage::Opening,
        done: 0,
        total: 0,
        bytes: 0,
    }));
    let engine = Engine::new(config.engine.clone());
    let opened = match &config.store {
        Some(opener) => opener
            .open()
            .map_err(IndexError::from)
            .and_then(|(store, report)| {
                let mut index = FolderIndex::open_with_store(
                    &config.root,
                    engine,
                    config.library.clone(),
                    store,
                )?;
                index.set_curator(&config.curator);
                Ok((index, report))
            }),
        None => FolderIndex::open_somewhere(
            &config.root,
            engine,
            config.library.clone(),
            config.index.as_ref(),
            &config.curator,
        ),
    };
    let (mut index, report) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            tracing::error!(error = %e, "open failed");
            send(Update::Error(WorkerError::from_index(&e, None)));
            send(Update::Stopped);
            return;
        }
    };
    for message in report.messages() {
        tracing::warn!(%message, "opened");
        send(Update::Warning(message));
    }
    index.set_extra_ignores(config.extra_ignores.clone());
    index.set_page_folders(config.page_folders);
    index.set_read_limits(config.read_limits);
    let watcher = config.watch.then(|| {
        let input_tx = input_tx.clone();
        let mut watch = WatchConfig::new(index.root());
        watch.quiet = config.quiet;
        watch.rescan_every = config.rescan_every;
        watch.extra_ignores = config.extra_ignores.clone();
        Watcher::start_with(watch, move |e| input_tx.send(Input::Watch(e)).is_ok())
    });
    // A shared store's changes by other processes, while the worker runs.
    let listener = {
        let input_tx = input_tx.clone();
        index
            .store()
            .listen(Box::new(move |e| input_tx.send(Input::Store(e)).is_ok()))
    };
    // Only the watcher and the listener feed the events from now on: they
    // close when both are gone (or never were).
    drop(input_tx);
    let pair_jobs = spawn_pair_helper(config.engine.clone(), updates.clone());
    let diff_jobs = spawn_diff_helper(
        Winnow::new(config.engine.algorithms.winnow.clone()),
        config.engine.tokenizer.strip_furniture,
        updates.clone(),
    );
    let fact_jobs = documents::spawn_facts_helper(updates.clone());
    let mut worker = Worker {
        spec: ClusterSpec {
            by: config.cluster_by,
            mode: config.cluster_mode,
            ..ClusterSpec::from_engine(index.engine())
        },
        config,
        index,
        generation: 0,
        updates: updates.clone(),
        inputs: Inputs::new(commands, events),
        watch_state: None,
        retries: HashMap::new(),
        pair_jobs,
        diff_jobs,
        fact_jobs,
        unpublished: false,
        views: views::KeptViews::default(),
        last_published: Instant::now(),
        busy: false,
        verdicts_applied: 0,
        paused: None,
    };
    // The team's saved thresholds, before the first snapshot.
    if let Some(thresholds) = worker.team_thresholds() {
        worker.move_thresholds(&thresholds);
    }
    match worker.reconcile() {
        Ok(changes) => {
            worker.note_changes(changes, &[]);
        }
        Err(e) => worker.index_error(&e, None),
    }
    worker.publish_unless_paused();
    worker.progress(Stage::Idle, 0, 0, 0);
    worker.run();
    drop(listener);
    drop(watcher);
    drop(worker);
    send(Update::Stopped);
}

impl Worker {
    fn send(&self, update: Update) {
        let _ = self.updates.send(update);
    }

    fn progress(&mut self, stage: Stage, done: usize, total: usize, bytes: u64) {
        self.busy = stage != Stage::Idle;
        self.send(Update::Progress(Progress {
            stage,
            done,
            total,
            bytes,
        }));
    }

    fn run(&mut self) {
        loop {
            let first = match self.inputs.stashed() {
                Some(input) => Some(input),
                // Idle with work a reopen left: one step of it, then look
                // for input again.
                None if self.index.prepare_some() => match self.inputs.try_recv() {
                    Ok(input) => Some(input),
                    Err(TryRecvError::Empty) => continue,
                    Err(TryRecvError::Disconnected) => return,
                },
                None => {
                    let timeout = self
                        .retries
                        .values()
                        .map(|(due, _)| *due)
                        .chain(self.paused.map(|p| p.due))
                        .map(|due| due.saturating_duration_since(Instant::now()))
                        .min()
                        .unwrap_or(Duration::from_secs(3600));
                    match self.inputs.recv_timeout(timeout) {
                        Ok(input) => Some(input),
                        Err(RecvTimeoutError::Timeout) => None,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
            };
            let mut batch = Batch::default();
            batch.add_all(first, &mut self.inputs);
            let now = Instant::now();
            let due: Vec<PathBuf> = self
                .retries
                .iter()
                .filter(|(_, (at, _))| *at <= now)
                .map(|(p, _)| p.clone())
                .collect();
            batch.paths.extend(due);
            if self.paused.is_some_and(|p| p.due <= now) {
                batch.rescan = true;
            }
            if batch.quit {
                return;
            }
            self.pass(batch);
            if self.unpublished && self.paused.is_none() {
                self.inputs.stash_one();
                if self.inputs.nothing_stashed() || self.last_published.elapsed() >= PUBLISH_EVERY {
                    self.publish();
                }
            }
            // A pass that announced a stage (a rescan, a re-gather) ends it
            // once its snapshot is out, or a front end shows it busy for
            // good; a deferred snapshot ends it in a later pass.
            // A paused one ends it too: its snapshot waits for the resume.
            if self.busy && (!self.unpublished || self.paused.is_some()) {
                self.progress(Stage::Idle, 0, 0, 0);
            }
        }
    }

    /// Cluster by `thresholds` from now on, gathering candidates again
    /// first when one is looser than its floor.
    fn move_thresholds(&mut self, thresholds: &BTreeMap<AlgorithmId, f64>) {
        let mut floors = self.index.library().config().floors.clone();
        let mut lower = false;
        for (&id, &value) in thresholds {
            self.spec.thresholds.set(id, value);
            if !self.index.library().floors_allow(id, value) {
                floors.set(id, value);
                lower = true;
            }
        }
        if lower {
            self.progress(Stage::Clustering, 0, self.index.library().len(), 0);
            // A quit stops it between two chunks, the library as it was.
            let Worker { index, inputs, .. } = self;
            match index.regather_with(floors, &mut || inputs.go_on()) {
                Ok(true) => {}
                Ok(false) => tracing::info!("regather stopped"),
                Err(e) => self.index_error(
                    &e,
                    Some("gathering candidates for the looser threshold failed"),
                ),
            }
        }
    }

    /// One pass over a coalesced batch.
    #[tracing::instrument(level = "debug", name = "worker.pass", skip_all, fields(paths = batch.paths.len(), rescan = batch.rescan))]
    fn pass(&mut self, batch: Batch) {
        for state in batch.states {
            self.watch_state = Some(state.clone());
            self.send(Update::Watch(state));
        }
        for error in batch.errors {
            tracing::warn!(%error, "reported");
            self.send(Update::Error(error));
        }
        for message in batch.warnings {
            self.send(Update::Warning(message));
        }
        let mut changed = false;
        if let Some(address) = batch.store_lost {
            self.store_unreachable(&address);
        }
        // The outage may have hidden other curators' changes: read the
        // decisions and the whole folder again.
        let rescan = batch.rescan || batch.store_back;
        if batch.decisions_changed || batch.store_back {
            match self.index.reload_verdicts() {
                Ok(()) => changed = true,
                Err(e) => self.index_error(&e, Some("reading the other curators' verdicts")),
            }
        }
        if batch.boilerplate_changed {
            match self.index.reload_rulings() {
                Ok(changes) => {
                    self.note_changes(changes, &[]);
                    changed = true;
                    self.send(Update::Warning(
                        "another curator changed the boilerplate rulings: applied".to_owned(),
                    ));
                }
                Err(e) => {
                    self.index_error(&e, Some("applying another curator's boilerplate rulings"))
                }
            }
        }
        // Before anything else of the batch can change the list they name.
        for (generation, passage, overrule) in batch.rulings {
            changed |= self.rule_boilerplate(generation, passage, overrule);
        }
        // Files moved out of (or back into) the folder: walk it again, as
        // after file events, so the snapshot shows the folder as it is.
        let rescan = rescan || !batch.moves.is_empty();
        for command in batch.moves {
            self.move_files(command);
        }
        let mut paths = batch.paths;
        if batch.documents_changed && !rescan {
            // Another process's files, as its commits left them in the
            // store: looked at as if this watcher had reported them (taken
            // from the store, not read again).
            match self.index.changed_in_store() {
                Ok(changed) => paths.extend(changed),
                Err(e) => self.index_error(&e, Some("reading what the other processes indexed")),
            }
        }
        let paths: Vec<PathBuf> = paths.into_iter().collect();
        let result = if rescan {
            // A reconcile looks at every path anyway.
            self.reconcile()
        } else if !paths.is_empty() {
            self.index.sync_paths(&paths)
        } else {
            Ok(Vec::new())
        };
        match result {
            Ok(changes) => changed |= self.note_changes(changes, &paths),
            Err(e) => {
                // The folder is unavailable: nothing to retry until it is
                // back (the watcher asks for a rescan then).
                for p in &paths {
                    self.retries.remove(p);
                }
                self.index_error(&e, None);
            }
        }
        for (a, b, verdict) in batch.verdicts {
            self.verdicts_applied += 1;
            match self.index.set_pair_verdict(&a, &b, verdict) {
                Ok(()) => changed = true,
                Err(e) => self.index_error(&e, Some(&format!("verdict on {a} and {b}"))),
            }
        }
        for (path, keeper) in batch.keepers {
            match self.index.set_keeper(&path, keeper) {
                Ok(()) => changed = true,
                Err(e) => self.index_error(&e, Some(&format!("keep {path}"))),
            }
        }
        if let Some(thresholds) = batch.share {
            self.share_thresholds(thresholds);
        }
        let mut thresholds = batch.thresholds;
        if batch.team_thresholds_changed {
            // Another curator's save replaces this screen's moves.
            thresholds = self.team_thresholds().unwrap_or(thresholds);
        }
        if !thresholds.is_empty() {
            self.move_thresholds(&thresholds);
            changed = true;
        }
        if let Some(by) = batch.cluster_by {
            self.spec.by = by;
            changed = true;
        }
        if let Some(mode) = batch.mode {
            self.spec.mode = mode;
            changed = true;
        }
        self.unpublished |= changed;
        if let Some((a, b)) = batch.pair {
            self.request_pair(a, b);
        }
        if let Some(path) = batch.neighbours {
            let n = documents::neighbours(&self.index, &self.spec, &path, self.generation);
            self.send(Update::Neighbours(Arc::new(n)));
        }
        if !batch.facts.is_empty() {
            let files = batch
                .facts
                .into_iter()
                .map(|doc| {
                    let file = self.index.path_of(&doc);
                    (doc, file)
                })
                .collect();
            let _ = self.fact_jobs.send(files);
        }
        if let Some((a, b, deadline)) = batch.diff {
            self.request_diff(a, b, deadline);
        }
        if let Some((generation, ids, to)) = batch.plan {
            self.request_plan(generation, ids, &to);
        }
    }

    /// Report an index failure (classified: storage full, busy, folder
    /// gone, ...), after `context` if any. A storage failure pauses: the
    /// whole folder is read again after a growing delay ([`pause`]).
    fn index_error(&mut self, error: &IndexError, context: Option<&str>) {
        if let Some(state) = pause::paused_state(error) {
            let pause = pause::StoragePause::after_failure(
                self.paused,
                self.config.storage_retry,
                Instant::now(),
            );
            tracing::warn!(?state, attempts = pause.attempts, "index paused");
            self.paused = Some(pause);
            self.send(Update::Watch(state));
        }
        let error = WorkerError::from_index(error, context);
        tracing::error!(kind = error.kind.as_str(), %error, "index error");
        self.send(Update::Error(error));
    }

    /// The shared store at `address` cannot be reached: pause as after a
    /// storage failure (the folder is read again when it is back, or
    /// after the pause's delay), saying so.
    fn store_unreachable(&mut self, address: &str) {
        let pause = pause::StoragePause::after_failure(
            self.paused,
            self.config.storage_retry,
            Instant::now(),
        );
        tracing::warn!(%address, attempts = pause.attempts, "database unreachable");
        self.paused = Some(pause);
        self.send(Update::Watch(pause::unreachable(address)));
    }

    /// Reconcile with the whole folder.
    fn reconcile(&mut self) -> Result<Vec<FileChange>, IndexError> {
        // Only a watcher's state goes back after the walk: without one,
        // "scanning" would stay (progress says what the walk is doing).
        if self.config.watch {
            self.send(Update::Watch(WatchState::Scanning));
        }
        self.progress(Stage::Listing, 0, 0, 0);
        let Worker {
            index,
            updates,
            inputs,
            ..
        } = self;
        // The pairing after the reading asks again between its slices,
        // with the same numbers: those are not sent twice.
        let mut last = None;
        let result = index.reconcile_with(&mut |p| {
            if last != Some(p) {
                last = Some(p);
                let _ = updates.send(Update::Progress(Progress {
                    stage: Stage::Reading,
                    done: p.done,
                    total: p.total,
                    bytes: p.bytes,
                }));
            }
            inputs.go_on()
        });
        if result.is_ok() && self.paused.take().is_some() {
            tracing::info!("index resumed");
        }
        // A walk that failed for storage pauses (the pass says so next):
        // the watcher's state comes back only when it resumes.
        let pausing = result
            .as_ref()
            .is_err_and(|e| pause::paused_state(e).is_some());
        if let Some(state) = self.watch_state.clone().filter(|_| !pausing) {
            self.send(Update::Watch(state));
        }
        result.map(|report| report.changes)
    }

    /// Tell the front end what changed; schedule files to read again.
    /// `looked_at` are the paths this pass read (their retry counts go on).
    fn note_changes(&mut self, changes: Vec<FileChange>, looked_at: &[PathBuf]) -> bool {
        let mut changed = false;
        let mut retried = HashSet::new();
        for change in changes {
            match change {
                FileChange::Indexed { path } => {
                    changed = true;
                    self.send(Update::FileIndexed { path });
                }
                FileChange::Skipped { path, reason } => {
                    changed = true;
                    self.send(Update::FileSkipped { path, reason });
                }
                FileChange::Removed { path } => {
                    changed = true;
                    self.send(Update::FileRemoved { path });
                }
                // The clusters may follow; the file did not change.
                FileChange::Reprinted { .. } => changed = true,
                FileChange::Retry { path } => {
                    let attempts = self.retries.get(&path).map_or(0, |(_, n)| *n) + 1;
                    retried.insert(path.clone());
                    if attempts > MAX_RETRIES {
                        self.retries.remove(&path);
                        self.send(Update::Warning(format!(
                            "{} keeps changing while being read; it is read again at its \
                             next change",
                            path.display()
                        )));
                        continue;
                    }
                    let backoff = self.config.quiet.max(Duration::from_millis(50))
                        * 2u32.pow(attempts.min(6));
                    tracing::debug!(
                        path = %path.display(),
                        attempts,
                        ?backoff,
                        "changed while being read; retrying"
                    );
                    self.retries
                        .insert(path, (Instant::now() + backoff, attempts));
                }
            }
        }
        for path in looked_at {
            if !retried.contains(path) {
                self.retries.remove(path);
            }
        }
        changed
    }

    /// Publish, except while a storage failure pauses the index: what it
    /// holds then may be read but not yet paired (a snapshot would show
    /// its documents in no cluster), so the snapshot waits for the pass
    /// that resumes.
    fn publish_unless_paused(&mut self) {
        if self.paused.is_some() {
            self.unpublished = true;
        } else {
            self.publish();
        }
    }

    /// Bump the generation and send the snapshot.
    #[tracing::instrument(level = "debug", name = "worker.publish", skip_all, fields(generation = self.generation + 1))]
    fn publish(&mut self) {
        self.unpublished = false;
        self.last_published = Instant::now();
        self.generation += 1;
        let mut snapshot =
            snapshot::build_keeping(&self.index, &self.spec, self.generation, &mut self.views);
        snapshot.verdicts_applied = self.verdicts_applied;
        // Without it the boilerplate screen and the export only miss it.
        snapshot.boilerplate = self.index.boilerplate_cached().unwrap_or_default();
        self.send(Update::Snapshot(Arc::new(snapshot)));
    }
}
