//! Each pair's word diff for the report, bounded in size. The review
//! screen's diff ([`diff_texts`]: words aligned on their normalized forms,
//! changed characters, moved blocks, passages winnowing found in both,
//! page furniture left out) is cut into rows that keep the two sides in
//! step: a stretch of equal words (split at paragraphs), or a stretch of
//! changes with whatever each side holds there.
//!
//! A report must stay small enough to mail and open: a pair of texts up to
//! [`Limits::whole_words`] words a side is shown whole; a longer one shows
//! its changes with [`Limits::context`] words around them and folds the
//! rest ("1,204 identical words"); past [`Limits::shown_words`] words a
//! diff stops with a row saying what was cut. At most [`Limits::max_diffs`]
//! pairs get a diff at all, the first in cluster order.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use doppel_core::doc::DocPath;
use doppel_core::engine::algo::winnow::Winnow;
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::boilerplate::BoilerplateReport;
use doppel_index::collection::{read_text, Skip, DEFAULT_SIZE_CAP};
use doppel_index::reading::ReadLimits;
use doppel_index::worker::diff::{change_stretches, diff_texts, DiffOptions, DiffParts, Shared};
use doppel_index::worker::protocol::{DiffKind, DiffSide, DiffWord, Side};

use super::data::{DiffCell, Report};

/// Why a document of the report has no diff: the reason its pairs show.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file cannot be read as text (any more).
    #[error("cannot read {doc}: {skip}")]
    Unreadable {
        /// The document.
        doc: DocPath,
        /// Why, as a scan would skip it.
        #[source]
        skip: Skip,
    },
    /// Memory for its furniture's lines, analysis or fingerprints cannot
    /// be had.
    #[error("cannot read {doc}: {}", Skip::OutOfMemory { needed: *needed })]
    NoMemory {
        /// The document.
        doc: DocPath,
        /// The most reading it is expected to take, in bytes.
        needed: u64,
        /// What the allocator said.
        #[source]
        error: std::collections::TryReserveError,
    },
}

/// How much diff a report holds.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Pairs listed per cluster ([`Report::keep_pairs`]).
    pub pairs_per_cluster: usize,
    /// Pairs diffed in the whole report.
    pub max_diffs: usize,
    /// Texts up to this many words a side are shown whole.
    pub whole_words: usize,
    /// Words of context kept on each side of a change in a folded diff.
    pub context: usize,
    /// Words (both sides together) one pair's diff shows at most.
    pub shown_words: usize,
    /// Time one pair's alignment may take before a coarser one is used.
    pub deadline: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            pairs_per_cluster: 500,
            max_diffs: 200,
            whole_words: 2_000,
            context: 12,
            shown_words: 8_000,
            deadline: Duration::from_secs(3),
        }
    }
}

/// Equal words per row at most (rows also break at paragraphs).
const ROW_WORDS: usize = 40;

/// How a word of the diff is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordClass {
    /// The same on both sides.
    Equal,
    /// Replaced by words nearby on the other side; its differing
    /// characters are marked.
    Changed,
    /// Only on the left (A).
    Deleted,
    /// Only on the right (B).
    Inserted,
    /// In a block the other side holds elsewhere.
    Moved,
    /// Page furniture (running heads, page numbers), left out of the
    /// comparison.
    Furniture,
    /// Boilerplate shared across a collection, left out of the comparison.
    Boilerplate,
}

/// One word as shown: runs of its characters, each marked when the other
/// side does not have it.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// Runs of characters, each with whether it is marked as differing.
    pub parts: Vec<(String, bool)>,
    /// How the word is shown.
    pub class: WordClass,
    /// In a passage winnowing found in both documents.
    pub shared: bool,
}

impl Word {
    /// The characters shown.
    pub fn text(&self) -> String {
        self.parts.iter().map(|(s, _)| s.as_str()).collect()
    }
}

/// A row of the side-by-side diff.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// Words of each side at one place; `changed` when they differ.
    Words {
        /// The two sides differ here.
        changed: bool,
        /// A's words.
        left: Vec<Word>,
        /// B's words.
        right: Vec<Word>,
    },
    /// Words not shown: how many a side, and whether they are equal.
    Fold {
        /// A's words not shown.
        left: usize,
        /// B's words not shown.
        right: usize,
        /// They are the same words on both sides.
        equal: bool,
    },
    /// The diff stops here: the changes and words a side not shown.
    Cut {
        /// Stretches of changes not shown.
        changes: usize,
        /// A's words not shown.
        left: usize,
        /// B's words not shown.
        right: usize,
    },
}

/// One pair's diff as the report shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct PairDiff {
    /// Share of compared words equal on both sides.
    pub equal: f64,
    /// Compared words (furniture left out) of A and B.
    pub words: [usize; 2],
    /// Stretches of changes.
    pub changes: usize,
    /// Blocks moved.
    pub moves: usize,
    /// The rows shown, in order.
    pub rows: Vec<Row>,
    /// Where the much smaller side sits in the larger, in words.
    pub region: Option<String>,
    /// The alignment deadline passed: the diff is coarser than usual.
    pub coarse: bool,
}

/// One document, read for diffing: its text, the byte ranges left out of
/// the comparison, and its winnowing fingerprint hashes.
#[derive(Debug)]
pub struct DocText {
    /// The decoded text.
    pub text: String,
    /// Page furniture (running heads, page numbers), left out.
    pub furniture: Vec<Range<usize>>,
    /// Boilerplate learned from the collection (licences, notices), left
    /// out and shown as such.
    pub boilerplate: Vec<Range<usize>>,
    /// Winnowing fingerprint hashes, to find passages both sides share.
    pub hashes: HashSet<u32>,
}

/// Reads documents of a folder for diffing, as the review screen does.
pub struct Documents {
    root: PathBuf,
    /// An engine computing winnowing alone, for shared passages.
    winnow_engine: Engine,
    winnow: Winnow,
    furniture: bool,
    /// Each document's learned boilerplate, as byte ranges of its text.
    boilerplate: BTreeMap<DocPath, Vec<Range<usize>>>,
}

impl Documents {
    /// A reader of `root`'s documents, diffing as `config` sets (its
    /// winnowing settings, whether furniture is stripped).
    pub fn new(root: &Path, config: &EngineConfig) -> Self {
        let mut winnow_only = config.clone();
        winnow_only.enabled = [AlgorithmId::Winnow].into();
        Self {
            root: root.to_path_buf(),
            winnow: Winnow::new(config.algorithms.winnow.clone()),
            winnow_engine: Engine::new(winnow_only),
            furniture: config.tokenizer.strip_furniture,
            boilerplate: BTreeMap::new(),
        }
    }

    /// Leave out and mark the boilerplate a scan learned (its byte ranges
    /// per document).
    pub fn with_boilerplate(mut self, learned: &BoilerplateReport) -> Self {
        self.boilerplate = learned
            .documents
            .iter()
            .map(|(doc, found)| {
                let ranges = found
                    .ranges
                    .iter()
                    .map(|r| r.start as usize..r.end as usize)
                    .collect();
                (doc.clone(), ranges)
            })
            .collect();
        self
    }

    /// Read `doc` (its own bytes name the file, whatever its display form
    /// shows) and find what the diff needs.
    pub fn load(&self, doc: &DocPath) -> Result<DocText, LoadError> {
        let text = read_text(&self.root.join(doc.to_relative_path()), DEFAULT_SIZE_CAP)
            .map_err(|skip| LoadError::Unreadable {
                doc: doc.clone(),
                skip,
            })?
            .text;
        let no_memory = |error| LoadError::NoMemory {
            doc: doc.clone(),
            needed: ReadLimits::default().bound(text.len() as u64),
            error,
        };
        let furniture = if self.furniture {
            doppel_core::engine::text::page_furniture::find(&text)
                .map_err(no_memory)?
                .into_iter()
                .map(|f| f.range)
                .collect()
        } else {
            Vec::new()
        };
        let analysis = self.winnow_engine.try_analyze(&text).map_err(no_memory)?;
        let hashes = self
            .winnow_engine
            .fingerprint(&analysis, self.winnow_engine.reference_weights())
            .map_err(no_memory)?
            .winnow
            .map(|w| w.hashes.into_iter().collect())
            .unwrap_or_default();
        // A file that changed since the scan may be shorter now: ranges
        // past its end are dropped.
        let boilerplate = self
            .boilerplate
            .get(doc)
            .map(|ranges| {
                ranges
                    .iter()
                    .filter(|r| r.end <= text.len())
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        Ok(DocText {
            text,
            furniture,
            boilerplate,
            hashes,
        })
    }

    /// The diff of two loaded documents (A left, B right).
    pub fn diff(&self, a: &DocText, b: &DocText, limits: &Limits) -> PairDiff {
        let ignored = |d: &DocText| {
            let mut all: Vec<Range<usize>> =
                d.furniture.iter().chain(&d.boilerplate).cloned().collect();
            all.sort_by_key(|r| r.start);
            all
        };
        let (ia, ib) = (ignored(a), ignored(b));
        let hashes: HashSet<u32> = a.hashes.intersection(&b.hashes).copied().collect();
        let options = DiffOptions {
            shared: Some(Shared {
                winnow: &self.winnow,
                hashes: &hashes,
            }),
            ignored: [&ia, &ib],
            ..DiffOptions::new(Instant::now() + limits.deadline)
        };
        let parts = diff_texts(a.text.clone(), b.text.clone(), &options);
        let boilerplate = [a.boilerplate.as_slice(), b.boilerplate.as_slice()];
        shape(&parts, boilerplate, limits)
    }
}

/// Diff the pairs of every cluster, in cluster order, up to
/// [`Limits::max_diffs`]; the others get a note saying why they have none.
pub fn attach_diffs(report: &mut Report, docs: &Documents, limits: &Limits) {
    let mut budget = limits.max_diffs;
    let mut left_out = 0;
    for cluster in &mut report.clusters {
        let take = cluster.pairs.len().min(budget);
        budget -= take;
        for pair in &mut cluster.pairs[take..] {
            pair.diff = DiffCell::Missing(format!(
                "no diff: this report diffs at most {}",
                pairs(limits.max_diffs)
            ));
            left_out += 1;
        }
        if take == 0 {
            continue;
        }
        // Each document once, read in parallel, dropped with its cluster.
        let paths: BTreeSet<&DocPath> = cluster.pairs[..take]
            .iter()
            .flat_map(|p| [&p.a, &p.b])
            .collect();
        let texts: HashMap<&DocPath, Result<DocText, LoadError>> = paths
            .into_par_iter()
            .map(|path| (path, docs.load(path)))
            .collect();
        let diffs: Vec<DiffCell> = cluster.pairs[..take]
            .par_iter()
            .map(|p| match (&texts[&p.a], &texts[&p.b]) {
                (Ok(a), Ok(b)) => DiffCell::Shown(Box::new(docs.diff(a, b, limits))),
                (Err(e), _) | (_, Err(e)) => DiffCell::Missing(e.to_string()),
            })
            .collect();
        for (pair, diff) in cluster.pairs.iter_mut().zip(diffs) {
            pair.diff = diff;
        }
    }
    if left_out > 0 {
        report.diff_note = Some(format!(
            "{} no diff here: a report diffs at most {}, the first in cluster order; the \
             review screen (doppel DIR, screen 3) diffs any pair",
            if left_out == 1 {
                "1 pair has".to_owned()
            } else {
                format!("{left_out} pairs have")
            },
            pairs(limits.max_diffs)
        ));
    }
}

fn pairs(n: usize) -> String {
    format!("{n} {}", if n == 1 { "pair" } else { "pairs" })
}

/// A stretch of the alignment: equal words (with the furniture between
/// them), or changes.
enum Block {
    Same(Vec<Unit>),
    Change(Range<usize>, Range<usize>),
}

/// One step of an equal stretch: an equal word on both sides, or a word
/// left out of the comparison on one side.
#[derive(Clone, Copy)]
enum Unit {
    Pair(usize, usize),
    Left(usize),
    Right(usize),
}

/// Cut the alignment into blocks: the stretches of change
/// ([`change_stretches`]) and, between them, the equal pairs with the words
/// left out of the comparison on either side.
fn blocks(left: &[DiffWord], right: &[DiffWord]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut same = Vec::new();
    let (mut i, mut j) = (0, 0);
    let flush = |same: &mut Vec<Unit>, out: &mut Vec<Block>| {
        if !same.is_empty() {
            out.push(Block::Same(std::mem::take(same)));
        }
    };
    for (a, b) in change_stretches(left, right) {
        same_until(left, right, (&mut i, &mut j), (a.start, b.start), &mut same);
        flush(&mut same, &mut out);
        (i, j) = (a.end, b.end);
        out.push(Block::Change(a, b));
    }
    same_until(
        left,
        right,
        (&mut i, &mut j),
        (left.len(), right.len()),
        &mut same,
    );
    flush(&mut same, &mut out);
    out
}

/// The unchanged units from `(i, j)` up to `end`: each side's words left
/// out of the comparison, then the equal pair after them.
fn same_until(
    left: &[DiffWord],
    right: &[DiffWord],
    (i, j): (&mut usize, &mut usize),
    end: (usize, usize),
    same: &mut Vec<Unit>,
) {
    let equal = |w: &DiffWord| w.kind == DiffKind::Equal;
    loop {
        while *i < end.0 && !equal(&left[*i]) {
            same.push(Unit::Left(*i));
            *i += 1;
        }
        while *j < end.1 && !equal(&right[*j]) {
            same.push(Unit::Right(*j));
            *j += 1;
        }
        if *i < end.0 && *j < end.1 {
            same.push(Unit::Pair(*i, *j));
            *i += 1;
            *j += 1;
        } else {
            return;
        }
    }
}

/// Turns word indexes into shown words.
struct Shaper<'a> {
    sides: [&'a DiffSide; 2],
    boilerplate: [&'a [Range<usize>]; 2],
}

impl Shaper<'_> {
    fn word(&self, side: usize, i: usize) -> Word {
        let s = self.sides[side];
        let w = s.words[i];
        let class = match w.kind {
            DiffKind::Equal => WordClass::Equal,
            DiffKind::Changed => WordClass::Changed,
            DiffKind::Inserted => WordClass::Inserted,
            DiffKind::Deleted => WordClass::Deleted,
            DiffKind::Moved => WordClass::Moved,
            DiffKind::Ignored => {
                let at = w.start as usize;
                if self.boilerplate[side].iter().any(|r| r.contains(&at)) {
                    WordClass::Boilerplate
                } else {
                    WordClass::Furniture
                }
            }
        };
        // The character marks inside this word.
        let first = s.marks.partition_point(|&(_, end)| end <= w.start);
        let marks = &s.marks[first..];
        let mut parts: Vec<(String, bool)> = Vec::new();
        for (at, c) in s.word_chars(i) {
            let at = at as u32;
            let marked = marks
                .iter()
                .take_while(|&&(start, _)| start <= at)
                .any(|&(start, end)| start <= at && at < end);
            match parts.last_mut() {
                Some((run, m)) if *m == marked => run.push(c),
                _ => parts.push((c.to_string(), marked)),
            }
        }
        Word {
            parts,
            class,
            shared: w.shared,
        }
    }

    /// Whether a row may end before this equal pair: at a paragraph,
    /// or once the row holds [`ROW_WORDS`] words a side.
    fn breaks_before(&self, unit: Unit, words: (usize, usize)) -> bool {
        let Unit::Pair(i, j) = unit else {
            return false;
        };
        let filled = words.0.max(words.1);
        filled > 0
            && (filled >= ROW_WORDS
                || self.sides[0].words[i].paragraph
                || self.sides[1].words[j].paragraph)
    }

    /// Rows of consecutive units: each side's words from one equal pair
    /// to another, changes inline, a row per paragraph or
    /// [`ROW_WORDS`] words.
    fn rows(&self, units: &[Unit], out: &mut Vec<Row>) {
        let mut left = Vec::new();
        let mut right = Vec::new();
        let mut changed = false;
        let flush = |left: &mut Vec<Word>,
                     right: &mut Vec<Word>,
                     changed: &mut bool,
                     out: &mut Vec<Row>| {
            if !left.is_empty() || !right.is_empty() {
                out.push(Row::Words {
                    changed: std::mem::take(changed),
                    left: std::mem::take(left),
                    right: std::mem::take(right),
                });
            }
        };
        for &unit in units {
            if self.breaks_before(unit, (left.len(), right.len())) {
                flush(&mut left, &mut right, &mut changed, out);
            }
            match unit {
                Unit::Pair(i, j) => {
                    left.push(self.word(0, i));
                    right.push(self.word(1, j));
                }
                Unit::Left(i) => {
                    changed |= self.sides[0].words[i].kind != DiffKind::Ignored;
                    left.push(self.word(0, i));
                }
                Unit::Right(j) => {
                    changed |= self.sides[1].words[j].kind != DiffKind::Ignored;
                    right.push(self.word(1, j));
                }
            }
        }
        flush(&mut left, &mut right, &mut changed, out);
    }
}

/// What the rows are made of: words shown, or words folded away.
enum Piece {
    Units(Vec<Unit>),
    Fold {
        left: usize,
        right: usize,
        equal: bool,
    },
}

/// The first unit index after `n` equal pairs, or (`from_end`) the index
/// of the `n`th equal pair from the end, of an equal stretch.
fn pair_cut(units: &[Unit], n: usize, from_end: bool) -> usize {
    let pairs = |k: &usize| matches!(units[*k], Unit::Pair(..));
    if n == 0 {
        return if from_end { units.len() } else { 0 };
    }
    if from_end {
        (0..units.len()).rev().filter(pairs).nth(n - 1).unwrap_or(0)
    } else {
        (0..units.len())
            .filter(pairs)
            .nth(n - 1)
            .map_or(units.len(), |k| k + 1)
    }
}

/// Words of each side in some units.
fn unit_words(units: &[Unit]) -> (usize, usize) {
    units.iter().fold((0, 0), |(l, r), u| match u {
        Unit::Pair(..) => (l + 1, r + 1),
        Unit::Left(_) => (l + 1, r),
        Unit::Right(_) => (l, r + 1),
    })
}

/// Words of each side in a block.
fn block_words(block: &Block) -> (usize, usize) {
    match block {
        Block::Same(units) => unit_words(units),
        Block::Change(a, b) => (a.len(), b.len()),
    }
}

fn change_units(a: Range<usize>, b: Range<usize>) -> Vec<Unit> {
    a.map(Unit::Left).chain(b.map(Unit::Right)).collect()
}

/// The report's rows for a computed diff.
fn shape(parts: &DiffParts, boilerplate: [&[Range<usize>]; 2], limits: &Limits) -> PairDiff {
    let (l, r) = (&parts.left, &parts.right);
    let shaper = Shaper {
        sides: [l, r],
        boilerplate,
    };
    let blocks = blocks(&l.words, &r.words);
    let fold = l.words.len().max(r.words.len()) > limits.whole_words;
    let ctx = limits.context;
    // A stretch is folded when it has this many words a side beyond its
    // context: folding fewer saves nothing.
    let foldable = |(a, b): (usize, usize)| fold && a.max(b) > 2 * ctx + 8;
    let mut pieces = Vec::new();
    let mut shown = 0;
    let mut cut_at = None;
    for (k, block) in blocks.iter().enumerate() {
        if shown > limits.shown_words {
            cut_at = Some(k);
            break;
        }
        let before = pieces.len();
        match block {
            Block::Same(units) if foldable(unit_words(units)) => {
                // Context only next to a change.
                let head = if k > 0 {
                    pair_cut(units, ctx, false)
                } else {
                    0
                };
                let tail = if k + 1 < blocks.len() {
                    pair_cut(units, ctx, true).max(head)
                } else {
                    units.len()
                };
                let (left, right) = unit_words(&units[head..tail]);
                pieces.push(Piece::Units(units[..head].to_vec()));
                pieces.push(Piece::Fold {
                    left,
                    right,
                    equal: true,
                });
                pieces.push(Piece::Units(units[tail..].to_vec()));
            }
            Block::Same(units) => pieces.push(Piece::Units(units.clone())),
            Block::Change(a, b) if foldable((a.len(), b.len())) => {
                // A long change: its first and last words a side.
                let head = |x: &Range<usize>| x.start..(x.start + ctx).min(x.end);
                let tail = |x: &Range<usize>| {
                    (x.end.saturating_sub(ctx)).max(x.start + ctx).min(x.end)..x.end
                };
                let (ha, hb, ta, tb) = (head(a), head(b), tail(a), tail(b));
                let fold = Piece::Fold {
                    left: ta.start - ha.end,
                    right: tb.start - hb.end,
                    equal: false,
                };
                pieces.push(Piece::Units(change_units(ha, hb)));
                pieces.push(fold);
                pieces.push(Piece::Units(change_units(ta, tb)));
            }
            Block::Change(a, b) => pieces.push(Piece::Units(change_units(a.clone(), b.clone()))),
        }
        shown += pieces[before..]
            .iter()
            .map(|p| match p {
                Piece::Units(u) => {
                    let (a, b) = unit_words(u);
                    a + b
                }
                Piece::Fold { .. } => 0,
            })
            .sum::<usize>();
    }
    // Units run on across pieces, so a change sits inline in its
    // paragraph; a fold ends the row before it.
    let mut rows = Vec::new();
    let mut run: Vec<Unit> = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Units(units) => run.extend(units),
            Piece::Fold { left, right, equal } => {
                shaper.rows(&std::mem::take(&mut run), &mut rows);
                rows.push(Row::Fold { left, right, equal });
            }
        }
    }
    shaper.rows(&run, &mut rows);
    let changes = blocks
        .iter()
        .filter(|b| matches!(b, Block::Change(..)))
        .count();
    if let Some(k) = cut_at {
        let rest = &blocks[k..];
        let (left, right) = rest
            .iter()
            .map(block_words)
            .fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
        rows.push(Row::Cut {
            changes: rest
                .iter()
                .filter(|b| matches!(b, Block::Change(..)))
                .count(),
            left,
            right,
        });
    }
    let compared = |s: &DiffSide| {
        s.words
            .iter()
            .filter(|w| w.kind != DiffKind::Ignored)
            .count()
    };
    let region = parts.region.map(|region| {
        let (larger, smaller) = match region.side {
            Side::Left => ("A", "B"),
            Side::Right => ("B", "A"),
        };
        format!(
            "{smaller} lies within words {}–{} of {larger}",
            region.words.0 + 1,
            region.words.1
        )
    });
    PairDiff {
        equal: parts.equal,
        words: [compared(l), compared(r)],
        changes,
        moves: parts.moves.len(),
        rows,
        region,
        coarse: parts.truncated,
    }
}

#[cfg(test)]
mod tests;
