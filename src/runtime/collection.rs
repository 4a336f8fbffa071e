//! Reading a folder into documents: which files count, and what each one's
//! bytes turn out to be (text, or a reason it is skipped).
//!
//! The walk (the `ignore` crate, ripgrep's walker) skips hidden files and
//! folders, temporary and partial downloads (`*.part`, `*.crdownload`, `*~`,
//! `*.swp`, `*.tmp`), does not follow symbolic links, and honours a
//! `.doppelignore` file (gitignore syntax) in any folder; [`IgnoreRules`]
//! applies the same rules to single paths (the watcher's events). Only
//! regular files are opened, so a FIFO never blocks the scan. Files are read
//! whole, up to a size cap; doppel never writes to the folder.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::doc::{DocPath, FileIdentity};
use crate::engine::text::decode::{decode_owned, DecodeError, Decoded, NotText};

/// Files larger than this are skipped as too large unless configured
/// otherwise (256 MiB).
pub const DEFAULT_SIZE_CAP: u64 = 256 * 1024 * 1024;

/// Name of the per-folder ignore file.
pub const IGNORE_FILE: &str = ".doppelignore";

const TEMPORARY_GLOBS: [&str; 5] = ["*.part", "*.crdownload", "*~", "*.swp", "*.tmp"];

/// Why a file is not a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Skip {
    /// Its bytes are not text.
    #[error("{0}")]
    NotText(NotText),
    /// Over the size cap.
    #[error("too large: {bytes} bytes (cap {cap})")]
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The cap.
        cap: u64,
    },
    /// A FIFO, socket, device, folder or symbolic link.
    #[error("not a regular file ({what})")]
    NotAFile {
        /// What it is, in words.
        what: String,
    },
    /// It could not be opened or read.
    #[error("unreadable: {reason}")]
    Unreadable {
        /// What the system said.
        reason: String,
    },
    /// It changed while being read.
    #[error("changed while being read")]
    Changed,
    /// Memory for reading it could not be had.
    #[error("not enough memory to read it (up to {} MiB needed)", mib(*needed))]
    OutOfMemory {
        /// The most reading it is expected to take, in bytes.
        needed: u64,
    },
    /// Reading it is expected to take more than the memory budget
    /// (`[reading] memory-budget-mib`).
    #[error("reading it may take {} MiB, over the memory budget ({} MiB)", mib(*needed), mib(*budget))]
    OverBudget {
        /// The most reading it is expected to take, in bytes.
        needed: u64,
        /// The budget, in bytes.
        budget: u64,
    },
    /// A reason recorded earlier in the index.
    #[error("{reason}")]
    Recorded {
        /// The reason, as recorded.
        reason: String,
    },
}

/// Bytes in whole MiB, rounded up (for messages).
fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// One file found in the folder.
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Where it is (the root joined with its relative path).
    pub path: PathBuf,
    /// The document it is: its path relative to the root, as raw bytes.
    pub doc: DocPath,
    /// Its length when listed.
    pub bytes: u64,
    /// `lstat` identity when listed (size, times, inode).
    pub identity: FileIdentity,
}

/// Every candidate file under `root`, sorted by relative path. Errors met
/// while walking (an unreadable folder) are returned beside the files, never
/// dropped silently.
pub fn list_files(root: &Path) -> (Vec<FileEntry>, Vec<(DocPath, Skip)>) {
    list_files_with(root, &[])
}

/// [`list_files`], also leaving out every path matched by one of
/// `extra_ignores` (the config file's `ignore` globs: gitignore-style globs
/// relative to `root`, like the built-in temporary-file ones; a glob
/// without `/` matches a name at any depth, one ending in `/` only folders).
/// Invalid globs are left out (check them with [`check_ignore_glob`]).
pub fn list_files_with(
    root: &Path,
    extra_ignores: &[String],
) -> (Vec<FileEntry>, Vec<(DocPath, Skip)>) {
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(true)
        .follow_links(false)
        .add_custom_ignore_filename(IGNORE_FILE)
        .overrides(ignore_overrides(root, extra_ignores))
        .build();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for result in walker {
        match result {
            Ok(entry) => match entry.file_type() {
                Some(t) if t.is_file() => found.push(entry),
                Some(t) if t.is_dir() => {}
                Some(t) => problems.push((
                    relative(root, entry.path()),
                    Skip::NotAFile {
                        what: describe_file_type(&t).to_owned(),
                    },
                )),
                None => {}
            },
            Err(err) => problems.push((
                DocPath::default(),
                Skip::Unreadable {
                    reason: err.to_string(),
                },
            )),
        }
    }
    // One stat per file, the slow part of a large folder's walk: in parallel.
    let mut files: Vec<FileEntry> = found
        .into_par_iter()
        .map(|entry| {
            let identity = entry
                .metadata()
                .map(|m| FileIdentity::from_metadata(&m))
                .unwrap_or_default();
            let doc = relative(root, entry.path());
            FileEntry {
                path: entry.into_path(),
                doc,
                bytes: identity.size,
                identity,
            }
        })
        .collect();
    files.sort_by(|a, b| a.doc.cmp(&b.doc));
    (files, problems)
}

/// The built-in temporary-file globs and `extra` (checked with
/// [`check_ignore_glob`]; invalid ones are left out) as walk overrides
/// (each one ignores).
fn ignore_overrides(root: &Path, extra: &[String]) -> ignore::overrides::Override {
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

/// Whether `glob` can be an extra ignore glob ([`list_files_with`]): not
/// empty, not a `!` re-inclusion, and a valid glob. The error says why.
pub fn check_ignore_glob(glob: &str) -> Result<(), String> {
    if glob.trim().is_empty() {
        return Err("an empty glob".into());
    }
    if glob.starts_with('!') {
        return Err(format!(
            "{glob:?}: `!` (re-including) is not supported here; use a .doppelignore"
        ));
    }
    ignore::overrides::OverrideBuilder::new("/")
        .add(glob)
        .map(|_| ())
        .map_err(|e| format!("{glob:?}: {e}"))
}

/// Whether [`list_files`] would leave `path` (under `root`) out: a hidden
/// file or folder on the way, a temporary or partial download, or a
/// `.doppelignore` rule (extra globs: [`IgnoreRules::with_extra`]). For one-off checks; [`IgnoreRules`] caches the
/// parsed ignore files for many.
pub fn is_ignored(root: &Path, path: &Path) -> bool {
    let is_dir = fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    IgnoreRules::new(root).is_ignored(path, is_dir)
}

/// The walk's ignore rules for single paths (the watcher's events), with
/// The rules of [`list_files`] under `root`.
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
    /// The rules of [`list_files`] under `root`.
    pub fn new(root: &Path) -> Self {
        Self::with_extra(root, &[])
    }

    /// The rules of [`list_files_with`] with the same `extra_ignores`.
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

/// What a file that is not a regular file is, in words ("FIFO", "socket").
pub fn describe_file_type(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "device";
        }
    }
    if t.is_dir() {
        "folder"
    } else if t.is_symlink() {
        "symbolic link (not followed)"
    } else {
        "special file"
    }
}

/// The document `path` (under `root`) is.
pub fn relative(root: &Path, path: &Path) -> DocPath {
    DocPath::from_relative(path.strip_prefix(root).unwrap_or(path))
}

/// Read and decode one file, refusing anything over `cap` bytes.
pub fn read_text(path: &Path, cap: u64) -> Result<Decoded, Skip> {
    let (bytes, _) = read_bytes(path, cap)?;
    let needed = bytes.len() as u64;
    decode_owned(bytes).map_err(|e| match e {
        DecodeError::NotText(reason) => Skip::NotText(reason),
        DecodeError::Memory(_) => Skip::OutOfMemory {
            needed: needed.saturating_mul(2),
        },
    })
}

/// Read one regular file whole, refusing anything over `cap` bytes, and
/// verify it did not change while being read (the identity before and after
/// must match). Returns the bytes and that identity.
pub fn read_bytes(path: &Path, cap: u64) -> Result<(Vec<u8>, FileIdentity), Skip> {
    let (file, meta) = open_regular(path, cap)?;
    read_opened(path, file, &meta, cap)
}

fn unreadable(e: std::io::Error) -> Skip {
    Skip::Unreadable {
        reason: e.to_string(),
    }
}

/// Open a regular file for reading, refusing anything over `cap` bytes:
/// the file and its metadata when opened (its size says how much memory
/// reading it takes before any is taken).
pub fn open_regular(path: &Path, cap: u64) -> Result<(fs::File, fs::Metadata), Skip> {
    let file = fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(Skip::NotAFile {
            what: describe_file_type(&meta.file_type()).into(),
        });
    }
    if meta.len() > cap {
        return Err(Skip::TooLarge {
            bytes: meta.len(),
            cap,
        });
    }
    Ok((file, meta))
}

/// [`read_bytes`] of a file [`open_regular`] opened. The buffer is
/// reserved first: a file memory cannot be had for is skipped
/// ([`Skip::OutOfMemory`]), not the end of the process.
pub fn read_opened(
    path: &Path,
    file: fs::File,
    meta: &fs::Metadata,
    cap: u64,
) -> Result<(Vec<u8>, FileIdentity), Skip> {
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(meta.len() as usize)
        .map_err(|_| Skip::OutOfMemory { needed: meta.len() })?;
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > cap {
        return Err(Skip::TooLarge {
            bytes: bytes.len() as u64,
            cap,
        });
    }
    let before = FileIdentity::from_metadata(meta);
    let after = identity_now(path)?;
    if before != after || bytes.len() as u64 != before.size {
        return Err(Skip::Changed);
    }
    Ok((bytes, before))
}

/// The identity of `path` now (to compare with the one it had when opened).
pub fn identity_now(path: &Path) -> Result<FileIdentity, Skip> {
    fs::metadata(path)
        .map(|m| FileIdentity::from_metadata(&m))
        .map_err(unreadable)
}
