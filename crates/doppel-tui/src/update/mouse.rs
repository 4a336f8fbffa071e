//! Clicks, drags and the wheel, placed on the screen as drawn
//! (`layout::frame_of`): tabs, list rows, the pair table and the threshold
//! sliders.

use super::navigation::step;
use super::opening::{open_diff, open_pair};
use super::show;
use super::tuning::set_threshold;
use crate::documents;
use crate::layout;
use crate::state::{threshold_from_similarity, AppState, Focus, Screen};
use doppel_index::worker::Command;

pub(super) fn click(state: &mut AppState, col: u16, row: u16, out: &mut Vec<Command>) {
    let Some(f) = layout::frame_of(state) else {
        return;
    };
    if state.help.is_some() {
        state.help = None;
        return;
    }
    if layout::contains(f.tabs, col, row) {
        let (_, spans) = layout::tabs(state.width);
        if let Some(&(screen, ..)) = spans.iter().find(|(_, x0, x1)| col >= *x0 && col < *x1) {
            show(state, screen, out);
        }
        return;
    }
    match state.screen {
        Screen::Clusters => {
            let c = layout::clusters(f.body);
            let list = layout::rows(c.list, layout::LIST_HEADER);
            let members = layout::rows(c.members, layout::MEMBERS_HEADER);
            let h = usize::from(list.height);
            let off = layout::visible_offset(
                state.cluster_offset,
                state.cluster_sel,
                h,
                state.view.len(),
            );
            if let Some(i) = layout::row_at(list, off, state.view.len(), col, row) {
                if i == state.cluster_sel && state.focus == Focus::Clusters {
                    state.focus = Focus::Members;
                } else {
                    if i != state.cluster_sel {
                        state.member_sel = 0;
                        state.member_offset = 0;
                    }
                    state.cluster_sel = i;
                    state.focus = Focus::Clusters;
                }
                return;
            }
            let len = state.selected_cluster().map_or(0, |c| c.members.len());
            let h = usize::from(members.height);
            let off = layout::visible_offset(state.member_offset, state.member_sel, h, len);
            if let Some(i) = layout::row_at(members, off, len, col, row) {
                if i == state.member_sel && state.focus == Focus::Members {
                    open_pair(state, out);
                } else {
                    state.member_sel = i;
                    state.focus = Focus::Members;
                }
            } else if layout::contains(c.list, col, row) {
                state.focus = Focus::Clusters;
            } else if layout::contains(c.members, col, row) && len > 0 {
                state.focus = Focus::Members;
            }
        }
        Screen::Pair => {
            let rows = layout::rows(layout::pair(f.body).table, 1);
            let len = state.pair.detail.as_ref().map_or(0, |d| d.rows.len());
            let off = layout::visible_offset(0, state.pair.row, usize::from(rows.height), len);
            if let Some(i) = layout::row_at(rows, off, len, col, row) {
                if i == state.pair.row {
                    open_diff(state, out);
                } else {
                    state.pair.row = i;
                    state.pair.why_scroll = 0;
                }
            }
        }
        Screen::Thresholds if !state.thresholds.about => slide(state, col, row, false, out),
        Screen::Skipped => {
            let rows = layout::rows(f.body, 1);
            let len = state.skipped().len();
            let off = layout::visible_offset(
                state.skipped_offset,
                state.skipped_sel,
                usize::from(rows.height),
                len,
            );
            if let Some(i) = layout::row_at(rows, off, len, col, row) {
                state.skipped_sel = i;
            }
        }
        Screen::Documents => {
            let d = layout::documents(f.body);
            let docs = layout::rows(d.list, 1);
            let len = documents::rows(state).len();
            let off = layout::visible_offset(
                state.docs.offset,
                state.docs.sel,
                usize::from(docs.height),
                len,
            );
            if let Some(i) = layout::row_at(docs, off, len, col, row) {
                if i != state.docs.sel {
                    state.docs.sel = i;
                    state.docs.neighbour_sel = 0;
                }
                state.docs.on_neighbours = false;
                return;
            }
            let near = crate::ui::documents::neighbour_rows(state, d.neighbours);
            let len = documents::shown_neighbours(state).map_or(0, |n| n.neighbours.len());
            let h = usize::from(near.height);
            let off = layout::visible_offset(0, state.docs.neighbour_sel, h, len);
            if let Some(i) = layout::row_at(near, off, len, col, row) {
                if i == state.docs.neighbour_sel && state.docs.on_neighbours {
                    open_pair(state, out);
                } else {
                    state.docs.neighbour_sel = i;
                    state.docs.on_neighbours = true;
                }
            }
        }
        Screen::Thresholds | Screen::Diff | Screen::Log => {}
    }
}

/// A click (or drag) on the threshold table: select the row, and set the
/// threshold when it lands on the slider.
pub(super) fn slide(state: &mut AppState, col: u16, row: u16, drag: bool, out: &mut Vec<Command>) {
    let Some(f) = layout::frame_of(state) else {
        return;
    };
    let t = layout::thresholds(f.body, state.algorithms.len());
    let rows = layout::rows(t.table, layout::THRESHOLD_HEADER);
    let len = state.algorithms.len();
    let off = layout::visible_offset(0, state.thresholds.selected, usize::from(rows.height), len);
    let slider = layout::slider(rows);
    let index = if drag {
        // A drag keeps to the row it started on, wherever the pointer goes.
        Some(state.thresholds.selected)
    } else {
        layout::row_at(rows, off, len, col, row)
    };
    let Some(i) = index else {
        return;
    };
    state.thresholds.selected = i;
    let on_slider = slider.width > 1 && col >= slider.x && col < slider.right();
    if on_slider || (drag && slider.width > 1) {
        let id = state.algorithms[i];
        let lim = state.limits_of(id);
        if lim.fixed() {
            return;
        }
        let x = col.clamp(slider.x, slider.right() - 1) - slider.x;
        let s = f64::from(x) / f64::from(slider.width - 1);
        let v = threshold_from_similarity(id, s, &lim);
        set_threshold(state, id, v, out);
    }
}

pub(super) fn wheel(state: &mut AppState, col: u16, row: u16, down: bool) {
    let delta = if down { 1 } else { -1 };
    if state.help.is_some() {
        step(state, delta * 3);
        return;
    }
    if state.screen == Screen::Clusters {
        if let Some(f) = layout::frame_of(state) {
            let c = layout::clusters(f.body);
            if layout::contains(c.members, col, row) && state.selected_cluster().is_some() {
                state.focus = Focus::Members;
            } else if layout::contains(c.list, col, row) {
                state.focus = Focus::Clusters;
            }
        }
    }
    let n = if state.screen == Screen::Diff || state.screen == Screen::Log {
        3
    } else {
        1
    };
    step(state, delta * n);
}
