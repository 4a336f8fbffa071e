//! What the curator sees on the review screen, exported (the terminal UI's
//! export, filled from its snapshot): `-clusters.csv`, one row per cluster
//! member; `-pairs.csv`, one row per member and its representative; and
//! one JSON document of everything (format [`EXPORT_FORMAT`]). The CSV
//! tables quote their paths and lists always, as they always have.

use serde::Serialize;

use super::{ByAlgorithm, CsvTable, Number, Quoted, ScoreColumns, Words};
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::PairScores;

/// Version of the export JSON.
pub const EXPORT_FORMAT: u32 = 1;

/// One member of a cluster, as the review screen shows it.
pub struct MemberRow<'a> {
    /// The cluster's id (1-based, in the screen's order).
    pub cluster: usize,
    /// The member.
    pub path: &'a DocPath,
    /// Whether it is the representative (the first member).
    pub representative: bool,
    /// Whether it is marked (or shown) as the keeper.
    pub keep: bool,
    /// The cluster's weakest link.
    pub weakest: Option<f64>,
    /// The algorithms that agree on the whole cluster.
    pub agreeing: Words,
    /// Whether the algorithms disagree on the cluster.
    pub disagreement: bool,
}

/// The clusters table: one row per member.
pub fn clusters_csv<'a>(rows: impl IntoIterator<Item = MemberRow<'a>>) -> csv::Result<String> {
    #[derive(Serialize)]
    struct Row<'a> {
        cluster: usize,
        path: Quoted<&'a DocPath>,
        representative: bool,
        keep: bool,
        weakest: Number,
        agreeing: Quoted<String>,
        disagreement: bool,
    }
    let header = [
        "cluster",
        "path",
        "representative",
        "keep",
        "weakest",
        "agreeing",
        "disagreement",
    ];
    let mut table = CsvTable::quoting_text(Vec::new(), header)?;
    for m in rows {
        table.row(&Row {
            cluster: m.cluster,
            path: Quoted(m.path),
            representative: m.representative,
            keep: m.keep,
            weakest: Number(m.weakest),
            agreeing: Quoted(m.agreeing.0.join(" ")),
            disagreement: m.disagreement,
        })?;
    }
    table.into_text()
}

/// A member and its cluster's representative, as the review screen
/// compares them.
pub struct PairRow<'a> {
    /// The cluster's id.
    pub cluster: usize,
    /// The representative.
    pub a: &'a DocPath,
    /// The member.
    pub b: &'a DocPath,
    /// Every algorithm's score between them, where they were compared.
    pub scores: Option<&'a PairScores>,
    /// The share of shingles in common (shingle's containment).
    pub containment: Option<f64>,
    /// The algorithms whose threshold the pair passes.
    pub passing: Words,
    /// The curator's verdict on the two.
    pub verdict: Option<CuratorVerdict>,
}

/// The pairs table: one row per (representative, member) pair, every
/// algorithm's score in its native unit.
pub fn pairs_csv<'a>(rows: impl IntoIterator<Item = PairRow<'a>>) -> csv::Result<String> {
    #[derive(Serialize)]
    struct Row<'a> {
        cluster: usize,
        a: Quoted<&'a DocPath>,
        b: Quoted<&'a DocPath>,
        scores: ScoreColumns,
        containment: Number,
        passing: Quoted<String>,
        verdict: &'static str,
    }
    let header = ["cluster", "a", "b"]
        .into_iter()
        .chain(super::score_header())
        .chain(["containment", "passing", "verdict"]);
    let mut table = CsvTable::quoting_text(Vec::new(), header)?;
    for p in rows {
        table.row(&Row {
            cluster: p.cluster,
            a: Quoted(p.a),
            b: Quoted(p.b),
            scores: ScoreColumns::of(p.scores),
            containment: Number(p.containment),
            passing: Quoted(p.passing.0.join(" ")),
            verdict: p.verdict.map_or("", CuratorVerdict::as_str),
        })?;
    }
    table.into_text()
}

/// Everything in one JSON document (format [`EXPORT_FORMAT`]); keys in
/// name order, as the format has always had them.
#[derive(Serialize)]
pub struct ReviewJson<'a> {
    /// The verdict clusters are made by: `fusion` or an algorithm id.
    pub cluster_algorithm: &'a str,
    /// The clusters, in the screen's order.
    pub clusters: Vec<ClusterJson<'a>>,
    /// Documents in the collection.
    pub documents: usize,
    /// doppel's version.
    pub doppel: &'static str,
    /// [`EXPORT_FORMAT`].
    pub export_format: u32,
    /// The cluster mode: `components` or `star`.
    pub mode: &'static str,
    /// The folder reviewed.
    pub root: &'a str,
    /// Files that are not documents, and why.
    pub skipped: Vec<SkippedJson<'a>>,
    /// Every algorithm's threshold.
    pub thresholds: ByAlgorithm,
    /// Every verdict known, by pair.
    pub verdicts: Vec<VerdictJson<'a>>,
}

/// One cluster of [`ReviewJson`].
#[derive(Serialize)]
pub struct ClusterJson<'a> {
    /// The algorithms that agree on the whole cluster.
    pub agreeing: Vec<&'static str>,
    /// Whether the algorithms disagree on it.
    pub disagreement: bool,
    /// Its id (1-based).
    pub id: usize,
    /// Its members, the representative first.
    pub members: Vec<MemberJson<'a>>,
    /// Its representative.
    pub representative: Option<&'a DocPath>,
    /// Its weakest link.
    pub weakest: Option<f64>,
}

/// One member of a [`ClusterJson`].
#[derive(Serialize)]
pub struct MemberJson<'a> {
    /// Whether it is marked (or shown) as the keeper.
    pub keep: bool,
    /// The algorithms whose threshold it passes against the representative.
    pub passing: Vec<&'static str>,
    /// The member.
    pub path: &'a DocPath,
    /// Every algorithm's score against the representative (`null` where
    /// an algorithm has none), where they were compared.
    pub scores: Option<ByAlgorithm>,
}

/// A verdict of [`ReviewJson`].
#[derive(Serialize)]
pub struct VerdictJson<'a> {
    /// One side.
    pub a: &'a DocPath,
    /// The other.
    pub b: &'a DocPath,
    /// `duplicate` or `not-duplicate`.
    pub verdict: CuratorVerdict,
}

/// A skipped file of [`ReviewJson`].
#[derive(Serialize)]
pub struct SkippedJson<'a> {
    /// The file.
    pub path: &'a DocPath,
    /// Why it is not a document.
    pub reason: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables quote paths and lists always (quotes in them doubled),
    /// and write numbers as Rust does: the bytes the export has always
    /// written.
    #[test]
    fn text_is_always_quoted_and_numbers_written_as_rust_writes_them() {
        let (rep, member) = (DocPath::from("a.txt"), DocPath::from("b \"2\", copy.txt"));
        let clusters = clusters_csv([MemberRow {
            cluster: 1,
            path: &member,
            representative: false,
            keep: true,
            weakest: Some(1.0),
            agreeing: Words(vec!["shingle", "minhash"]),
            disagreement: false,
        }])
        .unwrap();
        assert_eq!(
            clusters,
            "cluster,path,representative,keep,weakest,agreeing,disagreement\n\
             1,\"b \"\"2\"\", copy.txt\",false,true,1,\"shingle minhash\",false\n"
        );
        let pairs = pairs_csv([PairRow {
            cluster: 1,
            a: &rep,
            b: &member,
            scores: None,
            containment: Some(0.25),
            passing: Words(Vec::new()),
            verdict: Some(CuratorVerdict::NotDuplicate),
        }])
        .unwrap();
        let row = pairs.lines().nth(1).unwrap();
        assert_eq!(
            row,
            "1,\"a.txt\",\"b \"\"2\"\", copy.txt\",,,,,,,,,,,,0.25,\"\",not-duplicate"
        );
    }
}
