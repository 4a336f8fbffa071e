//! Which boilerplate `doppel compare A B` leaves out: what the scan of the
//! folder holding both files leaves out. The folder is the nearest one
//! holding both whose index file exists where `scan` keeps it (the config
//! file's `index-dir`, else the platform data folder), or the folder the
//! index `--index` names records (it must hold both). That index's store
//! is read, never written ([`StoredLearner`]): the learner of its
//! documents, with the curator's overruled passages and the user's
//! boilerplate folder (`--boilerplate-dir`, else the config file's) pinned,
//! as the scan's own. The two files go into it as the scan takes in a new
//! version of a document, and each is compared over the body its spans
//! leave, as the scan fingerprints it. Without an index (none found, or
//! `--no-index`) only the user's boilerplate folder is left out: with two
//! documents nothing is learned.

use std::path::{Path, PathBuf};

use anyhow::Result;

use doppel_core::doc::DocPath;
use doppel_core::engine::analysis::Analysis;
use doppel_core::engine::Engine;
use doppel_index::boilerplate::stored::StoredLearner;
use doppel_index::boilerplate::user::UserBoilerplate;
use doppel_index::boilerplate::{config_of, samples};
use doppel_index::collection::relative;
use doppel_index::config::Config;
use doppel_pairing::boilerplate::{Learner, Span};
use doppel_report::CompareBoilerplate;
use doppel_store::{Meta, SqliteStore};

use crate::cli::args::ScanOptions;

/// One file compared: where it is (canonical), its text, the analysis of
/// the whole, and its size in bytes (a big one takes no part in learning,
/// as in a scan).
pub struct Side<'a> {
    pub file: &'a Path,
    pub text: &'a str,
    pub analysis: Analysis,
    pub bytes: u64,
}

/// The analyses to compare, each side's body where boilerplate was found
/// in it (else its whole), and what was left out: `None` when nothing was
/// looked for (no index holds the files and there is no boilerplate
/// folder, or learning is off).
pub fn bodies(
    config: &Config,
    engine: &Engine,
    sides: [Side<'_>; 2],
    options: &ScanOptions,
) -> Result<([Analysis; 2], Option<CompareBoilerplate>)> {
    let library = &config.library;
    let Some(learning) = config_of(engine, library) else {
        return Ok((sides.map(|s| s.analysis), None));
    };
    let files = [sides[0].file, sides[1].file];
    let found = match options.no_index {
        true => None,
        false => find_index(config, files, options.decision.index.as_deref())?,
    };
    let mut from_index = None;
    if let Some(Found {
        folder,
        index,
        store,
    }) = found
    {
        let user = UserBoilerplate::load(&folder, engine, library)?;
        match StoredLearner::read(&store, engine, library, user.as_ref())? {
            StoredLearner::Learned(learner) => from_index = Some((learner, folder, index)),
            StoredLearner::OtherSettings => eprintln!(
                "doppel: the index of {} was made under other settings: the boilerplate it \
                 learned is not left out (`doppel scan {}` brings it up to date)",
                folder.display(),
                folder.display()
            ),
            StoredLearner::Off => {}
        }
    }
    let (mut learner, learned_from) = match from_index {
        Some((learner, folder, index)) => (*learner, Some((folder, index))),
        None => {
            let Some(user) = UserBoilerplate::load_unscanned(engine, library)? else {
                return Ok((sides.map(|s| s.analysis), None));
            };
            let mut learner = Learner::new(learning);
            user.pin(&mut learner);
            (learner, None)
        }
    };
    // Under the index's folder, a file is the document the scan knows it
    // as (its stored version replaced); elsewhere any two names do.
    let key = |file: &Path| match &learned_from {
        Some((folder, _)) => relative(folder, file),
        None => DocPath::from_relative(file),
    };
    let limits = config.reading.limits();
    let learns = |side: &Side<'_>| !limits.is_big(side.bytes);
    let keys = files.map(key);
    let mut adds = Vec::new();
    for (side, key) in sides.iter().zip(&keys) {
        if learns(side) && !adds.iter().any(|(k, _)| k == key) {
            adds.push((key.clone(), samples(engine, &side.analysis, library)));
        }
    }
    learner.update(adds, Vec::new());
    let mut words = [0; 2];
    let mut document_words = [0; 2];
    let mut analyses = Vec::with_capacity(2);
    for (i, (side, key)) in sides.into_iter().zip(&keys).enumerate() {
        let spans = if learns(&side) {
            learner.spans(key)
        } else {
            &[]
        };
        document_words[i] = side.analysis.words.len() as u32;
        let (analysis, left_out) = body(engine, side, spans);
        words[i] = left_out;
        analyses.push(analysis);
    }
    let [a, b]: [Analysis; 2] = analyses.try_into().expect("two sides");
    let left_out = CompareBoilerplate {
        words,
        document_words,
        learned_from,
        user_dir: library.boilerplate.user_dir.clone(),
    };
    Ok(([a, b], Some(left_out)))
}

/// `side`'s analysis without `spans` and the words they left out, as the
/// scan fingerprints a document (`boilerplate::body_prints`): its whole
/// when there is no span, the spans cannot be located in the text, or
/// memory for the body cannot be had.
fn body(engine: &Engine, side: Side<'_>, spans: &[Span]) -> (Analysis, u32) {
    let ranges: Vec<_> = spans.iter().map(|s| s.start..s.end).collect();
    match engine.analyze_without(side.text, side.analysis.words.len(), &ranges) {
        Ok(Some(body)) => (body.analysis, spans.iter().map(Span::len).sum()),
        _ => (side.analysis, 0),
    }
}

/// An index whose learned boilerplate applies to the files compared.
struct Found {
    /// The folder it is of (canonical).
    folder: PathBuf,
    /// Its file.
    index: PathBuf,
    /// Opened read-only.
    store: SqliteStore,
}

/// The index `--index` names (`flag`), whose folder must hold both
/// `files`; else that of the nearest folder holding both that has one.
/// An index found that cannot be read is said on standard error, and none
/// is used.
fn find_index(config: &Config, files: [&Path; 2], flag: Option<&Path>) -> Result<Option<Found>> {
    if let Some(index) = flag {
        anyhow::ensure!(
            index.is_file(),
            "no index at {}: scan the folder of the two files with it first \
             (`doppel scan DIR --index {}`)",
            index.display(),
            index.display()
        );
        let store = SqliteStore::open_read_only(index)?;
        let Some(folder) = store.folder()? else {
            anyhow::bail!(
                "the index {} records no folder: scan its folder with it once \
                 (`doppel scan DIR --index {}`)",
                index.display(),
                index.display()
            );
        };
        for file in files {
            anyhow::ensure!(
                file.starts_with(&folder),
                "{} is not in {}, the folder of the index {}",
                file.display(),
                folder.display(),
                index.display()
            );
        }
        return Ok(Some(Found {
            folder,
            index: index.to_path_buf(),
            store,
        }));
    }
    let [a, b] = files;
    for folder in a.ancestors().skip(1).filter(|f| b.starts_with(f)) {
        let index = match config.index_path(folder) {
            Ok(Some(path)) => path,
            Ok(None) => match SqliteStore::default_path(folder) {
                Ok(path) => path,
                // Its index would lie inside it (the home folder's).
                Err(_) => continue,
            },
            Err(_) => continue,
        };
        if !index.is_file() {
            continue;
        }
        let store = match SqliteStore::open_read_only(&index) {
            Ok(store) => store,
            Err(e) => {
                eprintln!(
                    "doppel: cannot read the index of {} ({e}): the boilerplate it learned \
                     is not left out",
                    folder.display()
                );
                return Ok(None);
            }
        };
        // Named after its folder, it records that folder (or none, when an
        // older doppel wrote it).
        if store.folder()?.is_some_and(|recorded| recorded != folder) {
            continue;
        }
        return Ok(Some(Found {
            folder: folder.to_path_buf(),
            index,
            store,
        }));
    }
    Ok(None)
}
