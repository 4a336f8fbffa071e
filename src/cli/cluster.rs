//! `doppel cluster`: `scan SOURCE --local` or `--scheduler HOST:PORT`,
//! the one-shot scan of a folder or of a manifest's documents run as
//! Apache DataFusion plans (doppel-cluster), here or on a Ballista
//! cluster's executors, printed as `doppel scan --no-index` prints it
//! (the same bytes; with `--store`/`--index`, into that index as `doppel
//! scan` does) and, with `--out`, written as Parquet; and `scheduler`
//! and `executor`, the cluster's two processes.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};

use doppel_cluster::index_reading::ClusterReading;
use doppel_cluster::scan::{scan_in_plans, Runner};
use doppel_cluster::serve::{run_executor, run_scheduler, ExecutorOptions, SchedulerOptions};
use doppel_cluster::{parquet_out, PlanOptions};
use doppel_index::collection::manifest::list_manifest;
use doppel_index::collection::Listing;
use doppel_index::config::Config;
use doppel_index::index::{FolderIndex, ReadsElsewhere};
use doppel_index::scan::ScanReport;

use super::args::{ClusterCommand, ReportArgs, ScanOptions};
use super::progress::progress_bar;
use super::scan::{index_scan_report, print, scan_setup, with_one_shot_hooks};
use super::settings::open_folder;

/// How `cluster scan` was asked to cut its plans and where its Parquet
/// goes.
struct PlanArgs<'a> {
    /// The scheduler's `host:port` (`None`: `--local`).
    scheduler: Option<&'a str>,
    /// How long a job there may find no executor.
    wait_for_executors: std::time::Duration,
    /// Partitions (`None`: one per core).
    partitions: Option<u32>,
    /// Documents in a batch at most.
    batch_files: u32,
    /// Documents in a job on a scheduler at most (`None`: as many as fit).
    job_files: Option<u32>,
    /// The folder for the Parquet tables.
    out: Option<&'a Path>,
}

/// Scan `source` (a folder, or a manifest file) under `config` as
/// DataFusion plans cut and run as `plan` says, print the report as
/// `printed` asks, and write the Parquet tables when asked.
fn scan(
    config: &Config,
    source: &Path,
    printed: &ReportArgs,
    options: &ScanOptions,
    plan: PlanArgs<'_>,
) -> Result<()> {
    let into_index = options.decision.index.is_some() || options.decision.store.is_some();
    // A manifest lists documents beneath the folder it lies in.
    let manifest = source.is_file().then_some(source);
    let root = match manifest {
        Some(manifest) => {
            let manifest = manifest
                .canonicalize()
                .with_context(|| format!("cannot open the manifest {}", manifest.display()))?;
            manifest.parent().unwrap_or(Path::new("/")).to_path_buf()
        }
        None => open_folder(source)?,
    };
    if into_index && manifest.is_some() {
        bail!("--store and --index take a folder: a manifest's scan keeps no index");
    }
    if let Some(out) = plan.out {
        // Nothing is written inside the folder being scanned.
        let out = std::path::absolute(out)?;
        if out.starts_with(&root) {
            bail!("--out {} is inside the folder scanned", out.display());
        }
    }
    let cut = PlanOptions {
        partitions: plan
            .partitions
            .map_or(PlanOptions::default().partitions, |n| n as usize),
        batch_files: plan.batch_files as usize,
        job_files: plan.job_files.map_or(usize::MAX, |n| n as usize),
    };
    let runner = plan
        .scheduler
        .map_or(Runner::Local, |address| Runner::Scheduler {
            address,
            wait: plan.wait_for_executors,
        });
    let report = match into_index {
        true => scan_into_index(config, &root, options, cut, runner)?,
        false => scan_one_shot(config, &root, manifest, cut, runner)?,
    };
    if let Some(out) = plan.out {
        parquet_out::write(&report, out)?;
    }
    print(report, &root, printed, config)
}

/// The one-shot scan of `root` (or of `manifest`'s documents beneath it)
/// as plans: `scan --no-index`'s report.
fn scan_one_shot(
    config: &Config,
    root: &Path,
    manifest: Option<&Path>,
    cut: PlanOptions,
    runner: Runner<'_>,
) -> Result<ScanReport> {
    let (engine, library_config, spec) = scan_setup(config);
    let engine = Arc::new(engine);
    let bar = progress_bar("listing");
    let report = with_one_shot_hooks(config, root, &engine, &library_config, &bar, |hooks| {
        let engine = Arc::clone(&engine);
        let listing = match manifest {
            Some(manifest) => list_manifest(manifest, hooks.extra_ignores, hooks.page_folders)?,
            None => Listing::of_folder(root, hooks.extra_ignores, hooks.page_folders),
        };
        anyhow::Ok(scan_in_plans(
            listing,
            engine,
            library_config.clone(),
            spec,
            hooks,
            cut,
            runner,
        )?)
    })??;
    bar.finish_and_clear();
    Ok(report)
}

/// `root` scanned into its index (`--index`, `--store`) as `doppel scan`
/// scans it, each new or changed file read in plans: what the index then
/// holds, reported. A chunk the plans could not read is not committed,
/// and the scan fails saying so; the next run reads only what is missing.
fn scan_into_index(
    config: &Config,
    root: &Path,
    options: &ScanOptions,
    cut: PlanOptions,
    runner: Runner<'_>,
) -> Result<ScanReport> {
    let (engine, library_config, _spec) = scan_setup(config);
    let limits = config.reading.limits();
    let reading =
        ClusterReading::start(root, Arc::new(engine), library_config, limits, cut, runner)?;
    let reading = Arc::new(reading);
    let elsewhere: Arc<dyn ReadsElsewhere> = reading.clone();
    let prepare = |index: &mut FolderIndex| {
        let mut options = index.options().clone();
        options.elsewhere = Some(elsewhere);
        index.set_options(options);
    };
    let report = index_scan_report(config, root, options, prepare, |_| Ok(()))?;
    if let Some(failure) = reading.failure() {
        bail!(
            "{failure}; what was read is in the index, and the next `cluster scan` \
             reads the rest"
        );
    }
    Ok(report)
}

/// Run `doppel cluster`'s `command`, a scan's settings loaded by
/// `settings` from its options.
pub fn run(
    command: ClusterCommand,
    settings: &dyn Fn(&ScanOptions) -> Result<Config>,
) -> Result<()> {
    match command {
        ClusterCommand::Scan {
            dir,
            local: _,
            scheduler,
            wait_for_executors,
            partitions,
            batch_files,
            job_files,
            out,
            report,
            options,
        } => {
            let plan = PlanArgs {
                scheduler: scheduler.as_deref(),
                wait_for_executors: std::time::Duration::from_secs(wait_for_executors),
                partitions,
                batch_files,
                job_files,
                out: out.as_deref(),
            };
            scan(&settings(&options)?, &dir, &report, &options, plan)
        }
        ClusterCommand::Scheduler {
            bind,
            executor_timeout,
        } => Ok(run_scheduler(SchedulerOptions {
            bind,
            executor_timeout_secs: executor_timeout,
        })?),
        ClusterCommand::Executor {
            scheduler,
            bind,
            grpc_port,
            tasks,
            heartbeat,
            allow,
            work_dir,
        } => {
            let Some((host, port)) = scheduler.rsplit_once(':') else {
                bail!("--scheduler takes HOST:PORT");
            };
            let Ok(port) = port.parse::<u16>() else {
                bail!("--scheduler takes HOST:PORT, the port a number");
            };
            let allowed = allow
                .iter()
                .map(|dir| {
                    std::fs::canonicalize(dir)
                        .with_context(|| format!("--allow {}: no such folder", dir.display()))
                })
                .collect::<Result<Vec<_>>>()?;
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            Ok(run_executor(ExecutorOptions {
                scheduler: (host.to_owned(), port),
                bind,
                grpc_port: grpc_port.unwrap_or(bind.port().saturating_add(1)),
                concurrent_tasks: tasks.map_or(cores, |n| n as usize),
                heartbeat_secs: heartbeat,
                allowed,
                work_dir,
            })?)
        }
    }
}
