//! What a command runs with: the configuration file with the flags over
//! it, the folder, where its index is (a file or the team's database), and
//! the one [`WorkerConfig`] the review and the watcher start their worker
//! with.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use doppel_core::engine::EngineConfig;
use doppel_index::config::Config;
use doppel_index::worker::WorkerConfig;
use doppel_pairing::cluster::{ClusterBy, ClusterMode};
use doppel_pairing::library::LibraryConfig;
use doppel_store::StoreAddress;

use super::args::ScanOptions;
use super::usage;

/// The configuration a scan runs with: the config file's, with the scan
/// options over it (floors lowered where a threshold is looser), checked.
pub fn with_options(mut config: Config, options: &ScanOptions) -> Result<Config> {
    if !options.decision.algorithms.is_empty() {
        config.engine.enabled = options.decision.algorithms.iter().copied().collect();
    }
    for &(id, value) in &options.decision.thresholds {
        // A threshold looser than the floor lowers the floor, so the
        // candidates it needs are gathered.
        config.set_threshold(id, value);
    }
    if let Some(by) = options.decision.cluster_by {
        config.clusters.by = by;
    }
    if let Some(mode) = options.decision.mode {
        config.clusters.mode = mode.into();
    }
    if let Some(dir) = &options.boilerplate_dir {
        config.library.boilerplate.user_dir = Some(dir.clone());
    }
    usage::checked(config, &options.decision.thresholds)
}

/// What a scan runs with: engine, library, cluster-by verdict and mode.
pub fn settings(config: &Config) -> (EngineConfig, LibraryConfig, ClusterBy, ClusterMode) {
    let c = config.clone();
    (c.engine, c.library, c.clusters.by, c.clusters.mode)
}

/// The index file of `root`: `--index`, else in the config file's
/// `index-dir`, else `None` (the platform data folder).
pub fn index_path(config: &Config, flag: Option<&PathBuf>, root: &Path) -> Result<Option<PathBuf>> {
    match flag {
        Some(path) => Ok(Some(path.clone())),
        None => Ok(config.index_path(root)?),
    }
}

/// The canonical path of a folder given on the command line, or an error
/// naming it.
pub fn open_folder(dir: &Path) -> Result<PathBuf> {
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot open folder {}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
    Ok(root)
}

/// Where the index of `root` is: `--store URL` or `--index PATH` for this
/// run, else the config file's `store`, else a file in its `index-dir`,
/// else `None` (a file in the platform data folder).
pub fn index_address(
    config: &Config,
    index: Option<&PathBuf>,
    store: Option<&str>,
    root: &Path,
) -> Result<Option<StoreAddress>> {
    if index.is_none() {
        if let Some(text) = store {
            return store_flag(text).map(Some);
        }
        if let Some(url) = &config.store {
            return Ok(Some(StoreAddress::parse(url)?));
        }
    }
    Ok(index_path(config, index, root)?.map(StoreAddress::from))
}

/// `--store TEXT` as an address: one that is not one (a URL that does not
/// parse, a libpq string, a path that names no index file) is a usage
/// error naming the flag, refused before any file is made; its message
/// leaves the password out.
pub fn store_flag(text: &str) -> Result<StoreAddress> {
    StoreAddress::parse(text).map_err(|e| usage::UsageError(format!("--store: {e}")).into())
}

/// The worker of `root` as `config` and the flags set it up: the engine,
/// library, watch and ignore settings, the clusters' verdict and mode, and
/// where the index is (`index`, the `--index` flag; `store`, `--store`).
pub fn worker_config(
    config: &Config,
    root: &Path,
    index: Option<&PathBuf>,
    store: Option<&str>,
) -> Result<WorkerConfig> {
    let (engine, library, by, mode) = settings(config);
    let mut worker = WorkerConfig::new(root);
    worker.engine = engine;
    worker.library = library;
    worker.index = index_address(config, index, store, root)?;
    worker.curator = config.curator();
    worker.quiet = config.watch.quiet();
    worker.rescan_every = config.watch.rescan_every();
    worker.extra_ignores = config.ignore.clone();
    worker.page_folders = config.books.page_folders;
    worker.read_limits = config.reading.limits();
    worker.cluster_by = by;
    worker.cluster_mode = mode;
    worker.act_records = doppel_index::act::ActRecords::user();
    Ok(worker)
}
