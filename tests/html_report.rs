//! The HTML report (`doppel report DIR --html OUT`): every cluster of the
//! scan's JSON with its members and pairs' scores, the scan/e-text pair's
//! character marks, verdicts and keeper marks, hostile file names and text
//! escaped, nothing fetched, size limits said, and the command's refusals.
//! (The page in a real browser: tests/browser.rs.)

mod common;

use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use common::{doppel, fixture, sample_corpus};
use doppel_core::doc::{CuratorVerdict, DocPath};
use doppel_core::engine::{Engine, EngineConfig};
use doppel_index::index::FolderIndex;
use doppel_index::scan::{scan_folder, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use doppel_report::format_score;
use doppel_report::html;
use doppel_report::html::data::DiffCell;
use doppel_report::html::{Limits, Report};

fn scan(root: &Path) -> ScanReport {
    let engine = Engine::new(EngineConfig::default());
    let spec = ClusterSpec::from_engine(&engine);
    scan_folder(
        root,
        &engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        spec,
    )
    .expect("scan")
}

/// The sample corpus's scan, its JSON and its page.
struct Sample {
    scan: ScanReport,
    json: serde_json::Value,
    page: String,
}

fn sample() -> &'static Sample {
    static SAMPLE: OnceLock<Sample> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let root = sample_corpus();
        let scan = scan(&root);
        let json = serde_json::from_str(
            &doppel_report::json(&scan, &root, &EngineConfig::default()).unwrap(),
        )
        .unwrap();
        let page = html::scan_report(&scan, &root, &EngineConfig::default(), &Limits::default());
        Sample { scan, json, page }
    })
}

/// The part of `page` from `start` to the next `end` (panics if absent).
fn between<'a>(page: &'a str, start: &str, end: &str) -> &'a str {
    let from = page
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} not in the page"));
    let rest = &page[from..];
    &rest[..rest.find(end).map_or(rest.len(), |k| k + end.len())]
}

/// A cluster's part of the page.
fn cluster_part(page: &str, id: u64) -> &str {
    between(
        page,
        &format!("<tbody class=\"cluster\" id=\"cluster-{id}\""),
        "</tbody>\n",
    )
}

/// Text as the page writes it.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The markup of every real tag: document text is escaped, so each `<`
/// left in the page opens one.
fn tags(page: &str) -> Vec<&str> {
    page.split('<')
        .skip(1)
        .map(|t| &t[..t.find('>').expect("a closed tag")])
        .collect()
}

#[test]
fn every_cluster_of_the_scan_json_is_in_the_page_with_its_members() {
    let s = sample();
    let clusters = s.json["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 10);
    assert_eq!(
        s.page.matches("<tbody class=\"cluster\"").count(),
        clusters.len()
    );
    for cluster in clusters {
        let part = cluster_part(&s.page, cluster["id"].as_u64().unwrap());
        let members = between(part, "<table class=\"members\">", "</table>");
        let listed = members.matches("<tr><td><code>").count();
        assert_eq!(listed, cluster["members"].as_array().unwrap().len());
        for member in cluster["members"].as_array().unwrap() {
            let path = escaped(member.as_str().unwrap());
            assert!(
                members.contains(&format!("<code>{path}</code>")),
                "{path} in cluster {}",
                cluster["id"]
            );
        }
        let rep = escaped(cluster["representative"].as_str().unwrap());
        assert!(part.contains(&format!("data-rep=\"{rep}\"")));
    }
}

#[test]
fn every_pair_in_a_cluster_has_each_algorithms_score_and_a_diff() {
    let s = sample();
    let in_clusters: Vec<&serde_json::Value> = s.json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["cluster"].is_null())
        .collect();
    assert!(in_clusters.len() >= 7);
    let mut placed = 0;
    for pair in s.scan.pairs() {
        let Some(json) = in_clusters.iter().find(|p| {
            p["a"] == pair.a.to_string().as_str() && p["b"] == pair.b.to_string().as_str()
        }) else {
            continue;
        };
        let part = cluster_part(&s.page, json["cluster"].as_u64().unwrap());
        // A paged side's name is followed by where it matches, in the
        // JSON's words.
        let named = |doc: &DocPath, side: &str| {
            let name = format!("<code>{}</code>", escaped(&doc.to_string()));
            match json["place"][side].as_str() {
                Some(place) => format!(
                    "{name} <span class=\"place\" title=\"where this side matches the other\">{}</span>",
                    escaped(place)
                ),
                None => name,
            }
        };
        let row = between(
            part,
            &format!("A {}<br>B {}", named(&pair.a, "a"), named(&pair.b, "b")),
            "</tr>",
        );
        placed += usize::from(json.get("place").is_some());
        for score in pair.scores.values() {
            assert!(
                row.contains(&format_score(score)),
                "{} in the row of {} and {}: {row}",
                format_score(score),
                pair.a,
                pair.b
            );
        }
        assert!(row.contains("% equal</a>"), "a link to the diff: {row}");
        let section = between(
            part,
            &format!(
                "data-a=\"{}\" data-b=\"{}\"",
                escaped(&pair.a.to_string()),
                escaped(&pair.b.to_string())
            ),
            "</section>",
        );
        assert!(section.contains("<table class=\"diff\">"));
    }
    // The sample's scan, EPUB and ALTO are placed.
    assert!(placed >= 3, "{placed} pairs placed");
}

#[test]
fn the_scan_pair_marks_each_ocr_confusion_and_greys_the_running_heads() {
    let s = sample();
    let section = between(
        &s.page,
        "data-a=\"austen/pride-prejudice-ch1-3.txt\" data-b=\"scans/pride-prejudice-ch1-3-ocr.txt\"",
        "</section>",
    );
    for (etext, scan) in [
        ("<mark>m</mark>ust", "<mark>rn</mark>ust"),
        ("wif<mark>e</mark>", "wif<mark>c</mark>"),
        ("t<mark>h</mark>e", "t<mark>li</mark>e"),
        ("a<mark>l</mark>l", "a<mark>1</mark>l"),
        ("obje<mark>c</mark>tion", "obje<mark>e</mark>tion"),
    ] {
        assert!(section.contains(etext), "{etext}");
        assert!(section.contains(scan), "{scan}");
    }
    assert!(section.contains(
        "<span class=\"furn\" title=\"page furniture, left out of the comparison\">PRIDE AND PREJUDICE 1</span>"
    ));
    assert!(section.contains("94 % of words equal"), "the summary");
}

#[test]
fn the_page_fetches_nothing() {
    let page = &sample().page;
    assert!(!page.contains("http:") && !page.contains("https:"));
    assert!(page.contains("content=\"default-src 'none';"), "the CSP");
    for tag in tags(page) {
        assert!(!tag.contains("//"), "a URL in <{tag}>");
        assert!(!tag.contains(" src="), "a resource in <{tag}>");
        if let Some(at) = tag.find(" href=\"") {
            assert!(tag[at + 7..].starts_with('#'), "a link out in <{tag}>");
        }
    }
    let style = between(page, "<style>", "</style>");
    assert!(!style.contains("url(") && !style.contains("@import"));
    let script = between(page, "<script>", "</script>");
    for call in [
        "fetch",
        "XMLHttpRequest",
        "import(",
        "WebSocket",
        "localStorage",
    ] {
        assert!(!script.contains(call), "{call}");
    }
}

/// Names a page must not trust: markup, quotes, a control character, a
/// bidirectional override, a byte that is not UTF-8.
const HOSTILE_NAMES: [&[u8]; 5] = [
    b"<b onmouseover=alert(1)>x.txt",
    b"a\"b&c'd.txt",
    b"esc\x1b[31mred.txt",
    "rtl\u{202e}txt.exe".as_bytes(),
    b"latin\xe9.txt",
];

/// A folder of one text saved under each of [`HOSTILE_NAMES`], the `k`th
/// with `word{10 + k}` replaced by `edited` (so each file's own text is
/// known), markup in the text; the temporary folder and the corpus in it.
fn hostile_folder() -> (tempfile::TempDir, std::path::PathBuf) {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("corpus");
    fs::create_dir(&root).unwrap();
    let base: String = (0..150).map(|k| format!("word{k} ")).collect::<String>()
        + "<script>alert(\"text\")</script> </td></tr></table> &amp; the end";
    for (k, name) in HOSTILE_NAMES.iter().enumerate() {
        let text = base.replace(&format!("word{} ", 10 + k), "edited ");
        fs::write(root.join(std::ffi::OsStr::from_bytes(name)), text).unwrap();
    }
    (dir, root)
}

#[test]
fn hostile_names_and_text_are_escaped_and_made_visible() {
    let (_dir, root) = hostile_folder();
    let report = scan(&root);
    assert_eq!(report.clusters.len(), 1, "{:?}", report.cluster_paths());
    let page = html::scan_report(&report, &root, &EngineConfig::default(), &Limits::default());

    assert_eq!(page.matches("<script").count(), 1, "only the page's own");
    assert!(!page.contains("<b onmouseover"));
    assert!(page.contains("<code>&lt;b onmouseover=alert(1)&gt;x.txt</code>"));
    assert!(page.contains("data-a=\"&lt;b onmouseover=alert(1)&gt;x.txt\""));
    assert!(page.contains("<code>a&quot;b&amp;c'd.txt</code>"));
    // Control characters and bytes that are not UTF-8 come escaped from
    // the scan; a bidirectional override would reorder the text around it.
    assert!(!page.contains('\x1b'));
    assert!(page.contains("<code>esc\\u{1b}[31mred.txt</code>"));
    assert!(!page.contains('\u{202e}'));
    assert!(page.contains("<code>rtl\\u{202e}txt.exe</code>"));
    assert!(page.contains("<code>latin\\xe9.txt</code>"));
    // Every pair is diffed: the escaped names lead to their files.
    let pairs = report.pairs().len();
    assert_eq!(pairs, 10);
    assert_eq!(page.matches("<table class=\"diff\">").count(), pairs);
    assert!(!page.contains("No diff of"));
    // The text's markup is text.
    assert!(page.contains("&lt;script&gt;alert(&quot;text&quot;)&lt;/script&gt;"));
    assert!(page.contains("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt; &amp;amp;"));
    // Every tag is the page's own: the cluster table, not a name's.
    for tag in tags(&page) {
        let name = tag.split([' ', '/']).find(|w| !w.is_empty()).unwrap_or("");
        assert!(!["b", "td onmouseover"].contains(&name), "<{tag}>");
    }
}

/// `s` without its tags.
fn text_of(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn each_side_of_a_diff_is_its_own_file_whatever_its_name() {
    let (_dir, root) = hostile_folder();
    let report = scan(&root);
    let page = html::scan_report(&report, &root, &EngineConfig::default(), &Limits::default());
    // A name as the page writes it: the display form of the document's
    // bytes (`latin\xe9.txt`), escaped for HTML.
    let shown: Vec<String> = HOSTILE_NAMES
        .iter()
        .map(|name| escaped(&html::render::visible_name(&DocPath::from(*name))))
        .collect();
    assert_eq!(shown[4], "latin\\xe9.txt");
    let mut diffs = 0;
    for (ka, a) in shown.iter().enumerate() {
        for (kb, b) in shown.iter().enumerate() {
            let start = format!("data-a=\"{a}\" data-b=\"{b}\"");
            if ka == kb || !page.contains(&start) {
                continue;
            }
            let section = between(&page, &start, "</section>");
            let changed: Vec<(String, String)> = section
                .split("<tr class=\"chg-row\">")
                .skip(1)
                .map(|row| {
                    let row = &row[..row.find("</tr>").unwrap()];
                    let (left, right) = row.split_once("</td>").unwrap();
                    (text_of(left), text_of(right))
                })
                .collect();
            // A's own edit against B's word there, and B's against A's:
            // read from any other file, the words would be other ones.
            let has = |left: &str, right: &str| {
                changed.iter().any(|(l, r)| {
                    l.split(' ').any(|w| w == left) && r.split(' ').any(|w| w == right)
                })
            };
            assert!(
                has("edited", &format!("word{}", 10 + ka)),
                "{a} against {b}: {changed:?}"
            );
            assert!(
                has(&format!("word{}", 10 + kb), "edited"),
                "{a} against {b}: {changed:?}"
            );
            diffs += 1;
        }
    }
    assert_eq!(diffs, 10, "every pair of the five files");
}

#[test]
fn verdicts_and_keeper_marks_come_from_the_index() {
    let f = fixture();
    let (mut index, _) = FolderIndex::open(
        &f.folder,
        Engine::new(EngineConfig::default()),
        LibraryConfig::default(),
        Some(&f.index),
    )
    .unwrap();
    let reconciled = index.reconcile().unwrap();
    index
        .set_pair_verdict(
            &DocPath::from("austen/emma-ch1.txt"),
            &DocPath::from("edited/emma-ch1-edited.txt"),
            Some(CuratorVerdict::Duplicate),
        )
        .unwrap();
    index
        .set_keeper(&DocPath::from("edited/emma-ch1-edited.txt"), true)
        .unwrap();
    let spec = ClusterSpec::from_engine(index.engine());
    let scan = ScanReport::from_index(index, spec, &reconciled).unwrap();
    let page = html::scan_report(
        &scan,
        &f.folder,
        &EngineConfig::default(),
        &Limits::default(),
    );
    let id = scan
        .cluster_paths()
        .iter()
        .position(|c| c.contains(&DocPath::from("austen/emma-ch1.txt")))
        .unwrap()
        + 1;
    let part = cluster_part(&page, id as u64);
    assert!(part.contains("data-verdicts=\"1 duplicate\""));
    let row = between(part, "A <code>austen/emma-ch1.txt</code>", "</tr>");
    assert!(row.contains("<td>duplicate</td>"), "{row}");
    let members = between(part, "<table class=\"members\">", "</table>");
    let kept = "<strong class=\"kept\">kept</strong>";
    assert!(between(members, "<code>edited/emma-ch1-edited.txt</code>", "</tr>").contains(kept));
    assert!(!between(members, "<code>austen/emma-ch1.txt</code>", "</tr>").contains(kept));
    // No other cluster has a verdict.
    assert_eq!(
        page.matches("data-verdicts=\"\"").count(),
        scan.clusters.len() - 1
    );
}

#[test]
fn diffs_past_the_limit_say_why_and_a_relation_gets_its_column() {
    let s = sample();
    let root = sample_corpus();
    let mut report = Report::from_scan(&s.scan, &root);
    let limits = Limits {
        max_diffs: 1,
        ..Limits::default()
    };
    html::attach_diffs(
        &mut report,
        &html::Documents::new(&root, &EngineConfig::default()),
        &limits,
    );
    let page = html::render::page(&report);
    assert_eq!(page.matches("<table class=\"diff\">").count(), 1);
    let missing = report
        .clusters
        .iter()
        .flat_map(|c| &c.pairs)
        .filter(|p| matches!(p.diff, DiffCell::Missing(_)))
        .count();
    assert!(missing >= 6);
    assert_eq!(
        page.matches("no diff: this report diffs at most 1 pair<")
            .count(),
        missing
    );
    assert!(page.contains(&format!(
        "<p class=\"note\">{missing} pairs have no diff here: a report diffs at most 1 pair"
    )));
    // The scan's relations fill the column: a half of Proverbs sits in
    // the whole book, and the copies are duplicates.
    assert!(page.contains("<th scope=\"col\">relation</th>"));
    assert!(page.contains("<td>A ⊂ B</td>") || page.contains("<td>B ⊂ A</td>"));
    assert!(page.contains("<td>duplicate</td>"));
    // Without any relation (the TUI's snapshot has none) the column goes.
    for pair in report.clusters.iter_mut().flat_map(|c| &mut c.pairs) {
        pair.relation = None;
    }
    let page = html::render::page(&report);
    assert!(!page.contains(">relation</th>"));
}

#[test]
fn a_cluster_lists_its_pairs_with_the_representative_first_up_to_the_limit() {
    let s = sample();
    let mut report = Report::from_scan(&s.scan, &sample_corpus());
    let moby = report
        .clusters
        .iter()
        .position(|c| c.members[0].path == "moby/moby-dick-ch1.txt")
        .unwrap();
    assert_eq!(report.clusters[moby].pairs.len(), 3);
    report.keep_pairs(2);
    let cluster = &report.clusters[moby];
    assert_eq!((cluster.pairs.len(), cluster.pairs_left_out), (2, 1));
    assert!(cluster
        .pairs
        .iter()
        .all(|p| p.a == "moby/moby-dick-ch1.txt"));
    let page = html::render::page(&report);
    let part = cluster_part(&page, cluster.id as u64);
    assert!(part
        .contains("1 more pair of this cluster not listed: a report lists at most 2 per cluster"));
    // Moby-Dick's three encodings and Alice's two copies and scan are the
    // clusters of three, Emma's five forms the one of five; only they had
    // more than two pairs.
    assert_eq!(
        page.matches("more pair").count(),
        3,
        "only the clusters of three or more had more"
    );
}

#[test]
fn the_command_writes_outside_the_folder_and_keeps_an_existing_file() {
    let f = fixture();
    let out = f.folder.parent().unwrap().join("report.html");
    let run = |args: &[&str]| {
        doppel()
            .arg("report")
            .arg(&f.folder)
            .args(["--no-index", "--html"])
            .args(args)
            .output()
            .unwrap()
    };
    let first = run(&[out.to_str().unwrap()]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let page = fs::read_to_string(&out).unwrap();
    assert_eq!(page.matches("<tbody class=\"cluster\"").count(), 10);

    fs::write(&out, "mine").unwrap();
    let again = run(&[out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists; --force replaces it"));
    assert_eq!(fs::read_to_string(&out).unwrap(), "mine", "kept");

    let forced = run(&[out.to_str().unwrap(), "--force"]);
    assert!(forced.status.success());
    assert!(fs::read_to_string(&out)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));

    let before: Vec<_> = fs::read_dir(&f.folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for inside in [
        f.folder.join("r.html"),
        f.folder.join("austen").join("r.html"),
    ] {
        let refused = run(&[inside.to_str().unwrap(), "--force"]);
        assert_eq!(refused.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&refused.stderr).contains("doppel never writes there"));
        assert!(!inside.exists());
    }
    let after: Vec<_> = fs::read_dir(&f.folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
}

/// Two curators disagree on a pair: the scan's JSON (through `doppel
/// scan --format json`) gives each curator's verdict with its time and
/// `disputed`, every other pair an empty list; the HTML page shows both
/// verdicts, `disputed`, and counts it on the cluster's row.
#[test]
fn a_disputed_pair_shows_each_curators_verdict_in_the_json_and_the_page() {
    let f = fixture();
    let (emma, edited) = (
        DocPath::from("austen/emma-ch1.txt"),
        DocPath::from("edited/emma-ch1-edited.txt"),
    );
    let (mut index, _) = FolderIndex::open(
        &f.folder,
        Engine::new(EngineConfig::default()),
        LibraryConfig::default(),
        Some(&f.index),
    )
    .unwrap();
    let reconciled = index.reconcile().unwrap();
    index.set_curator("alice");
    index
        .set_pair_verdict(&emma, &edited, Some(CuratorVerdict::Duplicate))
        .unwrap();
    index.set_curator("bob");
    index
        .set_pair_verdict(&edited, &emma, Some(CuratorVerdict::NotDuplicate))
        .unwrap();
    let spec = ClusterSpec::from_engine(index.engine());
    let scan = ScanReport::from_index(index, spec, &reconciled).unwrap();

    let page = html::scan_report(
        &scan,
        &f.folder,
        &EngineConfig::default(),
        &Limits::default(),
    );
    let id = scan
        .cluster_paths()
        .iter()
        .position(|c| c.contains(&emma))
        .expect("disputed, the pair is left to the algorithms, which join it")
        + 1;
    let part = cluster_part(&page, id as u64);
    assert!(part.contains("data-verdicts=\"1 disputed\""), "{part}");
    let row = between(part, "A <code>austen/emma-ch1.txt</code>", "</tr>");
    assert!(row.contains("<strong class=\"disputed\""), "{row}");
    assert!(row.contains("alice: duplicate"), "{row}");
    assert!(row.contains("bob: not a duplicate"), "{row}");
    drop(scan);

    let index_arg = f.index.to_str().unwrap();
    let out = common::stdout_of(
        doppel()
            .args(["scan", "--format", "json", "--index", index_arg])
            .arg(&f.folder),
    );
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let pairs = json["pairs"].as_array().unwrap();
    let pair = pairs
        .iter()
        .find(|p| p["a"] == "austen/emma-ch1.txt" && p["b"] == "edited/emma-ch1-edited.txt")
        .expect("the disputed pair is listed");
    assert_eq!(pair["disputed"], true);
    let verdicts = pair["verdicts"].as_array().unwrap();
    let who: Vec<(&str, &str)> = verdicts
        .iter()
        .map(|v| {
            (
                v["curator"].as_str().unwrap(),
                v["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(who, vec![("alice", "duplicate"), ("bob", "not-duplicate")]);
    for v in verdicts {
        let at = v["at"].as_str().unwrap();
        assert!(humantime::parse_rfc3339(at).is_ok(), "{at}");
    }
    let others = pairs
        .iter()
        .filter(|p| p["b"] != "edited/emma-ch1-edited.txt");
    for p in others {
        assert_eq!(p["disputed"], false, "{p}");
        assert_eq!(p["verdicts"], serde_json::json!([]), "{p}");
    }
}

/// Each member's role is in its row (issue 46: the role column was empty
/// but for the representative): the halves of Proverbs are parts of the
/// whole book, and a copy is a duplicate of the representative.
#[test]
fn each_member_says_its_role() {
    let s = sample();
    let clusters = s.json["clusters"].as_array().unwrap();
    let proverbs = clusters
        .iter()
        .find(|c| c["representative"] == "bible/proverbs-kjv-ch01-31.txt")
        .expect("the Proverbs cluster");
    let part = cluster_part(&s.page, proverbs["id"].as_u64().unwrap());
    let members = between(part, "<table class=\"members\">", "</table>");
    assert_eq!(
        members
            .matches("<td>part of bible/proverbs-kjv-ch01-31.txt</td>")
            .count(),
        2,
        "{members}"
    );
    let persuasion = clusters
        .iter()
        .find(|c| {
            c["members"].as_array().unwrap().len() == 2
                && c["representative"] == "austen/persuasion-ch1.txt"
        })
        .expect("the Persuasion copies");
    let part = cluster_part(&s.page, persuasion["id"].as_u64().unwrap());
    assert!(
        part.contains("<td>duplicate of the representative</td>"),
        "{part}"
    );
}
