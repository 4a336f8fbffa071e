//! `doppel [DIR]`: the terminal UI on a terminal, else the text report.

#[cfg(feature = "tui")]
use std::io::IsTerminal;
use std::path::Path;

use anyhow::Result;

use doppel_index::config::Config;

use super::args::{Format, ReportArgs, ScanOptions};
use super::scan::scan;
#[cfg(feature = "tui")]
use super::settings::{open_folder, worker_config};

/// `doppel [DIR]`: the terminal UI when stdout is a terminal (and the `tui`
/// feature is built), otherwise the text report. `config_file` is the
/// `--config` given, if any: thresholds tuned on screen are saved there, or
/// in the default file.
pub fn review(
    config: &Config,
    config_file: Option<&Path>,
    dir: &Path,
    options: &ScanOptions,
) -> Result<()> {
    #[cfg(feature = "tui")]
    if std::io::stdout().is_terminal() && !options.no_index {
        let root = open_folder(dir)?;
        let worker = worker_config(
            config,
            &root,
            options.decision.index.as_ref(),
            options.decision.store.as_deref(),
        )?;
        let initial = [
            doppel_index::worker::Command::SetClusterBy(worker.cluster_by),
            doppel_index::worker::Command::SetMode(worker.cluster_mode),
        ];
        let options = doppel_tui::Options {
            theme: config.ui.theme,
            config_file: config_file
                .map(Path::to_path_buf)
                .or_else(Config::default_path),
            quarantine_dir: config.quarantine_dir.clone(),
        };
        return Ok(doppel_tui::run_with(worker, &initial, &options)?);
    }
    let printed = ReportArgs {
        format: Format::Text,
        relations: Vec::new(),
    };
    scan(config, dir, &printed, options)
}
