//! The `doppel` command line: `doppel [DIR]` reviews a folder, `doppel scan`
//! prints its clusters, `doppel compare A B` scores two files with every
//! algorithm. Every command starts from the configuration file
//! ([`doppel::runtime::config`]); flags override it.

use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use doppel::engine::algo::AlgorithmId;
use doppel::engine::measure::exact_measures;
use doppel::engine::stats::CollectionStats;
use doppel::engine::{Engine, EngineConfig};
use doppel::faces::report;
use doppel::pairing::library::{ClusterBy, ClusterMode, ClusterSpec, LibraryConfig};
use doppel::runtime::collection::{list_files, read_text, DEFAULT_SIZE_CAP};
use doppel::runtime::config::{cluster_by_name, parse_cluster_by, ClusterSettings, Config};
use doppel::runtime::index::FolderIndex;
use doppel::runtime::scan::{scan_folder_with, ScanHooks, ScanReport};

mod usage;

#[derive(Parser)]
#[command(
    name = "doppel",
    version,
    about = "Find and review near-duplicate documents in a folder of texts",
    override_usage = "doppel [OPTIONS] [DIR]\n       doppel [--config PATH] <COMMAND>"
)]
struct Cli {
    /// Read settings from this TOML file (default:
    /// $XDG_CONFIG_HOME/doppel/config.toml or the platform config folder,
    /// if it exists); see `doppel config --print-defaults`.
    #[arg(long, global = true, value_name = "PATH")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
    /// Folder to review (default: the current folder).
    dir: Option<PathBuf>,
    #[command(flatten)]
    options: ScanOptions,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, ValueEnum)]
enum Mode {
    /// Connected components (A~B, B~C put A, B, C together).
    Components,
    /// Star clustering: every member is a direct duplicate of its centre.
    Star,
}

impl From<Mode> for ClusterMode {
    fn from(mode: Mode) -> Self {
        match mode {
            Mode::Components => ClusterMode::Components,
            Mode::Star => ClusterMode::Star,
        }
    }
}

/// How a scan judges and groups pairs (each overrides the config file).
#[derive(clap::Args)]
struct ScanOptions {
    #[arg(long, value_parser = parse_cluster_by, help = format!(
        "The verdict that defines clusters: `fusion` or an algorithm id (overrides the \
         config file's clusters.by) [default: {}]",
        cluster_by_name(ClusterSettings::default().by)
    ))]
    cluster_by: Option<ClusterBy>,
    /// Compute only these algorithms (comma-separated ids; overrides the
    /// config file's `enabled`, by default all).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<AlgorithmId>,
    /// Override a threshold, in the algorithm's unit and range, e.g.
    /// `--threshold minhash=0.8` (repeatable).
    #[arg(long = "threshold", value_parser = parse_threshold)]
    thresholds: Vec<(AlgorithmId, f64)>,
    #[arg(long, value_enum, help = format!(
        "Cluster mode (overrides the config file's clusters.mode) [default: {}]",
        doppel::runtime::config::mode_name(ClusterSettings::default().mode)
    ))]
    mode: Option<Mode>,
    /// Where the persistent index lives (default: the platform data folder,
    /// never inside DIR).
    #[arg(long, value_name = "PATH")]
    index: Option<PathBuf>,
    /// Do not read or write a persistent index; fingerprint everything now.
    #[arg(long, conflicts_with = "index")]
    no_index: bool,
}

impl ScanOptions {
    /// Whether any option was given.
    fn given(&self) -> bool {
        let Self {
            cluster_by,
            algorithms,
            thresholds,
            mode,
            index,
            no_index,
        } = self;
        cluster_by.is_some()
            || !algorithms.is_empty()
            || !thresholds.is_empty()
            || mode.is_some()
            || index.is_some()
            || *no_index
    }
}

fn parse_threshold(s: &str) -> Result<(AlgorithmId, f64), String> {
    let (id, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected ID=VALUE, got {s:?}"))?;
    let value: f64 = value
        .parse()
        .map_err(|_| format!("{value:?} is not a number"))?;
    if !value.is_finite() {
        return Err(format!("{value} is not a finite number"));
    }
    Ok((id.parse()?, value))
}

#[derive(Subcommand)]
enum Command {
    /// Scan a folder and print its duplicate clusters and pairs.
    Scan {
        /// Folder to scan.
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        options: ScanOptions,
    },
    /// Score two files with every algorithm, with the exact measures.
    Compare {
        /// First file.
        a: PathBuf,
        /// Second file.
        b: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Measure precision and recall: the Fan & Huang protocol on a folder of
    /// books, or pairwise scores against a labelled folder (--truth).
    Eval {
        /// Labelled folder to score (with --truth).
        #[arg(requires = "truth")]
        dir: Option<PathBuf>,
        /// Truth file {"groups": [[path, ...], ...]}, paths relative to DIR.
        #[arg(long, value_name = "FILE", requires = "dir")]
        truth: Option<PathBuf>,
        /// Books to cut into ~4 KB texts (Fan & Huang protocol).
        #[arg(
            long,
            value_name = "DIR",
            default_value = DEFAULT_BOOKS,
            conflicts_with = "truth"
        )]
        books: PathBuf,
        /// Source texts (queries).
        #[arg(long, default_value_t = 5)]
        sources: usize,
        /// Near-duplicates made of each source.
        #[arg(long, default_value_t = 120)]
        copies: usize,
        /// Smallest edit rate (edits per word).
        #[arg(long, default_value_t = 0.01)]
        edit_min: f64,
        /// Largest edit rate (edits per word).
        #[arg(long, default_value_t = 0.30)]
        edit_max: f64,
        /// Background texts sampled from the books (0 = all).
        #[arg(long, default_value_t = 10_000)]
        background: usize,
        /// Seed of every random choice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write every curve point as CSV.
        #[arg(long, value_name = "FILE", conflicts_with = "truth")]
        csv: Option<PathBuf>,
        /// Also write F-against-threshold plots as SVG.
        #[arg(long, value_name = "FILE", conflicts_with = "truth")]
        svg: Option<PathBuf>,
        /// Output format (csv: every curve point; with --truth, one row per
        /// algorithm).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Follow a folder headless: index it, watch it, and print every update
    /// as one JSON object per line. Stops on SIGINT or SIGTERM.
    #[command(after_help = format!(
        "Events (the \"event\" of each line): {}.",
        doppel::runtime::worker::protocol::jsonl_event::ALL.join(", ")
    ))]
    Watch {
        /// Folder to follow.
        dir: PathBuf,
        /// Print JSON lines (the only output format).
        #[arg(long, required = true)]
        jsonl: bool,
        /// Where the persistent index lives (default: the platform data
        /// folder, never inside DIR).
        #[arg(long, value_name = "PATH")]
        index: Option<PathBuf>,
        #[arg(long, value_name = "MS", help = format!(
            "Quiet period before a changed file is read, in milliseconds (overrides the \
             config file's watch.quiet-ms) [default: {}]",
            doppel::runtime::watch::DEFAULT_QUIET.as_millis()
        ))]
        quiet_ms: Option<u64>,
        /// Also stop when standard input reaches end of file.
        #[arg(long)]
        until_eof: bool,
    },
    /// Print the configuration in effect (the defaults with the config file
    /// merged over them) as TOML.
    Config {
        /// Print the built-in defaults instead: every setting, documented.
        #[arg(long, conflicts_with = "path")]
        print_defaults: bool,
        /// Print where the config file is looked for instead.
        #[arg(long)]
        path: bool,
    },
    /// The persistent indexes: list them, or remove some.
    Index {
        #[command(subcommand)]
        command: IndexCommand,
    },
    /// Build the reference IDF table from a folder of books (maintainers).
    #[command(hide = true)]
    IdfTable {
        /// Folder of books.
        dir: PathBuf,
        /// Cut books into texts of about this many bytes.
        #[arg(long, default_value_t = 4096)]
        chunk: usize,
        /// Keep terms found in at least this many texts.
        #[arg(long, default_value_t = 2)]
        min_df: u32,
    },
    /// Generate a library collection of whole digitized books with its
    /// truth (maintainers; see `doppel::faces::eval::library`).
    #[command(hide = true)]
    MakeLibrary {
        out: PathBuf,
        /// `small` (every relation, ~1 MB) or `large` (~11 MB + hard cases).
        #[arg(long, default_value = "small")]
        size: doppel::faces::eval::library::LibrarySize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also add this many lightly edited copies of one text.
        #[arg(long, default_value_t = 0)]
        many_copies: usize,
        /// The shared public-domain corpus.
        #[arg(long, value_name = "DIR", default_value = "../shared/corpus")]
        corpus: PathBuf,
    },
}

/// Where `doppel eval` looks for books without `--books` (the repository's
/// neighbour folder).
const DEFAULT_BOOKS: &str = "../shared/corpus";

/// Exit as clap does on a usage error ([`usage::exit`]).
fn usage_error(kind: ErrorKind, message: impl std::fmt::Display) -> ! {
    usage::exit(Cli::command(), kind, message)
}

/// `doppel index`: the index files in the index folder (the config's
/// `index-dir`, else the platform data folder).
#[derive(Subcommand)]
enum IndexCommand {
    /// One line per index: size on disk, documents, last use, folder.
    List {
        #[arg(long, value_enum, default_value = "text")]
        format: ListFormat,
    },
    /// Remove indexes: of the folders given, unused for a while, or whose
    /// folder is gone.
    ///
    /// All of an index's files go, and what was freed is printed. An index
    /// that a running doppel has open is kept (busy), and so is any file
    /// that is not one of doppel's indexes.
    #[command(group(clap::ArgGroup::new("which").required(true).multiple(true)))]
    Forget {
        /// Remove the index of each of these folders.
        #[arg(value_name = "DIR", group = "which")]
        dirs: Vec<PathBuf>,
        /// Remove indexes not used for this long (e.g. `30d`, `12h`).
        #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration, group = "which")]
        older_than: Option<std::time::Duration>,
        /// Remove indexes whose folder no longer exists (an unmounted drive
        /// counts as gone).
        #[arg(long, group = "which")]
        missing: bool,
        /// Remove this index file (one given with --index elsewhere).
        #[arg(long = "index", value_name = "PATH", group = "which")]
        files: Vec<PathBuf>,
        /// Only say what would be removed.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        // `doppel scna DIR`: the top-level DIR took the misspelt command
        // and clap stumbles on the next word.
        let command = Cli::command();
        match usage::first_word(&command, &usage::args())
            .and_then(|word| usage::not_a_command_or_folder(&command, &word))
        {
            Some(message) if e.kind() == ErrorKind::UnknownArgument => {
                usage_error(ErrorKind::InvalidSubcommand, message)
            }
            _ => e.exit(),
        }
    });
    if cli.command.is_some() && (cli.dir.is_some() || cli.options.given()) {
        // `doppel --threshold minhash=0.5 scan DIR` would silently ignore
        // the flag: only `--config` may come before a command.
        usage_error(
            ErrorKind::ArgumentConflict,
            "only --config can come before a command; put the other options after it",
        );
    }
    if cli.command.is_none() {
        if let Some(message) = cli
            .dir
            .as_ref()
            .and_then(|d| usage::not_a_command_or_folder(&Cli::command(), &d.to_string_lossy()))
        {
            usage_error(ErrorKind::InvalidSubcommand, message);
        }
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`doppel scan … | head`) is not an
        // error: end quietly, as grep and ripgrep do.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => match err.downcast_ref::<usage::UsageError>() {
            Some(usage) => usage_error(ErrorKind::ValueValidation, usage),
            None => {
                eprintln!("doppel: {err:#}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Whether `err` comes from writing to a pipe whose reader has gone.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> Result<()> {
    // `doppel config`, `idf-table` and `make-library` run without (or despite) a config file.
    let load = || Config::load(cli.config.as_deref());
    let load_with = |options: &ScanOptions| with_options(load()?, options);
    match cli.command {
        Some(Command::Config {
            print_defaults,
            path,
        }) => print_config(cli.config.as_deref(), print_defaults, path),
        Some(Command::IdfTable { dir, chunk, min_df }) => idf_table(&dir, chunk, min_df),
        Some(Command::Index { command }) => index_command(&load()?, command),
        Some(Command::MakeLibrary {
            out,
            size,
            seed,
            many_copies,
            corpus,
        }) => {
            let options = doppel::faces::eval::library::LibraryOptions {
                size,
                seed,
                many_copies,
            };
            let library = doppel::faces::eval::library::make_library(&corpus, &options)?;
            library.write(&out)?;
            println!("{}: {}", out.display(), library.summary());
            Ok(())
        }
        Some(Command::Scan {
            dir,
            format,
            options,
        }) => scan(&load_with(&options)?, &dir, format, &options),
        Some(Command::Compare { a, b, format }) => compare(&load()?, &a, &b, format),
        Some(Command::Watch {
            dir,
            jsonl: _,
            index,
            quiet_ms,
            until_eof,
        }) => {
            let mut config = load()?;
            if let Some(ms) = quiet_ms {
                config.watch.quiet_ms = ms;
            }
            watch_jsonl(&usage::checked(config, &[])?, &dir, index, until_eof)
        }
        Some(Command::Eval {
            dir,
            truth,
            books,
            sources,
            copies,
            edit_min,
            edit_max,
            background,
            seed,
            csv,
            svg,
            format,
        }) => {
            let config = load()?;
            let fan_huang = doppel::faces::eval::FanHuangConfig {
                engine: config.engine.clone(),
                sources,
                copies,
                edit_min,
                edit_max,
                background,
                seed,
                ..Default::default()
            };
            let outputs = EvalOutputs { csv, svg, format };
            eval(
                &config,
                dir.as_deref().zip(truth.as_deref()),
                &books,
                fan_huang,
                &outputs,
            )
        }
        None => review(
            &load_with(&cli.options)?,
            &cli.dir.unwrap_or_else(|| PathBuf::from(".")),
            &cli.options,
        ),
    }
}

/// `doppel config`: the configuration in effect, the built-in defaults, or
/// where the file is looked for.
fn print_config(explicit: Option<&Path>, defaults: bool, path: bool) -> Result<()> {
    let out = if defaults {
        doppel::runtime::config::DEFAULTS.to_owned()
    } else if path {
        let path = explicit
            .map(Path::to_path_buf)
            .or_else(Config::default_path)
            .context("no config folder on this platform")?;
        let note = if path.exists() { "" } else { " (not there)" };
        format!("{}{note}\n", path.display())
    } else {
        Config::load(explicit)?.to_toml()?
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// The configuration a scan runs with: the config file's, with the scan
/// options over it (floors lowered where a threshold is looser), checked.
fn with_options(mut config: Config, options: &ScanOptions) -> Result<Config> {
    if !options.algorithms.is_empty() {
        config.engine.enabled = options.algorithms.iter().copied().collect();
    }
    for &(id, value) in &options.thresholds {
        // A threshold looser than the floor lowers the floor, so the
        // candidates it needs are gathered.
        config.set_threshold(id, value);
    }
    if let Some(by) = options.cluster_by {
        config.clusters.by = by;
    }
    if let Some(mode) = options.mode {
        config.clusters.mode = mode.into();
    }
    usage::checked(config, &options.thresholds)
}

/// What a scan runs with: engine, library, cluster-by verdict and mode.
fn settings(config: &Config) -> (EngineConfig, LibraryConfig, ClusterBy, ClusterMode) {
    let c = config.clone();
    (c.engine, c.library, c.clusters.by, c.clusters.mode)
}

/// The index file of `root`: `--index`, else in the config file's
/// `index-dir`, else `None` (the platform data folder).
fn index_path(config: &Config, flag: Option<&PathBuf>, root: &Path) -> Result<Option<PathBuf>> {
    match flag {
        Some(path) => Ok(Some(path.clone())),
        None => config.index_path(root),
    }
}

/// A progress bar for `what` on stderr when stderr is a terminal, hidden
/// otherwise. Its position counts files.
fn progress_bar(what: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressStyle};
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::no_length();
    let style = ProgressStyle::with_template(
        "{spinner} {msg:9} [{wide_bar}] {human_pos}/{human_len} files {elapsed}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// A spinner for a long step without a count, on stderr when it is a
/// terminal.
fn spinner(what: &str) -> indicatif::ProgressBar {
    use indicatif::ProgressBar;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let spinner = ProgressBar::new_spinner();
    spinner.set_message(what.to_owned());
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    spinner
}

/// Show a reconcile's or scan's reading progress on `bar`.
fn show_progress(bar: &indicatif::ProgressBar, p: doppel::runtime::index::ReadProgress) {
    bar.set_length(p.total as u64);
    // Reports from worker threads may arrive slightly out of order.
    if p.done as u64 > bar.position() {
        bar.set_position(p.done as u64);
    }
    bar.set_message(if p.done < p.total {
        "reading"
    } else {
        "comparing"
    });
}

/// `doppel [DIR]`: the terminal UI when stdout is a terminal (and the `tui`
/// feature is built), otherwise the text report.
fn review(config: &Config, dir: &Path, options: &ScanOptions) -> Result<()> {
    #[cfg(feature = "tui")]
    if std::io::stdout().is_terminal() && !options.no_index {
        let root = open_folder(dir)?;
        let (engine, library, by, mode) = settings(config);
        let mut worker = doppel::runtime::worker::WorkerConfig::new(&root);
        worker.engine = engine;
        worker.library = library;
        worker.index_path = index_path(config, options.index.as_ref(), &root)?;
        worker.quiet = config.watch.quiet();
        worker.rescan_every = config.watch.rescan_every();
        worker.extra_ignores = config.ignore.clone();
        worker.cluster_by = by;
        worker.cluster_mode = mode;
        let initial = [
            doppel::runtime::worker::Command::SetClusterBy(by),
            doppel::runtime::worker::Command::SetMode(mode),
        ];
        return doppel::faces::tui::run_with(worker, &initial, config.ui.theme);
    }
    scan(config, dir, Format::Text, options)
}

fn scan(config: &Config, dir: &Path, format: Format, options: &ScanOptions) -> Result<()> {
    let root = open_folder(dir)?;
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
        let hooks = ScanHooks {
            extra_ignores: &config.ignore,
            progress: Some(&progress),
        };
        scan_folder_with(
            &root,
            &engine,
            engine.reference_weights(),
            library_config,
            spec,
            &hooks,
        )
    } else {
        let index_path = index_path(config, options.index.as_ref(), &root)?;
        let (mut index, opened) =
            FolderIndex::open(&root, engine, library_config, index_path.as_deref())?;
        for message in opened.messages() {
            bar.suspend(|| eprintln!("doppel: {message}"));
        }
        index.set_extra_ignores(config.ignore.clone());
        index.reconcile_with(&mut |p| {
            show_progress(&bar, p);
            true
        })?;
        ScanReport::from_index(index, spec)?
    };
    bar.finish_and_clear();
    let out = match format {
        Format::Text => report::text(&report),
        Format::Json => report::json(&report, &root, &engine_config)?,
        Format::Csv => report::csv(&report)?,
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

fn compare(config: &Config, a: &Path, b: &Path, format: Format) -> Result<()> {
    let engine = Engine::new(config.engine.clone());
    let read =
        |p: &Path| read_text(p, DEFAULT_SIZE_CAP).with_context(|| format!("{}", p.display()));
    let (ta, tb) = (read(a)?, read(b)?);
    let (da, db) = (engine.analyze(&ta.text), engine.analyze(&tb.text));
    let weights = engine.reference_weights();
    let scores = engine.compare(
        &engine.fingerprint(&da, weights),
        &engine.fingerprint(&db, weights),
    );
    let shingle = &engine.config().algorithms.shingle;
    let exact = exact_measures(&da, &db, shingle.w, shingle.seed, weights);
    let verdict = engine.verdict(&scores, exact.a_shingles.min(exact.b_shingles));
    let out = match format {
        Format::Text => report::compare_text(&scores, &verdict, &exact, &engine),
        Format::Json => report::compare_json(&scores, &verdict, &exact, &engine)?,
        Format::Csv => report::compare_csv(&scores, &verdict, &exact, &engine)?,
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// Where `doppel eval` writes besides stdout.
struct EvalOutputs {
    csv: Option<PathBuf>,
    svg: Option<PathBuf>,
    format: Format,
}

/// `labelled` is (DIR, truth file) for `--truth`; otherwise the Fan & Huang
/// protocol runs on `books`.
fn eval(
    config: &Config,
    labelled: Option<(&Path, &Path)>,
    books: &Path,
    fan_huang: doppel::faces::eval::FanHuangConfig,
    outputs: &EvalOutputs,
) -> Result<()> {
    let out = if let Some((dir, truth)) = labelled {
        let engine = Engine::new(config.engine.clone());
        let spinner = spinner("scoring the labelled folder");
        let report = doppel::faces::eval::truth(dir, truth, &engine);
        spinner.finish_and_clear();
        let report = report?;
        match outputs.format {
            Format::Text => report.to_text(),
            Format::Json => report.to_json()?,
            Format::Csv => report.to_csv()?,
        }
    } else {
        // Run from elsewhere than the repository, the default is no folder.
        if books == Path::new(DEFAULT_BOOKS) && !books.is_dir() {
            anyhow::bail!(
                "no folder {DEFAULT_BOOKS} here (the default of --books): give --books DIR, \
                 a folder of plain-text books, or --truth FILE DIR"
            );
        }
        let spinner = spinner("running the Fan & Huang protocol");
        let report = doppel::faces::eval::fan_huang(&fan_huang, books);
        spinner.finish_and_clear();
        let report = report?;
        if let Some(path) = &outputs.csv {
            std::fs::write(path, report.to_csv())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if let Some(path) = &outputs.svg {
            report.write_svg(path)?;
        }
        match outputs.format {
            Format::Text => report.to_text(),
            Format::Json => report.to_json()?,
            Format::Csv => report.to_csv(),
        }
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// `doppel watch DIR --jsonl`: run the worker headless and print each
/// update as a JSON line, flushed at once. Clusters are reported when they
/// appear or change (consecutive snapshots compared), and when they dissolve.
fn watch_jsonl(config: &Config, dir: &Path, index: Option<PathBuf>, until_eof: bool) -> Result<()> {
    use doppel::runtime::worker::protocol::{jsonl_event as event, Snapshot, Stage};
    use doppel::runtime::worker::{self, Update, WorkerConfig};
    use serde_json::json;

    let root = open_folder(dir)?;
    let mut worker_config = WorkerConfig::new(&root);
    worker_config.engine = config.engine.clone();
    worker_config.library = config.library.clone();
    worker_config.index_path = index_path(config, index.as_ref(), &root)?;
    worker_config.quiet = config.watch.quiet();
    worker_config.rescan_every = config.watch.rescan_every();
    worker_config.extra_ignores = config.ignore.clone();
    worker_config.cluster_by = config.clusters.by;
    worker_config.cluster_mode = config.clusters.mode;
    // Stopped and waited for on every way out, a closed stdout included.
    let handle = JoinOnDrop(Some(worker::spawn(worker_config)));
    let quit = handle.commands.clone();
    ctrlc::set_handler(move || {
        let _ = quit.send(worker::Command::Quit);
    })
    .context("cannot handle SIGINT/SIGTERM")?;
    if until_eof {
        let quit = handle.commands.clone();
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            let _ = quit.send(worker::Command::Quit);
        });
    }
    let stdout = std::io::stdout();
    // Serialized first, so a closed stdout surfaces as an `io::Error`.
    let print = |value: serde_json::Value| -> Result<()> {
        let mut line = serde_json::to_vec(&value)?;
        line.push(b'\n');
        let mut out = stdout.lock();
        out.write_all(&line)?;
        out.flush()?;
        Ok(())
    };
    // Each cluster by its members (sorted) → its representative.
    let clusters_of = |s: &Snapshot| -> HashMap<Vec<String>, String> {
        s.clusters
            .iter()
            .map(|c| {
                let mut members: Vec<String> = c.members.iter().map(|m| m.path.clone()).collect();
                let representative = members[0].clone();
                members.sort();
                (members, representative)
            })
            .collect()
    };
    let mut previous: HashMap<Vec<String>, String> = HashMap::new();
    // An error before the first snapshot means the worker could not start.
    let mut started = false;
    let mut failed = None;
    for update in &handle.updates {
        let line = match update {
            Update::Progress(p) => {
                let stage = serde_json::to_value(p.stage)?;
                if p.stage == Stage::Idle {
                    None
                } else {
                    Some(
                        json!({"event": event::PROGRESS, "stage": stage, "done": p.done,
                                "total": p.total, "bytes": p.bytes}),
                    )
                }
            }
            Update::Snapshot(s) => {
                let current = clusters_of(&s);
                let mut members: Vec<&Vec<String>> = current.keys().collect();
                members.sort();
                for m in members {
                    let representative = &current[m];
                    if previous.get(m) != Some(representative) {
                        print(json!({"event": event::CLUSTER, "members": m,
                                     "representative": representative}))?;
                    }
                }
                let mut gone: Vec<&Vec<String>> = previous
                    .keys()
                    .filter(|m| !current.contains_key(*m))
                    .collect();
                gone.sort();
                for m in gone {
                    print(json!({"event": event::CLUSTER_GONE, "members": m}))?;
                }
                previous = current;
                started = true;
                Some(json!({"event": event::SNAPSHOT, "generation": s.generation,
                            "documents": s.documents, "clusters": s.clusters.len(),
                            "skipped": s.skipped.len()}))
            }
            Update::FileIndexed { path } => Some(json!({"event": event::INDEXED, "path": path})),
            Update::FileRemoved { path } => Some(json!({"event": event::REMOVED, "path": path})),
            Update::FileSkipped { path, reason } => {
                Some(json!({"event": event::SKIPPED, "path": path, "reason": reason}))
            }
            Update::Watch(state) => {
                let mut value = serde_json::to_value(&state)?;
                value["event"] = json!(event::WATCH);
                Some(value)
            }
            Update::Error(message) => {
                if !started && failed.is_none() {
                    failed = Some(message.clone());
                }
                Some(json!({"event": event::ERROR, "message": message}))
            }
            Update::Pair(_) | Update::Diff(_) => None,
            Update::Stopped => {
                print(json!({"event": event::STOPPED}))?;
                if !started {
                    if let Some(message) = failed {
                        drop(handle);
                        anyhow::bail!(message);
                    }
                }
                break;
            }
        };
        if let Some(line) = line {
            print(line)?;
        }
    }
    drop(handle);
    Ok(())
}

/// `doppel index list` and `doppel index forget`.
fn index_command(config: &Config, command: IndexCommand) -> Result<()> {
    use doppel::runtime::index_files::{self, ForgetRequest, Selection};
    let dir = match &config.index_dir {
        Some(dir) => dir.clone(),
        None => doppel::runtime::store::Store::default_dir()?,
    };
    let now = std::time::SystemTime::now();
    let mut out = std::io::stdout().lock();
    match command {
        IndexCommand::List { format } => {
            let indexes = index_files::list(&dir)?;
            let text = match format {
                ListFormat::Text => index_files::list_text(&dir, &indexes, now),
                ListFormat::Json => index_files::list_json(&dir, &indexes)?,
            };
            out.write_all(text.as_bytes())?;
        }
        IndexCommand::Forget {
            dirs,
            older_than,
            missing,
            files,
            dry_run,
        } => {
            let selection = Selection {
                folders: dirs,
                older_than,
                missing,
            };
            let request = ForgetRequest {
                selection,
                files,
                dry_run,
            };
            let report = index_files::forget_all(&dir, &request, now)?;
            out.write_all(report.text().as_bytes())?;
            // Each on a line of its own, after what was done.
            let problems = report.problems.join("\ndoppel: ");
            anyhow::ensure!(report.problems.is_empty(), "{problems}");
        }
    }
    Ok(())
}

/// A worker that is asked to quit and waited for (its index closed) when
/// dropped.
struct JoinOnDrop(Option<doppel::runtime::worker::WorkerHandle>);

impl std::ops::Deref for JoinOnDrop {
    type Target = doppel::runtime::worker::WorkerHandle;
    fn deref(&self) -> &Self::Target {
        self.0.as_ref().expect("taken only when dropped")
    }
}

impl Drop for JoinOnDrop {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            handle.join();
        }
    }
}

/// Cut every text under `dir` into ~`chunk`-byte pieces on whitespace and
/// count each stemmed term's document frequency over the pieces.
fn idf_table(dir: &Path, chunk: usize, min_df: u32) -> Result<()> {
    let engine = Engine::new(EngineConfig::default());
    let tokenizer = engine.analyzer().tokenizer();
    let mut stats = CollectionStats::new();
    let mut names: HashMap<u64, String> = HashMap::new();
    let (files, _) = list_files(dir);
    for file in files {
        let Ok(decoded) = read_text(&file.path, DEFAULT_SIZE_CAP) else {
            continue;
        };
        let text = doppel::engine::text::normalize(&decoded.text);
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + chunk).min(text.len());
            while end < text.len() && !text.is_char_boundary(end) {
                end += 1;
            }
            end = text[end..].find(' ').map_or(text.len(), |i| end + i);
            let mut terms = HashSet::new();
            for word in tokenizer.words(&text[start..end]) {
                if let Some(term) = tokenizer.term(word) {
                    terms.insert(term.into_owned());
                }
            }
            let hashes: Vec<u64> = terms
                .into_iter()
                .map(|t| {
                    let h = doppel::hash::token_hash(&t).max(1);
                    names.entry(h).or_insert(t);
                    h
                })
                .collect();
            stats.add_document(&hashes);
            start = end + 1;
        }
    }
    std::io::stdout()
        .lock()
        .write_all(stats.to_tsv(&names, min_df).as_bytes())?;
    Ok(())
}

/// The canonical path of a folder given on the command line, or an error
/// naming it.
fn open_folder(dir: &Path) -> Result<PathBuf> {
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot open folder {}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
    Ok(root)
}
