//! `doppel compare A B`: every algorithm's score for two files.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use doppel::engine::measure::exact_measures;
use doppel::engine::Engine;
use doppel::faces::report;
use doppel::runtime::collection::{read_text, DEFAULT_SIZE_CAP};
use doppel::runtime::config::Config;

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
