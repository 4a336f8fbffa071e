//! The UI model: everything the screen shows, as plain data. No terminal,
//! no channels, no clock — the loop feeds time in through
//! [`super::action::Action::Tick`], so the whole model is testable.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use super::diff::DiffState;
use crate::text::doc_path;
use doppel_core::doc::{ordered_pair, CuratorVerdict, DocPath};
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{EngineConfig, Thresholds};
use doppel_index::worker::protocol::{
    ClusterView, MemberView, PairDetail, Progress, Snapshot, WatchState,
};
use doppel_index::worker::Command;
use doppel_pairing::cluster::{ClusterBy, ClusterMode};

mod thresholds;
pub use thresholds::{
    limits, threshold_from_similarity, threshold_similarity, Limits, ThresholdsState,
};

/// The screens, in tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// Clusters and their members.
    Clusters,
    /// One pair's scores.
    Pair,
    /// One pair's side-by-side diff.
    Diff,
    /// Thresholds, cluster settings and the histogram.
    Thresholds,
    /// Skipped files and why.
    Skipped,
    /// What happened.
    Log,
    /// Every document, its facts and its nearest neighbours.
    Documents,
}

impl Screen {
    /// Every screen, in tab order.
    pub const ALL: [Screen; 7] = [
        Screen::Clusters,
        Screen::Pair,
        Screen::Diff,
        Screen::Thresholds,
        Screen::Skipped,
        Screen::Log,
        Screen::Documents,
    ];

    /// Its tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Screen::Clusters => "Clusters",
            Screen::Pair => "Pair",
            Screen::Diff => "Diff",
            Screen::Thresholds => "Thresholds",
            Screen::Skipped => "Skipped",
            Screen::Log => "Log",
            Screen::Documents => "Documents",
        }
    }

    /// The digit that shows this screen.
    pub fn key(self) -> char {
        match self {
            Screen::Clusters => '1',
            Screen::Pair => '2',
            Screen::Diff => '3',
            Screen::Thresholds => '4',
            Screen::Skipped => '5',
            Screen::Log => '6',
            Screen::Documents => '7',
        }
    }
}

/// Which list of the clusters screen has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The cluster list.
    Clusters,
    /// The selected cluster's members.
    Members,
}

/// Cluster list order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Largest first.
    Size,
    /// Weakest link first (the clusters most worth checking).
    Weakest,
    /// Most recently arrived member first.
    Newest,
}

impl SortKey {
    /// The order after this one.
    pub fn next(self) -> Self {
        match self {
            SortKey::Size => SortKey::Weakest,
            SortKey::Weakest => SortKey::Newest,
            SortKey::Newest => SortKey::Size,
        }
    }

    /// Its name on screen.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Size => "size",
            SortKey::Weakest => "weakest link",
            SortKey::Newest => "newest",
        }
    }
}

/// A one-line text input at the bottom of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    /// Filter the cluster list by file name (applied as typed).
    Filter {
        /// What is typed so far.
        input: String,
    },
    /// Export clusters and pairs; the input is a path prefix.
    Export {
        /// What is typed so far.
        input: String,
    },
    /// Search both sides of the diff (run on Enter).
    Search {
        /// What is typed so far.
        input: String,
    },
    /// The quarantine folder files move to (asked once per session when
    /// the config names none).
    Quarantine {
        /// What is typed so far.
        input: String,
    },
}

/// How much a log line matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Something happened.
    Info,
    /// Worth a look, not a failure.
    Warn,
    /// Something failed.
    Error,
}

/// One line of the log screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Time since the UI started.
    pub at: Duration,
    /// How much it matters.
    pub level: Level,
    /// What happened.
    pub text: String,
}

/// Log lines kept (older ones are dropped).
pub const LOG_CAP: usize = 1000;

/// The pair screen's state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PairState {
    /// The pair asked for (A, B).
    pub requested: Option<(DocPath, DocPath)>,
    /// Answers computed before this generation are stale.
    pub min_generation: u64,
    /// The worker's answer, once it came.
    pub detail: Option<Arc<PairDetail>>,
    /// Selected row of the score table.
    pub row: usize,
    /// Rows of the selected row's reason scrolled past.
    pub why_scroll: usize,
    /// The verdict history shows in place of the reason (`v`).
    pub history: bool,
}

/// A "not duplicate" sent and not yet seen in a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// One file of the pair.
    pub a: DocPath,
    /// The other.
    pub b: DocPath,
    /// Its number among the verdicts sent (see
    /// [`doppel_index::worker::protocol::Snapshot::verdicts_applied`]).
    pub sent: u64,
}

/// A review action's inverse, for undo.
#[derive(Debug, Clone, PartialEq)]
pub struct UndoEntry {
    /// What undoes it (several for a whole cluster's verdicts).
    pub commands: Vec<Command>,
    /// What it did, for the log.
    pub label: String,
}

/// Work for the loop that is not a worker command.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Write `<prefix>-clusters.csv`, `<prefix>-pairs.csv`, `<prefix>.json`.
    Export {
        /// The prefix typed (relative to the current folder).
        prefix: String,
    },
    /// Restore the terminal, stop the process, take the terminal again.
    Suspend,
    /// Write `thresholds` into the config file at `path`.
    SaveThresholds {
        /// The config file.
        path: std::path::PathBuf,
        /// What to write.
        thresholds: Thresholds,
    },
}

/// Everything the UI shows.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The watched folder, for display.
    pub root: String,
    /// How the screen is styled.
    pub theme: super::ui::Theme,
    /// Default export prefix (outside the watched folder).
    pub export_prefix: String,
    /// Algorithms shown in tables and the thresholds panel, in order.
    pub algorithms: Vec<AlgorithmId>,
    /// How far each threshold can move.
    pub limits: BTreeMap<AlgorithmId, Limits>,
    /// The configured thresholds (what a reset goes back to).
    pub defaults: Thresholds,
    /// Terminal columns.
    pub width: u16,
    /// Terminal rows.
    pub height: u16,
    /// The screen shown.
    pub screen: Screen,
    /// The help overlay is open, scrolled by this many lines.
    pub help: Option<usize>,
    /// The prompt being typed, if any.
    pub prompt: Option<Prompt>,
    /// Which list of the clusters screen has the keyboard.
    pub focus: Focus,
    /// The worker's latest snapshot.
    pub snapshot: Option<Arc<Snapshot>>,
    /// Indexes into the snapshot's clusters after filter and sort.
    pub view: Vec<usize>,
    /// The cluster list's order.
    pub sort: SortKey,
    /// The cluster list's filter (file names containing it).
    pub filter: String,
    /// The selected row of the cluster list (an index into `view`).
    pub cluster_sel: usize,
    /// The cluster list's first row shown.
    pub cluster_offset: usize,
    /// The selected member.
    pub member_sel: usize,
    /// The members list's first row shown.
    pub member_offset: usize,
    /// The pair screen.
    pub pair: PairState,
    /// The diff screen.
    pub diff: DiffState,
    /// The documents screen and the facts read about files.
    pub docs: super::documents::DocsState,
    /// The thresholds screen and the spec asked for.
    pub thresholds: ThresholdsState,
    /// The selected skipped file.
    pub skipped_sel: usize,
    /// The skipped list's first row shown.
    pub skipped_offset: usize,
    /// Lines from the end of the log that are scrolled past (0 = follow).
    pub log_back: usize,
    /// How far the worker's pass is.
    pub progress: Option<Progress>,
    /// How the folder is being followed.
    pub watch: Option<WatchState>,
    /// The worker paused (storage, an unreachable database) and has not
    /// resumed: the next "watching" says it resumed.
    pub paused: bool,
    /// What the status bar says last happened.
    pub last_event: Option<String>,
    /// The outcome of the curator's last action, or a problem, shown whole
    /// on the message line above the status bar until the next key or click.
    pub notice: Option<(Level, String)>,
    /// The log, at most [`LOG_CAP`] lines.
    pub log: VecDeque<LogLine>,
    /// Curator verdicts set or seen this session, by ordered pair.
    pub verdicts: BTreeMap<(DocPath, DocPath), Option<CuratorVerdict>>,
    /// Keeper marks set this session and not yet in a snapshot.
    pub keeper_overrides: BTreeMap<DocPath, bool>,
    /// Verdict commands sent to the worker this session.
    pub verdicts_sent: u64,
    /// "Not duplicate" verdicts whose outcome the curator is still to be
    /// told (see `review::check_splits`).
    pub splits: Vec<Split>,
    /// The config file `S` saves thresholds to (`None`: no config folder).
    pub config_file: Option<std::path::PathBuf>,
    /// `q` was pressed once with tuned thresholds unsaved.
    pub quit_asked: bool,
    /// The member chosen (`a`) as the A of the next pair opened in its
    /// cluster, instead of the representative.
    pub anchor: Option<DocPath>,
    /// Files removed from the folder this session and not back since: the
    /// pair and diff screens mark them, as they show what they were.
    pub deleted: BTreeSet<DocPath>,
    /// What the curator can undo, last first.
    pub undo: Vec<UndoEntry>,
    /// Moving marked files to quarantine, and undoing it.
    pub act: super::acting::ActState,
    /// The boilerplate overlay, while open (`b`).
    pub boilerplate: Option<super::boilerplate::BoilerplateView>,
    /// Time since the UI started.
    pub elapsed: Duration,
    /// Timer ticks so far (the spinner).
    pub ticks: u64,
    /// The worker has not stopped.
    pub worker_running: bool,
    /// The loop ends.
    pub quit: bool,
    /// Work for the loop (exports), taken by it.
    pub effects: Vec<Effect>,
    /// Updates dropped as stale (for tests and the log).
    pub dropped: u64,
    /// The snapshot's histogram values per algorithm, sorted (NaN left
    /// out), so counts at any threshold are a binary search.
    pub sorted_scores: doppel_pairing::library::Histograms,
}

/// A pair key independent of order.
pub fn pair_key(a: &DocPath, b: &DocPath) -> (DocPath, DocPath) {
    ordered_pair(a, b)
}

impl AppState {
    /// A fresh model for the folder `root` under `config`.
    pub fn new(root: impl Into<String>, config: &EngineConfig) -> Self {
        let algorithms: Vec<AlgorithmId> = AlgorithmId::ALL
            .into_iter()
            .filter(|id| config.enabled.contains(id))
            .collect();
        Self {
            root: root.into(),
            theme: Default::default(),
            export_prefix: "doppel-export".to_owned(),
            algorithms,
            limits: limits(config),
            defaults: config.thresholds.clone(),
            width: 80,
            height: 24,
            screen: Screen::Clusters,
            help: None,
            prompt: None,
            focus: Focus::Clusters,
            snapshot: None,
            view: Vec::new(),
            sort: SortKey::Size,
            filter: String::new(),
            cluster_sel: 0,
            cluster_offset: 0,
            member_sel: 0,
            member_offset: 0,
            pair: PairState::default(),
            diff: DiffState::default(),
            docs: Default::default(),
            thresholds: ThresholdsState {
                thresholds: config.thresholds.clone(),
                by: ClusterBy::Fusion,
                mode: ClusterMode::Components,
                awaiting: false,
                selected: 0,
                about: false,
            },
            skipped_sel: 0,
            skipped_offset: 0,
            log_back: 0,
            progress: None,
            watch: None,
            paused: false,
            last_event: None,
            notice: None,
            log: VecDeque::new(),
            verdicts: BTreeMap::new(),
            keeper_overrides: BTreeMap::new(),
            deleted: BTreeSet::new(),
            anchor: None,
            verdicts_sent: 0,
            splits: Vec::new(),
            config_file: None,
            quit_asked: false,
            undo: Vec::new(),
            act: Default::default(),
            boilerplate: None,
            elapsed: Duration::ZERO,
            ticks: 0,
            worker_running: true,
            quit: false,
            effects: Vec::new(),
            dropped: 0,
            sorted_scores: Default::default(),
        }
    }

    /// How far `id`'s threshold can move.
    pub fn limits_of(&self, id: AlgorithmId) -> Limits {
        self.limits.get(&id).copied().unwrap_or(Limits {
            min: 0.0,
            max: 1.0,
            step: 0.01,
        })
    }

    /// Add a line to the log (the oldest goes past [`LOG_CAP`]).
    pub fn log(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        if self.log.len() >= LOG_CAP {
            self.log.pop_front();
        }
        self.log.push_back(LogLine {
            at: self.elapsed,
            level,
            text,
        });
    }

    /// Log and show in the status bar.
    pub fn event(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        self.last_event = Some(text.clone());
        self.log(level, text);
    }

    /// Log and show whole on the message line, for the curator to read.
    pub fn notify(&mut self, level: Level, text: impl Into<String>) {
        let text = text.into();
        self.notice = Some((level, text.clone()));
        self.event(level, text);
    }

    /// Show whole on the message line, without logging (a threshold moved).
    pub fn say(&mut self, text: impl Into<String>) {
        let text = text.into();
        self.notice = Some((Level::Info, text.clone()));
        self.last_event = Some(text);
    }

    /// The snapshot's clusters (none before the first).
    pub fn clusters(&self) -> &[Arc<ClusterView>] {
        self.snapshot.as_deref().map_or(&[], |s| &s.clusters)
    }

    /// The snapshot's skipped files and why.
    pub fn skipped(&self) -> &[(DocPath, String)] {
        self.snapshot.as_deref().map_or(&[], |s| &s.skipped)
    }

    /// The cluster the list has selected.
    pub fn selected_cluster(&self) -> Option<&ClusterView> {
        let i = *self.view.get(self.cluster_sel)?;
        self.clusters().get(i).map(|c| &**c)
    }

    /// The member the members list has selected.
    pub fn selected_member(&self) -> Option<&MemberView> {
        self.selected_cluster()?.members.get(self.member_sel)
    }

    /// The pair the cluster screen points at: the representative and the
    /// selected member (or the second member when the representative or
    /// the cluster itself is selected).
    pub fn cluster_pair(&self) -> Option<(DocPath, DocPath)> {
        let c = self.selected_cluster()?;
        if let (Focus::Members, Some(anchor)) = (self.focus, self.anchor_in(c)) {
            let other = c.members.get(self.member_sel)?;
            if other.path != *anchor {
                return Some((anchor.clone(), other.path.clone()));
            }
        }
        let rep = c.members.first()?;
        let other = match self.focus {
            Focus::Members if self.member_sel > 0 => c.members.get(self.member_sel)?,
            _ => c.members.get(1)?,
        };
        Some((rep.path.clone(), other.path.clone()))
    }

    /// The anchor (`a`), when it is a member of `c`.
    pub fn anchor_in(&self, c: &ClusterView) -> Option<&DocPath> {
        self.anchor
            .as_ref()
            .filter(|a| c.members.iter().any(|m| &m.path == *a))
    }

    /// The pair a review action applies to on the current screen.
    pub fn active_pair(&self) -> Option<(DocPath, DocPath)> {
        match self.screen {
            Screen::Pair => self.pair.requested.clone(),
            Screen::Diff => self.diff.requested.clone(),
            _ => self.cluster_pair(),
        }
    }

    /// The document a keeper toggle applies to: the selected member (the
    /// representative when the cluster list has focus).
    pub fn active_document(&self) -> Option<&MemberView> {
        match self.focus {
            Focus::Members => self.selected_member(),
            Focus::Clusters => self.selected_cluster()?.members.first(),
        }
    }

    /// Whether `m` is its cluster's keeper, counting marks not yet in a
    /// snapshot.
    pub fn is_keeper(&self, m: &MemberView) -> bool {
        self.keeper_overrides
            .get(&m.path)
            .copied()
            .unwrap_or(m.keeper)
    }

    /// Whether the open pair or diff (on `screen`) shows `path`.
    pub fn shows(&self, screen: Screen, path: &DocPath) -> bool {
        let requested = match screen {
            Screen::Pair => &self.pair.requested,
            Screen::Diff => &self.diff.requested,
            _ => return false,
        };
        requested
            .as_ref()
            .is_some_and(|(a, b)| a == path || b == path)
    }

    /// The curator's verdict on member `m` of `c` and its representative:
    /// this session's mark (or undo) over the snapshot's.
    pub fn member_verdict(&self, c: &ClusterView, m: &MemberView) -> Option<CuratorVerdict> {
        let rep = c.members.first()?;
        if rep.path == m.path {
            return None;
        }
        match self.verdicts.get(&pair_key(&rep.path, &m.path)) {
            Some(v) => *v,
            None => m.verdict,
        }
    }

    /// Whether the curators' verdicts on member `m` of `c` and its
    /// representative differ, as the snapshot says (a mark of this session
    /// shows instead until the next snapshot).
    pub fn member_disputed(&self, c: &ClusterView, m: &MemberView) -> bool {
        let Some(rep) = c.members.first() else {
            return false;
        };
        m.disputed && !self.verdicts.contains_key(&pair_key(&rep.path, &m.path))
    }

    /// How many members of `c` the curator has judged against its
    /// representative, of how many there are to judge.
    pub fn reviewed(&self, c: &ClusterView) -> (usize, usize) {
        let others = &c.members[c.members.len().min(1)..];
        let judged = others
            .iter()
            .filter(|m| self.member_verdict(c, m).is_some())
            .count();
        (judged, others.len())
    }

    /// The curator's verdict on a pair, as far as this session knows.
    pub fn verdict(&self, a: &DocPath, b: &DocPath) -> Option<CuratorVerdict> {
        if let Some(v) = self.verdicts.get(&pair_key(a, b)) {
            return *v;
        }
        self.pair
            .detail
            .as_deref()
            .filter(|d| pair_key(&d.a, &d.b) == pair_key(a, b))
            .and_then(|d| d.verdict)
    }

    /// This session's curator's own verdict on a pair: their mark (or
    /// undo) of this session, else theirs in the pair's detail when it is
    /// on screen (one from before curators were recorded counts as theirs),
    /// else what [`AppState::verdict`] knows (with one curator, the same).
    pub fn my_verdict(&self, a: &DocPath, b: &DocPath) -> Option<CuratorVerdict> {
        if let Some(v) = self.verdicts.get(&pair_key(a, b)) {
            return *v;
        }
        let detail = self
            .pair
            .detail
            .as_deref()
            .filter(|d| pair_key(&d.a, &d.b) == pair_key(a, b));
        match detail {
            Some(d) if d.curators.shared() => d
                .curators
                .verdicts
                .iter()
                .rev()
                .find(|m| m.curator == d.curators.you || m.curator.is_empty())
                .map(|m| m.verdict),
            _ => self.verdict(a, b),
        }
    }

    /// The spec the worker last answered with differs from what was asked.
    pub fn spec_pending(&self) -> bool {
        self.thresholds.awaiting
    }

    /// Indexed documents in no cluster whose name matches the filter
    /// (none without a filter).
    pub fn outside_matches(&self) -> Vec<&DocPath> {
        let needle = self.filter.to_lowercase();
        if needle.is_empty() {
            return Vec::new();
        }
        self.snapshot.as_deref().map_or(Vec::new(), |s| {
            s.unclustered
                .iter()
                .filter(|p| doc_path(p).to_lowercase().contains(&needle))
                .collect()
        })
    }

    /// Re-derive the visible cluster order from filter and sort.
    pub fn rebuild_view(&mut self) {
        let needle = self.filter.to_lowercase();
        let clusters = self.clusters();
        let mut view: Vec<usize> = (0..clusters.len())
            .filter(|&i| {
                needle.is_empty()
                    || clusters[i]
                        .members
                        .iter()
                        .any(|m| doc_path(&m.path).to_lowercase().contains(&needle))
            })
            .collect();
        let key_path = |i: usize| clusters[i].members.first().map(|m| &m.path);
        match self.sort {
            SortKey::Size => view.sort_by(|&x, &y| {
                clusters[y]
                    .members
                    .len()
                    .cmp(&clusters[x].members.len())
                    .then_with(|| x.cmp(&y))
            }),
            SortKey::Weakest => view.sort_by(|&x, &y| {
                let wx = clusters[x].weakest.unwrap_or(1.0);
                let wy = clusters[y].weakest.unwrap_or(1.0);
                wx.total_cmp(&wy)
                    .then_with(|| key_path(x).cmp(&key_path(y)))
            }),
            SortKey::Newest => view.sort_by(|&x, &y| {
                clusters[y]
                    .newest
                    .cmp(&clusters[x].newest)
                    .then_with(|| x.cmp(&y))
            }),
        }
        self.view = view;
    }

    /// Kept pairs passing `id` at the asked threshold, from the histogram.
    pub fn passing_pairs(&self, id: AlgorithmId) -> Option<usize> {
        self.snapshot.as_ref()?;
        let values = self.sorted_scores.get(&id)?;
        let lim = self.limits_of(id);
        let t = threshold_similarity(id, self.thresholds.thresholds.get(id), &lim);
        Some(values.len() - values.partition_point(|&v| v < t - 1e-9))
    }

    /// The snapshot's histogram values, sorted. The worker sends them
    /// sorted (shared, not copied); anything else (NaN, disorder) is
    /// cleaned and sorted here once per snapshot.
    pub fn sort_scores(&mut self) {
        let Some(snapshot) = self.snapshot.as_deref() else {
            self.sorted_scores = Default::default();
            return;
        };
        let clean = snapshot
            .histograms
            .values()
            .all(|v| v.is_sorted_by(|a, b| a <= b));
        self.sorted_scores = if clean {
            snapshot.histograms.clone()
        } else {
            std::sync::Arc::new(
                snapshot
                    .histograms
                    .iter()
                    .map(|(id, v)| {
                        let mut v: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
                        v.sort_unstable_by(f64::total_cmp);
                        (*id, v)
                    })
                    .collect(),
            )
        };
    }
}
