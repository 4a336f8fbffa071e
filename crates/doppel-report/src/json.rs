//! The scan for scripts, JSON and CSV, as the exporter writes them
//! ([`doppel_index::export::scan`]), with the report's errors.

use std::io::Write;
use std::path::Path;

use super::Result;
use doppel_core::engine::EngineConfig;
use doppel_index::export::scan::{write_csv, write_json};
use doppel_index::scan::ScanReport;

/// The scan as JSON (format version [`super::JSON_FORMAT_VERSION`]), in
/// memory.
pub fn json(report: &ScanReport, root: &Path, config: &EngineConfig) -> Result<String> {
    let mut out = Vec::new();
    json_to(&mut out, report, root, config)?;
    super::utf8(out)
}

/// The scan as JSON written to `out` as it is made: the pairs are judged
/// one at a time ([`ScanReport::reported_pairs`]), never all held.
pub fn json_to(
    out: impl Write,
    report: &ScanReport,
    root: &Path,
    config: &EngineConfig,
) -> Result<()> {
    Ok(write_json(out, report, root, config)?)
}

/// The pairs as CSV: a, b, the id of the cluster holding both (empty if
/// none), every algorithm's score (empty where a side has no fingerprint),
/// the containment, the algorithms whose threshold the pair passes, the
/// relation (empty if none), for `contains`, the whole's side, and where
/// each side matches when one has pages (the files read again under
/// `root`).
pub fn csv(report: &ScanReport, root: &Path) -> Result<String> {
    let mut out = Vec::new();
    csv_to(&mut out, report, root)?;
    super::utf8(out)
}

/// [`csv()`] written to `out` a row at a time.
pub fn csv_to(out: impl Write, report: &ScanReport, root: &Path) -> Result<()> {
    Ok(write_csv(out, report, root)?)
}
