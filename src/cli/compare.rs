//! `doppel compare A B`: every algorithm's score for two files, judged as
//! the scan of their folder judges them: each over its body, without the
//! boilerplate the folder's index learned and the user's own
//! ([`boilerplate`]), so that a pair `scan` reports gets the same scores,
//! verdict and relation here.

mod boilerplate;

use std::collections::TryReserveError;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use doppel_core::engine::analysis::Analysis;
use doppel_core::engine::measure::exact_measures;
use doppel_core::engine::Engine;

use doppel_index::collection::{read_text, Skip, Source, DEFAULT_SIZE_CAP};
use doppel_index::config::Config;
use doppel_index::reading::ReadLimits;

use super::args::{Format, ScanOptions};
use boilerplate::Side;

/// Score `a` against `b` with every algorithm and print it in `format`.
pub fn compare(
    config: &Config,
    a: &Path,
    b: &Path,
    format: Format,
    options: &ScanOptions,
) -> Result<()> {
    let engine = Engine::new(config.engine.clone());
    // Two paths named on the command line: a symbolic link among them is
    // followed (as `cat` would), the file it names read as any other (a
    // FIFO or device is refused, never waited on).
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (fa, fb) = (canonical(a), canonical(b));
    let read = |given: &Path, file: &PathBuf| {
        let text =
            read_text(file, DEFAULT_SIZE_CAP).with_context(|| format!("{}", given.display()))?;
        let bytes = Source::Path(file)
            .open(DEFAULT_SIZE_CAP)
            .map_or(text.text.len() as u64, |o| o.len());
        anyhow::Ok((text.text, bytes))
    };
    let ((ta, bytes_a), (tb, bytes_b)) = (read(a, &fa)?, read(b, &fb)?);
    let weights = engine.reference_weights();
    let analyze = |path: &Path, text: &str| -> Result<Analysis> {
        engine.try_analyze(text).map_err(no_memory(path, text))
    };
    let sides = [
        Side {
            file: &fa,
            text: &ta,
            analysis: analyze(a, &ta)?,
            bytes: bytes_a,
        },
        Side {
            file: &fb,
            text: &tb,
            analysis: analyze(b, &tb)?,
            bytes: bytes_b,
        },
    ];
    let (bodies, left_out) = boilerplate::bodies(config, &engine, sides, options)?;
    let [da, db] = bodies;
    let scores = engine.compare(
        &engine
            .fingerprint(&da, weights)
            .map_err(no_memory(a, &ta))?,
        &engine
            .fingerprint(&db, weights)
            .map_err(no_memory(b, &tb))?,
    );
    let shingle = &engine.config().algorithms.shingle;
    let exact = exact_measures(&da, &db, shingle.w, shingle.seed, weights);
    let verdict = engine.verdict(&scores, exact.a_shingles.min(exact.b_shingles));
    let left_out = left_out.as_ref();
    let out = match format {
        Format::Text => doppel_report::compare_text(&scores, &verdict, &exact, &engine, left_out),
        Format::Json => doppel_report::compare_json(&scores, &verdict, &exact, &engine, left_out)?,
        Format::Csv => doppel_report::compare_csv(&scores, &verdict, &exact, &engine, left_out)?,
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// A file memory cannot be had for, named with the reason a scan would
/// skip it for.
fn no_memory(path: &Path, text: &str) -> impl FnOnce(TryReserveError) -> anyhow::Error {
    let skip = Skip::OutOfMemory {
        needed: ReadLimits::default().bound(text.len() as u64),
    };
    let context = format!("{}: {skip}", path.display());
    move |error| anyhow::Error::new(error).context(context)
}
