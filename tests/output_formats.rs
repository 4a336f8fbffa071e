//! The machine-readable outputs keep their promises. The scan's CSV and
//! JSON say the same thing about every pair: its cluster is the one holding
//! both of its files, or none (random small folders of copies, edits,
//! parts and joins of a few sample texts, scanned under random cluster
//! settings and rendered both ways). `compare` and `eval` print the CSV
//! their `--format csv` offers.

mod common;

use std::collections::HashMap;
use std::sync::LazyLock;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::Engine;
use doppel_eval::{chunk_text, edit_words, vocabulary};

use doppel_core::hash::SplitMix64;
use doppel_index::scan::scan_folder;
use doppel_pairing::cluster::{ClusterBy, ClusterMode, ClusterSpec};
use doppel_pairing::library::LibraryConfig;
use proptest::prelude::*;
use serde_json::Value;

use common::{doppel, sample_corpus, stdout_of};

static ENGINE: LazyLock<Engine> = LazyLock::new(Engine::default);

/// The opening ~3 KB of a few unrelated sample texts (the gettysburg
/// address is whole and short: below the containment rule's minimum).
static SOURCES: LazyLock<Vec<String>> = LazyLock::new(|| {
    [
        "austen/emma-ch1.txt",
        "austen/persuasion-ch1.txt",
        "bible/ruth-kjv.txt",
        "moby/moby-dick-ch1.txt",
        "sotu/1790-washington.txt",
        "misc/gettysburg.txt",
    ]
    .iter()
    .map(|rel| {
        let text = std::fs::read_to_string(sample_corpus().join(rel)).unwrap();
        chunk_text(&text, 3000)[0].to_owned()
    })
    .collect()
});

static VOCABULARY: LazyLock<Vec<String>> =
    LazyLock::new(|| vocabulary(SOURCES.iter().map(String::as_str)));

/// How one file of a random folder is made from the sources.
#[derive(Debug, Clone)]
enum Make {
    Copy(usize),
    /// An edited copy: edits per word in percent, and a seed.
    Edit(usize, u8, u64),
    /// A run of words: start and length in percent of the source.
    Part(usize, u8, u8),
    /// Two sources one after the other (each is contained in it).
    Join(usize, usize),
}

impl Make {
    fn text(&self) -> String {
        let s = &*SOURCES;
        match *self {
            Make::Copy(i) => s[i].clone(),
            Make::Edit(i, percent, seed) => {
                let mut rng = SplitMix64::new(seed);
                edit_words(&s[i], f64::from(percent) / 100.0, &VOCABULARY, &mut rng).text
            }
            Make::Part(i, start, len) => {
                let words: Vec<&str> = s[i].split_whitespace().collect();
                let from = words.len() * usize::from(start) / 100;
                let to = (from + words.len() * usize::from(len) / 100).min(words.len());
                words[from..to].join(" ")
            }
            Make::Join(i, j) => format!("{}\n\n{}", s[i], s[j]),
        }
    }
}

fn make() -> impl Strategy<Value = Make> {
    let source = 0..SOURCES.len();
    prop_oneof![
        source.clone().prop_map(Make::Copy),
        (source.clone(), 1u8..30, any::<u64>()).prop_map(|(i, p, seed)| Make::Edit(i, p, seed)),
        (source.clone(), 0u8..50, 20u8..90).prop_map(|(i, s, l)| Make::Part(i, s, l)),
        (source.clone(), source).prop_map(|(i, j)| Make::Join(i, j)),
    ]
}

fn cluster_by() -> impl Strategy<Value = ClusterBy> {
    prop_oneof![
        Just(ClusterBy::Fusion),
        Just(ClusterBy::Algorithm(AlgorithmId::Minhash)),
        Just(ClusterBy::Algorithm(AlgorithmId::Si)),
    ]
}

fn mode() -> impl Strategy<Value = ClusterMode> {
    prop_oneof![Just(ClusterMode::Components), Just(ClusterMode::Star)]
}

/// The id of the JSON cluster holding both `a` and `b`, if one does.
fn cluster_holding(json: &Value, a: &str, b: &str) -> Option<u64> {
    let holding: Vec<u64> = json["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            let members = c["members"].as_array().unwrap();
            members.iter().any(|m| m == a) && members.iter().any(|m| m == b)
        })
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    assert!(holding.len() <= 1, "{a} and {b} share clusters {holding:?}");
    holding.first().copied()
}

/// CSV rows as (a, b, cluster) with the cluster cell parsed (empty: none).
fn csv_pairs(csv: &str) -> Vec<(String, String, Option<u64>)> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    reader
        .deserialize::<HashMap<String, String>>()
        .map(|row| {
            let row = row.unwrap();
            let cluster = match row["cluster"].as_str() {
                "" => None,
                id => Some(id.parse().unwrap()),
            };
            (row["a"].clone(), row["b"].clone(), cluster)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn csv_and_json_give_every_pair_the_cluster_holding_both_files(
        files in prop::collection::vec(make(), 2..8),
        by in cluster_by(),
        mode in mode(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        for (n, file) in files.iter().enumerate() {
            std::fs::write(dir.path().join(format!("d{n}.txt")), file.text()).unwrap();
        }
        let spec = ClusterSpec { by, mode, ..ClusterSpec::from_engine(&ENGINE) };
        let (json, csv) = render(dir.path(), spec);
        let json_pairs = json["pairs"].as_array().unwrap();
        prop_assert_eq!(csv.len(), json_pairs.len());
        for ((a, b, csv_cluster), pair) in csv.iter().zip(json_pairs) {
            prop_assert_eq!(&pair["a"], a.as_str());
            prop_assert_eq!(&pair["b"], b.as_str());
            let expected = cluster_holding(&json, a, b);
            prop_assert_eq!(pair["cluster"].as_u64(), expected, "JSON, {} / {}", a, b);
            prop_assert!(pair["cluster"].is_null() || expected.is_some());
            prop_assert_eq!(*csv_cluster, expected, "CSV, {} / {}", a, b);
        }
    }
}

/// Scan `dir` under `spec` and return its JSON (parsed) and CSV pairs.
fn render(dir: &std::path::Path, spec: ClusterSpec) -> (Value, Vec<(String, String, Option<u64>)>) {
    let engine = &*ENGINE;
    let scan = scan_folder(
        dir,
        engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        spec,
    )
    .expect("scan");
    let json =
        serde_json::from_str(&doppel_report::json(&scan, dir, engine.config()).unwrap()).unwrap();
    (json, csv_pairs(&doppel_report::csv(&scan, dir).unwrap()))
}

/// A file clustered with its copy, paired with an edited copy that is not
/// clustered (minhash must reach 0.95): the pair has no cluster, in CSV as
/// in JSON.
#[test]
fn a_pair_reaching_outside_its_cluster_has_no_cluster() {
    let dir = tempfile::tempdir().unwrap();
    for (name, make) in [
        ("a.txt", Make::Copy(0)),
        ("a-copy.txt", Make::Copy(0)),
        ("a-edited.txt", Make::Edit(0, 15, 7)),
    ] {
        std::fs::write(dir.path().join(name), make.text()).unwrap();
    }
    let mut spec = ClusterSpec {
        by: ClusterBy::Algorithm(AlgorithmId::Minhash),
        ..ClusterSpec::from_engine(&ENGINE)
    };
    spec.thresholds.set(AlgorithmId::Minhash, 0.95);
    let (json, csv) = render(dir.path(), spec);
    assert_eq!(json["clusters"][0]["members"].as_array().unwrap().len(), 2);
    let cluster_of = |a: &str, b: &str| {
        let row = csv.iter().find(|(x, y, _)| x == a && y == b);
        let pair = json["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["a"] == a && p["b"] == b);
        let (row, pair) = row.zip(pair).unwrap_or_else(|| panic!("no pair {a} / {b}"));
        assert_eq!(
            row.2,
            pair["cluster"].as_u64(),
            "{a} / {b}: CSV and JSON differ"
        );
        row.2
    };
    assert_eq!(cluster_of("a-copy.txt", "a.txt"), Some(1));
    assert_eq!(cluster_of("a-edited.txt", "a.txt"), None);
    assert_eq!(cluster_of("a-copy.txt", "a-edited.txt"), None);
}

/// On `sample-corpus/` (the example: `si` pairs the Emma chapter
/// with the Gettysburg address, in different clusters) every pair's
/// cluster holds both its files.
#[test]
fn sample_corpus_pairs_name_the_cluster_holding_both_files() {
    let (json, csv) = render(&sample_corpus(), ClusterSpec::from_engine(&ENGINE));
    let emma = cluster_holding(&json, "austen/emma-ch1.txt", "edited/emma-ch1-edited.txt");
    assert!(emma.is_some());
    assert!(csv.contains(&(
        "austen/emma-ch1.txt".into(),
        "edited/emma-ch1-edited.txt".into(),
        emma
    )));
    for (a, b, cluster) in &csv {
        assert_eq!(*cluster, cluster_holding(&json, a, b), "{a} / {b}");
    }
}

/// `compare --format csv`: one row per algorithm with the same scores and
/// verdicts as `--format json`, then the exact measures, containment and
/// the fusion verdict.
#[test]
fn compare_csv_agrees_with_compare_json() {
    let a = sample_corpus().join("austen/emma-ch1.txt");
    let b = sample_corpus().join("edited/emma-ch1-edited.txt");
    let run = |format: &str| {
        stdout_of(
            doppel()
                .arg("compare")
                .arg(&a)
                .arg(&b)
                .args(["--format", format]),
        )
    };
    let json: Value = serde_json::from_slice(&run("json")).unwrap();
    let csv = run("csv");
    let mut reader = csv::Reader::from_reader(&csv[..]);
    assert_eq!(
        reader.headers().unwrap(),
        vec!["measure", "score", "unit", "threshold", "duplicate"]
    );
    let rows: HashMap<String, csv::StringRecord> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_owned(), r)
        })
        .collect();
    let duplicate_by = json["duplicate_by"].as_array().unwrap();
    for id in AlgorithmId::ALL {
        let row = &rows[id.as_str()];
        let score: f64 = row[1].parse().unwrap();
        assert_eq!(json["scores"][id.as_str()].as_f64(), Some(score), "{id}");
        let passes = duplicate_by.iter().any(|d| d == id.as_str());
        assert_eq!(&row[4], if passes { "yes" } else { "no" }, "{id}");
    }
    let jaccard: f64 = rows["exact jaccard"][1].parse().unwrap();
    assert_eq!(json["exact"]["jaccard"].as_f64(), Some(jaccard));
    assert_eq!(&rows["containment"][4], "yes", "a 2 % edit is contained");
    assert_eq!(&rows["fusion"][4], "yes");
    assert!(duplicate_by.iter().any(|d| d == "fusion"));
}

/// `eval --format csv` prints CSV, with and without `--truth`; `--csv` and
/// `--svg` (Fan & Huang curve files) are refused with `--truth` rather than
/// ignored.
#[test]
fn eval_prints_csv_and_refuses_curve_files_with_a_truth() {
    let truth = stdout_of(
        doppel()
            .args(["eval", "--format", "csv", "--truth"])
            .arg(sample_corpus().join("expected.json"))
            .arg(sample_corpus()),
    );
    let mut reader = csv::Reader::from_reader(&truth[..]);
    assert_eq!(&reader.headers().unwrap()[0], "algorithm");
    let algorithms: Vec<String> = reader.records().map(|r| r.unwrap()[0].to_owned()).collect();
    assert_eq!(algorithms.len(), AlgorithmId::ALL.len() + 1);
    assert_eq!(algorithms.last().unwrap(), "fusion");

    let curves = stdout_of(
        doppel()
            .args(["eval", "--format", "csv", "--sources", "2", "--copies", "5"])
            .arg("--books")
            .arg(sample_corpus()),
    );
    let mut reader = csv::Reader::from_reader(&curves[..]);
    assert_eq!(
        reader.headers().unwrap(),
        vec![
            "algorithm",
            "setting",
            "threshold",
            "precision",
            "recall",
            "f"
        ]
    );
    assert!(reader.records().count() > 11);

    for flag in ["--csv", "--svg"] {
        let out = doppel()
            .args(["eval", "--truth"])
            .arg(sample_corpus().join("expected.json"))
            .arg(sample_corpus())
            .arg(flag)
            .arg(std::env::temp_dir().join("doppel-never-written"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} with --truth");
        assert!(String::from_utf8_lossy(&out.stderr).contains(flag));
    }
}
