//! The typed messages between the worker (which owns the index) and any
//! front end: [`Command`]s in, [`Update`]s out. Every state-bearing update
//! carries the generation it was computed for, so a front end can drop
//! answers to questions it no longer asks (a slider moved on, another pair
//! was selected).

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::boilerplate::SideBoilerplate;
use crate::index::IndexError;
pub use crate::watch::WatchState;
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::{PairScores, Thresholds};
use doppel_pairing::cluster::{ClusterBy, ClusterMode, ClusterSpec};
use doppel_pairing::library::{CuratorMark, Histograms};
use doppel_store::VerdictChange;
pub use shown::{line_end_breaks, shown_chars, word_chars};

/// What a front end asks of the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Move one algorithm's threshold (native unit); re-clusters at once
    /// from kept pairs, or re-gathers candidates first when below a floor.
    SetThreshold {
        /// The algorithm.
        id: AlgorithmId,
        /// Its new threshold.
        value: f64,
    },
    /// Cluster by another verdict (fusion or one algorithm).
    SetClusterBy(ClusterBy),
    /// Group links as components or stars.
    SetMode(ClusterMode),
    /// Every algorithm's score for a pair, with exact measures and reasons.
    RequestPair {
        /// One document.
        a: DocPath,
        /// The other.
        b: DocPath,
    },
    /// A side-by-side diff of two documents, computed within `deadline`.
    RequestDiff {
        /// The left side.
        a: DocPath,
        /// The right side.
        b: DocPath,
        /// How long the diff may take before a coarser one is sent.
        deadline: Duration,
    },
    /// A curator's verdict on a pair (`None` clears it).
    SetPairVerdict {
        /// One document.
        a: DocPath,
        /// The other.
        b: DocPath,
        /// The decision, or `None` to clear it.
        verdict: Option<CuratorVerdict>,
    },
    /// Mark (or unmark) a document as the one of its cluster to keep.
    SetKeeper {
        /// The document.
        path: DocPath,
        /// Mark (`true`) or unmark.
        keeper: bool,
    },
    /// The plan of moving every marked file of the clusters of snapshot
    /// `generation` (1-based ids in snapshot order; empty: all) to the
    /// quarantine folder `to` ([`Update::Plan`] answers). Nothing moves.
    RequestPlan {
        /// The snapshot the ids are positions in.
        generation: u64,
        /// The clusters, 1-based; empty for every cluster.
        clusters: Vec<usize>,
        /// The quarantine folder (refused inside the watched folder).
        to: std::path::PathBuf,
    },
    /// Move the ready files of a plan the curator confirmed to `to`, then
    /// walk the folder again ([`Update::Quarantined`] answers).
    Quarantine {
        /// The plan shown.
        plan: Box<crate::act::Plan>,
        /// The quarantine folder.
        to: std::path::PathBuf,
    },
    /// Put back every file a quarantine journal moved, then walk the
    /// folder again ([`Update::Restored`] answers).
    UndoQuarantine {
        /// The journal.
        journal: std::path::PathBuf,
    },
    /// What a curator weighs about each of `paths` (size, date, encoding,
    /// words, text quality), read from the files ([`Update::Facts`]
    /// answers, one or more batches).
    RequestFacts {
        /// The documents.
        paths: Vec<DocPath>,
    },
    /// The kept pairs of one document, nearest first, judged under the
    /// current spec ([`Update::Neighbours`] answers).
    RequestNeighbours {
        /// The document.
        path: DocPath,
    },
    /// The curator's "not boilerplate" (`overrule` true) on passage
    /// `passage` (0-based) of snapshot `generation`'s boilerplate list, or
    /// its undoing; applied at once (the documents it moves are read
    /// again), and a new snapshot follows. Refused when the list changed
    /// since.
    SetBoilerplateOverruled {
        /// The snapshot the list is from.
        generation: u64,
        /// The passage's position in [`Snapshot::boilerplate`]'s list.
        passage: usize,
        /// Not boilerplate (`true`) or boilerplate again.
        overrule: bool,
    },
    /// Save these thresholds for everyone reviewing the collection, when
    /// the index is a team store ([`Update::TeamThresholds`] answers;
    /// nothing happens on a file index, which is one curator's).
    ShareThresholds {
        /// The thresholds, each in its algorithm's own unit.
        thresholds: doppel_core::engine::Thresholds,
    },
    /// Walk the whole folder again.
    Rescan,
    /// Close the index and stop ([`Update::Stopped`] follows).
    Quit,
}

/// What the worker tells a front end.
#[derive(Debug, Clone)]
pub enum Update {
    /// How far a pass over the folder is.
    Progress(Progress),
    /// The clusters under the current spec.
    Snapshot(Arc<Snapshot>),
    /// The detail of the pair last asked for.
    Pair(Arc<PairDetail>),
    /// The diff last asked for.
    Diff(Arc<DiffView>),
    /// The plan asked for with [`Command::RequestPlan`].
    Plan(Arc<PlanView>),
    /// Facts asked for with [`Command::RequestFacts`].
    Facts(Arc<Vec<DocumentFacts>>),
    /// The neighbours asked for with [`Command::RequestNeighbours`].
    Neighbours(Arc<Neighbours>),
    /// Files moved to a quarantine folder.
    Quarantined(Arc<crate::act::Outcome>),
    /// Files put back from a quarantine journal.
    Restored(Arc<crate::act::UndoReport>),
    /// A file was read and fingerprinted.
    FileIndexed {
        /// The document.
        path: DocPath,
    },
    /// A document is gone (or now ignored).
    FileRemoved {
        /// The document.
        path: DocPath,
    },
    /// A file is not a document.
    FileSkipped {
        /// The file.
        path: DocPath,
        /// Why, in words.
        reason: String,
    },
    /// How the folder is being followed.
    Watch(WatchState),
    /// A problem worth showing, of a kind a front end can act on (never
    /// fatal to the worker unless [`Update::Stopped`] follows).
    Error(WorkerError),
    /// Thresholds saved for the team on a team store: by this worker's
    /// curator ([`Command::ShareThresholds`]), or by another curator, or
    /// found saved when the worker started, in which case they are
    /// applied (the next snapshot's spec has them).
    TeamThresholds {
        /// The thresholds and who saved them when.
        saved: Arc<doppel_store::SharedThresholds>,
        /// Saved through this worker.
        by_you: bool,
    },
    /// Something the curator should know that is not a failure (an index
    /// moved aside and started afresh, polling instead of watching, a file
    /// that keeps changing).
    Warning(String),
    /// The worker has stopped (after `Quit`, or because it cannot go on).
    Stopped,
}

/// A plan of moving marked files, for the snapshot it was asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanView {
    /// The snapshot the plan's cluster ids are positions in.
    pub generation: u64,
    /// The quarantine folder, as it will be written to.
    pub to: std::path::PathBuf,
    /// The files that would move and those that stay.
    pub plan: crate::act::Plan,
}

/// What kind of problem an [`Update::Error`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The disk or the index's page limit is full; what failed was rolled
    /// back and is tried again later.
    StorageFull,
    /// Another process held the index too long.
    Busy,
    /// The folder is gone (deleted, moved or unmounted); the index is kept
    /// as it was until it is back.
    FolderUnavailable,
    /// A file could not be read (for a diff).
    File,
    /// The index could not be opened or written otherwise.
    Index,
    /// The watcher failed; rescans go on.
    Watch,
    /// A request the worker cannot answer (a pair that is not indexed, a
    /// threshold that is not a number).
    Request,
    /// The worker itself failed.
    Worker,
}

impl ErrorKind {
    /// The kind's name in the JSONL `error` event (`storage-full`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::StorageFull => "storage-full",
            ErrorKind::Busy => "busy",
            ErrorKind::FolderUnavailable => "folder-unavailable",
            ErrorKind::File => "file",
            ErrorKind::Index => "index",
            ErrorKind::Watch => "watch",
            ErrorKind::Request => "request",
            ErrorKind::Worker => "worker",
        }
    }
}

/// A problem the worker reports: its kind and, in words, what happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkerError {
    /// What kind of problem.
    pub kind: ErrorKind,
    /// The message for people.
    pub message: String,
}

impl WorkerError {
    /// A problem of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// An index failure, classified, its message after `context` (if any).
    pub fn from_index(error: &IndexError, context: Option<&str>) -> Self {
        let kind = if error.is_storage_full() {
            ErrorKind::StorageFull
        } else if error.is_busy() {
            ErrorKind::Busy
        } else if matches!(error, IndexError::Unavailable { .. }) {
            ErrorKind::FolderUnavailable
        } else {
            ErrorKind::Index
        };
        let message = match context {
            Some(context) => format!("{context}: {error}"),
            None => error.to_string(),
        };
        Self { kind, message }
    }
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The `event` of each kind of line `doppel watch --jsonl` prints (one
/// per [`Update`] it reports, plus `cluster` and `cluster-gone` for the
/// clusters that form, change or dissolve between snapshots). README's list
/// is held to [`jsonl_event::ALL`] by a test.
pub mod jsonl_event {
    /// A file was indexed.
    pub const INDEXED: &str = "indexed";
    /// A document is gone.
    pub const REMOVED: &str = "removed";
    /// A file is not a document (with the reason).
    pub const SKIPPED: &str = "skipped";
    /// A cluster formed or changed (members and representative).
    pub const CLUSTER: &str = "cluster";
    /// A cluster dissolved (its members).
    pub const CLUSTER_GONE: &str = "cluster-gone";
    /// After each pass: documents, clusters, skipped.
    pub const SNAPSHOT: &str = "snapshot";
    /// How far a pass is.
    pub const PROGRESS: &str = "progress";
    /// How the folder is followed.
    pub const WATCH: &str = "watch";
    /// A problem, with its kind.
    pub const ERROR: &str = "error";
    /// Not a failure, worth knowing.
    pub const WARNING: &str = "warning";
    /// Thresholds saved for the team (who, when, the values), now applied.
    pub const THRESHOLDS: &str = "thresholds";
    /// The last line.
    pub const STOPPED: &str = "stopped";
    /// Every one of them.
    pub const ALL: [&str; 12] = [
        INDEXED,
        REMOVED,
        SKIPPED,
        CLUSTER,
        CLUSTER_GONE,
        SNAPSHOT,
        PROGRESS,
        WATCH,
        ERROR,
        WARNING,
        THRESHOLDS,
        STOPPED,
    ];
}

/// Where the worker is in a pass over the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Opening the index.
    Opening,
    /// Walking the folder.
    Listing,
    /// Reading new and changed files.
    Reading,
    /// Re-gathering candidates or clustering.
    Clustering,
    /// Waiting for changes.
    Idle,
}

/// How far a pass over the folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Progress {
    /// What the worker is doing.
    pub stage: Stage,
    /// Files (or documents) done ...
    pub done: usize,
    /// ... of this many.
    pub total: usize,
    /// Bytes read so far.
    pub bytes: u64,
}

/// One member of a cluster, scored against the representative.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberView {
    /// The document.
    pub path: DocPath,
    /// Scores against the representative (`None` for the representative,
    /// or a member linked only through another member).
    pub scores: Option<PairScores>,
    /// Algorithms whose threshold the member passes against the representative.
    pub passing: Vec<AlgorithmId>,
    /// The curator marked it as its cluster's keeper.
    pub keeper: bool,
    /// The verdict the curators agree on for it and the representative
    /// (`None` for the representative, not judged yet, or disputed).
    pub verdict: Option<CuratorVerdict>,
    /// The curators' verdicts on it and the representative differ.
    pub disputed: bool,
}

/// A cluster as a front end shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterView {
    /// Representative first.
    pub members: Vec<MemberView>,
    /// Strength of the weakest link in [0, 1].
    pub weakest: Option<f64>,
    /// Algorithms that pass on every link.
    pub agreeing: Vec<AlgorithmId>,
    /// Some algorithm passes on some links and not on others.
    pub disagreement: bool,
    /// Pairs of its members the curators' verdicts differ on.
    pub disputed: usize,
    /// Arrival order of the newest member (for "sort by newest").
    pub newest: u64,
}

/// The clusters and counts a front end shows, for one generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snapshot {
    /// Which generation it was computed for.
    pub generation: u64,
    /// The spec the clusters are under.
    pub spec: ClusterSpec,
    /// The clusters, largest first.
    pub clusters: Vec<Arc<ClusterView>>,
    /// Documents indexed.
    pub documents: usize,
    /// Verified pairs kept.
    pub pairs: usize,
    /// Skipped files and why, by path.
    pub skipped: Vec<(DocPath, String)>,
    /// Every kept pair's similarity (in [0, 1]) per algorithm, sorted
    /// ascending, for the thresholds histogram (shared between snapshots).
    pub histograms: Histograms,
    /// The loosest threshold per algorithm that needs no re-gathering.
    pub floors: Thresholds,
    /// Documents whose SI candidates were capped.
    pub si_capped: usize,
    /// Indexed documents in no cluster, by path (the filter finds them).
    pub unclustered: Vec<DocPath>,
    /// How many [`Command::SetPairVerdict`]s the worker had applied (or
    /// failed to) when it built this snapshot: a front end that counts the
    /// ones it sent knows whether a verdict is in it yet.
    pub verdicts_applied: u64,
    /// The boilerplate of the collection: the learned passages (then the
    /// overruled ones) and each document's spans, as the index has them.
    #[serde(skip)]
    pub boilerplate: Arc<crate::boilerplate::BoilerplateReport>,
}

/// What a curator weighs about one file when choosing the copy to keep,
/// read by the worker (never by a front end).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentFacts {
    /// The document.
    pub path: DocPath,
    /// Its length in bytes.
    pub size: u64,
    /// Last modification, unix seconds (`None`: the file system does not say).
    pub modified: Option<i64>,
    /// The encoding its text was decoded from (`utf-8`, `utf-16le`, ...).
    pub encoding: String,
    /// Word count and text quality of the decoded text.
    pub quality: doppel_core::engine::quality::TextQuality,
    /// Why the file could not be read (the other fields are then empty).
    pub problem: Option<String>,
    /// What the format's reader found, for a file read from a structured
    /// format (PDF, EPUB, ALTO, …); `None` for plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub book: Option<FormatFacts>,
}

/// What a curator weighs about a file read from a structured format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FormatFacts {
    /// The format it was read from.
    pub format: doppel_formats::Format,
    /// It was gzip-compressed.
    pub gzipped: bool,
    /// How many pages its page map holds (0: the format has none).
    pub pages: usize,
    /// The OCR engine's mean word confidence (ALTO `WC`, hOCR `x_wconf`),
    /// 0–1, when the file records one.
    pub confidence: Option<f32>,
    /// What the reader left out on purpose, in words.
    pub left_out: Vec<String>,
}

/// One kept pair of a document, as the documents screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Neighbour {
    /// The other document.
    pub path: DocPath,
    /// Every algorithm's score, oriented from the document to it.
    pub scores: PairScores,
    /// Algorithms whose threshold the pair passes ...
    pub passing: Vec<AlgorithmId>,
    /// ... and those whose threshold it fails.
    pub failing: Vec<AlgorithmId>,
    /// The fusion verdict under the current spec.
    pub fusion: bool,
    /// The verdict the curators agree on for the pair (pinned), if any.
    pub verdict: Option<CuratorVerdict>,
    /// The curators' verdicts on the pair differ.
    pub disputed: bool,
    /// Mean similarity over the algorithms that scored the pair, in [0, 1]
    /// (the neighbours' order).
    pub similarity: f64,
}

/// A document's neighbours, for one generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Neighbours {
    /// The generation it was computed for.
    pub generation: u64,
    /// The document.
    pub path: DocPath,
    /// Nearest first (fusion duplicates, then most algorithms passing,
    /// then similarity).
    pub neighbours: Vec<Neighbour>,
}

/// One algorithm's row in the pair detail table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreRow {
    /// The algorithm.
    pub id: AlgorithmId,
    /// Its score, in its own unit.
    pub score: Score,
    /// The exact measure the estimate approximates, where one exists
    /// (Jaccard for MinHash, TF-IDF cosine for SimHash, ...).
    pub exact: Option<f64>,
    /// The threshold in force.
    pub threshold: f64,
    /// Whether the score passes it.
    pub passes: bool,
    /// The score in words: "12 of 16 LSH bands collided", "3 bits differ".
    /// The first line sums it up; further lines (SI's figures) give detail.
    pub reason: String,
}

/// The curators' side of a pair, for the pair screen: who "you" are, each
/// curator's current verdict and every set and clear.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PairCurators {
    /// Who this session's verdicts are recorded as.
    pub you: String,
    /// Each curator's current verdict, oldest first.
    pub verdicts: Vec<CuratorMark>,
    /// Every set and clear of a verdict on the pair, oldest first.
    pub history: Vec<VerdictChange>,
}

impl PairCurators {
    /// The curators' current verdicts differ (the pair counts as
    /// undecided).
    pub fn disputed(&self) -> bool {
        doppel_pairing::library::disputed(&self.verdicts)
    }

    /// A named curator other than you has a verdict on the pair, or had
    /// one (a verdict from before curators were recorded is not
    /// someone else's: it was made on this index).
    pub fn shared(&self) -> bool {
        let other = |c: &str| !c.is_empty() && c != self.you;
        self.verdicts.iter().any(|m| other(&m.curator))
            || self.history.iter().any(|c| other(&c.curator))
    }
}

/// Every algorithm's view of one pair, for the pair screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDetail {
    /// The generation it was asked at.
    pub generation: u64,
    /// One document.
    pub a: DocPath,
    /// The other.
    pub b: DocPath,
    /// One row per algorithm.
    pub rows: Vec<ScoreRow>,
    /// The verdict the curators agree on, if any.
    pub verdict: Option<CuratorVerdict>,
    /// Each curator's verdict and the pair's history.
    pub curators: PairCurators,
    /// Share of A's shingles in B ...
    pub a_in_b: f64,
    /// ... and of B's in A.
    pub b_in_a: f64,
    /// The `fusion` verdict.
    pub fusion: bool,
    /// How much of A and of B is learned boilerplate (left out of every
    /// score).
    pub boilerplate: [SideBoilerplate; 2],
}

impl PairDetail {
    /// How much of `doc` (one of the pair) is boilerplate.
    pub fn side_of(&self, doc: &DocPath) -> SideBoilerplate {
        if *doc == self.a {
            self.boilerplate[0]
        } else if *doc == self.b {
            self.boilerplate[1]
        } else {
            SideBoilerplate::default()
        }
    }
}

/// How a word of one side of a diff relates to the other side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffKind {
    /// The same word (after normalization) stands at the matching place.
    Equal,
    /// Replaced by nearby words of the other side; the characters that
    /// differ are in [`DiffSide::marks`].
    Changed,
    /// Only on the right (B) side.
    Inserted,
    /// Only on the left (A) side.
    Deleted,
    /// Part of a block the other side has elsewhere ([`DiffView::moves`]).
    Moved,
    /// Left out of the comparison (page furniture, boilerplate).
    Ignored,
}

/// One word of a side: its bytes in [`DiffSide::text`] (a word hyphenated
/// across a line end, or across a page break and the page furniture after
/// it, is one word spanning the break) and how it compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiffWord {
    /// First byte of the word in the side's text.
    pub start: u32,
    /// One past its last byte.
    pub end: u32,
    /// Equal, changed, inserted, deleted, moved or ignored.
    pub kind: DiffKind,
    /// A blank line comes before the word: it starts a paragraph.
    pub paragraph: bool,
    /// The word lies in a passage winnowing found in both documents.
    pub shared: bool,
}

/// One document of a diff: its text as read, its words, and the characters
/// that differ inside changed words.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiffSide {
    /// The document's text as read (decoded).
    pub text: String,
    /// Its words in order.
    pub words: Vec<DiffWord>,
    /// Byte ranges of [`Self::text`] inside changed words whose characters
    /// the other side does not have, sorted and disjoint.
    pub marks: Vec<(u32, u32)>,
    /// Where each line of [`Self::text`] starts (the first is 0).
    pub lines: Vec<u32>,
    /// Where each page of [`Self::text`] starts and its label, for a
    /// document read from a paged format; empty for plain text.
    #[serde(skip_serializing_if = "doppel_formats::PageMap::is_empty")]
    pub pages: doppel_formats::PageMap,
    /// Byte ranges inside words that the words do not show: in a word
    /// hyphenated across a page break, from its hyphen to where it resumes
    /// on the next page (the page furniture between: running head, folio),
    /// sorted and disjoint. The text keeps them, so the furniture stays
    /// on its page for the line view and the page labels.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joins: Vec<(u32, u32)>,
}

impl DiffSide {
    /// The characters word `i` shows, with their byte offsets in the text:
    /// the word as written, less each line-end hyphen and the line break
    /// after it (`digi-⏎tized` shows as `digitized`), and less the page
    /// furniture of a page break it is hyphenated across ([`Self::joins`]).
    pub fn word_chars(&self, i: usize) -> impl Iterator<Item = (usize, char)> + '_ {
        let (start, end) = self
            .words
            .get(i)
            .map_or((0, 0), |w| (w.start as usize, w.end as usize));
        shown_chars(&self.text, start..end, &self.joins)
    }

    /// Word `i` as shown (see [`Self::word_chars`]).
    pub fn word_text(&self, i: usize) -> String {
        self.word_chars(i).map(|(_, c)| c).collect()
    }

    /// The 0-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.lines
            .partition_point(|&s| s as usize <= offset)
            .saturating_sub(1)
    }

    /// The words overlapping bytes `start..end`, as an index range.
    pub fn words_in(&self, start: usize, end: usize) -> std::ops::Range<usize> {
        let first = self.words.partition_point(|w| (w.end as usize) <= start);
        let last = self.words.partition_point(|w| (w.start as usize) < end);
        first..last.max(first)
    }
}

/// A block of words that the two sides hold at different places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MovedBlock {
    /// Word index ranges (start, end) on each side.
    pub left: (u32, u32),
    /// The same words on the right side.
    pub right: (u32, u32),
}

/// Which side of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// Document A.
    Left,
    /// Document B.
    Right,
}

/// Where the much smaller document sits in the larger one: the larger
/// side's words from the first to the last that the smaller one shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiffRegion {
    /// The larger side.
    pub side: Side,
    /// Word index range (start, end) of the larger side.
    pub words: (u32, u32),
}

/// A side-by-side word diff of two documents (A left, B right): the words
/// of each aligned on their normalized form, whatever the line breaks. How
/// it is laid out in rows is up to the front end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffView {
    /// The generation it was asked at.
    pub generation: u64,
    /// The left side's document.
    pub a: DocPath,
    /// The right side's document.
    pub b: DocPath,
    /// The left side (A): its text, words and marks.
    pub left: DiffSide,
    /// The right side (B).
    pub right: DiffSide,
    /// Share of words equal on both sides (2 × equal / all compared words),
    /// in [0, 1].
    pub equal: f64,
    /// Blocks of words found on both sides at different places.
    pub moves: Vec<MovedBlock>,
    /// Set when one document is much smaller than the other.
    pub region: Option<DiffRegion>,
    /// The deadline cut the diff short (a coarser diff is shown).
    pub truncated: bool,
}

impl DiffView {
    /// The left or the right side.
    pub fn side(&self, side: Side) -> &DiffSide {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }
}

/// The id of a clustering verdict for display (`fusion` or an algorithm id).
pub fn cluster_by_label(by: ClusterBy) -> &'static str {
    match by {
        ClusterBy::Fusion => "fusion",
        ClusterBy::Algorithm(id) => id.as_str(),
    }
}

/// All cluster modes, for cycling in a UI.
pub const MODES: [ClusterMode; 2] = [ClusterMode::Components, ClusterMode::Star];

mod shown;
#[cfg(test)]
mod tests;
