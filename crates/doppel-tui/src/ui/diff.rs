//! Side-by-side diff: the two documents in rows kept in step (laid out by
//! [`crate::diff`]), changed words coloured and, inside them,
//! the characters that differ reversed; inserted and deleted words in their
//! side's colour, moved blocks in their own, search matches highlighted,
//! passages winnowing found in both marked in the gutter; a summary line.
//! Only the rows on screen are drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{hint, put, Theme};
use crate::diff::rows::{Row, Shown};
use crate::diff::{DiffLayout, DiffMode};
use crate::layout;
use crate::state::AppState;
use crate::text;
use doppel_core::doc::DocPath;
use doppel_index::worker::protocol::{DiffKind, DiffSide, DiffView, Side};

pub fn render(state: &AppState, body: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let l = layout::diff(body);
    let Some((a, b)) = state.diff.requested.as_ref() else {
        put(
            buf,
            body,
            1,
            &hint(
                t,
                " No pair selected: pick a member in the cluster list (1) and press d.",
            ),
        );
        return;
    };
    names(state, a, b, &l, buf);
    let view = state
        .diff
        .view
        .as_deref()
        .filter(|d| (&d.a, &d.b) == (a, b) || (&d.a, &d.b) == (b, a));
    let (Some(v), Some(lay)) = (view, state.diff.laid_out()) else {
        put(buf, l.summary, 0, &hint(t, " computing the diff…"));
        return;
    };
    summary(state, v, lay, l.summary, buf);
    // The separator column.
    for dy in 0..l.left.height {
        let x = l.left.right();
        put(
            buf,
            Rect::new(x, l.left.y, 1, l.left.height),
            dy,
            &Line::styled("│", t.dim()),
        );
    }
    if lay.shown.is_empty() {
        put(buf, l.left, 0, &hint(t, " both documents are empty"));
        return;
    }
    let h = usize::from(l.left.height);
    let scroll = state.diff.scroll.min(lay.shown.len().saturating_sub(h));
    for (dy, (k, shown)) in lay
        .shown
        .iter()
        .enumerate()
        .skip(scroll)
        .take(h)
        .enumerate()
    {
        // A line number is shown where it changes (and at the top); a
        // paged side's page label where the page changes.
        let above = if dy == 0 { None } else { lay.row(k - 1) };
        let dy = dy as u16;
        match *shown {
            Shown::Row(r) => {
                let row = &lay.rows[r as usize];
                let marked = state.diff.mark == Some(k);
                for (left, area) in [(true, l.left), (false, l.right)] {
                    let number = row.side(left).line;
                    let repeated = above.is_some_and(|a| a.side(left).line == number);
                    let doc = if left { &v.left } else { &v.right };
                    let page = (!doc.pages.is_empty())
                        .then(|| page_label(doc, lay, scroll..k, row, left))
                        .flatten();
                    let gutter = Gutter {
                        number: if repeated { 0 } else { number },
                        page,
                        marked,
                    };
                    let line = side(state, v, lay, row, left, gutter);
                    put(buf, area, dy, &line);
                }
            }
            Shown::Fold(n) => {
                let text = format!(
                    "{} ⋯ {n} identical row{}",
                    " ".repeat(lay.number_width),
                    if n == 1 { "" } else { "s" }
                );
                for area in [l.left, l.right] {
                    put(buf, area, dy, &Line::styled(text.clone(), t.dim()));
                }
            }
        }
    }
}

fn names(state: &AppState, a: &DocPath, b: &DocPath, l: &layout::Diff, buf: &mut Buffer) {
    for (label, path, r) in [("A ", a, l.left), ("B ", b, l.right)] {
        let rect = Rect::new(r.x, l.names.y, r.width, 1);
        let deleted = state.deleted.contains(path);
        let line = super::pair::name_line(
            state.theme,
            label,
            &text::doc_path(path),
            deleted,
            usize::from(r.width).saturating_sub(3),
        );
        put(buf, rect, 0, &line);
    }
}

fn summary(state: &AppState, v: &DiffView, lay: &DiffLayout, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let dot = || Span::styled(" · ", t.dim());
    let (small, large) = match v.region.map(|r| r.side) {
        Some(Side::Left) => ("B", "A"),
        _ => ("A", "B"),
    };
    let share = match lay.contained {
        Some(c) => format!(" {} of {small}'s words in {large}", text::percent(c)),
        None => format!(" {} of words equal", text::percent(v.equal)),
    };
    let mut spans = vec![
        Span::raw(share),
        dot(),
        Span::raw(super::plural(lay.changes.len(), "change", "changes")),
    ];
    if let Some(m) = state.diff.mark {
        let (list, what) = match state.diff.search {
            Some(_) => (&lay.hits, "match"),
            None => (&lay.changes, "change"),
        };
        if let Some(n) = list.iter().position(|&s| s == m) {
            spans.push(dot());
            spans.push(Span::styled(format!("at {what} {}", n + 1), t.warn()));
        }
    }
    if !v.moves.is_empty() {
        spans.push(dot());
        spans.push(Span::styled(
            super::plural(v.moves.len(), "moved block", "moved blocks"),
            t.moved(),
        ));
    }
    if let Some(r) = v.region {
        let n = v.side(r.side).words.len().max(1) as f64;
        spans.push(dot());
        spans.push(Span::styled(
            format!(
                "{small} sits at {}–{} of {large}'s words",
                text::percent(f64::from(r.words.0) / n).trim_end_matches(" %"),
                text::percent(f64::from(r.words.1) / n)
            ),
            t.accent(),
        ));
    }
    if let Some(s) = &state.diff.search {
        spans.push(dot());
        spans.push(Span::styled(
            format!(
                "/{}: {} in {}",
                text::sanitize(&s.query),
                super::plural(s.count(), "match", "matches"),
                super::plural(lay.hits.len(), "row", "rows")
            ),
            t.search_hit(),
        ));
    }
    if lay.mode == DiffMode::Lines {
        spans.push(dot());
        spans.push(Span::styled("line view", t.accent()));
    }
    if lay.fold {
        spans.push(dot());
        spans.push(Span::styled("folded", t.accent()));
    }
    if lay.rows.iter().any(|r| r.shared) {
        spans.push(dot());
        spans.push(Span::styled("┃", t.accent()));
        spans.push(Span::raw(" shared"));
    }
    if v.truncated {
        spans.push(dot());
        spans.push(Span::styled("coarse: cut short by the deadline", t.warn()));
    }
    spans.push(Span::styled(
        "  n/N change · / search · f fold · w view",
        t.dim(),
    ));
    if !(v.left.pages.is_empty() && v.right.pages.is_empty()) {
        spans.push(Span::styled(" · ]/[ page", t.dim()));
    }
    put(buf, area, 0, &Line::from(spans));
}

/// What a row's gutter shows: a line number (0 for none), or for a side
/// read from a paged format its page label where a page begins (and at the
/// top of the screen), and whether it is the row `n`/`N` jumped to.
struct Gutter {
    number: u32,
    page: Option<String>,
    marked: bool,
}

/// The page label (`p.41`) of `row`'s side when its page differs from
/// the last row above it on screen (`above`: shown positions) that shows
/// this side; `None` on a row without text of this side.
fn page_label(
    doc: &DiffSide,
    lay: &DiffLayout,
    above: std::ops::Range<usize>,
    row: &Row,
    left: bool,
) -> Option<String> {
    let rs = row.side(left);
    if rs.is_empty() || rs.gap {
        return None;
    }
    let page = doc.pages.index_of(rs.start as usize)?;
    let before = above
        .rev()
        .filter_map(|k| lay.row(k).map(|r| r.side(left)))
        .find(|s| !s.is_empty() && !s.gap)
        .and_then(|s| doc.pages.index_of(s.start as usize));
    (before != Some(page)).then(|| format!("p.{}", doc.pages.name(page)))
}

/// One side of a row: gutter (line number, marker) and text.
fn side(
    state: &AppState,
    v: &DiffView,
    lay: &DiffLayout,
    row: &Row,
    left: bool,
    gutter: Gutter,
) -> Line<'static> {
    let t = state.theme;
    let (rs, doc) = if left {
        (&row.left, &v.left)
    } else {
        (&row.right, &v.right)
    };
    let nw = lay.number_width;
    let marked = gutter.marked;
    let gutter_style = if marked { t.warn() } else { t.dim() };
    let mut spans = vec![Span::styled(
        if doc.pages.is_empty() {
            numbered(gutter.number, nw)
        } else {
            gutter
                .page
                .as_deref()
                .map_or(" ".repeat(nw), |p| format!("{:>nw$}", text::fit_end(p, nw)))
        },
        gutter_style,
    )];
    spans.push(if marked {
        Span::styled("▶", t.warn())
    } else if row.shared {
        Span::styled("┃", t.accent())
    } else {
        Span::raw(" ")
    });
    spans.push(Span::raw(" "));
    if rs.gap {
        spans.push(Span::styled("╌".repeat(lay.width), t.dim()));
        return Line::from(spans);
    }
    let hits = state
        .diff
        .search
        .as_ref()
        .map_or(&[][..], |s| &s.found[usize::from(!left)][..]);
    let paint = Painter { t, doc, left, hits };
    let mut text = Styled::default();
    match lay.mode {
        DiffMode::Words => {
            for i in rs.words.0 as usize..rs.words.1 as usize {
                if i > rs.words.0 as usize {
                    text.push(' ', Style::new());
                }
                let style = paint.word(i);
                for (at, c) in doc.word_chars(i) {
                    text.push(c, paint.char(style, at));
                }
            }
        }
        DiffMode::Lines => {
            let (start, end) = (rs.start as usize, rs.end as usize);
            let mut w = rs.words.0 as usize;
            for (k, c) in doc.text.get(start..end).unwrap_or_default().char_indices() {
                let at = start + k;
                while w < rs.words.1 as usize && (doc.words[w].end as usize) <= at {
                    w += 1;
                }
                let inside = w < rs.words.1 as usize && (doc.words[w].start as usize) <= at;
                let style = if inside { paint.word(w) } else { Style::new() };
                text.push(c, paint.char(style, at));
            }
        }
    }
    spans.extend(text.finish());
    Line::from(spans)
}

/// A line number right-aligned in `nw` cells, blank for 0.
fn numbered(number: u32, nw: usize) -> String {
    if number > 0 {
        format!("{number:>nw$}")
    } else {
        " ".repeat(nw)
    }
}

/// Styles of the characters of one side.
struct Painter<'a> {
    t: Theme,
    doc: &'a DiffSide,
    left: bool,
    hits: &'a [(u32, u32)],
}

fn within(ranges: &[(u32, u32)], at: usize) -> bool {
    let k = ranges.partition_point(|r| (r.1 as usize) <= at);
    ranges.get(k).is_some_and(|r| (r.0 as usize) <= at)
}

impl Painter<'_> {
    /// The style of word `i` as a whole.
    fn word(&self, i: usize) -> Style {
        let w = self.doc.words[i];
        match w.kind {
            DiffKind::Equal => Style::new(),
            DiffKind::Changed => {
                let k = self.doc.marks.partition_point(|m| m.1 <= w.start);
                let has_marks = self.doc.marks.get(k).is_some_and(|m| m.0 < w.end);
                if has_marks {
                    side_colour(self.t, self.left)
                } else {
                    self.t.changed_word(self.left)
                }
            }
            DiffKind::Inserted | DiffKind::Deleted => side_colour(self.t, self.left),
            DiffKind::Moved => self.t.moved(),
            DiffKind::Ignored => self.t.dim(),
        }
    }

    /// The style of the character at byte `at`, in a word styled `word`:
    /// the page furniture inside a word hyphenated across a page break
    /// (shown only by the line view) as furniture elsewhere.
    fn char(&self, word: Style, at: usize) -> Style {
        if within(self.hits, at) {
            self.t.search_hit()
        } else if within(&self.doc.marks, at) {
            self.t.changed_word(self.left)
        } else if within(&self.doc.joins, at) {
            self.t.dim()
        } else {
            word
        }
    }
}

fn side_colour(t: Theme, left: bool) -> Style {
    if left {
        t.removed()
    } else {
        t.added()
    }
}

/// Text drawn a character at a time, merged into spans of one style.
#[derive(Default)]
struct Styled {
    spans: Vec<Span<'static>>,
    run: String,
    style: Style,
}

impl Styled {
    fn push(&mut self, c: char, style: Style) {
        if style != self.style && !self.run.is_empty() {
            let run = std::mem::take(&mut self.run);
            self.spans.push(Span::styled(run, self.style));
        }
        self.style = style;
        text::push_doc_char(&mut self.run, c);
    }

    fn finish(mut self) -> Vec<Span<'static>> {
        if !self.run.is_empty() {
            self.spans.push(Span::styled(self.run, self.style));
        }
        self.spans
    }
}
