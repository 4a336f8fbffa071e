//! The worker's part in what a team store shares besides documents and
//! decisions: the thresholds one curator saves for everyone reviewing the
//! collection. Saving ([`Command::ShareThresholds`](super::Command)) writes
//! them with the curator and the time; every other worker hears of it
//! (a `thresholds` notification) and clusters by them at once, as a worker
//! starting on the collection does. Moving a threshold on screen stays
//! this worker's until it is saved. On a file index, which is one
//! curator's, none of this happens.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Update, Worker};
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::Thresholds;
use doppel_store::{now_ns, SharedThresholds};

impl Worker {
    /// Save `thresholds` for the team, as this worker's curator's, and say
    /// so ([`Update::TeamThresholds`]); nothing on a file index.
    pub(super) fn share_thresholds(&mut self, thresholds: Thresholds) {
        if !self.index.store().is_shared() {
            return;
        }
        let saved = SharedThresholds {
            curator: self.index.curator().to_owned(),
            at_ns: now_ns(),
            thresholds,
        };
        match self.index.share_thresholds(&saved) {
            Ok(()) => self.send(Update::TeamThresholds {
                saved: Arc::new(saved),
                by_you: true,
            }),
            Err(e) => self.index_error(&e, Some("saving the thresholds for the team")),
        }
    }

    /// The thresholds saved for the team, said to the front end
    /// ([`Update::TeamThresholds`]) and returned as threshold moves to
    /// apply; `None` on a file index or when none are saved.
    pub(super) fn team_thresholds(&mut self) -> Option<BTreeMap<AlgorithmId, f64>> {
        if !self.index.store().is_shared() {
            return None;
        }
        let saved = match self.index.store().shared_thresholds() {
            Ok(saved) => saved?,
            Err(e) => {
                self.index_error(&e.into(), Some("reading the thresholds saved for the team"));
                return None;
            }
        };
        let moves = saved.thresholds.0.clone();
        self.send(Update::TeamThresholds {
            saved: Arc::new(saved),
            by_you: false,
        });
        Some(moves)
    }
}
