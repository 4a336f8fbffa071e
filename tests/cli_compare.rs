//! `doppel compare A B` judges a pair as `scan` judges it: without the
//! boilerplate the folder's index learned (found where `scan` keeps it, or
//! named by `--index`) and the user's own (`--boilerplate-dir`), so every
//! pair `scan` reports gets the same scores, verdict and relation; and it
//! says what it left out and from where.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use common::{doppel, sample_corpus, stdout_of};

/// The binary with its data folder (where `scan` keeps an index by
/// default) at `data`.
fn doppel_in(data: &Path) -> Command {
    let mut command = doppel();
    command.env("XDG_DATA_HOME", data);
    command
}

fn json(out: Vec<u8>) -> Value {
    serde_json::from_slice(&out).unwrap()
}

/// For every pair of `report` (a scan's JSON), `compare` (with `extra`)
/// gives the scan's scores, verdicts and relation.
fn compare_agrees(data: &Path, folder: &Path, report: &Value, extra: &[&str]) -> usize {
    let pairs = report["pairs"].as_array().unwrap();
    let mut left_out = 0;
    for pair in pairs {
        let (a, b) = (pair["a"].as_str().unwrap(), pair["b"].as_str().unwrap());
        let compared = json(stdout_of(
            doppel_in(data)
                .args(["compare", "--format", "json"])
                .args(extra)
                .arg(folder.join(a))
                .arg(folder.join(b)),
        ));
        let what = format!("{a} ~ {b}: scan {pair}, compare {compared}");
        assert_eq!(compared["scores"], pair["scores"], "{what}");
        assert_eq!(compared["duplicate_by"], pair["duplicate_by"], "{what}");
        assert_eq!(compared["relation"], pair["relation"], "{what}");
        assert_eq!(
            compared["whole"],
            pair.get("whole").cloned().unwrap_or(Value::Null),
            "{what}"
        );
        let words = &compared["boilerplate"];
        if words["a_words"].as_u64().unwrap() + words["b_words"].as_u64().unwrap() > 0 {
            left_out += 1;
        }
    }
    left_out
}

#[test]
fn compare_judges_every_pair_the_scan_reports_as_the_scan_does() {
    let state = tempfile::tempdir().unwrap();
    let data = state.path().join("data");
    let corpus = sample_corpus();
    // The index where `scan` keeps it by default: `compare` finds it.
    let report = json(stdout_of(
        doppel_in(&data)
            .args(["scan", "--format", "json"])
            .arg(&corpus),
    ));
    let pairs = report["pairs"].as_array().unwrap().len();
    assert_eq!(pairs, 25, "{report}");
    let left_out = compare_agrees(&data, &corpus, &report, &[]);
    // The three e-texts carry the library's licence, learned as
    // boilerplate: without it, their pairs scored lower (and one was
    // "contains" where the scan says "duplicate").
    assert_eq!(left_out, 3, "pairs with boilerplate left out");

    // An index named by --index: the same.
    let other_data = state.path().join("other-data");
    let index = state.path().join("index.sqlite");
    let report = json(stdout_of(
        doppel_in(&other_data)
            .args(["scan", "--format", "json", "--index"])
            .arg(&index)
            .arg(&corpus),
    ));
    let index_arg = ["--index", index.to_str().unwrap()];
    assert_eq!(compare_agrees(&other_data, &corpus, &report, &index_arg), 3);
}

#[test]
fn compare_says_what_it_left_out_and_from_where() {
    let state = tempfile::tempdir().unwrap();
    let data = state.path().join("data");
    let corpus = sample_corpus().canonicalize().unwrap();
    let (a, b) = (
        corpus.join("etexts/gettysburg-etext.txt"),
        corpus.join("misc/gettysburg.txt"),
    );
    let compare = |extra: &[&str]| {
        let out = stdout_of(doppel_in(&data).arg("compare").args(extra).arg(&a).arg(&b));
        String::from_utf8(out).unwrap()
    };
    // No index yet: nothing is left out, and the table is as it was.
    let before = compare(&[]);
    assert!(!before.contains("boilerplate"), "{before}");
    assert!(before.contains("relation: contains: B ⊂ A"), "{before}");

    stdout_of(doppel_in(&data).arg("scan").arg(&corpus));
    let after = compare(&[]);
    let line = format!(
        "boilerplate left out: 999 of 1327 words of A, none of B (learned by the index of {})",
        corpus.display()
    );
    assert!(after.lines().any(|l| l == line), "{after}");
    assert!(after.contains("relation: duplicate"), "{after}");
    // --no-index learns nothing from it.
    assert_eq!(compare(&["--no-index"]), before);
    let csv = compare(&["--format", "csv"]);
    assert!(
        csv.contains("boilerplate in A,999,\"words left out, of 1327 (learned by the index"),
        "{csv}"
    );

    // An index that is not there, or whose folder does not hold the
    // files, is refused, naming what is wrong.
    let refused = |index: &Path| {
        let out = doppel_in(&data)
            .args(["compare", "--index"])
            .arg(index)
            .arg(&a)
            .arg(&b)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stderr).unwrap()
    };
    let missing = state.path().join("none.sqlite");
    let stderr = refused(&missing);
    assert!(stderr.contains("no index at"), "{stderr}");
    let other = state.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(&b, other.join("gettysburg.txt")).unwrap();
    let index = state.path().join("other.sqlite");
    stdout_of(
        doppel_in(&data)
            .arg("scan")
            .arg(&other)
            .arg("--index")
            .arg(&index),
    );
    let stderr = refused(&index);
    assert!(
        stderr.contains(&format!(
            "{} is not in {}",
            a.display(),
            other.canonicalize().unwrap().display()
        )),
        "{stderr}"
    );
}

/// A licence far longer than the two works it wraps makes them
/// duplicates; the user's boilerplate folder holding it keeps them apart,
/// in `compare` as in `scan`, with or without an index.
#[test]
fn the_boilerplate_folder_keeps_two_works_in_one_licence_apart_as_in_a_scan() {
    let state = tempfile::tempdir().unwrap();
    let data = state.path().join("data");
    let books = state.path().join("books");
    let notices = state.path().join("notices");
    std::fs::create_dir_all(&books).unwrap();
    std::fs::create_dir_all(&notices).unwrap();
    let corpus = common::test_corpus();
    let read = |name: &str| std::fs::read_to_string(corpus.join(name)).unwrap();
    let licence = read("misc/us_constitution.txt");
    std::fs::write(notices.join("licence.txt"), &licence).unwrap();
    for (name, work) in [
        ("gettysburg.txt", "misc/gettysburg.txt"),
        ("hoover.txt", "sotu/1932_herbert_hoover_r.txt"),
    ] {
        std::fs::write(books.join(name), format!("{}\n\n{licence}", read(work))).unwrap();
    }
    let (a, b) = (books.join("gettysburg.txt"), books.join("hoover.txt"));
    let compare = |extra: &[&str]| {
        json(stdout_of(
            doppel_in(&data)
                .args(["compare", "--format", "json"])
                .args(extra)
                .arg(&a)
                .arg(&b),
        ))
    };
    let scan = |extra: &[&str]| {
        json(stdout_of(
            doppel_in(&data)
                .args(["scan", "--format", "json"])
                .args(extra)
                .arg(&books),
        ))
    };
    let dir = notices.to_str().unwrap();
    let whole = compare(&[]);
    // Without the licence known, the two look like one text (the larger
    // holding the smaller): the false positive the folder removes.
    assert!(
        whole["duplicate_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "fusion"),
        "{whole}"
    );
    assert_ne!(whole["relation"], serde_json::Value::Null, "{whole}");
    assert_eq!(scan(&["--no-index"])["pairs"][0]["scores"], whole["scores"]);

    for extra in [&["--no-index"][..], &[]] {
        let with_dir = [extra, &["--boilerplate-dir", dir]].concat();
        let scanned = scan(&with_dir);
        assert_eq!(scanned["pairs"], serde_json::json!([]), "{extra:?}");
        let apart = compare(&with_dir);
        assert_eq!(apart["relation"], Value::Null, "{extra:?}: {apart}");
        assert_eq!(apart["duplicate_by"], serde_json::json!([]), "{apart}");
        let left = &apart["boilerplate"];
        assert!(left["a_words"].as_u64().unwrap() > 4000, "{left}");
        assert!(left["b_words"].as_u64().unwrap() > 4000, "{left}");
        assert_eq!(left["user_dir"], dir, "{left}");
        // Through the index the scan kept, it names that too.
        assert_eq!(left["index"].is_string(), extra.is_empty(), "{left}");
    }
}
