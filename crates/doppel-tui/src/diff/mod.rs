//! The diff screen's model: the word diff the worker sent, laid out in rows
//! for the pane's width ([`rows`]) in the word or the line view, folded or
//! not, and searched ([`mod@search`]). The layout is worked out in `update`
//! (when the diff arrives, the terminal is resized or a toggle flips) and
//! kept in [`DiffState::layout`], so drawing a frame touches only the rows
//! on screen.

pub mod rows;
pub mod search;

use std::ops::Range;
use std::sync::Arc;

use super::layout::{self, List};
use super::state::AppState;
use doppel_core::doc::DocPath;
use doppel_index::worker::diff::change_stretches;
use doppel_index::worker::protocol::{DiffKind, DiffView, DiffWord, Side};
use rows::{Row, Shown};

/// Rows of context kept above a change `n`/`N` jumps to, and around
/// changes when identical stretches fold.
pub const CONTEXT: usize = 3;

/// How each side's text is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DiffMode {
    /// Words re-flowed to the pane, the two sides kept in step.
    #[default]
    Words,
    /// Each side's own lines, wrapped.
    Lines,
}

/// A search of both sides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Search {
    /// The text searched for, as typed.
    pub query: String,
    /// Byte ranges found, left and right.
    pub found: [Vec<(u32, u32)>; 2],
}

impl Search {
    /// Matches on both sides together.
    pub fn count(&self) -> usize {
        self.found[0].len() + self.found[1].len()
    }
}

/// The rows of one diff for one pane width, mode, fold and search.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffLayout {
    view: Arc<DiffView>,
    /// Cells of text per side, and of the line numbers before it.
    pub width: usize,
    /// Cells of a line number in the gutter.
    pub number_width: usize,
    /// The view laid out: words re-flowed or each side's own lines.
    pub mode: DiffMode,
    /// Identical stretches were folded away.
    pub fold: bool,
    query: Option<String>,
    /// Every row of the diff, folded or not.
    pub rows: Vec<Row>,
    /// What is on screen, in order.
    pub shown: Vec<Shown>,
    /// The shown row of each stretch of change, in order (a row with two
    /// is there twice).
    pub changes: Vec<usize>,
    /// Shown rows holding a search match.
    pub hits: Vec<usize>,
    /// With a much smaller side: the share of its words found in the
    /// larger one.
    pub contained: Option<f64>,
}

impl DiffLayout {
    /// The row at shown position `i`, if it is a row.
    pub fn row(&self, i: usize) -> Option<&Row> {
        match self.shown.get(i)? {
            Shown::Row(r) => self.rows.get(*r as usize),
            Shown::Fold(_) => None,
        }
    }

    /// The shown position of the first row at or after byte `offset` of
    /// `side`.
    fn shown_at(&self, left: bool, offset: u32) -> usize {
        self.shown
            .iter()
            .position(|s| match *s {
                Shown::Row(r) => {
                    let side = self.rows[r as usize].side(left);
                    !side.is_empty() && side.end > offset
                }
                Shown::Fold(_) => false,
            })
            .unwrap_or(self.shown.len().saturating_sub(1))
    }
}

/// The diff screen: the pair asked for, the diff the worker sent for it,
/// and how it is shown.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffState {
    /// The pair asked for (left, right), until its diff arrives.
    pub requested: Option<(DocPath, DocPath)>,
    /// Diffs from generations before this one answer an older request and
    /// are dropped.
    pub min_generation: u64,
    /// The diff shown.
    pub view: Option<Arc<DiffView>>,
    /// First shown row on screen (both sides scroll together).
    pub scroll: usize,
    /// The shown row `n`/`N` last jumped to.
    pub mark: Option<usize>,
    /// Words re-flowed or each side's own lines (`w` toggles).
    pub mode: DiffMode,
    /// Identical stretches are folded away.
    pub fold: bool,
    /// The search in effect, with its matches.
    pub search: Option<Search>,
    /// The rows of `view` for the pane as it is ([`refresh`] keeps it
    /// current).
    pub layout: Option<Arc<DiffLayout>>,
}

impl DiffState {
    /// The layout of the view shown, when there is one.
    pub fn laid_out(&self) -> Option<&DiffLayout> {
        let (view, layout) = (self.view.as_ref()?, self.layout.as_deref()?);
        Arc::ptr_eq(view, &layout.view).then_some(layout)
    }
}

/// Most cells a page label takes in the gutter (`p.` and the label).
const PAGE_WIDTH: usize = 8;

/// Text and line-number widths of a side of the diff pane. A side read
/// from a paged format names its rows by page (`p.41`), so the gutter
/// fits its longest page label too.
fn widths(state: &AppState, view: &DiffView) -> (usize, usize) {
    let lines = view.left.lines.len().max(view.right.lines.len());
    let pages = [&view.left, &view.right]
        .into_iter()
        .flat_map(|side| (0..side.pages.pages().len()).map(|i| side.pages.name(i)))
        .map(|name| (2 + crate::text::width(&name)).min(PAGE_WIDTH))
        .max()
        .unwrap_or(0);
    let number_width = lines.to_string().len().max(3).max(pages);
    let side = layout::frame_of(state).map_or(0, |f| usize::from(layout::diff(f.body).left.width));
    (side.saturating_sub(number_width + 2).max(1), number_width)
}

/// Lay the diff out again if the view, the pane width, the mode, the fold
/// or the search changed; keep the same text on screen.
pub fn refresh(state: &mut AppState) {
    let Some(view) = state.diff.view.clone() else {
        state.diff.layout = None;
        return;
    };
    let (width, number_width) = widths(state, &view);
    let d = &state.diff;
    let query = d.search.as_ref().map(|s| s.query.clone());
    let old = d.layout.as_deref();
    if old.is_some_and(|l| {
        Arc::ptr_eq(&l.view, &view)
            && (l.width, l.mode, l.fold, &l.query) == (width, d.mode, d.fold, &query)
    }) {
        return;
    }
    // The text at the top of the screen and at the mark, to find again.
    let anchor = |i: usize| {
        let l = old.filter(|l| Arc::ptr_eq(&l.view, &view))?;
        let row = l.row(i).or_else(|| l.row(i + 1))?;
        Some(if row.left.is_empty() {
            (false, row.right.start)
        } else {
            (true, row.left.start)
        })
    };
    let top = anchor(d.scroll);
    let mark = d.mark.and_then(anchor);
    let first_layout = old.is_none_or(|l| !Arc::ptr_eq(&l.view, &view));
    let rows = match d.mode {
        DiffMode::Words => rows::word_rows(&view, width),
        DiffMode::Lines => rows::line_rows(&view, width),
    };
    let hit_rows = d
        .search
        .as_ref()
        .map(|s| hit_rows(&rows, s))
        .unwrap_or_default();
    let shown = if d.fold {
        rows::fold(&rows, CONTEXT, |i| {
            rows[i].changed || hit_rows.binary_search(&i).is_ok()
        })
    } else {
        (0..rows.len() as u32).map(Shown::Row).collect()
    };
    let mut position = vec![usize::MAX; rows.len()];
    for (k, s) in shown.iter().enumerate() {
        if let Shown::Row(r) = s {
            position[*r as usize] = k;
        }
    }
    let changes = change_rows(&view, &rows, &position);
    let hits = hit_rows
        .iter()
        .map(|&r| position[r])
        .filter(|&p| p != usize::MAX)
        .collect();
    let contained = view.region.map(|r| {
        let small = view.side(match r.side {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        });
        let compared = small.words.iter().filter(|w| w.kind != DiffKind::Ignored);
        let equal = compared
            .clone()
            .filter(|w| w.kind == DiffKind::Equal)
            .count();
        equal as f64 / compared.count().max(1) as f64
    });
    let new = DiffLayout {
        contained,
        view: view.clone(),
        width,
        number_width,
        mode: d.mode,
        fold: d.fold,
        query,
        rows,
        shown,
        changes,
        hits,
    };
    let find = |(left, offset): (bool, u32)| new.shown_at(left, offset);
    state.diff.scroll = match top {
        Some(a) => find(a),
        None if first_layout => view.region.map_or(0, |r| {
            let left = r.side == Side::Left;
            let word = view.side(r.side).words.get(r.words.0 as usize);
            word.map_or(0, |w| find((left, w.start)).saturating_sub(CONTEXT))
        }),
        None => 0,
    };
    state.diff.mark = mark.map(find);
    state.diff.layout = Some(Arc::new(new));
}

/// Rows (indexes into `rows`) holding a match of `search`, sorted.
fn hit_rows(rows: &[Row], search: &Search) -> Vec<usize> {
    let mut out = Vec::new();
    for (s, found) in search.found.iter().enumerate() {
        let left = s == 0;
        for &(start, _) in found {
            // The last row starting at or before the match.
            let k = rows.partition_point(|r| r.side(left).start <= start);
            if k > 0 {
                out.push(k - 1);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The shown row of each stretch of change ([`change_stretches`]: what
/// the summary counts and `n`/`N` step through), in order: the row of its
/// first compared word. A row holding two stretches is there twice.
fn change_rows(view: &DiffView, rows: &[Row], position: &[usize]) -> Vec<usize> {
    // The first row holding each word, per side (a row without words of
    // a side holds (0, 0) there, so rows are not ordered by word).
    let row_of_word = |left: bool, n: usize| {
        let mut first = vec![usize::MAX; n];
        for (r, row) in rows.iter().enumerate() {
            let (from, to) = row.side(left).words;
            let (from, to) = (from as usize, (to as usize).min(n));
            for slot in first.iter_mut().take(to).skip(from) {
                if *slot == usize::MAX {
                    *slot = r;
                }
            }
        }
        first
    };
    let (words_l, words_r) = (&view.left.words, &view.right.words);
    let rows_of = [
        row_of_word(true, words_l.len()),
        row_of_word(false, words_r.len()),
    ];
    let compared = |words: &[DiffWord], r: Range<usize>| {
        r.into_iter().find(|&k| words[k].kind != DiffKind::Ignored)
    };
    let mut out: Vec<usize> = change_stretches(words_l, words_r)
        .into_iter()
        .filter_map(|(a, b)| {
            let row = match compared(words_l, a) {
                Some(k) => rows_of[0][k],
                None => rows_of[1][compared(words_r, b)?],
            };
            position.get(row).copied().filter(|&p| p != usize::MAX)
        })
        .collect();
    out.sort_unstable();
    out
}

/// The largest scroll that still fills the pane.
pub fn max_scroll(state: &AppState) -> usize {
    let len = state.diff.laid_out().map_or(0, |l| l.shown.len());
    len.saturating_sub(layout::list_height(state, List::Diff))
}

/// `n`/`N`: the next or previous change, or search match while searching.
pub fn jump(state: &mut AppState, forward: bool) {
    let Some(l) = state.diff.laid_out() else {
        return;
    };
    let searching = state.diff.search.is_some();
    let (targets, what) = if searching {
        (&l.hits, "row with a match")
    } else {
        (&l.changes, "change")
    };
    if targets.is_empty() {
        state.last_event = Some(if searching {
            "no match".into()
        } else {
            "no changes: the two sides are equal".into()
        });
        return;
    }
    // From the row last jumped to, or else from the top of the view.
    let here = state.diff.mark.unwrap_or(state.diff.scroll);
    let unmarked = state.diff.mark.is_none();
    let target = if forward {
        targets
            .iter()
            .copied()
            .find(|&s| s > here || (unmarked && s >= here))
    } else {
        targets.iter().rev().copied().find(|&s| s < here)
    };
    let total = targets.len();
    let n = target.and_then(|t| targets.iter().position(|&s| s == t));
    match (target, n) {
        (Some(t), Some(n)) => {
            state.diff.mark = Some(t);
            state.diff.scroll = t.saturating_sub(CONTEXT);
            let what = if searching { "match" } else { what };
            let unit = if searching { " rows" } else { "" };
            state.last_event = Some(format!("{what} {} of {total}{unit}", n + 1));
        }
        _ => {
            let dir = if forward { "later" } else { "earlier" };
            state.last_event = Some(format!("no {dir} {what}"));
        }
    }
}

/// `]`/`[`: scroll to where the next or previous page begins, on the left
/// side when it was read from a paged format, else on the right.
pub fn jump_page(state: &mut AppState, forward: bool) {
    let Some(l) = state.diff.laid_out().and(state.diff.layout.clone()) else {
        return;
    };
    let v = &l.view;
    let Some((left, doc)) = [(true, &v.left), (false, &v.right)]
        .into_iter()
        .find(|(_, d)| !d.pages.is_empty())
    else {
        state.last_event = Some("no pages: neither side was read from a paged format".into());
        return;
    };
    // The shown row holding each page's first word (a page folded away
    // begins at the next row shown).
    let starts: Vec<(usize, usize)> = doc
        .pages
        .pages()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let first = doc.words.partition_point(|w| (w.start as usize) < p.start);
            let at = doc.words.get(first).map_or(p.start as u32, |w| w.start);
            (l.shown_at(left, at), i)
        })
        .collect();
    // At the end of the diff the last pages are all on screen already.
    let max = max_scroll(state);
    let here = state.diff.scroll.min(max);
    let target = if forward {
        starts.iter().find(|&&(s, _)| s > here && here < max)
    } else {
        starts.iter().rev().find(|&&(s, _)| s < here)
    };
    let total = starts.len();
    state.last_event = Some(match target.copied() {
        Some((row, page)) => {
            state.diff.scroll = row;
            format!("p.{} ({} of {total} pages)", doc.pages.name(page), page + 1)
        }
        None => format!("no {} page", if forward { "later" } else { "earlier" }),
    });
}

/// Search both sides for `query` (an empty one ends the search) and jump
/// to the first match from the top of the screen.
pub fn search(state: &mut AppState, query: &str) {
    let Some(view) = state.diff.view.clone() else {
        return;
    };
    let query = query.trim();
    if query.is_empty() {
        state.diff.search = None;
        state.diff.mark = None;
        refresh(state);
        return;
    }
    let found = [
        search::find(&view.left.text, &view.left.joins, query),
        search::find(&view.right.text, &view.right.joins, query),
    ];
    let s = Search {
        query: query.to_owned(),
        found,
    };
    let count = s.count();
    state.diff.search = Some(s);
    state.diff.mark = None;
    refresh(state);
    if count == 0 {
        state.last_event = Some(format!("not found: {query}"));
    } else {
        jump(state, true);
    }
}

/// Flip between the word and the line view.
pub fn toggle_mode(state: &mut AppState) {
    state.diff.mode = match state.diff.mode {
        DiffMode::Words => DiffMode::Lines,
        DiffMode::Lines => DiffMode::Words,
    };
    state.last_event = Some(
        match state.diff.mode {
            DiffMode::Words => "word view: words re-flowed, the sides in step",
            DiffMode::Lines => "line view: each side's own lines",
        }
        .into(),
    );
}

/// Fold identical stretches away, or show them again.
pub fn toggle_fold(state: &mut AppState) {
    state.diff.fold = !state.diff.fold;
    state.last_event = Some(
        if state.diff.fold {
            "identical stretches folded"
        } else {
            "identical stretches shown"
        }
        .into(),
    );
}
