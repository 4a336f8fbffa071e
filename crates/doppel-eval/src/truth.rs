//! Pairwise precision and recall on a labelled collection.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use super::error::{bail, ensure, io, EvalError, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::fan_huang::f_measure;
use super::render::fmt_threshold;
use doppel_core::engine::algo::{AlgorithmId, Unit};
use doppel_core::engine::measure::shingle_set;
use doppel_core::engine::{Engine, Fingerprints};
use doppel_index::boilerplate;
use doppel_index::collection::{list_files, read_text, Skip, DEFAULT_SIZE_CAP};
use doppel_index::reading::ReadLimits;
use doppel_pairing::boilerplate::{learn, BoilerplateConfig, DocSamples};
use doppel_pairing::library::LibraryConfig;

/// A truth file, paths relative to the collection folder with `/`:
///
/// ```json
/// {"groups": [["a.txt", "b/c.txt"], ...],
///  "containment": [["part.txt", "whole.txt"], ...],
///  "distinct": [["x.txt", "y.txt"], ...]}
/// ```
///
/// Two files are duplicates when some group lists both, or when they are a
/// part and its whole (`fusion`'s containment rule makes those duplicates).
/// Every other pair is not, whether or not `distinct` lists it; `distinct`
/// says a pair was checked by hand, and listing it as a duplicate too is an
/// error. `containment` and `distinct` may be left out, and other keys are
/// ignored (so `sample-corpus/expected.json` is a truth file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truth {
    /// Groups of documents that are all duplicates of each other.
    pub groups: Vec<Vec<String>>,
    /// (part, whole) pairs.
    #[serde(default)]
    pub containment: Vec<(String, String)>,
    /// Pairs that are not duplicates.
    #[serde(default)]
    pub distinct: Vec<(String, String)>,
}

impl Truth {
    /// The pairs within a group, each `(a, b)` with `a < b`. Groups are
    /// *not* merged transitively, so overlapping groups can say "A ⊂ C and
    /// B ⊂ C" without making A and B duplicates.
    pub fn group_pairs(&self) -> BTreeSet<(String, String)> {
        let mut out = BTreeSet::new();
        for group in &self.groups {
            let members: BTreeSet<&str> = group.iter().map(|s| clean(s)).collect();
            let members: Vec<&str> = members.into_iter().collect();
            for (i, a) in members.iter().enumerate() {
                for b in &members[i + 1..] {
                    out.insert(((*a).to_owned(), (*b).to_owned()));
                }
            }
        }
        out
    }

    /// The part/whole pairs, ordered `(a, b)` with `a < b`.
    pub fn part_whole_pairs(&self) -> BTreeSet<(String, String)> {
        self.containment
            .iter()
            .map(|(a, b)| ordered(a, b))
            .collect()
    }

    /// The duplicate pairs: [`Truth::group_pairs`] and
    /// [`Truth::part_whole_pairs`].
    pub fn positive_pairs(&self) -> BTreeSet<(String, String)> {
        let mut out = self.group_pairs();
        out.extend(self.part_whole_pairs());
        out
    }

    /// Every path the truth names.
    fn paths(&self) -> impl Iterator<Item = &str> {
        let pairs = self.containment.iter().chain(&self.distinct);
        self.groups
            .iter()
            .flatten()
            .map(String::as_str)
            .chain(pairs.flat_map(|(a, b)| [a.as_str(), b.as_str()]))
            .map(clean)
    }
}

fn ordered(a: &str, b: &str) -> (String, String) {
    let (a, b) = (clean(a), clean(b));
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

fn clean(rel: &str) -> &str {
    rel.trim_start_matches("./")
}

/// Pairwise scores of one algorithm (or `fusion`) at one threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TruthRow {
    /// An [`AlgorithmId`] name, or `fusion`.
    pub algorithm: String,
    /// The threshold used, in the algorithm's unit (`fusion`: `min_agree`).
    pub threshold: f64,
    /// Duplicates called duplicates.
    pub true_positives: usize,
    /// Others called duplicates.
    pub false_positives: usize,
    /// Duplicates missed.
    pub false_negatives: usize,
    /// TP / (TP + FP); 0 when nothing is called a duplicate.
    pub precision: f64,
    /// TP / (TP + FN); 0 when the truth has no pairs.
    pub recall: f64,
    /// Their harmonic mean.
    pub f: f64,
}

/// The outcome of [`truth`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TruthReport {
    /// The labelled folder.
    pub root: String,
    /// Files fingerprinted.
    pub documents: usize,
    /// Files that are not documents, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Files named in the truth that are not documents of the folder
    /// (missing or skipped); their pairs count as missed.
    pub missing: Vec<String>,
    /// Pairs compared (documents × (documents − 1) / 2).
    pub pairs: usize,
    /// Duplicate pairs in the truth (the positives).
    pub positives: usize,
    /// Of those, pairs within a group.
    pub group_pairs: usize,
    /// Of those, part/whole pairs not already within a group.
    pub part_whole_pairs: usize,
    /// Pairs the truth lists as distinct (negatives, like every pair it
    /// does not list as duplicates).
    pub distinct_pairs: usize,
    /// One row per enabled algorithm at its configured threshold, then `fusion`.
    pub rows: Vec<TruthRow>,
    /// Pairs `fusion` calls duplicates that the truth does not.
    pub fusion_false_positives: Vec<(String, String)>,
    /// Positive pairs `fusion` misses.
    pub fusion_false_negatives: Vec<(String, String)>,
}

impl TruthReport {
    /// The row of `algorithm` (an id, or `fusion`).
    pub fn row(&self, algorithm: &str) -> Option<&TruthRow> {
        self.rows.iter().find(|r| r.algorithm == algorithm)
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The rows as CSV, one per algorithm then `fusion`: `algorithm,
    /// threshold, true_positives, false_positives, false_negatives,
    /// precision, recall, f`.
    pub fn to_csv(&self) -> Result<String> {
        let mut out = csv::Writer::from_writer(Vec::new());
        for row in &self.rows {
            out.serialize(row)?;
        }
        Ok(String::from_utf8(out.into_inner()?).expect("CSV of UTF-8 fields is UTF-8"))
    }

    /// The report as a table for people.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} documents ({} skipped), {} pairs compared",
            self.root,
            self.documents,
            self.skipped.len(),
            self.pairs,
        );
        let _ = writeln!(
            out,
            "{} duplicate pairs in the truth: {} within groups, {} more part/whole \
             (\"containment\"; fusion's containment rule makes them duplicates); \
             every other pair counts as not a duplicate ({} listed as \"distinct\")",
            self.positives, self.group_pairs, self.part_whole_pairs, self.distinct_pairs
        );
        for m in &self.missing {
            let _ = writeln!(
                out,
                "  not a document here (its pairs count as missed): {m}"
            );
        }
        let _ = writeln!(
            out,
            "\n{:<18} {:>9} {:>5} {:>5} {:>5} {:>9} {:>7} {:>7}",
            "algorithm", "threshold", "TP", "FP", "FN", "precision", "recall", "F"
        );
        for r in &self.rows {
            let unit = r
                .algorithm
                .parse::<AlgorithmId>()
                .map_or(Unit::Matches, AlgorithmId::unit);
            let _ = writeln!(
                out,
                "{:<18} {:>9} {:>5} {:>5} {:>5} {:>9.4} {:>7.4} {:>7.4}",
                r.algorithm,
                fmt_threshold(unit, r.threshold),
                r.true_positives,
                r.false_positives,
                r.false_negatives,
                r.precision,
                r.recall,
                r.f
            );
        }
        if !self.fusion_false_positives.is_empty() {
            let _ = writeln!(out, "\nfusion calls these duplicates; the truth does not:");
            for (a, b) in &self.fusion_false_positives {
                let _ = writeln!(out, "  {a}  ~  {b}");
            }
        }
        if !self.fusion_false_negatives.is_empty() {
            let _ = writeln!(out, "\nfusion misses these duplicates:");
            for (a, b) in &self.fusion_false_negatives {
                let _ = writeln!(out, "  {a}  ~  {b}");
            }
        }
        out
    }
}

/// Score `engine` against a labelled collection: every file under `dir` is
/// fingerprinted (pinned reference weights) as a scan does it, over its
/// body when `library`'s boilerplate learning is on and finds some, every
/// pair compared (all pairs, in parallel; meant for small collections), and
/// each enabled algorithm at its configured threshold, and `fusion`, judged
/// pairwise against the duplicate pairs of `truth_file` (see [`Truth`]).
pub fn truth(
    dir: &Path,
    truth_file: &Path,
    engine: &Engine,
    library: &LibraryConfig,
) -> Result<TruthReport> {
    let text = std::fs::read_to_string(truth_file).map_err(io("read", truth_file))?;
    let labels: Truth = serde_json::from_str(&text).map_err(|error| EvalError::NotTruth {
        path: truth_file.to_path_buf(),
        error,
    })?;
    truth_with(dir, &labels, engine, library)
}

/// [`truth`] with the labels already parsed.
pub fn truth_with(
    dir: &Path,
    labels: &Truth,
    engine: &Engine,
    library: &LibraryConfig,
) -> Result<TruthReport> {
    ensure!(dir.is_dir(), "{} is not a folder", dir.display());
    let (files, problems) = list_files(dir);
    let weights = engine.reference_weights();
    let shingle = &engine.config().algorithms.shingle;
    let learning = boilerplate::config_of(engine, library);
    let read: Vec<_> = files
        .par_iter()
        .map(|f| {
            read_text(&f.path, DEFAULT_SIZE_CAP).and_then(|d| {
                // Skipped with the reason, as a scan skips it.
                let no_memory = |_| Skip::OutOfMemory {
                    needed: ReadLimits::default().bound(f.bytes),
                };
                let a = engine.try_analyze(&d.text).map_err(no_memory)?;
                let samples = learning
                    .is_some()
                    .then(|| boilerplate::samples(engine, &a, library));
                let read = ReadDoc {
                    shingles: shingle_set(&a, shingle.w, shingle.seed).len(),
                    prints: engine.fingerprint(&a, weights).map_err(no_memory)?,
                    samples,
                };
                Ok((read, d.text))
            })
        })
        .collect();
    let mut docs = Vec::new();
    let mut texts = Vec::new();
    let mut skipped: Vec<(String, String)> = problems
        .into_iter()
        .map(|(doc, why)| (doc.to_string(), why.to_string()))
        .collect();
    for (f, r) in files.iter().zip(read) {
        match r {
            Ok((read, text)) => {
                docs.push((f.doc.to_string(), read));
                texts.push(text);
            }
            Err(why) => skipped.push((f.doc.to_string(), why.to_string())),
        }
    }
    if let Some(config) = &learning {
        without_boilerplate(engine, config, &mut docs, &texts);
    }
    let docs: Vec<(String, usize, Fingerprints)> = docs
        .into_iter()
        .map(|(name, read)| (name, read.shingles, read.prints))
        .collect();
    let positives = labels.positive_pairs();
    let distinct: BTreeSet<(String, String)> =
        labels.distinct.iter().map(|(a, b)| ordered(a, b)).collect();
    if let Some((a, b)) = distinct.intersection(&positives).next() {
        bail!("the truth lists {a} and {b} both as duplicates and as distinct");
    }
    let group_pairs = labels.group_pairs();
    let names: BTreeSet<&str> = docs.iter().map(|d| d.0.as_str()).collect();
    let missing: Vec<String> = labels
        .paths()
        .filter(|s| !names.contains(s))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(str::to_owned)
        .collect();

    let enabled: Vec<AlgorithmId> = AlgorithmId::ALL
        .into_iter()
        .filter(|&id| engine.is_enabled(id))
        .collect();
    // Per pair: which algorithms pass, and the fusion verdict.
    let called: Vec<(usize, usize, Vec<AlgorithmId>, bool)> = (0..docs.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let docs = &docs;
            (i + 1..docs.len()).filter_map(move |j| {
                let scores = engine.compare(&docs[i].2, &docs[j].2);
                let v = engine.verdict(&scores, docs[i].1.min(docs[j].1));
                (!v.passing.is_empty() || v.fusion).then_some((i, j, v.passing, v.fusion))
            })
        })
        .collect();
    let key = |i: usize, j: usize| {
        let (a, b) = (&docs[i].0, &docs[j].0);
        if a < b {
            (a.clone(), b.clone())
        } else {
            (b.clone(), a.clone())
        }
    };
    let mut hits: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut fusion_fp = Vec::new();
    let mut fusion_found = BTreeSet::new();
    for (i, j, passing, fusion) in &called {
        let pair = key(*i, *j);
        let positive = positives.contains(&pair);
        let names = passing
            .iter()
            .map(|id| id.as_str())
            .chain(fusion.then_some("fusion"));
        for name in names {
            let e = hits.entry(name.to_owned()).or_default();
            if positive {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
        if *fusion {
            if positive {
                fusion_found.insert(pair);
            } else {
                fusion_fp.push(pair);
            }
        }
    }
    let thresholds = &engine.config().thresholds;
    let row = |name: &str, threshold: f64| {
        let (tp, fp) = hits.get(name).copied().unwrap_or_default();
        let fn_ = positives.len() - tp;
        let precision = if tp + fp > 0 {
            tp as f64 / (tp + fp) as f64
        } else {
            0.0
        };
        let recall = if positives.is_empty() {
            0.0
        } else {
            tp as f64 / positives.len() as f64
        };
        TruthRow {
            algorithm: name.to_owned(),
            threshold,
            true_positives: tp,
            false_positives: fp,
            false_negatives: fn_,
            precision,
            recall,
            f: f_measure(precision, recall),
        }
    };
    let mut rows: Vec<TruthRow> = enabled
        .iter()
        .map(|&id| row(id.as_str(), thresholds.get(id)))
        .collect();
    rows.push(row("fusion", engine.fusion_rule().votes_needed as f64));
    fusion_fp.sort();
    Ok(TruthReport {
        root: dir.display().to_string(),
        documents: docs.len(),
        skipped,
        missing,
        pairs: docs.len() * docs.len().saturating_sub(1) / 2,
        positives: positives.len(),
        group_pairs: group_pairs.len(),
        part_whole_pairs: positives.len() - group_pairs.len(),
        distinct_pairs: distinct.len(),
        rows,
        fusion_false_positives: fusion_fp,
        fusion_false_negatives: positives.difference(&fusion_found).cloned().collect(),
    })
}

/// A labelled document as read: its shingle count, its prints and, when
/// boilerplate is learned, its samples.
struct ReadDoc {
    shingles: usize,
    prints: Fingerprints,
    samples: Option<DocSamples>,
}

/// Learn the boilerplate of `docs` (as a scan does, from their samples) and
/// fingerprint every document that has some over its body, so the truth
/// scores what a scan would report.
fn without_boilerplate(
    engine: &Engine,
    config: &BoilerplateConfig,
    docs: &mut [(String, ReadDoc)],
    texts: &[String],
) {
    let sampled: BTreeMap<usize, DocSamples> = docs
        .iter_mut()
        .enumerate()
        .filter_map(|(i, (_, read))| read.samples.take().map(|s| (i, s)))
        .collect();
    let learned = learn(&sampled, &BTreeSet::new(), &BTreeSet::new(), config);
    let bodies: Vec<(usize, Fingerprints, usize)> = learned
        .spans
        .par_iter()
        .filter_map(|(&i, spans)| {
            let (prints, shingles, _) =
                boilerplate::body_prints(engine, &texts[i], sampled[&i].words, spans)?;
            Some((i, prints, shingles))
        })
        .collect();
    for (i, prints, shingles) in bodies {
        docs[i].1.prints = prints;
        docs[i].1.shingles = shingles;
    }
}
