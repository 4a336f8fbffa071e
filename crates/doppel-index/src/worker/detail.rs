//! A pair's detail: every algorithm's score with its threshold, the exact
//! measure it estimates, and the score in words.

use std::path::PathBuf;

use crate::boilerplate::SideBoilerplate;
use crate::collection::{read_text, DEFAULT_SIZE_CAP};
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::algo::si::SiFingerprint;
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::measure::{exact_measures, ExactMeasures};
use doppel_core::engine::{verdict, Engine, Fingerprints};
use doppel_pairing::boilerplate::Span;
use doppel_pairing::candidates::optimal_bands;
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;

use super::protocol::{PairCurators, PairDetail, ScoreRow};

/// Everything needed to describe a pair, copied out of the index.
#[derive(Debug, Clone)]
pub(crate) struct PairJob {
    pub generation: u64,
    pub a: DocPath,
    pub b: DocPath,
    pub path_a: PathBuf,
    pub path_b: PathBuf,
    pub fa: Fingerprints,
    pub fb: Fingerprints,
    pub shingles_a: usize,
    pub shingles_b: usize,
    pub spec: ClusterSpec,
    pub library: LibraryConfig,
    pub verdict: Option<CuratorVerdict>,
    pub curators: PairCurators,
    /// How much of each side is learned boilerplate.
    pub boilerplate: [SideBoilerplate; 2],
    /// Each side's boilerplate spans: the exact measures, like the
    /// fingerprints, are taken over the bodies.
    pub spans: [Vec<Span>; 2],
}

/// The MinHash LSH (bands, rows) the candidate tables use under `library`.
pub(crate) fn minhash_bands(library: &LibraryConfig, num_perm: usize) -> (usize, usize) {
    let c = &library.candidates;
    c.minhash_bands.unwrap_or_else(|| {
        optimal_bands(
            library.floors.get(AlgorithmId::Minhash),
            num_perm,
            c.minhash_fp_weight,
            c.minhash_fn_weight,
        )
    })
}

/// Re-read both files (read-only) for the exact measures; `None` when one
/// cannot be read any more (or memory for its analysis cannot be had).
fn exact(engine: &Engine, job: &PairJob) -> Option<ExactMeasures> {
    let ta = read_text(&job.path_a, DEFAULT_SIZE_CAP).ok()?;
    let tb = read_text(&job.path_b, DEFAULT_SIZE_CAP).ok()?;
    let body = |text: &str, spans: &[Span]| {
        let whole = engine.try_analyze(text).ok()?;
        let ranges: Vec<std::ops::Range<u32>> = spans.iter().map(|s| s.start..s.end).collect();
        Some(
            match engine.analyze_without(text, whole.words.len(), &ranges) {
                Ok(Some(body)) => body.analysis,
                _ => whole,
            },
        )
    };
    let (da, db) = (
        body(&ta.text, &job.spans[0])?,
        body(&tb.text, &job.spans[1])?,
    );
    let shingle = &engine.config().algorithms.shingle;
    Some(exact_measures(
        &da,
        &db,
        shingle.w,
        shingle.seed,
        engine.reference_weights(),
    ))
}

fn percent(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// Every algorithm's row for a pair.
pub(crate) fn pair_detail(engine: &Engine, job: &PairJob) -> PairDetail {
    let scores = engine.compare(&job.fa, &job.fb);
    let measures = exact(engine, job);
    let (a_in_b, b_in_a) = match (&measures, scores.get(&AlgorithmId::Shingle)) {
        (Some(m), _) => (m.a_in_b, m.b_in_a),
        (None, Some(Score::Overlap { a_in_b, b_in_a, .. })) => (*a_in_b, *b_in_a),
        _ => (0.0, 0.0),
    };
    let rows = AlgorithmId::ALL
        .into_iter()
        .filter_map(|id| {
            let score = *scores.get(&id)?;
            let threshold = job.spec.thresholds.get(id);
            let exact = measures.as_ref().and_then(|m| match id {
                AlgorithmId::Shingle | AlgorithmId::Minhash | AlgorithmId::Supershingle => {
                    Some(m.jaccard)
                }
                AlgorithmId::Simhash => Some(m.cosine),
                _ => None,
            });
            Some(ScoreRow {
                id,
                score,
                exact,
                threshold,
                passes: score.passes(threshold),
                reason: reason(engine, job, id, &score, measures.as_ref()),
            })
        })
        .collect();
    let smaller = job.shingles_a.min(job.shingles_b);
    let fusion = verdict(&scores, &job.spec.thresholds, &job.spec.fusion, smaller).fusion;
    PairDetail {
        generation: job.generation,
        a: job.a.clone(),
        b: job.b.clone(),
        rows,
        verdict: job.verdict,
        curators: job.curators.clone(),
        a_in_b,
        b_in_a,
        fusion,
        boilerplate: job.boilerplate,
    }
}

/// One algorithm's score in words.
fn reason(
    engine: &Engine,
    job: &PairJob,
    id: AlgorithmId,
    score: &Score,
    measures: Option<&ExactMeasures>,
) -> String {
    if *score == Score::Incomparable {
        return "one side has no fingerprint (empty or too short)".into();
    }
    let equal_or_not = |equal: bool| {
        if equal {
            "signatures equal".to_owned()
        } else {
            "signatures differ".to_owned()
        }
    };
    match (id, *score) {
        // One signature each: equal or not (a 0/1 match count).
        (AlgorithmId::Exact, _) => {
            if score.passes(1.0) {
                "signatures equal: the same normalized words".into()
            } else {
                "signatures differ: the normalized words are not the same".into()
            }
        }
        (AlgorithmId::Imatch, _) => equal_or_not(score.passes(1.0)),
        (
            AlgorithmId::Shingle,
            Score::Overlap {
                resemblance,
                a_in_b,
                b_in_a,
            },
        ) => {
            let contained_at = job.spec.fusion.containment;
            let mut text = format!("{} of sampled shingles shared", percent(resemblance));
            match measures {
                Some(m) if m.a_in_b >= contained_at || m.b_in_a >= contained_at => {
                    let (share, from, to) = if m.a_in_b >= m.b_in_a {
                        (m.a_in_b, "A", "B")
                    } else {
                        (m.b_in_a, "B", "A")
                    };
                    text.push_str(&format!(
                        "; contained: {} of {from}'s shingles are in {to}",
                        percent(share)
                    ));
                }
                Some(m) => text.push_str(&format!(
                    "; {} of A's shingles are in B, {} of B's in A",
                    percent(m.a_in_b),
                    percent(m.b_in_a)
                )),
                None => text.push_str(&format!(
                    "; {} of A's sample in B, {} of B's in A",
                    percent(a_in_b),
                    percent(b_in_a)
                )),
            }
            text
        }
        (AlgorithmId::Minhash, _) => {
            let (Some(x), Some(y)) = (&job.fa.minhash, &job.fb.minhash) else {
                return "no sketch".into();
            };
            let equal = x.iter().zip(y).filter(|(p, q)| p == q).count();
            let (bands, rows) =
                minhash_bands(&job.library, engine.config().algorithms.minhash.num_perm);
            let used = bands.min(x.len().min(y.len()) / rows.max(1));
            let collided = (0..used)
                .filter(|&i| x[i * rows..(i + 1) * rows] == y[i * rows..(i + 1) * rows])
                .count();
            format!(
                "{collided} of {used} LSH bands collided ({rows} rows each); \
                 {equal} of {} min-hashes equal",
                x.len().min(y.len())
            )
        }
        (AlgorithmId::Supershingle, Score::Matches { matched, of }) => {
            format!("{matched} of {of} super-shingles match")
        }
        (AlgorithmId::Simhash | AlgorithmId::SimhashShingle, Score::Hamming { distance, bits }) => {
            let unit = if distance == 1 {
                "bit differs"
            } else {
                "bits differ"
            };
            format!("{distance} {unit} of {bits}")
        }
        (AlgorithmId::SimhashLexicons, Score::Hamming { distance, bits }) => {
            let per: Vec<String> = match (&job.fa.simhash_lexicons, &job.fb.simhash_lexicons) {
                (Some(x), Some(y)) => x
                    .iter()
                    .zip(y)
                    .map(|(p, q)| match (p, q) {
                        (Some(p), Some(q)) => (p ^ q).count_ones().to_string(),
                        _ => "–".into(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            format!(
                "closest lexicon: {distance} of {bits} bits differ (per lexicon: {})",
                per.join(", ")
            )
        }
        (AlgorithmId::ImatchLexicons, Score::Matches { matched, of }) => {
            format!("{matched} of {of} lexicon signatures match")
        }
        (
            AlgorithmId::Winnow,
            Score::Overlap {
                resemblance,
                a_in_b,
                b_in_a,
            },
        ) => format!(
            "{} of winnowed fingerprints shared; {} of A's in B, {} of B's in A",
            percent(resemblance),
            percent(a_in_b),
            percent(b_in_a)
        ),
        (AlgorithmId::Si, _) => match (&job.fa.si, &job.fb.si) {
            (Some(x), Some(y)) => si_reason(engine, x, y, job.spec.thresholds.get(id)),
            _ => "no index".into(),
        },
        (_, score) => match score.value() {
            Some(v) => format!("score {v:.3}"),
            None => "incomparable".into(),
        },
    }
}

/// A whole number with thousands separators: 124,554,331,222.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// SI in Roth's terms: both indices, the band of ±(1 − threshold) around
/// the larger one (his Figure 2: the smaller lies in it exactly when the
/// score reaches the threshold) and the verification by shared sampled
/// k-grams. The first line sums it up for the score table; the others give
/// the figures.
fn si_reason(engine: &Engine, x: &SiFingerprint, y: &SiFingerprint, threshold: f64) -> String {
    let config = &engine.config().algorithms.si;
    let (Some(c), Some(ix), Some(iy)) = (config.compare(x, y), x.index(), y.index()) else {
        return "one side has no sampled k-gram (shorter than k)".into();
    };
    let grams = format!("sampled {}-grams", config.k);
    let width = (1.0 - threshold).clamp(0.0, 1.0);
    let (larger, smaller, big) = if ix >= iy {
        ("A", "B", ix)
    } else {
        ("B", "A", iy)
    };
    let (lower, upper) = (
        (big as f64 * (1.0 - width)).round() as u64,
        (big as f64 * (1.0 + width)).round() as u64,
    );
    let (inside, lies) = if c.closeness >= threshold {
        ("within", "lies in it")
    } else {
        ("outside", "lies outside it")
    };
    let band = format!("Roth's ±{} band", percent(width));
    let summary = if c.verified {
        format!(
            "{smaller}'s index {inside} {band} around {larger}'s; {} of {} {grams} shared",
            c.shared, c.of
        )
    } else {
        format!(
            "{smaller}'s index {inside} {band} around {larger}'s; no {grams} shared: not verified"
        )
    };
    let verification = if c.verified {
        format!(
            "verified: {} of the smaller sketch's {} {grams} are in the other",
            c.shared, c.of
        )
    } else {
        format!(
            "not verified: {} of the smaller sketch's {} {grams} are in the other \
             (at least {} needed), so the score is 0",
            c.shared,
            c.of,
            config.min_shared.max(1)
        )
    };
    format!(
        "{summary}\n\
         indices: A {} ({} {grams}) · B {} ({})\n\
         {band} around {larger}: {} < SI < {}; {smaller} {lies}, {} apart\n\
         {verification}",
        grouped(ix),
        x.sketch.len(),
        grouped(iy),
        y.sketch.len(),
        grouped(lower),
        grouped(upper),
        percent(1.0 - c.closeness),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_read_as_grouped_whole_numbers() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(128_033_955_025), "128,033,955,025");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }
}
