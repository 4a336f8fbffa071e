//! Thresholds tuned on screen: nudging or setting one algorithm's
//! threshold (clamped to its range, said on the message line) and cycling
//! what the clusters are grouped by; each sends its command to the worker.

use crate::state::AppState;
use doppel_index::worker::protocol::cluster_by_label;
use doppel_index::worker::Command;
use doppel_pairing::cluster::ClusterBy;

pub(super) fn nudge(state: &mut AppState, steps: i32, out: &mut Vec<Command>) {
    let Some(&id) = state.algorithms.get(state.thresholds.selected) else {
        return;
    };
    let lim = state.limits_of(id);
    if lim.fixed() {
        state.say(format!("{id} is fixed: signatures are equal or not"));
        return;
    }
    // Positive steps are stricter: the knob moves right on the slider.
    let sign = if id.unit() == doppel_core::engine::algo::Unit::HammingBits {
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

pub(super) fn set_threshold(
    state: &mut AppState,
    id: doppel_core::engine::algo::AlgorithmId,
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

pub(super) fn cycle_cluster_by(state: &mut AppState, forward: bool, out: &mut Vec<Command>) {
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
