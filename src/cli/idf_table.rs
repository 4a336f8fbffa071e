//! `doppel idf-table DIR` (maintainers): the document frequencies the
//! pinned reference IDF table (`assets/idf/en.tsv`) is made from.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use anyhow::Result;

use doppel_core::engine::stats::CollectionStats;
use doppel_core::engine::{Engine, EngineConfig};
use doppel_eval::chunk_text;
use doppel_index::collection::{list_files, read_text, DEFAULT_SIZE_CAP};

/// Cut every text under `dir` into ~`chunk`-byte pieces on whitespace
/// ([`chunk_text`], the pieces of the Fan & Huang protocol) and count each
/// stemmed term's document frequency over the pieces.
pub fn idf_table(dir: &Path, chunk: usize, min_df: u32) -> Result<()> {
    let engine = Engine::new(EngineConfig::default());
    let tokenizer = engine.analyzer().tokenizer();
    let mut stats = CollectionStats::new();
    let mut names: HashMap<u64, String> = HashMap::new();
    let (files, _) = list_files(dir);
    for file in files {
        let Ok(decoded) = read_text(&file.path, DEFAULT_SIZE_CAP) else {
            continue;
        };
        let text = doppel_core::engine::text::normalize(&decoded.text);
        for piece in chunk_text(&text, chunk) {
            let mut terms = HashSet::new();
            for word in tokenizer.words(piece) {
                if let Some(term) = tokenizer.term(word) {
                    terms.insert(term.into_owned());
                }
            }
            let hashes: Vec<u64> = terms
                .into_iter()
                .map(|t| {
                    let h = doppel_core::hash::token_hash(&t).max(1);
                    names.entry(h).or_insert(t);
                    h
                })
                .collect();
            stats.add_document(&hashes);
        }
    }
    std::io::stdout()
        .lock()
        .write_all(stats.to_tsv(&names, min_df).as_bytes())?;
    Ok(())
}
