//! The documents screen: every file with its size, encoding, words, date,
//! text quality and cluster; below, the selected file's nearest
//! neighbours with each algorithm passing (●) or failing (○) its
//! threshold, and for the selected neighbour the scores against the
//! thresholds in words: why the two are, or are not, clustered. A file
//! read from a structured format (PDF, ALTO, …) shows its format in place
//! of its encoding, and its pages, OCR confidence and what its reader left
//! out above its neighbours. Also the facts' cells the clusters screen's
//! keeper signals reuse.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{block, cell, code, fill, hint, path_cell, put, rcell, short_score};
use crate::documents;
use crate::documents::DocRow;
use crate::layout;
use crate::layout::visible_offset;
use crate::state::AppState;
use crate::text;
use doppel_core::doc::CuratorVerdict;
use doppel_core::engine::algo::Score;
use doppel_index::worker::protocol::{DocumentFacts, FormatFacts, Neighbour};

pub fn render(state: &AppState, body: Rect, buf: &mut Buffer) {
    let l = layout::documents(body);
    list(state, l.list, buf);
    neighbours(state, l.neighbours, buf);
}

/// A size in a few characters: `812 B`, `12.4 KB`, `3.1 MB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1000.0;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    if v < 10.0 {
        format!("{v:.1} {}", UNITS[unit])
    } else {
        format!("{v:.0} {}", UNITS[unit])
    }
}

/// A modification date as `YYYY-MM-DD` (UTC).
pub fn date(modified: Option<i64>) -> String {
    let Some(secs) = modified.and_then(|s| u64::try_from(s).ok()) else {
        return "–".into();
    };
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    humantime::format_rfc3339_seconds(t).to_string()[..10].to_owned()
}

/// Text quality as a percentage (`97 %`), `–` without words to judge.
pub fn quality(f: &DocumentFacts) -> String {
    if f.quality.judged == 0 {
        "–".into()
    } else {
        format!("{:.0} %", f.quality.score() * 100.0)
    }
}

/// The list's quality cell: [`quality`], marked `*` before it (the
/// figures stay aligned) when a low OCR confidence holds it down (the
/// selected file's facts say by how much).
fn quality_cell(f: &DocumentFacts) -> String {
    let q = quality(f);
    if !f.quality.held_by_confidence() {
        return q;
    }
    let marked = format!("*{q}");
    if marked.chars().count() > QUAL_W {
        marked.replace(' ', "")
    } else {
        marked
    }
}

/// Why the quality is what it is, when a low OCR confidence holds it
/// down: `held down by OCR confidence 61 %`.
fn held_by(f: &DocumentFacts) -> Option<String> {
    let c = f.quality.ocr_confidence?;
    f.quality
        .held_by_confidence()
        .then(|| format!("held down by OCR confidence {:.0} %", c * 100.0))
}

/// What the encoding column shows: the encoding of a plain text, the
/// format of a file read from a structured one (`ALTO`, `PDF gz`).
pub fn encoding(f: &DocumentFacts) -> String {
    match &f.book {
        None => f.encoding.clone(),
        Some(b) if b.gzipped => format!("{} gz", b.format),
        Some(b) => b.format.to_string(),
    }
}

/// A structured file's facts in words: `ALTO · 11 pages · OCR confidence
/// 95 % · left out: running heads`; the confidence left out (`confidence`
/// false) where the quality beside it already names it.
fn format_facts(b: &FormatFacts, confidence: bool) -> String {
    let mut out = b.format.to_string();
    if b.gzipped {
        out.push_str(" (gzipped)");
    }
    if b.pages > 0 {
        let s = if b.pages == 1 { "" } else { "s" };
        out.push_str(&format!(" · {} page{s}", b.pages));
    }
    if let Some(c) = b.confidence.filter(|_| confidence) {
        out.push_str(&format!(" · OCR confidence {:.0} %", c * 100.0));
    }
    if !b.left_out.is_empty() {
        out.push_str(&format!(" · left out: {}", b.left_out.join("; ")));
    }
    out
}

/// A structured file's facts in words: `ALTO · 11 pages · OCR confidence
/// 95 % · left out: running heads`.
pub fn book_facts(b: &FormatFacts) -> String {
    format_facts(b, true)
}

/// The keeper signals of one file in words, for the members panel: size,
/// encoding (or format), date, words, the quality and why (the shares of
/// dictionary and OCR-like words, the OCR confidence when it holds the
/// quality down), and a structured file's facts.
pub fn signals(f: &DocumentFacts) -> String {
    if let Some(problem) = &f.problem {
        return format!("cannot read it: {problem}");
    }
    let held = held_by(f);
    let book = f.book.as_ref().map_or(String::new(), |b| {
        format!(" · {}", format_facts(b, held.is_none()))
    });
    format!(
        "{} · {} · {} · {} words · quality {}{} ({} dictionary words, {} OCR-like){book}",
        size(f.size),
        encoding(f),
        date(f.modified),
        f.quality.words,
        quality(f),
        held.map_or(String::new(), |h| format!(" {h}")),
        text::percent(f.quality.dictionary),
        text::percent(f.quality.confusions),
    )
}

/// [`signals`] in fewer words, for a panel without room for them all:
/// size, encoding (or format), date, words, the quality, and the OCR
/// confidence (holding the quality down, or beside it).
pub fn short_signals(f: &DocumentFacts) -> String {
    if f.problem.is_some() {
        return signals(f);
    }
    let why = match (held_by(f), f.quality.ocr_confidence) {
        (Some(h), _) => format!(" {h}"),
        (None, Some(c)) => format!(" · OCR confidence {:.0} %", c * 100.0),
        (None, None) => String::new(),
    };
    format!(
        "{} · {} · {} · {} words · quality {}{why}",
        size(f.size),
        encoding(f),
        date(f.modified),
        f.quality.words,
        quality(f),
    )
}

const SIZE_W: usize = 7;
const ENC_W: usize = 9;
const WORDS_W: usize = 7;
const DATE_W: usize = 10;
const QUAL_W: usize = 5;
const CLUSTER_W: usize = 7;

fn list(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let rows = documents::rows(state);
    let outside = rows.iter().filter(|r| r.cluster.is_none()).count();
    let mut title = vec![
        Span::styled(" Documents ", t.title()),
        Span::raw(format!(
            "{} · {outside} in no cluster · sort {} ",
            rows.len(),
            state.docs.sort.label()
        )),
    ];
    if !state.filter.is_empty() {
        title.push(Span::styled(
            format!("· filter \"{}\" ", text::fit_end(&state.filter, 16)),
            t.accent(),
        ));
    }
    let inner = block(t, buf, area, Line::from(title), !state.docs.on_neighbours);
    if inner.is_empty() {
        return;
    }
    let w = usize::from(inner.width);
    let fixed = SIZE_W + ENC_W + WORDS_W + DATE_W + QUAL_W + CLUSTER_W + 6;
    let path_w = w.saturating_sub(fixed + 1).max(8);
    let header = format!(
        " {} {} {} {} {} {} {}",
        cell("path", path_w),
        rcell("size", SIZE_W),
        cell("encoding", ENC_W),
        rcell("words", WORDS_W),
        cell("modified", DATE_W),
        rcell("qual", QUAL_W),
        rcell("cluster", CLUSTER_W),
    );
    put(buf, inner, 0, &Line::styled(header, t.header()));
    let area_rows = layout::rows(area, 1).intersection(inner);
    if rows.is_empty() {
        let why = match (&state.snapshot, state.filter.is_empty()) {
            (None, _) => "waiting for the first results…",
            (Some(_), false) => "no file matches the filter (Esc clears it)",
            (Some(_), true) => "no documents in this folder yet",
        };
        put(buf, area_rows, 0, &hint(t, why));
        return;
    }
    let h = usize::from(area_rows.height);
    let off = visible_offset(state.docs.offset, state.docs.sel, h, rows.len());
    for (dy, (i, r)) in rows.iter().enumerate().skip(off).take(h).enumerate() {
        let row = Rect::new(area_rows.x, area_rows.y + dy as u16, area_rows.width, 1);
        if i == state.docs.sel {
            fill(buf, row, t.selected(!state.docs.on_neighbours));
        }
        put(buf, row, 0, &doc_line(state, r, path_w));
    }
}

fn doc_line(state: &AppState, r: &DocRow, path_w: usize) -> Line<'static> {
    let t = state.theme;
    let name = path_cell(&text::doc_path(&r.path), path_w);
    let cluster = r.cluster.map_or("–".to_owned(), |c| format!("#{c}"));
    let mut spans = vec![Span::raw(" "), Span::raw(name), Span::raw(" ")];
    match state.docs.facts.get(&r.path) {
        Some(f) if f.problem.is_none() => {
            spans.push(Span::raw(format!(
                "{} {} {} {} {} ",
                rcell(&size(f.size), SIZE_W),
                cell(&encoding(f), ENC_W),
                rcell(&f.quality.words.to_string(), WORDS_W),
                cell(&date(f.modified), DATE_W),
                rcell(&quality_cell(f), QUAL_W),
            )));
        }
        Some(f) => spans.push(Span::styled(
            cell(
                &format!("cannot read: {}", f.problem.as_deref().unwrap_or_default()),
                SIZE_W + ENC_W + WORDS_W + DATE_W + QUAL_W + 5,
            ),
            t.warn(),
        )),
        None => spans.push(Span::styled(
            cell("…", SIZE_W + ENC_W + WORDS_W + DATE_W + QUAL_W + 5),
            t.dim(),
        )),
    }
    let style = if r.cluster.is_some() {
        t.accent()
    } else {
        t.dim()
    };
    spans.push(Span::styled(rcell(&cluster, CLUSTER_W), style));
    Line::from(spans)
}

const FUSION_W: usize = 8;
const MEAN_W: usize = 5;
const VERDICT_W: usize = 8;

fn neighbours(state: &AppState, area: Rect, buf: &mut Buffer) {
    let t = state.theme;
    let doc = documents::selected(state);
    let title = match &doc {
        Some(d) => Line::from(vec![
            Span::styled(" Neighbours ", t.title()),
            Span::raw(format!(
                "of {} ",
                text::fit_start(&text::doc_path(d), usize::from(area.width) / 2)
            )),
        ]),
        None => Line::styled(" Neighbours ", t.title()),
    };
    let inner = block(t, buf, area, title, state.docs.on_neighbours);
    if inner.is_empty() {
        return;
    }
    if doc.is_none() {
        put(buf, inner, 0, &hint(t, "select a file"));
        return;
    }
    let w = usize::from(inner.width);
    let Some(n) = documents::shown_neighbours(state) else {
        put(buf, inner, 0, &hint(t, "asking the worker…"));
        put_lines(buf, inner, 1, &book_lines(state, w));
        return;
    };
    if n.neighbours.is_empty() {
        put(
            buf,
            inner,
            0,
            &hint(
                t,
                "no kept pair: no algorithm found this file near another at its floor",
            ),
        );
        put_lines(buf, inner, 1, &book_lines(state, w));
        return;
    }
    let map_w = state.algorithms.len();
    let path_w = w.saturating_sub(1 + FUSION_W + 1 + MEAN_W + 1 + map_w + 1 + VERDICT_W + 1);
    let codes: String = state.algorithms.iter().map(|&id| code(id)).collect();
    let header = format!(
        " {} {} {} {} {}",
        cell("neighbour", path_w),
        cell("fusion", FUSION_W),
        rcell("mean", MEAN_W),
        codes,
        cell("verdict", VERDICT_W),
    );
    put(buf, inner, 0, &Line::styled(header, t.header()));
    let detail = selected_detail(state, w);
    let rows = neighbour_rows(state, area);
    let list_h = usize::from(rows.height);
    let off = visible_offset(0, state.docs.neighbour_sel, list_h, n.neighbours.len());
    for (dy, (i, nb)) in n
        .neighbours
        .iter()
        .enumerate()
        .skip(off)
        .take(list_h)
        .enumerate()
    {
        let row = Rect::new(rows.x, rows.y + dy as u16, rows.width, 1);
        if i == state.docs.neighbour_sel {
            fill(buf, row, t.selected(state.docs.on_neighbours));
        }
        put(buf, row, 0, &neighbour_line(state, nb, path_w));
    }
    put_lines(buf, inner, 1 + list_h, &detail);
}

fn put_lines(buf: &mut Buffer, area: Rect, top: usize, lines: &[Line<'static>]) {
    for (k, line) in lines.iter().enumerate() {
        put(buf, area, (top + k) as u16, line);
    }
}

/// The selected file's format facts, wrapped to two rows at most; none
/// for plain text. A quality held down by the OCR confidence (its list
/// cell marked `*`) says so first.
fn book_lines(state: &AppState, w: usize) -> Vec<Line<'static>> {
    let facts = documents::selected(state).and_then(|d| state.docs.facts.get(&d));
    let Some((f, b)) = facts.and_then(|f| Some((f, f.book.as_ref()?))) else {
        return Vec::new();
    };
    let said = match held_by(f) {
        Some(h) => format!("* quality {} {h} · {}", quality(f), format_facts(b, false)),
        None => book_facts(b),
    };
    let mut lines: Vec<_> = text::wrap(&said, w.saturating_sub(1))
        .into_iter()
        .map(|l| Line::styled(format!(" {l}"), state.theme.dim()))
        .collect();
    lines.truncate(2);
    lines
}

/// The neighbours' rows in the neighbours block `area`: below the header,
/// above the selected neighbour's scores in words (which take the last
/// rows). Shared with mouse hit-testing.
pub fn neighbour_rows(state: &AppState, area: Rect) -> Rect {
    let inner = layout::inner(area);
    let detail = selected_detail(state, usize::from(inner.width)).len() as u16;
    let h = inner.height.saturating_sub(1).saturating_sub(detail);
    Rect::new(inner.x, inner.y.saturating_add(1), inner.width, h)
}

fn neighbour_line(state: &AppState, nb: &Neighbour, path_w: usize) -> Line<'static> {
    let t = state.theme;
    let mut spans = vec![
        Span::raw(" "),
        Span::raw(path_cell(&text::doc_path(&nb.path), path_w)),
        Span::raw(" "),
    ];
    spans.push(if nb.fusion {
        Span::styled(cell("● dup", FUSION_W), t.pass())
    } else {
        Span::styled(cell("○ apart", FUSION_W), t.fail())
    });
    spans.push(Span::raw(" "));
    spans.push(Span::raw(rcell(&format!("{:.2}", nb.similarity), MEAN_W)));
    spans.push(Span::raw(" "));
    for &id in &state.algorithms {
        let (glyph, style) = match nb.scores.get(&id) {
            None | Some(Score::Incomparable) => ("·", t.dim()),
            Some(_) if nb.passing.contains(&id) => ("●", t.pass()),
            Some(_) => ("○", t.fail()),
        };
        spans.push(Span::styled(glyph, style));
    }
    spans.push(Span::raw(" "));
    spans.push(match nb.verdict {
        _ if nb.disputed => Span::styled(cell(super::clusters::DISPUTED, VERDICT_W), t.warn()),
        Some(CuratorVerdict::Duplicate) => Span::styled(cell("⚑ dup", VERDICT_W), t.pass()),
        Some(CuratorVerdict::NotDuplicate) => Span::styled(cell("⚑ not", VERDICT_W), t.error()),
        None => Span::styled(cell("–", VERDICT_W), t.dim()),
    });
    Line::from(spans)
}

/// The selected neighbour's scores against the thresholds, wrapped: the
/// algorithms that pass and those that fail, each with its score and
/// threshold.
fn selected_detail(state: &AppState, w: usize) -> Vec<Line<'static>> {
    let t = state.theme;
    let mut lines = book_lines(state, w);
    let Some(nb) = documents::selected_neighbour(state) else {
        return lines;
    };
    let th = &state.thresholds.thresholds;
    let words = |ids: &[doppel_core::engine::algo::AlgorithmId]| {
        ids.iter()
            .filter_map(|&id| {
                let s = nb.scores.get(&id)?;
                Some(format!("{id} {} (at {})", short_score(s), th.get(id)))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let book = lines.len();
    let verdict = match nb.verdict {
        _ if nb.disputed => "the curators disagree: the algorithms decide · ",
        Some(CuratorVerdict::Duplicate) => "pinned duplicate by the curator · ",
        Some(CuratorVerdict::NotDuplicate) => "pinned not duplicate by the curator · ",
        None => "",
    };
    let head = format!(
        "{verdict}{}",
        if nb.fusion {
            "fusion says duplicate"
        } else {
            "fusion says apart: too few algorithm families pass"
        }
    );
    for l in text::wrap(&head, w.saturating_sub(1)) {
        lines.push(Line::styled(format!(" {l}"), t.accent()));
    }
    let pass = format!("passes: {}", or_none(words(&nb.passing)));
    for l in text::wrap(&pass, w.saturating_sub(1)) {
        lines.push(Line::styled(format!(" {l}"), t.pass()));
    }
    let fail = format!("fails: {}", or_none(words(&nb.failing)));
    for l in text::wrap(&fail, w.saturating_sub(1)) {
        lines.push(Line::styled(format!(" {l}"), t.fail()));
    }
    lines.truncate(book + 4);
    lines
}

fn or_none(s: String) -> String {
    if s.is_empty() {
        "none".into()
    } else {
        s
    }
}
