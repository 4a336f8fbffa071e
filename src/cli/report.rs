//! `doppel report DIR --html OUT`: the scan as one self-contained HTML
//! file ([`doppel_report::html`]), never inside DIR, an existing file kept
//! unless `--force`.

use std::path::Path;

use anyhow::Result;

use doppel_core::engine::RelationKind;
use doppel_index::config::Config;
use doppel_report::html;

use super::args::ScanOptions;
use super::progress::spinner;
use super::scan::scan_report;
use super::settings::{open_folder, settings};

/// Scan `dir` as `scan` does and write the page to `out` (its pairs only
/// of `relations` when any are named).
pub fn html(
    config: &Config,
    dir: &Path,
    out: &Path,
    force: bool,
    relations: &[RelationKind],
    options: &ScanOptions,
) -> Result<()> {
    let root = open_folder(dir)?;
    // Refused before the scan, not after it.
    let target = html::target(out, &root)?;
    if target.exists() && !force {
        anyhow::bail!("{} exists; --force replaces it", target.display());
    }
    let mut report = scan_report(config, &root, options)?;
    report.only_relations = (!relations.is_empty()).then(|| relations.to_vec());
    let spinner = spinner("diffing pairs");
    let page = html::scan_report(
        &report,
        &root,
        &settings(config).0,
        &html::Limits::default(),
    );
    spinner.finish_and_clear();
    let written = html::write(out, &root, &page, force)?;
    eprintln!(
        "doppel: wrote {} ({}, {} KiB)",
        written.display(),
        super::scan::count(report.clusters.len(), "cluster", "clusters"),
        page.len().div_ceil(1024)
    );
    Ok(())
}
