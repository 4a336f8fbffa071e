//! The watcher's paths as documents when folders are books
//! ([`crate::collection::books`]): a page's event is its book's, a folder
//! that became a book takes the place of the files it held, and a folder
//! that stopped being one gives its files back as documents of their own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{FileChange, FolderIndex, Result};
use crate::collection::{book_now, FileEntry};
use doppel_core::doc::DocPath;

impl FolderIndex {
    /// `paths` (the watcher's, sorted) as the paths of documents: a page
    /// of a book folder becomes the folder, and the files of a folder that
    /// was read as a book and is no longer one are added (to be read as
    /// documents); documents that stopped being documents (a page read
    /// on its own before its folder became a book, a folder no longer a
    /// book) are forgotten, and said so in the changes returned.
    pub(super) fn documents_of(
        &mut self,
        paths: Vec<PathBuf>,
    ) -> Result<(Vec<PathBuf>, Vec<FileChange>)> {
        let mut books: HashMap<PathBuf, Option<FileEntry>> = HashMap::new();
        let mut out = Vec::with_capacity(paths.len());
        let mut changes = Vec::new();
        for path in paths {
            let Some(folder) = path
                .parent()
                .filter(|f| f.starts_with(&self.root) && *f != self.root)
            else {
                out.push(path);
                continue;
            };
            let book = books
                .entry(folder.to_path_buf())
                .or_insert_with(|| book_now(&self.root, folder, self.options.page_folders));
            let folder_doc =
                DocPath::from_relative(folder.strip_prefix(&self.root).unwrap_or(folder));
            match book {
                Some(_) => {
                    // A page: read before as a document of its own?
                    let doc =
                        DocPath::from_relative(path.strip_prefix(&self.root).unwrap_or(&path));
                    if self.files.is_stored(&doc) {
                        self.forget(&doc)?;
                        changes.push(FileChange::Removed { path: doc });
                    }
                    out.push(folder.to_path_buf());
                }
                None if self.files.is_stored(&folder_doc) && !path.is_dir() => {
                    // The folder was a book and is not now: its files are
                    // documents again.
                    self.forget(&folder_doc)?;
                    changes.push(FileChange::Removed { path: folder_doc });
                    out.extend(files_in(folder));
                    out.push(path);
                }
                None => out.push(path),
            }
        }
        out.sort();
        out.dedup();
        Ok((out, changes))
    }

    /// The entry of `folder` if it is a book now, with the documents read
    /// before from its files (before it became one) forgotten.
    pub(super) fn book_folder_now(
        &mut self,
        folder: &Path,
        changes: &mut Vec<FileChange>,
    ) -> Result<Option<FileEntry>> {
        let Some(book) = book_now(&self.root, folder, self.options.page_folders) else {
            return Ok(None);
        };
        if let Some(pages) = &book.book {
            for page in &pages.pages {
                if self.files.is_stored(&page.doc) {
                    self.forget(&page.doc)?;
                    changes.push(FileChange::Removed {
                        path: page.doc.clone(),
                    });
                }
            }
        }
        Ok(Some(book))
    }
}

/// The regular files directly in `folder`.
fn files_in(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect()
}
