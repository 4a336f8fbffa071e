//! The frame around every screen: the tab bar, the status bar (watch
//! state, progress gauge, counts, last event) and the prompt line.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};

use super::{fill, put};
use crate::layout;
use crate::state::{AppState, Level, Prompt};
use crate::text;
use doppel_index::worker::protocol::{Stage, WatchState};

pub fn tabs(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    fill(buf, area, t.status());
    let (brand, spans) = layout::tabs(area.width);
    let mut line = vec![Span::styled(brand, t.title().patch(t.accent()))];
    let mut x = line[0].width() as u16;
    for (screen, x0, _) in &spans {
        while x < *x0 {
            line.push(Span::raw(" "));
            x += 1;
        }
        let label = layout::tab_label(*screen, area.width);
        x += label.chars().count() as u16;
        line.push(Span::styled(label, t.tab(*screen == state.screen)));
    }
    put(buf, area, 0, &Line::from(line));
    // The folder and the help key on the right, as room allows.
    let room = usize::from(area.width.saturating_sub(x + 2));
    let help = "· ? help ";
    if room >= help.len() {
        let root_room = room - help.len();
        let root = if root_room >= 8 {
            format!("{} ", text::fit_start(&state.root, root_room - 1))
        } else {
            String::new()
        };
        let right = Line::from(vec![
            Span::styled(root.clone(), t.accent()),
            Span::styled(help, t.dim()),
        ]);
        let w = right.width() as u16;
        let r = Rect::new(area.right().saturating_sub(w), area.y, w, 1);
        put(buf, r, 0, &right);
    }
}

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

pub fn status(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    fill(buf, area, t.status());
    let mut spans: Vec<Span> = Vec::new();
    let spin = SPINNER[(state.ticks % SPINNER.len() as u64) as usize];
    let scanning = state.progress.is_some_and(|p| p.stage != Stage::Idle);
    let (word, style) = if !state.worker_running {
        ("■ stopped".to_owned(), t.error())
    } else {
        match &state.watch {
            None if scanning => (format!("{spin} scanning"), t.accent()),
            None if state.snapshot.is_some() => ("● indexed".to_owned(), t.pass()),
            None => (format!("{spin} starting"), t.accent()),
            Some(WatchState::Watching) if scanning => (format!("{spin} scanning"), t.accent()),
            Some(WatchState::Watching) => ("● watching".to_owned(), t.pass()),
            Some(WatchState::Scanning) => (format!("{spin} scanning"), t.accent()),
            Some(WatchState::Polling { .. }) => ("◐ polling".to_owned(), t.warn()),
            Some(WatchState::Paused { .. }) => ("‖ paused".to_owned(), t.error()),
        }
    };
    spans.push(Span::styled(format!(" {word} "), style));
    if let Some(p) = state.progress.filter(|p| p.stage != Stage::Idle) {
        let stage = match p.stage {
            Stage::Opening => "opening",
            Stage::Listing => "listing",
            Stage::Reading => "reading",
            Stage::Clustering => "clustering",
            Stage::Idle => "idle",
        };
        if let Some(done) = (p.done.min(p.total).saturating_mul(16)).checked_div(p.total) {
            let gauge_w = if area.width >= 100 { 16 } else { 8 };
            let done = done * gauge_w / 16;
            spans.push(Span::raw(format!("{stage} {}/{} ", p.done, p.total)));
            spans.push(Span::styled("█".repeat(done), t.accent()));
            spans.push(Span::styled("░".repeat(gauge_w - done), t.dim()));
            spans.push(Span::raw(" "));
        } else {
            spans.push(Span::raw(format!("{stage} {} ", p.done)));
        }
    }
    spans.push(Span::styled("│ ", t.dim()));
    if let Some(s) = state.snapshot.as_deref() {
        spans.push(Span::raw(format!(
            "{} · {} · {} skipped ",
            super::plural(s.documents, "doc", "docs"),
            super::plural(s.clusters.len(), "cluster", "clusters"),
            s.skipped.len()
        )));
        // The key of the boilerplate overlay, once there is any; its
        // counts as the overlay's title gives them.
        if !s.boilerplate.passages.is_empty() {
            let (left_out, overruled) = crate::boilerplate::counts(state);
            let text = match overruled {
                0 => format!("· {left_out} boilerplate (b) "),
                n => format!("· {left_out} boilerplate, {n} overruled (b) "),
            };
            spans.push(Span::styled(text, t.dim()));
        }
    } else {
        spans.push(Span::styled("no snapshot yet ", t.dim()));
    }
    if state.thresholds.awaiting {
        spans.push(Span::styled("⋯ re-clustering ", t.warn()));
    }
    let used: usize = spans.iter().map(Span::width).sum();
    let room = usize::from(area.width).saturating_sub(used + 2);
    // A notice is on the message line above, whole.
    let shown_above = state
        .notice
        .as_ref()
        .is_some_and(|(_, n)| Some(n) == state.last_event.as_ref());
    // The documents screen's key on the right, as room allows.
    let docs_hint = "D documents ";
    let hint_w = if room >= docs_hint.len() + 8 {
        docs_hint.len()
    } else {
        0
    };
    let room = room.saturating_sub(hint_w);
    if let Some(e) = state.last_event.as_ref().filter(|_| !shown_above) {
        if room > 4 {
            spans.push(Span::styled("│ ", t.dim()));
            spans.push(Span::raw(text::fit_end(e, room)));
        }
    }
    put(buf, area, 0, &Line::from(spans));
    if hint_w > 0 {
        let r = Rect::new(
            area.right().saturating_sub(hint_w as u16),
            area.y,
            hint_w as u16,
            1,
        );
        put(buf, r, 0, &Line::styled(docs_hint, t.dim()));
    }
}

/// The message line: the notice's `rows` (see
/// [`layout::notice_rows`]), styled by its level.
pub fn notice(state: &AppState, rows: &[String], area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let style = match state.notice.as_ref().map(|(level, _)| *level) {
        Some(Level::Error) => t.error(),
        Some(Level::Warn) => t.warn(),
        _ => ratatui::style::Style::new(),
    };
    fill(buf, area, ratatui::style::Style::new());
    for (dy, row) in rows.iter().enumerate() {
        put(
            buf,
            area,
            dy as u16,
            &Line::styled(format!(" {row}"), style),
        );
    }
}

/// The prompt line; the cursor position for the terminal.
pub fn prompt(state: &AppState, area: Rect, buf: &mut Buffer) -> Option<Position> {
    let t = state.theme;
    let (label, input) = match state.prompt.as_ref()? {
        Prompt::Filter { input } => ("/ filter by name: ", input),
        Prompt::Export { input } => ("export to (prefix): ", input),
        Prompt::Quarantine { input } => ("quarantine folder (outside the watched one): ", input),
        Prompt::Search { input } => ("/ search the diff: ", input),
    };
    let hint = "  Enter ok · Esc cancel";
    let w = usize::from(area.width);
    let label_w = label.chars().count();
    let hint_w = if w > label_w + 20 + hint.chars().count() {
        hint.chars().count()
    } else {
        0
    };
    let room = w.saturating_sub(label_w + hint_w + 1);
    let shown = text::fit_start(input, room);
    let shown_w = text::width(&shown);
    let mut spans = vec![
        Span::styled(label, t.accent()),
        Span::raw(shown),
        Span::raw(" "),
    ];
    if hint_w > 0 {
        spans.push(Span::styled(hint, t.dim()));
    }
    fill(buf, area, ratatui::style::Style::new());
    put(buf, area, 0, &Line::from(spans));
    let x = area.x + (label_w + shown_w).min(w.saturating_sub(1)) as u16;
    Some(Position::new(x, area.y))
}
