//! Pair detail: every algorithm's score for one pair — estimate, exact
//! value, threshold, verdict — with the algorithms that disagree with the
//! combined verdict highlighted and the selected one's reason in words.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{block, cell, curators, fill, hint, put, rcell, threshold_text, Theme};
use crate::layout;
use crate::layout::visible_offset;
use crate::state::AppState;
use crate::text;
use doppel_core::engine::algo::{AlgorithmId, AlgorithmSet};
use doppel_core::engine::{Containments, Relation, Side};
use doppel_index::boilerplate::SideBoilerplate;
use doppel_index::worker::protocol::{PairDetail, ScoreRow};
use doppel_pairing::cluster::{ClusterBy, ClusterSpec};
use doppel_report::format_score;

pub fn render(state: &AppState, body: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let l = layout::pair(body);
    let Some((a, b)) = state.pair.requested.as_ref() else {
        put(
            buf,
            body,
            1,
            &hint(
                t,
                " No pair selected: pick a member in the cluster list (1) and press Enter.",
            ),
        );
        return;
    };
    let w = usize::from(body.width);
    for (dy, label, path) in [(0, "A ", a), (1, "B ", b)] {
        let deleted = state.deleted.contains(path);
        let line = name_line(
            t,
            label,
            &text::doc_path(path),
            deleted,
            w.saturating_sub(4),
        );
        put(buf, l.header, dy, &line);
    }
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
            &hint(t, " computing every algorithm's score…"),
        );
        return;
    };
    // Each side's share of learned boilerplate, once the detail says.
    for (dy, label, path) in [(0, "A ", a), (1, "B ", b)] {
        let side = d.side_of(path);
        if side.words > 0 {
            let line = boilerplate_name_line(
                t,
                label,
                &text::doc_path(path),
                state.deleted.contains(path),
                &side,
                w.saturating_sub(4),
            );
            put(buf, l.header, dy, &line);
        }
    }
    let spec = state.snapshot.as_ref().map(|s| &s.spec);
    put(buf, l.header, 2, &verdict_line(t, d, spec, w));
    put(
        buf,
        l.header,
        3,
        &votes_line(t, d, spec, &state.algorithms, w),
    );
    put(
        buf,
        l.header,
        4,
        &curators::line(t, state.my_verdict(a, b), Some(&d.curators)),
    );
    let r = reason_layout(state, d, body);
    table(state, d, r.table, buf);
    if state.pair.history {
        curators::history(state, &r, buf);
    } else {
        reason(state, d, &r, buf);
    }
}

/// The score table and the reason panel below it, and the reason's text
/// in rows of the panel's width.
pub struct ReasonLayout {
    pub table: Rect,
    pub reason: Rect,
    pub rows: Vec<String>,
}

impl ReasonLayout {
    /// The first reason row that can be shown at the top (the rest of the
    /// text fills the panel).
    pub fn max_scroll(&self) -> usize {
        self.rows
            .len()
            .saturating_sub(usize::from(self.reason.height.saturating_sub(2)))
    }
}

/// A reason longer than its panel takes rows from the table above (which
/// keeps its header and three rows); what still does not fit scrolls.
pub fn reason_layout(state: &AppState, d: &PairDetail, body: Rect) -> ReasonLayout {
    let l = layout::pair(body);
    let text = if state.pair.history {
        curators::history_rows(&d.curators)
    } else {
        why_text(d.rows.get(state.pair.row))
    };
    let rows: Vec<String> = text
        .iter()
        .flat_map(|p| text::wrap(p, usize::from(l.reason.width.saturating_sub(2))))
        .collect();
    let wanted = u16::try_from(rows.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2);
    let extra = wanted
        .saturating_sub(l.reason.height)
        .min(l.table.height.saturating_sub(6));
    ReasonLayout {
        table: Rect {
            height: l.table.height - extra,
            ..l.table
        },
        reason: Rect {
            y: l.reason.y - extra,
            height: l.reason.height + extra,
            ..l.reason
        },
        rows,
    }
}

/// A document's name in `room` columns after its label, and `deleted`
/// when it left the folder.
pub(crate) fn name_line(
    t: Theme,
    label: &str,
    path: &str,
    deleted: bool,
    room: usize,
) -> Line<'static> {
    let mark = if deleted { DELETED } else { "" };
    let room = room.saturating_sub(mark.len());
    Line::from(vec![
        Span::styled(format!(" {label}"), t.accent()),
        Span::styled(text::fit_start(path, room), t.title()),
        Span::styled(mark, t.error()),
    ])
}

/// After a name whose file was deleted since the pair was opened.
const DELETED: &str = " (deleted)";

/// A side's name with how much of it is boilerplate, e.g. "76 %
/// boilerplate (shared by 4 documents)", in `room` columns after its label.
fn boilerplate_name_line(
    t: Theme,
    label: &str,
    path: &str,
    deleted: bool,
    side: &SideBoilerplate,
    room: usize,
) -> Line<'static> {
    let note = format!(
        "  {} boilerplate (shared by {} documents)",
        text::percent(side.share()),
        side.shared_by
    );
    let mut line = name_line(
        t,
        label,
        path,
        deleted,
        room.saturating_sub(note.chars().count()),
    );
    line.push_span(Span::styled(note, t.dim()));
    line
}

/// The fusion verdict and, in one sentence, the rule that gave it.
fn verdict_line(t: Theme, d: &PairDetail, spec: Option<&ClusterSpec>, w: usize) -> Line<'static> {
    let (word, style) = if d.fusion {
        ("duplicate", t.pass())
    } else {
        ("not a duplicate", t.fail())
    };
    let mut spans = vec![
        Span::raw(" fusion: "),
        Span::styled(word, style.patch(t.title())),
    ];
    if let Some(spec) = spec {
        let used = 9 + word.len();
        let rule = format!(" — its rule: {}.", spec.fusion.describe());
        spans.push(Span::raw(text::fit_end(&rule, w.saturating_sub(used))));
    }
    Line::from(spans)
}

/// Agreement counted as the fusion rule counts it (the votes of the
/// families that agree; who does not vote said last), containment, and
/// what links clusters when that is not fusion.
fn votes_line(
    t: Theme,
    d: &PairDetail,
    spec: Option<&ClusterSpec>,
    algorithms: &[AlgorithmId],
    w: usize,
) -> Line<'static> {
    let passing: AlgorithmSet = d.rows.iter().filter(|r| r.passes).map(|r| r.id).collect();
    let silent: Vec<&str> = spec.map_or(Vec::new(), |s| {
        algorithms
            .iter()
            .filter(|id| !s.fusion.voters.contains(id))
            .map(|id| id.as_str())
            .collect()
    });
    let mut line = match spec {
        // Votes are counted by family, as the rule counts them.
        Some(s) => {
            let agreeing: Vec<&str> = s
                .fusion
                .agreeing(passing)
                .iter()
                .map(|f| f.as_str())
                .collect();
            format!(
                " {} votes ({} needed): {}",
                s.fusion.votes(passing),
                s.fusion.votes_needed,
                if agreeing.is_empty() {
                    "no family agrees".to_owned()
                } else {
                    agreeing.join(" + ")
                }
            )
        }
        None => format!(" {} of {} algorithms pass", passing.len(), d.rows.len()),
    };
    line.push_str(&format!(
        " · A in B {} · B in A {}",
        text::percent(d.a_in_b),
        text::percent(d.b_in_a)
    ));
    if let Some(words) = spec.and_then(|s| relation_words(d, s)) {
        line.push_str(&format!(" · {words}"));
    }
    if !silent.is_empty() {
        let verb = if silent.len() == 1 { "does" } else { "do" };
        line.push_str(&format!(" · {} {verb} not vote", silent.join(", ")));
    }
    let mut spans = vec![Span::raw(line)];
    if let Some(ClusterBy::Algorithm(id)) = spec.map(|s| s.by) {
        spans.push(Span::styled(
            format!(" · clusters link by {id} alone"),
            t.warn(),
        ));
    }
    let used: usize = spans.iter().map(Span::width).sum();
    if used > w {
        let all: String = spans.iter().map(|s| s.content.as_ref()).collect();
        return Line::raw(text::fit_end(&all, w));
    }
    Line::from(spans)
}

/// A part and its whole, e.g. "A ⊂ B, 97 % of A", or "related"; nothing
/// for a duplicate (the verdict line says it) or no relation. From the
/// shingle score's containments, as the scan decides it (the detail holds
/// no shingle counts: the smaller side is taken to have enough).
fn relation_words(d: &PairDetail, spec: &ClusterSpec) -> Option<String> {
    let shingle = d.rows.iter().find(|r| r.id == AlgorithmId::Shingle)?;
    let rule = &spec.fusion.relations;
    match rule.relation(
        Containments::of(&shingle.score),
        rule.min_shingles,
        d.fusion,
    )? {
        Relation::Contains { whole: Side::B } => {
            Some(format!("A ⊂ B, {} of A", text::percent(d.a_in_b)))
        }
        Relation::Contains { whole: Side::A } => {
            Some(format!("B ⊂ A, {} of B", text::percent(d.b_in_a)))
        }
        Relation::Related => Some("related".to_owned()),
        Relation::Duplicate => None,
    }
}

fn table(state: &AppState, d: &PairDetail, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let disagree = d.rows.iter().filter(|r| r.passes != d.fusion).count();
    let title = Line::from(vec![
        Span::styled(" Scores ", t.title()),
        if disagree > 0 {
            Span::styled(format!("· {disagree} disagree with fusion "), t.warn())
        } else {
            Span::styled("· all agree ", t.dim())
        },
    ]);
    let inner = block(t, buf, area, title, true);
    if inner.is_empty() {
        return;
    }
    let w = usize::from(inner.width);
    // "actual": the measure an estimate approximates, on the full sets.
    let (name_w, score_w, exact_w, thr_w, ver_w) = (16, 20, 6, 10, 7);
    let fixed = 1 + name_w + 1 + score_w + 1 + exact_w + 1 + thr_w + 1 + ver_w + 1;
    let reason_w = w.saturating_sub(fixed);
    let header = format!(
        " {} {} {} {} {} {}",
        cell("algorithm", name_w),
        cell("score", score_w),
        rcell("actual", exact_w),
        cell("threshold", thr_w),
        cell("verdict", ver_w),
        cell("reason", reason_w)
    );
    put(buf, inner, 0, &Line::styled(header, t.header()));
    let rows = layout::rows(area, 1).intersection(inner);
    let h = usize::from(rows.height);
    let off = visible_offset(0, state.pair.row, h, d.rows.len());
    for (dy, (i, r)) in d.rows.iter().enumerate().skip(off).take(h).enumerate() {
        let against = r.passes != d.fusion;
        let base = if against {
            t.warn()
        } else {
            ratatui::style::Style::new()
        };
        let (verdict, vstyle) = if r.passes {
            ("✓ dup", t.pass())
        } else {
            ("✗", t.fail())
        };
        let exact = r.exact.map_or("–".to_owned(), |v| format!("{v:.3}"));
        let summary = r.reason.lines().next().unwrap_or_default();
        let line = Line::from(vec![
            Span::styled(if against { "≠" } else { " " }, t.warn()),
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
            Span::styled(cell(summary, reason_w), t.dim()),
        ]);
        let row = Rect::new(rows.x, rows.y + dy as u16, rows.width, 1);
        if i == state.pair.row {
            fill(buf, row, t.selected(true));
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

fn reason(state: &AppState, d: &PairDetail, r: &ReasonLayout, buf: &mut Buffer) {
    let t = state.theme;
    let Some(row) = d.rows.get(state.pair.row) else {
        return;
    };
    let h = usize::from(r.reason.height.saturating_sub(2));
    let scroll = state.pair.why_scroll.min(r.max_scroll());
    let mut title = vec![
        Span::styled(" Why: ", t.title()),
        Span::styled(format!("{} ", row.id), t.accent()),
    ];
    if r.rows.len() > h {
        let last = (scroll + h).min(r.rows.len());
        title.push(Span::styled(
            format!(
                "· rows {}–{last} of {} · J/K scroll ",
                scroll + 1,
                r.rows.len()
            ),
            t.warn(),
        ));
    }
    let inner = block(t, buf, r.reason, Line::from(title), false);
    for (dy, line) in r.rows.iter().skip(scroll).take(h).enumerate() {
        put(buf, inner, dy as u16, &Line::raw(line.clone()));
    }
}
