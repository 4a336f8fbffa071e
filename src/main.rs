//! The `doppel` command line, as a table of contents: `doppel [DIR]`
//! reviews a folder ([`cli::review`]), `scan` prints its clusters
//! ([`cli::scan`]), `report --html` writes them as one page
//! ([`cli::report`]), `act`, `undo` and `manifest` carry out the curator's
//! decisions ([`cli::act`]), `watch --jsonl` follows it headless
//! ([`cli::watch_jsonl`]), `compare` scores two files ([`cli::compare`]),
//! `eval` measures precision and recall ([`cli::eval`]), `config` shows the
//! settings ([`cli::config`]), `index` lists and removes index files
//! ([`cli::index`]); hidden, `idf-table` and `make-library` for
//! maintainers. The flags are [`cli::args`]; every command starts from the
//! configuration file, the flags over it ([`cli::settings`]); `--log`
//! is [`cli::log`], usage errors [`cli::usage`].

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

use doppel_index::config::Config;

mod cli;

/// mimalloc: the pipeline makes many small, short-lived allocations on
/// several threads at once, where glibc's allocator spent 8-12 % of a
/// scan's CPU (BENCHMARKS, "Three stages, deferred filing, decoding and
/// the allocator"). Built without transparent huge pages (`no_thp`): where
/// the kernel grants them on request, zeroing a fresh 2 MiB page per fault
/// was 11-24 % of a small scan's CPU, and the peak 40 MiB higher
/// (BENCHMARKS, "Cache misses of the candidate checks").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's way to give freed memory back at once (`runtime::memory`).
fn release_freed() {
    // SAFETY: `mi_collect` takes no pointer and may be called at any time
    // from any thread.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_collect(true)
    }
}

use cli::args::{Cli, Command, ScanOptions};
use cli::{settings, usage};

fn main() -> ExitCode {
    doppel_index::memory::set_release(release_freed);
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
    let under_tui = cli.command.is_none() && std::io::stdout().is_terminal();
    if let Err(err) = cli::log::init(cli.log.as_deref(), under_tui) {
        eprintln!("doppel: {}", one_line(&err));
        return ExitCode::FAILURE;
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`doppel scan … | head`) is not an
        // error: end quietly, as grep and ripgrep do.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => match err.downcast_ref::<usage::UsageError>() {
            Some(usage) => usage_error(ErrorKind::ValueValidation, usage),
            None if is_busy(&err) => {
                eprintln!(
                    "doppel: index is busy: another doppel is using it; try again once it is done \
                     ({})",
                    one_line(&err)
                );
                ExitCode::from(EXIT_BUSY)
            }
            None => {
                eprintln!("doppel: {}", one_line(&err));
                ExitCode::FAILURE
            }
        },
    }
}

/// `err` and its causes on one line, each after a `: `, as anyhow's
/// `{:#}` writes them, except that a cause the line already says ends it:
/// doppel's errors say their cause in their own message, and keep it as
/// their source too (for whoever walks the chain), so writing it again
/// would repeat it, and what it wraps is said there as well. So is a
/// PostgreSQL client's error, which a store error says in a line of its
/// own (the server's message and SQLSTATE, never its multi-line detail).
fn one_line(err: &anyhow::Error) -> String {
    let mut line = err.to_string();
    for cause in err.chain().skip(1) {
        #[cfg(feature = "postgres")]
        if cause.is::<postgres::Error>() {
            break;
        }
        let said = cause.to_string();
        if line.contains(&said) {
            break;
        }
        line.push_str(": ");
        line.push_str(&said);
    }
    line
}

/// The exit status when the index is busy: another process held it
/// longer than the store waits (README's Usage lists it).
const EXIT_BUSY: u8 = 3;

/// Whether `err` is an index another process holds.
fn is_busy(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<doppel_store::StoreError>()
            .is_some_and(|e| e.is_busy())
            || cause
                .downcast_ref::<doppel_index::index::IndexError>()
                .is_some_and(|e| e.is_busy())
    })
}

/// Whether `err` comes from writing to a pipe whose reader has gone.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Exit as clap does on a usage error ([`usage::exit`]).
fn usage_error(kind: ErrorKind, message: impl std::fmt::Display) -> ! {
    usage::exit(Cli::command(), kind, message)
}

fn run(cli: Cli) -> Result<()> {
    // `doppel config`, `idf-table` and `make-library` run without (or despite) a config file.
    let load = || Config::load(cli.config.as_deref());
    let load_with = |options: &ScanOptions| settings::with_options(load()?, options);
    match cli.command {
        Some(Command::Config {
            print_defaults,
            path,
        }) => cli::config::print_config(cli.config.as_deref(), print_defaults, path),
        Some(Command::IdfTable { dir, chunk, min_df }) => {
            cli::idf_table::idf_table(&dir, chunk, min_df)
        }
        Some(Command::Index { command }) => cli::index::index_command(&load()?, command),
        #[cfg(feature = "cluster")]
        Some(Command::Cluster { command }) => cli::cluster::run(command, &load_with),
        Some(Command::MakeLibrary {
            out,
            size,
            seed,
            many_copies,
            corpus,
        }) => {
            let options = doppel_eval::library::LibraryOptions {
                size,
                seed,
                many_copies,
            };
            cli::eval::make(&out, &corpus, &options)
        }
        Some(Command::Scan {
            dir,
            report,
            options,
        }) => cli::scan::scan(&load_with(&options)?, &dir, &report, &options),
        Some(Command::Boilerplate {
            dir,
            format,
            index,
            store,
            no_index,
            boilerplate_dir,
            overrule,
            restore,
        }) => {
            let ruling = match (overrule, restore) {
                (Some(n), _) => Some(cli::scan::Ruling::Overrule(n)),
                (None, Some(n)) => Some(cli::scan::Ruling::Restore(n)),
                (None, None) => None,
            };
            let mut options = ScanOptions {
                no_index,
                boilerplate_dir,
                ..ScanOptions::with_index(index)
            };
            options.decision.store = store;
            cli::scan::boilerplate(&load_with(&options)?, &dir, format, &options, ruling)
        }
        #[cfg(feature = "postgres")]
        Some(Command::Ingest {
            dir,
            format,
            claim_timeout,
            claim_files,
            options,
        }) => cli::ingest::ingest(
            &load_with(&options.scan_options())?,
            &dir,
            format,
            &options.store,
            std::time::Duration::from_secs_f64(claim_timeout),
            claim_files as usize,
        ),
        Some(Command::Report {
            dir,
            html,
            force,
            relations,
            options,
        }) => cli::report::html(
            &load_with(&options)?,
            &dir,
            &html,
            force,
            &relations,
            &options,
        ),
        Some(Command::Act {
            dir,
            to,
            dry_run,
            yes,
            filter,
            options,
        }) => {
            let confirm = match (dry_run, yes) {
                (true, _) => cli::act::Confirm::DryRun,
                (false, true) => cli::act::Confirm::Yes,
                (false, false) => cli::act::Confirm::Ask,
            };
            cli::act::act_command(load()?, &dir, to.as_deref(), confirm, &filter, &options)
        }
        Some(Command::Undo {
            journal,
            to,
            folder,
        }) => cli::act::undo_command(journal.as_deref(), to.as_deref(), folder.as_deref()),
        Some(Command::Manifest {
            dir,
            format,
            output,
            filter,
            options,
        }) => cli::act::manifest_command(load()?, &dir, format, output.as_ref(), &filter, &options),
        Some(Command::Compare {
            a,
            b,
            format,
            index,
            no_index,
            boilerplate_dir,
        }) => {
            let options = ScanOptions {
                no_index,
                boilerplate_dir,
                ..ScanOptions::with_index(index)
            };
            cli::compare::compare(&load_with(&options)?, &a, &b, format, &options)
        }
        Some(Command::Watch {
            dir,
            jsonl: _,
            index,
            store,
            quiet_ms,
            until_eof,
            boilerplate_dir,
        }) => {
            let mut config = load()?;
            if let Some(ms) = quiet_ms {
                config.watch.quiet_ms = ms;
            }
            if boilerplate_dir.is_some() {
                config.library.boilerplate.user_dir = boilerplate_dir;
            }
            cli::watch_jsonl::watch_jsonl(
                &usage::checked(config, &[])?,
                &dir,
                index,
                store.as_deref(),
                until_eof,
            )
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
            let fan_huang = doppel_eval::FanHuangConfig {
                engine: config.engine.clone(),
                sources,
                copies,
                edit_min,
                edit_max,
                background,
                seed,
                ..Default::default()
            };
            let outputs = cli::eval::EvalOutputs { csv, svg, format };
            cli::eval::eval(
                &config,
                dir.as_deref().zip(truth.as_deref()),
                &books,
                fan_huang,
                &outputs,
            )
        }
        None => cli::review::review(
            &load_with(&cli.options)?,
            cli.config.as_deref(),
            &cli.dir.unwrap_or_else(|| PathBuf::from(".")),
            &cli.options,
        ),
    }
}
