//! Acting on decisions from the worker, which owns the index: the plan
//! of the clusters a front end shows (the same rule as `doppel act`,
//! through [`act::decided`] on the worker's own library), the moves
//! and undos a front end asks for once the curator confirmed, and the
//! curator's boilerplate rulings.

use std::path::Path;

use std::sync::Arc;

use super::protocol::{Command, ErrorKind, PlanView, Update, WorkerError};
use super::Worker;
use crate::act;
use crate::act::{Filter, Recorded};
use crate::index::FolderIndex;
use crate::scan::ScanReport;
use doppel_pairing::cluster::ClusterSpec;

/// The plan for clusters `ids` (1-based in snapshot order; empty: all)
/// of `index` under `spec`, moving to `to`.
pub fn plan(
    index: &FolderIndex,
    spec: &ClusterSpec,
    generation: u64,
    ids: Vec<usize>,
    to: &Path,
) -> Result<PlanView, WorkerError> {
    let to = act::quarantine_target(to, index.root())
        .map_err(|e| WorkerError::new(ErrorKind::Request, e.to_string()))?;
    let recorded = Recorded::all_in(index.store())
        .map_err(|e| WorkerError::new(ErrorKind::Index, format!("no plan: the index: {e}")))?;
    // The report `act::decided` reads, over a copy of the library so the
    // rule is the one `doppel act` follows.
    let library = index.library().clone();
    let report = ScanReport {
        docs: Vec::new(),
        clusters: library.clusters(spec),
        library,
        spec: spec.clone(),
        // The plan reads clusters and verdicts only.
        boilerplate: Default::default(),
        only_relations: None,
    };
    let filter = Filter {
        clusters: ids,
        under: None,
    };
    let decided = act::decided(&report, &filter);
    let plan = act::plan_for(&decided, |p| recorded.get(p).copied(), index.root());
    Ok(PlanView {
        generation,
        to,
        plan,
    })
}

impl Worker {
    /// Answer a plan request for the clusters of the snapshot shown, or
    /// say the clusters changed since.
    pub(super) fn request_plan(&mut self, generation: u64, ids: Vec<usize>, to: &std::path::Path) {
        if self.unpublished || generation != self.generation {
            self.send(Update::Error(WorkerError::new(
                ErrorKind::Request,
                "no plan: the clusters changed since; ask again",
            )));
            return;
        }
        match plan(&self.index, &self.spec, generation, ids, to) {
            Ok(view) => self.send(Update::Plan(Arc::new(view))),
            Err(e) => self.send(Update::Error(e)),
        }
    }

    /// Apply a boilerplate ruling on passage `passage` of snapshot
    /// `generation`'s list, or say the list changed since; whether
    /// anything changed.
    pub(super) fn rule_boilerplate(
        &mut self,
        generation: u64,
        passage: usize,
        overrule: bool,
    ) -> bool {
        let report = self.index.boilerplate_cached().unwrap_or_default();
        let chosen = report
            .passages
            .get(passage)
            .filter(|p| p.overruled != overrule);
        let Some(chosen) = chosen.filter(|_| !self.unpublished && generation == self.generation)
        else {
            self.send(Update::Error(WorkerError::new(
                ErrorKind::Request,
                "the boilerplate list changed since; choose again",
            )));
            return false;
        };
        match self.index.overrule_passage(chosen, overrule) {
            Ok(changes) => {
                let looked_at: Vec<std::path::PathBuf> = Vec::new();
                self.note_changes(changes, &looked_at);
                true
            }
            Err(e) => {
                self.index_error(&e, Some("the boilerplate ruling"));
                false
            }
        }
    }

    /// Carry out a confirmed quarantine, or an undo.
    pub(super) fn move_files(&mut self, command: Command) {
        let result = match command {
            Command::Quarantine { plan, to } => act::quarantine(
                &plan,
                self.index.root(),
                &to,
                self.config.act_records.as_ref(),
            )
            .map(|o| Update::Quarantined(Arc::new(o))),
            // Back into this worker's own folder only.
            Command::UndoQuarantine { journal } => {
                act::undo(&journal, act::UndoInto::Folder(self.index.root()))
                    .map(|r| Update::Restored(Arc::new(r)))
            }
            _ => return,
        };
        match result {
            Ok(update) => self.send(update),
            Err(e) => self.send(Update::Error(WorkerError::new(
                ErrorKind::File,
                e.to_string(),
            ))),
        }
    }
}
