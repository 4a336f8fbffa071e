//! Rendering scan and compare results as text, JSON and CSV for people,
//! scripts and spreadsheets. The JSON shape is a versioned contract
//! documented in README.md.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use doppel_core::doc::{CuratorVerdict, DocId, DocPath};
use doppel_core::engine::algo::{AlgorithmId, AlgorithmSet, Score, Unit};
use doppel_core::engine::measure::ExactMeasures;
use doppel_core::engine::{
    verdict, Containments, Engine, PairScores, Relation, RelationKind, Side, Verdict,
};
use doppel_index::boilerplate::BoilerplateReport;
use doppel_index::collection::{book_now, PageFolders};
use doppel_index::places::Places;
use doppel_index::scan::ScanReport;
use doppel_pairing::cluster::{ClusterBy, Role};

mod compare_boilerplate;
pub mod html;
mod json;
pub use compare_boilerplate::CompareBoilerplate;
pub use doppel_index::export::rfc3339;
pub use doppel_index::export::scan::JSON_FORMAT_VERSION;
use doppel_index::export::{duplicate_by, json_text, whole_side, ByAlgorithm};
pub use json::{csv, csv_to, json, json_to};

/// Why a report could not be written (in memory, so only a value that
/// does not serialize).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The JSON encoder failed.
    #[error("cannot write the report as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The CSV writer failed.
    #[error("cannot write the report as CSV: {0}")]
    Csv(#[from] csv::Error),
    /// What was written is not text (a writer's fault: every field is).
    #[error("cannot write the report as text: {0}")]
    Text(#[from] std::string::FromUtf8Error),
}

impl<W> From<csv::IntoInnerError<W>> for ReportError {
    fn from(e: csv::IntoInnerError<W>) -> Self {
        ReportError::Csv(csv::Error::from(e.into_error()))
    }
}

/// A rendering's result.
pub type Result<T, E = ReportError> = std::result::Result<T, E>;

/// Bytes written as text (every field written is a `str`).
fn utf8(bytes: Vec<u8>) -> Result<String> {
    Ok(String::from_utf8(bytes)?)
}

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

/// A threshold in its algorithm's unit, with the direction a score must lie.
pub fn format_threshold(id: AlgorithmId, t: f64) -> String {
    match id.unit() {
        Unit::HammingBits => format!("≤ {t}"),
        Unit::Matches => format!("≥ {t}"),
        Unit::Similarity => format!("≥ {t:.2}"),
    }
}

/// The id `--cluster-by` names (an algorithm id or `fusion`).
pub fn cluster_by_name(by: ClusterBy) -> &'static str {
    match by {
        ClusterBy::Fusion => "fusion",
        ClusterBy::Algorithm(id) => id.as_str(),
    }
}

/// `n` and its noun, singular or plural.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Why the link between two members holds, in words: the algorithms that
/// agree, whether one is contained in the other (`contained` is set), and
/// a curator's "duplicate".
fn link_words(report: &ScanReport, a: DocId, b: DocId, contained: &mut bool) -> String {
    let lib = &report.library;
    let (Some(da), Some(db)) = (lib.doc(a), lib.doc(b)) else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(scores) = lib.pair(a, b) {
        let spec = &report.spec;
        let v = verdict(
            &scores,
            &spec.thresholds,
            &spec.fusion,
            da.shingles.min(db.shingles),
        );
        if !v.passing.is_empty() {
            let ids: Vec<&str> = v.passing.iter().map(|id| id.as_str()).collect();
            parts.push(format!("{} agree: {}", v.passing.len(), ids.join(" ")));
        }
        if v.contained {
            *contained = true;
            parts.push("contained".to_owned());
        }
    }
    if lib.pair_verdict(&da.path, &db.path) == Some(CuratorVerdict::Duplicate) {
        parts.push("marked duplicate".to_owned());
    }
    parts.join("; ")
}

/// What holds a cluster together, in the words every face uses: the
/// algorithms that pass on every link, or, when none does, that it is a
/// whole and its parts (scores compare whole texts, so a part passes none
/// of them: containment holds it) or that no one algorithm passes on every
/// link.
pub fn evidence_words(agreeing: &[AlgorithmId], roles: &[Role]) -> String {
    if !agreeing.is_empty() {
        let ids: Vec<&str> = agreeing.iter().map(|id| id.as_str()).collect();
        return format!("pass on every link: {}", ids.join(" "));
    }
    if roles.iter().any(|r| matches!(r, Role::PartOf(_))) {
        "a whole and its parts, held by containment".to_owned()
    } else {
        "no algorithm passes on every link".to_owned()
    }
}

/// The share of `part`'s shingles found in `whole`, when they were paired.
fn inside(report: &ScanReport, part: DocId, whole: DocId) -> Option<f64> {
    let scores = report.library.pair_from(part, whole)?;
    Containments::of(scores.get(&AlgorithmId::Shingle)?).map(|c| c.a_in_b)
}

/// `" (86 % of it inside)"`, or nothing when the share is not known.
fn inside_words(report: &ScanReport, part: DocId, whole: DocId) -> String {
    inside(report, part, whole).map_or(String::new(), |c| {
        format!(" ({:.0} % of it inside)", c * 100.0)
    })
}

/// Why member `m` belongs to a cluster represented by `rep`, from its
/// role: a duplicate of the representative (the agreeing algorithms), a
/// part of a member, or the whole the others sit in; a member whose role
/// names another member than the representative is "linked through" it.
fn role_words(
    report: &ScanReport,
    rep: DocId,
    m: DocId,
    role: Role,
    contained: &mut bool,
) -> String {
    let path = |id: DocId| {
        lib_path(report, id)
            .map(|p| p.to_string())
            .unwrap_or_default()
    };
    match role {
        Role::DuplicateOf(of) if of == rep => link_words(report, rep, m, contained),
        Role::DuplicateOf(of) => format!(
            "linked through {}: duplicate of it; {}",
            path(of),
            link_words(report, of, m, contained)
        ),
        Role::PartOf(of) if of == rep => format!(
            "part of {}{}: {}",
            path(of),
            inside_words(report, m, of),
            link_words(report, of, m, contained)
        ),
        Role::PartOf(of) => format!(
            "linked through {}: part of it{}; {}",
            path(of),
            inside_words(report, m, of),
            link_words(report, of, m, contained)
        ),
        Role::Head if report.library.pair(rep, m).is_some() => {
            format!("the whole: {}", link_words(report, rep, m, contained))
        }
        Role::Head => "the whole the others sit in".to_owned(),
    }
}

/// The kept pairs of the relations `--relation` names (related pairs
/// only, by default: duplicates and parts are in the clusters above), one
/// a line: `contains  a.txt ⊂ b.txt (86 % of the part inside)`.
fn relation_lines(report: &ScanReport) -> String {
    let kinds = report
        .only_relations
        .clone()
        .unwrap_or_else(|| vec![RelationKind::Related]);
    let mut out = String::new();
    for p in report.pairs() {
        let Some(relation) = p.verdict.relation.filter(|r| kinds.contains(&r.kind())) else {
            continue;
        };
        let share = p
            .scores
            .get(&AlgorithmId::Shingle)
            .and_then(Containments::of);
        let line = match (relation, share) {
            (Relation::Contains { whole }, Some(c)) => {
                let (part, whole, inside) = match whole {
                    Side::A => (&p.b, &p.a, c.b_in_a),
                    Side::B => (&p.a, &p.b, c.a_in_b),
                };
                format!(
                    "{part} ⊂ {whole} ({:.0} % of the part inside)",
                    inside * 100.0
                )
            }
            (Relation::Related, Some(c)) => format!(
                "{} ~ {} ({:.0} % of the smaller in the larger)",
                p.a,
                p.b,
                c.larger() * 100.0
            ),
            _ => format!("{} ~ {}", p.a, p.b),
        };
        let _ = writeln!(out, "  {:<9}  {line}", relation.as_str());
    }
    if out.is_empty() {
        return out;
    }
    let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    format!("pairs ({})\n{out}\n", names.join(", "))
}

/// The clusters, skipped files and counts as plain text. Each member is
/// shown with why it joins: the link to the representative, or "linked
/// through" the member that leads to it.
///
/// A member matched with a document in a paged format (PDF, ALTO, …) is
/// followed by where each matches, read from the files under `root`:
/// `pp. 3–5 ≈ lines 120–340 of emma.txt`.
pub fn text(report: &ScanReport, root: &Path) -> String {
    let places = Places::new(root);
    let lib = &report.library;
    let spec = &report.spec;
    let indexed = report.docs.iter().filter(|d| d.skipped.is_none()).count();
    let rule = match spec.by {
        ClusterBy::Fusion => format!("fusion: {}", spec.fusion.describe()),
        ClusterBy::Algorithm(id) => {
            format!("{id} {}", format_threshold(id, spec.thresholds.get(id)))
        }
    };
    let mut body = String::new();
    let mut contained = false;
    let path = |id: DocId| lib.doc(id).map(|d| d.path.to_string()).unwrap_or_default();
    for (n, cluster) in report.clusters.iter().enumerate() {
        let rep = cluster.representative();
        let _ = writeln!(
            body,
            "cluster {} ({}; {}{})",
            n + 1,
            count(cluster.members.len(), "document", "documents"),
            evidence_words(&cluster.agreeing, &cluster.roles),
            if cluster.disagreement {
                "; some pass on some links only"
            } else {
                ""
            }
        );
        let _ = writeln!(body, "  * {}", path(rep));
        for (&m, &role) in cluster.members.iter().zip(&cluster.roles).skip(1) {
            let detail = role_words(report, rep, m, role, &mut contained);
            let _ = writeln!(body, "    {}  [{detail}]", path(m));
            let linked = match role {
                Role::DuplicateOf(of) | Role::PartOf(of) => of,
                Role::Head => rep,
            };
            if let (Some(a), Some(b)) = (lib_path(report, m), lib_path(report, linked)) {
                if let Some(place) = places.of_scanned_pair(report, a, b) {
                    let _ = writeln!(body, "      {} ≈ {} of {b}", place.a, place.b);
                }
            }
        }
        body.push('\n');
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} indexed, {} skipped, {}, {} ({rule})",
        count(indexed, "document", "documents"),
        report.docs.len() - indexed,
        count(report.reported_count(), "verified pair", "verified pairs"),
        count(report.clusters.len(), "cluster", "clusters"),
    );
    if contained || matches!(spec.by, ClusterBy::Fusion) {
        let _ = writeln!(
            out,
            "contained = at least {:.0} % of the smaller document's shingles (runs of words) \
             are in the larger one",
            spec.fusion.containment * 100.0
        );
        let _ = writeln!(
            out,
            "part = at least {:.0} % of the smaller document's shingles are in a larger one, \
             and it is at most {:.0} % of that one's size (contained too)",
            spec.fusion.relations.part_containment * 100.0,
            spec.fusion.relations.part_size_ratio * 100.0
        );
    }
    out.push('\n');
    out.push_str(&body);
    out.push_str(&relation_lines(report));
    out.push_str(&book_folder_lines(report, root));
    let skipped: Vec<_> = report
        .docs
        .iter()
        .filter_map(|d| Some((&d.path, d.skipped.as_ref()?)))
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(out, "skipped");
        for (rel, why) in skipped {
            let _ = writeln!(out, "  {rel}: {why}");
        }
    }
    // Only si's own candidates are capped, and si does not vote in fusion:
    // the cap can change clusters only when they are made by si.
    if spec.by == ClusterBy::Algorithm(AlgorithmId::Si) && lib.si_capped() > 0 {
        let candidates = &lib.config().candidates;
        let _ = writeln!(
            out,
            "\nnote: si pairs each document only with the {} nearest in si value; \
             {} had more within {:.0} %, so some of their si pairs may be missing",
            count(candidates.si_cap, "document", "documents"),
            count(lib.si_capped(), "document", "documents"),
            candidates.si_range * 100.0
        );
    }
    out
}

/// The folders read as one book each, with why (empty when none):
/// a curator sees which folders became one document.
fn book_folder_lines(report: &ScanReport, root: &Path) -> String {
    let mut out = String::new();
    for doc in &report.docs {
        let path = root.join(doc.path.to_relative_path());
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        // A folder that is a document is a book by some rule.
        let Some(book) = book_now(root, &path, PageFolders::Numbered) else {
            continue;
        };
        let Some(folder) = book.book else {
            continue;
        };
        let files = count(folder.pages.len(), "file", "files");
        let _ = writeln!(out, "  {}/  ({files}; {})", doc.path, folder.why);
    }
    if out.is_empty() {
        return out;
    }
    format!("read as books (each folder one document of its pages)\n{out}\n")
}

/// The path of a document of the report's library.
fn lib_path(report: &ScanReport, id: DocId) -> Option<&DocPath> {
    report.library.doc(id).map(|d| &d.path)
}

/// The learned boilerplate as text: one passage a line, most documents
/// first, numbered (`doppel boilerplate DIR --overrule N` takes the
/// number), then the passages the curator overruled.
pub fn boilerplate_text(report: &BoilerplateReport) -> String {
    if report.passages.is_empty() {
        return "no boilerplate learned\n".to_owned();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} learned, in {}:",
        count(report.learned().count(), "passage", "passages"),
        count(report.documents.len(), "document", "documents")
    );
    for (i, p) in report.passages.iter().enumerate() {
        let mark = match (p.overruled, p.source) {
            (true, _) => " · overruled: not boilerplate",
            (false, "user") => " · from your boilerplate folder",
            _ => "",
        };
        let _ = writeln!(
            out,
            "{:>3}. {} · {} · {:?} …{mark}\n      e.g. {}",
            i + 1,
            count(p.documents, "document", "documents"),
            count(p.words as usize, "word", "words"),
            p.first_words,
            p.representative
        );
    }
    out
}

/// Every algorithm's score for one pair, as a table, with the
/// boilerplate left out of the two when any was looked for.
pub fn compare_text(
    scores: &PairScores,
    verdict: &Verdict,
    exact: &ExactMeasures,
    engine: &Engine,
    boilerplate: Option<&CompareBoilerplate>,
) -> String {
    let mut out = String::new();
    // A part and its whole say so first: the scores below compare whole
    // texts, so a chapter passes none of them against its book.
    let part = match verdict.relation {
        Some(Relation::Contains { whole: Side::A }) => Some(("B", "A", exact.b_in_a)),
        Some(Relation::Contains { whole: Side::B }) => Some(("A", "B", exact.a_in_b)),
        _ => None,
    };
    if let Some((part, whole, inside)) = part {
        let _ = writeln!(
            out,
            "{part} ⊂ {whole}: {part} is a part of {whole}, {:.0} % of {part}'s shingles inside it \
             (the scores below compare the whole texts)\n",
            inside * 100.0
        );
    }
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
    let rule = engine.fusion_rule();
    let passing: AlgorithmSet = verdict.passing.iter().copied().collect();
    let agreeing = rule.agreeing(passing);
    let _ = writeln!(
        out,
        "fusion: {} ({} of {} families agree{}: {} votes, {} needed; {} of {} algorithms pass{})",
        match (verdict.fusion, part) {
            (true, Some(_)) => "duplicate, as a part of its whole",
            (true, None) => "duplicate",
            (false, _) => "not a duplicate",
        },
        agreeing.len(),
        rule.families().len(),
        if agreeing.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = agreeing.iter().map(|f| f.as_str()).collect();
            format!(" ({})", names.join(", "))
        },
        rule.votes(passing),
        rule.votes_needed,
        verdict.passing.len(),
        scores.len(),
        if verdict.contained && part.is_none() {
            "; contained"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "fusion rule: {} (votes per agreeing family: {})",
        rule.describe(),
        rule.weights()
    );
    let relation = match verdict.relation {
        Some(Relation::Contains { whole: Side::A }) => format!(
            "contains: B ⊂ A, {:.0} % of B ({})",
            exact.b_in_a * 100.0,
            rule.relations.describe()
        ),
        Some(Relation::Contains { whole: Side::B }) => format!(
            "contains: A ⊂ B, {:.0} % of A ({})",
            exact.a_in_b * 100.0,
            rule.relations.describe()
        ),
        Some(r) => r.as_str().to_owned(),
        None => "none".to_owned(),
    };
    let _ = writeln!(out, "relation: {relation}");
    if let Some(boilerplate) = boilerplate {
        let _ = writeln!(out, "{}", boilerplate.text_line());
    }
    out
}

/// Every algorithm's score for one pair, as JSON (`boilerplate` only when
/// any was looked for).
pub fn compare_json(
    scores: &PairScores,
    verdict: &Verdict,
    exact: &ExactMeasures,
    _engine: &Engine,
    boilerplate: Option<&CompareBoilerplate>,
) -> Result<String> {
    /// Keys in name order, as the format has always had them.
    #[derive(Serialize)]
    struct CompareJson {
        #[serde(skip_serializing_if = "Option::is_none")]
        boilerplate: Option<compare_boilerplate::CompareBoilerplateJson>,
        doppel: &'static str,
        duplicate_by: Vec<&'static str>,
        exact: ExactJson,
        format: u32,
        relation: Option<&'static str>,
        scores: ByAlgorithm,
        whole: Option<&'static str>,
    }
    /// [`ExactMeasures`], keys in name order.
    #[derive(Serialize)]
    struct ExactJson {
        a_in_b: f64,
        a_shingles: usize,
        b_in_a: f64,
        b_shingles: usize,
        cosine: f64,
        jaccard: f64,
    }
    Ok(json_text(&CompareJson {
        boilerplate: boilerplate.map(CompareBoilerplate::json),
        doppel: env!("CARGO_PKG_VERSION"),
        duplicate_by: duplicate_by(verdict),
        exact: ExactJson {
            a_in_b: exact.a_in_b,
            a_shingles: exact.a_shingles,
            b_in_a: exact.b_in_a,
            b_shingles: exact.b_shingles,
            cosine: exact.cosine,
            jaccard: exact.jaccard,
        },
        format: JSON_FORMAT_VERSION,
        relation: verdict.relation.map(Relation::as_str),
        scores: ByAlgorithm::scores(scores),
        whole: whole_side(verdict.relation),
    })?)
}

/// An algorithm's unit in words, for a spreadsheet column.
fn unit_words(id: AlgorithmId, score: &Score) -> String {
    match (id.unit(), *score) {
        (Unit::HammingBits, Score::Hamming { bits, .. }) => format!("bits differing (of {bits})"),
        (Unit::HammingBits, _) => "bits differing".to_owned(),
        (Unit::Matches, Score::Matches { of, .. }) => format!("signatures matching (of {of})"),
        (Unit::Matches, _) => "signatures matching".to_owned(),
        (Unit::Similarity, _) => "similarity".to_owned(),
    }
}

/// Every algorithm's score for one pair as CSV, one row per measure:
/// `measure,score,unit,threshold,duplicate` (`yes`/`no`; empty cells where
/// a measure has none). The algorithms first (scores in their native unit,
/// empty when a side has no fingerprint), then the exact measures of the
/// full shingle sets and the TF-IDF cosine, the two shingle counts, then
/// fusion's two rules — `containment` (the smaller document's share of
/// shingles in the larger) and `fusion` (the votes of agreeing families;
/// its `duplicate` is the verdict, which containment alone can make `yes`);
/// last, when boilerplate was looked for, `boilerplate in A` and `in B`
/// (the words left out).
pub fn compare_csv(
    scores: &PairScores,
    verdict: &Verdict,
    exact: &ExactMeasures,
    engine: &Engine,
    boilerplate: Option<&CompareBoilerplate>,
) -> Result<String> {
    let config = engine.config();
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_owned();
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(["measure", "score", "unit", "threshold", "duplicate"])?;
    for (&id, score) in scores {
        out.write_record([
            id.as_str().to_owned(),
            score.value().map_or(String::new(), |v| v.to_string()),
            unit_words(id, score),
            config.thresholds.get(id).to_string(),
            yes_no(verdict.passing.contains(&id)),
        ])?;
    }
    let measures = [
        ("exact jaccard", exact.jaccard, "similarity"),
        ("exact A in B", exact.a_in_b, "similarity"),
        ("exact B in A", exact.b_in_a, "similarity"),
        ("tf-idf cosine", exact.cosine, "similarity"),
        ("shingles in A", exact.a_shingles as f64, "count"),
        ("shingles in B", exact.b_shingles as f64, "count"),
    ];
    for (name, value, unit) in measures {
        out.write_record([name, &value.to_string(), unit, "", ""])?;
    }
    let fusion = engine.fusion_rule();
    out.write_record([
        "containment".to_owned(),
        verdict.containment.map_or(String::new(), |c| c.to_string()),
        format!(
            "share of the smaller document's shingles (needs at least {} of them)",
            fusion.min_shingles
        ),
        fusion.containment.to_string(),
        yes_no(verdict.contained),
    ])?;
    let votes = fusion.votes(verdict.passing.iter().copied().collect());
    out.write_record([
        "fusion".to_owned(),
        votes.to_string(),
        "votes of agreeing families (passages 2, vocabulary, signatures, si 1)".to_owned(),
        fusion.votes_needed.to_string(),
        yes_no(verdict.fusion),
    ])?;
    for row in boilerplate.iter().flat_map(|b| b.csv_rows()) {
        out.write_record(row)?;
    }
    utf8(out.into_inner()?)
}
