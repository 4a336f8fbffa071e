//! Which paths the walk leaves out, as rules: the built-in temporary-file
//! globs and the configured extra ones ([`check_ignore_glob`] says why a
//! glob cannot be one), hidden names, and each folder's `.doppelignore`
//! ([`IgnoreRules`], for single paths such as the watcher's events).

use std::fs;
use std::path::{Path, PathBuf};

use super::{IGNORE_FILE, TEMPORARY_GLOBS};

/// The built-in temporary-file globs and `extra` (checked with
/// [`check_ignore_glob`]; invalid ones are left out) as walk overrides
/// (each one ignores).
pub(super) fn ignore_overrides(root: &Path, extra: &[String]) -> ignore::overrides::Override {
    let mut overrides = ignore::overrides::OverrideBuilder::new(root);
    for glob in TEMPORARY_GLOBS {
        overrides
            .add(&format!("!{glob}"))
            .expect("built-in globs are valid");
    }
    for glob in extra {
        if check_ignore_glob(glob).is_ok() {
            let _ = overrides.add(&format!("!{glob}"));
        }
    }
    overrides
        .build()
        .unwrap_or_else(|_| ignore_overrides(root, &[]))
}

/// Why a glob cannot be an extra ignore glob ([`check_ignore_glob`]).
#[derive(Debug, thiserror::Error)]
pub enum BadGlob {
    /// Nothing but blanks.
    #[error("an empty glob")]
    Empty,
    /// A `!` re-inclusion.
    #[error("{glob:?}: `!` (re-including) is not supported here; use a .doppelignore")]
    Negated {
        /// The glob.
        glob: String,
    },
    /// Not a glob.
    #[error("{glob:?}: {error}")]
    Invalid {
        /// The glob.
        glob: String,
        /// What the glob parser said.
        #[source]
        error: ignore::Error,
    },
}

/// Whether `glob` can be an extra ignore glob ([`super::list_files_with`]): not
/// empty, not a `!` re-inclusion, and a valid glob. The error says why.
pub fn check_ignore_glob(glob: &str) -> Result<(), BadGlob> {
    if glob.trim().is_empty() {
        return Err(BadGlob::Empty);
    }
    if glob.starts_with('!') {
        return Err(BadGlob::Negated {
            glob: glob.to_owned(),
        });
    }
    ignore::overrides::OverrideBuilder::new("/")
        .add(glob)
        .map(|_| ())
        .map_err(|error| BadGlob::Invalid {
            glob: glob.to_owned(),
            error,
        })
}

/// Whether [`super::list_files`] would leave `path` (under `root`) out: a hidden
/// file or folder on the way, a temporary or partial download, or a
/// `.doppelignore` rule (extra globs: [`IgnoreRules::with_extra`]). For one-off checks; [`IgnoreRules`] caches the
/// parsed ignore files for many.
pub fn is_ignored(root: &Path, path: &Path) -> bool {
    let is_dir = fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    IgnoreRules::new(root).is_ignored(path, is_dir)
}

/// The walk's ignore rules for single paths (the watcher's events), with
/// The rules of [`super::list_files`] under `root`.
/// each folder's `.doppelignore` parsed once. Call
/// [`IgnoreRules::invalidate`] when an ignore file changes.
pub struct IgnoreRules {
    root: PathBuf,
    /// The built-in temporary-file globs and any extra ignore globs.
    temporary: ignore::overrides::Override,
    /// Parsed `.doppelignore` per folder (`None`: the folder has none).
    files: std::collections::HashMap<PathBuf, Option<ignore::gitignore::Gitignore>>,
}

impl std::fmt::Debug for IgnoreRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IgnoreRules")
            .field("root", &self.root)
            .finish()
    }
}

impl IgnoreRules {
    /// The rules of [`super::list_files`] under `root`.
    pub fn new(root: &Path) -> Self {
        Self::with_extra(root, &[])
    }

    /// The rules of [`super::list_files_with`] with the same `extra_ignores`.
    pub fn with_extra(root: &Path, extra_ignores: &[String]) -> Self {
        Self {
            root: root.to_path_buf(),
            temporary: ignore_overrides(root, extra_ignores),
            files: std::collections::HashMap::new(),
        }
    }

    /// Forget every parsed ignore file (one was created, changed or removed).
    pub fn invalidate(&mut self) {
        self.files.clear();
    }

    /// Whether the walk would leave `path` out (see [`is_ignored`]); the
    /// root itself and paths outside it are never ignored. `is_dir` says
    /// whether `path` itself is a folder (gitignore rules ending in `/`).
    pub fn is_ignored(&mut self, path: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        let parts: Vec<_> = rel.components().collect();
        let mut current = self.root.clone();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let parent = current.clone();
            current.push(part);
            let entry_is_dir = !last || is_dir;
            if is_hidden_name(part.as_os_str())
                || self.temporary.matched(&current, entry_is_dir).is_ignore()
                || self.ignored_by_files(&parent, &current, entry_is_dir)
            {
                return true;
            }
        }
        false
    }

    /// `.doppelignore` rules from the root down to `parent`, the deepest
    /// matching rule deciding (gitignore precedence).
    fn ignored_by_files(&mut self, parent: &Path, entry: &Path, is_dir: bool) -> bool {
        let folders: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|a| a.starts_with(&self.root))
            .map(Path::to_path_buf)
            .collect();
        // Deepest first.
        for folder in folders {
            let rules = self.files.entry(folder.clone()).or_insert_with(|| {
                let file = folder.join(IGNORE_FILE);
                file.is_file().then(|| {
                    let mut builder = ignore::gitignore::GitignoreBuilder::new(&folder);
                    let _ = builder.add(&file);
                    builder
                        .build()
                        .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty())
                })
            });
            if let Some(rules) = rules {
                let m = rules.matched(entry, is_dir);
                if m.is_ignore() {
                    return true;
                }
                if m.is_whitelist() {
                    return false;
                }
            }
        }
        false
    }
}

/// A hidden name (the walk's `hidden` filter: a leading dot).
fn is_hidden_name(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}
