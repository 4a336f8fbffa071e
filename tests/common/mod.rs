//! Fixtures shared by the integration tests: a private copy of
//! `sample-corpus/` and an index path outside it, in a temporary folder.
#![allow(dead_code)] // each test crate uses its own subset

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use std::sync::Arc;
use std::time::Duration;

use doppel_core::doc::DocPath;
use doppel_core::engine::measure::shingle_set;
use doppel_core::engine::{Engine, EngineConfig, Fingerprints};
use doppel_index::index::{FolderIndex, IndexOptions};
use doppel_index::worker::protocol::{DiffView, PairDetail, Snapshot};
use doppel_index::worker::{spawn, Command as WorkerCommand, Update, WorkerConfig};
use doppel_pairing::cluster::ClusterSpec;
use doppel_pairing::library::{Library, LibraryConfig};

pub mod boilerplate;

/// The tests' public-domain books, in the repository: `tests/data/corpus/`
/// (byte-identical copies of the project's larger corpus, under the same
/// paths; its README names their sources). Nothing beside the repository
/// is read.
pub fn test_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus")
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

/// `doppel scan --no-index EXTRA FOLDER`'s standard output; the run must
/// succeed.
pub fn scan_text(folder: &Path, extra: &[&str]) -> String {
    let out = stdout_of(
        doppel()
            .args(["scan", "--no-index"])
            .args(extra)
            .arg(folder),
    );
    String::from_utf8(out).unwrap()
}

/// The same scan's JSON report.
pub fn scan_json(folder: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&scan_text(folder, &args)).unwrap()
}

/// `folder` indexed with the default configuration into a store at
/// `index_path`, every file read.
pub fn indexed(folder: &Path, index_path: &Path) -> FolderIndex {
    let (mut index, _) = FolderIndex::open(
        folder,
        Engine::new(EngineConfig::default()),
        LibraryConfig::default(),
        Some(index_path),
    )
    .unwrap();
    index.reconcile().unwrap();
    index
}

/// The worker's snapshot of `index` under its own cluster settings, as
/// generation 1.
pub fn snapshot_of(index: &FolderIndex) -> Arc<Snapshot> {
    let spec = ClusterSpec::from_engine(index.engine());
    Arc::new(doppel_index::worker::snapshot::build(index, &spec, 1))
}

/// The first two members of the cluster of `snapshot` holding `path`.
pub fn cluster_pair(snapshot: &Snapshot, path: &str) -> (DocPath, DocPath) {
    let path = DocPath::from(path);
    let c = snapshot
        .clusters
        .iter()
        .find(|c| c.members.iter().any(|m| m.path == path))
        .unwrap_or_else(|| panic!("no cluster holds {path}"));
    (c.members[0].path.clone(), c.members[1].path.clone())
}

/// A real worker's answers on `folder`'s index (no watching), tagged with
/// generation 1 as a fixture snapshot is: the detail of `pair` (every
/// algorithm's reason as the pair screen gets it) and the whole word diff of
/// each of `diffs` (shared passages marked from the stored fingerprints).
pub fn worker_answers<const N: usize>(
    folder: &Path,
    index_path: &Path,
    (a, b): (&DocPath, &DocPath),
    diffs: [(&DocPath, &DocPath); N],
) -> (PairDetail, [DiffView; N]) {
    let mut config = WorkerConfig::new(folder);
    config.index = Some(index_path.to_owned().into());
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    let worker = spawn(config);
    let ask = |command: WorkerCommand| worker.commands.send(command).unwrap();
    ask(WorkerCommand::RequestPair {
        a: a.clone(),
        b: b.clone(),
    });
    let detail = wait_for_update(&worker, "pair detail", |u| match u {
        Update::Pair(p) => Some(p),
        _ => None,
    });
    let diffs = diffs.map(|(a, b)| {
        ask(WorkerCommand::RequestDiff {
            a: a.clone(),
            b: b.clone(),
            deadline: Duration::from_secs(60),
        });
        let diff = wait_for_update(&worker, "diff", |u| match u {
            Update::Diff(d) => Some(d),
            _ => None,
        });
        assert!(!diff.truncated, "the fixture diff {a} ~ {b} is whole");
        DiffView {
            generation: 1,
            ..(*diff).clone()
        }
    });
    worker.join();
    let detail = PairDetail {
        generation: 1,
        ..(*detail).clone()
    };
    (detail, diffs)
}

/// The `doppel` binary, isolated from the developer's own config file.
pub fn doppel() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_doppel"));
    command.env("XDG_CONFIG_HOME", env!("CARGO_TARGET_TMPDIR"));
    // Indexes in the default place go under target/, never the user's own
    // data folder: an older index there (another schema) would make
    // commands warn, and a test must not write outside the build.
    command.env(
        "XDG_DATA_HOME",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/data-home"),
    );
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

/// A text's fingerprints under `engine` (its reference weights) and its
/// distinct shingle count: what a library files for it.
pub fn library_prints(engine: &Engine, text: &str) -> (Fingerprints, usize) {
    let analysis = engine.analyze(text);
    let shingle = &engine.config().algorithms.shingle;
    let shingles = shingle_set(&analysis, shingle.w, shingle.seed).len();
    (
        engine
            .fingerprint(&analysis, engine.reference_weights())
            .unwrap(),
        shingles,
    )
}

/// Every kept pair by its two paths (ordered).
pub fn pair_paths(lib: &Library) -> BTreeSet<(String, String)> {
    lib.pairs()
        .map(|(a, b, _)| {
            let (pa, pb) = (
                lib.doc(a).unwrap().path.to_string(),
                lib.doc(b).unwrap().path.to_string(),
            );
            if pa < pb {
                (pa, pb)
            } else {
                (pb, pa)
            }
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
    stdout_of(
        doppel()
            .args(["make-library", "--size", "small", "--corpus"])
            .arg(test_corpus())
            .arg(out),
    );
}

/// The first update of `worker` that `pick` takes, within 60 s (else the
/// test fails, naming `what`).
pub fn wait_for_update<T>(
    worker: &doppel_index::worker::WorkerHandle,
    what: &str,
    mut pick: impl FnMut(doppel_index::worker::Update) -> Option<T>,
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

/// Make `index` read its files through a reader that counts them; the
/// count.
pub fn count_reads(index: &mut FolderIndex) -> Arc<std::sync::atomic::AtomicUsize> {
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = reads.clone();
    index.set_options(IndexOptions {
        file_reader: Some(Arc::new(move |path: &Path, cap: u64| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            doppel_index::collection::read_bytes(path, cap)
        })),
        ..index.options().clone()
    });
    reads
}

/// A worker on `folder` keeping its index in the team store at `url`, as
/// `curator`, not watching the folder: only the store's notifications
/// tell it what other processes did.
pub fn team_worker(folder: &Path, url: &str, curator: &str) -> doppel_index::worker::WorkerHandle {
    let mut config = WorkerConfig::new(folder);
    config.index = Some(doppel_store::StoreAddress::parse(url).unwrap());
    config.curator = curator.to_owned();
    config.watch = false;
    config.rescan_every = Duration::ZERO;
    spawn(config)
}

/// The lines a child process writes to a pipe, read on a thread of their
/// own, so a test waits for one with a bound instead of hanging.
pub struct Lines {
    lines: std::sync::mpsc::Receiver<String>,
    /// Every line read so far.
    pub seen: Vec<String>,
}

impl Lines {
    /// Read `pipe` (a child's stdout or stderr) line by line.
    pub fn of(pipe: impl std::io::Read + Send + 'static) -> Lines {
        use std::io::BufRead;
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            lines,
            seen: Vec::new(),
        }
    }

    /// The first line read from now on that holds `needle`, within
    /// `within`; the test fails, with every line read, when the pipe ends
    /// or the time is up first.
    pub fn until(&mut self, needle: &str, within: Duration) -> String {
        let end = std::time::Instant::now() + within;
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(e) => panic!(
                    "no line with {needle:?} within {within:?} ({e}); read:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Every line until the pipe ends (within `within`, else the test
    /// fails).
    pub fn until_end(&mut self, within: Duration) -> &[String] {
        let end = std::time::Instant::now() + within;
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return &self.seen,
                Err(e) => panic!(
                    "the pipe did not end within {within:?} ({e}); read:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

/// `doppel scan FOLDER --store URL` reports the pairs, clusters and
/// documents a fresh `doppel scan --no-index` of the folder does.
pub fn assert_store_scans_as_fresh(folder: &Path, url: &str) {
    let fresh = scan_json(folder, &[]);
    assert!(
        fresh["pairs"].as_array().is_some_and(|p| !p.is_empty()),
        "the folder has pairs: {fresh}"
    );
    let through_store = serde_json::from_slice::<serde_json::Value>(&stdout_of(
        doppel()
            .args(["scan", "--format", "json", "--store", url])
            .arg(folder),
    ))
    .unwrap();
    for part in ["pairs", "clusters", "documents"] {
        assert_eq!(through_store[part], fresh[part], "{part}");
    }
}

/// A child process that is killed and reaped when dropped, unless taken
/// first: a failing test leaves no process behind.
pub struct Reaped(pub Option<std::process::Child>);

impl Reaped {
    /// The child.
    pub fn child(&mut self) -> &mut std::process::Child {
        self.0.as_mut().expect("not taken")
    }

    /// The child's exit and its standard output (its stderr is read
    /// elsewhere, or not piped).
    pub fn finish(mut self) -> std::process::Output {
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
