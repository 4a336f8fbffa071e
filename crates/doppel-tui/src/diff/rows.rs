//! Rows of the side-by-side diff at a given text width, in two views:
//!
//! - **words** ([`word_rows`]): each side's words flowed into the width,
//!   paragraphs kept, and the two sides advancing together so that every
//!   equal word stands on the same row as its partner; changed, inserted
//!   and deleted words flow on their own side in between, and the side that
//!   has less there waits (a gap).
//! - **lines** ([`line_rows`]): each side's own lines, wrapped, paired
//!   where they hold the same equal words, a gap beside a line the other
//!   side lacks.
//!
//! [`fold`] then hides stretches of identical rows, keeping some context
//! around every change (and search match). Pure functions of the view.

use crate::text;
use doppel_index::worker::protocol::{DiffKind, DiffSide, DiffView};

/// What one row shows of one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowSide {
    /// Bytes of the side's text the row covers. An empty row sits at the
    /// end of the text shown before it, so starts never decrease.
    pub start: u32,
    /// One past the last byte the row covers.
    pub end: u32,
    /// Its words, first and one past the last (lines: those overlapping).
    pub words: (u32, u32),
    /// The 1-based line number for the gutter; 0 for none.
    pub line: u32,
    /// The other side has text here that this one lacks.
    pub gap: bool,
}

impl RowSide {
    /// The row shows nothing of this side.
    pub fn is_empty(&self) -> bool {
        self.words.0 == self.words.1 && self.start == self.end
    }
}

/// One row of the diff: what it shows of each side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Row {
    /// The left document's part of the row.
    pub left: RowSide,
    /// The right document's part of the row.
    pub right: RowSide,
    /// A word on the row differs (changed, inserted, deleted or moved).
    pub changed: bool,
    /// A word on the row lies in a passage both documents share.
    pub shared: bool,
}

impl Row {
    /// The left side's part, or the right's.
    pub fn side(&self, left: bool) -> &RowSide {
        if left {
            &self.left
        } else {
            &self.right
        }
    }
}

/// A displayed row: a row of the diff, or a fold standing for this many
/// identical rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Row `n` of [`DiffLayout::rows`](super::DiffLayout::rows).
    Row(u32),
    /// This many identical rows, folded into one line.
    Fold(u32),
}

/// Cells word `i` of `side` takes.
fn word_width(side: &DiffSide, i: usize) -> usize {
    let w = side.words[i];
    let bytes = &side.text.as_bytes()[w.start as usize..w.end as usize];
    if bytes.iter().all(|b| (0x21..0x7f).contains(b)) {
        bytes.len()
    } else {
        side.word_chars(i)
            .map(|(_, c)| text::doc_char_width(c))
            .sum()
    }
}

/// Rows under construction, with each side's cursor.
struct Flow {
    width: usize,
    rows: Vec<Row>,
    /// Per side (0 left, 1 right): current row, column, words placed.
    row: [usize; 2],
    col: [usize; 2],
    placed: [bool; 2],
    /// Rows a side keeps blank between paragraphs.
    blank: Vec<[bool; 2]>,
}

impl Flow {
    fn side(&mut self, s: usize) -> &mut RowSide {
        while self.rows.len() <= self.row[s] {
            self.rows.push(Row::default());
            self.blank.push([false; 2]);
        }
        let row = &mut self.rows[self.row[s]];
        if s == 0 {
            &mut row.left
        } else {
            &mut row.right
        }
    }

    fn next_row(&mut self, s: usize) {
        self.row[s] += 1;
        self.col[s] = 0;
        self.side(s);
    }

    /// End the paragraph on side `s`: finish the row, leave one blank.
    fn paragraph(&mut self, s: usize) {
        if !self.placed[s] {
            return;
        }
        if self.col[s] > 0 {
            self.next_row(s);
        }
        self.side(s);
        self.blank[self.row[s]][s] = true;
        self.next_row(s);
    }

    fn overflows(&self, s: usize, w: usize) -> bool {
        self.col[s] > 0 && self.col[s] + 1 + w > self.width
    }

    fn place(&mut self, s: usize, i: usize, w: usize, view: &DiffView) {
        if self.overflows(s, w) {
            self.next_row(s);
        }
        let word = if s == 0 { &view.left } else { &view.right }.words[i];
        let side = self.side(s);
        if side.words.0 == side.words.1 {
            side.words = (i as u32, i as u32 + 1);
            side.start = word.start;
        } else {
            side.words.1 = i as u32 + 1;
        }
        side.end = word.end;
        self.col[s] += usize::from(self.col[s] > 0) + w;
        self.placed[s] = true;
    }

    /// End the paragraph on both sides together: finish both rows, then
    /// one blank row beside one blank row.
    fn paragraph_both(&mut self) {
        if !self.placed[0] && !self.placed[1] {
            return;
        }
        for s in 0..2 {
            if self.col[s] > 0 {
                self.next_row(s);
            }
        }
        self.sync();
        for s in 0..2 {
            self.side(s);
            self.blank[self.row[s]][s] = true;
            self.next_row(s);
        }
    }

    /// Words `i` (left) and `j` (right) on one row: after a paragraph
    /// break when both start one, on a new row when either does not fit.
    fn pair(&mut self, view: &DiffView, i: usize, j: usize) {
        let (l, r) = (&view.left, &view.right);
        if l.words[i].paragraph && r.words[j].paragraph {
            self.paragraph_both();
        }
        self.sync();
        let (wi, wj) = (word_width(l, i), word_width(r, j));
        if self.overflows(0, wi) || self.overflows(1, wj) {
            self.next_row(0);
            self.next_row(1);
        }
        self.place(0, i, wi, view);
        self.place(1, j, wj, view);
    }

    /// Bring the side behind down to the other's row.
    fn sync(&mut self) {
        let r = self.row[0].max(self.row[1]);
        for s in 0..2 {
            if self.row[s] < r {
                self.row[s] = r;
                self.col[s] = 0;
                self.side(s);
            }
        }
    }
}

/// Word view rows for text `width` cells wide.
pub fn word_rows(view: &DiffView, width: usize) -> Vec<Row> {
    let width = width.max(1);
    let sides = [&view.left, &view.right];
    let mut f = Flow {
        width,
        rows: Vec::new(),
        row: [0; 2],
        col: [0; 2],
        placed: [false; 2],
        blank: Vec::new(),
    };
    let mut at = [0usize; 2];
    let n = [view.left.words.len(), view.right.words.len()];
    let kind = |s: usize, i: usize| sides[s].words[i].kind;
    loop {
        // Replaced words pair off, one beside the other.
        while at[0] < n[0]
            && at[1] < n[1]
            && kind(0, at[0]) == DiffKind::Changed
            && kind(1, at[1]) == DiffKind::Changed
        {
            f.pair(view, at[0], at[1]);
            at = [at[0] + 1, at[1] + 1];
        }
        // Each side's other words up to its next equal one flow on their
        // own side.
        for s in 0..2 {
            while at[s] < n[s] && kind(s, at[s]) != DiffKind::Equal {
                let i = at[s];
                if sides[s].words[i].paragraph {
                    f.paragraph(s);
                }
                f.place(s, i, word_width(sides[s], i), view);
                at[s] += 1;
            }
        }
        if at[0] == n[0] || at[1] == n[1] {
            // No partner left (only when the alignment is inconsistent):
            // the rest flows on its own side.
            for s in 0..2 {
                for i in at[s]..n[s] {
                    f.place(s, i, word_width(sides[s], i), view);
                }
            }
            break;
        }
        // An equal pair.
        f.pair(view, at[0], at[1]);
        at = [at[0] + 1, at[1] + 1];
    }
    let blank = std::mem::take(&mut f.blank);
    let mut rows = f.rows;
    for (row, blank) in rows.iter_mut().zip(blank) {
        let has = [
            row.left.words.0 < row.left.words.1,
            row.right.words.0 < row.right.words.1,
        ];
        for (s, side) in [&mut row.left, &mut row.right].into_iter().enumerate() {
            if has[s] {
                let first = sides[s].words[side.words.0 as usize].start;
                side.line = sides[s].line_of(first as usize) as u32 + 1;
            } else {
                side.gap = !blank[s] && has[1 - s];
            }
        }
    }
    finish(view, rows)
}

/// One visual row of a side's own lines: its bytes, line number (0 on a
/// continuation) and the equal words it holds, as ranks (the how-manieth
/// equal word of the side).
struct LineRow {
    start: u32,
    end: u32,
    line: u32,
    ranks: (u32, u32),
}

/// A side's lines, wrapped at `width` cells (at a space where one fits).
fn wrapped_lines(side: &DiffSide, width: usize, rank: &[u32]) -> Vec<LineRow> {
    let text = &side.text;
    let mut out = Vec::new();
    for (n, &start) in side.lines.iter().enumerate() {
        let start = start as usize;
        let end = side.lines.get(n + 1).map_or(text.len(), |&e| e as usize);
        let line = text[start..end].trim_end_matches(['\n', '\r']);
        let mut piece = start;
        let (mut col, mut space) = (0, None);
        let mut first = true;
        let mut push = |s: usize, e: usize, first: &mut bool| {
            let words = side.words_in(s, e);
            out.push(LineRow {
                start: s as u32,
                end: e as u32,
                line: if *first { n as u32 + 1 } else { 0 },
                ranks: (rank[words.start], rank[words.end]),
            });
            *first = false;
        };
        for (k, c) in line.char_indices() {
            let w = text::doc_char_width(c);
            if col + w > width && col > 0 {
                let cut = space.filter(|&s| s > piece).unwrap_or(start + k);
                push(piece, cut, &mut first);
                piece = cut;
                col = text::doc_width(&text[piece..start + k]);
                space = None;
            }
            col += w;
            if c == ' ' {
                space = Some(start + k + 1);
            }
        }
        push(piece, start + line.len(), &mut first);
    }
    out
}

/// Where a line row stands among the equal words, doubled so a row
/// without any sits between its neighbours: `[2·first, 2·last]`, or the
/// point just before the next equal word.
fn span(r: &LineRow) -> (i64, i64) {
    let (lo, hi) = (i64::from(r.ranks.0), i64::from(r.ranks.1));
    if hi > lo {
        (2 * lo, 2 * hi - 2)
    } else {
        (2 * lo - 1, 2 * lo - 1)
    }
}

/// Line view rows for text `width` cells wide.
pub fn line_rows(view: &DiffView, width: usize) -> Vec<Row> {
    let width = width.max(1);
    let ranks = |side: &DiffSide| -> Vec<u32> {
        let mut r = Vec::with_capacity(side.words.len() + 1);
        let mut n = 0;
        r.push(0);
        for w in &side.words {
            n += u32::from(w.kind == DiffKind::Equal);
            r.push(n);
        }
        r
    };
    let (rl, rr) = (ranks(&view.left), ranks(&view.right));
    let left = wrapped_lines(&view.left, width, &rl);
    let right = wrapped_lines(&view.right, width, &rr);
    let side = |r: &LineRow, s: &DiffSide| {
        let words = s.words_in(r.start as usize, r.end as usize);
        RowSide {
            start: r.start,
            end: r.end,
            words: (words.start as u32, words.end as u32),
            line: r.line,
            gap: false,
        }
    };
    let gap = RowSide {
        gap: true,
        ..RowSide::default()
    };
    let mut rows = Vec::with_capacity(left.len().max(right.len()));
    let (mut a, mut b) = (0, 0);
    while a < left.len() || b < right.len() {
        let row = match (left.get(a), right.get(b)) {
            (Some(l), Some(r)) => {
                let (x, y) = (span(l), span(r));
                if x.0 <= y.1 && y.0 <= x.1 {
                    a += 1;
                    b += 1;
                    (side(l, &view.left), side(r, &view.right))
                } else if x.1 < y.0 {
                    a += 1;
                    (side(l, &view.left), gap)
                } else {
                    b += 1;
                    (gap, side(r, &view.right))
                }
            }
            (Some(l), None) => {
                a += 1;
                (side(l, &view.left), gap)
            }
            (None, Some(r)) => {
                b += 1;
                (gap, side(r, &view.right))
            }
            (None, None) => break,
        };
        rows.push(Row {
            left: row.0,
            right: row.1,
            ..Row::default()
        });
    }
    finish(view, rows)
}

/// Set each row's flags and give empty sides the position of the text
/// before them.
fn finish(view: &DiffView, mut rows: Vec<Row>) -> Vec<Row> {
    let mut at = [0u32; 2];
    for row in &mut rows {
        let mut changed = false;
        let mut shared = false;
        for (s, (side, doc)) in [(&mut row.left, &view.left), (&mut row.right, &view.right)]
            .into_iter()
            .enumerate()
        {
            if side.is_empty() {
                side.start = at[s];
                side.end = at[s];
                side.words = (0, 0);
            } else {
                at[s] = side.end;
            }
            for w in &doc.words[side.words.0 as usize..side.words.1 as usize] {
                changed |= !matches!(w.kind, DiffKind::Equal | DiffKind::Ignored);
                shared |= w.shared;
            }
        }
        row.changed = changed;
        row.shared = shared;
    }
    rows
}

/// Rows kept around each row `keep` says (changes, search matches):
/// `context` rows either side; longer identical stretches fold.
pub fn fold(rows: &[Row], context: usize, keep: impl Fn(usize) -> bool) -> Vec<Shown> {
    let n = rows.len();
    let mut near = vec![false; n];
    for i in (0..n).filter(|&i| keep(i)) {
        for flag in &mut near[i.saturating_sub(context)..(i + context + 1).min(n)] {
            *flag = true;
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if near[i] {
            out.push(Shown::Row(i as u32));
            i += 1;
            continue;
        }
        let run = near[i..].iter().take_while(|&&k| !k).count();
        if run == 1 {
            out.push(Shown::Row(i as u32));
        } else {
            out.push(Shown::Fold(run as u32));
        }
        i += run;
    }
    out
}

#[cfg(test)]
mod tests;
