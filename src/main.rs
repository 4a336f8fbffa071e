//! The `doppel` command line: `doppel [DIR]` reviews a folder, `doppel scan`
//! prints its clusters, `doppel compare A B` scores two files with every
//! algorithm.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use doppel::algo::AlgorithmId;
use doppel::collection::{list_files, read_text, DEFAULT_SIZE_CAP};
use doppel::engine::{Engine, EngineConfig};
use doppel::index::FolderIndex;
use doppel::library::{ClusterBy, ClusterMode, ClusterSpec, LibraryConfig};
use doppel::measure::exact_measures;
use doppel::report;
use doppel::scan::{scan_folder, ScanReport};
use doppel::stats::CollectionStats;

#[derive(Parser)]
#[command(
    name = "doppel",
    version,
    about = "Find and review near-duplicate documents in a folder of texts"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
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

/// How a scan judges and groups pairs.
#[derive(clap::Args)]
struct ScanOptions {
    /// The verdict that defines clusters: `fusion` or an algorithm id.
    #[arg(long, default_value = "fusion", value_parser = parse_cluster_by)]
    cluster_by: ClusterBy,
    /// Compute only these algorithms (comma-separated ids; default: all).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<AlgorithmId>,
    /// Override a threshold, e.g. `--threshold minhash=0.8` (repeatable).
    #[arg(long = "threshold", value_parser = parse_threshold)]
    thresholds: Vec<(AlgorithmId, f64)>,
    /// Cluster mode.
    #[arg(long, value_enum, default_value = "components")]
    mode: Mode,
    /// Where the persistent index lives (default: the platform data folder,
    /// never inside DIR).
    #[arg(long, value_name = "PATH")]
    index: Option<PathBuf>,
    /// Do not read or write a persistent index; fingerprint everything now.
    #[arg(long, conflicts_with = "index")]
    no_index: bool,
}

fn parse_cluster_by(s: &str) -> Result<ClusterBy, String> {
    if s == "fusion" {
        Ok(ClusterBy::Fusion)
    } else {
        s.parse().map(ClusterBy::Algorithm)
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
        /// Quiet period before a changed file is read, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 300)]
        quiet_ms: u64,
        /// Also stop when standard input reaches end of file.
        #[arg(long)]
        until_eof: bool,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Scan {
            dir,
            format,
            options,
        }) => scan(&dir, format, &options),
        Some(Command::Compare { a, b, format }) => compare(&a, &b, format),
        Some(Command::IdfTable { dir, chunk, min_df }) => idf_table(&dir, chunk, min_df),
        Some(Command::Watch {
            dir,
            jsonl: _,
            index,
            quiet_ms,
            until_eof,
        }) => watch_jsonl(&dir, index, quiet_ms, until_eof),
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
            let config = doppel::eval::FanHuangConfig {
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
                dir.as_deref().zip(truth.as_deref()),
                &books,
                config,
                &outputs,
            )
        }
        None => review(&cli.dir.unwrap_or_else(|| PathBuf::from(".")), &cli.options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("doppel: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The configuration the scan options ask for: engine, library (floors
/// lowered where a threshold is looser than the default floor) and the
/// cluster-by verdict and mode.
fn settings(
    options: &ScanOptions,
) -> Result<(EngineConfig, LibraryConfig, ClusterBy, ClusterMode)> {
    let mut config = EngineConfig::default();
    if !options.algorithms.is_empty() {
        config.enabled = options.algorithms.iter().copied().collect();
    }
    if let ClusterBy::Algorithm(id) = options.cluster_by {
        anyhow::ensure!(
            config.enabled.contains(&id),
            "--cluster-by {id} needs {id} in --algorithms"
        );
    }
    let mut library_config = LibraryConfig::default();
    for &(id, value) in &options.thresholds {
        config.thresholds.set(id, value);
        // A threshold looser than the default floor lowers the floor, so the
        // candidates it needs are gathered.
        if !library_config.floors.allows(id, value) {
            library_config.floors.set(id, value);
        }
    }
    let mode = match options.mode {
        Mode::Components => ClusterMode::Components,
        Mode::Star => ClusterMode::Star,
    };
    Ok((config, library_config, options.cluster_by, mode))
}

/// `doppel [DIR]`: the terminal UI when stdout is a terminal (and the `tui`
/// feature is built), otherwise the text report.
fn review(dir: &Path, options: &ScanOptions) -> Result<()> {
    #[cfg(feature = "tui")]
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) && !options.no_index {
        let root = dir
            .canonicalize()
            .with_context(|| format!("cannot open folder {}", dir.display()))?;
        anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
        let (engine, library, by, mode) = settings(options)?;
        let mut config = doppel::worker::WorkerConfig::new(&root);
        config.engine = engine;
        config.library = library;
        config.index_path = options.index.clone();
        let initial = [
            doppel::worker::Command::SetClusterBy(by),
            doppel::worker::Command::SetMode(mode),
        ];
        return doppel::tui::run_with(config, &initial);
    }
    scan(dir, Format::Text, options)
}

fn scan(dir: &Path, format: Format, options: &ScanOptions) -> Result<()> {
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot open folder {}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
    let (engine_config, library_config, by, mode) = settings(options)?;
    let engine = Engine::new(engine_config.clone());
    let spec = ClusterSpec {
        by,
        mode,
        ..ClusterSpec::from_engine(&engine)
    };
    let report = if options.no_index {
        scan_folder(
            &root,
            &engine,
            engine.reference_weights(),
            library_config,
            spec,
        )
    } else {
        let (mut index, opened) =
            FolderIndex::open(&root, engine, library_config, options.index.as_deref())?;
        for message in opened.messages() {
            eprintln!("doppel: {message}");
        }
        index.reconcile()?;
        ScanReport::from_index(&index, spec)?
    };
    let out = match format {
        Format::Text => report::text(&report),
        Format::Json => report::json(&report, &root, &engine_config)?,
        Format::Csv => report::csv(&report),
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

fn compare(a: &Path, b: &Path, format: Format) -> Result<()> {
    let engine = Engine::new(EngineConfig::default());
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
    labelled: Option<(&Path, &Path)>,
    books: &Path,
    config: doppel::eval::FanHuangConfig,
    outputs: &EvalOutputs,
) -> Result<()> {
    let json = matches!(outputs.format, Format::Json);
    let out = if let Some((dir, truth)) = labelled {
        let engine = Engine::new(EngineConfig::default());
        let report = doppel::eval::truth(dir, truth, &engine)?;
        if json {
            report.to_json()?
        } else {
            report.to_text()
        }
    } else {
        let report = doppel::eval::fan_huang(&config, books)?;
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
fn watch_jsonl(dir: &Path, index: Option<PathBuf>, quiet_ms: u64, until_eof: bool) -> Result<()> {
    use doppel::worker::protocol::{Snapshot, Stage};
    use doppel::worker::{self, Update, WorkerConfig};
    use serde_json::json;

    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot open folder {}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
    let mut config = WorkerConfig::new(root);
    config.index_path = index;
    config.quiet = std::time::Duration::from_millis(quiet_ms);
    let handle = worker::spawn(config);
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
