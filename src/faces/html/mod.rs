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

use anyhow::{bail, Context, Result};

pub use data::Report;
pub use pair_diff::{attach_diffs, Documents, Limits};

/// The report of a scan of `root` with every pair's diff, as HTML.
pub fn scan_report(
    scan: &crate::runtime::scan::ScanReport,
    root: &Path,
    config: &crate::engine::EngineConfig,
    limits: &Limits,
) -> String {
    let mut report = Report::from_scan(scan, &root.display().to_string());
    report.keep_pairs(limits.pairs_per_cluster);
    attach_diffs(&mut report, &Documents::new(root, config), limits);
    render::page(&report)
}

/// Where `out` would be written, refused when that is inside `root` (doppel
/// never writes in the folder it reads) or `out` is a folder.
pub fn target(out: &Path, root: &Path) -> Result<PathBuf> {
    let Some(name) = out.file_name() else {
        bail!("{} needs a file name", out.display());
    };
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = parent
        .canonicalize()
        .with_context(|| format!("folder {} does not exist", parent.display()))?;
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if dir.starts_with(&root) {
        bail!(
            "{} is inside {}, the folder reported on; doppel never writes there",
            out.display(),
            root.display()
        );
    }
    let path = dir.join(name);
    if path.is_dir() {
        bail!("{} is a folder", out.display());
    }
    Ok(path)
}

/// Write `html` to `out` (see [`target`]). An existing file is kept unless
/// `force`, which replaces it whole (written beside it, then renamed).
pub fn write(out: &Path, root: &Path, html: &str, force: bool) -> Result<PathBuf> {
    let path = target(out, root)?;
    if force {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".tmp-{}", std::process::id()));
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, html).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            anyhow::Error::new(e).context(format!("cannot rename into {}", path.display()))
        })?;
        return Ok(path);
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => {
                anyhow::anyhow!("{} exists; --force replaces it", path.display())
            }
            _ => anyhow::Error::new(e).context(format!("cannot write {}", path.display())),
        })?;
    if let Err(e) = file
        .write_all(html.as_bytes())
        .and_then(|()| file.sync_all())
    {
        drop(file);
        let _ = std::fs::remove_file(&path);
        return Err(anyhow::Error::new(e).context(format!("cannot write {}", path.display())));
    }
    Ok(path)
}
