//! `doppel_eval`: the Fan & Huang protocol (determinism, the edit
//! generator, a tiny run's sanity) and pairwise scoring of a labelled
//! collection (`sample-corpus/`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::{Engine, EngineConfig};
use doppel_core::hash::SplitMix64;
use doppel_eval::{
    chunk_text, edit_count, edit_words, fan_huang, truth, truth_with, vocabulary, EvalReport,
    FanHuangConfig, Timing, Truth, PAPER_TABLE1,
};
use doppel_pairing::library::LibraryConfig;
use serde::Deserialize;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus")
}

#[derive(Deserialize)]
struct Expected {
    groups: Vec<Vec<String>>,
    containment: Vec<(String, String)>,
    skipped: std::collections::BTreeMap<String, String>,
}

fn expected() -> Expected {
    serde_json::from_str(&std::fs::read_to_string(sample().join("expected.json")).unwrap()).unwrap()
}

/// A tiny protocol on `sample-corpus/` with its planted duplicates left out
/// (every group member but the first, every "whole" of a part), so the
/// background really is unduplicated.
fn tiny(seed: u64) -> FanHuangConfig {
    let e = expected();
    let mut exclude: Vec<String> = e
        .groups
        .iter()
        .flat_map(|g| g[1..].iter().cloned())
        .chain(e.containment.iter().map(|(_, whole)| whole.clone()))
        .collect();
    exclude.sort();
    exclude.dedup();
    FanHuangConfig {
        sources: 2,
        copies: 10,
        background: 50,
        chunk_bytes: 2048,
        exclude,
        seed,
        ..FanHuangConfig::default()
    }
}

fn run(seed: u64) -> EvalReport {
    let mut report = fan_huang(&tiny(seed), &sample()).unwrap();
    report.timing = Timing::default();
    report
}

fn tiny_report() -> &'static EvalReport {
    static REPORT: OnceLock<EvalReport> = OnceLock::new();
    REPORT.get_or_init(|| run(7))
}

#[test]
fn same_seed_same_report_other_seed_other_sources() {
    let a = tiny_report();
    let b = run(7);
    assert_eq!(*a, b);
    assert_eq!(a.to_csv(), b.to_csv());
    let c = run(8);
    assert_ne!(
        a.sources, c.sources,
        "another seed must choose other sources"
    );
}

#[test]
fn tiny_run_is_sane_and_sweeps_the_documented_ranges() {
    let r = tiny_report();
    assert_eq!(r.sources.len(), 2);
    assert_eq!(r.background, 50);
    assert_eq!(r.documents, 2 + 50 + 2 * 10);
    for curve in &r.curves {
        for p in &curve.points {
            for v in [p.precision, p.recall, p.f] {
                assert!(
                    (0.0..=1.0).contains(&v),
                    "{} {} at {}: {v} outside [0, 1]",
                    curve.algorithm,
                    curve.setting,
                    p.threshold
                );
            }
        }
    }
    let best = |alg: &str, setting: &str| r.curve(alg, setting).unwrap().best().unwrap();
    // Every copy is edited, so exact matching finds none of them.
    assert!(best("exact", "").f < 0.2, "exact: {:?}", best("exact", ""));
    assert!(
        best("minhash", "").f >= 0.8,
        "minhash: {:?}",
        best("minhash", "")
    );

    let thresholds = |alg: &str, setting: &str| -> Vec<f64> {
        r.curve(alg, setting)
            .unwrap_or_else(|| panic!("no curve for {alg} {setting}"))
            .points
            .iter()
            .map(|p| p.threshold)
            .collect()
    };
    let hamming: Vec<f64> = (0..32).map(f64::from).collect();
    let similarity: Vec<f64> = (0..=18).map(|i| f64::from(10 + 5 * i) / 100.0).collect();
    let counts = |n: u32| (1..=n).map(f64::from).collect::<Vec<_>>();
    assert_eq!(thresholds("simhash", "bits=32"), hamming);
    assert_eq!(thresholds("simhash-shingle", "bits=32 k=2"), hamming);
    for l in 1..=10 {
        assert_eq!(
            thresholds("simhash-lexicons", &format!("lexicons={l}")),
            hamming
        );
    }
    for alg in ["shingle", "minhash", "winnow", "si"] {
        assert_eq!(thresholds(alg, ""), similarity, "{alg}");
        assert!((similarity[0] - 0.1).abs() < 1e-12 && similarity[18] == 1.0);
    }
    assert_eq!(thresholds("supershingle", ""), counts(6));
    assert_eq!(thresholds("imatch-lexicons", ""), counts(10));
    assert_eq!(thresholds("exact", ""), vec![1.0]);
    assert_eq!(thresholds("imatch", ""), vec![1.0]);
    // min-agree 1..=4: the votes the voters' families give (passages 2,
    // vocabulary 1, signatures 1; si does not vote).
    assert_eq!(thresholds("fusion", ""), counts(4));
    assert_eq!(r.main_curves().len(), 12);

    // Table 1 beside the paper's figures.
    assert_eq!(r.lexicon_table.len(), 10);
    for (row, paper) in r.lexicon_table.iter().zip(PAPER_TABLE1) {
        assert_eq!(row.paper_f, Some(paper.0));
        assert_eq!(row.paper_threshold, Some(paper.1));
    }
    // More lexicons can only lower the smallest distance: recall never drops.
    for l in 1..10 {
        let (a, b) = (
            r.curve("simhash-lexicons", &format!("lexicons={l}"))
                .unwrap(),
            r.curve("simhash-lexicons", &format!("lexicons={}", l + 1))
                .unwrap(),
        );
        for (p, q) in a.points.iter().zip(&b.points) {
            assert!(q.recall >= p.recall, "L={l} → {}: {p:?} {q:?}", l + 1);
        }
    }

    let csv = r.to_csv();
    let points: usize = r.curves.iter().map(|c| c.points.len()).sum();
    assert_eq!(csv.lines().count(), points + 1);
    assert_eq!(
        csv.lines().next(),
        Some("algorithm,setting,threshold,precision,recall,f")
    );
    let text = r.to_text();
    assert!(
        text.contains("Table 1") && text.contains("0.8805"),
        "{text}"
    );
    assert!(text.contains("minhash"));
    let svg = r.to_svg();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.matches("<polyline").count() >= 11 * 3);
}

#[test]
fn fusion_recall_grows_as_fewer_algorithms_must_agree() {
    let fusion = tiny_report().curve("fusion", "").unwrap();
    for w in fusion.points.windows(2) {
        assert!(w[0].recall >= w[1].recall, "{:?}", fusion.points);
    }
}

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

/// Word-level Levenshtein distance.
fn word_distance(a: &[&str], b: &[&str]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(x != y))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

fn moby_chunk() -> String {
    let text = std::fs::read_to_string(sample().join("moby/moby-dick-ch1.txt")).unwrap();
    chunk_text(&text, 4096)[0].to_owned()
}

#[test]
fn edit_generator_applies_the_requested_rate() {
    let source = moby_chunk();
    let vocab = vocabulary([
        std::fs::read_to_string(sample().join("austen/emma-ch1.txt"))
            .unwrap()
            .as_str(),
    ]);
    assert!(vocab.len() > 500);
    let n = words(&source).len();
    assert!(n > 500, "{n} words");

    let mut rng = SplitMix64::new(3);
    let same = edit_words(&source, 0.0, &vocab, &mut rng);
    assert_eq!(
        same.text, source,
        "rate 0 must reproduce the source exactly"
    );
    assert_eq!(same.edits(), 0);

    for rate in [0.01, 0.05, 0.1, 0.2, 0.3] {
        let e = edit_words(&source, rate, &vocab, &mut rng);
        assert_eq!(e.source_words, n);
        assert_eq!(e.edits(), edit_count(n, rate));
        assert!(
            (e.rate() - rate).abs() <= 1.0 / n as f64,
            "{rate}: {}",
            e.rate()
        );
        let out = words(&e.text);
        assert_eq!(out.len(), n + e.inserted - e.deleted);
        // Independent check: the word-level edit distance is about the
        // number of operations (a later edit can undo or overlap an earlier
        // one, never add more).
        let d = word_distance(&words(&source), &out);
        assert!(
            d <= e.edits() && d as f64 >= 0.8 * e.edits() as f64,
            "rate {rate}: {} ops, distance {d}",
            e.edits()
        );
        if rate >= 0.1 {
            assert!(e.inserted > 0 && e.deleted > 0 && e.replaced > 0, "{e:?}");
        }
    }
    // Seeded: the same rng state gives the same copy.
    let a = edit_words(&source, 0.2, &vocab, &mut SplitMix64::new(11));
    let b = edit_words(&source, 0.2, &vocab, &mut SplitMix64::new(11));
    let c = edit_words(&source, 0.2, &vocab, &mut SplitMix64::new(12));
    assert_eq!(a, b);
    assert_ne!(a.text, c.text);
}

#[test]
fn chunks_end_on_word_boundaries() {
    let text = std::fs::read_to_string(sample().join("misc/alice-ch1-3.txt")).unwrap();
    let chunks = chunk_text(&text, 2048);
    assert!(chunks.len() >= 10);
    for c in &chunks {
        assert!(c.len() >= 1024, "{}", c.len());
        assert!(!c.starts_with(char::is_whitespace) && !c.ends_with(char::is_whitespace));
        let end = c.as_ptr() as usize - text.as_ptr() as usize + c.len();
        assert!(text[end..].is_empty() || text[end..].starts_with(char::is_whitespace));
    }
    let rejoined: Vec<&str> = chunks.iter().flat_map(|c| c.split_whitespace()).collect();
    let all = words(&text);
    assert_eq!(rejoined, all[..rejoined.len()], "no word is lost or split");
    assert!(
        all.len() - rejoined.len() < 2048 / 2,
        "only a short tail is dropped"
    );
}

/// The protocol derives 32-bit SimHashes from 64-bit ones; that is only
/// right while a b-bit fingerprint is the low b bits of the 64-bit one.
#[test]
fn narrow_simhash_is_the_low_bits_of_the_wide_one() {
    let wide = Engine::default();
    let mut cfg = EngineConfig::default();
    cfg.algorithms.simhash.bits = 32;
    cfg.algorithms.simhash_shingle.bits = 32;
    cfg.algorithms.simhash_lexicons.bits = 32;
    cfg.algorithms.simhash_lexicons.lexicons = 3;
    let narrow = Engine::new(cfg);
    let text = moby_chunk();
    let (fw, fnarrow) = (
        wide.fingerprint(&wide.analyze(&text), wide.reference_weights())
            .unwrap(),
        narrow
            .fingerprint(&narrow.analyze(&text), narrow.reference_weights())
            .unwrap(),
    );
    let low = |x: Option<u64>| x.map(|v| v & 0xffff_ffff);
    assert_eq!(fnarrow.simhash.unwrap(), low(fw.simhash.unwrap()));
    assert_eq!(
        fnarrow.simhash_shingle.unwrap(),
        low(fw.simhash_shingle.unwrap())
    );
    let lw: Vec<_> = fw.simhash_lexicons.unwrap().into_iter().map(low).collect();
    assert_eq!(fnarrow.simhash_lexicons.unwrap(), lw[..3]);
}

#[test]
fn truth_on_the_sample_corpus() {
    let e = expected();
    let engine = Engine::default();
    let report = truth(
        &sample(),
        &sample().join("expected.json"),
        &engine,
        &LibraryConfig::default(),
    )
    .unwrap();

    assert!(report.missing.is_empty(), "{:?}", report.missing);
    let skipped: Vec<&str> = report.skipped.iter().map(|(rel, _)| rel.as_str()).collect();
    assert_eq!(
        skipped,
        e.skipped.keys().map(String::as_str).collect::<Vec<_>>(),
        "{:?}",
        report.skipped
    );
    // Part/whole pairs are duplicates (fusion's containment rule), the
    // distinct ones are not: fusion gets every pair right.
    let fusion = report.row("fusion").unwrap();
    assert_eq!(
        fusion.precision, 1.0,
        "false positives: {:?}",
        report.fusion_false_positives
    );
    assert_eq!(
        fusion.recall, 1.0,
        "missed: {:?}",
        report.fusion_false_negatives
    );
    assert_eq!(report.rows.len(), AlgorithmId::ALL.len() + 1);
    for r in &report.rows {
        assert_eq!(r.true_positives + r.false_negatives, report.positives);
        assert!((0.0..=1.0).contains(&r.f));
    }
    let json: serde_json::Value = serde_json::from_str(&report.to_json().unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 12);
    let csv_text = report.to_csv().unwrap();
    let mut csv = csv::Reader::from_reader(csv_text.as_bytes());
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    assert_eq!(
        csv.headers().unwrap().iter().take(4).collect::<Vec<_>>(),
        [
            "algorithm",
            "threshold",
            "true_positives",
            "false_positives"
        ]
    );
    assert_eq!(rows.len(), 12);
    assert_eq!(
        (&rows[11][0], &rows[11][5], &rows[11][6]),
        ("fusion", "1.0", "1.0")
    );
}

/// How the pairs were counted is printed: 22 pairs within groups (Emma's
/// five forms make 10, the three Moby-Dick encodings 3, and so do Alice,
/// its reordering and its scan), 2 part/whole pairs besides (the
/// Constitution pair is in a group too), 7 listed as distinct.
#[test]
fn truth_report_says_how_pairs_were_counted() {
    let report = truth(
        &sample(),
        &sample().join("expected.json"),
        &Engine::default(),
        &LibraryConfig::default(),
    )
    .unwrap();
    assert_eq!(
        (
            report.positives,
            report.group_pairs,
            report.part_whole_pairs,
            report.distinct_pairs
        ),
        (24, 22, 2, 7)
    );
    let text = report.to_text();
    assert!(
        text.contains(
            "24 duplicate pairs in the truth: 22 within groups, 2 more part/whole (\"containment\"; \
             fusion's containment rule makes them duplicates); every other pair counts as not a \
             duplicate (7 listed as \"distinct\")"
        ),
        "{text}"
    );
}

#[test]
fn truth_pairs_come_from_groups_and_parts_only() {
    let t = Truth {
        groups: vec![
            vec!["a".into(), "c".into()],
            vec!["b".into(), "./c".into()],
            vec!["x".into(), "y".into(), "z".into()],
        ],
        containment: vec![("p".into(), "./a".into())],
        distinct: vec![("a".into(), "b".into())],
    };
    let pairs = t.positive_pairs();
    assert_eq!(pairs.len(), 2 + 3 + 1);
    assert!(pairs.contains(&("b".into(), "c".into())));
    assert!(pairs.contains(&("a".into(), "p".into())));
    // Groups are not merged: a ~ c and b ~ c do not make a ~ b.
    assert!(!pairs.contains(&("a".into(), "b".into())));
}

#[test]
fn a_pair_both_duplicate_and_distinct_is_refused() {
    let t = Truth {
        groups: vec![vec![
            "austen/emma-ch1.txt".into(),
            "edited/emma-ch1-edited.txt".into(),
        ]],
        distinct: vec![(
            "edited/emma-ch1-edited.txt".into(),
            "austen/emma-ch1.txt".into(),
        )],
        ..Truth::default()
    };
    let err = truth_with(&sample(), &t, &Engine::default(), &LibraryConfig::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("both as duplicates and as distinct"),
        "{err}"
    );
}

/// README's figure, with the command it gives: fusion has P = R = 1 over
/// 24 duplicate pairs of `sample-corpus/`.
#[test]
fn readme_eval_figure_for_the_sample_corpus_holds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let claim = "`doppel eval --truth sample-corpus/expected.json sample-corpus` gives fusion\nP = R = 1 over 24 duplicate pairs.";
    assert!(readme.contains(claim), "README no longer says: {claim}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_doppel"))
        .current_dir(root)
        .env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"))
        .args([
            "eval",
            "--truth",
            "sample-corpus/expected.json",
            "sample-corpus",
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["positives"], 24);
    let fusion = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["algorithm"] == "fusion")
        .unwrap();
    assert_eq!(
        (&fusion["precision"], &fusion["recall"]),
        (&1.0.into(), &1.0.into())
    );
}

/// The real protocol with the defaults, on a folder of whole public-domain
/// books named by `DOPPEL_CORPUS` (a benchmark, not part of `cargo test`:
/// the repository's `tests/data/corpus/` is too small for it), in release:
/// `DOPPEL_CORPUS=DIR cargo test --release --test eval -- --ignored --nocapture`.
/// Set `DOPPEL_EVAL_OUT` to a folder to also get `eval.csv` and `eval.svg`.
#[test]
#[ignore]
fn fan_huang_on_a_corpus_of_books() {
    let books = PathBuf::from(
        std::env::var_os("DOPPEL_CORPUS")
            .expect("set DOPPEL_CORPUS to a folder of public-domain books"),
    );
    let report = fan_huang(&FanHuangConfig::default(), &books).unwrap();
    println!("{}", report.to_text());
    if let Ok(dir) = std::env::var("DOPPEL_EVAL_OUT") {
        let dir = PathBuf::from(dir);
        std::fs::write(dir.join("eval.csv"), report.to_csv()).unwrap();
        report.write_svg(&dir.join("eval.svg")).unwrap();
        std::fs::write(dir.join("eval.json"), report.to_json().unwrap()).unwrap();
    }
}
