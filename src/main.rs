//! The `doppel` command line: `doppel [DIR]` reviews a folder, `doppel scan`
//! prints its clusters, `doppel compare A B` scores two files with every
//! algorithm. Every command starts from the configuration file
//! ([`doppel::config`]); flags override it.

use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use doppel::algo::AlgorithmId;
use doppel::collection::{list_files, read_text, DEFAULT_SIZE_CAP};
use doppel::config::{parse_cluster_by, Config};
use doppel::engine::{Engine, EngineConfig};
use doppel::index::FolderIndex;
use doppel::library::{ClusterBy, ClusterMode, ClusterSpec, LibraryConfig};
use doppel::measure::exact_measures;
use doppel::report;
use doppel::scan::{scan_folder_with, ScanHooks, ScanReport};
use doppel::stats::CollectionStats;

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

/// How a scan judges and groups pairs (each overrides the config file).
#[derive(clap::Args)]
struct ScanOptions {
    /// The verdict that defines clusters: `fusion` or an algorithm id
    /// [default: fusion].
    #[arg(long, value_parser = parse_cluster_by)]
    cluster_by: Option<ClusterBy>,
    /// Compute only these algorithms (comma-separated ids; default: all).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<AlgorithmId>,
    /// Override a threshold, e.g. `--threshold minhash=0.8` (repeatable).
    #[arg(long = "threshold", value_parser = parse_threshold)]
    thresholds: Vec<(AlgorithmId, f64)>,
    /// Cluster mode [default: components].
    #[arg(long, value_enum)]
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
        dir: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        options: ScanOptions,
    },
    /// Score two files with every algorithm, with the exact measures.
    Compare {
        a: PathBuf,
        b: PathBuf,
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
            default_value = "../shared/corpus",
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
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Also write F-against-threshold plots as SVG.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Output format (text or json).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Follow a folder headless: index it, watch it, and print every update
    /// as one JSON object per line (indexed, removed, skipped, cluster,
    /// progress, watch, error). Stops on SIGINT or SIGTERM.
    Watch {
        dir: PathBuf,
        /// Print JSON lines (the only output format).
        #[arg(long, required = true)]
        jsonl: bool,
        /// Where the persistent index lives (default: the platform data
        /// folder, never inside DIR).
        #[arg(long, value_name = "PATH")]
        index: Option<PathBuf>,
        /// Quiet period before a changed file is read, in milliseconds
        /// [default: 300].
        #[arg(long, value_name = "MS")]
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
    /// Build the reference IDF table from a folder of books (maintainers).
    #[command(hide = true)]
    IdfTable {
        dir: PathBuf,
        /// Cut books into texts of about this many bytes.
        #[arg(long, default_value_t = 4096)]
        chunk: usize,
        /// Keep terms found in at least this many texts.
        #[arg(long, default_value_t = 2)]
        min_df: u32,
    },
    /// Generate a library collection of whole digitized books with its
    /// truth (maintainers; see `doppel::eval::library`).
    #[command(hide = true)]
    MakeLibrary {
        out: PathBuf,
        /// `small` (every relation, ~1 MB) or `large` (~11 MB + hard cases).
        #[arg(long, default_value = "small")]
        size: doppel::eval::library::LibrarySize,
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.command.is_some() && (cli.dir.is_some() || cli.options.given()) {
        // `doppel --threshold minhash=0.5 scan DIR` would silently ignore
        // the flag: only `--config` may come before a command.
        use clap::CommandFactory;
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "only --config can come before a command; put the other options after it",
            )
            .exit();
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("doppel: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    // `doppel config`, `idf-table` and `make-library` run without (or despite) a config file.
    let load = || Config::load(cli.config.as_deref());
    match cli.command {
        Some(Command::Config {
            print_defaults,
            path,
        }) => print_config(cli.config.as_deref(), print_defaults, path),
        Some(Command::IdfTable { dir, chunk, min_df }) => idf_table(&dir, chunk, min_df),
        Some(Command::MakeLibrary {
            out,
            size,
            seed,
            many_copies,
            corpus,
        }) => {
            let options = doppel::eval::library::LibraryOptions {
                size,
                seed,
                many_copies,
            };
            let library = doppel::eval::library::make_library(&corpus, &options)?;
            library.write(&out)?;
            println!("{}: {}", out.display(), library.summary());
            Ok(())
        }
        Some(Command::Scan {
            dir,
            format,
            options,
        }) => scan(&load()?, &dir, format, &options),
        Some(Command::Compare { a, b, format }) => compare(&load()?, &a, &b, format),
        Some(Command::Watch {
            dir,
            jsonl: _,
            index,
            quiet_ms,
            until_eof,
        }) => watch_jsonl(&load()?, &dir, index, quiet_ms, until_eof),
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
            let fan_huang = doppel::eval::FanHuangConfig {
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
            &load()?,
            &cli.dir.unwrap_or_else(|| PathBuf::from(".")),
            &cli.options,
        ),
    }
}

/// `doppel config`: the configuration in effect, the built-in defaults, or
/// where the file is looked for.
fn print_config(explicit: Option<&Path>, defaults: bool, path: bool) -> Result<()> {
    let out = if defaults {
        doppel::config::DEFAULTS.to_owned()
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
/// options over it (floors lowered where a threshold is looser), and the
/// cluster-by verdict and mode.
fn settings(
    config: &Config,
    options: &ScanOptions,
) -> Result<(EngineConfig, LibraryConfig, ClusterBy, ClusterMode)> {
    let mut config = config.clone();
    if !options.algorithms.is_empty() {
        config.engine.enabled = options.algorithms.iter().copied().collect();
    }
    for &(id, value) in &options.thresholds {
        // A threshold looser than the floor lowers the floor, so the
        // candidates it needs are gathered.
        config.set_threshold(id, value);
    }
    let by = options.cluster_by.unwrap_or(config.clusters.by);
    if let ClusterBy::Algorithm(id) = by {
        anyhow::ensure!(
            config.engine.enabled.contains(&id),
            "clustering by {id} needs {id} among the algorithms computed \
             (--algorithms, or `enabled` in the config file)"
        );
    }
    let mode = match options.mode {
        Some(Mode::Components) => ClusterMode::Components,
        Some(Mode::Star) => ClusterMode::Star,
        None => config.clusters.mode,
    };
    Ok((config.engine, config.library, by, mode))
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
fn show_progress(bar: &indicatif::ProgressBar, p: doppel::index::ReadProgress) {
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
        let (engine, library, by, mode) = settings(config, options)?;
        let mut worker = doppel::worker::WorkerConfig::new(&root);
        worker.engine = engine;
        worker.library = library;
        worker.index_path = index_path(config, options.index.as_ref(), &root)?;
        worker.quiet = config.watch.quiet();
        worker.rescan_every = config.watch.rescan_every();
        worker.extra_ignores = config.ignore.clone();
        worker.cluster_by = by;
        worker.cluster_mode = mode;
        let initial = [
            doppel::worker::Command::SetClusterBy(by),
            doppel::worker::Command::SetMode(mode),
        ];
        return doppel::tui::run_with(worker, &initial);
    }
    scan(config, dir, Format::Text, options)
}

fn scan(config: &Config, dir: &Path, format: Format, options: &ScanOptions) -> Result<()> {
    let root = open_folder(dir)?;
    let (engine_config, library_config, by, mode) = settings(config, options)?;
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
        Format::Csv => report::csv(&report),
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
        Format::Json | Format::Csv => report::compare_json(&scores, &verdict, &exact, &engine)?,
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
    fan_huang: doppel::eval::FanHuangConfig,
    outputs: &EvalOutputs,
) -> Result<()> {
    let json = matches!(outputs.format, Format::Json);
    let out = if let Some((dir, truth)) = labelled {
        let engine = Engine::new(config.engine.clone());
        let spinner = spinner("scoring the labelled folder");
        let report = doppel::eval::truth(dir, truth, &engine);
        spinner.finish_and_clear();
        let report = report?;
        if json {
            report.to_json()?
        } else {
            report.to_text()
        }
    } else {
        let spinner = spinner("running the Fan & Huang protocol");
        let report = doppel::eval::fan_huang(&fan_huang, books);
        spinner.finish_and_clear();
        let report = report?;
        if let Some(path) = &outputs.csv {
            std::fs::write(path, report.to_csv())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if let Some(path) = &outputs.svg {
            report.write_svg(path)?;
        }
        if json {
            report.to_json()?
        } else {
            report.to_text()
        }
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// `doppel watch DIR --jsonl`: run the worker headless and print each
/// update as a JSON line, flushed at once. Clusters are reported when they
/// appear or change (consecutive snapshots compared), and when they dissolve.
fn watch_jsonl(
    config: &Config,
    dir: &Path,
    index: Option<PathBuf>,
    quiet_ms: Option<u64>,
    until_eof: bool,
) -> Result<()> {
    use doppel::worker::protocol::{Snapshot, Stage};
    use doppel::worker::{self, Update, WorkerConfig};
    use serde_json::json;
    use std::time::Duration;

    let root = open_folder(dir)?;
    let mut worker_config = WorkerConfig::new(&root);
    worker_config.engine = config.engine.clone();
    worker_config.library = config.library.clone();
    worker_config.index_path = index_path(config, index.as_ref(), &root)?;
    worker_config.quiet = quiet_ms.map_or_else(|| config.watch.quiet(), Duration::from_millis);
    worker_config.rescan_every = config.watch.rescan_every();
    worker_config.extra_ignores = config.ignore.clone();
    worker_config.cluster_by = config.clusters.by;
    worker_config.cluster_mode = config.clusters.mode;
    let handle = worker::spawn(worker_config);
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
    let print = |value: serde_json::Value| -> Result<()> {
        let mut out = stdout.lock();
        serde_json::to_writer(&mut out, &value)?;
        out.write_all(b"\n")?;
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
                    Some(json!({"event": "progress", "stage": stage, "done": p.done,
                                "total": p.total, "bytes": p.bytes}))
                }
            }
            Update::Snapshot(s) => {
                let current = clusters_of(&s);
                let mut members: Vec<&Vec<String>> = current.keys().collect();
                members.sort();
                for m in members {
                    let representative = &current[m];
                    if previous.get(m) != Some(representative) {
                        print(json!({"event": "cluster", "members": m,
                                     "representative": representative}))?;
                    }
                }
                let mut gone: Vec<&Vec<String>> = previous
                    .keys()
                    .filter(|m| !current.contains_key(*m))
                    .collect();
                gone.sort();
                for m in gone {
                    print(json!({"event": "cluster-gone", "members": m}))?;
                }
                previous = current;
                started = true;
                Some(json!({"event": "snapshot", "generation": s.generation,
                            "documents": s.documents, "clusters": s.clusters.len(),
                            "skipped": s.skipped.len()}))
            }
            Update::FileIndexed { path } => Some(json!({"event": "indexed", "path": path})),
            Update::FileRemoved { path } => Some(json!({"event": "removed", "path": path})),
            Update::FileSkipped { path, reason } => {
                Some(json!({"event": "skipped", "path": path, "reason": reason}))
            }
            Update::Watch(state) => {
                let mut value = serde_json::to_value(&state)?;
                value["event"] = json!("watch");
                Some(value)
            }
            Update::Error(message) => {
                if !started && failed.is_none() {
                    failed = Some(message.clone());
                }
                Some(json!({"event": "error", "message": message}))
            }
            Update::Pair(_) | Update::Diff(_) => None,
            Update::Stopped => {
                print(json!({"event": "stopped"}))?;
                if !started {
                    if let Some(message) = failed {
                        handle.join();
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
    handle.join();
    Ok(())
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
        let text = doppel::text::normalize(&decoded.text);
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
