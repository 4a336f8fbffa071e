//! The only place the model changes: [`update`] applies one [`Action`] and
//! returns the [`Command`]s to send to the worker. No terminal, no I/O;
//! effects that are not worker commands (exports) are queued in
//! [`AppState::effects`] for the loop.
//!
//! Worker answers are checked against what the model still asks: a
//! snapshot older than the one shown, or a pair detail or diff for another
//! pair or computed before the question was asked, is dropped.
//!
//! [`update`] is the dispatch: one arm per action. The work behind the
//! arms lives in submodules by concern: `navigation` (stepping, paging,
//! keeping selections), `opening` (pair and diff requests), `tuning`
//! (thresholds), `mouse` (clicks, drags, wheel) and `worker_updates`
//! (what the worker sends).

mod mouse;
mod navigation;
mod opening;
mod tuning;
mod worker_updates;

use super::acting;
use super::action::Action;
use super::boilerplate;
use super::diff;
use super::documents;
use super::layout;
use super::review;
use super::saving;
use super::state::{AppState, Effect, Focus, Level, Prompt, Screen};
use doppel_core::doc::CuratorVerdict;
use doppel_index::worker::protocol::MODES;
use doppel_index::worker::Command;
use mouse::{click, slide, wheel};
use navigation::{clamp, page, remember, restore, step};
use opening::{open_diff, open_pair};
use tuning::{cycle_cluster_by, nudge, set_threshold};
use worker_updates::apply;

pub use opening::DIFF_DEADLINE;

/// Apply `action` to `state`; the commands the worker must receive.
pub fn update(state: &mut AppState, action: Action) -> Vec<Command> {
    let mut out = Vec::new();
    let asks = documents::asks_after(&action);
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
    // The overlay over any screen takes its keys first (Esc closes it,
    // not the documents screen's filter below it).
    if boilerplate::takes(state, &action) {
        boilerplate::on_view(state, action, &mut out);
        return out;
    }
    if documents::takes(state, &action) {
        let page = layout::list_height(state, layout::List::Documents);
        documents::on_action(state, action, page);
        clamp(state);
        documents::ask(state, &mut out);
        return out;
    }
    match action {
        Action::AskQuarantine => acting::ask(state, &mut out),
        Action::ConfirmQuarantine | Action::ToggleBoilerplate | Action::ToggleOverrule => {}
        Action::UndoQuarantine => acting::undo(state, &mut out),
        Action::AskQuit => saving::ask_quit(state, &mut out),
        Action::SaveThresholds => saving::save(state, &mut out),
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
        Action::ToggleVerdictHistory => {
            state.pair.history = !state.pair.history;
            state.pair.why_scroll = 0;
        }
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
        Action::PageBreak { forward } => diff::jump_page(state, forward),
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
    if asks {
        documents::ask(state, &mut out);
    }
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
            state.docs.sel = 0;
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

pub(super) fn show(state: &mut AppState, screen: Screen, out: &mut Vec<Command>) {
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
        Screen::Documents if state.docs.on_neighbours => open_pair(state, out),
        Screen::Documents => {
            state.docs.on_neighbours =
                documents::shown_neighbours(state).is_some_and(|n| !n.neighbours.is_empty());
        }
        _ => {}
    }
}
