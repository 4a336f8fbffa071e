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
        error: std::io::Error,
    },
    /// Drawing on the terminal failed.
    #[error("cannot draw the screen: {0}")]
    Draw(Box<dyn std::error::Error + Send + Sync>),
    /// An export the curator asked for cannot be written where asked.
    #[error("{0}")]
    Export(String),
    /// The export does not serialize.
    #[error("cannot write the export as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// A result of the terminal UI.
pub type Result<T, E = TuiError> = std::result::Result<T, E>;

/// The [`TuiError::Io`] of `what`.
pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> TuiError {
    let what = what.into();
    move |error| TuiError::Io { what, error }
}
