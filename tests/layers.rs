//! The workspace's crates follow the layers: each may depend only on the
//! crates below it (`doppel-formats` < `doppel-core` < `doppel-pairing` < `doppel-store` <
//! `doppel-index` < `doppel-report`, `doppel-eval` < `doppel-tui`, `doppel-cluster` < the
//! `doppel` binary), the engine's crates never on the terminal crates, and
//! no source file is over 800 lines. Cargo already refuses a cycle; these
//! tests read the crate graph (`cargo metadata`), so an upward dependency
//! that Cargo would accept (a dev-dependency, a new crate) fails here too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Each workspace crate and the workspace crates it may depend on.
const BELOW: [(&str, &[&str]); 10] = [
    ("doppel-formats", &[]),
    ("doppel-core", &["doppel-formats"]),
    ("doppel-pairing", &["doppel-formats", "doppel-core"]),
    (
        "doppel-store",
        &["doppel-formats", "doppel-core", "doppel-pairing"],
    ),
    (
        "doppel-index",
        &[
            "doppel-formats",
            "doppel-core",
            "doppel-pairing",
            "doppel-store",
        ],
    ),
    (
        "doppel-report",
        &[
            "doppel-formats",
            "doppel-core",
            "doppel-pairing",
            "doppel-store",
            "doppel-index",
        ],
    ),
    (
        "doppel-eval",
        &[
            "doppel-formats",
            "doppel-core",
            "doppel-pairing",
            "doppel-store",
            "doppel-index",
        ],
    ),
    (
        "doppel-tui",
        &[
            "doppel-formats",
            "doppel-core",
            "doppel-pairing",
            "doppel-store",
            "doppel-index",
            "doppel-report",
        ],
    ),
    // DataFusion's plans (the `cluster` feature); its tests compare with
    // the reports and read the generated library.
    (
        "doppel-cluster",
        &[
            "doppel-formats",
            "doppel-core",
            "doppel-pairing",
            "doppel-store",
            "doppel-index",
            "doppel-report",
            "doppel-eval",
        ],
    ),
    (
        "doppel",
        &[
            "doppel-formats",
            "doppel-core",
            "doppel-pairing",
            "doppel-store",
            "doppel-index",
            "doppel-report",
            "doppel-eval",
            "doppel-tui",
            "doppel-cluster",
        ],
    ),
];

/// The crates that draw on a terminal; only `doppel-tui` and the binary
/// may name them, and `doppel-cluster` tokio (DataFusion's plans run on
/// it; the engine it calls never sees it).
const TERMINAL: [&str; 3] = ["ratatui", "crossterm", "tokio"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every workspace crate with the names of its declared dependencies (all
/// kinds: normal, build and dev), from `cargo metadata`.
fn declared_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let name = package["name"].as_str().unwrap().to_owned();
            let deps = package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|dep| dep["name"].as_str().unwrap().to_owned())
                .collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn every_crate_depends_only_on_the_crates_below_it() {
    let graph = declared_dependencies();
    let known: BTreeSet<&str> = BELOW.iter().map(|(name, _)| *name).collect();
    let members: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    assert_eq!(
        members, known,
        "a crate was added or removed: give it its place in BELOW"
    );
    let mut upward = Vec::new();
    for (name, allowed) in BELOW {
        for dep in &graph[name] {
            if known.contains(dep.as_str()) && !allowed.contains(&dep.as_str()) {
                upward.push(format!("{name} -> {dep}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "dependencies on a layer above: {upward:?}"
    );
}

#[test]
fn the_engine_crates_never_depend_on_the_terminal_crates() {
    let graph = declared_dependencies();
    let mut found = Vec::new();
    for (name, deps) in &graph {
        if name == "doppel-tui" || name == "doppel" {
            continue;
        }
        for dep in deps {
            let plans_runtime = name == "doppel-cluster" && dep == "tokio";
            if TERMINAL.contains(&dep.as_str()) && !plans_runtime {
                found.push(format!("{name} -> {dep}"));
            }
        }
    }
    assert!(found.is_empty(), "terminal crates below the TUI: {found:?}");
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_800_lines() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        rust_files(&entry.unwrap().path().join("src"), &mut files);
    }
    assert!(files.len() > 100, "the sources were not found");
    let long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(file).unwrap().lines().count();
            (lines > 800).then(|| format!("{} ({lines} lines)", file.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these by job (a type with modes wants states, not more files): {long:?}"
    );
}
