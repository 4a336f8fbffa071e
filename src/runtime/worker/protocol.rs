//! The typed messages between the worker (which owns the index) and any
//! front end: [`Command`]s in, [`Update`]s out. Every state-bearing update
//! carries the generation it was computed for, so a front end can drop
//! answers to questions it no longer asks (a slider moved on, another pair
//! was selected).

use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;

use crate::engine::algo::{AlgorithmId, Score};
use crate::engine::{PairScores, Thresholds};
use crate::pairing::library::{ClusterBy, ClusterMode, ClusterSpec, Histograms, PairVerdict};
use crate::runtime::index::FolderIndex;
pub use crate::runtime::watch::WatchState;

/// What a front end asks of the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Move one algorithm's threshold (native unit); re-clusters at once
    /// from kept pairs, or re-gathers candidates first when below a floor.
    SetThreshold {
        id: AlgorithmId,
        value: f64,
    },
    SetClusterBy(ClusterBy),
    SetMode(ClusterMode),
    /// Every algorithm's score for a pair, with exact measures and reasons.
    RequestPair {
        a: String,
        b: String,
    },
    /// A side-by-side diff of two documents, computed within `deadline`.
    RequestDiff {
        a: String,
        b: String,
        deadline: Duration,
    },
    /// A curator's verdict on a pair (`None` clears it).
    SetPairVerdict {
        a: String,
        b: String,
        verdict: Option<PairVerdict>,
    },
    /// Mark (or unmark) a document to keep.
    SetKeep {
        path: String,
        keep: bool,
    },
    /// Walk the whole folder again.
    Rescan,
    Quit,
}

/// What the worker tells a front end.
#[derive(Debug, Clone)]
pub enum Update {
    Progress(Progress),
    /// The clusters under the current spec.
    Snapshot(Arc<Snapshot>),
    Pair(Arc<PairDetail>),
    Diff(Arc<DiffView>),
    FileIndexed {
        path: String,
    },
    FileRemoved {
        path: String,
    },
    FileSkipped {
        path: String,
        reason: String,
    },
    Watch(WatchState),
    /// A problem worth showing (never fatal to the worker).
    Error(String),
    /// The worker has stopped (after `Quit`, or because it cannot go on).
    Stopped,
}

/// The `event` of each kind of line `doppel watch --jsonl` prints (one
/// per [`Update`] it reports, plus `cluster` and `cluster-gone` for the
/// clusters that form, change or dissolve between snapshots). README's list
/// is held to [`jsonl_event::ALL`] by a test.
pub mod jsonl_event {
    pub const INDEXED: &str = "indexed";
    pub const REMOVED: &str = "removed";
    pub const SKIPPED: &str = "skipped";
    pub const CLUSTER: &str = "cluster";
    pub const CLUSTER_GONE: &str = "cluster-gone";
    pub const SNAPSHOT: &str = "snapshot";
    pub const PROGRESS: &str = "progress";
    pub const WATCH: &str = "watch";
    pub const ERROR: &str = "error";
    pub const STOPPED: &str = "stopped";
    /// Every one of them.
    pub const ALL: [&str; 10] = [
        INDEXED,
        REMOVED,
        SKIPPED,
        CLUSTER,
        CLUSTER_GONE,
        SNAPSHOT,
        PROGRESS,
        WATCH,
        ERROR,
        STOPPED,
    ];
}

/// Where the worker is in a pass over the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    Opening,
    Listing,
    Reading,
    Clustering,
    Idle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub stage: Stage,
    pub done: usize,
    pub total: usize,
    pub bytes: u64,
}

/// One member of a cluster, scored against the representative.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberView {
    pub path: String,
    /// Scores against the representative (`None` for the representative,
    /// or a member linked only through another member).
    pub scores: Option<PairScores>,
    /// Algorithms whose threshold the member passes against the representative.
    pub passing: Vec<AlgorithmId>,
    pub keep: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterView {
    /// Representative first.
    pub members: Vec<MemberView>,
    /// Strength of the weakest link in [0, 1].
    pub weakest: Option<f64>,
    /// Algorithms that pass on every link.
    pub agreeing: Vec<AlgorithmId>,
    pub disagreement: bool,
    /// Arrival order of the newest member (for "sort by newest").
    pub newest: u64,
}

/// The clusters and counts a front end shows, for one generation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snapshot {
    pub generation: u64,
    pub spec: ClusterSpec,
    pub clusters: Vec<ClusterView>,
    pub documents: usize,
    pub pairs: usize,
    /// Skipped files and why, by path.
    pub skipped: Vec<(String, String)>,
    /// Every kept pair's similarity (in [0, 1]) per algorithm, sorted
    /// ascending, for the thresholds histogram (shared between snapshots).
    pub histograms: Histograms,
    /// The loosest threshold per algorithm that needs no re-gathering.
    pub floors: Thresholds,
    /// Documents whose SI candidates were capped.
    pub si_capped: usize,
}

impl Snapshot {
    /// The snapshot of an index under `spec`.
    pub fn build(index: &FolderIndex, spec: &ClusterSpec, generation: u64) -> Self {
        let lib = index.library();
        let clusters = lib
            .clusters(spec)
            .into_par_iter()
            .map(|c| {
                let rep = c.representative();
                let members = c
                    .members
                    .iter()
                    .filter_map(|&m| {
                        let doc = lib.doc(m)?;
                        let scores = (m != rep).then(|| lib.pair_from(rep, m)).flatten();
                        let passing = scores
                            .as_ref()
                            .map(|s| {
                                s.iter()
                                    .filter(|(id, score)| score.passes(spec.thresholds.get(**id)))
                                    .map(|(id, _)| *id)
                                    .collect()
                            })
                            .unwrap_or_default();
                        Some(MemberView {
                            path: doc.path.clone(),
                            scores,
                            passing,
                            keep: lib.is_kept(&doc.path),
                        })
                    })
                    .collect();
                ClusterView {
                    members,
                    weakest: c.weakest.map(|(_, _, w)| w),
                    agreeing: c.agreeing.clone(),
                    disagreement: c.disagreement,
                    newest: c
                        .members
                        .iter()
                        .filter_map(|&m| lib.doc(m))
                        .map(|d| d.seen)
                        .max()
                        .unwrap_or(0),
                }
            })
            .collect();
        Self {
            generation,
            spec: spec.clone(),
            clusters,
            documents: lib.len(),
            pairs: lib.pair_count(),
            skipped: index
                .skipped()
                .iter()
                .map(|(p, r)| (p.clone(), r.clone()))
                .collect(),
            histograms: lib.histograms(),
            floors: lib.config().floors.clone(),
            si_capped: lib.si_capped(),
        }
    }
}

/// One algorithm's row in the pair detail table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreRow {
    pub id: AlgorithmId,
    pub score: Score,
    /// The exact measure the estimate approximates, where one exists
    /// (Jaccard for MinHash, TF-IDF cosine for SimHash, ...).
    pub exact: Option<f64>,
    pub threshold: f64,
    pub passes: bool,
    /// The score in words: "12 of 16 LSH bands collided", "3 bits differ".
    /// The first line sums it up; further lines (SI's figures) give detail.
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairDetail {
    pub generation: u64,
    pub a: String,
    pub b: String,
    pub rows: Vec<ScoreRow>,
    pub verdict: Option<PairVerdict>,
    /// Share of A's shingles in B and of B's in A.
    pub a_in_b: f64,
    pub b_in_a: f64,
    pub fusion: bool,
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
/// across a line end is one word spanning the break) and how it compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiffWord {
    pub start: u32,
    pub end: u32,
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
    pub text: String,
    pub words: Vec<DiffWord>,
    /// Byte ranges of [`Self::text`] inside changed words whose characters
    /// the other side does not have, sorted and disjoint.
    pub marks: Vec<(u32, u32)>,
    /// Where each line of [`Self::text`] starts (the first is 0).
    pub lines: Vec<u32>,
}

impl DiffSide {
    /// The characters word `i` shows, with their byte offsets in the text:
    /// the word as written, less each line-end hyphen and the line break
    /// after it (`digi-⏎tized` shows as `digitized`).
    pub fn word_chars(&self, i: usize) -> impl Iterator<Item = (usize, char)> + '_ {
        let (start, end) = self
            .words
            .get(i)
            .map_or((0, 0), |w| (w.start as usize, w.end as usize));
        word_chars(self.text.get(start..end).unwrap_or_default()).map(move |(k, c)| (start + k, c))
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

/// The bytes of a word (within the word's own text) that its line-end
/// hyphens and their line breaks take: each from the hyphen through the
/// spaces after the line end. Empty (no allocation) for a word on one line.
pub fn line_end_breaks(word: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let b = word.as_bytes();
    let mut k = 0;
    while let Some(nl) = b[k..].iter().position(|&c| c == b'\n' || c == b'\r') {
        let nl = k + nl;
        let before = word[..nl].trim_end_matches([' ', '\t']);
        let after = word[nl..].trim_start_matches(['\r', '\n', ' ', '\t']);
        let end = word.len() - after.len();
        if let Some(stem) = before
            .strip_suffix('-')
            .or_else(|| before.strip_suffix('\u{ad}'))
        {
            out.push(stem.len()..end);
        }
        k = end.max(nl + 1);
    }
    out
}

/// The characters of a word as shown, with their byte offsets in it (see
/// [`line_end_breaks`]).
pub fn word_chars(word: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let breaks = line_end_breaks(word);
    word.char_indices()
        .filter(move |(k, _)| !breaks.iter().any(|r| r.contains(k)))
}

/// A block of words that the two sides hold at different places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MovedBlock {
    /// Word index ranges (start, end) on each side.
    pub left: (u32, u32),
    pub right: (u32, u32),
}

/// Which side of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    Left,
    Right,
}

/// Where the much smaller document sits in the larger one: the larger
/// side's words from the first to the last that the smaller one shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DiffRegion {
    /// The larger side.
    pub side: Side,
    pub words: (u32, u32),
}

/// A side-by-side word diff of two documents (A left, B right): the words
/// of each aligned on their normalized form, whatever the line breaks. How
/// it is laid out in rows is up to the front end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffView {
    pub generation: u64,
    pub a: String,
    pub b: String,
    pub left: DiffSide,
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
