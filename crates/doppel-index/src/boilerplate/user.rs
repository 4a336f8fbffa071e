//! The user's boilerplate folder (`[boilerplate] user-dir`): every file in
//! it is read and sampled like a document, and its samples are pinned in
//! the learner ([`doppel_pairing::boilerplate::Learner::set_pinned`]), so
//! its text is boilerplate in every document that carries it, however few
//! do. The folder must lie outside the folder scanned (its files would
//! otherwise be documents of the collection too).
//!
//! [`UserBoilerplate::key`] digests what was read: the folder index keeps
//! it in its fingerprints' configuration key, so a change of the folder's
//! content reads the collection again, the simplest way to recompute the spans of every
//! document the change reaches.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::collection::{list_files, read_listed_text, ListedRoot, Skip, DEFAULT_SIZE_CAP};
use crate::reading::ReadLimits;
use doppel_core::doc::DocPath;
use doppel_core::engine::Engine;
use doppel_pairing::boilerplate::{DocSamples, Learner};
use doppel_pairing::library::LibraryConfig;

/// Why the user's boilerplate folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum UserDirError {
    /// The folder lies inside the folder scanned.
    #[error(
        "the boilerplate folder {} is inside the folder scanned ({}); its files would be \
         documents of the collection too: move it outside, or set another [boilerplate] user-dir",
        dir.display(),
        root.display()
    )]
    Inside {
        /// The boilerplate folder.
        dir: PathBuf,
        /// The folder scanned.
        root: PathBuf,
    },
    /// The folder cannot be opened.
    #[error("cannot open the boilerplate folder {}: {error}", dir.display())]
    Unreadable {
        /// The boilerplate folder.
        dir: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
}

/// The boilerplate folder `library` names (as configured, and canonical),
/// `None` when none is or learning is off; an error when it is no folder.
fn configured(library: &LibraryConfig) -> Result<Option<(&Path, PathBuf)>, UserDirError> {
    let Some(dir) = library
        .boilerplate
        .user_dir
        .as_deref()
        .filter(|_| library.boilerplate.enabled)
    else {
        return Ok(None);
    };
    let unreadable = |error| UserDirError::Unreadable {
        dir: dir.to_path_buf(),
        error,
    };
    let resolved = dir.canonicalize().map_err(unreadable)?;
    if !resolved.is_dir() {
        return Err(unreadable(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "not a folder",
        )));
    }
    Ok(Some((dir, resolved)))
}

/// The files of the user's boilerplate folder, sampled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserBoilerplate {
    /// Each text file by its path in the folder, with its samples (files
    /// that are not text are left out, with a warning in the log).
    pub files: Vec<(DocPath, DocSamples)>,
}

impl UserBoilerplate {
    /// Read the boilerplate folder `library` names for the folder `root`;
    /// `None` when none is configured or learning is off.
    pub fn load(
        root: &Path,
        engine: &Engine,
        library: &LibraryConfig,
    ) -> Result<Option<Self>, UserDirError> {
        let Some((dir, resolved)) = configured(library)? else {
            return Ok(None);
        };
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        if resolved.starts_with(&root) {
            return Err(UserDirError::Inside {
                dir: dir.to_path_buf(),
                root,
            });
        }
        Ok(Some(Self::read(&resolved, engine, library)))
    }

    /// [`UserBoilerplate::load`] where no folder is scanned (`doppel
    /// compare A B` on two files of no indexed folder): there is no folder
    /// for it to lie outside of.
    pub fn load_unscanned(
        engine: &Engine,
        library: &LibraryConfig,
    ) -> Result<Option<Self>, UserDirError> {
        Ok(configured(library)?.map(|(_, resolved)| Self::read(&resolved, engine, library)))
    }

    /// Every file of the (canonical) folder `resolved`, sampled.
    fn read(resolved: &Path, engine: &Engine, library: &LibraryConfig) -> Self {
        let (entries, problems) = list_files(resolved);
        for (path, skip) in problems {
            tracing::warn!(file = %path, reason = %skip, "boilerplate folder: left out");
        }
        let mut files = Vec::new();
        let listed = ListedRoot::new(resolved);
        for entry in entries {
            let analyzed = read_listed_text(&listed, &entry, DEFAULT_SIZE_CAP).and_then(|d| {
                engine.try_analyze(&d.text).map_err(|_| Skip::OutOfMemory {
                    needed: ReadLimits::default().bound(entry.bytes),
                })
            });
            match analyzed {
                Ok(analysis) => {
                    files.push((entry.doc, super::samples(engine, &analysis, library)));
                }
                Err(skip) => {
                    tracing::warn!(file = %entry.doc, reason = %skip, "boilerplate folder: left out");
                }
            }
        }
        Self { files }
    }

    /// Pin every file in `learner`; the documents whose spans changed.
    pub fn pin(&self, learner: &mut Learner<DocPath>) -> Vec<DocPath> {
        let mut moved = Vec::new();
        for (name, samples) in &self.files {
            moved.extend(learner.set_pinned(name.clone(), Some(samples.clone())));
        }
        moved.sort();
        moved.dedup();
        moved
    }

    /// Every sampled hash of the folder's files.
    pub fn hashes(&self) -> BTreeSet<u32> {
        self.files
            .iter()
            .flat_map(|(_, s)| s.samples.iter().map(|x| x.hash))
            .collect()
    }

    /// A digest of the files' names and samples: changes when the folder's
    /// content does.
    pub fn key(&self) -> u64 {
        let mut bytes = Vec::new();
        for (name, samples) in &self.files {
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
            for s in &samples.samples {
                bytes.extend_from_slice(&s.hash.to_le_bytes());
                bytes.extend_from_slice(&s.word.to_le_bytes());
            }
        }
        doppel_core::hash::hash64(&bytes, 0)
    }
}
