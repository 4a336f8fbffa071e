//! `doppel ingest DIR --store postgres://…`: this process's share of a
//! collection's fingerprinting, split with every other `doppel ingest` on
//! the same folder and database through the store's claims
//! ([`doppel::runtime::index::IngestOptions`]), then the pairing pass when
//! this process is the one to run it; prints how many files it
//! fingerprinted and how many the others did.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use doppel::engine::Engine;
use doppel::runtime::config::Config;
use doppel::runtime::index::{pair_when_done, FolderIndex, IngestOptions};
use doppel::runtime::store::StoreAddress;

use super::args::ListFormat;
use super::progress::spinner;
use super::settings::{open_folder, settings, store_flag};

/// The hidden test hook: with this variable set, the process stops (and
/// waits to be killed) right after its first claim, holding it.
const HOLD_AFTER_CLAIM: &str = "DOPPEL_TEST_HOLD_AFTER_CLAIM";

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
        return Err(doppel::runtime::index::IndexError::NeedsTeamStore.into());
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
        index.set_read_limits(config.reading.limits());
        Ok(index)
    };
    let mut index = open(false)?;
    let share_options = IngestOptions {
        chunk_files: claim_files,
        ..IngestOptions::for_this_process(claim_timeout)
    };
    let hold = std::env::var_os(HOLD_AFTER_CLAIM).is_some();
    let bar = spinner("fingerprinting");
    let started = std::time::Instant::now();
    let share = index.fingerprint_share(&share_options, &mut |files| {
        bar.inc(files as u64);
        if hold {
            eprintln!("doppel: holding {files} claimed files");
            loop {
                std::thread::park();
            }
        }
    })?;
    let (team, collection) = index.team_place().expect("opened on a team store");
    // The pairing pass opens the collection afresh, with every document.
    drop(index);
    let fingerprinting = started.elapsed();
    bar.set_message("pairing");
    let paired = pair_when_done(&team, collection, || {
        let mut index = open(true)?;
        index.queue_moved_boilerplate()?;
        index.reconcile()?;
        anyhow::Ok(index.library().len())
    })?;
    let pairing = started.elapsed() - fingerprinting;
    bar.finish_and_clear();
    let by_others = share.by_others();
    let mut out = std::io::stdout().lock();
    match format {
        ListFormat::Text => {
            writeln!(
                out,
                "fingerprinted {} files here ({} taken over from a stopped process), {} by \
                 other processes",
                share.fingerprinted, share.taken_over, by_others
            )?;
            match paired {
                Some(documents) => writeln!(
                    out,
                    "paired {documents} documents here in {:.1} s (fingerprinting took {:.1} s)",
                    pairing.as_secs_f64(),
                    fingerprinting.as_secs_f64()
                )?,
                None => writeln!(out, "another process pairs the collection")?,
            }
        }
        ListFormat::Json => {
            let json = serde_json::json!({
                "fingerprinted": share.fingerprinted,
                "taken_over": share.taken_over,
                "by_others": by_others,
                "paired_here": paired.is_some(),
                "documents": paired,
                "seconds": {
                    "fingerprinting": fingerprinting.as_secs_f64(),
                    "pairing": paired.is_some().then_some(pairing.as_secs_f64()),
                },
            });
            writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
        }
    }
    Ok(())
}
