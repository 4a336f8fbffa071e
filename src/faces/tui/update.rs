//! The only place the model changes: [`update`] applies one [`Action`] and
//! returns the [`Command`]s to send to the worker. No terminal, no I/O;
//! effects that are not worker commands (exports) are queued in
//! [`AppState::effects`] for the loop.
//!
//! Worker answers are checked against what the model still asks: a
//! snapshot older than the one shown, or a pair detail or diff for another
//! pair or computed before the question was asked, is dropped.

use std::sync::Arc;

use super::acting;
use super::action::Action;
use super::boilerplate;
use super::diff;
use super::layout::{self, List};
use super::review;
use super::saving;
use super::state::{
    pair_key, threshold_from_similarity, AppState, Effect, Focus, Level, Prompt, Screen,
};
use super::text::doc_path;
use crate::doc::{CuratorVerdict, DocPath};
use crate::pairing::cluster::ClusterBy;
use crate::runtime::worker::protocol::{cluster_by_label, Snapshot, Stage, WatchState, MODES};
use crate::runtime::worker::{Command, Update};

/// Time the worker may spend on a diff before sending a coarser one.
pub const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(800);

/// Apply `action` to `state`; the commands the worker must receive.
pub fn update(state: &mut AppState, action: Action) -> Vec<Command> {
    let mut out = Vec::new();
    // The message line has been seen once the curator presses a key or
    // clicks: it closes, unless the action leaves a new one. A mouse event
    // is placed on the screen as drawn, message line included.
    let mouse = matches!(
        action,
        Action::Click { .. } | Action::Drag { .. } | Action::Scroll { .. }
    );
    let seen = match is_input(&action) {
        true if mouse => state.notice.clone(),
        true => state.notice.take(),
        false => None,
    };
    // A second `q` quits only right after the first.
    if is_input(&action) && !matches!(action, Action::AskQuit) {
        state.quit_asked = false;
    }
    if acting::takes(state, &action) {
        acting::on_view(state, action, &mut out);
        return out;
    }
    if boilerplate::takes(state, &action) {
        boilerplate::on_view(state, action, &mut out);
        return out;
    }
    match action {
        Action::AskQuarantine => acting::ask(state, &mut out),
        Action::ConfirmQuarantine | Action::ToggleBoilerplate | Action::ToggleOverrule => {}
        Action::UndoQuarantine => acting::undo(state, &mut out),
        Action::AskQuit => saving::ask_quit(state, &mut out),
        Action::SaveThresholds => saving::save(state),
        Action::ThresholdsSaved(result) => saving::saved(state, result),
        Action::Quit => {
            state.quit = true;
            out.push(Command::Quit);
        }
        Action::Suspend => state.effects.push(Effect::Suspend),
        Action::ShowScreen(screen) => show(state, screen, &mut out),
        Action::ToggleHelp => {
            state.help = match state.help {
                Some(_) => None,
                None => Some(0),
            };
        }
        Action::Back => back(state),
        Action::Up => step(state, -1),
        Action::Down => step(state, 1),
        Action::PageUp => page(state, -1),
        Action::PageDown => page(state, 1),
        Action::Home => step(state, isize::MIN / 2),
        Action::End => step(state, isize::MAX / 2),
        Action::Left => match state.screen {
            Screen::Clusters => state.focus = Focus::Clusters,
            Screen::Thresholds => nudge(state, -1, &mut out),
            _ => {}
        },
        Action::Right => match state.screen {
            Screen::Clusters if state.selected_cluster().is_some() => {
                state.focus = Focus::Members;
            }
            Screen::Thresholds => nudge(state, 1, &mut out),
            _ => {}
        },
        Action::NextFocus => {
            state.focus = match state.focus {
                Focus::Clusters if state.selected_cluster().is_some() => Focus::Members,
                _ => Focus::Clusters,
            };
        }
        Action::Enter => enter(state, &mut out),
        Action::Anchor => review::anchor(state),
        Action::CycleSort => {
            let keep = remember(state);
            state.sort = state.sort.next();
            state.rebuild_view();
            restore(state, keep);
            state.cluster_offset = 0;
        }
        Action::StartFilter => {
            state.prompt = Some(Prompt::Filter {
                input: state.filter.clone(),
            });
        }
        Action::StartSearch => {
            state.prompt = Some(Prompt::Search {
                input: state
                    .diff
                    .search
                    .as_ref()
                    .map(|s| s.query.clone())
                    .unwrap_or_default(),
            });
        }
        Action::ToggleFold => diff::toggle_fold(state),
        Action::ToggleDiffMode => diff::toggle_mode(state),
        Action::ScrollReason { down } => {
            let s = &mut state.pair.why_scroll;
            *s = if down { *s + 1 } else { s.saturating_sub(1) };
        }
        Action::StartExport => {
            state.prompt = Some(Prompt::Export {
                input: state.export_prefix.clone(),
            });
        }
        Action::PromptChar(c) => {
            if let Some(p) = &mut state.prompt {
                prompt_input(p).push(c);
            }
            live_filter(state);
        }
        Action::PromptBackspace => {
            if let Some(p) = &mut state.prompt {
                prompt_input(p).pop();
            }
            live_filter(state);
        }
        Action::PromptSubmit => submit(state, &mut out),
        Action::PromptCancel => {
            if let Some(Prompt::Filter { .. }) = state.prompt {
                let keep = remember(state);
                state.filter.clear();
                state.rebuild_view();
                restore(state, keep);
            }
            state.prompt = None;
        }
        Action::OpenPair => open_pair(state, &mut out),
        Action::OpenDiff => open_diff(state, &mut out),
        Action::NextChange => diff::jump(state, true),
        Action::PrevChange => diff::jump(state, false),
        Action::MarkDuplicate => review::mark(state, CuratorVerdict::Duplicate, &mut out),
        Action::MarkNotDuplicate => review::mark(state, CuratorVerdict::NotDuplicate, &mut out),
        Action::MarkCluster(verdict) => review::mark_cluster(state, verdict, &mut out),
        Action::ToggleKeep => review::toggle_keep(state, &mut out),
        Action::Undo => review::undo(state, &mut out),
        Action::Rescan => {
            out.push(Command::Rescan);
            state.event(Level::Info, "rescan requested");
        }
        Action::Nudge(steps) => nudge(state, steps, &mut out),
        Action::ResetThreshold => {
            if let Some(&id) = state.algorithms.get(state.thresholds.selected) {
                let v = state.defaults.get(id);
                set_threshold(state, id, v, &mut out);
            }
        }
        Action::CycleClusterBy { forward } => cycle_cluster_by(state, forward, &mut out),
        Action::ToggleMode => {
            let i = MODES
                .iter()
                .position(|m| *m == state.thresholds.mode)
                .unwrap_or(0);
            let mode = MODES[(i + 1) % MODES.len()];
            state.thresholds.mode = mode;
            state.thresholds.awaiting = true;
            out.push(Command::SetMode(mode));
        }
        Action::ToggleAbout => state.thresholds.about = !state.thresholds.about,
        Action::Click { col, row } => click(state, col, row, &mut out),
        Action::Drag { col, row } => {
            if state.screen == Screen::Thresholds && state.help.is_none() && !state.thresholds.about
            {
                slide(state, col, row, true, &mut out);
            }
        }
        Action::Scroll { col, row, down } => wheel(state, col, row, down),
        Action::Resize(w, h) => {
            state.width = w;
            state.height = h;
        }
        Action::Tick(elapsed) => {
            state.elapsed = elapsed;
            state.ticks = state.ticks.wrapping_add(1);
        }
        Action::Worker(u) => apply(state, u, &mut out),
        Action::WorkerGone => {
            if state.worker_running {
                state.worker_running = false;
                if !state.quit {
                    state.notify(Level::Error, "the worker stopped; the view is frozen");
                }
            }
        }
        Action::Exported(Ok(written)) => {
            // The next export is offered a name of its own.
            state.export_prefix = written.next.clone();
            state.notify(Level::Info, written.describe());
        }
        Action::Exported(Err(e)) => state.notify(Level::Error, format!("export failed: {e}")),
    }
    if mouse && seen.is_some() && state.notice == seen {
        state.notice = None;
    }
    clamp(state);
    out
}

/// A key press or mouse event (rather than something the worker, the
/// clock or the terminal did).
fn is_input(action: &Action) -> bool {
    !matches!(
        action,
        Action::Worker(_)
            | Action::WorkerGone
            | Action::Tick(_)
            | Action::Resize(..)
            | Action::Exported(_)
            | Action::ThresholdsSaved(_)
    )
}

fn prompt_input(p: &mut Prompt) -> &mut String {
    match p {
        Prompt::Filter { input }
        | Prompt::Export { input }
        | Prompt::Search { input }
        | Prompt::Quarantine { input } => input,
    }
}

/// Filtering follows the prompt as it is typed.
fn live_filter(state: &mut AppState) {
    if let Some(Prompt::Filter { input }) = &state.prompt {
        if *input != state.filter {
            let input = input.clone();
            let keep = remember(state);
            state.filter = input;
            state.rebuild_view();
            restore(state, keep);
        }
    }
}

fn submit(state: &mut AppState, out: &mut Vec<Command>) {
    match state.prompt.take() {
        Some(Prompt::Filter { .. }) => {
            state.cluster_sel = 0;
            state.focus = Focus::Clusters;
        }
        Some(Prompt::Export { input }) => {
            let prefix = input.trim().to_owned();
            if prefix.is_empty() {
                state.notify(Level::Warn, "export cancelled: no path");
            } else {
                state.export_prefix = prefix.clone();
                state.event(Level::Info, format!("exporting to {prefix}-*"));
                state.effects.push(Effect::Export { prefix });
            }
        }
        Some(Prompt::Search { input }) => diff::search(state, &input),
        Some(Prompt::Quarantine { input }) => acting::submit_folder(state, &input, out),
        None => {}
    }
}

fn show(state: &mut AppState, screen: Screen, out: &mut Vec<Command>) {
    match screen {
        Screen::Pair => open_pair(state, out),
        Screen::Diff => open_diff(state, out),
        s => state.screen = s,
    }
}

fn back(state: &mut AppState) {
    if state.help.is_some() {
        state.help = None;
    } else if state.prompt.is_some() {
        state.prompt = None;
    } else if state.screen == Screen::Diff && state.diff.search.is_some() {
        diff::search(state, "");
        state.last_event = Some("search cleared: n/N jump between changes".into());
    } else if state.screen != Screen::Clusters {
        state.screen = Screen::Clusters;
    } else if state.focus == Focus::Members {
        state.focus = Focus::Clusters;
    } else if !state.filter.is_empty() {
        let keep = remember(state);
        state.filter.clear();
        state.rebuild_view();
        restore(state, keep);
    }
}

fn enter(state: &mut AppState, out: &mut Vec<Command>) {
    if state.help.is_some() {
        state.help = None;
        return;
    }
    match state.screen {
        Screen::Clusters => match state.focus {
            Focus::Clusters => {
                if state.selected_cluster().is_some() {
                    state.focus = Focus::Members;
                }
            }
            Focus::Members => open_pair(state, out),
        },
        Screen::Pair => open_diff(state, out),
        _ => {}
    }
}

/// The selection to keep across a re-sort, re-filter or new snapshot:
/// the selected member's path and the representative's.
type Keep = (Option<DocPath>, Option<DocPath>);

fn remember(state: &AppState) -> Keep {
    (
        state.selected_member().map(|m| m.path.clone()),
        state
            .selected_cluster()
            .and_then(|c| c.members.first())
            .map(|m| m.path.clone()),
    )
}

fn restore(state: &mut AppState, (member, rep): Keep) {
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
fn step(state: &mut AppState, delta: isize) {
    fn moved(cur: usize, delta: isize, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        (cur as isize)
            .saturating_add(delta)
            .clamp(0, len as isize - 1) as usize
    }
    if let Some(h) = state.help {
        let len = super::ui::help::line_count(state.width);
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
        Screen::Log => {
            // Scrolling the log counts lines back from its end.
            let h = layout::list_height(state, List::Log);
            let max = state.log.len().saturating_sub(h);
            state.log_back = moved(state.log_back, -delta, max + 1);
        }
    }
}

fn page(state: &mut AppState, dir: isize) {
    let list = match (state.help, state.screen, state.focus) {
        (Some(_), ..) => List::Help,
        (_, Screen::Clusters, Focus::Clusters) => List::Clusters,
        (_, Screen::Clusters, Focus::Members) => List::Members,
        (_, Screen::Pair, _) => List::PairRows,
        (_, Screen::Diff, _) => List::Diff,
        (_, Screen::Thresholds, _) => List::Thresholds,
        (_, Screen::Skipped, _) => List::Skipped,
        (_, Screen::Log, _) => List::Log,
    };
    let h = layout::list_height(state, list).max(2) - 1;
    step(state, dir * h as isize);
}

fn open_pair(state: &mut AppState, out: &mut Vec<Command>) {
    if let Some((a, b)) = pick_pair(state) {
        let same = state.pair.requested.as_ref() == Some(&(a.clone(), b.clone()));
        if !same {
            state.pair.detail = None;
            state.pair.row = 0;
            state.pair.why_scroll = 0;
        }
        state.pair.requested = Some((a.clone(), b.clone()));
        state.pair.min_generation = current_generation(state);
        out.push(Command::RequestPair { a, b });
    }
    state.screen = Screen::Pair;
}

fn open_diff(state: &mut AppState, out: &mut Vec<Command>) {
    if let Some((a, b)) = pick_pair(state) {
        let same = state.diff.requested.as_ref() == Some(&(a.clone(), b.clone()));
        if !same || state.diff.view.is_none() {
            state.diff.view = None;
            state.diff.layout = None;
            state.diff.scroll = 0;
            state.diff.mark = None;
            state.diff.search = None;
            state.diff.requested = Some((a.clone(), b.clone()));
            state.diff.min_generation = current_generation(state);
            out.push(Command::RequestDiff {
                a,
                b,
                deadline: DIFF_DEADLINE,
            });
        }
    }
    state.screen = Screen::Diff;
}

/// The pair to open: the one on screen (pair or diff view), else the one
/// the cluster list points at.
fn pick_pair(state: &AppState) -> Option<(DocPath, DocPath)> {
    match state.screen {
        Screen::Pair if state.pair.requested.is_some() => state.pair.requested.clone(),
        Screen::Diff if state.diff.requested.is_some() => state.diff.requested.clone(),
        _ => state
            .cluster_pair()
            .or_else(|| state.pair.requested.clone()),
    }
}

/// Whether a worker answer about the pair (a, b) made at `generation` is the
/// one asked for (`requested`, either order) and not stale: no older than
/// the generation it was asked at, nor than the answer already `shown`.
fn answers(
    requested: &Option<(DocPath, DocPath)>,
    (a, b): (&DocPath, &DocPath),
    generation: u64,
    min_generation: u64,
    shown: Option<u64>,
) -> bool {
    requested
        .as_ref()
        .is_some_and(|(x, y)| pair_key(x, y) == pair_key(a, b))
        && generation >= min_generation
        && shown.is_none_or(|g| generation >= g)
}

fn current_generation(state: &AppState) -> u64 {
    state.snapshot.as_ref().map_or(0, |s| s.generation)
}

fn nudge(state: &mut AppState, steps: i32, out: &mut Vec<Command>) {
    let Some(&id) = state.algorithms.get(state.thresholds.selected) else {
        return;
    };
    let lim = state.limits_of(id);
    if lim.fixed() {
        state.say(format!("{id} is fixed: signatures are equal or not"));
        return;
    }
    // Positive steps are stricter: the knob moves right on the slider.
    let sign = if id.unit() == crate::engine::algo::Unit::HammingBits {
        -1.0
    } else {
        1.0
    };
    let now = state.thresholds.thresholds.get(id);
    let v = now + sign * f64::from(steps) * lim.step;
    if lim.clamp(v) == now {
        state.say(format!("{id} stays at {now}: the end of its range"));
        return;
    }
    set_threshold(state, id, v, out);
}

fn set_threshold(
    state: &mut AppState,
    id: crate::engine::algo::AlgorithmId,
    value: f64,
    out: &mut Vec<Command>,
) {
    let lim = state.limits_of(id);
    let value = lim.clamp(value);
    if value == state.thresholds.thresholds.get(id) {
        return;
    }
    state.thresholds.thresholds.set(id, value);
    state.thresholds.awaiting = true;
    out.push(Command::SetThreshold { id, value });
    let below_floor = state
        .snapshot
        .as_ref()
        .is_some_and(|s| !s.floors.allows(id, value));
    state.say(if below_floor {
        format!("{id} → {value}: below the floor, candidates are gathered again")
    } else {
        format!("{id} → {value}")
    });
}

fn cycle_cluster_by(state: &mut AppState, forward: bool, out: &mut Vec<Command>) {
    let mut options = vec![ClusterBy::Fusion];
    options.extend(state.algorithms.iter().map(|&id| ClusterBy::Algorithm(id)));
    let i = options
        .iter()
        .position(|b| *b == state.thresholds.by)
        .unwrap_or(0);
    let n = options.len();
    let next = options[if forward {
        (i + 1) % n
    } else {
        (i + n - 1) % n
    }];
    state.thresholds.by = next;
    state.thresholds.awaiting = true;
    state.say(format!("cluster by {}", cluster_by_label(next)));
    out.push(Command::SetClusterBy(next));
}

fn click(state: &mut AppState, col: u16, row: u16, out: &mut Vec<Command>) {
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
        Screen::Thresholds | Screen::Diff | Screen::Log => {}
    }
}

/// A click (or drag) on the threshold table: select the row, and set the
/// threshold when it lands on the slider.
fn slide(state: &mut AppState, col: u16, row: u16, drag: bool, out: &mut Vec<Command>) {
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

fn wheel(state: &mut AppState, col: u16, row: u16, down: bool) {
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

/// Take in one worker update.
fn apply(state: &mut AppState, update: Update, out: &mut Vec<Command>) {
    match update {
        Update::Progress(p) => {
            if p.stage == Stage::Idle && state.progress.is_some_and(|old| old.stage != Stage::Idle)
            {
                state.log(Level::Info, "scan done");
            }
            state.progress = Some(p);
        }
        Update::Snapshot(s) => snapshot(state, s, out),
        Update::Pair(p) => {
            let shown = state.pair.detail.as_ref().map(|d| d.generation);
            let pair = &state.pair;
            if answers(
                &pair.requested,
                (&p.a, &p.b),
                p.generation,
                pair.min_generation,
                shown,
            ) {
                state.pair.detail = Some(p);
            } else {
                state.dropped += 1;
            }
        }
        Update::Diff(d) => {
            let shown = state.diff.view.as_ref().map(|v| v.generation);
            let diff = &state.diff;
            if answers(
                &diff.requested,
                (&d.a, &d.b),
                d.generation,
                diff.min_generation,
                shown,
            ) {
                if d.truncated {
                    state.log(
                        Level::Warn,
                        format!("diff of {} ⇄ {} cut short by its deadline", d.a, d.b),
                    );
                }
                state.diff.view = Some(d);
            } else {
                state.dropped += 1;
            }
        }
        Update::FileIndexed { path } => {
            state.deleted.remove(&path);
            state.event(Level::Info, format!("indexed {}", doc_path(&path)))
        }
        Update::FileRemoved { path } => {
            let open = [Screen::Pair, Screen::Diff]
                .into_iter()
                .find(|&screen| state.shows(screen, &path));
            let text = match open {
                Some(screen) => format!(
                    "{} was deleted from the folder: the {} open shows it as it was",
                    doc_path(&path),
                    if screen == Screen::Pair {
                        "pair"
                    } else {
                        "diff"
                    }
                ),
                None => format!("removed {}", doc_path(&path)),
            };
            state.deleted.insert(path);
            if open.is_some() {
                state.notify(Level::Warn, text);
            } else {
                state.event(Level::Info, text);
            }
        }
        Update::FileSkipped { path, reason } => state.event(
            Level::Warn,
            format!("skipped {}: {reason}", doc_path(&path)),
        ),
        Update::Watch(w) => {
            if state.watch.as_ref() != Some(&w) {
                let text = match &w {
                    WatchState::Watching => "watching for changes".to_owned(),
                    WatchState::Scanning => "scanning the folder".to_owned(),
                    WatchState::Polling { reason } => format!("polling: {reason}"),
                    WatchState::Paused { reason } => format!("paused: {reason}"),
                };
                match w {
                    WatchState::Polling { .. } | WatchState::Paused { .. } => {
                        state.notify(Level::Warn, text)
                    }
                    _ => state.event(Level::Info, text),
                }
            }
            state.watch = Some(w);
        }
        Update::Plan(plan) => acting::planned(state, plan),
        Update::Quarantined(outcome) => acting::quarantined(state, &outcome),
        Update::Restored(report) => acting::restored(state, &report),
        Update::Error(e) => {
            // A refused spec change (or plan) would otherwise look pending
            // forever.
            state.thresholds.awaiting = false;
            acting::failed(state);
            state.notify(Level::Error, e.message);
        }
        Update::Warning(message) => state.notify(Level::Warn, message),
        Update::Stopped => {
            state.worker_running = false;
            if !state.quit {
                state.notify(Level::Error, "the worker stopped");
            }
        }
    }
}

fn snapshot(state: &mut AppState, s: Arc<Snapshot>, out: &mut Vec<Command>) {
    let previous_spec = match &state.snapshot {
        Some(cur) if s.generation < cur.generation => {
            state.dropped += 1;
            return;
        }
        Some(cur) => Some(cur.spec.clone()),
        None => None,
    };
    let keep = remember(state);
    let first = state.snapshot.is_none();
    // Keeps the snapshot now agrees with are no longer overrides.
    state.keeper_overrides.retain(|path, keeper| {
        !s.clusters
            .iter()
            .flat_map(|c| &c.members)
            .any(|m| &m.path == path && m.keeper == *keeper)
    });
    let t = &mut state.thresholds;
    let matches = s.spec.thresholds == t.thresholds && s.spec.by == t.by && s.spec.mode == t.mode;
    if matches {
        t.awaiting = false;
    } else if !t.awaiting {
        t.thresholds = s.spec.thresholds.clone();
        t.by = s.spec.by;
        t.mode = s.spec.mode;
    }
    let spec_changed = previous_spec.as_ref().is_some_and(|p| *p != s.spec);
    if first {
        state.log(
            Level::Info,
            format!(
                "{} documents, {} clusters, {} skipped",
                s.documents,
                s.clusters.len(),
                s.skipped.len()
            ),
        );
    }
    state.snapshot = Some(s);
    state.sort_scores();
    state.rebuild_view();
    restore(state, keep);
    review::check_splits(state);
    // Scores and verdicts in an open pair detail depend on the spec.
    if spec_changed && state.screen == Screen::Pair {
        if let Some((a, b)) = state.pair.requested.clone() {
            state.pair.min_generation = current_generation(state);
            out.push(Command::RequestPair { a, b });
        }
    }
}

/// Keep every selection in range and in view.
fn clamp(state: &mut AppState) {
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
        (Some(d), Some(f)) => super::ui::pair::reason_layout(state, d, f.body).max_scroll(),
        _ => 0,
    };
    state.pair.why_scroll = state.pair.why_scroll.min(why_max);
    let a = state.algorithms.len();
    state.thresholds.selected = state.thresholds.selected.min(a.saturating_sub(1));
    diff::refresh(state);
    state.diff.scroll = state.diff.scroll.min(diff::max_scroll(state));
    let l = layout::list_height(state, List::Log);
    state.log_back = state.log_back.min(state.log.len().saturating_sub(l));
}
