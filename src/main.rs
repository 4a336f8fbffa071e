//! The `doppel` command line: `doppel [DIR]` reviews a folder, `doppel scan`
//! prints its clusters, `doppel compare A B` scores two files with every
//! algorithm.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use doppel::collection::{list_files, read_text, DEFAULT_SIZE_CAP};
use doppel::engine::{Engine, EngineConfig};
use doppel::measure::exact_measures;
use doppel::report;
use doppel::scan::scan_folder;
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
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Scan a folder and print its duplicate clusters and pairs.
    Scan {
        dir: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Score two files with every algorithm, with the exact measures.
    Compare {
        a: PathBuf,
        b: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
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
        Some(Command::Scan { dir, format }) => scan(&dir, format),
        Some(Command::Compare { a, b, format }) => compare(&a, &b, format),
        Some(Command::IdfTable { dir, chunk, min_df }) => idf_table(&dir, chunk, min_df),
        None => scan(&cli.dir.unwrap_or_else(|| PathBuf::from(".")), Format::Text),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("doppel: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn scan(dir: &Path, format: Format) -> Result<()> {
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot open folder {}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{} is not a folder", root.display());
    let engine = Engine::new(EngineConfig::default());
    let report = scan_folder(&root, &engine, engine.reference_weights());
    let out = match format {
        Format::Text => report::text(&report, &engine),
        Format::Json => report::json(&report, &root, &engine)?,
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
        Format::Json => report::compare_json(&scores, &verdict, &exact, &engine)?,
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
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
