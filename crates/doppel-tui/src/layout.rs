//! Where everything goes, as pure functions of the screen size. Rendering
//! and mouse hit-testing share these, so a click always lands on what is
//! drawn there.

use ratatui::layout::{Constraint, Layout, Rect};

use super::state::{AppState, Screen};

/// Below this the UI draws only a "terminal too small" note.
pub const MIN_WIDTH: u16 = 30;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u16 = 8;
/// From this width panels sit side by side.
pub const WIDE: u16 = 120;

/// The frame: tab bar, body, optional message lines, optional prompt
/// line, status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// The tab bar.
    pub tabs: Rect,
    /// The current screen.
    pub body: Rect,
    /// The message line's rows, while a notice is shown.
    pub notice: Option<Rect>,
    /// The prompt line, while one is open.
    pub prompt: Option<Rect>,
    /// The status bar.
    pub status: Rect,
}

/// Most rows the message line grows to in a terminal `height` rows high:
/// a third of it.
pub fn notice_max_rows(height: u16) -> u16 {
    (height / 3).max(1)
}

/// The whole terminal.
pub fn area(state: &AppState) -> Rect {
    Rect::new(0, 0, state.width, state.height)
}

/// The frame of `area`, with a prompt line and `notice` message rows
/// (at most [`notice_max_rows`]) when asked; `None` when it is too small.
pub fn frame(area: Rect, prompt: bool, notice: u16) -> Option<Frame> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    let notice = notice.min(notice_max_rows(area.height));
    let tabs = Rect::new(area.x, area.y, area.width, 1);
    let status = Rect::new(area.x, area.bottom() - 1, area.width, 1);
    let prompt_rect = prompt.then(|| Rect::new(area.x, area.bottom() - 2, area.width, 1));
    let below = 1 + u16::from(prompt) + notice;
    let notice_rect =
        (notice > 0).then(|| Rect::new(area.x, area.bottom() - below, area.width, notice));
    let body = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(1 + below),
    );
    Some(Frame {
        tabs,
        body,
        notice: notice_rect,
        prompt: prompt_rect,
        status,
    })
}

/// The frame of the state's terminal.
pub fn frame_of(state: &AppState) -> Option<Frame> {
    frame(
        area(state),
        state.prompt.is_some(),
        notice_rows(state, state.width, state.height).len() as u16,
    )
}

/// The message line's rows in a `width`×`height` terminal: the notice
/// wrapped (one cell of margin each side), cut to [`notice_max_rows`]
/// with `…`; none without a notice.
pub fn notice_rows(state: &AppState, width: u16, height: u16) -> Vec<String> {
    let Some((_, text)) = &state.notice else {
        return Vec::new();
    };
    let room = usize::from(width.saturating_sub(2));
    let mut rows = super::text::wrap(text, room);
    let max = usize::from(notice_max_rows(height));
    if rows.len() > max {
        rows.truncate(max);
        if let Some(last) = rows.last_mut() {
            *last = super::text::fit_end(&format!("{last} …"), room);
            if !last.ends_with('…') {
                last.push('…');
            }
        }
    }
    rows
}

/// Tab labels and their columns on the tab bar.
pub fn tabs(width: u16) -> (String, Vec<(Screen, u16, u16)>) {
    let brand = " doppel ";
    let mut x = brand.chars().count() as u16 + 1;
    let mut spans = Vec::new();
    for s in Screen::ALL {
        let label = tab_label(s, width);
        let w = label.chars().count() as u16;
        spans.push((s, x, x + w));
        x += w + 1;
    }
    (brand.to_owned(), spans)
}

/// The label of `s`'s tab at this terminal width.
pub fn tab_label(s: Screen, width: u16) -> String {
    // The last tab came after the others: it shortens first, so the
    // others keep their names at 80 columns.
    if s == Screen::Documents && width < 88 {
        return if width >= 82 {
            format!(" {} Doc ", s.key())
        } else {
            format!(" {} ", s.key())
        };
    }
    if width >= 76 {
        format!(" {} {} ", s.key(), s.title())
    } else if width >= 52 {
        format!(" {} {} ", s.key(), &s.title()[..3])
    } else {
        format!(" {} ", s.key())
    }
}

/// The inside of a bordered block.
pub fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x.saturating_add(1),
        r.y.saturating_add(1),
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

/// Data rows of a bordered table with `header` lines above them.
pub fn rows(block: Rect, header: u16) -> Rect {
    let i = inner(block);
    Rect::new(
        i.x,
        i.y.saturating_add(header),
        i.width,
        i.height.saturating_sub(header),
    )
}

/// The cluster list and the members panel (outer blocks).
#[derive(Debug, Clone, Copy)]
pub struct Clusters {
    /// The cluster list.
    pub list: Rect,
    /// The selected cluster's members.
    pub members: Rect,
}

/// Header lines inside the cluster list and members blocks.
pub const LIST_HEADER: u16 = 1;
/// See [`LIST_HEADER`].
pub const MEMBERS_HEADER: u16 = 2;

/// The clusters screen: side by side from [`WIDE`], stacked below.
pub fn clusters(body: Rect) -> Clusters {
    let [list, members] = if body.width >= WIDE {
        Layout::horizontal([Constraint::Percentage(52), Constraint::Percentage(48)]).areas(body)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body)
    };
    Clusters { list, members }
}

/// The documents screen: the list above, the selected document's
/// neighbours below (outer blocks).
#[derive(Debug, Clone, Copy)]
pub struct Documents {
    /// Every document.
    pub list: Rect,
    /// The selected one's neighbours and why they pass or fail.
    pub neighbours: Rect,
}

/// See [`Documents`].
pub fn documents(body: Rect) -> Documents {
    let [list, neighbours] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
    Documents { list, neighbours }
}

/// Pair detail: summary lines, score table, reason box.
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    /// The summary lines above.
    pub header: Rect,
    /// The table.
    pub table: Rect,
    /// The selected row's reason in words.
    pub reason: Rect,
}

/// Summary lines of the pair screen.
pub const PAIR_HEADER: u16 = 5;

/// The pair screen.
pub fn pair(body: Rect) -> Pair {
    let [header, table, reason] = Layout::vertical([
        Constraint::Length(PAIR_HEADER),
        Constraint::Min(3),
        Constraint::Length(4),
    ])
    .areas(body);
    Pair {
        header,
        table,
        reason,
    }
}

/// Side-by-side diff: summary line, file names, two text columns.
#[derive(Debug, Clone, Copy)]
pub struct Diff {
    /// The diff's summary line.
    pub summary: Rect,
    /// The two file names.
    pub names: Rect,
    /// The left text (A).
    pub left: Rect,
    /// The right text (B).
    pub right: Rect,
}

/// The diff screen.
pub fn diff(body: Rect) -> Diff {
    let [summary, names, text] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(body);
    let half = text.width.saturating_sub(1) / 2;
    let left = Rect::new(text.x, text.y, half, text.height);
    let right = Rect::new(
        text.x + half + 1,
        text.y,
        text.width.saturating_sub(half + 1),
        text.height,
    );
    Diff {
        summary,
        names,
        left,
        right,
    }
}

/// Thresholds panel: cluster settings, threshold table, histogram, and
/// notes on the selected algorithm where room is left.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// The summary lines above.
    pub header: Rect,
    /// The table.
    pub table: Rect,
    /// The histogram of pair scores.
    pub histogram: Rect,
    /// Notes on the selected algorithm.
    pub info: Rect,
}

/// Header lines inside the threshold table.
pub const THRESHOLD_HEADER: u16 = 1;

/// Tallest useful histogram in the narrow layout.
const HISTOGRAM_MAX: u16 = 12;

/// The thresholds screen for this many algorithms.
pub fn thresholds(body: Rect, algorithms: usize) -> Thresholds {
    let [header, rest] = Layout::vertical([Constraint::Length(2), Constraint::Min(0)]).areas(body);
    let table_h = (algorithms as u16).saturating_add(3);
    if body.width >= WIDE {
        let top_h = table_h.max(rest.height * 3 / 5).min(rest.height);
        let [top, info] =
            Layout::vertical([Constraint::Length(top_h), Constraint::Min(0)]).areas(rest);
        let [table, histogram] =
            Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(top);
        Thresholds {
            header,
            table,
            histogram,
            info,
        }
    } else {
        let hist_h = rest.height.saturating_sub(table_h).min(HISTOGRAM_MAX);
        let [table, histogram, info] = Layout::vertical([
            Constraint::Length(table_h),
            Constraint::Length(hist_h),
            Constraint::Min(0),
        ])
        .areas(rest);
        Thresholds {
            header,
            table,
            histogram,
            info,
        }
    }
}

/// The threshold table's columns: name, value, floor, passing pairs, slider.
pub const T_NAME: u16 = 17;
/// See [`T_NAME`].
pub const T_VALUE: u16 = 9;
/// See [`T_NAME`].
pub const T_PASSING: u16 = 8;

/// The slider column of the threshold table (x range within `rows`).
pub fn slider(rows: Rect) -> Rect {
    let used = T_NAME + 1 + T_VALUE + 1 + T_PASSING + 1;
    Rect::new(
        rows.x.saturating_add(used),
        rows.y,
        rows.width.saturating_sub(used),
        rows.height,
    )
}

/// The help overlay box.
pub fn help(area: Rect, lines: u16) -> Rect {
    let w = area.width.saturating_sub(4).min(96);
    let h = area.height.saturating_sub(2).min(lines.saturating_add(2));
    Rect::new(
        area.x + (area.width.saturating_sub(w)) / 2,
        area.y + (area.height.saturating_sub(h)) / 2,
        w,
        h,
    )
}

/// The first row to show so that `selected` is visible in `height` rows
/// of a list of `len`, moving as little as possible from `offset`.
pub fn visible_offset(offset: usize, selected: usize, height: usize, len: usize) -> usize {
    if height == 0 || len == 0 {
        return 0;
    }
    let max_offset = len.saturating_sub(height);
    let mut o = offset.min(max_offset);
    if selected < o {
        o = selected;
    } else if selected >= o + height {
        o = selected + 1 - height;
    }
    o.min(max_offset)
}

/// The list index under terminal row `row`, if any.
pub fn row_at(rows: Rect, offset: usize, len: usize, col: u16, row: u16) -> Option<usize> {
    if !contains(rows, col, row) {
        return None;
    }
    let i = offset + usize::from(row - rows.y);
    (i < len).then_some(i)
}

/// Whether the cell (`col`, `row`) is inside `r`.
pub fn contains(r: Rect, col: u16, row: u16) -> bool {
    col >= r.x && col < r.right() && row >= r.y && row < r.bottom()
}

/// Visible rows of each list, for paging and keeping selections in view.
pub fn list_height(state: &AppState, which: List) -> usize {
    let Some(f) = frame_of(state) else {
        return 0;
    };
    let r = match which {
        List::Clusters => rows(clusters(f.body).list, LIST_HEADER),
        List::Members => rows(clusters(f.body).members, MEMBERS_HEADER),
        List::PairRows => rows(pair(f.body).table, 1),
        List::Diff => diff(f.body).left,
        List::Thresholds => rows(
            thresholds(f.body, state.algorithms.len()).table,
            THRESHOLD_HEADER,
        ),
        List::Skipped => rows(f.body, 1),
        List::Log => inner(f.body),
        List::Documents => rows(documents(f.body).list, 1),
        List::Neighbours => rows(documents(f.body).neighbours, 1),
        List::Help => return usize::from(help(f.body, u16::MAX).height.saturating_sub(2)),
    };
    usize::from(r.height)
}

/// The scrollable lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// The cluster list.
    Clusters,
    /// The members of the selected cluster.
    Members,
    /// The pair screen's score table.
    PairRows,
    /// The diff's rows.
    Diff,
    /// The threshold table.
    Thresholds,
    /// The skipped files.
    Skipped,
    /// The log.
    Log,
    /// The documents list.
    Documents,
    /// The selected document's neighbours.
    Neighbours,
    /// The help overlay.
    Help,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_keep_the_selection_visible() {
        assert_eq!(visible_offset(0, 0, 5, 10), 0);
        assert_eq!(visible_offset(0, 7, 5, 10), 3);
        assert_eq!(visible_offset(6, 2, 5, 10), 2);
        assert_eq!(visible_offset(9, 9, 5, 10), 5);
        assert_eq!(visible_offset(3, 3, 0, 10), 0);
        assert_eq!(visible_offset(3, 0, 5, 0), 0);
    }

    #[test]
    fn tiny_frames_are_refused() {
        assert!(frame(Rect::new(0, 0, 0, 0), false, 0).is_none());
        assert!(frame(Rect::new(0, 0, 29, 24), false, 0).is_none());
        let f = frame(Rect::new(0, 0, 80, 24), true, 0).unwrap();
        assert_eq!(f.body.height, 21);
        assert_eq!(f.status.y, 23);
        assert_eq!(f.prompt.unwrap().y, 22);
        assert_eq!(f.notice, None);
        // Message rows sit above the prompt, taken from the body.
        let f = frame(Rect::new(0, 0, 80, 24), true, 3).unwrap();
        assert_eq!(f.notice, Some(Rect::new(0, 19, 80, 3)));
        assert_eq!(f.body.height, 18);
        let f = frame(Rect::new(0, 0, 80, 24), false, 20).unwrap();
        assert_eq!(f.notice.unwrap().height, 8);
    }
}
