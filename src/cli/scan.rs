//! `doppel scan DIR`: the clusters and pairs of a folder as text, JSON or
//! CSV, through its index or (`--no-index`) without one, and `doppel
//! boilerplate DIR`: the boilerplate it learned; the scan itself
//! ([`scan_report`]) is also `doppel report`'s.

use std::io::Write;
use std::path::Path;

use anyhow::Result;

use doppel_core::engine::Engine;

use doppel_index::boilerplate::user::UserBoilerplate;
use doppel_index::boilerplate::PassageSummary;
use doppel_index::config::Config;
use doppel_index::index::FolderIndex;
use doppel_index::scan::{scan_folder_with, ScanHooks, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use indicatif::ProgressBar;

use super::args::{Format, ListFormat, ReportArgs, ScanOptions};
use super::progress::{progress_bar, show_progress};
use super::settings::{index_address, open_folder, settings};

/// Scan `dir` under `config` and print the report as `printed` asks.
pub fn scan(
    config: &Config,
    dir: &Path,
    printed: &ReportArgs,
    options: &ScanOptions,
) -> Result<()> {
    let root = open_folder(dir)?;
    let report = scan_report(config, &root, options)?;
    print(report, &root, printed, config)
}

/// Print `report` of `root` as `printed` asks (its format, its pairs only
/// of the relations named, if any): what `scan` and `cluster scan` print.
pub fn print(
    mut report: ScanReport,
    root: &Path,
    printed: &ReportArgs,
    config: &Config,
) -> Result<()> {
    let relations = &printed.relations;
    report.only_relations = (!relations.is_empty()).then(|| relations.to_vec());
    // JSON and CSV are written as they are made: a report of millions of
    // pairs is not held whole in memory first.
    let stdout = std::io::stdout().lock();
    match printed.format {
        Format::Text => {
            let mut stdout = stdout;
            stdout.write_all(doppel_report::text(&report, root).as_bytes())?;
        }
        Format::Json => doppel_report::json_to(stdout, &report, root, &settings(config).0)
            .map_err(write_error)?,
        Format::Csv => doppel_report::csv_to(stdout, &report, root).map_err(write_error)?,
    }
    // The process ends next, and its memory goes back whole: freeing the
    // report (every document, pair and candidate table) an allocation at
    // a time would only delay the exit. The index was closed before.
    std::mem::forget(report);
    Ok(())
}

/// A report's failure to be written, its I/O error as itself (a closed
/// pipe then ends the command quietly, see `main`).
fn write_error(err: doppel_report::ReportError) -> anyhow::Error {
    match err {
        doppel_report::ReportError::Json(e) if e.is_io() => std::io::Error::from(e).into(),
        doppel_report::ReportError::Csv(e) if e.is_io_error() => match e.into_kind() {
            csv::ErrorKind::Io(io) => io.into(),
            kind => anyhow::anyhow!("cannot write the report as CSV: {kind:?}"),
        },
        other => other.into(),
    }
}

/// The curator's ruling on one passage of the boilerplate list (1-based,
/// as `doppel boilerplate DIR` numbers them).
#[derive(Debug, Clone, Copy)]
pub enum Ruling {
    /// It is not boilerplate.
    Overrule(usize),
    /// It is boilerplate again.
    Restore(usize),
}

/// Scan `dir` under `config`, apply the curator's `ruling` if any, and
/// print the boilerplate it learned.
pub fn boilerplate(
    config: &Config,
    dir: &Path,
    format: ListFormat,
    options: &ScanOptions,
    ruling: Option<Ruling>,
) -> Result<()> {
    let root = open_folder(dir)?;
    // The ruled passage's own shingles and how many documents it moved,
    // to say where the list now shows it (an overruled passage moves after
    // the learned ones, so its number changes).
    let mut ruled: Option<(Vec<u32>, usize)> = None;
    let report = scan_report_then(config, &root, options, |index| {
        let Some(ruling) = ruling else {
            return Ok(());
        };
        let (Ruling::Overrule(n) | Ruling::Restore(n)) = ruling;
        let overrule = matches!(ruling, Ruling::Overrule(_));
        let list = index.boilerplate_report()?;
        let Some(passage) = n.checked_sub(1).and_then(|i| list.passages.get(i)) else {
            anyhow::bail!(
                "there is no passage {n}: the list has {} (see `doppel boilerplate {}`)",
                list.passages.len(),
                dir.display()
            );
        };
        if passage.overruled == overrule {
            anyhow::bail!(
                "passage {n} (\"{}\") is {} already",
                passage.first_words,
                if overrule { "overruled" } else { "boilerplate" }
            );
        }
        let changes = index.overrule_passage(passage, overrule)?;
        ruled = Some((passage.hashes.clone(), changes.len()));
        Ok(())
    })?;
    if let (Some(ruling), Some((hashes, changed))) = (ruling, ruled) {
        eprintln!(
            "doppel: {}; {} fingerprinted again",
            ruled_line(ruling, &report.boilerplate.passages, &hashes),
            count(changed, "document", "documents")
        );
    }
    let out = match format {
        ListFormat::Text => doppel_report::boilerplate_text(&report.boilerplate),
        ListFormat::Json => serde_json::to_string_pretty(&report.boilerplate.passages)? + "\n",
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// What a ruling did, and the number the passage is listed under now,
/// e.g. "passage 1 overruled: not boilerplate (now passage 3: `--restore 3`
/// undoes it)".
fn ruled_line(ruling: Ruling, passages: &[PassageSummary], hashes: &[u32]) -> String {
    let (Ruling::Overrule(n) | Ruling::Restore(n)) = ruling;
    let (done, undo) = match ruling {
        Ruling::Overrule(_) => ("overruled: not boilerplate", "--restore"),
        Ruling::Restore(_) => ("restored as boilerplate", "--overrule"),
    };
    let now = passages
        .iter()
        .position(|p| p.hashes == hashes)
        .map(|i| i + 1);
    match now {
        Some(m) if m != n => {
            format!("passage {n} {done} (now passage {m}: `{undo} {m}` undoes it)")
        }
        Some(_) => format!("passage {n} {done} (`{undo} {n}` undoes it)"),
        None => format!("passage {n} {done}"),
    }
}

/// `n` and the noun, singular or plural.
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Scan `root` (an opened folder) as the options say: through its index,
/// or (`--no-index`) all now.
pub fn scan_report(config: &Config, root: &Path, options: &ScanOptions) -> Result<ScanReport> {
    scan_report_then(config, root, options, |_| Ok(()))
}

/// The engine, library settings and cluster spec a scan runs with under
/// `config`.
pub fn scan_setup(config: &Config) -> (Engine, LibraryConfig, ClusterSpec) {
    let (engine_config, library_config, by, mode) = settings(config);
    let engine = Engine::new(engine_config);
    let spec = ClusterSpec {
        by,
        mode,
        ..ClusterSpec::from_engine(&engine)
    };
    (engine, library_config, spec)
}

/// `run` with the hooks of a one-shot scan of `root` under `config` (its
/// ignores, book folders, reading limits and the user's boilerplate,
/// fingerprinted with `engine`), its progress shown on `bar`.
pub fn with_one_shot_hooks<R>(
    config: &Config,
    root: &Path,
    engine: &Engine,
    library: &LibraryConfig,
    bar: &ProgressBar,
    run: impl FnOnce(&ScanHooks<'_>) -> R,
) -> Result<R> {
    let progress = |p| show_progress(bar, p);
    let user = UserBoilerplate::load(root, engine, library)?;
    let hooks = ScanHooks {
        extra_ignores: &config.ignore,
        page_folders: config.books.page_folders,
        progress: Some(&progress),
        limits: config.reading.limits(),
        user_boilerplate: user.as_ref(),
        read_chunk_files: None,
        bodies: None,
    };
    Ok(run(&hooks))
}

/// [`scan_report`], running `then` on the index once it is reconciled
/// (not without an index).
fn scan_report_then(
    config: &Config,
    root: &Path,
    options: &ScanOptions,
    then: impl FnOnce(&mut FolderIndex) -> Result<()>,
) -> Result<ScanReport> {
    if !options.no_index {
        return index_scan_report(config, root, options, |_| {}, then);
    }
    let (engine, library_config, spec) = scan_setup(config);
    let bar = progress_bar("listing");
    let report = with_one_shot_hooks(config, root, &engine, &library_config, &bar, |hooks| {
        scan_folder_with(
            root,
            &engine,
            engine.reference_weights(),
            library_config.clone(),
            spec,
            hooks,
        )
    })??;
    bar.finish_and_clear();
    Ok(report)
}

/// The report of `root` scanned into its index (`--index`, `--store`, or
/// its own file) with `options`' settings, `prepare` setting the index up
/// before it reconciles (how it reads), `then` run on it once it is
/// reconciled.
pub fn index_scan_report(
    config: &Config,
    root: &Path,
    options: &ScanOptions,
    prepare: impl FnOnce(&mut FolderIndex),
    then: impl FnOnce(&mut FolderIndex) -> Result<()>,
) -> Result<ScanReport> {
    let (engine, library_config, spec) = scan_setup(config);
    let bar = progress_bar("listing");
    let address = index_address(
        config,
        options.decision.index.as_ref(),
        options.decision.store.as_deref(),
        root,
    )?;
    let (mut index, opened) = FolderIndex::open_somewhere(
        root,
        engine,
        library_config,
        address.as_ref(),
        &config.curator(),
    )?;
    for message in opened.messages() {
        bar.suspend(|| eprintln!("doppel: {message}"));
    }
    index.set_extra_ignores(config.ignore.clone());
    index.set_page_folders(config.books.page_folders);
    index.set_read_limits(config.reading.limits());
    index.set_one_shot(true);
    prepare(&mut index);
    let reconciled = index.reconcile_with(&mut |p| {
        show_progress(&bar, p);
        true
    })?;
    bar.suspend(|| then(&mut index))?;
    let report = ScanReport::from_index(index, spec, &reconciled)?;
    bar.finish_and_clear();
    Ok(report)
}
