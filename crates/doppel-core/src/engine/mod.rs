//! The engine: one configuration of every algorithm, applied to documents
//! and pairs.
//!
//! [`Engine::analyze`] runs the text pipeline once per document,
//! [`Engine::fingerprint`] derives every enabled algorithm's fingerprint
//! from that single analysis (MinHash's sketch is reused for super-shingles),
//! and [`Engine::compare`] scores a pair with every algorithm. [`Verdict`]
//! applies the thresholds and the `fusion` rule. The engine holds no
//! documents; indexes and stores are built on top of it.

pub mod algo;
pub mod analysis;
pub mod body;
pub mod document;
pub mod family;
pub mod fingerprinter;
mod fusion;
pub mod locate;
pub mod measure;
pub mod memory;
pub mod quality;
pub mod relation;
pub mod stats;
pub mod text;
mod word_cache;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::engine::algo::exact::{Exact, ExactConfig, ExactFingerprint};
use crate::engine::algo::imatch::{Imatch, ImatchConfig, ImatchFingerprint};
use crate::engine::algo::imatch_lexicons::{
    ImatchLexicons, ImatchLexiconsConfig, ImatchLexiconsFingerprint,
};
use crate::engine::algo::minhash::{Minhash, MinhashConfig, MinhashFingerprint};
use crate::engine::algo::shingle::{Shingle, ShingleConfig, ShingleFingerprint};
use crate::engine::algo::si::{Si, SiConfig, SiFingerprint, Stream};
use crate::engine::algo::simhash::{Simhash, SimhashConfig, SimhashFingerprint};
use crate::engine::algo::simhash_lexicons::{
    SimhashLexicons, SimhashLexiconsConfig, SimhashLexiconsFingerprint,
};
use crate::engine::algo::simhash_shingle::{SimhashShingle, SimhashShingleConfig};
use crate::engine::algo::supershingle::{
    Supershingle, SupershingleConfig, SupershingleFingerprint,
};
use crate::engine::algo::winnow::{Winnow, WinnowConfig, WinnowFingerprint};
use crate::engine::algo::{Algorithm, AlgorithmId, AlgorithmSet, Score};
use crate::engine::analysis::{Analysis, Analyzer, Needs};
pub use crate::engine::family::Family;
pub use crate::engine::relation::{Containments, Relation, RelationKind, RelationRule, Side};
use crate::engine::stats::{IdfSource, IdfTable};
use crate::engine::text::TokenizerConfig;
pub use fusion::{FusionConfig, FusionRule};

/// Parameters of every algorithm (each with documented defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct AlgorithmsConfig {
    /// `exact`'s parameters.
    pub exact: ExactConfig,
    /// `shingle`'s parameters.
    pub shingle: ShingleConfig,
    /// `minhash`'s parameters (super-shingles cut its sketch).
    pub minhash: MinhashConfig,
    /// `supershingle`'s parameters.
    pub supershingle: SupershingleConfig,
    /// `simhash`'s parameters.
    pub simhash: SimhashConfig,
    /// `simhash-shingle`'s parameters.
    pub simhash_shingle: SimhashShingleConfig,
    /// `simhash-lexicons`' parameters.
    pub simhash_lexicons: SimhashLexiconsConfig,
    /// `imatch`'s parameters.
    pub imatch: ImatchConfig,
    /// `imatch-lexicons`' parameters.
    pub imatch_lexicons: ImatchLexiconsConfig,
    /// `winnow`'s parameters.
    pub winnow: WinnowConfig,
    /// `si`'s parameters.
    pub si: SiConfig,
}

/// Per-algorithm thresholds in each algorithm's native unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Thresholds(pub BTreeMap<AlgorithmId, f64>);

impl Default for Thresholds {
    fn default() -> Self {
        use AlgorithmId::*;
        Self(BTreeMap::from([
            (Exact, 1.0),
            (Shingle, 0.2),
            (Minhash, 0.2),
            (Supershingle, 2.0),
            (Simhash, 10.0),
            (SimhashShingle, 14.0),
            (SimhashLexicons, 12.0),
            (Imatch, 1.0),
            (ImatchLexicons, 1.0),
            (Winnow, 0.25),
            (Si, 0.7),
        ]))
    }
}

impl Thresholds {
    /// The threshold of `id` (the default's when unset).
    pub fn get(&self, id: AlgorithmId) -> f64 {
        self.0
            .get(&id)
            .copied()
            .unwrap_or_else(|| Thresholds::default().0[&id])
    }

    /// Set the threshold of `id`.
    pub fn set(&mut self, id: AlgorithmId, value: f64) {
        self.0.insert(id, value);
    }

    /// Whether `threshold` for `id` is at least as strict as this set's
    /// value (so pairs kept under this set cover it).
    pub fn allows(&self, id: AlgorithmId, threshold: f64) -> bool {
        match id.unit() {
            crate::engine::algo::Unit::HammingBits => threshold <= self.get(id),
            _ => threshold >= self.get(id),
        }
    }
}

/// One configuration of every algorithm: what documents are fingerprinted with and pairs judged by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct EngineConfig {
    /// How text becomes words and terms.
    pub tokenizer: TokenizerConfig,
    /// Every algorithm's parameters.
    pub algorithms: AlgorithmsConfig,
    /// Algorithms computed at all. Default: every one.
    pub enabled: BTreeSet<AlgorithmId>,
    /// Where IDF weights come from.
    pub idf: IdfSource,
    /// Each algorithm's duplicate threshold.
    pub thresholds: Thresholds,
    /// How `fusion` combines the algorithms.
    pub fusion: FusionConfig,
}

impl EngineConfig {
    /// The `fusion` rule for the enabled algorithms.
    pub fn fusion_rule(&self) -> FusionRule {
        self.fusion.rule(&self.enabled)
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            tokenizer: TokenizerConfig::default(),
            algorithms: AlgorithmsConfig::default(),
            enabled: AlgorithmId::ALL.into_iter().collect(),
            idf: IdfSource::default(),
            thresholds: Thresholds::default(),
            fusion: FusionConfig::default(),
        }
    }
}

/// Every enabled algorithm's fingerprint of one document (`None` where the
/// algorithm is disabled).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fingerprints {
    /// `exact`'s hash of the normalized words.
    pub exact: Option<ExactFingerprint>,
    /// `shingle`'s (sampled) shingle set.
    #[serde(with = "crate::packed::option")]
    pub shingle: Option<ShingleFingerprint>,
    /// `minhash`'s sketch.
    #[serde(with = "crate::hash::le_u32s::option")]
    pub minhash: Option<MinhashFingerprint>,
    /// `supershingle`'s signatures.
    #[serde(with = "crate::hash::le_u64s::option")]
    pub supershingle: Option<SupershingleFingerprint>,
    /// `simhash`'s fingerprint.
    pub simhash: Option<SimhashFingerprint>,
    /// `simhash-shingle`'s fingerprint.
    pub simhash_shingle: Option<SimhashFingerprint>,
    /// `simhash-lexicons`' fingerprint per lexicon.
    pub simhash_lexicons: Option<SimhashLexiconsFingerprint>,
    /// `imatch`'s signature.
    pub imatch: Option<ImatchFingerprint>,
    /// `imatch-lexicons`' signatures.
    pub imatch_lexicons: Option<ImatchLexiconsFingerprint>,
    /// `winnow`'s selected hashes.
    pub winnow: Option<WinnowFingerprint>,
    /// `si`'s sketch and index.
    pub si: Option<SiFingerprint>,
}

impl Fingerprints {
    /// The part a library keeps in memory ([`ResidentPrints`]).
    pub fn hot(&self) -> ResidentPrints {
        ResidentPrints {
            minhash: self
                .minhash
                .as_ref()
                .map(|sketch| sketch.iter().map(|&v| v as u8).collect()),
            simhash: self.simhash,
            simhash_shingle: self.simhash_shingle,
            simhash_lexicons: self.simhash_lexicons.clone(),
            si: self.si.as_ref().map(SiFingerprint::index),
        }
    }
}

/// What a library keeps in memory of a document's fingerprints: those of
/// the algorithms whose candidate tables cannot tell by itself whether a
/// candidate passes the floor (MinHash's bands, SimHash's band tables, SI's
/// value range), about 0.4 KB. The rest (the shingle and winnowing sets,
/// the signatures, SI's sketch) stays in the store until a candidate is verified: a
/// signature table's shared key is a matched signature, and the inverted
/// indexes count the shared keys that estimate an overlap.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResidentPrints {
    /// The MinHash sketch's values cut to their low 8 bits, enough for the
    /// cheap check: two different minima agree on them by chance once in
    /// 256 bins, so the check's estimate of a Jaccard J reads (1 − J)/256
    /// high on average and never low (nothing the full sketch passes is
    /// missed); the verified score compares the full values.
    #[serde(with = "crate::hash::le_u8s::option")]
    pub minhash: Option<Vec<u8>>,
    /// `simhash`'s fingerprint (all of it: it is small).
    pub simhash: Option<SimhashFingerprint>,
    /// `simhash-shingle`'s fingerprint.
    pub simhash_shingle: Option<SimhashFingerprint>,
    /// `simhash-lexicons`' fingerprints.
    pub simhash_lexicons: Option<SimhashLexiconsFingerprint>,
    /// SI's index alone (`Some(None)`: an empty sketch): its closeness is
    /// the cheap check, never below the verified score, which also needs
    /// the sketches to share sampled k-grams.
    pub si: Option<Option<u64>>,
}

impl ResidentPrints {
    /// The algorithms whose fingerprints are among the hot ones.
    pub const HELD: AlgorithmSet = AlgorithmSet::EMPTY
        .with(AlgorithmId::Minhash)
        .with(AlgorithmId::Simhash)
        .with(AlgorithmId::SimhashShingle)
        .with(AlgorithmId::SimhashLexicons)
        .with(AlgorithmId::Si);

    /// ... and those among them kept apart from this value, on the heap
    /// ([`ResidentPrints::prefetch`] asks for them).
    pub const APART: AlgorithmSet = AlgorithmSet::EMPTY
        .with(AlgorithmId::Minhash)
        .with(AlgorithmId::SimhashLexicons);

    /// Start loading the hot prints kept apart from this value (MinHash's
    /// low bytes, the lexicons' fingerprints) into the cache (a hint).
    pub fn prefetch(&self) {
        if let Some(minhash) = &self.minhash {
            crate::hash::prefetch(minhash, 0);
        }
        if let Some(lexicons) = &self.simhash_lexicons {
            crate::hash::prefetch(lexicons, 0);
        }
    }

    /// Whether `id`'s fingerprints are among the hot ones.
    pub fn holds(id: AlgorithmId) -> bool {
        Self::HELD.contains(id)
    }
}

/// Every algorithm's score for one pair (only algorithms enabled on both sides).
pub type PairScores = BTreeMap<AlgorithmId, Score>;

/// A pair's scores judged against thresholds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// Algorithms whose threshold the pair passes.
    pub passing: Vec<AlgorithmId>,
    /// The smaller document's share of shingles found in the larger one.
    pub containment: Option<f64>,
    /// Whether the containment rule alone makes it a duplicate.
    pub contained: bool,
    /// The `fusion` verdict.
    pub fusion: bool,
    /// What the two are to each other ([`RelationRule::relation`] under
    /// the `fusion` verdict), oriented from the pair's first document.
    pub relation: Option<Relation>,
}

struct Algorithms {
    exact: Exact,
    shingle: Shingle,
    minhash: Minhash,
    supershingle: Supershingle,
    simhash: Simhash,
    simhash_shingle: SimhashShingle,
    simhash_lexicons: SimhashLexicons,
    imatch: Imatch,
    imatch_lexicons: ImatchLexicons,
    winnow: Winnow,
    si: Si,
}

/// The algorithms of one [`EngineConfig`], ready to analyze, fingerprint and compare documents (holds no document).
pub struct Engine {
    config: EngineConfig,
    /// The fusion rule for the enabled algorithms.
    fusion: FusionRule,
    analyzer: Analyzer,
    algorithms: Algorithms,
    reference: IdfTable,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .finish()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Self::new(EngineConfig::default())
    }
}

/// The SimHash family's fingerprints, which the full and the hot prints
/// both hold.
trait SimhashPrints {
    fn simhash(&self) -> &Option<SimhashFingerprint>;
    fn simhash_shingle(&self) -> &Option<SimhashFingerprint>;
    fn simhash_lexicons(&self) -> &Option<SimhashLexiconsFingerprint>;
}

macro_rules! simhash_prints {
    ($($t:ty),*) => {$(
        impl SimhashPrints for $t {
            fn simhash(&self) -> &Option<SimhashFingerprint> {
                &self.simhash
            }
            fn simhash_shingle(&self) -> &Option<SimhashFingerprint> {
                &self.simhash_shingle
            }
            fn simhash_lexicons(&self) -> &Option<SimhashLexiconsFingerprint> {
                &self.simhash_lexicons
            }
        }
    )*};
}

simhash_prints!(Fingerprints, ResidentPrints);

/// `algo`'s score for two fingerprints; `None` where a side has none.
fn score_both<A: Algorithm>(
    algo: &A,
    x: &Option<A::Fingerprint>,
    y: &Option<A::Fingerprint>,
) -> Option<Score> {
    Some(algo.score(x.as_ref()?, y.as_ref()?))
}

impl Engine {
    /// The engine of `config`.
    pub fn new(config: EngineConfig) -> Self {
        let a = config.algorithms.clone();
        let analyzer = Analyzer::new(&config.tokenizer);
        let reference = if config.tokenizer.same_terms(&TokenizerConfig::default()) {
            IdfTable::reference()
        } else {
            IdfTable::default()
        };
        Self {
            algorithms: Algorithms {
                exact: Exact::new(a.exact),
                shingle: Shingle::new(a.shingle),
                minhash: Minhash::new(a.minhash.clone()),
                supershingle: Supershingle::new(a.supershingle, a.minhash),
                simhash: Simhash::new(a.simhash),
                simhash_shingle: SimhashShingle::new(a.simhash_shingle),
                simhash_lexicons: SimhashLexicons::new(a.simhash_lexicons),
                imatch: Imatch::new(a.imatch),
                imatch_lexicons: ImatchLexicons::new(a.imatch_lexicons),
                winnow: Winnow::new(a.winnow),
                si: Si::new(a.si, &config.tokenizer),
            },
            analyzer,
            reference,
            fusion: config.fusion_rule(),
            config,
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The `fusion` rule in force ([`EngineConfig::fusion_rule`]).
    pub fn fusion_rule(&self) -> &FusionRule {
        &self.fusion
    }

    /// The text analyzer (tokenizer and per-thread word cache).
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The pinned reference weights (empty for a non-default tokenizer, in
    /// which case use collection statistics).
    pub fn reference_weights(&self) -> &IdfTable {
        &self.reference
    }

    /// Whether `id` is computed.
    pub fn is_enabled(&self, id: AlgorithmId) -> bool {
        self.config.enabled.contains(&id)
    }

    /// Normalize and analyze decoded text, without its page furniture
    /// when the tokenizer strips it (the one place every algorithm's input
    /// is made).
    ///
    /// Only the parts the enabled algorithms read are built. Where memory
    /// for the furniture's line table cannot be had, the text is analyzed
    /// with its furniture (and a warning logged); a reader uses
    /// [`Engine::try_analyze`] and skips the file instead.
    pub fn analyze(&self, text: &str) -> Analysis {
        self.try_analyze(text).unwrap_or_else(|error| {
            tracing::warn!(%error, "no memory for the page furniture's lines: analyzed with it");
            self.analyze_stripped(text)
        })
    }

    /// [`Engine::analyze`], failing when memory for the page furniture's
    /// line table (12 bytes a line) cannot be had.
    pub fn try_analyze(&self, text: &str) -> Result<Analysis, std::collections::TryReserveError> {
        let furniture = self.furniture_of(text)?;
        Ok(self.analyze_stripped(&text::page_furniture::strip_ranges(text, furniture)))
    }

    /// Analyze decoded text whose page furniture is already left out (or
    /// kept, as the tokenizer says): the whole of a document, or a piece of
    /// it ([`document`]).
    pub fn analyze_stripped(&self, text: &str) -> Analysis {
        use AlgorithmId as Id;
        let on = |id| self.is_enabled(id);
        let si_stream = self.config.algorithms.si.stream;
        let needs = Needs {
            text: on(Id::Si) && si_stream == Stream::Char,
            alnum: on(Id::Winnow),
            terms: [
                Id::Simhash,
                Id::SimhashShingle,
                Id::SimhashLexicons,
                Id::Imatch,
                Id::ImatchLexicons,
            ]
            .into_iter()
            .any(on)
                || (on(Id::Si)
                    && match si_stream {
                        Stream::Soundex => true,
                        Stream::Word => self.config.algorithms.si.variation.removes_stopwords(),
                        Stream::Char => false,
                    }),
        };
        self.analyzer.analyze_with(text, needs)
    }

    /// Whether a document's count of every distinct word shingle
    /// ([`fingerprinter::PrintOptions::count_all_shingles`]) bears on a
    /// pair under this configuration: the containment rule's size guard
    /// (containment is `shingle`'s) and the SimHash family's long-document
    /// rule (`vocabulary_counts`). Without them nothing reads it, and
    /// counting was a tenth of reading 4 KB texts.
    pub fn reads_shingle_count(&self) -> bool {
        AlgorithmId::ALL.into_iter().any(|id| {
            self.is_enabled(id)
                && (id == AlgorithmId::Shingle || Family::of(id) == Family::Vocabulary)
        })
    }

    /// Distinct word shingles of a document (the containment rule's size
    /// guard): read off the `shingle` fingerprint when it is unsampled,
    /// counted from the analysis when sampled, and 0 without `shingle`
    /// (containment, which needs it, then never applies).
    pub fn shingle_count(&self, doc: &Analysis, fingerprints: &Fingerprints) -> usize {
        let config = &self.config.algorithms.shingle;
        match &fingerprints.shingle {
            Some(set) if config.modulus <= 1 => set.len(),
            Some(_) => crate::engine::measure::shingle_set(doc, config.w, config.seed).len(),
            None => 0,
        }
    }

    /// One algorithm's score for a pair (`None` where a side lacks its
    /// fingerprint): the engine's one per-algorithm dispatch.
    pub fn score(&self, id: AlgorithmId, x: &Fingerprints, y: &Fingerprints) -> Option<Score> {
        use AlgorithmId as Id;
        let a = &self.algorithms;
        match id {
            Id::Exact => score_both(&a.exact, &x.exact, &y.exact),
            Id::Shingle => score_both(&a.shingle, &x.shingle, &y.shingle),
            Id::Minhash => score_both(&a.minhash, &x.minhash, &y.minhash),
            Id::Supershingle => score_both(&a.supershingle, &x.supershingle, &y.supershingle),
            Id::Simhash | Id::SimhashShingle | Id::SimhashLexicons => {
                self.score_simhash_family(id, x, y)
            }
            Id::Imatch => score_both(&a.imatch, &x.imatch, &y.imatch),
            Id::ImatchLexicons => {
                score_both(&a.imatch_lexicons, &x.imatch_lexicons, &y.imatch_lexicons)
            }
            Id::Winnow => score_both(&a.winnow, &x.winnow, &y.winnow),
            Id::Si => score_both(&a.si, &x.si, &y.si),
        }
    }

    /// The SimHash family's score, from full or hot fingerprints alike.
    fn score_simhash_family(
        &self,
        id: AlgorithmId,
        x: &impl SimhashPrints,
        y: &impl SimhashPrints,
    ) -> Option<Score> {
        let a = &self.algorithms;
        match id {
            AlgorithmId::Simhash => score_both(&a.simhash, x.simhash(), y.simhash()),
            AlgorithmId::SimhashShingle => {
                score_both(&a.simhash_shingle, x.simhash_shingle(), y.simhash_shingle())
            }
            AlgorithmId::SimhashLexicons => score_both(
                &a.simhash_lexicons,
                x.simhash_lexicons(),
                y.simhash_lexicons(),
            ),
            _ => None,
        }
    }

    /// [`Engine::score`] of the algorithms whose fingerprints are hot
    /// ([`ResidentPrints::holds`]); `None` for the others. MinHash compares the
    /// sketches' low bytes and SI its indexes alone (see [`ResidentPrints`]).
    pub fn score_hot(
        &self,
        id: AlgorithmId,
        x: &ResidentPrints,
        y: &ResidentPrints,
    ) -> Option<Score> {
        match id {
            AlgorithmId::Minhash => match (&x.minhash, &y.minhash) {
                (Some(x), Some(y)) => Some(match Minhash::estimate(x, y) {
                    Some(value) => Score::Similarity { value },
                    None => Score::Incomparable,
                }),
                _ => None,
            },
            AlgorithmId::Si => match (x.si, y.si) {
                (Some(x), Some(y)) => Some(Si::closeness(x, y)),
                _ => None,
            },
            id => self.score_simhash_family(id, x, y),
        }
    }

    /// Every algorithm's score for a pair (those both fingerprints carry).
    pub fn compare(&self, x: &Fingerprints, y: &Fingerprints) -> PairScores {
        AlgorithmId::ALL
            .into_iter()
            .filter_map(|id| Some((id, self.score(id, x, y)?)))
            .collect()
    }

    /// Judge scores against the configured thresholds and fusion rule.
    pub fn verdict(&self, scores: &PairScores, smaller_shingles: usize) -> Verdict {
        verdict(
            scores,
            &self.config.thresholds,
            &self.fusion,
            smaller_shingles,
        )
    }
}

/// Judge scores against `thresholds` and the fusion rule. `smaller_shingles`
/// is the shingle count of the smaller document (for the containment rule).
pub fn verdict(
    scores: &PairScores,
    thresholds: &Thresholds,
    fusion: &FusionRule,
    smaller_shingles: usize,
) -> Verdict {
    let passing: Vec<AlgorithmId> = scores
        .iter()
        .filter(|(&id, score)| score.passes(thresholds.get(id)))
        .map(|(&id, _)| id)
        .collect();
    let containments = scores.get(&AlgorithmId::Shingle).and_then(Containments::of);
    let votes = fusion.votes(passing.iter().copied().collect());
    let duplicate = fusion.decides(votes, containments, smaller_shingles);
    Verdict {
        fusion: duplicate,
        contained: fusion.contained(containments, smaller_shingles),
        relation: fusion
            .relations
            .relation(containments, smaller_shingles, duplicate),
        passing,
        containment: containments.map(Containments::larger),
    }
}
