//! Boilerplate in the pipeline: what a document gives the learner (its
//! sampled shingles, [`samples`]), its fingerprints once the learner has
//! given it boilerplate spans (over its body: every algorithm sees the
//! document without them, [`body_prints`]), and what a report shows of it
//! ([`BoilerplateReport`]: the learned passages with their document counts,
//! and each document's spans as byte ranges of its decoded text).
//!
//! The decision itself is [`doppel_pairing::boilerplate`]'s; the one-shot
//! scan learns from scratch over the folder, the folder index keeps a
//! [`doppel_pairing::boilerplate::Learner`] up to date as files arrive,
//! change and leave, and [`stored`] builds an index's learner from its
//! store alone (for `doppel compare`); [`user`] is the user's own
//! boilerplate folder.

pub mod stored;
pub mod user;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use serde::Serialize;

use doppel_core::doc::DocPath;
use doppel_core::engine::analysis::Analysis;
use doppel_core::engine::{Engine, Fingerprints};
pub use doppel_pairing::boilerplate::DocBoilerplate;
use doppel_pairing::boilerplate::{passages, BoilerplateConfig, DocSamples, Span};
use doppel_pairing::library::LibraryConfig;

/// Words of a span shown as its first words.
const FIRST_WORDS: usize = 12;

/// The learner's parameters under `library`'s settings and `engine`'s
/// shingles, or `None` when learning is switched off.
pub fn config_of(engine: &Engine, library: &LibraryConfig) -> Option<BoilerplateConfig> {
    let mut config = library.boilerplate.clone();
    config.shingle_words = engine.config().algorithms.shingle.w as u32;
    config.enabled.then_some(config)
}

/// What the learner reads of a document: the shingles the `shingle`
/// candidate index keys on, with their word positions.
pub fn samples(engine: &Engine, analysis: &Analysis, library: &LibraryConfig) -> DocSamples {
    DocSamples::from_shingles(
        engine.all_shingles(analysis),
        analysis.words.len(),
        library.candidates.shingle_modulus,
    )
}

/// A document's fingerprints without its boilerplate `spans` (`words`: its
/// whole analysis's word count), its distinct shingles, and where the
/// spans are; `None` when there is no body to make (no span, the spans
/// could not be located in the text, or memory for the body's furniture
/// lines or fingerprints cannot be had, which the log says: the whole
/// document's prints stand, as a big file's do).
pub fn body_prints(
    engine: &Engine,
    text: &str,
    words: u32,
    spans: &[Span],
) -> Option<(Fingerprints, usize, DocBoilerplate)> {
    let word_ranges: Vec<Range<u32>> = spans.iter().map(|s| s.start..s.end).collect();
    let no_memory = |error: std::collections::TryReserveError| {
        tracing::warn!(%error, "no memory for a document's body: its whole prints stand");
    };
    let body = engine
        .analyze_without(text, words as usize, &word_ranges)
        .map_err(no_memory)
        .ok()??;
    let fingerprints = engine
        .fingerprint(&body.analysis, engine.reference_weights())
        .map_err(no_memory)
        .ok()?;
    let shingles = engine.shingle_count(&body.analysis, &fingerprints);
    let first_words = body
        .ranges
        .iter()
        .map(|r| {
            text[r.clone()]
                .split_whitespace()
                .take(FIRST_WORDS)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let boilerplate = DocBoilerplate {
        spans: spans.to_vec(),
        ranges: body
            .ranges
            .iter()
            .map(|r| r.start as u64..r.end as u64)
            .collect(),
        first_words,
        document_words: words,
    };
    Some((fingerprints, shingles, boilerplate))
}

/// How much of one document is boilerplate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SideBoilerplate {
    /// Words left out as boilerplate.
    pub words: u32,
    /// Words of the whole document.
    pub document_words: u32,
    /// Documents holding its most shared passage.
    pub shared_by: usize,
}

impl SideBoilerplate {
    /// The share of the document that is boilerplate, 0 to 1.
    pub fn share(&self) -> f64 {
        if self.document_words == 0 {
            0.0
        } else {
            f64::from(self.words) / f64::from(self.document_words)
        }
    }
}

/// One learned passage, as a report lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PassageSummary {
    /// Documents holding it.
    pub documents: usize,
    /// Its words in the representative document.
    pub words: u32,
    /// Its first words in the representative document.
    pub first_words: String,
    /// The document it is shown from (the first by path).
    pub representative: DocPath,
    /// Where it comes from: `learned` (from the collection) or `user` (a
    /// file of the user's boilerplate folder holds most of it).
    pub source: &'static str,
    /// The curator ruled it is not boilerplate: it is left in every
    /// document again (and listed after the learned passages).
    pub overruled: bool,
    /// The documents holding it, sorted (none for an overruled passage).
    #[serde(skip)]
    pub members: Vec<DocPath>,
    /// Its own sampled shingles, those no other passage holds (all of
    /// them when every one is shared): what overruling it records, so
    /// that overruling one licence leaves the sentences it shares with
    /// other licences boilerplate in theirs.
    #[serde(skip)]
    pub hashes: Vec<u32>,
}

/// The boilerplate of a collection: learned passages, most documents
/// first, and every document's spans.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoilerplateReport {
    /// The passages, most documents first.
    pub passages: Vec<PassageSummary>,
    /// Each document with boilerplate, by path.
    pub documents: BTreeMap<DocPath, DocBoilerplate>,
}

impl BoilerplateReport {
    /// The report with the curator's overruled passages listed after the
    /// learned ones.
    pub fn with_overruled(mut self, overruled: impl IntoIterator<Item = PassageSummary>) -> Self {
        self.passages.extend(overruled);
        self
    }

    /// The passages still boilerplate (not overruled).
    pub fn learned(&self) -> impl Iterator<Item = &PassageSummary> {
        self.passages.iter().filter(|p| !p.overruled)
    }

    /// How much of `doc` is boilerplate, for a pair screen.
    pub fn side(&self, doc: &DocPath) -> SideBoilerplate {
        let Some(found) = self.documents.get(doc) else {
            return SideBoilerplate::default();
        };
        SideBoilerplate {
            words: found.words(),
            document_words: found.document_words,
            shared_by: self
                .passages
                .iter()
                .filter(|p| p.members.binary_search(doc).is_ok())
                .map(|p| p.documents)
                .max()
                .unwrap_or(0),
        }
    }

    /// The report of documents' samples and boilerplate (`shingle_words`:
    /// words per sampled shingle; `pinned`: the samples of the user's
    /// boilerplate folder). A passage is linked across documents by the
    /// samples lying wholly inside its spans (all of them boilerplate), so
    /// the report needs no learner.
    pub fn new<'a>(
        docs: impl IntoIterator<Item = (&'a DocPath, &'a DocSamples, &'a DocBoilerplate)>,
        shingle_words: u32,
        pinned: &BTreeSet<u32>,
    ) -> Self {
        let docs: Vec<_> = docs
            .into_iter()
            .filter(|(_, _, b)| !b.spans.is_empty())
            .collect();
        let inside: Vec<DocSamples> = docs
            .iter()
            .map(|(_, samples, b)| DocSamples {
                samples: samples
                    .samples
                    .iter()
                    .filter(|s| {
                        b.spans
                            .iter()
                            .any(|span| span.start <= s.word && s.word + shingle_words <= span.end)
                    })
                    .copied()
                    .collect(),
                words: samples.words,
            })
            .collect();
        let found = passages(
            docs.iter()
                .zip(&inside)
                .map(|((k, _, b), s)| (*k, s, b.spans.as_slice())),
            |_| true,
        );
        // How many passages hold each shingle (licences generated from one
        // set of sentences share many).
        let mut holders: std::collections::HashMap<u32, usize> = Default::default();
        for p in &found {
            for &h in &p.hashes {
                *holders.entry(h).or_default() += 1;
            }
        }
        let documents: BTreeMap<DocPath, DocBoilerplate> = docs
            .iter()
            .map(|(k, _, b)| ((*k).clone(), (*b).clone()))
            .collect();
        let passages = found
            .into_iter()
            .map(|p| {
                let rep = &p.representative;
                let first_words = documents
                    .get(&rep.key)
                    .and_then(|b| {
                        let i = b.spans.iter().position(|s| *s == rep.span)?;
                        b.first_words.get(i).cloned()
                    })
                    .unwrap_or_default();
                let mut members: Vec<DocPath> = p.spans.iter().map(|s| s.key.clone()).collect();
                members.dedup();
                let user = p.hashes.iter().filter(|h| pinned.contains(h)).count();
                let own: Vec<u32> = p
                    .hashes
                    .iter()
                    .copied()
                    .filter(|h| holders[h] == 1)
                    .collect();
                PassageSummary {
                    members,
                    documents: p.documents,
                    words: rep.span.len(),
                    first_words,
                    representative: rep.key.clone(),
                    source: if 2 * user > p.hashes.len() {
                        "user"
                    } else {
                        "learned"
                    },
                    overruled: false,
                    hashes: if own.is_empty() { p.hashes } else { own },
                }
            })
            .collect();
        Self {
            passages,
            documents,
        }
    }
}
