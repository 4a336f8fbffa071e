//! The one exporter of clusters and pairs: typed records written as JSON
//! (`serde_json`, pretty, a newline at the end) or CSV (`csv::Writer`, a
//! header row, then one record a row), for every output that hands
//! clusters and pairs to scripts and spreadsheets: the scan
//! ([`scan`], `doppel scan --format json|csv`), the curator's manifest
//! ([`manifest`], `doppel manifest`) and the review screen's export
//! ([`review`], its `-clusters.csv`, `-pairs.csv` and `.json`).
//!
//! Each output keeps its own columns and keys (each a documented format);
//! what they share is here: a value per algorithm as a JSON object in
//! name order ([`ByAlgorithm`]) or as one CSV column per algorithm
//! ([`ScoreColumns`]), numbers as people write them in CSV ([`Number`]),
//! space-separated lists ([`Words`]), the review export's always-quoted
//! text ([`Quoted`]), the curators' verdicts ([`CuratorRecord`]) and the
//! words of a pair's verdict ([`duplicate_by`], [`whole_side`]).

pub mod manifest;
pub mod review;
pub mod scan;

use std::fmt::Display;
use std::io::Write;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use doppel_core::doc::CuratorVerdict;
use doppel_core::engine::algo::{AlgorithmId, Score};
use doppel_core::engine::{PairScores, Relation, Verdict};
use doppel_pairing::library::CuratorMark;

/// A value per algorithm, as a JSON object keyed by algorithm id in name
/// order (`null` where an algorithm has no value).
#[derive(Debug, Clone, PartialEq)]
pub struct ByAlgorithm(Vec<(&'static str, Option<f64>)>);

impl ByAlgorithm {
    /// The `values`, in name order.
    pub fn new(values: impl IntoIterator<Item = (AlgorithmId, Option<f64>)>) -> Self {
        let mut values: Vec<(&'static str, Option<f64>)> =
            values.into_iter().map(|(id, v)| (id.as_str(), v)).collect();
        values.sort_unstable_by_key(|&(name, _)| name);
        Self(values)
    }

    /// The scores a pair has (`null` for a score without a value).
    pub fn scores(scores: &PairScores) -> Self {
        Self::new(scores.iter().map(|(&id, s)| (id, s.value())))
    }

    /// Every algorithm's score of `scores` (`null` where it has none).
    pub fn every_score(scores: &PairScores) -> Self {
        Self::new(
            AlgorithmId::ALL
                .into_iter()
                .map(|id| (id, scores.get(&id).and_then(Score::value))),
        )
    }
}

impl Serialize for ByAlgorithm {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// A number in a CSV cell, as Rust writes it (`1`, `0.75`), empty for
/// none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number(pub Option<f64>);

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(v) => serializer.collect_str(&v),
            None => serializer.serialize_str(""),
        }
    }
}

/// Every algorithm's value, one CSV column each in [`AlgorithmId::ALL`]
/// order ([`score_header`] names them), empty where there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreColumns(Vec<Number>);

impl ScoreColumns {
    /// The column of each algorithm from `value`.
    pub fn new(value: impl Fn(AlgorithmId) -> Option<f64>) -> Self {
        Self(AlgorithmId::ALL.map(|id| Number(value(id))).to_vec())
    }

    /// The scores of `scores`, where it has them.
    pub fn of(scores: Option<&PairScores>) -> Self {
        Self::new(|id| scores?.get(&id).and_then(Score::value))
    }
}

impl Serialize for ScoreColumns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for cell in &self.0 {
            seq.serialize_element(cell)?;
        }
        seq.end()
    }
}

/// The header of [`ScoreColumns`]: every algorithm id.
pub fn score_header() -> impl Iterator<Item = &'static str> {
    AlgorithmId::ALL.into_iter().map(AlgorithmId::as_str)
}

/// Words separated by single spaces, as one CSV cell or JSON string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words(pub Vec<&'static str>);

impl Words {
    /// The ids of `algorithms`, in their order.
    pub fn ids(algorithms: &[AlgorithmId]) -> Self {
        Self(algorithms.iter().map(|id| id.as_str()).collect())
    }
}

impl Serialize for Words {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0.join(" "))
    }
}

/// A CSV cell always in quotes (the review export's paths and lists, as
/// its format has always written them), quoted by `csv-core`. Only for a
/// table written by [`CsvTable::quoting_text`], which leaves every cell as
/// it comes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quoted<T>(pub T);

impl<T: Display> Serialize for Quoted<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.0.to_string();
        let mut quoting = csv_core::WriterBuilder::new()
            .quote_style(csv_core::QuoteStyle::Always)
            .build();
        // Every byte a quote, doubled, and the two around it.
        let mut out = vec![0; 2 * text.len() + 2];
        let (_, _, written) = quoting.field(text.as_bytes(), &mut out);
        let (_, closed) = quoting.finish(&mut out[written..]);
        out.truncate(written + closed);
        serializer.serialize_bytes(&out)
    }
}

/// A CSV table: a header row, then one typed record a row (a struct's
/// fields in order, a nested sequence such as [`ScoreColumns`] spread over
/// its columns).
pub struct CsvTable<W: Write> {
    writer: csv::Writer<W>,
}

impl<W: Write> CsvTable<W> {
    /// A table quoting a cell only where CSV needs it.
    pub fn new<'h>(out: W, header: impl IntoIterator<Item = &'h str>) -> csv::Result<Self> {
        Self::with(csv::WriterBuilder::new(), out, header)
    }

    /// A table that leaves every cell as it comes: its text cells are
    /// [`Quoted`], its other cells numbers, `true`/`false` and words.
    pub fn quoting_text<'h>(
        out: W,
        header: impl IntoIterator<Item = &'h str>,
    ) -> csv::Result<Self> {
        let mut builder = csv::WriterBuilder::new();
        builder.quote_style(csv::QuoteStyle::Never);
        Self::with(builder, out, header)
    }

    fn with<'h>(
        mut builder: csv::WriterBuilder,
        out: W,
        header: impl IntoIterator<Item = &'h str>,
    ) -> csv::Result<Self> {
        let mut writer = builder.has_headers(false).from_writer(out);
        writer.write_record(header)?;
        Ok(Self { writer })
    }

    /// One row.
    pub fn row(&mut self, record: &impl Serialize) -> csv::Result<()> {
        self.writer.serialize(record)
    }

    /// Every row written: the output back.
    pub fn finish(self) -> csv::Result<W> {
        self.writer
            .into_inner()
            .map_err(|e| csv::Error::from(e.into_error()))
    }
}

impl CsvTable<Vec<u8>> {
    /// Every row written, as text.
    pub fn into_text(self) -> csv::Result<String> {
        // Every cell is a `str` (or one in quotes): the text is UTF-8.
        String::from_utf8(self.finish()?)
            .map_err(|e| csv::Error::from(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    }
}

/// `value` as pretty JSON and a newline, written to `out` as it is made.
pub fn write_json(out: impl Write, value: &impl Serialize) -> serde_json::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, value)?;
    out.write_all(b"\n").map_err(serde_json::Error::io)?;
    out.flush().map_err(serde_json::Error::io)
}

/// `value` as pretty JSON and a newline.
pub fn json_text(value: &impl Serialize) -> serde_json::Result<String> {
    Ok(serde_json::to_string_pretty(value)? + "\n")
}

/// The side that holds the other in a `contains` relation (`a` or `b`).
pub fn whole_side(relation: Option<Relation>) -> Option<&'static str> {
    match relation? {
        Relation::Contains { whole } => Some(whole.as_str()),
        _ => None,
    }
}

/// The algorithms whose threshold a pair passes, and `fusion` when the
/// fusion rule calls it a duplicate.
pub fn duplicate_by(verdict: &Verdict) -> Vec<&'static str> {
    let mut ids: Vec<&str> = verdict.passing.iter().map(|id| id.as_str()).collect();
    if verdict.fusion {
        ids.push("fusion");
    }
    ids
}

/// One curator's verdict on a pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CuratorRecord<'a> {
    /// Who (`""`: a verdict from before curators were recorded).
    pub curator: &'a str,
    /// The verdict.
    pub verdict: CuratorVerdict,
    /// When, RFC 3339 in UTC; null when unknown.
    pub at: Option<String>,
}

impl<'a> CuratorRecord<'a> {
    /// The curators' verdicts on a pair, oldest first.
    pub fn all(marks: &'a [CuratorMark]) -> Vec<Self> {
        marks
            .iter()
            .map(|m| CuratorRecord {
                curator: &m.curator,
                verdict: m.verdict,
                at: rfc3339(m.at_ns),
            })
            .collect()
    }
}

/// Unix nanoseconds as RFC 3339 in UTC, to the second; `None` when unknown
/// (the times of the JSON outputs, the HTML report and `watch --jsonl`).
pub fn rfc3339(at_ns: i64) -> Option<String> {
    let secs = u64::try_from(at_ns / 1_000_000_000)
        .ok()
        .filter(|&s| s > 0)?;
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    Some(humantime::format_rfc3339_seconds(t).to_string())
}
