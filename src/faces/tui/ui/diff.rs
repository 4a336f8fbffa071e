//! Side-by-side diff: aligned columns scrolled together, changed words
//! highlighted inside changed lines, passages winnowing found in both
//! documents marked in the gutter, and a summary line.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{hint, put, theme};
use crate::faces::tui::layout;
use crate::faces::tui::state::AppState;
use crate::faces::tui::text;
use crate::runtime::worker::protocol::{DiffKind, DiffRow, DiffView};

pub fn render(state: &AppState, body: Rect, buf: &mut Buffer) {
    let l = layout::diff(body);
    let Some((a, b)) = state.diff.requested.as_ref() else {
        put(
            buf,
            body,
            1,
            &hint(" No pair selected: pick a member in the cluster list (1) and press d."),
        );
        return;
    };
    names(&text::doc_path(a), &text::doc_path(b), &l, buf);
    let view = state
        .diff
        .view
        .as_deref()
        .filter(|d| (&d.a, &d.b) == (a, b) || (&d.a, &d.b) == (b, a));
    let Some(v) = view else {
        put(buf, l.summary, 0, &hint(" computing the diff…"));
        return;
    };
    summary(state, v, l.summary, buf);
    // Keep the separator column.
    for dy in 0..l.left.height {
        let x = l.left.right();
        put(
            buf,
            Rect::new(x, l.left.y, 1, l.left.height),
            dy,
            &Line::styled("│", theme::dim()),
        );
    }
    if v.rows.is_empty() {
        put(buf, l.left, 0, &hint(" both documents are empty"));
        return;
    }
    let no_w = AppState::diff_number_width(v);
    let h = usize::from(l.left.height);
    let scroll = state.diff.scroll.min(v.rows.len().saturating_sub(h));
    for (dy, (i, row)) in v.rows.iter().enumerate().skip(scroll).take(h).enumerate() {
        let marked = state.diff.mark == Some(i);
        side(
            row,
            true,
            marked,
            no_w,
            state.diff.hscroll,
            l.left,
            dy as u16,
            buf,
        );
        side(
            row,
            false,
            marked,
            no_w,
            state.diff.hscroll,
            l.right,
            dy as u16,
            buf,
        );
    }
}

fn names(a: &str, b: &str, l: &layout::Diff, buf: &mut Buffer) {
    for (label, path, r) in [("A ", a, l.left), ("B ", b, l.right)] {
        let w = usize::from(r.width).saturating_sub(3);
        let rect = Rect::new(r.x, l.names.y, r.width, 1);
        put(
            buf,
            rect,
            0,
            &Line::from(vec![
                Span::styled(format!(" {label}"), theme::accent()),
                Span::styled(text::fit_start(path, w), theme::title()),
            ]),
        );
    }
}

fn summary(state: &AppState, v: &DiffView, area: Rect, buf: &mut Buffer) {
    let starts = state.change_starts();
    let mut spans = vec![
        Span::raw(format!(" {} equal", text::percent(v.equal))),
        Span::styled(" · ", theme::dim()),
        Span::raw(format!(
            "{} moved block{}",
            v.moved_blocks,
            if v.moved_blocks == 1 { "" } else { "s" }
        )),
        Span::styled(" · ", theme::dim()),
        Span::raw(format!(
            "{} change{}",
            starts.len(),
            if starts.len() == 1 { "" } else { "s" }
        )),
    ];
    if let Some(m) = state.diff.mark {
        if let Some(n) = starts.iter().position(|&s| s == m) {
            spans.push(Span::styled(" · ", theme::dim()));
            spans.push(Span::styled(format!("at change {}", n + 1), theme::warn()));
        }
    }
    if state.diff.hscroll > 0 {
        spans.push(Span::styled(" · ", theme::dim()));
        spans.push(Span::styled(
            format!("◂ from column {}", state.diff.hscroll + 1),
            theme::accent(),
        ));
    }
    let shared = v.rows.iter().filter(|r| r.shared).count();
    if shared > 0 {
        spans.push(Span::styled(" · ", theme::dim()));
        spans.push(Span::styled("┃", theme::accent()));
        spans.push(Span::raw(format!(" shared {shared} lines")));
    }
    if v.truncated {
        spans.push(Span::styled(" · ", theme::dim()));
        spans.push(Span::styled(
            "coarse: cut short by the deadline",
            theme::warn(),
        ));
    }
    spans.push(Span::styled("  n/N change · h/l sideways", theme::dim()));
    put(buf, area, 0, &Line::from(spans));
}

#[allow(clippy::too_many_arguments)]
fn side(
    row: &DiffRow,
    left: bool,
    marked: bool,
    no_w: usize,
    hscroll: usize,
    area: Rect,
    dy: u16,
    buf: &mut Buffer,
) {
    let (no, segments) = if left {
        (row.left_no, &row.left)
    } else {
        (row.right_no, &row.right)
    };
    let gutter_style = if marked { theme::warn() } else { theme::dim() };
    let mut spans = vec![Span::styled(
        match no {
            Some(n) => format!("{n:>no_w$}"),
            None => " ".repeat(no_w),
        },
        gutter_style,
    )];
    spans.push(if marked {
        Span::styled("▶", theme::warn())
    } else if row.shared {
        Span::styled("┃", theme::accent())
    } else {
        Span::raw(" ")
    });
    spans.push(Span::raw(" "));
    if no.is_none() {
        spans.push(Span::styled(
            "╌".repeat(usize::from(area.width)),
            theme::dim(),
        ));
        put(buf, area, dy, &Line::from(spans));
        return;
    }
    let line_style = match (row.kind, left) {
        (DiffKind::Deleted, true) => theme::removed(),
        (DiffKind::Inserted, false) => theme::added(),
        _ => Style::new(),
    };
    let mut skip = hscroll;
    for (seg, changed) in segments {
        let clean = text::sanitize_line(seg);
        let seg_w = text::width(&clean);
        if skip >= seg_w {
            skip -= seg_w;
            continue;
        }
        let shown = text::skip_cols(&clean, skip).into_owned();
        skip = 0;
        let style = if *changed && row.kind == DiffKind::Changed {
            theme::changed_word(left)
        } else {
            line_style
        };
        spans.push(Span::styled(shown, style));
    }
    put(buf, area, dy, &Line::from(spans));
}
