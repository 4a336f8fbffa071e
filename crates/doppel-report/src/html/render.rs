//! The report as one HTML page: a cluster table (sortable, filterable;
//! each cluster opens onto its members, its pairs with every algorithm's
//! score and verdict, and each pair's side-by-side diff), the files
//! skipped, and the settings. Styles and the small script are inline
//! (`assets/`), and a Content-Security-Policy forbids the page any fetch,
//! so it works opened from disk and sends nothing anywhere. A pair with a
//! paged side says where each side matches ("pp. 41–57", "lines 1–400")
//! and links its matched pages to their images: links the curator
//! follows, never fetched by the page.
//!
//! Markup is written with `maud`, which escapes every interpolated value:
//! no document-derived string reaches the page unescaped. Names are also
//! made visible: control characters and bidirectional overrides show as
//! symbols or escapes rather than acting on the page's text.

use std::borrow::Cow;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::{format_score, rfc3339};
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::algo::AlgorithmId;
use doppel_index::places::SidePages;

use super::data::{Cluster, DiffCell, Pair, Report};
use super::pair_diff::{PairDiff, Row, Word, WordClass};

const CSS: &str = include_str!("assets/report.css");
const JS: &str = include_str!("assets/report.js");

/// Nothing may be fetched: no network, no file beside the report.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; \
                   img-src data:; base-uri 'none'; form-action 'none'";

/// A document's name as shown: its display form ([`DocPath`]'s: control
/// characters, backslashes and bytes that are not UTF-8 escaped), with
/// bidirectional controls, which would reorder the text around them, also
/// as `\u{..}` escapes.
pub fn visible_name(doc: &DocPath) -> String {
    without_bidi(doc.to_string())
}

/// `shown` with each bidirectional control as a `\u{..}` escape.
fn without_bidi(shown: String) -> String {
    if !shown.chars().any(is_bidi_control) {
        return shown;
    }
    shown
        .chars()
        .map(|c| match c {
            c if is_bidi_control(c) => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// Text of a document as shown: its C0 controls other than whitespace as
/// their symbols (a NUL would otherwise vanish or break the page).
pub fn visible_text(text: &str) -> Cow<'_, str> {
    let hidden = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c');
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match c {
                '\0'..='\x1f' if hidden(c) => {
                    char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')
                }
                '\x7f' => '\u{2421}',
                c if hidden(c) => '\u{fffd}',
                c => c,
            })
            .collect(),
    )
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

fn percent(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    doppel_index::worker::detail::grouped(n as u64)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

fn verdict_words(v: Option<CuratorVerdict>) -> &'static str {
    match v {
        Some(CuratorVerdict::Duplicate) => "duplicate",
        Some(CuratorVerdict::NotDuplicate) => "not a duplicate",
        None => "",
    }
}

/// A pair's curator cell: the agreed verdict as it always read, or, when
/// more than one curator judged the pair or they disagree, each curator's
/// verdict with its time and `disputed`.
fn curator_cell(pair: &Pair) -> Markup {
    let shared = pair.curators.len() > 1 || pair.disputed;
    html! {
        @if !shared {
            (verdict_words(pair.verdict))
        } @else {
            @if pair.disputed {
                strong.disputed title="the curators' verdicts differ: the algorithms decide until they agree" { "disputed" }
            }
            @for m in &pair.curators {
                br;
                (if m.curator.is_empty() { "unknown" } else { m.curator.as_str() }) ": "
                (verdict_words(Some(m.verdict)))
                @if let Some(at) = rfc3339(m.at_ns) { " " time datetime=(at) { (at) } }
            }
        }
    }
}

/// The id of pair `n` (0-based) of cluster `cluster`, for links.
pub fn pair_anchor(cluster: usize, n: usize) -> String {
    format!("pair-{cluster}-{}", n + 1)
}

/// The whole page.
pub fn page(report: &Report) -> String {
    let relations = report
        .clusters
        .iter()
        .flat_map(|c| &c.pairs)
        .any(|p| p.relation.is_some());
    let title = format!("doppel report: {}", without_bidi(report.root.clone()));
    let skipped = report.skipped.len();
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content=(concat!("doppel ", env!("CARGO_PKG_VERSION")));
                title { (title) }
                style { (PreEscaped(CSS)) }
                // Without the script every cluster stays open.
                noscript { style { "tr.detail[hidden] { display: table-row; }" } }
            }
            body {
                header {
                    h1 { "Duplicates in " code { (without_bidi(report.root.clone())) } }
                    p.summary {
                        (plural(report.documents, "document", "documents")) " indexed, "
                        (thousands(skipped)) " skipped, "
                        (plural(report.pairs, "verified pair", "verified pairs")) ", "
                        strong { (plural(report.clusters.len(), "cluster", "clusters")) }
                        ". Clusters by " (report.rule) " (" (report.mode) ")."
                    }
                    details.settings {
                        summary { "Algorithms and thresholds" }
                        table {
                            thead { tr { th scope="col" { "algorithm" } th scope="col" { "duplicate when the score is" } } }
                            tbody {
                                @for (id, threshold) in &report.algorithms {
                                    tr { td { code { (id.as_str()) } } td { (threshold) } }
                                }
                            }
                        }
                    }
                    @if let Some(note) = &report.diff_note { p.note { (note) } }
                }
                main {
                    section aria-labelledby="clusters-title" {
                        h2 #clusters-title { "Clusters" }
                        (controls(report))
                        (cluster_table(report, relations))
                    }
                    @if skipped > 0 {
                        section aria-labelledby="skipped-title" {
                            h2 #skipped-title { "Files skipped" }
                            table.skipped {
                                thead { tr { th scope="col" { "file" } th scope="col" { "why" } } }
                                tbody {
                                    @for (path, why) in &report.skipped {
                                        tr { td { code { (visible_name(path)) } } td { (why) } }
                                    }
                                }
                            }
                        }
                    }
                }
                footer {
                    p { "Made by doppel " (env!("CARGO_PKG_VERSION")) ". " (legend_note()) }
                }
                script { (PreEscaped(JS)) }
            }
        }
    };
    markup.into_string()
}

fn legend_note() -> &'static str {
    "Scores are in each algorithm's own unit; ✓ marks a score that passes its threshold."
}

fn controls(report: &Report) -> Markup {
    let total = report.clusters.len();
    html! {
        div.controls role="search" {
            label { "Filter " input #filter type="search" placeholder="path, algorithm, verdict, relation, role…" autocomplete="off"; }
            label {
                "Show "
                select #kind {
                    option value="" { "all clusters" }
                    option value="verdict" { "with a verdict" }
                    option value="no-verdict" { "without a verdict" }
                    option value="disagree" { "where algorithms disagree" }
                }
            }
            button #expand-all type="button" { "Open all" }
            button #collapse-all type="button" { "Close all" }
            span #shown aria-live="polite" { (total) " of " (plural(total, "cluster", "clusters")) }
        }
    }
}

/// The lowest share of equal words among a cluster's diffs.
fn lowest_equal(cluster: &Cluster) -> Option<f64> {
    cluster
        .pairs
        .iter()
        .filter_map(|p| match &p.diff {
            DiffCell::Shown(d) => Some(d.equal),
            _ => None,
        })
        .reduce(f64::min)
}

fn cluster_table(report: &Report, relations: bool) -> Markup {
    let enabled = report.algorithms.len();
    let columns = 7;
    html! {
        table #clusters.clusters {
            caption {
                "Select a heading to sort, a representative to open its cluster: members, pairs with every algorithm's score, and diffs."
            }
            colgroup {
                col.c-id; col.c-size; col.c-rep; col.c-agree; col.c-weakest; col.c-equal; col.c-verdicts;
            }
            thead {
                tr {
                    th scope="col" data-key="id" data-type="number" aria-sort="ascending" { button type="button" { "#" } }
                    th scope="col" data-key="size" data-type="number" { button type="button" { "members" } }
                    th scope="col" data-key="rep" { button type="button" { "representative" } }
                    th scope="col" data-key="agree" data-type="number" { button type="button" { "agree" } }
                    th scope="col" data-key="weakest" data-type="number" { button type="button" { "weakest link" } }
                    th scope="col" data-key="equal" data-type="number" { button type="button" { "words equal" } }
                    th scope="col" data-key="verdicts" { button type="button" { "verdicts" } }
                }
            }
            @for cluster in &report.clusters {
                (cluster_body(report, cluster, enabled, columns, relations))
            }
        }
    }
}

fn cluster_body(
    report: &Report,
    cluster: &Cluster,
    enabled: usize,
    columns: usize,
    relations: bool,
) -> Markup {
    let id = cluster.id;
    let rep = cluster
        .members
        .first()
        .map(|m| visible_name(&m.path))
        .unwrap_or_default();
    let detail = format!("cluster-{id}-detail");
    let (dup, not) = cluster
        .pairs
        .iter()
        .fold((0, 0), |(d, n), p| match p.verdict {
            Some(CuratorVerdict::Duplicate) => (d + 1, n),
            Some(CuratorVerdict::NotDuplicate) => (d, n + 1),
            None => (d, n),
        });
    let mut verdicts = match (dup, not) {
        (0, 0) => String::new(),
        (d, 0) => format!("{d} duplicate"),
        (0, n) => format!("{n} not a duplicate"),
        (d, n) => format!("{d} duplicate, {n} not"),
    };
    let disputed = cluster.pairs.iter().filter(|p| p.disputed).count();
    if disputed > 0 {
        let sep = if verdicts.is_empty() { "" } else { ", " };
        verdicts.push_str(&format!("{sep}{disputed} disputed"));
    }
    let equal = lowest_equal(cluster);
    // What the filter searches: paths, agreeing algorithms, verdicts, kept.
    let mut search: Vec<String> = cluster
        .members
        .iter()
        .map(|m| visible_name(&m.path).to_lowercase())
        .collect();
    search.extend(cluster.agreeing.iter().map(|a| a.as_str().to_owned()));
    search.push(verdicts.clone());
    // doppel's verdicts, the pairs' relations and the members' roles, so
    // "duplicate", "contains", "related" or "part of" find their clusters.
    for pair in &cluster.pairs {
        match pair.fusion {
            Some(true) => search.push("duplicate".to_owned()),
            Some(false) => search.push("not a duplicate".to_owned()),
            None => {}
        }
        if let Some(relation) = &pair.relation {
            let kind = if relation.contains('⊂') {
                "contains part whole"
            } else {
                relation.as_str()
            };
            search.push(kind.to_owned());
        }
    }
    search.extend(cluster.members.iter().filter_map(|m| m.role.clone()));
    if cluster.members.iter().any(|m| m.keep) {
        search.push("kept".to_owned());
    }
    let agree = cluster.agreeing.len();
    html! {
        tbody.cluster #(format!("cluster-{id}")) data-id=(id) data-size=(cluster.members.len())
            data-rep=(rep.to_lowercase()) data-agree=(agree)
            data-weakest=[cluster.weakest] data-equal=[equal] data-verdicts=(verdicts)
            data-disagree=(cluster.disagreement) data-text=(search.join(" ").to_lowercase()) {
            tr.summary-row {
                td.num { (id) }
                td.num { (cluster.members.len()) }
                th scope="row" {
                    button.expand type="button" aria-expanded="false" aria-controls=(detail) {
                        span.twisty aria-hidden="true" {}
                        (rep)
                    }
                }
                td.num {
                    @if agree == 0 && cluster.has_parts {
                        abbr title="a whole and its parts, held by containment: the scores compare whole texts, so a part passes none of them" { "whole ⊃ part" }
                    } @else {
                        (agree) "/" (enabled)
                        @if cluster.disagreement { " " abbr title="some pass on some links only" { "±" } }
                    }
                }
                td.num { @if let Some(w) = cluster.weakest { (format!("{w:.2}")) } }
                td.num { @if let Some(e) = equal { (percent(e)) } }
                td { (verdicts) }
            }
            tr.detail #(detail) hidden {
                td colspan=(columns) {
                    (members(cluster))
                    (pairs_table(report, cluster, relations))
                    @if cluster.pairs_left_out > 0 {
                        p.note {
                            (plural(cluster.pairs_left_out, "more pair", "more pairs"))
                            " of this cluster not listed: a report lists at most " (cluster.pairs.len())
                            " per cluster, those with the representative first ("
                            code { "doppel scan DIR --format csv" } " lists every pair)."
                        }
                    }
                    @for (n, pair) in cluster.pairs.iter().enumerate() {
                        (pair_section(cluster.id, n, pair))
                    }
                }
            }
        }
    }
}

fn members(cluster: &Cluster) -> Markup {
    html! {
        table.members {
            caption { "Cluster " (cluster.id) ": " (plural(cluster.members.len(), "member", "members")) }
            thead { tr { th scope="col" { "member" } th scope="col" { "role" } } }
            tbody {
                @for (n, m) in cluster.members.iter().enumerate() {
                    tr {
                        td { code { (visible_name(&m.path)) } }
                        td {
                            @if n == 0 { "representative" }
                            @if let Some(role) = &m.role {
                                @if n == 0 { ", " }
                                (role)
                            }
                            @if (n == 0 || m.role.is_some()) && m.keep { ", " }
                            @if m.keep { strong.kept { "kept" } }
                        }
                    }
                }
            }
        }
    }
}

fn pairs_table(report: &Report, cluster: &Cluster, relations: bool) -> Markup {
    html! {
        @if cluster.pairs.is_empty() {
            p.note { "No pair of this cluster was kept with its scores." }
        } @else {
            div.scroll {
                table.pairs {
                    caption { "Pairs: doppel's verdict, how the two relate, the curator's verdict and the diff first; then the containment and every algorithm's score" }
                    thead {
                        tr {
                            th scope="col" { "pair" }
                            th scope="col" title="doppel's verdict: the fusion rule" { "verdict" }
                            @if relations { th scope="col" { "relation" } }
                            th scope="col" { "curator" }
                            th scope="col" { "diff" }
                            th scope="col" title="the smaller document's share of shingles found in the larger" { "containment" }
                            @for (id, threshold) in &report.algorithms {
                                th scope="col" title=(format!("duplicate when {threshold}")) { (id.as_str()) }
                            }
                        }
                    }
                    tbody {
                        @for (n, pair) in cluster.pairs.iter().enumerate() {
                            (pair_row(report, cluster.id, n, pair, relations))
                        }
                    }
                }
            }
        }
    }
}

fn pair_row(report: &Report, cluster: usize, n: usize, pair: &Pair, relations: bool) -> Markup {
    let score_of = |id: AlgorithmId| pair.scores.iter().find(|(s, _, _)| *s == id);
    html! {
        tr {
            td.pair-names {
                "A " code { (visible_name(&pair.a)) } (place_of(pair, Side::A)) br;
                "B " code { (visible_name(&pair.b)) } (place_of(pair, Side::B))
            }
            td { @match pair.fusion { Some(true) => strong { "duplicate" }, Some(false) => "no", None => "" } }
            @if relations { td { (pair.relation.as_deref().unwrap_or("")) } }
            td { (curator_cell(pair)) }
            td {
                @match &pair.diff {
                    DiffCell::Shown(d) => a href=(format!("#{}", pair_anchor(cluster, n))) { (percent(d.equal)) " equal" },
                    DiffCell::Missing(_) => a href=(format!("#{}", pair_anchor(cluster, n))) { "why none" },
                    DiffCell::Pending => "",
                }
            }
            td.num { @if let Some(c) = pair.containment { (percent(c)) } }
            @for (id, _) in &report.algorithms {
                @match score_of(*id) {
                    Some((_, score, true)) => td.num.pass { (format_score(score)) " ✓" },
                    Some((_, score, false)) => td.num { (format_score(score)) },
                    None => td.num { "–" },
                }
            }
        }
    }
}

fn pair_section(cluster: usize, n: usize, pair: &Pair) -> Markup {
    let anchor = pair_anchor(cluster, n);
    html! {
        section.pair #(anchor) data-a=(visible_name(&pair.a)) data-b=(visible_name(&pair.b)) {
            @match &pair.diff {
                DiffCell::Shown(d) => details {
                    summary {
                        "Diff " code { (visible_name(&pair.a)) } (place_of(pair, Side::A))
                        " ↔ " code { (visible_name(&pair.b)) } (place_of(pair, Side::B))
                        ": " (diff_summary(d))
                    }
                    (page_images(pair))
                    (diff_table(pair, d))
                },
                DiffCell::Missing(why) => {
                    p.note {
                        "No diff of " code { (visible_name(&pair.a)) } (place_of(pair, Side::A))
                        " and " code { (visible_name(&pair.b)) } (place_of(pair, Side::B)) ": " (why)
                    }
                    (page_images(pair))
                },
                DiffCell::Pending => (page_images(pair)),
            }
        }
    }
}

/// A side of a pair.
#[derive(Clone, Copy)]
enum Side {
    A,
    B,
}

/// Where `side` of `pair` matches (" pp. 41–57"), after its name; nothing
/// for a pair without a paged side.
fn place_of(pair: &Pair, side: Side) -> Markup {
    let Some(pages) = &pair.place else {
        return html! {};
    };
    let place = match side {
        Side::A => &pages.place.a,
        Side::B => &pages.place.b,
    };
    html! { " " span.place title="where this side matches the other" { (place) } }
}

/// Each side's matched pages that name an image, linked to it (an
/// `http(s)` URI as given, a file beside the document only if it is
/// there; otherwise the name is shown, unlinked).
fn page_images(pair: &Pair) -> Markup {
    let Some(pages) = &pair.place else {
        return html! {};
    };
    let sides = [
        ("A", &pair.a, &pages.a, &pages.place.a),
        ("B", &pair.b, &pages.b, &pages.place.b),
    ];
    html! {
        @for (side, doc, listed, place) in sides {
            @if !listed.is_empty() {
                p.page-images {
                    "Page images of " (side) " " code { (visible_name(doc)) } " (" (place) "): "
                    (page_links(listed))
                }
            }
        }
    }
}

/// The pages listed, each its image's link (opened in a new tab, the
/// report kept where it was) or, when the file is not there, its label and
/// the name the source gives, unlinked; then how many more, and how many
/// were not found.
fn page_links(listed: &SidePages) -> Markup {
    let missing = listed
        .pages
        .iter()
        .filter(|p| p.image.href.is_none())
        .count();
    html! {
        @for (n, page) in listed.pages.iter().enumerate() {
            @if n > 0 { " · " }
            @match &page.image.href {
                Some(href) => a href=(href) title=[(*href != page.image.name).then_some(&page.image.name)]
                    target="_blank" rel="noopener noreferrer" {
                    "p. " (page.label)
                },
                None => span.unlinked {
                    "p. " (page.label) " " code { (without_bidi(page.image.name.clone())) }
                },
            }
        }
        @if listed.more > 0 {
            " … and " (plural(listed.more, "more page", "more pages"))
        }
        @if missing == listed.pages.len() {
            " (no such file beside the document: named, not linked)"
        } @else if missing > 0 {
            " (" (thousands(missing)) " not beside the document: named, not linked)"
        }
    }
}

fn diff_summary(d: &PairDiff) -> String {
    let mut parts = vec![
        format!("{} of words equal", percent(d.equal)),
        plural(d.changes, "change", "changes"),
    ];
    if d.moves > 0 {
        parts.push(plural(d.moves, "moved block", "moved blocks"));
    }
    parts.push(format!(
        "{} and {} words",
        thousands(d.words[0]),
        thousands(d.words[1])
    ));
    if let Some(region) = &d.region {
        parts.push(region.clone());
    }
    parts.join(" · ")
}

fn diff_table(pair: &Pair, d: &PairDiff) -> Markup {
    html! {
        p.legend {
            "Marked: " span.chg { "changed word, with " mark { "the characters" } " that differ" } " · "
            del { "only in A" } " · " ins { "only in B" } " · " span.mov { "moved" } " · "
            span.sh { "in a passage found in both" } " · " span.furn { "page furniture" } " · "
            span.boil { "boilerplate" } " (both left out of the comparison)"
        }
        @if d.coarse {
            p.note { "The alignment took too long and is coarser than usual." }
        }
        div.scroll {
            table.diff {
                thead {
                    tr {
                        th scope="col" { "A: " code { (visible_name(&pair.a)) } (place_of(pair, Side::A)) }
                        th scope="col" { "B: " code { (visible_name(&pair.b)) } (place_of(pair, Side::B)) }
                    }
                }
                tbody {
                    @for row in &d.rows { (diff_row(row)) }
                }
            }
        }
    }
}

fn diff_row(row: &Row) -> Markup {
    match row {
        Row::Words {
            changed,
            left,
            right,
        } => html! {
            tr.chg-row[*changed] {
                td { (words(left)) }
                td { (words(right)) }
            }
        },
        Row::Fold { left, right, equal } => html! {
            tr.fold {
                td colspan="2" {
                    "… " (fold_words(*left, *right, *equal)) ", not shown …"
                }
            }
        },
        Row::Cut {
            changes,
            left,
            right,
        } => html! {
            tr.cut {
                td colspan="2" {
                    "The diff is cut here for size: " (plural(*changes, "more change", "more changes"))
                    " in " (thousands(*left)) " more words of A and " (thousands(*right))
                    " of B are not shown. The review screen (doppel DIR, screen 3) shows the whole diff."
                }
            }
        },
    }
}

/// What a fold hides, in words.
fn fold_words(left: usize, right: usize, equal: bool) -> String {
    match (left, right) {
        _ if equal => plural(left, "identical word", "identical words"),
        (n, 0) => format!("{} of A", plural(n, "more word", "more words")),
        (0, n) => format!("{} of B", plural(n, "more word", "more words")),
        (l, r) => format!(
            "{} more words of A and {} of B that differ",
            thousands(l),
            thousands(r)
        ),
    }
}

/// A side's words, runs of the same class in one element.
fn words(words: &[Word]) -> Markup {
    let mut runs: Vec<&[Word]> = Vec::new();
    let mut start = 0;
    for k in 1..=words.len() {
        if k == words.len()
            || words[k].class != words[start].class
            || words[k].shared != words[start].shared
        {
            if k > start {
                runs.push(&words[start..k]);
            }
            start = k;
        }
    }
    html! {
        @for (n, run) in runs.iter().enumerate() {
            @if n > 0 { " " }
            (word_run(run))
        }
    }
}

fn word_run(run: &[Word]) -> Markup {
    let inner = html! {
        @for (n, w) in run.iter().enumerate() {
            @if n > 0 { " " }
            @for (text, marked) in &w.parts {
                @if *marked { mark { (visible_text(text)) } } @else { (visible_text(text)) }
            }
        }
    };
    let shared = run[0].shared;
    match run[0].class {
        WordClass::Equal if !shared => inner,
        WordClass::Equal => html! { span.sh { (inner) } },
        WordClass::Deleted => html! { del.sh[shared] { (inner) } },
        WordClass::Inserted => html! { ins.sh[shared] { (inner) } },
        WordClass::Changed => html! { span.chg.sh[shared] { (inner) } },
        WordClass::Moved => {
            html! { span.mov.sh[shared] title="moved: the other side has these words elsewhere" { (inner) } }
        }
        WordClass::Furniture => {
            html! { span.furn title="page furniture, left out of the comparison" { (inner) } }
        }
        WordClass::Boilerplate => {
            html! { span.boil title="boilerplate, left out of the comparison" { (inner) } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_show_their_display_form_with_bidi_overrides_escaped() {
        let shown = |name: &[u8]| visible_name(&DocPath::from(name));
        assert_eq!(shown(b"plain/name.txt"), "plain/name.txt");
        // DocPath's display form: controls escaped, bytes that are not
        // UTF-8 as `\xNN`, a backslash doubled.
        assert_eq!(shown(b"a\0b\x1b[1m\x7f\tc"), "a\\0b\\u{1b}[1m\\u{7f}\\tc");
        assert_eq!(shown(b"caf\xe9\\x.txt"), "caf\\xe9\\\\x.txt");
        assert_eq!(shown("c1\u{9b}x".as_bytes()), "c1\\u{9b}x");
        // And bidirectional controls, which the display form keeps.
        assert_eq!(
            shown("rtl\u{202e}txt.exe".as_bytes()),
            "rtl\\u{202e}txt.exe"
        );
        // Text keeps its layout whitespace but not its other controls.
        assert_eq!(visible_text("a\tb\nc\x0cd\0e\x1b"), "a\tb\nc\x0cd␀e␛");
    }

    #[test]
    fn folds_say_what_they_hide() {
        assert_eq!(fold_words(1204, 1204, true), "1,204 identical words");
        assert_eq!(fold_words(0, 9358, false), "9,358 more words of B");
        assert_eq!(fold_words(1, 0, false), "1 more word of A");
        assert_eq!(
            fold_words(14, 3, false),
            "14 more words of A and 3 of B that differ"
        );
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(plural(1, "change", "changes"), "1 change");
        assert_eq!(plural(1200, "change", "changes"), "1,200 changes");
    }
}
