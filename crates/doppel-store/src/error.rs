//! What can go wrong with a store: [`StoreError`] (every variant names the
//! index file) and why an existing file is not a usable index
//! ([`OpenProblem`]). A variant that wraps a cause (SQLite's, the file
//! system's, the PostgreSQL client's, an [`OpenProblem`]) says it in its
//! own message too, and keeps it as its [`std::error::Error::source`], so
//! the chain goes on to the cause's own.

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

use super::{APPLICATION_ID, SCHEMA_VERSION};

/// A store failure; every variant names the index file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused an operation.
    #[error("index {}: {context}: {error}", path.display())]
    Sqlite {
        /// The index file.
        path: PathBuf,
        /// What was being done.
        context: String,
        /// What SQLite said.
        #[source]
        error: rusqlite::Error,
    },
    /// A file-system operation on the index or its folder failed.
    #[error("index {}: {context}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        context: String,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// A stored value does not decode (written by another build, or damaged).
    #[error("index {}: document {doc}: {reason}", path.display())]
    Decode {
        /// The index file.
        path: PathBuf,
        /// Which document (or row), for people.
        doc: String,
        /// What does not decode.
        reason: String,
    },
    /// The call itself was invalid (e.g. a pair with a path not in the index).
    #[error("index {}: {reason}", path.display())]
    Invalid {
        /// The index file.
        path: PathBuf,
        /// What is wrong with the call.
        reason: String,
    },
    /// The file is not a usable doppel index and was opened read-only, so it
    /// was left alone.
    #[error("index {}: {problem}", path.display())]
    NotAnIndex {
        /// The file.
        path: PathBuf,
        /// What it is instead.
        #[source]
        problem: OpenProblem,
    },
    /// A store address that is neither a PostgreSQL URL nor an index file
    /// (refused before anything is made).
    #[error("{address} is not a store address: {expected}")]
    NotAnAddress {
        /// The address, [`redacted`](super::redacted).
        address: String,
        /// What an address may be.
        expected: String,
    },
    /// A store address names PostgreSQL, and this build has no client
    /// for it (built without the `postgres` feature).
    #[error("{address}: this doppel is built without PostgreSQL (the `postgres` feature)")]
    NoPostgres {
        /// The address, its password left out.
        address: String,
    },
    /// A PostgreSQL store refused an operation, or could not be reached.
    #[cfg(feature = "postgres")]
    #[error("store {address}: {context}: {}", one_line(error))]
    Postgres {
        /// The database's address, its password left out.
        address: String,
        /// What was being done.
        context: String,
        /// What the client or the server said.
        #[source]
        error: postgres::Error,
    },
    /// A shared store whose schema a newer doppel wrote: it is left as it
    /// is (other curators use it), and this doppel stops.
    #[error(
        "store {address} has schema version {version}, newer than this doppel's          ({known}); upgrade doppel to use it (the database was left as it is)"
    )]
    NewerSchema {
        /// The database's address, its password left out.
        address: String,
        /// The version the database records.
        version: i32,
        /// The newest version this build knows.
        known: i32,
    },
    /// No platform data directory (no home directory).
    #[error("no data directory for doppel's index (is $HOME set?); give an index path explicitly")]
    NoDataDir,
    /// The watched folder cannot be resolved.
    #[error("folder {}: {error}", root.display())]
    Root {
        /// The folder.
        root: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// The index would live inside the folder doppel reads (W14).
    #[error(
        "index {} is inside {}, the folder of books; doppel never writes there, \
         so choose an index path outside it",
        store.display(),
        root.display()
    )]
    InsideRoot {
        /// The index path asked for.
        store: PathBuf,
        /// The watched folder.
        root: PathBuf,
    },
}

impl StoreError {
    pub(crate) fn sqlite_code(&self) -> Option<ErrorCode> {
        match self {
            StoreError::Sqlite { error, .. } => error.sqlite_error_code(),
            _ => None,
        }
    }

    /// The disk or the index's page limit is full (`SQLITE_FULL`); the
    /// failed transaction was rolled back.
    pub fn is_storage_full(&self) -> bool {
        self.sqlite_code() == Some(ErrorCode::DiskFull)
    }

    /// The database server cannot be reached: the connection was lost (a
    /// restart, the network) or a new one is refused while it starts or
    /// stops. Worth waiting out; `None` for an SQLite index.
    pub fn unreachable_database(&self) -> Option<&str> {
        #[cfg(feature = "postgres")]
        if let StoreError::Postgres { address, error, .. } = self {
            use postgres::error::SqlState;
            let gone = error.is_closed()
                || error.as_db_error().is_some_and(|db| {
                    [
                        SqlState::ADMIN_SHUTDOWN,
                        SqlState::CRASH_SHUTDOWN,
                        SqlState::CANNOT_CONNECT_NOW,
                    ]
                    .contains(db.code())
                })
                || std::error::Error::source(error)
                    .is_some_and(|source| source.is::<std::io::Error>());
            return gone.then_some(address.as_str());
        }
        None
    }

    /// Another connection held the lock longer than [`super::BUSY_TIMEOUT`]; retry.
    pub fn is_busy(&self) -> bool {
        matches!(
            self.sqlite_code(),
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
        )
    }
}

/// A PostgreSQL error as one line: the client's message and, for an error
/// the server sent, its detail (never the connection's password, which
/// neither holds).
#[cfg(feature = "postgres")]
fn one_line(error: &postgres::Error) -> String {
    let mut line = error.to_string();
    if let Some(db) = error.as_db_error() {
        line = format!("{} ({})", db.message(), db.code().code());
    } else if let Some(source) = std::error::Error::source(error) {
        let source = source.to_string();
        if !line.contains(&source) {
            line = format!("{line}: {source}");
        }
    }
    line.replace(['\n', '\r'], " ")
}

/// A store operation's result.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Names the index file and the operation in a SQLite error.
pub(super) trait Context<T> {
    /// The error as [`StoreError::Sqlite`], with `context`.
    fn ctx(self, path: &Path, context: impl fmt::Display) -> Result<T>;
}

impl<T> Context<T> for rusqlite::Result<T> {
    fn ctx(self, path: &Path, context: impl fmt::Display) -> Result<T> {
        self.map_err(|error| StoreError::Sqlite {
            path: path.to_path_buf(),
            context: context.to_string(),
            error,
        })
    }
}

/// Why an existing file at the index path could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenProblem {
    /// SQLite says it is not a database (garbage, a text file, a truncated header).
    NotADatabase {
        /// What SQLite said.
        detail: String,
    },
    /// A database that fails `PRAGMA quick_check` or reports corruption.
    Corrupt {
        /// What the check found.
        detail: String,
    },
    /// Another application's SQLite database.
    Foreign {
        /// Its `PRAGMA application_id`.
        application_id: i32,
    },
    /// A doppel index with a schema this build does not know.
    UnknownSchema {
        /// Its `PRAGMA user_version`.
        version: i32,
    },
}

/// A cause of [`StoreError::NotAnIndex`].
impl std::error::Error for OpenProblem {}

impl fmt::Display for OpenProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenProblem::NotADatabase { detail } => write!(f, "not a database ({detail})"),
            OpenProblem::Corrupt { detail } => write!(f, "corrupt ({detail})"),
            OpenProblem::Foreign { application_id } => write!(
                f,
                "another application's database (application_id {application_id:#x}, \
                 doppel's is {APPLICATION_ID:#x})"
            ),
            OpenProblem::UnknownSchema { version } => write!(
                f,
                "a doppel index with schema version {version}; this build reads version \
                 {SCHEMA_VERSION}"
            ),
        }
    }
}
