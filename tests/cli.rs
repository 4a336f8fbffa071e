//! The `doppel` binary as scripts use it: JSON schema, exit codes, errors
//! that name the problem.

mod common;

use common::{doppel, sample_corpus, stdout_of};

#[test]
fn scan_json_follows_the_documented_schema() {
    let state = tempfile::tempdir().unwrap();
    let index = state.path().join("index.sqlite");
    let stdout = stdout_of(
        doppel()
            .args(["scan", "--format", "json", "--index"])
            .arg(&index)
            .arg(sample_corpus()),
    );
    let v: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(v["format"], 1);
    assert_eq!(v["cluster_algorithm"], "fusion");
    assert!(v["root"].as_str().unwrap().starts_with('/'));
    assert_eq!(v["thresholds"].as_object().unwrap().len(), 11);
    let docs = v["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 26);
    let empty = docs.iter().find(|d| d["path"] == "empty.txt").unwrap();
    assert_eq!(empty["status"], "skipped");
    assert_eq!(empty["reason"], "empty file");
    let clusters = v["clusters"].as_array().unwrap();
    assert!(clusters
        .iter()
        .all(|c| c["members"].as_array().unwrap().len() >= 2));
    let moby = clusters
        .iter()
        .find(|c| {
            c["members"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m == "moby/moby-dick-ch1.txt")
        })
        .expect("the Moby-Dick encodings cluster");
    assert_eq!(moby["members"].as_array().unwrap().len(), 3);
    let pair = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["a"] == "austen/persuasion-ch1.txt" && p["b"] == "copies/persuasion-ch1 (copy).txt"
        })
        .unwrap();
    assert_eq!(pair["scores"]["exact"], 1.0);
    assert!(pair["duplicate_by"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d == "fusion"));
    // A second run reads the index, not the files, and says the same.
    let again = doppel()
        .args(["scan", "--format", "json", "--index"])
        .arg(&index)
        .arg(sample_corpus())
        .output()
        .unwrap();
    let w: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v["clusters"], w["clusters"]);
}

#[test]
fn cluster_by_one_algorithm_and_a_stricter_threshold_split_clusters() {
    let out = doppel()
        .args([
            "scan",
            "--no-index",
            "--format",
            "json",
            "--cluster-by",
            "minhash",
            "--threshold",
            "minhash=0.95",
        ])
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cluster_algorithm"], "minhash");
    assert_eq!(v["thresholds"]["minhash"], 0.95);
    let clusters = v["clusters"].as_array().unwrap();
    assert!(!clusters.iter().any(|c| c["members"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m == "edited/emma-ch1-edited.txt")));
}

#[test]
fn csv_has_one_row_per_pair_and_every_algorithm_column() {
    let out = doppel()
        .args(["scan", "--no-index", "--format", "csv"])
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let header: Vec<&str> = reader.headers().unwrap().iter().collect();
    assert_eq!(
        header[..6],
        ["a", "b", "cluster", "exact", "shingle", "minhash"]
    );
    assert_eq!(header.len(), 3 + 11 + 2);
    assert!(header.ends_with(&["containment", "duplicate_by"]));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let copy = rows
        .iter()
        .find(|r| {
            &r[0] == "austen/persuasion-ch1.txt" && &r[1] == "copies/persuasion-ch1 (copy).txt"
        })
        .expect("the Persuasion copy pair");
    assert_eq!(&copy[3], "1", "exact");
    assert!(copy[15].split(' ').any(|id| id == "fusion"));
}

#[test]
fn compare_prints_every_algorithm_and_the_exact_measures() {
    let a = sample_corpus().join("austen/emma-ch1.txt");
    let b = sample_corpus().join("edited/emma-ch1-edited.txt");
    let out = doppel()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scores"].as_object().unwrap().len(), 11);
    let jaccard = v["exact"]["jaccard"].as_f64().unwrap();
    assert!(
        (0.7..1.0).contains(&jaccard),
        "a 2 % edit: jaccard {jaccard}"
    );
    assert!(v["duplicate_by"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d == "fusion"));
}

#[test]
fn usage_errors_exit_2_and_runtime_errors_exit_1_naming_the_problem() {
    let bad = doppel()
        .args(["scan", "--threshold", "nosuch=1"])
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown algorithm \"nosuch\""));
    let missing = doppel()
        .args(["scan", "--no-index", "/nonexistent/folder"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/folder"));
    let compare = doppel()
        .args(["compare", "/nonexistent/a.txt", "/nonexistent/b.txt"])
        .output()
        .unwrap();
    assert_eq!(compare.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&compare.stderr).contains("a.txt"));
}
