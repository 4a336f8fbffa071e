//! `doppel ingest DIR --store postgres://…`: this process's share of a
//! collection's fingerprinting, split with every other `doppel ingest` on
//! the same folder and database through the store's claims
//! ([`doppel_index::index::IngestOptions`]), then the pairing pass when
//! this process is the one to run it (or once the one running it stopped
//! before it was done); prints how many files it fingerprinted and how
//! many the others did.
//!
//! Losing the database (a restart, the network) pauses it, as it pauses
//! `watch`: it says so on stderr, tries to reconnect after a delay that
//! doubles from [`FIRST_RETRY`] up to [`MAX_RETRY`], and once the server
//! answers says it resumed and goes on where it was (the files it claimed
//! and did not write are given back and claimed again), for as long as it
//! takes. Only a server never reached is an error at once.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use doppel_core::engine::Engine;
use doppel_index::config::Config;
use doppel_index::index::{
    pair_when_done, FolderIndex, IndexError, IngestOptions, Paired, ShareReport,
};
use doppel_store::{StoreAddress, StoreError};

use super::args::ListFormat;
use super::progress::spinner;
use super::settings::{open_folder, settings, store_flag};

/// The hidden test hook: with this variable set, the process stops (and
/// waits to be killed) right after its first claim, holding it.
const HOLD_AFTER_CLAIM: &str = "DOPPEL_TEST_HOLD_AFTER_CLAIM";

/// The hidden test hook: with this variable set, the process says so
/// after each claim and reads a line of its standard input before it
/// reads the claimed files (until the input ends), so a test acts while
/// it holds claims.
const STEP_AFTER_CLAIM: &str = "DOPPEL_TEST_STEP_AFTER_CLAIM";

/// The hidden test hook: with this variable set, the process stops (and
/// waits to be killed) once it holds the pairing lock, before it pairs.
const HOLD_WHILE_PAIRING: &str = "DOPPEL_TEST_HOLD_WHILE_PAIRING";

/// The first wait before trying an unreachable database again.
const FIRST_RETRY: Duration = Duration::from_millis(250);

/// The longest wait between two tries (as a review screen's listener):
/// the process goes on at most this late after the server is back.
const MAX_RETRY: Duration = Duration::from_secs(2);

/// Take part in ingesting `dir` into the store `options` names.
pub fn ingest(
    config: &Config,
    dir: &Path,
    format: ListFormat,
    store: &str,
    claim_timeout: Duration,
    claim_files: usize,
) -> Result<()> {
    let root = open_folder(dir)?;
    let address = store_flag(store)?;
    if let StoreAddress::File(_) = address {
        // Refused before a file is made there.
        return Err(doppel_index::index::IndexError::NeedsTeamStore.into());
    }
    let (engine_config, library_config, _, _) = settings(config);
    // The share's open loads and pairs no stored document (others add
    // documents meanwhile); the pairing pass's open pairs them all.
    let open = |to_pair: bool| -> Result<FolderIndex> {
        let engine = Engine::new(engine_config.clone());
        let open = if to_pair {
            FolderIndex::open_at
        } else {
            FolderIndex::open_to_share
        };
        let (mut index, opened) = open(
            &root,
            engine,
            library_config.clone(),
            &address,
            &config.curator(),
        )?;
        for message in opened.messages() {
            eprintln!("doppel: {message}");
        }
        index.set_extra_ignores(config.ignore.clone());
        index.set_page_folders(config.books.page_folders);
        index.set_read_limits(config.reading.limits());
        Ok(index)
    };
    // A server that never answered is a mistake in the address, not an
    // outage: said at once.
    let mut index = Some(open(false)?);
    let (team, collection) = index
        .as_mut()
        .and_then(FolderIndex::team_place)
        .expect("opened on a team store");
    let share_options = IngestOptions {
        chunk_files: claim_files,
        ..IngestOptions::for_this_process(claim_timeout)
    };
    let hold = std::env::var_os(HOLD_AFTER_CLAIM).is_some();
    let mut step = std::env::var_os(STEP_AFTER_CLAIM).is_some();
    let bar = spinner("fingerprinting");
    let say = |line: &str| bar.suspend(|| eprintln!("doppel: {line}"));
    let mut after_claim = |files: usize| {
        bar.inc(files as u64);
        if hold {
            eprintln!("doppel: holding {files} claimed files");
            loop {
                std::thread::park();
            }
        }
        if step {
            eprintln!("doppel: claimed {files} files");
            let mut line = String::new();
            // The input's end lets the process run on.
            step = std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0);
        }
    };
    let started = std::time::Instant::now();
    let mut share = ShareReport::default();
    let mut fingerprinting = Duration::ZERO;
    let paired = loop {
        // One go at the share and the pairing step; after an outage, both
        // again (what was written stays written).
        let attempt = (|| {
            let mut shared = match index.take() {
                Some(index) => index,
                None => open(false)?,
            };
            bar.set_message("fingerprinting");
            shared.fingerprint_share_into(&share_options, &mut share, &mut after_claim)?;
            // The pairing pass opens the collection afresh, with every
            // document.
            drop(shared);
            fingerprinting = started.elapsed();
            bar.set_message("pairing");
            pair_when_done(
                &team,
                collection,
                &share,
                || {
                    say("another process is pairing the collection: waiting, to take over if it stops")
                },
                || {
                    if std::env::var_os(HOLD_WHILE_PAIRING).is_some() {
                        eprintln!("doppel: holding the pairing lock");
                        loop {
                            std::thread::park();
                        }
                    }
                    let mut index = open(true)?;
                    index.queue_moved_boilerplate()?;
                    index.reconcile()?;
                    anyhow::Ok(index.library().len())
                },
            )
        })();
        match attempt {
            Ok(Paired::WorkLeft) => continue,
            Ok(done) => break done,
            Err(error) => {
                let Some(lost) = unreachable_database(&error) else {
                    return Err(error);
                };
                tracing::warn!(address = %lost, %error, "database unreachable: ingest paused");
                say(&format!(
                    "paused: database unreachable ({lost}); reconnecting"
                ));
                index = Some(reconnect(&open)?);
                tracing::info!(address = %lost, "ingest resumed");
                say(&format!("resumed: reconnected to {lost}"));
            }
        }
    };
    let pairing = started.elapsed().saturating_sub(fingerprinting);
    bar.finish_and_clear();
    let by_others = share.by_others();
    let (documents, taken_over) = match paired {
        Paired::Here { paired, taken_over } => (Some(paired), taken_over),
        _ => (None, false),
    };
    let mut out = std::io::stdout().lock();
    match format {
        ListFormat::Text => {
            writeln!(
                out,
                "fingerprinted {} files here ({} taken over from a stopped process), {} by \
                 other processes",
                share.fingerprinted, share.taken_over, by_others
            )?;
            match documents {
                Some(documents) => writeln!(
                    out,
                    "paired {documents} documents here{} in {:.1} s (fingerprinting took {:.1} s)",
                    if taken_over {
                        ", taking over from a stopped process,"
                    } else {
                        ""
                    },
                    pairing.as_secs_f64(),
                    fingerprinting.as_secs_f64()
                )?,
                None => writeln!(out, "another process paired the collection")?,
            }
        }
        ListFormat::Json => {
            let json = serde_json::json!({
                "fingerprinted": share.fingerprinted,
                "taken_over": share.taken_over,
                "by_others": by_others,
                "paired_here": documents.is_some(),
                "pairing_taken_over": taken_over,
                "documents": documents,
                "seconds": {
                    "fingerprinting": fingerprinting.as_secs_f64(),
                    "pairing": documents.is_some().then_some(pairing.as_secs_f64()),
                },
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        }
    }
    Ok(())
}

/// The address of the database `error` says cannot be reached (without
/// its password), if that is what it says.
fn unreachable_database(error: &anyhow::Error) -> Option<String> {
    let lost = if let Some(error) = error.downcast_ref::<IndexError>() {
        error.unreachable_database()
    } else {
        error
            .downcast_ref::<StoreError>()
            .and_then(StoreError::unreachable_database)
    };
    lost.map(str::to_owned)
}

/// Open the collection with `open` again once the database answers,
/// trying after a delay that doubles from [`FIRST_RETRY`] to
/// [`MAX_RETRY`]; any other failure ends the wait.
fn reconnect(open: &dyn Fn(bool) -> Result<FolderIndex>) -> Result<FolderIndex> {
    let mut delay = FIRST_RETRY;
    loop {
        std::thread::sleep(delay);
        match open(false) {
            Ok(index) => return Ok(index),
            Err(error) if unreachable_database(&error).is_some() => {
                tracing::debug!(%error, "the database is still unreachable");
                delay = (delay * 2).min(MAX_RETRY);
            }
            Err(error) => return Err(error),
        }
    }
}
