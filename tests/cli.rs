//! The `doppel` binary as scripts use it: JSON schema, exit codes, errors
//! that name the problem.

mod common;

use common::{doppel, sample_corpus, scan_json, scan_text, stdout_of};

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
    assert_eq!(docs.len(), 33);
    for (path, format) in [
        ("formats/emma.epub", "epub"),
        ("formats/emma_scan.xml", "alto"),
        ("formats/emma_scan.pdf", "pdf"),
    ] {
        let doc = docs.iter().find(|d| d["path"] == path).unwrap();
        assert_eq!(doc["format"], format, "{doc}");
        assert_eq!(doc["status"], "indexed", "{doc}");
    }
    // broken.txt is known for a PDF despite its name, and skipped as a damaged one.
    let broken = docs.iter().find(|d| d["path"] == "broken.txt").unwrap();
    assert_eq!(
        (&broken["format"], &broken["status"]),
        (&"pdf".into(), &"skipped".into()),
        "{broken}"
    );
    assert!(
        broken["reason"]
            .as_str()
            .unwrap()
            .starts_with("damaged PDF: "),
        "{broken}"
    );
    assert!(docs
        .iter()
        .filter(
            |d| !d["path"].as_str().unwrap().starts_with("formats/") && d["path"] != "broken.txt"
        )
        .all(|d| d.get("format").is_none()));
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
    let v = scan_json(
        &sample_corpus(),
        &["--cluster-by", "minhash", "--threshold", "minhash=0.95"],
    );
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
    assert_eq!(header.len(), 3 + 11 + 4 + 2);
    assert!(header.ends_with(&[
        "containment",
        "duplicate_by",
        "relation",
        "whole",
        "place_a",
        "place_b"
    ]));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let copy = rows
        .iter()
        .find(|r| {
            &r[0] == "austen/persuasion-ch1.txt" && &r[1] == "copies/persuasion-ch1 (copy).txt"
        })
        .expect("the Persuasion copy pair");
    assert_eq!(&copy[3], "1", "exact");
    assert!(copy[15].split(' ').any(|id| id == "fusion"));
    assert_eq!(&copy[16], "duplicate", "an exact copy is a duplicate");
    assert_eq!(&copy[17], "", "no side is the whole of a duplicate");
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

/// An error keeps its cause as its source (scripts and logs can walk the
/// chain) and the message names it once, as it always has.
#[test]
fn an_error_names_its_cause_once_and_keeps_it_as_its_source() {
    let missing = std::path::Path::new("/nonexistent/doppel.toml");
    let error = doppel_index::config::Config::load(Some(missing)).unwrap_err();
    let cause = std::error::Error::source(&error).expect("the file system's error");
    assert_eq!(
        cause.downcast_ref::<std::io::Error>().map(|e| e.kind()),
        Some(std::io::ErrorKind::NotFound)
    );
    let out = doppel()
        .args(["--config", "/nonexistent/doppel.toml", "scan"])
        .arg(sample_corpus())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("doppel: {error}\n")
    );
    assert_eq!(
        error.to_string(),
        format!("cannot read config file /nonexistent/doppel.toml: {cause}")
    );
}

#[test]
fn fusion_follows_the_enabled_algorithms_and_says_so() {
    // One voting algorithm: it decides alone, so exact copies still cluster.
    let v = scan_json(&sample_corpus(), &["--algorithms", "minhash"]);
    // A shared-passages algorithm gives its family's 2 votes.
    assert_eq!(v["fusion"]["votes_needed"], 2);
    assert_eq!(v["fusion"]["voters"], serde_json::json!(["minhash"]));
    assert_eq!(v["fusion"]["containment"], serde_json::Value::Null);
    let rule = v["fusion"]["rule"].as_str().unwrap();
    assert!(rule.contains("minhash alone"), "{rule}");
    let clusters = v["clusters"].as_array().unwrap();
    assert!(
        clusters.iter().any(|c| {
            let members = c["members"].to_string();
            members.contains("austen/persuasion-ch1.txt")
                && members.contains("copies/persuasion-ch1 (copy).txt")
        }),
        "{clusters:?}"
    );
    // The text report states the rule in force.
    let first = scan_text(&sample_corpus(), &["--algorithms", "minhash,si"]);
    let first = first.lines().next().unwrap();
    assert!(
        first.contains("fusion: minhash alone (only 1 voting algorithm enabled)"),
        "{first}"
    );
    assert!(!first.contains(" 0 clusters"), "{first}");
    // All voters enabled: the configured rule, with containment.
    let v = scan_json(&sample_corpus(), &[]);
    assert_eq!(v["fusion"]["votes_needed"], 2);
    assert_eq!(v["fusion"]["containment"], 0.9);
    let rule = v["fusion"]["rule"].as_str().unwrap();
    assert!(
        rule.starts_with("≥ 2 family votes, or containment ≥ 90 %"),
        "{rule}"
    );
    // Only the vocabulary family enabled: it can give 1 vote, so either
    // SimHash decides (not both, they are one family).
    let v = scan_json(
        &sample_corpus(),
        &["--algorithms", "simhash,simhash-shingle"],
    );
    assert_eq!(v["fusion"]["votes_needed"], 1);
    let rule = v["fusion"]["rule"].as_str().unwrap();
    assert!(
        rule.starts_with("≥ 1 family votes (all vocabulary 1 can give)"),
        "{rule}"
    );
}

#[test]
fn compare_counts_families_of_evidence() {
    // A copy: shared passages and the other families agree; the line counts
    // families, not algorithms, and states the rule.
    let dir = sample_corpus();
    let out = stdout_of(
        doppel()
            .arg("compare")
            .arg(dir.join("austen/persuasion-ch1.txt"))
            .arg(dir.join("copies/persuasion-ch1 (copy).txt")),
    );
    let text = String::from_utf8(out).unwrap();
    let fusion = text.lines().find(|l| l.starts_with("fusion: ")).unwrap();
    assert!(
        fusion.starts_with("fusion: duplicate (3 of 3 families agree (passages, vocabulary, signatures): 4 votes, 2 needed;"),
        "{fusion}"
    );
    assert!(
        text.contains(
            "fusion rule: ≥ 2 family votes, or containment ≥ 90 % \
             (votes per agreeing family: passages 2, vocabulary 1, signatures 1)"
        ),
        "{text}"
    );
}

/// Exit status and stderr of `doppel ARGS` run in an empty folder.
fn fails(args: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = doppel()
        .args(args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{args:?} succeeded");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn thresholds_out_of_range_are_usage_errors_naming_flag_value_and_range() {
    let corpus = sample_corpus();
    let corpus = corpus.to_str().unwrap();
    for (flag, range) in [
        ("minhash=1.5", "from 0 to 1"),
        ("minhash=-0.2", "from 0 to 1"),
        ("simhash=200", "whole number from 0 to 64"),
        ("supershingle=2.5", "whole number from 0 to 6"),
    ] {
        let (code, stderr) = fails(&["scan", "--no-index", "--threshold", flag, corpus]);
        assert_eq!(code, Some(2), "{flag}: {stderr}");
        assert!(stderr.contains(&format!("--threshold {flag}")), "{stderr}");
        assert!(stderr.contains(range), "{flag}: {stderr}");
    }
    // The range follows the configuration: 32-bit SimHash, 32 at most.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "[algorithms.simhash]\nbits = 32\n").unwrap();
    let (code, stderr) = fails(&[
        "scan",
        "--no-index",
        "--config",
        file.to_str().unwrap(),
        "--threshold",
        "simhash=40",
        corpus,
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("from 0 to 32"), "{stderr}");
}

#[test]
fn config_file_values_out_of_range_exit_1_naming_file_key_value_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    for (text, key) in [
        ("[thresholds]\nminhash = 7\n", "thresholds.minhash = 7"),
        (
            "[algorithms.minhash]\nnum_perm = 0\n",
            "algorithms.minhash.num_perm = 0",
        ),
        (
            "[algorithms.simhash]\nbits = 65\n",
            "algorithms.simhash.bits = 65",
        ),
        ("[algorithms.winnow]\nw = 0\n", "algorithms.winnow.w = 0"),
    ] {
        std::fs::write(&file, text).unwrap();
        let (code, stderr) = fails(&[
            "scan",
            "--no-index",
            "--config",
            file.to_str().unwrap(),
            sample_corpus().to_str().unwrap(),
        ]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains(&file.display().to_string()), "{stderr}");
        assert!(stderr.contains("line 2"), "{stderr}");
        assert!(stderr.contains(key), "{stderr}");
        assert!(stderr.contains("must be"), "{stderr}");
    }
}

#[test]
fn fusion_with_no_voting_algorithm_suggests_clustering_by_one() {
    let corpus = sample_corpus();
    let (code, stderr) = fails(&[
        "scan",
        "--no-index",
        "--algorithms",
        "si",
        corpus.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--cluster-by si"), "{stderr}");
}

#[test]
fn slips_on_the_command_line_get_messages_that_say_what_happened() {
    let corpus = sample_corpus();
    let corpus = corpus.to_str().unwrap();
    // A misspelt command: the top-level DIR took it.
    for args in [
        &["scna", corpus][..],
        &["scna"],
        &["--config", "x.toml", "scna"],
    ] {
        let (code, stderr) = fails(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("no folder 'scna'; did you mean `doppel scan`?"),
            "{args:?}: {stderr}"
        );
    }
    let (code, stderr) = fails(&["frobnicate"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("'frobnicate' is neither a command nor a folder"),
        "{stderr}"
    );
    // A path is only a path.
    let (code, stderr) = fails(&["/nonexistent/folder"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("cannot open folder"), "{stderr}");
    // Outside the repository, eval's default books folder is missing.
    let (code, stderr) = fails(&["eval"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("default of --books"), "{stderr}");
    // A folder where a file belongs, said once.
    let (_, stderr) = fails(&["compare", corpus, "x"]);
    assert!(stderr.contains("not a regular file (folder)"), "{stderr}");
    assert_eq!(stderr.matches("regular file").count(), 1, "{stderr}");
    // --cluster-by lists every verdict it takes.
    let (code, stderr) = fails(&["scan", "--cluster-by", "bogus", corpus]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("fusion, exact"), "{stderr}");
}

#[test]
fn the_log_is_off_by_default_and_goes_where_log_says() {
    let state = tempfile::tempdir().unwrap();
    let index = state.path().join("index.sqlite");
    let scan = |index: &std::path::Path, extra: &[&std::ffi::OsStr], filter: Option<&str>| {
        let mut command = doppel();
        command.env_remove("DOPPEL_LOG");
        if let Some(filter) = filter {
            command.env("DOPPEL_LOG", filter);
        }
        let out = command
            .args(["scan", "--index"])
            .arg(index)
            .args(extra)
            .arg(sample_corpus())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stderr).unwrap()
    };
    assert_eq!(
        scan(&index, &[], None),
        "",
        "nothing is logged unless asked"
    );
    let log = state.path().join("doppel.log");
    assert_eq!(scan(&index, &["--log".as_ref(), log.as_os_str()], None), "");
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains("index loaded"), "{written}");
    assert!(written.contains("reconciled"), "{written}");
    assert!(!written.contains("TRACE"), "info by default: {written}");
    // DOPPEL_LOG alone logs to standard error, at the level it asks: every
    // document committed to a new index.
    let stderr = scan(&state.path().join("new.sqlite"), &[], Some("doppel=trace"));
    assert!(stderr.contains("reconciled"), "{stderr}");
    assert!(stderr.contains("commit document"), "{stderr}");
}

#[test]
fn watch_jsonl_tells_a_warning_from_an_error() {
    let state = tempfile::tempdir().unwrap();
    let index = state.path().join("index.sqlite");
    std::fs::write(&index, b"not a database, not even close").unwrap();
    let out = doppel()
        .args(["watch", "--jsonl", "--until-eof", "--index"])
        .arg(&index)
        .arg(sample_corpus())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let warning = lines
        .iter()
        .find(|v| v["event"] == "warning")
        .expect("a warning line");
    assert!(
        warning["message"].as_str().unwrap().contains("moved it to"),
        "{warning}"
    );
    assert!(
        lines.iter().all(|v| v["event"] != "error"),
        "an index moved aside is no error: {lines:?}"
    );
}
