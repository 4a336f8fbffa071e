//! The scan for scripts: JSON (a versioned contract, README's "JSON
//! output") and CSV, one row per pair. Both print the pairs
//! [`ScanReport::pairs`] gives (those that pass a threshold or carry a
//! relation), written as they are judged so that a scan of millions of
//! pairs is never held twice in memory.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{duplicate_by, whole_side, ByAlgorithm, CsvTable, CuratorRecord, Number, ScoreColumns};
use crate::boilerplate::PassageSummary;
use crate::config::cluster_by_name;
use crate::places::{PairPlace, Places};
use crate::scan::ScanReport;
use doppel_core::doc::{DocId, DocPath};
use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{EngineConfig, FusionRule, Relation};
use doppel_formats::Format;
use doppel_pairing::cluster::{ClusterMode, Role};
use doppel_pairing::library::disputed;

/// Version of the JSON output format.
pub const JSON_FORMAT_VERSION: u32 = 1;

/// The scan as JSON (format version [`JSON_FORMAT_VERSION`]) written to
/// `out` as it is made: the pairs are judged one at a time
/// ([`ScanReport::reported_pairs`]), never all held.
pub fn write_json(
    out: impl Write,
    report: &ScanReport,
    root: &Path,
    config: &EngineConfig,
) -> serde_json::Result<()> {
    let cluster_paths = report.cluster_paths();
    let cluster_ids = ClusterIds::new(&cluster_paths);
    let places = Places::new(root);
    let value = ReportJson {
        boilerplate: &report.boilerplate.passages,
        cluster_algorithm: cluster_by_name(report.spec.by),
        cluster_mode: report.spec.mode,
        clusters: cluster_paths
            .iter()
            .enumerate()
            .map(|(n, members)| ClusterJson {
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
                DocumentJson {
                    boilerplate_spans: indexed.then(|| {
                        found.map_or_else(Vec::new, |b| {
                            b.ranges.iter().map(|r| [r.start, r.end]).collect()
                        })
                    }),
                    boilerplate_words: indexed.then(|| found.map_or(0, |b| b.words())),
                    bytes: d.bytes,
                    encoding: &d.encoding,
                    format: Some(places.format_of(&d.path)).filter(|f| *f != Format::Text),
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
        fusion: FusionJson::of(&report.spec.fusion),
        pairs: PairsJson {
            report,
            clusters: &cluster_ids,
            places: &places,
        },
        root: root.display().to_string(),
        thresholds: ByAlgorithm::new(
            AlgorithmId::ALL
                .into_iter()
                .filter(|id| config.enabled.contains(id))
                .map(|id| (id, Some(report.spec.thresholds.get(id)))),
        ),
    };
    super::write_json(out, &value)
}

/// The scan's JSON. Typed rows borrowing the report, fields in name order
/// (the order the format has always had), instead of a `Value` tree that
/// would hold a second, larger copy of every pair.
#[derive(Serialize)]
struct ReportJson<'a> {
    boilerplate: &'a [PassageSummary],
    cluster_algorithm: String,
    cluster_mode: ClusterMode,
    clusters: Vec<ClusterJson<'a>>,
    documents: Vec<DocumentJson<'a>>,
    doppel: &'static str,
    format: u32,
    fusion: FusionJson,
    pairs: PairsJson<'a>,
    root: String,
    thresholds: ByAlgorithm,
}

/// One file met.
#[derive(Serialize)]
struct DocumentJson<'a> {
    /// Byte ranges of the decoded text left out as boilerplate (indexed
    /// documents).
    #[serde(skip_serializing_if = "Option::is_none")]
    boilerplate_spans: Option<Vec<[u64; 2]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    boilerplate_words: Option<u32>,
    bytes: u64,
    encoding: &'a Option<String>,
    /// The structured format it was read from (PDF, EPUB, ALTO, …); absent
    /// for plain text.
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<Format>,
    path: &'a DocPath,
    reason: Option<String>,
    status: &'static str,
}

/// One cluster.
#[derive(Serialize)]
struct ClusterJson<'a> {
    id: usize,
    members: &'a [DocPath],
    representative: &'a DocPath,
    /// Each member's role, in the order of `members`.
    roles: Vec<MemberRole<'a>>,
}

/// `head` (the whole the others sit in, or the document they duplicate),
/// `duplicate` of `of`, or `part` of `of`.
#[derive(Serialize)]
struct MemberRole<'a> {
    path: &'a DocPath,
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    of: Option<&'a DocPath>,
}

/// The fusion rule in force: in words, and its parts.
#[derive(Serialize)]
struct FusionJson {
    containment: Option<f64>,
    min_shingles: usize,
    part_containment: Option<f64>,
    part_size_ratio: f64,
    own_text: usize,
    own_text_share: f64,
    related_containment: f64,
    rule: String,
    voters: Vec<AlgorithmId>,
    votes_needed: usize,
}

impl FusionJson {
    fn of(rule: &FusionRule) -> Self {
        Self {
            containment: rule.containment_applies.then_some(rule.containment),
            min_shingles: rule.min_shingles,
            part_containment: rule
                .containment_applies
                .then_some(rule.relations.part_containment),
            part_size_ratio: rule.relations.part_size_ratio,
            own_text: rule.relations.own_text,
            own_text_share: rule.relations.own_text_share,
            related_containment: rule.relations.related,
            rule: rule.describe(),
            voters: rule.voters.iter().copied().collect(),
            votes_needed: rule.votes_needed,
        }
    }
}

/// One pair of the JSON `pairs`.
#[derive(Serialize)]
struct PairJson<'a> {
    a: &'a DocPath,
    b: &'a DocPath,
    cluster: Option<usize>,
    containment: Option<f64>,
    duplicate_by: Vec<&'static str>,
    /// `duplicate`, `contains` or `related`; null when none.
    relation: Option<&'static str>,
    scores: ByAlgorithm,
    /// For `contains`: the side that holds the other, `a` or `b`.
    #[serde(skip_serializing_if = "Option::is_none")]
    whole: Option<&'static str>,
    /// Each curator's current verdict on the pair, oldest first.
    verdicts: Vec<CuratorRecord<'a>>,
    /// The curators' verdicts differ (the pair counts as undecided).
    disputed: bool,
    /// Where each side matches, when one has pages ([`Places`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    place: Option<PairPlace>,
}

/// The JSON `pairs`: the report's pairs, each judged as it is written.
struct PairsJson<'a> {
    report: &'a ScanReport,
    clusters: &'a ClusterIds<'a>,
    places: &'a Places,
}

impl Serialize for PairsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(None)?;
        for p in self.report.reported_pairs() {
            let marks = self.report.library.pair_marks(&p.a, &p.b);
            seq.serialize_element(&PairJson {
                a: &p.a,
                b: &p.b,
                cluster: self.clusters.of_pair(&p.a, &p.b),
                containment: p.verdict.containment,
                duplicate_by: duplicate_by(&p.verdict),
                relation: p.verdict.relation.map(Relation::as_str),
                scores: ByAlgorithm::scores(&p.scores),
                whole: whole_side(p.verdict.relation),
                verdicts: CuratorRecord::all(marks),
                disputed: disputed(marks),
                place: self.places.of_scanned_pair(self.report, &p.a, &p.b),
            })?;
        }
        seq.end()
    }
}

/// The pairs as CSV written to `out` a row at a time: a, b, the id of the
/// cluster holding both (empty if none), every algorithm's score (empty
/// where a side has no fingerprint), the containment, the algorithms whose
/// threshold the pair passes, the relation (empty if none), for
/// `contains`, the whole's side, and where each side matches when one has
/// pages (empty otherwise; read from the files under `root`).
pub fn write_csv(out: impl Write, report: &ScanReport, root: &Path) -> csv::Result<()> {
    let places = Places::new(root);
    let clusters = report.cluster_paths();
    let ids = ClusterIds::new(&clusters);
    let header = ["a", "b", "cluster"]
        .into_iter()
        .chain(super::score_header())
        .chain(["containment", "duplicate_by", "relation", "whole"])
        .chain(["place_a", "place_b"]);
    let mut table = CsvTable::new(out, header)?;
    for p in report.reported_pairs() {
        let place = places.of_scanned_pair(report, &p.a, &p.b);
        table.row(&PairRow {
            a: &p.a,
            b: &p.b,
            cluster: ids.of_pair(&p.a, &p.b),
            scores: ScoreColumns::of(Some(&p.scores)),
            containment: Number(p.verdict.containment),
            duplicate_by: super::Words(duplicate_by(&p.verdict)),
            relation: p.verdict.relation.map(Relation::as_str),
            whole: whole_side(p.verdict.relation),
            place_a: place.as_ref().map(|p| p.a.as_str()),
            place_b: place.as_ref().map(|p| p.b.as_str()),
        })?;
    }
    table.finish()?;
    Ok(())
}

/// One row of the scan's CSV.
#[derive(Serialize)]
struct PairRow<'a> {
    a: &'a DocPath,
    b: &'a DocPath,
    cluster: Option<usize>,
    scores: ScoreColumns,
    containment: Number,
    duplicate_by: super::Words,
    relation: Option<&'static str>,
    whole: Option<&'static str>,
    /// Where each side matches; both empty without pages.
    place_a: Option<&'a str>,
    place_b: Option<&'a str>,
}

/// The path of a library document.
fn lib_path(report: &ScanReport, id: DocId) -> Option<&DocPath> {
    report.library.doc(id).map(|d| &d.path)
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
