//! The drop-folder watcher: the operating system's file events turned into
//! debounced, *stable* [`WatchEvent`]s, on a thread of its own.
//!
//! A recursive `notify` watcher (inotify on Linux) feeds a channel; its
//! handler does nothing else, so a slow consumer never makes the kernel
//! queue overflow. The watcher thread keeps one pending entry per touched
//! path and reports the path only once its size and mtime (`lstat`) have not
//! changed for the quiet period, and no writer that wrote to it still has it
//! open (inotify's close-after-write; not under polling): [`WatchEvent::Changed`] for a file (or a
//! special file, which the index lists as skipped), [`WatchEvent::Removed`]
//! for a path that is gone. A folder created or moved in is walked, and every
//! file in it goes through the same stability check, so the files of a
//! `mkdir -p` or `cp -r` raced past notify are found. The same files the
//! folder walk ignores ([`crate::collection::IgnoreRules`]) are ignored here;
//! A file that keeps changing (found changed when its quiet period ends,
//! changed again soon after it was reported, or still open for writing)
//! waits twice as long each time, up to [`MAX_QUIET`]: a slow writer's
//! partial versions are not reported at every pause.
//! a changed `.doppelignore` or `.doppelbook` asks for a rescan. Symbolic links are not
//! followed. Reads (doppel's own) raise no event that counts: only writes,
//! creations, removals, renames and metadata changes do.
//!
//! [`WatchEvent::Rescan`] asks for a full reconcile: on notify's `Rescan`
//! flag (queue overflow), when too many paths are pending, when the root
//! comes back, and every `rescan_every` as a safety net. When the inotify
//! watch limit is hit the watcher falls back to notify's `PollWatcher` and
//! says so ([`WatchState::Polling`], naming `fs.inotify.max_user_watches`);
//! so it does, from the start, for a folder with more folders than
//! [`WatchConfig::max_native_watches`].
//! When the root disappears it pauses ([`WatchState::Paused`]) and reports
//! no removals, so the index is never emptied, and resumes when it returns.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind};
use notify::{EventKind, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher as _};
use serde::Serialize;

use crate::collection::{relative, IgnoreRules, BOOK_MARKER, IGNORE_FILE};

/// How the folder is being followed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "state")]
pub enum WatchState {
    /// Following the folder's events.
    Watching,
    /// Walking the whole folder.
    Scanning,
    /// Events are unavailable (e.g. the inotify watch limit); polling instead.
    Polling {
        /// Why, in words.
        reason: String,
    },
    /// The root is gone or unreadable; the index is kept as it was.
    Paused {
        /// Why, in words.
        reason: String,
    },
}

/// Default quiet period: a path is reported once unchanged for this long.
pub const DEFAULT_QUIET: Duration = Duration::from_millis(200);
/// The longest a path that keeps changing waits: its quiet period doubles
/// up to this.
pub const MAX_QUIET: Duration = Duration::from_secs(4);

/// A path's quiet period after it was found changing again: doubled (from
/// at least 50 ms, so a zero quiet period grows too), at most [`MAX_QUIET`].
fn longer(quiet: Duration) -> Duration {
    (quiet * 2).max(Duration::from_millis(50)).min(MAX_QUIET)
}
/// Default interval of the safety-net full rescan.
pub const DEFAULT_RESCAN_EVERY: Duration = Duration::from_secs(600);
/// Default interval of the polling fallback.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);
/// Default most paths pending at once before falling back to a rescan.
pub const DEFAULT_MAX_PENDING: usize = 100_000;

/// How often the root's presence is checked.
const ROOT_CHECK: Duration = Duration::from_millis(500);

/// Which event source to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The platform's native events (inotify), polling if they fail.
    #[default]
    Native,
    /// notify's `PollWatcher` from the start (network filesystems).
    Poll,
}

/// How a [`Watcher`] follows its folder.
#[derive(Debug, Clone)]
pub struct WatchConfig {
    /// The folder to watch (absolute, as the index has it).
    pub root: PathBuf,
    /// How long size and mtime must stay unchanged. Default: 200 ms.
    pub quiet: Duration,
    /// Full rescan interval; zero turns it off. Default: 10 min.
    pub rescan_every: Duration,
    /// Polling interval of the fallback. Default: 2 s.
    pub poll_interval: Duration,
    /// Which event source. Default: native.
    pub backend: Backend,
    /// Pending paths beyond this are dropped for one rescan. Default: 100,000.
    pub max_pending: usize,
    /// Ignore globs besides the built-in ones (see
    /// [`crate::collection::list_files_with`]). Default: none.
    pub extra_ignores: Vec<String>,
    /// The most native watches to take: inotify takes one per folder,
    /// out of `fs.inotify.max_user_watches`, which every program of the
    /// user shares. A root holding more folders than this (itself
    /// included, counted when the watch is set up) is polled instead, as
    /// when that limit is hit, and [`WatchState::Polling`] says why.
    /// Default: none (as many as the system gives).
    pub max_native_watches: Option<usize>,
}

impl WatchConfig {
    /// The defaults for `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            quiet: DEFAULT_QUIET,
            rescan_every: DEFAULT_RESCAN_EVERY,
            poll_interval: DEFAULT_POLL_INTERVAL,
            backend: Backend::Native,
            max_pending: DEFAULT_MAX_PENDING,
            extra_ignores: Vec::new(),
            max_native_watches: None,
        }
    }
}

/// What the watcher reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// A file (or special file) that is there and has settled; absolute path.
    Changed(PathBuf),
    /// A path that is gone (a file, or a folder with everything under it).
    Removed(PathBuf),
    /// Walk the whole folder again.
    Rescan,
    /// How the folder is being followed now.
    State(WatchState),
    /// A problem worth showing (an event error).
    Error(String),
    /// Following the folder less well than asked (polling instead of
    /// watching, an unreadable folder), not a failure.
    Warning(String),
}

/// The watcher thread; dropping it stops the thread.
pub struct Watcher {
    raw: Sender<Raw>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher").finish_non_exhaustive()
    }
}

enum Raw {
    Event(notify::Result<notify::Event>),
    Stop,
}

impl Watcher {
    /// Start watching; events arrive on the returned channel.
    pub fn start(config: WatchConfig) -> (Watcher, Receiver<WatchEvent>) {
        let (tx, rx) = mpsc::channel();
        let watcher = Self::start_with(config, move |e| tx.send(e).is_ok());
        (watcher, rx)
    }

    /// Start watching; every event is handed to `sink` on the watcher
    /// thread, which stops when `sink` returns `false`.
    pub fn start_with(
        config: WatchConfig,
        sink: impl FnMut(WatchEvent) -> bool + Send + 'static,
    ) -> Watcher {
        let (raw_tx, raw_rx) = mpsc::channel();
        let core = Core::new(config, Box::new(sink), raw_tx.clone());
        let thread = std::thread::Builder::new()
            .name("doppel-watch".into())
            .spawn(move || core.run(raw_rx))
            .expect("spawn the watcher thread");
        Watcher {
            raw: raw_tx,
            thread: Some(thread),
        }
    }

    /// Stop the thread and wait for it.
    pub fn stop(self) {}
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.raw.send(Raw::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The message of the polling fallback, naming the sysctl to raise.
pub fn watch_limit_reason(interval: Duration) -> String {
    format!(
        "the inotify watch limit is reached (raise the sysctl fs.inotify.max_user_watches); \
         polling every {} s instead",
        interval.as_secs_f64()
    )
}

/// Whether `root` holds more than `most` folders, itself included (not
/// following symbolic links; an unreadable folder's are not counted).
/// Stops counting past `most`.
fn more_folders_than(root: &Path, most: usize) -> bool {
    let mut stack = vec![root.to_path_buf()];
    let mut folders = 0usize;
    while let Some(dir) = stack.pop() {
        folders += 1;
        if folders > most {
            return true;
        }
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
    false
}

/// Why a watcher polls instead of following the platform's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PollCause {
    /// Its configuration asked for polling ([`Backend::Poll`]).
    Asked,
    /// The platform's watch limit was hit (or native watching failed).
    SystemLimit,
    /// The root holds more folders than [`WatchConfig::max_native_watches`].
    OwnLimit(usize),
}

impl PollCause {
    /// How a watcher of `config` starts: polling when asked to.
    fn at_start(config: &WatchConfig) -> Option<PollCause> {
        (config.backend == Backend::Poll).then_some(PollCause::Asked)
    }

    /// What [`WatchState::Polling`] says, polling every `interval`.
    fn reason(self, interval: Duration) -> String {
        match self {
            PollCause::Asked => format!("polling every {} s", interval.as_secs_f64()),
            PollCause::SystemLimit => watch_limit_reason(interval),
            PollCause::OwnLimit(most) => format!(
                "the folder holds more than {most} folders, the most watched natively \
                 (max_native_watches); polling every {} s instead",
                interval.as_secs_f64()
            ),
        }
    }
}

/// Whether a notify error means the platform's watch or instance limit.
fn is_watch_limit(e: &notify::Error) -> bool {
    match &e.kind {
        notify::ErrorKind::MaxFilesWatch => true,
        // ENOSPC (watches) and EMFILE (instances) on Linux.
        notify::ErrorKind::Io(io) => matches!(io.raw_os_error(), Some(28) | Some(24)),
        _ => false,
    }
}

/// `lstat` facts that tell whether a path is still being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    size: u64,
    mtime_ns: i64,
    inode: u64,
    dir: bool,
}

fn stat(path: &Path) -> Option<Stat> {
    let meta = fs::symlink_metadata(path).ok()?;
    let id = doppel_core::doc::FileIdentity::from_metadata(&meta);
    Some(Stat {
        size: id.size,
        mtime_ns: id.mtime_ns,
        inode: id.inode,
        dir: meta.is_dir(),
    })
}

/// One touched path waiting to settle.
struct Pending {
    /// What `lstat` said at the last event (or check).
    stat: Option<Stat>,
    /// When to look again.
    due: Instant,
    /// Its quiet period (longer while it keeps changing).
    quiet: Duration,
    /// Written to since a writer last closed it.
    writing: bool,
}

enum Source {
    Native(#[allow(dead_code)] RecommendedWatcher),
    Poll(#[allow(dead_code)] PollWatcher),
}

struct Core {
    config: WatchConfig,
    rules: IgnoreRules,
    sink: Box<dyn FnMut(WatchEvent) -> bool + Send>,
    raw: Sender<Raw>,
    pending: HashMap<PathBuf, Pending>,
    /// Paths reported lately, when, and their quiet period then: one that
    /// changes again soon waits longer.
    recent: HashMap<PathBuf, (Instant, Duration)>,
    /// The source tells when a writer closes a file (inotify, not polling).
    close_events: bool,
    source: Option<Source>,
    /// Why it polls (`None`: it follows native events when it can): a
    /// limit hit holds until the root is set up again.
    polling: Option<PollCause>,
    state: Option<WatchState>,
    /// (device, inode) of the root when its watch was set up.
    root_id: Option<(u64, u64)>,
    next_root_check: Instant,
    next_rescan: Option<Instant>,
    rescan: bool,
    alive: bool,
}

impl Core {
    fn new(
        config: WatchConfig,
        sink: Box<dyn FnMut(WatchEvent) -> bool + Send>,
        raw: Sender<Raw>,
    ) -> Self {
        let now = Instant::now();
        Self {
            rules: IgnoreRules::with_extra(&config.root, &config.extra_ignores),
            next_rescan: (!config.rescan_every.is_zero()).then(|| now + config.rescan_every),
            polling: PollCause::at_start(&config),
            config,
            sink,
            raw,
            pending: HashMap::new(),
            recent: HashMap::new(),
            close_events: false,
            source: None,
            state: None,
            root_id: None,
            next_root_check: now + ROOT_CHECK,
            rescan: false,
            alive: true,
        }
    }

    fn emit(&mut self, event: WatchEvent) {
        if self.alive && !(self.sink)(event) {
            self.alive = false;
        }
    }

    fn set_state(&mut self, state: WatchState) {
        if self.state.as_ref() != Some(&state) {
            self.state = Some(state.clone());
            self.emit(WatchEvent::State(state));
        }
    }

    fn paused(&self) -> bool {
        matches!(self.state, Some(WatchState::Paused { .. }))
    }

    fn run(mut self, raw: Receiver<Raw>) {
        self.set_up();
        while self.alive {
            let timeout = self
                .next_wake()
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1));
            match raw.recv_timeout(timeout) {
                Ok(Raw::Stop) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(Raw::Event(e)) => self.on_event(e),
                Err(RecvTimeoutError::Timeout) => {}
            }
            // Drain what else is there (bounded, so dues are not starved).
            for _ in 0..10_000 {
                match raw.try_recv() {
                    Ok(Raw::Event(e)) => self.on_event(e),
                    Ok(Raw::Stop) => return,
                    Err(_) => break,
                }
            }
            let now = Instant::now();
            if now >= self.next_root_check {
                self.check_root();
            }
            if self.rescan && !self.paused() {
                self.rescan = false;
                self.emit(WatchEvent::Rescan);
            }
            if let Some(at) = self.next_rescan {
                if now >= at {
                    self.next_rescan = Some(now + self.config.rescan_every);
                    if !self.paused() {
                        self.emit(WatchEvent::Rescan);
                    }
                }
            }
            self.settle(Instant::now());
        }
    }

    fn next_wake(&self) -> Instant {
        let mut wake = self.next_root_check;
        if let Some(at) = self.next_rescan {
            wake = wake.min(at);
        }
        for p in self.pending.values() {
            wake = wake.min(p.due);
        }
        wake
    }

    /// (Re)start the event source on the root, or pause if it is missing.
    fn set_up(&mut self) {
        self.source = None;
        self.close_events = false;
        self.next_root_check = Instant::now() + ROOT_CHECK;
        let root = self.config.root.clone();
        let root_id = fs::metadata(&root).ok().filter(|m| m.is_dir()).map(|m| {
            let id = doppel_core::doc::FileIdentity::from_metadata(&m);
            (id.dev, id.inode)
        });
        let Some(root_id) = root_id else {
            self.pause();
            return;
        };
        self.root_id = Some(root_id);
        let handler = {
            let raw = self.raw.clone();
            move |e| {
                let _ = raw.send(Raw::Event(e));
            }
        };
        if let Some(most) = self
            .config
            .max_native_watches
            .filter(|&most| self.polling.is_none() && more_folders_than(&root, most))
        {
            self.polling = Some(PollCause::OwnLimit(most));
        }
        if self.polling.is_none() {
            let native = RecommendedWatcher::new(
                handler.clone(),
                notify::Config::default().with_follow_symlinks(false),
            )
            .and_then(|mut w| w.watch(&root, RecursiveMode::Recursive).map(|()| w));
            match native {
                Ok(w) => {
                    self.source = Some(Source::Native(w));
                    // inotify says when a writer closes a file.
                    self.close_events = cfg!(target_os = "linux");
                    self.set_state(WatchState::Watching);
                    return;
                }
                Err(e) if is_watch_limit(&e) => self.polling = Some(PollCause::SystemLimit),
                Err(e) => {
                    if !root.is_dir() {
                        self.pause();
                        return;
                    }
                    self.emit(WatchEvent::Warning(format!(
                        "cannot watch {}: {e}; polling instead",
                        root.display()
                    )));
                    self.polling = Some(PollCause::SystemLimit);
                }
            }
        }
        let interval = self.config.poll_interval;
        let poll = PollWatcher::new(
            handler,
            notify::Config::default()
                .with_poll_interval(interval)
                .with_follow_symlinks(false),
        )
        .and_then(|mut w| w.watch(&root, RecursiveMode::Recursive).map(|()| w));
        match poll {
            Ok(w) => {
                self.source = Some(Source::Poll(w));
                let cause = self.polling.unwrap_or(PollCause::SystemLimit);
                self.set_state(WatchState::Polling {
                    reason: cause.reason(interval),
                });
            }
            Err(e) => {
                if !root.is_dir() {
                    self.pause();
                } else {
                    self.emit(WatchEvent::Warning(format!(
                        "cannot poll {}: {e}; relying on periodic rescans",
                        root.display()
                    )));
                }
            }
        }
    }

    fn pause(&mut self) {
        self.source = None;
        self.pending.clear();
        self.root_id = None;
        let reason = format!(
            "{} is gone (deleted, moved or unmounted); the index is kept and watching \
             resumes when it is back",
            self.config.root.display()
        );
        self.set_state(WatchState::Paused { reason });
    }

    /// Pause when the root went away (or was replaced); resume when it is back.
    fn check_root(&mut self) {
        self.next_root_check = Instant::now() + ROOT_CHECK;
        let now_id = fs::metadata(&self.config.root)
            .ok()
            .filter(|m| m.is_dir())
            .map(|m| {
                let id = doppel_core::doc::FileIdentity::from_metadata(&m);
                (id.dev, id.inode)
            });
        match (now_id, self.paused()) {
            (None, false) => self.pause(),
            (Some(_), true) => {
                self.polling = PollCause::at_start(&self.config);
                self.set_up();
                if !self.paused() {
                    self.rescan = true;
                }
            }
            (Some(id), false) if Some(id) != self.root_id => {
                // Replaced by another folder: the old watches follow the old one.
                self.set_up();
                self.rescan = true;
            }
            _ => {}
        }
    }

    fn on_event(&mut self, event: notify::Result<notify::Event>) {
        self.on_event_at(event, Instant::now());
    }

    /// [`Core::on_event`] at the time `now` (tests give their own clock).
    fn on_event_at(&mut self, event: notify::Result<notify::Event>, now: Instant) {
        let event = match event {
            Ok(event) => event,
            Err(e) if is_watch_limit(&e) => {
                // A new folder could not be watched: poll, and rescan for
                // whatever was missed.
                if matches!(self.source, Some(Source::Native(_))) {
                    self.polling = Some(PollCause::SystemLimit);
                    self.set_up();
                    self.rescan = true;
                }
                return;
            }
            Err(e) => {
                if !matches!(e.kind, notify::ErrorKind::PathNotFound) {
                    self.emit(WatchEvent::Error(format!("watch error: {e}")));
                }
                return;
            }
        };
        if event.need_rescan() {
            self.rescan = true;
        }
        let writing = match event.kind {
            // A writer closed the file.
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => Some(false),
            // Opening and reading (doppel's own reads among them) change nothing.
            EventKind::Access(_) => return,
            EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any)
            | EventKind::Create(CreateKind::File) => Some(true),
            _ => None,
        }
        .filter(|_| self.close_events);
        if self.paused() {
            return;
        }
        for path in event.paths {
            if path == self.config.root {
                self.next_root_check = Instant::now();
                continue;
            }
            if !path.starts_with(&self.config.root) {
                continue;
            }
            // A changed ignore file or book marker changes what the
            // folder's documents are: the whole folder is looked at again.
            let name = path.file_name();
            if name == Some(OsStr::new(IGNORE_FILE)) || name == Some(OsStr::new(BOOK_MARKER)) {
                self.rules.invalidate();
                self.rescan = true;
                continue;
            }
            self.touch_at(path, now, writing);
        }
    }

    /// Note that `path` changed: look at it again after the quiet period.
    fn touch(&mut self, path: PathBuf) {
        self.touch_at(path, Instant::now(), None);
    }

    /// [`Core::touch`] at `now`; `writing` says whether a writer still has
    /// it open (`None`: as before).
    fn touch_at(&mut self, path: PathBuf, now: Instant, writing: Option<bool>) {
        let now_stat = stat(&path);
        if self
            .rules
            .is_ignored(&path, now_stat.is_some_and(|s| s.dir))
        {
            return;
        }
        if self.pending.len() >= self.config.max_pending && !self.pending.contains_key(&path) {
            // A storm: a full reconcile is cheaper than tracking each path.
            self.pending.clear();
            self.rescan = true;
            return;
        }
        let (quiet, was_writing) = match self.pending.get(&path) {
            Some(p) => (p.quiet, p.writing),
            None => match self.recent.get(&path) {
                // Reported lately and changing again: a slow writer.
                Some(&(at, quiet)) if now.saturating_duration_since(at) <= MAX_QUIET => {
                    (longer(quiet), false)
                }
                _ => (self.config.quiet, false),
            },
        };
        self.pending.insert(
            path,
            Pending {
                stat: now_stat,
                due: now + quiet,
                quiet,
                writing: writing.unwrap_or(was_writing),
            },
        );
    }

    /// Report every due path that has settled; look again at the others.
    fn settle(&mut self, now: Instant) {
        if self.pending.values().all(|p| p.due > now) {
            return;
        }
        if !self.config.root.is_dir() {
            // Never report removals for a vanished root.
            self.pause();
            return;
        }
        let mut due: Vec<PathBuf> = self
            .pending
            .iter()
            .filter(|(_, p)| p.due <= now)
            .map(|(path, _)| path.clone())
            .collect();
        due.sort();
        for path in due {
            let current = stat(&path);
            let Some(entry) = self.pending.get_mut(&path) else {
                continue;
            };
            match current {
                None => {
                    self.pending.remove(&path);
                    self.emit(WatchEvent::Removed(path));
                }
                Some(s) if s.dir => {
                    self.pending.remove(&path);
                    self.walk(&path);
                }
                Some(s) if entry.stat == Some(s) && entry.writing && entry.quiet < MAX_QUIET => {
                    // Unchanged, but a writer still has it open: wait longer.
                    entry.quiet = longer(entry.quiet);
                    entry.due = now + entry.quiet;
                }
                Some(s) if entry.stat == Some(s) => {
                    let quiet = entry.quiet;
                    self.pending.remove(&path);
                    self.recent.insert(path.clone(), (now, quiet));
                    self.emit(WatchEvent::Changed(path));
                }
                Some(s) => {
                    // Still changing: look again after a longer wait.
                    entry.stat = Some(s);
                    entry.quiet = longer(entry.quiet);
                    entry.due = now + entry.quiet;
                }
            }
        }
        self.recent
            .retain(|_, (at, _)| now.saturating_duration_since(*at) <= MAX_QUIET);
    }

    /// A folder appeared: every file in it is touched (its own events may
    /// have been raced past before notify watched it).
    fn walk(&mut self, folder: &Path) {
        self.rules.invalidate();
        let mut stack = vec![folder.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    if dir.exists() {
                        let rel = relative(&self.config.root, &dir);
                        self.emit(WatchEvent::Warning(format!(
                            "cannot read folder {rel}: {e}"
                        )));
                    }
                    continue;
                }
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if self.rules.is_ignored(&path, is_dir) {
                    continue;
                }
                if is_dir {
                    stack.push(path);
                } else {
                    self.touch(path);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
