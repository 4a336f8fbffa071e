//! Collection statistics: document frequencies, IDF and NIDF.
//!
//! Two sources of term weights implement [`TermWeights`]:
//!
//! * [`IdfTable`]: a frozen table. The default weights come from the
//!   *reference table* shipped in `assets/idf/en.tsv` (English, Snowball
//!   stems, stop words removed; built by `doppel idf-table` from ~4 KB chunks
//!   of the public-domain books in `shared/corpus`). A pinned table never
//!   drifts, so a fingerprint computed today equals the one computed after a
//!   million more documents arrive: IDF-weighted fingerprints stay comparable
//!   and incremental indexing never has to revisit old documents.
//! * [`CollectionStats`]: live document frequencies of the indexed
//!   collection, updated as documents are added and removed. Fingerprints
//!   are computed from a [`CollectionStats::snapshot`]; when
//!   [`CollectionStats::drift`] from the snapshot in use passes a bound
//!   (`max_drift`, default 0.05), every IDF-dependent fingerprint is
//!   recomputed from a fresh snapshot, so all stored fingerprints of one
//!   algorithm always share one snapshot.
//!
//! `idf(t) = ln((N + 1) / (df(t) + 1))`, `nidf(t) = idf(t) / ln(N + 1)` in
//! [0, 1]; a term the table has never seen gets the maximal IDF (NIDF 1).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::hash::HashKeyed;

/// Term weights as the IDF-dependent algorithms see them.
pub trait TermWeights: Sync {
    /// Inverse document frequency (≥ 0).
    fn idf(&self, term: u64) -> f64;
    /// The IDF of a term never seen: the largest there is.
    fn unseen_idf(&self) -> f64;
    /// IDF normalized to [0, 1] by the IDF of an unseen term.
    fn nidf(&self, term: u64) -> f64 {
        nidf_from_idf(self.idf(term), self.unseen_idf())
    }
}

/// A term's NIDF from its IDF and the IDF of an unseen term (1 when no
/// document has been seen at all).
pub fn nidf_from_idf(idf: f64, unseen_idf: f64) -> f64 {
    if unseen_idf <= 0.0 {
        1.0
    } else {
        (idf / unseen_idf).clamp(0.0, 1.0)
    }
}

/// Where IDF-dependent algorithms take their weights from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", tag = "source")]
pub enum IdfSource {
    /// The pinned reference table shipped in `assets/` (default; never drifts).
    #[default]
    Reference,
    /// Live collection statistics, refreshed when drift passes `max_drift`.
    Collection {
        /// How far the live weights may drift from the snapshot before it is
        /// taken again (and IDF-dependent fingerprints made anew).
        max_drift: f64,
    },
}

fn idf_of(n_docs: u64, df: u32) -> f64 {
    ((n_docs as f64 + 1.0) / (f64::from(df) + 1.0))
        .ln()
        .max(0.0)
}

fn nidf_of(n_docs: u64, df: u32) -> f64 {
    let max = (n_docs as f64 + 1.0).ln();
    if max <= 0.0 {
        1.0
    } else {
        (idf_of(n_docs, df) / max).clamp(0.0, 1.0)
    }
}

/// One term's document frequency with `ln(df + 1)` cached, so a lookup costs
/// no logarithm (IDF lookups dominate SimHash fingerprinting otherwise).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    df: u32,
    ln_df1: f64,
}

impl Entry {
    fn new(df: u32) -> Self {
        Self {
            df,
            ln_df1: (f64::from(df) + 1.0).ln(),
        }
    }
}

/// A frozen set of document frequencies.
#[derive(Debug, Clone, Default)]
pub struct IdfTable {
    n_docs: u64,
    /// `ln(n_docs + 1)`: the IDF of an unseen term.
    ln_n1: f64,
    df: HashKeyed<Entry>,
}

impl PartialEq for IdfTable {
    fn eq(&self, other: &Self) -> bool {
        self.n_docs == other.n_docs && self.df == other.df
    }
}

impl IdfTable {
    fn from_counts(n_docs: u64, df: HashKeyed<Entry>) -> Self {
        Self {
            n_docs,
            ln_n1: (n_docs as f64 + 1.0).ln(),
            df,
        }
    }

    /// Documents counted.
    pub fn n_docs(&self) -> u64 {
        self.n_docs
    }

    /// How many documents hold `term` (its document frequency).
    pub fn df(&self, term: u64) -> u32 {
        self.df.get(&term).map_or(0, |e| e.df)
    }

    /// Distinct terms counted.
    pub fn len(&self) -> usize {
        self.df.len()
    }

    /// Whether no term is counted.
    pub fn is_empty(&self) -> bool {
        self.df.is_empty()
    }

    /// The reference table shipped with doppel. It lists Snowball English
    /// stems, so it is meaningful only for the default tokenizer; other
    /// configurations should use [`IdfSource::Collection`].
    pub fn reference() -> Self {
        Self::parse_tsv(include_str!("../../../../assets/idf/en.tsv"))
            .expect("the shipped reference IDF table parses")
    }

    /// Parse the TSV format written by [`CollectionStats::to_tsv`]:
    /// a header line `#doppel-idf\tdocs=N`, then `term\tdf` lines. Terms are
    /// stored already stemmed, so they are hashed verbatim.
    pub fn parse_tsv(text: &str) -> Result<Self, IdfTableError> {
        let mut lines = text.lines();
        let header = lines.next().ok_or(IdfTableError::Empty)?;
        let n_docs = header
            .strip_prefix("#doppel-idf\tdocs=")
            .and_then(|n| n.trim().parse::<u64>().ok())
            .ok_or_else(|| IdfTableError::Header(header.to_owned()))?;
        let mut df = HashKeyed::default();
        for (i, line) in lines.enumerate() {
            let line_no = i + 2;
            let (term, count) = line
                .split_once('\t')
                .ok_or(IdfTableError::NoTab { line: line_no })?;
            let count: u32 = count.parse().map_err(|error| IdfTableError::Count {
                line: line_no,
                count: count.to_owned(),
                error,
            })?;
            df.insert(crate::hash::token_hash(term).max(1), Entry::new(count));
        }
        Ok(Self::from_counts(n_docs, df))
    }
}

/// Why a text is no IDF table ([`IdfTable::parse_tsv`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdfTableError {
    /// No header line.
    #[error("empty IDF table")]
    Empty,
    /// A first line that is not `#doppel-idf\tdocs=N`.
    #[error("bad IDF table header: {0:?}")]
    Header(String),
    /// A line without `term\tdf`'s tab.
    #[error("IDF table line {line}: no tab")]
    NoTab {
        /// The 1-based line.
        line: usize,
    },
    /// A document frequency that is not a whole number.
    #[error("IDF table line {line}: bad count {count:?}")]
    Count {
        /// The 1-based line.
        line: usize,
        /// The count as written.
        count: String,
        /// What the parser said.
        #[source]
        error: std::num::ParseIntError,
    },
}

impl TermWeights for IdfTable {
    fn idf(&self, term: u64) -> f64 {
        let ln_df1 = self.df.get(&term).map_or(0.0, |e| e.ln_df1);
        (self.ln_n1 - ln_df1).max(0.0)
    }

    fn unseen_idf(&self) -> f64 {
        self.ln_n1
    }
}

/// Live document frequencies, updated incrementally.
#[derive(Debug, Clone, Default)]
pub struct CollectionStats {
    table: IdfTable,
}

impl CollectionStats {
    /// Statistics of no document yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Documents counted.
    pub fn n_docs(&self) -> u64 {
        self.table.n_docs
    }

    /// Count one document given its distinct terms.
    pub fn add_document(&mut self, unique_terms: &[u64]) {
        self.set_docs(self.table.n_docs + 1);
        for &t in unique_terms {
            let entry = self.table.df.entry(t).or_insert(Entry::new(0));
            *entry = Entry::new(entry.df + 1);
        }
    }

    fn set_docs(&mut self, n_docs: u64) {
        self.table.n_docs = n_docs;
        self.table.ln_n1 = (n_docs as f64 + 1.0).ln();
    }

    /// Undo [`CollectionStats::add_document`] for a removed document.
    pub fn remove_document(&mut self, unique_terms: &[u64]) {
        self.set_docs(self.table.n_docs.saturating_sub(1));
        for t in unique_terms {
            if let Some(entry) = self.table.df.get_mut(t) {
                if entry.df <= 1 {
                    self.table.df.remove(t);
                } else {
                    *entry = Entry::new(entry.df - 1);
                }
            }
        }
    }

    /// A frozen copy to compute fingerprints from.
    pub fn snapshot(&self) -> IdfTable {
        self.table.clone()
    }

    /// How far the live statistics have moved from `snapshot`: the mean
    /// absolute change of NIDF over the live vocabulary, weighted by document
    /// frequency (so common terms, which dominate fingerprints, count most).
    /// 0 = unchanged; compare against `IdfSource::Collection::max_drift`.
    pub fn drift(&self, snapshot: &IdfTable) -> f64 {
        let mut weighted = 0.0;
        let mut total = 0.0;
        for (&term, entry) in &self.table.df {
            let df = entry.df;
            let now = nidf_of(self.table.n_docs, df);
            let then = nidf_of(snapshot.n_docs, snapshot.df(term));
            weighted += f64::from(df) * (now - then).abs();
            total += f64::from(df);
        }
        if total == 0.0 {
            0.0
        } else {
            weighted / total
        }
    }

    /// Write the statistics in the reference-table TSV format, keeping terms
    /// seen in at least `min_df` documents. `terms` maps hashes back to text.
    pub fn to_tsv(&self, terms: &HashMap<u64, String>, min_df: u32) -> String {
        let mut rows: Vec<(&str, u32)> = self
            .table
            .df
            .iter()
            .filter(|(_, e)| e.df >= min_df)
            .filter_map(|(h, e)| terms.get(h).map(|t| (t.as_str(), e.df)))
            .collect();
        rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let mut out = format!("#doppel-idf\tdocs={}\n", self.table.n_docs);
        for (term, df) in rows {
            out.push_str(term);
            out.push('\t');
            out.push_str(&df.to_string());
            out.push('\n');
        }
        out
    }
}

impl TermWeights for CollectionStats {
    fn idf(&self, term: u64) -> f64 {
        self.table.idf(term)
    }

    fn unseen_idf(&self) -> f64 {
        self.table.unseen_idf()
    }
}

/// The term weights IDF-dependent fingerprints are computed with, kept
/// consistent as documents come and go (see the module documentation).
#[derive(Debug, Clone)]
pub struct Weights {
    source: IdfSource,
    live: CollectionStats,
    /// The table fingerprints are computed with: the reference table, or the
    /// last snapshot of the live statistics.
    current: IdfTable,
    generation: u64,
}

impl Weights {
    /// `reference` is used when `source` is [`IdfSource::Reference`].
    pub fn new(source: IdfSource, reference: IdfTable) -> Self {
        let current = match source {
            IdfSource::Reference => reference,
            IdfSource::Collection { .. } => IdfTable::default(),
        };
        Self {
            source,
            live: CollectionStats::new(),
            current,
            generation: 0,
        }
    }

    /// The weights to fingerprint with now.
    pub fn current(&self) -> &IdfTable {
        &self.current
    }

    /// Bumped whenever [`Weights::current`] changes; every stored
    /// IDF-dependent fingerprint must carry the generation it was made with.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The statistics as they are now (the weights may be an older snapshot).
    pub fn live(&self) -> &CollectionStats {
        &self.live
    }

    /// Count a document's distinct terms in.
    pub fn add_document(&mut self, unique_terms: &[u64]) {
        self.live.add_document(unique_terms);
    }

    /// Count a document's distinct terms out.
    pub fn remove_document(&mut self, unique_terms: &[u64]) {
        self.live.remove_document(unique_terms);
    }

    /// With collection statistics, take a fresh snapshot once the live
    /// statistics have drifted past `max_drift` (or on the first documents).
    /// Returns true when the weights changed: the caller must then recompute
    /// every IDF-dependent fingerprint. Never changes a reference table.
    pub fn refresh_if_drifted(&mut self) -> bool {
        let IdfSource::Collection { max_drift } = self.source else {
            return false;
        };
        let empty_snapshot = self.current.n_docs() == 0 && self.live.n_docs() > 0;
        if empty_snapshot || self.live.drift(&self.current) > max_drift {
            self.current = self.live.snapshot();
            self.generation += 1;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::analysis::Analyzer;
    use crate::engine::text::TokenizerConfig;

    #[test]
    fn idf_falls_with_document_frequency_and_unseen_terms_are_rarest() {
        let mut stats = CollectionStats::new();
        stats.add_document(&[1, 2]);
        stats.add_document(&[1]);
        stats.add_document(&[1, 3]);
        assert!(stats.idf(1) < stats.idf(2));
        assert_eq!(stats.nidf(99), 1.0);
        assert!(stats.nidf(1) < stats.nidf(2) && stats.nidf(2) < 1.0);
    }

    #[test]
    fn removing_a_document_restores_the_statistics() {
        let mut stats = CollectionStats::new();
        stats.add_document(&[1, 2]);
        let before = stats.snapshot();
        stats.add_document(&[2, 3]);
        stats.remove_document(&[2, 3]);
        assert_eq!(stats.snapshot(), before);
    }

    #[test]
    fn drift_grows_as_statistics_move_and_is_zero_when_unchanged() {
        let mut stats = CollectionStats::new();
        for i in 0..10 {
            stats.add_document(&[1, 100 + i]);
        }
        let snap = stats.snapshot();
        assert_eq!(stats.drift(&snap), 0.0);
        stats.add_document(&[2]);
        let small = stats.drift(&snap);
        for i in 0..30 {
            stats.add_document(&[2, 3, 200 + i]);
        }
        let large = stats.drift(&snap);
        assert!(small > 0.0 && large > small, "small={small} large={large}");
    }

    #[test]
    fn reference_table_knows_common_english_stems() {
        let analyzer = Analyzer::new(&TokenizerConfig::default());
        let table = IdfTable::reference();
        assert!(
            table.n_docs() > 1000,
            "reference table built from thousands of chunks"
        );
        let common = analyzer.term_hash("said").unwrap();
        let rare = analyzer.term_hash("harpooneer").unwrap();
        assert!(table.idf(common) < table.idf(rare));
        assert!(table.nidf(analyzer.term_hash("zzyzxqq").unwrap()) == 1.0);
    }

    #[test]
    fn tsv_round_trips() {
        let analyzer = Analyzer::new(&TokenizerConfig::default());
        let mut stats = CollectionStats::new();
        let whale = analyzer.term_hash("whale").unwrap();
        let sea = analyzer.term_hash("sea").unwrap();
        stats.add_document(&[whale, sea]);
        stats.add_document(&[whale]);
        let names = HashMap::from([(whale, "whale".to_owned()), (sea, "sea".to_owned())]);
        let table = IdfTable::parse_tsv(&stats.to_tsv(&names, 1)).unwrap();
        assert_eq!(table, stats.snapshot());
    }
}

#[cfg(test)]
mod weights_tests {
    use super::*;

    #[test]
    fn reference_weights_never_move_however_the_collection_grows() {
        let reference = IdfTable::reference();
        let mut weights = Weights::new(IdfSource::Reference, reference.clone());
        for i in 0..500 {
            weights.add_document(&[1, 2, 1000 + i]);
            assert!(!weights.refresh_if_drifted());
        }
        assert_eq!(weights.current(), &reference);
        assert_eq!(weights.generation(), 0);
    }

    #[test]
    fn collection_weights_refresh_only_past_the_drift_bound() {
        let mut weights = Weights::new(
            IdfSource::Collection { max_drift: 0.05 },
            IdfTable::default(),
        );
        for i in 0..100 {
            weights.add_document(&[1, 100 + i]);
        }
        assert!(
            weights.refresh_if_drifted(),
            "first documents give the first snapshot"
        );
        let generation = weights.generation();
        weights.add_document(&[1, 7]);
        assert!(
            !weights.refresh_if_drifted(),
            "one more document is within the bound"
        );
        for _ in 0..100 {
            weights.add_document(&[7, 8]);
        }
        assert!(
            weights.refresh_if_drifted(),
            "a shifted vocabulary passes the bound"
        );
        assert!(weights.generation() > generation);
        assert_eq!(weights.current(), &weights.live().snapshot());
    }
}
