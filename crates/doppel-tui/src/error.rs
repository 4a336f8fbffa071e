//! Why the terminal UI could not start, go on, or export: [`TuiError`].

use std::path::PathBuf;

/// A failure of the terminal UI.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The folder cannot be resolved.
    #[error("cannot open folder {}: {error}", root.display())]
    Folder {
        /// The folder as given.
        root: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// The path given as the folder is something else.
    #[error("{} is not a folder", root.display())]
    NotAFolder {
        /// The path.
        root: PathBuf,
    },
    /// Setting up or using the terminal, the runtime or the signals failed.
    #[error("cannot {what}: {error}")]
    Io {
        /// What was being done.
        what: String,
        /// What the system said.
        #[source]
        error: std::io::Error,
    },
    /// Drawing on the terminal failed.
    #[error("cannot draw the screen: {0}")]
    Draw(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// An export the curator asked for cannot be written where asked.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The export does not serialize.
    #[error("cannot write the export as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The export's CSV cannot be written.
    #[error("cannot write the export as CSV: {0}")]
    Csv(#[from] csv::Error),
}

/// Why an export cannot be written where the curator asked.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The prefix names no file (`/`, `..`).
    #[error("{} needs a file name prefix", path.display())]
    NoName {
        /// The prefix, in full.
        path: PathBuf,
    },
    /// The prefix's folder cannot be resolved.
    #[error("folder {} does not exist: {error}", folder.display())]
    NoFolder {
        /// The folder.
        folder: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// The prefix's folder is the watched folder or inside it.
    #[error("{} is inside the watched folder; doppel never writes there", folder.display())]
    InsideFolder {
        /// The folder.
        folder: PathBuf,
    },
    /// Every numbered prefix tried is taken.
    #[error("no free export name after {input}-{from}")]
    NoFreeName {
        /// The prefix asked for.
        input: String,
        /// The first number tried.
        from: u32,
    },
}

/// A result of the terminal UI.
pub type Result<T, E = TuiError> = std::result::Result<T, E>;

/// The [`TuiError::Io`] of `what`.
pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> TuiError {
    let what = what.into();
    move |error| TuiError::Io { what, error }
}
