//! Moving through the lists: the selection of whatever list the keyboard
//! is on steps or pages ([`step`], [`page`]), survives a re-sort,
//! re-filter or new snapshot ([`remember`], [`restore`]), and is kept in
//! range and in view after every action ([`clamp`]).

use crate::diff;
use crate::layout;
use crate::layout::List;
use crate::state::{AppState, Focus, Screen};
use doppel_core::doc::DocPath;

/// The selection to keep across a re-sort, re-filter or new snapshot:
/// the selected member's path and the representative's.
pub(super) type Keep = (Option<DocPath>, Option<DocPath>);

pub(super) fn remember(state: &AppState) -> Keep {
    (
        state.selected_member().map(|m| m.path.clone()),
        state
            .selected_cluster()
            .and_then(|c| c.members.first())
            .map(|m| m.path.clone()),
    )
}

pub(super) fn restore(state: &mut AppState, (member, rep): Keep) {
    let clusters = state.clusters();
    let find = |path: &Option<DocPath>| {
        let path = path.as_ref()?;
        state.view.iter().position(|&i| {
            clusters
                .get(i)
                .is_some_and(|c| c.members.iter().any(|m| m.path == *path))
        })
    };
    let found = find(&member).or_else(|| find(&rep)).map(|i| {
        let members = &clusters[state.view[i]].members;
        let m = member
            .as_ref()
            .and_then(|p| members.iter().position(|m| m.path == *p))
            .unwrap_or(0);
        (i, m)
    });
    match found {
        Some((i, m)) => {
            state.cluster_sel = i;
            state.member_sel = m;
        }
        None => state.member_sel = 0,
    }
}

/// Move the selection of whatever list the keyboard is on by `delta`.
pub(super) fn step(state: &mut AppState, delta: isize) {
    fn moved(cur: usize, delta: isize, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        (cur as isize)
            .saturating_add(delta)
            .clamp(0, len as isize - 1) as usize
    }
    if let Some(h) = state.help {
        let len = crate::ui::help::line_count(state.width);
        let visible = layout::list_height(state, List::Help);
        state.help = Some(moved(h, delta, len.saturating_sub(visible).max(1)));
        return;
    }
    match state.screen {
        Screen::Clusters => match state.focus {
            Focus::Clusters => {
                let before = state.cluster_sel;
                state.cluster_sel = moved(before, delta, state.view.len());
                if state.cluster_sel != before {
                    state.member_sel = 0;
                    state.member_offset = 0;
                }
            }
            Focus::Members => {
                let len = state.selected_cluster().map_or(0, |c| c.members.len());
                state.member_sel = moved(state.member_sel, delta, len);
            }
        },
        Screen::Pair => {
            let len = state.pair.detail.as_ref().map_or(0, |d| d.rows.len());
            let row = moved(state.pair.row, delta, len);
            if row != state.pair.row {
                state.pair.why_scroll = 0;
            }
            state.pair.row = row;
        }
        Screen::Diff => {
            diff::refresh(state);
            let max = diff::max_scroll(state);
            state.diff.scroll = moved(state.diff.scroll, delta, max + 1);
        }
        Screen::Thresholds => {
            state.thresholds.selected =
                moved(state.thresholds.selected, delta, state.algorithms.len());
        }
        Screen::Skipped => {
            state.skipped_sel = moved(state.skipped_sel, delta, state.skipped().len());
        }
        // The documents screen moves its own lists (`documents::on_action`).
        Screen::Documents => {}
        Screen::Log => {
            // Scrolling the log counts lines back from its end.
            let h = layout::list_height(state, List::Log);
            let max = state.log.len().saturating_sub(h);
            state.log_back = moved(state.log_back, -delta, max + 1);
        }
    }
}

pub(super) fn page(state: &mut AppState, dir: isize) {
    let list = match (state.help, state.screen, state.focus) {
        (Some(_), ..) => List::Help,
        (_, Screen::Clusters, Focus::Clusters) => List::Clusters,
        (_, Screen::Clusters, Focus::Members) => List::Members,
        (_, Screen::Pair, _) => List::PairRows,
        (_, Screen::Diff, _) => List::Diff,
        (_, Screen::Thresholds, _) => List::Thresholds,
        (_, Screen::Skipped, _) => List::Skipped,
        (_, Screen::Log, _) => List::Log,
        (_, Screen::Documents, _) => List::Documents,
    };
    let h = layout::list_height(state, list).max(2) - 1;
    step(state, dir * h as isize);
}

/// Keep every selection in range and in view.
pub(super) fn clamp(state: &mut AppState) {
    let n = state.view.len();
    state.cluster_sel = state.cluster_sel.min(n.saturating_sub(1));
    state.cluster_offset = layout::visible_offset(
        state.cluster_offset,
        state.cluster_sel,
        layout::list_height(state, List::Clusters),
        n,
    );
    let m = state.selected_cluster().map_or(0, |c| c.members.len());
    state.member_sel = state.member_sel.min(m.saturating_sub(1));
    state.member_offset = layout::visible_offset(
        state.member_offset,
        state.member_sel,
        layout::list_height(state, List::Members),
        m,
    );
    if m == 0 && state.focus == Focus::Members {
        state.focus = Focus::Clusters;
    }
    let k = state.skipped().len();
    state.skipped_sel = state.skipped_sel.min(k.saturating_sub(1));
    state.skipped_offset = layout::visible_offset(
        state.skipped_offset,
        state.skipped_sel,
        layout::list_height(state, List::Skipped),
        k,
    );
    let rows = state.pair.detail.as_ref().map_or(0, |d| d.rows.len());
    state.pair.row = state.pair.row.min(rows.saturating_sub(1));
    let why_max = match (state.pair.detail.as_deref(), layout::frame_of(state)) {
        (Some(d), Some(f)) => crate::ui::pair::reason_layout(state, d, f.body).max_scroll(),
        _ => 0,
    };
    state.pair.why_scroll = state.pair.why_scroll.min(why_max);
    let a = state.algorithms.len();
    state.thresholds.selected = state.thresholds.selected.min(a.saturating_sub(1));
    diff::refresh(state);
    state.diff.scroll = state.diff.scroll.min(diff::max_scroll(state));
    crate::documents::clamp(state);
    let l = layout::list_height(state, List::Log);
    state.log_back = state.log_back.min(state.log.len().saturating_sub(l));
}
