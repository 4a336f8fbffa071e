//! The library's module graph points downward: every `crate::…` path in
//! `src/` names a module of its own layer or of a layer below (base: `hash`,
//! `doc`; then `engine`, `pairing`, `runtime`, `faces`), the top-level
//! modules inside one layer never import each other in a cycle, and no file
//! under `src/` is over 1,000 lines. Read from the source text, so a new
//! upward `use` fails here before review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Layers from the bottom up; a module may use its own layer and those
/// before it.
const LAYERS: [&str; 5] = ["base", "engine", "pairing", "runtime", "faces"];

/// The layer of a top-level module of the crate.
fn layer_of(top: &str) -> Option<usize> {
    let layer = match top {
        "hash" | "doc" => "base",
        other => other,
    };
    LAYERS.iter().position(|&l| l == layer)
}

/// A module as the graph sees it: its layer's top-level module and, inside
/// a layer folder, the module under it (`engine::algo`); the code of a layer
/// folder's `mod.rs` itself is its `core` (`engine::core` is the engine).
fn unit_of_file(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    match parts.as_slice() {
        [top] => Some(top.clone()),
        [top, module, ..] if module == "mod" => Some(format!("{top}::core")),
        [top, module, ..] => Some(format!("{top}::{module}")),
        _ => None,
    }
}

/// The unit a `crate::a::b::…` path names (`b` when `a` is a layer folder
/// with a submodule `b`, else `a::core` for an item of the folder's own
/// code).
fn unit_of_path(segments: &[&str], submodules: &BTreeMap<String, BTreeSet<String>>) -> String {
    let top = segments[0];
    match submodules.get(top) {
        Some(subs) => match segments.get(1) {
            Some(sub) if subs.contains(*sub) => format!("{top}::{sub}"),
            _ => format!("{top}::core"),
        },
        None => top.to_owned(),
    }
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

/// Every `crate::` path in `code` (comments left out), as its segments.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or_default();
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `doppel_crate::` or similar
            }
            if let Some(grouped) = rest.strip_prefix('{') {
                // `crate::{a, b::c}`: each item is a path of its own.
                let group = grouped.split('}').next().unwrap_or_default();
                for item in group.split(',') {
                    let segs: Vec<String> = item
                        .trim()
                        .split("::")
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .collect();
                    if !segs.is_empty() {
                        out.push(segs);
                    }
                }
                continue;
            }
            let segs: Vec<String> = rest
                .split("::")
                .map(|s| {
                    s.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .take_while(|s| !s.is_empty())
                .collect();
            if !segs.is_empty() {
                out.push(segs);
            }
        }
    }
    out
}

/// The library's files (the binary's own modules, `main.rs` and what it
/// declares, sit above every layer and are not checked).
fn library_files(src: &Path) -> Vec<PathBuf> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let tops: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_owned())
        .collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.retain(|f| {
        let rel = f.strip_prefix(src).unwrap();
        let first = rel
            .iter()
            .next()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        tops.contains(&first)
    });
    files.sort();
    files
}

/// Each layer folder's submodules (from the files on disk).
fn submodules(src: &Path, files: &[PathBuf]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap();
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .collect();
        if parts.len() >= 2 && parts[1] != "mod" {
            out.entry(parts[0].clone())
                .or_default()
                .insert(parts[1].clone());
        }
    }
    out
}

/// The edges of the module graph: (from, to) → a file and path that make it.
fn edges() -> BTreeMap<(String, String), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = library_files(&src);
    let subs = submodules(&src, &files);
    let mut edges = BTreeMap::new();
    for file in &files {
        let Some(from) = unit_of_file(&src, file) else {
            continue;
        };
        let code = std::fs::read_to_string(file).unwrap();
        for segs in crate_paths(&code) {
            let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
            let to = unit_of_path(&segs, &subs);
            if to != from {
                edges
                    .entry((from.clone(), to))
                    .or_insert_with(|| format!("{}: crate::{}", file.display(), segs.join("::")));
            }
        }
    }
    edges
}

fn top(unit: &str) -> &str {
    unit.split("::").next().unwrap()
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let mut upward = Vec::new();
    for ((from, to), example) in edges() {
        let (Some(a), Some(b)) = (layer_of(top(&from)), layer_of(top(&to))) else {
            upward.push(format!("{from} → {to}: not in any layer ({example})"));
            continue;
        };
        if b > a {
            upward.push(format!(
                "{from} ({}) → {to} ({}): {example}",
                LAYERS[a], LAYERS[b]
            ));
        }
    }
    assert!(upward.is_empty(), "upward imports:\n{}", upward.join("\n"));
}

#[test]
fn the_module_graph_has_no_cycle() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges().into_keys() {
        graph.entry(from).or_default().insert(to);
    }
    // Depth-first search for a back edge; the cycle is reported by name.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node.as_str()) {
            if let Some(cycle) = visit(node, &graph, &mut state, &mut Vec::new()) {
                panic!("import cycle: {}", cycle.join(" → "));
            }
        }
    }
}

/// The most lines a file of `src/` may have: one that long does several
/// jobs and is split by them.
const MAX_LINES: usize = 1000;

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MAX_LINES).then(|| format!("{}: {lines} lines", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_checker_sees_paths_in_groups_and_full_paths() {
    let code = "use crate::engine::algo::{self, Score};\nuse crate::{hash, doc::DocPath};\n\
                // crate::faces::tui in a comment\nlet x = crate::runtime::store::Store::open;";
    let paths: Vec<String> = crate_paths(code).iter().map(|s| s.join("::")).collect();
    assert_eq!(
        paths,
        [
            "engine::algo",
            "hash",
            "doc::DocPath",
            "runtime::store::Store::open"
        ]
    );
}
