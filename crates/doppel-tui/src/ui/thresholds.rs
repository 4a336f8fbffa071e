//! Thresholds panel: every algorithm's threshold on a slider, the kept
//! pairs that pass it (counted locally, so they move with each key press),
//! the clustering algorithm and mode, and a histogram of the selected
//! algorithm's pair scores with the threshold drawn on it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::{block, cell, fill, hint, put, rcell, threshold_text};
use crate::layout;
use crate::layout::visible_offset;
use crate::state::{threshold_similarity, AppState};
use crate::text;
use doppel_core::engine::algo::{AlgorithmId, Unit};
use doppel_index::worker::protocol::cluster_by_label;
use doppel_pairing::cluster::ClusterMode;

pub fn render(state: &AppState, body: Rect, buf: &mut Buffer) {
    let l = layout::thresholds(body, state.algorithms.len());
    header(state, l.header, buf);
    let Some(&id) = state.algorithms.get(state.thresholds.selected) else {
        table(state, l.table, buf);
        return;
    };
    if state.thresholds.about {
        // `i`: the selected algorithm in words, in place of the table and
        // the histogram (at 80×24 there is no room beside them).
        let below = l.table.union(l.histogram).union(l.info);
        info(state, id, below, buf);
        return;
    }
    table(state, l.table, buf);
    histogram(state, id, l.histogram, buf);
    if l.info.height >= 3 {
        info(state, id, l.info, buf);
    }
}

/// What an algorithm fingerprints and what its score counts.
pub fn describe(id: AlgorithmId) -> &'static str {
    match id {
        AlgorithmId::Exact => "xxh3-128 of the normalized word stream: equal or not.",
        AlgorithmId::Shingle => {
            "Word 4-shingles (Broder): Jaccard resemblance of the two sets, plus the \
             containment of each in the other."
        }
        AlgorithmId::Minhash => {
            "128 min-hashes estimate the shingles' Jaccard resemblance (Broder et al.); \
             LSH bands propose the candidates."
        }
        AlgorithmId::Supershingle => {
            "Super-shingles of groups of min-hashes (Broder; Fetterly et al.): how many match."
        }
        AlgorithmId::Simhash => {
            "64-bit SimHash of TF-IDF-weighted terms (Charikar; Manku et al.): how many bits differ."
        }
        AlgorithmId::SimhashShingle => {
            "SimHash over term 2-shingles weighted by summed IDF (Fan & Huang §3.1): \
             how many bits differ."
        }
        AlgorithmId::SimhashLexicons => {
            "One shingle SimHash per random lexicon (Fan & Huang §3.2; Kołcz et al.): \
             the smallest distance over the lexicons."
        }
        AlgorithmId::Imatch => {
            "I-Match (Chowdhury et al.): a hash of the sorted mid-IDF terms, equal or not."
        }
        AlgorithmId::ImatchLexicons => {
            "One I-Match signature per random lexicon (Kołcz et al.): how many match."
        }
        AlgorithmId::Winnow => {
            "Winnowed character 30-grams (Schleimer, Wilkerson & Aiken): Jaccard of the \
             fingerprint sets, plus containment."
        }
        AlgorithmId::Si => {
            "Roth's similarity index: 1 − the relative difference of the two documents' \
             Soundex 40-gram sketch sums (0.7 = ±30 %)."
        }
    }
}

fn info(state: &AppState, id: AlgorithmId, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let title = Line::from(vec![
        Span::styled(format!(" {id} "), t.title().patch(t.accent())),
        Span::styled("what it measures ", t.dim()),
        Span::styled(
            if state.thresholds.about {
                "· i back to the sliders "
            } else {
                ""
            },
            t.warn(),
        ),
    ]);
    let inner = block(t, buf, area, title, false);
    if inner.is_empty() {
        return;
    }
    let value = state.thresholds.thresholds.get(id);
    let mut lines = vec![Line::raw(describe(id)), Line::raw("")];
    lines.push(Line::raw(format!(
        "threshold {} (default {})",
        threshold_text(id, value),
        threshold_text(id, state.defaults.get(id))
    )));
    if let Some(s) = state.snapshot.as_deref() {
        let floor = s.floors.get(id);
        lines.push(Line::raw(format!(
            "floor {}: looser thresholds gather candidates again (slower)",
            threshold_text(id, floor)
        )));
        if id == AlgorithmId::Si && s.si_capped > 0 {
            lines.push(Line::raw(format!(
                "{} documents had their SI candidates capped (too many similar sizes)",
                s.si_capped
            )));
        }
        if let Some(n) = state.passing_pairs(id) {
            lines.push(Line::raw(format!(
                "{n} of {} kept pairs pass it now",
                state.sorted_scores.get(&id).map_or(0, Vec::len)
            )));
        }
    }
    ratatui::widgets::Paragraph::new(lines)
        .wrap(ratatui::widgets::Wrap { trim: true })
        .render(inner, buf);
}

fn header(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let th = &state.thresholds;
    let mode = match th.mode {
        ClusterMode::Components => "components",
        ClusterMode::Star => "star",
    };
    let mut spans = vec![
        Span::raw(" cluster by "),
        Span::styled(cluster_by_label(th.by), t.accent().patch(t.title())),
        Span::styled(" (c) ", t.dim()),
        Span::raw("· mode "),
        Span::styled(mode, t.accent().patch(t.title())),
        Span::styled(" (m) ", t.dim()),
    ];
    if let Some(s) = state.snapshot.as_deref() {
        let in_clusters: usize = s.clusters.iter().map(|c| c.members.len()).sum();
        spans.push(Span::raw(format!(
            "→ {} · {} · {} ",
            super::plural(s.clusters.len(), "cluster", "clusters"),
            super::plural(in_clusters, "doc", "docs"),
            super::plural(s.pairs, "pair", "pairs")
        )));
    }
    if th.awaiting {
        spans.push(Span::styled("⋯ re-clustering", t.warn()));
    }
    put(buf, area, 0, &Line::from(spans));
    put(
        buf,
        area,
        1,
        &hint(
            t,
            " j/k select · h/l or ←/→ adjust · H/L ×10 · 0 default · click or drag a slider",
        ),
    );
}

fn table(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let mut title = vec![Span::styled(" Thresholds ", t.title())];
    if crate::saving::unsaved(state) {
        // Room left by the corners, " Thresholds ", "· unsaved: S saves to "
        // and a cell of the border after the title.
        let room = usize::from(area.width).saturating_sub(2 + 12 + 22 + 2);
        let words = state
            .config_file
            .as_ref()
            .map_or("· unsaved ".to_owned(), |p| {
                let path = text::fit_start(&p.display().to_string(), room);
                format!("· unsaved: S saves to {path} ")
            });
        title.push(Span::styled(words, t.warn()));
    }
    let inner = block(t, buf, area, Line::from(title), true);
    if inner.is_empty() {
        return;
    }
    let rows = layout::rows(area, layout::THRESHOLD_HEADER).intersection(inner);
    let slider = layout::slider(rows);
    let (name_w, value_w, pass_w) = (
        usize::from(layout::T_NAME),
        usize::from(layout::T_VALUE),
        usize::from(layout::T_PASSING),
    );
    let header = format!(
        "{} {} {} {}",
        cell("algorithm", name_w),
        cell("threshold", value_w),
        rcell("pairs", pass_w),
        cell("loose ◂ slider ▸ strict", usize::from(slider.width)),
    );
    put(buf, inner, 0, &Line::styled(header, t.header()));
    let h = usize::from(rows.height);
    let off = visible_offset(0, state.thresholds.selected, h, state.algorithms.len());
    let floors = state.snapshot.as_ref().map(|s| &s.floors);
    for (dy, (i, &id)) in state
        .algorithms
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .enumerate()
    {
        let lim = state.limits_of(id);
        let value = state.thresholds.thresholds.get(id);
        let changed = (value - state.defaults.get(id)).abs() > 1e-9;
        let below_floor = floors.is_some_and(|f| !f.allows(id, value));
        let passing = state
            .passing_pairs(id)
            .map_or("–".to_owned(), |n| n.to_string());
        let name_style = if changed {
            t.changed()
        } else {
            ratatui::style::Style::new()
        };
        let mut spans = vec![
            Span::styled(cell(id.as_str(), name_w), name_style),
            Span::raw(" "),
            Span::styled(
                cell(&threshold_text(id, value), value_w),
                if below_floor { t.warn() } else { name_style },
            ),
            Span::raw(" "),
            Span::raw(rcell(&passing, pass_w)),
            Span::raw(" "),
        ];
        let sw = usize::from(slider.width);
        if sw >= 3 {
            let pos = ((threshold_similarity(id, value, &lim) * (sw - 1) as f64).round() as usize)
                .min(sw - 1);
            if lim.fixed() {
                spans.push(Span::styled(
                    cell("fixed: signatures equal or not", sw),
                    t.dim(),
                ));
            } else {
                spans.push(Span::styled("─".repeat(pos), t.dim()));
                spans.push(Span::styled("●", t.warn().patch(t.title())));
                spans.push(Span::styled("━".repeat(sw - 1 - pos), t.pass()));
            }
        }
        let row = Rect::new(rows.x, rows.y + dy as u16, rows.width, 1);
        if i == state.thresholds.selected {
            fill(buf, row, t.selected(true));
        }
        put(buf, row, 0, &Line::from(spans));
    }
}

const BARS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

fn histogram(state: &AppState, id: AlgorithmId, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let axis = match id.unit() {
        Unit::Similarity => "score",
        Unit::HammingBits => "1 − bits/64",
        Unit::Matches => "matches / all",
    };
    let title = Line::from(vec![
        Span::styled(format!(" {id} "), t.title().patch(t.accent())),
        Span::styled(format!("kept pairs by {axis}, log scale "), t.dim()),
        Span::styled("· i what it measures ", t.warn()),
    ]);
    let inner = block(t, buf, area, title, false);
    if inner.width < 4 || inner.height < 2 {
        return;
    }
    let values = state.sorted_scores.get(&id).map_or(&[][..], Vec::as_slice);
    let lim = state.limits_of(id);
    let at = threshold_similarity(id, state.thresholds.thresholds.get(id), &lim);
    let cols = usize::from(inner.width);
    let bar_h = usize::from(inner.height - 1);
    let t_col = ((at * cols as f64) as usize).min(cols - 1);
    // Column c holds [c/cols, (c+1)/cols); the ends take what lies beyond.
    let below = |x: f64| values.partition_point(|&v| v < x);
    let counts: Vec<usize> = (0..cols)
        .map(|c| {
            let lo = if c == 0 {
                0
            } else {
                below(c as f64 / cols as f64)
            };
            let hi = if c + 1 == cols {
                values.len()
            } else {
                below((c + 1) as f64 / cols as f64)
            };
            hi.saturating_sub(lo)
        })
        .collect();
    let max = counts.iter().copied().max().unwrap_or(0);
    if max == 0 {
        put(buf, inner, 0, &hint(t, " no kept pairs yet"));
    }
    let scale = (max as f64).ln_1p().max(f64::MIN_POSITIVE);
    for (x, &n) in counts.iter().enumerate() {
        // Height in eighths of a row, log scale, at least one eighth if any.
        let eighths = if n == 0 {
            0
        } else {
            (((n as f64).ln_1p() / scale) * (bar_h * 8) as f64)
                .round()
                .max(1.0) as usize
        };
        let style = if x >= t_col { t.pass() } else { t.fail() };
        for row in 0..bar_h {
            let from_bottom = bar_h - 1 - row;
            let level = eighths.saturating_sub(from_bottom * 8).min(8);
            let ch = if level == 0 && x == t_col {
                '│'
            } else {
                BARS[level]
            };
            let st = if x == t_col && level == 0 {
                t.warn()
            } else {
                style
            };
            let r = Rect::new(inner.x + x as u16, inner.y + row as u16, 1, 1);
            put(buf, r, 0, &Line::styled(ch.to_string(), st));
        }
    }
    // Axis: 0 … threshold … 1.
    let axis_y = inner.height - 1;
    let label = format!(
        "▲ {}",
        threshold_text(id, state.thresholds.thresholds.get(id))
    );
    let lw = label.chars().count();
    let lx = if t_col + lw <= cols {
        t_col
    } else {
        cols.saturating_sub(lw)
    };
    let mut line = vec![' '; cols];
    line[0] = '0';
    line[cols - 1] = '1';
    let axis_text: String = line.into_iter().collect();
    put(buf, inner, axis_y, &Line::styled(axis_text, t.dim()));
    let r = Rect::new(
        inner.x + lx as u16,
        inner.y,
        inner.width - lx as u16,
        inner.height,
    );
    put(buf, r, axis_y, &Line::styled(label, t.warn()));
}
