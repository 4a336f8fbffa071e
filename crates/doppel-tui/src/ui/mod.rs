//! Drawing: [`render`] is a pure function of [`AppState`] into a frame.
//! Each screen has its own module; layout comes from [`super::layout`]
//! (shared with mouse hit-testing) and every style from `theme`.
//!
//! Every write goes through [`put`], which clips to the buffer, so no size
//! from 0×0 up can index outside it; every untrusted string goes through
//! [`super::text`] first.

pub(crate) mod acting;
pub(crate) mod boilerplate;
pub(crate) mod chrome;
pub(crate) mod clusters;
pub(crate) mod curators;
pub(crate) mod diff;
pub(crate) mod documents;
pub(crate) mod help;
pub(crate) mod lists;
pub(crate) mod pair;
pub(crate) mod theme;
pub(crate) mod thresholds;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};
use ratatui::Frame;

use super::layout;
use super::state::{AppState, Screen};
use super::text;
use doppel_core::engine::algo::{AlgorithmId, Score, Unit};
pub use theme::Theme;
pub use thresholds::describe as describe_algorithm;

/// Draw the whole UI for `state`.
pub fn render(state: &AppState, frame: &mut Frame) {
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let notice = layout::notice_rows(state, area.width, area.height);
    let Some(f) = layout::frame(area, state.prompt.is_some(), notice.len() as u16) else {
        too_small(area, frame.buffer_mut());
        return;
    };
    let buf = frame.buffer_mut();
    chrome::tabs(state, f.tabs, buf);
    match state.screen {
        Screen::Clusters => clusters::render(state, f.body, buf),
        Screen::Pair => pair::render(state, f.body, buf),
        Screen::Diff => diff::render(state, f.body, buf),
        Screen::Thresholds => thresholds::render(state, f.body, buf),
        Screen::Skipped => lists::skipped(state, f.body, buf),
        Screen::Log => lists::log(state, f.body, buf),
        Screen::Documents => documents::render(state, f.body, buf),
    }
    chrome::status(state, f.status, buf);
    if let Some(r) = f.notice {
        chrome::notice(state, &notice, r, buf);
    }
    // Help over the boilerplate overlay: `?` opens it from there too.
    if let Some(view) = &state.boilerplate {
        boilerplate::render(state, view, f.body, buf);
    }
    if let Some(scroll) = state.help {
        help::render(state.theme, scroll, f.body, buf);
    }
    if let Some(view) = &state.act.view {
        acting::render(state.theme, view, f.body, buf);
    }
    if let Some(p) = f.prompt {
        if let Some(cursor) = chrome::prompt(state, p, frame.buffer_mut()) {
            frame.set_cursor_position(cursor);
        }
    }
}

fn too_small(area: Rect, buf: &mut Buffer) {
    let msg = format!(
        "doppel: terminal too small ({}×{}, needs {}×{})",
        area.width,
        area.height,
        layout::MIN_WIDTH,
        layout::MIN_HEIGHT
    );
    let lines = [msg.as_str(), "q quits"];
    for (i, l) in lines.iter().enumerate() {
        put(buf, area, i as u16, &Line::from(*l));
    }
}

/// Write `line` on row `dy` of `area`, clipped to `area` and the buffer.
pub fn put(buf: &mut Buffer, area: Rect, dy: u16, line: &Line<'_>) {
    let area = area.intersection(buf.area);
    if area.is_empty() || dy >= area.height {
        return;
    }
    buf.set_line(area.x, area.y + dy, line, area.width);
}

/// Write `line` at column `dx` of row `dy` of `area`, clipped.
pub fn put_at(buf: &mut Buffer, area: Rect, dx: u16, dy: u16, line: &Line<'_>) {
    if dx >= area.width {
        return;
    }
    let r = Rect::new(area.x + dx, area.y, area.width - dx, area.height);
    put(buf, r, dy, line);
}

/// A bordered block with a title, clipped to the buffer; returns its inside.
pub fn block(t: Theme, buf: &mut Buffer, area: Rect, title: Line<'_>, focused: bool) -> Rect {
    let area = area.intersection(buf.area);
    if area.width < 2 || area.height < 2 {
        return Rect::new(area.x, area.y, 0, 0);
    }
    Block::default()
        .borders(Borders::ALL)
        .border_style(t.border(focused))
        .border_type(t.border_type(focused))
        .title(title)
        .render(area, buf);
    layout::inner(area)
}

/// Fill `area` with `style` (for selected rows).
pub fn fill(buf: &mut Buffer, area: Rect, style: Style) {
    let area = area.intersection(buf.area);
    if !area.is_empty() {
        buf.set_style(area, style);
    }
}

/// A cell of `w` columns: `s` fitted and padded (left-aligned).
pub fn cell(s: &str, w: usize) -> String {
    let t = text::fit_end(s, w);
    let pad = w.saturating_sub(text::width(&t));
    format!("{t}{}", " ".repeat(pad))
}

/// A cell of `w` columns, right-aligned.
pub fn rcell(s: &str, w: usize) -> String {
    let t = text::fit_end(s, w);
    let pad = w.saturating_sub(text::width(&t));
    format!("{}{t}", " ".repeat(pad))
}

/// A path cell of `w` columns, keeping the file name when cut.
pub fn path_cell(s: &str, w: usize) -> String {
    let t = text::fit_start(s, w);
    let pad = w.saturating_sub(text::width(&t));
    format!("{t}{}", " ".repeat(pad))
}

/// A score in a few characters: `0.87`, `3 bits`, `4/6`, `n/a`.
pub fn short_score(score: &Score) -> String {
    match *score {
        Score::Similarity { value } => format!("{value:.2}"),
        Score::Overlap { resemblance, .. } => format!("{resemblance:.2}"),
        Score::Hamming { distance, .. } => format!("{distance} bits"),
        Score::Matches { matched, of } => format!("{matched}/{of}"),
        Score::Incomparable => "n/a".to_owned(),
    }
}

/// A threshold with its direction and unit: `≥ 0.50`, `≤ 6 bits`, `≥ 2`.
pub fn threshold_text(id: AlgorithmId, t: f64) -> String {
    if matches!(id, AlgorithmId::Exact | AlgorithmId::Imatch) {
        return "= equal".to_owned();
    }
    match id.unit() {
        Unit::HammingBits => format!("≤ {t:.0} bits"),
        Unit::Matches => format!("≥ {t:.0}"),
        Unit::Similarity => format!("≥ {t:.2}"),
    }
}

/// One character per algorithm, for the members' pass map.
pub fn code(id: AlgorithmId) -> char {
    match id {
        AlgorithmId::Exact => 'x',
        AlgorithmId::Shingle => 's',
        AlgorithmId::Minhash => 'm',
        AlgorithmId::Supershingle => 'S',
        AlgorithmId::Simhash => 'h',
        AlgorithmId::SimhashShingle => 'H',
        AlgorithmId::SimhashLexicons => 'L',
        AlgorithmId::Imatch => 'i',
        AlgorithmId::ImatchLexicons => 'I',
        AlgorithmId::Winnow => 'w',
        AlgorithmId::Si => 'r',
    }
}

/// A dim hint line.
pub fn hint(t: Theme, s: &str) -> Line<'static> {
    Line::from(Span::styled(s.to_owned(), t.dim()))
}

/// `n` and the noun, singular or plural: "1 cluster", "2 clusters".
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
