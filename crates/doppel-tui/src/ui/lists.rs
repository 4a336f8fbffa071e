//! The skipped-files list (with reasons) and the log pane.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{block, cell, fill, hint, path_cell, put};
use crate::layout;
use crate::layout::visible_offset;
use crate::state::{AppState, Level};
use crate::text;

pub fn skipped(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let list = state.skipped();
    let title = Line::from(vec![
        Span::styled(" Skipped files ", t.title()),
        Span::raw(format!("{} ", list.len())),
    ]);
    let inner = block(t, buf, area, title, true);
    if inner.is_empty() {
        return;
    }
    let w = usize::from(inner.width);
    let path_w = (w * 55 / 100).max(8).min(w);
    let reason_w = w.saturating_sub(path_w + 1);
    put(
        buf,
        inner,
        0,
        &Line::styled(
            format!("{} {}", cell("path", path_w), cell("reason", reason_w)),
            t.header(),
        ),
    );
    let rows = layout::rows(area, 1).intersection(inner);
    if list.is_empty() {
        put(buf, rows, 0, &hint(t, "nothing skipped"));
        return;
    }
    let h = usize::from(rows.height);
    let off = visible_offset(state.skipped_offset, state.skipped_sel, h, list.len());
    for (dy, (i, (path, reason))) in list.iter().enumerate().skip(off).take(h).enumerate() {
        let row = Rect::new(rows.x, rows.y + dy as u16, rows.width, 1);
        if i == state.skipped_sel {
            fill(buf, row, t.selected(true));
        }
        put(
            buf,
            row,
            0,
            &Line::from(vec![
                Span::raw(path_cell(&text::doc_path(path), path_w)),
                Span::raw(" "),
                Span::styled(cell(reason, reason_w), t.warn()),
            ]),
        );
    }
}

pub fn log(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let title = Line::from(vec![
        Span::styled(" Log ", t.title()),
        Span::raw(format!("{} ", state.log.len())),
        Span::styled(
            if state.log_back > 0 {
                "· scrolled back (G follows) "
            } else {
                "· following "
            },
            t.dim(),
        ),
    ]);
    let inner = block(t, buf, area, title, true);
    if inner.is_empty() {
        return;
    }
    if state.log.is_empty() {
        put(buf, inner, 0, &hint(t, "nothing yet"));
        return;
    }
    let h = usize::from(inner.height);
    let end = state.log.len().saturating_sub(state.log_back);
    let start = end.saturating_sub(h);
    let w = usize::from(inner.width);
    for (dy, line) in state.log.range(start..end).enumerate() {
        let secs = line.at.as_secs();
        let stamp = format!("{:02}:{:02}:{:02} ", secs / 3600, secs / 60 % 60, secs % 60);
        let (mark, style) = match line.level {
            Level::Info => ("  ", ratatui::style::Style::new()),
            Level::Warn => ("! ", t.warn()),
            Level::Error => ("✗ ", t.error()),
        };
        let room = w.saturating_sub(stamp.len() + 2);
        put(
            buf,
            inner,
            dy as u16,
            &Line::from(vec![
                Span::styled(stamp, t.dim()),
                Span::styled(mark, style),
                Span::styled(text::fit_end(&line.text, room), style),
            ]),
        );
    }
}
