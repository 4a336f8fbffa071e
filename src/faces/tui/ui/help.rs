//! The help overlay: every key, from [`crate::faces::tui::keymap::HELP`].

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::{block, cell, put, theme};
use crate::faces::tui::keymap::HELP;
use crate::faces::tui::layout;

/// The overlay's lines: a heading per section, then its keys.
fn lines() -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut section = "";
    for (s, keys, what) in HELP {
        if *s != section {
            if !section.is_empty() {
                out.push(Line::raw(""));
            }
            section = s;
            out.push(Line::styled(
                format!(" {s}"),
                theme::title().patch(theme::accent()),
            ));
        }
        out.push(Line::from(vec![
            Span::styled(format!("   {} ", cell(keys, 24)), theme::warn()),
            Span::raw(*what),
        ]));
    }
    out
}

/// Lines in the overlay (for scrolling).
pub fn line_count(_width: u16) -> usize {
    lines().len()
}

pub fn render(scroll: usize, body: Rect, buf: &mut Buffer) {
    let all = lines();
    let area = layout::help(body, all.len() as u16).intersection(buf.area);
    if area.width < 4 || area.height < 3 {
        return;
    }
    Clear.render(area, buf);
    let title = Line::from(vec![
        Span::styled(" Keys ", theme::title()),
        Span::styled("· j/k scroll · Esc closes ", theme::dim()),
    ]);
    let inner = block(buf, area, title, true);
    let h = usize::from(inner.height);
    let scroll = scroll.min(all.len().saturating_sub(h));
    for (dy, line) in all.iter().skip(scroll).take(h).enumerate() {
        put(buf, inner, dy as u16, line);
    }
}
