//! Pair detail: every algorithm's score for one pair — estimate, exact
//! value, threshold, verdict — with the algorithms that disagree with the
//! combined verdict highlighted and the selected one's reason in words.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::{block, cell, fill, hint, put, rcell, theme, threshold_text};
use crate::doc::CuratorVerdict;
use crate::faces::report::format_score;
use crate::faces::tui::layout::{self, visible_offset};
use crate::faces::tui::state::AppState;
use crate::faces::tui::text;
use crate::runtime::boilerplate::SideBoilerplate;
use crate::runtime::worker::protocol::{PairDetail, ScoreRow};

pub fn render(state: &AppState, body: Rect, buf: &mut Buffer) {
    let l = layout::pair(body);
    let Some((a, b)) = state.pair.requested.as_ref() else {
        put(
            buf,
            body,
            1,
            &hint(" No pair selected: pick a member in the cluster list (1) and press Enter."),
        );
        return;
    };
    let w = usize::from(body.width);
    put(buf, l.header, 0, &name_line("A ", &text::doc_path(a), w));
    put(buf, l.header, 1, &name_line("B ", &text::doc_path(b), w));
    let detail = state
        .pair
        .detail
        .as_deref()
        .filter(|d| (&d.a, &d.b) == (a, b) || (&d.a, &d.b) == (b, a));
    let Some(d) = detail else {
        put(
            buf,
            l.header,
            2,
            &hint(" computing every algorithm's score…"),
        );
        return;
    };
    // Each side's share of learned boilerplate, once the detail says.
    for (row, (label, doc, side)) in [("A ", a, d.side_of(a)), ("B ", b, d.side_of(b))]
        .into_iter()
        .enumerate()
    {
        if side.words > 0 {
            put(
                buf,
                l.header,
                row as u16,
                &boilerplate_name_line(label, &text::doc_path(doc), &side, w),
            );
        }
    }
    put(buf, l.header, 2, &verdict_line(d, state.algorithms.len()));
    put(buf, l.header, 3, &curator_line(state.verdict(a, b)));
    let why = why_text(d.rows.get(state.pair.row));
    // A reason longer than the panel takes rows from the table above,
    // which keeps its header and three rows.
    let wanted = wrapped_height(&why, usize::from(l.reason.width.saturating_sub(2))) + 2;
    let extra = wanted
        .saturating_sub(l.reason.height)
        .min(l.table.height.saturating_sub(6));
    let table_area = Rect {
        height: l.table.height - extra,
        ..l.table
    };
    let why_area = Rect {
        y: l.reason.y - extra,
        height: l.reason.height + extra,
        ..l.reason
    };
    table(state, d, table_area, buf);
    reason(state, d, why, why_area, buf);
}

fn name_line(label: &str, path: &str, w: usize) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!(" {label}"), theme::accent()),
        Span::styled(text::fit_start(path, w.saturating_sub(4)), theme::title()),
    ])
}

/// A side's name with how much of it is boilerplate, e.g. "· 76 %
/// boilerplate (shared by 4 documents)".
fn boilerplate_name_line(
    label: &str,
    path: &str,
    side: &SideBoilerplate,
    w: usize,
) -> Line<'static> {
    let note = format!(
        "  {} boilerplate (shared by {} documents)",
        text::percent(side.share()),
        side.shared_by
    );
    let room = w.saturating_sub(4 + note.chars().count());
    Line::from(vec![
        Span::styled(format!(" {label}"), theme::accent()),
        Span::styled(text::fit_start(path, room), theme::title()),
        Span::styled(note, theme::dim()),
    ])
}

fn verdict_line(d: &PairDetail, n: usize) -> Line<'static> {
    let passing = d.rows.iter().filter(|r| r.passes).count();
    let (word, style) = if d.fusion {
        ("duplicate", theme::pass())
    } else {
        ("not a duplicate", theme::fail())
    };
    Line::from(vec![
        Span::raw(" fusion: "),
        Span::styled(word, style.patch(theme::title())),
        Span::raw(format!(
            " · {passing} of {n} agree · A in B {} · B in A {}",
            text::percent(d.a_in_b),
            text::percent(d.b_in_a)
        )),
    ])
}

fn curator_line(v: Option<CuratorVerdict>) -> Line<'static> {
    let (word, style) = match v {
        Some(CuratorVerdict::Duplicate) => ("duplicate", theme::pass()),
        Some(CuratorVerdict::NotDuplicate) => ("not duplicate", theme::error()),
        None => ("no verdict", theme::dim()),
    };
    Line::from(vec![
        Span::raw(" curator: "),
        Span::styled(word, style),
        Span::styled("  (y duplicate · x not · u undo · d diff)", theme::dim()),
    ])
}

fn table(state: &AppState, d: &PairDetail, area: Rect, buf: &mut Buffer) {
    let disagree = d.rows.iter().filter(|r| r.passes != d.fusion).count();
    let title = Line::from(vec![
        Span::styled(" Scores ", theme::title()),
        if disagree > 0 {
            Span::styled(format!("· {disagree} disagree with fusion "), theme::warn())
        } else {
            Span::styled("· all agree ", theme::dim())
        },
    ]);
    let inner = block(buf, area, title, true);
    if inner.is_empty() {
        return;
    }
    let w = usize::from(inner.width);
    let (name_w, score_w, exact_w, thr_w, ver_w) = (16, 20, 6, 10, 7);
    let fixed = 1 + name_w + 1 + score_w + 1 + exact_w + 1 + thr_w + 1 + ver_w + 1;
    let reason_w = w.saturating_sub(fixed);
    let header = format!(
        " {} {} {} {} {} {}",
        cell("algorithm", name_w),
        cell("score", score_w),
        rcell("exact", exact_w),
        cell("threshold", thr_w),
        cell("verdict", ver_w),
        cell("reason", reason_w)
    );
    put(buf, inner, 0, &Line::styled(header, theme::header()));
    let rows = layout::rows(area, 1).intersection(inner);
    let h = usize::from(rows.height);
    let off = visible_offset(0, state.pair.row, h, d.rows.len());
    for (dy, (i, r)) in d.rows.iter().enumerate().skip(off).take(h).enumerate() {
        let against = r.passes != d.fusion;
        let base = if against {
            theme::warn()
        } else {
            ratatui::style::Style::new()
        };
        let (verdict, vstyle) = if r.passes {
            ("✓ dup", theme::pass())
        } else {
            ("✗", theme::fail())
        };
        let exact = r.exact.map_or("–".to_owned(), |v| format!("{v:.3}"));
        let summary = r.reason.lines().next().unwrap_or_default();
        let line = Line::from(vec![
            Span::styled(if against { "≠" } else { " " }, theme::warn()),
            Span::styled(cell(r.id.as_str(), name_w), base),
            Span::raw(" "),
            Span::styled(cell(&format_score(&r.score), score_w), base),
            Span::raw(" "),
            Span::raw(rcell(&exact, exact_w)),
            Span::raw(" "),
            Span::raw(cell(&threshold_text(r.id, r.threshold), thr_w)),
            Span::raw(" "),
            Span::styled(cell(verdict, ver_w), vstyle),
            Span::raw(" "),
            Span::styled(cell(summary, reason_w), theme::dim()),
        ]);
        let row = Rect::new(rows.x, rows.y + dy as u16, rows.width, 1);
        if i == state.pair.row {
            fill(buf, row, theme::selected(true));
        }
        put(buf, row, 0, &line);
    }
}

/// The selected row's reason in words (one paragraph per line of it), its
/// first line closed by the verdict.
fn why_text(r: Option<&ScoreRow>) -> Vec<String> {
    let Some(r) = r else {
        return Vec::new();
    };
    let verdict = if r.passes {
        "passes its threshold"
    } else {
        "does not pass its threshold"
    };
    let mut lines: Vec<String> = r
        .reason
        .lines()
        .map(|line| text::sanitize(line).into_owned())
        .collect();
    let close = format!(" — {} ({}).", verdict, threshold_text(r.id, r.threshold));
    match lines.first_mut() {
        Some(first) => first.push_str(&close),
        None => lines.push(close),
    }
    lines
}

/// Rows `lines` take word-wrapped at `width` cells (as the panel wraps).
fn wrapped_height(lines: &[String], width: usize) -> u16 {
    let width = width.max(1);
    let rows: usize = lines
        .iter()
        .map(|line| {
            let (mut rows, mut used) = (1, 0);
            for word in line.split(' ') {
                let w = text::width(word);
                if used > 0 && used + 1 + w <= width {
                    used += 1 + w;
                    continue;
                }
                // A new row, and more for a word wider than the panel.
                let spill = w.saturating_sub(1) / width;
                rows += usize::from(used > 0) + spill;
                used = w - spill * width;
            }
            rows
        })
        .sum();
    u16::try_from(rows).unwrap_or(u16::MAX)
}

fn reason(state: &AppState, d: &PairDetail, why: Vec<String>, area: Rect, buf: &mut Buffer) {
    let Some(r) = d.rows.get(state.pair.row) else {
        return;
    };
    let title = Line::from(vec![
        Span::styled(" Why: ", theme::title()),
        Span::styled(format!("{} ", r.id), theme::accent()),
    ]);
    let inner = block(buf, area, title, false);
    if inner.is_empty() {
        return;
    }
    let body: Vec<Line> = why.into_iter().map(Line::from).collect();
    Paragraph::new(body)
        .wrap(Wrap { trim: true })
        .render(inner, buf);
}
