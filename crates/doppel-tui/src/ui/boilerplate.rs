//! The boilerplate overlay: one row per passage (documents, words, source,
//! an overruled mark, its first words), the selected one highlighted, with
//! what `o` would do to it on the line below the list.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::{block, cell, fill, hint, put, rcell};
use crate::boilerplate::{counts, overruled, passages, BoilerplateView};
use crate::layout;
use crate::state::AppState;
use crate::text::sanitize_line;

/// Rows above the list (header) and below it (what `o` does).
const HEADER: u16 = 1;
const FOOTER: u16 = 1;

/// Draw the overlay over `body`.
pub fn render(state: &AppState, view: &BoilerplateView, body: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let list = passages(state);
    // As tall as the body allows: a screen of its own over the one below.
    let area = layout::help(body, u16::MAX).intersection(buf.area);
    if area.width < 4 || area.height < 3 {
        return;
    }
    Clear.render(area, buf);
    let (learned, ruled) = counts(state);
    let mut counts = format!("{learned} left out");
    if ruled > 0 {
        counts.push_str(&format!(" · {ruled} overruled"));
    }
    let title = Line::from(vec![
        Span::styled(" Boilerplate ", t.title()),
        Span::styled(
            format!("{counts} · o overrules / restores · Esc closes "),
            t.dim(),
        ),
    ]);
    let inner = block(t, buf, area, title, true);
    if list.is_empty() {
        put(
            buf,
            inner,
            0,
            &hint(
                t,
                " no boilerplate learned: nothing is left out of the documents",
            ),
        );
        return;
    }
    let w = usize::from(inner.width);
    let (docs_w, words_w, source_w, mark_w) = (5, 6, 8, 10);
    let first_w = w.saturating_sub(1 + docs_w + 1 + words_w + 1 + source_w + 1 + mark_w + 1);
    let header = format!(
        " {} {} {} {} {}",
        rcell("docs", docs_w),
        rcell("words", words_w),
        cell("source", source_w),
        cell("", mark_w),
        cell("first words", first_w)
    );
    put(buf, inner, 0, &Line::styled(header, t.header()));
    let rows = Rect::new(
        inner.x,
        inner.y + HEADER,
        inner.width,
        inner.height.saturating_sub(HEADER + FOOTER),
    );
    let h = usize::from(rows.height);
    let selected = view.selected.min(list.len() - 1);
    let offset = layout::visible_offset(view.offset, selected, h, list.len());
    for (dy, (i, p)) in list.iter().enumerate().skip(offset).take(h).enumerate() {
        let source = match p.source {
            "user" => "yours",
            _ => "learned",
        };
        let mark = if overruled(Some(view), p) {
            "overruled"
        } else {
            ""
        };
        let first = format!("{} …", sanitize_line(&p.first_words));
        let line = Line::from(vec![
            Span::raw(format!(
                " {} {} {} ",
                rcell(&p.documents.to_string(), docs_w),
                rcell(&p.words.to_string(), words_w),
                cell(source, source_w),
            )),
            Span::styled(cell(mark, mark_w), t.warn()),
            Span::raw(format!(" {}", cell(&first, first_w))),
        ]);
        put(buf, rows, dy as u16, &line);
        if i == selected {
            fill(
                buf,
                Rect::new(rows.x, rows.y + dy as u16, rows.width, 1),
                t.selected(true),
            );
        }
    }
    let chosen = &list[selected];
    let what = match (overruled(Some(view), chosen), chosen.source) {
        (true, _) => " o: boilerplate again (left out of its documents)",
        (false, "user") => " from your boilerplate folder: take its file out to keep it",
        (false, _) => " o: not boilerplate (compared again in its documents)",
    };
    let below = Rect::new(
        inner.x,
        inner.bottom().saturating_sub(FOOTER),
        inner.width,
        FOOTER,
    );
    put(buf, below, 0, &hint(t, what));
}
