//! `doppel scan DIR`: the clusters and pairs of a folder as text, JSON or
//! CSV, through its index or (`--no-index`) without one, and `doppel
//! boilerplate DIR`: the boilerplate it learned; the scan itself
//! ([`scan_report`]) is also `doppel report`'s.

use std::io::Write;
use std::path::Path;

use anyhow::Result;

use doppel::engine::Engine;
use doppel::faces::report;
use doppel::pairing::cluster::ClusterSpec;
use doppel::runtime::boilerplate::user::UserBoilerplate;
use doppel::runtime::config::Config;
use doppel::runtime::index::FolderIndex;
use doppel::runtime::scan::{scan_folder_with, ScanHooks, ScanReport};

use super::args::{Format, ListFormat, ScanOptions};
use super::progress::{progress_bar, show_progress};
use super::settings::{index_path, open_folder, settings};

/// Scan `dir` under `config` and print the report in `format`.
pub fn scan(config: &Config, dir: &Path, format: Format, options: &ScanOptions) -> Result<()> {
    let root = open_folder(dir)?;
    let report = scan_report(config, &root, options)?;
    let out = match format {
        Format::Text => report::text(&report),
        Format::Json => report::json(&report, &root, &settings(config).0)?,
        Format::Csv => report::csv(&report)?,
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// Scan `dir` under `config` and print the boilerplate it learned.
pub fn boilerplate(
    config: &Config,
    dir: &Path,
    format: ListFormat,
    options: &ScanOptions,
) -> Result<()> {
    let root = open_folder(dir)?;
    let report = scan_report(config, &root, options)?;
    let out = match format {
        ListFormat::Text => report::boilerplate_text(&report.boilerplate),
        ListFormat::Json => serde_json::to_string_pretty(&report.boilerplate.passages)? + "\n",
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// Scan `root` (an opened folder) as the options say: through its index,
/// or (`--no-index`) all now.
pub fn scan_report(config: &Config, root: &Path, options: &ScanOptions) -> Result<ScanReport> {
    let (engine_config, library_config, by, mode) = settings(config);
    let engine = Engine::new(engine_config.clone());
    let spec = ClusterSpec {
        by,
        mode,
        ..ClusterSpec::from_engine(&engine)
    };
    let bar = progress_bar("listing");
    let report = if options.no_index {
        let progress = |p| show_progress(&bar, p);
        let user = UserBoilerplate::load(root, &engine, &library_config)?;
        let hooks = ScanHooks {
            extra_ignores: &config.ignore,
            progress: Some(&progress),
            limits: config.reading.limits(),
            user_boilerplate: user.as_ref(),
        };
        scan_folder_with(
            root,
            &engine,
            engine.reference_weights(),
            library_config,
            spec,
            &hooks,
        )
    } else {
        let index_path = index_path(config, options.index.as_ref(), root)?;
        let (mut index, opened) =
            FolderIndex::open(root, engine, library_config, index_path.as_deref())?;
        for message in opened.messages() {
            bar.suspend(|| eprintln!("doppel: {message}"));
        }
        index.set_extra_ignores(config.ignore.clone());
        index.set_read_limits(config.reading.limits());
        let reconciled = index.reconcile_with(&mut |p| {
            show_progress(&bar, p);
            true
        })?;
        ScanReport::from_index(index, spec, &reconciled)?
    };
    bar.finish_and_clear();
    Ok(report)
}
