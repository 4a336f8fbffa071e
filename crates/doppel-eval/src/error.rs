//! Why an experiment could not run or be written: [`EvalError`].

use std::path::{Path, PathBuf};

/// An experiment's failure.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The settings or the input cannot give an experiment (no source
    /// text, a folder that is not there, a truth that contradicts itself).
    #[error("{0}")]
    Invalid(String),
    /// A file-system operation failed.
    #[error("cannot {what} {}: {error}", path.display())]
    Io {
        /// What was being done ("read", "write", ...).
        what: &'static str,
        /// On what.
        path: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// A truth file that does not parse.
    #[error(
        "{} is not a truth file ({{\"groups\": [[path, ...], ...], \"containment\": [[part, \
         whole], ...], \"distinct\": [[path, path], ...]}}): {error}",
        path.display()
    )]
    NotTruth {
        /// The file.
        path: PathBuf,
        /// What the JSON parser said.
        #[source]
        error: serde_json::Error,
    },
    /// Memory for a text's analysis or fingerprints cannot be had.
    #[error("not enough memory to fingerprint a text of {bytes} bytes")]
    Memory {
        /// The text's length.
        bytes: usize,
        /// What the allocator said.
        #[source]
        error: std::collections::TryReserveError,
    },
    /// A report does not serialize.
    #[error("cannot write the report as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A report does not serialize as CSV.
    #[error("cannot write the report as CSV: {0}")]
    Csv(#[from] csv::Error),
}

impl<W> From<csv::IntoInnerError<W>> for EvalError {
    fn from(e: csv::IntoInnerError<W>) -> Self {
        EvalError::Csv(csv::Error::from(e.into_error()))
    }
}

/// An experiment's result.
pub type Result<T, E = EvalError> = std::result::Result<T, E>;

/// The [`EvalError::Io`] of `what` on `path`.
pub(crate) fn io<'a>(
    what: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> EvalError + 'a {
    move |error| EvalError::Io {
        what,
        path: path.to_path_buf(),
        error,
    }
}

/// Fail with [`EvalError::Invalid`] unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($message:tt)+) => {
        if !$cond {
            return Err($crate::EvalError::Invalid(format!($($message)+)));
        }
    };
}

/// Fail with [`EvalError::Invalid`].
macro_rules! bail {
    ($($message:tt)+) => {
        return Err($crate::EvalError::Invalid(format!($($message)+)))
    };
}

pub(crate) use {bail, ensure};
