//! Containment is a relation, not a duplicate: every kept pair of the small
//! generated library (a chapter, its book and a noisy scan of the book, an
//! abridgement, two translations, two disjoint parts of an anthology) is
//! reported with the relation its truth gives, and the side that holds the
//! other; `--relation` filters the pairs; clusters show a whole with its
//! parts and never make two parts duplicates of each other. The small
//! generated library is made from the books of `tests/data/corpus/`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;

use common::{scan_json, scan_text};

/// The small library written to a temporary folder, and its truth.
fn library() -> (tempfile::TempDir, Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("library");
    common::make_small_library(&out);
    let truth =
        serde_json::from_str(&std::fs::read_to_string(out.join("truth.json")).unwrap()).unwrap();
    (dir, truth)
}

fn key(p: &Value) -> (String, String) {
    (
        p["a"].as_str().unwrap().to_owned(),
        p["b"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn every_pair_has_the_relation_of_its_truth_and_the_whole_is_named() {
    let (dir, truth) = library();
    let folder = dir.path().join("library");
    let report = scan_json(&folder, &[]);
    let reported: HashMap<(String, String), &Value> = report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (key(p), p))
        .collect();
    let mut kinds = std::collections::BTreeSet::new();
    for t in truth["pairs"].as_array().unwrap() {
        let pair = reported
            .get(&key(t))
            .unwrap_or_else(|| panic!("{:?} is not in the JSON", key(t)));
        assert_eq!(pair["relation"], t["relation"], "{:?}", key(t));
        // `whole` names the side that holds the other, as the truth's
        // `container` does; other relations have none.
        assert_eq!(pair.get("whole"), t.get("container"), "{:?}", key(t));
        let duplicate = pair["duplicate_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "fusion");
        assert_eq!(
            duplicate,
            t["relation"] != "related",
            "a part is a fusion positive, a translation is not: {:?}",
            key(t)
        );
        kinds.insert(t["relation"].as_str().unwrap().to_owned());
    }
    assert_eq!(kinds.len(), 3, "the fixture holds every relation");
    // Every pair the truth does not list is unrelated: no relation, no
    // duplicate verdict.
    let listed: Vec<(String, String)> =
        truth["pairs"].as_array().unwrap().iter().map(key).collect();
    for (k, pair) in &reported {
        if !listed.contains(k) {
            assert_eq!(pair["relation"], Value::Null, "{k:?}");
        }
    }
}

#[test]
fn relation_filters_the_pairs_and_csv_carries_the_columns() {
    let (dir, truth) = library();
    let folder = dir.path().join("library");
    let count = |relation: &str| {
        truth["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["relation"] == relation)
            .count()
    };
    let parts = scan_json(&folder, &["--relation", "contains"]);
    let pairs = parts["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), count("contains"));
    assert!(pairs.iter().all(|p| p["relation"] == "contains"));
    let two = scan_json(&folder, &["--relation", "duplicate,related"]);
    assert_eq!(
        two["pairs"].as_array().unwrap().len(),
        count("duplicate") + count("related")
    );
    // Clusters are not filtered.
    assert_eq!(parts["clusters"], two["clusters"]);

    let csv = scan_text(&folder, &["--format", "csv", "--relation", "related"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), count("related"));
    for row in &rows {
        assert_eq!(&row[at("relation")], "related");
        assert_eq!(&row[at("whole")], "");
        assert!(row[0].starts_with("translations/"), "{row:?}");
    }

    // The text report lists the related pairs (translations are no
    // duplicates, so no cluster shows them).
    let text = scan_text(&folder, &[]);
    let related: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("related "))
        .collect();
    assert_eq!(related.len(), count("related"), "{text}");
    assert!(related[0].contains("translations/ruth-kjv.txt ~ translations/ruth-web.txt"));

    let bad = Command::new(env!("CARGO_BIN_EXE_doppel"))
        .args(["scan", "--no-index", "--relation", "twin"])
        .arg(&folder)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("\"twin\" is no relation"));
}

#[test]
fn the_anthology_holds_its_parts_and_they_are_never_duplicates_of_each_other() {
    let (dir, _) = library();
    let folder = dir.path().join("library");
    let report = scan_json(&folder, &[]);
    let anthology = "anthologies/washington-annual-addresses-1790-1792.txt";
    let parts = [
        "addresses/washington-1790.txt",
        "addresses/washington-1792-scan.txt",
    ];
    let cluster = report["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["members"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m == anthology)
        })
        .expect("the anthology is clustered");
    let role = |path: &str| {
        cluster["roles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["path"] == path)
            .unwrap_or_else(|| panic!("{path} is not in the anthology's cluster: {cluster}"))
            .clone()
    };
    assert_eq!(role(anthology)["role"], "head");
    for part in parts {
        assert_eq!(role(part)["role"], "part", "{part}");
        assert_eq!(role(part)["of"], anthology, "{part}");
    }
    // The book, its scan, a chapter and an abridgement: the scan duplicates
    // the book, the chapter and the abridgement are parts.
    let book = "etexts/carroll-alice.txt";
    let alice = report["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["members"].as_array().unwrap().iter().any(|m| m == book))
        .expect("the book is clustered");
    let roles: HashMap<&str, &str> = alice["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap(), r["role"].as_str().unwrap()))
        .collect();
    assert_eq!(roles["scans/carroll-alice-scan.txt"], "duplicate");
    assert_eq!(roles["chapters/carroll-alice-chapter-04.txt"], "part");
    assert_eq!(roles["editions/carroll-alice-abridged.txt"], "part");
}

/// A dump holding every other file (a JSON-lines export of the folder, say)
/// is the whole the others sit in: the files that are not duplicates stay
/// parts of it, never chained into one cluster of duplicates.
#[test]
fn a_dump_of_the_whole_folder_is_a_whole_with_parts_not_a_chain() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    let texts = [
        "austen/emma-ch1.txt",
        "austen/persuasion-ch1.txt",
        "bible/ruth-kjv.txt",
        "moby/moby-dick-ch1.txt",
    ];
    let mut dump = String::new();
    for rel in texts {
        let text = std::fs::read_to_string(common::sample_corpus().join(rel)).unwrap();
        let name = Path::new(rel).file_name().unwrap();
        std::fs::write(folder.join(name), &text).unwrap();
        dump.push_str(&text);
        dump.push_str("\n\n");
    }
    std::fs::write(folder.join("dump.txt"), dump).unwrap();
    let report = scan_json(&folder, &[]);
    let clusters = report["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 1, "{clusters:?}");
    let roles = clusters[0]["roles"].as_array().unwrap();
    assert_eq!(roles.len(), texts.len() + 1);
    for r in roles {
        if r["path"] == "dump.txt" {
            assert_eq!(r["role"], "head");
        } else {
            assert_eq!(r["role"], "part", "{r}");
            assert_eq!(r["of"], "dump.txt", "{r}");
        }
    }
    assert!(report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["relation"] == "contains" && (p["a"] == "dump.txt" || p["b"] == "dump.txt")));
}

/// `doppel compare` names the relation and which file holds the other.
#[test]
fn compare_says_which_file_holds_the_other() {
    let bible = common::sample_corpus().join("bible");
    let relation = |a: &str, b: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_doppel"))
            .arg("compare")
            .args([bible.join(a), bible.join(b)])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("relation: ").map(str::to_owned))
            .expect("a relation line")
    };
    let half = relation("proverbs-kjv-ch01-16.txt", "proverbs-kjv-ch01-31.txt");
    assert!(half.starts_with("contains: A ⊂ B, 100 % of A"), "{half}");
    // The part says so first, before eleven scores that compare whole
    // texts (none passes for a half against its book), and the verdict
    // names why it is one.
    let out = Command::new(env!("CARGO_BIN_EXE_doppel"))
        .arg("compare")
        .args([
            bible.join("proverbs-kjv-ch01-16.txt"),
            bible.join("proverbs-kjv-ch01-31.txt"),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("A ⊂ B: A is a part of B, 100 % of A's shingles inside it"),
        "{text}"
    );
    assert!(
        text.contains("fusion: duplicate, as a part of its whole ("),
        "{text}"
    );
    let swapped = relation("proverbs-kjv-ch01-31.txt", "proverbs-kjv-ch01-16.txt");
    assert!(
        swapped.starts_with("contains: B ⊂ A, 100 % of B"),
        "{swapped}"
    );
    assert_eq!(
        relation("proverbs-kjv-ch01-16.txt", "proverbs-kjv-ch17-31.txt"),
        "none",
        "two disjoint halves"
    );
    let json = Command::new(env!("CARGO_BIN_EXE_doppel"))
        .args(["compare", "--format", "json"])
        .args([
            bible.join("proverbs-kjv-ch01-31.txt"),
            bible.join("proverbs-kjv-ch01-16.txt"),
        ])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["relation"], "contains");
    assert_eq!(json["whole"], "a");
}

/// The whole is named by path order whatever order the files arrived in:
/// a part indexed after its whole (a larger id, a smaller path) is still
/// the `a` that sits in `b`.
#[test]
fn the_whole_side_follows_paths_not_arrival() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    let index = dir.path().join("index.sqlite");
    let bible = common::sample_corpus().join("bible");
    std::fs::copy(
        bible.join("proverbs-kjv-ch01-31.txt"),
        folder.join("z-book.txt"),
    )
    .unwrap();
    let index_arg = ["--index", index.to_str().unwrap()];
    let first = scan_json(&folder, &[]);
    assert_eq!(first["pairs"].as_array().unwrap().len(), 0);
    let indexed = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_doppel"))
            .args(["scan", "--format", "json"])
            .args(index_arg)
            .args(extra)
            .arg(&folder)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    indexed(&[]);
    std::fs::copy(
        bible.join("proverbs-kjv-ch01-16.txt"),
        folder.join("a-chapter.txt"),
    )
    .unwrap();
    let report = indexed(&[]);
    let pairs = report["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 1);
    assert_eq!(pairs[0]["a"], "a-chapter.txt");
    assert_eq!(pairs[0]["relation"], "contains");
    assert_eq!(pairs[0]["whole"], "b", "the book holds the chapter");
}
