//! `doppel cluster scan DIR --local`: the one-shot scan run as Apache
//! DataFusion plans (doppel-cluster), printed as `doppel scan --no-index`
//! prints it (the same bytes) and, with `--out`, written as Parquet.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Result};

use doppel_cluster::{local::scan_local, parquet_out, PlanOptions};
use doppel_core::engine::RelationKind;
use doppel_index::config::Config;

use super::args::{Format, ScanOptions};
use super::progress::progress_bar;
use super::scan::{print, scan_setup, with_one_shot_hooks};
use super::settings::open_folder;

/// How `cluster scan` was asked to cut its plans and where its Parquet
/// goes.
pub struct PlanArgs<'a> {
    /// Partitions (`None`: one per core).
    pub partitions: Option<u32>,
    /// Documents in a batch at most.
    pub batch_files: u32,
    /// The folder for the Parquet tables.
    pub out: Option<&'a Path>,
}

/// Scan `dir` under `config` as DataFusion plans cut as `plan`, print the
/// report in `format` (pairs only of `relations` when any are named), and
/// write the Parquet tables when asked.
pub fn scan(
    config: &Config,
    dir: &Path,
    format: Format,
    relations: &[RelationKind],
    options: &ScanOptions,
    plan: PlanArgs<'_>,
) -> Result<()> {
    if options.decision.index.is_some() || options.decision.store.is_some() {
        bail!(
            "`cluster scan` keeps no index: it is `scan --no-index` run as plans \
             (leave out --index and --store)"
        );
    }
    let root = open_folder(dir)?;
    if let Some(out) = plan.out {
        // Nothing is written inside the folder being scanned.
        let out = std::path::absolute(out)?;
        if out.starts_with(&root) {
            bail!("--out {} is inside the folder scanned", out.display());
        }
    }
    let (engine, library_config, spec) = scan_setup(config);
    let engine = Arc::new(engine);
    let cut = PlanOptions {
        partitions: plan
            .partitions
            .map_or(PlanOptions::default().partitions, |n| n as usize),
        batch_files: plan.batch_files as usize,
    };
    let bar = progress_bar("listing");
    let report = with_one_shot_hooks(config, &root, &engine, &library_config, &bar, |hooks| {
        scan_local(
            &root,
            Arc::clone(&engine),
            library_config.clone(),
            spec,
            hooks,
            cut,
        )
    })??;
    bar.finish_and_clear();
    if let Some(out) = plan.out {
        parquet_out::write(&report, out)?;
    }
    print(report, &root, format, relations, config)
}
