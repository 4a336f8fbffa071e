//! Boilerplate learned from the collection: passages (licence headers and
//! footers, scanning notices, repeated front matter) that recur in many
//! documents that are otherwise unrelated, told apart from text many
//! documents share because they are copies of one another.
//!
//! Input per document is its sampled word shingles in word order
//! ([`DocSamples`]: the shingle hashes the `shingle` candidate index keys on,
//! each with its word position). The decision, a pure function of the
//! current set of documents (so the same folder gives the same boilerplate
//! whatever the order of arrival):
//!
//! 1. **Candidates.** A sampled shingle in at least `min_docs` documents is
//!    frequent; a document's *candidate runs* are its maximal runs of
//!    consecutive frequent samples spanning at least `min_words` words.
//!    Edits break runs, so a heavily edited copy has none; a licence stays
//!    one long run.
//! 2. **Remainders.** What a document keeps outside its candidate runs, in
//!    stretches of at least `min_stretch` consecutive samples (an isolated
//!    edit between two runs is noise, not a body), is its remainder; it is
//!    *substantial* (a body of its own) with at least `min_remainder`
//!    samples, unless the candidate runs span more than `max_words` words
//!    together: then the document is a copy of a long shared work, and
//!    what else it holds (a preface of its edition) does not make the work
//!    boilerplate.
//! 3. **Groups.** Documents are grouped by their remainders: a document is
//!    joined to every document that holds at least `related` of its
//!    remainder (estimated on a bottom-`anchors` sample of it, so that a
//!    newcomer finds the documents it relates to by hash lookups). Documents
//!    without a substantial remainder are one group together (they are
//!    copies of the candidate text itself), and so is anything joined to
//!    them. Only documents with candidate runs take part.
//! 4. **Boilerplate.** A candidate shingle is boilerplate when the
//!    documents holding it in a candidate run fall into at least
//!    `min_groups` groups: it sits beside that many different bodies. 120
//!    copies of one text are one group (nothing substantial remains, or
//!    what remains is more of the same text); a licence around different
//!    works is as many groups as works.
//! 5. **Spans.** A document's boilerplate spans are its maximal runs of
//!    boilerplate samples spanning at least `min_words` words, in word
//!    positions. The user's own boilerplate (files in a configured folder,
//!    [`Learner::set_pinned`]) is boilerplate whatever the counts, and a
//!    curator's "not boilerplate" ([`Learner::set_overruled`]) never is.
//!
//! [`Learner`] keeps this up to date as documents arrive, change and leave
//! and names the documents whose spans moved; [`learn`] computes it from
//! scratch (a property test holds the two equal over any order of
//! arrival), and [`learn_at_once`] computes it fast for a whole set at
//! once. [`passages`] links the spans of all documents into the learned
//! passages with their document counts. The module is pure: no files, no
//! store. `examples/boilerplate.rs` runs it on a folder (or the Fan & Huang
//! collection) and shows what it learns and how pair verdicts move.

mod at_once;
mod document;
mod learner;
mod passages;
mod postings;
mod runs;
mod scratch;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use doppel_core::engine::fingerprinter::ShingleSampler;

pub use at_once::learn_at_once;
pub use document::DocBoilerplate;
pub use learner::{Batches, Learner};
pub use passages::{passages, Passage, PassageSpan};
pub use runs::{candidate_runs, remainder, spans, substantial_remainder};
pub use scratch::learn;

/// One sampled shingle of a document: the top half of its hash (as the
/// `shingle` fingerprint keeps it) and the position of its first word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Sample {
    /// The top 32 bits of the shingle's hash.
    pub hash: u32,
    /// Position of the shingle's first word.
    pub word: u32,
}

/// What the learner needs of one document: its sampled shingles in word
/// order and its number of words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocSamples {
    /// Sampled shingles, in word order.
    pub samples: Vec<Sample>,
    /// Words in the document.
    pub words: u32,
}

impl DocSamples {
    /// The samples of a document from all its word-shingle hashes in order
    /// (the engine's `shingle` hashes, one per word position): those the
    /// `shingle` candidate index keys on, `(top >> 7) % modulus == 0` of
    /// each hash's top 32 bits, so the index's postings are its document
    /// frequencies.
    pub fn from_shingles(
        shingles: impl IntoIterator<Item = u64>,
        words: usize,
        modulus: u64,
    ) -> Self {
        let sampler = ShingleSampler::new(modulus);
        let mut samples = Vec::with_capacity(sampler.room(words));
        samples.extend(
            sampler
                .sampled(shingles, 0)
                .map(|(hash, word)| Sample { hash, word }),
        );
        Self {
            samples,
            words: words as u32,
        }
    }

    /// The samples the fingerprinting took ([`doppel_core::engine::fingerprinter::Printed::samples`],
    /// `(hash, position)` in order) of a document of `words` words: the
    /// same as [`DocSamples::from_shingles`] of its shingles.
    pub fn from_sampled(sampled: Vec<(u32, u32)>, words: usize) -> Self {
        Self {
            samples: sampled
                .into_iter()
                .map(|(hash, word)| Sample { hash, word })
                .collect(),
            words: words as u32,
        }
    }

    /// The document's distinct sampled hashes, sorted.
    pub fn distinct(&self) -> Vec<u32> {
        let mut h: Vec<u32> = self.samples.iter().map(|s| s.hash).collect();
        h.sort_unstable();
        h.dedup();
        h
    }
}

/// Words `start..end` of a document (word positions of its analysis).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Span {
    /// First word.
    pub start: u32,
    /// One past the last word.
    pub end: u32,
}

impl Span {
    /// Words in the span.
    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    /// The span holds no word.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// The parameters of the decision (module docs, steps 1–5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct BoilerplateConfig {
    /// Learn boilerplate and fingerprint documents without it (the
    /// `[boilerplate] enabled` switch; the learner itself ignores it).
    /// Default: true.
    pub enabled: bool,
    /// The user's boilerplate folder (`[boilerplate] user-dir`): every file
    /// in it is boilerplate wherever its text appears
    /// ([`Learner::set_pinned`]; the pipeline reads it, the learner does
    /// not). Outside the watched folder. Default: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_dir: Option<std::path::PathBuf>,
    /// Words per shingle of the samples (the `shingle` algorithm's `w`), to
    /// turn sample positions into word spans; not a setting of its own (the
    /// pipeline sets it from the engine). Default: 4.
    #[serde(skip)]
    pub shingle_words: u32,
    /// A shingle is frequent in at least this many documents. Default: 3.
    pub min_docs: usize,
    /// A run (candidate or boilerplate) spans at least this many words,
    /// about eight samples: shorter shared passages are quotations and
    /// formulae (a verse quoted by three commentaries, "N years old when he
    /// began to reign"), not notices. Default: 64.
    pub min_words: u32,
    /// A document whose candidate runs span more than this many words
    /// together is a copy of a long shared work, never a body beside
    /// boilerplate: licences, notices and front matter are far shorter, and
    /// a long work shared by several editions, each with its own preface,
    /// is not boilerplate however many prefaces there are. Default: 10,000.
    pub max_words: u32,
    /// A remainder stretch counts from this many consecutive samples
    /// outside candidate runs. Default: 3.
    pub min_stretch: usize,
    /// A remainder is substantial from this many samples. Default: 8.
    pub min_remainder: usize,
    /// A document's remainder is sampled by its this many smallest hashes
    /// to find the documents that hold it. Default: 32.
    pub anchors: usize,
    /// A document joins another that holds at least this share of its
    /// remainder sample. Default: 0.3.
    pub related: f64,
    /// A candidate shingle is boilerplate beside bodies of at least this
    /// many groups. Default: 3.
    pub min_groups: usize,
}

impl Default for BoilerplateConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            user_dir: None,
            shingle_words: 4,
            min_docs: 3,
            min_words: 64,
            max_words: 10_000,
            min_stretch: 3,
            min_remainder: 8,
            anchors: 32,
            related: 0.3,
            min_groups: 3,
        }
    }
}

/// The learned state in a form independent of how it was reached: the
/// boilerplate shingles and every document's spans, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Learned<K: Ord> {
    /// Shingles learned as boilerplate (before pins and overrules), sorted.
    pub learned: Vec<u32>,
    /// Each document's boilerplate spans (pins and overrules applied), in
    /// order; documents without any are left out.
    pub spans: std::collections::BTreeMap<K, Vec<Span>>,
}
