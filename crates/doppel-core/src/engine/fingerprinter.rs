//! Fingerprinting one document with every enabled algorithm, from one
//! analysis or from the analyses of its pieces.
//!
//! A [`Fingerprinter`] takes the analyses of a document's pieces in order
//! and keeps only what each algorithm needs between them: the last k − 1
//! units of each k-gram stream, running minima and counters, and the sets
//! of distinct hashes the fingerprints are. Its fingerprints equal those of
//! the whole document analyzed at once, bit for bit, wherever it was cut
//! (between words, as [`crate::engine::text::cut`] cuts; tests/pieces.rs
//! holds it to that). [`crate::engine::Engine::fingerprint`] is one piece.
//!
//! Work several algorithms need is done once per piece: the word-shingle
//! hashes (shingle, MinHash and through it super-shingles), the per-term
//! IDF (the SimHash family) and the NIDF band (both I-Match variants).

use std::collections::TryReserveError;

use crate::engine::algo::exact::ExactStream;
use crate::engine::algo::imatch::push_band_terms;
use crate::engine::algo::minhash::Bins;
use crate::engine::algo::pieces::{DistinctCount, DistinctHashes, GramTail};
use crate::engine::algo::shingle::ShingleSetBuilder;
use crate::engine::algo::si::SiStream;
use crate::engine::algo::simhash::{quantize, Counters};
use crate::engine::algo::simhash_lexicons::LexiconCounters;
use crate::engine::algo::simhash_shingle::ShingleCounters;
use crate::engine::algo::winnow::WinnowStream;
use crate::engine::algo::AlgorithmId as Id;
use crate::engine::analysis::Analysis;
use crate::engine::stats::TermWeights;
use crate::engine::text::tokenize::shingle_hashes;
use crate::engine::{Engine, Fingerprints};

impl Engine {
    /// Fingerprint an analyzed document with every enabled algorithm (one
    /// piece to a [`Fingerprinter`]). The results equal each algorithm's
    /// own [`crate::engine::algo::Algorithm::fingerprint`]. An error when
    /// memory for the fingerprints cannot be had (a reader skips the file
    /// with the reason).
    pub fn fingerprint(
        &self,
        doc: &Analysis,
        weights: &dyn TermWeights,
    ) -> Result<Fingerprints, TryReserveError> {
        Ok(self
            .print(doc, weights, PrintOptions::default())?
            .fingerprints)
    }

    /// [`Engine::fingerprint`] with the measures `options` asks for, made
    /// in the same pass (the distinct shingles are counted while the
    /// fingerprints are made, not sorted again afterwards).
    pub fn print(
        &self,
        doc: &Analysis,
        weights: &dyn TermWeights,
        options: PrintOptions,
    ) -> Result<Printed, TryReserveError> {
        let mut printer = Fingerprinter::new(self, weights, options);
        printer.push(doc)?;
        printer.finish()
    }
}

/// A document's fingerprints and the measures stored beside them.
#[derive(Debug, Clone, PartialEq)]
pub struct Printed {
    /// Every enabled algorithm's fingerprint.
    pub fingerprints: Fingerprints,
    /// The containment rule's size guard, as [`Engine::shingle_count`]
    /// gives it.
    pub shingles: usize,
    /// Distinct (64-bit, unsampled) word shingles under `shingle`'s `w` and
    /// seed, when asked for ([`PrintOptions::count_all_shingles`]): the
    /// size of [`crate::engine::measure::shingle_set`].
    pub all_shingles: Option<usize>,
    /// The sampled word shingles, when asked for
    /// ([`PrintOptions::sample_shingles`]): `(top 32 bits of the hash,
    /// position)` of each sampled one, in order.
    pub samples: Option<Vec<(u32, u32)>>,
}

/// What a [`Fingerprinter`] measures besides the fingerprints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Count the distinct word shingles (8 bytes each while counting).
    pub count_all_shingles: bool,
    /// Sample the word shingles under `shingle`'s settings as the
    /// boilerplate learner reads them ([`ShingleSampler`]), from the
    /// shingles the fingerprints are made of rather than hashed again.
    pub sample_shingles: Option<ShingleSampler>,
}

/// Which word shingles the boilerplate learner samples: those the `shingle`
/// candidate index keys on, `(top >> 7) % modulus == 0` of each hash's top
/// 32 bits (so its postings are the index's document frequencies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShingleSampler {
    modulus: u64,
    /// `modulus - 1` when it is a power of two: a division per word was
    /// most of the sampling's cost.
    mask: Option<u64>,
}

impl ShingleSampler {
    /// Sampling one shingle in `modulus` (at least 1).
    pub fn new(modulus: u64) -> Self {
        let modulus = modulus.max(1);
        Self {
            modulus,
            mask: modulus.is_power_of_two().then(|| modulus - 1),
        }
    }

    /// Whether a shingle whose hash has these top 32 bits is sampled.
    #[inline]
    pub fn keeps(&self, top: u32) -> bool {
        match self.mask {
            Some(mask) => u64::from(top >> 7) & mask == 0,
            None => u64::from(top >> 7) % self.modulus == 0,
        }
    }

    /// The sampled ones of `shingles` (hashes, the first at position
    /// `first`): `(top 32 bits of the hash, position)`, in order.
    pub fn sampled(
        self,
        shingles: impl IntoIterator<Item = u64>,
        first: u32,
    ) -> impl Iterator<Item = (u32, u32)> {
        shingles.into_iter().enumerate().filter_map(move |(i, h)| {
            let top = (h >> 32) as u32;
            self.keeps(top).then_some((top, first + i as u32))
        })
    }

    /// Room for the samples of `shingles` shingles: the expected count and
    /// four standard deviations, so that it is grown almost never and kept
    /// without much spare.
    pub fn room(&self, shingles: usize) -> usize {
        let expected = shingles as u64 / self.modulus;
        (expected + 4 * expected.isqrt() + 8) as usize
    }
}

/// Every enabled algorithm's state over a document given in pieces.
pub struct Fingerprinter<'e> {
    engine: &'e Engine,
    weights: &'e dyn TermWeights,
    options: PrintOptions,
    exact: Option<ExactStream>,
    /// The word-shingle stream under `shingle`'s settings, when the
    /// shingle set, a shared MinHash sketch or the count reads it.
    words: Option<GramTail<u64>>,
    shingle_set: Option<ShingleSetBuilder>,
    /// The count of every shingle without the `shingle` fingerprint.
    all_shingles: Option<DistinctCount>,
    /// The learner's samples so far, and the shingles seen (the position
    /// of the next).
    samples: Option<(ShingleSampler, Vec<(u32, u32)>)>,
    shingles_seen: u32,
    /// MinHash's own word-shingle stream when its settings differ.
    minhash_words: Option<GramTail<u64>>,
    bins: Option<Bins>,
    simhash: Option<Counters>,
    simhash_shingle: Option<ShingleCounters>,
    lexicons: Option<LexiconCounters>,
    band: Option<DistinctHashes<u64>>,
    /// I-Match-lexicons' band when its settings differ from `imatch`'s.
    lexicon_band: Option<DistinctHashes<u64>>,
    winnow: Option<WinnowStream>,
    si: Option<SiStream<'e>>,
}

impl<'e> Fingerprinter<'e> {
    /// A document's fingerprinting under `engine`, its terms weighted by
    /// `weights`, before any piece.
    pub fn new(engine: &'e Engine, weights: &'e dyn TermWeights, options: PrintOptions) -> Self {
        let a = &engine.algorithms;
        let on = |id| engine.is_enabled(id);
        let (sh, mh) = (&a.shingle.config, &a.minhash.config);
        let minhash_shares = sh.w == mh.w && sh.seed == mh.shingle_seed;
        let sketch = on(Id::Minhash) || on(Id::Supershingle);
        let words_read = on(Id::Shingle)
            || (sketch && minhash_shares)
            || options.count_all_shingles
            || options.sample_shingles.is_some();
        let set_builder = on(Id::Shingle).then(|| {
            a.shingle
                .set_builder(options.count_all_shingles || sh.modulus > 1)
        });
        let full_known = on(Id::SimhashShingle)
            && a.simhash_lexicons
                .full_lexicon_is(&a.simhash_shingle.config);
        Self {
            engine,
            weights,
            options,
            exact: on(Id::Exact).then(|| a.exact.stream()),
            words: words_read.then(|| GramTail::new(sh.w)),
            all_shingles: (options.count_all_shingles && !on(Id::Shingle)).then(DistinctCount::new),
            samples: options.sample_shingles.map(|sampler| (sampler, Vec::new())),
            shingles_seen: 0,
            shingle_set: set_builder,
            minhash_words: (sketch && !minhash_shares).then(|| GramTail::new(mh.w)),
            bins: sketch.then(|| a.minhash.bins()),
            simhash: on(Id::Simhash).then(Counters::default),
            simhash_shingle: on(Id::SimhashShingle).then(|| a.simhash_shingle.counters()),
            lexicons: on(Id::SimhashLexicons).then(|| a.simhash_lexicons.counters(full_known)),
            band: on(Id::Imatch).then(DistinctHashes::new),
            lexicon_band: (on(Id::ImatchLexicons)
                && !(on(Id::Imatch) && a.imatch_lexicons.config.imatch == a.imatch.config))
                .then(DistinctHashes::new),
            winnow: on(Id::Winnow).then(|| a.winnow.stream()),
            si: on(Id::Si).then(|| a.si.stream()),
        }
    }

    /// The analysis of the document's next piece.
    pub fn push(&mut self, doc: &Analysis) -> Result<(), TryReserveError> {
        let a = &self.engine.algorithms;
        if let Some(exact) = &mut self.exact {
            exact.push(&doc.words);
        }
        if let Some(words) = &mut self.words {
            let (w, seed) = (a.shingle.config.w, a.shingle.config.seed);
            let shingles: Vec<u64> = words
                .push(&doc.words, |joined| {
                    shingle_hashes(joined, w, seed).collect()
                })?
                .unwrap_or_default();
            self.take_shingles(&shingles)?;
        }
        if let (Some(words), Some(bins)) = (&mut self.minhash_words, &mut self.bins) {
            let (w, seed) = (a.minhash.config.w, a.minhash.config.shingle_seed);
            words.push(&doc.words, |joined| {
                bins.push(shingle_hashes(joined, w, seed));
            })?;
        }
        self.take_terms(&doc.terms)?;
        if let Some(winnow) = &mut self.winnow {
            winnow.push(&doc.alnum)?;
        }
        if let Some(si) = &mut self.si {
            si.push(doc)?;
        }
        Ok(())
    }

    /// Word shingles under `shingle`'s settings, to the set, the count and
    /// a shared sketch.
    fn take_shingles(&mut self, shingles: &[u64]) -> Result<(), TryReserveError> {
        if let Some(set) = &mut self.shingle_set {
            set.push(shingles)?;
        }
        if let Some(all) = &mut self.all_shingles {
            all.extend(shingles)?;
        }
        if let Some((sampler, samples)) = &mut self.samples {
            let at = self.shingles_seen;
            crate::engine::memory::try_reserve(samples, sampler.room(shingles.len()))?;
            samples.extend(sampler.sampled(shingles.iter().copied(), at));
            self.shingles_seen += shingles.len() as u32;
        }
        if self.minhash_words.is_none() {
            if let Some(bins) = &mut self.bins {
                bins.push(shingles.iter().copied());
            }
        }
        Ok(())
    }

    /// A piece's terms to the IDF-weighted algorithms: each term's IDF is
    /// looked up once, rounded to weight units for the SimHash family.
    fn take_terms(&mut self, terms: &[u64]) -> Result<(), TryReserveError> {
        let simhash_family =
            self.simhash.is_some() || self.simhash_shingle.is_some() || self.lexicons.is_some();
        let bands = self.band.is_some() || self.lexicon_band.is_some();
        if !simhash_family && !bands {
            return Ok(());
        }
        let a = &self.engine.algorithms;
        let weights = self.weights;
        let exact_idf: Vec<f64> = terms.iter().map(|&t| weights.idf(t)).collect();
        if simhash_family {
            let idf: Vec<u32> = exact_idf.iter().map(|&w| quantize(w)).collect();
            if let Some(counters) = &mut self.simhash {
                a.simhash.add_weighted_terms(counters, terms, &idf);
            }
            if let Some(counters) = &mut self.simhash_shingle {
                counters.push(terms, &idf)?;
            }
            if let Some(lexicons) = &mut self.lexicons {
                lexicons.push(terms, &idf)?;
            }
        }
        let unseen = weights.unseen_idf();
        if let Some(band) = &mut self.band {
            push_band_terms(band, terms, &exact_idf, unseen, &a.imatch.config)?;
        }
        if let Some(band) = &mut self.lexicon_band {
            let config = &a.imatch_lexicons.config.imatch;
            push_band_terms(band, terms, &exact_idf, unseen, config)?;
        }
        Ok(())
    }

    /// The fingerprints of every piece pushed, and the measures beside them.
    pub fn finish(mut self) -> Result<Printed, TryReserveError> {
        let engine = self.engine;
        let a = &engine.algorithms;
        let on = |id| engine.is_enabled(id);
        // A document shorter than a shingle has one shingle of all its words.
        if let Some(short) = self.words.as_ref().and_then(GramTail::short) {
            let (w, seed) = (a.shingle.config.w, a.shingle.config.seed);
            let shingles: Vec<u64> = shingle_hashes(short, w, seed).collect();
            self.take_shingles(&shingles)?;
        }
        if let (Some(words), Some(bins)) = (&self.minhash_words, &mut self.bins) {
            if let Some(short) = words.short() {
                let (w, seed) = (a.minhash.config.w, a.minhash.config.shingle_seed);
                bins.push(shingle_hashes(short, w, seed));
            }
        }
        let sketch = self.bins.map(Bins::finish);
        let (shingle, counted) = match self.shingle_set {
            Some(set) => {
                let (set, counted) = set.finish()?;
                (Some(set), counted)
            }
            None => (None, self.all_shingles.map(DistinctCount::finish)),
        };
        let shingles = match &shingle {
            Some(set) if a.shingle.config.modulus <= 1 => set.len(),
            Some(_) => counted.unwrap_or_default(),
            None => 0,
        };
        let simhash_shingle = self.simhash_shingle.map(ShingleCounters::finish);
        let band = self.band.map(DistinctHashes::finish);
        let lexicon_band = match self.lexicon_band {
            Some(own) => Some(own.finish()),
            None => band.clone().filter(|_| on(Id::ImatchLexicons)),
        };
        let fingerprints = Fingerprints {
            exact: self.exact.map(|exact| exact.finish()),
            shingle,
            supershingle: on(Id::Supershingle).then(|| {
                a.supershingle
                    .from_sketch(sketch.as_deref().unwrap_or_default())
            }),
            minhash: sketch.filter(|_| on(Id::Minhash)),
            simhash: self
                .simhash
                .map(|counters| counters.finish(a.simhash.config.bits)),
            simhash_shingle,
            simhash_lexicons: self
                .lexicons
                .map(|lexicons| lexicons.finish(simhash_shingle.flatten())),
            imatch: band.as_deref().map(|terms| a.imatch.from_band_terms(terms)),
            imatch_lexicons: lexicon_band
                .as_deref()
                .map(|terms| a.imatch_lexicons.from_band_terms(terms)),
            winnow: self.winnow.map(WinnowStream::finish).transpose()?,
            si: self.si.map(SiStream::finish),
        };
        Ok(Printed {
            fingerprints,
            shingles,
            all_shingles: counted.filter(|_| self.options.count_all_shingles),
            samples: self.samples.map(|(_, samples)| samples),
        })
    }
}
