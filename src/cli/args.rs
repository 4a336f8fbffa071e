//! The command line as clap reads it: the top level (`doppel [DIR]`), the
//! scan options, every command and its flags.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use doppel_core::engine::algo::{AlgorithmId, UnknownAlgorithm};
use doppel_core::engine::RelationKind;
use doppel_index::config::{cluster_by_name, parse_cluster_by, ClusterSettings};
use doppel_pairing::cluster::{ClusterBy, ClusterMode};

#[derive(Parser)]
#[command(
    name = "doppel",
    version,
    about = "Find and review near-duplicate documents in a folder of texts",
    override_usage = "doppel [OPTIONS] [DIR]\n       doppel [--config PATH] <COMMAND>"
)]
pub struct Cli {
    /// Read settings from this TOML file (default:
    /// $XDG_CONFIG_HOME/doppel/config.toml or the platform config folder,
    /// if it exists); see `doppel config --print-defaults`.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Append a log of what the index and the worker do to this file
    /// (filter with DOPPEL_LOG, e.g. `doppel=debug`; default `doppel=info`).
    /// Without it, DOPPEL_LOG alone logs to standard error (not under the
    /// terminal UI). Off by default.
    #[arg(long, global = true, value_name = "FILE")]
    pub log: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Folder to review (default: the current folder).
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub options: ScanOptions,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Mode {
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

/// What a scan prints: its format, and the pairs of which relations.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Print only pairs of these relations (comma-separated:
    /// duplicate, contains, related; clusters are not filtered).
    #[arg(long = "relation", value_delimiter = ',', value_name = "RELATIONS")]
    pub relations: Vec<RelationKind>,
}

/// How a scan judges and groups pairs (each overrides the config file).
#[derive(clap::Args)]
pub struct ScanOptions {
    #[command(flatten)]
    pub decision: DecisionOptions,
    /// Do not read or write a persistent index; fingerprint everything now.
    #[arg(long, conflicts_with_all = ["index", "store"])]
    pub no_index: bool,
    /// Your own boilerplate: every file in this folder (outside DIR) is
    /// left out of every document that carries its text (overrides the
    /// config file's boilerplate.user-dir).
    #[arg(long, value_name = "DIR")]
    pub boilerplate_dir: Option<PathBuf>,
}

impl ScanOptions {
    /// Only an index, as the commands that take no judging options give it.
    pub fn with_index(index: Option<PathBuf>) -> Self {
        DecisionOptions {
            cluster_by: None,
            algorithms: Vec::new(),
            thresholds: Vec::new(),
            mode: None,
            index,
            store: None,
        }
        .scan_options()
    }

    /// Whether any option was given.
    pub fn given(&self) -> bool {
        let Self {
            decision:
                DecisionOptions {
                    cluster_by,
                    algorithms,
                    thresholds,
                    mode,
                    index,
                    store,
                },
            no_index,
            boilerplate_dir,
        } = self;
        cluster_by.is_some()
            || !algorithms.is_empty()
            || !thresholds.is_empty()
            || mode.is_some()
            || index.is_some()
            || *no_index
            || boilerplate_dir.is_some()
            || store.is_some()
    }
}

/// How `act` and `manifest` judge clusters, and the part of the scan
/// options that is not `--no-index` (the decisions live in the index).
#[derive(clap::Args, Clone)]
pub struct DecisionOptions {
    #[arg(long, value_parser = parse_cluster_by, help = format!(
        "The verdict that defines clusters: `fusion` or an algorithm id (overrides the \
         config file's clusters.by) [default: {}]",
        cluster_by_name(ClusterSettings::default().by)
    ))]
    pub cluster_by: Option<ClusterBy>,
    /// Compute only these algorithms (comma-separated ids; overrides the
    /// config file's `enabled`, by default all).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<AlgorithmId>,
    /// Override a threshold, in the algorithm's unit and range, e.g.
    /// `--threshold minhash=0.8` (repeatable).
    #[arg(long = "threshold", value_parser = parse_threshold)]
    pub thresholds: Vec<(AlgorithmId, f64)>,
    #[arg(long, value_enum, help = format!(
        "Cluster mode (overrides the config file's clusters.mode) [default: {}]",
        doppel_index::config::mode_name(ClusterSettings::default().mode)
    ))]
    pub mode: Option<Mode>,
    /// Where the persistent index lives (default: the platform data folder,
    /// never inside DIR).
    #[arg(long, value_name = "PATH")]
    pub index: Option<PathBuf>,
    /// Keep the index in a PostgreSQL database shared by a team
    /// (`postgres://user@host/db`; the folder is one collection in it)
    /// instead of a file (overrides the config file's `store`).
    #[arg(long, value_name = "URL", conflicts_with = "index")]
    pub store: Option<String>,
}

impl DecisionOptions {
    /// The same settings as scan options (with the index).
    pub fn scan_options(&self) -> ScanOptions {
        ScanOptions {
            decision: self.clone(),
            no_index: false,
            boilerplate_dir: None,
        }
    }
}

/// What `ingest` fingerprints with (as every curator's scan of the
/// collection must, or their scan reads every file again) and where.
#[cfg(feature = "postgres")]
#[derive(clap::Args)]
pub struct IngestOptions {
    /// The PostgreSQL database every process shares
    /// (`postgres://user@host/db`; the folder is one collection in it).
    #[arg(long, value_name = "URL", required = true)]
    pub store: String,
    /// Compute only these algorithms (comma-separated ids; overrides the
    /// config file's `enabled`, by default all).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<AlgorithmId>,
    /// Override a threshold, in the algorithm's unit and range, e.g.
    /// `--threshold minhash=0.8` (repeatable).
    #[arg(long = "threshold", value_parser = parse_threshold)]
    pub thresholds: Vec<(AlgorithmId, f64)>,
    /// Your own boilerplate: every file in this folder (outside DIR) is
    /// left out of every document that carries its text (overrides the
    /// config file's boilerplate.user-dir).
    #[arg(long, value_name = "DIR")]
    pub boilerplate_dir: Option<PathBuf>,
}

#[cfg(feature = "postgres")]
impl IngestOptions {
    /// The same settings as scan options (through the store).
    pub fn scan_options(&self) -> ScanOptions {
        let mut options = ScanOptions::with_index(None);
        options.decision.algorithms = self.algorithms.clone();
        options.decision.thresholds = self.thresholds.clone();
        options.boilerplate_dir = self.boilerplate_dir.clone();
        options.decision.store = Some(self.store.clone());
        options
    }
}

/// Which clusters `act` and `manifest` take (default: all).
#[derive(clap::Args)]
pub struct FilterOptions {
    /// Only this cluster, by the id `doppel scan` gives it (repeatable).
    #[arg(long = "cluster", value_name = "ID")]
    pub clusters: Vec<usize>,
    /// Only clusters with a member under this path (relative to DIR).
    #[arg(long, value_name = "PREFIX")]
    pub under: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ManifestFormat {
    Csv,
    Json,
}

/// A flag's value that does not read: what clap prints after the flag.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// `--threshold` without `=`.
    #[error("expected ID=VALUE, got {0:?}")]
    NotIdValue(String),
    /// Not a number at all.
    #[error("{text:?} is not a number")]
    NotANumber {
        /// The value as given.
        text: String,
        /// What the parser said.
        #[source]
        error: std::num::ParseFloatError,
    },
    /// A threshold that is infinite or NaN.
    #[error("{0} is not a finite number")]
    NotFinite(f64),
    /// A threshold's id that is no algorithm's.
    #[error(transparent)]
    Algorithm(#[from] UnknownAlgorithm),
    /// A claim timeout that is not a positive, finite number of seconds.
    #[cfg(feature = "postgres")]
    #[error("{0} is not a positive number of seconds")]
    NotPositiveSeconds(String),
}

/// A number, or why it is none.
fn number(text: &str) -> Result<f64, ValueError> {
    text.parse().map_err(|error| ValueError::NotANumber {
        text: text.to_owned(),
        error,
    })
}

pub fn parse_threshold(s: &str) -> Result<(AlgorithmId, f64), ValueError> {
    let (id, value) = s
        .split_once('=')
        .ok_or_else(|| ValueError::NotIdValue(s.to_owned()))?;
    let value = number(value)?;
    if !value.is_finite() {
        return Err(ValueError::NotFinite(value));
    }
    Ok((id.parse()?, value))
}

/// A claim timeout in seconds: positive and finite.
#[cfg(feature = "postgres")]
fn parse_claim_timeout(s: &str) -> Result<f64, ValueError> {
    let secs = number(s)?;
    if !(secs.is_finite() && secs > 0.0) {
        return Err(ValueError::NotPositiveSeconds(s.to_owned()));
    }
    Ok(secs)
}

#[derive(Subcommand)]
pub enum Command {
    /// Scan a folder and print its duplicate clusters and pairs.
    Scan {
        /// Folder to scan.
        dir: PathBuf,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        options: ScanOptions,
    },
    /// List the boilerplate learned from a folder (licences, notices,
    /// repeated front matter left out of what every algorithm compares).
    Boilerplate {
        /// Folder to scan.
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: ListFormat,
        /// Where the persistent index lives (default: the platform data
        /// folder, never inside DIR).
        #[arg(long, value_name = "PATH")]
        index: Option<PathBuf>,
        /// Keep the index in a PostgreSQL database shared by a team
        /// (`postgres://user@host/db`) instead of a file (overrides the
        /// config file's `store`).
        #[arg(long, value_name = "URL", conflicts_with = "index")]
        store: Option<String>,
        /// Do not read or write a persistent index; learn from every file now.
        #[arg(long, conflicts_with_all = ["index", "store"])]
        no_index: bool,
        /// Your own boilerplate: every file in this folder (outside DIR) is
        /// left out of every document that carries its text (overrides the
        /// config file's boilerplate.user-dir).
        #[arg(long, value_name = "DIR")]
        boilerplate_dir: Option<PathBuf>,
        /// Rule that passage N of the list is not boilerplate: it is left
        /// in every document again (kept in the index; the documents it
        /// moves are fingerprinted again from the texts the index keeps,
        /// without reading a file).
        #[arg(long, value_name = "N", conflicts_with_all = ["no_index", "restore"])]
        overrule: Option<usize>,
        /// Undo the overrule of passage N of the list.
        #[arg(long, value_name = "N", conflicts_with = "no_index")]
        restore: Option<usize>,
    },
    /// Fingerprint a share of a folder into a PostgreSQL store, splitting
    /// the work with every other `doppel ingest` on the same folder and
    /// database (each file read once; a stopped process's files taken
    /// over), then pair it (one process does).
    #[cfg(feature = "postgres")]
    Ingest {
        /// Folder to ingest (the same path on every machine).
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: ListFormat,
        /// A claim whose process has not shown signs of life for this
        /// many seconds is taken over.
        #[arg(long, value_name = "SECS", default_value_t = 30.0,
              value_parser = parse_claim_timeout)]
        claim_timeout: f64,
        /// Files claimed at a time (tests: small, so processes interleave).
        #[arg(long, hide = true, value_name = "N", default_value_t = 1024,
              value_parser = clap::value_parser!(u32).range(1..))]
        claim_files: u32,
        #[command(flatten)]
        options: IngestOptions,
    },
    /// Write the scan as one self-contained HTML file for colleagues:
    /// clusters, members, every pair's scores, verdicts and word diff.
    Report {
        /// Folder to scan.
        dir: PathBuf,
        /// The HTML file to write (never inside DIR).
        #[arg(long, value_name = "OUT.html", required = true)]
        html: PathBuf,
        /// Replace OUT.html if it exists.
        #[arg(long)]
        force: bool,
        /// Print only pairs of these relations (comma-separated:
        /// duplicate, contains, related; clusters are not filtered).
        #[arg(long = "relation", value_delimiter = ',', value_name = "RELATIONS")]
        relations: Vec<RelationKind>,
        #[command(flatten)]
        options: ScanOptions,
    },
    /// Move the files the curator's decisions mark (every member of a
    /// cluster but the kept one) to a quarantine folder, journalled so
    /// `doppel undo` puts them back. Prints the plan first; moves only with
    /// --yes or a "y" at the prompt.
    Act {
        /// Folder whose decisions to act on (its index holds them).
        dir: PathBuf,
        /// The quarantine folder (never inside DIR; default: the config
        /// file's quarantine-dir).
        #[arg(long, value_name = "QUARANTINE")]
        to: Option<PathBuf>,
        /// Only print the plan.
        #[arg(long, conflicts_with = "yes")]
        dry_run: bool,
        /// Move without asking.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        filter: FilterOptions,
        #[command(flatten)]
        options: DecisionOptions,
    },
    /// Put back every file a `doppel act` moved: from one journal, or from
    /// every journal in a quarantine folder not yet undone. A file that has
    /// reappeared at its old path is never overwritten. Files go back only
    /// into the folder a journal was written for, and only when doppel
    /// recorded that act, or --folder names that folder.
    #[command(group(clap::ArgGroup::new("from").required(true)))]
    Undo {
        /// The journal `doppel act` printed.
        #[arg(value_name = "JOURNAL", group = "from")]
        journal: Option<PathBuf>,
        /// Undo every open journal in this quarantine folder, newest first.
        #[arg(long, value_name = "QUARANTINE", group = "from")]
        to: Option<PathBuf>,
        /// Put files back into this folder only: a journal written for
        /// another is refused (default: the folder doppel recorded when it
        /// moved them; a journal it has no record of is refused).
        #[arg(long, value_name = "DIR")]
        folder: Option<PathBuf>,
    },
    /// Write the curator's decisions as CSV or JSON, moving nothing: per
    /// cluster member, whether it is kept, what it duplicates, the verdict
    /// and every algorithm's score against the kept one.
    Manifest {
        /// Folder whose decisions to write (its index holds them).
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "csv")]
        format: ManifestFormat,
        /// Write to this file (never inside DIR) instead of standard output.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        filter: FilterOptions,
        #[command(flatten)]
        options: DecisionOptions,
    },
    /// Score two files with every algorithm, with the exact measures,
    /// judged as a scan of their folder judges them: without the
    /// boilerplate its index learned (the index of the nearest folder
    /// holding both files, if it has one) and your own.
    Compare {
        /// First file.
        a: PathBuf,
        /// Second file.
        b: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Take the learned boilerplate from this index (its folder must
        /// hold both files; default: the index of the nearest folder that
        /// holds them, if it has one).
        #[arg(long, value_name = "PATH")]
        index: Option<PathBuf>,
        /// Learn no boilerplate from an index: leave out only your own
        /// (--boilerplate-dir).
        #[arg(long, conflicts_with = "index")]
        no_index: bool,
        /// Your own boilerplate: every file in this folder is left out of
        /// either file that carries its text (overrides the config file's
        /// boilerplate.user-dir).
        #[arg(long, value_name = "DIR")]
        boilerplate_dir: Option<PathBuf>,
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
        doppel_index::worker::protocol::jsonl_event::ALL.join(", ")
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
        /// Keep the index in a PostgreSQL database shared by a team
        /// (`postgres://user@host/db`) instead of a file (overrides the
        /// config file's `store`); changes other processes make to it show
        /// here as they are committed.
        #[arg(long, value_name = "URL", conflicts_with = "index")]
        store: Option<String>,
        #[arg(long, value_name = "MS", help = format!(
            "Quiet period before a changed file is read, in milliseconds (overrides the \
             config file's watch.quiet-ms); it doubles, up to {} ms, for a file that keeps \
             changing or that a writer still has open [default: {}]",
            doppel_index::watch::MAX_QUIET.as_millis(),
            doppel_index::watch::DEFAULT_QUIET.as_millis()
        ))]
        quiet_ms: Option<u64>,
        /// Also stop when standard input reaches end of file.
        #[arg(long)]
        until_eof: bool,
        /// Your own boilerplate: every file in this folder (outside DIR) is
        /// left out of every document that carries its text (overrides the
        /// config file's boilerplate.user-dir).
        #[arg(long, value_name = "DIR")]
        boilerplate_dir: Option<PathBuf>,
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
    /// Run a scan as Apache DataFusion plans: the same report as
    /// `scan --no-index`, read on several partitions, written as Parquet.
    #[cfg(feature = "cluster")]
    Cluster {
        #[command(subcommand)]
        command: ClusterCommand,
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
    /// truth (maintainers; see `doppel_eval::library`).
    #[command(hide = true)]
    MakeLibrary {
        out: PathBuf,
        /// `small` (every relation, ~1 MB) or `large` (~11 MB + hard cases).
        #[arg(long, default_value = "small")]
        size: doppel_eval::library::LibrarySize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also add this many lightly edited copies of one text.
        #[arg(long, default_value_t = 0)]
        many_copies: usize,
        /// The public-domain books to draw from (default: the repository's).
        #[arg(long, value_name = "DIR", default_value = DEFAULT_BOOKS)]
        corpus: PathBuf,
    },
}

/// Where `doppel eval` and `make-library` look for books without `--books`
/// or `--corpus`: the repository's 46 public-domain books, when run from its
/// root (a clone has nothing beside it).
pub const DEFAULT_BOOKS: &str = "tests/data/corpus";

/// `doppel cluster`: the scan as DataFusion plans (the `cluster` feature).
#[cfg(feature = "cluster")]
#[derive(Subcommand)]
pub enum ClusterCommand {
    /// Scan a folder (or a manifest's documents) as DataFusion plans and
    /// print the report `scan --no-index` prints (the same bytes; with
    /// --store or --index, into that index as `scan` does, reading only
    /// what is new or changed), optionally writing it as Parquet
    /// (documents, pairs with every score, clusters).
    #[command(group(clap::ArgGroup::new("runner").required(true).args(["local", "scheduler"])))]
    Scan {
        /// Folder to scan, or a manifest file listing the documents
        /// beneath its own folder: a path per line, or a BagIt
        /// manifest-<alg>.txt (with --scheduler, at the same path on every
        /// executor's machine).
        #[arg(value_name = "SOURCE")]
        dir: PathBuf,
        /// Run the plans in this process.
        #[arg(long)]
        local: bool,
        /// Run the plans on the executors of the `doppel cluster
        /// scheduler` at HOST:PORT.
        #[arg(long, value_name = "HOST:PORT")]
        scheduler: Option<String>,
        /// Seconds a job on the scheduler may find no executor there
        /// (none joined yet, or every one lost) before the scan gives up.
        #[arg(long, value_name = "SECS", default_value_t = 60, requires = "scheduler",
              value_parser = clap::value_parser!(u64).range(1..))]
        wait_for_executors: u64,
        /// Partitions the folder's listing is dealt to (default: one per
        /// core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        partitions: Option<u32>,
        /// Documents in one batch of the listing at most.
        #[arg(long, value_name = "N", default_value_t = 1024,
              value_parser = clap::value_parser!(u32).range(1..))]
        batch_files: u32,
        /// Documents in one job on a scheduler at most (default: as many
        /// as fit in a plan; a larger folder runs as several jobs).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        job_files: Option<u32>,
        /// Also write documents.parquet, pairs.parquet and clusters.parquet
        /// in this folder (made if missing; outside DIR).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        options: ScanOptions,
    },
    /// Run a Ballista scheduler that plans `cluster scan`s, until stopped.
    Scheduler {
        /// Address to listen on.
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:50050")]
        bind: std::net::SocketAddr,
        /// Seconds without an executor's heartbeat before its tasks are
        /// run again on the others (longer than the executors'
        /// --heartbeat).
        #[arg(long, value_name = "SECS", default_value_t = 180,
              value_parser = clap::value_parser!(u64).range(1..))]
        executor_timeout: u64,
    },
    /// Run a Ballista executor that reads for a scheduler, until stopped.
    Executor {
        /// The scheduler's address.
        #[arg(long, value_name = "HOST:PORT")]
        scheduler: String,
        /// Address its data service listens on (its task service on
        /// --grpc-port).
        #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:50051")]
        bind: std::net::SocketAddr,
        /// Port of its task service (default: the --bind port plus one).
        #[arg(long, value_name = "PORT")]
        grpc_port: Option<u16>,
        /// Tasks it runs at once (default: one per core).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        tasks: Option<u32>,
        /// A folder scans may name for it to read, and what is beneath
        /// it (repeat for more); it refuses any other a client names.
        #[arg(long, value_name = "DIR", required = true)]
        allow: Vec<PathBuf>,
        /// Seconds between its heartbeats to the scheduler (shorter than
        /// the scheduler's --executor-timeout).
        #[arg(long, value_name = "SECS", default_value_t = 60,
              value_parser = clap::value_parser!(u64).range(1..))]
        heartbeat: u64,
        /// Where it keeps the results of its tasks until they are fetched:
        /// a fresh folder made inside DIR and removed when it stops
        /// (default: the system's temporary folder).
        #[arg(long, value_name = "DIR")]
        work_dir: Option<PathBuf>,
    },
}

/// `doppel index`: the index files in the index folder (the config's
/// `index-dir`, else the platform data folder).
#[derive(Subcommand)]
pub enum IndexCommand {
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
pub enum ListFormat {
    Text,
    Json,
}
