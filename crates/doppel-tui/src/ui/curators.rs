//! The curators' side of the pair screen: the line under the votes with
//! each curator's verdict on the pair and its time (`you` for this
//! session's curator, whose mark this session shows at once), saying when
//! they disagree, and the history panel (`v`) with every set and clear.
//! A pair only you have judged shows the single-curator line it always
//! had.

use ratatui::buffer::Buffer;
use ratatui::text::{Line, Span};

use super::pair::ReasonLayout;
use super::{block, put, Theme};
use crate::state::AppState;
use crate::text;
use doppel_core::doc::CuratorVerdict;
use doppel_index::worker::protocol::PairCurators;

/// A verdict in words and its style.
fn word(t: Theme, v: Option<CuratorVerdict>) -> (&'static str, ratatui::style::Style) {
    match v {
        Some(CuratorVerdict::Duplicate) => ("duplicate", t.pass()),
        Some(CuratorVerdict::NotDuplicate) => ("not duplicate", t.error()),
        None => ("no verdict", t.dim()),
    }
}

/// A curator's name as shown: `unknown` for a verdict from before
/// curators were recorded, cleaned of anything a terminal would obey.
pub fn name(curator: &str) -> String {
    if curator.is_empty() {
        "unknown".to_owned()
    } else {
        text::sanitize(curator).into_owned()
    }
}

/// Unix nanoseconds as `YYYY-MM-DD HH:MM` (UTC); `????-??-?? ??:??` when
/// unknown (as wide, so columns line up).
pub fn when(at_ns: i64) -> String {
    let Some(secs) = u64::try_from(at_ns / 1_000_000_000).ok().filter(|&s| s > 0) else {
        return "????-??-?? ??:??".to_owned();
    };
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    let stamp = humantime::format_rfc3339_seconds(t).to_string();
    stamp[..16].replace('T', " ")
}

/// A verdict in the line's short words (as the lists say them).
fn short(t: Theme, v: Option<CuratorVerdict>) -> (&'static str, ratatui::style::Style) {
    match v {
        Some(CuratorVerdict::Duplicate) => ("dup", t.pass()),
        Some(CuratorVerdict::NotDuplicate) => ("not dup", t.error()),
        None => ("–", t.dim()),
    }
}

/// The curators' line: `mine` is this session's verdict (its own mark, or
/// the stored one), `c` what the worker said of the pair. Shared, it reads
/// `⚑ disputed · alice: dup 11-25 09:03 · bob: not dup 11-25 09:47 · you: dup`
/// (short, to fit 80 columns; the history panel has the full dates).
pub fn line(t: Theme, mine: Option<CuratorVerdict>, c: Option<&PairCurators>) -> Line<'static> {
    let Some(c) = c.filter(|c| c.shared()) else {
        let (word, style) = word(t, mine);
        return Line::from(vec![
            Span::raw(" curator: "),
            Span::styled(word, style),
            Span::styled("  (y duplicate · x not · u undo · d diff)", t.dim()),
        ]);
    };
    let others: Vec<_> = c
        .verdicts
        .iter()
        .filter(|m| m.curator != c.you && !m.curator.is_empty())
        .collect();
    let disputed = others
        .iter()
        .map(|m| Some(m.verdict))
        .chain(mine.map(Some))
        .collect::<std::collections::HashSet<_>>()
        .len()
        > 1;
    let mut spans = vec![if disputed {
        Span::styled(" ⚑ disputed", t.warn())
    } else {
        Span::raw(" curators")
    }];
    for m in &others {
        let (w, style) = short(t, Some(m.verdict));
        spans.push(Span::raw(format!(" · {}: ", name(&m.curator))));
        spans.push(Span::styled(w, style));
        spans.push(Span::styled(format!(" {}", &when(m.at_ns)[5..]), t.dim()));
    }
    if mine.is_some() {
        let (w, style) = short(t, mine);
        spans.push(Span::raw(" · you: "));
        spans.push(Span::styled(w, style));
    }
    spans.push(Span::styled("  (v history)", t.dim()));
    Line::from(spans)
}

/// The history's rows, oldest first: when, who, what.
pub fn history_rows(c: &PairCurators) -> Vec<String> {
    if c.history.is_empty() {
        return vec!["No verdict was ever given on this pair.".to_owned()];
    }
    c.history
        .iter()
        .map(|h| {
            let what = match h.verdict {
                Some(CuratorVerdict::Duplicate) => "duplicate",
                Some(CuratorVerdict::NotDuplicate) => "not duplicate",
                None => "cleared",
            };
            let who = if h.curator == c.you && !c.you.is_empty() {
                format!("{} (you)", name(&h.curator))
            } else {
                name(&h.curator)
            };
            format!("{}  {who}: {what}", when(h.at_ns))
        })
        .collect()
}

/// The history panel, in the reason panel's place.
pub fn history(state: &AppState, r: &ReasonLayout, buf: &mut Buffer) {
    let t = state.theme;
    let h = usize::from(r.reason.height.saturating_sub(2));
    let scroll = state.pair.why_scroll.min(r.max_scroll());
    let mut title = vec![Span::styled(" Verdict history ", t.title())];
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
    title.push(Span::styled("· v closes ", t.dim()));
    let inner = block(t, buf, r.reason, Line::from(title), false);
    for (dy, line) in r.rows.iter().skip(scroll).take(h).enumerate() {
        put(buf, inner, dy as u16, &Line::raw(line.clone()));
    }
}
