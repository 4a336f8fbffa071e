//! A report prints a pair only when it says something about it: some
//! algorithm passes its threshold, or the two carry a relation
//! (`duplicate`, `contains`, `related`). Pairs the library keeps above a
//! looser floor (so that thresholds can be loosened without re-reading)
//! stay in the library but are left out of the JSON, the CSV and the text
//! report's count alike; translations (`related`) are never left out.

mod common;

use std::path::Path;

use doppel_core::engine::algo::AlgorithmId;
use doppel_core::engine::Engine;

use doppel_index::scan::{scan_folder, ScanReport};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::LibraryConfig;
use serde_json::Value;

use common::sample_corpus;

fn chapter(rel: &str) -> String {
    std::fs::read_to_string(sample_corpus().join(rel)).unwrap()
}

/// A folder of Moby-Dick's first chapter, Alice's first three with 150 of
/// Moby-Dick's words inside (a few percent of each, and sizes too far
/// apart for si: no relation, no threshold), and Ruth in the KJV and the
/// WEB (translations: `related`).
fn folder(dir: &Path) {
    let moby = chapter("moby/moby-dick-ch1.txt");
    let words: Vec<&str> = moby.split_whitespace().collect();
    let quote = words[400..550].join(" ");
    let alice = chapter("misc/alice-ch1-3.txt");
    let (head, tail) = alice.split_at(alice.len() / 2);
    let cut = head.rfind(' ').unwrap();
    let quoting = format!("{}\n\n{quote}\n\n{}{tail}", &head[..cut], &head[cut..]);
    std::fs::write(dir.join("moby.txt"), &moby).unwrap();
    std::fs::write(dir.join("alice-quoting.txt"), quoting).unwrap();
    std::fs::write(dir.join("ruth-kjv.txt"), chapter("bible/ruth-kjv.txt")).unwrap();
    std::fs::write(dir.join("ruth-web.txt"), chapter("bible/ruth-web.txt")).unwrap();
}

/// The folder scanned with every pair sharing a shingle kept (shingle and
/// winnow floors at 0), as a library kept for loose thresholds would.
fn scan(dir: &Path) -> (ScanReport, Engine) {
    let engine = Engine::default();
    let mut config = LibraryConfig::default();
    config.floors.0.insert(AlgorithmId::Shingle, 0.0);
    config.floors.0.insert(AlgorithmId::Winnow, 0.0);
    let spec = ClusterSpec::from_engine(&engine);
    let report = scan_folder(dir, &engine, engine.reference_weights(), config, spec).expect("scan");
    (report, engine)
}

fn kept(report: &ScanReport, a: &str, b: &str) -> bool {
    let lib = &report.library;
    let id = |p: &str| lib.id_of(&doppel_core::doc::DocPath::from_relative(Path::new(p)));
    lib.pair(id(a).unwrap(), id(b).unwrap()).is_some()
}

#[test]
fn a_pair_kept_only_above_a_floor_is_not_printed_but_translations_are() {
    let dir = tempfile::tempdir().unwrap();
    folder(dir.path());
    let (report, engine) = scan(dir.path());
    assert!(
        kept(&report, "alice-quoting.txt", "moby.txt"),
        "the quoting pair is kept above the floor (the case under test)"
    );
    let json: Value =
        serde_json::from_str(&doppel_report::json(&report, dir.path(), engine.config()).unwrap())
            .unwrap();
    let pairs = json["pairs"].as_array().unwrap();
    let names: Vec<(&str, &str)> = pairs
        .iter()
        .map(|p| (p["a"].as_str().unwrap(), p["b"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        vec![("ruth-kjv.txt", "ruth-web.txt")],
        "only the translations are printed"
    );
    assert_eq!(pairs[0]["relation"], "related");
    for p in pairs {
        assert!(
            !p["duplicate_by"].as_array().unwrap().is_empty() || !p["relation"].is_null(),
            "a printed pair passes a threshold or carries a relation: {p}"
        );
    }
    let csv = doppel_report::csv(&report, dir.path()).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + pairs.len(),
        "CSV rows = JSON pairs"
    );
    assert!(!csv.contains("moby.txt"), "{csv}");
    let text = doppel_report::text(&report, dir.path());
    assert!(
        text.starts_with("4 documents indexed, 0 skipped, 1 verified pair, 0 clusters ("),
        "the text report counts the printed pairs: {text}"
    );
    assert!(
        text.contains("related    ruth-kjv.txt ~ ruth-web.txt"),
        "{text}"
    );
    let quoting = doppel_core::doc::DocPath::from_relative(Path::new("alice-quoting.txt"));
    let moby = doppel_core::doc::DocPath::from_relative(Path::new("moby.txt"));
    assert!(report.pair(&quoting, &moby).is_none());
    assert_eq!(report.pairs().len(), 1);
}

/// Moby-Dick's first chapter, Emma's, and Emma's with Moby-Dick's words
/// `quoted` (by index) set in at a word boundary halfway.
fn quoting_moby(quoted: std::ops::Range<usize>) -> (String, String, String) {
    let moby = chapter("moby/moby-dick-ch1.txt");
    let words: Vec<&str> = moby.split_whitespace().collect();
    let quote = words[quoted].join(" ");
    let emma = chapter("austen/emma-ch1.txt");
    let (head, tail) = emma.split_at(emma.len() / 2);
    let cut = head.rfind(' ').unwrap();
    let quoting = format!("{}\n\n{quote}\n\n{}{tail}", &head[..cut], &head[cut..]);
    (moby, emma, quoting)
}

/// `si` alone keeps no pair: Emma's first chapter with 150 of Moby-Dick's
/// words inside is of Moby-Dick's first chapter's size and shares a
/// sampled passage with it, which passes Roth's test (closeness 0.76, one
/// sampled k-gram in common), but nothing else is near: the pair is
/// neither kept nor printed. An edited copy of Emma, which si finds too,
/// is kept with si among the algorithms that call it a duplicate.
#[test]
fn si_alone_keeps_no_pair_but_still_judges_the_pairs_it_shares() {
    let dir = tempfile::tempdir().unwrap();
    let (moby, emma, quoting) = quoting_moby(400..550);
    let edited = emma.replacen("Woodhouse", "Woodhowse", 1);
    std::fs::write(dir.path().join("moby.txt"), &moby).unwrap();
    std::fs::write(dir.path().join("emma-quoting.txt"), &quoting).unwrap();
    std::fs::write(dir.path().join("emma-edited.txt"), &edited).unwrap();
    let engine = Engine::default();
    let print = |text: &str| {
        engine
            .fingerprint(&engine.analyze(text), engine.reference_weights())
            .unwrap()
    };
    let si = engine
        .score(AlgorithmId::Si, &print(&moby), &print(&quoting))
        .unwrap();
    assert!(
        si.passes(engine.config().thresholds.get(AlgorithmId::Si)),
        "si alone calls the quoting pair similar (the case under test): {si:?}"
    );
    let report = scan_folder(
        dir.path(),
        &engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        ClusterSpec::from_engine(&engine),
    )
    .expect("scan");
    assert!(!kept(&report, "emma-quoting.txt", "moby.txt"));
    let pairs = report.pairs();
    assert!(
        pairs
            .iter()
            .all(|p| p.a != "emma-quoting.txt" || p.b != "moby.txt"),
        "not printed"
    );
    let copy = pairs
        .iter()
        .find(|p| p.a == "emma-edited.txt" && p.b == "emma-quoting.txt")
        .expect("the edited copy and the quoting chapter are a pair");
    assert!(copy.verdict.passing.contains(&AlgorithmId::Si), "{copy:?}");
}

/// `si` alone keeps a pair whose texts share text in substance: with 300
/// of Moby-Dick's words inside Emma's chapter (14 % of Moby-Dick's
/// shingles, below the containment floor of 15 %, above the `related`
/// share of 12 %), si's verdict keeps the pair and it is printed.
#[test]
fn si_alone_keeps_a_pair_sharing_text_in_substance() {
    let dir = tempfile::tempdir().unwrap();
    let (moby, _, quoting) = quoting_moby(400..700);
    std::fs::write(dir.path().join("moby.txt"), &moby).unwrap();
    std::fs::write(dir.path().join("emma-quoting.txt"), &quoting).unwrap();
    let engine = Engine::default();
    let report = scan_folder(
        dir.path(),
        &engine,
        engine.reference_weights(),
        LibraryConfig::default(),
        ClusterSpec::from_engine(&engine),
    )
    .expect("scan");
    let pairs = report.pairs();
    assert_eq!(pairs.len(), 1, "the pair is kept and printed");
    let containment = pairs[0].verdict.containment.unwrap();
    assert!(
        (0.12..0.15).contains(&containment),
        "below the containment floor (the case under test): {containment}"
    );
    assert_eq!(pairs[0].verdict.passing, vec![AlgorithmId::Si]);
}
