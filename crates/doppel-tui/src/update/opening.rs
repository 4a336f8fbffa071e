//! Opening a pair or its diff: which pair ([`pick_pair`]), the commands
//! that ask the worker for it, and whether an answer is the one asked for
//! ([`answers`]) and not older than the question.

use crate::state::{pair_key, AppState, Screen};
use doppel_core::doc::DocPath;
use doppel_index::worker::Command;

/// Time the worker may spend on a diff before sending a coarser one.
pub const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(800);

pub(super) fn open_pair(state: &mut AppState, out: &mut Vec<Command>) {
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

pub(super) fn open_diff(state: &mut AppState, out: &mut Vec<Command>) {
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
pub(super) fn pick_pair(state: &AppState) -> Option<(DocPath, DocPath)> {
    match state.screen {
        Screen::Pair if state.pair.requested.is_some() => state.pair.requested.clone(),
        Screen::Diff if state.diff.requested.is_some() => state.diff.requested.clone(),
        Screen::Documents => crate::documents::selected_pair(state),
        _ => state
            .cluster_pair()
            .or_else(|| state.pair.requested.clone()),
    }
}

/// Whether a worker answer about the pair (a, b) made at `generation` is the
/// one asked for (`requested`, either order) and not stale: no older than
/// the generation it was asked at, nor than the answer already `shown`.
pub(super) fn answers(
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

pub(super) fn current_generation(state: &AppState) -> u64 {
    state.snapshot.as_ref().map_or(0, |s| s.generation)
}
