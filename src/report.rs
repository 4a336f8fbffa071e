//! Rendering scan and compare results as text and JSON for people and
//! scripts. The JSON shape is a versioned contract documented in README.md.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::algo::{AlgorithmId, Score, Unit};
use crate::engine::{Engine, PairScores, Verdict};
use crate::measure::ExactMeasures;
use crate::scan::ScanReport;

/// Version of the JSON output format.
pub const JSON_FORMAT_VERSION: u32 = 1;

/// A score in its native unit, for tables.
pub fn format_score(score: &Score) -> String {
    match *score {
        Score::Similarity { value } => format!("{value:.3}"),
        Score::Overlap {
            resemblance,
            a_in_b,
            b_in_a,
        } => format!("{resemblance:.3} (contain {:.2})", a_in_b.max(b_in_a)),
        Score::Hamming { distance, bits } => format!("{distance}/{bits} bits"),
        Score::Matches { matched, of } => format!("{matched}/{of}"),
        Score::Incomparable => "n/a".to_owned(),
    }
}

fn format_threshold(id: AlgorithmId, t: f64) -> String {
    match id.unit() {
        Unit::HammingBits => format!("≤ {t}"),
        Unit::Matches => format!("≥ {t}"),
        Unit::Similarity => format!("≥ {t:.2}"),
    }
}

/// The clusters, skipped files and counts as plain text.
pub fn text(report: &ScanReport, engine: &Engine) -> String {
    let mut out = String::new();
    let indexed = report.docs.iter().filter(|d| d.skipped.is_none()).count();
    let _ = writeln!(
        out,
        "{} documents indexed, {} skipped, {} pairs compared, {} clusters (fusion: ≥{} algorithms agree, or containment ≥ {:.0} %)\n",
        indexed,
        report.docs.len() - indexed,
        report.comparisons,
        report.clusters.len(),
        engine.config().fusion.min_agree,
        engine.config().fusion.containment * 100.0,
    );
    for (n, cluster) in report.clusters.iter().enumerate() {
        let rep = cluster.representative();
        let _ = writeln!(
            out,
            "cluster {} ({} documents)",
            n + 1,
            cluster.members.len()
        );
        let _ = writeln!(out, "  * {}", report.docs[rep].rel);
        for &m in &cluster.members[1..] {
            let agree = report
                .pair(rep, m)
                .map(|p| {
                    let mut s: Vec<&str> = p.verdict.passing.iter().map(|id| id.as_str()).collect();
                    if p.verdict.contained {
                        s.push("contained");
                    }
                    format!("{} agree: {}", p.verdict.passing.len(), s.join(" "))
                })
                .unwrap_or_else(|| "linked through another member".to_owned());
            let _ = writeln!(out, "    {}  [{}]", report.docs[m].rel, agree);
        }
        out.push('\n');
    }
    let skipped: Vec<_> = report
        .docs
        .iter()
        .filter_map(|d| Some((&d.rel, d.skipped.as_ref()?)))
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(out, "skipped");
        for (rel, why) in skipped {
            let _ = writeln!(out, "  {rel}: {why}");
        }
    }
    out
}

fn scores_json(scores: &PairScores) -> Value {
    let map: Map<String, Value> = scores
        .iter()
        .map(|(id, s)| {
            (
                id.as_str().to_owned(),
                s.value().map_or(Value::Null, |v| json!(v)),
            )
        })
        .collect();
    Value::Object(map)
}

fn duplicate_by(verdict: &Verdict) -> Vec<&'static str> {
    let mut ids: Vec<&str> = verdict.passing.iter().map(|id| id.as_str()).collect();
    if verdict.fusion {
        ids.push("fusion");
    }
    ids
}

/// The scan as JSON (format version [`JSON_FORMAT_VERSION`]).
pub fn json(report: &ScanReport, root: &Path, engine: &Engine) -> anyhow::Result<String> {
    let thresholds: Map<String, Value> = AlgorithmId::ALL
        .iter()
        .filter(|&&id| engine.is_enabled(id))
        .map(|&id| {
            (
                id.as_str().to_owned(),
                json!(engine.config().thresholds.get(id)),
            )
        })
        .collect();
    let value = json!({
        "doppel": env!("CARGO_PKG_VERSION"),
        "format": JSON_FORMAT_VERSION,
        "root": root.display().to_string(),
        "cluster_algorithm": "fusion",
        "thresholds": thresholds,
        "documents": report.docs.iter().map(|d| json!({
            "path": d.rel,
            "status": if d.skipped.is_some() { "skipped" } else { "indexed" },
            "reason": d.skipped.as_ref().map(|s| s.to_string()),
            "bytes": d.bytes,
            "encoding": d.encoding,
        })).collect::<Vec<_>>(),
        "clusters": report.clusters.iter().enumerate().map(|(n, c)| json!({
            "id": n + 1,
            "members": c.members.iter().map(|&m| &report.docs[m].rel).collect::<Vec<_>>(),
            "representative": report.docs[c.representative()].rel,
        })).collect::<Vec<_>>(),
        "pairs": report.pairs.iter().map(|p| json!({
            "a": report.docs[p.a].rel,
            "b": report.docs[p.b].rel,
            "scores": scores_json(&p.scores),
            "containment": p.verdict.containment,
            "duplicate_by": duplicate_by(&p.verdict),
        })).collect::<Vec<_>>(),
    });
    Ok(serde_json::to_string_pretty(&value)? + "\n")
}

/// Every algorithm's score for one pair, as a table.
pub fn compare_text(
    scores: &PairScores,
    verdict: &Verdict,
    exact: &ExactMeasures,
    engine: &Engine,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<18} {:<24} {:<10} duplicate",
        "algorithm", "score", "threshold"
    );
    for (id, score) in scores {
        let t = engine.config().thresholds.get(*id);
        let dup = if verdict.passing.contains(id) {
            "yes"
        } else {
            "no"
        };
        let _ = writeln!(
            out,
            "{:<18} {:<24} {:<10} {dup}",
            id.as_str(),
            format_score(score),
            format_threshold(*id, t)
        );
    }
    let _ = writeln!(
        out,
        "\nexact: jaccard {:.3}, A in B {:.3}, B in A {:.3}, tf-idf cosine {:.3} ({} and {} shingles)",
        exact.jaccard, exact.a_in_b, exact.b_in_a, exact.cosine, exact.a_shingles, exact.b_shingles
    );
    let _ = writeln!(
        out,
        "fusion: {} ({} of {} algorithms agree{})",
        if verdict.fusion {
            "duplicate"
        } else {
            "not a duplicate"
        },
        verdict.passing.len(),
        scores.len(),
        if verdict.contained { "; contained" } else { "" }
    );
    out
}

/// Every algorithm's score for one pair, as JSON.
pub fn compare_json(
    scores: &PairScores,
    verdict: &Verdict,
    exact: &ExactMeasures,
    _engine: &Engine,
) -> anyhow::Result<String> {
    let value = json!({
        "doppel": env!("CARGO_PKG_VERSION"),
        "format": JSON_FORMAT_VERSION,
        "scores": scores_json(scores),
        "exact": exact,
        "duplicate_by": duplicate_by(verdict),
    });
    Ok(serde_json::to_string_pretty(&value)? + "\n")
}
