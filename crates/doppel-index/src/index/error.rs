//! What can stop an index: the store failing, or the folder not being
//! there (or not being the index's).

use std::path::PathBuf;

use doppel_store::StoreError;

/// Why a [`super::FolderIndex`] could not open or keep up with its folder.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The store failed (see [`StoreError::is_storage_full`] and
    /// [`StoreError::is_busy`]).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The folder cannot be resolved when opening.
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
    /// The index records another folder: using it would drop that folder's
    /// documents.
    #[error(
        "index {index} is the index of {recorded}, not of {root}; using it would drop that \
         folder's documents. Pass another --index path (or none, for {root}'s own index), or \
         remove it with `doppel index forget --index {index}`",
        index = index.display(),
        recorded = recorded.display(),
        root = root.display()
    )]
    OtherFolder {
        /// The index file.
        index: PathBuf,
        /// The folder it records.
        recorded: PathBuf,
        /// The folder it was opened for.
        root: PathBuf,
    },
    /// Sharing a collection's work between processes (`doppel ingest`)
    /// needs a store they all reach.
    #[error(
        "ingest shares the work between processes through a PostgreSQL store: \
         give --store postgres://…"
    )]
    NeedsTeamStore,
    /// The user's boilerplate folder cannot be used.
    #[error(transparent)]
    UserBoilerplate(#[from] crate::boilerplate::user::UserDirError),
    /// A passage of the user's boilerplate folder cannot be overruled.
    #[error(
        "the passage \"{first_words}\" comes from your boilerplate folder: take its file out \
         of the folder instead of overruling it"
    )]
    UserPassage {
        /// The passage's first words.
        first_words: String,
    },
    /// The folder is gone (deleted, moved or unmounted): nothing is
    /// forgotten until it is back.
    #[error(
        "folder {} is unavailable (deleted, moved or unmounted); the index is kept as it was",
        root.display()
    )]
    Unavailable {
        /// The folder.
        root: PathBuf,
    },
}

impl IndexError {
    /// The disk or the index is full (see [`StoreError::is_storage_full`]).
    pub fn is_storage_full(&self) -> bool {
        matches!(self, IndexError::Store(e) if e.is_storage_full())
    }

    /// Another connection held the index too long
    /// ([`StoreError::is_busy`]).
    pub fn is_busy(&self) -> bool {
        matches!(self, IndexError::Store(e) if e.is_busy())
    }

    /// The shared database cannot be reached: its address, without the
    /// password ([`StoreError::unreachable_database`]).
    pub fn unreachable_database(&self) -> Option<&str> {
        match self {
            IndexError::Store(e) => e.unreachable_database(),
            _ => None,
        }
    }
}

/// An index operation's result.
pub type Result<T, E = IndexError> = std::result::Result<T, E>;
