//! `doppel eval`: the Fan & Huang protocol on a folder of books, or
//! precision and recall against a labelled folder; and the maintainers'
//! `make-library`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use doppel_core::engine::Engine;
use doppel_eval::library::{make_library, LibraryOptions};
use doppel_index::config::Config;

use super::args::{Format, DEFAULT_BOOKS};
use super::progress::spinner;

/// Where `doppel eval` writes besides stdout.
pub struct EvalOutputs {
    /// Also write every curve point as CSV here.
    pub csv: Option<PathBuf>,
    /// Also write the plots as SVG here.
    pub svg: Option<PathBuf>,
    /// What stdout gets.
    pub format: Format,
}

/// `labelled` is (DIR, truth file) for `--truth`; otherwise the Fan & Huang
/// protocol runs on `books`.
pub fn eval(
    config: &Config,
    labelled: Option<(&Path, &Path)>,
    books: &Path,
    fan_huang: doppel_eval::FanHuangConfig,
    outputs: &EvalOutputs,
) -> Result<()> {
    let out = if let Some((dir, truth)) = labelled {
        let engine = Engine::new(config.engine.clone());
        let spinner = spinner("scoring the labelled folder");
        let report = doppel_eval::truth(dir, truth, &engine, &config.library);
        spinner.finish_and_clear();
        let report = report?;
        match outputs.format {
            Format::Text => report.to_text(),
            Format::Json => report.to_json()?,
            Format::Csv => report.to_csv()?,
        }
    } else {
        // Run from elsewhere than the repository, the default is no folder.
        if books == Path::new(DEFAULT_BOOKS) && !books.is_dir() {
            anyhow::bail!(
                "no folder {DEFAULT_BOOKS} here (the default of --books): give --books DIR, \
                 a folder of plain-text books, or --truth FILE DIR"
            );
        }
        let spinner = spinner("running the Fan & Huang protocol");
        let report = doppel_eval::fan_huang(&fan_huang, books);
        spinner.finish_and_clear();
        let report = report?;
        if let Some(path) = &outputs.csv {
            std::fs::write(path, report.to_csv())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if let Some(path) = &outputs.svg {
            report.write_svg(path)?;
        }
        match outputs.format {
            Format::Text => report.to_text(),
            Format::Json => report.to_json()?,
            Format::Csv => report.to_csv(),
        }
    };
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// `doppel make-library OUT`: write a generated library collection and
/// say what it holds.
pub fn make(out: &Path, corpus: &Path, options: &LibraryOptions) -> Result<()> {
    let library = make_library(corpus, options)?;
    library.write(out)?;
    println!("{}: {}", out.display(), library.summary());
    Ok(())
}
