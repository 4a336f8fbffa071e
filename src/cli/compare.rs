//! `doppel compare A B`: every algorithm's score for two files.

use std::collections::TryReserveError;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use doppel_core::engine::measure::exact_measures;
use doppel_core::engine::Engine;

use doppel_index::collection::{read_text, Skip, DEFAULT_SIZE_CAP};
use doppel_index::config::Config;
use doppel_index::reading::ReadLimits;

use super::args::Format;

/// Score `a` against `b` with every algorithm and print it in `format`.
pub fn compare(config: &Config, a: &Path, b: &Path, format: Format) -> Result<()> {
    let engine = Engine::new(config.engine.clone());
    // Two paths named on the command line: a symbolic link among them is
    // followed (as `cat` would), the file it names read as any other (a
    // FIFO or device is refused, never waited on).
    let read = |p: &Path| {
        let file = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        read_text(&file, DEFAULT_SIZE_CAP).with_context(|| format!("{}", p.display()))
    };
    let (ta, tb) = (read(a)?, read(b)?);
    let weights = engine.reference_weights();
    let (da, db) = (
        engine
            .try_analyze(&ta.text)
            .map_err(no_memory(a, &ta.text))?,
        engine
            .try_analyze(&tb.text)
            .map_err(no_memory(b, &tb.text))?,
    );
    let scores = engine.compare(
        &engine
            .fingerprint(&da, weights)
            .map_err(no_memory(a, &ta.text))?,
        &engine
            .fingerprint(&db, weights)
            .map_err(no_memory(b, &tb.text))?,
    );
    let shingle = &engine.config().algorithms.shingle;
    let exact = exact_measures(&da, &db, shingle.w, shingle.seed, weights);
    let verdict = engine.verdict(&scores, exact.a_shingles.min(exact.b_shingles));
    let out = match format {
        Format::Text => doppel_report::compare_text(&scores, &verdict, &exact, &engine),
        Format::Json => doppel_report::compare_json(&scores, &verdict, &exact, &engine)?,
        Format::Csv => doppel_report::compare_csv(&scores, &verdict, &exact, &engine)?,
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
