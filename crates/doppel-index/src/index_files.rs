//! The index files in the index folder, for `doppel index list` and `doppel
//! index forget`: which folder each one indexes, what it costs on disk
//! (with its SQLite `-wal`/`-shm`/`-journal` companions), when it was last
//! used and how many documents it holds; and removing them. A file counts
//! as an index only when it is named as doppel names them
//! ([`doppel_store::index_file_name`]: 16 hex digits, `.sqlite`) and
//! carries doppel's application id; nothing else is ever removed, and
//! neither is an index that another connection has open (it is reported
//! busy instead). An index doppel found unusable and moved aside
//! (`<index name>.corrupt-<seconds>[-n]`, see
//! [`doppel_store::OpenReport`]) is listed and removed too, by its
//! name alone: it is never opened again.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use doppel_store::{index_file_name, Documents, Meta, SqliteStore, Store, StoreError};

/// Why the index folder's files could not be listed or removed.
#[derive(Debug, thiserror::Error)]
pub enum IndexFilesError {
    /// A file-system operation failed.
    #[error("cannot {what} {}: {error}", path.display())]
    Io {
        /// What was being done ("list", "stat", "remove", "resolve").
        what: &'static str,
        /// On what.
        path: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
    /// An index could not be read or locked.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The listing does not serialize.
    #[error("cannot write the list as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// A result of this module.
pub type Result<T, E = IndexFilesError> = std::result::Result<T, E>;

/// The [`IndexFilesError::Io`] of `what` on `path`.
fn io<'a>(
    what: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> IndexFilesError + 'a {
    move |error| IndexFilesError::Io {
        what,
        path: path.to_path_buf(),
        error,
    }
}

/// The SQLite files that belong to an index file, beside it.
const COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// One index file and what it says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFile {
    /// The index file.
    pub file: PathBuf,
    /// The folder it indexes; `None` when unknown (an index made before
    /// doppel recorded it, or a file that is not a usable index).
    pub folder: Option<PathBuf>,
    /// Bytes on disk, companions included.
    pub bytes: u64,
    /// When a read-write open last used it; for an index that predates
    /// that record, when its files were last written.
    pub last_used: Option<SystemTime>,
    /// Documents (indexed and skipped files) it holds.
    pub documents: Option<u64>,
    /// Another connection has it open (a running doppel).
    pub in_use: bool,
    /// Why it cannot be read as an index of this build (another
    /// application's database, another schema, corrupt), if so.
    pub problem: Option<String>,
    /// When doppel found it unusable and moved it aside (from its name),
    /// if it is such a file: kept for a look, never opened again.
    pub moved_aside: Option<SystemTime>,
}

impl IndexFile {
    /// Whether its folder is known and no longer there.
    pub fn folder_missing(&self) -> bool {
        // Only a folder that is not found: one that cannot be looked at
        // (permissions) is not gone.
        self.folder.as_deref().is_some_and(|f| {
            fs::symlink_metadata(f).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        })
    }

    /// Its folder for people: the path, `unknown`, marked when gone.
    pub fn folder_text(&self) -> String {
        match &self.folder {
            Some(folder) if self.folder_missing() => format!("{} (missing)", folder.display()),
            Some(folder) => folder.display().to_string(),
            None => "unknown".to_string(),
        }
    }
}

/// Whether `name` is how doppel names an index file.
pub fn is_index_name(name: &str) -> bool {
    name.strip_suffix(".sqlite").is_some_and(|stem| {
        stem.len() == 16
            && stem
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// When the file named `name` was moved aside as an unusable index
/// (`<16 hex digits>.sqlite.corrupt-<unix seconds>[-<n>]`), and the index
/// name it had; `None` for any other name (its companions included).
pub fn moved_aside_name(name: &str) -> Option<(&str, SystemTime)> {
    let (index, rest) = name.split_once(".corrupt-")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (seconds, n) = rest.split_once('-').unwrap_or((rest, "0"));
    if !is_index_name(index) || !digits(seconds) || !digits(n) {
        return None;
    }
    let when = SystemTime::UNIX_EPOCH + Duration::from_secs(seconds.parse().ok()?);
    Some((index, when))
}

/// `file` followed by those of its companions that exist.
fn files_of(file: &Path) -> Vec<PathBuf> {
    let mut files = vec![file.to_path_buf()];
    for suffix in COMPANIONS {
        let mut name = file.as_os_str().to_os_string();
        name.push(suffix);
        let companion = PathBuf::from(name);
        if fs::symlink_metadata(&companion).is_ok_and(|m| m.is_file()) {
            files.push(companion);
        }
    }
    files
}

/// Every index file in `dir`, largest first; an empty list when `dir`
/// does not exist.
pub fn list(dir: &Path) -> Result<Vec<IndexFile>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("list", dir)(e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io("list", dir))?;
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if is_index_name(name) {
            found.push(inspect(&entry.path())?);
        } else if let Some((_, when)) = moved_aside_name(name) {
            found.push(moved_aside(&entry.path(), when)?);
        }
    }
    found.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.file.cmp(&b.file)));
    Ok(found)
}

/// The bytes on disk of the index `file` with its companions, and when
/// they were last written.
fn on_disk(file: &Path) -> Result<(u64, Option<SystemTime>)> {
    let mut bytes = 0;
    let mut written = None;
    for f in files_of(file) {
        let meta = fs::symlink_metadata(&f).map_err(io("stat", &f))?;
        bytes += meta.len();
        written = written.max(meta.modified().ok());
    }
    Ok((bytes, written))
}

/// An index moved aside at `when` as unusable, described by its name and
/// size alone (opening it again would prove nothing new).
fn moved_aside(file: &Path, when: SystemTime) -> Result<IndexFile> {
    let (bytes, _) = on_disk(file)?;
    Ok(IndexFile {
        file: file.to_path_buf(),
        folder: None,
        bytes,
        // Its last use was the open that found it unusable.
        last_used: Some(when),
        documents: None,
        in_use: false,
        problem: Some(format!(
            "moved aside as unusable on {}",
            humantime::format_rfc3339_seconds(when)
        )),
        moved_aside: Some(when),
    })
}

/// What the index file at `file` says about itself. A file that is not a
/// usable index is described with its problem, not an error.
pub fn inspect(file: &Path) -> Result<IndexFile> {
    // Before opening, which may create companions or fold them back.
    let (bytes, written) = on_disk(file)?;
    let mut info = IndexFile {
        file: file.to_path_buf(),
        folder: None,
        bytes,
        last_used: written,
        documents: None,
        in_use: false,
        problem: None,
        moved_aside: None,
    };
    let described = SqliteStore::open_existing(file).and_then(|mut store| {
        info.in_use = !store.lock_exclusively()?;
        info.folder = store.folder()?;
        info.last_used = store.last_used()?.or(written);
        info.documents = Some(store.document_count()?);
        Ok(())
    });
    match described {
        Ok(()) => {}
        Err(StoreError::NotAnIndex { problem, .. }) => info.problem = Some(problem.to_string()),
        Err(e) => info.problem = Some(e.to_string()),
    }
    Ok(info)
}

/// The folder `dir` names, as an index records it: canonical when it
/// exists, else absolute (a folder that is gone cannot be resolved).
pub fn folder_key(dir: &Path) -> Result<PathBuf> {
    dir.canonicalize()
        .or_else(|_| std::path::absolute(dir))
        .map_err(io("resolve", dir))
}

/// Whether `index` is the index of `folder` (from [`folder_key`]): it
/// records that folder, or records none and is named after it (a file
/// moved aside keeps that name before its `.corrupt-` suffix).
pub fn is_index_of(index: &IndexFile, folder: &Path) -> bool {
    match &index.folder {
        Some(recorded) => recorded == folder,
        None => index
            .file
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|name| {
                let name = moved_aside_name(name).map_or(name, |(index, _)| index);
                *name == *index_file_name(folder)
            }),
    }
}

/// Which indexes `doppel index forget` removes (any that one of these picks).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The indexes of these folders (as given: see [`folder_key`]).
    pub folders: Vec<PathBuf>,
    /// Those not used for at least this long.
    pub older_than: Option<Duration>,
    /// Those whose folder is gone.
    pub missing: bool,
}

impl Selection {
    /// Whether it picks `index` (never a file that is not a usable index,
    /// but for one doppel moved aside: those of the folders given, or
    /// moved aside at least `older_than` ago); `folders` are the
    /// [`folder_key`]s of [`Selection::folders`].
    fn picks(&self, index: &IndexFile, folders: &[PathBuf], now: SystemTime) -> bool {
        let idle_for = |age: Duration| {
            index
                .last_used
                .is_some_and(|t| now.duration_since(t).is_ok_and(|idle| idle >= age))
        };
        let of_a_folder = folders.iter().any(|f| is_index_of(index, f));
        if index.moved_aside.is_some() {
            return of_a_folder || self.older_than.is_some_and(idle_for);
        }
        index.problem.is_none()
            && (of_a_folder
                || self.older_than.is_some_and(idle_for)
                || (self.missing && index.folder_missing()))
    }
}

/// What became of one index `forget` was asked to remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Removed (or, in a dry run, would be): this many bytes freed.
    Removed {
        /// Bytes freed, companions included.
        bytes: u64,
    },
    /// Another connection has it open: left alone.
    Busy,
    /// Not one of doppel's indexes of this schema: left alone.
    NotAnIndex {
        /// What it is instead.
        problem: String,
    },
}

/// Remove the index file `file` and its companions, unless it is not a
/// doppel index or another connection has it open; an index doppel moved
/// aside (known by its name) goes unopened. `dry_run` only checks.
pub fn forget(file: &Path, dry_run: bool) -> Result<Outcome> {
    let (bytes, _) = on_disk(file)?;
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if moved_aside_name(name).is_some() {
        if !dry_run {
            remove_files_of(file)?;
        }
        return Ok(Outcome::Removed { bytes });
    }
    let mut store = match SqliteStore::open_existing(file) {
        Ok(store) => store,
        Err(StoreError::NotAnIndex { problem, .. }) => {
            return Ok(Outcome::NotAnIndex {
                problem: problem.to_string(),
            })
        }
        Err(e) => return Err(e.into()),
    };
    if !store.lock_exclusively()? {
        return Ok(Outcome::Busy);
    }
    // Closed before the files go, not after: closing removes the `-wal` by
    // name, which by then could be a new index's. A doppel starting in the
    // instant between could still open the old file; no lock can close
    // that gap.
    drop(store);
    if !dry_run {
        remove_files_of(file)?;
    }
    Ok(Outcome::Removed { bytes })
}

/// Remove `file` and its companions (one already gone is no error).
fn remove_files_of(file: &Path) -> Result<()> {
    for f in files_of(file) {
        match fs::remove_file(&f) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("remove", &f)(e)),
        }
    }
    Ok(())
}

/// One index in `doppel index list --format json`.
#[derive(Serialize)]
struct IndexJson {
    file: String,
    folder: Option<String>,
    folder_exists: Option<bool>,
    bytes: u64,
    last_used: Option<String>,
    documents: Option<u64>,
    in_use: bool,
    problem: Option<String>,
    moved_aside: Option<String>,
}

/// `doppel index list --format json`: `{"index_dir": .., "indexes": [..]}`.
pub fn list_json(dir: &Path, indexes: &[IndexFile]) -> Result<String> {
    let indexes: Vec<IndexJson> = indexes
        .iter()
        .map(|i| IndexJson {
            file: i.file.display().to_string(),
            folder: i.folder.as_ref().map(|f| f.display().to_string()),
            folder_exists: i.folder.as_ref().map(|_| !i.folder_missing()),
            bytes: i.bytes,
            last_used: i
                .last_used
                .map(|t| humantime::format_rfc3339_seconds(t).to_string()),
            documents: i.documents,
            in_use: i.in_use,
            problem: i.problem.clone(),
            moved_aside: i
                .moved_aside
                .map(|t| humantime::format_rfc3339_seconds(t).to_string()),
        })
        .collect();
    #[derive(Serialize)]
    struct Listing {
        index_dir: String,
        indexes: Vec<IndexJson>,
    }
    let listing = Listing {
        index_dir: dir.display().to_string(),
        indexes,
    };
    Ok(serde_json::to_string_pretty(&listing)? + "\n")
}

/// What `doppel index forget` is asked to remove.
#[derive(Debug, Clone, Default)]
pub struct ForgetRequest {
    /// Which indexes of the index folder go.
    pub selection: Selection,
    /// Index files named directly (`--index PATH`), anywhere.
    pub files: Vec<PathBuf>,
    /// Only say what would be removed.
    pub dry_run: bool,
}

/// One index `doppel index forget` removed (or would).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// Which index it was, in words ("the index of FOLDER", "index PATH").
    pub what: String,
    /// Its file.
    pub file: PathBuf,
    /// The bytes it took, companions included.
    pub bytes: u64,
}

/// What `doppel index forget` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForgetReport {
    /// Each index removed (or that would be, in a dry run).
    pub removed: Vec<Removed>,
    /// Bytes freed (or that would be).
    pub freed: u64,
    /// Nothing was removed: the report says what would be.
    pub dry_run: bool,
    /// What was asked for and not done: a folder without an index, an index
    /// in use, a file that is not an index.
    pub problems: Vec<String>,
}

/// Remove what `request` picks among the indexes in `dir`, and the files
/// it names; each index once.
pub fn forget_all(dir: &Path, request: &ForgetRequest, now: SystemTime) -> Result<ForgetReport> {
    let folders = request
        .selection
        .folders
        .iter()
        .map(|d| folder_key(d))
        .collect::<Result<Vec<_>>>()?;
    let indexes = list(dir)?;
    let mut report = ForgetReport {
        dry_run: request.dry_run,
        ..ForgetReport::default()
    };
    for (folder, given) in folders.iter().zip(&request.selection.folders) {
        if !indexes
            .iter()
            .any(|i| (i.problem.is_none() || i.moved_aside.is_some()) && is_index_of(i, folder))
        {
            report.problems.push(format!(
                "no index of {} in {}",
                given.display(),
                dir.display()
            ));
        }
    }
    // Each chosen file (canonical, so none comes twice) with what it is,
    // for the messages.
    let mut chosen: Vec<(PathBuf, String)> = Vec::new();
    for file in &request.files {
        match file.canonicalize() {
            Ok(canonical) => chosen.push((canonical, format!("index {}", file.display()))),
            Err(e) => report
                .problems
                .push(format!("no index file {}: {e}", file.display())),
        }
    }
    for index in &indexes {
        let canonical = index.file.canonicalize().unwrap_or(index.file.clone());
        if request.selection.picks(index, &folders, now)
            && !chosen.iter().any(|(f, _)| *f == canonical)
        {
            let what = match index.moved_aside {
                Some(_) => "an index moved aside as unusable".to_string(),
                None => format!("the index of {}", index.folder_text()),
            };
            chosen.push((canonical, what));
        }
    }
    for (file, what) in chosen {
        match forget(&file, request.dry_run)? {
            Outcome::Removed { bytes } => {
                report.freed += bytes;
                report.removed.push(Removed { what, file, bytes });
            }
            Outcome::Busy => report.problems.push(format!(
                "{what} is busy (a running doppel has it open), kept: {}",
                file.display()
            )),
            Outcome::NotAnIndex { problem } => report
                .problems
                .push(format!("{} is {problem}, kept", file.display())),
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn only_doppels_own_names_are_index_names() {
        assert!(is_index_name("0123456789abcdef.sqlite"));
        for name in [
            "0123456789ABCDEF.sqlite",
            "0123456789abcde.sqlite",
            "0123456789abcdef0.sqlite",
            "0123456789abcdeg.sqlite",
            "0123456789abcdef.sqlite-wal",
            "0123456789abcdef.sqlite.corrupt-1700000000",
            "0123456789abcdef.db",
            "index.sqlite",
        ] {
            assert!(!is_index_name(name), "{name}");
        }
    }

    #[test]
    fn a_moved_aside_index_is_known_by_its_name_and_its_companions_are_not() {
        let (index, when) = moved_aside_name("0123456789abcdef.sqlite.corrupt-1700000000").unwrap();
        assert_eq!(index, "0123456789abcdef.sqlite");
        assert_eq!(
            when,
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
        );
        assert!(moved_aside_name("0123456789abcdef.sqlite.corrupt-1700000000-2").is_some());
        for name in [
            "0123456789abcdef.sqlite.corrupt-1700000000-wal",
            "0123456789abcdef.sqlite.corrupt-1700000000-2-shm",
            "0123456789abcdef.sqlite.corrupt-",
            "0123456789abcdef.sqlite.corrupt-17x",
            "index.sqlite.corrupt-1700000000",
            "0123456789abcdef.sqlite",
        ] {
            assert!(moved_aside_name(name).is_none(), "{name}");
        }
    }

    proptest! {
        #[test]
        fn every_folders_index_file_has_an_index_name(path in "/[a-z/ .]{0,40}") {
            prop_assert!(is_index_name(&index_file_name(Path::new(&path))));
        }
    }
}
