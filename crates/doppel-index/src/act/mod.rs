//! Acting on the curator's decisions. [`plan()`] turns a folder's clusters
//! and the decisions stored in its index (keeper marks, pair verdicts)
//! into a [`Plan`]: every member of a cluster but the one kept (the
//! keeper mark, else the representative) is marked, each checked against
//! what the index recorded of it so a file changed since it was read is
//! named and left alone. [`quarantine()`] moves the marked files out of the
//! watched folder into a folder the user named, relative paths kept,
//! writing a [`journal`] line (fsynced) before each move and the act in
//! doppel's own [`records`]; [`undo()`] puts every file back from that
//! journal, bytes and mtime, never over a file that has reappeared, and
//! only into the folder the user or those records vouch for. [`manifest`] writes the decisions as CSV or
//! JSON without touching a file. Nothing here asks for confirmation: the front
//! ends show the plan and ask before they call [`quarantine()`].

pub mod journal;
pub mod manifest;
pub mod plan;
pub mod quarantine;
pub mod records;

pub use manifest::{manifest_csv, manifest_json, manifest_rows, ManifestRow};
pub use plan::{
    decided, open_decisions, plan, plan_for, ClusterDecision, Decisions, Filter, MarkState, Marked,
    Plan, PlannedCluster, Recorded, Summary,
};
pub use quarantine::{
    quarantine, quarantine_target, undo, undo_all, Moved, Outcome, UndoInto, UndoReport,
};
pub use records::ActRecords;

use std::path::PathBuf;

/// Why acting on decisions failed as a whole (a single file's trouble is
/// a problem in the [`Outcome`] or [`UndoReport`] instead).
#[derive(Debug, thiserror::Error)]
pub enum ActError {
    /// The quarantine folder is the folder of books or inside it (whether
    /// watched or read once: the words fit both).
    #[error("{} is inside {}, the folder of books; doppel never writes there, so choose a quarantine folder outside it", quarantine.display(), root.display())]
    InsideFolder {
        /// The quarantine folder asked for.
        quarantine: PathBuf,
        /// The watched folder.
        root: PathBuf,
    },
    /// A file or folder could not be read or written.
    #[error("{context} {}: {error}", path.display())]
    Io {
        /// What was being done.
        context: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        #[source]
        error: std::io::Error,
    },
    /// A journal line does not read as one.
    #[error("{}, line {line}: not a doppel journal line ({reason})", journal.display())]
    Journal {
        /// The journal file.
        journal: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        #[source]
        reason: serde_json::Error,
    },
    /// The folder's index could not be read.
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    /// The index's store could not be read.
    #[error(transparent)]
    Store(#[from] doppel_store::StoreError),
}

impl ActError {
    fn io(context: &'static str, path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |error| ActError::Io {
            context,
            path,
            error,
        }
    }
}

/// What this module returns.
pub type Result<T, E = ActError> = std::result::Result<T, E>;
