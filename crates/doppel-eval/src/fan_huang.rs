//! The Fan & Huang (2010) protocol on a folder of books.
//!
//! See the module documentation of [`crate`] for the protocol and the
//! choices the paper leaves open.

use std::path::Path;
use std::time::Instant;

use super::error::{ensure, EvalError, Result};
use rayon::prelude::*;
use serde::Serialize;

use super::edit::{chunk_text, edit_words, vocabulary, Edited};
use doppel_core::engine::algo::simhash::hamming_score;
use doppel_core::engine::algo::{AlgorithmId, Score, Unit};
use doppel_core::engine::measure::shingle_set;
use doppel_core::engine::{verdict, Engine, EngineConfig, Fingerprints, FusionConfig};
use doppel_core::hash::{rehash, SplitMix64};
use doppel_index::collection::{list_files, read_text, DEFAULT_SIZE_CAP};

/// Fan & Huang's best F-measure of plain SimHash (shingle size 1, Fig. 2).
pub const PAPER_SIMHASH_F: f64 = 0.6117;
/// Fan & Huang's best F-measure of 2-shingle SimHash (Fig. 2; Table 1, L = 1).
pub const PAPER_SIMHASH_SHINGLE_F: f64 = 0.7469;
/// Fan & Huang's Table 1: best F-measure and its Hamming threshold for
/// random-lexicon counts 1 to 10 (32-bit, 2-shingle SimHash).
pub const PAPER_TABLE1: [(f64, u32); 10] = [
    (0.7469, 4),
    (0.8071, 6),
    (0.8213, 3),
    (0.8515, 2),
    (0.8805, 3),
    (0.7855, 3),
    (0.8356, 3),
    (0.8077, 1),
    (0.8139, 2),
    (0.7942, 2),
];

/// Salt of the per-copy random streams (so copy k of a run does not depend on
/// how many chunks or threads there are).
const COPY_SALT: u64 = 0xed17_5a17;

/// Parameters of [`fan_huang`]. Defaults follow the paper where it says
/// something and are documented where it does not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FanHuangConfig {
    /// The configuration under test. Its thresholds and fusion rule drive the
    /// `fusion` curve, its SimHash widths and lexicon count are the
    /// "product" settings `fusion` uses; the per-algorithm sweeps override
    /// the SimHash widths with [`simhash_bits`](Self::simhash_bits).
    /// Default: [`EngineConfig::default`].
    pub engine: EngineConfig,
    /// Source texts (queries), S. Default: 5.
    pub sources: usize,
    /// Near-duplicates made of each source, C. Default: 120.
    pub copies: usize,
    /// Smallest edit rate (edits per word). Default: 0.01.
    pub edit_min: f64,
    /// Largest edit rate; each copy's rate is uniform in
    /// [`edit_min`, `edit_max`]. Default: 0.30.
    pub edit_max: f64,
    /// Unduplicated background texts sampled from the chunks (the paper had
    /// 143,798). 0, or more than there are, means every chunk that is not a
    /// source. Default: 10,000.
    pub background: usize,
    /// Approximate size of a text cut from a book, in bytes. Default: 4096.
    pub chunk_bytes: usize,
    /// Relative path prefixes (with `/`) left out of the collection. Default:
    /// `["web/", "commentary/"]`: the World English Bible is a translation of
    /// the KJV and the commentaries quote the KJV, so their texts would be
    /// near-duplicates of KJV texts, not "unduplicated" background.
    pub exclude: Vec<String>,
    /// File extensions (without dot, case-insensitive) that count as books;
    /// empty = every file. Default: `["txt"]` (skips `README.md` and
    /// `manifest.json` beside the books).
    pub extensions: Vec<String>,
    /// Seed of every random choice (sources, background, edits, vocabulary
    /// draws). Default: 1.
    pub seed: u64,
    /// Fingerprint width of the SimHash sweeps; thresholds run over
    /// 0..`simhash_bits`. Default: 32 (the paper's).
    pub simhash_bits: u32,
    /// Lexicon counts swept for `simhash-lexicons`: 1..=`max_lexicons`.
    /// Default: 10 (Table 1).
    pub max_lexicons: usize,
}

impl Default for FanHuangConfig {
    fn default() -> Self {
        Self {
            engine: EngineConfig::default(),
            sources: 5,
            copies: 120,
            edit_min: 0.01,
            edit_max: 0.30,
            background: 10_000,
            chunk_bytes: 4096,
            exclude: vec!["web/".into(), "commentary/".into()],
            extensions: vec!["txt".into()],
            seed: 1,
            simhash_bits: 32,
            max_lexicons: 10,
        }
    }
}

impl FanHuangConfig {
    fn validate(&self) -> Result<()> {
        ensure!(self.sources >= 1, "need at least one source text");
        ensure!(self.copies >= 1, "need at least one copy per source");
        ensure!(
            (0.0..=1.0).contains(&self.edit_min)
                && (0.0..=1.0).contains(&self.edit_max)
                && self.edit_min <= self.edit_max,
            "edit rates must satisfy 0 ≤ min ≤ max ≤ 1 (got {} and {})",
            self.edit_min,
            self.edit_max
        );
        ensure!(self.chunk_bytes >= 1, "chunk size must be positive");
        ensure!(
            (1..=64).contains(&self.simhash_bits),
            "simhash bits must be 1–64"
        );
        ensure!(self.max_lexicons >= 1, "need at least one lexicon");
        Ok(())
    }

    /// Whether the file at `rel` (relative, `/`-separated) is a book.
    pub fn includes(&self, rel: &str) -> bool {
        let excluded = self.exclude.iter().any(|p| rel.starts_with(p.as_str()));
        let ext_ok = self.extensions.is_empty()
            || rel.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && !stem.ends_with('/')
                    && self.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))
            });
        !excluded && ext_ok
    }
}

/// One point of a threshold sweep: macro-averaged precision and recall over
/// the queries and their F-measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurvePoint {
    /// In the algorithm's native unit; for `fusion`, `min_agree`.
    pub threshold: f64,
    /// Macro-averaged precision.
    pub precision: f64,
    /// Macro-averaged recall.
    pub recall: f64,
    /// Their harmonic mean.
    pub f: f64,
}

/// One algorithm (at one setting) swept across its thresholds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// An [`AlgorithmId`] name, or `fusion`.
    pub algorithm: String,
    /// The parameters that make this curve differ from the algorithm's
    /// others, e.g. `bits=32 k=2 lexicons=5`.
    pub setting: String,
    /// How a score is compared with the threshold (`fusion` counts as
    /// [`Unit::Matches`]: family votes ≥ threshold).
    pub unit: Unit,
    /// One point per threshold, in sweep order.
    pub points: Vec<CurvePoint>,
}

impl Curve {
    /// The point with the highest F; ties go to the strictest threshold
    /// (smallest Hamming distance, largest similarity or match count).
    pub fn best(&self) -> Option<CurvePoint> {
        let mut best: Option<CurvePoint> = None;
        for &p in &self.points {
            let better = match best {
                None => true,
                Some(b) if p.f > b.f => true,
                Some(b) if p.f == b.f => match self.unit {
                    Unit::HammingBits => p.threshold < b.threshold,
                    _ => p.threshold > b.threshold,
                },
                _ => false,
            };
            if better {
                best = Some(p);
            }
        }
        best
    }
}

/// One row of the lexicon-count table (the paper's Table 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LexiconRow {
    /// How many lexicons.
    pub lexicons: usize,
    /// Best point of this lexicon count.
    pub best: CurvePoint,
    /// The paper's best F and threshold for this count (counts 1–10).
    pub paper_f: Option<f64>,
    /// See `paper_f`.
    pub paper_threshold: Option<u32>,
}

/// Where one source text came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceText {
    /// The book, relative to the books folder.
    pub file: String,
    /// Byte offset of the text in the book's decoded text.
    pub offset: usize,
    /// Its length in bytes.
    pub bytes: usize,
    /// Its words (whitespace-separated).
    pub words: usize,
}

/// Wall-clock time of each stage, in seconds (the only part of a report
/// that differs between two runs with the same seed).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Timing {
    /// Reading and cutting the books.
    pub read: f64,
    /// Making the copies and fingerprinting every text.
    pub fingerprint: f64,
    /// Sweeping the thresholds.
    pub sweep: f64,
    /// All of it.
    pub total: f64,
}

/// The outcome of [`fan_huang`]: every curve, the best points, and how the
/// synthetic collection was made. Render with [`EvalReport::to_text`],
/// [`EvalReport::to_csv`], [`EvalReport::to_svg`] / [`EvalReport::write_svg`]
/// or serde.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalReport {
    /// The protocol's settings.
    pub config: FanHuangConfig,
    /// The books folder as given.
    pub books: String,
    /// Books read and cut into texts.
    pub files: usize,
    /// Files left out by `exclude` or `extensions`.
    pub excluded_files: usize,
    /// Files that could not be read as text (binary, empty, too large...).
    pub unreadable_files: usize,
    /// Texts cut from the books.
    pub chunks: usize,
    /// Distinct words the edits draw from.
    pub vocabulary: usize,
    /// Where each source text came from.
    pub sources: Vec<SourceText>,
    /// Background texts actually used.
    pub background: usize,
    /// Every text fingerprinted: sources + background + copies.
    pub documents: usize,
    /// Mean applied edit rate over all copies (edits / source words).
    pub mean_edit_rate: f64,
    /// Every sweep: one curve per algorithm, one per lexicon count for
    /// `simhash-lexicons`, and `fusion`.
    pub curves: Vec<Curve>,
    /// Best F per lexicon count beside the paper's Table 1.
    pub lexicon_table: Vec<LexiconRow>,
    /// Lexicon count of the configuration under test (its curve is the
    /// `simhash-lexicons` line of [`EvalReport::main_curves`]).
    pub product_lexicons: usize,
    /// How long each stage took.
    pub timing: Timing,
}

impl EvalReport {
    /// One curve per algorithm (for `simhash-lexicons`, the one at the
    /// configured lexicon count) and `fusion`, in [`AlgorithmId::ALL`] order.
    pub fn main_curves(&self) -> Vec<&Curve> {
        let lexicons = format!("lexicons={}", self.product_lexicons);
        self.curves
            .iter()
            .filter(|c| {
                c.algorithm != AlgorithmId::SimhashLexicons.as_str()
                    || c.setting.ends_with(&lexicons)
            })
            .collect()
    }

    /// The curve of `algorithm` (an id name or `fusion`) whose setting ends
    /// with `setting` (empty: the first).
    pub fn curve(&self, algorithm: &str, setting: &str) -> Option<&Curve> {
        self.curves
            .iter()
            .find(|c| c.algorithm == algorithm && c.setting.ends_with(setting))
    }

    /// The paper's best F for an algorithm, where it reports one.
    pub fn paper_f(&self, curve: &Curve) -> Option<f64> {
        match curve.algorithm.as_str() {
            "simhash" => Some(PAPER_SIMHASH_F),
            "simhash-shingle" => Some(PAPER_SIMHASH_SHINGLE_F),
            "simhash-lexicons" => {
                let l: usize = curve.setting.rsplit('=').next()?.parse().ok()?;
                PAPER_TABLE1.get(l.checked_sub(1)?).map(|&(f, _)| f)
            }
            _ => None,
        }
    }
}

struct Chunk<'a> {
    file: usize,
    offset: usize,
    text: &'a str,
}

/// What one query needs to know about one other text.
struct Record {
    /// Score per algorithm, in [`AlgorithmId::ALL`] order; the SimHash
    /// family at the sweep width; `Incomparable` where disabled.
    plain: [Score; 11],
    /// `simhash-lexicons` at the sweep width over the first L lexicons, for
    /// L = 1..=max.
    lexicons: Vec<Score>,
    /// Algorithms passing the configured thresholds (configured widths and
    /// lexicon count), and whether the containment rule fires.
    agreeing: usize,
    contained: bool,
}

struct Prepared {
    fp: Fingerprints,
    shingles: usize,
}

fn mask(x: Option<u64>, bits: u32) -> Option<u64> {
    let m = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    x.map(|v| v & m)
}

fn simhash_at(a: Option<u64>, b: Option<u64>, bits: u32) -> Score {
    hamming_score(mask(a, bits), mask(b, bits), bits)
}

/// `simhash-lexicons` over the first `l` lexicons at `bits` bits.
fn lexicons_at(a: &[Option<u64>], b: &[Option<u64>], l: usize, bits: u32) -> Score {
    a.iter()
        .zip(b)
        .take(l)
        .filter_map(|(x, y)| Some((mask(*x, bits)? ^ mask(*y, bits)?).count_ones()))
        .min()
        .map_or(Score::Incomparable, |distance| Score::Hamming {
            distance,
            bits: bits.clamp(1, 64),
        })
}

fn index_of(id: AlgorithmId) -> usize {
    AlgorithmId::ALL
        .iter()
        .position(|&x| x == id)
        .expect("every id is in ALL")
}

/// Run the Fan & Huang protocol on the books under `books`.
pub fn fan_huang(config: &FanHuangConfig, books: &Path) -> Result<EvalReport> {
    let started = Instant::now();
    config.validate()?;
    ensure!(books.is_dir(), "{} is not a folder", books.display());

    // 1. Books → texts.
    let (all_files, _) = list_files(books);
    let total_files = all_files.len();
    let files: Vec<_> = all_files
        .into_iter()
        .filter(|f| config.includes(&f.doc.to_string()))
        .collect();
    let excluded_files = total_files - files.len();
    let decoded: Vec<Option<String>> = files
        .par_iter()
        .map(|f| read_text(&f.path, DEFAULT_SIZE_CAP).ok().map(|d| d.text))
        .collect();
    let unreadable_files = decoded.iter().filter(|d| d.is_none()).count();
    let chunks: Vec<Chunk> = decoded
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((i, t.as_deref()?)))
        .flat_map(|(file, text)| {
            chunk_text(text, config.chunk_bytes)
                .into_iter()
                .map(move |piece| Chunk {
                    file,
                    offset: piece.as_ptr() as usize - text.as_ptr() as usize,
                    text: piece,
                })
        })
        .collect();
    ensure!(
        chunks.len() > config.sources,
        "{} yields {} texts of ~{} bytes; need more than {} (the sources) — \
         check the folder, `exclude` and `extensions`",
        books.display(),
        chunks.len(),
        config.chunk_bytes,
        config.sources
    );
    let vocab = vocabulary(decoded.iter().flatten().map(String::as_str));
    ensure!(!vocab.is_empty(), "the books have no words to edit with");

    // 2. Sources and background: a partial Fisher–Yates shuffle.
    let mut rng = SplitMix64::new(config.seed);
    let available = chunks.len() - config.sources;
    let background = if config.background == 0 {
        available
    } else {
        config.background.min(available)
    };
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    for i in 0..config.sources + background {
        let j = i + rng.below((order.len() - i) as u64) as usize;
        order.swap(i, j);
    }
    let sources = &order[..config.sources];
    let background_idx = &order[config.sources..config.sources + background];

    // 3. Copies: copy k of source s from its own random stream.
    let copies: Vec<Edited> = (0..config.sources * config.copies)
        .into_par_iter()
        .map(|k| {
            let mut r = SplitMix64::new(rehash(k as u64, config.seed ^ COPY_SALT));
            let rate = config.edit_min + (config.edit_max - config.edit_min) * r.next_f64();
            edit_words(
                chunks[sources[k / config.copies]].text,
                rate,
                &vocab,
                &mut r,
            )
        })
        .collect();
    let mean_edit_rate = copies.iter().map(Edited::rate).sum::<f64>() / copies.len() as f64;
    let read_done = started.elapsed().as_secs_f64();

    // 4. Fingerprints: 64-bit SimHash and max(configured, swept) lexicons,
    //    from which every narrower width / smaller count is derived (a b-bit
    //    SimHash is the low b bits of the 64-bit one; lexicon j's
    //    fingerprint does not depend on how many lexicons there are).
    let product = &config.engine;
    let product_lexicons = product.algorithms.simhash_lexicons.lexicons.max(1);
    let mut fp_config = product.clone();
    fp_config.algorithms.simhash.bits = 64;
    fp_config.algorithms.simhash_shingle.bits = 64;
    fp_config.algorithms.simhash_lexicons.bits = 64;
    fp_config.algorithms.simhash_lexicons.lexicons = product_lexicons.max(config.max_lexicons);
    let engine = Engine::new(fp_config);
    let weights = engine.reference_weights();
    let (w, seed) = (
        engine.config().algorithms.shingle.w,
        engine.config().algorithms.shingle.seed,
    );
    let prepare = |text: &str| -> Result<Prepared> {
        let no_memory = |error| EvalError::Memory {
            bytes: text.len(),
            error,
        };
        let analysis = engine.try_analyze(text).map_err(no_memory)?;
        Ok(Prepared {
            shingles: shingle_set(&analysis, w, seed).len(),
            fp: engine.fingerprint(&analysis, weights).map_err(no_memory)?,
        })
    };
    let sweep_bits = config.simhash_bits;
    let pa = &product.algorithms;
    let fusion = product.fusion_rule();
    let record = |q: &Prepared, d: &Prepared| -> Record {
        let raw = engine.compare(&q.fp, &d.fp);
        let mut plain = [Score::Incomparable; 11];
        for (i, id) in AlgorithmId::ALL.into_iter().enumerate() {
            if let Some(&s) = raw.get(&id) {
                plain[i] = s;
            }
        }
        let mut fusion_scores = raw;
        if let (Some(a), Some(b)) = (q.fp.simhash, d.fp.simhash) {
            plain[index_of(AlgorithmId::Simhash)] = simhash_at(a, b, sweep_bits);
            fusion_scores.insert(AlgorithmId::Simhash, simhash_at(a, b, pa.simhash.bits));
        }
        if let (Some(a), Some(b)) = (q.fp.simhash_shingle, d.fp.simhash_shingle) {
            plain[index_of(AlgorithmId::SimhashShingle)] = simhash_at(a, b, sweep_bits);
            fusion_scores.insert(
                AlgorithmId::SimhashShingle,
                simhash_at(a, b, pa.simhash_shingle.bits),
            );
        }
        let mut lexicons = Vec::new();
        if let (Some(a), Some(b)) = (&q.fp.simhash_lexicons, &d.fp.simhash_lexicons) {
            plain[index_of(AlgorithmId::SimhashLexicons)] =
                lexicons_at(a, b, product_lexicons, sweep_bits);
            lexicons = (1..=config.max_lexicons)
                .map(|l| lexicons_at(a, b, l, sweep_bits))
                .collect();
            fusion_scores.insert(
                AlgorithmId::SimhashLexicons,
                lexicons_at(a, b, product_lexicons, pa.simhash_lexicons.bits),
            );
        }
        let v = verdict(
            &fusion_scores,
            &product.thresholds,
            &fusion,
            q.shingles.min(d.shingles),
        );
        Record {
            plain,
            lexicons,
            // Votes as the verdict counts them: once per agreeing family.
            agreeing: fusion.votes(v.passing.iter().copied().collect()),
            contained: v.contained,
        }
    };

    // Documents: sources (the queries) first, then background, then copies.
    let texts: Vec<(&str, Option<usize>)> = sources
        .iter()
        .map(|&c| (chunks[c].text, None))
        .chain(background_idx.iter().map(|&c| (chunks[c].text, None)))
        .chain(
            copies
                .iter()
                .enumerate()
                .map(|(k, e)| (e.text.as_str(), Some(k / config.copies))),
        )
        .collect();
    let queries: Vec<Prepared> = texts[..config.sources]
        .par_iter()
        .map(|(t, _)| prepare(t))
        .collect::<Result<_>>()?;
    let rows: Vec<Vec<Option<Record>>> = texts
        .par_iter()
        .enumerate()
        .map(|(d, (text, _))| {
            let doc = if d < queries.len() {
                None
            } else {
                Some(prepare(text)?)
            };
            let doc = doc.as_ref().unwrap_or_else(|| &queries[d]);
            Ok((0..config.sources)
                .map(|q| (q != d).then(|| record(&queries[q], doc)))
                .collect())
        })
        .collect::<Result<_>>()?;
    let mut per_query: Vec<Vec<(bool, Record)>> = (0..config.sources)
        .map(|_| Vec::with_capacity(texts.len()))
        .collect();
    for (row, (_, copy_of)) in rows.into_iter().zip(&texts) {
        for (q, rec) in row.into_iter().enumerate() {
            if let Some(rec) = rec {
                per_query[q].push((*copy_of == Some(q), rec));
            }
        }
    }
    let fingerprint_done = started.elapsed().as_secs_f64();

    // 5. Sweeps.
    let specs = sweep_specs(config, product);
    let curves: Vec<Curve> = specs
        .into_par_iter()
        .map(|spec| {
            let points = spec
                .thresholds
                .iter()
                .map(|&t| point(&per_query, config.copies, spec.target, t))
                .collect();
            Curve {
                algorithm: spec.algorithm,
                setting: spec.setting,
                unit: spec.unit,
                points,
            }
        })
        .collect();
    let lexicon_table = curves
        .iter()
        .filter(|c| c.algorithm == AlgorithmId::SimhashLexicons.as_str())
        .enumerate()
        .filter_map(|(i, c)| {
            Some(LexiconRow {
                lexicons: i + 1,
                best: c.best()?,
                paper_f: PAPER_TABLE1.get(i).map(|p| p.0),
                paper_threshold: PAPER_TABLE1.get(i).map(|p| p.1),
            })
        })
        .collect();
    let total = started.elapsed().as_secs_f64();

    Ok(EvalReport {
        config: config.clone(),
        books: books.display().to_string(),
        files: files.len() - unreadable_files,
        excluded_files,
        unreadable_files,
        chunks: chunks.len(),
        vocabulary: vocab.len(),
        sources: sources
            .iter()
            .map(|&c| SourceText {
                file: files[chunks[c].file].doc.to_string(),
                offset: chunks[c].offset,
                bytes: chunks[c].text.len(),
                words: chunks[c].text.split_whitespace().count(),
            })
            .collect(),
        background,
        documents: texts.len(),
        mean_edit_rate,
        curves,
        lexicon_table,
        product_lexicons,
        timing: Timing {
            read: read_done,
            fingerprint: fingerprint_done - read_done,
            sweep: total - fingerprint_done,
            total,
        },
    })
}

#[derive(Clone, Copy)]
enum Target {
    Plain(usize),
    Lexicons(usize),
    Fusion,
}

struct Spec {
    algorithm: String,
    setting: String,
    unit: Unit,
    target: Target,
    thresholds: Vec<f64>,
}

/// The documented threshold ranges: Hamming 0..bits, similarities
/// 0.10–1.00 by 0.05, match counts 1..=max, `exact`/`imatch` 1, `fusion`
/// `min_agree` 1..=the votes the enabled voters' families can give.
fn sweep_specs(config: &FanHuangConfig, product: &EngineConfig) -> Vec<Spec> {
    use AlgorithmId as Id;
    let bits = config.simhash_bits;
    let hamming: Vec<f64> = (0..bits).map(f64::from).collect();
    let similarity: Vec<f64> = (0..=18).map(|i| f64::from(10 + 5 * i) / 100.0).collect();
    let counts = |n: usize| (1..=n.max(1)).map(|i| i as f64).collect::<Vec<f64>>();
    let a = &product.algorithms;
    let mut specs = Vec::new();
    for (i, id) in Id::ALL.into_iter().enumerate() {
        if !product.enabled.contains(&id) {
            continue;
        }
        let spec = |setting: String, target, thresholds| Spec {
            algorithm: id.as_str().to_owned(),
            setting,
            unit: id.unit(),
            target,
            thresholds,
        };
        match id {
            Id::Exact | Id::Imatch => specs.push(spec(String::new(), Target::Plain(i), vec![1.0])),
            Id::Simhash => specs.push(spec(
                format!("bits={bits}"),
                Target::Plain(i),
                hamming.clone(),
            )),
            Id::SimhashShingle => specs.push(spec(
                format!("bits={bits} k={}", a.simhash_shingle.k),
                Target::Plain(i),
                hamming.clone(),
            )),
            Id::SimhashLexicons => {
                for l in 1..=config.max_lexicons {
                    specs.push(spec(
                        format!("bits={bits} k={} lexicons={l}", a.simhash_lexicons.k),
                        Target::Lexicons(l),
                        hamming.clone(),
                    ));
                }
            }
            Id::Supershingle => specs.push(spec(
                format!("groups={}", a.supershingle.groups),
                Target::Plain(i),
                counts(a.supershingle.groups),
            )),
            Id::ImatchLexicons => specs.push(spec(
                format!("lexicons={}", a.imatch_lexicons.lexicons),
                Target::Plain(i),
                counts(a.imatch_lexicons.lexicons),
            )),
            Id::Shingle | Id::Minhash | Id::Winnow | Id::Si => {
                specs.push(spec(String::new(), Target::Plain(i), similarity.clone()))
            }
        }
    }
    specs.push(Spec {
        algorithm: "fusion".into(),
        setting: "min-agree".into(),
        unit: Unit::Matches,
        target: Target::Fusion,
        thresholds: counts(FusionConfig::max_votes(&product.fusion_rule().voters)),
    });
    specs
}

fn passes(r: &Record, target: Target, t: f64) -> bool {
    match target {
        Target::Plain(i) => r.plain[i].passes(t),
        Target::Lexicons(l) => r.lexicons.get(l - 1).is_some_and(|s| s.passes(t)),
        // What `verdict` says with `min_agree = t`.
        Target::Fusion => r.agreeing >= (t as usize).max(1) || r.contained,
    }
}

/// Macro precision and recall over the queries at one threshold. A query
/// that retrieves nothing has precision 0 (the paper does not say; 0 keeps a
/// threshold that finds nothing from looking perfect).
fn point(per_query: &[Vec<(bool, Record)>], copies: usize, target: Target, t: f64) -> CurvePoint {
    let (mut sum_p, mut sum_r) = (0.0, 0.0);
    for records in per_query {
        let (mut retrieved, mut hits) = (0usize, 0usize);
        for (relevant, r) in records {
            if passes(r, target, t) {
                retrieved += 1;
                hits += usize::from(*relevant);
            }
        }
        if retrieved > 0 {
            sum_p += hits as f64 / retrieved as f64;
        }
        sum_r += hits as f64 / copies as f64;
    }
    let n = per_query.len().max(1) as f64;
    let (precision, recall) = (sum_p / n, sum_r / n);
    CurvePoint {
        threshold: t,
        precision,
        recall,
        f: f_measure(precision, recall),
    }
}

/// 2PR / (P + R), 0 when P + R = 0.
pub fn f_measure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}
