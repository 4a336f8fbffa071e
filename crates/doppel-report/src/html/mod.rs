//! The report for colleagues: one self-contained HTML file with the
//! clusters, their members, every pair's scores and verdicts, and each
//! pair's side-by-side word diff, to open from disk in any browser.
//!
//! | module | owns |
//! |---|---|
//! | [`data`] | what the report says, from a scan or the review screen's snapshot |
//! | [`pair_diff`] | each pair's word diff, in rows kept in step, folded and capped for size |
//! | [`render`] | the page: markup (escaped by construction), inline styles and script |
//!
//! [`write()`] puts the file in place: never inside the folder it reports
//! on, and never over an existing file unless asked to.

pub mod data;
pub mod pair_diff;
pub mod render;

use std::io::Write as _;
use std::path::{Path, PathBuf};

pub use data::Report;
pub use pair_diff::{attach_diffs, Documents, Limits, LoadError};

/// Why the report cannot be written where asked.
#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    /// The path given has no file name (`..`, `/`).
    #[error("{} needs a file name", out.display())]
    NoFileName {
        /// The path as given.
        out: PathBuf,
    },
    /// The folder the file would go in does not exist.
    #[error("folder {} does not exist", folder.display())]
    NoFolder {
        /// The folder.
        folder: PathBuf,
    },
    /// The file would be inside the folder reported on.
    #[error("{} is inside {}, the folder reported on; doppel never writes there", out.display(), root.display())]
    InsideFolder {
        /// The path as given.
        out: PathBuf,
        /// The folder reported on.
        root: PathBuf,
    },
    /// The path names a folder.
    #[error("{} is a folder", out.display())]
    IsFolder {
        /// The path as given.
        out: PathBuf,
    },
    /// The file exists and replacing it was not asked for.
    #[error("{} exists; --force replaces it", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// Writing or renaming the file failed.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// What the file system said.
        #[source]
        error: std::io::Error,
    },
}

/// The result of placing the report.
pub type Result<T, E = HtmlError> = std::result::Result<T, E>;

/// The report of a scan of `root` with every pair's diff, as HTML.
pub fn scan_report(
    scan: &doppel_index::scan::ScanReport,
    root: &Path,
    config: &doppel_core::engine::EngineConfig,
    limits: &Limits,
) -> String {
    let mut report = Report::from_scan(scan, root);
    report.keep_pairs(limits.pairs_per_cluster);
    report.attach_places(root, &scan.boilerplate);
    let docs = Documents::new(root, config).with_boilerplate(&scan.boilerplate);
    attach_diffs(&mut report, &docs, limits);
    render::page(&report)
}

/// Where `out` would be written, refused when that is inside `root` (doppel
/// never writes in the folder it reads) or `out` is a folder.
pub fn target(out: &Path, root: &Path) -> Result<PathBuf> {
    let Some(name) = out.file_name() else {
        return Err(HtmlError::NoFileName {
            out: out.to_path_buf(),
        });
    };
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = parent.canonicalize().map_err(|_| HtmlError::NoFolder {
        folder: parent.to_path_buf(),
    })?;
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if dir.starts_with(&root) {
        return Err(HtmlError::InsideFolder {
            out: out.to_path_buf(),
            root,
        });
    }
    let path = dir.join(name);
    if path.is_dir() {
        return Err(HtmlError::IsFolder {
            out: out.to_path_buf(),
        });
    }
    Ok(path)
}

/// Write `html` to `out` (see [`target`]). An existing file is kept unless
/// `force`, which replaces it whole (written beside it, then renamed).
pub fn write(out: &Path, root: &Path, html: &str, force: bool) -> Result<PathBuf> {
    let path = target(out, root)?;
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |error| HtmlError::Write { path, error }
    };
    if force {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".tmp-{}", std::process::id()));
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, html).map_err(failed(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            failed(&path)(e)
        })?;
        return Ok(path);
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => HtmlError::Exists { path: path.clone() },
            _ => failed(&path)(e),
        })?;
    if let Err(e) = file
        .write_all(html.as_bytes())
        .and_then(|()| file.sync_all())
    {
        drop(file);
        let _ = std::fs::remove_file(&path);
        return Err(failed(&path)(e));
    }
    Ok(path)
}
