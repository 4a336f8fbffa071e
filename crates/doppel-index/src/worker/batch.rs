//! What is pending at the start of a worker pass, coalesced: commands,
//! watcher events and a shared store's live changes ([`Input`], taken
//! from [`Inputs`]) are folded into one [`Batch`] (fifty threshold moves are
//! one re-cluster, a thousand file events one batch read, any number of
//! other curators' verdicts one read of the decisions, the newest pair and
//! diff requests only).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use super::inputs::Inputs;
use super::protocol::{Command, ErrorKind, WatchState, WorkerError};
use crate::watch::WatchEvent;
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::algo::AlgorithmId;
use doppel_pairing::cluster::{ClusterBy, ClusterMode};
use doppel_store::live::{Change, LiveEvent};

/// Anything the worker waits on ([`Inputs`]).
pub(super) enum Input {
    Command(Command),
    Watch(WatchEvent),
    /// What another process changed in a shared store, or its connection
    /// lost and back.
    Store(LiveEvent),
}

/// Everything pending at the start of a pass, coalesced.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) paths: BTreeSet<PathBuf>,
    pub(super) rescan: bool,
    /// Quarantines and undos, in the order asked (they move files).
    pub(super) moves: Vec<Command>,
    pub(super) plan: Option<(u64, Vec<usize>, PathBuf)>,
    pub(super) thresholds: BTreeMap<AlgorithmId, f64>,
    pub(super) cluster_by: Option<ClusterBy>,
    pub(super) mode: Option<ClusterMode>,
    pub(super) verdicts: Vec<(DocPath, DocPath, Option<CuratorVerdict>)>,
    pub(super) keepers: Vec<(DocPath, bool)>,
    /// Boilerplate rulings: (generation, passage, overrule).
    pub(super) rulings: Vec<(u64, usize, bool)>,
    pub(super) pair: Option<(DocPath, DocPath)>,
    pub(super) diff: Option<(DocPath, DocPath, Duration)>,
    pub(super) facts: Vec<DocPath>,
    pub(super) neighbours: Option<DocPath>,
    pub(super) states: Vec<WatchState>,
    pub(super) errors: Vec<WorkerError>,
    pub(super) warnings: Vec<String>,
    /// Another process changed the curator's decisions: read them again.
    pub(super) decisions_changed: bool,
    /// Another process indexed, changed or forgot documents: take them
    /// from the store.
    pub(super) documents_changed: bool,
    /// Thresholds to save for the team.
    pub(super) share: Option<doppel_core::engine::Thresholds>,
    /// Another curator saved thresholds for the team: apply them.
    pub(super) team_thresholds_changed: bool,
    /// Another process changed the overruled boilerplate.
    pub(super) boilerplate_changed: bool,
    /// The shared store's address, when its listener lost it.
    pub(super) store_lost: Option<String>,
    /// The shared store is reachable again after being lost.
    pub(super) store_back: bool,
    pub(super) quit: bool,
}

impl Batch {
    pub(super) fn add(&mut self, input: Input) {
        match input {
            Input::Command(c) => match c {
                Command::SetThreshold { id, value } => {
                    if value.is_finite() {
                        self.thresholds.insert(id, value);
                    } else {
                        self.errors.push(WorkerError::new(
                            ErrorKind::Request,
                            format!("threshold {value} for {id} is not a number"),
                        ));
                    }
                }
                Command::SetClusterBy(by) => self.cluster_by = Some(by),
                Command::SetMode(mode) => self.mode = Some(mode),
                Command::RequestPair { a, b } => self.pair = Some((a, b)),
                Command::RequestDiff { a, b, deadline } => self.diff = Some((a, b, deadline)),
                Command::SetPairVerdict { a, b, verdict } => self.verdicts.push((a, b, verdict)),
                Command::SetKeeper { path, keeper } => self.keepers.push((path, keeper)),
                Command::RequestPlan {
                    generation,
                    clusters,
                    to,
                } => self.plan = Some((generation, clusters, to)),
                c @ (Command::Quarantine { .. } | Command::UndoQuarantine { .. }) => {
                    self.moves.push(c);
                }
                Command::RequestFacts { paths } => self.facts.extend(paths),
                Command::RequestNeighbours { path } => self.neighbours = Some(path),
                Command::SetBoilerplateOverruled {
                    generation,
                    passage,
                    overrule,
                } => self.rulings.push((generation, passage, overrule)),
                Command::ShareThresholds { thresholds } => self.share = Some(thresholds),
                Command::Rescan => self.rescan = true,
                Command::Quit => self.quit = true,
            },
            Input::Watch(e) => match e {
                WatchEvent::Changed(p) | WatchEvent::Removed(p) => {
                    self.paths.insert(p);
                }
                WatchEvent::Rescan => self.rescan = true,
                WatchEvent::State(s) => self.states.push(s),
                WatchEvent::Error(m) => self.errors.push(WorkerError::new(ErrorKind::Watch, m)),
                WatchEvent::Warning(m) => self.warnings.push(m),
            },
            Input::Store(e) => match e {
                LiveEvent::Changed(Change::Decisions) => self.decisions_changed = true,
                LiveEvent::Changed(Change::Boilerplate) => self.boilerplate_changed = true,
                LiveEvent::Changed(Change::Documents) => self.documents_changed = true,
                LiveEvent::Changed(Change::Thresholds) => self.team_thresholds_changed = true,
                // Verdicts and documents were loaded before the listener
                // listened: what was committed in between is read now.
                LiveEvent::Listening => {
                    self.decisions_changed = true;
                    self.documents_changed = true;
                }
                LiveEvent::Lost(address) => {
                    self.store_lost = Some(address);
                    self.store_back = false;
                }
                LiveEvent::Back => {
                    self.store_lost = None;
                    self.store_back = true;
                }
            },
        }
    }
}

impl Batch {
    /// Add `first`, then everything stashed and everything waiting.
    pub(super) fn add_all(&mut self, first: Option<Input>, inputs: &mut Inputs) {
        if let Some(input) = first {
            self.add(input);
        }
        while let Some(input) = inputs.stashed() {
            self.add(input);
        }
        while let Ok(input) = inputs.try_recv() {
            self.add(input);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The listener's first `LISTEN` comes after the index was loaded: a
    /// verdict or a document another process committed in between is read
    /// when it says so, as if it had been announced.
    #[test]
    fn a_listener_that_starts_listening_has_the_store_read_again() {
        let mut batch = Batch::default();
        batch.add(Input::Store(LiveEvent::Listening));
        assert!(batch.decisions_changed && batch.documents_changed);
        assert!(!batch.store_back, "no rescan of the folder for it");
    }
}
