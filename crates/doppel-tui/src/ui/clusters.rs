//! The cluster list and the members of the selected cluster.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{block, cell, code, fill, hint, path_cell, put, rcell, short_score};
use crate::layout;
use crate::layout::visible_offset;
use crate::state::{AppState, Focus};
use crate::text;
use doppel_core::doc::CuratorVerdict;
use doppel_index::worker::protocol::{cluster_by_label, ClusterView, MemberView, Stage};
use doppel_pairing::cluster::ClusterBy;

pub fn render(state: &AppState, body: Rect, buf: &mut Buffer) {
    let c = layout::clusters(body);
    list(state, c.list, buf);
    members(state, c.members, buf);
}

fn list(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let focused = state.focus == Focus::Clusters;
    let total = state.clusters().len();
    let mut title = vec![
        Span::styled(" Clusters ", t.title()),
        Span::raw(if state.view.len() == total {
            format!("{total} ")
        } else {
            format!("{} of {total} ", state.view.len())
        }),
        Span::styled(format!("· sort {} ", state.sort.label()), t.dim()),
    ];
    if !state.filter.is_empty() {
        title.push(Span::styled(
            format!("· /{} ", text::fit_end(&state.filter, 20)),
            t.warn(),
        ));
    }
    let outside = state.outside_matches();
    if !outside.is_empty() {
        title.push(Span::styled(
            format!("· {} in no cluster ", outside.len()),
            t.dim(),
        ));
    }
    let inner = block(t, buf, area, Line::from(title), focused);
    if inner.is_empty() {
        return;
    }
    let w = usize::from(inner.width);
    let by = spec_by(state);
    // ≠★ size, members judged, the members' column at its lowest,
    // weakest link, name.
    let (judged_w, low_w, link_w) = (8, 7, 12);
    let name_w = w.saturating_sub(1 + 1 + 4 + 1 + judged_w + 1 + low_w + 1 + link_w + 1);
    let header = format!(
        "  {} {} {} {} {}",
        rcell("size", 4),
        rcell("reviewed", judged_w),
        rcell(&by_label(by), low_w),
        rcell("weakest link", link_w),
        cell("representative", name_w)
    );
    put(buf, inner, 0, &Line::styled(header, t.header()));
    let rows = layout::rows(area, layout::LIST_HEADER).intersection(inner);
    // Matching files outside every cluster, on the list's last row.
    let outside_line = (!outside.is_empty()).then(|| {
        let names: Vec<String> = outside.iter().map(|p| text::doc_path(p)).collect();
        let line = format!(" in no cluster: {}", names.join(" · "));
        text::fit_end(&line, usize::from(rows.width))
    });
    if let Some(line) = &outside_line {
        if rows.height > 0 {
            put(buf, rows, rows.height - 1, &hint(t, line));
        }
    }
    if state.view.is_empty() {
        put(buf, rows, 0, &hint(t, &empty_reason(state)));
        return;
    }
    // The clusters keep the rows above the outside matches' line.
    let h = usize::from(rows.height) - usize::from(outside_line.is_some() && rows.height > 1);
    let n_alg = state.algorithms.len();
    let off = visible_offset(state.cluster_offset, state.cluster_sel, h, state.view.len());
    for (dy, (i, &ci)) in state.view.iter().enumerate().skip(off).take(h).enumerate() {
        let Some(c) = state.clusters().get(ci) else {
            continue;
        };
        let rep = c
            .members
            .first()
            .map(|m| text::doc_path(&m.path))
            .unwrap_or_default();
        let weakest = c.weakest.map_or("–".to_owned(), |v| format!("{v:.2}"));
        let lowest = lowest_member(c, by, n_alg);
        // Curators disagreeing is theirs to settle: it shows before the
        // algorithms disagreeing.
        let mark = if c.disputed > 0 {
            Span::styled("⚑", t.warn())
        } else if c.disagreement {
            Span::styled("≠", t.warn())
        } else {
            Span::raw(" ")
        };
        let kept = c.members.iter().any(|m| state.is_keeper(m));
        let (judged, of) = state.reviewed(c);
        let judged_style = if judged == of { t.pass() } else { t.dim() };
        let line = Line::from(vec![
            mark,
            Span::styled(if kept { "★" } else { " " }, t.keep()),
            Span::raw(format!("{} ", rcell(&c.members.len().to_string(), 4))),
            Span::styled(rcell(&format!("{judged}/{of}"), judged_w), judged_style),
            Span::raw(format!(
                " {} {} ",
                rcell(&lowest, low_w),
                rcell(&weakest, link_w)
            )),
            Span::raw(path_cell(&rep, name_w)),
        ]);
        let y = rows.y + dy as u16;
        let row = Rect::new(rows.x, y, rows.width, 1);
        if i == state.cluster_sel {
            fill(buf, row, t.selected(focused));
        }
        put(buf, row, 0, &line);
    }
}

/// The verdict clusters are linked by (fusion until a snapshot says).
fn spec_by(state: &AppState) -> ClusterBy {
    state
        .snapshot
        .as_ref()
        .map_or(ClusterBy::Fusion, |s| s.spec.by)
}

/// The members' score column's name: `agree` (algorithms passing) under
/// fusion, else the algorithm's id.
fn by_label(by: ClusterBy) -> String {
    match by {
        ClusterBy::Fusion => "agree".to_owned(),
        ClusterBy::Algorithm(id) => id.as_str().to_owned(),
    }
}

/// A cluster row's value of the members' score column: its lowest member
/// (the fewest algorithms agreeing, or the lowest score), counted as the
/// member rows count it; `–` when no member is scored against the
/// representative.
fn lowest_member(c: &ClusterView, by: ClusterBy, n_alg: usize) -> String {
    let scored = c
        .members
        .iter()
        .filter_map(|m| Some((m, m.scores.as_ref()?)));
    match by {
        ClusterBy::Fusion => scored
            .map(|(m, _)| m.passing.len())
            .min()
            .map_or("–".to_owned(), |k| format!("{k}/{n_alg}")),
        ClusterBy::Algorithm(id) => scored
            .filter_map(|(_, s)| s.get(&id))
            .min_by(|a, b| a.similarity().total_cmp(&b.similarity()))
            .map_or("–".to_owned(), short_score),
    }
}

fn empty_reason(state: &AppState) -> String {
    if !state.filter.is_empty() {
        return "no cluster has a file matching the filter (Esc clears it)".into();
    }
    match (&state.snapshot, state.progress) {
        (None, _) => "waiting for the first results…".into(),
        (Some(_), Some(p)) if p.stage != Stage::Idle => {
            "no duplicates yet — still scanning…".into()
        }
        (Some(s), _) if s.documents == 0 => "no documents in this folder yet".into(),
        (Some(_), _) => "no duplicates at these thresholds (t adjusts them)".into(),
    }
}

fn members(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let focused = state.focus == Focus::Members;
    let cluster = state.selected_cluster();
    let title = match cluster {
        Some(c) => Line::from(vec![
            Span::styled(" Members ", t.title()),
            Span::raw(format!(
                "{} · cluster {} of {} ",
                c.members.len(),
                state.cluster_sel + 1,
                state.view.len()
            )),
        ]),
        None => Line::styled(" Members ", t.title()),
    };
    let inner = block(t, buf, area, title, focused);
    if inner.is_empty() {
        return;
    }
    let Some(c) = cluster else {
        put(buf, inner, 0, &hint(t, "select a cluster"));
        return;
    };
    put(buf, inner, 0, &summary(state, c, usize::from(inner.width)));
    let w = usize::from(inner.width);
    let by = spec_by(state);
    let map_w = state.algorithms.len();
    let score_w = 9;
    let contain_w = 7;
    let path_w = w.saturating_sub(1 + 1 + score_w + 1 + map_w + 1 + contain_w + 1 + VERDICT_W);
    let by_label = by_label(by);
    let codes: String = state.algorithms.iter().map(|&id| code(id)).collect();
    let header = format!(
        " {} {} {} {} {}",
        cell("path", path_w),
        rcell(&by_label, score_w),
        codes,
        rcell("contain", contain_w),
        cell("verdict", VERDICT_W)
    );
    put(buf, inner, 1, &Line::styled(header, t.header()));
    let rows = layout::rows(area, layout::MEMBERS_HEADER).intersection(inner);
    let h = usize::from(rows.height);
    let off = visible_offset(state.member_offset, state.member_sel, h, c.members.len());
    let suggested = crate::documents::suggested_keeper(state, c);
    for (dy, (i, m)) in c.members.iter().enumerate().skip(off).take(h).enumerate() {
        let mut line = member_line(state, m, i == 0, by, path_w, score_w, contain_w);
        if suggested == Some(i) {
            line.spans[0] = Span::styled("☆", t.keep());
        }
        line.spans.push(Span::raw(" "));
        line.spans.push(verdict_cell(state, c, m));
        let row = Rect::new(rows.x, rows.y + dy as u16, rows.width, 1);
        if i == state.member_sel {
            fill(buf, row, t.selected(focused));
        }
        put(buf, row, 0, &line);
    }
    // Below the members, the selected member's keeper signals (in fewer
    // words when they do not fit), and under them the symbols in words
    // where the signals leave room for them (`?` lists them too).
    let legend = text::wrap(&legend(state), w.saturating_sub(1));
    let free = h.saturating_sub(c.members.len());
    let signals = c
        .members
        .get(state.member_sel)
        .and_then(|m| state.docs.facts.get(&m.path))
        .map(|f| {
            let mark = match suggested {
                Some(k) if k == state.member_sel => "☆ suggested keeper: ",
                _ => "",
            };
            let full = text::wrap(
                &format!("{mark}{}", super::documents::signals(f)),
                w.saturating_sub(1),
            );
            if full.len() <= free {
                return full;
            }
            let short = format!("{mark}{}", super::documents::short_signals(f));
            fit_rows(&short, w.saturating_sub(1), free)
        })
        .unwrap_or_default();
    let mut bottom = h;
    // The legend never touches the members: a row between, or the signals.
    if c.members.len() + signals.len().max(1) + legend.len() <= h {
        bottom -= legend.len();
        for (k, line) in legend.iter().enumerate() {
            put(
                buf,
                rows,
                (bottom + k) as u16,
                &hint(t, &format!(" {line}")),
            );
        }
    }
    let top = bottom - signals.len();
    for (k, line) in signals.iter().enumerate() {
        put(
            buf,
            rows,
            (top + k) as u16,
            &Line::styled(format!(" {line}"), t.accent()),
        );
    }
}

/// `s` wrapped to `width` in at most `rows` rows, the last ending in `…`
/// when some is cut.
fn fit_rows(s: &str, width: usize, rows: usize) -> Vec<String> {
    let mut lines = text::wrap(s, width);
    if lines.len() > rows {
        let rest = lines.split_off(rows.saturating_sub(1)).join(" ");
        if rows > 0 {
            lines.push(text::fit_end(&rest, width));
        }
    }
    lines
}

/// Before the anchor's name (`a`: pairs open from it).
const ANCHOR: &str = "◆ ";

/// Width of the members' verdict column.
const VERDICT_W: usize = 9;

/// A pair the curators' verdicts differ on, in a list's verdict column.
pub(crate) const DISPUTED: &str = "⚑ differ";

/// The curator's verdict on a member and the representative, in words
/// (colour only repeats them): `⚑ dup`, `⚑ not dup` (pinned: it overrides
/// every algorithm), `⚑ differ` (the curators' verdicts differ: the
/// algorithms decide until they agree), or `–` unjudged.
fn verdict_cell(state: &AppState, c: &ClusterView, m: &MemberView) -> Span<'static> {
    let t = state.theme;
    if c.members.first().is_some_and(|r| r.path == m.path) {
        return Span::raw(cell("", VERDICT_W));
    }
    if state.member_disputed(c, m) {
        return Span::styled(cell(DISPUTED, VERDICT_W), t.warn());
    }
    match state.member_verdict(c, m) {
        Some(CuratorVerdict::Duplicate) => Span::styled(cell("⚑ dup", VERDICT_W), t.pass()),
        Some(CuratorVerdict::NotDuplicate) => Span::styled(cell("⚑ not dup", VERDICT_W), t.error()),
        None => Span::styled(cell("–", VERDICT_W), t.dim()),
    }
}

/// The members panel's legend: the glyphs and the algorithms' letters.
pub fn legend(state: &AppState) -> String {
    let codes: Vec<String> = state
        .algorithms
        .iter()
        .map(|&id| format!("{} {id}", code(id)))
        .collect();
    format!(
        "● passes · ○ fails · ≠ algorithms disagree · ★ kept · ☆ suggested · ⚑ pinned · {}",
        codes.join(" · ")
    )
}

fn summary(state: &AppState, c: &ClusterView, w: usize) -> Line<'static> {
    let t = state.theme;
    let mut spans = vec![Span::raw(format!(
        "weakest link {} · ",
        c.weakest.map_or("–".to_owned(), |v| format!("{v:.2}"))
    ))];
    if c.disagreement {
        spans.push(Span::styled("≠ some pass on some links only · ", t.warn()));
    }
    let by = state
        .snapshot
        .as_ref()
        .map_or("fusion", |s| cluster_by_label(s.spec.by));
    spans.push(Span::styled(format!("by {by} · "), t.dim()));
    let used: usize = spans.iter().map(Span::width).sum();
    // The text report's words; the screen's view holds no roles.
    let agree_text = doppel_report::evidence_words(&c.agreeing, &[]);
    spans.push(Span::styled(
        text::fit_end(&agree_text, w.saturating_sub(used)),
        t.pass(),
    ));
    Line::from(spans)
}

/// `⊂` when the member (scored from the representative) is a part of the
/// representative, `⊃` when it is the whole the representative sits in,
/// as the scan decides it from the shingle containments (members hold no
/// shingle counts: the smaller side is taken to have enough).
fn part_glyph(
    state: &AppState,
    shingle: Option<&doppel_core::engine::algo::Score>,
) -> Option<char> {
    let rule = &state.snapshot.as_ref()?.spec.fusion.relations;
    let c = doppel_core::engine::Containments::of(shingle?)?;
    match rule.whole(Some(c), rule.min_shingles)? {
        doppel_core::engine::Side::A => Some('⊂'),
        doppel_core::engine::Side::B => Some('⊃'),
    }
}

fn member_line(
    state: &AppState,
    m: &MemberView,
    representative: bool,
    by: ClusterBy,
    path_w: usize,
    score_w: usize,
    contain_w: usize,
) -> Line<'static> {
    let t = state.theme;
    let keep = if state.is_keeper(m) {
        Span::styled("★", t.keep())
    } else {
        Span::raw(" ")
    };
    // The anchor (`a`) is marked in its name, which is cut from the start.
    let anchored = state.anchor.as_ref() == Some(&m.path);
    let name = text::doc_path(&m.path);
    let mut spans = vec![keep];
    if anchored {
        spans.push(Span::styled(ANCHOR, t.accent()));
    }
    spans.push(Span::raw(path_cell(
        &name,
        path_w.saturating_sub(if anchored { ANCHOR.chars().count() } else { 0 }),
    )));
    spans.push(Span::raw(" "));
    let n_alg = state.algorithms.len();
    match &m.scores {
        None if representative => {
            spans.push(Span::styled(rcell("rep", score_w), t.accent()));
            spans.push(Span::raw(" ".repeat(1 + n_alg + contain_w + 1)));
        }
        None => {
            spans.push(Span::styled(rcell("via link", score_w), t.dim()));
            spans.push(Span::raw(" ".repeat(1 + n_alg + contain_w + 1)));
        }
        Some(scores) => {
            let by_text = match by {
                ClusterBy::Fusion => format!("{}/{n_alg}", m.passing.len()),
                ClusterBy::Algorithm(id) => scores.get(&id).map_or("–".into(), short_score),
            };
            spans.push(Span::raw(rcell(&by_text, score_w)));
            spans.push(Span::raw(" "));
            for &id in &state.algorithms {
                let (glyph, style) = match scores.get(&id) {
                    None | Some(doppel_core::engine::algo::Score::Incomparable) => ("·", t.dim()),
                    Some(_) if m.passing.contains(&id) => ("●", t.pass()),
                    Some(_) => ("○", t.fail()),
                };
                spans.push(Span::styled(glyph, style));
            }
            let shingle = scores.get(&doppel_core::engine::algo::AlgorithmId::Shingle);
            let contain = shingle
                .and_then(|s| s.containment())
                .map_or("–".to_owned(), text::percent);
            // A part and its whole say which holds which: "⊂" the member
            // sits in the representative, "⊃" it holds it.
            let contain = match part_glyph(state, shingle) {
                Some(glyph) => format!("{glyph} {contain}"),
                None => contain,
            };
            spans.push(Span::raw(rcell(&contain, contain_w + 1)));
        }
    }
    Line::from(spans)
}
