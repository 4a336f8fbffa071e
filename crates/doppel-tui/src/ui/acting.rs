//! The quarantine confirmation view: the totals, where files go, and per
//! cluster the file kept, the files to move and those that stay with why.
//! Nothing on it has moved yet; `y` or Enter moves, Esc cancels.

use indicatif::HumanBytes;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::{block, put, Theme};
use crate::acting::{files, ActView};
use crate::layout;
use crate::text::{doc_path, sanitize_line};
use doppel_index::act::MarkState;

fn lines(t: Theme, view: &ActView) -> Vec<Line<'static>> {
    let Some(planned) = &view.plan else {
        return vec![Line::styled(" asking the worker for the plan…", t.dim())];
    };
    let plan = &planned.plan;
    let s = &plan.summary;
    let to = sanitize_line(&planned.to.display().to_string()).into_owned();
    let mut out = vec![
        Line::from(vec![Span::styled(
            format!(
                " move {} ({}) of {} cluster{}",
                files(s.files),
                HumanBytes(s.bytes),
                s.clusters,
                if s.clusters == 1 { "" } else { "s" }
            ),
            t.title(),
        )]),
        Line::from(vec![Span::raw(" to "), Span::styled(to, t.accent())]),
    ];
    if s.held_back > 0 {
        out.push(Line::styled(
            format!(
                " not moved, changed or gone since read: {}",
                files(s.held_back)
            ),
            t.warn(),
        ));
    }
    if plan.clusters.is_empty() {
        out.push(Line::raw(" no clusters to act on"));
    }
    for c in &plan.clusters {
        let kept: Vec<String> = c.kept.iter().map(doc_path).collect();
        out.push(Line::raw(""));
        out.push(Line::from(vec![
            Span::styled(format!(" cluster {} ", c.id), t.title()),
            Span::raw("keep "),
            Span::styled(kept.join(", "), t.accent()),
        ]));
        for m in &c.marked {
            let path = doc_path(&m.path);
            out.push(match &m.state {
                MarkState::Ready => Line::from(vec![
                    Span::styled("   move ", t.warn()),
                    Span::raw(format!("{path} ({})", HumanBytes(m.size))),
                ]),
                MarkState::Changed(why) => Line::from(vec![
                    Span::styled("   stay ", t.dim()),
                    Span::raw(format!("{path}: changed since it was read ({why})")),
                ]),
                MarkState::Missing => Line::from(vec![
                    Span::styled("   stay ", t.dim()),
                    Span::raw(format!("{path}: no longer there")),
                ]),
            });
        }
        for (path, why) in &c.stays {
            out.push(Line::from(vec![
                Span::styled("   stay ", t.dim()),
                Span::raw(format!("{}: {}", doc_path(path), sanitize_line(why))),
            ]));
        }
    }
    out
}

/// Draw the confirmation view over `body`.
pub fn render(t: Theme, view: &ActView, body: Rect, buf: &mut Buffer) {
    let all = lines(t, view);
    let area = layout::help(body, all.len() as u16).intersection(buf.area);
    if area.width < 4 || area.height < 3 {
        return;
    }
    Clear.render(area, buf);
    let title = Line::from(vec![
        Span::styled(" Move to quarantine? ", t.title()),
        Span::styled("y/Enter moves · Esc cancels · j/k scroll ", t.dim()),
    ]);
    let inner = block(t, buf, area, title, true);
    let h = usize::from(inner.height);
    let scroll = view.scroll.min(all.len().saturating_sub(h));
    for (dy, line) in all.iter().skip(scroll).take(h).enumerate() {
        put(buf, inner, dy as u16, line);
    }
}
