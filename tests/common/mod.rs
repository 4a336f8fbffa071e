//! Fixtures shared by the integration tests: a private copy of
//! `sample-corpus/` and an index path outside it, in a temporary folder.
#![allow(dead_code)] // each test crate uses its own subset

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use doppel::pairing::cluster::ClusterSpec;
use doppel::pairing::library::Library;

/// The shared corpus: `DOPPEL_CORPUS`, or `../shared/corpus` beside the
/// repository (a worktree under `wt/` finds it one level further up).
pub fn shared_corpus() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = std::env::var_os("DOPPEL_CORPUS")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            root.join("../shared/corpus"),
            root.join("../../shared/corpus"),
        ]);
    for c in candidates {
        if c.join("manifest.json").is_file() {
            return c;
        }
    }
    panic!("the shared corpus is missing: set DOPPEL_CORPUS to its folder (../shared/corpus)");
}

/// Copy a folder tree (files and subfolders).
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The repository's `sample-corpus/`.
pub fn sample_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus")
}

/// A writable copy of the sample corpus (`folder`) and an index path
/// beside it (`index`); both vanish when dropped.
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub folder: PathBuf,
    pub index: PathBuf,
}

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("books");
    copy_dir(&sample_corpus(), &folder);
    let index = dir.path().join("state").join("index.sqlite");
    Fixture {
        _dir: dir,
        folder,
        index,
    }
}

/// The `doppel` binary, isolated from the developer's own config file.
pub fn doppel() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_doppel"));
    command.env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"));
    command
}

/// Run `command` and return its stdout, failing the test with its stderr
/// unless it succeeds.
pub fn stdout_of(command: &mut Command) -> Vec<u8> {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A library's clusters under `spec` as sets of paths, order-free.
pub fn cluster_paths(lib: &Library, spec: &ClusterSpec) -> BTreeSet<BTreeSet<String>> {
    lib.clusters(spec)
        .iter()
        .map(|c| {
            c.members
                .iter()
                .map(|&m| lib.doc(m).unwrap().path.to_string())
                .collect()
        })
        .collect()
}

/// Every kept pair by its two paths (ordered), with its scores.
pub fn scored_pairs(lib: &Library) -> Vec<(String, String, String)> {
    let mut pairs: Vec<(String, String, String)> = lib
        .pairs()
        .map(|(a, b, scores)| {
            let (pa, pb) = (
                lib.doc(a).unwrap().path.to_string(),
                lib.doc(b).unwrap().path.to_string(),
            );
            let scores = if pa < pb {
                scores
            } else {
                scores.into_iter().map(|(k, s)| (k, s.swapped())).collect()
            };
            (
                pa.clone().min(pb.clone()),
                pa.max(pb),
                format!("{scores:?}"),
            )
        })
        .collect();
    pairs.sort();
    pairs
}

/// Write the small generated library collection (`doppel make-library
/// --size small`) to `out`, failing the test with the command's message.
pub fn make_small_library(out: &Path) {
    let made = Command::new(env!("CARGO_BIN_EXE_doppel"))
        .args(["make-library", "--size", "small", "--corpus"])
        .arg(shared_corpus())
        .arg(out)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
}

/// The first update of `worker` that `pick` takes, within 60 s (else the
/// test fails, naming `what`).
pub fn wait_for_update<T>(
    worker: &doppel::runtime::worker::WorkerHandle,
    what: &str,
    mut pick: impl FnMut(doppel::runtime::worker::Update) -> Option<T>,
) -> T {
    let wait = std::time::Duration::from_secs(60);
    let end = std::time::Instant::now() + wait;
    loop {
        let left = end.saturating_duration_since(std::time::Instant::now());
        match worker.updates.recv_timeout(left) {
            Ok(update) => {
                if let Some(found) = pick(update) {
                    return found;
                }
            }
            Err(e) => panic!("no {what} within {wait:?}: {e}"),
        }
    }
}
