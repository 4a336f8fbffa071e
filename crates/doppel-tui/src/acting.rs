//! Acting on decisions from the clusters screen: `M` asks the worker for
//! the plan of the clusters shown (all, or those the `/` filter keeps)
//! and opens a confirmation view; only `y` or Enter there sends the
//! quarantine, Esc closes it with nothing sent. `U` undoes this session's
//! last quarantine through its journal. The rule of which files move is
//! the runtime's (`runtime::act`), computed by the worker.

use std::path::PathBuf;
use std::sync::Arc;

use super::action::Action;
use super::state::{AppState, Level, Prompt};
use doppel_index::act::{Outcome, UndoReport};
use doppel_index::worker::protocol::PlanView;
use doppel_index::worker::Command;

/// The quarantine folder, the confirmation view and the last journal.
#[derive(Debug, Clone, Default)]
pub struct ActState {
    /// Where files move (the config's `quarantine-dir`, or typed this
    /// session).
    pub quarantine_dir: Option<PathBuf>,
    /// The confirmation view, open from `M` until confirmed or cancelled.
    pub view: Option<ActView>,
    /// The journal of this session's last quarantine (`U` undoes it).
    pub last_journal: Option<PathBuf>,
}

/// The confirmation view: the plan asked for, once the worker sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActView {
    /// The snapshot the plan was asked about.
    pub generation: u64,
    /// The plan, once it came.
    pub plan: Option<Arc<PlanView>>,
    /// Lines scrolled past.
    pub scroll: usize,
}

/// `M`: ask for the plan, first asking where to when no folder is set.
pub fn ask(state: &mut AppState, out: &mut Vec<Command>) {
    match state.act.quarantine_dir.clone() {
        Some(to) => request(state, to, out),
        None => {
            state.prompt = Some(Prompt::Quarantine {
                input: String::new(),
            })
        }
    }
}

/// The quarantine prompt was answered.
pub fn submit_folder(state: &mut AppState, input: &str, out: &mut Vec<Command>) {
    let input = input.trim();
    if input.is_empty() {
        state.notify(Level::Warn, "nothing moved: no quarantine folder");
        return;
    }
    let to = PathBuf::from(input);
    state.act.quarantine_dir = Some(to.clone());
    request(state, to, out);
}

fn request(state: &mut AppState, to: PathBuf, out: &mut Vec<Command>) {
    let Some(snapshot) = &state.snapshot else {
        state.notify(Level::Warn, "no clusters yet: wait for the scan");
        return;
    };
    let generation = snapshot.generation;
    // With a filter, the clusters it keeps (ids are 1-based positions in
    // the snapshot); without, every cluster.
    let clusters: Vec<usize> = match state.filter.is_empty() {
        true => Vec::new(),
        false => state.view.iter().map(|i| i + 1).collect(),
    };
    if !state.filter.is_empty() && clusters.is_empty() {
        state.notify(
            Level::Warn,
            "no cluster matches the filter: nothing to move",
        );
        return;
    }
    state.act.view = Some(ActView {
        generation,
        plan: None,
        scroll: 0,
    });
    out.push(Command::RequestPlan {
        generation,
        clusters,
        to,
    });
}

/// Whether `action` is the confirmation view's (it takes every key while
/// open).
pub fn takes(state: &AppState, action: &Action) -> bool {
    state.act.view.is_some()
        && matches!(
            action,
            Action::ConfirmQuarantine
                | Action::Back
                | Action::Enter
                | Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End
        )
}

/// A key on the open confirmation view.
pub fn on_view(state: &mut AppState, action: Action, out: &mut Vec<Command>) {
    let Some(view) = state.act.view.as_mut() else {
        return;
    };
    let page = usize::from(state.height.saturating_sub(8)).max(1);
    match action {
        Action::Up => view.scroll = view.scroll.saturating_sub(1),
        Action::Down => view.scroll += 1,
        Action::PageUp => view.scroll = view.scroll.saturating_sub(page),
        Action::PageDown => view.scroll += page,
        Action::Home => view.scroll = 0,
        Action::End => view.scroll = usize::MAX / 2,
        Action::ConfirmQuarantine | Action::Enter => confirm(state, out),
        Action::Back => {
            state.act.view = None;
            state.notify(Level::Info, "nothing moved");
        }
        _ => {}
    }
}

fn confirm(state: &mut AppState, out: &mut Vec<Command>) {
    let Some(plan) = state.act.view.as_ref().and_then(|v| v.plan.clone()) else {
        state.last_event = Some("the plan is not there yet".into());
        return;
    };
    state.act.view = None;
    if plan.plan.summary.files == 0 {
        state.notify(Level::Info, "nothing to move");
        return;
    }
    state.event(
        Level::Info,
        format!(
            "moving {} to {}",
            files(plan.plan.summary.files),
            plan.to.display()
        ),
    );
    out.push(Command::Quarantine {
        plan: Box::new(plan.plan.clone()),
        to: plan.to.clone(),
    });
}

/// The worker's plan: shown if it answers the open view.
pub fn planned(state: &mut AppState, plan: Arc<PlanView>) {
    match state.act.view.as_mut() {
        Some(view) if view.generation == plan.generation && view.plan.is_none() => {
            view.plan = Some(plan);
        }
        _ => state.dropped += 1,
    }
}

/// The worker refused or failed: a view still waiting for its plan
/// closes (the error is on the message line).
pub fn failed(state: &mut AppState) {
    if state.act.view.as_ref().is_some_and(|v| v.plan.is_none()) {
        state.act.view = None;
    }
}

/// Files moved.
pub fn quarantined(state: &mut AppState, outcome: &Outcome) {
    let to = outcome
        .journal
        .parent()
        .map_or_else(String::new, |p| p.display().to_string());
    let mut text = format!(
        "moved {} to {to} (journal {}) — U undoes",
        files(outcome.moved.len()),
        outcome.journal.display()
    );
    if !outcome.problems.is_empty() {
        text.push_str(&format!("; not moved: {}", outcome.problems.join("; ")));
    }
    state.act.last_journal = Some(outcome.journal.clone());
    let level = match outcome.problems.is_empty() {
        true => Level::Info,
        false => Level::Warn,
    };
    state.notify(level, text);
}

/// `U`: undo this session's last quarantine.
pub fn undo(state: &mut AppState, out: &mut Vec<Command>) {
    match state.act.last_journal.take() {
        Some(journal) => {
            state.event(
                Level::Info,
                format!("putting back from {}", journal.display()),
            );
            out.push(Command::UndoQuarantine { journal });
        }
        None => state.notify(
            Level::Warn,
            "no quarantine to undo this session (doppel undo JOURNAL puts back an older one)",
        ),
    }
}

/// Files put back.
pub fn restored(state: &mut AppState, report: &UndoReport) {
    let mut text = format!(
        "put back {} from {}",
        files(report.restored.len()),
        report.journal.display()
    );
    if report.already_back > 0 {
        text.push_str(&format!(" ({} already back)", report.already_back));
    }
    let level = match report.problems.is_empty() {
        true => Level::Info,
        false => {
            text.push_str(&format!("; not put back: {}", report.problems.join("; ")));
            Level::Warn
        }
    };
    state.notify(level, text);
}

/// "1 file", "3 files".
pub fn files(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}
