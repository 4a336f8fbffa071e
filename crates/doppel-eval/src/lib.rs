//! `doppel eval`: measuring the algorithms' precision and recall.
//!
//! Two evaluations, both library functions the CLI wraps:
//!
//! * [`fan_huang`] reproduces the protocol of Fan & Huang, *A fusion of
//!   algorithms in near duplicate document detection* (§4): books are cut
//!   into ~4 KB texts on word boundaries ([`chunk_text`]); S source texts are
//!   chosen at random and C near-duplicates made of each by random word
//!   insertions, deletions and replacements at random locations
//!   ([`edit_words`]; each copy's edit rate uniform in a range, new words
//!   drawn uniformly from the collection's distinct words); every text is
//!   fingerprinted, and each source is a query against every other text
//!   (the background, the other sources and all copies). A text is retrieved
//!   when the algorithm's score passes the threshold ([`doppel_core::engine::algo::Score::passes`],
//!   so an incomparable pair never is); the relevant texts are the query's C
//!   copies. Precision and recall are macro-averaged over the queries and
//!   F = 2PR/(P+R). Every algorithm is swept across its threshold range:
//!   Hamming 0–31 for the SimHash family at 32 bits (the paper's width),
//!   similarities 0.10–1.00 by 0.05, match counts 1..=max, `exact`/`imatch`
//!   at 1, `simhash-lexicons` for every lexicon count 1–10 (the paper's
//!   Table 1), and `fusion` (the configured thresholds and fusion rule, with
//!   `min_agree` 1..=the votes the voters' families can give).
//! * [`truth()`] scores every algorithm at its configured threshold, and
//!   `fusion`, pairwise against a labelled collection.
//!
//! Choices the paper leaves open, made here:
//!
//! * A query that retrieves nothing has precision 0 (not 1), so a threshold
//!   that finds nothing never looks perfect.
//! * The background is a seeded sample of the chunks (default 10,000; the
//!   paper had 143,798), and `web/` and `commentary/` are excluded by default:
//!   the World English Bible translates the KJV and the commentaries quote
//!   it, so their texts would be near-duplicates of KJV texts rather than
//!   "unduplicated" background. Only `*.txt` files count as books by default.
//! * Each edit is an insertion, deletion or replacement with equal
//!   probability at an independent random word position; a copy gets
//!   `round(rate × words)` edits, at least one.
//! * Fingerprints are computed once, with 64-bit SimHashes and the largest
//!   lexicon count needed; a b-bit SimHash is the low b bits of the 64-bit
//!   one and lexicon j's fingerprint does not depend on the lexicon count, so
//!   the 32-bit sweeps, the L-lexicon scores (the minimum Hamming distance
//!   over the first L lexicons) and `fusion` at the configured widths are all
//!   derived exactly from that one fingerprint.
//! * Weights are the engine's pinned reference IDF table.
//!
//! Everything random comes from [`doppel_core::hash::SplitMix64`] seeded by
//! [`FanHuangConfig::seed`]: the same seed and books give the same report
//! (up to [`Timing`]) on any machine and thread count.

mod edit;
mod error;
mod fan_huang;
pub mod library;
mod render;
mod truth;

pub use edit::{chunk_text, edit_count, edit_words, vocabulary, Edited};
pub use error::{EvalError, Result};
pub use fan_huang::{
    f_measure, fan_huang, Curve, CurvePoint, EvalReport, FanHuangConfig, LexiconRow, SourceText,
    Timing, PAPER_SIMHASH_F, PAPER_SIMHASH_SHINGLE_F, PAPER_TABLE1,
};
pub use truth::{truth, truth_with, Truth, TruthReport, TruthRow};
