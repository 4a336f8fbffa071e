//! The scan for scripts: JSON (a versioned contract, README's "JSON
//! output") and CSV, one row per pair. Both print the pairs
//! [`ScanReport::pairs`] gives (those that pass a threshold or carry a
//! relation), written as they are judged so that a scan of millions of
//! pairs is never held twice in memory.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{cluster_by_name, lib_path, Result, JSON_FORMAT_VERSION};
use crate::doc::{CuratorVerdict, DocPath};
use crate::engine::algo::{AlgorithmId, Score};
use crate::engine::{EngineConfig, FusionRule, PairScores, Relation, Verdict};
use crate::pairing::cluster::{ClusterMode, Role};
use crate::pairing::library::{disputed, CuratorMark};
use crate::runtime::boilerplate::PassageSummary;
use crate::runtime::scan::ScanReport;

/// A pair's scores as a JSON object keyed by algorithm id, in name order,
/// written straight from the scores (a report can hold millions of pairs).
pub(super) struct ScoresJson<'a>(pub(super) &'a PairScores);

impl Serialize for ScoresJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut entries: Vec<(&str, Option<f64>)> = self
            .0
            .iter()
            .map(|(id, s)| (id.as_str(), s.value()))
            .collect();
        entries.sort_unstable_by_key(|&(name, _)| name);
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for (name, value) in entries {
            map.serialize_entry(name, &value)?;
        }
        map.end()
    }
}

/// The side that holds the other in a `contains` relation (`a` or `b`).
pub(super) fn whole_side(relation: Option<Relation>) -> Option<&'static str> {
    match relation? {
        Relation::Contains { whole } => Some(whole.as_str()),
        _ => None,
    }
}

pub(super) fn duplicate_by(verdict: &Verdict) -> Vec<&'static str> {
    let mut ids: Vec<&str> = verdict.passing.iter().map(|id| id.as_str()).collect();
    if verdict.fusion {
        ids.push("fusion");
    }
    ids
}

/// The scan as JSON (format version [`JSON_FORMAT_VERSION`]), in memory.
pub fn json(report: &ScanReport, root: &Path, config: &EngineConfig) -> Result<String> {
    let mut out = Vec::new();
    json_to(&mut out, report, root, config)?;
    Ok(String::from_utf8(out).expect("JSON is UTF-8"))
}

/// The scan as JSON written to `out` as it is made: the pairs are judged
/// one at a time ([`ScanReport::reported_pairs`]), never all held.
pub fn json_to(
    out: impl Write,
    report: &ScanReport,
    root: &Path,
    config: &EngineConfig,
) -> Result<()> {
    let thresholds: Map<String, Value> = AlgorithmId::ALL
        .iter()
        .filter(|id| config.enabled.contains(id))
        .map(|&id| {
            (
                id.as_str().to_owned(),
                json!(report.spec.thresholds.get(id)),
            )
        })
        .collect();
    // Typed rows borrowing the report, fields in name order (the order
    // the format has always had), instead of a `Value` tree that would
    // hold a second, larger copy of every pair.
    #[derive(Serialize)]
    struct Document<'a> {
        /// Byte ranges of the decoded text left out as boilerplate
        /// (indexed documents).
        #[serde(skip_serializing_if = "Option::is_none")]
        boilerplate_spans: Option<Vec<[u64; 2]>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        boilerplate_words: Option<u32>,
        bytes: u64,
        encoding: &'a Option<String>,
        path: &'a DocPath,
        reason: Option<String>,
        status: &'static str,
    }
    #[derive(Serialize)]
    struct Cluster<'a> {
        id: usize,
        members: &'a [DocPath],
        representative: &'a DocPath,
        /// Each member's role, in the order of `members`.
        roles: Vec<MemberRole<'a>>,
    }
    /// `head` (the whole the others sit in, or the document they
    /// duplicate), `duplicate` of `of`, or `part` of `of`.
    #[derive(Serialize)]
    struct MemberRole<'a> {
        path: &'a DocPath,
        role: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        of: Option<&'a DocPath>,
    }
    #[derive(Serialize)]
    struct Report<'a> {
        boilerplate: &'a [PassageSummary],
        cluster_algorithm: &'static str,
        cluster_mode: ClusterMode,
        clusters: Vec<Cluster<'a>>,
        documents: Vec<Document<'a>>,
        doppel: &'static str,
        format: u32,
        fusion: Value,
        pairs: PairsJson<'a>,
        root: String,
        thresholds: Map<String, Value>,
    }
    let cluster_paths = report.cluster_paths();
    let cluster_ids = ClusterIds::new(&cluster_paths);
    let value = Report {
        boilerplate: &report.boilerplate.passages,
        cluster_algorithm: cluster_by_name(report.spec.by),
        cluster_mode: report.spec.mode,
        clusters: cluster_paths
            .iter()
            .enumerate()
            .map(|(n, members)| Cluster {
                id: n + 1,
                members,
                representative: &members[0],
                roles: report.clusters[n]
                    .members
                    .iter()
                    .zip(&report.clusters[n].roles)
                    .filter_map(|(&m, role)| {
                        let path = lib_path(report, m)?;
                        let (role, of) = match *role {
                            Role::Head => ("head", None),
                            Role::DuplicateOf(of) => ("duplicate", lib_path(report, of)),
                            Role::PartOf(of) => ("part", lib_path(report, of)),
                        };
                        Some(MemberRole { path, role, of })
                    })
                    .collect(),
            })
            .collect(),
        documents: report
            .docs
            .iter()
            .map(|d| {
                let found = report.boilerplate.documents.get(&d.path);
                let indexed = d.skipped.is_none();
                Document {
                    boilerplate_spans: indexed.then(|| {
                        found.map_or_else(Vec::new, |b| {
                            b.ranges.iter().map(|r| [r.start, r.end]).collect()
                        })
                    }),
                    boilerplate_words: indexed.then(|| found.map_or(0, |b| b.words())),
                    bytes: d.bytes,
                    encoding: &d.encoding,
                    path: &d.path,
                    reason: d.skipped.as_ref().map(|s| s.to_string()),
                    status: if d.skipped.is_some() {
                        "skipped"
                    } else {
                        "indexed"
                    },
                }
            })
            .collect(),
        doppel: env!("CARGO_PKG_VERSION"),
        format: JSON_FORMAT_VERSION,
        fusion: fusion_json(&report.spec.fusion),
        pairs: PairsJson {
            report,
            clusters: &cluster_ids,
        },
        root: root.display().to_string(),
        thresholds,
    };
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, &value)?;
    out.write_all(b"\n").map_err(serde_json::Error::io)?;
    out.flush().map_err(serde_json::Error::io)?;
    Ok(())
}

/// One pair of the JSON `pairs`.
#[derive(Serialize)]
struct Pair<'a> {
    a: &'a DocPath,
    b: &'a DocPath,
    cluster: Option<usize>,
    containment: Option<f64>,
    duplicate_by: Vec<&'static str>,
    /// `duplicate`, `contains` or `related`; null when none.
    relation: Option<&'static str>,
    scores: ScoresJson<'a>,
    /// For `contains`: the side that holds the other, `a` or `b`.
    #[serde(skip_serializing_if = "Option::is_none")]
    whole: Option<&'static str>,
    /// Each curator's current verdict on the pair, oldest first.
    verdicts: Vec<CuratorJson<'a>>,
    /// The curators' verdicts differ (the pair counts as undecided).
    disputed: bool,
}

/// One curator's verdict on a pair, for the JSON `pairs`.
#[derive(Serialize)]
pub(super) struct CuratorJson<'a> {
    /// Who (`""`: a verdict from before curators were recorded).
    curator: &'a str,
    verdict: CuratorVerdict,
    /// When, RFC 3339 in UTC; null when unknown.
    at: Option<String>,
}

impl<'a> CuratorJson<'a> {
    /// The curators' verdicts on a pair, as the JSON writes them.
    pub(super) fn all(marks: &'a [CuratorMark]) -> Vec<Self> {
        marks
            .iter()
            .map(|m| CuratorJson {
                curator: &m.curator,
                verdict: m.verdict,
                at: rfc3339(m.at_ns),
            })
            .collect()
    }
}

/// Unix nanoseconds as RFC 3339 in UTC, to the second; `None` when unknown
/// (the times of the JSON reports, the HTML report and `watch --jsonl`).
pub fn rfc3339(at_ns: i64) -> Option<String> {
    let secs = u64::try_from(at_ns / 1_000_000_000)
        .ok()
        .filter(|&s| s > 0)?;
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    Some(humantime::format_rfc3339_seconds(t).to_string())
}

/// The JSON `pairs`: the report's pairs, each judged as it is written.
struct PairsJson<'a> {
    report: &'a ScanReport,
    clusters: &'a ClusterIds<'a>,
}

impl Serialize for PairsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(None)?;
        for p in self.report.reported_pairs() {
            let marks = self.report.library.pair_marks(&p.a, &p.b);
            seq.serialize_element(&Pair {
                a: &p.a,
                b: &p.b,
                cluster: self.clusters.of_pair(&p.a, &p.b),
                containment: p.verdict.containment,
                duplicate_by: duplicate_by(&p.verdict),
                relation: p.verdict.relation.map(Relation::as_str),
                scores: ScoresJson(&p.scores),
                whole: whole_side(p.verdict.relation),
                verdicts: CuratorJson::all(marks),
                disputed: disputed(marks),
            })?;
        }
        seq.end()
    }
}

/// The fusion rule in force: in words, and its parts.
fn fusion_json(rule: &FusionRule) -> Value {
    json!({
        "rule": rule.describe(),
        "voters": rule.voters,
        "votes_needed": rule.votes_needed,
        "containment": rule.containment_applies.then_some(rule.containment),
        "min_shingles": rule.min_shingles,
        "part_containment": rule.containment_applies.then_some(rule.relations.part_containment),
        "part_size_ratio": rule.relations.part_size_ratio,
        "related_containment": rule.relations.related,
    })
}

/// The JSON `clusters` ids (1-based, in cluster order) by member path.
struct ClusterIds<'a>(HashMap<&'a DocPath, usize>);

impl<'a> ClusterIds<'a> {
    fn new(clusters: &'a [Vec<DocPath>]) -> Self {
        Self(
            clusters
                .iter()
                .enumerate()
                .flat_map(|(n, members)| members.iter().map(move |m| (m, n + 1)))
                .collect(),
        )
    }

    /// The cluster holding both `a` and `b`, if one does (a kept pair can
    /// join files of two clusters, or a clustered file to an unclustered one).
    fn of_pair(&self, a: &DocPath, b: &DocPath) -> Option<usize> {
        let cluster = *self.0.get(a)?;
        (self.0.get(b) == Some(&cluster)).then_some(cluster)
    }
}

/// The pairs as CSV: a, b, the id of the cluster holding both (empty if
/// none), every algorithm's score (empty where a side has no fingerprint),
/// the containment, the algorithms whose threshold the pair passes, the
/// relation (empty if none) and, for `contains`, the whole's side.
pub fn csv(report: &ScanReport) -> Result<String> {
    let mut out = Vec::new();
    csv_to(&mut out, report)?;
    Ok(String::from_utf8(out).expect("CSV of UTF-8 fields is UTF-8"))
}

/// [`csv()`] written to `out` a row at a time.
pub fn csv_to(out: impl Write, report: &ScanReport) -> Result<()> {
    let clusters = report.cluster_paths();
    let ids = ClusterIds::new(&clusters);
    let mut out = csv::Writer::from_writer(out);
    let header = ["a", "b", "cluster"]
        .into_iter()
        .chain(AlgorithmId::ALL.iter().map(|id| id.as_str()))
        .chain(["containment", "duplicate_by", "relation", "whole"]);
    out.write_record(header)?;
    let number = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for p in report.reported_pairs() {
        let cluster = ids
            .of_pair(&p.a, &p.b)
            .map_or(String::new(), |c| c.to_string());
        let scores = AlgorithmId::ALL
            .iter()
            .map(|id| number(p.scores.get(id).and_then(Score::value)));
        let record = [p.a.to_string(), p.b.to_string(), cluster]
            .into_iter()
            .chain(scores)
            .chain([
                number(p.verdict.containment),
                duplicate_by(&p.verdict).join(" "),
                p.verdict
                    .relation
                    .map_or(String::new(), |r| r.as_str().to_owned()),
                whole_side(p.verdict.relation)
                    .unwrap_or_default()
                    .to_owned(),
            ]);
        out.write_record(record)?;
    }
    out.flush().map_err(csv::Error::from)?;
    Ok(())
}
