//! Taking in what the worker sends: progress, snapshots (the selection
//! and the tuned thresholds kept across them), pair details and diffs
//! checked against the question still asked, file events and errors.

use std::sync::Arc;

use super::navigation::{remember, restore};
use super::opening::{answers, current_generation};
use crate::acting;
use crate::boilerplate;
use crate::documents;
use crate::review;
use crate::saving;
use crate::state::{AppState, Level, Screen};
use crate::text::doc_path;
use doppel_index::worker::protocol::{Snapshot, Stage, WatchState};
use doppel_index::worker::{Command, Update};

/// Take in one worker update.
pub(super) fn apply(state: &mut AppState, update: Update, out: &mut Vec<Command>) {
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
        Update::Facts(facts) => documents::facts_arrived(state, &facts),
        Update::Neighbours(n) => documents::neighbours_arrived(state, n),
        Update::FileIndexed { path } => {
            documents::forget(state, &path);
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
            documents::forget(state, &path);
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
                    WatchState::Watching if state.paused => {
                        "resumed: watching for changes".to_owned()
                    }
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
            match w {
                WatchState::Paused { .. } => state.paused = true,
                WatchState::Watching => state.paused = false,
                _ => {}
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
            if let Some(view) = state.boilerplate.as_mut() {
                view.pending = None;
            }
            acting::failed(state);
            state.notify(Level::Error, e.message);
        }
        Update::Warning(message) => state.notify(Level::Warn, message),
        Update::TeamThresholds { saved, by_you } => saving::team_saved(state, &saved, by_you),
        Update::Stopped => {
            state.worker_running = false;
            if !state.quit {
                state.notify(Level::Error, "the worker stopped");
            }
        }
    }
}

pub(super) fn snapshot(state: &mut AppState, s: Arc<Snapshot>, out: &mut Vec<Command>) {
    let previous_spec = match &state.snapshot {
        Some(cur) if s.generation < cur.generation => {
            state.dropped += 1;
            return;
        }
        Some(cur) => Some(cur.spec.clone()),
        None => None,
    };
    let keep = remember(state);
    let passage = boilerplate::selected_words(state);
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
                "{}, {}, {} skipped",
                crate::ui::plural(s.documents, "document", "documents"),
                crate::ui::plural(s.clusters.len(), "cluster", "clusters"),
                s.skipped.len()
            ),
        );
    }
    state.snapshot = Some(s);
    boilerplate::follow(state, passage);
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
