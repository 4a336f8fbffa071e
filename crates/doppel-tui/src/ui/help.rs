//! The help overlay: every key, from [`crate::keymap::HELP`],
//! then what the screens' symbols, letters and columns mean ([`LEGEND`]).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

use super::{block, cell, code, put, Theme};
use crate::keymap::HELP;
use crate::layout;
use doppel_core::engine::algo::AlgorithmId;

/// (symbol or column, what it means) — the legend below the keys.
pub const LEGEND: &[(&str, &str)] = &[
    (
        "● ○ ·",
        "passes its threshold / fails it / no score (members' strip)",
    ),
    (
        "≠",
        "algorithms disagree: on a cluster, one passes on some links only; \
         in the pair table, the algorithm against the fusion verdict",
    ),
    ("★", "kept: the copy to keep"),
    (
        "☆",
        "suggested keeper (no member kept yet), the representative M keeps: \
         the complete text, then the best text quality, plain text, UTF-8, \
         the copy the others agree with, most words, oldest; Space on \
         another member overrides it",
    ),
    (
        "⚑",
        "a pinned pair: your verdict (dup / not dup) overrides every algorithm",
    ),
    (
        "qual",
        "text quality: share of dictionary words less OCR-like words \
         (rn/m, l/1, e/c inside words); `*` where a low OCR confidence \
         (ALTO, hOCR) holds it down",
    ),
    (
        "◆",
        "the member pairs open from (a), instead of the representative",
    ),
    ("┃", "diff: a passage winnowing found in both documents"),
    ("▶", "diff: the change or match n/N jumped to"),
    (
        "agree",
        "algorithms whose threshold a member passes against the \
         representative; a cluster row shows its lowest member",
    ),
    (
        "weakest link",
        "the cluster's least similar linked pair: under fusion the share of \
         algorithms agreeing on it, else that algorithm's score",
    ),
    (
        "reviewed",
        "members the curator has judged against the representative, of \
         all the cluster's members but it",
    ),
    (
        "verdict",
        "yours on a member and the representative: dup (y), not dup (x), \
         – not judged yet",
    ),
    (
        "rep · via link",
        "the representative · a member linked only through another",
    ),
    (
        "actual",
        "pair table: the exact measure an estimate approximates (Jaccard of \
         the full shingle sets, TF-IDF cosine)",
    ),
];

/// The overlay's lines: a heading per section, then its keys; then the
/// legend, with the members' algorithm letters.
fn lines(t: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut section = "";
    for (s, keys, what) in HELP {
        if *s != section {
            if !section.is_empty() {
                out.push(Line::raw(""));
            }
            section = s;
            out.push(Line::styled(format!(" {s}"), t.title().patch(t.accent())));
        }
        out.push(Line::from(vec![
            Span::styled(format!("   {} ", cell(keys, 24)), t.warn()),
            Span::raw(*what),
        ]));
    }
    out.push(Line::raw(""));
    out.push(Line::styled(" Legend", t.title().patch(t.accent())));
    let letters = AlgorithmId::ALL.map(|id| (code(id).to_string(), id.as_str()));
    let letters = letters.iter().map(|(c, id)| (c.as_str(), *id));
    for (symbol, what) in LEGEND.iter().copied().chain(letters) {
        out.push(Line::from(vec![
            Span::styled(format!("   {} ", cell(symbol, 24)), t.warn()),
            Span::raw(what),
        ]));
    }
    out
}

/// Lines in the overlay (for scrolling).
pub fn line_count(_width: u16) -> usize {
    lines(Theme::Default).len()
}

pub fn render(t: Theme, scroll: usize, body: Rect, buf: &mut Buffer) {
    let all = lines(t);
    let area = layout::help(body, all.len() as u16).intersection(buf.area);
    if area.width < 4 || area.height < 3 {
        return;
    }
    Clear.render(area, buf);
    let title = Line::from(vec![
        Span::styled(" Keys ", t.title()),
        Span::styled("· j/k scroll · Esc closes ", t.dim()),
    ]);
    let inner = block(t, buf, area, title, true);
    let h = usize::from(inner.height);
    let scroll = scroll.min(all.len().saturating_sub(h));
    for (dy, line) in all.iter().skip(scroll).take(h).enumerate() {
        put(buf, inner, dy as u16, line);
    }
}
